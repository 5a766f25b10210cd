// MainWindow: menus, docks, status bar and the wiring between document, view, run panel,
// animation and history.
#include "ui/shell/main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageReader>
#include <QImageWriter>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QUndoStack>

#include "database/history.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "ui/animation/animation.hpp"
#include "ui/animation/animation_panel.hpp"
#include "ui/animation/movie_dialog.hpp"
#include "ui/run/scenario_panel.hpp"
#include "ui/common/async.hpp"
#include "ui/crowd/crowd_panel.hpp"
#include "ui/shell/crowd_tools.hpp"
#include "ui/shell/wiring.hpp"
#include "ui/history/history_panel.hpp"
#include "ui/map/cost_palette.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_view.hpp"
#include "ui/map/new_map_dialog.hpp"
#include "ui/map/terrain_open_dialog.hpp"
#include "ui/run/run_panel.hpp"
// Issue 7: timeline, plots, lecture mode.
#include <QItemSelectionModel>
#include <QTableView>
#include "ui/plots/plot_widget.hpp"
#include "ui/timeline/timeline_panel.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

namespace {

constexpr int kMaxRecent = 10;
const char* const kRecentKey = "recentFiles";
const char* const kThemeKey = "view/theme";
const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kLastDirKey = "lastDirectory";

QStringList imageSuffixes() {
    QStringList out;
    for (const QByteArray& format : QImageReader::supportedImageFormats()) out << QString::fromLatin1(format).toLower();
    // PNG and PGM are read without Qt's plugins too (kernels/map/image_map: grey levels as costs).
    for (const QString& own : {QStringLiteral("png"), QStringLiteral("pgm")})
        if (!out.contains(own)) out << own;
    return out;
}

bool isBundle(const QString& path) { return QFileInfo(path).suffix().toLower() == QLatin1String("psbundle"); }

bool isOpenable(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("map") || imageSuffixes().contains(suffix) || isBundle(path);
}

QString openFilter() {
    QStringList images;
    for (const QString& s : imageSuffixes()) images << QStringLiteral("*.") + s;
    return QObject::tr(
               "Maps, images and run bundles (*.map %1 *.psbundle);;MovingAI maps (*.map);;Images (%1);;"
               "Run bundles (*.psbundle);;All files (*)")
        .arg(images.join(QLatin1Char(' ')));
}

// The palette the application started with, before any theme of ours replaced it.
const QPalette& systemPalette() {
    static const QPalette palette = QApplication::palette();
    return palette;
}

QPalette themedPalette(bool dark) {
    struct Colours {
        QColor window, text, base, alternate, button, highlight, link, disabled, placeholder;
    };
    const Colours c = dark ? Colours{QColor(0x2d, 0x2d, 0x30), QColor(0xe0, 0xe0, 0xe0), QColor(0x1e, 0x1e, 0x1e),
                                     QColor(0x26, 0x26, 0x28), QColor(0x3a, 0x3a, 0x3d), QColor(0x2f, 0x6f, 0xce),
                                     QColor(0x6c, 0xb0, 0xff), QColor(0x80, 0x80, 0x80), QColor(0x90, 0x90, 0x90)}
                           : Colours{QColor(0xef, 0xef, 0xef), QColor(0x1a, 0x1a, 0x1a), QColor(0xff, 0xff, 0xff),
                                     QColor(0xf5, 0xf5, 0xf5), QColor(0xe8, 0xe8, 0xe8), QColor(0x30, 0x8c, 0xc6),
                                     QColor(0x1f, 0x5f, 0xb0), QColor(0x9a, 0x9a, 0x9a), QColor(0x80, 0x80, 0x80)};
    QPalette p;
    p.setColor(QPalette::Window, c.window);
    p.setColor(QPalette::WindowText, c.text);
    p.setColor(QPalette::Base, c.base);
    p.setColor(QPalette::AlternateBase, c.alternate);
    p.setColor(QPalette::ToolTipBase, c.window);
    p.setColor(QPalette::ToolTipText, c.text);
    p.setColor(QPalette::Text, c.text);
    p.setColor(QPalette::Button, c.button);
    p.setColor(QPalette::ButtonText, c.text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Highlight, c.highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, c.link);
    p.setColor(QPalette::PlaceholderText, c.placeholder);
    // Light and Dark etc. drive frame and bevel shading in the Fusion style.
    p.setColor(QPalette::Light, c.button.lighter(130));
    p.setColor(QPalette::Midlight, c.button.lighter(115));
    p.setColor(QPalette::Mid, c.button.darker(130));
    p.setColor(QPalette::Dark, c.button.darker(160));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, c.disabled);
    return p;
}

struct ToolSpec {
    Tool tool;
    const char* text;
    Qt::Key key;
    const char* tip;
};

constexpr ToolSpec kTools[] = {
    {Tool::Pan, "Pan", Qt::Key_H, "Drag to move the view (middle or right drag pans with any tool)"},
    {Tool::Wall, "Wall", Qt::Key_W, "Paint walls with the brush"},
    {Tool::Erase, "Erase", Qt::Key_E, "Erase walls with the brush"},
    {Tool::Rect, "Rectangle", Qt::Key_R, "Drag a rectangle of walls (Shift: erase)"},
    {Tool::Line, "Line", Qt::Key_L, "Drag a line of walls (Shift: erase)"},
    {Tool::Fill, "Fill", Qt::Key_F, "Wall in the free region under the cursor, or clear the wall region"},
    {Tool::Start, "Start", Qt::Key_S, "Place or drag the start"},
    {Tool::Goal, "Goal", Qt::Key_G, "Place or drag the goal (the BFS source)"},
    {Tool::Terrain, "Terrain", Qt::Key_T,
     "Paint weighted terrain with the brush, at the palette's cost (1 = plain floor; a cell costing c makes a "
     "step onto it c times dearer)"},
};

}  // namespace

struct MainWindow::Private {
    LatestJob open;  // openFileAsync: the latest request wins
    MapDocument* document = nullptr;
    MapView* view = nullptr;
    RunWorker* worker = nullptr;
    RunPanel* runPanel = nullptr;
    Animation* animation = nullptr;
    QString animationLabel;  // the shown replay's variant, for movie captions
    AnimationPanel* animationPanel = nullptr;
    HistoryPanel* historyPanel = nullptr;

    QMenu* recentMenu = nullptr;
    QMenu* panelsMenu = nullptr;
    QActionGroup* tools = nullptr;
    QActionGroup* themes = nullptr;
    QAction* cancelRun = nullptr;
    QSpinBox* brush = nullptr;
    CostPalette* palette = nullptr;
    QLabel *cell = nullptr, *zoom = nullptr, *size = nullptr, *gpu = nullptr;
    QString gpuDescription;
    QString historyPath;
    Theme theme = Theme::System;
    bool prompts = !qEnvironmentVariableIsSet("PATHSCOPE_NO_PROMPTS");
};

MainWindow::MainWindow(const QString& historyPath, QWidget* parent)
    : QMainWindow(parent), d(std::make_unique<Private>()) {
    systemPalette();  // remember it before a theme replaces it
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    d->document = new MapDocument(this);
    d->view = new MapView(d->document, this);
    d->worker = new RunWorker(this);
    d->animation = new Animation(this);
    d->runPanel = new RunPanel(d->document, d->worker, this);
    d->animationPanel = new AnimationPanel(d->animation, this);
    d->historyPanel = new HistoryPanel(this);
    setCentralWidget(d->view);

    d->cell = new QLabel(this);
    d->zoom = new QLabel(this);
    d->size = new QLabel(this);
    d->gpu = new QLabel(tr("GPU: looking…"), this);
    for (QLabel* label : {d->cell, d->zoom, d->size, d->gpu}) statusBar()->addPermanentWidget(label);
    d->cell->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("00000, 00000 · cost 000")));

    createMenus();
    QDockWidget* runDock = addPanelDock(d->runPanel, tr("Run"), QStringLiteral("runDock"), Qt::RightDockWidgetArea);
    QDockWidget* animationDock =
        addPanelDock(d->animationPanel, tr("Animation"), QStringLiteral("animationDock"), Qt::RightDockWidgetArea);
    QDockWidget* historyDock =
        addPanelDock(d->historyPanel, tr("History"), QStringLiteral("historyDock"), Qt::BottomDockWidgetArea);
    // Issue 19: a MovingAI .scen for the map in the editor, its queries run with the ticked variants.
    auto* scenarios = new ScenarioPanel(this);
    scenarios->setMapSource([this] { return std::make_shared<const GridMap>(d->document->map()); });
    scenarios->setVariantSource([this] { return d->runPanel->selectedVariants(); });
    connect(scenarios, &ScenarioPanel::querySelected, this, [this](Cell start, Cell goal) {
        d->document->beginEndpointDrag();  // one undo step for both markers
        d->document->setStart(start);
        d->document->setGoal(goal);
        d->document->endEndpointDrag();
    });
    QDockWidget* scenarioDock =
        addPanelDock(scenarios, tr("Scenarios"), QStringLiteral("scenarioDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(historyDock, scenarioDock);
    historyDock->raise();
    // The right column runs full height; the history sits under the map only.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    connectParts();
    setupTimelineAndPlots();
    installCrowdTools(this);  // flow-field agents and roadmaps
    // The first CUDA call can take a second (driver start-up): never on the GUI thread.
    runAsync(
        this, []() -> GpuInfo { return gpu_info(); },
        [this](const GpuInfo& info) {
            d->gpuDescription = QString::fromStdString(describe(info));
            QString reason = QString::fromStdString(info.reason);
            const QLatin1String sameWords("no usable GPU: ");  // gpu_info's wording: do not say it twice
            if (reason.startsWith(sameWords)) reason.remove(0, sameWords.size());
            d->gpu->setText(info.available ? QString::fromStdString(info.name) : tr("no GPU: %1").arg(reason));
            d->gpu->setToolTip(d->gpuDescription);
        });

    setHistoryPath(historyPath.isEmpty() ? QString::fromStdString(db::History::default_path()) : historyPath);
    setPromptsEnabled(d->prompts);

    QSettings settings;
    const int theme = settings.value(kThemeKey, int(Theme::System)).toInt();
    setTheme(theme == int(Theme::Light) || theme == int(Theme::Dark) ? Theme(theme) : Theme::System);
    resize(1400, 900);
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    if (!restoreState(settings.value(kStateKey).toByteArray())) {
        // First start: most of the height to the run panel (variants, parameters, results).
        resizeDocks({runDock}, {500}, Qt::Horizontal);
        resizeDocks({runDock, animationDock}, {700, 160}, Qt::Vertical);
        resizeDocks({historyDock}, {240}, Qt::Vertical);
    }
    updateTitle();
}

// Children are deleted after this body, by ~QWidget, and some signal while they go (the undo
// stack reports "clean" as it dies): nothing of theirs may reach this half-destroyed window.
MainWindow::~MainWindow() {
    for (QObject* child : findChildren<QObject*>()) disconnect(child, nullptr, this, nullptr);
}

MapDocument* MainWindow::document() const { return d->document; }
MapView* MainWindow::mapView() const { return d->view; }
RunWorker* MainWindow::runWorker() const { return d->worker; }
RunPanel* MainWindow::runPanel() const { return d->runPanel; }
Animation* MainWindow::animation() const { return d->animation; }
HistoryPanel* MainWindow::historyPanel() const { return d->historyPanel; }
QString MainWindow::historyPath() const { return d->historyPath; }
bool MainWindow::promptsEnabled() const { return d->prompts; }
Theme MainWindow::theme() const { return d->theme; }

void MainWindow::setPromptsEnabled(bool enabled) {
    d->prompts = enabled;
    d->historyPanel->setConfirmDelete(enabled);
}

void MainWindow::setHistoryPath(const QString& path) {
    d->historyPath = path;
    d->runPanel->setHistoryPath(path);
    d->historyPanel->setHistoryPath(path);  // echoes back through historyPathChanged: no-op then
}

QDockWidget* MainWindow::addPanelDock(QWidget* widget, const QString& title, const QString& objectName,
                                      Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(widget);
    addDockWidget(area, dock);
    d->panelsMenu->addAction(dock->toggleViewAction());
    return dock;
}

void MainWindow::createMenus() {
    auto add = [this](QMenu* menu, const QString& text, const QKeySequence& key, auto slot) {
        QAction* a = menu->addAction(text);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };

    QMenu* file = menuBar()->addMenu(tr("&File"));
    add(file, tr("&New map…"), QKeySequence::New, &MainWindow::newMap);
    add(file, tr("&Open…"), QKeySequence::Open, &MainWindow::openDialog);
    add(file, tr("Open as &weighted terrain…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
        &MainWindow::openTerrainDialog);
    d->recentMenu = file->addMenu(tr("Open &recent"));
    connect(d->recentMenu, &QMenu::aboutToShow, this, [this] {
        d->recentMenu->clear();
        const QStringList recent = QSettings().value(kRecentKey).toStringList();
        for (const QString& path : recent)
            connect(d->recentMenu->addAction(QFileInfo(path).fileName()), &QAction::triggered, this,
                    [this, path] { openFileAsync(path); });
        if (recent.isEmpty()) d->recentMenu->addAction(tr("(none)"))->setEnabled(false);
    });
    add(file, tr("&Save"), QKeySequence::Save, &MainWindow::save);
    add(file, tr("Save &As…"), QKeySequence::SaveAs, &MainWindow::saveAs);
    add(file, tr("&Export view as PNG…"), QKeySequence(Qt::CTRL | Qt::Key_E), &MainWindow::exportView);
    add(file, tr("Export &animation…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), &MainWindow::exportAnimation);
    file->addSeparator();
    add(file, tr("&History file…"), {}, [this] { d->historyPanel->chooseHistoryFile(); });
    file->addSeparator();
    add(file, tr("&Quit"), QKeySequence::Quit, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = d->document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = d->document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* toolsMenu = menuBar()->addMenu(tr("&Tools"));
    QToolBar* toolbar = addToolBar(tr("Tools"));
    toolbar->setObjectName(QStringLiteral("toolsToolbar"));
    d->tools = new QActionGroup(this);
    for (const ToolSpec& spec : kTools) {
        QAction* a = toolsMenu->addAction(tr(spec.text));
        a->setCheckable(true);
        a->setShortcut(QKeySequence(spec.key));
        a->setToolTip(tr("%1 (%2): %3").arg(tr(spec.text), QKeySequence(spec.key).toString(), tr(spec.tip)));
        a->setData(int(spec.tool));
        a->setChecked(spec.tool == d->view->tool());
        d->tools->addAction(a);
        toolbar->addAction(a);
    }
    connect(d->tools, &QActionGroup::triggered, this,
            [this](QAction* a) { d->view->setTool(Tool(a->data().toInt())); });
    toolsMenu->addSeparator();
    d->brush = new QSpinBox(this);
    d->brush->setRange(1, 64);
    d->brush->setValue(d->view->brushSize());
    d->brush->setPrefix(tr("brush "));
    d->brush->setSuffix(tr(" cells"));
    d->brush->setToolTip(tr("Brush size of Wall, Erase and Line ([ and ])"));
    connect(d->brush, &QSpinBox::valueChanged, d->view, &MapView::setBrushSize);
    toolbar->addSeparator();
    toolbar->addWidget(d->brush);
    add(toolsMenu, tr("&Larger brush"), QKeySequence(Qt::Key_BracketRight), [this] { d->brush->stepUp(); });
    add(toolsMenu, tr("&Smaller brush"), QKeySequence(Qt::Key_BracketLeft), [this] { d->brush->stepDown(); });
    // Weighted terrain: the cost the Terrain tool paints; picking one takes that tool.
    d->palette = new CostPalette(this);
    d->palette->setToolTip(tr("Terrain costs for the Terrain tool (T)"));
    d->view->setPaintCost(d->palette->cost());
    connect(d->palette, &CostPalette::costChanged, d->view, &MapView::setPaintCost);
    connect(d->palette, &CostPalette::costPicked, this, [this] { d->view->setTool(Tool::Terrain); });
    toolbar->addSeparator();
    toolbar->addWidget(d->palette);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    add(view, tr("Zoom &in"), QKeySequence::ZoomIn, [this] { d->view->zoomIn(); });
    add(view, tr("Zoom &out"), QKeySequence::ZoomOut, [this] { d->view->zoomOut(); });
    toolbar->addAction(add(view, tr("&Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { d->view->fitToView(); }));
    view->addSeparator();
    QMenu* themeMenu = view->addMenu(tr("&Theme"));
    d->themes = new QActionGroup(this);
    for (auto [theme, text] : {std::pair{Theme::System, tr("&System")}, std::pair{Theme::Light, tr("&Light")},
                               std::pair{Theme::Dark, tr("&Dark")}}) {
        QAction* a = themeMenu->addAction(text);
        a->setCheckable(true);
        a->setData(int(theme));
        d->themes->addAction(a);
    }
    connect(d->themes, &QActionGroup::triggered, this, [this](QAction* a) {
        setTheme(Theme(a->data().toInt()));
        QSettings().setValue(kThemeKey, int(d->theme));
    });
    d->panelsMenu = view->addMenu(tr("&Panels"));
    d->panelsMenu->addAction(toolbar->toggleViewAction());

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    add(run, tr("&Run selected variants"), QKeySequence(Qt::CTRL | Qt::Key_R), [this] {
        d->cancelRun->setEnabled(true);
        d->runPanel->runSelected();
    });
    // Enabled only while a job runs, so Esc still cancels a rectangle or line drag otherwise.
    d->cancelRun = add(run, tr("&Cancel run"), QKeySequence(Qt::Key_Escape), [this] { d->runPanel->cancel(); });
    d->cancelRun->setEnabled(false);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    add(help, tr("&About PathScope"), {}, &MainWindow::about);
    add(help, tr("About &Qt"), {}, [] { QApplication::aboutQt(); });
}

void MainWindow::connectParts() {
    connect(d->runPanel, &RunPanel::outcomeSelected, this, &MainWindow::showOutcome);
    // Live re-search: the final frontier and path of the latest change, as it arrives.
    connect(d->runPanel, &RunPanel::liveUpdated, this, [this](const RunOutcomePtr& outcome, double latencyMs) {
        showOutcome(outcome);
        statusBar()->showMessage(
            tr("Live: %1 in %2 ms").arg(QString::fromStdString(outcome->request.variant_id)).arg(latencyMs, 0, 'f', 1),
            2000);
    });
    connect(d->animation, &Animation::overlayChanged, d->view, &MapView::setOverlay);
    connect(d->runPanel, &RunPanel::outcomeStored, d->historyPanel, &HistoryPanel::refresh);
    connect(d->runPanel, &RunPanel::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(d->historyPanel, &HistoryPanel::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(d->historyPanel, &HistoryPanel::replayRequested, this, &MainWindow::replay);
    connect(d->historyPanel, &HistoryPanel::rerunRequested, this, [this](const RunRequest& request) {
        if (!showMap(request.problem.map)) return;
        d->cancelRun->setEnabled(true);
        d->runPanel->rerun(request);
    });
    connect(d->historyPanel, &HistoryPanel::historyPathChanged, this, [this](const QString& path) {
        if (path != d->historyPath) setHistoryPath(path);
    });
    connect(d->worker, &RunWorker::progress, this, [this] { d->cancelRun->setEnabled(true); });
    connect(d->worker, &RunWorker::jobFinished, this, [this](quint64 job) {
        if (job == d->worker->currentJob()) d->cancelRun->setEnabled(false);
    });

    connect(d->view, &MapView::hoveredCell, this, [this](int x, int y, bool inside) {
        QString text = inside ? QStringLiteral("%1, %2").arg(x).arg(y) : QString();
        if (inside && d->document->weighted()) {  // a plain map's cells say nothing more
            const int cost = d->document->map().cost(x, y);
            text += cost == 0 ? tr(" · wall") : tr(" · cost %1").arg(cost);
        }
        d->cell->setText(text);
    });
    connect(d->view, &MapView::zoomChanged, this, [this](double pixelsPerCell) {
        d->zoom->setText(pixelsPerCell >= 1 ? tr("%1 px/cell").arg(pixelsPerCell, 0, 'f', pixelsPerCell < 10 ? 1 : 0)
                                            : tr("%1 cells/px").arg(1.0 / pixelsPerCell, 0, 'f', 1));
    });
    connect(d->view, &MapView::toolChanged, this, [this](Tool tool) {
        for (QAction* a : d->tools->actions())
            if (Tool(a->data().toInt()) == tool) a->setChecked(true);
    });
    auto showSize = [this] {
        d->size->setText(tr("%1 × %2").arg(d->document->map().width()).arg(d->document->map().height()));
    };
    connect(d->document, &MapDocument::mapReplaced, this, [this, showSize] {
        d->animation->clear();  // its frames belong to the old map
        showSize();
    });
    showSize();
    connect(d->document, &MapDocument::fileStateChanged, this, &MainWindow::updateTitle);
}

// Issue 7. The timeline shows the selected result (a run panel row, or one history run; two
// history runs are compared), its levels and the animation's frames follow each other, and
// the plots read bench sweeps from the same history.
void MainWindow::setupTimelineAndPlots() {
    auto* timeline = new TimelinePanel(this);
    auto* plots = new PlotWidget(this);
    QDockWidget* timelineDock =
        addPanelDock(timeline, tr("Timeline"), QStringLiteral("timelineDock"), Qt::BottomDockWidgetArea);
    QDockWidget* plotsDock = addPanelDock(plots, tr("Plots"), QStringLiteral("plotsDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(timelineDock, plotsDock);
    timelineDock->raise();

    linkTimelineAndAnimation(timeline, d->animation);
    connect(d->runPanel, &RunPanel::outcomeSelected, timeline, &TimelinePanel::showOutcome);
    connect(d->historyPanel->view()->selectionModel(), &QItemSelectionModel::selectionChanged, timeline,
            [this, timeline] { timeline->showStoredRuns(d->historyPath, d->historyPanel->selectedRunIds()); });
    connect(timeline, &TimelinePanel::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(d->historyPanel, &HistoryPanel::historyPathChanged, plots, &PlotWidget::setHistoryPath);
    // A stored bench run may bring a new bench id to pick.
    connect(d->runPanel, &RunPanel::outcomeStored, plots, [this, plots] { plots->setHistoryPath(d->historyPath); });

    // Lecture mode (Ctrl+Shift+L): the timeline's large fonts, captions and level stepping.
    auto* lecture = new QAction(tr("&Lecture mode"), this);
    lecture->setCheckable(true);
    lecture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    lecture->setToolTip(
        tr("Large fonts and thick lines on the timeline, a caption per level; step with \u2190 \u2192"));
    TimelineWidget* view = timeline->view();
    connect(lecture, &QAction::toggled, view, &TimelineWidget::setLectureMode);
    connect(view, &TimelineWidget::lectureModeChanged, lecture, &QAction::setChecked);
    connect(view, &TimelineWidget::lectureModeChanged, this, [timelineDock, view](bool on) {
        if (!on) return;
        timelineDock->show();
        timelineDock->raise();
        view->setFocus();  // the arrow keys step through levels at once
    });
    // The View menu is the Panels menu's parent.
    if (auto* viewMenu = qobject_cast<QMenu*>(d->panelsMenu->parentWidget()))
        viewMenu->insertAction(d->panelsMenu->menuAction(), lecture);
}

void MainWindow::updateTitle() {
    setWindowTitle(tr("%1[*] — PathScope").arg(d->document->displayName()));
    setWindowModified(d->document->isModified());
}

void MainWindow::showError(const QString& title, const QString& text) {
    statusBar()->showMessage(text, 15000);
    if (d->prompts) QMessageBox::warning(this, title, text);
}

bool MainWindow::maybeSave() {
    if (!d->document->isModified() || !d->prompts) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(d->document->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::openBundle(const QString& path) {
    d->historyPanel->showBundle(path);
    if (auto* dock = qobject_cast<QDockWidget*>(d->historyPanel->parentWidget())) {
        dock->show();
        dock->raise();
    }
    statusBar()->showMessage(tr("Showing the run bundle %1 (read-only): Open replays a run").arg(path), 8000);
}

bool MainWindow::openFile(const QString& path, QString* error) {
    if (isBundle(path)) {  // runs, not a map: the history dock shows them
        openBundle(path);
        return true;
    }
    if (!maybeSave()) return false;
    QString message;
    if (!d->document->load(path, &message)) {
        if (message.isEmpty()) message = tr("cannot open %1").arg(path);
        showError(tr("Cannot open the map"), message);
        if (error) *error = message;
        return false;
    }
    addRecent(path);
    QSettings().setValue(kLastDirKey, QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
    return true;
}

void MainWindow::openFileAsync(const QString& path) {
    if (isBundle(path)) return openBundle(path);
    openFileAsync(path, MapReadOptions{});
}

void MainWindow::openFileAsync(const QString& path, const MapReadOptions& options) {
    if (!maybeSave()) return;
    statusBar()->showMessage(tr("Opening %1…").arg(path));
    d->open.start(
        this, [path, options] { return std::make_shared<Expected<GridMap>>(MapDocument::readFile(path, options)); },
        [this, path](const std::shared_ptr<Expected<GridMap>>& map) {
            if (!*map) {
                const QString message = QString::fromStdString(map->error().message);
                showError(tr("Cannot open the map"), message);
                emit fileOpened(path, false, message);
                return;
            }
            d->document->adopt(std::move(*map).value(), path);
            addRecent(path);
            QSettings().setValue(kLastDirKey, QFileInfo(path).absolutePath());
            statusBar()->showMessage(
                d->document->weighted() ? tr("Opened %1 (weighted terrain)").arg(path) : tr("Opened %1").arg(path),
                5000);
            emit fileOpened(path, true, {});
        });
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(kRecentKey, recent);
}

void MainWindow::newMap() {
    if (!maybeSave()) return;
    NewMapDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted) return;
    const auto params = dialog.params();
    GridMap map = dialog.takeMap();
    const QString name = QString::fromStdString(map.name);
    if (params)
        d->document->setMap(std::move(map), name, describeGenerator(*params), params->seed);
    else
        d->document->setMap(std::move(map), name);
}

void MainWindow::openDialog() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open a map"), QSettings().value(kLastDirKey).toString(), openFilter());
    if (!path.isEmpty()) openFileAsync(path);
}

void MainWindow::openTerrainDialog() {
    QStringList images;
    for (const QString& s : imageSuffixes()) images << QStringLiteral("*.") + s;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open as weighted terrain"), QSettings().value(kLastDirKey).toString(),
                                     tr("Maps and images (*.map %1);;MovingAI maps (*.map);;Images (%1);;All files (*)")
                                         .arg(images.join(QLatin1Char(' '))));
    if (path.isEmpty()) return;
    TerrainOpenDialog dialog(path, this);
    if (dialog.exec() != QDialog::Accepted) return;
    openFileAsync(path, dialog.options());
}

bool MainWindow::save() {
    const QString path = d->document->filePath();
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (path.isEmpty() || (suffix != QLatin1String("map") && suffix != QLatin1String("png"))) return saveAs();
    QString error;
    if (!d->document->save(path, &error)) {
        showError(tr("Cannot save the map"), error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

bool MainWindow::saveAs() {
    const QString dir = QSettings().value(kLastDirKey, QDir::homePath()).toString();
    QString selected;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save the map"), QDir(dir).filePath(d->document->displayName() + ".map"),
        d->document->weighted() ? tr("Weighted map, costs as text (*.map);;PNG, grey level = cost (*.png)")
                                : tr("MovingAI map (*.map);;PNG image (*.png)"),
        &selected);
    if (path.isEmpty()) return false;
    QString error;
    if (!d->document->save(path, &error)) {
        showError(tr("Cannot save the map"), error);
        return false;
    }
    addRecent(path);
    QSettings().setValue(kLastDirKey, QFileInfo(path).absolutePath());
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

void MainWindow::exportAnimation() {
    if (d->animation->frameCount() == 0) {
        showError(tr("Export animation"),
                  tr("Nothing to replay: run a search (or replay a stored run that kept its recording) first."));
        return;
    }
    const QString name = d->animationLabel.isEmpty() ? QStringLiteral("animation") : d->animationLabel;
    auto* dialog = new MovieDialog({{d->animation->map(), d->animation->result(), name}}, d->animation->frameCount(),
                                   QDir::home().filePath(name + QStringLiteral(".gif")), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &MovieDialog::exportFinished, this,
            [this](bool, const QString& message) { statusBar()->showMessage(message, 8000); });
    dialog->open();
}

void MainWindow::exportView() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the view"),
        QDir(QSettings().value(kLastDirKey, QDir::homePath()).toString()).filePath(d->document->displayName() + ".png"),
        tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    // Twice the widget's pixels: crisp in slides and papers.
    const QImage image = d->view->renderImage(d->view->size() * 2);
    runAsync(
        this,
        [image, path]() -> QString {
            QImageWriter writer(path, "png");
            return writer.write(image) ? QString() : writer.errorString();
        },
        [this, path](const QString& error) {
            if (error.isEmpty())
                statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
            else
                showError(tr("Cannot export the view"), tr("%1: %2").arg(path, error));
        });
}

void MainWindow::about() {
    QMessageBox::about(
        this, tr("About PathScope"),
        tr("<h3>PathScope %1</h3><p>A desktop lab for GPU graph search: draw maps, run BFS and A* variants on "
           "the CPU and the GPU, watch them search, and keep every run in a history.</p><p><b>GPU:</b> %2</p>"
           "<p><b>History:</b> %3</p>")
            .arg(QApplication::applicationVersion(),
                 d->gpuDescription.isEmpty() ? tr("still being queried") : d->gpuDescription.toHtmlEscaped(),
                 d->historyPath.toHtmlEscaped()));
}

void MainWindow::setTheme(Theme theme) {
    d->theme = theme;
    QApplication::setPalette(theme == Theme::System ? systemPalette() : themedPalette(theme == Theme::Dark));
    for (QAction* a : d->themes->actions()) a->setChecked(Theme(a->data().toInt()) == theme);
}

bool MainWindow::showMap(const std::shared_ptr<const GridMap>& map) {
    if (!map) return false;
    const GridMap& current = d->document->map();
    if (current == *map && current.start == map->start && current.goal == map->goal) return true;
    if (!maybeSave()) return false;
    d->document->setMap(*map, QString::fromStdString(map->name));
    return true;
}

void MainWindow::showOutcome(const RunOutcomePtr& outcome) {
    if (!outcome) return;
    // Aliasing: the result lives as long as the outcome that holds it, without a copy.
    d->animationLabel = QString::fromStdString(outcome->request.variant_id);
    d->animation->setRun(outcome->request.problem.map,
                         std::shared_ptr<const RunResult>(outcome, &outcome->report.result));
}

void MainWindow::replay(std::shared_ptr<const GridMap> map, std::shared_ptr<const RunResult> result) {
    if (!showMap(map)) return;
    d->animationLabel = tr("stored run");
    d->animation->setRun(std::move(map), std::move(result));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    d->runPanel->cancel();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile() && isOpenable(url.toLocalFile())) return event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile() && isOpenable(url.toLocalFile())) {
            event->acceptProposedAction();
            openFileAsync(url.toLocalFile());
            return;
        }
    }
}

}  // namespace ps::ui
