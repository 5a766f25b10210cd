// The history against damaged and hostile files: stored sizes that lie, and SQLite files
// crafted with the sqlite3 C API (huge blobs, wrong column types, negative sizes, duplicate
// ids, missing tables) given to import. Each must be refused with a message or handled
// safely, never throw, and never leave the target half-written.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "instrumentation/timeline/timeline.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;
using test::fresh_db;

// A history with one finished run holding a two-chunk recording; returns the run id.
std::int64_t history_with_recording(const std::string& path) {
    auto h = History::open(path);
    EXPECT_TRUE(h) << h.error().message;
    if (!h) return 0;
    const std::int64_t id = test::store_test_run(*h, h->save_map(test::test_map(16, 16, 1)).value());
    EXPECT_TRUE(h->add_recording(id, "bfs_levels", std::vector<std::uint8_t>(db::kRecordingChunkBytes + 100, 7)));
    return id;
}

TEST(HistoryDamage, ALyingRawSizeIsAnErrorNotAnException) {
    const std::string path = fresh_db("damaged-raw-size.sqlite");
    const std::int64_t id = history_with_recording(path);
    for (const char* raw_size : {"-1", "4611686018427387904", "1099511627776", "0", "'many'"}) {
        {
            test::RawDb raw(path);
            ASSERT_EQ(raw.exec(std::string("UPDATE recordings SET raw_size = ") + raw_size + " WHERE chunk = 0"),
                      SQLITE_OK);
        }
        auto h = History::open(path, db::OpenMode::ReadOnly);
        ASSERT_TRUE(h) << h.error().message;
        Expected<std::vector<std::uint8_t>> loaded = Error{"not run"};
        EXPECT_NO_THROW(loaded = h->load_recording(id, "bfs_levels")) << "raw_size " << raw_size;
        ASSERT_FALSE(loaded) << "raw_size " << raw_size;
        EXPECT_NE(loaded.error().message.find("damaged"), std::string::npos) << loaded.error().message;
        EXPECT_NE(loaded.error().message.find("bfs_levels"), std::string::npos) << loaded.error().message;
    }
}

// ---- import keyed on a unique origin id ------------------------------------------------------

std::set<std::string> origin_ids(const std::string& path) {
    std::set<std::string> out;
    test::RawDb raw(path, SQLITE_OPEN_READONLY);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(raw.get(), "SELECT origin_id FROM runs", -1, &s, nullptr) != SQLITE_OK) {
        ADD_FAILURE() << path << ": " << sqlite3_errmsg(raw.get());
        return out;
    }
    while (sqlite3_step(s) == SQLITE_ROW) out.insert(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    sqlite3_finalize(s);
    return out;
}

TEST(HistoryOrigin, RunsMadeInOneMillisecondAreAllImportedOnce) {
    const std::string source = fresh_db("origin-source.sqlite");
    const std::string target = fresh_db("origin-target.sqlite");
    {
        auto h = History::open(source);
        ASSERT_TRUE(h) << h.error().message;
        const auto map = h->save_map(test::test_map(16, 16, 1)).value();
        for (int i = 0; i < 8; ++i) test::store_test_run(*h, map, "bfs.cpu.queue", 3);
    }
    {
        test::RawDb raw(source);  // a sweep's runs, as fast machines make them
        ASSERT_EQ(raw.exec("UPDATE runs SET created_unix_ms = 1700000000123"), SQLITE_OK);
    }
    auto dst = History::open(target);
    ASSERT_TRUE(dst) << dst.error().message;
    auto added = dst->import_from(source);
    ASSERT_TRUE(added) << added.error().message;
    EXPECT_EQ(*added, 8u);
    auto again = dst->import_from(source);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(*again, 0u);
    EXPECT_EQ(dst->list_runs().value().size(), 8u);
    const auto ids = origin_ids(source);
    EXPECT_EQ(ids.size(), 8u);
    for (const auto& id : ids) EXPECT_EQ(id.size(), 32u) << id;
    EXPECT_EQ(origin_ids(target), ids) << "import keeps the original ids";

    // A third history that gets the runs by way of the second sees them as the same runs.
    const std::string third = fresh_db("origin-third.sqlite");
    auto h3 = History::open(third);
    ASSERT_TRUE(h3);
    EXPECT_EQ(h3->import_from(target).value(), 8u);
    EXPECT_EQ(h3->import_from(source).value(), 0u);
    EXPECT_EQ(origin_ids(third), ids);
}

TEST(HistoryOrigin, MigrationGivesEveryOldRunItsOwnId) {
    const std::string path = fresh_db("origin-v2.sqlite");
    ASSERT_TRUE(History::create_at_version(path, 2));
    {
        test::RawDb raw(path);
        for (int i = 0; i < 5; ++i)
            ASSERT_EQ(raw.exec("INSERT INTO runs (created_unix_ms, variant, status) VALUES (1000, 'bfs.cpu', 'ok')"),
                      SQLITE_OK);
    }
    // Read-only import of the old file, before and after it is migrated: the same ids.
    const std::string early = fresh_db("origin-v2-early.sqlite");
    auto e = History::open(early);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->import_from(path).value(), 5u);
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->schema_version(), db::kSchemaVersion);
    const auto ids = origin_ids(path);
    EXPECT_EQ(ids.size(), 5u);
    EXPECT_EQ(origin_ids(early), ids);
    EXPECT_EQ(e->import_from(path).value(), 0u);
    auto fresh = h->begin_run(test::test_run_info(0));
    ASSERT_TRUE(fresh);
    EXPECT_EQ(origin_ids(path).size(), 6u);
}

// ---- numbers in the timeline payload, whatever the locale ------------------------------------

trace::Timeline timeline_with_load(double load) {
    trace::Timeline t;
    trace::Event e = test::kernel_event(t, "agents", 100, 200);
    e.kind = trace::EventKind::AgentLoad;
    e.load = load;
    t.events.push_back(e);
    return t;
}

TEST(HistoryNumbers, TimelinePayloadWritesShortestRoundTripNumbers) {
    for (double load : {0.1, 0.25, 1e-300, 12345.678901234567}) {
        const auto rows = db::encode_timeline(timeline_with_load(load));
        ASSERT_EQ(rows.size(), 1u);
        char expected[64];
        auto [end, ec] = std::to_chars(expected, expected + sizeof expected, load);
        ASSERT_EQ(ec, std::errc());
        EXPECT_NE(rows[0].payload.find("\"load\":" + std::string(expected, end) + "}"), std::string::npos)
            << rows[0].payload;
        EXPECT_EQ(db::decode_timeline(rows).events.at(0).load, load);
    }
    // Payloads of other writers: spaces, other key order, unknown keys.
    db::TimelineEvent row{"agent load",
                          "agents",
                          "lane 0",
                          1,
                          2,
                          0,
                          R"({"load": 0.5, "level": 7, "extra": [1, {"x": "y"}], "track_kind": "gpu-stream"})"};
    const auto decoded = db::decode_timeline({row});
    EXPECT_EQ(decoded.events.at(0).load, 0.5);
    EXPECT_EQ(decoded.events.at(0).level, 7);
}

// A comma-decimal locale: installed, or built from the locale sources into a scratch folder.
bool set_comma_locale() {
    for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8"})
        if (std::setlocale(LC_ALL, name)) return true;
    const std::string dir = test::temp_path("locales");
    const std::string cmd = "localedef -i de_DE -f UTF-8 " + dir + "/de_DE.UTF-8 >/dev/null 2>&1";
    if (std::system(("mkdir -p " + dir + " && " + cmd).c_str()) != 0) return false;
    ::setenv("LOCPATH", dir.c_str(), 1);
    return std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
}

TEST(HistoryNumbers, TimelinePayloadIsTheSameUnderACommaDecimalLocale) {
    if (!set_comma_locale())
        GTEST_SKIP() << "no comma-decimal locale: de_DE.UTF-8 is not installed and localedef could not build it "
                        "(Debian: apt-get install locales); TimelinePayloadWritesShortestRoundTripNumbers checks "
                        "the same text without one";
    char probe[16];
    std::snprintf(probe, sizeof probe, "%.2f", 0.25);
    const std::string probe_text = probe;
    const auto rows = db::encode_timeline(timeline_with_load(0.25));
    const auto decoded = db::decode_timeline(rows);
    std::setlocale(LC_ALL, "C");
    ::unsetenv("LOCPATH");
    ASSERT_EQ(probe_text, "0,25") << "the locale should write decimal commas";
    EXPECT_NE(rows.at(0).payload.find("\"load\":0.25}"), std::string::npos) << rows.at(0).payload;
    EXPECT_EQ(decoded.events.at(0).load, 0.25);
}

// ---- a run's summary comes first -------------------------------------------------------------

TEST(HistoryRecorderOrder, ARecordingThatDoesNotFitLeavesACompleteSummary) {
    const std::string path = fresh_db("summary-first.sqlite");
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    RunRequest request;
    request.variant_id = "bfs.cpu.queue";
    request.problem.map = test::shared_map({"....", "....", "...."});
    request.problem.goal = 0;
    RunReport report;
    report.info.id = "bfs.cpu.queue";
    report.info.family = Family::Bfs;
    report.result.levels = 5;
    report.result.visited = 12;
    report.result.validation = Validation::Passed;
    report.samples = {PhaseTimes{}, PhaseTimes{}};
    std::mt19937 rng(7);  // random levels do not compress: 4 MiB stay 4 MiB
    report.result.bfs_levels.resize(1u << 20);
    for (auto& level : report.result.bfs_levels) level = std::int32_t(rng());
    db::HistoryRecorder recorder(*h);
    recorder.record(request, report);  // stores the map once, outside the limit below
    ASSERT_FALSE(recorder.error()) << recorder.error()->message;
    test::RawDb raw(path);
    const auto pages = raw.integer("PRAGMA page_count");
    ASSERT_TRUE(h->limit_pages(pages + 64));  // room for a summary, not for 4 MiB
    recorder.record(request, report);
    ASSERT_TRUE(recorder.error()) << "the recording cannot fit";
    const auto& message = recorder.error()->message;
    EXPECT_NE(message.find("bfs_levels"), std::string::npos) << message;
    EXPECT_NE(message.find("summary"), std::string::npos) << message;
    ASSERT_TRUE(recorder.run_id());
    const auto run = h->load_run(*recorder.run_id(), false).value();
    EXPECT_EQ(run.row.summary.status, "ok");
    EXPECT_EQ(run.row.summary.validation, "passed");
    EXPECT_EQ(run.row.summary.levels, 5);
    EXPECT_NE(run.row.finished_unix_ms, 0);
    EXPECT_EQ(run.row.repetitions, 2);
    EXPECT_TRUE(run.recordings.empty());
}

// ---- import of crafted files -----------------------------------------------------------------

// Every row of every table of a history, as text: proves a refused import changed nothing.
std::string table_dump(const std::string& path) {
    std::string out;
    test::RawDb raw(path, SQLITE_OPEN_READONLY);
    for (const char* table : {"maps", "runs", "samples", "events", "recordings"}) {
        sqlite3_stmt* s = nullptr;
        const std::string sql = std::string("SELECT * FROM ") + table;
        if (sqlite3_prepare_v2(raw.get(), sql.c_str(), -1, &s, nullptr) != SQLITE_OK) continue;
        while (sqlite3_step(s) == SQLITE_ROW) {
            out += table;
            for (int c = 0; c < sqlite3_column_count(s); ++c) {
                const auto* text = sqlite3_column_text(s, c);
                out += "|" + (text ? std::string(reinterpret_cast<const char*>(text)) : std::string("NULL"));
            }
            out += "\n";
        }
        sqlite3_finalize(s);
    }
    return out;
}

// A valid history with one finished run, a map and a recording, then `sql` applied to it raw.
std::string crafted(const std::string& name, const std::string& sql) {
    const std::string path = fresh_db(name);
    history_with_recording(path);
    test::RawDb raw(path);
    EXPECT_EQ(raw.exec("PRAGMA foreign_keys = OFF; " + sql), SQLITE_OK) << sqlite3_errmsg(raw.get()) << "\n" << sql;
    return path;
}

struct HostileCase {
    const char* name;
    const char* sql;
};

// The recordings table without its constraints, so rows can break them.
#define LOOSE_RECORDINGS                                                   \
    "CREATE TABLE r2 AS SELECT * FROM recordings; DROP TABLE recordings; " \
    "CREATE TABLE recordings AS SELECT * FROM r2; DROP TABLE r2; "

TEST(HistoryHostileImport, CraftedFilesAreRefusedOrImportedSafely) {
    const HostileCase cases[] = {
        {"missing-runs-table", "DROP TABLE samples; DROP TABLE events; DROP TABLE recordings; DROP TABLE runs;"},
        {"missing-samples-table", "DROP TABLE samples;"},
        {"missing-column", "DROP INDEX runs_variant; ALTER TABLE runs DROP COLUMN variant;"},
        {"negative-raw-size", "UPDATE recordings SET raw_size = -5;"},
        {"huge-raw-size", "UPDATE recordings SET raw_size = 9000000000000000000;"},
        {"text-raw-size", "UPDATE recordings SET raw_size = 'big';"},
        {"null-blob", LOOSE_RECORDINGS "UPDATE recordings SET data = NULL WHERE chunk = 1;"},
        {"huge-blob-claims", "UPDATE recordings SET data = zeroblob(3000000);"},
        {"wrong-types",
         "UPDATE runs SET created_unix_ms = 'yesterday', variant = x'00ff', cost = 'cheap', "
         "start_x = 1e300, repetitions = -7;"},
        {"map-nowhere", "UPDATE runs SET map_id = 999;"},
        {"map-damaged", "UPDATE maps SET width = -3;"},
        {"map-cells-garbage", "UPDATE maps SET cells = randomblob(100);"},
        {"map-huge", "UPDATE maps SET width = 65535, height = 65535;"},
        {"duplicate-origin",
         "DROP INDEX runs_origin; INSERT INTO runs (created_unix_ms, variant, status, origin_id) "
         "SELECT created_unix_ms, variant, status, origin_id FROM runs;"},
        {"empty-origin", "UPDATE runs SET origin_id = '';"},
        {"null-origin",
         "CREATE TABLE t AS SELECT * FROM runs; DROP TABLE samples; DROP TABLE events; "
         "DROP TABLE recordings; DROP TABLE runs; CREATE TABLE runs AS SELECT * FROM t; "
         "UPDATE runs SET origin_id = NULL; CREATE TABLE samples (run_id, repetition, allocate_ms, "
         "upload_ms, compute_ms, download_ms, total_ms); CREATE TABLE events (run_id, seq, kind, "
         "name, track, start_ns, end_ns, correlation_id, payload); CREATE TABLE recordings (id, "
         "run_id, kind, chunk, raw_size, data);"},
        {"duplicate-samples",
         "CREATE TABLE s2 AS SELECT * FROM samples; DROP TABLE samples; "
         "CREATE TABLE samples AS SELECT * FROM s2 UNION ALL SELECT * FROM s2;"},
        {"cyclic-chunks", LOOSE_RECORDINGS "UPDATE recordings SET chunk = 5;"},
        {"samples-of-no-run", "UPDATE samples SET run_id = 77;"},
        {"events-huge-payload", "UPDATE events SET payload = hex(zeroblob(2000000)) WHERE seq = 0;"},
        {"newer-schema", "PRAGMA user_version = 99;"},
        {"foreign-app", "PRAGMA application_id = 7;"},
    };
    for (const HostileCase& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string source = crafted(std::string("hostile-") + c.name + ".sqlite", c.sql);
        const std::string target = fresh_db(std::string("hostile-target-") + c.name + ".sqlite");
        {
            auto dst = History::open(target);
            ASSERT_TRUE(dst) << dst.error().message;
            test::store_test_run(*dst, dst->save_map(test::test_map(8, 8, 4)).value(), "own.run", 5);
        }
        const std::string before = table_dump(target);
        auto dst = History::open(target);
        ASSERT_TRUE(dst);
        Expected<std::size_t> imported = Error{"not run"};
        ASSERT_NO_THROW(imported = dst->import_from(source));
        if (!imported) {
            EXPECT_NE(imported.error().message.find(source), std::string::npos) << imported.error().message;
            EXPECT_EQ(table_dump(target), before) << "a refused import changes nothing";
            continue;
        }
        // Imported: every run reads back whole, and its recordings are what they claim to be.
        for (const auto& row : dst->list_runs().value()) {
            Expected<db::RunDetails> details = Error{"not run"};
            ASSERT_NO_THROW(details = dst->load_run(row.id));
            ASSERT_TRUE(details) << details.error().message;
            for (const auto& kind : details->recording_kinds) {
                Expected<std::vector<std::uint8_t>> bytes = Error{"not run"};
                ASSERT_NO_THROW(bytes = dst->load_recording(row.id, kind));
                EXPECT_TRUE(bytes) << "imported a damaged recording: " << bytes.error().message;
            }
            if (row.info.map_id) {
                Expected<GridMap> map = Error{"not run"};
                ASSERT_NO_THROW(map = dst->load_map(row.info.map_id));
                EXPECT_TRUE(map) << map.error().message;
            }
        }
        auto again = dst->import_from(source);
        ASSERT_TRUE(again) << again.error().message;
        EXPECT_EQ(*again, 0u) << "importing twice adds nothing";
    }
}

}  // namespace
}  // namespace ps
