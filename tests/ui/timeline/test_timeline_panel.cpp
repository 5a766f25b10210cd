// The timeline dock: a finished run's timeline in memory, stored runs loaded off the GUI thread
// (one shown, two compared, an untraced one reported), and the two-way link with the animation
// (clicking a level moves the map's frame; scrubbing the animation moves the timeline's cursor).
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "tests/ui/support/timeline_fixture.hpp"
#include "ui/animation/animation.hpp"
#include "ui/shell/wiring.hpp"
#include "ui/timeline/timeline_panel.hpp"
#include "ui/timeline/timeline_widget.hpp"

using namespace ps;
using namespace ps::ui;

class TestTimelinePanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    test::TimelineHistory m_history;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("history.sqlite"));
        m_history = test::fillTimelineHistory(m_db);
        QVERIFY2(m_history.error.isEmpty(), qPrintable(m_history.error));
    }

    void showsStoredRunsOffTheGuiThread() {
        TimelinePanel panel;
        QSignalSpy status(&panel, &TimelinePanel::statusMessage);
        panel.showStoredRuns(m_db, {m_history.hostLoop});
        QTRY_COMPARE(panel.view()->runCount(), 1);
        QCOMPARE(panel.view()->levelCount(), 300);
        QVERIFY(panel.view()->provenance().device.find("H100") != std::string::npos);

        panel.showStoredRuns(m_db, {m_history.hostLoop, m_history.tailChain});
        QTRY_COMPARE(panel.view()->runCount(), 2);
        QVERIFY(panel.view()->summaryText().contains(QStringLiteral("bfs.gpu.dp")));

        // An untraced run: the view says so (not an error for the status bar).
        panel.showStoredRuns(m_db, {m_history.untraced});
        QTRY_COMPARE(panel.view()->runCount(), 0);
        QVERIFY(panel.view()->findChild<QLabel*>() != nullptr);
        bool said = false;
        for (const QLabel* label : panel.view()->findChildren<QLabel*>())
            said = said || label->text().contains(QStringLiteral("has no timeline"));
        QVERIFY(said);
        // An unreadable file is an error.
        panel.showStoredRuns(m_dir.filePath(QStringLiteral("missing.sqlite")), {1});
        QTRY_COMPARE(status.count(), 1);

        // The newest request wins: a finished run shown meanwhile is not replaced by the load.
        panel.showStoredRuns(m_db, {m_history.tailChain});
        auto outcome = std::make_shared<RunOutcome>();
        outcome->report.info.id = "bfs.gpu.shared";
        outcome->report.timeline = test::hostLoopTimeline(40);
        panel.showOutcome(outcome);
        QTRY_COMPARE(panel.view()->levelCount(), 40);
        QTest::qWait(200);  // the stored run's answer, if it comes now, is dropped
        QCOMPARE(panel.view()->runCount(), 1);
        QCOMPARE(panel.view()->levelCount(), 40);

        // A run that was not traced says so.
        auto untraced = std::make_shared<RunOutcome>();
        untraced->report.info.id = "bfs.cpu.queue";
        panel.showOutcome(untraced);
        QCOMPARE(panel.view()->runCount(), 0);
    }

    void followsTheAnimationBothWays() {
        constexpr int kLevels = 300;
        TimelinePanel panel;
        Animation animation;
        linkTimelineAndAnimation(&panel, &animation);
        // A 300 x 1 corridor whose cells are BFS levels 0..299: one frame per level.
        auto map = std::make_shared<const GridMap>(kLevels, 1);
        auto result = std::make_shared<RunResult>();
        for (int l = 0; l < kLevels; ++l) result->bfs_levels.push_back(l);
        result->levels = kLevels;
        animation.setRun(map, result);
        QCOMPARE(animation.frameCount(), kLevels);

        auto outcome = std::make_shared<RunOutcome>();
        outcome->report.info.id = "bfs.gpu.shared";
        outcome->report.timeline = test::hostLoopTimeline(kLevels);
        panel.showOutcome(outcome);
        QTRY_COMPARE(panel.view()->levelCount(), kLevels);
        panel.view()->selectEvent(0, 4 * 120 + 1);  // level 120's kernel
        QCOMPARE(animation.frame(), 120);
        animation.setFrame(200);
        QCOMPARE(panel.view()->cursorLevel(), 200);
        panel.view()->stepLevel(+1);
        QCOMPARE(animation.frame(), 201);
    }
};

QTEST_MAIN(TestTimelinePanel)
#include "test_timeline_panel.moc"
