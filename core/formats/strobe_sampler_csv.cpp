#include "core/formats/strobe_sampler_csv.h"

#include <charconv>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

int sniffStrobeSamplerCsv(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    const auto header = csvHeaderOf(in.head);
    return !header.empty() && header.front() == "t_realtime_ns" ? 95 : 0;
}

namespace {

// "gpu3.power_w" → {3, "power_w"}; anything else → {-1, name}.
std::pair<int, std::string> splitDeviceMetric(const std::string& column) {
    if (column.size() > 4 && column.compare(0, 3, "gpu") == 0) {
        const size_t dot = column.find('.');
        int n = -1;
        if (dot != std::string::npos && dot > 3) {
            auto [end, ec] = std::from_chars(column.data() + 3, column.data() + dot, n);
            if (ec == std::errc() && end == column.data() + dot && n >= 0 && n <= 32767 && dot + 1 < column.size())
                return {n, column.substr(dot + 1)};
        }
    }
    return {-1, column};
}

}  // namespace

Result<std::unique_ptr<RankData>> parseStrobeSamplerCsv(std::string_view text, const std::string& path,
                                                        const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kStrobeSamplerCsvFormat.id);
    CsvReader csv(text, path);
    if (Status s = csv.readHeader(); !s) return s.error();
    const int rt = csv.column("t_realtime_ns");
    const int mono = csv.column("t_monotonic_ns");
    const int boot = csv.column("t_boottime_ns");
    const int dev = csv.column("device");
    if (rt < 0) return Error(Location{path}, "no t_realtime_ns column: not a Strobe sampler CSV");
    const auto& header = csv.header();
    std::vector<std::pair<int, std::string>> metric(header.size());
    for (size_t i = 0; i < header.size(); ++i) metric[i] = splitDeviceMetric(header[i]);
    telemetry::SkipCounter skipped;
    bool first = true;
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) break;
        auto t = csv.toInt(rt);
        if (!t) return csv.error(fmt::format("t_realtime_ns '{}' is not an integer", csv.field(rt)));
        if (first) {
            telemetry::ClockAnchors a;
            a.realtimeNs = *t;
            if (mono >= 0) a.monotonicNs = csv.toInt(mono);
            if (boot >= 0) a.boottimeNs = csv.toInt(boot);
            telemetry::storeClockAnchors(rank->info, a);
            first = false;
        }
        int16_t rowDevice = -1;
        if (dev >= 0) {
            auto d = csv.toInt(dev);
            if (!d || *d < -1 || *d > 32767) return csv.error(fmt::format("device '{}' is not a device index", csv.field(dev)));
            rowDevice = static_cast<int16_t>(*d);
        }
        for (size_t i = 0; i < header.size(); ++i) {
            const int c = static_cast<int>(i);
            if (c == rt || c == mono || c == boot || c == dev) continue;
            const auto v = telemetry::parseValue(csv.field(i));
            if (v.kind != telemetry::ValueKind::Number) {
                skipped.add(v, header[i]);
                continue;
            }
            const int16_t d = metric[i].first >= 0 ? static_cast<int16_t>(metric[i].first) : rowDevice;
            telemetry::appendSample(*rank, *t, d, metric[i].second, v.value);
        }
    }
    telemetry::setClock(rank->info, ClockDomain::Realtime, options, "t_realtime_ns");
    skipped.report(*rank, path);
    rank->stats.events = rank->samples.size();
    return rank;
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadSampler(const SourceGroup& g, const SourceLoadOptions& o,
                                                          const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseStrobeSamplerCsv);
}
}  // namespace

const SourceFormat kStrobeSamplerCsvFormat = {"strobe-sampler-csv", "strobe",
                                              "Strobe's sampler CSV (t_realtime_ns, t_monotonic_ns, t_boottime_ns, metrics)",
                                              false, &sniffStrobeSamplerCsv, &loadSampler};

}  // namespace strobe::core
