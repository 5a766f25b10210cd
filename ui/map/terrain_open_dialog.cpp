// TerrainOpenDialog (see terrain_open_dialog.hpp).
#include "ui/map/terrain_open_dialog.hpp"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace ps::ui {

namespace {
const char* const kSwampKey = "terrain/swampCost";
const char* const kWaterKey = "terrain/waterCost";
const char* const kGreyKey = "terrain/greyLevelsAreCosts";
}  // namespace

TerrainOpenDialog::TerrainOpenDialog(const QString& path, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open as weighted terrain"));
    m_image = QFileInfo(path).suffix().compare(QLatin1String("map"), Qt::CaseInsensitive) != 0;
    QSettings settings;
    auto* form = new QFormLayout;
    auto* intro = new QLabel(this);
    intro->setWordWrap(true);
    if (m_image) {
        intro->setText(tr("<b>%1</b>: an image. With grey levels as costs, black (0) is a wall and grey level "
                          "<i>g</i> a cell costing <i>g</i> (white: 255).")
                           .arg(QFileInfo(path).fileName().toHtmlEscaped()));
        m_greyCosts = new QCheckBox(tr("Grey levels are costs"), this);
        m_greyCosts->setObjectName(QStringLiteral("greyCosts"));
        m_greyCosts->setChecked(settings.value(kGreyKey, true).toBool());
        m_threshold = new QSpinBox(this);
        m_threshold->setRange(1, 255);
        m_threshold->setValue(128);
        m_threshold->setToolTip(tr("Otherwise: grey levels below this are walls, the rest plain floor"));
        m_threshold->setEnabled(!m_greyCosts->isChecked());
        connect(m_greyCosts, &QCheckBox::toggled, m_threshold, [this](bool on) { m_threshold->setEnabled(!on); });
        form->addRow(m_greyCosts);
        form->addRow(tr("Wall threshold:"), m_threshold);
    } else {
        intro->setText(tr("<b>%1</b>: a MovingAI map. Its swamp (S) and water (W) cells get these costs "
                          "(a plain cell costs 1; water 0 keeps it a wall, as the benchmarks read it). "
                          "PathScope's weighted maps keep their own costs.")
                           .arg(QFileInfo(path).fileName().toHtmlEscaped()));
        m_swamp = new QSpinBox(this);
        m_swamp->setObjectName(QStringLiteral("swampCost"));
        m_swamp->setRange(1, 255);
        m_swamp->setValue(settings.value(kSwampKey, 5).toInt());
        m_water = new QSpinBox(this);
        m_water->setObjectName(QStringLiteral("waterCost"));
        m_water->setRange(0, 255);
        m_water->setSpecialValueText(tr("wall"));
        m_water->setValue(settings.value(kWaterKey, 20).toInt());
        form->addRow(tr("Swamp (S) cost:"), m_swamp);
        form->addRow(tr("Water (W) cost:"), m_water);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings chosen;
        if (m_greyCosts) chosen.setValue(kGreyKey, m_greyCosts->isChecked());
        if (m_swamp) chosen.setValue(kSwampKey, m_swamp->value());
        if (m_water) chosen.setValue(kWaterKey, m_water->value());
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

MapReadOptions TerrainOpenDialog::options() const {
    MapReadOptions options;
    if (m_image) {
        options.imageCosts = m_greyCosts->isChecked();
        options.threshold = m_threshold->value();
    } else {
        options.terrain.swamp = std::uint8_t(m_swamp->value());
        options.terrain.water = std::uint8_t(m_water->value());
    }
    return options;
}

}  // namespace ps::ui
