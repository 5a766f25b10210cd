// Weighted terrain in the GUI (issue 19): the palette and the Terrain tool paint costs, one undo
// step per stroke, undo and redo restore every cell's cost; weighted maps round-trip through
// MapDocument as .map (the 'costs' text) and as PNG (grey level = cost), MovingAI swamp and
// water letters open at chosen costs, plain maps save as before; the tiles draw terrain apart
// from floor and walls; the run panel turns off the variants that ignore costs, with the reason;
// the status line says the cost under the cursor.
#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>
#include <random>

#include "kernels/map/map_io.hpp"
#include "ui/map/cost_palette.hpp"
#include "ui/map/map_document.hpp"
#include "ui/map/map_tiles.hpp"
#include "ui/map/map_view.hpp"
#include "ui/map/terrain_open_dialog.hpp"
#include "ui/run/run_panel.hpp"
#include "ui/shell/demo_scene.hpp"
#include "ui/shell/main_window.hpp"

using namespace ps;
using namespace ps::ui;

namespace {

constexpr int kRunTimeoutMs = 60000;

// An open map with the endpoints in the bottom corners.
GridMap blank(int width, int height) {
    GridMap map(width, height);
    map.start = Cell{0, height - 1};
    map.goal = Cell{width - 1, height - 1};
    return map;
}

// Every cost 0..255 somewhere (seeded), the endpoints on plain floor.
GridMap randomCosts(int width, int height, unsigned seed) {
    GridMap map = blank(width, height);
    std::mt19937 random(seed);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) map.set_cost(x, y, std::uint8_t(random() % 256));
    for (Cell c : {*map.start, *map.goal}) map.set_cost(c.x, c.y, 1);
    return map;
}

// Cell by cell, so a failure names the cell.
void compareCosts(const GridMap& actual, const GridMap& expected) {
    QCOMPARE(actual.width(), expected.width());
    QCOMPARE(actual.height(), expected.height());
    for (int y = 0; y < expected.height(); ++y)
        for (int x = 0; x < expected.width(); ++x)
            QVERIFY2(actual.cost(x, y) == expected.cost(x, y),
                     qPrintable(QStringLiteral("cell (%1, %2): cost %3, expected %4")
                                    .arg(x)
                                    .arg(y)
                                    .arg(actual.cost(x, y))
                                    .arg(expected.cost(x, y))));
}

// The widget position of a cell's centre (the view fits the map; found through cellAt).
QPoint pointOf(const MapView& view, Cell cell) {
    for (int y = 0; y < view.height(); ++y)
        for (int x = 0; x < view.width(); ++x)
            if (view.cellAt(QPointF(x, y)) == QPoint(cell.x, cell.y) &&
                view.cellAt(QPointF(x + view.zoom() / 2, y + view.zoom() / 2)) == QPoint(cell.x, cell.y))
                return QPoint(int(x + view.zoom() / 2), int(y + view.zoom() / 2));
    return {-1, -1};
}

void drag(MapView& view, Cell from, Cell to) {
    QTest::mousePress(&view, Qt::LeftButton, Qt::NoModifier, pointOf(view, from));
    QTest::mouseMove(&view, pointOf(view, to));
    QTest::mouseRelease(&view, Qt::LeftButton, Qt::NoModifier, pointOf(view, to));
}

QTreeWidgetItem* variantItem(RunPanel& panel, const QString& id) {
    auto* tree = panel.findChild<QTreeWidget*>();
    if (!tree) return nullptr;
    const auto items = tree->findItems(id, Qt::MatchExactly | Qt::MatchRecursive);
    return items.size() == 1 ? items.front() : nullptr;
}

}  // namespace

class TestWeightedTerrain : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void paletteStrokeUndoRedo();
    void wallAndEraseOverTerrain();
    void editsOverMixedCostsUndoExactly();
    void weightedTracksEdits();
    void mapRoundTrip();
    void pngRoundTrip();
    void movingAiLettersAtChosenCosts();
    void openDialogOptions();
    void plainMapSavesAsBefore();
    void tilesColourTerrain();
    void legendOnWeightedMapsOnly();
    void runPanelRefusesCostBlindVariants();
    void statusLineShowsCost();
    void demoMapMakesAStarDetour();

private:
    QTemporaryDir m_dir;
};

void TestWeightedTerrain::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
    QCoreApplication::setOrganizationName("PathScopeTest");
    QCoreApplication::setApplicationName("test_weighted_terrain");
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

// The window's palette picks the cost and the Terrain tool; a drag paints one undo step.
void TestWeightedTerrain::paletteStrokeUndoRedo() {
    MainWindow window(m_dir.filePath(QStringLiteral("palette.sqlite")));
    window.setPromptsEnabled(false);
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.document()->setMap(blank(32, 16), QStringLiteral("t"));
    MapView* view = window.mapView();
    auto* palette = window.findChild<CostPalette*>();
    QVERIFY(palette);
    auto* preset = palette->findChild<QToolButton*>(QStringLiteral("cost20"));
    QVERIFY(preset);
    QCOMPARE(view->tool(), Tool::Wall);
    QTest::mouseClick(preset, Qt::LeftButton);
    QCOMPARE(view->tool(), Tool::Terrain);
    QCOMPARE(view->paintCost(), 20);
    QVERIFY(preset->isChecked());

    const GridMap before = window.document()->map();
    const int steps = window.document()->undoStack()->count();
    drag(*view, {4, 8}, {20, 8});
    const GridMap after = window.document()->map();
    QCOMPARE(window.document()->undoStack()->count(), steps + 1);
    for (int x = 0; x < 32; ++x) QCOMPARE(int(after.cost(x, 8)), x >= 4 && x <= 20 ? 20 : 1);
    QCOMPARE(int(after.cost(4, 7)), 1);
    QVERIFY(window.document()->weighted());

    window.document()->undoStack()->undo();
    compareCosts(window.document()->map(), before);
    QVERIFY(!window.document()->weighted());
    window.document()->undoStack()->redo();
    compareCosts(window.document()->map(), after);
    QVERIFY(window.document()->weighted());

    // A custom cost from the spin box: no preset stays checked, the next stroke paints it.
    auto* custom = palette->findChild<QSpinBox*>(QStringLiteral("customCost"));
    QVERIFY(custom);
    custom->setValue(7);
    QCOMPARE(view->paintCost(), 7);
    QVERIFY(!preset->isChecked());
    drag(*view, {10, 2}, {10, 12});
    QCOMPARE(int(window.document()->map().cost(10, 2)), 7);
    QCOMPARE(int(window.document()->map().cost(10, 8)), 7);  // over the band of 20
    window.document()->undoStack()->undo();
    compareCosts(window.document()->map(), after);  // the 20 under it is back
}

void TestWeightedTerrain::wallAndEraseOverTerrain() {
    MapDocument doc;
    MapView view(&doc);
    view.resize(640, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    doc.setMap(blank(64, 32), QStringLiteral("t"));
    view.setTool(Tool::Terrain);
    view.setPaintCost(50);
    drag(view, {5, 5}, {30, 5});
    QCOMPARE(int(doc.map().cost(12, 5)), 50);
    view.setTool(Tool::Wall);
    drag(view, {12, 2}, {12, 9});
    QCOMPARE(int(doc.map().cost(12, 5)), 0);
    QCOMPARE(int(doc.map().cost(11, 5)), 50);
    view.setTool(Tool::Erase);
    drag(view, {10, 5}, {14, 5});
    for (int x = 10; x <= 14; ++x) QCOMPARE(int(doc.map().cost(x, 5)), 1);  // erase = plain floor
    QCOMPARE(int(doc.map().cost(12, 4)), 0);
    doc.undoStack()->undo();
    QCOMPARE(int(doc.map().cost(12, 5)), 0);
    QCOMPARE(int(doc.map().cost(10, 5)), 50);
    doc.undoStack()->undo();
    QCOMPARE(int(doc.map().cost(12, 5)), 50);
}

// Strokes, lines, rectangles and fills over cells of many costs: each undo restores every
// cell's own old cost (not just "wall or not"), and redo the edit.
void TestWeightedTerrain::editsOverMixedCostsUndoExactly() {
    MapDocument doc;
    doc.setMap(randomCosts(40, 30, 7), QStringLiteral("t"));
    std::vector<GridMap> states{doc.map()};
    doc.beginCostStroke(0, 3);
    doc.strokeTo({2, 2});
    doc.strokeTo({35, 20});
    doc.endStroke();
    states.push_back(doc.map());
    doc.paintCostLine({0, 29}, {39, 0}, 255, 2);
    states.push_back(doc.map());
    doc.paintCostRect(QRect(5, 5, 20, 10), 10);
    states.push_back(doc.map());
    doc.fillCost({10, 10}, 2);  // the rectangle of 10s, all of it
    states.push_back(doc.map());
    for (int y = 5; y < 15; ++y)
        for (int x = 5; x < 25; ++x) QCOMPARE(int(doc.map().cost(x, y)), 2);
    QCOMPARE(doc.undoStack()->count(), 4);
    for (int i = 4; i > 0; --i) {
        doc.undoStack()->undo();
        compareCosts(doc.map(), states[std::size_t(i - 1)]);
    }
    for (int i = 1; i <= 4; ++i) {
        doc.undoStack()->redo();
        compareCosts(doc.map(), states[std::size_t(i)]);
    }
}

void TestWeightedTerrain::weightedTracksEdits() {
    MapDocument doc;
    QSignalSpy changed(&doc, &MapDocument::weightedChanged);
    doc.setMap(blank(16, 16), QStringLiteral("plain"));
    QVERIFY(!doc.weighted());
    QCOMPARE(changed.count(), 0);
    doc.paintCostRect(QRect(2, 2, 3, 3), 5);
    QVERIFY(doc.weighted());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().at(0).toBool(), true);
    doc.paintCostRect(QRect(2, 2, 2, 3), 0);  // walls over part of it: still weighted
    QVERIFY(doc.weighted());
    doc.paintCostRect(QRect(4, 2, 1, 3), 1);  // the last terrain erased
    QVERIFY(!doc.weighted());
    QCOMPARE(changed.count(), 2);
    doc.undoStack()->undo();
    QVERIFY(doc.weighted());
    doc.setMap(randomCosts(8, 8, 3), QStringLiteral("costs"));
    QVERIFY(doc.weighted());
    QCOMPARE(doc.weighted(), doc.map().weighted());
}

void TestWeightedTerrain::mapRoundTrip() {
    const QString path = m_dir.filePath(QStringLiteral("terrain.map"));
    MapDocument doc;
    doc.setMap(randomCosts(37, 23, 11), QStringLiteral("t"));
    QString error;
    QVERIFY2(doc.save(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("\ncosts\n"));  // PathScope's weighted format, not MovingAI letters
    MapDocument loaded;
    QVERIFY2(loaded.load(path, &error), qPrintable(error));
    compareCosts(loaded.map(), doc.map());
    QVERIFY(loaded.weighted());
    QVERIFY(!loaded.isModified());
}

void TestWeightedTerrain::pngRoundTrip() {
    const QString path = m_dir.filePath(QStringLiteral("terrain.png"));
    MapDocument doc;
    doc.setMap(randomCosts(37, 23, 12), QStringLiteral("t"));
    QString error;
    QVERIFY2(doc.save(path, &error), qPrintable(error));
    const QImage image(path);
    QCOMPARE(image.size(), QSize(37, 23));
    QVERIFY(image.isGrayscale());
    for (int y = 0; y < 23; ++y)
        for (int x = 0; x < 37; ++x) QCOMPARE(qGray(image.pixel(x, y)), int(doc.map().cost(x, y)));
    MapReadOptions costs;
    costs.imageCosts = true;
    MapDocument loaded;
    QVERIFY2(loaded.load(path, &error, costs), qPrintable(error));
    compareCosts(loaded.map(), doc.map());
    // Read as walls (a plain open), the same file has only walls and floor.
    MapDocument walls;
    QVERIFY2(walls.load(path, &error), qPrintable(error));
    QVERIFY(!walls.weighted());
    QCOMPARE(walls.map().passable(0, 0), doc.map().cost(0, 0) >= 128);

    // A PGM's grey levels are costs too (.pgm is accepted like .png).
    const QString pgm = m_dir.filePath(QStringLiteral("terrain.pgm"));
    QFile out(pgm);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray("P5\n3 2\n255\n") + QByteArray("\x00\x01\x05\x14\xff\x02", 6));
    out.close();
    QVERIFY2(loaded.load(pgm, &error, costs), qPrintable(error));
    const int expected[] = {0, 1, 5, 20, 255, 2};
    for (int i = 0; i < 6; ++i) QCOMPARE(int(loaded.map().cost(i % 3, i / 3)), expected[i]);
}

void TestWeightedTerrain::movingAiLettersAtChosenCosts() {
    const QString path = m_dir.filePath(QStringLiteral("letters.map"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write("type octile\nheight 2\nwidth 4\nmap\n.SW@\nSS..\n");
    out.close();
    MapReadOptions options;
    options.terrain = TerrainCosts{5, 20};
    QString error;
    MapDocument doc;
    QVERIFY2(doc.load(path, &error, options), qPrintable(error));
    const int expected[] = {1, 5, 20, 0, 5, 5, 1, 1};
    for (int i = 0; i < 8; ++i) QCOMPARE(int(doc.map().cost(i % 4, i / 4)), expected[i]);
    QVERIFY(doc.weighted());
    // The benchmark's reading by default: swamp is floor, water a wall.
    QVERIFY2(doc.load(path, &error), qPrintable(error));
    QVERIFY(!doc.weighted());
    QCOMPARE(int(doc.map().cost(1, 0)), 1);
    QCOMPARE(int(doc.map().cost(2, 0)), 0);
}

// The dialog of File > Open as weighted terrain shows what applies to the file and hands it on.
void TestWeightedTerrain::openDialogOptions() {
    TerrainOpenDialog forMap(QStringLiteral("game.MAP"));
    auto* swamp = forMap.findChild<QSpinBox*>(QStringLiteral("swampCost"));
    auto* water = forMap.findChild<QSpinBox*>(QStringLiteral("waterCost"));
    QVERIFY(swamp && water);
    QVERIFY(!forMap.findChild<QCheckBox*>(QStringLiteral("greyCosts")));
    swamp->setValue(3);
    water->setValue(0);  // water stays a wall
    MapReadOptions options = forMap.options();
    QCOMPARE(int(options.terrain.swamp), 3);
    QCOMPARE(int(options.terrain.water), 0);
    QVERIFY(!options.imageCosts);

    TerrainOpenDialog forImage(QStringLiteral("heights.pgm"));
    auto* grey = forImage.findChild<QCheckBox*>(QStringLiteral("greyCosts"));
    QVERIFY(grey);
    QVERIFY(!forImage.findChild<QSpinBox*>(QStringLiteral("swampCost")));
    grey->setChecked(true);
    QVERIFY(forImage.options().imageCosts);
    grey->setChecked(false);
    QVERIFY(!forImage.options().imageCosts);
}

void TestWeightedTerrain::plainMapSavesAsBefore() {
    GridMap plain = blank(20, 10);
    for (int x = 3; x < 15; ++x) plain.set_cost(x, 4, 0);
    MapDocument doc;
    doc.setMap(plain, QStringLiteral("plain"));
    QString error;
    const QString mapPath = m_dir.filePath(QStringLiteral("plain.map"));
    QVERIFY2(doc.save(mapPath, &error), qPrintable(error));
    QFile file(mapPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("\nmap\n"));
    QVERIFY(!text.contains("costs"));
    QCOMPARE(text, QByteArray::fromStdString(format_movingai_map(doc.map())));
    const QString pngPath = m_dir.filePath(QStringLiteral("plain.png"));
    QVERIFY2(doc.save(pngPath, &error), qPrintable(error));
    const QImage image(pngPath);
    QCOMPARE(image.depth(), 1);  // one bit per cell, black walls on white, as before
    for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 20; ++x)
            QCOMPARE(image.pixel(x, y), plain.passable(x, y) ? qRgb(255, 255, 255) : qRgb(0, 0, 0));
}

void TestWeightedTerrain::tilesColourTerrain() {
    MapDocument doc;
    GridMap map = blank(8, 8);
    map.set_cost(0, 0, 0);
    map.set_cost(2, 0, 5);
    map.set_cost(3, 0, 20);
    map.set_cost(4, 0, 255);
    for (int y = 4; y < 6; ++y)  // a level-1 block all of cost 20
        for (int x = 4; x < 6; ++x) map.set_cost(x, y, 20);
    doc.setMap(std::move(map), QStringLiteral("t"));
    MapTiles tiles(&doc);
    tiles.setColours(QColor(0x3a, 0x3d, 0x42), QColor(0xfa, 0xfa, 0xf7));
    const auto level0 = tiles.tiles(0, QRect(0, 0, 8, 8));
    QCOMPARE(int(level0.size()), 1);
    const QImage& image = level0.front()->image;
    const QRgb wall = image.pixel(0, 0), floor = image.pixel(1, 0);
    const QRgb swamp = image.pixel(2, 0), water = image.pixel(3, 0), dearest = image.pixel(4, 0);
    QCOMPARE(wall, qRgb(0x3a, 0x3d, 0x42));
    QCOMPARE(floor, qRgb(0xfa, 0xfa, 0xf7));
    for (QRgb terrain : {swamp, water, dearest}) {
        QVERIFY(terrain != wall);
        QVERIFY(terrain != floor);
    }
    // Light to dark by cost.
    QVERIFY(qGray(floor) > qGray(swamp));
    QVERIFY(qGray(swamp) > qGray(water));
    QVERIFY(qGray(water) > qGray(dearest));
    QCOMPARE(swamp, tiles.cellColour(5));
    // Zoomed out, a block of terrain keeps its colour; a block of floor stays floor.
    const auto level1 = tiles.tiles(1, QRect(0, 0, 8, 8));
    const QImage& coarse = level1.front()->image;
    QCOMPARE(coarse.pixel(2, 2), water);
    QCOMPARE(coarse.pixel(3, 3), floor);
    // A view draws the same colour as the tiles for each cost.
    MapView view(&doc);
    QVERIFY(view.cellColour(20) != view.cellColour(1));
    QVERIFY(view.cellColour(20) != view.cellColour(0));
}

// The legend sits in the bottom-left corner of a weighted map's view (here over the background
// below a wide map), and plain maps show none.
void TestWeightedTerrain::legendOnWeightedMapsOnly() {
    MapDocument doc;
    doc.setMap(blank(64, 16), QStringLiteral("plain"));
    MapView view(&doc);
    view.resize(640, 320);
    const QPoint corner(14, 320 - 14);
    const QRgb background = view.renderImage(QSize(640, 320)).pixel(corner);
    QCOMPARE(background, qRgb(0xb4, 0xb9, 0xc0));  // the light palette's background
    doc.paintCostRect(QRect(20, 0, 10, 16), 50);
    const QImage weighted = view.renderImage(QSize(640, 320));
    QVERIFY(weighted.pixel(corner) != background);
    QVERIFY(qGray(weighted.pixel(corner)) > 230);  // the legend's light box
    doc.undoStack()->undo();
    QCOMPARE(view.renderImage(QSize(640, 320)).pixel(corner), background);
}

void TestWeightedTerrain::runPanelRefusesCostBlindVariants() {
    MapDocument document;
    GridMap plain(32, 24);
    plain.start = Cell{2, 2};
    plain.goal = Cell{29, 2};
    document.setMap(plain, QStringLiteral("plain"));
    RunWorker worker;
    RunPanel panel(&document, &worker);
    QTreeWidgetItem* bfs = variantItem(panel, QStringLiteral("bfs.cpu"));
    QTreeWidgetItem* astar = variantItem(panel, QStringLiteral("astar.cpu"));
    QVERIFY(bfs && astar);
    QVERIFY(!bfs->isDisabled());

    document.paintCostRect(QRect(10, 0, 6, 22), 20);  // water between start and goal, a way round below
    QVERIFY(bfs->isDisabled());
    QVERIFY2(bfs->toolTip(0).contains(QStringLiteral("cost")), qPrintable(bfs->toolTip(0)));
    QVERIFY(!astar->isDisabled());
    panel.selectVariants({QStringLiteral("bfs.cpu"), QStringLiteral("astar.cpu")});
    QCOMPARE(panel.selectedVariants(), QStringList{QStringLiteral("astar.cpu")});

    // astar.cpu searches the terrain: round the water (through rows 22 and 23), not across it
    // as a search that ignores costs would.
    panel.runSelected();
    QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), 1, kRunTimeoutMs);
    const auto outcome = panel.results()->outcome(0);
    QCOMPARE(outcome->report.result.status, RunStatus::Ok);
    QVERIFY(outcome->report.result.found);
    const GridMap& map = *outcome->request.problem.map;
    for (Vertex v : outcome->report.result.path) QCOMPARE(int(map.cost(v)), 1);
    QVERIFY(outcome->report.result.path.size() > 40);  // down to row 22 and back up

    document.undoStack()->undo();  // plain again: BFS is back
    QVERIFY(!bfs->isDisabled());
}

void TestWeightedTerrain::statusLineShowsCost() {
    MainWindow window(m_dir.filePath(QStringLiteral("status.sqlite")));
    window.setPromptsEnabled(false);
    GridMap map = blank(16, 16);
    map.set_cost(3, 4, 5);
    map.set_cost(6, 4, 0);
    window.document()->setMap(map, QStringLiteral("t"));
    auto labelText = [&window] {
        QStringList texts;
        for (QLabel* label : window.statusBar()->findChildren<QLabel*>()) texts << label->text();
        return texts.join(QLatin1Char('|'));
    };
    emit window.mapView()->hoveredCell(3, 4, true);
    QVERIFY2(labelText().contains(QStringLiteral("3, 4 · cost 5")), qPrintable(labelText()));
    emit window.mapView()->hoveredCell(6, 4, true);
    QVERIFY2(labelText().contains(QStringLiteral("6, 4 · wall")), qPrintable(labelText()));
    window.document()->setMap(blank(16, 16), QStringLiteral("plain"));
    emit window.mapView()->hoveredCell(3, 4, true);
    QVERIFY(labelText().contains(QStringLiteral("3, 4")));
    QVERIFY(!labelText().contains(QStringLiteral("cost")));  // plain maps read as before
}

// The README scene's map: weighted, and A*'s cheapest path goes round the lake (no water cell
// on it) while a straight line would cross it.
void TestWeightedTerrain::demoMapMakesAStarDetour() {
    const GridMap map = weightedTerrainDemoMap();
    QVERIFY(map.weighted());
    QVERIFY(map.start && map.goal && map.passable(*map.start) && map.passable(*map.goal));
    QCOMPARE(weightedTerrainDemoMap(), map);  // deterministic
    MapDocument document;
    document.setMap(map, QStringLiteral("weighted-terrain"));
    RunWorker worker;
    RunPanel panel(&document, &worker);
    panel.selectVariants({QStringLiteral("astar.cpu")});
    panel.runSelected();
    QTRY_COMPARE_WITH_TIMEOUT(panel.results()->rowCount(), 1, kRunTimeoutMs);
    const auto outcome = panel.results()->outcome(0);
    QCOMPARE(outcome->report.result.status, RunStatus::Ok);
    int water = 0, swamp = 0;
    for (Vertex v : outcome->report.result.path) {
        water += map.cost(v) == 20;
        swamp += map.cost(v) == 5;
    }
    QCOMPARE(water, 0);
    QVERIFY(swamp > 0);  // the swamp band spans the map: the path crosses it
}

QTEST_MAIN(TestWeightedTerrain)
#include "test_weighted_terrain.moc"
