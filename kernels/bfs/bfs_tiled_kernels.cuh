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
//
// Device code, included by bfs_gpu_tiled.cu alone (the kernels are defined here, once), the host
// driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gpu/cuda_util.cuh"

namespace ps::gpu::tiled {

namespace cg = cooperative_groups;

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
