// Internal to the GPU BFS: the tiled variant's entry points (see bfs_gpu_tiled.cu).
#pragma once

#include <string>

#include "kernels/bfs/bfs_gpu.hpp"

namespace ps::gpu {

std::string tiled_unsupported(MoveRules rules);
// Fills levels, phases and counters of `out`, or its error and the error's kind.
void run_tiled_bfs(const GridMap& map, Vertex target, Vertex stop_at, const BfsGpuOptions& options, BfsGpuOutput& out);

}  // namespace ps::gpu
