// Animation (see animation.hpp). Two frame sources behind one player:
//  - BfsFrames: levels -> frames. Cells are bucketed once into an Indexed8 image whose pixel is
//    the cell's frame within a group of 128 frames (earlier groups get a coarse ramp index), so
//    moving between frames of a group only swaps the 256-entry colour table: no per-cell pass.
//    A new group costs one pass over the cells; the last few group images are cached.
//  - SearchFrames: A*/Dijkstra recordings -> frames over expansion steps. The per-vertex state
//    (open/closed per direction) is updated incrementally and painted where it changed;
//    keyframes of the state every K frames make scrubbing backwards a restore plus a replay.
#include "ui/animation/animation.hpp"

#include <QElapsedTimer>
#include <QLocale>
#include <algorithm>
#include <array>
#include <cmath>

namespace ps::ui {
namespace {

constexpr QRgb kTransparent = 0;
const QColor kForwardOpen(0x9e, 0xca, 0xe1);
const QColor kForwardClosed(0x31, 0x82, 0xbd);
const QColor kBackwardOpen(0xfd, 0xd0, 0xa2);
const QColor kBackwardClosed(0xe6, 0x55, 0x0d);
const QColor kScanned(0xf2, 0xd8, 0x6b);  // cells a jump passed over (Jump Point Search)
const QColor kPath(0xd6, 0x27, 0x28);

// Splits `units` (levels or steps) into at most maxFrames frames of equal width.
struct Grouping {
    std::int64_t units = 0;
    std::int64_t perFrame = 1;
    int frames = 0;

    Grouping() = default;
    Grouping(std::int64_t count, int maxFrames) : units(count) {
        if (count <= 0) return;
        const std::int64_t most = std::max(1, maxFrames);
        perFrame = (count + most - 1) / most;
        frames = int((count + perFrame - 1) / perFrame);
    }
    std::int64_t first(int frame) const { return std::int64_t(frame) * perFrame; }
    std::int64_t last(int frame) const { return std::min(units, first(frame + 1)) - 1; }
};

// A viridis-like ramp (dark violet -> blue -> green -> yellow): readable on light and dark maps.
QRgb ramp(double t) {
    static constexpr std::array<QRgb, 5> stops{0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725};
    t = std::clamp(t, 0.0, 1.0) * double(stops.size() - 1);
    const int i = std::min(int(t), int(stops.size()) - 2);
    const double f = t - i;
    auto mix = [&](int shift) {
        const double a = (stops[std::size_t(i)] >> shift) & 0xff, b = (stops[std::size_t(i) + 1] >> shift) & 0xff;
        return int(std::lround(a + (b - a) * f));
    };
    return qRgb(mix(16), mix(8), mix(0));
}

QString count(std::uint64_t n) { return QLocale().toString(qulonglong(n)); }
QString cells(std::uint64_t n) { return n == 1 ? Animation::tr("1 cell") : Animation::tr("%1 cells").arg(count(n)); }

std::vector<QPoint> pathCells(const GridMap& map, const std::vector<Vertex>& path) {
    std::vector<QPoint> out;
    out.reserve(path.size());
    for (Vertex v : path) {
        if (v >= map.cell_count()) return {};  // a result of another map
        const Cell c = map.cell(v);
        out.emplace_back(c.x, c.y);
    }
    return out;
}

using Pixels = std::vector<uchar>;

int bytesPerLine(int width) { return (width + 3) & ~3; }  // QImage scan lines are 32-bit aligned

// A read-only QImage over shared pixels. Images of several frames alias one buffer with their
// own colour tables (setColorTable on a read-only image does not copy the pixels).
QImage wrap(const std::shared_ptr<const Pixels>& pixels, int width, int height) {
    auto* keep = new std::shared_ptr<const Pixels>(pixels);
    return QImage(
        pixels->data(), width, height, bytesPerLine(width), QImage::Format_Indexed8,
        [](void* info) { delete static_cast<std::shared_ptr<const Pixels>*>(info); }, keep);
}

// One source of frames: an image and a caption per frame, and the colours it uses.
class Frames {
public:
    virtual ~Frames() = default;
    virtual int frameCount() const = 0;
    virtual std::int64_t units() const = 0;  // the levels or expansion steps the frames group
    virtual QImage image(int frame) = 0;
    virtual QString caption(int frame) const = 0;  // after image(frame)
    virtual std::vector<LegendEntry> legend() const = 0;
};

class BfsFrames final : public Frames {
public:
    BfsFrames(const GridMap& map, const std::vector<std::int32_t>& levels, int maxFrames)
        : m_levels(&levels), m_width(map.width()), m_height(map.height()) {
        std::int32_t top = -1;
        for (std::int32_t l : levels) top = std::max(top, l);
        // Flow-field distances in the 1000/1414 metric reach billions: count them in coarser
        // units so the per-level tables stay small (issue 9).
        if (top >= kMaxLevels) {
            m_unit = (std::int64_t(top) + kMaxLevels) / kMaxLevels;
            m_own.resize(levels.size());
            for (std::size_t i = 0; i < levels.size(); ++i)
                m_own[i] = levels[i] < 0 ? -1 : std::int32_t(levels[i] / m_unit);
            m_levels = &m_own;
            top = std::int32_t(top / m_unit);
        }
        m_count.assign(std::size_t(top + 1), 0);
        for (std::int32_t l : *m_levels)
            if (l >= 0) ++m_count[std::size_t(l)];
        m_reached.resize(m_count.size());
        std::uint64_t sum = 0;
        for (std::size_t l = 0; l < m_count.size(); ++l) m_reached[l] = sum += m_count[l];
        m_grouping = Grouping(std::int64_t(m_count.size()), maxFrames);
    }

    int frameCount() const override { return m_grouping.frames; }
    std::int64_t units() const override { return m_grouping.units; }

    QImage image(int frame) override {
        const int group = frame / kGroupFrames;
        QImage img = wrap(groupPixels(group), m_width, m_height);
        QList<QRgb> table(256, kTransparent);
        const double depth = double(m_count.size());
        for (int i = 1; i <= kCoarse; ++i) table[i] = ramp((double(i) - 0.5) / kCoarse);
        for (int f = group * kGroupFrames; f <= frame; ++f)
            table[kGroupBase + f % kGroupFrames] = frameColour(f, depth);
        img.setColorTable(table);
        return img;
    }

    QString caption(int frame) const override {
        const std::int64_t a = m_grouping.first(frame), b = m_grouping.last(frame);
        const std::uint64_t before = a > 0 ? m_reached[std::size_t(a - 1)] : 0;
        const std::uint64_t here = m_reached[std::size_t(b)] - before;
        const QString last = count((m_count.size() - 1) * std::uint64_t(m_unit));
        const QString reached = Animation::tr("%1 reached").arg(count(m_reached[std::size_t(b)]));
        if (a == b)
            return Animation::tr("level %1 of %2 · %3 at this level · %4")
                .arg(count(std::uint64_t(a * m_unit)), last, cells(here), reached);
        return Animation::tr("levels %1–%2 of %3 · %4 in these levels · %5")
            .arg(count(std::uint64_t(a * m_unit)), count(std::uint64_t(b * m_unit)), last, cells(here), reached);
    }

    std::vector<LegendEntry> legend() const override {
        const std::size_t last = (m_count.size() - 1) * std::size_t(m_unit);
        return {{QColor(ramp(0)), Animation::tr("level 0 (the goal)")},
                {QColor(ramp(0.5)), Animation::tr("level %1").arg(count(last / 2))},
                {QColor(ramp(1)), Animation::tr("level %1").arg(count(last))},
                {kPath, Animation::tr("path")}};
    }

private:
    // Pixel values: 0 transparent (unreached or a later group), 1..kCoarse earlier groups by
    // level, kGroupBase + i the i-th frame of the group.
    static constexpr int kGroupFrames = 128;
    static constexpr int kCoarse = 127;
    static constexpr int kGroupBase = 128;
    static constexpr std::size_t kCachedGroups = 3;

    QRgb frameColour(int frame, double depth) const {
        const double mid = 0.5 * double(m_grouping.first(frame) + m_grouping.last(frame));
        return ramp(depth > 1 ? mid / (depth - 1) : 0.0);
    }

    std::shared_ptr<const Pixels> groupPixels(int group) {
        for (std::size_t i = 0; i < m_cache.size(); ++i)
            if (m_cache[i].first == group) {
                std::rotate(m_cache.begin(), m_cache.begin() + std::ptrdiff_t(i),
                            m_cache.begin() + std::ptrdiff_t(i) + 1);
                return m_cache.front().second;
            }
        // Level -> pixel value for this group, then one pass over the cells.
        const std::size_t depth = m_count.size();
        const std::int64_t firstFrame = std::int64_t(group) * kGroupFrames;
        std::vector<uchar> lut(depth);
        for (std::size_t l = 0; l < depth; ++l) {
            const std::int64_t f = std::int64_t(l) / m_grouping.perFrame;
            if (f < firstFrame)
                lut[l] = uchar(1 + (l * kCoarse) / depth);
            else if (f < firstFrame + kGroupFrames)
                lut[l] = uchar(kGroupBase + (f - firstFrame));
        }
        const int stride = bytesPerLine(m_width);
        auto pixels = std::make_shared<Pixels>(std::size_t(stride) * std::size_t(m_height), uchar(0));
        for (int y = 0; y < m_height; ++y) {
            const std::int32_t* in = m_levels->data() + std::size_t(y) * std::size_t(m_width);
            uchar* out = pixels->data() + std::size_t(y) * std::size_t(stride);
            for (int x = 0; x < m_width; ++x) out[x] = in[x] < 0 ? 0 : lut[std::size_t(in[x])];
        }
        m_cache.insert(m_cache.begin(), {group, pixels});
        if (m_cache.size() > kCachedGroups) m_cache.pop_back();
        return pixels;
    }

    static constexpr std::int32_t kMaxLevels = 1 << 20;
    const std::vector<std::int32_t>* m_levels;
    std::vector<std::int32_t> m_own;  // levels in units of m_unit, when they had to be coarsened
    std::int64_t m_unit = 1;
    int m_width, m_height;
    std::vector<std::uint64_t> m_count;    // cells per level
    std::vector<std::uint64_t> m_reached;  // cells with a level <= l
    Grouping m_grouping;
    std::vector<std::pair<int, std::shared_ptr<const Pixels>>> m_cache;  // most recent first
};

class SearchFrames final : public Frames {
public:
    SearchFrames(const GridMap& map, const SearchRecording& recording, int maxFrames)
        : m_map(map), m_rec(recording), m_stride(std::max<std::uint32_t>(1, recording.vertex_stride)) {
        std::int64_t units = recording.steps;
        for (const auto& e : recording.events) {
            units = std::max<std::int64_t>(units, std::int64_t(e.step) + 1);
            m_bidirectional = m_bidirectional || e.direction != 0;
            m_jumps = m_jumps || e.kind == SearchRecording::Scanned;
        }
        m_grouping = Grouping(std::max<std::int64_t>(units, 1), maxFrames);
        // Events are appended as the search runs, so they are in step order.
        m_eventEnd.resize(std::size_t(m_grouping.frames));
        std::size_t e = 0;
        for (int f = 0; f < m_grouping.frames; ++f) {
            while (e < recording.events.size() && std::int64_t(recording.events[e].step) <= m_grouping.last(f)) ++e;
            m_eventEnd[std::size_t(f)] = e;
        }
        m_eventEnd.back() = recording.events.size();

        m_state.assign((map.cell_count() + m_stride - 1) / m_stride, 0);
        const std::size_t maxKeyframes =
            std::max<std::size_t>(1, kKeyframeBytes / std::max<std::size_t>(1, m_state.size()));
        m_keyInterval = std::max(8, int((std::size_t(m_grouping.frames) + maxKeyframes - 1) / maxKeyframes));
        for (int f = 0; f < m_grouping.frames; ++f) {
            apply(eventsBefore(f), m_eventEnd[std::size_t(f)], false);
            if (f % m_keyInterval == 0) m_keyframes.push_back({m_state, m_counts});
        }
        m_current = m_grouping.frames - 1;

        m_image = QImage(map.width(), map.height(), QImage::Format_Indexed8);
        QList<QRgb> table(16);
        for (int b = 0; b < 16; ++b) table[b] = stateColour(std::uint8_t(b));
        m_image.setColorTable(table);
        paintAll();
    }

    int frameCount() const override { return m_grouping.frames; }
    std::int64_t units() const override { return m_grouping.units; }

    QImage image(int frame) override {
        if (frame == m_current) return m_image;
        const std::size_t target = m_eventEnd[std::size_t(frame)];
        const int key = frame / m_keyInterval * m_keyInterval;
        // Replay from where we are when that moves forward past the nearest keyframe; else
        // restore the keyframe. Painting per event beats repainting every cell only while
        // the events touch fewer cells than the map has.
        bool incremental = false;
        if (m_current <= frame && m_current >= key) {
            const std::size_t here = m_eventEnd[std::size_t(m_current)];
            incremental = (target - here) * m_stride < m_map.cell_count();
            apply(here, target, incremental);
        } else {
            const Keyframe& k = m_keyframes[std::size_t(key / m_keyInterval)];
            m_state = k.state;
            m_counts = k.counts;
            apply(m_eventEnd[std::size_t(key)], target, false);
        }
        if (!incremental) paintAll();
        m_current = frame;
        return m_image;
    }

    QString caption(int frame) const override {
        const std::int64_t done = m_grouping.last(frame) + 1;
        QString text =
            Animation::tr("step %1 of %2").arg(count(std::uint64_t(done)), count(std::uint64_t(m_grouping.units)));
        if (m_bidirectional)
            text += Animation::tr(" · forward: open %1, closed %2 · backward: open %3, closed %4")
                        .arg(count(m_counts[0]), count(m_counts[1]), count(m_counts[2]), count(m_counts[3]));
        else
            text += Animation::tr(" · open %1 · closed %2").arg(count(m_counts[0]), count(m_counts[1]));
        if (m_jumps) text += Animation::tr(" · scanned by jumps %1").arg(count(m_counts[4]));
        if (m_stride > 1) text += Animation::tr(" · 1 in %1 vertices recorded").arg(count(m_stride));
        if (m_rec.truncated) text += Animation::tr(" · recording truncated");
        return text;
    }

    std::vector<LegendEntry> legend() const override {
        if (m_jumps)
            return {{kForwardOpen, Animation::tr("open jump points")},
                    {kForwardClosed, Animation::tr("closed jump points")},
                    {kScanned, Animation::tr("scanned by a jump")},
                    {kPath, Animation::tr("path")}};
        if (!m_bidirectional)
            return {{kForwardOpen, Animation::tr("open")},
                    {kForwardClosed, Animation::tr("closed")},
                    {kPath, Animation::tr("path")}};
        return {{kForwardOpen, Animation::tr("forward open")},
                {kForwardClosed, Animation::tr("forward closed")},
                {kBackwardOpen, Animation::tr("backward open")},
                {kBackwardClosed, Animation::tr("backward closed")},
                {kPath, Animation::tr("path")}};
    }

private:
    // State per recorded vertex: bits 0-1 forward, bits 2-3 backward; 0 none, 1 open, 2 closed,
    // 3 scanned by a jump. The byte is also the pixel value: the colour table resolves both
    // directions at once.
    // Forward open, forward closed, backward open, backward closed, scanned.
    using Counts = std::array<std::uint64_t, 5>;
    static std::size_t slot(int base, int state) { return state == 3 ? 4 : std::size_t(base + state - 1); }
    struct Keyframe {
        std::vector<std::uint8_t> state;
        Counts counts;
    };
    static constexpr std::size_t kKeyframeBytes = 64u << 20;

    static QRgb stateColour(std::uint8_t b) {
        const int forward = b & 3, backward = (b >> 2) & 3;
        if (forward == 2) return kForwardClosed.rgba();
        if (backward == 2) return kBackwardClosed.rgba();
        if (forward == 1) return kForwardOpen.rgba();
        if (backward == 1) return kBackwardOpen.rgba();
        if (forward == 3 || backward == 3) return kScanned.rgba();
        return kTransparent;
    }

    std::size_t eventsBefore(int frame) const { return frame > 0 ? m_eventEnd[std::size_t(frame - 1)] : 0; }

    void apply(std::size_t from, std::size_t to, bool paint) {
        for (std::size_t i = from; i < to; ++i) {
            const auto& e = m_rec.events[i];
            const std::size_t c = e.vertex / m_stride;
            if (c >= m_state.size()) continue;
            const int shift = e.direction ? 2 : 0;
            const int before = (m_state[c] >> shift) & 3;
            const int after = e.kind == SearchRecording::Close ? 2 : e.kind == SearchRecording::Scanned ? 3 : 1;
            // A jump passing over a cell already opened or closed leaves it so.
            if (before == after || (after == 3 && before != 0)) continue;
            const int base = e.direction ? 2 : 0;
            if (before) --m_counts[slot(base, before)];
            ++m_counts[slot(base, after)];
            m_state[c] = std::uint8_t((m_state[c] & ~(3 << shift)) | (after << shift));
            if (paint) paintBlock(c);
        }
    }

    // A recorded vertex stands for the `stride` vertex ids from it on (row-major, so the
    // blocks tile the map); walls inside a block stay transparent.
    void paintBlock(std::size_t c) {
        const std::size_t end = std::min(m_map.cell_count(), (c + 1) * m_stride);
        const std::size_t width = std::size_t(m_map.width());
        for (std::size_t i = c * m_stride; i < end; ++i)
            m_image.scanLine(int(i / width))[i % width] = m_map.passable(Vertex(i)) ? m_state[c] : 0;
    }

    void paintAll() {
        const int width = m_map.width();
        const std::uint8_t* passable = m_map.cells().data();
        // The recorded vertex of a cell advances every m_stride cells: counted, not divided.
        std::size_t c = 0;
        std::uint32_t within = 0;
        for (int y = 0; y < m_map.height(); ++y) {
            uchar* line = m_image.scanLine(y);
            const std::uint8_t* row = passable + std::size_t(y) * std::size_t(width);
            for (int x = 0; x < width; ++x) {
                line[x] = row[x] ? m_state[c] : 0;
                if (++within == m_stride) {
                    within = 0;
                    ++c;
                }
            }
        }
    }

    const GridMap& m_map;
    const SearchRecording& m_rec;
    std::uint32_t m_stride;
    bool m_bidirectional = false;
    bool m_jumps = false;  // the recording has Scanned events: Jump Point Search
    Grouping m_grouping;
    std::vector<std::size_t> m_eventEnd;  // per frame: events shown up to this index
    int m_keyInterval = 8;
    std::vector<Keyframe> m_keyframes;  // [i]: the state after frame i * m_keyInterval
    std::vector<std::uint8_t> m_state;
    Counts m_counts{};
    int m_current = -1;  // the frame m_state (and m_image) show
    QImage m_image;
};

// A run without a recording that still found a path: one frame with the path.
class PathOnlyFrames final : public Frames {
public:
    int frameCount() const override { return 1; }
    std::int64_t units() const override { return 1; }
    QImage image(int) override { return {}; }
    QString caption(int) const override { return Animation::tr("this run kept no recording: path only"); }
    std::vector<LegendEntry> legend() const override { return {{kPath, Animation::tr("path")}}; }
};

}  // namespace

struct Animation::Private {
    std::shared_ptr<const GridMap> map;
    std::shared_ptr<const RunResult> result;
    std::unique_ptr<Frames> frames;
    int frame = 0;
    double speed = 30;
    QTimer timer;
    QElapsedTimer clock;
    double carry = 0;  // fractional frames owed by the timer
    OverlayPtr overlay;

    int last() const { return frames ? frames->frameCount() - 1 : -1; }
    int interval() const { return std::max(15, int(1000.0 / speed)); }  // ~60 Hz at most

    void render() {
        auto o = std::make_shared<Overlay>();
        o->cells = frames->image(frame);
        o->caption = frames->caption(frame);
        if (frame == last()) o->path = pathCells(*map, result->path);
        overlay = std::move(o);
    }
};

Animation::Animation(QObject* parent) : QObject(parent), d(std::make_unique<Private>()) {
    connect(&d->timer, &QTimer::timeout, this, [this] {
        d->carry += double(d->clock.restart()) * d->speed / 1000.0;
        const double whole = std::floor(d->carry);
        if (whole < 1) return;
        d->carry -= whole;
        setFrame(int(std::min<double>(d->last(), d->frame + whole)));
        if (d->frame >= d->last()) pause();
    });
}

Animation::~Animation() = default;

void Animation::setRun(std::shared_ptr<const GridMap> map, std::shared_ptr<const RunResult> result, int maxFrames) {
    pause();
    d->frames.reset();
    d->overlay.reset();
    d->map = std::move(map);
    d->result = std::move(result);
    if (d->map && d->result) {
        const GridMap& m = *d->map;
        const RunResult& r = *d->result;
        if (!r.bfs_levels.empty() && r.bfs_levels.size() == m.cell_count())
            d->frames = std::make_unique<BfsFrames>(m, r.bfs_levels, maxFrames);
        else if (r.recording && (!r.recording->events.empty() || r.recording->steps > 0))
            d->frames = std::make_unique<SearchFrames>(m, *r.recording, maxFrames);
        else if (!r.path.empty())
            d->frames = std::make_unique<PathOnlyFrames>();
        if (d->frames && d->frames->frameCount() == 0) d->frames.reset();
    }
    // A new run opens on its final state; play() starts it from the beginning.
    d->frame = std::max(0, d->last());
    if (d->frames) d->render();
    emit runChanged();
    emit frameChanged(d->frame, frameCount());
    emit overlayChanged(d->overlay);
}

void Animation::clear() { setRun(nullptr, nullptr); }

bool Animation::hasRun() const { return d->result != nullptr; }
std::shared_ptr<const GridMap> Animation::map() const { return d->map; }
std::shared_ptr<const RunResult> Animation::result() const { return d->result; }

int Animation::frameCount() const { return d->frames ? d->frames->frameCount() : 0; }
std::int64_t Animation::units() const { return d->frames ? d->frames->units() : 0; }
int Animation::frame() const { return d->frame; }
double Animation::speed() const { return d->speed; }
bool Animation::playing() const { return d->timer.isActive(); }
OverlayPtr Animation::overlay() const { return d->overlay; }
QString Animation::caption() const { return d->overlay ? d->overlay->caption : QString(); }

std::vector<LegendEntry> Animation::legend() const {
    return d->frames ? d->frames->legend() : std::vector<LegendEntry>{};
}

void Animation::setFrame(int frame) {
    if (!d->frames) return;
    frame = std::clamp(frame, 0, d->last());
    if (frame == d->frame && d->overlay) return;
    d->frame = frame;
    d->render();
    emit frameChanged(d->frame, frameCount());
    emit overlayChanged(d->overlay);
}

void Animation::play() {
    if (playing() || frameCount() < 2) return;
    if (d->frame >= d->last()) setFrame(0);
    d->carry = 0;
    d->clock.start();
    d->timer.start(d->interval());
    emit playingChanged(true);
}

void Animation::pause() {
    if (!playing()) return;
    d->timer.stop();
    emit playingChanged(false);
}

void Animation::togglePlay() { playing() ? pause() : play(); }

void Animation::stepForward() {
    pause();
    setFrame(d->frame + 1);
}

void Animation::stepBack() {
    pause();
    setFrame(d->frame - 1);
}

void Animation::jumpToEnd() {
    pause();
    setFrame(d->last());
}

void Animation::setSpeed(double framesPerSecond) {
    d->speed = std::clamp(framesPerSecond, 1.0, 1000.0);
    if (playing()) d->timer.setInterval(d->interval());
}

}  // namespace ps::ui
