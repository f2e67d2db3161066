// A real CPU sweep, collected in the test (issue 21): strobe-cli sweep launch runs tests/data/workloads/train_mlp.py
// (Debian's python3-torch, CPU) with HIDDEN = 64 and 2048, two repeats each, under the torch-profiler contract; then
// `sweep compare --json` compares them by step time (no GPU activity: CPU operators, and it says so), with a
// repeat-level interval (2 runs x 3 steps per configuration: resampled "runs"). The expected step medians are read
// from the traces the runs wrote (Qt's JSON: the ProfilerStep#N durations), independently of Strobe's loaders.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/cli/cli_json.h"
#include "tests/have_torch.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::app {
namespace {

namespace fs = std::filesystem;

// The median (numpy's linear) of the ProfilerStep#N durations (ms) of every trace under `config`.
double stepMedianMs(const fs::path& config) {
    std::vector<double> ms;
    for (const auto& e : fs::recursive_directory_iterator(config)) {
        if (e.path().filename() != "rank0_trace.json") continue;
        QFile f(QString::fromStdString(e.path().string()));
        EXPECT_TRUE(f.open(QIODevice::ReadOnly));
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
        const QJsonArray events = doc.isArray() ? doc.array() : doc.object()["traceEvents"].toArray();
        for (const auto& v : events)
            if (v.toObject()["name"].toString().startsWith("ProfilerStep#"))
                ms.push_back(v.toObject()["dur"].toDouble() / 1e3);
    }
    std::sort(ms.begin(), ms.end());
    if (ms.empty()) return -1;
    const double pos = 0.5 * double(ms.size() - 1);
    const size_t lo = size_t(pos), hi = std::min(lo + 1, ms.size() - 1);
    return ms[lo] + (ms[hi] - ms[lo]) * (pos - double(lo));
}

TEST(SweepTorchCli, RealCpuSweepComparesStepTimeWithARepeatLevelInterval) {
    if (!test::haveTorch()) GTEST_SKIP() << "Debian's python3-torch is not installed (.ci/setup installs it)";
    test::TempDir dir("strobe-sweep-torch");
    const fs::path sweep = dir.path() / "sweep";
    const std::string launch = std::string(STROBE_CLI_PATH) + " sweep launch --grid HIDDEN=64,2048 --repeats 2 --out '" +
                               sweep.string() + "' --tool torch-profiler -- /usr/bin/python3 '" +
                               STROBE_TEST_DATA_DIR + "/workloads/train_mlp.py' > '" +
                               (dir.path() / "launch.log").string() + "' 2>&1";
    ASSERT_EQ(std::system(launch.c_str()), 0) << test::readAll(dir.path() / "launch.log");
    const fs::path out = dir.path() / "compare.json";
    const std::string compare = std::string(STROBE_CLI_PATH) + " sweep compare --json --no-cache --baseline HIDDEN=64 '" +
                                sweep.string() + "' > '" + out.string() + "' 2> '" +
                                (dir.path() / "compare.log").string() + "'";
    ASSERT_EQ(std::system(compare.c_str()), 0) << test::readAll(dir.path() / "compare.log");
    test::Json j(test::readAll(out));
    ASSERT_TRUE(j.ok) << test::readAll(out);
    bool gpu = true;
    ASSERT_EQ(j.root["gpu_activity"].get(gpu), simdjson::SUCCESS);
    EXPECT_FALSE(gpu);
    simdjson::dom::array messages;
    ASSERT_EQ(j.root["messages"].get(messages), simdjson::SUCCESS);
    bool said = false;
    for (simdjson::dom::element m : messages) {
        std::string_view text;
        if (m.get(text) == simdjson::SUCCESS && text.find("no GPU activity in these runs") != std::string_view::npos)
            said = true;
    }
    EXPECT_TRUE(said);
    simdjson::dom::array rows;
    ASSERT_EQ(j.root["rows"].get(rows), simdjson::SUCCESS);
    ASSERT_GE(rows.size(), 2u);
    int stepRows = 0;
    for (simdjson::dom::element row : rows) {
        std::string_view kind, configuration;
        ASSERT_EQ(row["kind"].get(kind), simdjson::SUCCESS);
        EXPECT_NE(kind, "gpu");
        if (kind != "step") continue;
        ++stepRows;
        ASSERT_EQ(row["configuration"].get(configuration), simdjson::SUCCESS);
        int64_t runs = 0, steps = 0;
        double median = 0;
        ASSERT_EQ(row["n_runs"].get(runs), simdjson::SUCCESS);
        ASSERT_EQ(row["n_steps"].get(steps), simdjson::SUCCESS);
        ASSERT_EQ(row["median_ms"].get(median), simdjson::SUCCESS);
        EXPECT_EQ(runs, 2);
        EXPECT_EQ(steps, 6);  // STROBE_TORCH_ACTIVE: 3 steps per run
        EXPECT_NEAR(median, stepMedianMs(sweep / std::string(configuration)), 2e-3) << configuration;
        if (configuration == "HIDDEN=64") continue;
        std::string_view resampled;
        double delta = 0, lo = 0, hi = 0;
        ASSERT_EQ(row["resampled"].get(resampled), simdjson::SUCCESS);
        EXPECT_EQ(resampled, "runs");
        ASSERT_EQ(row["delta_ms"].get(delta), simdjson::SUCCESS);
        ASSERT_EQ(row["ci_low_ms"].get(lo), simdjson::SUCCESS);
        ASSERT_EQ(row["ci_high_ms"].get(hi), simdjson::SUCCESS);
        EXPECT_LE(lo, hi);
        EXPECT_GT(delta, 0.0);  // 2048 hidden units take longer per step than 64
    }
    EXPECT_EQ(stepRows, 2);
}

}  // namespace
}  // namespace strobe::app
