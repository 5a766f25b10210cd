// The timeline's shortcut list (see shortcut_help.hpp).
#include "ui/timeline/navigation/shortcut_help.hpp"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

std::vector<ShortcutEntry> timelineShortcuts() {
    auto tr = [](const char* text) { return ShortcutHelpDialog::tr(text); };
    const QString zoom = QString::number(TimelineWidget::kKeyZoomFactor);
    const QString pan = QString::number(int(TimelineWidget::kKeyPanFraction * 100));
    return {
        {tr("Wheel"), tr("Zoom at the mouse")},
        {tr("Drag"), tr("Pan")},
        {tr("Shift+drag, right-drag"), tr("Zoom to the dragged time range")},
        {tr("Ctrl+drag"), tr("Select a time range: its statistics in the Range tab")},
        {tr("Click"), tr("Select an item: outlines its API call or kernel, shows its level on the map")},
        {tr("Double-click, Home"), tr("Fit the whole trace")},
        {tr("W / S"), tr("Zoom in / out (\u00d7%1) at the mouse, or at the view's centre").arg(zoom)},
        {tr("A / D"), tr("Pan left / right by %1% of the view").arg(pan)},
        {tr("+ / \u2212"), tr("Zoom in / out (\u00d72) at the view's centre")},
        {tr("Backspace"), tr("Undo the last zoom or pan")},
        {tr("Escape"), tr("Clear the range; again: the selection and the highlight")},
        {tr("\u2192 / \u2190, PageDown / PageUp"),
         tr("Next / previous level (lecture mode keeps a window of four levels around it)")},
        {tr("Ctrl+Shift+L"), tr("Lecture mode: large type, a caption per level")},
        {tr("Ctrl+F"), tr("Find by name")},
        {tr("Enter / Shift+Enter, F3 / Shift+F3"), tr("Next / previous match, centred with the zoom kept")},
        {tr("Click a summary row"), tr("Highlight its items on the timeline (Escape clears)")},
        {tr("F1, ?"), tr("This list")},
    };
}

ShortcutHelpDialog::ShortcutHelpDialog(QWidget* parent) : QDialog(parent), m_table(new QTableWidget(this)) {
    setWindowTitle(tr("Timeline keys and gestures"));
    const auto entries = timelineShortcuts();
    m_table->setColumnCount(2);
    m_table->setRowCount(int(entries.size()));
    m_table->setHorizontalHeaderLabels({tr("Key or gesture"), tr("Does")});
    for (int i = 0; i < int(entries.size()); ++i) {
        m_table->setItem(i, 0, new QTableWidgetItem(entries[std::size_t(i)].keys));
        m_table->setItem(i, 1, new QTableWidgetItem(entries[std::size_t(i)].action));
    }
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->resizeColumnsToContents();
    m_table->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    layout->addWidget(buttons);
    resize(620, 520);
}

}  // namespace ps::ui
