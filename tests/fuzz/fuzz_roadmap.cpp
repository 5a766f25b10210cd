// libFuzzer harness: the text roadmap format (parse_roadmap_text). An accepted roadmap must pass
// its own structural checks, hold no more nodes than the text has lines for, and write out to a
// text that reads back to the same text (so nothing is lost or invented in a round trip); the
// queries the CLI runs on a loaded roadmap (components, heuristic scale, nearest node) run too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/graph/roadmap.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto roadmap = ps::parse_roadmap_text(text, "in.roadmap");
    if (!roadmap) {
        FUZZ_CHECK(roadmap.error().message.rfind("in.roadmap:", 0) == 0, "error without the file name: %s",
                   roadmap.error().message.c_str());
        return 0;
    }
    const ps::CsrGraph& g = roadmap->graph;
    const auto ok = ps::check_graph(g);
    FUZZ_CHECK(ok, "accepted a graph that fails check_graph: %s", ok.error().message.c_str());
    FUZZ_CHECK(g.coords.size() == g.vertex_count(), "%zu coords for %u nodes", g.coords.size(), g.vertex_count());
    // A node line is at least "0 0\n" (the last one may lack the newline).
    FUZZ_CHECK(std::uint64_t(g.vertex_count()) * 4 <= size + 1, "%u nodes from %zu bytes", g.vertex_count(), size);
    FUZZ_CHECK(roadmap->node_cells.empty() || roadmap->node_cells.size() == g.vertex_count(), "node_cells size");

    const ps::Components c = ps::connected_components(g);
    FUZZ_CHECK(c.label.size() == g.vertex_count() && c.count <= g.vertex_count(), "components");
    (void)ps::euclidean_heuristic_scale(g);
    const ps::Vertex nearest = ps::nearest_node(*roadmap, 0.5, 0.5);
    FUZZ_CHECK(g.vertex_count() == 0 ? nearest == ps::kNoVertex : nearest < g.vertex_count(), "nearest node");

    const std::string written = ps::format_roadmap_text(*roadmap);
    auto back = ps::parse_roadmap_text(written, "written.roadmap");
    FUZZ_CHECK(back, "the written roadmap does not read back: %s", back.error().message.c_str());
    FUZZ_CHECK(back->graph.vertex_count() == g.vertex_count() && back->graph.edge_count() == g.edge_count(),
               "round trip: %u/%llu nodes/arcs became %u/%llu", g.vertex_count(), (unsigned long long)g.edge_count(),
               back->graph.vertex_count(), (unsigned long long)back->graph.edge_count());
    FUZZ_CHECK(ps::format_roadmap_text(*back) == written, "the round trip changed the roadmap");
    return 0;
}
