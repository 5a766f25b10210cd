// pathscope-cli as a user runs it: a child process, its exit code, stdout and stderr. For the
// tests (pathscope_cli_tests, and the batch CLI checks in pathscope_kernels_tests), where
// PATHSCOPE_CLI names the built binary.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "tests/support/test_support.hpp"

namespace ps::test {

struct CliResult {
    int exit_code = -1;
    std::string out, err;
};

inline CliResult run_cli(const std::string& args) {
    const std::string out = temp_path("cli.out"), err = temp_path("cli.err");
    const int status = std::system((std::string(PATHSCOPE_CLI) + " " + args + " >" + out + " 2>" + err).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, file_bytes(out), file_bytes(err)};
}

}  // namespace ps::test
