// Edges visited and MTEPS of BFS runs (see edges_visited.hpp).
#include "kernels/run/edges_visited.hpp"

#include <algorithm>
#include <thread>
#include <utility>

namespace ps {
namespace {

// Rows [y0, y1) of the map counted into `table`, whose entry 0 is level `lo`. The interior
// (cells with all eight neighbours on the map) takes a branch-light path with the rule as
// template arguments, so that the corner test folds away; the border, a thin ring, goes through
// for_each_grid_neighbour.
template <Connectivity C, CornerRule R>
void count_rows(const GridMap& map, MoveRules rules, const std::int32_t* levels, std::uint32_t below, int y0, int y1,
                std::uint32_t lo, std::uint64_t* table) {
    const int w = map.width(), h = map.height();
    const std::uint8_t* cells = map.cells().data();
    auto generic = [&](int x, int y) {
        const Vertex v = map.index(x, y);
        const auto level = std::uint32_t(levels[v]);
        if (level >= below) return;
        for_each_grid_neighbour(map, rules, v, [&](Vertex, bool) { ++table[level - lo]; });
    };
    for (int y = y0; y < y1; ++y) {
        if (y == 0 || y == h - 1 || w < 3) {
            for (int x = 0; x < w; ++x) generic(x, y);
            continue;
        }
        generic(0, y);
        generic(w - 1, y);
        const std::size_t row = std::size_t(y) * std::size_t(w);
        const std::uint8_t* up = cells + row - std::size_t(w);
        const std::uint8_t* mid = cells + row;
        const std::uint8_t* down = cells + row + std::size_t(w);
        const std::int32_t* lv = levels + row;
        for (int x = 1; x + 1 < w; ++x) {
            // kUnreached (-1) reads as a huge unsigned level: one comparison skips it too.
            const auto level = std::uint32_t(lv[x]);
            if (level >= below) continue;
            const bool e = mid[x + 1] != 0, west = mid[x - 1] != 0, s = down[x] != 0, n = up[x] != 0;
            std::uint32_t degree = std::uint32_t(e) + std::uint32_t(west) + std::uint32_t(s) + std::uint32_t(n);
            if constexpr (C == Connectivity::Eight) {
                degree += std::uint32_t(diagonal_allowed(R, e, s) && down[x + 1] != 0);
                degree += std::uint32_t(diagonal_allowed(R, west, s) && down[x - 1] != 0);
                degree += std::uint32_t(diagonal_allowed(R, e, n) && up[x + 1] != 0);
                degree += std::uint32_t(diagonal_allowed(R, west, n) && up[x - 1] != 0);
            }
            table[level - lo] += degree;
        }
    }
}

void count_band(const GridMap& map, MoveRules rules, const std::int32_t* levels, std::uint32_t below, int y0, int y1,
                std::uint32_t lo, std::uint64_t* table) {
    if (rules.connectivity == Connectivity::Four)
        return count_rows<Connectivity::Four, CornerRule::None>(map, rules, levels, below, y0, y1, lo, table);
    switch (rules.corners) {
    case CornerRule::None:
        return count_rows<Connectivity::Eight, CornerRule::None>(map, rules, levels, below, y0, y1, lo, table);
    case CornerRule::One:
        return count_rows<Connectivity::Eight, CornerRule::One>(map, rules, levels, below, y0, y1, lo, table);
    case CornerRule::Any:
        return count_rows<Connectivity::Eight, CornerRule::Any>(map, rules, levels, below, y0, y1, lo, table);
    }
}

// Runs f(band) for bands 0 .. n-1, on n - 1 extra threads and this one.
template <class F>
void for_each_band(unsigned n, F&& f) {
    std::vector<std::thread> threads;
    threads.reserve(n - 1);
    for (unsigned b = 1; b < n; ++b) threads.emplace_back(f, b);
    f(0u);
    for (std::thread& t : threads) t.join();
}

}  // namespace

EdgeCount count_edges_visited(const GridMap& map, MoveRules rules, const std::vector<std::int32_t>& levels,
                              std::int32_t expanded_below, unsigned threads) {
    EdgeCount out;
    if (levels.size() != map.cell_count() || map.empty() || expanded_below <= 0) return out;
    const auto below = std::uint32_t(expanded_below);
    const int h = map.height();
    // Bands of rows, one per thread: about a million cells each at least (a thread costs more
    // than counting a small map), at most one per core.
    if (threads == 0)
        threads = unsigned(
            std::clamp<std::size_t>(map.cell_count() >> 20, 1, std::max(1u, std::thread::hardware_concurrency())));
    unsigned bands = std::clamp(threads, 1u, unsigned(h));
    auto band_rows = [&](unsigned b) {
        return std::pair(int(std::int64_t(h) * b / bands), int(std::int64_t(h) * (b + 1) / bands));
    };
    // First pass: the levels each band counts, so that its table spans exactly those (a band of
    // an open map holds about a band's height plus a width of levels, not every level).
    std::vector<std::uint32_t> lo(bands, std::numeric_limits<std::uint32_t>::max()), hi(bands, 0);
    for_each_band(bands, [&](unsigned b) {
        const auto [y0, y1] = band_rows(b);
        const std::size_t w = std::size_t(map.width());
        std::uint32_t low = std::numeric_limits<std::uint32_t>::max(), high = 0;
        // Branch-free: a level not counted (unreached -1, or at or past `below`) cannot lower the
        // least counted one, and counts as 0 for the deepest; with none counted low > high.
        for (std::size_t v = std::size_t(y0) * w; v < std::size_t(y1) * w; ++v) {
            const auto level = std::uint32_t(levels[v]);
            low = std::min(low, level);
            high = std::max(high, level < below ? level : 0u);
        }
        lo[b] = low;
        hi[b] = high;
    });
    const std::uint32_t lowest = *std::min_element(lo.begin(), lo.end());
    const std::uint32_t deepest = *std::max_element(hi.begin(), hi.end());
    if (lowest > deepest) return out;  // no level counted
    // A winding maze puts most levels in every band: tables that would hold more than a byte per
    // cell beyond the result make it one band.
    std::size_t entries = 0;
    for (unsigned b = 0; b < bands; ++b) entries += lo[b] <= hi[b] ? std::size_t(hi[b] - lo[b]) + 1 : 0;
    if (bands > 1 && entries > std::size_t(deepest) + 1 + map.cell_count() / 8) {
        bands = 1;
        lo = {lowest};
        hi = {deepest};
    }
    std::vector<std::vector<std::uint64_t>> tables(bands);
    for (unsigned b = 0; b < bands; ++b)
        if (lo[b] <= hi[b]) tables[b].assign(std::size_t(hi[b] - lo[b]) + 1, 0);  // else nothing counted there
    for_each_band(bands, [&](unsigned b) {
        if (tables[b].empty()) return;
        const auto [y0, y1] = band_rows(b);
        count_band(map, rules, levels.data(), below, y0, y1, lo[b], tables[b].data());
    });
    out.per_level.assign(std::size_t(deepest) + 1, 0);
    for (unsigned b = 0; b < bands; ++b)
        for (std::size_t i = 0; i < tables[b].size(); ++i) out.per_level[lo[b] + i] += tables[b][i];
    for (const std::uint64_t edges : out.per_level) out.total += edges;
    return out;
}

std::int32_t expanded_levels_bound(const Problem& problem, const std::vector<std::int32_t>& levels) {
    // Whole levels: the search that reached the start finished labelling its level and stopped.
    if (problem.bfs_stop_at_start && problem.start < levels.size() && levels[problem.start] != kUnreached)
        return levels[problem.start];
    return std::numeric_limits<std::int32_t>::max();
}

std::optional<EdgeCount> bfs_edges_visited(const Problem& problem, const RunResult& result) {
    if (result.status != RunStatus::Ok || result.bfs_levels_prefix || !problem.map ||
        result.bfs_levels.size() != problem.map->cell_count())
        return std::nullopt;
    return count_edges_visited(*problem.map, problem.rules, result.bfs_levels,
                               expanded_levels_bound(problem, result.bfs_levels));
}

double mteps(double edges, double ms) { return ms > 0 ? edges / (ms * 1e3) : 0.0; }

std::vector<LevelRate> level_rates(const std::vector<std::uint64_t>& level_edges, const trace::Timeline& timeline) {
    std::vector<LevelRate> out;
    if (timeline.level_name != "level") return out;
    for (const trace::LevelCost& cost : trace::level_costs(timeline)) {
        if (cost.level < 0 || std::size_t(cost.level) >= level_edges.size() || cost.end_ns <= cost.start_ns) continue;
        LevelRate rate;
        rate.level = cost.level;
        rate.edges = level_edges[std::size_t(cost.level)];
        rate.ms = double(cost.end_ns - cost.start_ns) * 1e-6;
        rate.mteps = mteps(double(rate.edges), rate.ms);
        out.push_back(rate);
    }
    return out;
}

std::vector<trace::LevelDiffRow> level_diff_with_rates(const trace::Timeline& a,
                                                       const std::vector<std::uint64_t>& edges_a,
                                                       const trace::Timeline& b,
                                                       const std::vector<std::uint64_t>& edges_b) {
    std::vector<trace::LevelDiffRow> rows = trace::level_diff(a, b);
    const auto add = [&](const std::vector<LevelRate>& rates,
                         std::optional<trace::LevelSide> trace::LevelDiffRow::*side) {
        // Both by level: walk them together.
        auto row = rows.begin();
        for (const LevelRate& rate : rates) {
            while (row != rows.end() && row->level < rate.level) ++row;
            if (row == rows.end()) break;
            std::optional<trace::LevelSide>& level = (*row).*side;
            if (row->level != rate.level || !level) continue;
            level->edges = rate.edges;
            level->mteps = rate.mteps;
        }
    };
    add(level_rates(edges_a, a), &trace::LevelDiffRow::a);
    add(level_rates(edges_b, b), &trace::LevelDiffRow::b);
    return rows;
}

}  // namespace ps
