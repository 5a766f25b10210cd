// MovieDialog (see movie_dialog.hpp).
#include "ui/animation/movie_dialog.hpp"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThreadPool>

#include "ui/common/async.hpp"

namespace ps::ui {

MovieDialog::MovieDialog(std::vector<MoviePanel> panels, int frameCount, const QString& suggestedPath, QWidget* parent)
    : QDialog(parent), m_panels(std::move(panels)) {
    setWindowTitle(tr("Export animation"));
    m_path = new QLineEdit(suggestedPath, this);
    auto* browseButton = new QPushButton(tr("Browse\u2026"), this);
    connect(browseButton, &QPushButton::clicked, this, &MovieDialog::browse);
    auto* file = new QHBoxLayout;
    file->addWidget(m_path, 1);
    file->addWidget(browseButton);

    const int last = std::max(0, frameCount - 1);
    m_first = new QSpinBox(this);
    m_last = new QSpinBox(this);
    for (QSpinBox* box : {m_first, m_last}) box->setRange(0, last);
    m_last->setValue(last);
    auto* range = new QHBoxLayout;
    range->addWidget(m_first);
    range->addWidget(new QLabel(tr("to"), this));
    range->addWidget(m_last);
    range->addStretch(1);
    m_fps = new QSpinBox(this);
    m_fps->setRange(1, 60);
    m_fps->setValue(30);
    m_fps->setToolTip(tr("GIF plays at most 50 frames per second"));
    m_width = new QSpinBox(this);
    m_width->setRange(64, 7680);
    m_width->setSingleStep(160);
    m_width->setValue(1280);
    m_width->setSuffix(tr(" px"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_status = new QLabel(
        tr("%n frame(s) in the animation; more than 900 are sampled, the last always kept.", nullptr, frameCount),
        this);
    m_status->setWordWrap(true);

    auto* form = new QFormLayout;
    form->addRow(tr("File (.gif, .mp4)"), file);
    form->addRow(tr("Frames"), range);
    form->addRow(tr("Frames per second"), m_fps);
    form->addRow(tr("Width"), m_width);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* exportButton = m_buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    exportButton->setDefault(true);
    connect(exportButton, &QPushButton::clicked, this, &MovieDialog::startExport);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &MovieDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_buttons);
}

MovieDialog::~MovieDialog() {
    // The worker owns copies of what it touches; cancelling lets it end soon, and its answer
    // dies with this dialog's watcher.
    if (m_cancel) m_cancel->store(true);
}

void MovieDialog::setPath(const QString& path) { m_path->setText(path); }
void MovieDialog::setFrames(int first, int last) {
    m_first->setValue(first);
    m_last->setValue(last);
}
void MovieDialog::setFps(int fps) { m_fps->setValue(fps); }
void MovieDialog::setMovieWidth(int width) { m_width->setValue(width); }
bool MovieDialog::exporting() const { return m_running; }
QString MovieDialog::status() const { return m_status->text(); }

void MovieDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export animation"), m_path->text(),
                                                      tr("Animated GIF (*.gif);;MP4 video (*.mp4)"));
    if (!path.isEmpty()) m_path->setText(path);
}

void MovieDialog::setRunning(bool running) {
    m_running = running;
    for (QWidget* w : std::initializer_list<QWidget*>{m_path, m_first, m_last, m_fps, m_width}) w->setEnabled(!running);
    for (QAbstractButton* b : m_buttons->buttons())
        if (m_buttons->buttonRole(b) == QDialogButtonBox::AcceptRole) b->setEnabled(!running);
    m_buttons->button(QDialogButtonBox::Close)->setText(running ? tr("Cancel") : tr("Close"));
}

void MovieDialog::startExport() {
    if (m_running) return;
    MovieOptions options;
    options.fps = m_fps->value();
    options.width = m_width->value();
    options.frames =
        std::pair(std::min(m_first->value(), m_last->value()), std::max(m_first->value(), m_last->value()));
    const QString path = m_path->text().trimmed();
    if (path.isEmpty()) {
        m_status->setText(tr("Choose a file: .gif or .mp4."));
        return;
    }
    auto cancel = m_cancel = std::make_shared<std::atomic<bool>>(false);
    QPointer<QProgressBar> bar = m_progress;
    setRunning(true);
    m_progress->setRange(0, 0);  // busy until the first frame reports
    m_status->setText(tr("Exporting %1\u2026").arg(QFileInfo(path).fileName()));
    runAsync(
        this,
        [panels = m_panels, path, options, cancel, bar] {
            return exportMovie(panels, path, options, [cancel, bar](int done, int total) {
                QMetaObject::invokeMethod(
                    bar,
                    [bar, done, total] {
                        if (!bar) return;
                        bar->setRange(0, total);
                        bar->setValue(done);
                    },
                    Qt::QueuedConnection);
                return !cancel->load();
            });
        },
        [this, path](const MovieOutcome& outcome) {
            setRunning(false);
            QString message;
            if (outcome.ok)
                message = tr("Wrote %1: %n frame(s), %2 \u00d7 %3 px.", nullptr, outcome.frames)
                              .arg(path)
                              .arg(outcome.size.width())
                              .arg(outcome.size.height());
            else
                message = outcome.error;
            m_progress->setRange(0, 1);
            m_progress->setValue(outcome.ok ? 1 : 0);
            m_status->setText(message);
            emit exportFinished(outcome.ok, message);
        },
        [this](const QString& failure) {
            setRunning(false);
            m_status->setText(failure);
            emit exportFinished(false, failure);
        });
}

void MovieDialog::cancelExport() {
    if (m_cancel) m_cancel->store(true);
}

void MovieDialog::reject() {
    if (m_running) {
        cancelExport();
        return;  // the dialog stays until the worker has stopped and said so
    }
    QDialog::reject();
}

}  // namespace ps::ui
