// Worker threads kept between runs of the process. A run of N workers wakes N - 1 parked
// threads instead of starting them (the calling thread is worker 0), so that a batch of short
// searches measures its searches and not the operating system's thread start-up: on the H200
// host, 130 arena queries took 0.42-0.66 ms on 16 freshly started threads, of 0.98 ms for all
// of them on one here.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ps {

class WorkerPool {
public:
    WorkerPool() = default;
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    ~WorkerPool();  // wakes and joins the parked threads

    // Runs job(0) .. job(n - 1) at once, job(0) on the calling thread, and returns when every one
    // has returned; the first exception a job throws is rethrown here after the others end.
    // While another run holds the pool (two runs at once in the window), or above kMaxKept
    // threads, the workers are started for this run and joined after it, as without a pool.
    // Returns how many threads this run started (0 when the pool had them all parked).
    unsigned run(unsigned n, const std::function<void(unsigned)>& job);

    unsigned kept() const;  // threads parked between runs

    // The process's pool (batch.cpu's workers).
    static WorkerPool& shared();

    static constexpr unsigned kMaxKept = 256;

private:
    void park_loop(unsigned index);

    std::mutex m_busy;  // held by the run using the pool's threads
    mutable std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::vector<std::jthread> m_threads;  // worker i + 1
    const std::function<void(unsigned)>* m_job = nullptr;
    unsigned m_wanted = 0;   // workers 1 .. m_wanted - 1 take part in run m_generation
    unsigned m_running = 0;  // of them, still running the job
    std::uint64_t m_generation = 0;
    std::exception_ptr m_error;
    bool m_stop = false;
};

}  // namespace ps
