// exportTimeline (see timeline_export.hpp).
#include "ui/timeline/timeline_export.hpp"

#include <memory>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

bool exportTimeline(const QString& dbPath, std::int64_t runId, const QString& outFile, QString* error) {
    const FigureFormat format = figureFormat(outFile);
    if (format == FigureFormat::Unknown)
        return exportFailed(error, QObject::tr("%1: use .png, .pdf, .svg, .csv or .json").arg(outFile));
    auto history = db::History::open(dbPath.toStdString(), db::OpenMode::ReadOnly);
    if (!history) return exportFailed(error, QString::fromStdString(history.error().message));
    auto run = history->load_run(runId, true);
    if (!run) return exportFailed(error, QString::fromStdString(run.error().message));
    if (run->events.empty())
        return exportFailed(
            error, QObject::tr("run %1 has no timeline: run it with --trace light or --trace full").arg(runId));
    auto timeline = std::make_shared<const trace::Timeline>(db::decode_timeline(run->events));
    const trace::Provenance provenance = runProvenance(run->row);
    if (format == FigureFormat::Csv || format == FigureFormat::Json) {
        QByteArray bytes;
        return timelineDataBytes(*timeline, provenance, format, &bytes, error) && writeFileBytes(outFile, bytes, error);
    }
    TimelineWidget widget;
    widget.setProvenance(provenance);
    widget.setTimeline(timeline, QString::fromStdString(run->row.info.variant));
    return widget.exportTo(outFile, error);
}

}  // namespace ps::ui
