// The timeline's statistics tabs (see timeline_stats_view.hpp).
#include "ui/timeline/stats/timeline_stats_view.hpp"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <sstream>

#include "instrumentation/timeline/timeline_layout.hpp"
#include "ui/common/async.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/timeline/stats/level_diff_view.hpp"
#include "ui/timeline/stats/timeline_stats_model.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

namespace {

QTableView* makeTable(QWidget* parent, QAbstractItemModel* model) {
    auto* table = new QTableView(parent);
    table->setModel(model);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    return table;
}

QSortFilterProxyModel* makeProxy(QObject* parent, QAbstractItemModel* source, int sortRole) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(sortRole);
    return proxy;
}

// Columns fit their contents, the name column no wider than a third of the view (long
// demangled kernel names are elided in the middle; the tooltip has them whole).
void fitColumns(QTableView* table) {
    table->resizeColumnsToContents();
    const int limit = std::max(320, table->width() / 3);
    if (table->columnWidth(0) > limit) table->setColumnWidth(0, limit);
}

QString axisText(double ns) {
    const auto rounded = std::int64_t(std::llround(ns));
    const QString text = QString::fromStdString(trace::format_duration(rounded < 0 ? -rounded : rounded));
    return rounded < 0 ? QStringLiteral("\u2212") + text : text;
}

}  // namespace

// What a worker computes for one request: the summary, and the range's statistics if any.
struct ComputedStats {
    trace::TraceSummary summary;
    std::optional<trace::RangeStats> range;
    double ms = 0;
};

struct TimelineStatsView::Private {
    TimelineWidget* view = nullptr;
    QComboBox* runChooser = nullptr;
    QLabel* runLabel = nullptr;
    QTabWidget* tabs = nullptr;

    // Summary
    QTabWidget* summaryTabs = nullptr;
    QLabel* scope = nullptr;
    QLabel* graphs = nullptr;
    std::array<NameStatsModel*, TableCount> models{};
    std::array<QSortFilterProxyModel*, TableCount> proxies{};
    std::array<QTableView*, TableCount> tables{};
    trace::TraceSummary summary;

    // Range
    QLabel* rangeHeader = nullptr;
    RowStatsModel* rowsModel = nullptr;
    NameStatsModel* namesModel = nullptr;
    QTableView* rowsTable = nullptr;
    QTableView* namesTable = nullptr;
    QPushButton* copyRange = nullptr;
    QPushButton* exportRange = nullptr;
    std::optional<trace::RangeStats> range;
    int rangeRun = 0;  // the run `range` is of

    LevelDiffView* levelDiff = nullptr;
    double computeMs = 0;
    LatestJob job;  // a newer range or run wins
    bool pending = false;
};

TimelineStatsView::TimelineStatsView(TimelineWidget* view, QWidget* parent)
    : QWidget(parent), d(std::make_unique<Private>()) {
    d->view = view;
    d->tabs = new QTabWidget(this);
    d->tabs->setDocumentMode(true);

    // ---- Summary tab
    auto* summaryPage = new QWidget(d->tabs);
    d->scope = new QLabel(summaryPage);
    d->graphs = new QLabel(summaryPage);
    d->graphs->setVisible(false);
    auto* copySummaryButton = new QPushButton(tr("Copy"), summaryPage);
    copySummaryButton->setToolTip(tr("The tables as aligned text, as nsys stats prints them"));
    auto* exportSummaryButton = new QPushButton(tr("Export CSV\u2026"), summaryPage);
    connect(copySummaryButton, &QPushButton::clicked, this, &TimelineStatsView::copySummary);
    connect(exportSummaryButton, &QPushButton::clicked, this, &TimelineStatsView::exportSummaryDialog);
    d->summaryTabs = new QTabWidget(summaryPage);
    const char* names[TableCount] = {QT_TR_NOOP("Kernels"), QT_TR_NOOP("Device levels"), QT_TR_NOOP("CUDA API"),
                                     QT_TR_NOOP("Memory"), QT_TR_NOOP("NVTX")};
    for (int t = 0; t < TableCount; ++t) {
        d->models[std::size_t(t)] = new NameStatsModel(this);
        d->proxies[std::size_t(t)] = makeProxy(this, d->models[std::size_t(t)], NameStatsModel::SortRole);
        QTableView* table = makeTable(d->summaryTabs, d->proxies[std::size_t(t)]);
        table->sortByColumn(NameStatsModel::Total, Qt::DescendingOrder);
        table->setToolTip(tr("Select rows to highlight their items on the timeline"));
        d->tables[std::size_t(t)] = table;
        d->summaryTabs->addTab(table, tr(names[t]));
        NameStatsModel* model = d->models[std::size_t(t)];
        connect(table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
                [this, table, model] { highlightSelection(table, model); });
    }
    auto* summaryHeader = new QHBoxLayout;
    summaryHeader->addWidget(d->scope, 1);
    summaryHeader->addWidget(d->graphs);
    summaryHeader->addWidget(copySummaryButton);
    summaryHeader->addWidget(exportSummaryButton);
    auto* summaryLayout = new QVBoxLayout(summaryPage);
    summaryLayout->setContentsMargins(2, 2, 2, 2);
    summaryLayout->addLayout(summaryHeader);
    summaryLayout->addWidget(d->summaryTabs, 1);
    d->tabs->addTab(summaryPage, tr("Summary"));

    // ---- Range tab
    auto* rangePage = new QWidget(d->tabs);
    d->rangeHeader = new QLabel(rangePage);
    d->rangeHeader->setWordWrap(true);
    d->rangeHeader->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->copyRange = new QPushButton(tr("Copy"), rangePage);
    d->copyRange->setToolTip(tr("The range's statistics as text"));
    d->exportRange = new QPushButton(tr("Export CSV\u2026"), rangePage);
    connect(d->copyRange, &QPushButton::clicked, this, &TimelineStatsView::copyRange);
    connect(d->exportRange, &QPushButton::clicked, this, &TimelineStatsView::exportRangeDialog);
    d->rowsModel = new RowStatsModel(this);
    d->namesModel = new NameStatsModel(this);
    d->rowsTable = makeTable(rangePage, makeProxy(this, d->rowsModel, RowStatsModel::SortRole));
    d->rowsTable->sortByColumn(-1, Qt::AscendingOrder);  // track order, as range_stats gives them
    d->namesTable = makeTable(rangePage, makeProxy(this, d->namesModel, NameStatsModel::SortRole));
    d->namesTable->sortByColumn(NameStatsModel::Total, Qt::DescendingOrder);
    d->namesTable->setToolTip(tr("Select rows to highlight their items on the timeline"));
    connect(d->namesTable->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { highlightSelection(d->namesTable, d->namesModel); });
    auto* rangeButtons = new QHBoxLayout;
    rangeButtons->addWidget(d->rangeHeader, 1);
    rangeButtons->addWidget(d->copyRange, 0, Qt::AlignTop);
    rangeButtons->addWidget(d->exportRange, 0, Qt::AlignTop);
    auto* split = new QSplitter(Qt::Horizontal, rangePage);
    split->addWidget(d->rowsTable);
    split->addWidget(d->namesTable);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* rangeLayout = new QVBoxLayout(rangePage);
    rangeLayout->setContentsMargins(2, 2, 2, 2);
    rangeLayout->addLayout(rangeButtons);
    rangeLayout->addWidget(split, 1);
    d->tabs->addTab(rangePage, tr("Range"));

    // ---- Per-level difference tab
    d->levelDiff = new LevelDiffView(d->tabs);
    d->tabs->addTab(d->levelDiff, tr("Per-level difference"));

    // ---- Run chooser (compare mode)
    d->runLabel = new QLabel(tr("Statistics of"), this);
    d->runChooser = new QComboBox(this);
    connect(d->runChooser, &QComboBox::currentIndexChanged, this, [this] { updateStats(); });
    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(d->runLabel);
    top->addWidget(d->runChooser);
    top->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(d->tabs, 1);

    connect(view, &TimelineWidget::modelsChanged, this, &TimelineStatsView::refresh);
    connect(view, &TimelineWidget::rangeChanged, this, [this] {
        updateStats();
        // A new range is what the user wants to read about, unless the summary (which follows
        // the range too) is in front.
        if (d->view->selectedRange() && d->tabs->currentIndex() != SummaryTab) d->tabs->setCurrentIndex(RangeTab);
    });
    refresh();
}

TimelineStatsView::~TimelineStatsView() = default;

QTabWidget* TimelineStatsView::tabs() const { return d->tabs; }

int TimelineStatsView::run() const { return std::max(0, d->runChooser->currentIndex()); }

void TimelineStatsView::setRun(int run) {
    if (run >= 0 && run < d->runChooser->count()) d->runChooser->setCurrentIndex(run);
}

const trace::TraceSummary& TimelineStatsView::summary() const { return d->summary; }

NameStatsModel* TimelineStatsView::summaryModel(Table table) const { return d->models[std::size_t(table)]; }

QSortFilterProxyModel* TimelineStatsView::summaryProxy(Table table) const { return d->proxies[std::size_t(table)]; }

QTableView* TimelineStatsView::summaryTable(Table table) const { return d->tables[std::size_t(table)]; }

QTabWidget* TimelineStatsView::summaryTabs() const { return d->summaryTabs; }

QString TimelineStatsView::graphText() const {
    if (d->summary.graph_launches == 0 && d->summary.graph_node_executions == 0) return {};
    return tr("CUDA graphs: %1 graph launches ran %2 graph node executions")
        .arg(d->summary.graph_launches)
        .arg(d->summary.graph_node_executions);
}

QString TimelineStatsView::summaryScopeText() const { return d->scope->text(); }

const std::optional<trace::RangeStats>& TimelineStatsView::rangeStats() const { return d->range; }

RowStatsModel* TimelineStatsView::rangeRowsModel() const { return d->rowsModel; }

NameStatsModel* TimelineStatsView::rangeNamesModel() const { return d->namesModel; }

QTableView* TimelineStatsView::rangeNamesTable() const { return d->namesTable; }

QString TimelineStatsView::rangeHeaderText() const { return d->rangeHeader->text(); }

LevelDiffView* TimelineStatsView::levelDiff() const { return d->levelDiff; }

double TimelineStatsView::lastComputeMs() const { return d->computeMs; }

void TimelineStatsView::refresh() {
    updateRuns();
    updateStats();
}

void TimelineStatsView::updateRuns() {
    const int runs = d->view->runCount();
    {
        const QSignalBlocker block(d->runChooser);
        d->runChooser->clear();
        for (int r = 0; r < runs; ++r) {
            d->runChooser->addItem(runs > 1 ? (r == 0 ? tr("A: %1") : tr("B: %1")).arg(d->view->runLabel(r))
                                            : d->view->runLabel(r));
        }
    }
    d->runLabel->setVisible(runs > 1);
    d->runChooser->setVisible(runs > 1);
    const bool compare = runs == 2;
    d->tabs->setTabVisible(LevelDiffTab, compare);
    if (compare)
        d->levelDiff->setRuns(d->view->model(0), d->view->model(1));
    else
        d->levelDiff->setRuns(nullptr, nullptr);
}

void TimelineStatsView::updateStats() {
    const int r = run();
    const auto timeline = d->view->timeline(r);
    const auto range = timeline ? d->view->selectedTimeRange(r) : std::nullopt;
    if (!timeline) {
        d->job.drop();
        d->pending = false;
        apply(ComputedStats{}, r);
        emit updated();
        return;
    }
    // Off the GUI thread: on 100,000 events the summary and a range's statistics take tens of
    // milliseconds. The timeline is immutable and shared, so the worker may read it.
    d->pending = true;
    d->job.start(
        this,
        [timeline, range] {
            QElapsedTimer clock;
            clock.start();
            ComputedStats c;
            c.summary = trace::trace_summary(*timeline, range);
            if (range) c.range = trace::range_stats(*timeline, *range);
            c.ms = double(clock.nsecsElapsed()) / 1e6;
            return c;
        },
        [this, r](ComputedStats computed) {
            d->pending = false;
            apply(std::move(computed), r);
            emit updated();
        });
}

bool TimelineStatsView::pending() const { return d->pending; }

void TimelineStatsView::apply(ComputedStats computed, int r) {
    const auto timeline = d->view->timeline(r);
    d->computeMs = computed.ms;
    // Summary: the run, or what starts in the range.
    d->summary = std::move(computed.summary);
    const std::vector<trace::NameStats>* tables[TableCount] = {&d->summary.kernels, &d->summary.device_levels,
                                                               &d->summary.api, &d->summary.memory, &d->summary.nvtx};
    const char* names[TableCount] = {QT_TR_NOOP("Kernels"), QT_TR_NOOP("Device levels"), QT_TR_NOOP("CUDA API"),
                                     QT_TR_NOOP("Memory"), QT_TR_NOOP("NVTX")};
    for (int t = 0; t < TableCount; ++t) {
        d->models[std::size_t(t)]->setRows(*tables[t], t == Memory);
        d->summaryTabs->setTabText(t, QStringLiteral("%1 (%2)").arg(tr(names[t])).arg(tables[t]->size()));
        fitColumns(d->tables[std::size_t(t)]);
    }
    if (!timeline)
        d->scope->setText(tr("No timeline."));
    else if (d->summary.range)
        d->scope->setText(tr("Items that start in the range %1").arg(d->view->selectedRangeText()));
    else
        d->scope->setText(tr("The whole run (Ctrl+drag on the timeline for a range)"));
    d->graphs->setText(graphText());
    d->graphs->setVisible(!d->graphs->text().isEmpty());

    // Range statistics.
    d->range = std::move(computed.range);
    d->rangeRun = r;
    d->rowsModel->setRows(d->range ? d->range->rows : std::vector<trace::RowStats>{});
    d->namesModel->setRows(d->range ? d->range->names : std::vector<trace::NameStats>{}, false, tr("% of range"));
    fitColumns(d->rowsTable);
    fitColumns(d->namesTable);
    d->copyRange->setEnabled(d->range.has_value());
    d->exportRange->setEnabled(d->range.has_value());
    const auto selected = d->view->selectedRange();
    if (!d->range || !selected) {
        d->rangeHeader->setText(tr("No range: Ctrl+drag on the timeline to select one (Escape clears it)."));
        return;
    }
    const trace::RangeStats& s = *d->range;
    auto dur = [](double ns) { return QString::fromStdString(trace::format_duration(std::llround(ns))); };
    d->rangeHeader->setText(
        tr("<b>%1 \u2013 %2</b>, %3 long. GPU busy <b>%4%</b> (%5). Gaps: %6, %7 in all, max %8.")
            .arg(axisText(selected->first), axisText(selected->second), dur(double(s.range.length_ns())))
            .arg(QLocale().toString(s.gpu_busy_percent, 'f', 1), dur(double(s.gpu_busy_ns)))
            .arg(s.gap_time.count)
            .arg(dur(double(s.gap_time.total_ns)), dur(double(s.gap_time.max_ns))));
}

void TimelineStatsView::highlightSelection(QTableView* table, NameStatsModel* model) {
    const int r = run();
    const auto* proxy = static_cast<const QSortFilterProxyModel*>(table->model());
    std::vector<std::uint32_t> events;
    for (const QModelIndex& index : table->selectionModel()->selectedRows()) {
        const int row = proxy->mapToSource(index).row();
        if (row < 0 || row >= model->rowCount()) continue;
        const auto& e = model->stats(row).events;
        events.insert(events.end(), e.begin(), e.end());
    }
    // The rows' items alone: another run's highlight (search matches) goes too.
    d->view->clearHighlight();
    if (!events.empty()) d->view->setHighlight(r, std::move(events));
}

QString TimelineStatsView::rangeText() const {
    if (!d->range) return {};
    const auto timeline = d->view->timeline(d->rangeRun);
    if (!timeline) return {};
    const std::int64_t origin = d->view->toRunTime(d->rangeRun, 0.0);
    return QString::fromStdString(trace::format_range(*timeline, *d->range, origin));
}

QByteArray TimelineStatsView::rangeCsv() const {
    if (!d->range) return {};
    std::ostringstream out;
    trace::write_range_csv(*d->range, out);
    return QByteArray::fromStdString(out.str());
}

QByteArray TimelineStatsView::summaryCsv() const {
    std::ostringstream out;
    trace::write_summary_csv(d->summary, out);
    return QByteArray::fromStdString(out.str());
}

void TimelineStatsView::copyRange() {
    if (d->range) QApplication::clipboard()->setText(rangeText());
}

void TimelineStatsView::copySummary() {
    QApplication::clipboard()->setText(QString::fromStdString(trace::format_summary(d->summary)));
}

void TimelineStatsView::exportRangeDialog() {
    if (!d->range) return;
    saveWithDialog(this, QStringLiteral("range-stats.csv"), tr("CSV (*.csv)"),
                   [bytes = rangeCsv()](const QString&, QByteArray* out, QString*) {
                       *out = bytes;
                       return true;
                   });
}

void TimelineStatsView::exportSummaryDialog() {
    saveWithDialog(this, QStringLiteral("trace-summary.csv"), tr("CSV (*.csv)"),
                   [bytes = summaryCsv()](const QString&, QByteArray* out, QString*) {
                       *out = bytes;
                       return true;
                   });
}

}  // namespace ps::ui
