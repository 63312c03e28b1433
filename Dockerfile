# syntax=docker/dockerfile:1
# Build: a Swift toolchain image compiles the release binary with scripts/build-release.sh (the
# same script CI runs, which also stages the health check). Run: a slim Debian with libevent's,
# mimalloc's and libpq's runtimes, as a non-root user.

FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libevent-dev libpq-dev libmimalloc-dev \
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
COPY scripts ./scripts
RUN --mount=type=cache,target=/src/.build,id=todo-server-build scripts/build-release.sh /staging

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libevent-2.1-7 libevent-pthreads-2.1-7 libmimalloc2.0 libpq5 libstdc++6 tzdata ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin todo \
 && mkdir -p /data && chown todo /data
WORKDIR /app
COPY --from=build /staging/ /app/
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
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/app/healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/todo-server"]
