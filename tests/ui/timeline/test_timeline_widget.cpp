// The timeline view with 100,000 synthetic events: drawn spans per row stay bounded by the
// width at full and zoomed views, zoom / pan / box zoom / wheel and undo restore ranges, a click
// on a kernel outlines its API call (and the other way round) and says its level, the level
// cursor and lecture-mode stepping, compare mode, agent load heat strips. Also measures (prints, never asserts) the
// replot time of a frame.
#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>

#include "instrumentation/timeline/agent_load.hpp"
#include "tests/ui/support/recorded_traces.hpp"
#include "tests/ui/support/timeline_fixture.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/timeline_widget.hpp"

using namespace ps;
using namespace ps::ui;

class TestTimelineWidget : public QObject {
    Q_OBJECT

private:
    static constexpr int kLevels = 25'000;  // four events a level: 100,000 events
    std::shared_ptr<const trace::Timeline> m_loop = test::hostLoopTimeline(kLevels);
    std::unique_ptr<TimelineWidget> m_view;

    TimelinePlottable* plottable() const { return m_view->plottable(0); }
    const trace::TimelineLayout& layout() const { return plottable()->model()->layout; }
    int rowOf(trace::RowKind kind) const {
        const auto& rows = layout().rows;
        const auto it = std::find_if(rows.begin(), rows.end(), [kind](const trace::Row& r) { return r.kind == kind; });
        return it == rows.end() ? -1 : int(it - rows.begin());
    }
    // The pixel at the middle of an event of the first run.
    QPoint pixelOf(std::uint32_t event) const {
        const trace::Event& e = m_loop->events[event];
        const double mid = layout().relative(e.start_ns) + 0.5 * double(e.duration_ns());
        const int row = int(layout().row_of_event[event]);
        QCustomPlot* plot = m_view->plot();
        return QPoint(int(std::lround(plot->xAxis->coordToPixel(mid))),
                      int(std::lround(plot->yAxis->coordToPixel(plottable()->firstRow() + row))));
    }
    // Event index of level l's API call / kernel in the fixture.
    static std::uint32_t apiOf(int level) { return std::uint32_t(level) * 4; }
    static std::uint32_t kernelOf(int level) { return std::uint32_t(level) * 4 + 1; }
    void zoomAroundLevel(int level) {
        const double at = layout().relative(m_loop->events[kernelOf(level)].start_ns);
        m_view->zoomToRange(at - 3000, at + 5000);
        m_view->replotNow();
    }
    void checkSpanBound() const {
        const double width = m_view->plot()->axisRect()->width();
        const auto& counts = plottable()->lastSpanCounts();
        QCOMPARE(int(counts.size()), plottable()->rowCount());
        std::size_t drawn = 0;
        for (std::size_t c : counts) {
            QVERIFY2(double(c) <= width + 3, qPrintable(QStringLiteral("%1 spans on %2 px").arg(c).arg(width)));
            drawn += c;
        }
        QVERIFY(drawn > 0);
    }

private slots:
    void init() {
        m_view = std::make_unique<TimelineWidget>();
        m_view->resize(1280, 420);
        m_view->setTimeline(m_loop, QStringLiteral("bfs.gpu.shared"));
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_view->replotNow();
    }
    void cleanup() { m_view.reset(); }

    void laysOutRowsAndSummary() {
        QCOMPARE(m_view->runCount(), 1);
        QCOMPARE(plottable()->rowCount(), 5);  // host thread, two streams, device levels, GPU idle
        QCOMPARE(m_view->levelCount(), kLevels);
        QVERIFY(rowOf(trace::RowKind::GpuGaps) >= 0);
        QVERIFY2(m_view->summaryText().contains(QStringLiteral("25000 host launches")),
                 qPrintable(m_view->summaryText()));
        QVERIFY(m_view->summaryText().contains(QStringLiteral("1.00 host launches per level")));
        QCOMPARE(m_view->plot()->plottableCount(), 1);  // one plottable for 100,000 events
        QCOMPARE(m_view->plot()->itemCount(), 0);
    }

    void drawsAtMostOneSpanPerPixelColumn() {
        checkSpanBound();  // full view: 100,000 events merged
        m_view->zoomToRange(20e6, 21e6);
        m_view->replotNow();
        checkSpanBound();
        zoomAroundLevel(12'345);
        checkSpanBound();
        // Zoomed in far enough, items are drawn one by one again.
        const auto& counts = plottable()->lastSpanCounts();
        QVERIFY(counts[std::size_t(rowOf(trace::RowKind::GpuStream))] >= 2);
        // Offscreen pixmaps too (what an export draws).
        for (int i = 0; i < 3; ++i) QVERIFY(!m_view->plot()->toPixmap(1280, 400).isNull());
        checkSpanBound();
    }

    // What the capture could not record (CUPTI's CDP answer) is said under the summary, and not
    // in the title of an exported figure.
    void showsTheCapturesNotes() {
        auto noted = std::make_shared<trace::Timeline>(*m_loop);
        noted->notes = {"CUPTI does not report device-launched kernels on this GPU and driver"};
        m_view->setTimeline(noted, QStringLiteral("bfs.gpu.dp"));
        auto* label = m_view->findChild<QLabel*>(QStringLiteral("timelineSummary"));
        QVERIFY(label);
        QVERIFY2(label->text().contains(QStringLiteral("device-launched kernels")), qPrintable(label->text()));
        QVERIFY(!m_view->summaryText().contains(QStringLiteral("device-launched")));
        m_view->setTimeline(m_loop, QStringLiteral("bfs.gpu.shared"));
        QVERIFY(!label->text().contains(QStringLiteral("device-launched")));
    }

    // bfs.gpu.graph's node executions (recorded on the H100) are kernels that say their graph
    // and node in the tooltip.
    void graphNodesSayTheirIds() {
        QString why;
        const auto graph = test::recordedTrace("bfs_graph_64.csv", &why);
        if (!graph) QSKIP(qPrintable(why));
        m_view->setTimeline(graph, QStringLiteral("bfs.gpu.graph"));
        const auto it = std::find_if(graph->events.begin(), graph->events.end(), [](const trace::Event& e) {
            return e.kind == trace::EventKind::Kernel && e.graph_node_id != 0;
        });
        QVERIFY(it != graph->events.end());
        const auto event = std::uint32_t(it - graph->events.begin());
        const trace::TimelineLayout& l = plottable()->model()->layout;
        const double mid = l.relative(it->start_ns) + 0.5 * double(it->duration_ns());
        m_view->zoomToRange(mid - 2 * double(it->duration_ns()), mid + 2 * double(it->duration_ns()));
        m_view->replotNow();
        QCustomPlot* plot = m_view->plot();
        const QPoint at(int(std::lround(plot->xAxis->coordToPixel(mid))),
                        int(std::lround(plot->yAxis->coordToPixel(plottable()->firstRow() + l.row_of_event[event]))));
        const QString tip = m_view->toolTipAt(at);
        QVERIFY2(tip.contains(QStringLiteral("CUDA graph %1, node %2").arg(it->graph_id).arg(it->graph_node_id)),
                 qPrintable(tip));
    }

    void zoomPanAndUndoRestoreRanges() {
        const QCPRange full = m_view->plot()->xAxis->range();
        QCOMPARE(m_view->undoDepth(), 0);
        m_view->zoomAt(4.0, 100);
        const QCPRange zoomed = m_view->plot()->xAxis->range();
        QVERIFY(std::abs(zoomed.size() - full.size() / 4) < 1e-6 * full.size());
        m_view->panBy(50);
        const QCPRange panned = m_view->plot()->xAxis->range();
        QVERIFY(panned.lower < zoomed.lower);
        m_view->zoomToRange(1e6, 2e6);
        QCOMPARE(m_view->visibleBegin(), 1e6);
        QCOMPARE(m_view->visibleEnd(), 2e6);
        QCOMPARE(m_view->undoDepth(), 3);
        QVERIFY(m_view->undoZoom());
        QCOMPARE(m_view->plot()->xAxis->range(), panned);
        QVERIFY(m_view->undoZoom());
        QCOMPARE(m_view->plot()->xAxis->range(), zoomed);
        QVERIFY(m_view->undoZoom());
        QCOMPARE(m_view->plot()->xAxis->range(), full);
        QVERIFY(!m_view->undoZoom());
        // Backspace is undo.
        m_view->zoomToRange(1e6, 2e6);
        QTest::keyClick(m_view->plot(), Qt::Key_Backspace);
        QCOMPARE(m_view->plot()->xAxis->range(), full);
    }

    void clampsToTheTrace() {
        m_view->zoomToRange(-1e12, 1e12);
        const double span = 100e6;  // 25,000 levels of 4 us
        QVERIFY(m_view->visibleBegin() >= -0.03 * span);
        QVERIFY(m_view->visibleEnd() <= 1.03 * span);
        m_view->zoomToRange(5e6, 5e6 + 1);  // narrower than the deepest zoom
        QVERIFY(m_view->visibleEnd() - m_view->visibleBegin() >= 20 - 1e-9);
    }

    void mouseWheelDragAndBoxZoom() {
        QCustomPlot* plot = m_view->plot();
        const QCPRange full = plot->xAxis->range();
        const QPointF at(plot->axisRect()->center());
        const double timeAt = plot->xAxis->pixelToCoord(at.x());
        QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        QVERIFY(plot->xAxis->range().size() < full.size());
        QVERIFY(std::abs(plot->xAxis->pixelToCoord(at.x()) - timeAt) < 1e-6 * full.size());  // zoomed at the cursor
        QCOMPARE(m_view->undoDepth(), 1);

        // Drag: the content follows the mouse by 100 px.
        const QCPRange before = plot->xAxis->range();
        const QPoint p0(plot->axisRect()->left() + 400, int(at.y()));
        QTest::mousePress(plot, Qt::LeftButton, {}, p0);
        QTest::mouseMove(plot, p0 + QPoint(50, 0));
        QTest::mouseMove(plot, p0 + QPoint(100, 0));
        QTest::mouseRelease(plot, Qt::LeftButton, {}, p0 + QPoint(100, 0));
        const double shift = before.lower - plot->xAxis->range().lower;
        QVERIFY(std::abs(shift - 100 * before.size() / plot->axisRect()->width()) < 1e-6 * before.size());
        QCOMPARE(m_view->undoDepth(), 2);

        // Right-drag: box zoom to the dragged time range.
        const QPoint b0(plot->axisRect()->left() + 200, int(at.y())), b1(plot->axisRect()->left() + 600, int(at.y()));
        const double t0 = plot->xAxis->pixelToCoord(b0.x()), t1 = plot->xAxis->pixelToCoord(b1.x());
        QTest::mousePress(plot, Qt::RightButton, {}, b0);
        QTest::mouseMove(plot, b1);
        QTest::mouseRelease(plot, Qt::RightButton, {}, b1);
        QVERIFY(std::abs(plot->xAxis->range().lower - t0) < 1e-6 * full.size());
        QVERIFY(std::abs(plot->xAxis->range().upper - t1) < 1e-6 * full.size());
        QCOMPARE(m_view->undoDepth(), 3);
        QVERIFY(m_view->undoZoom() && m_view->undoZoom() && m_view->undoZoom());
        QCOMPARE(plot->xAxis->range(), full);
    }

    void clickingAKernelHighlightsItsApiCall() {
        QSignalSpy levels(m_view.get(), &TimelineWidget::levelSelected);
        zoomAroundLevel(1000);
        const QPoint kernel = pixelOf(kernelOf(1000));
        // A real click on the plot.
        QTest::mouseClick(m_view->plot(), Qt::LeftButton, {}, kernel);
        QVERIFY(m_view->selectedEvent().has_value());
        QCOMPARE(m_view->selectedEvent()->id, kernelOf(1000));
        QCOMPARE(m_view->selectedPartner(), std::optional<std::uint32_t>(apiOf(1000)));
        QCOMPARE(plottable()->selectedEvent(), std::optional<std::uint32_t>(kernelOf(1000)));
        QCOMPARE(levels.count(), 1);
        QCOMPARE(levels.takeFirst().at(0).toInt(), 1000);
        QCOMPARE(m_view->cursorLevel(), 1000);

        // And the other way round: the API call selects, its kernel is the partner.
        const auto hit = m_view->selectAt(pixelOf(apiOf(1000)));
        QVERIFY(hit && !hit->gap);
        QCOMPARE(hit->id, apiOf(1000));
        QCOMPARE(m_view->selectedPartner(), std::optional<std::uint32_t>(kernelOf(1000)));
        QCOMPARE(levels.count(), 1);
        QCOMPARE(levels.takeFirst().at(0).toInt(), 1000);
        m_view->replotNow();  // draws both outlines

        const QString tip = m_view->toolTipAt(pixelOf(kernelOf(1000)));
        QVERIFY2(tip.contains(QStringLiteral("grid 64")) && tip.contains(QStringLiteral("block 256")), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("correlation id 1001")));
        QVERIFY(tip.contains(QStringLiteral("level 1000")));
        QVERIFY(tip.contains(QStringLiteral("1.5 us")));

        // A click on nothing clears; Escape too.
        const QPoint empty(m_view->plot()->axisRect()->left() + 2, m_view->plot()->axisRect()->top() - 20);
        QVERIFY(!m_view->selectAt(empty));
        QVERIFY(!m_view->selectedEvent());
    }

    void gapsAreLabelledInTooltips() {
        zoomAroundLevel(77);
        const int gapRow = rowOf(trace::RowKind::GpuGaps);
        // The 2.2 us gap after level 77's memcpy.
        const double at = layout().relative(m_loop->events[kernelOf(77)].start_ns) + 2800;
        QCustomPlot* plot = m_view->plot();
        const QPoint p(int(plot->xAxis->coordToPixel(at)), int(plot->yAxis->coordToPixel(gapRow)));
        const QString tip = m_view->toolTipAt(p);
        QVERIFY2(tip.contains(QStringLiteral("GPU idle 2.2 us")), qPrintable(tip));
        const auto hit = m_view->selectAt(p);
        QVERIFY(hit && hit->gap);
        QVERIFY(!m_view->selectedEvent());  // a gap is not an event to select
    }

    void cursorAndLectureStepping() {
        QSignalSpy levels(m_view.get(), &TimelineWidget::levelSelected);
        QSignalSpy lecture(m_view.get(), &TimelineWidget::lectureModeChanged);
        m_view->setCursorLevel(500);
        QCOMPARE(levels.count(), 0);  // the animation drives it: no echo back
        QVERIFY(plottable()->cursor().has_value());
        QCOMPARE(*plottable()->cursor(), layout().relative(m_loop->events[kernelOf(500)].start_ns));
        QCOMPARE(m_view->caption(),
                 QStringLiteral("host loop: the CPU waits for level 499 to finish, then launches level 500 "
                                "(level 500 took 1.5 us, started 2.5 us after level 499 ended)"));

        const double before = m_view->plot()->xAxis->tickLabelFont().pointSizeF();
        m_view->setLectureMode(true);
        QCOMPARE(lecture.count(), 1);
        QVERIFY(m_view->lectureMode());
        QVERIFY(m_view->plot()->xAxis->tickLabelFont().pointSizeF() > before);
        m_view->stepLevel(+1);
        QCOMPARE(m_view->cursorLevel(), 501);
        QCOMPARE(levels.count(), 1);
        QCOMPARE(levels.takeFirst().at(0).toInt(), 501);
        QTest::keyClick(m_view->plot(), Qt::Key_Right);
        QTest::keyClick(m_view->plot(), Qt::Key_PageDown);
        QCOMPARE(m_view->cursorLevel(), 503);
        QTest::keyClick(m_view->plot(), Qt::Key_Left);
        QCOMPARE(m_view->cursorLevel(), 502);
        QCOMPARE(levels.count(), 3);
        // Stepping keeps the cursor in view (in lecture mode, inside a window of levels around it).
        QVERIFY(m_view->levelWindow());
        const double at = *plottable()->cursor() - plottable()->shift();
        QVERIFY(m_view->visibleBegin() <= at && at <= m_view->visibleEnd());
        m_view->replotNow();
        m_view->setCursorLevel(-1);
        QVERIFY(!plottable()->cursor());
        m_view->stepLevel(-1);  // from no cursor: the last level
        QCOMPARE(m_view->cursorLevel(), kLevels - 1);
        m_view->setLectureMode(false);
        QCOMPARE(m_view->plot()->xAxis->tickLabelFont().pointSizeF(), before);
    }

    void compareModeStacksTwoRuns() {
        QSignalSpy levels(m_view.get(), &TimelineWidget::levelSelected);
        m_view->setComparison(test::hostLoopTimeline(50), QStringLiteral("bfs.gpu.shared"), test::tailChainTimeline(50),
                              QStringLiteral("bfs.gpu.dp"));
        m_view->replotNow();
        QCOMPARE(m_view->runCount(), 2);
        TimelinePlottable* a = m_view->plottable(0);
        TimelinePlottable* b = m_view->plottable(1);
        QCOMPARE(a->firstRow(), 1);  // after a heading row
        QCOMPARE(b->firstRow(), a->firstRow() + a->rowCount() + 1);
        // Each run is aligned to its own first GPU item: both start near time 0.
        QCOMPARE(a->model()->layout.origin_ns, test::kTraceT0 + 1500);
        QCOMPARE(b->model()->layout.origin_ns, test::kTraceT0 + 1000);
        QVERIFY(m_view->summaryText().contains(QStringLiteral("bfs.gpu.dp: 1 host launch")));
        m_view->setCursorLevel(13);
        QVERIFY(a->cursor() && b->cursor());
        const QString caption = m_view->caption();
        QVERIFY2(caption.contains(QStringLiteral("bfs.gpu.shared: host loop")), qPrintable(caption));
        QVERIFY(caption.contains(
            QStringLiteral("bfs.gpu.dp: tail launch: the last block of level 12 launched level 13 on the GPU")));

        // Clicking a device level of the second run selects it and names its level.
        const auto& layoutB = b->model()->layout;
        std::uint32_t level7 = 0;
        for (std::uint32_t i = 0; i < b->model()->timeline->events.size(); ++i)
            if (b->model()->timeline->events[i].level == 7) level7 = i;
        const trace::Event& e = b->model()->timeline->events[level7];
        m_view->zoomToRange(layoutB.relative(e.start_ns) - 2000, layoutB.relative(e.end_ns) + 2000);
        m_view->replotNow();
        QCustomPlot* plot = m_view->plot();
        const QPoint p(int(plot->xAxis->coordToPixel(layoutB.relative(e.start_ns) + 2000)),
                       int(plot->yAxis->coordToPixel(b->firstRow() + int(layoutB.row_of_event[level7]))));
        const auto hit = m_view->selectAt(p);
        QVERIFY(hit.has_value());
        QCOMPARE(hit->run, 1);
        QCOMPARE(hit->id, level7);
        QCOMPARE(levels.count(), 1);
        QCOMPARE(levels.takeFirst().at(0).toInt(), 7);
    }

    void drawsAgentLoadAsHeatStripsUnderAHeading() {
        // A queue kernel and 3 SMs: SM 1 runs one agent throughout, SM 0 one over the first
        // half, SM 2 two at once over the first quarter: 4, 2, then 1 agents in flight overall.
        auto t = std::make_shared<trace::Timeline>();
        trace::Event k;
        k.name = "void ps::gpu::batch::queue_run(int)";
        k.track = t->add_track(trace::TrackKind::GpuStream, 13, "stream 13");
        k.start_ns = test::kTraceT0;
        k.end_ns = test::kTraceT0 + 400'000;
        t->events.push_back(k);
        const std::vector<std::uint64_t> start = {0, 0, 0, 0}, end = {200'000, 400'000, 100'000, 100'000};
        const std::vector<std::uint32_t> lane = {0, 1, 2, 2};
        trace::add_agent_load(*t, {start, end, lane, "SM"}, test::kTraceT0, 4);
        m_view->setModels({makeTimelineModel(t, QStringLiteral("batch.gpu.queue"), "agent load: test note")});
        m_view->replotNow();
        QVERIFY2(m_view->summaryText().contains(QStringLiteral("\nagent load: test note")),
                 qPrintable(m_view->summaryText()));

        QStringList labels;
        for (const trace::Row& r : layout().rows) labels << QString::fromStdString(r.label);
        QCOMPARE(labels, (QStringList{QStringLiteral("stream 13"), QStringLiteral("agents in flight"),
                                      QStringLiteral("agents per SM"), QStringLiteral("SM 0"), QStringLiteral("SM 1"),
                                      QStringLiteral("SM 2")}));
        const auto& counts = plottable()->lastSpanCounts();
        QCOMPARE(counts[1], std::size_t(3));  // 4, 2, 1 agents: touching bins stay apart
        QCOMPARE(counts[2], std::size_t(0));  // the heading
        QCOMPARE(counts[5], std::size_t(1));

        // Overall row: the bin with 4 agents is darker than the ones with 2 and 1.
        QCustomPlot* plot = m_view->plot();
        auto pixelAt = [&](double relativeNs, int row) {
            return QPoint(int(std::lround(plot->xAxis->coordToPixel(relativeNs))),
                          int(std::lround(plot->yAxis->coordToPixel(plottable()->firstRow() + row))));
        };
        const QImage image = plot->toPixmap(plot->width(), plot->height()).toImage();
        auto lightness = [&](double ns, int row) { return QColor(image.pixel(pixelAt(ns, row))).lightness(); };
        QVERIFY(lightness(50'000, 1) < lightness(150'000, 1));
        QVERIFY(lightness(150'000, 1) < lightness(300'000, 1));
        QVERIFY(lightness(300'000, 1) < lightness(300'000, 2));  // one agent stands out from the (empty) heading
        QVERIFY(lightness(50'000, 3) < lightness(300'000, 3));   // SM 0 is idle in its second half
        QVERIFY(lightness(50'000, 5) < lightness(50'000, 4));    // lanes share a scale: SM 2's two agents are darker

        const QString tip = m_view->toolTipAt(pixelAt(50'000, 5));
        QVERIFY2(tip.contains(QStringLiteral("<b>SM 2</b>: 2 agents in flight, 0 ns")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("100.0 us")), qPrintable(tip));
    }

    // Not a test of speed: prints frame times for the report. The target is < 16 ms a frame.
    void measureFrameTime() {
        auto measure = [this](const char* what) {
            std::vector<double> ms;
            for (int i = 0; i < 10; ++i) {
                QElapsedTimer timer;
                timer.start();
                m_view->plot()->replot(QCustomPlot::rpImmediateRefresh);
                ms.push_back(double(timer.nsecsElapsed()) / 1e6);
            }
            std::sort(ms.begin(), ms.end());
            qInfo("frame time, 100,000 events, %s: median %.2f ms, max %.2f ms (QCP replotTime %.2f ms)", what,
                  ms[ms.size() / 2], ms.back(), m_view->plot()->replotTime());
        };
        QElapsedTimer layoutTimer;
        layoutTimer.start();
        m_view->setTimeline(m_loop, QStringLiteral("bfs.gpu.shared"));
        qInfo("setTimeline with 100,000 events (layout, gaps, summary): %.1f ms",
              double(layoutTimer.nsecsElapsed()) / 1e6);
        m_view->replotNow();
        measure("full view");
        m_view->zoomToRange(20e6, 30e6);
        measure("zoomed 10 ms");
        zoomAroundLevel(20'000);
        measure("zoomed 8 us");
        m_view->setLectureMode(true);
        m_view->resetZoom();
        measure("full view, lecture mode");
    }
};

QTEST_MAIN(TestTimelineWidget)
#include "test_timeline_widget.moc"
