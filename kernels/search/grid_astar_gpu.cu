// Host driver of block A* (kernels/search/grid_astar_gpu.hpp): plans the on-chip and the
// global-memory launches, runs every query on chip first, then the ones that outgrew it with
// tables in global memory (growing the buckets until every query finishes), and reads back
// costs, counters and, for one query, the path.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "kernels/gpu/cuda_util.cuh"
#include "kernels/gpu/gpu_run.cuh"
#include "kernels/search/grid_astar_gpu.hpp"
#include "kernels/search/grid_astar_kernels.cuh"

namespace ps::gpu {
namespace {

using namespace grid_astar;
using detail::Carving;

static_assert(IntegerMetric::orth == kIntOrthogonal && IntegerMetric::diag == kIntDiagonal);
static_assert(IntegerMetric32::orth == kIntOrthogonal && IntegerMetric32::diag == kIntDiagonal);

// Narrow (32-bit) values hold g << 1 | open with g below this limit. f = g + h stays below 2^32
// where h does below 2^31: on any map of up to 65535 x 65535 in the integer metric (h < 2^27),
// on maps up to 45381 wide and high in the real one (narrow_values).
constexpr std::uint32_t kNarrowGLimit = (1u << 31) - (1u << 20);

// The metric's orthogonal step, the unit of every g and cost at either width.
std::uint32_t orth_step(CostMode mode) { return mode == CostMode::Real ? RealMetric32::orth : IntegerMetric32::orth; }
static_assert(RealMetric32::orth == RealMetric::orth && RealMetric32::diag == RealMetric::diag);

// Whether a run starts with narrow values: on maps where no shortest path can reach the limit
// (at most one diagonal step per passable cell) and no heuristic reaches 2^31 (at most one
// diagonal step per cell of the map's longer side). Where a g still reaches the limit (the
// kernel checks every g it stores), the query runs again with 64-bit values.
bool narrow_values(std::size_t passable, const GridMap& map, CostMode mode, const GridAStarOptions& o) {
    const std::uint64_t diag = mode == CostMode::Real ? RealMetric32::diag : IntegerMetric32::diag;
    return !o.wide_values && std::uint64_t(passable) * diag < kNarrowGLimit &&
           std::uint64_t(std::max(map.width(), map.height())) * diag < (1ull << 31);
}

// The kernel of the metric and value width (its step costs are compile-time constants).
using Kernel = void (*)(Launch);
template <bool Bidir>
Kernel kernel_of(CostMode mode, bool narrow) {
    if (mode == CostMode::Real) return narrow ? block_astar<RealMetric32, Bidir> : block_astar<RealMetric, Bidir>;
    return narrow ? block_astar<IntegerMetric32, Bidir> : block_astar<IntegerMetric, Bidir>;
}
Kernel kernel_for(CostMode mode, bool narrow, bool bidir) {
    return bidir ? kernel_of<true>(mode, narrow) : kernel_of<false>(mode, narrow);
}

std::uint32_t next_pow2(std::uint64_t v) {
    std::uint64_t p = 1;
    while (p < v) p <<= 1;
    return std::uint32_t(std::min<std::uint64_t>(p, 1ull << 31));
}

// Entries per on-chip bucket: the option rounded up to a power of two (bucket positions wrap
// with a mask, not a division).
std::uint32_t chip_bucket(const GridAStarOptions& o) { return next_pow2(std::uint64_t(std::max(1, o.shared_bucket))); }

// An on-chip table: values (4 or 8 bytes), keys (4), the ring of buckets, and for a path a move
// hint per slot (1).
std::size_t shared_bytes(const GridAStarOptions& o, bool narrow, bool moves) {
    return std::size_t(o.shared_slots) * ((narrow ? 8 : 12) + (moves ? 1 : 0)) +
           std::size_t(kRing) * chip_bucket(o) * 4;
}

// One query whose path is wanted: its tables keep move hints for the walk back.
bool wants_moves(std::size_t queries, const GridAStarOptions& o) {
    return o.want_path && queries == 1 && !o.path_without_hints;
}

struct SpillShape {
    std::uint32_t slots = 0, bucket_cap = 0;
    std::size_t bytes_per_block() const {
        return std::size_t(slots) * (4 + 8 + 4) + std::size_t(kRing) * bucket_cap * 4;
    }
};

// A table that cannot fill: twice the passable cells (a query touches each cell once). Buckets
// start at a quarter of the passable cells and grow when a query fills one.
SpillShape spill_shape(std::size_t passable_cells) {
    const std::uint64_t passable = std::max<std::uint64_t>(16, passable_cells);
    SpillShape s;
    s.slots = next_pow2(passable * 2);
    s.bucket_cap = next_pow2(std::max<std::uint64_t>(1024, passable / 4));
    return s;
}

// The device memory behind TableArrays: `count` tables of one shape (keys, then values, then
// the used lists, buckets and move hints). Cleared once (keys and values empty: one memset,
// they are adjacent); each query clears the slots it took before the next.
struct GlobalTables {
    Carving memory;
    std::size_t cleared_bytes = 0;
    TableArrays arrays{};

    TableArrays allocate(std::size_t count, const SpillShape& shape, bool with_moves) {
        const std::size_t slots = count * shape.slots;
        const std::size_t keys = memory.add<std::uint32_t>(slots), vals = memory.add<unsigned long long>(slots);
        cleared_bytes = vals + slots * 8 - keys;
        const std::size_t used = memory.add<std::uint32_t>(slots);
        const std::size_t buckets = memory.add<std::uint32_t>(count * kRing * shape.bucket_cap);
        const std::size_t moves = with_moves ? memory.add<std::uint8_t>(slots) : 0;
        memory.allocate("global hash tables");
        arrays = TableArrays{shape.slots,
                             shape.bucket_cap,
                             memory.at<std::uint32_t>(keys),
                             memory.at<unsigned long long>(vals),
                             memory.at<std::uint32_t>(buckets),
                             memory.at<std::uint32_t>(used),
                             with_moves ? memory.at<std::uint8_t>(moves) : nullptr};
        return arrays;
    }
    void clear(const detail::Stream& stream) {
        detail::check(cudaMemsetAsync(arrays.keys, 0xFF, cleared_bytes, stream), "clearing hash tables");
    }
};

struct Plan {
    int on_chip_blocks = 0;
    std::size_t shared = 0;
    std::size_t map_words_on_chip = 0, map_at = 0;  // the bitmap after the table, in `shared`
    bool bidir = false;                             // the two-sided kernel (GridAStarOptions::bidir)
    bool narrow = false;                            // 32-bit table values (narrow_values)
    SpillShape spill;
    int pool = 0;              // tables on-chip queries move into when they outgrow the chip
    int spill_blocks_max = 0;  // how many global tables the budget (less the pool) and the SMs allow
    std::uint64_t budget = 0;
};

// `narrow`: the run starts with 32-bit values (narrow_values), which sizes its on-chip tables.
Plan make_plan(std::size_t passable, std::size_t map_words, std::size_t queries, const GridAStarOptions& o,
               CostMode mode, bool narrow, bool allocate_nothing) {
    Plan p;
    p.bidir = o.chain <= 1 &&
              (o.bidir > 0 ||
               (o.bidir < 0 && passable <= chip_used_limit(std::uint32_t(o.shared_slots) / 2, o.block_threads / 2, 1)));
    const Kernel kernel = kernel_for(mode, narrow, p.bidir);
    p.narrow = narrow;
    p.shared = shared_bytes(o, narrow, wants_moves(queries, o));
    int device = 0, sms = 1;
    detail::check(cudaGetDevice(&device), "cudaGetDevice");
    detail::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "reading the SM count");
    cudaFuncAttributes attributes{};
    detail::check(cudaFuncGetAttributes(&attributes, kernel), "reading block A*'s kernel attributes");
    if (attributes.maxThreadsPerBlock < o.block_threads)  // registers, not shared memory
        throw detail::CudaError("block A* launches at most " + std::to_string(attributes.maxThreadsPerBlock) +
                                " threads a block (" + std::to_string(attributes.numRegs) +
                                " registers each): lower block");
    // What a block may take beside the kernel's own (static) shared memory, its BlockState.
    const std::size_t dynamic_limit = detail::dynamic_shared_limit(attributes, device);
    int per_sm = 0;
    if (p.shared <= dynamic_limit) {
        detail::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.shared)),
                      "allowing the on-chip table's shared memory");
        detail::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, o.block_threads, p.shared),
                      "computing block A* occupancy");
    }
    if (per_sm < 1)
        throw detail::CudaError("an on-chip table of " + detail::mib(p.shared) +
                                " does not fit one SM's shared memory: lower shared_slots or shared_bucket");
    if (o.map_on_chip && !o.spill_only) {  // the bitmap too, where a block per SM still fits
        int with_map = 0;
        const std::size_t at = (p.shared + 15) / 16 * 16, bytes = at + map_words * 4;
        if (bytes <= dynamic_limit) {  // a map filling the rest of optin failed to launch
            detail::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                          "allowing the on-chip map's shared memory");
            detail::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with_map, kernel, o.block_threads, bytes),
                          "computing block A* occupancy");
        }
        if (with_map >= per_sm) {
            p.map_at = at;
            p.map_words_on_chip = map_words;
            p.shared = bytes;
        } else {
            detail::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.shared)),
                          "allowing the on-chip table's shared memory");
        }
    }
    const int resident = per_sm * sms;
    p.on_chip_blocks = int(std::min<std::size_t>(queries, std::size_t(o.blocks > 0 ? o.blocks : resident)));
    p.on_chip_blocks = std::max(p.on_chip_blocks, 1);
    p.spill = spill_shape(passable);
    std::size_t free_bytes = 0, total = 0;
    if (!allocate_nothing)
        detail::check(cudaMemGetInfo(&free_bytes, &total), "reading free GPU memory");
    else
        cudaMemGetInfo(&free_bytes, &total);
    p.budget = o.spill_budget_bytes ? o.spill_budget_bytes : free_bytes / 2;
    // The pool takes at most half the budget, so that the queries that still start over (no
    // free table, or a table that overflowed) find room for their own.
    const std::uint64_t per_table = p.spill.bytes_per_block();
    // A map with fewer passable cells than a chip table holds cannot fill it (a bucket still
    // may, rarely: such a query starts over), so small maps skip the pool and its clearing.
    const bool can_fill =
        passable > chip_used_limit(std::uint32_t(o.shared_slots), o.block_threads, std::max(1, o.chain));
    if (!o.spill_only && can_fill) {
        const std::uint64_t want =
            o.pool_tables < 0 ? std::uint64_t(p.on_chip_blocks)
                              : std::min<std::uint64_t>(std::uint64_t(o.pool_tables), std::uint64_t(p.on_chip_blocks));
        p.pool = int(std::min<std::uint64_t>(want, p.budget / 2 / per_table));
    }
    p.spill_blocks_max = int(
        std::min<std::uint64_t>(std::uint64_t(sms) * 2, (p.budget - std::uint64_t(p.pool) * per_table) / per_table));
    return p;
}

std::string plan_text(const GridMap& map, std::size_t queries, const GridAStarOptions& o, const Plan& p) {
    char text[640];
    std::snprintf(
        text, sizeof text,
        "block A* plan: %zu queries on %dx%d, %s g values; on chip: %d persistent blocks of %d threads, %s "
        "shared each (%d hash slots, %d entries per bucket); queries that outgrow it move on into %d global tables of "
        "%s each (%u slots, %u entries per bucket); those that find none start over in global tables, up "
        "to %d blocks; budget %s",
        queries, map.width(), map.height(), p.narrow ? "32-bit" : "64-bit", p.on_chip_blocks, o.block_threads,
        detail::mib(p.shared).c_str(), o.shared_slots, int(chip_bucket(o)), p.pool,
        detail::mib(p.spill.bytes_per_block()).c_str(), p.spill.slots, p.spill.bucket_cap, p.spill_blocks_max,
        detail::mib(p.budget).c_str());
    return text;
}

}  // namespace

std::string describe_grid_astar_plan(const GridMap& map, CostMode cost, std::size_t queries,
                                     const GridAStarOptions& options) {
    const std::size_t passable = map.passable_count();
    try {
        return plan_text(map, queries, options,
                         make_plan(passable, std::size_t((map.width() + 31) / 32) * std::size_t(map.height()), queries,
                                   options, cost, narrow_values(passable, map, cost, options), true));
    } catch (const detail::CudaError& e) {
        return e.what();
    }
}

GridBits grid_bits(const GridMap& map) {
    GridBits b;
    b.stride = (map.width() + 31) / 32;
    b.words.assign(std::size_t(b.stride) * std::size_t(map.height()), 0u);
    const std::uint8_t* cells = map.cells().data();
    for (int y = 0; y < map.height(); ++y) {
        const std::uint8_t* row = cells + std::size_t(y) * std::size_t(map.width());
        std::uint32_t* out = b.words.data() + std::size_t(y) * std::size_t(b.stride);
        for (int x = 0; x < map.width(); ++x) out[x >> 5] |= std::uint32_t(row[x] != 0) << (x & 31);
    }
    for (const std::uint32_t w : b.words) b.passable += std::size_t(std::popcount(w));
    return b;
}

namespace {

// The run in the skeleton's phases (kernels/gpu/gpu_run.cuh): the first step is the on-chip
// launch of every query, each further step one launch of the queries that outgrew their
// tables (cancellation is polled between them).
class GridAStarRun {
public:
    using Output = GridAStarOutput;

    GridAStarRun(Output& out, const GridMap& map, MoveRules rules, CostMode cost, const std::vector<GridQuery>& queries,
                 const GridAStarOptions& options)
        : m_out(out),
          m_map(map),
          m_cost(cost),
          m_queries(queries),
          m_options(options),
          m_n(queries.size()),
          m_own_bits(options.bits ? GridBits{} : grid_bits(map)),
          m_bits(options.bits ? *options.bits : m_own_bits),
          m_narrow(narrow_values(m_bits.passable, map, cost, options)),
          m_plan(make_plan(m_bits.passable, m_bits.words.size(), queries.size(), options, cost, m_narrow, false)),
          m_shape(m_plan.spill) {
        m_out.plan = plan_text(map, m_n, options, m_plan);
        m_out.shared_bytes_per_block = m_plan.shared;
        m_out.block_threads = options.block_threads;
        m_out.map_on_chip = m_plan.map_words_on_chip > 0;
        m_out.bidir = m_plan.bidir;
        m_out.spill_bytes_per_block = m_plan.spill.bytes_per_block();
        m_launch.map.width = map.width();
        m_launch.map.height = map.height();
        m_launch.map.eight = rules.connectivity == Connectivity::Eight;
        m_launch.map.corner = int(rules.corners);  // the CornerRule values are the kernel's 0/1/2
        m_launch.delay = options.test_delay;
        m_launch.chain = std::max(1, options.chain);
        m_launch.spread = std::clamp(options.spread, 1, kMaxSpread);
        m_launch.g_limit = options.narrow_limit_steps
                               ? std::uint32_t(std::min<std::uint64_t>(
                                     std::uint64_t(options.narrow_limit_steps) * orth_step(cost), kNarrowGLimit))
                               : kNarrowGLimit;
    }

    void allocate(const detail::Stream&) {
        m_launch.map.stride = m_bits.stride;
        m_launch.map_words_on_chip = std::uint32_t(m_plan.map_words_on_chip);
        m_launch.map_at = std::uint32_t(m_plan.map_at);
        // One path: a cell at most once. Every query's: the arena (GridAStarOptions::want_paths).
        const std::size_t path_cap = wants_path()    ? m_bits.passable + 1
                                     : wants_paths() ? 2 * (m_bits.passable + m_n)
                                                     : 0;
        const std::size_t pool = std::size_t(std::max(0, m_plan.pool));
        // The map, queries, order and counter first and in a row: the upload copies them at once.
        const std::size_t bits = m_small.add<std::uint32_t>(m_bits.words.size()), queries = m_small.add<GridQuery>(m_n),
                          order = m_small.add<std::uint32_t>(m_n), next = m_small.add<unsigned>(1),
                          out = m_small.add<QueryOut>(m_n), path = m_small.add<std::uint32_t>(path_cap),
                          used = m_small.add<unsigned>(wants_paths() ? 1 : 0), taken = m_small.add<std::uint32_t>(pool);
        m_small.allocate("the map, queries, results and path");
        // Pinned host memory laid out as the carving's first arrays (the map up to the counter,
        // one copy from it) followed by the results, which the kernel writes straight into
        // host memory (pinned memory is mapped: one copy and about 8 us fewer per launch, the
        // cost of a small device-to-host copy on the H100 machine, shared/notes/gpu-facts.md).
        // Pageable vectors when another run holds the staging or none can be had.
        m_row_bytes = next + sizeof(unsigned);
        static_assert(std::is_trivially_copyable_v<QueryOut>);
        if (bits != 0) throw detail::RunError(ErrorKind::Internal, "block A*: the map must open the carving");
        // Then room for the paths the download reads, up to kPinnedPathCells of them.
        const std::size_t path_room = std::min(path_cap, detail::kPinnedPathCells);
        m_staging = detail::PinnedStaging::acquire(
            detail::PinnedStaging::bytes_for({m_row_bytes, m_n * sizeof(QueryOut), path_room * 4}));
        m_row = m_staging.take<unsigned char>(m_row_bytes);
        m_pinned_results = m_staging.take<QueryOut>(m_n);
        m_pinned_path = m_staging.take<std::uint32_t>(path_room);
        m_pinned_path_cells = m_pinned_path ? path_room : 0;
        if (!m_row || !m_pinned_results) {
            m_row_fallback.assign(m_row_bytes, 0);
            m_results_fallback.resize(m_n);
            m_row = m_row_fallback.data();
            m_pinned_results = nullptr;
        }
        m_results = m_pinned_results ? m_pinned_results : m_results_fallback.data();
        m_d_bits = m_small.at<std::uint32_t>(bits);
        m_d_queries = m_small.at<GridQuery>(queries);
        m_at_queries = queries;
        m_at_order = order;
        m_d_order = m_small.at<std::uint32_t>(order);
        m_launch.map.bits = m_d_bits;
        m_launch.queries = m_d_queries;
        m_launch.order = m_d_order;
        m_launch.next = m_small.at<unsigned>(next);
        m_launch.out = m_pinned_results ? m_pinned_results : m_small.at<QueryOut>(out);
        if (wants_path() || wants_paths()) {
            m_launch.path = m_small.at<std::uint32_t>(path);
            m_launch.path_cap = std::uint32_t(std::min<std::size_t>(path_cap, 0xFFFFFFFFu));
            m_launch.path_hints = wants_moves(m_n, m_options);
            if (wants_paths()) m_launch.path_used = m_small.at<unsigned>(used);
        }
        if (pool > 0)
            m_launch.pool = Pool{std::uint32_t(pool), m_small.at<std::uint32_t>(taken),
                                 m_pool.allocate(pool, m_shape, wants_moves(m_n, m_options))};
    }

    void upload(const detail::Stream& stream) {
        // Longest first (by Manhattan distance), so the long searches do not start last.
        m_pending.resize(m_n);
        std::iota(m_pending.begin(), m_pending.end(), 0u);
        std::vector<std::uint64_t> key(m_n);
        for (std::size_t i = 0; i < m_n; ++i) {
            const Cell a = m_map.cell(m_queries[i].start), b = m_map.cell(m_queries[i].goal);
            key[i] = std::uint64_t(std::abs(a.x - b.x)) + std::uint64_t(std::abs(a.y - b.y));
        }
        std::stable_sort(m_pending.begin(), m_pending.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return key[a] > key[b]; });
        // The map, the queries, the first launch's order and its zeroed counter lie in a row on
        // the device (the carving's first arrays): one copy (each copy and memset took 5-20 us
        // of a query that may take 100).
        const std::size_t map_bytes = m_bits.words.size() * 4;
        std::memcpy(m_row, m_bits.words.data(), map_bytes);
        std::memset(m_row + map_bytes, 0, m_row_bytes - map_bytes);
        std::memcpy(m_row + m_at_queries, m_queries.data(), m_n * sizeof(GridQuery));
        std::memcpy(m_row + m_at_order, m_pending.data(), m_n * 4);
        static_assert(std::is_trivially_copyable_v<GridQuery>);
        detail::check(cudaMemcpyAsync(m_d_bits, m_row, m_row_bytes, cudaMemcpyHostToDevice, stream),
                      "uploading the map and the queries");
        m_order_uploaded = true;
        if (m_launch.path_used)
            detail::check(cudaMemsetAsync(m_launch.path_used, 0, sizeof(unsigned), stream), "clearing the path arena");
        if (m_plan.pool > 0) {  // each query clears the slots it took before it gives a table back
            detail::check(cudaMemsetAsync(m_launch.pool.taken, 0, std::size_t(m_launch.pool.count) * 4, stream),
                          "clearing the pool");
            m_pool.clear(stream);
        }
        stream.sync("uploading");
    }

    bool step(const detail::Stream& stream, detail::Event& compute_end) {
        if (m_first && !m_options.spill_only) {
            m_first = false;
            m_launch.tables = Tables{false, {std::uint32_t(m_options.shared_slots), chip_bucket(m_options)}};
            launch(m_plan.on_chip_blocks, m_plan.shared, stream, compute_end);
            m_out.on_chip_blocks = std::uint64_t(m_plan.on_chip_blocks);
            return m_pending.empty();
        }
        m_first = false;
        if (m_round == 6)
            throw detail::RunError(ErrorKind::Internal, "block A*: a query still overflows buckets of " +
                                                            std::to_string(m_shape.bucket_cap) + " entries");
        if (m_round == 0 && m_shape.bytes_per_block() > m_plan.budget)
            throw detail::CudaError("block A*: one global table needs " + detail::mib(m_shape.bytes_per_block()) +
                                    ", more than the " + detail::mib(m_plan.budget) + " allowed");
        const int blocks =
            int(std::min<std::size_t>(m_pending.size(), std::size_t(std::max(1, m_plan.spill_blocks_max))));
        GlobalTables tables;
        m_launch.tables = Tables{true, tables.allocate(std::size_t(blocks), m_shape, wants_moves(m_n, m_options))};
        tables.clear(stream);
        m_launch.pool.count = 0;         // a global-tier query has nowhere to move
        m_launch.map_words_on_chip = 0;  // no shared memory: the map from global memory
        for (std::uint32_t q : m_pending) m_out.spilled[q] = 1;
        if (m_too_large) m_narrow = false;  // a g reached the narrow limit: 64-bit values from here on
        launch(blocks, 0, stream, compute_end);
        m_out.spill_blocks = std::max<std::uint64_t>(m_out.spill_blocks, std::uint64_t(blocks));
        ++m_round;
        m_shape.bucket_cap = std::uint32_t(std::min<std::uint64_t>(std::uint64_t(m_shape.bucket_cap) * 4, 1u << 30));
        return m_pending.empty();
    }

    void end_compute(const detail::Stream&) {}  // each launch waited for its results

    void download(const detail::Stream& stream) {
        for (std::size_t i = 0; i < m_n; ++i) {
            const QueryOut& r = m_results[i];
            if (r.g != kInf)  // the integer metric's units are its costs; the real metric's, 33461 a step
                m_out.costs[i] = m_cost == CostMode::Integer ? double(r.g) : double(r.g) / double(orth_step(m_cost));
            m_out.expanded[i] = r.expanded;
            m_out.iterations[i] = r.iterations;
        }
        if (!wants_path() && !wants_paths()) return;
        // The kernel walked each path through its query's table before clearing it (goal first).
        read_paths(stream);
        if (wants_path()) {  // the one query's path, alone
            m_out.path = std::move(m_out.paths[0]);
            m_out.paths.clear();
        }
    }

    void finish(const detail::Stream&) {}

private:
    bool wants_path() const { return m_options.want_path && m_n == 1; }
    bool wants_paths() const { return m_options.want_paths && !wants_path(); }

    // The paths the kernel wrote (one query's from the start of Launch::path, or every query's
    // share of the arena): one copy of the part in use, cut per query, start .. goal.
    void read_paths(const detail::Stream& stream) {
        std::size_t end = 0;
        for (std::size_t i = 0; i < m_n; ++i) {
            const QueryOut& r = m_results[i];
            if (r.g == kInf) continue;
            if (r.path_length == 0)
                throw detail::RunError(ErrorKind::Internal,
                                       "block A*: query " + std::to_string(i) +
                                           "'s path found no room in the path arena or a broken parent chain");
            end = std::max<std::size_t>(end, std::size_t(r.path_offset) + r.path_length);
        }
        std::vector<std::uint32_t> pageable;
        std::uint32_t* packed = m_pinned_path;
        if (end > m_pinned_path_cells) {
            pageable.resize(end);
            packed = pageable.data();
        }
        if (end > 0) {
            detail::check(cudaMemcpyAsync(packed, m_launch.path, end * 4, cudaMemcpyDeviceToHost, stream),
                          "reading the paths");
            stream.sync("reading the paths");
        }
        m_out.paths.assign(m_n, {});
        for (std::size_t i = 0; i < m_n; ++i) {
            const QueryOut& r = m_results[i];
            if (r.g == kInf) continue;
            std::vector<Vertex>& path = m_out.paths[i];
            path.resize(r.path_length);
            for (std::uint32_t k = 0; k < r.path_length; ++k) {  // goal first on the device
                const std::uint32_t c = packed[r.path_offset + k];
                path[r.path_length - 1 - k] = m_map.index(int(c & 0xFFFFu), int(c >> 16));
            }
        }
    }

    // One launch over the pending queries; those that outgrew their tables stay pending. The
    // compute_end event follows each launch's results (the last one's stands).
    void launch(int blocks, std::size_t dyn, const detail::Stream& stream, detail::Event& compute_end) {
        if (!m_order_uploaded) {  // the first launch's came with the queries
            detail::check(
                cudaMemcpyAsync(m_d_order, m_pending.data(), m_pending.size() * 4, cudaMemcpyHostToDevice, stream),
                "uploading the query order");
            detail::check(cudaMemsetAsync(m_launch.next, 0, sizeof(unsigned), stream), "clearing the query counter");
        }
        m_order_uploaded = false;
        m_launch.count = std::uint32_t(m_pending.size());
        kernel_for(m_cost, m_narrow, m_plan.bidir)<<<blocks, m_options.block_threads, dyn, stream>>>(m_launch);
        detail::check(cudaGetLastError(), "launching block A*");
        ++m_out.launches;
        if (!m_pinned_results)
            detail::check(
                cudaMemcpyAsync(m_results, m_launch.out, m_n * sizeof(QueryOut), cudaMemcpyDeviceToHost, stream),
                "reading query results");
        compute_end.record(stream);
        stream.sync("block A*");
        std::vector<std::uint32_t> left;
        for (std::uint32_t q : m_pending) {
            if (m_results[q].moved) m_out.moved[q] = 1;
            if (m_results[q].status == kGTooLarge) m_too_large = true;
            if (m_results[q].status != kDone)
                left.push_back(q);
            else
                m_out.narrow[q] = m_narrow;
        }
        m_pending.swap(left);
    }

    Output& m_out;
    const GridMap& m_map;
    CostMode m_cost;
    const std::vector<GridQuery>& m_queries;
    const GridAStarOptions& m_options;
    std::size_t m_n;
    GridBits m_own_bits;  // made here when the options bring none
    const GridBits& m_bits;
    bool m_narrow;             // 32-bit values (IntegerMetric32, RealMetric32)
    bool m_too_large = false;  // a query's g reached the narrow limit: later launches use 64-bit values
    Plan m_plan;
    SpillShape m_shape;
    Launch m_launch{};
    std::vector<std::uint32_t> m_pending;
    detail::PinnedStaging m_staging;         // held for the whole run (the kernel writes results into it)
    unsigned char* m_row = nullptr;          // the upload row: pinned, or m_row_fallback
    QueryOut* m_pinned_results = nullptr;    // mapped pinned results; null: copied into m_results_fallback
    QueryOut* m_results = nullptr;           // where the host reads them
    std::uint32_t* m_pinned_path = nullptr;  // pinned room for the paths' download, or null
    std::size_t m_pinned_path_cells = 0;
    std::vector<unsigned char> m_row_fallback;
    std::vector<QueryOut> m_results_fallback;
    bool m_first = true;
    int m_round = 0;
    std::size_t m_at_queries = 0, m_at_order = 0;  // byte offsets in m_small
    std::size_t m_row_bytes = 0;                   // the upload row: the map up to the counter
    bool m_order_uploaded = false;                 // the next launch's order and counter are on the device
    Carving m_small;                               // the map bitmap, queries, order, counter, results, path, pool flags
    std::uint32_t* m_d_bits = nullptr;
    GridQuery* m_d_queries = nullptr;
    std::uint32_t* m_d_order = nullptr;
    GlobalTables m_pool;
};

}  // namespace

GridAStarOutput run_grid_astar_gpu(const GridMap& map, MoveRules rules, CostMode cost,
                                   const std::vector<GridQuery>& queries, const GridAStarOptions& options) {
    GridAStarOutput out;
    const std::size_t n = queries.size();
    out.costs.assign(n, -1.0);
    out.expanded.assign(n, 0);
    out.iterations.assign(n, 0);
    out.spilled.assign(n, 0);
    out.moved.assign(n, 0);
    out.narrow.assign(n, 0);
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
    run_phases<GridAStarRun>(out, options.cancel, map, rules, cost, queries, options);
    return out;
}

}  // namespace ps::gpu
