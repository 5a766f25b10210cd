// The client side of the remote protocol (target.hpp): a subprocess behind a command prefix.
#include "kernels/remote/target.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

namespace ps::remote {
namespace {

// The remote program's path as one shell word.
std::string shell_quote(const std::string& word) {
    if (!word.empty() &&
        word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./~=:,+@%") ==
            std::string::npos)
        return word;
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string status_text(int status) {
    if (WIFEXITED(status)) {
        const int code = WEXITSTATUS(status);
        std::string text = "exit status " + std::to_string(code);
        if (code == 127) text += ": the command or pathscope-cli was not found there";
        if (code == 255) text += ": ssh could not connect";
        return text;
    }
    if (WIFSIGNALED(status)) return std::string("killed by signal ") + std::to_string(WTERMSIG(status));
    return "ended";
}

}  // namespace

std::string TargetSpec::command() const {
    const std::string cli = shell_quote(remote_cli.empty() ? std::string("pathscope-cli") : remote_cli);
    return prefix.empty() ? cli + " serve" : prefix + " " + cli + " serve";
}

std::string TargetSpec::label() const { return prefix.empty() ? std::string("local subprocess") : prefix; }

RemoteTarget::RemoteTarget(TargetSpec spec, ConnectOptions options, pid_t pid, int to_fd, int from_fd)
    : m_spec(std::move(spec)),
      m_options(std::move(options)),
      m_pid(pid),
      m_to(to_fd),
      m_from(from_fd),
      m_writer(to_fd),
      m_reader(from_fd, m_options.limits, false) {}

Expected<std::shared_ptr<RemoteTarget>> RemoteTarget::connect(const TargetSpec& spec, const ConnectOptions& options) {
    std::signal(SIGPIPE, SIG_IGN);  // a target gone mid-request is an error to report, not a death
    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0)
        return Error{"cannot create a pipe: " + std::string(std::strerror(errno)), ErrorKind::Io};
    if (::pipe2(from, O_CLOEXEC) != 0) {
        ::close(to[0]);
        ::close(to[1]);
        return Error{"cannot create a pipe: " + std::string(std::strerror(errno)), ErrorKind::Io};
    }
    const std::string command = spec.command();
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd : {to[0], to[1], from[0], from[1]}) ::close(fd);
        return Error{"cannot start '" + command + "': " + std::strerror(errno), ErrorKind::Io};
    }
    if (pid == 0) {  // the child: stdin and stdout are the pipes, stderr stays ours (ssh prompts)
        ::dup2(to[0], 0);
        ::dup2(from[1], 1);
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(to[0]);
    ::close(from[1]);
    std::shared_ptr<RemoteTarget> t(new RemoteTarget(spec, options, pid, to[1], from[0]));
    const std::string where = "the target '" + spec.label() + "' (" + command + ")";
    if (auto ok = t->m_writer.send(
            "hello",
            [&](JsonWriter& j) { j.field("protocol", kProtocolVersion).field("build", options.client_build); });
        !ok)
        return t->lost(where + " ended before it said hello");
    if (!t->m_reader.wait_readable(options.hello_timeout_ms)) {
        t->m_broken = "no hello";
        return Error{where + " did not say hello within " + std::to_string(options.hello_timeout_ms / 1000) + " s",
                     ErrorKind::Io};
    }
    MessageReader::Read r = t->m_reader.next();
    if (r.status == MessageReader::Status::Closed) return t->lost(where + " ended before it said hello");
    if (r.status != MessageReader::Status::Ok)
        return t->lost(where + " answered something that is not PathScope's protocol (" + r.error +
                       "): does the command print anything before pathscope-cli?");
    if (r.message.type() == "error") {
        t->m_broken = "refused";
        return Error{where + " refused: " + r.message.header.find("message")->string_or("no reason given"),
                     ErrorKind::Invalid};
    }
    if (r.message.type() != "hello") return t->lost(where + " answered '" + r.message.type() + "' to hello");
    auto hello = read_hello(r.message);
    if (!hello) return t->lost(where + ": " + hello.error().message);
    if (hello->protocol != kProtocolVersion) {
        t->m_broken = "version";
        return Error{where + " speaks PathScope protocol " + std::to_string(hello->protocol) + " (build " +
                         hello->build_commit + "), this side " + std::to_string(kProtocolVersion) + " (build " +
                         options.client_build + "): install the same PathScope version on both sides",
                     ErrorKind::Invalid};
    }
    t->m_hello = std::move(*hello);
    return t;
}

RemoteTarget::~RemoteTarget() {
    if (m_broken.empty()) (void)m_writer.send("bye", {});
    ::close(m_to);      // the server ends with its input, as ssh does with its session
    if (!reap(2000)) {  // a moment to leave on its own, then it is stopped
        ::kill(m_pid, SIGTERM);
        int status = 0;
        ::waitpid(m_pid, &status, 0);
    }
    ::close(m_from);
}

bool RemoteTarget::reap(int wait_ms) {
    for (int waited = 0; m_status < 0; waited += 20) {
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG) == m_pid)
            m_status = status;
        else if (waited >= wait_ms)
            break;
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return m_status >= 0;
}

std::string RemoteTarget::exit_text() {
    // The stream ended: the process is ending too. A little while for its status.
    return reap(1000) ? status_text(m_status) : std::string("still running");
}

Error RemoteTarget::lost(const std::string& what) {
    m_broken = what + " (" + exit_text() + ")";
    return Error{m_broken, ErrorKind::Io};
}

std::optional<VariantInfo> RemoteTarget::variant(std::string_view id) const {
    for (const RemoteVariant& v : m_hello.variants)
        if (v.info.id == id) return v.info;
    return std::nullopt;
}

std::optional<std::string> RemoteTarget::unavailable_reason(std::string_view id) const {
    for (const RemoteVariant& v : m_hello.variants)
        if (v.info.id == id) return v.available ? std::nullopt : std::optional<std::string>(v.unavailable_reason);
    return "no variant '" + std::string(id) + "' there";
}

Expected<RunReport> RemoteTarget::run(const RunRequest& request, const std::function<void(double)>& progress) {
    std::lock_guard lock(m_run);
    const std::string where = "the target '" + m_spec.label() + "'";
    if (!m_broken.empty()) return Error{where + " is not connected: " + m_broken, ErrorKind::Io};
    const auto info = variant(request.variant_id);
    if (!info) return Error{where + " has no variant '" + request.variant_id + "'"};
    const std::uint64_t id = ++m_next_id;
    const std::string hash = request.problem.map ? hash_of(*request.problem.map) : std::string();
    auto send_request = [&](bool with_cells) -> Expected<void> {
        std::vector<Blob> blobs;
        Expected<void> encoded;
        auto sent = m_writer.send(
            "run", [&](JsonWriter& j) { encoded = write_run_request(j, blobs, request, id, with_cells); }, blobs);
        if (!encoded) return encoded;
        if (!sent) return lost(where + ": the connection was lost sending the run");
        if (with_cells) m_sent_maps.insert(hash);
        return {};
    };
    // A request the protocol cannot carry (a roadmap) is refused before anything is sent.
    if (auto ok = can_send(request); !ok) return ok.error();
    if (auto ok = send_request(!m_sent_maps.count(hash)); !ok) return ok.error();
    bool resent = false, cancel_sent = false;
    for (;;) {
        if (!m_reader.wait_readable(50)) {
            if (!cancel_sent && request.context.cancel && request.context.cancel->load()) {
                cancel_sent = true;
                if (!m_writer.send("cancel", [&](JsonWriter& j) { j.field("id", id); }))
                    return lost(where + ": the connection was lost sending cancel");
            }
            continue;
        }
        MessageReader::Read r = m_reader.next();
        if (r.status == MessageReader::Status::Closed) return lost(where + ": the connection was lost mid-run");
        if (r.status != MessageReader::Status::Ok)
            return lost(where + " sent something that is not PathScope's protocol (" + r.error + ")");
        const Message& m = r.message;
        const JsonValue* mid = m.field("id");
        const bool ours = mid && mid->text == std::to_string(id);
        const std::string type = m.type();
        if (type == "progress" && ours) {
            if (progress) progress(m.field("fraction") ? m.field("fraction")->number : 0.0);
        } else if (type == "result" && ours) {
            auto report = read_run_report(m, *info);
            if (!report) return lost(where + " sent a result that does not decode: " + report.error().message);
            return report;
        } else if (type == "error" && (ours || !mid || mid->type == JsonValue::Type::Null)) {
            const std::string code = m.field("code") ? m.field("code")->string_or("") : "";
            const std::string message = m.field("message") ? m.field("message")->string_or("") : "";
            if (code == "map_unknown" && !resent) {  // evicted there, or the target restarted
                resent = true;
                m_sent_maps.erase(hash);
                if (auto ok = send_request(true); !ok) return ok.error();
                continue;
            }
            // The target refused the request: a run that failed, like a local one that is refused.
            RunReport report;
            report.info = *info;
            report.result = failed_run(where + ": " + message);
            return report;
        }
        // Anything else (a late progress of a cancelled run) is not ours to act on.
    }
}

}  // namespace ps::remote
