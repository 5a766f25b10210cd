// Device code of the BBA* paper's GPU A* baselines, LockA* (one heap under a spin lock) and
// GA*-style many heaps, on the implicit grid graph in the integer metric with the octile
// heuristic, on plain maps and on weighted terrain (a step costs (a + b) * 500 orthogonally,
// (a + b) * 707 diagonally for cells costing a and b: 1000 and 1414 on plain cells; the octile
// heuristic is scaled by the least cell cost, so it stays consistent). Included by astar_gpu_baselines.cu alone (the
// kernels are defined here, once), the host driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
//
// Why both are exact: every improvement of a vertex's g (atomicMin) pushes an entry (f, g, v)
// unless f >= the goal's g (the best path so far); an entry is expanded only while its g is
// still the vertex's g. With the consistent octile heuristic, while the goal's g exceeds the
// optimum some vertex of an optimal path sits queued (or is being expanded) with f <= the
// optimum, so stopping once nothing is being expanded and every queued f is >= the goal's g
// gives the optimal cost.
//
// Memory coherence: heaps and g are read with ld.global.cg (L2), never through the
// non-coherent L1, because other SMs write them during the same kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/astar/astar_host.hpp"
#include "kernels/search/grid_costs.cuh"

namespace ps::gpu::astar_baselines {
namespace {

inline constexpr std::int32_t kInf = kUnreachedG;  // g of unreached cells (memset 0x7F)
constexpr std::int64_t kMaxG = kInf - 1;           // larger costs (or f values) stop the search
constexpr int kHeaps = 32;                         // GA*: heaps = blocks
constexpr int kPops = 64;                          // GA*: entries a block pops per iteration = threads
constexpr std::uint64_t kStageCap = std::uint64_t(kHeaps) * kPops * 8;  // most pushes per iteration

struct HeapEntry {
    std::int32_t f;
    std::int32_t g;
    std::uint32_t v;
};

struct Grid {
    const std::uint8_t* cells;
    int width, height;
    bool eight;
    CornerRule corner;     // diagonals on 8-connected grids
    std::int32_t h_scale;  // the least cell cost (1 on plain maps): the octile heuristic's factor
    std::int32_t* g;
    std::uint32_t start, goal;
};

__device__ __forceinline__ std::int64_t octile(const Grid& s, std::uint32_t v) {
    const int dx = abs(int(v % unsigned(s.width)) - int(s.goal % unsigned(s.width)));
    const int dy = abs(int(v / unsigned(s.width)) - int(s.goal / unsigned(s.width)));
    return (1000ll * max(dx, dy) + 414ll * min(dx, dy)) * s.h_scale;
}

__device__ __forceinline__ bool open_cell(const Grid& s, int x, int y) {
    return x >= 0 && y >= 0 && x < s.width && y < s.height && s.cells[std::uint32_t(y) * unsigned(s.width) + x] != 0;
}

// The device twin of for_each_grid_neighbour (same corner rule): f(w, step cost), the cost
// weighted_step_cost() gives in the integer metric.
template <class F>
__device__ __forceinline__ void for_each_neighbour(const Grid& s, std::uint32_t v, F&& f) {
    const std::uint32_t w = unsigned(s.width);
    const int x = int(v % w), y = int(v / w);
    const bool e = open_cell(s, x + 1, y), west = open_cell(s, x - 1, y);
    const bool so = open_cell(s, x, y + 1), n = open_cell(s, x, y - 1);
    const int here = s.cells[v];
    auto step = [&](std::uint32_t to, int half) { f(to, (here + int(s.cells[to])) * half); };
    if (e) step(v + 1, 500);
    if (west) step(v - 1, 500);
    if (so) step(v + w, 500);
    if (n) step(v - w, 500);
    if (!s.eight) return;
    const auto allowed = [&](bool a, bool b) { return grid_astar::corner_rule_allows(int(s.corner), a, b); };
    if (allowed(e, so) && open_cell(s, x + 1, y + 1)) step(v + w + 1, 707);
    if (allowed(west, so) && open_cell(s, x - 1, y + 1)) step(v + w - 1, 707);
    if (allowed(e, n) && open_cell(s, x + 1, y - 1)) step(v - w + 1, 707);
    if (allowed(west, n) && open_cell(s, x - 1, y - 1)) step(v - w - 1, 707);
}

__device__ __forceinline__ std::int32_t load_g(const Grid& s, std::uint32_t v) { return __ldcg(s.g + v); }

__device__ __forceinline__ HeapEntry load(const HeapEntry* p) {
    return HeapEntry{__ldcg(&p->f), __ldcg(&p->g), __ldcg(&p->v)};
}
__device__ __forceinline__ void store(HeapEntry* p, HeapEntry e) {
    __stcg(&p->f, e.f);
    __stcg(&p->g, e.g);
    __stcg(&p->v, e.v);
}
// Heap order: smaller f first, ties by larger g (deeper entries first).
__device__ __forceinline__ bool before(const HeapEntry& a, const HeapEntry& b) {
    return a.f < b.f || (a.f == b.f && a.g > b.g);
}

// Binary heap in global memory; the caller owns it (lock or block) and checks capacity.
__device__ void heap_push(HeapEntry* heap, std::uint32_t size, HeapEntry e) {
    std::uint32_t i = size;
    while (i > 0) {
        const std::uint32_t parent = (i - 1) / 2;
        const HeapEntry p = load(heap + parent);
        if (!before(e, p)) break;
        store(heap + i, p);
        i = parent;
    }
    store(heap + i, e);
}
// Removes the top of a heap of `size` > 0 entries (returned by the caller's load beforehand).
__device__ void heap_pop(HeapEntry* heap, std::uint32_t size) {
    const std::uint32_t n = size - 1;
    if (n == 0) return;
    const HeapEntry last = load(heap + n);
    std::uint32_t i = 0;
    for (;;) {
        const std::uint32_t l = 2 * i + 1;
        if (l >= n) break;
        std::uint32_t c = l;
        HeapEntry child = load(heap + l);
        if (l + 1 < n) {
            const HeapEntry r = load(heap + l + 1);
            if (before(r, child)) {
                child = r;
                c = l + 1;
            }
        }
        if (!before(child, last)) break;
        store(heap + i, child);
        i = c;
    }
    store(heap + i, last);
}

// Relaxes the neighbours of an entry being expanded; calls push(entry) for each improved one
// that may still lead to a better path (the goal itself is never queued: its g is the best).
template <class Push>
__device__ __forceinline__ void relax(const Grid& s, const HeapEntry& e, unsigned int* cost_overflow, Push&& push) {
    for_each_neighbour(s, e.v, [&](std::uint32_t w, int cost) {
        const std::int64_t ng = std::int64_t(e.g) + cost;
        const std::int64_t f = ng + octile(s, w);
        if (ng > kMaxG || f > kMaxG) {
            *static_cast<volatile unsigned int*>(cost_overflow) = 1;
            return;
        }
        if (f >= load_g(s, s.goal)) return;
        if (atomicMin(&s.g[w], std::int32_t(ng)) <= ng) return;
        if (w == s.goal) return;
        push(HeapEntry{std::int32_t(f), std::int32_t(ng), w});
    });
}

// ---- LockA* -----------------------------------------------------------------------------

struct LockCtl {
    int lock;
    unsigned int size;
    unsigned int busy;  // workers between popping an entry and pushing its successors
    unsigned int done;
    unsigned int heap_overflow;
    unsigned int cost_overflow;
    unsigned long long expanded, pushed, pops, iterations;
};

__device__ __forceinline__ void acquire(int* lock) {
    while (atomicCAS(lock, 0, 1) != 0) __nanosleep(64);
    __threadfence();
}
__device__ __forceinline__ void release(int* lock) {
    __threadfence();
    atomicExch(lock, 0);
}

// One thread per block; each runs up to `budget` turns, then returns (never while busy), so
// the host can poll for cancellation between launches.
__global__ void lock_workers(Grid s, HeapEntry* heap, std::uint32_t cap, LockCtl* ctl, int budget) {
    if (threadIdx.x != 0) return;
    volatile LockCtl* c = ctl;
    unsigned long long expanded = 0, pushed = 0, pops = 0;
    for (int turn = 0; turn < budget; ++turn) {
        acquire(&ctl->lock);
        if (c->done) {
            release(&ctl->lock);
            break;
        }
        if (c->heap_overflow || c->cost_overflow) {
            c->done = 1;
            release(&ctl->lock);
            break;
        }
        const std::int32_t best = load_g(s, s.goal);
        HeapEntry e{};
        bool have = false;
        std::uint32_t size = c->size;
        while (size > 0) {
            const HeapEntry top = load(heap);
            if (top.f >= best) break;
            heap_pop(heap, size);
            size -= 1;
            ++pops;
            if (top.g <= load_g(s, top.v)) {
                e = top;
                have = true;
                break;
            }
        }
        c->size = size;
        if (!have) {
            // Queue empty or nothing in it below the best path: done unless someone is
            // still expanding (their pushes may bring better entries).
            if (c->busy == 0) c->done = 1;
            release(&ctl->lock);
            __nanosleep(256);
            continue;
        }
        c->busy = c->busy + 1;
        release(&ctl->lock);

        ++expanded;
        HeapEntry next[8];
        int n = 0;
        relax(s, e, &ctl->cost_overflow, [&](const HeapEntry& x) { next[n++] = x; });

        acquire(&ctl->lock);
        size = c->size;
        for (int i = 0; i < n; ++i) {
            if (size >= cap) {
                c->heap_overflow = 1;  // an entry is lost: the host restarts with more room
                break;
            }
            heap_push(heap, size, next[i]);
            size += 1;
            ++pushed;
        }
        c->size = size;
        c->busy = c->busy - 1;
        release(&ctl->lock);
    }
    atomicAdd(&ctl->expanded, expanded);
    atomicAdd(&ctl->pushed, pushed);
    atomicAdd(&ctl->pops, pops);
}

// ---- GA*-style many heaps ---------------------------------------------------------------

struct HeapsCtl {
    unsigned int size[kHeaps];
    unsigned int stage[2][kHeaps];  // entries staged for each heap, by iteration parity
    unsigned long long popped[3];   // entries popped, by iteration mod 3
    unsigned int done;
    unsigned int heap_overflow;
    unsigned int cost_overflow;
    unsigned int stage_overflow;
    unsigned long long expanded, pushed, iterations;
};

__host__ __device__ __forceinline__ int heap_of(std::uint32_t v) {
    return int(((v * 2654435761u) >> 8) % unsigned(kHeaps));
}

// One iteration: block k first moves the entries staged for heap k into it, then pops up to
// kPops entries below the best path, and its threads expand them, staging the improved
// neighbours for the heap their hash names. Iteration `it` adds its pops to popped[it % 3];
// an iteration after one that popped nothing (every heap's top at or above the best path,
// nothing staged) is the end.
__global__ void __launch_bounds__(kPops)
    heaps_iteration(Grid s, HeapEntry* heaps, std::uint32_t cap, HeapEntry* staging, HeapsCtl* ctl, std::uint64_t it) {
    __shared__ HeapEntry popped[kPops];
    __shared__ int npopped;
    __shared__ bool stop;
    const int k = int(blockIdx.x);
    const int cur = int(it & 1), nxt = cur ^ 1;
    if (threadIdx.x == 0) {
        stop = ctl->done != 0 || ctl->heap_overflow != 0 || ctl->cost_overflow != 0 || ctl->stage_overflow != 0 ||
               (it > 0 && ctl->popped[(it + 2) % 3] == 0);
        npopped = 0;
        if (stop) {
            if (k == 0) ctl->done = 1;
        } else {
            if (k == 0) {
                ctl->popped[(it + 1) % 3] = 0;
                ctl->iterations += 1;
            }
            HeapEntry* heap = heaps + std::uint64_t(k) * cap;
            std::uint32_t size = ctl->size[k];
            const std::int32_t best0 = load_g(s, s.goal);
            const HeapEntry* in = staging + (std::uint64_t(cur) * kHeaps + k) * kStageCap;
            const unsigned int staged = ctl->stage[cur][k];
            for (unsigned int j = 0; j < staged; ++j) {
                const HeapEntry e = load(in + j);
                if (e.g > load_g(s, e.v) || e.f >= best0) continue;  // superseded or useless already
                if (size >= cap) {
                    ctl->heap_overflow = 1;
                    break;
                }
                heap_push(heap, size, e);
                size += 1;
            }
            ctl->stage[cur][k] = 0;
            unsigned long long pops = 0;
            const std::int32_t best = load_g(s, s.goal);
            while (npopped < kPops && size > 0) {
                const HeapEntry top = load(heap);
                if (top.f >= best) break;
                heap_pop(heap, size);
                size -= 1;
                ++pops;
                if (top.g <= load_g(s, top.v)) popped[npopped++] = top;
            }
            ctl->size[k] = size;
            if (pops) atomicAdd(&ctl->popped[it % 3], pops);
        }
    }
    __syncthreads();
    if (stop || int(threadIdx.x) >= npopped) return;
    const HeapEntry e = popped[threadIdx.x];
    if (e.g > load_g(s, e.v) || e.f >= load_g(s, s.goal)) return;
    unsigned long long pushed = 0;
    relax(s, e, &ctl->cost_overflow, [&](const HeapEntry& x) {
        const int h = heap_of(x.v);
        const unsigned int idx = atomicAdd(&ctl->stage[nxt][h], 1u);
        if (idx >= kStageCap) {
            ctl->stage_overflow = 1;  // impossible (kStageCap bounds an iteration's pushes)
            return;
        }
        store(staging + (std::uint64_t(nxt) * kHeaps + h) * kStageCap + idx, x);
        ++pushed;
    });
    atomicAdd(&ctl->expanded, 1ull);
    if (pushed) atomicAdd(&ctl->pushed, pushed);
}

}  // namespace
}  // namespace ps::gpu::astar_baselines
