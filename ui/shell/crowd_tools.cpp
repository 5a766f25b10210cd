// installCrowdTools and stageCrowdDemo (see crowd_tools.hpp).
#include "ui/shell/crowd_tools.hpp"

#include <QCoreApplication>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>

#include "ui/crowd/crowd_panel.hpp"
#include "ui/crowd/flowfield_player.hpp"
#include "ui/crowd/roadmap_layer.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_view.hpp"
#include "ui/run/run_panel.hpp"
#include "ui/shell/main_window.hpp"

namespace ps::ui {

CrowdPanel* installCrowdTools(MainWindow* window) {
    auto* player = new FlowFieldPlayer(window);
    auto* roadmap = new RoadmapLayer(window);
    player->setObjectName(QStringLiteral("flowFieldPlayer"));
    roadmap->setObjectName(QStringLiteral("roadmapLayer"));
    window->mapView()->addLayer(roadmap);
    window->mapView()->addLayer(player);  // agents over roadmap edges
    auto* panel = new CrowdPanel(player, roadmap, window->document(), window);
    panel->setObjectName(QStringLiteral("crowdPanel"));
    QDockWidget* dock =
        window->addPanelDock(panel, QObject::tr("Crowd"), QStringLiteral("crowdDock"), Qt::RightDockWidgetArea);
    if (auto* animationDock = window->findChild<QDockWidget*>(QStringLiteral("animationDock")))
        window->tabifyDockWidget(animationDock, dock);

    // Map menu, before Run.
    auto* menu = new QMenu(QObject::tr("&Map"), window);
    QAction* generate = menu->addAction(QObject::tr("Roadmap: &generate waypoints…"));
    QAction* open = menu->addAction(QObject::tr("&Open roadmap…"));
    menu->addAction(panel->showRoadmapAction());
    QObject::connect(generate, &QAction::triggered, panel, [panel, dock] {
        dock->show();
        dock->raise();
        panel->generateRoadmap();
    });
    QObject::connect(open, &QAction::triggered, panel, &CrowdPanel::openRoadmapDialog);
    QAction* before = nullptr;
    for (QAction* a : window->menuBar()->actions())
        if (a->text() == QObject::tr("&Run")) before = a;
    window->menuBar()->insertMenu(before, menu);

    window->runPanel()->setRequestHook(
        [panel](RunRequest& request, const VariantInfo& info) { return panel->prepareRequest(request, info); });
    QObject::connect(window->runPanel(), &RunPanel::outcomeSelected, panel, [panel](const RunOutcomePtr& outcome) {
        if (outcome) panel->showResult(outcome->report.result, QString::fromStdString(outcome->request.variant_id));
    });

    // Selected runs go to the player (it ignores runs without a flow field); a new map makes
    // both layers stale.
    QObject::connect(window->runPanel(), &RunPanel::outcomeSelected, player, [player](const RunOutcomePtr& outcome) {
        if (outcome) player->setRun(outcome->request.problem.map, outcome->report.result);
    });
    QObject::connect(
        window->historyPanel(), &HistoryPanel::replayRequested, player,
        [player](const std::shared_ptr<const GridMap>& map, const std::shared_ptr<const RunResult>& result) {
            if (result) player->setRun(map, *result);
        });
    QObject::connect(window->document(), &MapDocument::mapReplaced, player, [player, roadmap] {
        player->clear();
        roadmap->clear();
    });
    QObject::connect(panel, &CrowdPanel::statusMessage, window,
                     [window](const QString& text) { window->statusBar()->showMessage(text, 8000); });
    return panel;
}

void stageCrowdDemo(MainWindow* window, int agents, int steps) {
    auto* panel = window->findChild<CrowdPanel*>(QStringLiteral("crowdPanel"));
    if (!panel) return;
    if (auto* dock = window->findChild<QDockWidget*>(QStringLiteral("crowdDock"))) {
        dock->show();
        dock->raise();
        if (auto* runDock = window->findChild<QDockWidget*>(QStringLiteral("runDock")))
            window->resizeDocks({runDock, dock}, {420, 480}, Qt::Vertical);
    }
    panel->player()->setAgentCount(agents);
    for (int i = 0; i < steps; ++i) panel->player()->stepForward();
    QCoreApplication::processEvents();  // lay the docks out before the caller grabs the window
}

}  // namespace ps::ui
