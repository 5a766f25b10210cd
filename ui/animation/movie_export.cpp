// exportMovie and exportAnimation (see movie_export.hpp).
#include "ui/animation/movie_export.hpp"

#include <QObject>
#include <algorithm>
#include <string>

#include "database/history.hpp"
#include "ui/animation/movie_writer.hpp"
#include "ui/history/stored_run.hpp"

namespace ps::ui {

namespace {

MovieOutcome failed(const QString& why) {
    MovieOutcome out;
    out.error = why;
    return out;
}

RgbFrame view(const QImage& image) {
    return {image.width(), image.height(), reinterpret_cast<const std::uint32_t*>(image.constBits()),
            std::ptrdiff_t(image.bytesPerLine() / 4)};
}

}  // namespace

std::vector<int> movieFrameIndices(int frameCount, const MovieOptions& options) {
    std::vector<int> out;
    if (frameCount <= 0) return out;
    int first = 0, last = frameCount - 1;
    if (options.frames) {
        first = std::clamp(options.frames->first, 0, frameCount - 1);
        last = std::clamp(options.frames->second, first, frameCount - 1);
    }
    const int span = last - first + 1;
    const int most = std::max(2, options.maxFrames);
    const int step = (span + most - 1) / most;
    for (int f = first; f <= last; f += step) out.push_back(f);
    if (out.back() != last) out.push_back(last);  // the final state, path included, always ends it
    return out;
}

MovieOutcome exportMovie(std::vector<MoviePanel> panels, const QString& path, const MovieOptions& options,
                         const MovieProgress& progress) {
    const auto format = movieFormat(path.toStdString());
    if (!format) return failed(QObject::tr("%1: a movie is a .gif or an .mp4").arg(path));
    if (options.fps < 1 || options.fps > (*format == MovieFormat::Gif ? 50 : 60))
        return failed(QObject::tr("%1 frames per second: use 1 to %2")
                          .arg(options.fps)
                          .arg(*format == MovieFormat::Gif ? 50 : 60));
    if (options.width < 64 || options.width > 7680)
        return failed(QObject::tr("a movie %1 px wide: use 64 to 7680").arg(options.width));
    MovieFrames frames(std::move(panels), options.width, *format == MovieFormat::Mp4);
    const int count = frames.frameCount();
    if (count == 0)
        return failed(
            QObject::tr("nothing to replay: the run kept no recording (record it: the window records its "
                        "runs, pathscope-cli run --record)"));
    if (options.frames && (options.frames->first >= count || options.frames->second < options.frames->first))
        return failed(QObject::tr("frames %1-%2: the animation has frames 0-%3")
                          .arg(options.frames->first)
                          .arg(options.frames->second)
                          .arg(count - 1));
    const std::vector<int> indices = movieFrameIndices(count, options);
    const QSize size = frames.size();
    // The palette of a GIF from the first, middle and last frames: together they hold the
    // colours the movie uses (the ramp grows level by level; the path comes last).
    std::vector<QImage> samples;
    if (*format == MovieFormat::Gif)
        for (int at : {indices.front(), indices[indices.size() / 2], indices.back()})
            samples.push_back(frames.frame(at));
    std::vector<RgbFrame> sampleViews;
    for (const QImage& s : samples) sampleViews.push_back(view(s));
    std::string error;
    auto writer = openMovie(*format, path.toStdString(), size.width(), size.height(), options.fps, sampleViews, error);
    if (!writer) return failed(QString::fromStdString(error));
    MovieOutcome out;
    out.size = size;
    for (std::size_t i = 0; i < indices.size(); ++i) {
        const QImage image = frames.frame(indices[i]);
        if (!writer->add(view(image), error)) return failed(QString::fromStdString(error));
        if (progress && !progress(int(i + 1), int(indices.size()))) {
            out.cancelled = true;
            out.error = QObject::tr("cancelled: %1 was left as it was").arg(path);
            return out;  // the writer removes its partial file
        }
    }
    if (!writer->finish(error)) return failed(QString::fromStdString(error));
    out.ok = true;
    out.frames = writer->frames();
    return out;
}

MovieOutcome exportAnimation(const QString& dbPath, const std::vector<std::int64_t>& runs, const QString& path,
                             const MovieOptions& options, const MovieProgress& progress) {
    if (runs.empty() || runs.size() > 2) return failed(QObject::tr("a movie shows one run, or two side by side"));
    auto history = db::History::open(dbPath.toStdString(), db::OpenMode::ReadOnly);
    if (!history) return failed(QString::fromStdString(history.error().message));
    std::vector<MoviePanel> panels;
    for (const std::int64_t id : runs) {
        auto details = history->load_run(id, false);
        if (!details) return failed(QString::fromStdString(details.error().message));
        const StoredRun stored = loadStoredRun(dbPath, details->row, true);
        if (!stored.error.isEmpty()) return failed(stored.error);
        const QString variant = QString::fromStdString(details->row.info.variant);
        if (stored.result->bfs_levels.empty() && !stored.result->recording)
            return failed(QObject::tr("run %1 (%2) kept no recording: run it with pathscope-cli run --record, or "
                                      "again in the window")
                              .arg(id)
                              .arg(variant));
        panels.push_back({stored.map, stored.result, QObject::tr("run %1 %2").arg(id).arg(variant)});
    }
    return exportMovie(std::move(panels), path, options, progress);
}

}  // namespace ps::ui
