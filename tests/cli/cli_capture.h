#pragma once
// Runs one strobe-cli command in-process, as strobe-cli's main() would, and captures its exit code, stdout and
// stderr. Logging goes to stderr (as in main()), so that stdout holds only the command's output.
#include <gtest/gtest.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/command.h"

namespace strobe::test {

struct CliResult {
    int code = -1;
    std::string out;
    std::string err;
};

inline CliResult runCli(std::string_view command, const std::vector<std::string>& args) {
    static const bool logToStderr = [] {
        spdlog::set_default_logger(spdlog::stderr_color_mt("strobe_cli_test"));
        return true;
    }();
    (void)logToStderr;
    const app::CliCommand* cmd = app::findCommand(std::string(command));
    EXPECT_NE(cmd, nullptr) << command;
    if (cmd == nullptr) return {};
    CliResult r;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    r.code = cmd->run(args);
    std::fflush(stdout);
    std::fflush(stderr);
    r.out = testing::internal::GetCapturedStdout();
    r.err = testing::internal::GetCapturedStderr();
    return r;
}

}  // namespace strobe::test
