// Device code of block A* (kernels/search/grid_astar_gpu.hpp says why it is exact): one thread
// block per query, a hash table of (cell -> g, parent move, open bit) and a ring of f buckets,
// on chip or, for queries that outgrow it, in global memory. Host driver: grid_astar_gpu.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/cuda_util.cuh"
#include "kernels/search/grid_astar_gpu.hpp"
#include "kernels/search/grid_costs.cuh"

namespace ps::gpu::grid_astar {

constexpr int kRing = 8;         // buckets in the ring (live entries span at most 4 + spread - 1)
constexpr int kMaxSpread = 4;    // buckets one iteration may pop from (Launch::spread)
constexpr int kLanes = 8;        // threads per entry, one per move
constexpr int kMaxProbes = 256;  // linear probing gives up here (counts as full)
constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
constexpr unsigned long long kInf = ~0ull;  // "no goal yet"; QueryOut::g of an unreachable goal
constexpr unsigned kOpen = 1;               // a table value is g << 1 | open
constexpr unsigned kNoBucket = ~0u;

// A value whose g is unknown (every bit set: above any g << 1 | open).
template <class V>
__host__ __device__ constexpr V unknown() {
    return V(~V(0));
}

// kGTooLarge: a g reached the narrow values' limit (Launch::g_limit); the query runs again with
// 64-bit values.
enum Status : std::uint32_t { kDone = 0, kFull = 1, kRingWrapped = 2, kGTooLarge = 3 };

// Cells travel packed (grid_costs.cuh: pack). The map is a bitmap, 8x denser than the cells'
// bytes: the working set of a query's map reads stays in the little L1 the on-chip tables leave.

struct MapView {
    const std::uint32_t* bits;  // bit x & 31 of word y * stride + x / 32: passable
    int width, height, stride;
    bool eight;
    int corner;  // a CornerRule: 0 a diagonal needs both orthogonal cells free, 1 one, 2 neither
};

struct QueryOut {
    unsigned long long g;  // kInf: unreachable
    std::uint32_t expanded, iterations, status;
    std::uint32_t moved;        // 1 + the pool table the query moved into; 0: it stayed on chip
    std::uint32_t path_length;  // Launch::path: the cells written (0: none)
    std::uint32_t path_offset;  // where in Launch::path they start (every query's path: its share)
};

// Tables of one shape side by side in global memory, one per block (the global tier) or per
// pool entry: table i's slots start at i * slots, its buckets at i * kRing * bucket_cap.
// Values are the kernel's Metric::Val (8 bytes are allocated per slot, so either width fits).
struct TableArrays {
    std::uint32_t slots;       // power of two
    std::uint32_t bucket_cap;  // entries per bucket, a power of two (positions wrap with a mask)
    std::uint32_t* keys;
    void* vals;
    std::uint32_t* buckets;
    std::uint32_t* used;  // the slots a query took, to clear them after it
    std::uint8_t* moves;  // one query whose path is wanted: a slot's last improving move (else null)
};

// Where the blocks of one launch keep their tables: on chip (dynamic shared memory; only
// `arrays.slots` and `arrays.bucket_cap` count) or in global memory, a table per block.
struct Tables {
    bool global;
    TableArrays arrays;
};

// Global tables a block moves its query into when the on-chip table or a bucket fills: the
// search goes on where it was instead of starting over in a later launch. A block takes a free
// table (taken[i] 0 -> 1), clears the slots it used when its query ends and gives it back.
struct Pool {
    std::uint32_t count;  // 0: no moves; queries that fill the chip start over in a later launch
    std::uint32_t* taken;
    TableArrays arrays;  // shaped as the global tier's
};

struct Launch {
    MapView map;
    const GridQuery* queries;
    const std::uint32_t* order;  // query indices, longest first
    std::uint32_t count;
    unsigned int* next;  // the queue's counter
    QueryOut* out;
    Tables tables;
    Pool pool;
    int chain;              // expansions per group per iteration (1: every successor is pushed)
    int spread;             // buckets one iteration pops from, the lowest first (1 .. kMaxSpread)
    std::uint32_t g_limit;  // narrow values: a g at or above it ends the query with kGTooLarge
    // One query whose path is wanted: its cells, goal first (at most path_cap), walked through
    // its table when it ends (QueryOut::path_length); null otherwise.
    std::uint32_t* path;
    std::uint32_t path_cap;
    // Every query's path (a batch): `path` is an arena of path_cap cells shared by the queries;
    // a query that ends takes as many as its cost allows steps (g / orth + 1) by an atomicAdd
    // here, and writes none if they do not fit. Null: one query owns the whole of `path`.
    unsigned* path_used;
    bool path_hints;  // the tables keep move hints (on chip: a byte per slot after the buckets)
    // The map's bitmap copied into shared memory after the on-chip table (map_at bytes into
    // it), when it fits without costing a block per SM; 0 words: read from global memory.
    std::uint32_t map_words_on_chip;
    std::uint32_t map_at;
    BlockDelay delay;  // test-only (kernels/gpu/gpu_test_delay.hpp)
};

__host__ __device__ inline std::uint32_t hash_cell(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Slots an on-chip query may take before it counts as full: 3/4 of the table less one
// iteration's inserts (a thread inserts at most `chain` cells an iteration), because on chip
// the count is read at the top of the next iteration, not at each insert. At least half.
__host__ __device__ inline std::uint32_t chip_used_limit(std::uint32_t slots, int threads, int chain) {
    const std::uint64_t room = std::uint64_t(threads) * std::uint64_t(chain);
    const std::uint32_t headroom = std::uint32_t(room < slots / 4 ? room : slots / 4);
    return slots / 4 * 3 - headroom;
}

// A generic load: the bitmap is in shared memory (Launch::map_words_on_chip) or global memory.
__device__ inline bool passable(const MapView& m, int x, int y) {
    if (x < 0 || y < 0 || x >= m.width || y >= m.height) return false;
    return (m.bits[std::size_t(y) * unsigned(m.stride) + unsigned(x >> 5)] >> (x & 31)) & 1u;
}

// A key other threads may be writing: from shared memory (OnChip) a volatile load; from global
// memory a relaxed load at device scope (L2: an L1 line of an earlier query on this SM may be
// stale, and a volatile generic load would be a slow system-scope one).
template <bool OnChip>
__device__ inline std::uint32_t load_key(const std::uint32_t* p) {
    if constexpr (OnChip) {
        return *reinterpret_cast<const volatile std::uint32_t*>(p);
    } else {
        std::uint32_t v;
        asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return v;
    }
}

// Sets slot s's move hint to d: clears its byte, then ors d in, two atomics on the aligned word
// (hints start 4-byte aligned) whose results no thread waits for. Threads that lower one slot's
// g in the same iteration may interleave into the or of their moves; the walk checks a hint
// (a legal move whose cell's g plus the step is this one's) before it follows it and scans the
// neighbours when it fails, so a hint only ever saves the scan. Atomic, so not the race that
// compute-sanitizer's racecheck reported for plain byte stores (a compare-and-swap loop cost
// block A* 13% on random512-10-0).
__device__ inline void store_hint(std::uint8_t* moves, int s, unsigned d) {
    unsigned int* word = reinterpret_cast<unsigned int*>(moves) + (s >> 2);
    const unsigned shift = 8u * unsigned(s & 3);
    atomicAnd(word, ~(0xFFu << shift));
    atomicOr(word, d << shift);
}

// A value other threads may be updating (as load_key).
template <bool OnChip, class V>
__device__ inline V load_val(const V* p) {
    if constexpr (OnChip) {
        return *reinterpret_cast<const volatile V*>(p);
    } else if constexpr (sizeof(V) == 4) {
        std::uint32_t v;
        asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return v;
    } else {
        unsigned long long v;
        asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        return v;
    }
}

// The slot of `cell`, inserting it when absent (*inserted: this call took a new slot); -1 when
// a probe sequence grows too long, which sets *lost (an update was dropped: the query must
// start over with a larger table).
template <bool OnChip>
__device__ inline int find_or_insert(std::uint32_t* keys, std::uint32_t mask, std::uint32_t cell, bool* inserted,
                                     unsigned* lost) {
    std::uint32_t i = hash_cell(cell) & mask;
    for (int p = 0; p < kMaxProbes; ++p) {
        const std::uint32_t k = load_key<OnChip>(keys + i);
        if (k == cell) return int(i);
        if (k == kEmpty) {
            const std::uint32_t old = atomicCAS(keys + i, kEmpty, cell);
            if (old == kEmpty) {
                *inserted = true;
                return int(i);
            }
            if (old == cell) return int(i);
        }
        i = (i + 1) & mask;
    }
    *lost = 1;
    return -1;
}

// find_or_insert for the lanes of a warp at once (`wanted`: this lane looks `cell` up; every lane
// of the warp calls it): the lanes step through their probes together under a warp-wide loop
// condition, so the warp leaves converged. After a data-dependent loop per lane, the warp
// reached the next ballot in pieces, and each piece took the compiler's divergent path for it
// (Nsight Compute: 4.3 times per warp and iteration on a den520d query).
// Insert false: a lookup only (-1 when absent).
template <bool OnChip, bool Insert = true>
__device__ inline int warp_find_or_insert(std::uint32_t* keys, std::uint32_t mask, std::uint32_t cell, bool wanted,
                                          bool* inserted, unsigned* lost) {
    std::uint32_t i = hash_cell(cell) & mask;
    int slot = -1;
    bool pending = wanted;
    for (int p = 0; __any_sync(0xFFFFFFFFu, pending); ++p) {
        if (!pending) continue;
        if (p == kMaxProbes) {
            if (Insert) *lost = 1;  // an update is dropped: the query starts over with a larger table
            pending = false;
            continue;
        }
        std::uint32_t k = load_key<OnChip>(keys + i);
        if (k == kEmpty) {
            if (!Insert) {
                pending = false;
                continue;
            }
            k = atomicCAS(keys + i, kEmpty, cell);
            if (k == kEmpty) *inserted = true;
        }
        if (k == kEmpty || k == cell) {
            slot = int(i);
            pending = false;
        }
        i = (i + 1) & mask;
    }
    return slot;
}

// Counts the slots this warp's lanes took (one atomicAdd per warp: a counter every thread of
// the block increments serialises) and records them for clearing; a global table past 3/4 is
// full. An on-chip table keeps no list: its count is added without waiting for the old value
// (a round trip on the critical path of every iteration) and read at the next iteration's top.
__device__ inline void count_inserts(bool inserted, int slot, unsigned* used_count, std::uint32_t used_limit,
                                     std::uint32_t* used_list, unsigned* full) {
    const unsigned mask = __ballot_sync(0xFFFFFFFFu, inserted);
    if (!mask) return;
    const unsigned me = threadIdx.x & 31u;
    const int first = __ffs(mask) - 1;
    if (!used_list) {
        if (int(me) == first) atomicAdd(used_count, unsigned(__popc(mask)));
        return;
    }
    unsigned base = 0;
    if (int(me) == first) base = atomicAdd(used_count, unsigned(__popc(mask)));
    base = __shfl_sync(0xFFFFFFFFu, base, first);
    if (!inserted) return;
    const unsigned u = base + unsigned(__popc(mask & ((1u << me) - 1u)));
    if (u >= used_limit) atomicOr(full, 1u);            // chained warps read it in the iteration
    if (used_list) used_list[u] = std::uint32_t(slot);  // u < slots: each insert took a distinct empty slot
}

// Closes the open entry `cell` (its slot in the table) for expansion and returns it with its
// g, or kEmpty when it is not open (expanded already, or by another group) or its f cannot
// beat the best goal found (closed without expanding).
template <class Metric>
__device__ inline std::uint32_t claim(typename Metric::Val* vals, int s, std::uint32_t cell, bool eight, int gx, int gy,
                                      unsigned long long goal_best, typename Metric::Val* g) {
    using V = typename Metric::Val;
    const V old = atomicAnd(vals + s, V(~V(kOpen)));  // one round trip: closed by whoever clears it
    *g = old >> 1;
    if (!(old & kOpen) ||
        (goal_best != kInf && (unsigned long long)(*g + heuristic<Metric>(eight, int(cell & 0xFFFFu), int(cell >> 16),
                                                                          gx, gy)) >= goal_best))
        return kEmpty;
    return cell;
}

// Where a query's table and buckets live while it is searched (V: the metric's value width).
template <class V>
struct Store {
    std::uint32_t* keys;
    V* vals;
    std::uint32_t* buckets;
    std::uint32_t* used;  // global tables: the slots taken, to clear them after the query
    // A path is wanted: per slot, the move of the last improvement of its g, a hint for the
    // path walk (two improvements in one iteration may leave the worse one's move: the walk
    // checks it). Null otherwise.
    std::uint8_t* moves;
    std::uint32_t mask, cap, used_limit;
};

template <class V>
__device__ inline Store<V> make_store(std::uint32_t* keys, V* vals, std::uint32_t* buckets, std::uint32_t* used,
                                      std::uint8_t* moves, std::uint32_t slots, std::uint32_t cap) {
    return Store<V>{keys, vals, buckets, used, moves, slots - 1, cap, slots / 4 * 3};
}

// Table i of `a`.
template <class V>
__device__ inline Store<V> table_of(const TableArrays& a, std::size_t i) {
    return make_store(a.keys + i * a.slots, static_cast<V*>(a.vals) + i * a.slots, a.buckets + i * kRing * a.bucket_cap,
                      a.used + i * a.slots, a.moves ? a.moves + i * a.slots : nullptr, a.slots, a.bucket_cap);
}

// Empties the slots a query took in a global table (its used list) for the next query.
template <class V>
__device__ inline void clear_used(const Store<V>& S, unsigned used_count) {
    const unsigned n = used_count < S.mask + 1 ? used_count : S.mask + 1;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        S.keys[S.used[i]] = kEmpty;
        S.vals[S.used[i]] = unknown<V>();
    }
}

// Moves a query whose on-chip table or bucket filled into a free pool table, in place: every
// entry goes to the global hash table and every open entry into the bucket of its f (the open
// bits, not the buckets, say what is open, so pushes a full bucket dropped are not lost).
// Returns the table, or -1 when none is free or an entry did not fit (*lost: start over).
template <class Metric>
__device__ inline int move_to_pool(const Pool& P, const BlockDelay& delay, std::uint32_t query,
                                   const std::uint32_t* keys, const typename Metric::Val* vals,
                                   const std::uint8_t* moves, std::uint32_t slots, bool eight, std::uint32_t goal,
                                   int gx, int gy, unsigned* head, unsigned* tail, unsigned* used_count, unsigned* lost,
                                   int* pool_table) {
    if (threadIdx.x == 0) {
        int t = -1;
        for (std::uint32_t i = 0; i < P.count && t < 0; ++i)
            if (atomicCAS(P.taken + i, 0u, 1u) == 0u) t = int(i);
        *pool_table = t;
        *used_count = 0;
    }
    if (threadIdx.x < kRing) head[threadIdx.x] = tail[threadIdx.x] = 0;
    __syncthreads();
    const int t = *pool_table;
    if (t < 0) return -1;
    delay_block(delay, 1, query);  // a table just taken, not yet filled
    using V = typename Metric::Val;
    const Store<V> G = table_of<V>(P.arrays, std::size_t(t));
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x) {
        const std::uint32_t key = keys[i];
        if (key == kEmpty) continue;
        bool inserted = false;
        const int s = find_or_insert<false>(G.keys, G.mask, key, &inserted, lost);
        if (s < 0) continue;
        const V v = vals[i];
        G.vals[s] = v;
        if (moves && G.moves) G.moves[s] = moves[i];
        G.used[atomicAdd(used_count, 1u)] = std::uint32_t(s);
        if (!(v & kOpen) || key == goal) continue;  // the goal is never pushed (its g is the answer)
        const V f = (v >> 1) + heuristic<Metric>(eight, int(key & 0xFFFFu), int(key >> 16), gx, gy);
        const unsigned ring = unsigned((f / Metric::orth) % kRing);
        const unsigned pos = atomicAdd(tail + ring, 1u);
        if (pos >= G.cap)
            *lost = 1;
        else
            G.buckets[ring * G.cap + pos] = std::uint32_t(s);
    }
    __syncthreads();
    return t;
}

// The block's shared bookkeeping for its current query.
struct BlockState {
    // Each bucket is a FIFO of table slots in a ring buffer of `cap` entries: pops advance
    // head, pushes tail, so the entries an iteration takes are never overwritten by its pushes
    // and the block needs two barriers per iteration.
    // Index 0: the search from the start; 1: a bidirectional query's search from the goal.
    unsigned head[2][kRing], tail[2][kRing];
    // The best path cost known: the goal's g, or the best g(forward) + g(backward) of a cell
    // both sides reached (mu), with the cell (`meet`) of the last improvement.
    unsigned long long goal_best;
    unsigned cur[2];  // the lowest bucket that may hold entries (f / orth)
    unsigned used_count[2];
    unsigned full, lost, wrapped, too_large, expanded, query_slot, meet;
    std::uint32_t iterations;
    int pool_table;
};

// A side's end: the cell its heuristic aims at (the query's goal; for the backward side of a
// bidirectional query, its start).
struct Target {
    std::uint32_t cell;
    int x, y;
};

// Iterates the query until it ends (goal settled, no open entry) or its table or a bucket
// fills. A template on where the table lives: on chip the compiler sees shared-memory pointers
// and emits shared loads and atomics (generic ones cost several times more).
//
// Bidir: two searches in the block, from the start in store S0 towards T0 (the goal) and from
// the goal in S1 towards T1 (the start); even warps take the first, odd warps the second, both
// under the same barriers. A relaxation that lowers a cell's g on one side looks the cell up
// on the other: g + g' is a path (mu, in goal_best). Each side's buckets hold MM's priority
// pr = max(f, 2g) (Holte, Felner, Sharon, Sturtevant, "Bidirectional search that is guaranteed
// to meet in the middle", AAAI 2016), so neither side expands a cell with g above C*/2 and the
// chain of iterations is about half the path's (with f alone, the sides met halfway but went on
// until one side's lowest f reached mu: as many iterations as one-sided). The query ends when
// mu <= min(lowest pr bound of the two sides). Why that is exact: if mu > C*, take a shortest
// path and, from each end, its first cell not yet expanded with its distance; each such cell is
// open with its distance (its predecessor's expansion set it). If the forward one has g <= C*/2
// its pr is at most C* (f <= C* on a shortest path); likewise the backward one. Otherwise the
// backward one lies before the forward one on the path, so it was reached with its distance on
// both sides, and the later of those two relaxations looked it up on the other side: mu <= C*.
// So some open pr is at most C* < mu and the query goes on. (The two relaxations of one cell in
// one iteration are atomics on shared memory followed by a load each: the later sees the
// earlier.) A side with no open entry ends it too (every cell it can reach was searched, mu
// included). Moves are symmetric under every corner rule, so the backward side searches forward
// from the goal.
template <class Metric, bool OnChip, bool Chained, bool Bidir>
__device__ __forceinline__ void search(const Launch& L, const MapView& M, BlockState& st,
                                       const Store<typename Metric::Val>& S0, const Store<typename Metric::Val>& S1,
                                       Target T0, Target T1) {
    using V = typename Metric::Val;
    static_assert(!(Bidir && Chained), "a bidirectional query expands one entry per group and iteration");
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % kLanes;
    const int side = Bidir ? (warp & 1) : 0;
    // Groups of this side, and this group's number among them.
    const int groups = int(blockDim.x) / kLanes / (Bidir ? 2 : 1);
    const int group = Bidir ? (warp >> 1) * (32 / kLanes) + int(threadIdx.x & 31u) / kLanes : int(threadIdx.x) / kLanes;
    const Store<V> S = side ? S1 : S0;
    const Target T = side ? T1 : T0;
    const std::uint32_t goal = T.cell;
    const int gx = T.x, gy = T.y;
    constexpr V W = Metric::orth;
    const std::uint32_t cap = S.cap;
    unsigned expanded = 0;          // this thread's expansions (group leaders), added to the block's at the end
    while (st.goal_best != 0ull) {  // start == goal: nothing to search
        // Every thread decides alike from the state the last barrier published. Live entries
        // lie in [cur, cur + kRing): the ring never wraps. Lane i of each 8 looks at bucket
        // cur + i (lanes 8-15: of the backward side), and a ballot names the lowest non-empty
        // bucket of each side.
        const unsigned look_side = Bidir ? (threadIdx.x >> 3) & 1u : 0u;
        const unsigned look_cur = st.cur[look_side];
        const unsigned look = (look_cur + (threadIdx.x & 7u)) % kRing;
        const unsigned look_head = st.head[look_side][look], look_tail = st.tail[look_side][look];
        const unsigned ballot = __ballot_sync(0xFFFFFFFFu, look_head != look_tail);
        const unsigned cur0 = st.cur[0], cur1 = Bidir ? st.cur[1] : 0u;
        const unsigned ne0 = ballot & 0xFFu, ne1 = Bidir ? (ballot >> 8) & 0xFFu : 1u;
        const unsigned b0 = ne0 ? cur0 + unsigned(__ffs(ne0)) - 1u : cur0 + kRing;
        const unsigned b1 = Bidir && ne1 ? cur1 + unsigned(__ffs(ne1)) - 1u : cur1 + kRing;
        // One-sided: open f >= bound * W. Two-sided (MM's rule, below): open max(f, 2g) >= bound * W.
        const unsigned bound = Bidir ? min(b0, b1) : b0;
        if (st.full || st.used_count[0] >= S0.used_limit || (Bidir && st.used_count[1] >= S1.used_limit) || st.lost ||
            st.wrapped || st.too_large || !ne0 || !ne1 ||
            (st.goal_best != kInf && st.goal_best <= (unsigned long long)bound * W))
            break;
        const unsigned cur = side ? cur1 : cur0, b = side ? b1 : b0;
        const int lanes_at = Bidir ? side * 8 : 0;  // the lanes that looked at this side's ring

        // The pop plan: up to one entry per group from buckets b .. b + spread - 1, lowest
        // first (group j takes the j-th); lane i of each eight holds bucket cur + i. Entries of
        // a higher bucket expanded early are expanded again if their g improves; the stop rule
        // reads the lowest bucket, so the search stays exact.
        unsigned pop_ring[kMaxSpread], pop_head[kMaxSpread];  // the rings popped and their new heads
        unsigned my_ring = kRing, my_pos = 0, taken = 0;
        const int spread = min(L.spread, int(cur + kRing - b));
#pragma unroll
        for (int i = 0; i < kMaxSpread; ++i) {
            const int from = int(b - cur) + i;
            const unsigned h = __shfl_sync(0xFFFFFFFFu, look_head, lanes_at + (from & 7));
            const unsigned t = __shfl_sync(0xFFFFFFFFu, look_tail, lanes_at + (from & 7));
            const unsigned n = i < spread ? min(t - h, unsigned(groups) - taken) : 0u;
            pop_ring[i] = (b + unsigned(i)) % kRing;
            pop_head[i] = h + n;
            if (unsigned(group) >= taken && unsigned(group) < taken + n) {
                my_ring = pop_ring[i];
                my_pos = h + (unsigned(group) - taken);
            }
            taken += n;
        }

        // Read and claim this group's entry before any thread pushes into a bucket.
        const int leader = int(threadIdx.x & 31u & ~7u);  // lane 0 of this group, in the warp
        std::uint32_t cell = kEmpty;
        V g = 0;
        if (my_ring < unsigned(kRing) && lane == 0) {
            // Buckets hold table slots: the cell is the slot's key.
            const std::uint32_t slot = S.buckets[my_ring * cap + (my_pos & (cap - 1u))];
            cell = claim<Metric>(S.vals, int(slot), load_key<OnChip>(S.keys + slot), M.eight, gx, gy, st.goal_best, &g);
        }
        cell = __shfl_sync(0xFFFFFFFFu, cell, leader);
        g = __shfl_sync(0xFFFFFFFFu, g, leader);
        expanded += lane == 0 && cell != kEmpty;
        __syncthreads();                            // every thread has read cur, head and tail and its entry
        if (threadIdx.x == unsigned(side) * 32u) {  // thread 0 of the side's first warp
            st.cur[side] = b;
#pragma unroll
            for (int i = 0; i < kMaxSpread; ++i)
                if (i < spread) st.head[side][pop_ring[i]] = pop_head[i];
            if (side == 0) ++st.iterations;
        }

        // Each group expands its entry, then may go on with one successor that lands in this
        // bucket b (the next iteration would take it anyway: bucket b's entries are unordered)
        // instead of pushing it, up to L.chain expansions per iteration. Every group of a warp
        // steps alike (warp-wide ballots), idle groups with no cell.
        // Warps with no entry this iteration go straight to the barrier.
        const bool warp_busy = __any_sync(0xFFFFFFFFu, cell != kEmpty);
        for (int step = 1; warp_busy; ++step) {
            // The last step, or a table that filled, pushes every successor (a move to the
            // pool or a start over then finds every open entry in the table or a bucket).
            // The flag is read and raised with atomics: other warps raise it in this iteration.
            bool push_all = true;
            if constexpr (Chained) {
                unsigned full_now = 0;
                if (step < L.chain && (threadIdx.x & 31u) == 0u) full_now = atomicOr(&st.full, 0u);
                push_all = step >= L.chain || __shfl_sync(0xFFFFFFFFu, full_now, 0) != 0u;
            }
            // One round of map loads: lane d reads the cell of move d; the diagonals' corner
            // cells come from the orthogonal lanes of the group through a ballot.
            const int x = int(cell & 0xFFFFu), y = int(cell >> 16);
            const int nx = x + move_dx(lane), ny = y + move_dy(lane);
            const bool free_cell = cell != kEmpty && (M.eight || lane < 4) && passable(M, nx, ny);
            const unsigned bits = __ballot_sync(0xFFFFFFFFu, free_cell) >> leader;
            bool ok = free_cell;
            if (ok && lane >= 4) {
                // SE, SW, NE, NW: (E or W) and (S or N) beside the move.
                const bool across = (bits >> (lane == 4 || lane == 6 ? 0 : 1)) & 1u;
                const bool along = (bits >> (lane < 6 ? 2 : 3)) & 1u;
                ok = corner_rule_allows(M.corner, across, along);
            }
            unsigned bucket = kNoBucket;
            std::uint32_t nb = 0;
            V ng = 0, f = 0;
            bool inserted = false, wanted = false;
            if (ok) {
                nb = pack(nx, ny);
                ng = g + (lane >= 4 ? Metric::diag : Metric::orth);
                f = ng + heuristic<Metric>(M.eight, nx, ny, gx, gy);
                const unsigned long long best = st.goal_best;
                if (best == kInf || (unsigned long long)f < best) {
                    if (sizeof(V) == 4 && ng >= V(L.g_limit))
                        st.too_large = 1;  // narrow values end here: the query runs again with 64-bit ones
                    else
                        wanted = true;
                }
            }
            const int s = warp_find_or_insert<OnChip>(S.keys, S.mask, nb, wanted, &inserted, &st.lost);
            count_inserts(inserted, s, &st.used_count[side], S.used_limit, S.used, &st.full);
            // Most successors are known already with a g at least as good: one load turns them
            // away before the atomic.
            if (s >= 0 && (load_val<OnChip>(S.vals + s) >> 1) > ng) {
                const V nv = V(ng << 1) | V(kOpen);
                const V old = atomicMin(S.vals + s, nv);
                if ((old >> 1) > ng) {
                    if (S.moves) store_hint(S.moves, s, unsigned(lane));
                    if (nb == goal) {
                        if (atomicMin(&st.goal_best, (unsigned long long)ng) > (unsigned long long)ng && Bidir)
                            atomicExch(&st.meet, nb);
                    } else {
                        // Two-sided, the bucket is MM's priority max(f, 2g) (above search()).
                        const V fb = (Bidir && 2 * ng > f ? 2 * ng : f) / W;
                        if (fb < V(b) || fb >= V(b) + kRing) {  // never (grid_astar_gpu.hpp)
                            st.wrapped = 1;
                        } else {
                            bucket = unsigned(fb);
                        }
                    }
                }
            }
            if constexpr (Bidir) {
                // A cell this side reached better: the other side's g for it, if any, makes a path.
                const Store<V> O = side ? S0 : S1;
                const bool look_up = bucket != kNoBucket;
                const int so = warp_find_or_insert<OnChip, false>(O.keys, O.mask, nb, look_up, &inserted, &st.lost);
                if (so >= 0) {
                    const V other = load_val<OnChip>(O.vals + so);
                    if (other != unknown<V>()) {
                        const unsigned long long mu = (unsigned long long)ng + (unsigned long long)(other >> 1);
                        // Improvers of one iteration may store in any order: find_meeting checks.
                        if (atomicMin(&st.goal_best, mu) > mu) atomicExch(&st.meet, nb);
                    }
                }
            }
            // The group's next cell (chain > 1): its lowest lane whose successor stays in bucket b.
            int next_lane = -1;
            if constexpr (Chained) {
                const unsigned stay = (__ballot_sync(0xFFFFFFFFu, bucket == b) >> leader) & 0xFFu;
                next_lane = push_all || !stay ? -1 : __ffs(stay) - 1;
                if (lane == next_lane) bucket = kNoBucket;  // kept, not pushed
            }
            // Pushes: one atomicAdd per bucket per warp (a shared counter hit by every thread
            // of the block serialises).
            {
                const unsigned ring = bucket == kNoBucket ? unsigned(kRing) : bucket % kRing;
                const unsigned peers = __match_any_sync(0xFFFFFFFFu, ring);
                const unsigned me = threadIdx.x & 31u;
                const int first = __ffs(peers) - 1;
                unsigned base = 0;
                if (ring < unsigned(kRing) && int(me) == first)
                    base = atomicAdd(&st.tail[side][ring], unsigned(__popc(peers)));
                base = __shfl_sync(0xFFFFFFFFu, base, first);
                if (ring < unsigned(kRing)) {
                    const unsigned pos = base + unsigned(__popc(peers & ((1u << me) - 1u)));
                    // Head of this ring after this iteration's pops: a popped ring's from this
                    // thread's own copy (thread 0 may be storing it), any other's from the state.
                    bool popped = false;
                    unsigned h = 0;
#pragma unroll
                    for (int i = 0; i < kMaxSpread; ++i)
                        if (i < spread && ring == pop_ring[i]) {
                            popped = true;
                            h = pop_head[i];
                        }
                    if (!popped) h = st.head[side][ring];
                    if (pos - h >= cap)
                        atomicOr(&st.full, 1u);  // the push is dropped; its entry stays open in the table
                    else
                        S.buckets[ring * cap + (pos & (cap - 1u))] = std::uint32_t(s);
                }
            }
            if constexpr (!Chained) break;
            // Claim the kept successor like a popped entry (another group may have reached it).
            const int from = leader + (next_lane < 0 ? 0 : next_lane);
            const std::uint32_t kept = __shfl_sync(0xFFFFFFFFu, nb, from);
            const int kept_slot = __shfl_sync(0xFFFFFFFFu, s, from);
            cell = kEmpty;
            if (lane == 0 && next_lane >= 0)
                cell = claim<Metric>(S.vals, kept_slot, kept, M.eight, gx, gy, st.goal_best, &g);
            cell = __shfl_sync(0xFFFFFFFFu, cell, leader);
            g = __shfl_sync(0xFFFFFFFFu, g, leader);
            if (!__any_sync(0xFFFFFFFFu, cell != kEmpty)) break;
            expanded += lane == 0 && cell != kEmpty;
        }
        __syncthreads();
    }
    if (expanded) atomicAdd(&st.expanded, expanded);
    __syncthreads();  // every thread has read st.full in the loop's last test
    if (threadIdx.x == 0 && (st.used_count[0] >= S0.used_limit || (Bidir && st.used_count[1] >= S1.used_limit)))
        st.full = 1;  // an on-chip count past its limit
    __syncthreads();  // the count is whole before the block reads it
}

// search() with or without chained expansions (chain > 1), so that the plain loop carries none
// of their ballots and claims.
template <class Metric, bool OnChip>
__device__ __forceinline__ void search_query(const Launch& L, const MapView& M, BlockState& st,
                                             const Store<typename Metric::Val>& S, std::uint32_t goal, int gx, int gy) {
    const Target T{goal, gx, gy};
    if (L.chain > 1)
        search<Metric, OnChip, true, false>(L, M, st, S, S, T, T);
    else
        search<Metric, OnChip, false, false>(L, M, st, S, S, T, T);
}

// Puts `root` into side `side`'s store with g 0, open (thread 0).
template <class Metric, bool OnChip>
__device__ inline void open_root(BlockState& st, const Store<typename Metric::Val>& S, int side, std::uint32_t root) {
    bool inserted = false;
    const int s = find_or_insert<OnChip>(S.keys, S.mask, root, &inserted, &st.lost);
    st.used_count[side] = 1;
    if (S.used) S.used[0] = std::uint32_t(s);
    S.vals[s] = typename Metric::Val(kOpen);  // g 0, open
    S.buckets[(st.cur[side] % kRing) * S.cap] = std::uint32_t(s);
    st.tail[side][st.cur[side] % kRing] = 1;
}

// Opens the query's start in the store (thread 0), and its goal in `backward` for a
// bidirectional query, and resets the block's bookkeeping.
template <class Metric, bool OnChip>
__device__ __forceinline__ void start_query(BlockState& st, const Store<typename Metric::Val>& S, bool eight, int sx,
                                            int sy, int gx, int gy,
                                            const Store<typename Metric::Val>* backward = nullptr) {
    const std::uint32_t start = pack(sx, sy), goal = pack(gx, gy);
    static_assert(2 * kRing <= 32, "warp 0 clears the rings");
    if (threadIdx.x < 32) {
        if (threadIdx.x < 2 * kRing)
            st.head[threadIdx.x / kRing][threadIdx.x % kRing] = st.tail[threadIdx.x / kRing][threadIdx.x % kRing] = 0;
        __syncwarp();  // the rings are clear before thread 0 opens the roots in them
    }
    if (threadIdx.x == 0) {
        st.used_count[0] = st.used_count[1] = 0;
        st.full = 0;
        st.lost = 0;
        st.wrapped = 0;
        st.too_large = 0;
        st.expanded = 0;
        st.iterations = 0;
        st.goal_best = start == goal ? 0ull : kInf;
        st.cur[0] = st.cur[1] = unsigned(heuristic<Metric>(eight, sx, sy, gx, gy) / Metric::orth);
        st.meet = goal;
        if (start != goal) open_root<Metric, OnChip>(st, S, 0, start);
        if (start != goal && backward) open_root<Metric, OnChip>(st, *backward, 1, goal);
    }
    __syncthreads();
}

// Whether move d from (x, y) into a free cell passes its corner cells as the rule says.
__device__ inline bool corners_allowed(const MapView& m, int x, int y, int d) {
    if (d < 4) return true;
    const bool across = passable(m, x + move_dx(d), y), along = passable(m, x, y + move_dy(d));
    return corner_rule_allows(m.corner, across, along);
}

// The slot of `cell` in a finished query's table; -1 when the cell is not in it.
template <bool OnChip, class V>
__device__ inline int slot_of(const Store<V>& S, std::uint32_t cell) {
    std::uint32_t i = hash_cell(cell) & S.mask;
    for (int p = 0; p < kMaxProbes; ++p, i = (i + 1) & S.mask) {  // inserts give up there too
        const std::uint32_t k = load_key<OnChip>(S.keys + i);
        if (k == cell) return int(i);
        if (k == kEmpty) break;
    }
    return -1;
}

// The g in a slot (unknown<V>() for none).
template <bool OnChip, class V>
__device__ inline V g_at(const Store<V>& S, int slot) {
    if (slot < 0) return unknown<V>();
    const V v = load_val<OnChip>(S.vals + slot);
    return v == unknown<V>() ? v : V(v >> 1);
}

// Warp 0 walks a finished query's path from the goal back to the start through its table while
// it is still on chip (or in its global table), so only the path crosses to the host. From a
// cell v whose g is its distance, any neighbour u with a legal move u -> v and g(u) + step =
// g(v) is a parent on a shortest path (g(u) >= d(u) >= d(v) - step = g(u), so g(u) is u's
// distance too), and the goal's g is its distance when the query ends. The slot's move hint
// (Store::moves) is tried first; when it fails that check, lane m looks at the neighbour behind
// move m and the lowest match is taken. Returns (in thread 0) the cells written, goal first; 0
// when the chain breaks or outgrows `cap`.
template <class Metric, bool OnChip>
__device__ inline std::uint32_t walk_path(const MapView& M, const Store<typename Metric::Val>& S, std::uint32_t start,
                                          std::uint32_t goal, unsigned long long goal_g, std::uint32_t* cells,
                                          std::uint32_t cap) {
    using V = typename Metric::Val;
    const int lane = int(threadIdx.x);
    if (lane >= 32) return 0;
    std::uint32_t v = goal, n = 1;
    int sv = slot_of<OnChip>(S, goal);
    V gv = V(goal_g);
    if (lane == 0) cells[0] = goal;
    while (v != start) {
        const int x = int(v & 0xFFFFu), y = int(v >> 16);
        // The move hint first (every lane alike): one lookup when it holds. A slot's hint is
        // written by each relaxation that lowers its g in this query, but two of them in one
        // iteration may leave the or of their moves (store_hint), and a global table's hint
        // bytes start as whatever the memory held: so the hint gets the scan's whole check, a
        // legal move from a cell whose g plus the step is this one's. (Checking only the g's
        // let an illegal step into a path: a corner cut whose sum happened to match, found by
        // the path test on a global table after other tests had used the memory.)
        int d = -1, su = -1;
        const int hint = S.moves && sv >= 0 ? int(S.moves[sv]) : -1;
        if (hint >= 0 && hint < (M.eight ? 8 : 4) && passable(M, x - move_dx(hint), y - move_dy(hint)) &&
            corners_allowed(M, x - move_dx(hint), y - move_dy(hint), hint)) {
            const int s = slot_of<OnChip>(S, pack(x - move_dx(hint), y - move_dy(hint)));
            const V gu = g_at<OnChip>(S, s);
            if (gu != unknown<V>() && gu + (hint >= 4 ? Metric::diag : Metric::orth) == gv) {
                d = hint;
                su = s;
            }
        }
        if (d < 0) {  // lane m looks at the neighbour behind move m; the lowest match is taken
            bool match = false;
            int s = -1;
            if (lane < (M.eight ? 8 : 4)) {
                const int ux = x - move_dx(lane), uy = y - move_dy(lane);
                if (passable(M, ux, uy) && corners_allowed(M, ux, uy, lane)) {
                    s = slot_of<OnChip>(S, pack(ux, uy));
                    const V gu = g_at<OnChip>(S, s);
                    match = gu != unknown<V>() && gu + (lane >= 4 ? Metric::diag : Metric::orth) == gv;
                }
            }
            const unsigned found = __ballot_sync(0xFFFFFFFFu, match);
            if (!found) return 0;
            d = __ffs(found) - 1;
            su = __shfl_sync(0xFFFFFFFFu, s, d);
        }
        if (n == cap) return 0;
        v = pack(x - move_dx(d), y - move_dy(d));
        gv -= d >= 4 ? Metric::diag : Metric::orth;
        sv = su;
        if (lane == 0) cells[n] = v;
        ++n;
    }
    return n;
}

// Empties every slot of an on-chip table (the block's threads).
template <class V>
__device__ inline void clear_chip(const Store<V>& S, std::uint32_t slots) {
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x) {
        S.keys[i] = kEmpty;
        S.vals[i] = unknown<V>();
    }
}

// A bidirectional query's meeting cell: one whose g on both sides adds up to mu (goal_best).
// The cell of mu's last improvement usually is (two improvements in one iteration may leave
// the other's cell); else every cell of the forward table is tried (the block's threads). At
// the end mu is the distance and both g's of such a cell are its distances (each is at least
// that, and they add up to it), which the path walks need.
template <class Metric>
__device__ inline void find_meeting(BlockState& st, const Store<typename Metric::Val>& F,
                                    const Store<typename Metric::Val>& B) {
    using V = typename Metric::Val;
    const unsigned long long mu = st.goal_best;
    auto meets = [&](std::uint32_t cell, V gf) {
        const V gb = g_at<true>(B, slot_of<true>(B, cell));
        return gf != unknown<V>() && gb != unknown<V>() && (unsigned long long)gf + (unsigned long long)gb == mu;
    };
    if (meets(st.meet, g_at<true>(F, slot_of<true>(F, st.meet)))) return;  // every thread reads alike
    __syncthreads();                                                       // before st.meet changes
    for (std::uint32_t i = threadIdx.x; i <= F.mask; i += blockDim.x) {
        const std::uint32_t key = load_key<true>(F.keys + i);
        if (key != kEmpty && meets(key, g_at<true>(F, int(i)))) atomicExch(&st.meet, key);  // any one will do
    }
    __syncthreads();
}

// A bidirectional query's path (warp 0), goal first: the backward table's walk from the meeting
// cell to the goal, turned round, then the forward table's from the meeting cell to the start.
template <class Metric>
__device__ inline std::uint32_t walk_two_sided(const MapView& M, const Store<typename Metric::Val>& F,
                                               const Store<typename Metric::Val>& B, std::uint32_t start,
                                               std::uint32_t goal, std::uint32_t meet, unsigned long long mu,
                                               std::uint32_t* cells, std::uint32_t cap) {
    using V = typename Metric::Val;
    if (threadIdx.x >= 32) return 0;
    const V gb = g_at<true>(B, slot_of<true>(B, meet));
    const std::uint32_t nb = walk_path<Metric, true>(M, B, goal, meet, gb, cells, cap);  // meet .. goal
    if (nb == 0) return 0;
    __syncwarp();
    for (std::uint32_t i = threadIdx.x; i < nb / 2; i += 32) {
        const std::uint32_t a = cells[i];
        cells[i] = cells[nb - 1 - i];
        cells[nb - 1 - i] = a;
    }
    __syncwarp();
    const std::uint32_t nf = walk_path<Metric, true>(M, F, start, meet, mu - gb, cells + nb - 1, cap - (nb - 1));
    return nf == 0 ? 0 : nb + nf - 1;
}

// Persistent blocks: each takes the next query from the counter and searches it to the end.
// Bidir: on-chip queries search from both ends first (GridAStarOptions::bidir; a kernel of its
// own, so that the one-sided kernel keeps its registers: a kernel's count is that of its
// hungriest path). __launch_bounds__: blocks of 1024 threads must stay launchable.
template <class Metric, bool Bidir>
__global__ void __launch_bounds__(1024) block_astar(Launch L) {
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ BlockState st;

    const Tables& T = L.tables;
    const Pool& P = L.pool;
    MapView M = L.map;
    const std::uint32_t slots = T.arrays.slots;
    using V = typename Metric::Val;
    // The block's own table: on chip (values, keys, buckets; chip_bytes on the host), or in
    // the global tier its table of the global ones.
    const std::size_t moves_at = std::size_t(slots) * (sizeof(V) + 4) + std::size_t(kRing) * T.arrays.bucket_cap * 4;
    Store<V> chip =
        make_store(reinterpret_cast<std::uint32_t*>(dyn + std::size_t(slots) * sizeof(V)), reinterpret_cast<V*>(dyn),
                   reinterpret_cast<std::uint32_t*>(dyn + std::size_t(slots) * (sizeof(V) + 4)), nullptr,
                   L.path_hints ? dyn + moves_at : nullptr, slots, T.arrays.bucket_cap);
    chip.used_limit = chip_used_limit(slots, int(blockDim.x), L.chain);
    // A bidirectional query's sides: half the table's slots and half of each bucket each.
    const std::uint32_t half = slots / 2, half_cap = T.arrays.bucket_cap / 2;
    Store<V> fwd = make_store(chip.keys, chip.vals, chip.buckets, nullptr, chip.moves, half, half_cap);
    Store<V> bwd = make_store(chip.keys + half, chip.vals + half, chip.buckets + kRing * half_cap, nullptr,
                              chip.moves ? chip.moves + half : nullptr, half, half_cap);
    fwd.used_limit = bwd.used_limit = chip_used_limit(half, int(blockDim.x) / 2, 1);
    const Store<V> own = T.global ? table_of<V>(T.arrays, blockIdx.x) : chip;
    if (L.map_words_on_chip) {  // published by the first query's barrier
        std::uint32_t* bits = reinterpret_cast<std::uint32_t*>(dyn + L.map_at);
        for (std::uint32_t i = threadIdx.x; i < L.map_words_on_chip; i += blockDim.x) bits[i] = L.map.bits[i];
        M.bits = bits;
    }

    if (!T.global) clear_chip(chip, slots);  // shared memory starts undefined; the global tier starts cleared

    for (;;) {
        if (threadIdx.x == 0) st.query_slot = atomicAdd(L.next, 1u);
        __syncthreads();
        if (st.query_slot >= L.count) break;
        const std::uint32_t qi = L.order[st.query_slot];
        delay_block(L.delay, 0, qi);
        const std::uint32_t w = std::uint32_t(M.width);
        const int sx = int(L.queries[qi].start % w), sy = int(L.queries[qi].start / w);
        const int gx = int(L.queries[qi].goal % w), gy = int(L.queries[qi].goal / w);
        const std::uint32_t goal = pack(gx, gy);
        const std::uint32_t start = pack(sx, sy);
        int moved = -1;  // the pool table after a move
        Store<V> pool{};

        // Bidirectional on chip first; a query that fills a half table (or a bucket) starts over
        // one-sided, where it can move into a pool table.
        bool two_sided = Bidir && !T.global && start != goal;
        if constexpr (Bidir) {
            if (two_sided) {
                start_query<Metric, true>(st, fwd, M.eight, sx, sy, gx, gy, &bwd);
                search<Metric, true, false, true>(L, M, st, fwd, bwd, Target{goal, gx, gy}, Target{start, sx, sy});
                if (st.full || st.lost || st.wrapped || st.too_large) {
                    two_sided = false;
                    clear_chip(chip, slots);
                    __syncthreads();
                } else if (L.path && st.goal_best != kInf) {
                    find_meeting<Metric>(st, fwd, bwd);
                }
            }
        }
        if (!two_sided && !T.global) {
            start_query<Metric, true>(st, chip, M.eight, sx, sy, gx, gy);
            search_query<Metric, true>(L, M, st, chip, goal, gx, gy);
            // Every thread sees the same flags (published by the last barrier).
            if (st.full && !st.lost && !st.wrapped && P.count) {
                moved = move_to_pool<Metric>(P, L.delay, qi, chip.keys, chip.vals, chip.moves, slots, M.eight, goal, gx,
                                             gy, st.head[0], st.tail[0], &st.used_count[0], &st.lost, &st.pool_table);
                if (moved >= 0) {
                    pool = table_of<V>(P.arrays, std::size_t(moved));
                    if (threadIdx.x == 0) st.full = 0;
                    __syncthreads();
                    search_query<Metric, false>(L, M, st, pool, goal, gx, gy);
                }
            }
        } else if (!two_sided) {
            start_query<Metric, false>(st, own, M.eight, sx, sy, gx, gy);
            search_query<Metric, false>(L, M, st, own, goal, gx, gy);
        }

        const bool failed = st.full || st.lost || st.wrapped || st.too_large;
        std::uint32_t path_length = 0, path_offset = 0;
        if (L.path && !failed && st.goal_best != kInf) {
            std::uint32_t cap = L.path_cap;
            if (L.path_used) {  // a share of the arena: every step costs at least orth
                const unsigned long long steps = st.goal_best / (unsigned long long)(Metric::orth) + 1;
                const std::uint32_t want = std::uint32_t(steps < L.path_cap ? steps : L.path_cap);
                if (threadIdx.x == 0) path_offset = atomicAdd(L.path_used, want);
                path_offset = __shfl_sync(0xFFFFFFFFu, path_offset, 0);  // warp 0 walks
                cap = path_offset <= L.path_cap - want ? want : 0;
            }
            std::uint32_t* cells = L.path + path_offset;
            if (cap == 0)
                path_length = 0;
            else if (two_sided)
                path_length = walk_two_sided<Metric>(M, fwd, bwd, start, goal, st.meet, st.goal_best, cells, cap);
            else if (moved >= 0)
                path_length = walk_path<Metric, false>(M, pool, start, goal, st.goal_best, cells, cap);
            else if (T.global)
                path_length = walk_path<Metric, false>(M, own, start, goal, st.goal_best, cells, cap);
            else
                path_length = walk_path<Metric, true>(M, chip, start, goal, st.goal_best, cells, cap);
        }
        if (threadIdx.x == 0) {
            QueryOut o;
            o.g = failed ? kInf : st.goal_best;
            o.expanded = st.expanded;
            o.iterations = st.iterations;
            o.status = !failed ? kDone : st.wrapped ? kRingWrapped : st.too_large ? kGTooLarge : kFull;
            o.moved = moved < 0 ? 0u : std::uint32_t(moved) + 1u;
            o.path_length = path_length;
            o.path_offset = path_offset;
            L.out[qi] = o;
        }
        __syncthreads();
        // Clean tables for the next query: every slot on chip, the slots taken in global memory
        // (the block's own global table, or the pool table it moved into, given back after).
        if (T.global) {
            clear_used(own, st.used_count[0]);  // a global-tier query never moves
        } else {
            clear_chip(chip, slots);
        }
        if (moved >= 0) {
            clear_used(pool, st.used_count[0]);
            __threadfence();
            __syncthreads();
            delay_block(L.delay, 2, qi);  // a cleared table held back: other blocks find none free
            if (threadIdx.x == 0) atomicExch(P.taken + moved, 0u);
        }
        __syncthreads();
    }
}

}  // namespace ps::gpu::grid_astar
