// MovieFrames (see movie_frames.hpp).
#include "ui/animation/movie_frames.hpp"

#include <QFont>
#include <QFontMetrics>
#include <QPainter>
#include <QPolygonF>
#include <algorithm>
#include <array>
#include <cmath>

#include "ui/animation/animation.hpp"
#include "ui/map/map_tiles.hpp"

namespace ps::ui {

namespace {

// The exported figures' light map colours (MapView's; terrain in its ramp), the path's and the
// markers'.
constexpr QRgb kBackground = 0xffb4b9c0, kWall = 0xff3a3d42, kFree = 0xfffafaf7, kStrip = 0xfff3f4f6;
constexpr QRgb kText = 0xff202124, kPath = 0xffd62728, kStart = 0xff2ca02c, kGoal = 0xffd62728;
constexpr int kPanelGap = 8;

QRgb blend(QRgb over, QRgb under) {
    const int a = qAlpha(over);
    if (a == 0) return under;
    if (a == 255) return over;
    auto mix = [a](int o, int u) { return (o * a + u * (255 - a) + 127) / 255; };
    return qRgb(mix(qRed(over), qRed(under)), mix(qGreen(over), qGreen(under)), mix(qBlue(over), qBlue(under)));
}

}  // namespace

struct MovieFrames::Panel {
    MoviePanel run;
    std::unique_ptr<Animation> animation;
    QRect rect;               // the map's pixels in the frame
    std::vector<int> xs, ys;  // the cell under each column / row of the rect
    QImage base;              // the map alone at the rect's size
    int frames = 0;

    void compose(QImage& image, const Overlay* overlay) const {
        QList<QRgb> table;
        const bool indexed = overlay && overlay->cells.format() == QImage::Format_Indexed8;
        if (indexed) {
            table = overlay->cells.colorTable();
            table.resize(256, 0);
        }
        const bool argb = overlay && !indexed && !overlay->cells.isNull();
        for (int py = 0; py < rect.height(); ++py) {
            const auto* under = reinterpret_cast<const QRgb*>(base.constScanLine(py));
            auto* out = reinterpret_cast<QRgb*>(image.scanLine(rect.top() + py)) + rect.left();
            if (indexed) {
                const uchar* cells = overlay->cells.constScanLine(ys[std::size_t(py)]);
                for (int px = 0; px < rect.width(); ++px) out[px] = blend(table[cells[xs[std::size_t(px)]]], under[px]);
            } else if (argb) {
                const auto* cells = reinterpret_cast<const QRgb*>(overlay->cells.constScanLine(ys[std::size_t(py)]));
                for (int px = 0; px < rect.width(); ++px) out[px] = blend(cells[xs[std::size_t(px)]], under[px]);
            } else {
                std::copy(under, under + rect.width(), out);
            }
        }
    }

    QPointF centreOf(int x, int y) const {
        const GridMap& map = *run.map;
        return {rect.left() + (x + 0.5) * rect.width() / map.width(),
                rect.top() + (y + 0.5) * rect.height() / map.height()};
    }

    void decorate(QPainter& painter, const Overlay* overlay, int captionPx) const {
        const double cellPx = double(rect.width()) / run.map->width();
        painter.setRenderHint(QPainter::Antialiasing, true);
        if (overlay && overlay->path.size() > 1) {
            QPolygonF line;
            for (const QPoint& c : overlay->path) line << centreOf(c.x(), c.y());
            painter.setPen(
                QPen(QColor::fromRgb(kPath), std::max(2.0, 0.5 * cellPx), Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
            painter.drawPolyline(line);
        }
        const double radius = std::max(4.0, 0.8 * cellPx);
        painter.setPen(QPen(Qt::white, 1.5));
        for (const auto& [cell, colour] : {std::pair(run.map->start, kStart), std::pair(run.map->goal, kGoal)}) {
            if (!cell) continue;
            painter.setBrush(QColor::fromRgb(colour));
            painter.drawEllipse(centreOf(cell->x, cell->y), radius, radius);
        }
        // The strip under the map: the run, then what this frame shows.
        const QRect strip(rect.left(), rect.bottom() + 1, rect.width(), captionPx);
        painter.fillRect(strip, QColor::fromRgb(kStrip));
        QFont font;
        font.setPixelSize(std::max(10, int(captionPx * 0.5)));
        painter.setFont(font);
        painter.setPen(QColor::fromRgb(kText));
        const QString text =
            run.label +
            (overlay && !overlay->caption.isEmpty() ? QStringLiteral(" \u00b7 ") + overlay->caption : QString());
        const QRect box = strip.adjusted(8, 0, -8, 0);
        painter.drawText(box, Qt::AlignVCenter | Qt::AlignLeft,
                         QFontMetrics(font).elidedText(text, Qt::ElideRight, box.width()));
    }
};

MovieFrames::MovieFrames(std::vector<MoviePanel> panels, int width, bool evenSize, int maxFrames) {
    std::erase_if(panels, [](const MoviePanel& p) { return !p.map || !p.result || p.map->cell_count() == 0; });
    const int n = int(panels.size());
    if (n == 0) return;
    width = std::max(width, 16 * n);
    if (evenSize) width += width % 2;
    m_captionPx = std::clamp(width / (40 * n) * n, 22, 48);
    const int panelWidth = (width - kPanelGap * (n - 1)) / n;
    int mapHeight = 0;
    for (int i = 0; i < n; ++i) {
        auto panel = std::make_unique<Panel>();
        panel->run = std::move(panels[std::size_t(i)]);
        const GridMap& map = *panel->run.map;
        const int h = std::max(1, int(std::lround(double(map.height()) * panelWidth / map.width())));
        panel->rect = QRect(i * (panelWidth + kPanelGap), 0, panelWidth, h);
        mapHeight = std::max(mapHeight, h);
        panel->xs.resize(std::size_t(panelWidth));
        for (int px = 0; px < panelWidth; ++px)
            panel->xs[std::size_t(px)] = std::min(map.width() - 1, int(std::int64_t(px) * map.width() / panelWidth));
        panel->ys.resize(std::size_t(h));
        for (int py = 0; py < h; ++py)
            panel->ys[std::size_t(py)] = std::min(map.height() - 1, int(std::int64_t(py) * map.height() / h));
        panel->base = QImage(panelWidth, h, QImage::Format_RGB32);
        std::array<QRgb, 256> cellColours{};  // by cost: wall, floor, then MapView's terrain ramp
        cellColours[0] = kWall;
        cellColours[1] = kFree;
        for (int c = 2; c < 256; ++c)
            cellColours[std::size_t(c)] = terrainColour(std::uint8_t(c), kTerrainLight, kTerrainDark);
        for (int py = 0; py < h; ++py) {
            auto* out = reinterpret_cast<QRgb*>(panel->base.scanLine(py));
            for (int px = 0; px < panelWidth; ++px)
                out[px] = cellColours[map.cost(panel->xs[std::size_t(px)], panel->ys[std::size_t(py)])];
        }
        panel->animation = std::make_unique<Animation>();
        panel->animation->setRun(panel->run.map, panel->run.result, maxFrames);
        panel->frames = panel->animation->frameCount();
        m_panels.push_back(std::move(panel));
    }
    // Side by side, a frame is the same number of levels or expansions in every panel (the
    // longest run's grouping), so the shorter search visibly finishes first.
    std::int64_t perFrame = 1;
    for (const auto& p : m_panels)
        if (p->frames > 0) perFrame = std::max(perFrame, (p->animation->units() + p->frames - 1) / p->frames);
    if (m_panels.size() > 1 && perFrame > 1)
        for (const auto& p : m_panels) {
            if (p->frames == 0) continue;
            const std::int64_t frames = (p->animation->units() + perFrame - 1) / perFrame;
            p->animation->setRun(p->run.map, p->run.result, int(std::max<std::int64_t>(1, frames)));
            p->frames = p->animation->frameCount();
        }
    int height = mapHeight + m_captionPx;
    if (evenSize) height += height % 2;
    m_size = QSize(width, height);
}

MovieFrames::~MovieFrames() = default;

int MovieFrames::frameCount() const {
    int most = 0;
    for (const auto& p : m_panels) most = std::max(most, p->frames);
    return most;
}

int MovieFrames::panelFrames(int panel) const {
    return panel >= 0 && panel < int(m_panels.size()) ? m_panels[std::size_t(panel)]->frames : 0;
}

QSize MovieFrames::size() const { return m_size; }

QImage MovieFrames::frame(int frame) {
    QImage image(m_size, QImage::Format_RGB32);
    image.fill(kBackground);
    std::vector<OverlayPtr> overlays;
    for (const auto& p : m_panels) {
        OverlayPtr overlay;
        if (p->frames > 0) {
            p->animation->setFrame(std::clamp(frame, 0, p->frames - 1));
            overlay = p->animation->overlay();
        }
        p->compose(image, overlay.get());
        overlays.push_back(std::move(overlay));
    }
    QPainter painter(&image);
    for (std::size_t i = 0; i < m_panels.size(); ++i) m_panels[i]->decorate(painter, overlays[i].get(), m_captionPx);
    return image;
}

}  // namespace ps::ui
