// The serve loop (server.hpp): a reader thread takes every message off the input at once, so a
// cancel reaches the run it names while it runs; the main thread answers the rest in order.
#include "kernels/remote/server.hpp"

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <memory>
#include <thread>

namespace ps::remote {
namespace {

// Progress of the run in flight, as messages.
class ProgressSender final : public RunObserver {
public:
    ProgressSender(MessageWriter& out, std::uint64_t id) : m_out(out), m_id(id) {}
    void on_progress(double fraction) override {
        (void)m_out.send("progress", [&](JsonWriter& j) { j.field("id", m_id).field("fraction", fraction); });
    }

private:
    MessageWriter& m_out;
    std::uint64_t m_id;
};

struct Inbox {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<Message> messages;
    bool closed = false;
    // The run in flight and its cancel flag (the reader sets it on a matching cancel).
    std::optional<std::uint64_t> running;
    std::atomic<bool> cancel{false};
};

Hello hello_of(const ServeOptions& options) {
    Hello h;
    h.build_commit = options.build_commit;
    h.site = options.site;
    for (const auto& v : Registry::instance().all()) {
        RemoteVariant rv;
        rv.info = v->info();
        if (auto why = v->unavailable_reason()) {
            rv.available = false;
            rv.unavailable_reason = *why;
        }
        h.variants.push_back(std::move(rv));
    }
    return h;
}

void read_loop(MessageReader& in, MessageWriter& out, Inbox& inbox) {
    for (;;) {
        MessageReader::Read r = in.next();
        if (r.status == MessageReader::Status::Closed) break;
        if (r.status != MessageReader::Status::Ok) {
            (void)out.send_error(std::nullopt, r.status == MessageReader::Status::TooLarge ? "too_large" : "malformed",
                                 r.error);
            continue;
        }
        if (r.message.type() == "cancel") {
            const JsonValue* id = r.message.field("id");
            std::lock_guard lock(inbox.mutex);
            if (id && inbox.running && id->text == std::to_string(*inbox.running)) inbox.cancel = true;
            continue;  // a cancel for a run that ended already is no error
        }
        std::lock_guard lock(inbox.mutex);
        inbox.messages.push_back(std::move(r.message));
        inbox.ready.notify_one();
    }
    std::lock_guard lock(inbox.mutex);
    inbox.closed = true;
    inbox.cancel = true;  // nobody is left to read the run in flight
    inbox.ready.notify_one();
}

}  // namespace

int serve(int in_fd, int out_fd, const ServeOptions& options) {
    std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-reply is an error to handle, not a death
    // Shared with the reader thread, which may outlive this call (blocked on an input the client
    // keeps open after "bye").
    auto in_ptr = std::make_shared<MessageReader>(in_fd, options.limits, true);
    auto out_ptr = std::make_shared<MessageWriter>(out_fd);
    auto inbox_ptr = std::make_shared<Inbox>();
    MessageWriter& out = *out_ptr;
    Inbox& inbox = *inbox_ptr;
    MapCache maps(options.map_cache_cells);
    const Hello hello = hello_of(options);
    std::thread reader([in_ptr, out_ptr, inbox_ptr] { read_loop(*in_ptr, *out_ptr, *inbox_ptr); });

    for (;;) {
        Message m;
        {
            std::unique_lock lock(inbox.mutex);
            inbox.ready.wait(lock, [&] { return !inbox.messages.empty() || inbox.closed; });
            if (inbox.messages.empty()) break;
            m = std::move(inbox.messages.front());
            inbox.messages.pop_front();
        }
        const std::string type = m.type();
        const JsonValue* id_field = m.field("id");
        const std::optional<std::uint64_t> id = id_field && id_field->type == JsonValue::Type::Number
                                                    ? std::optional(std::uint64_t(id_field->number))
                                                    : std::nullopt;
        if (type == "bye") break;
        if (type == "hello") {
            const JsonValue* theirs = m.field("protocol");
            if (!theirs || theirs->type != JsonValue::Type::Number || int(theirs->number) != kProtocolVersion) {
                const std::string text = theirs ? theirs->text : std::string("none");
                (void)out.send_error(id, "version",
                                     "this target speaks PathScope protocol " + std::to_string(kProtocolVersion) +
                                         " (build " + options.build_commit + "), the client " + text +
                                         ": install the same PathScope version on both sides");
                continue;
            }
            (void)out.send("hello", [&](JsonWriter& j) { write_hello(j, hello); });
            continue;
        }
        if (type != "run") {
            (void)out.send_error(id, "unknown", "unknown request type '" + type + "' (hello, run, cancel, bye)");
            continue;
        }
        auto decoded = read_run_request(m, maps, options.limits);
        if (!decoded) {
            const bool unknown_map = decoded.error().message == "map_unknown";
            (void)out.send_error(
                id, unknown_map ? "map_unknown" : "bad_request",
                unknown_map ? "this target does not have the map: send its cells" : decoded.error().message);
            continue;
        }
        RunRequest request = std::move(decoded->request);
        if (!Registry::instance().find(request.variant_id)) {
            (void)out.send_error(id, "unknown_variant", "this target has no variant '" + request.variant_id + "'");
            continue;
        }
        {
            std::lock_guard lock(inbox.mutex);
            inbox.running = decoded->id;
            inbox.cancel = inbox.closed;
        }
        request.context.cancel = &inbox.cancel;
        ProgressSender progress(out, decoded->id);
        const RunReport report = run_variant(request, &progress);
        {
            std::lock_guard lock(inbox.mutex);
            inbox.running.reset();
        }
        std::vector<Blob> blobs;  // filled while the fields are written, listed after them
        const auto sent = out.send(
            "result",
            [&](JsonWriter& j) {
                j.field("id", decoded->id);
                if (auto ok = write_run_report(j, blobs, report); !ok) j.field("encode_error", ok.error().message);
            },
            blobs);
        if (!sent) break;  // the client is gone
    }
    // The reader ends with the input; a client that keeps it open after bye is not waited for.
    bool closed = false;
    {
        std::lock_guard lock(inbox.mutex);
        closed = inbox.closed;
    }
    if (closed)
        reader.join();
    else
        reader.detach();
    return 0;
}

}  // namespace ps::remote
