// Host driver of UBA* and BBA* (device code, and why the search is exact: astar_kernels.cuh):
// one search in the phases of run_phases (kernels/gpu/gpu_run.cuh). A compute step launches a
// batch of iterations, as one persistent cooperative kernel or one launch per iteration, and
// restarts the search with more room when a bucket overflowed; the path is walked back on the
// device.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "kernels/astar/astar_gpu.hpp"
#include "kernels/astar/astar_host.hpp"
#include "kernels/astar/astar_kernels.cuh"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_run.cuh"

namespace ps::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
namespace a = astar;

constexpr unsigned int kWalkChunk = 1u << 20;  // path vertices per walk launch

std::uint64_t default_capacity(std::size_t cells) {
    return std::bit_ceil(std::clamp<std::uint64_t>(cells / 8, 1u << 16, 1u << 25));
}

class AStarSearch {
public:
    using Output = AStarGpuOutput;

    AStarSearch(Output& out, const GridMap& map, MoveRules rules, Vertex start, Vertex goal, const AStarGpuOptions& opt)
        : m_out(out),
          m_map(map),
          m_start(start),
          m_goal(goal),
          m_opt(opt),
          m_cells(map.cell_count()),
          m_dirs(opt.bidirectional ? 2 : 1) {
        a::Search& s = m_s;
        s.width = map.width();
        s.height = map.height();
        s.eight = rules.connectivity == Connectivity::Eight;
        s.corner = rules.corners;
        s.dirs = m_dirs;
        s.bw = opt.bucket_width;
        const int span = int((opt.bucket_width - 1 + a::kMaxStepRise) / opt.bucket_width);
        s.max_extract = std::min(opt.max_extract, a::kMaxBuckets - 1 - span);
        s.nb = s.max_extract + span + 1;
        // 4-connected grids have 4 moves: 4 threads per entry.
        const int tpv = opt.threads_per_vertex == 1 ? 1 : (s.eight ? 8 : 4);
        s.tpv_shift = std::countr_zero(unsigned(tpv));
        s.target[0] = goal;
        s.target[1] = start;
        s.delay = opt.test_delay;
        m_cap = std::bit_ceil(opt.initial_bucket_capacity ? opt.initial_bucket_capacity : default_capacity(m_cells));

        const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
        // The persistent cooperative kernel when the device can run one, one block per SM
        // (few blocks keep the grid barrier cheap: gpu-facts ~1.4 us at 132 blocks).
        // Otherwise (no cooperative launch, or opt.persistent off) one launch per iteration.
        m_blocks = unsigned(sms) * unsigned(std::max(1, 2048 / opt.block_size));
        if (opt.persistent) {
            int device = 0, coop = 0, per_sm = 0;
            check(cudaGetDevice(&device), "querying the device");
            check(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device),
                  "querying cooperative launch support");
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a::persistent_astar, opt.block_size,
                                                                sizeof(a::Plan)),
                  "querying occupancy for the persistent A* kernel");
            if (coop && per_sm > 0) {
                m_persistent = true;
                m_blocks = unsigned(sms);
            }
        }
        out.persistent = m_persistent;
        const std::uint64_t threads = std::uint64_t(m_blocks) * unsigned(opt.block_size);
        const std::uint64_t target = opt.extract_target > 0 ? std::uint64_t(opt.extract_target) : threads / tpv;
        s.budget = unsigned(std::max<std::uint64_t>(1, target / unsigned(m_dirs)));
        // Plans one block expands in one pass run in that block alone (persistent kernel only).
        s.solo_limit = m_persistent && opt.solo_block ? unsigned(opt.block_size / tpv) : 0u;
    }

    void allocate(const detail::Stream&) {
        m_d_cells.allocate(m_cells, "the map cells");
        for (int d = 0; d < m_dirs; ++d)
            m_d_g[d].allocate(m_cells, d == 0 ? "the forward g array" : "the backward g array");
        m_d_ctl.allocate(1, "the control block");
        if (m_opt.record && m_opt.record_cap > 0) {
            m_log.allocate(m_opt.record_cap, "the search recording");
            m_s.log = m_log.get();
            m_s.log_cap = m_opt.record_cap;
            m_s.log_stride = std::max(1u, m_opt.record_stride);
        }
        m_s.cells = m_d_cells.get();
        for (int d = 0; d < m_dirs; ++d) m_s.g[d] = m_d_g[d].get();
    }

    void upload(const detail::Stream& stream) {
        check(cudaMemcpyAsync(m_d_cells.get(), m_map.cells().data(), m_cells, cudaMemcpyHostToDevice, stream),
              "uploading the map");
        stream.sync("uploading the map");
    }

    // A batch of iterations, then a look at the done flag: a batch grows up to 64 iterations
    // (host loop) or 65536 (persistent kernel), so short searches do not wait for a long batch
    // and cancellation is polled now and then. A full bucket means a lost entry, so the search
    // restarts from scratch with 4x the room, within this step (no poll in between).
    bool step(const detail::Stream& stream) {
        for (;;) {
            if (m_batch == 0) {
                begin_search(stream);
                m_batch = 2;
            } else {
                m_batch = std::min(m_batch * 2, m_persistent ? 65536u : 64u);
            }
            if (m_persistent) {
                a::Control* ctl_ptr = m_d_ctl.get();
                unsigned int count = m_batch * 32;
                void* args[] = {&m_s, &ctl_ptr, &m_k, &count};
                check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(a::persistent_astar), dim3{m_blocks},
                                                  dim3{unsigned(m_opt.block_size)}, args, 0, stream),
                      "launching the persistent A* kernel");
                m_out.host_launches += 1;
                m_k += count;
            } else {
                for (unsigned int i = 0; i < m_batch; ++i, ++m_k)
                    a::astar_iteration<<<m_blocks, m_opt.block_size, 0, stream>>>(m_s, m_d_ctl.get(), m_k);
                m_out.host_launches += m_batch;
            }
            check(cudaGetLastError(), "launching the A* kernels");
            check(cudaMemcpyAsync(m_host_ctl.get(), m_d_ctl.get(), sizeof(a::Control), cudaMemcpyDeviceToHost, stream),
                  "reading the control block");
            stream.sync("running the A* iterations");
            if (!m_host_ctl->done) return false;
            if (!(m_host_ctl->end_flags & a::kBucketOverflow) || (m_host_ctl->end_flags & ~a::kBucketOverflow))
                return true;
            ++m_out.restarts;
            m_cap *= 4;
            m_pool.release();  // before allocating the larger one: both may not fit
            m_batch = 0;
        }
    }

    void end_compute(const detail::Stream& stream) {
        stream.sync("finishing the A* search");
        const a::Control& ctl = *m_host_ctl;
        m_out.iterations = ctl.iterations;
        m_out.expanded = ctl.expanded;
        m_out.pushed = ctl.pushed;
        m_out.buckets_extracted = ctl.extracted;
        m_out.bucket_capacity = m_cap;
        if (ctl.end_flags & a::kCostOverflow)
            throw detail::RunError(ErrorKind::Invalid,
                                   "path costs exceed the int32 range of the GPU A* (2.1e9, about 2.1 million "
                                   "orthogonal steps): use astar.cpu on this map");
        if (ctl.end_flags & a::kWindowError)
            throw detail::RunError(ErrorKind::Internal,
                                   "internal error: a push fell outside the bucket window (inconsistent heuristic?)");
    }

    void download(const detail::Stream& stream) {
        const a::Control& ctl = *m_host_ctl;
        if (ctl.best_final == a::kNoBest) return;
        m_out.found = true;
        m_out.cost = std::int64_t(ctl.best_final >> 32);
        const Vertex meet = Vertex(ctl.best_final & 0xFFFFFFFFu);
        // source .. to along exact g steps, walked on the device in chunks.
        DeviceBuffer<std::uint32_t> d_steps(kWalkChunk, "the path walk");
        DeviceBuffer<unsigned int> d_walk(2, "the path walk result");
        std::vector<std::uint32_t> chunk(kWalkChunk);
        unsigned int walk_result[2] = {0, 0};
        auto walk = [&](int d, Vertex to) {
            std::vector<Vertex> path{to};
            for (;;) {
                a::walk_back_kernel<<<1, 32, 0, stream>>>(m_s, m_s.g[d], path.back(), d_steps.get(), kWalkChunk,
                                                          d_walk.get());
                check(cudaGetLastError(), "launching the path walk");
                check(cudaMemcpyAsync(walk_result, d_walk.get(), sizeof walk_result, cudaMemcpyDeviceToHost, stream),
                      "reading the path walk");
                stream.sync("walking the path");
                check(cudaMemcpy(chunk.data(), d_steps.get(), walk_result[0] * sizeof(std::uint32_t),
                                 cudaMemcpyDeviceToHost),
                      "downloading the path");
                path.insert(path.end(), chunk.begin(), chunk.begin() + walk_result[0]);
                if (walk_result[1] == 0) break;
                if (walk_result[1] == 2 || path.size() > m_cells) return std::vector<Vertex>{};
            }
            std::reverse(path.begin(), path.end());
            return path;
        };
        m_out.path = walk(0, meet);
        if (m_dirs == 2 && !m_out.path.empty()) {
            std::vector<Vertex> back = walk(1, meet);  // goal .. meet
            if (back.empty()) {
                m_out.path.clear();
            } else {
                back.pop_back();
                m_out.path.insert(m_out.path.end(), back.rbegin(), back.rend());
            }
        }
        if (m_out.path.empty())
            throw detail::RunError(ErrorKind::Internal,
                                   "internal error: no path along the g values to the meeting vertex");
    }

    // The recording, outside the timed phases.
    void finish(const detail::Stream&) {
        if (!m_log.size()) return;
        const a::Control& ctl = *m_host_ctl;
        const std::uint64_t n = std::min<std::uint64_t>(ctl.recorded, m_log.size());
        m_out.record_truncated = ctl.recorded > m_log.size();
        std::vector<a::LogEvent> raw(n);
        check(cudaMemcpy(raw.data(), m_log.get(), n * sizeof(a::LogEvent), cudaMemcpyDeviceToHost),
              "downloading the recording");
        m_out.events.reserve(n);
        for (const a::LogEvent& e : raw) m_out.events.push_back({e.v, e.iteration, e.kind, e.direction});
        std::stable_sort(m_out.events.begin(), m_out.events.end(),
                         [](const auto& x, const auto& y) { return x.iteration < y.iteration; });
    }

private:
    // A fresh search in buckets of m_cap entries: the queues (grown after an overflow), the
    // control block, g and the seed entries.
    void begin_search(const detail::Stream& stream) {
        a::Search& s = m_s;
        const std::uint64_t rings = std::uint64_t(m_dirs) * std::uint64_t(s.nb);
        if (m_pool.size() < rings * m_cap) m_pool.allocate(rings * m_cap, "the bucket queues");
        s.pool = m_pool.get();
        s.cap = m_cap;
        a::Control& ctl = *m_host_ctl;
        ctl = a::Control{};
        const unsigned long long initial = m_start == m_goal ? std::uint64_t(m_start) : a::kNoBest;  // cost 0
        ctl.best[0] = ctl.best[1] = initial;
        const Vertex source[2] = {m_start, m_goal};
        for (int d = 0; d < m_dirs; ++d) {
            const long long cur = host_octile(m_map, source[d], s.target[d]) / s.bw;
            const int slot = int(cur % s.nb);
            ctl.meta[0].cur[d] = cur;
            ctl.meta[0].total[d][slot] = 1;
            const a::Entry seed{source[d], 0};
            check(cudaMemsetAsync(s.g[d], 0x7F, m_cells * 4, stream), "clearing g");
            check(cudaMemsetAsync(s.g[d] + source[d], 0, 4, stream), "seeding g");
            check(cudaMemcpyAsync(s.pool + (std::uint64_t(d) * s.nb + slot) * m_cap, &seed, sizeof seed,
                                  cudaMemcpyHostToDevice, stream),
                  "seeding the bucket queue");
        }
        check(cudaMemcpyAsync(m_d_ctl.get(), m_host_ctl.get(), sizeof(a::Control), cudaMemcpyHostToDevice, stream),
              "uploading the control block");
        m_k = 0;
    }

    Output& m_out;
    const GridMap& m_map;
    Vertex m_start, m_goal;
    const AStarGpuOptions& m_opt;
    std::size_t m_cells;
    int m_dirs;
    a::Search m_s{};
    std::uint64_t m_cap = 0;  // entries per bucket ring
    unsigned int m_blocks = 0;
    bool m_persistent = false;
    unsigned int m_batch = 0;    // iterations in the last batch; 0: a search is to begin
    unsigned long long m_k = 0;  // the next iteration to run
    detail::PinnedValue<a::Control> m_host_ctl;
    DeviceBuffer<std::uint8_t> m_d_cells;
    DeviceBuffer<std::int32_t> m_d_g[2];
    DeviceBuffer<a::Control> m_d_ctl;
    DeviceBuffer<a::Entry> m_pool;
    DeviceBuffer<a::LogEvent> m_log;
};

}  // namespace

AStarGpuOutput run_astar_gpu(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                             const AStarGpuOptions& opt) {
    AStarGpuOutput out;
    if (opt.bucket_width < 256 || opt.bucket_width > (1 << 24)) {
        out.error = "bucket_width must be between 256 and 16777216, got " + std::to_string(opt.bucket_width);
        return out;
    }
    if (opt.max_extract < 1 || opt.max_extract > a::kMaxExtract) {
        out.error = "max_extract must be between 1 and " + std::to_string(a::kMaxExtract) + ", got " +
                    std::to_string(opt.max_extract);
        return out;
    }
    if (opt.threads_per_vertex != 1 && opt.threads_per_vertex != 8) {
        out.error = "threads_per_vertex must be 1 or 8, got " + std::to_string(opt.threads_per_vertex);
        return out;
    }
    if (start >= map.cell_count() || goal >= map.cell_count()) {
        out.error = "start or goal lies outside the " + std::to_string(map.width()) + "x" +
                    std::to_string(map.height()) + " map";
        return out;
    }
    run_phases<AStarSearch>(out, opt.cancel, map, rules, start, goal, opt);
    return out;
}

}  // namespace ps::gpu
