// No script changes (issue 23): `strobe-cli collect --tool torch-profiler` profiles UNMODIFIED torch scripts (no
// strobe_torch import) with Debian's /usr/bin/python3 and python3-torch 1.13 (CPU, the legacy autograd trace):
// directly (the optimizer's steps drive the schedule), through a shell wrapper that execs Python (no optimizer: the
// time window), through /usr/bin/torchrun --nproc_per_node=2 (gloo on CPU: one trace per rank, each with steps), and
// cancelled with SIGTERM inside the active window (the partial trace is written and loads). Each test then reads the
// process table: nothing is left. The scripts are written by the tests; the expected steps are read from the traces
// with Qt's JSON (ProfilerStep#N events), independently of Strobe's loaders.
#include <signal.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "tests/have_torch.h"
#include "tests/leftover_processes.h"
#include "tests/test_paths.h"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct HookDir {
    fs::path path;
    HookDir() {
        char tmpl[] = "/tmp/strobe-hook-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~HookDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    fs::path write(const std::string& name, const std::string& text, bool executable = false) const {
        std::ofstream(path / name) << text;
        if (executable) fs::permissions(path / name, fs::perms::owner_all);
        return path / name;
    }
};

std::string hookRead(const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct HookRun {
    std::unique_ptr<strobe::collectors::ProcessTree> tree;
    fs::path out, err;
};

HookRun startHookCli(const HookDir& d, std::vector<std::string> args, const std::string& name = "cli") {
    strobe::collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH};
    ps.argv.insert(ps.argv.end(), args.begin(), args.end());
    HookRun r{nullptr, d.path / (name + ".out"), d.path / (name + ".err")};
    ps.stdoutPath = r.out.string();
    ps.stderrPath = r.err.string();
    auto t = strobe::collectors::ProcessTree::start(ps);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    if (t.ok()) r.tree = std::move(*t);
    return r;
}

int finishHookCli(HookRun& r) {
    if (!r.tree) return -1;
    const auto exit = r.tree->wait(300s);
    EXPECT_TRUE(exit.has_value());
    return exit ? (exit->signalled ? 128 + exit->signal : exit->status) : -1;
}

// The ProfilerStep#N numbers in a Chrome trace (legacy: a list; Kineto: {"traceEvents": [...]}).
std::set<int> profilerSteps(const fs::path& trace) {
    QFile f(QString::fromStdString(trace.string()));
    std::set<int> steps;
    if (!f.open(QIODevice::ReadOnly)) return steps;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    const QJsonArray events = doc.isArray() ? doc.array() : doc.object()["traceEvents"].toArray();
    for (const auto& v : events) {
        const QString name = v.toObject()["name"].toString();
        if (name.startsWith("ProfilerStep#")) steps.insert(name.mid(13).toInt());
    }
    return steps;
}

std::string manifestMessages(const fs::path& run) {
    const YAML::Node m = YAML::LoadFile((run / "manifest.yaml").string());
    std::string all;
    for (const auto& x : m["messages"]) all += x.as<std::string>() + "\n";
    return all;
}

// A training loop that knows nothing of Strobe: 8 SGD steps.
constexpr const char* kTrainScript = R"(import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for i in range(8):
    loss = torch.nn.functional.cross_entropy(model(torch.randn(16, 64)), torch.randint(0, 4, (16,)))
    loss.backward()
    opt.step()
    opt.zero_grad()
print('trained')
)";

TEST(CollectTorchHook, AnUnmodifiedTrainingScriptIsProfiledByItsOptimizerSteps) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    HookDir d;
    const fs::path script = d.write("train.py", kTrainScript);
    HookRun r = startHookCli(d, {"collect", "--out", (d.path / "run").string(), "--tool", "torch-profiler", "--",
                                 "/usr/bin/python3", script.string()});
    ASSERT_EQ(finishHookCli(r), 0) << hookRead(r.err);
    // The workload's output streams through, with the hook's line for each step of the schedule (the progress the
    // Profiling runs dock shows): the first optimizer step starts the profile, the next five are wait, warm-up and
    // the three active ones; steps 7 and 8 are past the schedule and say nothing.
    EXPECT_EQ(hookRead(r.out),
              "strobe_torch: rank 0 step 1/5 (wait)\nstrobe_torch: rank 0 step 2/5 (warm-up)\n"
              "strobe_torch: rank 0 step 3/5 (active)\nstrobe_torch: rank 0 step 4/5 (active)\n"
              "strobe_torch: rank 0 step 5/5 (active)\ntrained\n");
    const fs::path trace = d.path / "run" / "torch" / "rank0_trace.json";
    ASSERT_TRUE(fs::exists(trace)) << hookRead(r.err);
    // wait 1, warm-up 1, active 3: three recorded steps.
    EXPECT_EQ(profilerSteps(trace).size(), 3u);
    EXPECT_NE(manifestMessages(d.path / "run").find("torch-profiler: rank0_trace.json (rank 0, pid "), std::string::npos);
    EXPECT_NE(manifestMessages(d.path / "run").find("optimizer steps (SGD), schedule wait 1, warm-up 1, active 3"),
              std::string::npos)
        << manifestMessages(d.path / "run");
    EXPECT_EQ(YAML::LoadFile((d.path / "run" / "manifest.yaml").string())["status"].as<std::string>(), "completed");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// --steps A-B (Nsight users' capture range, in the trace's own step numbers): the trace holds ProfilerStep#A..#B
// and nothing else; the manifest says the schedule it became. A malformed range, or one without the torch profiler,
// is refused before anything starts (exit 2).
TEST(CollectTorchHook, AStepRangeRecordsExactlyThoseProfilerSteps) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    HookDir d;
    const fs::path script = d.write("train.py", kTrainScript);
    HookRun r = startHookCli(d, {"collect", "--out", (d.path / "run").string(), "--tool", "torch-profiler", "--steps",
                                 "3-5", "--", "/usr/bin/python3", script.string()});
    ASSERT_EQ(finishHookCli(r), 0) << hookRead(r.err);
    const fs::path trace = d.path / "run" / "torch" / "rank0_trace.json";
    ASSERT_TRUE(fs::exists(trace)) << hookRead(r.err);
    EXPECT_EQ(profilerSteps(trace), (std::set<int>{3, 4, 5}));
    EXPECT_NE(manifestMessages(d.path / "run").find("schedule wait 3, warm-up 1, active 3 (--steps 3-5)"), std::string::npos)
        << manifestMessages(d.path / "run");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");

    HookRun bad = startHookCli(d, {"collect", "--out", (d.path / "bad").string(), "--tool", "torch-profiler", "--steps",
                                   "5-3", "--", "/usr/bin/python3", script.string()},
                               "bad");
    EXPECT_EQ(finishHookCli(bad), 2);
    EXPECT_NE(hookRead(bad.err).find("--steps '5-3': write A-B"), std::string::npos) << hookRead(bad.err);
    EXPECT_FALSE(fs::exists(d.path / "bad"));
    HookRun alone =
        startHookCli(d, {"collect", "--out", (d.path / "alone").string(), "--steps", "1-2", "--", "true"}, "alone");
    EXPECT_EQ(finishHookCli(alone), 2);
    EXPECT_NE(hookRead(alone.err).find("--steps needs --tool torch-profiler"), std::string::npos) << hookRead(alone.err);
}

// A shell wrapper that execs Python (the interpreter is found in it: the probe runs /usr/bin/python3); the script
// has no optimizer, so the time window (--duration 0.5 s) captures it, and the manifest says so.
TEST(CollectTorchHook, AWrapperScriptThatExecsPythonIsProfiledByTheTimeWindow) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    HookDir d;
    const fs::path script = d.write("infer.py", R"(import time, torch
m = torch.nn.Linear(128, 128)
t0 = time.time()
with torch.no_grad():
    while time.time() - t0 < 1.5:
        m(torch.randn(8, 128))
print('inferred')
)");
    const fs::path wrapper =
        d.write("run.sh", "#!/bin/sh\necho wrapper\nexec /usr/bin/python3 \"$@\"\n", true);
    HookRun r = startHookCli(d, {"collect", "--out", (d.path / "run").string(), "--tool", "torch-profiler", "--duration",
                                 "0.5", "--", wrapper.string(), script.string()});
    ASSERT_EQ(finishHookCli(r), 0) << hookRead(r.err);
    EXPECT_EQ(hookRead(r.out), "wrapper\ninferred\n");
    const fs::path trace = d.path / "run" / "torch" / "rank0_trace.json";
    ASSERT_TRUE(fs::exists(trace)) << hookRead(r.err);
    EXPECT_GT(fs::file_size(trace), 1000u);
    const std::string messages = manifestMessages(d.path / "run");
    EXPECT_NE(messages.find("time window (no optimizer step): from 0 s after torch was imported, for 0.5 s"),
              std::string::npos)
        << messages;
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// SIGTERM to strobe-cli while the profiler records (active 1000 steps, the script prints each step): the run is
// cancelled, and the trace recorded so far was written by the workload on its SIGTERM and loads (strobe-cli summary).
TEST(CollectTorchHook, SigtermInsideTheActiveWindowLeavesAPartialTraceThatLoads) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    HookDir d;
    const fs::path script = d.write("slow.py", R"(import time, torch
model = torch.nn.Linear(32, 32)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for i in range(100000):
    model(torch.randn(4, 32)).sum().backward()
    opt.step()
    opt.zero_grad()
    print('step', i, flush=True)
    time.sleep(0.05)
)");
    const fs::path run = d.path / "run";
    // A loaded machine may take seconds to write the trace: the grace period before SIGKILL is long.
    HookRun r = startHookCli(d, {"collect", "--out", run.string(), "--grace-ms", "60000", "--tool", "torch-profiler",
                                 "--tool-param", "torch-profiler.active=1000", "--", "/usr/bin/python3",
                                 script.string()});
    ASSERT_TRUE(r.tree);
    bool inWindow = false;  // step 6: the profiler has waited 1, warmed up 1 and records
    for (int i = 0; i < 3000 && !inWindow; ++i) {
        inWindow = hookRead(run / "workload.log").find("step 6\n") != std::string::npos;
        if (!inWindow) std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(inWindow) << hookRead(r.err);
    ASSERT_EQ(::kill(r.tree->pid(), SIGTERM), 0);
    EXPECT_EQ(finishHookCli(r), 143) << hookRead(r.err);
    EXPECT_EQ(YAML::LoadFile((run / "manifest.yaml").string())["status"].as<std::string>(), "cancelled");
    const fs::path trace = run / "torch" / "rank0_trace.json";
    ASSERT_TRUE(fs::exists(trace)) << hookRead(r.err) << hookRead(run / "workload.log");
    EXPECT_GE(profilerSteps(trace).size(), 3u) << hookRead(run / "workload.log");
    HookRun summary = startHookCli(d, {"summary", run.string()}, "summary");
    EXPECT_EQ(finishHookCli(summary), 0) << hookRead(summary.err);
    EXPECT_NE(hookRead(summary.out).find("torch/rank0_trace.json [kineto]"), std::string::npos) << hookRead(summary.out);
    EXPECT_NE(hookRead(summary.out).find("Steps           #"), std::string::npos) << hookRead(summary.out);
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// torchrun (torch 1.13's, which on Python 3.11 fails in to_map(redirects) without the hook's fix): two ranks on
// gloo/CPU under DistributedDataParallel, one trace per rank with its steps; the agent itself writes none.
TEST(CollectTorchHook, TorchrunWithTwoRanksWritesOneTracePerRankEachWithSteps) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    if (!fs::exists("/usr/bin/torchrun")) GTEST_SKIP() << "/usr/bin/torchrun is not installed";
    HookDir d;
    const fs::path script = d.write("ddp.py", R"(import torch, torch.distributed as dist
dist.init_process_group('gloo')
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 32))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for i in range(7):
    model(torch.randn(4, 32)).sum().backward()
    opt.step()
    opt.zero_grad()
# One string, one write: collect sets PYTHONUNBUFFERED, so print('rank', r, 'done') wrote its pieces one by one and
# the two ranks' pieces could interleave in workload.log (both lines were missing once, under ASan and load).
print(f'rank {dist.get_rank()} done', flush=True)
dist.destroy_process_group()
)");
    const fs::path run = d.path / "run";
    HookRun r = startHookCli(d, {"collect", "--out", run.string(), "--tool", "torch-profiler", "--",
                                 "/usr/bin/torchrun", "--standalone", "--nproc_per_node=2", script.string()});  // a free port
    ASSERT_EQ(finishHookCli(r), 0) << hookRead(r.err) << hookRead(run / "workload.log");
    for (int rank : {0, 1}) {
        const fs::path trace = run / "torch" / ("rank" + std::to_string(rank) + "_trace.json");
        ASSERT_TRUE(fs::exists(trace)) << hookRead(r.err);
        EXPECT_EQ(profilerSteps(trace).size(), 3u) << rank;
        EXPECT_NE(hookRead(run / "workload.log").find("rank " + std::to_string(rank) + " done"), std::string::npos);
    }
    size_t traces = 0;
    for (const auto& e : fs::directory_iterator(run / "torch")) traces += e.path().filename().string().ends_with("_trace.json");
    EXPECT_EQ(traces, 2u);
    const std::string messages = manifestMessages(run);
    EXPECT_NE(messages.find("rank1_trace.json (rank 1, pid "), std::string::npos) << messages;
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// strobe_torch outside Strobe (no STROBE_TORCH_DIR): explicit profile() and the hook are no-ops, nothing written.
TEST(CollectTorchHook, StrobeTorchIsANoOpOutsideStrobe) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    HookDir d;
    const fs::path script = d.write("explicit.py", R"(import os, strobe_torch
strobe_torch.install_hook()
with strobe_torch.profile() as p:
    p.step()
print('enabled', strobe_torch.enabled(), sorted(os.listdir('.')))
)");
    const std::string python = std::string(STROBE_RESOURCE_DIR) + "/python";
    const std::string cmd = "cd '" + d.path.string() + "' && env -u STROBE_TORCH_DIR PYTHONPATH='" + python + "/hook:" +
                            python + "' /usr/bin/python3 explicit.py > out.txt 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << hookRead(d.path / "out.txt");
    EXPECT_EQ(hookRead(d.path / "out.txt"), "enabled False ['explicit.py', 'out.txt']\n");
}

}  // namespace
