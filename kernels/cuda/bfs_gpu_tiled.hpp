// Internal to the GPU BFS: the tiled variant's entry points (see bfs_gpu_tiled.cu) and the
// phase bookkeeping both GPU BFS files share.
#pragma once

#include <chrono>
#include <string>

#include "kernels/bfs_gpu.hpp"

namespace ps::gpu {

// Phases from the host clock at the five boundaries: before allocation, after allocation,
// after upload, after compute, after download.
inline void set_phase_times(BfsGpuOutput& out, const std::chrono::steady_clock::time_point (&t)[5]) {
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    out.allocate_ms = ms(t[0], t[1]);
    out.upload_ms = ms(t[1], t[2]);
    out.compute_ms = ms(t[2], t[3]);
    out.download_ms = ms(t[3], t[4]);
    out.total_ms = ms(t[0], t[4]);
}

std::string tiled_unsupported(MoveRules rules);
// Throws detail::CudaError on CUDA failures; fills levels, phases and counters of `out`.
void run_tiled_bfs(const GridMap& map, Vertex target, Vertex stop_at, const BfsGpuOptions& options,
                   BfsGpuOutput& out);

}  // namespace ps::gpu
