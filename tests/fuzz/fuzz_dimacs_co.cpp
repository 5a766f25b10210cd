// libFuzzer harness: DIMACS .co coordinate files, read with their .gr (parse_dimacs). The input
// is "GR\0CO": the .gr before the first NUL byte, the .co after it; without a NUL the whole
// input is the .co of a fixed four-node graph. Accepted coordinates are finite, one per node,
// and the node count is justified by the arcs or the coordinate lines.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kernels/graph/roadmap.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = input.find('\0');
    const std::string_view gr = nul == std::string_view::npos ? "p sp 4 2\na 1 2 3\na 3 4 5\n" : input.substr(0, nul);
    const std::string_view co = nul == std::string_view::npos ? input : input.substr(nul + 1);
    auto roadmap = ps::parse_dimacs(gr, "in.gr", co, "in.co");
    if (!roadmap) {
        const std::string& m = roadmap.error().message;
        FUZZ_CHECK(m.rfind("in.gr", 0) == 0 || m.rfind("in.co", 0) == 0, "error without the file name: %s", m.c_str());
        return 0;
    }
    const ps::CsrGraph& g = roadmap->graph;
    const auto ok = ps::check_graph(g);
    FUZZ_CHECK(ok, "accepted a graph that fails check_graph: %s", ok.error().message.c_str());
    FUZZ_CHECK(g.coords.size() == g.vertex_count(), "%zu coords for %u nodes", g.coords.size(), g.vertex_count());
    for (const ps::Point3& p : g.coords)
        FUZZ_CHECK(std::isfinite(p.x) && std::isfinite(p.y) && p.z == 0, "coordinate not finite");
    // A 'v' line is at least "v 1 0 0" (7 bytes).
    FUZZ_CHECK(std::uint64_t(g.vertex_count()) * 7 <= co.size() + 1, "%u nodes from a %zu-byte .co", g.vertex_count(),
               co.size());
    const double scale = ps::euclidean_heuristic_scale(g);
    FUZZ_CHECK(scale >= 0 && std::isfinite(scale), "heuristic scale %g", scale);
    (void)ps::nearest_node(*roadmap, 0, 0);
    return 0;
}
