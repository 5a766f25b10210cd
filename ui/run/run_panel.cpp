// RunPanel (see run_panel.hpp). The panel turns its settings into one RunRequest per ticked
// variant on one map snapshot, submits them as a job, and follows only the latest job: results
// of a superseded job are ignored even when they were already queued. Problems (no passable
// cell, a blocked start, an unavailable GPU) go to the status line, never into a modal dialog,
// so the next run is one keystroke away.
#include "ui/run/run_panel.hpp"

#include "ui/animation/side_by_side.hpp"
#include "ui/common/async.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <map>

namespace ps::ui {
namespace {

constexpr int kIdRole = Qt::UserRole;
constexpr int kProgressSteps = 1000;

QString qs(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

// Messages from the kernels start in lower case ("the start (3,4) is a blocked cell").
QString sentence(QString text) {
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    return text;
}

QString plural(qsizetype n, const QString& one, const QString& many) { return n == 1 ? one : many.arg(n); }

}  // namespace

QStringList parameterChoices(const ParamSpec& spec) {
    QStringList choices;
    for (const std::string& value : offered_values(spec)) choices << QString::fromStdString(value);
    return choices;
}

struct RunPanel::Private {
    RequestHook hook;  // batch runs' roadmap and agents; see setRequestHook
    MapDocument* document = nullptr;
    RunWorker* worker = nullptr;
    ResultsModel* results = nullptr;
    QSortFilterProxyModel* sorted = nullptr;
    QTableView* table = nullptr;
    QTreeWidget* variants = nullptr;
    QGroupBox* paramBox = nullptr;
    QFormLayout* paramForm = nullptr;
    QComboBox* connectivity = nullptr;
    QComboBox* corners = nullptr;
    QComboBox* cost = nullptr;
    QComboBox* heuristic = nullptr;
    QCheckBox* stopAtStart = nullptr;
    QSpinBox* repeat = nullptr;
    QSpinBox* warmup = nullptr;
    QComboBox* trace = nullptr;
    QPushButton* run = nullptr;
    QCheckBox* live = nullptr;
    QTimer liveTimer;         // changes of one event-loop pass are one re-run
    LatestJob liveJob;        // the latest change wins
    QElapsedTimer liveClock;  // since the change the pending re-run answers
    double liveLatencyMs = 0;
    QPushButton* cancel = nullptr;
    QProgressBar* progress = nullptr;
    QLabel* status = nullptr;
    QComboBox* target = nullptr;
    TargetConnector* connector = nullptr;
    QList<TargetEntry> targets;          // the chooser's saved targets, in its order
    std::shared_ptr<Executor> executor;  // where runs go; null: this machine
    QString targetLabel;

    QString historyPath;
    // Parameter values the user set, by variant id and parameter name (defaults are not kept).
    std::map<std::string, std::map<std::string, std::string>> params;

    quint64 job = 0;  // the job this panel follows; 0 = none
    qsizetype jobSize = 0, arrived = 0;
    QStringList problems;  // of the current job, for its final status line
    QElapsedTimer clock;
    bool selecting = false;  // selecting a new arrival: it is announced once, explicitly

    RunRequest request(const VariantInfo& info, const std::shared_ptr<const GridMap>& map, Cell start,
                       Cell goal) const {
        RunRequest r;
        r.variant_id = info.id;
        Problem& p = r.problem;
        p.map = map;
        const int choice = connectivity->currentData().toInt();  // 0: by family
        const bool eight = choice == 8 || (choice == 0 && info.family != Family::Bfs);
        p.rules.connectivity = eight ? Connectivity::Eight : Connectivity::Four;
        p.rules.corners = CornerRule(corners->currentData().toInt());
        p.cost_mode = CostMode(cost->currentData().toInt());
        p.heuristic = Heuristic(heuristic->currentData().toInt());
        p.start = map->index(start);
        p.goal = map->index(goal);
        p.bfs_stop_at_start = stopAtStart->isChecked();
        if (auto it = params.find(info.id); it != params.end())
            for (const ParamSpec& spec : info.params)
                if (auto value = it->second.find(spec.name);
                    value != it->second.end() && value->second != spec.default_value)
                    p.params[spec.name] = value->second;
        r.warmup = warmup->value();
        r.repeat = repeat->value();
        r.validate = true;
        r.context.record = true;  // recordings feed the animation
        r.context.trace = trace::TraceLevel(trace->currentData().toInt());
        r.executor = executor;
        return r;
    }
};

RunPanel::RunPanel(MapDocument* document, RunWorker* worker, QWidget* parent)
    : QWidget(parent), d(std::make_unique<Private>()) {
    d->document = document;
    d->worker = worker;

    // Variants grouped by family; a group's box ticks all of its runnable variants.
    d->variants = new QTreeWidget(this);
    d->variants->setColumnCount(2);
    d->variants->setHeaderLabels({tr("Variant"), tr("Device")});
    d->variants->setRootIsDecorated(true);
    d->variants->setUniformRowHeights(true);
    const std::pair<Family, QString> groups[] = {{Family::Bfs, tr("BFS")},
                                                 {Family::ShortestPath, tr("Shortest path")},
                                                 {Family::FlowField, tr("Flow field")},
                                                 {Family::Batch, tr("Batch (many agents)")}};
    for (const auto& [family, title] : groups) {
        auto* group = new QTreeWidgetItem(d->variants, {title});
        group->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsAutoTristate);
        for (const auto& variant : Registry::instance().all()) {
            const VariantInfo& info = variant->info();
            if (info.family != family) continue;
            auto* item = new QTreeWidgetItem(
                group, {QString::fromStdString(info.id), info.device == DeviceKind::Gpu ? tr("GPU") : tr("CPU")});
            item->setData(0, kIdRole, QString::fromStdString(info.id));
        }
        group->setExpanded(true);
    }
    refreshAvailability();  // check boxes and tooltips, for this machine until a target is chosen
    selectVariants({QStringLiteral("astar.cpu")});
    d->variants->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    d->variants->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    d->variants->header()->setStretchLastSection(false);

    // Where runs go: this machine or a remote target (a GPU server over ssh, a Slurm node).
    d->target = new QComboBox(this);
    d->target->setObjectName(QStringLiteral("target"));
    d->target->setToolTip(
        tr("Run here, or on a remote target (PREFIX pathscope-cli serve); results, timelines "
           "and recordings come back into this window's history"));
    d->connector = new TargetConnector(this);
    d->targetLabel = tr("This machine");
    fillTargets();

    d->paramBox = new QGroupBox(tr("Parameters"), this);
    d->paramForm = new QFormLayout(d->paramBox);

    // Movement rules, metric, heuristic and repetitions: shared by every variant of a job.
    d->connectivity = new QComboBox(this);
    d->connectivity->addItem(tr("By family (BFS 4, paths 8)"), 0);
    d->connectivity->addItem(tr("4-connected"), 4);
    d->connectivity->addItem(tr("8-connected"), 8);
    d->corners = new QComboBox(this);
    d->corners->setObjectName(QStringLiteral("corners"));
    d->corners->addItem(tr("No corner cutting (MovingAI)"), int(CornerRule::None));
    d->corners->addItem(tr("One orthogonal free"), int(CornerRule::One));
    d->corners->addItem(tr("Any (diagonal needs only its target)"), int(CornerRule::Any));
    d->corners->setToolTip(
        tr("8-connected: which diagonal steps are legal. MovingAI needs both orthogonal cells beside the step "
           "free, \"one\" one of them; \"any\" lets a diagonal squeeze between two walls (the BBA* authors' "
           "rule)"));
    d->cost = new QComboBox(this);
    d->cost->setObjectName(QStringLiteral("cost"));
    d->cost->addItem(tr("Real (1, √2)"), int(CostMode::Real));
    d->cost->addItem(tr("Integer (1000, 1414)"), int(CostMode::Integer));
    d->heuristic = new QComboBox(this);
    for (Heuristic h : {Heuristic::Octile, Heuristic::Euclidean, Heuristic::Manhattan, Heuristic::Zero})
        d->heuristic->addItem(qs(to_string(h)), int(h));
    d->heuristic->setToolTip(
        tr("A* heuristic (Dijkstra always uses zero; Manhattan is admissible on 4-connected grids only)"));
    d->stopAtStart = new QCheckBox(tr("BFS stops at the start"), this);
    d->stopAtStart->setToolTip(tr("Finish the level that reaches the start cell instead of searching the whole map"));
    d->repeat = new QSpinBox(this);
    d->repeat->setRange(1, 100000);
    d->repeat->setValue(3);
    d->warmup = new QSpinBox(this);
    d->warmup->setRange(0, 1000);
    d->warmup->setValue(1);
    d->trace = new QComboBox(this);
    d->trace->setObjectName(QStringLiteral("trace"));
    for (auto level : {trace::TraceLevel::Off, trace::TraceLevel::Light, trace::TraceLevel::Full})
        d->trace->addItem(qs(to_string(level)), int(level));
    d->trace->setToolTip(
        tr("Trace one extra repetition for the Timeline: light = NVTX ranges and device level "
           "stamps, full = also CUPTI records (GPU only). Statistics exclude the traced run."));

    auto* options = new QGroupBox(tr("Run"), this);
    auto* form = new QFormLayout(options);
    form->addRow(tr("Connectivity"), d->connectivity);
    form->addRow(tr("Corners"), d->corners);
    form->addRow(tr("Cost"), d->cost);
    form->addRow(tr("Heuristic"), d->heuristic);
    form->addRow(QString(), d->stopAtStart);
    form->addRow(tr("Repetitions"), d->repeat);
    form->addRow(tr("Warm-ups"), d->warmup);
    form->addRow(tr("Trace"), d->trace);

    d->run = new QPushButton(tr("Run"), this);
    // Ctrl+R belongs to the main window's Run action: a second owner of the same key in one
    // window makes Qt treat it as ambiguous, and then neither fires.
    d->run->setToolTip(tr("Run the ticked variants on a snapshot of the map (Ctrl+R)"));
    d->run->setDefault(true);
    d->cancel = new QPushButton(tr("Cancel"), this);
    d->cancel->setEnabled(false);
    d->live = new QCheckBox(tr("Live"), this);
    d->live->setToolTip(
        tr("Re-run the ticked variants on every move of the start or the goal and every wall painted, "
           "and show the final frontier and path (once, not stored)"));
    d->liveTimer.setSingleShot(true);
    d->liveTimer.setInterval(0);
    connect(&d->liveTimer, &QTimer::timeout, this, &RunPanel::runLive);
    // A change of the problem: the clock starts at the first change the next re-run answers.
    auto changed = [this] {
        if (!d->live->isChecked()) return;
        if (!d->liveTimer.isActive()) d->liveClock.start();
        d->liveTimer.start();
    };
    connect(document, &MapDocument::endpointsChanged, this, changed);
    connect(document, &MapDocument::mapReplaced, this, changed);
    connect(document, &MapDocument::cellsChanged, this, changed);
    // Weighted terrain turns the variants that ignore cell costs off (and plain floor back on).
    connect(document, &MapDocument::weightedChanged, this, &RunPanel::refreshAvailability);
    connect(d->live, &QCheckBox::toggled, this, [this](bool on) {
        if (!on) return d->liveJob.drop();
        d->liveClock.start();
        d->liveTimer.start();
    });
    d->progress = new QProgressBar(this);
    d->progress->setRange(0, kProgressSteps);
    d->progress->setVisible(false);
    d->status = new QLabel(this);
    d->status->setWordWrap(true);
    d->status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    d->results = new ResultsModel(this);
    d->sorted = new QSortFilterProxyModel(this);
    d->sorted->setSourceModel(d->results);
    d->sorted->setSortRole(ResultsModel::SortRole);
    d->table = new QTableView(this);
    d->table->setModel(d->sorted);
    d->table->setSelectionBehavior(QAbstractItemView::SelectRows);
    d->table->setSelectionMode(QAbstractItemView::ExtendedSelection);  // two: side by side
    d->table->setAlternatingRowColors(true);
    d->table->verticalHeader()->hide();
    d->table->horizontalHeader()->setStretchLastSection(true);
    // Arrival order until the user clicks a header; clicking three times returns to it.
    d->table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    d->table->horizontalHeader()->setSortIndicatorClearable(true);
    d->table->setSortingEnabled(true);
    auto* clear = new QToolButton(this);
    clear->setText(tr("Clear results"));
    clear->setAutoRaise(true);
    auto* sideBySide = new QToolButton(this);
    sideBySide->setText(tr("Side by side"));
    sideBySide->setToolTip(tr("The two selected results (Ctrl+click) animated side by side in lock-step"));
    sideBySide->setAutoRaise(true);
    sideBySide->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(d->run);
    buttons->addWidget(d->cancel);
    buttons->addWidget(d->live);
    buttons->addWidget(d->progress, 1);
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    auto* targetRow = new QHBoxLayout;
    targetRow->addWidget(new QLabel(tr("Target"), this));
    targetRow->addWidget(d->target, 1);
    topLayout->addLayout(targetRow);
    topLayout->addWidget(d->variants, 1);
    topLayout->addWidget(d->paramBox);
    topLayout->addWidget(options);
    topLayout->addLayout(buttons);
    topLayout->addWidget(d->status);
    auto* bottom = new QWidget(this);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(d->table, 1);
    auto* resultButtons = new QHBoxLayout;
    resultButtons->addStretch(1);
    resultButtons->addWidget(sideBySide);
    resultButtons->addWidget(clear);
    bottomLayout->addLayout(resultButtons);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(bottom);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(d->variants, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) { showParams(item); });
    connect(d->connectivity, &QComboBox::currentIndexChanged, this,
            [this] { d->corners->setEnabled(d->connectivity->currentData().toInt() != 4); });
    connect(d->run, &QPushButton::clicked, this, &RunPanel::runSelected);
    connect(d->target, &QComboBox::activated, this, [this](int index) {
        const int which = d->target->itemData(index).toInt();
        if (which == -2) {  // Manage targets…
            TargetsDialog dialog(this);
            dialog.exec();
            fillTargets();
            return;
        }
        if (which < 0 || which >= d->targets.size())
            setTarget(nullptr, QString());
        else
            useTarget(d->targets[which]);
    });
    connect(d->connector, &TargetConnector::connected, this, [this](quint64 job, TargetPtr target) {
        if (job != d->connector->latest()) return;
        const QString name = d->target->currentText();
        setTarget(target, name);
    });
    connect(d->connector, &TargetConnector::failed, this, [this](quint64 job, const QString& message) {
        if (job != d->connector->latest()) return;
        setTarget(nullptr, QString());
        setStatus(tr("Could not connect: %1").arg(message), true);
    });
    connect(d->cancel, &QPushButton::clicked, this, &RunPanel::cancel);
    connect(clear, &QToolButton::clicked, d->results, &ResultsModel::clear);
    connect(sideBySide, &QToolButton::clicked, this, &RunPanel::sideBySideSelected);
    connect(d->table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this, sideBySide] { sideBySide->setEnabled(d->table->selectionModel()->selectedRows().size() == 2); });
    connect(d->table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (d->selecting || !current.isValid()) return;
                if (auto outcome = d->results->outcome(d->sorted->mapToSource(current).row()))
                    emit outcomeSelected(outcome);
            });

    connect(worker, &RunWorker::progress, this, [this](quint64 job, double fraction, const QString& text) {
        if (job != d->job) return;
        d->progress->setValue(int(fraction * kProgressSteps));
        d->progress->setFormat(text + QStringLiteral(" · %p%"));
    });
    connect(worker, &RunWorker::outcomeReady, this, [this](quint64 job, RunOutcomePtr outcome) {
        if (job == d->job && outcome) arrive(std::move(outcome));
    });
    connect(worker, &RunWorker::jobFinished, this, [this](quint64 job, bool cancelled) {
        if (job == d->job) finish(cancelled);
    });

    if (QTreeWidgetItem* first = d->variants->topLevelItem(0); first && first->childCount() > 0)
        d->variants->setCurrentItem(first->child(0));
    else
        showParams(nullptr);
}

RunPanel::~RunPanel() = default;

ResultsModel* RunPanel::results() const { return d->results; }

void RunPanel::setHistoryPath(const QString& path) { d->historyPath = path; }

void RunPanel::fillTargets() {
    d->targets = loadTargets();
    const QSignalBlocker block(d->target);
    d->target->clear();
    d->target->addItem(tr("This machine"), -1);
    for (int i = 0; i < d->targets.size(); ++i) d->target->addItem(d->targets[i].name, i);
    d->target->addItem(tr("Manage targets…"), -2);
    const int current = d->target->findText(d->targetLabel);
    d->target->setCurrentIndex(d->executor && current > 0 ? current : 0);
}

QString RunPanel::targetLabel() const { return d->targetLabel; }

void RunPanel::useTarget(const TargetEntry& entry) {
    const int index = d->target->findText(entry.name);
    if (index >= 0) {
        const QSignalBlocker block(d->target);
        d->target->setCurrentIndex(index);
    } else {  // not saved: shown while it is used
        const QSignalBlocker block(d->target);
        d->target->insertItem(d->target->count() - 1, entry.name, int(d->targets.size()));
        d->targets << entry;
        d->target->setCurrentIndex(d->target->count() - 2);
    }
    d->run->setEnabled(false);
    setStatus(tr("Connecting to %1 …").arg(QString::fromStdString(entry.spec().command())), false);
    d->connector->connectTo(entry);
}

void RunPanel::setTarget(std::shared_ptr<Executor> executor, const QString& label) {
    d->executor = std::move(executor);
    d->targetLabel = d->executor ? label : tr("This machine");
    if (!d->executor) {
        const QSignalBlocker block(d->target);
        d->target->setCurrentIndex(0);
    }
    d->run->setEnabled(true);
    refreshAvailability();
    if (d->executor) {
        const ExecutionSite& site = d->executor->site();
        setStatus(tr("Runs go to %1: host %2, %3.")
                      .arg(d->targetLabel, QString::fromStdString(site.host),
                           site.gpu_available ? QString::fromStdString(site.gpu_name) : tr("no GPU there")),
                  false);
    }
    emit targetChanged(d->targetLabel);
}

void RunPanel::refreshAvailability() {
    // The runner's refusal on weighted terrain depends on the variant alone once the map is
    // weighted; a one-cell weighted stand-in asks for it without scanning a large map per variant.
    Problem weighted;
    if (d->document->weighted()) {
        auto terrain = std::make_shared<GridMap>(1, 1);
        terrain->set_cost(0, 0, 2);
        weighted.map = std::move(terrain);
    }
    for (int g = 0; g < d->variants->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = d->variants->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            QTreeWidgetItem* item = group->child(i);
            const Variant* variant = Registry::instance().find(item->data(0, kIdRole).toString().toStdString());
            if (!variant) continue;
            const VariantInfo& info = variant->info();
            QString tip = QString::fromStdString(info.description);
            if (info.reference_id != info.id)
                tip += tr("\nValidated against %1").arg(QString::fromStdString(info.reference_id));
            std::optional<std::string> why = unavailable_reason(*variant, d->executor.get());
            // Batch runs may go over a roadmap, which has no terrain: the runner decides.
            if (!why && info.family != Family::Batch) why = weighted_terrain_refusal(info, weighted);
            if (why) {
                // No check box at all: the group's box then leaves it alone too.
                item->setData(0, Qt::CheckStateRole, QVariant());
                item->setFlags(item->flags() & ~Qt::ItemIsUserCheckable);
                item->setDisabled(true);
                tip = tr("Unavailable: %1").arg(QString::fromStdString(*why));
            } else {
                const bool had = item->data(0, Qt::CheckStateRole).isValid();
                item->setDisabled(false);
                item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                if (!had) item->setCheckState(0, Qt::Unchecked);
            }
            item->setToolTip(0, tip);
            item->setToolTip(1, tip);
        }
    }
}

QStringList RunPanel::selectedVariants() const {
    QStringList ids;
    for (int g = 0; g < d->variants->topLevelItemCount(); ++g) {
        const QTreeWidgetItem* group = d->variants->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            const QTreeWidgetItem* item = group->child(i);
            if (!item->isDisabled() && item->checkState(0) == Qt::Checked) ids << item->data(0, kIdRole).toString();
        }
    }
    return ids;
}

void RunPanel::selectVariants(const QStringList& ids) {
    for (int g = 0; g < d->variants->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = d->variants->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            QTreeWidgetItem* item = group->child(i);
            if (!item->isDisabled())
                item->setCheckState(0, ids.contains(item->data(0, kIdRole).toString()) ? Qt::Checked : Qt::Unchecked);
        }
    }
}

void RunPanel::showParams(QTreeWidgetItem* item) {
    while (d->paramForm->rowCount() > 0) d->paramForm->removeRow(0);
    const Variant* variant =
        item ? Registry::instance().find(item->data(0, kIdRole).toString().toStdString()) : nullptr;
    if (!variant) {
        d->paramBox->setTitle(tr("Parameters"));
        d->paramForm->addRow(new QLabel(tr("Select a variant to see its parameters."), d->paramBox));
        return;
    }
    const VariantInfo& info = variant->info();
    d->paramBox->setTitle(tr("Parameters of %1").arg(QString::fromStdString(info.id)));
    if (info.params.empty()) {
        d->paramForm->addRow(new QLabel(tr("This variant takes no parameters."), d->paramBox));
        return;
    }
    auto& values = d->params[info.id];
    for (const ParamSpec& spec : info.params) {
        const auto it = values.find(spec.name);
        const QString current = QString::fromStdString(it != values.end() ? it->second : spec.default_value);
        const QString tip = QString::fromStdString(spec.description);
        QWidget* editor = nullptr;
        // The editor writes into the per-variant map, so values survive switching variants.
        auto store = [this, id = info.id, name = spec.name](const QString& text) {
            d->params[id][name] = text.trimmed().toStdString();
        };
        if (const QStringList choices = parameterChoices(spec); !choices.isEmpty()) {
            auto* combo = new QComboBox(d->paramBox);
            combo->addItems(choices);
            combo->setCurrentText(current);
            connect(combo, &QComboBox::currentTextChanged, this, store);
            editor = combo;
        } else {
            auto* line = new QLineEdit(current, d->paramBox);
            line->setPlaceholderText(QString::fromStdString(spec.default_value));
            connect(line, &QLineEdit::textEdited, this, store);
            editor = line;
        }
        editor->setToolTip(tip);
        d->paramForm->addRow(QString::fromStdString(spec.name), editor);
    }
}

void RunPanel::setStatus(const QString& text, bool problem) {
    d->status->setText(text);
    d->status->setStyleSheet(problem ? QStringLiteral("color: #c0392b") : QString());
    emit statusMessage(text);
}

void RunPanel::setRequestHook(RequestHook hook) { d->hook = std::move(hook); }

void RunPanel::runSelected() {
    const QStringList ids = selectedVariants();
    if (ids.isEmpty()) return setStatus(tr("Tick at least one variant to run."), true);
    const std::shared_ptr<const GridMap> map = d->document->snapshot();
    if (!map || map->empty()) return setStatus(tr("There is no map to run on: open or generate one first."), true);
    // Without endpoints, the corners' nearest passable cells: what the CLI does too.
    const auto start = map->start ? map->start : nearest_passable(*map, {0, 0});
    const auto goal = map->goal ? map->goal : nearest_passable(*map, {map->width() - 1, map->height() - 1});
    if (!start || !goal) return setStatus(tr("The map has no passable cell."), true);

    RunJob job;
    QStringList skipped;
    for (const QString& id : ids) {
        const Variant* variant = Registry::instance().find(id.toStdString());
        if (!variant) continue;
        if (auto why = unavailable_reason(*variant, d->executor.get())) {
            skipped << tr("%1 is unavailable: %2").arg(id, QString::fromStdString(*why));
            continue;
        }
        RunRequest request = d->request(variant->info(), map, *start, *goal);
        if (d->hook)
            if (const QString why = d->hook(request, variant->info()); !why.isEmpty()) return setStatus(why, true);
        if (auto ok = request.problem.check(variant->info().family); !ok)
            return setStatus(tr("Cannot run %1: %2.").arg(id, QString::fromStdString(ok.error().message)), true);
        job.requests.push_back(std::move(request));
    }
    if (job.requests.empty()) return setStatus(skipped.join(QLatin1Char('\n')), true);
    job.generator = d->document->generatorText();
    job.seed = d->document->generatorSeed();
    submit(std::move(job));
    if (!skipped.isEmpty()) setStatus(skipped.join(QLatin1Char('\n')), true);
}

void RunPanel::sideBySideSelected() {
    const QModelIndexList rows = d->table->selectionModel()->selectedRows();
    if (rows.size() != 2) return setStatus(tr("Select two results (Ctrl+click) to see them side by side."), true);
    std::vector<MoviePanel> panels;
    for (const QModelIndex& index : rows) {
        const RunOutcomePtr outcome = d->results->outcome(d->sorted->mapToSource(index).row());
        if (!outcome) return;
        // Aliasing: the result lives as long as the outcome that holds it.
        panels.push_back({outcome->request.problem.map,
                          std::shared_ptr<const RunResult>(outcome, &outcome->report.result),
                          QString::fromStdString(outcome->request.variant_id)});
    }
    auto* view = new SideBySideView(std::move(panels), window());
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    if (view->frameCount() == 0) {
        view->deleteLater();
        return setStatus(tr("Neither result has a recording to replay."), true);
    }
    view->show();
    emit sideBySideOpened(view);
}

void RunPanel::setLive(bool on) { d->live->setChecked(on); }
bool RunPanel::live() const { return d->live->isChecked(); }
double RunPanel::lastLiveLatencyMs() const { return d->liveLatencyMs; }

void RunPanel::runLive() {
    const std::shared_ptr<const GridMap> map = d->document->snapshot();
    if (!map || map->empty() || !map->start || !map->goal) return;
    std::vector<RunRequest> requests;
    for (const QString& id : selectedVariants()) {
        const Variant* variant = Registry::instance().find(id.toStdString());
        // Here only (a remote target's round trip is no live view), and what can run here.
        if (!variant || variant->info().family == Family::Batch || unavailable_reason(*variant, nullptr)) continue;
        RunRequest r = d->request(variant->info(), map, *map->start, *map->goal);
        r.executor = nullptr;
        r.repeat = 1;
        r.warmup = 0;
        r.validate = false;
        r.context.trace = trace::TraceLevel::Off;
        if (!r.problem.check(variant->info().family)) continue;
        requests.push_back(std::move(r));
    }
    if (requests.empty()) return;
    const QElapsedTimer since = d->liveClock;  // the first change this re-run answers
    d->liveJob.start(
        this,
        [requests](const LatestJob::Stale& stale) {
            std::vector<RunOutcomePtr> out;
            for (const RunRequest& r : requests) {
                if (stale()) break;  // a newer change is waiting: this answer would be dropped
                auto outcome = std::make_shared<RunOutcome>();
                outcome->request = r;
                outcome->report = run_variant(r);
                out.push_back(std::move(outcome));
            }
            return out;
        },
        [this, since](const std::vector<RunOutcomePtr>& outcomes) {
            if (outcomes.empty()) return;
            d->liveLatencyMs = double(since.nsecsElapsed()) / 1e6;
            emit liveUpdated(outcomes.front(), d->liveLatencyMs);
        });
}

void RunPanel::rerun(const ps::RunRequest& request) {
    RunJob job;
    job.requests.push_back(request);
    job.requests.back().context.record = true;   // the window replays what comes back
    job.requests.back().executor = d->executor;  // where runs go now
    submit(std::move(job));
}

void RunPanel::submit(RunJob job) {
    job.historyPath = d->historyPath;
    d->jobSize = qsizetype(job.requests.size());
    d->arrived = 0;
    d->problems.clear();
    d->clock.start();
    d->job = d->worker->submit(std::move(job));
    d->progress->setValue(0);
    d->progress->setFormat(QStringLiteral("%p%"));
    d->progress->setVisible(true);
    d->cancel->setEnabled(true);
    setStatus(plural(d->jobSize, tr("Running 1 variant…"), tr("Running %1 variants…")), false);
}

void RunPanel::cancel() {
    if (!d->job) return;
    d->worker->cancel();
    setStatus(tr("Cancelling…"), false);
}

void RunPanel::arrive(RunOutcomePtr outcome) {
    ++d->arrived;
    d->results->add(outcome);
    d->table->resizeColumnsToContents();
    const QModelIndex row = d->sorted->mapFromSource(d->results->index(d->results->rowCount() - 1, 0));
    d->selecting = true;
    d->table->setCurrentIndex(row);
    d->table->scrollTo(row);
    d->selecting = false;
    emit outcomeSelected(outcome);

    const QString id = QString::fromStdString(outcome->request.variant_id);
    const RunResult& r = outcome->report.result;
    if (r.status != RunStatus::Ok)
        d->problems << tr("%1: %2").arg(id, sentence(QString::fromStdString(r.message)));
    else if (r.validation == Validation::Failed)
        d->problems << tr("%1 failed validation: %2").arg(id, QString::fromStdString(r.validation_message));
    if (!outcome->storeError.isEmpty()) d->problems << tr("%1 was not stored: %2").arg(id, outcome->storeError);
    if (outcome->storedRunId) emit outcomeStored(*outcome->storedRunId);
    if (!d->problems.isEmpty()) setStatus(d->problems.join(QLatin1Char('\n')), true);
}

void RunPanel::finish(bool cancelled) {
    d->job = 0;
    d->progress->setVisible(false);
    d->cancel->setEnabled(false);
    const QString seconds = QLocale().toString(double(d->clock.elapsed()) / 1000.0, 'f', 1);
    QString text;
    if (cancelled)
        text = tr("Cancelled after %1 of %2 (%3 s).").arg(d->arrived).arg(d->jobSize).arg(seconds);
    else
        text = plural(d->arrived, tr("Finished 1 run"), tr("Finished %1 runs")) + tr(" in %1 s.").arg(seconds);
    if (!d->problems.isEmpty()) text += QLatin1Char('\n') + d->problems.join(QLatin1Char('\n'));
    setStatus(text, !d->problems.isEmpty());
}

}  // namespace ps::ui
