// The crowd tools of issue 9: the flow-field player (placement, stepping to the goal in
// exactly the distance, play to the end, arrows sampling), its painting on the map view, the
// roadmap layer, the Crowd panel's asynchronous roadmap generation and reading (errors
// included), and the wiring in the main window (a selected flow-field run reaches the player).
#include <QDockWidget>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "kernels/run/runner.hpp"
#include "ui/crowd/agent_steps_plot.hpp"
#include "ui/animation/animation.hpp"
#include "ui/crowd/crowd_panel.hpp"
#include "ui/crowd/flowfield_player.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_view.hpp"
#include "ui/crowd/roadmap_layer.hpp"
#include "ui/run/run_panel.hpp"

using namespace ps;
using namespace ps::ui;

namespace {

// '#' wall; 4-connected distances to the goal (0,0) by hand:
//   0 1 2 3 4
//   1 # # # 5
//   2 # 8 7 6
//   3 # 7 # 7
//   4 5 6 # 8
const std::vector<std::string> kRows = {".....", ".###.", ".#...", ".#.#.", "...#."};
constexpr int kReachable = 17;  // cells with a distance > 0

std::shared_ptr<const GridMap> mapFromRows(const std::vector<std::string>& rows) {
    GridMap map(int(rows.front().size()), int(rows.size()));
    for (int y = 0; y < map.height(); ++y)
        for (int x = 0; x < map.width(); ++x) map.set_passable(x, y, rows[std::size_t(y)][std::size_t(x)] != '#');
    return std::make_shared<const GridMap>(std::move(map));
}

RunOutcomePtr runOn(std::shared_ptr<const GridMap> map, const std::string& variant, Connectivity connectivity) {
    auto outcome = std::make_shared<RunOutcome>();
    outcome->request.variant_id = variant;
    outcome->request.problem.map = map;
    outcome->request.problem.rules.connectivity = connectivity;
    outcome->request.problem.goal = 0;
    outcome->request.problem.start = map->index(4, 4);
    outcome->report = run_variant(outcome->request);
    return outcome;
}

int countColour(const QImage& image, QRgb colour) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) n += (image.pixel(x, y) & 0xFFFFFF) == (colour & 0xFFFFFF);
    return n;
}

}  // namespace

class TestCrowd : public QObject {
    Q_OBJECT
private slots:
    void playerIgnoresRunsWithoutField() {
        FlowFieldPlayer player;
        const auto map = mapFromRows(kRows);
        const RunOutcomePtr bfs = runOn(map, "bfs.cpu.queue", Connectivity::Four);
        QCOMPARE(bfs->report.result.status, RunStatus::Ok);
        QVERIFY(!player.setRun(map, bfs->report.result));
        QVERIFY(!player.hasField());
        QVERIFY(player.status().startsWith(QStringLiteral("No flow field")));
    }

    void agentsArriveInExactlyTheirDistance() {
        FlowFieldPlayer player;
        const auto map = mapFromRows(kRows);
        const RunOutcomePtr flow = runOn(map, "flowfield.cpu", Connectivity::Four);
        QCOMPARE(flow->report.result.status, RunStatus::Ok);
        player.setAgentCount(100);
        QVERIFY(player.setRun(map, flow->report.result));
        QCOMPARE(int(player.agents().size()), kReachable);  // every reachable cell but the goal
        QCOMPARE(player.arrived(), 0);
        // The farthest cells are at 8: after 7 steps someone is still walking, after 8 nobody.
        for (int i = 0; i < 7; ++i) player.stepForward();
        QCOMPARE(player.step(), 7);
        QCOMPARE(player.stillMoving(), 2);  // the two cells at distance 8
        QCOMPARE(player.arrived(), kReachable - 2);
        player.stepForward();
        QCOMPARE(player.arrived(), kReachable);
        QCOMPARE(player.stillMoving(), 0);
        QVERIFY(player.status().contains(QStringLiteral("all arrived")));
        player.stepForward();  // nothing left to do
        QCOMPARE(player.step(), 8);
        player.reset();
        QCOMPARE(player.step(), 0);
        QCOMPARE(player.arrived(), 0);
    }

    void playRunsToTheEndAndStops() {
        FlowFieldPlayer player;
        const auto map = mapFromRows(kRows);
        QVERIFY(player.setRun(map, runOn(map, "flowfield.cpu", Connectivity::Eight)->report.result));
        QSignalSpy playing(&player, &FlowFieldPlayer::playingChanged);
        player.setSpeed(240);
        player.play();
        QVERIFY(player.playing());
        QTRY_VERIFY_WITH_TIMEOUT(!player.playing(), 5000);
        QCOMPARE(player.arrived(), int(player.agents().size()));
        QCOMPARE(playing.count(), 2);  // started, stopped
    }

    void placementFollowsCountAndSeed() {
        FlowFieldPlayer player;
        const auto map = mapFromRows(kRows);
        QVERIFY(player.setRun(map, runOn(map, "flowfield.cpu", Connectivity::Four)->report.result));
        player.setAgentCount(5);
        QCOMPARE(int(player.agents().size()), 5);
        const std::vector<Vertex> first = player.agents();
        player.placeAgents();
        QCOMPARE(int(player.agents().size()), 5);
        QVERIFY(player.agents() != first);  // a new seed (17 choose 5 placements: equal is a bug)
    }

    void arrowStride_data() {
        QTest::addColumn<double>("pixelsPerCell");
        QTest::addColumn<int>("stride");
        QTest::newRow("64 px") << 64.0 << 1;
        QTest::newRow("14 px") << 14.0 << 1;
        QTest::newRow("7 px") << 7.0 << 2;
        QTest::newRow("4 px") << 4.0 << 4;
        QTest::newRow("1 px") << 1.0 << 14;
        QTest::newRow("1/8 px") << 0.125 << 112;
    }
    void arrowStride() {
        QFETCH(double, pixelsPerCell);
        QFETCH(int, stride);
        QCOMPARE(FlowFieldPlayer::arrowStride(pixelsPerCell), stride);
    }

    void viewPaintsAgentsAndArrows() {
        MapDocument document;
        GridMap grid = *mapFromRows(kRows);
        document.setMap(grid, QStringLiteral("crowd"));
        MapView view(&document);
        FlowFieldPlayer player;
        view.addLayer(&player);
        const QImage bare = view.renderImage(QSize(200, 200));
        QVERIFY(player.setRun(document.snapshot(),
                              runOn(document.snapshot(), "flowfield.cpu", Connectivity::Four)->report.result));
        const QImage withAgents = view.renderImage(QSize(200, 200));
        const QRgb pink = qRgb(0xff, 0x2d, 0x95);
        QCOMPARE(countColour(bare, pink), 0);
        QVERIFY(countColour(withAgents, pink) > 17 * 20);  // 17 discs of several pixels
        player.setArrowsShown(false);
        const QImage noArrows = view.renderImage(QSize(200, 200));
        QVERIFY(noArrows != withAgents);
        QCOMPARE(countColour(noArrows, pink), countColour(withAgents, pink));  // agents are painted over the arrows
        player.setShown(false);
        QCOMPARE(countColour(view.renderImage(QSize(200, 200)), pink), 0);
    }

    void panelGeneratesAndOpensRoadmaps() {
        MapDocument document;
        GridMap grid(64, 48);
        for (int y = 10; y < 40; ++y) grid.set_passable(30, y, false);
        document.setMap(grid, QStringLiteral("roads"));
        MapView view(&document);
        FlowFieldPlayer player;
        RoadmapLayer roadmap;
        view.addLayer(&roadmap);
        CrowdPanel panel(&player, &roadmap, &document);
        QSignalSpy loaded(&panel, &CrowdPanel::roadmapLoaded);

        panel.setWaypointSpacing(8);
        panel.generateRoadmap();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        QVERIFY(loaded.at(0).at(0).toBool());
        QVERIFY(roadmap.roadmap());
        QCOMPARE(int(roadmap.roadmap()->graph.vertex_count()), 8 * 6);  // one waypoint per 8x8 block
        QVERIFY(roadmap.summary().contains(QStringLiteral("spacing 8")));
        const QRgb edge = qRgb(0x00, 0x4a, 0x80);
        QVERIFY(countColour(view.renderImage(QSize(320, 240)), edge) > 0);
        panel.showRoadmapAction()->setChecked(false);
        QVERIFY(!roadmap.isShown());
        QCOMPARE(countColour(view.renderImage(QSize(320, 240)), edge), 0);

        // A file that is not a roadmap: an error naming the problem, the old roadmap stays.
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.roadmap"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a roadmap\n");
        file.close();
        panel.openRoadmap(bad);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
        QVERIFY(!loaded.at(1).at(0).toBool());
        QVERIFY(!loaded.at(1).at(1).toString().isEmpty());
        QCOMPARE(int(roadmap.roadmap()->graph.vertex_count()), 8 * 6);

        // A roadmap written to disk reads back.
        const QString good = dir.filePath(QStringLiteral("good.roadmap"));
        QVERIFY(write_roadmap(*roadmap.roadmap(), good.toStdString()).ok());
        panel.openRoadmap(good);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 3, 10000);
        QVERIFY(loaded.at(2).at(0).toBool());
        QVERIFY(roadmap.summary().contains(QStringLiteral("good.roadmap")));
        QVERIFY(roadmap.isShown());  // opening shows it again
    }

    // 8-connected flow fields on mazes reach distances near 2^31: the animation must not make
    // per-level tables that large (it coarsens them), and still shows every reached cell.
    void animationCopesWithHugeDistances() {
        const auto map = std::make_shared<const GridMap>(GridMap(3, 1));
        auto result = std::make_shared<RunResult>();
        result->bfs_levels = {0, 1414000000, 2100000000};
        Animation animation;
        animation.setRun(map, result);
        QVERIFY(animation.frameCount() > 0);
        QVERIFY(animation.frameCount() <= 4000);
        const QImage last = animation.overlay()->cells.convertToFormat(QImage::Format_ARGB32);
        for (int x = 0; x < 3; ++x) QVERIFY(qAlpha(last.pixel(x, 0)) > 0);
        QVERIFY(animation.caption().contains(QStringLiteral("of 2")));  // levels shown in the field's units
    }

    void histogram_data() {
        QTest::addColumn<std::vector<std::uint32_t>>("steps");
        QTest::addColumn<int>("bins");
        QTest::addColumn<double>("width");
        QTest::addColumn<std::vector<std::uint64_t>>("counts");
        QTest::addColumn<double>("median");
        QTest::newRow("none") << std::vector<std::uint32_t>{} << 4 << 1.0 << std::vector<std::uint64_t>{} << 0.0;
        // Small integers: one bin each (width never below 1).
        QTest::newRow("small") << std::vector<std::uint32_t>{0, 2, 2, 1} << 40 << 1.0
                               << std::vector<std::uint64_t>{1, 1, 2} << 1.5;
        // 0..100 in 4 bins: width ceil(101 / 4) = 26, the last bin holds 78..100.
        std::vector<std::uint32_t> ramp;
        for (std::uint32_t i = 0; i <= 100; ++i) ramp.push_back(i);
        QTest::newRow("ramp") << ramp << 4 << 26.0 << std::vector<std::uint64_t>{26, 26, 26, 23} << 50.0;
    }
    void histogram() {
        QFETCH(std::vector<std::uint32_t>, steps);
        QFETCH(int, bins);
        QFETCH(double, width);
        QFETCH(std::vector<std::uint64_t>, counts);
        QFETCH(double, median);
        const StepHistogram h = stepHistogram(steps, bins);
        QCOMPARE(h.counts, counts);
        if (steps.empty()) return;
        QCOMPARE(h.binWidth, width);
        QCOMPARE(h.median, median);
        std::uint64_t total = 0;
        for (auto c : h.counts) total += c;
        QCOMPARE(total, std::uint64_t(steps.size()));
    }

    void batchRequestsGetRoadmapAgents() {
        MapDocument document;
        document.setMap(GridMap(40, 40), QStringLiteral("open"));
        FlowFieldPlayer player;
        RoadmapLayer roadmap;
        CrowdPanel panel(&player, &roadmap, &document);
        RunRequest request;
        request.variant_id = "batch.cpu";
        request.problem.map = document.snapshot();
        VariantInfo batch;
        batch.family = Family::Batch;
        VariantInfo flow;
        flow.family = Family::FlowField;
        QVERIFY(panel.prepareRequest(request, flow).isEmpty());  // other families pass untouched
        QVERIFY(panel.prepareRequest(request, batch).contains(QStringLiteral("roadmap")));
        QSignalSpy loaded(&panel, &CrowdPanel::roadmapLoaded);
        panel.generateRoadmap();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        panel.setBatchAgents(64);
        QCOMPARE(panel.prepareRequest(request, batch), QString());
        QCOMPARE(request.problem.agents.size(), 64u);
        QCOMPARE(request.problem.roadmap.get(), &roadmap.roadmap()->graph);
        // The request runs: one cost and one expansion count per agent, then the histogram.
        request.problem.goal = 0;
        request.problem.start = 1;
        const RunReport report = run_variant(request);
        QVERIFY2(report.result.status == RunStatus::Ok, report.result.message.c_str());
        QCOMPARE(report.result.agent_steps.size(), 64u);
        panel.showResult(report.result, QStringLiteral("batch.cpu"));
        QVERIFY(panel.stepsPlot()->summary().startsWith(QStringLiteral("batch.cpu: 64 agents")));
        std::uint64_t total = 0;
        for (auto c : panel.stepsPlot()->histogram().counts) total += c;
        QCOMPARE(total, 64u);
    }

    void mainWindowHandsFlowFieldRunsToThePlayer() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath(QStringLiteral("history.sqlite")));
        window.setPromptsEnabled(false);
        QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("crowdDock")));
        auto* player = window.findChild<FlowFieldPlayer*>(QStringLiteral("flowFieldPlayer"));
        QVERIFY(player);
        bool mapMenu = false;
        for (QAction* a : window.menuBar()->actions()) mapMenu |= a->text() == QStringLiteral("&Map");
        QVERIFY(mapMenu);
        const auto map = mapFromRows(kRows);
        emit window.runPanel()->outcomeSelected(runOn(map, "flowfield.cpu", Connectivity::Four));
        QVERIFY(player->hasField());
        emit window.runPanel()->outcomeSelected(runOn(map, "bfs.cpu.queue", Connectivity::Four));
        QVERIFY(!player->hasField());
    }
};

QTEST_MAIN(TestCrowd)
#include "test_crowd.moc"
