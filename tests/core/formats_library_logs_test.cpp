// The MIOpen, Tensile and RCCL call logs (core/formats/{miopen,tensile,rccl}_log.h) on the sample logs in
// tests/data/library-logs, built from the libraries' documentation and sources (not captured from a run: see
// tests/data/SOURCES.md): every call's name, the calls per name and chosen arguments equal the independent regex
// parse in tests/data/expected/library_logs.csv (written by tests/data/expected/library_logs.py); each format is
// recognised by content and an ordinary workload log is not; a truncated or garbled line is a Warning naming the file
// and line; a log without calls is an error naming the file.
#include <QJsonDocument>
#include <QJsonObject>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/formats/miopen_log.h"
#include "core/formats/rccl_log.h"
#include "core/formats/rocblas_log.h"
#include "core/formats/source_detect.h"
#include "core/formats/tensile_log.h"
#include "core/model/run_manifest.h"
#include "tests/test_paths.h"

namespace strobe::core {
namespace {

const std::string kLogs = std::string(STROBE_TEST_DATA_DIR) + "/library-logs/";

std::string libraryLogRead(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct LibraryLogExpected {
    int64_t total = -1;
    std::map<std::string, int64_t> calls;
    std::map<std::pair<size_t, std::string>, std::string> args;
};

std::map<std::string, LibraryLogExpected> libraryLogExpected() {
    std::map<std::string, LibraryLogExpected> out;
    std::ifstream csv(std::string(STROBE_TEST_DATA_DIR) + "/expected/library_logs.csv");
    std::string line;
    std::getline(csv, line);  // header
    while (std::getline(csv, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        if (f.size() == 3) f.emplace_back();
        EXPECT_EQ(f.size(), 4u) << line;
        if (f.size() != 4) continue;
        LibraryLogExpected& e = out[f[0]];
        if (f[1] == "total")
            e.total = std::stoll(f[3]);
        else if (f[1] == "calls")
            e.calls[f[2]] = std::stoll(f[3]);
        else {
            const size_t colon = f[2].find(':');
            e.args[{std::stoul(f[2].substr(0, colon)), f[2].substr(colon + 1)}] = f[3];
        }
    }
    return out;
}

std::string libraryLogArg(const RankData& rank, size_t i, const std::string& key) {
    const QJsonObject a =
        QJsonDocument::fromJson(QByteArray::fromStdString(std::string(rank.strings.view(rank.slices.args[i]))))
            .object();
    const QJsonValue v = a[QString::fromStdString(key)];
    if (v.isString()) return v.toString().toStdString();
    if (v.isDouble()) return std::to_string(v.toInteger());
    return "<" + key + " missing>";
}

void expectSameAsPython(const RankData& rank, const LibraryLogExpected& e, std::string_view category) {
    ASSERT_EQ(static_cast<int64_t>(rank.slices.size()), e.total);
    std::map<std::string, int64_t> got;
    for (size_t i = 0; i < rank.slices.size(); ++i) {
        ++got[std::string(rank.strings.view(rank.slices.name[i]))];
        EXPECT_EQ(rank.strings.view(rank.slices.cat[i]), category);
        // Every call's args are one JSON object.
        EXPECT_FALSE(
            QJsonDocument::fromJson(QByteArray::fromStdString(std::string(rank.strings.view(rank.slices.args[i]))))
                .object()
                .isEmpty())
            << i;
    }
    EXPECT_EQ(got, e.calls);
    for (const auto& [at, value] : e.args) EXPECT_EQ(libraryLogArg(rank, at.first, at.second), value) << at.second;
    for (const auto& d : rank.diagnostics) EXPECT_EQ(d.severity, Severity::Info) << d.message;
}

struct LibrarySample {
    const char* file;
    const char* format;
    const char* category;
    Result<std::unique_ptr<RankData>> (*parse)(std::string_view, const std::string&, const SourceLoadOptions&);
};
const LibrarySample kLibrarySamples[] = {
    {"miopen_logging_cmd_docs.log", "miopen", "miopen", &parseMiopenLog},
    {"tensile_db_docs.log", "tensile", "tensile", &parseTensileLog},
    {"rccl.gpu-node-01.40211.log", "rccl", "rccl", &parseRcclLog},
};

TEST(LibraryLogs, TheSamplesParseToTheSameCallsAndArgsAsPython) {
    const auto expected = libraryLogExpected();
    for (const LibrarySample& s : kLibrarySamples) {
        SCOPED_TRACE(s.file);
        const std::string path = kLogs + s.file;
        auto r = s.parse(libraryLogRead(path), path, {});
        ASSERT_TRUE(r.ok()) << r.error().toString();
        ASSERT_TRUE(expected.contains(s.format));
        expectSameAsPython(**r, expected.at(s.format), s.category);
        EXPECT_EQ((*r)->info.clock.domain, ClockDomain::Relative);
    }
}

TEST(LibraryLogs, EachSampleIsRecognisedByContentAndAWorkloadLogIsNot) {
    for (const auto& [file, id] :
         std::vector<std::pair<std::string, std::string>>{{"miopen_logging_cmd_docs.log", "miopen-log"},
                                                          {"tensile_db_docs.log", "tensile-log"},
                                                          {"rccl.gpu-node-01.40211.log", "rccl-log"},
                                                          {"rocblas_layer4_hgemm_transformer.txt", "rocblas-log"}}) {
        auto sniffed = readSniffInput(kLogs + file);
        ASSERT_TRUE(sniffed.ok());
        const SourceFormat* f = bestFormat(sniffed->input);
        ASSERT_NE(f, nullptr) << file;
        EXPECT_STREQ(f->id, id.c_str()) << file;
    }
    // A workload's own output, with words the readers look for in the wrong places, is no library log.
    const std::string workload =
        "Running kernel: 5.15.0-91-generic\n"
        "using MIOpen(HIP) 3.1 for convolutions: Command line ok\n"
        "rank 0: NCCL INFO is on; AllReduce: opCount unknown\n"
        "epoch 1 loss 0.25\n";
    SniffInput in;
    in.path = "workload.log";
    in.head = workload;
    EXPECT_EQ(sniffMiopenLog(in), 0);
    EXPECT_EQ(sniffTensileLog(in), 0);
    EXPECT_EQ(sniffRcclLog(in), 0);
    EXPECT_EQ(bestFormat(in), nullptr);
}

bool libraryLogWarned(const RankData& rank, int64_t line, std::string_view text) {
    for (const auto& d : rank.diagnostics)
        if (d.severity == Severity::Warning && d.where.file == "bad.log" && d.where.line == line &&
            d.message.find(text) != std::string::npos)
            return true;
    return false;
}

TEST(LibraryLogs, TruncatedOrGarbledLinesAreWarningsNamingFileAndLine) {
    const std::string rccl =
        "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 "
        "[nranks=2] stream 0x4\n"
        "h:1:1 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x2 cou\n"
        "h:1:1 [0] NCCL INFO AllReduce: opCount zz sendbuff 0x1 recvbuff 0x2 count 8 datatype 7\n"
        "garbage NCCL INFO Broadcast: opCount 2 count 1 datatype 0\n";
    auto r = parseRcclLog(rccl, "bad.log", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ((*r)->slices.size(), 1u);
    EXPECT_TRUE(libraryLogWarned(**r, 2, "truncated")) << (*r)->diagnostics.size();
    EXPECT_TRUE(libraryLogWarned(**r, 3, "not a number"));
    EXPECT_TRUE(libraryLogWarned(**r, 4, "prefix"));
    EXPECT_EQ(libraryLogArg(**r, 0, "bytes"), "32");
    EXPECT_EQ(libraryLogArg(**r, 0, "datatype"), "float32");
    EXPECT_EQ(libraryLogArg(**r, 0, "reduce_op"), "sum");

    const std::string miopen =
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 1 -F 2\n"
        "MIOpen(HIP): Command [LogCmdConvolution ./bin/MIOpenDriver conv -n 1\n"
        "MIOpen: Command [LogCmdConvolution] ./bin/MIOpenDr\n"
        "MIOpen(HIP): Command [LogCmdBNorm] ./bin/MIOpenDriver -n 3\n";
    r = parseMiopenLog(miopen, "bad.log", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ((*r)->slices.size(), 1u);
    EXPECT_EQ((*r)->strings.view((*r)->slices.name[0]), "conv bwd");
    EXPECT_TRUE(libraryLogWarned(**r, 2, "']'"));
    EXPECT_TRUE(libraryLogWarned(**r, 3, "without the MIOpenDriver command"));
    EXPECT_TRUE(libraryLogWarned(**r, 4, "sub-command"));

    r = parseTensileLog("Running kernel: Cijk_Ailk_Bljk_SB_MT064x032x32\nRunning kernel: \n", "bad.log", {});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ((*r)->slices.size(), 1u);
    EXPECT_TRUE(libraryLogWarned(**r, 2, "without a kernel name"));
}

TEST(LibraryLogs, ALogWithoutCallsIsAnErrorNamingTheFile) {
    for (const LibrarySample& s : kLibrarySamples) {
        auto r = s.parse("epoch 1 loss 0.5\nh:1:1 [0] NCCL INFO Init COMPLETE\n", "empty.log", {});
        ASSERT_FALSE(r.ok()) << s.file;
        EXPECT_NE(r.error().toString().find("empty.log"), std::string::npos);
        EXPECT_NE(r.error().toString().find("found"), std::string::npos);
    }
}

// A collected run whose workload printed more than the sniffed head before MIOpen's first command: the manifest says
// the miopen-log tool wrote workload.log, so the run still opens it as MIOpen's log, and as Tensile's too, the
// tensile-log tool having run (both write into workload.log); a file no tool claimed is left alone.
TEST(LibraryLogs, ACollectedRunOpensTheLogsItsManifestNamesPastTheSniffedHead) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(::testing::TempDir()) / "strobe_library_logs_run";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string text;
    while (text.size() < 100 * 1024) text += "step 1 of 1000: loss 0.125 (the workload's own output)\n";
    text += libraryLogRead(kLogs + "miopen_logging_cmd_docs.log") + libraryLogRead(kLogs + "tensile_db_docs.log");
    std::ofstream(dir / "workload.log", std::ios::binary) << text;
    std::ofstream(dir / "notes.txt") << "nothing\n";
    RunManifest m;
    m.tools = {ManifestTool{"miopen-log", "", {}}, ManifestTool{"tensile-log", "", {}}};
    m.files = {ManifestFile{"notes.txt", 8, "", ""},
               ManifestFile{"workload.log", text.size(), "miopen-log", "miopen-log"}};
    ASSERT_TRUE(writeRunManifest(dir.string(), m).ok());
    auto groups = detectSources({dir.string()});
    ASSERT_TRUE(groups.ok()) << groups.error().toString();
    std::vector<std::string> formats;
    for (const SourceGroup& g : *groups) formats.push_back(g.format);
    EXPECT_EQ(formats, (std::vector<std::string>{"miopen-log", "tensile-log"}));
    auto miopen = parseMiopenLog(text, "workload.log", {});
    ASSERT_TRUE(miopen.ok());
    EXPECT_EQ((*miopen)->slices.size(), 12u);
    auto tensile = parseTensileLog(text, "workload.log", {});
    ASSERT_TRUE(tensile.ok());
    EXPECT_EQ((*tensile)->slices.size(), 8u);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace strobe::core
