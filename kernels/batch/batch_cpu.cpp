// Batched CPU A*/Dijkstra over worker threads (see batch_cpu.hpp). A tight loop rather than
// astar_graph: that one allocates and fills per-vertex arrays for every search, which for
// 100,000 short searches on a large graph would cost more than the searches themselves.
#include "kernels/batch/batch_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <thread>

#include "instrumentation/capture/clock.hpp"
#include "kernels/base/worker_pool.hpp"
#include "kernels/search/open_list.hpp"
#include "kernels/graph/roadmap.hpp"

namespace ps {
namespace {

constexpr std::uint64_t kCancelMask = 4096 - 1;
constexpr std::size_t kHeapReserve = std::size_t(1) << 16;

struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};

// One thread's working set. A vertex's g is valid only when its stamp says so for the current
// search (open = 2e+1, closed = 2e+2 in search e), so nothing is cleared between agents, and
// nothing is written when the set is made: g is left uninitialised and the stamps come from
// calloc, whose large blocks are fresh pages the OS zeroes when a search first touches them.
// (Filled vectors cost 45-55 ms for two sets on a 1024^2 grid here, 16-20% of the run: every
// page of every thread's set faulted in before the first search, most never used.)
struct WorkSet {
    std::unique_ptr<double[]> g;
    std::unique_ptr<std::uint32_t[], FreeDeleter> stamp;
    std::size_t n;
    OpenList heap;
    std::uint32_t epoch = 0;

    explicit WorkSet(std::size_t count)
        : g(new double[count]),
          stamp(static_cast<std::uint32_t*>(std::calloc(count, sizeof(std::uint32_t)))),
          n(count) {
        if (!stamp && count > 0) throw std::bad_alloc();
        heap.reserve(std::min(count, kHeapReserve));
    }
    std::size_t bytes() const { return n * (sizeof(double) + sizeof(std::uint32_t)); }

    void next_search() {
        if (epoch >= 0x7FFFFFFEu) {  // the stamps would wrap: start over, once per 2^31 searches
            std::fill(stamp.get(), stamp.get() + n, 0u);
            epoch = 0;
        }
        ++epoch;
        heap.clear();
    }
    std::uint32_t open_tag() const { return 2 * epoch + 1; }
    std::uint32_t closed_tag() const { return 2 * epoch + 2; }
};

// Working sets kept between runs of the process for the next run on a graph of as many
// vertices, up to kShelfBytes in all (a 1024^2 grid's 16 sets): the stamps and epochs carry
// over, so a set needs no clearing, and a repeated run faults in no pages. The GPU runs keep
// their pinned staging between runs the same way.
constexpr std::size_t kShelfBytes = std::size_t(256) << 20;

class WorkSetShelf {
public:
    // Sets of other sizes go first, so that they do not hold memory the new run's sets need.
    std::unique_ptr<WorkSet> take(std::size_t n) {
        std::lock_guard lock(m_mutex);
        std::erase_if(m_sets, [n](const auto& s) { return s->n != n; });
        if (m_sets.empty()) return nullptr;
        std::unique_ptr<WorkSet> set = std::move(m_sets.back());
        m_sets.pop_back();
        return set;
    }
    // Keeps the sets of this run's size while they fit; sets of other sizes go.
    void give_back(std::vector<std::unique_ptr<WorkSet>>& sets) {
        std::lock_guard lock(m_mutex);
        std::erase_if(m_sets, [&](const auto& s) { return sets.empty() || s->n != sets.front()->n; });
        std::size_t bytes = 0;
        for (const auto& s : m_sets) bytes += s->bytes();
        for (auto& s : sets)
            if (s && bytes + s->bytes() <= kShelfBytes) {
                bytes += s->bytes();
                m_sets.push_back(std::move(s));
            }
        sets.clear();
    }

private:
    std::mutex m_mutex;
    std::vector<std::unique_ptr<WorkSet>> m_sets;
};

WorkSetShelf& shelf() {
    static WorkSetShelf s;
    return s;
}

struct AgentResult {
    double cost = -1;
    std::uint32_t steps = 0;
    bool cancelled = false;
};

// h(v) for one goal, specialised per heuristic kind so the relax loop has no switch.
template <BatchHeuristic::Kind K>
struct GoalHeuristic {
    GoalHeuristic(const BatchHeuristic& h, const CsrGraph& g, Vertex t)
        : m_coords(g.coords.data()),
          m_width(Vertex(std::max(h.grid_width, 1))),
          m_orth(h.orth),
          m_diag(h.diag),
          m_scale(h.scale) {
        if constexpr (K == BatchHeuristic::Kind::Grid) {
            m_tx = double(t % m_width);
            m_ty = double(t / m_width);
        } else if constexpr (K == BatchHeuristic::Kind::Coords) {
            m_goal = g.coords[t];
        }
    }
    double operator()(Vertex v) const {
        if constexpr (K == BatchHeuristic::Kind::Grid) {
            const double dx = std::abs(double(v % m_width) - m_tx);
            const double dy = std::abs(double(v / m_width) - m_ty);
            const double lo = std::min(dx, dy), hi = std::max(dx, dy);
            return m_diag * lo + m_orth * (hi - lo);
        } else if constexpr (K == BatchHeuristic::Kind::Coords) {
            const Point3& p = m_coords[v];
            const double dx = p.x - m_goal.x, dy = p.y - m_goal.y, dz = p.z - m_goal.z;
            return m_scale * std::sqrt(dx * dx + dy * dy + dz * dz);
        } else {
            (void)v;
            return 0.0;
        }
    }
    // Copies, not references: the relax loop then keeps them in registers.
    const Point3* m_coords;
    Vertex m_width;
    double m_orth, m_diag, m_scale;
    double m_tx = 0, m_ty = 0;
    Point3 m_goal;
};

template <BatchHeuristic::Kind K, bool Weighted>
AgentResult search(const CsrGraph& graph, const BatchHeuristic& heuristic, WorkSet& ws, Vertex start, Vertex goal,
                   const std::atomic<bool>* cancel) {
    AgentResult r;
    if (start == goal) {
        r.cost = 0;
        return r;
    }
    ws.next_search();
    const std::uint32_t open = ws.open_tag(), closed = ws.closed_tag();
    const GoalHeuristic<K> h(heuristic, graph, goal);
    const std::uint32_t* offsets = graph.offsets.data();
    const Vertex* targets = graph.targets.data();
    const double* weights = graph.weights.data();
    double* g = ws.g.get();
    std::uint32_t* stamp = ws.stamp.get();
    g[start] = 0;
    stamp[start] = open;
    ws.heap.push({h(start), 0.0f, start});
    std::uint64_t steps = 0;
    while (!ws.heap.empty()) {
        const Vertex u = ws.heap.take().v;
        if (stamp[u] == closed) continue;
        stamp[u] = closed;
        ++steps;
        const double gu = g[u];
        // Goal test on expansion: with a consistent heuristic g(goal) is final only now.
        if (u == goal) {
            r.cost = gu;
            break;
        }
        if ((steps & kCancelMask) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
            r.cancelled = true;
            break;
        }
        for (std::uint32_t e = offsets[u], end = offsets[u + 1]; e < end; ++e) {
            const Vertex w = targets[e];
            const std::uint32_t s = stamp[w];
            if (s == closed) continue;
            const double ng = gu + (Weighted ? weights[e] : 1.0);
            if (s != open || ng < g[w]) {
                g[w] = ng;
                stamp[w] = open;
                ws.heap.push({ng + h(w), float(ng), w});
            }
        }
    }
    r.steps = std::uint32_t(std::min<std::uint64_t>(steps, 0xFFFFFFFFu));
    return r;
}

using SearchFn = AgentResult (*)(const CsrGraph&, const BatchHeuristic&, WorkSet&, Vertex, Vertex,
                                 const std::atomic<bool>*);

template <BatchHeuristic::Kind K>
SearchFn pick_weighted(bool weighted) {
    return weighted ? &search<K, true> : &search<K, false>;
}

SearchFn pick(const BatchHeuristic& h, bool weighted) {
    switch (h.kind) {
    case BatchHeuristic::Kind::Grid:
        return pick_weighted<BatchHeuristic::Kind::Grid>(weighted);
    case BatchHeuristic::Kind::Coords:
        return pick_weighted<BatchHeuristic::Kind::Coords>(weighted);
    case BatchHeuristic::Kind::Zero:
        break;
    }
    return pick_weighted<BatchHeuristic::Kind::Zero>(weighted);
}

}  // namespace

BatchHeuristic choose_batch_heuristic(const CsrGraph& graph, bool dijkstra) {
    BatchHeuristic h;
    if (dijkstra) return h;
    if (graph.grid_width > 0) {
        // A grid graph's weights come from step_cost(): one weight tells the metric.
        bool known = true;
        if (graph.weights.empty()) {
            h.orth = h.diag = 1.0;  // every step costs 1, diagonals included
        } else {
            const double w = graph.weights.front();
            if (w == double(kIntOrthogonal) || w == double(kIntDiagonal))
                h.orth = double(kIntOrthogonal), h.diag = double(kIntDiagonal);
            else if (w == 1.0 || w == kSqrt2)
                h.orth = 1.0, h.diag = kSqrt2;
            else
                known = false;
        }
        if (known) {
            h.kind = BatchHeuristic::Kind::Grid;
            h.grid_width = graph.grid_width;
            return h;
        }
    }
    const double scale = euclidean_heuristic_scale(graph);
    if (scale > 0) {
        h.kind = BatchHeuristic::Kind::Coords;
        h.scale = scale;
    }
    return h;
}

std::string describe(const BatchHeuristic& h) {
    switch (h.kind) {
    case BatchHeuristic::Kind::Grid:
        return h.orth == 1.0 && h.diag == 1.0 ? "grid octile (unit steps)"
               : h.orth == 1.0                ? "grid octile (1, sqrt2)"
                                              : "grid octile (1000, 1414)";
    case BatchHeuristic::Kind::Coords: {
        char text[64];
        std::snprintf(text, sizeof text, "euclidean on coords x %.6g", h.scale);
        return text;
    }
    case BatchHeuristic::Kind::Zero:
        break;
    }
    return "zero (dijkstra)";
}

double batch_heuristic_value(const BatchHeuristic& h, const CsrGraph& graph, Vertex v, Vertex t) {
    switch (h.kind) {
    case BatchHeuristic::Kind::Grid:
        return GoalHeuristic<BatchHeuristic::Kind::Grid>(h, graph, t)(v);
    case BatchHeuristic::Kind::Coords:
        return GoalHeuristic<BatchHeuristic::Kind::Coords>(h, graph, t)(v);
    case BatchHeuristic::Kind::Zero:
        break;
    }
    return 0.0;
}

BatchCpuOutput batch_search_cpu(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents,
                                const BatchCpuOptions& options) {
    BatchCpuOutput out;
    out.heuristic = choose_batch_heuristic(graph, options.dijkstra);
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(threads, agents.size())));
    out.threads = threads;
    out.costs.assign(agents.size(), -1.0);
    out.steps.assign(agents.size(), 0);
    if (agents.empty()) return out;

    const std::size_t n = graph.vertex_count();
    std::vector<std::unique_ptr<WorkSet>> sets;
    {
        Stopwatch watch;
        try {
            for (unsigned t = 0; t < threads; ++t) {
                sets.push_back(shelf().take(n));
                if (sets.back())
                    ++out.reused_sets;
                else
                    sets.back() = std::make_unique<WorkSet>(n);
            }
        } catch (const std::bad_alloc&) {
            std::erase_if(sets, [](const auto& set) { return !set; });
            shelf().give_back(sets);
            out.error = "out of memory: " + std::to_string(threads) + " working sets of " + std::to_string(n) +
                        " vertices (12 bytes each) do not fit; use fewer threads (--param threads=N)";
            return out;
        }
        out.allocate_ms = watch.elapsed_ms();
    }

    const SearchFn fn = pick(out.heuristic, graph.weighted());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex error_mutex;
    if (options.record_spans) {
        out.span_start_ns.assign(agents.size(), 0);
        out.span_end_ns.assign(agents.size(), 0);
        out.span_worker.assign(agents.size(), 0);
    }
    auto worker = [&](unsigned index) {
        WorkSet& ws = *sets[index];
        try {
            for (;;) {
                if (stop.load(std::memory_order_relaxed)) return;
                if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
                    stop = true;
                    return;
                }
                const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
                if (i >= agents.size()) return;
                // One predictable branch per agent when not tracing.
                const std::int64_t began = options.record_spans ? now_ns() : 0;
                const AgentResult r = fn(graph, out.heuristic, ws, agents[i].first, agents[i].second, options.cancel);
                if (options.record_spans) {
                    out.span_start_ns[i] = std::uint64_t(began);
                    out.span_end_ns[i] = std::uint64_t(now_ns());
                    out.span_worker[i] = index;
                }
                if (r.cancelled) {
                    stop = true;
                    return;
                }
                out.costs[i] = r.cost;
                out.steps[i] = r.steps;
            }
        } catch (const std::bad_alloc&) {
            std::lock_guard lock(error_mutex);
            if (out.error.empty()) out.error = "out of memory in a search heap; use fewer threads (--param threads=N)";
            stop = true;
        }
    };
    Stopwatch watch;
    out.started_threads = WorkerPool::shared().run(threads, worker);  // this thread is worker 0
    out.compute_ms = watch.elapsed_ms();
    out.cancelled = stop.load() && out.error.empty();
    shelf().give_back(sets);
    return out;
}

std::uint32_t percentile(std::vector<std::uint32_t> values, double p) {
    if (values.empty()) return 0;
    const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * double(values.size()));
    const std::size_t k = rank < 1 ? 0 : std::size_t(rank) - 1;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
    return values[k];
}

void add_batch_counters(RunResult& result) {
    const auto& costs = result.agent_costs;
    const auto& steps = result.agent_steps;
    std::size_t unreachable = 0;
    double sum_cost = 0;
    for (double c : costs) {
        if (c < 0)
            ++unreachable;
        else
            sum_cost += c;
    }
    const std::uint64_t total = std::accumulate(steps.begin(), steps.end(), std::uint64_t(0));
    const double mean = steps.empty() ? 0.0 : double(total) / double(steps.size());
    const std::uint32_t max = steps.empty() ? 0 : *std::max_element(steps.begin(), steps.end());
    result.counters["agents"] = double(costs.size());
    result.counters["agents_unreachable"] = double(unreachable);
    result.counters["expanded_total"] = double(total);
    result.counters["steps_mean"] = mean;
    result.counters["steps_max"] = double(max);
    result.counters["steps_p50"] = double(percentile(steps, 50));
    result.counters["steps_p95"] = double(percentile(steps, 95));
    result.counters["steps_imbalance"] = mean > 0 ? double(max) / mean : 0.0;
    result.expanded = total;
    result.found = unreachable < costs.size();
    result.cost = sum_cost;
}

std::vector<HistogramBin> log_histogram(const std::vector<std::uint32_t>& values, int bins) {
    if (values.empty() || bins < 1) return {};
    const auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
    const std::uint64_t mn = *min_it, mx = *max_it;
    // Geometric edges between max(1, min) and max + 1, rounded up to integers; duplicates
    // (narrow ranges at small counts) are dropped, so there may be fewer than `bins` bins.
    const double lo = std::max<double>(1.0, double(mn)), hi = double(mx) + 1.0;
    std::vector<std::uint64_t> edges{mn};
    for (int k = 1; k < bins; ++k) {
        const auto e = std::uint64_t(std::ceil(lo * std::pow(hi / lo, double(k) / bins) - 1e-9));
        if (e > edges.back() && e <= mx) edges.push_back(e);
    }
    edges.push_back(mx + 1);
    std::vector<HistogramBin> out(edges.size() - 1);
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) out[i] = {edges[i], edges[i + 1] - 1, 0};
    for (std::uint32_t v : values) {
        const auto it = std::upper_bound(edges.begin(), edges.end(), std::uint64_t(v));
        ++out[std::size_t(it - edges.begin()) - 1].count;
    }
    return out;
}

}  // namespace ps
