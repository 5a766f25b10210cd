// The host arithmetic of the GPU batch searches (kernels/batch/batch_plan.hpp), no GPU needed:
// the memory plan, the heap sizes behind it, the budget, the agent orders and the SIMT
// efficiency, each against hand-worked tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/batch/batch_gpu.hpp"
#include "kernels/batch/batch_plan.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps {
namespace {

using gpu::BatchGpuOptions;
using gpu::BatchOrder;
using gpu::BatchStrategy;
namespace batch = gpu::batch;

constexpr std::uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;

TEST(BatchPlan, OneLaunchWhenEverythingFits) {
    gpu::BatchGpuOptions o;
    o.strategy = gpu::BatchStrategy::Batch;
    const auto p = gpu::plan_batch_memory(1000, 8000, true, 500, o, 1ull << 30, 0);
    ASSERT_TRUE(p.error.empty()) << p.error;
    EXPECT_EQ(p.bytes_per_slot, 1000u * 8 + 1004u * 8);  // vertex states + heap (vertex count + 3 rounded to 4)
    EXPECT_EQ(p.graph_bytes, 1000u * 8 + 8000u * 16 + 1000u * 16);  // edge ranges, edges with target x/y, coords
    EXPECT_EQ(p.agent_io_bytes, 500u * 16);
    EXPECT_EQ(p.slots, 500u);
    EXPECT_EQ(p.chunks, 1u);
    EXPECT_EQ(p.working_set_bytes, p.graph_bytes + p.agent_io_bytes + 500u * p.bytes_per_slot + 24u);
}

TEST(BatchPlan, SplitsIntoLaunchesThatFitTheBudget) {
    gpu::BatchGpuOptions o;
    o.strategy = gpu::BatchStrategy::Permute;
    const std::uint64_t budget = 1ull << 20;
    const auto p = gpu::plan_batch_memory(1000, 8000, false, 1000, o, budget, 0);
    ASSERT_TRUE(p.error.empty()) << p.error;
    EXPECT_LE(p.working_set_bytes, budget);
    EXPECT_GT(p.working_set_bytes + p.bytes_per_slot, budget);  // as many slots as fit
    EXPECT_EQ(p.chunks, (1000 + p.slots - 1) / p.slots);
    EXPECT_GT(p.chunks, 1u);
    EXPECT_NE(p.describe().find("split into " + std::to_string(p.chunks) + " launches"), std::string::npos)
        << p.describe();
}

TEST(BatchPlan, QueueSlotsArePersistentThreadsNotAgents) {
    gpu::BatchGpuOptions o;
    o.strategy = gpu::BatchStrategy::Queue;
    // 100k agents on a 3000-vertex roadmap in 64 MiB: only the persistent threads' slots count.
    const auto p = gpu::plan_batch_memory(3000, 24000, true, 100000, o, 64ull << 20, 1024);
    ASSERT_TRUE(p.error.empty()) << p.error;
    EXPECT_EQ(p.slots, 1024u);
    EXPECT_EQ(p.chunks, 1u);
    // Memory-capped: fewer threads than asked for, still one launch.
    const auto q = gpu::plan_batch_memory(3000, 24000, true, 100000, o, 8ull << 20, 1024);
    ASSERT_TRUE(q.error.empty()) << q.error;
    EXPECT_LT(q.slots, 1024u);
    EXPECT_GE(q.slots, 1u);
    EXPECT_LE(q.working_set_bytes, 8ull << 20);
}

TEST(BatchPlan, SmallerHeapSmallerSlotAndClearErrorWhenNothingFits) {
    gpu::BatchGpuOptions o;
    o.strategy = gpu::BatchStrategy::Bsp;
    o.heap_capacity = 100;
    const auto p = gpu::plan_batch_memory(1000, 8000, false, 10, o, 1ull << 30, 0);
    EXPECT_EQ(p.bytes_per_slot, 1000u * 8 + 104u * 8 + 16u);  // + the bsp slot state
    const auto none = gpu::plan_batch_memory(1000, 8000, false, 10, o, 1000, 0);
    EXPECT_NE(none.error.find("not enough GPU memory"), std::string::npos) << none.error;
}

TEST(BatchPlan, HeapEntriesStartAtIndexThreeAndFillWholeSectors) {
    // ceil((capacity + 3) / 4) * 4: the heap starts at index 3 and ends on a 4-entry boundary.
    const struct {
        std::uint32_t capacity;
        std::uint64_t entries;
    } cases[] = {{0, 4}, {1, 4}, {5, 8}, {6, 12}, {1000, 1004}, {1001, 1004}, {1002, 1008}};
    for (const auto& c : cases) EXPECT_EQ(batch::heap_entries(c.capacity), c.entries) << c.capacity;
}

TEST(BatchPlan, HeapTopsAreWholeLevelsOfTheFourAryHeap) {
    // 1 + 4 + 16 + 64: the first levels of a 4-ary heap.
    const std::uint32_t levels[] = {0, 1, 5, 21, 85};
    for (int l = 0; l < 5; ++l) EXPECT_EQ(batch::top_entries(l), levels[l]) << l;
    const struct {
        BatchStrategy strategy;
        int shared_levels;
        std::uint32_t capacity, top;
    } cases[] = {
        {BatchStrategy::Queue, 3, 100, 21},
        {BatchStrategy::Batch, 4, 100, 85},
        {BatchStrategy::Permute, 3, 10, 10},  // never more than the heap holds
        {BatchStrategy::Batch, 0, 100, 0},
        {BatchStrategy::Bsp, 3, 100, 0},  // its searches outlive a launch: nothing on chip
    };
    for (const auto& c : cases) {
        BatchGpuOptions o;
        o.strategy = c.strategy;
        o.shared_levels = c.shared_levels;
        EXPECT_EQ(batch::top_entries(o, c.capacity), c.top) << gpu::to_string(c.strategy) << " " << c.shared_levels;
    }
}

TEST(BatchPlan, HeapCapacityIsTheOptionWithinTheVertexCount) {
    const struct {
        std::uint32_t option;
        std::uint64_t vertices;
        std::uint32_t capacity;
    } cases[] = {{0, 1000, 1000}, {0, 0, 1}, {100, 1000, 100}, {5000, 1000, 1000}, {7, 0, 1}};
    for (const auto& c : cases) {
        BatchGpuOptions o;
        o.heap_capacity = c.option;
        EXPECT_EQ(batch::heap_capacity(o, c.vertices), c.capacity) << c.option << " " << c.vertices;
    }
}

TEST(BatchPlan, PermuteAlwaysShufflesAndBspRunsInIndexOrder) {
    const struct {
        BatchStrategy strategy;
        BatchOrder asked, used;
    } cases[] = {
        {BatchStrategy::Permute, BatchOrder::Index, BatchOrder::Shuffle},
        {BatchStrategy::Permute, BatchOrder::LongestFirst, BatchOrder::Shuffle},
        {BatchStrategy::Bsp, BatchOrder::LongestFirst, BatchOrder::Index},
        {BatchStrategy::Batch, BatchOrder::LongestFirst, BatchOrder::LongestFirst},
        {BatchStrategy::Queue, BatchOrder::Index, BatchOrder::Index},
    };
    for (const auto& c : cases) {
        BatchGpuOptions o;
        o.strategy = c.strategy;
        o.order = c.asked;
        EXPECT_EQ(batch::order_of(o), c.used) << gpu::to_string(c.strategy);
    }
}

TEST(BatchPlan, BudgetLeavesAMarginOfFivePercentOrAtLeast256MiB) {
    const struct {
        std::uint64_t free, total, max_working_set, budget;
    } cases[] = {
        {10 * kGiB, 80 * kGiB, 0, 6 * kGiB},          // margin 80 GiB / 20 = 4 GiB
        {10 * kGiB, 80 * kGiB, 1 * kGiB, 1 * kGiB},   // the limit asked for
        {10 * kGiB, 80 * kGiB, 20 * kGiB, 6 * kGiB},  // never more than is free
        {1 * kGiB, 2 * kGiB, 0, 768 * kMiB},          // margin 256 MiB (5% would be 102 MiB)
        {100 * kMiB, 2 * kGiB, 0, 0},                 // less free than the margin
        {100 * kMiB, 2 * kGiB, 50 * kMiB, 0},
    };
    for (const auto& c : cases)
        EXPECT_EQ(batch::memory_budget(c.free, c.total, c.max_working_set), c.budget)
            << c.free << " free of " << c.total << ", limit " << c.max_working_set;
}

TEST(BatchPlan, AgentsOutsideTheGraphAreNamed) {
    GridMap map(10, 1, true);
    const CsrGraph g = grid_to_csr(map, {Connectivity::Four, CornerRule::None}, CostMode::Integer).value();
    EXPECT_EQ(batch::check_agents(g, {{0, 9}, {3, 3}}), "");
    EXPECT_EQ(batch::check_agents(g, {{0, 1}, {0, 99}}), "agent 1: goal 99 is not a vertex of the graph (10 vertices)");
    EXPECT_EQ(batch::check_agents(g, {{50, 1}}), "agent 0: start 50 is not a vertex of the graph (10 vertices)");
    EXPECT_EQ(batch::check_agents(g, {}), "");
}

TEST(BatchPlan, LongestFirstOrdersByHeuristicDistanceTiesByIndex) {
    // A 10x1 corridor: the octile distance is 1000 per cell between start and goal.
    GridMap map(10, 1, true);
    const CsrGraph grid = grid_to_csr(map, {Connectivity::Four, CornerRule::None}, CostMode::Integer).value();
    const std::vector<std::pair<Vertex, Vertex>> agents = {{0, 9}, {0, 1}, {2, 7}, {3, 3}, {9, 0}};
    // Distances 9, 1, 5, 0, 9 cells: agents 0 and 4 (tied, index order), then 2, 1, 3.
    const std::vector<std::uint32_t> longest = {0, 4, 2, 1, 3};
    EXPECT_EQ(batch::longest_first(grid, agents), longest);
    EXPECT_EQ(batch::make_order(BatchOrder::LongestFirst, grid, agents, 1), longest);
    // Without a heuristic (no grid, no coordinates) every distance is 0: index order.
    CsrGraph plain = grid;
    plain.grid_width = 0;
    EXPECT_EQ(batch::longest_first(plain, agents), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
}

TEST(BatchPlan, IndexOrderIsTheIdentityAndShuffleAPermutationFixedBySeed) {
    GridMap map(10, 10, true);
    const CsrGraph g = grid_to_csr(map, {Connectivity::Four, CornerRule::None}, CostMode::Integer).value();
    std::vector<std::pair<Vertex, Vertex>> agents;
    for (Vertex v = 0; v < 100; ++v) agents.emplace_back(v, 99 - v);
    EXPECT_TRUE(batch::make_order(BatchOrder::Index, g, agents, 1).empty());  // no order array: agent i at i
    const std::vector<std::uint32_t> a = batch::make_order(BatchOrder::Shuffle, g, agents, 1);
    std::vector<std::uint32_t> sorted = a, identity(100);
    std::sort(sorted.begin(), sorted.end());
    std::iota(identity.begin(), identity.end(), 0u);
    EXPECT_EQ(sorted, identity);  // every agent exactly once
    EXPECT_NE(a, identity);
    EXPECT_EQ(batch::make_order(BatchOrder::Shuffle, g, agents, 1), a);
    EXPECT_NE(batch::make_order(BatchOrder::Shuffle, g, agents, 2), a);
}

TEST(BatchPlan, SimtEfficiencyIsUsefulOverPaidExpansionsPerWarp) {
    auto repeat = [](std::uint32_t value, std::size_t n) { return std::vector<std::uint32_t>(n, value); };
    auto concat = [](std::vector<std::uint32_t> a, const std::vector<std::uint32_t>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    const struct {
        const char* name;
        std::vector<std::uint32_t> steps;
        double efficiency;
    } cases[] = {
        {"nothing expanded", {}, 1.0},
        {"one balanced warp", repeat(5, 32), 1.0},
        {"one long search in a warp", concat({32}, repeat(0, 31)), 32.0 / (32 * 32)},
        {"a partial warp pays for 32 threads", {4, 2}, 6.0 / (32 * 4)},
        {"two warps", concat(repeat(1, 32), concat({10}, repeat(0, 31))), (32.0 + 10) / (32 * 1 + 32 * 10)},
    };
    for (const auto& c : cases) EXPECT_DOUBLE_EQ(batch::simt_efficiency(c.steps, nullptr), c.efficiency) << c.name;

    // 32 short searches (1) then 32 long ones (9): balanced warps in index order; interleaved,
    // each warp holds 16 of each and pays for 32 long ones.
    const std::vector<std::uint32_t> steps = concat(repeat(1, 32), repeat(9, 32));
    std::vector<std::uint32_t> interleaved(64);
    for (std::uint32_t p = 0; p < 64; ++p) interleaved[p] = (p % 2) * 32 + p / 2;
    EXPECT_DOUBLE_EQ(batch::simt_efficiency(steps, nullptr), 1.0);
    EXPECT_DOUBLE_EQ(batch::simt_efficiency(steps, &interleaved), (2 * (16 * 1.0 + 16 * 9)) / (2 * 32 * 9.0));
}

}  // namespace
}  // namespace ps
