// The plots' MTEPS metric: a small bench sweep of BFS runs (and one A* run, which stores no edge
// count) in a history, loaded as the Plots dock loads it; the rate per run matches the runner's
// "mteps" counter, and the widget plots and exports it with its own axis and CSV columns.
#include <qcustomplot.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>

#include "database/recorder.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/run/runner.hpp"
#include "ui/plots/plot_widget.hpp"

using namespace ps;
using namespace ps::ui;

class TestPlotMteps : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::map<std::pair<std::string, int>, double> m_mteps;  // (variant, side) -> the runner's counter

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("history.sqlite"));
        auto history = db::History::open(m_db.toStdString());
        QVERIFY(history);
        for (const int side : {24, 48}) {
            GeneratorParams params;
            params.kind = GeneratorKind::Noise;
            params.width = params.height = side;
            params.seed = 3;
            auto map = std::make_shared<const GridMap>(generate_map(params).value());
            for (const char* id : {"bfs.cpu.queue", "bfs.cpu", "astar.cpu"}) {
                db::HistoryRecorder recorder(*history);
                recorder.set_bench_id("mteps-sweep");
                RunRequest request;
                request.variant_id = id;
                request.problem.map = map;
                request.problem.rules.connectivity =
                    std::string(id) == "astar.cpu" ? Connectivity::Eight : Connectivity::Four;
                request.problem.start = map->index(*nearest_passable(*map, Cell{0, 0}));
                request.problem.goal = map->index(*nearest_passable(*map, Cell{side - 1, side - 1}));
                request.repeat = 3;  // odd: the median rate is the rate of the median time
                const RunReport report = run_variant(request, &recorder);
                recorder.record(request, report);
                QCOMPARE(report.result.status, RunStatus::Ok);
                const auto rate = report.result.counters.find(kMtepsCounter);
                if (rate != report.result.counters.end()) m_mteps[{id, side}] = rate->second;
            }
        }
        QCOMPARE(m_mteps.size(), std::size_t(4));  // the BFS runs, on both sizes
    }

    void loadsARatePerBfsRun() {
        const SweepLoad load = loadSweep(m_db, QStringLiteral("mteps-sweep"));
        QVERIFY2(load.error.isEmpty(), qPrintable(load.error));
        QCOMPARE(load.data.total.size(), std::size_t(3));
        QCOMPARE(load.data.mteps.size(), std::size_t(2));  // astar.cpu counts no edges
        for (const plot::SweepSeries& s : load.data.mteps) {
            QCOMPARE(s.points.size(), std::size_t(2));
            for (const plot::SweepPoint& p : s.points) {
                const double counter = m_mteps.at({s.variant, p.width});
                QVERIFY2(std::abs(p.median_ms - counter) <= 1e-9 * counter,
                         qPrintable(QStringLiteral("%1 %2: %3 vs %4")
                                        .arg(QString::fromStdString(s.variant))
                                        .arg(p.width)
                                        .arg(p.median_ms)
                                        .arg(counter)));
                QVERIFY(p.min_ms <= p.median_ms && p.median_ms <= p.max_ms);
            }
        }
    }

    void plotsAndExportsTheRate() {
        const SweepLoad load = loadSweep(m_db, QStringLiteral("mteps-sweep"));
        PlotWidget plot;
        plot.resize(900, 600);
        plot.setData(load.data);
        plot.setMetric(PlotMetric::Mteps);
        QCOMPARE(plot.pointCount(), 4);
        QCOMPARE(plot.plot()->yAxis->label(), QStringLiteral("MTEPS"));
        plot.setMode(PlotWidget::Mode::Bars);
        QCOMPARE(plot.pointCount(), 4);
        QCOMPARE(plot.plot()->yAxis->label(), QStringLiteral("median MTEPS"));
        plot.setMode(PlotWidget::Mode::Speedup);
        plot.setBaseline(QStringLiteral("bfs.cpu"));
        QCOMPARE(plot.pointCount(), 2);  // bfs.cpu.queue over bfs.cpu at both sizes
        QString error;
        const QString csv = m_dir.filePath(QStringLiteral("mteps.csv"));
        QVERIFY2(plot.exportTo(csv, &error), qPrintable(error));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString header = QString::fromUtf8(file.readLine()).trimmed();
        QCOMPARE(header, QStringLiteral("variant,width,height,cells,runs,samples,median_mteps,min_mteps,max_mteps,"
                                        "speedup,speedup_low,speedup_high"));
        // Back to times: the end-to-end series of all three variants.
        plot.setMetric(PlotMetric::Total);
        plot.setMode(PlotWidget::Mode::Time);
        QCOMPARE(plot.pointCount(), 6);
    }
};

QTEST_MAIN(TestPlotMteps)
#include "test_plot_mteps.moc"
