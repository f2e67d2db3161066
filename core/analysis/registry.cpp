#include "core/analysis/registry.h"

#include <fmt/format.h>

#include "core/analysis/critical_path.h"
#include "core/analysis/event_summary.h"
#include "core/analysis/idle.h"
#include "core/analysis/kernel_stats.h"
#include "core/analysis/kernel_types.h"
#include "core/analysis/launch.h"
#include "core/analysis/memory.h"
#include "core/analysis/memory_timeline.h"
#include "core/analysis/op_efficiency.h"
#include "core/analysis/overlap.h"
#include "core/analysis/phases.h"
#include "core/analysis/rank_steps.h"
#include "core/analysis/straggler.h"
#include "core/analysis/temporal.h"
#include "core/analysis/window.h"

namespace strobe::core {

const std::vector<AnalysisInfo>& analysisRegistry() {
    static const std::vector<AnalysisInfo> list = {
        temporalAnalysisInfo(), kernelTypesAnalysisInfo(), overlapAnalysisInfo(), idleAnalysisInfo(),
        stragglerAnalysisInfo(), launchAnalysisInfo(),      phasesAnalysisInfo(),  windowAnalysisInfo(),
        kernelStatsAnalysisInfo(), memoryAnalysisInfo(), memoryTimelineAnalysisInfo(), opsAnalysisInfo(),
        eventSummaryAnalysisInfo(),
        criticalPathAnalysisInfo(), whatIfAnalysisInfo(), rankStepsAnalysisInfo(),
    };
    return list;
}

AnalysisFn windowOnly(Result<Table> (*analysis)(AnalysisContext&, const WindowSpec&)) {
    return [analysis](AnalysisContext& ctx, const AnalysisRequest& req) { return analysis(ctx, req.window); };
}

const AnalysisInfo* findAnalysis(std::string_view name) {
    for (const auto& a : analysisRegistry())
        if (a.name == name) return &a;
    return nullptr;
}

Result<Table> runAnalysis(AnalysisContext& ctx, std::string_view name, const AnalysisRequest& request) {
    const AnalysisInfo* info = findAnalysis(name);
    if (!info) return Error(fmt::format("unknown analysis '{}' (see strobe-cli analyze --list)", name));
    AnalysisRequest req = request;
    for (const auto& [key, value] : request.values) {
        const ParamSpec* spec = findSpec(info->options, key);
        if (!spec) return Error(fmt::format("analysis '{}' has no option --{}", name, key));
        auto v = coerceValue(*spec, value);
        if (!v) return v.error();
        req.values[key] = std::move(v.value());
    }
    for (const auto& o : info->options)
        if (!req.values.count(o.key)) req.values[o.key] = o.defaultValue;
    auto sel = ctx.select(req.window);
    if (!sel) return sel.error();
    auto table = info->run(ctx, req);
    if (!table) return table;
    Table t = std::move(table.value());
    std::vector<std::string> msgs = sel.value()->messages;
    msgs.insert(msgs.end(), t.messages.begin(), t.messages.end());
    t.messages = std::move(msgs);
    return t;
}

}  // namespace strobe::core
