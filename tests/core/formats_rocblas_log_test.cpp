// rocBLAS profile log (core/formats/rocblas_log.h) on the real log in tests/data/library-logs (ROCm/rocBLAS,
// scripts/performance/hgemm_transformer.sh, MIT: 4282 rocblas_gemm_ex lines of a transformer run): every call, its
// transposes, M, N, K and count, equal to the independent PyYAML parse in tests/data/expected/rocblas_log.csv
// (written by tests/data/expected/rocblas_log.py); the format is recognised by content; bad input is an error naming
// the file.
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/formats/rocblas_log.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

std::string rocblasTestRead(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

using RocblasKey = std::tuple<std::string, std::string, std::string, int64_t, int64_t, int64_t>;

std::string jsonText(const QJsonValue& v) {
    return v.isString() ? v.toString().toStdString() : std::to_string(v.toInteger());
}

TEST(RocblasLog, TheRealLogParsesToTheSameCallsAndCountsAsPython) {
    const std::string path = std::string(STROBE_TEST_DATA_DIR) + "/library-logs/rocblas_layer4_hgemm_transformer.txt";
    const std::string text = rocblasTestRead(path);
    ASSERT_FALSE(text.empty());
    SniffInput in;
    in.path = path;
    in.head = std::string_view(text).substr(0, 65536);
    EXPECT_EQ(sniffRocblasLog(in), 80);
    ASSERT_NE(findSourceFormat("rocblas-log"), nullptr);
    auto r = parseRocblasLog(text, path, {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const RankData& rank = **r;
    // Python's groups: (function, transA, transB, M, N, K) -> (lines, count), in file order.
    std::map<RocblasKey, std::pair<int64_t, int64_t>> expected;
    int64_t expectedLines = 0, expectedTotal = 0;
    std::ifstream csv(std::string(STROBE_TEST_DATA_DIR) + "/expected/rocblas_log.csv");
    std::string line;
    std::getline(csv, line);  // header
    while (std::getline(csv, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        ASSERT_EQ(f.size(), 8u) << line;
        if (f[0] == "TOTAL") {
            expectedLines = std::stoll(f[6]);
            expectedTotal = std::stoll(f[7]);
            continue;
        }
        expected[{f[0], f[1], f[2], std::stoll(f[3]), std::stoll(f[4]), std::stoll(f[5])}] = {std::stoll(f[6]),
                                                                                              std::stoll(f[7])};
    }
    ASSERT_EQ(expectedLines, 4282);
    std::map<RocblasKey, std::pair<int64_t, int64_t>> got;
    int64_t total = 0;
    ASSERT_EQ(static_cast<int64_t>(rank.slices.size()), expectedLines);
    for (size_t i = 0; i < rank.slices.size(); ++i) {
        const QJsonObject a =
            QJsonDocument::fromJson(QByteArray::fromStdString(std::string(rank.strings.view(rank.slices.args[i])))).object();
        ASSERT_FALSE(a.isEmpty()) << i;
        const RocblasKey key{std::string(rank.strings.view(rank.slices.name[i])), jsonText(a["transA"]),
                             jsonText(a["transB"]), a["M"].toInteger(), a["N"].toInteger(), a["K"].toInteger()};
        auto& g = got[key];
        g.first += 1;
        g.second += a["count"].toInteger();
        total += a["count"].toInteger();
        EXPECT_EQ(rank.strings.view(rank.slices.cat[i]), "rocblas");
    }
    EXPECT_EQ(total, expectedTotal);
    EXPECT_EQ(got, expected);
    bool said = false;
    for (const auto& d : rank.diagnostics) said = said || d.message.find("hold no times") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(RocblasLog, CallCountWinsOverItersAndOtherLinesAreSkipped) {
    const std::string text =
        "rocblas_sgemm,N,N,4,4,4\n"
        "- {rocblas_function: rocblas_sgemm, transA: N, transB: T, M: 8, N: 16, K: 32, alpha: 1.0, call_count: 12}\n"
        "- {rocblas_function: rocblas_dgemv, trans: N, M: 7, N: 9, iters: 3 }\n";
    auto r = parseRocblasLog(text, "x.log", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->slices.size(), 2u);
    const auto args0 = std::string((*r)->strings.view((*r)->slices.args[0]));
    EXPECT_EQ(args0, R"({"transA":"N","transB":"T","M":8,"N":16,"K":32,"alpha":1.0,"call_count":12,"count":12})");
    EXPECT_NE(std::string((*r)->strings.view((*r)->slices.args[1])).find("\"count\":3}"), std::string::npos);
    bool skipped = false;
    for (const auto& d : (*r)->diagnostics) skipped = skipped || d.message.find("1 lines that are not profile") == 0;
    EXPECT_TRUE(skipped);
}

TEST(RocblasLog, NoProfileLineIsAnErrorNamingTheFile) {
    auto r = parseRocblasLog("hello\n- {rocblas_function: , M: 1}\n", "bad.log", {});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("bad.log"), std::string::npos);
    EXPECT_NE(r.error().toString().find("no rocBLAS profile line"), std::string::npos);
}

}  // namespace
}  // namespace strobe::core
