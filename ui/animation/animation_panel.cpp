// AnimationPanel (see animation_panel.hpp): transport buttons with window-wide shortcuts
// (Space play/pause, , and . or Alt+Left/Right to step, End to jump to the end), a scrub
// slider, the speed in frames per second (adaptive steps, so 1..1000 is quick to cover), the
// caption and the colour legend of the current run.
#include "ui/animation/animation_panel.hpp"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace ps::ui {

struct AnimationPanel::Private {
    Animation* animation = nullptr;
    QToolButton* play = nullptr;
    QToolButton* back = nullptr;
    QToolButton* forward = nullptr;
    QToolButton* end = nullptr;
    QSlider* slider = nullptr;
    QDoubleSpinBox* speed = nullptr;
    QLabel* caption = nullptr;
    QLabel* legend = nullptr;
};

namespace {

QToolButton* transportButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& tip) {
    auto* button = new QToolButton(parent);
    button->setIcon(parent->style()->standardIcon(icon));
    button->setToolTip(tip);
    button->setAutoRaise(true);
    return button;
}

// Swatches as rich text: a label reflows with the dock's width, no custom painting needed.
QString legendHtml(const std::vector<LegendEntry>& entries) {
    QStringList parts;
    for (const auto& e : entries)
        parts << QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2")
                     .arg(e.colour.name(), e.text.toHtmlEscaped());
    return parts.join(QStringLiteral(" &nbsp; "));
}

}  // namespace

AnimationPanel::AnimationPanel(Animation* animation, QWidget* parent)
    : QWidget(parent), d(std::make_unique<Private>()) {
    d->animation = animation;
    d->back = transportButton(this, QStyle::SP_MediaSeekBackward, tr("Step back (, or Alt+Left)"));
    d->play = transportButton(this, QStyle::SP_MediaPlay, tr("Play / pause (Space)"));
    d->forward = transportButton(this, QStyle::SP_MediaSeekForward, tr("Step forward (. or Alt+Right)"));
    d->end = transportButton(this, QStyle::SP_MediaSkipForward, tr("Jump to the end (End)"));

    d->slider = new QSlider(Qt::Horizontal, this);
    d->slider->setToolTip(tr("Scrub through the frames"));

    d->speed = new QDoubleSpinBox(this);
    d->speed->setRange(1, 1000);
    d->speed->setDecimals(0);
    d->speed->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);  // steps grow with the value
    d->speed->setSuffix(tr(" frames/s"));
    d->speed->setToolTip(tr("Playback speed: BFS levels or search steps per second"));
    d->speed->setValue(animation->speed());

    d->caption = new QLabel(this);
    d->caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->legend = new QLabel(this);
    d->legend->setWordWrap(true);
    d->legend->setTextFormat(Qt::RichText);

    auto* transport = new QHBoxLayout;
    for (QWidget* w : {static_cast<QWidget*>(d->back), static_cast<QWidget*>(d->play),
                       static_cast<QWidget*>(d->forward), static_cast<QWidget*>(d->end)})
        transport->addWidget(w);
    transport->addWidget(d->slider, 1);
    transport->addWidget(d->speed);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(transport);
    layout->addWidget(d->caption);
    layout->addWidget(d->legend);

    connect(d->play, &QToolButton::clicked, animation, &Animation::togglePlay);
    connect(d->back, &QToolButton::clicked, animation, &Animation::stepBack);
    connect(d->forward, &QToolButton::clicked, animation, &Animation::stepForward);
    connect(d->end, &QToolButton::clicked, animation, &Animation::jumpToEnd);
    connect(d->slider, &QSlider::valueChanged, animation, &Animation::setFrame);
    connect(d->speed, &QDoubleSpinBox::valueChanged, animation, &Animation::setSpeed);

    const std::pair<QKeySequence, void (Animation::*)()> keys[] = {
        {QKeySequence(Qt::Key_Space), &Animation::togglePlay},
        {QKeySequence(Qt::Key_Comma), &Animation::stepBack},
        {QKeySequence(Qt::Key_Period), &Animation::stepForward},
        {QKeySequence(Qt::ALT | Qt::Key_Left), &Animation::stepBack},
        {QKeySequence(Qt::ALT | Qt::Key_Right), &Animation::stepForward},
        {QKeySequence(Qt::Key_End), &Animation::jumpToEnd},
    };
    for (const auto& [key, slot] : keys) {
        // Window-wide, so they work while the map has focus; text fields still take their keys
        // first (Qt sends them a ShortcutOverride).
        auto* shortcut = new QShortcut(key, this);
        shortcut->setContext(Qt::WindowShortcut);
        connect(shortcut, &QShortcut::activated, animation, slot);
    }

    auto showFrame = [this](int frame, int frameCount) {
        const QSignalBlocker block(d->slider);
        d->slider->setRange(0, std::max(0, frameCount - 1));
        d->slider->setValue(frame);
        d->caption->setText(frameCount > 0           ? d->animation->caption()
                            : d->animation->hasRun() ? tr("This run has no recording to replay: it was made without "
                                                          "one (pathscope-cli run --record stores it).")
                                                     : tr("Run a search to replay it here."));
    };
    auto showRun = [this, showFrame] {
        const bool any = d->animation->frameCount() > 0;
        for (QWidget* w :
             {static_cast<QWidget*>(d->back), static_cast<QWidget*>(d->play), static_cast<QWidget*>(d->forward),
              static_cast<QWidget*>(d->end), static_cast<QWidget*>(d->slider)})
            w->setEnabled(any);
        d->legend->setText(legendHtml(d->animation->legend()));
        showFrame(d->animation->frame(), d->animation->frameCount());
    };
    connect(animation, &Animation::frameChanged, this, showFrame);
    connect(animation, &Animation::runChanged, this, showRun);
    connect(animation, &Animation::playingChanged, this, [this](bool playing) {
        d->play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    });
    showRun();
}

AnimationPanel::~AnimationPanel() = default;

}  // namespace ps::ui
