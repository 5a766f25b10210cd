// HistoryModel over a history of real runs: the model contract (QAbstractItemModelTester),
// columns and sort values, filters through db::RunFilter, asynchronous loading where a newer
// refresh wins, and files that are missing or not PathScope histories. Also loading stored runs
// (map, request, result with its recordings) for replay and re-run.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/support/history_fixture.hpp"
#include "ui/history/history_model.hpp"
#include "ui/history/stored_run.hpp"

using namespace ps;
using ps::ui::HistoryModel;

class TestHistoryModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void loadsRunsWithTheirNumbers();
    void filters_data();
    void filters();
    void dateRange();
    void newerRefreshWins();
    void missingFileIsNotAnError();
    void foreignFileIsAnError();
    void storedRunRebuildsRequestAndRecordings();

private:
    // A model on the fixture, checked by the tester for its whole life, loaded.
    void load(HistoryModel& model, const db::RunFilter& filter = {});
    QString cell(const HistoryModel& model, int row, int column, int role = Qt::DisplayRole) const {
        return model.data(model.index(row, column), role).toString();
    }
    int rowOfVariant(const HistoryModel& model, const QString& variant) const {
        for (int r = 0; r < model.rowCount(); ++r)
            if (cell(model, r, HistoryModel::Variant) == variant) return r;
        return -1;
    }

    QTemporaryDir m_dir;
    QString m_path;
};

void TestHistoryModel::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath("history.sqlite");
    const QString error = test::fillHistory(m_path);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestHistoryModel::load(HistoryModel& model, const db::RunFilter& filter) {
    model.setFilter(filter);
    model.setHistoryPath(m_path);
    QVERIFY(model.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 20000);
    QVERIFY2(model.errorText().isEmpty(), qPrintable(model.errorText()));
}

void TestHistoryModel::loadsRunsWithTheirNumbers() {
    HistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loading(&model, &HistoryModel::loadingChanged);
    model.setHistoryPath(m_path);
    QVERIFY(model.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 20000);
    QCOMPARE(loading.count(), 2);  // on, then off
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(HistoryModel::ColumnCount));
    QVERIFY(model.historyExists());

    const int bfs = rowOfVariant(model, "bfs.cpu.queue");
    QVERIFY(bfs >= 0);
    QCOMPARE(cell(model, bfs, HistoryModel::Status), QString("ok"));
    QCOMPARE(cell(model, bfs, HistoryModel::Map), QString("noise-48"));
    QCOMPARE(cell(model, bfs, HistoryModel::Size), QString("48×48"));
    QCOMPARE(cell(model, bfs, HistoryModel::Reps), QString("3"));
    QCOMPARE(cell(model, bfs, HistoryModel::Validation), QString("reference"));
    QVERIFY(!cell(model, bfs, HistoryModel::TotalMedian).isEmpty());
    QVERIFY(!cell(model, bfs, HistoryModel::Cost).isEmpty());

    // Sort values are numbers, so 9 sorts before 10 and 48x48 before 33x33 by cell count.
    const QVariant size = model.data(model.index(bfs, HistoryModel::Size), HistoryModel::SortRole);
    QCOMPARE(size.toLongLong(), 48LL * 48);
    const QVariant total = model.data(model.index(bfs, HistoryModel::TotalMedian), HistoryModel::SortRole);
    QCOMPARE(total.typeId(), QMetaType::Double);
    QCOMPARE(model.data(model.index(bfs, 0), HistoryModel::RunIdRole).toLongLong(), qint64(model.run(bfs).id));
    QCOMPARE(model.rowOfRun(model.run(bfs).id), bfs);
    QCOMPARE(model.rowOfRun(-5), -1);
    // Newest first, as db::History lists them.
    QVERIFY(model.run(0).id > model.run(2).id);
}

void TestHistoryModel::filters_data() {
    QTest::addColumn<QString>("map");
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("rows");
    QTest::newRow("none") << ""
                          << ""
                          << "" << 3;
    QTest::newRow("map") << "NOISE"
                         << ""
                         << "" << 2;
    QTest::newRow("variant") << ""
                             << "astar"
                             << "" << 2;
    QTest::newRow("map and variant") << "maze"
                                     << "astar"
                                     << "" << 1;
    QTest::newRow("device kind") << ""
                                 << ""
                                 << "cpu" << 3;
    QTest::newRow("no gpu runs") << ""
                                 << ""
                                 << "gpu" << 0;
    QTest::newRow("nothing") << "arena"
                             << ""
                             << "" << 0;
}

void TestHistoryModel::filters() {
    QFETCH(QString, map);
    QFETCH(QString, variant);
    QFETCH(QString, device);
    QFETCH(int, rows);
    HistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    db::RunFilter filter;
    filter.map = map.toStdString();
    filter.variant = variant.toStdString();
    filter.device = device.toStdString();
    load(model, filter);
    QCOMPARE(model.rowCount(), rows);
}

void TestHistoryModel::dateRange() {
    HistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    load(model);
    const qint64 newest = model.run(0).created_unix_ms;
    db::RunFilter filter;
    filter.from_unix_ms = newest + 1;
    load(model, filter);
    QCOMPARE(model.rowCount(), 0);
    filter.from_unix_ms = newest - 3600 * 1000;
    filter.to_unix_ms = newest;
    load(model, filter);
    QCOMPARE(model.rowCount(), 3);
}

void TestHistoryModel::newerRefreshWins() {
    HistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHistoryPath(m_path);
    QSignalSpy loaded(&model, &HistoryModel::loaded);
    db::RunFilter bfs;
    bfs.variant = "bfs";
    model.setFilter(bfs);
    db::RunFilter astar;
    astar.variant = "astar";
    model.setFilter(astar);  // overtakes both loads before either answer is in
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 20000);
    QTest::qWait(200);  // give stale answers time to (not) arrive
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(model.rowCount(), 2);
    for (int r = 0; r < model.rowCount(); ++r) QVERIFY(cell(model, r, HistoryModel::Variant).startsWith("astar"));
}

void TestHistoryModel::missingFileIsNotAnError() {
    HistoryModel model;
    const QString path = m_dir.filePath("never-written.sqlite");
    model.setHistoryPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 20000);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.errorText().isEmpty());
    QVERIFY(!model.historyExists());
    QVERIFY(!QFile::exists(path));  // looking never creates it
}

void TestHistoryModel::foreignFileIsAnError() {
    const QString path = m_dir.filePath("notes.sqlite");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("these are my notes, not a database\n");
    file.close();
    HistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHistoryPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 20000);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY2(model.errorText().contains("not a PathScope history"), qPrintable(model.errorText()));
}

void TestHistoryModel::storedRunRebuildsRequestAndRecordings() {
    HistoryModel model;
    load(model);
    const db::RunRow bfsRow = model.run(rowOfVariant(model, "bfs.cpu.queue"));
    const ui::StoredRun bfs = ui::loadStoredRun(m_path, bfsRow, true);
    QVERIFY2(bfs.error.isEmpty(), qPrintable(bfs.error));
    QCOMPARE(bfs.map->width(), 48);
    QCOMPARE(bfs.result->bfs_levels.size(), bfs.map->cell_count());
    QCOMPARE(bfs.result->levels, bfsRow.summary.levels);
    // A recorded run keeps its path: from the start down the levels to the goal, one step a level.
    QVERIFY(!bfs.result->path.empty());
    QCOMPARE(double(bfs.result->path.size() - 1), bfsRow.summary.cost);
    QCOMPARE(bfs.result->path.front(), bfs.map->index(*bfs.map->start));
    QCOMPARE(bfs.result->path.back(), bfs.map->index(*bfs.map->goal));
    QCOMPARE(bfs.request.variant_id, std::string("bfs.cpu.queue"));
    QCOMPARE(int(bfs.request.problem.rules.connectivity), 4);
    QCOMPARE(bfs.request.problem.heuristic, Heuristic::Octile);
    QCOMPARE(bfs.request.repeat, 3);
    QCOMPARE(bfs.request.warmup, 1);
    QCOMPARE(bfs.request.problem.goal, bfs.map->index(*bfs.map->goal));

    const db::RunRow bidirRow = model.run(rowOfVariant(model, "astar.cpu.bidir"));
    const ui::StoredRun bidir = ui::loadStoredRun(m_path, bidirRow, true);
    QVERIFY2(bidir.error.isEmpty(), qPrintable(bidir.error));
    QVERIFY(bidir.result->recording);
    QVERIFY(!bidir.result->recording->events.empty());
    QCOMPARE(bidir.result->found, bidirRow.summary.found);
    QCOMPARE(int(bidir.request.problem.rules.connectivity), 8);
    // Re-running the rebuilt request gives the stored answer.
    const RunReport again = run_variant(bidir.request);
    QCOMPARE(again.result.status, RunStatus::Ok);
    QCOMPARE(again.result.cost, bidirRow.summary.cost);

    // The GUI re-runs a stored run to watch it: the request records even where the run did not.
    db::RunRow unrecorded = bfsRow;
    unrecorded.info.params_json = R"({"connectivity":4,"record":false})";
    const ui::StoredRun watched = ui::loadStoredRun(m_path, unrecorded, false);
    QVERIFY2(watched.error.isEmpty(), qPrintable(watched.error));
    QVERIFY(watched.request.context.record);

    // Damaged parameters are reported, not loaded (the decoding itself is tested in
    // tests/database/test_stored_run.cpp).
    db::RunRow broken = bfsRow;
    broken.info.params_json = "{not json";
    const ui::StoredRun refused = ui::loadStoredRun(m_path, broken, false);
    QVERIFY2(refused.error.contains("stored parameters are not a JSON object"), qPrintable(refused.error));
    QVERIFY(!refused.map);
}

QTEST_MAIN(TestHistoryModel)
#include "test_history_model.moc"
