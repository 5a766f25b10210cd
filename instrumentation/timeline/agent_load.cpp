// Agent spans -> "agents in flight" tracks and the imbalance summary (see agent_load.hpp).
#include "instrumentation/timeline/agent_load.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace ps::trace {
namespace {

std::int64_t end_of(const AgentSpanView& s, std::size_t i) {
    return std::int64_t(std::max(s.start_ns[i], s.end_ns[i]));
}

// The agents that were stamped: an end of 0 means the search never ran (as a level's exit stamp
// in device_levels.cpp), and would stretch the run back to the clock's epoch.
std::vector<std::size_t> stamped(const AgentSpanView& s) {
    const std::size_t n = std::min({s.start_ns.size(), s.end_ns.size(), s.lane.size()});
    std::vector<std::size_t> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        if (s.end_ns[i] != 0) out.push_back(i);
    return out;
}

// Agents in flight per bin (mean over the bin), from overlaps: O(agents + bins).
class LoadBins {
public:
    LoadBins(std::int64_t t0, std::int64_t width, std::size_t count)
        : m_t0(t0), m_width(width), m_partial(count, 0.0), m_whole(count, 0) {}

    // Partial first and last bins get the nanoseconds they cover; the whole bins between go
    // through a difference array, summed up in finish().
    void add(std::int64_t start, std::int64_t end) {
        const std::size_t b0 = bin(start), b1 = bin(end);
        if (b0 == b1) {
            m_partial[b0] += double(end - start);
            return;
        }
        m_partial[b0] += double(bin_start(b0 + 1) - start);
        m_partial[b1] += double(end - bin_start(b1));
        ++m_whole[b0 + 1];
        --m_whole[b1];
    }
    // Mean agents in flight per bin; the last bin ends at `last`.
    std::vector<double> finish(std::int64_t last) const {
        std::vector<double> out(m_partial.size());
        std::int64_t whole = 0;
        for (std::size_t b = 0; b < out.size(); ++b) {
            whole += m_whole[b];
            const std::int64_t length = std::min(bin_start(b + 1), last) - bin_start(b);
            out[b] = double(whole) + (length > 0 ? m_partial[b] / double(length) : 0.0);
        }
        return out;
    }

private:
    std::size_t bin(std::int64_t t) const { return std::min(std::size_t((t - m_t0) / m_width), m_partial.size() - 1); }
    std::int64_t bin_start(std::size_t b) const { return m_t0 + std::int64_t(b) * m_width; }

    std::int64_t m_t0, m_width;
    std::vector<double> m_partial;      // agent nanoseconds in bins an agent covers in part
    std::vector<std::int64_t> m_whole;  // difference array of agents covering whole bins
};

std::string load_name(double load) {
    char text[48];
    std::snprintf(text, sizeof text, "%.4g agents in flight", load);
    return text;
}

std::string lane_name(std::string_view unit, std::uint32_t lane) {
    return std::string(unit) + ' ' + std::to_string(lane);
}

}  // namespace

std::int64_t device_span_offset(const Timeline& t, std::string_view kernel, const AgentSpanView& spans,
                                std::int64_t fallback_ns) {
    std::uint64_t earliest_start_ns = 0;
    for (std::size_t i : stamped(spans))
        earliest_start_ns = earliest_start_ns ? std::min(earliest_start_ns, spans.start_ns[i]) : spans.start_ns[i];
    std::optional<std::int64_t> anchor;
    if (!kernel.empty())
        for (const Event& e : t.events)
            if (e.kind == EventKind::Kernel && e.name.find(kernel) != std::string::npos)
                anchor = std::min(anchor.value_or(e.start_ns), e.start_ns);
    return anchor.value_or(fallback_ns) - std::int64_t(earliest_start_ns);
}

std::size_t add_agent_load(Timeline& t, const AgentSpanView& spans, std::int64_t offset_ns, int bins) {
    const std::vector<std::size_t> agents = stamped(spans);
    if (agents.empty() || bins < 1) return 0;
    std::int64_t first = end_of(spans, agents.front()), last = first;
    for (std::size_t i : agents) {
        first = std::min(first, std::int64_t(spans.start_ns[i]));
        last = std::max(last, end_of(spans, i));
    }
    const std::int64_t span = std::max<std::int64_t>(last - first, 1);
    const std::int64_t width = (span + bins - 1) / bins;
    const auto count = std::size_t((span + width - 1) / width);

    // Lanes sorted by id, the overall track first: what the view draws top to bottom.
    std::map<std::uint32_t, LoadBins> lanes;
    LoadBins all(first, width, count);
    for (std::size_t i : agents) {
        const auto start = std::int64_t(spans.start_ns[i]), end = end_of(spans, i);
        lanes.try_emplace(spans.lane[i], first, width, count).first->second.add(start, end);
        all.add(start, end);
    }
    const std::size_t before = t.events.size();
    auto add_track = [&](const LoadBins& load, std::uint64_t id, std::string name) {
        const std::uint32_t track = t.add_track(TrackKind::AgentLanes, id, std::move(name));
        const std::vector<double> mean = load.finish(first + span);
        for (std::size_t b = 0; b < mean.size();) {
            std::size_t e = b + 1;
            while (e < mean.size() && mean[e] == mean[b]) ++e;  // a run of equal bins is one event
            if (mean[b] > 0) {
                Event ev;
                ev.kind = EventKind::AgentLoad;
                ev.name = load_name(mean[b]);
                ev.track = track;
                ev.start_ns = first + std::int64_t(b) * width + offset_ns;
                ev.end_ns = std::min(first + std::int64_t(e) * width, first + span) + offset_ns;
                ev.load = mean[b];
                t.events.push_back(std::move(ev));
            }
            b = e;
        }
    };
    add_track(all, kAllLanes, "agents in flight");
    for (const auto& [lane, load] : lanes) add_track(load, lane, lane_name(spans.lane_unit, lane));
    return t.events.size() - before;
}

AgentLoadSummary summarize_agent_load(const AgentSpanView& spans) {
    AgentLoadSummary s;
    const std::vector<std::size_t> agents = stamped(spans);
    const std::size_t n = agents.size();
    s.agents = n;
    s.lane_unit = spans.lane_unit;
    if (n == 0) return s;
    std::vector<std::int64_t> ends;
    ends.reserve(n);
    std::map<std::uint32_t, std::int64_t> lane_done;
    std::int64_t first = end_of(spans, agents.front());
    for (std::size_t i : agents) {
        ends.push_back(end_of(spans, i));
        first = std::min(first, std::int64_t(spans.start_ns[i]));
        auto [it, inserted] = lane_done.try_emplace(spans.lane[i], ends.back());
        if (!inserted) it->second = std::max(it->second, ends.back());
    }
    std::sort(ends.begin(), ends.end());
    const double span = double(ends.back() - first);
    s.span_ms = span / 1e6;
    s.lanes = lane_done.size();
    // The nearest rank: the time by which ceil(p n) agents had finished.
    auto done = [&](int percent) {
        const std::size_t rank = std::max<std::size_t>(1, (std::size_t(percent) * n + 99) / 100);
        return span > 0 ? double(ends[rank - 1] - first) / span : 1.0;
    };
    s.done_50 = done(50);
    s.done_90 = done(90);
    s.done_99 = done(99);
    s.done_100 = done(100);
    // Relative to the first start: %globaltimer values near 1.7e18 lose 256 ns steps in a double.
    const std::int64_t tail = first + std::int64_t(std::floor(0.9 * span));
    s.running_last_10 = std::size_t(ends.end() - std::upper_bound(ends.begin(), ends.end(), tail));
    const auto [lo, hi] = std::minmax_element(lane_done.begin(), lane_done.end(),
                                              [](const auto& a, const auto& b) { return a.second < b.second; });
    s.first_lane_done_ms = double(lo->second - first) / 1e6;
    s.last_lane_done_ms = double(hi->second - first) / 1e6;
    return s;
}

std::string describe(const AgentLoadSummary& s) {
    if (s.agents == 0) return "agent load: no agents";
    char text[320];
    std::snprintf(text, sizeof text,
                  "agent load: 50%% of agents done at %.0f%% of the run (%.1f ms), 90%% at %.0f%%, 99%% at %.0f%%; "
                  "%zu agent%s still running in the last 10%%; %zu %s%s finished between %.1f and %.1f ms",
                  100 * s.done_50, s.span_ms, 100 * s.done_90, 100 * s.done_99, s.running_last_10,
                  s.running_last_10 == 1 ? "" : "s", s.lanes, s.lane_unit.c_str(), s.lanes == 1 ? "" : "s",
                  s.first_lane_done_ms, s.last_lane_done_ms);
    return text;
}

}  // namespace ps::trace
