// Device code of block A* (kernels/search/grid_astar_gpu.hpp says why it is exact): one thread
// block per query, a hash table of (cell -> g, parent move, open bit) and a ring of f buckets,
// on chip or, for queries that outgrow it, in global memory. Host driver: grid_astar_gpu.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/search/grid_astar_gpu.hpp"

namespace ps::gpu::grid_astar {

constexpr int kRing = 8;         // buckets in the ring (live entries span at most 4)
constexpr int kLanes = 8;        // threads per entry, one per move
constexpr int kMaxProbes = 256;  // linear probing gives up here (counts as full)
constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
constexpr unsigned long long kInf = ~0ull;  // g unknown; also "no goal yet"
constexpr unsigned long long kOpen = 8;     // value = g << 4 | open << 3 | move into the cell

enum Status : std::uint32_t { kDone = 0, kFull = 1, kRingWrapped = 2 };

// Moves in the CPU searches' order: E, W, S, N, then SE, SW, NE, NW.
__constant__ int kDx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
__constant__ int kDy[8] = {0, 0, 1, -1, 1, 1, -1, -1};

// Cells travel packed as y << 16 | x (no division on the device; maps are at most 65535 wide
// and high, so kEmpty is never a cell). The map is a bitmap, 8x denser than the cells' bytes:
// the working set of a query's map reads stays in the little L1 the on-chip tables leave.
__host__ __device__ inline std::uint32_t pack(int x, int y) { return std::uint32_t(y) << 16 | std::uint32_t(x); }

struct MapView {
    const std::uint32_t* bits;  // bit x & 31 of word y * stride + x / 32: passable
    int width, height, stride;
    bool eight;
    int corner;  // a CornerRule: 0 a diagonal needs both orthogonal cells free, 1 one, 2 neither
};

// The two metrics as compile-time step costs, so that f / orth (the bucket) needs no division.
struct IntegerMetric {
    static constexpr unsigned long long orth = 1000, diag = 1414;
};
// Fixed point: orthogonal 2^32, diagonal sqrt(2) 2^32 rounded (1e-11 relative per step).
struct RealMetric {
    static constexpr unsigned long long orth = 1ull << 32, diag = 6074001000ull;
};

struct QueryOut {
    unsigned long long g;  // kInf: unreachable
    std::uint32_t expanded, iterations, status, pad;
};

// Where the blocks of one launch keep their tables: on chip (dynamic shared memory) or in
// global memory, `stride` elements apart per block.
struct Tables {
    bool global;
    std::uint32_t slots;       // power of two
    std::uint32_t bucket_cap;  // entries per bucket
    std::uint32_t* keys;       // global tier: slots per block
    unsigned long long* vals;
    std::uint32_t* buckets;  // kRing * bucket_cap per block
    std::uint32_t* used;     // global tier: the slots a query took, to clear them after it
    // want_path: the finished query's table is copied here (slots entries)
    std::uint32_t* dump_keys;
    unsigned long long* dump_vals;
};

struct Launch {
    MapView map;
    const GridQuery* queries;
    const std::uint32_t* order;  // query indices, longest first
    std::uint32_t count;
    unsigned int* next;  // the queue's counter
    QueryOut* out;
    Tables tables;
};

__host__ __device__ inline std::uint32_t hash_cell(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

template <class Metric>
__device__ inline unsigned long long heuristic(bool eight, int ax, int ay, int bx, int by) {
    const unsigned long long dx = unsigned(abs(ax - bx)), dy = unsigned(abs(ay - by));
    if (!eight) return (dx + dy) * Metric::orth;
    const unsigned long long lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    return (hi - lo) * Metric::orth + lo * Metric::diag;
}

__device__ inline bool passable(const MapView& m, int x, int y) {
    if (x < 0 || y < 0 || x >= m.width || y >= m.height) return false;
    return (__ldg(m.bits + std::size_t(y) * unsigned(m.stride) + unsigned(x >> 5)) >> (x & 31)) & 1u;
}

// The slot of `cell`, inserting it when absent (*inserted: this call took a new slot); -1 when
// a probe sequence grows too long, which sets *full.
__device__ inline int find_or_insert(std::uint32_t* keys, std::uint32_t mask, std::uint32_t cell, bool* inserted,
                                     unsigned* full) {
    std::uint32_t i = hash_cell(cell) & mask;
    for (int p = 0; p < kMaxProbes; ++p) {
        const std::uint32_t k = *reinterpret_cast<volatile std::uint32_t*>(keys + i);
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
    *full = 1;
    return -1;
}

// Counts the slots this warp's lanes took (one atomicAdd per warp: a counter every thread of
// the block increments serialises) and records them for clearing; a table past 3/4 is full.
__device__ inline void count_inserts(bool inserted, int slot, unsigned* used_count, std::uint32_t used_limit,
                                     std::uint32_t* used_list, unsigned* full) {
    const unsigned mask = __ballot_sync(0xFFFFFFFFu, inserted);
    if (!mask) return;
    const unsigned me = threadIdx.x & 31u;
    const int first = __ffs(mask) - 1;
    unsigned base = 0;
    if (int(me) == first) base = atomicAdd(used_count, unsigned(__popc(mask)));
    base = __shfl_sync(0xFFFFFFFFu, base, first);
    if (!inserted) return;
    const unsigned u = base + unsigned(__popc(mask & ((1u << me) - 1u)));
    if (u >= used_limit) *full = 1;
    if (used_list) used_list[u] = std::uint32_t(slot);  // u < slots: each insert took a distinct empty slot
}

// The slot of a cell known to be in the table (inserted before the last block barrier).
__device__ inline int find_slot(const std::uint32_t* keys, std::uint32_t mask, std::uint32_t cell) {
    std::uint32_t i = hash_cell(cell) & mask;
    for (int p = 0; p < kMaxProbes; ++p) {
        const std::uint32_t k = *reinterpret_cast<const volatile std::uint32_t*>(keys + i);
        if (k == cell) return int(i);
        if (k == kEmpty) return -1;
        i = (i + 1) & mask;
    }
    return -1;
}

// Persistent blocks: each takes the next query from the counter and searches it to the end.
template <class Metric>
__global__ void block_astar(Launch L) {
    extern __shared__ __align__(16) unsigned char dyn[];
    // Each bucket is a FIFO in a ring buffer of bucket_cap entries: pops advance head, pushes
    // tail, so the entries an iteration takes are never overwritten by its pushes and the
    // block needs two barriers per iteration.
    __shared__ unsigned head[kRing], tail[kRing];
    __shared__ unsigned long long cur, goal_best;
    __shared__ unsigned used_count, full, wrapped, expanded, query_slot;
    __shared__ std::uint32_t iterations;

    const Tables& T = L.tables;
    const MapView& M = L.map;
    const std::uint32_t mask = T.slots - 1;
    std::uint32_t* keys;
    unsigned long long* vals;
    std::uint32_t* buckets;
    std::uint32_t* used_list = nullptr;
    if (T.global) {
        keys = T.keys + std::size_t(blockIdx.x) * T.slots;
        vals = T.vals + std::size_t(blockIdx.x) * T.slots;
        buckets = T.buckets + std::size_t(blockIdx.x) * kRing * T.bucket_cap;
        used_list = T.used + std::size_t(blockIdx.x) * T.slots;
    } else {
        vals = reinterpret_cast<unsigned long long*>(dyn);
        keys = reinterpret_cast<std::uint32_t*>(dyn + std::size_t(T.slots) * 8);
        buckets = keys + T.slots;
    }
    const std::uint32_t used_limit = T.slots / 4 * 3;
    const int group = int(threadIdx.x) / kLanes, lane = int(threadIdx.x) % kLanes;
    const int groups = int(blockDim.x) / kLanes;
    constexpr unsigned long long W = Metric::orth;

    if (!T.global) {  // shared memory starts undefined; the global tier starts cleared (host memset)
        for (std::uint32_t i = threadIdx.x; i < T.slots; i += blockDim.x) {
            keys[i] = kEmpty;
            vals[i] = kInf;
        }
    }

    for (;;) {
        if (threadIdx.x == 0) query_slot = atomicAdd(L.next, 1u);
        __syncthreads();
        if (query_slot >= L.count) break;
        const std::uint32_t qi = L.order[query_slot];
        const std::uint32_t w = std::uint32_t(M.width);
        const int sx = int(L.queries[qi].start % w), sy = int(L.queries[qi].start / w);
        const int gx = int(L.queries[qi].goal % w), gy = int(L.queries[qi].goal / w);
        const std::uint32_t start = pack(sx, sy), goal = pack(gx, gy);

        if (threadIdx.x < kRing) head[threadIdx.x] = tail[threadIdx.x] = 0;
        if (threadIdx.x == 0) {
            used_count = 0;
            full = 0;
            wrapped = 0;
            expanded = 0;
            iterations = 0;
            goal_best = start == goal ? 0ull : kInf;
            cur = heuristic<Metric>(M.eight, sx, sy, gx, gy) / W;
            if (start != goal) {
                bool inserted = false;
                const int s = find_or_insert(keys, mask, start, &inserted, &full);
                used_count = 1;
                if (used_list) used_list[0] = std::uint32_t(s);
                vals[s] = kOpen;  // g 0, open
                buckets[(cur % kRing) * T.bucket_cap] = start;
                tail[cur % kRing] = 1;
            }
        }
        __syncthreads();

        while (goal_best != 0ull) {  // start == goal: nothing to search
            // Every thread decides alike from the state the last barrier published. Live entries
            // lie in [cur, cur + kRing): the ring never wraps.
            unsigned long long b = cur;
            while (b < cur + kRing && head[b % kRing] == tail[b % kRing]) ++b;
            if (full || wrapped || b == cur + kRing || (goal_best != kInf && goal_best <= b * W)) break;
            const unsigned ring_now = unsigned(b % kRing);
            const unsigned take_from = head[ring_now];
            const unsigned avail = tail[ring_now] - take_from;
            const unsigned take = avail < unsigned(groups) ? avail : unsigned(groups);
            const unsigned new_head = take_from + take;

            // Read and claim this group's entry before any thread pushes into the bucket.
            std::uint32_t cell = kEmpty;
            unsigned long long g = 0;
            if (group < int(take)) {
                cell = buckets[ring_now * T.bucket_cap + (take_from + unsigned(group)) % T.bucket_cap];
                if (lane == 0) {
                    const int s = find_slot(keys, mask, cell);
                    unsigned long long v = s >= 0 ? *reinterpret_cast<volatile unsigned long long*>(vals + s) : 0ull;
                    bool claimed = false;
                    while (s >= 0 && (v & kOpen)) {
                        const unsigned long long old = atomicCAS(vals + s, v, v & ~kOpen);
                        if (old == v) {
                            claimed = true;
                            break;
                        }
                        v = old;
                    }
                    g = v >> 4;
                    // An entry whose f cannot beat the best goal found is closed without expanding.
                    if (!claimed ||
                        (goal_best != kInf &&
                         g + heuristic<Metric>(M.eight, int(cell & 0xFFFFu), int(cell >> 16), gx, gy) >= goal_best))
                        cell = kEmpty;
                }
            }
            const int leader = int(threadIdx.x & 31u & ~7u);  // lane 0 of this group, in the warp
            cell = __shfl_sync(0xFFFFFFFFu, cell, leader);
            g = __shfl_sync(0xFFFFFFFFu, g, leader);
            {
                const unsigned leaders = __ballot_sync(0xFFFFFFFFu, lane == 0 && cell != kEmpty);
                if ((threadIdx.x & 31u) == 0 && leaders) atomicAdd(&expanded, unsigned(__popc(leaders)));
            }
            __syncthreads();  // every thread has read cur, head and tail and its entry
            if (threadIdx.x == 0) {
                cur = b;
                head[ring_now] = new_head;
                ++iterations;
            }

            // One round of map loads: lane d reads the cell of move d; the diagonals' corner
            // cells come from the orthogonal lanes of the group through a ballot.
            const int x = int(cell & 0xFFFFu), y = int(cell >> 16);
            const int nx = x + kDx[lane], ny = y + kDy[lane];
            const bool free_cell = cell != kEmpty && (M.eight || lane < 4) && passable(M, nx, ny);
            const unsigned bits = __ballot_sync(0xFFFFFFFFu, free_cell) >> leader;
            bool ok = free_cell;
            if (ok && lane >= 4) {
                // SE, SW, NE, NW: (E or W) and (S or N) beside the move.
                const bool a = (bits >> (lane == 4 || lane == 6 ? 0 : 1)) & 1u;
                const bool b = (bits >> (lane < 6 ? 2 : 3)) & 1u;
                ok = M.corner == 0 ? (a && b) : M.corner == 1 ? (a || b) : true;
            }
            unsigned long long bucket = ~0ull;
            std::uint32_t nb = 0;
            unsigned long long ng = 0, f = 0;
            int s = -1;
            bool inserted = false;
            if (ok) {
                nb = pack(nx, ny);
                ng = g + (lane >= 4 ? Metric::diag : Metric::orth);
                f = ng + heuristic<Metric>(M.eight, nx, ny, gx, gy);
                if (goal_best == kInf || f < goal_best) s = find_or_insert(keys, mask, nb, &inserted, &full);
            }
            count_inserts(inserted, s, &used_count, used_limit, used_list, &full);
            if (s >= 0) {
                const unsigned long long nv = (ng << 4) | kOpen | unsigned(lane);
                const unsigned long long old = atomicMin(vals + s, nv);
                if ((old >> 4) > ng) {
                    if (nb == goal) {
                        atomicMin(&goal_best, ng);
                    } else {
                        bucket = f / W;
                        if (bucket < b || bucket >= b + kRing) {  // never (grid_astar_gpu.hpp)
                            wrapped = 1;
                            bucket = ~0ull;
                        }
                    }
                }
            }
            // Pushes: one atomicAdd per bucket per warp (a shared counter hit by every thread
            // of the block serialises).
            {
                const unsigned ring = bucket == ~0ull ? unsigned(kRing) : unsigned(bucket % kRing);
                const unsigned peers = __match_any_sync(0xFFFFFFFFu, ring);
                const unsigned me = threadIdx.x & 31u;
                const int first = __ffs(peers) - 1;
                unsigned base = 0;
                if (ring < unsigned(kRing) && int(me) == first) base = atomicAdd(&tail[ring], unsigned(__popc(peers)));
                base = __shfl_sync(0xFFFFFFFFu, base, first);
                if (ring < unsigned(kRing)) {
                    const unsigned pos = base + unsigned(__popc(peers & ((1u << me) - 1u)));
                    // head of this ring after this iteration's pops (thread 0 may be storing it)
                    const unsigned h = ring == ring_now ? new_head : head[ring];
                    if (pos - h >= T.bucket_cap)
                        full = 1;
                    else
                        buckets[ring * T.bucket_cap + pos % T.bucket_cap] = nb;
                }
            }
            __syncthreads();
        }

        if (threadIdx.x == 0) {
            QueryOut o;
            o.g = (full || wrapped) ? kInf : goal_best;
            o.expanded = expanded;
            o.iterations = iterations;
            o.status = full ? kFull : wrapped ? kRingWrapped : kDone;
            o.pad = 0;
            L.out[qi] = o;
        }
        __syncthreads();
        if (T.dump_keys) {
            for (std::uint32_t i = threadIdx.x; i < T.slots; i += blockDim.x) {
                T.dump_keys[i] = keys[i];
                T.dump_vals[i] = vals[i];
            }
            __syncthreads();
        }
        // Clean table for the next query: every slot on chip, the slots taken in global memory.
        if (T.global) {
            const unsigned n = used_count < T.slots ? used_count : T.slots;
            for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
                keys[used_list[i]] = kEmpty;
                vals[used_list[i]] = kInf;
            }
        } else {
            for (std::uint32_t i = threadIdx.x; i < T.slots; i += blockDim.x) {
                keys[i] = kEmpty;
                vals[i] = kInf;
            }
        }
        __syncthreads();
    }
}

}  // namespace ps::gpu::grid_astar
