// MapDocument: every edit and its undo/redo restore cells exactly, one stroke is one undo step,
// flood fill regions, endpoint rules, snapshot independence, and file round trips and errors
// through the GUI layer.
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <initializer_list>
#include <string>

#include "ui/map/map_document.hpp"

using ps::Cell;
using ps::GridMap;
using ps::ui::MapDocument;

namespace {

// A map drawn in text: '.' free, '#' wall; row y is the y-th string.
GridMap fromRows(std::initializer_list<std::string> rows, Cell start, Cell goal) {
    GridMap map(int(rows.begin()->size()), int(rows.size()));
    int y = 0;
    for (const std::string& row : rows) {
        for (int x = 0; x < map.width(); ++x) map.set_passable(x, y, row[std::size_t(x)] != '#');
        ++y;
    }
    map.start = start;
    map.goal = goal;
    return map;
}

// An open map with the endpoints in the bottom corners, out of the way of the edits below.
GridMap blank(int width, int height) {
    GridMap map(width, height);
    map.start = Cell{0, height - 1};
    map.goal = Cell{width - 1, height - 1};
    return map;
}

GridMap noisy(int width, int height, std::uint64_t seed) {
    ps::GeneratorParams p;
    p.kind = ps::GeneratorKind::Random;
    p.width = width;
    p.height = height;
    p.seed = seed;
    p.density = 0.35;
    GridMap map = ps::generate_map(p).value();
    map.set_passable(0, height - 1, true);
    map.set_passable(width - 1, height - 1, true);
    map.start = Cell{0, height - 1};
    map.goal = Cell{width - 1, height - 1};
    return map;
}

void appendBigEndian(QByteArray& out, quint32 v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.append(char((v >> shift) & 0xff));
}

// One PNG chunk: length, type, data and the CRC-32 of type and data.
QByteArray pngChunk(const char* type, const QByteArray& data) {
    const QByteArray body = QByteArray(type) + data;
    quint32 crc = 0xffffffffu;
    for (char c : body) {
        crc ^= quint8(c);
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    QByteArray chunk;
    appendBigEndian(chunk, quint32(data.size()));
    chunk.append(body);
    appendBigEndian(chunk, ~crc);
    return chunk;
}

// A PNG whose header claims width x height (8-bit greyscale) but holds no pixel data.
QByteArray pngHeader(quint32 width, quint32 height) {
    QByteArray header;
    appendBigEndian(header, width);
    appendBigEndian(header, height);
    header.append("\x08\x00\x00\x00\x00", 5);  // depth 8, greyscale, deflate, no filter, no interlace
    // libpng reads up to the first IDAT before it reports the size.
    return QByteArray("\x89PNG\r\n\x1a\n", 8) + pngChunk("IHDR", header) + pngChunk("IDAT", QByteArray(2, '\0')) +
           pngChunk("IEND", {});
}

int wallCount(const GridMap& map) { return int(map.cell_count() - map.passable_count()); }

// Undo gives back `before` exactly, redo gives back `after` exactly, twice over.
void checkUndoRedo(MapDocument& doc, const GridMap& before, const GridMap& after) {
    for (int round = 0; round < 2; ++round) {
        doc.undoStack()->undo();
        QVERIFY(doc.map() == before);
        doc.undoStack()->redo();
        QVERIFY(doc.map() == after);
    }
}

}  // namespace

class TestMapDocument : public QObject {
    Q_OBJECT

private slots:
    void strokeIsOneUndoStep();
    void strokeInterpolatesFastDrags();
    void brushIsSquare_data();
    void brushIsSquare();
    void strokesNeverMerge();
    void lineUndoRedo();
    void rectUndoRedo();
    void fillRegion();
    void fillIsFourConnected();
    void fillWallRegionClears();
    void fillSameStateDoesNothing();
    void fillLargeRegionIsIterative();
    void wallsLeaveEndpointsFree();
    void endpointsOnWallsIgnored();
    void endpointUndoRedo();
    void endpointDragIsOneStep();
    void snapshotIndependence();
    void snapshotWithoutHoldersDoesNotCopy();
    void cellsChangedReportsDirtyRect();
    void modifiedState();
    void mapRoundTrip();
    void pngRoundTrip();
    void imageThreshold_data();
    void imageThreshold();
    void transparentPixelsAreFree();
    void oversizedImageRefused();
    void missingFile();
    void brokenMap();
    void unknownSaveFormat();
    void generateKeepsProvenance();
    void generateRefusal();
};

void TestMapDocument::strokeIsOneUndoStep() {
    MapDocument doc;
    doc.setMap(blank(16, 8), QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.beginStroke(true, 1);
    doc.strokeTo({2, 3});
    doc.strokeTo({7, 3});
    doc.strokeTo({12, 3});
    QCOMPARE(doc.undoStack()->count(), 0);  // applied at once, pushed at the end
    doc.endStroke();
    QCOMPARE(doc.undoStack()->count(), 1);
    for (int x = 0; x < 16; ++x) QCOMPARE(doc.map().passable(x, 3), x < 2 || x > 12);
    QCOMPARE(wallCount(doc.map()), 11);
    const GridMap after = doc.map();
    checkUndoRedo(doc, before, after);

    // Erasing part of it is its own step, undone exactly.
    doc.beginStroke(false, 1);
    doc.strokeTo({5, 3});
    doc.strokeTo({9, 3});
    doc.endStroke();
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(wallCount(doc.map()), 6);
    checkUndoRedo(doc, after, doc.map());
}

void TestMapDocument::strokeInterpolatesFastDrags() {
    MapDocument doc;
    doc.setMap(blank(32, 32), QStringLiteral("t"));
    doc.beginStroke(true, 1);
    doc.strokeTo({1, 1});
    doc.strokeTo({25, 10});  // one mouse event far from the last
    doc.endStroke();
    // Bresenham: one cell per column, 8-connected, both ends included.
    QCOMPARE(wallCount(doc.map()), 25);
    for (int x = 1; x <= 25; ++x) {
        int inColumn = 0;
        for (int y = 0; y < 32; ++y) inColumn += doc.map().passable(x, y) ? 0 : 1;
        QCOMPARE(inColumn, 1);
    }
    QVERIFY(!doc.map().passable(1, 1));
    QVERIFY(!doc.map().passable(25, 10));
}

void TestMapDocument::brushIsSquare_data() {
    QTest::addColumn<int>("brush");
    QTest::addColumn<QRect>("cells");
    QTest::newRow("1") << 1 << QRect(5, 5, 1, 1);
    QTest::newRow("2") << 2 << QRect(5, 5, 2, 2);
    QTest::newRow("3") << 3 << QRect(4, 4, 3, 3);
    QTest::newRow("4") << 4 << QRect(4, 4, 4, 4);
}

void TestMapDocument::brushIsSquare() {
    QFETCH(int, brush);
    QFETCH(QRect, cells);
    MapDocument doc;
    doc.setMap(blank(12, 12), QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.beginStroke(true, brush);
    doc.strokeTo({5, 5});
    doc.endStroke();
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 12; ++x) QCOMPARE(doc.map().passable(x, y), !cells.contains(x, y));
    checkUndoRedo(doc, before, doc.map());
}

void TestMapDocument::strokesNeverMerge() {
    MapDocument doc;
    doc.setMap(blank(16, 8), QStringLiteral("t"));
    const GridMap empty = doc.map();
    for (int y : {1, 2, 3}) {
        doc.beginStroke(true, 1);
        doc.strokeTo({1, y});
        doc.strokeTo({4, y});
        doc.endStroke();
    }
    QCOMPARE(doc.undoStack()->count(), 3);
    doc.undoStack()->undo();
    QCOMPARE(wallCount(doc.map()), 8);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(doc.map() == empty);

    // A stroke that changes nothing (walls over walls) leaves no empty undo step.
    doc.undoStack()->redo();
    const int steps = doc.undoStack()->index();
    doc.beginStroke(true, 1);
    doc.strokeTo({2, 1});
    doc.endStroke();
    QCOMPARE(doc.undoStack()->index(), steps);
}

void TestMapDocument::lineUndoRedo() {
    MapDocument doc;
    doc.setMap(blank(10, 10), QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.paintLine({1, 1}, {8, 8}, true, 1);
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(wallCount(doc.map()), 8);
    for (int i = 1; i <= 8; ++i) QVERIFY(!doc.map().passable(i, i));
    checkUndoRedo(doc, before, doc.map());

    // A thick erasing line across it clears a band, one step again.
    const GridMap walled = doc.map();
    doc.paintLine({0, 4}, {9, 4}, false, 3);
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(wallCount(doc.map()), 5);
    checkUndoRedo(doc, walled, doc.map());
}

void TestMapDocument::rectUndoRedo() {
    MapDocument doc;
    doc.setMap(noisy(20, 12, 3), QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.paintRect(QRect(QPoint(2, 1), QPoint(9, 7)), true);
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 20; ++x) {
            const bool inside = x >= 2 && x <= 9 && y >= 1 && y <= 7;
            QCOMPARE(doc.map().passable(x, y), inside ? false : before.passable(x, y));
        }
    checkUndoRedo(doc, before, doc.map());

    const GridMap walled = doc.map();
    doc.paintRect(QRect(4, 3, 3, 2), false);
    QCOMPARE(wallCount(doc.map()), wallCount(walled) - 6);
    checkUndoRedo(doc, walled, doc.map());
    QCOMPARE(doc.undoStack()->count(), 2);

    // Outside the map: clipped, and nothing at all is no command.
    doc.paintRect(QRect(100, 100, 5, 5), true);
    QCOMPARE(doc.undoStack()->count(), 2);
}

void TestMapDocument::fillRegion() {
    MapDocument doc;
    doc.setMap(fromRows({"..#....",  //
                         "..#.##.",  //
                         "###.#..",  //
                         "....#.#"},
                        {0, 0}, {1, 1}),
               QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.floodFill({3, 0}, true);
    const GridMap expected = fromRows({"..#####",  //
                                       "..#####",  //
                                       "#######",  //
                                       "#######"},
                                      {0, 0}, {1, 1});
    QVERIFY(doc.map() == expected);
    QCOMPARE(doc.undoStack()->count(), 1);
    checkUndoRedo(doc, before, expected);
}

void TestMapDocument::fillIsFourConnected() {
    MapDocument doc;
    doc.setMap(fromRows({".#.",  //
                         "#.#",  //
                         ".#."},
                        {2, 0}, {0, 2}),
               QStringLiteral("t"));
    doc.floodFill({1, 1}, true);           // its free neighbours are all diagonal
    QVERIFY(doc.map() == fromRows({".#.",  //
                                   "###",  //
                                   ".#."},
                                  {2, 0}, {0, 2}));
    doc.floodFill({0, 0}, true);
    QVERIFY(doc.map() == fromRows({"##.",  //
                                   "###",  //
                                   ".#."},
                                  {2, 0}, {0, 2}));
    QCOMPARE(doc.undoStack()->count(), 2);
}

void TestMapDocument::fillWallRegionClears() {
    MapDocument doc;
    doc.setMap(fromRows({"##..#",  //
                         "#...#",  //
                         "###.#",  //
                         "....#"},
                        {2, 0}, {0, 3}),
               QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.floodFill({0, 0}, false);                // the wall region containing (0, 0)
    const GridMap expected = fromRows({"....#",  //
                                       "....#",  //
                                       "....#",  //
                                       "....#"},
                                      {2, 0}, {0, 3});
    QVERIFY(doc.map() == expected);
    checkUndoRedo(doc, before, expected);
}

void TestMapDocument::fillSameStateDoesNothing() {
    MapDocument doc;
    doc.setMap(blank(8, 8), QStringLiteral("t"));
    doc.floodFill({3, 3}, false);  // free region filled with free
    doc.floodFill({-1, 3}, true);  // outside
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestMapDocument::fillLargeRegionIsIterative() {
    // A serpentine corridor: a recursive fill would nest once per cell and overflow.
    const int side = 1024;
    GridMap map(side, side);
    for (int y = 1; y < side; y += 2)
        for (int x = 0; x < side; ++x)
            if ((y / 2) % 2 == 0 ? x < side - 1 : x > 0) map.set_passable(x, y, false);
    map.start = Cell{0, 0};
    map.goal = Cell{0, 0};
    MapDocument doc;
    doc.setMap(map, QStringLiteral("t"));
    const GridMap before = doc.map();
    doc.floodFill({5, 0}, true);
    QCOMPARE(int(doc.map().passable_count()), 1);  // all but the endpoint cell
    checkUndoRedo(doc, before, doc.map());
}

void TestMapDocument::wallsLeaveEndpointsFree() {
    MapDocument doc;
    doc.setMap(fromRows({"....",  //
                         "....",  //
                         "...."},
                        {1, 1}, {2, 1}),
               QStringLiteral("t"));
    doc.paintRect(QRect(0, 0, 4, 3), true);
    QCOMPARE(int(doc.map().passable_count()), 2);
    QVERIFY(doc.map().passable(1, 1) && doc.map().passable(2, 1));
    doc.undoStack()->undo();
    doc.floodFill({0, 0}, true);
    QCOMPARE(int(doc.map().passable_count()), 2);
    doc.undoStack()->undo();
    QCOMPARE(int(doc.map().passable_count()), 12);
    doc.beginStroke(true, 3);
    doc.strokeTo({1, 1});
    doc.endStroke();
    QVERIFY(doc.map().passable(1, 1) && doc.map().passable(2, 1));
}

void TestMapDocument::endpointsOnWallsIgnored() {
    MapDocument doc;
    doc.setMap(fromRows({".#..",  //
                         "...."},
                        {0, 0}, {3, 1}),
               QStringLiteral("t"));
    QSignalSpy moved(&doc, &MapDocument::endpointsChanged);
    doc.setStart({1, 0});
    doc.setGoal({1, 0});
    doc.setGoal({9, 9});  // outside
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(moved.count(), 0);
    QCOMPARE(*doc.map().start, (Cell{0, 0}));
    QCOMPARE(*doc.map().goal, (Cell{3, 1}));
}

void TestMapDocument::endpointUndoRedo() {
    MapDocument doc;
    doc.setMap(blank(8, 8), QStringLiteral("t"));
    const auto start = doc.map().start;
    doc.setStart({2, 3});
    doc.setGoal({5, 6});
    QCOMPARE(doc.undoStack()->count(), 2);  // no merging outside a drag
    doc.undoStack()->undo();
    QCOMPARE(*doc.map().goal, (Cell{7, 7}));
    doc.undoStack()->undo();
    QCOMPARE(doc.map().start, start);
    doc.undoStack()->redo();
    QCOMPARE(*doc.map().start, (Cell{2, 3}));
}

void TestMapDocument::endpointDragIsOneStep() {
    MapDocument doc;
    doc.setMap(blank(8, 8), QStringLiteral("t"));
    const auto goal = doc.map().goal;
    doc.beginEndpointDrag();
    for (int x = 6; x >= 2; --x) doc.setGoal({x, 4});
    doc.endEndpointDrag();
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(*doc.map().goal, (Cell{2, 4}));
    doc.undoStack()->undo();
    QCOMPARE(doc.map().goal, goal);

    // A drag that ends where it began leaves no step.
    doc.beginEndpointDrag();
    doc.setStart({3, 3});
    doc.setStart({0, 7});
    doc.endEndpointDrag();
    QCOMPARE(*doc.map().start, (Cell{0, 7}));
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestMapDocument::snapshotIndependence() {
    MapDocument doc;
    doc.setMap(noisy(40, 30, 5), QStringLiteral("t"));
    const auto first = doc.snapshot();
    QCOMPARE(doc.snapshot().get(), first.get());  // nothing changed: the same snapshot
    const GridMap copy = *first;
    doc.paintRect(QRect(0, 0, 40, 10), true);
    doc.beginStroke(false, 2);
    doc.strokeTo({3, 3});
    doc.endStroke();
    const auto start = first->start;
    doc.setStart({4, 4});  // freed by the stroke
    QCOMPARE(*doc.map().start, (Cell{4, 4}));
    QVERIFY(*first == copy);
    QCOMPARE(first->start, start);
    const auto second = doc.snapshot();
    QVERIFY(second.get() != first.get());
    QVERIFY(*second == doc.map());
    QCOMPARE(second->start, doc.map().start);
    doc.undoStack()->undo();
    QCOMPARE(second->start, (std::optional<Cell>(Cell{4, 4})));
}

void TestMapDocument::snapshotWithoutHoldersDoesNotCopy() {
    MapDocument doc;
    doc.setMap(blank(64, 64), QStringLiteral("t"));
    const GridMap* live = &doc.map();
    { const auto released = doc.snapshot(); }
    doc.paintRect(QRect(1, 1, 5, 5), true);
    QCOMPARE(&doc.map(), live);  // copy on write: nobody held the snapshot
    const auto held = doc.snapshot();
    doc.paintRect(QRect(10, 10, 5, 5), true);
    QVERIFY(&doc.map() != held.get());
}

void TestMapDocument::cellsChangedReportsDirtyRect() {
    MapDocument doc;
    doc.setMap(blank(20, 20), QStringLiteral("t"));
    QSignalSpy spy(&doc, &MapDocument::cellsChanged);
    doc.paintRect(QRect(2, 1, 4, 3), true);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toRect(), QRect(2, 1, 4, 3));
    doc.undoStack()->undo();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toRect(), QRect(2, 1, 4, 3));
    doc.beginStroke(true, 1);
    doc.strokeTo({10, 10});
    doc.strokeTo({12, 14});
    doc.endStroke();
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(0).at(0).toRect(), QRect(10, 10, 1, 1));
    QCOMPARE(spy.at(1).at(0).toRect(), QRect(QPoint(11, 11), QPoint(12, 14)));
}

void TestMapDocument::modifiedState() {
    QTemporaryDir dir;
    MapDocument doc;
    doc.setMap(blank(8, 8), QStringLiteral("t"));
    QVERIFY(!doc.isModified());
    QSignalSpy state(&doc, &MapDocument::fileStateChanged);
    doc.paintRect(QRect(1, 1, 2, 2), true);
    QVERIFY(doc.isModified());
    QVERIFY(state.count() >= 1);
    QString error;
    QVERIFY2(doc.save(dir.filePath(QStringLiteral("m.map")), &error), qPrintable(error));
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.displayName(), QStringLiteral("m"));
    doc.undoStack()->undo();
    QVERIFY(doc.isModified());
}

void TestMapDocument::mapRoundTrip() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("round.map"));
    MapDocument doc;
    doc.setMap(noisy(37, 23, 11), QStringLiteral("t"));
    doc.paintLine({0, 0}, {36, 22}, false, 2);
    QString error;
    QVERIFY2(doc.save(path, &error), qPrintable(error));
    MapDocument loaded;
    QVERIFY2(loaded.load(path, &error), qPrintable(error));
    QVERIFY(loaded.map() == doc.map());
    QCOMPARE(loaded.filePath(), path);
    QCOMPARE(loaded.displayName(), QStringLiteral("round"));
    QVERIFY(!loaded.isModified());
    QVERIFY(loaded.generatorText().isEmpty());
}

void TestMapDocument::pngRoundTrip() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("round.png"));
    MapDocument doc;
    doc.setMap(noisy(37, 23, 12), QStringLiteral("t"));  // width not a multiple of 8: bit packing
    QString error;
    QVERIFY2(doc.save(path, &error), qPrintable(error));
    const QImage image(path);
    QCOMPARE(image.size(), QSize(37, 23));
    for (int y = 0; y < 23; ++y)
        for (int x = 0; x < 37; ++x)
            QCOMPARE(image.pixel(x, y), doc.map().passable(x, y) ? qRgb(255, 255, 255) : qRgb(0, 0, 0));
    MapDocument loaded;
    QVERIFY2(loaded.load(path, &error), qPrintable(error));
    QVERIFY(loaded.map() == doc.map());
}

void TestMapDocument::imageThreshold_data() {
    QTest::addColumn<int>("threshold");
    QTest::addColumn<QString>("cells");  // of grey levels 0 64 127 128 200 255
    QTest::newRow("128") << 128 << QStringLiteral("###...");
    QTest::newRow("65") << 65 << QStringLiteral("##....");
    QTest::newRow("201") << 201 << QStringLiteral("#####.");
    QTest::newRow("0") << 0 << QStringLiteral("......");
}

void TestMapDocument::imageThreshold() {
    QFETCH(int, threshold);
    QFETCH(QString, cells);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("grey.png"));
    QImage image(6, 2, QImage::Format_Grayscale8);
    const int levels[] = {0, 64, 127, 128, 200, 255};
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 6; ++x) image.scanLine(y)[x] = uchar(levels[x]);
    QVERIFY(image.save(path));
    MapDocument doc;
    QString error;
    QVERIFY2(doc.load(path, &error, threshold), qPrintable(error));
    QCOMPARE(doc.map().width(), 6);
    for (int x = 0; x < 6; ++x) QCOMPARE(doc.map().passable(x, 1), cells[x] == QLatin1Char('.'));
}

void TestMapDocument::transparentPixelsAreFree() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("alpha.png"));
    QImage image(3, 1, QImage::Format_ARGB32);
    image.setPixel(0, 0, qRgba(0, 0, 0, 0));    // transparent: paper
    image.setPixel(1, 0, qRgba(0, 0, 0, 255));  // opaque black: wall
    image.setPixel(2, 0, qRgba(255, 255, 255, 255));
    QVERIFY(image.save(path));
    MapDocument doc;
    QString error;
    QVERIFY2(doc.load(path, &error), qPrintable(error));
    QVERIFY(doc.map().passable(0, 0));
    QVERIFY(!doc.map().passable(1, 0));
    QVERIFY(doc.map().passable(2, 0));
}

void TestMapDocument::oversizedImageRefused() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("wide.png"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(pngHeader(70000, 2));  // no pixel data: the refusal must come from the header
    file.close();
    MapDocument doc;
    const GridMap before = doc.map();
    QString error;
    QVERIFY(!doc.load(path, &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("70000x2")) && error.contains(QStringLiteral("65535")), qPrintable(error));
    QVERIFY(doc.map() == before);
}

void TestMapDocument::missingFile() {
    QTemporaryDir dir;
    MapDocument doc;
    const GridMap before = doc.map();
    for (const char* name : {"absent.map", "absent.png"}) {
        const QString path = dir.filePath(QLatin1String(name));
        QString error;
        QVERIFY(!doc.load(path, &error));
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY(doc.map() == before);
        QVERIFY(doc.filePath().isEmpty());
    }
}

void TestMapDocument::brokenMap() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.map"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("type octile\nheight 2\nwidth 3\nmap\n...\n.?.\n");
    file.close();
    MapDocument doc;
    doc.setMap(blank(5, 5), QStringLiteral("kept"));
    const GridMap before = doc.map();
    QString error;
    QVERIFY(!doc.load(path, &error));
    QVERIFY2(error.contains(path + QStringLiteral(":6:")), qPrintable(error));  // file and line
    QVERIFY(doc.map() == before);
    QCOMPARE(doc.displayName(), QStringLiteral("kept"));
}

void TestMapDocument::unknownSaveFormat() {
    QTemporaryDir dir;
    MapDocument doc;
    QString error;
    QVERIFY(!doc.save(dir.filePath(QStringLiteral("map.txt")), &error));
    QVERIFY2(error.contains(QStringLiteral(".map or .png")), qPrintable(error));
    QVERIFY(doc.filePath().isEmpty());
}

void TestMapDocument::generateKeepsProvenance() {
    MapDocument doc;
    doc.paintRect(QRect(0, 0, 3, 3), true);
    ps::GeneratorParams p;
    p.kind = ps::GeneratorKind::Noise;
    p.width = 64;
    p.height = 48;
    p.seed = 77;
    p.density = 0.3;
    QString error;
    QSignalSpy replaced(&doc, &MapDocument::mapReplaced);
    QVERIFY2(doc.generate(p, &error), qPrintable(error));
    QCOMPARE(replaced.count(), 1);
    QCOMPARE(doc.generatorText(), QStringLiteral("noise type=gradient density=0.3 frequency=0.02 octaves=3"));
    QCOMPARE(doc.generatorSeed(), std::optional<std::uint64_t>(77));
    QVERIFY(doc.map() == ps::generate_map(p).value());
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.isModified());
    QVERIFY(doc.map().start && doc.map().passable(*doc.map().start));

    p.kind = ps::GeneratorKind::Maze;
    p.corridor_width = 2;
    QCOMPARE(ps::ui::describeGenerator(p), QStringLiteral("maze corridor=2"));
    p.kind = ps::GeneratorKind::Division;  // no parameters of its own
    QCOMPARE(ps::ui::describeGenerator(p), QStringLiteral("division"));
    p.kind = ps::GeneratorKind::Rooms;
    p.room_size = 8;
    p.density = 0.5;
    QCOMPARE(ps::ui::describeGenerator(p), QStringLiteral("rooms room=8 density=0.5"));
}

void TestMapDocument::generateRefusal() {
    MapDocument doc;
    const GridMap before = doc.map();
    ps::GeneratorParams p;
    p.kind = ps::GeneratorKind::Maze;
    p.width = p.height = 8;
    p.corridor_width = 5;
    QString error;
    QVERIFY(!doc.generate(p, &error));
    QVERIFY2(error.contains(QStringLiteral("too small")), qPrintable(error));
    QVERIFY(doc.map() == before);
}

QTEST_MAIN(TestMapDocument)
#include "test_map_document.moc"
