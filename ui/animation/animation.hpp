// Replays a run on the map: BFS levels grow as a colour ramp level by level; A* shows open and
// closed sets (forward and backward search in distinct colours) step by step, then the path.
// Frames come from recordings of CPU and GPU runs alike (RunResult::bfs_levels,
// RunResult::recording). Play / pause / step / scrub / speed / jump to end; each frame is an
// Overlay for the MapView plus a caption with the current level or step and its counts.
#pragma once

#include <QColor>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <vector>

#include "kernels/run/variant.hpp"
#include "ui/map/overlay.hpp"

namespace ps::ui {

struct LegendEntry {
    QColor colour;
    QString text;
};

class Animation : public QObject {
    Q_OBJECT
public:
    explicit Animation(QObject* parent = nullptr);
    ~Animation() override;

    // Takes what the result recorded; frames = BFS levels, or A* steps grouped so that at most
    // `maxFrames` frames exist (large searches are sampled, the last frame is always exact).
    void setRun(std::shared_ptr<const GridMap> map, std::shared_ptr<const RunResult> result, int maxFrames = 4000);
    void clear();

    int frameCount() const;
    // The levels (BFS) or expansion steps (A*) the frames show, frameCount() of them grouped
    // evenly: a movie of two runs groups both alike so they stay in step.
    std::int64_t units() const;
    bool hasRun() const;  // a run is set, with or without anything to replay
    int frame() const;
    double speed() const;  // frames per second
    bool playing() const;
    OverlayPtr overlay() const;  // the current frame
    QString caption() const;
    std::vector<LegendEntry> legend() const;
    // What setRun was given (null when cleared): the movie export replays the same run.
    std::shared_ptr<const GridMap> map() const;
    std::shared_ptr<const RunResult> result() const;

public slots:
    void setFrame(int frame);
    void play();
    void pause();
    void togglePlay();
    void stepForward();
    void stepBack();
    void jumpToEnd();
    void setSpeed(double framesPerSecond);

signals:
    void frameChanged(int frame, int frameCount);
    void overlayChanged(ps::ui::OverlayPtr overlay);
    void playingChanged(bool playing);
    void runChanged();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
