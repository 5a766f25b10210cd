// The tile caches behind MapView: the map and the animation overlay as image pyramids cut into
// 256x256 tiles. Level L holds one pixel per 2^L x 2^L cells, so a zoomed-out view of a 16384^2
// map draws a few small images instead of touching every cell per frame. Tiles are built on
// demand (only those drawn, in parallel), refreshed only where cells changed, and the least
// recently used ones are evicted under a memory budget.
#pragma once

#include <QColor>
#include <QImage>
#include <QRect>
#include <QSize>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ps::ui {

class MapDocument;

class TilePyramid {
public:
    static constexpr int kTileSize = 256;  // pixels per tile side, at every level

    struct Tile {
        QImage image;
        int level = 0;
        QRect cells;  // map cells under the tile's pixels (clipped to the map)
        QRect dirty;  // pixels to recompute before the next draw
        quint64 lastUse = 0;
    };

    virtual ~TilePyramid() = default;
    TilePyramid(const TilePyramid&) = delete;
    TilePyramid& operator=(const TilePyramid&) = delete;

    // The level to draw at `pixelsPerCell` device pixels per cell: its pixels then cover 0.9 to
    // 1.8 device pixels, so nearest-neighbour drawing loses at most a tenth of them (a level
    // pixel already averages its block) and never iterates more pixels than the screen has.
    int levelFor(double pixelsPerCell) const;
    // The tiles of `level` that cover `cells`, each built or refreshed first.
    std::vector<const Tile*> tiles(int level, const QRect& cells);
    void invalidate(const QRect& cells);  // those cells changed
    void clear();
    void trim(qint64 budgetBytes);  // evicts least recently used tiles, never those just drawn
    QSize size() const { return m_size; }
    qint64 bytes() const { return m_bytes; }

protected:
    explicit TilePyramid(QImage::Format format) : m_format(format) {}
    void setSize(const QSize& cells);  // and clears
    // Fills `pixels` (tile coordinates) of a tile of `level` whose first pixel is `origin` in
    // level coordinates. Called from worker threads: reads the source, writes only `image`.
    virtual void render(QImage& image, int level, QPoint origin, const QRect& pixels) const = 0;

private:
    QImage::Format m_format;
    QSize m_size;
    std::unordered_map<quint64, Tile> m_tiles;  // node-based: Tile pointers survive inserts
    qint64 m_bytes = 0;
    quint64 m_clock = 0;
};

// Weighted terrain's colour ramp: cost 2 is `light`, cost 255 is `dark`, on a log scale (so 2,
// 5, 10, 20, 50 and 255 step about evenly from one to the other).
QRgb terrainColour(std::uint8_t cost, QRgb light, QRgb dark);
// The light theme's ramp (sand to umber): apart from the grey walls, the white floor and the
// search's blues, oranges and viridis levels.
inline constexpr QRgb kTerrainLight = 0xffeee2c2, kTerrainDark = 0xff6b4526;

// The map: a cell's colour by its cost (wall, free, the terrain ramp); a block of a coarser level
// shows the mean colour of its cells (for a plain map: the fraction of free cells, between the
// wall and the free colour).
class MapTiles : public TilePyramid {
public:
    explicit MapTiles(const MapDocument* document);
    void reset();  // the map was replaced: new size, nothing cached
    // Clear the cache when they change. Without a ramp: the light theme's.
    void setColours(const QColor& wall, const QColor& free, const QColor& terrainLight = QColor::fromRgb(kTerrainLight),
                    const QColor& terrainDark = QColor::fromRgb(kTerrainDark));
    QColor wallColour() const { return QColor::fromRgb(m_lut.front()); }
    QColor freeColour() const { return QColor::fromRgb(m_lut.back()); }
    // What one cell of this cost looks like at full zoom (0 wall, 1 free, 2..255 terrain).
    QRgb cellColour(std::uint8_t cost) const { return m_cells[cost]; }

protected:
    void render(QImage& image, int level, QPoint origin, const QRect& pixels) const override;

private:
    void renderWeighted(QImage& image, int level, QPoint origin, const QRect& pixels) const;

    const MapDocument* m_document;    // its map() may move on copy-on-write: never cache it
    std::array<QRgb, 256> m_lut{};    // by fraction of free cells (0..255) of a plain block
    std::array<QRgb, 256> m_cells{};  // by cell cost
};

// The overlay: a block shows the average colour of its coloured cells at their highest alpha,
// so a one-cell frontier stays visible however far the view zooms out.
class OverlayTiles : public TilePyramid {
public:
    OverlayTiles();
    void setImage(const QImage& cells);  // Indexed8 or ARGB32 are read directly; null clears

protected:
    void render(QImage& image, int level, QPoint origin, const QRect& pixels) const override;

private:
    template <bool Indexed>
    void renderFrom(QImage& image, int level, QPoint origin, const QRect& pixels) const;

    QImage m_image;
    std::array<QRgb, 256> m_table{};  // colour table of an Indexed8 image, padded
};

}  // namespace ps::ui
