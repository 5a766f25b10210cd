// Bidirectional BFS (bfs.cpu.bidir): hand-worked maps (a corridor, a wall with one gap, an
// unreachable target, start == target, diagonal steps under the three corner rules), then
// generated maps of every kind at odd sizes against full BFS runs from the target (the
// reference, bfs_queue) and from the start: the distance, the path, both halves' labels as
// level prefixes. Also the runner's validation of level prefixes, which must catch a wrong or a
// missing level.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/bfs/bfs_bidir.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"
#include "kernels/run/validation.hpp"
#include "kernels/search/cpu_search.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

constexpr MoveRules kFour{Connectivity::Four, CornerRule::None};
constexpr MoveRules kEight{Connectivity::Eight, CornerRule::None};
constexpr MoveRules kEightCut{Connectivity::Eight, CornerRule::One};
constexpr MoveRules kEightAny{Connectivity::Eight, CornerRule::Any};
constexpr std::int32_t U = kUnreached;

using test::Lcg;
using test::map_from_rows;
using test::random_passable;

CsrGraph graph_of(const GridMap& map, MoveRules rules) {
    auto graph = grid_to_csr(map, rules, std::nullopt);
    EXPECT_TRUE(graph.ok());
    return std::move(graph).value();
}

std::string cell_text(const GridMap& map, Vertex v) {
    const Cell c = map.cell(v);
    return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")";
}

// The path runs start .. target in legal steps, one per unit of distance.
void expect_valid_path(const GridMap& map, MoveRules rules, const BidirBfsOutput& out, Vertex start, Vertex target) {
    ASSERT_TRUE(out.found);
    ASSERT_EQ(out.path.size(), std::size_t(out.distance) + 1);
    EXPECT_EQ(out.path.front(), start);
    EXPECT_EQ(out.path.back(), target);
    for (std::size_t i = 1; i < out.path.size(); ++i) {
        bool diagonal = false;
        EXPECT_TRUE(is_grid_step(map, rules, out.path[i - 1], out.path[i], &diagonal))
            << "step " << i << " " << cell_text(map, out.path[i - 1]) << " -> " << cell_text(map, out.path[i]);
    }
}

// `half` is a level prefix of the full BFS `full`: equal where labelled, and every vertex of
// `full` at a level up to the prefix's deepest one labelled.
void expect_prefix(const GridMap& map, const std::vector<std::int32_t>& half, std::int32_t depth,
                   const std::vector<std::int32_t>& full, const char* which) {
    ASSERT_EQ(half.size(), full.size());
    EXPECT_EQ(*std::max_element(half.begin(), half.end()), depth - 1) << which;
    for (std::size_t v = 0; v < full.size(); ++v) {
        const std::int32_t expected = full[v] <= depth - 1 ? full[v] : U;
        ASSERT_EQ(half[v], expected) << which << " half at " << cell_text(map, Vertex(v));
    }
}

// The vertices a labelling reaches.
std::uint64_t labelled(const std::vector<std::int32_t>& levels) {
    return std::uint64_t(std::count_if(levels.begin(), levels.end(), [](std::int32_t l) { return l != U; }));
}

// Compares one search with full BFS runs from both ends.
void expect_matches_full_bfs(const GridMap& map, MoveRules rules, Vertex start, Vertex target) {
    SCOPED_TRACE(map.name + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) + " " +
                 std::string(to_string(rules.connectivity)) + " corners " + std::string(to_string(rules.corners)) +
                 " " + cell_text(map, start) + " -> " + cell_text(map, target));
    const CsrGraph graph = graph_of(map, rules);
    const BidirBfsOutput out = bfs_bidir(graph, start, target);
    const BfsOutput from_target = bfs_queue(graph, target, kNoVertex);
    const BfsOutput from_start = bfs_queue(graph, start, kNoVertex);
    ASSERT_FALSE(out.cancelled);
    ASSERT_EQ(out.found, from_target.levels[start] != U);
    if (out.found) {
        EXPECT_EQ(out.distance, from_target.levels[start]);
        expect_valid_path(map, rules, out, start, target);
    } else {
        EXPECT_TRUE(out.path.empty());
    }
    expect_prefix(map, out.target_levels, out.target_depth, from_target.levels, "target");
    expect_prefix(map, out.start_levels, out.start_depth, from_start.levels, "start");
    EXPECT_EQ(out.target_visited, labelled(out.target_levels));
    EXPECT_EQ(out.start_visited, labelled(out.start_levels));
    std::uint64_t both = 0;
    for (std::size_t v = 0; v < graph.vertex_count(); ++v)
        both += out.target_levels[v] != U && out.start_levels[v] != U ? 1 : 0;
    EXPECT_EQ(out.meeting, both);
    // Found: the halves stop at the first level that meets. Not found: one half ran dry.
    if (out.found) {
        EXPECT_GE(out.meeting, 1u);
    } else {
        EXPECT_EQ(out.meeting, 0u);
        EXPECT_TRUE(out.target_visited == from_target.visited || out.start_visited == from_start.visited);
    }
}

std::shared_ptr<const GridMap> shared(GridMap map) { return std::make_shared<const GridMap>(std::move(map)); }

RunRequest request_on(std::shared_ptr<const GridMap> map, MoveRules rules, Cell start, Cell target) {
    RunRequest r;
    r.variant_id = "bfs.cpu.bidir";
    r.problem.map = map;
    r.problem.rules = rules;
    r.problem.start = map->index(start);
    r.problem.goal = map->index(target);
    return r;
}

TEST(BfsBidir, CorridorMeetsInTheMiddle) {
    const GridMap map = map_from_rows({"........."});
    const CsrGraph graph = graph_of(map, kFour);
    const BidirBfsOutput out = bfs_bidir(graph, map.index(0, 0), map.index(8, 0));
    // Equal frontiers take turns: the target half labels x = 8..4, the start half x = 0..4.
    EXPECT_EQ(out.target_levels, (std::vector<std::int32_t>{U, U, U, U, 4, 3, 2, 1, 0}));
    EXPECT_EQ(out.start_levels, (std::vector<std::int32_t>{0, 1, 2, 3, 4, U, U, U, U}));
    EXPECT_EQ(out.distance, 8);
    EXPECT_EQ(out.path, (std::vector<Vertex>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(out.target_depth, 5);
    EXPECT_EQ(out.start_depth, 5);
    EXPECT_EQ(out.meeting, 1u);
    EXPECT_EQ(out.expanded, 8u);
}

TEST(BfsBidir, WallWithOneGap) {
    const GridMap map = map_from_rows({
        ".....",
        ".....",
        "###.#",
        ".....",
        ".....",
    });
    const Vertex start = map.index(0, 0), target = map.index(0, 4), gap = map.index(3, 2);
    const CsrGraph graph = graph_of(map, kFour);
    const BidirBfsOutput out = bfs_bidir(graph, start, target);
    // Three across and two down to the gap, then the same back: 10 steps, all through the gap.
    EXPECT_EQ(out.distance, 10);
    expect_valid_path(map, kFour, out, start, target);
    EXPECT_NE(std::find(out.path.begin(), out.path.end(), gap), out.path.end());
    expect_matches_full_bfs(map, kFour, start, target);
    expect_matches_full_bfs(map, kEight, start, target);
}

TEST(BfsBidir, UnreachableTargetReportsNoPath) {
    const GridMap map = map_from_rows({
        ".....",
        "#####",
        ".....",
        ".....",
    });
    const CsrGraph graph = graph_of(map, kEight);
    const BidirBfsOutput out = bfs_bidir(graph, map.index(0, 0), map.index(4, 3));
    EXPECT_FALSE(out.found);
    EXPECT_TRUE(out.path.empty());
    // The start's row is the smaller side: it runs dry after four levels, labelling its 5 cells.
    EXPECT_EQ(out.start_visited, 5u);
    EXPECT_EQ(out.start_depth, 5);
    expect_matches_full_bfs(map, kEight, map.index(0, 0), map.index(4, 3));

    // Through the runner: no path, as the reference says, and validated.
    const RunReport report = run_variant(request_on(shared(map), kEight, {0, 0}, {4, 3}));
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_FALSE(report.result.found);
    EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
}

TEST(BfsBidir, StartIsTarget) {
    const GridMap map = map_from_rows({"...", "...", "..."});
    const CsrGraph graph = graph_of(map, kEight);
    const BidirBfsOutput out = bfs_bidir(graph, map.index(1, 1), map.index(1, 1));
    EXPECT_TRUE(out.found);
    EXPECT_EQ(out.distance, 0);
    EXPECT_EQ(out.path, std::vector<Vertex>{map.index(1, 1)});
    EXPECT_EQ(out.expanded, 0u);
    EXPECT_EQ(out.meeting, 1u);
    EXPECT_EQ(labelled(out.target_levels), 1u);

    const RunReport report = run_variant(request_on(shared(map), kEight, {1, 1}, {1, 1}));
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.result.cost, 0);
    EXPECT_EQ(report.result.visited, 1u);
    EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
}

TEST(BfsBidir, DiagonalStepsFollowTheCornerRule) {
    const GridMap open(5, 5);
    const CsrGraph eight = graph_of(open, kEight);
    const BidirBfsOutput across = bfs_bidir(eight, open.index(0, 0), open.index(4, 4));
    EXPECT_EQ(across.distance, 4);  // four diagonal steps
    EXPECT_EQ(across.path, (std::vector<Vertex>{open.index(0, 0), open.index(1, 1), open.index(2, 2), open.index(3, 3),
                                                open.index(4, 4)}));
    EXPECT_EQ(bfs_bidir(graph_of(open, kFour), open.index(0, 0), open.index(4, 4)).distance, 8);

    // (0,0) -> (1,1) past the wall at (0,1): cutting the corner is one step, going round two.
    const GridMap corner = map_from_rows({"..", "#."});
    EXPECT_EQ(bfs_bidir(graph_of(corner, kEightCut), corner.index(0, 0), corner.index(1, 1)).distance, 1);
    const BidirBfsOutput round = bfs_bidir(graph_of(corner, kEight), corner.index(0, 0), corner.index(1, 1));
    EXPECT_EQ(round.distance, 2);
    EXPECT_EQ(round.path, (std::vector<Vertex>{corner.index(0, 0), corner.index(1, 0), corner.index(1, 1)}));
    EXPECT_EQ(bfs_bidir(graph_of(corner, kEightAny), corner.index(0, 0), corner.index(1, 1)).distance, 1);
    // Two walls on the diagonal block it when one corner may be cut; under the any rule the
    // diagonal squeezes between them.
    const GridMap squeeze = map_from_rows({".#", "#."});
    EXPECT_FALSE(bfs_bidir(graph_of(squeeze, kEightCut), squeeze.index(0, 0), squeeze.index(1, 1)).found);
    const BidirBfsOutput through = bfs_bidir(graph_of(squeeze, kEightAny), squeeze.index(0, 0), squeeze.index(1, 1));
    EXPECT_EQ(through.distance, 1);
    EXPECT_EQ(through.path, (std::vector<Vertex>{squeeze.index(0, 0), squeeze.index(1, 1)}));
}

TEST(BfsBidir, GeneratedMapsMatchFullBfs) {
    struct Size {
        int w, h;
    };
    const Size sizes[] = {{37, 23}, {61, 41}, {17, 95}};
    const MoveRules rules[] = {kFour, kEight, kEightCut, kEightAny};
    std::uint64_t seed = 1;
    for (GeneratorKind kind : all_generator_kinds())
        for (const Size size : sizes) {
            GeneratorParams params;
            params.kind = kind;
            params.width = size.w;
            params.height = size.h;
            params.seed = seed++;
            params.density = 0.3;
            auto map = generate_map(params);
            ASSERT_TRUE(map.ok()) << map.error().message;
            map->name = std::string(to_string(kind));
            Lcg rng(seed);
            for (const MoveRules r : rules)
                for (int pair = 0; pair < 4; ++pair)
                    expect_matches_full_bfs(*map, r, random_passable(*map, rng), random_passable(*map, rng));
        }
}

TEST(BfsBidir, RunnerValidatesAgainstTheQueueBfsAndVisitsLess) {
    GeneratorParams params;
    params.kind = GeneratorKind::Random;
    params.width = 65;
    params.height = 49;
    params.density = 0.15;
    params.seed = 5;
    const auto map = shared(generate_map(params).value());
    Lcg rng(11);
    for (const MoveRules rules : {kFour, kEight}) {
        for (int pair = 0; pair < 6; ++pair) {
            const Cell start = map->cell(random_passable(*map, rng)), target = map->cell(random_passable(*map, rng));
            RunRequest request = request_on(map, rules, start, target);
            request.repeat = 2;
            const RunReport report = run_variant(request);
            ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
            EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
            EXPECT_TRUE(report.result.bfs_levels_prefix);
            EXPECT_NE(report.result.validation_message.find("visited"), std::string::npos);
        }
    }
    // On an open map the full BFS labels every cell; the two halves, two diamonds of radius 30
    // (1861 cells each, less what the border cuts off), far fewer.
    const auto open = shared(GridMap(101, 101));
    const RunReport report = run_variant(request_on(open, kFour, {20, 50}, {80, 50}));
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
    EXPECT_EQ(report.result.cost, 60);
    EXPECT_LT(report.result.visited * 2, open->cell_count()) << report.result.visited;
}

TEST(BfsBidir, WithoutAStartTheTargetHalfRunsAloneAndCancelStops) {
    const GridMap map = map_from_rows({"....", ".##.", "....", "#..."});
    const BidirBfsOutput alone = bfs_bidir(graph_of(map, kFour), kNoVertex, map.index(3, 0));
    EXPECT_FALSE(alone.found);
    EXPECT_EQ(alone.target_levels, bfs_queue(graph_of(map, kFour), map.index(3, 0), kNoVertex).levels);
    EXPECT_EQ(alone.target_visited, 13u);
    EXPECT_EQ(alone.start_visited, 0u);

    // The bench's whole-graph protocol: no start, every level compared with the reference.
    RunRequest request = request_on(shared(map), kFour, {0, 0}, {3, 0});
    request.problem.start = kNoVertex;
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
    EXPECT_EQ(report.result.visited, 13u);
    EXPECT_EQ(report.result.levels, 6);  // (1,3) and (0,2) are 5 steps from (3,0)

    const std::atomic<bool> cancel{true};
    EXPECT_TRUE(bfs_bidir(graph_of(map, kFour), map.index(0, 0), map.index(3, 3), &cancel).cancelled);
}

// The runner's check of a level prefix: it must fail a wrong level, a vertex missing below the
// deepest level, and (without the prefix flag) any partial level array.
TEST(BfsBidir, PrefixValidationCatchesWrongAndMissingLevels) {
    const auto map = shared(GridMap(7, 5));
    const RunRequest request = request_on(map, kFour, {0, 2}, {6, 2});
    const RunReport good = run_variant(request);
    ASSERT_EQ(good.result.validation, Validation::Passed) << good.result.validation_message;
    RunResult reference = run_reference(good.info, request.problem, {});
    ASSERT_EQ(reference.status, RunStatus::Ok);

    auto validated = [&](RunResult r) {
        validate_against_reference(request.problem, Family::Bfs, r, reference);
        return r;
    };
    EXPECT_EQ(validated(good.result).validation, Validation::Passed);

    RunResult wrong = good.result;
    wrong.bfs_levels[map->index(6, 2)] = 1;
    EXPECT_EQ(validated(wrong).validation, Validation::Failed);

    RunResult missing = good.result;
    const Vertex below = map->index(5, 2);  // level 1, below the deepest level
    ASSERT_EQ(missing.bfs_levels[below], 1);
    missing.bfs_levels[below] = U;
    const RunResult missed = validated(missing);
    EXPECT_EQ(missed.validation, Validation::Failed);
    EXPECT_NE(missed.validation_message.find("(5,2)"), std::string::npos) << missed.validation_message;

    RunResult unflagged = good.result;
    unflagged.bfs_levels_prefix = false;
    EXPECT_EQ(validated(unflagged).validation, Validation::Failed);

    RunResult long_path = good.result;
    long_path.cost += 1;
    EXPECT_EQ(validated(long_path).validation, Validation::Failed);
}

}  // namespace
}  // namespace ps
