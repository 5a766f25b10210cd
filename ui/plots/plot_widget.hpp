// Plots from the run history, as in the papers' figures: time vs grid size per variant
// (log-log, median with min/max whiskers), speedup over a chosen baseline variant, and grouped
// bars (median as the bar, min/max whiskers). Runs (e.g. every run of one bench sweep) are
// loaded off the GUI thread with the loader's own db::History; the newest request wins. The
// figure carries its provenance (maps, devices, build) and exports as PNG/PDF/SVG, its data
// as CSV.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "database/history.hpp"
#include "instrumentation/output/plot_data.hpp"

class QCustomPlot;

namespace ps::ui {

// Mteps: BFS runs' edges visited over each repetition's compute time (higher is better).
enum class PlotMetric { Total, Compute, Mteps };

// What one load brought back: the sweep for every metric, so switching needs no reload. mteps
// holds the runs that stored an edge count (BFS runs).
struct SweepData {
    std::vector<plot::SweepSeries> total, compute, mteps;
    QString filter;      // what was asked for
    QString provenance;  // "bench …, maps …, devices …, build …"
    int runs = 0;        // runs that went into the series
};

struct SweepLoad {
    SweepData data;
    QString error;  // empty on success
};

// "ID" (a bench id), or "key=value,..." with keys bench, map, variant, device.
db::RunFilter parseRunFilter(const QString& text);
// Blocking: opens its own read-only History. Worker threads and headless export only.
SweepLoad loadSweep(const QString& dbPath, const QString& filter);
// Distinct bench ids in the history, newest first (blocking, as loadSweep).
QStringList listBenchIds(const QString& dbPath, QString* error = nullptr);

class PlotWidget : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Time, Speedup, Bars };

    explicit PlotWidget(QWidget* parent = nullptr);
    ~PlotWidget() override;

    // Fills the bench list (off the GUI thread).
    void setHistoryPath(const QString& path);
    QString historyPath() const;
    // Loads runs matching `filter` (off the GUI thread); loaded / loadFailed tell the outcome.
    void load(const QString& filter);
    void setData(SweepData data);
    const SweepData& data() const;

    void setMode(Mode mode);
    Mode mode() const;
    void setMetric(PlotMetric metric);
    PlotMetric metric() const;
    // A variant id of the data; Speedup mode plots every other variant over it.
    void setBaseline(const QString& variant);
    QString baseline() const;
    QStringList variants() const;

    // Slide type: text at least 14 pt (title 18 pt), lines 3 px, markers 10 px, and exports a
    // slide's size (1920 x 1080).
    void setLectureType(bool on);
    bool lectureType() const;

    QCustomPlot* plot() const;
    // Number of plotted data points (markers or bars) of the current mode.
    int pointCount() const;
    // .png/.pdf/.svg: the figure in the paper palette; .csv: the plotted table.
    bool exportTo(const QString& path, QString* error = nullptr);

signals:
    void loaded(int runs);
    void loadFailed(const QString& message);
    void benchIdsListed(const QStringList& ids);

protected:
    void changeEvent(QEvent* event) override;  // follows the UI's light / dark palette

private:
    struct Private;
    std::unique_ptr<Private> d;

    void replotData();
    const std::vector<plot::SweepSeries>& series() const;
    plot::Quantity quantity() const;  // of the current metric: a time, or a rate
    void plotTime();
    void plotSpeedup();
    void plotBars();
    bool exportBytes(const QString& path, QByteArray* bytes, QString* error);
    void exportDialog();
    void applyLectureType();
};

}  // namespace ps::ui
