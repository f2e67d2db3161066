// The one object that holds this checkout's and this build's paths (see test_paths.h); CMake defines them here only.
#include "tests/test_paths.h"

namespace strobe::test {

const char* testDataDir() { return STROBE_TEST_PATHS_DATA_DIR; }
const char* resourceDir() { return STROBE_TEST_PATHS_RESOURCE_DIR; }
const char* cliPath() { return STROBE_TEST_PATHS_CLI; }
const char* slurmScripts() { return STROBE_TEST_PATHS_SLURM_SCRIPTS; }

}  // namespace strobe::test
