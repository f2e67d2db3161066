#include "core/analysis/overlap.h"
#include "core/analysis/columns.h"

#include <fmt/format.h>

namespace strobe::core {

Result<Table> commCompOverlap(AnalysisContext& ctx, const WindowSpec& window) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    Table t;
    t.columns = kOverlapColumns;
    for (const RankWindow& w : sel.value()->ranks) {
        const auto& comm = w.merged(HtaType::Communication);
        const auto& comp = w.merged(HtaType::Computation);
        const TimeNs commNs = totalLength(comm);
        const TimeNs compNs = totalLength(comp);
        const TimeNs both = intersectionLength(comm, comp);
        Cell pct;
        if (commNs > 0) {
            pct = 100.0 * static_cast<double>(both) / static_cast<double>(commNs);
        } else {
            t.messages.push_back(fmt::format(
                "overlap: rank {} has no communication kernel in the window: its overlap is undefined", w.rank));
        }
        t.addRow({int64_t{w.rank}, commNs, compNs, both, pct});
    }
    return t;
}

AnalysisInfo overlapAnalysisInfo() {
    return AnalysisInfo("overlap", "Share of merged communication time during which computation runs, per rank (HTA)",
                        {}, kOverlapColumns, windowOnly(commCompOverlap));
}

}  // namespace strobe::core
