// Host clock used for every phase timing: steady, nanoseconds.
#pragma once

#include <chrono>
#include <cstdint>

namespace ps {

inline std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

class Stopwatch {
public:
    Stopwatch() : m_start(now_ns()) {}
    void restart() { m_start = now_ns(); }
    std::int64_t elapsed_ns() const { return now_ns() - m_start; }
    double elapsed_ms() const { return double(elapsed_ns()) * 1e-6; }

private:
    std::int64_t m_start;
};

}  // namespace ps
