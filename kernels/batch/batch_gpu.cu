// batch.gpu.*: one thread per agent, each running its own A* (or Dijkstra) with a working set
// in global memory, under four scheduling strategies (bsp, batch, queue, permute) and with
// explicit or unified memory. See kernels/batch/batch_gpu.hpp for the layout of the working set.
//
// The search itself (heap, compaction, generations, heuristic) is written once as
// __host__ __device__ functions, so emulate_batch_gpu() runs exactly the device algorithm on
// the CPU for tests on machines without a GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <cstring>
#include <limits>

#include "instrumentation/nvtx.hpp"
#include "kernels/batch/batch_cpu.hpp"
#include "kernels/batch/batch_gpu.hpp"
#include "kernels/batch/batch_plan.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_info.hpp"

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

namespace ps::gpu {
namespace {

using batch::u32;
using batch::u64;
using detail::check;
using detail::CudaError;
using detail::mib;
using Clock = std::chrono::steady_clock;

// ---- host-side preparation ----------------------------------------------------------------
struct HostGraph {
    std::vector<uint2> ranges;
    std::vector<batch::Edge> edges;
    std::vector<float4> coords;
    bool has_z = false;
    batch::HKind h = batch::HKind::Zero;
    float orth = 1, diag = 1, scale = 1;
    std::string heuristic;
};

// Shrinks a heuristic a little below the metric so that float rounding of g sums can never
// make it overestimate (costs stay within 1e-6 of optimal instead of exactly equal to it).
constexpr double kFloatSafety = 1.0 - 1e-6;

HostGraph prepare_graph(const CsrGraph& graph, bool zero_heuristic) {
    HostGraph hg;
    const std::size_t m = graph.targets.size();
    hg.edges.resize(m);
    for (std::size_t e = 0; e < m; ++e) hg.edges[e] = {graph.targets[e], float(graph.weight(std::uint32_t(e))), 0, 0};
    hg.ranges.resize(graph.vertex_count());
    for (u32 v = 0; v < graph.vertex_count(); ++v) hg.ranges[v] = make_uint2(graph.offsets[v], graph.offsets[v + 1]);
    // The same choice as batch.cpu (kernels/batch/batch_cpu.hpp), so both expand comparably.
    const BatchHeuristic h = choose_batch_heuristic(graph, zero_heuristic);
    hg.heuristic = describe(h);
    switch (h.kind) {
    case BatchHeuristic::Kind::Grid: {
        // Integer and unit metrics sum exactly in float; 1/sqrt2 sums round.
        const double safety = h.diag == kSqrt2 ? kFloatSafety : 1.0;
        hg.h = batch::HKind::Grid;
        hg.orth = float(h.orth * safety);
        hg.diag = float(h.diag * safety);
        break;
    }
    case BatchHeuristic::Kind::Coords:
        hg.h = batch::HKind::Euclid;
        hg.scale = float(std::min(h.scale, 1e30) * kFloatSafety);
        hg.coords.resize(graph.vertex_count());
        for (u32 v = 0; v < graph.vertex_count(); ++v)
            hg.coords[v] =
                make_float4(float(graph.coords[v].x), float(graph.coords[v].y), float(graph.coords[v].z), 0.0f);
        for (auto& e : hg.edges) {
            e.x = hg.coords[e.to].x;
            e.y = hg.coords[e.to].y;
        }
        hg.has_z = std::any_of(hg.coords.begin(), hg.coords.end(), [](const float4& c) { return c.z != 0.0f; });
        break;
    case BatchHeuristic::Kind::Zero:
        break;
    }
    return hg;
}

batch::Work make_work(u64* state, u64* heap, BatchLayout layout, std::uint64_t slots, std::uint64_t vertices,
                      std::uint32_t capacity, std::uint32_t top) {
    if (layout == BatchLayout::Interleaved) return {state, heap, slots, 1, slots, 1, capacity, top};
    return {state, heap, 1, vertices, 1, batch::heap_entries(capacity), capacity, top};
}

// Dynamic shared memory of a launch with `block` threads, and the kernel allowed to take it.
template <class Kernel>
std::size_t shared_bytes(Kernel kernel, std::uint32_t top, int block) {
    const std::size_t bytes = std::size_t(top) * sizeof(u64) * std::size_t(block);
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "reserving shared memory for the heap tops (lower shared_levels or block)");
    return bytes;
}

std::string capacity_message(std::uint32_t capacity) {
    return "an agent's open list outgrew the heap (heap_capacity=" + std::to_string(capacity) +
           " entries even after compaction): raise heap_capacity, or use 0 (the vertex count, never too small)";
}

// ---- memory: explicit (cudaMalloc) or unified (cudaMallocManaged, never over-subscribed) ---
template <class T>
class Buffer {
public:
    Buffer() = default;
    ~Buffer() { release(); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    void allocate(std::size_t count, bool unified, const char* what) {
        release();
        m_unified = unified;
        if (!unified) {
            m_device.allocate(count, what);
            return;
        }
        const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
        // Over-subscribed managed memory can hang the GPU for every user of the machine:
        // refuse anything that does not fit what is free now.
        std::size_t free = 0, total = 0;
        check(cudaMemGetInfo(&free, &total), "querying free GPU memory");
        if (bytes > free)
            throw CudaError("unified memory: " + std::string(what) + " needs " + mib(bytes) + " but only " + mib(free) +
                            " of " + mib(total) + " is free on the GPU; refusing to over-subscribe managed memory");
        void* p = nullptr;
        const cudaError_t err = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
        if (err != cudaSuccess) {
            cudaGetLastError();
            throw CudaError("allocating unified memory for " + std::string(what) + " (" + mib(bytes) +
                            "): " + cudaGetErrorString(err));
        }
        m_managed = static_cast<T*>(p);
    }
    void release() {
        m_device.release();
        if (m_managed) cudaFree(m_managed);
        m_managed = nullptr;
    }
    T* get() const { return m_unified ? m_managed : m_device.get(); }

    // Inputs: a copy (explicit; through `staging`, pinned memory for `count` Ts, when given) or
    // a host write plus a prefetch to the device (unified).
    void upload(const T* host, std::size_t count, cudaStream_t stream, int device, bool prefetch, const char* what,
                T* staging = nullptr) {
        if (count == 0) return;
        if (!m_unified) {
            if (staging && staging != host) std::memcpy(staging, host, count * sizeof(T));
            check(cudaMemcpyAsync(get(), staging ? staging : host, count * sizeof(T), cudaMemcpyHostToDevice, stream),
                  what);
            return;
        }
        std::memcpy(m_managed, host, count * sizeof(T));
        if (prefetch) to_device(count, stream, device, what);
    }
    // Unified: migrate the pages to the device now instead of on first touch in the kernel
    // (page faults of a multi-GB working set cost more than the searches). Explicit: nothing.
    void to_device(std::size_t count, cudaStream_t stream, int device, const char* what) {
        if (!m_unified || count == 0) return;
        cudaMemLocation location{};
        location.type = cudaMemLocationTypeDevice;
        location.id = device;
        check(cudaMemPrefetchAsync(m_managed, count * sizeof(T), location, 0, stream), what);
    }
    // Results: with `staging` (explicit memory), copied there now and into `host` by one of
    // `after_sync` once the stream has finished; else straight into `host`.
    void download(T* host, std::size_t count, cudaStream_t stream, const char* what, T* staging,
                  std::vector<std::function<void()>>& after_sync) const {
        if (count == 0) return;
        if (!m_unified) {
            check(cudaMemcpyAsync(staging ? staging : host, get(), count * sizeof(T), cudaMemcpyDeviceToHost, stream),
                  what);
            if (staging) after_sync.push_back([=] { std::memcpy(host, staging, count * sizeof(T)); });
            return;
        }
        check(cudaStreamSynchronize(stream), what);
        std::memcpy(host, m_managed, count * sizeof(T));
    }

private:
    detail::DeviceBuffer<T> m_device;
    T* m_managed = nullptr;
    bool m_unified = false;
};

std::uint64_t budget_for(const BatchGpuOptions& o) {
    return batch::memory_budget(gpu_free_bytes(), gpu_info().total_bytes, o.max_working_set_bytes);
}

// The memory plan for the free memory now: the queue's persistent threads come from the
// kernel's occupancy, the other strategies want a slot per agent.
BatchMemoryPlan plan_now(const CsrGraph& graph, std::uint64_t n_agents, const BatchGpuOptions& o) {
    const int bs = o.block_size;
    const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
    std::uint64_t wanted_slots = 0;
    if (o.strategy == BatchStrategy::Queue) {
        int per_sm = 0;
        const std::uint32_t top = batch::top_entries(o, batch::heap_capacity(o, graph.vertex_count()));
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, batch::queue_run, bs,
                                                            shared_bytes(batch::queue_run, top, bs)),
              "querying occupancy for the queue kernel");
        if (per_sm < 1) throw CudaError("the queue kernel cannot run with " + std::to_string(bs) + "-thread blocks");
        const std::uint64_t grid = o.grid_size > 0 ? std::uint64_t(o.grid_size) : std::uint64_t(per_sm) * sms;
        const std::uint64_t per = std::uint64_t(o.per_dequeue);
        wanted_slots = std::max<std::uint64_t>(1, std::min(grid * std::uint64_t(bs), (n_agents + per - 1) / per));
    }
    return plan_batch_memory(graph.vertex_count(), graph.edge_count(), !graph.coords.empty() && !o.zero_heuristic,
                             n_agents, o, budget_for(o), wanted_slots);
}

void run(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents, const BatchGpuOptions& o,
         BatchGpuOutput& out) {
    const std::uint64_t n_agents = agents.size();
    const std::uint64_t vertices = graph.vertex_count();
    const bool unified = o.memory == BatchMemory::Unified;
    const int bs = o.block_size;
    int device = 0;
    check(cudaGetDevice(&device), "querying the device");
    int concurrent_managed = 0;
    check(cudaDeviceGetAttribute(&concurrent_managed, cudaDevAttrConcurrentManagedAccess, device),
          "querying unified memory support");
    const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;

    if (o.strategy != BatchStrategy::Bsp) {
        cudaFuncAttributes attributes{};
        check(cudaFuncGetAttributes(&attributes, batch::batch_run), "querying the batch kernel");
        if (bs > attributes.maxThreadsPerBlock)
            throw CudaError("block must be at most " + std::to_string(attributes.maxThreadsPerBlock) + " for " +
                            std::string(to_string(o.strategy)) + " (its kernel uses up to " +
                            std::to_string(batch::kMaxRegisters) + " registers per thread), got " + std::to_string(bs));
    }
    // The memory plan, before anything is allocated.
    out.plan = plan_now(graph, n_agents, o);
    if (!out.plan.error.empty()) throw CudaError(out.plan.error);
    const std::uint64_t slots = out.plan.slots;
    const std::uint32_t capacity = batch::heap_capacity(o, vertices);

    detail::Stream stream;
    detail::Event compute_start, compute_end;
    detail::PinnedValue<batch::Control> host_ctl;
    nvtx::PhaseSequence phase;

    const auto t0 = Clock::now();
    phase.begin(nvtx::Phase::Allocate, "allocate");
    Buffer<uint2> d_ranges;
    Buffer<u32> d_order;
    Buffer<batch::Edge> d_edges;
    Buffer<float4> d_coords;
    Buffer<uint2> d_pairs;
    Buffer<float> d_cost;
    Buffer<u32> d_steps;
    Buffer<u64> d_state, d_heap;
    Buffer<batch::SlotState> d_slots;
    Buffer<batch::Control> d_ctl;
    Buffer<u64> d_t_start, d_t_end;
    Buffer<u32> d_sm;
    d_ranges.allocate(vertices, unified, "the edge ranges");
    d_edges.allocate(graph.targets.size(), unified, "the edges");
    const bool wants_coords = !graph.coords.empty() && !o.zero_heuristic;
    if (wants_coords) d_coords.allocate(vertices, unified, "the vertex coordinates");
    d_pairs.allocate(n_agents, unified, "the agents' start and goal");
    d_cost.allocate(n_agents, unified, "the agents' costs");
    d_steps.allocate(n_agents, unified, "the agents' steps");
    const BatchOrder agent_order = batch::order_of(o);
    if (agent_order != BatchOrder::Index) d_order.allocate(n_agents, unified, "the agent order");
    d_state.allocate(slots * vertices, unified, "the vertex states of the search slots");
    // Generation 0 is never used: zeroed states read as untouched, and nothing needs clearing
    // again between searches or chunks. Explicit memory is cleared right away, so that the
    // clearing (a GB-sized memset) overlaps the other allocations and the host's preparation;
    // unified memory after its prefetch to the GPU (below).
    const auto clear_states = [&] {
        check(cudaMemsetAsync(d_state.get(), 0, slots * vertices * sizeof(u64), stream), "clearing the vertex states");
    };
    if (!unified) clear_states();
    d_heap.allocate(slots * batch::heap_entries(capacity), unified, "the heaps of the search slots");
    if (o.strategy == BatchStrategy::Bsp) d_slots.allocate(slots, unified, "the bsp slot states");
    d_ctl.allocate(1, unified, "the control block");
    if (o.stamp_agents) {
        d_t_start.allocate(n_agents, unified, "the agents' start stamps");
        d_t_end.allocate(n_agents, unified, "the agents' end stamps");
        d_sm.allocate(n_agents, unified, "the agents' SM ids");
    }
    const auto t1 = Clock::now();
    phase.begin(nvtx::Phase::Upload, "upload");

    const HostGraph hg = prepare_graph(graph, o.zero_heuristic);
    out.heuristic = hg.heuristic;
    const std::vector<u32> order = batch::make_order(agent_order, graph, agents, o.permute_seed);
    // Pinned staging for the explicit copies (inputs, then results).
    const std::size_t stamped = o.stamp_agents ? n_agents : 0;
    detail::PinnedStaging staging =
        unified ? detail::PinnedStaging{}
                : detail::PinnedStaging::acquire(detail::PinnedStaging::bytes_for(
                      {hg.ranges.size() * sizeof(uint2), hg.edges.size() * sizeof(batch::Edge),
                       hg.coords.size() * sizeof(float4), n_agents * sizeof(uint2), order.size() * sizeof(u32),
                       n_agents * sizeof(float), n_agents * sizeof(u32), stamped * sizeof(u64), stamped * sizeof(u64),
                       stamped * sizeof(u32)}));
    const bool prefetch = unified && concurrent_managed != 0;
    d_ranges.upload(hg.ranges.data(), hg.ranges.size(), stream, device, prefetch, "uploading the edge ranges",
                    staging.take<uint2>(hg.ranges.size()));
    d_edges.upload(hg.edges.data(), hg.edges.size(), stream, device, prefetch, "uploading the edges",
                   staging.take<batch::Edge>(hg.edges.size()));
    if (hg.h == batch::HKind::Euclid)
        d_coords.upload(hg.coords.data(), hg.coords.size(), stream, device, prefetch, "uploading the coordinates",
                        staging.take<float4>(hg.coords.size()));
    std::vector<uint2> pageable_pairs;
    uint2* pairs = staging.take<uint2>(n_agents);  // written in place when pinned
    if (!pairs) {
        pageable_pairs.resize(n_agents);
        pairs = pageable_pairs.data();
    }
    for (std::size_t i = 0; i < n_agents; ++i) pairs[i] = make_uint2(agents[i].first, agents[i].second);
    d_pairs.upload(pairs, n_agents, stream, device, prefetch, "uploading the agents",
                   pageable_pairs.empty() ? pairs : nullptr);
    if (!order.empty())
        d_order.upload(order.data(), order.size(), stream, device, prefetch, "uploading the agent order",
                       staging.take<u32>(order.size()));
    if (prefetch && o.prefetch) {
        d_state.to_device(slots * vertices, stream, device, "prefetching the vertex states");
        d_heap.to_device(slots * batch::heap_entries(capacity), stream, device, "prefetching the heaps");
        d_cost.to_device(n_agents, stream, device, "prefetching the costs");
        d_steps.to_device(n_agents, stream, device, "prefetching the steps");
        if (o.strategy == BatchStrategy::Bsp) d_slots.to_device(slots, stream, device, "prefetching the bsp slots");
    }
    if (unified) clear_states();
    batch::Control ctl0{};
    ctl0.next = slots * std::uint64_t(o.per_dequeue);
    *host_ctl = ctl0;
    check(cudaMemcpyAsync(d_ctl.get(), host_ctl.get(), sizeof ctl0, cudaMemcpyHostToDevice, stream),
          "uploading the control block");
    stream.sync("uploading");
    const auto t2 = Clock::now();
    phase.begin(nvtx::Phase::Compute, "compute");

    compute_start.record(stream);
    const batch::Graph g{d_ranges.get(), d_edges.get(), hg.h == batch::HKind::Euclid ? d_coords.get() : nullptr,
                         hg.has_z,       u32(vertices), u32(graph.grid_width),
                         hg.h,           hg.orth,       hg.diag,
                         hg.scale};
    const std::uint32_t top = batch::top_entries(o, capacity);
    const batch::Work w = make_work(d_state.get(), d_heap.get(), o.layout, slots, vertices, capacity, top);
    const batch::Agents a{d_pairs.get(),
                          d_cost.get(),
                          d_steps.get(),
                          order.empty() ? nullptr : d_order.get(),
                          o.stamp_agents ? d_t_start.get() : nullptr,
                          o.stamp_agents ? d_t_end.get() : nullptr,
                          o.stamp_agents ? d_sm.get() : nullptr};
    batch::Control* ctl = d_ctl.get();
    auto cancelled = [&] { return o.cancel && o.cancel->load(std::memory_order_relaxed); };
    out.block_size = bs;
    if (o.strategy == BatchStrategy::Queue) {
        const unsigned int blocks = unsigned((slots + unsigned(bs) - 1) / unsigned(bs));
        batch::queue_run<<<blocks, bs, shared_bytes(batch::queue_run, top, bs), stream>>>(
            g, w, a, ctl, u32(n_agents), u32(slots), u32(o.per_dequeue));
        check(cudaGetLastError(), "launching the queue kernel");
        out.host_launches = 1;
        out.threads = slots;
        out.grid_size = int(blocks);
    } else {
        for (std::uint64_t chunk = 0; chunk < out.plan.chunks; ++chunk) {
            nvtx::ScopedRange chunk_range(nvtx::Phase::Level, "chunk");
            const std::uint64_t first = chunk * slots;
            const u32 count = u32(std::min(slots, n_agents - first));
            const u32 gen = u32(chunk + 1);
            const unsigned int blocks = (count + unsigned(bs) - 1) / unsigned(bs);
            out.threads = std::max<std::uint64_t>(out.threads, count);
            out.grid_size = int(blocks);
            if (o.strategy != BatchStrategy::Bsp) {
                batch::batch_run<<<blocks, bs, shared_bytes(batch::batch_run, top, bs), stream>>>(
                    g, w, a, ctl, u32(first), count, gen);
                check(cudaGetLastError(), "launching the batch kernel");
                ++out.host_launches;
                if (out.plan.chunks > 1) {
                    stream.sync("running a chunk of agents");
                    if (cancelled()) {
                        out.cancelled = true;
                        return;
                    }
                }
                continue;
            }
            check(cudaMemsetAsync(&ctl->done, 0, sizeof(unsigned int), stream), "clearing the done count");
            batch::bsp_init<<<blocks, bs, 0, stream>>>(g, w, a, d_slots.get(), u32(first), count, gen);
            check(cudaGetLastError(), "launching the bsp seed kernel");
            ++out.host_launches;
            // Every launch closes a vertex in each running slot (or ends its search), so no
            // search outlives vertices + 1 launches.
            const std::uint64_t limit = vertices + 2;
            for (std::uint64_t launched = 0;;) {
                for (int k = 0; k < o.sync_every; ++k, ++launched)
                    batch::bsp_step<<<blocks, bs, 0, stream>>>(g, w, a, d_slots.get(), ctl, count, gen);
                check(cudaGetLastError(), "launching the bsp step kernel");
                out.host_launches += std::uint64_t(o.sync_every);
                check(
                    cudaMemcpyAsync(&host_ctl->done, &ctl->done, sizeof(unsigned int), cudaMemcpyDeviceToHost, stream),
                    "reading the done count");
                stream.sync("running bsp steps");
                if (host_ctl->done >= count) break;
                if (launched > limit)
                    throw CudaError("internal error: bsp searches did not finish within the step bound");
                if (cancelled()) {
                    out.cancelled = true;
                    return;
                }
            }
        }
    }
    compute_end.record(stream);
    stream.sync("running the searches");
    const auto t3 = Clock::now();
    phase.begin(nvtx::Phase::Download, "download");

    // Costs: float on the device, double in the output (converted from the pinned copy when
    // there is one).
    float* cost_staged = staging.take<float>(n_agents);
    std::vector<float> cost(cost_staged ? 0 : n_agents);
    float* cost_host = cost_staged ? cost_staged : cost.data();
    out.steps.resize(n_agents);
    std::vector<std::function<void()>> after_sync;
    d_cost.download(cost_host, n_agents, stream, "downloading the costs", nullptr, after_sync);
    d_steps.download(out.steps.data(), n_agents, stream, "downloading the steps", staging.take<u32>(n_agents),
                     after_sync);
    if (o.stamp_agents) {
        out.agent_start_ns.resize(n_agents);
        out.agent_end_ns.resize(n_agents);
        out.agent_sm.resize(n_agents);
        d_t_start.download(reinterpret_cast<u64*>(out.agent_start_ns.data()), n_agents, stream,
                           "downloading the agents' start stamps", staging.take<u64>(n_agents), after_sync);
        d_t_end.download(reinterpret_cast<u64*>(out.agent_end_ns.data()), n_agents, stream,
                         "downloading the agents' end stamps", staging.take<u64>(n_agents), after_sync);
        d_sm.download(out.agent_sm.data(), n_agents, stream, "downloading the agents' SM ids",
                      staging.take<u32>(n_agents), after_sync);
    }
    check(cudaMemcpyAsync(host_ctl.get(), ctl, sizeof(batch::Control), cudaMemcpyDeviceToHost, stream),
          "reading the control block");
    stream.sync("downloading the results");
    for (const auto& copy : after_sync) copy();
    out.costs.assign(cost_host, cost_host + n_agents);
    const auto t4 = Clock::now();
    phase.end();

    const Clock::time_point boundaries[5] = {t0, t1, t2, t3, t4};
    detail::set_phase_times(out, boundaries);
    out.gpu_compute_ms = compute_end.ms_since(compute_start);
    out.compactions = host_ctl->compactions;
    if (host_ctl->overflows > 0) throw CudaError(capacity_message(capacity));
    if (o.strategy != BatchStrategy::Queue)
        out.simt_efficiency = batch::simt_efficiency(out.steps, order.empty() ? nullptr : &order);
}

}  // namespace

BatchMemoryPlan plan_batch_gpu(const CsrGraph& graph, std::uint64_t agents, const BatchGpuOptions& options) {
    BatchMemoryPlan plan;
    if (!gpu_info().available) {
        plan.error = gpu_info().reason;
        return plan;
    }
    try {
        plan = plan_now(graph, agents, options);
    } catch (const CudaError& e) {
        plan.error = e.what();
    }
    return plan;
}

BatchGpuOutput run_batch_gpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                             const BatchGpuOptions& options) {
    BatchGpuOutput out;
    if (!gpu_info().available) {
        out.error = gpu_info().reason;
        return out;
    }
    if (options.block_size < 32 || options.block_size > 1024 || options.block_size % 32 != 0) {
        out.error = "block must be a multiple of 32 between 32 and 1024, got " + std::to_string(options.block_size);
        return out;
    }
    if (options.per_dequeue < 1 || options.sync_every < 1 || options.grid_size < 0) {
        out.error = "per_dequeue and sync_every must be at least 1, grid at least 0";
        return out;
    }
    if (options.shared_levels < 0 || options.shared_levels > 4) {
        out.error = "shared_levels must be from 0 to 4, got " + std::to_string(options.shared_levels);
        return out;
    }
    if (graph.vertex_count() == 0) {
        out.error = "the graph has no vertices";
        return out;
    }
    if (auto why = batch::check_agents(graph, agents); !why.empty()) {
        out.error = why;
        return out;
    }
    try {
        run(graph, agents, options, out);
    } catch (const std::exception& e) {
        BatchMemoryPlan plan = out.plan;
        out = BatchGpuOutput{};
        out.plan = std::move(plan);
        out.error = e.what();
    }
    return out;
}

BatchGpuOutput emulate_batch_gpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                                 const BatchGpuOptions& options, std::uint32_t slots) {
    BatchGpuOutput out;
    if (graph.vertex_count() == 0) {
        out.error = "the graph has no vertices";
        return out;
    }
    if (auto why = batch::check_agents(graph, agents); !why.empty()) {
        out.error = why;
        return out;
    }
    slots = std::max<std::uint32_t>(1, slots);
    const std::uint64_t vertices = graph.vertex_count();
    const std::uint32_t capacity = batch::heap_capacity(options, vertices);
    const HostGraph hg = prepare_graph(graph, options.zero_heuristic);
    out.heuristic = hg.heuristic;
    std::vector<u64> state(std::uint64_t(slots) * vertices, 0),
        heap(std::uint64_t(slots) * batch::heap_entries(capacity), 0);
    const batch::Graph g{hg.ranges.data(),
                         hg.edges.data(),
                         hg.coords.empty() ? nullptr : hg.coords.data(),
                         hg.has_z,
                         u32(vertices),
                         u32(graph.grid_width),
                         hg.h,
                         hg.orth,
                         hg.diag,
                         hg.scale};
    const std::uint32_t top = batch::top_entries(options, capacity);
    const batch::Work w = make_work(state.data(), heap.data(), options.layout, slots, vertices, capacity, top);
    std::vector<u64> tops(std::uint64_t(slots) * top + 1);  // each slot's on-chip heap top, stride 1
    out.costs.resize(agents.size());
    out.steps.resize(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
        // Slots are reused round-robin with a new generation each time, never cleared.
        const batch::Slot s = batch::slot_of(w, i % slots, top ? tops.data() + (i % slots) * top : nullptr, 1);
        batch::Search q;
        batch::start_search(g, s, q, u32(i / slots + 1), agents[i].first, agents[i].second);
        float cost = 0;
        u32 compactions = 0;
        batch::Status st;
        while ((st = batch::expand_one(g, s, capacity, q, cost, compactions)) == batch::kRunning) {
        }
        out.compactions += compactions;
        if (st == batch::kOverflow) {
            out.error = capacity_message(capacity);
            return out;
        }
        out.costs[i] = double(batch::result_cost(st, cost));
        out.steps[i] = q.steps;
    }
    return out;
}

}  // namespace ps::gpu
