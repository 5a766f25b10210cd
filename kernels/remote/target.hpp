// A remote target: `PREFIX pathscope-cli serve` started as a subprocess (PREFIX: "ssh gpu-host",
// "ssh -J bastion gpu-host", "srun --gres=gpu:1", "docker exec -i box", or nothing for a local
// subprocess), spoken to through the remote protocol (protocol.hpp). It is the runner's
// Executor: a request with it set runs there, and its report comes back whole. Authentication
// is the user's own ssh or Slurm setup; nothing here stores or asks for a password.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "kernels/remote/protocol.hpp"

namespace ps::remote {

struct TargetSpec {
    std::string prefix;                        // empty: a local subprocess
    std::string remote_cli = "pathscope-cli";  // the program on the target
    std::string command() const;               // what /bin/sh -c runs
    std::string label() const;                 // "ssh gpu-host", or "local subprocess"
};

struct ConnectOptions {
    std::string client_build;      // said in messages about a version mismatch
    int hello_timeout_ms = 60000;  // ssh and srun may take a while to start
    Limits limits;
};

class RemoteTarget final : public Executor {
public:
    // Starts the command and says hello. Errors name the command and what went wrong: it ended
    // (with its exit status), answered something that is not the protocol, or speaks another
    // version (both named).
    static Expected<std::shared_ptr<RemoteTarget>> connect(const TargetSpec& spec, const ConnectOptions& options = {});
    ~RemoteTarget() override;
    RemoteTarget(const RemoteTarget&) = delete;
    RemoteTarget& operator=(const RemoteTarget&) = delete;

    const TargetSpec& spec() const { return m_spec; }
    const Hello& hello() const { return m_hello; }
    const ExecutionSite& site() const override { return m_hello.site; }
    std::optional<VariantInfo> variant(std::string_view id) const override;
    std::optional<std::string> unavailable_reason(std::string_view id) const override;
    // One run at a time per target (calls from several threads queue). A lost connection, or
    // a reply that is not the protocol, is an Error and leaves the target unusable.
    Expected<RunReport> run(const RunRequest& request, const std::function<void(double)>& progress) override;

private:
    RemoteTarget(TargetSpec spec, ConnectOptions options, pid_t pid, int to_fd, int from_fd);
    Error lost(const std::string& what);
    std::string exit_text();
    bool reap(int wait_ms);  // the child's status into m_status, waiting up to wait_ms; false: still running

    TargetSpec m_spec;
    ConnectOptions m_options;
    pid_t m_pid;
    int m_to, m_from;
    MessageWriter m_writer;
    MessageReader m_reader;
    Hello m_hello;
    std::mutex m_run;
    std::uint64_t m_next_id = 0;
    std::set<std::string> m_sent_maps;  // hashes the target has been sent on this connection
    std::string m_broken;               // why the connection is unusable, once it is
    int m_status = -1;                  // the child's wait status once reaped
};

}  // namespace ps::remote
