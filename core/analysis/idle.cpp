#include "core/analysis/idle.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include <fmt/format.h>

namespace strobe::core {

Result<Table> idleBreakdown(AnalysisContext& ctx, const WindowSpec& window, TimeNs kernelWaitNs) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    Table t;
    t.columns = kIdleColumns;
    static constexpr std::array<const char*, 3> kCauses = {"host_wait", "kernel_wait", "other"};
    for (const RankWindow& w : sel.value()->ranks) {
        const RankData& r = *w.data;
        if (w.empty()) {
            t.messages.push_back(fmt::format("idle: rank {} has no GPU activity in the window", w.rank));
            continue;
        }
        // Streams in order of first activity; selections are sorted by start already.
        std::vector<int32_t> order;
        std::unordered_map<int32_t, size_t> slot;
        struct Acc {
            std::array<TimeNs, 3> sum{};
            std::array<int64_t, 3> count{};
            std::array<TimeNs, 3> max{};
            std::array<bool, 3> present{};
            TimeNs prevEnd = 0;
            bool first = true;
        };
        std::vector<Acc> acc;
        for (size_t i = 0; i < w.size(); ++i) {
            int32_t s = r.gpu.stream.size() > w.row[i] ? r.gpu.stream[w.row[i]] : -1;
            auto [it, inserted] = slot.emplace(s, acc.size());
            if (inserted) {
                order.push_back(s);
                acc.emplace_back();
            }
            Acc& a = acc[it->second];
            if (a.first) {
                a.first = false;
                a.present[2] = true;  // HTA counts the first activity under "other" with no gap
            } else {
                TimeNs gap = w.start[i] - a.prevEnd;
                TimeNs rt = w.runtimeStart(i);
                size_t cause = 2;
                if (rt != INT64_MIN && rt > a.prevEnd)
                    cause = 0;
                else if (gap < kernelWaitNs)
                    cause = 1;
                a.sum[cause] += gap;
                a.count[cause] += 1;
                a.max[cause] = a.count[cause] == 1 ? gap : std::max(a.max[cause], gap);
                a.present[cause] = true;
            }
            a.prevEnd = w.end[i];
        }
        for (size_t k = 0; k < order.size(); ++k) {
            const Acc& a = acc[k];
            TimeNs total = a.sum[0] + a.sum[1] + a.sum[2];
            for (size_t c = 0; c < 3; ++c) {
                if (!a.present[c]) continue;
                Cell ratio;
                if (total != 0) ratio = static_cast<double>(a.sum[c]) / static_cast<double>(total);
                Cell mean, max;
                if (a.count[c] > 0) {
                    mean = static_cast<double>(a.sum[c]) / static_cast<double>(a.count[c]);
                    max = a.max[c];
                }
                t.addRow({int64_t{w.rank}, int64_t{order[k]}, std::string(kCauses[c]), a.sum[c], ratio, a.count[c],
                          mean, max});
            }
        }
    }
    return t;
}

namespace {
const IntParam kKernelWaitNs{"kernel-wait-ns", "kernel-wait-ns",
                             "gaps shorter than this between back-to-back kernels count as kernel wait (HTA: 30 µs)",
                             30000};
}  // namespace

AnalysisInfo idleAnalysisInfo() {
    return AnalysisInfo("idle", "GPU idle time per rank and stream by cause: host wait, kernel wait, other (HTA)",
                        {kKernelWaitNs.spec()}, kIdleColumns, [](AnalysisContext& ctx, const AnalysisRequest& req) {
                            return idleBreakdown(ctx, req.window, req.get(kKernelWaitNs));
                        });
}

}  // namespace strobe::core
