// MovingAI .map and .scen files: parsing with "file:line: reason" errors, atomic map writing,
// and whole-file reading. A map is all or nothing; a scenario file is read line by line, each
// bad line set aside with its reason.
#include "kernels/map/map_io.hpp"
#include "kernels/base/text_parse.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <new>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ps {
namespace {

using text::LineReader;
using text::parse_double;
using text::parse_int;
using text::quote;

// Larger inputs are almost certainly a wrong path (a disk image, a video); the largest legal map
// (65535 x 65535) is 4.0 GiB of text but exceeds kMaxCells anyway.
constexpr std::uint64_t kMaxFileBytes = 4ull << 30;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::string_view trim_right(std::string_view s) {
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

Error error_at(const std::string& source, long long line, const std::string& reason) {
    return Error{source + ":" + std::to_string(line) + ": " + reason};
}

// Shows a character the way a user can read it in a message, even when it is a control byte.
std::string describe_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) return std::string("'") + c + "'";
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

// 0 = blocked, 1 = passable, 2 = not a map character. A table keeps the per-cell loop branch-light
// for 900M-cell maps.
constexpr std::array<std::uint8_t, 256> make_cell_table() {
    std::array<std::uint8_t, 256> t{};
    for (auto& v : t) v = 2;
    for (unsigned char c : {'.', 'G', 'S'}) t[c] = 1;
    for (unsigned char c : {'@', 'O', 'T', 'W'}) t[c] = 0;
    return t;
}
constexpr std::array<std::uint8_t, 256> kCellTable = make_cell_table();

std::string os_reason(int err) { return std::strerror(err); }

// Rows of a costs map: `w` whole numbers 0..255 separated by spaces or tabs.
Expected<void> parse_cost_row(std::string_view row, int w, int y, long long line, const std::string& source,
                              std::uint8_t* out) {
    std::size_t at = 0;
    for (int x = 0; x < w; ++x) {
        while (at < row.size() && (row[at] == ' ' || row[at] == '\t')) ++at;
        if (at == row.size())
            return error_at(source, line,
                            "costs row " + std::to_string(y) + " has " + std::to_string(x) + " numbers, expected " +
                                std::to_string(w));
        std::size_t end = at;
        while (end < row.size() && row[end] != ' ' && row[end] != '\t') ++end;
        const auto v = parse_int<long long>(row.substr(at, end - at));
        if (!v || *v < 0 || *v > kMaxCellCost)
            return error_at(source, line,
                            "cell cost " + quote(row.substr(at, end - at)) + " at column " + std::to_string(x + 1) +
                                " is not a whole number 0..255 (0 = blocked)");
        if (out) out[x] = std::uint8_t(*v);
        at = end;
    }
    while (at < row.size() && (row[at] == ' ' || row[at] == '\t')) ++at;
    if (at != row.size())
        return error_at(source, line,
                        "costs row " + std::to_string(y) + " has more than " + std::to_string(w) + " numbers");
    return {};
}

Expected<GridMap> parse_map_impl(std::string_view text, const std::string& source, const TerrainCosts& terrain) {
    LineReader reader(text);
    struct HeaderValue {
        long long value = 0;
        long long line = 0;  // 0 = not seen yet
    };
    HeaderValue height, width;
    long long type_line = 0;
    bool saw_map = false;
    bool costs = false;  // PathScope's weighted terrain: rows of numbers after a 'costs' line

    while (auto raw = reader.next()) {
        const std::string_view line = trim(*raw);
        const long long n = reader.line();
        if (line.empty()) continue;  // tolerated: some hand-edited maps have blank header lines
        if (line == "map" || line == "costs") {
            saw_map = true;
            costs = line == "costs";
            break;
        }
        const std::size_t sp = line.find_first_of(" \t");
        const std::string_view key = line.substr(0, sp);
        const std::string_view value = sp == std::string_view::npos ? std::string_view{} : trim(line.substr(sp));
        if (key == "type") {
            if (type_line)
                return error_at(source, n, "duplicate 'type' line (first on line " + std::to_string(type_line) + ")");
            if (value.empty()) return error_at(source, n, "'type' line has no map type");
            type_line = n;
        } else if (key == "height" || key == "width") {
            HeaderValue& h = key == "height" ? height : width;
            const std::string k(key);
            if (h.line)
                return error_at(source, n, "duplicate '" + k + "' line (first on line " + std::to_string(h.line) + ")");
            const auto v = parse_int<long long>(value);
            if (!v) return error_at(source, n, "'" + k + "' must be followed by a whole number, found " + quote(value));
            h = {*v, n};
        } else {
            return error_at(source, n,
                            "expected a header line 'type', 'height', 'width', 'map' or 'costs', found " + quote(line));
        }
    }
    const long long header_end = reader.line();
    if (!saw_map) {
        if (!type_line && !height.line && !width.line)
            return error_at(source, header_end + 1,
                            "not a MovingAI map: it must start with 'type', 'height', 'width' and 'map' lines");
        return error_at(source, header_end + 1, "missing 'map' line before the map rows");
    }
    if (!type_line) return error_at(source, header_end, "missing 'type' line before 'map'");
    if (!height.line) return error_at(source, header_end, "missing 'height' line before 'map'");
    if (!width.line) return error_at(source, header_end, "missing 'width' line before 'map'");
    if (auto ok = GridMap::validate_dimensions(width.value, height.value); !ok)
        return error_at(source, std::max(height.line, width.line), ok.error().message);

    const int w = int(width.value);
    const int h = int(height.value);
    // A header claiming far more cells than the text holds (a typo, a truncated download) must
    // not allocate gigabytes first: then the rows are only checked, to report where they fail.
    std::optional<GridMap> map;
    if (reader.remaining() >= std::uint64_t(w) * std::uint64_t(h)) map.emplace(w, h, false);
    std::uint8_t* cells = map ? map->cells().data() : nullptr;
    // MovingAI's letters, with swamp and water at the costs asked for (a plain table otherwise).
    std::array<std::uint8_t, 256> table = kCellTable;
    table[static_cast<unsigned char>('S')] = terrain.swamp;
    table[static_cast<unsigned char>('W')] = terrain.water;
    for (int y = 0; y < h; ++y) {
        const auto raw = reader.next();
        if (!raw)
            return error_at(source, reader.line() + 1,
                            "the map ends after " + std::to_string(y) + " of " + std::to_string(h) + " rows");
        if (costs) {
            if (auto ok = parse_cost_row(trim(*raw), w, y, reader.line(), source,
                                         cells ? cells + std::size_t(y) * std::size_t(w) : nullptr);
                !ok)
                return ok.error();
            continue;
        }
        // Trailing spaces are tolerated: no map character is whitespace, so nothing is lost.
        const std::string_view row = trim_right(*raw);
        const long long n = reader.line();
        if (row.size() != std::size_t(w)) {
            // An empty row is most often a stray blank line in the middle of the map.
            return error_at(source, n,
                            "map row " + std::to_string(y) + " has " + std::to_string(row.size()) +
                                " characters, expected " + std::to_string(w));
        }
        std::uint8_t* out = cells ? cells + std::size_t(y) * std::size_t(w) : nullptr;
        for (int x = 0; x < w; ++x) {
            const std::uint8_t v = table[static_cast<unsigned char>(row[std::size_t(x)])];
            if (kCellTable[static_cast<unsigned char>(row[std::size_t(x)])] == 2)
                return error_at(source, n,
                                "unexpected character " + describe_char(row[std::size_t(x)]) + " at column " +
                                    std::to_string(x + 1) + " (expected one of . G S @ O T W)");
            if (out) out[x] = v;
        }
    }
    // Unreachable: h rows of w characters need at least w * h bytes. Kept as a guard.
    if (!map) return error_at(source, reader.line(), "the map is shorter than its header says");
    while (auto raw = reader.next())
        if (!trim(*raw).empty())
            return error_at(source, reader.line(),
                            "unexpected content after the " + std::to_string(h) + " map rows: " + quote(trim(*raw)));
    return std::move(*map);
}

// Appends rows [y0, y1) of the map: MovingAI characters, or on weighted terrain the cells'
// costs as numbers.
void append_rows(const GridMap& map, int y0, int y1, bool costs, std::string& out) {
    const std::size_t w = std::size_t(map.width());
    const std::uint8_t* cells = map.cells().data();
    for (int y = y0; y < y1; ++y) {
        if (costs) {
            const std::uint8_t* row = cells + std::size_t(y) * w;
            for (std::size_t x = 0; x < w; ++x) {
                if (x) out += ' ';
                out += std::to_string(int(row[x]));
            }
            out += '\n';
            continue;
        }
        const std::uint8_t* row = cells + std::size_t(y) * w;
        const std::size_t at = out.size();
        out.resize(at + w + 1);
        char* dst = out.data() + at;
        for (std::size_t x = 0; x < w; ++x) dst[x] = row[x] ? '.' : '@';
        dst[w] = '\n';
    }
}

std::string map_header(const GridMap& map, bool costs) {
    return "type octile\nheight " + std::to_string(map.height()) + "\nwidth " + std::to_string(map.width()) +
           (costs ? "\ncosts\n" : "\nmap\n");
}

// write() until everything is out; false with errno set on failure.
bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        size -= std::size_t(n);
    }
    return true;
}

// Splits a scen line into fields: on tabs when it has any (fields trimmed of spaces), otherwise
// on runs of spaces, since hand-made scen files are sometimes space-aligned.
std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    if (line.find('\t') != std::string_view::npos) {
        std::size_t pos = 0;
        while (true) {
            const std::size_t tab = line.find('\t', pos);
            fields.push_back(
                trim(line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos)));
            if (tab == std::string_view::npos) break;
            pos = tab + 1;
        }
        return fields;
    }
    std::size_t pos = 0;
    while (pos < line.size()) {
        while (pos < line.size() && is_space(line[pos])) ++pos;
        if (pos >= line.size()) break;
        std::size_t end = pos;
        while (end < line.size() && !is_space(line[end])) ++end;
        fields.push_back(line.substr(pos, end - pos));
        pos = end;
    }
    return fields;
}

Expected<ScenarioFile> parse_scen_impl(std::string_view text, const std::string& source) {
    static constexpr const char* kFieldNames[9] = {"bucket",  "map name", "map width", "map height",    "start x",
                                                   "start y", "goal x",   "goal y",    "optimal length"};
    ScenarioFile file;
    LineReader reader(text);
    bool first_content = true;
    while (auto raw = reader.next()) {
        const std::string_view line = trim(*raw);
        const long long n = reader.line();
        if (line.empty()) continue;
        if (first_content) {
            first_content = false;
            // Without a version line the file is the old version-0 layout, whose columns are the
            // same nine; so the first line is then a scenario like any other. A version this
            // reader does not know may have other columns: then no line can be trusted.
            if (line.substr(0, 7) == "version" && (line.size() == 7 || is_space(line[7]))) {
                const std::string_view v = trim(line.substr(7));
                const auto version = parse_double(v);
                if (!version) return error_at(source, n, "'version' must be followed by a number, found " + quote(v));
                if (*version != 1.0 && *version != 0.0)
                    return error_at(source, n,
                                    "unsupported scenario version " + std::string(v) + " (expected 1 or 1.0)");
                continue;
            }
        }
        const int line_number = n > 0x7FFFFFFF ? 0x7FFFFFFF : int(n);
        // A malformed line is one query lost, not the file: it is set aside with its reason.
        auto reject = [&](const std::string& reason) { file.reject(line_number, error_at(source, n, reason).message); };
        const auto fields = split_fields(line);
        if (fields.size() != 9) {
            reject(
                "expected 9 fields (bucket, map, map width, map height, start x, start y, goal x, goal y, "
                "optimal length), found " +
                std::to_string(fields.size()));
            continue;
        }
        Scenario s;
        s.line = line_number;
        int ints[9] = {};
        std::string bad;
        for (int i : {0, 2, 3, 4, 5, 6, 7}) {
            const auto v = parse_int<int>(fields[std::size_t(i)]);
            if (!v)
                bad = std::string(kFieldNames[i]) + " must be a whole number, found " + quote(fields[std::size_t(i)]);
            else if (*v < 0 && i >= 4)
                bad = std::string(kFieldNames[i]) + " must not be negative, found " + std::to_string(*v);
            else if (*v < 1 && (i == 2 || i == 3))
                bad = std::string(kFieldNames[i]) + " must be at least 1, found " + std::to_string(*v);
            if (!bad.empty()) break;
            ints[i] = *v;
        }
        const auto length = parse_double(fields[8]);
        if (bad.empty() && fields[1].empty()) bad = "map name is empty";
        if (bad.empty() && !length) bad = "optimal length must be a number, found " + quote(fields[8]);
        if (bad.empty() && (!std::isfinite(*length) || *length < 0))
            bad = "optimal length must be a finite non-negative number, found " + quote(fields[8]);
        if (!bad.empty()) {
            reject(bad);
            continue;
        }
        s.bucket = ints[0];
        s.map_name = std::string(fields[1]);
        s.map_width = ints[2];
        s.map_height = ints[3];
        s.start = {ints[4], ints[5]};
        s.goal = {ints[6], ints[7]};
        s.optimal_length = *length;
        file.scenarios.push_back(std::move(s));
    }
    return file;
}

}  // namespace

Expected<GridMap> parse_movingai_map(std::string_view text, const std::string& source, const TerrainCosts& terrain) {
    try {
        return parse_map_impl(text, source, terrain);
    } catch (const std::bad_alloc&) {
        return Error{source + ": not enough memory to load the map"};
    }
}

Expected<GridMap> read_movingai_map(const std::string& path, const TerrainCosts& terrain) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    auto map = parse_movingai_map(*text, path, terrain);
    if (map) map->name = std::filesystem::path(path).stem().string();
    return map;
}

std::string format_movingai_map(const GridMap& map) {
    const bool costs = map.weighted();
    std::string out = map_header(map, costs);
    out.reserve(out.size() + std::size_t(map.height()) * (std::size_t(map.width()) + 1));
    append_rows(map, 0, map.height(), costs, out);
    return out;
}

Expected<void> write_movingai_map(const GridMap& map, const std::string& path) {
    // Written beside `path` and renamed, so a failed write never leaves a truncated map. A path
    // that exists but is no regular file (/dev/stdout, a FIFO) is written in place: renaming
    // over it would replace the device.
    struct stat st {};
    const bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    const std::string tmp = special ? path : path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), special ? O_WRONLY | O_CLOEXEC : O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Error{"cannot write '" + path + "': " + os_reason(errno), ErrorKind::Io};
    auto fail = [&](int err, bool close_fd) -> Expected<void> {
        if (close_fd) ::close(fd);
        if (!special) ::unlink(tmp.c_str());
        return Error{"cannot write '" + path + "': " + os_reason(err), ErrorKind::Io};
    };
    try {
        // Streamed in chunks rather than through format_movingai_map(): a 30000^2 map would
        // otherwise need a second 900 MB copy in memory.
        const bool costs = map.weighted();
        std::string buffer = map_header(map, costs);
        const std::size_t chunk_rows =
            std::max<std::size_t>(1, (std::size_t(1) << 20) / (std::size_t(map.width()) * (costs ? 4 : 1) + 1));
        for (int y = 0; y < map.height(); y += int(chunk_rows)) {
            append_rows(map, y, std::min(map.height(), y + int(chunk_rows)), costs, buffer);
            if (!write_all(fd, buffer.data(), buffer.size())) return fail(errno, true);
            buffer.clear();
        }
        if (!write_all(fd, buffer.data(), buffer.size())) return fail(errno, true);
    } catch (const std::bad_alloc&) {
        return fail(ENOMEM, true);
    }
    // Delayed allocation means a full disk may only show up here, so fsync and close are checked.
    if (special) {
        ::close(fd);
        return {};
    }
    if (::fsync(fd) != 0) return fail(errno, true);
    if (::close(fd) != 0) return fail(errno, false);
    if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno, false);
    return {};
}

void ScenarioFile::reject(int line, std::string message) {
    ++rejected_count;
    if (rejected.size() < kMaxScenarioIssues) rejected.push_back({line, std::move(message)});
}

Expected<ScenarioFile> parse_movingai_scen(std::string_view text, const std::string& source) {
    try {
        return parse_scen_impl(text, source);
    } catch (const std::bad_alloc&) {
        return Error{source + ": not enough memory to load the scenarios"};
    }
}

Expected<ScenarioFile> read_movingai_scen(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_movingai_scen(*text, path);
}

Expected<void> check_scenario(const Scenario& scenario, const GridMap& map, const std::string& source) {
    const std::string where = source + ":" + std::to_string(scenario.line) + ": ";
    const std::string map_size = std::to_string(map.width()) + "x" + std::to_string(map.height());
    if (scenario.map_width != map.width() || scenario.map_height != map.height())
        return Error{where + "scenario is for a " + std::to_string(scenario.map_width) + "x" +
                     std::to_string(scenario.map_height) + " map, this map is " + map_size};
    for (const auto& [what, c] : {std::pair{"start", scenario.start}, std::pair{"goal", scenario.goal}}) {
        const std::string at = std::string(what) + " (" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
        if (!map.in_bounds(c.x, c.y)) return Error{where + at + " is outside the " + map_size + " map"};
        if (!map.passable(c)) return Error{where + at + " is a blocked cell"};
    }
    return {};
}

void check_scenarios(ScenarioFile& file, const GridMap& map, const std::string& source) {
    ScenarioFile misfits;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < file.scenarios.size(); ++i) {
        if (auto ok = check_scenario(file.scenarios[i], map, source); !ok) {
            misfits.reject(file.scenarios[i].line, ok.error().message);
            continue;
        }
        if (kept != i) file.scenarios[kept] = std::move(file.scenarios[i]);
        ++kept;
    }
    file.scenarios.resize(kept);
    if (misfits.rejected_count == 0) return;
    // Both lists are in line order; merged, the first lines a message shows are the file's first.
    std::vector<ScenarioIssue> merged;
    merged.reserve(file.rejected.size() + misfits.rejected.size());
    std::merge(std::make_move_iterator(file.rejected.begin()), std::make_move_iterator(file.rejected.end()),
               std::make_move_iterator(misfits.rejected.begin()), std::make_move_iterator(misfits.rejected.end()),
               std::back_inserter(merged),
               [](const ScenarioIssue& a, const ScenarioIssue& b) { return a.line < b.line; });
    if (merged.size() > kMaxScenarioIssues) merged.resize(kMaxScenarioIssues);
    file.rejected = std::move(merged);
    file.rejected_count += misfits.rejected_count;
}

std::string describe_rejected(const ScenarioFile& file, std::size_t shown) {
    if (file.rejected_count == 0) return {};
    const std::size_t total = file.scenarios.size() + file.rejected_count;
    std::string text = std::to_string(file.rejected_count) + " of " + std::to_string(total) +
                       (total == 1 ? " scenario line" : " scenario lines") + " left out:";
    for (std::size_t i = 0; i < file.rejected.size() && i < shown; ++i) text += "\n  " + file.rejected[i].message;
    const std::size_t listed = std::min(shown, file.rejected.size());
    if (file.rejected_count > listed) text += "\n  ... and " + std::to_string(file.rejected_count - listed) + " more";
    return text;
}

Expected<void> require_scenarios(const ScenarioFile& file, const std::string& source) {
    if (!file.scenarios.empty()) return {};
    if (file.rejected_count == 0) return Error{source + ": the scenario file has no scenarios"};
    return Error{source + ": no usable scenario: " + describe_rejected(file)};
}

Expected<std::string> find_scenario_map(const std::string& scen_path, const ScenarioFile& file) {
    namespace fs = std::filesystem;
    std::vector<std::string> candidates;
    // The map the lines name, beside the .scen: as written (it may carry a folder, e.g.
    // maps/dao/arena.map), then its file name alone (the usual way the two are copied).
    const fs::path folder = fs::path(scen_path).parent_path();
    if (!file.scenarios.empty()) {
        const fs::path named(file.scenarios.front().map_name);
        candidates.push_back((folder / named).string());
        if (named.has_parent_path()) candidates.push_back((folder / named.filename()).string());
    }
    candidates.push_back(scen_path.size() > 5 && scen_path.ends_with(".scen")
                             ? scen_path.substr(0, scen_path.size() - 5)
                             : scen_path + ".map");
    std::error_code ec;
    for (const auto& path : candidates)
        if (fs::is_regular_file(path, ec)) return path;
    std::string tried;
    for (const auto& path : candidates) tried += (tried.empty() ? "" : ", ") + path;
    return Error{scen_path + ": cannot find the map of these scenarios (tried " + tried + ")", ErrorKind::Io};
}

Expected<std::string> read_text_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{"cannot open '" + path + "': " + os_reason(errno), ErrorKind::Io};
    auto fail = [&](const std::string& reason) -> Expected<std::string> {
        ::close(fd);
        return Error{"cannot read '" + path + "': " + reason, ErrorKind::Io};
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0) return fail(os_reason(errno));
    if (S_ISDIR(st.st_mode)) return fail("it is a directory, not a file");
    const std::string too_large = "the file is larger than 4 GiB, which is more than any map PathScope can load";
    if (S_ISREG(st.st_mode) && std::uint64_t(st.st_size) > kMaxFileBytes) return fail(too_large);
    std::string text;
    try {
        // The size is only a hint: pipes report 0 and files can grow while we read.
        constexpr std::size_t kChunk = std::size_t(1) << 20;
        // One chunk of slack so that the final read (the one that sees end of file) does not
        // reallocate a large buffer.
        if (S_ISREG(st.st_mode)) text.reserve(std::size_t(st.st_size) + kChunk);
        while (true) {
            const std::size_t at = text.size();
            if (at > kMaxFileBytes) return fail(too_large);
            text.resize(at + kChunk);
            const ssize_t n = ::read(fd, text.data() + at, kChunk);
            if (n < 0) {
                if (errno == EINTR) {
                    text.resize(at);
                    continue;
                }
                return fail(os_reason(errno));
            }
            text.resize(at + std::size_t(n));
            if (n == 0) break;
        }
    } catch (const std::bad_alloc&) {
        return fail("not enough memory");
    }
    ::close(fd);
    return text;
}

}  // namespace ps
