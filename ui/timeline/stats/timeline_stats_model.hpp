// Table models over trace_stats.hpp's results, for the timeline's statistics views: a summary
// table (`nsys stats`: per name count, total, mean, median, min, max, standard deviation, share;
// memory operations with bytes and GB/s), the rows of a selected range, and the per-level
// difference of two runs. Cells show times in microseconds; SortRole gives the raw number (ns,
// %, bytes, edges, MTEPS) so a QSortFilterProxyModel sorts numerically, never by text.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "instrumentation/timeline/trace_stats.hpp"

namespace ps::ui {

// "1,234.567": ns as microseconds with three decimals (the unit is in the column's header).
QString microseconds(double ns);

class NameStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Count, Total, Mean, Median, Min, Max, StdDev, Percent, Bytes, Bandwidth, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;
    explicit NameStatsModel(QObject* parent = nullptr);

    // `memory`: the Bytes and GB/s columns too. `percentHeader`: what the share is of ("%",
    // "% of range").
    void setRows(std::vector<trace::NameStats> rows, bool memory, const QString& percentHeader = QStringLiteral("%"));
    const trace::NameStats& stats(int row) const { return m_rows[std::size_t(row)]; }
    const std::vector<trace::NameStats>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<trace::NameStats> m_rows;
    bool m_memory = false;
    QString m_percentHeader = QStringLiteral("%");
};

class RowStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Row, Count, Total, Mean, Median, Min, Max, Percent, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;
    explicit RowStatsModel(QObject* parent = nullptr);

    void setRows(std::vector<trace::RowStats> rows);
    const std::vector<trace::RowStats>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<trace::RowStats> m_rows;
};

class LevelDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Edges and MTEPS: a BFS run's edges visited in the level and their rate over its time
    // (level_diff_with_rates). Diff: B's time minus A's; DiffWithGap: the same with each side's
    // gap before the level (a level a run reaches later by its launch costs it too). Empty where
    // a run lacks the level or its edges were not counted.
    enum Column { Level, TimeA, GapA, EdgesA, MtepsA, TimeB, GapB, EdgesB, MtepsB, Diff, DiffWithGap, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;
    explicit LevelDiffModel(QObject* parent = nullptr);

    void setRows(std::vector<trace::LevelDiffRow> rows, const QString& labelA, const QString& labelB);
    const std::vector<trace::LevelDiffRow>& rows() const { return m_rows; }
    // The raw value of a cell: ns, the level, edges or MTEPS; nullopt where it is empty.
    static std::optional<double> value(const trace::LevelDiffRow& row, int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<trace::LevelDiffRow> m_rows;
    QString m_labelA = QStringLiteral("A"), m_labelB = QStringLiteral("B");
};

}  // namespace ps::ui
