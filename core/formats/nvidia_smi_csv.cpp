#include "core/formats/nvidia_smi_csv.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

namespace {

// Columns that identify a GPU or the sample rather than measure anything.
bool isIdentityColumn(std::string_view name) {
    static const std::set<std::string_view> ids = {"timestamp", "index", "name", "gpu_name", "uuid", "gpu_uuid",
                                                   "serial", "gpu_serial", "pci.bus_id", "gpu_bus_id",
                                                   "driver_version", "vbios_version", "hostname"};
    return ids.count(name) != 0;
}

bool looksLikeNvidiaSmiField(std::string_view name) {
    static const std::vector<std::string_view> prefixes = {"utilization.", "clocks.", "power.", "temperature.",
                                                           "memory.", "pci.", "fan.", "pcie.", "ecc.",
                                                           "clocks_event_reasons", "enforced.power"};
    return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.substr(0, p.size()) == p; });
}

}  // namespace

int sniffNvidiaSmiCsv(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    const auto header = csvHeaderOf(in.head);
    int known = 0;
    bool hasTime = false;
    for (const auto& h : header) {
        const auto n = telemetry::splitHeader(h).name;
        if (n == "t_realtime_ns") return 0;  // Strobe's sampler
        if (looksLikeNvidiaSmiField(n)) ++known;
        if (n == "timestamp" || n == "index" || n == "pci.bus_id") hasTime = true;
    }
    if (known >= 2 || (known >= 1 && hasTime)) return 70;
    return 0;
}

namespace {

struct Columns {
    int timestamp = -1, index = -1, bus = -1, name = -1, driver = -1;
};

void fillDevices(RankData& rank, const std::map<int, std::string>& names, const std::map<int, double>& memTotal) {
    for (const auto& [id, name] : names) {
        DeviceProperties d;
        d.id = id;
        d.name = name;
        if (auto it = memTotal.find(id); it != memTotal.end())
            d.totalGlobalMem = static_cast<int64_t>(it->second * 1024.0 * 1024.0);
        rank.info.devices.push_back(std::move(d));
    }
}

}  // namespace

Result<std::unique_ptr<RankData>> parseNvidiaSmiCsv(std::string_view text, const std::string& path,
                                                    const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kNvidiaSmiCsvFormat.id);
    rank->info.platform = Platform::Nvidia;
    CsvReader csv(text, path);
    if (Status s = csv.readHeader(); !s) return s.error();
    const auto& header = csv.header();
    Columns c{csv.column("timestamp"), csv.column("index"), csv.column("pci.bus_id"), csv.column("name"),
              csv.column("driver_version")};
    const auto metrics = telemetry::mapColumns(header, telemetry::nvidiaSmiAliases());
    std::vector<bool> measure(header.size());
    for (size_t i = 0; i < header.size(); ++i) measure[i] = !isIdentityColumn(telemetry::splitHeader(header[i]).name);

    telemetry::SkipCounter skipped;
    // When devices come from pci.bus_id: each bus once (busIds, busList), and per sample row its bus's index.
    std::map<std::string, uint32_t, std::less<>> busIds;
    std::vector<std::string> busList;
    std::vector<uint32_t> busOfRow;
    std::map<std::string, std::string> nameByBus;
    std::map<int, std::string> names;
    std::map<int, double> memTotal;
    const auto memTotalName = std::string(telemetry::kMemTotalMib);
    int64_t ordinal = 0;
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) break;
        int64_t ts = ordinal * 1'000'000'000LL;
        if (c.timestamp >= 0) {
            auto t = telemetry::parseWallTimeNs(csv.field(c.timestamp));
            if (!t) return csv.error(fmt::format("timestamp '{}' is not a date and time (YYYY/MM/DD HH:MM:SS.mmm)",
                                                 csv.field(c.timestamp)));
            ts = *t;
        }
        ++ordinal;
        int16_t device = 0;
        uint32_t bus = 0;
        if (c.index >= 0) {
            auto v = csv.toInt(c.index);
            if (!v || *v < 0 || *v > 32767) return csv.error(fmt::format("index '{}' is not a GPU index", csv.field(c.index)));
            device = static_cast<int16_t>(*v);
        } else if (c.bus >= 0) {
            const std::string_view b = csv.field(c.bus);
            auto it = busIds.find(b);
            if (it == busIds.end()) {
                it = busIds.emplace(std::string(b), static_cast<uint32_t>(busList.size())).first;
                busList.emplace_back(b);
            }
            bus = it->second;
        }
        // Views of the record: no string per row (names are assigned into strings that keep their capacity).
        const std::string_view gpuName = c.name >= 0 ? csv.field(c.name) : std::string_view();
        if (c.index >= 0 && !gpuName.empty()) names[device] = gpuName;
        if (c.index < 0 && c.bus >= 0) nameByBus[busList[bus]] = gpuName;
        if (c.index < 0 && c.bus < 0 && !gpuName.empty()) names[0] = gpuName;
        if (c.driver >= 0 && rank->info.toolVersion.empty())
            rank->info.toolVersion = fmt::format("driver {}", csv.field(c.driver));
        for (size_t i = 0; i < header.size(); ++i) {
            if (!measure[i]) continue;
            const auto v = telemetry::parseValue(csv.field(i));
            if (v.kind != telemetry::ValueKind::Number) {
                skipped.add(v, telemetry::splitHeader(header[i]).name);
                continue;
            }
            telemetry::appendSample(*rank, ts, device, metrics[i].metric, v.value * metrics[i].scale);
            if (c.bus >= 0 && c.index < 0) busOfRow.push_back(bus);
            if (metrics[i].metric == memTotalName && c.index >= 0) memTotal[device] = v.value;
        }
    }
    if (c.index < 0 && c.bus >= 0) {  // devices numbered in bus-id order (busIds is sorted by bus id)
        std::vector<int16_t> order(busList.size());
        int16_t next = 0;
        for (const auto& [b, id] : busIds) order[id] = next++;
        auto& dev = rank->samples.device.mut();
        for (size_t r = 0; r < busOfRow.size(); ++r) dev[r] = order[busOfRow[r]];
        for (const auto& [b, n] : nameByBus) names[order[busIds.find(b)->second]] = n;
    }
    fillDevices(*rank, names, memTotal);
    if (c.timestamp >= 0) {
        telemetry::setClock(rank->info, ClockDomain::LocalWallTime, options, {});
    } else {
        telemetry::setClock(rank->info, ClockDomain::Relative, options, {});
        rank->diagnostics.push_back({Severity::Warning, Location{path},
                                     "no timestamp column: samples are placed 1 s apart in the order written"});
    }
    skipped.report(*rank, path);
    rank->stats.events = rank->samples.size();
    return rank;
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadNvidiaSmiCsv(const SourceGroup& g, const SourceLoadOptions& o,
                                                               const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseNvidiaSmiCsv);
}
}  // namespace

const SourceFormat kNvidiaSmiCsvFormat = {
    "nvidia-smi-csv", "nvidia-smi", "nvidia-smi --query-gpu=... --format=csv samples (power, clocks, temperature...)",
    false, &sniffNvidiaSmiCsv, &loadNvidiaSmiCsv};

}  // namespace strobe::core
