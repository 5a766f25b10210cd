// The main window offscreen, with a temporary history and settings: docks and shortcuts exist,
// a map loaded through the document runs through the run panel into the animation and the
// history, the window renders (not blank, expected size), a stored run replays, errors do not
// crash, themes switch, and the layout survives a restart.
#include <QDockWidget>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "kernels/map/map_io.hpp"
#include "tests/ui/support/history_fixture.hpp"
#include "ui/animation/animation.hpp"
#include "ui/shell/demo_scene.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_view.hpp"
#include "ui/run/run_panel.hpp"

using namespace ps;
using namespace ps::ui;

namespace {
constexpr int kRunTimeoutMs = 60000;
}

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void hasDocksAndShortcuts();
    void runsAnimatesStoresAndRenders();
    void replaysAStoredRun();
    void missingFileIsAnErrorNotACrash();
    void toolShortcutsAndModifiedTitle();
    void themesSwitchPalettes();
    void dropAndRecentFilesOpenMaps();
    void layoutSurvivesRestart();
    void demoSceneRenders();

private:
    QString historyPath(const QString& name) const { return m_dir.filePath(name); }
    QAction* actionWithShortcut(QWidget& window, const QKeySequence& key) const {
        for (QAction* a : window.findChildren<QAction*>())
            if (a->shortcut() == key) return a;
        return nullptr;
    }

    QTemporaryDir m_dir;
    QString m_mapFile;
};

void TestMainWindow::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
    QCoreApplication::setOrganizationName("PathScopeTest");
    QCoreApplication::setApplicationName("test_main_window");
    QVERIFY(m_dir.isValid());
    const auto map = test::generatedMap(GeneratorKind::Rectangles, 64, "rectangles-64");
    QVERIFY(map);
    m_mapFile = m_dir.filePath("rectangles-64.map");
    QVERIFY(write_movingai_map(*map, m_mapFile.toStdString()));
}

void TestMainWindow::init() { QSettings().clear(); }

void TestMainWindow::hasDocksAndShortcuts() {
    MainWindow window(historyPath("docks.sqlite"));
    for (const char* name : {"runDock", "animationDock", "historyDock"}) {
        auto* dock = window.findChild<QDockWidget*>(name);
        QVERIFY2(dock, name);
        QVERIFY(dock->widget());
    }
    QVERIFY(actionWithShortcut(window, QKeySequence(Qt::CTRL | Qt::Key_R)));
    QVERIFY(actionWithShortcut(window, QKeySequence(Qt::Key_Escape)));
    QVERIFY(actionWithShortcut(window, QKeySequence::Undo));
    QVERIFY(actionWithShortcut(window, QKeySequence::Redo));
    QCOMPARE(window.historyPath(), historyPath("docks.sqlite"));
    QCOMPARE(window.historyPanel()->historyPath(), historyPath("docks.sqlite"));
}

void TestMainWindow::runsAnimatesStoresAndRenders() {
    MainWindow window(historyPath("runs.sqlite"));
    window.setPromptsEnabled(false);
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QString error;
    QVERIFY2(window.document()->load(m_mapFile, &error), qPrintable(error));
    QCOMPARE(window.document()->map().width(), 64);

    QSignalSpy outcomes(window.runPanel(), &RunPanel::outcomeSelected);
    QSignalSpy stored(window.runPanel(), &RunPanel::outcomeStored);
    window.runPanel()->selectVariants({"bfs.cpu.queue", "astar.cpu"});
    QCOMPARE(window.runPanel()->selectedVariants().size(), 2);
    window.runPanel()->runSelected();
    QTRY_COMPARE_WITH_TIMEOUT(outcomes.count(), 2, kRunTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 2, kRunTimeoutMs);

    // The last result is replayed: frames, and an overlay the size of the map.
    Animation* animation = window.animation();
    QTRY_VERIFY(animation->frameCount() > 1);
    QVERIFY(animation->overlay());
    QCOMPARE(animation->overlay()->cells.size(), QSize(64, 64));
    animation->setFrame(0);
    QCOMPARE(animation->frame(), 0);
    animation->jumpToEnd();
    QCOMPARE(animation->frame(), animation->frameCount() - 1);

    // The history lists both runs.
    QTRY_COMPARE_WITH_TIMEOUT(window.historyPanel()->model()->rowCount(), 2, kRunTimeoutMs);
    QVERIFY(window.historyPanel()->message().isEmpty());

    const QImage image = window.grab().toImage();
    QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
    QVERIFY(distinctColours(image) > 1);
    // The map area is not just the background: the run's overlay and walls are drawn there.
    const QImage canvas = window.mapView()->grab().toImage();
    QVERIFY(distinctColours(canvas, 8) >= 4);
}

void TestMainWindow::replaysAStoredRun() {
    const QString path = historyPath("replay.sqlite");
    const QString error = test::fillHistory(path);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    MainWindow window(path);
    window.setPromptsEnabled(false);
    HistoryPanel* history = window.historyPanel();
    QTRY_COMPARE_WITH_TIMEOUT(history->model()->rowCount(), 3, kRunTimeoutMs);

    const db::RunRow run = history->model()->run(0);  // the newest: astar.cpu.bidir on maze-33
    history->selectRuns({run.id});
    QCOMPARE(history->selectedRunIds(), std::vector<std::int64_t>{run.id});
    QSignalSpy replays(history, &HistoryPanel::replayRequested);
    history->openSelected();
    QTRY_COMPARE_WITH_TIMEOUT(replays.count(), 1, kRunTimeoutMs);
    // The editor switched to the stored map and the animation plays the stored recording.
    QCOMPARE(window.document()->map().width(), run.map_width);
    QVERIFY(window.animation()->frameCount() > 1);

    // Re-run goes to the run panel and comes back as a new stored run.
    QSignalSpy stored(window.runPanel(), &RunPanel::outcomeStored);
    history->rerunSelected();
    QTRY_COMPARE_WITH_TIMEOUT(stored.count(), 1, kRunTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(history->model()->rowCount(), 4, kRunTimeoutMs);

    // Delete without a prompt (prompts are off), then the table shrinks.
    history->selectRuns({run.id});
    history->deleteSelected();
    QTRY_COMPARE_WITH_TIMEOUT(history->model()->rowCount(), 3, kRunTimeoutMs);
    QCOMPARE(history->model()->rowOfRun(run.id), -1);

    // Export the rest as CSV: a header and three rows.
    std::vector<std::int64_t> all;
    for (int r = 0; r < history->model()->rowCount(); ++r) all.push_back(history->model()->run(r).id);
    QSignalSpy exported(history, &HistoryPanel::exported);
    const QString csv = m_dir.filePath("runs.csv");
    history->exportRuns(all, csv, "csv");
    QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, kRunTimeoutMs);
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), 4);
}

void TestMainWindow::missingFileIsAnErrorNotACrash() {
    MainWindow window(historyPath("missing.sqlite"));
    window.setPromptsEnabled(false);
    const int width = window.document()->map().width();
    QString error;
    QVERIFY(!window.openFile(m_dir.filePath("no-such-map.map"), &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(window.document()->map().width(), width);
    QVERIFY(!window.openFile(m_dir.filePath("no-such-image.png"), &error));
    QVERIFY(!error.isEmpty());

    // A history file that is not one: the panel says so.
    const QString notes = m_dir.filePath("notes.txt");
    QFile file(notes);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a database");
    file.close();
    window.setHistoryPath(notes);
    QTRY_VERIFY_WITH_TIMEOUT(window.historyPanel()->message().contains("not a PathScope history"), kRunTimeoutMs);
}

void TestMainWindow::toolShortcutsAndModifiedTitle() {
    MainWindow window(historyPath("tools.sqlite"));
    window.setPromptsEnabled(false);
    QAction* fill = actionWithShortcut(window, QKeySequence(Qt::Key_F));
    QVERIFY(fill);
    fill->trigger();
    QCOMPARE(window.mapView()->tool(), Tool::Fill);
    actionWithShortcut(window, QKeySequence(Qt::Key_H))->trigger();
    QCOMPARE(window.mapView()->tool(), Tool::Pan);

    QString error;
    QVERIFY(window.openFile(m_mapFile, &error));
    QVERIFY(!window.isWindowModified());
    QVERIFY(window.windowTitle().contains("rectangles-64"));
    window.document()->paintRect(QRect(1, 1, 3, 3), true);
    QVERIFY(window.isWindowModified());
    window.document()->undoStack()->undo();
    QVERIFY(!window.isWindowModified());
    window.document()->paintRect(QRect(1, 1, 3, 3), true);
    QVERIFY(window.close());  // unsaved, but prompts are off: it closes without asking
}

void TestMainWindow::themesSwitchPalettes() {
    MainWindow window(historyPath("themes.sqlite"));
    const QColor system = QApplication::palette().color(QPalette::Window);
    window.setTheme(Theme::Dark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
    window.setTheme(Theme::Light);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 200);
    window.setTheme(Theme::System);
    QCOMPARE(QApplication::palette().color(QPalette::Window), system);
}

void TestMainWindow::dropAndRecentFilesOpenMaps() {
    MainWindow window(historyPath("drop.sqlite"));
    window.setPromptsEnabled(false);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(m_mapFile)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    enter.ignore();
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy opened(&window, &MainWindow::fileOpened);
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    // The file is read off the GUI thread.
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    QCOMPARE(opened.first().at(1).toBool(), true);
    QCOMPARE(window.document()->filePath(), m_mapFile);
    QCOMPARE(window.document()->map().width(), 64);
    QCOMPARE(QSettings().value("recentFiles").toStringList(), QStringList{QFileInfo(m_mapFile).absoluteFilePath()});

    // Files that are neither maps nor images are refused at the door.
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(m_dir.filePath("notes.txt"))});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.ignore();
    QApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());
}

void TestMainWindow::layoutSurvivesRestart() {
    {
        MainWindow window(historyPath("layout.sqlite"));
        window.setPromptsEnabled(false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.findChild<QDockWidget*>("historyDock")->hide();
        QVERIFY(window.close());
    }
    MainWindow again(historyPath("layout.sqlite"));
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QVERIFY(!again.findChild<QDockWidget*>("historyDock")->isVisible());
    QVERIFY(again.findChild<QDockWidget*>("runDock")->isVisible());
}

void TestMainWindow::demoSceneRenders() {
    MainWindow window(historyPath("demo.sqlite"));
    window.setPromptsEnabled(false);
    window.resize(1000, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    DemoScene scene(&window);
    scene.setVariants({"bfs.cpu", "astar.cpu.bidir"});
    QSignalSpy ready(&scene, &DemoScene::ready);
    QSignalSpy failed(&scene, &DemoScene::failed);
    scene.start(kRunTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() + failed.count() > 0, kRunTimeoutMs + 1000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(window.animation()->frame(), window.animation()->frameCount() - 1);
    QCOMPARE(window.historyPanel()->model()->rowCount(), 2);
    QVERIFY(distinctColours(window.grab().toImage()) > 1);
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
