// The maps in sample_maps/ (generated or drawn by this project): every file reads, and the
// hand-drawn lecture map gives the distances worked out by hand.
#include <gtest/gtest.h>

#include <filesystem>

#include "kernels/search/cpu_search.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/map_io.hpp"
#include "kernels/graph/roadmap.hpp"

namespace ps {
namespace {

const std::filesystem::path kSamples = std::filesystem::path(PATHSCOPE_SOURCE_DIR) / "sample_maps";

TEST(SampleMaps, EveryFileReads) {
    int maps = 0, roadmaps = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kSamples)) {
        const auto ext = entry.path().extension();
        SCOPED_TRACE(entry.path().string());
        if (ext == ".map") {
            const auto map = read_movingai_map(entry.path().string());
            ASSERT_TRUE(map.ok()) << map.error().message;
            EXPECT_GT(map->cell_count(), 0u);
            ++maps;
        } else if (ext == ".roadmap") {
            const auto roadmap = read_roadmap(entry.path());
            ASSERT_TRUE(roadmap.ok()) << roadmap.error().message;
            EXPECT_TRUE(check_graph(roadmap->graph).ok());
            ++roadmaps;
        }
    }
    EXPECT_GE(maps, 6);
    EXPECT_GE(roadmaps, 1);
}

// lecture-16x8.map: a wall along row 4 (x 2..12) with a spur down x = 10 and a block at
// x 7..8, rows 2..3. From the bottom-left corner (0,7) to the top-right (15,0) a 4-connected
// path can follow row 7 and then column 15, both free: 15 + 7 = 22 steps, the Manhattan
// distance, so no path is shorter. The cell (11,5), in the pocket right of the spur, is
// 4 + 2 = 6 steps from (15,7): along row 7 to x 11, then up two.
TEST(SampleMaps, LectureMapDistancesByHand) {
    const auto map = read_movingai_map((kSamples / "lecture-16x8.map").string());
    ASSERT_TRUE(map.ok()) << map.error().message;
    const auto graph = grid_to_csr(*map, MoveRules{Connectivity::Four, CornerRule::None}, std::nullopt);
    ASSERT_TRUE(graph.ok()) << graph.error().message;
    const BfsOutput from_goal = bfs_queue(*graph, map->index(15, 0), kNoVertex);
    EXPECT_EQ(from_goal.levels[map->index(0, 7)], 22);
    const BfsOutput from_corner = bfs_queue(*graph, map->index(15, 7), kNoVertex);
    EXPECT_EQ(from_corner.levels[map->index(11, 5)], 6);
}

}  // namespace
}  // namespace ps
