// Search by name in the timeline's runs (trace::find_events: kernels, levels, API calls, NVTX
// ranges, memory operations, host phases; case-insensitive substring): a field that Ctrl+F
// focuses, the count ("3 of 127"), and next / previous (Enter / Shift+Enter in the field, F3 /
// Shift+F3 on the plot), wrapping around. Matches of every shown run are ordered by their time
// on the view's axis; all are highlighted, and the current one is selected and centred with
// the zoom kept.
#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

class QLabel;
class QLineEdit;
class QToolButton;

namespace ps::ui {

class TimelineWidget;

class TimelineSearchBar : public QWidget {
    Q_OBJECT
public:
    struct Match {
        int run = 0;
        std::uint32_t event = 0;
        friend bool operator==(const Match&, const Match&) = default;
    };

    TimelineSearchBar(TimelineWidget* view, QWidget* parent = nullptr);

    QLineEdit* field() const;
    QString query() const;
    const std::vector<Match>& matches() const { return m_matches; }
    // The match shown (selected and centred), -1 before the first next() / previous().
    int current() const { return m_current; }
    // "3 of 127", "127 matches", "no match", empty without a query.
    QString countText() const;

public slots:
    // As typing it: the matches are found again and highlighted; none is current yet.
    void setQuery(const QString& text);
    // The next / previous match, wrapping around at either end.
    void next();
    void previous();
    // The runs changed: the query is searched again.
    void refresh();
    void focusField();

signals:
    void currentChanged(int index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void search();
    void go(int index);
    void updateCount();

    TimelineWidget* m_view;
    QLineEdit* m_field;
    QLabel* m_count;
    QToolButton *m_previous, *m_next;
    std::vector<Match> m_matches;
    int m_current = -1;
};

}  // namespace ps::ui
