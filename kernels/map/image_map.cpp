// Grey-level image maps: PGM parsed here, PNG through libpng's simplified API (png_image), which
// converts any colour type and bit depth to 8-bit grey.
#include "kernels/map/image_map.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include <png.h>
#include <unistd.h>

#include "kernels/map/map_io.hpp"

namespace ps {

namespace {

bool ends_with_ci(std::string_view text, std::string_view suffix) {
    if (text.size() < suffix.size()) return false;
    return std::equal(suffix.begin(), suffix.end(), text.end() - std::ptrdiff_t(suffix.size()),
                      [](char s, char t) { return s == std::tolower(static_cast<unsigned char>(t)); });
}

// Turns rows of 8-bit grey levels into a map, as obstacles or as costs.
GridMap map_from_grey(const std::uint8_t* grey, int width, int height, std::size_t stride, const ImageMapOptions& o) {
    GridMap map(width, height, false);
    for (int y = 0; y < height; ++y) {
        const std::uint8_t* in = grey + std::size_t(y) * stride;
        std::uint8_t* out = map.cells().data() + std::size_t(y) * std::size_t(width);
        for (int x = 0; x < width; ++x) out[x] = o.costs ? in[x] : (int(in[x]) < o.threshold ? 0 : 1);
    }
    return map;
}

// PGM header tokens: whitespace-separated, '#' comments to the end of the line.
class PgmTokens {
public:
    explicit PgmTokens(std::string_view bytes) : m_bytes(bytes) {}
    std::optional<long long> number() {
        skip();
        std::size_t end = m_at;
        while (end < m_bytes.size() && std::isdigit(static_cast<unsigned char>(m_bytes[end]))) ++end;
        if (end == m_at || end - m_at > 12) return std::nullopt;
        long long v = 0;
        for (std::size_t i = m_at; i < end; ++i) v = v * 10 + (m_bytes[i] - '0');
        m_at = end;
        return v;
    }
    void skip() {
        while (m_at < m_bytes.size()) {
            if (m_bytes[m_at] == '#') {
                while (m_at < m_bytes.size() && m_bytes[m_at] != '\n') ++m_at;
            } else if (std::isspace(static_cast<unsigned char>(m_bytes[m_at]))) {
                ++m_at;
            } else {
                break;
            }
        }
    }
    std::size_t at() const { return m_at; }
    void advance(std::size_t n) { m_at += n; }

private:
    std::string_view m_bytes;
    std::size_t m_at = 0;
};

}  // namespace

bool is_image_map_path(std::string_view path) { return ends_with_ci(path, ".pgm") || ends_with_ci(path, ".png"); }

Expected<GridMap> parse_pgm_map(std::string_view bytes, const std::string& source, const ImageMapOptions& options) {
    if (bytes.size() < 3 || bytes[0] != 'P' || (bytes[1] != '5' && bytes[1] != '2') ||
        !std::isspace(static_cast<unsigned char>(bytes[2])))
        return Error{source + ": not a grey PGM image (it must start with P5 or P2 and a space)"};
    const bool plain = bytes[1] == '2';
    PgmTokens tokens(bytes);
    tokens.advance(2);
    const auto width = tokens.number(), height = tokens.number(), maxval = tokens.number();
    if (!width || !height || !maxval) return Error{source + ": the PGM header needs a width, a height and a maxval"};
    if (auto ok = GridMap::validate_dimensions(*width, *height); !ok) return Error{source + ": " + ok.error().message};
    if (*maxval < 1 || *maxval > 255)
        return Error{source + ": maxval " + std::to_string(*maxval) +
                     ": only 8-bit grey levels (maxval 1..255) are read"};
    const std::size_t cells = std::size_t(*width) * std::size_t(*height);
    std::vector<std::uint8_t> grey;
    if (plain) {
        if (bytes.size() - tokens.at() < cells)
            return Error{source + ": the PGM ends before its " + std::to_string(cells) + " pixels"};
        grey.resize(cells);
        for (std::size_t i = 0; i < cells; ++i) {
            const auto v = tokens.number();
            if (!v)
                return Error{source + ": pixel " + std::to_string(i + 1) + " of " + std::to_string(cells) +
                             " is missing or not a number"};
            if (*v > *maxval)
                return Error{source + ": pixel " + std::to_string(i + 1) + " is " + std::to_string(*v) +
                             ", above maxval " + std::to_string(*maxval)};
            grey[i] = std::uint8_t(*v);
        }
    } else {
        // Exactly one whitespace byte separates maxval from the pixels.
        const std::size_t start = tokens.at() + 1;
        if (start > bytes.size() || bytes.size() - start < cells)
            return Error{source + ": the PGM ends before its " + std::to_string(cells) + " pixels"};
        grey.assign(bytes.begin() + std::ptrdiff_t(start), bytes.begin() + std::ptrdiff_t(start + cells));
        for (std::size_t i = 0; i < cells; ++i)
            if (grey[i] > *maxval)
                return Error{source + ": pixel " + std::to_string(i + 1) + " is " + std::to_string(grey[i]) +
                             ", above maxval " + std::to_string(*maxval)};
    }
    // Obstacles compare against the threshold on the 0..255 scale; costs are the levels as written.
    if (!options.costs && *maxval != 255)
        for (auto& g : grey) g = std::uint8_t(int(g) * 255 / int(*maxval));
    return map_from_grey(grey.data(), int(*width), int(*height), std::size_t(*width), options);
}

Expected<GridMap> read_image_map(const std::string& path, const ImageMapOptions& options) {
    Expected<GridMap> map = Error{path + ": not a .pgm or .png file"};
    if (ends_with_ci(path, ".pgm")) {
        auto bytes = read_text_file(path);
        if (!bytes) return bytes.error();
        map = parse_pgm_map(*bytes, path, options);
    } else if (ends_with_ci(path, ".png")) {
        png_image image{};
        image.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_file(&image, path.c_str())) {
            const std::string why = image.message;
            png_image_free(&image);
            return Error{"cannot read '" + path + "': " + why, ErrorKind::Io};
        }
        if (auto ok = GridMap::validate_dimensions(image.width, image.height); !ok) {
            png_image_free(&image);
            return Error{path + ": the image's " + ok.error().message};
        }
        image.format = PNG_FORMAT_GRAY;
        std::vector<std::uint8_t> grey;
        try {
            grey.resize(PNG_IMAGE_SIZE(image));
        } catch (const std::bad_alloc&) {
            png_image_free(&image);
            return Error{path + ": not enough memory for a " + std::to_string(image.width) + "x" +
                         std::to_string(image.height) + " image"};
        }
        // Transparent pixels are composed over white (paper: free), as the window reads them.
        png_color white{255, 255, 255};
        if (!png_image_finish_read(&image, &white, grey.data(), 0, nullptr)) {
            const std::string why = image.message;
            png_image_free(&image);
            return Error{"cannot read '" + path + "': " + why, ErrorKind::Io};
        }
        map = map_from_grey(grey.data(), int(image.width), int(image.height), PNG_IMAGE_ROW_STRIDE(image), options);
    }
    if (map) map->name = std::filesystem::path(path).stem().string();
    return map;
}

Expected<void> write_cost_png(const GridMap& map, const std::string& path) {
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = png_uint_32(map.width());
    image.height = png_uint_32(map.height());
    image.format = PNG_FORMAT_GRAY;
    if (!png_image_write_to_file(&image, tmp.c_str(), 0, map.cells().data(), 0, nullptr)) {
        const std::string why = image.message;
        std::remove(tmp.c_str());
        return Error{"cannot write '" + path + "': " + why, ErrorKind::Io};
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        return Error{"cannot write '" + path + "': " + why, ErrorKind::Io};
    }
    return {};
}

}  // namespace ps
