// pathscope-cli bench: the BFS paper's protocol as a sweep (see cli_bench.cpp).
#pragma once

#include "app/cli_args.hpp"

namespace ps::cli {

OptionSpec bench_options();
int cmd_bench(const Args& args);

}  // namespace ps::cli
