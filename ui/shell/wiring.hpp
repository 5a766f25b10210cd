// How the shell wires features together with signals (features never include each other).
#pragma once

namespace ps::ui {

class Animation;
class TimelinePanel;

// Clicking a level on the timeline moves the animation there; scrubbing the animation moves
// the timeline's cursor.
void linkTimelineAndAnimation(TimelinePanel* timeline, Animation* animation);

}  // namespace ps::ui
