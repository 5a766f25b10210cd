// The BBA* paper's two GPU A* baselines on the implicit grid graph, in the integer metric
// (orthogonal 1000, diagonal 1414) with the octile heuristic, unidirectional:
//  - LockA*: one binary min-heap in global memory under a spin lock, many worker threads;
//  - GA*-style: many per-block heaps, entries distributed to heaps by a hash of the vertex,
//    duplicates detected through the g array (an entry is pushed only on improvement).
// Both are label-correcting (a vertex whose g improves later is expanded again), hence exact
// with the consistent octile heuristic. Plain C++ header in front of CUDA.
#pragma once

#include <atomic>
#include <cstdint>

#include "kernels/astar/astar_gpu.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

struct AStarGpuBaselineOptions {
    // Entries one heap holds at first (per heap for the many-heaps search); a full heap
    // restarts the search with 4x the room. 0: chosen from the map size.
    std::uint64_t initial_heap_capacity = 0;
    int workers = 0;                            // LockA*: worker threads contending for the heap (0: two per SM)
    const std::atomic<bool>* cancel = nullptr;  // polled by the host between launches
};

// LockA* (astar.gpu.lock). `bucket_capacity` in the output is the heap's capacity.
AStarGpuOutput run_astar_gpu_lock(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                                  const AStarGpuBaselineOptions& options);

// GA*-style many heaps (astar.gpu.heaps). `bucket_capacity` in the output is one heap's capacity.
AStarGpuOutput run_astar_gpu_heaps(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                                   const AStarGpuBaselineOptions& options);

}  // namespace ps::gpu
