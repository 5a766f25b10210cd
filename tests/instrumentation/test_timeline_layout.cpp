// The timeline view's pure functions (instrumentation/timeline/timeline_layout.hpp), mostly as tables of
// cases: time <-> pixel mapping, zoom, pan and clamp; merging of sub-pixel items with its bound
// on 100,000 items; hit testing; NVTX nesting; duration labels; level buckets and the lecture
// captions; the row layout with correlation partners and the gap row.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "instrumentation/timeline/timeline_layout.hpp"

namespace ps::trace {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // CUPTI-like absolute times

// ---- TimeAxis --------------------------------------------------------------------------------

struct MappingCase {
    TimeAxis axis;
    double ns, px;
};

TEST(TimeAxis, MapsTimeToPixelsAndBack) {
    const MappingCase cases[] = {
        {{0, 1000, 100}, 0, 0},    {{0, 1000, 100}, 1000, 100},    {{0, 1000, 100}, 250, 25},
        {{-500, 500, 100}, 0, 50}, {{1e6, 2e6, 1000}, 1.5e6, 500}, {{0, 1000, 100}, -100, -10},
        {{0, 10, 1000}, 0.01, 1},  // sub-nanosecond per pixel
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(testing::Message() << "axis [" << c.axis.begin_ns << ", " << c.axis.end_ns << "] ns=" << c.ns);
        EXPECT_NEAR(c.axis.to_px(c.ns), c.px, 1e-9);
        EXPECT_NEAR(c.axis.to_ns(c.px), c.ns, 1e-9);
    }
    EXPECT_DOUBLE_EQ((TimeAxis{0, 1000, 100}.ns_per_px()), 10.0);
    EXPECT_DOUBLE_EQ((TimeAxis{0, 1000, 0}.ns_per_px()), 1000.0) << "a zero-width axis must not divide by zero";
}

struct ZoomCase {
    TimeAxis axis;
    double factor, anchor_px;
    double begin, end;
};

TEST(TimeAxis, ZoomKeepsTheAnchorInPlace) {
    const ZoomCase cases[] = {
        {{0, 1000, 100}, 2, 50, 250, 750},    // centre
        {{0, 1000, 100}, 2, 0, 0, 500},       // left edge
        {{0, 1000, 100}, 2, 100, 500, 1000},  // right edge
        {{0, 1000, 100}, 0.5, 50, -500, 1500}, {{0, 1000, 100}, 4, 20, 150, 400},
        {{0, 1000, 100}, 0, 20, 0, 1000},  // a nonsense factor changes nothing
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(testing::Message() << "factor " << c.factor << " at " << c.anchor_px);
        const TimeAxis z = c.axis.zoomed(c.factor, c.anchor_px);
        EXPECT_NEAR(z.begin_ns, c.begin, 1e-9);
        EXPECT_NEAR(z.end_ns, c.end, 1e-9);
        EXPECT_NEAR(z.to_ns(c.anchor_px), c.axis.to_ns(c.anchor_px), 1e-9);
    }
    // Zooming in and out again at the same anchor is the identity.
    const TimeAxis a{123, 4567, 800};
    const TimeAxis back = a.zoomed(3, 217).zoomed(1.0 / 3, 217);
    EXPECT_NEAR(back.begin_ns, a.begin_ns, 1e-6);
    EXPECT_NEAR(back.end_ns, a.end_ns, 1e-6);
}

TEST(TimeAxis, PanMovesTheContentWithTheDrag) {
    const struct {
        double dx, begin, end;
    } cases[] = {{10, -100, 900}, {-10, 100, 1100}, {0, 0, 1000}, {100, -1000, 0}};
    for (const auto& c : cases) {
        const TimeAxis p = TimeAxis{0, 1000, 100}.panned(c.dx);
        EXPECT_DOUBLE_EQ(p.begin_ns, c.begin) << c.dx;
        EXPECT_DOUBLE_EQ(p.end_ns, c.end) << c.dx;
        EXPECT_DOUBLE_EQ(p.width_px, 100);
    }
}

struct ClampCase {
    TimeAxis axis;
    double lo, hi, min_span;
    double begin, end;
};

TEST(TimeAxis, ClampKeepsTheViewInsideTheData) {
    const ClampCase cases[] = {
        {{100, 200, 10}, 0, 1000, 1, 100, 200},           // inside: unchanged
        {{-50, 50, 10}, 0, 1000, 1, 0, 100},              // shifted right
        {{950, 1050, 10}, 0, 1000, 1, 900, 1000},         // shifted left
        {{-500, 2000, 10}, 0, 1000, 1, 0, 1000},          // wider than the data: all of it
        {{500, 500.5, 10}, 0, 1000, 10, 495.25, 505.25},  // too narrow: widened about its centre
        {{0, 1, 10}, 0, 1000, 10, 0, 10},                 // widened, then shifted in
        {{0, 100, 10}, 40, 42, 10, 36, 46},               // data narrower than the minimum: centred on it
        {{100, 200, 10}, 1000, 0, 1, 100, 200},           // bounds in either order
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(testing::Message() << "[" << c.axis.begin_ns << ", " << c.axis.end_ns << "] in [" << c.lo << ", "
                                        << c.hi << "]");
        const TimeAxis k = c.axis.clamped(c.lo, c.hi, c.min_span);
        EXPECT_NEAR(k.begin_ns, c.begin, 1e-9);
        EXPECT_NEAR(k.end_ns, c.end, 1e-9);
    }
}

// ---- Merging and picking ---------------------------------------------------------------------

RowItems row_of(std::vector<std::pair<std::int64_t, std::int64_t>> intervals) {
    std::vector<RowItem> items;
    for (std::size_t i = 0; i < intervals.size(); ++i)
        items.push_back({intervals[i].first, intervals[i].second, std::uint32_t(i)});
    return make_row_items(std::move(items));
}

struct ExpectedSpan {
    double x0, x1;
    std::uint32_t count;
    std::uint32_t longest_id;
};

struct MergeCase {
    const char* what;
    std::vector<std::pair<std::int64_t, std::int64_t>> items;
    TimeAxis axis;
    std::vector<ExpectedSpan> spans;
};

TEST(ZoomStack, NewestFirstAndTheOldestForgottenPastTheLimit) {
    trace::ZoomStack stack(3);
    EXPECT_EQ(stack.pop(), std::nullopt);
    for (double b : {1.0, 2.0, 3.0, 4.0}) stack.push({b, b + 10});
    EXPECT_EQ(stack.depth(), 3u);  // {1, 11} forgotten
    EXPECT_EQ(stack.pop(), (trace::ZoomStack::Range{4, 14}));
    EXPECT_EQ(stack.pop(), (trace::ZoomStack::Range{3, 13}));
    EXPECT_EQ(stack.pop(), (trace::ZoomStack::Range{2, 12}));
    EXPECT_EQ(stack.pop(), std::nullopt);
    stack.push({5, 6});
    stack.clear();
    EXPECT_EQ(stack.depth(), 0u);
    trace::ZoomStack none(0);
    none.push({1, 2});
    EXPECT_EQ(none.depth(), 0u);
}

TEST(MergeSpans, MergesItemsCloserThanAPixel) {
    // 10 ns per pixel in the default axis.
    const MergeCase cases[] = {
        {"empty row", {}, {0, 1000, 100}, {}},
        {"one item", {{100, 200}}, {0, 1000, 100}, {{10, 20, 1, 0}}},
        {"apart by a pixel: two spans", {{100, 200}, {210, 300}}, {0, 1000, 100}, {{10, 20, 1, 0}, {21, 30, 1, 1}}},
        {"apart by less: one span", {{100, 200}, {205, 300}}, {0, 1000, 100}, {{10, 30, 2, 0}}},
        {"three instants in one pixel", {{500, 500}, {502, 502}, {505, 506}}, {0, 1000, 100}, {{50, 50.6, 3, 2}}},
        {"overlapping", {{100, 400}, {150, 200}}, {0, 1000, 100}, {{10, 40, 2, 0}}},
        {"the longest names the span", {{100, 110}, {112, 190}, {192, 195}}, {0, 1000, 100}, {{10, 19.5, 3, 1}}},
        {"outside the view left out", {{-500, -400}, {100, 200}, {2000, 3000}}, {0, 1000, 100}, {{10, 20, 1, 1}}},
        {"clipped at both ends", {{-500, 5000}}, {0, 1000, 100}, {{-1, 101, 1, 0}}},
        {"a long earlier item still drawn", {{0, 900}, {100, 110}}, {500, 1000, 50}, {{-1, 40, 1, 0}}},
        {"zoomed in: apart again", {{100, 200}, {205, 300}}, {100, 300, 200}, {{0, 100, 1, 0}, {105, 200, 1, 1}}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const RowItems row = row_of(c.items);
        const auto spans = merge_spans(row, c.axis);
        ASSERT_EQ(spans.size(), c.spans.size());
        for (std::size_t i = 0; i < spans.size(); ++i) {
            EXPECT_NEAR(spans[i].x0, c.spans[i].x0, 1e-9) << i;
            EXPECT_NEAR(spans[i].x1, c.spans[i].x1, 1e-9) << i;
            EXPECT_EQ(spans[i].count, c.spans[i].count) << i;
            EXPECT_EQ(row.id[spans[i].longest], c.spans[i].longest_id) << i;
        }
    }
}

TEST(MergeSpans, HundredThousandItemsDrawAtMostOneSpanPerPixel) {
    std::mt19937_64 rng(7);
    std::vector<RowItem> items;
    std::int64_t t = 0;
    for (std::uint32_t i = 0; i < 100'000; ++i) {
        t += std::int64_t(rng() % 2000);  // 0..2 us apart, 10 ns .. 5 us long: overlaps too
        items.push_back({t, t + 10 + std::int64_t(rng() % 5000), i});
    }
    const RowItems row = make_row_items(std::move(items));
    const double full = double(row.max_end_ns.back());
    for (const double width : {1.0, 100.0, 1280.0, 3840.0}) {
        for (const TimeAxis axis : {TimeAxis{0, full, width}, TimeAxis{full * 0.4, full * 0.41, width},
                                    TimeAxis{full * 0.5, full * 0.5 + 20'000, width}}) {
            const auto spans = merge_spans(row, axis);
            EXPECT_LE(double(spans.size()), width + 3) << "width " << width << " span " << axis.span_ns();
            std::uint64_t merged = 0;
            for (std::size_t i = 0; i < spans.size(); ++i) {
                merged += spans[i].count;
                if (i > 0) {
                    EXPECT_GE(spans[i].x0, spans[i - 1].x1 + 1.0);
                }
            }
            const auto [first, last] = row.overlapping(axis.begin_ns, axis.end_ns);
            EXPECT_LE(merged, last - first);  // every span stands for items that are visible
        }
    }
    // At full view every item is accounted for.
    std::uint64_t total = 0;
    for (const auto& s : merge_spans(row, {0, full, 1280})) total += s.count;
    EXPECT_EQ(total, 100'000u);
}

TEST(PickItem, FindsTheInnermostOrNearestItem) {
    const RowItems row = row_of({{0, 1000}, {100, 200}, {300, 310}, {2000, 2100}});
    const struct {
        double t, tolerance;
        std::optional<std::uint32_t> id;
    } cases[] = {
        {150, 5, 1},  // nested: the shorter one
        {50, 5, 0},   // only the long one contains it
        {305, 0, 2},
        {1500, 5, std::nullopt},  // nothing within the tolerance
        {1995, 10, 3},            // near, not inside
        {1050, 100, 0},           // nearer to the end of 0 than to 3
        {2150, 40, std::nullopt},
        {2150, 60, 3},
    };
    for (const auto& c : cases) {
        const auto pos = pick_item(row, c.t, c.tolerance);
        ASSERT_EQ(pos.has_value(), c.id.has_value()) << c.t;
        if (pos) {
            EXPECT_EQ(row.id[*pos], *c.id) << c.t;
        }
    }
}

TEST(RowItems, OverlappingFindsItemsThroughLongOnes) {
    const RowItems row = row_of({{0, 10}, {20, 1000}, {30, 40}, {50, 60}, {2000, 2010}});
    const struct {
        double t0, t1;
        std::size_t first, last;
    } cases[] = {{45, 55, 1, 4},     {0, 5, 0, 1},    {1500, 1600, 4, 4},
                 {2005, 3000, 4, 5}, {-10, -5, 0, 0}, {5000, 6000, 5, 5}};
    for (const auto& c : cases) {
        const auto [a, b] = row.overlapping(c.t0, c.t1);
        EXPECT_EQ(a, c.first) << c.t0;
        EXPECT_EQ(b, c.last) << c.t0;
    }
}

// ---- Nesting and text -----------------------------------------------------------------------

TEST(NestingDepths, GivesEachRangeTheLowestFreeSubRow) {
    const struct {
        const char* what;
        std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
        std::vector<std::int32_t> depths;
    } cases[] = {
        {"none", {}, {}},
        {"siblings", {{0, 10}, {10, 20}, {20, 30}}, {0, 0, 0}},
        {"nested three deep", {{0, 100}, {10, 90}, {20, 30}}, {0, 1, 2}},
        {"given inner first", {{20, 30}, {10, 90}, {0, 100}}, {2, 1, 0}},
        {"same start: the longer encloses", {{0, 50}, {0, 100}}, {1, 0}},
        {"siblings inside a parent", {{0, 100}, {10, 20}, {30, 40}}, {0, 1, 1}},
        {"overlap without nesting", {{0, 10}, {5, 15}, {12, 20}}, {0, 1, 0}},
    };
    for (const auto& c : cases) EXPECT_EQ(nesting_depths(c.intervals), c.depths) << c.what;
}

TEST(FormatDuration, PicksAUnitAndRoundsAtItsBoundaries) {
    const struct {
        std::int64_t ns;
        const char* text;
    } cases[] = {
        {0, "0 ns"},
        {850, "850 ns"},
        {999, "999 ns"},
        {1000, "1.0 us"},
        {12'345, "12.3 us"},
        {999'949, "999.9 us"},
        {999'950, "1.00 ms"},
        {4'560'000, "4.56 ms"},
        {999'994'999, "999.99 ms"},
        {999'995'000, "1.00 s"},
        {1'234'000'000, "1.23 s"},
        {-12'345, "-12.3 us"},
    };
    for (const auto& c : cases) EXPECT_EQ(format_duration(c.ns), c.text) << c.ns;
}

// ---- Levels ----------------------------------------------------------------------------------

// A small timeline builder: one host thread, one stream, a device-levels track, NVTX, sync.
struct Builder {
    Timeline t;
    std::uint32_t host = t.add_track(TrackKind::HostThread, 7, "CPU thread 7");
    std::uint32_t stream = t.add_track(TrackKind::GpuStream, 13, "stream 13");
    std::uint32_t levels = t.add_track(TrackKind::DeviceLevels, 0, "device levels");

    std::uint32_t add(EventKind kind, std::uint32_t track, std::int64_t start_us, std::int64_t end_us,
                      std::uint64_t correlation = 0, std::int32_t level = -1, bool device = false) {
        Event e;
        e.kind = kind;
        e.name = std::string(to_string(kind));
        e.track = track;
        e.start_ns = kT0 + start_us * 1000;
        e.end_ns = kT0 + end_us * 1000;
        e.correlation_id = correlation;
        e.level = level;
        e.device_launched = device;
        t.events.push_back(e);
        return std::uint32_t(t.events.size() - 1);
    }
};

// bfs.gpu.shared's loop: launch (API 1 us), kernel 10 us, sync, next launch: 12 us gaps.
Timeline host_loop(int levels) {
    Builder b;
    for (int l = 0; l < levels; ++l) {
        const std::int64_t t = 100 + 22 * l;
        b.add(EventKind::RuntimeApi, b.host, t - 2, t - 1, std::uint64_t(l + 1));
        b.add(EventKind::Kernel, b.stream, t, t + 10, std::uint64_t(l + 1), l);
    }
    return b.t;
}

// bfs.gpu.dp: one host launch, then levels launching each other with 1 us between them.
Timeline tail_chain(int levels) {
    Builder b;
    b.add(EventKind::RuntimeApi, b.host, 98, 99, 1);
    b.add(EventKind::Kernel, b.stream, 100, 100 + 5 * levels, 1);
    for (int l = 0; l < levels; ++l) b.add(EventKind::DeviceLevel, b.levels, 100 + 5 * l, 104 + 5 * l, 0, l, l > 0);
    return b.t;
}

TEST(BucketLevels, TellsHostLoopsFromTailLaunches) {
    const auto loop = bucket_levels(host_loop(4));
    ASSERT_EQ(loop.size(), 4u);
    for (std::size_t i = 0; i < loop.size(); ++i) {
        EXPECT_EQ(loop[i].level, std::int32_t(i));
        EXPECT_EQ(loop[i].launch, LevelLaunch::Host);
        EXPECT_EQ(loop[i].kernels, 1u);
        EXPECT_EQ(loop[i].end_ns - loop[i].start_ns, 10'000);
        EXPECT_EQ(loop[i].gap_before_ns, i == 0 ? -1 : 12'000);
    }
    const auto chain = bucket_levels(tail_chain(3));
    ASSERT_EQ(chain.size(), 3u);
    EXPECT_EQ(chain[0].launch, LevelLaunch::Host);  // the first level: the host's launch
    EXPECT_EQ(chain[1].launch, LevelLaunch::Device);
    EXPECT_EQ(chain[2].launch, LevelLaunch::Device);
    EXPECT_EQ(chain[1].gap_before_ns, 1000);
    EXPECT_EQ(chain[2].kernels, 0u);
}

TEST(BucketLevels, CaptionsSayWhoLaunchedTheLevel) {
    const auto loop = bucket_levels(host_loop(14));
    const auto chain = bucket_levels(tail_chain(14));
    const struct {
        const std::vector<LevelBucket>* levels;
        std::size_t index;
        const char* name;
        std::string text;
    } cases[] = {
        {&loop, 13, "level",
         "host loop: the CPU waits for level 12 to finish, then launches level 13 (level 13 took 10.0 us, started 12.0 "
         "us after level 12 ended)"},
        {&chain, 13, "level",
         "tail launch: the last block of level 12 launched level 13 on the GPU (level 13 took 4.0 us, started 1.0 us "
         "after level 12 ended)"},
        {&chain, 0, "level", "the CPU launches level 0, the first (level 0 took 4.0 us)"},
        {&loop, 2, "iteration",
         "host loop: the CPU waits for iteration 1 to finish, then launches iteration 2 (iteration 2 took 10.0 us, "
         "started 12.0 us after iteration 1 ended)"},
        {&loop, 99, "level", ""},
    };
    for (const auto& c : cases) EXPECT_EQ(describe_level(*c.levels, c.index, c.name), c.text);
}

TEST(BucketLevels, FindsLevelsByIndexAndTime) {
    const auto loop = bucket_levels(host_loop(5));  // level l runs [100 + 22 l, 110 + 22 l] us
    const struct {
        std::int64_t t_us;
        std::optional<std::size_t> at;
    } cases[] = {{50, std::nullopt}, {100, 0}, {105, 0}, {115, 0}, {122, 1}, {200, 4}, {10'000, 4}};
    for (const auto& c : cases) EXPECT_EQ(level_at(loop, kT0 + c.t_us * 1000), c.at) << c.t_us;
    EXPECT_EQ(find_level(loop, 3), std::optional<std::size_t>(3));
    EXPECT_EQ(find_level(loop, 7), std::nullopt);
    EXPECT_EQ(find_level(loop, -1), std::nullopt);
}

TEST(BucketLevels, HostRangesDoNotStretchGpuLevels) {
    Timeline t = host_loop(2);
    const std::uint32_t nvtx = t.add_track(TrackKind::Nvtx, 7, "NVTX 7");
    Event range;
    range.kind = EventKind::Nvtx;
    range.track = nvtx;
    range.start_ns = kT0;
    range.end_ns = kT0 + 1'000'000;
    range.level = 0;
    t.events.push_back(range);
    const auto levels = bucket_levels(t);
    ASSERT_EQ(levels.size(), 2u);
    EXPECT_EQ(levels[0].end_ns - levels[0].start_ns, 10'000);
}

TEST(LevelFrames, MapsLevelsToAnimationFramesAndBack) {
    const struct {
        int levels, frames, level, frame, first_level;
    } cases[] = {
        {100, 100, 37, 37, 37},    // one level per frame
        {100, 4000, 37, 37, 37},   // fewer levels than the frame budget
        {5000, 2500, 37, 18, 36},  // two levels per frame
        {4094, 4000, 4093, 2046, 4092},
        {100, 100, -5, 0, 0},  // clamped
        {100, 100, 500, 99, 99},
        {0, 10, 3, 0, 0},  // nothing to show
        {10, 0, 3, 0, 0},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(testing::Message() << c.levels << " levels in " << c.frames << " frames, level " << c.level);
        EXPECT_EQ(frame_of_level(c.level, c.levels, c.frames), c.frame);
        EXPECT_EQ(level_of_frame(c.frame, c.levels, c.frames), c.first_level);
    }
}

// ---- Layout ----------------------------------------------------------------------------------

TEST(LayoutTimeline, OrdersRowsAndLinksCorrelatedEvents) {
    Builder b;
    const std::uint32_t sync = b.t.add_track(TrackKind::Host, 1, "CUDA synchronisation");
    const std::uint32_t phases = b.t.add_track(TrackKind::Host, 0, "run phases");
    const std::uint32_t nvtx = b.t.add_track(TrackKind::Nvtx, 7, "NVTX 7");
    const std::uint32_t stream2 = b.t.add_track(TrackKind::GpuStream, 2, "stream 2");
    b.t.add_track(TrackKind::GpuStream, 99, "stream 99");  // no events: no row
    b.add(EventKind::HostPhase, phases, 0, 500);
    b.add(EventKind::Nvtx, nvtx, 10, 400);
    b.add(EventKind::Nvtx, nvtx, 20, 30);
    const auto api = b.add(EventKind::RuntimeApi, b.host, 40, 45, 5);
    const auto kernel = b.add(EventKind::Kernel, b.stream, 50, 60, 5, 0);
    b.add(EventKind::Memcpy, stream2, 80, 90, 6);  // its API call was not captured
    b.add(EventKind::Sync, sync, 60, 61);
    b.add(EventKind::DeviceLevel, b.levels, 50, 59, 0, 0);

    const TimelineLayout layout = layout_timeline(b.t);
    EXPECT_EQ(layout.origin_ns, kT0 + 50'000) << "time 0 is the first GPU item";
    EXPECT_TRUE(layout.origin_is_gpu);
    EXPECT_EQ(layout.first_ns, -50'000);
    EXPECT_EQ(layout.last_ns, 450'000);
    std::vector<std::string> labels;
    std::vector<RowKind> kinds;
    for (const Row& row : layout.rows) {
        labels.push_back(row.label);
        kinds.push_back(row.kind);
    }
    const std::vector<std::string> expected = {"CPU thread 7",         "NVTX 7",   "NVTX 7 depth 1",
                                               "CUDA synchronisation", "stream 2", "stream 13",
                                               "device levels",        "GPU idle", "run phases"};
    EXPECT_EQ(labels, expected);
    EXPECT_EQ(kinds.back(), RowKind::HostPhases);
    EXPECT_EQ(kinds[7], RowKind::GpuGaps);

    ASSERT_EQ(layout.gaps.size(), 1u);  // 60 .. 80 us
    EXPECT_EQ(layout.gaps[0].label, "20.0 us");
    EXPECT_EQ(layout.rows[7].items.size(), 1u);
    EXPECT_EQ(layout.rows[7].items.start_ns[0], 10'000);

    EXPECT_EQ(layout.partner[api], kernel);
    EXPECT_EQ(layout.partner[kernel], api);
    EXPECT_EQ(layout.partner[5], kNoIndex);
    EXPECT_EQ(layout.row_of_event[kernel], 5u);
    EXPECT_EQ(layout.rows[5].items.id[layout.pos_of_event[kernel]], kernel);
    EXPECT_EQ(layout.levels.size(), 1u);
}

// A CPU run's timeline (host phases and NVTX only) starts at its first event, and says that
// time 0 is not a GPU item (the axis is labelled accordingly).
TEST(LayoutTimeline, CpuOnlyTimelineStartsAtItsFirstEvent) {
    Builder b;
    const std::uint32_t phases = b.t.add_track(TrackKind::Host, 0, "run phases");
    const std::uint32_t nvtx = b.t.add_track(TrackKind::Nvtx, 7, "NVTX 7");
    b.add(EventKind::Nvtx, nvtx, 30, 400);
    b.add(EventKind::HostPhase, phases, 20, 500);
    const TimelineLayout layout = layout_timeline(b.t);
    EXPECT_FALSE(layout.origin_is_gpu);
    EXPECT_EQ(layout.origin_ns, kT0 + 20'000);
    EXPECT_EQ(layout.first_ns, 0);
    EXPECT_EQ(layout.last_ns, 480'000);
}

TEST(LayoutTimeline, SummaryLineCountsLaunchesPerLevel) {
    EXPECT_NE(summary_line(summarize(host_loop(8))).find("1.00 host launches per level"), std::string::npos)
        << summary_line(summarize(host_loop(8)));
    EXPECT_NE(summary_line(summarize(tail_chain(8))).find("1 host launch per 8 levels"), std::string::npos)
        << summary_line(summarize(tail_chain(8)));
    EXPECT_EQ(summary_line(summarize(Timeline{})), "no GPU activity recorded");
}

TEST(LayoutTimeline, EmptyTimelineHasNoRows) {
    const TimelineLayout layout = layout_timeline(Timeline{});
    EXPECT_TRUE(layout.rows.empty());
    EXPECT_EQ(layout.origin_ns, 0);
    EXPECT_FALSE(layout.origin_is_gpu);
    EXPECT_TRUE(layout.levels.empty());
}

}  // namespace
}  // namespace ps::trace
