// A stored run brought back from the history: its map, a RunResult rebuilt from the summary and
// the recordings (for replaying the animation), and a RunRequest rebuilt from the stored
// parameters (for running it again). Loading blocks: call it on a worker thread; it opens its
// own read-only db::History.
#pragma once

#include <QString>
#include <memory>

#include "database/history.hpp"
#include "kernels/run/runner.hpp"

namespace ps::ui {

struct StoredRun {
    std::int64_t runId = 0;
    std::shared_ptr<const GridMap> map;       // with the run's start and goal
    std::shared_ptr<const RunResult> result;  // the path is not stored: left empty
    RunRequest request;
    QString error;  // why it could not be loaded; everything else is empty then
};

// The request the run was made with, from `row.info.params_json` (movement rules, cost mode,
// heuristic, BFS stop flag, repetitions, variant parameters), its warm-ups and endpoints, on
// `map`. Unknown or missing fields keep the defaults; malformed JSON is an error.
Expected<RunRequest> requestFromRow(const db::RunRow& row, std::shared_ptr<const GridMap> map);

// What the history holds of the run as a RunResult: status, validation, found / cost /
// expanded / levels / visited, and the "bfs_levels" and "search_events" recordings when stored.
RunResult resultFromRow(const db::RunRow& row);

// Loads the map (and with `withRecordings` the recordings) of `row` from the file at `path`.
StoredRun loadStoredRun(const QString& path, const db::RunRow& row, bool withRecordings);

}  // namespace ps::ui
