#include "core/formats/kineto_format.h"

#include "core/formats/kineto_json.h"

namespace strobe::core {

int sniffKineto(const SniffInput& in) {
    if (in.isDirectory || !in.sqliteTables.empty()) return 0;
    std::string_view h = in.head;
    if (h.substr(0, 3) == "\xEF\xBB\xBF") h.remove_prefix(3);
    const size_t first = h.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return 0;
    if (h.find("\"rocprofiler-sdk-tool\"") != std::string_view::npos) return 0;
    if (h[first] == '{') return h.find("\"traceEvents\"") != std::string_view::npos ? 60 : 0;
    if (h[first] == '[') {
        const size_t next = h.find_first_not_of(" \t\r\n", first + 1);
        if (next != std::string_view::npos && h[next] == '{' && h.find("\"ph\"") != std::string_view::npos) return 40;
    }
    return 0;
}

namespace {

Result<std::vector<std::unique_ptr<RankData>>> loadKinetoGroup(const SourceGroup& g, const SourceLoadOptions&,
                                                               const CancelToken& cancel) {
    if (g.files.empty()) return Error(Location{g.path}, "no file to load");
    KinetoCallbacks cb;
    cb.cancel = cancel;
    auto r = loadKinetoTrace(g.files.front(), {}, cb);
    if (!r) return r.error();
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(r.value()));
    return out;
}

}  // namespace

const SourceFormat kKinetoFormat = {"kineto", "PyTorch profiler (Kineto)", "Chrome-trace JSON of the PyTorch profiler",
                                    false, sniffKineto, loadKinetoGroup};

}  // namespace strobe::core
