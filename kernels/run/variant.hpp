// The one variant interface: every search (CPU or GPU, BFS, A*, batched, flow field) is a
// Variant with a stable id, described by VariantInfo, that turns a Problem into a RunResult
// with per-phase timings. The runner (runner.hpp) adds repetitions, statistics and
// validation against the variant's CPU reference; the CLI and the GUI call only the runner.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "instrumentation/capture/cupti_capture.hpp"
#include "kernels/search/cpu_search.hpp"
#include "kernels/graph/graph.hpp"
#include "kernels/map/grid_map.hpp"
#include "kernels/base/phase_times.hpp"
#include "kernels/base/recording.hpp"

namespace ps {

// Batch: many agents' searches at once (Problem::agents on Problem::batch_graph()).
// FlowField: one search from the goal over the whole map, a direction per cell.
enum class Family : std::uint8_t { Bfs, ShortestPath, Batch, FlowField };
enum class DeviceKind : std::uint8_t { Cpu, Gpu };
std::string_view to_string(Family f);
std::string_view to_string(DeviceKind d);

// A variant parameter, declared once: what values it takes. The runner checks every value a
// problem sets against its spec before Variant::run (one message format, naming the variant
// once); variants read checked values through ParamValues, with no parsing of their own.
struct ParamSpec {
    enum class Kind : std::uint8_t { Int, Flag, Choice };
    std::string name;
    std::string default_value;
    std::string description;
    Kind kind = Kind::Int;
    std::int64_t min = 0, max = 0;     // Int: accepted range, inclusive
    std::int64_t multiple_of = 1;      // Int: and a multiple of this
    std::vector<std::string> choices;  // Choice: the accepted values, in the order to offer them
};
ParamSpec int_param(std::string name, std::string default_value, std::string description, std::int64_t min,
                    std::int64_t max, std::int64_t multiple_of = 1);
ParamSpec flag_param(std::string name, std::string default_value, std::string description);  // 0 or 1
ParamSpec choice_param(std::string name, std::string default_value, std::string description,
                       std::vector<std::string> choices);
// The values a spec offers as a list (choices, or 0 and 1 for a flag); empty for integers.
std::vector<std::string> offered_values(const ParamSpec& spec);
// What is wrong with `value` for `spec` ("block_size must be one of 128, 256, 512, 1024, got
// '300'"), or nullopt when it is accepted.
std::optional<std::string> check_param(const ParamSpec& spec, std::string_view value);

struct VariantInfo {
    std::string id;  // stable, e.g. "bfs.cpu.queue"
    Family family = Family::ShortestPath;
    DeviceKind device = DeviceKind::Cpu;
    std::string description;   // one line for lists and tooltips
    std::string reference_id;  // CPU variant whose result this one is validated against
    std::vector<ParamSpec> params;
    // Searches weighted terrain (cells costing 1..255, GridMap::weighted()) exactly. The runner
    // refuses a weighted map to the others, naming the ones that take it.
    bool cell_costs = false;
};

// The variant's parameter called `name`, or null when it declares none by that name.
const ParamSpec* find_param(const VariantInfo& info, std::string_view name);

// A search problem on a grid map (or, later, a roadmap graph). BFS variants search from the
// goal (the BFS paper's "target") over the whole graph, optionally stopping at the start.
class Problem {
public:
    Problem();

    std::shared_ptr<const GridMap> map;
    MoveRules rules;  // BFS uses rules.connectivity (the paper: 4-connected)
    CostMode cost_mode = CostMode::Real;
    Heuristic heuristic = Heuristic::Octile;
    Vertex start = kNoVertex;
    Vertex goal = kNoVertex;
    bool bfs_stop_at_start = false;
    std::map<std::string, std::string> params;  // variant parameters by ParamSpec::name

    // Batch family. A weighted roadmap (CsrGraph with coords) to search; null: the map's grid
    // graph under `rules` weighted in `cost_mode` (built once, cached like bfs_graph()).
    std::shared_ptr<const CsrGraph> roadmap;
    // (start, goal) per agent, as vertex ids of batch_graph() (roadmap node ids, or cell ids).
    std::vector<std::pair<Vertex, Vertex>> agents;
    Expected<std::shared_ptr<const CsrGraph>> batch_graph() const;

    // Unweighted CSR of the map under `rules`, built once per problem and shared by copies
    // (graph construction is not part of any variant's measured phases, as in the paper).
    Expected<std::shared_ptr<const CsrGraph>> bfs_graph() const;

    // Per-map data a variant derives once for every copy of the problem (a preprocessing step:
    // a scenario file's queries are copies of one problem), under `name` and keyed by the map
    // and the rules: `make` builds it on first use; *built says whether this call did.
    std::shared_ptr<const void> derived(const std::string& name,
                                        const std::function<std::shared_ptr<const void>()>& make,
                                        bool* built = nullptr) const;

    // Human-readable checks: map present, start/goal inside and passable where needed.
    Expected<void> check(Family family) const;

private:
    struct Cache;
    std::shared_ptr<Cache> m_cache;
};

// Why `info` cannot search the problem's map, or nullopt: a weighted map (cells costing more than
// 1) for a variant that ignores cell costs. The message names the variants that take them.
std::optional<std::string> weighted_terrain_refusal(const VariantInfo& info, const Problem& problem);

// A variant's parameters as a problem sets them, read typed: the problem's value where it
// sets one, else the declared default. The runner has checked every value; a value that does
// not parse (a variant run directly, bypassing the runner) reads as the default.
class ParamValues {
public:
    ParamValues(const VariantInfo& info, const Problem& problem) : m_info(info), m_problem(problem) {}
    std::int64_t integer(std::string_view name) const;
    bool flag(std::string_view name) const;
    const std::string& text(std::string_view name) const;  // a Choice's value

private:
    const ParamSpec& spec(std::string_view name) const;
    const VariantInfo& m_info;
    const Problem& m_problem;
};

// Every parameter the problem sets, against the variant's specs: the first problem found
// ("block_size must be one of ...", "unknown parameter 'x' (it takes ...)"), or nothing.
Expected<void> check_params(const VariantInfo& info, const Problem& problem);

enum class RunStatus : std::uint8_t { Ok, Error, Cancelled, Unavailable };
enum class Validation : std::uint8_t { NotRun, Passed, Failed, Reference };
std::string_view to_string(RunStatus s);
std::string_view to_string(Validation v);

// Device-side level stamps of a GPU run (tracing on): what CUPTI cannot see in a tail-launch
// chain or inside a persistent kernel.
struct DeviceStamps {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> levels;  // (entry, exit), %globaltimer ns
    std::string kernel;          // name fragment of the host-launched kernel(s) that stamped, in order
    bool tail_launched = false;  // levels after the first were launched on the device
    std::string unit = "level";  // "level", or "round" for the tiled BFS
};

// When each agent's search ran, and where (batch family, tracing on): what the timeline draws
// as the load of every SM (GPU) or worker thread (CPU) over the run. One entry per agent in
// Problem::agents order; start_ns/end_ns on the device clock (%globaltimer) for GPU runs, on
// the host's steady clock for CPU runs.
struct AgentSpans {
    std::vector<std::uint64_t> start_ns, end_ns;
    std::vector<std::uint32_t> lane;  // SM id (GPU) or worker thread index (CPU)
    std::string lane_unit;            // "SM" or "thread"
    bool device_clock = false;        // true: %globaltimer; anchor on `kernel` like DeviceStamps
    std::string kernel;               // name fragment of the kernel(s) the searches ran in
    bool empty() const { return start_ns.empty(); }
};

struct RunResult {
    RunStatus status = RunStatus::Ok;
    std::string message;  // error / unavailability reason
    PhaseTimes phases;
    // Shortest-path family (BFS too: cost = level of the start, path along decreasing levels).
    bool found = false;
    double cost = 0;
    // Suboptimal searches say what they promise: the cost is at most this times the optimum
    // (weighted A*: w; greedy best-first: infinity, any path). Unset: the optimum itself.
    std::optional<double> cost_bound;
    std::vector<Vertex> path;
    std::uint64_t expanded = 0;
    // BFS family.
    std::int32_t levels = 0;
    std::uint64_t visited = 0;
    std::vector<std::int32_t> bfs_levels;  // per vertex; kept for validation and animation
    // bfs_levels holds only the levels up to its deepest one (a search that stopped early, such
    // as the target half of a bidirectional BFS); deeper vertices read kUnreached.
    bool bfs_levels_prefix = false;
    // Batch family: one entry per agent in Problem::agents order; cost -1 when unreachable.
    std::vector<double> agent_costs;
    std::vector<std::uint32_t> agent_steps;  // expansions per agent: the load strategies balance
    AgentSpans agent_spans;                  // with tracing on: when and where each agent ran
    // FlowField family: bfs_levels holds every cell's distance to the goal (BFS levels on plain
    // 4-connected maps, else the integer metric weighted by cell costs; -1 unreachable or blocked)
    // and flow_dirs the direction to step in (see kernels/flowfield/flowfield.hpp; 255 = none).
    std::vector<std::uint8_t> flow_dirs;
    // Free-form counters (e.g. "host_launches", "device_launches").
    std::map<std::string, double> counters;
    std::shared_ptr<SearchRecording> recording;  // A*-style animation (BFS: bfs_levels)
    DeviceStamps stamps;
    Validation validation = Validation::NotRun;
    std::string validation_message;
};

// A run counter (RunResult::counters), 0 when the variant does not report it.
inline double counter_value(const std::map<std::string, double>& counters, const char* name) {
    const auto it = counters.find(name);
    return it == counters.end() ? 0.0 : it->second;
}

// A result that says why the run did not happen (or was cancelled): nothing else filled in.
// Variants never name themselves in `message`: the runner prefixes "id: " to every error.
RunResult failed_run(std::string message, RunStatus status = RunStatus::Error);

// What a GPU driver's output (a struct with `cancelled` and `error`) says before its results:
// a cancelled run, a failed one with the driver's message, or nullopt when the results are there.
template <class Output>
std::optional<RunResult> gpu_run_outcome(const Output& out) {
    if (out.cancelled) {
        RunResult cancelled;
        cancelled.status = RunStatus::Cancelled;
        return cancelled;
    }
    if (!out.error.empty()) return failed_run(out.error);
    return std::nullopt;
}

struct RunContext {
    bool record = false;
    trace::TraceLevel trace = trace::TraceLevel::Off;  // the runner traces one extra repetition
    std::uint64_t recording_budget_bytes = 256ull << 20;
    const std::atomic<bool>* cancel = nullptr;
};

class Variant {
public:
    virtual ~Variant() = default;
    virtual const VariantInfo& info() const = 0;
    // Why this variant cannot run here (no GPU, ...), or nullopt when it can.
    virtual std::optional<std::string> unavailable_reason() const { return std::nullopt; }
    virtual RunResult run(const Problem& problem, const RunContext& context) const = 0;
    // What a run of `problem` will take, said before it starts (the GPU batch variants: the
    // memory plan, and whether the agents are split into several launches), or nullopt.
    virtual std::optional<std::string> preview(const Problem& /*problem*/) const { return std::nullopt; }
};

// Base of the GPU variants: unavailable, with the driver's or runtime's reason, where this
// process cannot use a GPU (kernels/gpu/gpu_info.hpp).
class GpuVariant : public Variant {
public:
    std::optional<std::string> unavailable_reason() const override;
};

// All variants, in registration order. Variants register in registry.cpp (one line each).
class Registry {
public:
    static const Registry& instance();
    const Variant* find(std::string_view id) const;
    const std::vector<std::unique_ptr<Variant>>& all() const { return m_variants; }
    void add(std::unique_ptr<Variant> variant);

private:
    std::vector<std::unique_ptr<Variant>> m_variants;
};

}  // namespace ps
