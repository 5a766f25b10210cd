// Tile A* in one thread block (kernels/astar/tile/tile_astar_gpu.hpp says why it is exact).
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/astar/tile/tile_astar_gpu.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_run.cuh"
#include "kernels/search/grid_costs.cuh"

namespace ps::gpu {
namespace {

using grid_astar::corner_rule_allows;
using grid_astar::direction_of;
using grid_astar::heuristic;
using grid_astar::IntegerMetric;
using grid_astar::move_dx;
using grid_astar::move_dy;
using grid_astar::pack;
using grid_astar::RealMetric;

constexpr unsigned long long kInf = ~0ull;
// A tile's key: its lowest f less the start's h (no f is below it: the heuristic is consistent),
// in 32 bits, saturated at kTopKey (a lower bound still); kNoKey: the tile is not open.
constexpr std::uint32_t kNoKey = 0xFFFFFFFFu, kTopKey = 0xFFFFFFFEu;
__device__ __forceinline__ std::uint32_t key_of(unsigned long long f, unsigned long long fbase) {
    const unsigned long long d = f > fbase ? f - fbase : 0;
    return d > kTopKey ? kTopKey : std::uint32_t(d);
}
// Unreached in a warp's window: far above any g (at most 65535^2 diagonal steps, below 2^48),
// so that adding a step never wraps and never wins.
constexpr unsigned long long kFar = 1ull << 62;
constexpr int kSide = 8;         // a tile's cells a side
constexpr int kWin = kSide + 2;  // the window a warp loads: the tile and the ring around it
constexpr int kWinCells = kWin * kWin;
constexpr unsigned kMaxWarps = 32;
constexpr unsigned kMaxSelected = 128;  // tiles an iteration takes at most
constexpr unsigned kFull = 0xFFFFFFFFu;
// The adapting band (TileAStarOptions::band < 0), in orthogonal steps: where it starts, its floor.
constexpr int kBandStart = 8, kBandMin = 1;
enum Status : std::uint32_t { kDone = 0, kBrokenWalk = 1 };

struct TileOut {
    unsigned long long g;  // the goal's (kInf: unreachable)
    unsigned long long lowered, tiles, iterations, sweeps, band_steps;
    std::uint32_t status, path_points, open_peak;
    TileCycles cycles;
    std::uint32_t done;  // raised last (publish_result)
};

struct TileLaunch {
    const std::uint32_t* bits;  // GridBits: bit x & 31 of bits[y * stride + x / 32], set: passable
    int stride, width, height, tiles_x, tiles_y;
    unsigned long long* vals;  // per cell: g << 3 | arrival move; kInf: not reached
    std::uint32_t* keys;       // per tile, when not on chip (else dynamic shared memory)
    std::uint32_t* open;       // two lists of tiles entries, when not on chip
    bool meta_on_chip, eight;
    int corner;  // a CornerRule
    int sx, sy, gx, gy;
    unsigned long long band, band_min, band_max, unit;  // in the metric's units; band_min < band_max: adapting
    int tiles_per_warp;
    std::uint32_t* path;  // goal first, packed cells; null: no path wanted
    std::uint32_t path_cap;
    TileOut* out;
    BlockDelay delay;
    std::uint32_t narrow_span;  // kNarrowSpan; 0: every window wide (test-only)
};

// Loads of what other warps of the block write with atomics and plain stores between barriers,
// past L1 (a generic address: the keys and the open list are in shared or global memory).
template <class T>
__device__ __forceinline__ T fresh(const T* p) {
    return *static_cast<const volatile T*>(p);
}

template <class V>
__device__ __forceinline__ V warp_min(V v) {
    for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o));
    return v;
}
template <class V>
__device__ __forceinline__ V warp_max(V v) {
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(kFull, v, o));
    return v;
}

// A warp's window: g of the tile and its ring (far: blocked, off the map or not reached), and
// which cells are passable, and the arrival move of each tile cell a relaxation lowered. Narrow
// (where the window's values span less than 2^27): 32 bits, g above the window's lowest times 8,
// so that a move's candidate carries the move in its low bits (`g + (step << 3 | d)`) and the
// best of a cell's moves is one min each (the relaxation's adds, compares and selects at a third
// of the instructions); else wide: 64 bits, g itself.
struct Window {
    union {
        unsigned long long wide[kWinCells];
        std::uint32_t narrow[kWinCells];
    } g;
    unsigned char free[kWinCells];
    unsigned char move[kSide * kSide];
};
// Narrow values are below 2^30; far is above any of them plus a step, and far plus a step fits.
constexpr std::uint32_t kFar32 = 0x7FFFFFF8u;
constexpr std::uint32_t kNarrowSpan = 1u << 27;
// Bits a window value is shifted by: the narrow form keeps the arrival move below g.
template <class T>
constexpr int kShift = sizeof(T) == 4 ? 3 : 0;

// The legal moves into tile cell (cx, cy) of the window, as a mask of moves d: from
// (cx - dx, cy - dy) to it. Moves are symmetric under every corner rule, and a diagonal's corner
// cells lie between its two ends, so inside the window.
__device__ __forceinline__ unsigned moves_into(const Window& w, int cx, int cy, bool eight, int corner) {
    if (!w.free[cy * kWin + cx]) return 0;
    unsigned mask = 0;
#pragma unroll
    for (int d = 0; d < 8; ++d) {
        const int px = cx - move_dx(d), py = cy - move_dy(d);
        bool ok = (d < 4 || eight) && w.free[py * kWin + px];
        if (d >= 4) {
            const bool a = w.free[py * kWin + cx], b = w.free[cy * kWin + px];
            ok = ok && corner_rule_allows(corner, a, b);
        }
        mask |= unsigned(ok) << d;
    }
    return mask;
}

// The best of tile cell c's moves in `mask` from the window's values `g`: g and the move (8:
// none better than `best`). Every move unrolled, its offset a constant, predicated on the mask.
template <class Metric, class T>
__device__ __forceinline__ int best_move(const T* g, int c, unsigned mask, T& best) {
    int arg = 8;
#pragma unroll
    for (int d = 0; d < 8; ++d) {
        const T v = g[c - (move_dy(d) * kWin + move_dx(d))] + T(d < 4 ? Metric::orth : Metric::diag);
        if (((mask >> d) & 1u) && v < best) {
            best = v;
            arg = d;
        }
    }
    return arg;
}

// The narrow form's best of tile cell c's moves from the window, `best` included: a candidate is
// `g + (step << 3 | d)`, so the min carries its move d in the low bits (ties go to the lower d,
// and a value equal to `best` never counts as lower: best's low bits are 0). Orthogonal moves
// need no test (a blocked or unreached neighbour is far); diagonals are predicated on `mask`.
template <class Metric>
__device__ __forceinline__ std::uint32_t best_packed(const std::uint32_t* g, int c, unsigned mask, std::uint32_t best) {
#pragma unroll
    for (int d = 0; d < 8; ++d) {
        const std::uint32_t step = std::uint32_t(d < 4 ? Metric::orth : Metric::diag) << 3 | unsigned(d);
        const std::uint32_t v = g[c - (move_dy(d) * kWin + move_dx(d))] + step;
        if (d < 4 || ((mask >> d) & 1u)) best = min(best, v);
    }
    return best;
}

// What a warp's tile pushes into: the tiles' keys, the next open list and its count.
struct Pushes {
    std::uint32_t* keys;
    std::uint32_t* next;
    std::uint32_t* count;
    std::uint32_t* min_key;    // the next list's lowest key
    unsigned long long* goal;  // the goal's g, beside its value
    unsigned long long fbase;  // the start's h (key_of)
};

// One tile, its window loaded as T above `base`: relaxes the tile's cells until none is lowered,
// writes the lowered ones back, and pushes the ring's cells the tile lowers (their values, their
// tiles' keys, the open list). Adds the cells lowered to `lowered` and the relaxation's rounds
// to `sweeps`.
template <class Metric, class T>
__device__ void settle(Window& W, T* g, unsigned long long base, const TileLaunch& L, int lane, int x0, int y0,
                       const Pushes& P, unsigned long long& lowered, unsigned long long& sweeps, TileCycles& cycles,
                       std::uint64_t step) {
    long long t0 = clock64();
    // A lane's two tile cells: column lane % 8, rows 2 (lane / 8) and the one below. A round
    // relaxes them one after the other, down in even rounds and up in odd ones, the second from
    // the first's new value too, so a run along a column moves two cells a round.
    const int cx = 1 + (lane & 7), cy0 = 1 + 2 * (lane >> 3), cy1 = cy0 + 1;
    const int c0 = cy0 * kWin + cx, c1 = cy1 * kWin + cx;
    const unsigned m0 = moves_into(W, cx, cy0, L.eight, L.corner);
    const unsigned m1 = moves_into(W, cx, cy1, L.eight, L.corner);
    constexpr int kDown = 2, kUp = 3;  // the moves from c0 into c1 and from c1 into c0
    const T o0 = g[c0], o1 = g[c1];
    bool changed;
    bool down = true;
    // The steps in the window's form.
    constexpr int S = kShift<T>;
    constexpr T kOrth = T(Metric::orth) << S;
    constexpr T kDiag = T(Metric::diag) << S;
    if constexpr (S == 3) {
        // Narrow: a lowered cell's new value is its best candidate less the move in the low bits.
        const bool free0 = W.free[c0], free1 = W.free[c1];
        do {
            const T cur0 = g[c0], cur1 = g[c1];
            T b0, b1;
            if (down) {
                b0 = best_packed<Metric>(g, c0, m0, cur0);
                b1 = best_packed<Metric>(g, c1, m1, cur1);
                if (free0) b1 = min(b1, (b0 & ~7u) + (kOrth | unsigned(kDown)));
            } else {
                b1 = best_packed<Metric>(g, c1, m1, cur1);
                b0 = best_packed<Metric>(g, c0, m0, cur0);
                if (free1) b0 = min(b0, (b1 & ~7u) + (kOrth | unsigned(kUp)));
            }
            const bool l0 = free0 && b0 < cur0, l1 = free1 && b1 < cur1;
            __syncwarp();
            if (l0) {
                g[c0] = b0 & ~7u;
                W.move[(cy0 - 1) * kSide + cx - 1] = std::uint8_t(b0 & 7u);
            }
            if (l1) {
                g[c1] = b1 & ~7u;
                W.move[(cy1 - 1) * kSide + cx - 1] = std::uint8_t(b1 & 7u);
            }
            changed = __any_sync(kFull, l0 || l1);
            __syncwarp();
            down = !down;
            ++sweeps;
        } while (changed);
    } else {
        do {  // rounds of reads, then writes, until no cell of the tile is lowered
            T b0 = g[c0], b1 = g[c1];
            int d0, d1;
            if (down) {
                d0 = best_move<Metric, T>(g, c0, m0, b0);
                d1 = best_move<Metric, T>(g, c1, m1, b1);
                if (((m1 >> kDown) & 1u) && b0 + kOrth < b1) {
                    b1 = b0 + kOrth;
                    d1 = kDown;
                }
            } else {
                d1 = best_move<Metric, T>(g, c1, m1, b1);
                d0 = best_move<Metric, T>(g, c0, m0, b0);
                if (((m0 >> kUp) & 1u) && b1 + kOrth < b0) {
                    b0 = b1 + kOrth;
                    d0 = kUp;
                }
            }
            __syncwarp();
            if (d0 < 8) {
                g[c0] = b0;
                W.move[(cy0 - 1) * kSide + cx - 1] = std::uint8_t(d0);
            }
            if (d1 < 8) {
                g[c1] = b1;
                W.move[(cy1 - 1) * kSide + cx - 1] = std::uint8_t(d1);
            }
            changed = __any_sync(kFull, d0 < 8 || d1 < 8);
            __syncwarp();
            down = !down;
            ++sweeps;
        } while (changed);
    }
    long long t1 = clock64();
    cycles.relax += (unsigned long long)(t1 - t0);
    // A window value as the value array's g << 3 (the move or'ed in), and as g.
    const auto to_val = [&](T w) { return (base << 3) + ((unsigned long long)w << (3 - S)); };
    const auto g_of = [&](T w) { return base + ((unsigned long long)w >> S); };
    const T n0 = g[c0], n1 = g[c1];
    // The goal's g is kept beside its value, for the iteration's stop test.
    const auto note_goal = [&](int x, int y, T w) {
        if (x == L.gx && y == L.gy) atomicMin(P.goal, g_of(w));
    };
    if (n0 < o0) {
        atomicMin(L.vals + std::size_t(y0 + cy0) * unsigned(L.width) + unsigned(x0 + cx),
                  to_val(n0) | W.move[(cy0 - 1) * kSide + cx - 1]);
        note_goal(x0 + cx, y0 + cy0, n0);
        ++lowered;
    }
    if (n1 < o1) {
        atomicMin(L.vals + std::size_t(y0 + cy1) * unsigned(L.width) + unsigned(x0 + cx),
                  to_val(n1) | W.move[(cy1 - 1) * kSide + cx - 1]);
        note_goal(x0 + cx, y0 + cy1, n1);
        ++lowered;
    }
    t0 = clock64();
    cycles.write_back += (unsigned long long)(t0 - t1);
    delay_warp(L.delay, 1, step);
    // The ring's 36 cells: a lane's edge cell, and lanes 0-3 a corner each. A cell below its value in the window opens
    // its tile without waiting for the atomic's old value: where another warp lowered it further in the meantime, that
    // warp opened the tile with a lower key, and the extra one costs a pass.
    std::uint32_t pushed_min = kNoKey;  // this lane's lowest key pushed, min'ed into the next list's once per warp
    const auto push = [&](int i, T best, int d) {
        const int x = x0 + i % kWin, y = y0 + i / kWin;
        atomicMin(L.vals + std::size_t(y) * unsigned(L.width) + unsigned(x), to_val(best) | unsigned(d));
        note_goal(x, y, best);
        ++lowered;
        const std::uint32_t tt = std::uint32_t(y / kSide) * unsigned(L.tiles_x) + unsigned(x / kSide);
        const std::uint32_t f = key_of(g_of(best) + heuristic<Metric>(L.eight, x, y, L.gx, L.gy), P.fbase);
        pushed_min = min(pushed_min, f);
        if (atomicMin(P.keys + tt, f) == kNoKey) P.next[atomicAdd(P.count, 1u)] = tt;
    };
    const auto corner_ok = [&](int a, int b) { return corner_rule_allows(L.corner, W.free[a], W.free[b]); };
    // Lane l's edge cell: beside the tile's top, bottom, left or right side (l / 8), l % 8 + 1
    // along it, lowered from its (up to) three tile neighbours.
    const int side = lane >> 3, along = 1 + (lane & 7);
    const bool vertical = side >= 2, far_side = side & 1;
    const int edge = far_side ? kWin - 1 : 0, nx = vertical ? (far_side ? -1 : 1) : 0,
              ny = vertical ? 0 : (far_side ? -1 : 1), tx = vertical ? 0 : 1, ty = vertical ? 1 : 0;
    const int e = vertical ? along * kWin + edge : edge * kWin + along, n = ny * kWin + nx, t = ty * kWin + tx;
    if (W.free[e]) {
        T best = g[e];
        int d = 8;
        if (W.free[e + n] && g[e + n] + kOrth < best) {
            best = g[e + n] + kOrth;
            d = direction_of(-nx, -ny);
        }
        if (L.eight)
#pragma unroll
            for (int k = -1; k <= 1; k += 2) {
                const int p = e + n + k * t;
                if (along + k < 1 || along + k > kSide || !W.free[p] || !corner_ok(e + k * t, e + n)) continue;
                if (g[p] + kDiag < best) {
                    best = g[p] + kDiag;
                    d = direction_of(-(nx + k * tx), -(ny + k * ty));
                }
            }
        if (d < 8) push(e, best, d);
    }
    // Lanes 0-3: a corner of the ring, from the tile's corner cell by a diagonal.
    if (L.eight && lane < 4) {
        const int rx = lane & 1 ? kWin - 1 : 0, ry = lane & 2 ? kWin - 1 : 0;
        const int px = rx ? kSide : 1, py = ry ? kSide : 1;
        const int c = ry * kWin + rx, p = py * kWin + px;
        if (W.free[c] && W.free[p] && corner_ok(py * kWin + rx, ry * kWin + px) && g[p] + kDiag < g[c])
            push(c, g[p] + kDiag, direction_of(rx - px, ry - py));
    }
    pushed_min = warp_min(pushed_min);
    if (lane == 0 && pushed_min != kNoKey) atomicMin(P.min_key, pushed_min);
    __syncwarp();
    cycles.ring += (unsigned long long)(clock64() - t0);
}

template <class Metric>
__global__ void __launch_bounds__(1024) tile_astar(TileLaunch L) {
    extern __shared__ unsigned long long dyn[];
    __shared__ Window s_win[kMaxWarps];
    __shared__ std::uint32_t s_sel[kMaxSelected];
    // Per open list (the iteration's parity): its entries, its lowest key, and the tiles taken
    // and in the band when it is the current list. The lowest key is exact, not only a bound:
    // every key a tile of the list holds is min'ed in when it is set (kept by the selection, or
    // pushed), keys only fall while a tile is open, and a tile leaves the list only by being
    // taken, in the selection that reads this value.
    __shared__ std::uint32_t s_count[2], s_min[2], s_sel_n[2], s_cand[2];
    __shared__ unsigned long long s_best, s_lowered, s_tiles, s_sweeps;  // s_best: the goal's g
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = blockDim.x >> 5;
    TileCycles cycles{};
    const long long t_setup = clock64();
    const std::uint32_t tiles = std::uint32_t(L.tiles_x) * std::uint32_t(L.tiles_y);
    std::uint32_t* keys = L.meta_on_chip ? reinterpret_cast<std::uint32_t*>(dyn) : L.keys;
    std::uint32_t* lists = L.meta_on_chip ? reinterpret_cast<std::uint32_t*>(dyn) + tiles : L.open;
    const unsigned long long fbase = heuristic<Metric>(L.eight, L.sx, L.sy, L.gx, L.gy);
    if (L.meta_on_chip) {
        for (std::uint32_t i = tid; i < tiles; i += blockDim.x) keys[i] = kNoKey;
        __syncthreads();  // before thread 0 opens the start's tile: its key would race the clearing
    }
    if (tid == 0) {
        const std::uint32_t t0 = std::uint32_t(L.sy / kSide) * unsigned(L.tiles_x) + unsigned(L.sx / kSide);
        L.vals[std::size_t(L.sy) * unsigned(L.width) + unsigned(L.sx)] = 0;
        keys[t0] = 0;  // f = h(start)
        lists[0] = t0;
        s_count[0] = 1;
        s_count[1] = 0;
        s_min[0] = 0;
        s_min[1] = kNoKey;
        s_sel_n[0] = s_cand[0] = 0;
        s_best = kInf;
        s_lowered = s_tiles = s_sweeps = 0;
    }
    __syncthreads();
    const unsigned slots = unsigned(warps) * unsigned(L.tiles_per_warp);
    unsigned long long band = L.band, band_steps = 0, iterations = 0;
    unsigned long long lowered = 0, sweeps = 0;  // this lane's and this warp's, over the query
    std::uint32_t peak = 0;
    cycles.setup = (unsigned long long)(clock64() - t_setup);
    for (;;) {
        const long long t_top = clock64();
        const int par = int(iterations & 1);
        std::uint32_t* cur = lists + (par ? tiles : 0);
        std::uint32_t* next = lists + (par ? 0 : tiles);
        // The current list, its lowest key and the goal's g, as the last barrier published them
        // (kept up by the atomics of the selection and the pushes: no pass over the list).
        const std::uint32_t n = s_count[par], fmin = s_min[par];
        peak = max(peak, n);
        if (n == 0 || s_best <= fbase + fmin) break;
        // Take the open tiles within the band (up to `slots`); the others stay open.
        const std::uint32_t limit = std::uint32_t(min((unsigned long long)fmin + band, (unsigned long long)kTopKey));
        // A warp's candidates take their places with one atomic, and so do the tiles it keeps.
        for (std::uint32_t base = std::uint32_t(tid - lane); base < n; base += blockDim.x) {
            const std::uint32_t i = base + std::uint32_t(lane);
            const unsigned below = (1u << lane) - 1u;
            std::uint32_t t = 0, key = kNoKey;
            bool candidate = false, taken = false;
            if (i < n) {
                t = fresh(cur + i);
                key = fresh(keys + t);
                candidate = key <= limit;
            }
            const unsigned cm = __ballot_sync(kFull, candidate);
            if (cm) {
                std::uint32_t at = 0;
                if (lane == 0) {
                    if (L.band_min < L.band_max) atomicAdd(&s_cand[par], unsigned(__popc(cm)));
                    at = atomicAdd(&s_sel_n[par], unsigned(__popc(cm)));
                }
                at = __shfl_sync(kFull, at, 0) + unsigned(__popc(cm & below));
                if (candidate && at < slots) {  // no other thread reads its key before the barrier
                    s_sel[at] = t;
                    keys[t] = kNoKey;  // a push opens it again
                    taken = true;
                }
            }
            const bool keep = i < n && !taken;
            const unsigned km = __ballot_sync(kFull, keep);
            if (km) {
                const std::uint32_t kept_min = warp_min(keep ? key : kNoKey);
                std::uint32_t at = 0;
                if (lane == 0) {
                    at = atomicAdd(&s_count[par ^ 1], unsigned(__popc(km)));
                    atomicMin(&s_min[par ^ 1], kept_min);
                }
                at = __shfl_sync(kFull, at, 0) + unsigned(__popc(km & below));
                if (keep) next[at] = t;
            }
        }
        __syncthreads();
        const unsigned taken = min(s_sel_n[par], slots);
        band_steps += band / L.unit;
        if (L.band_min < L.band_max) {  // adapt for the next iteration (every thread alike)
            if (s_cand[par] < unsigned(warps))
                band = min(band * 2, L.band_max);
            else if (s_cand[par] > 2 * slots)
                band = max(band / 2, L.band_min);
        }
        if (tid == 0) {
            // This list is the next iteration's next: every thread has read its count and lowest
            // key (above), and the other parity's selection counters were last read an iteration ago.
            s_count[par] = 0;
            s_min[par] = kNoKey;
            s_sel_n[par ^ 1] = s_cand[par ^ 1] = 0;
        }
        const long long t_process = clock64();
        cycles.select += (unsigned long long)(t_process - t_top);
        Window& W = s_win[warp];
        const Pushes P{keys, next, &s_count[par ^ 1], &s_min[par ^ 1], &s_best, fbase};
        for (unsigned j = unsigned(warp); j < taken; j += unsigned(warps)) {
            const std::uint32_t t = s_sel[j];
            const std::uint64_t step = iterations * 64 + j;
            delay_warp(L.delay, 0, step);
            const long long t0 = clock64();
            const int x0 = int(t % unsigned(L.tiles_x)) * kSide - 1, y0 = int(t / unsigned(L.tiles_x)) * kSide - 1;
            unsigned long long v[4];
            unsigned long long lo = kInf, hi = 0;
#pragma unroll
            for (int k = 0; k < 4; ++k) {  // a blocked cell's value is never written
                const int i = lane + 32 * k, x = x0 + i % kWin, y = y0 + i / kWin;
                v[k] = kInf;
                if (i < kWinCells && x >= 0 && y >= 0 && x < L.width && y < L.height) {
                    v[k] = __ldcg(L.vals + std::size_t(y) * unsigned(L.width) + unsigned(x));
                    W.free[i] =
                        (__ldg(L.bits + std::size_t(y) * unsigned(L.stride) + unsigned(x >> 5)) >> (x & 31)) & 1u;
                } else if (i < kWinCells) {
                    W.free[i] = 0;
                }
                if (v[k] != kInf) {
                    lo = min(lo, v[k] >> 3);
                    hi = max(hi, v[k] >> 3);
                }
            }
            lo = warp_min(lo);
            hi = warp_max(hi);
            const bool narrow = hi - lo < L.narrow_span;  // a pushed tile's window holds a value
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int i = lane + 32 * k;
                if (i >= kWinCells) break;
                if (narrow)
                    W.g.narrow[i] = v[k] == kInf ? kFar32 : std::uint32_t((v[k] >> 3) - lo) << 3;
                else
                    W.g.wide[i] = v[k] == kInf ? kFar : v[k] >> 3;
            }
            __syncwarp();
            cycles.load += (unsigned long long)(clock64() - t0);
            if (narrow)
                settle<Metric, std::uint32_t>(W, W.g.narrow, lo, L, lane, x0, y0, P, lowered, sweeps, cycles, step);
            else
                settle<Metric, unsigned long long>(W, W.g.wide, 0, L, lane, x0, y0, P, lowered, sweeps, cycles, step);
            ++cycles.own_tiles;
        }
        ++iterations;
        __syncthreads();
        cycles.process += (unsigned long long)(clock64() - t_process);
    }
    // The counters, once per warp (sweeps and tiles warp-wide, lowered per lane).
    if (lane == 0) {
        atomicAdd(&s_tiles, cycles.own_tiles);
        atomicAdd(&s_sweeps, sweeps);
    }
    if (lowered) atomicAdd(&s_lowered, lowered);
    __syncthreads();
    const long long t_walk = clock64();
    // The path, goal first: the block loads the arrival moves of the 7 x 7 tiles around the one
    // the walk is in, thread 0 follows them out of that window, and so on to the start.
    std::uint32_t points = 0;
    __shared__ int s_walk[4];  // x, y, done, status
    if (L.path && s_best != kInf) {
        constexpr int kSpan = 7 * kSide;
        static_assert(kSpan * kSpan <= sizeof(s_win), "the walk's window reuses the warps' windows");
        unsigned char* moves = reinterpret_cast<unsigned char*>(s_win);
        if (tid == 0) {
            s_walk[0] = L.gx;
            s_walk[1] = L.gy;
            s_walk[2] = 0;
            s_walk[3] = kDone;
        }
        __syncthreads();
        for (;;) {
            int x = s_walk[0], y = s_walk[1];
            if (s_walk[2] || s_walk[3] != kDone) break;
            const int bx = (x / kSide - 3) * kSide, by = (y / kSide - 3) * kSide;
            for (int i = tid; i < kSpan * kSpan; i += blockDim.x) {
                const int cx = bx + i % kSpan, cy = by + i / kSpan;
                unsigned long long v = kInf;
                if (cx >= 0 && cy >= 0 && cx < L.width && cy < L.height)
                    v = __ldcg(L.vals + std::size_t(cy) * unsigned(L.width) + unsigned(cx));
                moves[i] = v == kInf ? 8 : std::uint8_t(v & 7);
            }
            __syncthreads();
            if (tid == 0) {
                int status = kDone, done = 0;
                while (x >= bx && x < bx + kSpan && y >= by && y < by + kSpan) {
                    if (points >= L.path_cap) {
                        status = kBrokenWalk;
                        break;
                    }
                    L.path[points++] = pack(x, y);
                    if (x == L.sx && y == L.sy) {
                        done = 1;
                        break;
                    }
                    const int d = moves[(y - by) * kSpan + (x - bx)];
                    if (d == 8) {
                        status = kBrokenWalk;
                        break;
                    }
                    x -= move_dx(d);
                    y -= move_dy(d);
                }
                s_walk[0] = x;
                s_walk[1] = y;
                s_walk[2] = done;
                s_walk[3] = status;
            }
            __syncthreads();
        }
    }
    const std::uint32_t status = L.path && s_best != kInf ? std::uint32_t(s_walk[3]) : kDone;
    cycles.walk = (unsigned long long)(clock64() - t_walk);
    if (tid == 0) {
        TileOut o;
        o.cycles = cycles;
        o.g = s_best;
        o.lowered = s_lowered;
        o.tiles = s_tiles;
        o.iterations = iterations;
        o.sweeps = s_sweeps;
        o.band_steps = band_steps;
        o.status = status;
        o.path_points = status == kDone ? points : 0;
        o.open_peak = peak;
        publish_result(L.out, o);
    }
}

using Kernel = void (*)(TileLaunch);
Kernel kernel_for(CostMode mode) { return mode == CostMode::Real ? tile_astar<RealMetric> : tile_astar<IntegerMetric>; }

class TileRun {
public:
    using Output = TileAStarOutput;

    TileRun(Output& out, const GridMap& map, MoveRules rules, CostMode cost, Vertex start, Vertex goal,
            const TileAStarOptions& options)
        : m_out(out),
          m_map(map),
          m_rules(rules),
          m_cost(cost),
          m_start(map.cell(start)),
          m_goal(map.cell(goal)),
          m_options(options),
          m_bits(options.bits ? *options.bits : (m_own_bits = grid_bits(map))) {
        int device = 0;
        detail::check(cudaGetDevice(&device), "cudaGetDevice");
        cudaFuncAttributes attributes{};
        detail::check(cudaFuncGetAttributes(&attributes, kernel_for(cost)), "reading tile A*'s kernel attributes");
        if (attributes.maxThreadsPerBlock < options.block_threads)
            throw detail::CudaError("tile A* launches at most " + std::to_string(attributes.maxThreadsPerBlock) +
                                    " threads a block: lower block");
        const std::size_t limit = detail::dynamic_shared_limit(attributes, device);
        m_tiles_x = (map.width() + kSide - 1) / kSide;
        m_tiles_y = (map.height() + kSide - 1) / kSide;
        const std::size_t tiles = std::size_t(m_tiles_x) * std::size_t(m_tiles_y);
        m_meta_on_chip = options.meta_on_chip && meta_bytes(tiles) <= limit;
        if (m_meta_on_chip)
            detail::check(cudaFuncSetAttribute(kernel_for(cost), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(meta_bytes(tiles))),
                          "allowing tile A*'s shared memory");
        m_out.block_threads = options.block_threads;
        m_out.meta_on_chip = m_meta_on_chip;
        m_out.clock_khz = double(detail::sm_clock_khz(device));
    }

    void allocate(const detail::Stream&) {
        const std::size_t cells = std::size_t(m_map.width()) * std::size_t(m_map.height());
        const std::size_t tiles = std::size_t(m_tiles_x) * std::size_t(m_tiles_y);
        m_vals = m_memory.add<unsigned long long>(cells);
        m_bits_at = m_memory.add<std::uint32_t>(m_bits.words.size());
        m_keys = m_memory.add<std::uint32_t>(m_meta_on_chip ? 0 : tiles);
        m_open = m_memory.add<std::uint32_t>(m_meta_on_chip ? 0 : 2 * tiles);
        m_result = m_memory.add<TileOut>(1);
        m_path = m_memory.add<std::uint32_t>(m_options.want_path ? m_bits.passable + 1 : 0);
        m_memory.allocate("tile A*'s values, map and path");
        m_pinned = detail::PinnedResult<TileOut>(m_options.want_path ? m_bits.passable + 1 : 0);
    }

    void upload(const detail::Stream& stream) {
        detail::check(cudaMemcpyAsync(m_memory.at<std::uint32_t>(m_bits_at), m_bits.words.data(),
                                      m_bits.words.size() * 4, cudaMemcpyHostToDevice, stream),
                      "uploading the map");
    }

    bool step(const detail::Stream& stream, detail::Event& compute_end) {
        const std::size_t cells = std::size_t(m_map.width()) * std::size_t(m_map.height());
        const std::size_t tiles = std::size_t(m_tiles_x) * std::size_t(m_tiles_y);
        detail::check(cudaMemsetAsync(m_memory.at<unsigned long long>(m_vals), 0xFF, cells * 8, stream),
                      "clearing tile A*'s values");
        if (!m_meta_on_chip)
            detail::check(cudaMemsetAsync(m_memory.at<std::uint32_t>(m_keys), 0xFF, tiles * 4, stream),
                          "clearing tile A*'s keys");
        TileLaunch L{};
        L.bits = m_memory.at<std::uint32_t>(m_bits_at);
        L.stride = m_bits.stride;
        L.width = m_map.width();
        L.height = m_map.height();
        L.tiles_x = m_tiles_x;
        L.tiles_y = m_tiles_y;
        L.vals = m_memory.at<unsigned long long>(m_vals);
        L.keys = m_meta_on_chip ? nullptr : m_memory.at<std::uint32_t>(m_keys);
        L.open = m_meta_on_chip ? nullptr : m_memory.at<std::uint32_t>(m_open);
        L.meta_on_chip = m_meta_on_chip;
        L.eight = m_rules.connectivity == Connectivity::Eight;
        L.corner = int(m_rules.corners);
        L.sx = m_start.x;
        L.sy = m_start.y;
        L.gx = m_goal.x;
        L.gy = m_goal.y;
        const unsigned long long unit = m_cost == CostMode::Real ? RealMetric::orth : IntegerMetric::orth;
        const bool adapt = m_options.band < 0;
        L.unit = unit;
        L.band = unit * unsigned(adapt ? kBandStart : m_options.band);
        L.band_min = adapt ? unit * kBandMin : L.band;
        L.band_max = adapt ? unit * unsigned(std::max(kBandStart, m_options.band_max)) : L.band;
        L.tiles_per_warp = std::clamp(m_options.tiles_per_warp, 1, int(kMaxSelected) / (m_options.block_threads / 32));
        L.path = !m_options.want_path ? nullptr : m_pinned.path ? m_pinned.path : m_memory.at<std::uint32_t>(m_path);
        L.path_cap = std::uint32_t(std::min<std::size_t>(m_bits.passable + 1, 0xFFFFFFFFu));
        L.out = m_pinned.result ? detail::arm_result(m_pinned.result) : m_memory.at<TileOut>(m_result);
        L.delay = m_options.test_delay;
        L.narrow_span = m_options.test_wide_windows ? 0u : kNarrowSpan;
        kernel_for(m_cost)<<<1, m_options.block_threads, m_meta_on_chip ? meta_bytes(tiles) : 0, stream>>>(L);
        detail::check(cudaGetLastError(), "launching tile A*");
        compute_end.record(stream);
        m_result_host = detail::await_result(stream, m_pinned.result, L.out, "tile A*");
        if (m_result_host.status == kBrokenWalk)
            throw detail::RunError(ErrorKind::Internal, "tile A*: the path walk back from the goal broke off");
        return true;
    }

    void end_compute(const detail::Stream&) {}  // step read the result

    void download(const detail::Stream& stream) {
        const TileOut& r = m_result_host;
        m_out.lowered = r.lowered;
        m_out.tiles = r.tiles;
        m_out.iterations = r.iterations;
        m_out.sweeps = r.sweeps;
        m_out.open_peak = r.open_peak;
        m_out.band_steps = r.band_steps;
        m_out.cycles = r.cycles;
        if (r.g == kInf) return;
        m_out.cost = m_cost == CostMode::Integer ? double(r.g) : double(r.g) / double(RealMetric::orth);
        if (!m_options.want_path) return;
        const std::vector<std::uint32_t> points = detail::read_array(
            stream, m_pinned.path, m_memory.at<std::uint32_t>(m_path), r.path_points, "reading the path");
        m_out.path.reserve(points.size());
        for (std::size_t i = points.size(); i-- > 0;)
            m_out.path.push_back(m_map.index(int(points[i] & 0xFFFFu), int(points[i] >> 16)));
    }

    void finish(const detail::Stream&) {}

private:
    // Per tile: its key, and its entry in each of the two open lists.
    static std::size_t meta_bytes(std::size_t tiles) { return tiles * (4 + 2 * 4); }

    Output& m_out;
    const GridMap& m_map;
    MoveRules m_rules;
    CostMode m_cost;
    Cell m_start, m_goal;
    const TileAStarOptions& m_options;
    GridBits m_own_bits;
    const GridBits& m_bits;
    int m_tiles_x = 0, m_tiles_y = 0;
    bool m_meta_on_chip = false;
    detail::Carving m_memory;
    std::size_t m_vals = 0, m_bits_at = 0, m_keys = 0, m_open = 0, m_result = 0, m_path = 0;
    TileOut m_result_host{};
    detail::PinnedResult<TileOut> m_pinned;  // the result and the path, written by the kernel
};

}  // namespace

TileAStarOutput run_tile_astar_gpu(const GridMap& map, MoveRules rules, CostMode cost, Vertex start, Vertex goal,
                                   const TileAStarOptions& options) {
    TileAStarOutput out;
    if (options.block_threads < 32 || options.block_threads > 1024 || options.block_threads % 32) {
        out.error = "block_threads must be a multiple of 32 in 32..1024";
        return out;
    }
    if (map.width() > 65535 || map.height() > 65535) {
        out.error = "tile A* packs path cells in 16 bits per coordinate: maps up to 65535 wide and high";
        return out;
    }
    // g << 3 must fit 64 bits: at most one diagonal step per cell, in either metric, up to
    // 65535 x 65535 cells (4.3e9 cells x 47321 x 8 = 1.6e15).
    if (start == goal) {
        out.cost = 0;
        if (options.want_path) out.path = {start};
        return out;
    }
    run_phases<TileRun>(out, options.cancel, map, rules, cost, start, goal, options);
    return out;
}

}  // namespace ps::gpu
