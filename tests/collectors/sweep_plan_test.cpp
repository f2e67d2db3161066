// Safe sweeps (issue 23): the sweep launcher records its plan (command, tools and parameters, grid, repeats) in
// sweep.yaml, resumes only the same plan and says what differs otherwise; a directory of an older launch (no plan
// recorded) is checked against every run's manifest; an unreplaced {IDENT} in the command is refused before
// anything starts. Real sessions of sh, the process table read afterwards.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "collectors/sweep_launch.h"
#include "collectors/tool_spec.h"
#include "tests/leftover_processes.h"

using namespace strobe::collectors;
namespace fs = std::filesystem;

namespace {

struct PlanDir {
    fs::path path;
    PlanDir() {
        char tmpl[] = "/tmp/strobe-sweepplan-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~PlanDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

ToolCatalog planCatalog(const PlanDir& d) {
    fs::create_directories(d.path / "tools");
    std::ofstream(d.path / "tools" / "leveltool.yaml") << R"(name: leveltool
kind: env
env: {LEVEL: "{level}"}
params:
  - {key: level, label: Level, tooltip: How much, type: int, default: 2, min: 0, max: 9, step: 1}
)";
    return loadToolCatalog({(d.path / "tools").string()});
}

SessionOptions planBase(std::vector<std::string> command) {
    SessionOptions o;
    o.command = std::move(command);
    o.grace = std::chrono::milliseconds(500);
    return o;
}

SweepLaunchResult launchPlan(const PlanDir& d, const SessionOptions& base, const ToolCatalog& c, int repeats = 1,
                             std::vector<std::string> values = {"1", "2"}) {
    std::atomic<int> stop{0};
    return launchSweep((d.path / "sweep").string(), {{"n", values}}, repeats, false, base, c, stop);
}

TEST(SweepPlan, BracesExpandGridKeysOnlyAndAnUnreplacedNameIsAnError) {
    std::vector<std::string> out;
    std::string error;
    ASSERT_TRUE(expandSweepCommand({"run", "--bs={bs}", "{{bs}", R"({"a": {"b": 1}})", "{", "{}", "x{bs}y{bs}"},
                                   {{"bs", "64"}}, out, error))
        << error;
    EXPECT_EQ(out, (std::vector<std::string>{"run", "--bs=64", "{bs}", R"({"a": {"b": 1}})", "{", "{}", "x64y64"}));
    EXPECT_FALSE(expandSweepCommand({"run", "--lr={lr}"}, {{"bs", "64"}}, out, error));
    EXPECT_EQ(error, "argument 2 '--lr={lr}': {lr} is not a --grid key (keys: bs); write {{lr} for a literal brace");
}

TEST(SweepPlan, AnUnreplacedNameIsRefusedBeforeAnythingStarts) {
    PlanDir d;
    const ToolCatalog c = planCatalog(d);
    const auto r = launchPlan(d, planBase({"sh", "-c", "echo {n} {m}"}), c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("{m} is not a --grid key (keys: n)"), std::string::npos) << r.refusal;
    EXPECT_FALSE(fs::exists(d.path / "sweep"));
}

TEST(SweepPlan, ResumeRunsTheRecordedPlanAndRefusesAnotherSayingWhatDiffers) {
    PlanDir d;
    const ToolCatalog c = planCatalog(d);
    SessionOptions base = planBase({"sh", "-c", "echo {n}"});
    base.tools = {{"leveltool", {}}};
    auto first = launchPlan(d, base, c);
    ASSERT_EQ(first.exitCode, 0) << first.refusal;
    EXPECT_EQ(first.completed, 2);
    const auto recorded = strobe::core::readSweepFile((d.path / "sweep").string());
    ASSERT_TRUE(recorded.ok());
    ASSERT_TRUE(recorded->plan.has_value());
    EXPECT_EQ(recorded->plan->command, (std::vector<std::string>{"sh", "-c", "echo {n}"}));
    ASSERT_EQ(recorded->plan->tools.size(), 1u);
    EXPECT_EQ(recorded->plan->tools[0].params.at("level"), "2");  // the default, recorded
    EXPECT_EQ(recorded->plan->repeats, 1);

    SessionOptions other = base;
    other.command = {"sh", "-c", "echo {n}; echo more"};
    auto r = launchPlan(d, other, c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("holds a sweep with another plan: command [sh -c echo {n}; echo more] (recorded: [sh -c "
                             "echo {n}])"),
              std::string::npos)
        << r.refusal;
    other = base;
    other.tools[0].values["level"] = strobe::core::ParamValue(int64_t(3));
    r = launchPlan(d, other, c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("tools leveltool(level=3) (recorded: leveltool(level=2))"), std::string::npos) << r.refusal;
    r = launchPlan(d, base, c, 2);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("repeats 2 (recorded: 1)"), std::string::npos) << r.refusal;
    r = launchPlan(d, base, c, 1, {"1", "3"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("grid n=1,3 (recorded: n=1,2)"), std::string::npos) << r.refusal;
    EXPECT_EQ(r.completed + r.failed + r.skipped, 0);

    r = launchPlan(d, base, c);  // the same plan: resumes, everything completed before
    EXPECT_EQ(r.exitCode, 0) << r.refusal;
    EXPECT_EQ(r.skipped, 2);
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

// A sweep launched before plans were recorded: its manifests decide, and the plan is recorded once they agree.
TEST(SweepPlan, ADirectoryWithoutARecordedPlanIsCheckedAgainstEachManifest) {
    PlanDir d;
    const ToolCatalog c = planCatalog(d);
    SessionOptions base = planBase({"sh", "-c", "echo {n}"});
    ASSERT_EQ(launchPlan(d, base, c).exitCode, 0);
    const std::string sweep = (d.path / "sweep").string();
    auto file = strobe::core::readSweepFile(sweep);
    ASSERT_TRUE(file.ok());
    file->plan.reset();
    ASSERT_TRUE(strobe::core::writeSweepFile(sweep, *file).ok());
    fs::remove_all(d.path / "sweep" / "n=2");  // one run still to do

    SessionOptions other = base;
    other.command = {"sh", "-c", "echo {n} again"};
    auto r = launchPlan(d, other, c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("n=1/rep0: command [sh -c echo 1 again] (its manifest: [sh -c echo 1])"), std::string::npos)
        << r.refusal;
    other = base;
    other.tools = {{"leveltool", {}}};
    r = launchPlan(d, other, c);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.refusal.find("n=1/rep0: tools leveltool(level=2) (its manifest: none)"), std::string::npos) << r.refusal;
    EXPECT_FALSE(strobe::core::readSweepFile(sweep)->plan.has_value());  // nothing recorded for a refused plan

    r = launchPlan(d, base, c);
    EXPECT_EQ(r.exitCode, 0) << r.refusal;
    EXPECT_EQ(r.skipped, 1);
    EXPECT_EQ(r.completed, 1);
    const auto after = strobe::core::readSweepFile(sweep);
    ASSERT_TRUE(after.ok());
    ASSERT_TRUE(after->plan.has_value());
    EXPECT_EQ(after->plan->command, base.command);
    EXPECT_EQ(strobe::test::leftoverProcesses(), "");
}

}  // namespace

namespace {

// The workload's interpreter (issue 23): the command when it is python*, else its file's shebang (torchrun and
// wrapper scripts), else python3 on PATH, and what the session refuses with when the probe fails.
TEST(FindPython, FromTheCommandItsShebangOrPython3) {
    PlanDir d;
    auto script = [&](const std::string& name, const std::string& text) {
        const fs::path p = d.path / name;
        std::ofstream(p) << text;
        fs::permissions(p, fs::perms::owner_all);
        return p.string();
    };
    std::string how;
    EXPECT_EQ(findPython({"/usr/bin/python3.11", "x.py"}, &how), "/usr/bin/python3.11");
    EXPECT_EQ(findPython({"python3", "x.py"}), "python3");
    EXPECT_EQ(findPython({script("direct", "#!/usr/bin/python3 -u\nprint(1)\n")}, &how), "/usr/bin/python3");
    EXPECT_EQ(how, "the shebang of " + (d.path / "direct").string());
    EXPECT_EQ(findPython({script("env", "#!/usr/bin/env -S PYTHONHASHSEED=0 python3.11 -u\n")}), "python3.11");
    // A shell wrapper: the Python its first running line starts; none: python3 on PATH, saying so.
    EXPECT_EQ(findPython({script("shell", "#!/bin/sh\n# a comment\nexport A=1\nOMP_NUM_THREADS=2 exec /usr/bin/python3.11 -u \"$@\"\n")},
                         &how),
              "/usr/bin/python3.11");
    EXPECT_EQ(how, "the Python that the shell script " + (d.path / "shell").string() + " runs");
    EXPECT_EQ(findPython({script("noshell", "#!/bin/bash\nexec ./server \"$@\"\n")}, &how), "python3");
    EXPECT_NE(how.find("names no Python interpreter; give --python PATH"), std::string::npos) << how;
    // torchrun as Debian installs it: #!/usr/bin/python3.11 (read here, not assumed).
    if (fs::exists("/usr/bin/torchrun")) {
        std::ifstream in("/usr/bin/torchrun");
        std::string first;
        std::getline(in, first);
        EXPECT_EQ(findPython({"/usr/bin/torchrun", "--nproc_per_node=2", "train.py"}), first.substr(2));
    }
}

TEST(FindPython, AFailedProbeNamesTheInterpreterAndItsError) {
    PlanDir d;
    fs::create_directories(d.path / "tools");
    std::ofstream(d.path / "tools" / "pytool.yaml") << R"(name: pytool
kind: env
probe: {argv: ["{python}", -c, "import strobe_no_such_module_xyz"]}
)";
    const ToolCatalog c = loadToolCatalog({(d.path / "tools").string()});
    std::atomic<int> stop{0};
    SessionOptions o = planBase({"true"});
    o.outDir = (d.path / "run").string();
    o.tools = {{"pytool", {}}};
    o.python = "/usr/bin/python3";
    const SessionResult r = runSession(o, c, stop);
    EXPECT_EQ(r.status, "refused");
    EXPECT_EQ(r.exitCode, 125);
    EXPECT_NE(r.reason.find("`/usr/bin/python3` exited with 1: ModuleNotFoundError: No module named "
                            "'strobe_no_such_module_xyz' (the interpreter: /usr/bin/python3, given with --python"),
              std::string::npos)
        << r.reason;
    EXPECT_FALSE(fs::exists(d.path / "run"));
}

}  // namespace
