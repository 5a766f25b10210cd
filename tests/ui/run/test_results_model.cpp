// ResultsModel: the model contract (QAbstractItemModelTester), display text, tooltips with the
// messages a user needs, the validation badge, and numeric sorting through SortRole.
#include <QAbstractItemModelTester>
#include <QColor>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QtTest>

#include "kernels/map/grid_map.hpp"
#include "kernels/run/runner.hpp"
#include "ui/run/results_model.hpp"

using namespace ps;
using ps::ui::ResultsModel;
using ps::ui::RunOutcome;
using ps::ui::RunOutcomePtr;

namespace {

// A hand-made outcome: only the fields the model reads.
RunOutcomePtr outcome(const std::string& id, Family family, RunStatus status, Validation validation, double cost,
                      std::uint64_t expanded, double totalMedian) {
    auto o = std::make_shared<RunOutcome>();
    o->request.variant_id = id;
    o->report.info.id = id;
    o->report.info.family = family;
    o->report.info.description = "test variant " + id;
    o->report.result.status = status;
    o->report.result.validation = validation;
    o->report.result.found = status == RunStatus::Ok;
    o->report.result.cost = cost;
    o->report.result.expanded = expanded;
    o->report.result.levels = family == Family::Bfs ? 12 : 0;
    o->report.stats.total = {3, totalMedian, totalMedian - 1, totalMedian + 1, totalMedian, 0.5};
    o->report.stats.compute = {3, totalMedian / 2, totalMedian / 2, totalMedian / 2, totalMedian / 2, 0};
    o->report.samples.resize(3);
    return o;
}

}  // namespace

class TestResultsModel : public QObject {
    Q_OBJECT
private slots:
    void modelContract() {
        ResultsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.add(outcome("astar.cpu", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 12.5, 100, 2));
        model.add(outcome("bfs.cpu.queue", Family::Bfs, RunStatus::Ok, Validation::Reference, 7, 300, 5));
        model.add(nullptr);  // ignored
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(ResultsModel::ColumnCount));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        model.add(outcome("dijkstra.cpu", Family::ShortestPath, RunStatus::Ok, Validation::Reference, 1, 1, 1));
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(!model.outcome(5));
        QVERIFY(model.outcome(0));
    }

    void displayText() {
        ResultsModel model;
        model.add(outcome("astar.cpu", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 12.5, 123456, 2));
        model.add(outcome("bfs.cpu", Family::Bfs, RunStatus::Ok, Validation::Failed, 7, 300, 5));
        auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(text(0, ResultsModel::Variant), QStringLiteral("astar.cpu"));
        QCOMPARE(text(0, ResultsModel::Device), QStringLiteral("CPU"));
        QCOMPARE(text(0, ResultsModel::Cost), QLocale().toString(12.5, 'f', 3));
        QCOMPARE(text(1, ResultsModel::Cost), QStringLiteral("7"));  // BFS counts steps
        QCOMPARE(text(0, ResultsModel::Expanded), QLocale().toString(qulonglong(123456)));
        QCOMPARE(text(0, ResultsModel::Levels), QString());  // not a BFS
        QCOMPARE(text(1, ResultsModel::Levels), QStringLiteral("12"));
        QCOMPARE(text(0, ResultsModel::Mteps), QString());  // no rate counted
        auto bfs = std::make_shared<RunOutcome>(*model.outcome(1));
        bfs->report.result.counters["mteps"] = 251.34;
        model.add(bfs);
        QCOMPARE(text(2, ResultsModel::Mteps), QLocale().toString(251.34, 'g', 4));
        QCOMPARE(model.headerData(ResultsModel::Mteps, Qt::Horizontal).toString(), QStringLiteral("MTEPS"));
        QCOMPARE(text(0, ResultsModel::Validation), QStringLiteral("passed"));
        QCOMPARE(text(1, ResultsModel::Validation), QStringLiteral("FAILED"));
        QVERIFY(text(0, ResultsModel::Total).contains(QStringLiteral("ms")));
        QCOMPARE(text(0, ResultsModel::Stored), QString());
        QCOMPARE(model.headerData(ResultsModel::Cost, Qt::Horizontal).toString(), QStringLiteral("Path cost"));
        QCOMPARE(model.headerData(ResultsModel::Total, Qt::Horizontal).toString(), QStringLiteral("End-to-end"));
        QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
    }

    void tooltipsAndBadges() {
        ResultsModel model;
        auto failed = std::const_pointer_cast<RunOutcome>(
            outcome("bfs.cpu", Family::Bfs, RunStatus::Ok, Validation::Failed, 7, 300, 5));
        failed->report.result.validation_message = "3 of 3 repetitions failed; first: level of (4,5) differs";
        failed->storeError = "database is locked";
        auto broken = std::const_pointer_cast<RunOutcome>(
            outcome("astar.cpu", Family::ShortestPath, RunStatus::Error, Validation::NotRun, 0, 0, 0));
        broken->report.result.message = "the start (3,4) is a blocked cell";
        auto stored = std::const_pointer_cast<RunOutcome>(
            outcome("astar.cpu", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 3, 5, 1));
        stored->storedRunId = 42;
        model.add(failed);
        model.add(broken);
        model.add(stored);

        const QString tipFailed = model.index(0, ResultsModel::Variant).data(Qt::ToolTipRole).toString();
        QVERIFY2(tipFailed.contains(QStringLiteral("level of (4,5) differs")), qPrintable(tipFailed));
        QVERIFY(tipFailed.contains(QStringLiteral("database is locked")));
        const QString tipBroken = model.index(1, ResultsModel::Cost).data(Qt::ToolTipRole).toString();
        QVERIFY2(tipBroken.contains(QStringLiteral("blocked cell")), qPrintable(tipBroken));

        QCOMPARE(model.index(1, ResultsModel::Validation).data().toString(), QStringLiteral("error"));
        QCOMPARE(model.index(1, ResultsModel::Expanded).data().toString(), QString());
        QCOMPARE(model.index(0, ResultsModel::Stored).data().toString(), QStringLiteral("failed"));
        QCOMPARE(model.index(2, ResultsModel::Stored).data().toString(), QStringLiteral("#42"));

        const QVariant badgeFailed = model.index(0, ResultsModel::Validation).data(Qt::DecorationRole);
        const QVariant badgePassed = model.index(2, ResultsModel::Validation).data(Qt::DecorationRole);
        QCOMPARE(badgeFailed.metaType().id(), QMetaType::QColor);
        QCOMPARE(badgePassed.metaType().id(), QMetaType::QColor);
        QVERIFY(badgeFailed.value<QColor>() != badgePassed.value<QColor>());
        QVERIFY(!model.index(0, ResultsModel::Variant).data(Qt::DecorationRole).isValid());
    }

    void sortsByRawNumbers() {
        ResultsModel model;
        // Text order would put "10,000" before "9"; numbers must not.
        model.add(outcome("a", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 9, 9, 9));
        model.add(outcome("b", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 10000, 10000, 10000));
        model.add(outcome("c", Family::ShortestPath, RunStatus::Error, Validation::NotRun, 0, 0, 0));
        model.add(outcome("d", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 80, 80, 0.5));
        QCOMPARE(model.index(1, ResultsModel::Expanded).data(ResultsModel::SortRole).toULongLong(), 10000ull);
        QCOMPARE(model.index(3, ResultsModel::Total).data(ResultsModel::SortRole).toDouble(), 0.5);

        QSortFilterProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(ResultsModel::SortRole);
        auto order = [&] {
            QString ids;
            for (int r = 0; r < proxy.rowCount(); ++r) ids += proxy.index(r, ResultsModel::Variant).data().toString();
            return ids;
        };
        proxy.sort(ResultsModel::Cost);
        QCOMPARE(order(), QStringLiteral("adbc"));  // no cost sorts last
        proxy.sort(ResultsModel::Total, Qt::DescendingOrder);
        QCOMPARE(order(), QStringLiteral("badc"));
        model.add(outcome("e", Family::ShortestPath, RunStatus::Ok, Validation::Passed, 1, 1, 50));
        QCOMPARE(order(), QStringLiteral("beadc"));
    }

    void realOutcome() {
        // What the worker hands over: a report straight from the runner.
        auto map = std::make_shared<const GridMap>(16, 16);
        RunRequest request;
        request.variant_id = "astar.cpu";
        request.problem.map = map;
        request.problem.start = map->index(0, 0);
        request.problem.goal = map->index(15, 15);
        auto o = std::make_shared<RunOutcome>();
        o->request = request;
        o->report = run_variant(request);
        QCOMPARE(o->report.result.status, RunStatus::Ok);
        ResultsModel model;
        model.add(o);
        QCOMPARE(model.index(0, ResultsModel::Validation).data().toString(), QStringLiteral("passed"));
        QCOMPARE(model.index(0, ResultsModel::Cost).data(ResultsModel::SortRole).toDouble(), 15 * kSqrt2);
    }
};

QTEST_MAIN(TestResultsModel)
#include "test_results_model.moc"
