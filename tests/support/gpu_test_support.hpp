// Helpers shared by the GPU tests: skip visibly without a GPU, generated maps, the check that a
// GPU A* output is optimal against the CPU A* in the integer metric, and a watchdog for kernels
// whose blocks wait at grid barriers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kernels/astar/astar_gpu.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "tests/support/test_support.hpp"

#define PS_REQUIRE_GPU()                                                                        \
    do {                                                                                        \
        if (!::ps::gpu_info().available) GTEST_SKIP() << "no GPU: " << ::ps::gpu_info().reason; \
    } while (0)

namespace ps::test {

// Ends the process with a message when not disarmed (destroyed) within `seconds`: a cooperative
// kernel stuck at a grid barrier cannot be cancelled from the host, and a hung test run says
// nothing. `who` names the test family in the message.
class Watchdog {
public:
    Watchdog(std::string who, std::string label, int seconds) : m_label(std::move(label)) {
        m_thread = std::thread([this, who = std::move(who), seconds] {
            std::unique_lock lock(m_mutex);
            if (!m_done.wait_for(lock, std::chrono::seconds(seconds), [this] { return m_disarmed; })) {
                std::fprintf(stderr, "%s: %s did not finish within %d s (blocks stuck at a barrier?)\n", who.c_str(),
                             m_label.c_str(), seconds);
                std::fflush(stderr);
                std::_Exit(3);
            }
        });
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;
    ~Watchdog() {
        {
            std::lock_guard lock(m_mutex);
            m_disarmed = true;
        }
        m_done.notify_all();
        m_thread.join();
    }

private:
    std::string m_label;
    std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_disarmed = false;
    std::thread m_thread;
};

inline std::shared_ptr<const GridMap> generated(GeneratorKind kind, int w, int h, std::uint64_t seed,
                                                double density = 0.2, int corridor = 1) {
    GeneratorParams p;
    p.kind = kind;
    p.width = w;
    p.height = h;
    p.seed = seed;
    p.density = density;
    p.corridor_width = corridor;
    return std::make_shared<const GridMap>(generate_map(p).value());
}

// Small maps of every generator kind at odd sizes (a maze of corridor 3, random maps with
// closed pockets) on which the course's searches are checked against each other.
inline std::vector<std::shared_ptr<const GridMap>> course_maps() {
    return {generated(GeneratorKind::Empty, 37, 23, 1),
            generated(GeneratorKind::Random, 61, 47, 2, 0.3),
            generated(GeneratorKind::Rectangles, 90, 67, 6, 0.25),
            generated(GeneratorKind::Maze, 71, 57, 4, 0.0, 1),
            generated(GeneratorKind::Maze, 83, 61, 8, 0.0, 3),
            generated(GeneratorKind::Noise, 111, 77, 9, 0.45),
            generated(GeneratorKind::Division, 89, 71, 10),
            std::make_shared<const GridMap>(random_map(60, 40, 0.35, 11))};
}

// One GPU query's answer (its error, cost and path; cost -1: unreachable) against astar_grid under
// `rules`: the same cost (exact in the integer metric, 1e-9 relative in the real one) and a legal
// path from s to g as long as it, or no path where the CPU finds none. `label` names the run.
inline void expect_query_equals_cpu(const GridMap& map, MoveRules rules, CostMode mode, Vertex s, Vertex g,
                                    const std::string& error, double cost, const std::vector<Vertex>& path,
                                    const std::string& label) {
    const Cell a = map.cell(s), b = map.cell(g);
    SCOPED_TRACE(map.name + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) + " (" +
                 std::to_string(a.x) + "," + std::to_string(a.y) + ")->(" + std::to_string(b.x) + "," +
                 std::to_string(b.y) + ") " +
                 (rules.connectivity == Connectivity::Four ? "4-connected" : "8-connected") + " corners=" +
                 std::string(to_string(rules.corners)) + (mode == CostMode::Integer ? " integer " : " real ") + label);
    EXPECT_TRUE(error.empty()) << error;
    const SearchOutput cpu = astar_grid(map, {rules, mode, Heuristic::Octile}, s, g);
    if (!cpu.found) {
        EXPECT_EQ(cost, -1.0);
        EXPECT_TRUE(path.empty());
        return;
    }
    if (mode == CostMode::Integer)
        EXPECT_EQ(cost, cpu.cost);
    else
        EXPECT_NEAR(cost, cpu.cost, 1e-9 * std::max(1.0, cpu.cost));
    EXPECT_NO_FATAL_FAILURE(expect_legal_path(map, rules, mode, s, g, path, cost));
}

// Checks a GPU A* output against astar_grid: same reachability, same integer cost, and a legal
// path from start to goal whose steps add up to that cost. `label` names the variant in failures.
inline void expect_optimal_astar(const GridMap& map, MoveRules rules, Vertex start, Vertex goal,
                                 const gpu::AStarGpuOutput& out, const std::string& label) {
    const GridSearchSpec spec{rules, CostMode::Integer, Heuristic::Octile};
    const SearchOutput cpu = astar_grid(map, spec, start, goal);
    const Cell s = map.cell(start), g = map.cell(goal);
    SCOPED_TRACE(map.name + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) + " (" +
                 std::to_string(s.x) + "," + std::to_string(s.y) + ")->(" + std::to_string(g.x) + "," +
                 std::to_string(g.y) + ") corners=" + std::string(to_string(rules.corners)) + " " + label);
    ASSERT_TRUE(out.error.empty()) << out.error;
    ASSERT_EQ(out.found, cpu.found);
    if (!cpu.found) {
        EXPECT_TRUE(out.path.empty());
        return;
    }
    EXPECT_EQ(double(out.cost), cpu.cost);
    ASSERT_FALSE(out.path.empty());
    EXPECT_EQ(out.path.front(), start);
    EXPECT_EQ(out.path.back(), goal);
    std::int64_t sum = 0;
    for (std::size_t i = 1; i < out.path.size(); ++i) {
        bool diagonal = false;
        ASSERT_TRUE(is_grid_step(map, rules, out.path[i - 1], out.path[i], &diagonal)) << "step " << i;
        sum += std::int64_t(
            weighted_step_cost(CostMode::Integer, map.cost(out.path[i - 1]), map.cost(out.path[i]), diagonal));
    }
    EXPECT_EQ(sum, out.cost);
}

// The three corner rules on 8-connected grids.
inline std::vector<MoveRules> eight_connected_rules() {
    return {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::One},
            MoveRules{Connectivity::Eight, CornerRule::Any}};
}

}  // namespace ps::test
