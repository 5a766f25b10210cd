// The timeline's keys and mouse gestures in one list (F1 or ? on the plot, the "?" button): the
// table is data, so the dialog, the tooltips and the tests read the same entries.
#pragma once

#include <QDialog>
#include <QString>
#include <vector>

class QTableWidget;

namespace ps::ui {

struct ShortcutEntry {
    QString keys;    // "W / S", "Ctrl+drag"
    QString action;  // what it does
};
// Every key and gesture of the timeline view, its statistics and its search, in the order the
// dialog lists them (mouse first, then keys).
std::vector<ShortcutEntry> timelineShortcuts();

// A small non-modal window listing timelineShortcuts(); Escape or Close hides it.
class ShortcutHelpDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutHelpDialog(QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};

}  // namespace ps::ui
