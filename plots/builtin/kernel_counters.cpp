// Kernel counters: the hardware counters joined to their kernels (rocprofv3 counter collection by Dispatch_Id,
// rocprof v1 pmc columns, rocprof-compute pmc_perf, ncu metrics: RankData::kernelCounters) as a table, one row per
// kernel name with the mean of every counter over its dispatches, or one row per dispatch. The join's match rate
// and the kernels without counters are stated, never hidden.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/table_picture.h"

namespace strobe::plots {
namespace {

const EnumParam kRows =
    EnumParam{"rows", "Rows", "One row per kernel name (counter means over its dispatches) or per dispatch", "kernel"}
        .choices({"kernel", "dispatch"});
const BoolParam kAcrossRanks{"across_ranks", "Across ranks",
                             "One row per kernel over every rank (off: one row per rank and kernel)", true};
const RegexParam kKernelCountersFilter =
    RegexParam{"filter", "Name filter", "Only kernels whose name matches this regular expression (empty: all)", ""}
        .drawOnly();
const IntParam kMaxRows =
    IntParam{"max_rows", "Rows", "Rows drawn in pictures and exports (the table on screen and the CSV have them all)", 30}
        .bounded(1, 500, 5)
        .drawOnly();

struct CountersPrepared final : Prepared {
    core::Table table;                  // columns: [run] rank name [device start_ns] dispatches total_ns mean_ns <counters>
    std::vector<std::string> counters;  // counter columns, sorted by name
    size_t bytes() const override {
        size_t b = sizeof(*this);
        for (const auto& r : table.rows) b += r.size() * sizeof(core::Cell) + 64;
        return b;
    }
};

// Counter sums per group: group key → (dispatches, total ns, counter name → (sum, n)).
struct Group {
    int rank = -1;
    std::string name;
    int device = -1;
    int64_t start = 0;
    int64_t dispatches = 0, totalNs = 0;
    std::map<std::string, std::pair<double, int64_t>> sums;
};

class KernelCountersPlot final : public TypedPlot<CountersPrepared> {
public:
    KernelCountersPlot()
        : TypedPlot(
              {"kernel-counters", "Kernel counters",
               "Hardware counters joined to their kernels (rocprofv3, rocprof, rocprof-compute, ncu): per kernel name "
               "the mean of each counter over its dispatches, or every dispatch, as a sortable table.",
               95}) {}
    bool isTable() const override { return true; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {ranksSpec(runs),     kRows.spec(),
                kAcrossRanks.spec(), kSortBy.spec(sortColumns(runs)),
                kDescending.spec(),  kKernelCountersFilter.spec(),
                kMaxRows.spec()};
    }

    // What sort_by offers: every column the table can have (per kernel or per dispatch), then the counters of the
    // runs by name.
    static std::vector<std::string> sortColumns(const RunSet& runs) {
        std::vector<std::string> out{"total_ns", "dispatches", "mean_ns", "dur_ns",  "name",
                                     "run",      "rank",       "device",  "start_ns"};
        std::set<std::string> counters;
        for (const auto& run : runs) {
            if (!run.dataset) continue;
            for (const auto& rp : run.dataset->ranks) {
                if (!rp) continue;
                std::set<core::StrId> ids(rp->kernelCounters.name.begin(), rp->kernelCounters.name.end());
                for (auto id : ids) counters.emplace(rp->strings.view(id));
            }
        }
        out.insert(out.end(), counters.begin(), counters.end());
        return out;
    }

    core::Result<std::shared_ptr<CountersPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn&) const override {
        const bool perDispatch = kRows(values) == "dispatch";
        const bool across = kAcrossRanks(values) && !perDispatch;
        const auto ranks = kRanks(values);
        auto out = std::make_shared<CountersPrepared>();
        std::set<std::string> counterNames;
        std::vector<std::pair<size_t, std::vector<Group>>> perRun;  // run → groups in first-seen order
        for (size_t ri = 0; ri < runs.size(); ++ri) {
            if (cancel.cancelled()) return cancelledError();
            std::vector<Group> groups;
            std::map<std::pair<int, std::string>, size_t> index;
            bool any = false;
            for (const auto& rp : runs[ri].dataset->ranks) {
                const core::RankData& r = *rp;
                if (!ranks.empty() && std::find(ranks.begin(), ranks.end(), r.rank) == ranks.end()) continue;
                const auto& kc = r.kernelCounters;
                if (kc.size() == 0) continue;
                any = true;
                if (r.stats.joinMatchRate >= 0 && r.stats.joinMatchRate < 1)
                    out->table.messages.push_back(fmt::format("{} rank {}: {:.1f}% of the counter rows matched a kernel",
                                                              runs[ri].label, r.rank, 100 * r.stats.joinMatchRate));
                // Rows of one dispatch are adjacent in the loaders' output, but do not rely on it.
                std::map<uint32_t, size_t> dispatchGroup;
                for (size_t i = 0; i < kc.size(); ++i) {
                    const uint32_t g = kc.gpuRow[i];
                    if (g >= r.gpu.size()) continue;
                    const std::string name(r.strings.view(r.gpu.name[g]));
                    auto [dit, newDispatch] = dispatchGroup.try_emplace(g, 0);
                    if (newDispatch) {
                        size_t gi;
                        if (perDispatch) {
                            gi = groups.size();
                            Group fresh;
                            fresh.rank = r.rank;
                            fresh.name = name;
                            fresh.device = r.gpu.device[g];
                            fresh.start = r.gpu.ts[g];
                            groups.push_back(std::move(fresh));
                        } else {
                            auto [it, added] = index.try_emplace({across ? -1 : r.rank, name}, groups.size());
                            if (added) {
                                Group fresh;
                                fresh.rank = across ? -1 : r.rank;
                                fresh.name = name;
                                groups.push_back(std::move(fresh));
                            }
                            gi = it->second;
                        }
                        dit->second = gi;
                        groups[gi].dispatches += 1;
                        groups[gi].totalNs += r.gpu.dur[g];
                    }
                    const std::string counter(r.strings.view(kc.name[i]));
                    if (!std::isfinite(kc.value[i])) continue;
                    auto& s = groups[dit->second].sums[counter];
                    s.first += kc.value[i];
                    s.second += 1;
                    counterNames.insert(counter);
                }
            }
            if (!any) out->table.messages.push_back(runs[ri].label + ": no hardware counters (rocprofv3 counter "
                                                                     "collection, rocprof pmc, rocprof-compute, ncu)");
            perRun.emplace_back(ri, std::move(groups));
        }
        out->counters.assign(counterNames.begin(), counterNames.end());
        auto& t = out->table;
        if (runs.size() > 1) t.columns.push_back("run");
        if (!across) t.columns.push_back("rank");
        t.columns.push_back("name");
        if (perDispatch) {
            t.columns.push_back("device");
            t.columns.push_back("start_ns");
            t.columns.push_back("dur_ns");
        } else {
            t.columns.insert(t.columns.end(), {"dispatches", "total_ns", "mean_ns"});
        }
        for (const auto& c : out->counters) t.columns.push_back(c);
        for (const auto& [ri, groups] : perRun)
            for (const auto& g : groups) {
                std::vector<core::Cell> row;
                if (runs.size() > 1) row.emplace_back(runs[ri].label);
                if (!across) row.emplace_back(int64_t(g.rank));
                row.emplace_back(g.name);
                if (perDispatch) {
                    row.emplace_back(int64_t(g.device));
                    row.emplace_back(g.start);
                    row.emplace_back(g.totalNs);
                } else {
                    row.emplace_back(g.dispatches);
                    row.emplace_back(g.totalNs);
                    row.emplace_back(double(g.totalNs) / double(std::max<int64_t>(1, g.dispatches)));
                }
                for (const auto& c : out->counters) {
                    auto it = g.sums.find(c);
                    if (it == g.sums.end() || it->second.second == 0) row.emplace_back(std::monostate{});
                    else row.emplace_back(it->second.first / double(it->second.second));
                }
                t.addRow(std::move(row));
            }
        return out;
    }

    std::optional<std::string> emptyMessageTyped(const CountersPrepared& p, const ParamValues& values) const override {
        if (!view(p.table, values).empty()) return std::nullopt;
        return emptyReason(p.table.messages, "no kernels with counters match");
    }

    void drawTyped(Canvas& c, const CountersPrepared& p, const ParamValues& values) const override {
        const auto rows = view(p.table, values);
        const QRectF area = drawTitle(c, c.rect, title(),
                                      fmt::format("{} of {} rows, {} counters, sorted by {}",
                                                  std::min<size_t>(rows.size(), size_t(kMaxRows(values))),
                                                  p.table.rows.size(), p.counters.size(), kSortBy(values)));
        if (rows.empty()) {
            drawMessage(c, area, emptyReason(p.table.messages, "no kernels with counters match"));
            return;
        }
        drawTablePicture(c, area, p.table, rows, picture(p.table, values));
    }

    std::optional<HitInfo> hitTestTyped(const CountersPrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        LayoutCanvas lc(rect);
        const QRectF area = drawTitle(lc.canvas, rect, title(), "x");
        const auto rows = view(p.table, values);
        const auto how = picture(p.table, values);
        const auto k = tablePictureRowAt(area, pt, rows.size(), how);
        if (!k) return std::nullopt;
        return tablePictureHit(p.table, rows[*k], how);
    }

    // Every row that passes the filter, in the drawn order.
    core::Table tableTyped(const CountersPrepared& p, const ParamValues& values) const override {
        core::Table out;
        out.columns = p.table.columns;
        out.messages = p.table.messages;
        for (size_t r : view(p.table, values)) out.rows.push_back(p.table.rows[r]);
        return out;
    }

private:
    static std::vector<size_t> view(const core::Table& t, const ParamValues& v) {
        return tableView(t, kKernelCountersFilter(v), kSortBy(v), kDescending(v));
    }
    static TablePicture picture(const core::Table& t, const ParamValues& v) {
        TablePicture how;
        how.columns = t.columns;
        how.sortKey = kSortBy(v);
        how.descending = kDescending(v);
        how.maxRows = size_t(kMaxRows(v));
        return how;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(KernelCountersPlot)

}  // namespace strobe::plots
