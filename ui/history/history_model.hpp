// The history table: one row per stored run (db::RunRow) with its numbers, for the history
// panel. Rows load off the GUI thread (each load opens its own read-only db::History), the
// filter goes to SQLite as a db::RunFilter, and a LatestJob drops the answers of loads
// overtaken by a newer refresh, so typing in a filter field never shows stale rows.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <cstdint>
#include <vector>

#include "database/history.hpp"
#include "ui/common/async.hpp"

namespace ps::ui {

class HistoryModel : public QAbstractTableModel {
    Q_OBJECT
    Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)
public:
    enum Column {
        Id,
        Date,
        Status,
        Variant,
        Device,
        Map,
        Size,
        Reps,
        TotalMedian,
        ComputeMedian,
        Validation,
        Cost,
        ColumnCount
    };
    // Numbers (ids, times in ms, cell counts) rather than display text, for QSortFilterProxyModel.
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int RunIdRole = Qt::UserRole + 1;

    explicit HistoryModel(QObject* parent = nullptr);
    ~HistoryModel() override;

    // Both reload. An empty path shows nothing.
    void setHistoryPath(const QString& path);
    QString historyPath() const { return m_path; }
    void setFilter(const db::RunFilter& filter);
    const db::RunFilter& filter() const { return m_filter; }

    bool isLoading() const { return m_loading; }
    // Why the last load failed (not a PathScope file, newer schema, locked ...); empty if fine.
    QString errorText() const { return m_error; }
    // False when the file does not exist yet (nothing was stored): not an error.
    bool historyExists() const { return m_exists; }

    const db::RunRow& run(int row) const { return m_rows.at(std::size_t(row)); }
    int rowOfRun(std::int64_t runId) const;  // -1 when not shown

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

public slots:
    void refresh();

signals:
    void loadingChanged(bool loading);
    // The rows of the latest refresh are in (or errorText() says why there are none).
    void loaded();

private:
    struct LoadResult;
    void apply(LoadResult result);
    void setLoading(bool loading);

    std::vector<db::RunRow> m_rows;
    QString m_path;
    db::RunFilter m_filter;
    QString m_error;
    bool m_exists = false;
    bool m_loading = false;
    LatestJob m_load;
};

// Display helpers shared with the compare dialog, so both show numbers the same way.
QString formatMs(double ms);
QString formatCost(const db::RunRow& row);
QString formatLocalTime(std::int64_t unixMs);

}  // namespace ps::ui
