// Full tracing on the GPU (skips without one): the host loop of bfs.gpu.shared shows one
// kernel record per level, the tail chain of bfs.gpu.dp one device level span per level, no
// CUPTI record is dropped, and every phase has its NVTX range.
#include <gtest/gtest.h>

#include <set>

#include "instrumentation/capture/cupti_capture.hpp"
#include "instrumentation/timeline/trace_stats.hpp"
#include "kernels/map/generators.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/run/runner.hpp"

namespace ps {
namespace {

// NVTX reaches CUPTI only if the injection path is set before the process's first NVTX call.
class NvtxInjection : public ::testing::Environment {
public:
    void SetUp() override {
        if (gpu_info().available) trace::prepare_nvtx_injection();
    }
};
const auto* const kNvtxInjection = ::testing::AddGlobalTestEnvironment(new NvtxInjection);

RunReport traced_run(const std::string& id) {
    GeneratorParams p;
    p.kind = GeneratorKind::Empty;
    p.width = p.height = 512;
    RunRequest request;
    request.variant_id = id;
    request.problem.map = std::make_shared<const GridMap>(generate_map(p).value());
    request.problem.rules.connectivity = Connectivity::Four;
    request.problem.goal = 0;
    request.repeat = 2;
    request.context.trace = trace::TraceLevel::Full;
    return run_variant(request);
}

std::size_t count(const trace::Timeline& t, trace::EventKind kind, const std::string& name_part = "") {
    std::size_t n = 0;
    for (const auto& e : t.events) n += e.kind == kind && e.name.find(name_part) != std::string::npos;
    return n;
}

TEST(TraceGpu, HostLoopAndTailChainAt512) {
    if (!gpu_info().available) GTEST_SKIP() << "no GPU: " << gpu_info().reason;
    for (const char* id : {"bfs.gpu.shared", "bfs.gpu.dp"}) {
        const RunReport r = traced_run(id);
        ASSERT_EQ(r.result.status, RunStatus::Ok) << id << ": " << r.result.message;
        ASSERT_TRUE(r.timeline) << id << ": " << r.trace_message;
        const trace::Timeline& t = *r.timeline;
        const std::size_t levels = std::size_t(r.result.levels);
        EXPECT_EQ(levels, 1023u);
        EXPECT_EQ(t.dropped_records, 0u) << id;
        EXPECT_EQ(count(t, trace::EventKind::DeviceLevel), levels) << id;
        if (std::string(id) == "bfs.gpu.shared") {
            EXPECT_EQ(count(t, trace::EventKind::Kernel, "shared_level"), levels);
        } else {
            EXPECT_EQ(count(t, trace::EventKind::Kernel, "dp_level"), 1u);  // CUPTI sees the host launch only
            std::size_t tail = 0;
            for (const auto& e : t.events) tail += e.kind == trace::EventKind::DeviceLevel && e.device_launched;
            EXPECT_EQ(tail, levels - 1);
        }
        std::set<std::string> ranges;
        for (const auto& e : t.events)
            if (e.kind == trace::EventKind::Nvtx) ranges.insert(e.name);
        for (const char* phase : {"allocate", "upload", "compute", "download"})
            EXPECT_TRUE(ranges.count(phase)) << id << " lacks the NVTX range " << phase;
        const trace::Summary s = trace::summarize(t);
        std::printf("[ %s ] %s\n", id, trace::describe(s).c_str());
    }
}

// bfs.gpu.graph runs its levels as the body of a conditional WHILE node: CUPTI reports every
// execution of the body's kernel nodes as a kernel record with its graph and node ids, and the
// summary counts the graph launches (host calls) apart from those node executions.
TEST(TraceGpu, GraphNodeExecutionsAreKernelRecordsWithTheirNodeIds) {
    if (!gpu_info().available) GTEST_SKIP() << "no GPU: " << gpu_info().reason;
    const RunReport r = traced_run("bfs.gpu.graph");
    ASSERT_EQ(r.result.status, RunStatus::Ok) << r.result.message;
    ASSERT_TRUE(r.timeline) << r.trace_message;
    const trace::Timeline& t = *r.timeline;
    std::size_t node_kernels = 0;
    std::set<std::uint64_t> nodes, graphs;
    for (const auto& e : t.events)
        if (e.kind == trace::EventKind::Kernel && e.graph_node_id != 0) {
            ++node_kernels;
            nodes.insert(e.graph_node_id);
            graphs.insert(e.graph_id);
        }
    const trace::TraceSummary s = trace::trace_summary(t);
    EXPECT_EQ(s.graph_node_executions, node_kernels);
    EXPECT_GE(node_kernels, std::size_t(r.result.levels)) << "a node execution per level at least";
    EXPECT_GE(s.graph_launches, 1u);
    EXPECT_LT(s.graph_launches, node_kernels);
    EXPECT_EQ(graphs.size(), 1u);
    std::printf("[ bfs.gpu.graph ] %zu graph launches, %zu node executions of %zu distinct nodes, %d levels\n",
                s.graph_launches, node_kernels, nodes.size(), r.result.levels);
}

// Whether CUPTI reports the kernels a tail launch starts (CUPTI_ACTIVITY_KIND_CDP_KERNEL): if it
// does they are kernel records marked device-launched, one per tail-launched level; if not, the
// timeline carries the capture's note saying so and why, and the levels come from the stamps.
TEST(TraceGpu, DeviceLaunchedKernelsOrTheReasonTheyAreMissing) {
    if (!gpu_info().available) GTEST_SKIP() << "no GPU: " << gpu_info().reason;
    const RunReport r = traced_run("bfs.gpu.dp");
    ASSERT_EQ(r.result.status, RunStatus::Ok) << r.result.message;
    ASSERT_TRUE(r.timeline) << r.trace_message;
    const trace::Timeline& t = *r.timeline;
    std::size_t cdp = 0, tail_levels = 0;
    for (const auto& e : t.events) {
        cdp += e.kind == trace::EventKind::Kernel && e.device_launched;
        tail_levels += e.kind == trace::EventKind::DeviceLevel && e.device_launched;
    }
    if (cdp > 0) {
        EXPECT_EQ(cdp, tail_levels);
        std::printf("[ bfs.gpu.dp ] CUPTI reported %zu device-launched kernels\n", cdp);
    } else {
        ASSERT_FALSE(t.notes.empty()) << "no CDP records and no note saying why";
        EXPECT_NE(t.notes.front().find("CUPTI_ACTIVITY_KIND_CDP_KERNEL"), std::string::npos) << t.notes.front();
        std::printf("[ bfs.gpu.dp ] %s\n", t.notes.front().c_str());
    }
}

}  // namespace
}  // namespace ps
