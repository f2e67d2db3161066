// strobe-cli collect with the stand-ins for nsys, ncu and amd-smi (tests/standins: executables that behave like the
// real tools and write their real file formats from real samples), on recorded devices (STROBE_DEVICE_INFO), the
// stand-ins first on PATH. Each run goes through the real code path: the tool spec (resources/tools/*.yaml), the
// probe, the session (prefix tools wrap the command, sidecars run beside it), the manifest, and then
// `strobe-cli summary RUN --json` reads the outputs. Faults: a tool that fails at start, a sidecar that ignores
// SIGTERM and forks a grandchild out of its group, a prefix tool that ignores SIGTERM when the run is cancelled.
// Every test checks that no process is left (ProcessTree's descendants and /proc for the grandchild).
// Expected counts come from the samples, with python3 (commands in the comments).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "tests/cli/cli_capture.h"
#include "tests/leftover_processes.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kH100 = "gpus: [{vendor: NVIDIA, name: NVIDIA H100 80GB HBM3, arch: sm_90}]\n";
constexpr const char* kMi300 = "gpus: [{vendor: AMD, name: AMD Instinct MI300X, arch: gfx942}]\n";

struct StandIns {
    fs::path dir;
    std::unique_ptr<collectors::ProcessTree> tree;
    explicit StandIns(const std::string& devices) {
        char tmpl[] = "/tmp/strobe-standins-XXXXXX";
        dir = mkdtemp(tmpl);
        std::ofstream(dir / "devices.yaml") << devices;
    }
    ~StandIns() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    fs::path run() const { return dir / "run"; }
    // Starts strobe-cli collect --tool TOOL -- COMMAND with STANDIN_MODE=mode ("--context=FILE" as TOOL: that
    // context instead).
    void start(const std::string& tool, const std::string& mode, const std::vector<std::string>& command) {
        const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/../standins:" +
                                 (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin");
        collectors::ProcessSpec ps;
        ps.argv = {STROBE_CLI_PATH, "collect", "--out", run().string(), "--grace-ms", "500"};
        if (tool.starts_with("--context=")) {
            ps.argv.insert(ps.argv.end(), {"--context", tool.substr(10)});
        } else {
            ps.argv.insert(ps.argv.end(), {"--tool", tool});
        }
        ps.argv.push_back("--");
        ps.argv.insert(ps.argv.end(), command.begin(), command.end());
        ps.env = {{"PATH", path}, {"STROBE_DEVICE_INFO", (dir / "devices.yaml").string()}, {"STANDIN_MODE", mode}};
        ps.stdoutPath = ps.stderrPath = (dir / "collect.log").string();
        auto t = collectors::ProcessTree::start(ps);
        ASSERT_TRUE(t.ok());
        tree = std::move(*t);
    }
    collectors::ExitInfo wait() {
        auto e = tree->wait(60s);
        EXPECT_TRUE(e.has_value()) << log();
        EXPECT_EQ(strobe::test::leftoverProcesses(), "") << log();
        return e.value_or(collectors::ExitInfo{-1, false, 0});
    }
    collectors::ExitInfo collect(const std::string& tool, const std::string& mode = "",
                                 const std::vector<std::string>& command = {"sleep", "2"}) {
        start(tool, mode, command);
        return tree ? wait() : collectors::ExitInfo{-1, false, 0};
    }
    std::string log() const { return test::readAll(dir / "collect.log"); }
    YAML::Node manifest() const { return YAML::LoadFile((run() / "manifest.yaml").string()); }
    // The manifest's entry for a file (a map), checked against the file on disk; a null node when it is not listed.
    YAML::Node listed(const std::string& rel) const {
        for (const auto& f : manifest()["files"])
            if (f["path"].as<std::string>() == rel) {
                EXPECT_EQ(f["size"].as<uint64_t>(), fs::file_size(run() / rel)) << rel;
                return f;
            }
        return YAML::Node();
    }
    // strobe-cli summary RUN --json --no-cache, parsed.
    QJsonObject summary() const {
        const auto r = test::runCli("summary", {run().string(), "--json", "--no-cache"});
        EXPECT_EQ(r.code, 0) << r.err;
        QJsonParseError err;
        const QJsonDocument d = QJsonDocument::fromJson(QByteArray::fromStdString(r.out), &err);
        EXPECT_EQ(err.error, QJsonParseError::NoError) << r.out;
        return d.object();
    }
};

int64_t kernelsOf(const QJsonObject& summary) {
    int64_t n = 0;
    for (const auto& r : summary["ranks"].toArray()) n += r.toObject()["kernels"].toObject()["count"].toInteger();
    return n;
}

QJsonObject sourceOf(const QJsonObject& summary, const std::string& suffix) {
    for (const auto& s : summary["sources"].toArray())
        if (s.toObject()["path"].toString().toStdString().ends_with(suffix)) return s.toObject();
    ADD_FAILURE() << "no source ending in " << suffix;
    return {};
}

TEST(CollectStandIns, NsysWrapsTheCommandAndItsSqliteExportIsListedAndRead) {
    StandIns s(kH100);
    // The wrapped command's exit status passes through nsys profile.
    const auto e = s.collect("nsys", "", {"sh", "-c", "sleep 1; exit 3"});
    EXPECT_EQ(e.status, 3) << s.log();
    const YAML::Node m = s.manifest();
    EXPECT_EQ(m["status"].as<std::string>(), "failed");  // the workload's own status 3
    EXPECT_EQ(m["exit"]["code"].as<int>(), 3);
    EXPECT_EQ(m["command"][0].as<std::string>(), "sh");
    EXPECT_EQ(m["tools"][0]["version"].as<std::string>(), "2024.6.2.225");
    const YAML::Node sqlite = s.listed("nsys/report.sqlite");
    ASSERT_TRUE(sqlite.IsMap()) << s.log();
    EXPECT_EQ(sqlite["tool"].as<std::string>(), "nsys");
    EXPECT_EQ(sqlite["format"].as<std::string>(), "nsys-sqlite");
    EXPECT_EQ(s.listed("nsys/report.nsys-rep")["format"].as<std::string>(), "nsys-rep");
    const QJsonObject sum = s.summary();
    // python3 -c "import sqlite3; print(sqlite3.connect('tests/data/sqlite/nsys_fuser_h200.sqlite')
    //             .execute('select count(*) from CUPTI_ACTIVITY_KIND_KERNEL').fetchone()[0])"  -> 19
    EXPECT_EQ(kernelsOf(sum), 19);
    EXPECT_EQ(sourceOf(sum, "report.sqlite")["format"].toString(), "nsys-sqlite");
}

TEST(CollectStandIns, NcuWrapsTheCommandAndItsCsvIsListedAndRead) {
    StandIns s(kH100);
    EXPECT_EQ(s.collect("ncu").status, 0) << s.log();
    EXPECT_EQ(s.manifest()["status"].as<std::string>(), "completed");
    EXPECT_EQ(s.manifest()["tools"][0]["version"].as<std::string>(), "2024.3.2.0");
    const YAML::Node csv = s.listed("ncu.csv");
    ASSERT_TRUE(csv.IsMap()) << s.log();
    EXPECT_EQ(csv["format"].as<std::string>(), "ncu-csv");
    const QJsonObject sum = s.summary();
    // The spec asks for --page raw: the stand-in writes the real H200 raw page (tests/data/cuda/ncu/ncu.csv), 6
    // kernels by python3 tests/data/expected/cuda_h200.py ("ncu": {"kernels": 6, "duration_ns": 157088}).
    EXPECT_EQ(kernelsOf(sum), 6);
    EXPECT_EQ(sourceOf(sum, "ncu.csv")["kernel_time_ns"].toInteger(), 157088);
    EXPECT_EQ(sourceOf(sum, "ncu.csv")["format"].toString(), "ncu-csv");
    EXPECT_GT(sourceOf(sum, "ncu.csv")["counters"].toInteger(), 0);
}

TEST(CollectStandIns, AmdSmiSamplesBesideTheCommandAreListedAndRead) {
    StandIns s(kMi300);
    EXPECT_EQ(s.collect("amd-smi").status, 0) << s.log();
    EXPECT_EQ(s.manifest()["status"].as<std::string>(), "completed");
    EXPECT_EQ(s.manifest()["tools"][0]["version"].as<std::string>(), "24.6.3+9578815");
    const YAML::Node csv = s.listed("amd_smi.csv");
    ASSERT_TRUE(csv.IsMap()) << s.log();
    EXPECT_EQ(csv["tool"].as<std::string>(), "amd-smi");
    // Rows the stand-in wrote (4 GPUs per sample, from the rocm-smi concise sample's 4 MI300A lines), each with 5
    // metrics Strobe knows (power, SCLK, MCLK, junction temperature, GPU%).
    std::istringstream text(test::readAll(s.run() / "amd_smi.csv"));
    std::string line;
    std::getline(text, line);
    EXPECT_EQ(line, "gpu,timestamp,power_socket_power,clock_gfx_0_clk,clock_mem_0_clk,temperature_hotspot,usage_gfx_activity");
    int64_t rows = 0;
    while (std::getline(text, line)) rows += !line.empty();
    ASSERT_GE(rows, 4);
    EXPECT_EQ(rows % 4, 0);
    const QJsonObject sum = s.summary();
    const QJsonObject src = sourceOf(sum, "amd_smi.csv");
    EXPECT_EQ(src["format"].toString(), "amd-smi-metric-csv");
    EXPECT_EQ(src["samples"].toInteger(), rows * 5);
}

TEST(CollectStandIns, ASidecarIgnoringSigtermIsKilledAfterTheGraceAndNothingRemains) {
    StandIns s(kMi300);
    const fs::path pidFile = s.dir / "grandchild.pid";
    EXPECT_EQ(s.collect("amd-smi", "ignore-term,fork=" + pidFile.string()).status, 0) << s.log();
    EXPECT_EQ(s.manifest()["status"].as<std::string>(), "completed");
    const pid_t grandchild = std::atoi(test::readAll(pidFile).c_str());
    ASSERT_GT(grandchild, 0);
    EXPECT_FALSE(fs::exists("/proc/" + std::to_string(grandchild)));
    EXPECT_TRUE(s.listed("amd_smi.csv").IsMap());  // what it sampled is kept
}

TEST(CollectStandIns, APrefixToolIgnoringSigtermIsKilledWhenTheRunIsCancelled) {
    StandIns s(kH100);
    const fs::path pidFile = s.dir / "grandchild.pid";
    // slow=60: nsys takes its time to start the command, deaf to SIGTERM; only SIGKILL after the grace ends it.
    s.start("nsys", "ignore-term,fork=" + pidFile.string() + ",slow=60", {"sleep", "60"});
    ASSERT_TRUE(s.tree);
    // Poll (with a deadline) until strobe-cli has started nsys and nsys its grandchild.
    for (int i = 0; i < 600 && (s.log().find("started nsys") == std::string::npos || !fs::exists(pidFile)); ++i)
        std::this_thread::sleep_for(50ms);
    ASSERT_NE(s.log().find("started nsys"), std::string::npos) << s.log();
    ::kill(s.tree->pid(), SIGTERM);
    const auto e = s.wait();
    EXPECT_EQ(e.status, 143) << s.log();
    const YAML::Node m = s.manifest();
    EXPECT_EQ(m["status"].as<std::string>(), "cancelled");
    const pid_t grandchild = std::atoi(test::readAll(pidFile).c_str());
    ASSERT_GT(grandchild, 0);
    EXPECT_FALSE(fs::exists("/proc/" + std::to_string(grandchild)));
    EXPECT_FALSE(s.listed("nsys/report.sqlite").IsMap());  // killed before it wrote anything
    EXPECT_FALSE(fs::exists(s.run() / "nsys" / "report.sqlite"));
}

TEST(CollectStandIns, AFailingToolGivesAnHonestManifest) {
    for (const std::string tool : {"nsys", "ncu"}) {
        StandIns s(kH100);
        EXPECT_EQ(s.collect(tool, "fail").status, 1) << s.log();
        const YAML::Node m = s.manifest();
        EXPECT_EQ(m["status"].as<std::string>(), "failed") << tool;
        EXPECT_EQ(m["exit"]["code"].as<int>(), 1) << tool;
        for (const auto& f : m["files"]) EXPECT_EQ(f["path"].as<std::string>(), "workload.log") << tool;
        const std::string why = tool == "nsys" ? "the CUDA driver is not available" : "ERR_NVGPUCTRPERM";
        EXPECT_NE(test::readAll(s.run() / "workload.log").find(why), std::string::npos) << tool;
    }
    StandIns s(kMi300);
    // A sidecar's failure does not fail the run, but a run without the samples asked for is incomplete (exit 4,
    // issue 23), saying why.
    EXPECT_EQ(s.collect("amd-smi", "fail").status, 4) << s.log();
    const YAML::Node m = s.manifest();
    EXPECT_EQ(m["status"].as<std::string>(), "incomplete");
    EXPECT_EQ(m["exit"]["code"].as<int>(), 0);
    EXPECT_NE(m["status_reason"].as<std::string>().find("amd-smi wrote no trace: no non-empty file matches amd_smi.csv"),
              std::string::npos);
    EXPECT_NE(s.log().find("strobe-cli collect: incomplete: amd-smi wrote no trace"), std::string::npos) << s.log();
    ASSERT_TRUE(m["messages"].IsSequence()) << s.log();
    EXPECT_NE(m["messages"][0].as<std::string>().find("sidecar amd-smi ended early (status 1)"), std::string::npos);
    EXPECT_NE(test::readAll(s.run() / "amd-smi.stderr.log").find("Unable to detect any GPU"), std::string::npos);
}

// A madengine context (tests/data/madengine/context_rocprofv3_power.json: rocprofv3, rocblas_trace,
// gpu_info_power_profiler and a `timeout` wrapper, innermost first) runs as Strobe's stack: timeout outermost, then
// the amd-smi sampler (power fields), the rocBLAS log tool and the rocprofv3 stand-in, the environment merged with
// the later entry winning; the rocprofv3 output is listed and read. The workload makes no rocBLAS call, so the run is
// incomplete (exit 4), saying that rocblas-log wrote nothing.
TEST(CollectStandIns, AMadengineContextRunsAsAToolStack) {
    StandIns s(kMi300);
    const std::string context = std::string(STROBE_TEST_DATA_DIR) + "/madengine/context_rocprofv3_power.json";
    const auto e = s.collect("--context=" + context, "",
                             {"sh", "-c", "echo \"env: $RCCL_DEBUG $ROCBLAS_TRACE $POWER_SAMPLING_RATE $HSA_ENABLE_SDMA\""});
    EXPECT_EQ(e.status, 4) << s.log();
    const YAML::Node m = s.manifest();
    EXPECT_EQ(m["status"].as<std::string>(), "incomplete");
    EXPECT_NE(m["status_reason"].as<std::string>().find("rocblas-log wrote no trace"), std::string::npos);
    ASSERT_EQ(m["tools"].size(), 4u);
    EXPECT_EQ(m["tools"][0]["name"].as<std::string>(), "time_limit");
    EXPECT_EQ(m["tools"][1]["name"].as<std::string>(), "amd-smi");
    EXPECT_EQ(m["tools"][1]["params"]["fields"].as<std::string>(), "--power");
    EXPECT_EQ(m["tools"][2]["name"].as<std::string>(), "rocblas-log");
    EXPECT_EQ(m["tools"][3]["name"].as<std::string>(), "rocprofv3");
    EXPECT_EQ(m["tools"][3]["params"]["trace"].as<std::string>(), "--runtime-trace");
    EXPECT_EQ(m["env_diff"]["ROCBLAS_LAYER"].as<std::string>(), "7");
    EXPECT_EQ(m["env_diff"]["RCCL_DEBUG"].as<std::string>(), "WARN");
    EXPECT_NE(test::readAll(s.run() / "workload.log").find("env: WARN 1 0.1 0"), std::string::npos)
        << test::readAll(s.run() / "workload.log");
    EXPECT_NE(s.log().find("tools[1] rocblas_trace: Strobe's tool rocblas-log"), std::string::npos);
    EXPECT_EQ(kernelsOf(s.summary()), 9);  // the rocprofv3 stand-in's sample: 9 dispatches (collect_cli_test)
}

TEST(CollectStandIns, ABadContextIsAUsageErrorNamingTheFileAndLine) {
    StandIns s(kMi300);
    test::writeFile(s.dir / "ctx.json", "{\"tools\": [\n  {\"name\": \"rocprofv3\",}\n]}");
    const auto e = s.collect("--context=" + (s.dir / "ctx.json").string(), "", {"true"});
    EXPECT_EQ(e.status, 2);
    EXPECT_NE(s.log().find((s.dir / "ctx.json").string() + ": line 2"), std::string::npos) << s.log();
    EXPECT_FALSE(fs::exists(s.run()));
}

// strobe-cli sweep launch takes the same --context: every run of the grid gets the context's stack and variables.
TEST(CollectStandIns, SweepLaunchTakesTheContextToo) {
    StandIns s(kMi300);
    const std::string context = std::string(STROBE_TEST_DATA_DIR) + "/madengine/context_rocprofv3_power.json";
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "sweep", "launch", "--grid", "bs=1,2", "--out", (s.dir / "sweep").string(),
               "--grace-ms", "500", "--context", context, "--", "sh", "-c", "echo \"bs=$bs $RCCL_DEBUG\""};
    ps.env = {{"PATH", std::string(STROBE_TEST_DATA_DIR) + "/../standins:" +
                           (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin")},
              {"STROBE_DEVICE_INFO", (s.dir / "devices.yaml").string()}};
    ps.stdoutPath = ps.stderrPath = (s.dir / "collect.log").string();
    auto t = collectors::ProcessTree::start(ps);
    ASSERT_TRUE(t.ok());
    s.tree = std::move(*t);
    EXPECT_EQ(s.wait().status, 1) << s.log();  // every run incomplete: the workload made no rocBLAS call
    for (const char* bs : {"1", "2"}) {
        const fs::path run = s.dir / "sweep" / ("bs=" + std::string(bs)) / "rep0";
        const YAML::Node m = YAML::LoadFile((run / "manifest.yaml").string());
        EXPECT_EQ(m["status"].as<std::string>(), "incomplete") << bs;
        ASSERT_EQ(m["tools"].size(), 4u) << bs;
        EXPECT_EQ(m["tools"][0]["name"].as<std::string>(), "time_limit");
        EXPECT_EQ(m["tools"][3]["name"].as<std::string>(), "rocprofv3");
        EXPECT_NE(test::readAll(run / "workload.log").find("bs=" + std::string(bs) + " WARN"), std::string::npos)
            << test::readAll(run / "workload.log");
    }
}

}  // namespace
