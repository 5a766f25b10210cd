// GPU BFS variants behind bfs_gpu.hpp: vertex-based, frontier, shared-memory frontier,
// dynamic parallelism (tail launch, the BFS paper's listing 1), persistent cooperative kernel
// and a CUDA graph with a conditional WHILE node. The tiled variant is in bfs_gpu_tiled.cu.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "kernels/bfs/bfs_gpu.hpp"
#include "kernels/bfs/bfs_kernels.cuh"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/bfs/bfs_gpu_tiled.hpp"
#include "instrumentation/nvtx.hpp"
#include "kernels/gpu/gpu_info.hpp"

namespace cg = cooperative_groups;

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

namespace ps::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
using Clock = std::chrono::steady_clock;

unsigned int blocks_for(std::uint64_t n, int block) { return unsigned((n + unsigned(block) - 1) / unsigned(block)); }

// Device state shared by the level-synchronous variants.
struct LevelState {
    DeviceBuffer<std::uint32_t> offsets, targets;
    DeviceBuffer<std::int32_t> level;
    DeviceBuffer<std::uint32_t> frontier_a, frontier_b;
    DeviceBuffer<bfs::Control> control;
    detail::LevelStamps stamps;
    BlockDelay delay;
    bfs::Graph graph() const {
        return {offsets.get(), targets.get(), std::uint32_t(offsets.size() - 1), stamps.get(), stamps.cap(), delay};
    }
};

std::uint32_t max_degree(const CsrGraph& g) {
    std::uint32_t d = 0;
    for (std::uint32_t v = 0; v < g.vertex_count(); ++v) d = std::max(d, g.offsets[v + 1] - g.offsets[v]);
    return d;
}

void run_level_variant(const CsrGraph& csr, Vertex target, Vertex stop, const BfsGpuOptions& opt, BfsGpuOutput& out) {
    const std::uint32_t n = csr.vertex_count();
    const int bs = opt.block_size;
    out.block_size = bs;
    const bool per_level_alloc =
        !opt.frontier_alloc_once && (opt.kind == BfsKind::Frontier || opt.kind == BfsKind::Shared);
    const std::uint32_t degree = std::max<std::uint32_t>(1, max_degree(csr));
    detail::Stream stream;
    detail::Event compute_start, compute_end;
    detail::PinnedValue<bfs::Control> host_ctl;
    LevelState s;
    s.delay = opt.test_delay;
    nvtx::PhaseSequence phase;

    const auto t0 = Clock::now();
    phase.begin(nvtx::Phase::Allocate, "allocate");
    s.offsets.allocate(csr.offsets.size(), "the CSR offsets");
    s.targets.allocate(csr.targets.size(), "the CSR targets");
    s.level.allocate(n, "the level array");
    s.control.allocate(1, "the control block");
    if (opt.stamp_levels) s.stamps.allocate(std::min<std::uint32_t>(n + 1, detail::kMaxStampedLevels), stream);
    if (opt.kind != BfsKind::Basic) {
        // Faithful per-level allocation starts with a one-vertex frontier; otherwise both
        // buffers hold every vertex, enough for any level.
        s.frontier_a.allocate(per_level_alloc ? 1 : n, "a frontier buffer");
        if (!per_level_alloc) s.frontier_b.allocate(n, "a frontier buffer");
    }
    cudaGraphExec_t exec = nullptr;
    cudaGraph_t graph = nullptr;
    struct GraphGuard {
        cudaGraph_t& g;
        cudaGraphExec_t& e;
        ~GraphGuard() {
            if (e) cudaGraphExecDestroy(e);
            if (g) cudaGraphDestroy(g);
        }
    } graph_guard{graph, exec};
    const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
    if (opt.kind == BfsKind::Graph) {
        // The whole BFS is one graph: WHILE (frontier not empty) { expand; finish level }.
        check(cudaGraphCreate(&graph, 0), "creating the CUDA graph");
        cudaGraphConditionalHandle handle;
        check(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault),
              "creating the graph's conditional handle");
        cudaGraphNodeParams cond{};
        cond.type = cudaGraphNodeTypeConditional;
        cond.conditional.handle = handle;
        cond.conditional.type = cudaGraphCondTypeWhile;
        cond.conditional.size = 1;
        cudaGraphNode_t cond_node;
        check(cudaGraphAddNode(&cond_node, graph, nullptr, nullptr, 0, &cond), "adding the WHILE node");
        cudaGraph_t body = cond.conditional.phGraph_out[0];
        bfs::Graph g = s.graph();
        std::int32_t* level = s.level.get();
        std::uint32_t* fa = s.frontier_a.get();
        std::uint32_t* fb = s.frontier_b.get();
        bfs::Control* ctl = s.control.get();
        void* expand_args[] = {&g, &level, &fa, &fb, &ctl, &stop};
        cudaKernelNodeParams expand{};
        expand.func = reinterpret_cast<void*>(bfs::graph_expand);
        expand.gridDim = dim3(unsigned(sms) * 4);
        expand.blockDim = dim3(unsigned(bs));
        expand.kernelParams = expand_args;
        cudaGraphNode_t expand_node, finish_node;
        check(cudaGraphAddKernelNode(&expand_node, body, nullptr, 0, &expand), "adding the expand node");
        void* finish_args[] = {&ctl, &handle};
        cudaKernelNodeParams finish{};
        finish.func = reinterpret_cast<void*>(bfs::graph_finish_level);
        finish.gridDim = dim3(1);
        finish.blockDim = dim3(1);
        finish.kernelParams = finish_args;
        check(cudaGraphAddKernelNode(&finish_node, body, &expand_node, 1, &finish), "adding the finish node");
        check(cudaGraphInstantiate(&exec, graph, 0), "instantiating the CUDA graph");
    }
    stream.sync("allocating");
    const auto t1 = Clock::now();
    phase.begin(nvtx::Phase::Upload, "upload");

    check(cudaMemcpyAsync(s.offsets.get(), csr.offsets.data(), csr.offsets.size() * 4, cudaMemcpyHostToDevice, stream),
          "uploading the CSR offsets");
    check(cudaMemcpyAsync(s.targets.get(), csr.targets.data(), csr.targets.size() * 4, cudaMemcpyHostToDevice, stream),
          "uploading the CSR targets");
    check(cudaMemsetAsync(s.level.get(), 0xFF, std::size_t(n) * 4, stream), "clearing the levels");
    check(cudaMemsetAsync(s.level.get() + target, 0, 4, stream), "seeding the target level");
    check(cudaMemsetAsync(s.control.get(), 0, sizeof(bfs::Control), stream), "clearing the control block");
    if (opt.kind != BfsKind::Basic)
        check(cudaMemcpyAsync(s.frontier_a.get(), &target, 4, cudaMemcpyHostToDevice, stream), "seeding the frontier");
    if (opt.kind == BfsKind::Graph) {
        const unsigned int one = 1;
        check(cudaMemcpyAsync(&s.control.get()->frontier_size, &one, 4, cudaMemcpyHostToDevice, stream),
              "seeding the frontier size");
    }
    stream.sync("uploading");
    const auto t2 = Clock::now();
    phase.begin(nvtx::Phase::Compute, "compute");

    compute_start.record(stream);
    const std::size_t shmem = 4 * std::size_t(bs) * sizeof(std::uint32_t);
    const bfs::Graph g = s.graph();
    bfs::Control* ctl = s.control.get();
    std::int32_t last_level = 0;
    // Stopping at the target itself: level 0 reaches the stop vertex and no level is expanded
    // (the kernels test the stop vertex only where they label it, and the target is never
    // labelled: they once searched the whole map).
    const bool expand = stop != target;
    if (expand) switch (opt.kind) {
        case BfsKind::Basic: {
            for (std::int32_t cur = 0;; ++cur) {
                nvtx::ScopedRange level_range(nvtx::Phase::Level, "level");
                check(cudaMemsetAsync(&ctl->changed, 0, 4, stream), "clearing the changed flag");
                bfs::vertex_level<<<blocks_for(n, bs), bs, 0, stream>>>(g, s.level.get(), cur, ctl, stop);
                check(cudaGetLastError(), "launching the vertex-based level kernel");
                ++out.host_launches;
                check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                      "reading the changed flag");
                stream.sync("running a BFS level");
                ++out.global_steps;
                if (!host_ctl->changed || host_ctl->stop_found) {
                    last_level = host_ctl->changed ? cur + 1 : cur;
                    break;
                }
                if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) {
                    out.cancelled = true;
                    return;
                }
            }
            break;
        }
        case BfsKind::Frontier:
        case BfsKind::Shared: {
            std::uint32_t count = 1;
            for (std::int32_t cur = 0;; ++cur) {
                nvtx::ScopedRange level_range(nvtx::Phase::Level, "level");
                if (per_level_alloc) s.frontier_b.allocate(std::uint64_t(count) * degree, "the next frontier");
                check(cudaMemsetAsync(&ctl->next_count, 0, 4, stream), "clearing the frontier counter");
                if (opt.kind == BfsKind::Frontier)
                    bfs::frontier_level<<<blocks_for(count, bs), bs, 0, stream>>>(
                        g, s.level.get(), s.frontier_a.get(), count, s.frontier_b.get(), ctl, cur, stop);
                else
                    bfs::shared_level<<<blocks_for(count, bs), bs, shmem, stream>>>(
                        g, s.level.get(), s.frontier_a.get(), count, s.frontier_b.get(), ctl, cur, stop);
                check(cudaGetLastError(), "launching the frontier level kernel");
                ++out.host_launches;
                check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                      "reading the frontier size");
                stream.sync("running a BFS level");
                ++out.global_steps;
                count = host_ctl->next_count;
                std::swap(s.frontier_a, s.frontier_b);
                if (count == 0 || host_ctl->stop_found) {
                    last_level = count ? cur + 1 : cur;
                    break;
                }
                if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) {
                    out.cancelled = true;
                    return;
                }
            }
            break;
        }
        case BfsKind::DynamicParallel: {
            bfs::dp_level<<<1, bs, shmem, stream>>>(g, s.level.get(), s.frontier_a.get(), 1, s.frontier_b.get(), ctl, 0,
                                                    stop);
            check(cudaGetLastError(), "launching the dynamic-parallelism BFS");
            ++out.host_launches;
            check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the BFS result");
            stream.sync("running the tail-launch chain");
            if (host_ctl->launch_error != 0)
                throw detail::CudaError("a device-side tail launch of level " +
                                        std::to_string(host_ctl->final_level + 1) +
                                        " failed: " + cudaGetErrorString(cudaError_t(host_ctl->launch_error)));
            last_level = host_ctl->final_level;
            out.device_launches = host_ctl->device_launches;
            out.global_steps = out.device_launches + 1;
            break;
        }
        case BfsKind::Persistent: {
            int per_sm = 0;
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bfs::persistent_bfs, bs, 0),
                  "querying occupancy for the persistent kernel");
            if (per_sm < 1) throw detail::CudaError("the persistent BFS kernel cannot run with this block size");
            // One block per SM keeps the grid barrier cheap (gpu-facts: ~1.4 us at 132 blocks).
            const dim3 grid{unsigned(sms)}, block{unsigned(bs)};
            std::int32_t* level = s.level.get();
            std::uint32_t* fa = s.frontier_a.get();
            std::uint32_t* fb = s.frontier_b.get();
            void* args[] = {const_cast<bfs::Graph*>(&g), &level, &fa, &fb, &ctl, &stop};
            check(
                cudaLaunchCooperativeKernel(reinterpret_cast<void*>(bfs::persistent_bfs), grid, block, args, 0, stream),
                "launching the persistent BFS kernel");
            ++out.host_launches;
            check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the BFS result");
            stream.sync("running the persistent BFS kernel");
            last_level = host_ctl->final_level;
            out.global_steps = std::uint64_t(last_level) + 1;
            break;
        }
        case BfsKind::Graph: {
            check(cudaGraphLaunch(exec, stream), "launching the BFS graph");
            ++out.host_launches;
            check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the BFS result");
            stream.sync("running the BFS graph");
            last_level = host_ctl->final_level;
            out.global_steps = std::uint64_t(last_level) + 1;
            break;
        }
        case BfsKind::Tiled:
            break;
        }
    compute_end.record(stream);
    stream.sync("finishing the BFS");
    const auto t3 = Clock::now();
    phase.begin(nvtx::Phase::Download, "download");

    out.levels.resize(n);
    check(cudaMemcpyAsync(out.levels.data(), s.level.get(), std::size_t(n) * 4, cudaMemcpyDeviceToHost, stream),
          "downloading the levels");
    stream.sync("downloading the levels");
    const auto t4 = Clock::now();
    phase.end();

    const Clock::time_point boundaries[5] = {t0, t1, t2, t3, t4};
    detail::set_phase_times(out, boundaries);
    out.gpu_compute_ms = compute_end.ms_since(compute_start);
    out.depth = last_level + 1;
    if (opt.stamp_levels) out.level_stamps = s.stamps.download(std::uint32_t(out.depth), stream);
}

}  // namespace

std::string bfs_gpu_unsupported(BfsKind kind, MoveRules rules) {
    if (!gpu_info().available) return gpu_info().reason;
    if (kind == BfsKind::Tiled) return tiled_unsupported(rules);
    return {};
}

BfsGpuOutput run_bfs_gpu(const GridMap& map, MoveRules rules, const CsrGraph* graph, Vertex target, Vertex stop_at,
                         const BfsGpuOptions& options) {
    BfsGpuOutput out;
    if (auto why = bfs_gpu_unsupported(options.kind, rules); !why.empty()) {
        out.error = why;
        return out;
    }
    if (target >= map.cell_count()) {
        out.error = "the BFS target lies outside the map";
        return out;
    }
    if (bfs_gpu_needs_csr(options.kind) && !graph) {
        out.error = "this BFS variant needs the CSR graph of the map";
        return out;
    }
    try {
        if (options.kind == BfsKind::Tiled)
            run_tiled_bfs(map, target, stop_at, options, out);
        else
            run_level_variant(*graph, target, stop_at, options, out);
    } catch (const std::exception& e) {
        out = BfsGpuOutput{};
        out.error = e.what();
        return out;
    }
    if (out.cancelled) return out;
    for (std::int32_t l : out.levels) out.visited += l >= 0 ? 1 : 0;
    return out;
}

}  // namespace ps::gpu
