// The Crowd dock (issue 9): agents following the flow field of the selected flowfield.* run
// (agent count, place, play / pause / step / reset, speed, arrows on or off) and a roadmap
// over the map (generate a waypoint graph of the current map, open a roadmap file, show or
// hide it), and batch runs: agents for batch.* variants ticked in the run panel (on the
// roadmap) and the histogram of the selected batch result's per-agent expansions. Roadmaps
// are made and read off the GUI thread; a later request wins.
#pragma once

#include <QWidget>
#include <memory>

class QAction;

namespace ps {
struct RunRequest;
struct VariantInfo;
struct RunResult;
}  // namespace ps

namespace ps::ui {

class AgentStepsPlot;
class FlowFieldPlayer;
class MapDocument;
class RoadmapLayer;

class CrowdPanel : public QWidget {
    Q_OBJECT
public:
    CrowdPanel(FlowFieldPlayer* player, RoadmapLayer* roadmap, MapDocument* document, QWidget* parent = nullptr);
    ~CrowdPanel() override;

    FlowFieldPlayer* player() const;
    RoadmapLayer* roadmapLayer() const;
    QAction* showRoadmapAction() const;  // checkable: the roadmap layer's visibility
    int waypointSpacing() const;
    void setWaypointSpacing(int cells);
    int batchAgents() const;
    void setBatchAgents(int count);
    AgentStepsPlot* stepsPlot() const;

    // The run panel's request hook: a batch.* request gets the roadmap and batchAgents()
    // random connected (start, goal) pairs on it; other requests pass. Returns why not.
    QString prepareRequest(ps::RunRequest& request, const ps::VariantInfo& info) const;
    // Shows a result's per-agent expansions (cleared for results without them).
    void showResult(const ps::RunResult& result, const QString& variant);

public slots:
    void generateRoadmap();                 // waypoints of the document's map at waypointSpacing()
    void openRoadmap(const QString& path);  // text or DIMACS .gr (kernels/graph/roadmap.hpp)
    void openRoadmapDialog();

signals:
    void statusMessage(const QString& text);
    // A generate/open request finished (stale requests report nothing).
    void roadmapLoaded(bool ok, const QString& message);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

}  // namespace ps::ui
