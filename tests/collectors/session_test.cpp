// Profiling sessions (collectors/session.h) on real processes (sh, sleep) and the shipped tool specs: what is
// refused before anything starts, the manifest a run leaves (read back with yaml-cpp), exit statuses, and cancel
// and teardown leaving no process behind (the process table is read again afterwards). The tools used here are
// specs written by the test (sidecars and env tools built from sh), the shipped catalog is checked for parsing.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "collectors/session.h"
#include "collectors/tool_spec.h"
#include "tests/leftover_processes.h"
#include "core/io/resources.h"

using namespace strobe::collectors;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct SessionTempDir {
    fs::path path;
    SessionTempDir() {
        char tmpl[] = "/tmp/strobe-session-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~SessionTempDir() { fs::remove_all(path); }
    void write(const std::string& name, const std::string& text) const {
        fs::create_directories((path / name).parent_path());
        std::ofstream(path / name) << text;
    }
};

std::string readAll(const fs::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool alive(pid_t pid) { return processStartTime(pid).has_value(); }

// Specs written for the tests: a sidecar that writes a line per 20 ms and exits on SIGTERM after writing "bye"; a
// sidecar that ignores SIGTERM and records its pid; an env tool; two tools that conflict; one for AMD GPUs.
ToolCatalog testCatalog(const SessionTempDir& specs) {
    specs.write("tools/ticker.yaml", R"(name: ticker
kind: sidecar
command: [sh, -c, "trap 'echo bye; exit 0' TERM; while :; do echo tick; sleep 0.02; done"]
stdout: ticks.txt
outputs: [{glob: ticks.txt, format: text}]
)");
    specs.write("tools/stubborn.yaml", R"(name: stubborn
kind: sidecar
command: [sh, -c, "trap '' TERM; echo $$ > {out}/stubborn.pid; while :; do sleep 0.05; done"]
)");
    // A sidecar slow to begin (a sanitizer build of strobe-cli, nvidia-smi waking the driver): its first line comes
    // after 0.8 s; and one that never writes what it declares.
    specs.write("tools/slowstart.yaml", R"(name: slowstart
kind: sidecar
command: [sh, -c, "trap 'exit 0' TERM; sleep 0.8; echo began > {out}/slow.txt; while :; do sleep 0.05; done"]
outputs: [{glob: slow.txt, format: text}]
)");
    specs.write("tools/silent.yaml", R"(name: silent
kind: sidecar
command: [sh, -c, "trap 'exit 0' TERM; while :; do sleep 0.05; done"]
outputs: [{glob: never.txt, format: text}]
)");
    specs.write("tools/envtool.yaml", R"(name: envtool
kind: env
env: {ENVTOOL_DIR: "{out}/envtool", ENVTOOL_LEVEL: "{level}", API_TOKEN: "secret-value"}
params:
  - {key: level, label: Level, tooltip: How much, type: int, default: 2, min: 0, max: 9, step: 1}
)");
    specs.write("tools/alpha.yaml", "name: alpha\nkind: env\nconflicts: [beta]\n");
    specs.write("tools/beta.yaml", "name: beta\nkind: env\n");
    specs.write("tools/amdonly.yaml", "name: amdonly\nkind: env\nvendor: amd\n");
    specs.write("tools/missing.yaml", "name: missing\nkind: env\nprobe: {argv: [strobe-no-such-tool-xyz, --version]}\n");
    ToolCatalog c = loadToolCatalog({(specs.path / "tools").string()});
    EXPECT_TRUE(c.messages.empty()) << c.messages.front();
    return c;
}

SessionOptions options(const fs::path& out, std::vector<std::string> command) {
    SessionOptions o;
    o.outDir = out.string();
    o.command = std::move(command);
    o.grace = 500ms;
    return o;
}

TEST(ToolSpecs, TheShippedCatalogParses) {
    ToolCatalog c = loadToolCatalog({strobe::core::resourcePath("tools").string()});
    EXPECT_TRUE(c.messages.empty()) << (c.messages.empty() ? "" : c.messages.front());
    for (const char* name : {"amd-smi", "cpu-sampler", "ncu", "nsys", "nvidia-smi", "rocprofv3", "torch-profiler"})
        EXPECT_NE(c.find(name), nullptr) << name;
    const ToolSpec* roc = c.find("rocprofv3");
    ASSERT_NE(roc, nullptr);
    EXPECT_EQ(roc->kind, ToolKind::Prefix);
    EXPECT_EQ(roc->vendor, "amd");
    EXPECT_EQ(roc->conflicts, (std::vector<std::string>{"nsys", "ncu"}));
    const ToolSpec* torch = c.find("torch-profiler");
    ASSERT_NE(torch, nullptr);
    ASSERT_EQ(torch->params.size(), 6u);
    EXPECT_EQ(torch->params[4].key, "steps");
    EXPECT_EQ(torch->params[0].key, "mode");
    EXPECT_EQ(torch->params[3].key, "active");
    for (const char* name : {"rpd", "rocblas-log", "miopen-log", "tensile-log", "rccl-log"})
        EXPECT_NE(c.find(name), nullptr) << name;
    EXPECT_EQ(roc->splitArgs, (std::vector<std::string>{"trace"}));
}

// Every shipped spec's probe, command and environment expand with the variables a session gives them and the
// spec's defaults: a shell brace in a probe must be written {{ }} (rpd's was read as an unknown placeholder, so
// `strobe-cli tools` gave that, not "runTracer.sh is not on PATH", as the reason).
TEST(ToolSpecs, EveryShippedTemplateExpands) {
    ToolCatalog c = loadToolCatalog({strobe::core::resourcePath("tools").string()});
    const std::map<std::string, std::string> builtins{{"out", "/o"}, {"strobe_cli", "strobe-cli"}, {"python_dir", "/p"},
                                                      {"resources", "/r"}, {"python", "python3"},
                                                      {"delay", "0"}, {"duration", "0"}};
    ASSERT_FALSE(c.tools.empty());
    for (const ToolSpec& t : c.tools) {
        auto vars = toolVariables(t, {}, builtins);
        ASSERT_TRUE(vars) << t.name << ": " << vars.error().message;
        std::vector<std::string> texts = t.probe;
        texts.insert(texts.end(), t.command.begin(), t.command.end());
        for (const auto& [k, v] : t.env) texts.push_back(v);
        for (const auto& text : texts) {
            auto e = expandTemplate(text, *vars);
            EXPECT_TRUE(e) << t.name << ": " << (e ? "" : e.error().message);
        }
    }
    const ToolSpec* rpd = c.find("rpd");
    ASSERT_NE(rpd, nullptr);
    auto probe = expandTemplate(rpd->probe.at(2), *toolVariables(*rpd, {}, builtins));
    ASSERT_TRUE(probe);
    EXPECT_EQ(*probe, "command -v runTracer.sh || { echo 'runTracer.sh is not on PATH (rocmProfileData: make; make "
                      "install)' >&2; exit 1; }");
}

TEST(ToolSpecs, BadSpecsNameTheFileAndLine) {
    auto bad = parseToolSpec("name: x\nkind: wrapper\n", "x.yaml");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().toString().find("x.yaml: line 2"), std::string::npos) << bad.error().toString();
    EXPECT_NE(bad.error().message.find("prefix, env or sidecar"), std::string::npos);
    auto noCommand = parseToolSpec("name: y\nkind: sidecar\n", "y.yaml");
    ASSERT_FALSE(noCommand.ok());
    EXPECT_NE(noCommand.error().message.find("needs a `command`"), std::string::npos);
    auto badParam = parseToolSpec("name: z\nkind: env\nparams:\n  - {key: n, type: integer}\n", "z.yaml");
    ASSERT_FALSE(badParam.ok());
    EXPECT_NE(badParam.error().message.find("unknown type 'integer'"), std::string::npos) << badParam.error().message;
}

TEST(ToolSpecs, TemplatesExpandKnownNamesOnly) {
    setenv("STROBE_TEST_VAR", "from-env", 1);
    auto x = expandTemplate("{out}/a-{n}-{env.STROBE_TEST_VAR}-{{lit}}", {{"out", "/r"}, {"n", "3"}});
    ASSERT_TRUE(x.ok());
    EXPECT_EQ(*x, "/r/a-3-from-env-{lit}");
    auto unknown = expandTemplate("{out}/{nope}", {{"out", "/r"}});
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("unknown placeholder {nope}"), std::string::npos);
}

TEST(Session, RefusesBeforeStartingAnything) {
    SessionTempDir d;
    const ToolCatalog c = testCatalog(d);
    std::atomic<int> stop{0};
    auto refused = [&](SessionOptions o, const std::string& reason, int code) {
        const SessionResult r = runSession(o, c, stop);
        EXPECT_EQ(r.status, "refused") << reason;
        EXPECT_EQ(r.exitCode, code) << reason;
        EXPECT_NE(r.reason.find(reason), std::string::npos) << r.reason;
        EXPECT_FALSE(fs::exists(fs::path(o.outDir) / "manifest.yaml")) << reason;
    };
    SessionOptions o = options(d.path / "run", {"true"});
    o.tools = {{"nosuch", {}}};
    refused(o, "unknown tool 'nosuch'", 125);
    o.tools = {{"missing", {}}};
    refused(o, "tool missing is not available", 125);
    o.tools = {{"alpha", {}}, {"beta", {}}};
    refused(o, "tools alpha and beta cannot run together", 125);
    d.write("nvidia.yaml", "gpus: [{vendor: NVIDIA, name: NVIDIA H100 80GB HBM3, arch: sm_90}]\n");
    setenv("STROBE_DEVICE_INFO", (d.path / "nvidia.yaml").c_str(), 1);
    o.tools = {{"amdonly", {}}};
    refused(o, "tool amdonly needs an AMD GPU; this machine has: NVIDIA NVIDIA H100 80GB HBM3", 125);
    unsetenv("STROBE_DEVICE_INFO");
    o.tools = {{"envtool", {{"level", strobe::core::ParamValue(12LL)}}}};
    refused(o, "level", 125);  // outside [0, 9]
    o.tools.clear();
    d.write("full/leftover.txt", "x");
    o.outDir = (d.path / "full").string();
    refused(o, "not empty", 125);
    o.outDir = (d.path / "run").string();
    o.command = {"strobe-no-such-command-xyz"};
    refused(o, "command not found", 127);
    d.write("notexec.sh", "echo hi\n");
    o.command = {(d.path / "notexec.sh").string()};
    refused(o, "cannot be run", 126);
    EXPECT_FALSE(fs::exists(d.path / "run"));
}

TEST(Session, RunsTheWorkloadWithSidecarAndEnvAndWritesTheManifest) {
    SessionTempDir d;
    const ToolCatalog c = testCatalog(d);
    std::atomic<int> stop{0};
    SessionOptions o = options(d.path / "run", {"sh", "-c", "sleep 0.4; echo \"$ENVTOOL_DIR $ENVTOOL_LEVEL\""});
    o.tools = {{"envtool", {{"level", strobe::core::ParamValue(std::string("7"))}}}, {"ticker", {}}};
    o.parameters = {{"bs", "64"}, {"arch", "gfx942"}};
    o.repeat = 2;
    const SessionResult r = runSession(o, c, stop);
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_EQ(r.exitCode, 0);
    const fs::path run = d.path / "run";
    EXPECT_EQ(readAll(run / "workload.log"), run.string() + "/envtool 7\n");
    // The ticker ran beside the workload and was stopped with SIGTERM, which it answered by writing "bye".
    const std::string ticks = readAll(run / "ticks.txt");
    EXPECT_NE(ticks.find("tick\n"), std::string::npos);
    EXPECT_TRUE(ticks.ends_with("bye\n")) << ticks;

    const YAML::Node m = YAML::LoadFile((run / "manifest.yaml").string());
    EXPECT_EQ(m["strobe_manifest"].as<int>(), 1);
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    EXPECT_EQ(m["exit"]["code"].as<int>(), 0);
    EXPECT_EQ(m["command"][0].as<std::string>(), "sh");
    EXPECT_EQ(m["parameters"]["bs"].as<int>(), 64);  // typed: an int, not the text "64"
    EXPECT_EQ(m["parameters"]["bs"].Tag(), "?");
    EXPECT_EQ(m["parameters"]["arch"].as<std::string>(), "gfx942");
    EXPECT_EQ(m["repeat"].as<int>(), 2);
    EXPECT_EQ(m["tools"][0]["name"].as<std::string>(), "envtool");
    EXPECT_EQ(m["tools"][0]["params"]["level"].as<std::string>(), "7");
    EXPECT_EQ(m["tools"][1]["name"].as<std::string>(), "ticker");
    EXPECT_EQ(m["env_diff"]["ENVTOOL_LEVEL"].as<std::string>(), "7");
    EXPECT_EQ(m["env_diff"]["API_TOKEN"].as<std::string>(), "<redacted>");
    EXPECT_GT(m["clocks"]["realtime_ns"].as<int64_t>(), 1700000000000000000LL);
    EXPECT_GT(m["clocks"]["boottime_ns"].as<int64_t>(), 0);
    EXPECT_FALSE(m["end"].IsNull());
    bool sawTicks = false;
    for (const auto& f : m["files"]) {
        const std::string path = f["path"].as<std::string>();
        EXPECT_EQ(f["size"].as<uint64_t>(), fs::file_size(run / path)) << path;
        if (path == "ticks.txt") {
            sawTicks = true;
            EXPECT_EQ(f["tool"].as<std::string>(), "ticker");
        }
    }
    EXPECT_TRUE(sawTicks);
}

TEST(Session, AFailingWorkloadIsAFailedRunWithItsStatus) {
    SessionTempDir d;
    const ToolCatalog c = testCatalog(d);
    std::atomic<int> stop{0};
    SessionOptions o = options(d.path / "run", {"sh", "-c", "echo partial > part.txt; exit 3"});
    o.cwd = d.path.string();
    o.tools = {{"ticker", {}}};
    const SessionResult r = runSession(o, c, stop);
    EXPECT_EQ(r.status, "failed");
    EXPECT_EQ(r.exitCode, 3);
    const YAML::Node m = YAML::LoadFile((d.path / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "failed");
    EXPECT_EQ(m["exit"]["code"].as<int>(), 3);
    EXPECT_TRUE(fs::exists(d.path / "run" / "ticks.txt"));  // what the sampler collected is kept
}

TEST(Session, CancelStopsEveryProcessIncludingOnesThatIgnoreSigterm) {
    SessionTempDir d;
    const ToolCatalog c = testCatalog(d);
    std::atomic<int> stop{0};
    const fs::path run = d.path / "run";
    // The workload leaves a grandchild in a session of its own (setsid) that ignores SIGTERM.
    SessionOptions o = options(run, {"sh", "-c",
                                     "setsid sh -c 'trap \"\" TERM; echo $$ > " + (d.path / "grandchild.pid").string() +
                                         "; sleep 30' & sleep 30"});
    o.tools = {{"stubborn", {}}, {"ticker", {}}};
    std::thread canceller([&] {
        for (int i = 0; i < 250 && !(fs::exists(d.path / "grandchild.pid") && fs::exists(run / "stubborn.pid")); ++i)
            std::this_thread::sleep_for(20ms);
        std::this_thread::sleep_for(100ms);
        stop.store(SIGTERM);
    });
    const SessionResult r = runSession(o, c, stop);
    canceller.join();
    EXPECT_EQ(r.status, "cancelled");
    EXPECT_EQ(r.exitCode, 143);
    const pid_t grandchild = std::atoi(readAll(d.path / "grandchild.pid").c_str());
    const pid_t stubborn = std::atoi(readAll(run / "stubborn.pid").c_str());
    ASSERT_GT(grandchild, 0);
    ASSERT_GT(stubborn, 0);
    EXPECT_FALSE(alive(grandchild));
    EXPECT_FALSE(alive(stubborn));
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
    const YAML::Node m = YAML::LoadFile((run / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "cancelled");
    EXPECT_TRUE(readAll(run / "ticks.txt").ends_with("bye\n"));
}

TEST(Session, RecordedDevicesComeFromTheOverrideFile) {
    SessionTempDir d;
    d.write("amd.yaml", "gpus:\n  - {vendor: AMD, name: AMD Instinct MI300X, arch: gfx942}\n");
    setenv("STROBE_DEVICE_INFO", (d.path / "amd.yaml").c_str(), 1);
    DeviceReport r = probeDevices();
    ASSERT_EQ(r.gpus.size(), 1u);
    EXPECT_EQ(r.gpus[0].vendor, "AMD");
    EXPECT_EQ(r.gpus[0].arch, "gfx942");
    d.write("bad.yaml", "gpus:\n  - {vendor: Intel, name: Arc}\n");
    setenv("STROBE_DEVICE_INFO", (d.path / "bad.yaml").c_str(), 1);
    r = probeDevices();
    EXPECT_TRUE(r.gpus.empty());
    EXPECT_NE(r.message.find("bad.yaml: line 2: vendor must be AMD or NVIDIA"), std::string::npos) << r.message;
    unsetenv("STROBE_DEVICE_INFO");
}

// A short workload does not outrun a slow sampler: it starts once the sidecar has written its first output, so the
// sampler's file holds what it saw (under ASan, strobe-cli's own CPU sampler took longer to start than `sleep 1`).
TEST(Session, TheWorkloadStartsOnceTheSidecarsHaveBegun) {
    SessionTempDir d;
    const ToolCatalog c = testCatalog(d);
    std::atomic<int> stop{0};
    const fs::path run = d.path / "run";
    SessionOptions o = options(run, {"cat", (run / "slow.txt").string()});
    o.tools = {{"slowstart", {}}};
    const SessionResult r = runSession(o, c, stop);
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_EQ(readAll(run / "workload.log"), "began\n");  // the workload saw the sidecar's first line
    EXPECT_TRUE(r.manifest.messages.empty()) << r.manifest.messages.front();
}

TEST(Session, ASidecarThatWritesNothingDelaysTheWorkloadOnlyUpToItsLimitAndIsNoted) {
    SessionTempDir d;
    const ToolCatalog c = testCatalog(d);
    std::atomic<int> stop{0};
    SessionOptions o = options(d.path / "run", {"true"});
    o.tools = {{"silent", {}}};
    o.sidecarStart = 300ms;
    const auto t0 = std::chrono::steady_clock::now();
    const SessionResult r = runSession(o, c, stop);
    // It never wrote what it declares: the run is incomplete (issue 23), and says why.
    ASSERT_EQ(r.status, "incomplete") << r.reason;
    EXPECT_EQ(r.exitCode, kIncompleteExit);
    EXPECT_EQ(r.manifest.statusReason, "silent wrote no trace: no non-empty file matches never.txt in the run directory");
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 300ms);  // it did wait: an ordering fact, not a timing target
    ASSERT_EQ(r.manifest.messages.size(), 1u);
    EXPECT_NE(r.manifest.messages[0].find("sidecar silent wrote nothing in its first 300 ms"), std::string::npos)
        << r.manifest.messages[0];
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// An env tool asked for whose workload never honours it (the torch-profiler case): incomplete with the spec's hint,
// in the manifest as written; a failed workload with the same tool stays failed, the missing output noted.
TEST(Session, AToolThatWroteNothingMakesTheRunIncompleteWithItsReason) {
    SessionTempDir d;
    d.write("tools/tracer.yaml", R"(name: tracer
kind: env
env: {TRACER_DIR: "{out}/trace"}
outputs: [{glob: "trace/*.json", format: json}, {glob: "trace/*", format: aux}]
no_output_hint: the workload must call the tracer
)");
    const ToolCatalog c = loadToolCatalog({(d.path / "tools").string()});
    std::atomic<int> stop{0};
    SessionOptions o = options(d.path / "run", {"sh", "-c", "mkdir -p \"$TRACER_DIR\"; echo x > \"$TRACER_DIR/aux.txt\""});
    o.tools = {{"tracer", {}}};
    const SessionResult r = runSession(o, c, stop);
    ASSERT_EQ(r.status, "incomplete") << r.reason;
    EXPECT_EQ(r.exitCode, kIncompleteExit);
    const std::string why =
        "tracer wrote no trace: no non-empty file matches trace/*.json in the run directory (the workload must call the tracer)";
    EXPECT_EQ(r.manifest.statusReason, why);
    const YAML::Node m = YAML::LoadFile((d.path / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "incomplete");
    EXPECT_EQ(m["status_reason"].as<std::string>(), why);
    EXPECT_EQ(m["exit"]["code"].as<int>(), 0);

    SessionOptions f = options(d.path / "run2", {"sh", "-c", "echo one; echo two; exit 5"});
    f.tools = {{"tracer", {}}};
    std::string streamed;
    f.output = [&](std::string_view s) { streamed += s; };
    const SessionResult rf = runSession(f, c, stop);
    EXPECT_EQ(rf.status, "failed");
    EXPECT_EQ(rf.exitCode, 5);
    EXPECT_EQ(rf.manifest.failure, "one\ntwo");
    EXPECT_EQ(streamed, "one\ntwo\n");
    ASSERT_EQ(rf.manifest.messages.size(), 1u);
    EXPECT_EQ(rf.manifest.messages[0].rfind("tracer wrote no trace", 0), 0u) << rf.manifest.messages[0];
    EXPECT_EQ(YAML::LoadFile((d.path / "run2" / "manifest.yaml").string())["failure"].as<std::string>(), "one\ntwo");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// A log that lives in workload.log (miopen-log, tensile-log, with the shipped specs) counts as written only when
// the workload's output holds the library's line: workload.log exists after every run, so its presence proved
// nothing, and a run whose workload never called MIOpen ended `completed`. The marker may straddle read blocks.
TEST(Session, ALogInsideWorkloadLogCountsOnlyWhenTheLibraryWroteIt) {
    SessionTempDir d;
    d.write("amd.yaml", "gpus:\n  - {vendor: AMD, name: AMD Instinct MI300X, arch: gfx942}\n");
    setenv("STROBE_DEVICE_INFO", (d.path / "amd.yaml").c_str(), 1);  // the AMD tools are refused without an AMD GPU
    const ToolCatalog c = loadToolCatalog({strobe::core::resourcePath("tools").string()});
    std::atomic<int> stop{0};
    SessionOptions quiet = options(d.path / "quiet", {"sh", "-c", "echo training; echo done"});
    quiet.tools = {{"miopen-log", {}}, {"tensile-log", {}}};
    const SessionResult q = runSession(quiet, c, stop);
    ASSERT_EQ(q.status, "incomplete") << q.reason;
    EXPECT_EQ(q.exitCode, kIncompleteExit);
    EXPECT_EQ(q.manifest.statusReason,
              "miopen-log wrote no trace: no file matching workload.log in the run directory holds \"MIOpenDriver\" "
              "(the workload made no MIOpen call, or its MIOpen was built without logging); tensile-log wrote no trace: "
              "no file matching workload.log in the run directory holds \"Running kernel:\" (the workload made no "
              "Tensile call (hipBLASLt or another library may have run its GEMMs))");

    // 65,484 bytes of the workload's own output first, so "MIOpenDriver" crosses the reader's 64 KiB block boundary.
    SessionOptions loud = options(d.path / "loud", {"sh", "-c",
        "head -c 65483 /dev/zero | tr '\\0' x; echo; "
        "echo 'MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 3 -H 8 -W 8 -k 4 -y 3 -x 3 -F 1'; "
        "echo 'Running kernel: Cijk_Ailk_Bljk_SB_MT064x032x32'"});
    loud.tools = {{"miopen-log", {}}, {"tensile-log", {}}};
    const SessionResult l = runSession(loud, c, stop);
    EXPECT_EQ(l.status, "completed") << l.manifest.statusReason;
    EXPECT_EQ(l.exitCode, 0);
    unsetenv("STROBE_DEVICE_INFO");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

}  // namespace
