// Block A* (kernels/search/grid_astar_gpu.hpp) against the CPU A*: every query's cost equal in
// the integer metric and within 1e-9 in the real one, on generated maps of every kind and odd
// sizes, 4- and 8-connected, all three corner rules, unreachable goals and start == goal, with the
// tables on chip, in global memory only, and on chip too small (so queries move to global
// memory and buckets grow); paths legal and as long as their cost; the shared MovingAI
// scenarios at their optimal lengths. Skips where no GPU is.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/gpu/gpu_info.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/run/variant.hpp"
#include "kernels/search/grid_astar_gpu.hpp"
#include "tests/support/gpu_test_support.hpp"
#include "tests/support/test_support.hpp"

namespace ps {
namespace {

using test::generated;

std::vector<gpu::GridQuery> random_queries(const GridMap& map, int count, std::uint64_t seed) {
    test::Lcg rng(seed);
    std::vector<gpu::GridQuery> q;
    for (int i = 0; i < count; ++i) {
        const Vertex s = test::random_passable(map, rng);
        q.push_back({s, i % 9 == 0 ? s : test::random_passable(map, rng)});  // some start == goal
    }
    return q;
}

void expect_costs_equal_cpu(const GridMap& map, MoveRules rules, CostMode mode,
                            const std::vector<gpu::GridQuery>& queries, const gpu::GridAStarOptions& options,
                            const std::string& label, gpu::GridAStarOutput* keep = nullptr) {
    const gpu::GridAStarOutput out = gpu::run_grid_astar_gpu(map, rules, mode, queries, options);
    if (keep) *keep = out;
    SCOPED_TRACE(label + " " + std::to_string(map.width()) + "x" + std::to_string(map.height()) +
                 (rules.connectivity == Connectivity::Eight ? " 8-conn" : " 4-conn") + " corners " +
                 std::string(to_string(rules.corners)) + (mode == CostMode::Integer ? " integer" : " real"));
    ASSERT_TRUE(out.error.empty()) << out.error;
    ASSERT_EQ(out.costs.size(), queries.size());
    const GridSearchSpec spec{rules, mode, Heuristic::Octile};
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const SearchOutput cpu = astar_grid(map, spec, queries[i].start, queries[i].goal);
        const Cell s = map.cell(queries[i].start), g = map.cell(queries[i].goal);
        SCOPED_TRACE("query " + std::to_string(i) + " (" + std::to_string(s.x) + "," + std::to_string(s.y) + ")->(" +
                     std::to_string(g.x) + "," + std::to_string(g.y) + ")");
        if (!cpu.found) {
            EXPECT_EQ(out.costs[i], -1.0);
        } else if (mode == CostMode::Integer) {
            EXPECT_EQ(out.costs[i], cpu.cost);
        } else {
            EXPECT_NEAR(out.costs[i], cpu.cost, 1e-9 * std::max(1.0, cpu.cost));
        }
        if (queries[i].start == queries[i].goal) {
            EXPECT_EQ(out.expanded[i], 0u);
        }
    }
}

std::shared_ptr<const GridMap> generated_rooms(int w, int h, std::uint64_t seed, int room) {
    GeneratorParams p;
    p.kind = GeneratorKind::Rooms;
    p.width = w;
    p.height = h;
    p.seed = seed;
    p.density = 0.5;
    p.room_size = room;
    return std::make_shared<const GridMap>(generate_map(p).value());
}

std::vector<std::shared_ptr<const GridMap>> mixed_maps() {
    return {
        generated(GeneratorKind::Empty, 37, 23, 1),
        generated(GeneratorKind::Random, 61, 47, 2, 0.3),
        generated(GeneratorKind::Random, 129, 131, 3, 0.2),
        generated(GeneratorKind::Rectangles, 150, 97, 6, 0.25),
        generated(GeneratorKind::BlockedCentre, 96, 65, 5),
        generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1),
        generated(GeneratorKind::Maze, 123, 91, 8, 0.0, 3),
        generated(GeneratorKind::Noise, 111, 77, 9, 0.45),
        generated(GeneratorKind::Division, 89, 71, 10),
        generated_rooms(97, 83, 12, 8),
        generated(GeneratorKind::Streets, 143, 119, 13),
        std::make_shared<const GridMap>(test::random_map(150, 40, 0.35, 11)),  // many small components
    };
}

std::vector<MoveRules> all_rules() {
    return {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::One},
            MoveRules{Connectivity::Eight, CornerRule::Any}, MoveRules{Connectivity::Four, CornerRule::None}};
}

// The kernels' map: rows padded to 32-bit words, bit x & 31 of word x / 32 set where the cell is
// free (a weighted cell too), the free cells counted. Host code: runs without a GPU.
TEST(GridAStarGpu, GridBitsPackRowsIntoWordsAndCountTheFreeCells) {
    GridMap map(35, 3, false);
    map.set_passable(0, 0, true);
    map.set_passable(31, 0, true);
    map.set_passable(32, 0, true);
    map.set_passable(34, 2, true);
    map.set_cost(1, 1, 7);
    const gpu::GridBits b = gpu::grid_bits(map);
    EXPECT_EQ(b.stride, 2);
    EXPECT_EQ(b.words, (std::vector<std::uint32_t>{0x80000001u, 0x1u, 0x2u, 0x0u, 0x0u, 0x4u}));
    EXPECT_EQ(b.passable, 5u);
    EXPECT_EQ(b.passable, map.passable_count());
}

TEST(GridAStarGpu, CostsEqualTheCpuOnGeneratedMapsBothMetrics) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 1;
    for (const auto& map : mixed_maps())
        for (const MoveRules rules : all_rules())
            for (const CostMode mode : {CostMode::Integer, CostMode::Real})
                expect_costs_equal_cpu(*map, rules, mode, random_queries(*map, 40, seed++), {}, "on chip");
}

TEST(GridAStarGpu, GlobalTablesAndOutgrownChipGiveTheSameCosts) {
    PS_REQUIRE_GPU();
    gpu::GridAStarOptions global_only;
    global_only.spill_only = true;
    gpu::GridAStarOptions tiny;  // most queries outgrow 1024 slots; 32-entry buckets overflow: they move
    tiny.shared_slots = 1024;
    tiny.shared_bucket = 32;
    gpu::GridAStarOptions start_over = tiny;  // no pool: they start over in global tables
    start_over.pool_tables = 0;
    gpu::GridAStarOptions pool_of_two = tiny;  // most find no free pool table and start over
    pool_of_two.pool_tables = 2;
    pool_of_two.block_threads = 128;
    gpu::GridAStarOptions short_chain;  // groups follow a successor in the bucket up to 4 steps
    short_chain.chain = 4;
    gpu::GridAStarOptions long_chain;  // groups follow a successor up to 64 steps between barriers
    long_chain.chain = 64;
    long_chain.block_threads = 64;
    gpu::GridAStarOptions spread_one;  // each iteration pops from the lowest bucket only
    spread_one.spread = 1;
    gpu::GridAStarOptions spread_two = tiny;  // the two lowest, tiny tables: moves and start-overs too
    spread_two.spread = 2;
    gpu::GridAStarOptions few_blocks;  // queries queue behind 3 blocks
    few_blocks.blocks = 3;
    few_blocks.block_threads = 64;
    std::uint64_t seed = 100;
    for (const auto& map : mixed_maps())
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Four, CornerRule::None}}) {
            expect_costs_equal_cpu(*map, rules, CostMode::Integer, random_queries(*map, 30, seed++), global_only,
                                   "global only");
            expect_costs_equal_cpu(*map, rules, CostMode::Integer, random_queries(*map, 30, seed++), tiny, "tiny chip");
            expect_costs_equal_cpu(*map, rules, CostMode::Real, random_queries(*map, 30, seed++), start_over,
                                   "tiny chip, no pool");
            expect_costs_equal_cpu(*map, rules, CostMode::Integer, random_queries(*map, 30, seed++), pool_of_two,
                                   "tiny chip, pool of 2");
            expect_costs_equal_cpu(*map, rules, CostMode::Real, random_queries(*map, 30, seed++), short_chain,
                                   "chain 4");
            expect_costs_equal_cpu(*map, rules, CostMode::Integer, random_queries(*map, 30, seed++), long_chain,
                                   "chain 64");
            expect_costs_equal_cpu(*map, rules, CostMode::Real, random_queries(*map, 30, seed++), few_blocks,
                                   "3 blocks");
            expect_costs_equal_cpu(*map, rules, CostMode::Integer, random_queries(*map, 30, seed++), spread_one,
                                   "spread 1");
            expect_costs_equal_cpu(*map, rules, CostMode::Real, random_queries(*map, 30, seed++), spread_two,
                                   "spread 2, tiny chip");
        }
}

// Blocks share the pool through flags: blocks delayed on purpose just after they take a table,
// while they hold a cleared one and before each query must not change a cost.
TEST(GridAStarGpu, DelayedBlocksSharingThePoolGiveTheSameCosts) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 300;
    for (std::uint32_t delay_seed = 1; delay_seed <= 3; ++delay_seed) {
        gpu::GridAStarOptions o;
        o.shared_slots = 256;
        o.shared_bucket = 32;
        o.block_threads = 64;
        o.pool_tables = 3;
        o.chain = 8;
        o.spread = int(delay_seed);  // 1, 2 and 3 buckets per iteration
        o.test_delay = {20000, 3, delay_seed};
        std::size_t moved = 0, started_over = 0;
        for (const auto& map : mixed_maps())
            for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {  // 32-bit values both
                gpu::GridAStarOutput out;
                expect_costs_equal_cpu(*map, {Connectivity::Eight, CornerRule::None}, mode,
                                       random_queries(*map, 40, seed++), o, "delayed blocks, pool of 3", &out);
                for (std::size_t i = 0; i < out.moved.size(); ++i) {
                    moved += out.moved[i];
                    started_over += out.spilled[i];
                }
            }
        // Both paths ran: queries that moved into the pool and queries that found it taken.
        EXPECT_GT(moved, 0u);
        EXPECT_GT(started_over, 0u);
    }
}

TEST(GridAStarGpu, TinyChipTablesReportTheQueriesTheyMoved) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Empty, 200, 200, 1);
    gpu::GridAStarOptions tiny;
    tiny.shared_slots = 1024;
    // Corner to corner touches far more than 768 cells; a neighbour query touches a handful.
    const std::vector<gpu::GridQuery> q = {{map->index(0, 0), map->index(199, 199)},
                                           {map->index(5, 5), map->index(6, 6)}};
    // With a pool the long query moves into a global table and goes on: one launch.
    const auto out = gpu::run_grid_astar_gpu(*map, {Connectivity::Four, CornerRule::None}, CostMode::Integer, q, tiny);
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_EQ(out.costs[0], 398000.0);
    EXPECT_EQ(out.costs[1], 2000.0);
    EXPECT_EQ(out.moved[0], 1);
    EXPECT_EQ(out.moved[1], 0);
    EXPECT_EQ(out.spilled[0], 0);
    EXPECT_EQ(out.launches, 1u);
    // Without one it starts over in a second launch, and expands what it expanded on chip again.
    tiny.pool_tables = 0;
    const auto again =
        gpu::run_grid_astar_gpu(*map, {Connectivity::Four, CornerRule::None}, CostMode::Integer, q, tiny);
    ASSERT_TRUE(again.error.empty()) << again.error;
    EXPECT_EQ(again.costs[0], 398000.0);
    EXPECT_EQ(again.moved[0], 0);
    EXPECT_EQ(again.spilled[0], 1);
    EXPECT_EQ(again.spilled[1], 0);
    EXPECT_EQ(again.launches, 2u);
}

TEST(GridAStarGpu, HandWorkedCostsUnreachableAndStartEqualsGoal) {
    PS_REQUIRE_GPU();
    const auto map = test::shared_map({
        "......#..",
        ".####.#..",
        "......#..",
        "#######..",
    });
    const std::vector<gpu::GridQuery> q = {
        {map->index(0, 0), map->index(0, 2)},  // around the wall: 2 down on the left
        {map->index(1, 0), map->index(4, 2)},  // no corner cutting: 7 orthogonal steps either way round
        {map->index(0, 0), map->index(8, 0)},  // behind the full wall
        {map->index(7, 3), map->index(7, 3)},
    };
    const auto out = gpu::run_grid_astar_gpu(*map, {Connectivity::Eight, CornerRule::None}, CostMode::Integer, q, {});
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_EQ(out.costs[0], 2000.0);
    EXPECT_EQ(out.costs[1], 7000.0);
    EXPECT_EQ(out.costs[2], -1.0);
    EXPECT_EQ(out.costs[3], 0.0);
    // Cutting corners: (4,0) -> (5,1) -> (4,2) past the wall's end, 3 E + SE + SW.
    const auto real = gpu::run_grid_astar_gpu(*map, {Connectivity::Eight, CornerRule::One}, CostMode::Real, q, {});
    ASSERT_TRUE(real.error.empty()) << real.error;
    EXPECT_NEAR(real.costs[1], 3.0 + 2 * std::sqrt(2.0), 1e-9);
    EXPECT_EQ(real.costs[2], -1.0);
    // Any corner: the same way round, and no diagonal gets through the full wall.
    const auto any = gpu::run_grid_astar_gpu(*map, {Connectivity::Eight, CornerRule::Any}, CostMode::Integer, q, {});
    ASSERT_TRUE(any.error.empty()) << any.error;
    EXPECT_EQ(any.costs[1], 3000.0 + 2 * 1414.0);
    EXPECT_EQ(any.costs[2], -1.0);
}

TEST(GridAStarGpu, AnyCornerRuleSqueezesBetweenDiagonalWalls) {
    PS_REQUIRE_GPU();
    // (0,0) -> (2,2): the diagonal passes two squeezes, (1,0)/(0,1) and (2,1)/(1,2) are walls.
    const auto map = test::shared_map({
        ".#.",
        "#.#",
        ".#.",
    });
    const std::vector<gpu::GridQuery> q = {{map->index(0, 0), map->index(2, 2)}};
    for (const CornerRule rule : {CornerRule::None, CornerRule::One}) {
        const auto shut = gpu::run_grid_astar_gpu(*map, {Connectivity::Eight, rule}, CostMode::Integer, q, {});
        ASSERT_TRUE(shut.error.empty()) << shut.error;
        EXPECT_EQ(shut.costs[0], -1.0) << to_string(rule);
    }
    const auto any = gpu::run_grid_astar_gpu(*map, {Connectivity::Eight, CornerRule::Any}, CostMode::Real, q, {});
    ASSERT_TRUE(any.error.empty()) << any.error;
    EXPECT_NEAR(any.costs[0], 2 * std::sqrt(2.0), 1e-9);
}

// The path is walked back from the goal through neighbours whose g plus the step equals the
// cell's g, under the run's movement rule (each slot's move hint tried first).
TEST(GridAStarGpu, PathOfOneQueryIsLegalAndAsLongAsItsCost) {
    PS_REQUIRE_GPU();
    for (const auto& map : mixed_maps()) {
        test::Lcg rng(5);
        for (const MoveRules rules : all_rules())
            for (const CostMode mode : {CostMode::Integer, CostMode::Real})
                // on chip, global only, moved from a tiny chip table, 64-bit values, 32-bit
                // values that reach a low limit and run again with 64-bit ones, no move hints
                // (every step of the walk scans the neighbours), one bucket per iteration
                for (const int tier : {0, 1, 2, 3, 4, 5, 6}) {
                    gpu::GridAStarOptions o;
                    o.want_path = true;
                    o.spill_only = tier == 1;
                    if (tier == 2) o.shared_slots = 64;
                    o.wide_values = tier == 3;
                    if (tier == 4) o.narrow_limit_steps = 9;
                    o.path_without_hints = tier == 5;
                    if (tier == 6) o.spread = 1;
                    const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
                    SCOPED_TRACE("tier " + std::to_string(tier) + (mode == CostMode::Integer ? " integer" : " real") +
                                 " corners " + std::string(to_string(rules.corners)) +
                                 (rules.connectivity == Connectivity::Eight ? " 8-conn" : " 4-conn"));
                    const auto out = gpu::run_grid_astar_gpu(*map, rules, mode, {{s, g}}, o);
                    ASSERT_TRUE(out.error.empty()) << out.error;
                    const SearchOutput cpu = astar_grid(*map, {rules, mode, Heuristic::Octile}, s, g);
                    ASSERT_EQ(out.costs[0] >= 0, cpu.found);
                    if (!cpu.found) continue;
                    ASSERT_NO_FATAL_FAILURE(test::expect_legal_path(*map, rules, mode, s, g, out.path, cpu.cost));
                    EXPECT_NEAR(out.costs[0], cpu.cost, 1e-9 * std::max(1.0, cpu.cost));
                }
    }
}

// 32-bit table values (the default where no g can reach 2^31) against 64-bit ones and against
// the CPU, in both metrics; with a low limit on the 32-bit g, the queries that reach it run
// again with 64-bit values in a later launch, from the chip and from a pool table they moved
// into, and their costs read the same (both widths step alike).
TEST(GridAStarGpu, NarrowAndWideValuesGiveTheSameCosts) {
    PS_REQUIRE_GPU();
    gpu::GridAStarOptions wide;
    wide.wide_values = true;
    gpu::GridAStarOptions limited;
    limited.narrow_limit_steps = 20;
    gpu::GridAStarOptions limited_tiny = limited;
    limited_tiny.shared_slots = 256;
    limited_tiny.narrow_limit_steps = 60;
    std::uint64_t seed = 500;
    for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
        std::size_t wide_again = 0;
        for (const auto& map : mixed_maps())
            for (const MoveRules rules : all_rules()) {
                gpu::GridAStarOutput out;
                expect_costs_equal_cpu(*map, rules, mode, random_queries(*map, 30, seed++), wide, "64-bit values",
                                       &out);
                for (const std::uint8_t n : out.narrow) EXPECT_EQ(n, 0u);
                for (const auto* o : {&limited, &limited_tiny}) {
                    expect_costs_equal_cpu(*map, rules, mode, random_queries(*map, 30, seed++), *o,
                                           "32-bit values up to a low limit", &out);
                    for (std::size_t q = 0; q < out.narrow.size(); ++q) {
                        if (!out.spilled[q]) {  // done in the first launch
                            EXPECT_EQ(out.narrow[q], 1u) << "query " << q;
                        }
                        wide_again += out.spilled[q] && !out.narrow[q];
                    }
                }
            }
        EXPECT_GT(wide_again, 0u) << (mode == CostMode::Integer ? "integer" : "real");
    }
}

// The real metric steps 33461 orthogonally and 47321 diagonally (a convergent of sqrt(2)): on
// an open map its error grows with the diagonal steps, and it stays within 1e-9 of the exact
// cost on the longest diagonal a map with 32-bit values can hold. A map with more free cells
// than 2^31 / 47321 (45359) starts with 64-bit values, in the same steps.
TEST(GridAStarGpu, RealMetricIn32BitsStaysWithin1e9OfTheExactCost) {
    PS_REQUIRE_GPU();
    for (const int side : {200, 213}) {  // 40000 and 45369 free cells
        const auto map = generated(GeneratorKind::Empty, side, side, 1);
        const int n = side - 1;
        const std::vector<gpu::GridQuery> q = {{map->index(0, 0), map->index(n, n)},
                                               {map->index(0, 0), map->index(n, n / 2)},
                                               {map->index(n, 0), map->index(0, n)},
                                               {map->index(3, 5), map->index(3, 5)}};
        const double exact[] = {n * std::sqrt(2.0), (n / 2) * std::sqrt(2.0) + (n - n / 2), n * std::sqrt(2.0), 0.0};
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Eight, CornerRule::Any}}) {
            const auto out = gpu::run_grid_astar_gpu(*map, rules, CostMode::Real, q, {});
            ASSERT_TRUE(out.error.empty()) << out.error;
            for (std::size_t i = 0; i < q.size(); ++i) {
                EXPECT_NEAR(out.costs[i], exact[i], 1e-9 * std::max(1.0, exact[i])) << side << " query " << i;
                EXPECT_EQ(out.narrow[i], side == 200 ? 1u : 0u) << side << " query " << i;
            }
        }
    }
}

TEST(GridAStarGpu, MovingAiScenariosAtTheirOptimalLengths) {
    PS_REQUIRE_GPU();
    if (!test::have_movingai()) GTEST_SKIP() << "shared MovingAI maps not found under " << test::movingai_dir();
    for (const char* name : test::kMovingAiMaps) {
        auto loaded = test::load_movingai(name);
        ASSERT_TRUE(loaded) << loaded.error().message;
        const GridMap* map = &loaded->map;
        ASSERT_EQ(loaded->scen.rejected_count, 0u);
        const std::vector<Scenario>& scen = loaded->scen.scenarios;
        std::vector<gpu::GridQuery> q;
        std::vector<double> optimal;
        for (std::size_t i = 0; i < scen.size(); i += 3) {
            q.push_back({map->index(scen[i].start), map->index(scen[i].goal)});
            optimal.push_back(scen[i].optimal_length);
        }
        const auto out = gpu::run_grid_astar_gpu(*map, {Connectivity::Eight, CornerRule::None}, CostMode::Real, q, {});
        ASSERT_TRUE(out.error.empty()) << out.error;
        for (std::size_t i = 0; i < q.size(); ++i)
            EXPECT_NEAR(out.costs[i], optimal[i], 1e-4 * std::max(1.0, optimal[i])) << name << " scenario " << i * 3;
    }
}

}  // namespace
}  // namespace ps

namespace ps {
namespace {

// `queries` through batch.gpu.grid with `params`, every cost against the CPU A* on the whole map
// (exact in the integer metric), and the queries at `singles` one by one through astar.gpu.block:
// the same cost and a legal path as long as it. The single runs' results are returned.
std::vector<RunResult> expect_variants_equal_cpu(const std::shared_ptr<const GridMap>& map, MoveRules rules,
                                                 CostMode mode, const std::map<std::string, std::string>& params,
                                                 const std::vector<gpu::GridQuery>& queries,
                                                 const std::vector<std::size_t>& singles) {
    const Variant& batch = *Registry::instance().find("batch.gpu.grid");
    const Variant& single = *Registry::instance().find("astar.gpu.block");
    const GridSearchSpec spec{rules, mode, Heuristic::Octile};
    auto expect_cost = [&](double got, const SearchOutput& cpu, const std::string& what) {
        if (!cpu.found) {
            EXPECT_EQ(got, -1.0) << what;
        } else if (mode == CostMode::Integer) {
            EXPECT_EQ(got, cpu.cost) << what;
        } else {
            EXPECT_NEAR(got, cpu.cost, 1e-6 * std::max(1.0, cpu.cost)) << what;
        }
    };
    Problem p;
    p.map = map;
    p.rules = rules;
    p.cost_mode = mode;
    p.params = params;
    for (const auto& q : queries) p.agents.push_back({q.start, q.goal});
    const RunResult r = batch.run(p, {});
    EXPECT_EQ(r.status, RunStatus::Ok) << r.message;
    if (r.status != RunStatus::Ok || r.agent_costs.size() != queries.size()) return {};
    for (std::size_t i = 0; i < queries.size(); ++i)
        expect_cost(r.agent_costs[i], astar_grid(*map, spec, queries[i].start, queries[i].goal),
                    "query " + std::to_string(i));
    std::vector<RunResult> out;
    for (const std::size_t i : singles) {
        Problem one = p;
        one.params["jump"] = "0";  // block A* itself, not Jump Point Search on open maps
        one.agents.clear();
        one.start = queries[i].start;
        one.goal = queries[i].goal;
        out.push_back(single.run(one, {}));
        const RunResult& s = out.back();
        EXPECT_EQ(s.status, RunStatus::Ok) << s.message;
        const SearchOutput cpu = astar_grid(*map, spec, one.start, one.goal);
        EXPECT_EQ(s.found, cpu.found) << "single " << i;
        if (s.status != RunStatus::Ok || !cpu.found || !s.found) continue;
        expect_cost(s.cost, cpu, "single " + std::to_string(i));
        test::expect_legal_path(*map, rules, mode, one.start, one.goal, s.path, cpu.cost);
    }
    return out;
}

// dead_ends=1 through the two variants: tree queries on the host, core queries on the GPU on the
// peeled map, recombined.
TEST(GridAStarGpu, DeadEndForestThroughTheVariantsEqualsTheCpu) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 500;
    for (const auto& map :
         {generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1), generated(GeneratorKind::Maze, 123, 91, 8, 0.0, 3),
          generated(GeneratorKind::Division, 77, 59, 6), generated(GeneratorKind::Random, 61, 47, 2, 0.35)})
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Four, CornerRule::None},
              MoveRules{Connectivity::Eight, CornerRule::Any}}) {
            SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()));
            expect_variants_equal_cpu(map, rules, CostMode::Integer, {{"dead_ends", "1"}},
                                      random_queries(*map, 40, seed++), {0, 1, 2, 3, 4, 5});
        }
}

// gate_width=N through the two variants: the batch searches the union of what its queries keep,
// a single query only its own (both metrics, odd sizes, mazes of corridors 2 to 5, unreachable
// pairs, start == goal).
TEST(GridAStarGpu, GateForestThroughTheVariantsEqualsTheCpu) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 700;
    for (const auto& [map, width] : std::vector<std::pair<std::shared_ptr<const GridMap>, int>>{
             {generated(GeneratorKind::Maze, 163, 131, 4, 0.0, 4), 4},
             {generated(GeneratorKind::Maze, 123, 91, 8, 0.0, 2), 3},
             {generated(GeneratorKind::Maze, 141, 99, 5, 0.0, 5), 8},
             {generated(GeneratorKind::Rooms, 129, 97, 8, 0.5), 6},
             {generated(GeneratorKind::Division, 77, 59, 6), 2},
             {generated(GeneratorKind::Random, 61, 47, 2, 0.35), 3}})
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Four, CornerRule::None},
              MoveRules{Connectivity::Eight, CornerRule::Any}})
            for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
                SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()) + " gate_width " +
                             std::to_string(width) + (mode == CostMode::Real ? " real" : " integer"));
                auto queries = random_queries(*map, 30, seed++);
                queries.push_back({queries[0].start, queries[0].start});
                for (const RunResult& s :
                     expect_variants_equal_cpu(map, rules, mode, {{"gate_width", std::to_string(width)}}, queries,
                                               {1, 2, 3, queries.size() - 1}))
                    if (s.status == RunStatus::Ok) {
                        EXPECT_LE(s.counters.at("kept_cells"), double(map->passable_count()));
                    }
            }
}

// The map read from shared memory (where it fits beside the table) or from global memory, and
// blocks of 512 or 1024 threads (block=auto picks 1024 past 131072 free cells), with tables small
// enough that queries fill them and move on into global ones: every cost equals the CPU's.
TEST(GridAStarGpu, MapOnChipOrNotAndEveryBlockWidthEqualTheCpu) {
    PS_REQUIRE_GPU();
    const MoveRules rules{Connectivity::Eight, CornerRule::None};
    std::uint64_t seed = 900;
    for (const auto& map :
         {generated(GeneratorKind::Random, 157, 133, 4, 0.3), generated(GeneratorKind::Rooms, 419, 397, 5, 0.5)}) {
        const bool wide = map->passable_count() > 131072;
        SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()));
        const auto queries = random_queries(*map, 24, seed++);
        for (const auto& params : std::vector<std::map<std::string, std::string>>{
                 {{"map_on_chip", "0"}},
                 {{"map_on_chip", "1"}},
                 {{"block", "1024"}, {"shared_slots", "1024"}},
                 {{"block", "auto"}, {"shared_slots", "2048"}, {"map_on_chip", "0"}}}) {
            SCOPED_TRACE(params.begin()->first + "=" + params.begin()->second);
            for (const RunResult& s :
                 expect_variants_equal_cpu(map, rules, CostMode::Integer, params, queries, {0, 1})) {
                if (s.status != RunStatus::Ok) continue;
                EXPECT_EQ(s.counters.at("map_on_chip"),
                          params.count("map_on_chip") && params.at("map_on_chip") == "0" ? 0.0 : 1.0);
                const auto block = params.find("block");
                EXPECT_EQ(s.counters.at("block_threads"),
                          block == params.end() || block->second == "auto" ? (wide ? 1024.0 : 512.0) : 1024.0);
            }
        }
    }
}

// bidir=1: each query from both ends at once, through the two variants: every cost equals the
// CPU's under the three rules and both metrics (odd sizes, unreachable pairs, start == goal, long
// maze paths) and each single query's path is legal and as long; then half tables small enough
// that queries fill them and start over one-sided (and move on into pool tables).
TEST(GridAStarGpu, BidirectionalEqualsTheCpu) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 1100;
    for (const auto& map :
         {generated(GeneratorKind::Random, 61, 47, 2, 0.35), generated(GeneratorKind::Rooms, 129, 97, 8, 0.5),
          generated(GeneratorKind::Maze, 101, 67, 4, 0.0, 1), generated(GeneratorKind::Empty, 37, 23, 1),
          generated(GeneratorKind::Division, 77, 59, 6)})
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Four, CornerRule::None},
              MoveRules{Connectivity::Eight, CornerRule::Any}})
            for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
                SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()) +
                             (mode == CostMode::Real ? " real" : " integer"));
                // gate_width=0: the maze and division maps search whole, not through gate_width=auto's forest
                for (const RunResult& s :
                     expect_variants_equal_cpu(map, rules, mode, {{"bidir", "1"}, {"gate_width", "0"}},
                                               random_queries(*map, 30, seed++), {0, 1, 2, 3}))
                    if (s.status == RunStatus::Ok) {
                        EXPECT_EQ(s.counters.at("bidir"), 1.0);
                    }
            }
    // bidir=auto: on where a half table (8192 slots, 3/4 less one iteration's inserts) holds the
    // map, off where it does not.
    for (const auto& [map, on] : std::vector<std::pair<std::shared_ptr<const GridMap>, bool>>{
             {generated(GeneratorKind::Random, 61, 47, 2, 0.35), true},
             {generated(GeneratorKind::Random, 129, 131, 3, 0.2), false}}) {
        ASSERT_EQ(map->passable_count() <= 8192 / 4 * 3 - 256, on);
        for (const RunResult& s :
             expect_variants_equal_cpu(map, MoveRules{Connectivity::Eight, CornerRule::None}, CostMode::Integer, {},
                                       random_queries(*map, 10, seed++), {1}))
            if (s.status == RunStatus::Ok) {
                EXPECT_EQ(s.counters.at("bidir"), on ? 1.0 : 0.0);
            }
    }
    const auto map = generated(GeneratorKind::Random, 129, 131, 3, 0.2);
    gpu::GridAStarOptions small;
    small.bidir = 1;
    small.shared_slots = 1024;
    small.shared_bucket = 64;
    gpu::GridAStarOutput out;
    expect_costs_equal_cpu(*map, MoveRules{Connectivity::Eight, CornerRule::None}, CostMode::Integer,
                           random_queries(*map, 40, seed), small, "bidir, small tables", &out);
    EXPECT_GT(std::count(out.moved.begin(), out.moved.end(), 1) + std::count(out.spilled.begin(), out.spilled.end(), 1),
              0)
        << "no query outgrew its half table";
}

// Two-sided queries meet halfway: each side's buckets hold MM's priority max(f, 2g), so neither
// side expands a cell with g above half the cost, and a query takes about half the iterations of
// a one-sided one. With the buckets keyed by f the sides met halfway too, but went on until one
// side's lowest f reached mu: as many iterations as one side alone (random512-10-0, README).
// Tables large enough that no query starts over; every cost equal to the CPU's.
TEST(GridAStarGpu, TwoSidedQueriesMeetHalfway) {
    PS_REQUIRE_GPU();
    const auto map = generated(GeneratorKind::Random, 160, 120, 21, 0.1);
    std::vector<gpu::GridQuery> queries;
    test::Lcg rng(2300);
    while (queries.size() < 12) {  // long queries: at least 80 cells apart along x
        const Vertex s = test::random_passable(*map, rng), g = test::random_passable(*map, rng);
        if (std::abs(map->cell(s).x - map->cell(g).x) >= 80) queries.push_back({s, g});
    }
    for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
        gpu::GridAStarOptions one, two;
        one.shared_slots = two.shared_slots = 16384;
        one.bidir = 0;
        two.bidir = 1;
        gpu::GridAStarOutput a, b;
        expect_costs_equal_cpu(*map, {Connectivity::Eight, CornerRule::None}, mode, queries, one, "one-sided", &a);
        expect_costs_equal_cpu(*map, {Connectivity::Eight, CornerRule::None}, mode, queries, two, "two-sided", &b);
        ASSERT_TRUE(b.bidir);
        std::uint64_t one_sided = 0, two_sided = 0;
        for (std::size_t i = 0; i < queries.size(); ++i) {
            ASSERT_EQ(b.spilled[i] + b.moved[i], 0) << "query " << i << " left the chip";
            one_sided += a.iterations[i];
            two_sided += b.iterations[i];
        }
        EXPECT_LT(double(two_sided), 0.65 * double(one_sided)) << one_sided << " one-sided iterations";
    }
}

// astar.gpu.block with `params` on the last of `count` random queries of `map` (seed `seed`).
RunResult run_block_query(std::shared_ptr<const GridMap> map, std::map<std::string, std::string> params, int count,
                          std::uint64_t seed) {
    Problem p;
    p.map = std::move(map);
    p.params = std::move(params);
    p.params.emplace("jump", "0");  // block A* itself
    const auto q = random_queries(*p.map, count, seed);
    p.start = q.back().start;
    p.goal = q.back().goal;
    return Registry::instance().find("astar.gpu.block")->run(p, {});
}

TEST(GridAStarGpu, BidirectionalTakesChainOne) {
    PS_REQUIRE_GPU();
    const RunResult r =
        run_block_query(generated(GeneratorKind::Random, 31, 29, 4, 0.2), {{"bidir", "1"}, {"chain", "2"}}, 2, 5);
    EXPECT_EQ(r.status, RunStatus::Error);
    EXPECT_NE(r.message.find("chain=1"), std::string::npos) << r.message;
}

// gate_width=auto (the default of both variants): perfect mazes of corridors 1 and 3 search
// through their gate forest of width 8, a rooms map and a map of random obstacles whole; every
// cost equals the CPU's and every single path is legal, in both metrics.
TEST(GridAStarGpu, GateWidthAutoTakesMazesOnly) {
    PS_REQUIRE_GPU();
    std::uint64_t seed = 1300;
    for (const auto& [map, maze] : std::vector<std::pair<std::shared_ptr<const GridMap>, bool>>{
             {generated(GeneratorKind::Maze, 203, 161, 3, 0.0, 1), true},
             {generated(GeneratorKind::Maze, 251, 187, 4, 0.0, 3), true},
             {generated(GeneratorKind::Rooms, 301, 257, 3, 0.5), false},
             {generated(GeneratorKind::Random, 283, 241, 6, 0.3), false}})
        for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
            SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()));
            for (const RunResult& s : expect_variants_equal_cpu(map, MoveRules{Connectivity::Eight, CornerRule::None},
                                                                mode, {}, random_queries(*map, 20, seed++), {0, 1}))
                if (s.status == RunStatus::Ok) {
                    EXPECT_EQ(s.counters.at("gate_auto_width"), maze ? 8.0 : 0.0);
                    EXPECT_EQ(s.counters.count("kept_cells"), maze ? 1u : 0u);
                    // bidir=auto: two-sided through a maze's forest (these maps are past the half-table rule)
                    EXPECT_EQ(s.counters.at("bidir"), maze ? 1.0 : 0.0);
                }
        }
}

// Maps whose bitmap fills, to the word, the shared memory a block may take beside a table of
// 16384 slots (one block an SM, so the map goes on chip wherever it fits): the kernel's own
// static shared memory (its BlockState) comes out of the same limit, so where the two together
// pass it the map stays in global memory and the query still runs. Open maps 32 cells wide (a
// word a row), heights stepping the words up to the limit and past it; the cost by hand.
TEST(GridAStarGpu, MapAtTheSharedMemoryLimitStillRuns) {
    PS_REQUIRE_GPU();
    const std::size_t limit = gpu_info().shared_per_block_optin;
    gpu::GridAStarOptions o;
    o.shared_slots = 16384;
    const MoveRules rules{Connectivity::Eight, CornerRule::None};
    // The table's bytes, from a run that leaves the map in global memory.
    const auto table_bytes = [&](int h) {
        const GridMap open(32, h);
        gpu::GridAStarOptions off = o;
        off.map_on_chip = false;
        const auto out = gpu::run_grid_astar_gpu(open, rules, CostMode::Integer, {{0, open.index(3, 3)}}, off);
        EXPECT_TRUE(out.error.empty()) << out.error;
        return (out.shared_bytes_per_block + 15) / 16 * 16;
    };
    const std::size_t at = table_bytes(64);
    ASSERT_GT(limit, at);
    int top = 32;  // the tallest map whose bitmap fits the limit, static shared memory left out
    while (at + std::size_t(top + 1) * 4 <= limit) ++top;
    ASSERT_EQ(table_bytes(top), at);  // the same table at the sizes tried
    std::size_t on_chip = 0, global = 0;
    for (int h = top - 120; h <= top + 3; h += 3) {
        const GridMap open(32, h);
        const auto out =
            gpu::run_grid_astar_gpu(open, rules, CostMode::Integer, {{open.index(0, 0), open.index(31, 40)}}, o);
        ASSERT_TRUE(out.error.empty()) << h << " rows: " << out.error;
        ASSERT_EQ(out.costs.size(), 1u);
        EXPECT_EQ(out.costs[0], 31 * 1414.0 + 9 * 1000.0) << h << " rows";
        (out.map_on_chip ? on_chip : global) += 1;
    }
    EXPECT_GT(on_chip, 0u);
    EXPECT_GT(global, 0u);
}

TEST(GridAStarGpu, GateWidthAndDeadEndsExcludeEachOther) {
    PS_REQUIRE_GPU();
    const RunResult r = run_block_query(generated(GeneratorKind::Maze, 41, 41, 1, 0.0, 2),
                                        {{"gate_width", "2"}, {"dead_ends", "1"}}, 1, 3);
    EXPECT_NE(r.status, RunStatus::Ok);
    EXPECT_NE(r.message.find("exclude each other"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace ps

namespace ps {
namespace {

// Appends the two corner-to-corner queries of `map` (each corner's nearest cell of the largest
// region): in a maze, tree queries long enough to be split into pieces.
void add_corner_queries(const GridMap& map, MoveRules rules, std::vector<gpu::GridQuery>& queries) {
    const int w = map.width() - 1, h = map.height() - 1;
    const auto corners = nearest_in_largest_region(map, rules, {{0, 0}, {w, h}, {w, 0}, {0, h}});
    queries.push_back({map.index(*corners[0]), map.index(*corners[1])});
    queries.push_back({map.index(*corners[2]), map.index(*corners[3])});
}

// A single query answered inside one tree, long enough to be split (`pieces`): the same cost as
// the CPU A* and as one search (pieces=1), a legal path as long as its cost, in both metrics,
// under two move rules, on 4-wide and 3-wide perfect mazes whose queries cross them.
TEST(GridAStarGpu, TreeQueryInPiecesEqualsOneSearchAndTheCpu) {
    PS_REQUIRE_GPU();
    const Variant& single = *Registry::instance().find("astar.gpu.block");
    std::size_t split = 0;
    for (const auto& [map, width] : std::vector<std::pair<std::shared_ptr<const GridMap>, int>>{
             {generated(GeneratorKind::Maze, 513, 401, 4, 0.0, 4), 4},
             {generated(GeneratorKind::Maze, 389, 457, 9, 0.0, 3), 3}})
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Four, CornerRule::None}})
            for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
                SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()) +
                             (mode == CostMode::Real ? " real" : " integer"));
                // Corner to corner (long: split) and random pairs (some too short to split).
                auto queries = random_queries(*map, 2, 40 + std::uint64_t(width));
                add_corner_queries(*map, rules, queries);
                for (const auto& q : queries) {
                    const GridSearchSpec spec{rules, mode, Heuristic::Octile};
                    const SearchOutput cpu = astar_grid(*map, spec, q.start, q.goal);
                    for (const char* pieces : {"256", "5", "1"}) {
                        Problem p;
                        p.map = map;
                        p.rules = rules;
                        p.cost_mode = mode;
                        p.start = q.start;
                        p.goal = q.goal;
                        p.params = {{"gate_width", std::to_string(width)}, {"pieces", pieces}};
                        const RunResult r = single.run(p, {});
                        ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
                        ASSERT_EQ(r.found, cpu.found);
                        if (!cpu.found) continue;
                        EXPECT_NEAR(r.cost, cpu.cost, 1e-6 * std::max(1.0, cpu.cost)) << "pieces " << pieces;
                        ASSERT_NO_FATAL_FAILURE(
                            test::expect_legal_path(*map, rules, mode, q.start, q.goal, r.path, cpu.cost));
                        if (std::string(pieces) == "1") {
                            EXPECT_EQ(r.counters.at("pieces"), 1.0);
                        }
                        split += r.counters.at("pieces") > 1.0;
                    }
                }
            }
    EXPECT_GE(split, 16u);  // every corner-to-corner query was split (2 of 4 per map and rule set)
}

// The memory plan said before a batch names the width of its g values, for the run's metric, and
// the run keeps to it: 32 bits in the real metric up to 45,359 free cells, 64 above (the
// integer metric's 32 bits hold much further), 64 always with wide_values=1.
TEST(GridAStarGpu, BatchPlanNamesTheValueWidthOfItsMetric) {
    PS_REQUIRE_GPU();
    const Variant& batch = *Registry::instance().find("batch.gpu.grid");
    const auto small = generated(GeneratorKind::Empty, 200, 200, 1),
               large = generated(GeneratorKind::Empty, 213, 213, 1);
    struct Case {
        std::shared_ptr<const GridMap> map;
        CostMode mode;
        bool wide;
        const char* width;
    };
    for (const Case& c :
         {Case{small, CostMode::Real, false, "32-bit"}, Case{large, CostMode::Real, false, "64-bit"},
          Case{large, CostMode::Integer, false, "32-bit"}, Case{small, CostMode::Real, true, "64-bit"}}) {
        Problem p;
        p.map = c.map;
        p.cost_mode = c.mode;
        if (c.wide) p.params = {{"wide_values", "1"}};
        p.agents = {{c.map->index(0, 0), c.map->index(150, 199)}, {c.map->index(7, 3), c.map->index(7, 3)}};
        const std::string label = std::to_string(c.map->width()) + (c.mode == CostMode::Real ? " real" : " integer") +
                                  (c.wide ? " wide_values=1" : "");
        const auto preview = batch.preview(p);
        ASSERT_TRUE(preview.has_value()) << label;
        const std::string said = std::string(c.width) + " g values";
        EXPECT_NE(preview->find(said), std::string::npos) << label << ": " << *preview;
        const RunResult r = batch.run(p, {});
        ASSERT_EQ(r.status, RunStatus::Ok) << label << ": " << r.message;
        EXPECT_NE(r.message.find(said), std::string::npos) << label << ": " << r.message;
        const double exact = c.mode == CostMode::Real ? 150 * std::sqrt(2.0) + 49 : 150 * 1414.0 + 49 * 1000.0;
        EXPECT_NEAR(r.agent_costs[0], exact, 1e-9 * exact) << label;
        EXPECT_EQ(r.agent_costs[1], 0.0) << label;
    }
}

// The same in a batch: its long tree queries go in pieces (every leg of every such query, and the
// other queries whole, in one run), each cost as the CPU's; pieces=1 searches every query whole.
TEST(GridAStarGpu, BatchOfTreeQueriesInPiecesEqualsTheCpu) {
    PS_REQUIRE_GPU();
    const Variant& batch = *Registry::instance().find("batch.gpu.grid");
    for (const auto& [map, width] : std::vector<std::pair<std::shared_ptr<const GridMap>, int>>{
             {generated(GeneratorKind::Maze, 513, 401, 4, 0.0, 4), 4},
             {generated(GeneratorKind::Maze, 389, 457, 9, 0.0, 1), 8}})
        for (const MoveRules rules :
             {MoveRules{Connectivity::Eight, CornerRule::None}, MoveRules{Connectivity::Four, CornerRule::None}})
            for (const CostMode mode : {CostMode::Integer, CostMode::Real}) {
                SCOPED_TRACE(std::to_string(map->width()) + "x" + std::to_string(map->height()) +
                             (mode == CostMode::Real ? " real" : " integer"));
                auto queries = random_queries(*map, 12, 60 + std::uint64_t(width));
                add_corner_queries(*map, rules, queries);
                queries.push_back({queries[0].start, queries[0].start});
                Problem p;
                p.map = map;
                p.rules = rules;
                p.cost_mode = mode;
                for (const auto& q : queries) p.agents.push_back({q.start, q.goal});
                for (const char* pieces : {"256", "1"}) {
                    p.params = {{"gate_width", std::to_string(width)}, {"pieces", pieces}};
                    const RunResult r = batch.run(p, {});
                    ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
                    ASSERT_EQ(r.agent_costs.size(), queries.size());
                    const GridSearchSpec spec{rules, mode, Heuristic::Octile};
                    for (std::size_t i = 0; i < queries.size(); ++i) {
                        const SearchOutput cpu = astar_grid(*map, spec, queries[i].start, queries[i].goal);
                        EXPECT_NEAR(r.agent_costs[i], cpu.found ? cpu.cost : -1.0, 1e-6 * std::max(1.0, cpu.cost))
                            << "query " << i << " pieces " << pieces;
                    }
                    if (std::string(pieces) == "1") {
                        EXPECT_EQ(r.counters.at("queries_in_pieces"), 0.0);
                    } else {
                        EXPECT_GE(r.counters.at("queries_in_pieces"), 2.0);  // the corner-to-corner ones at least
                        EXPECT_GT(r.counters.at("pieces"), double(queries.size()));
                    }
                }
            }
}

}  // namespace
}  // namespace ps
