// CrowdPanel (see crowd_panel.hpp).
#include "ui/crowd/crowd_panel.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStatusBar>
#include <QVBoxLayout>

#include "kernels/graph/agents.hpp"
#include "kernels/graph/roadmap.hpp"
#include "kernels/run/runner.hpp"
#include "ui/crowd/agent_steps_plot.hpp"
#include "ui/common/async.hpp"
#include "ui/crowd/flowfield_player.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_view.hpp"
#include "ui/crowd/roadmap_layer.hpp"

namespace ps::ui {

namespace {

const char* const kRoadmapDirKey = "roadmap/lastDirectory";
using RoadmapResult = std::shared_ptr<Expected<Roadmap>>;

}  // namespace

struct CrowdPanel::Private {
    FlowFieldPlayer* player = nullptr;
    RoadmapLayer* roadmap = nullptr;
    MapDocument* document = nullptr;
    QLabel* fieldStatus = nullptr;
    QSpinBox* agents = nullptr;
    QPushButton *place = nullptr, *play = nullptr, *step = nullptr, *reset = nullptr;
    QDoubleSpinBox* speed = nullptr;
    QCheckBox* arrows = nullptr;
    QSpinBox* spacing = nullptr;
    QPushButton *generate = nullptr, *open = nullptr;
    QAction* showRoadmap = nullptr;
    QLabel* roadmapStatus = nullptr;
    QSpinBox* batchAgents = nullptr;
    QSpinBox* batchSeed = nullptr;
    AgentStepsPlot* steps = nullptr;
    LatestJob roadmapJob;  // generate / open: the latest request wins
};

CrowdPanel::CrowdPanel(FlowFieldPlayer* player, RoadmapLayer* roadmap, MapDocument* document, QWidget* parent)
    : QWidget(parent), d(std::make_unique<Private>()) {
    d->player = player;
    d->roadmap = roadmap;
    d->document = document;

    auto* field = new QGroupBox(tr("Flow-field agents"), this);
    auto* fieldForm = new QFormLayout(field);
    d->agents = new QSpinBox(field);
    d->agents->setRange(1, 1000000);
    d->agents->setValue(player->agentCount());
    d->agents->setToolTip(tr("Agents placed on random cells that can reach the goal"));
    d->place = new QPushButton(tr("Place"), field);
    d->place->setToolTip(tr("A new random placement"));
    auto* agentsRow = new QHBoxLayout;
    agentsRow->addWidget(d->agents, 1);
    agentsRow->addWidget(d->place);
    fieldForm->addRow(tr("Agents"), agentsRow);
    d->play = new QPushButton(tr("Play"), field);
    d->step = new QPushButton(tr("Step"), field);
    d->reset = new QPushButton(tr("Reset"), field);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {d->play, d->step, d->reset}) buttons->addWidget(b);
    fieldForm->addRow(buttons);
    d->speed = new QDoubleSpinBox(field);
    d->speed->setRange(0.5, 240);
    d->speed->setValue(player->speed());
    d->speed->setSuffix(tr(" steps/s"));
    fieldForm->addRow(tr("Speed"), d->speed);
    d->arrows = new QCheckBox(tr("Show the field's arrows"), field);
    d->arrows->setChecked(player->arrowsShown());
    fieldForm->addRow(d->arrows);
    d->fieldStatus = new QLabel(field);
    d->fieldStatus->setWordWrap(true);
    fieldForm->addRow(d->fieldStatus);

    auto* roads = new QGroupBox(tr("Roadmap"), this);
    auto* roadForm = new QFormLayout(roads);
    d->spacing = new QSpinBox(roads);
    d->spacing->setRange(1, 4096);
    d->spacing->setValue(8);
    d->spacing->setSuffix(tr(" cells"));
    d->spacing->setToolTip(tr("Lattice step between candidate waypoints"));
    roadForm->addRow(tr("Waypoint spacing"), d->spacing);
    d->generate = new QPushButton(tr("Generate waypoints"), roads);
    d->open = new QPushButton(tr("Open…"), roads);
    auto* roadButtons = new QHBoxLayout;
    roadButtons->addWidget(d->generate);
    roadButtons->addWidget(d->open);
    roadForm->addRow(roadButtons);
    d->showRoadmap = new QAction(tr("Show &roadmap"), this);
    d->showRoadmap->setCheckable(true);
    d->showRoadmap->setChecked(roadmap->isShown());
    auto* show = new QCheckBox(tr("Show the roadmap"), roads);
    show->setChecked(roadmap->isShown());
    roadForm->addRow(show);
    d->roadmapStatus = new QLabel(tr("No roadmap."), roads);
    d->roadmapStatus->setWordWrap(true);
    roadForm->addRow(d->roadmapStatus);

    auto* batch = new QGroupBox(tr("Batch searches (batch.* in the run panel)"), this);
    auto* batchForm = new QFormLayout(batch);
    d->batchAgents = new QSpinBox(batch);
    d->batchAgents->setRange(1, 10000000);
    d->batchAgents->setValue(1000);
    d->batchAgents->setToolTip(tr("Random connected (start, goal) pairs on the roadmap"));
    batchForm->addRow(tr("Agents"), d->batchAgents);
    d->batchSeed = new QSpinBox(batch);
    d->batchSeed->setRange(1, 1000000);
    batchForm->addRow(tr("Seed"), d->batchSeed);
    d->steps = new AgentStepsPlot(batch);
    batchForm->addRow(d->steps);

    // Scrolls instead of growing: the dock must not force a taller window.
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addWidget(field);
    layout->addWidget(roads);
    layout->addWidget(batch, 1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    auto refresh = [this] {
        const bool has = d->player->hasField();
        for (QWidget* w : {static_cast<QWidget*>(d->place), static_cast<QWidget*>(d->play),
                           static_cast<QWidget*>(d->step), static_cast<QWidget*>(d->reset)})
            w->setEnabled(has);
        d->play->setText(d->player->playing() ? tr("Pause") : tr("Play"));
        if (d->agents->value() != d->player->agentCount()) {
            const QSignalBlocker quiet(d->agents);
            d->agents->setValue(d->player->agentCount());
        }
        d->fieldStatus->setText(d->player->status());
    };
    connect(player, &FlowFieldPlayer::stateChanged, this, refresh);
    connect(player, &FlowFieldPlayer::playingChanged, this, refresh);
    connect(d->agents, &QSpinBox::valueChanged, player, &FlowFieldPlayer::setAgentCount);
    connect(d->place, &QPushButton::clicked, player, &FlowFieldPlayer::placeAgents);
    connect(d->play, &QPushButton::clicked, player, &FlowFieldPlayer::togglePlay);
    connect(d->step, &QPushButton::clicked, player, [this] {
        d->player->pause();
        d->player->stepForward();
    });
    connect(d->reset, &QPushButton::clicked, player, [this] {
        d->player->pause();
        d->player->reset();
    });
    connect(d->speed, &QDoubleSpinBox::valueChanged, player, &FlowFieldPlayer::setSpeed);
    connect(d->arrows, &QCheckBox::toggled, player, &FlowFieldPlayer::setArrowsShown);
    refresh();

    connect(d->generate, &QPushButton::clicked, this, &CrowdPanel::generateRoadmap);
    connect(d->open, &QPushButton::clicked, this, &CrowdPanel::openRoadmapDialog);
    connect(show, &QCheckBox::toggled, d->showRoadmap, &QAction::setChecked);
    connect(d->showRoadmap, &QAction::toggled, show, &QCheckBox::setChecked);
    connect(d->showRoadmap, &QAction::toggled, roadmap, &MapLayer::setShown);
    connect(roadmap, &RoadmapLayer::roadmapChanged, this,
            [this] { d->roadmapStatus->setText(d->roadmap->roadmap() ? d->roadmap->summary() : tr("No roadmap.")); });
}

CrowdPanel::~CrowdPanel() = default;

FlowFieldPlayer* CrowdPanel::player() const { return d->player; }
RoadmapLayer* CrowdPanel::roadmapLayer() const { return d->roadmap; }
QAction* CrowdPanel::showRoadmapAction() const { return d->showRoadmap; }
int CrowdPanel::waypointSpacing() const { return d->spacing->value(); }
int CrowdPanel::batchAgents() const { return d->batchAgents->value(); }
void CrowdPanel::setBatchAgents(int count) { d->batchAgents->setValue(count); }
AgentStepsPlot* CrowdPanel::stepsPlot() const { return d->steps; }

QString CrowdPanel::prepareRequest(RunRequest& request, const VariantInfo& info) const {
    if (info.family != Family::Batch) return {};
    const std::shared_ptr<const Roadmap> roadmap = d->roadmap->roadmap();
    if (!roadmap) return tr("Batch runs search a roadmap: make one first (Map > Roadmap: generate waypoints…).");
    AgentOptions options;
    options.count = std::size_t(d->batchAgents->value());
    options.seed = std::uint64_t(d->batchSeed->value());
    auto agents = random_agents(roadmap->graph, options);
    if (!agents) return tr("Cannot place the agents: %1").arg(QString::fromStdString(agents.error().message));
    request.problem.roadmap = std::shared_ptr<const CsrGraph>(roadmap, &roadmap->graph);  // shares the roadmap
    request.problem.agents = std::move(agents).value();
    return {};
}

void CrowdPanel::showResult(const RunResult& result, const QString& variant) {
    d->steps->setSteps(result.agent_steps, variant);
}
void CrowdPanel::setWaypointSpacing(int cells) { d->spacing->setValue(cells); }

void CrowdPanel::generateRoadmap() {
    const std::shared_ptr<const GridMap> map = d->document->snapshot();
    WaypointOptions options;
    options.spacing = d->spacing->value();
    d->roadmapStatus->setText(tr("Generating waypoints…"));
    const QString source = tr("waypoints, spacing %1").arg(options.spacing);
    d->roadmapJob.start(
        this, [map, options] { return std::make_shared<Expected<Roadmap>>(waypoint_roadmap(*map, options)); },
        [this, source](const RoadmapResult& result) {
            if (!*result) {
                const QString message =
                    tr("Cannot make the roadmap: %1").arg(QString::fromStdString(result->error().message));
                d->roadmapStatus->setText(message);
                emit statusMessage(message);
                emit roadmapLoaded(false, message);
                return;
            }
            d->roadmap->setRoadmap(std::make_shared<const Roadmap>(std::move(*result).value()), source);
            d->showRoadmap->setChecked(true);
            emit statusMessage(tr("Roadmap: %1").arg(d->roadmap->summary()));
            emit roadmapLoaded(true, {});
        });
}

void CrowdPanel::openRoadmap(const QString& path) {
    d->roadmapStatus->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    const std::string file = path.toStdString();
    d->roadmapJob.start(
        this, [file] { return std::make_shared<Expected<Roadmap>>(read_roadmap(file)); },
        [this, path](const RoadmapResult& result) {
            if (!*result) {
                const QString message = QString::fromStdString(result->error().message);
                d->roadmapStatus->setText(tr("Cannot open the roadmap: %1").arg(message));
                emit statusMessage(tr("Cannot open the roadmap: %1").arg(message));
                emit roadmapLoaded(false, message);
                return;
            }
            const Roadmap& r = result->value();
            if (r.graph.coords.size() != r.graph.vertex_count()) {
                const QString message = tr("%1 has no node coordinates: nothing to draw").arg(path);
                d->roadmapStatus->setText(message);
                emit statusMessage(message);
                emit roadmapLoaded(false, message);
                return;
            }
            d->roadmap->setRoadmap(std::make_shared<const Roadmap>(std::move(*result).value()),
                                   QFileInfo(path).fileName());
            d->showRoadmap->setChecked(true);
            emit statusMessage(tr("Roadmap: %1").arg(d->roadmap->summary()));
            emit roadmapLoaded(true, {});
        });
}

void CrowdPanel::openRoadmapDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open a roadmap"), QSettings().value(kRoadmapDirKey).toString(),
                                     tr("Roadmaps (*.roadmap *.txt *.gr);;DIMACS graphs (*.gr);;All files (*)"));
    if (path.isEmpty()) return;
    QSettings().setValue(kRoadmapDirKey, QFileInfo(path).absolutePath());
    openRoadmap(path);
}

}  // namespace ps::ui
