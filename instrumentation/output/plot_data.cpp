// History plot data (see plot_data.hpp).
#include "instrumentation/output/plot_data.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace ps::plot {

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(mid), values.end());
    if (values.size() % 2 == 1) return values[mid];
    const double upper = values[mid];
    const double lower = *std::max_element(values.begin(), values.begin() + std::ptrdiff_t(mid));
    return 0.5 * (lower + upper);
}

std::string size_label(int width, int height) {
    if (width == height) return std::to_string(width) + "\u00b2";
    return std::to_string(width) + "\u00d7" + std::to_string(height);
}

std::vector<SweepSeries> build_sweep(const std::vector<SweepRun>& runs) {
    struct Pool {
        std::size_t runs = 0;
        std::vector<double> samples;
    };
    // variant -> (cells, width, height) -> pooled samples; std::map keeps both sorted.
    std::map<std::string, std::map<std::tuple<std::int64_t, int, int>, Pool>> pools;
    for (const SweepRun& run : runs) {
        if (!run.ok || run.samples_ms.empty() || run.width <= 0 || run.height <= 0) continue;
        Pool& pool = pools[run.variant][{std::int64_t(run.width) * run.height, run.width, run.height}];
        ++pool.runs;
        pool.samples.insert(pool.samples.end(), run.samples_ms.begin(), run.samples_ms.end());
    }
    std::vector<SweepSeries> out;
    for (auto& [variant, by_size] : pools) {
        SweepSeries series{variant, {}};
        for (auto& [key, pool] : by_size) {
            const auto [lo, hi] = std::minmax_element(pool.samples.begin(), pool.samples.end());
            SweepPoint p;
            std::tie(p.cells, p.width, p.height) = key;
            p.runs = pool.runs;
            p.samples = pool.samples.size();
            p.min_ms = *lo;
            p.max_ms = *hi;
            p.median_ms = median(std::move(pool.samples));
            series.points.push_back(p);
        }
        out.push_back(std::move(series));
    }
    return out;
}

std::vector<double> mteps_samples(double edges_visited, const std::vector<double>& compute_ms) {
    std::vector<double> out;
    if (!(edges_visited > 0)) return out;
    for (const double ms : compute_ms)
        if (ms > 0) out.push_back(edges_visited / (ms * 1e3));  // edges / (ms / 1e3 s) / 1e6
    return out;
}

std::vector<SpeedupPoint> speedup_over(const SweepSeries& baseline, const SweepSeries& series, Quantity quantity) {
    std::vector<SpeedupPoint> out;
    for (const SweepPoint& p : series.points) {
        const auto base = std::find_if(baseline.points.begin(), baseline.points.end(),
                                       [&](const SweepPoint& b) { return b.width == p.width && b.height == p.height; });
        // A zero time (a timer that did not tick) has no meaningful ratio.
        if (base == baseline.points.end() || base->median_ms <= 0 || p.median_ms <= 0 || p.min_ms <= 0) continue;
        if (quantity == Quantity::Mteps)  // a rate: faster is more
            out.push_back({p.cells, p.width, p.height, p.median_ms / base->median_ms, p.min_ms / base->median_ms,
                           p.max_ms / base->median_ms});
        else
            out.push_back({p.cells, p.width, p.height, base->median_ms / p.median_ms, base->median_ms / p.max_ms,
                           base->median_ms / p.min_ms});
    }
    return out;
}

void write_sweep_csv(const std::vector<SweepSeries>& series, const std::optional<std::string>& baseline,
                     std::ostream& out, Quantity quantity) {
    const char* unit = quantity == Quantity::Mteps ? "mteps" : "ms";
    out << "variant,width,height,cells,runs,samples,median_" << unit << ",min_" << unit << ",max_" << unit;
    if (baseline) out << ",speedup,speedup_low,speedup_high";
    out << '\n';
    const SweepSeries* base = nullptr;
    if (baseline)
        for (const SweepSeries& s : series)
            if (s.variant == *baseline) base = &s;
    for (const SweepSeries& s : series) {
        const auto speedups = base ? speedup_over(*base, s, quantity) : std::vector<SpeedupPoint>{};
        for (const SweepPoint& p : s.points) {
            // Variant ids are [a-z0-9._]: no quoting needed.
            out << s.variant << ',' << p.width << ',' << p.height << ',' << p.cells << ',' << p.runs << ',' << p.samples
                << ',' << p.median_ms << ',' << p.min_ms << ',' << p.max_ms;
            if (baseline) {
                const auto it = std::find_if(speedups.begin(), speedups.end(), [&](const SpeedupPoint& q) {
                    return q.width == p.width && q.height == p.height;
                });
                if (it == speedups.end())
                    out << ",,,";
                else
                    out << ',' << it->speedup << ',' << it->low << ',' << it->high;
            }
            out << '\n';
        }
    }
}

}  // namespace ps::plot
