#include "core/io/resources.h"

#include <cstdlib>
#include <system_error>

#ifndef STROBE_SOURCE_RESOURCE_DIR
#define STROBE_SOURCE_RESOURCE_DIR ""
#endif

namespace strobe::core {

namespace fs = std::filesystem;

fs::path resourceDir() {
    if (const char* env = std::getenv("STROBE_RESOURCE_DIR"); env && *env) return env;
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path installed = exe.parent_path().parent_path() / "share" / "strobe";
        if (fs::exists(installed / "classification.yaml", ec)) return installed;
    }
    return fs::path(STROBE_SOURCE_RESOURCE_DIR);
}

fs::path resourcePath(const fs::path& relative) { return resourceDir() / relative; }

static fs::path xdgDir(const char* var, const char* fallback) {
    if (const char* v = std::getenv(var); v && *v && fs::path(v).is_absolute()) return fs::path(v) / "strobe";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / fallback / "strobe";
    return fs::temp_directory_path() / "strobe";
}

fs::path userCacheDir() { return xdgDir("XDG_CACHE_HOME", ".cache"); }
fs::path userConfigDir() { return xdgDir("XDG_CONFIG_HOME", ".config"); }

}  // namespace strobe::core
