#include "core/formats/ncu_csv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

namespace {

constexpr std::string_view kHeaderStart = "\"ID\",\"Process ID\"";

// Offset of the CSV header line (the first line starting with "ID","Process ID"), npos when none.
size_t csvStart(std::string_view text) {
    size_t pos = 0;
    while (pos < text.size()) {
        if (text.substr(pos, kHeaderStart.size()) == kHeaderStart) return pos;
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
    }
    return std::string_view::npos;
}

// "(9, 32, 1)" → {9, 32, 1}; zeros when not such a triple.
void parseTriple(std::string_view s, int32_t out[3]) {
    out[0] = out[1] = out[2] = 0;
    int k = 0;
    int64_t v = -1;
    for (char c : s) {
        if (c >= '0' && c <= '9') {
            v = (v < 0 ? 0 : v) * 10 + (c - '0');
            if (v > INT32_MAX) return;
        } else if (v >= 0) {
            if (k < 3) out[k++] = static_cast<int32_t>(v);
            v = -1;
        }
    }
    if (v >= 0 && k < 3) out[k] = static_cast<int32_t>(v);
}

double nsPerUnit(std::string_view unit) {
    if (unit == "ns" || unit == "nsecond" || unit == "nanosecond") return 1;
    if (unit == "us" || unit == "usecond" || unit == "microsecond") return 1e3;
    if (unit == "ms" || unit == "msecond" || unit == "millisecond") return 1e6;
    if (unit == "s" || unit == "second") return 1e9;
    return 0;
}

struct Kernel {
    uint32_t row = 0;
    double durNs = -1;
    int64_t staticShared = -1, dynamicShared = -1;
};

struct NcuColumns {
    int id, pid, pname, kname, stream, block, grid, device, cc, section, metric, unit, value;
};

struct NcuParser {
    RankData& rank;
    CsvReader& csv;
    NcuColumns c;
    std::map<int64_t, Kernel> kernels;
    std::vector<std::string> rawUnits;
    int64_t ruleRows = 0, raggedRows = 0;
    telemetry::SkipCounter skipped;

    Result<Kernel*> kernel() {
        auto id = csv.toInt(c.id);
        if (!id) return csv.error(fmt::format("ID '{}' is not an integer", csv.field(c.id)));
        auto it = kernels.find(*id);
        if (it != kernels.end()) return &it->second;
        const int64_t pid = csv.toInt(c.pid).value_or(0);
        const int64_t stream = csv.toInt(c.stream).value_or(0);
        telemetry::GpuRow g;
        g.name = csv.field(c.kname);
        g.track = telemetry::trackIndex(rank, pid, stream);
        g.device = static_cast<int16_t>(std::clamp<int64_t>(csv.toInt(c.device).value_or(0), 0, 32767));
        g.stream = static_cast<int32_t>(std::clamp<int64_t>(stream, INT32_MIN, INT32_MAX));
        g.correlation = *id;
        parseTriple(csv.field(c.grid), g.grid);
        parseTriple(csv.field(c.block), g.block);
        Kernel k;
        k.row = telemetry::appendGpuRow(rank, g);
        if (std::none_of(rank.processes.begin(), rank.processes.end(), [&](const ProcessMeta& p) { return p.pid == pid; })) {
            ProcessMeta p;
            p.pid = pid;
            p.name = rank.strings.intern(csv.field(c.pname));
            rank.processes.push_back(p);
        }
        if (c.device >= 0) noteDevice(g.device);
        return &kernels.emplace(*id, k).first->second;
    }

    void noteDevice(int16_t device) {
        for (const auto& d : rank.info.devices)
            if (d.id == device) return;
        DeviceProperties d;
        d.id = device;
        std::string_view cc = csv.field(c.cc);
        if (auto dot = cc.find('.'); dot != std::string_view::npos) {
            d.computeMajor = std::atoi(std::string(cc.substr(0, dot)).c_str());
            d.computeMinor = std::atoi(std::string(cc.substr(dot + 1)).c_str());
        }
        rank.info.devices.push_back(std::move(d));
    }

    void counter(Kernel& k, std::string_view name, std::string_view unit, std::string_view text) {
        const auto v = telemetry::parseValue(text);
        if (v.kind != telemetry::ValueKind::Number) {
            skipped.add(v, name);
            return;
        }
        const std::string full = unit.empty() ? std::string(name) : fmt::format("{} [{}]", name, unit);
        rank.kernelCounters.gpuRow.push_back(k.row);
        rank.kernelCounters.name.push_back(rank.strings.intern(full));
        rank.kernelCounters.value.push_back(v.value);
        auto& g = rank.gpu;
        if ((name == "Duration" || name == "gpu__time_duration.sum") && nsPerUnit(unit) > 0) k.durNs = v.value * nsPerUnit(unit);
        if (name == "Registers Per Thread" || name == "launch__registers_per_thread")
            g.registers.mut()[k.row] = static_cast<int32_t>(std::clamp(v.value, 0.0, 1e9));
        if (name == "Static Shared Memory Per Block" || name == "launch__shared_mem_per_block_static") k.staticShared = static_cast<int64_t>(v.value);
        if (name == "Dynamic Shared Memory Per Block" || name == "launch__shared_mem_per_block_dynamic") k.dynamicShared = static_cast<int64_t>(v.value);
        if ((name == "Grid Size" || name == "launch__grid_size") && g.gridX[k.row] == 0)
            g.gridX.mut()[k.row] = static_cast<int32_t>(std::clamp(v.value, 0.0, 2e9));
        if ((name == "Block Size" || name == "launch__block_size") && g.blockX[k.row] == 0)
            g.blockX.mut()[k.row] = static_cast<int32_t>(std::clamp(v.value, 0.0, 2e9));
    }

    Status details() {
        auto k = kernel();
        if (!k) return k.error();
        if (csv.field(c.metric).empty()) {
            ++ruleRows;
            return Ok{};
        }
        counter(*k.value(), csv.field(c.metric), csv.field(c.unit), csv.field(c.value));
        return Ok{};
    }

    Status raw(const std::vector<bool>& isMetric) {
        if (csv.field(c.id).empty()) {  // the units row
            rawUnits.assign(csv.header().size(), std::string());
            for (size_t i = 0; i < rawUnits.size(); ++i) rawUnits[i] = std::string(csv.field(i));
            return Ok{};
        }
        auto k = kernel();
        if (!k) return k.error();
        for (size_t i = 0; i < isMetric.size(); ++i)
            if (isMetric[i]) counter(*k.value(), csv.header()[i], i < rawUnits.size() ? rawUnits[i] : std::string(), csv.field(i));
        return Ok{};
    }
};

bool isIdColumn(std::string_view n) {
    static const std::vector<std::string_view> ids = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name",
                                                      "Kernel Time", "Context", "Stream", "Block Size", "Grid Size",
                                                      "Device", "CC", "Function Name", "Demangled Name", "Mangled Name"};
    return std::find(ids.begin(), ids.end(), n) != ids.end();
}

Status readRows(NcuParser& p, bool rawPage) {
    std::vector<bool> isMetric;
    for (const auto& h : p.csv.header()) isMetric.push_back(!isIdColumn(h));
    while (true) {
        auto more = p.csv.next();
        if (!more) return more.error();
        if (!more.value()) return Ok{};
        // Rows stop after their last non-empty field (metric rows have no rule columns); a row whose ID is neither
        // a number nor empty (the raw page's units row) is text after the table: ==PROF== lines, program output.
        const std::string_view id = p.csv.field(p.c.id);
        if (p.csv.size() < 2 || (!id.empty() && !p.csv.toInt(p.c.id))) {
            ++p.raggedRows;
            continue;
        }
        Status s = rawPage ? p.raw(isMetric) : p.details();
        if (!s) return s;
    }
}

}  // namespace

int sniffNcuCsv(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    const size_t at = csvStart(in.head);
    if (at == std::string_view::npos) return 0;
    const auto header = csvHeaderOf(in.head.substr(at));
    const bool kernel = std::find(header.begin(), header.end(), "Kernel Name") != header.end();
    return kernel ? 85 : 0;
}

Result<std::unique_ptr<RankData>> parseNcuCsv(std::string_view text, const std::string& path,
                                              const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kNcuCsvFormat.id);
    rank->info.platform = Platform::Nvidia;
    const size_t at = csvStart(text);
    if (at == std::string_view::npos)
        return Error(Location{path}, "no ncu CSV header (a line starting with \"ID\",\"Process ID\") found");
    const int64_t skippedLines = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    CsvOptions o;
    o.allowRagged = true;
    CsvReader csv(text.substr(at), path, o);
    auto relocate = [&](Error e) {  // the reader counts from the header line
        if (e.where.line > 0) e.where.line += skippedLines;
        if (e.where.byteOffset >= 0) e.where.byteOffset += static_cast<int64_t>(at);
        return e;
    };
    if (Status s = csv.readHeader(); !s) return relocate(s.error());
    NcuColumns c{csv.column("ID"), csv.column("Process ID"), csv.column("Process Name"), csv.column("Kernel Name"),
                 csv.column("Stream"), csv.column("Block Size"), csv.column("Grid Size"), csv.column("Device"),
                 csv.column("CC"), csv.column("Section Name"), csv.column("Metric Name"), csv.column("Metric Unit"),
                 csv.column("Metric Value")};
    if (c.kname < 0) return Error(Location{path}, "the ncu CSV has no \"Kernel Name\" column");
    const bool rawPage = c.metric < 0 || c.value < 0;
    NcuParser p{*rank, csv, c, {}, {}, 0, 0, {}};
    if (Status s = readRows(p, rawPage); !s) return relocate(s.error());

    TimeNs next = 0;  // kernels laid end to end in ID order
    for (auto& [id, k] : p.kernels) {
        const TimeNs dur = telemetry::clampNs(k.durNs);
        rank->gpu.ts.mut()[k.row] = next;
        rank->gpu.dur.mut()[k.row] = dur;
        next = telemetry::addNs(next, dur);
        if (k.staticShared >= 0 || k.dynamicShared >= 0)
            rank->gpu.sharedMemory.mut()[k.row] =
                static_cast<int32_t>(std::clamp<int64_t>(std::max<int64_t>(k.staticShared, 0) + std::max<int64_t>(k.dynamicShared, 0), 0, INT32_MAX));
    }
    // No clock: ncu replays each kernel alone and writes no start times, so its laid-out times relate to nothing and
    // never block overlaying the traces it is opened with (its counters join them by name, device and instance).
    telemetry::setClock(rank->info, ClockDomain::Unknown, options, {});
    rank->diagnostics.push_back({Severity::Info, Location{path},
                                 fmt::format("ncu writes no start times: {} kernels are laid end to end in ID order, each "
                                             "lasting its measured duration", p.kernels.size())});
    if (p.ruleRows > 0)
        rank->diagnostics.push_back({Severity::Info, Location{path},
                                     fmt::format("{} rule rows (analysis advice, no metric) were not kept", p.ruleRows)});
    if (p.raggedRows > 0)
        rank->diagnostics.push_back({Severity::Warning, Location{path},
                                     fmt::format("{} lines after the table that are not ncu rows were skipped", p.raggedRows)});
    p.skipped.report(*rank, path);
    rank->info.otherKeys.emplace_back("ncu_page", rawPage ? "raw" : "details");
    rank->stats.events = rank->gpu.size();
    return rank;
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadNcu(const SourceGroup& g, const SourceLoadOptions& o,
                                                      const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseNcuCsv);
}
}  // namespace

const SourceFormat kNcuCsvFormat = {"ncu-csv", "ncu",
                                    "Nsight Compute --csv details or raw page (one kernel per ID, metrics as counters)",
                                    false, &sniffNcuCsv, &loadNcu};

}  // namespace strobe::core
