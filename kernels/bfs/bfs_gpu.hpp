// GPU BFS on grid graphs: the BFS paper's four GPU variants (vertex-based, frontier,
// shared-memory frontier, dynamic parallelism with tail launches) and three that go beyond
// it (persistent cooperative kernel, CUDA graph with a conditional WHILE node, and a tiled
// kernel that settles many levels per global step). Plain C++ header in front of CUDA code.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/gpu/gpu_test_delay.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

enum class BfsKind : std::uint8_t { Basic, Frontier, Shared, DynamicParallel, Persistent, Graph, Tiled };

struct BfsGpuOptions {
    BfsKind kind = BfsKind::Frontier;
    int block_size = 256;
    // The paper's frontier variants create the next frontier buffer between kernel runs (the
    // faithful default); true allocates both frontier buffers once, up front.
    bool frontier_alloc_once = false;
    const std::atomic<bool>* cancel = nullptr;  // polled by host-driven loops once per level
    // Stamp %globaltimer at the first block entry and last block exit of every level (rounds
    // for the tiled variant), for the timeline; costs two atomics per block per level.
    bool stamp_levels = false;
    BlockDelay test_delay;  // test-only: blocks delayed on purpose (kernels/gpu/gpu_test_delay.hpp)
};

struct BfsGpuOutput {
    std::string error;                          // empty on success
    ErrorKind error_kind = ErrorKind::Invalid;  // with an error: what failed (Device: CUDA, GPU memory, no GPU)
    bool cancelled = false;
    std::vector<std::int32_t> levels;  // per vertex (cell), -1 where unreached
    std::int32_t depth = 0;
    std::uint64_t visited = 0;
    // Phases as the BFS paper measures them: from before the first device allocation until
    // the levels are back on the host, clean-up excluded. Host clock, milliseconds.
    PhaseTimes phases;
    double gpu_compute_ms = 0;          // CUDA events around the compute phase
    std::uint64_t host_launches = 0;    // kernels launched from the host
    std::uint64_t device_launches = 0;  // kernels launched from the device (tail launches)
    std::uint64_t global_steps = 0;     // global synchronisations (levels, or tiled rounds)
    int block_size = 0;                 // threads per block the level kernels ran with
    // With stamp_levels: (entry, exit) per level in device-clock nanoseconds (%globaltimer).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> level_stamps;
};

// BFS from `target` over the grid graph of `map` under `rules`: `graph` is its CSR (vertex ids
// = cell indices), required by every kind but Tiled, which reads the map itself (4-connected
// only, and no CSR: it also runs where the CSR would not fit 32-bit offsets). `stop_at` as in
// bfs_queue: complete the level that reaches it, label nothing beyond.
BfsGpuOutput run_bfs_gpu(const GridMap& map, MoveRules rules, const CsrGraph* graph, Vertex target, Vertex stop_at,
                         const BfsGpuOptions& options);

// Empty when the kind can run on this GPU and problem, otherwise why not.
std::string bfs_gpu_unsupported(BfsKind kind, MoveRules rules);
inline bool bfs_gpu_needs_csr(BfsKind kind) { return kind != BfsKind::Tiled; }

}  // namespace ps::gpu
