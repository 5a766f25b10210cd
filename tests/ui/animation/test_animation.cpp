// Animation: BFS frames on a hand-worked 5x5 map (which cells each frame shows, the caption's
// numbers, the path on the last frame), level grouping across colour-table groups, A* frames
// from recordings (closed cells, incremental playback equal to random access, sampled blocks),
// and the transport (clamping, stepping, playing to the end).
#include <QLocale>
#include <QSignalSpy>
#include <QtTest>

#include "kernels/run/runner.hpp"
#include "tests/ui/support/search_fixture.hpp"
#include "ui/animation/animation.hpp"

using namespace ps;
using ps::ui::Animation;

namespace {

// The hand-worked map's levels (test::kHandWorkedRows), row by row.
const std::vector<std::string>& kRows = test::kHandWorkedRows;
const std::vector<std::int32_t> kLevels = {0, 1, 2, 3,  4, 1,  -1, -1, -1, 5, 2,  -1, 8,
                                           7, 6, 3, -1, 7, -1, 7,  4,  5,  6, -1, 8};

using test::mapFromRows;
using test::requestOn;
using test::run;

bool shown(const QImage& image, int x, int y) { return qAlpha(image.pixel(x, y)) > 0; }

int countColour(const QImage& image, const QColor& colour) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) n += image.pixel(x, y) == colour.rgba();
    return n;
}

QColor legendColour(const Animation& a, const QString& text) {
    for (const auto& e : a.legend())
        if (e.text == text) return e.colour;
    return {};
}

// Every frame's image, visited in order or in the given order, as ARGB for comparisons.
std::vector<QImage> frames(Animation& a, const std::vector<int>& order) {
    std::vector<QImage> out(std::size_t(a.frameCount()));
    for (int f : order) {
        a.setFrame(f);
        out[std::size_t(f)] = a.overlay()->cells.convertToFormat(QImage::Format_ARGB32);
    }
    return out;
}

}  // namespace

class TestAnimation : public QObject {
    Q_OBJECT
private slots:
    void bfsLevelsMatchTheHandWorkedMap() {
        const auto map = mapFromRows(kRows);
        const auto result = run(requestOn(map, "bfs.cpu.queue", {4, 4}, {0, 0}, Connectivity::Four));
        QCOMPARE(result->status, RunStatus::Ok);
        QCOMPARE(result->bfs_levels, kLevels);

        Animation a;
        QSignalSpy overlays(&a, &Animation::overlayChanged);
        a.setRun(map, result);
        QCOMPARE(a.frameCount(), 9);
        QCOMPARE(a.frame(), 8);  // a new run opens on its final state
        QCOMPARE(overlays.count(), 1);
        for (int k = 0; k < 9; ++k) {
            a.setFrame(k);
            QCOMPARE(a.frame(), k);
            const QImage& image = a.overlay()->cells;
            QCOMPARE(image.size(), QSize(5, 5));
            for (int y = 0; y < 5; ++y)
                for (int x = 0; x < 5; ++x) {
                    const std::int32_t level = kLevels[std::size_t(y * 5 + x)];
                    QVERIFY2(
                        shown(image, x, y) == (level >= 0 && level <= k),
                        qPrintable(QStringLiteral("frame %1 cell (%2,%3) level %4").arg(k).arg(x).arg(y).arg(level)));
                }
            QCOMPARE(a.overlay()->path.empty(), k != 8);
        }
        a.setFrame(0);
        QCOMPARE(a.caption(), QStringLiteral("level 0 of 8 · 1 cell at this level · 1 reached"));
        a.setFrame(7);
        QCOMPARE(a.caption(), QStringLiteral("level 7 of 8 · 3 cells at this level · 16 reached"));
        a.jumpToEnd();
        QCOMPARE(a.caption(), QStringLiteral("level 8 of 8 · 2 cells at this level · 18 reached"));
        const auto& path = a.overlay()->path;
        QCOMPARE(int(path.size()), 9);
        QCOMPARE(path.front(), QPoint(4, 4));
        QCOMPARE(path.back(), QPoint(0, 0));
        // Deeper levels get other colours: the ramp runs from the goal outwards.
        QVERIFY(a.overlay()->cells.pixel(0, 0) != a.overlay()->cells.pixel(4, 4));
        QCOMPARE(a.legend().size(), std::size_t(4));
    }

    void bfsFramesOnlySwapTheColourTable() {
        const auto map = mapFromRows(kRows);
        auto result = std::make_shared<RunResult>();
        result->bfs_levels = kLevels;
        Animation a;
        a.setRun(map, result);
        a.setFrame(2);
        const auto before = a.overlay();
        a.setFrame(5);
        QCOMPARE(a.overlay()->cells.constBits(), before->cells.constBits());  // same pixels
        QVERIFY(a.overlay()->cells.colorTable() != before->cells.colorTable());
        QVERIFY(!shown(before->cells, 4, 0));  // the earlier frame's overlay is unchanged
        QVERIFY(shown(a.overlay()->cells, 4, 0));
    }

    void bfsGroupsLevelsWhenThereAreMoreThanMaxFrames() {
        const auto map = mapFromRows(kRows);
        auto result = std::make_shared<RunResult>();
        result->bfs_levels = kLevels;
        Animation a;
        a.setRun(map, result, 4);  // 9 levels, 3 per frame
        QCOMPARE(a.frameCount(), 3);
        a.setFrame(1);
        QCOMPARE(a.caption(), QStringLiteral("levels 3–5 of 8 · 6 cells in these levels · 11 reached"));
        for (int i = 0; i < 25; ++i)
            QCOMPARE(shown(a.overlay()->cells, i % 5, i / 5),
                     kLevels[std::size_t(i)] >= 0 && kLevels[std::size_t(i)] <= 5);
        a.jumpToEnd();
        for (int i = 0; i < 25; ++i) QCOMPARE(shown(a.overlay()->cells, i % 5, i / 5), kLevels[std::size_t(i)] >= 0);
    }

    void bfsStaysExactAcrossColourTableGroups() {
        // 1000 levels in a row, 3 per frame: 334 frames, more than one image's 256 colours.
        const int width = 1000;
        const auto map = std::make_shared<const GridMap>(width, 2);
        auto result = std::make_shared<RunResult>();
        result->bfs_levels.resize(std::size_t(2 * width));
        for (int x = 0; x < width; ++x) {
            result->bfs_levels[std::size_t(x)] = x;
            result->bfs_levels[std::size_t(width + x)] = x % 7 == 0 ? -1 : width - 1 - x;
        }
        Animation a;
        a.setRun(map, result, 400);
        QCOMPARE(a.frameCount(), 334);
        for (int f : {0, 150, 333, 127, 128, 255, 256, 40}) {
            a.setFrame(f);
            const int lastLevel = std::min(width, 3 * (f + 1)) - 1;
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < width; ++x) {
                    const std::int32_t level = result->bfs_levels[std::size_t(y * width + x)];
                    QVERIFY2(shown(a.overlay()->cells, x, y) == (level >= 0 && level <= lastLevel),
                             qPrintable(QStringLiteral("frame %1 cell (%2,%3)").arg(f).arg(x).arg(y)));
                }
        }
        a.setFrame(150);
        const auto reached = std::count_if(result->bfs_levels.begin(), result->bfs_levels.end(),
                                           [](std::int32_t l) { return l >= 0 && l <= 452; });
        QCOMPARE(a.caption(), QStringLiteral("levels 450–452 of %1 · 6 cells in these levels · %2 reached")
                                  .arg(QLocale().toString(999), QLocale().toString(qlonglong(reached))));
    }

    void astarFramesFromARecording() {
        const auto map = mapFromRows({"..........", "...####...", "......#...", "..#...#...", "..#.......",
                                      "..#####...", "..........", ".....#....", ".....#....", ".........."});
        const auto result = run(requestOn(map, "astar.cpu", {0, 0}, {9, 9}, Connectivity::Eight));
        QCOMPARE(result->status, RunStatus::Ok);
        QVERIFY(result->recording);
        QCOMPARE(result->recording->vertex_stride, 1u);
        const int steps = int(result->recording->steps);
        QCOMPARE(std::uint64_t(steps), result->expanded);

        Animation a;
        a.setRun(map, result);
        QCOMPARE(a.frameCount(), steps);
        const QColor closed = legendColour(a, QStringLiteral("closed"));
        const QColor open = legendColour(a, QStringLiteral("open"));
        QVERIFY(closed.isValid() && open.isValid());
        QCOMPARE(a.legend().size(), std::size_t(3));
        // Last frame: exactly the expanded cells are closed, and the path is there.
        QCOMPARE(std::uint64_t(countColour(a.overlay()->cells, closed)), result->expanded);
        QCOMPARE(a.overlay()->path.size(), result->path.size());
        QVERIFY(a.caption().startsWith(QStringLiteral("step %1 of %1 · open ").arg(steps)));
        QVERIFY(a.caption().endsWith(QStringLiteral("closed %1").arg(steps)));
        // One expansion per step.
        for (int k : {0, 3, steps / 2}) {
            a.setFrame(k);
            QCOMPARE(countColour(a.overlay()->cells, closed), k + 1);
            QVERIFY(countColour(a.overlay()->cells, open) > 0);
            QVERIFY(a.overlay()->path.empty());
            QCOMPARE(a.caption(), QStringLiteral("step %1 of %2 · open %3 · closed %1")
                                      .arg(k + 1)
                                      .arg(steps)
                                      .arg(countColour(a.overlay()->cells, open)));
        }
        // Scrubbing backwards (keyframes) and jumping give the same images as playing forward.
        std::vector<int> forward(std::size_t(a.frameCount())), scrambled;
        for (int f = 0; f < a.frameCount(); ++f) forward[std::size_t(f)] = f;
        for (int f = a.frameCount() - 1; f >= 0; --f)
            if (f % 3 == 0) scrambled.push_back(f);
        for (int f = 1; f < a.frameCount(); f += 3) scrambled.push_back(f);
        for (int f = a.frameCount() - 1; f >= 0; --f)
            if (f % 3 == 2) scrambled.push_back(f);
        QCOMPARE(scrambled.size(), forward.size());
        const auto inOrder = frames(a, forward);
        const auto atRandom = frames(a, scrambled);
        for (std::size_t f = 0; f < inOrder.size(); ++f)
            QVERIFY2(inOrder[f] == atRandom[f], qPrintable(QString::number(f)));
    }

    void bidirectionalSearchHasTwoFrontiers() {
        const auto map = std::make_shared<const GridMap>(24, 24);
        const auto result = run(requestOn(map, "astar.cpu.bidir", {0, 0}, {23, 20}, Connectivity::Eight));
        QCOMPARE(result->status, RunStatus::Ok);
        Animation a;
        a.setRun(map, result);
        QCOMPARE(a.legend().size(), std::size_t(5));
        const QColor backwardClosed = legendColour(a, QStringLiteral("backward closed"));
        const QColor forwardClosed = legendColour(a, QStringLiteral("forward closed"));
        QVERIFY(countColour(a.overlay()->cells, backwardClosed) > 0);
        QVERIFY(countColour(a.overlay()->cells, forwardClosed) > 0);
        QVERIFY(a.caption().contains(QStringLiteral("backward: open")));
    }

    // Jump Point Search: the open and closed cells are jump points only; the straight and
    // diagonal runs between them show as scanned cells. On an open 9 x 5 grid from (0,2) to
    // (8,2) the first expansion jumps east straight to the goal: the seven cells between are
    // scanned, never opened, and the caption counts them.
    void jpsShowsJumpPointsAndTheirRuns() {
        GridMap open(9, 5);
        auto map = std::make_shared<const GridMap>(std::move(open));
        Animation a;
        a.setRun(map, run(requestOn(map, "jps.cpu", {0, 2}, {8, 2}, Connectivity::Eight)));
        QVERIFY(a.frameCount() >= 1);
        const QColor scanned = legendColour(a, QStringLiteral("scanned by a jump"));
        const QColor closed = legendColour(a, QStringLiteral("closed jump points"));
        QVERIFY(scanned.isValid() && closed.isValid());
        a.jumpToEnd();
        const QImage image = a.overlay()->cells.convertToFormat(QImage::Format_ARGB32);
        for (int x = 1; x < 8; ++x) QCOMPARE(image.pixel(x, 2), scanned.rgba());
        QCOMPARE(image.pixel(0, 2), closed.rgba());  // the start, expanded
        QVERIFY2(a.caption().contains(QStringLiteral("scanned by jumps")), qPrintable(a.caption()));
        // A* on the same grid opens those cells instead: no scanned cells, no such legend entry.
        Animation plain;
        plain.setRun(map, run(requestOn(map, "astar.cpu", {0, 2}, {8, 2}, Connectivity::Eight)));
        QVERIFY(!legendColour(plain, QStringLiteral("scanned by a jump")).isValid());
    }

    void sampledVerticesAreDrawnAsBlocks() {
        // 8x2 map, one wall; stride 4: vertex 4 stands for cells 4..7 of row 0.
        auto grid = GridMap(8, 2);
        grid.set_passable(6, 0, false);
        const auto map = std::make_shared<const GridMap>(std::move(grid));
        auto recording = std::make_shared<SearchRecording>();
        recording->vertex_stride = 4;
        recording->steps = 2;
        recording->events = {{0, 0, SearchRecording::Open, 0},
                             {0, 0, SearchRecording::Close, 0},
                             {4, 0, SearchRecording::Open, 0},
                             {12, 1, SearchRecording::Open, 0},
                             {4, 1, SearchRecording::Close, 0}};
        auto result = std::make_shared<RunResult>();
        result->recording = recording;
        Animation a;
        a.setRun(map, result);
        QCOMPARE(a.frameCount(), 2);
        const QColor closed = legendColour(a, QStringLiteral("closed"));
        const QColor open = legendColour(a, QStringLiteral("open"));
        a.setFrame(0);
        const QImage& f0 = a.overlay()->cells;
        for (int x = 0; x < 4; ++x) QCOMPARE(f0.pixel(x, 0), closed.rgba());
        for (int x : {4, 5, 7}) QCOMPARE(f0.pixel(x, 0), open.rgba());
        QVERIFY(!shown(f0, 6, 0));  // a wall inside the block
        for (int x = 0; x < 8; ++x) QVERIFY(!shown(f0, x, 1));
        a.setFrame(1);
        const QImage& f1 = a.overlay()->cells;
        for (int x : {4, 5, 7}) QCOMPARE(f1.pixel(x, 0), closed.rgba());
        for (int x = 4; x < 8; ++x) QCOMPARE(f1.pixel(x, 1), open.rgba());
        QVERIFY(a.caption().contains(QStringLiteral("1 in 4 vertices recorded")));
    }

    void transportClampsAndPlays() {
        const auto map = mapFromRows(kRows);
        auto result = std::make_shared<RunResult>();
        result->bfs_levels = kLevels;
        Animation a;
        QSignalSpy frames(&a, &Animation::frameChanged);
        QSignalSpy playing(&a, &Animation::playingChanged);
        a.setRun(map, result);
        a.setFrame(0);
        a.stepBack();
        QCOMPARE(a.frame(), 0);
        a.stepForward();
        QCOMPARE(a.frame(), 1);
        a.setFrame(-5);
        QCOMPARE(a.frame(), 0);
        a.setFrame(1000);
        QCOMPARE(a.frame(), 8);
        a.stepForward();
        QCOMPARE(a.frame(), 8);
        a.setFrame(3);
        a.jumpToEnd();
        QCOMPARE(a.frame(), 8);
        QCOMPARE(frames.last().at(0).toInt(), 8);
        QCOMPARE(frames.last().at(1).toInt(), 9);

        a.setSpeed(5000);
        QCOMPARE(a.speed(), 1000.0);
        a.play();  // from the end: starts again at the beginning
        QVERIFY(a.playing());
        QVERIFY(a.frame() < 8);
        QTRY_VERIFY_WITH_TIMEOUT(!a.playing(), 5000);
        QCOMPARE(a.frame(), 8);
        QCOMPARE(playing.count(), 2);
        a.togglePlay();
        QVERIFY(a.playing());
        a.togglePlay();
        QVERIFY(!a.playing());

        a.clear();
        QCOMPARE(a.frameCount(), 0);
        QVERIFY(!a.overlay());
        QVERIFY(a.legend().empty());
        a.setFrame(3);  // no run: nothing happens
        QCOMPARE(a.frame(), 0);
        a.play();
        QVERIFY(!a.playing());
    }
};

QTEST_MAIN(TestAnimation)
#include "test_animation.moc"
