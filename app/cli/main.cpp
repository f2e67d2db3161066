// strobe-cli: the headless side of Strobe. Subcommands live in app/cli/cmd_*.cpp and register themselves.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/cli/command.h"

using namespace strobe::app;

namespace {

void printHelp(FILE* out) {
    fmt::print(out,
               "Usage: strobe-cli COMMAND [OPTIONS] [ARGS...]\n"
               "       strobe-cli --help | --version\n"
               "       strobe-cli help COMMAND\n\n"
               "Strobe {}: the headless side of the Strobe GPU performance workbench.\n\n"
               "Commands:\n",
               STROBE_VERSION);
    for (const auto& c : commands()) fmt::print(out, "  {:<12} {}\n", c.name, c.summary);
    fmt::print(out,
               "\nOptions:\n"
               "  -h, --help     show this help and exit\n"
               "  -V, --version  show the version and exit\n\n"
               "Run 'strobe-cli COMMAND --help' for a command's options.\n"
               "Exit codes: 0 ok, 1 failure, 2 usage error, 3 unreadable input.\n");
}

void printCommandHelp(const CliCommand& c) {
    fmt::print("{}\n", c.help.empty() ? c.summary : c.help);
    std::fflush(stdout);
}

int dispatch(const std::vector<std::string>& args) {
    if (args.empty()) {
        printHelp(stderr);
        return kExitUsage;
    }
    const std::string& first = args.front();
    if (first == "--help" || first == "-h") {
        printHelp(stdout);
        return kExitOk;
    }
    if (first == "--version" || first == "-V") {
        fmt::print("strobe-cli {}\n", STROBE_VERSION);
        return kExitOk;
    }
    if (first == "help") {
        if (args.size() == 1) {
            printHelp(stdout);
            return kExitOk;
        }
        if (const CliCommand* c = findCommand(args[1])) {
            printCommandHelp(*c);
            return kExitOk;
        }
        fmt::print(stderr, "strobe-cli: unknown command '{}'\nRun 'strobe-cli --help' for the list.\n", args[1]);
        return kExitUsage;
    }
    if (!first.empty() && first[0] == '-') {
        fmt::print(stderr, "strobe-cli: unknown option '{}'\nRun 'strobe-cli --help' for usage.\n", first);
        return kExitUsage;
    }
    const CliCommand* c = findCommand(first);
    if (c == nullptr) {
        fmt::print(stderr, "strobe-cli: unknown command '{}'\nRun 'strobe-cli --help' for the list.\n", first);
        return kExitUsage;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (wantsHelp(rest)) {
        printCommandHelp(*c);
        return kExitOk;
    }
    return c->run(rest);
}

}  // namespace

// Log messages go to stderr, never into the results on stdout (JSON must stay parseable). Warnings and errors
// only by default; SPDLOG_LEVEL=info (or debug) shows more.
static void setUpLogging() {
    auto logger = spdlog::stderr_color_mt("strobe-cli");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::warn);
    spdlog::cfg::load_env_levels();
}

int main(int argc, char** argv) {
    try {
        setUpLogging();
        const int rc = dispatch(std::vector<std::string>(argv + 1, argv + argc));
        if (std::fflush(stdout) != 0) {
            std::fputs("strobe-cli: could not write the output\n", stderr);
            return kExitFailure;
        }
        return rc;
    } catch (const std::exception& e) {
        // Last resort: libraries return errors instead of throwing, but a bad_alloc must not abort silently.
        fmt::print(stderr, "strobe-cli: internal error: {}\n", e.what());
        return kExitFailure;
    }
}
