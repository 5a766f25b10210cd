// Writes an animation to a movie file: GIF (giflib) or MP4 (FFmpeg: H.264 through libx264 where
// available). Qt-free so the encoders can be tested and benchmarked without a GUI; the caller
// renders each frame (e.g. a QImage in Format_RGB32) and hands its pixels over. The file is
// written as "<path>.part" and renamed onto the path only by finish(), so a cancelled or failed
// export never leaves a truncated movie behind, nor clobbers an existing one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ps::ui {

// A frame: 0xAARRGGBB pixels (as QImage::Format_RGB32 / ARGB32 store them on little-endian), row by
// row. Alpha is ignored. The writer only reads the pixels during the call it is given to.
struct RgbFrame {
    int width = 0, height = 0;
    const std::uint32_t* pixels = nullptr;
    std::ptrdiff_t stride = 0;  // pixels from one row to the next
};

enum class MovieFormat { Gif, Mp4 };

// From the file name's suffix (.gif, .mp4, case-insensitive); nullopt otherwise.
std::optional<MovieFormat> movieFormat(const std::string& path);

class MovieWriter {
public:
    // Without a successful finish(): the partial file is removed, an existing file at the path untouched.
    virtual ~MovieWriter() = default;
    // Every frame the size given at open. After an error the writer is spent: later calls fail too.
    virtual bool add(const RgbFrame& frame, std::string& error) = 0;
    // Writes the trailer, then renames the ".part" file onto the path. Needs at least one frame.
    virtual bool finish(std::string& error) = 0;
    virtual int frames() const = 0;  // frames added so far
};

// width/height: frame size (MP4 needs both even: odd sizes are refused). fps 1..60 (GIF: 1..50,
// since browsers clamp faster GIF delays). paletteSamples (GIF only, may be empty): frames whose
// colours choose the 256-colour palette; left empty, the first frame added chooses it. Samples
// spread over the animation (first, middle, last frame) give the later colours their place.
// Returns null with `error` set when the file cannot be created or the settings are refused.
std::unique_ptr<MovieWriter> openMovie(MovieFormat format, const std::string& path, int width, int height, int fps,
                                       const std::vector<RgbFrame>& paletteSamples, std::string& error);

}  // namespace ps::ui
