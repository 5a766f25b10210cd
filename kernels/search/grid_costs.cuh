// What the GPU grid searches (block A*: grid_astar_kernels.cuh; Jump Point Search:
// kernels/astar/jps/jps_gpu.cu) share of a grid: the moves, the step costs of the two metrics as
// compile-time integers, the octile heuristic in them, and cells packed in 32 bits. Device code
// only (no __constant__ data, so any number of translation units may include it).
#pragma once

#include <cstdint>

namespace ps::gpu::grid_astar {

// Cells travel packed as y << 16 | x (no division on the device; maps are at most 65535 wide
// and high, so 0xFFFFFFFF is never a cell).
__host__ __device__ inline std::uint32_t pack(int x, int y) { return std::uint32_t(y) << 16 | std::uint32_t(x); }

// Moves in the CPU searches' order: E, W, S, N, then SE, SW, NE, NW. Computed, not read from a
// table: the lanes of a warp usually ask for different moves, and constant memory serialises
// different addresses.
__host__ __device__ constexpr int move_dx(int d) { return d < 4 ? (d == 0 ? 1 : d == 1 ? -1 : 0) : (d & 1 ? -1 : 1); }
__host__ __device__ constexpr int move_dy(int d) { return d < 4 ? (d == 2 ? 1 : d == 3 ? -1 : 0) : (d < 6 ? 1 : -1); }
static_assert(move_dx(0) == 1 && move_dx(1) == -1 && move_dy(2) == 1 && move_dy(3) == -1 && move_dx(4) == 1 &&
              move_dy(4) == 1 && move_dx(5) == -1 && move_dy(5) == 1 && move_dx(6) == 1 && move_dy(6) == -1 &&
              move_dx(7) == -1 && move_dy(7) == -1);

// The move d from a cell to its neighbour (dx, dy), each in -1..1: the inverse of move_dx, move_dy.
__host__ __device__ constexpr int direction_of(int dx, int dy) {
    if (dy == 0) return dx > 0 ? 0 : 1;
    if (dx == 0) return dy > 0 ? 2 : 3;
    return dy > 0 ? (dx > 0 ? 4 : 5) : (dx > 0 ? 6 : 7);
}
static_assert(direction_of(move_dx(5), move_dy(5)) == 5 && direction_of(move_dx(2), move_dy(2)) == 2 &&
              direction_of(move_dx(7), move_dy(7)) == 7);

// Whether a diagonal move passes its two corner cells, free (true) or blocked, under `corner`
// (a CornerRule's value: 0 both must be free, MovingAI's rule; 1 one; 2 neither).
__host__ __device__ constexpr bool corner_rule_allows(int corner, bool a, bool b) {
    return corner == 0 ? (a && b) : corner == 1 ? (a || b) : true;
}

// The metrics as compile-time step costs, so that f / orth (the bucket) needs no division, and
// the width of g (Val: the table's values and the search's g and f arithmetic). In 32 bits the
// table's atomics are single shared-memory instructions; 64-bit ones other than compare-and-swap
// are compare-and-swap loops there.
struct IntegerMetric32 {
    using Val = std::uint32_t;
    static constexpr Val orth = 1000, diag = 1414;
};
struct IntegerMetric {
    using Val = unsigned long long;
    static constexpr Val orth = 1000, diag = 1414;
};
// The real metric in steps of 33461 and 47321, a convergent of sqrt(2) (the best approximation
// with so small a denominator), 2.3e-10 relative below it. A path of a orthogonal and b diagonal
// steps costs a + b * 47321 / 33461 orthogonal steps, within 2.3e-10 of a + b sqrt(2), so the
// path the search finds and its cost are within 2.3e-10 relative of the optimum: under the 1e-9
// the validation allows. One unit at both widths, so a cost reads the same from either: in 32
// bits (block A*'s narrow values) g of a path of 45359 diagonal steps reaches the narrow limit;
// in 64 bits g leaves room beside it (GPU JPS packs the step run and direction below g).
template <class V>
struct RealConvergent {
    using Val = V;
    static constexpr Val orth = 33461, diag = 47321;
};
using RealMetric32 = RealConvergent<std::uint32_t>;
using RealMetric = RealConvergent<unsigned long long>;

// The octile heuristic (Manhattan where `eight` is false) in the metric's integers: consistent.
template <class Metric>
__device__ inline typename Metric::Val heuristic(bool eight, int ax, int ay, int bx, int by) {
    using G = typename Metric::Val;
    const G dx = G(abs(ax - bx)), dy = G(abs(ay - by));
    if (!eight) return (dx + dy) * Metric::orth;
    const G lo = dx < dy ? dx : dy, hi = dx < dy ? dy : dx;
    return (hi - lo) * Metric::orth + lo * Metric::diag;
}

}  // namespace ps::gpu::grid_astar
