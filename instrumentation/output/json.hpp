// A small streaming JSON writer (no DOM): CLI --json output, history export and trace export.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ps {

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out, bool pretty = true) : m_out(out), m_pretty(pretty) {}

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view name);

    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
    JsonWriter& value(double number);  // NaN/inf written as null
    JsonWriter& value(std::int64_t number);
    JsonWriter& value(std::uint64_t number);
    JsonWriter& value(int number) { return value(std::int64_t(number)); }
    JsonWriter& value(unsigned number) { return value(std::uint64_t(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();

    template <class T>
    JsonWriter& field(std::string_view name, const T& v) {
        key(name);
        return value(v);
    }

    static std::string escape(std::string_view text);

private:
    void before_value();
    void newline();
    std::ostream& m_out;
    bool m_pretty;
    struct Level {
        bool array;
        bool empty;
    };
    std::vector<Level> m_stack;
    bool m_after_key = false;
};

}  // namespace ps
