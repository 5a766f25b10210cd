// Worker threads kept between runs (kernels/base/worker_pool.hpp).
#include "kernels/base/worker_pool.hpp"

namespace ps {
namespace {

// Runs one job, keeping the first exception of the run in `error` (under `mutex`).
void guarded(const std::function<void(unsigned)>& job, unsigned index, std::mutex& mutex, std::exception_ptr& error) {
    try {
        job(index);
    } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
    }
}

}  // namespace

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_threads.clear();  // joins
}

WorkerPool& WorkerPool::shared() {
    static WorkerPool pool;
    return pool;
}

unsigned WorkerPool::kept() const {
    std::lock_guard lock(m_mutex);
    return unsigned(m_threads.size());
}

void WorkerPool::park_loop(unsigned index) {
    std::uint64_t seen = 0;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
        if (m_stop) return;
        seen = m_generation;
        if (index >= m_wanted) continue;  // a run of fewer workers: stay parked
        const auto* job = m_job;
        lock.unlock();
        guarded(*job, index, m_mutex, m_error);
        lock.lock();
        if (--m_running == 0) m_done.notify_one();
    }
}

unsigned WorkerPool::run(unsigned n, const std::function<void(unsigned)>& job) {
    if (n <= 1) {  // no worker to wake
        if (n == 1) job(0);
        return 0;
    }
    std::unique_lock busy(m_busy, std::try_to_lock);
    if (!busy.owns_lock() || n - 1 > kMaxKept) {
        std::mutex mutex;
        std::exception_ptr error;
        {
            std::vector<std::jthread> threads;
            threads.reserve(n - 1);
            for (unsigned i = 1; i < n; ++i) threads.emplace_back([&, i] { guarded(job, i, mutex, error); });
            guarded(job, 0, mutex, error);
        }
        if (error) std::rethrow_exception(error);
        return n - 1;
    }
    unsigned started = 0;
    {
        std::lock_guard lock(m_mutex);
        // A thread started here sees this run's generation at its first wait (it cannot take
        // the mutex before this block ends) and takes part in it.
        while (m_threads.size() + 1 < n) {
            const unsigned index = unsigned(m_threads.size()) + 1;
            m_threads.emplace_back([this, index] { park_loop(index); });
            ++started;
        }
        m_job = &job;
        m_wanted = n;
        m_running = n - 1;
        m_error = nullptr;
        ++m_generation;
    }
    m_wake.notify_all();
    std::exception_ptr error;
    guarded(job, 0, m_mutex, error);
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [&] { return m_running == 0; });
    if (!error) error = m_error;
    m_job = nullptr;
    m_error = nullptr;
    lock.unlock();
    if (error) std::rethrow_exception(error);
    return started;
}

}  // namespace ps
