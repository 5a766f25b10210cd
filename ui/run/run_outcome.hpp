// The value types a run hands to the other features (timeline, crowd, history): what was asked
// (RunJob) and what came back per variant (RunOutcome). Features include this, never the worker.
#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/run/runner.hpp"

namespace ps::ui {

struct RunJob {
    std::vector<RunRequest> requests;  // run in order; all share one map snapshot
    QString historyPath;               // empty: do not store
    QString generator;                 // map provenance for the history
    std::optional<std::uint64_t> seed;
};

// One finished variant of a job.
struct RunOutcome {
    RunRequest request;
    RunReport report;
    std::optional<std::int64_t> storedRunId;
    QString storeError;  // why storing failed (disk full, locked file ...), empty if fine
};
using RunOutcomePtr = std::shared_ptr<const RunOutcome>;

}  // namespace ps::ui
