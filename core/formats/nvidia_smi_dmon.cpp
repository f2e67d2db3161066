#include "core/formats/nvidia_smi_dmon.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

// The column names of a dmon header line, or empty when `line` is not one.
std::vector<std::string> dmonHeader(std::string_view line) {
    if (line.empty() || line.front() != '#') return {};
    line.remove_prefix(1);
    auto words = telemetry::splitWords(line);
    bool gpu = false, metric = false;
    for (auto w : words) {
        if (w == "gpu") gpu = true;
        if (w == "pid" || w == "command") return {};  // pmon
        if (w == "pwr" || w == "sm" || w == "pclk" || w == "mclk" || w == "gtemp" || w == "rxpci" || w == "fb")
            metric = true;
    }
    if (!gpu || !metric) return {};
    return std::vector<std::string>(words.begin(), words.end());
}

bool parseInt(std::string_view s, int64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

struct DmonState {
    std::vector<std::string> columns;
    std::vector<telemetry::ColumnMetric> metrics;
    int gpu = -1, date = -1, time = -1;
    int64_t sample = -1;
    int64_t lastDevice = INT64_MAX;
    int64_t rows = 0, otherLines = 0, headers = 0;
};

void setColumns(DmonState& st, std::vector<std::string> cols) {
    st.columns = std::move(cols);
    st.metrics = telemetry::mapColumns(st.columns, telemetry::dmonAliases());
    auto find = [&](std::string_view n) {
        auto it = std::find(st.columns.begin(), st.columns.end(), n);
        return it == st.columns.end() ? -1 : static_cast<int>(it - st.columns.begin());
    };
    st.gpu = find("gpu");
    st.date = find("Date");
    st.time = find("Time");
}

}  // namespace

int sniffNvidiaSmiDmon(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    int score = 0;
    telemetry::forEachLine(in.head, [&](std::string_view line, int64_t) {
        if (score == 0 && !dmonHeader(line).empty()) score = 60;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseNvidiaSmiDmon(std::string_view text, const std::string& path,
                                                     const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kNvidiaSmiDmonFormat.id);
    rank->info.platform = Platform::Nvidia;
    DmonState st;
    telemetry::SkipCounter skipped;
    std::map<int, bool> devices;
    std::optional<Error> error;
    telemetry::forEachLine(text, [&](std::string_view line, int64_t lineNo) {
        if (error) return;
        if (auto h = dmonHeader(line); !h.empty()) {
            if (st.columns.empty() || h != st.columns) setColumns(st, std::move(h));
            ++st.headers;
            return;
        }
        auto words = telemetry::splitWords(line);
        if (words.empty() || line.front() == '#') return;
        int64_t device = 0;
        if (st.columns.empty() || words.size() != st.columns.size() ||
            (st.gpu >= 0 && !parseInt(words[static_cast<size_t>(st.gpu)], device)) || device < 0 || device > 32767) {
            ++st.otherLines;
            return;
        }
        int64_t ts = 0;
        if (st.date >= 0 && st.time >= 0) {
            const std::string when = fmt::format("{} {}", words[static_cast<size_t>(st.date)], words[static_cast<size_t>(st.time)]);
            auto t = telemetry::parseWallTimeNs(when);
            if (!t) {
                Location at{path};
                at.line = lineNo;
                error = Error(at, fmt::format("'{}' is not a date and time (YYYYMMDD HH:MM:SS)", when));
                return;
            }
            ts = *t;
        } else if (st.time >= 0) {
            auto t = telemetry::parseWallTimeNs(fmt::format("1970/01/01 {}", words[static_cast<size_t>(st.time)]));
            if (!t) {
                Location at{path};
                at.line = lineNo;
                error = Error(at, fmt::format("'{}' is not a time (HH:MM:SS)", words[static_cast<size_t>(st.time)]));
                return;
            }
            ts = *t;
        } else {
            if (device <= st.lastDevice) ++st.sample;
            ts = st.sample * 1'000'000'000LL;
        }
        st.lastDevice = device;
        devices[static_cast<int>(device)] = true;
        ++st.rows;
        for (size_t i = 0; i < words.size(); ++i) {
            if (static_cast<int>(i) == st.gpu || static_cast<int>(i) == st.date || static_cast<int>(i) == st.time) continue;
            const auto v = telemetry::parseValue(words[i]);
            if (v.kind != telemetry::ValueKind::Number) {
                skipped.add(v, st.columns[i]);
                continue;
            }
            telemetry::appendSample(*rank, ts, static_cast<int16_t>(device), st.metrics[i].metric, v.value * st.metrics[i].scale);
        }
    });
    if (error) return *error;
    if (st.headers == 0) return Error(Location{path}, "no nvidia-smi dmon header line ('# gpu pwr ...') found");
    for (const auto& [d, present] : devices) {
        DeviceProperties p;
        p.id = d;
        rank->info.devices.push_back(std::move(p));
    }
    if (st.date >= 0 && st.time >= 0) {
        telemetry::setClock(rank->info, ClockDomain::LocalWallTime, options, {});
    } else if (st.time >= 0) {
        telemetry::setClock(rank->info, ClockDomain::LocalWallTime, options, {});
        rank->diagnostics.push_back({Severity::Warning, Location{path},
                                     "dmon wrote the time of day only (-o T): the date is unknown, times are on 1970-01-01"});
    } else {
        telemetry::setClock(rank->info, ClockDomain::Relative, options, {});
        rank->diagnostics.push_back({Severity::Warning, Location{path},
                                     "dmon wrote no time (run it with -o DT to get one): samples are placed 1 s apart "
                                     "(dmon's default interval) in the order written"});
    }
    if (st.otherLines > 0)
        rank->diagnostics.push_back({Severity::Info, Location{path},
                                     fmt::format("{} lines that are not dmon rows were skipped", st.otherLines)});
    skipped.report(*rank, path);
    rank->stats.events = static_cast<uint64_t>(st.rows);
    return rank;
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadDmon(const SourceGroup& g, const SourceLoadOptions& o,
                                                       const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseNvidiaSmiDmon);
}
}  // namespace

const SourceFormat kNvidiaSmiDmonFormat = {"nvidia-smi-dmon", "nvidia-smi",
                                           "nvidia-smi dmon per-device monitor text (power, clocks, temperature...)",
                                           false, &sniffNvidiaSmiDmon, &loadDmon};

}  // namespace strobe::core
