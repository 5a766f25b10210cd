// Device code of batch.gpu.*: one thread per agent, each running its own A* (or Dijkstra) with a
// working set in global memory, under four scheduling strategies (bsp, batch, queue, permute).
// See kernels/batch/batch_gpu.hpp for the layout of the working set.
//
// The search itself (heap, compaction, generations, heuristic) is written once as
// __host__ __device__ functions, so emulate_batch_gpu() runs exactly the device algorithm on
// the CPU for tests on machines without a GPU. Included by batch_gpu.cu alone (the kernels are
// defined here, once), the host driver that runs them in the phases of kernels/gpu/gpu_run.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/batch/batch_plan.hpp"
#include "kernels/gpu/cuda_util.cuh"

namespace ps::gpu::batch {

using u32 = std::uint32_t;
using u64 = unsigned long long;
static_assert(sizeof(u64) == sizeof(std::uint64_t));

// ---- the graph on the device --------------------------------------------------------------
// An edge carries its target's x and y (Euclid), so that relaxing it needs one 16-byte load
// rather than an edge load followed by a dependent coordinate load.
struct Edge {
    u32 to;
    float w;
    float x, y;
};

enum class HKind : u32 { Zero, Grid, Euclid };

struct Graph {
    const uint2* ranges;  // per vertex: its edges' begin and end (one load instead of two)
    const Edge* edges;
    const float4* coords;  // Euclid only
    bool has_z;            // Euclid: some vertex has z != 0 (relaxing then also loads coords[to].z)
    u32 vertices;
    u32 grid_width;  // Grid only
    HKind h;
    float orth, diag;  // Grid: step costs of the metric
    float scale;       // Euclid: h = scale * distance
};

// Rounded float arithmetic that the compiler may not fuse: push and compaction compute the same
// key for a vertex and must get the same bits.
__host__ __device__ inline float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
__host__ __device__ inline float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
__host__ __device__ inline float sqrt_rn(float a) {
#ifdef __CUDA_ARCH__
    return __fsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}
__host__ __device__ inline u32 float_bits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    u32 u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}
__host__ __device__ inline float bits_float(u32 u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

__host__ __device__ inline uint2 load_range(const Graph& g, u32 v) {
#ifdef __CUDA_ARCH__
    return __ldg(g.ranges + v);
#else
    return g.ranges[v];
#endif
}
// An edge's target and weight only (its first 8 bytes), and its target's x, y (the last 8).
__host__ __device__ inline uint2 load_edge_head(const Graph& g, u32 e) {
#ifdef __CUDA_ARCH__
    return __ldg(reinterpret_cast<const uint2*>(g.edges) + 2 * u64(e));
#else
    return make_uint2(g.edges[e].to, float_bits(g.edges[e].w));
#endif
}
__host__ __device__ inline float2 load_edge_xy(const Graph& g, u32 e) {
#ifdef __CUDA_ARCH__
    return __ldg(reinterpret_cast<const float2*>(g.edges) + 2 * u64(e) + 1);
#else
    return make_float2(g.edges[e].x, g.edges[e].y);
#endif
}
__host__ __device__ inline float4 load_coord(const Graph& g, u32 v) {
#ifdef __CUDA_ARCH__
    return __ldg(g.coords + v);
#else
    return g.coords[v];
#endif
}

// The goal of one search, with what the heuristic needs of it kept in registers.
struct Target {
    u32 goal;
    u32 gx, gy;
    float4 c;
};

__host__ __device__ inline Target make_target(const Graph& g, u32 goal) {
    Target t{goal, 0, 0, {0, 0, 0, 0}};
    if (g.h == HKind::Grid) {
        t.gx = goal % g.grid_width;
        t.gy = goal / g.grid_width;
    } else if (g.h == HKind::Euclid) {
        t.c = load_coord(g, goal);
    }
    return t;
}

__host__ __device__ inline float euclid(const Graph& g, const Target& t, float x, float y, float z) {
    const float dx = x - t.c.x, dy = y - t.c.y, dz = z - t.c.z;
    return mul_rn(g.scale, sqrt_rn(add_rn(add_rn(mul_rn(dx, dx), mul_rn(dy, dy)), mul_rn(dz, dz))));
}

__host__ __device__ inline float heuristic(const Graph& g, const Target& t, u32 v) {
    if (g.h == HKind::Grid) {
        const u32 x = v % g.grid_width, y = v / g.grid_width;
        const float dx = float(x > t.gx ? x - t.gx : t.gx - x);
        const float dy = float(y > t.gy ? y - t.gy : t.gy - y);
        const float lo = dx < dy ? dx : dy;
        const float hi = dx < dy ? dy : dx;
        return add_rn(mul_rn(g.diag, lo), mul_rn(g.orth, hi - lo));
    }
    if (g.h == HKind::Euclid) {
        const float4 c = load_coord(g, v);
        return euclid(g, t, c.x, c.y, c.z);
    }
    return 0.0f;
}

// h of an edge's target: the same bits as heuristic(g, t, edge.to), without the coordinate
// load in two dimensions (compaction recomputes keys with heuristic() and must match).
__host__ __device__ inline float heuristic_at(const Graph& g, const Target& t, u32 e, u32 to) {
    if (g.h != HKind::Euclid) return heuristic(g, t, to);
    const float2 xy = load_edge_xy(g, e);
    return euclid(g, t, xy.x, xy.y, g.has_z ? load_coord(g, to).z : 0.0f);
}

// ---- the working set ----------------------------------------------------------------------
// Vertex state: tag (generation << 2 | mark | closed) in the high word, g (float) in the low.
// Heap entry: f (float, >= 0, so its bits order like the value) in the high word, vertex in
// the low: one 64-bit comparison orders entries (ties by vertex id).
constexpr u32 kClosed = 1, kMark = 2;

struct Work {
    u64* state;
    u64* heap;
    u64 state_v, state_s;  // state of vertex v in slot s: state[v * state_v + s * state_s]
    u64 heap_i, heap_s;    // heap entry i of slot s: heap[i * heap_i + s * heap_s]
    u32 capacity;          // heap entries per slot
    u32 top;               // heap entries kept in on-chip memory (the top levels; 0 = none)
};

// The heap's layout (4-ary, stored from index 3: kArity, kHeapOffset, heap_entries) and the
// on-chip top levels (top_entries) are in kernels/batch/batch_plan.hpp, which the memory plan
// shares.

struct Slot {
    u64* state;
    u64* heap;
    u64 sv, hi;
    u64* top;  // entries 0 .. top_n-1 (on-chip), stride ts
    u32 ts, top_n;
    __host__ __device__ u64& S(u32 v) const { return state[u64(v) * sv]; }
    __host__ __device__ u64& H(u32 i) const { return i < top_n ? top[u64(i) * ts] : heap[(u64(i) + kHeapOffset) * hi]; }
};

// Slot s of the working set, with its heap's top entries at `top` (stride `ts`).
__host__ __device__ inline Slot slot_of(const Work& w, u64 s, u64* top, u32 ts) {
    return {w.state + s * w.state_s, w.heap + s * w.heap_s, w.state_v, w.heap_i, top, ts, top ? w.top : 0u};
}

#ifdef __CUDACC__
// This thread's slot, its heap top in the block's dynamic shared memory (Work::top entries).
__device__ inline Slot device_slot(const Work& w, u64 s) {
    extern __shared__ u64 top_levels[];
    return slot_of(w, s, w.top ? top_levels + threadIdx.x : nullptr, blockDim.x);
}
#endif

__host__ __device__ inline u64 make_key(float f, u32 v) { return (u64(float_bits(f)) << 32) | v; }
__host__ __device__ inline u64 make_state(u32 tag, float g) { return (u64(tag) << 32) | float_bits(g); }

__host__ __device__ inline void heap_push(const Slot& s, u32& size, u64 entry) {
    u32 i = size++;
    while (i > 0) {
        const u32 parent = (i - 1) / kArity;
        const u64 p = s.H(parent);
        if (p <= entry) break;
        s.H(i) = p;
        i = parent;
    }
    s.H(i) = entry;
}

// The smallest child of i in a heap of n entries (i must have one); returns its index.
__host__ __device__ inline u32 min_child(const Slot& s, u32 n, u32 i, u64& value) {
    u32 best = kArity * i + 1;
    const u32 last = best + kArity - 1 < n - 1 ? best + kArity - 1 : n - 1;
    if (best >= s.top_n && s.hi == 1) {
        // Blocked layout in global memory: the four siblings are one aligned 32-byte sector,
        // read with two 16-byte loads (entries past the heap's end are ignored).
        const u64* p = s.heap + best + kHeapOffset;
#ifdef __CUDA_ARCH__
        const ulonglong2 lo = reinterpret_cast<const ulonglong2*>(p)[0];
        const ulonglong2 hi = reinterpret_cast<const ulonglong2*>(p)[1];
        const u64 c[kArity] = {lo.x, lo.y, hi.x, hi.y};
#else
        const u64 c[kArity] = {p[0], p[1], p[2], p[3]};
#endif
        const u32 first = best;
        value = c[0];
        for (u32 k = 1; k < kArity; ++k) {
            if (first + k <= last && c[k] < value) {
                value = c[k];
                best = first + k;
            }
        }
        return best;
    }
    value = s.H(best);
    for (u32 c = best + 1; c <= last; ++c) {
        const u64 v = s.H(c);
        if (v < value) {
            value = v;
            best = c;
        }
    }
    return best;
}

__host__ __device__ inline void sift_down(const Slot& s, u32 n, u32 i, u64 entry) {
    while (kArity * i + 1 < n) {
        u64 c;
        const u32 child = min_child(s, n, i, c);
        if (entry <= c) break;
        s.H(i) = c;
        i = child;
    }
    s.H(i) = entry;
}

// Bottom-up removal of the top entry (as the CPU reference's heap): the hole walks down along
// the smallest children to a leaf, then the last entry sifts up from there; it came from the
// bottom, so it rarely climbs far. Requires size > 0. The caller reads the top (s.H(0)) first.
__host__ __device__ inline void heap_remove_top(const Slot& s, u32& size) {
    const u32 n = --size;
    if (n == 0) return;
    const u64 last = s.H(n);
    u32 i = 0;
    while (kArity * i + 1 < n) {
        u64 c;
        const u32 child = min_child(s, n, i, c);
        s.H(i) = c;
        i = child;
    }
    while (i > 0) {
        const u32 parent = (i - 1) / kArity;
        const u64 p = s.H(parent);
        if (p <= last) break;
        s.H(i) = p;
        i = parent;
    }
    s.H(i) = last;
}

struct Search {
    Target t;
    u32 tag;    // generation << 2
    u32 size;   // heap entries
    u32 steps;  // vertices expanded
};

enum Status : u32 { kRunning = 0, kFound = 1, kUnreachable = 2, kOverflow = 3 };

__host__ __device__ inline void start_search(const Graph& g, const Slot& s, Search& q, u32 gen, u32 start, u32 goal) {
    q.t = make_target(g, goal);
    q.tag = gen << 2;
    q.steps = 0;
    q.size = 0;
    s.S(start) = make_state(q.tag, 0.0f);
    heap_push(s, q.size, make_key(heuristic(g, q.t, start), start));
}

// Lazy deletion leaves older entries of improved vertices behind; a full heap keeps, for every
// open vertex, only the entry with its current key (recomputed bit for bit; the mark bit drops
// exact duplicates), then restores heap order. Afterwards it holds at most one entry per open
// vertex, so a capacity of the vertex count never overflows.
__host__ __device__ inline void compact(const Graph& g, const Slot& s, Search& q) {
    u32 n = 0;
    for (u32 i = 0; i < q.size; ++i) {
        const u64 e = s.H(i);
        const u32 v = u32(e);
        const u64 st = s.S(v);
        const u32 tag = u32(st >> 32);
        if ((tag & ~3u) != q.tag || (tag & (kClosed | kMark)) != 0) continue;
        if (make_key(add_rn(bits_float(u32(st)), heuristic(g, q.t, v)), v) != e) continue;
        s.S(v) = st | (u64(kMark) << 32);
        s.H(n++) = e;  // n <= i: never overwrites an entry not yet read
    }
    for (u32 i = 0; i < n; ++i) {
        const u32 v = u32(s.H(i));
        s.S(v) &= ~(u64(kMark) << 32);
    }
    q.size = n;
    for (u32 i = n / kArity + 1; i-- > 0;)
        if (kArity * i + 1 < n) sift_down(s, n, i, s.H(i));
}

// One expansion: pops until an open vertex comes out (outdated entries are skipped), closes
// it and relaxes its edges. Returns kRunning, or how the search ended (`cost` set if found).
// Unrolled on the device (the batch arrays must stay in registers); the host ignores it.
#ifdef __CUDA_ARCH__
#define PS_UNROLL _Pragma("unroll")
#else
#define PS_UNROLL
#endif

// Edges relaxed per batch (see expand_one): 3 measured best on the H100 (100k agents: queue
// 32.5 -> 29.7 ms compute against one at a time; 2: 30.7, 4: 30.3, its arrays spill).
constexpr u32 kRelaxBatch = 3;

__host__ __device__ inline Status expand_one(const Graph& g, const Slot& s, u32 capacity, Search& q, float& cost,
                                             u32& compactions) {
    for (;;) {
        if (q.size == 0) return kUnreachable;
        // The popped vertex's state and edge range are loaded before the heap is repaired, so
        // their latency hides behind the repair's (and before knowing whether v is closed).
        const u32 v = u32(s.H(0));
        const u64 st = s.S(v);
        const uint2 range = load_range(g, v);
        heap_remove_top(s, q.size);
        if ((u32(st >> 32) & kClosed) != 0) continue;
        s.S(v) = st | (u64(kClosed) << 32);
        ++q.steps;
        const float gv = bits_float(u32(st));
        if (v == q.t.goal) {
            cost = gv;
            return kFound;
        }
        // The edges go kRelaxBatch at a time: their loads, then their targets' state loads, are
        // issued together (independent: one memory latency per batch instead of one per edge),
        // then the edges are relaxed in order.
        for (u32 base = range.x; base < range.y; base += kRelaxBatch) {
            const u32 n = range.y - base < kRelaxBatch ? range.y - base : kRelaxBatch;
            uint2 edge[kRelaxBatch];  // (target, weight bits)
            u64 sw[kRelaxBatch];
            PS_UNROLL
            for (u32 k = 0; k < kRelaxBatch; ++k)
                if (k < n) edge[k] = load_edge_head(g, base + k);
            PS_UNROLL
            for (u32 k = 0; k < kRelaxBatch; ++k)
                if (k < n) sw[k] = s.S(edge[k].x);
            PS_UNROLL
            for (u32 k = 0; k < kRelaxBatch; ++k) {
                if (k >= n) break;
                const u32 to = edge[k].x;
                // A parallel edge earlier in this batch may have changed the target's state.
                for (u32 j = 0; j < k; ++j)
                    if (edge[j].x == to) sw[k] = s.S(to);
                const float ng = add_rn(gv, bits_float(edge[k].y));
                const u32 tw = u32(sw[k] >> 32);
                if ((tw & ~3u) == q.tag && ((tw & kClosed) != 0 || !(ng < bits_float(u32(sw[k]))))) continue;
                s.S(to) = make_state(q.tag, ng);
                if (q.size == capacity) {
                    compact(g, s, q);  // toggles mark bits only: the states read above stay valid
                    ++compactions;
                    if (q.size == capacity) return kOverflow;
                }
                heap_push(s, q.size, make_key(add_rn(ng, heuristic_at(g, q.t, base + k, to)), to));
            }
        }
        return kRunning;
    }
}

// ---- agents and kernels -------------------------------------------------------------------
struct Agents {
    const uint2* pairs;  // (start, goal)
    float* cost;         // -1 unreachable, -2 heap overflow
    u32* steps;
    const u32* order;  // position -> agent (shuffled or longest first); null: the identity
    u64* t_start;      // stamp_agents: %globaltimer at the agent's start and end, and its SM;
    u64* t_end;        // null otherwise
    u32* sm;
};

__device__ inline u32 sm_id() {
    u32 id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
__device__ inline void stamp_start(const Agents& a, u32 agent) {
    if (!a.t_start) return;
    a.t_start[agent] = global_timer();
    a.sm[agent] = sm_id();
}

struct Control {
    unsigned long long next;  // queue: next agent to hand out
    unsigned int done;        // bsp: agents finished in this chunk
    unsigned int overflows;
    unsigned long long compactions;
};

// bsp: what a slot carries from one launch to the next.
struct SlotState {
    u32 agent;
    u32 size;
    u32 steps;
    u32 running;
};

__host__ __device__ inline float result_cost(Status st, float cost) {
    return st == kFound ? cost : st == kUnreachable ? -1.0f : -2.0f;
}

__device__ inline void report(const Agents& a, u32 agent, Status st, float cost, u32 steps, Control* ctl,
                              u32 compactions) {
    a.cost[agent] = result_cost(st, cost);
    a.steps[agent] = steps;
    if (a.t_end) a.t_end[agent] = global_timer();
    if (st == kOverflow) atomicAdd(&ctl->overflows, 1u);
    if (compactions) atomicAdd(&ctl->compactions, u64(compactions));
}

__device__ inline void run_agent(const Graph& g, const Work& w, const Agents& a, Control* ctl, u64 slot, u32 gen,
                                 u32 agent) {
    stamp_start(a, agent);
    const Slot s = device_slot(w, slot);
    const uint2 pair = a.pairs[agent];
    Search q;
    start_search(g, s, q, gen, pair.x, pair.y);
    float cost = 0;
    u32 compactions = 0;
    Status st;
    while ((st = expand_one(g, s, w.capacity, q, cost, compactions)) == kRunning) {
    }
    report(a, agent, st, cost, q.steps, ctl, compactions);
}

// batch and permute: a thread per agent of the chunk, each to completion.
// batch and queue kernels: up to 80 registers (the relaxation batch's arrays fit without
// spilling) leave room for 768 threads per SM: 100,000 searches resident at once on the H100.
constexpr int kMaxRegisters = 80;

__global__ void __maxnreg__(kMaxRegisters)
    batch_run(Graph g, Work w, Agents a, Control* ctl, u32 first, u32 count, u32 gen) {
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const u32 pos = first + t;
    run_agent(g, w, a, ctl, t, gen, a.order ? a.order[pos] : pos);
}

// queue: persistent threads; the first `per` agents of a thread are pre-assigned (no atomic at
// start-up, as the Diderot study does), later ones come from the global counter.
__global__ void __maxnreg__(kMaxRegisters)
    queue_run(Graph g, Work w, Agents a, Control* ctl, u32 agents, u32 threads, u32 per) {
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    u32 gen = 0;
    for (u64 begin = u64(t) * per; begin < agents; begin = atomicAdd(&ctl->next, u64(per))) {
        const u64 end = begin + per < agents ? begin + per : agents;
        for (u64 pos = begin; pos < end; ++pos) run_agent(g, w, a, ctl, t, ++gen, a.order ? a.order[pos] : u32(pos));
    }
}

// bsp: seed every slot of the chunk, then one expansion per launch.
__global__ void __launch_bounds__(1024)
    bsp_init(Graph g, Work w, Agents a, SlotState* slots, u32 first, u32 count, u32 gen) {
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const uint2 pair = a.pairs[first + t];
    stamp_start(a, first + t);
    Search q;
    start_search(g, slot_of(w, t, nullptr, 0), q, gen, pair.x, pair.y);
    slots[t] = {first + t, q.size, 0, 1};
}

__global__ void __launch_bounds__(1024)
    bsp_step(Graph g, Work w, Agents a, SlotState* slots, Control* ctl, u32 count, u32 gen) {
    const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    SlotState ss = slots[t];
    if (!ss.running) return;
    Search q;
    q.t = make_target(g, a.pairs[ss.agent].y);
    q.tag = gen << 2;
    q.size = ss.size;
    q.steps = ss.steps;
    float cost = 0;
    u32 compactions = 0;
    const Status st = expand_one(g, slot_of(w, t, nullptr, 0), w.capacity, q, cost, compactions);
    ss.size = q.size;
    ss.steps = q.steps;
    if (st != kRunning) {
        ss.running = 0;
        report(a, ss.agent, st, cost, q.steps, ctl, compactions);
        atomicAdd(&ctl->done, 1u);
    } else if (compactions) {
        atomicAdd(&ctl->compactions, u64(compactions));
    }
    slots[t] = ss;
}

// What the memory plan (batch_plan.hpp) counts for these types.
static_assert(sizeof(uint2) == kRangeBytes && sizeof(uint2) == kPairBytes);
static_assert(sizeof(Edge) == kEdgeBytes);
static_assert(sizeof(float4) == kCoordBytes);
static_assert(sizeof(SlotState) == kSlotStateBytes);
static_assert(sizeof(Control) == kControlBytes);

}  // namespace ps::gpu::batch
