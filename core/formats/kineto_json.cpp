// STUB — replaced by the loader work. Returns an error so callers can be built and linked meanwhile.
#include "core/formats/kineto_json.h"

namespace strobe::core {

Result<std::unique_ptr<RankData>> loadKinetoTrace(const std::string& path, const KinetoLoadOptions&,
                                                  const KinetoCallbacks&) {
    return Error(Location{path}, "Kineto loader not implemented yet");
}

Result<std::unique_ptr<RankData>> loadKinetoText(std::string_view, const std::string& name,
                                                 const KinetoLoadOptions&, const KinetoCallbacks&) {
    return Error(Location{name}, "Kineto loader not implemented yet");
}

}  // namespace strobe::core
