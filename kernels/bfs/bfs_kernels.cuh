// Device code of the level-synchronous GPU BFS variants (one level = one expansion of the
// current frontier). Kernels live in the named namespace ps::gpu::bfs so profilers show
// readable names.
#pragma once

#include <cstdint>

#include "kernels/gpu/cuda_util.cuh"

namespace ps::gpu::bfs {

inline constexpr std::int32_t kUnreached = -1;

// Control block in device memory, read back by host-driven loops in one small copy.
struct Control {
    unsigned int next_count;       // size of the frontier being built
    unsigned int changed;          // vertex-based variant: something was labelled this level
    unsigned int stop_found;       // the stop vertex was labelled
    unsigned int blocks_finished;  // dynamic parallelism: arrival counter (listing 1)
    int final_level;               // device-driven variants: last level that was expanded
    unsigned int device_launches;  // tail launches made on the device
    unsigned int counts[3];        // persistent variant: rotating next-frontier counters
    unsigned int frontier_size;    // graph variant: size of the current frontier
    int level;                     // graph variant: current level
    int launch_error;              // dynamic parallelism: cudaError_t of a failed tail launch
};

struct Graph {
    const std::uint32_t* offsets;
    const std::uint32_t* targets;
    std::uint32_t vertices;
    // Level stamps for the timeline (null when not tracing): stamps[l] = first block entry,
    // stamps[stamp_cap + l] = last block exit of level l, in %globaltimer nanoseconds.
    unsigned long long* stamps;
    std::uint32_t stamp_cap;
    BlockDelay delay;  // test-only
};

// Labels w with `next` if it has no level yet; true for exactly one caller per vertex.
__device__ __forceinline__ bool claim(std::int32_t* level, std::uint32_t w, std::int32_t next) {
    return level[w] == kUnreached && atomicCAS(level + w, kUnreached, next) == kUnreached;
}

}  // namespace ps::gpu::bfs
