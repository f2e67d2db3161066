// strobe-cli convert (issue 29): each rank's load cache and its summary (core/engine/rank_summary.h) written ahead,
// locally in parallel within the memory budget, or as one Slurm array job; resumable (current ranks are skipped).
#include "app/cli/cmd_convert.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "core/engine/load_cache.h"
#include "core/engine/load_job.h"
#include "core/engine/memory_budget.h"
#include "core/engine/rank_summary.h"
#include "core/engine/run_loader.h"
#include "core/io/resources.h"
#include "core/model/classification.h"

namespace strobe::app {

namespace fs = std::filesystem;

namespace {

constexpr const char* kConvertHelp =
    "Usage: strobe-cli convert PATH... [--jobs N] [--cache-dir DIR] [--json]\n"
    "                          [--slurm [--slurm-arg ARG]... [--ranks-per-task N]]\n"
    "\n"
    "Prepares a large run for opening: for each rank file (directories expand as for `summary`), loads it through\n"
    "the load cache (writing its cache entry) and writes the rank's summary beside it (per step: kernel time by\n"
    "category, idle, start and end; per collective: name, size, start, end; top kernels). Ranks whose cache entry\n"
    "and summary are current are skipped, so a second run resumes where one stopped. Each rank also gets a status\n"
    "file (<entry>.strobe-convert) in the cache directory. `strobe-cli summary` then reads the summaries.\n"
    "\n"
    "Options:\n"
    "  --jobs N            ranks converted at once (default: one per core), within the memory budget (75% of the\n"
    "                      memory available to this process: its cgroup's limit, e.g. a Slurm allocation, counts;\n"
    "                      STROBE_MEMORY_LIMIT overrides)\n"
    "  --cache-dir DIR     the cache directory (default: $XDG_CACHE_HOME/strobe)\n"
    "  --json              one JSON document: per rank {rank, path, status: converted|skipped|failed, reason}\n"
    "  --slurm             convert as one Slurm array job (one task per group of ranks; Slurm's commands as in\n"
    "                      slurm.yaml, see `collect --slurm`); waits for it and reports like a local run\n"
    "  --slurm-arg ARG     an argument for sbatch (repeatable), e.g. --slurm-arg=--partition=debug\n"
    "  --ranks-per-task N  ranks per array task (default: the ranks spread evenly over the partition's idle CPUs,\n"
    "                      or all its CPUs when none is idle, as sinfo reports them, at least 8 a task: each task\n"
    "                      start waits for a scheduling pass, so one task per CPU; 8 when sinfo cannot tell). A task\n"
    "                      converts as many ranks at once as it has CPUs ($SLURM_CPUS_ON_NODE; --jobs caps it)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit codes: 0 every rank converted or skipped, 1 some failed (listed with rank, path and reason),\n"
    "2 usage error, 3 unreadable input (no rank readable).";

const core::IntParam kJobs = core::IntParam{"jobs", "Jobs", "Ranks converted at once (0: one per core)", 0}.bounded(0, 4096, 1);
const core::StringParam kCacheDir{"cache-dir", "Cache directory", "Where cache entries and summaries go", ""};
const core::BoolParam kSlurm{"slurm", "Slurm", "Convert as one Slurm array job", false};
const core::StringListParam kSlurmArg{"slurm-arg", "Slurm argument", "An argument for sbatch", {}};
const core::IntParam kRanksPerTask =
    core::IntParam{"ranks-per-task", "Ranks per task", "Ranks per Slurm array task (default: from sinfo's CPUs)",
                   kMinRanksPerTask}
        .bounded(1, 1 << 20, 1);
// Inside an array task (written by --slurm into the batch script; not in --help): which group this task converts,
// a number or "env" for $SLURM_ARRAY_TASK_ID.
const core::StringParam kTaskIndex{"task-index", "Task index", "The array task's group of ranks", ""};

std::string oneLine(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    return s;
}



// Loads one source through the load job (writing its cache entry) and writes each of its ranks' summaries.
ConvertOutcome finishRank(const ConvertItem& item, const fs::path& dir, uint64_t key, const core::SourceStamp& stamp,
                          core::Result<core::LoadJobResult> loaded) {
    ConvertOutcome out{item.rank, item.path, ConvertStatus::Failed, ""};
    if (!loaded) {
        out.reason = oneLine(loaded.error().toString());
        return out;
    }
    const core::Dataset& ds = *loaded->dataset;
    for (const auto& d : ds.diagnostics)
        if (d.severity == core::Severity::Error) out.reason = oneLine(d.toString());
    if (ds.ranks.empty() && out.reason.empty()) out.reason = "no rank in this source (telemetry only, or no events)";
    if (!out.reason.empty()) return out;
    out.rank = ds.ranks.front()->rank;
    if (auto st = writeSourceSummaries(ds, item.path, stamp, dir, key); !st) {
        out.reason = oneLine(st.error().toString());
        return out;
    }
    out.status = ConvertStatus::Converted;
    return out;
}

std::vector<ConvertOutcome> convertLocal(const std::vector<ConvertItem>& items, const fs::path& dir, int jobs,
                                         uint64_t key) {
    std::vector<ConvertOutcome> outcomes(items.size());
    core::JobRunner runner(jobs);
    runner.setMemoryLimit(core::MemoryBudget().limit());
    std::mutex m;
    std::condition_variable cv;
    size_t pending = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        const ConvertItem& item = items[i];
        outcomes[i] = {item.rank, item.path, ConvertStatus::Skipped, ""};
        if (convertIsCurrent(dir, item.path, key, outcomes[i].rank)) {
            writeConvertStatus(dir, outcomes[i]);
            continue;
        }
        auto stamp = core::LoadCache::stamp(item.path);
        if (!stamp) {
            outcomes[i] = {item.rank, item.path, ConvertStatus::Failed, oneLine(stamp.error().toString())};
            writeConvertStatus(dir, outcomes[i]);
            continue;
        }
        core::RunLoadOptions options;
        options.cacheDir = dir;
        options.threads = 1;
        options.wholeRun = false;  // one rank of the run at a time
        {
            std::lock_guard lock(m);
            ++pending;
        }
        auto done = [&, i, stamp = stamp.value()](uint64_t, core::Result<core::LoadJobResult> r) {
            ConvertOutcome o = finishRank(items[i], dir, key, stamp, std::move(r));
            writeConvertStatus(dir, o);
            std::lock_guard lock(m);
            outcomes[i] = std::move(o);
            --pending;
            cv.notify_all();
        };
        if (core::submitLoadJob(runner, fmt::format("convert:{}", i), "convert " + item.path, {item.path}, options,
                                done) == 0) {
            std::lock_guard lock(m);
            outcomes[i] = {item.rank, item.path, ConvertStatus::Failed, "the job runner refused the job"};
            --pending;
        }
    }
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return pending == 0; });
    return outcomes;
}

}  // namespace

bool convertIsCurrent(const fs::path& dir, const std::string& source, uint64_t key, int& rank) {
    core::SummaryLookup s = core::lookupRankSummary(dir, source, 0, key);
    if (s.state != core::SummaryState::Current) return false;
    core::LoadCache cache(dir);
    cache.setVerifyData(false);  // the entry is current and whole; its columns are checked when it is opened
    core::CacheLookup lookup{};
    if (!cache.read(source, key, &lookup)) return false;
    rank = s.summary.rank.rank;
    return true;
}

std::optional<SummaryPlan> planFromSummaries(const std::vector<std::string>& paths, const fs::path& cacheDir,
                                             std::string_view command) {
    auto plan = core::planFromSummaries(paths, cacheDir);
    if (plan)
        for (const auto& w : plan->warnings) fmt::print(stderr, "strobe-cli {}: warning: {}\n", command, w);
    return plan;
}

std::string_view toString(ConvertStatus s) {
    switch (s) {
    case ConvertStatus::Converted: return "converted";
    case ConvertStatus::Skipped: return "skipped";
    case ConvertStatus::Failed: return "failed";
    }
    return "failed";
}

fs::path convertStatusPath(const fs::path& dir, const std::string& source) {
    fs::path p = core::rankSummaryPath(dir, source, 0);
    if (!p.empty()) p.replace_extension(".strobe-convert");
    return p;
}

void writeConvertStatus(const fs::path& dir, const ConvertOutcome& o) {
    const char* jobEnv = std::getenv("SLURM_ARRAY_JOB_ID");
    const std::string job = jobEnv != nullptr ? jobEnv : "";
    const fs::path file = convertStatusPath(dir, o.path);
    if (file.empty()) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path temp = file.string() + fmt::format(".tmp-{}", ::getpid());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << "rank\t" << o.rank << "\npath\t" << oneLine(o.path) << "\nstatus\t" << toString(o.status)
            << "\nreason\t" << oneLine(o.reason) << "\njob\t" << oneLine(job) << "\n";
    }
    fs::rename(temp, file, ec);
}

std::optional<ConvertOutcome> readConvertStatus(const fs::path& dir, const std::string& source, std::string* job) {
    std::ifstream in(convertStatusPath(dir, source));
    if (!in) return std::nullopt;
    ConvertOutcome o;
    bool haveStatus = false;
    std::string line;
    while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        if (tab == std::string::npos) continue;
        const std::string k = line.substr(0, tab), v = line.substr(tab + 1);
        if (k == "rank") o.rank = std::atoi(v.c_str());
        else if (k == "path") o.path = v;
        else if (k == "reason") o.reason = v;
        else if (k == "job" && job) *job = v;
        else if (k == "status")
            for (auto s : {ConvertStatus::Converted, ConvertStatus::Skipped, ConvertStatus::Failed})
                if (toString(s) == v) {
                    o.status = s;
                    haveStatus = true;
                }
    }
    if (!haveStatus) return std::nullopt;
    return o;
}

std::vector<ConvertItem> convertItems(const std::vector<std::string>& sources) {
    std::vector<ConvertItem> items;
    for (size_t i = 0; i < sources.size(); ++i) {
        const int fromName = core::rankFromFileName(sources[i]);
        items.push_back({fromName >= 0 ? fromName : static_cast<int>(i), sources[i]});
    }
    return items;
}

int reportConvert(const std::vector<ConvertOutcome>& outcomes, bool json) {
    size_t failed = 0, counts[3] = {0, 0, 0};
    for (const auto& o : outcomes) {
        ++counts[static_cast<size_t>(o.status)];
        failed += o.status == ConvertStatus::Failed;
    }
    if (json) {
        std::string j = "{\n  \"ranks\": [";
        for (size_t i = 0; i < outcomes.size(); ++i) {
            const auto& o = outcomes[i];
            j += fmt::format("{}\n    {{\"rank\": {}, \"path\": {}, \"status\": \"{}\", \"reason\": {}}}", i ? "," : "",
                             o.rank, jsonQuote(o.path), toString(o.status),
                             o.reason.empty() ? std::string("null") : jsonQuote(o.reason));
        }
        j += fmt::format("\n  ],\n  \"converted\": {}, \"skipped\": {}, \"failed\": {}\n}}\n", counts[0], counts[1],
                         counts[2]);
        std::fwrite(j.data(), 1, j.size(), stdout);
    } else {
        for (const auto& o : outcomes)
            fmt::print("rank {}  {}  {}{}\n", o.rank, toString(o.status), o.path,
                       o.reason.empty() ? std::string() : "  (" + o.reason + ")");
        fmt::print("{} converted, {} skipped, {} failed\n", counts[0], counts[1], counts[2]);
    }
    std::fflush(stdout);
    for (const auto& o : outcomes)
        if (o.status == ConvertStatus::Failed)
            fmt::print(stderr, "strobe-cli convert: rank {}: {}: {}\n", o.rank, o.path, o.reason);
    if (failed == 0) return kExitOk;
    return failed == outcomes.size() ? kExitBadInput : kExitFailure;
}

namespace {

// The group of `items` an array task converts: [index * per, (index + 1) * per).
std::vector<ConvertItem> taskGroup(const std::vector<ConvertItem>& items, size_t index, size_t per) {
    std::vector<ConvertItem> out;
    for (size_t i = index * per; i < items.size() && i < (index + 1) * per; ++i) out.push_back(items[i]);
    return out;
}

int runConvert(const std::vector<std::string>& args) {
    ArgParser p("convert", {kJsonFlag, kJobs, kCacheDir, kSlurm, CliOption(kSlurmArg, '\0', true), kRanksPerTask,
                            kTaskIndex});
    if (!p.parse(args)) return usageError("convert", p.error());
    if (p.positionals().empty()) return usageError("convert", "no trace file or directory given");
    if (p.has(kSlurmArg) && !p.get(kSlurm)) return usageError("convert", "--slurm-arg needs --slurm");
    for (const auto& path : p.positionals()) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            fmt::print(stderr, "strobe-cli convert: {}: no such file or directory\n", path);
            return kExitBadInput;
        }
    }
    logToStderr();
    auto sources = core::expandRunPaths(p.positionals());
    if (!sources) {
        fmt::print(stderr, "strobe-cli convert: {}\n", sources.error().toString());
        return kExitBadInput;
    }
    const auto key = convertOptionsKey();
    if (!key) {
        fmt::print(stderr, "strobe-cli convert: {}\n", key.error().toString());
        return kExitFailure;
    }
    std::error_code ec;
    const fs::path dir = fs::absolute(p.get(kCacheDir).empty() ? core::userCacheDir() : fs::path(p.get(kCacheDir)), ec);
    std::vector<ConvertItem> items = convertItems(*sources);
    // Not given: chosen from the CPUs Slurm has (convertThroughSlurm); an array task is always told it.
    const size_t per = p.has(kRanksPerTask) ? static_cast<size_t>(p.get(kRanksPerTask)) : 0;
    int jobs = static_cast<int>(p.get(kJobs));
    if (p.has(kTaskIndex)) {
        std::string index = p.get(kTaskIndex);
        if (index == "env") index = std::getenv("SLURM_ARRAY_TASK_ID") ? std::getenv("SLURM_ARRAY_TASK_ID") : "";
        char* end = nullptr;
        const unsigned long v = std::strtoul(index.c_str(), &end, 10);
        if (index.empty() || *end != '\0') return usageError("convert", "--task-index: not a task number: '" + index + "'");
        items = taskGroup(items, v, per > 0 ? per : kMinRanksPerTask);
        // As many ranks at once as the task has CPUs (not the node's cores: the node's other tasks share them).
        const char* cpus = std::getenv("SLURM_CPUS_ON_NODE");
        const int allocated = cpus != nullptr ? std::atoi(cpus) : 0;
        if (allocated > 0 && (jobs == 0 || jobs > allocated)) jobs = allocated;
    }
    if (p.get(kSlurm)) {
        SlurmConvertOptions so{dir, p.get(kSlurmArg), per, jobs, *key};
        auto outcomes = convertThroughSlurm(items, so);
        if (!outcomes) {
            fmt::print(stderr, "strobe-cli convert: {}\n", outcomes.error().toString());
            return kExitFailure;
        }
        return reportConvert(*outcomes, p.get(kJsonFlag));
    }
    return reportConvert(convertLocal(items, dir, jobs, *key), p.get(kJsonFlag));
}

const CommandRegistrar kConvertRegistrar(CliCommand{
    "convert", "write each rank's load cache and summary ahead (locally or as a Slurm array job)", kConvertHelp,
    runConvert});

}  // namespace

}  // namespace strobe::app
