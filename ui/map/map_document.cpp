// MapDocument: the edited map, its undo commands (cell edits stored as runs of changed cells,
// endpoint moves), copy-on-write snapshots for runs, and .map / image load and save (plain or
// weighted terrain).
#include "ui/map/map_document.hpp"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QImageWriter>
#include <QPainter>
#include <QSaveFile>
#include <QUndoCommand>
#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "kernels/map/image_map.hpp"
#include "kernels/map/map_io.hpp"

namespace ps::ui {

namespace {

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }
std::string localPath(const QString& path) { return QFile::encodeName(path).toStdString(); }

bool hasSuffix(const QString& path, const char* suffix) {
    return QFileInfo(path).suffix().compare(QLatin1String(suffix), Qt::CaseInsensitive) == 0;
}

QString number(double value) { return QString::number(value, 'g', 6); }

// The cells of the segment a-b, 8-connected without gaps (Bresenham).
template <class F>
void forEachLineCell(Cell a, Cell b, F&& f) {
    const int dx = std::abs(b.x - a.x);
    const int dy = -std::abs(b.y - a.y);
    const int sx = a.x < b.x ? 1 : -1;
    const int sy = a.y < b.y ? 1 : -1;
    int err = dx + dy;
    Cell c = a;
    while (true) {
        f(c);
        if (c == b) return;
        const int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            c.x += sx;
        }
        if (e2 <= dx) {
            err += dx;
            c.y += sy;
        }
    }
}

// Any image Qt reads; as walls (grey below `threshold`) or as costs (grey level = cost).
Expected<GridMap> readImage(const QString& path, int threshold, bool costs) {
    const std::string where = path.toStdString();
    if (!QFileInfo::exists(path)) return Error{"cannot open '" + where + "': no such file"};
    QImageReader reader(path);
    reader.setAutoTransform(false);  // cells follow the stored pixels, not the camera's rotation
    const QSize size = reader.size();
    if (size.isValid()) {
        // Refused before decoding: a 70000-pixel-wide image would otherwise allocate gigabytes.
        if (auto ok = GridMap::validate_dimensions(size.width(), size.height()); !ok)
            return Error{"cannot load '" + where + "' as a map: the image's " + ok.error().message};
        // Qt refuses images above 256 MB by default; the size was checked above, so allow what
        // this image needs (4 bytes per pixel at most).
        const qint64 megabytes = qint64(size.width()) * size.height() * 4 / (1024 * 1024) + 1;
        reader.setAllocationLimit(int(std::min<qint64>(megabytes, INT_MAX)));
    }
    QImage image = reader.read();
    if (image.isNull()) return Error{"cannot read image '" + where + "': " + reader.errorString().toStdString()};
    if (auto ok = GridMap::validate_dimensions(image.width(), image.height()); !ok)
        return Error{"cannot load '" + where + "' as a map: the image's " + ok.error().message};
    if (image.hasAlphaChannel()) {
        // Transparent pixels count as paper (free), not as the black their colour bytes hold.
        QImage flat(image.size(), QImage::Format_RGB32);
        flat.fill(Qt::white);
        QPainter painter(&flat);
        painter.drawImage(0, 0, image);
        painter.end();
        image = std::move(flat);
    }
    image = image.convertToFormat(QImage::Format_Grayscale8);
    if (image.isNull()) return Error{"cannot load '" + where + "': not enough memory"};
    GridMap map(image.width(), image.height());
    for (int y = 0; y < image.height(); ++y) {
        const uchar* in = image.constScanLine(y);
        auto* out = map.cells().data() + std::size_t(y) * std::size_t(map.width());
        if (costs)
            std::copy_n(in, image.width(), out);
        else
            for (int x = 0; x < image.width(); ++x) out[x] = in[x] < threshold ? 0 : 1;
    }
    return map;
}

Expected<void> writePng(const GridMap& map, const QString& path) {
    const std::string where = path.toStdString();
    // One bit per cell: a 16384^2 map is a 32 MB image instead of 256 MB, and compresses faster.
    QImage image(map.width(), map.height(), QImage::Format_Mono);
    if (image.isNull()) return Error{"cannot write '" + where + "': not enough memory"};
    image.setColorTable({qRgb(0, 0, 0), qRgb(255, 255, 255)});  // bit 1 = free = white
    for (int y = 0; y < map.height(); ++y) {
        uchar* line = image.scanLine(y);
        std::memset(line, 0, std::size_t(image.bytesPerLine()));
        const auto* row = map.cells().data() + std::size_t(y) * std::size_t(map.width());
        for (int x = 0; x < map.width(); ++x)
            if (row[x]) line[x >> 3] |= uchar(0x80u >> (x & 7));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{"cannot write '" + where + "': " + file.errorString().toStdString()};
    QImageWriter writer(&file, "png");
    if (!writer.write(image)) {
        file.cancelWriting();
        return Error{"cannot write '" + where + "': " + writer.errorString().toStdString()};
    }
    if (!file.commit()) return Error{"cannot write '" + where + "': " + file.errorString().toStdString()};
    return {};
}

// Endpoints must lie on free cells; maps without them get the free cells nearest the top-left
// and bottom-right corners, as the CLI and the generators choose them.
void normaliseEndpoints(GridMap& map) {
    if (map.empty()) return;
    if (!map.start || !map.passable(*map.start)) map.start = nearest_passable(map, Cell{0, 0});
    if (!map.goal || !map.passable(*map.goal))
        map.goal = nearest_passable(map, Cell{map.width() - 1, map.height() - 1});
}

}  // namespace

QString describeGenerator(const GeneratorParams& p) {
    QString text = fromStd(to_string(p.kind));
    switch (p.kind) {
    case GeneratorKind::Empty:
    case GeneratorKind::Division:
    case GeneratorKind::Streets:
        break;
    case GeneratorKind::Random:
    case GeneratorKind::Rectangles:
        text += QStringLiteral(" density=") + number(p.density);
        break;
    case GeneratorKind::BlockedCentre:
        text += QStringLiteral(" fraction=") + number(p.blocked_centre_fraction);
        break;
    case GeneratorKind::Maze:
        text += QStringLiteral(" corridor=%1").arg(p.corridor_width);
        break;
    case GeneratorKind::Rooms:
        text += QStringLiteral(" room=%1 density=").arg(p.room_size) + number(p.density);
        break;
    case GeneratorKind::Noise:
        text += QStringLiteral(" type=") + fromStd(to_string(p.noise)) + QStringLiteral(" density=") +
                number(p.density) + QStringLiteral(" frequency=") + number(p.noise_frequency) +
                QStringLiteral(" octaves=%1").arg(p.noise_octaves);
        break;
    }
    return text;
}

// ---------------------------------------------------------------------------------------------
// Undo commands

// One brush stroke, line, rectangle or fill. Edits are applied while the user draws (strokes)
// or before the push, so the first redo() that QUndoStack::push calls must not apply again.
class CellEditCommand : public QUndoCommand {
public:
    CellEditCommand(MapDocument* document, const QString& text, std::vector<MapDocument::CellRun> runs,
                    std::uint8_t value, const QRect& bounds)
        : QUndoCommand(text), m_document(document), m_runs(std::move(runs)), m_value(value), m_bounds(bounds) {}

    void undo() override { m_document->applyCells(m_runs, m_value, true, m_bounds); }
    void redo() override {
        if (m_applied) {
            m_applied = false;
            return;
        }
        m_document->applyCells(m_runs, m_value, false, m_bounds);
    }

private:
    MapDocument* m_document;
    std::vector<MapDocument::CellRun> m_runs;
    std::uint8_t m_value;
    QRect m_bounds;
    bool m_applied = true;
};

// Moves the start or the goal. Moves within one drag merge, so a drag is one undo step.
class EndpointCommand : public QUndoCommand {
public:
    EndpointCommand(MapDocument* document, bool start, std::optional<Cell> from, Cell to, quint64 drag)
        : QUndoCommand(start ? MapDocument::tr("Move start") : MapDocument::tr("Move goal")),
          m_document(document),
          m_start(start),
          m_from(from),
          m_to(to),
          m_drag(drag) {}

    void undo() override { m_document->applyEndpoint(m_start, m_from); }
    void redo() override { m_document->applyEndpoint(m_start, m_to); }
    int id() const override { return m_start ? 1 : 2; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = static_cast<const EndpointCommand*>(other);
        if (m_drag == 0 || next->m_drag != m_drag) return false;
        m_to = next->m_to;
        setObsolete(m_from == m_to);  // dragged back to where it was: nothing to undo
        return true;
    }

private:
    MapDocument* m_document;
    bool m_start;
    std::optional<Cell> m_from;
    std::optional<Cell> m_to;
    quint64 m_drag;
};

// ---------------------------------------------------------------------------------------------
// MapDocument

struct MapDocument::Stroke {
    std::uint8_t value = 0;
    int brush = 1;
    std::optional<Cell> last;
    std::vector<CellRun> changed;
    QRect bounds;
};

MapDocument::MapDocument(QObject* parent) : QObject(parent) {
    // A blank canvas, so the editor is usable before anything is opened.
    GridMap blank(64, 64);
    normaliseEndpoints(blank);
    m_map = std::make_shared<GridMap>(std::move(blank));
    connect(&m_undo, &QUndoStack::cleanChanged, this, &MapDocument::fileStateChanged);
}

MapDocument::~MapDocument() = default;

std::shared_ptr<const GridMap> MapDocument::snapshot() const {
    // Shares the live map; mutableMap() copies it before the next edit while a run holds it.
    if (!m_snapshot) m_snapshot = m_map;
    return m_snapshot;
}

GridMap& MapDocument::mutableMap() {
    m_snapshot.reset();
    // Only the GUI thread hands out references, so a count of 1 means no run can see this map;
    // a stale count above 1 (a worker releasing it right now) only costs a needless copy.
    if (m_map.use_count() > 1) m_map = std::make_shared<GridMap>(*m_map);
    return *m_map;
}

QString MapDocument::displayName() const {
    if (!m_name.isEmpty()) return m_name;
    if (!m_path.isEmpty()) return QFileInfo(m_path).fileName();
    return tr("untitled");
}

void MapDocument::replaceMap(GridMap map, const QString& name, const QString& path, QString generator,
                             std::optional<std::uint64_t> seed) {
    normaliseEndpoints(map);
    if (!name.isEmpty()) map.name = name.toStdString();
    m_stroke.reset();
    m_endpointDrag = 0;
    m_map = std::make_shared<GridMap>(std::move(map));
    m_snapshot.reset();
    m_costly = std::uint64_t(
        std::count_if(m_map->cells().begin(), m_map->cells().end(), [](std::uint8_t c) { return c > 1; }));
    m_name = name;
    m_path = path;
    m_generator = std::move(generator);
    m_seed = seed;
    m_undo.clear();  // commands refer to cells of the old map
    emit mapReplaced();
    emit endpointsChanged();
    emit fileStateChanged();
    emitWeighted();
}

void MapDocument::setMap(GridMap map, const QString& name, QString generator, std::optional<std::uint64_t> seed) {
    replaceMap(std::move(map), name, {}, std::move(generator), seed);
}

bool MapDocument::generate(const GeneratorParams& params, QString* error) {
    auto map = generate_map(params);
    if (!map) {
        if (error) *error = fromStd(map.error().message);
        return false;
    }
    const QString name = fromStd(map->name);
    setMap(std::move(map).value(), name, describeGenerator(params), params.seed);
    return true;
}

Expected<GridMap> MapDocument::readFile(const QString& path, int threshold) {
    MapReadOptions options;
    options.threshold = threshold;
    return readFile(path, options);
}

Expected<GridMap> MapDocument::readFile(const QString& path, const MapReadOptions& options) {
    if (hasSuffix(path, "map")) return read_movingai_map(localPath(path), options.terrain);
    // Costs from PNG and PGM as the CLI reads them (libpng, exact grey levels); other formats
    // through Qt's decoders.
    if (options.imageCosts && is_image_map_path(path.toStdString()))
        return read_image_map(localPath(path), ImageMapOptions{true, options.threshold});
    return readImage(path, options.threshold, options.imageCosts);
}

void MapDocument::adopt(GridMap map, const QString& path) {
    replaceMap(std::move(map), QFileInfo(path).completeBaseName(), path, {}, {});
}

bool MapDocument::load(const QString& path, QString* error, int threshold) {
    MapReadOptions options;
    options.threshold = threshold;
    return load(path, error, options);
}

bool MapDocument::load(const QString& path, QString* error, const MapReadOptions& options) {
    auto map = readFile(path, options);
    if (!map) {
        if (error) *error = fromStd(map.error().message);
        return false;
    }
    adopt(std::move(map).value(), path);
    return true;
}

bool MapDocument::save(const QString& path, QString* error) {
    Expected<void> written = Error{"cannot save '" + path.toStdString() + "': unknown format '." +
                                   QFileInfo(path).suffix().toStdString() + "' (use .map or .png)"};
    if (hasSuffix(path, "map"))
        written = write_movingai_map(*m_map, localPath(path));
    else if (hasSuffix(path, "png"))
        written = weighted() ? write_cost_png(*m_map, localPath(path)) : writePng(*m_map, path);
    if (!written) {
        if (error) *error = fromStd(written.error().message);
        return false;
    }
    m_path = path;
    m_name = QFileInfo(path).completeBaseName();
    if (m_map->name != m_name.toStdString()) mutableMap().name = m_name.toStdString();
    m_undo.setClean();
    emit fileStateChanged();
    return true;
}

// ---- cell edits ------------------------------------------------------------------------------

// Walls never cover the start or the goal: a run then always has free endpoints, and since the
// history is linear, undo and redo keep that true. Terrain may cover them (it stays passable).
bool MapDocument::protectedCell(Vertex v, std::uint8_t value) const {
    if (value != 0) return false;
    return (m_map->start && m_map->index(*m_map->start) == v) || (m_map->goal && m_map->index(*m_map->goal) == v);
}

void MapDocument::recount(std::uint8_t from, std::uint8_t to, std::uint64_t count) {
    if (from > 1) m_costly -= count;
    if (to > 1) m_costly += count;
}

void MapDocument::account(const std::vector<CellRun>& runs, std::size_t first, std::uint8_t value) {
    for (std::size_t i = first; i < runs.size(); ++i) recount(runs[i].old, value, runs[i].length);
}

void MapDocument::emitWeighted() {
    if (weighted() == m_toldWeighted) return;
    m_toldWeighted = weighted();
    emit weightedChanged(m_toldWeighted);
}

QRect MapDocument::brushRect(Cell centre, int brush) {
    const int side = std::max(1, brush);
    return QRect(centre.x - (side - 1) / 2, centre.y - (side - 1) / 2, side, side);
}

QRect MapDocument::stampLine(Cell a, Cell b, std::uint8_t value, int brush, std::vector<CellRun>& runs) {
    GridMap& map = mutableMap();
    const QRect square = brushRect(Cell{0, 0}, brush);
    const int lo = square.left(), hi = square.right();
    const int top = std::max(0, std::min(a.y, b.y) + lo);
    const int bottom = std::min(map.height() - 1, std::max(a.y, b.y) + hi);
    if (top > bottom) return {};
    // The squares swept along a monotone line cover one x interval per row: collect those
    // first, so a long drag with a 256-cell brush costs its area, not length x brush^2.
    std::vector<std::pair<int, int>> rows(std::size_t(bottom - top + 1), {INT_MAX, INT_MIN});
    forEachLineCell(a, b, [&](Cell c) {
        for (int y = std::max(top, c.y + lo); y <= std::min(bottom, c.y + hi); ++y) {
            auto& [x0, x1] = rows[std::size_t(y - top)];
            x0 = std::min(x0, c.x + lo);
            x1 = std::max(x1, c.x + hi);
        }
    });
    QRect dirty;
    for (int y = top; y <= bottom; ++y) {
        const auto [first, last] = rows[std::size_t(y - top)];
        setRow(y, std::max(0, first), std::min(map.width() - 1, last), value, runs, dirty);
    }
    return dirty;
}

// Sets cells x0..x1 of row y, appending the runs of cells that changed (a run also ends where
// the old value changes). Runs come out in row order, so no edit needs a per-cell index list
// or a sort.
void MapDocument::setRow(int y, int x0, int x1, std::uint8_t value, std::vector<CellRun>& runs, QRect& dirty) {
    GridMap& map = *m_map;  // the caller went through mutableMap()
    std::uint8_t* row = map.cells().data() + std::size_t(y) * std::size_t(map.width());
    const bool wall = value == 0;
    const int start = map.start && map.start->y == y && wall ? map.start->x : -1;
    const int goal = map.goal && map.goal->y == y && wall ? map.goal->x : -1;
    int first = -1;
    std::uint8_t old = 0;
    auto close = [&](int end) {  // cells first..end-1 held `old`
        runs.push_back({map.index(first, y), std::uint32_t(end - first), old});
        recount(old, value, std::uint64_t(end - first));
        dirty |= QRect(QPoint(first, y), QPoint(end - 1, y));
        first = -1;
    };
    for (int x = x0; x <= x1 + 1; ++x) {
        const bool change = x <= x1 && row[x] != value && x != start && x != goal;
        if (first >= 0 && (!change || row[x] != old)) close(x);
        if (!change) continue;
        if (first < 0) {
            first = x;
            old = row[x];
        }
        row[x] = value;
    }
}

void MapDocument::pushCellEdit(const QString& text, std::vector<CellRun> runs, std::uint8_t value,
                               const QRect& bounds) {
    if (runs.empty()) return;  // nothing changed: no empty undo step
    m_undo.push(new CellEditCommand(this, text, std::move(runs), value, bounds));
}

void MapDocument::applyCells(const std::vector<CellRun>& runs, std::uint8_t value, bool undo, const QRect& bounds) {
    auto& cells = mutableMap().cells();
    for (const CellRun& run : runs) {
        const std::uint8_t from = undo ? value : run.old;
        const std::uint8_t to = undo ? run.old : value;
        std::fill_n(cells.begin() + std::ptrdiff_t(run.begin), run.length, to);
        recount(from, to, run.length);
    }
    emitWeighted();
    emit cellsChanged(bounds);
}

void MapDocument::beginCostStroke(std::uint8_t cost, int brush) {
    if (m_stroke) endStroke();
    m_stroke = std::make_unique<Stroke>();
    m_stroke->value = cost;
    m_stroke->brush = std::max(1, brush);
}

void MapDocument::strokeTo(Cell cell) {
    if (!m_stroke) return;
    // Interpolating from the previous point keeps fast drags free of holes.
    const Cell from = m_stroke->last.value_or(cell);
    m_stroke->last = cell;
    const QRect dirty = stampLine(from, cell, m_stroke->value, m_stroke->brush, m_stroke->changed);
    if (dirty.isEmpty()) return;
    m_stroke->bounds |= dirty;
    emitWeighted();
    emit cellsChanged(dirty);
}

void MapDocument::endStroke() {
    if (!m_stroke) return;
    auto stroke = std::move(m_stroke);
    const QString text = stroke->value == 0   ? tr("Draw walls")
                         : stroke->value == 1 ? tr("Erase walls")
                                              : tr("Paint terrain (cost %1)").arg(stroke->value);
    pushCellEdit(text, std::move(stroke->changed), stroke->value, stroke->bounds);
}

void MapDocument::paintCostLine(Cell a, Cell b, std::uint8_t cost, int brush) {
    std::vector<CellRun> runs;
    const QRect dirty = stampLine(a, b, cost, brush, runs);
    if (dirty.isEmpty()) return;
    emitWeighted();
    emit cellsChanged(dirty);
    pushCellEdit(tr("Line"), std::move(runs), cost, dirty);
}

void MapDocument::paintCostRect(const QRect& rect, std::uint8_t cost) {
    const QRect area = rect.normalized() & QRect(0, 0, m_map->width(), m_map->height());
    if (area.isEmpty()) return;
    mutableMap();
    std::vector<CellRun> runs;
    QRect dirty;
    for (int y = area.top(); y <= area.bottom(); ++y) setRow(y, area.left(), area.right(), cost, runs, dirty);
    if (dirty.isEmpty()) return;
    emitWeighted();
    emit cellsChanged(dirty);
    pushCellEdit(tr("Rectangle"), std::move(runs), cost, dirty);
}

void MapDocument::fillCost(Cell seed, std::uint8_t value) {
    if (!m_map->in_bounds(seed.x, seed.y)) return;
    const std::uint8_t region = m_map->cells()[m_map->index(seed)];
    if (region == value) return;
    GridMap& map = mutableMap();
    const int w = map.width();
    std::uint8_t* cells = map.cells().data();
    std::vector<CellRun> runs;
    int minX = seed.x, maxX = seed.x, minY = seed.y, maxY = seed.y;
    // Scanline fill with an explicit stack: a recursive fill would overflow the call stack on
    // a 4096^2 region. Filled cells change value, so they are never visited twice.
    std::vector<Cell> stack{seed};
    while (!stack.empty()) {
        const Cell c = stack.back();
        stack.pop_back();
        std::uint8_t* row = cells + std::size_t(c.y) * std::size_t(w);
        if (row[c.x] != region) continue;
        int x0 = c.x, x1 = c.x;
        while (x0 > 0 && row[x0 - 1] == region) --x0;
        while (x1 < w - 1 && row[x1 + 1] == region) ++x1;
        std::fill(row + x0, row + x1 + 1, value);
        runs.push_back({map.index(x0, c.y), std::uint32_t(x1 - x0 + 1), region});
        minX = std::min(minX, x0), maxX = std::max(maxX, x1);
        minY = std::min(minY, c.y), maxY = std::max(maxY, c.y);
        for (int ny : {c.y - 1, c.y + 1}) {
            if (ny < 0 || ny >= map.height()) continue;
            const std::uint8_t* next = cells + std::size_t(ny) * std::size_t(w);
            for (int x = x0; x <= x1; ++x) {
                if (next[x] != region) continue;
                stack.push_back({x, ny});  // one seed per run of region cells
                while (x <= x1 && next[x] == region) ++x;
            }
        }
    }
    // The endpoints were filled like any other cell of the region (so it stayed connected
    // through them); walls give them back and cut them out of their runs.
    for (const auto& endpoint : {map.start, map.goal}) {
        if (!endpoint || !protectedCell(map.index(*endpoint), value) || cells[map.index(*endpoint)] != value) continue;
        const Vertex v = map.index(*endpoint);
        cells[v] = region;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const CellRun run = runs[i];
            if (v < run.begin || v >= run.begin + run.length) continue;
            runs[i].length = v - run.begin;
            if (run.begin + run.length > v + 1) runs.push_back({v + 1, run.begin + run.length - v - 1, region});
            break;
        }
    }
    std::erase_if(runs, [](const CellRun& run) { return run.length == 0; });
    account(runs, 0, value);
    const QRect dirty(QPoint(minX, minY), QPoint(maxX, maxY));
    emitWeighted();
    emit cellsChanged(dirty);
    pushCellEdit(tr("Fill"), std::move(runs), value, dirty);
}

// ---- endpoints -------------------------------------------------------------------------------

void MapDocument::pushEndpoint(bool start, Cell cell) {
    if (!m_map->passable(cell)) return;
    const std::optional<Cell> current = start ? m_map->start : m_map->goal;
    if (current == cell) return;
    m_undo.push(new EndpointCommand(this, start, current, cell, m_endpointDrag));
}

void MapDocument::setStart(Cell cell) { pushEndpoint(true, cell); }
void MapDocument::setGoal(Cell cell) { pushEndpoint(false, cell); }

void MapDocument::beginEndpointDrag() { m_endpointDrag = ++m_lastDrag; }
void MapDocument::endEndpointDrag() { m_endpointDrag = 0; }

void MapDocument::applyEndpoint(bool start, std::optional<Cell> cell) {
    GridMap& map = mutableMap();
    (start ? map.start : map.goal) = cell;
    emit endpointsChanged();
}

}  // namespace ps::ui
