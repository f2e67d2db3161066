#include "core/analysis/temporal.h"
#include "core/analysis/columns.h"

#include <fmt/format.h>

namespace strobe::core {

Result<Table> temporalBreakdown(AnalysisContext& ctx, const WindowSpec& window) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    Table t;
    t.columns = kTemporalColumns;
    for (const RankWindow& w : sel.value()->ranks) {
        if (w.empty()) {
            t.addRow({int64_t{w.rank}, {}, {}, {}, {}, {}, {}, {}, int64_t{0}});
            t.messages.push_back(fmt::format("temporal: rank {} has no GPU activity in the window; its row is empty",
                                             w.rank));
            continue;
        }
        const TimeNs span = w.mergedAll.back().end - w.mergedAll.front().start;
        const TimeNs busy = totalLength(w.mergedAll);
        const TimeNs idle = span - busy;
        const TimeNs compute = totalLength(w.merged(HtaType::Computation));
        const TimeNs nonCompute = span - idle - compute;
        auto pct = [&](TimeNs v) -> Cell {
            if (span <= 0) return {};
            return 100.0 * static_cast<double>(v) / static_cast<double>(span);
        };
        t.addRow({int64_t{w.rank}, span, idle, compute, nonCompute, pct(idle), pct(compute), pct(nonCompute),
                  static_cast<int64_t>(w.size())});
        if (span <= 0)
            t.messages.push_back(fmt::format("temporal: rank {}: the GPU activities span no time", w.rank));
    }
    return t;
}

AnalysisInfo temporalAnalysisInfo() {
    return AnalysisInfo("temporal", "Idle, compute and non-compute GPU time per rank (HTA temporal breakdown)", {},
                        kTemporalColumns, windowOnly(temporalBreakdown));
}

}  // namespace strobe::core
