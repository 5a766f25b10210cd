// batch.cpu: per-agent costs against independent single searches (astar_graph with no
// heuristic, MovingAI optimal lengths), thread-count independence, unreachable agents, the
// variant through the runner with validation, the batch validation itself, the step
// statistics, and the CLI (run, roadmap, bench) as a user runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "kernels/graph/agents.hpp"
#include "kernels/batch/batch_cpu.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/graph/roadmap.hpp"
#include "kernels/run/runner.hpp"
#include "kernels/run/validation.hpp"
#include "tests/support/cli_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

std::shared_ptr<const CsrGraph> grid_graph(const GridMap& map, CostMode mode) {
    return std::make_shared<const CsrGraph>(grid_to_csr(map, {Connectivity::Eight, CornerRule::None}, mode).value());
}

// Truth: one independent Dijkstra per agent (cpu_search.cpp's own heap and arrays).
void expect_costs_equal_dijkstra(const CsrGraph& g, const std::vector<Agent>& agents, const BatchCpuOutput& out) {
    ASSERT_EQ(out.costs.size(), agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
        const SearchOutput truth = astar_graph(g, Heuristic::Zero, agents[i].first, agents[i].second);
        if (!truth.found) {
            EXPECT_EQ(out.costs[i], -1.0) << "agent " << i;
        } else {
            EXPECT_NEAR(out.costs[i], truth.cost, 1e-9 * std::max(1.0, truth.cost)) << "agent " << i;
        }
    }
}

// Equal paths summed in another order differ in the last bits of a real cost.
void expect_costs_near(const std::vector<double>& a, const std::vector<double>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-9 * std::max(1.0, b[i])) << "agent " << i;
}

TEST(BatchCpu, CostsEqualSingleDijkstraOnRoadmapsAndGrids) {
    const GridMap map = test::random_map(64, 48, 0.2, 3);
    auto roadmap = waypoint_roadmap(map, {4, 0, {}});
    ASSERT_TRUE(roadmap);
    auto agents = random_agents(roadmap->graph, {300, 5});
    ASSERT_TRUE(agents);
    const BatchCpuOutput out = batch_search_cpu(roadmap->graph, *agents, {2, false, nullptr});
    EXPECT_EQ(out.heuristic.kind, BatchHeuristic::Kind::Coords);
    EXPECT_DOUBLE_EQ(out.heuristic.scale, 1.0);
    expect_costs_equal_dijkstra(roadmap->graph, *agents, out);

    for (CostMode mode : {CostMode::Real, CostMode::Integer}) {
        auto g = grid_graph(map, mode);
        auto cells = random_agents(*g, {200, 8});
        ASSERT_TRUE(cells);
        const BatchCpuOutput grid = batch_search_cpu(*g, *cells, {2, false, nullptr});
        EXPECT_EQ(grid.heuristic.kind, BatchHeuristic::Kind::Grid);
        expect_costs_equal_dijkstra(*g, *cells, grid);
        // A* expands no more than Dijkstra, agent by agent.
        const BatchCpuOutput dijkstra = batch_search_cpu(*g, *cells, {2, true, nullptr});
        expect_costs_near(dijkstra.costs, grid.costs);
        for (std::size_t i = 0; i < cells->size(); ++i) EXPECT_LE(grid.steps[i], dijkstra.steps[i]) << i;
    }
}

TEST(BatchCpu, ThreadCountDoesNotChangeAnyResult) {
    const GridMap map = test::random_map(80, 80, 0.25, 17);
    auto roadmap = waypoint_roadmap(map, {3, 0, {}});
    ASSERT_TRUE(roadmap);
    auto agents = random_agents(roadmap->graph, {2000, 1});
    ASSERT_TRUE(agents);
    const BatchCpuOutput one = batch_search_cpu(roadmap->graph, *agents, {1, false, nullptr});
    EXPECT_EQ(one.threads, 1u);
    for (unsigned threads : {2u, 4u, 7u}) {
        const BatchCpuOutput many = batch_search_cpu(roadmap->graph, *agents, {threads, false, nullptr});
        EXPECT_EQ(many.threads, threads);
        EXPECT_EQ(many.costs, one.costs) << threads << " threads";
        EXPECT_EQ(many.steps, one.steps) << threads << " threads";
    }
}

// The working sets stay in the process for the next run on as many vertices: their stamps and
// epochs carry over, so later runs (more threads than sets kept, other agents, the other
// metric's graph of the same size) still equal independent Dijkstra searches agent by agent.
TEST(BatchCpu, WorkingSetsAndThreadsKeptBetweenRunsGiveTheSameCosts) {
    const GridMap other = test::random_map(30, 20, 0.2, 4);
    const GridMap map = test::random_map(64, 48, 0.2, 3);
    auto flush = grid_graph(other, CostMode::Real);
    auto flush_agents = random_agents(*flush, {50, 2});
    ASSERT_TRUE(flush_agents);
    batch_search_cpu(*flush, *flush_agents, {2, false, nullptr});  // the sets kept are another size now
    auto real = grid_graph(map, CostMode::Real);
    auto integer = grid_graph(map, CostMode::Integer);
    std::uint64_t seed = 10;
    unsigned reused = 0;
    for (const auto& [g, threads] :
         {std::pair{real, 3u}, std::pair{real, 4u}, std::pair{integer, 2u}, std::pair{real, 4u}}) {
        auto agents = random_agents(*g, {400, seed++});
        ASSERT_TRUE(agents);
        const BatchCpuOutput out = batch_search_cpu(*g, *agents, {threads, false, nullptr});
        ASSERT_TRUE(out.error.empty()) << out.error;
        SCOPED_TRACE("run " + std::to_string(seed - 10) + ", " + std::to_string(threads) + " threads");
        EXPECT_EQ(out.reused_sets, seed == 11 ? 0u : std::min(threads, seed == 12 ? 3u : 4u));
        if (seed >= 13) {
            EXPECT_EQ(out.started_threads, 0u);  // 4 threads ran before: parked, not started
        }
        reused += out.reused_sets;
        expect_costs_equal_dijkstra(*g, *agents, out);
    }
    EXPECT_EQ(reused, 3u + 2u + 4u);
}

TEST(BatchCpu, UnreachableAgentsGetMinusOneAndTrivialOnesZero) {
    // 0-1 and 2-3 apart; 4 -> 0 is one-way.
    auto r = parse_roadmap_text(
        "pathscope-roadmap 1\nnodes 5\n0 0\n1 0\n5 0\n6 0\n0 1\nedges 2\n0 1\n2 3\n"
        "arcs 1\n4 0 2\n",
        "apart");
    ASSERT_TRUE(r);
    const std::vector<Agent> agents = {{0, 1}, {0, 2}, {3, 2}, {1, 3}, {2, 2}, {4, 1}, {1, 4}};
    for (bool dijkstra : {false, true}) {
        const BatchCpuOutput out = batch_search_cpu(r->graph, agents, {3, dijkstra, nullptr});
        EXPECT_EQ(out.costs, (std::vector<double>{1, -1, 1, -1, 0, 3, -1}));
        EXPECT_EQ(out.steps[4], 0u);
    }
}

TEST(BatchCpu, CancellationStopsTheRun) {
    const GridMap map = test::random_map(64, 64, 0.1, 2);
    auto g = grid_graph(map, CostMode::Real);
    auto agents = random_agents(*g, {500, 3});
    ASSERT_TRUE(agents);
    std::atomic<bool> cancel{true};
    const BatchCpuOutput out = batch_search_cpu(*g, *agents, {2, false, &cancel});
    EXPECT_TRUE(out.cancelled);
}

Problem batch_problem(const GridMap& map, std::size_t count, std::uint64_t seed) {
    Problem p;
    p.map = std::make_shared<const GridMap>(map);
    auto graph = p.batch_graph();
    p.agents = random_agents(**graph, {count, seed}).value();
    return p;
}

TEST(BatchCpu, VariantRunsThroughTheRunnerWithValidationAndCounters) {
    Problem p = batch_problem(test::random_map(50, 50, 0.2, 4), 400, 6);
    RunRequest request;
    request.variant_id = "batch.cpu";
    request.problem = p;
    request.problem.params["threads"] = "3";
    request.repeat = 2;
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.info.family, Family::Batch);
    EXPECT_EQ(report.result.validation, Validation::Reference) << report.result.validation_message;
    EXPECT_EQ(report.samples.size(), 2u);
    const auto& c = report.result.counters;
    EXPECT_EQ(c.at("agents"), 400.0);
    EXPECT_EQ(c.at("threads"), 3.0);
    EXPECT_EQ(c.at("agents_unreachable"), 0.0);
    EXPECT_EQ(c.at("expanded_total"), double(report.result.expanded));
    EXPECT_LE(c.at("steps_p50"), c.at("steps_p95"));
    EXPECT_LE(c.at("steps_p95"), c.at("steps_max"));
    EXPECT_GT(report.stats.compute.median, 0.0);

    // Dijkstra through the parameter: same costs.
    request.problem.params["heuristic"] = "zero";
    const RunReport zero = run_variant(request);
    ASSERT_EQ(zero.result.status, RunStatus::Ok);
    expect_costs_near(zero.result.agent_costs, report.result.agent_costs);
    EXPECT_GT(zero.result.expanded, report.result.expanded);

    request.problem.params["heuristic"] = "manhattan";
    EXPECT_EQ(run_variant(request).result.status, RunStatus::Error);
    request.problem.params = {{"threads", "-2"}};
    EXPECT_EQ(run_variant(request).result.status, RunStatus::Error);
}

TEST(BatchCpu, ProblemCheckRejectsBadAgentsClearly) {
    const GridMap map = test::map_from_rows({"....", ".#..", "...."});
    Problem p;
    p.map = std::make_shared<const GridMap>(map);
    auto message = [&] {
        auto ok = p.check(Family::Batch);
        return ok ? std::string() : ok.error().message;
    };
    EXPECT_NE(message().find("at least one agent"), std::string::npos) << message();
    p.agents = {{0, 11}, {0, 99}};
    EXPECT_NE(message().find("agent 1: goal 99 is not a vertex"), std::string::npos) << message();
    p.agents = {{0, 11}, {map.index(1, 1), 0}};
    EXPECT_NE(message().find("agent 1: start (1,1) is a blocked cell"), std::string::npos) << message();
    p.agents = {{0, 11}};
    EXPECT_TRUE(p.check(Family::Batch));
    Problem none;
    none.agents = {{0, 1}};
    EXPECT_NE(none.check(Family::Batch).error().message.find("roadmap or a map"), std::string::npos);
}

TEST(BatchCpu, ValidationComparesEveryAgentAndNamesTheFirstMismatch) {
    Problem p = batch_problem(test::random_map(30, 30, 0.1, 8), 50, 2);
    const RunResult reference = Registry::instance().find("batch.cpu")->run(p, RunContext{});
    ASSERT_EQ(reference.status, RunStatus::Ok);
    RunResult same = reference;
    for (double& c : same.agent_costs) c *= 1 + 1e-7;  // float-precision GPU costs pass
    validate_against_reference(p, Family::Batch, same, reference);
    EXPECT_EQ(same.validation, Validation::Passed) << same.validation_message;

    RunResult off = reference;
    off.agent_costs[7] += 0.5;
    off.agent_costs[9] += 0.5;
    validate_against_reference(p, Family::Batch, off, reference);
    EXPECT_EQ(off.validation, Validation::Failed);
    EXPECT_NE(off.validation_message.find("2 of 50 agents differ"), std::string::npos) << off.validation_message;
    EXPECT_NE(off.validation_message.find("first agent 7 ("), std::string::npos) << off.validation_message;

    RunResult lost = reference;
    lost.agent_costs[3] = -1;
    validate_against_reference(p, Family::Batch, lost, reference);
    EXPECT_NE(lost.validation_message.find("unreachable instead of"), std::string::npos) << lost.validation_message;

    RunResult short_result = reference;
    short_result.agent_steps.pop_back();
    validate_self(p, Family::Batch, short_result);
    EXPECT_EQ(short_result.validation, Validation::Failed);

    RunResult too_cheap = reference;  // below the octile lower bound
    too_cheap.agent_costs[0] = 0.0;
    validate_self(p, Family::Batch, too_cheap);
    EXPECT_EQ(too_cheap.validation, Validation::Failed);
    EXPECT_NE(too_cheap.validation_message.find("lower bound"), std::string::npos) << too_cheap.validation_message;
}

TEST(BatchCpu, StepStatisticsAndLogHistogram) {
    EXPECT_EQ(percentile({}, 50), 0u);
    EXPECT_EQ(percentile({5, 1, 3, 2, 4}, 50), 3u);
    EXPECT_EQ(percentile({5, 1, 3, 2, 4}, 95), 5u);
    EXPECT_EQ(percentile({5, 1, 3, 2, 4}, 0), 1u);
    std::vector<std::uint32_t> values;
    for (std::uint32_t v = 1; v <= 1000; ++v) values.push_back(v);
    values.push_back(0);
    const auto bins = log_histogram(values, 10);
    ASSERT_EQ(bins.size(), 10u);
    EXPECT_EQ(bins.front().lo, 0u);
    EXPECT_EQ(bins.back().hi, 1000u);
    std::size_t total = 0;
    for (std::size_t i = 0; i < bins.size(); ++i) {
        total += bins[i].count;
        EXPECT_EQ(bins[i].count, bins[i].hi - bins[i].lo + 1) << "bin " << i;  // every value once
        if (i) {
            EXPECT_EQ(bins[i].lo, bins[i - 1].hi + 1);
        }
        if (i > 1) {
            EXPECT_GT(bins[i].hi - bins[i].lo, bins[i - 1].hi - bins[i - 1].lo);  // log-scaled widths
        }
    }
    EXPECT_EQ(total, values.size());
    const auto one = log_histogram({7, 7, 7});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one.front().count, 3u);
    EXPECT_TRUE(log_histogram({}).empty());

    RunResult r;
    r.agent_costs = {2.0, -1.0, 3.5};
    r.agent_steps = {10, 0, 20};
    add_batch_counters(r);
    EXPECT_EQ(r.counters.at("agents_unreachable"), 1.0);
    EXPECT_EQ(r.counters.at("steps_mean"), 10.0);
    EXPECT_EQ(r.counters.at("steps_imbalance"), 2.0);
    EXPECT_EQ(r.cost, 5.5);
    EXPECT_EQ(r.expanded, 30u);
    EXPECT_TRUE(r.found);
}

// Truth from outside: MovingAI's optimal lengths (8-connected, no corner cutting, real costs).
TEST(BatchCpu, GridAgentsFromMovingAiScenariosHaveTheOptimalLengths) {
    PS_REQUIRE_MOVINGAI();
    const std::string path = (test::movingai_dir() / "random512-10-0.map").string();
    auto map = read_movingai_map(path);
    ASSERT_TRUE(map) << map.error().message;
    auto file = read_movingai_scen(path + ".scen");
    ASSERT_TRUE(file);
    file->scenarios.resize(std::min<std::size_t>(file->scenarios.size(), 800));
    const std::vector<Scenario> scenarios = file->scenarios;
    auto agents = scen_agents(std::move(file).value(), path + ".scen", *map, nullptr, 0);
    ASSERT_TRUE(agents) << agents.error().message;
    ASSERT_EQ(agents->file.rejected_count, 0u);
    Problem p;
    p.map = std::make_shared<const GridMap>(std::move(map).value());
    p.agents = agents->agents;
    RunRequest request;
    request.variant_id = "batch.cpu";
    request.problem = p;
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_EQ(report.result.validation, Validation::Reference) << report.result.validation_message;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
        ASSERT_NEAR(report.result.agent_costs[i], scenarios[i].optimal_length,
                    1e-4 * std::max(1.0, scenarios[i].optimal_length))
            << path << ".scen:" << scenarios[i].line;
}

// ---- the CLI as a user runs it --------------------------------------------------------------

using test::run_cli;

TEST(BatchCli, RunRoadmapAndBench) {
    auto run = run_cli(
        "run --gen random --size 64 --seed 2 --variant batch.cpu --waypoints 4 --agents 300 "
        "--param threads=2 --repeat 2");
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_NE(run.out.find("agents 300: 300 reached"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("agents/s"), std::string::npos);
    EXPECT_NE(run.out.find("validation reference"), std::string::npos);
    EXPECT_NE(run.out.find("log-scaled bins"), std::string::npos);

    auto json = run_cli("run --gen random --size 48 --variant batch.cpu --agents 100 --json");  // grid graph
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_NE(json.out.find("\"agents\": 100"), std::string::npos) << json.out;
    EXPECT_NE(json.out.find("\"steps_histogram\""), std::string::npos);

    const std::string rm = test::temp_path("cli.roadmap"), gr = test::temp_path("cli.gr"),
                      back = test::temp_path("cli-back.roadmap");
    auto gen = run_cli("roadmap gen --gen maze --size 64 --corridor 3 --spacing 4 --out " + rm);
    ASSERT_EQ(gen.exit_code, 0) << gen.err;
    EXPECT_NE(gen.out.find("nodes"), std::string::npos);
    EXPECT_NE(gen.out.find("components"), std::string::npos);
    ASSERT_EQ(run_cli("roadmap convert " + rm + " " + gr).exit_code, 0);
    ASSERT_EQ(run_cli("roadmap convert " + gr + " " + back).exit_code, 0);
    auto a = read_roadmap(rm), b = read_roadmap(back);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->graph.targets, b->graph.targets);
    EXPECT_EQ(a->graph.weights, b->graph.weights);
    auto on_file = run_cli("run --roadmap " + gr + " --variant batch.cpu --agents 50");  // no map needed
    EXPECT_EQ(on_file.exit_code, 0) << on_file.err << on_file.out;

    const std::string broken = test::temp_path("broken.roadmap");
    std::ofstream(broken) << "pathscope-roadmap 1\nnodes 2\n0 0\n";
    auto bad = run_cli("run --roadmap " + broken + " --variant batch.cpu --agents 5");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find(broken + ":4:"), std::string::npos) << bad.err;
    auto mixed = run_cli("run --gen empty --size 16 --variant batch.cpu,astar.cpu --agents 5");
    EXPECT_EQ(mixed.exit_code, 2);
    EXPECT_NE(mixed.err.find("not a batch variant"), std::string::npos) << mixed.err;

    const std::string map = test::temp_path("bench.map"), csv = test::temp_path("bench.csv");
    ASSERT_EQ(run_cli("gen --gen random --size 48 --out " + map).exit_code, 0);
    auto bench = run_cli("bench --family batch --map " + map +
                         " --waypoints 4 --agents 100,200 --variant batch.cpu "
                         "--sweep threads=1:2 --repeat 1 --warmup 0 --csv " +
                         csv);
    ASSERT_EQ(bench.exit_code, 0) << bench.err << bench.out;
    EXPECT_NE(bench.out.find("batch.cpu[threads=2]"), std::string::npos) << bench.out;
    std::ifstream in(csv);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) ++lines;
    EXPECT_EQ(lines, 5);  // header + 2 counts x 2 thread counts

    // Joining what the grid connects is the default; --straight-only keeps the visible pairs.
    auto components = [&](const std::string& extra) {
        auto r = run_cli("roadmap gen --gen random --size 96 --density 0.3 --seed 3 --spacing 4" + extra);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const auto at = r.out.find(" components");
        const auto from = r.out.rfind(' ', at - 1);
        return std::stoi(r.out.substr(from + 1, at - from - 1));
    };
    EXPECT_LT(components(""), components(" --straight-only"));
}

}  // namespace
}  // namespace ps
