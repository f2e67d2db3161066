// strobe-cli convert --slurm (issue 29): one Slurm array job, one task per group of ranks, submitted the way
// `collect --slurm` submits (collectors/slurm.h: the spec in slurm.yaml, its argv templates, the batch script), then
// waited for through the per-rank status files the tasks write and `squeue -j JOB` (sacct is not available and
// scontrol forgets finished tasks).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "app/cli/cmd_convert.h"
#include "collectors/process_tree.h"
#include "collectors/slurm.h"
#include "collectors/tool_spec.h"

namespace strobe::app {

namespace fs = std::filesystem;
using collectors::ProcessSpec;

namespace {

// The batch script and the submit command of the array job over `todo` (in the task groups' order).
struct ArraySubmission {
    fs::path script;
    std::vector<std::string> submit;
};

core::Result<ArraySubmission> prepareArray(const collectors::SlurmSpec& spec, const std::vector<ConvertItem>& todo,
                                           const SlurmConvertOptions& o, const fs::path& jobDir) {
    std::error_code ec;
    const size_t tasks = (todo.size() + o.ranksPerTask - 1) / o.ranksPerTask;
    ArraySubmission a;
    a.script = jobDir / fmt::format("convert-{}-{}.sh", ::getpid(),
                                    std::chrono::system_clock::now().time_since_epoch().count());
    std::vector<std::string> inner{collectors::strobeCliPath(), "convert", "--cache-dir", o.cacheDir.string(),
                                   "--ranks-per-task", std::to_string(o.ranksPerTask), "--task-index", "env"};
    if (o.jobs > 0) inner.insert(inner.end(), {"--jobs", std::to_string(o.jobs)});
    inner.push_back("--");
    for (const auto& item : todo) inner.push_back(item.path);
    const std::map<std::string, std::string> vars{{"out", jobDir.string()},
                                                  {"run", "convert"},
                                                  {"cwd", fs::current_path(ec).string()},
                                                  {"script", a.script.string()},
                                                  {"strobe_cli", collectors::strobeCliPath()}};
    const auto launch = collectors::expandSlurmArgv(spec.launch, vars, {{"collect", inner}});
    if (!launch) return core::Error(fmt::format("{}: launch: {}", spec.source, launch.error().message));
    std::vector<std::string> slurmArgs = o.slurmArgs;
    slurmArgs.push_back(fmt::format("--array=0-{}", tasks - 1));
    const auto submit = collectors::expandSlurmArgv(spec.submit, vars, {{"slurm_args", slurmArgs}});
    if (!submit) return core::Error(fmt::format("{}: submit: {}", spec.source, submit.error().message));
    a.submit = *submit;
    std::ofstream out(a.script, std::ios::binary);
    out << collectors::batchScript(*launch, a.submit,
                                   "strobe-cli convert --slurm: one array task converts one group of ranks.");
    out.close();
    if (!out) return core::Error(core::Location{a.script.string()}, "cannot write the batch script");
    fs::permissions(a.script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read, ec);
    return a;
}

// Whether the job has left Slurm's queue: `squeue -h -j JOB` lists nothing, or no longer knows the id. nullopt
// when squeue could not be asked.
std::optional<bool> jobGone(const std::string& jobId) {
    ProcessSpec q;
    q.argv = {"squeue", "-h", "-j", jobId, "-o", "%i %T"};
    const auto r = collectors::runCaptured(q, std::chrono::seconds(30));
    if (!r || !r->exit) return std::nullopt;
    if (r->exit->status != 0) {
        if (r->err.find("Invalid job id") != std::string::npos) return true;
        return std::nullopt;
    }
    return r->out.find_first_not_of(" \n") == std::string::npos;
}

// The value of sbatch option `longName`/`shortName` among the --slurm-arg values ("--partition=X", "--partition X",
// "-pX", "-p X"); "" when absent. The last one wins, as with sbatch.
std::string slurmOption(const std::vector<std::string>& args, const std::string& longName, char shortName) {
    std::string value;
    const std::string shortFlag = std::string("-") + shortName;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind(longName + "=", 0) == 0) value = a.substr(longName.size() + 1);
        else if ((a == longName || a == shortFlag) && i + 1 < args.size()) value = args[++i];
        else if (a.size() > 2 && a.rfind(shortFlag, 0) == 0) value = a.substr(2);
    }
    return value;
}

// --ranks-per-task when not given: defaultRanksPerTask over the CPUs sinfo says the partition has for this job's
// tasks (divided by --cpus-per-task when a --slurm-arg sets it); printed, with where the figure came from.
size_t chooseRanksPerTask(size_t ranks, const std::vector<std::string>& slurmArgs) {
    const std::string partition = slurmOption(slurmArgs, "--partition", 'p');
    ProcessSpec q;
    q.argv = {"sinfo", "--noheader", "--format=%P %C"};
    const auto r = collectors::runCaptured(q, std::chrono::seconds(30));
    const size_t listed = r && r->exit && r->exit->status == 0 ? partitionCpus(r->out, partition) : 0;
    const std::string perTask = slurmOption(slurmArgs, "--cpus-per-task", 'c');
    const unsigned long c = std::strtoul(perTask.c_str(), nullptr, 10);
    const size_t cpus = c > 1 && listed > 0 ? std::max<size_t>(1, listed / c) : listed;
    const size_t per = defaultRanksPerTask(ranks, cpus);
    const std::string where = partition.empty() ? "the default partition" : "partition " + partition;
    if (cpus == 0)
        fmt::print(stderr, "strobe-cli convert: sinfo did not tell the CPUs of {}; {} ranks per task\n", where, per);
    else
        fmt::print(stderr, "strobe-cli convert: {} CPU{} for tasks in {} (sinfo); {} ranks per task\n", cpus,
                   cpus == 1 ? "" : "s", where, per);
    return per;
}

size_t statusesWritten(const std::vector<ConvertItem>& todo, const fs::path& dir, const std::string& jobId) {
    size_t n = 0;
    for (const auto& item : todo) {
        std::string job;
        if (readConvertStatus(dir, item.path, &job) && job == jobId) ++n;
    }
    return n;
}

// Polls until every rank of `todo` has a status file of `jobId`, or the job has left the queue.
void waitForArray(const std::vector<ConvertItem>& todo, const fs::path& dir, const std::string& jobId, int pollMs) {
    int unknown = 0;
    for (;;) {
        if (statusesWritten(todo, dir, jobId) == todo.size()) return;
        const auto gone = jobGone(jobId);
        if (gone && *gone) return;
        if (!gone && ++unknown >= 200) {
            fmt::print(stderr, "strobe-cli convert: squeue could not be asked about job {} 200 times in a row; "
                               "stopped waiting\n", jobId);
            return;
        }
        if (gone) unknown = 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(std::max(100, pollMs)));
    }
}

}  // namespace

size_t defaultRanksPerTask(size_t ranks, size_t cpus) {
    if (cpus == 0) return kMinRanksPerTask;
    return std::max(kMinRanksPerTask, (ranks + cpus - 1) / cpus);
}

size_t partitionCpus(const std::string& sinfoOut, const std::string& partitions) {
    std::vector<std::string> wanted;
    for (size_t at = 0; at <= partitions.size() && !partitions.empty();) {
        const size_t comma = std::min(partitions.find(',', at), partitions.size());
        if (comma > at) wanted.push_back(partitions.substr(at, comma - at));
        at = comma + 1;
    }
    size_t cpus = 0;
    std::istringstream in(sinfoOut);
    std::string name, counts;
    while (in >> name >> counts) {
        const bool isDefault = name.back() == '*';
        if (isDefault) name.pop_back();
        if (wanted.empty() ? !isDefault : std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
        unsigned long v[4] = {0, 0, 0, 0};  // allocated/idle/other/total
        const char* p = counts.c_str();
        int k = 0;
        for (; k < 4; ++k) {
            char* end = nullptr;
            v[k] = std::strtoul(p, &end, 10);
            if (end == p || (k < 3 && *end != '/')) break;
            p = end + 1;
        }
        if (k == 4) cpus += v[1] > 0 ? v[1] : v[3];
    }
    return cpus;
}

core::Result<std::vector<ConvertOutcome>> convertThroughSlurm(const std::vector<ConvertItem>& items,
                                                              const SlurmConvertOptions& options) {
    SlurmConvertOptions o = options;
    std::vector<ConvertOutcome> outcomes(items.size());
    std::vector<ConvertItem> todo;
    std::vector<size_t> todoAt;
    for (size_t i = 0; i < items.size(); ++i) {
        outcomes[i] = {items[i].rank, items[i].path, ConvertStatus::Skipped, ""};
        if (convertIsCurrent(o.cacheDir, items[i].path, o.optionsKey, outcomes[i].rank)) continue;
        std::error_code ec;
        fs::remove(convertStatusPath(o.cacheDir, items[i].path), ec);  // a status of an earlier job never counts
        todo.push_back(items[i]);
        todoAt.push_back(i);
    }
    if (todo.empty()) return outcomes;
    const auto spec = collectors::loadSlurmSpec();
    if (!spec) return spec.error();
    if (o.ranksPerTask == 0) o.ranksPerTask = chooseRanksPerTask(todo.size(), o.slurmArgs);
    const fs::path jobDir = o.cacheDir / "convert-slurm";
    std::error_code ec;
    fs::create_directories(jobDir, ec);
    if (ec) return core::Error(core::Location{jobDir.string()}, "cannot create the directory: " + ec.message());
    const auto array = prepareArray(*spec, todo, o, jobDir);
    if (!array) return array.error();
    ProcessSpec ps;
    ps.argv = array->submit;
    const auto submitted = collectors::runCaptured(ps, std::chrono::seconds(120));
    const std::string jobId = submitted && submitted->exit && submitted->exit->status == 0
                                  ? collectors::parseJobId(*spec, submitted->out)
                                  : "";
    if (jobId.empty()) {
        std::string what = submitted ? submitted->err + submitted->out : submitted.error().message;
        while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
        return core::Error(fmt::format("{} did not submit the array job: {}", array->submit.front(),
                                       what.empty() ? "no job id in its output" : what));
    }
    fmt::print(stderr, "strobe-cli convert: submitted Slurm array job {} ({} rank{}, {} per task)\n", jobId,
               todo.size(), todo.size() == 1 ? "" : "s", o.ranksPerTask);
    waitForArray(todo, o.cacheDir, jobId, spec->pollMs);
    for (size_t k = 0; k < todo.size(); ++k) {
        std::string job;
        auto st = readConvertStatus(o.cacheDir, todo[k].path, &job);
        if (st && job == jobId) {
            outcomes[todoAt[k]] = *st;
        } else {
            outcomes[todoAt[k]].status = ConvertStatus::Failed;
            outcomes[todoAt[k]].reason = fmt::format("array task {} of job {} ended without a status (see {})",
                                                     k / o.ranksPerTask, jobId, (jobDir / "slurm-*.out").string());
        }
    }
    return outcomes;
}

}  // namespace strobe::app
