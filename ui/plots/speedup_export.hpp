// Headless export of a bench sweep's plot straight from a history file (no display needed with
// QT_QPA_PLATFORM=offscreen): `pathscope --export-speedup BENCH_ID --baseline V --out F`.
#pragma once

#include <QString>

namespace ps::ui {

// The format comes from outFile's suffix (.png/.pdf/.svg, or .csv for the data). `runFilter`
// is a bench id, or "key=value,..." with keys bench, map, variant, device; with a baseline the
// plot shows the speed-up over it. Figures need a QApplication (the offscreen platform will do).
// `lecture`: slide type (PlotWidget::setLectureType).
bool exportSpeedup(const QString& dbPath, const QString& runFilter, const QString& baseline, const QString& outFile,
                   QString* error, bool lecture = false);

}  // namespace ps::ui
