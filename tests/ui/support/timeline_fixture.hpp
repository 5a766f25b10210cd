// Synthetic timelines for the timeline view and export tests: a host-driven BFS loop (API call,
// kernel, memcpy and a device-level stamp per level, correlated as CUPTI reports them) and a
// tail-launch chain, at CUPTI-like absolute times; and a history holding a bench sweep and
// traced runs of both.
#pragma once

#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "database/recorder.hpp"
#include "instrumentation/timeline/timeline.hpp"

namespace ps::test {

inline constexpr std::int64_t kTraceT0 = 1'700'000'000'000'000'000;

// Four tracks (host thread, two streams, device levels), four events per level, 4 us a level:
// levels * 4 events. Level l: cudaLaunchKernel [0, 1] us, its kernel [1.5, 3] us (correlation
// l + 1, tagged with level l), a 4-byte memcpy [3.1, 3.3] us on stream 14 and the level's
// device stamp [1.6, 2.9] us.
inline std::shared_ptr<const trace::Timeline> hostLoopTimeline(int levels) {
    auto t = std::make_shared<trace::Timeline>();
    const std::uint32_t host = t->add_track(trace::TrackKind::HostThread, 7, "CPU thread 7");
    const std::uint32_t stream = t->add_track(trace::TrackKind::GpuStream, 13, "stream 13");
    const std::uint32_t copies = t->add_track(trace::TrackKind::GpuStream, 14, "stream 14");
    const std::uint32_t stamps = t->add_track(trace::TrackKind::DeviceLevels, 0, "device levels");
    t->events.reserve(std::size_t(levels) * 4);
    auto add = [&](trace::EventKind kind, std::string name, std::uint32_t track, std::int64_t start, std::int64_t end,
                   std::uint64_t correlation, std::int32_t level) -> trace::Event& {
        trace::Event e;
        e.kind = kind;
        e.name = std::move(name);
        e.track = track;
        e.start_ns = kTraceT0 + start;
        e.end_ns = kTraceT0 + end;
        e.correlation_id = correlation;
        e.level = level;
        t->events.push_back(std::move(e));
        return t->events.back();
    };
    for (int l = 0; l < levels; ++l) {
        const std::int64_t base = std::int64_t(l) * 4000;
        const auto id = std::uint64_t(l) + 1;
        add(trace::EventKind::RuntimeApi, "cudaLaunchKernel", host, base, base + 1000, id, -1);
        trace::Event& k = add(trace::EventKind::Kernel, "void ps::gpu::bfs::level_kernel<32>(int*, int)", stream,
                              base + 1500, base + 3000, id, l);
        k.grid[0] = 64, k.grid[1] = 1, k.grid[2] = 1;
        k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
        add(trace::EventKind::Memcpy, "memcpy DtoH", copies, base + 3100, base + 3300, 0, -1).bytes = 4;
        add(trace::EventKind::DeviceLevel, "level " + std::to_string(l), stamps, base + 1600, base + 2900, 0, l);
    }
    return t;
}

// bfs.gpu.dp: one host launch, then `levels` device levels 5 us apart, each launched by the
// previous one's last block.
inline std::shared_ptr<const trace::Timeline> tailChainTimeline(int levels) {
    auto t = std::make_shared<trace::Timeline>();
    const std::uint32_t host = t->add_track(trace::TrackKind::HostThread, 7, "CPU thread 7");
    const std::uint32_t stream = t->add_track(trace::TrackKind::GpuStream, 13, "stream 13");
    const std::uint32_t stamps = t->add_track(trace::TrackKind::DeviceLevels, 0, "device levels");
    auto add = [&](trace::EventKind kind, std::string name, std::uint32_t track, std::int64_t start, std::int64_t end) {
        trace::Event e;
        e.kind = kind;
        e.name = std::move(name);
        e.track = track;
        e.start_ns = kTraceT0 + start;
        e.end_ns = kTraceT0 + end;
        t->events.push_back(std::move(e));
        return t->events.size() - 1;
    };
    t->events[add(trace::EventKind::RuntimeApi, "cudaLaunchKernel", host, 0, 900)].correlation_id = 1;
    t->events[add(trace::EventKind::Kernel, "ps::gpu::bfs::dp_level(int*)", stream, 1000, 1000 + 5000 * levels)]
        .correlation_id = 1;
    for (int l = 0; l < levels; ++l) {
        trace::Event& e = t->events[add(trace::EventKind::DeviceLevel, "level " + std::to_string(l), stamps,
                                        1000 + 5000 * l, 1000 + 5000 * l + 4000)];
        e.level = l;
        e.device_launched = l > 0;
    }
    return t;
}

struct TimelineHistory {
    std::int64_t hostLoop = 0;   // traced: hostLoopTimeline(300)
    std::int64_t tailChain = 0;  // traced: tailChainTimeline(300)
    std::int64_t untraced = 0;   // no events
    QString error;               // empty on success
};

// A bench sweep "sweep-1" (bfs.cpu.queue and bfs.gpu.shared on empty 64² and 128² maps, three
// repetitions each: CPU 4/5/6 and 16/18/20 ms, GPU 1/1.2/1.5 and 2/2.2/2.5 ms end-to-end,
// compute 80 % of that), two traced runs and one without a timeline.
inline TimelineHistory fillTimelineHistory(const QString& path) {
    TimelineHistory out;
    auto history = db::History::open(path.toStdString());
    if (!history) {
        out.error = QString::fromStdString(history.error().message);
        return out;
    }
    auto fail = [&out](const Error& e) {
        out.error = QString::fromStdString(e.message);
        return out;
    };
    auto begin = [&](const std::string& variant, int side, const std::string& bench) -> Expected<std::int64_t> {
        GridMap map(side, side);
        map.name = "empty-" + std::to_string(side);
        auto map_id = history->save_map(map, "empty");
        if (!map_id) return map_id.error();
        db::RunInfo info;
        info.map_id = *map_id;
        info.variant = variant;
        info.device_name = variant.find(".gpu") != std::string::npos ? "NVIDIA H100 80GB HBM3" : "Test CPU";
        info.build_commit = "abc1234";
        info.host = "testhost";
        info.bench_id = bench;
        return history->begin_run(info);
    };
    struct Timing {
        const char* variant;
        int side;
        std::vector<double> total_ms;
    };
    const Timing timings[] = {{"bfs.cpu.queue", 64, {4, 5, 6}},
                              {"bfs.cpu.queue", 128, {16, 18, 20}},
                              {"bfs.gpu.shared", 64, {1, 1.2, 1.5}},
                              {"bfs.gpu.shared", 128, {2, 2.2, 2.5}}};
    for (const Timing& t : timings) {
        auto id = begin(t.variant, t.side, "sweep-1");
        if (!id) return fail(id.error());
        std::vector<db::PhaseSample> samples;
        for (std::size_t r = 0; r < t.total_ms.size(); ++r)
            samples.push_back({int(r), 0.1, 0.1, t.total_ms[r] * 0.8, 0.1, t.total_ms[r]});
        if (auto ok = history->add_samples(*id, samples); !ok) return fail(ok.error());
        if (auto ok = history->finish_run(*id, {}); !ok) return fail(ok.error());
    }
    const struct {
        const char* variant;
        std::shared_ptr<const trace::Timeline> timeline;
        std::int64_t* id;
    } traced[] = {{"bfs.gpu.shared", hostLoopTimeline(300), &out.hostLoop},
                  {"bfs.gpu.dp", tailChainTimeline(300), &out.tailChain}};
    for (const auto& run : traced) {
        auto id = begin(run.variant, 128, "");
        if (!id) return fail(id.error());
        *run.id = *id;
        if (auto ok = history->add_events(*id, db::encode_timeline(*run.timeline)); !ok) return fail(ok.error());
        if (auto ok = history->finish_run(*id, {}); !ok) return fail(ok.error());
    }
    auto plain = begin("bfs.cpu.queue", 64, "");
    if (!plain) return fail(plain.error());
    out.untraced = *plain;
    if (auto ok = history->finish_run(*plain, {}); !ok) return fail(ok.error());
    return out;
}

}  // namespace ps::test
