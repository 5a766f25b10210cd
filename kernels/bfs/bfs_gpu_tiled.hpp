// Internal to the GPU BFS: the tiled variant's entry points (see bfs_gpu_tiled.cu).
#pragma once

#include <string>

#include "kernels/bfs/bfs_gpu.hpp"

namespace ps::gpu {

std::string tiled_unsupported(MoveRules rules);
// Throws detail::CudaError on CUDA failures; fills levels, phases and counters of `out`.
void run_tiled_bfs(const GridMap& map, Vertex target, Vertex stop_at, const BfsGpuOptions& options, BfsGpuOutput& out);

}  // namespace ps::gpu
