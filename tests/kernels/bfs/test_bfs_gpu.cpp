// GPU BFS variants against the CPU reference (bfs.cpu.queue): every level of every vertex,
// on open, random, noise, maze and blocked-centre grids, sizes that are and are not multiples
// of the 32-cell tiles, with and without stopping at the start. Skips where no GPU is.
#include <gtest/gtest.h>

#include "kernels/bfs/bfs_gpu.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/gpu_test_support.hpp"

namespace ps {
namespace {

using test::generated;

std::vector<std::string> gpu_bfs_ids() {
    std::vector<std::string> ids;
    for (const auto& v : Registry::instance().all())
        if (v->info().family == Family::Bfs && v->info().device == DeviceKind::Gpu) ids.push_back(v->info().id);
    return ids;
}

void expect_matches_reference(const std::string& id, std::shared_ptr<const GridMap> map, Cell target,
                              std::optional<Cell> start, std::map<std::string, std::string> params = {}) {
    RunRequest request;
    request.variant_id = id;
    request.problem.map = map;
    request.problem.rules.connectivity = Connectivity::Four;
    request.problem.goal = map->index(target);
    if (start) {
        request.problem.start = map->index(*start);
        request.problem.bfs_stop_at_start = true;
    }
    request.problem.params = std::move(params);
    request.repeat = 2;  // a second run catches state left over from the first
    const RunReport report = run_variant(request);
    ASSERT_EQ(report.result.status, RunStatus::Ok) << id << " on " << map->name << ": " << report.result.message;
    EXPECT_EQ(report.result.validation, Validation::Passed)
        << id << " on " << map->name << ": " << report.result.validation_message;
}

TEST(BfsGpu, UnavailableWithoutGpuSaysWhy) {
    if (gpu_info().available) GTEST_SKIP() << "a GPU is present: " << describe(gpu_info());
    for (const auto& id : gpu_bfs_ids()) {
        RunRequest request;
        request.variant_id = id;
        request.problem.map = generated(GeneratorKind::Empty, 8, 8, 1);
        request.problem.goal = 0;
        const RunReport report = run_variant(request);
        EXPECT_EQ(report.result.status, RunStatus::Unavailable) << id;
        EXPECT_FALSE(report.result.message.empty()) << id;
    }
}

TEST(BfsGpu, EveryVariantMatchesTheCpuLevels) {
    PS_REQUIRE_GPU();
    ASSERT_EQ(gpu_bfs_ids().size(), 7u);
    const std::vector<std::shared_ptr<const GridMap>> maps = {
        generated(GeneratorKind::Empty, 8, 8, 1),           generated(GeneratorKind::Empty, 128, 128, 1),
        generated(GeneratorKind::Random, 33, 17, 2, 0.3),   generated(GeneratorKind::Noise, 128, 128, 3, 0.35),
        generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 2), generated(GeneratorKind::Maze, 65, 65, 8, 0.0, 1),
        generated(GeneratorKind::BlockedCentre, 96, 64, 5), generated(GeneratorKind::Rectangles, 200, 150, 6, 0.25),
    };
    for (const auto& id : gpu_bfs_ids()) {
        for (const auto& map : maps) {
            expect_matches_reference(id, map, *map->goal, std::nullopt);
            expect_matches_reference(id, map, *map->start, map->goal);  // stop at the far corner
            const Cell centre = *nearest_passable(*map, Cell{map->width() / 2, map->height() / 2});
            expect_matches_reference(id, map, centre, std::nullopt);
        }
    }
}

TEST(BfsGpu, FrontierBuffersAllocatedOnceGiveTheSameLevels) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Noise, 300, 200, 9, 0.3);
    for (const char* id : {"bfs.gpu.frontier", "bfs.gpu.shared"})
        for (const char* block : {"128", "1024"})
            expect_matches_reference(id, map, *map->goal, std::nullopt,
                                     {{"frontier_alloc", "once"}, {"block_size", block}});
}

// Stopping at the BFS target itself: level 0 reaches the stop vertex, so nothing else is
// labelled (bfs.cpu.queue's rule). Every variant once searched the whole map here.
TEST(BfsGpu, StopAtTheTargetItselfLabelsOnlyTheTarget) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Noise, 90, 70, 10, 0.3);
    const Cell target = *map->goal;
    for (const auto& id : gpu_bfs_ids()) {
        expect_matches_reference(id, map, target, target);
        RunRequest request;
        request.variant_id = id;
        request.problem.map = map;
        request.problem.rules.connectivity = Connectivity::Four;
        request.problem.goal = request.problem.start = map->index(target);
        request.problem.bfs_stop_at_start = true;
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << id << ": " << report.result.message;
        EXPECT_EQ(report.result.visited, 1u) << id;
        EXPECT_EQ(report.result.levels, 1) << id;
        EXPECT_EQ(report.result.cost, 0) << id;
    }
}

// Every kind runs its kernels with the block size asked for (bfs.gpu.tiled once listed the
// parameter and always ran 256 threads), and the levels do not depend on it.
TEST(BfsGpu, EveryKindRunsTheBlockSizeAskedFor) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Rectangles, 230, 170, 15, 0.25);
    const MoveRules rules{Connectivity::Four, CornerRule::None};
    const CsrGraph csr = grid_to_csr(*map, rules, std::nullopt).value();
    const Vertex target = map->index(*map->goal);
    const BfsOutput cpu = bfs_queue(csr, target, kNoVertex);
    const std::pair<gpu::BfsKind, const char*> kinds[] = {{gpu::BfsKind::Basic, "basic"},
                                                          {gpu::BfsKind::Frontier, "frontier"},
                                                          {gpu::BfsKind::Shared, "shared"},
                                                          {gpu::BfsKind::DynamicParallel, "dp"},
                                                          {gpu::BfsKind::Persistent, "persistent"},
                                                          {gpu::BfsKind::Graph, "graph"},
                                                          {gpu::BfsKind::Tiled, "tiled"}};
    for (const auto& [kind, name] : kinds) {
        for (int block : {128, 256, 512, 1024}) {
            gpu::BfsGpuOptions opt;
            opt.kind = kind;
            opt.block_size = block;
            const gpu::BfsGpuOutput out = gpu::run_bfs_gpu(*map, rules, &csr, target, kNoVertex, opt);
            ASSERT_TRUE(out.error.empty()) << name << " " << block << ": " << out.error;
            EXPECT_EQ(out.block_size, block) << name;
            EXPECT_EQ(out.levels, cpu.levels) << name << " " << block;
        }
    }
}

TEST(BfsGpu, TiledRefusesEightConnectedGrids) {
    PS_REQUIRE_GPU();
    RunRequest request;
    request.variant_id = "bfs.gpu.tiled";
    request.problem.map = generated(GeneratorKind::Empty, 16, 16, 1);
    request.problem.rules.connectivity = Connectivity::Eight;
    request.problem.goal = 0;
    const RunReport report = run_variant(request);
    EXPECT_EQ(report.result.status, RunStatus::Error);
    EXPECT_NE(report.result.message.find("4-connected"), std::string::npos) << report.result.message;
}

TEST(BfsGpu, EightConnectedLevelVariantsMatch) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 70, 50, 12, 0.25);
    for (const auto& id : gpu_bfs_ids()) {
        if (id == "bfs.gpu.tiled") continue;
        RunRequest request;
        request.variant_id = id;
        request.problem.map = map;
        request.problem.rules.connectivity = Connectivity::Eight;
        request.problem.goal = map->index(*map->goal);
        const RunReport report = run_variant(request);
        ASSERT_EQ(report.result.status, RunStatus::Ok) << id << ": " << report.result.message;
        EXPECT_EQ(report.result.validation, Validation::Passed) << id << ": " << report.result.validation_message;
    }
}

}  // namespace
}  // namespace ps
