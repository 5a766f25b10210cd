#!/usr/bin/env bash
# The README's test command: installs missing packages, builds the dev preset (warnings as
# errors) and runs every test with ctest. GPU tests skip with their reason where no GPU is.
set -euo pipefail
cd "$(dirname "$0")/.."
./cmake/deps.sh
[ -f build/dev/CMakeCache.txt ] || cmake --preset dev
cmake --build --preset dev -j "$(nproc)"
ctest --preset dev "$@"
