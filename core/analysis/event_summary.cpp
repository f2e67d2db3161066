#include "core/analysis/event_summary.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace strobe::core {

namespace {
double toUsEventSummary(TimeNs ns) { return static_cast<double>(static_cast<long double>(ns) / 1000.0L); }
TimeNs roundedStart(TimeNs ts) { return static_cast<TimeNs>(std::ceil(toUsEventSummary(ts))) * 1000; }
TimeNs roundedEnd(TimeNs ts, TimeNs dur) {
    return static_cast<TimeNs>(std::floor(toUsEventSummary(ts) + toUsEventSummary(dur))) * 1000;
}
}  // namespace

Result<Table> eventSummary(AnalysisContext& ctx, const WindowSpec& window) {
    auto selR = ctx.select(window);
    if (!selR) return selR.error();
    const WindowSelection& sel = *selR.value();
    Table t;
    t.columns = kEventColumns;
    const bool hta = sel.spec.kind == WindowKind::Hta || sel.spec.kind == WindowKind::HtaIncludeLast;
    for (const RankWindow& w : sel.ranks) {
        const RankData& r = *w.data;
        std::vector<std::pair<int64_t, TimeNs>> byCat(r.strings.size(), {0, 0});  // by category string id
        // CPU side: which slices the window keeps.
        TimeNs htaLimit = INT64_MAX;
        bool htaFilters = false;
        if (hta) {
            // HTA's last ProfilerStep start on this rank (CPU-side events start before it).
            bool found = false;
            TimeNs lastStart = INT64_MIN;
            const auto& isStep = ctx.stepNameIds(w.rankIndex);
            for (size_t i = 0; i < r.slices.size(); ++i) {
                if (!isStep[r.slices.name[i]]) continue;
                if (r.slices.phase[i] != 'X' || r.slices.cat[i] == kEmptyStr || r.strings.view(r.slices.cat[i]) == "Trace")
                    continue;
                lastStart = std::max(lastStart, w.htaRounded ? roundedStart(r.slices.ts[i]) : r.slices.ts[i]);
                found = true;
            }
            const bool runFilters = sel.htaFiltered;
            if (runFilters && sel.spec.kind == WindowKind::Hta) {
                htaFilters = true;
                htaLimit = found ? lastStart : INT64_MIN;
            }
        }
        std::vector<std::pair<TimeNs, TimeNs>> spans;  // step windows: CPU slices starting inside
        if (sel.spec.kind == WindowKind::Steps || sel.spec.kind == WindowKind::StepList) {
            for (const auto& s : ctx.steps(w.rankIndex))
                if (sel.spec.kind == WindowKind::Steps ||
                    std::binary_search(sel.spec.steps.begin(), sel.spec.steps.end(), s.number))
                    spans.emplace_back(s.start, s.end);
            if (sel.spec.kind == WindowKind::Steps && !spans.empty()) {
                TimeNs a = spans.front().first, b = spans.front().second;
                for (auto& s : spans) a = std::min(a, s.first), b = std::max(b, s.second);
                spans = {{a, b}};
            }
        }
        for (size_t i = 0; i < r.slices.size(); ++i) {
            if (r.slices.phase[i] != 'X' || r.slices.cat[i] == kEmptyStr) continue;
            std::string_view cat = r.strings.view(r.slices.cat[i]);
            if (cat == "Trace") continue;
            TimeNs ts = r.slices.ts[i], dur = r.slices.dur[i];
            if (w.htaRounded) {
                TimeNs s = roundedStart(ts);
                dur = roundedEnd(ts, dur) - s;
                ts = s;
            }
            switch (sel.spec.kind) {
            case WindowKind::Hta:
                if (htaFilters && !(ts < htaLimit)) continue;
                break;
            case WindowKind::Range:
                if (ts < sel.spec.from || ts >= sel.spec.to) continue;
                break;
            case WindowKind::Steps:
            case WindowKind::StepList: {
                bool in = false;
                for (const auto& s : spans) in = in || (ts >= s.first && ts < s.second);
                if (!in) continue;
                break;
            }
            default: break;
            }
            auto& a = byCat[r.slices.cat[i]];
            a.first += 1;
            a.second += dur;
        }
        for (size_t i = 0; i < w.size(); ++i) {
            auto& a = byCat[r.gpu.cat[w.row[i]]];
            a.first += 1;
            a.second += w.end[i] - w.start[i];
        }
        std::map<std::string, std::pair<int64_t, TimeNs>> acc;  // same text, several ids: summed
        for (StrId id = 0; id < byCat.size(); ++id) {
            if (byCat[id].first == 0) continue;
            auto& a = acc[r.strings.str(id)];
            a.first += byCat[id].first;
            a.second += byCat[id].second;
        }
        for (const auto& [cat, a] : acc) t.addRow({int64_t{w.rank}, cat, a.first, a.second});
        if (acc.empty()) t.messages.push_back(fmt::format("events: rank {} has no event in the window", w.rank));
    }
    return t;
}

AnalysisInfo eventSummaryAnalysisInfo() {
    return AnalysisInfo("events",
                        "Count and total duration of the window's events per rank and category (HTA's event table)", {},
                        kEventColumns, windowOnly(eventSummary));
}

}  // namespace strobe::core
