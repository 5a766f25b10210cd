// A stored run brought back from the history: its map, a RunResult rebuilt from the summary and
// the recordings (for replaying the animation), and a RunRequest rebuilt from the stored
// parameters (for running it again; db::request_from_row and db::result_from_row do the
// decoding). Loading blocks: call it on a worker thread; it opens its own read-only db::History.
#pragma once

#include <QString>
#include <memory>

#include "database/history.hpp"
#include "kernels/run/runner.hpp"

namespace ps::ui {

struct StoredRun {
    std::int64_t runId = 0;
    std::shared_ptr<const GridMap> map;       // with the run's start and goal
    std::shared_ptr<const RunResult> result;  // the path where a recorded run stored one, else empty
    RunRequest request;
    QString error;  // why it could not be loaded; everything else is empty then
};

// Loads the map (and with `withRecordings` the recordings) of `row` from the file at `path`. The
// request always records, whatever the original run did: the GUI re-runs a run to watch it.
StoredRun loadStoredRun(const QString& path, const db::RunRow& row, bool withRecordings);

}  // namespace ps::ui
