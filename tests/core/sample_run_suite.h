#pragma once
// Base of the test suites that load the bundled 8-rank sample once, with two threads, and share a scratch cache
// directory; both go away when the suite ends.
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/test_files.h"
#include "tests/test_paths.h"

namespace strobe::core::testing {

inline std::string sampleRun() { return std::string(STROBE_RESOURCE_DIR) + "/sample/param-dlrm-8rank"; }

class SampleRunSuite : public ::testing::Test {
protected:
    // Call from SetUpTestSuite. `useCache`: load through the cache in s_cache (else without any cache).
    static void loadSample(bool useCache) {
        s_cache = new strobe::test::TempDir("strobe-suite-cache");
        RunLoadOptions o;
        o.threads = 2;
        o.useCache = useCache;
        o.cacheDir = s_cache->path();
        auto r = loadRun({sampleRun()}, o);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        s_sample = new DatasetPtr(r.value());
    }
    static void TearDownTestSuite() {
        delete s_sample;
        delete s_cache;
        s_sample = nullptr;
        s_cache = nullptr;
    }
    static inline strobe::test::TempDir* s_cache = nullptr;
    static inline DatasetPtr* s_sample = nullptr;
};

}  // namespace strobe::core::testing
