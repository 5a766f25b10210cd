// A strict JSON reader for the small documents the history keeps as text (a run's parameters and
// counters), so stored runs can be rebuilt without Qt. Histories are imported from elsewhere, so
// the text may be anything: the reader accepts exactly RFC 8259 JSON, bounds its size and
// nesting, and says what is wrong and where instead of throwing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/base/expected.hpp"

namespace ps {

struct JsonMember;

struct JsonValue {
    enum class Type : std::uint8_t { Null, Bool, Number, String, Array, Object };
    Type type = Type::Null;
    bool boolean = false;
    double number = 0;
    // A string's value (UTF-8, escapes resolved), or a number as written, so integers beyond
    // 2^53 can be read exactly.
    std::string text;
    std::vector<JsonValue> items;     // an array's
    std::vector<JsonMember> members;  // an object's, in the order written

    bool is(Type t) const { return type == t; }
    // An object's member; when a key repeats, the last one counts (as in most readers).
    // Null for a missing key or a value that is not an object.
    const JsonValue* find(std::string_view key) const;

    // Typed reads with a fallback, for fields that may be missing or of another type (a newer or
    // older writer): the fallback unless the value has that type.
    bool bool_or(bool fallback) const { return type == Type::Bool ? boolean : fallback; }
    // The fallback also for a number that is not a whole number within int's range.
    int int_or(int fallback) const;
    std::string string_or(std::string_view fallback) const {
        return type == Type::String ? text : std::string(fallback);
    }
};

// A named struct rather than a std::pair: a pair of an incomplete type cannot be a member of
// the type it completes (clang refuses; the fuzz build uses clang).
struct JsonMember {
    std::string key;
    JsonValue value;
};

// "a string", "an object", ...: for messages.
std::string_view describe(JsonValue::Type type);

struct JsonLimits {
    // The documents read are a few hundred bytes; anything near this is damage or an attack.
    std::size_t max_bytes = 256 * 1024;
    // Nesting of arrays and objects: each level is a stack frame of the reader.
    int max_depth = 32;
};

// One JSON value with optional white space around it. Errors (ErrorKind::Invalid) say what was
// expected and where: "expected ':' after an object key at line 1, column 9".
Expected<JsonValue> parse_json(std::string_view text, const JsonLimits& limits = {});

}  // namespace ps
