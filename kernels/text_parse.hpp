// Parsing helpers shared by the text file readers (MovingAI maps and scenarios, roadmaps):
// whole-field number parsing and user text quoted safely for error messages.
#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace ps::text {

// Quotes user text in messages, cut short so that a binary file does not flood the terminal.
inline std::string quote(std::string_view s) {
    constexpr std::size_t kMax = 40;
    std::string out = "'";
    for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
        const auto u = static_cast<unsigned char>(s[i]);
        out += (u >= 0x20 && u < 0x7F) ? s[i] : '?';
    }
    if (s.size() > kMax) out += "...";
    return out + "'";
}

// The whole field as an integer, or nullopt (empty, trailing text, out of range; from_chars
// also rejects a leading '+', which none of our formats uses).
template <class Int>
std::optional<Int> parse_int(std::string_view s) {
    Int value{};
    const auto* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (ec != std::errc() || ptr != end || s.empty()) return std::nullopt;
    return value;
}

// The whole field as a double (inf and nan included), or nullopt.
inline std::optional<double> parse_double(std::string_view s) {
    double value = 0;
    const auto* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (ec != std::errc() || ptr != end || s.empty()) return std::nullopt;
    return value;
}

// The whole field as a finite double, or nullopt.
inline std::optional<double> parse_finite(std::string_view s) {
    const auto value = parse_double(s);
    return value && std::isfinite(*value) ? value : std::nullopt;
}

}  // namespace ps::text
