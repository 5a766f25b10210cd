// Finding and moving around the timeline, as Perfetto: W / S zoom in / out by the documented
// factor at the view's centre or at the mouse, A / D pan by a fraction of the view, presses in
// a burst are one undo step; these keys win over a window's own shortcuts of the same key (the
// map editor's W and S tools) while the plot has the focus, and Escape only when there is
// something to clear; F1 and ? list every key; search by name (Ctrl+F) counts the matches of
// trace::find_events, steps through them with Enter / Shift+Enter and F3 / Shift+F3, wrapping
// around, selecting the match and centring it with the zoom kept.
#include <qcustomplot.h>

#include <QAction>
#include <QDialog>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>

#include "instrumentation/timeline/trace_stats.hpp"
#include "tests/ui/support/recorded_traces.hpp"
#include "tests/ui/support/timeline_fixture.hpp"
#include "ui/timeline/navigation/shortcut_help.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/navigation/timeline_search.hpp"
#include "ui/timeline/timeline_widget.hpp"

using namespace ps;
using namespace ps::ui;

class TestTimelineNavigation : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const trace::Timeline> m_loop = test::hostLoopTimeline(200);
    std::unique_ptr<QMainWindow> m_window;
    TimelineWidget* m_view = nullptr;
    QAction* m_wallTool = nullptr;  // a window shortcut on W, as the map editor's Wall tool
    QAction* m_cancel = nullptr;    // and on Escape, as Cancel run

    QCustomPlot* plot() const { return m_view->plot(); }
    double span() const { return m_view->visibleEnd() - m_view->visibleBegin(); }
    double centre() const { return 0.5 * (m_view->visibleBegin() + m_view->visibleEnd()); }
    static bool near(double a, double b, double scale) { return std::abs(a - b) <= 1e-9 * std::abs(scale); }
    // The mouse is not over the plot: keys zoom at the view's centre.
    void mouseAway() {
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(plot(), &leave);
    }

private slots:
    void init() {
        m_window = std::make_unique<QMainWindow>();
        m_view = new TimelineWidget(m_window.get());
        m_window->setCentralWidget(m_view);
        m_wallTool = new QAction(QStringLiteral("Wall"), m_window.get());
        m_wallTool->setShortcut(QKeySequence(Qt::Key_W));
        m_window->addAction(m_wallTool);
        m_cancel = new QAction(QStringLiteral("Cancel run"), m_window.get());
        m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
        m_window->addAction(m_cancel);
        m_view->setTimeline(m_loop, QStringLiteral("bfs.gpu.shared"));
        m_window->resize(1280, 480);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        plot()->setFocus();
        QVERIFY(plot()->hasFocus());
        m_view->replotNow();
        mouseAway();
    }
    void cleanup() { m_window.reset(); }

    void wsZoomAtTheCentreByTheDocumentedFactor() {
        const double s0 = span(), c0 = centre();
        QTest::keyClick(plot(), Qt::Key_W);
        QVERIFY(near(span(), s0 / TimelineWidget::kKeyZoomFactor, s0));
        QVERIFY(near(centre(), c0, s0));
        QTest::keyClick(plot(), Qt::Key_W);
        QVERIFY(near(span(), s0 / (TimelineWidget::kKeyZoomFactor * TimelineWidget::kKeyZoomFactor), s0));
        QTest::keyClick(plot(), Qt::Key_S);
        QVERIFY(near(span(), s0 / TimelineWidget::kKeyZoomFactor, s0));
        QVERIFY(near(centre(), c0, s0));
        // A burst of presses is one undo step, back to the whole trace.
        QCOMPARE(m_view->undoDepth(), 1);
        QVERIFY(m_view->undoZoom());
        QVERIFY(near(span(), s0, s0));
    }

    void wZoomsAtTheMouseOverThePlot() {
        const QPoint at(plot()->axisRect()->left() + 250, plot()->axisRect()->center().y());
        QTest::mouseMove(plot(), at);
        const double timeAt = plot()->xAxis->pixelToCoord(at.x());
        const double s0 = span();
        QTest::keyClick(plot(), Qt::Key_W);
        QVERIFY(near(span(), s0 / TimelineWidget::kKeyZoomFactor, s0));
        QVERIFY(near(plot()->xAxis->pixelToCoord(at.x()), timeAt, s0));
    }

    void adPanByAFractionOfTheView() {
        for (int i = 0; i < 4; ++i) QTest::keyClick(plot(), Qt::Key_W);  // room to pan both ways
        const double s0 = span(), b0 = m_view->visibleBegin();
        QTest::keyClick(plot(), Qt::Key_D);
        QVERIFY(near(m_view->visibleBegin(), b0 + TimelineWidget::kKeyPanFraction * s0, s0));
        QVERIFY(near(span(), s0, s0));
        QTest::keyClick(plot(), Qt::Key_A);
        QTest::keyClick(plot(), Qt::Key_A);
        QVERIFY(near(m_view->visibleBegin(), b0 - TimelineWidget::kKeyPanFraction * s0, s0));
    }

    void timelineKeysWinOverTheWindowsShortcuts() {
        QSignalSpy wall(m_wallTool, &QAction::triggered);
        QSignalSpy cancel(m_cancel, &QAction::triggered);
        const double s0 = span();
        QTest::keyClick(plot(), Qt::Key_W);
        QCOMPARE(wall.count(), 0);
        QVERIFY(span() < s0);
        // Escape with nothing to clear stays the window's (Cancel run) ...
        QTest::keyClick(plot(), Qt::Key_Escape);
        QCOMPARE(cancel.count(), 1);
        // ... and clears a range when there is one.
        m_view->setSelectedRange(m_view->visibleBegin(), centre());
        QTest::keyClick(plot(), Qt::Key_Escape);
        QCOMPARE(cancel.count(), 1);
        QVERIFY(!m_view->selectedRange());
    }

    void f1AndQuestionMarkListEveryKey() {
        QVERIFY(!m_view->shortcutDialog());
        QTest::keyClick(plot(), Qt::Key_F1);
        QDialog* help = m_view->shortcutDialog();
        QVERIFY(help);
        QVERIFY(help->isVisible());
        auto* list = static_cast<ShortcutHelpDialog*>(help)->table();
        QStringList keys;
        for (int r = 0; r < list->rowCount(); ++r) keys << list->item(r, 0)->text();
        QCOMPARE(list->rowCount(), int(timelineShortcuts().size()));
        for (const char* key : {"W / S", "A / D", "Ctrl+drag", "Shift+drag, right-drag", "Wheel", "Drag", "Backspace",
                                "Escape", "Ctrl+F", "F1, ?", "Double-click, Home", "Ctrl+Shift+L"})
            QVERIFY2(keys.contains(QString::fromUtf8(key)), key);
        QVERIFY(std::any_of(keys.begin(), keys.end(),
                            [](const QString& k) { return k.contains(QStringLiteral("PageDown")); }));
        QVERIFY(
            std::any_of(keys.begin(), keys.end(), [](const QString& k) { return k.contains(QStringLiteral("F3")); }));
        help->hide();
        plot()->setFocus();
        QTest::keyClick(plot(), Qt::Key_Question, Qt::ShiftModifier);
        QVERIFY(help->isVisible());
        help->hide();
    }

    void searchCountsStepsAndWraps() {
        TimelineSearchBar* search = m_view->searchBar();
        // Ctrl+F focuses the field.
        QTest::keyClick(plot(), Qt::Key_F, Qt::ControlModifier);
        QVERIFY(search->field()->hasFocus());
        QTest::keyClicks(search->field(), QStringLiteral("LEVEL_kernel"));
        const auto want = trace::find_events(*m_loop, "level_kernel");
        QCOMPARE(want.size(), std::size_t(200));
        QCOMPARE(int(search->matches().size()), 200);
        QCOMPARE(search->countText(), QStringLiteral("200 matches"));
        QCOMPARE(m_view->highlight(0), want);  // all matches stand out

        for (int i = 0; i < 4; ++i) QTest::keyClick(plot(), Qt::Key_W);
        const double s0 = span();
        QTest::keyClick(search->field(), Qt::Key_Return);
        QCOMPARE(search->countText(), QStringLiteral("1 of 200"));
        auto selected = [this] { return m_view->selectedEvent() ? m_view->selectedEvent()->id : trace::kNoIndex; };
        QCOMPARE(selected(), want[0]);
        // In view (centred unless the trace's start stops it), with the zoom kept.
        auto middleOf = [this](std::uint32_t event) {
            const trace::Event& e = m_loop->events[event];
            return m_view->toAxisTime(0, e.start_ns) + 0.5 * double(e.duration_ns());
        };
        QVERIFY(near(span(), s0, s0));
        QVERIFY(middleOf(want[0]) > m_view->visibleBegin() && middleOf(want[0]) < m_view->visibleEnd());

        // Shift+Enter from the first wraps to the last; Enter from the last to the first.
        QTest::keyClick(search->field(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(search->countText(), QStringLiteral("200 of 200"));
        QCOMPARE(selected(), want.back());
        QTest::keyClick(search->field(), Qt::Key_Return);
        QCOMPARE(search->countText(), QStringLiteral("1 of 200"));
        // F3 / Shift+F3 on the plot.
        plot()->setFocus();
        QTest::keyClick(plot(), Qt::Key_F3);
        QTest::keyClick(plot(), Qt::Key_F3);
        QCOMPARE(search->countText(), QStringLiteral("3 of 200"));
        QCOMPARE(selected(), want[2]);
        QTest::keyClick(plot(), Qt::Key_F3, Qt::ShiftModifier);
        QCOMPARE(search->countText(), QStringLiteral("2 of 200"));
        // A match in the middle of the trace: exactly centred.
        while (search->current() != 99) search->next();
        QCOMPARE(selected(), want[99]);
        QVERIFY(std::abs(centre() - middleOf(want[99])) < 1e-6 * s0);
        QVERIFY(near(span(), s0, s0));

        search->setQuery(QStringLiteral("no such thing"));
        QCOMPARE(search->countText(), QStringLiteral("no match"));
        search->next();  // nothing to go to
        QVERIFY(m_view->highlight(0).empty());
        search->setQuery({});
        QCOMPARE(search->countText(), QString());
    }

    void searchesTheRecordedTrace() {
        QString why;
        const auto dp = test::recordedTrace("bfs_dp_64.csv", &why);
        if (!dp) QSKIP(qPrintable(why));
        m_view->setTimeline(dp, QStringLiteral("bfs.gpu.dp"));
        TimelineSearchBar* search = m_view->searchBar();
        search->setQuery(QStringLiteral("level"));
        const auto want = trace::find_events(*dp, "level");
        QVERIFY(want.size() > 3);
        QCOMPARE(int(search->matches().size()), int(want.size()));
        search->previous();  // from none: the last
        QCOMPARE(search->current(), int(want.size()) - 1);
        search->next();
        QCOMPARE(search->current(), 0);
        QCOMPARE(search->countText(), QStringLiteral("1 of %1").arg(want.size()));
        // A new run searches again.
        m_view->setTimeline(m_loop, QStringLiteral("loop"));
        QCOMPARE(int(search->matches().size()), int(trace::find_events(*m_loop, "level").size()));
    }

    void searchOrdersTheMatchesOfTwoRunsByTime() {
        auto chain = test::tailChainTimeline(20);
        m_view->setComparison(m_loop, QStringLiteral("shared"), chain, QStringLiteral("dp"));
        TimelineSearchBar* search = m_view->searchBar();
        search->setQuery(QStringLiteral("level"));
        const std::size_t a = trace::find_events(*m_loop, "level").size(),
                          b = trace::find_events(*chain, "level").size();
        QCOMPARE(search->matches().size(), a + b);
        double last = -1e300;
        for (const auto& m : search->matches()) {
            const double at = m_view->toAxisTime(m.run, m_view->timeline(m.run)->events[m.event].start_ns);
            QVERIFY(at >= last);
            last = at;
        }
        QVERIFY(!m_view->highlight(0).empty() && !m_view->highlight(1).empty());
    }
};

QTEST_MAIN(TestTimelineNavigation)
#include "test_timeline_navigation.moc"
