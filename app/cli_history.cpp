// pathscope-cli history and `run --db` (see cli_history.hpp).
#include "app/cli_history.hpp"

#include "instrumentation/timeline/timeline.hpp"
#include "instrumentation/timeline/trace_stats.hpp"

#include <chrono>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "app/cli_text.hpp"
#include "instrumentation/output/chrome_trace.hpp"
#include "instrumentation/output/json.hpp"
#include "kernels/base/json_reader.hpp"
#include "kernels/run/edges_visited.hpp"

namespace ps::cli {
namespace {

int fail(const std::string& message) {
    std::cerr << "pathscope-cli history: " << message << "\n";
    return kBadInput;
}

// ---- run --db --------------------------------------------------------------------------------

// The options that rebuild a generated map, as the user would type them again; the seed is
// kept apart (MapInfo::seed).
std::string generator_text(const Args& args) {
    std::string text = "--gen " + *args.get("gen");
    for (const char* option :
         {"size", "width", "height", "density", "corridor", "noise", "frequency", "octaves", "room"})
        if (auto value = args.get(option)) text += std::string(" --") + option + " " + *value;
    return text;
}

// ---- history ---------------------------------------------------------------------------------

Expected<std::int64_t> parse_id(const std::string& text) {
    std::int64_t id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id <= 0)
        return Error{"'" + text + "' is not a run id (a positive integer, as `history` lists them)"};
    return id;
}

Expected<std::vector<std::int64_t>> parse_ids(const std::vector<std::string>& texts) {
    std::vector<std::int64_t> ids;
    for (const auto& t : texts) {
        auto id = parse_id(t);
        if (!id) return id.error();
        ids.push_back(*id);
    }
    return ids;
}

// Midnight UTC of YYYY-MM-DD, in Unix milliseconds.
Expected<std::int64_t> parse_date(const std::string& option, const std::string& text) {
    using namespace std::chrono;
    int y = 0;
    unsigned m = 0, d = 0;
    char extra = 0;
    if (std::sscanf(text.c_str(), "%d-%u-%u%c", &y, &m, &d, &extra) != 3 ||
        !year_month_day{year(y), month(m), day(d)}.ok())
        return Error{"--" + option + " expects a date YYYY-MM-DD, got '" + text + "'"};
    const sys_days days{year_month_day{year(y), month(m), day(d)}};
    return duration_cast<milliseconds>(days.time_since_epoch()).count();
}

Expected<db::History> open_history(const Args& args, db::OpenMode mode) {
    const std::string path = args.get("db").value_or(db::History::default_path());
    return db::History::open(path, mode);
}

std::string ms_text(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", ms);
    return text;
}

std::string cell_text(int x, int y) {
    if (x < 0) return "-";
    return "(" + std::to_string(x) + "," + std::to_string(y) + ")";
}

int history_list(const Args& args) {
    db::RunFilter filter;
    filter.map = args.get("map").value_or("");
    filter.variant = args.get("variant").value_or("");
    filter.device = args.get("device").value_or("");
    if (auto since = args.get("since")) {
        auto ms = parse_date("since", *since);
        if (!ms) return fail(ms.error().message);
        filter.from_unix_ms = *ms;
    }
    if (auto until = args.get("until")) {
        auto ms = parse_date("until", *until);
        if (!ms) return fail(ms.error().message);
        filter.to_unix_ms = *ms + 24 * 3600 * 1000 - 1;  // the whole day
    }
    auto limit = args.integer("limit", 0, 0, 1ll << 40);
    if (!limit) return fail(limit.error().message);
    filter.limit = std::size_t(*limit);

    auto history = open_history(args, db::OpenMode::ReadOnly);
    if (!history) return fail(history.error().message);
    auto runs = history->list_runs(filter);
    if (!runs) return fail(runs.error().message);
    if (args.has("json")) {
        JsonWriter j(std::cout);
        j.begin_array();
        for (const auto& r : *runs) db::write_run_json(j, r, nullptr);
        j.end_array();
        std::cout << "\n";
        return kOk;
    }
    std::printf("%6s  %-19s  %-10s  %-20s  %-28s  %-24s %5s %12s %12s\n", "id", "created (UTC)", "status", "variant",
                "device", "map", "reps", "total mean", "median ms");
    for (const auto& r : *runs)
        std::printf("%6lld  %-19s  %-10s  %-20s  %-28.28s  %-24.24s %5d %12s %12s\n", (long long)r.id,
                    db::format_utc(r.created_unix_ms).c_str(),
                    std::string(db::display_status(r.summary.status)).c_str(), r.info.variant.c_str(),
                    r.info.device_name.c_str(), r.map_name.c_str(), r.repetitions, ms_text(r.total_mean_ms).c_str(),
                    ms_text(r.total_median_ms).c_str());
    std::printf("%zu run%s in %s\n", runs->size(), runs->size() == 1 ? "" : "s", history->path().c_str());
    return kOk;
}

// A BFS run's edges visited and MTEPS, stored with its counters (kernels/run/edges_visited.hpp).
void print_edge_metrics(const std::string& counters_json) {
    const auto counters = parse_json(counters_json);
    const JsonValue* edges = counters ? counters->find(kEdgesVisitedCounter) : nullptr;
    if (!edges || !edges->is(JsonValue::Type::Number)) return;
    const JsonValue* rate = counters->find(kMtepsCounter);
    print_edge_totals(edges->number,
                      rate && rate->is(JsonValue::Type::Number) ? std::optional<double>(rate->number) : std::nullopt);
}

// A traced BFS run's per-level rates (level_rates): its level edges counted again from the
// stored map and levels (db::stored_level_edges) over the levels its timeline times. Nothing
// where the run has no timed BFS levels; an error where its edges cannot be counted.
std::optional<Expected<std::vector<LevelRate>>> stored_level_rates(const db::History& history,
                                                                   const db::RunDetails& d) {
    if (d.events.empty() || d.row.info.family != to_string(Family::Bfs)) return std::nullopt;
    const trace::Timeline timeline = db::decode_timeline(d.events);
    if (timeline.level_name != "level" || trace::level_costs(timeline).empty()) return std::nullopt;
    const auto edges = db::stored_level_edges(history, d.row);
    if (!edges) return Expected<std::vector<LevelRate>>(edges.error());
    return Expected<std::vector<LevelRate>>(level_rates(*edges, timeline));
}

// The rates in one line, or a line saying why there are none.
void print_stored_level_rates(const db::History& history, const db::RunDetails& d) {
    const auto rates = stored_level_rates(history, d);
    if (!rates) return;
    if (!*rates) {
        std::printf("  MTEPS per traced level: - (%s)\n", rates->error().message.c_str());
        return;
    }
    print_level_rates(**rates);
}

void print_details(const db::History& history, const db::RunDetails& d) {
    const db::RunRow& r = d.row;
    const db::RunInfo& in = r.info;
    const db::RunSummary& s = r.summary;
    auto or_dash = [](const std::string& text) { return text.empty() ? std::string("-") : text; };
    std::printf("run %lld  %s%s%s\n", (long long)r.id, std::string(db::display_status(s.status)).c_str(),
                s.message.empty() ? "" : ": ", s.message.c_str());
    std::printf("  created %s UTC%s\n", db::format_utc(r.created_unix_ms).c_str(),
                r.finished_unix_ms ? (", finished " + db::format_utc(r.finished_unix_ms) + " UTC").c_str() : "");
    std::printf("  variant %s (%s, %s)  warm-ups %d\n", in.variant.c_str(), or_dash(in.family).c_str(),
                or_dash(in.device_kind).c_str(), in.warmup);
    std::printf("  device %s  driver %s  CUDA runtime %s\n", or_dash(in.device_name).c_str(),
                or_dash(in.driver_version).c_str(), or_dash(in.cuda_version).c_str());
    std::printf("  host %s  build %s  bench %s\n", or_dash(in.host).c_str(), or_dash(in.build_commit).c_str(),
                or_dash(in.bench_id).c_str());
    std::printf("  map %s  %dx%d  hash %.16s\n", or_dash(r.map_name).c_str(), r.map_width, r.map_height,
                or_dash(r.map_hash).c_str());
    std::printf("  start %s  goal %s\n", cell_text(in.start_x, in.start_y).c_str(),
                cell_text(in.goal_x, in.goal_y).c_str());
    std::printf("  parameters %s\n", or_dash(in.params_json).c_str());
    std::printf("  found %s  cost %.10g  expanded %llu  levels %d  visited %llu\n", s.found ? "yes" : "no", s.cost,
                (unsigned long long)s.expanded, s.levels, (unsigned long long)s.visited);
    std::printf("  validation %s%s%s\n", s.validation.c_str(), s.validation_message.empty() ? "" : ": ",
                s.validation_message.c_str());
    print_edge_metrics(s.counters_json);
    print_stored_level_rates(history, d);
    std::printf("  counters %s\n", or_dash(s.counters_json).c_str());
    const PhaseStats stats = db::phase_stats(d.samples);
    std::printf("  %zu repetitions (ms)\n", d.samples.size());
    std::printf("    %-9s %11s %11s %11s %11s %11s\n", "phase", "mean", "min", "max", "median", "sd");
    const std::pair<const char*, const Stats*> rows[] = {{"allocate", &stats.allocate},
                                                         {"upload", &stats.upload},
                                                         {"compute", &stats.compute},
                                                         {"download", &stats.download},
                                                         {"total", &stats.total}};
    for (const auto& [name, st] : rows)
        std::printf("    %-9s %11.4f %11.4f %11.4f %11.4f %11.4f\n", name, st->mean, st->min, st->max, st->median,
                    st->sd);
    std::printf("  timeline events %llu\n", (unsigned long long)d.event_count);
    for (const auto& rec : d.recordings)
        std::printf("  recording %s: %.2f MiB (%.2f MiB stored)\n", rec.kind.c_str(), double(rec.raw_bytes) / 1048576.0,
                    double(rec.stored_bytes) / 1048576.0);
}

int history_show(const Args& args) {
    if (args.positional().size() != 1) return fail("show takes one run id: pathscope-cli history show ID");
    auto id = parse_id(args.positional().front());
    if (!id) return fail(id.error().message);
    auto history = open_history(args, db::OpenMode::ReadOnly);
    if (!history) return fail(history.error().message);
    const bool json = args.has("json");
    // Only a traced BFS run's per-level rates read the timeline: the events of other runs (a
    // full trace can be millions) are counted, not loaded.
    auto details = history->load_run(*id, false);
    if (!details) return fail(details.error().message);
    if (details->event_count > 0 && details->row.info.family == to_string(Family::Bfs)) {
        details = history->load_run(*id);
        if (!details) return fail(details.error().message);
    }
    if (json) {
        JsonWriter j(std::cout);
        // A traced BFS run's per-level rates as run --json gives them, or why there are none.
        db::write_run_json(j, *details, [&](JsonWriter& w) {
            const auto rates = stored_level_rates(*history, *details);
            if (!rates) return;
            if (*rates)
                write_level_rates_json(w, **rates);
            else
                w.field("level_mteps_error", rates->error().message);
        });
        std::cout << "\n";
    } else {
        print_details(*history, *details);
    }
    return kOk;
}

// --out / --csv F, or standard output; `write` fills it. Reports a file that cannot be written,
// after what `write` itself reports.
int write_output(const std::optional<std::string>& path, const std::function<Expected<void>(std::ostream&)>& write) {
    std::ofstream file;
    if (path) {
        file.open(*path, std::ios::binary);
        if (!file) return fail("cannot write " + *path + " (check the folder exists and is writable)");
    }
    if (auto ok = write(file.is_open() ? file : std::cout); !ok) return fail(ok.error().message);
    if (file.is_open() && !file.flush()) return fail("cannot write " + *path + " (disk full?)");
    return kOk;
}

int history_export(const Args& args) {
    const std::string format = args.get("format").value_or("");
    if (format != "csv" && format != "json" && format != "bundle")
        return fail("export needs --format csv, json or bundle");
    auto ids = parse_ids(args.positional());
    if (!ids) return fail(ids.error().message);
    auto history = open_history(args, db::OpenMode::ReadOnly);
    if (!history) return fail(history.error().message);
    if (format == "bundle") {  // one file with the runs, their maps, recordings and traces
        const auto path = args.get("out");
        if (!path) return fail("a bundle is a file: --out F.psbundle");
        auto written = history->export_bundle(*ids, *path);
        if (!written) return fail(written.error().message);
        std::printf("wrote %zu run%s to %s\n", *written, *written == 1 ? "" : "s", path->c_str());
        return kOk;
    }
    return write_output(args.get("out"), [&](std::ostream& out) {
        return format == "csv" ? history->export_csv(*ids, out) : history->export_json(*ids, out);
    });
}

int history_delete(const Args& args) {
    if (args.positional().empty()) return fail("delete takes the ids of the runs to delete");
    auto ids = parse_ids(args.positional());
    if (!ids) return fail(ids.error().message);
    auto history = open_history(args, db::OpenMode::ReadWrite);
    if (!history) return fail(history.error().message);
    auto deleted = history->delete_runs(*ids);
    if (!deleted) return fail(deleted.error().message);
    std::printf("deleted %zu run%s from %s\n", *deleted, *deleted == 1 ? "" : "s", history->path().c_str());
    if (*deleted != ids->size())
        return fail(std::to_string(ids->size() - *deleted) + " of the given ids matched no run");
    return kOk;
}

int history_import(const Args& args) {
    if (args.positional().size() != 1)
        return fail("import takes one history or bundle file: pathscope-cli history import F");
    auto history = open_history(args, db::OpenMode::ReadWrite);
    if (!history) return fail(history.error().message);
    auto added = history->import_from(args.positional().front());
    if (!added) return fail(added.error().message);
    std::printf("imported %zu run%s from %s into %s\n", *added, *added == 1 ? "" : "s",
                args.positional().front().c_str(), history->path().c_str());
    return kOk;
}

int history_vacuum(const Args& args) {
    if (!args.positional().empty()) return fail("vacuum takes no arguments");
    auto history = open_history(args, db::OpenMode::ReadWrite);
    if (!history) return fail(history.error().message);
    if (auto ok = history->vacuum(); !ok) return fail(ok.error().message);
    std::error_code ec;
    std::printf("vacuumed %s (%.2f MiB)\n", history->path().c_str(),
                double(std::filesystem::file_size(history->path(), ec)) / 1048576.0);
    return kOk;
}

// A stored run's timeline, or the reason there is none; with `level_edges`, a BFS run's edges
// per level too (db::stored_level_edges), or why they cannot be counted.
struct StoredTimeline {
    trace::Timeline timeline;
    db::RunRow row;
    Expected<std::vector<std::uint64_t>> level_edges = std::vector<std::uint64_t>{};
};
Expected<StoredTimeline> load_timeline(const Args& args, const std::string& id_text, bool level_edges = false) {
    auto id = parse_id(id_text);
    if (!id) return id.error();
    auto history = open_history(args, db::OpenMode::ReadOnly);
    if (!history) return history.error();
    auto details = history->load_run(*id, true);
    if (!details) return details.error();
    if (details->events.empty())
        return Error{"run " + std::to_string(*id) + " has no timeline: run it with --trace light or --trace full"};
    StoredTimeline out{db::decode_timeline(details->events), details->row};
    if (level_edges) out.level_edges = db::stored_level_edges(*history, details->row);
    return out;
}

// trace export ID --format chrome|csv [--out F]: a stored run's timeline.
int trace_export(const Args& args) {
    const std::string format = args.get("format").value_or("chrome");
    if (format != "chrome" && format != "csv") return fail("trace export takes --format chrome or --format csv");
    if (args.positional().size() != 1) return fail("trace export takes one run id");
    auto stored = load_timeline(args, args.positional().front());
    if (!stored) return fail(stored.error().message);
    const db::RunRow& row = stored->row;
    const trace::Provenance provenance{row.info.variant, row.map_name, row.info.device_name, row.info.build_commit};
    return write_output(args.get("out"), [&](std::ostream& out) -> Expected<void> {
        if (format == "chrome")
            trace::write_chrome_trace(stored->timeline, provenance, out);
        else
            trace::write_csv(stored->timeline, out);
        return {};
    });
}

// `trace stats ID [--range T0-T1] [--csv F]`: nsys-style summary tables of a stored run (or of
// the items that start in the range), and with a range its statistics per row and name (with
// --csv, in F's stem + .range.csv).
int trace_stats(const Args& args) {
    if (args.positional().size() != 1) return fail("trace stats takes one run id");
    auto stored = load_timeline(args, args.positional().front());
    if (!stored) return fail(stored.error().message);
    const trace::Timeline& t = stored->timeline;
    const std::int64_t origin = trace::view_origin_ns(t);
    std::optional<trace::TimeRange> range;
    if (auto text = args.get("range")) {
        std::string error;
        range = trace::parse_time_range(*text, origin, error);
        if (!range) return fail(error);
    }
    const trace::TraceSummary summary = trace::trace_summary(t, range);
    const std::optional<trace::RangeStats> range_stats =
        range ? std::optional(trace::range_stats(t, *range)) : std::nullopt;
    std::printf("run %s: %s on %s (%s)%s\n\n", args.positional().front().c_str(), stored->row.info.variant.c_str(),
                stored->row.map_name.c_str(), stored->row.info.device_name.c_str(),
                range ? ", items that start in the range" : "");
    if (range_stats) std::fputs(trace::format_range(t, *range_stats, origin).c_str(), stdout);
    std::fputs(trace::format_summary(summary).c_str(), stdout);
    if (auto csv = args.get("csv")) {
        const int rc = write_output(csv, [&](std::ostream& out) -> Expected<void> {
            trace::write_summary_csv(summary, out);
            return {};
        });
        if (rc != kOk) return rc;
        std::printf("summary tables written to %s\n", csv->c_str());
        // The range's own statistics (rows, names, GPU busy, gaps) are another table: beside F,
        // named after it (dp.csv -> dp.range.csv).
        if (range_stats) {
            const std::string range_csv = std::filesystem::path(*csv).replace_extension(".range.csv").string();
            const int range_rc = write_output(range_csv, [&](std::ostream& out) -> Expected<void> {
                trace::write_range_csv(*range_stats, out);
                return {};
            });
            if (range_rc != kOk) return range_rc;
            std::printf("range statistics written to %s\n", range_csv.c_str());
        }
    }
    return kOk;
}

// `trace diff A B [--csv F]`: per level, each run's level time and the gap before it, and for
// BFS runs the level's edges visited and MTEPS.
int trace_diff(const Args& args) {
    if (args.positional().size() != 2) return fail("trace diff takes two run ids");
    auto a = load_timeline(args, args.positional()[0], true);
    if (!a) return fail(a.error().message);
    auto b = load_timeline(args, args.positional()[1], true);
    if (!b) return fail(b.error().message);
    const std::vector<std::uint64_t> none;
    for (const StoredTimeline* run : {&*a, &*b})
        if (!run->level_edges && run->row.info.family == to_string(Family::Bfs))
            std::fprintf(stderr, "pathscope-cli: note: no per-level MTEPS for %s\n",
                         run->level_edges.error().message.c_str());
    // Levels correspond only on one map (with one start): say so rather than refuse, as a
    // lecture may compare a map with its edited copy on purpose.
    if (a->row.map_hash != b->row.map_hash)
        std::fprintf(stderr,
                     "pathscope-cli: note: runs %s and %s are on different maps (%s, %s): their levels need "
                     "not correspond\n",
                     args.positional()[0].c_str(), args.positional()[1].c_str(), a->row.map_name.c_str(),
                     b->row.map_name.c_str());
    const auto rows = level_diff_with_rates(a->timeline, a->level_edges ? *a->level_edges : none, b->timeline,
                                            b->level_edges ? *b->level_edges : none);
    if (rows.empty())
        return fail("neither run has levels on its timeline (BFS runs traced with --trace light or full)");
    std::printf("A = run %s (%s), B = run %s (%s), times in us, MTEPS: the level's edges over its time\n",
                args.positional()[0].c_str(), a->row.info.variant.c_str(), args.positional()[1].c_str(),
                b->row.info.variant.c_str());
    std::printf("%7s %12s %12s %10s %9s %12s %12s %10s %9s %12s\n", "level", "A time", "A gap before", "A edges",
                "A MTEPS", "B time", "B gap before", "B edges", "B MTEPS", "B - A");
    const auto us = [](std::optional<std::int64_t> ns) {
        char text[32] = "-";
        if (ns) std::snprintf(text, sizeof text, "%.3f", double(*ns) / 1e3);
        return std::string(text);
    };
    const auto edges = [](const std::optional<trace::LevelSide>& s) {
        return s && s->edges ? std::to_string(*s->edges) : std::string("-");
    };
    const auto rate = [](const std::optional<trace::LevelSide>& s) {
        char text[32] = "-";
        if (s && s->mteps) std::snprintf(text, sizeof text, "%.4g", *s->mteps);
        return std::string(text);
    };
    for (const auto& r : rows) {
        const auto time = [](const std::optional<trace::LevelSide>& s) {
            return s ? std::optional<std::int64_t>(s->time_ns) : std::nullopt;
        };
        const auto gap = [](const std::optional<trace::LevelSide>& s) { return s ? s->gap_before_ns : std::nullopt; };
        const auto diff = r.a && r.b ? std::optional<std::int64_t>(r.b->time_ns - r.a->time_ns) : std::nullopt;
        std::printf("%7d %12s %12s %10s %9s %12s %12s %10s %9s %12s\n", r.level, us(time(r.a)).c_str(),
                    us(gap(r.a)).c_str(), edges(r.a).c_str(), rate(r.a).c_str(), us(time(r.b)).c_str(),
                    us(gap(r.b)).c_str(), edges(r.b).c_str(), rate(r.b).c_str(), us(diff).c_str());
    }
    if (auto csv = args.get("csv"))
        return write_output(csv, [&](std::ostream& out) -> Expected<void> {
            trace::write_level_diff_csv(rows, out);
            return {};
        });
    return kOk;
}

}  // namespace

int cmd_trace(const std::vector<std::string>& argv) {
    struct Subcommand {
        const char* name;
        OptionSpec spec;
        int (*handler)(const Args&);
    };
    const Subcommand subcommands[] = {
        {"export", {{"db", "format", "out"}, {}, {}}, trace_export},
        {"stats", {{"db", "range", "csv"}, {}, {}}, trace_stats},
        {"diff", {{"db", "csv"}, {}, {}}, trace_diff},
    };
    const std::string name = argv.empty() ? std::string() : argv[0];
    for (const auto& s : subcommands) {
        if (name != s.name) continue;
        auto args = Args::parse(std::vector<std::string>(argv.begin() + 1, argv.end()), s.spec);
        if (!args) return fail(args.error().message + " (pathscope-cli help)");
        return s.handler(*args);
    }
    return fail(
        "usage: pathscope-cli trace export ID [--format chrome|csv] [--out F] | trace stats ID [--range T0-T1] "
        "[--csv F] | trace diff A B [--csv F]  (each takes --db F)");
}

int cmd_history(const std::vector<std::string>& argv) {
    struct Subcommand {
        const char* name;
        OptionSpec spec;
        int (*handler)(const Args&);
    };
    const Subcommand subcommands[] = {
        {"list", {{"db", "map", "variant", "device", "since", "until", "limit"}, {"json"}, {}}, history_list},
        {"show", {{"db"}, {"json"}, {}}, history_show},
        {"export", {{"db", "format", "out"}, {}, {}}, history_export},
        {"delete", {{"db"}, {}, {}}, history_delete},
        {"import", {{"db"}, {}, {}}, history_import},
        {"vacuum", {{"db"}, {}, {}}, history_vacuum},
    };
    // Without a subcommand (or with options first) `history` lists.
    const bool named = !argv.empty() && argv[0].rfind("--", 0) != 0;
    const std::string name = named ? argv[0] : "list";
    const std::vector<std::string> rest(argv.begin() + (named ? 1 : 0), argv.end());
    for (const auto& s : subcommands) {
        if (name != s.name) continue;
        auto args = Args::parse(rest, s.spec);
        if (!args) return fail(args.error().message + " (pathscope-cli help)");
        if (s.handler == history_list && !args->positional().empty())
            return fail("unexpected argument '" + args->positional().front() + "' (pathscope-cli help)");
        return s.handler(*args);
    }
    return fail("unknown subcommand '" + name + "' (list, show, export, delete, import, vacuum)");
}

Expected<RunStorage> RunStorage::open(const Args& args) {
    RunStorage storage;
    auto path = args.get("db");
    if (!path) return storage;
    auto history = db::History::open(*path);
    if (!history) return history.error();
    storage.m_history = std::make_unique<db::History>(std::move(history).value());
    db::RecorderOptions options;
    if (args.has("gen")) {
        options.generator = generator_text(args);
        // 1 is load_map()'s default seed in cli_main.cpp.
        if (auto seed = args.integer("seed", 1, 0, 1ll << 62)) options.seed = std::uint64_t(*seed);
    }
    storage.m_recorder = std::make_unique<db::HistoryRecorder>(*storage.m_history, std::move(options));
    return storage;
}

bool RunStorage::store(const RunRequest& request, const RunReport& report, bool json) {
    if (!m_recorder) return true;
    m_recorder->record(request, report);
    if (const auto& error = m_recorder->error()) {
        // Either nothing was stored, or the run's summary was and an optional part was not
        // (the message says which).
        std::cerr << "pathscope-cli: storing the run of " << request.variant_id << ": " << error->message << "\n";
        return false;
    }
    const long long id = m_recorder->run_id().value_or(0);
    if (json)
        std::cerr << "pathscope-cli: stored as run " << id << " in " << m_history->path() << "\n";
    else
        std::printf("  stored as run %lld in %s\n", id, m_history->path().c_str());
    return true;
}

}  // namespace ps::cli
