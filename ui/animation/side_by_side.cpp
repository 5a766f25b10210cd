// SideBySideView (see side_by_side.hpp).
#include "ui/animation/side_by_side.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace ps::ui {

namespace {
constexpr int kRenderWidth = 1280;  // frames are drawn once at this width and scaled to the window
constexpr int kFramesPerSecond = 30;
}  // namespace

SideBySideView::SideBySideView(std::vector<MoviePanel> panels, QWidget* parent)
    : QWidget(parent), m_frames(std::move(panels), kRenderWidth, false) {
    setWindowTitle(tr("Side by side"));
    m_picture = new QLabel(this);
    m_picture->setAlignment(Qt::AlignCenter);
    m_picture->setMinimumSize(320, 200);
    m_picture->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, std::max(0, frameCount() - 1));
    m_play = new QToolButton(this);
    m_play->setText(tr("Play"));
    m_play->setCheckable(true);
    m_counter = new QLabel(this);
    connect(m_slider, &QSlider::valueChanged, this, &SideBySideView::setFrame);
    connect(m_play, &QToolButton::toggled, this, [this](bool on) { on ? play() : pause(); });
    m_timer.setInterval(1000 / kFramesPerSecond);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_frame + 1 >= frameCount()) return pause();
        setFrame(m_frame + 1);
    });
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_play);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_counter);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_picture, 1);
    layout->addLayout(controls);
    resize(1000, 640);
    setFrame(std::max(0, frameCount() - 1));  // opens on the final state, as the Animation dock does
}

SideBySideView::~SideBySideView() = default;

int SideBySideView::frameCount() const { return m_frames.frameCount(); }
int SideBySideView::frame() const { return m_frame; }
const QImage& SideBySideView::image() const { return m_image; }

int SideBySideView::panelFrame(int panel) const {
    const int own = m_frames.panelFrames(panel);
    return own > 0 ? std::min(m_frame, own - 1) : -1;
}

void SideBySideView::setFrame(int frame) {
    if (frameCount() == 0) return;
    frame = std::clamp(frame, 0, frameCount() - 1);
    if (frame == m_frame) return;
    m_frame = frame;
    m_image = m_frames.frame(frame);
    {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(frame);
    }
    m_counter->setText(tr("frame %1 of %2").arg(frame + 1).arg(frameCount()));
    showImage();
    emit frameChanged(frame);
}

void SideBySideView::play() {
    if (frameCount() < 2) return;
    if (m_frame + 1 >= frameCount()) setFrame(0);
    m_timer.start();
    const QSignalBlocker block(m_play);
    m_play->setChecked(true);
    m_play->setText(tr("Pause"));
}

void SideBySideView::pause() {
    m_timer.stop();
    const QSignalBlocker block(m_play);
    m_play->setChecked(false);
    m_play->setText(tr("Play"));
}

void SideBySideView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    showImage();
}

void SideBySideView::showImage() {
    if (m_image.isNull()) return;
    m_picture->setPixmap(
        QPixmap::fromImage(m_image.scaled(m_picture->size(), Qt::KeepAspectRatio, Qt::SmoothTransformation)));
}

}  // namespace ps::ui
