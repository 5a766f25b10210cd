// The remote protocol between PathScope and `pathscope-cli serve` (docs/remote-protocol.md):
// messages on a byte stream (the server's stdin and stdout, behind any command prefix such as
// ssh or srun), each one line of JSON naming its type and the binary blobs that follow it.
// Framing, limits, and the codecs of what crosses: the target's hello, a run request (its map
// by hash, its cells when the target lacks them) and a run report with its recording, levels
// and timeline. Qt-free; the runner (kernels/run) never sees a byte of it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "instrumentation/output/json.hpp"
#include "kernels/base/expected.hpp"
#include "kernels/base/json_reader.hpp"
#include "kernels/run/runner.hpp"

namespace ps::remote {

// Raised when a message changes shape; both sides say theirs in hello and refuse a mismatch.
inline constexpr int kProtocolVersion = 1;

struct Limits {
    std::size_t max_header_bytes = 1 << 20;          // one JSON line
    std::uint64_t max_request_bytes = 512ull << 20;  // a request's blobs together (the server)
    std::uint64_t max_reply_bytes = 16ull << 30;     // a reply's blobs together (the client)
    std::uint64_t max_map_cells = 1ull << 30;        // 32768^2; sides at most 65535
    std::uint64_t max_agents = 1ull << 24;           // batch queries per request
};

struct Blob {
    std::string name;
    std::string bytes;
};

struct Message {
    JsonValue header;
    std::vector<Blob> blobs;
    std::string type() const;
    const JsonValue* field(std::string_view key) const { return header.find(key); }
    const std::string* blob(std::string_view name) const;
};

// Reads messages from a file descriptor, buffered. A malformed or oversize message is skipped
// whole (its line, and its blobs read and dropped), so the stream stays in step.
class MessageReader {
public:
    MessageReader(int fd, Limits limits, bool server_side);
    enum class Status : std::uint8_t { Ok, Closed, Malformed, TooLarge };
    struct Read {
        Status status = Status::Ok;
        Message message;
        std::string error;  // Malformed / TooLarge / Closed: what was wrong
    };
    // Blocks until a message, the end of the stream or a broken one.
    Read next();
    // True when a byte is ready within `timeout_ms` (or buffered already).
    bool wait_readable(int timeout_ms);

private:
    bool fill();
    bool read_line(std::string& line, bool& too_long);
    bool read_exact(std::string& out, std::uint64_t n);
    bool skip(std::uint64_t n);
    int m_fd;
    Limits m_limits;
    bool m_server;
    std::vector<char> m_buffer;
    std::size_t m_begin = 0, m_end = 0;
};

// Writes messages to a file descriptor; one message at a time across threads.
class MessageWriter {
public:
    explicit MessageWriter(int fd) : m_fd(fd) {}
    using Fields = std::function<void(JsonWriter&)>;
    // `fields` run before `blobs` are listed, so they may add to the vector behind `blobs`.
    Expected<void> send(std::string_view type, const Fields& fields, const std::vector<Blob>& blobs = {});
    Expected<void> send_error(std::optional<std::uint64_t> id, std::string_view code, std::string_view message);

private:
    Expected<void> write_all(const char* data, std::size_t n);
    int m_fd;
    std::mutex m_mutex;
};

// ---- hello ------------------------------------------------------------------------------------

struct RemoteVariant {
    VariantInfo info;
    bool available = true;
    std::string unavailable_reason;
};

struct Hello {
    int protocol = kProtocolVersion;
    std::string build_commit;
    ExecutionSite site;
    std::vector<RemoteVariant> variants;
};

// A variant as JSON: id, family, device, description, reference, available, params (kind, default,
// description; min, max and multiple_of of integers, choices of the others), and
// unavailable_reason when it cannot run. `pathscope-cli list --json` prints the same objects.
void write_variant(JsonWriter& j, const VariantInfo& info, const std::optional<std::string>& unavailable);

void write_hello(JsonWriter& j, const Hello& hello);
Expected<Hello> read_hello(const Message& m);

// ---- run --------------------------------------------------------------------------------------

// Whether the protocol carries the request (a grid map; roadmaps not yet).
Expected<void> can_send(const RunRequest& request);
// The request's fields (the map by hash; its packed cells as the blob "cells" when with_cells).
Expected<void> write_run_request(JsonWriter& j, std::vector<Blob>& blobs, const RunRequest& request, std::uint64_t id,
                                 bool with_cells);

// Maps a server was sent, by hash, kept for the requests that name them again.
class MapCache {
public:
    explicit MapCache(std::uint64_t max_cells = 1ull << 28) : m_max_cells(max_cells) {}
    std::shared_ptr<const GridMap> find(const std::string& hash) const;
    void add(const std::string& hash, std::shared_ptr<const GridMap> map);

private:
    std::uint64_t m_max_cells;
    std::vector<std::pair<std::string, std::shared_ptr<const GridMap>>> m_maps;  // oldest first
};

struct DecodedRequest {
    std::uint64_t id = 0;
    RunRequest request;
};
// Error codes in Error::message's first word are not used: a request that names a map the cache
// lacks fails with kind Io and the message "map_unknown" (the client sends it again with cells).
Expected<DecodedRequest> read_run_request(const Message& m, MapCache& maps, const Limits& limits);

Expected<void> write_run_report(JsonWriter& j, std::vector<Blob>& blobs, const RunReport& report);
Expected<RunReport> read_run_report(const Message& m, const VariantInfo& info);

// The map's hash as the history computes it (kernels/base/sha256.hpp).
std::string hash_of(const GridMap& map);

}  // namespace ps::remote
