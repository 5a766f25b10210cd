// Parsing helpers shared by the text file readers (MovingAI maps and scenarios, roadmaps):
// a line reader, whole-field number parsing and user text quoted safely for error messages.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ps::text {

// Splits text into lines on '\n' only, so CRLF and LF files read alike once callers trim '\r';
// a missing final newline still yields the last line. Line numbers are 1-based and 64-bit
// because a 4 GiB file of blank lines would overflow an int.
class LineReader {
public:
    explicit LineReader(std::string_view text) : m_text(text) {}

    std::optional<std::string_view> next() {
        if (m_pos >= m_text.size()) return std::nullopt;
        const std::size_t end = m_text.find('\n', m_pos);
        const std::size_t stop = end == std::string_view::npos ? m_text.size() : end;
        std::string_view line = m_text.substr(m_pos, stop - m_pos);
        m_pos = end == std::string_view::npos ? m_text.size() : end + 1;
        ++m_line;
        return line;
    }
    // Line number of the line last returned by next(); 0 before the first.
    long long line() const { return m_line; }
    std::size_t remaining() const { return m_text.size() - m_pos; }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    long long m_line = 0;
};

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
