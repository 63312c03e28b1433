# shellcheck shell=bash
# What scripts/container-check.sh and scripts/deploy-check.sh share: the container engine (podman,
# installed when missing, set up by scripts/container/containers.conf) and the base images the
# Dockerfile starts from, made here when missing because no image registry may be reachable:
#   debian:bookworm-slim  debootstrap --variant=minbase from the Debian mirror apt uses, made slim
#                         the way the official image is (no docs, man pages or locales; apt keeps
#                         no lists or caches), then `podman import`
#   swift:6.3-bookworm    that base with the official Swift image's apt packages
#                         (scripts/container/swift-bookworm.Containerfile); the toolchain and the
#                         Swift package mirrors are not copied in: the build bind-mounts them
#                         (CONTAINER_BUILD_MOUNTS)
# Sourced; it sets CONTAINERS_CONF and defines the functions below. Messages go to standard error.

container_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The engine's settings: runc (crun refuses hybrid cgroups), cgroupfs, file events, and ulimits within
# the machine's hard limits (podman's default nofile 1048576 fails without CAP_SYS_RESOURCE).
export CONTAINERS_CONF="$container_dir/containers.conf"

# install_engine: podman and what it needs to build and run as root, when missing (Debian/Ubuntu).
install_engine() {
  local missing=() package
  for package in podman runc netavark aardvark-dns debootstrap iptables uidmap; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    local log
    log="$(mktemp)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
      tail -20 "$log" >&2
      echo "FAILED: apt-get install ${missing[*]} (its log above)" >&2
      rm -f "$log"
      return 1
    fi
    rm -f "$log"
  fi
  # A bridge left by podman's CNI backend (used before containers.conf chose netavark) holds the
  # route to the same subnet as netavark's, and containers then reach nothing, not even DNS.
  if ip link show cni-podman0 >/dev/null 2>&1; then
    echo "removing cni-podman0, the bridge of podman's CNI backend (netavark's podman0 takes its subnet)" >&2
    ip link delete cni-podman0
  fi
}

# debian_mirror: the Debian archive apt uses here (the first URI of a bookworm suite), so that the
# base image and the builds' apt-get reach the same mirror.
debian_mirror() {
  local mirror
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v '^[[:space:]]*#' |
    sed -n -e 's|^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} bookworm .*|\2|p' \
      -e 's|^URIs: \(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$|\1|p' | head -1)"
  echo "${mirror:-http://deb.debian.org/debian}"
}

# make_debian_slim: localhost/debian:bookworm-slim (also tagged docker.io/library/debian:bookworm-slim,
# the name the Dockerfile's FROM resolves to), once.
make_debian_slim() {
  podman image exists docker.io/library/debian:bookworm-slim && return 0
  local mirror root started=$SECONDS
  mirror="$(debian_mirror)"
  root="$(mktemp -d /var/tmp/debian-slim.XXXXXX)"
  echo "making debian:bookworm-slim: debootstrap --variant=minbase bookworm from $mirror" >&2
  if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1; then
    tail -20 "$root.log" >&2
    echo "FAILED: debootstrap of debian:bookworm-slim (log above)" >&2
    rm -rf "$root" "$root.log"
    return 1
  fi
  # As the official slim image: dpkg leaves out documentation, man pages and translations (now and
  # for every later install), apt keeps no package files and fetches no translations.
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'CONF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CONF
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CONF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
  echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
  echo 'Acquire::GzipIndexes "true";' >"$root/etc/apt/apt.conf.d/docker-gzip-indexes"
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<CONF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
CONF
  (
    cd "$root" || exit 1
    find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete
    find usr/share/doc -mindepth 1 -type d -empty -delete
    rm -rf usr/share/man/* usr/share/groff/* usr/share/info/* usr/share/lintian/* usr/share/linda/*
    find usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    rm -rf var/cache/apt/*.bin var/cache/apt/archives/*.deb var/lib/apt/lists/* var/log/* tmp/* \
      debootstrap
  )
  tar -C "$root" -c . | podman import --quiet --change 'CMD ["bash"]' - docker.io/library/debian:bookworm-slim >/dev/null
  podman tag docker.io/library/debian:bookworm-slim localhost/debian:bookworm-slim
  rm -rf "$root" "$root.log"
  echo "made debian:bookworm-slim in $((SECONDS - started)) s" >&2
}

# make_swift_image: docker.io/library/swift:6.3-bookworm (the stand-in), once.
make_swift_image() {
  podman image exists docker.io/library/swift:6.3-bookworm && return 0
  local started=$SECONDS
  echo "making swift:6.3-bookworm: debian:bookworm-slim + the Swift image's apt packages" >&2
  local log
  log="$(mktemp)"
  if ! podman build -t docker.io/library/swift:6.3-bookworm \
    -f "$container_dir/swift-bookworm.Containerfile" "$container_dir" >"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "FAILED: building swift:6.3-bookworm (its log above)" >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  echo "made swift:6.3-bookworm in $((SECONDS - started)) s" >&2
}

# The toolchain and the local Swift package mirrors, bind-mounted read-only into the image build.
swift_root="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
# shellcheck disable=SC2034 # used by the scripts that source this file
CONTAINER_BUILD_MOUNTS=(-v "$swift_root:/opt/swift:ro")
if [ -d /opt/swift-packages ]; then
  CONTAINER_BUILD_MOUNTS+=(-v /opt/swift-packages:/opt/swift-packages:ro)
fi
