// strobe-cli: the headless side of Strobe. Subcommands live in app/cli/cmd_*.cpp.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"

using namespace strobe::app;

namespace {
void printHelp(FILE* out) {
    fmt::print(out,
               "Usage: strobe-cli COMMAND [ARGS...]\n"
               "       strobe-cli --help | --version\n\n"
               "Strobe {} — GPU performance workbench, headless.\n\nCommands:\n",
               STROBE_VERSION);
    for (const auto& c : commands()) fmt::print(out, "  {:<12} {}\n", c.name, c.summary);
    fmt::print(out,
               "\nRun 'strobe-cli COMMAND --help' for a command's options.\n"
               "Exit codes: 0 ok, 1 failure, 2 usage error, 3 unreadable input.\n");
}
}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        printHelp(stderr);
        return kExitUsage;
    }
    const std::string& first = args.front();
    if (first == "--help" || first == "-h" || first == "help") {
        printHelp(stdout);
        return kExitOk;
    }
    if (first == "--version" || first == "-V") {
        fmt::print("strobe-cli {}\n", STROBE_VERSION);
        return kExitOk;
    }
    for (const auto& c : commands()) {
        if (c.name != first) continue;
        std::vector<std::string> rest(args.begin() + 1, args.end());
        if (hasFlag(rest, "--help") || hasFlag(rest, "-h")) {
            fmt::print("{}\n", c.help.empty() ? c.summary : c.help);
            return kExitOk;
        }
        return c.run(rest);
    }
    fmt::print(stderr, "strobe-cli: unknown command '{}'\n\n", first);
    printHelp(stderr);
    return kExitUsage;
}
