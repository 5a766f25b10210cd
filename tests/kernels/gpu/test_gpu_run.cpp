// What the GPU run skeleton (kernels/gpu/gpu_run.cuh) reports when a run fails: the error with
// its kind. Without a GPU every driver, called directly (bypassing the runner, which says
// "unavailable" first), fails with a Device error that says why; a bad option is Invalid, and
// refused before any device is touched, GPU or not.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "kernels/astar/astar_gpu.hpp"
#include "kernels/astar/astar_gpu_baselines.hpp"
#include "kernels/base/expected.hpp"
#include "kernels/batch/batch_gpu.hpp"
#include "kernels/bfs/bfs_gpu.hpp"
#include "kernels/flowfield/flowfield_gpu.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/graph/graph.hpp"
#include "tests/support/gpu_test_support.hpp"

namespace ps {
namespace {

using test::generated;

// How a driver's run ended: its error and the error's kind.
struct Failure {
    std::string error;
    ErrorKind kind = ErrorKind::Invalid;
};

// Kinds by name, for readable failures.
std::string name(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::Invalid:
        return "invalid";
    case ErrorKind::Io:
        return "io";
    case ErrorKind::Device:
        return "device";
    case ErrorKind::Cancelled:
        return "cancelled";
    case ErrorKind::Internal:
        return "internal";
    }
    return "?";
}

template <class Output>
Failure failure_of(const Output& out) {
    return {out.error, out.error_kind};
}

constexpr std::pair<gpu::BfsKind, const char*> kBfsKinds[] = {{gpu::BfsKind::Basic, "bfs.gpu.basic"},
                                                              {gpu::BfsKind::Frontier, "bfs.gpu.frontier"},
                                                              {gpu::BfsKind::Shared, "bfs.gpu.shared"},
                                                              {gpu::BfsKind::DynamicParallel, "bfs.gpu.dp"},
                                                              {gpu::BfsKind::Persistent, "bfs.gpu.persistent"},
                                                              {gpu::BfsKind::Graph, "bfs.gpu.graph"},
                                                              {gpu::BfsKind::Tiled, "bfs.gpu.tiled"}};

constexpr std::pair<gpu::BatchStrategy, const char*> kBatchStrategies[] = {
    {gpu::BatchStrategy::Bsp, "batch.gpu.bsp"},
    {gpu::BatchStrategy::Batch, "batch.gpu.batch"},
    {gpu::BatchStrategy::Queue, "batch.gpu.queue"},
    {gpu::BatchStrategy::Permute, "batch.gpu.permute"}};

struct DriverCase {
    const char* name;
    std::function<Failure()> run;
};

std::vector<DriverCase> drivers_on_an_empty_map() {
    static const auto map = generated(GeneratorKind::Empty, 40, 40, 1);
    const MoveRules eight{Connectivity::Eight, CornerRule::None}, four{Connectivity::Four, CornerRule::None};
    const Vertex start = 0, goal = Vertex(map->cell_count() - 1);
    static const auto csr = std::make_shared<const CsrGraph>(grid_to_csr(*map, four, std::nullopt).value());
    static const auto weighted = std::make_shared<const CsrGraph>(grid_to_csr(*map, eight, CostMode::Integer).value());
    std::vector<DriverCase> cases = {
        {"astar.gpu.uba", [=] { return failure_of(gpu::run_astar_gpu(*map, eight, start, goal, {})); }},
        {"astar.gpu.bba",
         [=] {
             gpu::AStarGpuOptions o;
             o.bidirectional = true;
             return failure_of(gpu::run_astar_gpu(*map, eight, start, goal, o));
         }},
        {"astar.gpu.uba host loop",
         [=] {
             gpu::AStarGpuOptions o;
             o.persistent = false;
             return failure_of(gpu::run_astar_gpu(*map, eight, start, goal, o));
         }},
        {"astar.gpu.lock", [=] { return failure_of(gpu::run_astar_gpu_lock(*map, eight, start, goal, {})); }},
        {"astar.gpu.heaps", [=] { return failure_of(gpu::run_astar_gpu_heaps(*map, eight, start, goal, {})); }},
        {"flowfield.gpu", [=] { return failure_of(gpu::run_flowfield_gpu(*map, eight, goal, {})); }},
    };
    for (const auto& [strategy, name] : kBatchStrategies)
        cases.push_back({name, [=, strategy = strategy] {
                             gpu::BatchGpuOptions o;
                             o.strategy = strategy;
                             return failure_of(gpu::run_batch_gpu(*weighted, {{start, goal}, {goal, start}}, o));
                         }});
    for (const auto& [kind, name] : kBfsKinds)
        cases.push_back({name, [=, kind = kind] {
                             gpu::BfsGpuOptions o;
                             o.kind = kind;
                             return failure_of(gpu::run_bfs_gpu(*map, four, csr.get(), goal, kNoVertex, o));
                         }});
    return cases;
}

TEST(GpuRunErrors, WithoutGpuEveryDriverFailsWithADeviceError) {
    if (gpu_info().available) GTEST_SKIP() << "a GPU is present: " << describe(gpu_info());
    for (const DriverCase& c : drivers_on_an_empty_map()) {
        const Failure f = c.run();
        EXPECT_FALSE(f.error.empty()) << c.name;
        EXPECT_EQ(name(f.kind), "device") << c.name << ": " << f.error;
    }
}

// Checked before the device is touched: the same kind and message with or without a GPU.
TEST(GpuRunErrors, BadOptionsAreInvalidWithOrWithoutGpu) {
    const auto map = generated(GeneratorKind::Empty, 8, 8, 1);
    const MoveRules eight{Connectivity::Eight, CornerRule::None};
    gpu::AStarGpuOptions narrow;
    narrow.bucket_width = 100;
    gpu::AStarGpuOptions one_thread_too_many;
    one_thread_too_many.threads_per_vertex = 2;
    const struct {
        const char* name;
        Failure failure;
        const char* says;
    } cases[] = {
        {"bucket_width 100", failure_of(gpu::run_astar_gpu(*map, eight, 0, 63, narrow)),
         "bucket_width must be between 256 and 16777216, got 100"},
        {"threads_per_vertex 2", failure_of(gpu::run_astar_gpu(*map, eight, 0, 63, one_thread_too_many)),
         "threads_per_vertex must be 1 or 8, got 2"},
        {"goal outside the map", failure_of(gpu::run_astar_gpu(*map, eight, 0, 64, {})),
         "start or goal lies outside the 8x8 map"},
        {"lock: goal outside the map", failure_of(gpu::run_astar_gpu_lock(*map, eight, 0, 64, {})),
         "start or goal outside the map"},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(c.failure.error, c.says) << c.name;
        EXPECT_EQ(name(c.failure.kind), "invalid") << c.name;
    }
}

// On a GPU, through run_phases: a failure the request causes is Invalid, one of the GPU is
// Device, and a failed output holds its error only (the batch plan too: it says why).
TEST(GpuRunErrors, OnTheGpuTheKindSaysWhoseFaultItIs) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Empty, 40, 40, 1);
    const MoveRules four{Connectivity::Four, CornerRule::None}, eight{Connectivity::Eight, CornerRule::None};
    const Vertex goal = Vertex(map->cell_count() - 1);

    gpu::BfsGpuOptions tiled;
    tiled.kind = gpu::BfsKind::Tiled;
    tiled.block_size = 96;  // refused inside the run (the other kinds take any block size)
    const gpu::BfsGpuOutput odd_block = gpu::run_bfs_gpu(*map, four, nullptr, goal, kNoVertex, tiled);
    EXPECT_EQ(odd_block.error, "block_size must be 128, 256, 512 or 1024, got 96");
    EXPECT_EQ(name(odd_block.error_kind), "invalid");
    EXPECT_TRUE(odd_block.levels.empty());
    EXPECT_EQ(odd_block.host_launches, 0u);
    tiled.block_size = 256;
    const gpu::BfsGpuOutput diagonal = gpu::run_bfs_gpu(*map, eight, nullptr, goal, kNoVertex, tiled);
    EXPECT_EQ(diagonal.error, "bfs.gpu.tiled supports 4-connected grids only");
    EXPECT_EQ(name(diagonal.error_kind), "invalid");

    const CsrGraph graph = grid_to_csr(*map, eight, CostMode::Integer).value();
    const std::vector<std::pair<Vertex, Vertex>> agents = {{0, goal}, {goal, 0}, {41, 1000}};
    gpu::BatchGpuOptions tight;
    tight.strategy = gpu::BatchStrategy::Batch;
    tight.max_working_set_bytes = 1024;  // not even the graph fits
    const gpu::BatchGpuOutput no_room = gpu::run_batch_gpu(graph, agents, tight);
    EXPECT_EQ(no_room.error.rfind("not enough GPU memory", 0), 0u) << no_room.error;
    EXPECT_EQ(name(no_room.error_kind), "device");
    EXPECT_EQ(no_room.plan.error, no_room.error);  // the plan is kept: it says why
    EXPECT_EQ(no_room.plan.budget_bytes, 1024u);

    gpu::BatchGpuOptions small_heap;
    small_heap.strategy = gpu::BatchStrategy::Batch;
    small_heap.heap_capacity = 2;  // a corner cell of an empty 8-connected grid opens 3 neighbours
    const gpu::BatchGpuOutput overflow = gpu::run_batch_gpu(graph, agents, small_heap);
    EXPECT_NE(overflow.error.find("heap_capacity=2"), std::string::npos) << overflow.error;
    EXPECT_EQ(name(overflow.error_kind), "invalid");
    EXPECT_TRUE(overflow.costs.empty());  // found after the download: the results are dropped
    EXPECT_EQ(overflow.phases.total_ms, 0.0);
    EXPECT_TRUE(overflow.plan.error.empty());
    EXPECT_EQ(overflow.plan.slots, agents.size());
}

}  // namespace
}  // namespace ps
