// The timeline plottable (see timeline_plottable.hpp). Each row is drawn from trace::merge_spans:
// rectangles are batched per colour and drawn with one drawRects call each, antialiasing off,
// so a frame costs O(visible items) arithmetic and O(width) painting per row.
#include "ui/timeline/timeline_plottable.hpp"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ps::ui {

namespace {

using trace::EventKind;

// Calls that make the host wait for the GPU: the CPU side of the handshake the view is about.
bool isBlockingApi(const std::string& name) {
    const bool memcpy = name.rfind("cudaMemcpy", 0) == 0 && name.find("Async") == std::string::npos;
    return memcpy || name.find("Synchronize") != std::string::npos;
}

// Bars fill this share of their row; the rest separates rows.
constexpr double kBarShare = 0.72;
// Labels are only drawn into spans at least this wide (pixels).
constexpr double kMinLabelSpanPx = 28;

}  // namespace

// ---- Palette and model ----------------------------------------------------------------------

TimelinePalette TimelinePalette::light() {
    TimelinePalette p;
    p.background = QColor(0xffffff);
    p.text = QColor(0x202124);
    p.separator = QColor(0xe3e5e8);
    p.kernel = QColor(0x2f7ed8);
    p.memcpy = QColor(0xe8a33d);
    p.memset = QColor(0xb56fb0);
    p.api = QColor(0x9aa5b1);
    p.apiBlocking = QColor(0xd9534f);
    p.sync = QColor(0xe57373);
    p.level = QColor(0x1f9d97);
    p.levelAlt = QColor(0x62c6c1);
    p.tailLevel = QColor(0x3a9a48);
    p.tailLevelAlt = QColor(0x7ccb86);
    p.phase = QColor(0xb7a57a);
    p.overhead = QColor(0xc9c9c9);
    p.agentLoad = QColor(0xc2410c);
    p.nvtx[0] = QColor(0x7b5cb8);
    p.nvtx[1] = QColor(0x9a80cf);
    p.nvtx[2] = QColor(0xb8a5e0);
    p.nvtx[3] = QColor(0xd4c8ee);
    p.gapFill = QColor(0xd9534f);
    p.gapText = QColor(0x9c2420);
    p.highlight = QColor(0x111111);
    p.partner = QColor(0xe6007e);
    p.cursor = QColor(0xe6007e);
    return p;
}

TimelinePalette TimelinePalette::dark() {
    TimelinePalette p;
    p.background = QColor(0x1e1f22);
    p.text = QColor(0xdcdcdc);
    p.separator = QColor(0x36383c);
    p.kernel = QColor(0x4ea1f3);
    p.memcpy = QColor(0xf0b35a);
    p.memset = QColor(0xd69ad0);
    p.api = QColor(0x7d8794);
    p.apiBlocking = QColor(0xef6b67);
    p.sync = QColor(0xef8f8c);
    p.level = QColor(0x2bc0ba);
    p.levelAlt = QColor(0x1b8a85);
    p.tailLevel = QColor(0x5bc86a);
    p.tailLevelAlt = QColor(0x3a9448);
    p.phase = QColor(0xa89a70);
    p.overhead = QColor(0x55585c);
    p.agentLoad = QColor(0xff8a3d);
    p.nvtx[0] = QColor(0xa58ae0);
    p.nvtx[1] = QColor(0x8a6cc9);
    p.nvtx[2] = QColor(0x7357b0);
    p.nvtx[3] = QColor(0x5d4596);
    p.gapFill = QColor(0xef6b67);
    p.gapText = QColor(0xff9a96);
    p.highlight = QColor(0xffffff);
    p.partner = QColor(0xff4fa3);
    p.cursor = QColor(0xffd400);
    return p;
}

QColor TimelinePalette::colourOf(const trace::Event& e, std::int32_t depth) const {
    // Adjacent levels alternate shades so that back-to-back levels stay distinguishable.
    const bool odd = e.level >= 0 && e.level % 2 == 1;
    switch (e.kind) {
    case EventKind::Kernel:
        return kernel;
    case EventKind::Memcpy:
        return memcpy;
    case EventKind::Memset:
        return memset;
    case EventKind::RuntimeApi:
        return isBlockingApi(e.name) ? apiBlocking : api;
    case EventKind::Sync:
        return sync;
    case EventKind::Nvtx:
        return nvtx[std::size_t(std::max(depth, 0)) % 4];
    case EventKind::DeviceLevel:
        if (e.device_launched) return odd ? tailLevelAlt : tailLevel;
        return odd ? levelAlt : level;
    case EventKind::HostPhase:
        return phase;
    case EventKind::Overhead:
        return overhead;
    case EventKind::AgentLoad:
        return agentLoad;
    }
    return overhead;
}

QColor TimelinePalette::loadColour(double load, double peak) const {
    constexpr int kSteps = 16;
    const double share = peak > 0 ? std::clamp(load / peak, 0.0, 1.0) : 1.0;
    // Even a fraction of an agent stays visible against the background.
    const double t = (1 + std::ceil(share * (kSteps - 1))) / kSteps;
    auto mix = [t](int a, int b) { return int(std::lround(a + t * (b - a))); };
    return QColor(mix(background.red(), agentLoad.red()), mix(background.green(), agentLoad.green()),
                  mix(background.blue(), agentLoad.blue()));
}

TimelineModelPtr makeTimelineModel(std::shared_ptr<const trace::Timeline> timeline, const QString& label,
                                   const std::string& note, TimelineRunFacts facts) {
    auto model = std::make_shared<TimelineModel>();
    if (!timeline) timeline = std::make_shared<const trace::Timeline>();
    model->layout = trace::layout_timeline(*timeline);
    model->summary = trace::summary_line(trace::summarize(*timeline));
    if (!note.empty()) model->summary += '\n' + note;
    model->timeline = std::move(timeline);
    model->label = label;
    model->facts = std::move(facts);
    return model;
}

QString shortEventName(const std::string& name) {
    std::string_view text = name;
    // Drop the parameter list, then template arguments and namespaces of what is left.
    if (const auto paren = text.find('('); paren != std::string_view::npos && paren > 0) text = text.substr(0, paren);
    if (const auto angle = text.find('<'); angle != std::string_view::npos && angle > 0) text = text.substr(0, angle);
    if (const auto colon = text.rfind("::"); colon != std::string_view::npos) text = text.substr(colon + 2);
    // A return type in front ("void level_kernel"): the last word is the name.
    if (const auto space = text.rfind(' '); space != std::string_view::npos) text = text.substr(space + 1);
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

// ---- The plottable --------------------------------------------------------------------------

TimelinePlottable::TimelinePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis) {
    // The widget does its own picking and selection: QCP's would select the whole plottable.
    setSelectable(QCP::stNone);
    setAntialiased(false);
    setAntialiasedFill(false);
}

void TimelinePlottable::setModel(TimelineModelPtr model, int firstRow) {
    m_model = std::move(model);
    m_firstRow = firstRow;
    m_selected.reset();
    m_cursorNs.reset();
    m_lastSpanCounts.clear();
    m_highlighted.clear();
    m_highlightRows.clear();
}

void TimelinePlottable::setHighlighted(std::vector<std::uint32_t> events) {
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    m_highlighted = std::move(events);
    m_highlightRows.clear();
    if (!m_model) return;
    const auto& layout = m_model->layout;
    std::unordered_map<std::uint32_t, std::vector<trace::RowItem>> byRow;
    for (const std::uint32_t e : m_highlighted) {
        if (e >= layout.row_of_event.size() || layout.row_of_event[e] == trace::kNoIndex) continue;
        const trace::RowItems& items = layout.rows[layout.row_of_event[e]].items;
        const std::uint32_t pos = layout.pos_of_event[e];
        byRow[layout.row_of_event[e]].push_back({items.start_ns[pos], items.end_ns[pos], e});
    }
    for (auto& [row, items] : byRow) m_highlightRows.emplace_back(row, trace::make_row_items(std::move(items)));
    std::sort(m_highlightRows.begin(), m_highlightRows.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
}

int TimelinePlottable::rowCount() const { return m_model ? int(m_model->layout.rows.size()) : 0; }

void TimelinePlottable::setCursor(std::optional<double> relativeNs, const QString& text) {
    m_cursorNs = relativeNs;
    m_cursorText = text;
}

trace::TimeAxis TimelinePlottable::timeAxis() const {
    const QCPRange range = mKeyAxis->range();
    return {range.lower + m_shiftNs, range.upper + m_shiftNs, double(mKeyAxis->axisRect()->width())};
}

QRect TimelinePlottable::windowClip() const {
    const QRect clip = clipRect();
    if (!m_window) return clip;
    const double x0 = mKeyAxis->coordToPixel(m_window->first - m_shiftNs);
    const double x1 = mKeyAxis->coordToPixel(m_window->second - m_shiftNs);
    const int left = int(std::floor(std::min(x0, x1))), right = int(std::ceil(std::max(x0, x1)));
    return clip.intersected(QRect(left, clip.top(), std::max(0, right - left), clip.height()));
}

double TimelinePlottable::rowHeightPx() const {
    return std::fabs(mValueAxis->coordToPixel(1.0) - mValueAxis->coordToPixel(0.0));
}

int TimelinePlottable::rowAt(double y) const {
    if (!m_model || !mValueAxis) return -1;
    const int row = int(std::lround(mValueAxis->pixelToCoord(y))) - m_firstRow;
    return row >= 0 && row < rowCount() ? row : -1;
}

std::optional<TimelinePlottable::Hit> TimelinePlottable::hitAt(const QPointF& pixel, double tolerancePx) const {
    const int row = rowAt(pixel.y());
    if (row < 0 || !mKeyAxis) return std::nullopt;
    // Only the bar, not the space between rows, counts as a hit.
    const double centre = mValueAxis->coordToPixel(double(m_firstRow + row));
    if (std::fabs(pixel.y() - centre) > 0.5 * kBarShare * rowHeightPx() + 1) return std::nullopt;
    const trace::TimeAxis axis = timeAxis();
    const trace::Row& r = m_model->layout.rows[std::size_t(row)];
    // Outside this run's level window nothing is drawn, so nothing is hit.
    const QRect window = windowClip();
    if (pixel.x() < window.left() || pixel.x() > window.right()) return std::nullopt;
    const double t = mKeyAxis->pixelToCoord(pixel.x()) + m_shiftNs;
    const auto pos = trace::pick_item(r.items, t, tolerancePx * axis.ns_per_px());
    if (!pos) return std::nullopt;
    return Hit{row, r.items.id[*pos], r.kind == trace::RowKind::GpuGaps};
}

double TimelinePlottable::selectTest(const QPointF& pos, bool onlySelectable, QVariant* details) const {
    Q_UNUSED(details)
    if (onlySelectable && !selectable()) return -1;
    return hitAt(pos, 2.0) ? 0.0 : -1.0;
}

QCPRange TimelinePlottable::getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain) const {
    Q_UNUSED(inSignDomain)
    foundRange = m_model && !m_model->timeline->events.empty();
    if (!foundRange) return {};
    return {double(m_model->layout.first_ns) - m_shiftNs, double(m_model->layout.last_ns) - m_shiftNs};
}

QCPRange TimelinePlottable::getValueRange(bool& foundRange, QCP::SignDomain inSignDomain,
                                          const QCPRange& inKeyRange) const {
    Q_UNUSED(inSignDomain)
    Q_UNUSED(inKeyRange)
    foundRange = rowCount() > 0;
    return {m_firstRow - 0.5, m_firstRow + rowCount() - 0.5};
}

void TimelinePlottable::draw(QCPPainter* painter) {
    m_lastSpanCounts.assign(std::size_t(rowCount()), 0);
    m_lastGapLabels.clear();
    m_lastHostMarks = m_lastDeviceMarks = 0;
    if (!m_model || !mKeyAxis || !mValueAxis) return;
    const trace::TimeAxis axis = timeAxis();
    if (!(axis.span_ns() > 0)) return;
    painter->save();
    if (m_window) painter->setClipRect(windowClip(), Qt::IntersectClip);
    const auto& rows = m_model->layout.rows;
    for (std::size_t i = 0; i < rows.size(); ++i) drawRow(painter, rows[i], int(i), axis);
    drawHighlightedSet(painter, axis);

    if (m_selected && *m_selected < m_model->layout.row_of_event.size()) {
        drawHighlight(painter, *m_selected, m_palette.highlight, axis);
        const std::uint32_t partner = m_model->layout.partner[*m_selected];
        if (partner != trace::kNoIndex) drawHighlight(painter, partner, m_palette.partner, axis);
    }
    if (m_annotate) drawLaunchMarks(painter, axis);
    painter->restore();
    drawCursor(painter);
}

void TimelinePlottable::drawRow(QCPPainter* painter, const trace::Row& row, int index, const trace::TimeAxis& axis) {
    const QRect clip = windowClip();
    const double left = mKeyAxis->axisRect()->left();
    const double centre = mValueAxis->coordToPixel(double(m_firstRow + index));
    const double rowPx = rowHeightPx();
    const double barPx = std::max(1.0, kBarShare * rowPx);
    const QRectF band(clip.left(), centre - 0.5 * barPx, clip.width(), barPx);

    // A hairline between rows: the eye follows a row across a wide trace.
    painter->setPen(QPen(m_palette.separator, 0));
    const double below = std::round(centre + 0.5 * rowPx) + 0.5;
    painter->drawLine(QLineF(clip.left(), below, clip.right(), below));

    // Load bins touch: merged like other items they would fuse into one strip of one colour. A
    // row holds at most about trace::kAgentLoadBins of them.
    const bool loadRow = row.kind == trace::RowKind::AgentLoad;
    const auto spans = trace::merge_spans(row.items, axis, loadRow ? 0.0 : 1.0);
    m_lastSpanCounts[std::size_t(index)] = spans.size();
    if (spans.empty()) return;

    auto rectOf = [&](const trace::DrawSpan& s) {
        // At least a pixel wide: an instant or a merged speck must stay visible.
        return QRectF(left + s.x0, band.top(), std::max(1.0, s.x1 - s.x0), band.height());
    };
    const bool gapRow = row.kind == trace::RowKind::GpuGaps;
    if (gapRow) {
        std::vector<QRectF> rects;
        rects.reserve(spans.size());
        for (const auto& s : spans) rects.push_back(rectOf(s));
        QColor tint = m_palette.gapFill;
        tint.setAlpha(40);
        painter->setPen(Qt::NoPen);
        painter->setBrush(tint);
        painter->drawRects(rects.data(), int(rects.size()));
        painter->setBrush(QBrush(m_palette.gapFill, Qt::BDiagPattern));
        painter->drawRects(rects.data(), int(rects.size()));
        drawGapLabels(painter, row, spans, band);
        return;
    }
    if (loadRow) {
        drawLoadRow(painter, row, spans, band);
        return;
    }

    const auto& events = m_model->timeline->events;
    // Batched per colour: a few drawRects calls per row instead of one call per span.
    std::unordered_map<QRgb, std::vector<QRectF>> batches;
    for (const auto& s : spans)
        batches[m_palette.colourOf(events[row.items.id[s.longest]], row.depth).rgb()].push_back(rectOf(s));
    painter->setPen(Qt::NoPen);
    for (const auto& [rgb, rects] : batches) {
        painter->setBrush(QColor::fromRgb(rgb));
        painter->drawRects(rects.data(), int(rects.size()));
    }

    // Names inside spans wide enough for them (one item, not a merged speck).
    painter->setFont(m_labelFont);
    const QFontMetricsF metrics(m_labelFont);
    if (metrics.height() > barPx + 2) return;
    painter->setPen(QPen(m_palette.background.lightness() > 128 ? QColor(Qt::white) : QColor(Qt::black)));
    for (const auto& s : spans) {
        const double width = s.x1 - s.x0;
        if (width < kMinLabelSpanPx || s.count != 1) continue;
        const QRectF box = rectOf(s).adjusted(3, 0, -3, 0).intersected(QRectF(clip));
        const QString text =
            metrics.elidedText(shortEventName(events[row.items.id[s.longest]].name), Qt::ElideRight, box.width());
        if (text.size() > 1) painter->drawText(box, Qt::AlignVCenter | Qt::AlignLeft, text);
    }
}

void TimelinePlottable::drawLoadRow(QCPPainter* painter, const trace::Row& row,
                                    const std::vector<trace::DrawSpan>& spans, const QRectF& band) {
    const double left = mKeyAxis->axisRect()->left();
    const auto& events = m_model->timeline->events;
    std::unordered_map<QRgb, std::vector<QRectF>> batches;
    for (const auto& s : spans) {
        const QRectF rect(left + s.x0, band.top(), std::max(1.0, s.x1 - s.x0), band.height());
        batches[m_palette.loadColour(events[row.items.id[s.first]].load, row.peak_load).rgb()].push_back(rect);
    }
    painter->setPen(Qt::NoPen);
    for (const auto& [rgb, rects] : batches) {
        painter->setBrush(QColor::fromRgb(rgb));
        painter->drawRects(rects.data(), int(rects.size()));
    }
}

void TimelinePlottable::drawGapLabels(QCPPainter* painter, const trace::Row& row,
                                      const std::vector<trace::DrawSpan>& spans, const QRectF& band) {
    const double left = mKeyAxis->axisRect()->left();
    QFont font = m_labelFont;
    font.setBold(true);
    const QFontMetricsF metrics(font);
    if (metrics.height() > band.height() + 4 && !m_annotate) return;
    painter->setFont(font);
    painter->setPen(m_palette.gapText);
    const QRect visible = windowClip();
    int outside = 0;  // labels beside their gap alternate above and below the bar
    // The right edge of the last label in the bar, above it and below it: a label that would
    // overlap the one before it in its place is left out (zoom in to read it).
    double lastRight[3] = {-1e9, -1e9, -1e9};
    for (const auto& s : spans) {
        // One gap: its length; several merged: how many (zoom in to read them).
        const QString text = s.count == 1 ? QString::fromStdString(m_model->layout.gaps[row.items.id[s.first]].label)
                                          : QObject::tr("%n gaps", nullptr, int(s.count));
        const bool fits = s.x1 - s.x0 >= kMinLabelSpanPx && metrics.horizontalAdvance(text) + 4 <= s.x1 - s.x0;
        if (!fits && !m_annotate) continue;
        QRectF box(left + s.x0, band.top(), s.x1 - s.x0, band.height());
        if (box.right() <= visible.left() || box.left() >= visible.right()) continue;
        int place = 0;
        if (!fits) {  // centred on the gap, half a row up or down, over the neighbouring bars
            place = 1 + outside % 2;
            if (box.center().x() - metrics.horizontalAdvance(text) / 2 - 4 < lastRight[place]) place = 3 - place;
            const double width = metrics.horizontalAdvance(text) + 6;
            const double dy = (place == 1 ? -0.5 : 0.5) * (band.height() + metrics.height());
            box = QRectF(box.center().x() - width / 2, box.center().y() + dy - metrics.height() / 2, width,
                         metrics.height());
            if (box.left() < lastRight[place]) continue;
            ++outside;
        }
        lastRight[place] = fits ? box.right() : box.right() + 2;
        // A background-coloured plate keeps the text readable over the hatching.
        const QRectF plate = metrics.boundingRect(box, Qt::AlignCenter, text).adjusted(-2, 0, 2, 0);
        painter->fillRect(plate, m_palette.background);
        painter->drawText(box, Qt::AlignCenter, text);
        m_lastGapLabels << text;
    }
}

void TimelinePlottable::drawHighlight(QCPPainter* painter, std::uint32_t event, const QColor& colour,
                                      const trace::TimeAxis& axis) {
    const auto& layout = m_model->layout;
    const std::uint32_t row = layout.row_of_event[event];
    if (row == trace::kNoIndex) return;
    const trace::Event& e = m_model->timeline->events[event];
    const double left = mKeyAxis->axisRect()->left();
    const double centre = mValueAxis->coordToPixel(double(m_firstRow + int(row)));
    const double barPx = std::max(1.0, kBarShare * rowHeightPx());
    double x0 = axis.to_px(layout.relative(e.start_ns));
    double x1 = axis.to_px(layout.relative(std::max(e.start_ns, e.end_ns)));
    if (x1 < -4 || x0 > axis.width_px + 4) return;
    x0 = std::max(x0, -4.0);
    x1 = std::min(x1, axis.width_px + 4);
    // A selected item is always visible, however narrow at this zoom.
    const double grow = std::max(0.0, 4.0 - (x1 - x0)) / 2;
    const double pen = 2.0 * m_lineScale;
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(colour, pen));
    painter->drawRect(
        QRectF(left + x0 - grow - pen / 2, centre - 0.5 * barPx - pen / 2, x1 - x0 + 2 * grow + pen, barPx + pen));
}

void TimelinePlottable::drawHighlightedSet(QCPPainter* painter, const trace::TimeAxis& axis) {
    m_lastHighlightSpans = 0;
    if (m_highlighted.empty() || rowCount() == 0) return;
    // A veil in the background colour over this run's rows dims everything; the highlighted
    // items are then painted again on top of it, in their colours, with an outline.
    const QRect clip = windowClip();
    const double top = mValueAxis->coordToPixel(m_firstRow - 0.5);
    const double bottom = mValueAxis->coordToPixel(m_firstRow + rowCount() - 0.5);
    QColor veil = m_palette.background;
    veil.setAlpha(175);
    painter->setPen(Qt::NoPen);
    painter->fillRect(QRectF(clip.left(), std::min(top, bottom), clip.width(), std::fabs(bottom - top)), veil);

    const double left = mKeyAxis->axisRect()->left();
    const double barPx = std::max(1.0, kBarShare * rowHeightPx());
    const auto& events = m_model->timeline->events;
    const auto& rows = m_model->layout.rows;
    const double pen = 1.5 * m_lineScale;
    for (const auto& [row, items] : m_highlightRows) {
        const auto spans = trace::merge_spans(items, axis, 1.0);
        if (spans.empty()) continue;
        m_lastHighlightSpans += spans.size();
        const double centre = mValueAxis->coordToPixel(double(m_firstRow + int(row)));
        std::unordered_map<QRgb, std::vector<QRectF>> batches;
        std::vector<QRectF> outlines;
        outlines.reserve(spans.size());
        for (const auto& s : spans) {
            // At least 3 px wide: a highlighted item stays visible at any zoom.
            const double grow = std::max(0.0, 3.0 - (s.x1 - s.x0)) / 2;
            const QRectF rect(left + s.x0 - grow, centre - 0.5 * barPx, s.x1 - s.x0 + 2 * grow, barPx);
            batches[m_palette.colourOf(events[items.id[s.longest]], rows[row].depth).rgb()].push_back(rect);
            outlines.push_back(rect);
        }
        painter->setPen(Qt::NoPen);
        for (const auto& [rgb, rects] : batches) {
            painter->setBrush(QColor::fromRgb(rgb));
            painter->drawRects(rects.data(), int(rects.size()));
        }
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(m_palette.highlight, pen));
        painter->drawRects(outlines.data(), int(outlines.size()));
    }
}

void TimelinePlottable::drawLaunchMarks(QCPPainter* painter, const trace::TimeAxis& axis) {
    const auto& layout = m_model->layout;
    const auto& events = m_model->timeline->events;
    const QRect visible = windowClip();
    const double left = mKeyAxis->axisRect()->left();
    const double half = 0.5 * kBarShare * rowHeightPx();
    auto centre = [&](std::uint32_t row) { return mValueAxis->coordToPixel(double(m_firstRow + int(row))); };
    auto inView = [&](double x) { return x >= visible.left() && x <= visible.right(); };
    const double pen = 1.5 * m_lineScale, head = 4.0 * m_lineScale;
    for (std::uint32_t i = 0; i < events.size(); ++i) {
        const trace::Event& e = events[i];
        const std::uint32_t row = layout.row_of_event[i];
        if (row == trace::kNoIndex) continue;
        const double x = left + axis.to_px(layout.relative(e.start_ns));
        if (!inView(x)) continue;
        if (e.kind == EventKind::Kernel && !e.device_launched) {
            // A host launch: a line from the launching API call down to the kernel's start.
            const std::uint32_t call = layout.partner[i];
            if (call == trace::kNoIndex || events[call].kind != EventKind::RuntimeApi) continue;
            const std::uint32_t callRow = layout.row_of_event[call];
            if (callRow == trace::kNoIndex) continue;
            const double xc = left + axis.to_px(layout.relative(events[call].start_ns));
            const double yc = centre(callRow) + half, yk = centre(row) - half;
            painter->setPen(QPen(m_palette.text, pen));
            painter->drawLine(QLineF(xc, yc, x, yk));
            painter->setPen(Qt::NoPen);
            painter->setBrush(m_palette.text);
            const QPointF arrow[3] = {{x, yk}, {x - head, yk - 2 * head}, {x + head, yk - 2 * head}};
            painter->drawPolygon(arrow, 3);
            ++m_lastHostMarks;
        } else if (e.device_launched) {
            // A launch from the device (tail launch): a diamond on the level's start.
            const double y = centre(row) - half;
            painter->setPen(QPen(m_palette.background, 1));
            painter->setBrush(m_palette.tailLevel.darker(140));
            const QPointF diamond[4] = {{x, y - 1.5 * head}, {x + head, y}, {x, y + 1.5 * head}, {x - head, y}};
            painter->drawPolygon(diamond, 4);
            ++m_lastDeviceMarks;
        }
    }
}

void TimelinePlottable::drawCursor(QCPPainter* painter) {
    if (!m_cursorNs || rowCount() == 0) return;
    const double x = mKeyAxis->coordToPixel(*m_cursorNs - m_shiftNs);
    const QRect clip = clipRect();
    if (x < clip.left() - 1 || x > clip.right() + 1) return;
    const double top = mValueAxis->coordToPixel(m_firstRow - 0.5);
    const double bottom = mValueAxis->coordToPixel(m_firstRow + rowCount() - 0.5);
    painter->setPen(QPen(m_palette.cursor, 1.5 * m_lineScale, Qt::DashLine));
    painter->drawLine(QLineF(x, std::min(top, bottom), x, std::max(top, bottom)));
    if (m_cursorText.isEmpty()) return;
    QFont font = m_labelFont;
    font.setBold(true);
    painter->setFont(font);
    const QFontMetricsF metrics(font);
    QRectF box(x + 4, std::min(top, bottom) + 1, metrics.horizontalAdvance(m_cursorText) + 6, metrics.height());
    if (box.right() > clip.right()) box.moveRight(x - 4);  // keep it inside at the right edge
    painter->fillRect(box, m_palette.background);
    painter->setPen(m_palette.cursor);
    painter->drawText(box, Qt::AlignCenter, m_cursorText);
}

void TimelinePlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const {
    painter->setPen(Qt::NoPen);
    painter->setBrush(m_palette.kernel);
    painter->drawRect(rect);
}

}  // namespace ps::ui
