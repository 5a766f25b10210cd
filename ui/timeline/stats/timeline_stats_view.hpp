// The timeline's statistics, under the plot in the dock: tabs for
// - Summary: `nsys stats`-style tables (Kernels, Device levels, CUDA API, Memory, NVTX) for the
//   run, or for the items that start in the selected range when there is one, with the graph
//   launches and node executions counted apart; sortable by any column (numbers sort as
//   numbers); selecting rows highlights their items on the timeline;
// - Range: a Ctrl+drag range's statistics (trace::range_stats): GPU busy share, gaps, per-row
//   and per-name tables, Copy (trace::format_range) and Export CSV (trace::write_range_csv);
// - Per-level difference: with two runs compared, LevelDiffView.
// With two runs a chooser picks whose summary and range statistics are shown. Computed off the
// GUI thread when the runs or the range change (once per drag, on release; the newest request
// wins): on 100,000 events the summary and a range's statistics take tens of milliseconds
// (test_timeline_stats prints them), too long for a frame.
#pragma once

#include <QByteArray>
#include <QString>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>

#include "instrumentation/timeline/trace_stats.hpp"

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace ps::ui {

class LevelDiffView;
class NameStatsModel;
class RowStatsModel;
class TimelineWidget;
struct ComputedStats;

class TimelineStatsView : public QWidget {
    Q_OBJECT
public:
    enum Table { Kernels, DeviceLevels, Api, Memory, Nvtx, TableCount };
    enum Tab { SummaryTab, RangeTab, LevelDiffTab };

    explicit TimelineStatsView(TimelineWidget* view, QWidget* parent = nullptr);
    ~TimelineStatsView() override;

    QTabWidget* tabs() const;
    // The run whose summary and range statistics are shown (0, or 1 in compare mode).
    int run() const;
    void setRun(int run);

    // ---- Summary -------------------------------------------------------------------------
    const trace::TraceSummary& summary() const;
    NameStatsModel* summaryModel(Table table) const;
    QSortFilterProxyModel* summaryProxy(Table table) const;
    QTableView* summaryTable(Table table) const;
    QTabWidget* summaryTabs() const;
    // "3 graph launches ran 120 graph node executions", empty without graph launches.
    QString graphText() const;
    QString summaryScopeText() const;

    // ---- Range ---------------------------------------------------------------------------
    const std::optional<trace::RangeStats>& rangeStats() const;
    RowStatsModel* rangeRowsModel() const;
    NameStatsModel* rangeNamesModel() const;
    QTableView* rangeNamesTable() const;
    QString rangeHeaderText() const;
    // trace::format_range of the shown range (what Copy puts on the clipboard); empty without.
    QString rangeText() const;
    QByteArray rangeCsv() const;
    QByteArray summaryCsv() const;

    LevelDiffView* levelDiff() const;
    // How long the worker took for the last statistics shown, ms (summary and range together).
    double lastComputeMs() const;
    // Statistics are being computed for the latest runs / range; updated() follows.
    bool pending() const;

public slots:
    // The runs changed: everything again.
    void refresh();
    void copyRange();
    void copySummary();

signals:
    // The tables show the statistics of the current runs and range.
    void updated();

private:
    struct Private;
    std::unique_ptr<Private> d;

    void updateRuns();
    void updateStats();
    void apply(ComputedStats computed, int run);
    void highlightSelection(QTableView* table, NameStatsModel* model);
    void exportRangeDialog();
    void exportSummaryDialog();
};

}  // namespace ps::ui
