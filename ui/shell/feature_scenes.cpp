// FeatureScene (see feature_scenes.hpp).
#include "ui/shell/feature_scenes.hpp"

#include <QDockWidget>
#include <QFile>
#include <QStandardItemModel>
#include <QTableView>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"
#include "ui/animation/side_by_side.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_view.hpp"
#include "ui/run/run_panel.hpp"
#include "ui/run/scenario_panel.hpp"
#include "ui/shell/demo_scene.hpp"
#include "ui/shell/main_window.hpp"

namespace ps::ui {

namespace {

struct SceneName {
    FeatureScene::Kind kind;
    const char* name;
};
constexpr SceneName kScenes[] = {{FeatureScene::Kind::Live, "live"},
                                 {FeatureScene::Kind::Scenarios, "scenarios"},
                                 {FeatureScene::Kind::SideBySide, "side-by-side"},
                                 {FeatureScene::Kind::Bundle, "bundle"}};

// The scenarios scene's file: this many queries, the one at kWrongQuery (in length order) with
// an optimal length kWrongBy too long, the one at kPickedQuery picked on the map.
constexpr int kQueries = 21;
constexpr int kWrongQuery = 13;
constexpr double kWrongBy = 3.0;
constexpr int kPickedQuery = 17;

QDockWidget* dockOf(QWidget* panel) { return panel ? qobject_cast<QDockWidget*>(panel->parentWidget()) : nullptr; }

// The Run dock's variant list at its first ticked variant (made current: its parameters show).
void showTicked(RunPanel* panel) {
    auto* tree = panel->findChild<QTreeWidget*>();
    if (!tree) return;
    for (QTreeWidgetItemIterator it(tree); *it; ++it)
        if ((*it)->parent() && (*it)->checkState(0) == Qt::Checked) {
            tree->setCurrentItem(*it);
            tree->scrollToItem(*it, QAbstractItemView::PositionAtTop);
            return;
        }
}

// A bottom dock given the whole width under the map: the Timeline and Plots docks beside it
// (empty without a traced GPU run, and wide at their least) are closed (View > Panels).
void widenBottomDock(MainWindow* window, QDockWidget* dock) {
    for (const char* name : {"timelineDock", "plotsDock"})
        if (auto* other = window->findChild<QDockWidget*>(QLatin1String(name));
            other && other != dock && window->dockWidgetArea(other) == Qt::BottomDockWidgetArea)
            other->hide();
}

// The stored run of `variant` among the run panel's results (0: none).
std::int64_t storedRun(MainWindow* window, const QString& variant) {
    const ResultsModel* results = window->runPanel()->results();
    for (int row = 0; row < results->rowCount(); ++row)
        if (RunOutcomePtr o = results->outcome(row);
            o && o->storedRunId && QString::fromStdString(o->request.variant_id) == variant)
            return *o->storedRunId;
    return 0;
}

}  // namespace

std::optional<FeatureScene::Kind> FeatureScene::parse(const QString& name) {
    for (const SceneName& scene : kScenes)
        if (name == QLatin1String(scene.name)) return scene.kind;
    return std::nullopt;
}

QStringList FeatureScene::names() {
    QStringList out;
    for (const SceneName& scene : kScenes) out << QLatin1String(scene.name);
    return out;
}

FeatureScene::FeatureScene(MainWindow* window, Kind kind, QObject* parent)
    : QObject(parent), m_window(window), m_kind(kind) {
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        // The History dock's message says why an export or a bundle failed, if one did.
        const QString why = m_window->historyPanel()->message();
        fail(why.isEmpty() ? tr("the scene did not finish in time")
                           : tr("the scene did not finish in time (History dock: %1)").arg(why));
    });
}

FeatureScene::~FeatureScene() = default;

void FeatureScene::start(int timeoutMs) {
    m_timeout.start(timeoutMs);
    if (!m_dir.isValid()) return fail(tr("cannot make a temporary folder: %1").arg(m_dir.errorString()));
    switch (m_kind) {
    case Kind::Live:
        return startLive();
    case Kind::Scenarios:
        return startScenarios();
    case Kind::SideBySide:
        return startSideBySide();
    case Kind::Bundle:
        return startBundle();
    }
}

void FeatureScene::generateRooms(int side, std::uint64_t seed) {
    GeneratorParams params;
    params.kind = GeneratorKind::Rooms;
    params.width = params.height = side;
    params.seed = seed;
    params.density = kRoomsDensity;
    QString error;
    if (!m_window->document()->generate(params, &error)) fail(error);
}

// Live: the first answer (Live switched on) starts the drag; the answer for the drag's last
// cell is the picture. Answers to earlier cells of the drag may arrive between; they are passed.
void FeatureScene::startLive() {
    generateRooms(256, 7);
    if (m_done) return;
    MapDocument* document = m_window->document();
    const GridMap& map = document->map();
    const auto from = nearest_passable(map, {8, 8});
    const auto to = nearest_passable(map, {230, 24});
    const auto goal = nearest_passable(map, {128, 244});
    if (!from || !to || !goal) return fail(tr("the generated map has no free cells"));
    document->setStart(*from);
    document->setGoal(*goal);
    RunPanel* panel = m_window->runPanel();
    panel->selectVariants({QStringLiteral("astar.cpu")});
    showTicked(panel);
    // The map gets the height: the History dock under it stays empty in this scene.
    if (QDockWidget* dock = dockOf(m_window->historyPanel())) {
        m_window->resizeDocks({dock}, {150}, Qt::Vertical);
        widenBottomDock(m_window, dock);
    }
    const Vertex last = map.index(*to);
    connect(panel, &RunPanel::liveUpdated, this, [this, from = *from, to = *to, last](const RunOutcomePtr& outcome) {
        if (m_done || !outcome) return;
        if (m_step == 0) {  // the search before the move: now drag the start, one gesture
            m_step = 1;
            MapDocument* dragged = m_window->document();
            dragged->beginEndpointDrag();
            constexpr int kMoves = 48;
            for (int i = 1; i <= kMoves; ++i) {
                const Cell cell{from.x + (to.x - from.x) * i / kMoves, from.y + (to.y - from.y) * i / kMoves};
                if (dragged->map().passable(cell)) dragged->setStart(cell);  // a drag skips walls too
            }
            dragged->setStart(to);
            dragged->endEndpointDrag();
            return;
        }
        if (outcome->request.problem.start != last) return;  // an answer to an earlier cell of the drag
        if (outcome->report.result.status != RunStatus::Ok || !outcome->report.result.found)
            return fail(
                tr("the live search found no path: %1").arg(QString::fromStdString(outcome->report.result.message)));
        finish(m_window);  // the window showed the answer already (its own liveUpdated slot)
    });
    panel->setLive(true);
}

// Scenarios: the .scen's optimal lengths are astar.cpu's under MovingAI's rule, written as the
// benchmark's files are (sorted by length, bucket = length / 4), one of them wrong on purpose.
void FeatureScene::startScenarios() {
    generateRooms(256, 5);
    if (m_done) return;
    const std::shared_ptr<const GridMap> map = m_window->document()->snapshot();
    struct Query {
        Cell start, goal;
        double length = 0;
    };
    std::vector<Query> queries;
    Rng rng(19);
    for (int tries = 0; int(queries.size()) < kQueries && tries < 4000; ++tries) {
        const Cell start{int(rng.below(std::uint64_t(map->width()))), int(rng.below(std::uint64_t(map->height())))};
        const Cell goal{int(rng.below(std::uint64_t(map->width()))), int(rng.below(std::uint64_t(map->height())))};
        if (!map->passable(start) || !map->passable(goal) || start == goal) continue;
        RunRequest r;
        r.variant_id = "astar.cpu";
        r.problem.map = map;
        r.problem.rules = {Connectivity::Eight, CornerRule::None};
        r.problem.cost_mode = CostMode::Real;
        r.problem.heuristic = Heuristic::Octile;
        r.problem.start = map->index(start);
        r.problem.goal = map->index(goal);
        r.repeat = 1;
        r.warmup = 0;
        r.validate = false;
        const RunReport report = run_variant(r);
        if (report.result.status != RunStatus::Ok || !report.result.found) continue;
        queries.push_back({start, goal, report.result.cost});
    }
    if (int(queries.size()) < kQueries) return fail(tr("too few connected queries on the generated map"));
    std::sort(queries.begin(), queries.end(), [](const Query& a, const Query& b) { return a.length < b.length; });
    const QString mapName = QString::fromStdString(map->name.empty() ? std::string("rooms") : map->name);
    QByteArray text = "version 1\n";
    for (int i = 0; i < kQueries; ++i) {
        const Query& q = queries[std::size_t(i)];
        const double written = i == kWrongQuery ? q.length + kWrongBy : q.length;
        text += QStringLiteral("%1\t%2.map\t%3\t%4\t%5\t%6\t%7\t%8\t%9\n")
                    .arg(int(q.length / 4))
                    .arg(mapName)
                    .arg(map->width())
                    .arg(map->height())
                    .arg(q.start.x)
                    .arg(q.start.y)
                    .arg(q.goal.x)
                    .arg(q.goal.y)
                    .arg(written, 0, 'f', 8)
                    .toUtf8();
    }
    const QString path = m_dir.filePath(mapName + QStringLiteral(".map.scen"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return fail(tr("cannot write %1: %2").arg(path, file.errorString()));
    file.close();

    auto* scenarios = m_window->findChild<ScenarioPanel*>();
    QDockWidget* dock = dockOf(scenarios);
    if (!scenarios || !dock) return fail(tr("the window has no Scenarios dock"));
    dock->show();
    dock->raise();
    m_window->resizeDocks({dock}, {410}, Qt::Vertical);  // room for the table's rows
    widenBottomDock(m_window, dock);
    m_window->runPanel()->selectVariants({QStringLiteral("astar.cpu"), QStringLiteral("jps.cpu")});
    showTicked(m_window->runPanel());
    connect(
        scenarios, &ScenarioPanel::loaded, this,
        [this, scenarios](int count) {
            if (count != kQueries)
                return fail(tr("the Scenarios dock read %1 queries: %2").arg(count).arg(scenarios->message()));
            scenarios->run();
            if (!scenarios->running()) fail(tr("the Scenarios dock did not run: %1").arg(scenarios->message()));
        },
        Qt::SingleShotConnection);
    connect(
        scenarios, &ScenarioPanel::runFinished, this,
        [this, scenarios](int checked, int wrong) {
            if (checked == 0 || wrong == 0)
                return fail(tr("the Scenarios run checked %1 and flagged %2: %3")
                                .arg(checked)
                                .arg(wrong)
                                .arg(scenarios->message()));
            // Picking a query sets the map's start and goal; the Run dock then searches it.
            const QModelIndex picked = scenarios->model()->index(kPickedQuery, 0);
            scenarios->view()->setCurrentIndex(picked);
            scenarios->view()->scrollTo(picked);
            RunWorker* worker = m_window->runWorker();
            const quint64 before = worker->currentJob();
            connect(worker, &RunWorker::jobFinished, this, [this](quint64 job, bool cancelled) {
                if (m_done || job != m_job) return;
                if (cancelled) return fail(tr("the run of the picked query was cancelled"));
                finish(m_window);
            });
            m_window->runPanel()->runSelected();
            if (worker->currentJob() == before) return fail(tr("the Run dock did not search the picked query"));
            m_job = worker->currentJob();
        },
        Qt::SingleShotConnection);
    scenarios->openFile(path);
}

// Side by side: the demo's two runs selected in the History dock, opened from there.
void FeatureScene::startSideBySide() {
    m_demo = new DemoScene(m_window, this);
    GeneratorParams params;
    params.kind = GeneratorKind::Rooms;
    params.width = params.height = 160;
    params.seed = 3;
    params.density = kRoomsDensity;
    m_demo->setGenerator(params);
    m_demo->setVariants({QStringLiteral("astar.cpu"), QStringLiteral("jps.cpu")});
    m_demo->setShown(QStringLiteral("jps.cpu"));
    m_demo->setSelectAll(true);
    HistoryPanel* history = m_window->historyPanel();
    connect(m_demo, &DemoScene::failed, this, &FeatureScene::fail);
    connect(m_demo, &DemoScene::ready, this, [this, history] {
        if (history->selectedRunIds().size() != 2) return fail(tr("the History dock does not list both runs"));
        history->sideBySideSelected();
    });
    connect(history, &HistoryPanel::sideBySideOpened, this, [this](QWidget* opened) {
        auto* view = qobject_cast<SideBySideView*>(opened);
        if (!view || view->frameCount() < 2) return fail(tr("the side-by-side window has nothing to animate"));
        view->resize(1400, 700);
        view->setFrame(view->frameCount() / 2);
        finish(view);
    });
    m_demo->start();
}

// Bundle: three runs stored, two of them exported from the History dock (History::export_bundle
// through its Export bundle action), the file opened as from the command line, one replayed.
void FeatureScene::startBundle() {
    m_demo = new DemoScene(m_window, this);
    GeneratorParams params;
    params.kind = GeneratorKind::Rooms;
    params.width = 240;
    params.height = 150;
    params.seed = 4;
    params.density = kRoomsDensity;
    params.room_size = 12;
    m_demo->setGenerator(params);
    m_demo->setVariants(
        {QStringLiteral("dijkstra.cpu"), QStringLiteral("astar.cpu"), QStringLiteral("astar.cpu.bidir")});
    m_demo->setShown(QStringLiteral("dijkstra.cpu"));
    connect(m_demo, &DemoScene::failed, this, &FeatureScene::fail);
    connect(m_demo, &DemoScene::ready, this, &FeatureScene::exportBundle);
    m_demo->start();
}

void FeatureScene::exportBundle() {
    showTicked(m_window->runPanel());
    HistoryPanel* history = m_window->historyPanel();
    const std::vector<std::int64_t> ids = {storedRun(m_window, QStringLiteral("astar.cpu")),
                                           storedRun(m_window, QStringLiteral("astar.cpu.bidir"))};
    if (ids[0] == 0 || ids[1] == 0) return fail(tr("the demo runs were not stored"));
    const QString bundle = m_dir.filePath(QStringLiteral("runs.psbundle"));
    HistoryModel* model = history->model();
    // The bundle listed: replay its bidirectional A*.
    connect(model, &HistoryModel::loaded, this, [this, history, model, bundle] {
        if (m_done || m_step != 1 || model->isLoading() || model->historyPath() != bundle) return;
        if (!history->showingBundle() || model->rowCount() != 2)
            return fail(tr("the History dock shows %1 runs of the bundle").arg(model->rowCount()));
        for (int row = 0; row < model->rowCount(); ++row)
            if (model->run(row).info.variant == "astar.cpu.bidir") {
                m_step = 2;
                history->selectRuns({model->run(row).id});
                history->openSelected();
                return;
            }
        fail(tr("the bundle holds no astar.cpu.bidir run"));
    });
    connect(history, &HistoryPanel::replayRequested, this, [this] {
        if (m_step == 2) finish(m_window);  // the window replayed it first (connected before)
    });
    connect(
        history, &HistoryPanel::exported, this,
        [this, bundle](const QString& path) {
            if (path != bundle || m_done) return;
            m_step = 1;
            QString error;
            if (!m_window->openFile(bundle, &error)) fail(error);
            if (QDockWidget* dock = dockOf(m_window->historyPanel())) {
                m_window->resizeDocks({dock}, {300}, Qt::Vertical);
                widenBottomDock(m_window, dock);
            }
        },
        Qt::SingleShotConnection);
    history->exportRuns(ids, bundle, QStringLiteral("bundle"));
}

void FeatureScene::finish(QWidget* picture, int settleMs) {
    if (m_done) return;
    m_done = true;
    m_timeout.stop();
    // A few turns of the event loop so layouts and repaints settle before the grab; the map fits
    // its view again once the docks have their sizes.
    QTimer::singleShot(settleMs / 2, this, [this, picture] {
        if (picture == m_window) m_window->mapView()->fitToView();
    });
    QTimer::singleShot(settleMs, this, [this, target = QPointer<QWidget>(picture)] {
        if (!target) return emit failed(tr("the window to picture was closed"));
        emit ready(target);
    });
}

void FeatureScene::fail(const QString& reason) {
    if (m_done) return;
    m_done = true;
    m_timeout.stop();
    // Queued: a failure inside start() comes before the caller's event loop runs, which an
    // exit() at once would miss.
    QTimer::singleShot(0, this, [this, reason] { emit failed(reason); });
}

}  // namespace ps::ui
