// UBA* and BBA* (the BBA* paper's bucket-queue A*) on the implicit grid graph, integer metric.
//
// Why it is exact: every improvement of a vertex's g (atomicMin) pushes an entry into the
// bucket of its f; an entry is expanded only while its g is still the vertex's best, so a
// vertex whose g improves later is simply expanded again (label-correcting). With the
// consistent octile heuristic, while the best path found costs more than the optimum some
// entry with f <= optimum is still queued; hence stopping once the lowest non-empty bucket of
// a direction starts at or above the best path cost gives the optimal cost, whatever order
// the entries of a bucket are expanded in.
//
// Why a small circular window of buckets suffices: an expanded entry of bucket c has
// f < (c+1)W, and one step raises f by at most twice the diagonal cost (consistency), and
// never lowers it; so every push lands in buckets c .. c + (W-1+2828)/W.
//
// The loop runs in one persistent cooperative kernel: one thread picks each direction's
// lowest bucket and tests termination, a grid barrier, all threads expand the picked entries
// (grid-stride), a grid barrier; the kernel returns after a batch of iterations so the host
// can poll for cancellation, then is launched again. Where cooperative launch is not possible
// the same steps run host-driven: one tiny kernel picks, one grid-stride kernel expands, the
// host launches several such pairs back to back and reads the done flag once per batch
// (launches after "done" return at once).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "instrumentation/nvtx.hpp"
#include "kernels/astar_gpu.hpp"
#include "kernels/cuda/astar_host.hpp"
#include "kernels/cuda/cuda_util.cuh"
#include "kernels/gpu_info.hpp"

namespace ps::gpu::astar {

namespace cg = cooperative_groups;

inline constexpr std::int32_t kInf = kUnreachedG;  // g of unreached cells (memset 0x7F)
inline constexpr std::int64_t kMaxG = kInf - 1;         // larger costs stop the search
inline constexpr std::int64_t kMaxStepRise = 2 * 1414;  // most f can rise in one step
inline constexpr int kMaxBuckets = 16;
inline constexpr unsigned long long kNoBest = ~0ull;

struct Entry {
    std::uint32_t v;
    std::int32_t g;
};

// One direction's circular window of buckets. Slot b % nb holds bucket b; each slot points
// at one of nb + 1 storages, the extra one being the storage expanded in this iteration.
struct Queue {
    std::int64_t cur;  // absolute index of the lowest bucket that may be non-empty
    unsigned int count[kMaxBuckets];
    unsigned int storage[kMaxBuckets];
    unsigned int active_storage;
    unsigned int active_count;
};

struct Control {
    Queue q[2];
    unsigned long long best;  // (path cost << 32) | meeting vertex; kNoBest when none
    unsigned int done;
    unsigned int bucket_overflow;  // a push found its bucket full: restart with more room
    unsigned int cost_overflow;    // a g passed kMaxG
    unsigned int window_error;     // a push beyond the window (impossible; checked anyway)
    unsigned long long expanded, pushed, iterations;
};

struct Search {
    const std::uint8_t* cells;
    int width, height;
    bool eight, cut;
    int dirs;           // 1: UBA*, 2: BBA*
    int nb;             // buckets in the window
    std::int64_t bw;    // bucket width
    std::uint64_t cap;  // entries per storage
    Entry* pool;        // dirs * (nb + 1) storages
    std::int32_t* g[2];
    std::uint32_t target[2];  // direction d searches towards target[d]
};

__device__ __forceinline__ std::int64_t octile(const Search& s, std::uint32_t v, std::uint32_t t) {
    const int dx = abs(int(v % unsigned(s.width)) - int(t % unsigned(s.width)));
    const int dy = abs(int(v / unsigned(s.width)) - int(t / unsigned(s.width)));
    return 1000ll * max(dx, dy) + 414ll * min(dx, dy);
}

__device__ __forceinline__ bool open_cell(const Search& s, int x, int y) {
    return x >= 0 && y >= 0 && x < s.width && y < s.height && s.cells[std::uint32_t(y) * unsigned(s.width) + x] != 0;
}

// The device twin of for_each_grid_neighbour (same corner rule): f(w, step cost).
template <class F>
__device__ __forceinline__ void for_each_neighbour(const Search& s, std::uint32_t v, F&& f) {
    const std::uint32_t w = unsigned(s.width);
    const int x = int(v % w), y = int(v / w);
    const bool e = open_cell(s, x + 1, y), west = open_cell(s, x - 1, y);
    const bool so = open_cell(s, x, y + 1), n = open_cell(s, x, y - 1);
    if (e) f(v + 1, 1000);
    if (west) f(v - 1, 1000);
    if (so) f(v + w, 1000);
    if (n) f(v - w, 1000);
    if (!s.eight) return;
    auto allowed = [&](bool a, bool b) { return s.cut ? (a || b) : (a && b); };
    if (allowed(e, so) && open_cell(s, x + 1, y + 1)) f(v + w + 1, 1414);
    if (allowed(west, so) && open_cell(s, x - 1, y + 1)) f(v + w - 1, 1414);
    if (allowed(e, n) && open_cell(s, x + 1, y - 1)) f(v - w + 1, 1414);
    if (allowed(west, n) && open_cell(s, x - 1, y - 1)) f(v - w - 1, 1414);
}

__device__ __forceinline__ std::int64_t best_cost(unsigned long long best) {
    return best == kNoBest ? INT64_MAX : std::int64_t(best >> 32);
}

// Picks each direction's lowest non-empty bucket as the next batch, or sets done when a
// direction is empty or its lowest bucket cannot hold an f below the best path. One thread.
// The control block is read through a volatile pointer: in the persistent kernel other
// blocks wrote it before the grid barrier, and their writes must not be read from a stale L1.
// All loads are issued before any is tested (independent loads overlap; a chain of tests
// would pay one global-memory round trip per field).
__device__ void select_step(const Search& s, volatile Control* ctl) {
    const unsigned int done = ctl->done;
    const unsigned int flags = ctl->bucket_overflow | ctl->cost_overflow | ctl->window_error;
    const unsigned long long best_word = ctl->best;
    std::int64_t cur[2] = {0, 0};
    unsigned int count[2][kMaxBuckets];
#pragma unroll
    for (int d = 0; d < 2; ++d) {
        if (d < s.dirs) cur[d] = ctl->q[d].cur;
#pragma unroll
        for (int b = 0; b < kMaxBuckets; ++b) count[d][b] = d < s.dirs && b < s.nb ? ctl->q[d].count[b] : 0u;
    }
    if (done) return;
    if (flags) {
        ctl->done = 1;
        return;
    }
    const std::int64_t best = best_cost(best_word);
    std::int64_t lowest[2] = {-1, -1};
    bool finished = false;
    for (int d = 0; d < s.dirs; ++d) {
#pragma unroll
        for (int k = 0; k < kMaxBuckets; ++k) {
            const std::int64_t b = cur[d] + k;
            if (k < s.nb && lowest[d] < 0 && count[d][b % s.nb] > 0) lowest[d] = b;
        }
        if (lowest[d] < 0 || lowest[d] * s.bw >= best) finished = true;
    }
    if (finished) {
        ctl->done = 1;
        return;
    }
    for (int d = 0; d < s.dirs; ++d) {
        volatile Queue& q = ctl->q[d];
        const int slot = int(lowest[d] % s.nb);
        // The storage expanded last iteration is free now: it takes the picked slot's place,
        // so pushes into the bucket being expanded land in a fresh storage.
        const unsigned int picked = q.storage[slot];
        q.storage[slot] = q.active_storage;
        q.active_storage = picked;
        q.active_count = q.count[slot];
        q.count[slot] = 0;
        q.cur = lowest[d];
    }
    ctl->iterations = ctl->iterations + 1;
}

__global__ void select_buckets(Search s, Control* ctl) {
    if (threadIdx.x == 0) select_step(s, ctl);
}

// Expands the picked entries of both directions, grid-stride over all threads. Called after
// select_step (and, in the persistent kernel, a grid barrier); the window fields it reads do
// not change until the next select_step.
__device__ __forceinline__ void expand_step(const Search& s, Control* ctl) {
    volatile Control* vctl = ctl;
    const unsigned int n0 = vctl->q[0].active_count;
    const unsigned int total = n0 + (s.dirs > 1 ? vctl->q[1].active_count : 0u);
    const std::int64_t best_at_start = best_cost(vctl->best);
    std::int64_t cur[2];
    unsigned int active[2];
    for (int d = 0; d < s.dirs; ++d) {
        cur[d] = vctl->q[d].cur;
        active[d] = vctl->q[d].active_storage;
    }
    unsigned int expanded = 0, pushed = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
        const int d = i < n0 ? 0 : 1;
        Queue& q = ctl->q[d];
        const Entry e = s.pool[std::uint64_t(active[d]) * s.cap + (d == 0 ? i : i - n0)];
        std::int32_t* g = s.g[d];
        if (e.g > g[e.v]) continue;  // stale: a better g was pushed since
        if (e.g + octile(s, e.v, s.target[d]) >= best_at_start) continue;
        ++expanded;
        const std::int32_t* other = s.dirs > 1 ? s.g[1 - d] : nullptr;
        for_each_neighbour(s, e.v, [&](std::uint32_t w, int cost) {
            const std::int64_t ng = std::int64_t(e.g) + cost;
            if (ng > kMaxG) {
                ctl->cost_overflow = 1;
                return;
            }
            const std::int64_t f = ng + octile(s, w, s.target[d]);
            if (f >= best_cost(*static_cast<volatile unsigned long long*>(&ctl->best))) return;
            if (atomicMin(&g[w], std::int32_t(ng)) <= ng) return;
            // Meeting: the fence orders our g write before reading the other direction's, so
            // of two threads meeting at w from both sides at least one sees the other.
            std::int64_t rest = kInf;
            if (other) {
                __threadfence();
                rest = *static_cast<const volatile std::int32_t*>(&other[w]);
            } else if (w == s.target[d]) {
                rest = 0;
            }
            if (rest != kInf) atomicMin(&ctl->best, (static_cast<unsigned long long>(ng + rest) << 32) | w);
            const std::int64_t b = f / s.bw;
            if (b - cur[d] >= s.nb) {
                ctl->window_error = 1;
                return;
            }
            const int slot = int(b % s.nb);
            const unsigned int idx = atomicAdd(&q.count[slot], 1u);
            if (idx >= s.cap) {
                ctl->bucket_overflow = 1;
                return;
            }
            const unsigned int st = static_cast<volatile unsigned int*>(q.storage)[slot];
            s.pool[std::uint64_t(st) * s.cap + idx] = Entry{w, std::int32_t(ng)};
            ++pushed;
        });
    }
    expanded = __reduce_add_sync(0xFFFFFFFFu, expanded);
    pushed = __reduce_add_sync(0xFFFFFFFFu, pushed);
    if ((threadIdx.x & 31) == 0 && (expanded | pushed)) {
        atomicAdd(&ctl->expanded, static_cast<unsigned long long>(expanded));
        atomicAdd(&ctl->pushed, static_cast<unsigned long long>(pushed));
    }
}

__global__ void __launch_bounds__(1024) expand_buckets(Search s, Control* ctl) {
    if (*static_cast<volatile unsigned int*>(&ctl->done)) return;
    expand_step(s, ctl);
}

// The whole loop in one cooperative kernel: block 0 picks the buckets, a grid barrier, all
// threads expand, a grid barrier, and so on until done (or a bucket overflows, which sets
// done with the flag; the host then restarts with more room). The kernel also returns after
// `max_iterations` iterations without setting done, so the host can poll for cancellation
// and launch it again.
__global__ void __launch_bounds__(1024) persistent_astar(Search s, Control* ctl, unsigned int max_iterations) {
    cg::grid_group grid = cg::this_grid();
    volatile Control* vctl = ctl;
    for (unsigned int it = 0; it < max_iterations; ++it) {
        if (blockIdx.x == 0 && threadIdx.x == 0) select_step(s, vctl);
        grid.sync();
        if (vctl->done) return;
        expand_step(s, ctl);
        grid.sync();
    }
}

}  // namespace ps::gpu::astar

namespace ps::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
using Clock = std::chrono::steady_clock;
namespace a = astar;

std::uint64_t default_capacity(std::size_t cells) {
    return std::clamp<std::uint64_t>(cells / 8, 1u << 16, 1u << 25);
}

}  // namespace

AStarGpuOutput run_astar_gpu(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                             const AStarGpuOptions& opt) {
    AStarGpuOutput out;
    if (opt.bucket_width < 256 || opt.bucket_width > (1 << 24)) {
        out.error = "bucket_width must be between 256 and 16777216, got " + std::to_string(opt.bucket_width);
        return out;
    }
    if (start >= map.cell_count() || goal >= map.cell_count()) {
        out.error = "start or goal lies outside the " + std::to_string(map.width()) + "x" +
                    std::to_string(map.height()) + " map";
        return out;
    }
    try {
        const std::size_t cells = map.cell_count();
        const int dirs = opt.bidirectional ? 2 : 1;
        a::Search s{};
        s.width = map.width();
        s.height = map.height();
        s.eight = rules.connectivity == Connectivity::Eight;
        s.cut = rules.corner_cutting;
        s.dirs = dirs;
        s.bw = opt.bucket_width;
        s.nb = int((opt.bucket_width - 1 + a::kMaxStepRise) / opt.bucket_width) + 2;
        s.target[0] = goal;
        s.target[1] = start;
        std::uint64_t cap = opt.initial_bucket_capacity ? opt.initial_bucket_capacity : default_capacity(cells);

        detail::Stream stream;
        detail::Event compute_start, compute_end;
        detail::PinnedValue<a::Control> host_ctl;
        nvtx::PhaseSequence phase;
        const int sms = gpu_info().sm_count > 0 ? gpu_info().sm_count : 1;
        const unsigned int blocks = unsigned(sms) * unsigned(2048 / opt.block_size);
        // The persistent cooperative kernel when the device can run one, one block per SM:
        // buckets hold a few hundred entries on average, and few blocks keep the grid barrier
        // cheap (gpu-facts: ~1.4 us at 132 blocks, 5 us at 1056).
        // Otherwise (no cooperative launch, or opt.persistent off) the host-driven loop.
        unsigned int persistent_blocks = 0;
        if (opt.persistent) {
            int device = 0, coop = 0, per_sm = 0;
            check(cudaGetDevice(&device), "querying the device");
            check(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device),
                  "querying cooperative launch support");
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, a::persistent_astar, opt.block_size, 0),
                  "querying occupancy for the persistent A* kernel");
            if (coop && per_sm > 0)
                persistent_blocks = unsigned(sms);
        }
        out.persistent = persistent_blocks > 0;

        const auto t0 = Clock::now();
        phase.begin(nvtx::Phase::Allocate, "allocate");
        DeviceBuffer<std::uint8_t> d_cells(cells, "the map cells");
        DeviceBuffer<std::int32_t> d_g[2];
        for (int d = 0; d < dirs; ++d) d_g[d].allocate(cells, d == 0 ? "the forward g array" : "the backward g array");
        DeviceBuffer<a::Control> d_ctl(1, "the control block");
        DeviceBuffer<a::Entry> pool;
        const auto t1 = Clock::now();
        phase.begin(nvtx::Phase::Upload, "upload");
        check(cudaMemcpyAsync(d_cells.get(), map.cells().data(), cells, cudaMemcpyHostToDevice, stream),
              "uploading the map");
        stream.sync("uploading the map");
        const auto t2 = Clock::now();
        phase.begin(nvtx::Phase::Compute, "compute");
        compute_start.record(stream);
        s.cells = d_cells.get();
        for (int d = 0; d < dirs; ++d) s.g[d] = d_g[d].get();

        // A full bucket means a lost entry, so the search restarts from scratch with 4x the room.
        for (;;) {
            const std::uint64_t storages = std::uint64_t(dirs) * std::uint64_t(s.nb + 1);
            if (pool.size() < storages * cap) pool.allocate(storages * cap, "the bucket queues");
            s.pool = pool.get();
            s.cap = cap;
            a::Control ctl{};
            ctl.best = start == goal ? std::uint64_t(start) : a::kNoBest;  // cost 0, meeting at start
            const Vertex source[2] = {start, goal};
            for (int d = 0; d < dirs; ++d) {
                a::Queue& q = ctl.q[d];
                for (int b = 0; b < s.nb; ++b) q.storage[b] = unsigned(d * (s.nb + 1) + b);
                q.active_storage = unsigned(d * (s.nb + 1) + s.nb);
                q.cur = host_octile(map, source[d], s.target[d]) / s.bw;
                q.count[q.cur % s.nb] = 1;
                const a::Entry seed{source[d], 0};
                check(cudaMemsetAsync(s.g[d], 0x7F, cells * 4, stream), "clearing g");
                check(cudaMemsetAsync(s.g[d] + source[d], 0, 4, stream), "seeding g");
                check(cudaMemcpyAsync(s.pool + std::uint64_t(q.storage[q.cur % s.nb]) * cap, &seed, sizeof seed,
                                      cudaMemcpyHostToDevice, stream),
                      "seeding the bucket queue");
            }
            *host_ctl = ctl;
            check(cudaMemcpyAsync(d_ctl.get(), host_ctl.get(), sizeof ctl, cudaMemcpyHostToDevice, stream),
                  "uploading the control block");
            // Launch a batch of iterations, then look at the done flag: a batch grows up to
            // 64 iterations (host loop) or 65536 (persistent kernel, 32 per step), so short searches do not
            // wait for a long batch and cancellation is polled now and then.
            for (unsigned int batch = 2;; batch = std::min(batch * 2, persistent_blocks ? 2048u : 64u)) {
                if (persistent_blocks) {
                    a::Control* ctl_ptr = d_ctl.get();
                    unsigned int iterations = batch * 32;
                    void* args[] = {&s, &ctl_ptr, &iterations};
                    check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(a::persistent_astar),
                                                      dim3{persistent_blocks}, dim3{unsigned(opt.block_size)}, args, 0,
                                                      stream),
                          "launching the persistent A* kernel");
                    out.host_launches += 1;
                } else {
                    for (unsigned int i = 0; i < batch; ++i) {
                        a::select_buckets<<<1, 32, 0, stream>>>(s, d_ctl.get());
                        a::expand_buckets<<<blocks, opt.block_size, 0, stream>>>(s, d_ctl.get());
                    }
                    out.host_launches += 2u * batch;
                }
                check(cudaGetLastError(), "launching the A* kernels");
                check(cudaMemcpyAsync(host_ctl.get(), d_ctl.get(), sizeof(a::Control), cudaMemcpyDeviceToHost, stream),
                      "reading the control block");
                stream.sync("running the A* iterations");
                if (host_ctl->done) break;
                if (opt.cancel && opt.cancel->load()) {
                    out.cancelled = true;
                    return out;
                }
            }
            if (!host_ctl->bucket_overflow) break;
            ++out.restarts;
            cap *= 4;
            pool.release();  // before allocating the larger one: both may not fit
        }
        compute_end.record(stream);
        stream.sync("finishing the A* search");
        const a::Control& ctl = *host_ctl;
        out.iterations = ctl.iterations;
        out.expanded = ctl.expanded;
        out.pushed = ctl.pushed;
        out.bucket_capacity = cap;
        if (ctl.cost_overflow) {
            out.error = "path costs exceed the int32 range of the GPU A* (2.1e9, about 2.1 million orthogonal "
                        "steps): use astar.cpu on this map";
            return out;
        }
        if (ctl.window_error) {
            out.error = "internal error: a push fell outside the bucket window (inconsistent heuristic?)";
            return out;
        }
        const auto t3 = Clock::now();
        phase.begin(nvtx::Phase::Download, "download");
        if (ctl.best != a::kNoBest) {
            out.found = true;
            out.cost = std::int64_t(ctl.best >> 32);
            const Vertex meet = Vertex(ctl.best & 0xFFFFFFFFu);
            std::vector<std::int32_t> g(cells);
            check(cudaMemcpyAsync(g.data(), s.g[0], cells * 4, cudaMemcpyDeviceToHost, stream), "downloading g");
            stream.sync("downloading g");
            out.path = walk_back(map, rules, g, meet);
            if (dirs == 2 && !out.path.empty()) {
                check(cudaMemcpyAsync(g.data(), s.g[1], cells * 4, cudaMemcpyDeviceToHost, stream),
                      "downloading the backward g");
                stream.sync("downloading the backward g");
                std::vector<Vertex> back = walk_back(map, rules, g, meet);  // goal .. meet
                if (back.empty()) {
                    out.path.clear();
                } else {
                    back.pop_back();
                    out.path.insert(out.path.end(), back.rbegin(), back.rend());
                }
            }
            if (out.path.empty()) {
                out.error = "internal error: no path along the g values to the meeting vertex";
                return out;
            }
        }
        const auto t4 = Clock::now();
        phase.end();
        const Clock::time_point boundaries[5] = {t0, t1, t2, t3, t4};
        detail::set_phase_times(out, boundaries);
        out.gpu_compute_ms = compute_end.ms_since(compute_start);
    } catch (const detail::CudaError& e) {
        out.error = e.what();
    }
    return out;
}

}  // namespace ps::gpu
