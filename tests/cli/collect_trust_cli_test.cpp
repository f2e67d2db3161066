// strobe-cli collect you can trust (issue 23), the strobe-cli binary end to end on real Python workloads
// (/usr/bin/python3): a tool that was asked for and wrote nothing makes the run incomplete with its reason (stderr,
// manifest, exit 4); the workload's output streams to stdout while it runs (and --quiet stops it), a failed run's
// last lines are on stderr and in the manifest's failure:. Each test then reads the process table: nothing is left.
// The scripts are written by the tests; what they print is what is expected.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "collectors/process_tree.h"
#include "core/model/run_manifest.h"
#include "core/sweep/sweep_discovery.h"
#include "tests/have_torch.h"
#include "tests/leftover_processes.h"
#include "tests/test_paths.h"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct TrustDir {
    fs::path path;
    TrustDir() {
        char tmpl[] = "/tmp/strobe-trust-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TrustDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    fs::path write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name) << text;
        return path / name;
    }
};

std::string trustRead(const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct TrustRun {
    std::unique_ptr<strobe::collectors::ProcessTree> tree;
    fs::path out, err;
};

// strobe-cli ARGS with its stdout and stderr into files of `d`.
TrustRun startTrust(const TrustDir& d, std::vector<std::string> args) {
    strobe::collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH};
    ps.argv.insert(ps.argv.end(), args.begin(), args.end());
    TrustRun r{nullptr, d.path / "cli.out", d.path / "cli.err"};
    ps.stdoutPath = r.out.string();
    ps.stderrPath = r.err.string();
    ps.env["PYTHONUNBUFFERED"] = "";  // unset: as a user's shell has it, so that strobe-cli's own setting is tested
    auto t = strobe::collectors::ProcessTree::start(ps);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    if (t.ok()) r.tree = std::move(*t);
    return r;
}

int finishTrust(TrustRun& r) {
    if (!r.tree) return -1;
    const auto exit = r.tree->wait(180s);
    EXPECT_TRUE(exit.has_value());
    return exit ? exit->status : -1;
}

// A tool asked for that writes nothing: torch-profiler in steps mode on a script with no optimizer (the hook profiles
// an unmodified script by its optimizer's steps; with none, only the time window, which mode=steps turns off). The
// workload exits 0; the run is incomplete, with the reason on stderr and in the manifest, and strobe-cli exits 4.
TEST(CollectTrust, ATorchScriptWithNoProfiledStepIsIncompleteWithItsReason) {
    if (!strobe::test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed";
    TrustDir d;
    const fs::path script = d.write("no_helper.py", "import torch\nprint('sum', int(torch.ones(3).sum()))\n");
    TrustRun r = startTrust(d, {"collect", "--out", (d.path / "run").string(), "--tool", "torch-profiler",
                                "--tool-param", "torch-profiler.mode=steps", "--", "/usr/bin/python3", script.string()});
    EXPECT_EQ(finishTrust(r), 4) << trustRead(r.err);
    const std::string err = trustRead(r.err);
    EXPECT_NE(err.find("strobe-cli collect: incomplete: torch-profiler wrote no trace: no non-empty file matches "
                       "torch/*trace*.json"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("strobe_torch.profile()"), std::string::npos) << err;  // the hint from the spec
    EXPECT_EQ(trustRead(r.out), "sum 3\n");  // the workload's output streamed through
    const YAML::Node m = YAML::LoadFile((d.path / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "incomplete");
    EXPECT_EQ(m["exit"]["code"].as<int>(), 0);
    EXPECT_NE(m["status_reason"].as<std::string>().find("torch-profiler wrote no trace"), std::string::npos);
    EXPECT_EQ(trustRead(d.path / "run" / "workload.log"), "sum 3\n");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// A script that prints 25 lines and exits 2: every line streams to stdout, the last 20 are on stderr after the
// run and in the manifest's failure:, the first 5 are not.
TEST(CollectTrust, AFailedRunShowsItsLastLinesOnStderrAndInTheManifest) {
    TrustDir d;
    const fs::path script =
        d.write("fail.py", "import sys\nfor i in range(1, 26):\n    print(f'line {i}')\nsys.exit(2)\n");
    TrustRun r = startTrust(d, {"collect", "--out", (d.path / "run").string(), "--", "/usr/bin/python3", script.string()});
    EXPECT_EQ(finishTrust(r), 2);
    std::string all, last20;
    for (int i = 1; i <= 25; ++i) {
        all += "line " + std::to_string(i) + "\n";
        if (i > 5) last20 += (last20.empty() ? "" : "\n") + std::string("line ") + std::to_string(i);
    }
    EXPECT_EQ(trustRead(r.out), all);
    EXPECT_EQ(trustRead(d.path / "run" / "workload.log"), all);
    const std::string err = trustRead(r.err);
    EXPECT_NE(err.find("failed (exit 2); the workload's last lines (workload.log):\n  | line 6\n"), std::string::npos)
        << err;
    EXPECT_NE(err.find("  | line 25\n"), std::string::npos) << err;
    EXPECT_EQ(err.find("line 5\n"), std::string::npos) << err;
    const YAML::Node m = YAML::LoadFile((d.path / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "failed");
    EXPECT_EQ(m["failure"].as<std::string>(), last20);
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

TEST(CollectTrust, QuietKeepsTheOutputInTheLogOnly) {
    TrustDir d;
    const fs::path script = d.write("hello.py", "print('hello')\n");
    TrustRun r = startTrust(d, {"collect", "--quiet", "--out", (d.path / "run").string(), "--", "/usr/bin/python3",
                                script.string()});
    EXPECT_EQ(finishTrust(r), 0) << trustRead(r.err);
    EXPECT_EQ(trustRead(r.out), "");
    EXPECT_EQ(trustRead(d.path / "run" / "workload.log"), "hello\n");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// Live, not at the end: the script prints, then waits for a file the test writes only once that line has reached
// strobe-cli's stdout.
TEST(CollectTrust, TheWorkloadsOutputStreamsWhileItRuns) {
    TrustDir d;
    const fs::path go = d.path / "go";
    const fs::path script = d.write(
        "wait.py", "import os, time\nprint('waiting', flush=False)\nwhile not os.path.exists('" + go.string() +
                       "'):\n    time.sleep(0.02)\nprint('done')\n");
    TrustRun r = startTrust(d, {"collect", "--out", (d.path / "run").string(), "--", "/usr/bin/python3", script.string()});
    ASSERT_TRUE(r.tree);
    bool seen = false;
    for (int i = 0; i < 3000 && !seen; ++i) {
        seen = trustRead(r.out) == "waiting\n";
        if (!seen) std::this_thread::sleep_for(20ms);
    }
    EXPECT_TRUE(seen) << trustRead(r.out);
    EXPECT_TRUE(r.tree->poll());  // still running: the line came while the workload waited
    std::ofstream(go) << "1";
    EXPECT_EQ(finishTrust(r), 0) << trustRead(r.err);
    EXPECT_EQ(trustRead(r.out), "waiting\ndone\n");
    // PYTHONUNBUFFERED=1 made Python write as it went; the manifest says so.
    const YAML::Node m = YAML::LoadFile((d.path / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["env_diff"]["PYTHONUNBUFFERED"].as<std::string>(), "1");
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// Sweep discovery lists an incomplete run with its reason and leaves it out; --include-incomplete keeps it.
TEST(CollectTrust, DiscoveryComparesIncompleteRunsOnlyWhenAskedTo) {
    TrustDir d;
    auto run = [&](const std::string& name, strobe::core::RunStatus status, const std::string& reason) {
        strobe::core::RunManifest m;
        m.command = {"python3", "train.py"};
        m.parameters = strobe::core::typedParameters({{"bs", name}});
        m.status = status;
        m.statusReason = reason;
        m.exitCode = 0;
        fs::create_directories(d.path / ("bs=" + name));
        ASSERT_TRUE(strobe::core::writeRunManifest((d.path / ("bs=" + name)).string(), m).ok());
    };
    run("32", strobe::core::RunStatus::Completed, "");
    run("64", strobe::core::RunStatus::Incomplete, "torch-profiler wrote no trace: no non-empty file matches x");
    const auto plain = strobe::core::sweep::discoverSweep({d.path.string()});
    ASSERT_EQ(plain.runs.size(), 1u);
    std::string messages;
    for (const auto& m : plain.messages) messages += m + "\n";
    EXPECT_NE(messages.find("bs=64: skipped, its manifest says status: incomplete (torch-profiler wrote no trace: no "
                            "non-empty file matches x); --include-incomplete compares it"),
              std::string::npos)
        << messages;
    const auto all = strobe::core::sweep::discoverSweep({d.path.string()}, {}, {}, true);
    EXPECT_EQ(all.runs.size(), 2u);
    messages.clear();
    for (const auto& m : all.messages) messages += m + "\n";
    EXPECT_NE(messages.find("bs=64: included although incomplete (torch-profiler wrote no trace"), std::string::npos)
        << messages;
}

}  // namespace
