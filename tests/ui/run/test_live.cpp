// Live re-search: with Live on, moving the start or the goal (a drag is many moves) or painting a
// wall re-runs the ticked variant off the GUI thread; only the latest change's answer arrives
// (older ones are dropped), and it equals a normal run of that problem. Prints (never asserts)
// the time from a move to its path on a 1024² rooms map, the README's benchmark.
#include <QSignalSpy>
#include <QtTest>

#include "kernels/map/generators.hpp"
#include "ui/map/map_document.hpp"
#include "ui/run/run_panel.hpp"
#include "ui/run/run_worker.hpp"

using namespace ps;
using namespace ps::ui;

namespace {
constexpr int kTimeoutMs = 30000;

double normalCost(const GridMap& map, Cell start, Cell goal) {
    RunRequest r;
    r.variant_id = "astar.cpu";
    r.problem.map = std::make_shared<const GridMap>(map);
    r.problem.rules.connectivity = Connectivity::Eight;
    r.problem.start = map.index(start);
    r.problem.goal = map.index(goal);
    return run_variant(r).result.cost;
}
}  // namespace

class TestLive : public QObject {
    Q_OBJECT

private slots:
    void theLatestMoveWinsAndEqualsANormalRun() {
        MapDocument document;
        GridMap map(96, 64);
        for (int y = 0; y < 50; ++y) map.set_passable(48, y, false);
        document.setMap(std::move(map), QStringLiteral("wall"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        panel.selectVariants({QStringLiteral("astar.cpu")});
        document.setStart({2, 2});
        document.setGoal({90, 5});
        QSignalSpy updated(&panel, &RunPanel::liveUpdated);
        panel.setLive(true);
        QVERIFY(updated.wait(kTimeoutMs));
        updated.clear();

        // A drag: twenty moves in one gesture, faster than the searches.
        document.beginEndpointDrag();
        for (int x = 60; x < 80; ++x) document.setGoal({x, 10});
        document.endEndpointDrag();
        QVERIFY(updated.wait(kTimeoutMs));
        QTest::qWait(200);  // nothing stale comes after the latest
        const auto last = updated.last().at(0).value<RunOutcomePtr>();
        QCOMPARE(last->request.problem.goal, document.map().index({79, 10}));
        QVERIFY(updated.count() < 20);
        QCOMPARE(last->report.result.cost, normalCost(document.map(), {2, 2}, {79, 10}));
        QVERIFY(last->report.result.recording);  // the frontier to show

        // A wall painted across the way: the path goes around it.
        updated.clear();
        document.paintRect(QRect(40, 0, 1, 64), true);
        QVERIFY(updated.wait(kTimeoutMs));
        QVERIFY(!updated.last().at(0).value<RunOutcomePtr>()->report.result.found);  // cut off now
        // Live off: moves run nothing.
        panel.setLive(false);
        updated.clear();
        document.setGoal({30, 30});
        QTest::qWait(200);
        QCOMPARE(updated.count(), 0);
    }

    void moveToPathOnA1024RoomsMap() {
        GeneratorParams params;
        params.kind = GeneratorKind::Rooms;
        params.width = params.height = 1024;
        params.seed = 3;
        auto map = generate_map(params);
        QVERIFY(map);
        MapDocument document;
        document.setMap(std::move(*map), QStringLiteral("rooms-1024"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        panel.selectVariants({QStringLiteral("astar.cpu")});
        const auto start = nearest_passable(document.map(), {500, 500});
        document.setStart(*start);
        document.setGoal(*nearest_passable(document.map(), {600, 560}));
        QSignalSpy updated(&panel, &RunPanel::liveUpdated);
        panel.setLive(true);
        QVERIFY(updated.wait(kTimeoutMs));
        std::vector<double> latencies;
        for (int i = 1; i <= 10; ++i) {  // each move to another cell (a move onto the same cell changes nothing)
            updated.clear();
            document.setGoal(*nearest_passable(document.map(), {600 + 8 * i, 560 + 4 * i}));
            QVERIFY(updated.wait(kTimeoutMs));
            latencies.push_back(updated.last().at(1).toDouble());
        }
        std::sort(latencies.begin(), latencies.end());
        qInfo("[ live ] astar.cpu on rooms-1024, goal ~100 cells away: move to path median %.1f ms, max %.1f ms",
              latencies[latencies.size() / 2], latencies.back());
    }
};

QTEST_MAIN(TestLive)
#include "test_live.moc"
