// The history plots' numbers (instrumentation/output/plot_data.hpp) as tables: medians, pooling of a
// variant's runs per grid size, speedup with its whiskers, size labels and the CSV table.
#include <gtest/gtest.h>

#include <sstream>

#include "instrumentation/output/plot_data.hpp"

namespace ps::plot {
namespace {

TEST(PlotData, Median) {
    const struct {
        std::vector<double> values;
        double median;
    } cases[] = {{{}, 0}, {{3}, 3}, {{3, 1}, 2}, {{5, 1, 3}, 3}, {{4, 1, 3, 2}, 2.5}, {{1, 1, 1, 9}, 1}};
    for (const auto& c : cases) EXPECT_DOUBLE_EQ(median(c.values), c.median);
}

TEST(PlotData, SizeLabels) {
    EXPECT_EQ(size_label(512, 512), "512\u00b2");
    EXPECT_EQ(size_label(512, 256), "512\u00d7256");
}

TEST(PlotData, PoolsRunsPerVariantAndSize) {
    const std::vector<SweepRun> runs = {
        {"bfs.gpu.shared", 512, 512, true, {2, 4, 3}},
        {"bfs.gpu.shared", 512, 512, true, {5}},  // a second run of the same size: pooled
        {"bfs.gpu.shared", 1024, 1024, true, {10, 12}},
        {"bfs.cpu.queue", 512, 512, true, {20, 30, 40}},
        {"bfs.cpu.queue", 256, 1024, true, {25}},   // same cells as 512², another shape
        {"bfs.cpu.queue", 1024, 1024, false, {1}},  // failed: left out
        {"bfs.gpu.dp", 512, 512, true, {}},         // no samples: left out
    };
    const auto sweep = build_sweep(runs);
    ASSERT_EQ(sweep.size(), 2u);
    EXPECT_EQ(sweep[0].variant, "bfs.cpu.queue");
    EXPECT_EQ(sweep[1].variant, "bfs.gpu.shared");

    const struct {
        std::size_t series, point;
        int width, height;
        std::size_t runs, samples;
        double median, min, max;
    } expected[] = {
        {0, 0, 256, 1024, 1, 1, 25, 25, 25},
        {0, 1, 512, 512, 1, 3, 30, 20, 40},
        {1, 0, 512, 512, 2, 4, 3.5, 2, 5},
        {1, 1, 1024, 1024, 1, 2, 11, 10, 12},
    };
    ASSERT_EQ(sweep[0].points.size(), 2u);
    ASSERT_EQ(sweep[1].points.size(), 2u);
    for (const auto& e : expected) {
        const SweepPoint& p = sweep[e.series].points[e.point];
        SCOPED_TRACE(testing::Message() << sweep[e.series].variant << " " << p.width << "x" << p.height);
        EXPECT_EQ(p.width, e.width);
        EXPECT_EQ(p.height, e.height);
        EXPECT_EQ(p.cells, std::int64_t(e.width) * e.height);
        EXPECT_EQ(p.runs, e.runs);
        EXPECT_EQ(p.samples, e.samples);
        EXPECT_DOUBLE_EQ(p.median_ms, e.median);
        EXPECT_DOUBLE_EQ(p.min_ms, e.min);
        EXPECT_DOUBLE_EQ(p.max_ms, e.max);
    }
}

TEST(PlotData, SpeedupOverABaseline) {
    const SweepSeries cpu{"cpu", {{512, 512, 512 * 512, 1, 3, 30, 20, 40}, {1024, 1024, 1 << 20, 1, 1, 100, 100, 100}}};
    const SweepSeries gpu{"gpu", {{512, 512, 512 * 512, 1, 3, 3, 2, 6}, {2048, 2048, 1 << 22, 1, 1, 9, 9, 9}}};
    const auto s = speedup_over(cpu, gpu);
    ASSERT_EQ(s.size(), 1u) << "only sizes both series have";
    EXPECT_EQ(s[0].width, 512);
    EXPECT_DOUBLE_EQ(s[0].speedup, 10);
    EXPECT_DOUBLE_EQ(s[0].low, 5);    // 30 / 6
    EXPECT_DOUBLE_EQ(s[0].high, 15);  // 30 / 2
    const auto self = speedup_over(cpu, cpu);
    ASSERT_EQ(self.size(), 2u);
    EXPECT_DOUBLE_EQ(self[1].speedup, 1);
    const SweepSeries zero{"zero", {{512, 512, 512 * 512, 1, 1, 0, 0, 0}}};
    EXPECT_TRUE(speedup_over(cpu, zero).empty()) << "no ratio for a time of zero";
}

TEST(PlotData, CsvHasAHeaderAndOneRowPerPoint) {
    const std::vector<SweepSeries> sweep = {
        {"bfs.cpu.queue", {{512, 512, 262144, 1, 3, 30, 20, 40}}},
        {"bfs.gpu.shared", {{512, 512, 262144, 2, 4, 3, 2, 6}, {1024, 1024, 1048576, 1, 1, 9, 9, 9}}},
    };
    std::ostringstream plain;
    write_sweep_csv(sweep, std::nullopt, plain);
    EXPECT_EQ(plain.str(),
              "variant,width,height,cells,runs,samples,median_ms,min_ms,max_ms\n"
              "bfs.cpu.queue,512,512,262144,1,3,30,20,40\n"
              "bfs.gpu.shared,512,512,262144,2,4,3,2,6\n"
              "bfs.gpu.shared,1024,1024,1048576,1,1,9,9,9\n");
    std::ostringstream with;
    write_sweep_csv(sweep, std::string("bfs.cpu.queue"), with);
    EXPECT_EQ(with.str(),
              "variant,width,height,cells,runs,samples,median_ms,min_ms,max_ms,speedup,speedup_low,speedup_high\n"
              "bfs.cpu.queue,512,512,262144,1,3,30,20,40,1,0.75,1.5\n"
              "bfs.gpu.shared,512,512,262144,2,4,3,2,6,10,5,15\n"
              "bfs.gpu.shared,1024,1024,1048576,1,1,9,9,9,,,\n");
}

}  // namespace
}  // namespace ps::plot
