// Device code of the level-synchronous GPU BFS variants (one level = one expansion of the
// current frontier): vertex-based, frontier, shared-memory frontier, dynamic parallelism (tail
// launch, the BFS paper's listing 1), persistent cooperative kernel and the body of a CUDA
// graph with a conditional WHILE node. Kernels live in the named namespace ps::gpu::bfs so
// profilers show readable names. Included by bfs_gpu.cu alone (the kernels are defined here,
// once), the host driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

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

// ---- vertex-based: one thread per vertex per level --------------------------------------
__global__ void vertex_level(Graph g, std::int32_t* level, std::int32_t cur, Control* ctl, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    const std::uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < g.vertices && level[v] == cur) {
        bool labelled = false;
        for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const std::uint32_t w = g.targets[e];
            if (level[w] == kUnreached) {  // racing writers store the same value
                level[w] = cur + 1;
                labelled = true;
                if (w == stop) ctl->stop_found = 1;
            }
        }
        if (labelled) ctl->changed = 1;
    }
    stamp_exit(g.stamps, g.stamp_cap, cur);
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

// ---- frontier: threads = frontier size, next frontier through a global counter ------------
__global__ void frontier_level(Graph g, std::int32_t* level, const std::uint32_t* frontier, std::uint32_t count,
                               std::uint32_t* next, Control* ctl, std::int32_t cur, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) expand_to_global(g, level, frontier[i], cur, next, &ctl->next_count, ctl, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
}

// ---- shared: the next frontier privatised per block in shared memory ---------------------
// Capacity: 4 entries per thread (a grid vertex has at most 4 new neighbours when
// 4-connected); anything beyond goes straight to the global frontier.
__device__ __forceinline__ void shared_expand(Graph g, std::int32_t* level, const std::uint32_t* frontier,
                                              std::uint32_t count, std::uint32_t* next, Control* ctl, std::int32_t cur,
                                              std::uint32_t stop) {
    extern __shared__ std::uint32_t local_queue[];
    __shared__ unsigned int local_count;
    __shared__ unsigned int base;
    const unsigned int capacity = 4 * blockDim.x;
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

__global__ void shared_level(Graph g, std::int32_t* level, const std::uint32_t* frontier, std::uint32_t count,
                             std::uint32_t* next, Control* ctl, std::int32_t cur, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    shared_expand(g, level, frontier, count, next, ctl, cur, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
}

// ---- dynamic parallelism: the last block to finish tail-launches the next level ----------
__global__ void dp_level(Graph g, std::int32_t* level, const std::uint32_t* frontier, std::uint32_t count,
                         std::uint32_t* next, Control* ctl, std::int32_t cur, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    shared_expand(g, level, frontier, count, next, ctl, cur, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
    delay_block(g.delay, 0, std::uint64_t(cur));
    __threadfence();
    __shared__ bool is_last_block;
    if (threadIdx.x == 0) is_last_block = atomicAdd(&ctl->blocks_finished, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!is_last_block || threadIdx.x != 0) return;
    ctl->blocks_finished = 0;
    const unsigned int total = *static_cast<volatile unsigned int*>(&ctl->next_count);
    const bool stop_found = *static_cast<volatile unsigned int*>(&ctl->stop_found) != 0;
    if (total > 0 && !stop_found) {
        ctl->next_count = 0;
        ctl->device_launches += 1;
        const unsigned int blocks = (total + blockDim.x - 1) / blockDim.x;
        dp_level<<<blocks, blockDim.x, 4 * blockDim.x * sizeof(std::uint32_t), cudaStreamTailLaunch>>>(
            g, level, next, total, const_cast<std::uint32_t*>(frontier), ctl, cur + 1, stop);
        // A failed launch ends the chain here: say so rather than return a half-labelled BFS.
        if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
            ctl->launch_error = int(err);
            ctl->final_level = cur;
        }
    } else {
        ctl->final_level = total > 0 ? cur + 1 : cur;
    }
}

// ---- persistent: one cooperative kernel, grid-wide barrier per level ---------------------
// Counters rotate over three slots: level k pushes into counts[k % 3], which was zeroed two
// barriers earlier, so no thread can still be reading it.
__global__ void persistent_bfs(Graph g, std::int32_t* level, std::uint32_t* frontier_a, std::uint32_t* frontier_b,
                               Control* ctl, std::uint32_t stop) {
    cg::grid_group grid = cg::this_grid();
    std::uint32_t count = 1;
    std::int32_t cur = 0;
    std::uint32_t* frontier = frontier_a;
    std::uint32_t* next = frontier_b;
    for (;;) {
        stamp_enter(g.stamps, g.stamp_cap, cur);
        unsigned int* next_count = &ctl->counts[cur % 3];
        for (std::uint32_t i = grid.thread_rank(); i < count; i += grid.size())
            expand_to_global(g, level, frontier[i], cur, next, next_count, ctl, stop);
        stamp_exit(g.stamps, g.stamp_cap, cur);
        grid.sync();
        delay_block(g.delay, 0, std::uint64_t(cur));
        count = *static_cast<volatile unsigned int*>(next_count);
        // Not ctl->stop_found: a fast thread already expanding the next level may set it while
        // a slow one still decides about this level, and the two would leave the loop at
        // different levels (a hang at the next barrier). The stop vertex's level is written
        // once, so "labelled cur + 1" reads the same in every thread.
        const bool stop_found = stop != kNoVertex && *static_cast<volatile std::int32_t*>(&level[stop]) == cur + 1;
        if (count == 0 || stop_found) {
            if (grid.thread_rank() == 0) ctl->final_level = count > 0 ? cur + 1 : cur;
            return;
        }
        delay_block(g.delay, 1, std::uint64_t(cur));
        if (grid.thread_rank() == 0) ctl->counts[(cur + 2) % 3] = 0;
        ++cur;
        std::uint32_t* swapped = frontier;
        frontier = next;
        next = swapped;
    }
}

// ---- graph: fixed-size body kernels inside a conditional WHILE node ----------------------
__global__ void graph_expand(Graph g, std::int32_t* level, std::uint32_t* frontier_a, std::uint32_t* frontier_b,
                             Control* ctl, std::uint32_t stop) {
    const std::int32_t cur = ctl->level;
    const std::uint32_t count = ctl->frontier_size;
    stamp_enter(g.stamps, g.stamp_cap, cur);
    const std::uint32_t* frontier = (cur & 1) ? frontier_b : frontier_a;
    std::uint32_t* next = (cur & 1) ? frontier_a : frontier_b;
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        expand_to_global(g, level, frontier[i], cur, next, &ctl->next_count, ctl, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
}

__global__ void graph_finish_level(Control* ctl, cudaGraphConditionalHandle handle) {
    const unsigned int next = ctl->next_count;
    ctl->frontier_size = next;
    ctl->next_count = 0;
    if (next > 0) ctl->level += 1;
    ctl->final_level = ctl->level;
    cudaGraphSetConditional(handle, next > 0 && !ctl->stop_found);
}

}  // namespace ps::gpu::bfs
