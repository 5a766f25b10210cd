// The contract every registered variant keeps, one ctest entry per variant and clause: default
// parameters run and validate against the reference (GPU variants skip with the reason where
// no GPU is), an unknown parameter is refused by name, every declared parameter refuses a bad
// value with a message naming the variant once, a run cancelled before it starts says so, and
// under the "any" corner rule on generated maps the answers equal a search written here.
// A variant gets these tests by being registered.
#include <gtest/gtest.h>

#include <cmath>

#include <limits>
#include <queue>

#include "kernels/graph/agents.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

std::vector<std::string> registered_ids() {
    std::vector<std::string> ids;
    for (const auto& v : Registry::instance().all()) ids.push_back(v->info().id);
    return ids;
}

const Variant& variant(const std::string& id) { return *Registry::instance().find(id); }

// A small problem every variant of the family can run: a map with walls, start and goal in
// opposite corners, the integer metric (the GPU A* variants' only one) and, for the batch
// family, 40 connected agents on the map's grid graph.
RunRequest small_request(const VariantInfo& info) {
    RunRequest r;
    r.variant_id = info.id;
    r.problem.map = test::shared_map({"............", ".####.....#.", "....#..#..#.", "..#.#..#....", "..#....#.##.",
                                      "..######....", "............"});
    r.problem.start = r.problem.map->index(0, 6);
    r.problem.goal = r.problem.map->index(11, 0);
    r.problem.cost_mode = CostMode::Integer;
    r.problem.rules.connectivity = info.family == Family::Bfs ? Connectivity::Four : Connectivity::Eight;
    if (info.family == Family::Batch) {
        const auto graph = r.problem.batch_graph();
        EXPECT_TRUE(bool(graph)) << graph.error().message;
        if (graph) r.problem.agents = random_agents(**graph, AgentOptions{40, 7}).value();
    }
    r.warmup = 0;
    r.repeat = 1;
    return r;
}

// Occurrences of `needle` in `text`.
std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
    return n;
}

// A value the spec must refuse.
std::string bad_value(const ParamSpec& spec) {
    switch (spec.kind) {
    case ParamSpec::Kind::Int:
        return spec.max < INT64_MAX ? std::to_string(spec.max + 1) : "12x";
    case ParamSpec::Kind::Flag:
        return "2";
    case ParamSpec::Kind::Choice:
        return "not-" + spec.default_value;
    }
    return "?";
}

class VariantContract : public testing::TestWithParam<std::string> {};

TEST_P(VariantContract, DefaultParametersRunAndValidate) {
    const Variant& v = variant(GetParam());
    if (auto why = v.unavailable_reason()) GTEST_SKIP() << "unavailable here: " << *why;
    RunRequest request = small_request(v.info());
    for (const ParamSpec& spec : v.info().params) request.problem.params[spec.name] = spec.default_value;
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    EXPECT_TRUE(report.result.validation == Validation::Passed || report.result.validation == Validation::Reference)
        << to_string(report.result.validation) << ": " << report.result.validation_message;
}

TEST_P(VariantContract, DeclaredParametersAreWellFormed) {
    for (const ParamSpec& spec : variant(GetParam()).info().params) {
        EXPECT_FALSE(spec.description.empty()) << spec.name;
        EXPECT_EQ(check_param(spec, spec.default_value), std::nullopt) << spec.name << " refuses its own default";
        if (spec.kind == ParamSpec::Kind::Int) {
            EXPECT_LE(spec.min, spec.max) << spec.name;
        }
        if (spec.kind == ParamSpec::Kind::Choice) {
            EXPECT_GE(spec.choices.size(), 2u) << spec.name;
        }
    }
}

TEST_P(VariantContract, UnknownParameterIsRefusedByName) {
    RunRequest request = small_request(variant(GetParam()).info());
    request.problem.params["no_such_parameter"] = "1";
    const RunReport report = run_variant(request);
    EXPECT_EQ(report.result.status, RunStatus::Error);
    EXPECT_NE(report.result.message.find("'no_such_parameter'"), std::string::npos) << report.result.message;
    EXPECT_EQ(count(report.result.message, GetParam()), 1u) << report.result.message;
}

TEST_P(VariantContract, BadParameterValueNamesVariantOnce) {
    const VariantInfo& info = variant(GetParam()).info();
    for (const ParamSpec& spec : info.params) {
        RunRequest request = small_request(info);
        const std::string value = bad_value(spec);
        request.problem.params[spec.name] = value;
        const RunReport report = run_variant(request);
        const std::string& m = report.result.message;
        EXPECT_EQ(report.result.status, RunStatus::Error) << spec.name << "=" << value;
        EXPECT_EQ(m.rfind(info.id + ": " + spec.name + " must be", 0), 0u) << m;
        EXPECT_EQ(count(m, info.id), 1u) << m;
        EXPECT_NE(m.find("got '" + value + "'"), std::string::npos) << m;
    }
}

TEST_P(VariantContract, CancelledBeforeStartSaysCancelled) {
    RunRequest request = small_request(variant(GetParam()).info());
    std::atomic<bool> cancel{true};
    request.context.cancel = &cancel;
    const RunReport report = run_variant(request);
    if (report.result.status == RunStatus::Unavailable) GTEST_SKIP() << "unavailable here: " << report.result.message;
    EXPECT_EQ(report.result.status, RunStatus::Cancelled) << report.result.message;
    EXPECT_TRUE(report.samples.empty());
}

// Distances from `from` on an 8-connected grid where a diagonal needs only its target free (the
// any rule, spelled out here rather than taken from for_each_grid_neighbour): BFS levels with
// `hops`, else the 1000/1414 metric. -1 where unreached.
std::vector<std::int64_t> any_rule_distances(const GridMap& map, Vertex from, bool hops) {
    std::vector<std::int64_t> dist(map.cell_count(), -1);
    using Item = std::pair<std::int64_t, Vertex>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    dist[from] = 0;
    open.push({0, from});
    while (!open.empty()) {
        const auto [d, v] = open.top();
        open.pop();
        if (d != dist[v]) continue;
        const Cell c = map.cell(v);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if ((dx == 0 && dy == 0) || !map.passable(c.x + dx, c.y + dy)) continue;
                const std::int64_t step = hops ? 1 : (dx != 0 && dy != 0 ? 1414 : 1000);
                const Vertex w = map.index(c.x + dx, c.y + dy);
                if (dist[w] < 0 || d + step < dist[w]) {
                    dist[w] = d + step;
                    open.push({dist[w], w});
                }
            }
    }
    return dist;
}

TEST_P(VariantContract, AnyCornerRuleMatchesAnIndependentSearch) {
    const Variant& v = variant(GetParam());
    if (auto why = v.unavailable_reason()) GTEST_SKIP() << "unavailable here: " << *why;
    const VariantInfo& info = v.info();
    GeneratorParams division;
    division.kind = GeneratorKind::Division;
    division.width = 37;
    division.height = 23;
    division.seed = 2;
    GeneratorParams random = division;
    random.kind = GeneratorKind::Random;
    random.width = 29;
    random.density = 0.35;
    for (const GeneratorParams& gen : {division, random}) {
        const auto map = std::make_shared<const GridMap>(generate_map(gen).value());
        SCOPED_TRACE(map->name);
        RunRequest r;
        r.variant_id = info.id;
        r.problem.map = map;
        r.problem.rules = {Connectivity::Eight, CornerRule::Any};
        r.problem.cost_mode = CostMode::Integer;
        r.problem.start = map->index(*map->start);
        r.problem.goal = map->index(*map->goal);
        r.warmup = 0;
        r.repeat = 1;
        if (info.family == Family::Batch) {
            const auto graph = r.problem.batch_graph();
            ASSERT_TRUE(bool(graph)) << graph.error().message;
            r.problem.agents = random_agents(**graph, AgentOptions{25, 3}).value();
        }
        const RunReport report = run_variant(r);
        if (report.result.status == RunStatus::Unavailable) GTEST_SKIP() << report.result.message;
        // bfs.gpu.tiled works on 4-connected grids only, where no corner rule applies.
        if (report.result.status == RunStatus::Error &&
            report.result.message.find("supports 4-connected grids only") != std::string::npos)
            GTEST_SKIP() << report.result.message;
        // Jump Point Search is for MovingAI's rule only.
        if (report.result.status == RunStatus::Error &&
            report.result.message.find("without corner cutting (MovingAI's rule)") != std::string::npos)
            GTEST_SKIP() << report.result.message;
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        EXPECT_TRUE(report.result.validation == Validation::Passed || report.result.validation == Validation::Reference)
            << report.result.validation_message;
        const bool hops = info.family == Family::Bfs;
        const auto from_goal = any_rule_distances(*map, r.problem.goal, hops);
        switch (info.family) {
        case Family::ShortestPath:
        case Family::Bfs: {
            const std::int64_t truth = from_goal[r.problem.start];
            ASSERT_EQ(report.result.found, truth >= 0);
            if (truth >= 0) {
                // A suboptimal search (weighted A*, greedy) is held to its promise.
                const double bound = report.result.cost_bound.value_or(1.0);
                if (bound == 1.0) {
                    EXPECT_EQ(report.result.cost, double(truth));
                } else {
                    EXPECT_GE(report.result.cost, double(truth));
                    if (!std::isinf(bound)) {
                        EXPECT_LE(report.result.cost, bound * double(truth));
                    }
                }
            }
            if (hops && !report.result.bfs_levels_prefix && !report.result.bfs_levels.empty()) {
                for (Vertex u = 0; u < map->cell_count(); ++u)
                    ASSERT_EQ(report.result.bfs_levels[u], from_goal[u]) << "cell " << u;
            }
            break;
        }
        case Family::FlowField:
            ASSERT_EQ(report.result.bfs_levels.size(), map->cell_count());
            for (Vertex u = 0; u < map->cell_count(); ++u)
                ASSERT_EQ(report.result.bfs_levels[u], from_goal[u]) << "cell " << u;
            break;
        case Family::Batch:
            ASSERT_EQ(report.result.agent_costs.size(), r.problem.agents.size());
            for (std::size_t i = 0; i < r.problem.agents.size(); ++i) {
                const auto [s, g] = r.problem.agents[i];
                const std::int64_t truth = any_rule_distances(*map, g, false)[s];
                EXPECT_EQ(report.result.agent_costs[i], truth >= 0 ? double(truth) : -1.0) << "agent " << i;
            }
            break;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, VariantContract, testing::ValuesIn(registered_ids()),
                         [](const testing::TestParamInfo<std::string>& p) {
                             std::string name = p.param;
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace ps
