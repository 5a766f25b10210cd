// A roadmap drawn over the map: edges as thin lines, nodes as dots (kernels/graph/roadmap.hpp;
// node coordinates are cell x, y, so a node sits on its cell's centre). Edges stored both ways
// are drawn once; only what lies in view is drawn, so large waypoint graphs stay responsive.
#pragma once

#include <QString>
#include <memory>

#include "kernels/graph/roadmap.hpp"
#include "ui/map/map_layer.hpp"

namespace ps::ui {

class RoadmapLayer : public MapLayer {
    Q_OBJECT
public:
    using MapLayer::MapLayer;

    void setRoadmap(std::shared_ptr<const Roadmap> roadmap, const QString& source);
    void clear() { setRoadmap(nullptr, {}); }
    const std::shared_ptr<const Roadmap>& roadmap() const { return m_roadmap; }
    QString source() const { return m_source; }
    // "1,024 nodes, 3,870 edges (waypoints, spacing 8)"; empty without a roadmap.
    QString summary() const;

    void paint(QPainter& painter, const QRectF& visibleCells, double pixelsPerCell) const override;

signals:
    void roadmapChanged();

private:
    std::shared_ptr<const Roadmap> m_roadmap;
    QString m_source;
};

}  // namespace ps::ui
