// Run bundles (docs/bundle.md): the chosen runs of a history in one file with their maps,
// samples, recordings (levels, search events, path) and timeline events, byte for byte; a
// bundle imports into another history once; a failed export leaves the target file as it was;
// a bundle of a newer schema is refused with a message; the file needs nothing beside it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "database/recorder.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;
using test::fresh_db;

// Three stored runs: a recorded BFS, a recorded A* with a synthetic timeline, a plain A*.
struct Source {
    std::string path;
    std::int64_t bfs = 0, astar = 0, plain = 0;
};

Source make_source(const std::string& name) {
    Source s{fresh_db(name)};
    auto h = History::open(s.path);
    EXPECT_TRUE(h) << h.error().message;
    const auto map = std::make_shared<const GridMap>(test::test_map(48, 48, 4));
    db::HistoryRecorder recorder(*h);
    auto store = [&](const std::string& variant, bool record, bool traced) {
        RunRequest r;
        r.variant_id = variant;
        r.problem.map = map;
        r.problem.rules.connectivity = variant.rfind("bfs", 0) == 0 ? Connectivity::Four : Connectivity::Eight;
        r.problem.start = map->index(*nearest_passable(*map, {0, 0}));
        r.problem.goal = map->index(*nearest_passable(*map, {47, 47}));
        r.repeat = 2;
        r.context.record = record;
        RunReport report = run_variant(r, &recorder);
        recorder.record(r, report);
        EXPECT_FALSE(recorder.error()) << recorder.error()->message;
        const std::int64_t id = *recorder.run_id();
        if (traced) {  // what a traced GPU run would bring: a kernel per level
            auto timeline = std::make_shared<trace::Timeline>();
            const auto track = timeline->add_track(trace::TrackKind::GpuStream, 7, "stream 7");
            for (int level = 0; level < 5; ++level) {
                trace::Event e;
                e.kind = trace::EventKind::Kernel;
                e.name = "level_kernel";
                e.track = track;
                e.start_ns = 1000 + level * 100;
                e.end_ns = e.start_ns + 60;
                e.level = level;
                timeline->events.push_back(e);
            }
            EXPECT_TRUE(h->add_events(id, db::encode_timeline(*timeline)));
        }
        return id;
    };
    s.bfs = store("bfs.cpu.queue", true, false);
    s.astar = store("astar.cpu", true, true);
    s.plain = store("astar.cpu", false, false);
    return s;
}

std::vector<std::uint8_t> recording(const History& h, std::int64_t id, const char* kind) {
    auto bytes = h.load_recording(id, kind);
    EXPECT_TRUE(bytes) << kind << ": " << bytes.error().message;
    return bytes ? *bytes : std::vector<std::uint8_t>{};
}

// The run of `h` whose origin is `origin` (ids differ between files; origins do not).
db::RunDetails by_origin(const History& h, const std::string& origin) {
    for (const db::RunRow& row : h.list_runs().value())
        if (row.origin_id == origin) return h.load_run(row.id, true).value();
    ADD_FAILURE() << "no run of origin " << origin << " in " << h.path();
    return {};
}

TEST(HistoryBundle, HoldsTheChosenRunsWithEverythingTheyRecorded) {
    const Source src = make_source("bundle-source.sqlite");
    const auto source = History::open(src.path, db::OpenMode::ReadOnly).value();
    const std::string out = fresh_db("runs.psbundle");
    auto written = source.export_bundle({src.astar, src.bfs}, out);
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(*written, 2u);
    // One file: nothing beside it, before or after a reader opens it.
    for (const char* suffix : {".part", "-wal", "-shm"}) EXPECT_FALSE(std::filesystem::exists(out + suffix)) << suffix;

    const auto bundle = History::open(out, db::OpenMode::ReadOnly).value();
    const auto rows = bundle.list_runs().value();
    ASSERT_EQ(rows.size(), 2u);
    for (const std::int64_t id : {src.bfs, src.astar}) {
        const db::RunDetails original = source.load_run(id, true).value();
        const db::RunDetails copy = by_origin(bundle, original.row.origin_id);
        EXPECT_EQ(copy.row.info.variant, original.row.info.variant);
        EXPECT_EQ(copy.row.summary.cost, original.row.summary.cost);
        EXPECT_EQ(copy.samples.size(), original.samples.size());
        EXPECT_EQ(copy.events.size(), original.events.size());
        EXPECT_EQ(copy.recording_kinds, original.recording_kinds);
        for (const std::string& kind : original.recording_kinds)
            EXPECT_EQ(recording(bundle, copy.row.id, kind.c_str()), recording(source, id, kind.c_str())) << kind;
        EXPECT_EQ(bundle.load_map(copy.row.info.map_id).value(), source.load_map(original.row.info.map_id).value());
    }
    EXPECT_EQ(by_origin(bundle, source.load_run(src.astar, false).value().row.origin_id).events.size(), 5u);
    for (const char* suffix : {"-wal", "-shm"}) EXPECT_FALSE(std::filesystem::exists(out + suffix)) << suffix;

    // Into another history: the two runs, once.
    auto other = History::open(fresh_db("bundle-target.sqlite")).value();
    EXPECT_EQ(other.import_from(out).value(), 2u);
    EXPECT_EQ(other.import_from(out).value(), 0u);
    EXPECT_EQ(other.list_runs().value().size(), 2u);
}

TEST(HistoryBundle, AWeightedMapKeepsItsCostsThroughBundleAndImport) {
    const std::string path = fresh_db("weighted-source.sqlite");
    std::int64_t id = 0;
    GridMap terrain = test::test_map(40, 30, 6);
    add_terrain_costs(terrain, 30, 6);
    ASSERT_TRUE(terrain.weighted());
    {
        auto h = History::open(path).value();
        const auto map = std::make_shared<const GridMap>(terrain);
        db::HistoryRecorder recorder(h);
        RunRequest r;
        r.variant_id = "astar.cpu";
        r.problem.map = map;
        r.problem.start = map->index(*nearest_passable(*map, {0, 0}));
        r.problem.goal = map->index(*nearest_passable(*map, {39, 29}));
        RunReport report = run_variant(r, &recorder);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << report.result.message;
        recorder.record(r, report);
        id = *recorder.run_id();
    }
    const auto source = History::open(path, db::OpenMode::ReadOnly).value();
    const std::string out = fresh_db("weighted.psbundle");
    ASSERT_TRUE(source.export_bundle({id}, out));
    auto other = History::open(fresh_db("weighted-target.sqlite")).value();
    EXPECT_EQ(other.import_from(out).value(), 1u);
    const db::RunRow row = other.list_runs().value().front();
    const GridMap back = other.load_map(row.info.map_id).value();
    EXPECT_EQ(back.cells(), terrain.cells());
    EXPECT_EQ(row.summary.cost, source.load_run(id, false).value().row.summary.cost);
}

TEST(HistoryBundle, AFailedExportLeavesTheFileAsItWas) {
    const Source src = make_source("bundle-fail.sqlite");
    const auto source = History::open(src.path, db::OpenMode::ReadOnly).value();
    const std::string out = fresh_db("kept.psbundle");
    {
        std::ofstream keep(out);
        keep << "the bundle from before";
    }
    auto written = source.export_bundle({src.bfs, 9999}, out);
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("9999"), std::string::npos) << written.error().message;
    EXPECT_EQ(test::file_bytes(out), "the bundle from before");
    EXPECT_FALSE(std::filesystem::exists(out + ".part"));
    EXPECT_FALSE(source.export_bundle({src.bfs}, src.path));  // never over its own history
    EXPECT_FALSE(source.export_bundle({src.bfs}, (std::filesystem::path(out) / "no" / "such.psbundle").string()));
}

TEST(HistoryBundle, ABundleOfANewerSchemaIsRefusedWithAMessage) {
    const Source src = make_source("bundle-newer.sqlite");
    const auto source = History::open(src.path, db::OpenMode::ReadOnly).value();
    const std::string out = fresh_db("newer.psbundle");
    ASSERT_TRUE(source.export_bundle({}, out));  // every run
    EXPECT_EQ(History::open(out, db::OpenMode::ReadOnly).value().list_runs().value().size(), 3u);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(out.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    auto opened = History::open(out, db::OpenMode::ReadOnly);
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().message.find("newer PathScope"), std::string::npos) << opened.error().message;
    auto target = History::open(fresh_db("newer-target.sqlite")).value();
    auto imported = target.import_from(out);
    ASSERT_FALSE(imported);
    EXPECT_NE(imported.error().message.find("newer PathScope"), std::string::npos) << imported.error().message;
}

}  // namespace
}  // namespace ps
