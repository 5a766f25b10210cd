// Host driver of bfs.gpu.tiled (device code, and why the levels are exact:
// bfs_tiled_kernels.cuh): the map packed into bit rows during upload, then one persistent
// cooperative kernel (and the stop-at-start cut) as the single compute step of run_phases
// (kernels/gpu/gpu_run.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "kernels/bfs/bfs_gpu_tiled.hpp"
#include "kernels/bfs/bfs_tiled_kernels.cuh"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/gpu/gpu_run.cuh"

namespace ps::gpu {
namespace {

using detail::check;

class TiledBfs {
public:
    using Output = BfsGpuOutput;

    TiledBfs(Output& out, const GridMap& map, Vertex target, Vertex stop_at, const BfsGpuOptions& options)
        : m_out(out), m_map(map), m_target(target), m_stop_at(stop_at), m_options(options), m_n(map.cell_count()) {
        tiled::Grid& g = m_g;
        g.width = std::uint32_t(map.width());
        g.height = std::uint32_t(map.height());
        g.tiles_x = (g.width + 31) / 32;
        g.tiles_y = (g.height + 31) / 32;
        m_tiles = std::size_t(g.tiles_x) * g.tiles_y;
        m_sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
    }

    void allocate(const detail::Stream& stream) {
        const tiled::Grid& g = m_g;
        m_cells.allocate(m_n, "the map cells");
        m_free_bits.allocate(std::size_t(g.tiles_x) * g.height, "the map bit rows");
        m_dist.allocate(m_n, "the level array");
        m_flags_even.allocate(m_tiles, "the tile flags");
        m_flags_odd.allocate(m_tiles, "the tile flags");
        m_schedule.allocate(1, "the tile schedule");
        if (m_options.stamp_levels) m_stamps.allocate(detail::kMaxStampedLevels, stream);
        switch (m_options.block_size) {
        case 128:
            m_kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<128>);
            break;
        case 256:
            m_kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<256>);
            break;
        case 512:
            m_kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<512>);
            break;
        case 1024:
            m_kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<1024>);
            break;
        default:
            throw detail::RunError(ErrorKind::Invalid, "block_size must be 128, 256, 512 or 1024, got " +
                                                           std::to_string(m_options.block_size));
        }
        m_scratch = std::size_t(m_options.block_size / 32) * sizeof(tiled::Scratch);
        check(cudaFuncSetAttribute(m_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(m_scratch)),
              "allowing the tiled kernel its shared memory");
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, m_kernel, m_options.block_size, m_scratch),
              "querying occupancy for the tiled kernel");
        if (per_sm < 1)
            throw detail::CudaError("the tiled BFS kernel does not fit on this GPU with " +
                                    std::to_string(m_options.block_size) + "-thread blocks");
        stream.sync("allocating");
    }

    void upload(const detail::Stream& stream) {
        tiled::Grid& g = m_g;
        const std::size_t n = m_n;
        check(cudaMemcpyAsync(m_cells.get(), m_map.cells().data(), n, cudaMemcpyHostToDevice, stream),
              "uploading the map");
        g.free_bits = m_free_bits.get();
        g.dist = m_dist.get();
        g.stamps = m_stamps.get();
        g.stamp_cap = m_stamps.cap();
        g.delay = m_options.test_delay;
        tiled::pack_free_bits<<<unsigned((std::size_t(g.tiles_x) * g.height + 255) / 256), 256, 0, stream>>>(
            m_cells.get(), g, m_free_bits.get());
        check(cudaGetLastError(), "packing the map into bit rows");
        ++m_out.host_launches;
        check(cudaMemsetAsync(m_dist.get(), 0xFF, n * 4, stream), "clearing the levels");
        check(cudaMemsetAsync(m_flags_even.get(), 0, m_tiles * 4, stream), "clearing the tile flags");
        check(cudaMemsetAsync(m_flags_odd.get(), 0, m_tiles * 4, stream), "clearing the tile flags");
        m_t = m_map.cell(m_target);
        const std::uint32_t target_tile = std::uint32_t(m_t.y / 32) * g.tiles_x + std::uint32_t(m_t.x / 32);
        tiled::Schedule init{};
        init.flags[0] = m_flags_even.get();
        init.flags[1] = m_flags_odd.get();
        *m_host_schedule = init;
        check(cudaMemcpyAsync(m_schedule.get(), m_host_schedule.get(), sizeof init, cudaMemcpyHostToDevice, stream),
              "uploading the tile schedule");
        // Round 1 processes the target's tile.
        check(cudaMemsetAsync(m_flags_odd.get() + target_tile, 0x01, 1, stream), "seeding the tile flags");
        stream.sync("uploading");
    }

    bool step(const detail::Stream& stream) {
        // One block per SM: a cheap grid barrier; the block size sets the warps (tiles in flight).
        std::uint32_t tx = std::uint32_t(m_t.x), ty = std::uint32_t(m_t.y);
        tiled::Schedule* sched = m_schedule.get();
        void* args[] = {&m_g, &sched, &tx, &ty};
        check(cudaLaunchCooperativeKernel(m_kernel, dim3(unsigned(m_sms)), dim3(unsigned(m_options.block_size)), args,
                                          m_scratch, stream),
              "launching the tiled BFS kernel");
        ++m_out.host_launches;
        if (m_stop_at != kNoVertex) {
            tiled::cut_beyond<<<unsigned(m_sms) * 4, 256, 0, stream>>>(m_dist.get(), m_n, m_dist.get() + m_stop_at);
            check(cudaGetLastError(), "launching the stop-at-start cut");
            ++m_out.host_launches;
        }
        return true;
    }

    void end_compute(const detail::Stream& stream) {
        check(cudaMemcpyAsync(m_host_schedule.get(), m_schedule.get(), sizeof(tiled::Schedule), cudaMemcpyDeviceToHost,
                              stream),
              "reading the tile schedule");
        stream.sync("running the tiled BFS");
    }

    void download(const detail::Stream& stream) {
        m_out.levels.resize(m_n);
        check(cudaMemcpyAsync(m_out.levels.data(), m_dist.get(), m_n * 4, cudaMemcpyDeviceToHost, stream),
              "downloading the levels");
        stream.sync("downloading the levels");
    }

    void finish(const detail::Stream& stream) {
        m_out.global_steps = m_host_schedule->rounds;
        m_out.block_size = m_options.block_size;
        m_out.device_launches = 0;
        std::int32_t depth = 0;
        for (std::int32_t l : m_out.levels) depth = std::max(depth, l + 1);
        m_out.depth = depth;
        if (m_options.stamp_levels) m_out.level_stamps = m_stamps.download(m_host_schedule->rounds, stream);
    }

private:
    Output& m_out;
    const GridMap& m_map;
    Vertex m_target, m_stop_at;
    const BfsGpuOptions& m_options;
    std::size_t m_n;
    std::size_t m_tiles = 0;
    int m_sms = 1;
    tiled::Grid m_g{};
    Cell m_t{};  // the target
    const void* m_kernel = nullptr;
    std::size_t m_scratch = 0;  // dynamic shared memory: one Scratch per warp
    detail::PinnedValue<tiled::Schedule> m_host_schedule;
    detail::DeviceBuffer<std::uint8_t> m_cells;
    detail::DeviceBuffer<std::uint32_t> m_free_bits;
    detail::DeviceBuffer<std::uint32_t> m_dist;
    detail::DeviceBuffer<std::uint32_t> m_flags_even, m_flags_odd;
    detail::DeviceBuffer<tiled::Schedule> m_schedule;
    detail::LevelStamps m_stamps;  // one per round
};

}  // namespace

std::string tiled_unsupported(MoveRules rules) {
    // The kernel implements the 4-neighbour grid graph only (bit rows, one shift per side).
    if (rules.connectivity != Connectivity::Four) return "bfs.gpu.tiled supports 4-connected grids only";
    return {};
}

void run_tiled_bfs(const GridMap& map, Vertex target, Vertex stop_at, const BfsGpuOptions& options, BfsGpuOutput& out) {
    run_phases<TiledBfs>(out, options.cancel, map, target, stop_at, options);
}

}  // namespace ps::gpu
