// Rebuilding requests and results of stored runs (replay and re-run from the history).
#include "ui/history/stored_run.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <initializer_list>

#include "database/recorder.hpp"

namespace ps::ui {

namespace {

// The inverse of the kernels' to_string for small enums: the stored text is whatever
// to_string wrote, so compare against it rather than keeping a second spelling here.
template <class Enum>
Enum fromText(const std::string& text, std::initializer_list<Enum> values, Enum fallback) {
    for (Enum v : values)
        if (to_string(v) == text) return v;
    return fallback;
}

std::optional<Vertex> vertexAt(const GridMap& map, int x, int y) {
    if (!map.in_bounds(x, y)) return std::nullopt;
    return map.index(x, y);
}

}  // namespace

Expected<RunRequest> requestFromRow(const db::RunRow& row, std::shared_ptr<const GridMap> map) {
    QJsonParseError parseError;
    const auto json = QJsonDocument::fromJson(QByteArray::fromStdString(row.info.params_json), &parseError);
    if (!row.info.params_json.empty() && !json.isObject())
        return Error{"run " + std::to_string(row.id) + ": its stored parameters are not a JSON object (" +
                     parseError.errorString().toStdString() + ")"};
    const QJsonObject o = json.object();
    RunRequest request;
    request.variant_id = row.info.variant;
    request.warmup = row.info.warmup;
    request.repeat = std::max(1, o.value("repeat").toInt(std::max(1, row.repetitions)));
    request.validate = o.value("validate").toBool(true);
    // The GUI re-runs to watch them: always record, whatever the original run did.
    request.context.record = true;
    Problem& p = request.problem;
    p.rules.connectivity = o.value("connectivity").toInt(8) == 4 ? Connectivity::Four : Connectivity::Eight;
    p.rules.corner_cutting = o.value("corner_cutting").toBool(false);
    p.cost_mode =
        fromText(o.value("cost_mode").toString().toStdString(), {CostMode::Real, CostMode::Integer}, CostMode::Real);
    p.heuristic = parse_heuristic(o.value("heuristic").toString().toStdString()).value_or(Heuristic::Octile);
    p.bfs_stop_at_start = o.value("bfs_stop_at_start").toBool(false);
    const QJsonObject params = o.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it)
        p.params[it.key().toStdString()] = it.value().toString().toStdString();
    if (map) {
        p.start = vertexAt(*map, row.info.start_x, row.info.start_y).value_or(kNoVertex);
        p.goal = vertexAt(*map, row.info.goal_x, row.info.goal_y).value_or(kNoVertex);
    }
    p.map = std::move(map);
    return request;
}

RunResult resultFromRow(const db::RunRow& row) {
    const db::RunSummary& s = row.summary;
    RunResult r;
    r.status = fromText(s.status, {RunStatus::Ok, RunStatus::Error, RunStatus::Cancelled, RunStatus::Unavailable},
                        RunStatus::Error);
    r.message = s.message;
    r.validation =
        fromText(s.validation, {Validation::NotRun, Validation::Passed, Validation::Failed, Validation::Reference},
                 Validation::NotRun);
    r.validation_message = s.validation_message;
    r.found = s.found;
    r.cost = s.cost;
    r.expanded = s.expanded;
    r.levels = s.levels;
    r.visited = s.visited;
    r.phases.total_ms = row.total_median_ms;
    r.phases.compute_ms = row.compute_median_ms;
    return r;
}

StoredRun loadStoredRun(const QString& path, const db::RunRow& row, bool withRecordings) {
    StoredRun out;
    out.runId = row.id;
    auto fail = [&out](const std::string& message) {
        out.error = QString::fromStdString(message);
        return out;
    };
    if (row.info.map_id == 0)
        return fail("run " + std::to_string(row.id) + " has no stored map (it failed before it had one)");
    auto history = db::History::open(path.toStdString(), db::OpenMode::ReadOnly);
    if (!history) return fail(history.error().message);
    auto loaded = history->load_map(row.info.map_id);
    if (!loaded) return fail(loaded.error().message);
    auto map = std::make_shared<GridMap>(std::move(*loaded));
    if (map->name.empty()) map->name = row.map_name;
    if (map->in_bounds(row.info.start_x, row.info.start_y)) map->start = Cell{row.info.start_x, row.info.start_y};
    if (map->in_bounds(row.info.goal_x, row.info.goal_y)) map->goal = Cell{row.info.goal_x, row.info.goal_y};

    auto request = requestFromRow(row, map);
    if (!request) return fail(request.error().message);
    out.request = std::move(*request);

    auto result = std::make_shared<RunResult>(resultFromRow(row));
    if (withRecordings) {
        auto details = history->load_run(row.id, false);
        if (!details) return fail(details.error().message);
        for (const std::string& kind : details->recording_kinds) {
            auto bytes = history->load_recording(row.id, kind);
            if (!bytes) return fail(bytes.error().message);
            if (kind == db::kBfsLevelsKind) {
                auto levels = db::decode_bfs_levels(*bytes);
                if (!levels) return fail("run " + std::to_string(row.id) + ": " + levels.error().message);
                if (levels->size() != map->cell_count())
                    return fail("run " + std::to_string(row.id) + ": its BFS levels do not match its map's size");
                result->bfs_levels = std::move(*levels);
            } else if (kind == db::kSearchEventsKind) {
                auto events = db::decode_search_events(*bytes);
                if (!events) return fail("run " + std::to_string(row.id) + ": " + events.error().message);
                result->recording = std::make_shared<SearchRecording>(std::move(*events));
            }
        }
    }
    out.map = std::move(map);
    out.result = std::move(result);
    return out;
}

}  // namespace ps::ui
