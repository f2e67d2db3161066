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
#include "tests/test_paths.h"

using namespace strobe::core;
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

// A diagnostic without what depends on the layout: its byte offset, and "byte N" in its text.
std::string normalised(const Diagnostic& d) {
    static const std::regex kByte("byte [0-9]+");
    return std::to_string(static_cast<int>(d.severity)) + " event " + std::to_string(d.where.eventIndex) + ": " +
           std::regex_replace(d.message, kByte, "byte N");
}

template <class T>
void expectColumnsEqual(const T& a, const T& b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) {
            ADD_FAILURE() << what << " differs at row " << i;
            return;
        }
}

template <class Table>
void expectTablesEqual(Table& a, Table& b, const std::string& table) {
    std::vector<std::pair<std::string, const void*>> colsA;
    a.visitColumns([&](const char* name, auto& col) { colsA.emplace_back(name, &col); });
    size_t k = 0;
    b.visitColumns([&](const char* name, auto& col) {
        ASSERT_LT(k, colsA.size());
        ASSERT_EQ(colsA[k].first, name);
        using C = std::remove_reference_t<decltype(col)>;
        expectColumnsEqual(*static_cast<const C*>(colsA[k].second), col, table + "." + name);
        ++k;
    });
}

void expectSameDataset(RankData& a, RankData& b) {
    ASSERT_EQ(a.strings.size(), b.strings.size());
    for (StrId id = 0; id < a.strings.size(); ++id) {
        if (a.strings.view(id) != b.strings.view(id)) {
            ADD_FAILURE() << "string " << id << " differs: " << a.strings.view(id) << " / " << b.strings.view(id);
            break;
        }
    }
    expectTablesEqual(a.slices, b.slices, "slices");
    expectTablesEqual(a.gpu, b.gpu, "gpu");
    expectTablesEqual(a.flows, b.flows, "flows");
    expectTablesEqual(a.counters, b.counters, "counters");
    ASSERT_EQ(a.tracks.size(), b.tracks.size());
    for (size_t i = 0; i < a.tracks.size(); ++i) {
        EXPECT_EQ(a.tracks[i].pid, b.tracks[i].pid);
        EXPECT_EQ(a.tracks[i].tid, b.tracks[i].tid);
        EXPECT_EQ(a.tracks[i].pidStr, b.tracks[i].pidStr);
        EXPECT_EQ(a.tracks[i].tidStr, b.tracks[i].tidStr);
    }
    ASSERT_EQ(a.processes.size(), b.processes.size());
    for (size_t i = 0; i < a.processes.size(); ++i) {
        EXPECT_EQ(a.processes[i].name, b.processes[i].name);
        EXPECT_EQ(a.processes[i].labels, b.processes[i].labels);
        EXPECT_EQ(a.processes[i].sortIndex, b.processes[i].sortIndex);
    }
    ASSERT_EQ(a.threads.size(), b.threads.size());
    for (size_t i = 0; i < a.threads.size(); ++i) {
        EXPECT_EQ(a.threads[i].track, b.threads[i].track);
        EXPECT_EQ(a.threads[i].name, b.threads[i].name);
        EXPECT_EQ(a.threads[i].sortIndex, b.threads[i].sortIndex);
    }
    EXPECT_EQ(a.stats.events, b.stats.events);
    EXPECT_EQ(a.stats.metadataEvents, b.stats.metadataEvents);
    EXPECT_EQ(a.stats.skippedEvents, b.stats.skippedEvents);
    EXPECT_EQ(a.stats.truncated, b.stats.truncated);
    EXPECT_EQ(a.stats.eventsByCategory, b.stats.eventsByCategory);
    EXPECT_EQ(a.info.platform, b.info.platform);
    EXPECT_EQ(a.info.schemaVersion, b.info.schemaVersion);
    ASSERT_EQ(a.info.devices.size(), b.info.devices.size());
    for (size_t i = 0; i < a.info.devices.size(); ++i) {
        EXPECT_EQ(a.info.devices[i].name, b.info.devices[i].name);
        EXPECT_EQ(a.info.devices[i].warpSize, b.info.devices[i].warpSize);
        EXPECT_EQ(a.info.devices[i].totalGlobalMem, b.info.devices[i].totalGlobalMem);
        EXPECT_EQ(a.info.devices[i].rawJson, b.info.devices[i].rawJson);
    }
    EXPECT_EQ(a.info.distributed.rank, b.info.distributed.rank);
    EXPECT_EQ(a.info.distributed.worldSize, b.info.distributed.worldSize);
    EXPECT_EQ(a.info.distributed.backend, b.info.distributed.backend);
    EXPECT_EQ(a.info.distributed.processGroups.size(), b.info.distributed.processGroups.size());
    EXPECT_EQ(a.info.otherKeys, b.info.otherKeys);
    std::vector<std::string> da, db;
    for (const auto& d : a.diagnostics) da.push_back(normalised(d));
    for (const auto& d : b.diagnostics) db.push_back(normalised(d));
    EXPECT_EQ(da, db);
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
