// RunWorker through its signals (QSignalSpy): a two-variant job, progress, latest-request-wins
// cancellation of a long job, storing into a history file, and a destructor that does not wait
// for a long job to finish.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "database/history.hpp"
#include "kernels/map/generators.hpp"
#include "ui/run/run_worker.hpp"

using namespace ps;
using ps::ui::RunJob;
using ps::ui::RunOutcomePtr;
using ps::ui::RunWorker;

namespace {

std::shared_ptr<const GridMap> generated(GeneratorKind kind, int side) {
    GeneratorParams params;
    params.kind = kind;
    params.width = params.height = side;
    params.density = 0.2;
    params.seed = 7;
    auto map = generate_map(params);
    return std::make_shared<const GridMap>(std::move(map).value());
}

RunRequest request(const std::shared_ptr<const GridMap>& map, const std::string& variant, int repeat = 2) {
    const Family family = Registry::instance().find(variant)->info().family;
    RunRequest r;
    r.variant_id = variant;
    r.problem.map = map;
    r.problem.rules.connectivity = family == Family::Bfs ? Connectivity::Four : Connectivity::Eight;
    const MoveRules rules = r.problem.rules;
    r.problem.start = map->index(*nearest_in_largest_region(*map, rules, {0, 0}));
    r.problem.goal = map->index(*nearest_in_largest_region(*map, rules, {map->width() - 1, map->height() - 1}));
    r.repeat = repeat;
    r.warmup = 1;
    r.context.record = true;
    return r;
}

RunJob smallJob(const QString& historyPath = {}) {
    const auto map = generated(GeneratorKind::Random, 48);
    RunJob job;
    job.requests = {request(map, "bfs.cpu.queue"), request(map, "astar.cpu")};
    job.historyPath = historyPath;
    job.generator = QStringLiteral("--gen random --size 48");
    job.seed = 7;
    return job;
}

// bfs.cpu sweeps every vertex once per level: ~2000 levels of 1M vertices per repetition.
RunJob longJob() {
    const auto map = generated(GeneratorKind::Empty, 1024);
    RunJob job;
    job.requests = {request(map, "bfs.cpu", 1000)};
    return job;
}

RunOutcomePtr outcomeAt(const QSignalSpy& spy, int i) { return spy.at(i).at(1).value<RunOutcomePtr>(); }

}  // namespace

class TestRunWorker : public QObject {
    Q_OBJECT
private slots:
    void runsAJobOfTwoVariants() {
        RunWorker worker;
        QSignalSpy outcomes(&worker, &RunWorker::outcomeReady);
        QSignalSpy finished(&worker, &RunWorker::jobFinished);
        QSignalSpy progress(&worker, &RunWorker::progress);
        const quint64 job = worker.submit(smallJob());
        QCOMPARE(worker.currentJob(), job);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(finished.at(0).at(0).value<quint64>(), job);
        QCOMPARE(finished.at(0).at(1).toBool(), false);
        QCOMPARE(outcomes.count(), 2);
        const char* expected[] = {"bfs.cpu.queue", "astar.cpu"};
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(outcomes.at(i).at(0).value<quint64>(), job);
            const RunOutcomePtr o = outcomeAt(outcomes, i);
            QVERIFY(o);
            QCOMPARE(o->request.variant_id, std::string(expected[i]));
            QCOMPARE(o->report.result.status, RunStatus::Ok);
            QVERIFY2(o->report.result.validation == Validation::Passed ||
                         o->report.result.validation == Validation::Reference,
                     o->report.result.validation_message.c_str());
            QCOMPARE(o->report.samples.size(), std::size_t(2));
            QVERIFY(!o->storedRunId);
            QVERIFY(o->storeError.isEmpty());
            QVERIFY(o->request.context.cancel == nullptr);  // no pointer to the job's dead flag
        }
        QVERIFY(!outcomeAt(outcomes, 0)->report.result.bfs_levels.empty());
        QVERIFY(outcomeAt(outcomes, 1)->report.result.recording);  // record=true reaches the variant
        QVERIFY(progress.count() >= 2);
        double previous = -1;
        for (const auto& args : progress) {
            const double fraction = args.at(1).toDouble();
            QVERIFY(fraction >= previous - 1e-12 && fraction <= 1.0 + 1e-12);
            previous = fraction;
        }
        QCOMPARE(previous, 1.0);
        QVERIFY(progress.last().at(2).toString().contains(QStringLiteral("astar.cpu")));
        QTRY_VERIFY(!worker.busy());
    }

    void latestRequestWins() {
        RunWorker worker;
        QSignalSpy outcomes(&worker, &RunWorker::outcomeReady);
        QSignalSpy finished(&worker, &RunWorker::jobFinished);
        QSignalSpy progress(&worker, &RunWorker::progress);
        QElapsedTimer clock;
        clock.start();
        const quint64 first = worker.submit(longJob());
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 20000);  // it is running
        QTest::qWait(300);                                      // past the reference, inside bfs.cpu's first sweep
        QVERIFY(worker.busy());
        const quint64 second = worker.submit(smallJob());
        QVERIFY(second > first);
        QCOMPARE(worker.currentJob(), second);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
        QCOMPARE(finished.at(0).at(0).value<quint64>(), first);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        QCOMPARE(finished.at(1).at(0).value<quint64>(), second);
        QCOMPARE(finished.at(1).at(1).toBool(), false);
        QCOMPARE(outcomes.count(), 2);  // none of the cancelled job
        for (const auto& args : outcomes) QCOMPARE(args.at(0).value<quint64>(), second);
        // 1000 repetitions take minutes; cancelling must not wait for them.
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
    }

    void cancelStopsTheRunningJob() {
        RunWorker worker;
        QSignalSpy finished(&worker, &RunWorker::jobFinished);
        QSignalSpy progress(&worker, &RunWorker::progress);
        const quint64 job = worker.submit(longJob());
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 20000);
        QTest::qWait(300);
        worker.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(finished.at(0).at(0).value<quint64>(), job);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        QVERIFY(!worker.busy());
    }

    void storesIntoTheHistory() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("history.sqlite"));
        RunWorker worker;
        QSignalSpy outcomes(&worker, &RunWorker::outcomeReady);
        QSignalSpy finished(&worker, &RunWorker::jobFinished);
        worker.submit(smallJob(path));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(outcomes.count(), 2);

        auto history = db::History::open(path.toStdString(), db::OpenMode::ReadOnly);
        QVERIFY2(history, history ? "" : history.error().message.c_str());
        auto runs = history->list_runs();
        QVERIFY(runs);
        QCOMPARE(runs->size(), std::size_t(2));
        for (int i = 0; i < 2; ++i) {
            const RunOutcomePtr o = outcomeAt(outcomes, i);
            QVERIFY2(o->storeError.isEmpty(), qPrintable(o->storeError));
            QVERIFY(o->storedRunId);
            auto details = history->load_run(*o->storedRunId, false);
            QVERIFY(details);
            QCOMPARE(details->row.info.variant, o->request.variant_id);
            QCOMPARE(details->row.summary.status, std::string("ok"));
            QCOMPARE(details->row.repetitions, 2);
        }
        auto maps = history->list_maps();
        QVERIFY(maps);
        QCOMPARE(maps->size(), std::size_t(1));  // one snapshot, stored once
        QCOMPARE(maps->front().generator, std::string("--gen random --size 48"));
        QCOMPARE(maps->front().seed, std::optional<std::uint64_t>(7));
    }

    void reportsAHistoryItCannotOpen() {
        QTemporaryDir dir;
        const QString notAHistory = dir.filePath(QStringLiteral("text.sqlite"));
        QFile file(notAHistory);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a database, and long enough to be read as a header by SQLite......");
        file.close();
        RunWorker worker;
        QSignalSpy outcomes(&worker, &RunWorker::outcomeReady);
        QSignalSpy finished(&worker, &RunWorker::jobFinished);
        worker.submit(smallJob(notAHistory));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(outcomes.count(), 2);
        const RunOutcomePtr o = outcomeAt(outcomes, 0);
        QCOMPARE(o->report.result.status, RunStatus::Ok);  // the run itself is unaffected
        QVERIFY(!o->storedRunId);
        QVERIFY(!o->storeError.isEmpty());
    }

    void destructorCancelsARunningJob() {
        QElapsedTimer clock;
        clock.start();
        {
            RunWorker worker;
            QSignalSpy progress(&worker, &RunWorker::progress);
            worker.submit(longJob());
            QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 20000);
        }
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
    }
};

QTEST_MAIN(TestRunWorker)
#include "test_run_worker.moc"
