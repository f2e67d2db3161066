// The run model's files (issue 19): manifest.yaml and sweep.yaml read and written through core/model; typed
// parameters, the statuses (incomplete with its reason), every older version read, a newer one read as far as known
// with a warning, malformed fields named with file and line. Expected values are the texts written here.

#include "core/model/run_manifest.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_files.h"

namespace strobe::core {
namespace {

namespace fs = std::filesystem;

RunManifest fullManifest() {
    RunManifest m;
    m.command = {"python", "train.py", "--bs", "64"};
    m.cwd = "/home/u/work";
    m.parameters = {{"bs", 64LL}, {"lr", 2.0}, {"algo", std::string("ring")}, {"tag", std::string("007")}};
    m.repeat = 2;
    m.tools = {{"cpu-sampler", "1.0", {{"rate_hz", "10"}}}};
    m.envDiff = {{"NCCL_ALGO", "ring"}, {"HF_TOKEN", "secret"}};
    m.devices = {{"AMD", "Instinct MI300X", "gfx942", "hsa"}};
    m.host = "node01";
    m.clocks = ClockAnchor{1764000000000000000, 5000000000, 6000000000, -18000, ""};
    m.start = "2026-11-24T10:00:00Z";
    m.end = "2026-11-24T10:05:00Z";
    m.status = RunStatus::Incomplete;
    m.statusReason = "rocprofv3 wrote no kernel trace";
    m.exitCode = 0;
    m.slurmJob = "4242";
    m.files = {{"cpu.csv", 1234, "cpu-sampler", "strobe-sampler-csv"}, {"train.log", 10, "", ""}};
    m.messages = {"sidecar died"};
    return m;
}

TEST(RunManifest, WritesAndReadsBackEveryField) {
    test::TempDir dir("strobe-run-manifest");
    const RunManifest m = fullManifest();
    ASSERT_TRUE(writeRunManifest(dir.path().string(), m).ok());
    EXPECT_FALSE(fs::exists(dir.path() / ".manifest.yaml.tmp"));
    auto back = readRunManifest(dir.path().string());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    RunManifest expected = m;
    expected.envDiff["HF_TOKEN"] = "<redacted>";  // written redacted
    expected.clocks->path = runManifestPath(dir.path().string());
    EXPECT_EQ(*back, expected);
    // Types survive: 2.0 stays a float, the quoted "007" a text (not the integer 7).
    EXPECT_TRUE(std::holds_alternative<double>(back->parameters.at("lr")));
    EXPECT_EQ(std::get<std::string>(back->parameters.at("tag")), "007");
    EXPECT_TRUE(back->warnings.empty());
}

// A version-1 manifest in the form strobe-cli collect wrote before the run model (every field, the parameters typed
// in a flow mapping, no status_reason) reads as it was written.
TEST(RunManifest, ReadsTheVersionOneFormCollectorsWrote) {
    const std::string text =
        "strobe_manifest: 1\n"
        "command: [\"sleep\", \"1\"]\n"
        "cwd: \"/tmp\"\n"
        "parameters: {bs: 64, lr: 0.5, algo: \"ring\"}\n"
        "repeat: 0\n"
        "tools:\n  - {name: cpu-sampler, version: \"\", params: {rate_hz: \"10\"}}\n"
        "env_diff: {NCCL_ALGO: \"ring\"}\n"
        "devices:\n  []\n"
        "host: node01\n"
        "clocks: {realtime_ns: 1764000000000000000, monotonic_ns: 5000000000, boottime_ns: 6000000000, utc_offset_s: 3600}\n"
        "start: 2026-11-24T10:00:00Z\n"
        "end: ~\n"
        "status: running\n"
        "exit: ~\n"
        "slurm_job: ~\n"
        "files:\n  - {path: \"cpu.csv\", size: 77, tool: cpu-sampler, format: strobe-sampler-csv}\n";
    auto m = runManifestFromYaml(text, "run/manifest.yaml");
    ASSERT_TRUE(m.ok()) << m.error().toString();
    EXPECT_EQ(m->version, 1);
    EXPECT_EQ(std::get<long long>(m->parameters.at("bs")), 64);
    EXPECT_EQ(std::get<double>(m->parameters.at("lr")), 0.5);
    EXPECT_EQ(std::get<std::string>(m->parameters.at("algo")), "ring");
    EXPECT_EQ(m->repeat, 0);
    EXPECT_EQ(m->status, RunStatus::Running);
    ASSERT_TRUE(m->clocks);
    EXPECT_EQ(m->clocks->boottimeNs, 6000000000);
    EXPECT_EQ(m->clocks->utcOffsetSeconds, 3600);
    EXPECT_EQ(m->clocks->path, "run/manifest.yaml");
    ASSERT_EQ(m->files.size(), 1u);
    EXPECT_EQ(m->files[0].size, 77u);
    EXPECT_TRUE(m->end.empty());
    EXPECT_FALSE(m->exitCode);
    EXPECT_TRUE(m->warnings.empty());
}

TEST(RunManifest, ANewerVersionReadsAsFarAsKnownWithAWarning) {
    auto m = runManifestFromYaml("strobe_manifest: 7\nparameters: {bs: 8}\nstatus: paused\nfuture_field: [1, 2]\n",
                                 "m.yaml");
    ASSERT_TRUE(m.ok()) << m.error().toString();
    EXPECT_EQ(m->version, 7);
    EXPECT_EQ(std::get<long long>(m->parameters.at("bs")), 8);
    EXPECT_EQ(m->status, RunStatus::Incomplete);  // a status this version does not know
    ASSERT_EQ(m->warnings.size(), 2u);
    EXPECT_NE(m->warnings[0].find("newer Strobe (strobe_manifest: 7)"), std::string::npos) << m->warnings[0];
    EXPECT_NE(m->warnings[1].find("'paused'"), std::string::npos) << m->warnings[1];
}

TEST(RunManifest, MalformedFieldsAreErrorsNamingFileAndLine) {
    auto status = runManifestFromYaml("strobe_manifest: 1\ncommand: [a]\nstatus: paused\n", "m.yaml");
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().where.file, "m.yaml");
    EXPECT_EQ(status.error().where.line, 3);
    EXPECT_NE(status.error().message.find("'paused'"), std::string::npos);
    auto clocks = runManifestFromYaml("strobe_manifest: 1\n\nclocks: {realtime_ns: soon, monotonic_ns: 1, boottime_ns: 2}\n",
                                      "m.yaml");
    ASSERT_FALSE(clocks.ok());
    EXPECT_EQ(clocks.error().where.line, 3);
    EXPECT_NE(clocks.error().message.find("'realtime_ns' is not an integer: 'soon'"), std::string::npos);
    EXPECT_FALSE(runManifestFromYaml("a: [", "m.yaml").ok());
    auto other = runManifestFromYaml("name: something else\n", "m.yaml");
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.error().message.find("not a Strobe run manifest"), std::string::npos);
}

TEST(RunManifest, StatusesHaveOneTextEach) {
    for (RunStatus s : {RunStatus::Running, RunStatus::Completed, RunStatus::Incomplete, RunStatus::Failed,
                        RunStatus::Cancelled})
        EXPECT_EQ(parseRunStatus(toString(s)), s);
    EXPECT_FALSE(parseRunStatus("done"));
}

TEST(RunManifest, MarkCancelledKeepsEveryOtherField) {
    test::TempDir dir("strobe-run-manifest");
    RunManifest m = fullManifest();
    m.status = RunStatus::Failed;
    m.statusReason.clear();
    ASSERT_TRUE(writeRunManifest(dir.path().string(), m).ok());
    ASSERT_TRUE(markRunManifestCancelled(dir.path().string(), "cancelled through scancel").ok());
    auto back = readRunManifest(dir.path().string());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back->status, RunStatus::Cancelled);
    ASSERT_EQ(back->messages.size(), 2u);
    EXPECT_EQ(back->messages[1], "cancelled through scancel");
    EXPECT_EQ(back->parameters, m.parameters);
    EXPECT_EQ(back->files, m.files);
}

TEST(RunManifest, FoundFromASourceUpToThreeLevelsBelow) {
    test::TempDir dir("strobe-run-manifest");
    fs::create_directories(dir.path() / "run" / "rocprof" / "node" / "42");
    test::writeFile(dir.path() / "run" / "manifest.yaml", "strobe_manifest: 1\n");
    test::writeFile(dir.path() / "run" / "rocprof" / "node" / "42" / "k.csv", "x\n");
    EXPECT_EQ(fs::path(findRunManifest((dir.path() / "run" / "rocprof" / "node" / "42" / "k.csv").string())),
              fs::absolute(dir.path() / "run" / "manifest.yaml"));
    EXPECT_TRUE(hasRunManifest((dir.path() / "run").string()));
    EXPECT_FALSE(hasRunManifest(dir.path().string()));
    EXPECT_EQ(findRunManifestDirs(dir.path().string()), std::vector<std::string>{(dir.path() / "run").string()});
}

TEST(SweepFile, WritesAndReadsBackAndReadsTheOlderPlainForm) {
    test::TempDir dir("strobe-sweep-file");
    SweepFile s;
    s.axes = {"bs", "algo"};
    s.runs = {{"bs=1,algo=ring/rep0", {{"bs", 1LL}, {"algo", std::string("ring")}}, 0},
              {"bs=1,algo=ring/rep1", {{"bs", 1LL}, {"algo", std::string("ring")}}, 1}};
    ASSERT_TRUE(writeSweepFile(dir.path().string(), s).ok());
    auto back = readSweepFile(dir.path().string());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(*back, s);
    // The launcher's earlier form: values plain (a text unquoted).
    auto old = sweepFileFromYaml("strobe_sweep: 1\naxes: [bs, algo]\nruns:\n"
                                 "  - {path: \"bs=1,algo=ring/rep0\", parameters: {algo: ring, bs: 1}, repeat: 0}\n"
                                 "  - {parameters: {bs: 2}}\n",
                                 "sweep.yaml");
    ASSERT_TRUE(old.ok()) << old.error().toString();
    ASSERT_EQ(old->runs.size(), 1u);
    EXPECT_EQ(old->runs[0], s.runs[0]);
    ASSERT_EQ(old->warnings.size(), 1u);  // the run without a path is skipped, and said
    EXPECT_NE(old->warnings[0].find("runs[1] has no path"), std::string::npos);
    auto newer = sweepFileFromYaml("strobe_sweep: 3\nruns: []\n", "sweep.yaml");
    ASSERT_TRUE(newer.ok());
    ASSERT_EQ(newer->warnings.size(), 1u);
    EXPECT_NE(newer->warnings[0].find("newer Strobe (strobe_sweep: 3)"), std::string::npos);
}

TEST(RunParameters, OneCanonicalConfigurationKey) {
    const RunParameters p{{"threads", 4LL}, {"bs", 64LL}, {"lr", 0.5}, {"algo", std::string("ring")}};
    EXPECT_EQ(configurationKey(p), "algo=ring,bs=64,lr=0.5,threads=4");
    EXPECT_EQ(configurationKey(std::map<std::string, std::string>{{"threads", "4"}, {"bs", "64"}}), "bs=64,threads=4");
    EXPECT_EQ(configurationKey(RunParameters{}), "");
    EXPECT_TRUE(std::holds_alternative<long long>(parseRunValue("16")));
    EXPECT_TRUE(std::holds_alternative<double>(parseRunValue("1e-3")));
    EXPECT_TRUE(std::holds_alternative<std::string>(parseRunValue("nan")));
    EXPECT_TRUE(std::holds_alternative<std::string>(parseRunValue("1.5x")));
    EXPECT_EQ(std::get<std::string>(parseRunValue("007")), "007");
}

}  // namespace
}  // namespace strobe::core

namespace strobe::core {
namespace {

// A run opened by its directory carries its manifest: parameters (typed), repeat, and the facts shown for it
// (tools, host, clocks), from the manifest written here.
TEST(RunEntry, ARunOpenedByItsDirectoryCarriesItsManifest) {
    test::TempDir dir("strobe-run-entry");
    const fs::path run = dir.path() / "run";
    fs::create_directories(run / "torch");
    test::writeFile(run / "manifest.yaml",
                    "strobe_manifest: 1\nparameters: {bs: 64, algo: \"ring\"}\nrepeat: 1\n"
                    "tools:\n  - {name: cpu-sampler, version: \"1.0\", params: {}}\nhost: node01\n"
                    "clocks: {realtime_ns: 100, monotonic_ns: 40, boottime_ns: 50, utc_offset_s: 3600}\n"
                    "status: completed\n");
    test::writeFile(run / "torch" / "trace.json", "{\"traceEvents\": []}\n");
    RunEntry byDir{"r", nullptr, {}, {run.string()}};
    ASSERT_TRUE(attachRunManifest(byDir).ok());
    ASSERT_TRUE(byDir.manifest);
    EXPECT_EQ(std::get<long long>(byDir.parameters.at("bs")), 64);
    EXPECT_EQ(std::get<std::string>(byDir.parameters.at("algo")), "ring");
    EXPECT_EQ(byDir.repeat, 1);
    EXPECT_EQ(byDir.key(), "algo=ring,bs=64");
    std::map<std::string, std::string> facts;
    for (const auto& [k, v] : runFacts(byDir)) facts[k] = v;
    EXPECT_EQ(facts["parameters"], "algo=ring, bs=64");
    EXPECT_EQ(facts["tools"], "cpu-sampler 1.0");
    EXPECT_EQ(facts["host"], "node01");
    EXPECT_EQ(facts["status"], "completed");
    EXPECT_EQ(facts["clocks"], "realtime 100 ns = boot time 50 ns = monotonic 40 ns, local time UTC+3600 s");
    // A file inside the run finds the same manifest; given parameters are kept.
    RunEntry byFile{"f", nullptr, {{"bs", 128LL}}, {(run / "torch" / "trace.json").string()}};
    ASSERT_TRUE(attachRunManifest(byFile).ok());
    ASSERT_TRUE(byFile.manifest);
    EXPECT_EQ(std::get<long long>(byFile.parameters.at("bs")), 128);
    // Outside any run: nothing attached.
    RunEntry none{"n", nullptr, {}, {dir.path().string()}};
    ASSERT_TRUE(attachRunManifest(none).ok());
    EXPECT_FALSE(none.manifest);
    EXPECT_TRUE(runFacts(none).empty());
}

}  // namespace
}  // namespace strobe::core
