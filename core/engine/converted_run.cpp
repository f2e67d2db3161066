#include "core/engine/converted_run.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/engine/memory_budget.h"
#include "core/engine/run_loader.h"
#include "core/io/resources.h"
#include "core/model/classification.h"

namespace strobe::core {

namespace fs = std::filesystem;

Result<uint64_t> convertOptionsKey() {
    auto rules = ClassificationRules::loadDefault();
    if (!rules) return rules.error();
    return cacheOptionsKey(*rules);
}

Status writeSourceSummaries(const Dataset& ds, const std::string& source, const SourceStamp& stamp, const fs::path& dir,
                            uint64_t key) {
    std::error_code ec;
    const fs::path wanted = fs::absolute(source, ec);
    uint32_t rankIndex = 0;
    for (size_t k = 0; k < ds.ranks.size(); ++k) {
        const std::string& path = ds.ranks[k]->path.empty() ? ds.ranks[k]->info.path : ds.ranks[k]->path;
        if (ds.sources.size() > 1 && fs::absolute(path, ec) != wanted) continue;
        SummaryIdentity id{stamp.absolutePath, stamp.size, stamp.mtimeNs, rankIndex};
        id.optionsKey = key;
        if (auto st = writeRankSummaryFile(rankSummaryPath(dir, source, rankIndex), buildRankSummary(ds, k, id)); !st)
            return st;
        ++rankIndex;
    }
    return Ok{};
}

bool readSourceSummaries(const fs::path& dir, const std::string& source, uint64_t key,
                         std::vector<StoredRankSummary>& out) {
    for (uint32_t k = 0;; ++k) {
        SummaryLookup next = lookupRankSummary(dir, source, k, key);
        if (next.state != SummaryState::Current) return k > 0;
        out.push_back(std::move(next.summary));
    }
}

std::optional<SummaryPlan> planFromSummaries(const std::vector<std::string>& paths, const fs::path& cacheDir) {
    const auto sources = expandRunPaths(paths);
    const auto key = convertOptionsKey();
    if (!sources || !key) return std::nullopt;
    SummaryPlan plan;
    plan.dir = cacheDir.empty() ? userCacheDir() : cacheDir;
    plan.optionsKey = *key;
    bool converted = false;
    for (const std::string& source : *sources) {
        SummaryLookup first = lookupRankSummary(plan.dir, source, 0, *key);
        if (first.state != SummaryState::Missing) converted = true;
        if (first.state == SummaryState::Current && readSourceSummaries(plan.dir, source, *key, plan.fromSummary))
            continue;
        if (first.state != SummaryState::Missing && first.state != SummaryState::Current)
            plan.warnings.push_back(fmt::format("{} summary {}: {}; the rank is loaded from its trace and its summary "
                                                "made again",
                                                toString(first.state), first.file.string(), first.reason));
        plan.toLoad.push_back(source);
    }
    if (!converted) return std::nullopt;
    return plan;
}

bool RunSummaries::isLoaded(int rank) const { return std::binary_search(loaded.begin(), loaded.end(), rank); }

const StoredRankSummary* RunSummaries::find(int rank) const {
    for (const auto& s : ranks)
        if (s.rank.rank == rank) return &s;
    return nullptr;
}

std::vector<std::string> RunSummaries::sourcesOf(const std::vector<int>& wanted) const {
    std::vector<std::string> out;
    for (int r : wanted)
        if (const StoredRankSummary* s = find(r))
            if (std::find(out.begin(), out.end(), s->identity.sourcePath) == out.end())
                out.push_back(s->identity.sourcePath);
    return out;
}

std::string RunSummaries::loadedText() const {
    if (loaded.empty()) return fmt::format("{} ranks from their summaries; no rank's events loaded", ranks.size());
    std::string which = loaded.size() <= 8 ? fmt::format(" ({})", fmt::join(loaded, ", ")) : std::string();
    return fmt::format("events of {} of {} ranks loaded{}; the others from their summaries", loaded.size(),
                       ranks.size(), which);
}

std::optional<RunSummaries> reuseRunSummaries(const RunSummaries& known, const std::vector<std::string>& sources,
                                              const fs::path& cacheDir, uint64_t optionsKey) {
    const fs::path dir = cacheDir.empty() ? userCacheDir() : cacheDir;
    if (known.dir != dir || known.optionsKey != optionsKey) return std::nullopt;
    std::map<std::string, std::pair<uint64_t, int64_t>> stamps;  // absolute path → (size, mtime)
    for (const auto& source : sources) {
        auto stamp = LoadCache::stamp(source);
        if (!stamp) return std::nullopt;
        stamps.emplace(stamp->absolutePath, std::pair(stamp->size, stamp->mtimeNs));
    }
    std::set<std::string> covered;
    for (const auto& s : known.ranks) {
        auto it = stamps.find(s.identity.sourcePath);
        if (it == stamps.end() || it->second != std::pair(s.identity.sourceSize, s.identity.sourceMtimeNs))
            return std::nullopt;
        covered.insert(s.identity.sourcePath);
    }
    if (covered.size() != stamps.size()) return std::nullopt;
    RunSummaries out;
    out.dir = dir;
    out.optionsKey = optionsKey;
    out.ranks = known.ranks;
    return out;
}

Result<RunSummaries> completeRunSummaries(SummaryPlan plan, const PartLoader& load, uint64_t limitBytes,
                                          const CancelToken& cancel) {
    RunSummaries out;
    out.dir = plan.dir;
    out.optionsKey = plan.optionsKey;
    out.ranks = std::move(plan.fromSummary);
    // Batches of the sources to load whose estimated peak fits the limit (one source at least).
    size_t next = 0;
    while (next < plan.toLoad.size()) {
        if (cancel.cancelled()) return Error("cancelled");
        std::vector<std::string> batch{plan.toLoad[next++]};
        while (next < plan.toLoad.size()) {
            std::vector<std::string> wider = batch;
            wider.push_back(plan.toLoad[next]);
            if (limitBytes != 0 && MemoryBudget::estimateRun(wider, wider.size()) > limitBytes) break;
            batch = std::move(wider);
            ++next;
        }
        std::vector<SourceStamp> stamps;
        for (const auto& source : batch) {
            auto stamp = LoadCache::stamp(source);
            if (!stamp) return stamp.error();
            stamps.push_back(*stamp);
        }
        auto loaded = load(batch);
        if (!loaded) return loaded.error();
        for (size_t i = 0; i < batch.size(); ++i) {
            const size_t before = out.ranks.size();
            if (auto st = writeSourceSummaries(**loaded, batch[i], stamps[i], plan.dir, plan.optionsKey); !st)
                return st.error();
            if (!readSourceSummaries(plan.dir, batch[i], plan.optionsKey, out.ranks))
                return Error(Location{batch[i]}, "no rank of this source could be summarised");
            out.remade += out.ranks.size() - before;
        }
    }
    // A rank numbered by its file's place in the run was numbered alone when converted: only the whole loaded run
    // knows its number.
    if (out.ranks.size() > 1)
        for (const auto& s : out.ranks)
            if (s.rank.rankSource == RankSource::FileOrder)
                return Error(Location{s.identity.sourcePath},
                             "the rank is numbered by its file's place in the run (no distributedInfo.rank, no rank in "
                             "the file name), so the run cannot be read from its summaries");
    // The loaded run's rank order: by rank number, then source order.
    std::stable_sort(out.ranks.begin(), out.ranks.end(),
                     [](const StoredRankSummary& a, const StoredRankSummary& b) { return a.rank.rank < b.rank.rank; });
    return out;
}

}  // namespace strobe::core
