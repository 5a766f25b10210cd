// Statistics over repetitions (see runner.hpp). Apart from the runner so that the run history,
// which reads them back, links without the variants and the GPU code (the fuzz build).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/run/runner.hpp"

namespace ps {

Stats compute_stats(std::vector<double> samples) {
    Stats s;
    s.n = samples.size();
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    const std::size_t mid = s.n / 2;
    s.median = s.n % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(s.n);
    if (s.n > 1) {
        double ss = 0;
        for (double x : samples) ss += (x - s.mean) * (x - s.mean);
        s.sd = std::sqrt(ss / double(s.n - 1));
    }
    return s;
}

PhaseStats compute_phase_stats(const std::vector<PhaseTimes>& samples) {
    auto column = [&](double PhaseTimes::*member) {
        std::vector<double> v;
        v.reserve(samples.size());
        for (const auto& p : samples) v.push_back(p.*member);
        return compute_stats(std::move(v));
    };
    return {column(&PhaseTimes::allocate_ms), column(&PhaseTimes::upload_ms), column(&PhaseTimes::compute_ms),
            column(&PhaseTimes::download_ms), column(&PhaseTimes::total_ms)};
}

}  // namespace ps
