// Edges visited and MTEPS of BFS runs (kernels/run/edges_visited.hpp): hand-counted small maps
// under every movement rule, early exit, the bidirectional BFS, every CPU BFS variant against
// a count over the CSR's degrees on generated maps, per-level rates from a timeline, the cost of
// counting on a 4096² map, and the GPU variants (skipped without a GPU).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "instrumentation/capture/clock.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/edges_visited.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/level_timeline.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::map_from_rows;
using test::shared_map;
using test::timeline_with_levels;

constexpr MoveRules kFour{Connectivity::Four, CornerRule::None};
constexpr MoveRules kEightNone{Connectivity::Eight, CornerRule::None};
constexpr MoveRules kEightOne{Connectivity::Eight, CornerRule::One};
constexpr MoveRules kEightAny{Connectivity::Eight, CornerRule::Any};

// One BFS run through the runner, validated, the goal as the BFS target.
RunReport run_bfs(const std::string& id, std::shared_ptr<const GridMap> map, MoveRules rules, Cell target,
                  std::optional<Cell> start = std::nullopt, bool stop = false) {
    RunRequest request;
    request.variant_id = id;
    request.problem.map = map;
    request.problem.rules = rules;
    request.problem.goal = map->index(target);
    if (start) request.problem.start = map->index(*start);
    request.problem.bfs_stop_at_start = stop;
    request.repeat = 2;
    return run_variant(request);
}

double edges_of(const RunReport& report) {
    const auto it = report.result.counters.find(kEdgesVisitedCounter);
    return it == report.result.counters.end() ? -1.0 : it->second;
}

// Independent truth: the CSR the BFS variants search, its degrees summed over the labelled
// vertices below the bound.
std::uint64_t csr_edges(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& levels,
                        std::int32_t below) {
    const CsrGraph graph = grid_to_csr(map, rules, std::nullopt).value();
    std::uint64_t sum = 0;
    for (Vertex v = 0; v < graph.vertex_count(); ++v)
        if (levels[v] != kUnreached && levels[v] < below) sum += graph.offsets[v + 1] - graph.offsets[v];
    return sum;
}

struct HandCase {
    const char* name;
    std::vector<std::string> rows;
    MoveRules rules;
    Cell target;
    std::vector<std::uint64_t> per_level;
};

TEST(EdgesVisited, HandCountedMaps) {
    const HandCase cases[] = {
        // 3x3 open, 4-connected, from the corner (0,0). Degrees: corners 2, sides 3, centre 4.
        //   level 0: (0,0) 2
        //   level 1: (1,0) 3 + (0,1) 3                   = 6
        //   level 2: (2,0) 2 + (1,1) 4 + (0,2) 2         = 8
        //   level 3: (2,1) 3 + (1,2) 3                   = 6
        //   level 4: (2,2) 2                             -> 24 = twice the 12 grid edges
        {"open 4", {"...", "...", "..."}, kFour, {0, 0}, {2, 6, 8, 6, 2}},
        // 3x3 open, 8-connected: every diagonal's orthogonal cells are free, so every rule agrees.
        // Degrees: corners 2 + 1, sides 3 + 2, centre 8.
        //   level 0: (0,0) 3
        //   level 1: (1,0) 5 + (0,1) 5 + (1,1) 8                   = 18
        //   level 2: (2,0) 3 + (2,1) 5 + (2,2) 3 + (1,2) 5 + (0,2) 3 = 19  -> 40
        {"open 8 none", {"...", "...", "..."}, kEightNone, {0, 0}, {3, 18, 19}},
        {"open 8 one", {"...", "...", "..."}, kEightOne, {0, 0}, {3, 18, 19}},
        {"open 8 any", {"...", "...", "..."}, kEightAny, {0, 0}, {3, 18, 19}},
        // A ring round a blocked centre, 8-connected. Without corner cutting a side cell's
        // diagonals pass the centre wall: corners and sides have degree 2 (the 4-connected ring).
        //   levels (0,0) | (1,0) (0,1) | (2,0) (0,2) | (2,1) (1,2) | (2,2): 2, 4, 4, 4, 2 -> 16
        {"ring 8 none", {"...", ".#.", "..."}, kEightNone, {0, 0}, {2, 4, 4, 4, 2}},
        // Cutting the corner (one orthogonal cell free): a side cell also reaches the two corners
        // beside the next sides, (1,0) -> (2,1) and (0,1): sides have degree 4, corners 2.
        //   level 0: (0,0) 2
        //   level 1: (1,0) 4 + (0,1) 4                             = 8
        //   level 2: (2,0) 2 + (2,1) 4 + (0,2) 2 + (1,2) 4         = 12
        //   level 3: (2,2) 2                                       -> 24
        {"ring 8 one", {"...", ".#.", "..."}, kEightOne, {0, 0}, {2, 8, 12, 2}},
        {"ring 8 any", {"...", ".#.", "..."}, kEightAny, {0, 0}, {2, 8, 12, 2}},
        // Two cells touching at a corner between two walls: only the any rule squeezes through.
        //   none / one: (0,0) has degree 0, (1,1) is never reached -> 0
        //   any: (0,0) 1, (1,1) 1 -> 2
        {"squeeze 8 none", {".#", "#."}, kEightNone, {0, 0}, {0}},
        {"squeeze 8 one", {".#", "#."}, kEightOne, {0, 0}, {0}},
        {"squeeze 8 any", {".#", "#."}, kEightAny, {0, 0}, {1, 1}},
        // A wall makes a path of 7 cells round it, 4-connected; the right column is a pocket the
        // BFS never reaches (its degrees do not count).
        //   (0,0) 1 | (0,1) 2 | (0,2) 2 | (1,2) 2 | (2,2) 2 | (2,1) 2 | (2,0) 1 -> 12
        {"walled 4", {".#.#.", ".#.#.", "...#."}, kFour, {0, 0}, {1, 2, 2, 2, 2, 2, 1}},
    };
    for (const HandCase& c : cases) {
        SCOPED_TRACE(c.name);
        const auto map = shared_map(c.rows);
        const RunReport report = run_bfs("bfs.cpu.queue", map, c.rules, c.target);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        std::uint64_t total = 0;
        for (const std::uint64_t e : c.per_level) total += e;
        EXPECT_EQ(report.level_edges, c.per_level);
        EXPECT_EQ(edges_of(report), double(total));
        // The count alone, from the levels.
        const EdgeCount count = count_edges_visited(*map, c.rules, report.result.bfs_levels);
        EXPECT_EQ(count.per_level, c.per_level);
        EXPECT_EQ(count.total, total);
    }
}

TEST(EdgesVisited, StoppingAtTheStartCountsTheLevelsBelowIt) {
    // The walled path of HandCountedMaps, start (2,2) at level 4: levels 0..3 are expanded, the
    // start's level is labelled and not expanded: 1 + 2 + 2 + 2 = 7.
    const auto map = shared_map({".#.#.", ".#.#.", "...#."});
    for (const char* id : {"bfs.cpu.queue", "bfs.cpu"}) {
        SCOPED_TRACE(id);
        const RunReport stopped = run_bfs(id, map, kFour, {0, 0}, Cell{2, 2}, true);
        ASSERT_EQ(stopped.result.status, RunStatus::Ok) << stopped.result.message;
        EXPECT_EQ(stopped.level_edges, (std::vector<std::uint64_t>{1, 2, 2, 2}));
        EXPECT_EQ(edges_of(stopped), 7.0);
        // The start given but not stopped at: the whole BFS.
        EXPECT_EQ(edges_of(run_bfs(id, map, kFour, {0, 0}, Cell{2, 2}, false)), 12.0);
        // Stopping at the target itself expands nothing.
        EXPECT_EQ(edges_of(run_bfs(id, map, kFour, {0, 0}, Cell{0, 0}, true)), 0.0);
    }
}

TEST(EdgesVisited, BidirectionalCountsWhatBothHalvesExpanded) {
    // 3x3 open, 4-connected, target (0,0), start (2,2). The halves take turns by frontier size:
    //   target expands (0,0)            deg 2  -> frontier (1,0) (0,1)
    //   start  expands (2,2)            deg 2  -> frontier (2,1) (1,2)
    //   target expands (1,0) (0,1)      deg 3 + 3  (sizes 2 = 2, target not deeper)
    //   start  expands (2,1) (1,2)      deg 3 + 3  and meets (2,0) (1,1) (0,2): distance 4
    //   -> 2 + 2 + 6 + 6 = 16, six vertices expanded; no per-level split.
    const auto map = shared_map({"...", "...", "..."});
    const RunReport report = run_bfs("bfs.cpu.bidir", map, kFour, {0, 0}, Cell{2, 2});
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.result.expanded, 6u);
    EXPECT_EQ(edges_of(report), 16.0);
    EXPECT_TRUE(report.level_edges.empty());
    // Without a start its target half is a whole BFS: the count of every other variant.
    const RunReport whole = run_bfs("bfs.cpu.bidir", map, kFour, {0, 0});
    EXPECT_EQ(edges_of(whole), 24.0);
}

TEST(EdgesVisited, EveryCpuVariantAgreesWithTheCsrDegrees) {
    const std::vector<std::pair<GeneratorKind, double>> kinds = {
        {GeneratorKind::Random, 0.3}, {GeneratorKind::Noise, 0.2}, {GeneratorKind::Maze, 0.0}};
    for (const auto& [kind, density] : kinds)
        for (const MoveRules rules : {kFour, kEightNone, kEightOne, kEightAny})
            for (const bool stop : {false, true}) {
                const auto map = test::generated(kind, 61, 47, 7, density);
                const auto target = nearest_in_largest_region(*map, rules, Cell{0, 0});
                const auto start = nearest_in_largest_region(*map, rules, Cell{60, 46});
                ASSERT_TRUE(target && start);
                SCOPED_TRACE(std::string(to_string(kind)) + " " + std::to_string(int(rules.connectivity)) + " " +
                             std::string(to_string(rules.corners)) + (stop ? " stop" : ""));
                const RunReport queue = run_bfs("bfs.cpu.queue", map, rules, *target, *start, stop);
                ASSERT_EQ(queue.result.status, RunStatus::Ok) << queue.result.message;
                const std::int32_t below =
                    stop ? queue.result.bfs_levels[map->index(*start)] : std::numeric_limits<std::int32_t>::max();
                const std::uint64_t truth = csr_edges(*map, rules, queue.result.bfs_levels, below);
                EXPECT_GT(truth, 0u);
                EXPECT_EQ(edges_of(queue), double(truth));
                std::uint64_t sum = 0;
                for (const std::uint64_t e : queue.level_edges) sum += e;
                EXPECT_EQ(sum, truth);
                const RunReport sweep = run_bfs("bfs.cpu", map, rules, *target, *start, stop);
                EXPECT_EQ(sweep.result.validation, Validation::Passed) << sweep.result.validation_message;
                EXPECT_EQ(edges_of(sweep), double(truth));
                EXPECT_EQ(sweep.level_edges, queue.level_edges);
                if (!stop) {  // without a start the bidirectional BFS is its target half alone
                    const RunReport bidir = run_bfs("bfs.cpu.bidir", map, rules, *target);
                    EXPECT_EQ(edges_of(bidir), double(truth));
                }
            }
}

TEST(EdgesVisited, BandsOfRowsCountAlike) {
    // Large maps are counted in bands of rows on several threads, each band with a table of its
    // own levels; a maze's bands hold most levels each and fall back to one band. Every split,
    // including more bands than rows, gives the CSR's count.
    for (const GeneratorKind kind : {GeneratorKind::Noise, GeneratorKind::Maze})
        for (const MoveRules rules : {kFour, kEightOne}) {
            const auto map = test::generated(kind, 53, 41, 11, 0.2);
            const auto target = nearest_in_largest_region(*map, rules, Cell{0, 0});
            ASSERT_TRUE(target);
            const RunReport report = run_bfs("bfs.cpu.queue", map, rules, *target);
            const auto& levels = report.result.bfs_levels;
            const std::uint64_t truth = csr_edges(*map, rules, levels, std::numeric_limits<std::int32_t>::max());
            const EdgeCount one = count_edges_visited(*map, rules, levels, std::numeric_limits<std::int32_t>::max(), 1);
            EXPECT_EQ(one.total, truth);
            for (const unsigned threads : {2u, 3u, 7u, 41u, 100u}) {
                SCOPED_TRACE(std::string(to_string(kind)) + " threads " + std::to_string(threads));
                const EdgeCount split =
                    count_edges_visited(*map, rules, levels, std::numeric_limits<std::int32_t>::max(), threads);
                EXPECT_EQ(split.total, truth);
                EXPECT_EQ(split.per_level, one.per_level);
                // Stopping below level 20 as well.
                EXPECT_EQ(count_edges_visited(*map, rules, levels, 20, threads).per_level,
                          count_edges_visited(*map, rules, levels, 20, 1).per_level);
            }
        }
}

TEST(EdgesVisited, MtepsIsEdgesOverTheMedianCompute) {
    EXPECT_DOUBLE_EQ(mteps(2e6, 1000.0), 2.0);  // 2 million edges in a second
    EXPECT_DOUBLE_EQ(mteps(5e5, 0.5), 1000.0);
    EXPECT_EQ(mteps(100, 0), 0.0);
    const auto map = shared_map({"...", "...", "..."});
    const RunReport report = run_bfs("bfs.cpu.queue", map, kFour, {0, 0});
    const auto& c = report.result.counters;
    if (report.stats.compute.median <= 0) GTEST_SKIP() << "the clock did not tick";
    ASSERT_TRUE(c.count(kMtepsCounter));
    EXPECT_DOUBLE_EQ(c.at(kMtepsCounter), 24.0 / (report.stats.compute.median * 1e3));
}

TEST(EdgesVisited, LevelRatesFromTheTimeline) {
    // Level 0: 2 edges in 1 us = 2 MTEPS; level 1: 6 edges in 2 us = 3 MTEPS; level 2: 8 edges in
    // 4 us = 2 MTEPS. A fourth timed level was not expanded (a BFS that stopped): no rate.
    const std::vector<std::uint64_t> edges = {2, 6, 8};
    const auto rates = level_rates(edges, timeline_with_levels({1000, 2000, 4000, 1000}, "level"));
    ASSERT_EQ(rates.size(), 3u);
    const double expected[] = {2.0, 3.0, 2.0};
    for (std::size_t l = 0; l < 3; ++l) {
        EXPECT_EQ(rates[l].level, std::int32_t(l));
        EXPECT_EQ(rates[l].edges, edges[l]);
        EXPECT_DOUBLE_EQ(rates[l].mteps, expected[l]);
    }
    EXPECT_DOUBLE_EQ(rates[2].ms, 0.004);
    // The tiled variant's rounds are not levels.
    EXPECT_TRUE(level_rates(edges, timeline_with_levels({1000, 2000}, "round")).empty());
    EXPECT_TRUE(level_rates(edges, trace::Timeline{}).empty());
}

TEST(EdgesVisited, LevelDiffCarriesEachRunsLevelRates) {
    // "...", "#.#" from (0,0), 4-connected, counted by hand: level 0 is (0,0), one neighbour
    // (east); level 1 is (1,0), three (west, east, south); level 2 is (2,0) and (1,1), one each.
    const auto map = shared_map({"...", "#.#"});
    const RunReport run = run_bfs("bfs.cpu.queue", map, kFour, {0, 0});
    ASSERT_EQ(run.result.status, RunStatus::Ok) << run.result.message;
    ASSERT_EQ(run.level_edges, (std::vector<std::uint64_t>{1, 3, 2}));
    // A's levels take 1, 1.5 and 0.5 us: 1, 2 and 4 MTEPS. B, whose edges were not counted,
    // has a fourth level: times alone.
    const auto a = timeline_with_levels({1000, 1500, 500}, "level");
    const auto b = timeline_with_levels({2000, 1000, 1000, 1000}, "level");
    const auto rows = level_diff_with_rates(a, run.level_edges, b, {});
    ASSERT_EQ(rows.size(), 4u);
    const std::uint64_t edges[] = {1, 3, 2};
    const double mteps[] = {1.0, 2.0, 4.0};
    for (std::size_t l = 0; l < 3; ++l) {
        SCOPED_TRACE(l);
        ASSERT_TRUE(rows[l].a && rows[l].b);
        EXPECT_EQ(rows[l].a->edges, edges[l]);
        ASSERT_TRUE(rows[l].a->mteps);
        EXPECT_DOUBLE_EQ(*rows[l].a->mteps, mteps[l]);
        EXPECT_FALSE(rows[l].b->edges || rows[l].b->mteps);
    }
    EXPECT_FALSE(rows[3].a);
    ASSERT_TRUE(rows[3].b);
    EXPECT_EQ(rows[3].b->time_ns, 1000);
    // The same edges on B's side: B's own times.
    const auto swapped = level_diff_with_rates(b, {}, a, run.level_edges);
    ASSERT_TRUE(swapped[1].b && swapped[1].b->mteps);
    EXPECT_DOUBLE_EQ(*swapped[1].b->mteps, 2.0);
    EXPECT_FALSE(swapped[1].a->mteps);
}

TEST(EdgesVisited, BandedCountOn4096EqualsTheRunsCounter) {
    // The runner counts after every BFS run, in bands of rows on several threads at this size.
    // The time is printed, not asserted (speed is the benches' business).
    const auto map = test::generated(GeneratorKind::Noise, 4096, 4096, 1, 0.15);
    const auto target = nearest_in_largest_region(*map, kFour, Cell{0, 0});
    ASSERT_TRUE(target);
    RunRequest request;
    request.variant_id = "bfs.cpu.queue";
    request.problem.map = map;
    request.problem.rules = kFour;
    request.problem.goal = map->index(*target);
    request.validate = false;
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    double best_ms = 1e300;
    EdgeCount count;
    for (int i = 0; i < 3; ++i) {
        Stopwatch watch;
        count = count_edges_visited(*map, kFour, report.result.bfs_levels);
        best_ms = std::min(best_ms, watch.elapsed_ms());
    }
    std::printf("counting edges on a 4096^2 noise map: %.2f ms (bfs.cpu.queue compute %.1f ms, %llu edges)\n", best_ms,
                report.stats.compute.median, (unsigned long long)count.total);
    EXPECT_EQ(double(count.total), edges_of(report));
}

// ---- GPU variants (skipped without a GPU) -------------------------------------------------

TEST(EdgesVisitedGpu, EveryGpuVariantCountsTheReferenceEdges) {
    PS_REQUIRE_GPU();
    for (const bool stop : {false, true}) {
        const auto map = test::generated(GeneratorKind::Noise, 300, 200, 3, 0.2);
        const auto target = nearest_in_largest_region(*map, kFour, Cell{0, 0});
        const auto start = nearest_in_largest_region(*map, kFour, Cell{299, 150});
        ASSERT_TRUE(target && start);
        const RunReport reference = run_bfs("bfs.cpu.queue", map, kFour, *target, *start, stop);
        ASSERT_GT(edges_of(reference), 0.0);
        for (const auto& v : Registry::instance().all()) {
            if (v->info().family != Family::Bfs || v->info().device != DeviceKind::Gpu) continue;
            SCOPED_TRACE(v->info().id + (stop ? " stop" : ""));
            const RunReport report = run_bfs(v->info().id, map, kFour, *target, *start, stop);
            ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
            EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
            EXPECT_EQ(edges_of(report), edges_of(reference));
            EXPECT_EQ(report.level_edges, reference.level_edges);
            EXPECT_GT(report.result.counters.count(kMtepsCounter), 0u);
        }
    }
}

TEST(EdgesVisitedGpu, TracedLevelsHaveRates) {
    PS_REQUIRE_GPU();
    const auto map = test::generated(GeneratorKind::Empty, 128, 128, 1);
    for (const char* id : {"bfs.gpu.shared", "bfs.gpu.dp", "bfs.gpu.tiled"}) {
        SCOPED_TRACE(id);
        RunRequest request;
        request.variant_id = id;
        request.problem.map = map;
        request.problem.rules = kFour;
        request.problem.goal = 0;
        request.context.trace = trace::TraceLevel::Light;
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        ASSERT_TRUE(report.timeline);
        ASSERT_EQ(report.level_edges.size(), 255u);  // 2 x 128 - 1 levels from a corner
        if (std::string(id) == "bfs.gpu.tiled") {
            EXPECT_TRUE(report.level_rates.empty());  // rounds, not levels
            continue;
        }
        ASSERT_FALSE(report.level_rates.empty());
        for (const LevelRate& l : report.level_rates) {
            ASSERT_LT(std::size_t(l.level), report.level_edges.size());
            EXPECT_EQ(l.edges, report.level_edges[std::size_t(l.level)]);
            EXPECT_GT(l.ms, 0.0);
            EXPECT_DOUBLE_EQ(l.mteps, double(l.edges) / (l.ms * 1e3));
        }
    }
}

}  // namespace
}  // namespace ps
