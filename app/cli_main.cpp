// pathscope-cli: the headless front end. list / gen / run / scen / info / bench / history.
// Exit codes: 0 ok, 1 validation failure, 2 bad input or a run that could not be made
// (message on stderr).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli_args.hpp"
#include "app/cli_text.hpp"
#include "app/cli_batch.hpp"
#include "app/cli_bench.hpp"
#include "app/cli_history.hpp"
#include "app/cli_target.hpp"
#include "database/recorder.hpp"
#include "instrumentation/output/chrome_trace.hpp"
#include "instrumentation/output/json.hpp"
#include "instrumentation/timeline/timeline.hpp"
#include "instrumentation/timeline/trace_stats.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/map/image_map.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/run/runner.hpp"
#include "kernels/run/validation.hpp"

namespace ps::cli {
namespace {

const char* kUsage = R"(pathscope-cli: GPU graph search lab, headless

usage: pathscope-cli <command> [options]

commands:
  list [--json] [--target PREFIX]    variants with family, device and availability (here, or
                                     on the target)
  info [--json]                      GPU and build information
  gen  MAP-OPTIONS --out F.map       generate a map and write it as MovingAI .map
  run  MAP-OPTIONS --variant V[,V..] [--start x,y] [--goal x,y] [--repeat N] [--warmup W]
       [--connectivity 4|8] [--corner-cutting [none|one|any]] [--cost real|integer]
       [--heuristic octile|euclidean|manhattan|zero] [--stop-at-start] [--no-validate] [--json]
       [--param name=value[,name=value..]]  variant parameters (pathscope-cli list --json shows them)
       [--db F]                      also store every run in the history file F
       [--record]                    record the search (A* open/closed, BFS levels) and store it
                                     with --db, so the window can animate the run later
       [--target PREFIX [--remote-cli PATH]]
                                     run there: PREFIX pathscope-cli serve ("ssh gpu-host",
                                     "srun --gres=gpu:1", "" for a local subprocess); results,
                                     history and traces stay here (docs/remote-protocol.md)
       [--trace off|light|full] [--trace-out F.json] [--trace-csv F.csv]
                                     trace one extra repetition (light: NVTX + device level
                                     stamps; full: + CUPTI), print the gap summary, write a
                                     Chrome trace (Perfetto) / CSV
  run  MAP-OPTIONS --variant batch.cpu[,batch.gpu.*] [--roadmap F | --waypoints K [--max-edge D] [--straight-only]]
       [--agents N] [--agents-scen F.scen] [--seed S] [--param threads=T] [--repeat N] [--json] [--db F]
                                     many agents' searches: on a roadmap file (text or DIMACS .gr),
                                     a waypoint roadmap with spacing K, or the map's grid graph;
                                     N random connected (start, goal) pairs, or the scenarios
                                     snapped to the roadmap; prints agents/s and a histogram of
                                     per-agent expansions. --map is optional with --roadmap
  roadmap gen MAP-OPTIONS --spacing K [--max-edge D] [--connectivity 4|8] [--corner-cutting [none|one|any]] [--straight-only]
       [--out F]                     waypoint roadmap: straight edges between nodes that see each
                                     other, then grid-path edges joining what the grid connects
                                     (--straight-only: none)
  roadmap convert IN OUT             text <-> DIMACS (.gr, with .co beside it)
  roadmap info F                     nodes, edges, components, heuristic
  scen --map F.map --scen F.scen --variant V[,V..] [--cost real] [--json]
                                     check every scenario against its optimal length
  bench --family bfs [--sizes 8,32,128,512,2048] [--obstacles none,noise] [--variant V..]
       [--repeat 100] [--warmup 1] [--density 0.15] [--seed 1] [--frontier-alloc both|per-level|once]
       [--cpu-sweep-max 512] [--csv F] [--db F]  the BFS paper's protocol over sizes and variants
  bench --family astar [--sizes 1000,2000,4000] [--grids empty,random,rects,blocked,maze[,division,rooms,streets,noise]]
       [--variant V..] [--repeat 5] [--warmup 1] [--seed 1] [--cpu-max 4000] [--corner-cutting [none|one|any]]
       [--record] [--csv F] [--db F] A* on the BBA* paper's grids (integer metric, start/goal at
                                     opposite corners of the largest region): astar.cpu,
                                     astar.cpu.bidir, dijkstra.cpu (sizes <= --cpu-max) and every
                                     astar.gpu.*; each run validated against one astar.cpu run.
                                     The paper goes to 10000-30000: pass such sizes with --sizes

  bench --family batch --map F.map [--roadmap F | --waypoints K] [--agents 1000,10000]
       [--variant V..] [--param n=v] [--sweep name=v1:v2..] [--repeat 3] [--warmup 1] [--seed 1]
       [--agents-scen F.scen] [--corner-cutting [none|one|any]] [--csv F] [--db F]
                                     every batch.* variant (and the product of --sweep values of
                                     the parameters it has; default memory=explicit:unified x
                                     per_dequeue=1:4:16, --sweep none) per agent count: agents/s,
                                     speed-up over batch.cpu, validation, step histogram
  bench --family scen --scen F.scen[,G.scen..] [--every K] [--metric real|integer] [--variant V..]
       [--threads N] [--param name=value] [--repeat 3] [--warmup 1] [--csv F] [--db F]
                                     MovingAI scenario files (map: the one the lines name beside
                                     the .scen, else F.scen minus .scen), every K-th query:
                                     astar.cpu one by one, batch.cpu all at once, every GPU
                                     astar.*/batch.* variant; speed-ups over both CPU rows, every
                                     query validated (optimal length, or astar.cpu's cost)

  serve [--max-request-mb N]         the remote protocol on stdin/stdout (a target of --target);
                                     requests over N MiB (default 512) are refused
  history [--db F] [--map S] [--variant S] [--device S] [--since YYYY-MM-DD]
       [--until YYYY-MM-DD] [--limit N] [--json]
                                     stored runs, newest first (filters match substrings)
  history show ID [--json]           one stored run with its phase statistics
  history export --format csv|json [--out F] [ID..]   the given runs, or all
  history export --format bundle --out F.psbundle [ID..]
                                     one file with the runs, their maps, recordings and traces
                                     (docs/bundle.md): the window opens it, history import adds it
  history delete ID..  |  history import F (a history or a bundle)  |  history vacuum
  trace export ID [--format chrome|csv] [--out F]   a stored run's timeline (Perfetto opens chrome)
  trace stats ID [--range T0-T1] [--csv F]   kernel, CUDA API, memory and NVTX summaries (as nsys
                                     stats); with a range (ms from the first GPU item, or
                                     200us-1.2ms) its per-row statistics, GPU busy and gaps too
                                     (--csv F: those in F's stem + .range.csv)
  trace diff A B [--csv F]           per level: each run's level time and the gap before it,
                                     and a BFS run's edges visited in the level and its MTEPS
                                     --db F everywhere; default $PATHSCOPE_DB, else
                                     $XDG_DATA_HOME/pathscope/history.sqlite

MAP-OPTIONS: --map F.map|F.pgm|F.png | --gen empty|random|rectangles|blocked-centre|maze|noise|division|rooms|streets
             [--size N | --width W --height H] [--seed S] [--density D] [--corridor C]
             [--noise value|gradient] [--frequency F] [--octaves K] [--room R]
             rooms: R x R rooms (default 16) behind 1-cell walls with doors; --density is the
             share of walls beyond a spanning tree left without a door (default 0.5)
             streets: MovingAI-like city blocks of buildings between streets, two diagonal avenues
             Weighted terrain (cells cost 1..255, 0 blocked; a step costs the mean of its two
             cells' costs times its length; docs/weighted-terrain.md):
             --map F.pgm|F.png --costs    grey levels are cell costs (without --costs: obstacles,
                                          grey below --threshold T, default 128, blocked)
             --map F.map [--swamp-cost C] [--water-cost C]  MovingAI's S and W letters at cost C
                                          (default: S plain, W blocked); a .map with a 'costs'
                                          line is PathScope's weighted text format
             --gen ... --terrain-costs K  smooth patches of cost 2..K on half the free cells

Corner rules on 8-connected grids: without --corner-cutting (or with "none") a diagonal step
needs both orthogonal cells beside it free (MovingAI); --corner-cutting alone (or "one") needs
one of them; --corner-cutting any needs only the diagonal's target cell (the BBA* authors' code,
PathFinding.js without "don't cross corners").
BFS variants search from the goal (the BFS paper's target) over the whole map; with
--stop-at-start they stop after the level that reaches the start. Connectivity defaults to
4 for BFS and 8 for the other searches.
exit codes: 0 ok, 1 validation failed, 2 bad input or run impossible
)";

const std::set<std::string> kMapOptions = {"map",           "gen",        "size",       "width",     "height",  "seed",
                                           "density",       "corridor",   "noise",      "frequency", "octaves", "room",
                                           "terrain-costs", "swamp-cost", "water-cost", "threshold"};

std::set<std::string> with_map_options(std::set<std::string> extra) {
    extra.insert(kMapOptions.begin(), kMapOptions.end());
    return extra;
}

Expected<std::shared_ptr<const GridMap>> load_map(const Args& args) {
    if (args.has("map") == args.has("gen")) return Error{"give exactly one of --map FILE or --gen KIND"};
    if (auto path = args.get("map")) {
        // Generator options would do nothing to a map file. --seed also seeds batch agents.
        for (const char* option :
             {"size", "width", "height", "seed", "density", "corridor", "noise", "frequency", "octaves", "room"})
            if (args.has(option) && !(std::string(option) == "seed" && wants_batch_run(args)))
                return Error{std::string("--") + option +
                             " is an option of --gen (generated maps); it does nothing "
                             "with --map " +
                             *path};
        for (const char* option : {"terrain-costs"})
            if (args.has(option))
                return Error{std::string("--") + option +
                             " is an option of --gen (generated maps); it does nothing with --map " + *path};
        auto map = read_map_file(args, *path);
        if (!map) return map.error();
        return std::make_shared<const GridMap>(std::move(map).value());
    }
    GeneratorParams p;
    auto kind = parse_generator_kind(*args.get("gen"));
    if (!kind) return Error{"unknown generator '" + *args.get("gen") + "'"};
    p.kind = *kind;
    auto size = args.integer("size", 256, 1, 65535);
    if (!size) return size.error();
    auto width = args.integer("width", *size, 1, 65535);
    auto height = args.integer("height", *size, 1, 65535);
    auto seed = args.integer("seed", 1, 0, (1ll << 62));
    auto density = args.number("density", p.kind == GeneratorKind::Rooms ? kRoomsDensity : p.density);
    auto corridor = args.integer("corridor", p.corridor_width, 1, 65535);
    auto room = args.integer("room", p.room_size, 2, 65535);
    auto frequency = args.number("frequency", p.noise_frequency);
    auto octaves = args.integer("octaves", p.noise_octaves, 1, 8);
    for (const Error* e :
         {width ? nullptr : &width.error(), height ? nullptr : &height.error(), seed ? nullptr : &seed.error(),
          density ? nullptr : &density.error(), corridor ? nullptr : &corridor.error(), room ? nullptr : &room.error(),
          frequency ? nullptr : &frequency.error(), octaves ? nullptr : &octaves.error()})
        if (e) return *e;
    p.width = int(*width);
    p.height = int(*height);
    p.seed = std::uint64_t(*seed);
    p.density = *density;
    p.corridor_width = int(*corridor);
    p.room_size = int(*room);
    p.noise_frequency = *frequency;
    p.noise_octaves = int(*octaves);
    if (auto noise = args.get("noise")) {
        auto type = parse_noise_type(*noise);
        if (!type) return Error{"unknown noise type '" + *noise + "' (value or gradient)"};
        p.noise = *type;
    }
    auto terrain = args.integer("terrain-costs", 1, 1, kMaxCellCost);
    if (!terrain) return terrain.error();
    for (const char* option : {"costs", "swamp-cost", "water-cost", "threshold"})
        if (args.has(option))
            return Error{std::string("--") + option +
                         " is an option of --map (map files); generated maps take --terrain-costs K"};
    auto map = generate_map(p);
    if (!map) return map.error();
    if (*terrain > 1) add_terrain_costs(*map, int(*terrain), p.seed);
    return std::make_shared<const GridMap>(std::move(map).value());
}

Expected<Cell> parse_cell(const std::string& text, const std::string& what) {
    int x = 0, y = 0;
    char comma = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%d %c %d %c", &x, &comma, &y, &extra) != 3 || comma != ',')
        return Error{"--" + what + " expects x,y (for example 3,7), got '" + text + "'"};
    return Cell{x, y};
}

// "a BFS variant", "a batch variant", ... for messages that say why a variant does not fit.
std::string family_phrase(Family family) {
    switch (family) {
    case Family::Bfs:
        return "a BFS variant";
    case Family::ShortestPath:
        return "a shortest-path variant";
    case Family::Batch:
        return "a batch variant (many agents)";
    case Family::FlowField:
        return "a flow-field variant";
    }
    return "a variant of another family";
}

std::string cell_text(Cell c) { return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")"; }

// Start and goal: explicit options, else those the map carries, else the passable cells
// nearest the top-left and bottom-right corners.
Expected<void> choose_endpoints(const Args& args, const GridMap& map, Problem& problem) {
    auto pick = [&](const std::string& option, const std::optional<Cell>& carried, Cell corner) -> Expected<Vertex> {
        Cell c;
        if (auto text = args.get(option)) {
            auto parsed = parse_cell(*text, option);
            if (!parsed) return parsed.error();
            c = *parsed;
            if (!map.in_bounds(c.x, c.y))
                return Error{"the " + option + " " + cell_text(c) + " lies outside the " + std::to_string(map.width()) +
                             "x" + std::to_string(map.height()) + " map"};
            if (!map.passable(c)) return Error{"the " + option + " " + cell_text(c) + " is a blocked cell"};
        } else if (carried && map.passable(*carried)) {
            c = *carried;
        } else if (auto near = nearest_passable(map, corner)) {
            c = *near;
        } else {
            return Error{"the map has no passable cell"};
        }
        return map.index(c);
    };
    auto start = pick("start", map.start, Cell{0, 0});
    if (!start) return start.error();
    auto goal = pick("goal", map.goal, Cell{map.width() - 1, map.height() - 1});
    if (!goal) return goal.error();
    problem.start = *start;
    problem.goal = *goal;
    return {};
}

void write_stats(JsonWriter& j, const Stats& s) {
    j.begin_object()
        .field("n", std::uint64_t(s.n))
        .field("mean", s.mean)
        .field("min", s.min)
        .field("max", s.max)
        .field("median", s.median)
        .field("sd", s.sd)
        .end_object();
}

// A BFS run's edges visited and MTEPS (kernels/run/edges_visited.hpp): the totals, the edges of
// every expanded level, and each traced level's rate where the timeline times levels.
void write_edge_metrics_json(JsonWriter& j, const RunReport& r) {
    const auto& c = r.result.counters;
    if (const auto edges = c.find(kEdgesVisitedCounter); edges != c.end())
        j.field("edges_visited", std::uint64_t(edges->second));
    if (const auto rate = c.find(kMtepsCounter); rate != c.end()) j.field("mteps", rate->second);
    if (!r.level_edges.empty()) {
        j.key("level_edges").begin_array();
        for (const std::uint64_t edges : r.level_edges) j.value(edges);
        j.end_array();
    }
    write_level_rates_json(j, r.level_rates);
}

// "edges visited 1048576  MTEPS 412.3 (median compute)", and a traced run's per-level rates.
void print_edge_metrics(const RunReport& r) {
    const auto& c = r.result.counters;
    const auto edges = c.find(kEdgesVisitedCounter);
    if (edges == c.end()) return;
    const auto rate = c.find(kMtepsCounter);
    print_edge_totals(edges->second, rate == c.end() ? std::nullopt : std::optional<double>(rate->second));
    print_level_rates(r.level_rates);
}

void write_report_json(JsonWriter& j, const RunReport& r, const Problem& problem, int warmup) {
    const GridMap& map = *problem.map;
    j.begin_object();
    j.field("variant", r.info.id).field("device", to_string(r.info.device)).field("family", to_string(r.info.family));
    j.field("status", to_string(r.result.status));
    if (!r.result.message.empty()) j.field("message", r.result.message);
    j.key("map")
        .begin_object()
        .field("name", map.name)
        .field("width", map.width())
        .field("height", map.height())
        .end_object();
    j.field("connectivity", int(problem.rules.connectivity)).field("corners", to_string(problem.rules.corners));
    j.field("cost_mode", to_string(problem.cost_mode)).field("heuristic", to_string(problem.heuristic));
    const Cell s = map.cell(problem.start), g = map.cell(problem.goal);
    j.key("start").begin_array().value(s.x).value(s.y).end_array();
    j.key("goal").begin_array().value(g.x).value(g.y).end_array();
    j.field("found", r.result.found)
        .field("cost", r.result.cost)
        .field("path_length", std::uint64_t(r.result.path.size()));
    j.field("expanded", r.result.expanded);
    if (r.info.family == Family::Bfs) {
        j.field("levels", r.result.levels).field("visited", r.result.visited);
        write_edge_metrics_json(j, r);
    }
    j.field("validation", to_string(r.result.validation)).field("validation_message", r.result.validation_message);
    j.field("warmup", warmup).field("repetitions", std::uint64_t(r.samples.size()));
    j.key("phases_ms").begin_object();
    j.key("allocate");
    write_stats(j, r.stats.allocate);
    j.key("upload");
    write_stats(j, r.stats.upload);
    j.key("compute");
    write_stats(j, r.stats.compute);
    j.key("download");
    write_stats(j, r.stats.download);
    j.key("total");
    write_stats(j, r.stats.total);
    j.end_object();
    j.key("counters").begin_object();
    for (const auto& [name, value] : r.result.counters) j.field(name, value);
    j.end_object();
    j.end_object();
}

void print_report_text(const RunReport& r, const Problem& problem, int warmup) {
    const GridMap& map = *problem.map;
    std::printf("%s  [%s]  %s\n", r.info.id.c_str(), std::string(to_string(r.info.device)).c_str(),
                r.info.description.c_str());
    std::printf("  map %s  %dx%d, %zu passable, %d-connected%s, cost %s\n", map.name.c_str(), map.width(), map.height(),
                map.passable_count(), int(problem.rules.connectivity),
                problem.rules.connectivity == Connectivity::Eight
                    ? (", " + std::string(corner_rule_text(problem.rules.corners))).c_str()
                    : "",
                std::string(to_string(problem.cost_mode)).c_str());
    std::printf("  start %s  goal %s\n", cell_text(map.cell(problem.start)).c_str(),
                cell_text(map.cell(problem.goal)).c_str());
    if (r.result.status != RunStatus::Ok) {
        std::printf("  %s: %s\n", std::string(to_string(r.result.status)).c_str(), r.result.message.c_str());
        return;
    }
    if (r.info.family == Family::Bfs) {
        std::printf("  levels %d  visited %llu\n", r.result.levels, (unsigned long long)r.result.visited);
        print_edge_metrics(r);
    }
    if (r.result.found)
        std::printf("  path cost %.10g  (%zu cells)  expanded %llu\n", r.result.cost, r.result.path.size(),
                    (unsigned long long)r.result.expanded);
    else if (r.info.family != Family::Bfs || problem.bfs_stop_at_start)
        std::printf("  no path  expanded %llu\n", (unsigned long long)r.result.expanded);
    std::printf("  validation %s: %s\n", std::string(to_string(r.result.validation)).c_str(),
                r.result.validation_message.c_str());
    std::printf("  %zu repetitions after %d warm-up%s (ms)\n", r.samples.size(), warmup, warmup == 1 ? "" : "s");
    std::printf("    %-9s %11s %11s %11s %11s %11s\n", "phase", "mean", "min", "max", "median", "sd");
    auto row = [](const char* name, const Stats& s) {
        std::printf("    %-9s %11.4f %11.4f %11.4f %11.4f %11.4f\n", name, s.mean, s.min, s.max, s.median, s.sd);
    };
    row("allocate", r.stats.allocate);
    row("upload", r.stats.upload);
    row("compute", r.stats.compute);
    row("download", r.stats.download);
    row("total", r.stats.total);
    for (const auto& [name, value] : r.result.counters)
        if (name != kEdgesVisitedCounter && name != kMtepsCounter)  // printed above
            std::printf("  %s %.10g\n", name.c_str(), value);
}

// "f.json" -> "f.bfs.gpu.dp.json" when several variants are traced in one command.
std::string trace_path(const std::string& path, const std::string& variant, bool several) {
    if (!several) return path;
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "." + variant;
    return path.substr(0, dot) + "." + variant + path.substr(dot);
}

Expected<void> write_trace_files(const Args& args, const RunReport& report, const Problem& problem, bool several,
                                 std::FILE* log) {
    const trace::Provenance provenance{report.info.id, problem.map->name,
                                       gpu_info().available ? describe(gpu_info()) : "CPU only", db::build_commit()};
    auto write = [&](const std::string& option, auto&& writer) -> Expected<void> {
        auto path = args.get(option);
        if (!path) return {};
        const std::string file = trace_path(*path, report.info.id, several);
        std::ofstream out(file, std::ios::binary);
        writer(out);
        out.flush();
        if (!out) return Error{"cannot write the trace to " + file};
        std::fprintf(log, "  trace written to %s\n", file.c_str());
        return {};
    };
    if (auto ok =
            write("trace-out", [&](std::ostream& o) { trace::write_chrome_trace(*report.timeline, provenance, o); });
        !ok)
        return ok;
    return write("trace-csv", [&](std::ostream& o) { trace::write_csv(*report.timeline, o); });
}

Expected<void> configure_problem(const Args& args, Problem& problem) {
    if (auto c = args.get("connectivity")) {
        if (*c != "4" && *c != "8") return Error{"--connectivity must be 4 or 8, got '" + *c + "'"};
        problem.rules.connectivity = *c == "4" ? Connectivity::Four : Connectivity::Eight;
    }
    auto corners = args.corner_rule();
    if (!corners) return corners.error();
    problem.rules.corners = *corners;
    if (auto c = args.get("cost")) {
        if (*c != "real" && *c != "integer") return Error{"--cost must be real or integer, got '" + *c + "'"};
        problem.cost_mode = *c == "integer" ? CostMode::Integer : CostMode::Real;
    }
    if (auto h = args.get("heuristic")) {
        auto parsed = parse_heuristic(*h);
        if (!parsed) return Error{"unknown heuristic '" + *h + "'"};
        problem.heuristic = *parsed;
    }
    problem.bfs_stop_at_start = args.has("stop-at-start");
    auto params = param_items(args.all("param"));
    if (!params) return params.error();
    problem.params = std::move(params).value();
    // Manhattan distance overestimates diagonal steps (2 against sqrt 2 or 1414/1000): A* would
    // return longer paths than the shortest without saying so.
    if (problem.heuristic == Heuristic::Manhattan && problem.rules.connectivity == Connectivity::Eight)
        return Error{
            "--heuristic manhattan is inadmissible with 8-connected moves (it overestimates diagonal "
            "steps); use octile, euclidean or zero, or --connectivity 4"};
    return {};
}

Expected<std::vector<const Variant*>> resolve_variants(const Args& args) {
    auto ids = split_list(args.all("variant"));
    if (ids.empty()) return Error{"give --variant (pathscope-cli list shows them)"};
    std::vector<const Variant*> out;
    for (const auto& id : ids) {
        const Variant* v = Registry::instance().find(id);
        if (!v) return Error{"unknown variant '" + id + "' (pathscope-cli list shows them)"};
        out.push_back(v);
    }
    return out;
}

int cmd_list(const Args& args) {
    auto target = open_target(args);
    if (!target) return bad_input(target.error().message);
    // Here, or the target's as its hello listed them.
    std::vector<remote::RemoteVariant> listed;
    if (*target) {
        listed = (*target)->hello().variants;
    } else {
        for (const auto& v : Registry::instance().all()) {
            const auto why = v->unavailable_reason();
            listed.push_back({v->info(), !why, why.value_or("")});
        }
    }
    if (args.has("json")) {
        JsonWriter j(std::cout);
        j.begin_array();
        for (const remote::RemoteVariant& v : listed)
            remote::write_variant(j, v.info, v.available ? std::nullopt : std::optional(v.unavailable_reason));
        j.end_array();
        std::cout << "\n";
        return kOk;
    }
    const std::string unavailable = *target ? "  [unavailable there: " : "  [unavailable: ";
    for (const remote::RemoteVariant& v : listed)
        std::printf("%-22s %-4s %-14s %s%s\n", v.info.id.c_str(), std::string(to_string(v.info.device)).c_str(),
                    std::string(to_string(v.info.family)).c_str(), v.info.description.c_str(),
                    v.available ? "" : (unavailable + v.unavailable_reason + "]").c_str());
    return kOk;
}

int cmd_info(const Args& args) {
    const GpuInfo& gpu = gpu_info();
    if (args.has("json")) {
        JsonWriter j(std::cout);
        j.begin_object()
            .field("gpu_available", gpu.available)
            .field("gpu", describe(gpu))
            .field("driver_version", gpu.driver_version)
            .field("runtime_version", gpu.runtime_version)
            .field("variants", std::uint64_t(Registry::instance().all().size()))
            .end_object();
        return kOk;
    }
    std::printf("GPU: %s\n", describe(gpu).c_str());
    std::printf("variants: %zu\n", Registry::instance().all().size());
    return kOk;
}

int cmd_gen(const Args& args) {
    auto out = args.get("out");
    if (!out) return bad_input("gen needs --out FILE.map (or FILE.png: grey levels = cell costs)");
    auto map = load_map(args);
    if (!map) return bad_input(map.error().message);
    const bool png = is_image_map_path(*out) && out->size() > 4 && out->substr(out->size() - 4) != ".pgm";
    if (auto ok = png ? write_cost_png(**map, *out) : write_movingai_map(**map, *out); !ok)
        return bad_input(ok.error().message);
    std::printf("%s: %dx%d, %zu passable cells (%.1f%% blocked) -> %s\n", (*map)->name.c_str(), (*map)->width(),
                (*map)->height(), (*map)->passable_count(),
                100.0 * (1.0 - double((*map)->passable_count()) / double((*map)->cell_count())), out->c_str());
    return kOk;
}

int cmd_run(const Args& args) {
    if (wants_batch_run(args)) return cmd_run_batch(args, {load_map, configure_problem});
    auto variants = resolve_variants(args);
    if (!variants) return bad_input(variants.error().message);
    auto map = load_map(args);
    if (!map) return bad_input(map.error().message);
    auto repeat = args.integer("repeat", 1, 1, 1000000);
    if (!repeat) return bad_input(repeat.error().message);
    auto warmup = args.integer("warmup", 0, 0, 1000000);
    if (!warmup) return bad_input(warmup.error().message);
    const bool json = args.has("json");
    auto storage = RunStorage::open(args);
    if (!storage) return bad_input(storage.error().message);
    trace::TraceLevel trace_level = trace::TraceLevel::Off;
    if (auto t = args.get("trace")) {
        auto parsed = trace::parse_trace_level(*t);
        if (!parsed) return bad_input("--trace takes off, light or full, got '" + *t + "'");
        trace_level = *parsed;
    }
    if ((args.has("trace-out") || args.has("trace-csv")) && trace_level == trace::TraceLevel::Off)
        trace_level = trace::TraceLevel::Full;
    // NVTX ranges reach CUPTI only if this is set before the process's first NVTX call.
    if (trace_level == trace::TraceLevel::Full) trace::prepare_nvtx_injection();
    std::vector<std::pair<std::string, trace::Summary>> traced;
    auto target = open_target(args);
    if (!target) return bad_input(target.error().message);

    // Every request is checked before the first runs: bad input is refused up front, and under
    // --json nothing is printed before it is known to be complete (stdout stays valid JSON).
    std::vector<RunRequest> requests;
    for (const Variant* v : *variants) {
        RunRequest request;
        request.variant_id = v->info().id;
        request.problem.map = *map;
        request.problem.rules.connectivity = v->info().family == Family::Bfs ? Connectivity::Four : Connectivity::Eight;
        if (auto ok = configure_problem(args, request.problem); !ok)
            return bad_input(v->info().id + ": " + ok.error().message);
        if (auto ok = choose_endpoints(args, **map, request.problem); !ok) return bad_input(ok.error().message);
        request.repeat = int(*repeat);
        request.warmup = int(*warmup);
        request.validate = !args.has("no-validate");
        request.context.trace = trace_level;
        request.context.record = args.has("record");  // stored with --db: the window animates it later
        request.executor = *target;
        requests.push_back(std::move(request));
    }

    int exit_code = kOk;
    std::ostringstream json_text;
    std::unique_ptr<JsonWriter> j;
    if (json) {
        j = std::make_unique<JsonWriter>(json_text);
        j->begin_array();
    }
    for (std::size_t vi = 0; vi < variants->size(); ++vi) {
        const Variant* v = (*variants)[vi];
        RunRequest& request = requests[vi];
        if (auto plan = request.executor ? std::nullopt : v->preview(request.problem); plan && !json) {
            std::printf("%s  %s\n", v->info().id.c_str(), plan->c_str());
            std::fflush(stdout);
        }
        RunReport report = run_variant(request, storage->observer());
        if (json)
            write_report_json(*j, report, request.problem, request.warmup);
        else
            print_report_text(report, request.problem, request.warmup);
        if (report.timeline) {
            const trace::Summary summary = trace::summarize(*report.timeline);
            traced.emplace_back(report.info.id, summary);
            // Under --json stdout stays JSON: the summary goes to stderr.
            std::FILE* out = json ? stderr : stdout;
            std::fprintf(out, "  trace (%s): %s\n", std::string(to_string(trace_level)).c_str(),
                         trace::describe(summary).c_str());
            std::fprintf(out, "  tracing overhead %+.3f ms on the traced repetition (vs. the median total)\n",
                         report.trace_overhead_ms);
            if (report.clock_fit)
                std::fprintf(out,
                             "  device clock fitted on %zu kernel%s: CUPTI - device = %.3f ms at the first level, "
                             "drift %.1f ppm, max residual %.0f ns\n",
                             report.clock_fit->pairs, report.clock_fit->pairs == 1 ? "" : "s",
                             double(report.clock_offset_ns) * 1e-6, report.clock_fit->drift * 1e6,
                             report.clock_fit->max_residual_ns);
            if (!report.trace_message.empty()) std::fprintf(out, "  note: %s\n", report.trace_message.c_str());
            for (const std::string& note : report.timeline->notes) std::fprintf(out, "  capture: %s\n", note.c_str());
            if (const auto s = trace::trace_summary(*report.timeline); s.graph_launches || s.graph_node_executions)
                std::fprintf(out, "  CUDA graphs: %zu graph launches, %zu node executions (kernels of a graph node)\n",
                             s.graph_launches, s.graph_node_executions);
            if (auto ok = write_trace_files(args, report, request.problem, variants->size() > 1, out); !ok) {
                std::cerr << "pathscope-cli: " << ok.error().message << "\n";
                exit_code = kBadInput;
            }
        }
        const bool stored = storage->store(request, report, json);
        if (report.result.status != RunStatus::Ok) {
            std::cerr << "pathscope-cli: " << report.result.message << "\n";
            exit_code = kBadInput;
        } else if (report.result.validation == Validation::Failed && exit_code == kOk) {
            exit_code = kValidationFailed;
        } else if (!report.result.found && report.info.family == Family::FlowField &&
                   request.problem.start != kNoVertex) {
            // The field is still valid (every reachable cell has its direction): not an error.
            std::cerr << "pathscope-cli: " << report.info.id << ": note: the start cannot reach the goal\n";
        } else if (!report.result.found && (report.info.family == Family::ShortestPath ||
                                            (report.info.family == Family::Bfs && request.problem.bfs_stop_at_start))) {
            std::cerr << "pathscope-cli: " << report.info.id << ": no path: the goal is not reachable from the start\n";
            if (exit_code == kOk) exit_code = kBadInput;
        }
        if (!stored) exit_code = kBadInput;
    }
    if (json) {
        j->end_array();
        std::cout << json_text.str() << "\n";
    }
    if (traced.size() == 2 && traced[0].second.gpu_items > 0 && traced[1].second.gpu_items > 0)
        std::fprintf(json ? stderr : stdout, "\n%s\n",
                     trace::compare(traced[0].first, traced[0].second, traced[1].first, traced[1].second).c_str());
    return exit_code;
}

int cmd_scen(const Args& args) {
    auto variants = resolve_variants(args);
    if (!variants) return bad_input(variants.error().message);
    auto map_path = args.get("map");
    auto scen_path = args.get("scen");
    if (!map_path || !scen_path) return bad_input("scen needs --map FILE.map and --scen FILE.scen");
    auto map_value = read_map_file(args, *map_path);
    if (!map_value) return bad_input(map_value.error().message);
    auto map = std::make_shared<const GridMap>(std::move(map_value).value());
    auto file = read_movingai_scen(*scen_path);
    if (!file) return bad_input(file.error().message);
    check_scenarios(*file, *map, *scen_path);
    if (auto ok = require_scenarios(*file, *scen_path); !ok) return bad_input(ok.error().message);
    const std::vector<Scenario>& scenarios = file->scenarios;

    const bool json = args.has("json");
    // Buffered: an error after the first variant leaves stdout empty rather than half a JSON array.
    std::ostringstream json_text;
    std::unique_ptr<JsonWriter> j;
    if (json) {
        j = std::make_unique<JsonWriter>(json_text);
        j->begin_array();
    }
    int exit_code = kOk;
    for (const Variant* v : *variants)
        if (v->info().family != Family::ShortestPath)
            return bad_input(v->info().id + " is " + family_phrase(v->info().family) +
                             "; scenario lengths need a shortest-path variant (astar.*, dijkstra.*)");
    // The usable lines run; stderr keeps stdout valid JSON under --json.
    if (const std::string left_out = describe_rejected(*file); !left_out.empty())
        std::fprintf(stderr, "pathscope-cli: note: %s\n", left_out.c_str());
    const Variant* astar_cpu = Registry::instance().find("astar.cpu");
    if (!astar_cpu) return bad_input("astar.cpu is not registered");
    const auto unlisted =
        std::count_if(scenarios.begin(), scenarios.end(), [](const Scenario& s) { return !s.has_length(); });
    if (unlisted)
        std::fprintf(stderr,
                     "pathscope-cli: note: %zu scenarios give no optimal length (0 between two cells): checked "
                     "against astar.cpu's costs\n",
                     std::size_t(unlisted));
    for (const Variant* v : *variants) {
        Problem problem;
        problem.map = map;
        problem.rules = {Connectivity::Eight, CornerRule::None};  // the rules behind MovingAI lengths
        if (auto ok = configure_problem(args, problem); !ok) return bad_input(ok.error().message);
        if (problem.cost_mode != CostMode::Real || problem.rules.connectivity != Connectivity::Eight ||
            problem.rules.corners != CornerRule::None)
            return bad_input("MovingAI lengths assume 8-connected moves without corner cutting and real costs");
        std::size_t passed = 0, failed = 0;
        std::vector<std::string> failures;
        double total_ms = 0;
        for (const auto& s : scenarios) {
            RunRequest request;
            request.variant_id = v->info().id;
            request.problem = problem;
            request.problem.start = map->index(s.start);
            request.problem.goal = map->index(s.goal);
            request.validate = false;  // the scenario's optimal length is the truth here
            RunReport report = run_variant(request);
            if (report.result.status != RunStatus::Ok) return bad_input(report.result.message);
            total_ms += report.stats.total.mean;
            // A scenario whose file gives no length (0 between two cells): astar.cpu's cost is the truth.
            double optimal = s.optimal_length;
            bool reachable = true;
            if (!s.has_length()) {
                const RunResult truth = astar_cpu->run(request.problem, RunContext{});
                if (truth.status != RunStatus::Ok) return bad_input("astar.cpu: " + truth.message);
                reachable = truth.found;
                optimal = truth.cost;
            }
            std::string why;
            const double tolerance = 1e-4 * std::max(1.0, optimal);
            if (!reachable) {
                if (report.result.found) why = "a path where astar.cpu finds none";
            } else if (!report.result.found) {
                why = "no path found";
            } else if (const double bound = report.result.cost_bound.value_or(1.0);
                       report.result.cost < optimal - tolerance || report.result.cost > bound * optimal + tolerance) {
                // A suboptimal search (weighted A*, greedy) is held to what it promises.
                char text[160];
                std::snprintf(text, sizeof text, "cost %.8f, %s %.8f%s", report.result.cost,
                              s.has_length() ? "optimal" : "astar.cpu", optimal,
                              bound == 1.0 ? "" : (" (at most " + std::to_string(bound) + " times)").c_str());
                why = text;
            } else if (auto cost = path_cost(request.problem, report.result.path); !cost) {
                why = cost.error().message;
            } else if (std::abs(*cost - report.result.cost) > tolerance) {
                why = "reported cost does not match the path's steps";
            }
            if (why.empty()) {
                ++passed;
            } else {
                ++failed;
                failures.push_back(*scen_path + ":" + std::to_string(s.line) + ": " + cell_text(s.start) + " -> " +
                                   cell_text(s.goal) + ": " + why);
            }
        }
        if (json) {
            j->begin_object()
                .field("variant", v->info().id)
                .field("map", map->name)
                .field("passed", std::uint64_t(passed))
                .field("failed", std::uint64_t(failed))
                .field("total_ms", total_ms);
            j->key("failures").begin_array();
            for (const auto& f : failures) j->value(f);
            j->end_array().end_object();
        } else {
            std::printf("%s on %s: %zu passed, %zu failed (%.1f ms searching)\n", v->info().id.c_str(),
                        map->name.c_str(), passed, failed, total_ms);
            for (std::size_t i = 0; i < failures.size() && i < 20; ++i) std::printf("  %s\n", failures[i].c_str());
            if (failures.size() > 20) std::printf("  ... and %zu more\n", failures.size() - 20);
        }
        if (failed) exit_code = kValidationFailed;
    }
    if (json) {
        j->end_array();
        std::cout << json_text.str() << "\n";
    }
    return exit_code;
}

}  // namespace
}  // namespace ps::cli

int main(int argc, char** argv) {
    using namespace ps::cli;
    std::vector<std::string> rest(argv + 1, argv + argc);
    if (rest.empty() || rest[0] == "help" || rest[0] == "--help" || rest[0] == "-h") {
        std::cout << kUsage;
        return rest.empty() ? kBadInput : kOk;
    }
    const std::string command = rest[0];
    rest.erase(rest.begin());
    if (command == "history") return cmd_history(rest);  // takes ids and files as arguments
    if (command == "trace") return cmd_trace(rest);
    if (command == "roadmap") return cmd_roadmap(rest, {load_map, configure_problem});

    struct Command {
        const char* name;
        OptionSpec spec;
        int (*handler)(const Args&);
    };
    const std::set<std::string> run_flags = {"json",          "stop-at-start", "no-validate",
                                             "straight-only", "record",        "costs"};
    const Command commands[] = {
        {"list", {{"target", "remote-cli"}, {"json"}, {}}, cmd_list},
        {"info", {{}, {"json"}, {}}, cmd_info},
        {"gen", {with_map_options({"out"}), {"costs"}, {}}, cmd_gen},
        {"run",
         {with_map_options(
              batch_run_options({"variant", "start", "goal", "repeat", "warmup", "connectivity", "cost", "heuristic",
                                 "param", "db", "trace", "trace-out", "trace-csv", "target", "remote-cli"})),
          run_flags,
          {"variant", "param"},
          {"corner-cutting"}},
         cmd_run},
        {"bench", bench_options(), cmd_bench},
        {"serve", {{"max-request-mb"}, {}, {}}, cmd_serve},
        {"scen",
         {{"map", "scen", "variant", "connectivity", "cost", "heuristic"}, {"json"}, {"variant"}, {"corner-cutting"}},
         cmd_scen},
    };
    for (const auto& c : commands) {
        if (command != c.name) continue;
        auto args = Args::parse(rest, c.spec);
        if (!args) return bad_input(args.error().message + " (pathscope-cli help)");
        if (!args->positional().empty())
            return bad_input("unexpected argument '" + args->positional().front() + "' (pathscope-cli help)");
        try {
            return c.handler(*args);
        } catch (const std::bad_alloc&) {
            return bad_input("out of memory: the map or search is too large for this machine");
        }
    }
    return bad_input("unknown command '" + command + "' (pathscope-cli help)");
}
