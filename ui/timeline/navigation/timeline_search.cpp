// Search by name in the timeline (see timeline_search.hpp).
#include "ui/timeline/navigation/timeline_search.hpp"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <algorithm>

#include "instrumentation/timeline/trace_stats.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

TimelineSearchBar::TimelineSearchBar(TimelineWidget* view, QWidget* parent)
    : QWidget(parent), m_view(view), m_field(new QLineEdit(this)), m_count(new QLabel(this)) {
    m_field->setPlaceholderText(tr("Find by name (Ctrl+F)"));
    m_field->setClearButtonEnabled(true);
    m_field->setToolTip(
        tr("Kernels, levels, API calls, NVTX ranges, memory operations whose name contains this "
           "(any case). Enter / Shift+Enter or F3 / Shift+F3: next / previous match."));
    m_field->setMinimumWidth(160);
    m_field->installEventFilter(this);
    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    m_previous = button(QStringLiteral("\u25b2"), tr("Previous match (Shift+Enter, Shift+F3)"));
    m_next = button(QStringLiteral("\u25bc"), tr("Next match (Enter, F3)"));
    connect(m_previous, &QToolButton::clicked, this, &TimelineSearchBar::previous);
    connect(m_next, &QToolButton::clicked, this, &TimelineSearchBar::next);
    connect(m_field, &QLineEdit::textChanged, this, &TimelineSearchBar::setQuery);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_field);
    layout->addWidget(m_count);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    updateCount();
}

QLineEdit* TimelineSearchBar::field() const { return m_field; }

QString TimelineSearchBar::query() const { return m_field->text(); }

QString TimelineSearchBar::countText() const {
    if (query().isEmpty()) return {};
    if (m_matches.empty()) return tr("no match");
    if (m_current < 0) return m_matches.size() == 1 ? tr("1 match") : tr("%1 matches").arg(m_matches.size());
    return tr("%1 of %2").arg(m_current + 1).arg(m_matches.size());
}

void TimelineSearchBar::setQuery(const QString& text) {
    if (m_field->text() != text) {
        m_field->setText(text);  // comes back here through textChanged
        return;
    }
    search();
}

void TimelineSearchBar::refresh() { search(); }

void TimelineSearchBar::search() {
    m_matches.clear();
    m_current = -1;
    const std::string needle = query().toStdString();
    std::vector<std::pair<double, Match>> found;
    for (int run = 0; run < m_view->runCount(); ++run) {
        const auto timeline = m_view->timeline(run);
        if (!timeline || needle.empty()) continue;
        std::vector<std::uint32_t> events = trace::find_events(*timeline, needle);
        for (const std::uint32_t e : events)
            found.push_back({m_view->toAxisTime(run, timeline->events[e].start_ns), Match{run, e}});
        // All matches stand out over the dimmed rest while the query is there.
        m_view->setHighlight(run, std::move(events));
    }
    if (needle.empty()) m_view->clearHighlight();
    // In time order on the axis (compare mode interleaves the runs), ties by run then index.
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        if (a.second.run != b.second.run) return a.second.run < b.second.run;
        return a.second.event < b.second.event;
    });
    m_matches.reserve(found.size());
    for (const auto& f : found) m_matches.push_back(f.second);
    updateCount();
}

void TimelineSearchBar::next() {
    if (m_matches.empty()) return;
    go(m_current < 0 ? 0 : (m_current + 1) % int(m_matches.size()));
}

void TimelineSearchBar::previous() {
    if (m_matches.empty()) return;
    const int n = int(m_matches.size());
    go(m_current <= 0 ? n - 1 : m_current - 1);
}

void TimelineSearchBar::go(int index) {
    m_current = index;
    const Match& m = m_matches[std::size_t(index)];
    m_view->selectEvent(m.run, m.event);
    m_view->centerOnEvent(m.run, m.event);
    updateCount();
    emit currentChanged(index);
}

void TimelineSearchBar::updateCount() {
    m_count->setText(countText());
    const bool any = !m_matches.empty();
    m_previous->setEnabled(any);
    m_next->setEnabled(any);
}

void TimelineSearchBar::focusField() {
    m_field->setFocus(Qt::ShortcutFocusReason);
    m_field->selectAll();
}

bool TimelineSearchBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_field) return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::ShortcutOverride) {
        // The field's keys, not the window's (Escape would cancel a run).
        const int k = static_cast<QKeyEvent*>(event)->key();
        if (k != Qt::Key_Escape && k != Qt::Key_F3) return false;
        event->accept();
        return true;
    }
    if (event->type() != QEvent::KeyPress) return false;
    const auto* key = static_cast<QKeyEvent*>(event);
    const bool shift = key->modifiers() & Qt::ShiftModifier;
    switch (key->key()) {
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_F3:
        shift ? previous() : next();
        return true;
    case Qt::Key_Escape:  // back to the plot, the query kept
        m_view->setFocus(Qt::OtherFocusReason);
        return true;
    default:
        return false;
    }
}

}  // namespace ps::ui
