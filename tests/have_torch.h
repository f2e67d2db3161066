#pragma once
// Whether Debian's python3-torch is importable by /usr/bin/python3: tests of the real PyTorch workload skip without
// it on a developer's machine, and fail instead under CI (CI=true), where .ci/setup installs it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace strobe::test {

inline bool haveTorch() {
    const bool ci = std::getenv("CI") && std::string(std::getenv("CI")) == "true";
    const bool have = std::filesystem::exists("/usr/bin/python3") &&
                      std::system("/usr/bin/python3 -c 'import importlib.util,sys; sys.exit(importlib.util.find_spec(\"torch\") is None)'"
                                  " >/dev/null 2>&1") == 0;
    if (!have && ci) ADD_FAILURE() << "CI=true but /usr/bin/python3 cannot import torch (.ci/setup installs python3-torch)";
    return have;
}

}  // namespace strobe::test
