// Headless export of a stored run's timeline straight from a history file (no display needed
// with QT_QPA_PLATFORM=offscreen): `pathscope --export-timeline RUN --out F`.
#pragma once

#include <QString>
#include <cstdint>

namespace ps::ui {

// The format comes from outFile's suffix (.png/.pdf/.svg as a figure, .csv/.json as data).
// Figures need a QApplication (the offscreen platform will do).
bool exportTimeline(const QString& dbPath, std::int64_t runId, const QString& outFile, QString* error);

}  // namespace ps::ui
