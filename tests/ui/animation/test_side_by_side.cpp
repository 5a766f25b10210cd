// Two runs side by side in lock-step: one slider moves both; each panel shows its own frame of
// the common one (the same number of expansions per frame), holds its last frame once its run
// has ended, and the picture is the movie's frame; play runs to the end; the History dock
// opens two stored runs that way, the Run dock two finished results. Set PATHSCOPE_TEST_OUT to a folder to keep a
// picture of it.
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/support/history_fixture.hpp"
#include "tests/ui/support/search_fixture.hpp"
#include "ui/animation/side_by_side.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/map/map_document.hpp"
#include "ui/run/run_panel.hpp"
#include "ui/run/run_worker.hpp"

using namespace ps;
using namespace ps::ui;

class TestSideBySide : public QObject {
    Q_OBJECT

private slots:
    void oneSliderMovesBothRunsInStep() {
        const auto map =
            test::mapFromRows({"........................", "........................", "..........#.............",
                               "..........#.............", "..........#.............", "........................"});
        const auto astar = test::run(test::requestOn(map, "astar.cpu", {0, 3}, {23, 3}, Connectivity::Eight));
        const auto jps = test::run(test::requestOn(map, "jps.cpu", {0, 3}, {23, 3}, Connectivity::Eight));
        const std::vector<MoviePanel> panels{{map, astar, QStringLiteral("astar.cpu")},
                                             {map, jps, QStringLiteral("jps.cpu")}};
        SideBySideView view(panels);
        MovieFrames reference(panels, 1280, false);
        QCOMPARE(view.frameCount(), reference.frameCount());
        QVERIFY(reference.panelFrames(1) < reference.panelFrames(0));  // JPS expands fewer jump points
        QCOMPARE(view.frame(), view.frameCount() - 1);                 // opens on the final state

        QSignalSpy changed(&view, &SideBySideView::frameChanged);
        const int early = reference.panelFrames(1) / 2, late = reference.panelFrames(0) - 1;
        for (const int f : {early, late, 0}) {
            view.setFrame(f);
            QCOMPARE(view.frame(), f);
            QCOMPARE(view.panelFrame(0), f);
            QCOMPARE(view.panelFrame(1), std::min(f, reference.panelFrames(1) - 1));  // holds its end
            QCOMPARE(view.image(), reference.frame(f));
        }
        QCOMPARE(changed.count(), 3);

        if (const QString out = qEnvironmentVariable("PATHSCOPE_TEST_OUT"); !out.isEmpty()) {  // for a look
            view.setFrame(early);
            view.grab().save(out + QStringLiteral("/side-by-side.png"));
        }
        view.play();
        QTRY_COMPARE_WITH_TIMEOUT(view.frame(), view.frameCount() - 1, 20000);
    }

    void theRunDockOpensTwoFinishedResults() {
        MapDocument document;
        GridMap map(40, 30);
        for (int y = 0; y < 25; ++y) map.set_passable(20, y, false);
        document.setMap(std::move(map), QStringLiteral("wall"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        panel.selectVariants({QStringLiteral("astar.cpu"), QStringLiteral("jps.cpu")});
        panel.runSelected();
        QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), 2, 60000);
        auto* table = panel.findChild<QTableView*>();
        QVERIFY(table);
        QSignalSpy opened(&panel, &RunPanel::sideBySideOpened);
        table->selectRow(0);
        panel.sideBySideSelected();  // one result: says what to do, opens nothing
        QCOMPARE(opened.count(), 0);
        table->selectionModel()->select(table->model()->index(1, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
        panel.sideBySideSelected();
        QCOMPARE(opened.count(), 1);
        auto* view = qobject_cast<SideBySideView*>(opened.first().at(0).value<QWidget*>());
        QVERIFY(view && view->frameCount() > 1);
        view->close();
    }

    void theHistoryDockOpensTwoStoredRuns() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("history.sqlite"));
        QVERIFY(test::fillHistory(path).isEmpty());
        HistoryPanel panel;
        panel.setHistoryPath(path);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.model()->isLoading() && panel.model()->rowCount() == 3, 30000);
        std::vector<std::int64_t> ids;
        for (int r = 0; r < panel.model()->rowCount(); ++r)
            if (panel.model()->run(r).info.variant != "bfs.cpu.queue") ids.push_back(panel.model()->run(r).id);
        QCOMPARE(int(ids.size()), 2);
        panel.selectRuns(ids);
        QSignalSpy opened(&panel, &HistoryPanel::sideBySideOpened);
        panel.sideBySideSelected();
        QVERIFY(opened.wait(30000));
        auto* view = qobject_cast<SideBySideView*>(opened.first().at(0).value<QWidget*>());
        QVERIFY(view);
        QVERIFY(view->frameCount() > 1);
        QVERIFY(view->panelFrame(0) >= 0 && view->panelFrame(1) >= 0);
        view->close();
    }
};

QTEST_MAIN(TestSideBySide)
#include "test_side_by_side.moc"
