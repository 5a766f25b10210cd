// Agents following a flow field on the map: takes the field of a flowfield.* run
// (RunResult::bfs_levels + flow_dirs), places N agents on random reachable cells and moves
// them one cell per step along the field (kernels/flowfield/flowfield.hpp: advance_agents) with play /
// pause / step / reset. As a MapLayer it paints the field's arrows (sampled so that they stay
// a readable distance apart at any zoom) and the agents; the distance colour ramp under them
// is the Animation's final frame of the same run.
#pragma once

#include <QTimer>
#include <memory>
#include <vector>

#include "kernels/flowfield/flowfield.hpp"
#include "kernels/run/variant.hpp"
#include "ui/map/map_layer.hpp"

namespace ps::ui {

class FlowFieldPlayer : public MapLayer {
    Q_OBJECT
public:
    explicit FlowFieldPlayer(QObject* parent = nullptr);
    ~FlowFieldPlayer() override;

    // False (and cleared) unless `result` holds a flow field of `map`; otherwise places
    // agentCount() agents on it.
    bool setRun(const std::shared_ptr<const GridMap>& map, const RunResult& result);
    void clear();
    bool hasField() const { return m_field != nullptr; }
    const FlowField* field() const { return m_field.get(); }

    int agentCount() const { return m_agentCount; }  // asked for; fewer when fewer cells are reachable
    const std::vector<Vertex>& agents() const { return m_agents; }
    int step() const { return m_step; }
    int arrived() const;  // agents at the goal
    int stillMoving() const { return m_moving; }
    bool playing() const { return m_timer.isActive(); }
    double speed() const { return m_speed; }  // steps per second
    bool arrowsShown() const { return m_arrows; }
    QString status() const;

    // Cells between two drawn arrows at this zoom (arrows stay >= ~14 px apart).
    static int arrowStride(double pixelsPerCell);

    void paint(QPainter& painter, const QRectF& visibleCells, double pixelsPerCell) const override;

public slots:
    void setAgentCount(int count);  // re-places the agents
    void placeAgents();             // a new random placement
    void play();
    void pause();
    void togglePlay();
    void stepForward();
    void reset();  // agents back where they were placed
    void setSpeed(double stepsPerSecond);
    void setArrowsShown(bool shown);

signals:
    void stateChanged();  // field, agents or step changed
    void playingChanged(bool playing);

private:
    void place(std::uint64_t seed);

    std::unique_ptr<FlowField> m_field;
    std::vector<Vertex> m_placed, m_agents;
    int m_agentCount = 200;
    int m_step = 0;
    int m_moving = 0;
    std::uint64_t m_seed = 1;
    double m_speed = 12;
    bool m_arrows = true;
    QTimer m_timer;
};

}  // namespace ps::ui
