// pathscope-cli history (list / show / export / delete / import / vacuum) and the storing
// behind `pathscope-cli run --db FILE`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/cli_args.hpp"
#include "database/recorder.hpp"

namespace ps::cli {

// `history [SUBCOMMAND] ...`: parses its own arguments, since subcommands take run ids and
// files as positional arguments. Exit codes: 0 ok, 2 bad input or a storage error.
int cmd_history(const std::vector<std::string>& argv);
// pathscope-cli trace export ID --format chrome|csv [--out F] [--db F]
int cmd_trace(const std::vector<std::string>& argv);

// `run --db FILE`: the history is opened before the first run, so a bad path fails before
// any time is spent searching. Without --db it stores nothing.
class RunStorage {
public:
    static Expected<RunStorage> open(const Args& args);

    db::HistoryRecorder* observer() { return m_recorder.get(); }
    const db::History* history() const { return m_history.get(); }
    // Call after each run_variant: stores refused and failed runs too, and says where the run
    // went (on stdout, or on stderr under --json so that stdout stays JSON). False, with the
    // error on stderr, when storing failed.
    bool store(const RunRequest& request, const RunReport& report, bool json);

private:
    std::unique_ptr<db::History> m_history;  // heap-held: the recorder keeps a reference
    std::unique_ptr<db::HistoryRecorder> m_recorder;
};

}  // namespace ps::cli
