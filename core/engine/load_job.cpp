#include "core/engine/load_job.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/engine/converted_run.h"
#include "core/engine/memory_budget.h"
#include "core/formats/source_detect.h"

namespace strobe::core {

namespace {

Error loadJobCancelled() { return Error("cancelled"); }

// The sources to load for `wanted` (most wanted first): each rank's source in turn while the sources' resident
// estimate stays within `limit`; the ranks left out are named in `notes`.
std::vector<std::string> pickSources(const RunSummaries& run, const std::vector<int>& wanted, uint64_t limit,
                                     std::vector<std::string>& notes) {
    std::vector<std::string> chosen;
    std::vector<int> missing, over;
    for (int r : wanted) {
        const StoredRankSummary* s = run.find(r);
        if (!s) {
            missing.push_back(r);
            continue;
        }
        if (std::find(chosen.begin(), chosen.end(), s->identity.sourcePath) != chosen.end()) continue;
        std::vector<std::string> wider = chosen;
        wider.push_back(s->identity.sourcePath);
        if (MemoryBudget::estimateResident(wider) > limit) {
            over.push_back(r);
            continue;
        }
        chosen = std::move(wider);
    }
    if (!missing.empty())
        notes.push_back(fmt::format("no rank {} in this run", fmt::join(missing, ", ")));
    if (!over.empty())
        notes.push_back(fmt::format("events of rank{} {} not loaded: with them, the ranks loaded would take more than "
                                    "the memory budget ({})",
                                    over.size() > 1 ? "s" : "", fmt::join(over, ", "),
                                    MemoryBudget::formatSize(limit)));
    return chosen;
}

// A converted run from its summaries, with the events of options.ranks loaded (none when unset). nullopt when the
// run was not converted (the caller loads it in full, or refuses it).
Result<std::optional<LoadJobResult>> loadSummaryFirst(const JobContext& ctx, const std::vector<std::string>& files,
                                                      const RunLoadOptions& options, const RunCallbacks& cb,
                                                      const LoadFunction& load, uint64_t resident, uint64_t limit) {
    if (cb.onProgress) cb.onProgress({"summaries", "", 0.0, 0, 0});
    Diagnostics warnings;
    RunLoadOptions part = options;
    part.wholeRun = false;
    part.summaryFirst = false;
    part.ranks.reset();
    part.knownSummaries.reset();
    auto loadPart = [&](const std::vector<std::string>& sources) -> Result<DatasetPtr> {
        return load ? load(sources, part, cb) : loadRun(sources, part, cb);
    };
    // A drill-down: the summaries read at the opening, when the run is unchanged since; else read (and made) again.
    std::optional<RunSummaries> reused;
    if (options.knownSummaries)
        if (auto key = convertOptionsKey())
            reused = reuseRunSummaries(*options.knownSummaries, files, options.cacheDir, *key);
    Result<RunSummaries> run = reused ? Result<RunSummaries>(std::move(*reused)) : Result<RunSummaries>(Error(""));
    if (!reused) {
        auto plan = planFromSummaries(files, options.cacheDir);
        if (!plan) return std::optional<LoadJobResult>();
        for (const auto& w : plan->warnings) warnings.push_back({Severity::Warning, Location{}, w});
        run = completeRunSummaries(std::move(*plan), loadPart, limit, ctx.cancel);
    }
    if (ctx.cancel.cancelled()) return loadJobCancelled();
    if (!run) return run.error();
    run->runEstimate = resident;
    run->limit = options.ranks ? 0 : limit;
    const std::vector<std::string> chosen = pickSources(*run, options.ranks.value_or(std::vector<int>{}), limit,
                                                        run->notes);
    std::shared_ptr<Dataset> ds;
    if (chosen.empty()) {
        ds = std::make_shared<Dataset>();
        ds->generation = nextGeneration();
    } else {
        MemoryReservation reservation;
        if (ctx.memory) reservation = ctx.reserveMemory(MemoryBudget::estimateRun(chosen, chosen.size()));
        RunLoadOptions picked = part;
        picked.checkMemoryBudget = false;  // the sources were picked within the limit above
        auto loaded = load ? load(chosen, picked, cb) : loadRun(chosen, picked, cb);
        if (ctx.cancel.cancelled()) return loadJobCancelled();
        if (!loaded) return loaded.error();
        // Freshly made by the loader and not shared yet: completed here before anyone sees it.
        ds = std::const_pointer_cast<Dataset>(loaded.value());
    }
    ds->sources = files;
    for (auto& w : warnings) ds->diagnostics.push_back(std::move(w));
    for (const auto& r : ds->ranks) run->loaded.push_back(r->rank);
    std::sort(run->loaded.begin(), run->loaded.end());
    ds->summaryFirst = std::make_shared<const RunSummaries>(std::move(*run));
    LoadJobResult out;
    out.dataset = std::move(ds);
    return std::optional<LoadJobResult>(std::move(out));
}

}  // namespace

Result<LoadJobResult> runLoadJob(const JobContext& ctx, const std::vector<std::string>& paths,
                                 const RunLoadOptions& options, const LoadJobEvents& events, const LoadFunction& load) {
    const auto t0 = std::chrono::steady_clock::now();
    const CancelToken cancel = ctx.cancel;
    // The loader's reports are throttled once, by the loader (serialised, ~30 Hz); they go to the jobs panel
    // (ctx.progress) and to the caller as they are.
    auto progress = [&](const ProgressInfo& p) {
        if (ctx.progress) ctx.progress(p);
        if (events.onProgress) events.onProgress(p);
    };

    if (events.onStarted) events.onStarted();
    // Expand and detect once.
    auto detected = detectSources(paths);
    if (!detected) return detected.error();
    std::vector<std::string> files;
    for (const SourceGroup& g : detected.value()) files.push_back(groupPrimaryPath(g));
    if (events.onExpanded) events.onExpanded(files);
    if (cancel.cancelled()) return loadJobCancelled();

    RunCallbacks cb;
    cb.cancel = cancel;
    cb.onMetadata = events.onMetadata;
    cb.onProgress = progress;
    // A converted run whose events would not fit once loaded (or whose ranks are asked for) opens from its summaries.
    const uint64_t limit = MemoryBudget(options.memoryLimitBytes).limit();
    const uint64_t resident = MemoryBudget::estimateResident(files);
    std::optional<LoadJobResult> summaryFirst;
    if (options.useCache && (options.ranks || (options.summaryFirst && resident > limit))) {
        auto sf = loadSummaryFirst(ctx, files, options, cb, load, resident, limit);
        if (!sf) return sf.error();
        summaryFirst = std::move(sf.value());
        if (!summaryFirst && options.ranks)
            return Error(Location{files.empty() ? std::string() : files.front()},
                         "the run has no summaries to open from (prepare it with `strobe-cli convert`)");
    }
    if (summaryFirst) {
        LoadJobResult out = std::move(*summaryFirst);
        out.files = std::move(files);
        progress({"summary", "", 1.0, 0, 0});
        for (const auto& rank : out.dataset->ranks) {
            if (cancel.cancelled()) return loadJobCancelled();
            out.summaries.push_back(summarizeRank(*rank));
        }
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return out;
    }

    // Reserve once: refused when it can never fit, else wait for room beside the other loads.
    const size_t cores = options.threads > 0 ? size_t(options.threads) : std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = std::max<size_t>(1, std::min(cores, files.size()));
    if (Status fits = MemoryBudget(options.memoryLimitBytes).check(files, workers); !fits) return fits.error();
    const uint64_t estimate = MemoryBudget::estimateRun(files, workers);
    MemoryReservation reservation;
    if (ctx.memory) {
        MemoryGate& gate = *ctx.memory;
        const bool waits = gate.limit() != 0 && gate.inUse() != 0 && gate.inUse() + estimate > gate.limit();
        if (waits) progress({kWaitingForMemoryStage, "", 0.0, 0, 0});
        reservation = ctx.reserveMemory(estimate);
        if (cancel.cancelled()) return loadJobCancelled();
        if (waits) progress({"reading", "", 0.0, 0, 0});  // no longer waiting, before the loader's first report
    }

    // Load the ranks in parallel and merge them.
    RunLoadOptions o = options;
    o.checkMemoryBudget = false;  // checked and reserved above
    Result<DatasetPtr> loaded = load ? load(files, o, cb) : loadDetectedRun(paths, detected.value(), o, cb);
    if (cancel.cancelled()) return loadJobCancelled();
    if (!loaded) return loaded.error();

    // Summarise.
    LoadJobResult out;
    out.dataset = std::move(loaded.value());
    out.files = std::move(files);
    if (out.dataset) {
        progress({"summary", "", 1.0, 0, 0});
        for (const auto& rank : out.dataset->ranks) {
            if (cancel.cancelled()) return loadJobCancelled();
            out.summaries.push_back(summarizeRank(*rank));
        }
    }
    reservation.release();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

uint64_t submitLoadJob(JobRunner& runner, const std::string& slot, const std::string& name,
                       std::vector<std::string> paths, RunLoadOptions options,
                       std::function<void(uint64_t, Result<LoadJobResult>)> done, LoadJobEvents events,
                       LoadFunction load) {
    // `done` once: from the work when it ends uncancelled, or from onCancelled.
    auto reported = std::make_shared<std::atomic<bool>>(false);
    auto finish = std::make_shared<std::function<void(uint64_t, Result<LoadJobResult>)>>(std::move(done));
    auto work = [paths = std::move(paths), options = std::move(options), events = std::move(events),
                 load = std::move(load), reported, finish](const JobContext& ctx) -> std::function<void()> {
        auto result = runLoadJob(ctx, paths, options, events, load);
        if (ctx.cancel.cancelled()) return {};  // cancelled: onCancelled reports it; superseded: nobody is told
        if (!reported->exchange(true) && *finish) (*finish)(ctx.generation, std::move(result));
        return {};
    };
    JobOptions jo;
    jo.onCancelled = [reported, finish](uint64_t generation) {
        if (!reported->exchange(true) && *finish) (*finish)(generation, loadJobCancelled());
    };
    return runner.submit(slot, name, std::move(work), std::move(jo));
}

std::vector<Result<LoadJobResult>> loadRunsThroughJobs(JobRunner& runner,
                                                       const std::vector<std::vector<std::string>>& runs,
                                                       const RunLoadOptions& options,
                                                       const std::function<void(size_t)>& onLoaded) {
    const size_t n = runs.size();
    std::vector<std::optional<Result<LoadJobResult>>> results(n);
    std::mutex mutex;
    std::condition_variable ended;
    size_t left = n;
    // Loads run side by side, up to one per runner thread: each takes its share of the cores for its ranks.
    RunLoadOptions o = options;
    if (o.threads <= 0) {
        const size_t side = std::max<size_t>(1, std::min<size_t>(n, size_t(std::max(1, runner.threadCount()))));
        o.threads = int(std::max<size_t>(1, std::max(1u, std::thread::hardware_concurrency()) / side));
    }
    for (size_t i = 0; i < n; ++i) {
        std::string slot = "load:sweep:" + std::to_string(i);
        for (const auto& p : runs[i]) slot += ":" + p;
        const std::string name = "Load " + (runs[i].empty() ? std::string() : runs[i].front());
        const uint64_t gen = submitLoadJob(runner, slot, name, runs[i], o, [&, i](uint64_t, Result<LoadJobResult> r) {
            std::lock_guard lock(mutex);
            results[i] = std::move(r);
            if (onLoaded) onLoaded(i);
            --left;
            ended.notify_all();
        });
        if (gen == 0) {
            std::lock_guard lock(mutex);
            results[i] = Result<LoadJobResult>(loadJobCancelled());
            --left;
        }
    }
    std::unique_lock lock(mutex);
    ended.wait(lock, [&] { return left == 0; });
    std::vector<Result<LoadJobResult>> out;
    out.reserve(n);
    for (auto& r : results) out.push_back(std::move(*r));
    return out;
}

}  // namespace strobe::core
