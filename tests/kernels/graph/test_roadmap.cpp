// Roadmaps: the text and DIMACS formats (hand-written files, round trips, "file:line" errors),
// waypoint generation checked against an independent geometric line-of-sight test and grid
// distances, nearest nodes, components, and random / scenario agents.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "kernels/graph/agents.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/graph/roadmap.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Edges of vertex u as (target, weight), sorted: CSR order is not part of the contract.
std::multiset<std::pair<Vertex, double>> arcs_of(const CsrGraph& g, Vertex u) {
    std::multiset<std::pair<Vertex, double>> out;
    for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) out.insert({g.targets[e], g.weight(e)});
    return out;
}

void expect_same_graph(const CsrGraph& a, const CsrGraph& b) {
    ASSERT_EQ(a.vertex_count(), b.vertex_count());
    ASSERT_EQ(a.edge_count(), b.edge_count());
    for (Vertex v = 0; v < a.vertex_count(); ++v) EXPECT_EQ(arcs_of(a, v), arcs_of(b, v)) << "vertex " << v;
    ASSERT_EQ(a.coords.size(), b.coords.size());
    for (std::size_t i = 0; i < a.coords.size(); ++i) {
        EXPECT_EQ(a.coords[i].x, b.coords[i].x);
        EXPECT_EQ(a.coords[i].y, b.coords[i].y);
        EXPECT_EQ(a.coords[i].z, b.coords[i].z);
    }
}

// A 3-4-5 rectangle: 0 (0,0) - 1 (3,0) - 2 (3,4) - 3 (0,4), a diagonal 0-2 of weight 10 and a
// one-way shortcut 3 -> 0 of weight 1.
const char* kHandRoadmap = R"(pathscope-roadmap 1
# hand-worked
nodes 4
0 0
3 0   # node 1
3 4
0 4
edges 4
0 1        # weight omitted: the Euclidean length 3
1 2 4
2 3
0 2 10
arcs 1
3 0 1
)";

double dijkstra(const CsrGraph& g, Vertex s, Vertex t) {
    const SearchOutput out = astar_graph(g, Heuristic::Zero, s, t);
    return out.found ? out.cost : -1.0;
}

TEST(Roadmap, HandWorkedTextFileHasTheCostsWorkedOutByHand) {
    auto r = parse_roadmap_text(kHandRoadmap, "hand.roadmap");
    ASSERT_TRUE(r) << r.error().message;
    const CsrGraph& g = r->graph;
    EXPECT_EQ(g.vertex_count(), 4u);
    EXPECT_EQ(g.edge_count(), 9u);  // 4 undirected edges both ways + 1 arc
    EXPECT_TRUE(r->node_cells.empty());
    EXPECT_EQ(arcs_of(g, 0), (std::multiset<std::pair<Vertex, double>>{{1, 3.0}, {2, 10.0}}));
    EXPECT_EQ(arcs_of(g, 3), (std::multiset<std::pair<Vertex, double>>{{2, 3.0}, {0, 1.0}}));
    EXPECT_DOUBLE_EQ(dijkstra(g, 0, 2), 7.0);   // 0-1-2 beats the diagonal of weight 10
    EXPECT_DOUBLE_EQ(dijkstra(g, 2, 0), 4.0);   // 2-3 then the one-way arc 3 -> 0
    EXPECT_DOUBLE_EQ(dijkstra(g, 0, 3), 10.0);  // the arc does not run 0 -> 3
    // Weights / lengths: 1, 1, 1, 2 and 1/4 for the arc: the admissible scale is 1/4.
    EXPECT_DOUBLE_EQ(euclidean_heuristic_scale(g), 0.25);
    EXPECT_EQ(nearest_node(*r, 2.9, 3.0), 2u);
    EXPECT_EQ(nearest_node(*r, -5, -5), 0u);
}

TEST(Roadmap, TextRoundTripKeepsGraphCellsAndDirection) {
    // Directed (the arc) and undirected graphs both survive write + read.
    auto hand = parse_roadmap_text(kHandRoadmap, "hand.roadmap");
    ASSERT_TRUE(hand);
    auto again = parse_roadmap_text(format_roadmap_text(*hand), "again");
    ASSERT_TRUE(again) << again.error().message;
    expect_same_graph(hand->graph, again->graph);

    const GridMap map = test::random_map(37, 29, 0.2, 5);
    auto wp = waypoint_roadmap(map, {4, 0, {}});
    ASSERT_TRUE(wp) << wp.error().message;
    const std::string path = test::temp_path("round.roadmap");
    ASSERT_TRUE(write_roadmap(*wp, path));
    auto back = read_roadmap(path);
    ASSERT_TRUE(back) << back.error().message;
    expect_same_graph(wp->graph, back->graph);
    EXPECT_EQ(back->node_cells, wp->node_cells);
    EXPECT_EQ(back->map_width, 37);
    EXPECT_EQ(back->map_height, 29);
}

TEST(Roadmap, DimacsHandWrittenFilesParseAndRoundTrip) {
    const std::string gr = test::temp_path("tiny.gr"), co = test::temp_path("tiny.co");
    write_file(gr, "c a tiny road graph\np sp 3 4\na 1 2 7\na 2 1 7\na 2 3 5\nc comment between arcs\na 3 1 20\n");
    write_file(co, "c coordinates\np aux sp co 3\nv 1 0 0\nv 2 7 0\nv 3 7 5\n");
    auto r = read_roadmap(gr);  // picks tiny.co up
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->graph.vertex_count(), 3u);
    EXPECT_EQ(r->graph.edge_count(), 4u);
    EXPECT_EQ(arcs_of(r->graph, 1), (std::multiset<std::pair<Vertex, double>>{{0, 7.0}, {2, 5.0}}));
    ASSERT_EQ(r->graph.coords.size(), 3u);
    EXPECT_EQ(r->graph.coords[2].x, 7.0);
    EXPECT_EQ(r->graph.coords[2].y, 5.0);
    EXPECT_DOUBLE_EQ(dijkstra(r->graph, 0, 2), 12.0);
    EXPECT_DOUBLE_EQ(dijkstra(r->graph, 2, 1), 27.0);
    EXPECT_EQ(dijkstra(r->graph, 1, 1), 0.0);

    const std::string out = test::temp_path("copy.gr");
    ASSERT_TRUE(write_roadmap(*r, out));
    auto back = read_roadmap(out);
    ASSERT_TRUE(back) << back.error().message;
    expect_same_graph(r->graph, back->graph);
    // DIMACS -> text -> DIMACS keeps it too.
    const std::string text = test::temp_path("copy.roadmap");
    ASSERT_TRUE(write_roadmap(*back, text));
    auto via_text = read_roadmap(text);
    ASSERT_TRUE(via_text) << via_text.error().message;
    expect_same_graph(r->graph, via_text->graph);
}

TEST(Roadmap, BrokenFilesGiveFileLineErrors) {
    struct Case {
        const char* name;
        const char* text;
        const char* message;  // expected substring, with the line number
    };
    const Case cases[] = {
        {"a.roadmap", "", "a.roadmap:1: not a PathScope roadmap"},
        {"b.roadmap", "pathscope-roadmap 2\n", "b.roadmap:1: unsupported roadmap version"},
        {"c.roadmap", "pathscope-roadmap 1\nnodes 2\n0 0\n", "c.roadmap:4: the file ends after 1 of 2 nodes"},
        {"d.roadmap", "pathscope-roadmap 1\nnodes 2\n0 0\n1 x\n", "d.roadmap:4: node 1: coordinates"},
        {"e.roadmap", "pathscope-roadmap 1\nnodes 2\n0 0\n1 1\nedges 1\n0 5\n", "e.roadmap:6: node 5 does not exist"},
        {"f.roadmap", "pathscope-roadmap 1\nnodes 2\n0 0\n1 1\nedges 1\n0 1 -3\n", "f.roadmap:6: the weight must be"},
        {"g.roadmap", "pathscope-roadmap 1\nnodes 1\n0 0\nfaces 3\n", "g.roadmap:4: expected 'edges M' or 'arcs M'"},
        {"h.roadmap", "pathscope-roadmap 1\nmap 4 4\nnodes 1\n5 1\n", "h.roadmap:4: node 0: with a 'map' line"},
        {"i.roadmap", "pathscope-roadmap 1\n\n# c\nnodes 1\n0 0\nedges 2\n0 0\n",
         "i.roadmap:8: the file ends after 1 of 2 edges"},
        {"j.gr", "p sp 2 1\na 1 3 4\n", "j.gr:2: node 3 is outside 1..2"},
        {"k.gr", "a 1 2 4\n", "k.gr:1: arc before the 'p sp N M' line"},
        {"l.gr", "p sp 2 2\na 1 2 4\n", "l.gr:2: the file has 1 arcs but its 'p' line (line 1) says 2"},
        {"m.gr", "p sp 2 1\nx 1 2\n", "m.gr:2: unexpected line"},
    };
    for (const auto& c : cases) {
        const std::string path = test::temp_path(c.name);
        write_file(path, c.text);
        auto r = read_roadmap(path);
        ASSERT_FALSE(r) << c.name;
        EXPECT_EQ(r.error().kind, ErrorKind::Invalid) << c.name;
        EXPECT_NE(r.error().message.find(path.substr(0, path.size() - std::string(c.name).size()) + c.message),
                  std::string::npos)
            << c.name << ": " << r.error().message;
    }
    // A broken .co beside a good .gr names the .co and its line.
    const std::string gr = test::temp_path("n.gr"), co = test::temp_path("n.co");
    write_file(gr, "p sp 2 1\na 1 2 4\n");
    write_file(co, "p aux sp co 2\nv 1 0 0\n");
    auto r = read_roadmap(gr);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(co + ":2: node 2 has no coordinates"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().kind, ErrorKind::Invalid);
}

// A file that cannot be read or written is an I/O failure, told apart from a malformed one by
// its kind, not its text: a missing roadmap, a missing .gr, and writing into a missing folder
// (text and DIMACS).
TEST(Roadmap, UnreadableAndUnwritableFilesAreIoErrors) {
    for (const char* name : {"missing.roadmap", "missing.gr"}) {
        auto r = read_roadmap(test::temp_path(name));
        ASSERT_FALSE(r) << name;
        EXPECT_EQ(r.error().kind, ErrorKind::Io) << r.error().message;
        EXPECT_NE(r.error().message.find("No such file or directory"), std::string::npos) << r.error().message;
    }
    Roadmap roadmap;
    roadmap.graph.offsets = {0, 1, 1};
    roadmap.graph.targets = {1};
    roadmap.graph.weights = {2.5f};
    for (const char* name : {"x.roadmap", "x.gr"}) {
        const std::string path = test::temp_path("no-such-folder") + "/" + name;
        auto w = write_roadmap(roadmap, path);
        ASSERT_FALSE(w) << name;
        EXPECT_EQ(w.error().kind, ErrorKind::Io) << w.error().message;
        EXPECT_NE(w.error().message.find(path), std::string::npos) << w.error().message;
    }
}

// Issue 14: 'p sp 600000000 0' (17 bytes) took 47 s and 13.5 GB in 'roadmap info', sizing the
// graph from N alone. N must now be justified by the arcs (two nodes each) or the .co lines.
TEST(Roadmap, DimacsNodeCountBeyondWhatTheFileMentionsIsRefused) {
    const std::string big = test::temp_path("big.gr");
    write_file(big, "p sp 50000000 0\n");
    auto r = read_roadmap(big);
    ASSERT_FALSE(r) << "read a graph of " << r->graph.vertex_count() << " nodes from a 16-byte file";
    EXPECT_NE(r.error().message.find(big + ":1: the 'p' line announces 50000000 nodes, but the file's 0 arcs mention "
                                           "at most 0 nodes and there is no .co file listing them"),
              std::string::npos)
        << r.error().message;

    // Three nodes, one arc: node 3 is mentioned nowhere.
    auto lonely = parse_dimacs("p sp 3 1\na 1 2 4\n", "x.gr", std::nullopt, "");
    ASSERT_FALSE(lonely);
    EXPECT_NE(lonely.error().message.find("x.gr:1: the 'p' line announces 3 nodes"), std::string::npos)
        << lonely.error().message;
    // The same graph with coordinates for all three nodes is fine: the .co justifies node 3.
    auto with_co = parse_dimacs("p sp 3 1\na 1 2 4\n", "x.gr", "p aux sp co 3\nv 1 0 0\nv 2 4 0\nv 3 9 9\n", "x.co");
    ASSERT_TRUE(with_co) << with_co.error().message;
    EXPECT_EQ(with_co->graph.vertex_count(), 3u);
    EXPECT_EQ(with_co->graph.edge_count(), 1u);
    // A huge N with a .co that lists only a few nodes is refused before parse_co sizes anything.
    auto few_co = parse_dimacs("p sp 600000000 0\n", "y.gr", "p aux sp co 600000000\nv 1 0 0\n", "y.co");
    ASSERT_FALSE(few_co);
    EXPECT_NE(few_co.error().message.find("y.gr:1: the 'p' line announces 600000000 nodes, but the file's 0 arcs "
                                          "mention at most 0 nodes and the .co file lists 1"),
              std::string::npos)
        << few_co.error().message;
    // Two nodes joined by one arc: both are mentioned.
    auto pair = parse_dimacs("p sp 2 1\na 1 2 4\n", "z.gr", std::nullopt, "");
    ASSERT_TRUE(pair) << pair.error().message;
    EXPECT_EQ(pair->graph.vertex_count(), 2u);
}

// Independent truth for line of sight without corner cutting: the closed segment between the
// two cell centres touches (in exact integer geometry, coordinates doubled) only passable cells.
bool touches(Cell a, Cell b, int X, int Y) {
    const long long ax = 2 * a.x + 1, ay = 2 * a.y + 1, bx = 2 * b.x + 1, by = 2 * b.y + 1;
    const long long x0 = 2 * X, x1 = 2 * X + 2, y0 = 2 * Y, y1 = 2 * Y + 2;
    if (std::max(ax, bx) < x0 || std::min(ax, bx) > x1 || std::max(ay, by) < y0 || std::min(ay, by) > y1) return false;
    int pos = 0, neg = 0;
    for (auto [cx, cy] : {std::pair{x0, y0}, std::pair{x1, y0}, std::pair{x0, y1}, std::pair{x1, y1}}) {
        const long long cross = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
        pos += cross > 0;
        neg += cross < 0;
    }
    return pos < 4 && neg < 4;
}

bool truth_sight(const GridMap& map, Cell a, Cell b) {
    for (int y = std::min(a.y, b.y); y <= std::max(a.y, b.y); ++y)
        for (int x = std::min(a.x, b.x); x <= std::max(a.x, b.x); ++x)
            if (touches(a, b, x, y) && !map.passable(x, y)) return false;
    return true;
}

TEST(Roadmap, LineOfSightMatchesExactGeometry) {
    // Hand cases: a diagonal squeeze between two walls.
    const GridMap squeeze = test::map_from_rows({"..#", ".#.", "..."});
    EXPECT_FALSE(line_of_sight(squeeze, {}, {0, 0}, {2, 2}));  // through the wall at (1,1)
    const GridMap corner = test::map_from_rows({".#", ".."});
    EXPECT_FALSE(line_of_sight(corner, {Connectivity::Eight, CornerRule::None}, {0, 0}, {1, 1}));
    EXPECT_TRUE(line_of_sight(corner, {Connectivity::Eight, CornerRule::One}, {0, 0}, {1, 1}));
    const GridMap both = test::map_from_rows({".#", "#."});
    EXPECT_FALSE(line_of_sight(both, {Connectivity::Eight, CornerRule::One}, {0, 0}, {1, 1}));
    // The any rule's diagonal squeezes between them, so a straight line may too; longer lines
    // through the same corner as well, but never through a wall cell.
    EXPECT_TRUE(line_of_sight(both, {Connectivity::Eight, CornerRule::Any}, {0, 0}, {1, 1}));
    const GridMap stair = test::map_from_rows({".#.", "#.#", ".#."});
    EXPECT_TRUE(line_of_sight(stair, {Connectivity::Eight, CornerRule::Any}, {0, 0}, {2, 2}));
    EXPECT_FALSE(line_of_sight(stair, {Connectivity::Eight, CornerRule::Any}, {0, 0}, {2, 1}));
    EXPECT_FALSE(line_of_sight(both, {Connectivity::Four, CornerRule::Any}, {0, 0}, {1, 1}));
    EXPECT_TRUE(line_of_sight(test::map_from_rows({"....", "...."}), {}, {0, 0}, {3, 1}));

    const GridMap map = test::random_map(24, 24, 0.25, 11);
    test::Lcg rng(3);
    int visible = 0;
    for (int i = 0; i < 2000; ++i) {
        const Cell a = map.cell(test::random_passable(map, rng)), b = map.cell(test::random_passable(map, rng));
        const bool expected = truth_sight(map, a, b);
        visible += expected;
        ASSERT_EQ(line_of_sight(map, {}, a, b), expected)
            << "(" << a.x << "," << a.y << ") -> (" << b.x << "," << b.y << ")";
    }
    EXPECT_GT(visible, 50);  // the sample holds both answers
    EXPECT_LT(visible, 1950);
}

TEST(Roadmap, WaypointEdgesAreExactlyTheVisiblePairsWithinReach) {
    const GridMap map = test::random_map(48, 40, 0.15, 7);
    const WaypointOptions options{4, 0, {}, /*connect=*/false};
    auto r = waypoint_roadmap(map, options);
    ASSERT_TRUE(r) << r.error().message;
    const CsrGraph& g = r->graph;
    ASSERT_TRUE(check_graph(g));
    const double reach = 2.5 * 4;
    ASSERT_EQ(r->node_cells.size(), g.vertex_count());
    std::set<std::pair<int, int>> blocks;
    for (Vertex v = 0; v < g.vertex_count(); ++v) {
        const Cell c = map.cell(r->node_cells[v]);
        EXPECT_TRUE(map.passable(c));
        EXPECT_EQ(g.coords[v].x, c.x);
        EXPECT_EQ(g.coords[v].y, c.y);
        EXPECT_TRUE(blocks.insert({c.x / 4, c.y / 4}).second) << "two waypoints in one block";
    }
    for (Vertex u = 0; u < g.vertex_count(); ++u) {
        const Cell a = map.cell(r->node_cells[u]);
        std::set<Vertex> neighbours;
        for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) neighbours.insert(g.targets[e]);
        for (Vertex v = 0; v < g.vertex_count(); ++v) {
            if (v == u) continue;
            const Cell b = map.cell(r->node_cells[v]);
            const double d = std::hypot(double(a.x - b.x), double(a.y - b.y));
            const bool expected = d <= reach && truth_sight(map, a, b);
            ASSERT_EQ(neighbours.count(v) == 1, expected) << "nodes " << u << " and " << v;
        }
        for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            const Cell b = map.cell(r->node_cells[g.targets[e]]);
            EXPECT_DOUBLE_EQ(g.weights[e], std::hypot(double(a.x - b.x), double(a.y - b.y)));
        }
    }
}

TEST(Roadmap, ConnectJoinsWhatTheGridConnectsAroundCorners) {
    // Two waypoints (spacing 4: block centres (2,2) and (6,2)) that do not see each other; the
    // grid path goes over the wall: up 2, right 3, a diagonal at (5,0) -> (6,1) (no corner
    // cutting: (4,0) -> (5,1) would cut the wall's corner), down 1: 6 + sqrt2.
    const GridMap map = test::map_from_rows({"........", "...##...", "...##...", "########"});
    auto straight = waypoint_roadmap(map, {4, 0, {}, /*connect=*/false});
    ASSERT_TRUE(straight) << straight.error().message;
    ASSERT_EQ(straight->graph.vertex_count(), 2u);
    EXPECT_EQ(straight->graph.edge_count(), 0u);
    auto joined = waypoint_roadmap(map, {4, 0, {}});
    ASSERT_TRUE(joined) << joined.error().message;
    ASSERT_EQ(joined->graph.edge_count(), 2u);
    EXPECT_DOUBLE_EQ(joined->graph.weights[0], 6 + kSqrt2);
    EXPECT_DOUBLE_EQ(dijkstra(joined->graph, 1, 0), 6 + kSqrt2);
    // Walled off completely: nothing to join.
    const GridMap apart = test::map_from_rows({"...#....", "...#....", "...#....", "########"});
    EXPECT_EQ(waypoint_roadmap(apart, {4, 0, {}})->graph.edge_count(), 0u);
}

TEST(Roadmap, ConnectedRoadmapComponentsAreTheGridRegions) {
    // On random maps, two waypoints share a roadmap component exactly when their cells share a
    // grid region; every straight edge is still there, and a joining edge is a grid path, so
    // never shorter than the grid distance nor the straight line.
    for (std::uint64_t seed : {3u, 11u, 29u}) {
        const GridMap map = test::random_map(96, 80, 0.3, seed);
        const MoveRules rules{};
        auto straight = waypoint_roadmap(map, {4, 0, rules, false});
        auto joined = waypoint_roadmap(map, {4, 0, rules, true});
        ASSERT_TRUE(straight && joined);
        const CsrGraph& g = joined->graph;
        const Components before = connected_components(straight->graph), after = connected_components(g);
        EXPECT_LT(after.count, before.count) << "seed " << seed << ": nothing joined";
        const std::vector<std::uint32_t> region = grid_regions(map, rules);
        for (Vertex u = 0; u < g.vertex_count(); ++u)
            for (Vertex v = u + 1; v < g.vertex_count(); v += 7)
                ASSERT_EQ(after.label[u] == after.label[v],
                          region[joined->node_cells[u]] == region[joined->node_cells[v]])
                    << "seed " << seed << " nodes " << u << ", " << v;
        const GridSearchSpec spec{rules, CostMode::Real, Heuristic::Octile};
        std::set<std::pair<Vertex, Vertex>> visible;
        for (Vertex u = 0; u < straight->graph.vertex_count(); ++u)
            for (std::uint32_t e = straight->graph.offsets[u]; e < straight->graph.offsets[u + 1]; ++e)
                visible.insert({u, straight->graph.targets[e]});
        std::size_t kept = 0;
        for (Vertex u = 0; u < g.vertex_count(); ++u) {
            const Cell a = map.cell(joined->node_cells[u]);
            for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
                const Cell b = map.cell(joined->node_cells[g.targets[e]]);
                const double line = std::hypot(double(a.x - b.x), double(a.y - b.y));
                if (visible.count({u, g.targets[e]})) {
                    ++kept;
                    EXPECT_DOUBLE_EQ(g.weights[e], line);
                    continue;
                }
                const SearchOutput grid = astar_grid(map, spec, map.index(a), map.index(b));
                ASSERT_TRUE(grid.found);
                EXPECT_GE(g.weights[e], grid.cost - 1e-9);
                EXPECT_GE(g.weights[e], line);
            }
        }
        EXPECT_EQ(kept, visible.size());
    }
}

// Each roadmap edge runs through cells a grid path can follow at no more than |dx| + |dy|,
// which is at most sqrt2 times its length: so grid distance <= sqrt2 x roadmap distance, and
// the roadmap distance is at least the straight-line distance.
TEST(Roadmap, WaypointDistancesAreBoundedByGridDistances) {
    const GridMap map = test::random_map(40, 40, 0.2, 21);
    auto r = waypoint_roadmap(map, {3, 0, {}});
    ASSERT_TRUE(r);
    const GridSearchSpec spec{{Connectivity::Eight, CornerRule::None}, CostMode::Real, Heuristic::Octile};
    test::Lcg rng(9);
    int connected = 0;
    for (int i = 0; i < 60; ++i) {
        const Vertex s = rng.below(r->graph.vertex_count()), t = rng.below(r->graph.vertex_count());
        const double d = dijkstra(r->graph, s, t);
        const Cell a = map.cell(r->node_cells[s]), b = map.cell(r->node_cells[t]);
        const SearchOutput grid = astar_grid(map, spec, map.index(a), map.index(b));
        if (d < 0) continue;
        ++connected;
        ASSERT_TRUE(grid.found) << "roadmap connects cells the grid does not";
        EXPECT_GE(d, std::hypot(double(a.x - b.x), double(a.y - b.y)) - 1e-9);
        EXPECT_LE(grid.cost, kSqrt2 * d + 1e-9);
    }
    EXPECT_GT(connected, 20);
}

TEST(Roadmap, WaypointOptionsAndMapsAreChecked) {
    const GridMap map = test::random_map(16, 16, 0.1, 1);
    EXPECT_FALSE(waypoint_roadmap(map, {0, 0, {}}));
    EXPECT_FALSE(waypoint_roadmap(map, {4, -1, {}}));
    EXPECT_FALSE(waypoint_roadmap(GridMap(8, 8, false), {4, 0, {}}));
    // Off-centre waypoints: a corridor that misses every block centre still gets its nodes.
    const GridMap corridor = test::map_from_rows({"########", "........", "########", "########"});
    auto r = waypoint_roadmap(corridor, {4, 0, {}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->graph.vertex_count(), 2u);
    EXPECT_EQ(r->graph.edge_count(), 2u);
}

TEST(Roadmap, ComponentsAndRandomAgents) {
    // Two triangles and an isolated vertex.
    auto r = parse_roadmap_text(
        "pathscope-roadmap 1\nnodes 7\n0 0\n1 0\n0 1\n9 9\n10 9\n9 10\n50 50\n"
        "edges 6\n0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n",
        "two");
    ASSERT_TRUE(r);
    const Components c = connected_components(r->graph);
    EXPECT_EQ(c.count, 3u);
    EXPECT_EQ(c.largest, 3u);
    EXPECT_EQ(c.label[0], c.label[2]);
    EXPECT_NE(c.label[0], c.label[3]);
    auto agents = random_agents(r->graph, {500, 42});
    ASSERT_TRUE(agents);
    ASSERT_EQ(agents->size(), 500u);
    std::set<Vertex> starts;
    for (const auto& [s, g] : *agents) {
        EXPECT_NE(s, g);
        EXPECT_EQ(c.label[s], c.label[g]);
        EXPECT_NE(s, 6u);
        starts.insert(s);
    }
    EXPECT_EQ(starts.size(), 6u);  // every eligible vertex gets picked in 500 draws
    auto again = random_agents(r->graph, {500, 42});
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *agents);  // deterministic for a seed
    auto other = random_agents(r->graph, {500, 43});
    ASSERT_TRUE(other);
    EXPECT_NE(*other, *agents);

    auto lonely = parse_roadmap_text("pathscope-roadmap 1\nnodes 2\n0 0\n1 1\n", "lonely");
    ASSERT_TRUE(lonely);
    auto none = random_agents(lonely->graph, {10, 1});
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("no two vertices"), std::string::npos);
    EXPECT_FALSE(random_agents(r->graph, {0, 1}));
}

TEST(Roadmap, ScenarioAgentsSnapToNearestNodesAndRepeat) {
    const GridMap map = test::map_from_rows({"........", "........", "........", "........"});
    const std::string scen = test::temp_path("small.scen");
    write_file(scen, "version 1\n0\tsmall.map\t8\t4\t0\t0\t7\t3\t8.2\n0\tsmall.map\t8\t4\t5\t1\t1\t2\t4.4\n");
    auto r = waypoint_roadmap(map, {4, 0, {}});  // nodes at (2,2) and (6,2)
    ASSERT_TRUE(r);
    ASSERT_EQ(r->graph.vertex_count(), 2u);
    auto snapped = scen_agents(scen, map, &*r, 5);
    ASSERT_TRUE(snapped) << snapped.error().message;
    const std::vector<Agent> expected = {{0, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 1}};
    EXPECT_EQ(snapped->agents, expected);
    EXPECT_EQ(snapped->file.rejected_count, 0u);
    auto cells = scen_agents(scen, map, nullptr, 0);
    ASSERT_TRUE(cells);
    EXPECT_EQ(cells->agents,
              (std::vector<Agent>{{map.index(0, 0), map.index(7, 3)}, {map.index(5, 1), map.index(1, 2)}}));
    // The nearest node behind a wall loses to a visible one: (5,0) sees (8,0), not (3,0).
    const GridMap walled = test::map_from_rows({"....#.....", "....#.....", ".........."});
    auto behind = parse_roadmap_text("pathscope-roadmap 1\nmap 10 3\nnodes 3\n3 0\n8 0\n9 2\nedges 1\n1 2\n", "w");
    ASSERT_TRUE(behind);
    Scenario sc;
    sc.map_width = 10, sc.map_height = 3, sc.start = {5, 0}, sc.goal = {9, 1}, sc.line = 1;
    auto seen = scen_agents(ScenarioFile{{sc}, {}, 0}, "w.scen", walled, &*behind, 0);
    ASSERT_TRUE(seen) << seen.error().message;
    EXPECT_EQ(seen->agents.front(), (Agent{1, 2}));
    EXPECT_EQ(nearest_node(*behind, 5, 0), 0u);

    // A map no scenario fits: nothing is left to run, an error with the first lines' reasons.
    const GridMap wrong(9, 4);
    auto bad = scen_agents(scen, wrong, nullptr, 0);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().kind, ErrorKind::Invalid);
    EXPECT_NE(bad.error().message.find("no usable scenario"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find(scen + ":2: scenario is for a 8x4 map, this map is 9x4"), std::string::npos)
        << bad.error().message;
    EXPECT_NE(bad.error().message.find(scen + ":3:"), std::string::npos) << bad.error().message;
}

// One bad line costs its query only: the others become agents in file order, each bad line is
// reported with its own line number and reason.
TEST(Roadmap, ScenarioAgentsLeaveOutBadLinesAndKeepTheRest) {
    // 5x3, wall at (2, 1).
    const GridMap map = test::map_from_rows({".....", "..#..", "....."});
    const std::string scen = test::temp_path("mixed.scen");
    write_file(scen,
               "version 1\n"
               "0\tm.map\t5\t3\t0\t0\t4\t2\t4.8\n"    // 2: good
               "0\tm.map\t6\t3\t0\t0\t4\t2\t4.8\n"    // 3: another map size
               "0\tm.map\t5\t3\t2\t1\t4\t2\t2.4\n"    // 4: start in the wall
               "\n"                                   // 5: blank, ignored
               "0\tm.map\t5\t3\t0\t0\t4\t3\t4.8\n"    // 6: goal below the map
               "0 m.map five 3 0 0 1 1 1.4\n"         // 7: not a number
               "0\tm.map\t5\t3\t1\t0\n"               // 8: 6 fields
               "0\tm.map\t5\t3\t4\t0\t0\t2\t4.8\n");  // 9: good
    auto agents = scen_agents(scen, map, nullptr, 0);
    ASSERT_TRUE(agents) << agents.error().message;
    EXPECT_EQ(agents->agents,
              (std::vector<Agent>{{map.index(0, 0), map.index(4, 2)}, {map.index(4, 0), map.index(0, 2)}}));
    ASSERT_EQ(agents->file.scenarios.size(), 2u);
    EXPECT_EQ(agents->file.scenarios[0].line, 2);
    EXPECT_EQ(agents->file.scenarios[1].line, 9);
    const std::vector<std::pair<int, std::string>> expected = {
        {3, "scenario is for a 6x3 map, this map is 5x3"},
        {4, "start (2, 1) is a blocked cell"},
        {6, "goal (4, 3) is outside the 5x3 map"},
        {7, "map width must be a whole number, found 'five'"},
        {8, "expected 9 fields"},
    };
    ASSERT_EQ(agents->file.rejected.size(), expected.size());
    EXPECT_EQ(agents->file.rejected_count, expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const ScenarioIssue& issue = agents->file.rejected[i];
        EXPECT_EQ(issue.line, expected[i].first);
        const std::string prefix = scen + ":" + std::to_string(expected[i].first) + ": ";
        EXPECT_EQ(issue.message.rfind(prefix + expected[i].second, 0), 0u) << issue.message;
    }
    // Repeated to a count, the usable scenarios cycle; the left-out lines stay left out.
    auto repeated = scen_agents(scen, map, nullptr, 5);
    ASSERT_TRUE(repeated);
    ASSERT_EQ(repeated->agents.size(), 5u);
    EXPECT_EQ(repeated->agents[2], agents->agents[0]);
    EXPECT_EQ(repeated->agents[3], agents->agents[1]);
    const std::string text = describe_rejected(repeated->file, 2);
    EXPECT_EQ(text, "5 of 7 scenario lines left out:\n  " + scen +
                        ":3: scenario is for a 6x3 map, this map is 5x3\n  " + scen +
                        ":4: start (2, 1) is a blocked cell\n  ... and 3 more");
}

// Found by the roadmap fuzz harness (tests/fuzz/; input in tests/data/fuzz/roadmap/).
// roadmap: a roadmap whose only node sits at (0, 1e300) had no nearest node (kNoVertex): the
// squared distance overflowed to infinity and never beat the initial infinity.
TEST(Roadmap, NearestNodeExistsWhateverTheCoordinates) {
    auto r = parse_roadmap_text("pathscope-roadmap 1\nnodes 1\n00 1e300\n", "far.roadmap");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(nearest_node(*r, 0.5, 0.5), 0u);
    auto two = parse_roadmap_text("pathscope-roadmap 1\nnodes 2\n1e300 0\n-1e300 5\n", "far2.roadmap");
    ASSERT_TRUE(two) << two.error().message;
    EXPECT_EQ(nearest_node(*two, 0, 0), 0u);  // both infinitely far: the lowest id
    EXPECT_EQ(nearest_node(*two, -1e300, 5), 1u);
}

}  // namespace
}  // namespace ps
