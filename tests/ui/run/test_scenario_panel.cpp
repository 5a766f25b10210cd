// The Scenarios dock on a hand-worked map: a .scen file's queries listed with their optimal
// lengths, lines for another map size or with a start in a wall left out with their line
// numbers, picking a query hands its start and goal over, and a run with two variants finds
// every right length and flags the wrong one in red; every k-th query; queries whose file gives
// no length checked against astar.cpu; a GPU variant's line says where its compute went; a missing
// file says so.
// Set PATHSCOPE_TEST_OUT to a folder to keep a picture of the panel.
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/run/scenario_panel.hpp"

using namespace ps;
using namespace ps::ui;

namespace {
constexpr int kTimeoutMs = 30000;

// 20 x 10, a wall at x = 10 from the top down to y = 7: (0,0) -> (5,0) is 5 straight steps,
// (0,0) -> (5,5) five diagonals (7.0711), (0,0) -> (3,0) 3 (the file claims 4: wrong).
std::shared_ptr<const GridMap> handWorkedMap() {
    GridMap map(20, 10);
    for (int y = 0; y < 8; ++y) map.set_passable(10, y, false);
    return std::make_shared<const GridMap>(std::move(map));
}

const char* kScen =
    "version 1\n"
    "0\thand.map\t20\t10\t0\t0\t5\t0\t5.00000000\n"
    "0\thand.map\t20\t10\t0\t0\t5\t5\t7.07106781\n"
    "1\thand.map\t20\t10\t0\t0\t3\t0\t4.00000000\n"
    "1\thand.map\t30\t10\t0\t0\t3\t0\t3.00000000\n"
    "1\thand.map\t20\t10\t10\t0\t3\t0\t7.00000000\n";
}  // namespace

class TestScenarioPanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writeScen() {
        const QString path = m_dir.filePath(QStringLiteral("hand.map.scen"));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly)) file.write(kScen);
        return path;
    }

private slots:
    void listsRunsAndFlagsAWrongLength() {
        ScenarioPanel panel;
        const auto map = handWorkedMap();
        panel.setMapSource([map] { return map; });
        panel.setVariantSource([] { return QStringList{QStringLiteral("astar.cpu"), QStringLiteral("jps.cpu")}; });
        QSignalSpy loaded(&panel, &ScenarioPanel::loaded);
        panel.openFile(writeScen());
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(loaded.first().at(0).toInt(), 3);
        QCOMPARE(loaded.first().at(1).toInt(), 2);
        QCOMPARE(panel.model()->rowCount(), 3);
        QCOMPARE(panel.model()->item(1, ScenarioPanel::Optimal)->text(), QStringLiteral("7.0711"));
        QVERIFY2(panel.message().contains(QStringLiteral("hand.map.scen:5: the query is for a 30x10 map")),
                 qPrintable(panel.message()));
        QVERIFY2(panel.message().contains(QStringLiteral("hand.map.scen:6: the start (10,0) is in a wall")),
                 qPrintable(panel.message()));

        // Picking a query hands its start and goal over.
        QSignalSpy picked(&panel, &ScenarioPanel::querySelected);
        panel.view()->selectRow(1);
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked.first().at(0).value<Cell>(), (Cell{0, 0}));
        QCOMPARE(picked.first().at(1).value<Cell>(), (Cell{5, 5}));

        QSignalSpy finished(&panel, &ScenarioPanel::runFinished);
        panel.run();
        QVERIFY(panel.running());
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(finished.first().at(0).toInt(), 6);  // 3 queries x 2 variants
        QCOMPARE(finished.first().at(1).toInt(), 2);  // the wrong length, for both
        for (int variant = 0; variant < 2; ++variant) {
            const int column = ScenarioPanel::FixedColumns + 3 * variant;
            QCOMPARE(panel.model()->item(0, column)->data(ScenarioPanel::FailedRole).toBool(), false);
            QCOMPARE(panel.model()->item(1, column)->text(), QStringLiteral("7.0711"));
            QCOMPARE(panel.model()->item(2, column)->data(ScenarioPanel::FailedRole).toBool(), true);
            QCOMPARE(panel.model()->item(2, column)->text(), QStringLiteral("3.0000"));
        }
        QVERIFY2(panel.message().contains(QStringLiteral("astar.cpu: 2 of 3 at the optimal length, 1 wrong")),
                 qPrintable(panel.message()));
        if (const QString out = qEnvironmentVariable("PATHSCOPE_TEST_OUT"); !out.isEmpty()) {  // for a look
            panel.resize(900, 320);
            panel.grab().save(out + QStringLiteral("/scenario-panel.png"));
        }
        // JPS expands fewer cells than A* on the open query (jump points only).
        QVERIFY(panel.model()->item(1, ScenarioPanel::FixedColumns + 4)->text().toInt() <
                panel.model()->item(1, ScenarioPanel::FixedColumns + 1)->text().toInt());

        // Every second query: the first and the third.
        finished.clear();
        panel.setEvery(2);
        panel.run();
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(finished.first().at(0).toInt(), 4);
        QVERIFY(!panel.model()->item(1, ScenarioPanel::FixedColumns));
    }

    // A file that gives 0 between two cells gives no length: the column says "none", and a run
    // checks the query against astar.cpu's cost (7.0711 and the way round the wall: no red).
    void queriesWithoutALengthAreCheckedAgainstAstarCpu() {
        ScenarioPanel panel;
        const auto map = handWorkedMap();
        panel.setMapSource([map] { return map; });
        panel.setVariantSource([] { return QStringList{QStringLiteral("astar.cpu"), QStringLiteral("jps.cpu")}; });
        const QString path = m_dir.filePath(QStringLiteral("nolength.map.scen"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            "version 1\n"
            "0\thand.map\t20\t10\t0\t0\t5\t5\t0\n"
            "0\thand.map\t20\t10\t0\t0\t15\t0\t0\n"
            "0\thand.map\t20\t10\t0\t0\t5\t0\t5.00000000\n");
        file.close();
        QSignalSpy loaded(&panel, &ScenarioPanel::loaded);
        panel.openFile(path);
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(panel.model()->rowCount(), 3);
        QCOMPARE(panel.model()->item(0, ScenarioPanel::Optimal)->text(), QStringLiteral("none"));
        QCOMPARE(panel.model()->item(2, ScenarioPanel::Optimal)->text(), QStringLiteral("5.0000"));
        QSignalSpy finished(&panel, &ScenarioPanel::runFinished);
        panel.run();
        QVERIFY(finished.wait(kTimeoutMs));
        QCOMPARE(finished.first().at(0).toInt(), 6);
        QCOMPARE(finished.first().at(1).toInt(), 0);
        for (int variant = 0; variant < 2; ++variant) {
            const int column = ScenarioPanel::FixedColumns + 3 * variant;
            QCOMPARE(panel.model()->item(0, column)->text(), QStringLiteral("7.0711"));
            for (int row = 0; row < 3; ++row)
                QCOMPARE(panel.model()->item(row, column)->data(ScenarioPanel::FailedRole).toBool(), false);
        }
    }

    // A GPU variant's line says where its compute went (iterations, time per iteration); the CPU
    // variant's has no such line. Skipped without a GPU (the variant is refused, with why).
    void gpuVariantsSayWhereTheirComputeGoes() {
        ScenarioPanel panel;
        const auto map = handWorkedMap();
        panel.setMapSource([map] { return map; });
        panel.setVariantSource([] {
            return QStringList{QStringLiteral("astar.cpu"), QStringLiteral("astar.gpu.block")};
        });
        QSignalSpy loaded(&panel, &ScenarioPanel::loaded);
        panel.openFile(writeScen());
        QVERIFY(loaded.wait(kTimeoutMs));
        QSignalSpy finished(&panel, &ScenarioPanel::runFinished);
        panel.run();
        QVERIFY(finished.wait(kTimeoutMs));
        const QStandardItem* gpu = panel.model()->item(0, ScenarioPanel::FixedColumns + 3);
        QVERIFY(gpu);
        if (gpu->text() == QStringLiteral("refused"))
            QSKIP(qPrintable(QStringLiteral("no GPU run: ") + gpu->toolTip()));
        const QString message = panel.message();
        QVERIFY2(message.contains(QStringLiteral("astar.gpu.block: 2 of 3 at the optimal length, 1 wrong")),
                 qPrintable(message));
        QCOMPARE(message.count(QStringLiteral("where its GPU compute goes: ")), 1);
        const int at = int(message.indexOf(QStringLiteral("where its GPU compute goes: ")));
        QVERIFY2(at > int(message.indexOf(QStringLiteral("astar.gpu.block: "))), qPrintable(message));
        QVERIFY2(message.indexOf(QStringLiteral(" iterations, "), at) > at, qPrintable(message));
        QVERIFY2(message.indexOf(QStringLiteral(" us each"), at) > at, qPrintable(message));
    }

    void aMissingFileSaysSo() {
        ScenarioPanel panel;
        const auto map = handWorkedMap();
        panel.setMapSource([map] { return map; });
        QSignalSpy loaded(&panel, &ScenarioPanel::loaded);
        panel.openFile(m_dir.filePath(QStringLiteral("none.scen")));
        QVERIFY(loaded.wait(kTimeoutMs));
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY2(panel.message().contains(QStringLiteral("cannot read")), qPrintable(panel.message()));
    }
};

QTEST_MAIN(TestScenarioPanel)
#include "test_scenario_panel.moc"
