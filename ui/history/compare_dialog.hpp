// Side-by-side comparison of two or more stored runs: one column per run, one line per number
// (times, cost, expanded, levels, validation, every counter any of them has), the fastest time
// in bold and the speedup of each run over the first. The lines are a pure function of the rows,
// so they are tested without a widget.
#pragma once

#include <QDialog>
#include <QStringList>
#include <vector>

#include "database/history.hpp"

class QTableWidget;

namespace ps::ui {

struct CompareLine {
    QString field;
    QStringList values;  // one per run, in the order given
    int best = -1;       // column to emphasise (the smallest time), -1 for none
};

std::vector<CompareLine> compareLines(const std::vector<db::RunRow>& runs);

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    explicit CompareDialog(const std::vector<db::RunRow>& runs, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }

private:
    void copyToClipboard() const;

    QTableWidget* m_table;
};

}  // namespace ps::ui
