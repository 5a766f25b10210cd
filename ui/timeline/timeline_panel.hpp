// The main window's timeline dock: a TimelineWidget fed with what the user picked, either a
// finished run of the run panel (its report's timeline, in memory) or runs of the history
// (their stored events, decoded off the GUI thread with a db::History of the loader's own; one
// run is shown, two are compared). The newest request wins. Also the mapping between the
// timeline's levels and the animation's frames, so the map and the timeline follow each other.
// Under the plot, TimelineStatsView: the run's summary tables, a selected range's statistics
// and, comparing two runs, their per-level difference.
#pragma once

#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "ui/run/run_outcome.hpp"

namespace ps::ui {

class TimelineStatsView;
class TimelineWidget;

class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePanel(QWidget* parent = nullptr);
    ~TimelinePanel() override;

    TimelineWidget* view() const;
    TimelineStatsView* stats() const;
public slots:
    // The animation shows `frame` of `frameCount`: the cursor moves to the level it shows
    // (levels are grouped into frames as the animation groups them).
    void showAnimationFrame(int frame, int frameCount);
    void showOutcome(const ps::ui::RunOutcomePtr& outcome);
    // One id: that run; two: both, stacked on one time axis; otherwise nothing changes.
    void showStoredRuns(const QString& historyPath, const std::vector<std::int64_t>& runIds);

signals:
    void statusMessage(const QString& text);
    // A level was clicked: `level` of `levelCount` (the shell moves the animation there).
    void levelSelected(int level, int levelCount);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
