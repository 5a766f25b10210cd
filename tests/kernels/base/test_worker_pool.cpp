// The worker pool batch.cpu runs on (kernels/base/worker_pool.hpp): every index runs exactly
// once a run, on as many distinct threads, threads stay parked between runs, two runs at once
// both finish, and an exception reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/base/worker_pool.hpp"

namespace ps {
namespace {

// Runs n workers that wait for each other (so each is on its own thread at once) and records
// which thread ran which index.
struct Recorded {
    std::vector<int> runs;
    std::set<std::thread::id> threads;
    unsigned started = 0;
};
Recorded run_meeting(WorkerPool& pool, unsigned n) {
    Recorded r;
    r.runs.assign(n, 0);
    std::mutex mutex;
    std::latch all_in(n);  // no index returns before every index runs: n threads at once
    r.started = pool.run(n, [&](unsigned i) {
        {
            std::lock_guard lock(mutex);
            ++r.runs[i];
            r.threads.insert(std::this_thread::get_id());
        }
        all_in.arrive_and_wait();
    });
    return r;
}

TEST(WorkerPool, EveryIndexRunsOnceOnItsOwnThreadAndThreadsStayParked) {
    WorkerPool pool;
    const auto caller = std::this_thread::get_id();
    // Growing, shrinking and growing again: only threads beyond the most yet asked are started.
    const std::vector<std::pair<unsigned, unsigned>> runs = {{1, 0}, {4, 3}, {4, 0}, {2, 0}, {7, 3}, {3, 0}, {7, 0}};
    for (const auto& [n, started] : runs) {
        SCOPED_TRACE(std::to_string(n) + " workers");
        const Recorded r = run_meeting(pool, n);
        EXPECT_EQ(r.runs, std::vector<int>(n, 1));
        EXPECT_EQ(r.threads.size(), n);
        EXPECT_TRUE(r.threads.contains(caller));  // worker 0 is the calling thread
        EXPECT_EQ(r.started, started);
    }
    EXPECT_EQ(pool.kept(), 6u);
}

TEST(WorkerPool, TwoRunsAtOnceBothFinishOnTheirOwnThreads) {
    WorkerPool pool;
    run_meeting(pool, 3);  // two threads parked
    // Run A holds the pool until run B (started meanwhile on its own threads) has finished.
    std::atomic<bool> b_done{false};
    Recorded b;
    std::jthread other;
    const unsigned a_started = pool.run(3, [&](unsigned i) {
        if (i != 0) return;
        other = std::jthread([&] {
            b = run_meeting(pool, 4);
            b_done = true;
        });
        other.join();
    });
    EXPECT_EQ(a_started, 0u);
    ASSERT_TRUE(b_done.load());
    EXPECT_EQ(b.runs, std::vector<int>(4, 1));
    EXPECT_EQ(b.threads.size(), 4u);
    EXPECT_EQ(b.started, 3u);    // the pool was busy: B started its own threads
    EXPECT_EQ(pool.kept(), 2u);  // and kept none of them
}

TEST(WorkerPool, AnExceptionReachesTheCallerAfterEveryWorkerEnds) {
    WorkerPool pool;
    for (const unsigned thrower : {0u, 2u}) {
        std::atomic<int> ended{0};
        EXPECT_THROW(pool.run(4,
                              [&](unsigned i) {
                                  if (i == thrower) throw std::runtime_error("worker failed");
                                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                  ++ended;
                              }),
                     std::runtime_error);
        EXPECT_EQ(ended.load(), 3);
    }
    // The pool still works after it.
    EXPECT_EQ(run_meeting(pool, 4).runs, std::vector<int>(4, 1));
}

}  // namespace
}  // namespace ps
