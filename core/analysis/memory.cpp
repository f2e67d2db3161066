#include "core/analysis/memory.h"
#include "core/analysis/columns.h"

#include <array>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace strobe::core {

__extension__ using Int128 = __int128;  // GCC and clang

Result<Table> memoryTraffic(AnalysisContext& ctx, const WindowSpec& window) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    Table t;
    t.columns = kMemoryColumns;
    bool any = false;
    for (const RankWindow& w : sel.value()->ranks) {
        const RankData& r = *w.data;
        struct Acc {
            int64_t count = 0, missingBytes = 0;
            Int128 bytes = 0;  // byte counts are as written (up to 2^63 each): their sum may not fit int64
            TimeNs ns = 0;
        };
        std::map<std::pair<int, std::string>, Acc> acc;  // (0 memcpy / 1 memset, direction)
        const bool haveDir = r.gpu.copyDirection.size() == r.gpu.size() && r.gpu.size() > 0;
        std::vector<int8_t> dirByName;  // cache of direction from name, per name id
        for (size_t i = 0; i < w.size(); ++i) {
            uint32_t g = w.row[i];
            EventKind k = r.gpu.kind.size() > g ? r.gpu.kind[g] : EventKind::Kernel;
            if (k != EventKind::Memcpy && k != EventKind::Memset) continue;
            std::string dir = "-";
            if (k == EventKind::Memcpy) {
                CopyDirection d = CopyDirection::Unknown;
                if (haveDir && r.gpu.copyDirection[g] != CopyDirection::None) {
                    d = r.gpu.copyDirection[g];
                } else {
                    if (dirByName.empty()) dirByName.assign(r.strings.size(), -1);
                    int8_t& c = dirByName[r.gpu.name[g]];
                    if (c < 0) c = static_cast<int8_t>(copyDirectionFromName(r.strings.view(r.gpu.name[g])));
                    d = static_cast<CopyDirection>(c);
                }
                dir = std::string(toString(d));
            }
            Acc& a = acc[{k == EventKind::Memcpy ? 0 : 1, dir}];
            a.count += 1;
            int64_t b = r.gpu.bytes.size() > g ? r.gpu.bytes[g] : 0;
            if (b > 0)
                a.bytes += b;
            else
                a.missingBytes += 1;
            a.ns += w.end[i] - w.start[i];
        }
        if (acc.empty()) {
            t.messages.push_back(fmt::format("memory: rank {} has no memcpy or memset in the window", w.rank));
            continue;
        }
        any = true;
        for (const auto& [key, a] : acc) {
            Cell bw;
            if (a.ns > 0 && a.bytes > 0) bw = static_cast<double>(a.bytes) / static_cast<double>(a.ns);
            // Exact while it fits int64 (always, on real traces), else the nearest double: never a wrapped sum.
            // (Two calls rather than a Cell chosen at run time: GCC 12 then sees which alternative each copy holds
            // and raises no false maybe-uninitialized on the variant's string, which it does in unity builds.)
            const std::string kind(key.first == 0 ? "memcpy" : "memset");
            const double mean = static_cast<double>(a.bytes) / static_cast<double>(a.count);
            if (a.bytes <= std::numeric_limits<int64_t>::max())
                t.addRow({int64_t{w.rank}, kind, key.second, a.count, static_cast<int64_t>(a.bytes), a.ns, bw, mean});
            else
                t.addRow({int64_t{w.rank}, kind, key.second, a.count, static_cast<double>(a.bytes), a.ns, bw, mean});
            if (a.missingBytes > 0)
                t.messages.push_back(fmt::format("memory: rank {}: {} of {} {} {} activities carry no byte count",
                                                 w.rank, a.missingBytes, a.count, key.first == 0 ? "memcpy" : "memset",
                                                 key.second));
        }
    }
    if (!any && t.messages.empty()) t.messages.push_back("memory: no memcpy or memset in the window");
    return t;
}

AnalysisInfo memoryAnalysisInfo() {
    return AnalysisInfo("memory", "Memcpy/memset bytes, duration and bandwidth by direction, per rank", {},
                        kMemoryColumns, windowOnly(memoryTraffic));
}

}  // namespace strobe::core
