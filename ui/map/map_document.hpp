// The map being edited: a GridMap with start and goal, its file, and an undo stack where every
// edit is one command (one brush stroke, one rectangle, one fill, one endpoint move). Cells hold
// their cost (0 wall, 1 plain, 2..255 weighted terrain); every edit paints one value. Runs take
// an immutable snapshot, so editing never races a worker thread.
#pragma once

#include <QObject>
#include <QRect>
#include <QString>
#include <QUndoStack>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/map/generators.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/map/map_io.hpp"

namespace ps::ui {

// The generator and its parameters as a user reads them, e.g. "noise type=gradient
// density=0.3 frequency=0.02 octaves=3" (size and seed are stored apart).
QString describeGenerator(const GeneratorParams& params);

// How a file is read: images by a grey threshold (walls) or as cell costs (grey level = cost,
// docs/weighted-terrain.md), MovingAI's swamp and water letters at chosen costs.
struct MapReadOptions {
    int threshold = 128;        // images read as walls: grey levels below it are walls
    bool imageCosts = false;    // images: the grey level is the cell's cost (0 = wall)
    TerrainCosts terrain = {};  // .map: what 'S' and 'W' cost (default: the benchmark's reading)
};

class MapDocument : public QObject {
    Q_OBJECT
public:
    explicit MapDocument(QObject* parent = nullptr);
    ~MapDocument() override;  // out of line: Stroke is incomplete here

    const GridMap& map() const { return *m_map; }
    // Immutable copy for a run (cheap when nothing changed since the last snapshot). It shares
    // the live map; the next edit copies the map only while a snapshot is still held (copy on
    // write), so map() may then return another object: never keep a reference across edits.
    std::shared_ptr<const GridMap> snapshot() const;
    QUndoStack* undoStack() { return &m_undo; }
    QString filePath() const { return m_path; }
    QString displayName() const;
    bool isModified() const { return !m_undo.isClean(); }
    // Generator text and seed when the map was generated (provenance for the history).
    QString generatorText() const { return m_generator; }
    std::optional<std::uint64_t> generatorSeed() const { return m_seed; }

    // True while some passable cell costs more than 1 (kept up to date by every edit: O(1)).
    bool weighted() const { return m_costly > 0; }

    // .map (MovingAI, or PathScope's weighted 'costs' text) or an image (PNG/PGM/BMP/...: darker
    // than `threshold` = wall, or grey level = cost). The document is unchanged on error.
    bool load(const QString& path, QString* error, int threshold = 128);
    bool load(const QString& path, QString* error, const MapReadOptions& options);
    // load() in two halves, so the window can read a large file off the GUI thread: readFile is
    // thread-safe and touches no document; adopt installs its result (on the GUI thread).
    static Expected<GridMap> readFile(const QString& path, int threshold = 128);
    static Expected<GridMap> readFile(const QString& path, const MapReadOptions& options);
    void adopt(GridMap map, const QString& path);
    // .map or .png by suffix; written atomically. Marks the document clean. A weighted map goes
    // to the 'costs' text format or to an 8-bit grey PNG whose levels are the costs.
    bool save(const QString& path, QString* error);
    // Replaces the map (new / generated / loaded from the history); clears the undo stack.
    void setMap(GridMap map, const QString& name, QString generator = {}, std::optional<std::uint64_t> seed = {});
    bool generate(const GeneratorParams& params, QString* error);

    // One stroke = one undo command: begin, paint cells as the mouse moves (applied at once),
    // end pushes the command. A square brush of side `brush` centred on each cell. The cost
    // versions paint any cell value (0 wall, 1 plain, 2..255 terrain); `blocked` paints walls
    // (0) or erases (1).
    void beginCostStroke(std::uint8_t cost, int brush);
    void beginStroke(bool blocked, int brush) { beginCostStroke(blocked ? 0 : 1, brush); }
    void strokeTo(Cell cell);
    void endStroke();
    // The cells a square brush of side `brush` covers around `centre` (even sides lean right
    // and down); the view previews exactly this.
    static QRect brushRect(Cell centre, int brush);
    void paintCostLine(Cell a, Cell b, std::uint8_t cost, int brush);  // one command
    void paintCostRect(const QRect& cells, std::uint8_t cost);         // one command
    // The 4-connected region of cells of the seed's value; one command.
    void fillCost(Cell seed, std::uint8_t cost);
    void paintLine(Cell a, Cell b, bool blocked, int brush) { paintCostLine(a, b, blocked ? 0 : 1, brush); }
    void paintRect(const QRect& cells, bool blocked) { paintCostRect(cells, blocked ? 0 : 1); }
    void floodFill(Cell seed, bool blocked) { fillCost(seed, blocked ? 0 : 1); }
    void setStart(Cell cell);  // one command; ignored on walls
    void setGoal(Cell cell);
    // Every setStart/setGoal between these two merges into one command (dragging a marker).
    void beginEndpointDrag();
    void endEndpointDrag();

signals:
    void cellsChanged(const QRect& cells);  // repaint this cell rectangle
    void mapReplaced();                     // size or whole content changed
    void endpointsChanged();
    void fileStateChanged();              // path, name or modified state
    void weightedChanged(bool weighted);  // weighted() changed (an edit, undo, a new map)

private:
    friend class CellEditCommand;
    friend class EndpointCommand;
    // Changed cells as runs of consecutive indices that held one old value: an edit sets every
    // cell to one value and records only cells it changed, so filling a whole 16384^2 plain map
    // costs one run per row instead of 1.6 GB of indices and values.
    struct CellRun {
        Vertex begin;
        std::uint32_t length;
        std::uint8_t old;
    };
    // Sets the runs to `value` (redo) or back to their old values (undo).
    void applyCells(const std::vector<CellRun>& runs, std::uint8_t value, bool undo, const QRect& bounds);
    void applyEndpoint(bool start, std::optional<Cell> cell);
    GridMap& mutableMap();
    void replaceMap(GridMap map, const QString& name, const QString& path, QString generator,
                    std::optional<std::uint64_t> seed);
    void pushCellEdit(const QString& text, std::vector<CellRun> runs, std::uint8_t value, const QRect& bounds);
    void pushEndpoint(bool start, Cell cell);
    bool protectedCell(Vertex v, std::uint8_t value) const;
    QRect stampLine(Cell a, Cell b, std::uint8_t value, int brush, std::vector<CellRun>& runs);
    void setRow(int y, int x0, int x1, std::uint8_t value, std::vector<CellRun>& runs, QRect& dirty);
    // Keeps m_costly in step with `count` cells going from `from` to `to`.
    void recount(std::uint8_t from, std::uint8_t to, std::uint64_t count);
    void account(const std::vector<CellRun>& runs, std::size_t first, std::uint8_t value);
    void emitWeighted();  // weightedChanged, when weighted() differs from what was last told

    std::shared_ptr<GridMap> m_map;
    mutable std::shared_ptr<const GridMap> m_snapshot;
    QUndoStack m_undo;
    QString m_path, m_name, m_generator;
    std::optional<std::uint64_t> m_seed;
    struct Stroke;
    std::unique_ptr<Stroke> m_stroke;
    quint64 m_endpointDrag = 0;  // serial of the drag in progress, 0 when none
    quint64 m_lastDrag = 0;
    std::uint64_t m_costly = 0;  // passable cells costing more than 1
    bool m_toldWeighted = false;
};

}  // namespace ps::ui
