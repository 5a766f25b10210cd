// Helpers shared by the tests: where the shared MovingAI maps are, and how to skip visibly
// when they are absent (a user's fresh clone has no ../shared).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

namespace ps::test {

inline std::filesystem::path movingai_dir() {
    return std::filesystem::path(PATHSCOPE_SHARED_DIR) / "maps" / "movingai";
}

inline bool have_movingai() { return std::filesystem::exists(movingai_dir() / "arena.map"); }

#define PS_REQUIRE_MOVINGAI()                                                                      \
    do {                                                                                           \
        if (!::ps::test::have_movingai())                                                          \
            GTEST_SKIP() << "shared MovingAI maps not found at " << ::ps::test::movingai_dir()     \
                         << " (set -DPATHSCOPE_SHARED_DIR=... to the shared folder)";              \
    } while (0)

inline std::string temp_path(const std::string& name) {
    // One folder per process: ctest runs tests in parallel processes.
    auto dir = std::filesystem::temp_directory_path() / ("pathscope-tests-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

}  // namespace ps::test
