// libFuzzer harness: importing a history file someone sent (History::import_from), then reading
// what was imported the way the history dock does (list, load every run, map and recording, and
// the JSON of its parameters, counters and event payloads through the strict reader that
// rebuilds stored runs).
// Files that are valid SQLite with hostile contents are the interesting ones, and random bytes
// rarely are, so the input is either
//  - a whole file, when it starts with the SQLite header ("SQLite format 3\0"), or
//  - SQL run on a copy of a small, valid history (two maps, two runs with samples, events and a
//    recording) before the import: huge or damaged blobs, wrong types, negative sizes, ids that
//    point nowhere or at each other, a newer schema version.
// The harness bounds its own SQL (1 MB per value, a step budget, no ATTACH, which could write
// files elsewhere); what the import then does with the file is the reader's to bound.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "database/history.hpp"
#include "kernels/base/json_reader.hpp"
#include "kernels/map/map_io.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace fs = std::filesystem;

// The folder and files of one process. The templates are kept as bytes, so no file outlives an
// input: libFuzzer ends without running atexit handlers.
struct Paths {
    fs::path dir, source, target;
    std::string source_bytes, target_bytes;
};

std::string bytes_of(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const char* data, std::size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data, std::streamsize(size));
    FUZZ_CHECK(out.good(), "cannot write %s", path.c_str());
}

ps::GridMap small_map(int width, int height, int seed) {
    ps::GridMap map(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            if ((x * 7 + y * 13 + seed) % 5 == 0) map.cells()[std::size_t(y) * std::size_t(width) + std::size_t(x)] = 0;
    return map;
}

// Two maps, two runs (one finished with samples, events and a recording, one still "running").
void make_source_template(const fs::path& path) {
    auto h = ps::db::History::open(path.string());
    FUZZ_CHECK(h, "%s", h.error().message.c_str());
    auto m1 = h->save_map(small_map(12, 9, 1), "noise density=0.3", 7);
    auto m2 = h->save_map(small_map(5, 17, 2));
    FUZZ_CHECK(m1 && m2, "save_map failed");
    ps::db::RunInfo info;
    info.map_id = *m1;
    info.variant = "astar.cpu";
    info.family = "astar";
    info.device_kind = "cpu";
    info.params_json = R"({"connectivity":8})";
    info.start_x = 0, info.start_y = 0, info.goal_x = 11, info.goal_y = 8;
    info.host = "fuzz";
    auto run = h->begin_run(info);
    FUZZ_CHECK(run, "%s", run.error().message.c_str());
    FUZZ_CHECK(h->add_samples(*run, {{0, 0.1, 0.2, 1.5, 0.1, 1.9}, {1, 0.1, 0.2, 1.4, 0.1, 1.8}}), "add_samples");
    FUZZ_CHECK(h->add_events(*run, {{"kernel", "expand", "stream 7", 100, 250, 3, R"({"level":1})"},
                                    {"api", "cudaLaunchKernel", "thread 1", 90, 99, 3, ""}}),
               "add_events");
    std::vector<std::uint8_t> recording(3000);
    for (std::size_t i = 0; i < recording.size(); ++i) recording[i] = std::uint8_t(i * 31 % 251);
    FUZZ_CHECK(h->add_recording(*run, "levels", recording), "add_recording");
    ps::db::RunSummary summary;
    summary.found = true;
    summary.cost = 14.5;
    summary.expanded = 40;
    summary.counters_json = R"({"host_launches":4})";
    FUZZ_CHECK(h->finish_run(*run, summary), "finish_run");
    info.map_id = *m2;
    info.variant = "bfs.gpu.dp";
    info.device_kind = "gpu";
    FUZZ_CHECK(h->begin_run(info), "begin_run");
}

const Paths& paths() {
    static const Paths p = [] {
        Paths out;
        // In memory where the system has it: every input writes, syncs and imports two files.
        std::error_code shm_error;
        const fs::path base =
            fs::is_directory("/dev/shm", shm_error) ? fs::path("/dev/shm") : fs::temp_directory_path();
        out.dir = base / ("pathscope-fuzz-history-" + std::to_string(::getpid()));
        std::error_code ec;
        fs::remove_all(out.dir, ec);
        fs::create_directories(out.dir);
        out.source = out.dir / "source.sqlite";
        out.target = out.dir / "target.sqlite";
        make_source_template(out.source);
        {
            auto h = ps::db::History::open(out.target.string());
            FUZZ_CHECK(h, "%s", h.error().message.c_str());
        }
        // Single files from here on: the copies below must carry everything.
        for (const fs::path& t : {out.source, out.target}) {
            sqlite3* db = nullptr;
            FUZZ_CHECK(sqlite3_open(t.c_str(), &db) == SQLITE_OK, "open %s", t.c_str());
            FUZZ_CHECK(sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr) == SQLITE_OK,
                       "journal mode");
            sqlite3_close(db);
        }
        out.source_bytes = bytes_of(out.source);
        out.target_bytes = bytes_of(out.target);
        fs::remove_all(out.dir, ec);
        return out;
    }();
    return p;
}

// Refuses what could reach outside the source file.
int authorize(void*, int action, const char*, const char*, const char*, const char*) {
    return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

int stop_after_budget(void* steps) { return ++*static_cast<int*>(steps) > 2000; }

// Runs the input as SQL on the source; errors are fine (whatever ran before them stays).
void mutate_source(const fs::path& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
        sqlite3_close(db);
        return;
    }
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 16);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_set_authorizer(db, authorize, nullptr);
    int steps = 0;
    sqlite3_progress_handler(db, 1000, stop_after_budget, &steps);
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const Paths& p = paths();
    fs::create_directories(p.dir);
    struct RemoveAtEnd {
        const fs::path& dir;
        ~RemoveAtEnd() {
            std::error_code ignored;
            fs::remove_all(dir, ignored);
        }
    } remove_at_end{p.dir};
    static const char kMagic[] = "SQLite format 3";  // with its NUL: 16 bytes
    if (size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0) {
        write_bytes(p.source, reinterpret_cast<const char*>(data), size);
    } else {
        write_bytes(p.source, p.source_bytes.data(), p.source_bytes.size());
        mutate_source(p.source, std::string(reinterpret_cast<const char*>(data), size));
    }
    write_bytes(p.target, p.target_bytes.data(), p.target_bytes.size());

    auto target = ps::db::History::open(p.target.string());
    FUZZ_CHECK(target, "the empty target does not open: %s", target.error().message.c_str());
    auto added = target->import_from(p.source.string());
    if (!added) {
        FUZZ_CHECK(!added.error().message.empty(), "an import error without a message");
        return 0;
    }
    // What was imported reads back: every run, its map, samples, events and recordings.
    auto runs = target->list_runs();
    FUZZ_CHECK(runs, "list after import: %s", runs.error().message.c_str());
    FUZZ_CHECK(runs->size() == *added, "%zu runs listed after adding %zu", runs->size(), *added);
    auto check_json = [](const std::string& text) {
        auto parsed = ps::parse_json(text);
        FUZZ_CHECK(parsed || !parsed.error().message.empty(), "a JSON error without a message");
    };
    for (const ps::db::RunRow& row : *runs) {
        check_json(row.info.params_json);
        check_json(row.summary.counters_json);
        auto details = target->load_run(row.id, true);
        if (!details) continue;  // damage carried over is reported, not fatal
        for (const ps::db::TimelineEvent& e : details->events) check_json(e.payload);
        if (row.info.map_id) (void)target->load_map(row.info.map_id);
        for (const std::string& kind : details->recording_kinds) (void)target->load_recording(row.id, kind);
    }
    // Importing again adds nothing.
    auto again = target->import_from(p.source.string());
    FUZZ_CHECK(!again || *again == 0, "a second import added %zu runs", again ? *again : 0);
    return 0;
}
