// Command-line parsing (see cli_args.hpp).
#include "app/cli_args.hpp"

#include "kernels/map/image_map.hpp"
#include "kernels/map/map_io.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ps::cli {

Expected<Args> Args::parse(const std::vector<std::string>& argv, const OptionSpec& spec) {
    Args args;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
            args.m_positional.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name.resize(eq);
        }
        if (spec.optional_value.count(name)) {
            std::string value;
            if (inline_value && inline_value->empty())
                return Error{"option --" + name + "= needs a value after '=' (or no '=')"};
            if (inline_value)
                value = *inline_value;
            else if (i + 1 < argv.size() && argv[i + 1].compare(0, 2, "--") != 0)
                value = argv[++i];
            if (args.m_values.count(name)) return Error{"option --" + name + " given more than once"};
            args.m_values[name].push_back(value);
        } else if (spec.flags.count(name)) {
            if (inline_value) return Error{"option --" + name + " takes no value"};
            args.m_values[name].push_back("1");
        } else if (spec.with_value.count(name)) {
            std::string value;
            if (inline_value) {
                value = *inline_value;
            } else if (i + 1 < argv.size()) {
                value = argv[++i];
            } else {
                return Error{"option --" + name + " needs a value"};
            }
            if (args.m_values.count(name) && !spec.repeatable.count(name))
                return Error{"option --" + name + " given more than once"};
            args.m_values[name].push_back(value);
        } else {
            return Error{"unknown option --" + name};
        }
    }
    return args;
}

std::vector<std::string> Args::names() const {
    std::vector<std::string> out;
    for (const auto& [name, values] : m_values) out.push_back(name);
    return out;
}

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = m_values.find(name);
    if (it == m_values.end()) return std::nullopt;
    return it->second.back();
}

std::vector<std::string> Args::all(const std::string& name) const {
    auto it = m_values.find(name);
    return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

Expected<long long> Args::integer(const std::string& name, long long fallback, long long min, long long max) const {
    auto text = get(name);
    if (!text) return fallback;
    long long v = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size())
        return Error{"--" + name + " expects an integer, got '" + *text + "'"};
    if (v < min || v > max)
        return Error{"--" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                     ", got " + *text};
    return v;
}

Expected<double> Args::number(const std::string& name, double fallback) const {
    auto text = get(name);
    if (!text) return fallback;
    char* end = nullptr;
    const double v = std::strtod(text->c_str(), &end);
    if (text->empty() || end != text->c_str() + text->size() || !std::isfinite(v))
        return Error{"--" + name + " expects a number, got '" + *text + "'"};
    return v;
}

Expected<CornerRule> Args::corner_rule() const {
    auto text = get("corner-cutting");
    if (!text) return CornerRule::None;
    if (text->empty()) return CornerRule::One;
    if (auto rule = parse_corner_rule(*text)) return *rule;
    return Error{"--corner-cutting expects none, one or any (or no value: one), got '" + *text + "'"};
}

Expected<GridMap> read_map_file(const Args& args, const std::string& path) {
    if (is_image_map_path(path)) {
        for (const char* option : {"swamp-cost", "water-cost"})
            if (args.has(option))
                return Error{std::string("--") + option + " reads MovingAI letters; it does nothing with the image " +
                             path};
        auto threshold = args.integer("threshold", 128, 1, 255);
        if (!threshold) return threshold.error();
        if (args.has("costs") && args.has("threshold"))
            return Error{"--threshold sorts grey levels into walls and free cells; with --costs every level is a cost"};
        return read_image_map(path, ImageMapOptions{args.has("costs"), int(*threshold)});
    }
    for (const char* option : {"costs", "threshold"})
        if (args.has(option))
            return Error{std::string("--") + option + " reads grey levels of a .pgm or .png image, not " + path};
    auto swamp = args.integer("swamp-cost", 1, 0, kMaxCellCost);
    if (!swamp) return swamp.error();
    auto water = args.integer("water-cost", 0, 0, kMaxCellCost);
    if (!water) return water.error();
    return read_movingai_map(path, TerrainCosts{std::uint8_t(*swamp), std::uint8_t(*water)});
}

}  // namespace ps::cli
