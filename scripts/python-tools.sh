#!/usr/bin/env bash
# Creates (once) and updates (when scripts/requirements-tools.txt changes) the virtual environment
# .venv-tools/ that holds the Python tools the scripts use: the OpenAPI validators of
# check_openapi.py, schemathesis, openapi-python-client, and the HTTP clients of real_clients.py.
# A virtual environment works on a stock Debian 12 or Ubuntu, whose own Python refuses
# `pip install` (PEP 668, externally managed).
# Prints the environment's bin folder: tools="$(scripts/python-tools.sh)"; "$tools/python" ...
# Environment: PYTHON, the interpreter that creates the environment (default: python3 on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$PWD/.venv-tools"
requirements=scripts/requirements-tools.txt
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ]; then
  echo "creating $venv (${PYTHON:-python3} -m venv)" >&2
  "${PYTHON:-python3}" -m venv "$venv" >&2 || {
    echo "error: '${PYTHON:-python3} -m venv' failed; install python3-venv (scripts/install-deps.sh does)" >&2
    rm -rf "$venv"
    exit 1
  }
fi
if ! cmp -s "$requirements" "$stamp"; then
  echo "installing the Python tools into $venv (scripts/requirements-tools.txt), once" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
  cp "$requirements" "$stamp"
fi
echo "$venv/bin"
