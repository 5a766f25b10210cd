// Controls of the Animation: play/pause, step back/forward, jump to end, scrub slider, speed
// (frames per second), the caption (current level or step and counts) and the colour legend.
#pragma once

#include <QWidget>

#include "ui/animation/animation.hpp"

namespace ps::ui {

class AnimationPanel : public QWidget {
    Q_OBJECT
public:
    explicit AnimationPanel(Animation* animation, QWidget* parent = nullptr);
    ~AnimationPanel() override;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
