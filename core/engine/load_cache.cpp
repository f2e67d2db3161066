// STUB — replaced by the load cache work.
#include "core/engine/load_cache.h"

namespace strobe::core {

LoadCache::LoadCache(std::filesystem::path dir) : m_dir(std::move(dir)) {}
std::filesystem::path LoadCache::entryFor(const std::string&) const { return {}; }
Result<std::shared_ptr<RankData>> LoadCache::read(const std::string& sourcePath) const {
    return Error(Location{sourcePath}, "load cache not implemented yet");
}
Status LoadCache::write(const std::string& sourcePath, const RankData&) const {
    return Error(Location{sourcePath}, "load cache not implemented yet");
}

}  // namespace strobe::core
