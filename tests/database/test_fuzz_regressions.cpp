// Bugs the fuzz harnesses (tests/fuzz/) found in the history import, one test each (the
// roadmap one is in tests/kernels/graph/test_roadmap.cpp), asserting the
// error a user now gets instead of the crash or the allocation. The inputs that found them are
// replayed too (tests/data/fuzz/<harness>/, ctest fuzz.replay.*).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "database/codec.hpp"
#include "database/history.hpp"
#include "tests/support/history_test_support.hpp"

namespace ps {
namespace {

using db::History;

// history_import: a stored size the blob cannot expand to was allocated first: 512 MB for a
// map row claiming 65535 x 65535 cells, and std::length_error (a crash) for a negative one.
// (wt-hist fixed the same in decompress_bytes meanwhile; the merge keeps its wording.)
TEST(FuzzRegression, DecompressRefusesSizesTheBlobCannotHold) {
    const auto z = db::compress_bytes(std::vector<std::uint8_t>(100, 1));
    for (std::size_t claimed : {std::size_t(536854529), std::numeric_limits<std::size_t>::max()}) {
        auto out = db::decompress_bytes(z, claimed);
        ASSERT_FALSE(out) << claimed;
        EXPECT_NE(out.error().message.find("a compressed blob is damaged (it claims " + std::to_string(claimed) +
                                           " bytes from " + std::to_string(z.size()) + ")"),
                  std::string::npos)
            << out.error().message;
    }
    // The largest expansion deflate can make still decompresses.
    const std::vector<std::uint8_t> zeros(1 << 20, 0);
    const auto dense = db::compress_bytes(zeros, 9);
    auto back = db::decompress_bytes(dense, zeros.size());
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, zeros);
}

TEST(FuzzRegression, HistoryWithHostileSizesReportsDamageInsteadOfAllocating) {
    const std::string path = test::fresh_db("fuzz-hostile-sizes.sqlite");
    std::int64_t run = 0, map_id = 0;
    {
        auto h = History::open(path);
        ASSERT_TRUE(h) << h.error().message;
        auto m = h->save_map(test::test_map(12, 9, 1));
        ASSERT_TRUE(m) << m.error().message;
        map_id = *m;
        run = test::store_test_run(*h, map_id);
        ASSERT_TRUE(h->add_recording(run, "levels", std::vector<std::uint8_t>(3000, 5)));
    }
    {
        test::RawDb raw(path);
        ASSERT_EQ(raw.exec("UPDATE maps SET width = 65535, height = 65535; UPDATE recordings SET raw_size = -1"),
                  SQLITE_OK);
    }
    auto h = History::open(path, db::OpenMode::ReadOnly);
    ASSERT_TRUE(h) << h.error().message;
    auto map = h->load_map(map_id);
    ASSERT_FALSE(map);
    EXPECT_NE(
        map.error().message.find("map " + std::to_string(map_id) + " in " + path + ": a compressed blob is damaged"),
        std::string::npos)
        << map.error().message;
    auto recording = h->load_recording(run, "levels");
    ASSERT_FALSE(recording);
    EXPECT_NE(recording.error().message.find("the 'levels' recording of run " + std::to_string(run) + " in " + path +
                                             " is damaged (a chunk claims -1 bytes"),
              std::string::npos)
        << recording.error().message;
    // Importing it is refused as a whole, naming the damaged map.
    auto target = History::open(test::fresh_db("fuzz-hostile-sizes-target.sqlite"));
    ASSERT_TRUE(target) << target.error().message;
    auto imported = target->import_from(path);
    ASSERT_FALSE(imported);
    EXPECT_NE(imported.error().message.find("a compressed blob is damaged"), std::string::npos)
        << imported.error().message;
}

}  // namespace
}  // namespace ps
