// strobe-cli collect --slurm and sweep launch --slurm on a real one-node Slurm cluster (issue 10, "Past one
// machine"). The test environment starts the cluster with tests/slurm/start_cluster.sh in a state directory of its
// own (free ports, own munge key and socket) once per test process, when the first test needs it, points SLURM_CONF
// at it, and stops it at the end with stop_cluster.sh, reaping the daemons (this process is their child subreaper)
// and checking that none is left.
// Without the Slurm packages (or root) the cluster tests skip on a developer's machine; under CI=true they fail with
// the script's error instead. ctest runs them one at a time (RESOURCE_LOCK slurm).
//
// Expected values come from Slurm itself, not from Strobe: the job id the workload printed from its own
// SLURM_JOB_ID, and `scontrol show job` (no slurmdbd here, so no sacct).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "collectors/slurm.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

extern char** environ;

namespace {

bool ci() {
    const char* v = std::getenv("CI");
    return v && std::string(v) == "true";
}

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs argv with stdin from /dev/null and stdout+stderr into `log`, as a direct child (posix_spawn, not a
// ProcessTree: what the cluster scripts start must outlive them, and a ProcessTree stops its leftovers), and waits.
int spawnAndWait(const std::vector<std::string>& argv, const fs::path& log) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return 127;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A process that exists and is not a zombie.
bool running(pid_t pid) {
    const std::string stat = readAll(fs::path("/proc") / std::to_string(pid) / "stat");
    const size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

// Live processes whose command line or environment holds `needle`.
std::vector<std::string> processesHolding(const std::string& needle) {
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const pid_t pid = std::stoi(name);
        if (pid == getpid() || !running(pid)) continue;
        std::string cmd = readAll(e.path() / "cmdline");
        const std::string env = readAll(e.path() / "environ");
        if (cmd.find(needle) != std::string::npos || env.find(needle) != std::string::npos) {
            std::replace(cmd.begin(), cmd.end(), '\0', ' ');
            found.push_back(name + ": " + cmd);
        }
    }
    return found;
}

struct Cluster {
    bool tried = false;
    fs::path root;      // this test process' temporary directory
    fs::path state;     // the cluster's STATE_DIR
    std::string error;  // why it did not start
    bool up = false;
};
Cluster g_cluster;

// Starts the cluster the first time a test needs it (once per test process).
void ensureCluster() {
    if (g_cluster.tried) return;
    g_cluster.tried = true;
    // The daemons detach from the script; as a child subreaper this process inherits them, and reaps them.
    collectors::becomeChildSubreaper();
    char tmpl[] = "/tmp/strobe-slurm-test-XXXXXX";
    if (!mkdtemp(tmpl)) {
        g_cluster.error = "cannot create a temporary directory";
        return;
    }
    g_cluster.root = tmpl;
    fs::permissions(g_cluster.root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                        fs::perms::others_read | fs::perms::others_exec);  // munged wants a+x
    g_cluster.state = g_cluster.root / "cluster";
    const fs::path log = g_cluster.root / "start.log";
    const int rc = spawnAndWait(
        {"/bin/bash", (std::string(STROBE_SLURM_SCRIPTS) + "/start_cluster.sh"), g_cluster.state.string()}, log);
    const std::string out = readAll(log);
    std::smatch m;
    if (rc == 0 && std::regex_search(out, m, std::regex("SLURM_CONF=(\\S+)"))) {
        setenv("SLURM_CONF", m[1].str().c_str(), 1);
        g_cluster.up = true;
    } else {
        g_cluster.error = "tests/slurm/start_cluster.sh exited " + std::to_string(rc) + ":\n" + out;
    }
}

// Stops the cluster at the end of the test process, and checks that nothing of it is left.
class SlurmClusterEnvironment : public testing::Environment {
public:
    void TearDown() override {
        if (g_cluster.root.empty()) return;
        std::map<std::string, pid_t> daemons;
        for (const char* d : {"slurmd", "slurmctld", "munged"}) {
            const std::string pid = readAll(g_cluster.state / "run" / (std::string(d) + ".pid"));
            if (!pid.empty()) daemons[d] = std::stoi(pid);
        }
        const fs::path log = g_cluster.root / "stop.log";
        const int rc = spawnAndWait(
            {"/bin/bash", (std::string(STROBE_SLURM_SCRIPTS) + "/stop_cluster.sh"), g_cluster.state.string()}, log);
        EXPECT_EQ(rc, 0) << readAll(log);
        // Reap what this process inherited (the daemons, finished job steps), polling with a deadline.
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        for (;;) {
            int status = 0;
            while (waitpid(-1, &status, WNOHANG) > 0) {
            }
            bool left = false;
            for (const auto& [name, pid] : daemons) left = left || running(pid);
            if (!left || std::chrono::steady_clock::now() > deadline) break;
            std::this_thread::sleep_for(50ms);
        }
        for (const auto& [name, pid] : daemons) EXPECT_FALSE(running(pid)) << name << " (pid " << pid << ") is still running";
        // Nothing that names the cluster's directory (its slurm.conf, munge socket) is left.
        const auto left = processesHolding(g_cluster.state.string());
        EXPECT_TRUE(left.empty()) << left.front();
        std::error_code ec;
        fs::remove_all(g_cluster.root, ec);
    }
};
testing::Environment* const g_env = testing::AddGlobalTestEnvironment(new SlurmClusterEnvironment);

#define REQUIRE_CLUSTER()                                                                                              \
    do {                                                                                                               \
        ensureCluster();                                                                                               \
        if (!g_cluster.up) {                                                                                           \
            if (ci()) FAIL() << "CI=true but the Slurm cluster did not start: " << g_cluster.error;                  \
            GTEST_SKIP() << "no Slurm cluster (.ci/setup installs slurmctld slurmd munge slurm-client): "             \
                         << g_cluster.error;                                                                           \
        }                                                                                                              \
    } while (0)

struct Run {
    fs::path dir;
    std::unique_ptr<collectors::ProcessTree> tree;
    ~Run() {
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
};

std::unique_ptr<Run> startCli(std::vector<std::string> args, const std::map<std::string, std::string>& env = {}) {
    auto r = std::make_unique<Run>();
    char tmpl[] = "/tmp/strobe-slurm-run-XXXXXX";
    r->dir = mkdtemp(tmpl);
    for (auto& a : args) {
        const size_t at = a.find("@DIR@");
        if (at != std::string::npos) a.replace(at, 5, r->dir.string());
    }
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH};
    ps.argv.insert(ps.argv.end(), args.begin(), args.end());
    ps.env = env;
    ps.workDir = r->dir.string();
    ps.stdoutPath = ps.stderrPath = (r->dir / "cli.log").string();
    auto t = collectors::ProcessTree::start(ps);
    EXPECT_TRUE(t.ok());
    if (t.ok()) r->tree = std::move(*t);
    return r;
}

// `scontrol show job --oneline ID`: what Slurm itself knows of the job.
std::string scontrolJob(const std::string& id) {
    collectors::ProcessSpec ps;
    ps.argv = {"scontrol", "show", "job", "--oneline", id};
    auto r = collectors::runCaptured(ps, 30s);
    return r && r->exit ? r->out + r->err : "";
}

int lines(const fs::path& p) {
    std::ifstream in(p);
    int n = 0;
    for (std::string l; std::getline(in, l);) n += !l.empty();
    return n;
}

std::string token() {
    std::random_device rd;
    return "strobe-slurm-test-" + std::to_string(rd()) + std::to_string(getpid());
}

}  // namespace

// The whole session (tools included) runs inside the job: the workload prints the job id from its own environment,
// and it is the one the manifest records and scontrol knows.
TEST(SlurmCollect, RunsTheWholeSessionAsAJobAndRecordsItsId) {
    REQUIRE_CLUSTER();
    auto run = startCli({"collect", "--slurm", "--out", "@DIR@/run", "--tool", "cpu-sampler", "--grace-ms", "2000", "--",
                         "/bin/sh", "-c", "echo hi from job $SLURM_JOB_ID rank $RANK of $WORLD_SIZE; sleep 1"});
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(180s);
    ASSERT_TRUE(exit.has_value()) << readAll(run->dir / "cli.log");
    EXPECT_EQ(exit->status, 0) << readAll(run->dir / "cli.log");
    const fs::path dir = run->dir / "run";
    const YAML::Node m = YAML::LoadFile((dir / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    EXPECT_EQ(m["exit"]["code"].as<int>(), 0);
    ASSERT_TRUE(m["slurm_job"].IsScalar()) << readAll(dir / "manifest.yaml");
    const std::string job = m["slurm_job"].as<std::string>();
    ASSERT_TRUE(std::regex_match(job, std::regex("[0-9]+"))) << job;
    EXPECT_EQ(readAll(dir / "workload.log"), "hi from job " + job + " rank 0 of 1\n");
    const std::string known = scontrolJob(job);
    EXPECT_NE(known.find("JobId=" + job + " "), std::string::npos) << known;
    EXPECT_NE(known.find("JobName=strobe-run "), std::string::npos) << known;
    EXPECT_NE(known.find("JobState=COMPLETED"), std::string::npos) << known;
    // The sampler ran inside the job too: a header and at least two samples at 10 Hz over the second's sleep.
    EXPECT_GE(lines(dir / "cpu.csv"), 3) << readAll(dir / "cpu.csv");
    bool listed = false;
    for (const auto& f : m["files"])
        listed = listed || (f["path"].as<std::string>() == "cpu.csv" && f["tool"].as<std::string>() == "cpu-sampler");
    EXPECT_TRUE(listed);
    EXPECT_EQ(m["tools"][0]["name"].as<std::string>(), "cpu-sampler");
    EXPECT_FALSE(m["tools"][0]["version"].as<std::string>().empty());  // probed inside the job
    EXPECT_NE(readAll(dir / "slurm-job.sh").find("srun"), std::string::npos);
    EXPECT_TRUE(fs::exists(dir / ("slurm-" + job + ".out")));
    EXPECT_NE(readAll(run->dir / "cli.log").find("submitted Slurm job " + job), std::string::npos);
}

// SIGTERM to strobe-cli while the job's workload sleeps: scancel, the session inside stops and says cancelled, the
// job ends CANCELLED, strobe-cli exits 143, and no process of the run is left on the machine.
TEST(SlurmCollect, SigtermCancelsTheJobAndLeavesNoProcess) {
    REQUIRE_CLUSTER();
    const std::string mark = token();
    auto run = startCli({"collect", "--slurm", "--out", "@DIR@/run", "--tool", "cpu-sampler", "--grace-ms", "2000", "--",
                         "/bin/sh", "-c", "echo started; sleep 300"},
                        {{"STROBE_SLURM_TEST_MARK", mark}});
    ASSERT_TRUE(run->tree);
    const fs::path dir = run->dir / "run";
    // Wait until the workload runs inside the job (it printed "started") and the sampler has written a sample.
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while ((readAll(dir / "workload.log").find("started") == std::string::npos || lines(dir / "cpu.csv") < 2) &&
           std::chrono::steady_clock::now() < deadline && run->tree->poll())
        std::this_thread::sleep_for(50ms);
    ASSERT_NE(readAll(dir / "workload.log").find("started"), std::string::npos) << readAll(run->dir / "cli.log");
    const std::string job = YAML::LoadFile((dir / "manifest.yaml").string())["slurm_job"].as<std::string>();
    // The workload inside the job carries the mark (sbatch exports the environment): the check below can fail.
    const auto before = processesHolding(mark);
    EXPECT_TRUE(std::any_of(before.begin(), before.end(),
                            [](const std::string& p) { return p.find("sleep 300") != std::string::npos; }));
    ::kill(run->tree->pid(), SIGTERM);
    const auto exit = run->tree->wait(180s);
    ASSERT_TRUE(exit.has_value()) << readAll(run->dir / "cli.log");
    EXPECT_EQ(exit->status, 143) << readAll(run->dir / "cli.log");
    const YAML::Node m = YAML::LoadFile((dir / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "cancelled");
    EXPECT_EQ(m["slurm_job"].as<std::string>(), job);
    EXPECT_FALSE(m["end"].IsNull());
    EXPECT_GE(lines(dir / "cpu.csv"), 2);  // what was sampled is kept
    const std::string known = scontrolJob(job);
    EXPECT_NE(known.find("JobState=CANCELLED"), std::string::npos) << known;
    EXPECT_NE(readAll(run->dir / "cli.log").find("scancel " + job), std::string::npos);
    const auto left = processesHolding(mark);
    EXPECT_TRUE(left.empty()) << left.size() << " left, e.g. " << left.front();
}

// A sweep under Slurm: one job per run, each run's manifest with its own job id, the axis value in the job's
// workload (environment and {X} in the command).
TEST(SlurmSweep, EachRunIsAJobOfItsOwn) {
    REQUIRE_CLUSTER();
    auto run = startCli({"sweep", "launch", "--slurm", "--grid", "X=1,2", "--out", "@DIR@/sweep", "--grace-ms", "2000",
                         "--", "/bin/sh", "-c", "echo X={X} env $X job $SLURM_JOB_ID"});
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(300s);
    ASSERT_TRUE(exit.has_value()) << readAll(run->dir / "cli.log");
    EXPECT_EQ(exit->status, 0) << readAll(run->dir / "cli.log");
    std::set<std::string> jobs;
    for (const std::string x : {"1", "2"}) {
        const fs::path dir = run->dir / "sweep" / ("X=" + x) / "rep0";
        const YAML::Node m = YAML::LoadFile((dir / "manifest.yaml").string());
        EXPECT_EQ(m["status"].as<std::string>(), "completed");
        EXPECT_EQ(m["parameters"]["X"].as<std::string>(), x);
        const std::string job = m["slurm_job"].as<std::string>();
        ASSERT_TRUE(std::regex_match(job, std::regex("[0-9]+"))) << job;
        jobs.insert(job);
        EXPECT_EQ(readAll(dir / "workload.log"), "X=" + x + " env " + x + " job " + job + "\n");
        const std::string known = scontrolJob(job);
        EXPECT_NE(known.find("JobName=strobe-X=" + x + "_rep0 "), std::string::npos) << known;
        EXPECT_NE(known.find("JobState=COMPLETED"), std::string::npos) << known;
    }
    EXPECT_EQ(jobs.size(), 2u);
}

// --ntasks=2: one session per task, each in rank<N>/ with RANK set from SLURM_PROCID; the top manifest is the
// job's, ended by its state.
TEST(SlurmCollect, SeveralTasksGetARunDirectoryPerRank) {
    REQUIRE_CLUSTER();
    auto run = startCli({"collect", "--slurm", "--slurm-arg", "--ntasks=2", "--out", "@DIR@/run", "--grace-ms", "2000",
                         "--", "/bin/sh", "-c", "echo rank $RANK local $LOCAL_RANK of $WORLD_SIZE"});
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(180s);
    ASSERT_TRUE(exit.has_value()) << readAll(run->dir / "cli.log");
    EXPECT_EQ(exit->status, 0) << readAll(run->dir / "cli.log");
    const fs::path dir = run->dir / "run";
    const YAML::Node top = YAML::LoadFile((dir / "manifest.yaml").string());
    EXPECT_EQ(top["status"].as<std::string>(), "completed");
    const std::string job = top["slurm_job"].as<std::string>();
    for (const std::string r : {"0", "1"}) {
        const YAML::Node m = YAML::LoadFile((dir / ("rank" + r) / "manifest.yaml").string());
        EXPECT_EQ(m["status"].as<std::string>(), "completed");
        EXPECT_EQ(m["slurm_job"].as<std::string>(), job);
        EXPECT_EQ(readAll(dir / ("rank" + r) / "workload.log"), "rank " + r + " local " + r + " of 2\n");
    }
    EXPECT_NE(scontrolJob(job).find("NumTasks=2"), std::string::npos) << scontrolJob(job);
}

// No sbatch on PATH: refused before anything starts, and no directory written. Needs no cluster.
TEST(SlurmCollect, RefusedWhenSbatchIsNotFound) {
    char tmpl[] = "/tmp/strobe-slurm-nopath-XXXXXX";
    const fs::path empty = mkdtemp(tmpl);
    auto run = startCli({"collect", "--slurm", "--out", "@DIR@/run", "--", "/bin/true"}, {{"PATH", empty.string()}});
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(60s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 125);
    EXPECT_NE(readAll(run->dir / "cli.log").find("refused: sbatch: command not found"), std::string::npos)
        << readAll(run->dir / "cli.log");
    EXPECT_FALSE(fs::exists(run->dir / "run"));
    std::error_code ec;
    fs::remove_all(empty, ec);
}

// The batch script's quoting, checked by /bin/sh itself: each argument comes back as written.
TEST(SlurmScript, ShellQuotingRoundTripsThroughSh) {
    const std::vector<std::string> args{"plain", "it's", "a b", "$HOME", "\"q\"", "back\\slash", "", "semi;colon", "*"};
    collectors::ProcessSpec ps;
    ps.argv = {"/bin/sh", "-c", "for a in " + [&] {
        std::string s;
        for (const auto& a : args) s += collectors::shellQuote(a) + " ";
        return s;
    }() + "; do printf '[%s]' \"$a\"; done"};
    auto r = collectors::runCaptured(ps, 30s);
    ASSERT_TRUE(r && r->exit);
    std::string want;
    for (const auto& a : args) want += "[" + a + "]";
    EXPECT_EQ(r->out, want);
}

// The shipped spec reads, and reads back a state line as scontrol 22.05 printed it on this cluster (copied from
// `scontrol show job --oneline 2` after `scancel 2`, trimmed).
TEST(SlurmScript, ShippedSpecParsesScontrolOutput) {
    auto spec = collectors::parseSlurmSpec(readAll((std::string(STROBE_RESOURCE_DIR) + "/slurm.yaml")), "slurm.yaml");
    ASSERT_TRUE(spec.ok()) << spec.error().toString();
    const auto st = collectors::parseJobState(
        *spec, "JobId=2 JobName=k.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901758 Nice=0 "
               "Account=(null) QOS=(null) JobState=CANCELLED Reason=None Dependency=(null) Requeue=1 Restarts=0 "
               "BatchFlag=1 Reboot=0 ExitCode=143:0 RunTime=00:00:02\n");
    EXPECT_EQ(st.state, "CANCELLED");
    EXPECT_TRUE(st.ended);
    EXPECT_EQ(st.exitCode, 143);
    EXPECT_EQ(st.exitSignal, 0);
    EXPECT_FALSE(collectors::parseJobState(*spec, "JobId=3 JobState=COMPLETING ExitCode=0:0").ended);
    EXPECT_EQ(collectors::parseJobId(*spec, "1234\n"), "1234");
    EXPECT_EQ(collectors::parseJobId(*spec, "1234;cluster\n"), "1234");
    // A spec whose launch does not run the session is refused, naming the file and line.
    auto bad = collectors::parseSlurmSpec("submit: [sbatch]\njob_id_regex: '([0-9]+)'\nlaunch: [srun, hostname]\n"
                                          "state: [scontrol]\nstate_regex: 'S=(\\w+)'\nexit_regex: 'E=(\\d+)'\n"
                                          "ended_states: [COMPLETED]\ncancel: [scancel]\n",
                                          "mine.yaml");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().toString().find("mine.yaml: line 3:"), std::string::npos) << bad.error().toString();
}

// strobe-cli convert --slurm (issue 29): one array job, two ranks per task; a rank that cannot be loaded (not a
// trace at all) is reported with its rank and reason (exit 1) from the status file its task wrote; once the file is fixed,
// the same command converts it and skips the ranks done before (exit 0).
TEST(SlurmConvert, ArrayJobReportsAFailedRankAndResumesSkippingDoneRanks) {
    REQUIRE_CLUSTER();
    char tmpl[] = "/tmp/strobe-slurm-convert-XXXXXX";
    const fs::path traces = mkdtemp(tmpl);
    const std::string sample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank/";
    fs::copy_file(sample + "worker0_step_12.1694128201545.pt.trace.json", traces / "rank0.json");
    fs::copy_file(sample + "worker1_step_12.1694128201556.pt.trace.json", traces / "rank1.json");
    fs::copy_file(sample + "worker3_step_12.1694128201557.pt.trace.json", traces / "rank3.json");
    { std::ofstream(traces / "rank2.json") << "this is not a trace"; }
    const std::vector<std::string> args{"convert", "--slurm", "--ranks-per-task", "2", "--cache-dir", "@DIR@/cache",
                                        "--json", traces.string()};
    auto first = startCli(args);
    ASSERT_TRUE(first->tree);
    auto exit = first->tree->wait(300s);
    ASSERT_TRUE(exit.has_value()) << readAll(first->dir / "cli.log");
    std::string log = readAll(first->dir / "cli.log");
    EXPECT_EQ(exit->status, 1) << log;
    const std::string failed = "{\"rank\": 2, \"path\": \"" + (traces / "rank2.json").string() + "\", \"status\": \"failed\"";
    EXPECT_NE(log.find(failed), std::string::npos) << log;
    EXPECT_NE(log.find("\"converted\": 3, \"skipped\": 0, \"failed\": 1"), std::string::npos) << log;
    EXPECT_TRUE(std::regex_search(log, std::regex("submitted Slurm array job [0-9]+ \\(4 ranks, 2 per task\\)"))) << log;
    EXPECT_NE(log.find("strobe-cli convert: rank 2: " + (traces / "rank2.json").string() + ": "), std::string::npos) << log;

    // Fixed, then the same command again in the same cache: only rank 2 is converted (by a one-task array).
    fs::copy_file(sample + "worker2_step_12.1694128201554.pt.trace.json", traces / "rank2.json",
                  fs::copy_options::overwrite_existing);
    std::vector<std::string> again = args;
    for (auto& a : again)
        if (a == "@DIR@/cache") a = (first->dir / "cache").string();
    auto second = startCli(again);
    ASSERT_TRUE(second->tree);
    exit = second->tree->wait(300s);
    ASSERT_TRUE(exit.has_value()) << readAll(second->dir / "cli.log");
    log = readAll(second->dir / "cli.log");
    EXPECT_EQ(exit->status, 0) << log;
    EXPECT_NE(log.find("\"converted\": 1, \"skipped\": 3, \"failed\": 0"), std::string::npos) << log;
    EXPECT_TRUE(std::regex_search(log, std::regex("submitted Slurm array job [0-9]+ \\(1 rank, 2 per task\\)"))) << log;
    std::error_code ec;
    fs::remove_all(traces, ec);
}

// convert --slurm without --ranks-per-task (issue 29): one task per CPU Slurm has idle for it, at least 8 ranks a
// task. The CPU figure is read here from `sinfo --format=%C` ("allocated/idle/other/total"), and the ranks per task
// worked out from it: 24 ranks over this cluster's CPUs (2 on the reference machine: 12 a task, two tasks).
TEST(SlurmConvert, DefaultRanksPerTaskSpreadTheRanksOverTheIdleCpus) {
    REQUIRE_CLUSTER();
    collectors::ProcessSpec q;
    q.argv = {"sinfo", "--noheader", "--format=%C"};
    const auto cpusOut = collectors::runCaptured(q, 30s);
    ASSERT_TRUE(cpusOut && cpusOut->exit && cpusOut->exit->status == 0);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(cpusOut->out, m, std::regex("^([0-9]+)/([0-9]+)/([0-9]+)/([0-9]+)"))) << cpusOut->out;
    const size_t cpus = std::stoul(m[2]) > 0 ? std::stoul(m[2]) : std::stoul(m[4]);
    const size_t ranks = 24, per = std::max<size_t>(8, (ranks + cpus - 1) / cpus);

    char tmpl[] = "/tmp/strobe-slurm-convert-XXXXXX";
    const fs::path traces = mkdtemp(tmpl);
    const std::string sample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank/";
    std::vector<fs::path> workers;
    for (const auto& e : fs::directory_iterator(sample))
        if (e.path().extension() == ".json") workers.push_back(e.path());
    ASSERT_EQ(workers.size(), 8u);
    for (size_t i = 0; i < ranks; ++i) fs::copy_file(workers[i % 8], traces / ("rank" + std::to_string(i) + ".json"));
    auto run = startCli({"convert", "--slurm", "--cache-dir", "@DIR@/cache", "--json", traces.string()});
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(300s);
    ASSERT_TRUE(exit.has_value()) << readAll(run->dir / "cli.log");
    const std::string log = readAll(run->dir / "cli.log");
    EXPECT_EQ(exit->status, 0) << log;
    EXPECT_NE(log.find("\"converted\": 24, \"skipped\": 0, \"failed\": 0"), std::string::npos) << log;
    EXPECT_NE(log.find(std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs") +
                       " for tasks in the default partition (sinfo); " + std::to_string(per) + " ranks per task"),
              std::string::npos)
        << log;
    EXPECT_TRUE(std::regex_search(
        log, std::regex("submitted Slurm array job [0-9]+ \\(24 ranks, " + std::to_string(per) + " per task\\)")))
        << log;
    std::error_code ec;
    fs::remove_all(traces, ec);
}
