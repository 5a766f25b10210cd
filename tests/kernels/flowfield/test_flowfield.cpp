// Flow fields on the CPU (kernels/flowfield/flowfield.hpp, flowfield.cpu): hand-worked small maps, the
// field against independent searches (BFS and Dijkstra on the grid's CSR from cpu_search.hpp),
// the validator catching broken fields, and agents that follow a field.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kernels/search/cpu_search.hpp"
#include "kernels/flowfield/flowfield.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/run/runner.hpp"
#include "kernels/run/validation.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::map_from_rows;

constexpr MoveRules kFour{Connectivity::Four, CornerRule::None};
constexpr MoveRules kEightNoCut{Connectivity::Eight, CornerRule::None};
constexpr MoveRules kEightCut{Connectivity::Eight, CornerRule::One};
constexpr MoveRules kEightAny{Connectivity::Eight, CornerRule::Any};

FlowField field_of(const GridMap& map, MoveRules rules, Cell goal) {
    auto field = compute_flow_field(map, rules, map.index(goal));
    EXPECT_TRUE(field.ok()) << (field.ok() ? "" : field.error().message);
    return std::move(field).value();
}

TEST(FlowFieldCpu, OpenGridFourConnectedIsManhattanWithFirstTableDirection) {
    const GridMap map = map_from_rows({"...", "...", "..."});
    const FlowField f = field_of(map, kFour, {0, 0});
    const std::vector<std::int32_t> expected = {0, 1, 2, 1, 2, 3, 2, 3, 4};
    EXPECT_EQ(f.distance, expected);
    // E, W, S, N order: a cell steps W whenever W is one closer, else N.
    const std::uint8_t W = 1, N = 3, none = kNoDirection;
    const std::vector<std::uint8_t> dirs = {none, W, W, N, W, W, N, W, W};
    EXPECT_EQ(f.dirs, dirs);
}

// The 3x3 map "G#." / "..." / "...": distances worked by hand in the 1000/1414 metric.
TEST(FlowFieldCpu, EightConnectedWithoutCornerCuttingByHand) {
    const GridMap map = map_from_rows({".#.", "...", "..."});
    const FlowField f = field_of(map, kEightNoCut, {0, 0});
    // (1,1) cannot be entered diagonally from the goal past the wall: 2000 via (0,1).
    const std::vector<std::int32_t> expected = {0, -1, 4000, 1000, 2000, 3000, 2000, 2414, 3414};
    EXPECT_EQ(f.distance, expected);
    EXPECT_EQ(f.dirs[map.index(1, 2)], 7);             // NW to (0,1): 1000 + 1414
    EXPECT_EQ(f.dirs[map.index(2, 2)], 1);             // W and NW tie at 3414: W comes first
    EXPECT_EQ(f.dirs[map.index(1, 0)], kNoDirection);  // blocked
}

TEST(FlowFieldCpu, EightConnectedWithCornerCuttingByHand) {
    const GridMap map = map_from_rows({".#.", "...", "..."});
    const FlowField f = field_of(map, kEightCut, {0, 0});
    const std::vector<std::int32_t> expected = {0, -1, 2828, 1000, 1414, 2414, 2000, 2414, 2828};
    EXPECT_EQ(f.distance, expected);
    EXPECT_EQ(f.dirs[map.index(1, 1)], 7);  // NW, past the wall's corner
    EXPECT_EQ(f.dirs[map.index(2, 0)], 5);  // SW to (1,1)
}

// "G#." / "#.." / "...": the goal is walled in unless a diagonal may squeeze between two walls.
TEST(FlowFieldCpu, EightConnectedWithAnyCornerRuleByHand) {
    const GridMap map = map_from_rows({".#.", "#..", "..."});
    const FlowField f = field_of(map, kEightAny, {0, 0});
    const std::vector<std::int32_t> expected = {0, -1, 2828, -1, 1414, 2414, 2828, 2414, 2828};
    EXPECT_EQ(f.distance, expected);
    EXPECT_EQ(f.dirs[map.index(1, 1)], 7);  // NW between the two walls
    EXPECT_EQ(f.dirs[map.index(0, 2)], 6);  // NE past the wall at (0,1)
    EXPECT_EQ(f.dirs[map.index(2, 0)], 5);  // SW
    for (MoveRules rules : {kEightNoCut, kEightCut}) {
        const FlowField shut = field_of(map, rules, {0, 0});
        EXPECT_EQ(std::count(shut.distance.begin(), shut.distance.end(), kFlowUnreached), 8)
            << to_string(rules.corners);
    }
}

TEST(FlowFieldCpu, UnreachableCellsHaveNoDistanceAndNoDirection) {
    const FlowField four = field_of(map_from_rows({".#."}), kFour, {0, 0});
    EXPECT_EQ(four.distance, (std::vector<std::int32_t>{0, -1, -1}));
    EXPECT_EQ(four.dirs, (std::vector<std::uint8_t>{kNoDirection, kNoDirection, kNoDirection}));
    // A diagonal between two walls is closed unless any corner may be cut.
    for (MoveRules rules : {kEightNoCut, kEightCut}) {
        const FlowField f = field_of(map_from_rows({".#", "#."}), rules, {0, 0});
        EXPECT_EQ(f.distance[3], kFlowUnreached) << to_string(rules.corners);
        EXPECT_TRUE(follow_flow(f, 3).empty());
    }
    const FlowField any = field_of(map_from_rows({".#", "#."}), kEightAny, {0, 0});
    EXPECT_EQ(any.distance[3], 1414);
    EXPECT_EQ(follow_flow(any, 3), (std::vector<Vertex>{3, 0}));
}

// A serpentine: corridors on even rows joined at alternating ends; from one end the path to the
// other runs through every corridor cell.
GridMap serpentine(int width, int height) {
    GridMap map(width, height, false);
    for (int y = 0; y < height; y += 2) {
        for (int x = 0; x < width; ++x) map.set_passable(x, y, true);
        if (y + 1 < height) map.set_passable((y / 2) % 2 == 0 ? width - 1 : 0, y + 1, true);
    }
    return map;
}

// 8-connected distances past 2^31 (here ~2.25 million steps of 1000) are refused with a clear
// message; the same map 4-connected (levels in steps) is fine.
TEST(FlowFieldCpu, DistancesBeyond32BitsAreRefused) {
    const GridMap map = serpentine(3000, 1500);
    auto eight = compute_flow_field(map, kEightNoCut, 0);
    ASSERT_FALSE(eight.ok());
    EXPECT_NE(eight.error().message.find("exceed 32 bits"), std::string::npos) << eight.error().message;
    auto four = compute_flow_field(map, kFour, 0);
    ASSERT_TRUE(four.ok());
    // The last corridor is entered at its right end after 749 corridors of 2999 steps + 2 down.
    EXPECT_EQ(four->distance[map.index(2999, 1498)], 749 * 3001);
}

TEST(FlowFieldCpu, BlockedOrOutsideGoalIsAnError) {
    const GridMap map = map_from_rows({".#."});
    auto blocked = compute_flow_field(map, kFour, 1);
    ASSERT_FALSE(blocked.ok());
    EXPECT_NE(blocked.error().message.find("(1,0) is a blocked cell"), std::string::npos);
    EXPECT_FALSE(compute_flow_field(map, kFour, 3).ok());
}

// The CPU field equals independent searches: BFS (cpu_search.hpp) on the unweighted CSR when
// 4-connected, one Dijkstra per cell on the integer-weighted CSR when 8-connected.
// A cancelled computation is an error of kind Cancelled (not told apart by its text), and the
// variant reports the run as cancelled, not failed.
TEST(FlowFieldCpu, CancelIsAKindNotAMessage) {
    const GridMap map = map_from_rows({"........", "........", "........"});
    const std::atomic<bool> cancel{true};
    const auto field = compute_flow_field(map, {Connectivity::Eight, CornerRule::None}, map.index(7, 2), &cancel);
    ASSERT_FALSE(field);
    EXPECT_EQ(field.error().kind, ErrorKind::Cancelled);
    EXPECT_EQ(
        compute_flow_field(map, {Connectivity::Eight, CornerRule::None}, map.index(0, 0) + 100, nullptr).error().kind,
        ErrorKind::Invalid);
    Problem p;
    p.map = std::make_shared<const GridMap>(map);
    p.goal = map.index(7, 2);
    EXPECT_EQ(Registry::instance().find("flowfield.cpu")->run(p, RunContext{false, {}, 1u << 20, &cancel}).status,
              RunStatus::Cancelled);
}

TEST(FlowFieldCpu, MatchesIndependentSearchesOnRandomMaps) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const GridMap map = test::random_map(23, 17, 0.3, seed);
        test::Lcg rng(seed);
        const Vertex goal = test::random_passable(map, rng);
        {
            const FlowField f = field_of(map, kFour, map.cell(goal));
            const CsrGraph graph = grid_to_csr(map, kFour, std::nullopt).value();
            const BfsOutput bfs = bfs_queue(graph, goal, kNoVertex);
            EXPECT_EQ(f.distance, bfs.levels) << "seed " << seed;
        }
        for (MoveRules rules : {kEightNoCut, kEightCut, kEightAny}) {
            const FlowField f = field_of(map, rules, map.cell(goal));
            const CsrGraph graph = grid_to_csr(map, rules, CostMode::Integer).value();
            for (Vertex v = 0; v < Vertex(map.cell_count()); ++v) {
                if (!map.passable(v)) {
                    EXPECT_EQ(f.distance[v], kFlowUnreached);
                    continue;
                }
                const SearchOutput truth = astar_graph(graph, Heuristic::Zero, v, goal);
                const std::int32_t expected = truth.found ? std::int32_t(truth.cost) : kFlowUnreached;
                ASSERT_EQ(f.distance[v], expected) << "seed " << seed << " corners " << to_string(rules.corners)
                                                   << " cell " << map.cell(v).x << "," << map.cell(v).y;
            }
        }
    }
}

// Every direction is a legal step exactly one step cost closer; paths add up to the distance.
TEST(FlowFieldCpu, DirectionsStepOneCostCloserAndPathsAddUp) {
    const GridMap map = test::random_map(31, 19, 0.25, 7);
    for (MoveRules rules : {kFour, kEightNoCut, kEightCut, kEightAny}) {
        test::Lcg rng(11);
        const Vertex goal = test::random_passable(map, rng);
        const FlowField f = field_of(map, rules, map.cell(goal));
        EXPECT_EQ(f.dirs, flow_directions(map, rules, f.distance));
        for (Vertex v = 0; v < Vertex(map.cell_count()); ++v) {
            if (f.distance[v] <= 0) continue;
            const std::vector<Vertex> path = follow_flow(f, v);
            ASSERT_FALSE(path.empty());
            ASSERT_EQ(path.back(), goal);
            std::int64_t sum = 0;
            for (std::size_t i = 1; i < path.size(); ++i) {
                bool diagonal = false;
                ASSERT_TRUE(is_grid_step(map, rules, path[i - 1], path[i], &diagonal));
                sum += flow_step_cost(rules.connectivity, diagonal);
            }
            EXPECT_EQ(sum, f.distance[v]);
        }
    }
}

Problem flow_problem(std::shared_ptr<const GridMap> map, MoveRules rules, Cell goal) {
    Problem p;
    p.map = std::move(map);
    p.rules = rules;
    p.goal = p.map->index(goal);
    return p;
}

TEST(FlowFieldCpu, VariantRunsWithoutStartAndValidatesItself) {
    auto map = std::make_shared<const GridMap>(test::random_map(40, 33, 0.2, 3));
    const Cell goal = nearest_passable(*map, {20, 16}).value();
    for (MoveRules rules : {kFour, kEightNoCut, kEightCut, kEightAny}) {
        RunRequest request;
        request.variant_id = "flowfield.cpu";
        request.problem = flow_problem(map, rules, goal);
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Reference) << report.result.validation_message;
        EXPECT_EQ(report.result.bfs_levels.size(), map->cell_count());
        EXPECT_EQ(report.result.flow_dirs.size(), map->cell_count());
        EXPECT_FALSE(report.result.found);
    }
}

TEST(FlowFieldCpu, StartGivesCostAndPathAlongTheField) {
    auto map = test::shared_map({"....", ".##.", "...."});
    RunRequest request;
    request.variant_id = "flowfield.cpu";
    request.problem = flow_problem(map, kFour, {0, 0});
    request.problem.start = map->index(3, 2);
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_TRUE(report.result.found);
    EXPECT_EQ(report.result.cost, 5);
    EXPECT_EQ(report.result.path.size(), 6u);
    EXPECT_EQ(report.result.levels, 6);  // distances 0..5
}

TEST(FlowFieldCpu, BlockedGoalIsReportedNotRun) {
    RunRequest request;
    request.variant_id = "flowfield.cpu";
    request.problem = flow_problem(test::shared_map({".#."}), kFour, {1, 0});
    const RunReport report = run_variant(request);
    EXPECT_EQ(report.result.status, RunStatus::Error);
    EXPECT_NE(report.result.message.find("blocked"), std::string::npos) << report.result.message;
}

// The validator must catch broken fields: a wrong distance, a direction that does not step
// closer, an illegal (corner-cutting) direction, a missing direction.
TEST(FlowFieldValidation, CatchesBrokenFields) {
    auto map = test::shared_map({"...", ".#.", "..."});
    const Problem problem = flow_problem(map, kEightNoCut, {0, 0});
    RunResult good;
    FlowField f = field_of(*map, kEightNoCut, {0, 0});
    good.bfs_levels = f.distance;
    good.flow_dirs = f.dirs;
    validate_flowfield_self(problem, good);
    ASSERT_EQ(good.validation, Validation::Reference) << good.validation_message;

    auto expect_failure = [&](RunResult broken, const std::string& what) {
        validate_flowfield_self(problem, broken);
        EXPECT_EQ(broken.validation, Validation::Failed) << what;
        RunResult against = broken;
        validate_flowfield_against_reference(problem, against, good);
        EXPECT_EQ(against.validation, Validation::Failed) << what;
    };
    RunResult r = good;
    r.bfs_levels[map->index(2, 2)] += 2;  // too long: a neighbour offers less
    expect_failure(r, "distance too long");
    r = good;
    r.flow_dirs[map->index(2, 0)] = 2;  // S from (2,0) to (2,1): further away
    expect_failure(r, "direction away from the goal");
    r = good;
    r.flow_dirs[map->index(2, 2)] = 7;  // NW into the wall
    expect_failure(r, "illegal direction");
    r = good;
    r.flow_dirs[map->index(1, 0)] = kNoDirection;
    expect_failure(r, "missing direction");
    r = good;
    r.bfs_levels[map->index(2, 2)] = kFlowUnreached;
    r.flow_dirs[map->index(2, 2)] = kNoDirection;
    expect_failure(r, "reachable cell marked unreached");

    // Another equally short direction is valid: (2,2) may step W or N (both at 4000 - 1000).
    RunResult tie = good;
    const Vertex corner = map->index(2, 2);
    tie.flow_dirs[corner] = tie.flow_dirs[corner] == 1 ? 3 : 1;
    validate_flowfield_against_reference(problem, tie, good);
    EXPECT_EQ(tie.validation, Validation::Passed) << tie.validation_message;
}

// 4-connected: an agent reaches the goal in exactly its distance in steps, and stays there.
TEST(FlowFieldAgents, ReachGoalInExactlyDistanceSteps) {
    const GridMap map = test::random_map(30, 20, 0.25, 5);
    test::Lcg rng(2);
    const Vertex goal = test::random_passable(map, rng);
    const FlowField f = field_of(map, kFour, map.cell(goal));
    std::vector<Vertex> agents = place_agents(f, 40, 9);
    ASSERT_FALSE(agents.empty());
    const std::vector<Vertex> start = agents;
    std::int32_t longest = 0;
    for (Vertex a : agents) longest = std::max(longest, f.distance[a]);
    for (std::int32_t step = 1; step <= longest + 2; ++step) {
        const std::size_t moving = advance_agents(f, agents, 1);
        std::size_t expected_moving = 0;
        for (std::size_t i = 0; i < agents.size(); ++i) {
            const std::int32_t d = f.distance[start[i]];
            if (step < d) {
                EXPECT_NE(agents[i], goal);
                EXPECT_EQ(f.distance[agents[i]], d - step);
                ++expected_moving;
            } else {
                EXPECT_EQ(agents[i], goal) << "agent " << i << " at step " << step;
            }
        }
        EXPECT_EQ(moving, expected_moving);
    }
}

TEST(FlowFieldAgents, StuckAgentsAndManyStepsAtOnce) {
    const GridMap map = map_from_rows({"....#.", "....#."});
    const FlowField f = field_of(map, kFour, {0, 0});
    std::vector<Vertex> agents = {map.index(3, 1), map.index(5, 0), map.index(0, 0)};
    EXPECT_EQ(advance_agents(f, agents, 100), 0u);
    EXPECT_EQ(agents[0], map.index(0, 0));
    EXPECT_EQ(agents[1], map.index(5, 0));  // unreachable: stays
    EXPECT_EQ(agents[2], map.index(0, 0));  // at the goal: stays
}

TEST(FlowFieldAgents, PlacementIsDistinctReachableAndDeterministic) {
    const GridMap map = map_from_rows({"..#..", "..#..", "..#.."});
    const FlowField f = field_of(map, kFour, {0, 0});
    const std::vector<Vertex> a = place_agents(f, 3, 42);
    EXPECT_EQ(a, place_agents(f, 3, 42));
    EXPECT_EQ(std::set<Vertex>(a.begin(), a.end()).size(), 3u);
    for (Vertex v : a) EXPECT_GT(f.distance[v], 0);
    // Only 5 reachable cells besides the goal: asking for more gives all of them.
    EXPECT_EQ(place_agents(f, 100, 1).size(), 5u);
}

}  // namespace
}  // namespace ps
