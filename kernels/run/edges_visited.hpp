// Graph-level metrics of BFS runs, as gunrock reports them: edges visited and MTEPS (issue 20).
//
// Edges visited: the edges a BFS examines, i.e. the sum, over every vertex the search expanded,
// of its out-degree in the grid graph under the run's movement rule (4- or 8-connected; on 8-
// connected grids a diagonal counts where the corner rule allows the step). Per level: that sum
// over the vertices of the level. This is gunrock's "edges visited" of a top-down BFS, a property
// of the search rather than of one variant's memory traffic: every variant that labels the same
// levels reports the same count (bfs.gpu.basic reads every vertex per level, bfs.gpu.tiled
// settles tiles more than once, and neither counts more for it), so MTEPS compares variants on
// one numerator.
//
// Which vertices were expanded: every labelled one in a BFS over the whole map (the deepest
// level too: its neighbours are examined and found labelled). A BFS that stops at the start
// (Problem::bfs_stop_at_start, start reached) completes the start's level without expanding it:
// the levels below the start's count. The bidirectional BFS, whose bfs_levels hold its target
// half alone (bfs_levels_prefix), counts in its own loop: the degrees of the frontier vertices
// either half expanded, without a per-level split.
//
// MTEPS = edges visited / compute time / 1e6, on the median compute phase of the measured
// repetitions (PhaseTimes::compute_ms, as `run` prints it). Per level: the level's edges over its
// time, where a traced run's timeline times its levels (the GPU level-synchronous variants; the
// tiled variant's rounds are not levels, and CPU runs have no level times).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "instrumentation/timeline/timeline.hpp"
#include "instrumentation/timeline/trace_stats.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/run/variant.hpp"

namespace ps {

// The counters the runner adds to every finished BFS run (RunResult::counters).
inline constexpr const char* kEdgesVisitedCounter = "edges_visited";
inline constexpr const char* kMtepsCounter = "mteps";

struct EdgeCount {
    std::uint64_t total = 0;
    std::vector<std::uint64_t> per_level;  // index: the level expanded; as long as the deepest one counted
};

// The out-degrees of the cells whose level lies in [0, expanded_below) under `rules`, in total
// and per level: two passes over the map and its levels (O(cells), no CSR needed), in bands of
// rows on `threads` threads (0: one per million cells, at most one per core). Levels of another
// size than the map count nothing.
EdgeCount count_edges_visited(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& levels,
                              std::int32_t expanded_below = std::numeric_limits<std::int32_t>::max(),
                              unsigned threads = 0);

// The levels a whole-levels BFS of `problem` expanded, as count_edges_visited's bound: every one,
// or those below the start's when the search stopped there.
std::int32_t expanded_levels_bound(const Problem& problem, const std::vector<std::int32_t>& levels);

// A finished BFS result's count (the rule above), or nullopt where bfs_levels cannot say it
// (another family, a failed run, a prefix of a bidirectional search).
std::optional<EdgeCount> bfs_edges_visited(const Problem& problem, const RunResult& result);

// Millions of edges per second; 0 when the time is not positive (a timer that did not tick).
double mteps(double edges, double ms);

struct LevelRate {
    std::int32_t level = 0;
    std::uint64_t edges = 0;
    double ms = 0;
    double mteps = 0;
};
// The rate of every counted level the timeline times (trace::level_costs), by level; empty when
// the timeline's levels are not BFS levels (bfs.gpu.tiled's rounds) or it has none.
std::vector<LevelRate> level_rates(const std::vector<std::uint64_t>& level_edges, const trace::Timeline& timeline);

// trace::level_diff of two runs, each side with its level's edges and rate (level_rates of that
// run) where its level edges were counted: an empty `edges_a` or `edges_b` leaves times only.
std::vector<trace::LevelDiffRow> level_diff_with_rates(const trace::Timeline& a,
                                                       const std::vector<std::uint64_t>& edges_a,
                                                       const trace::Timeline& b,
                                                       const std::vector<std::uint64_t>& edges_b);

}  // namespace ps
