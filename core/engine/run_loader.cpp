// STUB — replaced by the run loader work.
#include "core/engine/run_loader.h"

namespace strobe::core {

Result<std::vector<std::string>> expandRunPaths(const std::vector<std::string>& paths) { return paths; }
int rankFromFileName(const std::string&) { return -1; }
Result<DatasetPtr> loadRun(const std::vector<std::string>&, const RunLoadOptions&, const RunCallbacks&) {
    return Error("run loader not implemented yet");
}

}  // namespace strobe::core
