#include "core/analysis/kernel_stats.h"
#include "core/analysis/columns.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <unordered_map>

#include <fmt/format.h>

namespace strobe::core {

int kernelCategoryCode(const RankData& r, const RankWindow& w, size_t i) {
    if (r.gpu.category.size() == r.gpu.size() && r.gpu.size() > 0) return static_cast<int>(r.gpu.category[w.row[i]]);
    return 100 + static_cast<int>(w.type[i]);
}
std::string kernelCategoryName(int code) {
    if (code < 100) return std::string(toString(static_cast<KernelCategory>(code)));
    std::string s(toString(static_cast<HtaType>(code - 100)));
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

namespace {

struct Group {
    std::string name;
    std::string category;
    std::vector<TimeNs> durs;
};
}  // namespace

Result<Table> kernelStatistics(AnalysisContext& ctx, const WindowSpec& window, const KernelStatsOptions& o) {
    auto sel = ctx.select(window);
    if (!sel) return sel.error();
    std::optional<std::regex> re;
    if (!o.regex.empty()) {
        try {
            re.emplace(o.regex, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error& e) {
            return Error(fmt::format("kernels: invalid regular expression '{}': {}", o.regex, e.what()));
        }
    }
    Table t;
    t.columns = kKernelStatsColumns;
    // key → group; one map per rank, or one for all ranks.
    std::vector<std::pair<Cell, std::unordered_map<std::string, Group>>> buckets;
    if (o.acrossRanks) buckets.emplace_back(std::string("all"), std::unordered_map<std::string, Group>{});
    for (const RankWindow& w : sel.value()->ranks) {
        const RankData& r = *w.data;
        if (!o.acrossRanks) buckets.emplace_back(int64_t{w.rank}, std::unordered_map<std::string, Group>{});
        auto& groups = buckets.back().second;
        // Group by a small integer key first (name id or category code), strings only once per key.
        std::vector<int8_t> match;
        if (re) match.assign(r.strings.size(), -1);
        std::vector<int32_t> slotOf(o.groupBy == KernelGroupBy::Name ? r.strings.size() : 256, -1);
        std::vector<int> slotCat;
        std::vector<std::vector<TimeNs>> slotDurs;
        for (size_t i = 0; i < w.size(); ++i) {
            StrId nameId = r.gpu.name[w.row[i]];
            if (re) {
                int8_t& m = match[nameId];
                if (m < 0) {
                    std::string_view nv = r.strings.view(nameId);
                    m = std::regex_search(nv.begin(), nv.end(), *re) ? 1 : 0;
                }
                if (!m) continue;
            }
            int cat = kernelCategoryCode(r, w, i);
            size_t key = o.groupBy == KernelGroupBy::Name ? nameId
                         : o.groupBy == KernelGroupBy::Category ? static_cast<size_t>(cat) : 0;
            int32_t& slot = slotOf[key];
            if (slot < 0) {
                slot = static_cast<int32_t>(slotDurs.size());
                slotDurs.emplace_back();
                slotCat.push_back(cat);
            } else if (slotCat[static_cast<size_t>(slot)] != cat) {
                slotCat[static_cast<size_t>(slot)] = -1;  // one name, several categories
            }
            slotDurs[static_cast<size_t>(slot)].push_back(w.end[i] - w.start[i]);
        }
        for (size_t key = 0; key < slotOf.size(); ++key) {
            int32_t slot = slotOf[key];
            if (slot < 0) continue;
            auto& durs = slotDurs[static_cast<size_t>(slot)];
            int cat = slotCat[static_cast<size_t>(slot)];
            std::string catName = cat < 0 ? std::string("mixed") : kernelCategoryName(cat);
            std::string name = o.groupBy == KernelGroupBy::Name       ? r.strings.str(static_cast<StrId>(key))
                               : o.groupBy == KernelGroupBy::Category ? catName
                                                                      : o.regex;
            Group& g = groups[name];
            if (g.durs.empty()) {
                g.name = name;
                g.category = o.groupBy == KernelGroupBy::Regex ? std::string("regex") : catName;
            } else if (g.category != catName && o.groupBy == KernelGroupBy::Name) {
                g.category = "mixed";
            }
            g.durs.insert(g.durs.end(), durs.begin(), durs.end());
        }
    }
    for (auto& [rank, groups] : buckets) {
        std::vector<Group*> list;
        for (auto& [k, g] : groups) list.push_back(&g);
        for (Group* g : list) std::sort(g->durs.begin(), g->durs.end());
        std::vector<TimeNs> totals;
        auto total = [](const Group* g) {
            TimeNs s = 0;
            for (TimeNs d : g->durs) s += d;
            return s;
        };
        std::sort(list.begin(), list.end(), [&](const Group* a, const Group* b) {
            TimeNs ta = total(a), tb = total(b);
            return ta != tb ? ta > tb : a->name < b->name;
        });
        if (o.top > 0 && list.size() > static_cast<size_t>(o.top)) list.resize(static_cast<size_t>(o.top));
        for (const Group* g : list) {
            const auto& d = g->durs;
            TimeNs sum = total(g);
            double mean = stats::mean(d);
            double sd = stats::stddev(d);
            Cell cv;
            if (mean > 0) cv = sd / mean;
            t.addRow({rank, g->name, g->category, static_cast<int64_t>(d.size()), sum, mean, stats::quantile(d, 0.5),
                      stats::quantile(d, 0.05), stats::quantile(d, 0.95), sd, cv, d.front(), d.back()});
        }
    }
    if (t.rows.empty())
        t.messages.push_back(o.regex.empty() ? "kernels: no GPU activity in the window"
                                             : fmt::format("kernels: no GPU activity in the window matches '{}'", o.regex));
    return t;
}

namespace {
const EnumParam kGroupBy = EnumParam{"group-by", "group-by", "group activities by kernel name, category or one regex",
                                     "name"}.choices({"name", "category", "regex"});
const RegexParam kRegex{"regex", "regex", "only activities whose name matches (ECMAScript, searched)", ""};
const BoolParam kAcrossRanks{"across-ranks", "across-ranks", "one row per group over all ranks (rank = all)", false};
const IntParam kTop{"top", "top", "keep the N groups with the most time per rank (0 = all)", 0};
// The options as given: --group-by regex needs a --regex.
Result<Table> runKernelStats(AnalysisContext& ctx, const AnalysisRequest& req) {
    KernelStatsOptions o;
    std::string g = req.get(kGroupBy);
    o.groupBy = g == "category" ? KernelGroupBy::Category : g == "regex" ? KernelGroupBy::Regex : KernelGroupBy::Name;
    o.regex = req.get(kRegex);
    if (o.groupBy == KernelGroupBy::Regex && o.regex.empty())
        return Error("kernels: --group-by regex needs --regex PATTERN");
    o.acrossRanks = req.get(kAcrossRanks);
    o.top = req.get(kTop);
    return kernelStatistics(ctx, req.window, o);
}
}  // namespace

AnalysisInfo kernelStatsAnalysisInfo() {
    return AnalysisInfo("kernels", "Per-kernel duration statistics (count, total, mean, median, p5, p95, stddev, cv)",
                        {kGroupBy.spec(), kRegex.spec(), kAcrossRanks.spec(), kTop.spec()}, kKernelStatsColumns,
                        runKernelStats);
}

}  // namespace strobe::core
