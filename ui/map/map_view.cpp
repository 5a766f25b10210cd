// MapView: paints the map from tile pyramids (map_tiles.hpp), then the overlay, the path, the
// start/goal markers, the terrain legend and the preview of the tool being used; maps mouse and
// keys to zoom, pan and the editing commands of the MapDocument.
#include "ui/map/map_view.hpp"

#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/map/map_tiles.hpp"

namespace ps::ui {

namespace {

constexpr double kMaxZoom = 64.0;        // screen pixels per cell
constexpr double kMinZoom = 1.0 / 64.0;  // unless fitting a larger map needs less
constexpr double kWheelStep = 1.25;      // zoom factor per wheel notch and per +/- key
constexpr qint64 kMapTileBudget = qint64(256) << 20;
constexpr qint64 kOverlayTileBudget = qint64(128) << 20;
constexpr double kOverlayOpacityOnTerrain = 0.55;

struct Colours {
    QColor background, wall, free, path, preview, terrainLight, terrainDark;
};

Colours lightColours() {
    return {QColor(0xb4, 0xb9, 0xc0),     QColor(0x3a, 0x3d, 0x42), QColor(0xfa, 0xfa, 0xf7),
            QColor(0xd6, 0x27, 0x28),     QColor(0xff, 0x8c, 0x00), QColor::fromRgb(kTerrainLight),
            QColor::fromRgb(kTerrainDark)};
}

// Free cells dark too, so a dark desktop is not lit up by a white map; walls stay darkest and
// terrain warms from the floor's grey towards a brown.
Colours darkColours() {
    return {QColor(0x26, 0x28, 0x2c), QColor(0x0e, 0x0f, 0x11), QColor(0x4b, 0x4f, 0x55), QColor(0xff, 0x52, 0x52),
            QColor(0xff, 0xa7, 0x26), QColor(0x62, 0x5b, 0x4c), QColor(0x8a, 0x5c, 0x2e)};
}

// The costs the legend shows: the palette's presets.
constexpr std::uint8_t kLegendCosts[] = {1, 2, 5, 10, 20, 50, 255};

// Qt 6.4 has no QStyleHints::colorScheme(): a dark window background means a dark palette.
Colours coloursFor(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128 ? darkColours() : lightColours();
}

// Where the map lies on a paint device: the device position of cell (0, 0)'s corner and the
// device-independent pixels per cell.
struct Viewport {
    double zoom = 1.0;
    QPointF offset;

    QPointF toScreen(double x, double y) const { return offset + QPointF(x, y) * zoom; }
    QPointF centreOf(Cell c) const { return toScreen(c.x + 0.5, c.y + 0.5); }
    // Edges rounded to whole pixels, so neighbouring tiles meet without seams or overlap.
    QRect screenRect(const QRect& cells) const {
        const QPoint a = toScreen(cells.left(), cells.top()).toPoint();
        const QPoint b = toScreen(cells.left() + cells.width(), cells.top() + cells.height()).toPoint();
        return QRect(a, b - QPoint(1, 1));
    }
    // The cells at least partly inside a device rectangle.
    QRect cellsIn(const QRect& area) const {
        const QPointF a = (QPointF(area.topLeft()) - offset) / zoom;
        const QPointF b = (QPointF(area.bottomRight() + QPoint(1, 1)) - offset) / zoom;
        return QRect(QPoint(int(std::floor(a.x())), int(std::floor(a.y()))),
                     QPoint(int(std::ceil(b.x())) - 1, int(std::ceil(b.y())) - 1));
    }
};

double fitZoom(const QSize& area, const GridMap& map) {
    if (map.empty() || area.isEmpty()) return 1.0;
    return std::min(double(area.width()) / map.width(), double(area.height()) / map.height());
}

Viewport fitted(const QSize& area, const GridMap& map) {
    Viewport vp;
    vp.zoom = std::min(kMaxZoom, fitZoom(area, map));
    vp.offset = QPointF((area.width() - map.width() * vp.zoom) / 2.0, (area.height() - map.height() * vp.zoom) / 2.0);
    return vp;
}

Cell toCell(const QPoint& p) { return Cell{p.x(), p.y()}; }

// The cells of the rectangle with corners a and b, in either order.
QRect cellSpan(Cell a, Cell b) {
    return QRect(QPoint(std::min(a.x, b.x), std::min(a.y, b.y)), QPoint(std::max(a.x, b.x), std::max(a.y, b.y)));
}

}  // namespace

struct MapView::Private {
    explicit Private(const MapDocument* doc) : document(doc), mapTiles(doc) {}

    enum class Drag { None, Pan, Stroke, Rect, Line, Endpoint };

    void paintScene(QPainter& painter, const QRect& area, const Viewport& vp, const Colours& colours, MapTiles& tiles,
                    const MapView* preview);
    void drawTiles(QPainter& painter, const Viewport& vp, const std::vector<const TilePyramid::Tile*>& tiles);
    void drawPreview(QPainter& painter, const Viewport& vp, const Colours& colours, const MapView& view);
    void drawLegend(QPainter& painter, const QRect& area, const MapTiles& tiles);

    const MapDocument* document = nullptr;
    MapTiles mapTiles;
    OverlayTiles overlayTiles;
    OverlayPtr overlay;
    std::vector<QPointer<MapLayer>> layers;
    Viewport viewport;
    bool autoFit = true;  // refit on resize until the user zooms or pans
    std::optional<Cell> hover;
    Drag drag = Drag::None;
    Qt::MouseButton dragButton = Qt::NoButton;
    QPointF lastPos;
    Cell anchor, current;
    bool erase = false;  // Rect and Line with Shift clear cells instead of walling them
};

MapView::MapView(MapDocument* document, QWidget* parent)
    : QWidget(parent), d(std::make_unique<Private>(document)), m_document(document) {
    setMouseTracking(true);  // hover readout and brush preview without a pressed button
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);  // every paint fills its whole area
    setMinimumSize(64, 64);
    setCursor(Qt::CrossCursor);
    connect(document, &MapDocument::cellsChanged, this, [this](const QRect& cells) {
        d->mapTiles.invalidate(cells);
        update(d->viewport.screenRect(cells).adjusted(-2, -2, 2, 2));
    });
    connect(document, &MapDocument::mapReplaced, this, [this] {
        d->mapTiles.reset();
        d->drag = Private::Drag::None;
        setOverlay(nullptr);  // it belongs to a run on the old map
        fitToView();
    });
    connect(document, &MapDocument::endpointsChanged, this, qOverload<>(&QWidget::update));
    connect(document, &MapDocument::weightedChanged, this, qOverload<>(&QWidget::update));  // the legend
    d->viewport = fitted(size(), m_document->map());
    m_zoom = d->viewport.zoom;
}

MapView::~MapView() = default;

void MapView::setTool(Tool tool) {
    if (tool == m_tool) return;
    m_tool = tool;
    setCursor(tool == Tool::Pan ? Qt::OpenHandCursor : Qt::CrossCursor);
    emit toolChanged(tool);
    update();
}

void MapView::setBrushSize(int cells) {
    m_brush = std::clamp(cells, 1, 256);
    update();
}

void MapView::setPaintCost(int cost) {
    m_paintCost = std::clamp(cost, 1, int(kMaxCellCost));
    update();
}

QRgb MapView::cellColour(std::uint8_t cost) const {
    const Colours colours = coloursFor(palette());
    d->mapTiles.setColours(colours.wall, colours.free, colours.terrainLight, colours.terrainDark);
    return d->mapTiles.cellColour(cost);
}

void MapView::addLayer(MapLayer* layer) {
    d->layers.emplace_back(layer);
    connect(layer, &MapLayer::changed, this, qOverload<>(&QWidget::update));
    update();
}

void MapView::setOverlay(OverlayPtr overlay) {
    d->overlay = std::move(overlay);
    d->overlayTiles.setImage(d->overlay ? d->overlay->cells : QImage());
    update();
}

QPoint MapView::cellAt(const QPointF& widgetPos) const {
    const QPointF p = (widgetPos - d->viewport.offset) / d->viewport.zoom;
    return QPoint(int(std::floor(p.x())), int(std::floor(p.y())));
}

// ---- zoom and pan ----------------------------------------------------------------------------

void MapView::fitToView() {
    d->viewport = fitted(size(), m_document->map());
    d->autoFit = true;
    m_zoom = d->viewport.zoom;
    emit zoomChanged(m_zoom);
    update();
}

void MapView::zoomBy(double factor, const QPointF& anchor) {
    const double lowest = std::min(kMinZoom, fitZoom(size(), m_document->map()));
    const double zoom = std::clamp(m_zoom * factor, lowest, kMaxZoom);
    if (zoom == m_zoom) return;
    // The map point under the anchor stays under it.
    const QPointF mapPos = (anchor - d->viewport.offset) / m_zoom;
    d->viewport.zoom = m_zoom = zoom;
    d->viewport.offset = anchor - mapPos * zoom;
    d->autoFit = false;
    emit zoomChanged(m_zoom);
    update();
}

void MapView::zoomIn() { zoomBy(kWheelStep, QPointF(width() / 2.0, height() / 2.0)); }
void MapView::zoomOut() { zoomBy(1.0 / kWheelStep, QPointF(width() / 2.0, height() / 2.0)); }

void MapView::resizeEvent(QResizeEvent*) {
    if (d->autoFit) fitToView();
}

void MapView::wheelEvent(QWheelEvent* event) {
    const double notches = event->angleDelta().y() / 120.0;  // touchpads send fractions
    if (notches == 0.0) return;
    zoomBy(std::pow(kWheelStep, notches), event->position());
    event->accept();
}

void MapView::keyPressEvent(QKeyEvent* event) {
    const double step = (event->modifiers() & Qt::ShiftModifier) ? 0.5 : 0.125;  // of the view
    QPointF pan;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_Home:
        fitToView();
        return;
    case Qt::Key_Left:
        pan = QPointF(width() * step, 0);
        break;
    case Qt::Key_Right:
        pan = QPointF(-width() * step, 0);
        break;
    case Qt::Key_Up:
        pan = QPointF(0, height() * step);
        break;
    case Qt::Key_Down:
        pan = QPointF(0, -height() * step);
        break;
    case Qt::Key_Escape:
        if (d->drag == Private::Drag::Rect || d->drag == Private::Drag::Line) {
            d->drag = Private::Drag::None;
            update();
            return;
        }
        [[fallthrough]];
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    d->viewport.offset += pan;
    d->autoFit = false;
    update();
}

// ---- mouse -----------------------------------------------------------------------------------

void MapView::mousePressEvent(QMouseEvent* event) {
    if (d->drag != Private::Drag::None) return;  // a second button during a drag
    const QPointF pos = event->position();
    const Cell cell = toCell(cellAt(pos));
    const bool left = event->button() == Qt::LeftButton;
    d->dragButton = event->button();
    d->lastPos = pos;
    if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton || (left && m_tool == Tool::Pan)) {
        d->drag = Private::Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    if (!left) return;
    switch (m_tool) {
    case Tool::Pan:
        break;
    case Tool::Wall:
    case Tool::Erase:
    case Tool::Terrain:
        d->drag = Private::Drag::Stroke;
        m_document->beginCostStroke(m_tool == Tool::Wall    ? 0
                                    : m_tool == Tool::Erase ? 1
                                                            : std::uint8_t(m_paintCost),
                                    m_brush);
        m_document->strokeTo(cell);
        break;
    case Tool::Rect:
    case Tool::Line:
        d->drag = m_tool == Tool::Rect ? Private::Drag::Rect : Private::Drag::Line;
        d->anchor = d->current = cell;
        d->erase = event->modifiers() & Qt::ShiftModifier;
        update();
        break;
    case Tool::Fill:
        // Clicking a free region walls it in; clicking a wall region clears it.
        if (m_document->map().in_bounds(cell.x, cell.y)) m_document->floodFill(cell, m_document->map().passable(cell));
        break;
    case Tool::Start:
    case Tool::Goal:
        d->drag = Private::Drag::Endpoint;
        m_document->beginEndpointDrag();
        m_tool == Tool::Start ? m_document->setStart(cell) : m_document->setGoal(cell);
        break;
    }
}

void MapView::mouseMoveEvent(QMouseEvent* event) {
    const QPointF pos = event->position();
    const Cell cell = toCell(cellAt(pos));
    if (!d->hover || !(*d->hover == cell)) {
        d->hover = cell;
        emit hoveredCell(cell.x, cell.y, m_document->map().in_bounds(cell.x, cell.y));
    }
    switch (d->drag) {
    case Private::Drag::Pan:
        d->viewport.offset += pos - d->lastPos;
        d->lastPos = pos;
        d->autoFit = false;
        break;
    case Private::Drag::Stroke:
        m_document->strokeTo(cell);
        break;
    case Private::Drag::Rect:
    case Private::Drag::Line:
        d->current = cell;
        break;
    case Private::Drag::Endpoint:
        m_tool == Tool::Start ? m_document->setStart(cell) : m_document->setGoal(cell);
        break;
    case Private::Drag::None:
        break;
    }
    update();  // tiles are cached: a full repaint is a few image blits
}

void MapView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != d->dragButton) return;
    const auto drag = std::exchange(d->drag, Private::Drag::None);
    d->dragButton = Qt::NoButton;
    switch (drag) {
    case Private::Drag::Pan:
        setCursor(m_tool == Tool::Pan ? Qt::OpenHandCursor : Qt::CrossCursor);
        break;
    case Private::Drag::Stroke:
        m_document->endStroke();
        break;
    case Private::Drag::Rect:
        m_document->paintRect(cellSpan(d->anchor, d->current), !d->erase);
        break;
    case Private::Drag::Line:
        m_document->paintLine(d->anchor, d->current, !d->erase, m_brush);
        break;
    case Private::Drag::Endpoint:
        m_document->endEndpointDrag();
        break;
    case Private::Drag::None:
        break;
    }
    update();
}

void MapView::leaveEvent(QEvent*) {
    if (!d->hover) return;
    d->hover.reset();
    emit hoveredCell(-1, -1, false);
    update();  // drop the brush preview
}

// ---- painting --------------------------------------------------------------------------------

void MapView::paintEvent(QPaintEvent* event) {
    const Colours colours = coloursFor(palette());
    // No-op unless the palette changed.
    d->mapTiles.setColours(colours.wall, colours.free, colours.terrainLight, colours.terrainDark);
    QPainter painter(this);
    d->paintScene(painter, event->rect(), d->viewport, colours, d->mapTiles, this);
    d->mapTiles.trim(kMapTileBudget);
    d->overlayTiles.trim(kOverlayTileBudget);
}

QImage MapView::renderImage(const QSize& size) const {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) return image;
    // Exported figures use the light palette whatever the desktop's; the widget's own tiles
    // serve unless they were built in other colours.
    const Colours colours = lightColours();
    std::unique_ptr<MapTiles> own;
    MapTiles* tiles = &d->mapTiles;
    if (tiles->wallColour() != colours.wall || tiles->freeColour() != colours.free ||
        tiles->cellColour(kMaxCellCost) != colours.terrainDark.rgb()) {
        own = std::make_unique<MapTiles>(m_document);
        own->setColours(colours.wall, colours.free, colours.terrainLight, colours.terrainDark);
        tiles = own.get();
    }
    QPainter painter(&image);
    d->paintScene(painter, image.rect(), fitted(size, m_document->map()), colours, *tiles, nullptr);
    return image;
}

void MapView::Private::drawTiles(QPainter& painter, const Viewport& vp,
                                 const std::vector<const TilePyramid::Tile*>& tiles) {
    for (const TilePyramid::Tile* tile : tiles) {
        // A tile's last pixel may stand for a partial block: draw it full size, the clip trims it.
        const QRect cells(tile->cells.topLeft(), tile->image.size() * (1 << tile->level));
        painter.drawImage(vp.screenRect(cells), tile->image);
    }
}

void MapView::Private::paintScene(QPainter& painter, const QRect& area, const Viewport& vp, const Colours& colours,
                                  MapTiles& tiles, const MapView* preview) {
    painter.fillRect(area, colours.background);
    const GridMap& map = document->map();
    if (map.empty()) return;
    const QRect visible = vp.cellsIn(area) & QRect(0, 0, map.width(), map.height());
    const double devicePixelsPerCell = vp.zoom * painter.device()->devicePixelRatioF();

    painter.save();
    painter.setClipRect(vp.screenRect(QRect(0, 0, map.width(), map.height())) & area);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // cells stay crisp squares
    drawTiles(painter, vp, tiles.tiles(tiles.levelFor(devicePixelsPerCell), visible));
    if (overlay && !overlayTiles.size().isEmpty()) {
        // On weighted terrain the search is translucent: what it crossed or went round shows.
        if (document->weighted()) painter.setOpacity(kOverlayOpacityOnTerrain);
        drawTiles(painter, vp, overlayTiles.tiles(overlayTiles.levelFor(devicePixelsPerCell), visible));
    }
    painter.restore();

    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    if (overlay && overlay->path.size() >= 2) {
        // Zoomed out, thousands of path cells share a pixel: keep one point per half pixel.
        QPolygonF line;
        for (const QPoint& p : overlay->path) {
            const QPointF point = vp.centreOf(toCell(p));
            if (line.isEmpty() || (point - line.back()).manhattanLength() >= 0.5) line << point;
        }
        line << vp.centreOf(toCell(overlay->path.back()));
        QPen pen(colours.path, std::clamp(vp.zoom * 0.35, 2.0, 6.0));
        pen.setCosmetic(true);
        pen.setCapStyle(Qt::RoundCap);
        pen.setJoinStyle(Qt::RoundJoin);
        painter.setPen(pen);
        painter.drawPolyline(line);
    }
    for (const QPointer<MapLayer>& layer : layers) {
        if (!layer || !layer->isShown()) continue;
        painter.save();
        painter.translate(vp.offset);
        painter.scale(vp.zoom, vp.zoom);
        layer->paint(painter, QRectF(visible), vp.zoom);
        painter.restore();
    }
    // Markers keep a minimum size, so they stay visible on a whole 16384^2 map.
    const double radius = std::max(5.0, vp.zoom * 0.45);
    auto marker = [&](const std::optional<Cell>& cell, const QColor& fill) {
        if (!cell) return;
        painter.setPen(QPen(Qt::white, 1.5));
        painter.setBrush(fill);
        painter.drawEllipse(vp.centreOf(*cell), radius, radius);
    };
    marker(map.start, QColor(0x2e, 0xb8, 0x4b));
    marker(map.goal, QColor(0xe5, 0x39, 0x35));
    painter.restore();

    // At the device's corner, not the repainted area's (a stroke repaints a few cells).
    if (document->weighted())
        drawLegend(painter, QRect(0, 0, painter.device()->width(), painter.device()->height()), tiles);
    if (preview) drawPreview(painter, vp, colours, *preview);
}

// A box in the bottom-left corner: a swatch per preset cost and the wall, on the window's
// colours so it reads on any map.
void MapView::Private::drawLegend(QPainter& painter, const QRect& area, const MapTiles& tiles) {
    painter.save();
    const QFontMetrics metrics = painter.fontMetrics();
    const int swatch = metrics.height();
    const int gap = swatch / 3;
    const QString title = MapView::tr("terrain cost");
    struct Entry {
        QRgb colour;
        QString label;
    };
    std::vector<Entry> entries;
    for (std::uint8_t cost : kLegendCosts) entries.push_back({tiles.cellColour(cost), QString::number(cost)});
    entries.push_back({tiles.cellColour(0), MapView::tr("wall")});
    int width = metrics.horizontalAdvance(title) + gap;
    for (const Entry& e : entries) width += swatch + gap / 2 + metrics.horizontalAdvance(e.label) + gap;
    const QRect box(area.left() + 8, area.bottom() - 8 - (swatch + 2 * gap), width + gap, swatch + 2 * gap);
    QColor back = QColor(0xff, 0xff, 0xff, 225);
    QColor text = QColor(0x20, 0x21, 0x24);
    if (qGray(tiles.cellColour(1)) < 128) {  // dark palette
        back = QColor(0x20, 0x21, 0x24, 225);
        text = QColor(0xe0, 0xe0, 0xe0);
    }
    painter.setPen(QPen(QColor(0x80, 0x80, 0x80), 1));
    painter.setBrush(back);
    painter.drawRoundedRect(box, 4, 4);
    int x = box.left() + gap;
    const int y = box.top() + gap;
    painter.setPen(text);
    painter.drawText(QRect(x, y, metrics.horizontalAdvance(title), swatch), Qt::AlignVCenter, title);
    x += metrics.horizontalAdvance(title) + gap;
    for (const Entry& e : entries) {
        painter.setPen(QPen(QColor(0x80, 0x80, 0x80), 1));
        painter.setBrush(QColor::fromRgb(e.colour));
        painter.drawRect(QRect(x, y, swatch, swatch).adjusted(0, 0, -1, -1));
        x += swatch + gap / 2;
        painter.setPen(text);
        const int w = metrics.horizontalAdvance(e.label);
        painter.drawText(QRect(x, y, w, swatch), Qt::AlignVCenter, e.label);
        x += w + gap;
    }
    painter.restore();
}

void MapView::Private::drawPreview(QPainter& painter, const Viewport& vp, const Colours& colours, const MapView& view) {
    QColor fill = colours.preview;
    fill.setAlpha(70);
    painter.save();
    painter.setPen(QPen(colours.preview, 1));
    painter.setBrush(fill);
    if (drag == Drag::Rect) {
        painter.drawRect(vp.screenRect(cellSpan(anchor, current)));
    } else if (drag == Drag::Line) {
        QColor stroke = colours.preview;
        stroke.setAlpha(150);
        painter.setPen(QPen(stroke, std::max(1.0, view.brushSize() * vp.zoom), Qt::SolidLine, Qt::SquareCap));
        painter.drawLine(vp.centreOf(anchor), vp.centreOf(current));
    } else if (hover && drag == Drag::None && view.tool() != Tool::Pan) {
        // The cells the next click changes: the brush square, or the one cell clicked.
        const bool brush = view.tool() == Tool::Wall || view.tool() == Tool::Erase || view.tool() == Tool::Line ||
                           view.tool() == Tool::Terrain;
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(vp.screenRect(MapDocument::brushRect(*hover, brush ? view.brushSize() : 1)));
    }
    painter.restore();
}

}  // namespace ps::ui
