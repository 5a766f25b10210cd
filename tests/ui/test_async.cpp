// runAsync: a worker body that throws must not take the window down. The exception becomes an
// error text handed to the failure handler on the GUI thread; the result handler is skipped.
#include <QSignalSpy>
#include <QtTest>
#include <stdexcept>
#include <vector>

#include "ui/async.hpp"

using namespace ps::ui;

class TestAsync : public QObject {
    Q_OBJECT
private slots:
    void resultsReachTheDoneHandler();
    void anExceptionBecomesAnErrorText();
    void anUnknownExceptionIsNamed();
};

void TestAsync::resultsReachTheDoneHandler() {
    QObject context;
    int result = 0;
    QString failure;
    runAsync(&context, [] { return 42; }, [&](int v) { result = v; }, [&](const QString& e) { failure = e; });
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

QTEST_MAIN(TestAsync)
#include "test_async.moc"
