// The results table of the run panel: one row per finished variant (variant, device, path
// cost, expanded, levels, validation badge, end-to-end and compute median with min/max,
// stored run id). Rows hold the whole outcome so selecting one can replay it.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "ui/run/run_worker.hpp"

namespace ps::ui {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Variant, Device, Cost, Expanded, Levels, Mteps, Validation, Total, Compute, Stored, ColumnCount };
    // The raw value of a cell (number, or the id text), for QSortFilterProxyModel::setSortRole.
    static constexpr int SortRole = Qt::UserRole;
    explicit ResultsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void add(RunOutcomePtr outcome);
    void clear();
    RunOutcomePtr outcome(int row) const;

private:
    std::vector<RunOutcomePtr> m_rows;
};

}  // namespace ps::ui
