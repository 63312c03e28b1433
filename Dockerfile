# syntax=docker/dockerfile:1
# Build: a Swift toolchain image compiles the release binary with scripts/build-release.sh (the
# same script CI runs, which also stages the health check) and strips it. Run: Debian's slim image
# with the shared libraries the binary loads and nothing else (no curl, no shell tools beyond the
# base), as a non-root user. scripts/container-check.sh builds this file in podman and checks the
# image; its size is in the README ("Run it in a container").

FROM swift:6.3-bookworm AS build
# libcurl4-openssl-dev and libssl-dev: the JWK Set fetch (libcurl) and JWT signatures (libcrypto).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libevent-dev libpq-dev libmimalloc-dev libssl-dev libcurl4-openssl-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first: this layer is rebuilt only when Package.swift changes, not for a source
# change. .build is a BuildKit cache mount, so the fetched dependencies and the compiled objects
# are reused across builds (build-release.sh copies what the image needs out of it, to /staging).
COPY Package.swift ./
RUN --mount=type=cache,target=/src/.build,id=todo-server-build swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
COPY Config ./Config
# Only the scripts the build runs: a change to another script leaves this layer and the build cached.
COPY scripts/build-release.sh scripts/link-order.txt scripts/container-healthcheck.sh ./scripts/
# Stripped: 45 MB to 20 MB (a crash's backtrace then shows addresses, not names).
RUN --mount=type=cache,target=/src/.build,id=todo-server-build scripts/build-release.sh /staging \
 && strip /staging/todo-server

FROM debian:bookworm-slim
# What the binary loads: libevent, mimalloc, libcrypto (libssl3), libcurl (libcurl4, with
# ca-certificates for HTTPS), libpq (libpq5, opened only with a database URL), and tzdata for the
# IANA time zones of /todos/upcoming. libstdc++6 is in the base already.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libevent-2.1-7 libevent-pthreads-2.1-7 libmimalloc2.0 libssl3 libcurl4 libpq5 \
      tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin todo \
 && mkdir -p /data && chown todo /data
WORKDIR /app
COPY --from=build /staging/ /app/
# After the packages, so that a new revision does not install them again.
ARG VERSION=0.2.0
ARG REVISION=
LABEL org.opencontainers.image.title="todo-server" \
      org.opencontainers.image.description="To-do HTTP JSON API server in Swift on libevent: in memory, journaled to /data, or in PostgreSQL" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"
USER todo
# To-dos are journaled to /data; mount a volume there to keep them across containers.
# The drain grace (8 s) stays below `docker stop`'s 10 s, so a drain ends before the SIGKILL; to
# give it longer, raise both: -e TODO_SHUTDOWN_GRACE_SECONDS=25 --stop-timeout 30.
ENV TODO_HOST=0.0.0.0 \
    TODO_PORT=8080 \
    TODO_DATA_DIR=/data \
    TODO_FSYNC=interval \
    TODO_SHUTDOWN_GRACE_SECONDS=8
VOLUME ["/data"]
EXPOSE 8080
# /app/healthcheck asks /healthz on the port the server runs with, read as the server reads it
# (--port, TODO_PORT, the config file), so `docker run … todo-server --port 9000` stays healthy.
# It is bash speaking HTTP through /dev/tcp: no curl in the image. podman keeps it only in an
# image built with `--format docker` (OCI images have no HEALTHCHECK).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/app/healthcheck"]
STOPSIGNAL SIGTERM
# The server is PID 1: it handles SIGTERM and SIGINT itself (drain, then exit 0) and starts no
# child processes, so it needs no init (tini) to forward signals or reap.
ENTRYPOINT ["/app/todo-server"]
