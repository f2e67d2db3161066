// File ▸ Profile a workload… and the Profiling runs dock: the argv a request becomes (expected argv written by
// hand from strobe-cli collect/sweep launch --help and resources/tools/*.yaml), the dialog's validation, and for
// real: a CPU PyTorch training loop (tests/data/workloads/train_mlp.py on Debian's python3-torch, /usr/bin/python3)
// launched from the dock under torch-profiler + cpu-sampler opens in the workbench when it completes; a failing
// command keeps its exit code; Cancel stops strobe-cli and its whole process tree (exit 143, manifest cancelled,
// no process left: /proc is read directly); closing the window cancels what is running.
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QTreeWidget>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/param_editor.h"
#include "app/gui/profile_dialog.h"
#include "app/gui/run_manager.h"
#include "collectors/device_info.h"
#include "collectors/tool_spec.h"
#include "test_support.h"
#include "tests/have_torch.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

using test::haveTorch;

struct TempDir {
    fs::path path;
    TempDir() {
        char tmpl[] = "/tmp/strobe-profile-XXXXXX";
        path = mkdtemp(tmpl);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    QString q(const std::string& sub) const { return QString::fromStdString((path / sub).string()); }
};

struct Proc {
    pid_t pid = 0, ppid = 0;
    std::string comm;
    unsigned long long start = 0;  // field 22 of /proc/PID/stat: tells a reused pid apart
    char state = '?';
};

// Every process in /proc (those that vanish while being read are skipped).
std::vector<Proc> processes() {
    std::vector<Proc> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "stat");
        std::string line;
        if (!std::getline(in, line)) continue;
        const size_t open = line.find('('), close = line.rfind(')');
        if (open == std::string::npos || close == std::string::npos) continue;
        Proc p;
        p.pid = std::stoi(name);
        p.comm = line.substr(open + 1, close - open - 1);
        std::istringstream rest(line.substr(close + 2));
        std::vector<std::string> f{std::istream_iterator<std::string>(rest), std::istream_iterator<std::string>()};
        if (f.size() < 20) continue;
        p.state = f[0][0];
        p.ppid = std::stoi(f[1]);
        p.start = std::stoull(f[19]);  // field 22 overall: 3 + index 19
        out.push_back(p);
    }
    return out;
}

std::vector<Proc> descendantsOf(pid_t root) {
    const auto all = processes();
    std::set<pid_t> tree{root};
    std::vector<Proc> out;
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& p : all)
            if (tree.count(p.ppid) && tree.insert(p.pid).second) {
                out.push_back(p);
                grew = true;
            }
    }
    return out;
}

bool stillThere(const Proc& p) {
    for (const auto& q : processes())
        if (q.pid == p.pid && q.start == p.start) return true;
    return false;
}

std::vector<Proc> childrenOfThisProcess() {
    std::vector<Proc> out;
    for (const auto& p : processes())
        if (p.ppid == getpid()) out.push_back(p);
    return out;
}

// The run's log tail in the dock, and the workload's own output (for failure messages).
std::string tailOf(const app::LaunchRecord* r) {
    std::string s;
    if (!r) return s;
    for (const auto& l : r->tail) s += l.toStdString() + "\n";
    std::ifstream log(fs::path(r->outDir.toStdString()) / "workload.log");
    s += "workload.log:\n" + std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    return s;
}

bool inFlight(const app::LaunchRecord* r) {
    return r && (r->status == app::LaunchStatus::Starting || r->status == app::LaunchStatus::Running ||
                 r->status == app::LaunchStatus::Cancelling);
}

app::ProfileTool tool(const char* name, core::ParamValues values = {}) {
    app::ProfileTool t;
    t.name = QString::fromLatin1(name);
    t.values = std::move(values);
    return t;
}

// The window's Profiling runs dock, launching this build's strobe-cli; no plot opens by itself.
app::LaunchPanel* launchPanelOf(app::MainWindow& w) {
    w.setAutoOpenDefaultPlot(false);
    w.launchPanel()->setStrobeCli(QString::fromUtf8(STROBE_CLI_PATH));
    return w.launchPanel();
}

}  // namespace

// Tools outermost first, each followed by its parameters that differ from the spec's default (cpu-sampler
// rate_hz default 10, torch-profiler wait 1 / active 3 in resources/tools/*.yaml), in key order; the environment in
// table order, --slurm, then the command after --. (The working directory is strobe-cli's own, not an argument.)
TEST(ProfileArgv, CollectWithToolsParametersEnvironmentAndSlurm) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    ASSERT_NE(catalog.find("cpu-sampler"), nullptr);
    ASSERT_NE(catalog.find("torch-profiler"), nullptr);
    app::ProfileRequest r;
    r.command = {"/usr/bin/python3", "train.py", "--lr", "0.1"};
    r.workingDir = "/work/project";
    r.env = {{"OMP_NUM_THREADS", "4"}, {"NAME", "a b=c"}};
    r.tools = {tool("cpu-sampler", {{"rate_hz", 20.0}}),
               tool("torch-profiler", {{"wait", 1LL}, {"active", 5LL}, {"record_shapes", false}})};
    r.outDir = "/tmp/out/run-1";
    r.slurm = true;
    const QStringList expected{"collect", "--out", "/tmp/out/run-1", "--tool", "cpu-sampler", "--tool-param", "cpu-sampler.rate_hz=20",
                               "--tool", "torch-profiler", "--tool-param", "torch-profiler.active=5",
                               "--tool-param", "torch-profiler.record_shapes=false",
                               "--env", "OMP_NUM_THREADS=4", "--env", "NAME=a b=c", "--slurm",
                               "--", "/usr/bin/python3", "train.py", "--lr", "0.1"};
    EXPECT_EQ(app::buildCollectArgv(r, catalog), expected);

    // Defaults only, no environment, no Slurm: nothing but the tools.
    app::ProfileRequest plain;
    plain.command = {"/bin/true"};
    plain.outDir = "/tmp/o";
    plain.tools = {tool("torch-profiler", {{"wait", 1LL}, {"warmup", 1LL}, {"active", 3LL}, {"record_shapes", true}})};
    EXPECT_EQ(app::buildCollectArgv(plain, catalog),
              (QStringList{"collect", "--out", "/tmp/o", "--tool", "torch-profiler", "--", "/bin/true"}));

    // The one-line form the dock shows reads back as the same argv.
    const QStringList args{"/usr/bin/python3", "my script.py", "say \"hi\"", "--lr=0.1", "tab\there"};
    EXPECT_EQ(app::joinCommand(args), QStringLiteral("/usr/bin/python3 \"my script.py\" \"say \"\"\"hi\"\"\"\" --lr=0.1 \"tab\there\""));
    EXPECT_EQ(QProcess::splitCommand(app::joinCommand(args)), args);
}

// A grid makes it `sweep launch`: each axis as --grid KEY=V1,V2 in table order, repeats and order always given.
TEST(ProfileArgv, GridLaunchesASweep) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    app::ProfileRequest r;
    r.command = {"python3", "bench.py", "--bs", "{bs}"};
    r.grid = {{"bs", {"32", "64"}}, {"threads", {"1", "2", "4"}}};
    r.repeats = 3;
    r.interleaved = true;
    r.outDir = "/tmp/sweep";
    r.tools = {tool("cpu-sampler")};
    r.slurm = true;
    EXPECT_EQ(app::buildCollectArgv(r, catalog),
              (QStringList{"sweep", "launch", "--grid", "bs=32,64", "--grid", "threads=1,2,4", "--repeats", "3",
                           "--order", "interleaved", "--out", "/tmp/sweep", "--tool", "cpu-sampler", "--slurm", "--",
                           "python3", "bench.py", "--bs", "{bs}"}));
    r.interleaved = false;
    r.repeats = 1;
    r.slurm = false;
    r.tools.clear();
    EXPECT_EQ(app::buildCollectArgv(r, catalog),
              (QStringList{"sweep", "launch", "--grid", "bs=32,64", "--grid", "threads=1,2,4", "--repeats", "1",
                           "--order", "sequential", "--out", "/tmp/sweep", "--", "python3", "bench.py", "--bs", "{bs}"}));
}

TEST(ProfileArgv, ValidationNamesEachProblem) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    TempDir tmp;
    fs::create_directories(tmp.path / "full");
    std::ofstream(tmp.path / "full" / "x.txt") << "x";
    std::map<QString, app::ToolAvailability> avail;
    avail["cpu-sampler"] = {true, true, "1.0", ""};
    avail["nsys"] = {true, false, "", "nsys not found"};

    app::ProfileRequest ok;
    ok.command = {"/bin/true"};
    ok.outDir = tmp.q("new");
    ok.tools = {tool("cpu-sampler")};
    EXPECT_TRUE(app::validateRequest(ok, catalog, avail).isEmpty()) << app::validateRequest(ok, catalog, avail).join("|").toStdString();

    app::ProfileRequest bad = ok;
    bad.command.clear();
    bad.outDir = tmp.q("full");
    bad.tools = {tool("cpu-sampler"), tool("nsys"), tool("torch-profiler"), tool("no-such-tool")};
    bad.env = {{"", "1"}};
    bad.grid = {{"bs", {}}};
    const QStringList problems = app::validateRequest(bad, catalog, avail);
    ASSERT_EQ(problems.size(), 7) << problems.join("|").toStdString();
    EXPECT_TRUE(problems[0].contains("command"));
    EXPECT_TRUE(problems[1].contains("not empty"));
    EXPECT_TRUE(problems[2].contains("nsys is not available: nsys not found"));
    EXPECT_TRUE(problems[3].contains("Checking whether torch-profiler"));  // its probe has not answered
    EXPECT_TRUE(problems[4].contains("Unknown tool no-such-tool"));
    EXPECT_TRUE(problems[5].contains("Environment variable"));
    EXPECT_TRUE(problems[6].contains("Sweep row 'bs'"));
}

// The dialog: the command line is split into argv (quotes kept together, no shell), the tools are checked in
// list order with their parameters as ParamEditors, and Launch is disabled with the reason while a problem remains.
TEST(ProfileDialog, BuildsTheRequestFromItsWidgets) {
    test::app();
    TempDir tmp;
    core::JobRunner runner(2);
    app::ProfileDialog dialog(QString::fromUtf8(STROBE_CLI_PATH), runner);
    app::ProfileRequest r;
    r.command = {"/bin/true"};
    r.outDir = tmp.q("run");
    r.tools = {tool("torch-profiler"), tool("cpu-sampler")};
    dialog.setRequest(r);
    dialog.commandEdit()->setText(QStringLiteral("/usr/bin/python3 \"my script.py\" --lr 0.1"));
    ASSERT_TRUE(test::waitFor([&] { return dialog.probesDone(); }, 60000));
    // Which GPUs this machine has, or why none (the probe --gpu-telemetry goes by), under the tools.
    ASSERT_TRUE(test::waitFor([&] { return !dialog.gpuText().isEmpty(); }, 60000));
    EXPECT_EQ(dialog.gpuText(), QStringLiteral("GPUs: ") + QString::fromStdString(collectors::describeDevices(collectors::probeDevices())));
    app::ParamEditor* rate = dialog.paramEditor("cpu-sampler", "rate_hz");
    ASSERT_NE(rate, nullptr);
    ASSERT_NE(dialog.paramEditor("torch-profiler", "active"), nullptr);
    rate->setValue(25.0);
    const app::ProfileRequest got = dialog.request();
    EXPECT_EQ(got.command, (QStringList{"/usr/bin/python3", "my script.py", "--lr", "0.1"}));
    ASSERT_EQ(got.tools.size(), 2u);
    EXPECT_EQ(got.tools[0].name, "torch-profiler");  // the order of the list: outermost first
    EXPECT_EQ(got.tools[1].name, "cpu-sampler");
    const QStringList argv = app::buildCollectArgv(got, dialog.catalog());
    EXPECT_TRUE(argv.contains("cpu-sampler.rate_hz=25")) << argv.join(' ').toStdString();
    EXPECT_EQ(got.outDir, tmp.q("run"));
    EXPECT_TRUE(dialog.problems().isEmpty()) << dialog.problems().join("|").toStdString();
    EXPECT_TRUE(dialog.launchButton()->isEnabled());

    dialog.commandEdit()->clear();
    EXPECT_FALSE(dialog.launchButton()->isEnabled());
    ASSERT_FALSE(dialog.problems().isEmpty());
    EXPECT_TRUE(dialog.problems()[0].contains("command")) << dialog.problems().join("|").toStdString();
    // The same interpreter again (its probes stand), and an output directory that is not empty.
    dialog.commandEdit()->setText(QStringLiteral("/usr/bin/python3 x.py"));
    ASSERT_TRUE(test::waitFor([&] { return dialog.probesDone(); }, 60000));
    std::ofstream((tmp.path / "busy.txt").string()) << "x";
    dialog.outDirEdit()->setText(QString::fromStdString(tmp.path.string()));
    EXPECT_FALSE(dialog.launchButton()->isEnabled());
    ASSERT_EQ(dialog.problems().size(), 1) << dialog.problems().join("|").toStdString();
    EXPECT_TRUE(dialog.problems()[0].contains("not empty"));
}

// For real: the training loop under torch-profiler + cpu-sampler, launched from the dock, completes and opens in
// the workbench as File ▸ Open would; the samples column counts cpu.csv's data rows.
TEST(ProfileLaunch, TorchTrainingCompletesAndOpensInTheWorkbench) {
    if (!haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed (.ci/setup installs it)";
    test::app();
    TempDir tmp;
    app::MainWindow w;
    app::LaunchPanel* panel = launchPanelOf(w);

    // The command as a user types it, relative to the working directory (the source tree), with STEPS=5 in the
    // environment table (train_mlp.py trains STEPS steps and says so in its output).
    const QString source = QDir::cleanPath((QString::fromUtf8(STROBE_TEST_DATA_DIR) + QStringLiteral("/../..")));
    app::ProfileDialog dialog(panel->strobeCli(), w.runner(), &w);
    app::ProfileRequest seed;
    seed.tools = {tool("torch-profiler"), tool("cpu-sampler")};
    seed.outDir = tmp.q("run");
    seed.workingDir = source;
    seed.env = {{"STEPS", "5"}};
    dialog.setRequest(seed);
    dialog.commandEdit()->setText(QStringLiteral("/usr/bin/python3 tests/data/workloads/train_mlp.py"));
    ASSERT_TRUE(test::waitFor([&] { return dialog.probesDone(); }, 60000));
    ASSERT_TRUE(dialog.problems().isEmpty()) << dialog.problems().join("|").toStdString();
    ASSERT_TRUE(dialog.launchButton()->isEnabled());
    const app::ProfileRequest request = dialog.request();
    EXPECT_EQ(request.command, (QStringList{"/usr/bin/python3", "tests/data/workloads/train_mlp.py"}));
    EXPECT_EQ(request.workingDir, source);
    ASSERT_EQ(request.env.size(), 1u);

    const int id = panel->launch(request, dialog.catalog());
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(id)); }, 180000)) << tailOf(panel->record(id));
    const app::LaunchRecord* rec = panel->record(id);
    ASSERT_EQ(rec->status, app::LaunchStatus::Completed) << tailOf(rec);
    EXPECT_EQ(rec->exitCode, 0);
    EXPECT_TRUE(rec->openedAutomatically);

    const fs::path run = tmp.path / "run";
    const YAML::Node m = YAML::LoadFile((run / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    EXPECT_EQ(m["tools"][0]["name"].as<std::string>(), "torch-profiler");
    EXPECT_EQ(m["tools"][1]["name"].as<std::string>(), "cpu-sampler");
    EXPECT_EQ(m["cwd"].as<std::string>(), source.toStdString());        // strobe-cli ran there
    EXPECT_EQ(m["env_diff"]["STEPS"].as<std::string>(), "5");           // --env
    std::ifstream log(run / "workload.log");
    const std::string workloadLog((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(workloadLog.find("trained 5 steps"), std::string::npos) << workloadLog;
    // The hook's step lines (schedule wait 1 + warm-up 1 + active 3 = 5) streamed through strobe-cli into the dock,
    // the last one in the run's row.
    EXPECT_NE(workloadLog.find("strobe_torch: rank 0 step 1/5 (wait)"), std::string::npos) << workloadLog;
    EXPECT_EQ(rec->stepText(), panel->list()->topLevelItem(0)->text(4));
    EXPECT_TRUE(rec->stepText().endsWith(QStringLiteral("(active)"))) << rec->stepText().toStdString();

    // cpu.csv: one header line, then one line per sample.
    std::ifstream csv(run / "cpu.csv");
    long lines = 0;
    for (std::string l; std::getline(csv, l);) ++lines;
    EXPECT_GT(lines, 1);
    // The final count is a job of the runner that follows the end of the run.
    ASSERT_TRUE(test::waitFor([&] { return rec->samplesFinal; }));
    EXPECT_EQ(rec->samples, lines - 1);

    // Opened as File ▸ Open does: a run of the Runs model whose source is the run directory, loaded, with ranks and
    // the 3 active ProfilerSteps of the trace (STROBE_TORCH_ACTIVE defaults to 3).
    int runId = 0;
    for (int rid : w.runs().runIds())
        if (w.runs().run(rid)->sources().contains(tmp.q("run"))) runId = rid;
    ASSERT_NE(runId, 0);
    ASSERT_TRUE(test::waitFor([&] { return w.runs().run(runId)->state != app::RunState::Loading; }, 120000));
    const app::RunRecord* loaded = w.runs().run(runId);
    ASSERT_EQ(loaded->state, app::RunState::Loaded) << (loaded->error ? loaded->error->toString() : std::string());
    ASSERT_TRUE(loaded->dataset);
    EXPECT_EQ(loaded->dataset->ranks.size(), 1u);  // the trace; the CPU samples are the host's, not a rank
    ASSERT_EQ(loaded->dataset->hosts.size(), 1u);
    size_t steps = 0;
    for (const auto& rank : loaded->dataset->ranks) steps = std::max(steps, rank->steps.size());
    EXPECT_EQ(steps, 3u);
    EXPECT_TRUE(childrenOfThisProcess().empty());
}

// Issue 23 in the dock: a failed run's last lines (from its manifest's failure:) and an incomplete run's reason
// (status_reason: a tool asked for wrote nothing) are in the run's status tooltip; the output streamed into the log.
TEST(ProfileLaunch, TheDockShowsWhyARunFailedOrIsIncomplete) {
    test::app();
    TempDir tmp;
    app::MainWindow w;
    app::LaunchPanel* panel = launchPanelOf(w);
    app::ProfileRequest r;
    r.command = {"sh", "-c", "echo first line; echo last line; exit 2"};
    r.outDir = tmp.q("failed");
    const int id = panel->launch(r, collectors::loadToolCatalog());
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(id)); }, 60000));
    const app::LaunchRecord* rec = panel->record(id);
    EXPECT_EQ(rec->status, app::LaunchStatus::Failed) << tailOf(rec);
    EXPECT_EQ(rec->reason, QStringLiteral("the workload's last lines:\nfirst line\nlast line"));
    EXPECT_NE(tailOf(rec).find("first line"), std::string::npos) << tailOf(rec);  // streamed through strobe-cli
    EXPECT_TRUE(panel->list()->topLevelItem(0)->toolTip(1).contains(QStringLiteral("last line")));
    if (haveTorch()) {
        app::ProfileRequest t;
        t.command = {"/usr/bin/python3", "-c", "print('no profiler here')"};
        t.outDir = tmp.q("incomplete");
        t.tools = {tool("torch-profiler")};
        const int id2 = panel->launch(t, collectors::loadToolCatalog());
        ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(id2)); }, 120000));
        const app::LaunchRecord* inc = panel->record(id2);
        EXPECT_EQ(inc->status, app::LaunchStatus::Incomplete) << tailOf(inc);
        EXPECT_EQ(inc->exitCode, 4);
        EXPECT_TRUE(inc->reason.startsWith(QStringLiteral("torch-profiler wrote no trace"))) << inc->reason.toStdString();
        EXPECT_NE(tailOf(inc).find("incomplete (exit 4)"), std::string::npos) << tailOf(inc);
        EXPECT_FALSE(inc->openedAutomatically);
    }
    EXPECT_TRUE(childrenOfThisProcess().empty());
}

// A command that fails: its exit code shows and the log is kept; nothing opens by itself, Open still works.
TEST(ProfileLaunch, FailedRunKeepsItsExitCodeAndLog) {
    test::app();
    TempDir tmp;
    app::MainWindow w;
    app::LaunchPanel* panel = launchPanelOf(w);
    app::ProfileRequest r;
    r.command = {"/bin/false"};
    r.outDir = tmp.q("run");
    const int id = panel->launch(r, collectors::loadToolCatalog());
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(id)); }, 60000));
    const app::LaunchRecord* rec = panel->record(id);
    EXPECT_EQ(rec->status, app::LaunchStatus::Failed) << tailOf(rec);
    EXPECT_EQ(rec->exitCode, 1);  // /bin/false's status, passed on by strobe-cli collect
    EXPECT_FALSE(rec->openedAutomatically);
    EXPECT_TRUE(w.runs().runIds().empty());
    EXPECT_NE(tailOf(rec).find("failed"), std::string::npos) << tailOf(rec);
    const QTreeWidgetItem* row = panel->list()->topLevelItem(0);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->text(1), QStringLiteral("failed (exit 1)"));
    EXPECT_TRUE(panel->logView()->toPlainText().contains(QStringLiteral("exit 1")));
    auto* open = panel->findChild<QPushButton*>(QStringLiteral("launchOpen"));
    ASSERT_NE(open, nullptr);
    ASSERT_TRUE(open->isEnabled());
    open->click();
    ASSERT_EQ(w.runs().runIds().size(), 1u);
    EXPECT_TRUE(w.runs().run(w.runs().runIds().front())->sources().contains(tmp.q("run")));
    EXPECT_TRUE(test::waitFor([&] { return !w.runs().anyLoading(); }, 60000));
}

// Cancel from the dock: SIGTERM to strobe-cli, which stops the workload and the sampler, writes the manifest with
// status cancelled and exits 143; none of the processes it started is left, and no child of this process.
TEST(ProfileLaunch, CancelStopsTheWholeProcessTree) {
    test::app();
    TempDir tmp;
    app::MainWindow w;
    app::LaunchPanel* panel = launchPanelOf(w);
    app::ProfileRequest r;
    r.command = {"/bin/sleep", "300"};
    r.tools = {tool("cpu-sampler")};
    r.outDir = tmp.q("run");
    const int id = panel->launch(r, collectors::loadToolCatalog());
    const app::LaunchRecord* rec = panel->record(id);
    ASSERT_TRUE(test::waitFor([&] { return rec->status == app::LaunchStatus::Running; }, 30000)) << tailOf(rec);
    const pid_t cli = static_cast<pid_t>(rec->process->processId());
    ASSERT_GT(cli, 0);
    // Wait until the workload runs and the sampler wrote a sample, so that Cancel has a whole tree to stop.
    std::vector<Proc> tree;
    ASSERT_TRUE(test::waitFor([&] {
        tree = descendantsOf(cli);
        const bool sleeping = std::any_of(tree.begin(), tree.end(), [](const Proc& p) { return p.comm == "sleep"; });
        return sleeping && panel->record(id)->samples > 0;
    }, 60000)) << tailOf(rec);
    ASSERT_GE(tree.size(), 2u);  // the workload and the sampler

    panel->setCurrent(id);
    auto* cancel = panel->findChild<QPushButton*>(QStringLiteral("launchCancel"));
    ASSERT_NE(cancel, nullptr);
    ASSERT_TRUE(cancel->isEnabled());
    cancel->click();
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(id)); }, 60000)) << tailOf(rec);
    EXPECT_EQ(rec->status, app::LaunchStatus::Cancelled) << tailOf(rec);
    EXPECT_EQ(rec->exitCode, 143) << tailOf(rec);
    EXPECT_TRUE(w.runs().runIds().empty());  // a cancelled run does not open by itself
    const YAML::Node m = YAML::LoadFile((tmp.path / "run" / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "cancelled");
    for (const Proc& p : tree) EXPECT_FALSE(stillThere(p)) << p.comm << " (pid " << p.pid << ") is still running";
    EXPECT_TRUE(childrenOfThisProcess().empty());
}

// Closing the window with a run in flight (STROBE_NO_SAVE_PROMPT set: no question) cancels it and waits for it
// without blocking: the close is deferred (the event loop runs on) until the run has stopped, then completes.
TEST(ProfileLaunch, ClosingTheWindowCancelsRunsInFlight) {
    test::app();
    TempDir tmp;
    const bool hadNoPrompt = qEnvironmentVariableIsSet("STROBE_NO_SAVE_PROMPT");
    qputenv("STROBE_NO_SAVE_PROMPT", "1");
    std::vector<Proc> tree;
    {
        app::MainWindow w;
        app::LaunchPanel* panel = launchPanelOf(w);
        app::ProfileRequest r;
        r.command = {"/bin/sleep", "300"};
        r.outDir = tmp.q("run");
        const int id = panel->launch(r, collectors::loadToolCatalog());
        ASSERT_TRUE(test::waitFor([&] {
            const auto* rec = panel->record(id);
            if (rec->status != app::LaunchStatus::Running) return false;
            tree = descendantsOf(static_cast<pid_t>(rec->process->processId()));
            return std::any_of(tree.begin(), tree.end(), [](const Proc& p) { return p.comm == "sleep"; });
        }, 30000)) << tailOf(panel->record(id));
        EXPECT_EQ(panel->runningCount(), 1);
        EXPECT_FALSE(w.close());  // deferred: strobe-cli is stopping its tree
        EXPECT_TRUE(w.closeDeferred());
        EXPECT_EQ(panel->record(id)->status, app::LaunchStatus::Cancelling);
        ASSERT_TRUE(test::waitFor([&] { return !w.closeDeferred(); }, 60000)) << tailOf(panel->record(id));
        EXPECT_EQ(panel->runningCount(), 0);
        EXPECT_EQ(panel->record(id)->status, app::LaunchStatus::Cancelled);
        EXPECT_EQ(panel->record(id)->exitCode, 143);
    }
    if (!hadNoPrompt) qunsetenv("STROBE_NO_SAVE_PROMPT");
    for (const Proc& p : tree) EXPECT_FALSE(stillThere(p)) << p.comm << " (pid " << p.pid << ") is still running";
    EXPECT_TRUE(childrenOfThisProcess().empty());
}

// A remote target (issue 24): --host and --remote-strobe-cli before the command; the host's own probes decide at
// launch, so this machine's unavailable tool does not block; a malformed target or one with Slurm does.
TEST(ProfileArgv, RemoteTargetPassesHost) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    app::ProfileRequest r;
    r.command = {"/bin/true"};
    r.outDir = "/tmp/strobe-profile-remote-target-does-not-exist";
    r.tools = {tool("cpu-sampler")};
    r.host = "alice@gpu-node:2222";
    r.remoteStrobeCli = "/opt/strobe/bin/strobe-cli";
    EXPECT_EQ(app::buildCollectArgv(r, catalog),
              (QStringList{"collect", "--out", "/tmp/strobe-profile-remote-target-does-not-exist", "--tool", "cpu-sampler",
                           "--host", "alice@gpu-node:2222", "--remote-strobe-cli", "/opt/strobe/bin/strobe-cli", "--",
                           "/bin/true"}));
    // With a target, the availability is the host's own probes (strobe-cli tools --json there): while they run (or
    // when the host cannot be asked) launch decides there; a tool they say is missing is refused, naming the host.
    std::map<QString, app::ToolAvailability> avail;
    avail["cpu-sampler"] = {false, false, {}, {}};
    EXPECT_TRUE(app::validateRequest(r, catalog, avail).isEmpty()) << app::validateRequest(r, catalog, avail).join(" | ").toStdString();
    avail["cpu-sampler"] = {true, true, "1.0", {}};
    EXPECT_TRUE(app::validateRequest(r, catalog, avail).isEmpty()) << app::validateRequest(r, catalog, avail).join(" | ").toStdString();
    avail["cpu-sampler"] = {true, false, {}, "python3 not found"};
    EXPECT_EQ(app::validateRequest(r, catalog, avail).join(" | "),
              "cpu-sampler is not available on alice@gpu-node:2222: python3 not found.");
    r.host = "gpu-node:port";
    r.slurm = true;
    const QStringList problems = app::validateRequest(r, catalog, avail);
    EXPECT_TRUE(problems.join(" | ").contains("Target 'gpu-node:port': the port 'port' is not a number")) << problems.join(" | ").toStdString();
    EXPECT_TRUE(problems.join(" | ").contains("A remote target and Slurm cannot be combined")) << problems.join(" | ").toStdString();
}

// Issue 23, the launcher's last seams. The Slurm form: the fields become sbatch arguments (--slurm-arg each, after
// --slurm) and read back from any form sbatch accepts; Slurm's --time forms (sbatch(1): "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes", "days-hours:minutes:seconds").
TEST(ProfileArgv, SlurmFieldsBecomeSbatchArguments) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    app::SlurmFields f;
    f.partition = "debug";
    f.tasks = 2;
    f.gpusPerNode = 8;
    f.timeLimit = "1-02:00:00";
    f.extra = {"--account=proj", "--exclusive"};
    const QStringList args = app::slurmArgsOf(f);
    EXPECT_EQ(args, (QStringList{"--partition=debug", "--ntasks=2", "--gpus-per-node=8", "--time=1-02:00:00",
                                 "--account=proj", "--exclusive"}));
    app::ProfileRequest r;
    r.command = {"/bin/true"};
    r.outDir = "/tmp/o";
    r.slurm = true;
    r.slurmArgs = args;
    EXPECT_EQ(app::buildCollectArgv(r, catalog),
              (QStringList{"collect", "--out", "/tmp/o", "--slurm", "--slurm-arg", "--partition=debug", "--slurm-arg",
                           "--ntasks=2", "--slurm-arg", "--gpus-per-node=8", "--slurm-arg", "--time=1-02:00:00",
                           "--slurm-arg", "--account=proj", "--slurm-arg", "--exclusive", "--", "/bin/true"}));
    r.slurm = false;  // the fields are kept but not passed without Slurm
    EXPECT_EQ(app::buildCollectArgv(r, catalog), (QStringList{"collect", "--out", "/tmp/o", "--", "/bin/true"}));

    const app::SlurmFields back = app::slurmFieldsOf(args);
    EXPECT_EQ(back.partition, "debug");
    EXPECT_EQ(back.tasks, 2);
    EXPECT_EQ(back.gpusPerNode, 8);
    EXPECT_EQ(back.timeLimit, "1-02:00:00");
    EXPECT_EQ(back.extra, (QStringList{"--account=proj", "--exclusive"}));
    const app::SlurmFields shortForms = app::slurmFieldsOf({"-p", "gpu", "-n4", "-t", "30", "--ntasks", "x"});
    EXPECT_EQ(shortForms.partition, "gpu");
    EXPECT_EQ(shortForms.tasks, 4);
    EXPECT_EQ(shortForms.timeLimit, "30");
    EXPECT_EQ(shortForms.extra, (QStringList{"--ntasks", "x"}));  // not a count: left as written

    for (const char* ok : {"30", "30:00", "01:30:00", "2-0", "2-12:30", "2-12:30:00", "UNLIMITED", "infinite"})
        EXPECT_TRUE(app::validSlurmTime(ok)) << ok;
    for (const char* bad : {"", "1h", "1:2:3:4", "-5", "1-", "a:00"}) EXPECT_FALSE(app::validSlurmTime(bad)) << bad;
}

// A directory on PATH holding stand-ins for Slurm's client (sinfo lists two partitions, sbatch exists) or none.
struct FakeSlurmPath {
    TempDir dir;
    QByteArray oldPath = qgetenv("PATH");
    explicit FakeSlurmPath(bool withSlurm) {
        if (withSlurm) {
            std::ofstream(dir.path / "sinfo") << "#!/bin/sh\nprintf 'debug\\ngpu\\ndebug\\n'\n";
            std::ofstream(dir.path / "sbatch") << "#!/bin/sh\nexit 0\n";
            fs::permissions(dir.path / "sinfo", fs::perms::owner_all);
            fs::permissions(dir.path / "sbatch", fs::perms::owner_all);
        }
        qputenv("PATH", QByteArray::fromStdString(dir.path.string()) + ":/usr/bin:/bin");
        if (!withSlurm) qputenv("PATH", QByteArray::fromStdString(dir.path.string()));
    }
    ~FakeSlurmPath() { qputenv("PATH", oldPath); }
};

// Checked before launch: sbatch on PATH, a time limit sbatch takes, and (in the dialog) the partition among sinfo's.
// An unreplaced {IDENT} in the command is refused ({KEY} of a sweep axis is replaced, {{ is a literal brace).
TEST(ProfileArgv, SlurmAndPlaceholdersAreCheckedBeforeLaunch) {
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    TempDir tmp;
    app::ProfileRequest r;
    r.command = {"/bin/true", "--bs", "{bs}"};
    r.outDir = tmp.q("new");
    const std::map<QString, app::ToolAvailability> avail;
    QStringList problems = app::validateRequest(r, catalog, avail);
    ASSERT_EQ(problems.size(), 1) << problems.join(" | ").toStdString();
    EXPECT_TRUE(problems[0].contains("{bs} is not a sweep axis")) << problems[0].toStdString();
    r.grid = {{"bs", {"32", "64"}}};
    EXPECT_TRUE(app::validateRequest(r, catalog, avail).isEmpty());
    r.grid.clear();
    r.command = {"/bin/true", "{{bs}", "{\"json\": 1}"};
    EXPECT_TRUE(app::validateRequest(r, catalog, avail).isEmpty()) << app::validateRequest(r, catalog, avail).join(" | ").toStdString();

    r.slurm = true;
    r.slurmArgs = {"--time=1h"};
    {
        FakeSlurmPath none(false);
        problems = app::validateRequest(r, catalog, avail);
        ASSERT_EQ(problems.size(), 2) << problems.join(" | ").toStdString();
        EXPECT_TRUE(problems[0].contains("sbatch is not on PATH"));
        EXPECT_TRUE(problems[1].contains("time limit '1h'"));
    }
    {
        FakeSlurmPath fake(true);
        r.slurmArgs = {"--time=00:10:00"};
        EXPECT_TRUE(app::validateRequest(r, catalog, avail).isEmpty()) << app::validateRequest(r, catalog, avail).join(" | ").toStdString();

        // The dialog asks sinfo for the partitions when Slurm is checked: a partition it lacks is a problem.
        test::app();
        core::JobRunner runner(2);
        app::ProfileDialog dialog(QString::fromUtf8(STROBE_CLI_PATH), runner);
        r.slurmArgs = {"--partition=batch", "--ntasks=2"};
        dialog.setRequest(r);
        ASSERT_TRUE(test::waitFor([&] { return dialog.slurmProbed() && dialog.probesDone(); }, 60000));
        EXPECT_EQ(dialog.slurmPartitions(), (QStringList{"debug", "gpu"}));
        EXPECT_EQ(dialog.request().slurmArgs, (QStringList{"--partition=batch", "--ntasks=2"}));
        ASSERT_EQ(dialog.problems().size(), 1) << dialog.problems().join(" | ").toStdString();
        EXPECT_EQ(dialog.problems()[0], "Slurm has no partition 'batch' (it has debug, gpu).");
        auto* partition = dialog.findChild<QComboBox*>(QStringLiteral("profileSlurmPartition"));
        ASSERT_NE(partition, nullptr);
        partition->setEditText(QStringLiteral("gpu"));
        EXPECT_TRUE(dialog.problems().isEmpty()) << dialog.problems().join(" | ").toStdString();
        EXPECT_TRUE(dialog.launchButton()->isEnabled());
    }
}

// Saved stacks keep the checked tools in order with their parameters; a madengine context imports as its tools
// (rocprof's cmd flags onto rocprofv3's parameters, rocblas_trace → rocblas-log) with its env_vars and a wrapper's
// cmd in front of the command; an unknown name without cmd is refused naming tools[i] and changes nothing.
TEST(ProfileDialog, SavedStacksAndMadengineContexts) {
    test::app();
    TempDir tmp;
    core::JobRunner runner(2);
    app::ProfileDialog dialog(QString::fromUtf8(STROBE_CLI_PATH), runner);
    app::ProfileRequest r;
    r.command = {"/usr/bin/python3", "train.py"};
    r.outDir = tmp.q("run");
    r.tools = {tool("cpu-sampler", {{"rate_hz", 50.0}}), tool("torch-profiler")};
    dialog.setRequest(r);
    dialog.saveStack(QStringLiteral("cpu + torch"));
    EXPECT_TRUE(app::ProfileDialog::savedStacks().contains(QStringLiteral("cpu + torch")));
    r.tools.clear();
    dialog.setRequest(r);
    ASSERT_TRUE(dialog.request().tools.empty());
    ASSERT_TRUE(dialog.applyStack(QStringLiteral("cpu + torch")));
    auto got = dialog.request();
    ASSERT_EQ(got.tools.size(), 2u);
    EXPECT_EQ(got.tools[0].name, "cpu-sampler");
    EXPECT_EQ(got.tools[1].name, "torch-profiler");
    EXPECT_TRUE(app::buildCollectArgv(got, dialog.catalog()).contains("cpu-sampler.rate_hz=50"));
    EXPECT_FALSE(dialog.applyStack(QStringLiteral("no such stack")));
    app::ProfileDialog::deleteStack(QStringLiteral("cpu + torch"));
    EXPECT_FALSE(app::ProfileDialog::savedStacks().contains(QStringLiteral("cpu + torch")));

    const QString context = QStringLiteral(
        R"({"gpu_vendor": "AMD", "tools": [{"name": "rocprof", "cmd": "rocprofv3 --hip-trace --kernel-trace --"},
            {"name": "rocblas_trace"}, {"name": "timeout600", "cmd": "timeout 600"}],
            "env_vars": {"IGNORED": "1"}})");
    EXPECT_EQ(dialog.importContext({}, context), QString());
    got = dialog.request();
    QStringList names;
    for (const auto& t : got.tools) names << t.name;
    EXPECT_EQ(names, (QStringList{"rocblas-log", "rocprofv3"})) << names.join(' ').toStdString();  // outermost first
    const QStringList argv = app::buildCollectArgv(got, dialog.catalog());
    EXPECT_TRUE(argv.join(' ').contains("rocprofv3.")) << argv.join(' ').toStdString();
    EXPECT_EQ(got.command, (QStringList{"timeout", "600", "/usr/bin/python3", "train.py"}));
    EXPECT_TRUE(dialog.contextNote().contains("Imported from the pasted context: 2 tool(s).")) << dialog.contextNote().toStdString();

    const QString refused = dialog.importContext({}, QStringLiteral(R"({"tools": [{"name": "my_profiler"}]})"));
    EXPECT_TRUE(refused.contains("tools[0]")) << refused.toStdString();
    EXPECT_EQ(dialog.request().tools.size(), 2u);  // unchanged
    const QString bad = dialog.importContext({}, QStringLiteral("{\"tools\": [\n  {\"name\": }]}"));
    EXPECT_TRUE(bad.contains("--additional-context") && bad.contains("line 2")) << bad.toStdString();
}

// Copy command (dialog and dock) is the strobe-cli line quoted for a shell; Re-run starts a finished run again in a
// new directory beside it; Resume continues only a sweep, in its own directory, where sweep launch skips what
// completed.
TEST(ProfileLaunch, CopyRerunAndResume) {
    test::app();
    TempDir tmp;
    app::MainWindow w;
    app::LaunchPanel* panel = launchPanelOf(w);
    const QString cli = QString::fromUtf8(STROBE_CLI_PATH);
    app::ProfileRequest r;
    r.command = {"sh", "-c", "echo \"it's done\""};
    r.outDir = tmp.q("run");
    r.workingDir = tmp.q("");
    const int id = panel->launch(r, collectors::loadToolCatalog());
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(id)); }, 60000));
    ASSERT_EQ(panel->record(id)->status, app::LaunchStatus::Completed) << tailOf(panel->record(id));
    const QString line = panel->copyCommand(id);
    EXPECT_EQ(line, QStringLiteral("cd %1 && %2 collect --out %3 -- sh -c 'echo \"it'\\''s done\"'")
                        .arg(QString::fromStdString(tmp.path.string()) + "/", cli, tmp.q("run")));
    EXPECT_EQ(QApplication::clipboard()->text(), line);
    // What the shell runs is what the dock ran: /bin/sh reads the quoted words back as the same arguments.
    const QStringList words{"a b", "plain", "", "x'y", "$HOME", "tab\there", "\"q\""};
    EXPECT_EQ(app::shellCommand({"a b", "plain", "", "x'y"}), QStringLiteral("'a b' plain '' 'x'\\''y'"));
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("printf '%s\\n' ") + app::shellCommand(words)});
    ASSERT_TRUE(sh.waitForFinished(10000));
    EXPECT_EQ(QString::fromUtf8(sh.readAllStandardOutput()), words.join(QLatin1Char('\n')) + QLatin1Char('\n'));

    EXPECT_EQ(panel->resume(id), 0);  // a single run does not resume
    const int again = panel->rerun(id);
    ASSERT_NE(again, 0);
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(again)); }, 60000));
    EXPECT_EQ(panel->record(again)->outDir, tmp.q("run") + "-r2");
    EXPECT_EQ(panel->record(again)->status, app::LaunchStatus::Completed) << tailOf(panel->record(again));
    EXPECT_TRUE(fs::exists(tmp.path / "run-r2" / "manifest.yaml"));
    const int third = panel->rerun(again);
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(third)); }, 60000));
    EXPECT_EQ(panel->record(third)->outDir, tmp.q("run") + "-r3");

    // A sweep whose second point fails: Resume runs only that point again (the first is skipped).
    app::ProfileRequest s;
    s.command = {"sh", "-c", "test {x} = 1 || test -e " + tmp.q("ok")};
    s.grid = {{"x", {"1", "2"}}};
    s.outDir = tmp.q("sweep");
    const int sweep = panel->launch(s, collectors::loadToolCatalog());
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(sweep)); }, 60000));
    EXPECT_EQ(panel->record(sweep)->status, app::LaunchStatus::Failed) << tailOf(panel->record(sweep));
    std::ofstream(tmp.path / "ok") << "now it passes";
    const int resumed = panel->resume(sweep);
    ASSERT_NE(resumed, 0);
    ASSERT_TRUE(test::waitFor([&] { return !inFlight(panel->record(resumed)); }, 60000));
    const app::LaunchRecord* rr = panel->record(resumed);
    EXPECT_EQ(rr->outDir, tmp.q("sweep"));
    EXPECT_EQ(rr->status, app::LaunchStatus::Completed) << tailOf(rr);
    std::string log;
    for (const auto& l : rr->tail) log += l.toStdString() + "\n";
    EXPECT_NE(log.find("skipped"), std::string::npos) << log;
    EXPECT_TRUE(childrenOfThisProcess().empty());
}
