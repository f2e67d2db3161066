#include "core/engine/run_loader.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/engine/load_cache.h"
#include "core/engine/memory_budget.h"
#include "core/engine/source_cache.h"
#include "core/formats/kineto_json.h"
#include "core/formats/kineto_merged_ranks.h"
#include "core/formats/source_detect.h"
#include "core/merge/counter_join.h"
#include "core/merge/merge.h"
#include "core/model/clock_rules.h"

namespace strobe::core {

namespace fs = std::filesystem;

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }


// "0, 3-5, 9"
std::string rangesText(const std::vector<int>& sorted) {
    std::string s;
    for (size_t i = 0; i < sorted.size();) {
        size_t k = i;
        while (k + 1 < sorted.size() && sorted[k + 1] == sorted[k] + 1) ++k;
        if (!s.empty()) s += ", ";
        s += k == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[k]);
        i = k + 1;
    }
    return s;
}

std::string fileList(const std::vector<std::string>& files, size_t limit = 4) {
    std::string s;
    for (size_t i = 0; i < files.size() && i < limit; ++i) {
        if (i) s += ", ";
        s += files[i];
    }
    if (files.size() > limit) s += fmt::format(" and {} more", files.size() - limit);
    return s;
}

}  // namespace

uint64_t cacheOptionsKey(const ClassificationRules& rules) {
    std::string s;
    for (const ClassificationRule& r : rules.rules()) {
        s += r.name;
        s += '\0';
        s += r.pattern;
        s += '\0';
        s += static_cast<char>(r.category);
        s += static_cast<char>(r.collective);
        s += r.icase ? 'i' : 'c';
        s += '\n';
    }
    const uint64_t key = LoadCache::checksum(s.data(), s.size(), 0x7275'6c65'7321ULL);
    return key == 0 ? 1 : key;  // 0 would mean "any options" to LoadCache::read
}

namespace {

// Rank of a file: distributedInfo.rank, else the file name (or its directory's name), else its place in the run.
void assignRank(RankData& r, const std::string& path, size_t fileIndex) {
    if (r.info.distributed.present && r.info.distributed.rank >= 0) {
        r.rank = r.info.distributed.rank;
        r.rankSource = RankSource::DistributedInfo;
        return;
    }
    int fromName = rankFromFileName(path);
    if (fromName < 0) fromName = rankFromFileName(fs::path(path).parent_path().filename().string());
    if (fromName >= 0) {
        r.rank = fromName;
        r.rankSource = RankSource::FileName;
        return;
    }
    r.rank = static_cast<int>(fileIndex);
    r.rankSource = RankSource::FileOrder;
}

struct Slot {
    std::vector<std::shared_ptr<RankData>> data;  // a Kineto file's rank (a merged multi-rank file: its ranks)
    std::vector<std::shared_ptr<RankData>> more;  // the ranks of another format's source
    std::optional<Error> error;
    std::optional<Error> cacheWriteError;
    uint64_t bytes = 1;  // for progress; never 0
    std::atomic<uint64_t> done{0};
};

void runDiagnostics(const std::vector<std::string>& files, const std::vector<Slot>& slots, Dataset& ds, bool wholeRun) {
    auto warn = [&](Location where, std::string msg) {
        spdlog::warn("{}", where.file.empty() ? msg : where.toString() + ": " + msg);
        ds.diagnostics.push_back(Diagnostic{Severity::Warning, std::move(where), std::move(msg)});
    };
    for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i].error) {
            Location where = slots[i].error->where;
            if (where.file.empty()) where.file = files[i];
            warn(std::move(where), "not loaded: " + slots[i].error->message);
        }
        if (slots[i].cacheWriteError)
            warn(Location{files[i]}, "load cache not written (the next open will parse again): " +
                                         slots[i].cacheWriteError->toString());
    }

    std::map<int, std::vector<std::string>> byRank;
    std::map<int, std::vector<std::string>> byWorld;
    bool nameRanks = false;
    for (size_t i = 0; i < slots.size(); ++i)
        for (const auto& r : slots[i].data) {
            byRank[r->rank].push_back(files[i]);
            if (r->info.distributed.present && r->info.distributed.worldSize > 0)
                byWorld[r->info.distributed.worldSize].push_back(files[i]);
            if (r->rankSource == RankSource::FileName) nameRanks = true;
        }
    for (const auto& [rank, names] : byRank)
        if (names.size() > 1)
            warn(Location{}, fmt::format("rank {} appears in {} files: {}", rank, names.size(), fileList(names, 8)));

    int world = -1;
    if (byWorld.size() > 1) {
        std::string parts;
        for (const auto& [w, names] : byWorld) {
            if (!parts.empty()) parts += "; ";
            parts += fmt::format("{} ({})", w, fileList(names));
        }
        warn(Location{}, "files disagree on the world size: " + parts);
        world = byWorld.rbegin()->first;
    } else if (byWorld.size() == 1) {
        world = byWorld.begin()->first;
    } else if (nameRanks && !byRank.empty()) {
        world = byRank.rbegin()->first + 1;  // ranks from file names: expect 0..max
    }
    if (world > 0 && wholeRun) {
        std::vector<int> missing;
        for (int r = 0; r < world; ++r)
            if (!byRank.count(r)) missing.push_back(r);
        if (!missing.empty())
            warn(Location{}, fmt::format("{} missing: {} (world size {})", missing.size() == 1 ? "rank" : "ranks",
                                         rangesText(missing), world));
        for (const auto& [rank, names] : byRank)
            if (rank >= world)
                warn(Location{names.front()}, fmt::format("rank {} is outside the world size {}", rank, world));
    }
}

// Runs loadOne(i) for every file, on `workers` threads (the calling thread is one of them), until all are done or
// `cancel` fires. A failure inside loadOne (out of memory, anything thrown) becomes the slot's error.
void runOnWorkers(const std::vector<std::string>& files, std::vector<Slot>& slots, size_t workers,
                  const CancelToken& cancel, const std::function<void(size_t)>& loadOne) {
    const size_t n = files.size();
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (;;) {
            const size_t i = next.fetch_add(1);
            if (i >= n || cancel.cancelled()) return;
            try {
                loadOne(i);
            } catch (const std::bad_alloc&) {
                slots[i].data.clear();
                slots[i].error = Error(Location{files[i]}, "out of memory while loading");
            } catch (const std::exception& e) {
                slots[i].data.clear();
                slots[i].error = Error(Location{files[i]}, std::string("unexpected failure: ") + e.what());
            } catch (...) {
                slots[i].data.clear();
                slots[i].error = Error(Location{files[i]}, "unexpected failure");
            }
        }
    };
    std::vector<std::thread> threads;
    // Create spdlog's registry here, before the workers: its lazy creation inside the (uninstrumented) library
    // by a worker, then a read by this thread, is what ThreadSanitizer reports otherwise.
    (void)spdlog::default_logger_raw();
    for (size_t t = 1; t < workers; ++t) {
        try {
            threads.emplace_back(work);
        } catch (const std::system_error& e) {
            spdlog::warn("run loader: could not start a thread ({}); continuing with {}", e.what(), threads.size() + 1);
            break;
        }
    }
    work();  // the calling thread loads too
    for (std::thread& t : threads) t.join();
}

// A source of another format than Kineto: the registry's loader (one or more ranks), each rank merged, through the
// load cache when one is given (core/engine/source_cache.h).
void loadOtherSource(const SourceGroup& group, Slot& slot, const SourceLoadOptions& options,
                     const ClassificationRules& rules, const LoadCache* cache, uint64_t rulesKey,
                     const CancelToken& cancel, const std::function<void(const TraceInfo&)>& onInfo) {
    auto loaded = loadSourceCached(group, options, rules, rulesKey, cache, cancel);
    if (!loaded) {
        slot.error = loaded.error();
        return;
    }
    slot.cacheWriteError = std::move(loaded->cacheWriteError);
    for (auto& r : loaded->ranks) {
        onInfo(r->info);
        slot.more.push_back(std::move(r));
    }
}

// A Kineto file that merges several ranks (TraceLens TraceFusion, core/formats/kineto_merged_ranks.h) opens as its
// ranks, each merged on its own: true when `parsed` was such a file (its ranks, or the error, are in the slot). The
// caller caches the ranks as one group (an entry per rank).
bool splitAndMergeRanks(RankData& parsed, const std::string& path, const ClassificationRules& rules,
                        const CancelToken& cancel, Slot& slot) {
    auto split = splitMergedRanks(parsed);
    if (!split) {
        slot.error = split.error();
        return true;
    }
    if (split->empty()) return false;
    for (auto& rank : split.value()) {
        if (cancel.cancelled()) return true;
        if (Status merged = mergeRank(*rank, rules, cancel); !merged) {
            slot.error = merged.error();
            slot.data.clear();
            return true;
        }
        rank->path = path;
        slot.data.push_back(std::shared_ptr<RankData>(std::move(rank)));
    }
    return true;
}

// A Kineto file's ranks from the cache (one entry per rank: a merged multi-rank file has several; load_cache.h,
// readGroup), with the paths the file has now. A merged file's ranks carry their rank from its metadata; a plain
// file's is assigned now (its place in this run may differ from the run it was cached with).
Result<std::vector<std::shared_ptr<RankData>>> readKinetoRanksCached(const LoadCache& cache, const SourceStamp& stamp,
                                                                    const std::string& path, size_t fileIndex,
                                                                    uint64_t optionsKey, CacheLookup& lookup) {
    auto hit = cache.readGroup({stamp}, optionsKey, &lookup);
    if (!hit) return hit;
    for (auto& r : hit.value()) {
        r->path = path;
        r->info.path = path;
        if (r->rankSource != RankSource::MergedTrace) assignRank(*r, path, fileIndex);
    }
    return hit;
}

// Writes a merged multi-rank Kineto file's ranks (in the slot) as one cache group; a corrupt entry it replaced
// becomes a warning on the first rank.
void writeKinetoRanksCached(const LoadCache& cache, const SourceStamp& stamp, uint64_t optionsKey,
                            const std::optional<Error>& replacedEntry, const CancelToken& cancel, Slot& slot) {
    if (cancel.cancelled() || slot.error || slot.data.empty()) return;
    std::vector<const RankData*> ranks;
    for (const auto& d : slot.data) ranks.push_back(d.get());
    Status written = cache.writeGroup({stamp}, ranks, optionsKey);
    if (!written) slot.cacheWriteError = written.error();
    if (replacedEntry)
        slot.data.front()->diagnostics.push_back(
            Diagnostic{Severity::Warning, replacedEntry->where,
                       replacedEntry->message + (written ? "; replaced by a new entry" : "; not replaced")});
}

// The error of a run none of whose files loaded: a single file's own error, else the first one.
Error noFileLoaded(const std::vector<Slot>& slots) {
    const size_t n = slots.size();
    for (const Slot& s : slots)
        if (s.error && n == 1) return *s.error;
    const Slot* first = nullptr;
    for (const Slot& s : slots)
        if (s.error) {
            first = &s;
            break;
        }
    return Error(fmt::format("none of the {} files could be loaded; the first error: {}", n,
                             first ? first->error->toString() : std::string("unknown")));
}

// Counters from another tool than the traces (rocprofv3 counter collection, ncu) join the traces' kernels by
// (name, device, instance) (core/merge/counter_join.h); the outcome, match rate and unmatched names, is a run-level
// note.
void joinForeignCounters(std::vector<Slot>& slots, const std::vector<std::shared_ptr<RankData>>& kinetoRanks,
                         Dataset& ds) {
    std::vector<RankData*> traces;
    for (const auto& r : kinetoRanks) traces.push_back(r.get());
    if (traces.empty()) return;
    for (Slot& s : slots)
        for (auto& r : s.more) {
            if (r->kernelCounters.size() == 0) continue;
            const CounterJoinResult j = joinCountersByInstance(*r, traces);
            if (j.dispatches == 0) continue;
            std::string names;
            size_t shown = 0;
            for (const auto& [name, count] : j.unmatched) {
                if (shown++ == 3) {
                    names += ", ...";
                    break;
                }
                names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", name, count);
            }
            const std::string msg = fmt::format(
                "{}: counters of {} of {} dispatches ({:.1f}%) joined to the trace kernels by name, device and "
                "instance{}{}",
                r->path, j.matched, j.dispatches, 100.0 * j.matchRate(), names.empty() ? "" : "; unmatched: ", names);
            spdlog::info("{}", msg);
            ds.diagnostics.push_back(Diagnostic{j.matched == j.dispatches ? Severity::Info : Severity::Warning,
                                                Location{r->path}, msg});
        }
}

// The load options of each source: the run manifest above it (strobe-cli collect's run directories) anchors the
// clocks the source itself does not (rocprof's boot time, nvidia-smi's local time; applyClockOptions, in each
// loader). A manifest whose clocks cannot be read is a note of the run, and not used.
std::vector<SourceLoadOptions> optionsPerSource(const std::vector<SourceGroup>& groups, const std::vector<std::string>& files,
                                                const SourceLoadOptions& base, Diagnostics& notes) {
    std::vector<SourceLoadOptions> out(files.size(), base);
    std::map<std::string, std::optional<ClockAnchor>> byManifest;
    for (size_t i = 0; i < files.size(); ++i) {
        if (groups[i].format == "kineto") continue;
        const std::string manifest = findRunManifest(files[i]);
        if (manifest.empty()) continue;
        auto [it, fresh] = byManifest.try_emplace(manifest);
        if (fresh) {
            auto clocks = readManifestClocks(manifest);
            if (clocks)
                it->second = std::move(clocks.value());
            else
                notes.push_back(Diagnostic{Severity::Warning, clocks.error().where,
                                           "the run manifest's clocks are not used: " + clocks.error().message});
        }
        out[i].manifest = it->second;
    }
    return out;
}

// A source that holds only telemetry samples (the CPU sampler, nvidia-smi, amd-smi, rocpd's monitor alone) belongs
// to its host, not to a rank (Dataset::hosts): true when `r` was taken there. Sources name no host today (one run
// is one host's), so all of a run's telemetry is one host's, named "".
bool addHostTelemetry(Dataset& ds, std::shared_ptr<RankData>& r) {
    if (!isTelemetryOnly(*r)) return false;
    r->rank = -1;
    r->rankSource = RankSource::FileOrder;
    const std::string host;  // no source names its host yet
    auto it = std::find_if(ds.hosts.begin(), ds.hosts.end(), [&](const HostTelemetry& h) { return h.host == host; });
    if (it == ds.hosts.end()) it = ds.hosts.insert(ds.hosts.end(), HostTelemetry{host, {}});
    it->sources.push_back(std::move(r));
    return true;
}

// The dataset of the loaded ranks, ordered by rank, with the run's diagnostics. Takes the slots' data.
DatasetPtr assembleDataset(const std::vector<std::string>& paths, const std::vector<std::string>& files,
                           std::vector<Slot>& slots, const Diagnostics& runNotes, bool wholeRun) {
    auto ds = std::make_shared<Dataset>();
    ds->generation = nextGeneration();
    ds->sources = paths;
    runDiagnostics(files, slots, *ds, wholeRun);
    ds->diagnostics.insert(ds->diagnostics.end(), runNotes.begin(), runNotes.end());
    std::vector<std::shared_ptr<RankData>> kineto;  // in file order, then by rank
    for (Slot& s : slots)
        for (auto& r : s.data) kineto.push_back(std::move(r));
    std::stable_sort(kineto.begin(), kineto.end(), [](const auto& a, const auto& b) { return a->rank < b->rank; });
    joinForeignCounters(slots, kineto, *ds);
    int next = 0;
    for (auto& r : kineto) {
        next = std::max(next, r->rank + 1);
        ds->ranks.push_back(std::move(r));
    }
    // Other formats' ranks follow the Kineto ones, in source order; host telemetry goes to its host.
    for (Slot& s : slots)
        for (auto& r : s.more) {
            if (addHostTelemetry(*ds, r)) continue;
            r->rank = next++;
            r->rankSource = RankSource::FileOrder;
            ds->ranks.push_back(std::move(r));
        }
    if (Status clocks = checkClockOverlay(*ds); !clocks) {
        spdlog::warn("{}", clocks.error().message);
        ds->diagnostics.push_back(Diagnostic{Severity::Warning, Location{}, clocks.error().message});
    }
    return ds;
}

}  // namespace

int rankFromFileName(const std::string& fileName) {
    std::string name = fs::path(fileName).filename().string();
    for (char& c : name) c = lower(c);
    for (std::string_view key : {std::string_view("rank"), std::string_view("worker")}) {
        for (size_t pos = name.find(key); pos != std::string::npos; pos = name.find(key, pos + 1)) {
            size_t j = pos + key.size();
            if (j < name.size() && (name[j] == '-' || name[j] == '_')) ++j;
            size_t end = j;
            while (end < name.size() && isDigit(name[end])) ++end;
            if (end == j || end - j > 9) continue;  // no number, or not a plausible rank
            return std::stoi(name.substr(j, end - j));
        }
    }
    return -1;
}

Result<std::vector<std::string>> expandRunPaths(const std::vector<std::string>& paths) {
    auto groups = detectSources(paths);
    if (!groups) return groups.error();
    std::vector<std::string> out;
    out.reserve(groups->size());
    for (const SourceGroup& g : *groups) out.push_back(groupPrimaryPath(g));
    return out;
}

Result<DatasetPtr> loadRun(const std::vector<std::string>& paths, const RunLoadOptions& options,
                           const RunCallbacks& callbacks) {
    auto detected = detectSources(paths);
    if (!detected) return detected.error();
    return loadDetectedRun(paths, detected.value(), options, callbacks);
}

Result<DatasetPtr> loadDetectedRun(const std::vector<std::string>& paths, const std::vector<SourceGroup>& groups,
                                   const RunLoadOptions& options, const RunCallbacks& callbacks) {
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<ClassificationRules> ownRules;
    const ClassificationRules* rules = options.rules;
    if (rules == nullptr) {
        auto loaded = ClassificationRules::loadDefault();
        if (!loaded) return Error(loaded.error().where, "classification rules: " + loaded.error().message);
        ownRules.emplace(std::move(loaded.value()));
        rules = &*ownRules;
    }
    std::vector<std::string> files;
    for (const SourceGroup& g : groups) files.push_back(groupPrimaryPath(g));
    const size_t n = files.size();
    Diagnostics manifestNotes;
    std::vector<SourceLoadOptions> sourceOptions = optionsPerSource(groups, files, options.sources, manifestNotes);
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t cores = options.threads > 0 ? static_cast<size_t>(options.threads) : hw;
    const size_t workers = std::max<size_t>(1, std::min(cores, n));
    const int perFileThreads = (n == 1 && cores >= 2) ? 2 : 1;
    for (SourceLoadOptions& so : sourceOptions) so.threads = perFileThreads;
    if (options.checkMemoryBudget)
        if (Status fits = MemoryBudget(options.memoryLimitBytes).check(files, workers); !fits) return fits.error();
    LoadCache cache(options.cacheDir);
    cache.setVerifyData(options.verifyCache);
    const uint64_t optionsKey = cacheOptionsKey(*rules);
    const CancelToken cancel = callbacks.cancel;

    std::vector<Slot> slots(n);
    uint64_t totalBytes = 0;
    for (size_t i = 0; i < n; ++i) {
        std::error_code ec;
        const auto sz = fs::file_size(files[i], ec);
        slots[i].bytes = ec || sz == 0 ? 1 : sz;
        totalBytes += slots[i].bytes;
    }

    std::mutex callbackMutex;  // callers' callbacks are never entered by two threads at once
    ProgressThrottle throttle([&](const ProgressInfo& p) {
        std::lock_guard lock(callbackMutex);
        callbacks.onProgress(p);
    });
    auto report = [&](size_t i, const std::string& stage, bool force) {
        if (!callbacks.onProgress) return;
        uint64_t done = 0;
        for (const Slot& s : slots) done += std::min(s.done.load(std::memory_order_relaxed), s.bytes);
        ProgressInfo p;
        p.stage = stage;
        p.file = i < n ? files[i] : std::string();
        p.done = done;
        p.total = totalBytes;
        p.fraction = static_cast<double>(done) / static_cast<double>(totalBytes);
        throttle.report(p, force);
    };
    auto metadata = [&](size_t i, const TraceInfo& info) {
        if (!callbacks.onMetadata) return;
        std::lock_guard lock(callbackMutex);
        callbacks.onMetadata(i, info);
    };
    auto loadOne = [&](size_t i) {
        const std::string& path = files[i];
        Slot& slot = slots[i];
        if (groups[i].format != "kineto") {
            report(i, "parse", false);
            loadOtherSource(groups[i], slot, sourceOptions[i], *rules, options.useCache ? &cache : nullptr, optionsKey,
                            cancel, [&](const TraceInfo& info) { metadata(i, info); });
            slot.done.store(slot.bytes);
            report(i, "loaded", false);
            return;
        }
        auto stamp = LoadCache::stamp(path);
        if (!stamp) {
            slot.error = Error(Location{path}, "the file disappeared or cannot be read: " + stamp.error().message);
            return;
        }
        std::optional<Error> replacedEntry;  // a corrupt or foreign entry, made again below (a warning on the rank)
        if (options.useCache) {
            CacheLookup lookup = CacheLookup::Missing;
            auto hit = readKinetoRanksCached(cache, stamp.value(), path, i, optionsKey, lookup);
            if (hit) {
                metadata(i, hit.value().front()->info);
                slot.data = std::move(hit.value());
                slot.done.store(slot.bytes);
                report(i, "cache", false);
                return;
            }
            if (lookup == CacheLookup::Corrupt || lookup == CacheLookup::Foreign) {
                spdlog::warn("{} (made again)", hit.error().toString());
                replacedEntry = hit.error();
            } else if (lookup != CacheLookup::Missing)
                spdlog::info("{}", hit.error().toString());
        }
        KinetoLoadOptions ko;
        ko.threads = perFileThreads;
        KinetoCallbacks kc;
        kc.cancel = cancel;
        kc.onMetadata = [&](const TraceInfo& info) { metadata(i, info); };
        kc.onProgress = [&](const ProgressInfo& p) {
            // Parsing is most of a file's cost; the merge and the cache write take the last tenth.
            const double f = std::clamp(p.fraction, 0.0, 1.0) * 0.9;
            slot.done.store(static_cast<uint64_t>(f * static_cast<double>(slot.bytes)), std::memory_order_relaxed);
            report(i, p.stage.empty() ? std::string("parse") : p.stage, false);
        };
        auto loaded = loadKinetoTrace(path, ko, kc);
        if (!loaded) {
            slot.error = loaded.error();
            return;
        }
        std::shared_ptr<RankData> r(std::move(loaded.value()));
        if (cancel.cancelled()) return;
        report(i, "merge", false);
        if (splitAndMergeRanks(*r, path, *rules, cancel, slot)) {  // a merged multi-rank file: its ranks
            if (options.useCache) writeKinetoRanksCached(cache, stamp.value(), optionsKey, replacedEntry, cancel, slot);
            slot.done.store(slot.bytes);
            report(i, "loaded", false);
            return;
        }
        Status merged = mergeRank(*r, *rules, cancel);
        if (!merged) {
            slot.error = merged.error();
            return;
        }
        assignRank(*r, path, i);
        r->path = path;
        if (options.useCache && !cancel.cancelled()) {
            Status written = cache.write(stamp.value(), *r, optionsKey);
            if (!written) slot.cacheWriteError = written.error();
            if (replacedEntry)
                r->diagnostics.push_back(Diagnostic{Severity::Warning, replacedEntry->where,
                                                    replacedEntry->message +
                                                        (written ? "; replaced by a new entry" : "; not replaced")});
        }
        slot.data = {std::move(r)};
        slot.done.store(slot.bytes);
        report(i, "loaded", false);
    };

    runOnWorkers(files, slots, workers, cancel, loadOne);
    if (cancel.cancelled()) return Error("cancelled");

    size_t good = 0;
    for (const Slot& s : slots) good += !s.data.empty() || !s.more.empty() ? 1 : 0;
    if (good == 0) return noFileLoaded(slots);
    DatasetPtr ds = assembleDataset(paths, files, slots, manifestNotes, options.wholeRun);
    report(n, "done", true);
    spdlog::info("loaded {} of {} files in {:.3f} s", good, n,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return ds;
}

}  // namespace strobe::core
