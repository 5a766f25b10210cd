// Roadmaps: waypoint generation with exact line-of-sight, the text and DIMACS formats (with
// "file:line: reason" errors), nearest-node snapping and components (see roadmap.hpp).
#include "kernels/graph/roadmap.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <queue>
#include <tuple>

#include <unistd.h>

#include "kernels/map/map_io.hpp"
#include "kernels/base/text_parse.hpp"

namespace ps {
namespace {

using text::LineReader;
using text::parse_finite;
using text::parse_int;
using text::quote;

// ---- CSR from an arc list -----------------------------------------------------------------

struct Arc {
    Vertex from;
    Vertex to;
    double weight;
};

// Counting sort by source, stable (arcs of a vertex keep their listed order).
Expected<CsrGraph> csr_from_arcs(std::uint32_t n, const std::vector<Arc>& arcs) {
    if (arcs.size() > 0xFFFFFFFFull)
        return Error{std::to_string(arcs.size()) + " arcs: too many for a CSR graph with 32-bit offsets"};
    CsrGraph g;
    g.offsets.assign(std::size_t(n) + 1, 0);
    for (const Arc& a : arcs) ++g.offsets[a.from + 1];
    for (std::uint32_t v = 0; v < n; ++v) g.offsets[v + 1] += g.offsets[v];
    g.targets.resize(arcs.size());
    g.weights.resize(arcs.size());
    std::vector<std::uint32_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
    for (const Arc& a : arcs) {
        const std::uint32_t slot = cursor[a.from]++;
        g.targets[slot] = a.to;
        g.weights[slot] = a.weight;
    }
    return g;
}

double distance(const Point3& a, const Point3& b) {
    const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// ---- Text scanning --------------------------------------------------------------------------

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Up to kMax whitespace-separated fields of a line; `count` may exceed kMax (too many fields).
struct Fields {
    static constexpr std::size_t kMax = 6;
    std::array<std::string_view, kMax> f;
    std::size_t count = 0;
};

Fields split(std::string_view line) {
    Fields out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        if (i >= line.size()) break;
        std::size_t end = i;
        while (end < line.size() && !is_space(line[end])) ++end;
        if (out.count < Fields::kMax) out.f[out.count] = line.substr(i, end - i);
        ++out.count;
        i = end;
    }
    return out;
}

Error error_at(const std::string& source, long long line, const std::string& reason) {
    return Error{source + ":" + std::to_string(line) + ": " + reason};
}

// Shortest decimal that reads back to the same double.
void append_number(std::string& out, double v) {
    char buf[32];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, ec == std::errc() ? ptr : buf);
}

// Writes beside `path` and renames, so a failed write never leaves a truncated file. A path
// that exists but is no regular file (/dev/stdout, a FIFO) is written in place: renaming over
// it would replace the device.
Expected<void> write_file_atomically(const std::filesystem::path& path, const std::string& text) {
    std::error_code status_error;
    const auto status = std::filesystem::status(path, status_error);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        std::ofstream out(path, std::ios::binary);
        out.write(text.data(), std::streamsize(text.size()));
        out.flush();
        if (!out) return Error{"cannot write " + path.string(), ErrorKind::Io};
        return {};
    }
    const std::filesystem::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return Error{"cannot write " + path.string() + ": cannot create " + tmp.string(), ErrorKind::Io};
        out.write(text.data(), std::streamsize(text.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            return Error{"cannot write " + path.string() + " (disk full?)", ErrorKind::Io};
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        return Error{"cannot write " + path.string() + ": " + ec.message(), ErrorKind::Io};
    }
    return {};
}

// Node cells from integral coordinates inside a width x height map.
std::optional<Vertex> cell_of(const Point3& p, int width, int height) {
    if (p.x != std::floor(p.x) || p.y != std::floor(p.y)) return std::nullopt;
    if (p.x < 0 || p.y < 0 || p.x >= width || p.y >= height) return std::nullopt;
    return Vertex(p.y) * Vertex(width) + Vertex(p.x);
}

// ---- The text format --------------------------------------------------------------------------

Expected<Roadmap> parse_text_impl(std::string_view text, const std::string& source) {
    LineReader lines(text);
    // The next line with content (comments stripped), with its fields.
    auto next_content = [&](Fields& fields) {
        while (const auto raw = lines.next()) {
            const std::size_t hash = raw->find('#');
            fields = split(hash == std::string_view::npos ? *raw : raw->substr(0, hash));
            if (fields.count > 0) return true;
        }
        return false;
    };
    Fields f;
    if (!next_content(f) || f.f[0] != "pathscope-roadmap")
        return error_at(source, std::max(1LL, lines.line()),
                        "not a PathScope roadmap: the first line must be 'pathscope-roadmap 1'");
    if (f.count != 2 || f.f[1] != "1")
        return error_at(source, lines.line(), "unsupported roadmap version (this reader knows 'pathscope-roadmap 1')");

    Roadmap r;
    if (!next_content(f)) return error_at(source, lines.line() + 1, "missing 'nodes N' line");
    if (f.f[0] == "map") {
        const auto w = f.count == 3 ? parse_int<int>(f.f[1]) : std::nullopt;
        const auto h = f.count == 3 ? parse_int<int>(f.f[2]) : std::nullopt;
        if (!w || !h) return error_at(source, lines.line(), "'map' expects a width and a height, e.g. 'map 512 512'");
        if (auto ok = GridMap::validate_dimensions(*w, *h); !ok)
            return error_at(source, lines.line(), ok.error().message);
        r.map_width = *w;
        r.map_height = *h;
        if (!next_content(f)) return error_at(source, lines.line() + 1, "missing 'nodes N' line");
    }
    if (f.f[0] != "nodes" || f.count != 2)
        return error_at(source, lines.line(), "expected 'nodes N', found " + quote(f.f[0]));
    const auto n = parse_int<std::uint64_t>(f.f[1]);
    if (!n || *n >= kNoVertex)
        return error_at(source, lines.line(), "'nodes' needs a node count below 4294967295, found " + quote(f.f[1]));
    const long long nodes_line = lines.line();
    // A count far beyond what the text can hold must not allocate first.
    r.graph.coords.reserve(std::min<std::uint64_t>(*n, lines.remaining() / 4 + 1));
    for (std::uint64_t i = 0; i < *n; ++i) {
        if (!next_content(f))
            return error_at(source, lines.line() + 1,
                            "the file ends after " + std::to_string(i) + " of " + std::to_string(*n) +
                                " nodes (announced on line " + std::to_string(nodes_line) + ")");
        if (f.count < 2 || f.count > 3)
            return error_at(source, lines.line(),
                            "node " + std::to_string(i) + ": expected 'x y' or 'x y z', found " +
                                std::to_string(f.count) + " fields");
        Point3 p;
        const auto x = parse_finite(f.f[0]), y = parse_finite(f.f[1]);
        const auto z = f.count == 3 ? parse_finite(f.f[2]) : std::optional<double>(0.0);
        if (!x || !y || !z)
            return error_at(source, lines.line(), "node " + std::to_string(i) + ": coordinates must be finite numbers");
        p = {*x, *y, *z};
        if (r.map_width > 0) {
            const auto cell = cell_of(p, r.map_width, r.map_height);
            if (!cell)
                return error_at(source, lines.line(),
                                "node " + std::to_string(i) + ": with a 'map' line, x and y must be a cell of the " +
                                    std::to_string(r.map_width) + "x" + std::to_string(r.map_height) + " map");
            r.node_cells.push_back(*cell);
        }
        r.graph.coords.push_back(p);
    }
    const auto count = std::uint32_t(*n);

    std::vector<Arc> arcs;
    bool saw_edges = false, saw_arcs = false;
    while (next_content(f)) {
        const bool undirected = f.f[0] == "edges";
        if (!undirected && f.f[0] != "arcs")
            return error_at(source, lines.line(),
                            "expected 'edges M' or 'arcs M' (or the end of the file), found " + quote(f.f[0]));
        if (undirected ? (saw_edges || saw_arcs) : saw_arcs)
            return error_at(source, lines.line(),
                            undirected ? "'edges' must come once, before 'arcs'" : "duplicate 'arcs' section");
        (undirected ? saw_edges : saw_arcs) = true;
        const auto m = f.count == 2 ? parse_int<std::uint64_t>(f.f[1]) : std::nullopt;
        if (!m || *m > 0xFFFFFFFFull)
            return error_at(source, lines.line(),
                            "'" + std::string(f.f[0]) + "' needs a count, e.g. '" + std::string(f.f[0]) + " 12'");
        const long long section_line = lines.line();
        arcs.reserve(arcs.size() + std::min<std::uint64_t>(*m * (undirected ? 2 : 1), lines.remaining() / 2 + 2));
        for (std::uint64_t i = 0; i < *m; ++i) {
            if (!next_content(f))
                return error_at(source, lines.line() + 1,
                                "the file ends after " + std::to_string(i) + " of " + std::to_string(*m) + " " +
                                    (undirected ? "edges" : "arcs") + " (announced on line " +
                                    std::to_string(section_line) + ")");
            if (f.count < 2 || f.count > 3)
                return error_at(source, lines.line(),
                                "expected 'u v' or 'u v w', found " + std::to_string(f.count) + " fields");
            const auto u = parse_int<std::uint32_t>(f.f[0]), v = parse_int<std::uint32_t>(f.f[1]);
            if (!u || !v) return error_at(source, lines.line(), "node ids must be whole numbers");
            if (*u >= count || *v >= count)
                return error_at(source, lines.line(),
                                "node " + std::to_string(*u >= count ? *u : *v) + " does not exist (there are " +
                                    std::to_string(count) + " nodes, ids 0.." +
                                    std::to_string(count == 0 ? 0 : count - 1) + ")");
            double w = distance(r.graph.coords[*u], r.graph.coords[*v]);
            if (f.count == 3) {
                const auto parsed = parse_finite(f.f[2]);
                if (!parsed || *parsed < 0)
                    return error_at(source, lines.line(),
                                    "the weight must be a finite number >= 0, found " + quote(f.f[2]));
                w = *parsed;
            }
            arcs.push_back({*u, *v, w});
            if (undirected) arcs.push_back({*v, *u, w});
        }
    }
    auto graph = csr_from_arcs(count, arcs);
    if (!graph) return Error{source + ": " + graph.error().message};
    graph->coords = std::move(r.graph.coords);
    r.graph = std::move(graph).value();
    if (auto ok = check_graph(r.graph); !ok) return Error{source + ": " + ok.error().message};
    return r;
}

// True when every arc (u, v, w) has a partner (v, u, w), with the same multiplicity, and there
// are no self-loops, so the graph can be written as undirected edges. Sorting both directions
// keeps this O(E log E) even around hubs of high degree.
bool symmetric(const CsrGraph& g) {
    std::vector<std::tuple<Vertex, Vertex, double>> forward, backward;
    forward.reserve(g.edge_count());
    backward.reserve(g.edge_count());
    for (Vertex u = 0; u < g.vertex_count(); ++u)
        for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            if (g.targets[e] == u) return false;
            forward.emplace_back(u, g.targets[e], g.weight(e));
            backward.emplace_back(g.targets[e], u, g.weight(e));
        }
    std::sort(forward.begin(), forward.end());
    std::sort(backward.begin(), backward.end());
    return forward == backward;
}

// ---- DIMACS -----------------------------------------------------------------------------------

// The number of 'v' lines in a .co text: the nodes it can justify (see parse_gr).
std::uint64_t coordinate_lines(std::string_view text) {
    LineReader lines(text);
    std::uint64_t count = 0;
    while (const auto raw = lines.next()) {
        const Fields f = split(*raw);
        count += f.count > 0 && f.f[0] == "v";
    }
    return count;
}

// `co_nodes`: how many nodes the coordinate file beside the graph lists (0 without one). A
// 'p sp N M' line is only a claim: the graph is sized from N only when the arcs (each names two
// nodes) or the coordinate lines could mention that many nodes, so a 17-byte header claiming
// 600 million nodes is refused instead of allocating gigabytes, like the text format, which
// needs a line per node.
Expected<CsrGraph> parse_gr(std::string_view text, const std::string& source, std::uint64_t co_nodes) {
    LineReader lines(text);
    std::optional<std::uint64_t> n, m;
    long long p_line = 0;
    std::vector<Arc> arcs;
    while (const auto raw = lines.next()) {
        const Fields f = split(*raw);
        if (f.count == 0 || f.f[0] == "c") continue;
        if (f.f[0] == "a") {
            if (!n) return error_at(source, lines.line(), "arc before the 'p sp N M' line");
            if (f.count != 4) return error_at(source, lines.line(), "expected 'a u v w'");
            const auto u = parse_int<std::uint64_t>(f.f[1]), v = parse_int<std::uint64_t>(f.f[2]);
            const auto w = parse_finite(f.f[3]);
            if (!u || !v) return error_at(source, lines.line(), "node ids must be whole numbers");
            if (*u < 1 || *v < 1 || *u > *n || *v > *n)
                return error_at(
                    source, lines.line(),
                    "node " + std::to_string(*u < 1 || *u > *n ? *u : *v) + " is outside 1.." + std::to_string(*n));
            if (!w || *w < 0)
                return error_at(source, lines.line(), "the weight must be a number >= 0, found " + quote(f.f[3]));
            arcs.push_back({Vertex(*u - 1), Vertex(*v - 1), *w});
        } else if (f.f[0] == "p") {
            if (n)
                return error_at(source, lines.line(),
                                "duplicate 'p' line (first on line " + std::to_string(p_line) + ")");
            if (f.count != 4 || f.f[1] != "sp")
                return error_at(source, lines.line(), "expected 'p sp N M' (a DIMACS shortest-path graph)");
            n = parse_int<std::uint64_t>(f.f[2]);
            m = parse_int<std::uint64_t>(f.f[3]);
            if (!n || !m || *n >= kNoVertex || *m > 0xFFFFFFFFull)
                return error_at(source, lines.line(), "'p sp N M' needs node and arc counts that fit 32 bits");
            p_line = lines.line();
            arcs.reserve(std::min<std::uint64_t>(*m, lines.remaining() / 6 + 1));
        } else {
            return error_at(source, lines.line(), "unexpected line " + quote(*raw) + " (expected 'c', 'p' or 'a')");
        }
    }
    if (!n) return error_at(source, std::max(1LL, lines.line()), "not a DIMACS graph: no 'p sp N M' line");
    if (arcs.size() != *m)
        return error_at(source, lines.line(),
                        "the file has " + std::to_string(arcs.size()) + " arcs but its 'p' line (line " +
                            std::to_string(p_line) + ") says " + std::to_string(*m));
    const std::uint64_t justified = std::max<std::uint64_t>(2 * std::uint64_t(arcs.size()), co_nodes);
    if (*n > justified)
        return error_at(source, p_line,
                        "the 'p' line announces " + std::to_string(*n) + " nodes, but the file's " +
                            std::to_string(arcs.size()) + " arcs mention at most " +
                            std::to_string(2 * std::uint64_t(arcs.size())) + " nodes" +
                            (co_nodes ? " and the .co file lists " + std::to_string(co_nodes)
                                      : std::string(" and there is no .co file listing them")) +
                            ": correct N, or give every node its coordinates in the .co file");
    auto g = csr_from_arcs(std::uint32_t(*n), arcs);
    if (!g) return Error{source + ": " + g.error().message};
    return g;
}

Expected<std::vector<Point3>> parse_co(std::string_view text, const std::string& source, std::uint32_t n) {
    LineReader lines(text);
    std::vector<Point3> coords;
    std::vector<std::uint8_t> seen;
    bool saw_p = false;
    while (const auto raw = lines.next()) {
        const Fields f = split(*raw);
        if (f.count == 0 || f.f[0] == "c") continue;
        if (f.f[0] == "p") {
            if (saw_p) return error_at(source, lines.line(), "duplicate 'p' line");
            const auto count = f.count == 5 ? parse_int<std::uint64_t>(f.f[4]) : std::nullopt;
            if (f.count != 5 || f.f[1] != "aux" || f.f[2] != "sp" || f.f[3] != "co" || !count)
                return error_at(source, lines.line(), "expected 'p aux sp co N'");
            if (*count != n)
                return error_at(source, lines.line(),
                                "the coordinates are for " + std::to_string(*count) + " nodes but the graph has " +
                                    std::to_string(n));
            saw_p = true;
            coords.assign(n, Point3{});
            seen.assign(n, 0);
        } else if (f.f[0] == "v") {
            if (!saw_p) return error_at(source, lines.line(), "'v' line before the 'p aux sp co N' line");
            if (f.count != 4) return error_at(source, lines.line(), "expected 'v id x y'");
            const auto id = parse_int<std::uint64_t>(f.f[1]);
            const auto x = parse_finite(f.f[2]), y = parse_finite(f.f[3]);
            if (!id || *id < 1 || *id > n)
                return error_at(source, lines.line(),
                                "node id " + quote(f.f[1]) + " is outside 1.." + std::to_string(n));
            if (!x || !y) return error_at(source, lines.line(), "coordinates must be numbers");
            if (seen[*id - 1]) return error_at(source, lines.line(), "node " + std::to_string(*id) + " given twice");
            seen[*id - 1] = 1;
            coords[*id - 1] = {*x, *y, 0.0};
        } else {
            return error_at(source, lines.line(), "unexpected line " + quote(*raw) + " (expected 'c', 'p' or 'v')");
        }
    }
    if (!saw_p)
        return error_at(source, std::max(1LL, lines.line()), "not a DIMACS coordinate file: no 'p aux sp co N' line");
    const auto missing = std::find(seen.begin(), seen.end(), 0);
    if (missing != seen.end())
        return error_at(source, lines.line(),
                        "node " + std::to_string(missing - seen.begin() + 1) + " has no coordinates");
    return coords;
}

}  // namespace

// ---- Waypoints ----------------------------------------------------------------------------------

bool line_of_sight(const GridMap& map, MoveRules rules, Cell a, Cell b) {
    if (!map.passable(a) || !map.passable(b)) return false;
    const int nx = std::abs(b.x - a.x), ny = std::abs(b.y - a.y);
    const int sx = b.x > a.x ? 1 : -1, sy = b.y > a.y ? 1 : -1;
    // 4-connected grids have no diagonal rule of their own: one free cell beside the corner.
    const CornerRule corners = rules.connectivity == Connectivity::Eight ? rules.corners : CornerRule::One;
    int x = a.x, y = a.y;
    // Walk the cells the segment between the two centres crosses. The next vertical cell
    // boundary comes at t = (ix + 1/2) / nx, the next horizontal one at (iy + 1/2) / ny;
    // comparing them in integers keeps exact corner crossings exact.
    for (long long ix = 0, iy = 0; ix < nx || iy < ny;) {
        const long long vertical = (1 + 2 * ix) * ny, horizontal = (1 + 2 * iy) * nx;
        if (vertical == horizontal) {
            const bool p = map.passable(x + sx, y), q = map.passable(x, y + sy);
            if (!diagonal_allowed(corners, p, q)) return false;
            x += sx, y += sy, ++ix, ++iy;
        } else if (vertical < horizontal) {
            x += sx, ++ix;
        } else {
            y += sy, ++iy;
        }
        if (!map.passable(x, y)) return false;
    }
    return true;
}

namespace {

// Union-find over vertex ids (path halving; the smaller root wins).
class DisjointSets {
public:
    explicit DisjointSets(std::uint32_t n) : m_parent(n) { std::iota(m_parent.begin(), m_parent.end(), 0u); }
    std::uint32_t find(std::uint32_t v) {
        while (m_parent[v] != v) v = m_parent[v] = m_parent[m_parent[v]];
        return v;
    }
    bool join(std::uint32_t a, std::uint32_t b) {
        a = find(a), b = find(b);
        if (a == b) return false;
        m_parent[std::max(a, b)] = std::min(a, b);
        return true;
    }

private:
    std::vector<std::uint32_t> m_parent;
};

// Length of the shortest grid path from a to b (steps 1 and sqrt2 under `rules`) that stays in
// the box [x0, x1] x [y0, y1], or nullopt when there is none.
std::optional<double> grid_path_in_box(const GridMap& map, MoveRules rules, Cell a, Cell b, int x0, int y0, int x1,
                                       int y1) {
    const int bw = x1 - x0 + 1;
    auto local = [&](Vertex v) {
        const Cell c = map.cell(v);
        return std::size_t(c.y - y0) * std::size_t(bw) + std::size_t(c.x - x0);
    };
    std::vector<double> dist(std::size_t(bw) * std::size_t(y1 - y0 + 1), std::numeric_limits<double>::infinity());
    using Item = std::pair<double, Vertex>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    const Vertex source = map.index(a), target = map.index(b);
    dist[local(source)] = 0;
    open.push({0.0, source});
    while (!open.empty()) {
        // Not a structured binding: clang before 16 cannot capture those in the lambda below.
        const double d = open.top().first;
        const Vertex v = open.top().second;
        open.pop();
        if (v == target) return d;
        if (d > dist[local(v)]) continue;
        for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool diagonal) {
            const Cell c = map.cell(w);
            if (c.x < x0 || c.x > x1 || c.y < y0 || c.y > y1) return;
            const double nd = d + (diagonal ? kSqrt2 : 1.0);
            if (nd < dist[local(w)]) {
                dist[local(w)] = nd;
                open.push({nd, w});
            }
        });
    }
    return std::nullopt;
}

// The `connect` pass of waypoint_roadmap: for node pairs within `reach` blocks that the grid
// connects (same region) but the straight edges do not, a grid path inside the box around both
// (one block of margin) becomes an edge of its length (never shorter than the straight line,
// so Euclidean heuristics stay consistent). Nearest pairs are tried first; at most a few
// failed tries per node keep the pass linear on maps whose regions only meet far away.
void connect_components(const GridMap& map, MoveRules rules, int s, int reach, const std::vector<Vertex>& node_cells,
                        const std::vector<Vertex>& block_node, int bw, int bh, std::vector<Arc>& arcs) {
    const auto n = Vertex(node_cells.size());
    DisjointSets sets(n);
    for (const Arc& arc : arcs) sets.join(arc.from, arc.to);
    const std::vector<std::uint32_t> region = grid_regions(map, rules);
    constexpr int kMaxFailures = 4;
    for (Vertex u = 0; u < n; ++u) {
        const Cell cu = map.cell(node_cells[u]);
        const int bx = cu.x / s, by = cu.y / s;
        std::vector<std::pair<long long, Vertex>> near;  // (squared distance, node)
        for (int ny = std::max(0, by - reach); ny <= std::min(bh - 1, by + reach); ++ny)
            for (int nx = std::max(0, bx - reach); nx <= std::min(bw - 1, bx + reach); ++nx) {
                const Vertex v = block_node[std::size_t(ny) * std::size_t(bw) + std::size_t(nx)];
                if (v == kNoVertex || v == u || region[node_cells[v]] != region[node_cells[u]]) continue;
                const Cell cv = map.cell(node_cells[v]);
                near.push_back(
                    {(long long)(cv.x - cu.x) * (cv.x - cu.x) + (long long)(cv.y - cu.y) * (cv.y - cu.y), v});
            }
        std::sort(near.begin(), near.end());
        int failures = 0;
        for (const auto& [d2, v] : near) {
            if (sets.find(u) == sets.find(v)) continue;
            const Cell cv = map.cell(node_cells[v]);
            const auto length = grid_path_in_box(map, rules, cu, cv, std::max(0, std::min(cu.x, cv.x) - s),
                                                 std::max(0, std::min(cu.y, cv.y) - s),
                                                 std::min(map.width() - 1, std::max(cu.x, cv.x) + s),
                                                 std::min(map.height() - 1, std::max(cu.y, cv.y) + s));
            if (!length) {
                if (++failures == kMaxFailures) break;
                continue;
            }
            arcs.push_back({u, v, *length});
            arcs.push_back({v, u, *length});
            sets.join(u, v);
        }
    }
}

}  // namespace

Expected<Roadmap> waypoint_roadmap(const GridMap& map, const WaypointOptions& options) {
    if (map.empty()) return Error{"the map is empty: no waypoints to place"};
    if (options.spacing < 1)
        return Error{"waypoint spacing must be at least 1 cell, got " + std::to_string(options.spacing)};
    if (!(options.max_edge >= 0) || !std::isfinite(options.max_edge))
        return Error{"the longest waypoint edge must be a length >= 0 in cells (0 = 2.5 x spacing)"};
    const int s = options.spacing;
    const double max_edge = options.max_edge > 0 ? options.max_edge : 2.5 * s;
    const int w = map.width(), h = map.height();
    const int bw = (w + s - 1) / s, bh = (h + s - 1) / s;

    Roadmap r;
    r.map_width = w;
    r.map_height = h;
    std::vector<Vertex> block_node(std::size_t(bw) * std::size_t(bh), kNoVertex);
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            const int x0 = bx * s, y0 = by * s, x1 = std::min(x0 + s, w), y1 = std::min(y0 + s, h);
            const int cx = std::min(x0 + s / 2, x1 - 1), cy = std::min(y0 + s / 2, y1 - 1);
            std::optional<Cell> pick;
            if (map.passable(cx, cy)) {
                pick = Cell{cx, cy};
            } else {
                long long best = std::numeric_limits<long long>::max();
                for (int y = y0; y < y1; ++y)
                    for (int x = x0; x < x1; ++x) {
                        const long long d2 = (long long)(x - cx) * (x - cx) + (long long)(y - cy) * (y - cy);
                        if (d2 < best && map.passable(x, y)) best = d2, pick = Cell{x, y};
                    }
            }
            if (!pick) continue;
            block_node[std::size_t(by) * std::size_t(bw) + std::size_t(bx)] = Vertex(r.node_cells.size());
            r.node_cells.push_back(map.index(*pick));
            r.graph.coords.push_back({double(pick->x), double(pick->y), 0.0});
        }
    }
    if (r.node_cells.empty()) return Error{"the map has no passable cell: no waypoints to place"};

    // Nodes sit anywhere inside their block, so blocks up to ceil(max_edge / s) + 1 apart may
    // hold nodes within max_edge of each other.
    const int reach = int(std::ceil(max_edge / s)) + 1;
    const double limit2 = max_edge * max_edge * (1 + 1e-12);
    std::vector<Arc> arcs;
    const auto n = Vertex(r.node_cells.size());
    for (Vertex u = 0; u < n; ++u) {
        const Cell cu = map.cell(r.node_cells[u]);
        const int bx = cu.x / s, by = cu.y / s;
        for (int dy = -reach; dy <= reach; ++dy) {
            const int ny = by + dy;
            if (ny < 0 || ny >= bh) continue;
            for (int dx = -reach; dx <= reach; ++dx) {
                const int nx = bx + dx;
                if (nx < 0 || nx >= bw) continue;
                const Vertex v = block_node[std::size_t(ny) * std::size_t(bw) + std::size_t(nx)];
                if (v == kNoVertex || v <= u) continue;
                const Cell cv = map.cell(r.node_cells[v]);
                const double ex = cv.x - cu.x, ey = cv.y - cu.y;
                const double d2 = ex * ex + ey * ey;
                if (d2 > limit2 || !line_of_sight(map, options.rules, cu, cv)) continue;
                const double length = std::sqrt(d2);
                arcs.push_back({u, v, length});
                arcs.push_back({v, u, length});
            }
        }
    }
    if (options.connect) connect_components(map, options.rules, s, reach, r.node_cells, block_node, bw, bh, arcs);
    auto graph = csr_from_arcs(n, arcs);
    if (!graph) return Error{"the waypoint roadmap has " + graph.error().message + ": use a larger spacing"};
    graph->coords = std::move(r.graph.coords);
    r.graph = std::move(graph).value();
    return r;
}

// ---- Formats --------------------------------------------------------------------------------

Expected<Roadmap> parse_roadmap_text(std::string_view text, const std::string& source) {
    try {
        return parse_text_impl(text, source);
    } catch (const std::bad_alloc&) {
        return Error{source + ": out of memory while reading the roadmap"};
    }
}

std::string format_roadmap_text(const Roadmap& roadmap) {
    const CsrGraph& g = roadmap.graph;
    const std::uint32_t n = g.vertex_count();
    std::string out = "pathscope-roadmap 1\n";
    if (roadmap.map_width > 0 && roadmap.node_cells.size() == n)
        out += "map " + std::to_string(roadmap.map_width) + " " + std::to_string(roadmap.map_height) + "\n";
    out += "nodes " + std::to_string(n) + "\n";
    for (Vertex v = 0; v < n; ++v) {
        Point3 p;
        if (!g.coords.empty()) {
            p = g.coords[v];
        } else if (roadmap.map_width > 0 && roadmap.node_cells.size() == n) {
            p = {double(roadmap.node_cells[v] % Vertex(roadmap.map_width)),
                 double(roadmap.node_cells[v] / Vertex(roadmap.map_width)), 0.0};
        }
        append_number(out, p.x);
        out += ' ';
        append_number(out, p.y);
        if (p.z != 0) {
            out += ' ';
            append_number(out, p.z);
        }
        out += '\n';
    }
    const bool undirected = symmetric(g);
    std::uint64_t listed = 0;
    std::string body;
    for (Vertex u = 0; u < n; ++u) {
        for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            const Vertex v = g.targets[e];
            if (undirected && v < u) continue;
            body += std::to_string(u);
            body += ' ';
            body += std::to_string(v);
            body += ' ';
            append_number(body, g.weight(e));
            body += '\n';
            ++listed;
        }
    }
    out += (undirected ? "edges " : "arcs ") + std::to_string(listed) + "\n";
    out += body;
    return out;
}

Expected<Roadmap> parse_dimacs(std::string_view gr_text, const std::string& gr_source,
                               std::optional<std::string_view> co_text, const std::string& co_source) {
    Roadmap r;
    try {
        auto graph = parse_gr(gr_text, gr_source, co_text ? coordinate_lines(*co_text) : 0);
        if (!graph) return graph.error();
        r.graph = std::move(graph).value();
        if (co_text) {
            auto coords = parse_co(*co_text, co_source, r.graph.vertex_count());
            if (!coords) return coords.error();
            r.graph.coords = std::move(coords).value();
        }
    } catch (const std::bad_alloc&) {
        return Error{gr_source + ": out of memory while reading the graph"};
    }
    if (auto ok = check_graph(r.graph); !ok) return Error{gr_source + ": " + ok.error().message};
    return r;
}

Expected<Roadmap> read_dimacs(const std::filesystem::path& gr, const std::filesystem::path& co) {
    auto text = read_text_file(gr.string());
    if (!text) return text.error();
    std::optional<std::string> co_text;
    if (!co.empty()) {
        auto read = read_text_file(co.string());
        if (!read) return read.error();
        co_text = std::move(read).value();
    }
    return parse_dimacs(*text, gr.string(), co_text ? std::optional<std::string_view>(*co_text) : std::nullopt,
                        co.string());
}

Expected<void> write_dimacs(const Roadmap& roadmap, const std::filesystem::path& gr) {
    const CsrGraph& g = roadmap.graph;
    const std::uint32_t n = g.vertex_count();
    std::string out = "c PathScope roadmap\np sp " + std::to_string(n) + " " + std::to_string(g.edge_count()) + "\n";
    for (Vertex u = 0; u < n; ++u)
        for (std::uint32_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
            out += "a " + std::to_string(u + 1) + " " + std::to_string(g.targets[e] + 1) + " ";
            append_number(out, g.weight(e));
            out += '\n';
        }
    if (auto ok = write_file_atomically(gr, out); !ok) return ok;
    if (g.coords.empty()) return {};
    std::filesystem::path co = gr;
    co.replace_extension(".co");
    std::string c = "c PathScope roadmap coordinates\np aux sp co " + std::to_string(n) + "\n";
    for (Vertex v = 0; v < n; ++v) {
        c += "v " + std::to_string(v + 1) + " ";
        append_number(c, g.coords[v].x);
        c += ' ';
        append_number(c, g.coords[v].y);
        c += '\n';
    }
    return write_file_atomically(co, c);
}

Expected<Roadmap> read_roadmap(const std::filesystem::path& path) {
    if (path.extension() == ".gr") {
        std::filesystem::path co = path;
        co.replace_extension(".co");
        std::error_code ec;
        return read_dimacs(path, std::filesystem::exists(co, ec) ? co : std::filesystem::path());
    }
    auto text = read_text_file(path.string());
    if (!text) return text.error();
    return parse_roadmap_text(*text, path.string());
}

Expected<void> write_roadmap(const Roadmap& roadmap, const std::filesystem::path& path) {
    if (path.extension() == ".gr") return write_dimacs(roadmap, path);
    return write_file_atomically(path, format_roadmap_text(roadmap));
}

// ---- Queries --------------------------------------------------------------------------------

Vertex nearest_node(const Roadmap& roadmap, double x, double y) {
    const auto& coords = roadmap.graph.coords;
    Vertex best = kNoVertex;
    double best_d2 = std::numeric_limits<double>::infinity();
    for (Vertex v = 0; v < coords.size(); ++v) {
        const double dx = coords[v].x - x, dy = coords[v].y - y;
        // Beyond about 1e154 the square is infinite: such nodes tie, and the first still counts
        // (a roadmap with nodes always has a nearest one).
        const double d2 = dx * dx + dy * dy;
        if (d2 < best_d2 || best == kNoVertex) best_d2 = d2, best = v;
    }
    return best;
}

Components connected_components(const CsrGraph& graph) {
    const std::uint32_t n = graph.vertex_count();
    DisjointSets sets(n);
    for (Vertex u = 0; u < n; ++u)
        for (std::uint32_t e = graph.offsets[u]; e < graph.offsets[u + 1]; ++e) sets.join(u, graph.targets[e]);
    auto find = [&](std::uint32_t v) { return sets.find(v); };
    Components c;
    c.label.assign(n, 0);
    std::vector<std::uint32_t> id(n, kNoVertex), size;
    for (Vertex v = 0; v < n; ++v) {
        const std::uint32_t root = find(v);
        if (id[root] == kNoVertex) {
            id[root] = c.count++;
            size.push_back(0);
        }
        c.label[v] = id[root];
        c.largest = std::max(c.largest, ++size[id[root]]);
    }
    return c;
}

double euclidean_heuristic_scale(const CsrGraph& graph) {
    if (graph.coords.empty()) return 0.0;
    double scale = std::numeric_limits<double>::infinity();
    const std::uint32_t n = graph.vertex_count();
    for (Vertex u = 0; u < n; ++u)
        for (std::uint32_t e = graph.offsets[u]; e < graph.offsets[u + 1]; ++e) {
            const double length = distance(graph.coords[u], graph.coords[graph.targets[e]]);
            if (length > 0) scale = std::min(scale, graph.weight(e) / length);
        }
    return std::isfinite(scale) ? scale : 0.0;
}

}  // namespace ps
