// The typed launch request (issue 23, collectors/launch_request.h): what the workbench's launcher writes
// (launchArgv) is what strobe-cli reads (its own option table and parser, parseLaunchCommandLine), field for field;
// the one validator (launchProblems) names each problem, and strobe-cli refuses what it names before anything starts.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/cli/cmd_collect.h"
#include "collectors/device_info.h"
#include "collectors/launch_request.h"
#include "collectors/process_tree.h"
#include "collectors/tool_spec.h"
#include "tests/test_paths.h"

using namespace strobe;

namespace {

void expectSameRequest(const collectors::LaunchRequest& a, const collectors::LaunchRequest& b) {
    EXPECT_EQ(a.command, b.command);
    EXPECT_EQ(a.env, b.env);
    ASSERT_EQ(a.tools.size(), b.tools.size());
    for (size_t i = 0; i < a.tools.size(); ++i) {
        EXPECT_EQ(a.tools[i].name, b.tools[i].name);
        EXPECT_EQ(a.tools[i].values.size(), b.tools[i].values.size()) << a.tools[i].name;
    }
    ASSERT_EQ(a.grid.size(), b.grid.size());
    for (size_t i = 0; i < a.grid.size(); ++i) {
        EXPECT_EQ(a.grid[i].key, b.grid[i].key);
        EXPECT_EQ(a.grid[i].values, b.grid[i].values);
    }
    EXPECT_EQ(a.repeats, b.repeats);
    EXPECT_EQ(a.interleaved, b.interleaved);
    EXPECT_EQ(a.outDir, b.outDir);
    EXPECT_EQ(a.python, b.python);
    EXPECT_EQ(a.slurm, b.slurm);
    EXPECT_EQ(a.slurmArgs, b.slurmArgs);
    EXPECT_DOUBLE_EQ(a.delaySeconds, b.delaySeconds);
    EXPECT_DOUBLE_EQ(a.durationSeconds, b.durationSeconds);
    EXPECT_EQ(a.gpuTelemetry, b.gpuTelemetry);
    EXPECT_EQ(a.cpuTelemetry, b.cpuTelemetry);
    EXPECT_EQ(a.host, b.host);
    EXPECT_EQ(a.remoteStrobeCli, b.remoteStrobeCli);
}

}  // namespace

TEST(LaunchRequest, WhatTheLauncherWritesIsWhatStrobeCliReads) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    collectors::LaunchRequest r;
    r.command = {"/usr/bin/python3", "train.py", "--bs", "{bs}", "{\"json\": {{1}}"};
    r.env = {{"OMP_NUM_THREADS", "4"}, {"NAME", "a b=c"}};
    // Parameters that differ from the spec's defaults (cpu-sampler rate_hz 10, torch-profiler active 3) travel as
    // text; strobe-cli reads them back as text and coerces them by the spec when the session starts.
    r.tools = {{"cpu-sampler", {{"rate_hz", std::string("20")}}}, {"torch-profiler", {{"active", std::string("5")}}}};
    r.grid = {{"bs", {"32", "64"}}, {"threads", {"1", "2"}}};
    r.repeats = 3;
    r.interleaved = true;
    r.outDir = "/tmp/sweep dir";
    r.python = "/opt/venv/bin/python";
    r.slurm = true;
    r.slurmArgs = {"--partition=debug", "--time=00:10:00"};
    r.delaySeconds = 2.5;
    r.durationSeconds = 10;
    r.gpuTelemetry = true;
    r.cpuTelemetry = true;
    const std::vector<std::string> argv = collectors::launchArgv(r, catalog);
    const std::vector<std::string> expected{
        "sweep", "launch", "--grid", "bs=32,64", "--grid", "threads=1,2", "--repeats", "3", "--order", "interleaved",
        "--out", "/tmp/sweep dir", "--tool", "cpu-sampler", "--tool-param", "cpu-sampler.rate_hz=20", "--tool",
        "torch-profiler", "--tool-param", "torch-profiler.active=5", "--env", "OMP_NUM_THREADS=4", "--env", "NAME=a b=c",
        "--python", "/opt/venv/bin/python", "--slurm", "--slurm-arg", "--partition=debug", "--slurm-arg",
        "--time=00:10:00", "--delay", "2.5", "--duration", "10", "--gpu-telemetry", "--cpu-telemetry", "--",
        "/usr/bin/python3", "train.py", "--bs", "{bs}", "{\"json\": {{1}}"};
    EXPECT_EQ(argv, expected);
    auto back = app::parseLaunchCommandLine(argv);
    ASSERT_TRUE(back) << back.error().message;
    expectSameRequest(r, *back);
    EXPECT_EQ(back->tools[0].values.at("rate_hz"), core::ParamValue(std::string("20")));
    EXPECT_TRUE(collectors::launchProblems(*back, catalog).empty());

    // A single run to a host: collect, and the remote flags instead of Slurm.
    collectors::LaunchRequest c;
    c.command = {"/bin/true"};
    c.outDir = "/tmp/o";
    c.host = "alice@gpu-node:2222";
    c.remoteStrobeCli = "/opt/strobe/bin/strobe-cli";
    const auto cargv = collectors::launchArgv(c, catalog);
    EXPECT_EQ(cargv, (std::vector<std::string>{"collect", "--out", "/tmp/o", "--host", "alice@gpu-node:2222",
                                               "--remote-strobe-cli", "/opt/strobe/bin/strobe-cli", "--", "/bin/true"}));
    auto cback = app::parseLaunchCommandLine(cargv);
    ASSERT_TRUE(cback) << cback.error().message;
    expectSameRequest(c, *cback);
}

// One sentence per problem, in the documented order.
TEST(LaunchRequest, TheOneValidatorNamesEachProblem) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    collectors::LaunchRequest r;
    r.tools = {{"no-such-tool", {}}, {"cpu-sampler", {{"rate_hz", std::string("fast")}, {"colour", std::string("red")}}}};
    r.env = {{"", "1"}};
    r.grid = {{"bs", {}}, {"n", {"1"}}, {"n", {"2"}}};
    r.slurmArgs = {"--exclusive"};
    r.host = "gpu-node:port";
    const auto problems = collectors::launchProblems(r, catalog);
    ASSERT_EQ(problems.size(), 10u);
    EXPECT_EQ(problems[0], "Enter the command to profile.");
    EXPECT_EQ(problems[1], "Choose an output directory.");
    EXPECT_EQ(problems[2], "Unknown tool no-such-tool.");
    EXPECT_EQ(problems[3], "Tool cpu-sampler has no parameter 'colour'.");
    EXPECT_NE(problems[4].find("Tool cpu-sampler: "), std::string::npos) << problems[4];
    EXPECT_NE(problems[4].find("fast"), std::string::npos) << problems[4];
    EXPECT_EQ(problems[5], "Environment variable '=1': the name must be non-empty and without '='.");
    EXPECT_EQ(problems[6], "Sweep row 'bs': give a name and comma-separated values.");
    EXPECT_EQ(problems[7], "Sweep key n appears twice.");
    EXPECT_EQ(problems[8], "--slurm-arg needs --slurm.");
    EXPECT_NE(problems[9].find("the port 'port' is not a number"), std::string::npos) << problems[9];

    collectors::LaunchRequest p;
    p.command = {"/bin/echo", "{bs}"};
    p.outDir = "/tmp/o";
    EXPECT_EQ(collectors::launchProblems(p, catalog),
              (std::vector<std::string>{
                  "Command argument 2 '{bs}': {bs} is not a --grid key (keys: none); write {{bs} for a literal brace."}));
    p.command = {"/bin/echo", "{{bs}", "{ not ident }", "${1}"};
    EXPECT_TRUE(collectors::launchProblems(p, catalog).empty());
}

// strobe-cli's reading of an ill-formed row names the option and the value (strobe-cli collect exits 2 with it:
// cli.collect.bad_env; an unreplaced placeholder: cli.collect.unreplaced).
TEST(LaunchRequest, ParseErrorsNameTheOptionAndValue) {
    auto parsed = app::parseLaunchCommandLine({"collect", "--out", "/tmp/o", "--env", "=x", "--", "/bin/true"});
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().message, "--env '=x': expected KEY=VALUE");
    parsed = app::parseLaunchCommandLine({"collect", "--out", "/tmp/o", "--tool-param", "nodot", "--", "/bin/true"});
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().message, "--tool-param 'nodot': expected NAME.KEY=VALUE");
    parsed = app::parseLaunchCommandLine({"status"});
    EXPECT_FALSE(parsed);
}

// Which GPUs were found, or why none: one line for people (identical devices counted), and strobe-cli tools says it
// (text and --json) from the same probe --gpu-telemetry uses; a recorded machine stands in for the GPUs
// (STROBE_DEVICE_INFO, the documented override).
TEST(LaunchRequest, ToolsSayWhichGpusWereFound) {
    collectors::DeviceReport none;
    none.message = "no GPU found (HSA: not initialised; nvidia-smi: none)";
    EXPECT_EQ(collectors::describeDevices(none), none.message);
    collectors::DeviceReport two;
    two.gpus = {{"AMD", "AMD Instinct MI300X", "gfx942", "hsa"}, {"AMD", "AMD Instinct MI300X", "gfx942", "hsa"},
                {"NVIDIA", "NVIDIA H100", "sm_90", "nvidia-smi"}};
    EXPECT_EQ(collectors::describeDevices(two),
              "2 \u00d7 AMD AMD Instinct MI300X (gfx942, hsa); 1 \u00d7 NVIDIA NVIDIA H100 (sm_90, nvidia-smi)");

    char tmpl[] = "/tmp/strobe-gpus-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    const std::string file = dir + "/devices.yaml";
    std::ofstream(file) << "gpus: [{vendor: AMD, name: AMD Instinct MI300X, arch: gfx942}, "
                           "{vendor: AMD, name: AMD Instinct MI300X, arch: gfx942}]\n";
    collectors::ProcessSpec ps;
    ps.env = {{"STROBE_DEVICE_INFO", file}};
    ps.argv = {STROBE_CLI_PATH, "tools", "--json"};
    auto json = collectors::runCaptured(ps, std::chrono::seconds(120));
    ASSERT_TRUE(json) << json.error().message;
    EXPECT_NE(json->out.find("\"gpus\": [{\"vendor\": \"AMD\", \"name\": \"AMD Instinct MI300X\", \"arch\": \"gfx942\""),
              std::string::npos)
        << json->out;
    EXPECT_NE(json->out.find("\"gpu_message\": null"), std::string::npos) << json->out;
    ps.argv = {STROBE_CLI_PATH, "tools"};
    auto text = collectors::runCaptured(ps, std::chrono::seconds(120));
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_EQ(text->out.substr(0, text->out.find('\n')), "GPUs: 2 \u00d7 AMD AMD Instinct MI300X (gfx942, " + file + ")");
    std::ofstream(file) << "gpus: []\n";
    text = collectors::runCaptured(ps, std::chrono::seconds(120));
    ASSERT_TRUE(text);
    EXPECT_EQ(text->out.substr(0, text->out.find('\n')), "GPUs: no GPU (recorded in " + file + ")");
    std::filesystem::remove_all(dir);
}
