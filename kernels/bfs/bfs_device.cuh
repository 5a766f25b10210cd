// Types and device helpers of the level-synchronous GPU BFS variants, shared by the
// translation unit of the host-launched kernels (bfs_kernels.cuh, included by bfs_gpu.cu) and
// the one of the tail-launching kernel (bfs_gpu_dp.cu). The tail launch needs relocatable
// device code and the device runtime; it is the only kernel built so (see
// kernels/CMakeLists.txt), because compute-sanitizer's racecheck, synccheck and initcheck skip
// every kernel of a module that uses dynamic parallelism.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gpu/cuda_util.cuh"

namespace ps::gpu::bfs {

namespace cg = cooperative_groups;

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

// Labels the unlabelled neighbours of v with cur + 1 and appends them to `next` through the
// global counter `count` (the frontier, persistent and graph variants share this).
__device__ __forceinline__ void expand_to_global(const Graph& g, std::int32_t* level, std::uint32_t v, std::int32_t cur,
                                                 std::uint32_t* next, unsigned int* count, Control* ctl,
                                                 std::uint32_t stop) {
    for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const std::uint32_t w = g.targets[e];
        if (claim(level, w, cur + 1)) {
            next[atomicAdd(count, 1u)] = w;
            if (w == stop) ctl->stop_found = 1;
        }
    }
}

// ---- shared: the next frontier privatised per block in shared memory ---------------------
// Capacity: 4 entries per thread (a grid vertex has at most 4 new neighbours when
// 4-connected); anything beyond goes straight to the global frontier.
inline constexpr unsigned int kQueuePerThread = 4;
// The dynamic shared memory a block of the shared-memory kernels launches with.
__host__ __device__ constexpr std::size_t shared_queue_bytes(unsigned int block_threads) {
    return std::size_t(kQueuePerThread) * block_threads * sizeof(std::uint32_t);
}
__device__ __forceinline__ void shared_expand(Graph g, std::int32_t* level, const std::uint32_t* frontier,
                                              std::uint32_t count, std::uint32_t* next, Control* ctl, std::int32_t cur,
                                              std::uint32_t stop) {
    extern __shared__ std::uint32_t local_queue[];
    __shared__ unsigned int local_count;
    __shared__ unsigned int base;
    const unsigned int capacity = kQueuePerThread * blockDim.x;
    if (threadIdx.x == 0) local_count = 0;
    __syncthreads();
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        const std::uint32_t v = frontier[i];
        for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const std::uint32_t w = g.targets[e];
            if (!claim(level, w, cur + 1)) continue;
            if (w == stop) ctl->stop_found = 1;
            const unsigned int slot = atomicAdd(&local_count, 1u);
            if (slot < capacity)
                local_queue[slot] = w;
            else
                next[atomicAdd(&ctl->next_count, 1u)] = w;
        }
    }
    __syncthreads();
    const unsigned int n = min(local_count, capacity);
    if (threadIdx.x == 0 && n) base = atomicAdd(&ctl->next_count, n);
    __syncthreads();
    for (unsigned int j = threadIdx.x; j < n; j += blockDim.x) next[base + j] = local_queue[j];
}

// Runs the dynamic-parallelism BFS from the source in frontier[0]: one block launched here,
// each level's last block tail-launches the next (bfs_gpu_dp.cu). The launch's error, if any.
cudaError_t launch_dp_level(Graph g, std::int32_t* level, std::uint32_t* frontier, std::uint32_t* next, Control* ctl,
                            std::uint32_t stop, unsigned int block_threads, cudaStream_t stream);

}  // namespace ps::gpu::bfs
