// Google Benchmark micro-benchmarks of the run history's speed targets (issue 3): storing a
// run with 100,000 timeline events and a 2048^2 BFS-level recording (target < 200 ms), and
// listing 10,000 runs (target < 50 ms). Build with the `bench` preset; wall-clock times, as
// a user waits for them (disk writes included).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/map/generators.hpp"

namespace {

using ps::db::History;

std::string bench_path(const std::string& name) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("pathscope-bench-" + std::to_string(::getpid()) + "-" + name + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
    return path.string();
}

void remove_history(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// Real BFS levels of a 2048^2 noise map: they compress like the recordings users store.
const std::vector<std::uint8_t>& levels_2048() {
    static const std::vector<std::uint8_t> bytes = [] {
        ps::GeneratorParams p;
        p.kind = ps::GeneratorKind::Noise;
        p.width = p.height = 2048;
        p.density = 0.3;
        const auto map = ps::generate_map(p).value();
        const auto graph = ps::grid_to_csr(map, {ps::Connectivity::Four, CornerRule::None}, std::nullopt).value();
        return ps::db::encode_bfs_levels(ps::bfs_queue(graph, map.index(*map.goal), ps::kNoVertex).levels);
    }();
    return bytes;
}

std::vector<ps::db::TimelineEvent> events_100k() {
    std::vector<ps::db::TimelineEvent> events(100000);
    for (std::size_t i = 0; i < events.size(); ++i) {
        auto& e = events[i];
        e.kind = i % 2 ? "kernel" : "api";
        e.name = i % 2 ? "bfs_level_kernel" : "cudaLaunchKernel";
        e.track = i % 2 ? "stream 7" : "host thread 1";
        e.start_ns = std::int64_t(i) * 2500;
        e.end_ns = e.start_ns + 1800;
        e.correlation_id = i / 2;
        e.payload = i % 2 ? R"({"grid":[512,1,1],"block":[256,1,1],"level":)" + std::to_string(i / 2) + "}" : "";
    }
    return events;
}

ps::db::RunInfo bench_run_info() {
    ps::db::RunInfo info;
    info.variant = "bfs.gpu.tail";
    info.family = "bfs";
    info.device_kind = "gpu";
    info.device_name = "NVIDIA H100 80GB HBM3";
    info.params_json = R"({"connectivity":4})";
    info.host = "bench";
    return info;
}

// One whole run as HistoryRecorder stores it: begin, 100 samples, 100,000 events, the
// 16 MiB level recording, finish.
void BM_StoreRunWith100kEventsAnd2048Recording(benchmark::State& state) {
    const std::string path = bench_path("store");
    auto history = History::open(path).value();
    const auto events = events_100k();
    const auto& levels = levels_2048();
    std::vector<ps::db::PhaseSample> samples;
    for (int r = 0; r < 100; ++r) samples.push_back({r, 0.1, 0.2, 3.0 + 0.01 * r, 0.1, 3.4 + 0.01 * r});
    for (auto _ : state) {
        const auto id = history.begin_run(bench_run_info()).value();
        if (!history.add_samples(id, samples) || !history.add_events(id, events) ||
            !history.add_recording(id, ps::db::kBfsLevelsKind, levels) || !history.finish_run(id, {}))
            state.SkipWithError("storing failed");
    }
    state.counters["file_MiB"] =
        double(std::filesystem::file_size(path) + std::filesystem::file_size(path + "-wal")) / 1048576.0;
    remove_history(path);
}
BENCHMARK(BM_StoreRunWith100kEventsAnd2048Recording)->Unit(benchmark::kMillisecond)->UseRealTime();

// The two halves of the above, to see where the time goes.
void BM_StoreEvents100k(benchmark::State& state) {
    const std::string path = bench_path("events");
    auto history = History::open(path).value();
    const auto events = events_100k();
    const auto id = history.begin_run(bench_run_info()).value();
    for (auto _ : state)
        if (!history.add_events(id, events)) state.SkipWithError("storing failed");
    remove_history(path);
}
BENCHMARK(BM_StoreEvents100k)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreRecording2048(benchmark::State& state) {
    const std::string path = bench_path("recording");
    auto history = History::open(path).value();
    const auto& levels = levels_2048();
    const auto id = history.begin_run(bench_run_info()).value();
    for (auto _ : state)
        if (!history.add_recording(id, ps::db::kBfsLevelsKind, levels)) state.SkipWithError("storing failed");
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(levels.size()));
    remove_history(path);
}
BENCHMARK(BM_StoreRecording2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ListRuns(benchmark::State& state) {
    const std::string path = bench_path("list");
    auto history = History::open(path).value();
    ps::GeneratorParams p;
    p.width = p.height = 64;
    const auto map_id = history.save_map(ps::generate_map(p).value()).value();
    for (std::int64_t i = 0; i < state.range(0); ++i) {
        auto info = bench_run_info();
        info.map_id = map_id;
        const auto id = history.begin_run(info).value();
        std::vector<ps::db::PhaseSample> samples;
        for (int r = 0; r < 10; ++r) samples.push_back({r, 0.1, 0.2, 3.0 + r, 0.1, 3.4 + r});
        if (!history.add_samples(id, samples) || !history.finish_run(id, {})) state.SkipWithError("setup failed");
    }
    for (auto _ : state) {
        auto runs = history.list_runs();
        if (!runs || runs->size() != std::size_t(state.range(0))) state.SkipWithError("listing failed");
        benchmark::DoNotOptimize(runs);
    }
    remove_history(path);
}
BENCHMARK(BM_ListRuns)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
