// Device code of UBA* and BBA* (the BBA* paper's bucket-queue A*) on the implicit grid graph,
// integer metric. Included by astar_gpu.cu alone (the kernels are defined here, once), the host
// driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
//
// Why it is exact: every improvement of a vertex's g (atomicMin) pushes an entry into the
// bucket of its f; an entry is expanded only while its g is still the vertex's best, so a
// vertex whose g improves later is simply expanded again (label-correcting). With the
// consistent octile heuristic, while the best path found costs more than the optimum some
// entry with f <= optimum is still queued; hence stopping once the lowest non-empty bucket of
// a direction starts at or above the best path cost gives the optimal cost, whatever order
// the queued entries are expanded in — so an iteration may take several buckets at once.
//
// The queue of a direction is a circular window of nb buckets; slot b % nb holds bucket b as
// a ring of `cap` entries with cumulative counters: `total` entries were ever pushed into the
// slot, the first `base` of them were taken. An expanded entry of bucket c has f < (c+1)W and
// one step raises f by at most twice the diagonal cost (consistency) and never lowers it, so
// its pushes land in buckets c .. c + (W-1+2828)/W: taking at most max_extract buckets from the
// lowest one keeps every push inside the window (nb = max_extract + span + 1).
//
// One iteration k: every block reads the state (meta[k & 1], the pushes of iteration k-1, the
// best path and flags as of k-1) and computes the same plan (which buckets each direction
// takes, or that the search is over) — so no block waits for a planner and one grid barrier
// per iteration suffices. Block 0 also writes the state for k+1. Everything written during an
// iteration goes to buffers indexed by k (pushes[k % 3], best[k & 1], flags[k & 1]) that no
// block reads before the barrier, so all blocks see the same inputs. Then all threads expand
// the taken entries, `threads_per_vertex` threads per entry (one per neighbour direction),
// pushes aggregated per warp (one atomicAdd per bucket and warp).
//
// The loop runs in one persistent cooperative kernel (grid barrier between iterations); it
// returns after a batch of iterations so the host can poll for cancellation, then is launched
// again. Where cooperative launch is not possible each iteration is one ordinary launch.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/astar/astar_host.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/search/grid_costs.cuh"

namespace ps::gpu::astar {

namespace cg = cooperative_groups;

inline constexpr std::int32_t kInf = kUnreachedG;       // g of unreached cells (memset 0x7F)
inline constexpr std::int64_t kMaxG = kInf - 1;         // larger costs stop the search
inline constexpr std::int64_t kMaxStepRise = 2 * 1414;  // most f can rise in one step
inline constexpr int kMaxBuckets = 32;                  // window slots per direction (one lane each)
inline constexpr int kMaxExtract = 28;                  // leaves room for the push span of 1000-wide buckets
inline constexpr int kMaxRanges = 2 * kMaxExtract;
inline constexpr unsigned long long kNoBest = ~0ull;
inline constexpr unsigned int kBucketOverflow = 1, kCostOverflow = 2, kWindowError = 4;

struct Entry {
    std::uint32_t v;
    std::int32_t g;
};

struct LogEvent {
    std::uint32_t v, iteration;
    std::uint8_t kind, direction;
};

// The queue state at the start of an iteration.
struct Meta {
    long long cur[2];  // lowest bucket that may be non-empty, per direction
    unsigned long long total[2][kMaxBuckets];
    unsigned long long base[2][kMaxBuckets];
};

struct Control {
    Meta meta[2];                               // meta[k & 1]: state at the start of iteration k
    unsigned int pushes[3][2][kMaxBuckets];     // pushes[k % 3]: entries pushed in iteration k
    unsigned long long best[2];                 // best[k & 1]: (cost << 32) | meeting vertex
    unsigned int flags[2];                      // flags[k & 1]: raised in iteration k
    unsigned int done, end_flags;               // written by block 0 when the search ends
    unsigned long long best_final, iterations;  // block 0: iterations planned so far
    unsigned long long expanded, pushed, extracted, recorded;
    unsigned long long resume;  // persistent kernel: the iteration to plan after block 0 ran alone
};

struct Search {
    const std::uint8_t* cells;
    int width, height;
    bool eight;
    CornerRule corner;    // diagonals on 8-connected grids
    int dirs;             // 1: UBA*, 2: BBA*
    int nb;               // buckets in the window
    int max_extract;      // buckets a direction takes per iteration at most
    unsigned int budget;  // entries a direction takes per iteration (more only from its lowest bucket)
    int tpv_shift;        // log2(threads per vertex)
    std::int64_t bw;      // bucket width
    std::uint64_t cap;    // entries per bucket ring (a power of two)
    Entry* pool;          // dirs * nb rings
    std::int32_t* g[2];
    std::uint32_t target[2];  // direction d searches towards target[d]
    unsigned int solo_limit;  // plans of at most this many entries run in block 0 alone (0: never)
    LogEvent* log;            // null: not recording
    std::uint64_t log_cap;
    std::uint32_t log_stride;
    BlockDelay delay;  // test-only
};

// What every block computes at the start of an iteration (shared memory).
struct Plan {
    long long cur[2];
    unsigned long long put[2][kMaxBuckets];    // ring position of the first push this iteration
    unsigned long long keep[2][kMaxBuckets];   // oldest ring position still needed
    unsigned int range_start[kMaxRanges + 1];  // prefix sums of the taken ranges' sizes
    unsigned long long range_pos[kMaxRanges];
    unsigned char range_dir[kMaxRanges], range_slot[kMaxRanges];
    unsigned int range_count[kMaxRanges];  // per (direction, window offset) before compaction
    int ranges;
    unsigned int buckets;  // buckets taken (empty ones included)
    unsigned long long best_word;
    unsigned int done;
};

__device__ __forceinline__ std::int64_t octile(const Search& s, std::uint32_t v, std::uint32_t t) {
    const int dx = abs(int(v % unsigned(s.width)) - int(t % unsigned(s.width)));
    const int dy = abs(int(v / unsigned(s.width)) - int(t / unsigned(s.width)));
    return 1000ll * max(dx, dy) + 414ll * min(dx, dy);
}

__device__ __forceinline__ bool open_cell(const Search& s, int x, int y) {
    return x >= 0 && y >= 0 && x < s.width && y < s.height && s.cells[std::uint32_t(y) * unsigned(s.width) + x] != 0;
}

__device__ __forceinline__ std::int64_t best_cost(unsigned long long best) {
    return best == kNoBest ? INT64_MAX : std::int64_t(best >> 32);
}

// Neighbour `dir` of v (0..3 E W S N, 4..7 SE SW NE NW: the order of for_each_grid_neighbour,
// same corner rule); false when the move is not allowed.
__device__ __forceinline__ bool neighbour(const Search& s, std::uint32_t v, int dir, std::uint32_t& w, int& cost) {
    const int x = int(v % unsigned(s.width)), y = int(v / unsigned(s.width));
    constexpr int dx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
    constexpr int dy[8] = {0, 0, 1, -1, 1, 1, -1, -1};
    const int nx = x + dx[dir], ny = y + dy[dir];
    if (!open_cell(s, nx, ny)) return false;
    if (dir >= 4) {
        if (!s.eight) return false;
        const bool a = open_cell(s, nx, y), b = open_cell(s, x, ny);
        const bool ok = grid_astar::corner_rule_allows(int(s.corner), a, b);
        if (!ok) return false;
        cost = 1414;
    } else {
        cost = 1000;
    }
    w = std::uint32_t(ny) * unsigned(s.width) + unsigned(nx);
    return true;
}

__device__ __forceinline__ void log_event(const Search& s, Control* ctl, std::uint32_t v, unsigned long long k,
                                          int kind, int d) {
    if (!s.log || v % s.log_stride != 0) return;
    const unsigned long long i = atomicAdd(&ctl->recorded, 1ull);
    if (i < s.log_cap) s.log[i] = LogEvent{v, std::uint32_t(k), std::uint8_t(kind), std::uint8_t(d)};
}

// Warp 0 of every block: reads the state of iteration k and fills `p` — the same in every
// block. Block 0 (`writer`) also writes the state of iteration k+1.
__device__ void plan_iteration(const Search& s, Control* ctl, unsigned long long k, Plan& p, bool writer) {
    const int lane = int(threadIdx.x);
    const volatile Control* v = ctl;
    const volatile Meta& in = v->meta[k & 1];
    const unsigned int prev = unsigned((k + 2) % 3);
    const unsigned long long best_word = v->best[(k + 1) & 1];
    const unsigned int flags = v->flags[(k + 1) & 1];
    const std::int64_t best = best_cost(best_word);
    bool done = flags != 0;
    int taken_lo[2] = {0, 0}, taken_hi[2] = {-1, -1};
    unsigned long long total[2] = {0, 0}, base[2] = {0, 0};
    long long cur[2] = {0, 0};
    for (int d = 0; d < s.dirs; ++d) {
        cur[d] = in.cur[d];
        if (lane < s.nb) {
            total[d] = in.total[d][lane] + v->pushes[prev][d][lane];
            base[d] = in.base[d][lane];
        }
        // Lane j looks at bucket cur + j (slot (cur + j) % nb).
        const unsigned long long queued = total[d] - base[d];
        const int src = int((cur[d] + lane) % s.nb);
        const unsigned long long n = __shfl_sync(0xFFFFFFFFu, queued, lane < s.nb ? src : 0);
        const bool in_window = lane < s.nb;
        const unsigned int nonempty = __ballot_sync(0xFFFFFFFFu, in_window && n > 0);
        if (nonempty == 0) {
            done = true;
            continue;
        }
        const int lo = __ffs(nonempty) - 1;
        if ((cur[d] + lo) * s.bw >= best) {
            done = true;
            continue;
        }
        // Take buckets lo, lo+1, ... while the entries before each stay under the budget,
        // at most max_extract of them, and only buckets that can still hold f < best.
        unsigned long long before = (lane >= lo && in_window) ? n : 0;
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned long long t = __shfl_up_sync(0xFFFFFFFFu, before, o);
            if (lane >= o) before += t;
        }
        before -= (lane >= lo && in_window) ? n : 0;  // exclusive prefix from lo
        const bool take = in_window && lane >= lo && lane < lo + s.max_extract && (cur[d] + lane) * s.bw < best &&
                          (lane == lo || before < s.budget);
        const unsigned int taken = __ballot_sync(0xFFFFFFFFu, take);
        // Contiguous from lo: stop at the first bucket not taken.
        const unsigned int run = ~(taken >> lo);
        const int count = run == 0 ? 32 - lo : __ffs(run) - 1;
        taken_lo[d] = lo;
        taken_hi[d] = lo + count - 1;
        if (lane >= lo && lane - lo < kMaxExtract)
            p.range_count[d * kMaxExtract + (lane - lo)] = lane <= taken_hi[d] ? unsigned(n) : 0u;
    }
    // Slot-indexed results: lane = slot.
    for (int d = 0; d < s.dirs; ++d) {
        if (lane >= s.nb) continue;
        const long long lowest = cur[d] + taken_lo[d];
        const int offset = int(((lane - lowest) % s.nb + s.nb) % s.nb);  // bucket lowest + offset
        const bool taken = !done && offset <= taken_hi[d] - taken_lo[d];
        p.put[d][lane] = total[d];
        p.keep[d][lane] = base[d];
        if (taken) {
            p.range_pos[d * kMaxExtract + offset] = base[d];
            p.range_slot[d * kMaxExtract + offset] = static_cast<unsigned char>(lane);
        }
        if (writer) {
            Meta& out = ctl->meta[(k + 1) & 1];
            out.total[d][lane] = total[d];
            out.base[d][lane] = taken ? total[d] : base[d];
            ctl->pushes[(k + 1) % 3][d][lane] = 0;
        }
    }
    __syncwarp();
    if (lane == 0) {
        int r = 0;
        unsigned int sum = 0;
        unsigned long long extracted = 0;
        if (!done) {
            for (int d = 0; d < s.dirs; ++d) {
                for (int o = 0; o <= taken_hi[d] - taken_lo[d]; ++o) {
                    const int idx = d * kMaxExtract + o;
                    ++extracted;
                    if (p.range_count[idx] == 0) continue;
                    p.range_start[r] = sum;
                    p.range_pos[r] = p.range_pos[idx];
                    p.range_slot[r] = p.range_slot[idx];
                    p.range_dir[r] = static_cast<unsigned char>(d);
                    sum += p.range_count[idx];
                    ++r;
                }
            }
        }
        p.range_start[r] = sum;
        p.ranges = r;
        p.buckets = unsigned(extracted);
        p.done = done ? 1u : 0u;
        p.best_word = best_word;
        for (int d = 0; d < 2; ++d) p.cur[d] = cur[d] + taken_lo[d];
        if (writer) {
            for (int d = 0; d < s.dirs; ++d) ctl->meta[(k + 1) & 1].cur[d] = p.cur[d];
            atomicMin(&ctl->best[k & 1], best_word);
            if (done) {
                ctl->end_flags = flags;
                ctl->best_final = best_word;
                ctl->iterations = k;
                __threadfence();
                ctl->done = 1;
            } else {
                ctl->iterations = k + 1;
            }
        }
    }
}

// Expands the entries of the plan, `1 << tpv_shift` threads per entry, grid-stride; whole warps
// iterate together so pushes can be aggregated per warp.
// `block` of `blocks` blocks takes part (block 0 of 1 when it runs an iteration alone).
__device__ void expand_iteration(const Search& s, Control* ctl, unsigned long long k, const Plan& p, unsigned int block,
                                 unsigned int blocks) {
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned long long work = std::uint64_t(p.range_start[p.ranges]) << s.tpv_shift;
    const unsigned long long stride = std::uint64_t(blocks) * blockDim.x;
    if (block == 0 && threadIdx.x == 0) ctl->extracted += p.buckets;
    const std::int64_t best_snapshot = best_cost(p.best_word);
    const unsigned int tpv_mask = (1u << s.tpv_shift) - 1;
    const int dirs_per_thread = s.tpv_shift == 0 ? (s.eight ? 8 : 4) : 1;
    unsigned int expanded = 0, pushed = 0;
    for (unsigned long long first = std::uint64_t(block) * blockDim.x + (threadIdx.x & ~31u); first < work;
         first += stride) {
        const unsigned long long t = first + lane;
        bool live = t < work;
        const unsigned int i = unsigned(t >> s.tpv_shift);
        const int sub = int(t & tpv_mask);
        Entry e{0, 0};
        int d = 0;
        if (live) {
            // The range holding entry i: the last range_start <= i (binary search).
            int lo = 0, hi = p.ranges - 1;
            while (lo < hi) {
                const int mid = (lo + hi + 1) >> 1;
                if (p.range_start[mid] <= i)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            d = p.range_dir[lo];
            const std::uint64_t pos = (p.range_pos[lo] + (i - p.range_start[lo])) & (s.cap - 1);
            const std::uint64_t at = (std::uint64_t(d) * s.nb + p.range_slot[lo]) * s.cap + pos;
            const unsigned long long raw = __ldcg(reinterpret_cast<const unsigned long long*>(s.pool + at));
            e = Entry{std::uint32_t(raw & 0xFFFFFFFFu), std::int32_t(raw >> 32)};
            // Stale (a better g was pushed since), or unable to beat the best path.
            if (e.g > __ldcg(s.g[d] + e.v) || e.g + octile(s, e.v, s.target[d]) >= best_snapshot) live = false;
        }
        if (live && sub == 0) {
            ++expanded;
            log_event(s, ctl, e.v, k, 1, d);
        }
        for (int n = 0; n < dirs_per_thread; ++n) {
            const int dir = s.tpv_shift == 0 ? n : sub;
            std::uint32_t w = 0;
            int cost = 0;
            bool push = live && dir < (s.eight ? 8 : 4) && neighbour(s, e.v, dir, w, cost);
            std::int64_t ng = 0;
            if (push) {
                ng = std::int64_t(e.g) + cost;
                if (ng > kMaxG) {
                    atomicOr(&ctl->flags[k & 1], kCostOverflow);
                    push = false;
                }
            }
            std::int64_t f = 0;
            if (push) {
                f = ng + octile(s, w, s.target[d]);
                const std::int64_t live_best = best_cost(*static_cast<volatile unsigned long long*>(&ctl->best[k & 1]));
                if (f >= min(best_snapshot, live_best) || atomicMin(&s.g[d][w], std::int32_t(ng)) <= ng) push = false;
            }
            if (push) {
                // Meeting: the fence orders our g write before reading the other direction's,
                // so of two threads meeting at w from both sides at least one sees the other.
                std::int64_t rest = kInf;
                if (s.dirs > 1) {
                    __threadfence();
                    rest = *static_cast<const volatile std::int32_t*>(&s.g[1 - d][w]);
                } else if (w == s.target[d]) {
                    rest = 0;
                }
                if (rest != kInf) atomicMin(&ctl->best[k & 1], (static_cast<unsigned long long>(ng + rest) << 32) | w);
            }
            int slot = 0;
            if (push) {
                const std::int64_t b = f / s.bw;
                if (b < p.cur[d] || b - p.cur[d] >= s.nb) {
                    atomicOr(&ctl->flags[k & 1], kWindowError);
                    push = false;
                }
                slot = int(b % s.nb);
            }
            // One atomicAdd per (direction, slot) and warp.
            const unsigned int pushing = __ballot_sync(0xFFFFFFFFu, push);
            if (pushing == 0) continue;
            if (push) {
                const unsigned int peers = __match_any_sync(pushing, (d << 8) | slot);
                const int leader = __ffs(peers) - 1;
                unsigned int idx0 = 0;
                if (int(lane) == leader) idx0 = atomicAdd(&ctl->pushes[k % 3][d][slot], unsigned(__popc(peers)));
                idx0 = __shfl_sync(peers, idx0, leader);
                const unsigned long long position = p.put[d][slot] + idx0 + __popc(peers & ((1u << lane) - 1u));
                if (position - p.keep[d][slot] >= s.cap) {
                    atomicOr(&ctl->flags[k & 1], kBucketOverflow);
                } else {
                    const std::uint64_t at = (std::uint64_t(d) * s.nb + slot) * s.cap + (position & (s.cap - 1));
                    s.pool[at] = Entry{w, std::int32_t(ng)};
                    ++pushed;
                    log_event(s, ctl, w, k, 0, d);
                }
            }
        }
    }
    expanded = __reduce_add_sync(0xFFFFFFFFu, expanded);
    pushed = __reduce_add_sync(0xFFFFFFFFu, pushed);
    if (lane == 0 && (expanded | pushed)) {
        atomicAdd(&ctl->expanded, static_cast<unsigned long long>(expanded));
        atomicAdd(&ctl->pushed, static_cast<unsigned long long>(pushed));
    }
}

// One iteration per launch (the host-driven loop): launches after the end return at once.
__global__ void __launch_bounds__(1024) astar_iteration(Search s, Control* ctl, unsigned long long k) {
    __shared__ Plan plan;
    __shared__ unsigned int ended;
    // One read per block: block 0 may set `done` during this very launch, and a warp whose
    // lanes disagreed would break the warp-wide steps of the plan. (A block that reads 0 here
    // while block 0 ends the search computes the same plan, which says done.)
    delay_block(s.delay, 0, k);
    if (threadIdx.x == 0) ended = *static_cast<volatile unsigned int*>(&ctl->done);
    __syncthreads();
    if (ended) return;
    delay_block(s.delay, 1, k);
    if (threadIdx.x < 32) plan_iteration(s, ctl, k, plan, blockIdx.x == 0);
    __syncthreads();
    if (plan.done) return;
    expand_iteration(s, ctl, k, plan, blockIdx.x, gridDim.x);
}

// The loop in one cooperative kernel: iterations k0 .. k0 + count - 1, or until the plan says
// the search is over (every block sees it in the same iteration and returns). An iteration
// with at most solo_limit entries (a thin frontier: mazes, the ends of most searches) runs in
// block 0 alone, and so do the following ones while they stay that small: block barriers
// instead of grid barriers, the other blocks waiting at the next grid barrier. A stretch costs
// two grid barriers: one before block 0 writes the next iteration's state (every block has
// read the current one), one at its end. Block 0 then says where to go on, and every block
// plans that iteration again (planning is idempotent).
__global__ void __launch_bounds__(1024)
    persistent_astar(Search s, Control* ctl, unsigned long long k0, unsigned int count) {
    __shared__ Plan plan;
    cg::grid_group grid = cg::this_grid();
    const unsigned long long end = k0 + count;
    for (unsigned long long k = k0; k < end;) {
        delay_block(s.delay, 0, k);
        if (threadIdx.x < 32) plan_iteration(s, ctl, k, plan, blockIdx.x == 0);
        __syncthreads();
        if (plan.done) return;
        if (plan.range_start[plan.ranges] > s.solo_limit) {
            expand_iteration(s, ctl, k, plan, blockIdx.x, gridDim.x);
            grid.sync();
            ++k;
            continue;
        }
        // Block 0 goes on alone and plans iteration k + 1, writing the state (meta, pushes,
        // resume) that a late block may still be reading to plan iteration k: a grid barrier
        // first. Block 0 expands iteration k before it (nothing a planner of k reads), so the
        // others are mostly waiting there already.
        if (blockIdx.x == 0) expand_iteration(s, ctl, k, plan, 0, 1);
        grid.sync();
        if (blockIdx.x == 0) {
            for (;;) {
                if (++k >= end) break;
                if (threadIdx.x < 32) plan_iteration(s, ctl, k, plan, true);
                __syncthreads();
                if (plan.done || plan.range_start[plan.ranges] > s.solo_limit) break;
                expand_iteration(s, ctl, k, plan, 0, 1);
                __syncthreads();
            }
            if (threadIdx.x == 0) ctl->resume = k;
        }
        grid.sync();
        delay_block(s.delay, 1, k);
        k = *static_cast<volatile unsigned long long*>(&ctl->resume);
    }
}

// Walks from `from` back towards the search's source along exact g steps (a predecessor u of
// v has g[u] + step == g[v]), one warp, lane i testing move i; writes at most `cap` vertices
// (predecessors of `from` onwards) and reports how it stopped: 0 the source was reached,
// 1 `cap` vertices written (call again from the last one), 2 stuck (no exact predecessor).
// Replaces downloading the whole g array (gigabytes on huge maps) to walk it on the host.
__global__ void walk_back_kernel(Search s, const std::int32_t* g, std::uint32_t from, std::uint32_t* out,
                                 unsigned int cap, unsigned int* result) {
    const int lane = int(threadIdx.x);
    std::uint32_t v = from;
    unsigned int n = 0, status = 1;
    while (n < cap) {
        const std::int32_t gv = __ldcg(g + v);
        if (gv == 0) {
            status = 0;
            break;
        }
        std::uint32_t u = 0;
        int cost = 0;
        bool ok = lane < (s.eight ? 8 : 4) && neighbour(s, v, lane, u, cost);
        if (ok) {
            const std::int32_t gu = __ldcg(g + u);
            ok = gu != kInf && std::int64_t(gu) + cost == gv;
        }
        const unsigned int found = __ballot_sync(0xFFFFFFFFu, ok);
        if (found == 0) {
            status = 2;
            break;
        }
        v = __shfl_sync(0xFFFFFFFFu, u, __ffs(found) - 1);
        if (lane == 0) out[n] = v;
        ++n;
    }
    if (lane == 0) {
        result[0] = n;
        result[1] = status;
    }
}

}  // namespace ps::gpu::astar
