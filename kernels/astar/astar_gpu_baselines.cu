// Host driver of the BBA* paper's GPU A* baselines, LockA* and GA*-style many heaps (device
// code, and why both are exact: astar_baselines_kernels.cuh): one search in the phases of
// run_phases (kernels/gpu/gpu_run.cuh). A compute step is one launch of the LockA* workers or
// a batch of many-heaps iterations; a full heap restarts the search with more room within it.
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "kernels/astar/astar_baselines_kernels.cuh"
#include "kernels/astar/astar_gpu_baselines.hpp"
#include "kernels/astar/astar_host.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_run.cuh"

namespace ps::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
namespace b = astar_baselines;

enum class Kind { Lock, Heaps };

class BaselineSearch {
public:
    using Output = AStarGpuOutput;

    BaselineSearch(Output& out, Kind kind, const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                   const AStarGpuBaselineOptions& opt)
        : m_out(out),
          m_kind(kind),
          m_map(map),
          m_rules(rules),
          m_start(start),
          m_goal(goal),
          m_cells(map.cell_count()),
          m_heaps(kind == Kind::Lock ? 1 : b::kHeaps) {
        b::Grid& s = m_s;
        s.width = map.width();
        s.height = map.height();
        s.eight = rules.connectivity == Connectivity::Eight;
        s.corner = rules.corners;
        s.h_scale = map.min_cost();
        s.start = start;
        s.goal = goal;
        m_cap = opt.initial_heap_capacity;
        if (m_cap == 0)
            m_cap = kind == Kind::Lock ? std::clamp<std::uint64_t>(m_cells / 4, 1u << 12, 1u << 26)
                                       : std::clamp<std::uint64_t>(m_cells / 64, 1u << 10, 1u << 22);
        const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
        m_workers = opt.workers > 0 ? opt.workers : 2 * sms;
    }

    void allocate(const detail::Stream&) {
        m_d_cells.allocate(m_cells, "the map cells");
        m_d_g.allocate(m_cells, "the g array");
        if (m_kind == Kind::Lock)
            m_d_lock_ctl.allocate(1, "the control block");
        else {
            m_d_heaps_ctl.allocate(1, "the control block");
            m_d_staging.allocate(2 * std::size_t(b::kHeaps) * b::kStageCap, "the staging buffers");
        }
        m_lock_ctl.emplace();
        m_heaps_ctl.emplace();
        m_s.cells = m_d_cells.get();
        m_s.g = m_d_g.get();
    }

    void upload(const detail::Stream& stream) {
        check(cudaMemcpyAsync(m_d_cells.get(), m_map.cells().data(), m_cells, cudaMemcpyHostToDevice, stream),
              "uploading the map");
        stream.sync("uploading the map");
    }

    // One launch of the LockA* workers, or a batch of many-heaps iterations (2, 4, .. 64), then
    // a look at the done flag. A full heap means a lost entry, so the search restarts from
    // scratch with 4x the room, within this step (no poll in between).
    bool step(const detail::Stream& stream) {
        for (;;) {
            if (m_fresh) {
                begin_search(stream);
                m_fresh = false;
                m_batch = 2;
            } else {
                m_batch = std::min(m_batch * 2, 64);
            }
            bool overflow = false;
            if (m_kind == Kind::Lock) {
                b::lock_workers<<<unsigned(m_workers), 32, 0, stream>>>(m_s, m_d_heap.get(), std::uint32_t(m_cap),
                                                                        m_d_lock_ctl.get(), 1 << 13);
                ++m_out.host_launches;
                check(cudaGetLastError(), "launching the LockA* workers");
                check(cudaMemcpyAsync(m_lock_ctl->get(), m_d_lock_ctl.get(), sizeof(b::LockCtl), cudaMemcpyDeviceToHost,
                                      stream),
                      "reading the control block");
                stream.sync("running LockA*");
                const b::LockCtl& ctl = **m_lock_ctl;
                if (!ctl.done) return false;
                overflow = ctl.heap_overflow != 0;
                m_cost_overflow = ctl.cost_overflow != 0;
                m_out.iterations = ctl.pops;
                m_out.expanded = ctl.expanded;
                m_out.pushed = ctl.pushed;
            } else {
                for (int i = 0; i < m_batch; ++i, ++m_it)
                    b::heaps_iteration<<<b::kHeaps, b::kPops, 0, stream>>>(
                        m_s, m_d_heap.get(), std::uint32_t(m_cap), m_d_staging.get(), m_d_heaps_ctl.get(), m_it);
                m_out.host_launches += unsigned(m_batch);
                check(cudaGetLastError(), "launching the many-heaps iterations");
                check(cudaMemcpyAsync(m_heaps_ctl->get(), m_d_heaps_ctl.get(), sizeof(b::HeapsCtl),
                                      cudaMemcpyDeviceToHost, stream),
                      "reading the control block");
                stream.sync("running the many-heaps A*");
                const b::HeapsCtl& ctl = **m_heaps_ctl;
                if (!ctl.done) return false;
                overflow = ctl.heap_overflow != 0;
                m_cost_overflow = ctl.cost_overflow != 0;
                if (ctl.stage_overflow)
                    throw detail::RunError(ErrorKind::Internal,
                                           "internal error: the staging buffer of the many-heaps A* overflowed");
                m_out.iterations = ctl.iterations;
                m_out.expanded = ctl.expanded;
                m_out.pushed = ctl.pushed;
            }
            if (!overflow || m_cost_overflow) return true;
            ++m_out.restarts;
            m_cap *= 4;
            m_fresh = true;
        }
    }

    void end_compute(const detail::Stream& stream) {
        stream.sync("finishing the A* search");
        m_out.bucket_capacity = m_cap;
        if (m_cost_overflow)
            throw detail::RunError(ErrorKind::Invalid,
                                   "path costs exceed the int32 range of the GPU A* (2.1e9, about 2.1 million "
                                   "orthogonal steps): use astar.cpu on this map");
    }

    void download(const detail::Stream& stream) {
        std::int32_t goal_g = b::kInf;
        check(cudaMemcpyAsync(&goal_g, m_s.g + m_goal, 4, cudaMemcpyDeviceToHost, stream), "downloading the goal's g");
        stream.sync("downloading the goal's g");
        if (goal_g == b::kInf) return;
        m_out.found = true;
        m_out.cost = goal_g;
        std::vector<std::int32_t> g(m_cells);
        check(cudaMemcpyAsync(g.data(), m_s.g, m_cells * 4, cudaMemcpyDeviceToHost, stream), "downloading g");
        stream.sync("downloading g");
        m_out.path = walk_back(m_map, m_rules, g, m_goal);
        if (m_out.path.empty())
            throw detail::RunError(ErrorKind::Internal, "internal error: no path along the g values to the goal");
    }

    void finish(const detail::Stream&) {}

private:
    // A fresh search with heaps of m_cap entries: the heaps (grown after an overflow), g, the
    // seed entry and the control block.
    void begin_search(const detail::Stream& stream) {
        if (m_cap > 0xFFFFFFFFull) throw detail::RunError(ErrorKind::Invalid, "heap capacity would pass 2^32 entries");
        if (m_d_heap.size() < m_cap * std::uint64_t(m_heaps)) {
            m_d_heap.release();  // before allocating the larger one: both may not fit
            m_d_heap.allocate(m_cap * std::uint64_t(m_heaps), m_kind == Kind::Lock ? "the heap" : "the heaps");
        }
        check(cudaMemsetAsync(m_s.g, 0x7F, m_cells * 4, stream), "clearing g");
        check(cudaMemsetAsync(m_s.g + m_start, 0, 4, stream), "seeding g");
        const b::HeapEntry seed{std::int32_t(host_octile(m_map, m_start, m_goal) * m_s.h_scale), 0, m_start};
        const int seed_heap = m_kind == Kind::Lock ? 0 : b::heap_of(m_start);
        check(cudaMemcpyAsync(m_d_heap.get() + std::uint64_t(seed_heap) * m_cap, &seed, sizeof seed,
                              cudaMemcpyHostToDevice, stream),
              "seeding the heap");
        if (m_kind == Kind::Lock) {
            b::LockCtl& ctl = **m_lock_ctl;
            ctl = b::LockCtl{};
            ctl.size = 1;
            check(cudaMemcpyAsync(m_d_lock_ctl.get(), m_lock_ctl->get(), sizeof(b::LockCtl), cudaMemcpyHostToDevice,
                                  stream),
                  "uploading the control block");
        } else {
            b::HeapsCtl& ctl = **m_heaps_ctl;
            ctl = b::HeapsCtl{};
            ctl.size[seed_heap] = 1;
            check(cudaMemcpyAsync(m_d_heaps_ctl.get(), m_heaps_ctl->get(), sizeof(b::HeapsCtl), cudaMemcpyHostToDevice,
                                  stream),
                  "uploading the control block");
            m_it = 0;
        }
    }

    Output& m_out;
    Kind m_kind;
    const GridMap& m_map;
    MoveRules m_rules;
    Vertex m_start, m_goal;
    std::size_t m_cells;
    int m_heaps;
    b::Grid m_s{};
    std::uint64_t m_cap = 0;  // entries per heap
    int m_workers = 0;        // LockA*: worker threads (one per block)
    bool m_fresh = true;      // a search is to begin
    int m_batch = 0;          // many heaps: iterations in the last batch
    std::uint64_t m_it = 0;   // many heaps: the next iteration
    bool m_cost_overflow = false;
    DeviceBuffer<std::uint8_t> m_d_cells;
    DeviceBuffer<std::int32_t> m_d_g;
    DeviceBuffer<b::LockCtl> m_d_lock_ctl;
    DeviceBuffer<b::HeapsCtl> m_d_heaps_ctl;
    DeviceBuffer<b::HeapEntry> m_d_staging;
    DeviceBuffer<b::HeapEntry> m_d_heap;
    // Pinned readbacks of the control blocks, allocated in the allocate phase.
    std::optional<detail::PinnedValue<b::LockCtl>> m_lock_ctl;
    std::optional<detail::PinnedValue<b::HeapsCtl>> m_heaps_ctl;
};

AStarGpuOutput run_baseline(Kind kind, const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                            const AStarGpuBaselineOptions& opt) {
    AStarGpuOutput out;
    const std::size_t cells = map.cell_count();
    if (start >= cells || goal >= cells) {
        out.error = "start or goal outside the map";
        return out;
    }
    // As the CPU searches: a start or goal in a wall has no path (nothing to search).
    if (!map.passable(start) || !map.passable(goal)) return out;
    if (host_octile(map, start, goal) * map.min_cost() > b::kMaxG) {
        out.error = "path costs exceed the int32 range of the GPU A* (2.1e9): use astar.cpu on this map";
        return out;
    }
    run_phases<BaselineSearch>(out, opt.cancel, kind, map, rules, start, goal, opt);
    return out;
}

}  // namespace

AStarGpuOutput run_astar_gpu_lock(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                                  const AStarGpuBaselineOptions& options) {
    return run_baseline(Kind::Lock, map, rules, start, goal, options);
}

AStarGpuOutput run_astar_gpu_heaps(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                                   const AStarGpuBaselineOptions& options) {
    return run_baseline(Kind::Heaps, map, rules, start, goal, options);
}

}  // namespace ps::gpu
