// Movies of animations: GIF and MP4 (movie_writer) of one run's replay, or of two runs side by
// side in lock-step (movie_frames), from the window (File > Export animation, on a worker thread
// with progress and Cancel) and headless from a history file (`pathscope --export-animation RUN
// [--fps N] [--width W] [--frames A-B] --out F.gif|mp4`).
#pragma once

#include <QSize>
#include <QString>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "ui/animation/movie_frames.hpp"

namespace ps::ui {

struct MovieOptions {
    int fps = 30;
    int width = 1280;                           // of the whole frame; the height follows the map
    std::optional<std::pair<int, int>> frames;  // the animation's frames A-B (the window's slider numbers)
    int maxFrames = 900;                        // longer ranges are sampled: every k-th frame, the last always
};

// The animation frames a movie of `frameCount` frames shows, in order.
std::vector<int> movieFrameIndices(int frameCount, const MovieOptions& options);

// Called after each frame written; returning false cancels (the file is left as it was).
using MovieProgress = std::function<bool(int done, int total)>;

struct MovieOutcome {
    bool ok = false;
    bool cancelled = false;
    QString error;
    int frames = 0;  // written
    QSize size;
};

// The format from the suffix (.gif, .mp4). Blocking: call it on a worker thread.
MovieOutcome exportMovie(std::vector<MoviePanel> panels, const QString& path, const MovieOptions& options,
                         const MovieProgress& progress = {});

// Stored runs (one, or two side by side) with their recordings from the history at `dbPath`.
MovieOutcome exportAnimation(const QString& dbPath, const std::vector<std::int64_t>& runs, const QString& path,
                             const MovieOptions& options, const MovieProgress& progress = {});

}  // namespace ps::ui
