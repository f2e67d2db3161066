#pragma once
// strobe-cli subcommands register themselves: adding a command is adding one file in app/cli/.
//
// Conventions every command follows (main.cpp handles `COMMAND --help` before `run` is called):
//   - results go to stdout, diagnostics and errors to stderr;
//   - exit codes: 0 ok, 1 failure, 2 usage error (unknown option, missing or bad argument), 3 unreadable input;
//   - a usage error prints one line naming the problem and a hint to `strobe-cli COMMAND --help`.
// ArgParser below gives every command the same option syntax: `--name value`, `--name=value`, short aliases
// (`-o value`), `--` ends options, and anything starting with '-' that is not declared is rejected.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/dataset.h"

namespace strobe::app {

// Exit codes of strobe-cli.
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitBadInput = 3 };

struct CliCommand {
    std::string name;                                              // "summary"
    std::string summary;                                           // one line for `strobe-cli --help`
    std::string help;                                              // full text for `strobe-cli NAME --help`
    std::function<int(const std::vector<std::string>& args)> run;  // args after NAME
};

void registerCommand(CliCommand c);
const std::vector<CliCommand>& commands();
const CliCommand* findCommand(std::string_view name);

struct CommandRegistrar {
    explicit CommandRegistrar(CliCommand c) { registerCommand(std::move(c)); }
};

// Small helpers shared by commands.
bool hasFlag(const std::vector<std::string>& args, const std::string& flag);

// True when args asks for help (-h or --help before any `--`).
bool wantsHelp(const std::vector<std::string>& args);

// Prints "strobe-cli COMMAND: message" and a --help hint to stderr; returns kExitUsage.
int usageError(std::string_view command, std::string_view message);
// Results go to stdout (so --json and --csv - stay parseable); loaders' log lines go to stderr. Commands call
// this before loading, so the rule holds however they are invoked (strobe-cli's main, or a test).
void logToStderr();

// After a load: each rank's warnings and errors to stderr ("strobe-cli COMMAND: file: where: message"), at most
// `perRank` per file and then a count of the rest; and the run-level errors (a file that failed while others
// loaded). Returns true when there was a run-level error (the command then exits with kExitBadInput).
// Run-level warnings are logged by the loader itself.
bool reportLoadDiagnostics(std::string_view command, const core::Dataset& dataset, size_t perRank = 10);

struct OptionSpec {
    std::string name;       // long name without dashes: "top"
    char shortName = '\0';  // 'o' for -o, '\0' for none
    bool takesValue = false;
    bool repeatable = false;  // a value option that may be given several times
};

class ArgParser {
public:
    ArgParser(std::string command, std::vector<OptionSpec> options);

    // Parses args (everything after the command name). On failure returns false and error() says why.
    bool parse(const std::vector<std::string>& args);
    const std::string& error() const { return m_error; }

    bool has(std::string_view name) const;
    std::optional<std::string> value(std::string_view name) const;  // last value given
    std::vector<std::string> values(std::string_view name) const;   // every value, in order
    const std::vector<std::string>& positionals() const { return m_positionals; }

    // A non-negative integer option; false (with error()) when present but not a number in [min, max].
    bool intValue(std::string_view name, int64_t& out, int64_t min, int64_t max);

private:
    const OptionSpec* findLong(std::string_view name) const;
    const OptionSpec* findShort(char c) const;

    std::string m_command;
    std::vector<OptionSpec> m_specs;
    std::vector<std::pair<std::string, std::string>> m_given;  // name, value ("" for flags)
    std::vector<std::string> m_positionals;
    std::string m_error;
};

// JSON string literal for s (quotes included): escapes control characters, '"' and '\\', and replaces
// invalid UTF-8 with U+FFFD so that the output is always valid JSON.
std::string jsonQuote(std::string_view s);

}  // namespace strobe::app
