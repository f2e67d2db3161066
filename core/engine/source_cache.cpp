#include "core/engine/source_cache.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/formats/source_detect.h"
#include "core/merge/merge.h"

namespace strobe::core {

namespace fs = std::filesystem;

namespace {

// As the cache names a source (LoadCache's absolutePathOf): absolute, symlinks resolved where they exist.
std::string sourceCacheAbsolute(const std::string& p) {
    std::error_code ec;
    fs::path abs = fs::absolute(fs::path(p), ec);
    if (ec) return p;
    fs::path canon = fs::weakly_canonical(abs, ec);
    return ec ? abs.lexically_normal().string() : canon.string();
}

// The paths a loader stored in its ranks name the group's files as the user gave them; the cache keeps them
// absolute (the same entry serves a later open from another directory) and gives them back as named now.
struct SourceCachePaths {
    std::vector<std::string> given;
    std::vector<std::string> absolute;

    explicit SourceCachePaths(const SourceGroup& g) : given(g.files) {
        for (const std::string& f : given) absolute.push_back(sourceCacheAbsolute(f));
    }
    static void swapIn(std::string& s, const std::vector<std::string>& from, const std::vector<std::string>& to) {
        for (size_t k = 0; k < from.size(); ++k)
            if (s == from[k]) {
                s = to[k];
                return;
            }
    }
    void toAbsolute(RankData& r) const {
        swapIn(r.path, given, absolute);
        swapIn(r.info.path, given, absolute);
    }
    void toGiven(RankData& r) const {
        swapIn(r.path, absolute, given);
        swapIn(r.info.path, absolute, given);
    }
};

// What every rank of the group gets, whether it was parsed or mapped.
void finishSourceRank(RankData& r, const SourceGroup& group, const std::string& primary) {
    if (r.path.empty()) r.path = primary;
    if (r.info.path.empty()) r.info.path = primary;
    r.info.format = group.format;
    for (const std::string& u : group.unused) r.info.alsoPresent.push_back(u);
}

}  // namespace

uint64_t sourceOptionsKey(uint64_t rulesKey, const SourceGroup& group, const SourceLoadOptions& options) {
    std::string s = fmt::format("rules={:016x}\nformat={}\n", rulesKey, group.format);
    if (options.hasClockOffset) s += fmt::format("clock-offset={}\n", options.clockOffsetNs);
    if (options.manifest) {
        const ClockAnchor& m = *options.manifest;
        s += fmt::format("manifest={}\nrealtime={}\nmonotonic={}\nboottime={}\n", m.path, m.realtimeNs, m.monotonicNs,
                         m.boottimeNs);
        if (m.utcOffsetSeconds) s += fmt::format("utc-offset={}\n", *m.utcOffsetSeconds);
    }
    const uint64_t key = LoadCache::checksum(s.data(), s.size(), 0x736f'7572'6365ULL);
    return key == 0 ? 1 : key;  // 0 would mean "any options" to LoadCache::read
}

Result<SourceLoad> loadSourceCached(const SourceGroup& group, const SourceLoadOptions& options,
                                    const ClassificationRules& rules, uint64_t rulesKey, const LoadCache* cache,
                                    const CancelToken& cancel,
                                    const std::function<Result<std::vector<std::unique_ptr<RankData>>>()>& parse) {
    const std::string primary = groupPrimaryPath(group);
    const SourceFormat* format = findSourceFormat(group.format);
    if (!parse && (format == nullptr || format->load == nullptr))
        return Error(Location{primary}, "no loader for the format " + group.format);
    const SourceCachePaths paths(group);

    SourceLoad out;
    std::optional<std::vector<SourceStamp>> stamps;  // taken before the load: a file changed meanwhile is stale next
    uint64_t key = 0;
    std::optional<Error> replaced;                   // a corrupt or foreign entry, made again below
    if (cache != nullptr) {
        auto st = LoadCache::stampGroup(group.files);
        if (!st) {
            spdlog::info("{}: not cached: {}", primary, st.error().toString());
        } else {
            stamps = std::move(st.value());
            key = sourceOptionsKey(rulesKey, group, options);
            CacheLookup lookup = CacheLookup::Missing;
            auto hit = cache->readGroup(*stamps, key, &lookup);
            out.lookup = lookup;
            if (hit) {
                out.ranks = std::move(hit.value());
                for (auto& r : out.ranks) {
                    paths.toGiven(*r);
                    finishSourceRank(*r, group, primary);
                }
                return out;
            }
            if (lookup == CacheLookup::Corrupt || lookup == CacheLookup::Foreign) {
                spdlog::warn("{} (made again)", hit.error().toString());
                replaced = hit.error();
            } else if (lookup != CacheLookup::Missing) {
                spdlog::info("{}", hit.error().toString());
            }
        }
    }

    auto loaded = parse ? parse() : format->load(group, options, cancel);
    if (!loaded) return loaded.error();
    if (cancel.cancelled()) return Error("cancelled");
    // The raw columns go to the cache on a thread of their own while the ranks are merged (the merge only reads
    // them): on two cores the write and the merge overlap instead of following each other.
    std::shared_ptr<LoadCache::GroupWrite> early;
    if (stamps && !loaded.value().empty()) {
        std::vector<const RankData*> raw;
        for (const auto& r : loaded.value()) raw.push_back(r.get());
        early = cache->beginGroupWrite(*stamps, raw);
    }
    for (auto& r : loaded.value()) {
        if (cancel.cancelled()) return Error("cancelled");
        if (Status merged = mergeRank(*r, rules, cancel); !merged) return merged.error();
        out.ranks.push_back(std::shared_ptr<RankData>(std::move(r)));
    }
    if (cancel.cancelled()) return Error("cancelled");

    if (stamps && !out.ranks.empty()) {
        std::vector<const RankData*> view;
        for (auto& r : out.ranks) {
            paths.toAbsolute(*r);
            view.push_back(r.get());
        }
        Status written = cache->finishGroupWrite(std::move(early), *stamps, view, key);
        for (auto& r : out.ranks) paths.toGiven(*r);
        if (!written) out.cacheWriteError = written.error();
    }
    for (auto& r : out.ranks) finishSourceRank(*r, group, primary);
    if (replaced && !out.ranks.empty())
        out.ranks.front()->diagnostics.push_back(Diagnostic{
            Severity::Warning, replaced->where,
            replaced->message + (out.cacheWriteError ? "; not replaced" : "; replaced by a new entry")});
    return out;
}

}  // namespace strobe::core
