// Google Benchmark micro-benchmarks of the CPU baselines (build with the `bench` preset).
// Speed targets are checked here and by `pathscope-cli run/bench`, never by timed tests.
#include <benchmark/benchmark.h>

#include "kernels/search/cpu_search.hpp"
#include "kernels/map/generators.hpp"

namespace {

ps::GridMap noise_map(int side) {
    ps::GeneratorParams p;
    p.kind = ps::GeneratorKind::Noise;
    p.width = p.height = side;
    p.seed = 1;
    p.density = 0.3;
    return ps::generate_map(p).value();
}

void BM_BfsQueue(benchmark::State& state) {
    const auto map = noise_map(int(state.range(0)));
    const auto graph = ps::grid_to_csr(map, {ps::Connectivity::Four, CornerRule::None}, std::nullopt).value();
    const ps::Vertex target = map.index(*map.goal);
    for (auto _ : state) benchmark::DoNotOptimize(ps::bfs_queue(graph, target, ps::kNoVertex).depth);
    state.SetItemsProcessed(state.iterations() * std::int64_t(map.passable_count()));
}
BENCHMARK(BM_BfsQueue)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);

void BM_BfsSweep(benchmark::State& state) {
    const auto map = noise_map(int(state.range(0)));
    const auto graph = ps::grid_to_csr(map, {ps::Connectivity::Four, CornerRule::None}, std::nullopt).value();
    const ps::Vertex target = map.index(*map.goal);
    for (auto _ : state) benchmark::DoNotOptimize(ps::bfs_sweep(graph, target, ps::kNoVertex).depth);
}
BENCHMARK(BM_BfsSweep)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);

void BM_AStar(benchmark::State& state) {
    const auto map = noise_map(int(state.range(0)));
    const ps::GridSearchSpec spec{
        {ps::Connectivity::Eight, CornerRule::None}, ps::CostMode::Integer, ps::Heuristic::Octile};
    const ps::Vertex s = map.index(*map.start), g = map.index(*map.goal);
    const bool bidirectional = state.range(1) != 0;
    for (auto _ : state) {
        auto out = bidirectional ? ps::astar_bidir_grid(map, spec, s, g) : ps::astar_grid(map, spec, s, g);
        benchmark::DoNotOptimize(out.cost);
    }
}
BENCHMARK(BM_AStar)->Args({1024, 0})->Args({1024, 1})->Unit(benchmark::kMillisecond);

}  // namespace
