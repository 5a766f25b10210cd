// Tile pyramids for MapView: which tiles a view needs, building and refreshing them (in
// parallel on a private pool), eviction, and the two pixel sources (map cells, overlay image).
#include "ui/map/map_tiles.hpp"

#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ui/map/map_document.hpp"

namespace ps::ui {

namespace {

quint64 tileKey(int level, int tx, int ty) {
    return (quint64(level) << 56) | (quint64(std::uint32_t(ty)) << 28) | quint64(std::uint32_t(tx));
}

// A pool of our own (one thread per core): a run or another component occupying the global
// pool must never stall painting.
Q_GLOBAL_STATIC(QThreadPool, tilePool)

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

}  // namespace

QRgb terrainColour(std::uint8_t cost, QRgb light, QRgb dark) {
    const double t = std::clamp(std::log(double(std::max<std::uint8_t>(cost, 2)) - 1.0) / std::log(254.0), 0.0, 1.0);
    auto mix = [t](int a, int b) { return int(std::lround(a + (b - a) * t)); };
    return qRgb(mix(qRed(light), qRed(dark)), mix(qGreen(light), qGreen(dark)), mix(qBlue(light), qBlue(dark)));
}

// ---------------------------------------------------------------------------------------------
// TilePyramid

int TilePyramid::levelFor(double pixelsPerCell) const {
    const int largest = std::max(m_size.width(), m_size.height());
    int level = 0;
    // The finest level whose pixels still cover 0.9 device pixels: at most a tenth of them
    // fall between device pixels, and the picture stays as sharp as the screen allows.
    while ((1 << level) * pixelsPerCell < 0.9 && (1 << level) < largest) ++level;
    return level;
}

void TilePyramid::setSize(const QSize& cells) {
    m_size = cells;
    clear();
}

void TilePyramid::clear() {
    m_tiles.clear();
    m_bytes = 0;
}

std::vector<const TilePyramid::Tile*> TilePyramid::tiles(int level, const QRect& cells) {
    ++m_clock;
    const QRect area = cells & QRect(QPoint(0, 0), m_size);
    if (area.isEmpty()) return {};
    const int block = 1 << level;
    const int span = kTileSize * block;  // cells per tile side
    const int levelWidth = ceilDiv(m_size.width(), block);
    const int levelHeight = ceilDiv(m_size.height(), block);

    struct Job {
        Tile* tile;
        QPoint origin;
    };
    std::vector<const Tile*> out;
    std::vector<Job> jobs;
    for (int ty = area.top() / span; ty <= area.bottom() / span; ++ty)
        for (int tx = area.left() / span; tx <= area.right() / span; ++tx) {
            auto [it, inserted] = m_tiles.try_emplace(tileKey(level, tx, ty));
            Tile& tile = it->second;
            if (inserted) {
                const QSize pixels(std::min(kTileSize, levelWidth - tx * kTileSize),
                                   std::min(kTileSize, levelHeight - ty * kTileSize));
                tile.image = QImage(pixels, m_format);
                tile.level = level;
                tile.cells = QRect(tx * span, ty * span, std::min(span, m_size.width() - tx * span),
                                   std::min(span, m_size.height() - ty * span));
                tile.dirty = tile.image.rect();
                m_bytes += tile.image.sizeInBytes();
            }
            tile.lastUse = m_clock;
            if (!tile.dirty.isEmpty()) jobs.push_back({&tile, QPoint(tx * kTileSize, ty * kTileSize)});
            out.push_back(&tile);
        }

    auto build = [this, level](Job& job) { render(job.tile->image, level, job.origin, job.tile->dirty); };
    if (jobs.size() == 1) {
        build(jobs.front());
    } else if (!jobs.empty()) {
        // Detach here, on this thread: scanLine() in a worker must find the image unshared.
        for (Job& job : jobs) job.tile->image.bits();
        QtConcurrent::blockingMap(tilePool(), jobs, build);
    }
    for (Job& job : jobs) job.tile->dirty = QRect();
    return out;
}

void TilePyramid::invalidate(const QRect& cells) {
    for (auto& [key, tile] : m_tiles) {
        const QRect hit = tile.cells & cells;
        if (hit.isEmpty()) continue;
        const QPoint a = (hit.topLeft() - tile.cells.topLeft());
        const QPoint b = (hit.bottomRight() - tile.cells.topLeft());
        tile.dirty |=
            QRect(QPoint(a.x() >> tile.level, a.y() >> tile.level), QPoint(b.x() >> tile.level, b.y() >> tile.level));
    }
}

void TilePyramid::trim(qint64 budgetBytes) {
    if (m_bytes <= budgetBytes) return;
    std::vector<std::pair<quint64, quint64>> candidates;  // (last use, key)
    for (const auto& [key, tile] : m_tiles)
        if (tile.lastUse != m_clock) candidates.emplace_back(tile.lastUse, key);
    std::sort(candidates.begin(), candidates.end());
    // Down to three quarters, so a view panning at the edge of the budget does not evict on
    // every frame.
    for (const auto& [use, key] : candidates) {
        if (m_bytes <= budgetBytes * 3 / 4) break;
        auto it = m_tiles.find(key);
        m_bytes -= it->second.image.sizeInBytes();
        m_tiles.erase(it);
    }
}

// ---------------------------------------------------------------------------------------------
// MapTiles

MapTiles::MapTiles(const MapDocument* document) : TilePyramid(QImage::Format_RGB32), m_document(document) {
    setColours(Qt::black, Qt::white);
    reset();
}

void MapTiles::reset() {
    const GridMap& map = m_document->map();
    setSize(QSize(map.width(), map.height()));
}

void MapTiles::setColours(const QColor& wall, const QColor& free, const QColor& terrainLight,
                          const QColor& terrainDark) {
    std::array<QRgb, 256> lut{};
    for (int i = 0; i < 256; ++i) {
        auto mix = [i](int a, int b) { return (a * (255 - i) + b * i + 127) / 255; };
        lut[std::size_t(i)] =
            qRgb(mix(wall.red(), free.red()), mix(wall.green(), free.green()), mix(wall.blue(), free.blue()));
    }
    std::array<QRgb, 256> cells{};
    cells[0] = lut.front();
    cells[1] = lut.back();
    for (int c = 2; c < 256; ++c)
        cells[std::size_t(c)] = terrainColour(std::uint8_t(c), terrainLight.rgb(), terrainDark.rgb());
    if (lut == m_lut && cells == m_cells) return;
    m_lut = lut;
    m_cells = cells;
    clear();
}

void MapTiles::render(QImage& image, int level, QPoint origin, const QRect& pixels) const {
    // Terrain costs more per cell to average; a plain map keeps the one-byte sums below.
    if (m_document->weighted()) return renderWeighted(image, level, origin, pixels);
    const GridMap& map = m_document->map();
    const int width = map.width();
    const int height = map.height();
    const int block = 1 << level;
    const std::uint8_t* cells = map.cells().data();
    std::vector<std::uint32_t> free(std::size_t(pixels.width()));
    for (int py = pixels.top(); py <= pixels.bottom(); ++py) {
        auto* out = reinterpret_cast<QRgb*>(image.scanLine(py));
        const int cy0 = (origin.y() + py) * block;
        const int cy1 = std::min(height, cy0 + block);
        if (level == 0) {
            const std::uint8_t* row = cells + std::size_t(cy0) * std::size_t(width) + origin.x();
            for (int px = pixels.left(); px <= pixels.right(); ++px) out[px] = m_cells[row[px]];
            continue;
        }
        std::fill(free.begin(), free.end(), 0u);
        for (int cy = cy0; cy < cy1; ++cy) {
            const std::uint8_t* row = cells + std::size_t(cy) * std::size_t(width);
            for (int px = pixels.left(); px <= pixels.right(); ++px) {
                const int cx0 = (origin.x() + px) * block;
                const int cx1 = std::min(width, cx0 + block);
                std::uint32_t sum = 0;
                for (int cx = cx0; cx < cx1; ++cx) sum += row[cx];  // cells are 0 or 1
                free[std::size_t(px - pixels.left())] += sum;
            }
        }
        for (int px = pixels.left(); px <= pixels.right(); ++px) {
            const int cx0 = (origin.x() + px) * block;
            const auto total = std::uint32_t((cy1 - cy0) * (std::min(width, cx0 + block) - cx0));
            out[px] = m_lut[(free[std::size_t(px - pixels.left())] * 255u + total / 2) / total];
        }
    }
}

// A block with terrain shows the mean colour of its cells; one without, exactly what the plain
// path shows (so tiles drawn before and after the first terrain cell match).
void MapTiles::renderWeighted(QImage& image, int level, QPoint origin, const QRect& pixels) const {
    const GridMap& map = m_document->map();
    const int width = map.width();
    const int height = map.height();
    const int block = 1 << level;
    const std::uint8_t* cells = map.cells().data();
    struct Sum {
        std::uint32_t free = 0, costly = 0, r = 0, g = 0, b = 0;
    };
    std::vector<Sum> sums(std::size_t(pixels.width()));
    const QRgb wall = m_cells[0], plain = m_cells[1];
    for (int py = pixels.top(); py <= pixels.bottom(); ++py) {
        auto* out = reinterpret_cast<QRgb*>(image.scanLine(py));
        const int cy0 = (origin.y() + py) * block;
        const int cy1 = std::min(height, cy0 + block);
        if (level == 0) {
            const std::uint8_t* row = cells + std::size_t(cy0) * std::size_t(width) + origin.x();
            for (int px = pixels.left(); px <= pixels.right(); ++px) out[px] = m_cells[row[px]];
            continue;
        }
        std::fill(sums.begin(), sums.end(), Sum{});
        for (int cy = cy0; cy < cy1; ++cy) {
            const std::uint8_t* row = cells + std::size_t(cy) * std::size_t(width);
            for (int px = pixels.left(); px <= pixels.right(); ++px) {
                const int cx0 = (origin.x() + px) * block;
                const int cx1 = std::min(width, cx0 + block);
                Sum& s = sums[std::size_t(px - pixels.left())];
                for (int cx = cx0; cx < cx1; ++cx) {
                    const std::uint8_t c = row[cx];
                    s.free += c != 0;
                    if (c <= 1) continue;
                    const QRgb colour = m_cells[c];
                    ++s.costly;
                    s.r += std::uint32_t(qRed(colour)), s.g += std::uint32_t(qGreen(colour)),
                        s.b += std::uint32_t(qBlue(colour));
                }
            }
        }
        for (int px = pixels.left(); px <= pixels.right(); ++px) {
            const int cx0 = (origin.x() + px) * block;
            const auto total = std::uint32_t((cy1 - cy0) * (std::min(width, cx0 + block) - cx0));
            const Sum& s = sums[std::size_t(px - pixels.left())];
            if (s.costly == 0) {
                out[px] = m_lut[(s.free * 255u + total / 2) / total];
                continue;
            }
            const std::uint32_t walls = total - s.free, plains = s.free - s.costly;
            auto mean = [&](int w, int p, std::uint32_t terrain) {
                return int((walls * std::uint32_t(w) + plains * std::uint32_t(p) + terrain + total / 2) / total);
            };
            out[px] = qRgb(mean(qRed(wall), qRed(plain), s.r), mean(qGreen(wall), qGreen(plain), s.g),
                           mean(qBlue(wall), qBlue(plain), s.b));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// OverlayTiles

OverlayTiles::OverlayTiles() : TilePyramid(QImage::Format_ARGB32_Premultiplied) {}

void OverlayTiles::setImage(const QImage& cells) {
    m_image = cells;
    if (!m_image.isNull() && m_image.format() != QImage::Format_Indexed8 && m_image.format() != QImage::Format_ARGB32)
        m_image = m_image.convertToFormat(QImage::Format_ARGB32);
    m_table.fill(0);
    if (m_image.format() == QImage::Format_Indexed8) {
        const QList<QRgb> table = m_image.colorTable();
        std::copy_n(table.begin(), std::min<qsizetype>(table.size(), 256), m_table.begin());
    }
    setSize(m_image.size());
}

void OverlayTiles::render(QImage& image, int level, QPoint origin, const QRect& pixels) const {
    if (m_image.format() == QImage::Format_Indexed8)
        renderFrom<true>(image, level, origin, pixels);
    else
        renderFrom<false>(image, level, origin, pixels);
}

template <bool Indexed>
void OverlayTiles::renderFrom(QImage& image, int level, QPoint origin, const QRect& pixels) const {
    constexpr int kBytesPerPixel = Indexed ? 1 : 4;
    constexpr int kWordPixels = 8 / kBytesPerPixel;
    auto fetch = [this](const uchar* line, int x) -> QRgb {
        if constexpr (Indexed)
            return m_table[line[x]];
        else
            return reinterpret_cast<const QRgb*>(line)[x];
    };
    // Most of an overlay is transparent (cells not yet reached): skip it a 64-bit word at a
    // time, which is what makes a whole 16384^2 overlay affordable per animation frame.
    std::uint64_t clearWord = 0;
    bool canSkip = !Indexed;  // ARGB32: transparent black is 0
    if constexpr (Indexed) {
        const auto clear = std::find_if(m_table.begin(), m_table.end(), [](QRgb c) { return qAlpha(c) == 0; });
        canSkip = clear != m_table.end();
        if (canSkip) clearWord = 0x0101010101010101ull * std::uint64_t(clear - m_table.begin());
    }
    const int width = m_image.width();
    const int height = m_image.height();
    const int block = 1 << level;
    const int firstPixel = origin.x() + pixels.left();  // in level coordinates
    const int cx0 = firstPixel * block;
    const int cx1 = std::min(width, (origin.x() + pixels.right() + 1) * block);
    struct Sum {
        std::uint32_t r = 0, g = 0, b = 0, n = 0, alpha = 0;
    };
    std::vector<Sum> sums(std::size_t(pixels.width()));
    for (int py = pixels.top(); py <= pixels.bottom(); ++py) {
        auto* out = reinterpret_cast<QRgb*>(image.scanLine(py));
        const int cy0 = (origin.y() + py) * block;
        const int cy1 = std::min(height, cy0 + block);
        std::fill(sums.begin(), sums.end(), Sum{});
        for (int cy = cy0; cy < cy1; ++cy) {
            const uchar* line = m_image.constScanLine(cy);
            auto add = [&](int cx) {
                const QRgb c = fetch(line, cx);
                const auto a = std::uint32_t(qAlpha(c));
                if (a == 0) return;
                Sum& s = sums[std::size_t((cx >> level) - firstPixel)];
                s.r += std::uint32_t(qRed(c)), s.g += std::uint32_t(qGreen(c)), s.b += std::uint32_t(qBlue(c));
                ++s.n;
                s.alpha = std::max(s.alpha, a);
            };
            // Words run across block boundaries, so the skip works at every level.
            int cx = cx0;
            if (canSkip) {
                for (; cx + kWordPixels <= cx1; cx += kWordPixels) {
                    std::uint64_t word;
                    std::memcpy(&word, line + std::ptrdiff_t(cx) * kBytesPerPixel, sizeof word);
                    if (word == clearWord) continue;
                    for (int k = 0; k < kWordPixels; ++k) add(cx + k);
                }
            }
            for (; cx < cx1; ++cx) add(cx);
        }
        for (int px = pixels.left(); px <= pixels.right(); ++px) {
            const Sum& s = sums[std::size_t(px - pixels.left())];
            out[px] = s.n == 0 ? 0u : qPremultiply(qRgba(int(s.r / s.n), int(s.g / s.n), int(s.b / s.n), int(s.alpha)));
        }
    }
}

}  // namespace ps::ui
