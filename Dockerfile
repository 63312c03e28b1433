# syntax=docker/dockerfile:1
# Build: a Swift toolchain image compiles the release binary with scripts/build-release.sh (the
# same script CI runs). Run: a slim Debian with libevent's and libpq's runtimes, as a non-root user.

FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libevent-dev libpq-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Config ./Config
COPY scripts ./scripts
RUN scripts/build-release.sh /staging

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libevent-2.1-7 libevent-pthreads-2.1-7 libpq5 libstdc++6 tzdata ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin todo \
 && mkdir -p /data && chown todo /data
WORKDIR /app
COPY --from=build /staging/ /app/
USER todo
# To-dos are journaled to /data; mount a volume there to keep them across containers.
ENV TODO_HOST=0.0.0.0 \
    TODO_PORT=8080 \
    TODO_DATA_DIR=/data \
    TODO_FSYNC=interval
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${TODO_PORT}/healthz" || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/todo-server"]
