// The timeline view (see timeline_widget.hpp). The view logic (zoom, pan, clamp) goes through
// trace::TimeAxis; QCustomPlot's own drag and zoom interactions are off so that every range
// change passes the clamp and the undo stack.
#include "ui/timeline/timeline_widget.hpp"

#include <qcustomplot.h>

#include <QDialog>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QRubberBand>
#include <QScrollArea>
#include <QShortcut>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/common/figure_export.hpp"
#include "ui/timeline/navigation/shortcut_help.hpp"
#include "ui/timeline/timeline_plottable.hpp"
#include "ui/timeline/navigation/timeline_search.hpp"

namespace ps::ui {

namespace {

// Time axis labels in the unit that suits the visible span ("250 us", "1.5 ms").
class DurationTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override {
        const double span = range.size();
        if (span < 5e3) {
            m_unit = 1, m_suffix = QStringLiteral(" ns");
        } else if (span < 5e6) {
            m_unit = 1e3, m_suffix = QStringLiteral(" \u00b5s");
        } else if (span < 5e9) {
            m_unit = 1e6, m_suffix = QStringLiteral(" ms");
        } else {
            m_unit = 1e9, m_suffix = QStringLiteral(" s");
        }
        return QCPAxisTicker::getTickStep(range);
    }
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override {
        Q_UNUSED(formatChar)
        Q_UNUSED(precision)
        const double value = tick / m_unit;
        // Round off the float noise of tick steps (0.30000000000000004).
        return locale.toString(std::fabs(value) < 1e-9 ? 0.0 : value, 'g', 6) + m_suffix;
    }

private:
    double m_unit = 1e3;
    QString m_suffix = QStringLiteral(" \u00b5s");
};

constexpr double kRowPx = 20, kLectureRowPx = 34;
constexpr double kLectureBasePt = 16, kLectureSmallPt = 14;
constexpr int kSlideWidthPx = 1920;
constexpr double kMinSpanNs = 20;  // the deepest zoom: 20 ns across the view
constexpr std::size_t kMaxUndo = 100;
constexpr int kWheelGestureMs = 600;  // wheel ticks closer than this are one undo step
constexpr int kClickSlopPx = 3;

// "1.5 ms", "−250 µs": an axis time (which may be before the origin) as the band labels it.
QString axisTimeText(double ns) {
    const auto rounded = std::int64_t(std::llround(ns));
    const QString text = QString::fromStdString(trace::format_duration(rounded < 0 ? -rounded : rounded));
    return rounded < 0 ? QStringLiteral("\u2212") + text : text;
}

}  // namespace

struct TimelineWidget::Private {
    QCustomPlot* plot = nullptr;
    QScrollArea* scroll = nullptr;  // holds the plot: rows never squeeze the caption over it
    QLabel* summary = nullptr;
    QLabel* caption = nullptr;
    QToolButton* lectureButton = nullptr;
    QRubberBand* band = nullptr;
    TimelineSearchBar* search = nullptr;
    ShortcutHelpDialog* help = nullptr;
    // The selected range (Ctrl+drag): a translucent band over the axis rect and its label.
    QCPItemRect* rangeBand = nullptr;
    QCPItemText* rangeLabel = nullptr;
    std::optional<std::pair<double, double>> range;
    std::optional<double> hoverPx;  // the mouse over the axis rect, from its left edge
    QElapsedTimer lastKey;          // W/S/A/D presses close together are one undo step
    QSharedPointer<QCPAxisTickerText> rowTicker;
    std::vector<TimelineModelPtr> models;
    std::vector<TimelinePlottable*> plottables;
    trace::Provenance provenance;
    QStringList summaries;
    QString emptyMessage;  // shown instead of a summary when there is no timeline
    trace::ZoomStack undo{kMaxUndo};
    std::optional<TimelineHit> selected;
    int cursorLevel = -1;
    std::optional<LevelWindow> window;
    bool lecture = false;
    bool dark = false;

    enum class Drag { None, Pan, Box, Range };
    Drag drag = Drag::None;
    QPoint pressPos;
    QCPRange pressRange;
    bool moved = false;
    QElapsedTimer lastWheel;

    double extentBegin = 0, extentEnd = 1;

    trace::TimeAxis axis() const {
        const QCPRange r = plot->xAxis->range();
        return {r.lower, r.upper, double(plot->axisRect()->width())};
    }
    TimelinePlottable* plottableOf(int run) const {
        return run >= 0 && run < int(plottables.size()) ? plottables[std::size_t(run)] : nullptr;
    }
};

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>()) {
    d->plot = new QCustomPlot(this);
    d->plot->setInteractions(QCP::Interactions());
    d->plot->setMouseTracking(true);
    d->plot->setFocusPolicy(Qt::StrongFocus);
    d->plot->installEventFilter(this);
    setFocusProxy(d->plot);  // keys (stepping, undo zoom) go to the plot's event filter
    d->plot->setNoAntialiasingOnDrag(true);
    d->plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new DurationTicker));
    d->plot->xAxis->setLabel(tr("time since the first GPU item"));
    d->rowTicker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    d->plot->yAxis->setTicker(d->rowTicker);
    d->plot->yAxis->setRangeReversed(true);  // row 0 at the top
    d->plot->yAxis->setTickLength(0, 0);
    d->plot->yAxis->setSubTicks(false);
    d->plot->yAxis->grid()->setVisible(false);
    d->plot->xAxis2->setVisible(false);
    d->band = new QRubberBand(QRubberBand::Rectangle, d->plot);

    connect(d->plot, &QCustomPlot::mousePress, this, &TimelineWidget::onMousePress);
    connect(d->plot, &QCustomPlot::mouseMove, this, &TimelineWidget::onMouseMove);
    connect(d->plot, &QCustomPlot::mouseRelease, this, &TimelineWidget::onMouseRelease);
    connect(d->plot, &QCustomPlot::mouseWheel, this, &TimelineWidget::onWheel);
    connect(d->plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });

    d->summary = new QLabel(this);
    d->summary->setObjectName(QStringLiteral("timelineSummary"));
    d->summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->summary->setWordWrap(true);
    d->caption = new QLabel(this);
    d->caption->setWordWrap(true);
    d->caption->setVisible(false);

    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton* reset = button(tr("Fit"), tr("Show the whole trace (double-click, Home)"));
    QToolButton* back = button(tr("Undo zoom"), tr("Back to the previous range (Backspace)"));
    d->lectureButton =
        button(tr("Lecture"), tr("Large fonts, thick lines, a caption per level; step with \u2190 \u2192"));
    d->lectureButton->setCheckable(true);
    QToolButton* save =
        button(tr("Export\u2026"), tr("The figure (PDF, SVG, PNG), a Chrome trace or the events (CSV)"));
    connect(save, &QToolButton::clicked, this, &TimelineWidget::exportDialog);
    connect(reset, &QToolButton::clicked, this, &TimelineWidget::resetZoom);
    connect(back, &QToolButton::clicked, this, [this] { undoZoom(); });
    connect(d->lectureButton, &QToolButton::toggled, this, &TimelineWidget::setLectureMode);

    QToolButton* keys = button(tr("?"), tr("Keys and mouse gestures of the timeline (F1, ?)"));
    connect(keys, &QToolButton::clicked, this, &TimelineWidget::showShortcuts);
    d->search = new TimelineSearchBar(this, this);
    // Ctrl+F anywhere in the timeline (the plot, the search field, the buttons).
    auto* find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, &TimelineWidget::focusSearch);

    auto* header = new QHBoxLayout;
    header->addWidget(d->summary, 1);
    header->addWidget(d->search);
    header->addWidget(reset);
    header->addWidget(back);
    header->addWidget(d->lectureButton);
    header->addWidget(save);
    header->addWidget(keys);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(header);
    d->scroll = new QScrollArea(this);
    d->scroll->setWidget(d->plot);
    d->scroll->setWidgetResizable(true);
    d->scroll->setFrameShape(QFrame::NoFrame);
    d->scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(d->scroll, 1);
    layout->addWidget(d->caption);

    d->dark = isDarkPalette(palette());
    applyTheme();
    applyFonts();
    rebuild();
}

TimelineWidget::~TimelineWidget() = default;

// ---- Content -------------------------------------------------------------------------------

void TimelineWidget::setTimeline(std::shared_ptr<const trace::Timeline> timeline, const QString& label) {
    std::vector<TimelineModelPtr> models;
    if (timeline) models.push_back(makeTimelineModel(std::move(timeline), label));
    setModels(std::move(models));
}

void TimelineWidget::setComparison(std::shared_ptr<const trace::Timeline> a, const QString& labelA,
                                   std::shared_ptr<const trace::Timeline> b, const QString& labelB) {
    std::vector<TimelineModelPtr> models;
    if (a) models.push_back(makeTimelineModel(std::move(a), labelA));
    if (b) models.push_back(makeTimelineModel(std::move(b), labelB));
    setModels(std::move(models));
}

void TimelineWidget::setModels(std::vector<TimelineModelPtr> models) {
    std::erase(models, nullptr);
    d->models = std::move(models);
    d->emptyMessage.clear();
    rebuild();
}

void TimelineWidget::clear() { showMessage({}); }

void TimelineWidget::showMessage(const QString& text) {
    d->models.clear();
    d->emptyMessage = text;
    rebuild();
}

int TimelineWidget::runCount() const { return int(d->models.size()); }

std::shared_ptr<const trace::Timeline> TimelineWidget::timeline(int run) const {
    return run >= 0 && run < runCount() ? d->models[std::size_t(run)]->timeline : nullptr;
}

QString TimelineWidget::runLabel(int run) const {
    return run >= 0 && run < runCount() ? d->models[std::size_t(run)]->label : QString();
}

TimelineModelPtr TimelineWidget::model(int run) const {
    return run >= 0 && run < runCount() ? d->models[std::size_t(run)] : nullptr;
}

QCustomPlot* TimelineWidget::plot() const { return d->plot; }

TimelinePlottable* TimelineWidget::plottable(int run) const { return d->plottableOf(run); }

void TimelineWidget::setProvenance(const trace::Provenance& provenance) { d->provenance = provenance; }

const trace::Provenance& TimelineWidget::provenance() const { return d->provenance; }

QString TimelineWidget::summaryText() const { return d->summaries.join(QLatin1Char('\n')); }

void TimelineWidget::rebuild() {
    for (TimelinePlottable* p : d->plottables) d->plot->removePlottable(p);
    d->plottables.clear();
    d->summaries.clear();
    d->selected.reset();
    d->cursorLevel = -1;
    d->window.reset();
    d->undo.clear();
    d->rowTicker->clear();
    const bool hadRange = d->range.has_value();
    d->range.reset();
    updateRangeBand();

    const bool compare = d->models.size() > 1;
    int row = 0;
    for (const TimelineModelPtr& model : d->models) {
        d->summaries << (model->label.isEmpty() ? QString() : model->label + QStringLiteral(": ")) +
                            QString::fromStdString(model->summary);
        if (compare) {
            // A heading row names the run whose rows follow.
            d->rowTicker->addTick(row, QStringLiteral("\u25bc ") + model->label);
            ++row;
        }
        auto* p = new TimelinePlottable(d->plot->xAxis, d->plot->yAxis);
        p->setModel(model, row);
        d->plottables.push_back(p);
        for (const trace::Row& r : model->layout.rows) d->rowTicker->addTick(row++, QString::fromStdString(r.label));
    }
    updateExtent();
    updateAxisLabel();
    d->plot->yAxis->setRange(-0.5, std::max(row, 1) - 0.5);
    applyTheme();
    applyFonts();
    const double margin = 0.01 * (d->extentEnd - d->extentBegin);
    d->plot->xAxis->setRange(d->extentBegin - margin, d->extentEnd + margin);
    d->scroll->setVisible(!d->models.empty());  // no empty axes: the summary line says why
    updateLabels();
    d->search->refresh();
    emit modelsChanged();
    if (hadRange) emit rangeChanged();
}

// What the view can show: every run's events, or in a level window every run's window, on the
// shifted axis.
void TimelineWidget::updateExtent() {
    bool any = false;
    d->extentBegin = 0;
    d->extentEnd = 1;
    for (const TimelinePlottable* p : d->plottables) {
        const TimelineModel& m = *p->model();
        if (m.timeline->events.empty()) continue;
        double first = double(m.layout.first_ns), last = double(m.layout.last_ns);
        if (p->window()) first = p->window()->first, last = p->window()->second;
        first -= p->shift();
        last -= p->shift();
        d->extentBegin = any ? std::min(d->extentBegin, first) : first;
        d->extentEnd = any ? std::max(d->extentEnd, last) : last;
        any = true;
    }
    if (d->extentEnd <= d->extentBegin) d->extentEnd = d->extentBegin + 1000;
}

void TimelineWidget::updateAxisLabel() {
    const bool compare = d->models.size() > 1;
    const QString levelName =
        d->models.empty() ? QString() : QString::fromStdString(d->models.front()->timeline->level_name);
    if (d->window) {
        d->plot->xAxis->setLabel(compare
                                     ? tr("time since each run's %1 %2 started").arg(levelName).arg(d->window->align)
                                     : tr("time since %1 %2 started").arg(levelName).arg(d->window->align));
        return;
    }
    // In compare mode each run starts at its own first GPU item (its first event when it has
    // no GPU work, as a CPU run): the axis says so.
    const bool gpu = std::any_of(d->models.begin(), d->models.end(),
                                 [](const TimelineModelPtr& m) { return m->layout.origin_is_gpu; });
    if (compare)
        d->plot->xAxis->setLabel(gpu ? tr("time since each run's first GPU item") : tr("time since each run's start"));
    else
        d->plot->xAxis->setLabel(gpu ? tr("time since the first GPU item") : tr("time since the run's first event"));
}

// ---- Theme and fonts -------------------------------------------------------------------------

void TimelineWidget::applyTheme() {
    applyPlotTheme(d->plot, d->dark);
    const TimelinePalette palette = d->dark ? TimelinePalette::dark() : TimelinePalette::light();
    for (TimelinePlottable* p : d->plottables) p->setPalette(palette);
    updateRangeBand();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineWidget::applyFonts() {
    // Lecture type stays legible on a slide: at least 14 pt for the smallest text (at 1920 px
    // across, about 1/100 of the width per line of labels).
    QFont base = font();
    QFont small = base;
    if (d->lecture) {
        base.setPointSizeF(std::max(base.pointSizeF() * 1.6, kLectureBasePt));
        small.setPointSizeF(std::max(base.pointSizeF() * 0.9, kLectureSmallPt));
    } else {
        small.setPointSizeF(base.pointSizeF() * 0.9);
    }
    for (QCPAxis* axis : {d->plot->xAxis, d->plot->yAxis}) {
        axis->setTickLabelFont(small);
        axis->setLabelFont(base);
        QPen pen = axis->basePen();
        pen.setWidthF(d->lecture ? 2.0 : 1.0);
        axis->setBasePen(pen);
        pen = axis->tickPen();
        pen.setWidthF(d->lecture ? 2.0 : 1.0);
        axis->setTickPen(pen);
    }
    d->plot->setFont(base);
    for (TimelinePlottable* p : d->plottables) {
        p->setLabelFont(small);
        p->setLineScale(d->lecture ? 2.0 : 1.0);
    }
    // The summary keeps its size in lecture mode: the caption under the plot is what the
    // audience reads, and the rows need the height.
    d->summary->setFont(font());
    QFont captionFont = base;
    captionFont.setBold(true);
    d->caption->setFont(captionFont);
    int rows = 0;
    for (const TimelineModelPtr& m : d->models) rows += int(m->layout.rows.size()) + (d->models.size() > 1 ? 1 : 0);
    // Every row stays readable: the plot asks for the height its rows need.
    d->plot->setMinimumHeight(int(std::max(rows, 3) * (d->lecture ? kLectureRowPx : kRowPx)) + 60);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineWidget::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        const bool dark = isDarkPalette(palette());
        if (dark != d->dark) {
            d->dark = dark;
            applyTheme();
        }
    } else if (event->type() == QEvent::FontChange) {
        applyFonts();
    }
}

// ---- View ------------------------------------------------------------------------------------

double TimelineWidget::visibleBegin() const { return d->plot->xAxis->range().lower; }
double TimelineWidget::visibleEnd() const { return d->plot->xAxis->range().upper; }

void TimelineWidget::setRange(double beginNs, double endNs, bool pushUndo) {
    const double margin = 0.02 * (d->extentEnd - d->extentBegin);
    trace::TimeAxis next{std::min(beginNs, endNs), std::max(beginNs, endNs), double(d->plot->axisRect()->width())};
    next = next.clamped(d->extentBegin - margin, d->extentEnd + margin, kMinSpanNs);
    const QCPRange current = d->plot->xAxis->range();
    if (next.begin_ns == current.lower && next.end_ns == current.upper) return;
    if (pushUndo) {
        d->undo.push({current.lower, current.upper});
    }
    d->plot->xAxis->setRange(next.begin_ns, next.end_ns);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineWidget::resetZoom() {
    const double margin = 0.01 * (d->extentEnd - d->extentBegin);
    setRange(d->extentBegin - margin, d->extentEnd + margin, true);
}

void TimelineWidget::zoomToRange(double beginNs, double endNs) { setRange(beginNs, endNs, true); }

void TimelineWidget::zoomAt(double factor, double anchorPx) {
    const trace::TimeAxis next = d->axis().zoomed(factor, anchorPx);
    setRange(next.begin_ns, next.end_ns, true);
}

void TimelineWidget::panBy(double dxPx) {
    const trace::TimeAxis next = d->axis().panned(dxPx);
    setRange(next.begin_ns, next.end_ns, true);
}

bool TimelineWidget::undoZoom() {
    const auto previous = d->undo.pop();
    if (!previous) return false;
    setRange(previous->begin_ns, previous->end_ns, false);
    return true;
}

int TimelineWidget::undoDepth() const { return int(d->undo.depth()); }

void TimelineWidget::centerOnEvent(int run, std::uint32_t event) {
    const TimelinePlottable* p = d->plottableOf(run);
    if (!p || event >= p->model()->timeline->events.size()) return;
    const trace::Event& e = p->model()->timeline->events[event];
    const double middle =
        p->model()->layout.relative(e.start_ns) + 0.5 * double(std::max<std::int64_t>(e.duration_ns(), 0)) - p->shift();
    const double half = 0.5 * d->plot->xAxis->range().size();
    setRange(middle - half, middle + half, true);
}

void TimelineWidget::keyZoom(double factor) {
    const double anchor = d->hoverPx.value_or(0.5 * d->plot->axisRect()->width());
    const bool newGesture = !d->lastKey.isValid() || d->lastKey.elapsed() > kWheelGestureMs;
    d->lastKey.start();
    const trace::TimeAxis next = d->axis().zoomed(factor, anchor);
    setRange(next.begin_ns, next.end_ns, newGesture);
}

void TimelineWidget::keyPan(double fraction) {
    const bool newGesture = !d->lastKey.isValid() || d->lastKey.elapsed() > kWheelGestureMs;
    d->lastKey.start();
    // panned(dx) moves the content by dx: to see later times (D) the content moves left.
    const trace::TimeAxis next = d->axis().panned(-fraction * d->plot->axisRect()->width());
    setRange(next.begin_ns, next.end_ns, newGesture);
}

// ---- Range selection -------------------------------------------------------------------------

void TimelineWidget::setSelectedRange(double beginNs, double endNs) {
    if (d->models.empty()) return;
    if (endNs < beginNs) std::swap(beginNs, endNs);
    if (d->range && d->range->first == beginNs && d->range->second == endNs) return;
    d->range = std::pair(beginNs, endNs);
    updateRangeBand();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    emit rangeChanged();
}

void TimelineWidget::clearSelectedRange() {
    if (!d->range) return;
    d->range.reset();
    updateRangeBand();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    emit rangeChanged();
}

std::optional<std::pair<double, double>> TimelineWidget::selectedRange() const { return d->range; }

std::int64_t TimelineWidget::toRunTime(int run, double axisNs) const {
    const TimelinePlottable* p = d->plottableOf(run);
    if (!p) return std::int64_t(std::llround(axisNs));
    return p->model()->layout.origin_ns + std::int64_t(std::llround(axisNs + p->shift()));
}

double TimelineWidget::toAxisTime(int run, std::int64_t absoluteNs) const {
    const TimelinePlottable* p = d->plottableOf(run);
    if (!p) return double(absoluteNs);
    return p->model()->layout.relative(absoluteNs) - p->shift();
}

std::optional<trace::TimeRange> TimelineWidget::selectedTimeRange(int run) const {
    if (!d->range || !d->plottableOf(run)) return std::nullopt;
    return trace::TimeRange{toRunTime(run, d->range->first), toRunTime(run, d->range->second)};
}

QString TimelineWidget::selectedRangeText() const {
    if (!d->range) return {};
    return tr("%1 \u2013 %2 (%3)")
        .arg(axisTimeText(d->range->first), axisTimeText(d->range->second),
             axisTimeText(d->range->second - d->range->first));
}

void TimelineWidget::updateRangeBand() {
    // Two QCP items while there is a range, none otherwise (the rows never use items).
    if (!d->range) {
        if (d->rangeBand) d->plot->removeItem(d->rangeBand);
        if (d->rangeLabel) d->plot->removeItem(d->rangeLabel);
        d->rangeBand = nullptr;
        d->rangeLabel = nullptr;
        return;
    }
    if (!d->rangeBand) {
        // Over the rows (the overlay layer), spanning the axis rect's height whatever the rows.
        d->rangeBand = new QCPItemRect(d->plot);
        d->rangeBand->setLayer(QStringLiteral("overlay"));
        d->rangeBand->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        d->rangeBand->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        d->rangeBand->setSelectable(false);
        d->rangeLabel = new QCPItemText(d->plot);
        d->rangeLabel->setLayer(QStringLiteral("overlay"));
        d->rangeLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        d->rangeLabel->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
        d->rangeLabel->setPadding(QMargins(4, 1, 4, 1));
        d->rangeLabel->setSelectable(false);
    }
    const TimelinePalette palette = d->dark ? TimelinePalette::dark() : TimelinePalette::light();
    QColor fill = palette.cursor;
    fill.setAlpha(38);
    QColor edge = palette.cursor;
    edge.setAlpha(200);
    d->rangeBand->setBrush(fill);
    d->rangeBand->setPen(QPen(edge, 1));
    d->rangeBand->topLeft->setCoords(d->range->first, 0);
    d->rangeBand->bottomRight->setCoords(d->range->second, 1);
    d->rangeLabel->position->setCoords(0.5 * (d->range->first + d->range->second), 0);
    d->rangeLabel->setText(selectedRangeText());
    d->rangeLabel->setColor(palette.text);
    QColor plate = palette.background;
    plate.setAlpha(220);
    d->rangeLabel->setBrush(plate);
    d->rangeLabel->setPen(QPen(edge, 1));
    d->rangeLabel->setFont(d->plot->xAxis->tickLabelFont());
}

// ---- Highlight, search and help --------------------------------------------------------------

void TimelineWidget::setHighlight(int run, std::vector<std::uint32_t> events) {
    TimelinePlottable* p = d->plottableOf(run);
    if (!p) return;
    p->setHighlighted(std::move(events));
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    emit highlightChanged();
}

void TimelineWidget::clearHighlight() {
    bool any = false;
    for (TimelinePlottable* p : d->plottables) {
        any = any || !p->highlighted().empty();
        p->setHighlighted({});
    }
    if (!any) return;
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    emit highlightChanged();
}

std::vector<std::uint32_t> TimelineWidget::highlight(int run) const {
    const TimelinePlottable* p = d->plottableOf(run);
    return p ? p->highlighted() : std::vector<std::uint32_t>{};
}

TimelineSearchBar* TimelineWidget::searchBar() const { return d->search; }

QDialog* TimelineWidget::shortcutDialog() const { return d->help; }

void TimelineWidget::focusSearch() { d->search->focusField(); }

void TimelineWidget::showShortcuts() {
    if (!d->help) d->help = new ShortcutHelpDialog(this);
    d->help->show();
    d->help->raise();
    d->help->activateWindow();
}

double TimelineWidget::replotNow() {
    d->plot->replot(QCustomPlot::rpImmediateRefresh);
    return d->plot->replotTime();
}

// ---- Mouse and keys --------------------------------------------------------------------------

void TimelineWidget::onMousePress(QMouseEvent* event) {
    d->pressPos = event->pos();
    d->pressRange = d->plot->xAxis->range();
    d->moved = false;
    const bool box = event->button() == Qt::RightButton ||
                     (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    const bool range = event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier) &&
                       !(event->modifiers() & Qt::ShiftModifier);
    if (range) {
        d->drag = Private::Drag::Range;
    } else if (box) {
        d->drag = Private::Drag::Box;
        const QRect area = d->plot->axisRect()->rect();
        d->band->setGeometry(QRect(event->pos().x(), area.top(), 1, area.height()));
        d->band->show();
    } else if (event->button() == Qt::LeftButton) {
        d->drag = Private::Drag::Pan;
    }
}

void TimelineWidget::onMouseMove(QMouseEvent* event) {
    const QRect axisRect = d->plot->axisRect()->rect();
    if (axisRect.contains(event->pos()))
        d->hoverPx = double(event->pos().x() - axisRect.left());
    else
        d->hoverPx.reset();
    if (d->drag == Private::Drag::None) return;
    const int dx = event->pos().x() - d->pressPos.x();
    if (!d->moved && std::abs(dx) <= kClickSlopPx) return;
    if (d->drag == Private::Drag::Range) {
        // The band follows the mouse; statistics wait for the release (rangeChanged).
        d->moved = true;
        const double a = d->plot->xAxis->pixelToCoord(d->pressPos.x());
        const double b = d->plot->xAxis->pixelToCoord(event->pos().x());
        d->range = std::pair(std::min(a, b), std::max(a, b));
        updateRangeBand();
        d->plot->replot(QCustomPlot::rpQueuedReplot);
    } else if (d->drag == Private::Drag::Pan) {
        if (!d->moved) {  // one undo step per drag
            d->undo.push({d->pressRange.lower, d->pressRange.upper});
        }
        d->moved = true;
        const trace::TimeAxis from{d->pressRange.lower, d->pressRange.upper, double(d->plot->axisRect()->width())};
        const trace::TimeAxis next = from.panned(dx);
        setRange(next.begin_ns, next.end_ns, false);
    } else {
        d->moved = true;
        const QRect area = d->plot->axisRect()->rect();
        const int x0 = std::min(d->pressPos.x(), event->pos().x()), x1 = std::max(d->pressPos.x(), event->pos().x());
        d->band->setGeometry(QRect(x0, area.top(), x1 - x0 + 1, area.height()));
    }
}

void TimelineWidget::onMouseRelease(QMouseEvent* event) {
    const Private::Drag drag = std::exchange(d->drag, Private::Drag::None);
    d->band->hide();
    if (drag == Private::Drag::Range) {
        if (!d->moved) {  // a Ctrl+click selects as a click does
            selectAt(event->pos());
            return;
        }
        const double a = d->plot->xAxis->pixelToCoord(d->pressPos.x());
        const double b = d->plot->xAxis->pixelToCoord(event->pos().x());
        d->range.reset();  // set again below, so that rangeChanged fires once per drag
        setSelectedRange(std::min(a, b), std::max(a, b));
    } else if (drag == Private::Drag::Box && d->moved) {
        const double a = d->plot->xAxis->pixelToCoord(d->pressPos.x());
        const double b = d->plot->xAxis->pixelToCoord(event->pos().x());
        if (std::abs(event->pos().x() - d->pressPos.x()) > kClickSlopPx) zoomToRange(std::min(a, b), std::max(a, b));
    } else if (drag == Private::Drag::Pan && !d->moved) {
        selectAt(event->pos());
    }
}

void TimelineWidget::onWheel(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return;
    const double anchor = event->position().x() - d->plot->axisRect()->left();
    // A burst of wheel ticks is one zoom gesture: one undo step, not one per tick.
    const bool newGesture = !d->lastWheel.isValid() || d->lastWheel.elapsed() > kWheelGestureMs;
    d->lastWheel.start();
    const trace::TimeAxis next = d->axis().zoomed(std::pow(1.25, steps), anchor);
    setRange(next.begin_ns, next.end_ns, newGesture);
    event->accept();
}

bool TimelineWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched != d->plot) return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, d->plot);
        return true;
    }
    if (event->type() == QEvent::Leave) d->hoverPx.reset();
    if (event->type() == QEvent::ShortcutOverride) {
        // Accepted: the key comes to the plot as a KeyPress instead of firing a window shortcut.
        if (!takesKey(*static_cast<QKeyEvent*>(event))) return false;
        event->accept();
        return true;
    }
    if (event->type() != QEvent::KeyPress) return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const double centre = 0.5 * d->plot->axisRect()->width();
    const Qt::KeyboardModifiers mods = key->modifiers() & ~Qt::KeypadModifier;
    if (mods == Qt::NoModifier) {
        switch (key->key()) {
        case Qt::Key_W:
            keyZoom(kKeyZoomFactor);
            return true;
        case Qt::Key_S:
            keyZoom(1.0 / kKeyZoomFactor);
            return true;
        case Qt::Key_A:
            keyPan(-kKeyPanFraction);
            return true;
        case Qt::Key_D:
            keyPan(kKeyPanFraction);
            return true;
        default:
            break;
        }
    }
    switch (key->key()) {
    case Qt::Key_F1:
    case Qt::Key_Question:
        showShortcuts();
        return true;
    case Qt::Key_F3:
        if (mods & Qt::ShiftModifier)
            d->search->previous();
        else
            d->search->next();
        return true;
    case Qt::Key_Backspace:
        undoZoom();
        return true;
    case Qt::Key_Home:
        resetZoom();
        return true;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(2.0, centre);
        return true;
    case Qt::Key_Minus:
        zoomAt(0.5, centre);
        return true;
    // Presenter remotes send PageDown / PageUp: lecture mode steps with them too. (Space stays
    // the animation's play / pause.)
    case Qt::Key_Right:
    case Qt::Key_PageDown:
        stepLevel(+1);
        return true;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
        stepLevel(-1);
        return true;
    case Qt::Key_Escape:
        // One thing at a time, newest kind first: the range, then the selection and highlight.
        if (d->range) {
            clearSelectedRange();
            return true;
        }
        d->selected.reset();
        for (TimelinePlottable* p : d->plottables) p->setSelectedEvent(std::nullopt);
        clearHighlight();
        d->plot->replot(QCustomPlot::rpQueuedReplot);
        return true;
    default:
        return false;
    }
}

bool TimelineWidget::takesKey(const QKeyEvent& key) const {
    const Qt::KeyboardModifiers mods = key.modifiers() & ~Qt::KeypadModifier;
    switch (key.key()) {
    case Qt::Key_W:
    case Qt::Key_S:
    case Qt::Key_A:
    case Qt::Key_D:
        return mods == Qt::NoModifier;
    case Qt::Key_F1:
    case Qt::Key_Question:
    case Qt::Key_F3:
    case Qt::Key_Backspace:
    case Qt::Key_Home:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_Minus:
        return (mods & ~Qt::ShiftModifier) == Qt::NoModifier;
    case Qt::Key_Escape:
        // Only when there is something to clear: otherwise Escape stays the window's (Cancel run).
        if (d->range) return true;
        if (d->selected) return true;
        return std::any_of(d->plottables.begin(), d->plottables.end(),
                           [](const TimelinePlottable* p) { return !p->highlighted().empty(); });
    default:
        return false;
    }
}

// ---- Selection -------------------------------------------------------------------------------

std::optional<TimelineHit> TimelineWidget::hitAt(const QPoint& pos) const {
    for (int run = 0; run < int(d->plottables.size()); ++run)
        if (const auto hit = d->plottables[std::size_t(run)]->hitAt(pos, 3.0))
            return TimelineHit{run, hit->id, hit->gap};
    return std::nullopt;
}

std::optional<int> TimelineWidget::levelOf(const TimelineHit& hit) const {
    if (hit.gap) return std::nullopt;
    const TimelineModel& m = *d->models[std::size_t(hit.run)];
    const trace::Event* e = &m.timeline->events[hit.id];
    if (e->level >= 0) return e->level;
    // An API call belongs to the level of what it launched.
    if (e->kind == trace::EventKind::RuntimeApi && m.layout.partner[hit.id] != trace::kNoIndex)
        e = &m.timeline->events[m.layout.partner[hit.id]];
    if (e->level >= 0) return e->level;
    if (!trace::is_gpu_work(*e)) return std::nullopt;
    // A GPU item without a level tag (a memcpy of the loop): the level running at its middle.
    const std::int64_t middle = e->start_ns + (std::max(e->start_ns, e->end_ns) - e->start_ns) / 2;
    const auto index = trace::level_at(m.layout.levels, middle);
    if (!index) return std::nullopt;
    const trace::LevelBucket& b = m.layout.levels[*index];
    if (middle > b.end_ns) return std::nullopt;
    return b.level;
}

std::optional<TimelineHit> TimelineWidget::selectAt(const QPoint& pos) {
    const auto hit = hitAt(pos);
    if (!hit || hit->gap) {
        d->selected.reset();
        for (TimelinePlottable* p : d->plottables) p->setSelectedEvent(std::nullopt);
        d->plot->replot(QCustomPlot::rpQueuedReplot);
        return hit;
    }
    selectEvent(hit->run, hit->id);
    return hit;
}

void TimelineWidget::selectEvent(int run, std::uint32_t event) {
    TimelinePlottable* target = d->plottableOf(run);
    if (!target || event >= target->model()->timeline->events.size()) return;
    for (TimelinePlottable* p : d->plottables) p->setSelectedEvent(p == target ? std::optional(event) : std::nullopt);
    d->selected = TimelineHit{run, event, false};
    emit eventSelected(run, event);
    if (const auto level = levelOf(*d->selected)) {
        setCursorLevel(*level);
        emit levelSelected(*level);
    }
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<TimelineHit> TimelineWidget::selectedEvent() const { return d->selected; }

std::optional<std::uint32_t> TimelineWidget::selectedPartner() const {
    if (!d->selected) return std::nullopt;
    const std::uint32_t partner = d->models[std::size_t(d->selected->run)]->layout.partner[d->selected->id];
    if (partner == trace::kNoIndex) return std::nullopt;
    return partner;
}

QString TimelineWidget::toolTipAt(const QPoint& pos) const {
    const auto hit = hitAt(pos);
    if (!hit) return {};
    const TimelineModel& m = *d->models[std::size_t(hit->run)];
    auto duration = [](std::int64_t ns) { return QString::fromStdString(trace::format_duration(ns)); };
    const QString run = d->models.size() > 1 ? m.label + QStringLiteral("<br>") : QString();
    if (hit->gap) {
        const trace::GapSpan& g = m.layout.gaps[hit->id];
        return run + tr("<b>GPU idle %1</b><br>cause: %2<br>at %3")
                         .arg(QString::fromStdString(g.label),
                              QString::fromStdString(std::string(trace::to_string(g.cause))),
                              duration(std::int64_t(m.layout.relative(g.start_ns))));
    }
    const trace::Event& e = m.timeline->events[hit->id];
    if (e.kind == trace::EventKind::AgentLoad)  // "SM 17: 23 agents in flight, 12.3 ms - 12.5 ms"
        return run + tr("<b>%1</b>: %2 agents in flight, %3 \u2013 %4")
                         .arg(QString::fromStdString(m.timeline->tracks[e.track].name).toHtmlEscaped())
                         .arg(e.load, 0, 'g', 3)
                         .arg(duration(std::int64_t(m.layout.relative(e.start_ns))),
                              duration(std::int64_t(m.layout.relative(e.end_ns))));
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(QString::fromStdString(e.name).toHtmlEscaped());
    lines << tr("%1, %2 at %3")
                 .arg(QString::fromStdString(std::string(trace::to_string(e.kind))), duration(e.duration_ns()),
                      duration(std::int64_t(m.layout.relative(e.start_ns))));
    if (e.grid[0] != 0 || e.block[0] != 0)
        lines << tr("grid %1\u00d7%2\u00d7%3, block %4\u00d7%5\u00d7%6")
                     .arg(e.grid[0])
                     .arg(e.grid[1])
                     .arg(e.grid[2])
                     .arg(e.block[0])
                     .arg(e.block[1])
                     .arg(e.block[2]);
    if (e.bytes != 0) lines << tr("%1 bytes").arg(e.bytes);
    if (e.correlation_id != 0) {
        QString line = tr("correlation id %1").arg(e.correlation_id);
        const std::uint32_t partner = m.layout.partner[hit->id];
        if (partner != trace::kNoIndex)
            line += tr(" \u2194 %1").arg(QString::fromStdString(m.timeline->events[partner].name).toHtmlEscaped());
        lines << line;
    }
    if (const auto level = levelOf(*hit))
        lines << QStringLiteral("%1 %2").arg(QString::fromStdString(m.timeline->level_name)).arg(*level);
    if (e.device_launched) lines << tr("launched on the device (tail launch)");
    if (e.graph_node_id != 0) lines << tr("CUDA graph %1, node %2").arg(e.graph_id).arg(e.graph_node_id);
    if (e.queued_ns != 0) lines << tr("queued \u2192 start %1").arg(duration(e.start_ns - e.queued_ns));
    if (e.kind == trace::EventKind::Nvtx) lines << tr("NVTX depth %1").arg(e.depth);
    return run + lines.join(QStringLiteral("<br>"));
}

// ---- Levels and lecture mode -----------------------------------------------------------------

int TimelineWidget::levelCount() const { return d->models.empty() ? 0 : int(d->models.front()->layout.levels.size()); }

int TimelineWidget::cursorLevel() const { return d->cursorLevel; }

void TimelineWidget::setCursorLevel(int level) {
    d->cursorLevel = level;
    if (d->lecture && level >= 0 && (!d->window || level < d->window->first || level > d->window->last))
        windowAround(level);
    for (std::size_t run = 0; run < d->plottables.size(); ++run) {
        const TimelineModel& m = *d->models[run];
        const auto index = level >= 0 ? trace::find_level(m.layout.levels, level) : std::nullopt;
        if (!index) {
            d->plottables[run]->setCursor(std::nullopt);
            continue;
        }
        const QString text = QStringLiteral("%1 %2").arg(QString::fromStdString(m.timeline->level_name)).arg(level);
        d->plottables[run]->setCursor(m.layout.relative(m.layout.levels[*index].start_ns), text);
    }
    updateLabels();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineWidget::stepLevel(int delta) {
    if (d->models.empty()) return;
    const auto& levels = d->models.front()->layout.levels;
    if (levels.empty()) return;
    int index = 0;
    if (const auto current = trace::find_level(levels, d->cursorLevel))
        index = std::clamp(int(*current) + delta, 0, int(levels.size()) - 1);
    else
        index = delta >= 0 ? 0 : int(levels.size()) - 1;
    const int level = levels[std::size_t(index)].level;
    setCursorLevel(level);
    // Keep the cursor in view, centred, without adding an undo step per keypress (in lecture
    // mode the level window around it already shows it).
    const double at =
        d->models.front()->layout.relative(levels[std::size_t(index)].start_ns) - d->plottables.front()->shift();
    const QCPRange range = d->plot->xAxis->range();
    if (at < range.lower || at > range.upper) setRange(at - range.size() / 2, at + range.size() / 2, false);
    emit levelSelected(level);
}

void TimelineWidget::windowAround(int level) {
    const auto& levels = d->models.front()->layout.levels;
    const auto index = trace::find_level(levels, level);
    if (!index) return;
    const std::size_t first = *index > 0 ? *index - 1 : 0;
    const std::size_t last = std::min(levels.size() - 1, first + 3);
    setLevelWindow(levels[first].level, levels[last].level, levels[first].level);
}

bool TimelineWidget::setLevelWindow(int first, int last, int align, QString* error) {
    if (first > last) std::swap(first, last);
    if (align < 0) align = first;
    if (d->models.empty()) return exportFailed(error, tr("no timeline"));
    struct Plan {
        double shift, begin, end;
    };
    std::vector<Plan> plans;
    for (const TimelineModelPtr& m : d->models) {
        const auto& levels = m->layout.levels;
        const QString name = QString::fromStdString(m->timeline->level_name);
        const QString run = m->label.isEmpty() ? tr("the run") : m->label;
        if (levels.empty()) return exportFailed(error, tr("%1 has no %2s on its timeline").arg(run, name));
        const auto f = trace::find_level(levels, first), l = trace::find_level(levels, last),
                   a = trace::find_level(levels, align);
        if (!f || !l || !a)
            return exportFailed(error, tr("%1 has %2s %3-%4, not %5-%6")
                                           .arg(run, name)
                                           .arg(levels.front().level)
                                           .arg(levels.back().level)
                                           .arg(first)
                                           .arg(last));
        const double start = m->layout.relative(levels[*f].start_ns), end = m->layout.relative(levels[*l].end_ns);
        // From the previous level's end: the launch gap before `first` belongs to the story.
        const double begin = *f > 0 ? std::min(start, m->layout.relative(levels[*f - 1].end_ns))
                                    : start - 0.05 * std::max(end - start, 1.0);
        plans.push_back({m->layout.relative(levels[*a].start_ns), begin, end});
    }
    for (std::size_t run = 0; run < d->plottables.size(); ++run) {
        d->plottables[run]->setShift(plans[run].shift);
        d->plottables[run]->setWindow(std::pair(plans[run].begin, plans[run].end));
        d->plottables[run]->setAnnotateLaunches(true);
    }
    d->window = LevelWindow{first, last, align};
    d->undo.clear();  // ranges on another run's alignment would mean nothing now
    clearSelectedRange();
    updateExtent();
    updateAxisLabel();
    const double margin = 0.015 * (d->extentEnd - d->extentBegin);
    d->plot->xAxis->setRange(d->extentBegin - margin, d->extentEnd + margin);
    updateLabels();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

void TimelineWidget::clearLevelWindow() {
    if (!d->window) return;
    for (TimelinePlottable* p : d->plottables) {
        p->setShift(0);
        p->setWindow(std::nullopt);
        p->setAnnotateLaunches(false);
    }
    d->window.reset();
    d->undo.clear();
    clearSelectedRange();
    updateExtent();
    updateAxisLabel();
    const double margin = 0.01 * (d->extentEnd - d->extentBegin);
    d->plot->xAxis->setRange(d->extentBegin - margin, d->extentEnd + margin);
    updateLabels();
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<TimelineWidget::LevelWindow> TimelineWidget::levelWindow() const { return d->window; }

std::vector<int> TimelineWidget::visibleLevels(int run) const {
    std::vector<int> out;
    const TimelinePlottable* p = d->plottableOf(run);
    if (!p) return out;
    const QCPRange range = d->plot->xAxis->range();
    double lo = range.lower + p->shift(), hi = range.upper + p->shift();
    if (p->window()) lo = std::max(lo, p->window()->first), hi = std::min(hi, p->window()->second);
    const TimelineModel& m = *p->model();
    for (const trace::LevelBucket& b : m.layout.levels)
        if (m.layout.relative(b.end_ns) > lo && m.layout.relative(b.start_ns) < hi) out.push_back(b.level);
    return out;
}

bool TimelineWidget::lectureMode() const { return d->lecture; }

void TimelineWidget::setLectureMode(bool on) {
    if (on == d->lecture) return;
    d->lecture = on;
    const QSignalBlocker block(d->lectureButton);
    d->lectureButton->setChecked(on);
    applyFonts();
    if (on && d->cursorLevel >= 0)
        windowAround(d->cursorLevel);
    else if (!on)
        clearLevelWindow();
    updateLabels();
    emit lectureModeChanged(on);
}

QString TimelineWidget::caption() const {
    QStringList lines;
    for (const TimelineModelPtr& m : d->models) {
        const auto index = trace::find_level(m->layout.levels, d->cursorLevel);
        if (!index) continue;
        const QString text =
            QString::fromStdString(trace::describe_level(m->layout.levels, *index, m->timeline->level_name));
        lines << (d->models.size() > 1 ? m->label + QStringLiteral(": ") + text : text);
    }
    return lines.join(QLatin1Char('\n'));
}

void TimelineWidget::updateLabels() {
    const QString empty =
        d->emptyMessage.isEmpty() ? tr("No timeline: run a GPU variant with tracing on.") : d->emptyMessage;
    // The capture's notes (what CUPTI could not record here, and why) under the summary line,
    // not in exported figure titles.
    QStringList notes;
    for (const TimelineModelPtr& m : d->models)
        for (const std::string& note : m->timeline ? m->timeline->notes : std::vector<std::string>{})
            notes << (d->models.size() > 1 ? m->label + QStringLiteral(": ") : QString()) +
                         QString::fromStdString(note);
    d->summary->setText(d->models.empty()
                            ? empty
                            : summaryText() +
                                  (notes.isEmpty() ? QString() : QLatin1Char('\n') + notes.join(QLatin1Char('\n'))));
    QString text = caption();
    if (text.isEmpty() && levelCount() > 0) text = tr("Press \u2192 to step through the levels.");
    d->caption->setText(text);
    d->caption->setVisible(d->lecture && !d->models.empty());
}

// ---- Export ----------------------------------------------------------------------------------

bool TimelineWidget::exportBytes(const QString& path, QByteArray* bytes, QString* error) {
    const FigureFormat format = figureFormat(path);
    if (d->models.empty()) {
        if (error) *error = tr("no timeline to export");
        return false;
    }
    if (format == FigureFormat::Csv || format == FigureFormat::Json)
        return timelineDataBytes(*d->models.front()->timeline, d->provenance, format, bytes, error);
    FigureOptions options;
    // Wide enough for a trace, tall enough for every row, whatever size the widget has now; a
    // lecture figure is a slide's width.
    options.width = d->lecture ? kSlideWidthPx : std::max(d->plot->width(), 1400);
    options.largeType = d->lecture;
    // The caption too while a level is selected: the figure then says what that level shows.
    options.title = summaryText();
    if (const QString text = caption(); !text.isEmpty()) options.title += QLatin1Char('\n') + text;
    if (d->window)
        options.title +=
            QLatin1Char('\n') + tr("\u25bc host launch: a line from the launching API call to its kernel   "
                                   "\u25c6 launched on the device (tail launch)   hatched: the GPU idle, "
                                   "with its length");
    options.provenance = provenanceText(d->provenance);
    int rows = 0;
    for (const TimelineModelPtr& m : d->models) rows += int(m->layout.rows.size()) + (d->models.size() > 1 ? 1 : 0);
    const int textPx = int(options.title.count(QLatin1Char('\n')) + 2) * (d->lecture ? 30 : 20);
    options.height =
        std::max(d->plot->height(), int(std::max(rows, 3) * (d->lecture ? kLectureRowPx : kRowPx)) + 110 + textPx);
    return renderFigure(d->plot, format, options, bytes, error);
}

bool TimelineWidget::exportTo(const QString& path, QString* error) {
    QByteArray bytes;
    return exportBytes(path, &bytes, error) && writeFileBytes(path, bytes, error);
}

void TimelineWidget::exportDialog() {
    saveWithDialog(
        this, QStringLiteral("timeline.pdf"),
        tr("Figure (*.pdf *.svg *.png);;Chrome trace for Perfetto (*.json);;Events (*.csv)"),
        [this](const QString& path, QByteArray* bytes, QString* error) { return exportBytes(path, bytes, error); });
}

}  // namespace ps::ui
