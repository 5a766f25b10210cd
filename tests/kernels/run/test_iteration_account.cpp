// The GPU's account in bench --family scen, on hand-worked numbers: iterations and compute summed
// over queries run one by one, the queries that moved into global tables apart, and a batch's
// longest chain.
#include <gtest/gtest.h>

#include "kernels/run/iteration_account.hpp"

namespace ps {
namespace {

RunResult query(double compute_ms, double iterations, int moved) {
    RunResult r;
    r.phases.compute_ms = compute_ms;
    r.counters["iterations"] = iterations;
    if (moved >= 0) r.counters["queries_moved"] = moved;
    return r;
}

TEST(IterationAccount, SplitsTheMovedQueriesFromTheOthers) {
    IterationAccount a;
    a.add(query(1.2, 400, 1));  // 3.0 us an iteration, in a global table
    a.add(query(0.3, 100, 0));
    a.add(query(0.2, 100, 0));  // the two others: 0.5 ms over 200 iterations, 2.5 us
    ASSERT_TRUE(a.counted());
    EXPECT_EQ(a.queries, 3u);
    EXPECT_EQ(a.moved, 1u);
    EXPECT_DOUBLE_EQ(a.iterations, 600.0);
    EXPECT_NEAR(a.us_per_iteration(), 1700.0 / 600.0, 1e-9);
    EXPECT_NEAR(a.moved_us_per_iteration(), 3.0, 1e-9);
    EXPECT_NEAR(a.on_chip_us_per_iteration(), 2.5, 1e-9);
    EXPECT_EQ(a.text(),
              "600 iterations, 2.83 us each; 1 of 3 queries moved into global tables: 1.2 of 1.7 ms, 3.00 us an "
              "iteration (the others 2.50)");
}

TEST(IterationAccount, SaysNoMovesWhereTheVariantHasNoTables) {
    IterationAccount none;
    none.add(query(0.4, 200, -1));  // a grid-barrier A*: iterations, no on-chip tables
    EXPECT_EQ(none.text(), "200 iterations, 2.00 us each");

    IterationAccount all_moved;
    all_moved.add(query(0.9, 300, 1));
    EXPECT_EQ(all_moved.text(),
              "300 iterations, 3.00 us each; 1 of 1 queries moved into global tables: 0.9 of 0.9 ms, "
              "3.00 us an iteration");

    IterationAccount on_chip;
    on_chip.add(query(0.1, 50, 0));
    EXPECT_EQ(on_chip.text(), "50 iterations, 2.00 us each; 0 of 1 queries moved into global tables");
}

TEST(IterationAccount, CountsNothingForCpuRuns) {
    IterationAccount a;
    RunResult cpu;
    cpu.phases.compute_ms = 3.0;
    cpu.expanded = 1000;
    a.add(cpu);
    EXPECT_FALSE(a.counted());
    EXPECT_EQ(a.text(), "");
    EXPECT_FALSE(IterationAccount::of_batch(cpu, 10, 3.0).counted());
}

TEST(IterationAccount, ABatchWaitsForItsLongestQuery) {
    RunResult run;
    run.counters["max_iterations"] = 23;
    run.counters["iterations"] = 1500;  // the sum over the queries: not what the batch waits for
    run.counters["queries_moved"] = 2;
    const IterationAccount a = IterationAccount::of_batch(run, 130, 0.069);
    EXPECT_DOUBLE_EQ(a.iterations, 23.0);
    EXPECT_NEAR(a.us_per_iteration(), 3.0, 1e-9);
    EXPECT_EQ(a.text(),
              "its longest query 23 iterations, 3.00 us of the compute each; 2 of 130 queries moved into "
              "global tables");
}

TEST(IterationAccount, ABatchInWavesHasNoTimePerIteration) {
    RunResult run;
    run.counters["max_iterations"] = 1225;
    run.counters["queries_moved"] = 40;
    run.counters["on_chip_blocks"] = 264;  // 1780 queries, 264 at a time
    const IterationAccount waves = IterationAccount::of_batch(run, 1780, 18.9);
    EXPECT_DOUBLE_EQ(waves.us_per_iteration(), 0.0);
    EXPECT_EQ(waves.text(),
              "its longest query 1225 iterations (1780 queries on 264 blocks: no one chain); 40 of 1780 "
              "queries moved into global tables");
    run.counters["on_chip_blocks"] = 178;  // every query on its own block at once
    EXPECT_NEAR(IterationAccount::of_batch(run, 178, 4.9).us_per_iteration(), 4.0, 1e-9);
}

}  // namespace
}  // namespace ps
