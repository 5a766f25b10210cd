// The CPU flow field (the reference for flowfield.*), the direction rule, and agents that
// follow a field (see flowfield.hpp).
#include "kernels/flowfield/flowfield.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <string>

#include "kernels/map/generators.hpp"

namespace ps {
namespace {

constexpr std::uint64_t kCancelMask = 65536 - 1;
constexpr std::int64_t kMaxDistance = std::numeric_limits<std::int32_t>::max();

bool cancel_requested(const std::atomic<bool>* cancel) {
    return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

// Direction index of the step v -> w (neighbours), from the cell offsets.
std::uint8_t direction_of(int dx, int dy) {
    for (std::uint8_t d = 0; d < 8; ++d)
        if (kGridSteps[d].dx == dx && kGridSteps[d].dy == dy) return d;
    return kNoDirection;
}

Error overflow_error() {
    return Error{
        "the flow field's distances exceed 32 bits (paths of more than about 2 million plain steps of 1000 in "
        "the integer metric, fewer on costly terrain): use 4-connected rules on a plain map, or a smaller map"};
}

// BFS levels from the goal over the implicit grid graph.
Expected<void> bfs_levels(const GridMap& map, MoveRules rules, Vertex goal, std::vector<std::int32_t>& dist,
                          const std::atomic<bool>* cancel) {
    std::vector<Vertex> queue;
    queue.reserve(std::min<std::size_t>(map.cell_count(), std::size_t(1) << 20));
    dist[goal] = 0;
    queue.push_back(goal);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        if ((head & kCancelMask) == 0 && cancel_requested(cancel)) return cancelled_error();
        const Vertex v = queue[head];
        const std::int32_t next = dist[v] + 1;
        for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool) {
            if (dist[w] != kFlowUnreached) return;
            dist[w] = next;
            queue.push_back(w);
        });
    }
    return {};
}

// Dijkstra from the goal in the integer metric weighted by the cells' costs; heap entries pack
// (distance, vertex) so the comparison is one 64-bit compare.
Expected<void> dijkstra_distances(const GridMap& map, MoveRules rules, Vertex goal, std::vector<std::int32_t>& dist,
                                  const std::atomic<bool>* cancel) {
    std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> heap;
    dist[goal] = 0;
    heap.push(std::uint64_t(goal));
    std::uint64_t pops = 0;
    while (!heap.empty()) {
        if ((++pops & kCancelMask) == 0 && cancel_requested(cancel)) return cancelled_error();
        const std::uint64_t top = heap.top();
        heap.pop();
        const Vertex v = Vertex(top & 0xFFFFFFFFu);
        const std::int64_t d = std::int64_t(top >> 32);
        if (d != dist[v]) continue;  // stale entry
        bool overflow = false;
        const std::uint8_t here = map.cost(v);
        for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool diagonal) {
            const std::int64_t nd = d + flow_step_cost(false, here, map.cost(w), diagonal);
            if (nd > kMaxDistance) {
                overflow = true;
                return;
            }
            if (dist[w] != kFlowUnreached && dist[w] <= nd) return;
            dist[w] = std::int32_t(nd);
            heap.push((std::uint64_t(nd) << 32) | w);
        });
        if (overflow) return overflow_error();
    }
    return {};
}

}  // namespace

std::uint8_t flow_move_mask(const GridMap& map, MoveRules rules, Vertex v) {
    if (!map.passable(v)) return 0;
    const int x = int(v % Vertex(map.width()));
    const int y = int(v / Vertex(map.width()));
    std::uint8_t mask = 0;
    for_each_grid_neighbour(map, rules, v, [&](Vertex w, bool) {
        const int wx = int(w % Vertex(map.width()));
        const int wy = int(w / Vertex(map.width()));
        mask |= std::uint8_t(1u << direction_of(wx - x, wy - y));
    });
    return mask;
}

std::uint8_t flow_direction(const GridMap& map, MoveRules rules, bool levels, const std::vector<std::int32_t>& distance,
                            Vertex v) {
    const std::int32_t here = distance[v];
    if (here <= 0) return kNoDirection;  // the goal, unreachable, or blocked
    const std::uint8_t mask = flow_move_mask(map, rules, v);
    const int x = int(v % Vertex(map.width()));
    const int y = int(v / Vertex(map.width()));
    const std::uint8_t own = map.cost(v);
    for (std::uint8_t d = 0; d < 8; ++d) {
        if (!(mask & (1u << d))) continue;
        const Vertex w = map.index(x + kGridSteps[d].dx, y + kGridSteps[d].dy);
        const std::int32_t there = distance[w];
        if (there != kFlowUnreached &&
            std::int64_t(there) + flow_step_cost(levels, own, map.cost(w), is_diagonal_direction(d)) == here)
            return d;
    }
    return kNoDirection;
}

namespace {

std::vector<std::uint8_t> directions_of(const GridMap& map, MoveRules rules, bool levels,
                                        const std::vector<std::int32_t>& distance) {
    std::vector<std::uint8_t> dirs(map.cell_count(), kNoDirection);
    for (Vertex v = 0; v < Vertex(map.cell_count()); ++v) dirs[v] = flow_direction(map, rules, levels, distance, v);
    return dirs;
}

}  // namespace

std::vector<std::uint8_t> flow_directions(const GridMap& map, MoveRules rules,
                                          const std::vector<std::int32_t>& distance) {
    return directions_of(map, rules, flow_uses_levels(map, rules), distance);
}

Expected<FlowField> compute_flow_field(const GridMap& map, MoveRules rules, Vertex goal,
                                       const std::atomic<bool>* cancel) {
    if (goal >= map.cell_count()) return Error{"the goal lies outside the map"};
    if (!map.passable(goal)) {
        const Cell c = map.cell(goal);
        return Error{"the goal (" + std::to_string(c.x) + "," + std::to_string(c.y) + ") is a blocked cell"};
    }
    FlowField field;
    field.width = map.width();
    field.height = map.height();
    field.rules = rules;
    field.levels = flow_uses_levels(map, rules);
    field.goal = goal;
    field.distance.assign(map.cell_count(), kFlowUnreached);
    auto done = field.levels ? bfs_levels(map, rules, goal, field.distance, cancel)
                             : dijkstra_distances(map, rules, goal, field.distance, cancel);
    if (!done) return done.error();
    if (cancel_requested(cancel)) return cancelled_error();
    field.dirs = directions_of(map, rules, field.levels, field.distance);
    return field;
}

std::vector<Vertex> follow_flow(const FlowField& field, Vertex from) {
    std::vector<Vertex> path;
    if (from >= field.cell_count() || field.distance[from] == kFlowUnreached) return path;
    path.push_back(from);
    // Every step lowers the distance in a valid field; the bound stops broken ones.
    for (Vertex v = from; v != field.goal;) {
        const std::uint8_t d = field.dirs[v];
        if (d >= 8 || path.size() > field.cell_count()) return {};
        const int x = int(v % Vertex(field.width)) + kGridSteps[d].dx;
        const int y = int(v / Vertex(field.width)) + kGridSteps[d].dy;
        if (x < 0 || y < 0 || x >= field.width || y >= field.height) return {};
        v = field.neighbour(v, d);
        path.push_back(v);
    }
    return path;
}

std::size_t advance_agents(const FlowField& field, std::span<Vertex> positions, int steps) {
    auto step_of = [&](Vertex v) -> std::uint8_t {
        if (v >= field.cell_count() || v == field.goal) return kNoDirection;
        const std::uint8_t d = field.dirs[v];
        if (d >= 8) return kNoDirection;
        const int x = int(v % Vertex(field.width)) + kGridSteps[d].dx;
        const int y = int(v / Vertex(field.width)) + kGridSteps[d].dy;
        return x >= 0 && y >= 0 && x < field.width && y < field.height ? d : kNoDirection;
    };
    for (int s = 0; s < steps; ++s)
        for (Vertex& p : positions)
            if (const std::uint8_t d = step_of(p); d != kNoDirection) p = field.neighbour(p, d);
    return std::size_t(
        std::count_if(positions.begin(), positions.end(), [&](Vertex p) { return step_of(p) != kNoDirection; }));
}

std::vector<Vertex> place_agents(const FlowField& field, std::size_t count, std::uint64_t seed) {
    std::vector<Vertex> cells;
    for (Vertex v = 0; v < Vertex(field.cell_count()); ++v)
        if (field.distance[v] > 0) cells.push_back(v);
    count = std::min(count, cells.size());
    // Partial Fisher-Yates: the first `count` entries are a uniform sample without repeats.
    Rng rng(seed);
    for (std::size_t i = 0; i < count; ++i) std::swap(cells[i], cells[i + rng.below(cells.size() - i)]);
    cells.resize(count);
    return cells;
}

}  // namespace ps
