// Host driver of batch.gpu.* (device code, and the search it runs on the device and in
// emulate_batch_gpu: batch_kernels.cuh): explicit or unified memory, the memory plan made before
// anything is allocated, and the searches in the phases of run_phases (kernels/gpu/gpu_run.cuh),
// in several launches when the agents' working sets do not fit at once.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/batch/batch_cpu.hpp"
#include "kernels/batch/batch_gpu.hpp"
#include "kernels/batch/batch_kernels.cuh"
#include "kernels/batch/batch_plan.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_run.cuh"

namespace ps::gpu {
namespace {

using batch::u32;
using batch::u64;
using detail::check;
using detail::CudaError;
using detail::mib;

// ---- host-side preparation ----------------------------------------------------------------
struct HostGraph {
    std::vector<uint2> ranges;
    std::vector<batch::Edge> edges;
    std::vector<float4> coords;
    bool has_z = false;
    batch::HKind h = batch::HKind::Zero;
    float orth = 1, diag = 1, scale = 1;
    std::string heuristic;
};

// Shrinks a heuristic a little below the metric so that float rounding of g sums can never
// make it overestimate (costs stay within 1e-6 of optimal instead of exactly equal to it).
constexpr double kFloatSafety = 1.0 - 1e-6;

HostGraph prepare_graph(const CsrGraph& graph, bool zero_heuristic) {
    HostGraph hg;
    const std::size_t m = graph.targets.size();
    hg.edges.resize(m);
    for (std::size_t e = 0; e < m; ++e) hg.edges[e] = {graph.targets[e], float(graph.weight(std::uint32_t(e))), 0, 0};
    hg.ranges.resize(graph.vertex_count());
    for (u32 v = 0; v < graph.vertex_count(); ++v) hg.ranges[v] = make_uint2(graph.offsets[v], graph.offsets[v + 1]);
    // The same choice as batch.cpu (kernels/batch/batch_cpu.hpp), so both expand comparably.
    const BatchHeuristic h = choose_batch_heuristic(graph, zero_heuristic);
    hg.heuristic = describe(h);
    switch (h.kind) {
    case BatchHeuristic::Kind::Grid: {
        // Integer and unit metrics sum exactly in float; 1/sqrt2 sums round.
        const double safety = h.diag == kSqrt2 ? kFloatSafety : 1.0;
        hg.h = batch::HKind::Grid;
        hg.orth = float(h.orth * safety);
        hg.diag = float(h.diag * safety);
        break;
    }
    case BatchHeuristic::Kind::Coords:
        hg.h = batch::HKind::Euclid;
        hg.scale = float(std::min(h.scale, 1e30) * kFloatSafety);
        hg.coords.resize(graph.vertex_count());
        for (u32 v = 0; v < graph.vertex_count(); ++v)
            hg.coords[v] =
                make_float4(float(graph.coords[v].x), float(graph.coords[v].y), float(graph.coords[v].z), 0.0f);
        for (auto& e : hg.edges) {
            e.x = hg.coords[e.to].x;
            e.y = hg.coords[e.to].y;
        }
        hg.has_z = std::any_of(hg.coords.begin(), hg.coords.end(), [](const float4& c) { return c.z != 0.0f; });
        break;
    case BatchHeuristic::Kind::Zero:
        break;
    }
    return hg;
}

batch::Work make_work(u64* state, u64* heap, BatchLayout layout, std::uint64_t slots, std::uint64_t vertices,
                      std::uint32_t capacity, std::uint32_t top) {
    if (layout == BatchLayout::Interleaved) return {state, heap, slots, 1, slots, 1, capacity, top};
    return {state, heap, 1, vertices, 1, batch::heap_entries(capacity), capacity, top};
}

// Dynamic shared memory of a launch with `block` threads, and the kernel allowed to take it.
template <class Kernel>
std::size_t shared_bytes(Kernel kernel, std::uint32_t top, int block) {
    const std::size_t bytes = std::size_t(top) * sizeof(u64) * std::size_t(block);
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "reserving shared memory for the heap tops (lower shared_levels or block)");
    return bytes;
}

std::string capacity_message(std::uint32_t capacity) {
    return "an agent's open list outgrew the heap (heap_capacity=" + std::to_string(capacity) +
           " entries even after compaction): raise heap_capacity, or use 0 (the vertex count, never too small)";
}

// ---- memory: explicit (cudaMalloc) or unified (cudaMallocManaged, never over-subscribed) ---
template <class T>
class Buffer {
public:
    Buffer() = default;
    ~Buffer() { release(); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    void allocate(std::size_t count, bool unified, const char* what) {
        release();
        m_unified = unified;
        if (!unified) {
            m_device.allocate(count, what);
            return;
        }
        const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
        // Over-subscribed managed memory can hang the GPU for every user of the machine:
        // refuse anything that does not fit what is free now.
        std::size_t free = 0, total = 0;
        check(cudaMemGetInfo(&free, &total), "querying free GPU memory");
        if (bytes > free)
            throw CudaError("unified memory: " + std::string(what) + " needs " + mib(bytes) + " but only " + mib(free) +
                            " of " + mib(total) + " is free on the GPU; refusing to over-subscribe managed memory");
        void* p = nullptr;
        const cudaError_t err = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
        if (err != cudaSuccess) {
            cudaGetLastError();
            throw CudaError("allocating unified memory for " + std::string(what) + " (" + mib(bytes) +
                            "): " + cudaGetErrorString(err));
        }
        m_managed = static_cast<T*>(p);
    }
    void release() {
        m_device.release();
        if (m_managed) cudaFree(m_managed);
        m_managed = nullptr;
    }
    T* get() const { return m_unified ? m_managed : m_device.get(); }

    // Inputs: a copy (explicit; through `staging`, pinned memory for `count` Ts, when given) or
    // a host write plus a prefetch to the device (unified).
    void upload(const T* host, std::size_t count, cudaStream_t stream, int device, bool prefetch, const char* what,
                T* staging = nullptr) {
        if (count == 0) return;
        if (!m_unified) {
            if (staging && staging != host) std::memcpy(staging, host, count * sizeof(T));
            check(cudaMemcpyAsync(get(), staging ? staging : host, count * sizeof(T), cudaMemcpyHostToDevice, stream),
                  what);
            return;
        }
        std::memcpy(m_managed, host, count * sizeof(T));
        if (prefetch) to_device(count, stream, device, what);
    }
    // Unified: migrate the pages to the device now instead of on first touch in the kernel
    // (page faults of a multi-GB working set cost more than the searches). Explicit: nothing.
    void to_device(std::size_t count, cudaStream_t stream, int device, const char* what) {
        if (!m_unified || count == 0) return;
        cudaMemLocation location{};
        location.type = cudaMemLocationTypeDevice;
        location.id = device;
        check(cudaMemPrefetchAsync(m_managed, count * sizeof(T), location, 0, stream), what);
    }
    // Results: with `staging` (explicit memory), copied there now and into `host` by one of
    // `after_sync` once the stream has finished; else straight into `host`.
    void download(T* host, std::size_t count, cudaStream_t stream, const char* what, T* staging,
                  std::vector<std::function<void()>>& after_sync) const {
        if (count == 0) return;
        if (!m_unified) {
            check(cudaMemcpyAsync(staging ? staging : host, get(), count * sizeof(T), cudaMemcpyDeviceToHost, stream),
                  what);
            if (staging) after_sync.push_back([=] { std::memcpy(host, staging, count * sizeof(T)); });
            return;
        }
        check(cudaStreamSynchronize(stream), what);
        std::memcpy(host, m_managed, count * sizeof(T));
    }

private:
    detail::DeviceBuffer<T> m_device;
    T* m_managed = nullptr;
    bool m_unified = false;
};

std::uint64_t budget_for(const BatchGpuOptions& o) {
    return batch::memory_budget(gpu_free_bytes(), gpu_info().total_bytes, o.max_working_set_bytes);
}

// The memory plan for the free memory now: the queue's persistent threads come from the
// kernel's occupancy, the other strategies want a slot per agent.
BatchMemoryPlan plan_now(const CsrGraph& graph, std::uint64_t n_agents, const BatchGpuOptions& o) {
    const int bs = o.block_size;
    const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
    std::uint64_t wanted_slots = 0;
    if (o.strategy == BatchStrategy::Queue) {
        int per_sm = 0;
        const std::uint32_t top = batch::top_entries(o, batch::heap_capacity(o, graph.vertex_count()));
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, batch::queue_run, bs,
                                                            shared_bytes(batch::queue_run, top, bs)),
              "querying occupancy for the queue kernel");
        if (per_sm < 1) throw CudaError("the queue kernel cannot run with " + std::to_string(bs) + "-thread blocks");
        const std::uint64_t grid = o.grid_size > 0 ? std::uint64_t(o.grid_size) : std::uint64_t(per_sm) * sms;
        const std::uint64_t per = std::uint64_t(o.per_dequeue);
        wanted_slots = std::max<std::uint64_t>(1, std::min(grid * std::uint64_t(bs), (n_agents + per - 1) / per));
    }
    return plan_batch_memory(graph.vertex_count(), graph.edge_count(), !graph.coords.empty() && !o.zero_heuristic,
                             n_agents, o, budget_for(o), wanted_slots);
}

// One run of every agent's search in the phases of run_phases (kernels/gpu/gpu_run.cuh). The
// memory plan is made before the clock starts; agents that do not fit run in chunks, one
// launch each (bsp: a seed launch, then a launch per expansion step).
class BatchRun {
public:
    using Output = BatchGpuOutput;

    // A failed run keeps its memory plan: it says why a run did not fit.
    static void keep_on_failure(const Output& failed, Output& fresh) { fresh.plan = failed.plan; }

    BatchRun(Output& out, const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
             const BatchGpuOptions& o)
        : m_out(out),
          m_graph(graph),
          m_agents(agents),
          m_o(o),
          m_n_agents(agents.size()),
          m_vertices(graph.vertex_count()),
          m_unified(o.memory == BatchMemory::Unified) {
        const int bs = o.block_size;
        check(cudaGetDevice(&m_device), "querying the device");
        check(cudaDeviceGetAttribute(&m_concurrent_managed, cudaDevAttrConcurrentManagedAccess, m_device),
              "querying unified memory support");
        if (o.strategy != BatchStrategy::Bsp) {
            cudaFuncAttributes attributes{};
            check(cudaFuncGetAttributes(&attributes, batch::batch_run), "querying the batch kernel");
            if (bs > attributes.maxThreadsPerBlock)
                throw detail::RunError(ErrorKind::Invalid,
                                       "block must be at most " + std::to_string(attributes.maxThreadsPerBlock) +
                                           " for " + std::string(to_string(o.strategy)) + " (its kernel uses up to " +
                                           std::to_string(batch::kMaxRegisters) + " registers per thread), got " +
                                           std::to_string(bs));
        }
        // The memory plan, before anything is allocated.
        out.plan = plan_now(graph, m_n_agents, o);
        if (!out.plan.error.empty()) throw CudaError(out.plan.error);
        m_slots = out.plan.slots;
        m_capacity = batch::heap_capacity(o, m_vertices);
    }

    void allocate(const detail::Stream& stream) {
        const BatchGpuOptions& o = m_o;
        const bool unified = m_unified;
        const std::uint64_t vertices = m_vertices, n_agents = m_n_agents, slots = m_slots;
        m_d_ranges.allocate(vertices, unified, "the edge ranges");
        m_d_edges.allocate(m_graph.targets.size(), unified, "the edges");
        const bool wants_coords = !m_graph.coords.empty() && !o.zero_heuristic;
        if (wants_coords) m_d_coords.allocate(vertices, unified, "the vertex coordinates");
        m_d_pairs.allocate(n_agents, unified, "the agents' start and goal");
        m_d_cost.allocate(n_agents, unified, "the agents' costs");
        m_d_steps.allocate(n_agents, unified, "the agents' steps");
        m_agent_order = batch::order_of(o);
        if (m_agent_order != BatchOrder::Index) m_d_order.allocate(n_agents, unified, "the agent order");
        m_d_state.allocate(slots * vertices, unified, "the vertex states of the search slots");
        // Generation 0 is never used: zeroed states read as untouched, and nothing needs clearing
        // again between searches or chunks. Explicit memory is cleared right away, so that the
        // clearing (a GB-sized memset) overlaps the other allocations and the host's preparation;
        // unified memory after its prefetch to the GPU (upload).
        m_d_heap.allocate(slots * batch::heap_entries(m_capacity), unified, "the heaps of the search slots");
        if (!unified) clear_states(stream);
        if (o.strategy == BatchStrategy::Bsp) m_d_slots.allocate(slots, unified, "the bsp slot states");
        m_d_ctl.allocate(1, unified, "the control block");
        if (o.stamp_agents) {
            m_d_t_start.allocate(n_agents, unified, "the agents' start stamps");
            m_d_t_end.allocate(n_agents, unified, "the agents' end stamps");
            m_d_sm.allocate(n_agents, unified, "the agents' SM ids");
        }
    }

    void upload(const detail::Stream& stream) {
        const BatchGpuOptions& o = m_o;
        const bool unified = m_unified;
        const int device = m_device;
        const std::uint64_t vertices = m_vertices, n_agents = m_n_agents, slots = m_slots;
        m_hg = prepare_graph(m_graph, o.zero_heuristic);
        const HostGraph& hg = m_hg;
        m_out.heuristic = hg.heuristic;
        m_order = batch::make_order(m_agent_order, m_graph, m_agents, o.permute_seed);
        const std::vector<u32>& order = m_order;
        // Pinned staging for the explicit copies (inputs, then results).
        const std::size_t stamped = o.stamp_agents ? n_agents : 0;
        m_staging = unified ? detail::PinnedStaging{}
                            : detail::PinnedStaging::acquire(detail::PinnedStaging::bytes_for(
                                  {hg.ranges.size() * sizeof(uint2), hg.edges.size() * sizeof(batch::Edge),
                                   hg.coords.size() * sizeof(float4), n_agents * sizeof(uint2),
                                   order.size() * sizeof(u32), n_agents * sizeof(float), n_agents * sizeof(u32),
                                   stamped * sizeof(u64), stamped * sizeof(u64), stamped * sizeof(u32)}));
        detail::PinnedStaging& staging = m_staging;
        const bool prefetch = unified && m_concurrent_managed != 0;
        m_d_ranges.upload(hg.ranges.data(), hg.ranges.size(), stream, device, prefetch, "uploading the edge ranges",
                          staging.take<uint2>(hg.ranges.size()));
        m_d_edges.upload(hg.edges.data(), hg.edges.size(), stream, device, prefetch, "uploading the edges",
                         staging.take<batch::Edge>(hg.edges.size()));
        if (hg.h == batch::HKind::Euclid)
            m_d_coords.upload(hg.coords.data(), hg.coords.size(), stream, device, prefetch, "uploading the coordinates",
                              staging.take<float4>(hg.coords.size()));
        std::vector<uint2> pageable_pairs;
        uint2* pairs = staging.take<uint2>(n_agents);  // written in place when pinned
        if (!pairs) {
            pageable_pairs.resize(n_agents);
            pairs = pageable_pairs.data();
        }
        for (std::size_t i = 0; i < n_agents; ++i) pairs[i] = make_uint2(m_agents[i].first, m_agents[i].second);
        m_d_pairs.upload(pairs, n_agents, stream, device, prefetch, "uploading the agents",
                         pageable_pairs.empty() ? pairs : nullptr);
        if (!order.empty())
            m_d_order.upload(order.data(), order.size(), stream, device, prefetch, "uploading the agent order",
                             staging.take<u32>(order.size()));
        if (prefetch && o.prefetch) {
            m_d_state.to_device(slots * vertices, stream, device, "prefetching the vertex states");
            m_d_heap.to_device(slots * batch::heap_entries(m_capacity), stream, device, "prefetching the heaps");
            m_d_cost.to_device(n_agents, stream, device, "prefetching the costs");
            m_d_steps.to_device(n_agents, stream, device, "prefetching the steps");
            if (o.strategy == BatchStrategy::Bsp)
                m_d_slots.to_device(slots, stream, device, "prefetching the bsp slots");
        }
        if (unified) clear_states(stream);
        batch::Control ctl0{};
        ctl0.next = slots * std::uint64_t(o.per_dequeue);
        *m_host_ctl = ctl0;
        check(cudaMemcpyAsync(m_d_ctl.get(), m_host_ctl.get(), sizeof ctl0, cudaMemcpyHostToDevice, stream),
              "uploading the control block");
        stream.sync("uploading");
    }

    // queue: its one launch. batch and permute: a chunk of agents per step, the stream synced
    // after each when there are several (cancellation is polled between them). bsp: a batch
    // of sync_every expansion launches per step, chunk after chunk.
    bool step(const detail::Stream& stream) {
        const BatchGpuOptions& o = m_o;
        const int bs = o.block_size;
        if (!m_launch) {
            m_launch.emplace(launch_state());
            m_out.block_size = bs;
        }
        const Launch& l = *m_launch;
        if (o.strategy == BatchStrategy::Queue) {
            const unsigned int blocks = unsigned((m_slots + unsigned(bs) - 1) / unsigned(bs));
            batch::queue_run<<<blocks, bs, shared_bytes(batch::queue_run, l.top, bs), stream>>>(
                l.g, l.w, l.a, l.ctl, u32(m_n_agents), u32(m_slots), u32(o.per_dequeue));
            check(cudaGetLastError(), "launching the queue kernel");
            m_out.host_launches = 1;
            m_out.threads = m_slots;
            m_out.grid_size = int(blocks);
            return true;
        }
        if (o.strategy != BatchStrategy::Bsp) {
            if (m_chunk == m_out.plan.chunks) return true;
            nvtx::ScopedRange chunk_range(nvtx::Phase::Level, "chunk");
            begin_chunk();
            batch::batch_run<<<m_blocks, bs, shared_bytes(batch::batch_run, l.top, bs), stream>>>(
                l.g, l.w, l.a, l.ctl, u32(m_first), m_count, m_gen);
            check(cudaGetLastError(), "launching the batch kernel");
            ++m_out.host_launches;
            ++m_chunk;
            if (m_out.plan.chunks == 1) return true;
            stream.sync("running a chunk of agents");
            return false;
        }
        for (;;) {
            if (!m_chunk_range) {
                if (m_chunk == m_out.plan.chunks) return true;
                m_chunk_range.emplace(nvtx::Phase::Level, "chunk");
                begin_chunk();
                check(cudaMemsetAsync(&l.ctl->done, 0, sizeof(unsigned int), stream), "clearing the done count");
                batch::bsp_init<<<m_blocks, bs, 0, stream>>>(l.g, l.w, l.a, m_d_slots.get(), u32(m_first), m_count,
                                                             m_gen);
                check(cudaGetLastError(), "launching the bsp seed kernel");
                ++m_out.host_launches;
                m_launched = 0;
            }
            // Every launch closes a vertex in each running slot (or ends its search), so no
            // search outlives vertices + 1 launches.
            const std::uint64_t limit = m_vertices + 2;
            for (int k = 0; k < o.sync_every; ++k, ++m_launched)
                batch::bsp_step<<<m_blocks, bs, 0, stream>>>(l.g, l.w, l.a, m_d_slots.get(), l.ctl, m_count, m_gen);
            check(cudaGetLastError(), "launching the bsp step kernel");
            m_out.host_launches += std::uint64_t(o.sync_every);
            check(
                cudaMemcpyAsync(&m_host_ctl->done, &l.ctl->done, sizeof(unsigned int), cudaMemcpyDeviceToHost, stream),
                "reading the done count");
            stream.sync("running bsp steps");
            if (m_host_ctl->done >= m_count) {
                m_chunk_range.reset();
                ++m_chunk;
                continue;
            }
            if (m_launched > limit)
                throw detail::RunError(ErrorKind::Internal,
                                       "internal error: bsp searches did not finish within the step bound");
            return false;
        }
    }

    void end_compute(const detail::Stream& stream) { stream.sync("running the searches"); }

    void download(const detail::Stream& stream) {
        const std::uint64_t n_agents = m_n_agents;
        detail::PinnedStaging& staging = m_staging;
        BatchGpuOutput& out = m_out;
        // Costs: float on the device, double in the output (converted from the pinned copy when
        // there is one).
        float* cost_staged = staging.take<float>(n_agents);
        std::vector<float> cost(cost_staged ? 0 : n_agents);
        float* cost_host = cost_staged ? cost_staged : cost.data();
        out.steps.resize(n_agents);
        std::vector<std::function<void()>> after_sync;
        m_d_cost.download(cost_host, n_agents, stream, "downloading the costs", nullptr, after_sync);
        m_d_steps.download(out.steps.data(), n_agents, stream, "downloading the steps", staging.take<u32>(n_agents),
                           after_sync);
        if (m_o.stamp_agents) {
            out.agent_start_ns.resize(n_agents);
            out.agent_end_ns.resize(n_agents);
            out.agent_sm.resize(n_agents);
            m_d_t_start.download(reinterpret_cast<u64*>(out.agent_start_ns.data()), n_agents, stream,
                                 "downloading the agents' start stamps", staging.take<u64>(n_agents), after_sync);
            m_d_t_end.download(reinterpret_cast<u64*>(out.agent_end_ns.data()), n_agents, stream,
                               "downloading the agents' end stamps", staging.take<u64>(n_agents), after_sync);
            m_d_sm.download(out.agent_sm.data(), n_agents, stream, "downloading the agents' SM ids",
                            staging.take<u32>(n_agents), after_sync);
        }
        check(cudaMemcpyAsync(m_host_ctl.get(), m_d_ctl.get(), sizeof(batch::Control), cudaMemcpyDeviceToHost, stream),
              "reading the control block");
        stream.sync("downloading the results");
        for (const auto& copy : after_sync) copy();
        out.costs.assign(cost_host, cost_host + n_agents);
    }

    void finish(const detail::Stream&) {
        m_out.compactions = m_host_ctl->compactions;
        if (m_host_ctl->overflows > 0) throw detail::RunError(ErrorKind::Invalid, capacity_message(m_capacity));
        if (m_o.strategy != BatchStrategy::Queue)
            m_out.simt_efficiency = batch::simt_efficiency(m_out.steps, m_order.empty() ? nullptr : &m_order);
    }

private:
    // What every launch of the compute phase passes to the kernels.
    struct Launch {
        batch::Graph g;
        std::uint32_t top;
        batch::Work w;
        batch::Agents a;
        batch::Control* ctl;
    };

    Launch launch_state() const {
        const HostGraph& hg = m_hg;
        const BatchGpuOptions& o = m_o;
        const batch::Graph g{m_d_ranges.get(),
                             m_d_edges.get(),
                             hg.h == batch::HKind::Euclid ? m_d_coords.get() : nullptr,
                             hg.has_z,
                             u32(m_vertices),
                             u32(m_graph.grid_width),
                             hg.h,
                             hg.orth,
                             hg.diag,
                             hg.scale};
        const std::uint32_t top = batch::top_entries(o, m_capacity);
        const batch::Work w =
            make_work(m_d_state.get(), m_d_heap.get(), o.layout, m_slots, m_vertices, m_capacity, top);
        const batch::Agents a{m_d_pairs.get(),
                              m_d_cost.get(),
                              m_d_steps.get(),
                              m_order.empty() ? nullptr : m_d_order.get(),
                              o.stamp_agents ? m_d_t_start.get() : nullptr,
                              o.stamp_agents ? m_d_t_end.get() : nullptr,
                              o.stamp_agents ? m_d_sm.get() : nullptr};
        return {g, top, w, a, m_d_ctl.get()};
    }

    // The agents of chunk m_chunk: the slots' worth from m_chunk * slots on, in generation
    // m_chunk + 1.
    void begin_chunk() {
        const int bs = m_o.block_size;
        m_first = m_chunk * m_slots;
        m_count = u32(std::min(m_slots, m_n_agents - m_first));
        m_gen = u32(m_chunk + 1);
        m_blocks = (m_count + unsigned(bs) - 1) / unsigned(bs);
        m_out.threads = std::max<std::uint64_t>(m_out.threads, m_count);
        m_out.grid_size = int(m_blocks);
    }

    // The heaps too: a heap's sibling loads (16 bytes, min_child) read entries past its end and
    // ignore them; cleared once, those are defined (compute-sanitizer's initcheck stays clean).
    void clear_states(const detail::Stream& stream) {
        check(cudaMemsetAsync(m_d_state.get(), 0, m_slots * m_vertices * sizeof(u64), stream),
              "clearing the vertex states");
        check(cudaMemsetAsync(m_d_heap.get(), 0, m_slots * batch::heap_entries(m_capacity) * sizeof(u64), stream),
              "clearing the heaps");
    }

    Output& m_out;
    const CsrGraph& m_graph;
    const std::vector<std::pair<Vertex, Vertex>>& m_agents;
    const BatchGpuOptions& m_o;
    std::uint64_t m_n_agents, m_vertices;
    bool m_unified;
    int m_device = 0;
    int m_concurrent_managed = 0;
    std::uint64_t m_slots = 0;
    std::uint32_t m_capacity = 0;  // heap entries per slot
    BatchOrder m_agent_order = BatchOrder::Index;
    HostGraph m_hg;
    std::vector<u32> m_order;  // position -> agent; empty: the identity
    std::optional<Launch> m_launch;
    std::uint64_t m_chunk = 0;  // the next chunk to launch (bsp: the one running)
    std::uint64_t m_first = 0, m_launched = 0;
    u32 m_count = 0, m_gen = 0;
    unsigned int m_blocks = 0;
    detail::PinnedValue<batch::Control> m_host_ctl;
    Buffer<uint2> m_d_ranges;
    Buffer<u32> m_d_order;
    Buffer<batch::Edge> m_d_edges;
    Buffer<float4> m_d_coords;
    Buffer<uint2> m_d_pairs;
    Buffer<float> m_d_cost;
    Buffer<u32> m_d_steps;
    Buffer<u64> m_d_state, m_d_heap;
    Buffer<batch::SlotState> m_d_slots;
    Buffer<batch::Control> m_d_ctl;
    Buffer<u64> m_d_t_start, m_d_t_end;
    Buffer<u32> m_d_sm;
    detail::PinnedStaging m_staging;
    std::optional<nvtx::ScopedRange> m_chunk_range;  // bsp: the chunk whose steps are running
};

}  // namespace

BatchMemoryPlan plan_batch_gpu(const CsrGraph& graph, std::uint64_t agents, const BatchGpuOptions& options) {
    BatchMemoryPlan plan;
    if (!gpu_info().available) {
        plan.error = gpu_info().reason;
        return plan;
    }
    try {
        plan = plan_now(graph, agents, options);
    } catch (const CudaError& e) {
        plan.error = e.what();
    }
    return plan;
}

BatchGpuOutput run_batch_gpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                             const BatchGpuOptions& options) {
    BatchGpuOutput out;
    if (!gpu_info().available) {
        out.error = gpu_info().reason;
        out.error_kind = ErrorKind::Device;
        return out;
    }
    if (options.block_size < 32 || options.block_size > 1024 || options.block_size % 32 != 0) {
        out.error = "block must be a multiple of 32 between 32 and 1024, got " + std::to_string(options.block_size);
        return out;
    }
    if (options.per_dequeue < 1 || options.sync_every < 1 || options.grid_size < 0) {
        out.error = "per_dequeue and sync_every must be at least 1, grid at least 0";
        return out;
    }
    if (options.shared_levels < 0 || options.shared_levels > 4) {
        out.error = "shared_levels must be from 0 to 4, got " + std::to_string(options.shared_levels);
        return out;
    }
    if (graph.vertex_count() == 0) {
        out.error = "the graph has no vertices";
        return out;
    }
    if (auto why = batch::check_agents(graph, agents); !why.empty()) {
        out.error = why;
        return out;
    }
    run_phases<BatchRun>(out, options.cancel, graph, agents, options);
    return out;
}

BatchGpuOutput emulate_batch_gpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                                 const BatchGpuOptions& options, std::uint32_t slots) {
    BatchGpuOutput out;
    if (graph.vertex_count() == 0) {
        out.error = "the graph has no vertices";
        return out;
    }
    if (auto why = batch::check_agents(graph, agents); !why.empty()) {
        out.error = why;
        return out;
    }
    slots = std::max<std::uint32_t>(1, slots);
    const std::uint64_t vertices = graph.vertex_count();
    const std::uint32_t capacity = batch::heap_capacity(options, vertices);
    const HostGraph hg = prepare_graph(graph, options.zero_heuristic);
    out.heuristic = hg.heuristic;
    std::vector<u64> state(std::uint64_t(slots) * vertices, 0),
        heap(std::uint64_t(slots) * batch::heap_entries(capacity), 0);
    const batch::Graph g{hg.ranges.data(),
                         hg.edges.data(),
                         hg.coords.empty() ? nullptr : hg.coords.data(),
                         hg.has_z,
                         u32(vertices),
                         u32(graph.grid_width),
                         hg.h,
                         hg.orth,
                         hg.diag,
                         hg.scale};
    const std::uint32_t top = batch::top_entries(options, capacity);
    const batch::Work w = make_work(state.data(), heap.data(), options.layout, slots, vertices, capacity, top);
    std::vector<u64> tops(std::uint64_t(slots) * top + 1);  // each slot's on-chip heap top, stride 1
    out.costs.resize(agents.size());
    out.steps.resize(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
        // Slots are reused round-robin with a new generation each time, never cleared.
        const batch::Slot s = batch::slot_of(w, i % slots, top ? tops.data() + (i % slots) * top : nullptr, 1);
        batch::Search q;
        batch::start_search(g, s, q, u32(i / slots + 1), agents[i].first, agents[i].second);
        float cost = 0;
        u32 compactions = 0;
        batch::Status st;
        while ((st = batch::expand_one(g, s, capacity, q, cost, compactions)) == batch::kRunning) {
        }
        out.compactions += compactions;
        if (st == batch::kOverflow) {
            out.error = capacity_message(capacity);
            return out;
        }
        out.costs[i] = double(batch::result_cost(st, cost));
        out.steps[i] = q.steps;
    }
    return out;
}

}  // namespace ps::gpu
