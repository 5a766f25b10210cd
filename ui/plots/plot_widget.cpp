// History plots (see plot_widget.hpp). The numbers come from plot::build_sweep and
// plot::speedup_over; this file loads runs and turns series into QCustomPlot graphs and bars.
#include "ui/plots/plot_widget.hpp"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "kernels/run/edges_visited.hpp"
#include "kernels/run/variant.hpp"
#include "ui/common/async.hpp"
#include "ui/common/figure_export.hpp"

namespace ps::ui {

namespace {

// Tableau 10: distinguishable, readable on light and dark backgrounds and in print.
const QColor kSeriesColours[] = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0xe15759), QColor(0x76b7b2),
                                 QColor(0x59a14f), QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7),
                                 QColor(0x9c755f), QColor(0xbab0ac)};

QColor seriesColour(std::size_t i) { return kSeriesColours[i % std::size(kSeriesColours)]; }

// Past ten series the colours repeat: the marker shape and line style tell them apart.
QCPScatterStyle::ScatterShape seriesShape(std::size_t i) {
    constexpr QCPScatterStyle::ScatterShape shapes[] = {QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare,
                                                        QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond};
    return shapes[(i / std::size(kSeriesColours)) % std::size(shapes)];
}
Qt::PenStyle seriesLine(std::size_t i) { return (i / std::size(kSeriesColours)) % 2 ? Qt::DashLine : Qt::SolidLine; }

// The series name of a run: its variant, plus the values of variant parameters that differ
// from their defaults, as the bench names them ("bfs.gpu.frontier[once]"), so that e.g. frontier
// buffers allocated once are not pooled with those allocated per level.
std::string seriesName(const db::RunRow& row) {
    const QJsonObject params =
        QJsonDocument::fromJson(QByteArray::fromStdString(row.info.params_json)).object().value("params").toObject();
    const Variant* variant = Registry::instance().find(row.info.variant);
    QStringList values;
    for (auto it = params.begin(); it != params.end(); ++it) {
        const std::string value = it.value().toVariant().toString().toStdString();
        const ParamSpec* spec = variant ? find_param(variant->info(), it.key().toStdString()) : nullptr;
        const bool isDefault = spec && spec->default_value == value;
        if (!isDefault) values << QString::fromStdString(value);
    }
    if (values.isEmpty()) return row.info.variant;
    return row.info.variant + '[' + values.join(QLatin1Char(',')).toStdString() + ']';
}

// "a, b, c" or "a, b and 3 more".
QString listOf(const std::set<std::string>& items) {
    QStringList parts;
    for (const std::string& item : items) {
        if (parts.size() == 3) {
            parts << QObject::tr("%n more", nullptr, int(items.size()) - 3);
            break;
        }
        parts << QString::fromStdString(item);
    }
    return parts.join(QStringLiteral(", "));
}

// A run status worth plotting: finished, and not shown wrong by validation.
bool plottable(const db::RunRow& row) { return row.summary.status == "ok" && row.summary.validation != "failed"; }

}  // namespace

db::RunFilter parseRunFilter(const QString& text) {
    db::RunFilter filter;
    const QString trimmed = text.trimmed();
    if (!trimmed.contains(QLatin1Char('='))) {
        filter.bench_id = trimmed.toStdString();
        return filter;
    }
    for (const QString& part : trimmed.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString key = part.section(QLatin1Char('='), 0, 0).trimmed().toLower();
        const std::string value = part.section(QLatin1Char('='), 1).trimmed().toStdString();
        if (key == QLatin1String("bench"))
            filter.bench_id = value;
        else if (key == QLatin1String("map"))
            filter.map = value;
        else if (key == QLatin1String("variant"))
            filter.variant = value;
        else if (key == QLatin1String("device"))
            filter.device = value;
    }
    return filter;
}

SweepLoad loadSweep(const QString& dbPath, const QString& filterText) {
    SweepLoad load;
    load.data.filter = filterText;
    auto history = db::History::open(dbPath.toStdString(), db::OpenMode::ReadOnly);
    if (!history) {
        load.error = QString::fromStdString(history.error().message);
        return load;
    }
    auto rows = history->list_runs(parseRunFilter(filterText));
    if (!rows) {
        load.error = QString::fromStdString(rows.error().message);
        return load;
    }
    std::vector<plot::SweepRun> total, compute, mteps;
    std::set<std::string> benches, maps, devices, builds;
    for (const db::RunRow& row : *rows) {
        if (!plottable(row)) continue;
        auto details = history->load_run(row.id, false);
        if (!details) {
            load.error = QString::fromStdString(details.error().message);
            return load;
        }
        plot::SweepRun t{seriesName(row), row.map_width, row.map_height, true, {}};
        plot::SweepRun c = t;
        for (const db::PhaseSample& s : details->samples) {
            t.samples_ms.push_back(s.total_ms);
            c.samples_ms.push_back(s.compute_ms);
        }
        if (t.samples_ms.empty()) continue;
        // BFS runs store their edge count (kernels/run/edges_visited.hpp): a rate per repetition.
        const QJsonValue edges = QJsonDocument::fromJson(QByteArray::fromStdString(row.summary.counters_json))
                                     .object()
                                     .value(QLatin1String(kEdgesVisitedCounter));
        if (edges.isDouble()) {
            plot::SweepRun m{t.variant, t.width, t.height, true, plot::mteps_samples(edges.toDouble(), c.samples_ms)};
            if (!m.samples_ms.empty()) mteps.push_back(std::move(m));
        }
        total.push_back(std::move(t));
        compute.push_back(std::move(c));
        if (!row.info.bench_id.empty()) benches.insert(row.info.bench_id);
        maps.insert(row.map_name);
        devices.insert(row.info.device_name);
        builds.insert(row.info.build_commit);
    }
    if (total.empty()) {
        load.error = QObject::tr("no finished runs with timings match \u201c%1\u201d in %2").arg(filterText, dbPath);
        return load;
    }
    load.data.total = plot::build_sweep(total);
    load.data.compute = plot::build_sweep(compute);
    load.data.mteps = plot::build_sweep(mteps);
    load.data.runs = int(total.size());
    QStringList provenance;
    if (!benches.empty()) provenance << QObject::tr("bench %1").arg(listOf(benches));
    provenance << QObject::tr("maps %1").arg(listOf(maps)) << listOf(devices)
               << QObject::tr("build %1").arg(listOf(builds)) << QObject::tr("%n runs", nullptr, load.data.runs);
    load.data.provenance = provenance.join(QStringLiteral(" \u00b7 "));
    return load;
}

QStringList listBenchIds(const QString& dbPath, QString* error) {
    auto history = db::History::open(dbPath.toStdString(), db::OpenMode::ReadOnly);
    if (!history) {
        if (error) *error = QString::fromStdString(history.error().message);
        return {};
    }
    auto rows = history->list_runs();
    if (!rows) {
        if (error) *error = QString::fromStdString(rows.error().message);
        return {};
    }
    QStringList ids;
    for (const db::RunRow& row : *rows) {  // newest first already
        const QString id = QString::fromStdString(row.info.bench_id);
        if (!id.isEmpty() && !ids.contains(id)) ids << id;
    }
    return ids;
}

// ---- The widget ------------------------------------------------------------------------------

struct PlotWidget::Private {
    QCustomPlot* plot = nullptr;
    QCPTextElement* title = nullptr;
    QCPTextElement* provenance = nullptr;
    QComboBox* source = nullptr;
    QComboBox* mode = nullptr;
    QComboBox* metric = nullptr;
    QComboBox* baseline = nullptr;
    QLabel* status = nullptr;
    QString historyPath;
    SweepData data;
    LatestJob loading;  // the latest load request wins
    int points = 0;
    bool lecture = false;
};

PlotWidget::PlotWidget(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>()) {
    d->plot = new QCustomPlot(this);
    d->plot->setMinimumSize(320, 240);
    // Layout, one column: title, then the axes with the legend beside them (not over the data:
    // sweeps have a dozen variants), then the provenance line, each as wide as the figure.
    QCPLayoutGrid* figure = d->plot->plotLayout();
    QCPAxisRect* axes = d->plot->axisRect();
    figure->take(axes);
    figure->simplify();
    auto* body = new QCPLayoutGrid;
    figure->addElement(0, 0, body);
    body->addElement(0, 0, axes);
    auto* legendColumn = new QCPLayoutGrid;
    body->addElement(0, 1, legendColumn);
    body->setColumnStretchFactor(1, 0.001);
    axes->insetLayout()->take(d->plot->legend);
    legendColumn->addElement(0, 0, d->plot->legend);
    legendColumn->addElement(1, 0, new QCPLayoutElement(d->plot));  // keeps the legend at the top
    legendColumn->setRowStretchFactor(0, 0.001);
    d->plot->legend->setLayer(QStringLiteral("legend"));
    d->plot->legend->setVisible(true);
    figure->insertRow(0);
    d->title =
        new QCPTextElement(d->plot, QString(), QFont(font().family(), int(font().pointSizeF() * 1.1), QFont::Bold));
    figure->addElement(0, 0, d->title);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    d->provenance = new QCPTextElement(d->plot, QString(), small);
    d->provenance->setTextFlags(Qt::AlignRight | Qt::AlignVCenter);
    figure->addElement(2, 0, d->provenance);

    d->source = new QComboBox(this);
    d->source->setEditable(true);
    d->source->setToolTip(tr("A bench id, or key=value filters: bench=…, map=…, variant=…, device=…"));
    d->source->setMinimumContentsLength(18);
    auto* loadButton = new QPushButton(tr("Load"), this);
    d->mode = new QComboBox(this);
    d->mode->addItem(tr("Time vs size"), int(Mode::Time));
    d->mode->addItem(tr("Speedup"), int(Mode::Speedup));
    d->mode->addItem(tr("Bars"), int(Mode::Bars));
    d->metric = new QComboBox(this);
    d->metric->addItem(tr("End-to-end"), int(PlotMetric::Total));
    d->metric->addItem(tr("Compute"), int(PlotMetric::Compute));
    d->metric->addItem(tr("MTEPS (BFS)"), int(PlotMetric::Mteps));
    d->metric->setToolTip(tr("MTEPS: a BFS run's edges visited over its compute time, millions per second"));
    d->baseline = new QComboBox(this);
    d->baseline->setToolTip(tr("Speedup is the baseline's median time over each variant's"));
    auto* exportButton = new QPushButton(tr("Export\u2026"), this);
    d->status = new QLabel(this);

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Runs:"), this));
    controls->addWidget(d->source, 1);
    controls->addWidget(loadButton);
    controls->addWidget(d->mode);
    controls->addWidget(d->metric);
    controls->addWidget(new QLabel(tr("Baseline:"), this));
    controls->addWidget(d->baseline);
    controls->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(controls);
    layout->addWidget(d->plot, 1);
    layout->addWidget(d->status);

    connect(loadButton, &QPushButton::clicked, this, [this] { load(d->source->currentText()); });
    connect(d->source->lineEdit(), &QLineEdit::returnPressed, this, [this] { load(d->source->currentText()); });
    connect(d->mode, &QComboBox::currentIndexChanged, this, [this] { replotData(); });
    connect(d->metric, &QComboBox::currentIndexChanged, this, [this] { replotData(); });
    connect(d->baseline, &QComboBox::currentIndexChanged, this, [this] { replotData(); });
    connect(exportButton, &QPushButton::clicked, this, &PlotWidget::exportDialog);
    applyPlotTheme(d->plot, isDarkPalette(palette()));
    replotData();
}

PlotWidget::~PlotWidget() = default;

void PlotWidget::setHistoryPath(const QString& path) {
    d->historyPath = path;
    if (path.isEmpty()) return;
    runAsync(
        this, [path] { return listBenchIds(path); },
        [this](const QStringList& ids) {
            const QString current = d->source->currentText();
            d->source->clear();
            d->source->addItems(ids);
            d->source->setEditText(current.isEmpty() ? ids.value(0) : current);
            emit benchIdsListed(ids);
        });
}

QString PlotWidget::historyPath() const { return d->historyPath; }

void PlotWidget::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) replotData();
}

void PlotWidget::load(const QString& filter) {
    d->status->setText(tr("Loading %1\u2026").arg(filter));
    d->loading.start(
        this, [path = d->historyPath, filter] { return loadSweep(path, filter); },
        [this](SweepLoad result) {
            if (!result.error.isEmpty()) {
                d->status->setText(result.error);
                emit loadFailed(result.error);
                return;
            }
            const int runs = result.data.runs;
            setData(std::move(result.data));
            emit loaded(runs);
        });
}

void PlotWidget::setData(SweepData data) {
    d->data = std::move(data);
    const QString previous = d->baseline->currentText();
    {
        const QSignalBlocker block(d->baseline);
        d->baseline->clear();
        d->baseline->addItems(variants());
        // Keep the user's baseline across reloads; else a CPU variant, the usual reference.
        int index = d->baseline->findText(previous);
        for (int i = 0; index < 0 && i < d->baseline->count(); ++i)
            if (d->baseline->itemText(i).contains(QLatin1String(".cpu"))) index = i;
        d->baseline->setCurrentIndex(std::max(index, 0));
    }
    d->status->setText(tr("%n runs", nullptr, d->data.runs));
    replotData();
}

const SweepData& PlotWidget::data() const { return d->data; }

void PlotWidget::setMode(Mode mode) { d->mode->setCurrentIndex(d->mode->findData(int(mode))); }
PlotWidget::Mode PlotWidget::mode() const { return Mode(d->mode->currentData().toInt()); }
void PlotWidget::setMetric(PlotMetric metric) { d->metric->setCurrentIndex(d->metric->findData(int(metric))); }
PlotMetric PlotWidget::metric() const { return PlotMetric(d->metric->currentData().toInt()); }
void PlotWidget::setBaseline(const QString& variant) { d->baseline->setCurrentIndex(d->baseline->findText(variant)); }
QString PlotWidget::baseline() const { return d->baseline->currentText(); }

QStringList PlotWidget::variants() const {
    QStringList names;
    for (const plot::SweepSeries& s : d->data.total) names << QString::fromStdString(s.variant);
    return names;
}

QCustomPlot* PlotWidget::plot() const { return d->plot; }
int PlotWidget::pointCount() const { return d->points; }

const std::vector<plot::SweepSeries>& PlotWidget::series() const {
    switch (metric()) {
    case PlotMetric::Compute:
        return d->data.compute;
    case PlotMetric::Mteps:
        return d->data.mteps;
    case PlotMetric::Total:
        break;
    }
    return d->data.total;
}

plot::Quantity PlotWidget::quantity() const {
    return metric() == PlotMetric::Mteps ? plot::Quantity::Mteps : plot::Quantity::TimeMs;
}

// ---- Drawing -------------------------------------------------------------------------------

namespace {

// Ticks at the sizes present, labelled "512²", on a logarithmic cells axis.
void sizeTicks(QCPAxis* axis, const std::vector<plot::SweepSeries>& series) {
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    std::map<std::int64_t, std::string> labels;
    for (const auto& s : series)
        for (const auto& p : s.points) labels.emplace(p.cells, plot::size_label(p.width, p.height));
    for (const auto& [cells, label] : labels) ticker->addTick(double(cells), QString::fromStdString(label));
    axis->setTicker(ticker);
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setLabel(QObject::tr("grid size (cells)"));
}

void logValueAxis(QCPAxis* axis, const QString& label) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setLabel(label);
}

void linearValueAxis(QCPAxis* axis, const QString& label) {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setNumberFormat(QStringLiteral("gb"));
    axis->setLabel(label);
}

// Series number `index`: a line with markers and min/max whiskers; returns the points drawn.
int addSeries(QCustomPlot* plot, std::size_t index, const QString& name, const QVector<double>& keys,
              const QVector<double>& values, const QVector<double>& minus, const QVector<double>& plus) {
    const QColor colour = seriesColour(index);
    QCPGraph* graph = plot->addGraph();
    graph->setName(name);
    graph->setData(keys, values, true);
    graph->setPen(QPen(colour, 1.8, seriesLine(index)));
    graph->setScatterStyle(QCPScatterStyle(seriesShape(index), colour, colour, 6));
    auto* errors = new QCPErrorBars(plot->xAxis, plot->yAxis);
    errors->removeFromLegend();
    errors->setDataPlottable(graph);
    errors->setData(minus, plus);
    errors->setPen(QPen(colour, 1.2));
    return int(keys.size());
}

// Labelled ticks at 1, 2 and 5 per decade (only 1 over many decades) of a log axis' range.
// QCPAxisTickerLog falls back to linear ticks below 1.6 decades, where speedups often lie.
void niceLogTicks(QCPAxis* axis) {
    const QCPRange r = axis->range();
    if (!(r.lower > 0)) return;
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int first = int(std::floor(std::log10(r.lower))), last = int(std::ceil(std::log10(r.upper)));
    const bool manyDecades = last - first > 4;
    for (int e = first; e <= last; ++e)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, e);
            if ((m == 1.0 || !manyDecades) && v >= r.lower && v <= r.upper)
                ticker->addTick(v, QString::number(v, 'g', 6));
        }
    axis->setTicker(ticker);
}

// Air around the data on a log axis (rescaleAxes fits it exactly, markers touch the frame).
void padLog(QCPAxis* axis) {
    const QCPRange r = axis->range();
    if (r.lower > 0) axis->setRange(r.lower / 1.6, r.upper * 1.6);
}

}  // namespace

void PlotWidget::replotData() {
    d->plot->clearPlottables();
    d->plot->clearItems();
    d->points = 0;
    const bool rate = metric() == PlotMetric::Mteps;
    const QString metricName = rate                              ? tr("MTEPS on compute")
                               : metric() == PlotMetric::Compute ? tr("compute")
                                                                 : tr("end-to-end");
    if (series().empty()) {
        d->title->setText(rate && !d->data.total.empty() ? tr("No MTEPS: these runs stored no edge count (BFS runs do)")
                                                         : tr("No runs loaded: pick a bench sweep and press Load"));
    } else {
        switch (mode()) {
        case Mode::Time:
            d->title->setText((rate ? tr("MTEPS vs grid size (%1; median, whiskers min\u2013max)")
                                    : tr("Time vs grid size (%1; median, whiskers min\u2013max)"))
                                  .arg(metricName));
            plotTime();
            break;
        case Mode::Speedup:
            d->title->setText(tr("Speedup over %1 (%2; whiskers from min\u2013max)").arg(baseline(), metricName));
            plotSpeedup();
            break;
        case Mode::Bars:
            d->title->setText((rate ? tr("Median MTEPS per grid size (%1; whiskers min\u2013max)")
                                    : tr("Median time per grid size (%1; whiskers min\u2013max)"))
                                  .arg(metricName));
            plotBars();
            break;
        }
    }
    d->provenance->setText(d->data.provenance);
    applyPlotTheme(d->plot, isDarkPalette(palette()));
    applyLectureType();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotWidget::setLectureType(bool on) {
    if (on == d->lecture) return;
    d->lecture = on;
    replotData();
}

bool PlotWidget::lectureType() const { return d->lecture; }

// Fonts, pens and markers for the current mode's plottables (replotData makes them anew).
void PlotWidget::applyLectureType() {
    const double pt = font().pointSizeF();
    auto sized = [&](double normal, double lecture, bool bold = false) {
        QFont f = font();
        f.setPointSizeF(d->lecture ? std::max(normal * pt, lecture) : normal * pt);
        f.setBold(bold);
        return f;
    };
    d->title->setFont(sized(1.1, 18, true));
    d->provenance->setFont(sized(0.85, 14));
    d->plot->legend->setFont(sized(1.0, 14));
    for (QCPAxis* axis : {d->plot->xAxis, d->plot->yAxis}) {
        axis->setTickLabelFont(sized(1.0, 14));
        axis->setLabelFont(sized(1.0, 16));
        for (auto [get, set] :
             {std::pair(&QCPAxis::basePen, &QCPAxis::setBasePen), std::pair(&QCPAxis::tickPen, &QCPAxis::setTickPen)}) {
            QPen pen = (axis->*get)();
            pen.setWidthF(d->lecture ? 2.0 : 1.0);
            (axis->*set)(pen);
        }
    }
    if (!d->lecture) return;
    for (int i = 0; i < d->plot->graphCount(); ++i) {
        QCPGraph* graph = d->plot->graph(i);
        QPen pen = graph->pen();
        pen.setWidthF(3.0);
        graph->setPen(pen);
        QCPScatterStyle scatter = graph->scatterStyle();
        scatter.setSize(10);
        graph->setScatterStyle(scatter);
    }
    for (int i = 0; i < d->plot->plottableCount(); ++i) {
        QCPAbstractPlottable* p = d->plot->plottable(i);
        if (qobject_cast<QCPGraph*>(p)) continue;
        QPen pen = p->pen();
        pen.setWidthF(std::max(pen.widthF(), 2.0));
        p->setPen(pen);
    }
}

void PlotWidget::plotTime() {
    sizeTicks(d->plot->xAxis, series());
    logValueAxis(d->plot->yAxis, quantity() == plot::Quantity::Mteps ? tr("MTEPS") : tr("time (ms)"));
    for (std::size_t i = 0; i < series().size(); ++i) {
        const plot::SweepSeries& s = series()[i];
        QVector<double> keys, values, minus, plus;
        for (const plot::SweepPoint& p : s.points) {
            if (p.median_ms <= 0) continue;  // nothing to place on a log axis
            keys << double(p.cells);
            values << p.median_ms;
            minus << p.median_ms - p.min_ms;
            plus << p.max_ms - p.median_ms;
        }
        d->points += addSeries(d->plot, i, QString::fromStdString(s.variant), keys, values, minus, plus);
    }
    d->plot->rescaleAxes();
    padLog(d->plot->xAxis);
    padLog(d->plot->yAxis);
    niceLogTicks(d->plot->yAxis);
}

void PlotWidget::plotSpeedup() {
    sizeTicks(d->plot->xAxis, series());
    logValueAxis(d->plot->yAxis, tr("speedup (\u00d7)"));
    const std::string base = baseline().toStdString();
    const auto baseIt =
        std::find_if(series().begin(), series().end(), [&](const plot::SweepSeries& s) { return s.variant == base; });
    if (baseIt == series().end()) {
        d->title->setText(tr("Speedup: choose a baseline variant"));
        return;
    }
    for (std::size_t i = 0; i < series().size(); ++i) {
        const plot::SweepSeries& s = series()[i];
        if (&s == &*baseIt) continue;
        QVector<double> keys, values, minus, plus;
        for (const plot::SpeedupPoint& p : plot::speedup_over(*baseIt, s, quantity())) {
            keys << double(p.cells);
            values << p.speedup;
            minus << p.speedup - p.low;
            plus << p.high - p.speedup;
        }
        d->points += addSeries(d->plot, i, QString::fromStdString(s.variant), keys, values, minus, plus);
    }
    d->plot->rescaleAxes();
    padLog(d->plot->xAxis);
    padLog(d->plot->yAxis);
    // The baseline itself: speedup 1.
    auto* one = new QCPItemStraightLine(d->plot);
    one->point1->setCoords(1, 1);
    one->point2->setCoords(2, 1);
    one->setPen(QPen(QColor(0x888888), 1, Qt::DashLine));
    const QCPRange y = d->plot->yAxis->range();
    d->plot->yAxis->setRange(std::min(y.lower, 0.6), std::max(y.upper, 1.6));
    niceLogTicks(d->plot->yAxis);
}

void PlotWidget::plotBars() {
    // Categories: the sizes present, in order; bars of each variant side by side.
    std::map<std::pair<std::int64_t, int>, std::string> sizes;
    for (const auto& s : series())
        for (const auto& p : s.points) sizes.emplace(std::pair(p.cells, p.width), plot::size_label(p.width, p.height));
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    std::map<std::pair<std::int64_t, int>, double> position;
    for (const auto& [key, label] : sizes) {
        position[key] = double(position.size() + 1);
        ticker->addTick(position[key], QString::fromStdString(label));
    }
    d->plot->xAxis->setScaleType(QCPAxis::stLinear);
    d->plot->xAxis->setTicker(ticker);
    d->plot->xAxis->setLabel(tr("grid size"));
    linearValueAxis(d->plot->yAxis, quantity() == plot::Quantity::Mteps ? tr("median MTEPS") : tr("median time (ms)"));

    auto* group = new QCPBarsGroup(d->plot);
    const double width = 0.8 / double(std::max<std::size_t>(series().size(), 1));
    double top = 0;
    for (std::size_t i = 0; i < series().size(); ++i) {
        const plot::SweepSeries& s = series()[i];
        auto* bars = new QCPBars(d->plot->xAxis, d->plot->yAxis);
        bars->setName(QString::fromStdString(s.variant));
        bars->setWidth(width);
        bars->setBarsGroup(group);
        const QColor colour = seriesColour(i);
        bars->setPen(QPen(colour.darker(130)));
        bars->setBrush(colour);
        QVector<double> keys, values, minus, plus;
        for (const plot::SweepPoint& p : s.points) {
            keys << position[{p.cells, p.width}];
            values << p.median_ms;
            minus << p.median_ms - p.min_ms;
            plus << p.max_ms - p.median_ms;
            top = std::max(top, p.max_ms);
        }
        bars->setData(keys, values, true);
        auto* errors = new QCPErrorBars(d->plot->xAxis, d->plot->yAxis);
        errors->removeFromLegend();
        errors->setDataPlottable(bars);
        errors->setData(minus, plus);
        errors->setPen(QPen(colour.darker(160), 1.2));
        d->points += int(keys.size());
    }
    d->plot->xAxis->setRange(0.4, double(sizes.size()) + 0.6);
    d->plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
}

// ---- Export --------------------------------------------------------------------------------

bool PlotWidget::exportBytes(const QString& path, QByteArray* bytes, QString* error) {
    if (figureFormat(path) == FigureFormat::Csv) {
        std::ostringstream text;
        const bool withBaseline = mode() == Mode::Speedup && variants().contains(baseline());
        plot::write_sweep_csv(series(), withBaseline ? std::optional(baseline().toStdString()) : std::nullopt, text,
                              quantity());
        *bytes = QByteArray::fromStdString(text.str());
        return true;
    }
    FigureOptions options;
    options.width = d->lecture ? 1920 : std::max(d->plot->width(), 900);
    options.height = d->lecture ? 1080 : std::max(d->plot->height(), 600);
    return renderFigure(d->plot, figureFormat(path), options, bytes, error);  // title and provenance are on it
}

bool PlotWidget::exportTo(const QString& path, QString* error) {
    QByteArray bytes;
    return exportBytes(path, &bytes, error) && writeFileBytes(path, bytes, error);
}

void PlotWidget::exportDialog() {
    saveWithDialog(
        this, QStringLiteral("speedup.pdf"), tr("Figure (*.pdf *.svg *.png);;Data (*.csv)"),
        [this](const QString& path, QByteArray* bytes, QString* error) { return exportBytes(path, bytes, error); });
}

}  // namespace ps::ui
