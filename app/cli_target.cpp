// pathscope-cli's remote targets (cli_target.hpp).
#include "app/cli_target.hpp"

#include <unistd.h>

#include <cstdio>

#include "app/cli_text.hpp"
#include "database/recorder.hpp"
#include "kernels/gpu/gpu_info.hpp"
#include "kernels/remote/server.hpp"

namespace ps::cli {

Expected<std::shared_ptr<remote::RemoteTarget>> open_target(const Args& args) {
    const auto prefix = args.get("target");
    if (!prefix) {
        if (args.has("remote-cli")) return Error{"--remote-cli names the program on a --target"};
        return std::shared_ptr<remote::RemoteTarget>();
    }
    remote::TargetSpec spec;
    spec.prefix = *prefix;
    if (auto cli = args.get("remote-cli")) spec.remote_cli = *cli;
    remote::ConnectOptions options;
    options.client_build = db::build_commit();
    auto target = remote::RemoteTarget::connect(spec, options);
    if (!target) return target.error();
    const ExecutionSite& site = (*target)->site();
    std::fprintf(args.has("json") ? stderr : stdout, "target %s: host %s, %s, build %s\n", spec.label().c_str(),
                 site.host.c_str(),
                 site.gpu_available ? site.gpu_name.c_str() : ("no GPU (" + site.gpu_reason + ")").c_str(),
                 site.build_commit.c_str());
    return target;
}

int cmd_serve(const Args& args) {
    remote::ServeOptions options;
    auto max_mb = args.integer("max-request-mb", std::int64_t(options.limits.max_request_bytes >> 20), 1, 1 << 20);
    if (!max_mb) return bad_input(max_mb.error().message);
    options.limits.max_request_bytes = std::uint64_t(*max_mb) << 20;
    options.build_commit = db::build_commit();
    ExecutionSite& site = options.site;
    site.host = db::host_name();
    site.cpu_model = db::cpu_model();
    site.build_commit = options.build_commit;
    const GpuInfo& gpu = gpu_info();
    site.gpu_available = gpu.available;
    site.gpu_name = gpu.name;
    site.gpu_reason = gpu.reason;
    site.driver_version = gpu.driver_version;
    site.runtime_version = gpu.runtime_version;
    return remote::serve(STDIN_FILENO, STDOUT_FILENO, options);
}

}  // namespace ps::cli
