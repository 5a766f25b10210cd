// pathscope: the GUI. A thin main: options, the application object, the main window.
// `--screenshot FILE` renders the window with a sample map and a finished animation into FILE
// and exits (the README picture, and a test that the window renders at all).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QDockWidget>
#include <QImageWriter>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "instrumentation/capture/cupti_capture.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "ui/shell/crowd_tools.hpp"
#include "ui/shell/demo_scene.hpp"
#include "ui/shell/feature_scenes.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/map/map_document.hpp"
// Issue 7: headless figure export.
#include "database/history.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/plots/speedup_export.hpp"
#include "ui/animation/movie_export.hpp"
#include "ui/history/history_model.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/timeline/timeline_export.hpp"
#include "ui/run/run_panel.hpp"
#include "ui/timeline/stats/timeline_stats_view.hpp"
#include "ui/timeline/timeline_panel.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace {

void describeApplication() {
    QCoreApplication::setOrganizationName(QStringLiteral("PathScope"));
    QCoreApplication::setApplicationName(QStringLiteral("pathscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PATHSCOPE_VERSION));
}

struct GuiOptions {
    QString map;
    QString db;
    QString screenshot;
    QString scene;                              // --scene: what the screenshot shows ("flowfield": issue 9's crowd)
    std::optional<ps::ui::TargetEntry> target;  // --target: the screenshot's runs go there
};

// The headless exports' options: runFigureExport reads them, and the window's --help lists them.
struct ExportOptions {
    QCommandLineOption timeline{QStringLiteral("export-timeline"),
                                QCoreApplication::translate("main",
                                                            "Export the timeline of stored run RUN (or two runs "
                                                            "RUN1,RUN2 stacked on one time axis) to --out F (.png "
                                                            ".pdf .svg .csv .json) without a display, then exit."),
                                QStringLiteral("RUN")};
    QCommandLineOption levels{QStringLiteral("levels"),
                              QCoreApplication::translate("main",
                                                          "With --export-timeline: levels A-B only, each run aligned "
                                                          "to its own level A, every gap labelled."),
                              QStringLiteral("A-B")};
    QCommandLineOption range{QStringLiteral("range"),
                             QCoreApplication::translate("main",
                                                         "With --export-timeline: the time window T0-T1 (ns, us, ms, "
                                                         "s) since each run's first GPU item."),
                             QStringLiteral("T0-T1")};
    QCommandLineOption lecture{QStringLiteral("lecture"),
                               QCoreApplication::translate("main",
                                                           "Slide type for the figure exports: 1920 px wide, text "
                                                           "at least 14 pt, thick lines, the level's caption.")};
    QCommandLineOption speedup{QStringLiteral("export-speedup"),
                               QCoreApplication::translate("main",
                                                           "Export the time / speed-up plot of bench BENCH_ID (or a "
                                                           "filter bench=,map=,variant=,device=) to --out F, with "
                                                           "--baseline VARIANT."),
                               QStringLiteral("BENCH_ID")};
    QCommandLineOption baseline{QStringLiteral("baseline"),
                                QCoreApplication::translate("main", "Baseline variant of --export-speedup."),
                                QStringLiteral("VARIANT")};
    QCommandLineOption animation{QStringLiteral("export-animation"),
                                 QCoreApplication::translate("main",
                                                             "Export the replay of stored run RUN (or RUN1,RUN2 side "
                                                             "by side in lock-step) as a movie: --out F.gif or "
                                                             "F.mp4. The run must have kept its recording "
                                                             "(pathscope-cli run --record)."),
                                 QStringLiteral("RUN")};
    QCommandLineOption fps{QStringLiteral("fps"),
                           QCoreApplication::translate("main", "Movie frames per second (default 30; GIF at most 50)."),
                           QStringLiteral("N")};
    QCommandLineOption width{QStringLiteral("width"),
                             QCoreApplication::translate("main", "Movie width in pixels (default 1280)."),
                             QStringLiteral("W")};
    QCommandLineOption frames{QStringLiteral("frames"),
                              QCoreApplication::translate("main",
                                                          "The animation's frames A-B (the window's slider "
                                                          "numbers); more than 900 are sampled, the last kept."),
                              QStringLiteral("A-B")};
    QCommandLineOption out{QStringLiteral("out"), QCoreApplication::translate("main", "Output file of the exports."),
                           QStringLiteral("F")};

    QList<QCommandLineOption> all() const {
        return {timeline, levels, range, lecture, speedup, baseline, animation, fps, width, frames, out};
    }
};

GuiOptions parseGuiOptions(const QCoreApplication& app) {
    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate(
        "main",
        "PathScope: draw grid maps, run BFS and A* variants on the CPU and the GPU, watch them search, "
        "and compare stored runs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("map"),
                                 QCoreApplication::translate("main", "A MovingAI .map or an image to open."),
                                 QStringLiteral("[map]"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QCoreApplication::translate("main",
                                                            "The run history (default: $PATHSCOPE_DB, else "
                                                            "$XDG_DATA_HOME/pathscope/history.sqlite)."),
                                QStringLiteral("FILE"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QCoreApplication::translate("main",
                                    "Render the window with a sample map and a finished animation into FILE "
                                    "(PNG), then exit. Without --db the runs go to a temporary history."),
        QStringLiteral("FILE"));
    // Listed here for --help; main() hands them to runFigureExport before this parser runs.
    const ExportOptions exports;
    const QCommandLineOption scene(QStringLiteral("scene"),
                                   QCoreApplication::translate("main",
                                                               "With --screenshot: \"flowfield\" shows a flow "
                                                               "field with agents following it; \"gpu-timeline\" "
                                                               "compares bfs.gpu.shared and bfs.gpu.dp traced at "
                                                               "512² in lecture mode; \"gpu-bba\" animates "
                                                               "astar.gpu.bba's two frontiers; \"weighted\" "
                                                               "runs astar.cpu round weighted terrain; "
                                                               "\"live\" drags the start with Live on; "
                                                               "\"scenarios\" runs a .scen in the Scenarios "
                                                               "dock; \"side-by-side\" pictures the Side by "
                                                               "side window; \"bundle\" exports two runs as a "
                                                               "bundle and opens it; \"compare:RUN1,RUN2\" "
                                                               "compares two traced runs of --db in lecture "
                                                               "mode; \"trace-stats:RUN1,RUN2\" compares "
                                                               "them with a 1 ms range selected and their "
                                                               "per-level difference shown."),
                                   QStringLiteral("NAME"));
    const QCommandLineOption target(
        QStringLiteral("target"),
        QCoreApplication::translate("main",
                                    "With --screenshot: run the scene on this remote target (a command "
                                    "prefix; \"\" for a local subprocess)."),
        QStringLiteral("PREFIX"));
    const QCommandLineOption remoteCli(QStringLiteral("remote-cli"),
                                       QCoreApplication::translate("main", "The target's pathscope-cli."),
                                       QStringLiteral("PATH"));
    parser.addOptions({db, screenshot, scene, target, remoteCli});
    parser.addOptions(exports.all());
    parser.process(app);  // --help, --version and unknown options exit here
    const QStringList positional = parser.positionalArguments();
    GuiOptions options{positional.value(0), parser.value(db), parser.value(screenshot), parser.value(scene), {}};
    if (parser.isSet(target)) {
        ps::ui::TargetEntry entry;
        entry.name = QStringLiteral("target");
        entry.prefix = parser.value(target);
        if (parser.isSet(remoteCli)) entry.remoteCli = parser.value(remoteCli);
        options.target = entry;
    }
    return options;
}

// The gpu-timeline scene's timeline: the two runs compared, lecture mode on, the cursor a
// quarter into the levels (past the first tiny ones), so the view shows a window of four
// levels around it, each run at its own level.
void stageLectureLevels(ps::ui::MainWindow& window) {
    auto* panel = window.findChild<ps::ui::TimelinePanel*>();
    if (!panel) return;
    // The timeline gets most of the window's height: the picture is about it.
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
        if (dock->widget() == panel) window.resizeDocks({dock}, {int(window.height() * 0.62)}, Qt::Vertical);
    ps::ui::TimelineWidget* view = panel->view();
    view->setLectureMode(true);
    view->setCursorLevel(view->levelCount() / 4);
}

// The trace-stats scene's timeline: the two runs compared as a user reads them (no lecture
// mode), the statistics under the plot. The Timeline dock gets most of the window. A 1 ms
// range a tenth into the runs' GPU time (0 is each run's first GPU item), so the Range tab has
// numbers and the band shows on the plot; the Per-level difference tab in front.
void stageTraceStats(ps::ui::MainWindow& window) {
    auto* panel = window.findChild<ps::ui::TimelinePanel*>();
    if (!panel) return;
    // The History dock (wide at its least: its filters) makes way: the timeline's labels name
    // the runs.
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        if (dock->objectName() == QLatin1String("historyDock") || dock->objectName() == QLatin1String("scenarioDock"))
            dock->hide();
        if (dock->widget() == panel) window.resizeDocks({dock}, {int(window.height() * 0.8)}, Qt::Vertical);
    }
    ps::ui::TimelineWidget* view = panel->view();
    // The plot over the statistics (the panel's splitter), once the dock has its new height.
    if (auto* split = qobject_cast<QSplitter*>(view->parentWidget()))
        QTimer::singleShot(0, split, [split] { split->setSizes({split->height() * 3 / 5, split->height() * 2 / 5}); });
    view->resetZoom();
    const double begin = view->visibleEnd() / 10;
    view->setSelectedRange(begin, begin + 1e6);
    panel->stats()->tabs()->setCurrentIndex(ps::ui::TimelineStatsView::LevelDiffTab);
}

// Renders the demo scene into `path`; the exit code says whether it worked.
int takeScreenshot(ps::ui::MainWindow& window, const QString& path, const QString& sceneName,
                   const std::optional<ps::ui::TargetEntry>& target) {
    const bool crowd = sceneName == QLatin1String("flowfield");
    const bool gpuTimeline = sceneName == QLatin1String("gpu-timeline");
    const bool gpuBba = sceneName == QLatin1String("gpu-bba");
    const bool weighted = sceneName == QLatin1String("weighted");
    // "compare:A,B": two stored runs of --db (traced elsewhere, e.g. on a GPU server), compared
    // in lecture mode, the second one replayed on the map. "trace-stats:A,B": the same runs with
    // the statistics under the plot instead of lecture mode.
    const bool traceStats = sceneName.startsWith(QLatin1String("trace-stats:"));
    const bool stored = traceStats || sceneName.startsWith(QLatin1String("compare:"));
    std::vector<std::int64_t> storedIds;
    if (stored) {
        const QString prefix = sceneName.section(QLatin1Char(':'), 0, 0);
        QString error;
        const auto ids = ps::ui::parseRunList(sceneName.section(QLatin1Char(':'), 1), &error);
        if (!ids || ids->size() != 2) {
            std::fprintf(stderr, "pathscope: --scene %s:RUN1,RUN2 wants two run ids of --db\n", qPrintable(prefix));
            return 2;
        }
        storedIds = *ids;
    }
    // Issue 19's features (Live, Scenarios, Side by side, bundles): scenes of their own.
    const auto feature = ps::ui::FeatureScene::parse(sceneName);
    if (!sceneName.isEmpty() && !crowd && !gpuTimeline && !gpuBba && !weighted && !stored && !feature) {
        std::fprintf(stderr,
                     "pathscope: unknown --scene %s (known: flowfield, gpu-timeline, gpu-bba, weighted, %s, "
                     "compare:RUN1,RUN2, trace-stats:RUN1,RUN2)\n",
                     qPrintable(sceneName), qPrintable(ps::ui::FeatureScene::names().join(QStringLiteral(", "))));
        return 2;
    }
    if (feature && target) {
        std::fprintf(stderr, "pathscope: --scene %s runs on this machine only (no --target)\n", qPrintable(sceneName));
        return 2;
    }
    window.setTheme(ps::ui::Theme::Light);  // the README shows the light theme whatever the desktop's
    window.resize(1600, stored || gpuTimeline ? 1300 : 1000);  // a timeline scene: room for both runs
    window.show();
    ps::ui::DemoScene scene(&window);
    scene.setGenerateMap(window.document()->filePath().isEmpty() && !stored);
    if (crowd) {
        scene.setVariants({QStringLiteral("flowfield.cpu")});
        scene.setShown(QStringLiteral("flowfield.cpu"));
    }
    if (gpuTimeline) {  // the lecture: a host loop of launches against a tail-launch chain
        scene.setVariants({QStringLiteral("bfs.gpu.shared"), QStringLiteral("bfs.gpu.dp")});
        scene.setShown(QStringLiteral("bfs.gpu.dp"));
        scene.setTraceLevel(int(ps::trace::TraceLevel::Full));
        scene.setMapSide(512);
        scene.setSelectAll(true);
    }
    if (gpuBba) {  // the two frontiers of the GPU's bidirectional A*
        scene.setVariants({QStringLiteral("astar.gpu.bba")});
        scene.setShown(QStringLiteral("astar.gpu.bba"));
        scene.setCostMode(int(ps::CostMode::Integer));
        scene.setMapSide(512);
    }
    if (weighted) {  // issue 19: A* round a lake of weighted terrain, the legend in the corner
        scene.setWeightedTerrain(true);
        scene.setVariants({QStringLiteral("dijkstra.cpu"), QStringLiteral("astar.cpu")});
        scene.setShown(QStringLiteral("astar.cpu"));
    }
    if (target) scene.setTarget(*target);
    int code = 1;
    // The window, or what a scene hands over (the side-by-side window).
    const auto grabWidget = [&](QWidget* widget) {
        const QImage image = widget->grab().toImage();
        QImageWriter writer(path, "png");
        writer.setQuality(0);  // PNG is lossless: quality 0 only asks for the strongest compression
        if (ps::ui::distinctColours(image) < 2)
            std::fprintf(stderr, "pathscope: the rendered window is blank\n");
        else if (!writer.write(image))
            std::fprintf(stderr, "pathscope: cannot write %s: %s\n", qPrintable(path),
                         qPrintable(writer.errorString()));
        else
            code = 0;
        QCoreApplication::exit(code);
    };
    const auto grab = [&] { grabWidget(&window); };
    // The comparison loads from the history off the GUI thread: wait for both runs' levels,
    // then (trace-stats) for the range's statistics, computed off the GUI thread too.
    const auto whenCompared = [&] {
        auto* poll = new QTimer(&window);
        auto waited = std::make_shared<int>(0);
        auto staged = std::make_shared<bool>(false);
        QObject::connect(poll, &QTimer::timeout, &window, [&, poll, waited, staged] {
            auto* panel = window.findChild<ps::ui::TimelinePanel*>();
            const bool loaded = panel && panel->view()->runCount() == 2 && panel->view()->levelCount() > 0;
            if (loaded && !*staged) {
                *staged = true;
                traceStats ? stageTraceStats(window) : stageLectureLevels(window);
            }
            if (loaded && !panel->stats()->pending()) {
                poll->stop();
                QTimer::singleShot(300, &window, grab);
            } else if (++*waited > 300) {
                poll->stop();
                std::fprintf(stderr, "pathscope: the timeline did not load the compared runs%s\n",
                             loaded ? " (or their statistics)" : "");
                QCoreApplication::exit(1);
            }
        });
        poll->start(100);
    };
    if (feature) {
        ps::ui::FeatureScene featureScene(&window, *feature);
        QObject::connect(&featureScene, &ps::ui::FeatureScene::ready, &window, grabWidget);
        QObject::connect(&featureScene, &ps::ui::FeatureScene::failed, &window, [](const QString& reason) {
            std::fprintf(stderr, "pathscope: cannot make the screenshot: %s\n", qPrintable(reason));
            QCoreApplication::exit(1);
        });
        featureScene.start();
        QCoreApplication::exec();
        return code;
    }
    if (stored) {
        auto* history = window.findChild<ps::ui::HistoryPanel*>();
        auto* panel = window.findChild<ps::ui::TimelinePanel*>();
        auto* model = history ? history->findChild<ps::ui::HistoryModel*>() : nullptr;
        if (!history || !panel || !model) return 1;
        // The history lists its runs off the GUI thread: go on once it has.
        auto started = std::make_shared<bool>(false);
        QObject::connect(model, &QAbstractItemModel::modelReset, &window, [&, history, panel, model, started] {
            if (*started || model->rowCount() == 0) return;
            *started = true;
            history->selectRuns({storedIds.back()});
            history->openSelected();
            panel->showStoredRuns(history->historyPath(), storedIds);
            whenCompared();
        });
        QCoreApplication::exec();
        return code;
    }
    QObject::connect(&scene, &ps::ui::DemoScene::ready, &window, [&] {
        if (crowd) ps::ui::stageCrowdDemo(&window, 400, 45);
        if (!gpuTimeline) return grab();
        whenCompared();
    });
    QObject::connect(&scene, &ps::ui::DemoScene::failed, &window, [](const QString& reason) {
        std::fprintf(stderr, "pathscope: cannot make the screenshot: %s\n", qPrintable(reason));
        QCoreApplication::exit(1);
    });
    scene.start();
    QCoreApplication::exec();
    return code;
}

// Options that decide which application object to make must be read before one exists
// ("--name" and "--name=value").
bool hasOption(int argc, char** argv, std::initializer_list<const char*> names) {
    for (int i = 1; i < argc; ++i)
        for (const char* name : names) {
            const std::size_t n = std::strlen(name);
            if (std::strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) return true;
        }
    return false;
}

// Issue 7: `--export-timeline RUN` / `--export-speedup BENCH_ID [--baseline VARIANT]` with
// `--out FILE [--db DB]` write a figure or trace and exit: 0, or 2 with the reason on stderr.
// QCustomPlot draws through QWidget, so this needs a QApplication: on the offscreen platform
// when there is no display.
int runFigureExport(int& argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    describeApplication();
    QCommandLineParser parser;
    const ExportOptions x;
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The run history."), QStringLiteral("FILE"));
    parser.addOptions(x.all());
    parser.addOption(db);
    auto fail = [](const QString& message) {
        std::fprintf(stderr, "pathscope: %s\n", qPrintable(message));
        return 2;
    };
    if (!parser.parse(QCoreApplication::arguments())) return fail(parser.errorText());
    if (!parser.isSet(x.out)) return fail(QStringLiteral("--out FILE is needed"));
    const QString history =
        parser.isSet(db) ? parser.value(db) : QString::fromStdString(ps::db::History::default_path());
    QString error;
    bool ok = false;
    if (parser.isSet(x.timeline)) {
        ps::ui::TimelineFigure figure;
        figure.lecture = parser.isSet(x.lecture);
        const auto runs = ps::ui::parseRunList(parser.value(x.timeline), &error);
        if (!runs) return fail(error);
        figure.runs = *runs;
        if (parser.isSet(x.levels) && !(figure.levels = ps::ui::parseLevelRange(parser.value(x.levels), &error)))
            return fail(error);
        if (parser.isSet(x.range) && !(figure.rangeNs = ps::ui::parseTimeRange(parser.value(x.range), &error)))
            return fail(error);
        ok = ps::ui::exportTimeline(history, figure, parser.value(x.out), &error);
    } else if (parser.isSet(x.animation)) {
        const auto runs = ps::ui::parseRunList(parser.value(x.animation), &error);
        if (!runs) return fail(error);
        ps::ui::MovieOptions movie;
        bool number = true;
        if (parser.isSet(x.fps)) movie.fps = parser.value(x.fps).toInt(&number);
        if (!number) return fail(QStringLiteral("--fps wants a number, not \"%1\"").arg(parser.value(x.fps)));
        if (parser.isSet(x.width)) movie.width = parser.value(x.width).toInt(&number);
        if (!number) return fail(QStringLiteral("--width wants pixels, not \"%1\"").arg(parser.value(x.width)));
        if (parser.isSet(x.frames) && !(movie.frames = ps::ui::parseLevelRange(parser.value(x.frames), &error)))
            return fail(error.replace(QStringLiteral("--levels"), QStringLiteral("--frames")));
        const QString path = parser.value(x.out);
        const auto outcome = ps::ui::exportAnimation(history, *runs, path, movie, [](int done, int total) {
            if (done % 100 == 0 || done == total) std::fprintf(stderr, "pathscope: frame %d of %d\r", done, total);
            return true;
        });
        std::fprintf(stderr, "\n");
        if (!outcome.ok) return fail(outcome.error);
        std::printf("pathscope: %d frames, %d x %d px\n", outcome.frames, outcome.size.width(), outcome.size.height());
        ok = true;
    } else {
        ok = ps::ui::exportSpeedup(history, parser.value(x.speedup), parser.value(x.baseline), parser.value(x.out),
                                   &error, parser.isSet(x.lecture));
    }
    if (!ok) return fail(error);
    std::printf("pathscope: wrote %s\n", qPrintable(parser.value(x.out)));
    return 0;
}

int runGui(int& argc, char** argv) {
    // A screenshot needs no screen: without a display, render offscreen (fonts included).
    if (hasOption(argc, argv, {"--screenshot"}) && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    describeApplication();
    const GuiOptions options = parseGuiOptions(app);

    QString history = options.db;
    std::unique_ptr<QTemporaryDir> scratch;
    if (!options.screenshot.isEmpty()) {
        // A screenshot neither reads the user's layout nor writes runs into their history.
        scratch = std::make_unique<QTemporaryDir>();
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch->path());
        if (history.isEmpty()) history = scratch->filePath(QStringLiteral("history.sqlite"));
    }
    ps::ui::MainWindow window(history);
    const bool screenshot = !options.screenshot.isEmpty();
    if (screenshot)
        window.setPromptsEnabled(false);
    else
        window.show();  // first, so an error about the map file has a window to sit on
    if (!options.map.isEmpty()) {
        QString error;
        if (!window.openFile(options.map, &error)) std::fprintf(stderr, "pathscope: %s\n", qPrintable(error));
    }
    return screenshot ? takeScreenshot(window, options.screenshot, options.scene, options.target)
                      : QApplication::exec();
}

}  // namespace

int main(int argc, char* argv[]) {
    // What needs no window runs without a display: help and version under a QCoreApplication;
    // the figure exports (--export-timeline, --export-speedup) on the offscreen platform.
    if (hasOption(argc, argv, {"-h", "--help", "--help-all", "-v", "--version"})) {
        QCoreApplication app(argc, argv);
        describeApplication();
        parseGuiOptions(app);  // prints and exits
        return 0;
    }
    if (hasOption(argc, argv, {"--export-timeline", "--export-speedup", "--export-animation"}))
        return runFigureExport(argc, argv);
    // Full tracing from the run panel: NVTX ranges reach CUPTI only if this is set before the
    // process's first NVTX call.
    if (ps::gpu_info().available) ps::trace::prepare_nvtx_injection();
    return runGui(argc, argv);
}
