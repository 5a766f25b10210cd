// File > Open as weighted terrain: how the chosen file's cells get their costs. A MovingAI map's
// swamp 'S' and water 'W' at chosen costs (water 0 keeps it a wall); an image's grey levels as
// costs (0 wall, 1..255 the cost) or, unticked, walls below a threshold as a plain open does.
#pragma once

#include <QDialog>

#include "ui/map/map_document.hpp"

class QCheckBox;
class QSpinBox;

namespace ps::ui {

class TerrainOpenDialog : public QDialog {
    Q_OBJECT
public:
    // `path`: the file chosen; its suffix says which settings apply.
    explicit TerrainOpenDialog(const QString& path, QWidget* parent = nullptr);
    MapReadOptions options() const;

private:
    bool m_image = false;
    QSpinBox* m_swamp = nullptr;
    QSpinBox* m_water = nullptr;
    QCheckBox* m_greyCosts = nullptr;
    QSpinBox* m_threshold = nullptr;
};

}  // namespace ps::ui
