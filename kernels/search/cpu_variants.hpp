// Factories for the CPU variants (the references every GPU variant is validated against).
#pragma once

#include <memory>

#include "kernels/run/variant.hpp"

namespace ps {

std::unique_ptr<Variant> make_bfs_cpu_sweep();
std::unique_ptr<Variant> make_bfs_cpu_queue();
std::unique_ptr<Variant> make_dijkstra_cpu();
std::unique_ptr<Variant> make_astar_cpu();
std::unique_ptr<Variant> make_astar_cpu_bidir();
std::unique_ptr<Variant> make_wastar_cpu();         // weighted A*, parameter w
std::unique_ptr<Variant> make_greedy_cpu();         // greedy best-first
std::unique_ptr<Variant> make_astar_cpu_buckets();  // A* with a bucket queue (integer metric)
std::unique_ptr<Variant> make_jps_cpu();            // Jump Point Search

}  // namespace ps
