// batch.gpu.*: every strategy and memory mode against an independent CPU Dijkstra
// (astar_graph with Heuristic::Zero) on grid graphs and random geometric roadmaps, with
// unreachable agents, more agents than threads, and forced splits into several launches.
// Without a GPU: the device search algorithm itself runs on the CPU (emulate_batch_gpu) against
// the same truth, and the variants must say "unavailable" with the reason (the memory plan and
// the other host arithmetic: test_batch_plan.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "kernels/batch/batch_gpu.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"

namespace ps {
namespace {

using Agents = std::vector<std::pair<Vertex, Vertex>>;

const char* const kIds[] = {"batch.gpu.bsp", "batch.gpu.batch", "batch.gpu.queue", "batch.gpu.permute"};

// n random points in a 100 x 100 square (z in [0, 10]), joined both ways when closer than
// `radius`, weight = length x factor x [1, 1.25): factor < 1 makes plain Euclidean overestimate
// (weights in other units, as in road graphs). The last vertex is isolated, far away.
CsrGraph geometric_graph(std::uint32_t n, double radius, std::uint64_t seed, double factor) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> pos(0.0, 100.0), jitter(1.0, 1.25), height(0.0, 10.0);
    std::vector<Point3> p(n);
    for (std::uint32_t i = 0; i + 1 < n; ++i) p[i] = {pos(rng), pos(rng), height(rng)};
    p[n - 1] = {1000.0, 1000.0, 0.0};
    std::vector<std::vector<std::pair<Vertex, double>>> adj(n);
    for (std::uint32_t i = 0; i + 1 < n; ++i)
        for (std::uint32_t j = i + 1; j + 1 < n; ++j) {
            const double d = std::sqrt((p[i].x - p[j].x) * (p[i].x - p[j].x) + (p[i].y - p[j].y) * (p[i].y - p[j].y) +
                                       (p[i].z - p[j].z) * (p[i].z - p[j].z));
            if (d >= radius) continue;
            const double w = d * factor * jitter(rng);
            adj[i].push_back({j, w});
            adj[j].push_back({i, w});
        }
    CsrGraph g;
    g.coords = p;
    g.offsets.push_back(0);
    for (const auto& list : adj) {
        for (const auto& [to, w] : list) {
            g.targets.push_back(to);
            g.weights.push_back(w);
        }
        g.offsets.push_back(std::uint32_t(g.targets.size()));
    }
    return g;
}

// Random pairs among `usable` vertices, plus start == goal and pairs to the last (isolated)
// vertex when `isolated` is set.
Agents random_pairs(const std::vector<Vertex>& usable, std::size_t count, std::uint64_t seed, Vertex isolated) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, usable.size() - 1);
    Agents agents;
    for (std::size_t i = 0; i < count; ++i) agents.push_back({usable[pick(rng)], usable[pick(rng)]});
    agents.push_back({usable.front(), usable.front()});
    if (isolated != kNoVertex) {
        agents.push_back({usable.back(), isolated});
        agents.push_back({isolated, usable.front()});
        agents.push_back({isolated, isolated});
    }
    return agents;
}

std::vector<Vertex> all_vertices(const CsrGraph& g) {
    std::vector<Vertex> v(g.vertex_count());
    for (Vertex i = 0; i < g.vertex_count(); ++i) v[i] = i;
    return v;
}

std::vector<Vertex> passable_cells(const GridMap& map) {
    std::vector<Vertex> v;
    for (Vertex i = 0; i < map.cell_count(); ++i)
        if (map.passable(i)) v.push_back(i);
    return v;
}

// The truth: double-precision Dijkstra per agent, -1 when unreachable.
std::vector<double> dijkstra_costs(const CsrGraph& g, const Agents& agents) {
    std::vector<double> costs;
    for (const auto& [s, t] : agents) {
        const SearchOutput out = astar_graph(g, Heuristic::Zero, s, t);
        costs.push_back(out.found ? out.cost : -1.0);
    }
    return costs;
}

void expect_costs(const std::vector<double>& got, const std::vector<double>& truth, const Agents& agents,
                  const std::string& label) {
    ASSERT_EQ(got.size(), truth.size()) << label;
    int shown = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const bool ok = truth[i] < 0 ? got[i] == -1.0 : std::abs(got[i] - truth[i]) <= 1e-5 * std::max(1.0, truth[i]);
        if (!ok && shown++ < 5)
            ADD_FAILURE() << label << ": agent " << i << " (" << agents[i].first << " -> " << agents[i].second
                          << ") cost " << got[i] << ", Dijkstra says " << truth[i];
    }
}

std::size_t unreachable(const std::vector<double>& costs) {
    return std::size_t(std::count(costs.begin(), costs.end(), -1.0));
}

std::shared_ptr<const CsrGraph> grid_graph(const GridMap& map, Connectivity c, CostMode mode) {
    return std::make_shared<const CsrGraph>(grid_to_csr(map, MoveRules{c, CornerRule::None}, mode).value());
}

// ---- without a GPU -------------------------------------------------------------------------

TEST(BatchGpu, UnavailableWithoutGpuSaysWhy) {
    if (gpu_info().available) GTEST_SKIP() << "a GPU is present: " << describe(gpu_info());
    auto graph = std::make_shared<const CsrGraph>(geometric_graph(20, 40, 1, 1.0));
    for (const char* id : kIds) {
        ASSERT_NE(Registry::instance().find(id), nullptr) << id;
        EXPECT_EQ(Registry::instance().find(id)->info().reference_id, "batch.cpu");
        RunRequest request;
        request.variant_id = id;
        request.problem.roadmap = graph;
        request.problem.agents = {{0, 1}};
        EXPECT_FALSE(Registry::instance().find(id)->preview(request.problem).has_value()) << id;  // no plan to show
        const RunReport report = run_variant(request);
        EXPECT_EQ(report.result.status, RunStatus::Unavailable) << id;
        EXPECT_NE(report.result.message.find(gpu_info().reason), std::string::npos) << report.result.message;
    }
    const gpu::BatchGpuOutput out = gpu::run_batch_gpu(*graph, {{0, 1}}, {});
    EXPECT_EQ(out.error, gpu_info().reason);
    EXPECT_EQ(out.error_kind, ErrorKind::Device);
    EXPECT_TRUE(out.costs.empty());
}

// The device algorithm (heap, lazy deletion, compaction, generations, layouts, heuristics) on
// the CPU against Dijkstra.
struct EmulatedCase {
    const char* name;
    gpu::BatchLayout layout;
    std::uint32_t slots;
    std::uint32_t heap_capacity;
    int shared_levels;  // heap levels kept apart from the global heap (on chip on the GPU)
};

TEST(BatchGpuEmulated, MatchesDijkstraOnGeometricRoadmaps) {
    for (double factor : {1.0, 0.3})
        for (bool flat : {false, true}) {  // 3D coordinates, or z = 0 (edges carry the target's x, y)
            CsrGraph g = geometric_graph(400, 9.0, 7, factor);
            if (flat)
                for (Point3& p : g.coords) p.z = 0;
            std::vector<Vertex> usable = all_vertices(g);
            usable.pop_back();  // not the isolated vertex
            const Agents agents = random_pairs(usable, 150, 3, g.vertex_count() - 1);
            const auto truth = dijkstra_costs(g, agents);
            ASSERT_GE(unreachable(truth), 2u);
            for (const EmulatedCase& c :
                 {EmulatedCase{"interleaved", gpu::BatchLayout::Interleaved, 7, 0, 3},
                  EmulatedCase{"blocked", gpu::BatchLayout::Blocked, 5, 0, 3},
                  EmulatedCase{"blocked, no top", gpu::BatchLayout::Blocked, 5, 0, 0},
                  EmulatedCase{"blocked, 1 top level", gpu::BatchLayout::Blocked, 3, 0, 1},
                  EmulatedCase{"interleaved, 2 top levels", gpu::BatchLayout::Interleaved, 3, 0, 2},
                  EmulatedCase{"blocked, 4 top levels", gpu::BatchLayout::Blocked, 6, 0, 4}}) {
                gpu::BatchGpuOptions o;
                o.layout = c.layout;
                o.heap_capacity = c.heap_capacity;
                o.shared_levels = c.shared_levels;
                const auto out = gpu::emulate_batch_gpu(g, agents, o, c.slots);
                const std::string label =
                    std::string(c.name) + " factor " + std::to_string(factor) + (flat ? " flat" : " 3D");
                ASSERT_TRUE(out.error.empty()) << label << ": " << out.error;
                EXPECT_NE(out.heuristic.find("euclidean"), std::string::npos) << out.heuristic;
                expect_costs(out.costs, truth, agents, label);
                EXPECT_EQ(out.compactions, 0u) << label << ": a vertex-count heap never fills up on these graphs";
            }
        }
}

TEST(BatchGpuEmulated, CompactedHeapsStayExactOrFailClearly) {
    // Heaps smaller than the vertex count fill up; compaction drops outdated entries. Either the
    // open list then fits and costs stay exact, or the agent fails with the reason.
    const CsrGraph g = geometric_graph(400, 9.0, 7, 1.0);
    std::vector<Vertex> usable = all_vertices(g);
    usable.pop_back();
    const Agents agents = random_pairs(usable, 150, 3, g.vertex_count() - 1);
    const auto truth = dijkstra_costs(g, agents);
    std::uint64_t compacted_and_exact = 0;
    for (std::uint32_t capacity = 8; capacity <= 160; capacity += 4) {
        gpu::BatchGpuOptions o;
        o.heap_capacity = capacity;
        const auto out = gpu::emulate_batch_gpu(g, agents, o, 4);
        if (!out.error.empty()) {
            EXPECT_NE(out.error.find("heap_capacity=" + std::to_string(capacity)), std::string::npos) << out.error;
            continue;
        }
        expect_costs(out.costs, truth, agents, "heap_capacity=" + std::to_string(capacity));
        compacted_and_exact += out.compactions;
    }
    EXPECT_GT(compacted_and_exact, 0u) << "no capacity both filled up and fitted after compaction";
}

TEST(BatchGpuEmulated, MatchesDijkstraOnGridGraphsAndAStarExpandsLess) {
    const auto map = test::generated(GeneratorKind::Random, 40, 30, 5, 0.25);
    const std::vector<Vertex> cells = passable_cells(*map);
    const Agents agents = random_pairs(cells, 120, 11, kNoVertex);
    for (auto [conn, mode] :
         {std::pair{Connectivity::Eight, CostMode::Real}, std::pair{Connectivity::Eight, CostMode::Integer},
          std::pair{Connectivity::Four, CostMode::Real}}) {
        const auto g = grid_graph(*map, conn, mode);
        const auto truth = dijkstra_costs(*g, agents);
        gpu::BatchGpuOptions o;
        const auto astar = gpu::emulate_batch_gpu(*g, agents, o, 16);
        ASSERT_TRUE(astar.error.empty()) << astar.error;
        EXPECT_NE(astar.heuristic.find("octile"), std::string::npos) << astar.heuristic;
        expect_costs(astar.costs, truth, agents, "grid A*");
        o.zero_heuristic = true;
        const auto dijkstra = gpu::emulate_batch_gpu(*g, agents, o, 16);
        ASSERT_TRUE(dijkstra.error.empty()) << dijkstra.error;
        expect_costs(dijkstra.costs, truth, agents, "grid Dijkstra");
        const auto total = [](const std::vector<std::uint32_t>& s) {
            return std::accumulate(s.begin(), s.end(), 0ull);
        };
        EXPECT_LT(total(astar.steps), total(dijkstra.steps));
        // Start == goal: found at once, one expansion.
        EXPECT_EQ(astar.costs[120], 0.0);
        EXPECT_EQ(astar.steps[120], 1u);
    }
}

TEST(BatchGpuEmulated, HandWorkedPathAndOverflowMessage) {
    // 0 -1- 1 -1- 2 and a shortcut 0 -5- 2 ; 3 isolated. Coords on a line so Euclidean fits.
    CsrGraph g;
    g.offsets = {0, 2, 4, 6, 6};
    g.targets = {1, 2, 0, 2, 1, 0};
    g.weights = {1, 5, 1, 1, 1, 5};
    g.coords = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {9, 9, 0}};
    const Agents agents = {{0, 2}, {2, 0}, {1, 1}, {0, 3}, {3, 3}};
    const auto out = gpu::emulate_batch_gpu(g, agents, {}, 2);
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_EQ(out.costs, (std::vector<double>{2, 2, 0, -1, 0}));
    EXPECT_EQ(out.steps[3], 3u);  // the whole component of 0, then nothing left
    // A one-entry heap cannot hold vertex 0's two neighbours: a clear error, not a wrong cost.
    gpu::BatchGpuOptions tiny;
    tiny.heap_capacity = 1;
    const auto overflow = gpu::emulate_batch_gpu(g, {{0, 2}}, tiny, 1);
    EXPECT_NE(overflow.error.find("heap_capacity=1"), std::string::npos) << overflow.error;
}

TEST(BatchGpuEmulated, ParallelEdgesKeepTheCheapest) {
    // Edges are relaxed in batches whose target states are read up front: a later parallel
    // edge must see what an earlier one of its batch wrote. 0 -> 1 three times (2, 7, 9),
    // then 1 -> 2 (1): the cost 0 -> 2 is 3 whatever the batch boundaries.
    CsrGraph g;
    g.offsets = {0, 4, 5, 5};
    g.targets = {1, 1, 1, 2, 2};
    g.weights = {2, 7, 9, 20, 1};
    g.coords = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    const auto out = gpu::emulate_batch_gpu(g, {{0, 2}, {0, 1}}, {}, 1);
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_EQ(out.costs, (std::vector<double>{3, 2}));
}

// ---- on the GPU ----------------------------------------------------------------------------

RunResult run_direct(const char* id, const Problem& problem) {
    return Registry::instance().find(id)->run(problem, RunContext{});
}

void expect_every_strategy_matches(const std::shared_ptr<const CsrGraph>& graph, const Agents& agents,
                                   std::map<std::string, std::string> extra, const std::string& label) {
    const auto truth = dijkstra_costs(*graph, agents);
    for (const char* id : kIds)
        for (const char* memory : {"explicit", "unified"}) {
            Problem p;
            p.roadmap = graph;
            p.agents = agents;
            p.params = extra;
            p.params["memory"] = memory;
            const RunResult r = run_direct(id, p);
            const std::string name = label + " " + id + " memory=" + memory;
            ASSERT_EQ(r.status, RunStatus::Ok) << name << ": " << r.message;
            expect_costs(r.agent_costs, truth, agents, name);
            ASSERT_EQ(r.agent_steps.size(), agents.size()) << name;
            for (std::size_t i = 0; i < agents.size(); ++i)
                if (truth[i] >= 0) {
                    EXPECT_GE(r.agent_steps[i], 1u) << name << " agent " << i;
                }
        }
}

TEST(BatchGpuDevice, EveryStrategyAndMemoryModeMatchesDijkstraOnRoadmaps) {
    PS_REQUIRE_GPU();
    for (double factor : {1.0, 0.3}) {
        auto graph = std::make_shared<const CsrGraph>(geometric_graph(500, 8.0, 21, factor));
        std::vector<Vertex> usable = all_vertices(*graph);
        usable.pop_back();
        const Agents agents = random_pairs(usable, 700, 5, graph->vertex_count() - 1);
        ASSERT_GE(unreachable(dijkstra_costs(*graph, agents)), 2u);
        expect_every_strategy_matches(graph, agents, {}, "roadmap x" + std::to_string(factor));
        for (const char* levels : {"0", "4"})
            expect_every_strategy_matches(graph, agents, {{"shared_levels", levels}},
                                          "roadmap x" + std::to_string(factor) + " shared_levels=" + levels);
    }
}

TEST(BatchGpuDevice, EveryStrategyAndMemoryModeMatchesDijkstraOnGridGraphs) {
    PS_REQUIRE_GPU();
    const auto map = test::generated(GeneratorKind::Random, 48, 40, 9, 0.3);
    const Agents agents = random_pairs(passable_cells(*map), 300, 13, kNoVertex);
    expect_every_strategy_matches(grid_graph(*map, Connectivity::Eight, CostMode::Real), agents, {}, "grid real");
    expect_every_strategy_matches(grid_graph(*map, Connectivity::Eight, CostMode::Integer), agents,
                                  {{"heuristic", "zero"}, {"layout", "interleaved"}, {"order", "longest-first"}},
                                  "grid integer dijkstra interleaved longest-first");
}

TEST(BatchGpuDevice, QueueWithFarMoreAgentsThanThreads) {
    PS_REQUIRE_GPU();
    auto graph = std::make_shared<const CsrGraph>(geometric_graph(300, 10.0, 4, 1.0));
    std::vector<Vertex> usable = all_vertices(*graph);
    usable.pop_back();
    const Agents agents = random_pairs(usable, 2000, 8, graph->vertex_count() - 1);
    const auto truth = dijkstra_costs(*graph, agents);
    for (const char* per : {"1", "3", "64"}) {
        Problem p;
        p.roadmap = graph;
        p.agents = agents;
        p.params = {
            {"grid", "2"}, {"block", "32"}, {"per_dequeue", per}, {"order", per[0] == '3' ? "longest-first" : "index"}};
        const RunResult r = run_direct("batch.gpu.queue", p);
        ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
        // 2 blocks x 32 threads, fewer when there are not enough dequeues for all: slots reused.
        const double threads = std::min(64.0, std::ceil(double(agents.size()) / std::stod(per)));
        EXPECT_EQ(r.counters.at("threads"), threads);
        EXPECT_EQ(r.counters.at("search_slots"), threads);
        expect_costs(r.agent_costs, truth, agents, std::string("queue per_dequeue=") + per);
    }
}

TEST(BatchGpuDevice, ForcedSplitIntoSeveralLaunches) {
    PS_REQUIRE_GPU();
    auto graph = std::make_shared<const CsrGraph>(geometric_graph(2000, 4.0, 12, 1.0));
    std::vector<Vertex> usable = all_vertices(*graph);
    usable.pop_back();
    const Agents agents = random_pairs(usable, 400, 2, graph->vertex_count() - 1);
    const auto truth = dijkstra_costs(*graph, agents);
    // 2000 vertices x 16 bytes = 32 KiB per slot: 2 MiB holds about 60 agents at a time.
    for (const char* id : {"batch.gpu.bsp", "batch.gpu.batch", "batch.gpu.permute"})
        for (const char* memory : {"explicit", "unified"}) {
            Problem p;
            p.roadmap = graph;
            p.agents = agents;
            p.params = {{"max_working_set_mb", "2"}, {"memory", memory}};
            // The plan is said before the run, and the run keeps to it.
            const auto preview = Registry::instance().find(id)->preview(p);
            ASSERT_TRUE(preview.has_value()) << id;
            EXPECT_NE(preview->find("split into"), std::string::npos) << *preview;
            const RunResult r = run_direct(id, p);
            const std::string name = std::string(id) + " " + memory;
            ASSERT_EQ(r.status, RunStatus::Ok) << name << ": " << r.message;
            EXPECT_NE(r.message.find(preview->substr(std::string("memory plan: ").size())), std::string::npos)
                << *preview << " vs " << r.message;
            EXPECT_GT(r.counters.at("launch_chunks"), 1.0) << name;
            EXPECT_LE(r.counters.at("working_set_bytes"), double(2 << 20)) << name;
            EXPECT_NE(r.message.find("split into"), std::string::npos) << r.message;
            expect_costs(r.agent_costs, truth, agents, name);
        }
    // A heap that is too small fails the run with the reason.
    Problem p;
    p.roadmap = graph;
    p.agents = agents;
    p.params = {{"heap_capacity", "2"}};
    const RunResult r = run_direct("batch.gpu.batch", p);
    EXPECT_EQ(r.status, RunStatus::Error);
    EXPECT_NE(r.message.find("heap_capacity=2"), std::string::npos) << r.message;
}

TEST(BatchGpuDevice, ValidatedAgainstBatchCpuThroughTheRunner) {
    PS_REQUIRE_GPU();
    auto graph = std::make_shared<const CsrGraph>(geometric_graph(600, 7.0, 33, 1.0));
    std::vector<Vertex> usable = all_vertices(*graph);
    usable.pop_back();
    for (const char* id : kIds) {
        RunRequest request;
        request.variant_id = id;
        request.problem.roadmap = graph;
        request.problem.agents = random_pairs(usable, 500, 17, graph->vertex_count() - 1);
        request.repeat = 2;  // a second run catches state left over from the first
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << id << ": " << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Passed) << id << ": " << report.result.validation_message;
    }
}

TEST(BatchGpuDevice, BadParametersAndAgentsAreRefusedClearly) {
    PS_REQUIRE_GPU();
    auto graph = std::make_shared<const CsrGraph>(geometric_graph(50, 30.0, 1, 1.0));
    Problem p;
    p.roadmap = graph;
    p.agents = {{0, 1}};
    // Values outside a parameter's spec: refused by the runner, naming the variant once.
    auto through_runner = [&](const char* id) {
        RunRequest request;
        request.variant_id = id;
        request.problem = p;
        return run_variant(request).result.message;
    };
    p.params = {{"block", "100"}};
    EXPECT_EQ(through_runner("batch.gpu.batch"),
              "batch.gpu.batch: block must be a whole number from 32 to 1024, a multiple of 32, got '100'");
    p.params = {{"memory", "magic"}};
    EXPECT_EQ(through_runner("batch.gpu.queue"),
              "batch.gpu.queue: memory must be one of explicit, unified, got 'magic'");
    p.params = {{"shared_levels", "5"}};
    EXPECT_EQ(through_runner("batch.gpu.permute"),
              "batch.gpu.permute: shared_levels must be a whole number from 0 to 4, got '5'");
    p.params = {{"block", "1024"}};  // within the spec, but more threads than the kernel's registers allow
    EXPECT_NE(run_direct("batch.gpu.queue", p).message.find("block must be at most"), std::string::npos);
    p.params = {{"block", "1024"}};  // bsp's kernels take it
    EXPECT_EQ(run_direct("batch.gpu.bsp", p).status, RunStatus::Ok);
    p.params = {};
    p.agents = {{0, 999}};
    const RunResult r = run_direct("batch.gpu.batch", p);
    EXPECT_EQ(r.status, RunStatus::Error);
    EXPECT_NE(r.message.find("not a vertex"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace ps
