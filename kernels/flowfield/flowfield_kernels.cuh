// flowfield.gpu: the distance field from a goal over the whole grid, in the integer metric
// (BFS levels on plain 4-connected maps, otherwise 1000/1414 weighted by the cells' costs), and
// a direction per cell. In the spirit of bfs.gpu.tiled: the grid is cut into 32x32 tiles, one
// warp relaxes a tile in shared memory (its cells plus a one-cell halo) with Gauss-Seidel sweeps
// in four directions until a sweep changes nothing, then writes back the cells that got closer
// and flags the (up to eight) neighbour tiles whose cells a lowered border cell can now improve.
// Distances only decrease and are upper bounds throughout, and every step costs more than 0, so
// repeating passes on flagged tiles reaches the unique fixed point d(v) = min over legal steps
// (d(w) + cost(v, w)): the exact shortest distances, equal to the CPU's bit for bit. That holds
// for any positive step costs, so weighted terrain only changes what a step costs:
// (cost(v) + cost(w)) * 500 orthogonal, * 707 diagonal. A persistent cooperative kernel runs
// the rounds (flagged tiles, one grid barrier); a second kernel picks the directions with
// flowfield.hpp's rule.
//
// Both kernels are templates on Weighted. The plain instantiation is the original code (step
// costs are constants of the grid, 8 warps per block). The weighted one also keeps the tile's
// cell costs with their halo in shared memory (0 outside the map, never read: no legal step
// leads there); that tile does not fit beside 8 warps' distances under the 48 KB static limit,
// so it runs 4 warps per block (4 x 7040 B = 27.5 KB) and up to four blocks per SM (on an H100
// registers allow three: 12 warps, where the plain kernel's 135 registers allow one 8-warp block).
//
// Device code, included by flowfield_gpu.cu alone (the kernels are defined here, once), the host
// driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/gpu/cuda_util.cuh"
#include "kernels/search/grid_costs.cuh"

namespace ps::gpu::flow {

namespace cg = cooperative_groups;

inline constexpr std::uint32_t kInf = 0xFFFFFFFFu;      // reads back as distance -1
inline constexpr std::uint32_t kMaxDist = 0x7FFFFFFFu;  // distances must fit int32
// Warps per block of the tile kernel's instantiation; blocks per SM are capped so that both
// keep at most kWarpsPerSm warps on an SM (wide enough wavefronts, a cheap grid barrier).
template <bool Weighted>
inline constexpr int kWarpsPerBlock = Weighted ? 4 : 8;
inline constexpr int kWarpsPerSm = 16;
inline constexpr int kPitch = 35;      // 34 halo'd columns + 1: lanes walking a column hit distinct banks
inline constexpr int kCostPitch = 36;  // bytes: 9 words a row (odd), so a column's bytes lie in distinct banks
inline constexpr std::uint8_t kNone = 255;
inline constexpr unsigned kFull = 0xFFFFFFFFu;

// flowfield.hpp's direction table: E, W, S, N, SE, SW, NE, NW (folded to constants when unrolled).
__device__ __forceinline__ int step_dx(int k) { return (k == 0 || k == 4 || k == 6) ? 1 : (k == 2 || k == 3) ? 0 : -1; }
__device__ __forceinline__ int step_dy(int k) { return k < 2 ? 0 : (k == 2 || k == 4 || k == 5) ? 1 : -1; }

struct Grid {
    std::uint32_t width, height;
    std::uint32_t tiles_x, tiles_y;
    const std::uint8_t* moves;     // per cell: bit k = the step in direction k is legal
    std::uint32_t* dist;           // per cell, kInf = unreached
    std::uint32_t orth, diag;      // step costs (plain), or the cost per unit of the two cells' sum (weighted)
    std::uint32_t goal_x, goal_y;  // seeded at 0 by its tile's first pass, so that pass notifies
    unsigned long long* stamps;
    std::uint32_t stamp_cap;
    BlockDelay delay;  // test-only
    // Last, so that the plain instantiation sees the other fields where it always did.
    const std::uint8_t* cells;  // per cell, its cost (read by the weighted instantiation only)
};

struct Schedule {
    // Per tile: relax it in the next odd / even round (the reader clears its flag).
    std::uint32_t* flags[2];
    // The last round for which some tile was flagged: round r flags work by writing r + 1;
    // after round r's barrier everybody stops unless it reads r + 1 (or r + 2, from a fast
    // block already in round r + 1). One monotone word, no reset race.
    unsigned int flagged_round;
    unsigned int rounds;
    unsigned int overflow;
    unsigned long long tile_passes;
    unsigned long long sweep_iterations;  // 32-step sweeps, summed over tile passes
    unsigned long long cycles[3];         // SM clock cycles in load, sweeps, write-back (lane 0)
};

struct Scratch {
    std::uint32_t d[34][kPitch];  // rows y0-1 .. y0+32, columns x0-1 .. x0+32
    std::uint8_t m[32][33];       // legal-step masks of the tile's own cells
};

struct WeightedScratch : Scratch {
    std::uint8_t c[34][kCostPitch];  // cell costs, laid out as d (0 outside the map)
};

template <bool Weighted>
using ScratchOf = std::conditional_t<Weighted, WeightedScratch, Scratch>;
static_assert(sizeof(ScratchOf<false>) * kWarpsPerBlock<false> <= 48 * 1024, "static shared memory");
static_assert(sizeof(ScratchOf<true>) * kWarpsPerBlock<true> <= 48 * 1024, "static shared memory");

// Legal-step masks with the same rules as for_each_grid_neighbour.
__global__ void move_masks(const std::uint8_t* cells, std::uint32_t width, std::uint32_t height, bool eight,
                           std::uint8_t corner, std::uint8_t* moves) {
    const std::size_t n = std::size_t(width) * height;
    for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < n;
         v += std::size_t(gridDim.x) * blockDim.x) {
        if (!cells[v]) {
            moves[v] = 0;
            continue;
        }
        const long long x = (long long)(v % width), y = (long long)(v / width);
        auto free = [&](int dx, int dy) {
            const long long nx = x + dx, ny = y + dy;
            return nx >= 0 && ny >= 0 && nx < width && ny < height && cells[std::size_t(ny) * width + nx] != 0;
        };
        const bool e = free(1, 0), w = free(-1, 0), s = free(0, 1), n_ = free(0, -1);
        unsigned mask = (e ? 1u : 0u) | (w ? 2u : 0u) | (s ? 4u : 0u) | (n_ ? 8u : 0u);
        if (eight) {
            using grid_astar::corner_rule_allows;  // corner: a CornerRule's value
            if (corner_rule_allows(corner, e, s) && free(1, 1)) mask |= 16u;
            if (corner_rule_allows(corner, w, s) && free(-1, 1)) mask |= 32u;
            if (corner_rule_allows(corner, e, n_) && free(1, -1)) mask |= 64u;
            if (corner_rule_allows(corner, w, n_) && free(-1, -1)) mask |= 128u;
        }
        moves[v] = std::uint8_t(mask);
    }
}

// Cell (r, c) of the tile's best neighbour + step, into `best`; true when that is lower.
// Branch-free over the eight neighbours (all nine loads are independent): a step that is not
// legal, or a neighbour not reached, offers kInf.
// `mask` is the cell's legal-step mask (kept in registers: off the step's critical path).
template <bool Weighted>
__device__ __forceinline__ bool lower_value(const Grid& g, const ScratchOf<Weighted>& s, int r, int c, unsigned mask,
                                            std::uint32_t& best, bool& overflow) {
    if (!mask) return false;
    const std::uint32_t here = s.d[r + 1][c + 1];
    const std::uint32_t nb[8] = {s.d[r + 1][c + 2], s.d[r + 1][c], s.d[r + 2][c + 1], s.d[r][c + 1],
                                 s.d[r + 2][c + 2], s.d[r + 2][c], s.d[r][c + 2],     s.d[r][c]};
    std::uint32_t step[8];
    if constexpr (Weighted) {
        // The same neighbour order as nb; a step costs (own + neighbour) * half, at most 510 * 707.
        const std::uint32_t own = s.c[r + 1][c + 1];
        const std::uint32_t nc[8] = {s.c[r + 1][c + 2], s.c[r + 1][c], s.c[r + 2][c + 1], s.c[r][c + 1],
                                     s.c[r + 2][c + 2], s.c[r + 2][c], s.c[r][c + 2],     s.c[r][c]};
#pragma unroll
        for (int k = 0; k < 8; ++k) step[k] = (own + nc[k]) * (k < 4 ? g.orth : g.diag);
    } else {
#pragma unroll
        for (int k = 0; k < 8; ++k) step[k] = k < 4 ? g.orth : g.diag;
    }
    std::uint32_t offer[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const std::uint32_t cost = step[k];
        // kInf stays kInf (kInf - cost + cost); reached values are <= kMaxDist, so no wrap.
        offer[k] = (mask >> k) & 1u ? min(nb[k], kInf - cost) + cost : kInf;
    }
    // A tree, not a chain: three dependent minimums instead of eight.
    best = min(min(min(offer[0], offer[1]), min(offer[2], offer[3])),
               min(min(offer[4], offer[5]), min(offer[6], offer[7])));
    if (best >= here) return false;
    if (best > kMaxDist) {
        overflow = true;
        return false;
    }
    return true;
}

// Pulls cell (r, c) of the tile down to its best neighbour + step; true when it got lower. Every
// lane of the warp calls it at once: the lanes' reads of a step come before any lane's write
// (a row's lanes read each other's cells), so each step is a Jacobi step along the row.
template <bool Weighted>
__device__ __forceinline__ bool relax(const Grid& g, ScratchOf<Weighted>& s, int r, int c, unsigned mask,
                                      bool& overflow) {
    std::uint32_t best = 0;
    const bool lower = lower_value<Weighted>(g, s, r, c, mask, best, overflow);
    __syncwarp();
    if (lower) s.d[r + 1][c + 1] = best;
    return lower;
}

// One warp relaxes tile (tx, ty) to its local fixed point and writes back what got closer.
// Returns the neighbour tiles to flag: bit (dy + 1) * 3 + (dx + 1).
template <bool Weighted>
__device__ __forceinline__ unsigned tile_pass(const Grid& g, Schedule* sched, std::uint32_t tx, std::uint32_t ty,
                                              ScratchOf<Weighted>& s) {
    const int lane = int(threadIdx.x & 31);
    const long long c0 = clock64();
    const long long x0 = (long long)tx * 32, y0 = (long long)ty * 32;
    const long long w = g.width, h = g.height;
#pragma unroll 2
    for (int rr = 0; rr < 34; ++rr) {
        const long long y = y0 - 1 + rr;
        const bool row_in = y >= 0 && y < h;
        const long long x = x0 - 1 + lane;
        s.d[rr][lane] = row_in && x >= 0 && x < w ? __ldcg(g.dist + std::size_t(y * w + x)) : kInf;
        if (lane < 2) {
            const long long xr = x0 + 31 + lane;
            s.d[rr][32 + lane] = row_in && xr < w ? __ldcg(g.dist + std::size_t(y * w + xr)) : kInf;
        }
    }
    for (int r = 0; r < 32; ++r) {
        const long long y = y0 + r, x = x0 + lane;
        s.m[r][lane] = y < h && x < w ? __ldg(g.moves + std::size_t(y * w + x)) : std::uint8_t(0);
    }
    if constexpr (Weighted) {
        // The costs with their halo, as the distances above.
#pragma unroll 2
        for (int rr = 0; rr < 34; ++rr) {
            const long long y = y0 - 1 + rr;
            const bool row_in = y >= 0 && y < h;
            const long long x = x0 - 1 + lane;
            s.c[rr][lane] = row_in && x >= 0 && x < w ? __ldg(g.cells + std::size_t(y * w + x)) : std::uint8_t(0);
            if (lane < 2) {
                const long long xr = x0 + 31 + lane;
                s.c[rr][32 + lane] = row_in && xr < w ? __ldg(g.cells + std::size_t(y * w + xr)) : std::uint8_t(0);
            }
        }
    }
    // The goal enters here rather than through the initial array: a goal whose tile has no
    // other cell to lower (a 1x1 edge tile) must still notify its neighbours. After the lanes'
    // loads above, one of which wrote the goal's cell.
    __syncwarp();
    if (lane == 0 && g.goal_x >= x0 && g.goal_x < x0 + 32 && g.goal_y >= y0 && g.goal_y < y0 + 32)
        s.d[g.goal_y - y0 + 1][g.goal_x - x0 + 1] = 0;
    __syncwarp();

    // Sweeps down, up, right, left, down, ...: a distance travels any monotone run in one
    // sweep. A sweep relaxes every cell against all eight neighbours, so the first sweep that
    // changes nothing proves the tile is at its fixed point. A step's lanes read before any of
    // them writes (relax), so a lane reads its row neighbours' values of the step before.
    const long long c1 = clock64();
    // The masks this lane needs, four per word: its column (row sweeps), its row (column sweeps).
    std::uint32_t column_masks[8], row_masks[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) {
        column_masks[q] = 0;
        row_masks[q] = 0;
#pragma unroll
        for (int b = 0; b < 4; ++b) {
            column_masks[q] |= std::uint32_t(s.m[4 * q + b][lane]) << (8 * b);
            row_masks[q] |= std::uint32_t(s.m[lane][4 * q + b]) << (8 * b);
        }
    }
    auto mask_of = [](const std::uint32_t(&masks)[8], int i) { return (masks[i >> 2] >> (8 * (i & 3))) & 0xFFu; };
    bool overflow = false;
    unsigned iterations = 0;
    for (int sweep = 0;; sweep = (sweep + 1) & 3) {
        ++iterations;
        bool changed = false;
        // Unrolled, so that the mask registers are indexed by constants.
        if (sweep == 0) {
#pragma unroll
            for (int r = 0; r < 32; ++r) {
                changed |= relax<Weighted>(g, s, r, lane, mask_of(column_masks, r), overflow);
                __syncwarp();
            }
        } else if (sweep == 1) {
#pragma unroll
            for (int r = 31; r >= 0; --r) {
                changed |= relax<Weighted>(g, s, r, lane, mask_of(column_masks, r), overflow);
                __syncwarp();
            }
        } else if (sweep == 2) {
#pragma unroll
            for (int c = 0; c < 32; ++c) {
                changed |= relax<Weighted>(g, s, lane, c, mask_of(row_masks, c), overflow);
                __syncwarp();
            }
        } else {
#pragma unroll
            for (int c = 31; c >= 0; --c) {
                changed |= relax<Weighted>(g, s, lane, c, mask_of(row_masks, c), overflow);
                __syncwarp();
            }
        }
        if (!__any_sync(kFull, changed)) break;
    }
    if (__any_sync(kFull, overflow) && lane == 0) atomicExch(&sched->overflow, 1u);
    const long long c2 = clock64();

    // Write back (lane = column, coalesced); old values are loaded first so the loads overlap.
    // A lowered border cell flags the tile across a legal step when it beats the value there
    // as read at the start (halo values only decrease since, so this never misses work).
    const long long x = x0 + lane;
    std::uint32_t old[32];
#pragma unroll
    for (int r = 0; r < 32; ++r) old[r] = x < w && y0 + r < h ? __ldcg(g.dist + std::size_t((y0 + r) * w + x)) : 0u;
    unsigned notify = 0;
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        const std::uint32_t fresh = s.d[r + 1][lane + 1];
        if (fresh >= old[r]) continue;  // never true outside the map: old is 0 there
        __stcg(g.dist + std::size_t((y0 + r) * w + x), fresh);
        if (r != 0 && r != 31 && lane != 0 && lane != 31) continue;
        const unsigned mask = s.m[r][lane];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            if (!(mask & (1u << k))) continue;
            const int nr = r + step_dy(k), nc = lane + step_dx(k);
            if (nr >= 0 && nr < 32 && nc >= 0 && nc < 32) continue;
            std::uint32_t cost = k < 4 ? g.orth : g.diag;
            if constexpr (Weighted) cost *= std::uint32_t(s.c[r + 1][lane + 1]) + s.c[nr + 1][nc + 1];
            if (fresh + cost < s.d[nr + 1][nc + 1])
                notify |= 1u << ((nr < 0 ? 0 : nr > 31 ? 2 : 1) * 3 + (nc < 0 ? 0 : nc > 31 ? 2 : 1));
        }
    }
    notify = __reduce_or_sync(kFull, notify);
    if (lane == 0) {
        const long long c3 = clock64();
        atomicAdd(&sched->sweep_iterations, (unsigned long long)iterations);
        atomicAdd(&sched->cycles[0], (unsigned long long)(c1 - c0));
        atomicAdd(&sched->cycles[1], (unsigned long long)(c2 - c1));
        atomicAdd(&sched->cycles[2], (unsigned long long)(c3 - c2));
    }
    return notify;
}

template <bool Weighted>
__global__ void __launch_bounds__(kWarpsPerBlock<Weighted> * 32) flow_tiles(Grid g, Schedule* s) {
    constexpr int kWarps = kWarpsPerBlock<Weighted>;
    __shared__ ScratchOf<Weighted> scratch[kWarps];
    cg::grid_group grid = cg::this_grid();
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const unsigned global_warp = blockIdx.x * kWarps + warp;
    const unsigned warps = gridDim.x * kWarps;
    const std::uint32_t tiles = g.tiles_x * g.tiles_y;
    volatile unsigned int* flagged_round = &s->flagged_round;
    for (unsigned int round = 1;; ++round) {
        std::uint32_t* flags = s->flags[round & 1];
        std::uint32_t* next = s->flags[(round + 1) & 1];
        bool flagged_any = false;
        stamp_enter(g.stamps, g.stamp_cap, std::int32_t(round - 1));
        // Warp w takes tiles w, w + warps, ...: neighbouring tiles go to different warps.
        for (std::uint32_t base = 0; base < tiles; base += 32 * warps) {
            const std::uint32_t mine = base + lane * warps + global_warp;
            const bool flagged = mine < tiles && __ldcg(flags + mine) != 0;
            if (flagged) __stcg(flags + mine, 0u);
            for (unsigned pending = __ballot_sync(kFull, flagged); pending; pending &= pending - 1) {
                const std::uint32_t tile = base + std::uint32_t(__ffs(pending) - 1) * warps + global_warp;
                const std::uint32_t tx = tile % g.tiles_x, ty = tile / g.tiles_x;
                const unsigned notify = tile_pass<Weighted>(g, s, tx, ty, scratch[warp]);
                if (lane == 0) {
                    for (unsigned bits = notify; bits; bits &= bits - 1) {
                        const int b = __ffs(bits) - 1;
                        const long long nx = (long long)tx + b % 3 - 1, ny = (long long)ty + b / 3 - 1;
                        if (nx < 0 || ny < 0 || nx >= g.tiles_x || ny >= g.tiles_y) continue;
                        __stcg(next + std::size_t(ny) * g.tiles_x + std::size_t(nx), 1u);
                        flagged_any = true;
                    }
                    atomicAdd(&s->tile_passes, 1ull);
                }
            }
        }
        if (flagged_any) *flagged_round = round + 1;
        stamp_exit(g.stamps, g.stamp_cap, std::int32_t(round - 1));
        grid.sync();
        delay_block(g.delay, 0, round);
        if (*flagged_round < round + 1) {
            if (grid.thread_rank() == 0) s->rounds = round;
            return;
        }
    }
}

// flowfield.hpp's rule: the first legal direction whose neighbour is exactly one step closer.
// `cells` (the costs; last, as in Grid) is read by the weighted instantiation only.
template <bool Weighted>
__global__ void directions(const std::uint8_t* moves, const std::uint32_t* dist, std::uint32_t width, std::size_t n,
                           std::uint32_t orth, std::uint32_t diag, std::uint8_t* dirs, const std::uint8_t* cells) {
    for (std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; v < n;
         v += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint32_t d = dist[v];
        std::uint8_t dir = kNone;
        if (d != 0 && d != kInf) {
            const unsigned mask = moves[v];
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                if (!(mask & (1u << k))) continue;
                const std::size_t w = std::size_t((long long)v + (long long)step_dy(k) * width + step_dx(k));
                const std::uint32_t nd = __ldg(dist + w);
                std::uint32_t cost = k < 4 ? orth : diag;
                if constexpr (Weighted) cost *= std::uint32_t(__ldg(cells + v)) + __ldg(cells + w);
                if (nd != kInf && nd + cost == d) {
                    dir = std::uint8_t(k);
                    break;
                }
            }
        }
        dirs[v] = dir;
    }
}

}  // namespace ps::gpu::flow
