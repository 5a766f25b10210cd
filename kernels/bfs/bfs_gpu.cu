// Host driver of the GPU BFS variants behind bfs_gpu.hpp: the level-synchronous ones (device
// code in bfs_kernels.cuh) in the phases of run_phases (kernels/gpu/gpu_run.cuh), a level per
// compute step for the host-driven loops (vertex-based, frontier, shared-memory frontier) and
// one step for those the device drives (dynamic parallelism, persistent kernel, CUDA graph).
// The tiled variant is in bfs_gpu_tiled.cu.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/bfs/bfs_gpu.hpp"
#include "kernels/bfs/bfs_gpu_tiled.hpp"
#include "kernels/bfs/bfs_kernels.cuh"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_run.cuh"

namespace ps::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;

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

class LevelBfs {
public:
    using Output = BfsGpuOutput;

    LevelBfs(Output& out, const CsrGraph& csr, Vertex target, Vertex stop, const BfsGpuOptions& opt)
        : m_out(out),
          m_csr(csr),
          m_target(target),
          m_stop(stop),
          m_opt(opt),
          m_n(csr.vertex_count()),
          m_bs(opt.block_size),
          m_per_level_alloc(!opt.frontier_alloc_once && (opt.kind == BfsKind::Frontier || opt.kind == BfsKind::Shared)),
          m_degree(std::max<std::uint32_t>(1, max_degree(csr))) {
        out.block_size = m_bs;
        m_s.delay = opt.test_delay;
    }
    ~LevelBfs() {
        if (m_exec) cudaGraphExecDestroy(m_exec);
        if (m_graph) cudaGraphDestroy(m_graph);
    }
    LevelBfs(const LevelBfs&) = delete;
    LevelBfs& operator=(const LevelBfs&) = delete;

    void allocate(const detail::Stream& stream) {
        LevelState& s = m_s;
        const std::uint32_t n = m_n;
        s.offsets.allocate(m_csr.offsets.size(), "the CSR offsets");
        s.targets.allocate(m_csr.targets.size(), "the CSR targets");
        s.level.allocate(n, "the level array");
        s.control.allocate(1, "the control block");
        if (m_opt.stamp_levels) s.stamps.allocate(std::min<std::uint32_t>(n + 1, detail::kMaxStampedLevels), stream);
        if (m_opt.kind != BfsKind::Basic) {
            // Faithful per-level allocation starts with a one-vertex frontier; otherwise both
            // buffers hold every vertex, enough for any level.
            s.frontier_a.allocate(m_per_level_alloc ? 1 : n, "a frontier buffer");
            if (!m_per_level_alloc) s.frontier_b.allocate(n, "a frontier buffer");
        }
        const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
        if (m_opt.kind == BfsKind::Graph) {
            // The whole BFS is one graph: WHILE (frontier not empty) { expand; finish level }.
            check(cudaGraphCreate(&m_graph, 0), "creating the CUDA graph");
            cudaGraphConditionalHandle handle;
            check(cudaGraphConditionalHandleCreate(&handle, m_graph, 1, cudaGraphCondAssignDefault),
                  "creating the graph's conditional handle");
            cudaGraphNodeParams cond{};
            cond.type = cudaGraphNodeTypeConditional;
            cond.conditional.handle = handle;
            cond.conditional.type = cudaGraphCondTypeWhile;
            cond.conditional.size = 1;
            cudaGraphNode_t cond_node;
            check(cudaGraphAddNode(&cond_node, m_graph, nullptr, nullptr, 0, &cond), "adding the WHILE node");
            cudaGraph_t body = cond.conditional.phGraph_out[0];
            bfs::Graph g = s.graph();
            std::int32_t* level = s.level.get();
            std::uint32_t* fa = s.frontier_a.get();
            std::uint32_t* fb = s.frontier_b.get();
            bfs::Control* ctl = s.control.get();
            void* expand_args[] = {&g, &level, &fa, &fb, &ctl, &m_stop};
            cudaKernelNodeParams expand{};
            expand.func = reinterpret_cast<void*>(bfs::graph_expand);
            expand.gridDim = dim3(unsigned(sms) * 4);
            expand.blockDim = dim3(unsigned(m_bs));
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
            check(cudaGraphInstantiate(&m_exec, m_graph, 0), "instantiating the CUDA graph");
        }
        stream.sync("allocating");
    }

    void upload(const detail::Stream& stream) {
        LevelState& s = m_s;
        const std::uint32_t n = m_n;
        check(cudaMemcpyAsync(s.offsets.get(), m_csr.offsets.data(), m_csr.offsets.size() * 4, cudaMemcpyHostToDevice,
                              stream),
              "uploading the CSR offsets");
        check(cudaMemcpyAsync(s.targets.get(), m_csr.targets.data(), m_csr.targets.size() * 4, cudaMemcpyHostToDevice,
                              stream),
              "uploading the CSR targets");
        check(cudaMemsetAsync(s.level.get(), 0xFF, std::size_t(n) * 4, stream), "clearing the levels");
        check(cudaMemsetAsync(s.level.get() + m_target, 0, 4, stream), "seeding the target level");
        check(cudaMemsetAsync(s.control.get(), 0, sizeof(bfs::Control), stream), "clearing the control block");
        if (m_opt.kind != BfsKind::Basic)
            check(cudaMemcpyAsync(s.frontier_a.get(), &m_target, 4, cudaMemcpyHostToDevice, stream),
                  "seeding the frontier");
        if (m_opt.kind == BfsKind::Graph) {
            const unsigned int one = 1;
            check(cudaMemcpyAsync(&s.control.get()->frontier_size, &one, 4, cudaMemcpyHostToDevice, stream),
                  "seeding the frontier size");
        }
        stream.sync("uploading");
    }

    // One level (host-driven loops) or the whole BFS (device-driven variants). Stopping at the
    // target itself: level 0 reaches the stop vertex and no level is expanded (the kernels test
    // the stop vertex only where they label it, and the target is never labelled: they once
    // searched the whole map).
    bool step(const detail::Stream& stream) {
        if (m_stop == m_target) return true;
        LevelState& s = m_s;
        const std::uint32_t n = m_n;
        const int bs = m_bs;
        const std::size_t shmem = bfs::shared_queue_bytes(unsigned(bs));
        const bfs::Graph g = s.graph();
        bfs::Control* ctl = s.control.get();
        const Vertex stop = m_stop;
        BfsGpuOutput& out = m_out;
        detail::PinnedValue<bfs::Control>& host_ctl = m_host_ctl;
        switch (m_opt.kind) {
        case BfsKind::Basic: {
            const std::int32_t cur = m_cur;
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
                m_last_level = host_ctl->changed ? cur + 1 : cur;
                return true;
            }
            ++m_cur;
            return false;
        }
        case BfsKind::Frontier:
        case BfsKind::Shared: {
            const std::int32_t cur = m_cur;
            const std::uint32_t count = m_count;
            nvtx::ScopedRange level_range(nvtx::Phase::Level, "level");
            if (m_per_level_alloc) s.frontier_b.allocate(std::uint64_t(count) * m_degree, "the next frontier");
            check(cudaMemsetAsync(&ctl->next_count, 0, 4, stream), "clearing the frontier counter");
            if (m_opt.kind == BfsKind::Frontier)
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
            m_count = host_ctl->next_count;
            std::swap(s.frontier_a, s.frontier_b);
            if (m_count == 0 || host_ctl->stop_found) {
                m_last_level = m_count ? cur + 1 : cur;
                return true;
            }
            ++m_cur;
            return false;
        }
        case BfsKind::DynamicParallel: {
            check(bfs::launch_dp_level(g, s.level.get(), s.frontier_a.get(), s.frontier_b.get(), ctl, stop,
                                       unsigned(bs), stream),
                  "launching the dynamic-parallelism BFS");
            ++out.host_launches;
            check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the BFS result");
            stream.sync("running the tail-launch chain");
            if (host_ctl->launch_error != 0)
                throw detail::CudaError("a device-side tail launch of level " +
                                        std::to_string(host_ctl->final_level + 1) +
                                        " failed: " + cudaGetErrorString(cudaError_t(host_ctl->launch_error)));
            m_last_level = host_ctl->final_level;
            out.device_launches = host_ctl->device_launches;
            out.global_steps = out.device_launches + 1;
            return true;
        }
        case BfsKind::Persistent: {
            int per_sm = 0;
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bfs::persistent_bfs, bs, 0),
                  "querying occupancy for the persistent kernel");
            if (per_sm < 1) throw detail::CudaError("the persistent BFS kernel cannot run with this block size");
            // One block per SM keeps the grid barrier cheap (gpu-facts: ~1.4 us at 132 blocks).
            const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
            const dim3 grid{unsigned(sms)}, block{unsigned(bs)};
            std::int32_t* level = s.level.get();
            std::uint32_t* fa = s.frontier_a.get();
            std::uint32_t* fb = s.frontier_b.get();
            void* args[] = {const_cast<bfs::Graph*>(&g), &level, &fa, &fb, &ctl, &m_stop};
            check(
                cudaLaunchCooperativeKernel(reinterpret_cast<void*>(bfs::persistent_bfs), grid, block, args, 0, stream),
                "launching the persistent BFS kernel");
            ++out.host_launches;
            check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the BFS result");
            stream.sync("running the persistent BFS kernel");
            m_last_level = host_ctl->final_level;
            out.global_steps = std::uint64_t(m_last_level) + 1;
            return true;
        }
        case BfsKind::Graph: {
            check(cudaGraphLaunch(m_exec, stream), "launching the BFS graph");
            ++out.host_launches;
            check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(bfs::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the BFS result");
            stream.sync("running the BFS graph");
            m_last_level = host_ctl->final_level;
            out.global_steps = std::uint64_t(m_last_level) + 1;
            return true;
        }
        case BfsKind::Tiled:
            break;
        }
        return true;
    }

    void end_compute(const detail::Stream& stream) { stream.sync("finishing the BFS"); }

    void download(const detail::Stream& stream) {
        m_out.levels.resize(m_n);
        check(
            cudaMemcpyAsync(m_out.levels.data(), m_s.level.get(), std::size_t(m_n) * 4, cudaMemcpyDeviceToHost, stream),
            "downloading the levels");
        stream.sync("downloading the levels");
    }

    void finish(const detail::Stream& stream) {
        m_out.depth = m_last_level + 1;
        if (m_opt.stamp_levels) m_out.level_stamps = m_s.stamps.download(std::uint32_t(m_out.depth), stream);
    }

private:
    Output& m_out;
    const CsrGraph& m_csr;
    Vertex m_target, m_stop;
    const BfsGpuOptions& m_opt;
    std::uint32_t m_n;
    int m_bs;
    bool m_per_level_alloc;
    std::uint32_t m_degree;
    std::int32_t m_cur = 0;         // host-driven loops: the level to expand next
    std::uint32_t m_count = 1;      // frontier variants: the size of that level's frontier
    std::int32_t m_last_level = 0;  // the last level labelled
    detail::PinnedValue<bfs::Control> m_host_ctl;
    LevelState m_s;
    cudaGraph_t m_graph = nullptr;
    cudaGraphExec_t m_exec = nullptr;
};

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
        out.error_kind = gpu_info().available ? ErrorKind::Invalid : ErrorKind::Device;
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
    if (options.kind == BfsKind::Tiled)
        run_tiled_bfs(map, target, stop_at, options, out);
    else
        run_phases<LevelBfs>(out, options.cancel, *graph, target, stop_at, options);
    if (!out.error.empty() || out.cancelled) return out;
    for (std::int32_t l : out.levels) out.visited += l >= 0 ? 1 : 0;
    return out;
}

}  // namespace ps::gpu
