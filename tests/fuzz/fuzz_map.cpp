// libFuzzer harness: MovingAI .map text and PathScope's weighted 'costs' text
// (parse_movingai_map), the reader people feed with downloaded maps. An accepted map must fit
// the bytes that described it (no allocation beyond what the input justifies), hold cells of 0/1
// when read from letters, and survive a write/read round trip unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/map/map_io.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto map = ps::parse_movingai_map(text, "in.map");
    if (!map) {
        FUZZ_CHECK(map.error().message.rfind("in.map", 0) == 0, "error without the file name: %s",
                   map.error().message.c_str());
        return 0;
    }
    const std::uint64_t cells = std::uint64_t(map->width()) * std::uint64_t(map->height());
    FUZZ_CHECK(map->width() >= 1 && map->height() >= 1, "accepted a %dx%d map", map->width(), map->height());
    FUZZ_CHECK(map->cells().size() == cells, "%zu cells for %dx%d", map->cells().size(), map->width(), map->height());
    FUZZ_CHECK(cells <= size, "%llu cells from %zu bytes", (unsigned long long)cells, size);
    // Letters give 0/1; only the 'costs' body gives higher costs.
    if (text.find("costs") == std::string_view::npos)
        for (std::uint8_t c : map->cells()) FUZZ_CHECK(c <= 1, "cell value %u from letters", unsigned(c));

    const std::string written = ps::format_movingai_map(*map);
    auto back = ps::parse_movingai_map(written, "written.map");
    FUZZ_CHECK(back, "the written map does not read back: %s", back.error().message.c_str());
    FUZZ_CHECK(back->width() == map->width() && back->height() == map->height(), "size changed in the round trip");
    FUZZ_CHECK(back->cells() == map->cells(), "cells changed in the round trip");
    return 0;
}
