// `pathscope-cli run --record --db F` (and bench --record) stores the search's recording with the run, so runs made
// headless (on a GPU server) animate in the window later; without --record an A* run stores none.
#include <gtest/gtest.h>

#include <cstdio>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "tests/support/cli_test_support.hpp"

namespace ps {
namespace {

TEST(CliRecord, RunRecordStoresTheSearchForTheWindow) {
    const std::string path = test::temp_path("record.sqlite");
    std::remove(path.c_str());
    const auto with = test::run_cli("run --gen noise --size 64 --variant astar.cpu,jps.cpu --record --db " + path);
    ASSERT_EQ(with.exit_code, 0) << with.err;
    const auto without = test::run_cli("run --gen noise --size 64 --variant astar.cpu --db " + path);
    ASSERT_EQ(without.exit_code, 0) << without.err;
    auto history = db::History::open(path);
    ASSERT_TRUE(history);
    auto runs = history->list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 3u);  // newest first: the plain run, then jps.cpu and astar.cpu recorded
    for (std::size_t i = 1; i < 3; ++i) {
        auto bytes = history->load_recording((*runs)[i].id, db::kSearchEventsKind);
        ASSERT_TRUE(bytes) << (*runs)[i].info.variant << ": " << bytes.error().message;
        auto events = db::decode_search_events(*bytes);
        ASSERT_TRUE(events);
        EXPECT_FALSE(events->events.empty()) << (*runs)[i].info.variant;
        EXPECT_GT(events->steps, 0u);
    }
    EXPECT_FALSE(history->load_recording((*runs)[0].id, db::kSearchEventsKind));
}

TEST(CliRecord, BenchRecordStoresEveryRunsSearch) {
    const std::string path = test::temp_path("bench-record.sqlite");
    std::remove(path.c_str());
    const auto r = test::run_cli(
        "bench --family astar --sizes 48 --grids random,maze --repeat 1 --warmup 0 "
        "--variant astar.cpu,jps.cpu --record --db " +
        path);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto history = db::History::open(path);
    ASSERT_TRUE(history);
    auto runs = history->list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 4u);
    for (const auto& run : *runs) {
        auto bytes = history->load_recording(run.id, db::kSearchEventsKind);
        ASSERT_TRUE(bytes) << run.info.variant;
        EXPECT_FALSE(db::decode_search_events(*bytes).value().events.empty());
    }
    // The scen bench stores one run per file, not one per query: nothing to record there.
    EXPECT_EQ(test::run_cli("bench --family scen --scen x.scen --record").exit_code, 2);
}

}  // namespace
}  // namespace ps
