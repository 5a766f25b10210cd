// A vector layer that the MapView paints over the map and its overlay, below the start and
// goal markers: flow-field arrows and agents, a roadmap's nodes and edges. Layers paint in cell
// coordinates (1 unit = 1 cell, origin at the top-left corner of cell (0, 0)); pens should be
// cosmetic so that line widths stay in pixels at every zoom.
#pragma once

#include <QObject>
#include <QRectF>

class QPainter;

namespace ps::ui {

class MapLayer : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // `visibleCells`: the part of the map in view; `pixelsPerCell`: the zoom (for culling
    // and for choosing how much detail to draw).
    virtual void paint(QPainter& painter, const QRectF& visibleCells, double pixelsPerCell) const = 0;

    bool isShown() const { return m_shown; }
    void setShown(bool shown) {
        if (shown == m_shown) return;
        m_shown = shown;
        emit changed();
    }

signals:
    void changed();  // the view repaints

private:
    bool m_shown = true;
};

}  // namespace ps::ui
