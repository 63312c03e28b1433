#!/bin/bash
# The first start makes the cluster in $PGDATA: the role POSTGRES_USER (default todo), a superuser
# whose password is the content of POSTGRES_PASSWORD_FILE or POSTGRES_PASSWORD (one is required),
# and the database POSTGRES_DB (default todo). Every start then runs PostgreSQL in the foreground
# (PID 1), listening on /run/postgresql only.
set -euo pipefail
user="${POSTGRES_USER:-todo}"
database="${POSTGRES_DB:-todo}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    password="$(cat "$POSTGRES_PASSWORD_FILE")"
  else
    password="${POSTGRES_PASSWORD:-}"
  fi
  password="${password%$'\n'}"
  if [ -z "$password" ]; then
    echo "todo-postgres: set POSTGRES_PASSWORD_FILE (a secret) or POSTGRES_PASSWORD: the first start makes the role '$user' with it" >&2
    exit 1
  fi
  initdb --pgdata="$PGDATA" --username="$user" --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 \
    --pwfile=<(printf '%s\n' "$password") >/dev/null
  if [ "$database" != postgres ]; then
    echo "CREATE DATABASE \"$database\";" | postgres --single -j -D "$PGDATA" postgres >/dev/null
  fi
  echo "todo-postgres: made the cluster: role '$user', database '$database'"
fi
exec postgres -D "$PGDATA" -c listen_addresses='' -c unix_socket_directories=/run/postgresql "$@"
