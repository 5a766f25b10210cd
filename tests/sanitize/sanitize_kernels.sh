#!/usr/bin/env bash
# compute-sanitizer over every GPU kernel of PathScope, through pathscope-cli runs on small
# generated maps (every variant validated against its CPU reference in the same run):
# racecheck (shared-memory hazards) on every kernel but the tail-launching BFS (the tool skips
# modules that use dynamic parallelism; that kernel is alone in its module for this reason),
# synccheck on the block-barrier kernels, initcheck (every kernel but the tail launch again) and
# memcheck (every kernel). With the kernels' test binary, also racecheck over its tests that
# delay blocks and warps on purpose (the test-only hooks): slow warps reach the flags and tables
# other warps write at times a plain run never shows (a chained block A* warp reading the table's
# full flag while another raised it was found that way, not by the runs above).
#
#   tests/sanitize/sanitize_kernels.sh PATHSCOPE_CLI [WORK_DIR [PATHSCOPE_KERNELS_TESTS]]
#
# Exit 0: every run clean and validated. 1: a hazard, a sanitizer error, a failed run or a failed
# validation (its log printed). 77: skipped, with the reason (no GPU, no compute-sanitizer).
set -u
cli=${1:?usage: sanitize_kernels.sh PATHSCOPE_CLI [WORK_DIR [PATHSCOPE_KERNELS_TESTS]]}
work=${2:-$(mktemp -d)}
kernel_tests=${3:-}
mkdir -p "$work"
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
if [ ! -x "$sanitizer" ]; then
    echo "SKIPPED: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)"
    exit 77
fi
gpu=$("$cli" info 2>&1 | head -n 1)
case "$gpu" in
*"no usable GPU"* | "") echo "SKIPPED: $gpu"; exit 77 ;;
esac
echo "$gpu; $("$sanitizer" --version | tail -n 1)"

gen() { "$cli" gen --gen "$1" --size "$2" --seed 3 ${4:+--density $4} --out "$work/$3.map" > /dev/null || exit 1; }
gen random 128 random 0.2
gen maze 65 maze
gen rooms 129 rooms

failed=""
# sanitize NAME TOOL PASSED FAILED PROGRAM ARGUMENTS..: PROGRAM under TOOL; clean when it exits 0,
# its log has a line matching PASSED and none matching FAILED, and the tool reports nothing.
sanitize() {
    local name=$1 tool=$2 ok=$3 bad=$4
    shift 4
    local log="$work/$name.$tool.log"
    "$sanitizer" --tool "$tool" --print-limit 8 "$@" > "$log" 2>&1
    local rc=$? summary
    summary=$(grep -E "(RACECHECK|ERROR) SUMMARY" "$log" | tail -n 1)
    local passed
    passed=$(grep -cE "$ok" "$log")
    # racecheck, synccheck and initcheck skip every kernel of a module that uses dynamic
    # parallelism and say so: only the tail launch's module does, and only memcheck (which
    # supports it, silently) runs it, so the notice means kernels went unchecked.
    local skipped=0
    if grep -q "Dynamic Parallelism is not supported" "$log"; then
        skipped=1
        summary="$summary; the tool skipped a module that uses dynamic parallelism"
    fi
    if [ $rc -ne 0 ] || [ $skipped -eq 1 ] || grep -qE "$bad|Race reported" "$log" || [ "$passed" -eq 0 ] ||
        ! echo "$summary" | grep -qE "SUMMARY: 0 (hazards displayed \(0 errors, 0 warnings\)|errors)"; then
        echo "FAILED  $tool $name (exit $rc, $passed passed): $summary"
        sed 's/^/    /' "$log" | grep -vE "^    +[a-z_]+ +[-0-9.e+]+$" | head -n 60
        failed="$failed $tool:$name"
    else
        echo "ok      $tool $name ($passed passed): ${summary#========= }"
    fi
}
# check NAME TOOL RUN-ARGUMENTS..: one pathscope-cli run under TOOL, its validations passed.
check() {
    local name=$1 tool=$2
    shift 2
    sanitize "$name" "$tool" "validation passed" "validation failed" "$cli" run --warmup 0 "$@"
}

R=$work/random.map
bfs=bfs.gpu.basic,bfs.gpu.frontier,bfs.gpu.shared,bfs.gpu.persistent,bfs.gpu.graph,bfs.gpu.tiled
paper=astar.gpu.uba,astar.gpu.bba,astar.gpu.lock,astar.gpu.heaps
many=batch.gpu.bsp,batch.gpu.batch,batch.gpu.queue,batch.gpu.permute,batch.gpu.grid
for tool in racecheck synccheck; do
    check block-astar $tool --map "$R" --variant astar.gpu.block --param tile=0,bidir=0
    check block-astar-bidir $tool --map "$R" --variant astar.gpu.block --param tile=0,bidir=1
    check block-astar-chain $tool --map "$R" --variant astar.gpu.block --param tile=0,bidir=0,chain=4 --cost integer
    check block-astar-pool $tool --map "$R" --variant astar.gpu.block --param tile=0,bidir=0,shared_slots=1024
    check gate-forest $tool --map "$work/maze.map" --variant astar.gpu.block
    check jump-points $tool --map "$work/rooms.map" --variant astar.gpu.block,jps.gpu.block
    check jump-points-scanned $tool --map "$work/rooms.map" --variant jps.gpu.block --param jump_table=0
    check jump-points-full $tool --map "$work/rooms.map" --variant jps.gpu.block --param table_slots=64,open_cap=256
    check tile-astar $tool --map "$R" --variant astar.gpu.tile
    check tile-astar-global $tool --map "$R" --variant astar.gpu.tile --param meta_on_chip=0 --corner-cutting any
    check batch-grid $tool --map "$R" --agents 64 --variant batch.gpu.grid
    check batch-grid-pool $tool --map "$R" --agents 64 --variant batch.gpu.grid --param shared_slots=1024 --cost integer
    check flowfield-4 $tool --map "$R" --goal 5,5 --variant flowfield.gpu
    check flowfield-8 $tool --map "$R" --goal 5,5 --connectivity 8 --variant flowfield.gpu
done
check bfs racecheck --map "$R" --connectivity 4 --variant $bfs
check paper-astar racecheck --map "$R" --cost integer --variant $paper
check many-agents racecheck --map "$R" --agents 64 --variant $many
for tool in initcheck memcheck; do
    bfs_all=$bfs,bfs.gpu.dp
    [ $tool = initcheck ] && bfs_all=$bfs  # it skips modules that use dynamic parallelism, with an error
    check bfs $tool --map "$R" --connectivity 4 --variant $bfs_all
    check astar $tool --map "$R" --cost integer --variant $paper,astar.gpu.block,jps.gpu.block,astar.gpu.tile
    check many-agents $tool --map "$R" --agents 64 --variant $many
    check jump-points $tool --map "$work/rooms.map" --variant jps.gpu.block
    check jump-points-scanned $tool --map "$work/rooms.map" --variant jps.gpu.block --param jump_table=0
    check flowfield $tool --map "$R" --goal 5,5 --connectivity 8 --variant flowfield.gpu
done
# The tests that delay the block-barrier kernels' blocks and warps on purpose (racecheck sees
# shared memory only: the grid-barrier kernels' delay tests have nothing for it).
if [ -n "$kernel_tests" ]; then
    sanitize delayed-tests racecheck "^\[  PASSED" "^\[  FAILED" "$kernel_tests" --gtest_brief=1 --gtest_filter='*Delayed*'
fi
if [ -n "$failed" ]; then
    echo "FAILED:$failed (logs in $work)"
    exit 1
fi
echo "every kernel clean (logs in $work)"
