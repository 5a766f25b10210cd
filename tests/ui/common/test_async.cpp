// runAsync: a worker body that throws must not take the window down. The exception becomes an
// error text handed to the failure handler on the GUI thread; the result handler is skipped.
// LatestJob: only the newest job's answer arrives, and an overtaken job's work sees it is stale.
#include <QSignalSpy>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ui/common/async.hpp"

using namespace ps::ui;

class TestAsync : public QObject {
    Q_OBJECT
private slots:
    void resultsReachTheDoneHandler();
    void anExceptionBecomesAnErrorText();
    void anUnknownExceptionIsNamed();
    void onlyTheLatestJobAnswers();
    void aDroppedJobNeverAnswers();
};

void TestAsync::resultsReachTheDoneHandler() {
    QObject context;
    int result = 0;
    QString failure;
    runAsync(
        &context, [] { return 42; }, [&](int v) { result = v; }, [&](const QString& e) { failure = e; });
    QTRY_COMPARE_WITH_TIMEOUT(result, 42, 10000);
    QVERIFY(failure.isEmpty());
}

void TestAsync::anExceptionBecomesAnErrorText() {
    QObject context;
    bool done = false;
    QString failure;
    runAsync(
        &context, []() -> int { return int(std::vector<char>(std::size_t(-1)).size()); },  // std::length_error
        [&](int) { done = true; }, [&](const QString& e) { failure = e; });
    QTRY_VERIFY_WITH_TIMEOUT(!failure.isEmpty(), 10000);
    QVERIFY(!done);
    QVERIFY2(failure.contains("vector"), qPrintable(failure));  // what() names the cause
}

void TestAsync::anUnknownExceptionIsNamed() {
    QObject context;
    QString failure;
    runAsync(
        &context, []() -> QString { throw 7; }, [](const QString&) {}, [&](const QString& e) { failure = e; });
    QTRY_VERIFY_WITH_TIMEOUT(!failure.isEmpty(), 10000);
    QVERIFY2(failure.contains("unexpected"), qPrintable(failure));
}

void TestAsync::onlyTheLatestJobAnswers() {
    QObject context;
    LatestJob job;
    std::vector<int> answers;
    std::atomic<bool> first_saw_stale{false};
    std::atomic<bool> second_started{false};
    job.start(
        &context,
        [&](const LatestJob::Stale& stale) {
            while (!second_started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            first_saw_stale = stale();  // overtaken: a long job would stop here
            return 1;
        },
        [&](int v) { answers.push_back(v); });
    job.start(
        &context, [] { return 2; }, [&](int v) { answers.push_back(v); });
    second_started = true;
    QTRY_COMPARE_WITH_TIMEOUT(answers, std::vector<int>{2}, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(first_saw_stale.load(), 10000);
    QTest::qWait(50);  // the first job's answer, had it not been dropped, has arrived by now
    QCOMPARE(answers, std::vector<int>{2});
}

void TestAsync::aDroppedJobNeverAnswers() {
    QObject context;
    LatestJob job;
    bool done = false;
    QString failure;
    job.start(
        &context, []() -> int { throw std::runtime_error("late"); }, [&](int) { done = true; },
        [&](const QString& e) { failure = e; });
    job.drop();
    QTest::qWait(200);
    QVERIFY(!done);
    QVERIFY(failure.isEmpty());
}

QTEST_MAIN(TestAsync)
#include "test_async.moc"
