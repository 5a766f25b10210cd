// Device code of the host-launched level-synchronous GPU BFS variants (one level = one
// expansion of the current frontier): vertex-based, frontier, shared-memory frontier,
// persistent cooperative kernel and the body of a CUDA graph with a conditional WHILE node (the
// tail-launching kernel is in bfs_gpu_dp.cu). Kernels live in the named namespace ps::gpu::bfs so
// profilers show readable names. Included by bfs_gpu.cu alone (the kernels are defined here,
// once), the host driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
#pragma once

#include "kernels/bfs/bfs_device.cuh"

namespace ps::gpu::bfs {

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

// ---- frontier: threads = frontier size, next frontier through a global counter ------------
__global__ void frontier_level(Graph g, std::int32_t* level, const std::uint32_t* frontier, std::uint32_t count,
                               std::uint32_t* next, Control* ctl, std::int32_t cur, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) expand_to_global(g, level, frontier[i], cur, next, &ctl->next_count, ctl, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
}

__global__ void shared_level(Graph g, std::int32_t* level, const std::uint32_t* frontier, std::uint32_t count,
                             std::uint32_t* next, Control* ctl, std::int32_t cur, std::uint32_t stop) {
    stamp_enter(g.stamps, g.stamp_cap, cur);
    shared_expand(g, level, frontier, count, next, ctl, cur, stop);
    stamp_exit(g.stamps, g.stamp_cap, cur);
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
