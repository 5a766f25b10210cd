// The timeline dock (see timeline_panel.hpp).
#include "ui/timeline/timeline_panel.hpp"

#include <QShortcut>
#include <QSplitter>
#include <QVBoxLayout>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "instrumentation/timeline/timeline_layout.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "ui/common/async.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/stats/timeline_stats_view.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

namespace {

struct StoredTimelines {
    std::vector<TimelineModelPtr> models;  // laid out here, off the GUI thread
    trace::Provenance provenance;          // of the first run
    QString error;                         // the file could not be read
    QString untraced;                      // a run has no events: said in the view, not as an error
};

// Blocking: runs on a worker thread with its own read-only History.
StoredTimelines loadStoredTimelines(const QString& path, const std::vector<std::int64_t>& ids) {
    StoredTimelines out;
    auto history = db::History::open(path.toStdString(), db::OpenMode::ReadOnly);
    if (!history) {
        out.error = QString::fromStdString(history.error().message);
        return out;
    }
    for (const std::int64_t id : ids) {
        auto run = history->load_run(id, true);
        if (!run) {
            out.error = QString::fromStdString(run.error().message);
            return out;
        }
        if (run->events.empty()) {
            out.untraced = TimelinePanel::tr(
                               "Run %1 has no timeline: it was not traced (run GPU variants with "
                               "tracing on to see one).")
                               .arg(id);
            return out;
        }
        if (out.models.empty()) out.provenance = runProvenance(run->row);
        // A BFS run's edges per level, counted again from its map and levels: its per-level MTEPS.
        TimelineRunFacts facts{{}, run->row.map_hash, run->row.map_name};
        if (auto edges = db::stored_level_edges(*history, run->row)) facts.levelEdges = std::move(edges).value();
        out.models.push_back(
            makeTimelineModel(std::make_shared<const trace::Timeline>(db::decode_timeline(run->events)),
                              TimelinePanel::tr("run %1 %2").arg(id).arg(QString::fromStdString(run->row.info.variant)),
                              {}, std::move(facts)));
    }
    return out;
}

trace::Provenance outcomeProvenance(const RunOutcome& outcome) {
    trace::Provenance p;
    p.variant = outcome.report.info.id;
    if (const auto& map = outcome.request.problem.map)
        p.map = map->name + ' ' + std::to_string(map->width()) + 'x' + std::to_string(map->height());
    // gpu_info() is cached by the time a GPU run has finished: no device query on this thread.
    p.device = outcome.report.info.device == DeviceKind::Gpu ? gpu_info().name : db::cpu_model();
    p.build = "build " + db::build_commit();
    return p;
}

}  // namespace

struct TimelinePanel::Private {
    TimelineWidget* view = nullptr;
    TimelineStatsView* stats = nullptr;
    LatestJob loading;  // the newest request wins
};

TimelinePanel::TimelinePanel(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>()) {
    d->view = new TimelineWidget(this);
    // The statistics under the plot; the splitter lets the plot have the height when reading it.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(true);
    split->addWidget(d->view);
    d->stats = new TimelineStatsView(d->view, split);
    split->addWidget(d->stats);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // Lecture mode gives the rows and the caption all the height.
    connect(d->view, &TimelineWidget::lectureModeChanged, d->stats, [this](bool on) { d->stats->setVisible(!on); });
    // Ctrl+F from the statistics too (the timeline widget has its own for itself and its children).
    auto* find = new QShortcut(QKeySequence::Find, d->stats);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, d->view, &TimelineWidget::focusSearch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    connect(d->view, &TimelineWidget::levelSelected, this,
            [this](int level) { emit levelSelected(level, d->view->levelCount()); });
}

TimelinePanel::~TimelinePanel() = default;

TimelineWidget* TimelinePanel::view() const { return d->view; }

TimelineStatsView* TimelinePanel::stats() const { return d->stats; }

void TimelinePanel::showAnimationFrame(int frame, int frameCount) {
    if (d->view->levelCount() > 0)
        d->view->setCursorLevel(trace::level_of_frame(frame, d->view->levelCount(), frameCount));
}

void TimelinePanel::showOutcome(const RunOutcomePtr& outcome) {
    d->loading.drop();  // a stored run still loading must not replace this one
    if (!outcome) return;
    const trace::Provenance provenance = outcomeProvenance(*outcome);
    if (!outcome->report.timeline) {
        d->view->setProvenance(provenance);
        d->view->showMessage(tr("%1 was not traced: run it with tracing on to see its timeline.")
                                 .arg(QString::fromStdString(outcome->report.info.id)));
        return;
    }
    // Laid out off the GUI thread: a long trace takes tens of milliseconds.
    d->loading.start(
        this,
        [timeline = outcome->report.timeline, label = QString::fromStdString(outcome->report.info.id),
         load = outcome->report.agent_load,
         facts = TimelineRunFacts{outcome->report.level_edges, {}, {}}] {  // shown alone: no map to compare
            return makeTimelineModel(timeline, label, load ? trace::describe(*load) : std::string(), facts);
        },
        [this, provenance](const TimelineModelPtr& model) {
            d->view->setProvenance(provenance);
            d->view->setModels({model});
        });
}

void TimelinePanel::showStoredRuns(const QString& historyPath, const std::vector<std::int64_t>& runIds) {
    if (runIds.empty() || runIds.size() > 2 || historyPath.isEmpty()) return;
    d->loading.start(
        this, [historyPath, runIds] { return loadStoredTimelines(historyPath, runIds); },
        [this](const StoredTimelines& loaded) {
            if (!loaded.error.isEmpty()) {
                emit statusMessage(loaded.error);
                return;
            }
            if (!loaded.untraced.isEmpty()) {
                d->view->showMessage(loaded.untraced);
                return;
            }
            d->view->setProvenance(loaded.provenance);
            d->view->setModels(loaded.models);
        });
}

}  // namespace ps::ui
