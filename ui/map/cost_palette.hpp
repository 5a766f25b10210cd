// The terrain palette beside the editing tools: preset cell costs (1 plain, 2, 5, 10, 20, 50,
// 255) as swatches in the map's terrain colours, and a spin box for any cost 1..255. It holds
// the cost the Terrain tool paints; picking one asks for that tool.
#pragma once

#include <QWidget>

class QButtonGroup;
class QSpinBox;

namespace ps::ui {

class CostPalette : public QWidget {
    Q_OBJECT
public:
    explicit CostPalette(QWidget* parent = nullptr);

    int cost() const;
    void setCost(int cost);  // clamped to 1..255; checks the matching preset, if any
    static QList<int> presets();

signals:
    void costChanged(int cost);
    void costPicked(int cost);  // by the user (a preset clicked, the spin box edited)

private:
    void syncPresets(int cost);

    QButtonGroup* m_presets = nullptr;
    QSpinBox* m_custom = nullptr;
};

}  // namespace ps::ui
