#!/usr/bin/env bash
# The README's test command: installs missing packages, builds the dev preset (warnings as
# errors) and runs every test with ctest. GPU tests skip with their reason where no GPU is.
# Then the fuzz preset (clang, libFuzzer, ASan, UBSan): each reader's harness runs for 20 s on
# its committed corpus, and any crash, sanitizer report, oversized allocation or slow input
# fails the run. Arguments go to the dev ctest (e.g. -R Gpu) and skip the fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
./cmake/deps.sh
[ -f build/dev/CMakeCache.txt ] || cmake --preset dev
cmake --build --preset dev -j "$(nproc)"
ctest --preset dev "$@"
if [ "$#" -eq 0 ]; then
  [ -f build/fuzz/CMakeCache.txt ] || cmake --preset fuzz
  cmake --build --preset fuzz -j "$(nproc)"
  ctest --preset fuzz
fi
