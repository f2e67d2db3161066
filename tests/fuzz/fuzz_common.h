#pragma once
// Shared checks for fuzz targets: walk what was loaded (so ASan sees every column read) and insist that
// errors say something. Header-only so that every target and the replay driver use the same code.

#include <cstdlib>

#include "core/analysis/registry.h"
#include "core/io/error.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"
#include "core/model/dataset.h"

namespace strobe::fuzz {

inline void checkError(const core::Error& e) {
    if (e.message.empty()) std::abort();  // an error must say what went wrong
}

// Reads every row of the main tables and their strings.
inline void walkRank(const core::RankData& rank) {
    volatile uint64_t sink = 0;
    const auto& s = rank.slices;
    for (size_t i = 0; i < s.size(); ++i) sink = sink + s.ts[i] + rank.strings.view(s.name[i]).size();
    const auto& g = rank.gpu;
    for (size_t i = 0; i < g.size(); ++i) sink = sink + g.dur[i] + rank.strings.view(g.name[i]).size();
    for (size_t i = 0; i < rank.tracks.size(); ++i) sink = sink + rank.strings.view(rank.tracks[i].pidStr).size();
    for (const auto& d : rank.diagnostics) sink = sink + d.message.size();
    (void)sink;
}

// Merges (classification included), then walks what came out.
inline void exerciseRank(core::RankData& rank) {
    static const core::ClassificationRules rules = [] {
        auto r = core::ClassificationRules::loadDefault();
        return r.ok() ? std::move(r.value()) : core::ClassificationRules{};
    }();
    auto st = core::mergeRank(rank, rules);
    if (!st.ok()) checkError(st.error());
    walkRank(rank);
}

// Every analysis with its default options over the whole trace: errors must say something.
inline void runEveryAnalysis(const core::DatasetPtr& dataset) {
    core::AnalysisContext ctx(dataset);
    for (const auto& info : core::analysisRegistry()) {
        core::AnalysisRequest request;
        request.window = core::WindowSpec{};
        auto table = core::runAnalysis(ctx, info.name, request);
        if (!table.ok()) checkError(table.error());
    }
}

}  // namespace strobe::fuzz
