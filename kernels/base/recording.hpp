// Recordings for the animation: what a search did, step by step, with memory kept bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/base/expected.hpp"

#include "kernels/map/grid_map.hpp"

namespace ps {

// A* / Dijkstra: every open (first insertion or improvement) and close (expansion) event in
// order, tagged with the expansion step and the search direction. On large graphs only every
// `vertex_stride`-th vertex id is recorded (spatial sampling; the GUI draws sampled cells as
// blocks), chosen up front so that the recording stays under a byte budget.
struct SearchRecording {
    // Scanned: a cell a jump passed over without stopping (Jump Point Search's straight and
    // diagonal runs), neither opened nor closed.
    enum Kind : std::uint8_t { Open = 0, Close = 1, Scanned = 2 };
    struct Event {
        Vertex vertex;
        std::uint32_t step;      // expansion step (0-based) at which the event happened
        std::uint8_t kind;       // Kind
        std::uint8_t direction;  // 0 forward, 1 backward (bidirectional searches)
    };
    std::vector<Event> events;
    std::uint32_t vertex_stride = 1;
    std::uint32_t steps = 0;  // number of expansion steps
    bool truncated = false;   // events beyond the hard cap were dropped

    // Picks a stride so that about 4 events per recorded vertex fit into `max_bytes`.
    static std::uint32_t stride_for(std::uint64_t vertex_count, std::uint64_t max_bytes);
    bool wants(Vertex v) const { return vertex_stride <= 1 || v % vertex_stride == 0; }
    void add(Vertex v, std::uint32_t step, Kind kind, std::uint8_t direction);

    std::uint64_t max_events = 0;  // 0 = unbounded
};

// The recordings as bytes (every integer little-endian), as the history stores them and the
// remote protocol sends them:
//  BFS levels: one int32 per vertex (cell index y * width + x): its level, -1 where the search
//      did not reach it.
//  Search events: a SearchRecording. 24-byte header: "PSE1", u32 vertex_stride, u32 steps,
//      u32 flags (bit 0: truncated), u64 event count; then 10 bytes per event in order:
//      u32 vertex, u32 step, u8 kind (0 open, 1 close, 2 scanned), u8 direction (0 forward, 1 backward).
//  Path: one u32 per vertex (cell index), start to goal: the replay's last frame draws it.
std::vector<std::uint8_t> encode_bfs_levels(const std::vector<std::int32_t>& levels);
std::vector<std::uint8_t> encode_path(const std::vector<Vertex>& path);
Expected<std::vector<Vertex>> decode_path(std::span<const std::uint8_t> bytes);
Expected<std::vector<std::int32_t>> decode_bfs_levels(std::span<const std::uint8_t> bytes);
std::vector<std::uint8_t> encode_search_events(const SearchRecording& recording);
Expected<SearchRecording> decode_search_events(std::span<const std::uint8_t> bytes);
// The encoded size of a recording of `events` events.
std::size_t search_events_bytes(std::size_t events);

}  // namespace ps
