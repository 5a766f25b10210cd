// Block A* on grid maps: one thread block per query, the query's state sized by what it touches.
// Used for one small query (astar.gpu.block: one block, block barriers only, no grid barrier)
// and for every query of a scenario file at once (batch.gpu.grid: persistent blocks pull the
// next query from an atomic counter). Plain C++ header in front of CUDA
// (kernels/search/grid_astar_gpu.cu, device code in grid_astar_kernels.cuh).
//
// Per query a block holds, on chip: an open-addressing hash table of (cell -> g, open bit) and
// a ring of f buckets (bucket width = one orthogonal step). Each iteration it takes up to
// threads/8 entries of the lowest non-empty bucket and the `spread` - 1 above it, lowest first,
// and expands them with 8 threads each (one per move). A query that outgrows the on-chip table
// moves into a global-memory table, or runs again in a later launch with its table in global
// memory sized by the map (the memory plan says how many such blocks fit), so every query
// finishes exactly.
//
// Why it is exact: costs are integers (the integer metric's 1000/1414, the real metric's 33461
// and 47321 at either value width, a convergent of sqrt(2): 2.3e-10 relative per step). The octile
// heuristic in the same integers is consistent, so a successor's f is at most two diagonal steps
// above its parent's: with buckets one orthogonal step wide and pops from at most `spread` <= 4
// buckets, live entries span at most spread + 3 buckets and a ring of eight never wraps. A
// vertex is expanded only while its g is the best known (the open bit, cleared by an atomic
// AND), re-opened when its g improves (atomicMin on g above the open bit), and the search stops
// when the best goal g is at most the lower bound of the lowest non-empty bucket: no open entry
// can improve it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/gpu/gpu_test_delay.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::gpu {

struct GridQuery {
    Vertex start = kNoVertex;
    Vertex goal = kNoVertex;
};

// The map as the kernels read it: one bit per cell (set: passable), rows padded to 32-bit
// words, and the passable cells counted on the way. A run makes its own unless it is given one
// (a scenario file's queries share one: Problem::derived).
struct GridBits {
    std::vector<std::uint32_t> words;
    int stride = 0;  // words per row
    std::size_t passable = 0;
};
GridBits grid_bits(const GridMap& map);

struct GridAStarOptions {
    int block_threads = 512;  // 8 per entry: 64 entries per iteration
    // On-chip table: hash slots (a power of two; a query may fill 3/4 of them) and entries per
    // bucket (rounded up to a power of two). 8192 slots and 512 entries take 80 KiB with 32-bit
    // values, 112 KiB with 64-bit ones: two blocks per H100 SM either way.
    int shared_slots = 8192;
    int shared_bucket = 512;
    // Persistent blocks of the on-chip launch; 0: as many as are resident at once.
    int blocks = 0;
    // Global-memory tables for the queries that outgrow the chip: at most this many bytes
    // (0: half the free GPU memory), and at most one block per SM beyond that.
    std::uint64_t spill_budget_bytes = 0;
    // Global tables that on-chip queries move into, state and all, when they outgrow the chip
    // (-1: one per on-chip block, within half the budget; 0: such queries start over in a later
    // launch with a global table).
    int pool_tables = -1;
    // Expansions per group per iteration: a group goes on with a successor that stays in the
    // current bucket instead of pushing it (1: it pushes every successor).
    int chain = 1;
    // Buckets one iteration pops from, the lowest first (1..4): entries of the higher ones are
    // expanded early, which shortens the chain of iterations where the lowest bucket holds few
    // (H100: 4 is 17-39% faster than 1 on game, random, rooms and maze maps, even on noise).
    int spread = 4;
    bool spill_only = false;  // test hook: every query runs with its table in global memory
    // The map's bitmap in shared memory beside the on-chip table where it fits without costing a
    // block per SM (a map read is then a shared load, not an L1 or L2 one).
    bool map_on_chip = true;
    // Each on-chip query searches from both ends at once (half the block and half the table a
    // side; chain 1 only), so that its chain of iterations is about half as long: 1 on, 0 off,
    // -1 where the map's free cells fit a half table (no query can fill one and start over); the
    // variants' bidir=auto also takes it through the gate forest (grid_astar_params.cpp).
    int bidir = -1;
    // Table values are 32 bits (g << 1 | open: single-instruction shared-memory atomics) where no
    // g can reach 2^31 - 2^20, else 64; the real metric's steps are 33461 and 47321 at both
    // widths (grid_costs.cuh). Test hooks: 64 bits always; a lower limit for the 32-bit values, in
    // orthogonal steps (0: the real one), so that queries reach it and run again.
    bool wide_values = false;
    std::uint32_t narrow_limit_steps = 0;
    // Test hook: the path walk without the tables' move hints (every step scans the neighbours).
    bool path_without_hints = false;
    bool want_path = false;  // single query: the path from start to goal
    // Every query's path (GridAStarOutput::paths), from an arena of 2 * (passable cells +
    // queries) cells that the queries share: enough where their paths do not overlap (the
    // segments of one path); a query whose path finds no room fails the run.
    bool want_paths = false;
    const std::atomic<bool>* cancel = nullptr;  // polled between launches
    const GridBits* bits = nullptr;             // grid_bits(map) made beforehand, or null
    BlockDelay test_delay;                      // test-only: blocks delayed on purpose (kernels/gpu/gpu_test_delay.hpp)
};

struct GridAStarOutput {
    std::string error;                          // empty on success
    ErrorKind error_kind = ErrorKind::Invalid;  // with an error: what failed (Device: CUDA, GPU memory)
    bool cancelled = false;
    // Per query: the cost in the problem's metric (-1 when unreachable), vertices expanded.
    std::vector<double> costs;
    std::vector<std::uint32_t> expanded;
    std::vector<std::uint32_t> iterations;
    std::vector<std::uint8_t> spilled;       // 1: started over in a later launch with its table in global memory
    std::vector<std::uint8_t> moved;         // 1: moved from the chip into a pool table and went on there
    std::vector<std::uint8_t> narrow;        // 1: searched with 32-bit table values (0: 64-bit)
    std::vector<Vertex> path;                // want_path and one query: start .. goal
    std::vector<std::vector<Vertex>> paths;  // want_paths: per query, start .. goal (empty: unreachable)
    std::string plan;                        // the memory plan, one paragraph, printed before the run
    std::uint64_t launches = 0;
    std::uint64_t on_chip_blocks = 0, spill_blocks = 0;
    std::uint64_t shared_bytes_per_block = 0, spill_bytes_per_block = 0;
    int block_threads = 0;      // threads per block of the run
    bool map_on_chip = false;   // the on-chip launch read the map from shared memory
    bool bidir = false;         // the on-chip queries searched from both ends
    PhaseTimes phases;          // host clock (kernels/gpu/gpu_run.cuh)
    double gpu_compute_ms = 0;  // CUDA events around the compute phase
};

// The block plan the run will use for these options on this map (no allocation): filled in
// GridAStarOutput::plan as text. Exposed so a CLI can print it before a long run.
std::string describe_grid_astar_plan(const GridMap& map, CostMode cost, std::size_t queries,
                                     const GridAStarOptions& options);

// Every query on `map` under `rules` in `cost`. Queries must name passable cells (callers check
// with Problem::check); start == goal costs 0.
GridAStarOutput run_grid_astar_gpu(const GridMap& map, MoveRules rules, CostMode cost,
                                   const std::vector<GridQuery>& queries, const GridAStarOptions& options);

}  // namespace ps::gpu
