#pragma once
// strobe-cli subcommands register themselves: adding a command is adding one file in app/cli/.
//
// Conventions every command follows (main.cpp handles `COMMAND --help` before `run` is called):
//   - results go to stdout, diagnostics and errors to stderr;
//   - exit codes: 0 ok, 1 failure, 2 usage error (unknown option, missing or bad argument), 3 unreadable input;
//   - a usage error prints one line naming the problem and a hint to `strobe-cli COMMAND --help`.
// ArgParser below gives every command the same option syntax (options declared as core::ParamSpec, see CliOption):
// `--name value`, `--name=value`, short aliases
// (`-o value`), `--` ends options, and anything starting with '-' that is not declared is rejected.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/run_loader.h"
#include "core/model/dataset.h"
#include "core/params/param.h"

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

// How every command loads: each run is the one load job of core/engine/load_job.h, submitted to a JobRunner whose
// memory limit is options.memoryLimitBytes (else MemoryBudget's default); runs load side by side within it.
// Results in the order given; `onLoaded(i)` as each ends.
std::vector<core::Result<core::DatasetPtr>> loadRunsAsJobs(const std::vector<std::vector<std::string>>& runs,
                                                           const core::RunLoadOptions& options,
                                                           const std::function<void(size_t)>& onLoaded = {});
// One run through the load job.
core::Result<core::DatasetPtr> loadRunAsJob(const std::vector<std::string>& paths, const core::RunLoadOptions& options);

// How a command that reads one run loads it: a PATH that does not exist is named before anything loads; then the
// load job (loadRunAsJob); a run without ranks (and, with `hostsCount`, without telemetry hosts) is "no traces found
// in ..."; then reportLoadDiagnostics. `data` is null when the command must exit with `exit` (kExitBadInput);
// `loadFailed` is reportLoadDiagnostics' answer (a file failed while others loaded).
struct CommandRun {
    core::DatasetPtr data;
    int exit = 0;
    bool loadFailed = false;
};
CommandRun loadCommandRun(std::string_view command, const std::vector<std::string>& paths,
                          const core::RunLoadOptions& options, bool hostsCount = false);

// One option of a command: a core::ParamSpec (the same vocabulary as plot and analysis parameters; its key is the
// long name) plus the two facts only a command line has. A Bool spec is a flag without a value; any other type
// takes a value, coerced by core::coerceValue (the rule of --set, sessions and tool specs), so a wrongly typed
// value is a usage error naming the option and the value. A repeatable option must be a StringList: each
// occurrence adds one item, taken as given.
struct CliOption {
    core::ParamSpec spec;
    char shortName = '\0';    // 'o' for -o, '\0' for none
    bool repeatable = false;  // may be given several times (StringList only)

    CliOption(core::ParamSpec s, char shortName_ = '\0', bool repeatable_ = false)
        : spec(std::move(s)), shortName(shortName_), repeatable(repeatable_) {}
    template <core::ParamType K>
    CliOption(const core::Param<K>& p, char shortName_ = '\0', bool repeatable_ = false)
        : CliOption(p.spec(), shortName_, repeatable_) {}
};

// Flags several commands share.
inline const core::BoolParam kJsonFlag{"json", "JSON", "One JSON document on stdout", false};
inline const core::BoolParam kNoCacheFlag{"no-cache", "No cache", "Neither read nor write the on-disk load cache",
                                          false};

// --clock-offset NS: anchors sources whose clock is not realtime (rocprof boot-time ns, nsys session time...) by adding
// NS to their times; without it (or a run manifest's anchors) sources on different clocks are not overlaid.
inline const core::IntParam kClockOffset =
    core::IntParam{"clock-offset", "Clock offset (ns)",
                   "Nanoseconds added to the times of sources not on the realtime clock to reach Unix-epoch time", 0}
        .bounded(-(1LL << 62), 1LL << 62, 1);

class ArgParser {
public:
    ArgParser(std::string command, std::vector<CliOption> options);

    // Parses args (everything after the command name) and coerces each value by its spec. On failure returns
    // false and error() says why, naming the option (and the value when it is the value that is wrong).
    bool parse(const std::vector<std::string>& args);
    const std::string& error() const { return m_error; }

    // The values given on the command line, coerced (absent options are absent).
    const core::ParamValues& given() const { return m_values; }
    bool has(const core::ParamSpec& spec) const { return m_values.count(spec.key) != 0; }
    template <core::ParamType K>
    bool has(const core::Param<K>& p) const {
        return has(p.spec());
    }
    // The value of p: the one given, else p's default.
    template <core::ParamType K>
    typename core::Param<K>::Value get(const core::Param<K>& p) const {
        return p(m_values);
    }
    const std::vector<std::string>& positionals() const { return m_positionals; }

private:
    const CliOption* findLong(std::string_view name) const;
    const CliOption* findShort(char c) const;

    std::string m_command;
    std::vector<CliOption> m_options;
    core::ParamValues m_values;
    std::vector<std::string> m_positionals;
    std::string m_error;
};

// JSON string literal for s (quotes included): escapes control characters, '"' and '\\', and replaces
// invalid UTF-8 with U+FFFD so that the output is always valid JSON.
std::string jsonQuote(std::string_view s);
// {"key": "value", ...} of a string map (sweep parameters), keys in map order.
std::string jsonStringMap(const std::map<std::string, std::string>& m);
// Prints rows as left-aligned columns two spaces apart (the last column unpadded), to stdout.
void printAlignedTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace strobe::app
