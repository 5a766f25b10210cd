// What the animation paints over the map for one frame: a per-cell colour layer (same size
// as the map, transparent where nothing is shown), the path, and a caption. Shared, immutable.
#pragma once

#include <QImage>
#include <QPoint>
#include <QString>
#include <memory>
#include <vector>

namespace ps::ui {

struct Overlay {
    QImage cells;              // map width x height; Format_Indexed8 with alpha in the colour table, or ARGB32
    std::vector<QPoint> path;  // cell coordinates, start .. goal; empty when none
    QString caption;           // e.g. "level 12 of 4094: 128 cells"
};

using OverlayPtr = std::shared_ptr<const Overlay>;

}  // namespace ps::ui
