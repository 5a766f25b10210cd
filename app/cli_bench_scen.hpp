// pathscope-cli bench --family scen: MovingAI scenario files, every query of each on astar.cpu
// one after another, batch.cpu all at once, and the GPU shortest-path and batch variants, with
// speed-ups and every query validated (see cli_bench_scen.cpp).
#pragma once

#include <memory>

#include "app/cli_args.hpp"
#include "app/cli_target.hpp"

namespace ps::cli {

// bench_options() plus what --family scen takes.
OptionSpec with_scen_bench_options(OptionSpec spec);
// Runs go where `runs` says (--target, --shard, --record: read by cmd_bench).
int cmd_bench_scen(const Args& args, BenchRuns& runs);

}  // namespace ps::cli
