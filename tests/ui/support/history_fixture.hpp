// A small history of real runs for the history view tests: CPU variants run by the
// orchestrator on two generated maps and stored through db::HistoryRecorder, as the GUI worker
// and `pathscope-cli run --db` store them.
#pragma once

#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "database/recorder.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"

namespace ps::test {

struct FixtureRun {
    std::string variant;
    std::shared_ptr<const GridMap> map;
    Connectivity connectivity;
};

inline std::shared_ptr<const GridMap> generatedMap(GeneratorKind kind, int side, const std::string& name) {
    GeneratorParams params;
    params.kind = kind;
    params.width = params.height = side;
    params.seed = 5;
    params.density = 0.2;
    auto map = generate_map(params);
    if (!map) return nullptr;
    map->name = name;
    return std::make_shared<const GridMap>(std::move(*map));
}

inline RunRequest fixtureRequest(const FixtureRun& run) {
    RunRequest r;
    r.variant_id = run.variant;
    r.problem.map = run.map;
    r.problem.rules.connectivity = run.connectivity;
    r.problem.heuristic = Heuristic::Octile;
    r.problem.start = run.map->index(*run.map->start);
    r.problem.goal = run.map->index(*run.map->goal);
    r.repeat = 3;
    r.warmup = 1;
    r.context.record = true;
    return r;
}

// Stores: bfs.cpu.queue (4-connected) and astar.cpu on "noise-48", astar.cpu.bidir on
// "maze-33". Returns an error text, empty on success.
inline QString fillHistory(const QString& path) {
    auto history = db::History::open(path.toStdString());
    if (!history) return QString::fromStdString(history.error().message);
    const auto noise = generatedMap(GeneratorKind::Noise, 48, "noise-48");
    const auto maze = generatedMap(GeneratorKind::Maze, 33, "maze-33");
    if (!noise || !maze) return QStringLiteral("cannot generate the fixture maps");
    const std::vector<FixtureRun> runs = {{"bfs.cpu.queue", noise, Connectivity::Four},
                                          {"astar.cpu", noise, Connectivity::Eight},
                                          {"astar.cpu.bidir", maze, Connectivity::Eight}};
    for (const FixtureRun& run : runs) {
        db::HistoryRecorder recorder(*history);
        const RunRequest request = fixtureRequest(run);
        const RunReport report = run_variant(request, &recorder);
        recorder.record(request, report);
        if (report.result.status != RunStatus::Ok) return QString::fromStdString(report.result.message);
        if (recorder.error()) return QString::fromStdString(recorder.error()->message);
    }
    return {};
}

}  // namespace ps::test
