// Run bundles in the window: the history dock exports the selected runs as one .psbundle; a
// second window opens it (as from the command line or a drop) read-only in its history dock,
// where its runs replay with their recordings and path and Delete is off, while the window's
// own history stays where runs are stored; Import adds the runs there once and goes back; a
// bundle of a newer PathScope is refused with a message.
#include <QAction>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <sqlite3.h>

#include "tests/ui/support/history_fixture.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/shell/main_window.hpp"

using namespace ps;
using namespace ps::ui;

namespace {
constexpr int kTimeoutMs = 30000;

QAction* action(HistoryPanel& panel, const QString& text) {
    for (QAction* a : panel.view()->actions())
        if (a->text() == text) return a;
    return nullptr;
}

void waitLoaded(HistoryPanel& panel) { QTRY_VERIFY_WITH_TIMEOUT(!panel.model()->isLoading(), kTimeoutMs); }

int rowOf(const HistoryModel& model, const std::string& variant) {
    for (int r = 0; r < model.rowCount(); ++r)
        if (model.run(r).info.variant == variant) return r;
    return -1;
}
}  // namespace

class TestBundle : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void exportOpenReplayImport() {
        const QString source = path(QStringLiteral("source.sqlite"));
        const QString fill = test::fillHistory(source);
        QVERIFY2(fill.isEmpty(), qPrintable(fill));

        // Export two of the three runs from the history dock.
        HistoryPanel panel;
        panel.setHistoryPath(source);
        waitLoaded(panel);
        QCOMPARE(panel.model()->rowCount(), 3);
        const std::int64_t astar = panel.model()->run(rowOf(*panel.model(), "astar.cpu")).id;
        const std::int64_t bfs = panel.model()->run(rowOf(*panel.model(), "bfs.cpu.queue")).id;
        const QString bundle = path(QStringLiteral("two.psbundle"));
        QSignalSpy exported(&panel, &HistoryPanel::exported);
        panel.exportRuns({astar, bfs}, bundle, QStringLiteral("bundle"));
        QVERIFY(exported.wait(kTimeoutMs));
        QVERIFY(QFile::exists(bundle));

        // Another window with a history of its own opens the bundle.
        const QString own = path(QStringLiteral("own.sqlite"));
        MainWindow window(own);
        window.setPromptsEnabled(false);
        auto* dock = window.findChild<HistoryPanel*>();
        QVERIFY(dock);
        QSignalSpy pathChanged(dock, &HistoryPanel::historyPathChanged);
        QVERIFY(window.openFile(bundle));
        QVERIFY(dock->showingBundle());
        QCOMPARE(dock->bundlePath(), bundle);
        QCOMPARE(pathChanged.count(), 0);  // runs made meanwhile still go to own.sqlite
        waitLoaded(*dock);
        QCOMPARE(dock->model()->rowCount(), 2);

        // Its runs replay with what they recorded, path included; Delete is off.
        dock->selectRuns({dock->model()->run(rowOf(*dock->model(), "astar.cpu")).id});
        QVERIFY(!action(*dock, QStringLiteral("Delete"))->isEnabled());
        QVERIFY(action(*dock, QStringLiteral("Open"))->isEnabled());
        QSignalSpy replay(dock, &HistoryPanel::replayRequested);
        dock->openSelected();
        QVERIFY(replay.wait(kTimeoutMs));
        const auto result = replay.first().at(1).value<std::shared_ptr<const RunResult>>();
        QVERIFY(result && result->recording && !result->recording->events.empty());
        QVERIFY(!result->path.empty());

        // Import: the runs land in own.sqlite, once; the dock goes back to it.
        QSignalSpy imported(dock, &HistoryPanel::bundleImported);
        dock->importBundle();
        QVERIFY(imported.wait(kTimeoutMs));
        QCOMPARE(imported.first().at(0).toInt(), 2);
        QCOMPARE(imported.first().at(1).toString(), own);
        QVERIFY(!dock->showingBundle());
        QCOMPARE(dock->historyPath(), own);
        waitLoaded(*dock);
        QCOMPARE(dock->model()->rowCount(), 2);
        QVERIFY(window.openFile(bundle));
        dock->importBundle();
        QVERIFY(imported.wait(kTimeoutMs));
        QCOMPARE(imported.last().at(0).toInt(), 0);  // nothing twice
    }

    void aBundleOfANewerPathScopeIsRefused() {
        const QString source = path(QStringLiteral("source2.sqlite"));
        QVERIFY(test::fillHistory(source).isEmpty());
        const QString bundle = path(QStringLiteral("newer.psbundle"));
        {
            auto history = db::History::open(source.toStdString(), db::OpenMode::ReadOnly);
            QVERIFY(history);
            QVERIFY(history->export_bundle({}, bundle.toStdString()));
        }
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(bundle.toLocal8Bit().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        MainWindow window(path(QStringLiteral("own2.sqlite")));
        window.setPromptsEnabled(false);
        auto* dock = window.findChild<HistoryPanel*>();
        QVERIFY(window.openFile(bundle));
        waitLoaded(*dock);
        QCOMPARE(dock->model()->rowCount(), 0);
        QVERIFY2(dock->message().contains(QStringLiteral("newer PathScope")), qPrintable(dock->message()));
    }
};

QTEST_MAIN(TestBundle)
#include "test_bundle.moc"
