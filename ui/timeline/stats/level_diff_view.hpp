// The per-level difference of two compared runs (trace::level_diff): where one variant gains on
// the other, level by level (e.g. bfs.gpu.dp against bfs.gpu.shared). A sortable table (level,
// time and gap before it in A and in B, B − A), a plot of time per level for both runs with
// their gaps before, a line totalling them, and the CSV (trace::write_level_diff_csv).
#pragma once

#include <QByteArray>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "instrumentation/timeline/trace_stats.hpp"

class QCustomPlot;
class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace ps::ui {

class LevelDiffModel;

class LevelDiffView : public QWidget {
    Q_OBJECT
public:
    explicit LevelDiffView(QWidget* parent = nullptr);

    // Run A and run B; a null one clears the view.
    void setRuns(std::shared_ptr<const trace::Timeline> a, const QString& labelA,
                 std::shared_ptr<const trace::Timeline> b, const QString& labelB);
    const std::vector<trace::LevelDiffRow>& rows() const;
    LevelDiffModel* model() const;
    QTableView* table() const;
    QCustomPlot* plot() const;
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
    QLabel* m_summary;
    QString m_labelA, m_labelB;
};

}  // namespace ps::ui
