#include "core/merge/counter_join.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

namespace strobe::core {

namespace {

// Kernel rows of `r`, grouped by (device, name) and ordered by start (then row): the instance order.
std::map<std::pair<int16_t, std::string>, std::vector<uint32_t>> instances(const RankData& r,
                                                                         const std::vector<uint8_t>* only = nullptr) {
    std::vector<uint32_t> rows;
    for (uint32_t g = 0; g < r.gpu.size(); ++g)
        if (r.gpu.kind[g] == EventKind::Kernel && (!only || (*only)[g])) rows.push_back(g);
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) { return r.gpu.ts[a] < r.gpu.ts[b]; });
    std::map<std::pair<int16_t, std::string>, std::vector<uint32_t>> out;
    for (uint32_t g : rows) out[{r.gpu.device[g], std::string(r.strings.view(r.gpu.name[g]))}].push_back(g);
    return out;
}

std::set<int64_t> pidsOf(const RankData& r) {
    std::set<int64_t> pids;
    for (const auto& p : r.processes) pids.insert(p.pid);
    return pids;
}

}  // namespace

CounterJoinResult joinCountersByInstance(RankData& from, const std::vector<RankData*>& traces) {
    CounterJoinResult res;
    const auto& kc = from.kernelCounters;
    if (kc.size() == 0 || traces.empty()) return res;
    // Which of from's GPU rows carry counters.
    std::vector<uint8_t> carries(from.gpu.size(), 0);
    for (size_t i = 0; i < kc.size(); ++i)
        if (kc.gpuRow[i] < carries.size()) carries[kc.gpuRow[i]] = 1;
    const auto fromInstances = instances(from, &carries);

    // Device → the trace rank it joins to (nullptr: ambiguous or absent).
    const std::set<int64_t> fromPids = pidsOf(from);
    std::map<int16_t, RankData*> target;
    std::map<int16_t, std::vector<RankData*>> byDevice;
    for (RankData* t : traces) {
        std::set<int16_t> devices;
        for (uint32_t g = 0; g < t->gpu.size(); ++g)
            if (t->gpu.kind[g] == EventKind::Kernel) devices.insert(t->gpu.device[g]);
        for (int16_t d : devices) byDevice[d].push_back(t);
    }
    for (const auto& [device, ranks] : byDevice) {
        if (ranks.size() == 1) {
            target[device] = ranks.front();
            continue;
        }
        RankData* byPid = nullptr;
        size_t hits = 0;
        for (RankData* t : ranks) {
            const auto tp = pidsOf(*t);
            if (std::any_of(fromPids.begin(), fromPids.end(), [&](int64_t p) { return tp.count(p) > 0; })) {
                byPid = t;
                ++hits;
            }
        }
        target[device] = hits == 1 ? byPid : nullptr;
    }

    // from's gpu row → trace (rank, row).
    std::map<uint32_t, std::pair<RankData*, uint32_t>> match;
    std::map<RankData*, std::pair<size_t, size_t>> perTarget;  // dispatches on its devices, matched
    std::map<RankData*, std::map<std::pair<int16_t, std::string>, std::vector<uint32_t>>> traceInstances;
    for (const auto& [key, rows] : fromInstances) {
        res.dispatches += rows.size();
        auto tit = target.find(key.first);
        RankData* t = tit == target.end() ? nullptr : tit->second;
        if (!t) {
            res.unmatched[key.second] += rows.size();
            continue;
        }
        auto ti = traceInstances.find(t);
        if (ti == traceInstances.end()) ti = traceInstances.emplace(t, instances(*t)).first;
        auto kit = ti->second.find(key);
        const size_t available = kit == ti->second.end() ? 0 : kit->second.size();
        const size_t n = std::min(available, rows.size());
        for (size_t k = 0; k < n; ++k) match[rows[k]] = {t, kit->second[k]};
        if (rows.size() > n) res.unmatched[key.second] += rows.size() - n;
        res.matched += n;
        perTarget[t].first += rows.size();
        perTarget[t].second += n;
    }
    if (match.empty()) return res;

    // Move the matched counters; keep the others on `from`.
    KernelCounterTable kept;
    for (size_t i = 0; i < kc.size(); ++i) {
        auto m = match.find(kc.gpuRow[i]);
        if (m == match.end()) {
            kept.gpuRow.push_back(kc.gpuRow[i]);
            kept.name.push_back(kc.name[i]);
            kept.value.push_back(kc.value[i]);
            continue;
        }
        RankData& t = *m->second.first;
        t.kernelCounters.gpuRow.push_back(m->second.second);
        t.kernelCounters.name.push_back(t.strings.intern(from.strings.view(kc.name[i])));
        t.kernelCounters.value.push_back(kc.value[i]);
    }
    from.kernelCounters = std::move(kept);
    for (const auto& [t, counts] : perTarget) {
        t->stats.joinMatchRate = counts.first ? double(counts.second) / double(counts.first) : 0.0;
        res.traceRanks.push_back(t->rank);
    }
    return res;
}

}  // namespace strobe::core
