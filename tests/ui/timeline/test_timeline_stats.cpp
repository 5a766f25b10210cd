// The timeline's statistics in the dock, on the traces recorded on the H100 (tests/data): a
// Ctrl+drag on the plot selects a range whose statistics equal trace::range_stats of that range
// computed here from the pixels; Copy and Export CSV carry format_range / write_range_csv; the
// summary tables equal trace::trace_summary (for the run, then for the range) and sort by
// number, not text; selecting a row highlights its items on the timeline, drawn within the
// per-pixel bound; graph launches are counted apart; comparing two runs gives the per-level
// difference of trace::level_diff, with each BFS level's edges and MTEPS for two stored runs of
// hand-counted maps given hand-built level times, and a note when the runs searched different
// maps. Also measures (prints, never asserts) the statistics' time on 100,000 events.
#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <sstream>

#include "database/recorder.hpp"
#include "instrumentation/timeline/trace_stats.hpp"
#include "kernels/run/runner.hpp"
#include "tests/support/level_timeline.hpp"
#include "tests/ui/support/recorded_traces.hpp"
#include "tests/ui/support/timeline_fixture.hpp"
#include "ui/timeline/stats/level_diff_view.hpp"
#include "ui/timeline/timeline_panel.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/stats/timeline_stats_model.hpp"
#include "ui/timeline/stats/timeline_stats_view.hpp"
#include "ui/timeline/timeline_widget.hpp"

using namespace ps;
using namespace ps::ui;

namespace {

bool sameStats(const trace::DurationStats& a, const trace::DurationStats& b) {
    return a.count == b.count && a.total_ns == b.total_ns && a.min_ns == b.min_ns && a.max_ns == b.max_ns &&
           a.mean_ns == b.mean_ns && a.median_ns == b.median_ns && a.stddev_ns == b.stddev_ns;
}

bool sameNames(const std::vector<trace::NameStats>& a, const std::vector<trace::NameStats>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].kind != b[i].kind || !sameStats(a[i].time, b[i].time) ||
            a[i].percent != b[i].percent || a[i].bytes != b[i].bytes || a[i].events != b[i].events)
            return false;
    return true;
}

// The model's rows, cell by cell, against the summary's (in the model's own order).
void checkModel(const NameStatsModel& model, const std::vector<trace::NameStats>& rows, bool memory) {
    QCOMPARE(model.rowCount(), int(rows.size()));
    QCOMPARE(model.columnCount(), memory ? int(NameStatsModel::ColumnCount) : int(NameStatsModel::Bytes));
    auto sort = [&](int row, int column) { return model.data(model.index(row, column), NameStatsModel::SortRole); };
    for (int i = 0; i < int(rows.size()); ++i) {
        const trace::NameStats& s = rows[std::size_t(i)];
        QCOMPARE(model.data(model.index(i, NameStatsModel::Name)).toString(), QString::fromStdString(s.name));
        QCOMPARE(sort(i, NameStatsModel::Count).toULongLong(), qulonglong(s.time.count));
        QCOMPARE(sort(i, NameStatsModel::Total).toDouble(), double(s.time.total_ns));
        QCOMPARE(sort(i, NameStatsModel::Mean).toDouble(), s.time.mean_ns);
        QCOMPARE(sort(i, NameStatsModel::Median).toDouble(), s.time.median_ns);
        QCOMPARE(sort(i, NameStatsModel::Min).toDouble(), double(s.time.min_ns));
        QCOMPARE(sort(i, NameStatsModel::Max).toDouble(), double(s.time.max_ns));
        QCOMPARE(sort(i, NameStatsModel::StdDev).toDouble(), s.time.stddev_ns);
        QCOMPARE(sort(i, NameStatsModel::Percent).toDouble(), s.percent);
        if (memory) {
            QCOMPARE(sort(i, NameStatsModel::Bytes).toULongLong(), qulonglong(s.bytes));
            QCOMPARE(sort(i, NameStatsModel::Bandwidth).toDouble(), s.bandwidth_gbs);
        }
        // Shown in microseconds.
        QCOMPARE(model.data(model.index(i, NameStatsModel::Total)).toString(), microseconds(double(s.time.total_ns)));
    }
}

// A BFS run stored with a hand-built timeline: `rows` drawn as test::map_from_rows draws them,
// BFS from (0,0) (the goal) over the whole map, 4-connected; its levels last `durations_ns`.
// Returns an error text, empty on success.
QString storeTimedBfs(db::History& history, const char* name, const std::vector<std::string>& rows,
                      const std::vector<std::int64_t>& durations_ns) {
    GridMap map(int(rows.front().size()), int(rows.size()));
    for (int y = 0; y < map.height(); ++y)
        for (int x = 0; x < map.width(); ++x) map.set_passable(x, y, rows[std::size_t(y)][std::size_t(x)] == '.');
    map.name = name;
    RunRequest request;
    request.variant_id = "bfs.cpu.queue";
    request.problem.map = std::make_shared<const GridMap>(std::move(map));
    request.problem.rules.connectivity = Connectivity::Four;
    request.problem.goal = request.problem.map->index(0, 0);
    db::HistoryRecorder recorder(history);
    const RunReport report = run_variant(request, &recorder);
    recorder.record(request, report);
    if (report.result.status != RunStatus::Ok) return QString::fromStdString(report.result.message);
    if (recorder.error()) return QString::fromStdString(recorder.error()->message);
    auto added = history.add_events(*recorder.run_id(), db::encode_timeline(test::timeline_with_levels(durations_ns)));
    return added ? QString() : QString::fromStdString(added.error().message);
}

}  // namespace

class TestTimelineStats : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const trace::Timeline> m_shared, m_dp;
    QString m_missing;
    std::unique_ptr<TimelinePanel> m_panel;

    TimelineWidget* view() const { return m_panel->view(); }
    TimelineStatsView* stats() const { return m_panel->stats(); }
    QCustomPlot* plot() const { return view()->plot(); }
    void requireTraces() {
        if (!m_shared || !m_dp) QSKIP(qPrintable(m_missing));
    }
    // The statistics are computed off the GUI thread: waits for the latest.
    bool settle() {
        if (!stats()->pending()) return true;
        QSignalSpy updated(stats(), &TimelineStatsView::updated);
        return updated.wait(20'000);
    }
    void showPanel() {
        m_panel->resize(1280, 900);
        m_panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
        view()->replotNow();
        QVERIFY(settle());
    }
    // Ctrl+drag on the plot from x0 to x1 (pixels from the axis rect's left edge), at the
    // middle of the axis rect's height; the axis times under them.
    std::pair<double, double> ctrlDrag(int x0, int x1) {
        const QRect area = plot()->axisRect()->rect();
        const QPoint p0(area.left() + x0, area.center().y()), p1(area.left() + x1, area.center().y());
        QTest::mousePress(plot(), Qt::LeftButton, Qt::ControlModifier, p0);
        QTest::mouseMove(plot(), p0 + QPoint((x1 - x0) / 2, 0));
        QTest::mouseMove(plot(), p1);
        QTest::mouseRelease(plot(), Qt::LeftButton, Qt::ControlModifier, p1);
        return {plot()->xAxis->pixelToCoord(p0.x()), plot()->xAxis->pixelToCoord(p1.x())};
    }

private slots:
    void initTestCase() {
        m_shared = test::recordedTrace("bfs_shared_64.csv", &m_missing);
        m_dp = test::recordedTrace("bfs_dp_64.csv", &m_missing);
    }
    void init() { m_panel = std::make_unique<TimelinePanel>(); }
    void cleanup() { m_panel.reset(); }

    void ctrlDragSelectsARangeWithItsStatistics() {
        requireTraces();
        view()->setTimeline(m_shared, QStringLiteral("bfs.gpu.shared"));
        showPanel();
        QSignalSpy ranges(view(), &TimelineWidget::rangeChanged);
        const QCPRange before = plot()->xAxis->range();
        const auto [a, b] = ctrlDrag(300, 700);
        QVERIFY(settle());
        QCOMPARE(ranges.count(), 1);               // once per drag, on release
        QCOMPARE(plot()->xAxis->range(), before);  // a range selection, not a pan
        QCOMPARE(view()->undoDepth(), 0);

        // The range from the pixels, on the run's clock, and its statistics, computed here.
        const std::int64_t origin = trace::view_origin_ns(*m_shared);
        const trace::TimeRange expected{origin + std::llround(a), origin + std::llround(b)};
        const auto selected = view()->selectedTimeRange(0);
        QVERIFY(selected);
        QCOMPARE(selected->begin_ns, expected.begin_ns);
        QCOMPARE(selected->end_ns, expected.end_ns);
        const trace::RangeStats want = trace::range_stats(*m_shared, expected);
        QVERIFY(!want.rows.empty());
        QVERIFY(!want.names.empty());

        const auto& got = stats()->rangeStats();
        QVERIFY(got);
        QCOMPARE(got->range.begin_ns, want.range.begin_ns);
        QCOMPARE(got->range.end_ns, want.range.end_ns);
        QCOMPARE(got->rows.size(), want.rows.size());
        for (std::size_t i = 0; i < want.rows.size(); ++i) {
            QCOMPARE(got->rows[i].track, want.rows[i].track);
            QCOMPARE(got->rows[i].name, want.rows[i].name);
            QVERIFY(sameStats(got->rows[i].time, want.rows[i].time));
            QCOMPARE(got->rows[i].percent, want.rows[i].percent);
        }
        QVERIFY(sameNames(got->names, want.names));
        QCOMPARE(got->gpu_busy_ns, want.gpu_busy_ns);
        QCOMPARE(got->gpu_busy_percent, want.gpu_busy_percent);
        QCOMPARE(got->gaps.size(), want.gaps.size());
        QVERIFY(sameStats(got->gap_time, want.gap_time));

        // The tables show them; the header says busy share and gaps.
        QCOMPARE(stats()->rangeRowsModel()->rowCount(), int(want.rows.size()));
        checkModel(*stats()->rangeNamesModel(), want.names, false);
        QVERIFY(stats()->rangeHeaderText().contains(QLocale().toString(want.gpu_busy_percent, 'f', 1) + '%'));
        QCOMPARE(stats()->tabs()->currentIndex(), int(TimelineStatsView::SummaryTab));  // the summary follows
        // The summary covers the items that start in the range.
        const trace::TraceSummary inRange = trace::trace_summary(*m_shared, expected);
        QVERIFY(stats()->summary().range.has_value());
        QVERIFY(sameNames(stats()->summary().kernels, inRange.kernels));
        QVERIFY(sameNames(stats()->summary().api, inRange.api));
        QVERIFY(stats()->summaryScopeText().contains(view()->selectedRangeText()));

        // The band and its label (start, end and length): two items while there is a range.
        QCOMPARE(plot()->itemCount(), 2);
        const QString label = view()->selectedRangeText();
        QVERIFY(label.contains(QString::fromStdString(trace::format_duration(std::llround(b - a)))));

        // Copy and Export CSV.
        stats()->copyRange();
        QCOMPARE(QApplication::clipboard()->text(),
                 QString::fromStdString(trace::format_range(*m_shared, want, origin)));
        std::ostringstream csv;
        trace::write_range_csv(want, csv);
        QCOMPARE(stats()->rangeCsv(), QByteArray::fromStdString(csv.str()));

        // Escape clears the range (and the summary is the whole run's again).
        plot()->setFocus();
        QTest::keyClick(plot(), Qt::Key_Escape);
        QVERIFY(!view()->selectedRange());
        QCOMPARE(plot()->itemCount(), 0);
        QVERIFY(settle());
        QVERIFY(!stats()->rangeStats());
        QCOMPARE(stats()->rangeRowsModel()->rowCount(), 0);
        QVERIFY(!stats()->summary().range);
        QCOMPARE(ranges.count(), 2);
    }

    void rangeStatsOfEachRunWhenComparing() {
        requireTraces();
        view()->setComparison(m_shared, QStringLiteral("bfs.gpu.shared"), m_dp, QStringLiteral("bfs.gpu.dp"));
        showPanel();
        const auto [a, b] = ctrlDrag(100, 500);
        stats()->setRun(1);
        QVERIFY(settle());
        const std::int64_t origin = trace::view_origin_ns(*m_dp);
        const trace::TimeRange expected{origin + std::llround(a), origin + std::llround(b)};
        const trace::RangeStats want = trace::range_stats(*m_dp, expected);
        QVERIFY(stats()->rangeStats());
        QCOMPARE(stats()->rangeStats()->range.begin_ns, expected.begin_ns);
        QVERIFY(sameNames(stats()->rangeStats()->names, want.names));
        QCOMPARE(stats()->rangeStats()->gpu_busy_ns, want.gpu_busy_ns);
    }

    void summaryTablesEqualTraceSummary() {
        requireTraces();
        view()->setTimeline(m_shared, QStringLiteral("bfs.gpu.shared"));
        showPanel();
        const trace::TraceSummary want = trace::trace_summary(*m_shared);
        QVERIFY(!want.kernels.empty() && !want.api.empty() && !want.memory.empty());
        const std::vector<trace::NameStats>* tables[] = {&want.kernels, &want.device_levels, &want.api, &want.memory,
                                                         &want.nvtx};
        for (int t = 0; t < TimelineStatsView::TableCount; ++t) {
            NameStatsModel* model = stats()->summaryModel(TimelineStatsView::Table(t));
            QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
            checkModel(*model, *tables[t], t == TimelineStatsView::Memory);
            if (QTest::currentTestFailed()) return;
        }
        QVERIFY(stats()->graphText().isEmpty());  // these runs launch no graphs

        // Sorted by total: numerically, both ways, in the view's proxy.
        QSortFilterProxyModel* proxy = stats()->summaryProxy(TimelineStatsView::Api);
        auto totals = [proxy] {
            std::vector<double> v;
            for (int r = 0; r < proxy->rowCount(); ++r)
                v.push_back(proxy->data(proxy->index(r, NameStatsModel::Total), NameStatsModel::SortRole).toDouble());
            return v;
        };
        stats()->summaryTable(TimelineStatsView::Api)->sortByColumn(NameStatsModel::Total, Qt::AscendingOrder);
        auto up = totals();
        QVERIFY(std::is_sorted(up.begin(), up.end()));
        stats()->summaryTable(TimelineStatsView::Api)->sortByColumn(NameStatsModel::Total, Qt::DescendingOrder);
        auto down = totals();
        QVERIFY(std::is_sorted(down.rbegin(), down.rend()));
        QCOMPARE(proxy->data(proxy->index(0, NameStatsModel::Name)).toString(),
                 QString::fromStdString(want.api.front().name));
    }

    void sortsNumbersAsNumbers() {
        // 9 us and 10 us: as text "10.000" would sort before "9.000".
        NameStatsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        trace::NameStats nine, ten;
        nine.name = "nine", nine.time.total_ns = 9'000, nine.time.count = 9;
        ten.name = "ten", ten.time.total_ns = 10'000, ten.time.count = 10;
        model.setRows({ten, nine}, false);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(NameStatsModel::SortRole);
        for (int column : {int(NameStatsModel::Total), int(NameStatsModel::Count)}) {
            proxy.sort(column, Qt::AscendingOrder);
            QCOMPARE(proxy.data(proxy.index(0, NameStatsModel::Name)).toString(), QStringLiteral("nine"));
            proxy.sort(column, Qt::DescendingOrder);
            QCOMPARE(proxy.data(proxy.index(0, NameStatsModel::Name)).toString(), QStringLiteral("ten"));
        }
    }

    void graphLaunchesAreCountedApart() {
        auto t = std::make_shared<trace::Timeline>();
        const std::uint32_t host = t->add_track(trace::TrackKind::HostThread, 1, "CPU thread 1");
        const std::uint32_t stream = t->add_track(trace::TrackKind::GpuStream, 7, "stream 7");
        for (int g = 0; g < 2; ++g) {
            trace::Event launch;
            launch.kind = trace::EventKind::RuntimeApi;
            launch.name = "cudaGraphLaunch_v10000";
            launch.track = host;
            launch.start_ns = test::kTraceT0 + g * 100'000;
            launch.end_ns = launch.start_ns + 5'000;
            t->events.push_back(launch);
            for (int n = 0; n < 3; ++n) {
                trace::Event k;
                k.kind = trace::EventKind::Kernel;
                k.name = "node_kernel";
                k.track = stream;
                k.start_ns = launch.start_ns + 10'000 + n * 20'000;
                k.end_ns = k.start_ns + 15'000;
                k.graph_id = 1;
                k.graph_node_id = std::uint64_t(n) + 1;
                t->events.push_back(k);
            }
        }
        view()->setTimeline(t, QStringLiteral("graphs"));
        QVERIFY(settle());
        QCOMPARE(stats()->summary().graph_launches, std::size_t(2));
        QCOMPARE(stats()->summary().graph_node_executions, std::size_t(6));
        QVERIFY(stats()->graphText().contains(QStringLiteral("2 graph launches ran 6 graph node executions")));
    }

    void selectingASummaryRowHighlightsItsItems() {
        requireTraces();
        view()->setTimeline(m_shared, QStringLiteral("bfs.gpu.shared"));
        showPanel();
        stats()->tabs()->setCurrentIndex(TimelineStatsView::SummaryTab);
        stats()->summaryTabs()->setCurrentIndex(TimelineStatsView::Api);
        QTableView* table = stats()->summaryTable(TimelineStatsView::Api);
        QSortFilterProxyModel* proxy = stats()->summaryProxy(TimelineStatsView::Api);
        QSignalSpy highlights(view(), &TimelineWidget::highlightChanged);
        // Clicks the second row as sorted (by total, largest first).
        const QModelIndex second = proxy->index(1, NameStatsModel::Name);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
        const trace::NameStats& row =
            stats()->summaryModel(TimelineStatsView::Api)->stats(proxy->mapToSource(second).row());
        QVERIFY(!row.events.empty());
        std::vector<std::uint32_t> want = row.events;
        std::sort(want.begin(), want.end());
        QCOMPARE(view()->highlight(0), want);
        QVERIFY(highlights.count() >= 1);
        for (std::uint32_t e : want)
            QCOMPARE(QString::fromStdString(m_shared->events[e].name), QString::fromStdString(row.name));

        // Drawn, within a span per pixel column and row.
        view()->replotNow();
        const std::size_t spans = view()->plottable(0)->lastHighlightSpans();
        QVERIFY(spans > 0);
        QVERIFY(double(spans) <= (plot()->axisRect()->width() + 3.0) * view()->plottable(0)->rowCount());

        // Ctrl+click a second row: both rows' items.
        const QModelIndex first = proxy->index(0, NameStatsModel::Name);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::ControlModifier, table->visualRect(first).center());
        const auto& other =
            stats()->summaryModel(TimelineStatsView::Api)->stats(proxy->mapToSource(first).row()).events;
        QCOMPARE(view()->highlight(0).size(), want.size() + other.size());

        // Escape on the plot clears it.
        plot()->setFocus();
        QTest::keyClick(plot(), Qt::Key_Escape);
        QVERIFY(view()->highlight(0).empty());
    }

    void highlightsManyItemsWithinTheDrawBound() {
        // 25,000 kernels of a 100,000-event trace highlighted: merged per pixel as rows are.
        auto loop = test::hostLoopTimeline(25'000);
        view()->setTimeline(loop, QStringLiteral("loop"));
        showPanel();
        std::vector<std::uint32_t> kernels;
        for (std::uint32_t i = 0; i < loop->events.size(); ++i)
            if (loop->events[i].kind == trace::EventKind::Kernel) kernels.push_back(i);
        auto medianFrame = [this] {
            std::vector<double> ms;
            for (int i = 0; i < 7; ++i) ms.push_back(view()->replotNow());
            std::sort(ms.begin(), ms.end());
            return ms[ms.size() / 2];
        };
        const double plain = medianFrame();
        view()->setHighlight(0, kernels);
        const double highlighted = medianFrame();
        const std::size_t spans = view()->plottable(0)->lastHighlightSpans();
        QVERIFY(spans > 0);
        QVERIFY(double(spans) <= plot()->axisRect()->width() + 3.0);  // all on one row
        qInfo("frame time, 100,000 events, full view: %.2f ms, with 25,000 kernels highlighted %.2f ms", plain,
              highlighted);
    }

    void levelDifferenceOfTwoRuns() {
        requireTraces();
        // A = shared, B = dp: B - A is negative where dp gains on shared.
        view()->setComparison(m_shared, QStringLiteral("bfs.gpu.shared"), m_dp, QStringLiteral("bfs.gpu.dp"));
        showPanel();
        QVERIFY(stats()->tabs()->isTabVisible(TimelineStatsView::LevelDiffTab));
        LevelDiffView* diff = stats()->levelDiff();
        const auto want = trace::level_diff(*m_shared, *m_dp);
        QVERIFY(!want.empty());
        LevelDiffModel* model = diff->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // One row per level either run has.
        std::vector<int> levels;
        for (const auto* t : {m_shared.get(), m_dp.get()})
            for (const trace::LevelCost& c : trace::level_costs(*t)) levels.push_back(c.level);
        std::sort(levels.begin(), levels.end());
        levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
        QCOMPARE(model->rowCount(), int(levels.size()));
        QCOMPARE(model->rowCount(), int(want.size()));
        auto cell = [model](int row, int column) {
            const QVariant v = model->data(model->index(row, column), LevelDiffModel::SortRole);
            return v.isValid() ? std::optional(v.toDouble()) : std::nullopt;
        };
        for (int i = 0; i < int(want.size()); ++i) {
            const trace::LevelDiffRow& r = want[std::size_t(i)];
            QCOMPARE(cell(i, LevelDiffModel::Level), std::optional(double(levels[std::size_t(i)])));
            QCOMPARE(cell(i, LevelDiffModel::Level), std::optional(double(r.level)));
            QCOMPARE(cell(i, LevelDiffModel::TimeA), r.a ? std::optional(double(r.a->time_ns)) : std::nullopt);
            QCOMPARE(cell(i, LevelDiffModel::TimeB), r.b ? std::optional(double(r.b->time_ns)) : std::nullopt);
            QCOMPARE(cell(i, LevelDiffModel::GapA),
                     r.a && r.a->gap_before_ns ? std::optional(double(*r.a->gap_before_ns)) : std::nullopt);
            QCOMPARE(cell(i, LevelDiffModel::GapB),
                     r.b && r.b->gap_before_ns ? std::optional(double(*r.b->gap_before_ns)) : std::nullopt);
            QCOMPARE(cell(i, LevelDiffModel::Diff),
                     r.a && r.b ? std::optional(double(r.b->time_ns - r.a->time_ns)) : std::nullopt);
        }
        // The plot: time per level of both runs, and their gaps before.
        QCOMPARE(diff->plot()->graphCount(), 4);
        const auto withA = std::count_if(want.begin(), want.end(), [](const auto& r) { return r.a.has_value(); });
        QCOMPARE(diff->plot()->graph(0)->dataCount(), int(withA));
        QVERIFY(diff->summaryText().contains(QStringLiteral("bfs.gpu.dp")));
        // The CSV is trace::write_level_diff_csv's.
        std::ostringstream csv;
        trace::write_level_diff_csv(want, csv);
        QCOMPARE(diff->csv(), QByteArray::fromStdString(csv.str()));

        // Timelines alone: no edges to rate, no map to compare.
        QVERIFY(diff->table()->isColumnHidden(LevelDiffModel::MtepsA));
        QVERIFY(diff->plotChoice()->isHidden());
        QVERIFY(diff->mapNote().isEmpty());

        // One run: no per-level tab.
        view()->setTimeline(m_dp, QStringLiteral("bfs.gpu.dp"));
        QVERIFY(!stats()->tabs()->isTabVisible(TimelineStatsView::LevelDiffTab));
        QCOMPARE(diff->model()->rowCount(), 0);
    }

    void levelMtepsAndTheMapNoteOfStoredRuns() {
        // Runs 1 and 2 on an open 3x3 grid: the levels' edges, counted by hand from (0,0), are
        // 2 (a corner), 6 (two sides), 8 (two corners and the centre), 6, 2. Run 1's levels last
        // 1, 2, 2, 4, 5 us: 2, 3, 4, 1.5, 0.4 MTEPS; run 2's 0.5 then 1 us each: 4, 6, 8, 6, 2.
        // Run 3 on "...", "#.#": 1 (east), 3 (west, east, south), 2 (one each) in 1, 1.5, 0.5 us:
        // 1, 2 and 4 MTEPS.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("levels.sqlite"));
        {
            auto history = db::History::open(path.toStdString());
            QVERIFY2(history, history ? "" : history.error().message.c_str());
            const std::vector<std::string> open = {"...", "...", "..."};
            QCOMPARE(storeTimedBfs(*history, "open-3", open, {1000, 2000, 2000, 4000, 5000}), QString());
            QCOMPARE(storeTimedBfs(*history, "open-3", open, {500, 1000, 1000, 1000, 1000}), QString());
            QCOMPARE(storeTimedBfs(*history, "l-shape", {"...", "#.#"}, {1000, 1500, 500}), QString());
        }
        m_panel->showStoredRuns(path, {1, 2});
        QTRY_COMPARE(view()->runCount(), 2);
        LevelDiffView* diff = stats()->levelDiff();
        LevelDiffModel* model = diff->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 5);
        auto cell = [model](int row, int column) {
            const QVariant v = model->data(model->index(row, column), LevelDiffModel::SortRole);
            return v.isValid() ? v.toDouble() : -1.0;
        };
        const double edges[] = {2, 6, 8, 6, 2}, mtepsA[] = {2, 3, 4, 1.5, 0.4}, mtepsB[] = {4, 6, 8, 6, 2};
        for (int l = 0; l < 5; ++l) {
            QCOMPARE(cell(l, LevelDiffModel::Level), double(l));
            QCOMPARE(cell(l, LevelDiffModel::EdgesA), edges[l]);
            QCOMPARE(cell(l, LevelDiffModel::EdgesB), edges[l]);
            QVERIFY(qFuzzyCompare(cell(l, LevelDiffModel::MtepsA), mtepsA[l]));
            QVERIFY(qFuzzyCompare(cell(l, LevelDiffModel::MtepsB), mtepsB[l]));
        }
        QCOMPARE(model->data(model->index(4, LevelDiffModel::MtepsA)).toString(), QLocale().toString(0.4, 'g', 4));
        QVERIFY(!diff->table()->isColumnHidden(LevelDiffModel::EdgesA));
        QVERIFY(!diff->table()->isColumnHidden(LevelDiffModel::MtepsB));
        QVERIFY(diff->mapNote().isEmpty());  // one map
        // The CSV carries them.
        QVERIFY(diff->csv().contains("\n2,2000,500,1000,500,-1000,8,4,8,8\n"));

        // The plot's second choice: MTEPS per level of both runs, no gap series.
        QVERIFY(!diff->plotChoice()->isHidden());
        diff->plotChoice()->setCurrentIndex(diff->plotChoice()->findData(int(LevelDiffView::PlotMteps)));
        QCOMPARE(diff->plot()->graph(0)->dataCount(), 5);
        QCOMPARE(diff->plot()->graph(1)->dataCount(), 5);
        for (int l = 0; l < 5; ++l) {
            QVERIFY(qFuzzyCompare(diff->plot()->graph(0)->data()->at(l)->value, mtepsA[l]));
            QVERIFY(qFuzzyCompare(diff->plot()->graph(1)->data()->at(l)->value, mtepsB[l]));
        }
        QVERIFY(!diff->plot()->graph(2)->visible());
        QCOMPARE(diff->plot()->yAxis->label(), QStringLiteral("MTEPS"));

        // Runs 1 and 3 searched different maps: the view says their levels need not correspond.
        m_panel->showStoredRuns(path, {1, 3});
        QTRY_VERIFY(!diff->mapNote().isEmpty());
        QVERIFY(diff->mapNote().contains(QStringLiteral("different maps")));
        QVERIFY(diff->mapNote().contains(QStringLiteral("open-3")));
        QVERIFY(diff->mapNote().contains(QStringLiteral("l-shape")));
        bool shown = false;
        for (const QLabel* label : diff->findChildren<QLabel*>())
            shown = shown || (label->text() == diff->mapNote() && label->isVisibleTo(diff));
        QVERIFY(shown);
        const double edgesL[] = {1, 3, 2}, mtepsL[] = {1, 2, 4};
        for (int l = 0; l < 3; ++l) {
            QCOMPARE(cell(l, LevelDiffModel::EdgesB), edgesL[l]);
            QVERIFY(qFuzzyCompare(cell(l, LevelDiffModel::MtepsB), mtepsL[l]));
        }
        QCOMPARE(cell(3, LevelDiffModel::EdgesB), -1.0);  // run 3 has no level 3
    }

    void lectureModeGivesThePlotTheHeight() {
        view()->setTimeline(test::hostLoopTimeline(50), QStringLiteral("loop"));
        showPanel();
        QVERIFY(stats()->isVisible());
        view()->setLectureMode(true);
        QVERIFY(!stats()->isVisible());
        view()->setLectureMode(false);
        QVERIFY(stats()->isVisible());
    }

    void measureStatisticsTime() {
        // 100,000 events (25,000 levels of four): the summary for the run, then for half of it
        // with its range statistics, as a Ctrl+drag's release computes them on the GUI thread.
        auto loop = test::hostLoopTimeline(25'000);
        view()->setTimeline(loop, QStringLiteral("loop"));
        showPanel();
        const double whole = stats()->lastComputeMs();
        const double mid = 0.5 * (view()->visibleBegin() + view()->visibleEnd());
        view()->setSelectedRange(view()->visibleBegin(), mid);
        QVERIFY(settle());
        const double range = stats()->lastComputeMs();
        QVERIFY(stats()->rangeStats());
        const std::size_t kernels = stats()->summary().kernels.front().time.count;
        QVERIFY(kernels > 10'000 && kernels < 15'000);
        qInfo(
            "statistics of 100,000 events (worker thread): summary %.1f ms; summary + range statistics of half "
            "%.1f ms",
            whole, range);
    }
};

QTEST_MAIN(TestTimelineStats)
#include "test_timeline_stats.moc"
