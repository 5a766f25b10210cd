// MapView on the offscreen platform: fit, zoom about an anchor, cell mapping, the editing tools
// driven by simulated mouse input (and undone), panning, rendering; the tile pyramid's grey
// levels; the new-map dialog's validation.
#include <QApplication>
#include <QImage>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QtTest>

#include "ui/map/map_document.hpp"
#include "ui/map/map_tiles.hpp"
#include "ui/map/map_view.hpp"
#include "ui/map/new_map_dialog.hpp"

using ps::Cell;
using ps::GridMap;
using ps::ui::MapDocument;
using ps::ui::MapView;
using ps::ui::Tool;

namespace {

// 64 x 48 cells in a 640 x 480 view: fitted at 10 pixels per cell, no margin.
constexpr int kWidth = 64;
constexpr int kHeight = 48;

void setBlank(MapDocument& doc) {
    GridMap map(kWidth, kHeight);
    map.start = Cell{0, kHeight - 1};
    map.goal = Cell{kWidth - 1, kHeight - 1};
    doc.setMap(std::move(map), QStringLiteral("blank"));
}

QPoint centreOf(int x, int y) { return QPoint(x * 10 + 5, y * 10 + 5); }

struct Fixture {
    MapDocument doc;
    MapView view{&doc};
    Fixture() {
        setBlank(doc);
        view.resize(640, 480);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
    }
};

int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
    return int(colours.size());
}

}  // namespace

class TestMapView : public QObject {
    Q_OBJECT

private slots:
    void fitAndCellAt();
    void zoomKeepsAnchor();
    void zoomIsClamped();
    void wheelZoomsAtCursor();
    void wallDragAndUndo();
    void eraseWithBrush();
    void rectAndLineTools();
    void fillTool();
    void endpointDrag();
    void rightDragPans();
    void keysZoomAndPan();
    void hoveredCellSignal();
    void renderImage();
    void renderZoomedOutShowsBlocks();
    void overlayIsDrawn();
    void tileGreyIsFractionFree();
    void tilesRefreshOnlyWhereChanged();
    void newMapDialog();
};

void TestMapView::fitAndCellAt() {
    Fixture f;
    f.view.fitToView();
    QCOMPARE(f.view.zoom(), 10.0);
    QCOMPARE(f.view.cellAt(QPointF(0.5, 0.5)), QPoint(0, 0));
    QCOMPARE(f.view.cellAt(QPointF(639.5, 479.5)), QPoint(63, 47));
    QCOMPARE(f.view.cellAt(centreOf(17, 9)), QPoint(17, 9));
    QCOMPARE(f.view.cellAt(QPointF(-3, 5)), QPoint(-1, 0));  // outside the map is fine

    f.view.resize(320, 480);  // still auto-fitting: half the zoom, centred vertically
    QCOMPARE(f.view.zoom(), 5.0);
    QCOMPARE(f.view.cellAt(QPointF(160, 240)), QPoint(32, 24));
}

void TestMapView::zoomKeepsAnchor() {
    Fixture f;
    QSignalSpy zoomed(&f.view, &MapView::zoomChanged);
    const QPointF anchor(123.0, 77.0);
    const QPoint cell = f.view.cellAt(anchor);
    f.view.zoomBy(2.0, anchor);
    QCOMPARE(f.view.zoom(), 20.0);
    QCOMPARE(f.view.cellAt(anchor), cell);
    f.view.zoomBy(0.3, anchor);
    QCOMPARE(f.view.cellAt(anchor), cell);
    QCOMPARE(zoomed.count(), 2);
    QCOMPARE(zoomed.last().at(0).toDouble(), f.view.zoom());
    // Up to the clamp and beyond: still the same cell.
    const QPointF probe(300.25, 200.75);
    const QPoint before = f.view.cellAt(probe);
    for (int i = 0; i < 10; ++i) f.view.zoomBy(1.25, probe);
    QCOMPARE(f.view.cellAt(probe), before);
}

void TestMapView::zoomIsClamped() {
    Fixture f;
    for (int i = 0; i < 100; ++i) f.view.zoomIn();
    QCOMPARE(f.view.zoom(), 64.0);
    for (int i = 0; i < 200; ++i) f.view.zoomOut();
    QCOMPARE(f.view.zoom(), 1.0 / 64.0);
}

void TestMapView::wheelZoomsAtCursor() {
    Fixture f;
    const QPointF at = centreOf(40, 30);
    QWheelEvent wheel(at, f.view.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&f.view, &wheel);
    QCOMPARE(f.view.zoom(), 12.5);
    QCOMPARE(f.view.cellAt(at), QPoint(40, 30));
}

void TestMapView::wallDragAndUndo() {
    Fixture f;
    const GridMap before = f.doc.map();
    f.view.setTool(Tool::Wall);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(5, 5));
    QTest::mouseMove(&f.view, centreOf(12, 5));  // a fast drag: the cells between are filled
    QTest::mouseMove(&f.view, centreOf(20, 5));
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(20, 5));
    for (int x = 0; x < kWidth; ++x) QCOMPARE(f.doc.map().passable(x, 5), x < 5 || x > 20);
    QCOMPARE(f.doc.undoStack()->count(), 1);
    f.doc.undoStack()->undo();
    QVERIFY(f.doc.map() == before);
}

void TestMapView::eraseWithBrush() {
    Fixture f;
    f.doc.paintRect(QRect(0, 0, kWidth, 20), true);
    const GridMap walled = f.doc.map();
    f.view.setTool(Tool::Erase);
    f.view.setBrushSize(3);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(10, 10));
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(10, 10));
    QCOMPARE(int(f.doc.map().passable_count()), int(walled.passable_count()) + 9);
    QVERIFY(f.doc.map().passable(9, 9) && f.doc.map().passable(11, 11));
    f.doc.undoStack()->undo();
    QVERIFY(f.doc.map() == walled);
}

void TestMapView::rectAndLineTools() {
    Fixture f;
    f.view.setTool(Tool::Rect);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(8, 6));
    QTest::mouseMove(&f.view, centreOf(4, 2));
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(4, 2));
    QCOMPARE(int(f.doc.map().cell_count() - f.doc.map().passable_count()), 25);
    QVERIFY(!f.doc.map().passable(4, 2) && !f.doc.map().passable(8, 6));

    // Shift erases; Escape cancels a drag.
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::ShiftModifier, centreOf(5, 3));
    QTest::mouseMove(&f.view, centreOf(7, 5));
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::ShiftModifier, centreOf(7, 5));
    QCOMPARE(int(f.doc.map().cell_count() - f.doc.map().passable_count()), 16);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(30, 30));
    QTest::mouseMove(&f.view, centreOf(40, 40));
    QTest::keyClick(&f.view, Qt::Key_Escape);
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(40, 40));
    QCOMPARE(f.doc.undoStack()->count(), 2);

    f.view.setTool(Tool::Line);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(20, 10));
    QTest::mouseMove(&f.view, centreOf(30, 20));
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(30, 20));
    QCOMPARE(f.doc.undoStack()->count(), 3);
    for (int i = 0; i <= 10; ++i) QVERIFY(!f.doc.map().passable(20 + i, 10 + i));
}

void TestMapView::fillTool() {
    Fixture f;
    f.doc.paintRect(QRect(0, 10, kWidth, 1), true);  // splits the map in two
    f.view.setTool(Tool::Fill);
    QTest::mouseClick(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(30, 3));
    for (int y = 0; y <= 10; ++y) QVERIFY(!f.doc.map().passable(30, y));
    QVERIFY(f.doc.map().passable(30, 11));
    // Clicking walls clears their region: the top block and the separating row.
    QTest::mouseClick(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(30, 3));
    QCOMPARE(f.doc.map().passable_count(), f.doc.map().cell_count());
    QCOMPARE(f.doc.undoStack()->count(), 3);
}

void TestMapView::endpointDrag() {
    Fixture f;
    f.doc.paintRect(QRect(15, 10, 1, 1), true);
    const auto start = f.doc.map().start;
    f.view.setTool(Tool::Start);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(10, 10));
    QTest::mouseMove(&f.view, centreOf(12, 10));
    QTest::mouseMove(&f.view, centreOf(15, 10));  // a wall: the marker stays where it was
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(15, 10));
    QCOMPARE(*f.doc.map().start, (Cell{12, 10}));
    QCOMPARE(f.doc.undoStack()->count(), 2);  // the wall, and the whole drag
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.map().start, start);

    f.view.setTool(Tool::Goal);
    QTest::mouseClick(&f.view, Qt::LeftButton, Qt::NoModifier, centreOf(3, 4));
    QCOMPARE(*f.doc.map().goal, (Cell{3, 4}));
}

void TestMapView::rightDragPans() {
    Fixture f;
    f.view.setTool(Tool::Wall);
    const GridMap before = f.doc.map();
    QTest::mousePress(&f.view, Qt::RightButton, Qt::NoModifier, QPoint(300, 200));
    QTest::mouseMove(&f.view, QPoint(350, 230));
    QTest::mouseRelease(&f.view, Qt::RightButton, Qt::NoModifier, QPoint(350, 230));
    QCOMPARE(f.view.cellAt(QPointF(55, 35)), QPoint(0, 0));  // moved by (50, 30) pixels
    QVERIFY(f.doc.map() == before);                          // panning draws nothing

    f.view.setTool(Tool::Pan);
    QTest::mousePress(&f.view, Qt::LeftButton, Qt::NoModifier, QPoint(350, 230));
    QTest::mouseMove(&f.view, QPoint(300, 200));
    QTest::mouseRelease(&f.view, Qt::LeftButton, Qt::NoModifier, QPoint(300, 200));
    QCOMPARE(f.view.cellAt(QPointF(5, 5)), QPoint(0, 0));
    QCOMPARE(f.doc.undoStack()->count(), 0);
}

void TestMapView::keysZoomAndPan() {
    Fixture f;
    QTest::keyClick(&f.view, Qt::Key_Plus);
    QCOMPARE(f.view.zoom(), 12.5);
    QTest::keyClick(&f.view, Qt::Key_Minus);
    QCOMPARE(f.view.zoom(), 10.0);
    const QPointF probe(325, 245);  // mid-cell: rounding after zooming cannot move it
    const QPoint before = f.view.cellAt(probe);
    QTest::keyClick(&f.view, Qt::Key_Right);  // an eighth of the width: 80 px, 8 cells
    QCOMPARE(f.view.cellAt(probe), before + QPoint(8, 0));
    QTest::keyClick(&f.view, Qt::Key_Home);
    QCOMPARE(f.view.cellAt(probe), QPoint(32, 24));
}

void TestMapView::hoveredCellSignal() {
    Fixture f;
    QSignalSpy hovered(&f.view, &MapView::hoveredCell);
    QTest::mouseMove(&f.view, centreOf(7, 9));
    QVERIFY(hovered.count() >= 1);
    QCOMPARE(hovered.last().at(0).toInt(), 7);
    QCOMPARE(hovered.last().at(1).toInt(), 9);
    QCOMPARE(hovered.last().at(2).toBool(), true);
    f.view.zoomBy(0.5, QPointF(320, 240));  // the map no longer fills the view
    QTest::mouseMove(&f.view, QPoint(2, 2));
    QCOMPARE(hovered.last().at(2).toBool(), false);
}

void TestMapView::renderImage() {
    Fixture f;
    f.doc.paintRect(QRect(10, 10, 20, 10), true);
    for (const QSize size : {QSize(200, 150), QSize(64, 300), QSize(1000, 700)}) {
        const QImage image = f.view.renderImage(size);
        QCOMPARE(image.size(), size);
        QVERIFY(distinctColours(image) >= 3);  // background, free, walls (and markers)
    }
    // 200 x 150 fits 64 x 48 cells at 3.125 px per cell: the wall block is dark, free is light.
    const QImage image = f.view.renderImage(QSize(200, 150));
    QVERIFY(qGray(image.pixel(int(20 * 3.125), int(15 * 3.125))) < 100);
    QVERIFY(qGray(image.pixel(int(45 * 3.125), int(30 * 3.125))) > 200);
}

void TestMapView::renderZoomedOutShowsBlocks() {
    // 1024^2 with the left half walls, fitted into 256^2: drawn from pyramid level 2.
    MapDocument doc;
    GridMap map(1024, 1024);
    for (int y = 0; y < 1024; ++y)
        for (int x = 0; x < 512; ++x) map.set_passable(x, y, false);
    doc.setMap(std::move(map), QStringLiteral("half"));
    MapView view(&doc);
    const QImage image = view.renderImage(QSize(256, 256));
    QVERIFY(qGray(image.pixel(60, 128)) < 100);
    QVERIFY(qGray(image.pixel(200, 128)) > 200);
    // An edit shows up in the next render (only the touched tiles are rebuilt).
    doc.paintRect(QRect(600, 0, 400, 1024), true);
    const QImage edited = view.renderImage(QSize(256, 256));
    QVERIFY(qGray(edited.pixel(200, 128)) < 100);
    doc.undoStack()->undo();
    QVERIFY(qGray(view.renderImage(QSize(256, 256)).pixel(200, 128)) > 200);
}

void TestMapView::overlayIsDrawn() {
    Fixture f;
    auto overlay = std::make_shared<ps::ui::Overlay>();
    overlay->cells = QImage(kWidth, kHeight, QImage::Format_Indexed8);
    overlay->cells.setColorTable({qRgba(0, 0, 0, 0), qRgba(255, 0, 255, 255)});
    overlay->cells.fill(0);
    for (int y = 20; y < 30; ++y)
        for (int x = 20; x < 30; ++x) overlay->cells.setPixel(x, y, 1);
    overlay->path = {QPoint(0, 0), QPoint(63, 0)};
    f.view.setOverlay(overlay);
    const QImage image = f.view.renderImage(QSize(640, 480));
    QCOMPARE(image.pixel(centreOf(25, 25)), qRgb(255, 0, 255));
    QVERIFY(image.pixel(centreOf(10, 30)) != qRgb(255, 0, 255));
    QVERIFY(qGray(image.pixel(centreOf(30, 0))) < 200);  // the path across the top row
    f.view.setOverlay(nullptr);
    QVERIFY(f.view.renderImage(QSize(640, 480)).pixel(centreOf(25, 25)) != qRgb(255, 0, 255));
}

void TestMapView::tileGreyIsFractionFree() {
    MapDocument doc;
    GridMap map(8, 8);
    // Level 1 blocks: (0, 0) has 1 wall of 4 cells, (1, 0) 4 walls, (3, 3) none.
    map.set_passable(0, 0, false);
    for (int x = 2; x < 4; ++x)
        for (int y = 0; y < 2; ++y) map.set_passable(x, y, false);
    doc.setMap(std::move(map), QStringLiteral("t"));
    ps::ui::MapTiles tiles(&doc);
    tiles.setColours(Qt::black, Qt::white);
    QCOMPARE(tiles.levelFor(1.0), 0);
    QCOMPARE(tiles.levelFor(0.91), 0);
    QCOMPARE(tiles.levelFor(0.85), 1);
    QCOMPARE(tiles.levelFor(0.5), 1);
    QCOMPARE(tiles.levelFor(0.46), 1);
    QCOMPARE(tiles.levelFor(0.44), 2);
    QCOMPARE(tiles.levelFor(0.25), 2);
    const auto level1 = tiles.tiles(1, QRect(0, 0, 8, 8));
    QCOMPARE(int(level1.size()), 1);
    const QImage& image = level1.front()->image;
    QCOMPARE(image.size(), QSize(4, 4));
    QCOMPARE(qGray(image.pixel(0, 0)), 191);  // 3 of 4 free
    QCOMPARE(qGray(image.pixel(1, 0)), 0);
    QCOMPARE(qGray(image.pixel(3, 3)), 255);
}

void TestMapView::tilesRefreshOnlyWhereChanged() {
    MapDocument doc;
    doc.setMap(GridMap(600, 300), QStringLiteral("t"));
    ps::ui::MapTiles tiles(&doc);
    tiles.setColours(Qt::black, Qt::white);
    QObject::connect(&doc, &MapDocument::cellsChanged, &doc, [&](const QRect& r) { tiles.invalidate(r); });
    const auto all = tiles.tiles(0, QRect(0, 0, 600, 300));
    QCOMPARE(int(all.size()), 6);                // 3 x 2 tiles of 256 cells
    const QImage untouched = all.back()->image;  // shares the tile's pixels until it detaches
    doc.paintRect(QRect(10, 10, 5, 5), true);
    const auto again = tiles.tiles(0, QRect(0, 0, 600, 300));
    QCOMPARE(qGray(again.front()->image.pixel(12, 12)), 0);
    QCOMPARE(again.back()->image.constBits(), untouched.constBits());  // not rebuilt
}

void TestMapView::newMapDialog() {
    ps::ui::NewMapDialog dialog;
    ps::GeneratorParams p;
    p.kind = ps::GeneratorKind::Maze;
    p.width = p.height = 8;
    p.corridor_width = 5;
    dialog.setParams(p);
    dialog.accept();  // refused by generate_map: stays open with the reason
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY2(dialog.errorText().contains(QStringLiteral("too small")), qPrintable(dialog.errorText()));

    p.corridor_width = 1;
    p.seed = 42;
    dialog.setParams(p);
    QCOMPARE(dialog.params()->corridor_width, 1);
    QCOMPARE(dialog.params()->seed, std::uint64_t(42));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(dialog.errorText().isEmpty());
    QVERIFY(dialog.takeMap() == ps::generate_map(p).value());

    // Every generator is offered, the recursive-division maze included, and odd sizes work.
    p.kind = ps::GeneratorKind::Division;
    p.width = 31;
    p.height = 17;
    dialog.setParams(p);
    QCOMPARE(dialog.params()->kind, ps::GeneratorKind::Division);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(dialog.takeMap() == ps::generate_map(p).value());

    // Rooms: the room size and density reach the generator.
    p.kind = ps::GeneratorKind::Rooms;
    p.width = 65;
    p.height = 40;
    p.room_size = 8;
    p.density = 1.0;
    dialog.setParams(p);
    QCOMPARE(dialog.params()->kind, ps::GeneratorKind::Rooms);
    QCOMPARE(dialog.params()->room_size, 8);
    QCOMPARE(dialog.params()->density, 1.0);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const GridMap rooms = dialog.takeMap();
    QVERIFY(rooms == ps::generate_map(p).value());
    QVERIFY(!rooms.passable(8, 8));  // where the first wall column and row cross
    p.room_size = 16;
    QVERIFY(!(rooms == ps::generate_map(p).value()));

    // Streets: no parameters of their own, so every kind-specific field is off; the map is the
    // generator's, and another seed gives another city.
    p.kind = ps::GeneratorKind::Streets;
    p.width = 300;
    p.height = 200;
    p.seed = 5;
    dialog.setParams(p);
    QCOMPARE(dialog.params()->kind, ps::GeneratorKind::Streets);
    const auto disabled = [&](const char* name) {
        const auto* w = dialog.findChild<QWidget*>(QString::fromLatin1(name));
        return w != nullptr && !w->isEnabled();
    };
    for (const char* field : {"density", "corridor", "room"}) QVERIFY2(disabled(field), field);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const GridMap streets = dialog.takeMap();
    QVERIFY(streets == ps::generate_map(p).value());
    p.seed = 6;
    QVERIFY(!(streets == ps::generate_map(p).value()));
}

QTEST_MAIN(TestMapView)
#include "test_map_view.moc"
