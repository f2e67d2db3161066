#pragma once
// The analyses, listed once so that the command line (`strobe-cli analyze --list`) and the GUI show the same
// names, options and columns. Each analysis is a pure function of a loaded run (through its AnalysisContext,
// which caches the per-window selections) and typed options, returning a Table.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/context.h"
#include "core/analysis/table.h"
#include "core/io/error.h"

namespace strobe::core {

enum class OptionType : uint8_t { Int, Double, Bool, String, Enum, Regex };
std::string_view toString(OptionType t);

struct OptionSpec {
    std::string key;           // command line: --key value
    OptionType type = OptionType::String;
    std::string defaultValue;  // as text
    std::string help;
    std::vector<std::string> choices;  // Enum
};

// Options of one run, as text keyed by OptionSpec::key; typed access falls back to the spec default.
class AnalysisRequest {
public:
    WindowSpec window;
    std::map<std::string, std::string> values;

    int64_t getInt(const std::string& key, int64_t fallback) const;
    double getDouble(const std::string& key, double fallback) const;
    bool getBool(const std::string& key, bool fallback) const;
    std::string getString(const std::string& key, const std::string& fallback) const;
};

using AnalysisFn = std::function<Result<Table>(AnalysisContext&, const AnalysisRequest&)>;

struct AnalysisInfo {
    std::string name;         // "temporal"
    std::string description;  // one line
    std::vector<OptionSpec> options;
    std::vector<std::string> columns;  // the stable column names of the default view
    AnalysisFn run;
};

// Every analysis, in the order the issue lists them.
const std::vector<AnalysisInfo>& analysisRegistry();
const AnalysisInfo* findAnalysis(std::string_view name);

// Validates the option values against the specs (unknown keys, wrong types, enum choices, bad regexes),
// fills defaults, then runs. The window's messages are appended to the table's.
Result<Table> runAnalysis(AnalysisContext& ctx, std::string_view name, const AnalysisRequest& request);

}  // namespace strobe::core
