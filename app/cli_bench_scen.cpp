// pathscope-cli bench --family scen: the one-command MovingAI comparison. For each scenario file
// (its map found by load_scenario_input), every K-th usable query runs on astar.cpu one after
// another, on batch.cpu as one run of all queries, on every single-query GPU variant one after
// another and on every many-query GPU variant as one run. A row per map and variant: summed (or
// whole-run) total and compute medians over --repeat, queries/s, speed-ups over astar.cpu and
// batch.cpu, and validation of every query: the scenario's optimal length (real metric, 1e-4
// relative) or astar.cpu's cost (integer metric). Table, CSV and, with --db, one stored run per
// row whose samples are whole-file times, so the bench plots compare the rows directly.
#include "app/cli_bench_scen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/bench_store.hpp"
#include "app/cli_bench.hpp"
#include "app/cli_target.hpp"
#include "app/cli_text.hpp"
#include "instrumentation/capture/clock.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/run/iteration_account.hpp"
#include "kernels/run/runner.hpp"

namespace ps::cli {
namespace {

struct ScenRow {
    std::string map;
    std::string variant;
    std::size_t queries = 0;
    std::string status;  // ok / skipped / error
    std::string note;
    // Single-query variants: one sample per repetition, each phase summed over the queries.
    RunReport report;
    double wall_ms = 0;  // median wall clock of a pass (single-query variants), else the total
    std::size_t failures = 0;
    std::string first_failure;
    IterationAccount account;  // the GPU's iterations and moved queries (the last pass of one-by-one rows)
    // Baseline median / this row's median; 0 where the baseline did not run.
    double vs_astar_compute = 0, vs_astar_total = 0, vs_batch_compute = 0, vs_batch_total = 0;
};

// What every query's cost must be: the scenario's optimal length (real metric) or astar.cpu's
// cost (integer metric, and scenarios whose file gives no length; -1 when astar.cpu finds no
// path).
struct Truth {
    std::vector<double> cost;
    std::vector<char> from_astar;  // per query: the cost is astar.cpu's
    bool integer = false;

    // Why `found`/`cost` is wrong for query i, or empty.
    std::string check(std::size_t i, bool found, double cost_found) const {
        const double want = cost[i];
        if (want < 0) return found ? "a path where astar.cpu finds none" : "";
        if (!found) return "no path found";
        const double tolerance = integer ? 1e-9 * std::max(1.0, want) : 1e-4 * std::max(1.0, want);
        if (std::abs(cost_found - want) <= tolerance) return "";
        char text[128];
        std::snprintf(text, sizeof text, "cost %.8f, %s %.8f", cost_found, from_astar[i] ? "astar.cpu" : "optimal",
                      want);
        return text;
    }
};

// Checks every measured repetition of a many-query run, query by query.
class BatchCheck : public RunObserver {
public:
    BatchCheck(const Truth& truth, const std::vector<std::string>& where) : m_truth(truth), m_where(where) {}
    void on_sample(int, const PhaseTimes&, const RunResult& result) override {
        const auto& costs = result.agent_costs;
        for (std::size_t i = 0; i < m_truth.cost.size(); ++i) {
            const bool found = i < costs.size() && costs[i] >= 0;
            const std::string why = m_truth.check(i, found, found ? costs[i] : 0.0);
            if (why.empty() || !m_failed.insert(i).second) continue;
            if (m_first.empty()) m_first = m_where[i] + ": " + why;
        }
    }
    std::size_t failures() const { return m_failed.size(); }
    const std::string& first() const { return m_first; }

private:
    const Truth& m_truth;
    const std::vector<std::string>& m_where;
    std::set<std::size_t> m_failed;
    std::string m_first;
};

struct Settings {
    int repeat = 3, warmup = 1;
    CostMode cost_mode = CostMode::Real;
    std::optional<std::string> threads;
    std::map<std::string, std::string> params;  // --param name=value: for every variant that has it
    std::shared_ptr<Executor> executor;         // --target: every run there
};

// A row: a variant and the parameters --variant gave it (id:name=value...).
struct RowVariant {
    const Variant* variant = nullptr;
    std::map<std::string, std::string> params;
};

// The variant parameters of a row: --threads for the variants that have a thread count, each
// --param for the variants that declare it, then the row's own (they win).
std::map<std::string, std::string> params_for(const RowVariant& row, const Settings& settings) {
    const Variant& v = *row.variant;
    std::map<std::string, std::string> params;
    if (settings.threads && find_param(v.info(), "threads")) params["threads"] = *settings.threads;
    for (const auto& [name, value] : settings.params)
        if (find_param(v.info(), name)) params[name] = value;
    for (const auto& [name, value] : row.params) params[name] = value;
    return params;
}

// A single-query variant, one query after another, `repeat` passes over all queries (the first
// query of the first pass also warms up). Each pass is one sample: every phase summed.
void run_one_by_one(const RowVariant& rv, const std::vector<Problem>& queries, const Truth& truth,
                    const std::vector<std::string>& where, const Settings& settings, ScenRow& row) {
    const Variant& v = *rv.variant;
    std::set<std::size_t> failed;
    std::vector<double> walls;
    double cost_sum = 0;
    std::uint64_t expanded = 0;
    bool all_found = true;
    for (int rep = 0; rep < settings.repeat; ++rep) {
        PhaseTimes sum;
        double wall = 0;
        for (std::size_t i = 0; i < queries.size(); ++i) {
            RunRequest request;
            request.variant_id = v.info().id;
            request.executor = settings.executor;
            request.problem = queries[i];
            request.problem.params = params_for(rv, settings);
            request.warmup = rep == 0 && i == 0 ? settings.warmup : 0;
            request.validate = false;  // against the truth below, not another search per query
            Stopwatch watch;
            const RunReport one = run_variant(request);
            if (request.warmup == 0) wall += watch.elapsed_ms();
            if (one.result.status != RunStatus::Ok) {
                row.status = "error";
                row.note = where[i] + ": " + one.result.message;
                row.report.info = v.info();
                row.report.result = one.result;
                return;
            }
            const RunResult& r = one.result;
            sum.allocate_ms += r.phases.allocate_ms;
            sum.upload_ms += r.phases.upload_ms;
            sum.compute_ms += r.phases.compute_ms;
            sum.download_ms += r.phases.download_ms;
            sum.total_ms += r.phases.total_ms;
            if (const std::string why = truth.check(i, r.found, r.cost); !why.empty() && failed.insert(i).second)
                if (row.first_failure.empty()) row.first_failure = where[i] + ": " + why;
            if (rep == settings.repeat - 1) {
                row.account.add(r);
                cost_sum += r.found ? r.cost : 0.0;
                expanded += r.expanded;
                all_found = all_found && r.found;
            }
        }
        row.report.samples.push_back(sum);
        walls.push_back(wall);
    }
    row.status = "ok";
    row.report.info = v.info();
    row.report.stats = compute_phase_stats(row.report.samples);
    row.wall_ms = compute_stats(walls).median;
    row.failures = failed.size();
    RunResult& result = row.report.result;
    result.found = all_found;
    result.cost = cost_sum;
    result.expanded = expanded;
    result.phases = row.report.samples.back();
}

// A many-query variant: one run of all queries, `repeat` times after `warmup`.
void run_all_at_once(const RowVariant& rv, const Problem& batch, const Truth& truth,
                     const std::vector<std::string>& where, const Settings& settings, ScenRow& row) {
    const Variant& v = *rv.variant;
    RunRequest request;
    request.variant_id = v.info().id;
    request.executor = settings.executor;
    request.problem = batch;
    request.problem.params = params_for(rv, settings);
    request.repeat = settings.repeat;
    request.warmup = settings.warmup;
    request.validate = false;  // every repetition is checked against the truth by BatchCheck
    BatchCheck check(truth, where);
    row.report = run_variant(request, &check);
    if (row.report.result.status != RunStatus::Ok) {
        row.status = "error";
        row.note = row.report.result.message;
        return;
    }
    row.status = "ok";
    row.wall_ms = row.report.stats.total.median;
    row.account = IterationAccount::of_batch(row.report.result, batch.agents.size(), row.report.stats.compute.median);
    row.failures = check.failures();
    row.first_failure = check.first();
}

double ratio(double baseline, double value) { return baseline > 0 && value > 0 ? baseline / value : 0.0; }

double queries_per_s(const ScenRow& r) {
    const double ms = r.report.stats.total.median;
    return ms > 0 ? double(r.queries) / (ms / 1000.0) : 0.0;
}

std::string validation_text(const ScenRow& r) { return std::string(to_string(r.report.result.validation)); }

std::string speedup_text(double x) {
    if (x <= 0) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", x);
    return text;
}

// The table's first two columns are as wide as the longest map and variant names they hold
// (at least 16 and 22), so that a long name (random512-10-0.map, a variant with its parameters)
// does not push the rest of its row out of line with the header.
struct NameWidths {
    int map = 16, variant = 22;
};

NameWidths name_widths(const std::vector<ScenRow>& rows, std::size_t first) {
    NameWidths w;
    for (std::size_t i = first; i < rows.size(); ++i) {
        w.map = std::max(w.map, int(rows[i].map.size()));
        w.variant = std::max(w.variant, int(rows[i].variant.size()));
    }
    return w;
}

void print_header(const NameWidths& w) {
    std::printf("%-*s %-*s %7s %11s %11s %11s %9s %9s %9s %9s  %-10s %s\n", w.map, "map", w.variant, "variant",
                "queries", "total ms", "compute ms", "queries/s", "astar c", "astar t", "batch c", "batch t",
                "validation", "failures");
}

void print_row(const ScenRow& r, const NameWidths& w) {
    if (r.status != "ok") {
        std::printf("%-*s %-*s %7zu  %s: %s\n", w.map, r.map.c_str(), w.variant, r.variant.c_str(), r.queries,
                    r.status.c_str(), r.note.c_str());
        return;
    }
    const auto& s = r.report.stats;
    std::printf("%-*s %-*s %7zu %11.3f %11.3f %11.0f %9s %9s %9s %9s  %-10s %zu%s%s\n", w.map, r.map.c_str(), w.variant,
                r.variant.c_str(), r.queries, s.total.median, s.compute.median, queries_per_s(r),
                speedup_text(r.vs_astar_compute).c_str(), speedup_text(r.vs_astar_total).c_str(),
                speedup_text(r.vs_batch_compute).c_str(), speedup_text(r.vs_batch_total).c_str(),
                validation_text(r).c_str(), r.failures,
                r.first_failure.empty() ? "" : "; first: ", r.first_failure.c_str());
}

void write_csv(std::ostream& out, const std::vector<ScenRow>& rows) {
    out << "map,variant,status,note,queries,repetitions,total_median_ms,total_min_ms,total_max_ms,compute_median_ms,"
           "compute_min_ms,compute_max_ms,wall_median_ms,queries_per_s,speedup_vs_astar_cpu_compute,"
           "speedup_vs_astar_cpu_total,speedup_vs_batch_cpu_compute,speedup_vs_batch_cpu_total,validation,failures,"
           "first_failure,iterations,us_per_iteration,queries_moved\n";
    // An absent speed-up (its baseline did not run) is an empty field, not 0.
    const auto speedup = [](double x) {
        if (x <= 0) return std::string();
        char text[32];
        std::snprintf(text, sizeof text, "%.4f", x);
        return std::string(text);
    };
    for (const auto& r : rows) {
        const auto& s = r.report.stats;
        char numbers[512];
        std::snprintf(numbers, sizeof numbers, "%zu,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f", r.queries,
                      r.report.samples.size(), s.total.median, s.total.min, s.total.max, s.compute.median,
                      s.compute.min, s.compute.max, r.wall_ms, queries_per_s(r));
        out << csv_field(r.map) << ',' << csv_field(r.variant) << ',' << r.status << ',' << csv_field(r.note) << ','
            << numbers << ',' << speedup(r.vs_astar_compute) << ',' << speedup(r.vs_astar_total) << ','
            << speedup(r.vs_batch_compute) << ',' << speedup(r.vs_batch_total) << ','
            << (r.status == "ok" ? validation_text(r) : "") << ',' << r.failures << ',' << csv_field(r.first_failure);
        // The GPU's account (empty where the variant counts no iterations): one by one, the sum
        // over the queries; a batch, its longest query.
        const IterationAccount& a = r.account;
        if (a.counted()) {
            char account[128];
            std::snprintf(account, sizeof account, ",%.0f,", a.iterations);
            out << account;
            if (a.us_per_iteration() > 0) {  // none for a batch that ran in waves
                std::snprintf(account, sizeof account, "%.4f", a.us_per_iteration());
                out << account;
            }
            out << ',';
            if (a.tables) out << a.moved;
        } else {
            out << ",,,";
        }
        out << '\n';
    }
}

// Default variants: the two CPU baselines, then every GPU variant of the two families.
std::vector<RowVariant> default_variants() {
    std::vector<RowVariant> out;
    for (const char* id : {"astar.cpu", "batch.cpu"})
        if (const Variant* v = Registry::instance().find(id)) out.push_back({v, {}});
    for (const Family family : {Family::ShortestPath, Family::Batch})
        for (const auto& v : Registry::instance().all())
            if (v->info().family == family && v->info().device == DeviceKind::Gpu) out.push_back({v.get(), {}});
    return out;
}

}  // namespace

OptionSpec with_scen_bench_options(OptionSpec spec) {
    for (const char* name : {"scen", "every", "metric", "threads"}) spec.with_value.insert(name);
    spec.repeatable.insert("scen");
    return spec;
}

int cmd_bench_scen(const Args& args, BenchRuns& runs) {
    const std::shared_ptr<Executor>& target = runs.executor;
    Shard& shard = runs.shard;
    const auto scen_paths = split_list(args.all("scen"));
    if (scen_paths.empty()) return bad_input("bench --family scen needs --scen F.scen[,G.scen,...]");
    auto repeat = args.integer("repeat", 3, 1, 1000000);
    auto warmup = args.integer("warmup", 1, 0, 1000000);
    auto every = args.integer("every", 1, 1, 1000000000);
    for (const Error* e :
         {repeat ? nullptr : &repeat.error(), warmup ? nullptr : &warmup.error(), every ? nullptr : &every.error()})
        if (e) return bad_input(e->message);
    Settings settings;
    settings.executor = target;
    settings.repeat = int(*repeat);
    settings.warmup = int(*warmup);
    const std::string metric = args.get("metric").value_or("real");
    if (metric != "real" && metric != "integer")
        return bad_input("--metric takes real or integer, got '" + metric + "'");
    settings.cost_mode = metric == "integer" ? CostMode::Integer : CostMode::Real;
    if (args.has("threads")) {
        auto threads = args.integer("threads", 1, 1, 4096);
        if (!threads) return bad_input(threads.error().message);
        settings.threads = std::to_string(*threads);
    }

    // Chosen by default, a GPU variant that refuses the problem (the bucket-queue A* in the real
    // metric) is skipped with its reason; named with --variant, that is an error.
    const bool chosen = args.has("variant");
    std::vector<RowVariant> variants = chosen ? std::vector<RowVariant>{} : default_variants();
    for (const auto& spec : split_list(args.all("variant"))) {
        // id[:name=value...]: the same variant with other parameters is another row.
        auto parsed = parse_variant_spec(spec);
        if (!parsed) return bad_input(parsed.error().message);
        const std::string& id = parsed->id;
        const Variant* v = Registry::instance().find(id);
        if (!v) return bad_input("unknown variant '" + id + "' (pathscope-cli list shows them)");
        if (v->info().family != Family::ShortestPath && v->info().family != Family::Batch)
            return bad_input(id + " is a " + std::string(to_string(v->info().family)) +
                             " variant; bench --family scen runs shortest-path (astar.*, dijkstra.*) and batch "
                             "(batch.*) variants");
        for (const auto& [name, value] : parsed->params)
            if (!find_param(v->info(), name)) return bad_input("--variant " + spec + ": " + id + " has no " + name);
        variants.push_back({v, std::move(parsed->params)});
    }
    const Variant* astar_cpu = Registry::instance().find("astar.cpu");
    if (!astar_cpu) return bad_input("astar.cpu is not registered");
    auto given = param_items(args.all("param"));
    if (!given) return bad_input(given.error().message);
    for (const auto& [name, value] : *given) {
        const bool someone = std::any_of(variants.begin(), variants.end(), [&](const RowVariant& v) {
            return find_param(v.variant->info(), name) != nullptr;
        });
        if (!someone) return bad_input("--param " + name + ": no variant of this bench takes it");
    }
    settings.params = std::move(given).value();

    auto store = BenchStore::open(args, "scen");
    if (!store) return bad_input(store.error().message);
    std::printf(
        "pathscope bench --family scen: %s metric (validated against %s), 8-connected, no corner cutting, %d "
        "warm-up + %d runs, GPU: %s\n",
        metric.c_str(), metric == "real" ? "the scenarios' optimal lengths" : "astar.cpu's costs", settings.warmup,
        settings.repeat, where_runs_go(target.get()).c_str());

    std::vector<ScenRow> rows;
    int exit_code = kOk;
    for (const auto& scen_path : scen_paths) {
        auto input = load_scenario_input(scen_path);
        if (!input) return bad_input(input.error().message);
        print_left_out(*input);
        const auto& scenarios = input->file.scenarios;

        Problem base;
        base.map = input->map;
        base.rules = {Connectivity::Eight, CornerRule::None};  // the rules behind MovingAI lengths
        base.cost_mode = settings.cost_mode;
        base.heuristic = Heuristic::Octile;
        std::vector<Problem> queries;
        std::vector<std::string> where;  // "F.scen:57" per query
        Truth truth;
        truth.integer = settings.cost_mode == CostMode::Integer;
        Problem batch = base;
        std::size_t unlisted = 0;  // real metric: scenarios whose file gives no optimal length
        for (std::size_t i = 0; i < scenarios.size(); i += std::size_t(*every)) {
            const Scenario& s = scenarios[i];
            Problem q = base;
            q.start = input->map->index(s.start);
            q.goal = input->map->index(s.goal);
            batch.agents.emplace_back(q.start, q.goal);
            where.push_back(scen_path + ":" + std::to_string(s.line));
            if (truth.integer || !s.has_length()) {
                // The integer metric has no published lengths, nor has a file that gives 0: an
                // untimed astar.cpu is the truth.
                const RunResult r = astar_cpu->run(q, RunContext{});
                if (r.status != RunStatus::Ok) return bad_input(where.back() + ": astar.cpu: " + r.message);
                truth.cost.push_back(r.found ? r.cost : -1.0);
                truth.from_astar.push_back(1);
                unlisted += !truth.integer;
            } else {
                truth.cost.push_back(s.optimal_length);
                truth.from_astar.push_back(0);
            }
            queries.push_back(std::move(q));
        }
        const std::string which = *every == 1
                                      ? "all " + std::to_string(scenarios.size())
                                      : "every " + std::to_string(*every) + "th of " + std::to_string(scenarios.size());
        std::printf("\n%s: %zu queries (%s usable scenarios) on %s %dx%d\n", scen_path.c_str(), queries.size(),
                    which.c_str(), input->name.c_str(), input->map->width(), input->map->height());
        if (unlisted)
            std::printf(
                "  note: %zu of them give no optimal length (0 between two cells): checked against "
                "astar.cpu's costs\n",
                unlisted);
        if (db::HistoryRecorder* recorder = store->recorder())
            recorder->set_map_provenance("movingai " + input->name, std::nullopt);

        const std::size_t first = rows.size();
        for (const RowVariant& rv : variants) {
            const Variant* v = rv.variant;
            ScenRow row;
            row.map = input->name;
            row.variant = v->info().id;
            const auto params = params_for(rv, settings);
            std::string label;
            for (const auto& [name, value] : params) label += (label.empty() ? "" : ",") + name + "=" + value;
            if (!label.empty()) row.variant += "[" + label + "]";
            row.queries = queries.size();
            if (!shard.take()) continue;  // another job's (a sweep split across targets)
            if (auto why = unavailable_reason(*v, settings.executor.get())) {
                row.status = "skipped";
                row.note = *why;
                rows.push_back(std::move(row));
                continue;
            }
            std::printf("  %s ...\n", row.variant.c_str());  // a pass over thousands of queries takes a while
            std::fflush(stdout);
            if (v->info().family == Family::Batch)
                run_all_at_once(rv, batch, truth, where, settings, row);
            else
                run_one_by_one(rv, queries, truth, where, settings, row);
            if (row.status == "error" && !chosen && v->info().device == DeviceKind::Gpu) {
                row.status = "skipped";
                row.note += " (a default variant: named with --variant, this is an error)";
            }
            if (row.status == "ok") {
                RunResult& result = row.report.result;
                const bool reference = truth.integer && v == astar_cpu;
                result.validation = reference      ? Validation::Reference
                                    : row.failures ? Validation::Failed
                                                   : Validation::Passed;
                result.validation_message = row.first_failure;
                result.counters["queries"] = double(row.queries);
                result.counters["query_failures"] = double(row.failures);
                result.counters["wall_ms"] = row.wall_ms;
                if (row.failures && exit_code == kOk) exit_code = kValidationFailed;
            } else if (row.status == "error") {
                exit_code = kBadInput;
            }
            if (row.status != "skipped") {
                // Stored as one run: its samples are whole-file times, like a batch run's.
                RunRequest stored;
                stored.variant_id = v->info().id;
                stored.executor = settings.executor;
                stored.problem = v->info().family == Family::Batch ? batch : base;
                stored.problem.params = params;
                stored.repeat = settings.repeat;
                stored.warmup = settings.warmup;
                if (auto error = store->store(stored, row.report)) return bad_input(*error);
            }
            rows.push_back(std::move(row));
        }
        // Speed-ups over the CPU baselines of this map, once every row has run.
        const ScenRow* astar_row = nullptr;
        const ScenRow* batch_row = nullptr;
        for (std::size_t i = first; i < rows.size(); ++i) {
            if (rows[i].status != "ok") continue;
            if (!astar_row && rows[i].report.info.id == "astar.cpu") astar_row = &rows[i];
            if (!batch_row && rows[i].report.info.id == "batch.cpu") batch_row = &rows[i];
        }
        std::printf("\n");
        const NameWidths widths = name_widths(rows, first);
        print_header(widths);
        for (std::size_t i = first; i < rows.size(); ++i) {
            ScenRow& r = rows[i];
            const auto& s = r.report.stats;
            if (r.status == "ok" && astar_row) {
                r.vs_astar_compute = ratio(astar_row->report.stats.compute.median, s.compute.median);
                r.vs_astar_total = ratio(astar_row->report.stats.total.median, s.total.median);
            }
            if (r.status == "ok" && batch_row) {
                r.vs_batch_compute = ratio(batch_row->report.stats.compute.median, s.compute.median);
                r.vs_batch_total = ratio(batch_row->report.stats.total.median, s.total.median);
            }
            print_row(r, widths);
        }
        bool account_header = false;
        for (std::size_t i = first; i < rows.size(); ++i) {
            const ScenRow& r = rows[i];
            if (r.status != "ok" || !r.account.counted()) continue;
            if (!account_header) std::printf("where the GPU compute goes (one by one: the last pass, every query):\n");
            account_header = true;
            std::printf("  %s: %s\n", r.variant.c_str(), r.account.text().c_str());
        }
        std::fflush(stdout);
    }
    store->print_summary();
    if (int rc = write_csv_to(args.get("csv"), [&](std::ostream& out) { write_csv(out, rows); })) return rc;
    return exit_code;
}

}  // namespace ps::cli
