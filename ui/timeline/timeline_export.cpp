// exportTimeline (see timeline_export.hpp).
#include "ui/timeline/timeline_export.hpp"

#include <QRegularExpression>
#include <memory>

#include "database/history.hpp"
#include "database/recorder.hpp"
#include "ui/common/figure_export.hpp"
#include "ui/timeline/timeline_widget.hpp"

namespace ps::ui {

namespace {

// "12", "12us", "1.5 ms": nanoseconds; a number alone is in microseconds.
std::optional<double> parseDuration(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("^\\s*([0-9]*\\.?[0-9]+)\\s*(ns|us|\u00b5s|ms|s)?\\s*$"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) return std::nullopt;
    const double value = match.captured(1).toDouble();
    const QString unit = match.captured(2);
    if (unit == QLatin1String("ns")) return value;
    if (unit == QLatin1String("ms")) return value * 1e6;
    if (unit == QLatin1String("s")) return value * 1e9;
    return value * 1e3;
}

struct LoadedRun {
    std::shared_ptr<const trace::Timeline> timeline;
    trace::Provenance provenance;
    QString label;
};

std::optional<LoadedRun> loadRun(db::History& history, std::int64_t id, QString* error) {
    auto run = history.load_run(id, true);
    if (!run) return exportFailed(error, QString::fromStdString(run.error().message)), std::nullopt;
    if (run->events.empty()) {
        exportFailed(error, QObject::tr("run %1 has no timeline: run it with --trace light or --trace full").arg(id));
        return std::nullopt;
    }
    LoadedRun out;
    out.timeline = std::make_shared<const trace::Timeline>(db::decode_timeline(run->events));
    out.provenance = runProvenance(run->row);
    out.label = QObject::tr("run %1 %2").arg(id).arg(QString::fromStdString(run->row.info.variant));
    return out;
}

}  // namespace

std::optional<std::vector<std::int64_t>> parseRunList(const QString& text, QString* error) {
    std::vector<std::int64_t> runs;
    for (const QString& part : text.split(QLatin1Char(','))) {
        bool number = false;
        const qint64 id = part.trimmed().toLongLong(&number);
        if (!number || id <= 0) {
            exportFailed(error,
                         QObject::tr("--export-timeline wants RUN or RUN1,RUN2 (run ids), not \"%1\"").arg(text));
            return std::nullopt;
        }
        runs.push_back(id);
    }
    if (runs.size() > 2) {
        exportFailed(error, QObject::tr("--export-timeline compares at most two runs, not %1").arg(runs.size()));
        return std::nullopt;
    }
    return runs;
}

std::optional<std::pair<int, int>> parseLevelRange(const QString& text, QString* error) {
    static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d+)\\s*(?:-\\s*(\\d+))?\\s*$"));
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) {
        exportFailed(error, QObject::tr("--levels wants A-B (e.g. 200-203), not \"%1\"").arg(text));
        return std::nullopt;
    }
    const int a = match.captured(1).toInt();
    const int b = match.captured(2).isEmpty() ? a : match.captured(2).toInt();
    if (b < a) {
        exportFailed(error, QObject::tr("--levels %1: the first level comes first").arg(text));
        return std::nullopt;
    }
    return std::pair(a, b);
}

std::optional<std::pair<double, double>> parseTimeRange(const QString& text, QString* error) {
    const qsizetype dash = text.indexOf(QLatin1Char('-'));
    const auto a = dash > 0 ? parseDuration(text.left(dash)) : std::nullopt;
    const auto b = dash > 0 ? parseDuration(text.mid(dash + 1)) : std::nullopt;
    if (!a || !b || *b <= *a) {
        exportFailed(
            error,
            QObject::tr("--range wants T0-T1 with T0 < T1 (e.g. 120us-250us; ns, us, ms, s), not \"%1\"").arg(text));
        return std::nullopt;
    }
    return std::pair(*a, *b);
}

bool exportTimeline(const QString& dbPath, const TimelineFigure& figure, const QString& outFile, QString* error) {
    const FigureFormat format = figureFormat(outFile);
    if (format == FigureFormat::Unknown)
        return exportFailed(error, QObject::tr("%1: use .png, .pdf, .svg, .csv or .json").arg(outFile));
    if (figure.runs.empty() || figure.runs.size() > 2)
        return exportFailed(error, QObject::tr("a timeline figure shows one or two runs"));
    if (figure.levels && figure.rangeNs) return exportFailed(error, QObject::tr("give --levels or --range, not both"));
    auto history = db::History::open(dbPath.toStdString(), db::OpenMode::ReadOnly);
    if (!history) return exportFailed(error, QString::fromStdString(history.error().message));
    std::vector<LoadedRun> runs;
    for (const std::int64_t id : figure.runs) {
        auto run = loadRun(*history, id, error);
        if (!run) return false;
        runs.push_back(std::move(*run));
    }
    if (format == FigureFormat::Csv || format == FigureFormat::Json) {
        QByteArray bytes;
        return timelineDataBytes(*runs.front().timeline, runs.front().provenance, format, &bytes, error) &&
               writeFileBytes(outFile, bytes, error);
    }
    TimelineWidget widget;
    trace::Provenance provenance = runs.front().provenance;
    if (runs.size() == 2) {
        provenance.variant += " vs " + runs.back().provenance.variant;
        widget.setComparison(runs.front().timeline, runs.front().label, runs.back().timeline, runs.back().label);
    } else {
        widget.setTimeline(runs.front().timeline, QString::fromStdString(runs.front().provenance.variant));
    }
    widget.setProvenance(provenance);
    widget.setLectureMode(figure.lecture);
    if (figure.levels) {
        if (!widget.setLevelWindow(figure.levels->first, figure.levels->second, -1, error)) return false;
        widget.setCursorLevel(figure.levels->first);  // the caption says how level A was launched
    } else if (figure.rangeNs) {
        widget.zoomToRange(figure.rangeNs->first, figure.rangeNs->second);
    }
    return widget.exportTo(outFile, error);
}

bool exportTimeline(const QString& dbPath, std::int64_t runId, const QString& outFile, QString* error) {
    return exportTimeline(dbPath, TimelineFigure{{runId}, std::nullopt, std::nullopt, false}, outFile, error);
}

}  // namespace ps::ui
