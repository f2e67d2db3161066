// strobe-cli classify: argument handling and exit codes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/cli/command.h"

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

TEST(ClassifyCliTest, UnreadableInputExitsThreeAndNamesTheFile) {
    std::string err;
    EXPECT_EQ(runClassify({"/nonexistent/strobe/trace.json"}, nullptr, &err), kExitBadInput);
    EXPECT_NE(err.find("/nonexistent/strobe/trace.json"), std::string::npos);
    EXPECT_EQ(runClassify({STROBE_TEST_DATA_DIR "/kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                           "--rules", "/nonexistent/rules.yaml"},
                          nullptr, &err),
              kExitBadInput);
    EXPECT_NE(err.find("/nonexistent/rules.yaml"), std::string::npos);
}

}  // namespace
}  // namespace strobe::app
