// The run orchestrator: statistics, validation against the reference, problem checks and the
// registry contract (ids unique, references registered, CPU references validate themselves).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "kernels/run/runner.hpp"
#include "tests/support/test_support.hpp"
#include "kernels/run/validation.hpp"

namespace ps {
namespace {

using test::shared_map;

RunRequest request_for(const std::string& id, const Problem& problem, int warmup = 0, int repeat = 1) {
    RunRequest r;
    r.variant_id = id;
    r.problem = problem;
    r.warmup = warmup;
    r.repeat = repeat;
    return r;
}

TEST(RunnerStats, TableOfCases) {
    struct Case {
        std::vector<double> samples;
        double mean, min, max, median, sd;
    };
    const Case cases[] = {
        {{5}, 5, 5, 5, 5, 0},
        {{1, 2, 3, 4}, 2.5, 1, 4, 2.5, std::sqrt(5.0 / 3.0)},
        {{9, 1, 5}, 5, 1, 9, 5, 4},
        {{2, 2, 2, 2, 2}, 2, 2, 2, 2, 0},
    };
    for (const auto& c : cases) {
        const Stats s = compute_stats(c.samples);
        EXPECT_EQ(s.n, c.samples.size());
        EXPECT_DOUBLE_EQ(s.mean, c.mean);
        EXPECT_DOUBLE_EQ(s.min, c.min);
        EXPECT_DOUBLE_EQ(s.max, c.max);
        EXPECT_DOUBLE_EQ(s.median, c.median);
        EXPECT_NEAR(s.sd, c.sd, 1e-12);
    }
    EXPECT_EQ(compute_stats({}).n, 0u);
}

TEST(RunnerRegistry, IdsUniqueAndReferencesRegistered) {
    std::set<std::string> ids;
    for (const auto& v : Registry::instance().all()) {
        EXPECT_TRUE(ids.insert(v->info().id).second) << v->info().id;
        const Variant* ref = Registry::instance().find(v->info().reference_id);
        ASSERT_NE(ref, nullptr) << v->info().id << " names a missing reference";
        EXPECT_EQ(ref->info().device, DeviceKind::Cpu);
        EXPECT_EQ(ref->info().family, v->info().family);
    }
    for (const char* id : {"bfs.cpu", "bfs.cpu.queue", "dijkstra.cpu", "astar.cpu", "astar.cpu.bidir"})
        EXPECT_NE(Registry::instance().find(id), nullptr) << id;
}

TEST(RunnerValidation, PathCostChecksEveryStep) {
    Problem p;
    p.map = shared_map({"...", ".#.", "..."});
    p.rules = {Connectivity::Eight, CornerRule::None};
    p.cost_mode = CostMode::Integer;
    // (0,0) -> (1,0) -> (2,0) -> (2,1) -> (2,2): 4 orthogonal steps.
    auto ok = path_cost(p, {0, 1, 2, 5, 8});
    ASSERT_TRUE(ok);
    EXPECT_EQ(*ok, 4000);
    // (0,0) -> (1,1) would step onto the wall.
    EXPECT_FALSE(path_cost(p, {0, 4, 8}));
    // Diagonal (1,0) -> (2,1) cuts the wall's corner: illegal without corner cutting...
    EXPECT_FALSE(path_cost(p, {0, 1, 5, 8}));
    // ...and legal with it (one orthogonal neighbour, (2,0), is free).
    p.rules.corners = CornerRule::One;
    auto cut = path_cost(p, {0, 1, 5, 8});
    ASSERT_TRUE(cut);
    EXPECT_EQ(*cut, 1000 + 1414 + 1000);
}

TEST(RunnerValidation, PathCostFollowsTheAnyCornerRule) {
    Problem p;
    // (0,0) -> (1,1) squeezes between the walls at (1,0) and (0,1).
    p.map = shared_map({".#", "#."});
    p.cost_mode = CostMode::Integer;
    p.rules = {Connectivity::Eight, CornerRule::One};
    EXPECT_FALSE(path_cost(p, {0, 3}));
    p.rules.corners = CornerRule::Any;
    auto squeeze = path_cost(p, {0, 3});
    ASSERT_TRUE(squeeze);
    EXPECT_EQ(*squeeze, 1414);
    // The target must still be free.
    p.map = shared_map({".#", "##"});
    EXPECT_FALSE(path_cost(p, {0, 3}));
}

TEST(RunnerValidation, WrongCostFailsAgainstReference) {
    Problem p;
    p.map = shared_map({"....", "....", "...."});
    p.rules = {Connectivity::Eight, CornerRule::None};
    p.cost_mode = CostMode::Integer;
    p.start = p.map->index(0, 0);
    p.goal = p.map->index(3, 2);
    RunResult reference = run_reference(Registry::instance().find("astar.cpu")->info(), p, {});
    ASSERT_EQ(reference.status, RunStatus::Ok);
    EXPECT_EQ(reference.cost, 2 * 1414 + 1000);

    RunResult good = reference;
    validate_against_reference(p, Family::ShortestPath, good, reference);
    EXPECT_EQ(good.validation, Validation::Passed) << good.validation_message;

    // A legal but longer path must fail.
    RunResult longer = reference;
    longer.path = {p.map->index(0, 0), p.map->index(1, 0), p.map->index(2, 0),
                   p.map->index(3, 0), p.map->index(3, 1), p.map->index(3, 2)};
    longer.cost = 5000;
    validate_against_reference(p, Family::ShortestPath, longer, reference);
    EXPECT_EQ(longer.validation, Validation::Failed);

    // The right cost with a path that does not add up must fail too.
    RunResult lying = reference;
    lying.path = longer.path;
    validate_against_reference(p, Family::ShortestPath, lying, reference);
    EXPECT_EQ(lying.validation, Validation::Failed);
    EXPECT_NE(lying.validation_message.find("add up"), std::string::npos) << lying.validation_message;
}

TEST(RunnerValidation, BfsLevelMismatchIsCounted) {
    Problem p;
    p.map = shared_map({"...", "...", "..."});
    p.rules.connectivity = Connectivity::Four;
    p.goal = 0;
    RunRequest request = request_for("bfs.cpu", p, 0, 1);
    RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok);
    EXPECT_EQ(report.result.validation, Validation::Passed) << report.result.validation_message;
    RunResult broken = report.result;
    broken.bfs_levels[8] = 3;  // corner (2,2) is 4 steps from (0,0)
    RunResult reference = run_reference(report.info, p, {});
    validate_against_reference(p, Family::Bfs, broken, reference);
    EXPECT_EQ(broken.validation, Validation::Failed);
    EXPECT_NE(broken.validation_message.find("1 vertices"), std::string::npos) << broken.validation_message;
}

TEST(RunnerRun, EveryCpuVariantValidatesOnASmallMap) {
    Problem p;
    p.map = shared_map({"..........", ".####.....", "....#..#..", "..#.#..#..", "..#....#.."});
    p.start = p.map->index(0, 4);
    p.goal = p.map->index(9, 0);
    for (const auto& v : Registry::instance().all()) {
        if (v->info().device != DeviceKind::Cpu || v->info().family == Family::Batch)
            continue;  // batch: agents, no start/goal
        RunRequest request = request_for(v->info().id, p, 1, 3);
        request.problem.rules.connectivity = v->info().family == Family::Bfs ? Connectivity::Four : Connectivity::Eight;
        request.problem.bfs_stop_at_start = true;
        RunReport report = run_variant(request);
        if (report.result.message.find("--cost integer") != std::string::npos) {  // a bucket queue: integer f only
            request.problem.cost_mode = CostMode::Integer;
            report = run_variant(request);
        }
        ASSERT_EQ(report.result.status, RunStatus::Ok) << v->info().id << ": " << report.result.message;
        EXPECT_NE(report.result.validation, Validation::Failed)
            << v->info().id << ": " << report.result.validation_message;
        EXPECT_EQ(report.samples.size(), 3u);
        EXPECT_TRUE(report.result.found) << v->info().id;
    }
}

TEST(RunnerRun, BadProblemsGiveMessages) {
    Problem p;
    p.map = shared_map({"..#", "...", "..."});
    p.start = 0;
    p.goal = 2;  // blocked
    RunReport r = run_variant(request_for("astar.cpu", p, 0, 1));
    EXPECT_EQ(r.result.status, RunStatus::Error);
    EXPECT_NE(r.result.message.find("blocked"), std::string::npos) << r.result.message;

    RunReport unknown = run_variant(request_for("astar.nope", p, 0, 1));
    EXPECT_EQ(unknown.result.status, RunStatus::Error);
    EXPECT_NE(unknown.result.message.find("unknown variant"), std::string::npos);

    p.goal = 8;
    RunReport zero = run_variant(request_for("astar.cpu", p, 0, 0));
    EXPECT_EQ(zero.result.status, RunStatus::Error);
}

TEST(RunnerRun, CancelledBeforeStartReturnsCancelled) {
    Problem p;
    p.map = shared_map({"...", "...", "..."});
    p.start = 0;
    p.goal = 8;
    std::atomic<bool> cancel{true};
    RunRequest request = request_for("astar.cpu", p, 0, 5);
    request.context.cancel = &cancel;
    EXPECT_EQ(run_variant(request).result.status, RunStatus::Cancelled);
}

TEST(RunnerRun, ProblemGraphFollowsRules) {
    Problem p;
    p.map = shared_map({"...", "...", "..."});
    p.rules.connectivity = Connectivity::Four;
    auto four = p.bfs_graph();
    ASSERT_TRUE(four);
    EXPECT_EQ((*four)->edge_count(), 24u);
    Problem copy = p;  // shares the cache, but with other rules must not get the 4-graph
    copy.rules.connectivity = Connectivity::Eight;
    auto eight = copy.bfs_graph();
    ASSERT_TRUE(eight);
    EXPECT_EQ((*eight)->edge_count(), 40u);
}

TEST(RunnerRun, DerivedDataIsBuiltOncePerMapAndRules) {
    Problem p;
    p.map = shared_map({"...", "..."});
    int builds = 0;
    auto make = [&] { return std::make_shared<const int>(++builds); };
    bool built = false;
    const auto first = p.derived("x", make, &built);
    EXPECT_TRUE(built);
    Problem copy = p;  // a scenario file's next query: the same map and rules
    const auto again = copy.derived("x", make, &built);
    EXPECT_FALSE(built);
    EXPECT_EQ(again, first);
    EXPECT_EQ(builds, 1);
    copy.rules.corners = CornerRule::Any;  // other rules: built anew
    EXPECT_EQ(*std::static_pointer_cast<const int>(copy.derived("x", make, &built)), 2);
    EXPECT_TRUE(built);
    Problem other = p;
    other.map = shared_map({"..", ".."});  // another map: built anew
    other.derived("x", make, &built);
    EXPECT_TRUE(built);
    EXPECT_EQ(builds, 3);
    p.derived("y", make, &built);  // another name: its own entry
    EXPECT_TRUE(built);
    // One datum made from another: the inner call comes from inside the outer one's make (it
    // deadlocked on a plain mutex), and the inner datum is kept for later calls too.
    const auto outer = p.derived("outer", [&] {
        const auto inner = std::static_pointer_cast<const int>(p.derived("inner", make));
        return std::shared_ptr<const void>(std::make_shared<const int>(*inner * 10));
    });
    EXPECT_EQ(*std::static_pointer_cast<const int>(outer), 50);
    p.derived("inner", make, &built);
    EXPECT_FALSE(built);
}

}  // namespace
}  // namespace ps
