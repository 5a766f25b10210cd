// RunPanel with a real document and worker: a run of two ticked variants lands in the results
// table with the movement rules each family gets, problems go to the status line (no dialog),
// GPU variants without a GPU cannot be ticked, and parameter descriptions that list their values
// become choices.
#include <QComboBox>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

#include "kernels/gpu/gpu_info.hpp"
#include "ui/run/run_panel.hpp"

using namespace ps;
using namespace ps::ui;

class TestRunPanel : public QObject {
    Q_OBJECT
private slots:
    void runsTheTickedVariants() {
        MapDocument document;
        document.setMap(GridMap(32, 24), QStringLiteral("open"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        QSignalSpy selected(&panel, &RunPanel::outcomeSelected);
        panel.selectVariants({QStringLiteral("bfs.cpu.queue"), QStringLiteral("astar.cpu")});
        QCOMPARE(panel.selectedVariants(), QStringList({QStringLiteral("bfs.cpu.queue"), QStringLiteral("astar.cpu")}));
        panel.runSelected();
        QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), 2, 60000);
        QCOMPARE(selected.count(), 2);  // each arrival is announced once
        const auto bfs = panel.results()->outcome(0);
        const auto astar = panel.results()->outcome(1);
        QCOMPARE(bfs->request.problem.rules.connectivity, Connectivity::Four);
        QCOMPARE(astar->request.problem.rules.connectivity, Connectivity::Eight);
        // No endpoints on the map: the corners.
        QCOMPARE(astar->request.problem.start, Vertex(0));
        QCOMPARE(astar->request.problem.goal, Vertex(32 * 24 - 1));
        QCOMPARE(astar->request.repeat, 3);
        QCOMPARE(astar->request.warmup, 1);
        QVERIFY(astar->report.result.recording);
        QCOMPARE(astar->report.result.validation, Validation::Passed);
        QCOMPARE(selected.last().at(0).value<RunOutcomePtr>(), astar);
    }

    // Two diagonal walls between the corners: only the third choice, the any rule, finds the
    // diagonal (cost 2 sqrt2); the first two find no path.
    void cornerChoiceReachesTheRequest() {
        MapDocument document;
        const char* rows[] = {".#.", "#.#", ".#."};
        GridMap map(3, 3);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 3; ++x) map.set_passable(x, y, rows[y][x] == '.');
        document.setMap(map, QStringLiteral("squeeze"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        auto* corners = panel.findChild<QComboBox*>(QStringLiteral("corners"));
        QVERIFY(corners);
        QCOMPARE(corners->count(), 3);
        QCOMPARE(CornerRule(corners->currentData().toInt()), CornerRule::None);  // MovingAI by default
        panel.selectVariants({QStringLiteral("astar.cpu")});
        const CornerRule expected[] = {CornerRule::None, CornerRule::One, CornerRule::Any};
        for (int i = 0; i < 3; ++i) {
            corners->setCurrentIndex(i);
            panel.runSelected();
            QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), i + 1, 60000);
            const auto outcome = panel.results()->outcome(i);
            QCOMPARE(outcome->request.problem.rules.corners, expected[i]);
            QCOMPARE(outcome->report.result.found, expected[i] == CornerRule::Any);
        }
        QCOMPARE(panel.results()->outcome(2)->report.result.cost, 2 * kSqrt2);
    }

    void problemsGoToTheStatusLine() {
        MapDocument document;
        document.setMap(GridMap(8, 8, false), QStringLiteral("walls"));
        RunWorker worker;
        RunPanel panel(&document, &worker);
        QSignalSpy status(&panel, &RunPanel::statusMessage);
        panel.selectVariants({});
        panel.runSelected();
        QCOMPARE(status.count(), 1);
        QVERIFY(status.last().at(0).toString().contains(QStringLiteral("Tick")));
        panel.selectVariants({QStringLiteral("astar.cpu")});
        panel.runSelected();
        QVERIFY(status.last().at(0).toString().contains(QStringLiteral("no passable cell")));
        QVERIFY(!worker.busy());
        QCOMPARE(panel.results()->rowCount(), 0);
    }

    void gpuVariantsNeedAGpu() {
        if (gpu_info().available) QSKIP("this machine has a GPU");
        MapDocument document;
        RunWorker worker;
        RunPanel panel(&document, &worker);
        panel.selectVariants({QStringLiteral("bfs.gpu.basic"), QStringLiteral("bfs.cpu")});
        QCOMPARE(panel.selectedVariants(), QStringList{QStringLiteral("bfs.cpu")});
        auto* tree = panel.findChild<QTreeWidget*>();
        QVERIFY(tree);
        const auto items = tree->findItems(QStringLiteral("bfs.gpu.basic"), Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(items.size(), 1);
        QVERIFY(items.front()->isDisabled());
        QVERIFY(items.front()->toolTip(0).contains(QString::fromStdString(gpu_info().reason)));
    }

    void parameterChoices_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QStringList>("choices");
        QTest::newRow("choice") << int(ParamSpec::Kind::Choice) << QStringList{"128", "256", "512", "1024"};
        QTest::newRow("flag") << int(ParamSpec::Kind::Flag) << QStringList{"0", "1"};
        QTest::newRow("integer") << int(ParamSpec::Kind::Int) << QStringList{};
    }

    void parameterChoices() {
        QFETCH(int, kind);
        QFETCH(QStringList, choices);
        const auto k = ParamSpec::Kind(kind);
        const ParamSpec spec = k == ParamSpec::Kind::Choice
                                   ? choice_param("p", "256", "d", {"128", "256", "512", "1024"})
                               : k == ParamSpec::Kind::Flag ? flag_param("p", "1", "d")
                                                            : int_param("p", "4", "d", 0, 10);
        QCOMPARE(ps::ui::parameterChoices(spec), choices);
    }

    void registeredParametersGetChoices() {
        // Every choice and flag of the registry (GPU variants included, which are registered
        // without a GPU too) is offered as a list holding its default; integers get a line edit.
        int listed = 0;
        for (const auto& variant : Registry::instance().all())
            for (const ParamSpec& spec : variant->info().params) {
                const QStringList choices = ps::ui::parameterChoices(spec);
                if (spec.kind == ParamSpec::Kind::Int) {
                    QVERIFY2(choices.isEmpty(), spec.name.c_str());
                    continue;
                }
                QVERIFY2(choices.contains(QString::fromStdString(spec.default_value)), spec.name.c_str());
                ++listed;
            }
        QVERIFY(listed > 0);
    }
};

QTEST_MAIN(TestRunPanel)
#include "test_run_panel.moc"
