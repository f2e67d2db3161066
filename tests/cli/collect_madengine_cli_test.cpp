// madengine contexts as users write them (issue 23), strobe-cli end to end: an inline context naming every madengine
// tool maps each to a Strobe tool and, on a machine without GPUs, is refused (exit 125) before anything starts with
// the GPU probe's reason; an unknown name without a cmd is refused (125) naming tools[i]. The Nsight-habit flags:
// --cpu-telemetry adds the CPU sampler, --gpu-telemetry without a GPU is refused with the probe's reason, --delay and
// --duration reach the manifest's tool environment. Each then reads the process table: nothing is left.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collectors/device_info.h"
#include "collectors/process_tree.h"
#include "tests/have_torch.h"
#include "tests/leftover_processes.h"
#include "tests/test_paths.h"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct MadRun {
    int status = -1;
    std::string err;
};

MadRun madCollect(const fs::path& dir, const std::string& context, std::vector<std::string> flags = {}) {
    strobe::collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "collect", "--out", (dir / "run").string()};
    if (!context.empty()) ps.argv.insert(ps.argv.end(), {"--additional-context", context});
    ps.argv.insert(ps.argv.end(), flags.begin(), flags.end());
    ps.argv.insert(ps.argv.end(), {"--", "true"});
    ps.stdoutPath = (dir / "out.txt").string();
    ps.stderrPath = (dir / "err.txt").string();
    MadRun r;
    auto t = strobe::collectors::ProcessTree::start(ps);
    EXPECT_TRUE(t.ok());
    if (!t.ok()) return r;
    const auto e = (*t)->wait(120s);
    r.status = e ? e->status : -1;
    std::ifstream in(dir / "err.txt");
    r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
}

struct MadDir {
    fs::path path;
    MadDir() {
        char tmpl[] = "/tmp/strobe-mad-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~MadDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

TEST(CollectMadengine, EveryMadengineNameMapsAndGpuToolsAreRefusedWithTheGpuReason) {
    const auto devices = strobe::collectors::probeDevices();
    if (!devices.gpus.empty()) GTEST_SKIP() << "this machine has a GPU: the refusal is for machines without one";
    MadDir d;
    const MadRun r = madCollect(d.path, R"({"tools": [{"name": "rocprof", "cmd": "rocprofv3 --kernel-trace --rccl-trace --"},
        {"name": "rpd"}, {"name": "rocblas_trace"}, {"name": "miopen_trace"}, {"name": "tensile_trace"},
        {"name": "rccl_trace"}, {"name": "gpu_info_power_profiler"}, {"name": "gpu_info_vram_profiler"}]})");
    EXPECT_EQ(r.status, 125) << r.err;
    for (const char* line : {"tools[0] rocprof: rocprofv3 with trace '--kernel-trace --rccl-trace'",
                             "tools[1] rpd: Strobe's tool rpd", "tools[2] rocblas_trace: Strobe's tool rocblas-log",
                             "tools[3] miopen_trace: Strobe's tool miopen-log",
                             "tools[4] tensile_trace: Strobe's tool tensile-log",
                             "tools[5] rccl_trace: Strobe's tool rccl-log",
                             "tools[6] gpu_info_power_profiler: Strobe's tool amd-smi"})
        EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
    // The outermost GPU tool is refused first, with what the GPU probe found.
    EXPECT_NE(r.err.find("refused: tool amd-smi needs an AMD GPU; this machine has: " + devices.message),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(d.path / "run"));
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

TEST(CollectMadengine, AnUnknownNameWithoutACmdIsRefusedNamingTheEntry) {
    MadDir d;
    const MadRun r = madCollect(d.path, R"({"tools": [{"name": "rocblas_trace"}, {"name": "my_profiler", "env_vars": {"A": "1"}}]})");
    EXPECT_EQ(r.status, 125) << r.err;
    EXPECT_NE(r.err.find("refused: --additional-context: tools[1] my_profiler: an unknown tool without a cmd"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(d.path / "run"));
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

TEST(CollectMadengine, TelemetryFlagsAddTheSamplersOrSayWhyNot) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    MadDir d;
    const MadRun cpu = madCollect(d.path, "", {"--cpu-telemetry", "--python", "/usr/bin/python3", "--tool", "torch-profiler", "--tool-param",
                                               "torch-profiler.mode=time", "--delay", "1.5", "--duration", "2"});
    // `true` imports no torch: the torch profiler writes nothing, so the run is incomplete; the sampler ran.
    EXPECT_EQ(cpu.status, 4) << cpu.err;
    const std::string manifest = [&] {
        std::ifstream in(d.path / "run" / "manifest.yaml");
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }();
    EXPECT_NE(manifest.find("- {name: cpu-sampler"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("STROBE_TORCH_DELAY: \"1.5\""), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("STROBE_TORCH_DURATION: \"2\""), std::string::npos) << manifest;
    EXPECT_TRUE(fs::exists(d.path / "run" / "cpu.csv"));
    const auto devices = strobe::collectors::probeDevices();
    if (devices.gpus.empty()) {
        fs::remove_all(d.path / "run");
        const MadRun gpu = madCollect(d.path, "", {"--gpu-telemetry"});
        EXPECT_EQ(gpu.status, 125) << gpu.err;
        EXPECT_NE(gpu.err.find("refused: --gpu-telemetry: " + devices.message), std::string::npos) << gpu.err;
    }
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

}  // namespace
