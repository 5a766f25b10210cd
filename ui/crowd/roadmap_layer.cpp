// RoadmapLayer (see roadmap_layer.hpp).
#include "ui/crowd/roadmap_layer.hpp"

#include <QLocale>
#include <QPainter>
#include <QPen>
#include <algorithm>
#include <vector>

namespace ps::ui {

void RoadmapLayer::setRoadmap(std::shared_ptr<const Roadmap> roadmap, const QString& source) {
    m_roadmap = std::move(roadmap);
    m_source = m_roadmap ? source : QString();
    emit roadmapChanged();
    emit changed();
}

QString RoadmapLayer::summary() const {
    if (!m_roadmap) return {};
    const QLocale locale;
    const CsrGraph& g = m_roadmap->graph;
    return tr("%1 nodes, %2 arcs (%3)")
        .arg(locale.toString(qulonglong(g.vertex_count())), locale.toString(qulonglong(g.edge_count())), m_source);
}

void RoadmapLayer::paint(QPainter& painter, const QRectF& visibleCells, double pixelsPerCell) const {
    if (!m_roadmap) return;
    const CsrGraph& g = m_roadmap->graph;
    if (g.coords.size() != g.vertex_count()) return;  // nothing to place the nodes by
    auto at = [&](Vertex v) { return QPointF(g.coords[v].x + 0.5, g.coords[v].y + 0.5); };
    const QRectF view = visibleCells.adjusted(-1, -1, 1, 1);
    std::vector<QLineF> edges;
    for (Vertex u = 0; u < g.vertex_count(); ++u) {
        const QPointF a = at(u);
        for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            const Vertex v = g.targets[e];
            if (v >= g.vertex_count()) continue;
            const QPointF b = at(v);
            if (!view.intersects(QRectF(a, b).normalized().adjusted(-0.01, -0.01, 0.01, 0.01))) continue;
            edges.emplace_back(a, b);
        }
    }
    QPen edge(QColor(0x00, 0x6d, 0xb0, 170), 1.2);
    edge.setCosmetic(true);
    painter.setPen(edge);
    painter.drawLines(edges.data(), int(edges.size()));

    std::vector<QPointF> nodes;
    for (Vertex u = 0; u < g.vertex_count(); ++u)
        if (view.contains(at(u))) nodes.push_back(at(u));
    QPen node(QColor(0x00, 0x4a, 0x80), std::clamp(pixelsPerCell * 0.5, 3.0, 8.0));
    node.setCosmetic(true);
    node.setCapStyle(Qt::RoundCap);
    painter.setPen(node);
    painter.drawPoints(nodes.data(), int(nodes.size()));
}

}  // namespace ps::ui
