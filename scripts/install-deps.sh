#!/usr/bin/env bash
# Installs what building and running TodoServer needs beyond the Swift toolchain: libevent's,
# libpq's, mimalloc's (the release binary's allocator) and libcurl's (JWK Sets from a URL) development packages, PostgreSQL 15 for the tests' throwaway clusters, and python3-venv for
# the virtual environment of the scripts' Python tools (scripts/python-tools.sh) (Debian/Ubuntu).
# Does nothing when they are already there.
set -euo pipefail

missing=()
for package in libevent-dev libpq-dev libmimalloc-dev libcurl4-openssl-dev postgresql-15 python3-venv; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
# Python's cryptography, with which the JWT tests make their keys and tokens (scripts/dev-tokens.py):
# Debian's package for /usr/bin/python3 when no python3 has it (the tests try PATH's, then that one).
if ! python3 -c 'import cryptography' >/dev/null 2>&1 && ! /usr/bin/python3 -c 'import cryptography' >/dev/null 2>&1; then
  missing+=(python3-cryptography)
fi
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  # Releases without PostgreSQL 15 (Ubuntu 24.04 has 16): their own server; the tests look for
  # /usr/lib/postgresql/{15,16,17,14}/bin.
  if [[ " ${missing[*]} " == *" postgresql-15 "* ]] && ! apt-cache show postgresql-15 >/dev/null 2>&1; then
    missing=("${missing[@]/postgresql-15/postgresql}")
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "error: no Swift toolchain on PATH; install Swift 6.2 or later (https://www.swift.org/install/linux/)" >&2
  exit 1
fi
