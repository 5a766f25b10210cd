// pathscope-cli bench --family batch: every batch variant (and parameter sweep) on one graph
// for several agent counts (see cli_bench_batch.cpp).
#pragma once

#include <memory>

#include <set>
#include <string>

#include "app/cli_args.hpp"
#include "kernels/run/runner.hpp"

namespace ps::cli {

// bench_options() plus what --family batch takes.
OptionSpec with_batch_bench_options(OptionSpec spec);
// Every run on `target` when it is set (--target), else here.
int cmd_bench_batch(const Args& args, const std::shared_ptr<Executor>& target);

}  // namespace ps::cli
