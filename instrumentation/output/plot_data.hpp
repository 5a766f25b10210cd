// The numbers behind the history plots, without Qt: runs of a bench sweep grouped by variant
// and grid size (median bar, min/max whiskers over every repetition of every matching run),
// speedup over a baseline variant, and the plotted table as CSV. The GUI's PlotWidget loads
// runs from the history into SweepRun values and draws what these functions return.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ps::plot {

// What a sweep's samples measure: a time in ms (lower is better), or a BFS run's rate in MTEPS
// (higher is better; edges visited over compute time, kernels/run/edges_visited.hpp). A sweep's
// points (median, min, max) and the CSV's columns are in that quantity.
enum class Quantity : std::uint8_t { TimeMs, Mteps };

// One stored run as a sweep sees it.
struct SweepRun {
    std::string variant;
    int width = 0, height = 0;
    bool ok = true;                  // failed, cancelled or unvalidated runs are left out
    std::vector<double> samples_ms;  // per repetition, of the metric being plotted (ms, or MTEPS)
};

// A BFS run's MTEPS per repetition, as SweepRun samples: its edges visited over each repetition's
// compute time (the edges are the same in every repetition). A repetition whose compute time did
// not tick is left out; no edges, no samples.
std::vector<double> mteps_samples(double edges_visited, const std::vector<double>& compute_ms);

struct SweepPoint {
    int width = 0, height = 0;
    std::int64_t cells = 0;
    std::size_t runs = 0, samples = 0;
    double median_ms = 0, min_ms = 0, max_ms = 0;
};

struct SweepSeries {
    std::string variant;
    std::vector<SweepPoint> points;  // by cells, then width
};

// Series sorted by variant id; a variant's runs on maps of one size are pooled.
std::vector<SweepSeries> build_sweep(const std::vector<SweepRun>& runs);

struct SpeedupPoint {
    std::int64_t cells = 0;
    int width = 0, height = 0;
    double speedup = 0;        // baseline median / series median (a rate: series median / baseline median)
    double low = 0, high = 0;  // the same from the series' slowest and fastest sample
};
// At the sizes both series have (matched by width and height).
std::vector<SpeedupPoint> speedup_over(const SweepSeries& baseline, const SweepSeries& series,
                                       Quantity quantity = Quantity::TimeMs);

// Median (mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);
// "512²" for squares, else "512×256" (UTF-8).
std::string size_label(int width, int height);

// variant,width,height,cells,runs,samples,median_ms,min_ms,max_ms[,speedup,speedup_low,speedup_high]
// (the speedup columns with a baseline; empty where the baseline lacks the size); median_mteps,
// min_mteps, max_mteps for a sweep of rates.
void write_sweep_csv(const std::vector<SweepSeries>& series, const std::optional<std::string>& baseline,
                     std::ostream& out, Quantity quantity = Quantity::TimeMs);

}  // namespace ps::plot
