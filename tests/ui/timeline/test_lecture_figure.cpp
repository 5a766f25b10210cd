// The lecture figure on traces recorded on the H100 (tests/data: bfs.gpu.shared and bfs.gpu.dp
// on an open 64 x 64 grid, full tracing): two runs stacked, each aligned to its own level A,
// showing exactly levels A-B, every gap in the window labelled with its length, every host
// launch and device launch marked; the headless export at a slide's width; lecture stepping
// keeping a window around the cursor for both runs; the caption never over the plot.
#include <qcustomplot.h>

#include <QScrollArea>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "kernels/map/grid_map.hpp"
#include "ui/timeline/timeline_export.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/timeline_widget.hpp"
#include "tests/ui/support/recorded_traces.hpp"

using namespace ps;
using namespace ps::ui;

namespace {

// The gaps of a run that lie inside its window (relative ns), by label.
QStringList gapsInside(const TimelinePlottable& p) {
    QStringList labels;
    const auto& layout = p.model()->layout;
    for (const trace::GapSpan& g : layout.gaps)
        if (g.end_ns > g.start_ns && layout.relative(g.start_ns) >= p.window()->first &&
            layout.relative(g.end_ns) <= p.window()->second)
            labels << QString::fromStdString(g.label);
    labels.sort();
    return labels;
}

// Events of a run starting inside its window that pass `keep`.
template <class Keep>
int startsInside(const TimelinePlottable& p, Keep keep) {
    const auto& layout = p.model()->layout;
    const auto& events = p.model()->timeline->events;
    int n = 0;
    for (std::uint32_t i = 0; i < events.size(); ++i) {
        const double at = layout.relative(events[i].start_ns);
        if (at >= p.window()->first && at <= p.window()->second && keep(events[i], i)) ++n;
    }
    return n;
}

}  // namespace

class TestLectureFigure : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const trace::Timeline> m_shared, m_dp;
    QString m_missing;
    QTemporaryDir m_dir;

    void requireTraces() {
        if (!m_shared || !m_dp) QSKIP(qPrintable(m_missing));
    }

private slots:
    void initTestCase() {
        m_shared = test::recordedTrace("bfs_shared_64.csv", &m_missing);
        m_dp = test::recordedTrace("bfs_dp_64.csv", &m_missing);
        QVERIFY(m_dir.isValid());
    }

    void parsesTheCommandLine() {
        QString error;
        QVERIFY(parseRunList(QStringLiteral("4,7"), &error) == std::optional(std::vector<std::int64_t>{4, 7}));
        QVERIFY(!parseRunList(QStringLiteral("1,2,3"), &error));
        QVERIFY(error.contains(QStringLiteral("at most two")));
        QVERIFY(!parseRunList(QStringLiteral("x"), &error));
        QVERIFY(parseLevelRange(QStringLiteral("20-23"), &error) == std::optional(std::pair(20, 23)));
        QVERIFY(parseLevelRange(QStringLiteral("5"), &error) == std::optional(std::pair(5, 5)));
        QVERIFY(!parseLevelRange(QStringLiteral("23-20"), &error));
        QVERIFY(parseTimeRange(QStringLiteral("1ms-1.5ms"), &error) == std::optional(std::pair(1e6, 1.5e6)));
        QVERIFY(parseTimeRange(QStringLiteral("120-250"), &error) == std::optional(std::pair(120e3, 250e3)));
        QVERIFY(parseTimeRange(QStringLiteral("800ns-2us"), &error) == std::optional(std::pair(800.0, 2000.0)));
        QVERIFY(!parseTimeRange(QStringLiteral("2ms-1ms"), &error));
        QVERIFY(!parseTimeRange(QStringLiteral("soon-later"), &error));
    }

    void levelWindowShowsExactlyTheLevelsWithEveryGapLabelled() {
        requireTraces();
        TimelineWidget view;
        view.resize(1920, 1000);
        view.setComparison(m_shared, QStringLiteral("bfs.gpu.shared"), m_dp, QStringLiteral("bfs.gpu.dp"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setLectureMode(true);
        QString error;
        QVERIFY2(view.setLevelWindow(20, 23, -1, &error), qPrintable(error));
        view.replotNow();
        const std::vector<int> expected{20, 21, 22, 23};
        for (int run = 0; run < 2; ++run) {
            QCOMPARE(view.visibleLevels(run), expected);
            const TimelinePlottable& p = *view.plottable(run);
            const auto& layout = p.model()->layout;
            // Each run's own level 20 starts at time 0.
            const auto level20 = trace::find_level(layout.levels, 20);
            QVERIFY(level20);
            QCOMPARE(p.shift(), layout.relative(layout.levels[*level20].start_ns));
            // The window opens at the end of level 19: the launch gap before level 20 is in it.
            QCOMPARE(p.window()->first, layout.relative(layout.levels[*level20 - 1].end_ns));
            QStringList drawn = p.lastGapLabels();
            drawn.sort();
            const QStringList inside = gapsInside(p);
            QVERIFY2(inside.size() >= 4, qPrintable(inside.join(QLatin1Char(' '))));  // at least one per level
            QCOMPARE(drawn, inside);
        }
        // bfs.gpu.shared: a line from every kernel's cudaLaunchKernel; bfs.gpu.dp: a diamond on
        // every level the GPU launched, and no host launch inside the window.
        const TimelinePlottable& shared = *view.plottable(0);
        const int kernels = startsInside(shared, [&](const trace::Event& e, std::uint32_t i) {
            return e.kind == trace::EventKind::Kernel && shared.model()->layout.partner[i] != trace::kNoIndex;
        });
        QCOMPARE(kernels, 4);
        QCOMPARE(shared.lastHostLaunchMarks(), kernels);
        QCOMPARE(shared.lastDeviceLaunchMarks(), 0);
        const TimelinePlottable& dp = *view.plottable(1);
        QCOMPARE(dp.lastDeviceLaunchMarks(), 4);
        QCOMPARE(dp.lastHostLaunchMarks(), 0);

        // Levels a run lacks: refused with the levels it has, the window as it was.
        QVERIFY(!view.setLevelWindow(500, 503, -1, &error));
        QVERIFY2(error.contains(QStringLiteral("levels 0-126")), qPrintable(error));
        QCOMPARE(view.levelWindow()->first, 20);
        view.clearLevelWindow();
        QVERIFY(!view.levelWindow());
        QCOMPARE(view.plottable(1)->shift(), 0.0);
        QCOMPARE(int(view.visibleLevels(1).size()), 127);
    }

    void lectureStepsKeepAWindowAroundTheCursor() {
        requireTraces();
        TimelineWidget view;
        view.resize(1200, 420);  // fewer pixels than the rows want: the plot scrolls
        view.setComparison(m_shared, QStringLiteral("bfs.gpu.shared"), m_dp, QStringLiteral("bfs.gpu.dp"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setLectureMode(true);
        view.setCursorLevel(40);
        for (int step = 0; step < 6; ++step) {
            const int level = view.cursorLevel();
            QVERIFY(view.levelWindow());
            for (int run = 0; run < 2; ++run) {
                const std::vector<int> shown = view.visibleLevels(run);
                QVERIFY2(shown.size() <= 4 && std::find(shown.begin(), shown.end(), level) != shown.end(),
                         qPrintable(QStringLiteral("step %1, run %2").arg(step).arg(run)));
                const TimelinePlottable& p = *view.plottable(run);
                QVERIFY(p.cursor());
                const double at = *p.cursor() - p.shift();
                QVERIFY(view.visibleBegin() <= at && at <= view.visibleEnd());
            }
            view.stepLevel(+1);
        }
        QCOMPARE(view.cursorLevel(), 46);
        // The caption sits below the plot's area, never over a row or the time axis.
        QApplication::processEvents();
        auto* scroll = view.findChild<QScrollArea*>();
        QVERIFY(scroll);
        QLabel* caption = nullptr;
        for (QLabel* label : view.findChildren<QLabel*>())
            if (label->text().contains(QStringLiteral("tail launch"))) caption = label;
        QVERIFY(caption && caption->isVisible());
        QVERIFY2(caption->geometry().top() >= scroll->geometry().bottom(),
                 qPrintable(QStringLiteral("caption at %1, plot area ends at %2")
                                .arg(caption->geometry().top())
                                .arg(scroll->geometry().bottom())));
        QVERIFY(view.plot()->height() > scroll->viewport()->height());  // the rows scroll instead
        view.setLectureMode(false);
        QVERIFY(!view.levelWindow());
    }

    void headlessExportAtASlidesWidth() {
        requireTraces();
        const QString db = m_dir.filePath(QStringLiteral("lecture.sqlite"));
        std::vector<std::int64_t> ids;
        {
            auto history = db::History::open(db.toStdString());
            QVERIFY(history);
            GridMap map(64, 64);
            map.name = "empty-64";
            auto map_id = history->save_map(map, "empty");
            QVERIFY(map_id);
            for (const auto& [variant, timeline] :
                 {std::pair("bfs.gpu.shared", m_shared), std::pair("bfs.gpu.dp", m_dp)}) {
                db::RunInfo info;
                info.map_id = *map_id;
                info.variant = variant;
                info.device_name = "NVIDIA H100 80GB HBM3";
                auto id = history->begin_run(info);
                QVERIFY(id);
                QVERIFY(history->add_events(*id, db::encode_timeline(*timeline)));
                QVERIFY(history->finish_run(*id, {}));
                ids.push_back(*id);
            }
        }
        QString error;
        const QString png = m_dir.filePath(QStringLiteral("lecture.png"));
        QVERIFY2(exportTimeline(db, TimelineFigure{ids, std::pair(20, 23), std::nullopt, true}, png, &error),
                 qPrintable(error));
        const QImage image(png);
        QCOMPARE(image.width(), 1920);
        QVERIFY(image.height() > 600);
        const QString svg = m_dir.filePath(QStringLiteral("lecture.svg"));
        QVERIFY2(exportTimeline(db, TimelineFigure{ids, std::pair(20, 23), std::nullopt, true}, svg, &error),
                 qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        // The captions of level 20 for both runs, and the launch legend.
        QVERIFY(text.contains("host loop"));
        QVERIFY(text.contains("tail launch"));
        QVERIFY(text.contains("since each run"));
        // Levels outside a run, and --levels with --range, are refused with a reason.
        QVERIFY(!exportTimeline(db, TimelineFigure{ids, std::pair(500, 503), std::nullopt, true}, png, &error));
        QVERIFY(error.contains(QStringLiteral("not 500-503")));
        QVERIFY(!exportTimeline(db, TimelineFigure{ids, std::pair(1, 2), std::pair(0.0, 1e3), false}, png, &error));
    }

    void lectureTypeIsLegibleOnASlide() {
        requireTraces();
        TimelineWidget view;
        view.setTimeline(m_dp, QStringLiteral("bfs.gpu.dp"));
        view.setLectureMode(true);
        QVERIFY(view.plot()->xAxis->tickLabelFont().pointSizeF() >= 14);
        QVERIFY(view.plot()->yAxis->tickLabelFont().pointSizeF() >= 14);
        QVERIFY(view.plot()->xAxis->basePen().widthF() >= 2);
    }
};

QTEST_MAIN(TestLectureFigure)
#include "test_lecture_figure.moc"
