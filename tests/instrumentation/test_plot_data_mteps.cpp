// MTEPS in the history plots (instrumentation/output/plot_data.hpp): a BFS run's rate per
// repetition, its sweep (median, min, max), the speedup of a rate (the series over the baseline)
// and the CSV's column names.
#include <gtest/gtest.h>

#include <sstream>

#include "instrumentation/output/plot_data.hpp"

namespace ps::plot {
namespace {

TEST(PlotDataMteps, SamplesAreEdgesOverEachComputeTime) {
    // 2e6 edges in 1 ms = 2000 MTEPS, in 4 ms = 500, in 2 ms = 1000; a time of 0 did not tick.
    const auto samples = mteps_samples(2e6, {1, 4, 0, 2});
    EXPECT_EQ(samples, (std::vector<double>{2000, 500, 1000}));
    EXPECT_TRUE(mteps_samples(0, {1, 2}).empty()) << "no edges counted: no rate";
    // Pooled as times are: median 1000, whiskers 500 and 2000.
    const auto sweep = build_sweep({{"bfs.cpu.queue", 64, 64, true, samples}});
    ASSERT_EQ(sweep.size(), 1u);
    ASSERT_EQ(sweep[0].points.size(), 1u);
    EXPECT_DOUBLE_EQ(sweep[0].points[0].median_ms, 1000);
    EXPECT_DOUBLE_EQ(sweep[0].points[0].min_ms, 500);
    EXPECT_DOUBLE_EQ(sweep[0].points[0].max_ms, 2000);
}

TEST(PlotDataMteps, SpeedupOfARateIsTheSeriesOverTheBaseline) {
    const SweepSeries cpu{"cpu", {{512, 512, 512 * 512, 1, 3, 30, 20, 40}}};
    const SweepSeries gpu{"gpu", {{512, 512, 512 * 512, 1, 3, 300, 150, 600}}};
    const auto s = speedup_over(cpu, gpu, Quantity::Mteps);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_DOUBLE_EQ(s[0].speedup, 10);  // 300 / 30
    EXPECT_DOUBLE_EQ(s[0].low, 5);       // 150 / 30
    EXPECT_DOUBLE_EQ(s[0].high, 20);     // 600 / 30
    // The same numbers as times: the baseline over the series.
    EXPECT_DOUBLE_EQ(speedup_over(cpu, gpu)[0].speedup, 0.1);
}

TEST(PlotDataMteps, CsvNamesTheRateColumns) {
    const std::vector<SweepSeries> sweep = {
        {"bfs.cpu.queue", {{512, 512, 262144, 1, 3, 30, 20, 40}}},
        {"bfs.gpu.shared", {{512, 512, 262144, 2, 4, 300, 150, 600}}},
    };
    std::ostringstream out;
    write_sweep_csv(sweep, std::string("bfs.cpu.queue"), out, Quantity::Mteps);
    EXPECT_EQ(out.str(),
              "variant,width,height,cells,runs,samples,median_mteps,min_mteps,max_mteps,speedup,speedup_low,"
              "speedup_high\n"
              "bfs.cpu.queue,512,512,262144,1,3,30,20,40,1,0.666667,1.33333\n"
              "bfs.gpu.shared,512,512,262144,2,4,300,150,600,10,5,20\n");
}

}  // namespace
}  // namespace ps::plot
