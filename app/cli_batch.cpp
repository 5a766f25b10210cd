// pathscope-cli roadmap gen|convert|info and `run` with batch variants (see cli_batch.hpp).
#include "app/cli_target.hpp"
#include "app/cli_batch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/cli_history.hpp"
#include "app/cli_text.hpp"
#include "instrumentation/capture/cupti_capture.hpp"
#include "instrumentation/output/json.hpp"
#include "instrumentation/timeline/timeline.hpp"
#include "kernels/batch/batch_cpu.hpp"

namespace ps::cli {
namespace {

const std::set<std::string> kBatchOptions = {"roadmap", "waypoints", "max-edge", "agents", "agents-scen"};

std::string graph_summary(const CsrGraph& g) {
    const Components c = connected_components(g);
    char text[200];
    std::snprintf(text, sizeof text, "%u nodes, %llu arcs (%llu edges both ways), %u components (largest %u nodes)",
                  g.vertex_count(), (unsigned long long)g.edge_count(), (unsigned long long)(g.edge_count() / 2),
                  c.count, c.largest);
    return text;
}

std::string rules_text(MoveRules rules) {
    if (rules.connectivity == Connectivity::Four) return "4-connected";
    return "8-connected, " + std::string(corner_rule_text(rules.corners));
}

Expected<std::shared_ptr<const Roadmap>> waypoints_for(const Args& args, const GridMap& map, MoveRules rules,
                                                       std::string& text) {
    auto spacing = args.integer(args.has("spacing") ? "spacing" : "waypoints", 8, 1, 65535);
    if (!spacing) return spacing.error();
    auto max_edge = args.number("max-edge", 0.0);
    if (!max_edge) return max_edge.error();
    WaypointOptions options;
    options.spacing = int(*spacing);
    options.max_edge = *max_edge;
    options.rules = rules;
    options.connect = !args.has("straight-only");
    auto roadmap = waypoint_roadmap(map, options);
    if (!roadmap) return roadmap.error();
    text = "waypoints spacing " + std::to_string(*spacing) + " (" + rules_text(rules) +
           "): " + graph_summary(roadmap->graph);
    return std::make_shared<const Roadmap>(std::move(roadmap).value());
}

// `run`/`roadmap gen` without --map/--gen is fine when a roadmap file stands alone.
bool has_map_source(const Args& args) { return args.has("map") || args.has("gen"); }

void print_histogram_lines(const std::vector<HistogramBin>& bins, const char* indent) {
    std::size_t most = 0;
    for (const auto& b : bins) most = std::max(most, b.count);
    for (const auto& b : bins) {
        const int width = most ? int(std::lround(40.0 * double(b.count) / double(most))) : 0;
        std::printf("%s%8llu - %-8llu %8zu  %s\n", indent, (unsigned long long)b.lo, (unsigned long long)b.hi, b.count,
                    std::string(std::size_t(std::max(width, b.count ? 1 : 0)), '#').c_str());
    }
}

double median_ms(const RunReport& r) { return r.stats.total.median; }

void print_batch_report(const RunReport& r, const Problem& problem, const BatchSetup& setup, int warmup) {
    std::printf("%s  [%s]  %s\n", r.info.id.c_str(), std::string(to_string(r.info.device)).c_str(),
                r.info.description.c_str());
    if (problem.map)
        std::printf("  map %s  %dx%d, %zu passable\n", problem.map->name.c_str(), problem.map->width(),
                    problem.map->height(), problem.map->passable_count());
    std::printf("  graph: %s\n", setup.graph_text.c_str());
    if (r.result.status != RunStatus::Ok) {
        std::printf("  %s: %s\n", std::string(to_string(r.result.status)).c_str(), r.result.message.c_str());
        return;
    }
    const auto counter = [&](const char* name) { return counter_value(r.result.counters, name); };
    const std::size_t agents = problem.agents.size();
    const double total = median_ms(r);
    std::printf("  agents %zu: %zu reached, %.0f unreachable; %.0f threads\n", agents,
                agents - std::size_t(counter("agents_unreachable")), counter("agents_unreachable"), counter("threads"));
    std::printf("  time (median of %zu after %d warm-up%s): total %.3f ms, compute %.3f ms  ->  %.0f agents/s\n",
                r.samples.size(), warmup, warmup == 1 ? "" : "s", total, r.stats.compute.median,
                total > 0 ? double(agents) / (total / 1000.0) : 0.0);
    std::printf("  validation %s: %s\n", std::string(to_string(r.result.validation)).c_str(),
                r.result.validation_message.c_str());
    std::printf("  steps per agent (expansions): mean %.1f, p50 %.0f, p95 %.0f, max %.0f, max/mean %.1f\n",
                counter("steps_mean"), counter("steps_p50"), counter("steps_p95"), counter("steps_max"),
                counter("steps_imbalance"));
    print_step_histogram(r.result.agent_steps, "    ");
}

void write_batch_json(JsonWriter& j, const RunReport& r, const Problem& problem, const BatchSetup& setup) {
    j.begin_object();
    j.field("variant", r.info.id).field("device", to_string(r.info.device)).field("family", to_string(r.info.family));
    j.field("status", to_string(r.result.status));
    if (!r.result.message.empty()) j.field("message", r.result.message);
    if (problem.map)
        j.key("map")
            .begin_object()
            .field("name", problem.map->name)
            .field("width", problem.map->width())
            .field("height", problem.map->height())
            .end_object();
    j.field("graph", setup.graph_text);
    j.field("agents", std::uint64_t(problem.agents.size()));
    j.field("validation", to_string(r.result.validation)).field("validation_message", r.result.validation_message);
    j.field("repetitions", std::uint64_t(r.samples.size()));
    j.field("total_median_ms", r.stats.total.median).field("compute_median_ms", r.stats.compute.median);
    const double total = r.stats.total.median;
    j.field("agents_per_s", total > 0 ? double(problem.agents.size()) / (total / 1000.0) : 0.0);
    j.key("counters").begin_object();
    for (const auto& [name, value] : r.result.counters) j.field(name, value);
    j.end_object();
    j.key("steps_histogram").begin_array();
    for (const auto& b : log_histogram(r.result.agent_steps))
        j.begin_object()
            .field("lo", std::uint64_t(b.lo))
            .field("hi", std::uint64_t(b.hi))
            .field("count", std::uint64_t(b.count))
            .end_object();
    j.end_array();
    j.end_object();
}

int roadmap_gen(const Args& args, const CliHooks& hooks) {
    if (!args.has("spacing")) return bad_input("roadmap gen needs --spacing K (cells between waypoints)");
    auto map = hooks.load_map(args);
    if (!map) return bad_input(map.error().message);
    Problem rules_holder;
    rules_holder.rules.connectivity = Connectivity::Eight;
    if (auto ok = hooks.configure_problem(args, rules_holder); !ok) return bad_input(ok.error().message);
    std::string text;
    auto roadmap = waypoints_for(args, **map, rules_holder.rules, text);
    if (!roadmap) return bad_input(roadmap.error().message);
    std::printf("%s %dx%d: %s\n", (*map)->name.c_str(), (*map)->width(), (*map)->height(), text.c_str());
    if (auto out = args.get("out")) {
        if (auto ok = write_roadmap(**roadmap, *out); !ok) return bad_input(ok.error().message);
        std::printf("-> %s\n", out->c_str());
    }
    return kOk;
}

int roadmap_convert(const Args& args) {
    const auto& files = args.positional();
    if (files.size() != 2) return bad_input("roadmap convert needs IN and OUT (.gr for DIMACS, else the text format)");
    auto roadmap = read_roadmap(files[0]);
    if (!roadmap) return bad_input(roadmap.error().message);
    if (auto ok = write_roadmap(*roadmap, files[1]); !ok) return bad_input(ok.error().message);
    std::printf("%s -> %s: %s\n", files[0].c_str(), files[1].c_str(), graph_summary(roadmap->graph).c_str());
    return kOk;
}

int roadmap_info(const Args& args) {
    if (args.positional().size() != 1) return bad_input("roadmap info needs one file");
    auto roadmap = read_roadmap(args.positional().front());
    if (!roadmap) return bad_input(roadmap.error().message);
    std::printf("%s: %s\n", args.positional().front().c_str(), graph_summary(roadmap->graph).c_str());
    if (roadmap->map_width > 0) std::printf("  made on a %dx%d map\n", roadmap->map_width, roadmap->map_height);
    std::printf("  heuristic: %s\n", describe(choose_batch_heuristic(roadmap->graph, false)).c_str());
    return kOk;
}

}  // namespace

std::set<std::string> batch_run_options(std::set<std::string> other) {
    other.insert(kBatchOptions.begin(), kBatchOptions.end());
    return other;
}

bool wants_batch_run(const Args& args) {
    for (const auto& name : kBatchOptions)
        if (args.has(name)) return true;
    for (const auto& id : split_list(args.all("variant"))) {
        const Variant* v = Registry::instance().find(id);
        if (v && v->info().family == Family::Batch) return true;
    }
    return false;
}

Expected<BatchSetup> load_batch_setup(const Args& args, const CliHooks& hooks, MoveRules rules) {
    BatchSetup setup;
    if (has_map_source(args) || !args.has("roadmap")) {
        auto map = hooks.load_map(args);
        if (!map) return map.error();
        setup.map = std::move(map).value();
    }
    if (args.has("roadmap") && args.has("waypoints")) return Error{"give --roadmap FILE or --waypoints K, not both"};
    if (auto path = args.get("roadmap")) {
        auto roadmap = read_roadmap(*path);
        if (!roadmap) return roadmap.error();
        if (setup.map && roadmap->map_width > 0 &&
            (roadmap->map_width != setup.map->width() || roadmap->map_height != setup.map->height()))
            return Error{*path + " was made on a " + std::to_string(roadmap->map_width) + "x" +
                         std::to_string(roadmap->map_height) + " map, but the map is " +
                         std::to_string(setup.map->width()) + "x" + std::to_string(setup.map->height())};
        setup.graph_text = "roadmap " + *path + ": " + graph_summary(roadmap->graph);
        setup.roadmap = std::make_shared<const Roadmap>(std::move(roadmap).value());
    } else if (args.has("waypoints")) {
        auto roadmap = waypoints_for(args, *setup.map, rules, setup.graph_text);
        if (!roadmap) return roadmap.error();
        setup.roadmap = std::move(roadmap).value();
    } else {
        setup.graph_text = "grid graph " + std::to_string(setup.map->width()) + "x" +
                           std::to_string(setup.map->height()) + " (" + rules_text(rules) + ")";
    }
    return setup;
}

Expected<std::vector<Agent>> make_agents(const Args& args, const BatchSetup& setup, const Problem& problem,
                                         std::size_t count, std::string* left_out) {
    if (auto scen = args.get("agents-scen")) {
        if (!setup.map) return Error{"--agents-scen needs the map the scenarios are for (--map F.map)"};
        auto agents = scen_agents(std::filesystem::path(*scen), *setup.map, setup.roadmap.get(), count);
        if (!agents) return agents.error();
        if (left_out) *left_out = describe_rejected(agents->file);
        return std::move(agents->agents);
    }
    auto seed = args.integer("seed", 1, 0, 1ll << 62);
    if (!seed) return seed.error();
    auto graph = problem.batch_graph();
    if (!graph) return graph.error();
    return random_agents(**graph, AgentOptions{count, std::uint64_t(*seed)});
}

void attach(Problem& problem, const BatchSetup& setup, std::vector<Agent> agents) {
    problem.map = setup.map;
    // Aliasing: the problem shares the roadmap's graph without copying it.
    problem.roadmap = setup.roadmap ? std::shared_ptr<const CsrGraph>(setup.roadmap, &setup.roadmap->graph) : nullptr;
    problem.agents = std::move(agents);
}

void print_step_histogram(const std::vector<std::uint32_t>& steps, const char* indent) {
    const auto bins = log_histogram(steps);
    if (bins.empty()) return;
    std::printf("%ssteps per agent, log-scaled bins:    agents\n", indent);
    print_histogram_lines(bins, indent);
}

int cmd_run_batch(const Args& args, const CliHooks& hooks) {
    const auto ids = split_list(args.all("variant"));
    if (ids.empty()) return bad_input("give --variant, e.g. --variant batch.cpu (pathscope-cli list shows them)");
    std::vector<const Variant*> variants;
    for (const auto& id : ids) {
        const Variant* v = Registry::instance().find(id);
        if (!v) return bad_input("unknown variant '" + id + "' (pathscope-cli list shows them)");
        if (v->info().family != Family::Batch)
            return bad_input(id +
                             " is not a batch variant: --roadmap, --waypoints and --agents are for batch.* "
                             "variants, which run without other families");
        variants.push_back(v);
    }
    // Options of single searches that a batch would ignore: each agent has its own endpoints,
    // and the heuristic is a variant parameter (--param heuristic=...).
    for (const char* option : {"start", "goal", "heuristic", "stop-at-start"})
        if (args.has(option))
            return bad_input(std::string("--") + option + " is for single searches; batch variants ignore it (" +
                             (std::string(option) == "heuristic"
                                  ? "give --param heuristic=NAME, see pathscope-cli list --json"
                                  : "each agent has its own start and goal: --agents N or --agents-scen F") +
                             ")");
    auto repeat = args.integer("repeat", 1, 1, 1000000);
    if (!repeat) return bad_input(repeat.error().message);
    auto warmup = args.integer("warmup", 0, 0, 1000000);
    if (!warmup) return bad_input(warmup.error().message);
    auto count = args.integer("agents", args.has("agents-scen") ? 0 : 1000, args.has("agents-scen") ? 0 : 1, 100000000);
    if (!count) return bad_input(count.error().message);

    Problem problem;
    problem.rules.connectivity = Connectivity::Eight;
    if (auto ok = hooks.configure_problem(args, problem); !ok) return bad_input(ok.error().message);
    auto setup = load_batch_setup(args, hooks, problem.rules);
    if (!setup) return bad_input(setup.error().message);
    attach(problem, *setup, {});
    std::string left_out;
    auto agents = make_agents(args, *setup, problem, std::size_t(*count), &left_out);
    if (!agents) return bad_input(agents.error().message);
    problem.agents = std::move(agents).value();
    // The other scenarios run; stderr keeps stdout valid JSON under --json.
    if (!left_out.empty()) std::fprintf(stderr, "pathscope-cli: note: %s\n", left_out.c_str());

    // --param values go to the variants that declare them (batch.cpu and batch.gpu.* share
    // "heuristic"; "threads" is the CPU's, "block" the GPU's), so one command line runs both.
    const auto declares = [](const Variant* v, const std::string& name) {
        return find_param(v->info(), name) != nullptr;
    };
    for (const auto& [name, value] : problem.params)
        if (std::none_of(variants.begin(), variants.end(), [&](const Variant* v) { return declares(v, name); }))
            return bad_input("no variant given has a parameter '" + name + "' (pathscope-cli list --json shows them)");

    trace::TraceLevel trace_level = trace::TraceLevel::Off;
    if (auto t = args.get("trace")) {
        auto parsed = trace::parse_trace_level(*t);
        if (!parsed) return bad_input("--trace takes off, light or full, got '" + *t + "'");
        trace_level = *parsed;
    }
    if (args.has("trace-out") || args.has("trace-csv"))
        return bad_input(
            "--trace-out and --trace-csv are for single searches; trace a batch run with --trace and "
            "--db F, then `pathscope-cli trace export ID`");
    // NVTX ranges reach CUPTI only if this is set before the process's first NVTX call.
    if (trace_level == trace::TraceLevel::Full) trace::prepare_nvtx_injection();

    const bool json = args.has("json");
    auto storage = RunStorage::open(args);
    if (!storage) return bad_input(storage.error().message);
    std::ostringstream json_text;  // printed whole at the end: stdout stays valid JSON
    std::unique_ptr<JsonWriter> j;
    if (json) {
        j = std::make_unique<JsonWriter>(json_text);
        j->begin_array();
    }
    auto target = open_target(args);
    if (!target) return bad_input(target.error().message);
    int exit_code = kOk;
    for (const Variant* v : variants) {
        RunRequest request;
        request.variant_id = v->info().id;
        request.problem = problem;
        request.problem.params.clear();
        for (const auto& [name, value] : problem.params)
            if (declares(v, name)) request.problem.params[name] = value;
        request.repeat = int(*repeat);
        request.warmup = int(*warmup);
        request.validate = !args.has("no-validate");
        request.context.trace = trace_level;
        request.context.record = args.has("record");
        request.executor = *target;
        if (auto plan = request.executor ? std::nullopt : v->preview(request.problem); plan && !json) {
            std::printf("%s  %s\n", v->info().id.c_str(), plan->c_str());  // before the run: it may take a while
            std::fflush(stdout);
        }
        RunReport report = run_variant(request, storage->observer());
        if (json)
            write_batch_json(*j, report, request.problem, *setup);
        else
            print_batch_report(report, request.problem, *setup, request.warmup);
        if (report.timeline) {
            std::FILE* out = json ? stderr : stdout;  // under --json stdout stays JSON
            std::fprintf(out, "  trace (%s): %s\n", std::string(to_string(trace_level)).c_str(),
                         trace::describe(trace::summarize(*report.timeline)).c_str());
            if (report.agent_load) std::fprintf(out, "  %s\n", trace::describe(*report.agent_load).c_str());
            if (!report.trace_message.empty()) std::fprintf(out, "  note: %s\n", report.trace_message.c_str());
        }
        const bool stored = storage->store(request, report, json);
        if (report.result.status != RunStatus::Ok) {
            std::cerr << "pathscope-cli: " << report.result.message << "\n";
            exit_code = kBadInput;
        } else if (report.result.validation == Validation::Failed && exit_code == kOk) {
            exit_code = kValidationFailed;
        }
        if (!stored) exit_code = kBadInput;
    }
    if (json) {
        j->end_array();
        std::cout << json_text.str() << "\n";
    }
    return exit_code;
}

int cmd_roadmap(const std::vector<std::string>& argv, const CliHooks& hooks) {
    if (argv.empty()) return bad_input("roadmap needs a subcommand: gen, convert or info (pathscope-cli help)");
    const std::string sub = argv.front();
    const std::vector<std::string> rest(argv.begin() + 1, argv.end());
    OptionSpec spec;
    if (sub == "gen")
        spec = {{"map", "gen", "size", "width", "height", "seed", "density", "corridor", "noise", "frequency",
                 "octaves", "room", "spacing", "max-edge", "out", "connectivity"},
                {"straight-only"},
                {},
                {"corner-cutting"}};
    else if (sub != "convert" && sub != "info")
        return bad_input("unknown roadmap subcommand '" + sub + "' (gen, convert or info)");
    auto args = Args::parse(rest, spec);
    if (!args) return bad_input(args.error().message + " (pathscope-cli help)");
    if (sub == "gen") {
        if (!args->positional().empty()) return bad_input("unexpected argument '" + args->positional().front() + "'");
        return roadmap_gen(*args, hooks);
    }
    return sub == "convert" ? roadmap_convert(*args) : roadmap_info(*args);
}

}  // namespace ps::cli
