// CPU reference searches: the BFS paper's level sweep and a std::queue BFS, and binary-heap
// A* / Dijkstra / bidirectional A*. Each search algorithm is written once, over a small "graph
// view" (neighbours, step costs, heuristic); grids and CSR graphs are two views of it.
#include "kernels/search/cpu_search.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <queue>
#include <string>

#include "kernels/search/open_list.hpp"

namespace ps {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Polling an atomic is cheap but not free; these keep it off the per-vertex path.
constexpr std::uint64_t kAstarCancelMask = 4096 - 1;
constexpr std::uint64_t kBfsCancelMask = 65536 - 1;
// Heap capacity reserved up front: frontiers on the maps we run stay below this, and the
// untouched part of a large reservation costs no memory.
constexpr std::size_t kHeapReserve = std::size_t(1) << 18;

bool cancel_requested(const std::atomic<bool>* cancel) {
    return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

// Step costs of a grid metric. `euclid` scales the Euclidean distance so that it never
// exceeds the cost of any move sequence (keeps the heuristic consistent in integer mode,
// where a diagonal costs less than 1000 * sqrt2).
struct GridMetric {
    double orth = 1.0;
    double diag = kSqrt2;
    double euclid = 1.0;
};

GridMetric metric_of(CostMode mode) {
    if (mode == CostMode::Integer) return {double(kIntOrthogonal), double(kIntDiagonal), double(kIntDiagonal) / kSqrt2};
    return {};
}

double metric_heuristic(Heuristic h, const GridMetric& m, double dx, double dy) {
    switch (h) {
    case Heuristic::Zero:
        return 0.0;
    case Heuristic::Manhattan:
        return (dx + dy) * m.orth;
    case Heuristic::Octile: {
        const double lo = std::min(dx, dy);
        const double hi = std::max(dx, dy);
        return m.diag * lo + m.orth * (hi - lo);
    }
    case Heuristic::Euclidean:
        return std::sqrt(dx * dx + dy * dy) * m.euclid;
    }
    return 0.0;
}

// ---------------------------------------------------------------------------------------------
// Graph views: what the search templates need to know about a graph.
//   size(), usable(v), forward(v, f(w, cost)), backward(v, f(w, cost)),
//   heuristic_to(t) -> callable h(v), slack(mu) (termination tolerance of bidirectional A*).

// On weighted terrain a step costs the mean of its cells' costs times its length, and the
// heuristic is scaled by the least cell cost so that it stays consistent.
class GridView {
public:
    GridView(const GridMap& map, const GridSearchSpec& spec)
        : m_map(map),
          m_rules(spec.rules),
          m_heuristic(spec.heuristic),
          m_mode(spec.cost_mode),
          m_metric(metric_of(spec.cost_mode)),
          m_exact(spec.cost_mode == CostMode::Integer),
          m_weighted(map.weighted()) {
        if (m_weighted) {
            const double least = double(map.min_cost());
            m_metric = {m_metric.orth * least, m_metric.diag * least, m_metric.euclid * least};
        }
    }

    std::size_t size() const { return m_map.cell_count(); }
    bool usable(Vertex v) const { return m_map.passable(v); }

    template <class F>
    void forward(Vertex v, F&& f) const {
        if (m_weighted) {
            const std::uint8_t here = m_map.cost(v);
            for_each_grid_neighbour(m_map, m_rules, v, [&](Vertex w, bool diagonal) {
                f(w, weighted_step_cost(m_mode, here, m_map.cost(w), diagonal));
            });
            return;
        }
        const GridMetric unit = metric_of(m_mode);
        for_each_grid_neighbour(m_map, m_rules, v,
                                [&](Vertex w, bool diagonal) { f(w, diagonal ? unit.diag : unit.orth); });
    }
    // Grid moves (and the mean of two cells' costs) are symmetric, so the backward search walks
    // the same edges.
    template <class F>
    void backward(Vertex v, F&& f) const {
        forward(v, std::forward<F>(f));
    }

    auto heuristic_to(Vertex target) const {
        const Cell t = m_map.cell(target);
        return [this, t](Vertex v) {
            const Cell c = m_map.cell(v);
            return metric_heuristic(m_heuristic, m_metric, std::abs(double(c.x - t.x)), std::abs(double(c.y - t.y)));
        };
    }

    double slack(double mu) const { return m_exact ? 0.0 : 1e-9 * std::max(1.0, mu); }

private:
    const GridMap& m_map;
    MoveRules m_rules;
    Heuristic m_heuristic;
    CostMode m_mode;
    GridMetric m_metric;  // the heuristic's, scaled by the least cell cost
    bool m_exact;
    bool m_weighted;
};

class GraphView {
public:
    // `backward_graph` is the reverse of `graph` (the graph itself when it is symmetric).
    GraphView(const CsrGraph& graph, const CsrGraph& backward_graph, Heuristic h)
        : m_fwd(graph), m_bwd(backward_graph), m_heuristic(h) {
        choose_heuristic_source();
    }

    std::size_t size() const { return m_fwd.vertex_count(); }
    bool usable(Vertex v) const { return v < m_fwd.vertex_count(); }

    template <class F>
    void forward(Vertex v, F&& f) const {
        edges(m_fwd, v, f);
    }
    template <class F>
    void backward(Vertex v, F&& f) const {
        edges(m_bwd, v, f);
    }

    auto heuristic_to(Vertex target) const {
        return [this, target](Vertex v) { return heuristic(v, target); };
    }

    double slack(double mu) const { return m_exact ? 0.0 : 1e-9 * std::max(1.0, mu); }

private:
    enum class Source { None, Grid, Coords };

    template <class F>
    static void edges(const CsrGraph& g, Vertex v, F& f) {
        const std::uint32_t end = g.offsets[v + 1];
        if (g.weights.empty()) {
            for (std::uint32_t e = g.offsets[v]; e < end; ++e) f(g.targets[e], 1.0);
        } else {
            for (std::uint32_t e = g.offsets[v]; e < end; ++e) f(g.targets[e], g.weights[e]);
        }
    }

    // A grid graph's weights come from step_cost(), so one weight tells the metric; a heuristic
    // in the wrong metric would overestimate, so anything unrecognised falls back to coords or
    // to no heuristic at all.
    void choose_heuristic_source() {
        if (m_heuristic == Heuristic::Zero) return;
        if (m_fwd.grid_width > 0) {
            if (m_fwd.weights.empty()) {
                // Every step costs 1, diagonals included.
                m_metric = {1.0, 1.0, 1.0 / kSqrt2};
                m_source = Source::Grid;
                m_exact = true;
            } else {
                const double w = m_fwd.weights.front();
                if (w == double(kIntOrthogonal) || w == double(kIntDiagonal)) {
                    m_metric = metric_of(CostMode::Integer);
                    m_source = Source::Grid;
                    m_exact = true;
                } else if (w == 1.0 || w == kSqrt2) {
                    m_metric = metric_of(CostMode::Real);
                    m_source = Source::Grid;
                }
            }
            if (m_source == Source::Grid) return;
        }
        if (!m_fwd.coords.empty()) m_source = Source::Coords;
    }

    double heuristic(Vertex v, Vertex t) const {
        switch (m_source) {
        case Source::None:
            return 0.0;
        case Source::Grid: {
            const auto w = Vertex(m_fwd.grid_width);
            const double dx = std::abs(double(v % w) - double(t % w));
            const double dy = std::abs(double(v / w) - double(t / w));
            return metric_heuristic(m_heuristic, m_metric, dx, dy);
        }
        case Source::Coords: {
            const Point3& a = m_fwd.coords[v];
            const Point3& b = m_fwd.coords[t];
            const double dx = std::abs(a.x - b.x);
            const double dy = std::abs(a.y - b.y);
            if (m_heuristic == Heuristic::Euclidean) {
                const double dz = a.z - b.z;
                return std::sqrt(dx * dx + dy * dy + dz * dz);
            }
            return metric_heuristic(m_heuristic, GridMetric{}, dx, dy);
        }
        }
        return 0.0;
    }

    const CsrGraph& m_fwd;
    const CsrGraph& m_bwd;
    Heuristic m_heuristic;
    Source m_source = Source::None;
    GridMetric m_metric;
    bool m_exact = false;
};

// ---------------------------------------------------------------------------------------------
// Search state shared by A* and bidirectional A*.

// One search direction: flat per-vertex arrays and its open list.
struct SearchSide {
    std::vector<double> g;
    std::vector<Vertex> parent;
    std::vector<std::uint8_t> closed;
    OpenList open;
    std::uint64_t expanded = 0;
    std::uint64_t generated = 0;

    explicit SearchSide(std::size_t n) : g(n, kInf), parent(n, kNoVertex), closed(n, 0) {
        open.reserve(std::min(n, kHeapReserve));
    }

    void push(Vertex v, double gv, double f, Vertex from) {
        g[v] = gv;
        parent[v] = from;
        open.push({f, float(gv), v});
        ++generated;
    }

    // Drops entries of closed vertices; true while an open vertex remains (then it is on top,
    // and its f is the smallest f of any open vertex).
    bool settle_top() {
        while (!open.empty()) {
            if (!closed[open.top().v]) return true;
            open.pop();
        }
        return false;
    }

    // Closes the vertex on top (after settle_top()).
    Vertex close_top() {
        const Vertex v = open.top().v;
        open.pop();
        closed[v] = 1;
        ++expanded;
        return v;
    }

    // Vertices from the root of this side to v, root first.
    std::vector<Vertex> chain_to(Vertex v) const {
        std::vector<Vertex> path;
        for (Vertex u = v; u != kNoVertex; u = parent[u]) path.push_back(u);
        std::reverse(path.begin(), path.end());
        return path;
    }
};

// Null-safe recording that applies the vertex sampling.
class Recorder {
public:
    explicit Recorder(SearchRecording* recording) : m_rec(recording) {
        if (m_rec != nullptr && m_rec->vertex_stride == 0) m_rec->vertex_stride = 1;
    }
    void open(Vertex v, std::uint64_t step, std::uint8_t direction) {
        if (m_rec != nullptr && m_rec->wants(v)) m_rec->add(v, std::uint32_t(step), SearchRecording::Open, direction);
    }
    void close(Vertex v, std::uint64_t step, std::uint8_t direction) {
        if (m_rec != nullptr && m_rec->wants(v)) m_rec->add(v, std::uint32_t(step), SearchRecording::Close, direction);
    }
    void finish(std::uint64_t steps) {
        if (m_rec != nullptr) m_rec->steps = std::uint32_t(steps);
    }

private:
    SearchRecording* m_rec;
};

// Answers that need no search; true when `out` is final.
template <class View>
bool trivial_search(const View& view, Vertex start, Vertex goal, SearchOutput& out) {
    if (!view.usable(start) || !view.usable(goal)) return true;
    if (start != goal) return false;
    out.found = true;
    out.cost = 0.0;
    out.path = {start};
    return true;
}

// Best-first search ordered by g + weight * h: A* at weight 1 (optimal with a consistent h),
// weighted A* above (a vertex is expanded once, never re-opened: cost at most weight times the
// optimum with a consistent h), greedy best-first at infinity (h alone: any path).
template <class View>
SearchOutput astar_search(const View& view, Vertex start, Vertex goal, SearchRecording* recording,
                          const std::atomic<bool>* cancel, double weight = 1.0) {
    const bool greedy = std::isinf(weight);
    const auto priority = [&](double g, double h) { return greedy ? h : weight == 1.0 ? g + h : g + weight * h; };
    SearchOutput out;
    Recorder rec(recording);
    if (trivial_search(view, start, goal, out)) {
        rec.finish(0);
        return out;
    }
    SearchSide side(view.size());
    const auto h = view.heuristic_to(goal);
    side.push(start, 0.0, priority(0.0, h(start)), kNoVertex);
    rec.open(start, 0, 0);

    while (side.settle_top()) {
        const std::uint64_t step = side.expanded;
        if ((step & kAstarCancelMask) == 0 && cancel_requested(cancel)) {
            out.cancelled = true;
            break;
        }
        const Vertex u = side.close_top();
        const double gu = side.g[u];
        rec.close(u, step, 0);
        // Goal test on expansion: with a consistent heuristic g(goal) is final only now.
        if (u == goal) {
            out.found = true;
            out.cost = gu;
            out.path = side.chain_to(goal);
            break;
        }
        view.forward(u, [&](Vertex w, double cost) {
            if (side.closed[w]) return;
            const double ng = gu + cost;
            if (ng < side.g[w]) {
                side.push(w, ng, priority(ng, h(w)), u);
                rec.open(w, step, 0);
            }
        });
    }
    out.expanded = side.expanded;
    out.generated = side.generated;
    rec.finish(side.expanded);
    return out;
}

// Bidirectional A* with front-to-end heuristics. mu is the best start-goal path seen (through
// a vertex reached from both sides). Stopping when either side's smallest f reaches mu is
// safe with consistent heuristics: a cheaper path would have a first vertex not closed on
// that side, which is open with its optimal g, so that side's smallest f would be below it.
template <class View>
SearchOutput bidir_search(const View& view, Vertex start, Vertex goal, SearchRecording* recording,
                          const std::atomic<bool>* cancel) {
    SearchOutput out;
    Recorder rec(recording);
    if (trivial_search(view, start, goal, out)) {
        rec.finish(0);
        return out;
    }
    SearchSide fwd(view.size());
    SearchSide bwd(view.size());
    const auto h_fwd = view.heuristic_to(goal);
    const auto h_bwd = view.heuristic_to(start);
    fwd.push(start, 0.0, h_fwd(start), kNoVertex);
    rec.open(start, 0, 0);
    bwd.push(goal, 0.0, h_bwd(goal), kNoVertex);
    rec.open(goal, 0, 1);

    double mu = kInf;
    Vertex meet = kNoVertex;
    std::uint64_t step = 0;
    while (fwd.settle_top() && bwd.settle_top()) {
        // In real arithmetic equal f values can come out a rounding error below mu; without the
        // slack the search would keep expanding every tie of an already optimal path.
        const double bound = std::isinf(mu) ? mu : mu - view.slack(mu);
        if (fwd.open.top().f >= bound || bwd.open.top().f >= bound) break;
        if ((step & kAstarCancelMask) == 0 && cancel_requested(cancel)) {
            out.cancelled = true;
            break;
        }
        const bool forward = fwd.open.size() <= bwd.open.size();
        SearchSide& side = forward ? fwd : bwd;
        const SearchSide& other = forward ? bwd : fwd;
        const auto& h = forward ? h_fwd : h_bwd;
        const std::uint8_t direction = forward ? 0 : 1;

        const Vertex u = side.close_top();
        const double gu = side.g[u];
        rec.close(u, step, direction);
        auto relax = [&](Vertex w, double cost) {
            if (side.closed[w]) return;
            const double ng = gu + cost;
            if (ng >= side.g[w]) return;
            side.push(w, ng, ng + h(w), u);
            rec.open(w, step, direction);
            const double through = ng + other.g[w];
            if (through < mu) {
                mu = through;
                meet = w;
            }
        };
        if (forward)
            view.forward(u, relax);
        else
            view.backward(u, relax);
        ++step;
    }
    if (!out.cancelled && meet != kNoVertex) {
        out.found = true;
        out.cost = mu;
        out.path = fwd.chain_to(meet);
        // The backward parents point towards the goal.
        for (Vertex u = bwd.parent[meet]; u != kNoVertex; u = bwd.parent[u]) out.path.push_back(u);
    }
    out.expanded = fwd.expanded + bwd.expanded;
    out.generated = fwd.generated + bwd.generated;
    rec.finish(step);
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string_view to_string(Heuristic h) {
    switch (h) {
    case Heuristic::Zero:
        return "zero";
    case Heuristic::Manhattan:
        return "manhattan";
    case Heuristic::Euclidean:
        return "euclidean";
    case Heuristic::Octile:
        return "octile";
    }
    return "unknown";
}

std::optional<Heuristic> parse_heuristic(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (Heuristic h : {Heuristic::Zero, Heuristic::Manhattan, Heuristic::Euclidean, Heuristic::Octile})
        if (lower == to_string(h)) return h;
    return std::nullopt;
}

double grid_heuristic(Heuristic h, CostMode mode, Cell a, Cell b) {
    return metric_heuristic(h, metric_of(mode), std::abs(double(a.x - b.x)), std::abs(double(a.y - b.y)));
}

BfsOutput bfs_sweep(const CsrGraph& graph, Vertex target, Vertex stop_at, const std::atomic<bool>* cancel) {
    const std::uint32_t n = graph.vertex_count();
    BfsOutput out;
    out.levels.assign(n, kUnreached);
    if (target >= n) return out;
    std::int32_t* levels = out.levels.data();
    const std::uint32_t* offsets = graph.offsets.data();
    const Vertex* targets = graph.targets.data();
    levels[target] = 0;
    out.visited = 1;
    out.depth = 1;
    // Sweep L labels level L + 1 completely, so checking stop_at after a sweep completes its level.
    for (std::int32_t level = 0; stop_at != target; ++level) {
        if (cancel_requested(cancel)) {
            out.cancelled = true;
            return out;
        }
        bool changed = false;
        for (Vertex v = 0; v < n; ++v) {
            if (levels[v] != level) continue;
            for (std::uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
                const Vertex w = targets[e];
                if (levels[w] == kUnreached) {
                    levels[w] = level + 1;
                    ++out.visited;
                    changed = true;
                }
            }
        }
        if (!changed) break;
        out.depth = level + 2;
        if (stop_at < n && levels[stop_at] != kUnreached) break;
    }
    return out;
}

BfsOutput bfs_queue(const CsrGraph& graph, Vertex target, Vertex stop_at, const std::atomic<bool>* cancel) {
    const std::uint32_t n = graph.vertex_count();
    BfsOutput out;
    out.levels.assign(n, kUnreached);
    if (target >= n) return out;
    std::int32_t* levels = out.levels.data();
    const std::uint32_t* offsets = graph.offsets.data();
    const Vertex* targets = graph.targets.data();
    levels[target] = 0;
    out.visited = 1;
    std::int32_t max_level = 0;
    // The queue holds vertices in level order, so stopping at the first vertex of stop_at's
    // level leaves exactly that level complete, as the sweep does.
    std::int32_t stop_level = stop_at == target ? 0 : std::numeric_limits<std::int32_t>::max();
    std::queue<Vertex> queue;
    queue.push(target);
    for (std::uint64_t pops = 0; !queue.empty(); ++pops) {
        if ((pops & kBfsCancelMask) == 0 && cancel_requested(cancel)) {
            out.cancelled = true;
            break;
        }
        const Vertex v = queue.front();
        const std::int32_t next = levels[v] + 1;
        if (next > stop_level) break;
        queue.pop();
        for (std::uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
            const Vertex w = targets[e];
            if (levels[w] != kUnreached) continue;
            levels[w] = next;
            ++out.visited;
            max_level = next;
            if (w == stop_at) stop_level = next;
            queue.push(w);
        }
    }
    out.depth = max_level + 1;
    return out;
}

namespace {

// Walks down the levels; `for_each_neighbour(v, f)` calls f(w) for the neighbours of v.
template <class Neighbours>
std::vector<Vertex> descend_levels(std::size_t n, const std::vector<std::int32_t>& levels, Vertex from,
                                   Neighbours&& for_each_neighbour) {
    if (from >= n || from >= levels.size() || levels[from] < 0) return {};
    std::vector<Vertex> path;
    path.reserve(std::size_t(levels[from]) + 1);
    path.push_back(from);
    for (Vertex v = from; levels[v] > 0;) {
        Vertex next = kNoVertex;
        for_each_neighbour(v, [&](Vertex w) {
            if (next == kNoVertex && w < n && levels[w] == levels[v] - 1) next = w;
        });
        // Only on a graph that is not symmetric (BFS ran along edges that do not lead back).
        if (next == kNoVertex) return {};
        path.push_back(next);
        v = next;
    }
    return path;
}

}  // namespace

std::vector<Vertex> bfs_path(const CsrGraph& graph, const std::vector<std::int32_t>& levels, Vertex from) {
    return descend_levels(graph.vertex_count(), levels, from, [&](Vertex v, auto&& f) {
        for (std::uint32_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e) f(graph.targets[e]);
    });
}

std::vector<Vertex> bfs_path(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& levels,
                             Vertex from) {
    return descend_levels(map.cell_count(), levels, from, [&](Vertex v, auto&& f) {
        for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool) { f(w); });
    });
}

SearchOutput astar_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                        SearchRecording* recording, const std::atomic<bool>* cancel) {
    return astar_search(GridView(map, spec), start, goal, recording, cancel);
}

SearchOutput best_first_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal, double weight,
                             SearchRecording* recording, const std::atomic<bool>* cancel) {
    return astar_search(GridView(map, spec), start, goal, recording, cancel, weight);
}

SearchOutput astar_bidir_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                              SearchRecording* recording, const std::atomic<bool>* cancel) {
    return bidir_search(GridView(map, spec), start, goal, recording, cancel);
}

SearchOutput astar_graph(const CsrGraph& graph, Heuristic h, Vertex start, Vertex goal, SearchRecording* recording,
                         const std::atomic<bool>* cancel) {
    return astar_search(GraphView(graph, graph, h), start, goal, recording, cancel);
}

SearchOutput astar_bidir_graph(const CsrGraph& graph, Heuristic h, Vertex start, Vertex goal,
                               SearchRecording* recording, const std::atomic<bool>* cancel) {
    // Graphs built from grids are symmetric by construction; anything else may have one-way
    // edges, and the backward search must follow edges against their direction.
    if (graph.grid_width > 0) return bidir_search(GraphView(graph, graph, h), start, goal, recording, cancel);
    const CsrGraph reversed = reverse_graph(graph);
    return bidir_search(GraphView(graph, reversed, h), start, goal, recording, cancel);
}

CsrGraph reverse_graph(const CsrGraph& graph) {
    CsrGraph r;
    r.coords = graph.coords;
    r.grid_width = graph.grid_width;
    if (graph.offsets.empty()) return r;
    const std::uint32_t n = graph.vertex_count();
    const std::size_t m = graph.targets.size();
    // Counting sort of the edges by target.
    r.offsets.assign(std::size_t(n) + 1, 0);
    for (Vertex w : graph.targets) ++r.offsets[w + 1];
    for (std::uint32_t v = 0; v < n; ++v) r.offsets[v + 1] += r.offsets[v];
    r.targets.resize(m);
    if (graph.weighted()) r.weights.resize(m);
    std::vector<std::uint32_t> cursor(r.offsets.begin(), r.offsets.end() - 1);
    for (Vertex v = 0; v < n; ++v) {
        for (std::uint32_t e = graph.offsets[v]; e < graph.offsets[v + 1]; ++e) {
            const std::uint32_t slot = cursor[graph.targets[e]]++;
            r.targets[slot] = v;
            if (graph.weighted()) r.weights[slot] = graph.weights[e];
        }
    }
    return r;
}

}  // namespace ps
