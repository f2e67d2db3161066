#pragma once
// Where the tests find the checkout's data and resources and the strobe-cli they run. The paths are compiled into one
// small object (tests/test_paths.cpp, the library strobe_test_paths), not into every test file: a test object then
// has the same text in every clone, and a compiler cache warmed by one clone (a developer's, the last CI run's)
// serves the next. Each returns an absolute path with no trailing slash.
#include <string>

namespace strobe::test {

const char* testDataDir();   // tests/data
const char* resourceDir();   // resources/
const char* cliPath();       // the strobe-cli binary of this build
const char* slurmScripts();  // tests/slurm (the one-node cluster's start and stop scripts)

}  // namespace strobe::test

// The names the tests have always used; each is a `const char*` expression (not a literal: no concatenation).
#define STROBE_TEST_DATA_DIR (::strobe::test::testDataDir())
#define STROBE_RESOURCE_DIR (::strobe::test::resourceDir())
#define STROBE_CLI_PATH (::strobe::test::cliPath())
#define STROBE_SLURM_SCRIPTS (::strobe::test::slurmScripts())
