// pathscope-cli bench --family batch: every batch variant (and parameter sweep) on one graph
// for several agent counts (see cli_bench_batch.cpp).
#pragma once

#include <memory>

#include <set>
#include <string>

#include "app/cli_args.hpp"
#include "app/cli_target.hpp"

namespace ps::cli {

// bench_options() plus what --family batch takes.
OptionSpec with_batch_bench_options(OptionSpec spec);
// Runs go where `runs` says (--target, --shard, --record: read by cmd_bench).
int cmd_bench_batch(const Args& args, BenchRuns& runs);

}  // namespace ps::cli
