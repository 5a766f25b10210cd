// Small maps drawn as rows of text and recorded CPU searches on them, for the animation and
// movie tests: the hand-worked BFS map whose levels test_animation works out cell by cell.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/run/runner.hpp"

namespace ps::test {

// '#' wall. BFS from the goal (0,0), 4-connected; levels worked out by hand:
//   0 1 2 3 4
//   1 # # # 5
//   2 # 8 7 6
//   3 # 7 # 7
//   4 5 6 # 8
inline const std::vector<std::string> kHandWorkedRows = {".....", ".###.", ".#...", ".#.#.", "...#."};

inline std::shared_ptr<const GridMap> mapFromRows(const std::vector<std::string>& rows) {
    GridMap map(int(rows.front().size()), int(rows.size()));
    for (int y = 0; y < map.height(); ++y)
        for (int x = 0; x < map.width(); ++x) map.set_passable(x, y, rows[std::size_t(y)][std::size_t(x)] != '#');
    return std::make_shared<const GridMap>(std::move(map));
}

// A recording run of `variant` from start to goal.
inline RunRequest requestOn(std::shared_ptr<const GridMap> map, const std::string& variant, Cell start, Cell goal,
                            Connectivity connectivity) {
    RunRequest r;
    r.variant_id = variant;
    r.problem.map = map;
    r.problem.rules.connectivity = connectivity;
    r.problem.start = map->index(start);
    r.problem.goal = map->index(goal);
    r.context.record = true;
    return r;
}

inline std::shared_ptr<const RunResult> run(const RunRequest& request) {
    RunReport report = run_variant(request);
    return std::make_shared<const RunResult>(std::move(report.result));
}

}  // namespace ps::test
