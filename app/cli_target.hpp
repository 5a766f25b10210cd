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

// `pathscope-cli serve`: the protocol on stdin and stdout until the input ends.
int cmd_serve(const Args& args);

}  // namespace ps::cli
