// Remote targets in pathscope-cli: `serve` (the target side) and `--target PREFIX
// [--remote-cli PATH]` on run, which makes every request of the command run there
// (kernels/remote/target.hpp) while results, history and traces stay here.
#pragma once

#include <memory>

#include "app/cli_args.hpp"
#include "kernels/base/expected.hpp"
#include "kernels/remote/target.hpp"

namespace ps::cli {

// The target --target names, connected (hello said, versions equal); null without --target.
// Prints where runs go (to stderr under --json).
Expected<std::shared_ptr<remote::RemoteTarget>> open_target(const Args& args);

// The GPU runs use, for headers: the target's ("host gpu-1: NVIDIA H100 ...") when runs go to
// one, else this machine's (gpu_info()).
std::string where_runs_go(const Executor* executor);

// `pathscope-cli serve`: the protocol on stdin and stdout until the input ends.
int cmd_serve(const Args& args);

// --shard K/N, set on each job of a sweep split across targets: this process runs every N-th
// run of the bench from the K-th (0-based), in the bench's own order; the other jobs the rest.
struct Shard {
    std::size_t k = 0, n = 1, seen = 0;
    bool take() { return seen++ % n == k; }
};
Expected<Shard> shard_of(const Args& args);

// Where a bench's runs go and which of them this process makes: --target (connected), --shard,
// --record; read once by cmd_bench for every family.
struct BenchRuns {
    std::shared_ptr<Executor> executor;  // null: here
    Shard shard;
    bool record = false;
};
Expected<BenchRuns> bench_runs(const Args& args);

// bench with several --target: the sweep split into one job per target (`pathscope-cli bench
// ... --target T --shard K/N --bench-id ID` as child processes, all at once), each job's runs
// merged into the --db history as the job ends. No scheduler beyond that: one job per target.
int run_bench_across_targets(const Args& args);

}  // namespace ps::cli
