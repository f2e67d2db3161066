// strobe-cli collect end to end, for real: the strobe-cli binary runs a small PyTorch training loop
// (tests/data/workloads/train_mlp.py on Debian's python3-torch 1.13, CPU, /usr/bin/python3) under the
// torch-profiler contract and the CPU sampler, and the run directory it leaves opens as a run: the legacy autograd
// trace with its steps, anchored to realtime by the helper's clock anchors, beside the CPU samples. Also: a
// crashing workload, and SIGTERM to strobe-cli itself (no process left, an honest manifest).
// Expected values are read from the files the run wrote (the anchor JSON, the trace JSON, the manifest) with Qt's
// JSON and yaml-cpp, independently of Strobe's loaders.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "core/engine/run_loader.h"
#include "core/model/clock_rules.h"
#include "core/analysis/summary.h"
#include "core/sweep/sweep_discovery.h"
#ifdef STROBE_HAVE_PLOTS
#include "plots/builtin/timeline_model.h"
#include "plots/plot_registry.h"
#endif
#include "tests/have_torch.h"
#include "tests/leftover_processes.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using test::haveTorch;

struct Collect {
    fs::path dir;
    std::unique_ptr<collectors::ProcessTree> tree;
    Collect() = default;
    Collect(Collect&&) = default;
    ~Collect() {
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
};

Collect startCollect(const std::string& tag, const std::map<std::string, std::string>& env) {
    char tmpl[] = "/tmp/strobe-collect-XXXXXX";
    Collect c;
    c.dir = mkdtemp(tmpl);
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "collect", "--out", (c.dir / "run").string(), "--tool", "torch-profiler", "--tool",
               "cpu-sampler", "--param", "bs=64", "--param", "tag=" + tag, "--grace-ms", "2000", "--",
               "/usr/bin/python3", std::string(STROBE_TEST_DATA_DIR) + "/workloads/train_mlp.py"};
    ps.env = env;
    ps.stdoutPath = ps.stderrPath = (c.dir / "collect.log").string();
    auto t = collectors::ProcessTree::start(ps);
    EXPECT_TRUE(t.ok());
    if (t.ok()) c.tree = std::move(*t);
    return c;
}

QJsonDocument readJson(const fs::path& p) {
    QFile f(QString::fromStdString(p.string()));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << p;
    return QJsonDocument::fromJson(f.readAll());
}

std::string readAll(const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The sampler's CSV read directly: each metric column (after t_realtime_ns, t_monotonic_ns, t_boottime_ns) → the
// number of rows with a number in it.
std::map<std::string, size_t> samplerColumns(const fs::path& csv) {
    std::ifstream in(csv);
    std::string line;
    std::vector<std::string> names;
    std::map<std::string, size_t> numbers;
    auto split = [](const std::string& l) {
        std::vector<std::string> out(1);
        for (char ch : l) {
            if (ch == ',') out.emplace_back();
            else out.back().push_back(ch);
        }
        return out;
    };
    if (std::getline(in, line)) names = split(line);
    while (std::getline(in, line)) {
        const auto cells = split(line);
        for (size_t k = 3; k < names.size() && k < cells.size(); ++k) {
            char* end = nullptr;
            std::strtod(cells[k].c_str(), &end);
            numbers[names[k]] += !cells[k].empty() && end && *end == '\0';
        }
    }
    for (size_t k = 3; k < names.size(); ++k) numbers.try_emplace(names[k], 0);
    return numbers;
}

// The GPU timeline of the collected run offers the sampler's metrics (the CSV's columns) and shows every one by
// default: one lane per metric under the run's rank, in the host's group, each with every sample of its column.
void expectSamplerLanesInTheTimeline(const core::DatasetPtr& ds, const fs::path& csv) {
#ifdef STROBE_HAVE_PLOTS
    const auto columns = samplerColumns(csv);
    ASSERT_GE(columns.size(), 3u);  // cpu.util_pct, cpu<N>.util_pct..., mem_used_mib, mem_total_mib
    const plots::Plot* timeline = plots::PlotRegistry::instance().find("gpu-timeline");
    ASSERT_NE(timeline, nullptr);
    core::RunEntry entry;
    entry.label = "run";
    entry.dataset = ds;
    const plots::RunSet runs{entry};
    const auto specs = timeline->parameters(runs);
    const core::ParamSpec* telemetry = core::findSpec(specs, "telemetry");
    ASSERT_NE(telemetry, nullptr);
    std::set<std::string> offered(telemetry->choices.begin(), telemetry->choices.end());
    std::set<std::string> shown;
    for (const auto& m : std::get<std::vector<std::string>>(telemetry->defaultValue)) shown.insert(m);
    std::set<std::string> expected;
    for (const auto& [name, n] : columns) expected.insert(name);
    EXPECT_EQ(offered, expected);
    EXPECT_EQ(shown, expected);  // every sampler metric is host-wide: shown by default
    auto values = core::resolveValues(specs, {});
    ASSERT_TRUE(values.ok()) << values.error().toString();
    auto prepared = timeline->prepare(runs, *values, {}, {});
    ASSERT_TRUE(prepared.ok()) << prepared.error().toString();
    const auto& p = dynamic_cast<const plots::timeline::TimelinePrepared&>(**prepared);
    std::map<std::string, size_t> lanes;  // metric → samples drawn
    for (const auto& l : p.lanes)
        if (l.kind == plots::timeline::LaneKind::Telemetry) {
            EXPECT_EQ(l.group, "host") << l.label;
            EXPECT_EQ(l.rankNumber, -1) << l.label;
            lanes[l.metric] += l.value.size();
        }
    std::map<std::string, size_t> withSamples;
    for (const auto& [name, n] : columns)
        if (n > 0) withSamples[name] = n;
    EXPECT_EQ(lanes, withSamples);
#else
    (void)ds, (void)csv;
#endif
}

TEST(CollectCli, TorchTrainingUnderTheContractAndTheCpuSamplerOpensAsARun) {
    if (!haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed (.ci/setup installs it)";
    Collect c = startCollect("ok", {});
    ASSERT_TRUE(c.tree);
    const auto exit = c.tree->wait(240s);
    ASSERT_TRUE(exit.has_value()) << readAll(c.dir / "collect.log");
    ASSERT_EQ(exit->status, 0) << readAll(c.dir / "collect.log");
    const fs::path run = c.dir / "run";

    const YAML::Node m = YAML::LoadFile((run / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    EXPECT_EQ(m["parameters"]["bs"].as<int>(), 64);
    EXPECT_EQ(m["tools"][0]["name"].as<std::string>(), "torch-profiler");
    EXPECT_TRUE(m["tools"][0]["version"].as<std::string>().starts_with("1.")) << m["tools"][0]["version"];
    const int64_t startNs = m["clocks"]["realtime_ns"].as<int64_t>();
    const int64_t endNs = startNs + 600'000'000'000LL;  // the run took less than 10 minutes

    // The helper's anchors and the trace's steps, read directly: ProfilerStep#k begins where the helper read the
    // clocks after the k-th prof.step().
    const QJsonObject anchor = readJson(run / "torch" / "rank0_clock_anchor.json").object();
    std::map<int64_t, int64_t> anchorNs;
    for (const auto& s : anchor["steps"].toArray()) anchorNs[s.toObject()["step"].toInteger()] = s.toObject()["realtime_ns"].toInteger();
    std::vector<int64_t> offsets;
    int steps = 0;
    for (const auto& e : readJson(run / "torch" / "rank0_trace.json").array()) {
        const QString name = e.toObject()["name"].toString();
        if (!name.startsWith("ProfilerStep#")) continue;
        ++steps;
        const int64_t k = name.mid(13).toLongLong();
        const int64_t tsNs = static_cast<int64_t>(e.toObject()["ts"].toDouble() * 1000.0 + 0.5);
        if (anchorNs.count(k)) offsets.push_back(anchorNs[k] - tsNs);
    }
    ASSERT_EQ(steps, 3);  // STROBE_TORCH_ACTIVE defaults to 3
    ASSERT_FALSE(offsets.empty());
    std::sort(offsets.begin(), offsets.end());
    const int64_t offset = offsets[offsets.size() / 2];

    core::RunLoadOptions o;
    o.useCache = false;
    auto ds = core::loadRun({run.string()}, o);
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    // One process ran the workload: one rank. The CPU sampler's samples are the host's telemetry, never a rank.
    ASSERT_EQ((*ds)->ranks.size(), 1u);
    EXPECT_EQ(core::summarizeRun(**ds).ranks.size(), 1u);
    ASSERT_EQ((*ds)->hosts.size(), 1u);
    ASSERT_EQ((*ds)->hosts[0].sources.size(), 1u);
    const core::RankData* trace = (*ds)->ranks[0].get();
    const core::RankData* cpu = (*ds)->hosts[0].sources[0].get();
    EXPECT_TRUE(trace->path.ends_with("rank0_trace.json")) << trace->path;
    EXPECT_TRUE(cpu->path.ends_with("cpu.csv")) << cpu->path;
    EXPECT_EQ(cpu->rank, -1);
    EXPECT_EQ(trace->steps.size(), 3u);
    EXPECT_EQ(trace->gpu.size(), 0u);  // CPU only
    EXPECT_GT(trace->slices.size(), 100u);
    EXPECT_TRUE(trace->info.clock.anchored);
    EXPECT_EQ(trace->info.clock.toRealtimeNs, offset);
    const int64_t firstStep = core::overlayTime(*trace, trace->steps.start[0]);
    EXPECT_GT(firstStep, startNs);
    EXPECT_LT(firstStep, endNs);
    EXPECT_TRUE(core::checkClockOverlay(**ds).ok());  // the trace and the samples share the realtime axis
    EXPECT_GE(cpu->samples.size(), 2u);
    EXPECT_GT(core::overlayTime(*cpu, cpu->samples.ts[0]), startNs - 1'000'000'000LL);
    expectSamplerLanesInTheTimeline(*ds, run / "cpu.csv");
}

TEST(CollectCli, ACrashingWorkloadIsAFailedRunThatKeepsItsSamples) {
    if (!haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    Collect c = startCollect("crash", {{"TRAIN_FAIL", "1"}});
    ASSERT_TRUE(c.tree);
    const auto exit = c.tree->wait(240s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 3) << readAll(c.dir / "collect.log");  // the workload's own exit status
    const YAML::Node m = YAML::LoadFile((c.dir / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "failed");
    EXPECT_EQ(m["exit"]["code"].as<int>(), 3);
    EXPECT_GT(fs::file_size(c.dir / "run" / "cpu.csv"), 200u);
    EXPECT_NE(readAll(c.dir / "run" / "workload.log").find("failing on purpose"), std::string::npos);
}

TEST(CollectCli, SigtermToStrobeCliCancelsTheRunAndLeavesNoProcess) {
    if (!haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    Collect c = startCollect("cancel", {{"STEPS", "100000"}});
    ASSERT_TRUE(c.tree);
    // Wait until the workload is inside its training loop (the helper wrote its first anchors at profiler start).
    const fs::path manifest = c.dir / "run" / "manifest.yaml";
    for (int i = 0; i < 1200 && !fs::exists(c.dir / "run" / "torch"); ++i)
        std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(fs::exists(manifest));
    std::this_thread::sleep_for(1s);
    ::kill(c.tree->pid(), SIGTERM);
    const auto exit = c.tree->wait(60s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 143) << readAll(c.dir / "collect.log");
    const YAML::Node m = YAML::LoadFile(manifest.string());
    EXPECT_EQ(m["status"].as<std::string>(), "cancelled");
    EXPECT_FALSE(m["end"].IsNull());
    EXPECT_TRUE(fs::exists(c.dir / "run" / "cpu.csv"));
    EXPECT_TRUE(c.tree->members().empty());
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

}  // namespace

namespace {

// strobe-cli sweep launch, killed with SIGKILL in the middle of its second run (no chance to clean up), then run
// again on the same directory: the completed run is skipped (its manifest untouched), the interrupted one is moved
// to .incomplete and run again, the rest runs; discovery then finds exactly the three completed runs.
TEST(SweepLaunchCli, ResumesAfterBeingKilledMidSweep) {
    char tmpl[] = "/tmp/strobe-sweeplaunch-XXXXXX";
    const fs::path dir = mkdtemp(tmpl);
    const fs::path sweep = dir / "sweep", marker = dir / "slow-once";
    auto launch = [&] {
        collectors::ProcessSpec ps;
        ps.argv = {STROBE_CLI_PATH, "sweep", "launch", "--grid", "bs=1,2,3", "--out", sweep.string(), "--grace-ms", "500",
                   "--", "sh", "-c",
                   "if [ \"$bs\" = 2 ] && [ ! -e " + marker.string() + " ]; then touch " + marker.string() +
                       "; sleep 30; fi; echo done {bs}"};
        ps.stdoutPath = ps.stderrPath = (dir / "launch.log").string();
        auto t = collectors::ProcessTree::start(ps);
        EXPECT_TRUE(t.ok());
        return std::move(*t);
    };
    auto first = launch();
    for (int i = 0; i < 600 && !fs::exists(marker); ++i) std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(fs::exists(marker)) << readAll(dir / "launch.log");
    ::kill(first->pid(), SIGKILL);
    first->cancel(500ms);  // the killed launcher's workload is an orphan now: stop it
    const std::string firstStart = YAML::LoadFile((sweep / "bs=1/rep0/manifest.yaml").string())["start"].as<std::string>();
    EXPECT_EQ(YAML::LoadFile((sweep / "bs=2/rep0/manifest.yaml").string())["status"].as<std::string>(), "running");
    EXPECT_FALSE(fs::exists(sweep / "bs=3"));

    auto second = launch();
    const auto exit = second->wait(120s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 0) << readAll(dir / "launch.log");
    EXPECT_NE(readAll(dir / "launch.log").find("2 completed, 1 skipped"), std::string::npos) << readAll(dir / "launch.log");
    EXPECT_EQ(YAML::LoadFile((sweep / "bs=1/rep0/manifest.yaml").string())["start"].as<std::string>(), firstStart);
    for (const char* bs : {"1", "2", "3"}) {
        const fs::path run = sweep / (std::string("bs=") + bs) / "rep0";
        EXPECT_EQ(YAML::LoadFile((run / "manifest.yaml").string())["status"].as<std::string>(), "completed") << bs;
        EXPECT_EQ(readAll(run / "workload.log"), std::string("done ") + bs + "\n");
    }
    EXPECT_EQ(YAML::LoadFile((sweep / ".incomplete/bs=2/rep0/manifest.yaml").string())["status"].as<std::string>(),
              "running");
    const auto found = core::sweep::discoverSweep({sweep.string()});
    ASSERT_EQ(found.runs.size(), 3u);
    EXPECT_EQ(found.axes, std::vector<std::string>{"bs"});
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
    std::error_code ec;
    fs::remove_all(dir, ec);
}

}  // namespace

namespace {

// Fault tests with the nvidia-smi stand-in (tests/standins/nvidia-smi: the real tool's query CSV from the real H100
// sample, misbehaving on request) on a recorded H100 (STROBE_DEVICE_INFO), and the CPU sampler under a file-size
// limit (a full disk). Each checks the exit status, the manifest, and that no process is left.
struct Faulty {
    fs::path dir;
    Faulty() {
        char tmpl[] = "/tmp/strobe-faults-XXXXXX";
        dir = mkdtemp(tmpl);
        std::ofstream(dir / "h100.yaml") << "gpus: [{vendor: NVIDIA, name: NVIDIA H100 80GB HBM3, arch: sm_90}]\n";
    }
    ~Faulty() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    // strobe-cli collect --tool TOOL -- sleep SECONDS, with the stand-ins first on PATH (unless `standins` is false).
    collectors::ExitInfo run(const std::string& tool, const std::string& mode, bool standins = true,
                             const std::string& shellPrefix = "") {
        std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
        if (standins) path = std::string(STROBE_TEST_DATA_DIR) + "/../standins:" + path;
        collectors::ProcessSpec ps;
        const std::string collect = std::string(STROBE_CLI_PATH) + " collect --out " + (dir / "run").string() +
                                    " --grace-ms 500 --tool " + tool + " -- sleep 2";
        ps.argv = {"sh", "-c", shellPrefix + "exec " + collect};
        ps.env = {{"PATH", path}, {"STROBE_DEVICE_INFO", (dir / "h100.yaml").string()}, {"STANDIN_MODE", mode}};
        ps.stdoutPath = ps.stderrPath = (dir / "collect.log").string();
        auto t = collectors::ProcessTree::start(ps);
        EXPECT_TRUE(t.ok());
        auto e = (*t)->wait(60s);
        EXPECT_TRUE(e.has_value()) << log();
        EXPECT_EQ(strobe::test::leftoverProcesses(), "") << log();
        return e.value_or(collectors::ExitInfo{-1, false, 0});
    }
    std::string log() const { return readAll(dir / "collect.log"); }
    YAML::Node manifest() const { return YAML::LoadFile((dir / "run" / "manifest.yaml").string()); }
};

TEST(CollectFaults, StandInSamplerWritesTheRealFormatThatLoads) {
    Faulty f;
    EXPECT_EQ(f.run("nvidia-smi", "").status, 0) << f.log();
    EXPECT_EQ(f.manifest()["tools"][0]["version"].as<std::string>(), "590.48.01");
    core::RunLoadOptions o;
    o.useCache = false;
    auto ds = core::loadRun({(f.dir / "run").string()}, o);
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    EXPECT_EQ((*ds)->ranks.size(), 0u);  // telemetry alone: the host's, never a rank
    ASSERT_EQ((*ds)->hosts.size(), 1u);
    ASSERT_EQ((*ds)->hosts[0].sources.size(), 1u);
    EXPECT_EQ((*ds)->hosts[0].sources[0]->info.format, "nvidia-smi-csv");
    EXPECT_GT((*ds)->hosts[0].sources[0]->samples.size(), 10u);
}

// nvidia-smi writes local wall time without a zone. The manifest records the zone of the run (utc_offset_s), which
// anchors the samples: here in a zone 5 h 30 min east of UTC (a POSIX TZ string, no tzdata needed), every sample
// lands in the run's wall-clock window; read as if UTC they would be 5.5 h off.
TEST(CollectFaults, LocalTimeSamplesAreAnchoredByTheZoneInTheManifest) {
    Faulty f;
    EXPECT_EQ(f.run("nvidia-smi", "", true, "export TZ=IST-5:30; ").status, 0) << f.log();
    const YAML::Node m = f.manifest();
    EXPECT_EQ(m["clocks"]["utc_offset_s"].as<int64_t>(), 19800);
    const int64_t startNs = m["clocks"]["realtime_ns"].as<int64_t>();
    core::RunLoadOptions o;
    o.useCache = false;
    auto ds = core::loadRun({(f.dir / "run").string()}, o);
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    ASSERT_EQ((*ds)->hosts.size(), 1u);
    ASSERT_EQ((*ds)->hosts[0].sources.size(), 1u);
    const core::RankData& r = *(*ds)->hosts[0].sources[0];
    EXPECT_EQ(r.info.clock.domain, core::ClockDomain::LocalWallTime);
    EXPECT_TRUE(r.info.clock.anchored);
    EXPECT_EQ(r.info.clock.toRealtimeNs, -19800LL * 1'000'000'000);
    ASSERT_GT(r.samples.size(), 10u);
    for (size_t k = 0; k < r.samples.size(); ++k) {
        const int64_t t = core::overlayTime(r, r.samples.ts[k]);
        EXPECT_GE(t, startNs - 1'000'000'000LL) << k;  // nvidia-smi writes ms: a sample may round down
        EXPECT_LT(t, startNs + 30'000'000'000LL) << k;
    }
}

TEST(CollectFaults, ASamplerThatIgnoresSigtermAndForksAwayIsStillStopped) {
    Faulty f;
    const fs::path pidFile = f.dir / "grandchild.pid";
    EXPECT_EQ(f.run("nvidia-smi", "ignore-term,fork=" + pidFile.string()).status, 0) << f.log();
    EXPECT_EQ(f.manifest()["status"].as<std::string>(), "completed");
    const pid_t grandchild = std::atoi(readAll(pidFile).c_str());
    ASSERT_GT(grandchild, 0);
    EXPECT_FALSE(collectors::processStartTime(grandchild).has_value());
}

TEST(CollectFaults, ASamplerThatCrashesIsNotedAndTheRunCompletes) {
    Faulty f;
    EXPECT_EQ(f.run("nvidia-smi", "crash=3").status, 0) << f.log();
    const YAML::Node m = f.manifest();
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    ASSERT_TRUE(m["messages"].IsSequence());
    EXPECT_NE(m["messages"][0].as<std::string>().find("sidecar nvidia-smi ended early (status 9)"), std::string::npos);
    EXPECT_NE(readAll(f.dir / "run" / "nvidia_smi.csv").find("NVIDIA H100"), std::string::npos);  // kept
}

TEST(CollectFaults, AMissingToolIsRefusedBeforeAnythingStarts) {
    Faulty f;
    EXPECT_EQ(f.run("nvidia-smi", "", /*standins=*/false).status, 125);
    EXPECT_NE(f.log().find("refused: tool nvidia-smi is not available"), std::string::npos) << f.log();
    EXPECT_FALSE(fs::exists(f.dir / "run"));
}

TEST(CollectFaults, AFullDiskEndsTheSamplerNotTheRunAndTheManifestSaysSo) {
    Faulty f;
    // ulimit -f 2: at most 2 blocks (1 KiB in dash's 512-byte blocks) per file: the manifest (~650 bytes) fits,
    // the CPU sampler's CSV (a ~90-byte row every 100 ms for 2 s) does not, so its write fails with EFBIG mid-run.
    const auto e = f.run("cpu-sampler", "", true, "ulimit -f 2; ");
    EXPECT_EQ(e.status, 0) << f.log();
    const YAML::Node m = f.manifest();
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    ASSERT_TRUE(m["messages"].IsSequence()) << f.log();
    EXPECT_NE(m["messages"][0].as<std::string>().find("sidecar cpu-sampler ended early"), std::string::npos);
    EXPECT_LE(fs::file_size(f.dir / "run" / "cpu.csv"), 1024u);
    EXPECT_NE(readAll(f.dir / "run" / "cpu-sampler.stderr.log").find("File too large"), std::string::npos);
    EXPECT_GT(fs::file_size(f.dir / "run" / "cpu.csv"), 0u);
}

}  // namespace

namespace {

// A prefix tool: the rocprofv3 stand-in (tests/standins/rocprofv3) wraps the command and writes the real
// rocprofv3 kernel-trace CSV (ROCm documentation sample, 9 dispatches: tests/data/rocprof/docs-2025) under
// rocprof/<host>/<pid>; on a recorded MI300X the run completes, the wrapped command's exit status passes through,
// and the run directory loads with those 9 kernels.
TEST(CollectFaults, APrefixToolWrapsTheCommandAndItsOutputLoads) {
    Faulty f;
    std::ofstream(f.dir / "h100.yaml") << "gpus: [{vendor: AMD, name: AMD Instinct MI300X, arch: gfx942}]\n";
    EXPECT_EQ(f.run("rocprofv3", "").status, 0) << f.log();
    const YAML::Node m = f.manifest();
    EXPECT_EQ(m["command"][0].as<std::string>(), "sleep");  // the manifest records the workload, not the wrapper
    EXPECT_EQ(m["tools"][0]["version"].as<std::string>(), "1.0.0");
    core::RunLoadOptions o;
    o.useCache = false;
    auto ds = core::loadRun({(f.dir / "run").string()}, o);
    ASSERT_TRUE(ds.ok()) << ds.error().toString();
    size_t kernels = 0;
    for (const auto& r : (*ds)->ranks) kernels += r->gpu.size();
    EXPECT_EQ(kernels, 9u);  // python3 -c "import csv; print(len(list(csv.DictReader(open('kernel_trace.csv')))))"
    // rocprofv3 stamps CLOCK_BOOTTIME: the manifest's clocks, read together at the start, anchor the kernels, which
    // then lie in the run's wall-clock window; durations are the sample's, 96160 ns in all (python3 -c "import csv;
    // print(sum(int(r['End_Timestamp'])-int(r['Start_Timestamp']) for r in csv.DictReader(open('kernel_trace.csv'))))").
    const int64_t startNs = m["clocks"]["realtime_ns"].as<int64_t>();
    int64_t first = INT64_MAX, total = 0;
    for (const auto& r : (*ds)->ranks) {
        if (r->gpu.size() == 0) continue;
        EXPECT_TRUE(r->info.clock.anchored);
        EXPECT_NE(r->info.clock.anchor.find("manifest.yaml"), std::string::npos) << r->info.clock.anchor;
        EXPECT_EQ(r->info.clock.toRealtimeNs, startNs - m["clocks"]["boottime_ns"].as<int64_t>());
        for (size_t k = 0; k < r->gpu.size(); ++k) {
            first = std::min(first, core::overlayTime(*r, r->gpu.ts[k]));
            total += r->gpu.dur[k];
        }
    }
    EXPECT_EQ(total, 96160);
    EXPECT_GE(first, startNs);
    EXPECT_LT(first, startNs + 30'000'000'000LL);
    EXPECT_TRUE(core::checkClockOverlay(**ds).ok());
    bool attributed = false;
    for (const auto& file : m["files"])
        attributed = attributed || (file["path"].as<std::string>().ends_with("_kernel_trace.csv") &&
                                    file["tool"].as<std::string>() == "rocprofv3");
    EXPECT_TRUE(attributed);
}

}  // namespace
