// Host driver of block A* (kernels/search/grid_astar_gpu.hpp): plans the on-chip and the
// global-memory launches, runs every query on chip first, then the ones that outgrew it with
// tables in global memory (growing the buckets until every query finishes), and reads back
// costs, counters and, for one query, the path.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "instrumentation/nvtx.hpp"
#include "kernels/gpu/cuda_util.cuh"
#include "kernels/search/grid_astar_gpu.hpp"
#include "kernels/search/grid_astar_kernels.cuh"

namespace ps::gpu {
namespace {

using namespace grid_astar;
using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

static_assert(IntegerMetric::orth == kIntOrthogonal && IntegerMetric::diag == kIntDiagonal);

// The kernel of the metric (its step costs are compile-time constants).
using Kernel = void (*)(Launch);
Kernel kernel_for(CostMode mode) {
    return mode == CostMode::Integer ? block_astar<IntegerMetric> : block_astar<RealMetric>;
}

// One bit per cell, rows padded to 32-bit words.
std::vector<std::uint32_t> map_bits(const GridMap& map, int* stride) {
    *stride = (map.width() + 31) / 32;
    std::vector<std::uint32_t> bits(std::size_t(*stride) * std::size_t(map.height()), 0u);
    for (int y = 0; y < map.height(); ++y)
        for (int x = 0; x < map.width(); ++x)
            if (map.passable(x, y)) bits[std::size_t(y) * std::size_t(*stride) + std::size_t(x >> 5)] |= 1u << (x & 31);
    return bits;
}

std::uint32_t next_pow2(std::uint64_t v) {
    std::uint64_t p = 1;
    while (p < v) p <<= 1;
    return std::uint32_t(std::min<std::uint64_t>(p, 1ull << 31));
}

std::size_t shared_bytes(const GridAStarOptions& o) {
    return std::size_t(o.shared_slots) * 12 + std::size_t(kRing) * std::size_t(o.shared_bucket) * 4;
}

struct SpillShape {
    std::uint32_t slots = 0, bucket_cap = 0;
    std::size_t bytes_per_block() const {
        return std::size_t(slots) * (4 + 8 + 4) + std::size_t(kRing) * bucket_cap * 4;
    }
};

// A table that cannot fill: twice the passable cells (a query touches each cell once). Buckets
// start at a quarter of the passable cells and grow when a query fills one.
SpillShape spill_shape(const GridMap& map) {
    const std::uint64_t passable = std::max<std::uint64_t>(16, map.passable_count());
    SpillShape s;
    s.slots = next_pow2(passable * 2);
    s.bucket_cap = std::uint32_t(std::max<std::uint64_t>(1024, passable / 4));
    return s;
}

struct Plan {
    int on_chip_blocks = 0;
    std::size_t shared = 0;
    SpillShape spill;
    int spill_blocks_max = 0;  // how many global tables the budget and the SMs allow
    std::uint64_t budget = 0;
};

Plan make_plan(const GridMap& map, std::size_t queries, const GridAStarOptions& o, Kernel kernel,
               bool allocate_nothing) {
    Plan p;
    p.shared = shared_bytes(o);
    int device = 0, sms = 1;
    detail::check(cudaGetDevice(&device), "cudaGetDevice");
    detail::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
    detail::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.shared)),
                  "allowing the on-chip table's shared memory");
    int per_sm = 0;
    detail::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, o.block_threads, p.shared),
                  "computing block A* occupancy");
    if (per_sm < 1)
        throw detail::CudaError("an on-chip table of " + detail::mib(p.shared) +
                                " does not fit one SM's shared memory: lower shared_slots or shared_bucket");
    const int resident = per_sm * sms;
    p.on_chip_blocks = int(std::min<std::size_t>(queries, std::size_t(o.blocks > 0 ? o.blocks : resident)));
    p.on_chip_blocks = std::max(p.on_chip_blocks, 1);
    p.spill = spill_shape(map);
    std::size_t free_bytes = 0, total = 0;
    if (!allocate_nothing)
        detail::check(cudaMemGetInfo(&free_bytes, &total), "reading free GPU memory");
    else
        cudaMemGetInfo(&free_bytes, &total);
    p.budget = o.spill_budget_bytes ? o.spill_budget_bytes : free_bytes / 2;
    p.spill_blocks_max = int(std::min<std::uint64_t>(std::uint64_t(sms) * 2, p.budget / p.spill.bytes_per_block()));
    return p;
}

std::string plan_text(const GridMap& map, std::size_t queries, const GridAStarOptions& o, const Plan& p) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "block A* plan: %zu queries on %dx%d; on chip: %d persistent blocks of %d threads, %s shared each "
                  "(%d hash slots, %d entries per bucket); queries that outgrow it: global tables of %s each "
                  "(%u slots, %u entries per bucket), up to %d blocks within %s",
                  queries, map.width(), map.height(), p.on_chip_blocks, o.block_threads, detail::mib(p.shared).c_str(),
                  o.shared_slots, o.shared_bucket, detail::mib(p.spill.bytes_per_block()).c_str(), p.spill.slots,
                  p.spill.bucket_cap, p.spill_blocks_max, detail::mib(p.budget).c_str());
    return text;
}

// The move into each cell, read back from a finished query's table: start .. goal.
std::vector<Vertex> walk_path(const GridMap& map, const std::vector<std::uint32_t>& keys,
                              const std::vector<unsigned long long>& vals, Vertex start, Vertex goal) {
    static const int dx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
    static const int dy[8] = {0, 0, 1, -1, 1, 1, -1, -1};
    const std::uint32_t mask = std::uint32_t(keys.size() - 1);
    auto value_of = [&](Vertex v) -> std::optional<unsigned long long> {
        const Cell c = map.cell(v);
        const std::uint32_t key = pack(c.x, c.y);
        std::uint32_t i = hash_cell(key) & mask;
        for (std::size_t p = 0; p < keys.size(); ++p, i = (i + 1) & mask) {
            if (keys[i] == key) return vals[i];
            if (keys[i] == kEmpty) return std::nullopt;
        }
        return std::nullopt;
    };
    std::vector<Vertex> path{goal};
    Vertex v = goal;
    while (v != start && path.size() <= map.cell_count()) {
        auto value = value_of(v);
        if (!value || (*value >> 4) == 0) throw detail::CudaError("block A*: broken parent chain in the table");
        const int d = int(*value & 7);
        const Cell c = map.cell(v);
        v = map.index(c.x - dx[d], c.y - dy[d]);
        path.push_back(v);
    }
    if (v != start) throw detail::CudaError("block A*: parent chain longer than the map");
    std::reverse(path.begin(), path.end());
    return path;
}

}  // namespace

std::string describe_grid_astar_plan(const GridMap& map, std::size_t queries, const GridAStarOptions& options) {
    try {
        return plan_text(map, queries, options, make_plan(map, queries, options, kernel_for(CostMode::Integer), true));
    } catch (const detail::CudaError& e) {
        return e.what();
    }
}

GridAStarOutput run_grid_astar_gpu(const GridMap& map, MoveRules rules, CostMode cost,
                                   const std::vector<GridQuery>& queries, const GridAStarOptions& options) {
    GridAStarOutput out;
    const std::size_t n = queries.size();
    out.costs.assign(n, -1.0);
    out.expanded.assign(n, 0);
    out.iterations.assign(n, 0);
    out.spilled.assign(n, 0);
    if (options.block_threads < 32 || options.block_threads > 1024 || options.block_threads % 32) {
        out.error = "block_threads must be a multiple of 32 in 32..1024";
        return out;
    }
    if (options.shared_slots < 64 || (options.shared_slots & (options.shared_slots - 1))) {
        out.error = "shared_slots must be a power of two, at least 64";
        return out;
    }
    if (n == 0) return out;
    if (map.width() > 65535 || map.height() > 65535) {
        out.error = "block A* packs cells in 16 bits per coordinate: maps up to 65535 wide and high";
        return out;
    }
    const Kernel kernel = kernel_for(cost);
    try {
        nvtx::PhaseSequence phase;
        const auto t0 = Clock::now();
        phase.begin(nvtx::Phase::Allocate, "allocate");
        const Plan plan = make_plan(map, n, options, kernel, false);
        out.plan = plan_text(map, n, options, plan);
        out.shared_bytes_per_block = plan.shared;
        out.spill_bytes_per_block = plan.spill.bytes_per_block();
        detail::Stream stream;
        detail::Event compute_start, compute_end;
        int stride = 0;
        const std::vector<std::uint32_t> bits = map_bits(map, &stride);
        detail::DeviceBuffer<std::uint32_t> d_bits(bits.size(), "the map bitmap");
        detail::DeviceBuffer<GridQuery> d_queries(n, "the queries");
        detail::DeviceBuffer<std::uint32_t> d_order(n, "the query order");
        detail::DeviceBuffer<unsigned int> d_next(1, "the query counter");
        detail::DeviceBuffer<QueryOut> d_out(n, "the query results");
        detail::DeviceBuffer<std::uint32_t> d_dump_keys;
        detail::DeviceBuffer<unsigned long long> d_dump_vals;
        if (options.want_path && n == 1 && !options.spill_only) {
            d_dump_keys.allocate(std::size_t(options.shared_slots), "the path table");
            d_dump_vals.allocate(std::size_t(options.shared_slots), "the path table");
        }
        const auto t1 = Clock::now();

        phase.begin(nvtx::Phase::Upload, "upload");
        // Longest first (by octile distance), so the long searches do not start last.
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        {
            std::vector<std::uint64_t> key(n);
            for (std::size_t i = 0; i < n; ++i) {
                const Cell a = map.cell(queries[i].start), b = map.cell(queries[i].goal);
                key[i] = std::uint64_t(std::abs(a.x - b.x)) + std::uint64_t(std::abs(a.y - b.y));
            }
            std::stable_sort(order.begin(), order.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return key[a] > key[b]; });
        }
        detail::check(cudaMemcpyAsync(d_bits.get(), bits.data(), bits.size() * 4, cudaMemcpyHostToDevice, stream),
                      "uploading the map");
        detail::check(
            cudaMemcpyAsync(d_queries.get(), queries.data(), n * sizeof(GridQuery), cudaMemcpyHostToDevice, stream),
            "uploading the queries");
        stream.sync("uploading");
        const auto t2 = Clock::now();

        phase.begin(nvtx::Phase::Compute, "compute");
        Launch L{};
        L.map = {d_bits.get(),
                 map.width(),
                 map.height(),
                 stride,
                 rules.connectivity == Connectivity::Eight,
                 rules.corner_cutting ? 1 : 0};
        L.queries = d_queries.get();
        L.order = d_order.get();
        L.next = d_next.get();
        L.out = d_out.get();
        std::vector<QueryOut> results(n);
        std::vector<std::uint32_t> dump_keys;
        std::vector<unsigned long long> dump_vals;
        auto launch = [&](const std::vector<std::uint32_t>& which, int blocks, std::size_t dyn) {
            detail::check(
                cudaMemcpyAsync(d_order.get(), which.data(), which.size() * 4, cudaMemcpyHostToDevice, stream),
                "uploading the query order");
            detail::check(cudaMemsetAsync(d_next.get(), 0, sizeof(unsigned), stream), "clearing the query counter");
            L.count = std::uint32_t(which.size());
            kernel<<<blocks, options.block_threads, dyn, stream>>>(L);
            detail::check(cudaGetLastError(), "launching block A*");
            ++out.launches;
            detail::check(
                cudaMemcpyAsync(results.data(), d_out.get(), n * sizeof(QueryOut), cudaMemcpyDeviceToHost, stream),
                "reading query results");
            stream.sync("block A*");
        };
        auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
        // The path's table is read back from here; sized for the on-chip table now (outside the
        // timed compute), regrown only if the query moves to a global table.
        std::uint32_t dump_slots = 0;  // the table size of the launch that finished the query
        auto prepare_dump = [&](std::uint32_t slots) {
            if (!options.want_path || n != 1) return;
            if (d_dump_keys.size() < slots) {
                d_dump_keys.allocate(slots, "the path table");
                d_dump_vals.allocate(slots, "the path table");
            }
            L.tables.dump_keys = d_dump_keys.get();
            L.tables.dump_vals = d_dump_vals.get();
            dump_slots = slots;
        };
        compute_start.record(stream);
        std::vector<std::uint32_t> pending = order;
        if (!options.spill_only) {
            L.tables = Tables{false, std::uint32_t(options.shared_slots), std::uint32_t(options.shared_bucket)};
            prepare_dump(std::uint32_t(options.shared_slots));
            launch(pending, plan.on_chip_blocks, plan.shared);
            out.on_chip_blocks = std::uint64_t(plan.on_chip_blocks);
            std::vector<std::uint32_t> left;
            for (std::uint32_t q : pending)
                if (results[q].status != kDone) left.push_back(q);
            pending.swap(left);
        }
        SpillShape shape = plan.spill;
        for (int round = 0; !pending.empty(); ++round) {
            if (cancelled()) {
                out.cancelled = true;
                return out;
            }
            if (round == 6)
                throw detail::CudaError("block A*: a query still overflows buckets of " +
                                        std::to_string(shape.bucket_cap) + " entries");
            const int blocks =
                int(std::min<std::size_t>(pending.size(), std::size_t(std::max(1, plan.spill_blocks_max))));
            if (shape.bytes_per_block() > plan.budget && round == 0)
                throw detail::CudaError("block A*: one global table needs " + detail::mib(shape.bytes_per_block()) +
                                        ", more than the " + detail::mib(plan.budget) + " allowed");
            detail::DeviceBuffer<std::uint32_t> g_keys(std::size_t(blocks) * shape.slots, "global hash keys");
            detail::DeviceBuffer<unsigned long long> g_vals(std::size_t(blocks) * shape.slots, "global hash values");
            detail::DeviceBuffer<std::uint32_t> g_used(std::size_t(blocks) * shape.slots, "global used-slot lists");
            detail::DeviceBuffer<std::uint32_t> g_buckets(std::size_t(blocks) * kRing * shape.bucket_cap,
                                                          "global buckets");
            detail::check(cudaMemsetAsync(g_keys.get(), 0xFF, g_keys.size() * 4, stream), "clearing hash keys");
            detail::check(cudaMemsetAsync(g_vals.get(), 0xFF, g_vals.size() * 8, stream), "clearing hash values");
            L.tables = Tables{true,         shape.slots, shape.bucket_cap, g_keys.get(), g_vals.get(), g_buckets.get(),
                              g_used.get(), nullptr,     nullptr};
            prepare_dump(shape.slots);
            for (std::uint32_t q : pending) out.spilled[q] = 1;
            launch(pending, blocks, 0);
            out.spill_blocks = std::max<std::uint64_t>(out.spill_blocks, std::uint64_t(blocks));
            std::vector<std::uint32_t> left;
            for (std::uint32_t q : pending)
                if (results[q].status != kDone) left.push_back(q);
            pending.swap(left);
            shape.bucket_cap = std::uint32_t(std::min<std::uint64_t>(std::uint64_t(shape.bucket_cap) * 4, 1u << 30));
        }
        compute_end.record(stream);
        stream.sync("block A*");
        const auto t3 = Clock::now();

        phase.begin(nvtx::Phase::Download, "download");
        for (std::size_t i = 0; i < n; ++i) {
            const QueryOut& r = results[i];
            if (r.g != kInf)
                out.costs[i] = cost == CostMode::Integer ? double(r.g) : double(r.g) / double(RealMetric::orth);
            out.expanded[i] = r.expanded;
            out.iterations[i] = r.iterations;
        }
        if (options.want_path && n == 1 && results[0].g != kInf) {
            dump_keys.resize(dump_slots);
            dump_vals.resize(dump_slots);
            detail::check(cudaMemcpy(dump_keys.data(), d_dump_keys.get(), dump_keys.size() * 4, cudaMemcpyDeviceToHost),
                          "reading the path table");
            detail::check(cudaMemcpy(dump_vals.data(), d_dump_vals.get(), dump_vals.size() * 8, cudaMemcpyDeviceToHost),
                          "reading the path table");
            out.path = queries[0].start == queries[0].goal
                           ? std::vector<Vertex>{queries[0].start}
                           : walk_path(map, dump_keys, dump_vals, queries[0].start, queries[0].goal);
        }
        const auto t4 = Clock::now();
        phase.end();
        out.allocate_ms = ms_between(t0, t1);
        out.upload_ms = ms_between(t1, t2);
        out.compute_ms = ms_between(t2, t3);
        out.download_ms = ms_between(t3, t4);
        out.total_ms = ms_between(t0, t4);
        out.gpu_compute_ms = compute_end.ms_since(compute_start);
    } catch (const detail::CudaError& e) {
        out.error = e.what();
    }
    return out;
}

}  // namespace ps::gpu
