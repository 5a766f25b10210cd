// Fixtures shared by the history tests: fresh database paths, file fingerprints (to prove a
// refused file was not modified), typical runs and events, and raw SQLite access for
// checks the History API deliberately does not offer.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "database/codec.hpp"
#include "database/history.hpp"
#include "tests/support/test_support.hpp"

namespace ps::test {

// A history path with no leftovers (the database and its WAL files) from an earlier test
// in the same process.
inline std::string fresh_db(const std::string& name) {
    const std::string path = temp_path(name);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix);
    return path;
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline std::string fingerprint(const std::string& path) {
    const std::string bytes = file_bytes(path);
    return db::sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
}

inline GridMap test_map(int width, int height, unsigned salt) {
    GridMap map(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) map.set_passable(x, y, ((x * 7 + y * 13 + int(salt)) % 5) != 0);
    map.name = "test-" + std::to_string(width) + "x" + std::to_string(height) + "-" + std::to_string(salt);
    return map;
}

inline db::RunInfo test_run_info(std::int64_t map_id, const std::string& variant = "bfs.cpu.queue") {
    db::RunInfo info;
    info.map_id = map_id;
    info.variant = variant;
    info.family = "bfs";
    info.device_kind = "cpu";
    info.params_json = R"({"connectivity":4})";
    info.start_x = 1, info.start_y = 2, info.goal_x = 30, info.goal_y = 40;
    info.device_name = "Test CPU";
    info.host = "testhost";
    info.build_commit = "abc1234";
    return info;
}

inline std::vector<db::TimelineEvent> test_events(std::size_t n, const std::string& prefix = "kernel") {
    std::vector<db::TimelineEvent> events(n);
    for (std::size_t i = 0; i < n; ++i) {
        auto& e = events[i];
        e.kind = i % 3 ? "kernel" : "memcpy";
        e.name = prefix + std::to_string(i % 17);
        e.track = "stream " + std::to_string(i % 4);
        e.start_ns = std::int64_t(i) * 1000;
        e.end_ns = e.start_ns + 700;
        e.correlation_id = i;
        e.payload = i % 10 ? std::string() : R"({"level":)" + std::to_string(i) + "}";
    }
    return events;
}

// A finished run with samples and events; returns its id.
inline std::int64_t store_test_run(db::History& h, std::int64_t map_id, const std::string& variant = "bfs.cpu.queue",
                                   std::size_t events = 100) {
    auto id = h.begin_run(test_run_info(map_id, variant));
    EXPECT_TRUE(id) << id.error().message;
    if (!id) return 0;
    std::vector<db::PhaseSample> samples;
    for (int r = 0; r < 3; ++r) samples.push_back({r, 0.1, 0.2, 1.0 + r, 0.3, 1.6 + r});
    EXPECT_TRUE(h.add_samples(*id, samples));
    EXPECT_TRUE(h.add_events(*id, test_events(events)));
    db::RunSummary summary;
    summary.validation = "passed";
    summary.found = true;
    summary.cost = 42.5;
    EXPECT_TRUE(h.finish_run(*id, summary));
    return *id;
}

// Raw SQLite access for checks the API does not offer (row counts, pragmas, foreign files).
class RawDb {
public:
    explicit RawDb(const std::string& path, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) {
        if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK) ADD_FAILURE() << sqlite3_errmsg(m_db);
    }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;
    ~RawDb() { sqlite3_close(m_db); }

    int exec(const std::string& sql) { return sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr); }
    std::int64_t integer(const std::string& sql) {
        sqlite3_stmt* s = nullptr;
        std::int64_t v = -1;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
            v = sqlite3_column_int64(s, 0);
        else
            ADD_FAILURE() << sql << ": " << sqlite3_errmsg(m_db);
        sqlite3_finalize(s);
        return v;
    }
    sqlite3* get() { return m_db; }

private:
    sqlite3* m_db = nullptr;
};

}  // namespace ps::test
