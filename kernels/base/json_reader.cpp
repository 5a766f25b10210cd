// The strict JSON reader (see json_reader.hpp): recursive descent over the text, one function
// per production of RFC 8259, with the depth bounded before each recursion.
#include "kernels/base/json_reader.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <system_error>
#include <utility>

namespace ps {
namespace {

class Parser {
public:
    Parser(std::string_view text, const JsonLimits& limits) : m_s(text), m_limits(limits) {}

    Expected<JsonValue> document() {
        if (m_s.size() > m_limits.max_bytes)
            return Error{"the JSON text is " + std::to_string(m_s.size()) + " bytes, more than the " +
                         std::to_string(m_limits.max_bytes) + " it may have"};
        JsonValue v;
        skip_space();
        if (!value(v, 0)) return error();
        skip_space();
        if (m_pos < m_s.size()) {
            fail("unexpected " + what_is_here() + " after the JSON value");
            return error();
        }
        return v;
    }

private:
    // The first failure wins: callers return false up the stack without adding their own.
    bool fail(std::string what) {
        if (m_error.empty()) {
            m_error = std::move(what);
            m_error_pos = m_pos;
        }
        return false;
    }

    Error error() const {
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < m_error_pos && i < m_s.size(); ++i) {
            if (m_s[i] == '\n')
                ++line, column = 1;
            else
                ++column;
        }
        return Error{m_error + " at line " + std::to_string(line) + ", column " + std::to_string(column)};
    }

    std::string what_is_here() const {
        if (m_pos >= m_s.size()) return "end of text";
        const auto c = static_cast<unsigned char>(m_s[m_pos]);
        if (c >= 0x21 && c < 0x7F) return std::string("'") + char(c) + "'";
        static constexpr char kHex[] = "0123456789abcdef";
        return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
    }

    bool at(char c) const { return m_pos < m_s.size() && m_s[m_pos] == c; }
    bool at_digit() const { return m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9'; }

    void skip_space() {
        while (m_pos < m_s.size() &&
               (m_s[m_pos] == ' ' || m_s[m_pos] == '\t' || m_s[m_pos] == '\n' || m_s[m_pos] == '\r'))
            ++m_pos;
    }

    bool value(JsonValue& v, int depth) {
        if (m_pos >= m_s.size()) return fail("expected a value, found the end of the text");
        switch (m_s[m_pos]) {
        case '{':
            return object(v, depth + 1);
        case '[':
            return array(v, depth + 1);
        case '"':
            v.type = JsonValue::Type::String;
            return string(v.text);
        case 't':
            v.type = JsonValue::Type::Bool;
            v.boolean = true;
            return literal("true");
        case 'f':
            v.type = JsonValue::Type::Bool;
            return literal("false");
        case 'n':
            return literal("null");
        default:
            if (at('-') || at_digit()) return number(v);
            return fail("expected a value, found " + what_is_here());
        }
    }

    bool literal(std::string_view word) {
        if (m_s.substr(m_pos, word.size()) != word) return fail("expected '" + std::string(word) + "'");
        m_pos += word.size();
        return true;
    }

    bool digits(const char* what) {
        if (!at_digit()) return fail(std::string("expected a digit ") + what + ", found " + what_is_here());
        while (at_digit()) ++m_pos;
        return true;
    }

    bool number(JsonValue& v) {
        const std::size_t from = m_pos;
        if (at('-')) ++m_pos;
        if (at('0')) {
            ++m_pos;  // no leading zeros: "01" is not JSON
        } else if (!digits("in the number")) {
            return false;
        }
        if (at('.')) {
            ++m_pos;
            if (!digits("after the decimal point")) return false;
        }
        if (at('e') || at('E')) {
            ++m_pos;
            if (at('+') || at('-')) ++m_pos;
            if (!digits("in the exponent")) return false;
        }
        const std::string_view text = m_s.substr(from, m_pos - from);
        // from_chars, not strtod: the C library follows the process locale (a decimal comma).
        double d = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d)) {
            m_pos = from;
            return fail("the number " + std::string(text) + " is out of range");
        }
        v.type = JsonValue::Type::Number;
        v.number = d;
        v.text = std::string(text);
        return true;
    }

    // Four hex digits after "\u".
    bool hex4(std::uint32_t& code) {
        code = 0;
        for (int i = 0; i < 4; ++i, ++m_pos) {
            if (m_pos >= m_s.size()) return fail("expected four hex digits after \\u");
            const char c = m_s[m_pos];
            std::uint32_t digit;
            if (c >= '0' && c <= '9')
                digit = std::uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f')
                digit = std::uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                digit = std::uint32_t(c - 'A' + 10);
            else
                return fail("expected four hex digits after \\u, found " + what_is_here());
            code = code * 16 + digit;
        }
        return true;
    }

    static void append_utf8(std::string& out, std::uint32_t code) {
        if (code < 0x80) {
            out += char(code);
        } else if (code < 0x800) {
            out += char(0xC0 | (code >> 6));
            out += char(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += char(0xE0 | (code >> 12));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        } else {
            out += char(0xF0 | (code >> 18));
            out += char(0x80 | ((code >> 12) & 0x3F));
            out += char(0x80 | ((code >> 6) & 0x3F));
            out += char(0x80 | (code & 0x3F));
        }
    }

    // After the backslash of "\u": one code point, a surrogate pair taken together.
    bool unicode_escape(std::string& out) {
        ++m_pos;  // 'u'
        const std::size_t start = m_pos - 2;
        std::uint32_t code;
        if (!hex4(code)) return false;
        if (code >= 0xDC00 && code <= 0xDFFF) {
            m_pos = start;
            return fail("a \\u escape holds the second half of a surrogate pair without the first");
        }
        if (code >= 0xD800 && code <= 0xDBFF) {
            std::uint32_t low = 0;
            if (m_s.substr(m_pos, 2) != "\\u" || (m_pos += 2, !hex4(low)) || low < 0xDC00 || low > 0xDFFF) {
                m_pos = start;
                return fail("a \\u escape holds the first half of a surrogate pair without the second");
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, code);
        return true;
    }

    // Bytes from 0x80 up are kept as they are: the writer passes them through unchecked, and
    // what it wrote must read back.
    bool string(std::string& out) {
        ++m_pos;  // opening quote
        while (m_pos < m_s.size()) {
            const char c = m_s[m_pos];
            if (c == '"') {
                ++m_pos;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20)
                return fail("a control character (" + what_is_here() + ") in a string");
            if (c != '\\') {
                out += c;
                ++m_pos;
                continue;
            }
            if (++m_pos >= m_s.size()) break;
            switch (m_s[m_pos]) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u':
                if (!unicode_escape(out)) return false;
                continue;
            default:
                return fail("an unknown escape in a string: a backslash before " + what_is_here());
            }
            ++m_pos;
        }
        return fail("a string is not closed (no '\"' before the end of the text)");
    }

    bool enter(int depth) {
        if (depth > m_limits.max_depth)
            return fail("arrays and objects are nested deeper than " + std::to_string(m_limits.max_depth) + " levels");
        return true;
    }

    bool array(JsonValue& v, int depth) {
        if (!enter(depth)) return false;
        ++m_pos;  // '['
        v.type = JsonValue::Type::Array;
        skip_space();
        if (at(']')) return ++m_pos, true;
        for (;;) {
            skip_space();
            v.items.emplace_back();
            if (!value(v.items.back(), depth)) return false;
            skip_space();
            if (at(']')) return ++m_pos, true;
            if (!at(',')) return fail("expected ',' or ']' in an array, found " + what_is_here());
            ++m_pos;
        }
    }

    bool object(JsonValue& v, int depth) {
        if (!enter(depth)) return false;
        ++m_pos;  // '{'
        v.type = JsonValue::Type::Object;
        skip_space();
        if (at('}')) return ++m_pos, true;
        for (;;) {
            skip_space();
            if (!at('"')) return fail("expected a key in quotes, found " + what_is_here());
            std::string key;
            if (!string(key)) return false;
            skip_space();
            if (!at(':')) return fail("expected ':' after an object key, found " + what_is_here());
            ++m_pos;
            skip_space();
            v.members.push_back({std::move(key), JsonValue{}});
            if (!value(v.members.back().value, depth)) return false;
            skip_space();
            if (at('}')) return ++m_pos, true;
            if (!at(',')) return fail("expected ',' or '}' in an object, found " + what_is_here());
            ++m_pos;
        }
    }

    std::string_view m_s;
    JsonLimits m_limits;
    std::size_t m_pos = 0;
    std::string m_error;
    std::size_t m_error_pos = 0;
};

}  // namespace

const JsonValue* JsonValue::find(std::string_view key) const {
    if (type != Type::Object) return nullptr;
    for (auto it = members.rbegin(); it != members.rend(); ++it)
        if (it->key == key) return &it->value;
    return nullptr;
}

int JsonValue::int_or(int fallback) const {
    if (type != Type::Number || number < double(INT_MIN) || number > double(INT_MAX)) return fallback;
    const int i = int(number);
    return double(i) == number ? i : fallback;
}

std::string_view describe(JsonValue::Type type) {
    switch (type) {
    case JsonValue::Type::Null:
        return "null";
    case JsonValue::Type::Bool:
        return "a boolean";
    case JsonValue::Type::Number:
        return "a number";
    case JsonValue::Type::String:
        return "a string";
    case JsonValue::Type::Array:
        return "an array";
    case JsonValue::Type::Object:
        return "an object";
    }
    return "?";
}

Expected<JsonValue> parse_json(std::string_view text, const JsonLimits& limits) {
    return Parser(text, limits).document();
}

}  // namespace ps
