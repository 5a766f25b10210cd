// ScenarioPanel (see scenario_panel.hpp).
#include "ui/run/scenario_panel.hpp"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "kernels/run/iteration_account.hpp"
#include "kernels/run/runner.hpp"

namespace ps::ui {

namespace {

// The file read and its lines checked against the map: what a worker hands back.
struct LoadedScenarios {
    QString error;  // the whole file is unusable
    ScenarioFile file;
};

LoadedScenarios readScenarios(const QString& path, const std::shared_ptr<const GridMap>& map) {
    LoadedScenarios out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        out.error = QObject::tr("cannot read %1: %2").arg(path, file.errorString());
        return out;
    }
    const QByteArray bytes = file.readAll();
    auto parsed = parse_movingai_scen(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                      QFileInfo(path).fileName().toStdString());
    if (!parsed) {
        out.error = QString::fromStdString(parsed.error().message);
        return out;
    }
    // Lines for another map, or with a start or goal in a wall, are left out with their line.
    const std::string source = QFileInfo(path).fileName().toStdString();
    for (Scenario& sc : parsed->scenarios) {
        const std::string where = source + ":" + std::to_string(sc.line) + ": ";
        if (!map) {
            out.file.scenarios.push_back(std::move(sc));
            continue;
        }
        if (sc.map_width != map->width() || sc.map_height != map->height())
            out.file.reject(sc.line, where + "the query is for a " + std::to_string(sc.map_width) + "x" +
                                         std::to_string(sc.map_height) + " map, this map is " +
                                         std::to_string(map->width()) + "x" + std::to_string(map->height()));
        else if (!map->passable(sc.start))
            out.file.reject(sc.line, where + "the start (" + std::to_string(sc.start.x) + "," +
                                         std::to_string(sc.start.y) + ") is in a wall");
        else if (!map->passable(sc.goal))
            out.file.reject(sc.line, where + "the goal (" + std::to_string(sc.goal.x) + "," +
                                         std::to_string(sc.goal.y) + ") is in a wall");
        else
            out.file.scenarios.push_back(std::move(sc));
    }
    for (ScenarioIssue& issue : parsed->rejected) out.file.reject(issue.line, std::move(issue.message));
    std::sort(out.file.rejected.begin(), out.file.rejected.end(),
              [](const ScenarioIssue& a, const ScenarioIssue& b) { return a.line < b.line; });
    out.file.rejected_count += parsed->rejected_count - parsed->rejected.size();
    return out;
}

// One query searched by one variant.
struct QueryOutcome {
    int query = 0;  // index into the panel's queries
    int variant = 0;
    bool ran = false;  // false: refused (the message says why)
    bool found = false;
    double cost = 0, ms = 0;
    std::uint64_t expanded = 0;
    double compute_ms = 0;
    std::map<std::string, double> counters;  // the GPU's iterations and moves (IterationAccount)
    QString message;
    // The query's file gives no optimal length (Scenario::has_length): astar.cpu's, searched
    // once per query on the worker, is the truth (truth_found false: it finds no path).
    bool truth_from_astar = false, truth_found = true;
    double truth = 0;
};

// Whether the outcome is at the truth: the file's length, or astar.cpu's where the file gives none.
bool atOptimum(const QueryOutcome& o, double optimal) {
    if (o.truth_from_astar) {
        if (!o.truth_found) return !o.found;
        optimal = o.truth;
    }
    return o.found && std::fabs(o.cost - optimal) <= 1e-4 * std::max(1.0, optimal);
}

QString cellText(Cell c) { return QStringLiteral("%1,%2").arg(c.x).arg(c.y); }

}  // namespace

struct ScenarioPanel::Private {
    std::function<std::shared_ptr<const GridMap>()> mapSource;
    std::function<QStringList()> variantSource;
    std::vector<Scenario> queries;
    QStringList notes;  // the lines left out
    QStandardItemModel* model = nullptr;
    QTableView* view = nullptr;
    QLabel* message = nullptr;
    QProgressBar* progress = nullptr;
    QPushButton* runButton = nullptr;
    QPushButton* cancelButton = nullptr;
    QSpinBox* every = nullptr;
    LatestJob loading, checking;
    std::shared_ptr<std::atomic<bool>> cancel;
    bool running = false;

    void setRunning(bool on) {
        running = on;
        runButton->setEnabled(!on && !queries.empty());
        cancelButton->setEnabled(on);
        progress->setVisible(on);
    }
};

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>()) {
    d->model = new QStandardItemModel(this);
    d->view = new QTableView(this);
    d->view->setModel(d->model);
    d->view->setSelectionBehavior(QAbstractItemView::SelectRows);
    d->view->setSelectionMode(QAbstractItemView::SingleSelection);
    d->view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    d->view->verticalHeader()->hide();
    d->view->horizontalHeader()->setStretchLastSection(true);
    connect(d->view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid() || current.row() >= int(d->queries.size())) return;
                const Scenario& sc = d->queries[std::size_t(current.row())];
                emit querySelected(sc.start, sc.goal);
            });

    auto* open = new QPushButton(tr("Open .scen…"), this);
    open->setToolTip(tr("A MovingAI scenario file for the map in the editor"));
    connect(open, &QPushButton::clicked, this, &ScenarioPanel::chooseFile);
    d->every = new QSpinBox(this);
    d->every->setRange(1, 1000);
    d->every->setPrefix(tr("every "));
    d->every->setToolTip(tr("Search every k-th query of the list"));
    d->runButton = new QPushButton(tr("Run"), this);
    d->runButton->setToolTip(
        tr("Search the queries with the variants ticked in the Run dock (MovingAI's rule: "
           "8-connected, no corner cutting, real costs)"));
    d->cancelButton = new QPushButton(tr("Cancel"), this);
    connect(d->runButton, &QPushButton::clicked, this, &ScenarioPanel::run);
    connect(d->cancelButton, &QPushButton::clicked, this, &ScenarioPanel::cancel);
    d->progress = new QProgressBar(this);
    d->message = new QLabel(tr("Open a MovingAI .scen file for this map."), this);
    d->message->setWordWrap(true);
    d->message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* controls = new QHBoxLayout;
    controls->addWidget(open);
    controls->addWidget(d->every);
    controls->addWidget(d->runButton);
    controls->addWidget(d->cancelButton);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(d->progress);
    layout->addWidget(d->view, 1);
    layout->addWidget(d->message);
    d->setRunning(false);
}

ScenarioPanel::~ScenarioPanel() {
    if (d->cancel) d->cancel->store(true);  // the worker ends soon; its answer dies with us
}

void ScenarioPanel::setMapSource(std::function<std::shared_ptr<const GridMap>()> source) {
    d->mapSource = std::move(source);
}
void ScenarioPanel::setVariantSource(std::function<QStringList()> source) { d->variantSource = std::move(source); }
void ScenarioPanel::setEvery(int k) { d->every->setValue(k); }
QStandardItemModel* ScenarioPanel::model() const { return d->model; }
QTableView* ScenarioPanel::view() const { return d->view; }
QString ScenarioPanel::message() const { return d->message->text(); }
const std::vector<Scenario>& ScenarioPanel::queries() const { return d->queries; }
bool ScenarioPanel::running() const { return d->running; }

void ScenarioPanel::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a scenario file"), QString(),
                                                      tr("MovingAI scenarios (*.scen);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

void ScenarioPanel::openFile(const QString& path) {
    cancel();
    d->checking.drop();  // a run's answer would land in the new file's rows
    d->setRunning(false);
    d->message->setText(tr("Reading %1…").arg(path));
    const auto map = d->mapSource ? d->mapSource() : nullptr;
    d->loading.start(
        this, [path, map] { return readScenarios(path, map); },
        [this](const LoadedScenarios& file) {
            d->queries.clear();
            d->notes.clear();
            if (!file.error.isEmpty()) {
                showQueries();
                d->message->setText(file.error);
                emit loaded(0, 0);
                return;
            }
            d->queries = file.file.scenarios;
            for (const ScenarioIssue& issue : file.file.rejected) d->notes << QString::fromStdString(issue.message);
            showQueries();
            emit loaded(int(d->queries.size()), int(file.file.rejected_count));
        });
}

void ScenarioPanel::showQueries() {
    d->model->clear();
    d->model->setHorizontalHeaderLabels({tr("Line"), tr("Bucket"), tr("Start"), tr("Goal"), tr("Optimal")});
    for (const Scenario& sc : d->queries) {
        QList<QStandardItem*> row{
            new QStandardItem(QString::number(sc.line)), new QStandardItem(QString::number(sc.bucket)),
            new QStandardItem(cellText(sc.start)), new QStandardItem(cellText(sc.goal)),
            new QStandardItem(sc.has_length() ? QString::number(sc.optimal_length, 'f', 4) : tr("none"))};
        if (!sc.has_length())
            row.back()->setToolTip(
                tr("the file gives 0 between two cells, no length: a run checks this query "
                   "against astar.cpu's cost"));
        d->model->appendRow(row);
    }
    QString text = tr("%n queries", nullptr, int(d->queries.size()));
    if (!d->notes.isEmpty())
        text += tr("; %n line(s) left out:", nullptr, int(d->notes.size())) + QLatin1Char('\n') +
                d->notes.mid(0, 5).join(QLatin1Char('\n')) + (d->notes.size() > 5 ? QStringLiteral("\n…") : QString());
    d->message->setText(text);
    d->view->resizeColumnsToContents();
    d->setRunning(false);
}

void ScenarioPanel::run() {
    if (d->running || d->queries.empty()) return;
    const QStringList variants = d->variantSource ? d->variantSource() : QStringList();
    const auto map = d->mapSource ? d->mapSource() : nullptr;
    if (variants.isEmpty() || !map) {
        d->message->setText(tr("Tick one or more variants in the Run dock first."));
        return;
    }
    showQueries();  // the results of an earlier run go
    std::vector<std::pair<int, Scenario>> picked;
    for (std::size_t i = 0; i < d->queries.size(); i += std::size_t(d->every->value()))
        picked.emplace_back(int(i), d->queries[i]);
    auto cancelFlag = d->cancel = std::make_shared<std::atomic<bool>>(false);
    d->setRunning(true);
    d->progress->setRange(0, int(picked.size() * std::size_t(variants.size())));
    d->progress->setValue(0);
    QPointer<QProgressBar> bar = d->progress;
    std::vector<std::string> ids;
    for (const QString& v : variants) ids.push_back(v.toStdString());
    d->checking.start(
        this,
        [picked, ids, map, cancelFlag, bar] {
            std::vector<QueryOutcome> out;
            int done = 0;
            // The query searched once by variant `id` under MovingAI's rules, not validated (the
            // file's length, or astar.cpu's cost where it gives none, is the truth here).
            auto search = [&map, &cancelFlag](const std::string& id, const Scenario& sc) {
                RunRequest r;
                r.variant_id = id;
                r.problem.map = map;
                r.problem.rules = {Connectivity::Eight, CornerRule::None};
                r.problem.cost_mode = CostMode::Real;
                r.problem.heuristic = Heuristic::Octile;
                r.problem.start = map->index(sc.start);
                r.problem.goal = map->index(sc.goal);
                r.repeat = 1;
                r.warmup = 0;
                r.validate = false;
                r.context.cancel = cancelFlag.get();
                return run_variant(r);
            };
            for (const auto& [index, sc] : picked) {
                // No length in the file: astar.cpu's cost, once per query, is the truth.
                bool fromAstar = false, truthFound = true;
                double truth = 0;
                if (!sc.has_length()) {
                    const RunReport truthReport = search("astar.cpu", sc);
                    fromAstar = truthReport.result.status == RunStatus::Ok;
                    truthFound = truthReport.result.found;
                    truth = truthReport.result.cost;
                }
                for (int v = 0; v < int(ids.size()); ++v) {
                    if (cancelFlag->load()) return out;
                    const RunReport report = search(ids[std::size_t(v)], sc);
                    QueryOutcome o;
                    o.query = index;
                    o.variant = v;
                    o.ran = report.result.status == RunStatus::Ok;
                    o.found = report.result.found;
                    o.cost = report.result.cost;
                    o.expanded = report.result.expanded;
                    o.ms = report.result.phases.total_ms;
                    o.compute_ms = report.result.phases.compute_ms;
                    o.counters = report.result.counters;
                    o.message = QString::fromStdString(report.result.message);
                    o.truth_from_astar = fromAstar;
                    o.truth_found = truthFound;
                    o.truth = truth;
                    out.push_back(std::move(o));
                    ++done;
                    QMetaObject::invokeMethod(
                        bar,
                        [bar, done] {
                            if (bar) bar->setValue(done);
                        },
                        Qt::QueuedConnection);
                }
            }
            return out;
        },
        [this, variants](const std::vector<QueryOutcome>& outcomes) {
            const int first = FixedColumns;
            QStringList headers;
            for (const QString& v : variants)
                headers << tr("%1 cost").arg(v) << tr("%1 expanded").arg(v) << tr("%1 ms").arg(v);
            for (int c = 0; c < headers.size(); ++c)
                d->model->setHorizontalHeaderItem(first + c, new QStandardItem(headers[c]));
            std::vector<int> checked(std::size_t(variants.size()), 0), failed(checked);
            std::vector<IterationAccount> accounts(std::size_t(variants.size()));
            for (const QueryOutcome& o : outcomes) {
                if (o.ran) accounts[std::size_t(o.variant)].add(o.compute_ms, o.counters);
                const double optimal = d->queries[std::size_t(o.query)].optimal_length;
                const int column = first + 3 * o.variant;
                auto* cost = new QStandardItem;
                if (!o.ran) {
                    cost->setText(tr("refused"));
                    cost->setToolTip(o.message);
                } else {
                    ++checked[std::size_t(o.variant)];
                    const bool ok = atOptimum(o, optimal);
                    cost->setText(o.found ? QString::number(o.cost, 'f', 4) : tr("no path"));
                    cost->setData(!ok, FailedRole);
                    if (!ok) {
                        ++failed[std::size_t(o.variant)];
                        cost->setBackground(QColor(0xf4, 0xb4, 0xb4));
                        cost->setToolTip(o.truth_from_astar
                                             ? (o.truth_found ? tr("astar.cpu's cost is %1 (the file gives no "
                                                                   "optimal length)")
                                                                    .arg(o.truth, 0, 'f', 4)
                                                              : tr("astar.cpu finds no path (the file gives no "
                                                                   "optimal length)"))
                                             : tr("the file's optimal length is %1").arg(optimal, 0, 'f', 4));
                    }
                }
                d->model->setItem(o.query, column, cost);
                d->model->setItem(o.query, column + 1,
                                  new QStandardItem(o.ran ? QString::number(o.expanded) : QString()));
                d->model->setItem(o.query, column + 2,
                                  new QStandardItem(o.ran ? QString::number(o.ms, 'f', 3) : QString()));
            }
            QStringList lines;
            int allChecked = 0, allFailed = 0;
            for (int v = 0; v < variants.size(); ++v) {
                lines << tr("%1: %2 of %3 at the optimal length")
                                 .arg(variants[v])
                                 .arg(checked[std::size_t(v)] - failed[std::size_t(v)])
                                 .arg(checked[std::size_t(v)]) +
                             (failed[std::size_t(v)] ? tr(", %n wrong (red)", nullptr, failed[std::size_t(v)])
                                                     : QString());
                if (const IterationAccount& a = accounts[std::size_t(v)]; a.counted())
                    lines << tr("  where its GPU compute goes: %1").arg(QString::fromStdString(a.text()));
                allChecked += checked[std::size_t(v)];
                allFailed += failed[std::size_t(v)];
            }
            if (d->cancel && d->cancel->load()) lines << tr("cancelled: the queries above were searched");
            d->message->setText(lines.join(QLatin1Char('\n')));
            d->view->resizeColumnsToContents();
            d->setRunning(false);
            emit runFinished(allChecked, allFailed);
        });
}

void ScenarioPanel::cancel() {
    if (d->cancel) d->cancel->store(true);
}

}  // namespace ps::ui
