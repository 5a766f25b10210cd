// The map canvas: draws the map (from cached tile images, never per-cell widgets, so 4096^2
// pans at 60 fps and 16384^2 stays usable), the animation overlay, start/goal and the path;
// zoom to cursor (wheel), pan (middle/right drag or the pan tool), fit; the editing tools. A
// weighted map gets a legend of its terrain costs in the bottom-left corner.
#pragma once

#include <QWidget>
#include <optional>

#include "ui/map/map_document.hpp"
#include "ui/map/map_layer.hpp"
#include "ui/map/overlay.hpp"

namespace ps::ui {

// Terrain: the brush paints the paint cost (weighted terrain, 1..255; 1 = plain floor).
enum class Tool { Pan, Wall, Erase, Rect, Line, Fill, Start, Goal, Terrain };

class MapView : public QWidget {
    Q_OBJECT
public:
    explicit MapView(MapDocument* document, QWidget* parent = nullptr);
    ~MapView() override;

    void setTool(Tool tool);
    Tool tool() const { return m_tool; }
    void setBrushSize(int cells);
    int brushSize() const { return m_brush; }
    // The cost the Terrain tool paints (clamped to 1..255).
    void setPaintCost(int cost);
    int paintCost() const { return m_paintCost; }
    // A cell's colour as the view draws it at full zoom in the current palette (tests, legends).
    QRgb cellColour(std::uint8_t cost) const;
    double zoom() const { return m_zoom; }  // screen pixels per cell
    void setOverlay(OverlayPtr overlay);    // null clears
    // Vector layers painted over the overlay in the order added (not owned; removed when destroyed).
    void addLayer(MapLayer* layer);
    // Cell under a widget position (may lie outside the map).
    QPoint cellAt(const QPointF& widgetPos) const;
    // The visible map, overlay and markers drawn into an image (screenshots, figure export).
    QImage renderImage(const QSize& size) const;

public slots:
    void fitToView();
    void zoomBy(double factor, const QPointF& anchor);
    void zoomIn();
    void zoomOut();

signals:
    void hoveredCell(int x, int y, bool inside);
    void zoomChanged(double pixelsPerCell);  // the new zoom()
    void toolChanged(ps::ui::Tool tool);

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void leaveEvent(QEvent*) override;

private:
    struct Private;
    std::unique_ptr<Private> d;
    MapDocument* m_document;
    Tool m_tool = Tool::Wall;
    int m_brush = 1;
    int m_paintCost = 5;
    double m_zoom = 1.0;
};

}  // namespace ps::ui
