// The list of built-in variants: adding a variant is new files plus one line here.
#include "kernels/run/variant.hpp"
#include "kernels/astar/astar_baseline_variants.hpp"
#include "kernels/astar/astar_block_variants.hpp"
#include "kernels/astar/astar_variants.hpp"
#include "kernels/batch/batch_cpu_variants.hpp"
#include "kernels/batch/batch_gpu_variants.hpp"
#include "kernels/batch/batch_grid_variants.hpp"
#include "kernels/bfs/bfs_bidir.hpp"
#include "kernels/bfs/bfs_variants.hpp"
#include "kernels/search/cpu_variants.hpp"
#include "kernels/flowfield/flowfield_variants.hpp"
#include "kernels/astar/jps/jps_gpu_variant.hpp"
#include "kernels/astar/tile/tile_astar_variant.hpp"

namespace ps {

const Registry& Registry::instance() {
    static const Registry registry = [] {
        Registry r;
        r.add(make_bfs_cpu_sweep());
        r.add(make_bfs_cpu_queue());
        r.add(make_bfs_cpu_bidir());
        r.add(make_dijkstra_cpu());
        r.add(make_astar_cpu());
        r.add(make_astar_cpu_bidir());
        r.add(make_wastar_cpu());
        r.add(make_greedy_cpu());
        r.add(make_astar_cpu_buckets());
        r.add(make_jps_cpu());
        r.add(make_batch_cpu());
        add_bfs_gpu_variants(r);
        add_astar_gpu_variants(r);
        add_astar_gpu_baseline_variants(r);
        add_astar_block_variant(r);
        add_jps_gpu_variant(r);
        add_tile_astar_variant(r);
        add_batch_gpu_variants(r);
        add_batch_grid_variant(r);
        add_flowfield_variants(r);
        return r;
    }();
    return registry;
}

}  // namespace ps
