#!/usr/bin/env bash
# The README's test command: installs missing packages, builds the dev preset (warnings as
# errors) and runs every test with ctest. GPU tests skip with their reason where no GPU is.
# Then the fuzz preset (clang, libFuzzer, ASan, UBSan): each reader's harness runs for 20 s on
# its committed corpus, and any crash, sanitizer report, oversized allocation or slow input
# fails the run. Arguments go to the dev ctest (e.g. -R Gpu) and skip the fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
./cmake/deps.sh
# The house style (.clang-format): a file that clang-format would change fails the run, naming
# it; `git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i` fixes them.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' | xargs clang-format --style=file --dry-run --Werror
else
  echo "pathscope: not a git checkout: the style check (which lists the files through git) is skipped"
fi
[ -f build/dev/CMakeCache.txt ] || cmake --preset dev
cmake --build --preset dev -j "$(nproc)"
ctest --preset dev "$@"
if [ "$#" -eq 0 ]; then
  [ -f build/fuzz/CMakeCache.txt ] || cmake --preset fuzz
  cmake --build --preset fuzz -j "$(nproc)"
  ctest --preset fuzz
fi
