// The strict JSON reader of stored run parameters: what it accepts (hand-decoded values, the
// JsonWriter's own output), what it refuses and where it says the fault is, and its limits on
// size and nesting for files that come from elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "kernels/base/json_reader.hpp"
#include "instrumentation/output/json.hpp"

namespace ps {
namespace {

using ps::JsonValue;
using ps::parse_json;
using Type = JsonValue::Type;

TEST(JsonReader, ReadsEveryKindOfValue) {
    auto v = parse_json(R"( {"n": -12.5e1, "t": true, "f": false, "z": null, "s": "a\"b\\c\/d",
                           "a": [1, [], {}], "o": {"k": "v"}} )");
    ASSERT_TRUE(v) << v.error().message;
    ASSERT_TRUE(v->is(Type::Object));
    ASSERT_EQ(v->members.size(), 7u);
    EXPECT_EQ(v->members[0].key, "n");  // the order written
    EXPECT_EQ(v->find("n")->number, -125.0);
    EXPECT_EQ(v->find("n")->text, "-12.5e1");
    EXPECT_TRUE(v->find("t")->is(Type::Bool));
    EXPECT_TRUE(v->find("t")->boolean);
    EXPECT_FALSE(v->find("f")->boolean);
    EXPECT_TRUE(v->find("z")->is(Type::Null));
    EXPECT_EQ(v->find("s")->text, "a\"b\\c/d");
    const JsonValue& a = *v->find("a");
    ASSERT_EQ(a.items.size(), 3u);
    EXPECT_EQ(a.items[0].number, 1.0);
    EXPECT_TRUE(a.items[1].is(Type::Array) && a.items[1].items.empty());
    EXPECT_TRUE(a.items[2].is(Type::Object) && a.items[2].members.empty());
    EXPECT_EQ(v->find("o")->find("k")->text, "v");
    EXPECT_EQ(v->find("missing"), nullptr);
    EXPECT_EQ(a.find("k"), nullptr);  // not an object
}

TEST(JsonReader, DecodesEscapesToUtf8) {
    // \u00e9 is two UTF-8 bytes, \u20ac three, the pair \ud83d\ude00 (U+1F600) four.
    auto v = parse_json(R"("\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00\u0000")");
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_EQ(v->text, std::string("\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") + '\0');
    // Bytes from 0x80 up pass as they are, valid UTF-8 or not: the writer does not check them.
    auto raw = parse_json("\"caf\xC3\xA9 \xFF\"");
    ASSERT_TRUE(raw) << raw.error().message;
    EXPECT_EQ(raw->text, "caf\xC3\xA9 \xFF");
}

TEST(JsonReader, ReadsBackWhatTheWriterWrites) {
    std::ostringstream text;
    JsonWriter j(text);  // pretty: new lines and indentation
    const std::string awkward = std::string("quote \" backslash \\ tab \t newline \n bell \a nul ") + '\0' + " end";
    j.begin_object().field("awkward", awkward).field("big", std::uint64_t(18446744073709551615ull));
    j.field("negative", std::int64_t(-9007199254740993)).field("third", 1.0 / 3).field("nan", std::nan(""));
    j.key("list").begin_array().value(true).null().value("x").end_array().end_object();
    auto v = parse_json(text.str());
    ASSERT_TRUE(v) << v.error().message << "\n" << text.str();
    EXPECT_EQ(v->find("awkward")->text, awkward);
    EXPECT_EQ(v->find("big")->text, "18446744073709551615");  // exact, beyond a double's 2^53
    EXPECT_EQ(v->find("negative")->text, "-9007199254740993");
    EXPECT_EQ(v->find("third")->number, 1.0 / 3);
    EXPECT_TRUE(v->find("nan")->is(Type::Null));
    ASSERT_EQ(v->find("list")->items.size(), 3u);
    EXPECT_EQ(v->find("list")->items[2].text, "x");
}

TEST(JsonReader, TypedReadsFallBackOnOtherTypes) {
    auto v = parse_json(R"({"i": 4, "big": 3e10, "frac": 2.5, "neg": -7, "s": "4", "b": true, "dup": 1, "dup": 2})");
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_EQ(v->find("i")->int_or(8), 4);
    EXPECT_EQ(v->find("neg")->int_or(8), -7);
    EXPECT_EQ(v->find("big")->int_or(8), 8);   // beyond int
    EXPECT_EQ(v->find("frac")->int_or(8), 8);  // not whole
    EXPECT_EQ(v->find("s")->int_or(8), 8);     // a string, even of digits
    EXPECT_EQ(v->find("s")->string_or("-"), "4");
    EXPECT_EQ(v->find("i")->string_or("-"), "-");
    EXPECT_TRUE(v->find("b")->bool_or(false));
    EXPECT_TRUE(v->find("i")->bool_or(true));
    EXPECT_FALSE(v->find("i")->bool_or(false));
    EXPECT_EQ(v->find("dup")->int_or(0), 2);  // the last of a repeated key
}

TEST(JsonReader, RefusesWhatIsNotJson) {
    for (const char* bad : {"",
                            "   ",
                            "{",
                            "}",
                            "[1,]",
                            "[1 2]",
                            R"({"a":1,})",
                            "{a:1}",
                            R"({"a" 1})",
                            "{'a':1}",
                            "01",
                            "-",
                            "1.",
                            ".5",
                            "1e",
                            "+1",
                            "0x10",
                            "NaN",
                            "Infinity",
                            "1e999",
                            R"("\x")",
                            R"("\u12")",
                            R"("\ud800")",
                            R"("\udc00")",
                            R"("\ud800\u0041")",
                            "\"a\nb\"",
                            "\"open",
                            "nul",
                            "tru",
                            "[1] 2",
                            "{} {}",
                            "[true false]",
                            "\"a\"\"b\""}) {
        auto v = parse_json(bad);
        EXPECT_FALSE(v) << "accepted: " << bad;
        if (!v) {
            EXPECT_EQ(v.error().kind, ErrorKind::Invalid) << bad;
            EXPECT_NE(v.error().message.find(" at line "), std::string::npos) << v.error().message;
        }
    }
}

TEST(JsonReader, SaysWhatIsWrongAndWhere) {
    auto missing_colon = parse_json(R"({"repeat" 3})");
    ASSERT_FALSE(missing_colon);
    EXPECT_EQ(missing_colon.error().message, "expected ':' after an object key, found '3' at line 1, column 11");
    auto second_line = parse_json("{\n  \"a\": [1,\n  2,]\n}");
    ASSERT_FALSE(second_line);
    EXPECT_EQ(second_line.error().message, "expected a value, found ']' at line 3, column 5");
    auto tail = parse_json("{} x");
    ASSERT_FALSE(tail);
    EXPECT_EQ(tail.error().message, "unexpected 'x' after the JSON value at line 1, column 4");
    auto control = parse_json("\"a\tb\"");
    ASSERT_FALSE(control);
    EXPECT_EQ(control.error().message, "a control character (byte 0x09) in a string at line 1, column 3");
    auto surrogate = parse_json(R"(["ok", "x\udc00"])");
    ASSERT_FALSE(surrogate);
    EXPECT_EQ(surrogate.error().message,
              "a \\u escape holds the second half of a surrogate pair without the first at line 1, column 10");
}

TEST(JsonReader, BoundsNestingAndSize) {
    const JsonLimits limits{1000, 4};
    EXPECT_TRUE(parse_json("[[[[1]]]]", limits));
    EXPECT_TRUE(parse_json(R"({"a":{"b":[{"c":1}]}})", limits));
    auto deep = parse_json("[[[[[1]]]]]", limits);
    ASSERT_FALSE(deep);
    EXPECT_EQ(deep.error().message, "arrays and objects are nested deeper than 4 levels at line 1, column 5");
    // Far deeper than any stack would take, with the default limits: refused, not a crash.
    const std::string abyss(1'000'000, '[');
    auto bottomless = parse_json(abyss, {2'000'000, 32});
    ASSERT_FALSE(bottomless);
    EXPECT_NE(bottomless.error().message.find("nested deeper than 32 levels"), std::string::npos);

    const std::string big = "\"" + std::string(998, 'x') + "\"";
    EXPECT_TRUE(parse_json(big, limits));
    auto too_big = parse_json(big + " ", limits);
    ASSERT_FALSE(too_big);
    EXPECT_EQ(too_big.error().message.rfind("the JSON text is 1001 bytes, more than the 1000 it may have", 0), 0u)
        << too_big.error().message;
    EXPECT_FALSE(parse_json(std::string(JsonLimits{}.max_bytes + 1, ' ')));
}

}  // namespace
}  // namespace ps
