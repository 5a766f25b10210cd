// Bidirectional BFS on the CPU and its variant (see bfs_bidir.hpp).
//
// Why the distance is exact: both halves expand whole levels, so every label is the exact
// distance from its half's root, and when the target half has labelled levels 0..Dt and the
// start half 0..Ds without a common vertex, the distance D is at least Dt + Ds + 1 (a shortest
// path's vertex at distance Ds from the start would otherwise be Dt or less from the target).
// The level that first meets labels a common vertex with start_level + target_level at most
// Dt + Ds + 1 (one of them new), hence at D. Taking the minimum over every vertex both halves
// labelled, after finishing the level, keeps that argument independent of scan order.
#include "kernels/bfs/bfs_bidir.hpp"

#include <algorithm>
#include <limits>

#include "instrumentation/capture/clock.hpp"
#include "instrumentation/capture/nvtx.hpp"
#include "kernels/run/edges_visited.hpp"
#include "kernels/search/cpu_search.hpp"

namespace ps {
namespace {

constexpr std::uint64_t kCancelMask = 65536 - 1;

bool cancel_requested(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

class BfsCpuBidir final : public Variant {
public:
    BfsCpuBidir() {
        m_info.id = "bfs.cpu.bidir";
        m_info.family = Family::Bfs;
        m_info.device = DeviceKind::Cpu;
        m_info.description =
            "bidirectional BFS: whole levels of the smaller frontier until the halves meet (no start: the target's "
            "half alone)";
        m_info.reference_id = "bfs.cpu.queue";
    }
    const VariantInfo& info() const override { return m_info; }

    RunResult run(const Problem& problem, const RunContext& context) const override {
        auto graph = problem.bfs_graph();
        if (!graph) return failed_run(graph.error().message);
        RunResult result;
        Stopwatch total;
        BidirBfsOutput out;
        {
            nvtx::ScopedRange range(nvtx::Phase::Compute, m_info.id);
            Stopwatch compute;
            out = bfs_bidir(**graph, problem.start, problem.goal, context.cancel);
            result.phases.compute_ms = compute.elapsed_ms();
        }
        if (out.cancelled) {
            result.status = RunStatus::Cancelled;
            return result;
        }
        result.found = out.found;
        result.cost = out.found ? double(out.distance) : 0;
        result.path = std::move(out.path);
        result.expanded = out.expanded;
        result.visited = out.target_visited + out.start_visited - out.meeting;
        // The target half searches as every BFS variant does, so its labels are the reference's
        // levels up to its depth: what validation compares and the animation shows.
        result.levels = out.target_depth;
        result.bfs_levels = std::move(out.target_levels);
        result.bfs_levels_prefix = true;
        result.counters["target_visited"] = double(out.target_visited);
        result.counters["start_visited"] = double(out.start_visited);
        result.counters["start_depth"] = double(out.start_depth);
        result.counters["meeting_cells"] = double(out.meeting);
        // bfs_levels hold the target half alone, so the runner cannot count from them: the edges
        // both halves scanned (kernels/run/edges_visited.hpp).
        result.counters[kEdgesVisitedCounter] = double(out.edges);
        result.phases.total_ms = total.elapsed_ms();
        return result;
    }

private:
    VariantInfo m_info;
};

}  // namespace

BidirBfsOutput bfs_bidir(const CsrGraph& graph, Vertex start, Vertex target, const std::atomic<bool>* cancel) {
    const std::uint32_t n = graph.vertex_count();
    BidirBfsOutput out;
    out.target_levels.assign(n, kUnreached);
    out.start_levels.assign(n, kUnreached);
    if (target >= n) return out;
    const bool has_start = start < n;
    const std::uint32_t* offsets = graph.offsets.data();
    const Vertex* targets = graph.targets.data();
    out.target_levels[target] = 0;
    out.target_depth = 1;
    out.target_visited = 1;
    std::vector<Vertex> target_frontier{target}, start_frontier, next;
    if (has_start) {
        out.start_levels[start] = 0;
        out.start_depth = 1;
        out.start_visited = 1;
        start_frontier.push_back(start);
    }
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    Vertex meet = kNoVertex;
    if (start == target) {
        best = 0;
        meet = start;
        out.meeting = 1;
    }
    std::uint64_t scanned = 0;
    while (meet == kNoVertex && !target_frontier.empty() && (!has_start || !start_frontier.empty())) {
        if (cancel_requested(cancel)) {
            out.cancelled = true;
            return out;
        }
        // The smaller frontier costs less to expand. Equal frontiers (corridors) take turns,
        // the shallower half first, then the target half, the one validation compares.
        const bool from_target = !has_start || (target_frontier.size() != start_frontier.size()
                                                    ? target_frontier.size() < start_frontier.size()
                                                    : out.target_depth <= out.start_depth);
        std::vector<std::int32_t>& own = from_target ? out.target_levels : out.start_levels;
        const std::vector<std::int32_t>& other = from_target ? out.start_levels : out.target_levels;
        std::vector<Vertex>& frontier = from_target ? target_frontier : start_frontier;
        std::int32_t& depth = from_target ? out.target_depth : out.start_depth;
        const std::int32_t level = depth;  // the frontier holds level depth - 1
        next.clear();
        for (const Vertex v : frontier) {
            if ((++scanned & kCancelMask) == 0 && cancel_requested(cancel)) {
                out.cancelled = true;
                return out;
            }
            out.edges += offsets[v + 1] - offsets[v];
            for (std::uint32_t e = offsets[v]; e < offsets[v + 1]; ++e) {
                const Vertex w = targets[e];
                if (own[w] != kUnreached) continue;
                own[w] = level;
                next.push_back(w);
                if (other[w] == kUnreached) continue;
                ++out.meeting;
                const std::int64_t through = std::int64_t(level) + other[w];
                if (through < best) {
                    best = through;
                    meet = w;
                }
            }
        }
        out.expanded += frontier.size();
        frontier.swap(next);
        if (frontier.empty()) continue;
        depth = level + 1;
        (from_target ? out.target_visited : out.start_visited) += frontier.size();
    }
    if (meet == kNoVertex) return out;
    out.found = true;
    out.distance = std::int32_t(best);
    // Both labellings descend to their roots from the meeting vertex: start .. meet .. target.
    out.path = bfs_path(graph, out.start_levels, meet);
    std::reverse(out.path.begin(), out.path.end());
    const std::vector<Vertex> rest = bfs_path(graph, out.target_levels, meet);
    if (!rest.empty()) out.path.insert(out.path.end(), rest.begin() + 1, rest.end());
    return out;
}

std::unique_ptr<Variant> make_bfs_cpu_bidir() { return std::make_unique<BfsCpuBidir>(); }

}  // namespace ps
