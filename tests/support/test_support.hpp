// Helpers shared by the tests: where the shared MovingAI maps are, and how to skip visibly
// when they are absent (a user's fresh clone has no ../shared).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "instrumentation/timeline/timeline.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/map/map_io.hpp"

namespace ps::test {

inline std::filesystem::path movingai_dir() {
    return std::filesystem::path(PATHSCOPE_SHARED_DIR) / "maps" / "movingai";
}

inline bool have_movingai() { return std::filesystem::exists(movingai_dir() / "arena.map"); }

#define PS_REQUIRE_MOVINGAI()                                                                  \
    do {                                                                                       \
        if (!::ps::test::have_movingai())                                                      \
            GTEST_SKIP() << "shared MovingAI maps not found at " << ::ps::test::movingai_dir() \
                         << " (set -DPATHSCOPE_SHARED_DIR=... to the shared folder)";          \
    } while (0)

// The shared MovingAI maps the tests hold every variant to, and one of them with its scenarios.
inline constexpr const char* kMovingAiMaps[] = {"arena", "den520d", "random512-10-0"};
struct MovingAiCase {
    GridMap map;
    ScenarioFile scen;
};
inline Expected<MovingAiCase> load_movingai(const std::string& name) {
    auto map = read_movingai_map((movingai_dir() / (name + ".map")).string());
    if (!map) return map.error();
    auto scen = read_movingai_scen((movingai_dir() / (name + ".map.scen")).string());
    if (!scen) return scen.error();
    return MovingAiCase{std::move(*map), std::move(*scen)};
}

// `path` runs from s to g by legal steps under `rules`, and its steps add up to `cost` (exactly
// in the integer metric). Call it as ASSERT_NO_FATAL_FAILURE(expect_legal_path(...)).
inline void expect_legal_path(const GridMap& map, MoveRules rules, CostMode mode, Vertex s, Vertex g,
                              const std::vector<Vertex>& path, double cost) {
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(path.front(), s);
    EXPECT_EQ(path.back(), g);
    double sum = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
        bool diagonal = false;
        ASSERT_TRUE(is_grid_step(map, rules, path[i - 1], path[i], &diagonal)) << "step " << i;
        sum += weighted_step_cost(mode, map.cost(path[i - 1]), map.cost(path[i]), diagonal);
    }
    if (mode == CostMode::Integer)
        EXPECT_EQ(sum, cost);
    else
        EXPECT_NEAR(sum, cost, 1e-9 * std::max(1.0, cost));
}

// A file's whole content ("" when it cannot be read).
inline std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A folder removed with everything in it when the object dies.
class TempDir {
public:
    explicit TempDir(std::filesystem::path path) : m_path(std::move(path)) {
        std::filesystem::create_directories(m_path);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ec;  // never throw from a destructor; a leftover is only untidy
        std::filesystem::remove_all(m_path, ec);
    }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

// This process's scratch folder: one per process (ctest runs tests in parallel processes),
// removed when the process exits normally, so a suite run leaves nothing in /tmp.
inline const std::filesystem::path& process_temp_dir() {
    static const TempDir dir(std::filesystem::temp_directory_path() /
                             ("pathscope-tests-" + std::to_string(::getpid())));
    return dir.path();
}

inline std::string temp_path(const std::string& name) {
    const auto& dir = process_temp_dir();
    std::filesystem::create_directories(dir);  // a test may have removed it
    return (dir / name).string();
}

// A map drawn in text: '.' passable, '@' or '#' blocked, a digit 1..9 a cell of that cost
// (weighted terrain); row y is rows[y].
inline GridMap map_from_rows(const std::vector<std::string>& rows) {
    GridMap map(int(rows.front().size()), int(rows.size()));
    for (int y = 0; y < map.height(); ++y)
        for (int x = 0; x < map.width(); ++x) {
            const char c = rows[std::size_t(y)][std::size_t(x)];
            if (c >= '1' && c <= '9')
                map.set_cost(x, y, std::uint8_t(c - '0'));
            else
                map.set_passable(x, y, c != '@' && c != '#');
        }
    return map;
}

inline std::shared_ptr<const GridMap> shared_map(const std::vector<std::string>& rows) {
    return std::make_shared<const GridMap>(map_from_rows(rows));
}

// Small local LCG so test maps do not depend on the generators under test elsewhere.
class Lcg {
public:
    explicit Lcg(std::uint64_t seed) : m_state(seed * 2862933555777941757ull + 3037000493ull) {}
    std::uint32_t next() {
        m_state = m_state * 6364136223846793005ull + 1442695040888963407ull;
        return std::uint32_t(m_state >> 33);
    }
    std::uint32_t below(std::uint32_t n) { return next() % n; }

private:
    std::uint64_t m_state;
};

// The Jump Point Searches' hand-worked map: around the wall's end (0,0) -> (0,2) is 2 steps
// down on the left, (1,0) -> (4,2) needs 7 orthogonal steps (no corner cutting), and the far
// side (x >= 7) is walled off.
inline std::shared_ptr<const GridMap> wall_end_map() {
    return shared_map({
        "......#..",
        ".####.#..",
        "......#..",
        "#######..",
    });
}

inline GridMap random_map(int width, int height, double density, std::uint64_t seed) {
    Lcg rng(seed);
    GridMap map(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) map.set_passable(x, y, rng.below(1000) >= std::uint32_t(density * 1000));
    return map;
}

inline Vertex random_passable(const GridMap& map, Lcg& rng) {
    for (;;) {
        const Vertex v = rng.below(std::uint32_t(map.cell_count()));
        if (map.passable(v)) return v;
    }
}

// A host-launched kernel as CUPTI reports it, on stream `stream` of `t`.
inline trace::Event kernel_event(trace::Timeline& t, std::string name, std::int64_t start, std::int64_t end,
                                 std::uint64_t stream = 13) {
    trace::Event e;
    e.kind = trace::EventKind::Kernel;
    e.name = std::move(name);
    e.track = t.add_track(trace::TrackKind::GpuStream, stream, "stream " + std::to_string(stream));
    e.start_ns = start;
    e.end_ns = end;
    return e;
}

}  // namespace ps::test
