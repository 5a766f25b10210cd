// Exported figures and data checked for structure: PNG (signature, requested size, resolution,
// paper background whatever the theme), PDF (vector drawing operators, no page-sized image),
// SVG (XML with an <svg> root and <path>/<rect> elements), CSV (header and rows) and Chrome trace
// JSON, for the timeline and a history plot; the headless entry points on a temporary history;
// and the pathscope binary's --export-timeline / --export-speedup without a display.
// Set PATHSCOPE_TEST_OUT to a folder to keep the exported files for a look.
#include <qcustomplot.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <cmath>
#include <map>

#include "tests/ui/support/timeline_fixture.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/plots/speedup_export.hpp"
#include "ui/timeline/timeline_export.hpp"
#include "ui/plots/plot_widget.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/timeline_widget.hpp"

using namespace ps;
using namespace ps::ui;

namespace {

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Width, height and pixels per metre of a PNG, from its IHDR and pHYs chunks.
struct PngInfo {
    bool valid = false;
    quint32 width = 0, height = 0, pixelsPerMetre = 0;
};

quint32 bigEndian(const QByteArray& bytes, qsizetype at) {
    return (quint32(uchar(bytes[at])) << 24) | (quint32(uchar(bytes[at + 1])) << 16) |
           (quint32(uchar(bytes[at + 2])) << 8) | quint32(uchar(bytes[at + 3]));
}

PngInfo pngInfo(const QByteArray& bytes) {
    PngInfo info;
    if (!bytes.startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8)) || bytes.mid(12, 4) != "IHDR") return info;
    info.valid = true;
    info.width = bigEndian(bytes, 16);
    info.height = bigEndian(bytes, 20);
    if (const qsizetype phys = bytes.indexOf("pHYs"); phys > 0) info.pixelsPerMetre = bigEndian(bytes, phys + 4);
    return info;
}

// The PDF's streams, those compressed with FlateDecode (zlib) inflated.
QByteArray pdfContent(const QByteArray& pdf) {
    QByteArray content;
    qsizetype at = 0;
    while (true) {
        const qsizetype keyword = pdf.indexOf("stream", at);
        if (keyword < 0) break;
        qsizetype begin = keyword + 6;
        if (pdf.mid(begin, 2) == "\r\n")
            begin += 2;
        else if (pdf.mid(begin, 1) == "\n")
            begin += 1;
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (end < 0) break;
        // The stream's dictionary sits between the object header and the keyword.
        const qsizetype object = pdf.lastIndexOf(" obj", keyword);
        const bool deflated = pdf.mid(object, keyword - object).contains("/FlateDecode");
        const QByteArray data = pdf.mid(begin, end - begin);
        // qUncompress wants a 4-byte size hint in front; it grows the buffer when the hint is short.
        content += deflated ? qUncompress(QByteArray("\x00\x10\x00\x00", 4) + data) : data;
        at = end + 9;
    }
    return content;
}

struct SvgInfo {
    QString root, error;
    int paths = 0, rects = 0, shapes = 0;  // shapes: every drawing element (polylines, circles, ...)
};

SvgInfo svgInfo(const QByteArray& bytes) {
    SvgInfo info;
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement) continue;
        if (info.root.isEmpty()) info.root = xml.name().toString();
        if (xml.name() == QLatin1String("path")) ++info.paths;
        if (xml.name() == QLatin1String("rect")) ++info.rects;
        for (const char* shape : {"path", "rect", "polyline", "polygon", "line", "circle", "ellipse"})
            if (xml.name() == QLatin1String(shape)) ++info.shapes;
    }
    if (xml.hasError()) info.error = xml.errorString();
    return info;
}

QStringList csvLines(const QByteArray& bytes) {
    return QString::fromUtf8(bytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

}  // namespace

class TestFigureExport : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_out;  // where files go: the temporary folder, or $PATHSCOPE_TEST_OUT
    QString m_db;
    std::int64_t m_traced = 0, m_untraced = 0;

    QString out(const QString& name) const { return m_out + QLatin1Char('/') + name; }

    void checkPng(const QString& path, quint32 width, quint32 height) {
        const PngInfo info = pngInfo(readAll(path));
        QVERIFY2(info.valid, qPrintable(path));
        QCOMPARE(info.width, width);
        QCOMPARE(info.height, height);
    }
    void checkPdf(const QString& path) {
        const QByteArray pdf = readAll(path);
        QVERIFY2(pdf.startsWith("%PDF-"), qPrintable(path));
        QVERIFY2(pdf.size() > 1024, qPrintable(QStringLiteral("%1: %2 bytes").arg(path).arg(pdf.size())));
        const QByteArray content = pdfContent(pdf);
        // Vector drawing: rectangles (re), paths (m, l) and fills (f): not one picture of the plot.
        const auto count = [&](const char* op) { return content.count(QByteArray(" ") + op + "\n"); };
        QVERIFY2(count("re") + count("l") > 20,
                 qPrintable(QStringLiteral("%1: %2 re, %3 l").arg(path).arg(count("re")).arg(count("l"))));
        QVERIFY(count("m") > 0);
        QVERIFY(!pdf.contains("/Subtype /Image"));
    }
    void checkSvg(const QString& path) {
        const SvgInfo info = svgInfo(readAll(path));
        QVERIFY2(info.error.isEmpty(), qPrintable(info.error));
        QCOMPARE(info.root, QStringLiteral("svg"));
        QVERIFY2(info.paths + info.rects > 0 && info.shapes > 10,
                 qPrintable(
                     QStringLiteral("%1 paths, %2 rects, %3 shapes").arg(info.paths).arg(info.rects).arg(info.shapes)));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_out = qEnvironmentVariable("PATHSCOPE_TEST_OUT", m_dir.path());
        QDir().mkpath(m_out);
        m_db = m_dir.filePath(QStringLiteral("history.sqlite"));
        const test::TimelineHistory history = test::fillTimelineHistory(m_db);
        QVERIFY2(history.error.isEmpty(), qPrintable(history.error));
        m_traced = history.hostLoop;
        m_untraced = history.untraced;
    }

    void formatsFromSuffix() {
        QCOMPARE(figureFormat(QStringLiteral("a/b.PNG")), FigureFormat::Png);
        QCOMPARE(figureFormat(QStringLiteral("b.pdf")), FigureFormat::Pdf);
        QCOMPARE(figureFormat(QStringLiteral("b.svg")), FigureFormat::Svg);
        QCOMPARE(figureFormat(QStringLiteral("b.csv")), FigureFormat::Csv);
        QCOMPARE(figureFormat(QStringLiteral("b.json")), FigureFormat::Json);
        QCOMPARE(figureFormat(QStringLiteral("b.txt")), FigureFormat::Unknown);
        QCOMPARE(figureFormat(QStringLiteral("b")), FigureFormat::Unknown);
    }

    void timelineFigures() {
        TimelineWidget view;
        view.resize(1000, 360);
        view.setProvenance({"bfs.gpu.shared", "empty 512x512", "NVIDIA H100", "build abc1234"});
        view.setTimeline(test::hostLoopTimeline(2000), QStringLiteral("bfs.gpu.shared"));
        view.setCursorLevel(700);
        view.zoomToRange(2.79e6, 2.83e6);  // a few levels: labels, gaps and the cursor show

        FigureOptions options;
        options.width = 800;
        options.height = 300;
        options.scale = 2;
        QString error;
        QVERIFY2(exportFigure(view.plot(), out(QStringLiteral("timeline-scaled.png")), options, &error),
                 qPrintable(error));
        checkPng(out(QStringLiteral("timeline-scaled.png")), 1600, 600);
        options.scale = 1;
        options.dpi = 288;  // 3x, and the file says 288 dpi
        QVERIFY2(exportFigure(view.plot(), out(QStringLiteral("timeline-dpi.png")), options, &error),
                 qPrintable(error));
        checkPng(out(QStringLiteral("timeline-dpi.png")), 2400, 900);
        QCOMPARE(pngInfo(readAll(out(QStringLiteral("timeline-dpi.png")))).pixelsPerMetre,
                 quint32(std::lround(288 / 0.0254)));

        for (const char* name : {"timeline.png", "timeline.pdf", "timeline.svg", "timeline.csv", "timeline.json"})
            QVERIFY2(view.exportTo(out(QString::fromLatin1(name)), &error), qPrintable(error));
        QVERIFY(pngInfo(readAll(out(QStringLiteral("timeline.png")))).valid);
        checkPdf(out(QStringLiteral("timeline.pdf")));
        checkSvg(out(QStringLiteral("timeline.svg")));

        const QStringList csv = csvLines(readAll(out(QStringLiteral("timeline.csv"))));
        QVERIFY(csv.value(0).startsWith(QStringLiteral("kind,name,track,start_ns,end_ns,duration_ns")));
        QCOMPARE(csv.size(), 1 + 2000 * 4);

        const QByteArray json = readAll(out(QStringLiteral("timeline.json")));
        QVERIFY(json.startsWith("{\"traceEvents\":["));
        QJsonParseError parse;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &parse);
        QVERIFY2(!doc.isNull(), qPrintable(parse.errorString()));
        QVERIFY(doc.object().value("traceEvents").toArray().size() >= 2000 * 4);
        QCOMPARE(doc.object().value("metadata").toObject().value("device").toString(), QStringLiteral("NVIDIA H100"));

        QVERIFY(!view.exportTo(out(QStringLiteral("timeline.txt")), &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!view.exportTo(m_dir.filePath(QStringLiteral("no/such/folder/t.png")), &error));
        QVERIFY2(error.contains(QStringLiteral("cannot write")), qPrintable(error));
    }

    void compareAndLectureFigures() {
        TimelineWidget view;
        view.resize(1000, 400);
        view.setComparison(test::hostLoopTimeline(300), QStringLiteral("bfs.gpu.shared"), test::tailChainTimeline(300),
                           QStringLiteral("bfs.gpu.dp"));
        view.setLectureMode(true);
        view.setCursorLevel(13);
        view.zoomToRange(30e3, 90e3);
        QString error;
        QVERIFY2(view.exportTo(out(QStringLiteral("compare.png")), &error), qPrintable(error));
        QVERIFY(pngInfo(readAll(out(QStringLiteral("compare.png")))).valid);
        QVERIFY2(view.exportTo(out(QStringLiteral("compare.svg")), &error), qPrintable(error));
        checkSvg(out(QStringLiteral("compare.svg")));
        // The caption is on the figure: the SVG's text says what level 13 was.
        const QByteArray svg = readAll(out(QStringLiteral("compare.svg")));
        QVERIFY(svg.contains("tail launch"));
    }

    void paperPaletteWhateverTheTheme() {
        TimelineWidget view;
        view.resize(900, 300);
        view.setTimeline(test::tailChainTimeline(100), QStringLiteral("bfs.gpu.dp"));
        QPalette dark = view.palette();
        dark.setColor(QPalette::Window, QColor(0x202020));
        dark.setColor(QPalette::WindowText, QColor(0xeeeeee));
        dark.setColor(QPalette::Base, QColor(0x181818));
        view.setPalette(dark);
        QCOMPARE(view.plottable()->palette().background, TimelinePalette::dark().background);
        const QColor screen = view.plot()->toPixmap(200, 100).toImage().pixelColor(3, 3);
        QVERIFY(screen.lightness() < 128);

        QString error;
        QVERIFY2(view.exportTo(out(QStringLiteral("timeline-from-dark.png")), &error), qPrintable(error));
        const QImage image(out(QStringLiteral("timeline-from-dark.png")));
        QVERIFY(!image.isNull());
        // Corners away from the text: the title starts at the top left and its first glyph may
        // cover (3, 3) with some fonts (it did with the DejaVu fonts bundled for the GPU machine).
        QCOMPARE(image.pixelColor(3, image.height() - 3), QColor(Qt::white));
        QCOMPARE(image.pixelColor(image.width() - 3, image.height() - 3), QColor(Qt::white));
        // And back to the screen's colours afterwards.
        QCOMPARE(view.plot()->toPixmap(200, 100).toImage().pixelColor(3, 3), screen);
        QCOMPARE(view.plottable()->palette().background, TimelinePalette::dark().background);
        QCOMPARE(view.plot()->xAxis->tickLabelColor().lightness() > 128, true);
    }

    void plotFigures() {
        const SweepLoad load = loadSweep(m_db, QStringLiteral("sweep-1"));
        QVERIFY2(load.error.isEmpty(), qPrintable(load.error));
        QCOMPARE(load.data.runs, 4);
        QVERIFY2(load.data.provenance.contains(QStringLiteral("NVIDIA H100")), qPrintable(load.data.provenance));
        QVERIFY(load.data.provenance.contains(QStringLiteral("abc1234")));

        PlotWidget plot;
        plot.resize(900, 600);
        plot.setData(load.data);
        QCOMPARE(plot.variants(), QStringList({QStringLiteral("bfs.cpu.queue"), QStringLiteral("bfs.gpu.shared")}));
        QCOMPARE(plot.baseline(), QStringLiteral("bfs.cpu.queue"));  // a CPU variant by default
        QCOMPARE(plot.pointCount(), 4);
        QString error;
        QVERIFY2(plot.exportTo(out(QStringLiteral("time.pdf")), &error), qPrintable(error));
        checkPdf(out(QStringLiteral("time.pdf")));
        plot.setMode(PlotWidget::Mode::Speedup);
        QCOMPARE(plot.pointCount(), 2);  // the GPU variant over the CPU one at two sizes
        QVERIFY2(plot.exportTo(out(QStringLiteral("speedup.svg")), &error), qPrintable(error));
        checkSvg(out(QStringLiteral("speedup.svg")));
        QVERIFY2(plot.exportTo(out(QStringLiteral("speedup.png")), &error), qPrintable(error));
        checkPng(out(QStringLiteral("speedup.png")), 900, 600);
        QVERIFY2(plot.exportTo(out(QStringLiteral("speedup.csv")), &error), qPrintable(error));
        const QStringList csv = csvLines(readAll(out(QStringLiteral("speedup.csv"))));
        QCOMPARE(csv.size(), 5);
        QVERIFY(csv[0].endsWith(QStringLiteral(",speedup,speedup_low,speedup_high")));
        QVERIFY2(csv.contains(QStringLiteral("bfs.gpu.shared,64,64,4096,1,3,1.2,1,1.5,4.16667,3.33333,5")),
                 qPrintable(csv.join(QLatin1Char('\n'))));
        plot.setMode(PlotWidget::Mode::Bars);
        QCOMPARE(plot.pointCount(), 4);
        plot.setMetric(PlotMetric::Compute);
        QVERIFY2(plot.exportTo(out(QStringLiteral("bars.pdf")), &error), qPrintable(error));
        checkPdf(out(QStringLiteral("bars.pdf")));
        QVERIFY2(plot.exportTo(out(QStringLiteral("bars.png")), &error), qPrintable(error));
        checkPng(out(QStringLiteral("bars.png")), 900, 600);
    }

    void runFilters() {
        const struct {
            QString text;
            std::string bench, map, variant, device;
        } cases[] = {
            {QStringLiteral("sweep-1"), "sweep-1", "", "", ""},
            {QStringLiteral(" sweep-1 "), "sweep-1", "", "", ""},
            {QStringLiteral("map=empty-64"), "", "empty-64", "", ""},
            {QStringLiteral("bench=b, variant=gpu,device=H100"), "b", "", "gpu", "H100"},
            {QStringLiteral("colour=red,map=x"), "", "x", "", ""},
        };
        for (const auto& c : cases) {
            const db::RunFilter f = parseRunFilter(c.text);
            QCOMPARE(f.bench_id, c.bench);
            QCOMPARE(f.map, c.map);
            QCOMPARE(f.variant, c.variant);
            QCOMPARE(f.device, c.device);
        }
        const SweepLoad byMap = loadSweep(m_db, QStringLiteral("map=empty-64,bench=sweep-1"));
        QVERIFY2(byMap.error.isEmpty(), qPrintable(byMap.error));
        QCOMPARE(byMap.data.runs, 2);
        QVERIFY(!loadSweep(m_db, QStringLiteral("no-such-bench")).error.isEmpty());
        QVERIFY(!loadSweep(m_dir.filePath(QStringLiteral("missing.sqlite")), QStringLiteral("x")).error.isEmpty());
        QCOMPARE(listBenchIds(m_db), QStringList{QStringLiteral("sweep-1")});
    }

    void headlessExports() {
        QString error;
        for (const char* name : {"run.pdf", "run.svg", "run.png", "run.csv", "run.json"})
            QVERIFY2(exportTimeline(m_db, m_traced, out(QStringLiteral("headless-") + QLatin1String(name)), &error),
                     qPrintable(error));
        checkPdf(out(QStringLiteral("headless-run.pdf")));
        checkSvg(out(QStringLiteral("headless-run.svg")));
        QVERIFY(pngInfo(readAll(out(QStringLiteral("headless-run.png")))).valid);
        QVERIFY(readAll(out(QStringLiteral("headless-run.json"))).startsWith("{\"traceEvents\":["));
        QCOMPARE(csvLines(readAll(out(QStringLiteral("headless-run.csv")))).size(), 1 + 300 * 4);

        QVERIFY(!exportTimeline(m_db, m_untraced, out(QStringLiteral("none.pdf")), &error));
        QVERIFY2(error.contains(QStringLiteral("no timeline")), qPrintable(error));
        QVERIFY(!exportTimeline(m_db, 9999, out(QStringLiteral("none.pdf")), &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!exportTimeline(m_db, m_traced, out(QStringLiteral("run.doc")), &error));

        for (const char* name : {"sweep.pdf", "sweep.svg", "sweep.png", "sweep.csv"})
            QVERIFY2(exportSpeedup(m_db, QStringLiteral("sweep-1"), QStringLiteral("bfs.cpu.queue"),
                                   out(QStringLiteral("headless-") + QLatin1String(name)), &error),
                     qPrintable(error));
        checkSvg(out(QStringLiteral("headless-sweep.svg")));
        QVERIFY(csvLines(readAll(out(QStringLiteral("headless-sweep.csv"))))[0].contains(QStringLiteral("speedup")));
        QVERIFY(!exportSpeedup(m_db, QStringLiteral("sweep-1"), QStringLiteral("bfs.nope"),
                               out(QStringLiteral("x.pdf")), &error));
        QVERIFY2(error.contains(QStringLiteral("not among")), qPrintable(error));
        QVERIFY(!exportSpeedup(m_db, QStringLiteral("sweep-1"), {}, out(QStringLiteral("x.json")), &error));
        // --lecture: a slide (1920 x 1080) whose smallest text is 14 pt and whose lines are 3 px.
        QVERIFY2(exportSpeedup(m_db, QStringLiteral("sweep-1"), QStringLiteral("bfs.cpu.queue"),
                               out(QStringLiteral("lecture-sweep.png")), &error, true),
                 qPrintable(error));
        checkPng(out(QStringLiteral("lecture-sweep.png")), 1920, 1080);
        PlotWidget slide;
        slide.setLectureType(true);
        slide.setData(loadSweep(m_db, QStringLiteral("sweep-1")).data);
        QVERIFY(slide.plot()->graphCount() > 0);
        for (QCPAxis* axis : {slide.plot()->xAxis, slide.plot()->yAxis})
            QVERIFY(axis->tickLabelFont().pointSizeF() >= 14 && axis->basePen().widthF() >= 2);
        QVERIFY(slide.plot()->legend->font().pointSizeF() >= 14);
        QCOMPARE(slide.plot()->graph(0)->pen().widthF(), 3.0);
    }

    // `pathscope-cli bench --family scen` stores one run per map and variant whose samples are
    // whole-file times: the speed-up export pools them by map size like any bench sweep, and its
    // medians are the bench's own.
    void scenBenchRows() {
        const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/pathscope-cli");
        if (!QFileInfo::exists(cli)) QSKIP("pathscope-cli is not built");
        // An open 12x9 map: every length is the octile distance.
        const QString map = m_dir.filePath(QStringLiteral("scen-plot.map"));
        QFile mapFile(map);
        QVERIFY(mapFile.open(QIODevice::WriteOnly));
        mapFile.write("type octile\nheight 9\nwidth 12\nmap\n");
        for (int y = 0; y < 9; ++y) mapFile.write("............\n");
        mapFile.close();
        QFile scen(map + QStringLiteral(".scen"));
        QVERIFY(scen.open(QIODevice::WriteOnly));
        scen.write(
            "version 1\n"
            "0\tscen-plot.map\t12\t9\t0\t0\t11\t8\t14.31370850\n"
            "0\tscen-plot.map\t12\t9\t3\t2\t3\t7\t5.00000000\n"
            "0\tscen-plot.map\t12\t9\t11\t0\t0\t8\t14.31370850\n");
        scen.close();
        const QString db = m_dir.filePath(QStringLiteral("scen-bench.sqlite"));
        const QString benchCsv = m_dir.filePath(QStringLiteral("scen-bench.csv"));
        QProcess bench;
        bench.start(
            cli, {QStringLiteral("bench"), QStringLiteral("--family"), QStringLiteral("scen"), QStringLiteral("--scen"),
                  scen.fileName(), QStringLiteral("--variant"), QStringLiteral("astar.cpu,batch.cpu"),
                  QStringLiteral("--repeat"), QStringLiteral("3"), QStringLiteral("--warmup"), QStringLiteral("0"),
                  QStringLiteral("--db"), db, QStringLiteral("--csv"), benchCsv});
        QVERIFY(bench.waitForFinished(60'000));
        QVERIFY2(bench.exitCode() == 0, bench.readAllStandardError().constData());

        QString error;
        const QStringList ids = listBenchIds(db, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(ids.size(), 1);
        QVERIFY(ids.front().startsWith(QStringLiteral("scen-")));
        const QString plotCsv = out(QStringLiteral("scen-speedup.csv"));
        QVERIFY2(exportSpeedup(db, ids.front(), QStringLiteral("astar.cpu"), plotCsv, &error), qPrintable(error));
        QVERIFY2(exportSpeedup(db, ids.front(), QStringLiteral("astar.cpu"), out(QStringLiteral("scen-speedup.svg")),
                               &error),
                 qPrintable(error));
        checkSvg(out(QStringLiteral("scen-speedup.svg")));

        // The bench's total medians, by variant, against the plot's points.
        std::map<QString, double> benchTotal;
        for (const QString& line : csvLines(readAll(benchCsv)).mid(1)) {
            const QStringList f = line.split(QLatin1Char(','));
            benchTotal[f.value(1)] = f.value(6).toDouble();  // variant, total_median_ms
        }
        QCOMPARE(benchTotal.size(), std::size_t(2));
        const QStringList plot = csvLines(readAll(plotCsv));
        QCOMPARE(plot.value(0), QStringLiteral("variant,width,height,cells,runs,samples,median_ms,min_ms,max_ms,"
                                               "speedup,speedup_low,speedup_high"));
        QCOMPARE(plot.size(), 3);
        for (const QString& line : plot.mid(1)) {
            const QStringList f = line.split(QLatin1Char(','));
            const QString variant = f.value(0);
            QVERIFY2(benchTotal.count(variant), qPrintable(line));
            QCOMPARE(f.value(1), QStringLiteral("12"));
            QCOMPARE(f.value(2), QStringLiteral("9"));
            QCOMPARE(f.value(4), QStringLiteral("1"));  // one stored run per map and variant
            QCOMPARE(f.value(5), QStringLiteral("3"));  // its samples: one per repetition
            const double median = f.value(6).toDouble();
            QVERIFY2(std::abs(median - benchTotal[variant]) <= 1e-4 * benchTotal[variant] + 1e-6, qPrintable(line));
            const double speedup = f.value(9).toDouble();
            QVERIFY2(std::abs(speedup - benchTotal[QStringLiteral("astar.cpu")] / median) <= 1e-4 * speedup + 1e-6,
                     qPrintable(line));
        }
    }

    // The binary itself, as a user runs it on a machine without a display.
    void commandLine() {
        const QString binary = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/pathscope");
        if (!QFileInfo::exists(binary)) QSKIP("the pathscope binary is not built");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QString::fromLatin1(name));
        auto run = [&](const QStringList& args, QByteArray* err) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(binary, args);
            if (!p.waitForFinished(60'000)) return -1;
            *err = p.readAllStandardError();
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        };
        QByteArray err;
        const QString pdf = out(QStringLiteral("cli-timeline.pdf"));
        QCOMPARE(run({QStringLiteral("--export-timeline"), QString::number(m_traced), QStringLiteral("--out"), pdf,
                      QStringLiteral("--db"), m_db},
                     &err),
                 0);
        checkPdf(pdf);
        const QString svg = out(QStringLiteral("cli-speedup.svg"));
        QCOMPARE(run({QStringLiteral("--export-speedup"), QStringLiteral("sweep-1"), QStringLiteral("--baseline"),
                      QStringLiteral("bfs.cpu.queue"), QStringLiteral("--out"), svg, QStringLiteral("--db"), m_db},
                     &err),
                 0);
        checkSvg(svg);
        QCOMPARE(run({QStringLiteral("--export-timeline"), QString::number(m_untraced), QStringLiteral("--out"), pdf,
                      QStringLiteral("--db"), m_db},
                     &err),
                 2);
        QVERIFY2(err.contains("no timeline"), err.constData());
        QCOMPARE(run({QStringLiteral("--export-timeline"), QStringLiteral("seven"), QStringLiteral("--out"), pdf,
                      QStringLiteral("--db"), m_db},
                     &err),
                 2);
        QCOMPARE(
            run({QStringLiteral("--export-timeline"), QString::number(m_traced), QStringLiteral("--db"), m_db}, &err),
            2);
        QVERIFY2(err.contains("--out"), err.constData());
    }
};

QTEST_MAIN(TestFigureExport)
#include "test_figure_export.moc"
