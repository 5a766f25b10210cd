// The frames of a movie of one run's animation, or of two runs side by side in lock-step: each
// panel is the map with the Animation's overlay of that frame, the path on the last frame, start
// and goal, and under it the run's name and the frame's caption. Drawn into QImages with no
// widget (QImage and QPainter work off the GUI thread), so an export runs on a worker thread.
// The overlay reaches the frame through a per-column and per-row cell index: one table look-up
// and one blend per pixel, about 3 ms for a 1280 x 1280 frame of a 2048² map.
#pragma once

#include <QImage>
#include <QString>
#include <memory>
#include <vector>

#include "kernels/map/grid_map.hpp"
#include "kernels/run/variant.hpp"

namespace ps::ui {

class Animation;

struct MoviePanel {
    std::shared_ptr<const GridMap> map;
    std::shared_ptr<const RunResult> result;
    QString label;  // "astar.cpu", "run 12 bfs.gpu.dp"
};

class MovieFrames {
public:
    // `width`: of the whole frame (panels share it); `evenSize`: width and height rounded up to
    // even numbers (H.264 wants them). `maxFrames`: the Animation's frame grouping (the window's).
    MovieFrames(std::vector<MoviePanel> panels, int width, bool evenSize, int maxFrames = 4000);
    ~MovieFrames();
    MovieFrames(const MovieFrames&) = delete;
    MovieFrames& operator=(const MovieFrames&) = delete;

    // The longest panel's frame count (a shorter run holds its last frame); 0 when no panel has
    // anything to replay.
    int frameCount() const;
    int panelFrames(int panel) const;  // that panel's own frames (it holds its last one after them)
    QSize size() const;
    // Frame `frame` (clamped per panel), Format_RGB32.
    QImage frame(int frame);

private:
    struct Panel;
    std::vector<std::unique_ptr<Panel>> m_panels;
    QSize m_size;
    int m_captionPx = 0;
};

}  // namespace ps::ui
