#pragma once
// Where Strobe's resources (classification rules, tool specs, the bundled sample run) are found:
// $STROBE_RESOURCE_DIR, else <exe>/../share/strobe (installed), else the source tree's resources/.

#include <filesystem>

namespace strobe::core {

std::filesystem::path resourceDir();
std::filesystem::path resourcePath(const std::filesystem::path& relative);
// The user's cache directory for Strobe: $XDG_CACHE_HOME/strobe or ~/.cache/strobe.
std::filesystem::path userCacheDir();
// The user's config directory for Strobe: $XDG_CONFIG_HOME/strobe or ~/.config/strobe.
std::filesystem::path userConfigDir();

}  // namespace strobe::core
