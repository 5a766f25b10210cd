// Movies of replays decoded back with the libraries' own decoders: a GIF of a hand-worked BFS
// (one frame per level, the size asked for, each cell coloured from its level's frame on and not
// before), an MP4 of an A* recording (frame count and size from the container and the decoder),
// two runs side by side, frame ranges and sampling, a cancelled export that leaves the file as it
// was, refusals of bad input, the headless export of a run the CLI stored with --record, and the
// dialog's export on a worker thread.
#include <gif_lib.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "kernels/run/runner.hpp"
#include "tests/ui/support/search_fixture.hpp"
#include "ui/animation/animation.hpp"
#include "ui/animation/movie_dialog.hpp"
#include "ui/animation/movie_export.hpp"

using namespace ps;
using namespace ps::ui;

namespace {

using test::mapFromRows;
const std::vector<std::string>& kRows = test::kHandWorkedRows;  // BFS levels 0-8 from (0,0)

std::shared_ptr<const RunResult> run(std::shared_ptr<const GridMap> map, const std::string& variant, Cell start,
                                     Cell goal, Connectivity connectivity) {
    return test::run(test::requestOn(std::move(map), variant, start, goal, connectivity));
}

// The GIF's frames composited as a viewer shows them ("do not dispose": each frame paints its
// rectangle over the previous picture, where it is not transparent).
struct DecodedGif {
    QString error;
    int width = 0, height = 0;
    std::vector<QImage> frames;
    bool loops = false;
};

DecodedGif decodeGif(const QString& path) {
    DecodedGif out;
    int error = 0;
    GifFileType* gif = DGifOpenFileName(path.toLocal8Bit().constData(), &error);
    if (!gif) {
        out.error = QString::fromUtf8(GifErrorString(error));
        return out;
    }
    if (DGifSlurp(gif) != GIF_OK) {
        out.error = QString::fromUtf8(GifErrorString(gif->Error));
        DGifCloseFile(gif, &error);
        return out;
    }
    out.width = gif->SWidth;
    out.height = gif->SHeight;
    QImage canvas(out.width, out.height, QImage::Format_RGB32);
    canvas.fill(Qt::black);
    for (int i = 0; i < gif->ImageCount; ++i) {
        const SavedImage& image = gif->SavedImages[i];
        const ColorMapObject* map = image.ImageDesc.ColorMap ? image.ImageDesc.ColorMap : gif->SColorMap;
        const GifImageDesc& d = image.ImageDesc;
        GraphicsControlBlock gcb{};
        gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        DGifSavedExtensionToGCB(gif, i, &gcb);
        for (int y = 0; y < d.Height; ++y)
            for (int x = 0; x < d.Width; ++x) {
                const int index = image.RasterBits[y * d.Width + x];
                if (index == gcb.TransparentColor) continue;  // the previous frame shows through
                const GifColorType c = map->Colors[index];
                canvas.setPixel(d.Left + x, d.Top + y, qRgb(c.Red, c.Green, c.Blue));
            }
        out.frames.push_back(canvas.copy());
        for (int e = 0; e < image.ExtensionBlockCount; ++e)
            if (image.ExtensionBlocks[e].Function == APPLICATION_EXT_FUNC_CODE &&
                QByteArray(reinterpret_cast<const char*>(image.ExtensionBlocks[e].Bytes),
                           image.ExtensionBlocks[e].ByteCount)
                    .startsWith("NETSCAPE2.0"))
                out.loops = true;
    }
    DGifCloseFile(gif, &error);
    return out;
}

// The MP4's video stream: its size, its packets and the frames its decoder gives back.
struct DecodedMp4 {
    QString error;
    int width = 0, height = 0, packets = 0, frames = 0;
};

DecodedMp4 decodeMp4(const QString& path) {
    DecodedMp4 out;
    AVFormatContext* format = nullptr;
    if (avformat_open_input(&format, path.toLocal8Bit().constData(), nullptr, nullptr) < 0) {
        out.error = QStringLiteral("cannot open");
        return out;
    }
    avformat_find_stream_info(format, nullptr);
    const int stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (stream < 0) {
        out.error = QStringLiteral("no video stream");
        avformat_close_input(&format);
        return out;
    }
    const AVCodecParameters* par = format->streams[stream]->codecpar;
    out.width = par->width;
    out.height = par->height;
    const AVCodec* codec = avcodec_find_decoder(par->codec_id);
    AVCodecContext* decoder = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(decoder, par);
    avcodec_open2(decoder, codec, nullptr);
    AVPacket* packet = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    auto drain = [&] {
        while (avcodec_receive_frame(decoder, frame) == 0) ++out.frames;
    };
    while (av_read_frame(format, packet) >= 0) {
        if (packet->stream_index == stream) {
            ++out.packets;
            avcodec_send_packet(decoder, packet);
            drain();
        }
        av_packet_unref(packet);
    }
    avcodec_send_packet(decoder, nullptr);
    drain();
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&format);
    return out;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestMovieExport : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void gifOfAHandWorkedBfs() {
        const auto map = mapFromRows(kRows);
        const auto result = run(map, "bfs.cpu.queue", {4, 4}, {0, 0}, Connectivity::Four);
        QCOMPARE(result->levels, 9);  // the start (4,4) is at level 8
        MovieOptions options;
        options.width = 250;
        const QString file = path(QStringLiteral("bfs.gif"));
        const MovieOutcome outcome = exportMovie({{map, result, QStringLiteral("bfs.cpu.queue")}}, file, options);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        QCOMPARE(outcome.frames, 9);  // one frame per level
        const DecodedGif gif = decodeGif(file);
        QVERIFY2(gif.error.isEmpty(), qPrintable(gif.error));
        QCOMPARE(int(gif.frames.size()), 9);
        QCOMPARE(gif.width, 250);
        QCOMPARE(QSize(gif.width, gif.height), outcome.size);
        QVERIFY(gif.height > 250);  // the map (square) and the caption strip under it
        QVERIFY(gif.loops);
        // Cell (2,3) is at level 7: free-coloured until frame 7, coloured from then on. Its
        // centre, 50 px per cell.
        const QPoint centre(2 * 50 + 25, 3 * 50 + 25);
        const QRgb free = gif.frames[0].pixel(centre);
        for (int f = 0; f < 7; ++f) QCOMPARE(gif.frames[std::size_t(f)].pixel(centre), free);
        for (int f = 7; f < 9; ++f) QVERIFY(gif.frames[std::size_t(f)].pixel(centre) != free);
        // A wall cell, (1,1), never changes.
        const QPoint wall(1 * 50 + 25, 1 * 50 + 25);
        for (const QImage& frame : gif.frames) QCOMPARE(frame.pixel(wall), gif.frames[0].pixel(wall));
    }

    void mp4OfAnAStarRecording() {
        GridMap grid(64, 48);
        for (int y = 4; y < 44; ++y) grid.set_passable(32, y, false);
        const auto map = std::make_shared<const GridMap>(std::move(grid));
        const auto result = run(map, "astar.cpu", {2, 24}, {60, 24}, Connectivity::Eight);
        QVERIFY(result->recording);
        MovieOptions options;
        options.width = 321;  // odd: an MP4 rounds it up to even
        options.fps = 24;
        const QString file = path(QStringLiteral("astar.mp4"));
        const MovieOutcome outcome = exportMovie({{map, result, QStringLiteral("astar.cpu")}}, file, options);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        QVERIFY(outcome.frames > 10);
        QCOMPARE(outcome.size.width(), 322);
        QCOMPARE(outcome.size.height() % 2, 0);
        const DecodedMp4 mp4 = decodeMp4(file);
        QVERIFY2(mp4.error.isEmpty(), qPrintable(mp4.error));
        QCOMPARE(QSize(mp4.width, mp4.height), outcome.size);
        QCOMPARE(mp4.packets, outcome.frames);
        QCOMPARE(mp4.frames, outcome.frames);
    }

    void twoRunsSideBySide() {
        GridMap grid(40, 40);
        for (int x = 5; x < 35; ++x) grid.set_passable(x, 20, false);
        const auto map = std::make_shared<const GridMap>(std::move(grid));
        const auto forward = run(map, "astar.cpu", {20, 2}, {20, 38}, Connectivity::Eight);
        const auto both = run(map, "astar.cpu.bidir", {20, 2}, {20, 38}, Connectivity::Eight);
        MovieFrames frames(
            {{map, forward, QStringLiteral("astar.cpu")}, {map, both, QStringLiteral("astar.cpu.bidir")}}, 640, false);
        Animation single;
        single.setRun(map, forward);
        Animation other;
        other.setRun(map, both);
        QCOMPARE(frames.frameCount(), std::max(single.frameCount(), other.frameCount()));
        QCOMPARE(frames.size().width(), 640);
        // Grouped into 8 frames, a frame is the same number of expansions in both panels: the
        // longer search's share, so the search with fewer expansions ends sooner.
        MovieFrames grouped(
            {{map, forward, QStringLiteral("astar.cpu")}, {map, both, QStringLiteral("astar.cpu.bidir")}}, 640, false,
            8);
        const bool firstLonger = single.units() > other.units();
        const std::int64_t longer = std::max(single.units(), other.units());
        const std::int64_t shorter = std::min(single.units(), other.units());
        QVERIFY(shorter < longer);
        const std::int64_t perFrame = (longer + 7) / 8;
        QCOMPARE(grouped.panelFrames(firstLonger ? 0 : 1), 8);
        QCOMPARE(grouped.panelFrames(firstLonger ? 1 : 0), int((shorter + perFrame - 1) / perFrame));
        QVERIFY(grouped.panelFrames(firstLonger ? 1 : 0) < 8);
        const QString file = path(QStringLiteral("side.gif"));
        MovieOptions options;
        options.width = 640;
        const MovieOutcome outcome =
            exportMovie({{map, forward, QStringLiteral("astar.cpu")}, {map, both, QStringLiteral("astar.cpu.bidir")}},
                        file, options);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        const DecodedGif gif = decodeGif(file);
        QCOMPARE(int(gif.frames.size()), frames.frameCount());
        // Each half is a map of its own: the left one's right edge and the right one's left
        // edge are 8 px apart, and the gap between them is the background.
        const QImage last = gif.frames.back();
        QCOMPARE(last.pixel(318, 5), last.pixel(321, 5));
        QVERIFY(last.pixel(320, 5) != last.pixel(100, 5));  // background, not a free cell
    }

    void rangesAndSampling() {
        MovieOptions options;
        const std::vector<int> all = movieFrameIndices(4000, options);
        QVERIFY(all.size() <= 901);
        QCOMPARE(all.front(), 0);
        QCOMPARE(all.back(), 3999);
        QVERIFY(std::is_sorted(all.begin(), all.end()));
        options.frames = std::pair(10, 20);
        const std::vector<int> some = movieFrameIndices(4000, options);
        QCOMPARE(int(some.size()), 11);
        QCOMPARE(some.front(), 10);
        QCOMPARE(some.back(), 20);
        options.frames.reset();
        QCOMPARE(int(movieFrameIndices(5, options).size()), 5);
    }

    void cancelLeavesTheFileAsItWas() {
        const auto map = mapFromRows(kRows);
        const auto result = run(map, "bfs.cpu.queue", {4, 4}, {0, 0}, Connectivity::Four);
        const QString file = path(QStringLiteral("kept.gif"));
        {
            QFile old(file);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("the movie from before");
        }
        const MovieOutcome outcome =
            exportMovie({{map, result, QStringLiteral("bfs")}}, file, {}, [](int done, int) { return done < 3; });
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.cancelled);
        QCOMPARE(readAll(file), QByteArray("the movie from before"));
        QVERIFY(!QFile::exists(file + QStringLiteral(".part")));
    }

    void badInputIsRefusedWithAReason() {
        const auto map = mapFromRows(kRows);
        const auto result = run(map, "bfs.cpu.queue", {4, 4}, {0, 0}, Connectivity::Four);
        MovieOutcome outcome = exportMovie({{map, result, QStringLiteral("bfs")}}, path(QStringLiteral("x.avi")), {});
        QVERIFY(outcome.error.contains(QStringLiteral(".gif")));
        MovieOptions options;
        options.frames = std::pair(20, 30);
        outcome = exportMovie({{map, result, QStringLiteral("bfs")}}, path(QStringLiteral("x.gif")), options);
        QVERIFY2(outcome.error.contains(QStringLiteral("frames 0-8")), qPrintable(outcome.error));
        options = {};
        options.fps = 55;
        outcome = exportMovie({{map, result, QStringLiteral("bfs")}}, path(QStringLiteral("x.gif")), options);
        QVERIFY2(outcome.error.contains(QStringLiteral("1 to 50")), qPrintable(outcome.error));
        auto empty = std::make_shared<const RunResult>();
        outcome = exportMovie({{map, empty, QStringLiteral("none")}}, path(QStringLiteral("x.gif")), {});
        QVERIFY2(outcome.error.contains(QStringLiteral("no recording")), qPrintable(outcome.error));
        outcome = exportMovie({{map, result, QStringLiteral("bfs")}}, path(QStringLiteral("missing/dir/x.gif")), {});
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.error.contains(QStringLiteral("missing/dir")), qPrintable(outcome.error));
    }

    // A run stored by the CLI with --record animates later: the headless export replays it.
    void headlessExportOfARunStoredWithRecord() {
        const QString db = path(QStringLiteral("history.sqlite"));
        for (const bool record : {true, false}) {
            QProcess cli;
            QStringList args{QStringLiteral("run"),       QStringLiteral("--gen"), QStringLiteral("rooms"),
                             QStringLiteral("--size"),    QStringLiteral("96"),    QStringLiteral("--variant"),
                             QStringLiteral("astar.cpu"), QStringLiteral("--db"),  db};
            if (record) args << QStringLiteral("--record");
            cli.start(QStringLiteral(PATHSCOPE_CLI), args);
            QVERIFY(cli.waitForFinished(60000));
            QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        }
        const QString file = path(QStringLiteral("stored.mp4"));
        MovieOptions options;
        options.width = 480;
        MovieOutcome outcome = exportAnimation(db, {1}, file, options);
        QVERIFY2(outcome.ok, qPrintable(outcome.error));
        const DecodedMp4 mp4 = decodeMp4(file);
        QCOMPARE(mp4.frames, outcome.frames);
        QCOMPARE(mp4.width, 480);
        // The second run kept no recording: said so, with the way to get one.
        outcome = exportAnimation(db, {2}, path(QStringLiteral("none.gif")), options);
        QVERIFY2(outcome.error.contains(QStringLiteral("--record")), qPrintable(outcome.error));
        outcome = exportAnimation(db, {1, 2, 1}, path(QStringLiteral("three.gif")), options);
        QVERIFY(!outcome.ok);
    }

    void dialogExportsOffTheGuiThread() {
        GridMap grid(256, 256);
        const auto map = std::make_shared<const GridMap>(std::move(grid));
        const auto result = run(map, "bfs.cpu.queue", {255, 255}, {0, 0}, Connectivity::Four);
        Animation animation;
        animation.setRun(map, result);
        MovieDialog dialog({{map, result, QStringLiteral("bfs.cpu.queue")}}, animation.frameCount(),
                           path(QStringLiteral("dialog.gif")));
        QSignalSpy finished(&dialog, &MovieDialog::exportFinished);
        dialog.setMovieWidth(320);
        dialog.setFrames(0, 99);
        dialog.startExport();
        QVERIFY(dialog.exporting());
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(!dialog.exporting());
        QCOMPARE(int(decodeGif(path(QStringLiteral("dialog.gif"))).frames.size()), 100);
        // Cancel right away: the export stops and says so; no file.
        finished.clear();
        dialog.setPath(path(QStringLiteral("cancelled.mp4")));
        dialog.setFrames(0, animation.frameCount() - 1);
        dialog.startExport();
        dialog.cancelExport();
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.first().at(0).toBool());
        QVERIFY2(finished.first().at(1).toString().contains(QStringLiteral("cancelled")),
                 qPrintable(finished.first().at(1).toString()));
        QVERIFY(!QFile::exists(path(QStringLiteral("cancelled.mp4"))));
    }
};

QTEST_MAIN(TestMovieExport)
#include "test_movie_export.moc"
