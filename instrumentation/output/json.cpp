// Streaming JSON writer (see json.hpp).
#include "instrumentation/output/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ps {

std::string JsonWriter::escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    for (unsigned char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += char(c);
            }
        }
    }
    return out;
}

void JsonWriter::newline() {
    if (!m_pretty) return;
    m_out << '\n';
    for (std::size_t i = 0; i < m_stack.size(); ++i) m_out << "  ";
}

void JsonWriter::before_value() {
    if (m_after_key) {
        m_after_key = false;
        return;
    }
    if (m_stack.empty()) return;
    if (!m_stack.back().empty) m_out << ',';
    m_stack.back().empty = false;
    newline();
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    m_out << '{';
    m_stack.push_back({false, true});
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    const bool empty = m_stack.back().empty;
    m_stack.pop_back();
    if (!empty) newline();
    m_out << '}';
    if (m_stack.empty() && m_pretty) m_out << '\n';
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    m_out << '[';
    m_stack.push_back({true, true});
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    const bool empty = m_stack.back().empty;
    m_stack.pop_back();
    if (!empty) newline();
    m_out << ']';
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    before_value();
    m_out << '"' << escape(name) << "\":" << (m_pretty ? " " : "");
    m_after_key = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
    before_value();
    m_out << '"' << escape(text) << '"';
    return *this;
}

JsonWriter& JsonWriter::value(double number) {
    before_value();
    if (!std::isfinite(number)) {
        m_out << "null";
    } else {
        // Shortest text that reads back as the same double.
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, number);
        m_out << std::string_view(buf, ec == std::errc() ? std::size_t(end - buf) : 0);
    }
    return *this;
}

// Integers through to_chars too: operator<< follows the stream's locale, which may group
// digits ("1.234" under de_DE) when a program imbues one.
template <class T>
static std::string_view integer_text(char (&buf)[24], T number) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, number);
    return {buf, ec == std::errc() ? std::size_t(end - buf) : 0};
}

JsonWriter& JsonWriter::value(std::int64_t number) {
    before_value();
    char buf[24];
    m_out << integer_text(buf, number);
    return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
    before_value();
    char buf[24];
    m_out << integer_text(buf, number);
    return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
    before_value();
    m_out << (flag ? "true" : "false");
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    m_out << "null";
    return *this;
}

}  // namespace ps
