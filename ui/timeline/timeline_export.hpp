// Headless export of stored runs' timelines straight from a history file (no display needed
// with QT_QPA_PLATFORM=offscreen): `pathscope --export-timeline RUN[,RUN2] [--levels A-B |
// --range T0-T1] [--lecture] --out F`.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ps::ui {

struct TimelineFigure {
    std::vector<std::int64_t> runs;                    // one run, or two stacked on one time axis
    std::optional<std::pair<int, int>> levels;         // levels A-B, each run aligned to its own level A
    std::optional<std::pair<double, double>> rangeNs;  // a time window (ns since each run's first GPU item)
    bool lecture = false;                              // slide type, captions of level A
};

// "RUN" or "RUN1,RUN2"; "A-B" levels; "T0-T1" times with a unit each (ns, us, µs, ms, s; none:
// µs). nullopt with the reason in `error` when malformed.
std::optional<std::vector<std::int64_t>> parseRunList(const QString& text, QString* error);
std::optional<std::pair<int, int>> parseLevelRange(const QString& text, QString* error);
std::optional<std::pair<double, double>> parseTimeRange(const QString& text, QString* error);

// The format comes from outFile's suffix (.png/.pdf/.svg as a figure, .csv/.json as data of the
// first run). Figures need a QApplication (the offscreen platform will do).
bool exportTimeline(const QString& dbPath, const TimelineFigure& figure, const QString& outFile, QString* error);
bool exportTimeline(const QString& dbPath, std::int64_t runId, const QString& outFile, QString* error);

}  // namespace ps::ui
