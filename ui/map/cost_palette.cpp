// CostPalette (see cost_palette.hpp).
#include "ui/map/cost_palette.hpp"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QPainter>
#include <QPixmap>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <algorithm>

#include "kernels/map/grid_map.hpp"
#include "ui/map/map_tiles.hpp"

namespace ps::ui {

namespace {

QIcon swatch(int cost) {
    QPixmap pixmap(16, 16);
    // The light palette's floor for cost 1, as exported figures show it.
    const QRgb colour =
        cost <= 1 ? qRgb(0xfa, 0xfa, 0xf7) : terrainColour(std::uint8_t(cost), kTerrainLight, kTerrainDark);
    pixmap.fill(QColor::fromRgb(colour));
    QPainter painter(&pixmap);
    painter.setPen(QColor(0x80, 0x80, 0x80));
    painter.drawRect(pixmap.rect().adjusted(0, 0, -1, -1));
    return QIcon(pixmap);
}

}  // namespace

QList<int> CostPalette::presets() { return {1, 2, 5, 10, 20, 50, 255}; }

CostPalette::CostPalette(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("costPalette"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(1);
    m_presets = new QButtonGroup(this);
    m_presets->setExclusive(false);  // a custom cost unchecks them all
    for (int cost : presets()) {
        auto* button = new QToolButton(this);
        button->setObjectName(QStringLiteral("cost%1").arg(cost));
        button->setCheckable(true);
        button->setIcon(swatch(cost));
        button->setText(QString::number(cost));
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setToolTip(cost == 1 ? tr("Terrain cost 1: plain floor (the Terrain tool paints it)")
                                     : tr("Terrain cost %1: a step onto such a cell costs %1 times a plain one "
                                          "(the Terrain tool paints it)")
                                           .arg(cost));
        m_presets->addButton(button, cost);
        layout->addWidget(button);
    }
    m_custom = new QSpinBox(this);
    m_custom->setObjectName(QStringLiteral("customCost"));
    m_custom->setRange(1, int(kMaxCellCost));
    m_custom->setPrefix(tr("cost "));
    m_custom->setToolTip(tr("Any terrain cost 1..255 for the Terrain tool (0 is a wall: use Wall)"));
    layout->addWidget(m_custom);
    connect(m_presets, &QButtonGroup::idClicked, this, [this](int cost) {
        setCost(cost);
        emit costPicked(cost);
    });
    connect(m_custom, &QSpinBox::valueChanged, this, [this](int cost) {
        syncPresets(cost);
        emit costChanged(cost);
        emit costPicked(cost);
    });
    setCost(5);
}

int CostPalette::cost() const { return m_custom->value(); }

void CostPalette::setCost(int cost) {
    cost = std::clamp(cost, 1, int(kMaxCellCost));
    syncPresets(cost);
    if (cost == m_custom->value()) return;
    const QSignalBlocker block(m_custom);
    m_custom->setValue(cost);
    emit costChanged(cost);
}

void CostPalette::syncPresets(int cost) {
    for (QAbstractButton* button : m_presets->buttons()) button->setChecked(m_presets->id(button) == cost);
}

}  // namespace ps::ui
