// Host driver of flowfield.gpu (device code, and why the distances are exact:
// flowfield_kernels.cuh): the step masks computed during upload, then the persistent tile
// kernel and the direction kernel as the single compute step of run_phases
// (kernels/gpu/gpu_run.cuh), cancellation polled once before it. Whether the map is weighted is
// asked once per run (GridMap::weighted) and picks the kernels' instantiation.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "kernels/flowfield/flowfield_gpu.hpp"
#include "kernels/flowfield/flowfield_kernels.cuh"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_run.cuh"

namespace ps::gpu {
namespace {

using detail::check;

std::size_t tiles_of(const flow::Grid& g) { return std::size_t(g.tiles_x) * g.tiles_y; }

flow::Grid grid_of(const GridMap& map, MoveRules rules, bool weighted) {
    const bool levels = rules.connectivity == Connectivity::Four && !weighted;  // flow_uses_levels
    flow::Grid g{};
    g.width = std::uint32_t(map.width());
    g.height = std::uint32_t(map.height());
    g.tiles_x = (g.width + 31) / 32;
    g.tiles_y = (g.height + 31) / 32;
    if (weighted) {
        // A step costs (cost(v) + cost(w)) * half: the kernels multiply.
        g.orth = std::uint32_t(kIntHalfOrthogonal);
        g.diag = std::uint32_t(kIntHalfDiagonal);
    } else {
        g.orth = levels ? 1u : std::uint32_t(kIntOrthogonal);
        g.diag = levels ? 1u : std::uint32_t(kIntDiagonal);  // no diagonal steps when 4-connected
    }
    return g;
}

// The tile kernel's instantiation as cudaLaunchCooperativeKernel and the occupancy query take it.
const void* tile_kernel(bool weighted) {
    return weighted ? reinterpret_cast<const void*>(flow::flow_tiles<true>)
                    : reinterpret_cast<const void*>(flow::flow_tiles<false>);
}
int tile_warps(bool weighted) { return weighted ? flow::kWarpsPerBlock<true> : flow::kWarpsPerBlock<false>; }

class FlowFieldRun {
public:
    using Output = FlowFieldGpuOutput;
    static constexpr bool kPollBeforeCompute = true;

    FlowFieldRun(Output& out, const GridMap& map, MoveRules rules, Vertex goal, const FlowFieldGpuOptions& options,
                 bool weighted)
        : m_out(out),
          m_map(map),
          m_rules(rules),
          m_goal(goal),
          m_options(options),
          m_weighted(weighted),
          m_n(map.cell_count()),
          m_g(grid_of(map, rules, weighted)),
          m_tiles(tiles_of(m_g)) {
        m_sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
        m_out.weighted = weighted;
        m_out.levels = rules.connectivity == Connectivity::Four && !weighted;
    }

    void allocate(const detail::Stream& stream) {
        const std::size_t n = m_n;
        m_cells.allocate(n, "the map cells");
        m_moves.allocate(n, "the step masks");
        m_dist.allocate(n, "the distance field");
        m_dirs.allocate(n, "the directions");
        m_flags_even.allocate(m_tiles, "the tile flags");
        m_flags_odd.allocate(m_tiles, "the tile flags");
        m_schedule.allocate(1, "the tile schedule");
        if (m_options.stamp_rounds) m_stamps.allocate(detail::kMaxStampedLevels, stream);
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&m_per_sm, tile_kernel(m_weighted),
                                                            tile_warps(m_weighted) * 32, 0),
              "querying occupancy for the flow-field kernel");
        if (m_per_sm < 1) throw detail::CudaError("the flow-field kernel does not fit on this GPU");
        stream.sync("allocating");
    }

    void upload(const detail::Stream& stream) {
        flow::Grid& g = m_g;
        const std::size_t n = m_n;
        const bool eight = m_rules.connectivity == Connectivity::Eight;
        check(cudaMemcpyAsync(m_cells.get(), m_map.cells().data(), n, cudaMemcpyHostToDevice, stream),
              "uploading the map");
        m_cell_blocks = unsigned(std::min<std::size_t>((n + 255) / 256, std::size_t(m_sms) * 32));
        flow::move_masks<<<m_cell_blocks, 256, 0, stream>>>(m_cells.get(), g.width, g.height, eight,
                                                            std::uint8_t(m_rules.corners), m_moves.get());
        check(cudaGetLastError(), "computing the step masks");
        ++m_out.host_launches;
        check(cudaMemsetAsync(m_dist.get(), 0xFF, n * 4, stream), "clearing the distances");
        check(cudaMemsetAsync(m_flags_even.get(), 0, m_tiles * 4, stream), "clearing the tile flags");
        check(cudaMemsetAsync(m_flags_odd.get(), 0, m_tiles * 4, stream), "clearing the tile flags");
        const Cell t = m_map.cell(m_goal);
        g.goal_x = std::uint32_t(t.x);
        g.goal_y = std::uint32_t(t.y);
        const std::size_t goal_tile = std::size_t(t.y / 32) * g.tiles_x + std::size_t(t.x / 32);
        flow::Schedule init{};
        init.flags[0] = m_flags_even.get();
        init.flags[1] = m_flags_odd.get();
        *m_host_schedule = init;
        check(cudaMemcpyAsync(m_schedule.get(), m_host_schedule.get(), sizeof init, cudaMemcpyHostToDevice, stream),
              "uploading the tile schedule");
        check(cudaMemsetAsync(m_flags_odd.get() + goal_tile, 0x01, 1, stream), "seeding the tile flags");  // round 1
        g.moves = m_moves.get();
        g.dist = m_dist.get();
        g.cells = m_cells.get();
        g.stamps = m_stamps.get();
        g.stamp_cap = m_stamps.cap();
        g.delay = m_options.test_delay;
        stream.sync("uploading");
    }

    bool step(const detail::Stream& stream) {
        const flow::Grid& g = m_g;
        // At most kWarpsPerSm warps per SM (up to two plain blocks or four weighted ones, as the
        // occupancy allows): enough warps for wide wavefronts, a cheap grid barrier.
        const int warps = tile_warps(m_weighted);
        const unsigned blocks = unsigned(m_sms * std::min(m_per_sm, flow::kWarpsPerSm / warps));
        flow::Schedule* sched = m_schedule.get();
        void* args[] = {&m_g, &sched};
        check(cudaLaunchCooperativeKernel(tile_kernel(m_weighted), dim3(blocks), dim3(warps * 32), args, 0, stream),
              "launching the flow-field kernel");
        ++m_out.host_launches;
        if (m_weighted)
            flow::directions<true><<<m_cell_blocks, 256, 0, stream>>>(m_moves.get(), m_dist.get(), g.width, m_n, g.orth,
                                                                      g.diag, m_dirs.get(), m_cells.get());
        else
            flow::directions<false><<<m_cell_blocks, 256, 0, stream>>>(m_moves.get(), m_dist.get(), g.width, m_n,
                                                                       g.orth, g.diag, m_dirs.get(), m_cells.get());
        check(cudaGetLastError(), "launching the direction kernel");
        ++m_out.host_launches;
        return true;
    }

    void end_compute(const detail::Stream& stream) {
        check(cudaMemcpyAsync(m_host_schedule.get(), m_schedule.get(), sizeof(flow::Schedule), cudaMemcpyDeviceToHost,
                              stream),
              "reading the tile schedule");
        stream.sync("running the flow-field kernels");
        if (m_host_schedule->overflow)
            throw detail::RunError(ErrorKind::Invalid,
                                   "the flow field's distances exceed 32 bits (paths of more than about 2 million "
                                   "plain steps of 1000 in the integer metric, fewer on costly terrain): use "
                                   "4-connected rules on a plain map, or a smaller map");
    }

    void download(const detail::Stream& stream) {
        const std::size_t n = m_n;
        m_out.distance.resize(n);
        m_out.dirs.resize(n);
        // kInf (0xFFFFFFFF) reads back as -1, the host's "unreached".
        check(cudaMemcpyAsync(m_out.distance.data(), m_dist.get(), n * 4, cudaMemcpyDeviceToHost, stream),
              "downloading the distances");
        check(cudaMemcpyAsync(m_out.dirs.data(), m_dirs.get(), n, cudaMemcpyDeviceToHost, stream),
              "downloading the directions");
        stream.sync("downloading the flow field");
    }

    void finish(const detail::Stream& stream) {
        const flow::Schedule& s = *m_host_schedule;
        m_out.global_steps = s.rounds;
        m_out.tile_passes = s.tile_passes;
        m_out.sweep_iterations = s.sweep_iterations;
        for (int i = 0; i < 3; ++i) m_out.pass_cycles[i] = s.cycles[i];
        if (m_options.stamp_rounds) m_out.round_stamps = m_stamps.download(s.rounds, stream);
    }

private:
    Output& m_out;
    const GridMap& m_map;
    MoveRules m_rules;
    Vertex m_goal;
    const FlowFieldGpuOptions& m_options;
    bool m_weighted;
    std::size_t m_n;
    flow::Grid m_g;
    std::size_t m_tiles;
    int m_sms = 1;
    int m_per_sm = 0;            // flow_tiles blocks per SM
    unsigned m_cell_blocks = 0;  // blocks of the per-cell kernels
    detail::PinnedValue<flow::Schedule> m_host_schedule;
    detail::DeviceBuffer<std::uint8_t> m_cells;
    detail::DeviceBuffer<std::uint8_t> m_moves;
    detail::DeviceBuffer<std::uint32_t> m_dist;
    detail::DeviceBuffer<std::uint8_t> m_dirs;
    detail::DeviceBuffer<std::uint32_t> m_flags_even, m_flags_odd;
    detail::DeviceBuffer<flow::Schedule> m_schedule;
    detail::LevelStamps m_stamps;
};

}  // namespace

FlowFieldGpuOutput run_flowfield_gpu(const GridMap& map, MoveRules rules, Vertex goal,
                                     const FlowFieldGpuOptions& options) {
    FlowFieldGpuOutput out;
    if (!gpu_info().available) {
        out.error = "unavailable: no usable GPU: " + gpu_info().reason;
        out.error_kind = ErrorKind::Device;
        return out;
    }
    if (goal >= map.cell_count() || !map.passable(goal)) {
        out.error = "the goal must be a passable cell inside the map";
        return out;
    }
    // Refuse before allocating anything when the working set cannot fit.
    const std::size_t n = map.cell_count();
    const bool weighted = map.weighted();
    const std::size_t need = n * (1 + 1 + 4 + 1) + tiles_of(grid_of(map, rules, weighted)) * 8 + (std::size_t(1) << 20);
    if (const std::size_t free = gpu_free_bytes(); free < need) {
        out.error = "out of GPU memory: the flow field needs " + detail::mib(need) + ", " + detail::mib(free) + " free";
        out.error_kind = ErrorKind::Device;
        return out;
    }
    run_phases<FlowFieldRun>(out, options.cancel, map, rules, goal, options, weighted);
    return out;
}

}  // namespace ps::gpu
