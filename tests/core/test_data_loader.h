#pragma once
// Loads a file or directory of tests/data (path relative to it, no load cache) as the tests on real data do; an empty
// dataset (and a failed expectation naming the error) when it does not load.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/engine/run_loader.h"
#include "tests/test_paths.h"

namespace strobe::core::testutil {

inline DatasetPtr loadTestData(const std::string& rel) {
    RunLoadOptions o;
    o.useCache = false;
    auto d = loadRun({std::string(STROBE_TEST_DATA_DIR) + "/" + rel}, o);
    EXPECT_TRUE(d.ok()) << rel << ": " << (d.ok() ? "" : d.error().toString());
    return d.ok() ? d.value() : std::make_shared<Dataset>();
}

}  // namespace strobe::core::testutil
