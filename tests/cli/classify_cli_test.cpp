// strobe-cli classify: argument handling and exit codes.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "app/cli/command.h"
#include "tests/test_paths.h"

namespace strobe::app {
namespace {

int runClassify(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr) {
    for (const auto& c : commands()) {
        if (c.name != "classify") continue;
        ::testing::internal::CaptureStdout();
        ::testing::internal::CaptureStderr();
        int rc = c.run(args);
        std::string o = ::testing::internal::GetCapturedStdout();
        std::string e = ::testing::internal::GetCapturedStderr();
        if (out) *out = o;
        if (err) *err = e;
        return rc;
    }
    ADD_FAILURE() << "classify is not registered";
    return -1;
}

TEST(ClassifyCliTest, UsageErrorsExitTwo) {
    std::string err;
    EXPECT_EQ(runClassify({}, nullptr, &err), kExitUsage);
    EXPECT_NE(err.find("no trace file"), std::string::npos);
    EXPECT_EQ(runClassify({"x.json", "--bogus"}, nullptr, &err), kExitUsage);
    EXPECT_NE(err.find("--bogus"), std::string::npos);
    EXPECT_EQ(runClassify({"x.json", "--rules"}, nullptr, &err), kExitUsage);
    EXPECT_NE(err.find("--help"), std::string::npos);
}

// Flags are BoolParams: a flag given a value is refused, naming the option and the value; --rules needs its
// value.
TEST(ClassifyCliTest, TypedOptionsAreCheckedBeforeLoading) {
    const std::string dir = (std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter");
    std::string out, err;
    EXPECT_EQ(runClassify({dir, "--json=yes"}, &out, &err), kExitUsage);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(err.find("'--json'"), std::string::npos) << err;
    EXPECT_NE(err.find("'yes'"), std::string::npos) << err;
    EXPECT_EQ(runClassify({dir, "--all=1"}, &out, &err), kExitUsage);
    EXPECT_NE(err.find("'--all'"), std::string::npos) << err;
    EXPECT_EQ(runClassify({dir, "--rules"}, &out, &err), kExitUsage);
    EXPECT_NE(err.find("'--rules' needs a value"), std::string::npos) << err;
    EXPECT_EQ(runClassify({dir, "--rules", "x.yaml", "--rules", "y.yaml"}, &out, &err), kExitUsage);
    EXPECT_NE(err.find("more than once"), std::string::npos) << err;
}

TEST(ClassifyCliTest, UnreadableInputExitsThreeAndNamesTheFile) {
    std::string err;
    EXPECT_EQ(runClassify({"/nonexistent/strobe/trace.json"}, nullptr, &err), kExitBadInput);
    EXPECT_NE(err.find("/nonexistent/strobe/trace.json"), std::string::npos);
    EXPECT_EQ(runClassify({(std::string(STROBE_TEST_DATA_DIR) +
                            "/kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"),
                           "--rules", "/nonexistent/rules.yaml"},
                          nullptr, &err),
              kExitBadInput);
    EXPECT_NE(err.find("/nonexistent/rules.yaml"), std::string::npos);
}

// The two HTA trace_filter ranks. Independent values (python3 json over both files): 194 distinct names of
// cat "kernel", their durations sum to 1257545000 ns; the two names no bundled rule covers occur 4 times
// (4409000 ns, FBGEMM's FP8 qparam kernel) and 8 times (249000 ns, compute_cuda_kernel).
TEST(ClassifyCliTest, JsonOnTheTraceFilterPair) {
    std::string out, err;
    ASSERT_EQ(runClassify({(std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter"), "--json", "--no-cache"},
                          &out, &err),
              kExitOk)
        << err;
    EXPECT_NE(out.find("\"files\": 2,"), std::string::npos) << out;
    EXPECT_NE(out.find("\"distinct_kernel_names\": 194,"), std::string::npos);
    EXPECT_NE(out.find("\"kernel_time_ns\": 1257545000,"), std::string::npos);
    EXPECT_NE(out.find("\"unmatched_kernel_names\": 2,"), std::string::npos);
    EXPECT_NE(out.find("_get_FP8_qparam_cuda_kernel<float>(float const*, int, int, unsigned char*, float*, bool)\", "
                       "\"count\": 4, \"total_ns\": 4409000}"),
              std::string::npos);
    EXPECT_NE(out.find("\"void compute_cuda_kernel<long>(long*, long*, long*, long, long)\", \"count\": 8, "
                       "\"total_ns\": 249000}"),
              std::string::npos);
    // Sorted by time: the FP8 kernel (4.4 ms) before compute_cuda_kernel (0.25 ms).
    EXPECT_LT(out.find("_get_FP8_qparam"), out.find("compute_cuda_kernel"));
    EXPECT_EQ(out.find("[info]"), std::string::npos);  // log lines stay off stdout
}

TEST(ClassifyCliTest, AllListsEveryNameWithItsRuleAndExtraRulesComeFirst) {
    namespace fs = std::filesystem;
    fs::path rules = fs::temp_directory_path() / ("strobe-classify-cli-" + std::to_string(::getpid()) + ".yaml");
    {
        std::ofstream f(rules);
        f << "rules:\n  - name: my-sort-helper\n    pattern: compute_cuda_kernel\n    category: reduction\n";
    }
    std::string out, err;
    ASSERT_EQ(runClassify({(std::string(STROBE_TEST_DATA_DIR) + "/kineto/hta/trace_filter"), "--all", "--no-cache",
                           "--rules", rules.string()},
                          &out, &err),
              kExitOk)
        << err;
    fs::remove(rules);
    // One unmatched name left; compute_cuda_kernel now matched by the extra rule.
    EXPECT_NE(out.find("1 of 194 distinct kernel names matched no rule"), std::string::npos) << out;
    auto line = [&](std::string_view needle) {
        auto at = out.find(needle);
        if (at == std::string::npos) return std::string();
        auto b = out.rfind('\n', at);
        auto e = out.find('\n', at);
        return out.substr(b + 1, e - b - 1);
    };
    EXPECT_NE(line("compute_cuda_kernel").find("my-sort-helper"), std::string::npos);
    EXPECT_NE(line("compute_cuda_kernel").find("reduction"), std::string::npos);
    EXPECT_NE(line("ncclKernel_SendRecv").find("send_recv"), std::string::npos);
    EXPECT_NE(line("Memcpy DtoD").find("(by kind)"), std::string::npos);
}

}  // namespace
}  // namespace strobe::app
