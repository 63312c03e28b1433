# Sourced by the PostgreSQL benchmarks: a throwaway PostgreSQL 15 cluster on a unix socket
# (fsync off, trust authentication), run as the postgres user when started as root.
#
#   pg_cluster_start PREFIX MAX_CONNECTIONS  → sets D (socket and data folder), PG_PORT, as_postgres
#   psql_run SQL [DATABASE]                  → runs one statement, prints rows unaligned
#   pg_cluster_stop                          → stops the cluster and removes its folder
#
# Environment: PG_BIN (/usr/lib/postgresql/15/bin), PG_PORT (55441).
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_PORT=${PG_PORT:-55441}
as_postgres=()

pg_cluster_start() {
  D=$(mktemp -d "/tmp/$1.XXXXXX")
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$D"; as_postgres=(runuser -u postgres --); fi
  "${as_postgres[@]}" "$BIN/initdb" -D "$D/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
  "${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -l "$D/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $D -c listen_addresses='' -c fsync=off -c max_connections=$2" start >/dev/null
}

psql_run() { "$BIN/psql" -h "$D" -p "$PG_PORT" -U postgres -d "${2:-postgres}" -qAt -v ON_ERROR_STOP=1 -c "$1"; }

pg_cluster_stop() {
  [ -n "${D:-}" ] || return 0
  "${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$D"
}
