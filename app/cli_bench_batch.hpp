// pathscope-cli bench --family batch: every batch variant (and parameter sweep) on one graph
// for several agent counts (see cli_bench_batch.cpp).
#pragma once

#include <set>
#include <string>

#include "app/cli_args.hpp"

namespace ps::cli {

// bench_options() plus what --family batch takes.
OptionSpec with_batch_bench_options(OptionSpec spec);
int cmd_bench_batch(const Args& args);

}  // namespace ps::cli
