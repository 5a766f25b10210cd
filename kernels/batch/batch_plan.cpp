// Host-side arithmetic of the GPU batch searches (see batch_plan.hpp).
#include "kernels/batch/batch_plan.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "kernels/batch/batch_cpu.hpp"
#include "kernels/gpu/gpu_info.hpp"

namespace ps::gpu {

std::string_view to_string(BatchStrategy s) {
    switch (s) {
    case BatchStrategy::Bsp:
        return "bsp";
    case BatchStrategy::Batch:
        return "batch";
    case BatchStrategy::Queue:
        return "queue";
    case BatchStrategy::Permute:
        return "permute";
    }
    return "?";
}

std::string BatchMemoryPlan::describe() const {
    if (!error.empty()) return error;
    std::string s = "working set " + mib(working_set_bytes) + ": " + std::to_string(slots) + " search slots x " +
                    mib(bytes_per_slot) + " + graph " + mib(graph_bytes) + " + agent lists " + mib(agent_io_bytes);
    if (chunks > 1)
        s += "; more than the " + mib(budget_bytes) + " budget for all agents at once: split into " +
             std::to_string(chunks) + " launches of up to " + std::to_string(slots) + " agents";
    else
        s += ", one launch";
    return s;
}

BatchMemoryPlan plan_batch_memory(std::uint64_t vertices, std::uint64_t edges, bool coords, std::uint64_t agents,
                                  const BatchGpuOptions& options, std::uint64_t budget_bytes,
                                  std::uint64_t wanted_slots) {
    BatchMemoryPlan p;
    p.budget_bytes = budget_bytes;
    p.graph_bytes =
        vertices * batch::kRangeBytes + edges * batch::kEdgeBytes + (coords ? vertices * batch::kCoordBytes : 0);
    const std::uint64_t per_agent = batch::kPairBytes + sizeof(float) + sizeof(std::uint32_t) +
                                    (batch::order_of(options) != BatchOrder::Index ? sizeof(std::uint32_t) : 0) +
                                    (options.stamp_agents ? 2 * sizeof(std::uint64_t) + sizeof(std::uint32_t) : 0);
    p.agent_io_bytes = agents * per_agent;
    p.bytes_per_slot = vertices * sizeof(std::uint64_t) +
                       batch::heap_entries(batch::heap_capacity(options, vertices)) * sizeof(std::uint64_t) +
                       (options.strategy == BatchStrategy::Bsp ? batch::kSlotStateBytes : 0);
    const std::uint64_t fixed = p.graph_bytes + p.agent_io_bytes + batch::kControlBytes;
    if (agents == 0) {
        p.working_set_bytes = fixed;
        return p;
    }
    if (budget_bytes < fixed + p.bytes_per_slot) {
        p.error = "not enough GPU memory: the graph (" + mib(p.graph_bytes) + "), the agent lists (" +
                  mib(p.agent_io_bytes) + ") and one search slot (" + mib(p.bytes_per_slot) + ") need " +
                  mib(fixed + p.bytes_per_slot) + ", the budget is " + mib(budget_bytes) +
                  " (free GPU memory minus a margin, or max_working_set_mb)";
        return p;
    }
    const std::uint64_t fit = (budget_bytes - fixed) / p.bytes_per_slot;
    // Interleaved indices (vertex * slots + slot) and launch sizes stay in 32-bit thread ids.
    const std::uint64_t cap = std::min<std::uint64_t>(fit, 1ull << 31);
    if (options.strategy == BatchStrategy::Queue) {
        p.slots = std::min(std::max<std::uint64_t>(1, wanted_slots), cap);
        p.chunks = 1;
    } else {
        p.slots = std::min(agents, cap);
        p.chunks = (agents + p.slots - 1) / p.slots;
    }
    p.working_set_bytes = fixed + p.slots * p.bytes_per_slot;
    return p;
}

}  // namespace ps::gpu

namespace ps::gpu::batch {

std::uint32_t heap_capacity(const BatchGpuOptions& o, std::uint64_t vertices) {
    const std::uint64_t v = std::max<std::uint64_t>(1, vertices);
    return std::uint32_t(o.heap_capacity == 0 ? v : std::min<std::uint64_t>(o.heap_capacity, v));
}

std::uint32_t top_entries(const BatchGpuOptions& o, std::uint32_t capacity) {
    if (o.strategy == BatchStrategy::Bsp) return 0;
    return std::min(top_entries(o.shared_levels), capacity);
}

BatchOrder order_of(const BatchGpuOptions& o) {
    if (o.strategy == BatchStrategy::Permute) return BatchOrder::Shuffle;
    if (o.strategy == BatchStrategy::Bsp) return BatchOrder::Index;
    return o.order;
}

std::uint64_t memory_budget(std::uint64_t free_bytes, std::uint64_t total_bytes, std::uint64_t max_working_set_bytes) {
    // Leave room for the CUDA context's own needs and other users of the GPU.
    const std::uint64_t margin = std::max<std::uint64_t>(256ull << 20, total_bytes / 20);
    const std::uint64_t available = free_bytes > margin ? free_bytes - margin : 0;
    return max_working_set_bytes ? std::min(max_working_set_bytes, available) : available;
}

std::string check_agents(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents) {
    const std::uint32_t n = graph.vertex_count();
    for (std::size_t i = 0; i < agents.size(); ++i) {
        const auto [s, g] = agents[i];
        if (s >= n || g >= n)
            return "agent " + std::to_string(i) + ": " +
                   (s >= n ? "start " + std::to_string(s) : "goal " + std::to_string(g)) +
                   " is not a vertex of the graph (" + std::to_string(n) + " vertices)";
    }
    if (agents.size() > 0xFFFFFFFFull) return "too many agents for 32-bit agent ids";
    return {};
}

// A counting sort on 4096 buckets of the distance (O(n): a comparison sort of 100k keys would
// cost more than the searches save).
std::vector<std::uint32_t> longest_first(const CsrGraph& graph, const std::vector<std::pair<Vertex, Vertex>>& agents) {
    using u32 = std::uint32_t;
    const BatchHeuristic h = choose_batch_heuristic(graph, false);
    std::vector<double> key(agents.size());
    double top = 0;
    for (std::size_t i = 0; i < agents.size(); ++i) {
        key[i] = batch_heuristic_value(h, graph, agents[i].first, agents[i].second);
        top = std::max(top, key[i]);
    }
    constexpr std::size_t kBuckets = 4096;
    std::vector<u32> start(kBuckets + 1, 0), bucket(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
        const double b = top > 0 ? key[i] / top * double(kBuckets - 1) : 0.0;
        bucket[i] = u32(kBuckets - 1) - std::min<u32>(u32(b), u32(kBuckets - 1));  // longest in bucket 0
        ++start[bucket[i] + 1];
    }
    for (std::size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    std::vector<u32> order(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) order[start[bucket[i]]++] = u32(i);
    return order;
}

std::vector<std::uint32_t> make_order(BatchOrder order, const CsrGraph& graph,
                                      const std::vector<std::pair<Vertex, Vertex>>& agents, std::uint64_t seed) {
    if (order == BatchOrder::LongestFirst) return longest_first(graph, agents);
    std::vector<std::uint32_t> out;
    if (order == BatchOrder::Shuffle) {
        out.resize(agents.size());
        std::iota(out.begin(), out.end(), 0u);
        std::shuffle(out.begin(), out.end(), std::mt19937_64(seed));
    }
    return out;
}

double simt_efficiency(const std::vector<std::uint32_t>& steps, const std::vector<std::uint32_t>* order) {
    // Useful expansions / expansions a warp pays for (32 x its longest search), for a fixed
    // agent-to-thread mapping: what permutation tries to raise.
    double useful = 0, paid = 0;
    const std::size_t n = steps.size();
    for (std::size_t w = 0; w < n; w += 32) {
        std::uint32_t longest = 0;
        for (std::size_t i = w; i < std::min(n, w + 32); ++i) {
            const std::uint32_t s = steps[order ? (*order)[i] : i];
            useful += s;
            longest = std::max(longest, s);
        }
        paid += 32.0 * longest;
    }
    return paid > 0 ? useful / paid : 1.0;
}

}  // namespace ps::gpu::batch
