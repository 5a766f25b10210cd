// GPU A* on the implicit grid graph (map cells read directly, no CSR): the BBA* paper's
// bucket-queue searches, unidirectional (UBA*) and bidirectional (BBA*), in the integer metric
// (orthogonal 1000, diagonal 1414) with the octile heuristic. Plain C++ header in front of CUDA.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/gpu/gpu_test_delay.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

struct AStarGpuOptions {
    bool bidirectional = false;
    int block_size = 512;
    // Width of one bucket in f units (integer metric). Any width is exact: entries of a bucket
    // are expanded together and a vertex whose g improves later is expanded again.
    int bucket_width = 1000;
    // Entries one bucket holds at first (rounded up to a power of two); a full bucket restarts
    // the search with 4x the room.
    std::uint64_t initial_bucket_capacity = 0;  // 0: chosen from the map size
    // Batched extraction (the paper's "just enough buckets to fill the GPU"): each iteration a
    // direction takes its lowest non-empty bucket and the next ones while the entries taken
    // so far stay below extract_target / directions, at most max_extract buckets.
    int extract_target = 0;  // entries per iteration over both directions; 0: threads / threads_per_vertex
    int max_extract = 8;     // 1 .. 28 (fewer where the bucket window is narrow); 1 = one bucket per iteration
    // Threads that expand one entry (one per neighbour direction): 8 (the paper), or 1 (one
    // thread walks all neighbours). 4-connected grids use at most 4.
    int threads_per_vertex = 8;
    // Recording for the animation: every expansion (Close) and insertion (Open) of a vertex
    // whose id is a multiple of record_stride, tagged with the iteration, until record_cap
    // events (then record_truncated).
    bool record = false;
    std::uint32_t record_stride = 1;
    std::uint64_t record_cap = 0;
    const std::atomic<bool>* cancel = nullptr;  // polled by the host every few iterations
    // One persistent cooperative kernel runs the loop (grid barriers between picking buckets
    // and expanding them); false, or a device without cooperative launch: the host-driven
    // loop of two launches per iteration.
    bool persistent = true;
    // In the persistent kernel, iterations with at most block_size / threads_per_vertex entries
    // run in one block with block barriers while the other blocks wait (thin frontiers pay a
    // block barrier instead of a grid barrier per iteration).
    bool solo_block = true;
    BlockDelay test_delay;  // test-only: blocks delayed on purpose (kernels/gpu/gpu_test_delay.hpp)
};

struct AStarGpuOutput {
    std::string error;                          // empty on success
    ErrorKind error_kind = ErrorKind::Invalid;  // with an error: what failed (Device: CUDA, GPU memory, no GPU)
    bool cancelled = false;
    bool found = false;
    std::int64_t cost = -1;      // integer metric, -1 when not found
    std::vector<Vertex> path;    // start .. goal, empty when not found
    std::uint64_t expanded = 0;  // entries expanded (a vertex expanded twice counts twice)
    std::uint64_t pushed = 0;    // entries inserted into the bucket queues
    std::uint64_t iterations = 0;
    std::uint64_t restarts = 0;         // searches restarted after a bucket overflowed
    std::uint64_t bucket_capacity = 0;  // entries per bucket in the final search
    // Host clock, milliseconds: from before the first device allocation until the path is on
    // the host, clean-up excluded (as the BFS variants measure).
    PhaseTimes phases;
    double gpu_compute_ms = 0;  // CUDA events around the compute phase
    std::uint64_t host_launches = 0;
    bool persistent = false;              // the persistent cooperative kernel ran the loop
    std::uint64_t buckets_extracted = 0;  // buckets taken over all iterations and directions
    struct Event {
        Vertex vertex;
        std::uint32_t iteration;
        std::uint8_t kind;       // 0 open (insertion), 1 close (expansion)
        std::uint8_t direction;  // 0 forward, 1 backward
    };
    std::vector<Event> events;  // recording, sorted by iteration
    bool record_truncated = false;
};

// Shortest start -> goal path on `map` under `rules` (both movement rules; 4- or 8-connected).
// Costs are int32 on the device: a search whose costs would pass 2^31-1 stops with an error.
AStarGpuOutput run_astar_gpu(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                             const AStarGpuOptions& options);

}  // namespace ps::gpu
