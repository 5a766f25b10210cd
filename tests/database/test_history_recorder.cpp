// HistoryRecorder storing real runs of the orchestrator (completed, refused, cancelled, and
// with a history it cannot write), and the byte layouts of the recordings it writes.
#include <gtest/gtest.h>

#include <atomic>

#include "database/recorder.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;
using test::fresh_db;

RunRequest request_on(std::shared_ptr<const GridMap> map, const std::string& variant, Family family) {
    RunRequest r;
    r.variant_id = variant;
    r.problem.map = map;
    r.problem.rules.connectivity = family == Family::Bfs ? Connectivity::Four : Connectivity::Eight;
    r.problem.start = map->index(*nearest_passable(*map, {0, 0}));
    r.problem.goal = map->index(*nearest_passable(*map, {map->width() - 1, map->height() - 1}));
    r.repeat = 3;
    r.warmup = 1;
    return r;
}

std::shared_ptr<const GridMap> shared_map(int side, unsigned salt) {
    return std::make_shared<const GridMap>(test::test_map(side, side, salt));
}

TEST(HistoryRecorder, StoresABfsRunWithItsLevels) {
    auto h = History::open(fresh_db("recorder-bfs.sqlite"));
    ASSERT_TRUE(h) << h.error().message;
    const auto map = shared_map(64, 1);
    const RunRequest request = request_on(map, "bfs.cpu.queue", Family::Bfs);
    db::HistoryRecorder recorder(*h);
    recorder.set_map_provenance("--gen random --size 64", 17);
    const RunReport report = run_variant(request, &recorder);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
    recorder.record(request, report);
    ASSERT_FALSE(recorder.error()) << recorder.error()->message;
    ASSERT_TRUE(recorder.run_id());

    auto d = h->load_run(*recorder.run_id());
    ASSERT_TRUE(d) << d.error().message;
    const db::RunRow& r = d->row;
    EXPECT_EQ(r.summary.status, "ok");
    EXPECT_EQ(r.info.variant, "bfs.cpu.queue");
    EXPECT_EQ(r.info.family, "bfs");
    EXPECT_EQ(r.info.device_kind, "cpu");
    EXPECT_EQ(r.info.device_name, db::cpu_model());
    EXPECT_EQ(r.info.host, db::host_name());
    EXPECT_FALSE(r.info.build_commit.empty());
    EXPECT_EQ(r.info.warmup, 1);
    EXPECT_NE(r.info.params_json.find("\"connectivity\":4"), std::string::npos) << r.info.params_json;
    EXPECT_NE(r.info.params_json.find("\"heuristic\":"), std::string::npos);
    const Cell goal = map->cell(request.problem.goal);
    EXPECT_EQ(r.info.goal_x, goal.x);
    EXPECT_EQ(r.info.goal_y, goal.y);
    EXPECT_EQ(r.summary.levels, report.result.levels);
    EXPECT_EQ(r.summary.visited, report.result.visited);
    EXPECT_EQ(r.summary.validation, std::string(to_string(report.result.validation)));
    EXPECT_EQ(r.repetitions, 3);
    ASSERT_EQ(d->samples.size(), 3u);
    EXPECT_DOUBLE_EQ(d->samples[2].total_ms, report.samples[2].total_ms);
    EXPECT_DOUBLE_EQ(r.total_mean_ms, report.stats.total.mean);
    EXPECT_DOUBLE_EQ(r.total_median_ms, report.stats.total.median);

    auto bytes = h->load_recording(r.id, db::kBfsLevelsKind);
    ASSERT_TRUE(bytes) << bytes.error().message;
    auto levels = db::decode_bfs_levels(*bytes);
    ASSERT_TRUE(levels);
    EXPECT_EQ(*levels, report.result.bfs_levels);

    auto maps = h->list_maps().value();
    ASSERT_EQ(maps.size(), 1u);
    EXPECT_EQ(maps[0].generator, "--gen random --size 64");
    EXPECT_EQ(maps[0].seed, std::optional<std::uint64_t>(17));
    EXPECT_EQ(h->load_map(maps[0].id).value(), *map);
}

TEST(HistoryRecorder, StoresSearchEventsAndReusesTheMap) {
    auto h = History::open(fresh_db("recorder-astar.sqlite"));
    ASSERT_TRUE(h);
    const auto map = shared_map(48, 2);
    db::HistoryRecorder recorder(*h);
    for (const char* variant : {"astar.cpu", "dijkstra.cpu"}) {
        RunRequest request = request_on(map, variant, Family::ShortestPath);
        request.context.record = true;
        const RunReport report = run_variant(request, &recorder);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        recorder.record(request, report);
        ASSERT_FALSE(recorder.error()) << recorder.error()->message;
        ASSERT_TRUE(report.result.recording);
        auto bytes = h->load_recording(*recorder.run_id(), db::kSearchEventsKind);
        ASSERT_TRUE(bytes) << bytes.error().message;
        auto decoded = db::decode_search_events(*bytes);
        ASSERT_TRUE(decoded) << decoded.error().message;
        const SearchRecording& original = *report.result.recording;
        EXPECT_EQ(decoded->steps, original.steps);
        EXPECT_EQ(decoded->vertex_stride, original.vertex_stride);
        ASSERT_EQ(decoded->events.size(), original.events.size());
        for (std::size_t i = 0; i < original.events.size(); ++i) {
            EXPECT_EQ(decoded->events[i].vertex, original.events[i].vertex);
            EXPECT_EQ(decoded->events[i].step, original.events[i].step);
            EXPECT_EQ(decoded->events[i].kind, original.events[i].kind);
        }
        // The path, so that a replay of the stored run ends on it as the live one did.
        ASSERT_FALSE(report.result.path.empty());
        auto path = h->load_recording(*recorder.run_id(), db::kPathKind);
        ASSERT_TRUE(path) << path.error().message;
        EXPECT_EQ(db::decode_path(*path).value(), report.result.path);
        const auto row = h->load_run(*recorder.run_id(), false).value().row;
        EXPECT_DOUBLE_EQ(row.summary.cost, report.result.cost);
        EXPECT_EQ(row.summary.expanded, report.result.expanded);
        EXPECT_TRUE(row.summary.found);
    }
    EXPECT_EQ(h->list_maps().value().size(), 1u);
    EXPECT_EQ(h->list_runs().value().size(), 2u);
}

TEST(HistoryRecorder, StoresRefusedAndCancelledRunsWithTheirStatus) {
    auto h = History::open(fresh_db("recorder-failures.sqlite"));
    ASSERT_TRUE(h);
    const auto map = shared_map(16, 3);
    db::HistoryRecorder recorder(*h);
    struct Case {
        const char* variant;
        bool cancel;
        const char* status;
        const char* message;
    };
    const Case cases[] = {{"no.such.variant", false, "error", "unknown variant"},
                          {"astar.cpu", true, "cancelled", "cancelled"},
                          {"astar.cpu", false, "ok", ""}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.variant);
        std::atomic<bool> cancel{c.cancel};
        RunRequest request = request_on(map, c.variant, Family::ShortestPath);
        request.context.cancel = &cancel;
        const RunReport report = run_variant(request, &recorder);
        recorder.record(request, report);
        ASSERT_FALSE(recorder.error()) << recorder.error()->message;
        ASSERT_TRUE(recorder.run_id());
        const auto row = h->load_run(*recorder.run_id(), false).value().row;
        EXPECT_EQ(row.info.variant, c.variant);
        EXPECT_EQ(row.summary.status, c.status);
        EXPECT_NE(row.summary.message.find(c.message), std::string::npos) << row.summary.message;
        EXPECT_GT(row.finished_unix_ms, 0);
    }
    EXPECT_EQ(h->list_runs().value().size(), 3u);
}

TEST(HistoryRecorder, AStorageFailureIsKeptAndNeverStopsTheRun) {
    const std::string path = fresh_db("recorder-read-only.sqlite");
    ASSERT_TRUE(History::open(path));
    auto h = History::open(path, db::OpenMode::ReadOnly);
    ASSERT_TRUE(h);
    db::HistoryRecorder recorder(*h);
    const auto map = shared_map(16, 4);
    const RunRequest request = request_on(map, "astar.cpu", Family::ShortestPath);
    const RunReport report = run_variant(request, &recorder);
    recorder.record(request, report);
    EXPECT_EQ(report.result.status, RunStatus::Ok);
    ASSERT_TRUE(recorder.error().has_value());
    EXPECT_NE(recorder.error()->message.find("read-only"), std::string::npos) << recorder.error()->message;
    EXPECT_FALSE(recorder.run_id());
}

TEST(HistoryCodec, RecordingLayoutsRoundTrip) {
    const std::vector<std::int32_t> levels = {0, 1, -1, 2147483647, -2147483647 - 1, 7};
    const auto bytes = db::encode_bfs_levels(levels);
    ASSERT_EQ(bytes.size(), 24u);
    EXPECT_EQ(bytes[4], 1u);  // little-endian
    EXPECT_EQ(bytes[8], 0xFFu);
    EXPECT_EQ(db::decode_bfs_levels(bytes).value(), levels);
    EXPECT_FALSE(db::decode_bfs_levels(std::vector<std::uint8_t>(5)));

    SearchRecording rec;
    rec.vertex_stride = 3;
    rec.steps = 9;
    rec.truncated = true;
    rec.add(300, 0, SearchRecording::Open, 0);
    rec.add(0xFFFFFFF0u, 8, SearchRecording::Close, 1);
    const auto encoded = db::encode_search_events(rec);
    ASSERT_EQ(encoded.size(), 24u + 2 * 10u);
    EXPECT_EQ(std::string(encoded.begin(), encoded.begin() + 4), "PSE1");
    auto decoded = db::decode_search_events(encoded);
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(decoded->vertex_stride, 3u);
    EXPECT_EQ(decoded->steps, 9u);
    EXPECT_TRUE(decoded->truncated);
    ASSERT_EQ(decoded->events.size(), 2u);
    EXPECT_EQ(decoded->events[1].vertex, 0xFFFFFFF0u);
    EXPECT_EQ(decoded->events[1].step, 8u);
    EXPECT_EQ(decoded->events[1].kind, SearchRecording::Close);
    EXPECT_EQ(decoded->events[1].direction, 1u);
    EXPECT_FALSE(db::decode_search_events({encoded.begin(), encoded.end() - 1}));
    EXPECT_FALSE(db::decode_search_events(std::vector<std::uint8_t>(30, 0)));
}

}  // namespace
}  // namespace ps
