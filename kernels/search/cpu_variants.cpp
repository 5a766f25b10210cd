// CPU variants: thin adapters from the variant interface to the reference searches in
// cpu_search.hpp. On the CPU there is nothing to upload or download: the compute phase covers
// the search including its working arrays, and total covers everything the variant did.
#include "kernels/search/cpu_variants.hpp"

#include <limits>
#include <string>

#include "instrumentation/capture/clock.hpp"
#include "instrumentation/capture/nvtx.hpp"
#include "kernels/search/bucket_astar.hpp"
#include "kernels/search/jps.hpp"

namespace ps {
namespace {

// A recording within the context's budget when it asks for one (sampled on large maps).
std::shared_ptr<SearchRecording> recording_for(const Problem& problem, const RunContext& context) {
    if (!context.record) return nullptr;
    auto recording = std::make_shared<SearchRecording>();
    recording->vertex_stride = SearchRecording::stride_for(problem.map->cell_count(), context.recording_budget_bytes);
    recording->max_events = context.recording_budget_bytes / sizeof(SearchRecording::Event);
    return recording;
}

// The search's outcome into the result: found, cost, path, expansions, pushes, the recording.
void take_search(RunResult& result, SearchOutput&& out, std::shared_ptr<SearchRecording> recording) {
    result.found = out.found;
    result.cost = out.found ? out.cost : 0;
    result.path = std::move(out.path);
    result.expanded = out.expanded;
    result.counters["generated"] = double(out.generated);
    result.recording = std::move(recording);
}

class BfsCpu final : public Variant {
public:
    explicit BfsCpu(bool queue) : m_queue(queue) {
        m_info.id = queue ? "bfs.cpu.queue" : "bfs.cpu";
        m_info.family = Family::Bfs;
        m_info.device = DeviceKind::Cpu;
        m_info.description = queue ? "BFS with std::queue (the reference for every BFS variant)"
                                   : "BFS paper's CPU variant: sweep all vertices once per level";
        m_info.reference_id = "bfs.cpu.queue";
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        auto graph = problem.bfs_graph();
        if (!graph) return failed_run(graph.error().message);
        const Vertex stop = problem.bfs_stop_at_start ? problem.start : kNoVertex;
        Stopwatch total;
        BfsOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            Stopwatch compute;
            out = m_queue ? bfs_queue(**graph, problem.goal, stop, context.cancel)
                          : bfs_sweep(**graph, problem.goal, stop, context.cancel);
            result.phases.compute_ms = compute.elapsed_ms();
        }
        if (out.cancelled) {
            result.status = RunStatus::Cancelled;
            return result;
        }
        result.levels = out.depth;
        result.visited = out.visited;
        result.expanded = out.visited;
        if (problem.start != kNoVertex && out.levels[problem.start] != kUnreached) {
            result.found = true;
            result.cost = out.levels[problem.start];
            result.path = bfs_path(**graph, out.levels, problem.start);
        }
        result.bfs_levels = std::move(out.levels);
        result.phases.total_ms = total.elapsed_ms();
        return result;
    }

private:
    bool m_queue;
    VariantInfo m_info;
};

enum class SearchKind { Dijkstra, AStar, Bidirectional, Weighted, Greedy };

class SearchCpu final : public Variant {
public:
    explicit SearchCpu(SearchKind kind) : m_kind(kind) {
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Cpu;
        m_info.reference_id = "dijkstra.cpu";
        m_info.cell_costs = true;  // every one of them walks GridView's weighted steps
        switch (kind) {
        case SearchKind::Dijkstra:
            m_info.id = "dijkstra.cpu";
            m_info.description = "Dijkstra with a binary heap (the reference for every shortest-path variant)";
            break;
        case SearchKind::AStar:
            m_info.id = "astar.cpu";
            m_info.description = "A* with a binary heap and the problem's heuristic";
            break;
        case SearchKind::Bidirectional:
            m_info.id = "astar.cpu.bidir";
            m_info.description = "Bidirectional A* (front-to-end heuristics, two binary heaps)";
            break;
        case SearchKind::Weighted:
            m_info.id = "wastar.cpu";
            m_info.description =
                "Weighted A*: ordered by g + w h, each vertex expanded once (cost at most w times the "
                "optimum)";
            m_info.params = {choice_param("w", "1.5", "the heuristic's weight (1: A*)",
                                          {"1", "1.1", "1.25", "1.5", "2", "3", "5", "10"})};
            break;
        case SearchKind::Greedy:
            m_info.id = "greedy.cpu";
            m_info.description = "Greedy best-first: ordered by h alone (fast, any path; its cost beside the optimum)";
            break;
        }
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        GridSearchSpec spec{problem.rules, problem.cost_mode,
                            m_kind == SearchKind::Dijkstra ? Heuristic::Zero : problem.heuristic};
        const std::shared_ptr<SearchRecording> recording = recording_for(problem, context);
        Stopwatch total;
        SearchOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            Stopwatch compute;
            if (m_kind == SearchKind::Bidirectional)
                out =
                    astar_bidir_grid(*problem.map, spec, problem.start, problem.goal, recording.get(), context.cancel);
            else
                out = best_first_grid(*problem.map, spec, problem.start, problem.goal, weight(problem), recording.get(),
                                      context.cancel);
            result.phases.compute_ms = compute.elapsed_ms();
        }
        if (out.cancelled) {
            result.status = RunStatus::Cancelled;
            return result;
        }
        take_search(result, std::move(out), recording);
        result.phases.total_ms = total.elapsed_ms();
        // What the validation holds the cost to (with a consistent heuristic).
        if (m_kind == SearchKind::Weighted) result.cost_bound = weight(problem);
        if (m_kind == SearchKind::Greedy) result.cost_bound = std::numeric_limits<double>::infinity();
        return result;
    }

private:
    double weight(const Problem& problem) const {
        if (m_kind == SearchKind::Greedy) return std::numeric_limits<double>::infinity();
        if (m_kind != SearchKind::Weighted) return 1.0;
        return std::stod(ParamValues(m_info, problem).text("w"));
    }

    SearchKind m_kind;
    VariantInfo m_info;
};

// A search with an output of its own (a SearchOutput `search` and counters of its kind) that
// may refuse the problem: Jump Point Search (jps.hpp) and A* with a bucket queue
// (bucket_astar.hpp).
template <class Output>
class OwnSearchCpu final : public Variant {
public:
    using Search = Expected<Output> (*)(const Problem&, SearchRecording*, const std::atomic<bool>*);
    using Counters = void (*)(const Output&, RunResult&);
    OwnSearchCpu(std::string id, std::string description, Search search, Counters counters)
        : m_search(search), m_counters(counters) {
        m_info.id = std::move(id);
        m_info.family = Family::ShortestPath;
        m_info.device = DeviceKind::Cpu;
        m_info.description = std::move(description);
        m_info.reference_id = "dijkstra.cpu";
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        RunResult result;
        const std::shared_ptr<SearchRecording> recording = recording_for(problem, context);
        Stopwatch total;
        Expected<Output> out = Output{};
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            Stopwatch compute;
            out = m_search(problem, recording.get(), context.cancel);
            result.phases.compute_ms = compute.elapsed_ms();
        }
        if (!out) return failed_run(out.error().message);
        if (out->search.cancelled) {
            result.status = RunStatus::Cancelled;
            return result;
        }
        m_counters(*out, result);
        take_search(result, std::move(out->search), recording);
        result.phases.total_ms = total.elapsed_ms();
        return result;
    }

private:
    Search m_search;
    Counters m_counters;
    VariantInfo m_info;
};

}  // namespace

std::unique_ptr<Variant> make_bfs_cpu_sweep() { return std::make_unique<BfsCpu>(false); }
std::unique_ptr<Variant> make_bfs_cpu_queue() { return std::make_unique<BfsCpu>(true); }
std::unique_ptr<Variant> make_dijkstra_cpu() { return std::make_unique<SearchCpu>(SearchKind::Dijkstra); }
std::unique_ptr<Variant> make_astar_cpu() { return std::make_unique<SearchCpu>(SearchKind::AStar); }
std::unique_ptr<Variant> make_astar_cpu_bidir() { return std::make_unique<SearchCpu>(SearchKind::Bidirectional); }
std::unique_ptr<Variant> make_wastar_cpu() { return std::make_unique<SearchCpu>(SearchKind::Weighted); }
std::unique_ptr<Variant> make_greedy_cpu() { return std::make_unique<SearchCpu>(SearchKind::Greedy); }
std::unique_ptr<Variant> make_jps_cpu() {
    return std::make_unique<OwnSearchCpu<JpsOutput>>(
        "jps.cpu", "Jump Point Search: A* over jump points (8-connected, no corner cutting; octile heuristic)",
        [](const Problem& p, SearchRecording* recording, const std::atomic<bool>* cancel) {
            return jps_grid(*p.map, p.rules, p.cost_mode, p.start, p.goal, recording, cancel);
        },
        [](const JpsOutput& out, RunResult& result) { result.counters["scanned_cells"] = double(out.scanned); });
}

std::unique_ptr<Variant> make_astar_cpu_buckets() {
    return std::make_unique<OwnSearchCpu<BucketAStarOutput>>(
        "astar.cpu.buckets",
        "A* with a bucket queue over integer f (Dial; UBA*'s open list, one vertex at a time): integer metric",
        [](const Problem& p, SearchRecording* recording, const std::atomic<bool>* cancel) {
            return bucket_astar_grid(*p.map, GridSearchSpec{p.rules, p.cost_mode, p.heuristic}, p.start, p.goal,
                                     recording, cancel);
        },
        [](const BucketAStarOutput& out, RunResult& result) { result.counters["buckets"] = double(out.buckets); });
}

}  // namespace ps
