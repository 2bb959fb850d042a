#!/usr/bin/env bash
# Install what batchlab needs into ./.venv, once: the package (its dependencies bring the window and
# the MIP) with the development tools (the `dev` extra), and (through apt, when this machine has it
# and we may use it) GLPK's glpsol and the system libraries Qt needs.
# Idempotent: a stamp keyed by pyproject.toml's hash skips the work on later runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
stamp=".venv/.batchlab-installed-$(sha1sum pyproject.toml | cut -c1-12)"

apt_packages=(glpk-utils libglib2.0-0 libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3)
# a real window (a display, or Xvfb for tests/gui/test_screen_geometry.py): Qt's xcb plugin needs these
apt_packages+=(xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-render-util0 libxcb-shape0 libxkbcommon-x11-0 libxcb-xkb1)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
  done
fi
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  echo "setup: installing ${missing[*]} with apt-get" >&2
  if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1; then
    echo "setup: warning: could not install ${missing[*]} (GLPK tests will be skipped; a window may not open)" >&2
  fi
fi

if [ ! -f "$stamp" ]; then
  echo "setup: creating .venv and installing batchlab and its development tools (first run only)" >&2
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[dev]'
  rm -f .venv/.batchlab-installed-*
  touch "$stamp"
fi
