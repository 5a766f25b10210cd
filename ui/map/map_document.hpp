// The map being edited: a GridMap with start and goal, its file, and an undo stack where every
// edit is one command (one brush stroke, one rectangle, one fill, one endpoint move). Runs take
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

namespace ps::ui {

// The generator and its parameters as a user reads them, e.g. "noise type=gradient
// density=0.3 frequency=0.02 octaves=3" (size and seed are stored apart).
QString describeGenerator(const GeneratorParams& params);

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

    // .map (MovingAI) or an image (PNG/PGM/BMP/...: darker than `threshold` = wall). The
    // document is unchanged on error.
    bool load(const QString& path, QString* error, int threshold = 128);
    // load() in two halves, so the window can read a large file off the GUI thread: readFile is
    // thread-safe and touches no document; adopt installs its result (on the GUI thread).
    static Expected<GridMap> readFile(const QString& path, int threshold = 128);
    void adopt(GridMap map, const QString& path);
    // .map or .png by suffix; written atomically. Marks the document clean.
    bool save(const QString& path, QString* error);
    // Replaces the map (new / generated / loaded from the history); clears the undo stack.
    void setMap(GridMap map, const QString& name, QString generator = {}, std::optional<std::uint64_t> seed = {});
    bool generate(const GeneratorParams& params, QString* error);

    // One stroke = one undo command: begin, paint cells as the mouse moves (applied at once),
    // end pushes the command. A square brush of side `brush` centred on each cell.
    void beginStroke(bool blocked, int brush);
    void strokeTo(Cell cell);
    void endStroke();
    // The cells a square brush of side `brush` covers around `centre` (even sides lean right
    // and down); the view previews exactly this.
    static QRect brushRect(Cell centre, int brush);
    void paintLine(Cell a, Cell b, bool blocked, int brush);  // one command
    void paintRect(const QRect& cells, bool blocked);         // one command
    void floodFill(Cell seed, bool blocked);                  // 4-connected region; one command
    void setStart(Cell cell);                                 // one command; ignored on walls
    void setGoal(Cell cell);
    // Every setStart/setGoal between these two merges into one command (dragging a marker).
    void beginEndpointDrag();
    void endEndpointDrag();

signals:
    void cellsChanged(const QRect& cells);  // repaint this cell rectangle
    void mapReplaced();                     // size or whole content changed
    void endpointsChanged();
    void fileStateChanged();  // path, name or modified state

private:
    friend class CellEditCommand;
    friend class EndpointCommand;
    // Changed cells as runs of consecutive indices: an edit sets every cell to one value and
    // records only cells it changed, so the old value is the opposite one, and filling a whole
    // 16384^2 map costs one run per row instead of 1.6 GB of indices and values.
    struct CellRun {
        Vertex begin;
        std::uint32_t length;
    };
    void applyCells(const std::vector<CellRun>& runs, bool blocked, const QRect& bounds);
    void applyEndpoint(bool start, std::optional<Cell> cell);
    GridMap& mutableMap();
    void replaceMap(GridMap map, const QString& name, const QString& path, QString generator,
                    std::optional<std::uint64_t> seed);
    void pushCellEdit(const QString& text, std::vector<CellRun> runs, bool blocked, const QRect& bounds);
    void pushEndpoint(bool start, Cell cell);
    bool protectedCell(Vertex v, bool blocked) const;
    QRect stampLine(Cell a, Cell b, bool blocked, int brush, std::vector<CellRun>& runs);
    void setRow(int y, int x0, int x1, bool blocked, std::vector<CellRun>& runs, QRect& dirty);

    std::shared_ptr<GridMap> m_map;
    mutable std::shared_ptr<const GridMap> m_snapshot;
    QUndoStack m_undo;
    QString m_path, m_name, m_generator;
    std::optional<std::uint64_t> m_seed;
    struct Stroke;
    std::unique_ptr<Stroke> m_stroke;
    quint64 m_endpointDrag = 0;  // serial of the drag in progress, 0 when none
    quint64 m_lastDrag = 0;
};

}  // namespace ps::ui
