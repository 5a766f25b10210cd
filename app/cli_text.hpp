// Small text helpers shared by the pathscope-cli commands: comma lists, CSV fields, counters.
#pragma once

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "instrumentation/output/json.hpp"
#include "kernels/base/expected.hpp"
#include "kernels/run/edges_visited.hpp"

namespace ps::cli {

// Exit codes of every command: 0 done, 1 a validation failed, 2 bad input or a failed run.
inline constexpr int kOk = 0;
inline constexpr int kValidationFailed = 1;
inline constexpr int kBadInput = 2;

// Says what is wrong on stderr ("pathscope-cli: ..."); returns kBadInput.
inline int bad_input(const std::string& message) {
    std::cerr << "pathscope-cli: " << message << "\n";
    return kBadInput;
}

// "a,b,,c" -> {"a", "b", "c"} (empty parts dropped).
inline std::vector<std::string> split(const std::string& text, char sep = ',') {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, sep))
        if (!part.empty()) out.push_back(part);
    return out;
}

// Every occurrence of a repeatable option, each split at commas, in order.
inline std::vector<std::string> split_list(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    for (const auto& item : items)
        for (auto& part : split(item)) out.push_back(std::move(part));
    return out;
}

// Variant parameters given as --param name=value[,name=value..] (every occurrence; a later value
// wins), or the first item that is not name=value.
inline Expected<std::map<std::string, std::string>> param_items(const std::vector<std::string>& occurrences) {
    std::map<std::string, std::string> params;
    for (const auto& item : split_list(occurrences)) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0) return Error{"--param expects name=value, got '" + item + "'"};
        params[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return params;
}

// A bench row's variant as --variant names it: id[:name=value...], the same variant with other
// parameters being another row.
struct VariantSpec {
    std::string id;
    std::map<std::string, std::string> params;
};
inline Expected<VariantSpec> parse_variant_spec(const std::string& spec) {
    VariantSpec out;
    std::stringstream parts(spec);
    std::getline(parts, out.id, ':');
    for (std::string item; std::getline(parts, item, ':');) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            return Error{"--variant " + spec + ": parameters are name=value, got '" + item + "'"};
        out.params[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return out;
}

// Writes a bench's CSV with `write` when --csv gave a path (and says where); kBadInput when the
// file cannot be written, kOk otherwise.
inline int write_csv_to(const std::optional<std::string>& path, const std::function<void(std::ostream&)>& write) {
    if (!path) return kOk;
    std::ofstream out(*path);
    write(out);
    out.flush();
    if (!out) return bad_input("cannot write " + *path);
    std::printf("\nCSV: %s\n", path->c_str());
    return kOk;
}

// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a newline.
inline std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// "  edges visited 1048576  MTEPS 412.3 (median compute)": a BFS run's totals
// (kernels/run/edges_visited.hpp), "-" where no rate was counted (the compute time did not tick).
inline void print_edge_totals(double edges, std::optional<double> mteps) {
    char rate[32] = "-";
    if (mteps) std::snprintf(rate, sizeof rate, "%.4g", *mteps);
    std::printf("  edges visited %.0f  MTEPS %s (median compute)\n", edges, rate);
}

// A traced BFS run's per-level rates (level_rates) in one line, thousands of levels do not fit a
// terminal: "  MTEPS per traced level: median 210, min 12.5 (level 0), max 402 (level 300), 511
// levels". Nothing for none.
inline void print_level_rates(const std::vector<LevelRate>& rates) {
    if (rates.empty()) return;
    const auto [slow, fast] = std::minmax_element(
        rates.begin(), rates.end(), [](const LevelRate& a, const LevelRate& b) { return a.mteps < b.mteps; });
    std::vector<double> values;
    for (const LevelRate& l : rates) values.push_back(l.mteps);
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(values.size() / 2), values.end());
    std::printf("  MTEPS per traced level: median %.4g, min %.4g (level %d), max %.4g (level %d), %zu levels\n",
                values[values.size() / 2], slow->mteps, slow->level, fast->mteps, fast->level, rates.size());
}

// The same rates as JSON: "level_mteps": [{"level", "edges", "ms", "mteps"}, ...] (run --json,
// history show --json). Nothing for none.
inline void write_level_rates_json(JsonWriter& j, const std::vector<LevelRate>& rates) {
    if (rates.empty()) return;
    j.key("level_mteps").begin_array();
    for (const LevelRate& l : rates)
        j.begin_object()
            .field("level", l.level)
            .field("edges", l.edges)
            .field("ms", l.ms)
            .field("mteps", l.mteps)
            .end_object();
    j.end_array();
}

}  // namespace ps::cli
