// Issue 19's README pictures, each made by the window itself (`pathscope --screenshot F --scene
// NAME`), CPU variants only, the same every time:
//   live          a rooms map, astar.cpu ticked, Live on, the start dragged through the
//                 document (the path a marker drag takes); ready once the live answer for the
//                 final start has arrived and is shown.
//   scenarios     a rooms map and a MovingAI .scen written beside it (optimal lengths from
//                 astar.cpu under MovingAI's rule, one line deliberately wrong), opened and run
//                 in the Scenarios dock with astar.cpu and jps.cpu, a query picked and searched.
//   side-by-side  astar.cpu and jps.cpu stored, opened side by side from the History dock, at
//                 the middle frame; the picture is that window.
//   bundle        three runs stored, two exported as a run bundle from the History dock, the
//                 bundle opened as a file (read-only in the History dock), one replayed.
// Everything stays asynchronous; ready() hands over the widget to grab, failed() says why not.
#pragma once

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdint>
#include <optional>

namespace ps::ui {

class DemoScene;
class MainWindow;

class FeatureScene : public QObject {
    Q_OBJECT
public:
    enum class Kind { Live, Scenarios, SideBySide, Bundle };
    static std::optional<Kind> parse(const QString& name);
    static QStringList names();  // as --scene takes them

    FeatureScene(MainWindow* window, Kind kind, QObject* parent = nullptr);
    ~FeatureScene() override;
    void start(int timeoutMs = 120000);

signals:
    void ready(QWidget* picture);
    void failed(const QString& reason);

private:
    void startLive();
    void startScenarios();
    void startSideBySide();
    void startBundle();
    void exportBundle();
    void generateRooms(int side, std::uint64_t seed);
    void finish(QWidget* picture, int settleMs = 300);
    void fail(const QString& reason);

    MainWindow* m_window;
    Kind m_kind;
    DemoScene* m_demo = nullptr;
    QTemporaryDir m_dir;  // the .scen and the bundle
    QTimer m_timeout;
    bool m_done = false;
    int m_step = 0;
    quint64 m_job = 0;  // the scenarios scene's run of the picked query
};

}  // namespace ps::ui
