#!/usr/bin/env bash
# The README's main command: installs missing packages, builds the release preset
# (incrementally: a second run rebuilds nothing), then starts the main job. The GUI arrives
# with its issue; until then, and on machines without a display, this runs the headless demo:
# it generates a noise map and runs every CPU variant on it with validation.
set -euo pipefail
cd "$(dirname "$0")/.."
./cmake/deps.sh
[ -f build/release/CMakeCache.txt ] || cmake --preset release
cmake --build --preset release -j "$(nproc)"

cli=build/release/app/pathscope-cli
demo=build/release/demo
mkdir -p "$demo"
echo "pathscope: headless demo (outputs in $demo)"
"$cli" info
"$cli" gen --gen noise --size 512 --seed 7 --density 0.3 --out "$demo/noise512.map"
"$cli" run --map "$demo/noise512.map" --variant bfs.cpu,bfs.cpu.queue --repeat 5 --warmup 1
"$cli" run --map "$demo/noise512.map" --variant dijkstra.cpu,astar.cpu,astar.cpu.bidir --repeat 5 --warmup 1
