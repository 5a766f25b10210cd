// The contract every registered variant keeps, one ctest entry per variant and clause: default
// parameters run and validate against the reference (GPU variants skip with the reason where
// no GPU is), an unknown parameter is refused by name, every declared parameter refuses a bad
// value with a message naming the variant once, and a run cancelled before it starts says so.
// A variant gets these tests by being registered.
#include <gtest/gtest.h>

#include "kernels/graph/agents.hpp"
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

INSTANTIATE_TEST_SUITE_P(AllVariants, VariantContract, testing::ValuesIn(registered_ids()),
                         [](const testing::TestParamInfo<std::string>& p) {
                             std::string name = p.param;
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace ps
