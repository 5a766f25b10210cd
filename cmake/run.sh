#!/usr/bin/env bash
# The README's main command: installs missing packages, builds the release preset
# (incrementally: a second run rebuilds nothing), then starts the main job: the PathScope
# window when there is a display ($DISPLAY or $WAYLAND_DISPLAY) and the GUI was built;
# otherwise a headless demo that generates a noise map, runs every CPU variant on it with
# validation, stores the runs in build/release/demo/history.sqlite and lists them.
set -euo pipefail
cd "$(dirname "$0")/.."
./cmake/deps.sh
[ -f build/release/CMakeCache.txt ] || cmake --preset release
cmake --build --preset release -j "$(nproc)"

gui=build/release/app/pathscope
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$gui" ]; then
  echo "pathscope: starting the window ($gui \"\$@\"; runs are stored in the default history)"
  exec "$gui" "$@"
fi

cli=build/release/app/pathscope-cli
demo=build/release/demo
db="$demo/history.sqlite"
mkdir -p "$demo"
echo "pathscope: headless demo (no display or no GUI build; outputs in $demo)"
"$cli" info
"$cli" gen --gen noise --size 512 --seed 7 --density 0.3 --out "$demo/noise512.map"
"$cli" run --map "$demo/noise512.map" --variant bfs.cpu,bfs.cpu.queue --repeat 5 --warmup 1 --db "$db"
"$cli" run --map "$demo/noise512.map" --variant dijkstra.cpu,astar.cpu,astar.cpu.bidir --repeat 5 --warmup 1 --db "$db"
echo "pathscope: the runs stored in $db (newest first)"
"$cli" history --db "$db" --limit 10
