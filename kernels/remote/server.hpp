// `pathscope-cli serve`: the target side of the remote protocol (protocol.hpp). Reads requests
// on one stream, answers on another, one run at a time through the run orchestrator, so a run
// here is the same run as anywhere. Bounded: malformed, unknown or oversize requests get an
// error reply and the server goes on; it runs nothing but the registry's variants.
#pragma once

#include <string>

#include "kernels/remote/protocol.hpp"

namespace ps::remote {

struct ServeOptions {
    std::string build_commit;  // this build's, said in hello
    ExecutionSite site;        // this machine's, said in hello
    Limits limits;
    std::uint64_t map_cache_cells = 1ull << 28;  // maps kept for requests that name them by hash
};

// Serves until the input ends or a "bye" comes; returns the process exit code (0).
int serve(int in_fd, int out_fd, const ServeOptions& options);

}  // namespace ps::remote
