// Stored runs read back: a run written by HistoryRecorder and decoded by request_from_row /
// result_from_row gives the request it was made with and the result it had, field by field;
// rows written by hand (older or newer writers, damaged files) decode to defaults or to a clear
// error.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "database/recorder.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;
using test::fresh_db;

std::shared_ptr<const GridMap> shared_map(int side, unsigned salt) {
    return std::make_shared<const GridMap>(test::test_map(side, side, salt));
}

// Records `request` through the orchestrator and returns the stored row.
db::RunRow record(History& h, const RunRequest& request, RunReport& report) {
    db::HistoryRecorder recorder(h);
    report = run_variant(request, &recorder);
    recorder.record(request, report);
    EXPECT_FALSE(recorder.error()) << recorder.error()->message;
    EXPECT_TRUE(recorder.run_id());
    return h.load_run(recorder.run_id().value_or(0), false).value().row;
}

void expect_same_request(const RunRequest& decoded, const RunRequest& original) {
    EXPECT_EQ(decoded.variant_id, original.variant_id);
    EXPECT_EQ(decoded.warmup, original.warmup);
    EXPECT_EQ(decoded.repeat, original.repeat);
    EXPECT_EQ(decoded.validate, original.validate);
    EXPECT_EQ(decoded.context.record, original.context.record);
    const Problem& d = decoded.problem;
    const Problem& o = original.problem;
    EXPECT_EQ(d.rules.connectivity, o.rules.connectivity);
    EXPECT_EQ(d.rules.corners, o.rules.corners);
    EXPECT_EQ(d.cost_mode, o.cost_mode);
    EXPECT_EQ(d.heuristic, o.heuristic);
    EXPECT_EQ(d.bfs_stop_at_start, o.bfs_stop_at_start);
    EXPECT_EQ(d.params, o.params);
    EXPECT_EQ(d.start, o.start);
    EXPECT_EQ(d.goal, o.goal);
    EXPECT_EQ(d.map, o.map);
}

void expect_same_result(const RunResult& decoded, const RunResult& original) {
    EXPECT_EQ(decoded.status, original.status);
    EXPECT_EQ(decoded.message, original.message);
    EXPECT_EQ(decoded.validation, original.validation);
    EXPECT_EQ(decoded.validation_message, original.validation_message);
    EXPECT_EQ(decoded.found, original.found);
    EXPECT_DOUBLE_EQ(decoded.cost, original.cost);
    EXPECT_EQ(decoded.expanded, original.expanded);
    EXPECT_EQ(decoded.levels, original.levels);
    EXPECT_EQ(decoded.visited, original.visited);
}

TEST(StoredRun, ARecordedRunDecodesToItsRequestAndResult) {
    auto h = History::open(fresh_db("stored-run-astar.sqlite"));
    ASSERT_TRUE(h) << h.error().message;
    const auto map = shared_map(40, 5);
    // Every field away from its default, so a field the decoder drops cannot pass unnoticed.
    RunRequest request;
    request.variant_id = "astar.cpu";
    request.problem.map = map;
    request.problem.rules.connectivity = Connectivity::Eight;
    request.problem.rules.corners = CornerRule::Any;
    request.problem.cost_mode = CostMode::Integer;
    request.problem.heuristic = Heuristic::Manhattan;
    request.problem.bfs_stop_at_start = true;
    request.problem.start = map->index(*nearest_passable(*map, {2, 3}));
    // test_map blocks the diagonals x = y (mod 5), which cut it into strips: the goal shares the
    // start's, so the search finds a path.
    request.problem.goal = map->index(*nearest_passable(*map, {33, 35}));
    request.repeat = 2;
    request.warmup = 1;
    request.validate = false;
    request.context.record = true;
    RunReport report;
    const db::RunRow row = record(*h, request, report);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;

    auto decoded = db::request_from_row(row, map);
    ASSERT_TRUE(decoded) << decoded.error().message;
    expect_same_request(*decoded, request);
    const RunResult result = db::result_from_row(row);
    expect_same_result(result, report.result);
    EXPECT_TRUE(result.found);
    EXPECT_DOUBLE_EQ(result.phases.total_ms, report.stats.total.median);
    EXPECT_DOUBLE_EQ(result.phases.compute_ms, report.stats.compute.median);
}

TEST(StoredRun, VariantParametersAndARefusalComeBack) {
    auto h = History::open(fresh_db("stored-run-gpu.sqlite"));
    ASSERT_TRUE(h) << h.error().message;
    const auto map = shared_map(24, 6);
    // A GPU variant with parameters: refused as unavailable without a GPU, run with one; either
    // way the stored row must decode to what was asked and what happened.
    RunRequest request;
    request.variant_id = "bfs.gpu.frontier";
    request.problem.map = map;
    request.problem.rules.connectivity = Connectivity::Four;
    request.problem.params = {{"frontier_alloc", "once"}, {"block_size", "128"}};
    request.problem.start = map->index(*nearest_passable(*map, {0, 0}));
    request.problem.goal = map->index(*nearest_passable(*map, {23, 23}));
    request.repeat = 3;
    RunReport report;
    const db::RunRow row = record(*h, request, report);
    auto decoded = db::request_from_row(row, map);
    ASSERT_TRUE(decoded) << decoded.error().message;
    expect_same_request(*decoded, request);
    expect_same_result(db::result_from_row(row), report.result);

    // A run refused before it had a variant keeps its status and message too.
    request.variant_id = "no.such.variant";
    const db::RunRow refused = record(*h, request, report);
    ASSERT_EQ(report.result.status, RunStatus::Error);
    const RunResult result = db::result_from_row(refused);
    EXPECT_EQ(result.status, RunStatus::Error);
    EXPECT_NE(result.message.find("unknown variant"), std::string::npos) << result.message;
}

TEST(StoredRun, MissingOrForeignFieldsKeepTheDefaults) {
    const auto map = shared_map(16, 7);
    db::RunRow row;
    row.id = 9;
    row.info.variant = "astar.cpu";
    row.info.warmup = 2;
    row.repetitions = 5;
    row.info.start_x = 1, row.info.start_y = 1;
    row.info.goal_x = 16, row.info.goal_y = 3;  // outside the 16x16 map
    // Empty (a run stored before parameters were), and fields of unexpected types or values.
    for (const char* params : {"", "{}",
                               R"({"connectivity":"4","repeat":2.5,"validate":"no","record":1,)"
                               R"("cost_mode":"fuzzy","heuristic":7,"params":["a"],"future":{"x":[]}})"}) {
        SCOPED_TRACE(params);
        row.info.params_json = params;
        auto r = db::request_from_row(row, map);
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(r->variant_id, "astar.cpu");
        EXPECT_EQ(r->warmup, 2);
        EXPECT_EQ(r->repeat, 5);  // the stored repetitions stand in for a missing count
        EXPECT_TRUE(r->validate);
        EXPECT_FALSE(r->context.record);
        EXPECT_EQ(r->problem.rules.connectivity, Connectivity::Eight);
        EXPECT_EQ(r->problem.rules.corners, CornerRule::None);
        EXPECT_EQ(r->problem.cost_mode, CostMode::Real);
        EXPECT_EQ(r->problem.heuristic, Heuristic::Octile);
        EXPECT_TRUE(r->problem.params.empty());
        EXPECT_EQ(r->problem.start, map->index(1, 1));
        EXPECT_EQ(r->problem.goal, kNoVertex);
    }
    // Without a map (it failed before it had one) the endpoints stay unset.
    row.info.params_json = "{}";
    auto no_map = db::request_from_row(row, nullptr);
    ASSERT_TRUE(no_map);
    EXPECT_EQ(no_map->problem.start, kNoVertex);
    EXPECT_EQ(no_map->problem.map, nullptr);

    // A status or validation text the writer never made reads as an error and as not run.
    row.summary.status = "exploded";
    row.summary.validation = "maybe";
    const RunResult result = db::result_from_row(row);
    EXPECT_EQ(result.status, RunStatus::Error);
    EXPECT_EQ(result.validation, Validation::NotRun);
}

TEST(StoredRun, EveryCornerRuleIsStoredAsTextAndComesBack) {
    auto h = History::open(fresh_db("stored-run-corners.sqlite"));
    ASSERT_TRUE(h) << h.error().message;
    const auto map = shared_map(12, 8);
    for (CornerRule rule : {CornerRule::None, CornerRule::One, CornerRule::Any}) {
        SCOPED_TRACE(std::string(to_string(rule)));
        RunRequest request;
        request.variant_id = "astar.cpu";
        request.problem.map = map;
        request.problem.rules = {Connectivity::Eight, rule};
        request.problem.start = map->index(*nearest_passable(*map, {0, 0}));
        request.problem.goal = map->index(*nearest_passable(*map, {11, 11}));
        RunReport report;
        const db::RunRow row = record(*h, request, report);
        EXPECT_NE(row.info.params_json.find("\"corners\":\"" + std::string(to_string(rule)) + "\""), std::string::npos)
            << row.info.params_json;
        auto decoded = db::request_from_row(row, map);
        ASSERT_TRUE(decoded) << decoded.error().message;
        expect_same_request(*decoded, request);
    }
}

TEST(StoredRun, RowsFromBeforeTheThirdCornerRuleStillRead) {
    // Older writers stored a boolean "corner_cutting" (true: one orthogonal cell free); a text
    // "corners" wins over it, and a rule this reader does not know falls back to the boolean.
    const struct {
        const char* params;
        CornerRule expected;
    } cases[] = {
        {R"({"connectivity":8,"corner_cutting":true})", CornerRule::One},
        {R"({"connectivity":8,"corner_cutting":false})", CornerRule::None},
        {R"({"connectivity":8,"corners":"any"})", CornerRule::Any},
        {R"({"connectivity":8,"corners":"one"})", CornerRule::One},
        {R"({"connectivity":8,"corners":"none","corner_cutting":true})", CornerRule::None},
        {R"({"connectivity":8,"corners":"sideways","corner_cutting":true})", CornerRule::One},
        {R"({"connectivity":8,"corners":2})", CornerRule::None},
    };
    db::RunRow row;
    row.id = 4;
    row.info.variant = "astar.cpu";
    for (const auto& c : cases) {
        SCOPED_TRACE(c.params);
        row.info.params_json = c.params;
        auto r = db::request_from_row(row, nullptr);
        ASSERT_TRUE(r) << r.error().message;
        EXPECT_EQ(r->problem.rules.corners, c.expected);
    }
}

TEST(StoredRun, DamagedParametersAreAClearError) {
    db::RunRow row;
    row.id = 42;
    row.info.variant = "astar.cpu";
    const struct {
        std::string params;
        const char* why;
    } cases[] = {
        {"{not json", "expected a key in quotes, found 'n' at line 1, column 2"},
        {R"({"repeat":3)", "expected ',' or '}' in an object, found end of text at line 1, column 12"},
        {"[1, 2]", "it is an array"},
        {"\"text\"", "it is a string"},
        {std::string(300'000, '['), "more than the 262144 it may have"},
        {std::string(100, '['), "nested deeper than 32 levels"},
    };
    for (const auto& c : cases) {
        row.info.params_json = c.params;
        auto r = db::request_from_row(row, nullptr);
        ASSERT_FALSE(r) << c.params.substr(0, 80);
        EXPECT_EQ(r.error().kind, ErrorKind::Invalid);
        EXPECT_EQ(r.error().message.rfind("run 42: its stored parameters are not a JSON object (", 0), 0u)
            << r.error().message;
        EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().message;
    }
}

}  // namespace
}  // namespace ps
