// Loading stored runs for replay and re-run from the history (see stored_run.hpp).
#include "ui/history/stored_run.hpp"

#include "database/recorder.hpp"

namespace ps::ui {

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

    auto request = db::request_from_row(row, map);
    if (!request) return fail(request.error().message);
    out.request = std::move(*request);
    out.request.context.record = true;

    auto result = std::make_shared<RunResult>(db::result_from_row(row));
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
            } else if (kind == db::kPathKind) {
                auto cells = db::decode_path(*bytes);
                if (!cells) return fail("run " + std::to_string(row.id) + ": " + cells.error().message);
                for (Vertex v : *cells)
                    if (v >= map->cell_count())
                        return fail("run " + std::to_string(row.id) + ": its path leaves its map");
                result->path = std::move(*cells);
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
