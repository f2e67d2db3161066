// Layout independence: every real Kineto trace in tests/data (tests/data/kineto/**, the ResNet-50 traces included)
// and the bundled 8-rank sample, re-serialized three ways by tests/reserialize_trace.py (minified; indent 2 as
// Python's json.dump writes it; indent 4 with CRLF line ends; every number token and string kept verbatim), loads to
// the same dataset as the original file: same string pool, same rows in every table (ts/dur equal to the
// nanosecond), same tracks, processes, threads, trace facts and counts, and the same warnings.
//
// Warnings may name byte offsets, which legitimately differ with the layout: they are compared with every
// "byte N" in the text and the byte offset of the location normalised away (the event index is still compared).
// The re-serialized files are written at test time into a temporary directory (three copies of every trace would
// be too big to commit) by /usr/bin/python3 (.ci/setup installs python3).
//
// Also: no valid real trace gets a type warning (a message of the form `expected "key" to be ...`).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/formats/kineto_json.h"
#include "tests/rank_compare.h"
#include "tests/test_paths.h"

using namespace strobe::core;
using namespace strobe::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> realTraces() {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(std::string(STROBE_TEST_DATA_DIR) + "/kineto")) {
        const std::string p = e.path().string();
        if (e.is_regular_file() && (p.ends_with(".json") || p.ends_with(".json.gz"))) out.push_back(p);
    }
    for (const auto& e : fs::directory_iterator(std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = fs::path(info.param).filename().string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name + "_" + std::to_string(info.index);
}

class KinetoLayout : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(KinetoLayout, ReserializedTraceLoadsToTheSameDataset) {
    const std::string source = GetParam();
    const fs::path dir = fs::temp_directory_path() /
                         ("strobe_layout_" + std::to_string(::getpid()) + "_" + fs::path(source).filename().string());
    fs::remove_all(dir);
    const std::string cmd = "/usr/bin/python3 '" + std::string(STROBE_TEST_DATA_DIR) + "/../reserialize_trace.py' '" +
                            source + "' '" + dir.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

    KinetoLoadOptions one;
    one.threads = 1;
    auto original = loadKinetoTrace(source, one);
    ASSERT_TRUE(original.ok()) << original.error().toString();
    for (const auto& d : (*original)->diagnostics)
        EXPECT_EQ(d.message.find("expected \""), std::string::npos) << "type warning on a valid trace: " << d.toString();

    for (const char* layout : {"minified.json", "indent2.json", "indent4_crlf.json"}) {
        SCOPED_TRACE(layout);
        auto copy = loadKinetoTrace((dir / layout).string(), one);
        ASSERT_TRUE(copy.ok()) << copy.error().toString();
        expectSameDataset(**original, **copy);
    }
    fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(RealTraces, KinetoLayout, ::testing::ValuesIn(realTraces()), testName);
