#!/usr/bin/env bash
# The README's main command: installs missing packages, builds the release preset
# (incrementally: a second run rebuilds nothing), then starts the main job: the PathScope
# window when there is a display ($DISPLAY or $WAYLAND_DISPLAY) and the GUI was built;
# otherwise a headless demo that generates a noise map, runs the CPU variants on it with
# validation, benches the CPU searches over three sizes, stores everything in
# build/release/demo/history.sqlite, lists it, and exports the speed-up plot and a timeline
# (PNG, PDF, SVG, CSV; the figures need the GUI build, drawn offscreen).
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
"$cli" run --map "$demo/noise512.map" --variant astar.cpu --trace light --db "$db" \
    --trace-out "$demo/timeline.json" --trace-csv "$demo/timeline.csv"
run_id=$("$cli" history --db "$db" --limit 1 --json | sed -n 's/^ *"id": \([0-9]*\),$/\1/p' | head -n 1)
bench=$("$cli" bench --family astar --sizes 128,256,512 --grids random --repeat 5 --warmup 1 \
    --variant dijkstra.cpu,astar.cpu,astar.cpu.bidir --db "$db" --csv "$demo/bench.csv")
echo "$bench"
bench_id=$(sed -n 's/.*stored [0-9]* runs as bench \([^ ]*\) in .*/\1/p' <<<"$bench")
echo "pathscope: the runs stored in $db (newest first)"
"$cli" history --db "$db" --limit 10
if [ -x "$gui" ]; then
  for ext in png pdf svg csv; do
    "$gui" --export-speedup "$bench_id" --baseline dijkstra.cpu --db "$db" --out "$demo/speedup.$ext"
    "$gui" --export-timeline "$run_id" --db "$db" --out "$demo/timeline.$ext"
  done
else
  echo "pathscope: built without the GUI: figures not drawn; the data is in $demo/bench.csv and $demo/timeline.csv"
fi
