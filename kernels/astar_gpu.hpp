// GPU A* on the implicit grid graph (map cells read directly, no CSR): the BBA* paper's
// bucket-queue searches, unidirectional (UBA*) and bidirectional (BBA*), in the integer metric
// (orthogonal 1000, diagonal 1414) with the octile heuristic. Plain C++ header in front of CUDA.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/grid_map.hpp"

namespace ps::gpu {

struct AStarGpuOptions {
    bool bidirectional = false;
    int block_size = 256;
    // Width of one bucket in f units (integer metric). Any width is exact: entries of a bucket
    // are expanded together and a vertex whose g improves later is expanded again.
    int bucket_width = 1000;
    // Entries one bucket holds at first; a full bucket restarts the search with 4x the room.
    std::uint64_t initial_bucket_capacity = 0;  // 0: chosen from the map size
    const std::atomic<bool>* cancel = nullptr;   // polled by the host every few iterations
    // One persistent cooperative kernel runs the loop (grid barriers between picking buckets
    // and expanding them); false, or a device without cooperative launch: the host-driven
    // loop of two launches per iteration.
    bool persistent = true;
};

struct AStarGpuOutput {
    std::string error;  // empty on success
    bool cancelled = false;
    bool found = false;
    std::int64_t cost = -1;      // integer metric, -1 when not found
    std::vector<Vertex> path;    // start .. goal, empty when not found
    std::uint64_t expanded = 0;  // entries expanded (a vertex expanded twice counts twice)
    std::uint64_t pushed = 0;    // entries inserted into the bucket queues
    std::uint64_t iterations = 0;
    std::uint64_t restarts = 0;  // searches restarted after a bucket overflowed
    std::uint64_t bucket_capacity = 0;  // entries per bucket in the final search
    // Host clock, milliseconds: from before the first device allocation until the path is on
    // the host, clean-up excluded (as the BFS variants measure).
    double allocate_ms = 0, upload_ms = 0, compute_ms = 0, download_ms = 0, total_ms = 0;
    double gpu_compute_ms = 0;  // CUDA events around the compute phase
    std::uint64_t host_launches = 0;
    bool persistent = false;  // the persistent cooperative kernel ran the loop
};

// Shortest start -> goal path on `map` under `rules` (both movement rules; 4- or 8-connected).
// Costs are int32 on the device: a search whose costs would pass 2^31-1 stops with an error.
AStarGpuOutput run_astar_gpu(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                             const AStarGpuOptions& options);

}  // namespace ps::gpu
