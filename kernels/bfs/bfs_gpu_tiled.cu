// bfs.gpu.tiled: many BFS levels per global step. The grid is cut into 32x32 tiles; one warp
// owns a tile, one lane a row of 32 cells held as a bit mask, so one BFS level inside a tile
// is a handful of bit operations and shuffles. A tile pass computes, from the distances on
// its one-cell halo (and the target, if inside), the exact local BFS distances of its cells:
// dist(c) = min over halo cells h of dist(h) + local_dist(h, c). Halo distances are upper
// bounds that only decrease, so repeating passes on tiles whose neighbours changed reaches
// the unique fixed point: the exact BFS levels, identical to the CPU's. Tiles are scheduled
// by a persistent cooperative kernel: each round processes the tiles flagged by the previous
// one, then one grid barrier. A tile flags a neighbour only when a border cell it lowered can
// lower the neighbour's adjacent cell, so finished tiles behind the wavefront stay idle.
// Rounds ~ wavefront crossings of tiles, far fewer than levels.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <chrono>
#include <vector>

#include "kernels/bfs/bfs_kernels.cuh"
#include "kernels/bfs/bfs_gpu_tiled.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "instrumentation/nvtx.hpp"
#include "kernels/gpu/gpu_info.hpp"

namespace cg = cooperative_groups;

namespace ps::gpu::tiled {

inline constexpr std::uint32_t kInf = 0xFFFFFFFFu;  // reads back as level -1
using Scratch = std::uint32_t[32][33];              // one warp's tile (padded against bank conflicts)

struct Grid {
    std::uint32_t width, height;
    std::uint32_t tiles_x, tiles_y;
    const std::uint32_t* free_bits;  // [height][tiles_x]: bit b of word (y, tx) = cell (32 tx + b, y)
    std::uint32_t* dist;             // [height][width], kInf = unreached
    unsigned long long* stamps;      // per round (entry, exit) %globaltimer stamps, or null
    std::uint32_t stamp_cap;
    BlockDelay delay;  // test-only
};

struct Schedule {
    // Per tile: process it in the next odd / even round. Plain stores set a flag (setting
    // it twice is harmless); the warp that reads it clears it for the round after next.
    std::uint32_t* flags[2];
    // The last round for which some tile was flagged: round r flags work by writing r + 1;
    // after round r's barrier everybody stops unless it reads r + 1 (or r + 2, from a fast
    // block already in round r + 1). One monotone word, never cleared: a cleared slot once
    // wiped a fast block's flag for the next round, and the kernel stopped with work left.
    unsigned int flagged_round;
    unsigned int rounds;
    unsigned long long tile_passes;
};

// Packs one byte per cell (1 = passable) into 32-cell words; cells beyond the width are walls.
__global__ void pack_free_bits(const std::uint8_t* cells, Grid g, std::uint32_t* free_bits) {
    const std::uint32_t word = blockIdx.x * blockDim.x + threadIdx.x;
    if (word >= g.tiles_x * g.height) return;
    const std::uint32_t y = word / g.tiles_x, tx = word % g.tiles_x;
    std::uint32_t bits = 0;
    for (std::uint32_t b = 0; b < 32; ++b) {
        const std::uint32_t x = tx * 32 + b;
        if (x < g.width && cells[std::size_t(y) * g.width + x]) bits |= 1u << b;
    }
    free_bits[word] = bits;
}

__device__ __forceinline__ std::uint32_t warp_min(std::uint32_t v) {
    for (int offset = 16; offset > 0; offset >>= 1) v = min(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
    return v;
}

// Smallest of a, b that is >= floor (kInf if none).
__device__ __forceinline__ std::uint32_t min_at_least(std::uint32_t a, std::uint32_t b, std::uint32_t floor) {
    const std::uint32_t x = a >= floor ? a : kInf;
    const std::uint32_t y = b >= floor ? b : kInf;
    return min(x, y);
}

// Which neighbours a tile pass lowered a border for (they may now improve).
struct Notify {
    bool left, right, up, down;
};

// One warp recomputes tile (tx, ty) from its halo and writes back the cells that got closer.
// `local` is this warp's 32x33 scratch (padded against bank conflicts).
__device__ Notify tile_pass(const Grid& g, std::uint32_t tx, std::uint32_t ty, std::uint32_t target_x,
                            std::uint32_t target_y, std::uint32_t (*local)[33]) {
    const unsigned lane = threadIdx.x & 31;
    const std::uint32_t x0 = tx * 32, y0 = ty * 32;
    const std::uint32_t y = y0 + lane;
    const bool row_in = y < g.height;
    const std::uint32_t free = row_in ? __ldg(g.free_bits + std::size_t(y) * g.tiles_x + tx) : 0u;
    // Halo: lane r holds the left/right neighbours of row r; lane j the cells above/below column j.
    const std::uint32_t x = x0 + lane;
    const std::uint32_t left = row_in && x0 > 0 ? __ldcg(g.dist + std::size_t(y) * g.width + x0 - 1) : kInf;
    const std::uint32_t right =
        row_in && x0 + 32 < g.width ? __ldcg(g.dist + std::size_t(y) * g.width + x0 + 32) : kInf;
    const std::uint32_t top = y0 > 0 && x < g.width ? __ldcg(g.dist + std::size_t(y0 - 1) * g.width + x) : kInf;
    const std::uint32_t bottom =
        y0 + 32 < g.height && x < g.width ? __ldcg(g.dist + std::size_t(y0 + 32) * g.width + x) : kInf;
    const bool has_target = target_x >= x0 && target_x < x0 + 32 && target_y >= y0 && target_y < y0 + 32;
    const std::uint32_t target_bit = (has_target && lane == target_y - y0) ? 1u << (target_x - x0) : 0u;

    for (int c = 0; c < 32; ++c) local[lane][c] = kInf;

    // First level at which something can enter the tile.
    std::uint32_t level = has_target ? 0u : warp_min(min(min(left, right), min(top, bottom)));
    if (level == kInf) return {false, false, false, false};
    if (!has_target) level += 1;

    std::uint32_t settled = 0, frontier = 0;
    for (;;) {
        // Cells entering at `level`: neighbours of the last level, halo cells at level - 1,
        // and the target at level 0.
        const std::uint32_t up = __shfl_up_sync(0xFFFFFFFFu, frontier, 1);
        const std::uint32_t down = __shfl_down_sync(0xFFFFFFFFu, frontier, 1);
        std::uint32_t reach =
            frontier | (frontier << 1) | (frontier >> 1) | (lane > 0 ? up : 0u) | (lane < 31 ? down : 0u);
        // At level 0 only the target enters (level - 1 would wrap to kInf = "unreached").
        const bool seeding = level > 0;
        const std::uint32_t seed = level - 1;
        if (seeding && left == seed) reach |= 1u;
        if (seeding && right == seed) reach |= 0x80000000u;
        const std::uint32_t from_top = __ballot_sync(0xFFFFFFFFu, seeding && top == seed);
        const std::uint32_t from_bottom = __ballot_sync(0xFFFFFFFFu, seeding && bottom == seed);
        if (lane == 0) reach |= from_top;
        if (lane == 31) reach |= from_bottom;
        if (level == 0) reach |= target_bit;
        frontier = reach & free & ~settled;
        settled |= frontier;
        for (std::uint32_t bits = frontier; bits; bits &= bits - 1) local[lane][__ffs(bits) - 1] = level;
        if (__any_sync(0xFFFFFFFFu, frontier != 0)) {
            ++level;
            continue;
        }
        // Frontier died out: jump to the next halo seed, if any remains.
        const std::uint32_t next_seed =
            warp_min(min(min_at_least(left, right, level), min_at_least(top, bottom, level)));
        if (next_seed == kInf) break;
        level = next_seed + 1;
    }
    __syncwarp();

    // Write back cells that got closer (coalesced: lane = column). All 32 old values are
    // loaded before the first store so the loads overlap instead of paying one memory latency
    // per row. A lowered border cell notifies the neighbour when it beats, by more than the
    // step, the neighbour's adjacent cell as read at the start (it only decreases since).
    const bool column_in = x < g.width;
    std::uint32_t old[32];
#pragma unroll
    for (int r = 0; r < 32; ++r)
        old[r] = column_in && y0 + r < g.height ? __ldcg(g.dist + std::size_t(y0 + r) * g.width + x) : 0u;
    bool notify_left = false, notify_right = false, notify_up = false, notify_down = false;
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        const std::uint32_t fresh = local[r][lane];
        const std::uint32_t left_r = __shfl_sync(0xFFFFFFFFu, left, r);
        const std::uint32_t right_r = __shfl_sync(0xFFFFFFFFu, right, r);
        if (fresh < old[r]) {  // never true outside the map: old is 0 there
            __stcg(g.dist + std::size_t(y0 + r) * g.width + x, fresh);
            notify_left |= lane == 0 && fresh + 1 < left_r;
            notify_right |= lane == 31 && fresh + 1 < right_r;
            notify_up |= r == 0 && fresh + 1 < top;
            notify_down |= r == 31 && fresh + 1 < bottom;
        }
    }
    return {__any_sync(0xFFFFFFFFu, notify_left) != 0, __any_sync(0xFFFFFFFFu, notify_right) != 0,
            __any_sync(0xFFFFFFFFu, notify_up) != 0, __any_sync(0xFFFFFFFFu, notify_down) != 0};
}

// One instance per block size, so each keeps the registers it needs (104 at 256 threads;
// 1024-thread blocks are held to 64). Scratch: one Scratch per warp, dynamic shared memory.
template <int Threads>
__global__ void __launch_bounds__(Threads)
    tiled_bfs(Grid g, Schedule* s, std::uint32_t target_x, std::uint32_t target_y) {
    extern __shared__ Scratch scratch[];
    constexpr unsigned kWarps = Threads / 32;
    cg::grid_group grid = cg::this_grid();
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const unsigned global_warp = blockIdx.x * kWarps + warp;
    const unsigned warps = gridDim.x * kWarps;
    const std::uint32_t tiles = g.tiles_x * g.tiles_y;
    for (unsigned int round = 1;; ++round) {
        std::uint32_t* flags = s->flags[round & 1];
        std::uint32_t* next = s->flags[(round + 1) & 1];
        bool flagged_any = false;
        stamp_enter(g.stamps, g.stamp_cap, std::int32_t(round - 1));
        // Warp w takes tiles w, w + warps, ...: neighbouring tiles (one wavefront) go to
        // different warps. Each lane reads one flag, the warp walks the set ones.
        for (std::uint32_t base = 0; base < tiles; base += 32 * warps) {
            const std::uint32_t mine = base + lane * warps + global_warp;
            const bool flagged = mine < tiles && __ldcg(flags + mine) != 0;
            if (flagged) __stcg(flags + mine, 0u);
            for (unsigned pending = __ballot_sync(0xFFFFFFFFu, flagged); pending; pending &= pending - 1) {
                const std::uint32_t tile = base + std::uint32_t(__ffs(pending) - 1) * warps + global_warp;
                const std::uint32_t tx = tile % g.tiles_x, ty = tile / g.tiles_x;
                const Notify n = tile_pass(g, tx, ty, target_x, target_y, scratch[warp]);
                if (lane == 0) {
                    if (n.left && tx > 0) __stcg(next + tile - 1, 1u);
                    if (n.right && tx + 1 < g.tiles_x) __stcg(next + tile + 1, 1u);
                    if (n.up && ty > 0) __stcg(next + tile - g.tiles_x, 1u);
                    if (n.down && ty + 1 < g.tiles_y) __stcg(next + tile + g.tiles_x, 1u);
                    flagged_any |= n.left || n.right || n.up || n.down;
                    atomicAdd(&s->tile_passes, 1ull);
                }
            }
        }
        if (flagged_any) *static_cast<volatile unsigned int*>(&s->flagged_round) = round + 1;
        stamp_exit(g.stamps, g.stamp_cap, std::int32_t(round - 1));
        grid.sync();
        delay_block(g.delay, 0, round);
        if (*static_cast<volatile unsigned int*>(&s->flagged_round) < round + 1) {
            if (grid.thread_rank() == 0) s->rounds = round;
            return;
        }
    }
}

// stop_at: keep levels <= level(stop), as the level-synchronous variants would.
__global__ void cut_beyond(std::uint32_t* dist, std::size_t n, const std::uint32_t* stop_cell) {
    const std::uint32_t limit = *stop_cell;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        if (dist[i] != kInf && dist[i] > limit) dist[i] = kInf;
}

}  // namespace ps::gpu::tiled

namespace ps::gpu {

std::string tiled_unsupported(MoveRules rules) {
    // The kernel implements the 4-neighbour grid graph only (bit rows, one shift per side).
    if (rules.connectivity != Connectivity::Four) return "bfs.gpu.tiled supports 4-connected grids only";
    return {};
}

void run_tiled_bfs(const GridMap& map, Vertex target, Vertex stop_at, const BfsGpuOptions& options, BfsGpuOutput& out) {
    using Clock = std::chrono::steady_clock;
    using detail::check;
    const std::size_t n = map.cell_count();
    tiled::Grid g{};
    g.width = std::uint32_t(map.width());
    g.height = std::uint32_t(map.height());
    g.tiles_x = (g.width + 31) / 32;
    g.tiles_y = (g.height + 31) / 32;
    const std::size_t tiles = std::size_t(g.tiles_x) * g.tiles_y;
    const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;

    detail::Stream stream;
    detail::Event compute_start, compute_end;
    detail::PinnedValue<tiled::Schedule> host_schedule;

    nvtx::PhaseSequence phase;
    const auto t0 = Clock::now();
    phase.begin(nvtx::Phase::Allocate, "allocate");
    detail::DeviceBuffer<std::uint8_t> cells(n, "the map cells");
    detail::DeviceBuffer<std::uint32_t> free_bits(std::size_t(g.tiles_x) * g.height, "the map bit rows");
    detail::DeviceBuffer<std::uint32_t> dist(n, "the level array");
    detail::DeviceBuffer<std::uint32_t> flags_even(tiles, "the tile flags"), flags_odd(tiles, "the tile flags");
    detail::DeviceBuffer<tiled::Schedule> schedule(1, "the tile schedule");
    detail::LevelStamps stamps;  // one per round
    if (options.stamp_levels) stamps.allocate(detail::kMaxStampedLevels, stream);
    const void* kernel = nullptr;
    switch (options.block_size) {
    case 128:
        kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<128>);
        break;
    case 256:
        kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<256>);
        break;
    case 512:
        kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<512>);
        break;
    case 1024:
        kernel = reinterpret_cast<const void*>(tiled::tiled_bfs<1024>);
        break;
    default:
        throw detail::CudaError("block_size must be 128, 256, 512 or 1024, got " + std::to_string(options.block_size));
    }
    const std::size_t scratch = std::size_t(options.block_size / 32) * sizeof(tiled::Scratch);
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(scratch)),
          "allowing the tiled kernel its shared memory");
    int per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, options.block_size, scratch),
          "querying occupancy for the tiled kernel");
    if (per_sm < 1)
        throw detail::CudaError("the tiled BFS kernel does not fit on this GPU with " +
                                std::to_string(options.block_size) + "-thread blocks");
    stream.sync("allocating");
    const auto t1 = Clock::now();
    phase.begin(nvtx::Phase::Upload, "upload");

    check(cudaMemcpyAsync(cells.get(), map.cells().data(), n, cudaMemcpyHostToDevice, stream), "uploading the map");
    g.free_bits = free_bits.get();
    g.dist = dist.get();
    g.stamps = stamps.get();
    g.stamp_cap = stamps.cap();
    g.delay = options.test_delay;
    tiled::pack_free_bits<<<unsigned((std::size_t(g.tiles_x) * g.height + 255) / 256), 256, 0, stream>>>(
        cells.get(), g, free_bits.get());
    check(cudaGetLastError(), "packing the map into bit rows");
    ++out.host_launches;
    check(cudaMemsetAsync(dist.get(), 0xFF, n * 4, stream), "clearing the levels");
    check(cudaMemsetAsync(flags_even.get(), 0, tiles * 4, stream), "clearing the tile flags");
    check(cudaMemsetAsync(flags_odd.get(), 0, tiles * 4, stream), "clearing the tile flags");
    const Cell t = map.cell(target);
    const std::uint32_t target_tile = std::uint32_t(t.y / 32) * g.tiles_x + std::uint32_t(t.x / 32);
    tiled::Schedule init{};
    init.flags[0] = flags_even.get();
    init.flags[1] = flags_odd.get();
    *host_schedule = init;
    check(cudaMemcpyAsync(schedule.get(), host_schedule.get(), sizeof init, cudaMemcpyHostToDevice, stream),
          "uploading the tile schedule");
    // Round 1 processes the target's tile.
    check(cudaMemsetAsync(flags_odd.get() + target_tile, 0x01, 1, stream), "seeding the tile flags");
    stream.sync("uploading");
    const auto t2 = Clock::now();
    phase.begin(nvtx::Phase::Compute, "compute");

    compute_start.record(stream);
    // One block per SM: a cheap grid barrier; the block size sets the warps (tiles in flight).
    std::uint32_t tx = std::uint32_t(t.x), ty = std::uint32_t(t.y);
    tiled::Schedule* sched = schedule.get();
    void* args[] = {&g, &sched, &tx, &ty};
    check(cudaLaunchCooperativeKernel(kernel, dim3(unsigned(sms)), dim3(unsigned(options.block_size)), args, scratch,
                                      stream),
          "launching the tiled BFS kernel");
    ++out.host_launches;
    if (stop_at != kNoVertex) {
        tiled::cut_beyond<<<unsigned(sms) * 4, 256, 0, stream>>>(dist.get(), n, dist.get() + stop_at);
        check(cudaGetLastError(), "launching the stop-at-start cut");
        ++out.host_launches;
    }
    compute_end.record(stream);
    check(cudaMemcpyAsync(host_schedule.get(), schedule.get(), sizeof(tiled::Schedule), cudaMemcpyDeviceToHost, stream),
          "reading the tile schedule");
    stream.sync("running the tiled BFS");
    const auto t3 = Clock::now();
    phase.begin(nvtx::Phase::Download, "download");

    out.levels.resize(n);
    check(cudaMemcpyAsync(out.levels.data(), dist.get(), n * 4, cudaMemcpyDeviceToHost, stream),
          "downloading the levels");
    stream.sync("downloading the levels");
    const auto t4 = Clock::now();
    phase.end();

    const Clock::time_point boundaries[5] = {t0, t1, t2, t3, t4};
    detail::set_phase_times(out, boundaries);
    out.gpu_compute_ms = compute_end.ms_since(compute_start);
    out.global_steps = host_schedule->rounds;
    out.block_size = options.block_size;
    out.device_launches = 0;
    std::int32_t depth = 0;
    for (std::int32_t l : out.levels) depth = std::max(depth, l + 1);
    out.depth = depth;
    if (options.stamp_levels) out.level_stamps = stamps.download(host_schedule->rounds, stream);
}

}  // namespace ps::gpu
