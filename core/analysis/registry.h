#pragma once
// The analyses, listed once so that the command line (`strobe-cli analyze --list`) and the GUI show the same
// names, options and columns. Each analysis is a pure function of a loaded run (through its AnalysisContext,
// which caches the per-window selections) and typed options, returning a Table. Options are core ParamSpecs
// (core/params): each analysis declares them once as typed handles and reads them through those handles.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/analysis/context.h"
#include "core/analysis/table.h"
#include "core/io/error.h"
#include "core/params/param.h"

namespace strobe::core {

// Options of one run keyed by ParamSpec::key (command line: --key value). Given as text (the command line) or
// typed; runAnalysis() coerces them with the analysis' specs (core::coerceValue) and fills the defaults, so an
// analysis reads each through its handle: `kTop(req.values)` or `req.get(kTop)`.
class AnalysisRequest {
public:
    WindowSpec window;
    ParamValues values;

    template <ParamType K>
    typename Param<K>::Value get(const Param<K>& p) const {
        return p.get(values);
    }
};

using AnalysisFn = std::function<Result<Table>(AnalysisContext&, const AnalysisRequest&)>;

struct AnalysisInfo {
    // A constructor, not only aggregate initialisation: clang 14 (the fuzz build) has no parenthesised aggregates.
    AnalysisInfo() = default;
    AnalysisInfo(std::string name_, std::string description_, std::vector<ParamSpec> options_,
                 std::vector<std::string> columns_, AnalysisFn run_)
        : name(std::move(name_)), description(std::move(description_)), options(std::move(options_)),
          columns(std::move(columns_)), run(std::move(run_)) {}

    std::string name;         // "temporal"
    std::string description;  // one line
    std::vector<ParamSpec> options;    // the spec's tooltip is the option's help line
    std::vector<std::string> columns;  // the stable column names of the default view
    AnalysisFn run;
};

// The run function of an analysis without options of its own: it reads the request's window only.
AnalysisFn windowOnly(Result<Table> (*analysis)(AnalysisContext&, const WindowSpec&));

// Every analysis, in the order the issue lists them.
const std::vector<AnalysisInfo>& analysisRegistry();
const AnalysisInfo* findAnalysis(std::string_view name);

// Coerces the option values with the specs (core::coerceValue: unknown keys, wrong types, enum choices, bad
// regexes are errors naming the key and the value), fills defaults, then runs. The window's messages are appended to the table's.
Result<Table> runAnalysis(AnalysisContext& ctx, std::string_view name, const AnalysisRequest& request);

}  // namespace strobe::core
