#pragma once
// Two loads of one source compared table by table, for tests that load it two ways (another layout of the file,
// one thread or several): the string pool, every column of every table, tracks, processes, threads, trace facts,
// counts and diagnostics (their table, row and event; byte offsets, lines and "byte N" in their text normalised
// away: they depend on the layout).
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/model/dataset.h"

namespace strobe::test {

using namespace strobe::core;

// A diagnostic without what depends on the layout: its byte offset, and "byte N" in its text.
inline std::string normalised(const Diagnostic& d) {
    static const std::regex kByte("byte [0-9]+");
    return std::to_string(static_cast<int>(d.severity)) + " table " + d.where.table + " row " +
           std::to_string(d.where.row) + " event " + std::to_string(d.where.eventIndex) + ": " + std::regex_replace(d.message, kByte, "byte N");
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

inline void expectSameDataset(RankData& a, RankData& b) {
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

}  // namespace strobe::test
