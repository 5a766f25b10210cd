// The crowd tools wired into the main window (the shell wires features together; the crowd
// feature itself knows nothing of the window, the run panel or the history).
#pragma once

namespace ps::ui {

class CrowdPanel;
class MainWindow;

// Puts the crowd tools into `window`: the flow-field and roadmap layers on its map view, the
// Crowd dock (tabbed with the Animation dock), a Map menu with "Roadmap: generate waypoints…",
// "Open roadmap…" and "Show roadmap", and the wiring that hands selected runs to the player.
CrowdPanel* installCrowdTools(MainWindow* window);

// For screenshots: the Crowd dock in front, `agents` agents placed on the selected run's flow
// field and moved `steps` steps along it.
void stageCrowdDemo(MainWindow* window, int agents, int steps);

}  // namespace ps::ui
