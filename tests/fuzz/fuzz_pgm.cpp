// libFuzzer harness: grey PGM images read as maps (parse_pgm_map), as cell costs and as obstacles.
// An accepted image must fit the bytes that described it, give the same walls both ways at the
// threshold 1 (level 0 blocked), and name the input in every error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/map/image_map.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto costs = ps::parse_pgm_map(bytes, "in.pgm", {.costs = true});
    auto walls = ps::parse_pgm_map(bytes, "in.pgm", {.costs = false, .threshold = 1});
    FUZZ_CHECK(bool(costs) == bool(walls), "accepted as costs %d, as obstacles %d", int(bool(costs)), int(bool(walls)));
    if (!costs) {
        FUZZ_CHECK(costs.error().message.rfind("in.pgm", 0) == 0, "error without the file name: %s",
                   costs.error().message.c_str());
        return 0;
    }
    const std::uint64_t cells = std::uint64_t(costs->width()) * std::uint64_t(costs->height());
    FUZZ_CHECK(costs->cells().size() == cells, "%zu cells for %dx%d", costs->cells().size(), costs->width(),
               costs->height());
    FUZZ_CHECK(cells <= size, "%llu cells from %zu bytes", (unsigned long long)cells, size);
    for (std::size_t i = 0; i < cells; ++i) {
        FUZZ_CHECK(walls->cells()[i] <= 1, "obstacle cell %u", unsigned(walls->cells()[i]));
        FUZZ_CHECK((costs->cells()[i] == 0) == (walls->cells()[i] == 0), "cell %zu: cost %u but obstacle %u", i,
                   unsigned(costs->cells()[i]), unsigned(walls->cells()[i]));
    }
    return 0;
}
