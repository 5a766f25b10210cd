// Movie writers (see movie_writer.hpp):
//  - GifWriter: one global palette of 255 colours chosen once (15-bit RGB histogram of sample
//    frames) and a transparent "unchanged" entry, a 32768-entry table from 15-bit RGB to palette
//    index, and each frame after the first stored as the rectangle that changed since the
//    previous one, its unchanged pixels transparent. Animations of a search
//    change a small part of the map per frame, so this keeps both the file and the LZW work small.
//  - Mp4Writer: FFmpeg, H.264 (libx264, crf 20) where available, else any H.264 encoder, else
//    MPEG-4 part 2; BGRA -> YUV420P through swscale, one frame per 1/fps tick.
// Both write "<path>.part" and rename it onto the path in finish(); the destructor of an
// unfinished writer removes the part file.
#include "ui/animation/movie_writer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <system_error>

#include <gif_lib.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

namespace ps::ui {
namespace {

std::string partPath(const std::string& path) { return path + ".part"; }

// The frame handed to add() must be the size the movie was opened with: the encoders (and the
// GIF's changed-rectangle diff) work on one fixed canvas.
bool checkFrame(const RgbFrame& frame, int width, int height, std::string& error) {
    if (!frame.pixels) {
        error = "movie frame has no pixels";
        return false;
    }
    if (frame.width != width || frame.height != height) {
        error = "movie frame is " + std::to_string(frame.width) + "x" + std::to_string(frame.height) + ", the movie " +
                std::to_string(width) + "x" + std::to_string(height);
        return false;
    }
    if (frame.stride < frame.width) {
        error = "movie frame stride " + std::to_string(frame.stride) + " is less than its width";
        return false;
    }
    return true;
}

// Leaves the part file in place on failure: the writer's destructor removes it.
bool renamePart(const std::string& part, const std::string& path, std::string& error) {
    std::error_code ec;
    std::filesystem::rename(part, path, ec);
    if (ec) {
        error = "cannot rename " + part + " to " + path + ": " + ec.message();
        return false;
    }
    return true;
}

void removePart(const std::string& part) {
    std::error_code ec;  // nothing to report from a destructor; a missing file is fine
    std::filesystem::remove(part, ec);
}

// ---------------------------------------------------------------------------------------------
// GIF

constexpr int kBuckets = 1 << 15;
constexpr int kGifColours = 256;
// The last palette entry is kept for "unchanged": inside a frame's changed rectangle, pixels
// equal to the previous frame's are written transparent, so long runs of one index compress
// (11.4 MB -> 0.84 MB for 300 frames of a growing diamond at 1280 x 1280).
constexpr GifPixelType kUnchanged = kGifColours - 1;

// 0xAARRGGBB -> 0bRRRRRGGGGGBBBBB (top 5 bits of each channel).
inline int bucketOf(std::uint32_t p) { return ((p >> 9) & 0x7C00) | ((p >> 6) & 0x03E0) | ((p >> 3) & 0x001F); }

struct GifPalette {
    std::vector<std::uint32_t> colours;  // 0xRRGGBB, at most 256
    std::vector<GifPixelType> lut;       // kBuckets entries: 15-bit RGB -> index into colours
};

// The most frequent 15-bit buckets of the samples, each with an exact colour seen in it (the
// first), so an animation of fewer than 256 distinct colours - the usual case: a ramp over a
// map - is reproduced exactly, while a richer one degrades to its 256 most used shades.
GifPalette buildPalette(const std::vector<RgbFrame>& samples) {
    std::vector<std::uint64_t> count(kBuckets, 0);
    std::vector<std::uint32_t> exact(kBuckets, 0);
    for (const RgbFrame& frame : samples) {
        if (!frame.pixels) continue;
        for (int y = 0; y < frame.height; ++y) {
            const std::uint32_t* row = frame.pixels + y * frame.stride;
            for (int x = 0; x < frame.width; ++x) {
                const int b = bucketOf(row[x]);
                if (count[b]++ == 0) exact[b] = row[x] & 0xFFFFFF;
            }
        }
    }
    std::vector<int> used;
    for (int b = 0; b < kBuckets; ++b)
        if (count[b]) used.push_back(b);
    const std::size_t keep = std::min<std::size_t>(used.size(), kGifColours - 1);
    // Ties broken by bucket so the palette does not depend on the sort's whims.
    std::partial_sort(used.begin(), used.begin() + keep, used.end(),
                      [&](int a, int b) { return count[a] != count[b] ? count[a] > count[b] : a < b; });
    used.resize(keep);

    GifPalette palette;
    palette.lut.assign(kBuckets, 0);
    if (used.empty()) return palette;
    std::vector<int> indexOfBucket(kBuckets, -1);
    for (std::size_t i = 0; i < used.size(); ++i) {
        palette.colours.push_back(exact[used[i]]);
        indexOfBucket[used[i]] = static_cast<int>(i);
    }
    // A bucket in the palette maps to its own exact colour; any other to the entry nearest its
    // centre. 32768 x 256 distances: a few milliseconds, once per movie.
    for (int b = 0; b < kBuckets; ++b) {
        if (indexOfBucket[b] >= 0) {
            palette.lut[b] = static_cast<GifPixelType>(indexOfBucket[b]);
            continue;
        }
        const int r = (((b >> 10) & 31) << 3) | 4, g = (((b >> 5) & 31) << 3) | 4, bl = ((b & 31) << 3) | 4;
        int best = 0, bestDistance = 1 << 30;
        for (std::size_t i = 0; i < palette.colours.size(); ++i) {
            const std::uint32_t c = palette.colours[i];
            const int dr = int((c >> 16) & 0xFF) - r, dg = int((c >> 8) & 0xFF) - g, db = int(c & 0xFF) - bl;
            const int distance = dr * dr + dg * dg + db * db;
            if (distance < bestDistance) bestDistance = distance, best = static_cast<int>(i);
        }
        palette.lut[b] = static_cast<GifPixelType>(best);
    }
    return palette;
}

// Centiseconds from the start to frame n, rounded: the delays are the differences, so the
// rounding errors do not accumulate (30 fps: 3, 4, 3, 3, 4, 3, ... = 100 per second).
long long gifCentis(long long n, int fps) { return (200 * n + fps) / (2LL * fps); }

// What both writers keep: the path and its part file, the first error (every later call
// repeats it: the writer is spent) and whether finish() ran.
class WriterBase : public MovieWriter {
protected:
    explicit WriterBase(std::string path) : m_path(std::move(path)), m_part(partPath(m_path)) {}

    bool usable(std::string& error) const {
        if (!m_error.empty()) {
            error = m_error;
            return false;
        }
        if (m_finished) {
            error = "movie " + m_path + " is already finished";
            return false;
        }
        return true;
    }

    bool fail(std::string text, std::string& error) {
        m_error = text;
        error = std::move(text);
        return false;
    }

    // The last step of finish(): the part file becomes the movie.
    bool publish(std::string& error) {
        if (!renamePart(m_part, m_path, error)) {
            m_error = error;
            return false;
        }
        m_finished = true;
        return true;
    }

    std::string m_path, m_part;
    std::string m_error;
    bool m_finished = false;
};

class GifWriter final : public WriterBase {
public:
    GifWriter(std::string path, int width, int height, int fps)
        : WriterBase(std::move(path)), m_width(width), m_height(height), m_fps(fps) {}

    ~GifWriter() override {
        if (m_gif) EGifCloseFile(m_gif, nullptr);
        if (m_file) std::fclose(m_file);
        if (m_created && !m_finished) removePart(m_part);
    }

    bool open(const std::vector<RgbFrame>& paletteSamples, std::string& error) {
        // Our own FILE (not EGifOpenFileName, which creates the file with mode 0600) with a big
        // buffer: giflib hands over its output in blocks of at most 255 bytes.
        m_file = std::fopen(m_part.c_str(), "wb");
        if (!m_file) {
            error = "cannot create " + m_part + ": " + std::strerror(errno);
            return false;
        }
        m_created = true;
        std::setvbuf(m_file, nullptr, _IOFBF, 1 << 20);
        int code = 0;
        m_gif = EGifOpen(this, &GifWriter::write, &code);
        if (!m_gif) {
            error = "cannot start GIF " + m_part + ": " + gifErrorText(code);
            return false;
        }
        if (!paletteSamples.empty()) m_palette = buildPalette(paletteSamples);
        return true;
    }

    bool add(const RgbFrame& frame, std::string& error) override {
        if (!usable(error) || !checkFrame(frame, m_width, m_height, error)) return false;
        if (m_frames == 0 && !writeHeader(frame, error)) return false;

        const std::size_t w = m_width;
        for (int y = 0; y < m_height; ++y) {
            const std::uint32_t* src = frame.pixels + y * frame.stride;
            GifPixelType* dst = m_current.data() + y * w;
            for (std::size_t x = 0; x < w; ++x) dst[x] = m_palette.lut[bucketOf(src[x])];
        }

        // The rectangle of indices that changed; everything outside stays from the previous
        // frame ("do not dispose"). An unchanged frame still needs an image for its delay: 1x1.
        int left = 0, top = 0, right = m_width, bottom = m_height;  // right/bottom exclusive
        if (m_frames > 0) {
            left = m_width, top = m_height, right = 0, bottom = 0;
            for (int y = 0; y < m_height; ++y) {
                const GifPixelType* cur = m_current.data() + y * w;
                const GifPixelType* prev = m_previous.data() + y * w;
                if (std::memcmp(cur, prev, w) == 0) continue;
                int l = 0, r = m_width;
                while (cur[l] == prev[l]) ++l;
                while (cur[r - 1] == prev[r - 1]) --r;
                left = std::min(left, l), right = std::max(right, r);
                top = std::min(top, y), bottom = y + 1;
            }
            if (right == 0) left = 0, top = 0, right = 1, bottom = 1;
        }

        GraphicsControlBlock gcb{};
        gcb.DisposalMode = DISPOSE_DO_NOT;
        gcb.UserInputFlag = false;
        gcb.DelayTime = static_cast<int>(gifCentis(m_frames + 1, m_fps) - gifCentis(m_frames, m_fps));
        gcb.TransparentColor = m_frames > 0 ? kUnchanged : NO_TRANSPARENT_COLOR;
        GifByteType extension[4];
        const int extensionLength = static_cast<int>(EGifGCBToExtension(&gcb, extension));
        if (EGifPutExtension(m_gif, GRAPHICS_EXT_FUNC_CODE, extensionLength, extension) == GIF_ERROR ||
            EGifPutImageDesc(m_gif, left, top, right - left, bottom - top, false, nullptr) == GIF_ERROR)
            return fail(gifError("cannot write GIF frame"), error);
        m_line.resize(w);
        for (int y = top; y < bottom; ++y) {
            const GifPixelType* cur = m_current.data() + y * w;
            const GifPixelType* prev = m_previous.data() + y * w;
            for (int x = left; x < right; ++x)
                m_line[x - left] = m_frames > 0 && cur[x] == prev[x] ? kUnchanged : cur[x];
            if (EGifPutLine(m_gif, m_line.data(), right - left) == GIF_ERROR)
                return fail(gifError("cannot write GIF frame"), error);
        }
        m_current.swap(m_previous);
        ++m_frames;
        return true;
    }

    bool finish(std::string& error) override {
        if (!usable(error)) return false;
        if (m_frames == 0) return fail("no frames to write to " + m_path, error);
        // Writes the trailer and frees the encoder, but leaves our FILE open (EGifOpen).
        int code = 0;
        const int closed = EGifCloseFile(m_gif, &code);
        m_gif = nullptr;
        const bool flushed = std::fflush(m_file) == 0 && !std::ferror(m_file);
        if (!flushed && !m_writeErrno) m_writeErrno = errno ? errno : EIO;
        const bool fileClosed = std::fclose(m_file) == 0;
        if (!fileClosed && !m_writeErrno) m_writeErrno = errno ? errno : EIO;
        m_file = nullptr;
        if (closed == GIF_ERROR || m_writeErrno) {
            return fail(m_writeErrno ? "cannot write " + m_part + ": " + std::strerror(m_writeErrno)
                                     : "cannot finish GIF " + m_part + ": " + gifErrorText(code),
                        error);
        }
        return publish(error);
    }

    int frames() const override { return m_frames; }

private:
    static int write(GifFileType* gif, const GifByteType* data, int length) {
        auto* self = static_cast<GifWriter*>(gif->UserData);
        const std::size_t written = std::fwrite(data, 1, static_cast<std::size_t>(length), self->m_file);
        if (written != static_cast<std::size_t>(length) && !self->m_writeErrno)
            self->m_writeErrno = errno ? errno : EIO;
        return static_cast<int>(written);
    }

    static std::string gifErrorText(int code) {
        const char* text = GifErrorString(code);
        return text ? text : "GIF error " + std::to_string(code);
    }

    // A failed write says why through errno (disk full...), better than giflib's "Failed to write".
    std::string gifError(const std::string& what) const {
        if (m_writeErrno) return what + " to " + m_part + ": " + std::strerror(m_writeErrno);
        return what + " to " + m_part + ": " + gifErrorText(m_gif->Error);
    }

    // GIF89a, the screen with the global palette, and the NETSCAPE2.0 extension that loops forever.
    bool writeHeader(const RgbFrame& first, std::string& error) {
        if (m_palette.colours.empty()) m_palette = buildPalette({first});
        std::array<GifColorType, kGifColours> colours{};  // unused entries stay black
        for (std::size_t i = 0; i < m_palette.colours.size(); ++i) {
            const std::uint32_t c = m_palette.colours[i];
            colours[i] = GifColorType{static_cast<GifByteType>(c >> 16), static_cast<GifByteType>(c >> 8),
                                      static_cast<GifByteType>(c)};
        }
        ColorMapObject* map = GifMakeMapObject(kGifColours, colours.data());
        if (!map) return fail("out of memory for the GIF palette", error);
        EGifSetGifVersion(m_gif, true);
        const int screen = EGifPutScreenDesc(m_gif, m_width, m_height, 8, 0, map);  // copies the map
        GifFreeMapObject(map);
        if (screen == GIF_ERROR) return fail(gifError("cannot write GIF header"), error);
        static const GifByteType kNetscape[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
        static const GifByteType kLoopForever[] = {1, 0, 0};  // sub-block 1: loop count 0 = forever
        if (EGifPutExtensionLeader(m_gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
            EGifPutExtensionBlock(m_gif, sizeof kNetscape, kNetscape) == GIF_ERROR ||
            EGifPutExtensionBlock(m_gif, sizeof kLoopForever, kLoopForever) == GIF_ERROR ||
            EGifPutExtensionTrailer(m_gif) == GIF_ERROR)
            return fail(gifError("cannot write GIF header"), error);
        m_current.assign(static_cast<std::size_t>(m_width) * m_height, 0);
        m_previous.assign(m_current.size(), 0);
        return true;
    }

    int m_width, m_height, m_fps;
    std::FILE* m_file = nullptr;
    GifFileType* m_gif = nullptr;
    int m_writeErrno = 0;  // the first failed write's errno
    GifPalette m_palette;
    std::vector<GifPixelType> m_current, m_previous;  // palette indices of this and the last frame
    std::vector<GifPixelType> m_line;                 // one row as written: unchanged pixels transparent
    int m_frames = 0;
    bool m_created = false;
};

// ---------------------------------------------------------------------------------------------
// MP4

std::string avErrorText(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    if (av_strerror(code, text, sizeof text) < 0) return "FFmpeg error " + std::to_string(code);
    return text;
}

bool supportsYuv420p(const AVCodec* codec) {
    if (!codec->pix_fmts) return true;  // unknown: let avcodec_open2 decide
    for (const AVPixelFormat* f = codec->pix_fmts; *f != AV_PIX_FMT_NONE; ++f)
        if (*f == AV_PIX_FMT_YUV420P) return true;
    return false;
}

class Mp4Writer final : public WriterBase {
public:
    Mp4Writer(std::string path, int width, int height, int fps)
        : WriterBase(std::move(path)), m_width(width), m_height(height), m_fps(fps) {}

    ~Mp4Writer() override {
        sws_freeContext(m_sws);
        av_packet_free(&m_packet);
        av_frame_free(&m_frame);
        avcodec_free_context(&m_codec);
        if (m_format) {
            if (m_format->pb) avio_closep(&m_format->pb);
            avformat_free_context(m_format);  // frees the stream too
        }
        if (m_created && !m_finished) removePart(m_part);
    }

    bool open(std::string& error) {
        // libx264 reports its settings and statistics on stderr at FFmpeg's default level:
        // errors come back through the return codes, so only those are worth printing.
        av_log_set_level(AV_LOG_ERROR);
        // The muxer is named: it cannot be guessed from the ".part" suffix.
        int ret = avformat_alloc_output_context2(&m_format, nullptr, "mp4", m_part.c_str());
        if (ret < 0 || !m_format) {
            error = "cannot set up MP4 output: " + avErrorText(ret);
            return false;
        }
        if (!openEncoder(error)) return false;

        m_stream = avformat_new_stream(m_format, nullptr);
        if (!m_stream) {
            error = "cannot add the video stream to " + m_part;
            return false;
        }
        m_stream->time_base = m_codec->time_base;  // a hint: the muxer picks its own in write_header
        m_stream->avg_frame_rate = m_codec->framerate;
        if ((ret = avcodec_parameters_from_context(m_stream->codecpar, m_codec)) < 0) {
            error = "cannot set up the MP4 stream: " + avErrorText(ret);
            return false;
        }
        if (!(m_format->oformat->flags & AVFMT_NOFILE)) {
            if ((ret = avio_open(&m_format->pb, m_part.c_str(), AVIO_FLAG_WRITE)) < 0) {
                error = "cannot create " + m_part + ": " + avErrorText(ret);
                return false;
            }
            m_created = true;
        }
        if ((ret = avformat_write_header(m_format, nullptr)) < 0) {
            error = "cannot write the MP4 header to " + m_part + ": " + avErrorText(ret);
            return false;
        }

        m_frame = av_frame_alloc();
        m_packet = av_packet_alloc();
        if (!m_frame || !m_packet) {
            error = "out of memory for MP4 frames";
            return false;
        }
        m_frame->format = AV_PIX_FMT_YUV420P;
        m_frame->width = m_width;
        m_frame->height = m_height;
        if ((ret = av_frame_get_buffer(m_frame, 0)) < 0) {
            error = "cannot allocate an MP4 frame: " + avErrorText(ret);
            return false;
        }
        // BGRA is the byte order of 0xAARRGGBB words on little-endian. Same size: swscale only
        // converts the colours and halves the chroma. SWS_AREA averages each 2x2 block for its
        // chroma; SWS_BILINEAR's wider kernel bleeds the colour of one cell or level into the next
        // (a 2-pixel ramp of saturated colours came back 9/255 off on average, 0.8 with SWS_AREA).
        m_sws = sws_getContext(m_width, m_height, AV_PIX_FMT_BGRA, m_width, m_height, AV_PIX_FMT_YUV420P, SWS_AREA,
                               nullptr, nullptr, nullptr);
        if (!m_sws) {
            error = "cannot set up the BGRA to YUV420P conversion";
            return false;
        }
        // BT.709 limited range, as tagged on the stream: players assume BT.709 for HD anyway,
        // but an untagged SD-sized movie would be shown with BT.601 and shifted colours.
        const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
        sws_setColorspaceDetails(m_sws, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
        return true;
    }

    bool add(const RgbFrame& frame, std::string& error) override {
        if (!usable(error) || !checkFrame(frame, m_width, m_height, error)) return false;
        // The encoder may still hold a reference to the last frame's buffers.
        int ret = av_frame_make_writable(m_frame);
        if (ret < 0) return fail("cannot reuse the MP4 frame: " + avErrorText(ret), error);
        const std::uint8_t* source[1] = {reinterpret_cast<const std::uint8_t*>(frame.pixels)};
        const int sourceStride[1] = {static_cast<int>(frame.stride * 4)};
        sws_scale(m_sws, source, sourceStride, 0, m_height, m_frame->data, m_frame->linesize);
        m_frame->pts = m_frames;  // time base 1/fps: one tick a frame
        if (!encode(m_frame, error)) return false;
        ++m_frames;
        return true;
    }

    bool finish(std::string& error) override {
        if (!usable(error)) return false;
        if (m_frames == 0) return fail("no frames to write to " + m_path, error);
        if (!encode(nullptr, error)) return false;  // drains the frames the encoder still holds
        int ret = av_write_trailer(m_format);
        if (ret < 0) return fail("cannot write the MP4 trailer to " + m_part + ": " + avErrorText(ret), error);
        if (m_format->pb && (ret = avio_closep(&m_format->pb)) < 0)
            return fail("cannot write " + m_part + ": " + avErrorText(ret), error);
        return publish(error);
    }

    int frames() const override { return m_frames; }

private:
    // libx264 (crf: constant quality, the file as small as the content allows), else whatever
    // H.264 encoder this FFmpeg has, else MPEG-4 part 2 that every build has; an encoder that
    // fails to open (a hardware one without its device) gives way to the next.
    bool openEncoder(std::string& error) {
        const AVCodec* x264 = avcodec_find_encoder_by_name("libx264");
        const AVCodec* candidates[] = {x264, avcodec_find_encoder(AV_CODEC_ID_H264),
                                       avcodec_find_encoder(AV_CODEC_ID_MPEG4)};
        std::string tried;
        for (std::size_t i = 0; i < std::size(candidates); ++i) {
            const AVCodec* codec = candidates[i];
            if (!codec || std::find(candidates, candidates + i, codec) != candidates + i) continue;
            if (!supportsYuv420p(codec)) continue;
            m_codec = avcodec_alloc_context3(codec);
            if (!m_codec) {
                error = "out of memory for the video encoder";
                return false;
            }
            m_codec->width = m_width;
            m_codec->height = m_height;
            m_codec->time_base = AVRational{1, m_fps};
            m_codec->framerate = AVRational{m_fps, 1};
            m_codec->gop_size = 2 * m_fps;  // a keyframe every 2 s: seekable without bloating the file
            m_codec->pix_fmt = AV_PIX_FMT_YUV420P;
            m_codec->thread_count = 0;  // as many as the encoder sees fit
            m_codec->color_range = AVCOL_RANGE_MPEG;
            m_codec->colorspace = AVCOL_SPC_BT709;
            m_codec->color_primaries = AVCOL_PRI_BT709;
            m_codec->color_trc = AVCOL_TRC_BT709;
            if (m_format->oformat->flags & AVFMT_GLOBALHEADER) m_codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
            if (codec == x264) {
                av_opt_set(m_codec->priv_data, "preset", "veryfast", 0);
                av_opt_set(m_codec->priv_data, "crf", "20", 0);
            } else {
                m_codec->bit_rate = static_cast<std::int64_t>(m_width) * m_height * m_fps / 8;
            }
            const int ret = avcodec_open2(m_codec, codec, nullptr);
            if (ret >= 0) return true;
            tried += std::string(tried.empty() ? "" : "; ") + codec->name + ": " + avErrorText(ret);
            avcodec_free_context(&m_codec);
        }
        error = tried.empty() ? "no H.264 or MPEG-4 video encoder in this FFmpeg"
                              : "cannot open a video encoder (" + tried + ")";
        return false;
    }

    // Sends a frame (null: the end) and writes every packet the encoder has ready.
    bool encode(const AVFrame* frame, std::string& error) {
        int ret = avcodec_send_frame(m_codec, frame);
        if (ret < 0) return fail("cannot encode an MP4 frame: " + avErrorText(ret), error);
        for (;;) {
            ret = avcodec_receive_packet(m_codec, m_packet);
            if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return true;
            if (ret < 0) return fail("cannot encode an MP4 frame: " + avErrorText(ret), error);
            av_packet_rescale_ts(m_packet, m_codec->time_base, m_stream->time_base);
            m_packet->stream_index = m_stream->index;
            ret = av_interleaved_write_frame(m_format, m_packet);  // takes the packet's data
            av_packet_unref(m_packet);
            if (ret < 0) return fail("cannot write " + m_part + ": " + avErrorText(ret), error);
        }
    }

    int m_width, m_height, m_fps;
    AVFormatContext* m_format = nullptr;
    AVCodecContext* m_codec = nullptr;
    AVStream* m_stream = nullptr;  // owned by m_format
    AVFrame* m_frame = nullptr;    // YUV420P, reused for every frame
    AVPacket* m_packet = nullptr;
    SwsContext* m_sws = nullptr;
    int m_frames = 0;
    bool m_created = false;
};

}  // namespace

std::optional<MovieFormat> movieFormat(const std::string& path) {
    std::string suffix = std::filesystem::path(path).extension().string();
    std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (suffix == ".gif") return MovieFormat::Gif;
    if (suffix == ".mp4") return MovieFormat::Mp4;
    return std::nullopt;
}

std::unique_ptr<MovieWriter> openMovie(MovieFormat format, const std::string& path, int width, int height, int fps,
                                       const std::vector<RgbFrame>& paletteSamples, std::string& error) {
    const char* name = format == MovieFormat::Gif ? "GIF" : "MP4";
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    // GIF stores sizes in 16 bits.
    if (width <= 0 || height <= 0 || (format == MovieFormat::Gif && (width > 65535 || height > 65535))) {
        error = std::string("cannot write a ") + name + " of " + size;
        return nullptr;
    }
    // GIF delays are centiseconds, and browsers play delays under 2 cs as 10 cs: above 50 fps a
    // GIF would play slower, not faster.
    const int maxFps = format == MovieFormat::Gif ? 50 : 60;
    if (fps < 1 || fps > maxFps) {
        error = std::string(name) + " frame rate must be 1 to " + std::to_string(maxFps) + " per second, not " +
                std::to_string(fps);
        return nullptr;
    }
    if (format == MovieFormat::Gif) {
        auto writer = std::make_unique<GifWriter>(path, width, height, fps);
        if (!writer->open(paletteSamples, error)) return nullptr;
        return writer;
    }
    // YUV420P keeps colour at half resolution in both directions, and H.264 in 4:2:0 needs even sizes.
    if (width % 2 || height % 2) {
        error = "MP4 needs an even width and height, " + size + " is not (render the frame one pixel smaller)";
        return nullptr;
    }
    auto writer = std::make_unique<Mp4Writer>(path, width, height, fps);
    if (!writer->open(error)) return nullptr;
    return writer;
}

}  // namespace ps::ui
