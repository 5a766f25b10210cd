// Flow fields on the CPU (kernels/flowfield/flowfield.hpp, flowfield.cpu): hand-worked small maps
// (plain and weighted terrain), the field against independent searches (BFS and Dijkstra on the
// grid's CSR from cpu_search.hpp; on weighted terrain a Dijkstra written out here and astar_grid),
// the validator catching broken fields, and agents that follow a field.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <set>

#include "kernels/search/cpu_search.hpp"
#include "kernels/flowfield/flowfield.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/generators.hpp"
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
                sum += flow_step_cost(f.levels, map.cost(path[i - 1]), map.cost(path[i]), diagonal);
            }
            EXPECT_EQ(sum, f.distance[v]);
        }
    }
}

// Weighted terrain, 4x3 with a costly column (x = 2 costs 5 on rows 0 and 1), goal (0,0):
//   1 1 5 1
//   1 1 5 1
//   1 1 1 1
// A step between cells costing a and b costs (a + b) * 500 orthogonal, (a + b) * 707 diagonal:
// 1000/1414 between plain cells, 3000/4242 between a plain cell and a 5, 5000 between two 5s.
// 8-connected (every diagonal legal: no blocked cell), worked outward from the goal:
//   (1,0) = (0,1) = 1000, (1,1) = 1414, (0,2) = 2000, (1,2) = 1414 + 1000 = 2414,
//   (2,2) = 1414 + 1414 = 2828 (diagonally from (1,1), around the costly cells),
//   (2,0) = 1000 + 3000 = 4000 (from (1,0); via (1,1) diagonally 1414 + 4242 = 5656),
//   (2,1) = 1414 + 3000 = 4414 (from (1,1); from (2,2) 2828 + 3000 = 5828),
//   (3,2) = 2828 + 1000 = 3828, (3,1) = 2828 + 1414 = 4242 (SW to (2,2)),
//   (3,0) = 4242 + 1000 = 5242 (from (3,1); from (2,0) 4000 + 3000 = 7000).
// 4-connected: (1,0) = (0,1) = 1000, (1,1) = (0,2) = 2000, (1,2) = 3000, (2,2) = 4000,
//   (3,2) = 5000, (3,1) = 6000, (2,0) = 1000 + 3000 = 4000, (2,1) = 2000 + 3000 = 5000,
//   (3,0) = 7000 both from (2,0) (4000 + 3000) and (3,1) (6000 + 1000): W comes first.
GridMap costly_column_map() {
    GridMap map = map_from_rows({"....", "....", "...."});
    map.set_cost(2, 0, 5);
    map.set_cost(2, 1, 5);
    return map;
}

TEST(FlowFieldCpu, WeightedTerrainEightConnectedByHand) {
    const GridMap map = costly_column_map();
    const FlowField f = field_of(map, kEightNoCut, {0, 0});
    EXPECT_FALSE(f.levels);
    const std::vector<std::int32_t> expected = {0, 1000, 4000, 5242, 1000, 1414, 4414, 4242, 2000, 2414, 2828, 3828};
    EXPECT_EQ(f.distance, expected);
    const std::uint8_t W = 1, S = 2, N = 3, SW = 5, NW = 7, none = kNoDirection;
    // (3,0): W offers 4000 + 3000 = 7000, S 4242 + 1000 = 5242. (3,1): SW to (2,2), 2828 + 1414.
    const std::vector<std::uint8_t> dirs = {none, W, W, S, N, NW, W, SW, N, N, NW, W};
    EXPECT_EQ(f.dirs, dirs);
}

TEST(FlowFieldCpu, WeightedTerrainFourConnectedByHand) {
    const GridMap map = costly_column_map();
    const FlowField f = field_of(map, kFour, {0, 0});
    EXPECT_FALSE(f.levels);  // weighted: the integer metric, not BFS levels
    const std::vector<std::int32_t> expected = {0, 1000, 4000, 7000, 1000, 2000, 5000, 6000, 2000, 3000, 4000, 5000};
    EXPECT_EQ(f.distance, expected);
    const std::uint8_t W = 1, S = 2, N = 3, none = kNoDirection;
    const std::vector<std::uint8_t> dirs = {none, W, W, W, N, W, W, S, N, W, W, W};
    EXPECT_EQ(f.dirs, dirs);
    // The same map plain stays in BFS levels.
    const FlowField plain = field_of(map_from_rows({"....", "....", "...."}), kFour, {0, 0});
    EXPECT_TRUE(plain.levels);
    EXPECT_EQ(plain.distance[3], 3);
}

// Dijkstra from the goal written out here, independent of flowfield.cpp and
// for_each_grid_neighbour: its own neighbour loop, corner rule and step costs.
std::vector<std::int64_t> weighted_distances(const GridMap& map, MoveRules rules, Vertex goal) {
    std::vector<std::int64_t> dist(map.cell_count(), -1);
    using Entry = std::pair<std::int64_t, Vertex>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    dist[goal] = 0;
    heap.push({0, goal});
    while (!heap.empty()) {
        const auto [d, v] = heap.top();
        heap.pop();
        if (d != dist[v]) continue;
        const Cell c = map.cell(v);
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const bool diagonal = dx != 0 && dy != 0;
                if ((dx == 0 && dy == 0) || (diagonal && rules.connectivity == Connectivity::Four)) continue;
                if (!map.passable(c.x + dx, c.y + dy)) continue;
                if (diagonal &&
                    !diagonal_allowed(rules.corners, map.passable(c.x + dx, c.y), map.passable(c.x, c.y + dy)))
                    continue;
                const Vertex w = map.index(c.x + dx, c.y + dy);
                const std::int64_t nd = d + (std::int64_t(map.cost(v)) + map.cost(w)) * (diagonal ? 707 : 500);
                if (dist[w] >= 0 && dist[w] <= nd) continue;
                dist[w] = nd;
                heap.push({nd, w});
            }
        }
    }
    return dist;
}

GridMap weighted_generated(GeneratorKind kind, int w, int h, int max_cost, std::uint64_t seed) {
    GeneratorParams p;
    p.kind = kind;
    p.width = w;
    p.height = h;
    p.seed = seed;
    p.density = kind == GeneratorKind::Rooms ? kRoomsDensity : 0.25;
    p.room_size = 8;
    GridMap map = generate_map(p).value();
    add_terrain_costs(map, max_cost, seed * 7 + 1);
    return map;
}

// On weighted generated maps of every kind, both connectivities and all three corner rules:
// the distances equal the Dijkstra above everywhere and astar_grid (zero heuristic, integer
// metric) on a sample of cells; directions follow the shared rule, paths add up to the
// distances, and the field validates itself.
TEST(FlowFieldCpu, WeightedTerrainMatchesIndependentDijkstra) {
    std::uint64_t seed = 1;
    for (GeneratorKind kind : all_generator_kinds()) {
        for (int max_cost : {9, 255}) {
            auto map = std::make_shared<const GridMap>(weighted_generated(kind, 37, 29, max_cost, seed++));
            ASSERT_TRUE(map->weighted()) << to_string(kind);
            for (MoveRules rules : {kFour, kEightNoCut, kEightCut, kEightAny}) {
                SCOPED_TRACE(std::string(to_string(kind)) + " max cost " + std::to_string(max_cost) + " " +
                             std::string(to_string(rules.connectivity)) + " corners " +
                             std::string(to_string(rules.corners)));
                const Cell goal = nearest_in_largest_region(*map, rules, {18, 14}).value();
                const FlowField f = field_of(*map, rules, goal);
                EXPECT_FALSE(f.levels);
                const std::vector<std::int64_t> truth = weighted_distances(*map, rules, map->index(goal));
                for (Vertex v = 0; v < Vertex(map->cell_count()); ++v)
                    ASSERT_EQ(f.distance[v], truth[v]) << "cell " << map->cell(v).x << "," << map->cell(v).y;
                const GridSearchSpec spec{rules, CostMode::Integer, Heuristic::Zero};
                for (Vertex v = 0; v < Vertex(map->cell_count()); v += 41) {
                    if (!map->passable(v)) continue;
                    const SearchOutput astar = astar_grid(*map, spec, v, map->index(goal));
                    EXPECT_EQ(astar.found, f.distance[v] >= 0);
                    if (astar.found) {
                        EXPECT_EQ(astar.cost, double(f.distance[v]));
                    }
                }
                EXPECT_EQ(f.dirs, flow_directions(*map, rules, f.distance));
                for (Vertex v = 0; v < Vertex(map->cell_count()); v += 13) {
                    if (f.distance[v] <= 0) continue;
                    const std::vector<Vertex> path = follow_flow(f, v);
                    ASSERT_FALSE(path.empty());
                    std::int64_t sum = 0;
                    for (std::size_t i = 1; i < path.size(); ++i) {
                        bool diagonal = false;
                        ASSERT_TRUE(is_grid_step(*map, rules, path[i - 1], path[i], &diagonal));
                        sum += flow_step_cost(false, map->cost(path[i - 1]), map->cost(path[i]), diagonal);
                    }
                    EXPECT_EQ(sum, f.distance[v]);
                }
                Problem problem;
                problem.map = map;
                problem.rules = rules;
                problem.goal = map->index(goal);
                RunResult result;
                result.bfs_levels = f.distance;
                result.flow_dirs = f.dirs;
                validate_flowfield_self(problem, result);
                EXPECT_EQ(result.validation, Validation::Reference) << result.validation_message;
            }
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

// Through the runner: flowfield.cpu takes weighted terrain and validates itself (with a start:
// the cost is the start's distance); a BFS variant, which counts steps, is refused.
TEST(FlowFieldCpu, RunnerTakesWeightedTerrainAndRefusesBfs) {
    auto map = std::make_shared<const GridMap>(weighted_generated(GeneratorKind::Noise, 60, 45, 40, 3));
    ASSERT_TRUE(map->weighted());
    const MoveRules rules[] = {kFour, kEightNoCut};
    for (MoveRules r : rules) {
        const Cell goal = nearest_in_largest_region(*map, r, {30, 22}).value();
        RunRequest request;
        request.variant_id = "flowfield.cpu";
        request.problem = flow_problem(map, r, goal);
        request.problem.start = map->index(nearest_in_largest_region(*map, r, {0, 0}).value());
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Reference) << report.result.validation_message;
        EXPECT_TRUE(report.result.found);
        const std::vector<std::int64_t> truth = weighted_distances(*map, r, map->index(goal));
        EXPECT_EQ(report.result.cost, double(truth[request.problem.start]));
        EXPECT_EQ(report.result.levels, 0);  // not BFS levels
    }
    EXPECT_TRUE(Registry::instance().find("flowfield.cpu")->info().cell_costs);
    EXPECT_TRUE(Registry::instance().find("flowfield.gpu")->info().cell_costs);
    RunRequest bfs;
    bfs.variant_id = "bfs.cpu.queue";
    bfs.problem = flow_problem(map, kFour, nearest_in_largest_region(*map, kFour, {30, 22}).value());
    const RunReport refused = run_variant(bfs);
    EXPECT_EQ(refused.result.status, RunStatus::Error);
    EXPECT_NE(refused.result.message.find("cell costs"), std::string::npos) << refused.result.message;
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
