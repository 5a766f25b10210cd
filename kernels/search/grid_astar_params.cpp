// Parameters of the block A* variants (kernels/search/grid_astar_params.hpp).
#include "kernels/search/grid_astar_params.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "instrumentation/capture/nvtx.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/search/dead_ends.hpp"
#include "kernels/search/gate_forest.hpp"

namespace ps {

std::vector<ParamSpec> grid_astar_params(const char* block, const char* slots) {
    return {
        choice_param("block", block,
                     "threads per query (8 per entry: 32 entries per iteration at 256); auto: 1024 on maps of more "
                     "than 131072 free cells (long queries, wide frontiers) where the queries run at once (at most one "
                     "per SM), else 512",
                     {"auto", "64", "128", "256", "512", "1024"}),
        choice_param("shared_slots", slots,
                     "on-chip hash slots per query (8 bytes each with 32-bit values, 12 with 64-bit ones; a "
                     "query may fill 3/4 before it moves to a global-memory table)",
                     {"1024", "2048", "4096", "8192", "16384"}),
        int_param("shared_bucket", "512",
                  "on-chip entries per f bucket, rounded up to a power of two (8 buckets of 4 bytes per entry)", 32,
                  8192),
        int_param("blocks", "0", "persistent blocks on chip; 0 = as many as are resident at once", 0, 1 << 20),
        int_param("spill_budget_mb", "0",
                  "global memory for the tables of queries that outgrow the chip, MiB; 0 = half the free memory", 0,
                  1 << 24),
        int_param("pool_tables", "-1",
                  "global tables that queries outgrowing the chip move into and go on (-1: one per on-chip block "
                  "within half the budget; 0: they start over in a later launch)",
                  -1, 1 << 20),
        int_param("chain", "1",
                  "expansions per group per iteration: a group goes on with a successor that stays in the current f "
                  "bucket instead of pushing it (1: push every successor)",
                  1, 256),
        int_param("spread", "4",
                  "f buckets one iteration pops from, the lowest first: entries of the higher ones are expanded "
                  "early (and again if their g improves), fewer iterations where the lowest bucket holds few",
                  1, 4),
        flag_param("dead_ends", "0",
                   "1: peel the map's dead ends first (per-map preprocessing, once per map and rules, reported as "
                   "preprocess_ms): queries "
                   "inside one peeled tree are answered by its tree path, the rest search only the core "
                   "(kernels/search/dead_ends.hpp)"),
        int_param("gate_width", "-1",
                  "N > 0: prune the map by its gate forest first (gates: straight runs of at most N cells between "
                  "walls; per-map preprocessing, once per map, rules and N, reported as preprocess_ms): a query "
                  "searches only the nodes its path can use (kernels/search/gate_forest.hpp); 0: off; -1 (auto): 8 "
                  "where the map looks like a maze (most free cells in short runs between walls, and most outside "
                  "the forest's core and its largest node), else off",
                  -1, 64),
        int_param("pieces", "256",
                  "with gate_width: a single query answered inside one tree is split at up to N - 1 gates of its "
                  "node path into pieces (of 256 nodes or more) searched side by side, then the chosen pieces again "
                  "for the path; 1: one search",
                  1, 256),
        flag_param("spill_only", "0", "1: every query keeps its table in global memory (to compare the two tiers)"),
        choice_param("bidir", "auto",
                     "1: each query searches from both ends at once, half the block and half the on-chip table a "
                     "side, each side's buckets by MM's priority max(f, 2g) so that they meet halfway (a query that "
                     "fills its half starts over one-sided; chain 1 only); auto: where a half table holds every free "
                     "cell of the map, so that no query starts over, and on maze-like maps searched through the gate "
                     "forest while the queries run at once (then with 512 threads where block=auto)",
                     {"auto", "0", "1"}),
        flag_param("map_on_chip", "1",
                   "1: the map's bitmap in shared memory beside the on-chip table where it fits without costing a "
                   "block per SM; 0: read from global memory"),
        flag_param("wide_values", "0",
                   "1: 64-bit g values always (by default 32 bits where no g can reach 2^31, so that the table's "
                   "shared-memory atomics are single instructions; the real metric in steps of 33461 and 47321, "
                   "2.3e-10 relative from sqrt(2), at both widths)"),
    };
}

std::shared_ptr<const gpu::GridBits> map_bits(const Problem& problem, bool* built) {
    return std::static_pointer_cast<const gpu::GridBits>(problem.derived(
        "grid_bits", [&] { return std::make_shared<const gpu::GridBits>(gpu::grid_bits(*problem.map)); }, built));
}

namespace {

// Whether `queries` run at once, a block each: no more of them than SMs. Then the longest
// query's chain of iterations is the run's time (block=auto, bidir=auto through the gate forest).
bool queries_run_at_once(std::size_t queries) { return queries <= std::size_t(std::max(1, gpu_info().sm_count)); }

// block=auto: a block of 1024 threads (128 entries an iteration) where queries can be long
// and their frontiers wide, 512 on smaller maps, where short queries pay for the wider block's
// dearer iterations. H100, every 5th MovingAI scenario and 50 random pairs of generated maps:
// 1024 is 9-37% faster on random512-10-0, rooms 512² and every 1024² map, even on den520d,
// 5-8% slower on arena, noise 256² and random 256² (README, block A*).
constexpr std::size_t kWideBlockCells = 131072;

// The same rule for a batch while its queries run at once (no more queries than SMs, one
// 1024-thread block each): then the longest query's chain of iterations is the batch's time.
// With more queries, 512 (two blocks an SM) keeps more of them in flight. H100, all queries
// as one batch: 50 random pairs on rooms 512² and 1024², noise and random 1024² 1.3-1.6x
// faster at 1024 than at 512; den520d's 870 scenarios and random512-10-0's 1780 1.2-1.3x
// slower (README, batch.gpu.grid).
int auto_block_threads(const Problem& problem) {
    // A single query has no agents: 0 queries run at once too.
    const bool at_once = queries_run_at_once(problem.agents.size());
    return map_bits(problem)->passable > kWideBlockCells && at_once ? 1024 : 512;
}

}  // namespace

gpu::GridAStarOptions grid_astar_options(const VariantInfo& info, const Problem& problem) {
    const ParamValues params(info, problem);
    gpu::GridAStarOptions o;
    o.block_threads = params.text("block") == "auto" ? auto_block_threads(problem) : int(params.integer("block"));
    o.shared_slots = int(params.integer("shared_slots"));
    o.shared_bucket = int(params.integer("shared_bucket"));
    o.blocks = int(params.integer("blocks"));
    o.spill_budget_bytes = std::uint64_t(params.integer("spill_budget_mb")) << 20;
    o.spill_only = params.flag("spill_only");
    o.pool_tables = int(params.integer("pool_tables"));
    o.chain = int(params.integer("chain"));
    o.spread = int(params.integer("spread"));
    o.wide_values = params.flag("wide_values");
    o.map_on_chip = params.flag("map_on_chip");
    o.bidir = params.text("bidir") == "auto" ? -1 : int(params.integer("bidir"));
    return o;
}

std::optional<std::string> grid_astar_refusal(const Problem& problem) {
    if (problem.heuristic != Heuristic::Octile)
        return "uses the octile heuristic only (its bucket ring relies on it being consistent)";
    return std::nullopt;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A GPU run's output (its plan, phases, launches and blocks) with the per-query arrays of `n`
// queries not answered yet, to fill from the searches they were split into.
gpu::GridAStarOutput unanswered(gpu::GridAStarOutput from, std::size_t n) {
    from.costs.assign(n, -1.0);
    from.expanded.assign(n, 0);
    from.iterations.assign(n, 0);
    from.spilled.assign(n, 0);
    from.moved.assign(n, 0);
    return from;
}

// The queries through the dead-end forest: tree paths on the host, core searches on the GPU
// (on the map with the peeled cells blocked), recombined into `out` per query as if the engine
// had run them all. Counters of the forest go to `counters`.
gpu::GridAStarOutput run_through_forest(const Problem& problem, const std::vector<gpu::GridQuery>& queries,
                                        const gpu::GridAStarOptions& options, std::map<std::string, double>& counters) {
    // Built once per map and rules for every copy of the problem (the queries of a scenario file).
    const auto t0 = std::chrono::steady_clock::now();
    bool built = false;
    const auto shared = std::static_pointer_cast<const DeadEndForest>(problem.derived(
        "dead_end_forest",
        [&] { return std::make_shared<const DeadEndForest>(build_dead_end_forest(*problem.map, problem.rules)); },
        &built));
    const DeadEndForest& forest = *shared;
    const double preprocess_ms = built ? ms_since(t0) : 0.0;

    const auto t1 = std::chrono::steady_clock::now();
    const std::size_t n = queries.size();
    std::vector<ForestQuery> fq(n);
    std::vector<gpu::GridQuery> core;  // the core searches, in query order
    for (std::size_t i = 0; i < n; ++i) {
        fq[i] = forest_query(forest, queries[i].start, queries[i].goal);
        if (fq[i].kind == ForestQuery::Kind::CoreSearch) core.push_back({fq[i].core_start, fq[i].core_goal});
    }
    double host_ms = ms_since(t1);

    gpu::GridAStarOutput gpu_out;
    if (!core.empty()) {
        gpu_out = gpu::run_grid_astar_gpu(forest.core_map, problem.rules, problem.cost_mode, core, options);
        if (!gpu_out.error.empty() || gpu_out.cancelled) return gpu_out;
    }
    const auto t2 = std::chrono::steady_clock::now();
    gpu::GridAStarOutput out = unanswered(gpu_out, n);
    out.path.clear();
    std::size_t by_tree = 0, c = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double tree = fq[i].steps.cost(problem.cost_mode);
        if (fq[i].kind == ForestQuery::Kind::TreePath) {
            out.costs[i] = tree;
            ++by_tree;
        } else if (fq[i].kind == ForestQuery::Kind::CoreSearch) {
            if (gpu_out.costs[c] >= 0) out.costs[i] = gpu_out.costs[c] + tree;
            out.expanded[i] = gpu_out.expanded[c];
            out.iterations[i] = gpu_out.iterations[c];
            out.spilled[i] = gpu_out.spilled[c];
            out.moved[i] = gpu_out.moved[c];
            ++c;
        }
    }
    if (options.want_path && n == 1 && out.costs[0] >= 0)
        out.path = forest_path(forest, queries[0].start, queries[0].goal, fq[0], gpu_out.path);
    host_ms += ms_since(t2);
    out.phases.compute_ms += host_ms;
    out.phases.total_ms += host_ms;
    counters["preprocess_ms"] = preprocess_ms;  // 0 when an earlier copy of the problem built it
    counters["forest_built"] = built ? 1.0 : 0.0;
    counters["forest_host_ms"] = host_ms;
    counters["peeled_cells"] = double(forest.peeled);
    counters["core_cells"] = double(forest.core_cells);
    counters["queries_by_tree"] = double(by_tree);
    counters["queries_on_gpu"] = double(core.size());
    return out;
}

void add_phases(PhaseTimes& a, const PhaseTimes& b) {
    a.allocate_ms += b.allocate_ms;
    a.upload_ms += b.upload_ms;
    a.compute_ms += b.compute_ms;
    a.download_ms += b.download_ms;
    a.total_ms += b.total_ms;
}

// Nodes a piece should hold at least (a node is about one step of the path: a gate is one row or
// column of a corridor): shorter pieces cost more in launches than they save.
constexpr std::size_t kMinPieceNodes = 256;
constexpr std::size_t kMaxLegs = 1 << 16;

// The legs of a query cut at `cuts`: a * b per pair of consecutive layers (start and goal: 1 cell).
std::size_t leg_count(const GateForest& f, const std::vector<std::uint32_t>& cuts) {
    std::size_t legs = 0, before = 1;
    for (const std::uint32_t k : cuts) {
        const std::size_t width = f.cell_begin[k + 1] - f.cell_begin[k];
        legs += before * width;
        before = width;
    }
    return legs + before;
}

// Cut gates along a tree query's node path: gates strictly inside it, about `pieces` equal
// pieces by nodes, none shorter than kMinPieceNodes. A piece between cuts of a and b cells is
// a * b searches, so each cut is the narrowest gate in the quarter piece after its mark. Empty:
// one search is better (a short path, or more than kMaxLegs legs).
std::vector<std::uint32_t> cut_gates(const GateForest& f, const std::vector<std::uint32_t>& path, int pieces) {
    if (pieces < 2 || path.size() < 2 * kMinPieceNodes) return {};
    const std::size_t target = std::max(kMinPieceNodes, path.size() / std::size_t(pieces));
    const std::size_t end = path.size() - kMinPieceNodes / 2;  // the last piece is not too short
    auto cells = [&](std::size_t i) { return f.cell_begin[path[i] + 1] - f.cell_begin[path[i]]; };
    std::vector<std::uint32_t> cuts;
    for (std::size_t mark = target; mark < end;) {
        std::size_t best = end;
        for (std::size_t i = mark; i < std::min(end, mark + target / 4 + 1); ++i)
            if (f.gate[path[i]] && (best == end || cells(i) < cells(best))) best = i;
        if (best == end) {  // no gate in the window: the next one
            for (best = mark; best < end && !f.gate[path[best]]; ++best) {
            }
            if (best == end) break;
        }
        cuts.push_back(path[best]);
        mark = best + target;
    }
    // Legs of run 1: a * b per pair of consecutive cuts. Wide gates (gate_width up to 64) could
    // ask for millions; past kMaxLegs one search is the safer plan.
    if (leg_count(f, cuts) > kMaxLegs) return {};
    return cuts;
}

// A tree query's layers of cells: its start, the cells of each cut gate in order, its goal.
std::vector<std::vector<Vertex>> piece_layers(const GateForest& forest, const gpu::GridQuery& query,
                                              const std::vector<std::uint32_t>& cuts) {
    std::vector<std::vector<Vertex>> layers{{query.start}};
    for (const std::uint32_t k : cuts)
        layers.emplace_back(forest.cells.begin() + forest.cell_begin[k],
                            forest.cells.begin() + forest.cell_begin[k + 1]);
    layers.push_back({query.goal});
    return layers;
}

std::vector<std::size_t> layer_sizes(const std::vector<std::vector<Vertex>>& layers) {
    std::vector<std::size_t> sizes;
    for (const auto& layer : layers) sizes.push_back(layer.size());
    return sizes;
}

// Appends every leg between consecutive layers (layer i's cells to layer i + 1's, row-major);
// returns where each layer's legs start.
std::vector<std::size_t> append_legs(const std::vector<std::vector<Vertex>>& layers,
                                     std::vector<gpu::GridQuery>& legs) {
    std::vector<std::size_t> first_leg;
    for (std::size_t i = 0; i + 1 < layers.size(); ++i) {
        first_leg.push_back(legs.size());
        for (const Vertex a : layers[i])
            for (const Vertex b : layers[i + 1]) legs.push_back({a, b});
    }
    return first_leg;
}

// One tree query in pieces (the `pieces` parameter). Every gate strictly inside the query's node
// path separates start from goal among the kept cells, so d(s, g) is the least
// d(s, y_1) + d(y_1, y_2) + ... + d(y_k, g) over cells y_i of the cut gates, in order. Run 1
// searches every such leg at once (start to each cell of cut 1, each cell of cut i to each cell
// of cut i + 1, each cell of cut k to the goal) on the query's kept cells, which hold every
// leg's own kept cells; a pass over the cuts picks the cells; run 2 searches the k + 1 chosen
// legs again with their paths, which join into the query's path. The chain of iterations is a
// piece long instead of the whole path.
gpu::GridAStarOutput run_in_pieces(const GridMap& map, const Problem& problem, const GateForest& forest,
                                   const gpu::GridQuery& query, const std::vector<std::uint32_t>& cuts,
                                   gpu::GridAStarOptions options) {
    const std::vector<std::vector<Vertex>> layers = piece_layers(forest, query, cuts);
    std::vector<gpu::GridQuery> legs;
    const std::vector<std::size_t> first_leg = append_legs(layers, legs);
    const bool want_path = options.want_path;
    options.want_path = false;
    options.want_paths = false;
    gpu::GridAStarOutput all = gpu::run_grid_astar_gpu(map, problem.rules, problem.cost_mode, legs, options);
    if (!all.error.empty() || all.cancelled) return all;
    const ThroughLayers through = least_through(layer_sizes(layers), first_leg, all.costs);

    gpu::GridAStarOutput out;
    if (through.cost < 0) {  // cannot happen inside one tree; answered as the search would
        return unanswered(all, 1);
    }
    std::vector<gpu::GridQuery> chosen(layers.size() - 1);
    for (std::size_t i = 0; i + 1 < layers.size(); ++i)
        chosen[i] = {layers[i][through.cell[i]], layers[i + 1][through.cell[i + 1]]};
    options.want_paths = true;
    out = gpu::run_grid_astar_gpu(map, problem.rules, problem.cost_mode, chosen, options);
    if (!out.error.empty() || out.cancelled) return out;

    double cost = 0;
    std::uint64_t expanded = 0;
    std::uint32_t longest_all = 0, longest_chosen = 0;
    std::vector<Vertex> path;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        cost += out.costs[i];
        expanded += out.expanded[i];
        longest_chosen = std::max(longest_chosen, out.iterations[i]);
        const std::vector<Vertex>& leg = out.paths[i];
        path.insert(path.end(), leg.begin() + (path.empty() ? 0 : 1), leg.end());  // legs share their ends
    }
    for (std::size_t i = 0; i < legs.size(); ++i) {
        expanded += all.expanded[i];
        longest_all = std::max(longest_all, all.iterations[i]);
    }
    if (std::abs(cost - through.cost) > 1e-9 * std::max(1.0, cost)) {
        out.error = "block A* in pieces: the chosen legs cost " + std::to_string(cost) + ", the pass over the cuts " +
                    std::to_string(through.cost);
        out.error_kind = ErrorKind::Internal;
        return out;
    }
    out.plan = std::to_string(cuts.size() + 1) + " pieces at " + std::to_string(cuts.size()) +
               " gates: " + std::to_string(legs.size()) + " legs at once, then the " + std::to_string(chosen.size()) +
               " chosen with their paths. " + all.plan;
    out.costs = {cost};
    out.expanded = {std::uint32_t(std::min<std::uint64_t>(expanded, 0xFFFFFFFFu))};
    out.iterations = {longest_all + longest_chosen};  // the chain of iterations of the two runs
    out.spilled = {std::uint8_t(std::any_of(all.spilled.begin(), all.spilled.end(), [](auto x) { return x != 0; }))};
    out.moved = {std::uint8_t(std::any_of(all.moved.begin(), all.moved.end(), [](auto x) { return x != 0; }))};
    out.paths.clear();
    if (want_path) out.path = std::move(path);
    out.launches += all.launches;
    out.on_chip_blocks = std::max(out.on_chip_blocks, all.on_chip_blocks);
    out.spill_blocks = std::max(out.spill_blocks, all.spill_blocks);
    add_phases(out.phases, all.phases);
    out.gpu_compute_ms += all.gpu_compute_ms;
    return out;
}

// A batch whose tree queries are long enough: every leg of every such query (cut where a single
// query would be, cut_gates) and every other query as one leg, all in one run; then each cut
// query's cost from the pass over its cuts. Costs only (a batch wants no paths here). Each query's
// iterations are those of its longest leg (they run side by side), its expansions those of all.
gpu::GridAStarOutput run_batch_in_pieces(const GridMap& map, const Problem& problem, const GateForest& forest,
                                         const std::vector<gpu::GridQuery>& queries,
                                         const std::vector<std::vector<std::uint32_t>>& cuts,
                                         const gpu::GridAStarOptions& options) {
    const std::size_t n = queries.size();
    std::vector<gpu::GridQuery> legs;
    std::vector<std::vector<std::vector<Vertex>>> layers(n);
    std::vector<std::vector<std::size_t>> first_leg(n);
    std::vector<std::size_t> begin(n + 1, 0);
    for (std::size_t q = 0; q < n; ++q) {
        begin[q] = legs.size();
        if (cuts[q].empty()) {
            legs.push_back(queries[q]);
        } else {
            layers[q] = piece_layers(forest, queries[q], cuts[q]);
            first_leg[q] = append_legs(layers[q], legs);
        }
    }
    begin[n] = legs.size();
    gpu::GridAStarOutput all = gpu::run_grid_astar_gpu(map, problem.rules, problem.cost_mode, legs, options);
    if (!all.error.empty() || all.cancelled) return all;
    gpu::GridAStarOutput out = unanswered(all, n);
    for (std::size_t q = 0; q < n; ++q) {
        std::uint64_t expanded = 0;
        for (std::size_t i = begin[q]; i < begin[q + 1]; ++i) {
            expanded += all.expanded[i];
            out.iterations[q] = std::max(out.iterations[q], all.iterations[i]);
            out.spilled[q] |= all.spilled[i];
            out.moved[q] |= all.moved[i];
        }
        out.expanded[q] = std::uint32_t(std::min<std::uint64_t>(expanded, 0xFFFFFFFFu));
        if (cuts[q].empty()) {
            out.costs[q] = all.costs[begin[q]];
        } else {
            out.costs[q] = least_through(layer_sizes(layers[q]), first_leg[q], all.costs).cost;  // indices into legs
        }
    }
    out.plan = std::to_string(legs.size()) + " legs at once for " + std::to_string(n) + " queries. " + all.plan;
    return out;
}

// The map's gate forest of `width`, built once per map and rules for every copy of the problem.
std::shared_ptr<const GateForest> gate_forest_of(const Problem& problem, int width, bool* built) {
    return std::static_pointer_cast<const GateForest>(problem.derived(
        "gate_forest_" + std::to_string(width),
        [&] { return std::make_shared<const GateForest>(build_gate_forest(*problem.map, problem.rules, width)); },
        built));
}

// The queries on the map pruned by its gate forest: one search of the union of what each query
// keeps (a superset of every query's own, so each stays exact), through a bitmap of the kept
// cells. Counters of the forest go to `counters`.
gpu::GridAStarOutput run_through_gates(const Problem& problem, const std::vector<gpu::GridQuery>& queries,
                                       gpu::GridAStarOptions options, int width, int pieces,
                                       std::map<std::string, double>& counters) {
    const auto t0 = std::chrono::steady_clock::now();
    bool built = false;
    const auto shared = gate_forest_of(problem, width, &built);
    const GateForest& forest = *shared;
    const double preprocess_ms = built ? ms_since(t0) : 0.0;

    const auto t1 = std::chrono::steady_clock::now();
    const GridMap& map = *problem.map;
    // A query that keeps the whole core keeps nearly the whole map: the map's own bitmap (made
    // once per map, a superset, so still exact) spares the marking and a bitmap per run.
    const bool whole_map = std::any_of(queries.begin(), queries.end(), [&](const gpu::GridQuery& q) {
        return keeps_whole_core(forest, q.start, q.goal);
    });
    std::shared_ptr<const gpu::GridBits> whole;
    gpu::GridBits bits;
    std::size_t unreachable = 0;
    if (whole_map) {
        whole = map_bits(problem);
    } else {
        KeptNodes keep(forest);
        for (const gpu::GridQuery& q : queries) {
            if (keep_for_query(forest, q.start, q.goal, keep)) continue;
            // Unreachable by the forest alone: the search still runs (and finds so) from the start's node.
            ++unreachable;
            for (const Vertex v : {q.start, q.goal})
                if (v < forest.node_of.size() && forest.node_of[v] != kNoNode) keep.node[forest.node_of[v]] = 1;
        }
        bits.stride = (map.width() + 31) / 32;
        bits.words.assign(std::size_t(bits.stride) * std::size_t(map.height()), 0u);
        for (std::size_t k = 0; k < forest.nodes(); ++k) {
            if (!keep.node[k]) continue;
            for (std::uint32_t i = forest.cell_begin[k]; i < forest.cell_begin[k + 1]; ++i) {
                const Cell c = map.cell(forest.cells[i]);
                bits.words[std::size_t(c.y) * std::size_t(bits.stride) + std::size_t(c.x >> 5)] |= 1u << (c.x & 31);
            }
            bits.passable += forest.cell_begin[k + 1] - forest.cell_begin[k];
        }
    }
    const gpu::GridBits& searched = whole_map ? *whole : bits;
    // Queries answered inside a tree, long enough: in pieces (a batch's legs within kMaxLegs in all;
    // a batch of paths searches whole).
    std::vector<std::vector<std::uint32_t>> cuts(queries.size());
    std::size_t cut_queries = 0, piece_count = queries.size(), batch_legs = 0;
    if (pieces > 1 && (queries.size() == 1 || !options.want_paths))
        for (std::size_t q = 0; q < queries.size(); ++q) {
            auto c = cut_gates(forest, tree_node_path(forest, queries[q].start, queries[q].goal), pieces);
            if (c.empty()) continue;
            const std::size_t legs = leg_count(forest, c);
            if (queries.size() > 1 && batch_legs + legs > kMaxLegs) continue;
            batch_legs += legs;
            piece_count += c.size();
            ++cut_queries;
            cuts[q] = std::move(c);
        }
    const double host_ms = ms_since(t1);
    options.bits = &searched;
    gpu::GridAStarOutput out =
        cut_queries == 0      ? gpu::run_grid_astar_gpu(map, problem.rules, problem.cost_mode, queries, options)
        : queries.size() == 1 ? run_in_pieces(map, problem, forest, queries[0], cuts[0], options)
                              : run_batch_in_pieces(map, problem, forest, queries, cuts, options);
    out.phases.compute_ms += host_ms;
    out.phases.total_ms += host_ms;
    // Added to gate_width=auto's decision time, where it ran (0 when an earlier copy of the problem built it).
    counters["preprocess_ms"] += preprocess_ms;
    counters["gate_forest_built"] = built ? 1.0 : 0.0;
    counters["gate_host_ms"] = host_ms;
    counters["gates"] = double(forest.gates);
    counters["regions"] = double(forest.regions);
    counters["core_cells"] = double(forest.core_cells);
    counters["kept_cells"] = double(searched.passable);
    counters["kept_whole_core"] = whole_map ? 1.0 : 0.0;  // then the whole map is searched
    counters["queries_unreachable_by_forest"] = double(unreachable);
    counters["pieces"] = double(piece_count);  // summed over the queries (a query searched whole: 1)
    counters["queries_in_pieces"] = double(cut_queries);
    return out;
}

}  // namespace

// gate_width=auto: kAutoGateWidth where the map is worth its gate forest, else 0, decided once
// per map and rules in the two steps of gate_forest.hpp (the forest of the second step is the
// one the search then uses). Counters: the two shares and, where this call decided, the time
// it took as preprocess_ms.
int auto_gate_width(const Problem& problem, std::map<std::string, double>& counters) {
    struct Choice {
        int width = 0;
        double run_share = 0, wall_share = 0, pruned_share = 0, ms = 0;
    };
    bool built = false;
    const auto choice = std::static_pointer_cast<const Choice>(problem.derived(
        "gate_width_auto",
        [&] {
            const auto t0 = std::chrono::steady_clock::now();
            auto c = std::make_shared<Choice>();
            c->run_share = short_run_share(*problem.map, kAutoGateWidth);
            c->wall_share = long_wall_share(*problem.map);
            if (c->run_share >= kMazeRunShare && c->wall_share >= kMazeWallShare) {
                c->pruned_share = pruned_share(*gate_forest_of(problem, kAutoGateWidth, nullptr));
                if (c->pruned_share >= kMazePrunedShare) c->width = kAutoGateWidth;
            }
            c->ms = ms_since(t0);
            return std::shared_ptr<const void>(std::move(c));
        },
        &built));
    counters["gate_auto_run_share"] = choice->run_share;
    counters["gate_auto_wall_share"] = choice->wall_share;
    counters["gate_auto_pruned_share"] = choice->pruned_share;
    counters["gate_auto_width"] = double(choice->width);
    counters["preprocess_ms"] = built ? choice->ms : 0.0;
    return choice->width;
}

RunResult run_grid_astar(const VariantInfo& info, const Problem& problem, const RunContext& context,
                         const std::vector<gpu::GridQuery>& queries, bool want_path, gpu::GridAStarOutput& out) {
    gpu::GridAStarOptions options = grid_astar_options(info, problem);
    options.want_path = want_path;
    options.cancel = context.cancel;
    std::map<std::string, double> forest_counters;
    {
        nvtx::ScopedRange range(nvtx::Phase::Compute, info.id);
        const ParamValues params(info, problem);
        int gate_width = int(params.integer("gate_width"));
        if (gate_width < 0) gate_width = params.flag("dead_ends") ? 0 : auto_gate_width(problem, forest_counters);
        if (options.bidir > 0 && options.chain > 1) {
            out.error = "bidir=1 expands one entry per group and iteration: it takes chain=1";
        } else if (gate_width > 0 && params.flag("dead_ends")) {
            out.error =
                "dead_ends=1 and gate_width exclude each other: the gate forest with gate_width=1 prunes "
                "what the dead-end forest peels, and dead_ends=1 also answers tree queries without a search";
        } else if (gate_width > 0) {
            // bidir=auto on a maze's corridors: both frontiers stay narrow, so half tables rarely fill, and
            // the two sides halve the chain of iterations. H200, 50 random pairs one by one, five generated
            // mazes (corridors 1-4, 511^2-1024^2): 1.2-1.4x; 512 threads 1% slower to 10% faster than 1024.
            // Not on open maps, where long queries fill their half tables and start over (README).
            if (options.bidir < 0 && options.chain <= 1 && queries_run_at_once(queries.size())) {
                options.bidir = 1;
                if (params.text("block") == "auto") options.block_threads = 512;
            }
            out = run_through_gates(problem, queries, options, gate_width, int(params.integer("pieces")),
                                    forest_counters);
        } else if (params.flag("dead_ends")) {
            out = run_through_forest(problem, queries, options, forest_counters);
        } else {
            const auto bits = map_bits(problem);
            options.bits = bits.get();
            out = gpu::run_grid_astar_gpu(*problem.map, problem.rules, problem.cost_mode, queries, options);
        }
    }
    if (auto ended = gpu_run_outcome(out)) return *ended;
    RunResult result;
    result.phases = out.phases;
    std::size_t started_over = 0, moved = 0;
    std::uint64_t iterations = 0, longest = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        started_over += out.spilled[i];
        moved += out.moved[i];
        iterations += out.iterations[i];
        longest = std::max<std::uint64_t>(longest, out.iterations[i]);
    }
    auto& c = result.counters;
    c["gpu_compute_ms"] = out.gpu_compute_ms;
    c["host_launches"] = double(out.launches);
    c["queries_moved"] = double(moved);
    c["queries_spilled"] = double(started_over);
    c["iterations"] = double(iterations);  // summed over the queries (one query: its own)
    c["mean_iterations"] = queries.empty() ? 0.0 : double(iterations) / double(queries.size());
    // The longest chain of iterations: a batch whose queries all run at once lasts about as
    // long as its longest query.
    c["max_iterations"] = double(longest);
    c["on_chip_blocks"] = double(out.on_chip_blocks);
    c["spill_blocks"] = double(out.spill_blocks);
    c["shared_bytes_per_block"] = double(out.shared_bytes_per_block);
    c["block_threads"] = double(out.block_threads);
    c["map_on_chip"] = out.map_on_chip ? 1.0 : 0.0;
    c["bidir"] = out.bidir ? 1.0 : 0.0;
    c["spill_bytes_per_block"] = double(out.spill_bytes_per_block);
    for (const auto& [name, value] : forest_counters) c[name] = value;
    return result;
}

}  // namespace ps
