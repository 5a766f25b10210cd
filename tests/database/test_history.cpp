// The run history's API: round trips of every table, map dedupe, listing filters, cascading
// deletes, CSV/JSON export and merging imports. Refusals, crashes and concurrency live in
// test_history_reliability.cpp.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "database/codec.hpp"
#include "database/history.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;
using test::fresh_db;

std::span<const std::uint8_t> bytes_of(const std::string& s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(HistoryCodec, Sha256KnownVectors) {
    struct Case {
        std::string input, digest;
    };
    const Case cases[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {std::string(1000, 'a'), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"},
    };
    for (const auto& c : cases) EXPECT_EQ(db::sha256_hex(bytes_of(c.input)), c.digest) << c.input.size();
    // Fed in pieces that straddle block boundaries: the same digest.
    db::Sha256 h;
    const std::string a(1000, 'a');
    for (std::size_t i = 0; i < a.size(); i += 37) h.update(bytes_of(a.substr(i, 37)));
    EXPECT_EQ(h.hex(), cases[3].digest);
}

TEST(HistoryCodec, PackAndCompressRoundTrip) {
    std::vector<std::uint8_t> cells(83);
    for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = (i * 5 % 3) == 0;
    const auto packed = db::pack_cells(cells);
    EXPECT_EQ(packed.size(), 11u);
    EXPECT_EQ(db::unpack_cells(packed, cells.size()), cells);

    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100000)}) {
        std::vector<std::uint8_t> raw(n);
        for (std::size_t i = 0; i < n; ++i) raw[i] = std::uint8_t(i * 31 / 7);
        const auto z = db::compress_bytes(raw);
        auto back = db::decompress_bytes(z, n);
        ASSERT_TRUE(back) << back.error().message;
        EXPECT_EQ(*back, raw);
    }
    auto z = db::compress_bytes(std::vector<std::uint8_t>(1000, 7));
    z[z.size() / 2] ^= 0xFF;
    auto damaged = db::decompress_bytes(z, 1000);
    ASSERT_FALSE(damaged);
    EXPECT_NE(damaged.error().message.find("damaged"), std::string::npos);
}

TEST(HistoryStore, CreatesFileAndFolder) {
    const std::string path = fresh_db("new-folder/deeper/h.sqlite");
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->schema_version(), db::kSchemaVersion);
    EXPECT_TRUE(std::filesystem::exists(path));
    auto runs = h->list_runs();
    ASSERT_TRUE(runs);
    EXPECT_TRUE(runs->empty());
}

TEST(HistoryStore, MapsRoundTripAndAreStoredOncePerContent) {
    auto h = History::open(fresh_db("maps.sqlite"));
    ASSERT_TRUE(h) << h.error().message;
    const GridMap a = test::test_map(13, 7, 1);  // 91 cells: the last packed byte is partial
    GridMap renamed = a;
    renamed.name = "same cells, other name";
    const GridMap b = test::test_map(13, 7, 2);

    auto ida = h->save_map(a, "--gen random --size 13", 99);
    ASSERT_TRUE(ida) << ida.error().message;
    auto again = h->save_map(renamed);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *ida);
    auto idb = h->save_map(b);
    ASSERT_TRUE(idb);
    EXPECT_NE(*idb, *ida);

    auto loaded = h->load_map(*ida);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(*loaded, a);
    EXPECT_EQ(loaded->name, a.name);

    auto maps = h->list_maps();
    ASSERT_TRUE(maps);
    ASSERT_EQ(maps->size(), 2u);
    const db::MapInfo& info = maps->front();
    EXPECT_EQ(info.name, a.name);
    EXPECT_EQ(info.width, 13);
    EXPECT_EQ(info.height, 7);
    EXPECT_EQ(info.generator, "--gen random --size 13");
    EXPECT_EQ(info.seed, std::optional<std::uint64_t>(99));
    EXPECT_EQ(info.hash.size(), 64u);
    EXPECT_FALSE(maps->back().seed.has_value());
    EXPECT_FALSE(h->load_map(12345));
}

TEST(HistoryStore, WeightedTerrainKeepsEveryCellsCost) {
    // A schema-3 file is upgraded on open; its maps gain the costs column.
    const std::string path = fresh_db("weighted.sqlite");
    ASSERT_TRUE(History::create_at_version(path, 3));
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    GridMap plain = test::test_map(13, 7, 1);
    GridMap weighted = plain;
    for (int x = 0; x < 13; ++x)
        if (weighted.passable(x, 3)) weighted.set_cost(x, 3, std::uint8_t(2 + 19 * x));
    ASSERT_TRUE(weighted.weighted());
    auto id_plain = h->save_map(plain);
    auto id_weighted = h->save_map(weighted);
    ASSERT_TRUE(id_plain && id_weighted) << (id_weighted ? "" : id_weighted.error().message);
    EXPECT_NE(*id_plain, *id_weighted);  // same walls, other costs: another map
    GridMap other = weighted;
    other.set_cost(0, 0, other.passable(0, 0) ? 7 : 0);
    other.set_cost(1, 0, 7);
    auto id_other = h->save_map(other);
    ASSERT_TRUE(id_other);
    EXPECT_NE(*id_other, *id_weighted);
    EXPECT_EQ(*h->save_map(weighted), *id_weighted);
    for (const auto& [id, map] : {std::pair{*id_plain, &plain}, {*id_weighted, &weighted}, {*id_other, &other}}) {
        auto loaded = h->load_map(id);
        ASSERT_TRUE(loaded) << loaded.error().message;
        EXPECT_EQ(loaded->cells(), map->cells());
    }
    auto maps = h->list_maps();
    ASSERT_TRUE(maps);
    EXPECT_NE((*maps)[0].hash, (*maps)[1].hash);
}

TEST(HistoryStore, RunRoundTripsEveryTable) {
    auto h = History::open(fresh_db("roundtrip.sqlite"));
    ASSERT_TRUE(h) << h.error().message;
    auto map_id = h->save_map(test::test_map(40, 50, 3));
    ASSERT_TRUE(map_id);
    db::RunInfo info = test::test_run_info(*map_id, "astar.gpu.test");
    info.driver_version = "13.0";
    info.cuda_version = "13.0";
    info.warmup = 2;
    info.bench_id = "sweep-7";
    auto id = h->begin_run(info);
    ASSERT_TRUE(id) << id.error().message;

    auto listed = h->list_runs();
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().summary.status, "running");
    EXPECT_EQ(db::display_status(listed->front().summary.status), "incomplete");

    // Samples in two batches: the aggregates on the run row cover both.
    ASSERT_TRUE(h->add_samples(*id, {{0, 1, 2, 3, 4, 10}, {1, 1, 2, 5, 4, 30}}));
    ASSERT_TRUE(h->add_samples(*id, {{2, 1, 2, 4, 4, 20}}));
    auto events = test::test_events(250);
    events[3].payload = "{\"text\": \"quotes \\\" and\nnewlines, ünïcödé\"}";
    events[4].correlation_id = std::numeric_limits<std::uint64_t>::max();
    events[5].start_ns = -5;
    ASSERT_TRUE(h->add_events(*id, {events.begin(), events.begin() + 100}));
    ASSERT_TRUE(h->add_events(*id, {events.begin() + 100, events.end()}));  // appends in order

    std::vector<std::uint8_t> levels(2 * db::kRecordingChunkBytes + 12345);  // three chunks
    for (std::size_t i = 0; i < levels.size(); ++i) levels[i] = std::uint8_t(i / 4096 + i % 3);
    ASSERT_TRUE(h->add_recording(*id, "bfs_levels", levels));
    ASSERT_TRUE(h->add_recording(*id, "empty", std::vector<std::uint8_t>{}));

    db::RunSummary summary;
    summary.status = "ok";
    summary.message = "fine";
    summary.validation = "passed";
    summary.validation_message = "cost equals the reference";
    summary.found = true;
    summary.cost = 123.456789012345;
    summary.expanded = (1ull << 63) + 5;  // above int64: stored as its bit pattern
    summary.levels = 77;
    summary.visited = 1999;
    summary.counters_json = R"({"host_launches":4094})";
    ASSERT_TRUE(h->finish_run(*id, summary));

    auto d = h->load_run(*id);
    ASSERT_TRUE(d) << d.error().message;
    const db::RunRow& r = d->row;
    EXPECT_EQ(r.id, *id);
    EXPECT_GT(r.created_unix_ms, 1600000000000);
    EXPECT_GE(r.finished_unix_ms, r.created_unix_ms);
    EXPECT_EQ(r.info.map_id, *map_id);
    EXPECT_EQ(r.info.variant, info.variant);
    EXPECT_EQ(r.info.family, info.family);
    EXPECT_EQ(r.info.device_kind, info.device_kind);
    EXPECT_EQ(r.info.params_json, info.params_json);
    EXPECT_EQ(r.info.start_x, 1);
    EXPECT_EQ(r.info.start_y, 2);
    EXPECT_EQ(r.info.goal_x, 30);
    EXPECT_EQ(r.info.goal_y, 40);
    EXPECT_EQ(r.info.device_name, info.device_name);
    EXPECT_EQ(r.info.driver_version, "13.0");
    EXPECT_EQ(r.info.cuda_version, "13.0");
    EXPECT_EQ(r.info.host, info.host);
    EXPECT_EQ(r.info.build_commit, info.build_commit);
    EXPECT_EQ(r.info.warmup, 2);
    EXPECT_EQ(r.info.bench_id, "sweep-7");
    EXPECT_EQ(r.summary.status, "ok");
    EXPECT_EQ(r.summary.message, "fine");
    EXPECT_EQ(r.summary.validation, "passed");
    EXPECT_EQ(r.summary.validation_message, summary.validation_message);
    EXPECT_TRUE(r.summary.found);
    EXPECT_DOUBLE_EQ(r.summary.cost, summary.cost);
    EXPECT_EQ(r.summary.expanded, summary.expanded);
    EXPECT_EQ(r.summary.levels, 77);
    EXPECT_EQ(r.summary.visited, 1999u);
    EXPECT_EQ(r.summary.counters_json, summary.counters_json);
    EXPECT_EQ(r.map_name, "test-40x50-3");
    EXPECT_EQ(r.map_width, 40);
    EXPECT_EQ(r.map_height, 50);
    EXPECT_EQ(r.map_hash.size(), 64u);
    EXPECT_EQ(r.repetitions, 3);
    EXPECT_DOUBLE_EQ(r.total_mean_ms, 20);
    EXPECT_DOUBLE_EQ(r.total_median_ms, 20);
    EXPECT_DOUBLE_EQ(r.compute_mean_ms, 4);
    EXPECT_DOUBLE_EQ(r.compute_median_ms, 4);

    ASSERT_EQ(d->samples.size(), 3u);
    EXPECT_EQ(d->samples[1], (db::PhaseSample{1, 1, 2, 5, 4, 30}));
    EXPECT_EQ(d->event_count, events.size());
    EXPECT_EQ(d->events, events);
    EXPECT_EQ(d->recording_kinds, (std::vector<std::string>{"bfs_levels", "empty"}));
    EXPECT_EQ(d->recordings.front().raw_bytes, levels.size());
    EXPECT_LT(d->recordings.front().stored_bytes, levels.size());

    auto back = h->load_recording(*id, "bfs_levels");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, levels);
    auto empty = h->load_recording(*id, "empty");
    ASSERT_TRUE(empty) << empty.error().message;
    EXPECT_TRUE(empty->empty());
    EXPECT_FALSE(h->load_recording(*id, "nope"));

    // Streaming reads hand out chunks of at most kRecordingChunkBytes and can stop early.
    std::size_t chunks = 0;
    ASSERT_TRUE(h->read_recording(*id, "bfs_levels", [&](std::span<const std::uint8_t> c) {
        EXPECT_LE(c.size(), db::kRecordingChunkBytes);
        return ++chunks < 2;
    }));
    EXPECT_EQ(chunks, 2u);

    // A recording of the same kind replaces the old one.
    ASSERT_TRUE(h->add_recording(*id, "bfs_levels", std::vector<std::uint8_t>{1, 2, 3}));
    EXPECT_EQ(h->load_recording(*id, "bfs_levels").value(), (std::vector<std::uint8_t>{1, 2, 3}));

    auto without = h->load_run(*id, false);
    ASSERT_TRUE(without);
    EXPECT_TRUE(without->events.empty());
    EXPECT_EQ(without->event_count, events.size());
}

TEST(HistoryStore, BadWritesAreErrorsThatChangeNothing) {
    auto h = History::open(fresh_db("bad-writes.sqlite"));
    ASSERT_TRUE(h);
    const auto id = test::store_test_run(*h, 0);
    auto dup = h->add_samples(id, {{5, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1}});  // repetition 0 exists
    ASSERT_FALSE(dup);
    EXPECT_NE(dup.error().message.find("repetition 0"), std::string::npos) << dup.error().message;
    EXPECT_EQ(h->load_run(id)->samples.size(), 3u);  // the batch was rolled back, 5 included

    for (auto result : {h->add_samples(999, {}), h->add_events(999, {}), h->finish_run(999, {}),
                        h->add_recording(999, "x", std::vector<std::uint8_t>{})}) {
        ASSERT_FALSE(result);
        EXPECT_NE(result.error().message.find("no run 999"), std::string::npos) << result.error().message;
    }
    EXPECT_FALSE(h->load_run(999));
}

TEST(HistoryStore, ListFilters) {
    auto h = History::open(fresh_db("filters.sqlite"));
    ASSERT_TRUE(h);
    GridMap arena = test::test_map(20, 20, 1);
    arena.name = "Arena";
    GridMap maze = test::test_map(20, 20, 2);
    maze.name = "maze-512";
    const auto arena_id = h->save_map(arena).value();
    const auto maze_id = h->save_map(maze).value();
    struct Spec {
        std::int64_t map;
        const char* variant;
        const char* device_kind;
        const char* device;
        const char* bench;
    };
    const Spec specs[] = {{arena_id, "bfs.cpu.queue", "cpu", "Intel Xeon", ""},
                          {arena_id, "bfs.gpu.tail", "gpu", "NVIDIA H100 80GB HBM3", "b1"},
                          {maze_id, "astar.cpu", "cpu", "AMD EPYC", ""},
                          {maze_id, "bfs.gpu.tail", "gpu", "NVIDIA H100 80GB HBM3", "b1"}};
    for (const auto& s : specs) {
        db::RunInfo info = test::test_run_info(s.map, s.variant);
        info.device_kind = s.device_kind;
        info.device_name = s.device;
        info.bench_id = s.bench;
        ASSERT_TRUE(h->begin_run(info));
    }
    auto count = [&](const db::RunFilter& f) { return h->list_runs(f).value().size(); };
    db::RunFilter f;
    EXPECT_EQ(count(f), 4u);
    f.map = "arena";  // case-insensitive substring
    EXPECT_EQ(count(f), 2u);
    f.variant = "GPU";
    EXPECT_EQ(count(f), 1u);
    f = {};
    f.device = "h100";
    EXPECT_EQ(count(f), 2u);
    f.device = "cpu";  // matches the device kind too
    EXPECT_EQ(count(f), 2u);
    f = {};
    f.bench_id = "b1";
    EXPECT_EQ(count(f), 2u);
    f = {};
    f.limit = 3;
    EXPECT_EQ(count(f), 3u);
    const std::int64_t day = 24 * 3600 * 1000;
    const std::int64_t now = h->list_runs().value().front().created_unix_ms;
    f = {};
    f.from_unix_ms = now + day;
    EXPECT_EQ(count(f), 0u);
    f.from_unix_ms = now - day;
    f.to_unix_ms = now + day;
    EXPECT_EQ(count(f), 4u);
    f.to_unix_ms = now - day;
    EXPECT_EQ(count(f), 0u);
    f = {};
    f.variant = "%";  // user text is bound, never a pattern
    EXPECT_EQ(count(f), 0u);

    auto newest_first = h->list_runs().value();
    EXPECT_GT(newest_first.front().id, newest_first.back().id);
}

TEST(HistoryStore, DeleteCascadesToSamplesEventsAndRecordings) {
    const std::string path = fresh_db("delete.sqlite");
    auto h = History::open(path);
    ASSERT_TRUE(h);
    const auto map_id = h->save_map(test::test_map(8, 8, 1)).value();
    const auto gone = test::store_test_run(*h, map_id);
    const auto kept = test::store_test_run(*h, map_id);
    ASSERT_TRUE(h->add_recording(gone, "bfs_levels", std::vector<std::uint8_t>(5000, 1)));
    ASSERT_TRUE(h->add_recording(kept, "bfs_levels", std::vector<std::uint8_t>(5000, 2)));

    auto deleted = h->delete_runs({gone, 4242});
    ASSERT_TRUE(deleted) << deleted.error().message;
    EXPECT_EQ(*deleted, 1u);
    test::RawDb raw(path);
    for (const std::string table : {"samples", "events", "recordings"}) {
        const std::string count = "SELECT count(*) FROM " + table + " WHERE run_id = ";
        EXPECT_EQ(raw.integer(count + std::to_string(gone)), 0) << table;
        EXPECT_GT(raw.integer(count + std::to_string(kept)), 0) << table;
    }
    EXPECT_EQ(raw.integer("SELECT count(*) FROM maps"), 1);  // maps stay
    EXPECT_FALSE(h->load_run(gone));
    EXPECT_TRUE(h->load_run(kept));
    EXPECT_TRUE(h->vacuum());
    EXPECT_EQ(h->load_recording(kept, "bfs_levels").value(), std::vector<std::uint8_t>(5000, 2));
}

TEST(HistoryStore, ReadOnlyModeReadsButNeverWrites) {
    const std::string path = fresh_db("read-only-mode.sqlite");
    {
        auto h = History::open(path);
        ASSERT_TRUE(h);
        test::store_test_run(*h, h->save_map(test::test_map(8, 8, 1)).value());
    }
    const std::string before = test::fingerprint(path);
    {
        auto h = History::open(path, db::OpenMode::ReadOnly);
        ASSERT_TRUE(h) << h.error().message;
        EXPECT_TRUE(h->read_only());
        EXPECT_EQ(h->list_runs().value().size(), 1u);
        auto write = h->begin_run(test::test_run_info(0));
        ASSERT_FALSE(write);
        EXPECT_NE(write.error().message.find("read-only"), std::string::npos) << write.error().message;
        EXPECT_FALSE(h->save_map(test::test_map(4, 4, 1)));
        EXPECT_FALSE(h->delete_runs({1}));
        EXPECT_FALSE(h->vacuum());
        EXPECT_FALSE(h->import_from(path));
    }
    EXPECT_EQ(test::fingerprint(path), before);
    auto missing = History::open(fresh_db("never-created.sqlite"), db::OpenMode::ReadOnly);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("no history"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(test::temp_path("never-created.sqlite")));
}

// RFC 4180 records: fields may hold quoted commas, quotes and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                records.back().back() += text[i++];
            else if (c == '"')
                quoted = false;
            else
                records.back().back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            records.back().emplace_back();
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            records.emplace_back(1);
        } else {
            records.back().back() += c;
        }
    }
    if (records.back().size() == 1 && records.back().front().empty()) records.pop_back();
    return records;
}

TEST(HistoryExport, CsvHasAHeaderAndOneQuotedRowPerRun) {
    auto h = History::open(fresh_db("export-csv.sqlite"));
    ASSERT_TRUE(h);
    const auto map_id = h->save_map(test::test_map(8, 8, 1)).value();
    const auto a = test::store_test_run(*h, map_id);
    const auto b = test::store_test_run(*h, map_id, "astar.cpu");
    db::RunSummary odd;
    odd.status = "error";
    odd.message = "bad, \"quoted\"\nsecond line";
    ASSERT_TRUE(h->finish_run(b, odd));

    std::ostringstream out;
    ASSERT_TRUE(h->export_csv({}, out));
    const auto rows = parse_csv(out.str());
    ASSERT_EQ(rows.size(), 3u) << out.str();
    const auto& header = rows[0];
    for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());
    auto column = [&](const std::string& name) {
        return std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
    };
    for (const char* name : {"id", "variant", "status", "message", "map_hash", "total_mean_ms", "total_sd_ms",
                             "compute_median_ms", "allocate_max_ms", "repetitions", "params_json"})
        EXPECT_LT(column(name), header.size()) << name;
    EXPECT_EQ(rows[1][column("id")], std::to_string(a));  // oldest first
    EXPECT_EQ(rows[2][column("message")], odd.message);
    EXPECT_EQ(rows[2][column("status")], "error");
    EXPECT_NEAR(std::stod(rows[1][column("total_mean_ms")]), 2.6, 1e-12);
    EXPECT_EQ(rows[1][column("compute_median_ms")], "2");
    EXPECT_EQ(rows[1][column("repetitions")], "3");

    std::ostringstream one;
    ASSERT_TRUE(h->export_csv({b}, one));
    EXPECT_EQ(parse_csv(one.str()).size(), 2u);
    std::ostringstream none;
    auto unknown = h->export_csv({b, 777}, none);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("no run 777"), std::string::npos);
}

TEST(HistoryExport, JsonHoldsRunsWithTheirSamples) {
    auto h = History::open(fresh_db("export-json.sqlite"));
    ASSERT_TRUE(h);
    const auto map_id = h->save_map(test::test_map(8, 8, 1)).value();
    test::store_test_run(*h, map_id);
    test::store_test_run(*h, map_id, "astar.cpu \"quoted\"");
    std::ostringstream out;
    ASSERT_TRUE(h->export_json({}, out));
    const std::string json = out.str();
    EXPECT_EQ(json.front(), '{');
    EXPECT_NE(json.find("\"format\": \"pathscope-history\""), std::string::npos);
    EXPECT_NE(json.find("\"schema_version\": " + std::to_string(db::kSchemaVersion)), std::string::npos);
    EXPECT_NE(json.find("\"variant\": \"astar.cpu \\\"quoted\\\"\""), std::string::npos) << json;
    auto occurrences = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto p = json.find(what); p != std::string::npos; p = json.find(what, p + 1)) ++n;
        return n;
    };
    EXPECT_EQ(occurrences("\"samples\": ["), 2u);
    EXPECT_EQ(occurrences("\"repetition\": "), 6u);
    EXPECT_EQ(occurrences("{"), occurrences("}"));
    EXPECT_EQ(occurrences("["), occurrences("]"));
}

TEST(HistoryImport, MergesOnceAndImportingTwiceAddsNothing) {
    const std::string source_path = fresh_db("import-source.sqlite");
    const std::string target_path = fresh_db("import-target.sqlite");
    std::int64_t with_recording = 0;
    {
        auto src = History::open(source_path);
        ASSERT_TRUE(src);
        const auto m1 = src->save_map(test::test_map(16, 16, 1), "--gen random", 5).value();
        const auto m2 = src->save_map(test::test_map(16, 16, 2)).value();
        test::store_test_run(*src, m1);
        with_recording = test::store_test_run(*src, m2, "astar.cpu", 3000);
        ASSERT_TRUE(src->add_recording(with_recording, "search_events", std::vector<std::uint8_t>(3 << 20, 9)));
        ASSERT_TRUE(src->begin_run(test::test_run_info(0, "unknown.variant")));  // no map, still running
    }
    auto dst = History::open(target_path);
    ASSERT_TRUE(dst);
    test::store_test_run(*dst, dst->save_map(test::test_map(16, 16, 1)).value(), "own.run");  // shares map 1

    auto added = dst->import_from(source_path);
    ASSERT_TRUE(added) << added.error().message;
    EXPECT_EQ(*added, 3u);
    auto again = dst->import_from(source_path);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(*again, 0u);

    EXPECT_EQ(dst->list_maps().value().size(), 2u);
    const auto runs = dst->list_runs().value();
    ASSERT_EQ(runs.size(), 4u);
    auto src = History::open(source_path, db::OpenMode::ReadOnly);
    ASSERT_TRUE(src);
    const auto original = src->load_run(with_recording).value();
    const auto it =
        std::find_if(runs.begin(), runs.end(), [](const db::RunRow& r) { return r.info.variant == "astar.cpu"; });
    ASSERT_NE(it, runs.end());
    const auto copy = dst->load_run(it->id).value();
    EXPECT_EQ(copy.row.created_unix_ms, original.row.created_unix_ms);
    EXPECT_EQ(copy.row.map_hash, original.row.map_hash);
    EXPECT_EQ(copy.row.total_mean_ms, original.row.total_mean_ms);
    EXPECT_EQ(copy.row.summary.cost, original.row.summary.cost);
    EXPECT_EQ(copy.samples, original.samples);
    EXPECT_EQ(copy.events, original.events);
    EXPECT_EQ(dst->load_recording(it->id, "search_events").value(), std::vector<std::uint8_t>(3 << 20, 9));
    auto incomplete = std::find_if(runs.begin(), runs.end(), [](const db::RunRow& r) { return r.info.map_id == 0; });
    ASSERT_NE(incomplete, runs.end());
    EXPECT_EQ(incomplete->summary.status, "running");

    auto not_history = dst->import_from(test::temp_path("no-such-file.sqlite"));
    ASSERT_FALSE(not_history);
    EXPECT_NE(not_history.error().message.find("cannot import"), std::string::npos);
}

}  // namespace
}  // namespace ps
