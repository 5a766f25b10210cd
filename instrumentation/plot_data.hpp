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

// One stored run as a sweep sees it.
struct SweepRun {
    std::string variant;
    int width = 0, height = 0;
    bool ok = true;                  // failed, cancelled or unvalidated runs are left out
    std::vector<double> samples_ms;  // per repetition, of the metric being plotted
};

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
    double speedup = 0;        // baseline median / series median
    double low = 0, high = 0;  // baseline median / series max, / series min
};
// At the sizes both series have (matched by width and height).
std::vector<SpeedupPoint> speedup_over(const SweepSeries& baseline, const SweepSeries& series);

// Median (mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);
// "512²" for squares, else "512×256" (UTF-8).
std::string size_label(int width, int height);

// variant,width,height,cells,runs,samples,median_ms,min_ms,max_ms[,speedup,speedup_low,speedup_high]
// (the speedup columns with a baseline; empty where the baseline lacks the size).
void write_sweep_csv(const std::vector<SweepSeries>& series, const std::optional<std::string>& baseline,
                     std::ostream& out);

}  // namespace ps::plot
