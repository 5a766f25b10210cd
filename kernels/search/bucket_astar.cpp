// A* with a bucket queue (bucket_astar.hpp).
#include "kernels/search/bucket_astar.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace ps {

namespace {

constexpr std::int64_t kNoG = std::numeric_limits<std::int64_t>::max();

}  // namespace

Expected<BucketAStarOutput> bucket_astar_grid(const GridMap& map, const GridSearchSpec& spec, Vertex start, Vertex goal,
                                              SearchRecording* recording, const std::atomic<bool>* cancel) {
    if (spec.cost_mode != CostMode::Integer)
        return Error{
            "a bucket queue needs integer f values: runs in the integer metric only (1000/1414): use --cost "
            "integer"};
    if (spec.heuristic == Heuristic::Manhattan && spec.rules.connectivity == Connectivity::Eight)
        return Error{"Manhattan is not consistent with diagonal moves: a bucket queue needs a consistent heuristic"};
    BucketAStarOutput result;
    SearchOutput& out = result.search;
    if (start >= map.cell_count() || goal >= map.cell_count() || !map.passable(start) || !map.passable(goal))
        return result;  // nothing to search: not found
    const Cell target = map.cell(goal);
    auto h = [&](Vertex v) {
        return std::int64_t(std::llround(grid_heuristic(spec.heuristic, spec.cost_mode, map.cell(v), target)));
    };

    // f of a successor exceeds its parent's by at most 2 * the longest step (consistency), so
    // the ring's buckets never wrap onto f values still in use.
    const std::size_t ring = std::size_t(2 * kIntDiagonal + 1);
    std::vector<std::vector<Vertex>> buckets(ring);
    // One bit per non-empty bucket: the next f is found a word at a time, not a bucket at a
    // time (a maze's f grows by millions over a search; most buckets stay empty).
    std::vector<std::uint64_t> occupied((ring + 63) / 64, 0);
    auto mark = [&](std::size_t b) { occupied[b / 64] |= std::uint64_t(1) << (b % 64); };
    auto unmark = [&](std::size_t b) { occupied[b / 64] &= ~(std::uint64_t(1) << (b % 64)); };
    // Buckets from `b` on (circularly) until a non-empty one: how many to skip.
    auto skip = [&](std::size_t b) {
        std::size_t skipped = 0;
        while (skipped < ring) {
            const std::size_t word = b / 64, bit = b % 64;
            const std::uint64_t bits = occupied[word] >> bit;
            if (bits != 0) {
                const std::size_t step = std::size_t(std::countr_zero(bits));
                if (b + step < ring) return skipped + step;
            }
            const std::size_t next = std::min(ring, (word + 1) * 64);  // the next word, or wrap around
            skipped += next - b;
            b = next == ring ? 0 : next;
        }
        return skipped;
    };
    std::vector<std::int64_t> g(map.cell_count(), kNoG);
    std::vector<Vertex> parent(map.cell_count(), kNoVertex);
    std::vector<std::uint8_t> closed(map.cell_count(), 0);
    std::size_t queued = 0;
    auto push = [&](Vertex v, std::int64_t f, std::uint64_t step) {
        buckets[std::size_t(f) % ring].push_back(v);
        mark(std::size_t(f) % ring);
        ++queued;
        ++out.generated;
        if (recording && recording->wants(v)) recording->add(v, std::uint32_t(step), SearchRecording::Open, 0);
    };
    g[start] = 0;
    std::int64_t f = h(start);
    push(start, f, 0);
    while (queued > 0) {
        f += std::int64_t(skip(std::size_t(f) % ring));
        std::vector<Vertex>& bucket = buckets[std::size_t(f) % ring];
        ++result.buckets;
        // The bucket of f: its vertices in last-in first-out order (among equal f, the vertex
        // pushed last is nearer the goal more often); pushes of the same f land in it again.
        while (!bucket.empty()) {
            const Vertex u = bucket.back();
            bucket.pop_back();
            --queued;
            if (closed[u] || g[u] + h(u) != f) continue;  // a stale entry: u was reached cheaper since
            if ((out.expanded & 1023) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
                out.cancelled = true;
                return result;
            }
            closed[u] = 1;
            const std::uint64_t step = out.expanded++;
            if (recording && recording->wants(u)) recording->add(u, std::uint32_t(step), SearchRecording::Close, 0);
            if (u == goal) {
                out.found = true;
                out.cost = double(g[u]);
                for (Vertex v = goal; v != kNoVertex; v = parent[v]) out.path.push_back(v);
                std::reverse(out.path.begin(), out.path.end());
                if (recording) recording->steps = std::uint32_t(out.expanded);
                return result;
            }
            for_each_grid_neighbour(map, spec.rules, u, [&](Vertex w, bool diagonal) {
                const std::int64_t ng = g[u] + (diagonal ? kIntDiagonal : kIntOrthogonal);
                if (closed[w] || ng >= g[w]) return;
                g[w] = ng;
                parent[w] = u;
                push(w, ng + h(w), step);
            });
        }
        unmark(std::size_t(f) % ring);
        ++f;
    }
    if (recording) recording->steps = std::uint32_t(out.expanded);
    return result;
}

}  // namespace ps
