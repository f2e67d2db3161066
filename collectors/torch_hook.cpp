#include "collectors/torch_hook.h"

#include <algorithm>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fmt/format.h>

namespace strobe::collectors {

namespace fs = std::filesystem;

namespace {

std::string torchModeLine(const QJsonObject& a, const std::string& trace, bool written) {
    const std::string mode = a["mode"].toString("explicit").toStdString();
    std::string how;
    if (mode == "steps") {
        how = fmt::format("optimizer steps ({}), schedule wait {}, warm-up {}, active {}",
                          a["optimizer"].toString("?").toStdString(), a["wait"].toInt(), a["warmup"].toInt(),
                          a["active"].toInt());
        if (a.contains("steps_range")) {
            const std::string asked = a["steps_range"].toString().toStdString();
            const std::string got = a["recorded_steps"].toString().toStdString();
            how += got.empty() || got == asked
                       ? fmt::format(" (--steps {})", asked)
                       : fmt::format(" (--steps {}, but the trace holds ProfilerStep#{}: this torch labels steps "
                                     "differently; shift the range)", asked, got);
        }
    } else if (mode == "time") {
        const double duration = a["duration_s"].toDouble();
        how = fmt::format("time window (no optimizer step): from {} s after torch was imported, {}", a["delay_s"].toDouble(),
                          duration > 0 ? fmt::format("for {} s", duration) : std::string("to the process's end"));
    } else {
        how = fmt::format("the script's own strobe_torch.profile() ({} steps marked)",
                          std::max<qsizetype>(0, a["steps"].toArray().size() - 1));
    }
    return fmt::format("{} (rank {}, pid {}): {}{}", trace, a["rank"].toInt(), a["pid"].toInteger(), how,
                       written ? "" : "; no trace written");
}

}  // namespace

std::vector<std::string> torchProfileModes(const fs::path& torchDir) {
    std::vector<fs::path> anchors;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(torchDir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.ends_with("_clock_anchor.json")) anchors.push_back(e.path());
    }
    std::sort(anchors.begin(), anchors.end());
    std::vector<std::string> out;
    for (const auto& p : anchors) {
        QFile f(QString::fromStdString(p.string()));
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QJsonObject a = QJsonDocument::fromJson(f.read(1 << 20)).object();
        std::string name = p.filename().string();
        const std::string trace = name.substr(0, name.size() - std::string("_clock_anchor.json").size()) + "_trace.json";
        out.push_back(torchModeLine(a, trace, fs::exists(torchDir / trace, ec)));
    }
    return out;
}

}  // namespace strobe::collectors
