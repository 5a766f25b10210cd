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

struct DriverCase {
    const char* name;
    std::function<Failure()> run;
};

std::vector<DriverCase> drivers_on_an_empty_map() {
    static const auto map = generated(GeneratorKind::Empty, 40, 40, 1);
    const MoveRules eight{Connectivity::Eight, false}, four{Connectivity::Four, false};
    const Vertex start = 0, goal = Vertex(map->cell_count() - 1);
    static const auto csr = std::make_shared<const CsrGraph>(grid_to_csr(*map, four, std::nullopt).value());
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
    };
    cases.push_back({"flowfield.gpu", [=] { return failure_of(gpu::run_flowfield_gpu(*map, eight, goal, {})); }});
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
    const MoveRules eight{Connectivity::Eight, false};
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

}  // namespace
}  // namespace ps
