// Jump Point Search in one thread block (kernels/astar/jps/jps_gpu.hpp says why it is exact).
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <type_traits>

#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_run.cuh"
#include "kernels/astar/jps/jps_gpu.hpp"
#include "kernels/astar/jps/jps_jumps.hpp"
#include "kernels/search/grid_astar_gpu.hpp"
#include "kernels/search/grid_costs.cuh"

namespace ps::gpu {
namespace {

using grid_astar::direction_of;
using grid_astar::heuristic;
using grid_astar::IntegerMetric;
using grid_astar::move_dx;
using grid_astar::move_dy;
using grid_astar::pack;
using grid_astar::RealMetric;

constexpr unsigned long long kInf = ~0ull;
constexpr int kStart = 8;  // the arrival direction of the start: every direction is followed
// A table value: g << kValShift | run << 5 | arrival direction << 1 | open. The run (the steps
// from the jump point that set the value, 16 bits) rides along with g in the same atomicMin, so
// the path walk steps straight to each parent. Both metrics' steps are small integers (the real
// one in 33461 and 47321, grid_costs.cuh), so g keeps 43 bits above them.
constexpr int kValShift = 21;
constexpr unsigned kMaxWarps = 32;
enum Status : std::uint32_t { kDone = 0, kOverflow = 1, kBrokenWalk = 2, kTableFull = 3 };
constexpr std::uint32_t kEmptyKey = 0xFFFFFFFFu;  // never a cell (maps are at most 65535 wide)
constexpr int kMaxProbes = 64;                    // a longer probe sequence counts as full
// The adapting window (JpsGpuOptions::window < 0), in orthogonal steps: where it starts and
// its floor (the ceiling is JpsGpuOptions::window_max).
constexpr int kWindowStart = 4, kWindowMin = 1;

constexpr bool same_moves() {
    for (int d = 0; d < 8; ++d)
        if (kGridSteps[d].dx != move_dx(d) || kGridSteps[d].dy != move_dy(d)) return false;
    return true;
}
static_assert(same_moves(), "the jump table's moves (kGridSteps) are the kernel's");

struct MapBits {
    const std::uint32_t* rows;  // in shared or global memory (generic loads)
    const std::uint32_t* cols;
    int width, height, stride, col_stride;
    __device__ bool free(int x, int y) const {
        if (x < 0 || y < 0 || x >= width || y >= height) return false;
        return (rows[std::size_t(y) * unsigned(stride) + unsigned(x >> 5)] >> (x & 31)) & 1u;
    }
};

// The first jump point of a straight run along line `r` of a bitmap (`lines` lines of `len`
// cells, `stride` words each) from position `from` (excluded) in direction `s` (+1 or -1), or
// -1 when the run meets a blocked cell first. A jump point: the goal (`goal_at`, -1 when not on
// this line) or a free cell with a forced neighbour, a free cell beside the run whose cell
// behind (beside the run's previous cell) is blocked (the CPU's rule, jps.cpp). A word of 32
// cells a step: the side lines' free cells whose predecessors are blocked, masked by the line.
// One code path for both directions (a run to -1 bit-reverses its words, so that it too runs
// to higher bits): the lanes of a warp that scan in different directions do not diverge.
__device__ int scan(const std::uint32_t* bits, int stride, int lines, int len, int r, int from, int s, int goal_at) {
    const int first = from + s;
    if (first < 0 || first >= len) return -1;
    const std::uint32_t* line = bits + std::size_t(r) * unsigned(stride);
    const std::uint32_t* a = r > 0 ? line - stride : nullptr;
    const std::uint32_t* b = r + 1 < lines ? line + stride : nullptr;
    const bool up = s > 0;
    const auto order = [up](std::uint32_t v) { return up ? v : __brev(v); };
    const int fw = first >> 5, off = up ? (first & 31) : 31 - (first & 31);
    for (int w = fw; w >= 0 && w < stride; w += s) {
        const int pw = w - s;  // the word before in the run's order
        const bool prev = pw >= 0 && pw < stride;
        const std::uint32_t aw = order(a ? a[w] : 0u), ap = order(a && prev ? a[pw] : 0u);
        const std::uint32_t bw = order(b ? b[w] : 0u), bp = order(b && prev ? b[pw] : 0u);
        const std::uint32_t forced = (aw & ~(aw << 1 | ap >> 31)) | (bw & ~(bw << 1 | bp >> 31));
        const std::uint32_t goal = order(goal_at >= 0 && (goal_at >> 5) == w ? 1u << (goal_at & 31) : 0u);
        const std::uint32_t lw = order(line[w]), jump = (forced | goal) & lw;
        std::uint32_t stop = jump | ~lw;
        if (w == fw) stop &= ~0u << off;
        if (stop) {
            const int q = __ffs(int(stop)) - 1;
            if (!((jump >> q) & 1u)) return -1;
            return w * 32 + (up ? q : 31 - q);
        }
    }
    return -1;
}

// A straight run's jump point from (x, y) in direction d < 4: its distance in steps, 0 if none.
// Rows and columns by selection, one call to scan (lanes with different d stay converged).
__device__ int straight_jump(const MapBits& M, int x, int y, int d, int gx, int gy) {
    const bool row = d < 2;
    const int along = row ? x : y;
    const int p =
        scan(row ? M.rows : M.cols, row ? M.stride : M.col_stride, row ? M.height : M.width, row ? M.width : M.height,
             row ? y : x, along, row ? move_dx(d) : move_dy(d), row ? (gy == y ? gx : -1) : (gx == x ? gy : -1));
    return p < 0 ? 0 : abs(p - along);
}

// A diagonal run's jump point from (x, y) in direction d >= 4, by the whole warp: 16 of the
// run's cells at a time, cell base + j + 1 by lanes j and j + 16 (legal step into it, the goal,
// or a jump point on a straight run from it: lane j along the row, lane j + 16 along the
// column, so the two runs go side by side). Its distance in steps, 0 if none; the same in every
// lane. *groups counts the groups of 16 cells tried.
__device__ int diagonal_jump(const MapBits& M, int x, int y, int d, int gx, int gy, int lane, unsigned* groups) {
    const int dx = move_dx(d), dy = move_dy(d), j = lane & 15;
    const int side = lane < 16 ? (dx > 0 ? 0 : 1) : (dy > 0 ? 2 : 3);
    for (int base = 0;; base += 16) {
        ++*groups;
        const int k = base + j + 1;
        const int px = x + (k - 1) * dx, py = y + (k - 1) * dy, cx = px + dx, cy = py + dy;
        const bool legal = M.free(cx, cy) && M.free(cx, py) && M.free(px, cy);
        const unsigned bad = __ballot_sync(0xFFFFFFFFu, !legal) & 0xFFFFu;
        const bool valid = legal && (bad == 0u || j < __ffs(int(bad)) - 1);
        const bool hit = valid && ((cx == gx && cy == gy) || straight_jump(M, cx, cy, side, gx, gy) > 0);
        const unsigned hits = __ballot_sync(0xFFFFFFFFu, hit);
        const unsigned any = (hits | hits >> 16) & 0xFFFFu;
        if (any) return base + __ffs(int(any));
        if (bad) return 0;
    }
}

// Which of (x, y)'s eight neighbours are free (bit d: the cell of move d), lanes 0-7 loading
// one each; the same in every lane.
__device__ unsigned free_neighbours(const MapBits& M, int x, int y, int lane) {
    const int d = lane & 7;
    return __ballot_sync(0xFFFFFFFFu, lane < 8 && M.free(x + move_dx(d), y + move_dy(d)));
}

// The directions (bit d: move d) a jump point reached in direction `arrived` follows, as the
// CPU's Jps::directions, from its free neighbours `n`: the start every legal move; a diagonal
// arrival its two components and itself; a straight one itself, the diagonals ahead and the
// two sides. Evaluated at compile time into kFollow.
__host__ __device__ constexpr unsigned follow_mask(unsigned n, int arrived) {
    const auto open = [n](int dx, int dy) { return ((n >> direction_of(dx, dy)) & 1u) != 0u; };
    const auto step = [&open](int dx, int dy) {
        return open(dx, dy) && (dx == 0 || dy == 0 || (open(dx, 0) && open(0, dy)));
    };
    unsigned mask = 0;
    if (arrived == kStart) {
        for (int d = 0; d < 8; ++d)
            if (step(move_dx(d), move_dy(d))) mask |= 1u << d;
        return mask;
    }
    const int dx = move_dx(arrived), dy = move_dy(arrived);
    if (dx != 0 && dy != 0) {
        if (open(0, dy)) mask |= 1u << direction_of(0, dy);
        if (open(dx, 0)) mask |= 1u << direction_of(dx, 0);
        if (step(dx, dy)) mask |= 1u << arrived;
        return mask;
    }
    const int sx = dy != 0 ? 1 : 0, sy = dx != 0 ? 1 : 0;
    if (open(dx, dy)) {
        mask |= 1u << arrived;
        for (int side = -1; side <= 1; side += 2)
            if (step(dx + side * sx, dy + side * sy)) mask |= 1u << direction_of(dx + side * sx, dy + side * sy);
    }
    for (int side = -1; side <= 1; side += 2)
        if (open(side * sx, side * sy)) mask |= 1u << direction_of(side * sx, side * sy);
    return mask;
}

// follow_mask of every arrival (kStart included) and set of free neighbours: one constant load
// an expansion, the same address in every lane (constant memory broadcasts it), instead of a
// chain of tests.
struct FollowTable {
    std::uint8_t mask[kStart + 1][256];
};
constexpr FollowTable make_follow_table() {
    FollowTable t{};
    for (int a = 0; a <= kStart; ++a)
        for (unsigned n = 0; n < 256; ++n) t.mask[a][n] = std::uint8_t(follow_mask(n, a));
    return t;
}
__constant__ FollowTable kFollow = make_follow_table();
static_assert(make_follow_table().mask[kStart][0xFF] == 0xFF && make_follow_table().mask[0][0] == 0 &&
              make_follow_table().mask[0][0x01] == 0x01);

// Where the values live: on chip a hash table (open addressing, `mask` + 1 slots of a key and a
// value in shared memory; a query that takes more than `limit` slots or probes too long sets
// `full` and runs again with the other kind), else a value per cell of the map in global memory.
// Slots fit 32 bits (maps are at most 65535 x 65535 cells) and never move during a launch, so
// the open list holds them rather than cells: a claim needs no lookup.
template <bool OnChip>
struct Table {
    unsigned long long* vals;
    std::uint32_t* keys;
    std::uint32_t mask, limit;
    int width;
    unsigned* used;
    unsigned* full;

    // The slot of (x, y), taken when absent and `insert`; -1 when absent (or the table full).
    __device__ long long slot(int x, int y, bool insert) const {
        if constexpr (!OnChip) {
            return (long long)y * width + x;
        } else {
            const std::uint32_t cell = pack(x, y);
            std::uint32_t i = (cell ^ cell >> 15) * 0x2C1B3C6Du;
            i = (i ^ i >> 12) & mask;
            for (int p = 0; p < kMaxProbes; ++p, i = (i + 1u) & mask) {
                std::uint32_t k = *reinterpret_cast<volatile std::uint32_t*>(keys + i);
                if (k == kEmptyKey) {
                    if (!insert) return -1;
                    k = atomicCAS(keys + i, kEmptyKey, cell);
                    if (k == kEmptyKey) {
                        atomicAdd(used, 1u);  // not waited for: the loop's top compares it with limit
                        return i;
                    }
                }
                if (k == cell) return i;
            }
            if (insert) *full = 1u;
            return -1;
        }
    }
    // The cell of a slot.
    __device__ std::uint32_t cell(std::uint32_t slot) const {
        if constexpr (OnChip) {
            return keys[slot];
        } else {
            return pack(int(slot % unsigned(width)), int(slot / unsigned(width)));
        }
    }
    __device__ unsigned long long value(int x, int y) const {
        const long long i = slot(x, y, false);
        if (i < 0) return kInf;
        return *reinterpret_cast<volatile unsigned long long*>(vals + i);
    }
};

struct JpsOut {
    unsigned long long g;  // kInf: unreachable
    std::uint32_t expanded, iterations, status, path_points, open_peak;
    unsigned long long window_steps;  // the windows' sum over the iterations, in orthogonal steps
    JpsCycles cycles;
    std::uint32_t done;  // raised last (publish_result)
};

struct JpsLaunch {
    const std::uint32_t* rows;
    const std::uint32_t* cols;
    int width, height, stride, col_stride;
    std::uint32_t map_words_on_chip;  // rows then columns copied into shared memory (0: global)
    const std::int16_t* jumps;        // the jump distances, 8 a cell (jps_jumps.hpp), or null: scan
    unsigned long long* vals;         // width * height, all bits set: unknown (the global table)
    std::uint32_t table_slots;        // the on-chip table's slots (the kernel with OnChip)
    // The open list's two buffers of (f, table slot): in shared memory (open_global null) or here.
    unsigned long long* open_global;
    std::uint32_t open_cap;
    int sx, sy, gx, gy;
    // Entries within `window` of the lowest f may be expanded (the metric's units). Adapting:
    // each iteration that finds fewer candidates than warps doubles it, up to window_max, and
    // one that finds more than twice as many halves it, down to window_min.
    unsigned long long window, window_min, window_max;
    bool adapt;
    unsigned long long window_unit;  // one orthogonal step
    std::uint32_t* path;             // jump points, goal first (null: no path)
    std::uint32_t path_cap;
    JpsOut* out;
};

__device__ inline unsigned long long warp_min(unsigned long long v) {
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long w = __shfl_xor_sync(0xFFFFFFFFu, v, o);
        v = w < v ? w : v;
    }
    return v;
}

template <class C, bool OnChip>
__global__ void __launch_bounds__(1024) jps_block(JpsLaunch L) {
    extern __shared__ __align__(16) unsigned char chip[];
    __shared__ unsigned long long s_wmin[kMaxWarps], s_goal;  // each warp's lowest f
    // By the iteration's parity: the open buffers' tails and the entries taken.
    __shared__ unsigned s_tail[2], s_selected[2];
    __shared__ unsigned s_overflow, s_expanded, s_peak, s_used, s_full;
    __shared__ std::uint32_t s_sel[kMaxWarps];
    __shared__ unsigned long long s_cycles[4], s_groups;  // JpsCycles' warp parts, summed
    __shared__ unsigned long long s_window, s_window_steps;
    const long long t_begin = clock64();
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5, warps = int(blockDim.x) >> 5;
    const std::uint32_t cap = L.open_cap;
    unsigned long long* open_f = L.open_global ? L.open_global : reinterpret_cast<unsigned long long*>(chip);
    std::uint32_t* open_slot = reinterpret_cast<std::uint32_t*>(open_f + 2 * std::size_t(cap));
    MapBits M{L.rows, L.cols, L.width, L.height, L.stride, L.col_stride};
    // Shared memory: the open list (unless global), the table (OnChip), the map (if on chip).
    unsigned char* free_chip = chip + (L.open_global ? 0 : 24 * std::size_t(cap));
    Table<OnChip> T{L.vals, nullptr, 0, 0, L.width, &s_used, &s_full};
    if constexpr (OnChip) {
        const std::uint32_t slots = L.table_slots;
        T.vals = reinterpret_cast<unsigned long long*>(free_chip);
        T.keys = reinterpret_cast<std::uint32_t*>(T.vals + slots);
        T.mask = slots - 1u;
        T.limit = slots / 4 * 3;
        for (std::uint32_t i = tid; i < slots; i += blockDim.x) {
            T.vals[i] = kInf;
            T.keys[i] = kEmptyKey;
        }
        free_chip += std::size_t(slots) * 12;
    }
    if (L.map_words_on_chip) {
        std::uint32_t* words = reinterpret_cast<std::uint32_t*>(free_chip);
        const std::uint32_t row_words = std::uint32_t(L.stride) * std::uint32_t(L.height);
        for (std::uint32_t i = tid; i < L.map_words_on_chip; i += blockDim.x)
            words[i] = i < row_words ? L.rows[i] : L.cols[i - row_words];
        M.rows = words;
        M.cols = words + row_words;
    }
    const int gx = L.gx, gy = L.gy;
    const std::uint32_t goal = pack(gx, gy);
    if (tid == 0) {
        s_goal = kInf;
        s_tail[0] = 1;
        s_tail[1] = 0;
        s_selected[0] = s_selected[1] = 0;
        s_overflow = s_expanded = s_used = s_full = 0;
        s_cycles[0] = s_cycles[1] = s_cycles[2] = s_cycles[3] = s_groups = 0;
        s_peak = 1;
        s_window = L.window;
        s_window_steps = 0;
    }
    __syncthreads();  // the table is clear
    if (tid == 0) {
        const long long at = T.slot(L.sx, L.sy, true);
        T.vals[at] = (unsigned long long)kStart << 1 | 1u;
        open_f[0] = heuristic<C>(true, L.sx, L.sy, gx, gy);
        open_slot[0] = std::uint32_t(at);
    }
    __syncthreads();
    // Three barriers an iteration: after the lowest f (each warp's in s_wmin: a 64-bit atomicMin
    // is a compare-and-swap loop in shared memory), after the selection, after the expansions.
    // What the iteration of the other parity uses next is reset after the first. (Two barriers,
    // each warp keeping the lowest f it moves or pushes instead of a pass of its own, measured
    // 3-6% slower on den520d and rooms 512².)
    // Thread 0 times the phases between the barriers (clock64: the SM's cycles); the expanding
    // warps add their parts (claim, straight runs, diagonal runs, successors).
    unsigned iterations = 0;
    JpsCycles cycles{};
    long long t_top = clock64();
    cycles.setup = (unsigned long long)(t_top - t_begin);
    unsigned long long part[4] = {0, 0, 0, 0};
    unsigned groups = 0;
    bool table_full = false;  // the on-chip table took its limit of slots (the same in every thread)
    for (;; ++iterations) {
        // The query runs again with a larger open list or table. (Each thread keeps the verdict:
        // raising s_full here raced with the other warps reading it in this same test.)
        if (s_overflow || s_full || (OnChip && s_used >= T.limit)) {
            table_full = !s_overflow;
            break;
        }
        const unsigned cur = iterations & 1u, nxt = cur ^ 1u, tail = s_tail[cur];
        unsigned long long* f_cur = open_f + std::size_t(cur) * cap;
        std::uint32_t* c_cur = open_slot + std::size_t(cur) * cap;
        unsigned long long* f_nxt = open_f + std::size_t(nxt) * cap;
        std::uint32_t* c_nxt = open_slot + std::size_t(nxt) * cap;
        // The lowest f in the open list (stale entries included: a lower bound all the same).
        unsigned long long low = kInf;
        for (unsigned i = tid; i < tail; i += blockDim.x) low = min(low, f_cur[i]);
        low = warp_min(low);
        if (lane == 0) s_wmin[warp] = low;
        __syncthreads();
        const long long t_min = clock64();
        cycles.lowest_f += (unsigned long long)(t_min - t_top);
        const unsigned long long fmin = warp_min(lane < warps ? s_wmin[lane] : kInf);
        const unsigned long long best = s_goal;
        if (tail == 0 || best <= fmin) break;
        if (tid == 0) {  // everyone has read these: ready for the next iteration
            s_peak = max(s_peak, tail);
            s_tail[cur] = 0;
            s_selected[nxt] = 0;
        }
        // Up to one entry a warp within the window of fmin; the rest move into the other buffer
        // (entries that cannot beat the best goal are dropped). A warp steps through the buffer
        // 32 entries at a time and takes its slots with one atomicAdd per step (a counter that
        // every thread of the block increments serialises).
        const unsigned below = (1u << lane) - 1u;
        const unsigned long long window = s_window;
        for (unsigned at = unsigned(warp) * 32u; at < tail; at += blockDim.x) {
            const unsigned i = at + unsigned(lane);
            const unsigned long long f = i < tail ? f_cur[i] : kInf;
            const std::uint32_t c = i < tail ? c_cur[i] : 0u;
            const bool live = f < best;
            const unsigned want = __ballot_sync(0xFFFFFFFFu, live && f <= fmin + window);
            unsigned first = 0;
            if (want && lane == 0) first = atomicAdd(&s_selected[cur], unsigned(__popc(want)));
            first = __shfl_sync(0xFFFFFFFFu, first, 0);
            const unsigned t = first + unsigned(__popc(want & below));
            const bool taken = (want >> lane) & 1u && t < unsigned(warps);
            if (taken) s_sel[t] = c;
            const bool move = live && !taken;
            const unsigned moving = __ballot_sync(0xFFFFFFFFu, move);
            unsigned p = 0;
            if (moving && lane == 0) p = atomicAdd(&s_tail[nxt], unsigned(__popc(moving)));
            p = __shfl_sync(0xFFFFFFFFu, p, 0) + unsigned(__popc(moving & below));
            if (move) {
                if (p < cap) {
                    f_nxt[p] = f;
                    c_nxt[p] = c;
                } else {
                    s_overflow = 1;
                }
            }
        }
        __syncthreads();
        const long long t_selected = clock64();
        cycles.select += (unsigned long long)(t_selected - t_min);
        if (tid == 0) {  // the next iteration's window (read after two more barriers)
            const unsigned n = s_selected[cur];
            s_window_steps += window / L.window_unit;
            if (L.adapt && n < unsigned(warps) && window * 2 <= L.window_max) s_window = window * 2;
            if (L.adapt && n > 2u * unsigned(warps) && window / 2 >= L.window_min) s_window = window / 2;
        }
        const unsigned selected = min(s_selected[cur], unsigned(warps));
        if (unsigned(warp) < selected) {
            const std::uint32_t at = s_sel[warp];  // a slot of the table
            const std::uint32_t cell = T.cell(at);
            const int x = int(cell & 0xFFFFu), y = int(cell >> 16);
            unsigned long long old = 0;
            if (lane == 0) old = atomicAnd(T.vals + at, ~1ull);  // claimed by whoever clears the open bit
            old = __shfl_sync(0xFFFFFFFFu, old, 0);
            const unsigned long long g = old >> kValShift;
            const volatile unsigned long long& goal_best = s_goal;
            // One reading for the whole warp (the runs below take warp-wide ballots).
            const unsigned long long best_now = __shfl_sync(0xFFFFFFFFu, goal_best, 0);
            if ((old & 1u) && g + heuristic<C>(true, x, y, gx, gy) < best_now) {
                if (lane == 0) atomicAdd(&s_expanded, 1u);
                const int arrived = int(old >> 1) & 15;
                int steps = 0;
                long long t_straight, t_diag;
                if (L.jumps) {
                    // Lane d < 8 reads the cell's distance in direction d: the same 16 bytes for
                    // the warp. A step is legal where it is non-zero, all the pruning needs.
                    const std::size_t at_cell = std::size_t(y) * unsigned(L.width) + unsigned(x);
                    const int k = lane < 8 ? int(L.jumps[at_cell * 8 + unsigned(lane)]) : 0;
                    const unsigned mask = kFollow.mask[arrived][__ballot_sync(0xFFFFFFFFu, k != 0) & 0xFFu];
                    if ((mask >> lane) & 1u) steps = jump_steps(k, move_dx(lane), move_dy(lane), x, y, gx, gy);
                    t_straight = t_diag = clock64();
                } else {
                    const unsigned mask = kFollow.mask[arrived][free_neighbours(M, x, y, lane)];
                    __syncwarp();
                    t_straight = clock64();
                    // Lane d < 4 runs straight direction d; the warp runs the diagonals one by one.
                    steps = lane < 4 && (mask >> lane) & 1u ? straight_jump(M, x, y, lane, gx, gy) : 0;
                    __syncwarp();
                    t_diag = clock64();
                    for (unsigned diag = mask & 0xF0u; diag; diag &= diag - 1u) {
                        const int d = __ffs(int(diag)) - 1;
                        const int k = diagonal_jump(M, x, y, d, gx, gy, lane, &groups);
                        if (lane == d) steps = k;
                    }
                }
                const long long t_next = clock64();
                part[0] += (unsigned long long)(t_straight - t_selected);
                part[1] += (unsigned long long)(t_diag - t_straight);
                part[2] += (unsigned long long)(t_next - t_diag);
                if (lane < 8 && steps > 0) {
                    const int nx = x + steps * move_dx(lane), ny = y + steps * move_dy(lane);
                    const unsigned long long ng = g + (unsigned long long)steps * (lane >= 4 ? C::diag : C::orth);
                    const unsigned long long f = ng + heuristic<C>(true, nx, ny, gx, gy);
                    const std::uint32_t next = pack(nx, ny);
                    const long long slot = f < goal_best ? T.slot(nx, ny, true) : -1;
                    if (slot >= 0) {
                        unsigned long long* nval = T.vals + slot;
                        // The goal is never opened: its g ends the search once fmin reaches it.
                        const unsigned long long run = (unsigned long long)steps << 5;
                        const unsigned long long nv =
                            ng << kValShift | run | unsigned(lane) << 1 | (next == goal ? 0u : 1u);
                        const unsigned long long before = atomicMin(nval, nv);
                        if ((before >> kValShift) > ng) {
                            if (next == goal) {
                                atomicMin(&s_goal, ng);
                            } else {
                                const unsigned p = atomicAdd(&s_tail[nxt], 1u);
                                if (p < cap) {
                                    f_nxt[p] = f;
                                    c_nxt[p] = std::uint32_t(slot);
                                } else {
                                    s_overflow = 1;
                                }
                            }
                        }
                    }
                }
                __syncwarp();
                part[3] += (unsigned long long)(clock64() - t_next);
            }
        }
        __syncthreads();
        t_top = clock64();
        cycles.expand += (unsigned long long)(t_top - t_selected);
    }
    if (lane == 0 && part[0]) {
        for (int i = 0; i < 4; ++i) atomicAdd(&s_cycles[i], part[i]);
        atomicAdd(&s_groups, (unsigned long long)groups);
    }
    __syncthreads();
    if (warp != 0) return;  // warp 0 walks the path
    const long long t_walk = clock64();
    std::uint32_t status = s_overflow ? kOverflow : s_full || table_full ? kTableFull : kDone, points = 0;
    const unsigned long long best = s_goal;
    if (status == kDone && best != kInf && L.path) {
        // Goal first, from each jump point to the parent its run names (the run rides with g in
        // the table value). The parent's g (which can only have dropped since it set the value)
        // plus the run is at most the jump point's, so the walk ends at the start on a path no
        // longer than the goal's g. Each step carries the parent's value found on the way to the
        // next step.
        std::uint32_t v = goal;
        unsigned long long vv = T.value(gx, gy);
        const std::uint32_t start = pack(L.sx, L.sy);
        if (lane == 0) L.path[0] = v;
        points = 1;
        while (v != start && status == kDone) {
            const int vx = int(v & 0xFFFFu), vy = int(v >> 16);
            const int d = int(vv >> 1) & 15;
            if (d >= 8 || points >= L.path_cap) {
                status = kBrokenWalk;
                break;
            }
            const unsigned long long g = vv >> kValShift, step = d >= 4 ? C::diag : C::orth;
            // Every lane alike.
            const int k = int(vv >> 5) & 0xFFFF, ux = vx - k * move_dx(d), uy = vy - k * move_dy(d);
            const bool inside = k > 0 && ux >= 0 && uy >= 0 && ux < L.width && uy < L.height;
            const unsigned long long uv = inside ? T.value(ux, uy) : kInf;
            if (uv == kInf || (uv >> kValShift) + (unsigned long long)k * step > g) {
                status = kBrokenWalk;
                break;
            }
            v = pack(ux, uy);
            vv = uv;
            if (lane == 0) L.path[points] = v;
            ++points;
        }
    }
    cycles.walk = (unsigned long long)(clock64() - t_walk);
    if (lane == 0) {
        JpsOut o;
        o.g = best;
        o.expanded = s_expanded;
        o.iterations = iterations;
        o.status = status;
        o.path_points = status == kDone ? points : 0;
        o.open_peak = s_peak;
        cycles.claim = s_cycles[0];
        cycles.straight = s_cycles[1];
        cycles.diagonal = s_cycles[2];
        cycles.successors = s_cycles[3];
        cycles.diagonal_groups = s_groups;
        o.window_steps = s_window_steps;
        o.cycles = cycles;
        publish_result(L.out, o);
    }
}

// The device copy of a map's jump distances, made by the first query on this device and kept
// with the map's table for the next ones; null (the query scans instead) where the GPU has no
// room for it beside a quarter of its free memory or the copy fails. The caller holds it for its
// launch (a query on another device may replace the map's copy meanwhile).
std::shared_ptr<const std::int16_t> device_jumps(const JpsJumps& jumps) {
    int device = 0;
    detail::check(cudaGetDevice(&device), "cudaGetDevice");
    const std::lock_guard<std::mutex> lock(jumps.device_mutex);
    // The map's copy, typed (the pointer shares its owner).
    const auto typed = [&jumps] {
        return std::shared_ptr<const std::int16_t>(jumps.device, static_cast<const std::int16_t*>(jumps.device.get()));
    };
    if (jumps.device && jumps.device_id == device) return typed();
    const std::size_t bytes = jumps.dist.size() * sizeof(std::int16_t);
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess || bytes > free_bytes / 4) {
        (void)cudaGetLastError();
        return nullptr;
    }
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        (void)cudaGetLastError();  // out of memory is not sticky: scan instead
        return nullptr;
    }
    if (cudaMemcpy(p, jumps.dist.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        (void)cudaFree(p);
        (void)cudaGetLastError();
        return nullptr;
    }
    jumps.device = std::shared_ptr<void>(p, [](void* q) { (void)cudaFree(q); });
    jumps.device_id = device;
    return typed();
}

using Kernel = void (*)(JpsLaunch);
Kernel kernel_for(CostMode mode, bool on_chip) {
    if (mode == CostMode::Real) return on_chip ? jps_block<RealMetric, true> : jps_block<RealMetric, false>;
    return on_chip ? jps_block<IntegerMetric, true> : jps_block<IntegerMetric, false>;
}

class JpsRun {
public:
    using Output = JpsGpuOutput;

    JpsRun(Output& out, const GridMap& map, CostMode cost, Vertex start, Vertex goal, const JpsGpuOptions& options)
        : m_out(out),
          m_map(map),
          m_cost(cost),
          m_start(map.cell(start)),
          m_goal(map.cell(goal)),
          m_options(options),
          m_bits(options.bits ? *options.bits : (m_own_bits = jps_bits(map))) {
        int device = 0;
        detail::check(cudaGetDevice(&device), "cudaGetDevice");
        m_out.clock_khz = double(detail::sm_clock_khz(device));
        // What the dynamic part sized below may take in both kernels (beside their static
        // shared memory: a map that filled the rest failed to launch).
        m_shared_limit = ~std::size_t(0);
        for (const bool on_chip : {true, false}) {
            cudaFuncAttributes attributes{};
            detail::check(cudaFuncGetAttributes(&attributes, kernel_for(cost, on_chip)),
                          "reading JPS's kernel attributes");
            if (attributes.maxThreadsPerBlock < options.block_threads)
                throw detail::CudaError("GPU JPS launches at most " + std::to_string(attributes.maxThreadsPerBlock) +
                                        " threads a block: lower block");
            m_shared_limit = std::min(m_shared_limit, detail::dynamic_shared_limit(attributes, device));
        }
        // Each launch takes at most this: allowed once here rather than before every launch
        // (a driver call inside the compute phase of every query).
        for (const bool on_chip : {true, false})
            detail::check(cudaFuncSetAttribute(kernel_for(cost, on_chip), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(m_shared_limit)),
                          "allowing JPS's shared memory");
        m_cap = std::uint32_t(std::max(64, options.open_cap));
        m_open_on_chip = options.open_on_chip && open_bytes(m_cap) <= m_shared_limit;
        if (!m_open_on_chip) m_cap = std::max<std::uint32_t>(m_cap, 4096);
        m_slots = std::uint32_t(std::bit_ceil(unsigned(std::max(64, options.table_slots))));
        m_table_on_chip = options.table_on_chip;
        m_out.block_threads = options.block_threads;
    }

    void allocate(const detail::Stream&) {
        const std::size_t cells = std::size_t(m_map.width()) * std::size_t(m_map.height());
        m_vals = m_memory.add<unsigned long long>(cells);
        m_rows = m_memory.add<std::uint32_t>(m_bits.rows.size());
        m_cols = m_memory.add<std::uint32_t>(m_bits.cols.size());
        m_result = m_memory.add<JpsOut>(1);
        m_path = m_memory.add<std::uint32_t>(m_options.want_path ? m_bits.passable + 1 : 0);
        m_memory.allocate("JPS's table, map and path");
        m_pinned = detail::PinnedResult<JpsOut>(m_options.want_path ? m_bits.passable + 1 : 0);
    }

    void upload(const detail::Stream& stream) {
        const JpsJumps* jumps = m_options.jumps;
        if (jumps && jumps->width == m_map.width() && jumps->height == m_map.height()) m_jumps = device_jumps(*jumps);
        m_out.jump_table = m_jumps != nullptr;
        if (m_jumps) return;  // the bitmaps are not read
        detail::check(cudaMemcpyAsync(m_memory.at<std::uint32_t>(m_rows), m_bits.rows.data(), m_bits.rows.size() * 4,
                                      cudaMemcpyHostToDevice, stream),
                      "uploading the map's rows");
        detail::check(cudaMemcpyAsync(m_memory.at<std::uint32_t>(m_cols), m_bits.cols.data(), m_bits.cols.size() * 4,
                                      cudaMemcpyHostToDevice, stream),
                      "uploading the map's columns");
    }

    bool step(const detail::Stream& stream, detail::Event& compute_end) {
        // The table on chip where it fits beside the open list; else the global one, cleared.
        std::size_t shared = m_open_on_chip ? open_bytes(m_cap) : 0;
        const bool table_on_chip = m_table_on_chip && shared + std::size_t(m_slots) * 12 <= m_shared_limit;
        if (table_on_chip) {
            shared += std::size_t(m_slots) * 12;
        } else {
            const std::size_t cells = std::size_t(m_map.width()) * std::size_t(m_map.height());
            detail::check(cudaMemsetAsync(m_memory.at<unsigned long long>(m_vals), 0xFF, cells * 8, stream),
                          "clearing JPS's table");
        }
        JpsLaunch L{};
        L.table_slots = m_slots;
        L.rows = m_memory.at<std::uint32_t>(m_rows);
        L.cols = m_memory.at<std::uint32_t>(m_cols);
        L.width = m_map.width();
        L.height = m_map.height();
        L.stride = m_bits.stride;
        L.col_stride = m_bits.col_stride;
        L.vals = m_memory.at<unsigned long long>(m_vals);
        L.open_cap = m_cap;
        L.sx = m_start.x;
        L.sy = m_start.y;
        L.gx = m_goal.x;
        L.gy = m_goal.y;
        const unsigned long long unit = m_cost == CostMode::Real ? RealMetric::orth : IntegerMetric::orth;
        L.adapt = m_options.window < 0;
        L.window = unit * unsigned(L.adapt ? kWindowStart : m_options.window);
        L.window_min = L.adapt ? unit * kWindowMin : L.window;
        L.window_max = L.adapt ? unit * unsigned(std::max(kWindowStart, m_options.window_max)) : L.window;
        L.window_unit = unit;
        L.path = !m_options.want_path ? nullptr : m_pinned.path ? m_pinned.path : m_memory.at<std::uint32_t>(m_path);
        L.path_cap = std::uint32_t(std::min<std::size_t>(m_bits.passable + 1, 0xFFFFFFFFu));
        L.out = m_pinned.result ? detail::arm_result(m_pinned.result) : m_memory.at<JpsOut>(m_result);
        detail::DeviceBuffer<unsigned long long> global_open;
        if (!m_open_on_chip) {
            global_open.allocate(std::size_t(m_cap) * 3, "JPS's open list");  // 2 cap f, 2 cap cells
            L.open_global = global_open.get();
        }
        const std::size_t map_words = m_bits.rows.size() + m_bits.cols.size();
        L.jumps = m_jumps.get();
        if (!m_jumps && m_options.map_on_chip && shared + map_words * 4 <= m_shared_limit) {
            L.map_words_on_chip = std::uint32_t(map_words);
            shared += map_words * 4;
        }
        const Kernel kernel = kernel_for(m_cost, table_on_chip);
        kernel<<<1, m_options.block_threads, shared, stream>>>(L);
        detail::check(cudaGetLastError(), "launching GPU JPS");
        compute_end.record(stream);
        ++m_out.launches;
        m_result_host = detail::await_result(stream, m_pinned.result, L.out, "GPU JPS");
        m_out.map_on_chip = L.map_words_on_chip > 0;
        m_out.open_on_chip = m_open_on_chip;
        m_out.table_on_chip = table_on_chip;
        m_out.open_cap = m_cap;
        m_out.open_peak = std::max<std::uint64_t>(m_out.open_peak, m_result_host.open_peak);
        if (m_result_host.status == kBrokenWalk)
            throw detail::RunError(ErrorKind::Internal, "GPU JPS: the path walk back from the goal broke off");
        if (m_result_host.status == kTableFull) {  // again with the global table
            m_table_on_chip = false;
            return false;
        }
        if (m_result_host.status == kOverflow) {  // again with a larger open list in global memory
            if (m_cap >= (1u << 28)) throw detail::RunError(ErrorKind::Internal, "GPU JPS: the open list overflows");
            m_cap = m_open_on_chip ? std::max<std::uint32_t>(m_cap * 4, 65536) : m_cap * 4;
            m_open_on_chip = false;
            return false;
        }
        return true;
    }

    void end_compute(const detail::Stream&) {}  // step read the result

    void download(const detail::Stream& stream) {
        const JpsOut& r = m_result_host;
        m_out.expanded = r.expanded;
        m_out.iterations = r.iterations;
        m_out.cycles = r.cycles;
        m_out.window_steps = r.window_steps;
        if (r.g == kInf) return;
        m_out.cost = m_cost == CostMode::Integer ? double(r.g) : double(r.g) / double(RealMetric::orth);
        if (!m_options.want_path) return;
        const std::vector<std::uint32_t> points = detail::read_array(
            stream, m_pinned.path, m_memory.at<std::uint32_t>(m_path), r.path_points, "reading the path");
        // Goal first on the device: each run between two jump points filled in cell by cell.
        std::vector<Vertex>& path = m_out.path;
        for (std::size_t i = points.size(); i-- > 0;) {
            const int x = int(points[i] & 0xFFFFu), y = int(points[i] >> 16);
            if (path.empty()) {
                path.push_back(m_map.index(x, y));
                continue;
            }
            Cell c = m_map.cell(path.back());
            const int dx = (x > c.x) - (x < c.x), dy = (y > c.y) - (y < c.y);
            while (c.x != x || c.y != y) {
                c.x += dx;
                c.y += dy;
                path.push_back(m_map.index(c));
            }
        }
    }

    void finish(const detail::Stream&) {}

private:
    static std::size_t open_bytes(std::uint32_t cap) { return std::size_t(cap) * 2 * (8 + 4); }

    Output& m_out;
    const GridMap& m_map;
    CostMode m_cost;
    Cell m_start, m_goal;
    const JpsGpuOptions& m_options;
    JpsBits m_own_bits;
    const JpsBits& m_bits;
    std::size_t m_shared_limit = 0;  // dynamic shared memory a launch may take
    std::uint32_t m_cap = 0;
    bool m_open_on_chip = true;
    std::uint32_t m_slots = 0;  // the on-chip table's
    bool m_table_on_chip = true;
    detail::Carving m_memory;  // the table, the map, the result and the path
    std::size_t m_vals = 0, m_rows = 0, m_cols = 0, m_result = 0, m_path = 0;
    std::shared_ptr<const std::int16_t> m_jumps;  // the device copy of the jump distances, held, or null
    JpsOut m_result_host{};
    detail::PinnedResult<JpsOut> m_pinned;  // the result and the path, written by the kernel
};

}  // namespace

JpsBits jps_bits(const GridMap& map) {
    GridBits rows = grid_bits(map);  // block A*'s bitmap: the rows
    JpsBits b;
    b.rows = std::move(rows.words);
    b.stride = rows.stride;
    b.passable = rows.passable;
    const int w = map.width(), h = map.height();
    b.width = w;
    b.height = h;
    b.col_stride = (h + 31) / 32;
    b.cols.assign(std::size_t(b.col_stride) * std::size_t(w), 0u);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (b.free(x, y))
                b.cols[std::size_t(x) * std::size_t(b.col_stride) + std::size_t(y >> 5)] |= 1u << (y & 31);
    return b;
}

namespace {

// Free cells of `bits`' lines with a forced neighbour in either direction along the line (the
// kernel's scan, a word at a time).
std::size_t forced_cells(const std::vector<std::uint32_t>& bits, int stride, int lines) {
    std::size_t count = 0;
    for (int r = 0; r < lines; ++r) {
        const std::uint32_t* line = bits.data() + std::size_t(r) * std::size_t(stride);
        const std::uint32_t* a = r > 0 ? line - stride : nullptr;
        const std::uint32_t* b = r + 1 < lines ? line + stride : nullptr;
        for (int w = 0; w < stride; ++w) {
            const std::uint32_t aw = a ? a[w] : 0u, ap = a && w > 0 ? a[w - 1] : 0u,
                                an = a && w + 1 < stride ? a[w + 1] : 0u;
            const std::uint32_t bw = b ? b[w] : 0u, bp = b && w > 0 ? b[w - 1] : 0u,
                                bn = b && w + 1 < stride ? b[w + 1] : 0u;
            const std::uint32_t ahead = (aw & ~(aw << 1 | ap >> 31)) | (bw & ~(bw << 1 | bp >> 31));
            const std::uint32_t back = (aw & ~(aw >> 1 | an << 31)) | (bw & ~(bw >> 1 | bn << 31));
            count += std::size_t(std::popcount((ahead | back) & line[w]));
        }
    }
    return count;
}

}  // namespace

double jump_point_share(const JpsBits& b) {
    if (b.passable == 0) return 0.0;
    const std::size_t along_rows = forced_cells(b.rows, b.stride, b.height);
    const std::size_t along_cols = forced_cells(b.cols, b.col_stride, b.width);
    return double(along_rows + along_cols) / (2.0 * double(b.passable));
}

double scattered_obstacle_share(const JpsBits& b) {
    const auto blocked = [&](int x, int y) {  // outside the map is not an obstacle here
        return x >= 0 && y >= 0 && x < b.width && y < b.height && !b.free(x, y);
    };
    std::size_t obstacles = 0, alone = 0;
    for (int y = 0; y < b.height; ++y)
        for (int x = 0; x < b.width; ++x) {
            if (!blocked(x, y)) continue;
            ++obstacles;
            bool neighbour = false;
            for (int dy = -1; dy <= 1 && !neighbour; ++dy)
                for (int dx = -1; dx <= 1 && !neighbour; ++dx)
                    neighbour = (dx != 0 || dy != 0) && blocked(x + dx, y + dy);
            alone += !neighbour;
        }
    return obstacles == 0 ? 0.0 : double(alone) / double(obstacles);
}

JpsGpuOutput run_jps_gpu(const GridMap& map, CostMode cost, Vertex start, Vertex goal, const JpsGpuOptions& options) {
    JpsGpuOutput out;
    if (options.block_threads < 32 || options.block_threads > 1024 || options.block_threads % 32) {
        out.error = "block_threads must be a multiple of 32 in 32..1024";
        return out;
    }
    if (map.width() > 65535 || map.height() > 65535) {
        out.error = "GPU JPS packs cells in 16 bits per coordinate: maps up to 65535 wide and high";
        return out;
    }
    // g << kValShift must fit 64 bits: at most one diagonal step per cell of the map. The
    // integer metric's always does, up to 65535 x 65535 cells (1.27e19); the real one's up to
    // 1.8e8 cells (about 13,400 x 13,400).
    const double diag = cost == CostMode::Real ? double(RealMetric::diag) : double(IntegerMetric::diag);
    if (double(map.width()) * double(map.height()) * diag * double(1ull << kValShift) >= 1.8e19) {
        out.error = "GPU JPS keeps g in 43 bits: this map is too large for the real metric (use astar.gpu.block)";
        return out;
    }
    if (start == goal) {
        out.cost = 0;
        if (options.want_path) out.path = {start};
        return out;
    }
    run_phases<JpsRun>(out, options.cancel, map, cost, start, goal, options);
    return out;
}

}  // namespace ps::gpu
