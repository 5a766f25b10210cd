// The phases every run reports, in milliseconds: what a variant returns (RunResult::phases),
// what the runner's statistics, the history and the plots read, and what every GPU driver
// measures on the host clock (kernels/gpu/gpu_run.cuh). Declared once, here.
#pragma once

namespace ps {

struct PhaseTimes {
    double allocate_ms = 0, upload_ms = 0, compute_ms = 0, download_ms = 0, total_ms = 0;
};

}  // namespace ps
