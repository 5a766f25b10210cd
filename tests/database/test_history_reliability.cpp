// The history under bad conditions: migrations from an old file, files it must refuse
// (each refusal leaves the file byte for byte as it was), a writer killed with SIGKILL,
// a full disk, a locked file and two processes writing at once.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;
using test::fresh_db;

// A history with a few runs and enough events to span many pages.
std::string make_history(const std::string& name) {
    const std::string path = fresh_db(name);
    auto h = History::open(path);
    EXPECT_TRUE(h) << h.error().message;
    const auto map_id = h->save_map(test::test_map(32, 32, 1)).value();
    for (int i = 0; i < 3; ++i) test::store_test_run(*h, map_id, "bfs.cpu.queue", 5000);
    return path;  // closing the last connection folds the WAL into the file
}

// `kind`: Io where the file could not be used (read-only), Invalid where what it holds is wrong.
void expect_refused(const std::string& path, db::OpenMode mode, const std::string& says, ErrorKind kind,
                    int busy_ms = 5000) {
    const std::string before = test::fingerprint(path);
    auto h = History::open(path, db::OpenOptions{mode, busy_ms});
    ASSERT_FALSE(h) << path << " was opened";
    EXPECT_NE(h.error().message.find(says), std::string::npos) << h.error().message;
    EXPECT_EQ(h.error().kind, kind) << h.error().message;
    EXPECT_NE(h.error().message.find(path), std::string::npos) << "the message names the file: " << h.error().message;
    EXPECT_EQ(test::fingerprint(path), before) << "the refused file was modified";
}

TEST(HistoryMigrations, NewFileCarriesTheApplicationIdAndCurrentVersion) {
    const std::string path = fresh_db("new-version.sqlite");
    ASSERT_TRUE(History::open(path));
    test::RawDb raw(path);
    EXPECT_EQ(raw.integer("PRAGMA application_id"), db::kApplicationId);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), db::kSchemaVersion);
    EXPECT_EQ(raw.integer("PRAGMA foreign_keys"), 0);  // per connection: History turns it on itself
}

TEST(HistoryMigrations, VersionOneFileOpensWithCurrentCode) {
    const std::string path = fresh_db("v1.sqlite");
    ASSERT_TRUE(History::create_at_version(path, 1));
    {
        // What a version-1 program stored: a map, a finished run, its samples (no bench_id).
        test::RawDb raw(path);
        EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
        EXPECT_EQ(raw.integer("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'bench_id'"), 0);
        const auto map = test::test_map(8, 8, 4);
        const auto packed = db::pack_cells(map.cells());
        const auto cells = db::compress_bytes(packed);
        sqlite3_stmt* s = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(raw.get(),
                                     "INSERT INTO maps (hash, name, width, height, cells, created_unix_ms) "
                                     "VALUES ('legacy-hash', 'old map', 8, 8, ?, 1)",
                                     -1, &s, nullptr),
                  SQLITE_OK);
        sqlite3_bind_blob(s, 1, cells.data(), int(cells.size()), SQLITE_TRANSIENT);
        ASSERT_EQ(sqlite3_step(s), SQLITE_DONE);
        sqlite3_finalize(s);
        ASSERT_EQ(raw.exec("INSERT INTO runs (map_id, created_unix_ms, variant, status, repetitions, total_mean_ms) "
                           "VALUES (1, 1700000000000, 'bfs.cpu', 'ok', 1, 2.5);"
                           "INSERT INTO samples VALUES (1, 0, 0, 0, 2, 0, 2.5);"),
                  SQLITE_OK);
    }
    // Read-only: older schemas are read as they are, without migrating.
    const std::string before = test::fingerprint(path);
    {
        auto ro = History::open(path, db::OpenMode::ReadOnly);
        ASSERT_TRUE(ro) << ro.error().message;
        EXPECT_EQ(ro->schema_version(), 1);
        auto runs = ro->list_runs();
        ASSERT_TRUE(runs) << runs.error().message;
        ASSERT_EQ(runs->size(), 1u);
        EXPECT_EQ(runs->front().info.bench_id, "");
        db::RunFilter bench;
        bench.bench_id = "x";
        EXPECT_TRUE(ro->list_runs(bench).value().empty());
    }
    EXPECT_EQ(test::fingerprint(path), before);

    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->schema_version(), db::kSchemaVersion);
    auto old = h->load_run(1);
    ASSERT_TRUE(old) << old.error().message;
    EXPECT_EQ(old->row.info.variant, "bfs.cpu");
    EXPECT_EQ(old->row.map_name, "old map");
    EXPECT_DOUBLE_EQ(old->row.total_mean_ms, 2.5);
    EXPECT_EQ(old->samples.size(), 1u);
    EXPECT_EQ(h->load_map(1).value().width(), 8);
    db::RunInfo info = test::test_run_info(1);
    info.bench_id = "after-upgrade";
    ASSERT_TRUE(h->begin_run(info));
    db::RunFilter f;
    f.bench_id = "after-upgrade";
    EXPECT_EQ(h->list_runs(f).value().size(), 1u);
    test::RawDb raw(path);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), db::kSchemaVersion);
}

TEST(HistoryRefusal, PlainTextFile) {
    const std::string path = fresh_db("notes.txt");
    test::write_bytes(path, "these are my notes, not a database\n");
    expect_refused(path, db::OpenMode::ReadWrite, "not a PathScope history (not an SQLite database)",
                   ErrorKind::Invalid);
    expect_refused(path, db::OpenMode::ReadOnly, "not a PathScope history", ErrorKind::Invalid);
}

TEST(HistoryRefusal, ForeignSqliteDatabase) {
    const std::string path = fresh_db("foreign.sqlite");
    {
        test::RawDb raw(path);
        ASSERT_EQ(raw.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
                           "INSERT INTO customers (name) VALUES ('Ada');"),
                  SQLITE_OK);
    }
    expect_refused(path, db::OpenMode::ReadWrite, "SQLite database but not a PathScope history", ErrorKind::Invalid);
    expect_refused(path, db::OpenMode::ReadOnly, "not a PathScope history", ErrorKind::Invalid);
}

TEST(HistoryRefusal, NewerSchema) {
    const std::string path = make_history("newer.sqlite");
    {
        test::RawDb raw(path);
        ASSERT_EQ(raw.exec("PRAGMA user_version = " + std::to_string(db::kSchemaVersion + 1)), SQLITE_OK);
    }
    expect_refused(path, db::OpenMode::ReadWrite, "newer PathScope", ErrorKind::Invalid);
    expect_refused(path, db::OpenMode::ReadOnly, "newer PathScope", ErrorKind::Invalid);
}

TEST(HistoryRefusal, CorruptFiles) {
    struct Case {
        const char* name;
        void (*damage)(std::string& bytes);
    };
    const Case cases[] = {
        {"garbage after the header",
         [](std::string& b) {
             for (std::size_t i = 100; i < b.size(); ++i) b[i] = char((i * 2654435761u) >> 13);
         }},
        {"garbage in the middle",
         [](std::string& b) {
             for (std::size_t i = b.size() / 2; i < b.size() / 2 + 8192; ++i) b[i] = char((i * 40503u) >> 5);
         }},
        {"truncated", [](std::string& b) { b.resize(b.size() * 6 / 10); }},
    };
    const std::string intact = test::file_bytes(make_history("corrupt-source.sqlite"));
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string path = fresh_db("corrupt.sqlite");
        std::string bytes = intact;
        c.damage(bytes);
        test::write_bytes(path, bytes);
        expect_refused(path, db::OpenMode::ReadWrite, "corrupt", ErrorKind::Invalid);
        expect_refused(path, db::OpenMode::ReadOnly, "corrupt", ErrorKind::Invalid);
    }
}

TEST(HistoryRefusal, LockedByAnotherWriter) {
    const std::string path = make_history("locked.sqlite");
    const std::string before = test::fingerprint(path);
    {
        test::RawDb holder(path);
        ASSERT_EQ(holder.exec("BEGIN EXCLUSIVE"), SQLITE_OK);
        ASSERT_EQ(holder.exec("DELETE FROM events"), SQLITE_OK);  // uncommitted
        auto h = History::open(path, db::OpenOptions{db::OpenMode::ReadWrite, 100});
        ASSERT_FALSE(h);
        EXPECT_NE(h.error().message.find("locked"), std::string::npos) << h.error().message;
        EXPECT_EQ(h.error().kind, ErrorKind::Io);
        // Readers are not blocked by a writer under WAL.
        auto reader = History::open(path, db::OpenOptions{db::OpenMode::ReadOnly, 100});
        ASSERT_TRUE(reader) << reader.error().message;
        EXPECT_EQ(reader->load_run(1).value().event_count, 5000u);
        ASSERT_EQ(holder.exec("ROLLBACK"), SQLITE_OK);
    }
    EXPECT_EQ(test::fingerprint(path), before);
}

TEST(HistoryRefusal, WriteWhileAnotherWriterHoldsTheLock) {
    const std::string path = make_history("locked-later.sqlite");
    auto h = History::open(path, db::OpenOptions{db::OpenMode::ReadWrite, 100});
    ASSERT_TRUE(h) << h.error().message;
    test::RawDb holder(path);
    ASSERT_EQ(holder.exec("BEGIN IMMEDIATE"), SQLITE_OK);
    auto id = h->begin_run(test::test_run_info(1));
    ASSERT_FALSE(id);
    EXPECT_NE(id.error().message.find("locked"), std::string::npos) << id.error().message;
    EXPECT_EQ(id.error().kind, ErrorKind::Io);
    ASSERT_EQ(holder.exec("COMMIT"), SQLITE_OK);
    EXPECT_TRUE(h->begin_run(test::test_run_info(1)));  // and works once the lock is gone
}

TEST(HistoryRefusal, ReadOnlyFile) {
    const std::string path = make_history("read-only-file.sqlite");
    ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
    if (::access(path.c_str(), W_OK) == 0) {
        ::chmod(path.c_str(), 0644);
        GTEST_SKIP() << "running as root: write permission is not enforced, so no file is read-only here "
                        "(HistoryStore.ReadOnlyModeReadsButNeverWrites covers the read-only mode)";
    }
    expect_refused(path, db::OpenMode::ReadWrite, "read-only", ErrorKind::Io);
    auto ro = History::open(path, db::OpenMode::ReadOnly);
    EXPECT_TRUE(ro) << ro.error().message;
    ::chmod(path.c_str(), 0644);
}

TEST(HistoryRefusal, FolderInsteadOfFile) {
    const std::string path = test::temp_path("a-folder");
    std::filesystem::create_directories(path);
    auto h = History::open(path);
    ASSERT_FALSE(h);
    EXPECT_NE(h.error().message.find("is a folder"), std::string::npos) << h.error().message;
    EXPECT_EQ(h.error().kind, ErrorKind::Io);
}

// A history in a folder that does not exist, or cannot be made, is an I/O failure: the file is
// not there to read (read-only), or its folder cannot be created under a plain file (writing).
TEST(HistoryRefusal, MissingFolderIsAnIoError) {
    const test::TempDir dir(test::temp_path("history-missing-folder"));
    const std::string absent = (dir.path() / "no-such-folder" / "history.sqlite").string();
    auto ro = History::open(absent, db::OpenMode::ReadOnly);
    ASSERT_FALSE(ro);
    EXPECT_EQ(ro.error().kind, ErrorKind::Io) << ro.error().message;
    EXPECT_NE(ro.error().message.find("there is no history at " + absent), std::string::npos) << ro.error().message;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "no-such-folder")) << "a read-only open made the folder";

    const auto plain = dir.path() / "plain-file";
    test::write_bytes(plain.string(), "not a folder\n");
    const std::string under_file = (plain / "sub" / "history.sqlite").string();
    auto rw = History::open(under_file);
    ASSERT_FALSE(rw);
    EXPECT_EQ(rw.error().kind, ErrorKind::Io) << rw.error().message;
    EXPECT_NE(rw.error().message.find("cannot create the folder " + (plain / "sub").string()), std::string::npos)
        << rw.error().message;

    // Importing it reports the same kind through the import's own message.
    auto target = History::open(fresh_db("import-missing-target.sqlite"));
    ASSERT_TRUE(target) << target.error().message;
    auto imported = target->import_from(absent);
    ASSERT_FALSE(imported);
    EXPECT_EQ(imported.error().kind, ErrorKind::Io) << imported.error().message;
    EXPECT_EQ(imported.error().message.rfind("cannot import: ", 0), 0u) << imported.error().message;
}

TEST(HistoryRefusal, EmptyFileBecomesAHistory) {
    const std::string path = fresh_db("empty.sqlite");
    test::write_bytes(path, "");
    auto ro = History::open(path, db::OpenMode::ReadOnly);
    ASSERT_FALSE(ro);
    EXPECT_NE(ro.error().message.find("empty"), std::string::npos);
    EXPECT_EQ(ro.error().kind, ErrorKind::Invalid);  // the file is there; it holds no history
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->schema_version(), db::kSchemaVersion);
}

// ---- crashes, full disks, concurrency ------------------------------------------------------

TEST(HistoryCrash, SigkillWhileStoringKeepsEarlierRunsAndMarksTheRunIncomplete) {
    const std::string path = make_history("sigkill.sqlite");
    constexpr std::size_t kBatch = 200000;
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The child stores a run the way the recorder does, in batches of events, forever.
        ::close(ready[0]);
        auto h = History::open(path);
        if (!h) ::_exit(3);
        auto id = h->begin_run(test::test_run_info(1, "killed.variant"));
        if (!id) ::_exit(4);
        const auto events = test::test_events(kBatch, "doomed");
        const char go = 1;
        if (::write(ready[1], &go, 1) != 1) ::_exit(5);
        for (;;)
            if (!h->add_events(*id, events)) ::_exit(6);
    }
    ::close(ready[1]);
    char go = 0;
    ASSERT_EQ(::read(ready[0], &go, 1), 1) << "the child could not start writing";
    ::close(ready[0]);
    ::usleep(150 * 1000);  // well inside a transaction of 200,000 events
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child exited by itself: " << status;

    auto h = History::open(path);  // includes the integrity check
    ASSERT_TRUE(h) << h.error().message;
    auto runs = h->list_runs();
    ASSERT_TRUE(runs) << runs.error().message;
    ASSERT_EQ(runs->size(), 4u);
    for (std::int64_t id = 1; id <= 3; ++id) {
        auto d = h->load_run(id);
        ASSERT_TRUE(d) << d.error().message;
        EXPECT_EQ(d->row.summary.status, "ok");
        EXPECT_EQ(d->samples.size(), 3u);
        EXPECT_EQ(d->events, test::test_events(5000));
    }
    auto killed = h->load_run(4, false);
    ASSERT_TRUE(killed) << killed.error().message;
    EXPECT_EQ(killed->row.info.variant, "killed.variant");
    EXPECT_EQ(db::display_status(killed->row.summary.status), "incomplete");
    EXPECT_EQ(killed->event_count % kBatch, 0u) << "a partly written batch is visible";
    EXPECT_TRUE(h->begin_run(test::test_run_info(1)));  // and the history takes new runs
}

TEST(HistoryCrash, FullDiskReachesTheCallerAndKeepsEarlierRuns) {
    const std::string path = make_history("full.sqlite");
    {
        auto h = History::open(path);
        ASSERT_TRUE(h) << h.error().message;
        ASSERT_TRUE(h->limit_pages(1));  // never below the current size: no page can be added
        // Straight through the API ...
        auto id = h->begin_run(test::test_run_info(1, "too.big"));
        std::vector<std::uint8_t> noise(4 << 20);
        for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = std::uint8_t((i * 2654435761u) >> 24);
        auto full = id ? h->add_recording(*id, "bfs_levels", noise) : Expected<void>(id.error());
        ASSERT_FALSE(full);
        EXPECT_NE(full.error().message.find("disk is full"), std::string::npos) << full.error().message;
        EXPECT_EQ(full.error().kind, ErrorKind::Io);

        // ... and through the recorder, whose error the CLI prints.
        auto map = std::make_shared<const GridMap>(test::test_map(1024, 1024, 9));  // 4 MiB of levels
        RunRequest request;
        request.variant_id = "bfs.cpu.queue";
        request.problem.map = map;
        request.problem.rules.connectivity = Connectivity::Four;
        request.problem.goal = map->index(*nearest_passable(*map, {0, 0}));
        request.validate = false;
        db::HistoryRecorder recorder(*h);
        const RunReport report = run_variant(request, &recorder);
        recorder.record(request, report);
        EXPECT_EQ(report.result.status, RunStatus::Ok) << "the run itself is unaffected";
        ASSERT_TRUE(recorder.error().has_value());
        EXPECT_NE(recorder.error()->message.find("disk is full"), std::string::npos) << recorder.error()->message;
        EXPECT_EQ(recorder.error()->kind, ErrorKind::Io);
    }
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    for (std::int64_t id = 1; id <= 3; ++id) {
        auto d = h->load_run(id);
        ASSERT_TRUE(d) << d.error().message;
        EXPECT_EQ(d->row.summary.status, "ok");
        EXPECT_EQ(d->event_count, 5000u);
    }
    const auto runs = h->list_runs().value();
    for (const auto& r : runs) {
        if (r.id <= 3) continue;
        if (r.info.variant == "too.big") {
            EXPECT_EQ(db::display_status(r.summary.status), "incomplete");
        } else {  // the recorder stores the summary before the recording that did not fit
            EXPECT_EQ(r.summary.status, "ok");
            EXPECT_TRUE(h->load_run(r.id, false).value().recordings.empty());
        }
    }
}

TEST(HistoryConcurrency, TwoProcessesWritingTheSameFileBothSucceed) {
    const std::string path = make_history("two-writers.sqlite");
    constexpr int kRunsEach = 15;
    pid_t children[2];
    for (pid_t& child : children) {
        child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            auto h = History::open(path);
            if (!h) ::_exit(3);
            for (int i = 0; i < kRunsEach; ++i)
                if (test::store_test_run(*h, 1, "writer." + std::to_string(::getpid()), 3000) == 0) ::_exit(4);
            ::_exit(::testing::Test::HasFailure() ? 5 : 0);
        }
    }
    for (pid_t child : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed: " << status;
    }
    auto h = History::open(path);
    ASSERT_TRUE(h) << h.error().message;
    const auto runs = h->list_runs().value();
    EXPECT_EQ(runs.size(), 3u + 2 * kRunsEach);
    for (const auto& r : runs) {
        EXPECT_EQ(r.summary.status, "ok");
        EXPECT_EQ(r.repetitions, 3);
    }
}

}  // namespace
}  // namespace ps
