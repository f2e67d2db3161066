#pragma once
// Tests: a run converted as `strobe-cli convert` does it, in process: each source loaded alone through the load cache
// in `dir` and its ranks' summaries written there (core/engine/converted_run.h).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/converted_run.h"
#include "core/engine/load_cache.h"
#include "core/engine/run_loader.h"

namespace strobe::test {

inline void convertRun(const std::string& run, const std::filesystem::path& dir) {
    auto sources = core::expandRunPaths({run});
    ASSERT_TRUE(sources.ok()) << sources.error().toString();
    auto key = core::convertOptionsKey();
    ASSERT_TRUE(key.ok());
    for (const auto& source : *sources) {
        auto stamp = core::LoadCache::stamp(source);
        ASSERT_TRUE(stamp.ok());
        core::RunLoadOptions o;
        o.cacheDir = dir;
        o.wholeRun = false;
        auto ds = core::loadRun({source}, o);
        ASSERT_TRUE(ds.ok()) << ds.error().toString();
        ASSERT_TRUE(core::writeSourceSummaries(**ds, source, *stamp, dir, *key).ok());
    }
}

}  // namespace strobe::test
