// Search, name statistics, range summaries and the overview density of the GPU timeline (timeline_find.h).

#include "core/io/regex_check.h"
#include "plots/builtin/timeline_find.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <tuple>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "plots/chart.h"

namespace strobe::plots::timeline {

namespace {

// Whether the lane's items are named by the rank's string table (id in `id`), else by a computed text.
bool stringId(const Lane& lane, size_t k, uint32_t& id) {
    const auto& r = *lane.rank;
    switch (lane.kind) {
    case LaneKind::Stream:
        if (lane.src[k] >= r.gpu.size()) return false;
        id = r.gpu.name[lane.src[k]];
        return true;
    case LaneKind::Steps:
    case LaneKind::Phases:
    case LaneKind::Layers:
    case LaneKind::Telemetry: return false;
    default:
        if (lane.src[k] >= r.slices.size()) return false;
        id = r.slices.name[lane.src[k]];
        return true;
    }
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// One name test, cached per (rank, string id).
class Matcher {
public:
    explicit Matcher(const FindQuery& q) : m_query(q), m_needle(lower(q.text)) {
        if (q.mode == FindQuery::Mode::Regex)
            m_regex.emplace(q.text, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
    }
    bool test(std::string_view name) const {
        switch (m_query.mode) {
        case FindQuery::Mode::Exact: return name == m_query.text;
        case FindQuery::Mode::Regex: return std::regex_search(name.begin(), name.end(), *m_regex);
        default: return lower(name).find(m_needle) != std::string::npos;
        }
    }
    bool test(const core::RankData& r, uint32_t id) {
        auto& cache = m_cache[&r];
        if (cache.size() < r.strings.size()) cache.resize(r.strings.size(), 2);
        if (id >= cache.size()) return false;
        if (cache[id] == 2) cache[id] = test(r.strings.view(id)) ? 1 : 0;
        return cache[id] == 1;
    }

private:
    FindQuery m_query;
    std::string m_needle;
    std::optional<std::regex> m_regex;
    std::map<const core::RankData*, std::vector<uint8_t>> m_cache;  // 2: not tested yet
};

}  // namespace

std::string laneItemName(const TimelinePrepared& p, const Lane& lane, size_t k) {
    if (k >= lane.src.size() || !lane.rank) return {};
    const auto& r = *lane.rank;
    if (uint32_t id = 0; stringId(lane, k, id)) return r.strings.str(id);
    if (lane.kind == LaneKind::Steps)
        return lane.src[k] < r.steps.size() ? fmt::format("ProfilerStep#{}", r.steps.number[lane.src[k]]) : "";
    if (lane.kind == LaneKind::Phases || lane.kind == LaneKind::Layers)
        return lane.src[k] < p.bandNames.size() ? p.bandNames[lane.src[k]] : "";
    return {};
}

std::vector<ItemRef> itemsIntersecting(const TimelinePrepared& p, const std::vector<int>& lanes, int64_t start,
                                       int64_t end) {
    std::vector<ItemRef> out;
    for (int li : lanes) {
        if (li < 0 || size_t(li) >= p.lanes.size()) continue;
        const Lane& lane = p.lanes[size_t(li)];
        if (!lane.rank || lane.kind == LaneKind::Telemetry) continue;
        auto [a, b] = visibleRange(lane, start, end);
        for (size_t k = a; k < b; ++k)
            if (lane.end[k] > start && lane.start[k] < end) out.push_back({size_t(li), k, lane.start[k], lane.end[k]});
    }
    std::sort(out.begin(), out.end(), [](const ItemRef& x, const ItemRef& y) {
        return std::tie(x.start, x.lane, x.index) < std::tie(y.start, y.lane, y.index);
    });
    return out;
}

EventRow eventRowOf(const TimelinePrepared& p, const ItemRef& item) {
    EventRow row;
    if (item.lane >= p.lanes.size()) return row;
    const Lane& lane = p.lanes[item.lane];
    if (item.index >= lane.start.size() || !lane.rank) return row;
    const auto& r = *lane.rank;
    const size_t k = item.index, i = lane.src[k];
    row.name = laneItemName(p, lane, k);
    row.run = lane.run < p.runLabels.size() ? p.runLabels[lane.run] : std::string();
    row.rank = r.rank;
    row.start = lane.start[k];
    row.duration = lane.end[k] - lane.start[k];
    // The lane's label without the rank's ("rank 0 stream 7" → "stream 7"; a sub-lane's number dropped).
    std::string where = lane.kind == LaneKind::Cpu ? lane.thread : lane.label;
    if (where.rfind(lane.group, 0) == 0) where = where.substr(std::min(where.size(), lane.group.size() + 1));
    row.where = where.empty() ? lane.group : where;
    switch (lane.kind) {
    case LaneKind::Stream:
        if (i < r.gpu.size()) {
            row.kind = std::string(core::toString(r.gpu.kind[i]));
            row.category = std::string(core::toString(activityCategory(r, i)));
            row.stream = lane.stream;
            row.where = fmt::format("{} {}", lane.queue ? "queue" : "stream", lane.stream);
            if (r.gpu.kind[i] == core::EventKind::Kernel && r.gpu.gridX.size() == r.gpu.size())
                row.grid = fmt::format("grid {}×{}×{} block {}×{}×{}", r.gpu.gridX[i], r.gpu.gridY[i], r.gpu.gridZ[i],
                                       r.gpu.blockX[i], r.gpu.blockY[i], r.gpu.blockZ[i]);
            row.step = activityStep(r, i);
        }
        break;
    case LaneKind::Steps:
        row.kind = "step";
        if (i < r.steps.size()) row.step = r.steps.number[i];
        break;
    case LaneKind::Phases: row.kind = "phase"; break;
    case LaneKind::Layers: row.kind = "layer"; break;
    default:
        if (i < r.slices.size()) row.kind = std::string(core::toString(r.slices.kind[i]));
        break;
    }
    return row;
}

core::Result<std::vector<ItemRef>> findInLanes(const TimelinePrepared& p, const std::vector<int>& lanes,
                                               const FindQuery& query) {
    std::vector<ItemRef> out;
    if (query.text.empty()) return out;
    std::optional<Matcher> m;
    try {
        m.emplace(query);
    } catch (const std::regex_error& e) {
        return core::Error(fmt::format("invalid regular expression \"{}\": {}", query.text, e.what()));
    }
    std::vector<uint8_t> bandHit(p.bandNames.size(), 2);  // phases and layers share names: test each once
    for (int li : lanes) {
        if (li < 0 || size_t(li) >= p.lanes.size()) continue;
        const Lane& lane = p.lanes[size_t(li)];
        if (!lane.rank || lane.kind == LaneKind::Telemetry) continue;  // samples have values, not names
        const bool bands = lane.kind == LaneKind::Phases || lane.kind == LaneKind::Layers;
        for (size_t k = 0; k < lane.start.size(); ++k) {
            uint32_t id = 0;
            bool hit = false;
            if (stringId(lane, k, id)) {
                hit = m->test(*lane.rank, id);
            } else if (bands && lane.src[k] < bandHit.size()) {
                auto& h = bandHit[lane.src[k]];
                if (h == 2) h = m->test(p.bandNames[lane.src[k]]) ? 1 : 0;
                hit = h == 1;
            } else {
                hit = m->test(laneItemName(p, lane, k));
            }
            if (hit) out.push_back({size_t(li), k, lane.start[k], lane.end[k]});
        }
    }
    std::sort(out.begin(), out.end(), [](const ItemRef& a, const ItemRef& b) {
        return std::tie(a.start, a.lane, a.index) < std::tie(b.start, b.lane, b.index);
    });
    return out;
}

std::optional<NameStats> statsOfName(const TimelinePrepared& p, const ItemRef& item) {
    if (item.lane >= p.lanes.size()) return std::nullopt;
    const Lane& at = p.lanes[item.lane];
    if (item.index >= at.start.size()) return std::nullopt;
    NameStats s;
    s.name = laneItemName(p, at, item.index);
    s.run = at.run < p.runLabels.size() ? p.runLabels[at.run] : "";
    std::vector<core::TimeNs> durs;
    for (const auto& lane : p.lanes) {
        if (lane.run != at.run || lane.kind != at.kind || !lane.rank) continue;
        for (size_t k = 0; k < lane.start.size(); ++k) {
            uint32_t id = 0;
            const bool same = stringId(lane, k, id) ? lane.rank->strings.view(id) == s.name
                                                    : laneItemName(p, lane, k) == s.name;
            if (same) durs.push_back(lane.end[k] - lane.start[k]);
        }
    }
    if (durs.empty()) return std::nullopt;
    std::sort(durs.begin(), durs.end());
    s.count = durs.size();
    for (auto d : durs) s.total += d;
    s.min = durs.front();
    s.max = durs.back();
    s.mean = double(s.total) / double(s.count);
    s.median = core::stats::quantile(std::span<const core::TimeNs>(durs), 0.5);
    s.p95 = core::stats::quantile(std::span<const core::TimeNs>(durs), 0.95);
    return s;
}

RangeSummary summarize(const TimelinePrepared& p, const std::vector<int>& lanes, int64_t start, int64_t end,
                       size_t topN) {
    RangeSummary s;
    s.start = start;
    s.end = std::max(start, end);
    constexpr size_t nCat = size_t(core::KernelCategory::Count);
    int64_t perCat[nCat] = {};
    std::map<std::string, RangeSummary::Top> byName;
    for (int li : lanes) {
        if (li < 0 || size_t(li) >= p.lanes.size()) continue;
        const Lane& lane = p.lanes[size_t(li)];
        if (lane.kind != LaneKind::Stream || !lane.rank) continue;
        auto [a, b] = visibleRange(lane, s.start, s.end);
        for (size_t k = a; k < b; ++k) {
            const int64_t clipped = std::min(lane.end[k], s.end) - std::max(lane.start[k], s.start);
            if (clipped < 0 || (clipped == 0 && lane.end[k] > lane.start[k])) continue;
            ++s.items;
            s.busy += clipped;
            perCat[std::min<size_t>(lane.cat[k], nCat - 1)] += clipped;
            auto& top = byName[laneItemName(p, lane, k)];
            top.clipped += clipped;
            ++top.count;
        }
    }
    for (size_t c = 0; c < nCat; ++c)
        if (perCat[c] > 0) s.categories.emplace_back(std::string(core::toString(core::KernelCategory(c))), perCat[c]);
    std::stable_sort(s.categories.begin(), s.categories.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (auto& [name, top] : byName) {
        top.name = name;
        s.top.push_back(top);
    }
    std::stable_sort(s.top.begin(), s.top.end(),
                     [](const RangeSummary::Top& a, const RangeSummary::Top& b) { return a.clipped > b.clipped; });
    if (s.top.size() > topN) s.top.resize(topN);
    return s;
}

std::string exactNameRegex(const std::string& name) { return "^" + core::escapeRegex(name) + "$"; }

void computeOverview(TimelinePrepared& p) {
    p.overview.assign(kOverviewBins, 0.f);
    const double binNs = double(std::max<int64_t>(1, p.fullEnd - p.fullStart)) / double(kOverviewBins);
    for (const auto& lane : p.lanes) {
        if (lane.kind != LaneKind::Stream) continue;
        for (size_t k = 0; k < lane.start.size(); ++k) {
            // Bins count from fullStart (0, or below it when runs are aligned at a step).
            const double s = double(std::max<int64_t>(0, lane.start[k] - p.fullStart)), e = double(lane.end[k] - p.fullStart);
            if (e <= s) continue;
            auto b0 = size_t(std::min(double(kOverviewBins - 1), s / binNs));
            auto b1 = size_t(std::min(double(kOverviewBins - 1), e / binNs));
            for (size_t b = b0; b <= b1; ++b) {
                const double lo = std::max(s, double(b) * binNs), hi = std::min(e, double(b + 1) * binNs);
                if (hi > lo) p.overview[b] += float(hi - lo);
            }
        }
    }
    const float peak = p.overview.empty() ? 0.f : *std::max_element(p.overview.begin(), p.overview.end());
    if (peak > 0)
        for (auto& v : p.overview) v /= peak;
}

}  // namespace strobe::plots::timeline
