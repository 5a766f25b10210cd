// The shell's wiring between features (see wiring.hpp).
#include "ui/shell/wiring.hpp"

#include "instrumentation/timeline/timeline_layout.hpp"
#include "ui/animation/animation.hpp"
#include "ui/timeline/timeline_panel.hpp"

namespace ps::ui {

void linkTimelineAndAnimation(TimelinePanel* timeline, Animation* animation) {
    QObject::connect(timeline, &TimelinePanel::levelSelected, animation, [animation](int level, int levelCount) {
        if (animation->frameCount() > 0 && levelCount > 0)
            animation->setFrame(trace::frame_of_level(level, levelCount, animation->frameCount()));
    });
    QObject::connect(animation, &Animation::frameChanged, timeline, &TimelinePanel::showAnimationFrame);
}

}  // namespace ps::ui
