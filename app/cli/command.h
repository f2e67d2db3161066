#pragma once
// strobe-cli subcommands register themselves: adding a command is adding one file in app/cli/.

#include <functional>
#include <string>
#include <vector>

namespace strobe::app {

// Exit codes of strobe-cli.
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitBadInput = 3 };

struct CliCommand {
    std::string name;     // "summary"
    std::string summary;  // one line for `strobe-cli --help`
    std::string help;     // full text for `strobe-cli NAME --help`
    std::function<int(const std::vector<std::string>& args)> run;  // args after NAME
};

void registerCommand(CliCommand c);
const std::vector<CliCommand>& commands();

struct CommandRegistrar {
    explicit CommandRegistrar(CliCommand c) { registerCommand(std::move(c)); }
};

// Small helpers shared by commands.
bool hasFlag(const std::vector<std::string>& args, const std::string& flag);

}  // namespace strobe::app
