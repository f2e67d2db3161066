// madengine contexts as users write them (issue 23), strobe-cli end to end: an inline context naming every madengine
// tool maps each to a Strobe tool and, on a machine without GPUs, is refused (exit 125) before anything starts with
// the GPU probe's reason; an unknown name without a cmd is refused (125) naming tools[i]. Each then reads the
// process table: nothing is left.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "collectors/device_info.h"
#include "collectors/process_tree.h"
#include "tests/leftover_processes.h"
#include "tests/test_paths.h"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct MadRun {
    int status = -1;
    std::string err;
};

MadRun madCollect(const fs::path& dir, const std::string& context) {
    strobe::collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "collect", "--out", (dir / "run").string(), "--additional-context", context, "--", "true"};
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

}  // namespace
