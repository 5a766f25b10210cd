// Puts a main window into a state worth a picture: a generated sample map, a few CPU variants
// run on it through the run panel (so they land in the results table and the history), one of
// them replayed at its final frame. `pathscope --screenshot` (the README picture) and the tests
// use it; everything stays asynchronous, so the window keeps painting meanwhile.
#pragma once

#include <QImage>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <optional>

#include "kernels/map/generators.hpp"
#include "kernels/map/grid_map.hpp"
#include "ui/run/targets.hpp"

namespace ps::ui {

class MainWindow;

class DemoScene : public QObject {
    Q_OBJECT
public:
    explicit DemoScene(MainWindow* window, QObject* parent = nullptr);

    // Off: keep the document's map (one opened from a file) instead of generating one.
    void setGenerateMap(bool generate) { m_generate = generate; }
    void setVariants(const QStringList& variants) { m_variants = variants; }
    // The variant whose animation is shown at the end (one of setVariants).
    void setShown(const QString& variant) { m_shown = variant; }
    // The run panel's Trace and Cost choices for the demo runs (their data values).
    void setTraceLevel(int level) { m_trace = level; }
    void setCostMode(int mode) { m_cost = mode; }
    // A generated map of this side (0: the wide sample map).
    void setMapSide(int side) { m_side = side; }
    // A map generated with these parameters instead (issue 19's scenes: rooms), the endpoints
    // near its top-left and bottom-right corners in its largest region.
    void setGenerator(const GeneratorParams& params) { m_params = params; }
    // The weighted-terrain scene: weightedTerrainDemoMap() instead of a generated map, Dijkstra
    // and A* on it, A* shown.
    void setWeightedTerrain(bool weighted) { m_weighted = weighted; }
    // Select every stored run of the demo in the history (two: the timeline compares them).
    void setSelectAll(bool all) { m_select_all = all; }
    // Run on this target (connected first through the run panel's chooser).
    void setTarget(const TargetEntry& target) { m_target = target; }
    void start(int timeoutMs = 120000);

signals:
    void ready();
    void failed(const QString& reason);

private:
    void showResult();
    void fail(const QString& reason);

    MainWindow* m_window;
    QStringList m_variants{"bfs.cpu", "dijkstra.cpu", "astar.cpu", "astar.cpu.bidir"};
    QString m_shown{"astar.cpu.bidir"};
    bool m_generate = true;
    int m_trace = -1, m_cost = -1, m_side = 0;
    bool m_select_all = false;
    bool m_weighted = false;
    std::optional<TargetEntry> m_target;
    std::optional<GeneratorParams> m_params;
    void runNow();
    bool m_done = false;
    quint64 m_job = 0;
    QTimer m_timeout;
};

// A 240x150 map built in code (the same every time): a winding swamp band (cost 5) from top to
// bottom, a lake (cost 20) with a swampy shore from near the top to the bottom edge, a wall
// before the goal; start on the left, goal on the right, so the cheapest path crosses the swamp
// and goes round the lake's top end instead of through the water.
GridMap weightedTerrainDemoMap();

// How many distinct colours `image` holds, counting up to `stopAt`: a rendered window with
// fewer than 2 is blank.
int distinctColours(const QImage& image, int stopAt = 16);

}  // namespace ps::ui
