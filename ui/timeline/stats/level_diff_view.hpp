// The per-level difference of two compared runs (trace::level_diff): where one variant gains on
// the other, level by level (e.g. bfs.gpu.dp against bfs.gpu.shared). A sortable table (level,
// time and gap before it, for BFS runs the level's edges visited and MTEPS, in A and in B; B − A),
// a plot of time per level for both runs with their gaps before, or of MTEPS per level, a line
// totalling them, a note when the runs searched different maps (their levels need not
// correspond), and the CSV (trace::write_level_diff_csv).
#pragma once

#include <QByteArray>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "instrumentation/timeline/trace_stats.hpp"

class QComboBox;
class QCustomPlot;
class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace ps::ui {

class LevelDiffModel;
struct TimelineModel;
using TimelineModelPtr = std::shared_ptr<const TimelineModel>;  // see timeline_plottable.hpp

class LevelDiffView : public QWidget {
    Q_OBJECT
public:
    // What the plot shows per level: each run's time and the gap before it, or its MTEPS.
    enum PlotKind { PlotTimes, PlotMteps };

    explicit LevelDiffView(QWidget* parent = nullptr);

    // Run A and run B (timeline, label, level edges, map); a null one clears the view.
    void setRuns(TimelineModelPtr a, TimelineModelPtr b);
    const std::vector<trace::LevelDiffRow>& rows() const;
    LevelDiffModel* model() const;
    QTableView* table() const;
    QCustomPlot* plot() const;
    // Time or MTEPS per level (MTEPS offered when a run's level edges are known).
    QComboBox* plotChoice() const;
    // "Runs A and B are on different maps (…): their levels need not correspond."; empty, and
    // hidden, when they searched one map or a map is unknown.
    QString mapNote() const;
    // "127 levels in both: A 1.23 ms + 0.45 ms of gaps, B ...; B − A ...; B faster at 120 of them".
    QString summaryText() const;
    QByteArray csv() const;
    bool exportCsv(const QString& path, QString* error = nullptr) const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void replot();
    void exportDialog();

    LevelDiffModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table;
    QCustomPlot* m_plot;
    QComboBox* m_plotChoice;
    QLabel* m_summary;
    QLabel* m_mapNote;
    QString m_labelA, m_labelB;
};

}  // namespace ps::ui
