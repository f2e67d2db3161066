// strobe-cli plot and plots: their options are core params, parsed and coerced by the same rule as --set.
#ifdef STROBE_HAVE_PLOTS
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "app/cli/command.h"
#include "tests/cli/cli_capture.h"
#include "tests/test_paths.h"

using namespace strobe;
namespace fs = std::filesystem;

namespace {

using test::CliResult;

const std::string kPlotCliSample = std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank";

// Width and height from a PNG's IHDR chunk (big-endian, bytes 16..23), read by hand.
bool pngSize(const fs::path& file, uint32_t& w, uint32_t& h) {
    std::ifstream f(file, std::ios::binary);
    unsigned char b[24] = {};
    if (!f.read(reinterpret_cast<char*>(b), sizeof b)) return false;
    w = (uint32_t(b[16]) << 24) | (uint32_t(b[17]) << 16) | (uint32_t(b[18]) << 8) | b[19];
    h = (uint32_t(b[20]) << 24) | (uint32_t(b[21]) << 16) | (uint32_t(b[22]) << 8) | b[23];
    return b[1] == 'P' && b[2] == 'N' && b[3] == 'G';
}

}  // namespace

TEST(PlotCli, WronglyTypedOptionsAreUsageErrorsNamingOptionAndValue) {
    const std::string out = (fs::temp_directory_path() / "strobe_plot_cli_never.png").string();
    struct Case {
        std::vector<std::string> extra;
        std::vector<std::string> expected;
    };
    const std::vector<Case> cases = {
        {{"--dark=yes"}, {"'--dark'", "'yes'"}},        {{"--size", "7x"}, {"--size", "'7x'"}},
        {{"--set", "top_n=2.5"}, {"'top_n'", "'2.5'"}}, {{"--set"}, {"'--set' needs a value"}},
        {{"-o", out}, {"given more than once"}},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args = {"kernel-breakdown", kPlotCliSample, "-o", out};
        args.insert(args.end(), c.extra.begin(), c.extra.end());
        CliResult r = test::runCli("plot", args);
        EXPECT_EQ(r.code, app::kExitUsage) << c.extra.front();
        EXPECT_TRUE(r.out.empty());
        for (const auto& e : c.expected) EXPECT_NE(r.err.find(e), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(out));
}

// --set is checked before any trace is loaded: the path given here does not exist, so an error that names the
// parameter (exit 2) rather than the file (exit 3) shows nothing was read first. Expected texts from the specs:
// kernel-breakdown per: rank|step|window, top_n: Int [1, 50]; delta-bars confidence: Double [0.5, 0.999].
TEST(PlotCli, SetIsCheckedBeforeAnyTraceIsLoaded) {
    const std::string missing = "/nonexistent/strobe/never_loaded_trace.json";
    const std::string out = (fs::temp_directory_path() / "strobe_plot_cli_never.png").string();
    struct Case {
        std::string plot;
        std::string set;
        std::vector<std::string> expected;
    };
    const std::vector<Case> cases = {
        {"kernel-breakdown", "per=node", {"'per'", "'node' is not one of: rank, step, window"}},
        {"kernel-breakdown", "top_n=51", {"'top_n'", "51 is outside [1, 50]"}},
        {"kernel-breakdown", "top_n=0", {"'top_n'", "0 is outside [1, 50]"}},
        {"delta-bars", "confidence=0.3", {"'confidence'", "0.3 is outside [0.5, 0.999]"}},
        {"kernel-breakdown", "colour=red", {"unknown parameter 'colour'", "group_by", "top_n"}},
    };
    for (const auto& c : cases) {
        CliResult r = test::runCli("plot", {c.plot, missing, "--set", c.set, "-o", out, "--no-cache"});
        EXPECT_EQ(r.code, app::kExitUsage) << c.set << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << c.set;
        for (const auto& e : c.expected) EXPECT_NE(r.err.find(e), std::string::npos) << c.set << ": " << r.err;
        EXPECT_EQ(r.err.find(missing), std::string::npos) << "the file was looked at before the parameter: " << r.err;
    }
    // An Enum whose choices are the data's (a counter name, a sweep configuration, a step to align compared runs
    // on) cannot be checked before the load: the value is taken, and the missing file is what is reported.
    for (const auto& [plot, set] : std::vector<std::pair<std::string, std::string>>{
             {"counter-timeline", "metric=SQ_WAVES"},
             {"delta-bars", "baseline=bs=4"},
             {"sweep-heatmap", "baseline=bs=4"},
             {"gpu-timeline", "align=step 3"}}) {
        CliResult r = test::runCli("plot", {plot, missing, "--set", set, "-o", out, "--no-cache"});
        EXPECT_EQ(r.code, app::kExitBadInput) << plot << " " << set << ": " << r.err;
        EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(out));
}

// group_by is the plots' one shared String (plots/sweep_axes.h), read by core::parseSweepGroupBy when the plot
// prepares: an unknown grouping is an error naming the key (not the sweep command's flag); kernel-breakdown's old
// "kernel" still works (the parser's spelling of name).
TEST(PlotCli, GroupByIsReadByTheSharedParser) {
    const std::string out = (fs::temp_directory_path() / "strobe_plot_cli_groupby.svg").string();
    CliResult bad = test::runCli(
        "plot", {"kernel-breakdown", kPlotCliSample, "--set", "group_by=stack", "-o", out, "--no-cache"});
    EXPECT_EQ(bad.code, app::kExitBadInput) << bad.err;
    EXPECT_NE(bad.err.find("group_by 'stack' is not a kernel grouping"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.err.find("--group-by"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(out));
    CliResult ok = test::runCli(
        "plot", {"kernel-breakdown", kPlotCliSample, "--set", "group_by=kernel", "-o", out, "--no-cache"});
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_TRUE(fs::exists(out));
    fs::remove(out);
}

// Once loaded, such a value is checked against the data's choices: the sample has no hardware counters, so its
// only metric choice is "auto" and SQ_WAVES is a usage error listing it (not a silent fallback to another metric).
TEST(PlotCli, DataChoiceIsCheckedOnceLoaded) {
    const std::string out = (fs::temp_directory_path() / "strobe_plot_cli_never.png").string();
    CliResult r =
        test::runCli("plot", {"counter-timeline", kPlotCliSample, "--set", "metric=SQ_WAVES", "-o", out, "--no-cache"});
    EXPECT_EQ(r.code, app::kExitUsage) << r.err;
    EXPECT_NE(r.err.find("'metric'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'SQ_WAVES' is not one of: auto"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

TEST(PlotCli, TypedValuesReachTheRender) {
    const fs::path out = fs::temp_directory_path() / ("strobe_plot_cli_" + std::to_string(::getpid()) + ".png");
    CliResult r = test::runCli("plot",
                               {"kernel-breakdown", kPlotCliSample, "--size=320x200", "--set", "top_n=3", "--output",
                                out.string(), "--no-cache"});
    ASSERT_EQ(r.code, app::kExitOk) << r.err;
    uint32_t w = 0, h = 0;
    ASSERT_TRUE(pngSize(out, w, h));
    EXPECT_EQ(w, 320u);
    EXPECT_EQ(h, 200u);
    fs::remove(out);
}

TEST(PlotsCli, JsonIsAFlag) {
    CliResult bad = test::runCli("plots", {"--json=1"});
    EXPECT_EQ(bad.code, app::kExitUsage);
    EXPECT_NE(bad.err.find("'--json'"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("'1'"), std::string::npos) << bad.err;
    CliResult extra = test::runCli("plots", {"everything"});
    EXPECT_EQ(extra.code, app::kExitUsage);
    EXPECT_NE(extra.err.find("'everything'"), std::string::npos) << extra.err;
    CliResult ok = test::runCli("plots", {"--json"});
    EXPECT_EQ(ok.code, app::kExitOk);
    EXPECT_EQ(ok.out.rfind("{", 0), 0u) << ok.out.substr(0, 100);
    EXPECT_NE(ok.out.find("\"key\": \"top_n\""), std::string::npos);
}
#endif

// A Kineto trace (realtime) with a rocprofv3 kernel trace (boot-time ns, not anchored) cannot share an axis: the plot
// is refused with the reason; --clock-offset anchors the rocprof source and the plot is drawn.
TEST(PlotCli, SourcesOnUnrelatedClocksAreRefusedUnlessAnchored) {
    const std::string kineto = std::string(STROBE_TEST_DATA_DIR) +
                               "/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
    const std::string roc = std::string(STROBE_TEST_DATA_DIR) + "/rocprof/docs-2025/kernel_trace.csv";
    const fs::path out = fs::temp_directory_path() / ("strobe_plot_clock_" + std::to_string(::getpid()) + ".png");
    CliResult refused = test::runCli("plot", {"kernel-breakdown", kineto, roc, "-o", out.string(), "--no-cache"});
    EXPECT_EQ(refused.code, app::kExitBadInput);
    EXPECT_NE(refused.err.find("different clocks"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("--clock-offset"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(out));
    CliResult anchored = test::runCli("plot", {"kernel-breakdown", kineto, roc, "-o", out.string(), "--no-cache",
                                               "--clock-offset", "1600000000000000000"});
    EXPECT_EQ(anchored.code, app::kExitOk) << anchored.err;
    EXPECT_TRUE(fs::exists(out));
    fs::remove(out);
}
