// NewMapDialog: the form over ps::GeneratorParams and generation on OK.
#include "ui/map/new_map_dialog.hpp"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QToolButton>
#include <utility>

namespace ps::ui {

namespace {

QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QDoubleSpinBox* fractionBox(QWidget* parent, double step) {
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(0.0, 1.0);
    box->setDecimals(3);
    box->setSingleStep(step);
    return box;
}

}  // namespace

NewMapDialog::NewMapDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("New map"));
    auto* form = new QFormLayout;

    m_kind = new QComboBox(this);
    for (GeneratorKind kind : all_generator_kinds()) m_kind->addItem(text(to_string(kind)), int(kind));
    form->addRow(tr("&Generator:"), m_kind);

    auto sizeBox = [this] {
        auto* box = new QSpinBox(this);
        box->setRange(1, 65535);
        box->setSuffix(tr(" cells"));
        box->setAccelerated(true);
        return box;
    };
    m_width = sizeBox();
    m_height = sizeBox();
    form->addRow(tr("&Width:"), m_width);
    form->addRow(tr("&Height:"), m_height);
    m_cells = new QLabel(this);
    form->addRow(QString(), m_cells);

    // Seeds are 64-bit: more than a QSpinBox holds.
    m_seed = new QLineEdit(this);
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{1,20}")), m_seed));
    auto* dice = new QToolButton(this);
    dice->setText(tr("Random"));
    dice->setToolTip(tr("Pick a random seed"));
    connect(dice, &QToolButton::clicked, this,
            [this] { m_seed->setText(QString::number(QRandomGenerator::global()->bounded(1, 1000000))); });
    auto* seedRow = new QHBoxLayout;
    seedRow->addWidget(m_seed, 1);
    seedRow->addWidget(dice);
    auto* seedLabel = new QLabel(tr("&Seed:"), this);
    seedLabel->setBuddy(m_seed);  // a row holding a layout gets no buddy of its own
    form->addRow(seedLabel, seedRow);

    m_density = fractionBox(this, 0.05);
    form->addRow(tr("&Density:"), m_density);
    m_centre = fractionBox(this, 0.05);
    m_centre->setToolTip(tr("Side of the blocked centre square, as a fraction of the map side"));
    form->addRow(tr("&Centre block:"), m_centre);
    m_corridor = new QSpinBox(this);
    m_corridor->setRange(1, 4096);
    m_corridor->setSuffix(tr(" cells"));
    form->addRow(tr("C&orridor width:"), m_corridor);
    m_room = new QSpinBox(this);
    m_room->setRange(2, 65535);
    m_room->setSuffix(tr(" cells"));
    m_room->setToolTip(tr("Side of a room; walls between rooms are one cell thick"));
    form->addRow(tr("Roo&m size:"), m_room);
    m_noise = new QComboBox(this);
    for (NoiseType type : {NoiseType::Gradient, NoiseType::Value}) m_noise->addItem(text(to_string(type)), int(type));
    form->addRow(tr("&Noise:"), m_noise);
    m_frequency = new QDoubleSpinBox(this);
    m_frequency->setRange(0.0001, 1.0);
    m_frequency->setDecimals(4);
    m_frequency->setSingleStep(0.005);
    m_frequency->setToolTip(tr("Features per cell: smaller values give larger blobs"));
    form->addRow(tr("&Frequency:"), m_frequency);
    m_octaves = new QSpinBox(this);
    m_octaves->setRange(1, 8);
    form->addRow(tr("Oc&taves:"), m_octaves);
    // Names for tests and accessibility tools (the labels are translated).
    const std::pair<QWidget*, const char*> named[] = {
        {m_density, "density"}, {m_centre, "centre"},       {m_corridor, "corridor"}, {m_room, "room"},
        {m_noise, "noise"},     {m_frequency, "frequency"}, {m_octaves, "octaves"}};
    for (const auto& [w, name] : named) w->setObjectName(QString::fromLatin1(name));

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #d32f2f"));
    m_error->hide();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Generate"));
    connect(buttons, &QDialogButtonBox::accepted, this, &NewMapDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &NewMapDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);

    GeneratorParams defaults;
    defaults.kind = GeneratorKind::Noise;
    defaults.width = defaults.height = 512;
    setParams(defaults);

    connect(m_kind, &QComboBox::currentIndexChanged, this, &NewMapDialog::updateFields);
    for (QSpinBox* box : {m_width, m_height}) connect(box, &QSpinBox::valueChanged, this, &NewMapDialog::updateFields);
}

void NewMapDialog::setParams(const GeneratorParams& p) {
    m_kind->setCurrentIndex(m_kind->findData(int(p.kind)));
    m_width->setValue(p.width);
    m_height->setValue(p.height);
    m_seed->setText(QString::number(p.seed));
    m_density->setValue(p.density);
    m_centre->setValue(p.blocked_centre_fraction);
    m_corridor->setValue(p.corridor_width);
    m_room->setValue(p.room_size);
    m_noise->setCurrentIndex(m_noise->findData(int(p.noise)));
    m_frequency->setValue(p.noise_frequency);
    m_octaves->setValue(p.noise_octaves);
    updateFields();
}

std::optional<GeneratorParams> NewMapDialog::params(QString* error) const {
    GeneratorParams p;
    p.kind = GeneratorKind(m_kind->currentData().toInt());
    p.width = m_width->value();
    p.height = m_height->value();
    bool ok = false;
    p.seed = m_seed->text().toULongLong(&ok);
    if (!ok) {
        if (error) *error = tr("The seed must be a whole number from 0 to 18446744073709551615.");
        return std::nullopt;
    }
    p.density = m_density->value();
    p.blocked_centre_fraction = m_centre->value();
    p.corridor_width = m_corridor->value();
    p.room_size = m_room->value();
    p.noise = NoiseType(m_noise->currentData().toInt());
    p.noise_frequency = m_frequency->value();
    p.noise_octaves = m_octaves->value();
    return p;
}

GridMap NewMapDialog::takeMap() {
    GridMap map = m_map ? std::move(*m_map) : GridMap();
    m_map.reset();
    return map;
}

QString NewMapDialog::errorText() const { return m_error->isHidden() ? QString() : m_error->text(); }

void NewMapDialog::updateFields() {
    const auto kind = GeneratorKind(m_kind->currentData().toInt());
    m_density->setEnabled(kind == GeneratorKind::Random || kind == GeneratorKind::Rectangles ||
                          kind == GeneratorKind::Noise || kind == GeneratorKind::Rooms);
    // Rooms read the density as walls, not cells: the share of walls that keep no door.
    m_density->setToolTip(kind == GeneratorKind::Rooms
                              ? tr("Share of the walls between rooms, beyond those a spanning tree needs, "
                                   "that keep no door (0: a door in every wall, 1: a tree of doors)")
                              : tr("Fraction of blocked cells"));
    m_centre->setEnabled(kind == GeneratorKind::BlockedCentre);
    m_corridor->setEnabled(kind == GeneratorKind::Maze);
    m_room->setEnabled(kind == GeneratorKind::Rooms);
    for (QWidget* w : std::initializer_list<QWidget*>{m_noise, m_frequency, m_octaves})
        w->setEnabled(kind == GeneratorKind::Noise);
    // One byte per cell in the editor; editing while a run holds a snapshot copies it once.
    const qint64 cells = qint64(m_width->value()) * m_height->value();
    m_cells->setText(tr("%L1 cells, %2 MiB").arg(cells).arg(double(cells) / (1 << 20), 0, 'f', 1));
}

void NewMapDialog::accept() {
    QString error;
    auto p = params(&error);
    if (p) {
        // generate_map is the one authority on valid parameters; a large map takes seconds.
        QApplication::setOverrideCursor(Qt::WaitCursor);
        auto map = generate_map(*p);
        QApplication::restoreOverrideCursor();
        if (map) {
            m_map = std::move(map).value();
            m_error->hide();
            QDialog::accept();
            return;
        }
        error = QString::fromStdString(map.error().message);
    }
    m_error->setText(error);
    m_error->show();
}

}  // namespace ps::ui
