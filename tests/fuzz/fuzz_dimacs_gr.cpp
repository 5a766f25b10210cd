// libFuzzer harness: DIMACS .gr graphs (parse_dimacs without a .co), as downloaded from the 9th
// DIMACS challenge. An accepted graph passes its structural checks and has no more nodes than
// its arcs mention (two per arc): the 'p sp N M' header alone sizes nothing.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kernels/graph/roadmap.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto roadmap = ps::parse_dimacs(text, "in.gr", std::nullopt, "");
    if (!roadmap) {
        FUZZ_CHECK(roadmap.error().message.rfind("in.gr", 0) == 0, "error without the file name: %s",
                   roadmap.error().message.c_str());
        return 0;
    }
    const ps::CsrGraph& g = roadmap->graph;
    const auto ok = ps::check_graph(g);
    FUZZ_CHECK(ok, "accepted a graph that fails check_graph: %s", ok.error().message.c_str());
    FUZZ_CHECK(g.coords.empty(), "coordinates without a .co");
    FUZZ_CHECK(std::uint64_t(g.vertex_count()) <= 2 * g.edge_count(), "%u nodes but %llu arcs", g.vertex_count(),
               (unsigned long long)g.edge_count());
    // An arc line is at least "a 1 1 0" (7 bytes).
    FUZZ_CHECK(g.edge_count() * 7 <= size, "%llu arcs from %zu bytes", (unsigned long long)g.edge_count(), size);
    const ps::Components c = ps::connected_components(g);
    FUZZ_CHECK(c.label.size() == g.vertex_count(), "components");
    return 0;
}
