// Command-line parsing for pathscope-cli: "--name value", "--name=value" and boolean flags,
// checked against the options a command accepts so a typo is an error, not a silent default.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/base/expected.hpp"
#include "kernels/map/grid_map.hpp"

namespace ps::cli {

struct OptionSpec {
    std::set<std::string> with_value;  // e.g. "map", "variant"
    std::set<std::string> flags;       // e.g. "json"
    std::set<std::string> repeatable;  // options that may be given several times
    // Options whose value may be left out ("--corner-cutting" or "--corner-cutting any"): the
    // next argument is their value unless it starts with "--". Left out, the value is empty.
    std::set<std::string> optional_value = {};
};

class Args {
public:
    static Expected<Args> parse(const std::vector<std::string>& argv, const OptionSpec& spec);

    bool has(const std::string& name) const { return m_values.count(name) > 0; }
    std::optional<std::string> get(const std::string& name) const;
    std::vector<std::string> all(const std::string& name) const;
    const std::vector<std::string>& positional() const { return m_positional; }
    // The options given, by name (without "--"), sorted.
    std::vector<std::string> names() const;

    Expected<long long> integer(const std::string& name, long long fallback, long long min, long long max) const;
    Expected<double> number(const std::string& name, double fallback) const;
    // --corner-cutting [none|one|any]: absent is the MovingAI rule (none), alone is "one".
    Expected<CornerRule> corner_rule() const;

private:
    std::map<std::string, std::vector<std::string>> m_values;
    std::vector<std::string> m_positional;
};

// A map file as the command's options read it: .pgm/.png as obstacles (--threshold T) or cell
// costs (--costs), a .map with MovingAI's swamp and water letters at --swamp-cost/--water-cost.
Expected<GridMap> read_map_file(const Args& args, const std::string& path);

}  // namespace ps::cli
