#include "core/formats/nsys_stats_csv.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

namespace {

enum class Report { None, GpuTrace, ApiTrace, Summary };

bool has(const std::vector<std::string>& h, std::string_view n) { return std::find(h.begin(), h.end(), n) != h.end(); }

Report reportOf(const std::vector<std::string>& h) {
    if (has(h, "Start (ns)") && has(h, "Duration (ns)") && (has(h, "GrdX") || has(h, "Strm"))) return Report::GpuTrace;
    if (has(h, "Start (ns)") && has(h, "Duration (ns)") && has(h, "Name") && (has(h, "CorrID") || has(h, "CorrId")))
        return Report::ApiTrace;
    if ((has(h, "Total Time (ns)") || has(h, "Total Time")) &&
        (has(h, "Instances") || has(h, "Num Calls") || has(h, "Count") || has(h, "Calls")))
        return Report::Summary;
    return Report::None;
}

// Offset of the first line that reads as a stats report header, npos when none.
size_t headerStart(std::string_view text, Report& report) {
    size_t pos = 0;
    for (int lines = 0; pos < text.size() && lines < 200; ++lines) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        report = reportOf(csvHeaderOf(text.substr(pos, nl - pos)));
        if (report != Report::None) return pos;
        pos = nl + 1;
    }
    return std::string_view::npos;
}

std::string reportName(std::string_view preamble, const std::string& path) {
    // "** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):" or the file name's "_<report>.csv" suffix
    if (auto open = preamble.rfind('('); open != std::string_view::npos) {
        auto close = preamble.find(')', open);
        if (close != std::string_view::npos && close > open + 1) return std::string(preamble.substr(open + 1, close - open - 1));
    }
    for (std::string_view r : {"cuda_gpu_kern_sum", "cuda_api_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum",
                               "osrt_sum", "nvtx_sum", "cuda_kern_exec_sum", "gpukernsum", "cudaapisum"})
        if (path.find(r) != std::string::npos) return std::string(r);
    return "summary";
}

int32_t toInt32(std::optional<int64_t> v) { return static_cast<int32_t>(std::clamp<int64_t>(v.value_or(0), INT32_MIN, INT32_MAX)); }
int64_t ns(CsvReader& csv, int col) {
    if (auto i = csv.toInt(col)) return std::clamp<int64_t>(*i, 0, telemetry::kMaxNs);
    const auto v = telemetry::parseValue(csv.field(col));
    return v.kind == telemetry::ValueKind::Number ? telemetry::clampTimeNs(v.value) : 0;
}

void addSlice(RankData& rank, TimeNs ts, TimeNs dur, std::string_view name, std::string_view cat, EventKind kind,
              uint32_t track, int64_t correlation, const std::string& args) {
    auto& s = rank.slices;
    s.ts.push_back(ts);
    s.dur.push_back(dur);
    s.name.push_back(rank.strings.intern(name));
    s.cat.push_back(rank.strings.intern(cat));
    s.kind.push_back(kind);
    s.phase.push_back('X');
    s.track.push_back(track);
    s.externalId.push_back(kNone);
    s.correlation.push_back(correlation);
    s.sequence.push_back(kNone);
    s.args.push_back(args.empty() ? kEmptyStr : rank.strings.intern(args));
}

Status gpuTrace(RankData& rank, CsvReader& csv) {
    const int start = csv.column("Start (ns)"), dur = csv.column("Duration (ns)"), corr = csv.column({"CorrId", "CorrID"});
    const int gx = csv.column("GrdX"), gy = csv.column("GrdY"), gz = csv.column("GrdZ");
    const int bx = csv.column("BlkX"), by = csv.column("BlkY"), bz = csv.column("BlkZ");
    const int regs = csv.column("Reg/Trd"), stat = csv.column("StcSMem (MB)"), dyn = csv.column("DymSMem (MB)");
    const int bytes = csv.column("Bytes (MB)"), dev = csv.column("Device"), strm = csv.column("Strm");
    const int name = csv.column("Name");
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) return Ok{};
        telemetry::GpuRow g;
        g.ts = ns(csv, start);
        g.dur = std::min(ns(csv, dur), kMaxDurationNs);
        g.name = csv.field(name);
        const bool memcpy = g.name.find("[CUDA memcpy") != std::string_view::npos;
        const bool memset = g.name.find("[CUDA memset") != std::string_view::npos;
        g.kind = memcpy ? EventKind::Memcpy : memset ? EventKind::Memset : EventKind::Kernel;
        g.cat = memcpy ? "gpu_memcpy" : memset ? "gpu_memset" : "kernel";
        // Device is written as "NVIDIA H100 (0)" or "0"
        std::string_view d = csv.field(dev);
        if (auto p = d.rfind('('); p != std::string_view::npos) d = d.substr(p + 1, d.size() - p - 2);
        int64_t device = 0;
        telemetry::ParsedValue dv = telemetry::parseValue(d);
        if (dv.kind == telemetry::ValueKind::Number) device = static_cast<int64_t>(dv.value);
        g.device = static_cast<int16_t>(std::clamp<int64_t>(device, 0, 32767));
        g.stream = toInt32(csv.toInt(strm));
        g.track = telemetry::trackIndex(rank, 0x7000 + g.device, g.stream);
        g.correlation = csv.toInt(corr).value_or(kNone);
        const int cols[6] = {gx, gy, gz, bx, by, bz};
        for (int i = 0; i < 3; ++i) g.grid[i] = toInt32(csv.toInt(cols[i]));
        for (int i = 0; i < 3; ++i) g.block[i] = toInt32(csv.toInt(cols[3 + i]));
        g.registers = toInt32(csv.toInt(regs));
        double shared = 0;
        for (int c : {stat, dyn})
            if (auto v = csv.toDouble(c)) shared += *v * 1e6;
        g.sharedMemory = static_cast<int32_t>(std::clamp(shared, 0.0, 2e9));
        if (auto b = csv.toDouble(bytes)) g.bytes = telemetry::clampTimeNs(*b * 1e6);  // the same bounds suit a byte count
        telemetry::appendGpuRow(rank, g);
    }
}

Status apiTrace(RankData& rank, CsvReader& csv) {
    const int start = csv.column("Start (ns)"), dur = csv.column("Duration (ns)"), corr = csv.column({"CorrID", "CorrId"});
    const int name = csv.column("Name"), pid = csv.column("Pid"), tid = csv.column("Tid"), result = csv.column("Result");
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) return Ok{};
        const uint32_t track = telemetry::trackIndex(rank, csv.toInt(pid).value_or(0), csv.toInt(tid).value_or(0));
        addSlice(rank, ns(csv, start), std::min(ns(csv, dur), kMaxDurationNs), csv.field(name), "cuda_runtime",
                 EventKind::Runtime, track, csv.toInt(corr).value_or(kNone),
                 result >= 0 ? fmt::format("{{\"result\":\"{}\"}}", csv.field(result)) : std::string());
    }
}

Status summary(RankData& rank, CsvReader& csv, const std::string& report) {
    const int total = csv.column({"Total Time (ns)", "Total Time"});
    const int count = csv.column({"Instances", "Num Calls", "Count", "Calls"});
    const int name = csv.column({"Name", "Operation", "Range"});
    const std::vector<std::pair<const char*, int>> stats = {
        {"time_pct", csv.column({"Time (%)", "Time(%)"})}, {"avg_ns", csv.column({"Avg (ns)", "Average"})},
        {"med_ns", csv.column({"Med (ns)", "Median"})},    {"min_ns", csv.column({"Min (ns)", "Minimum"})},
        {"max_ns", csv.column({"Max (ns)", "Maximum"})},   {"stddev_ns", csv.column({"StdDev (ns)", "StdDev"})}};
    const uint32_t track = telemetry::trackIndex(rank, 0, 0);
    const std::string cat = "nsys-stats " + report;
    TimeNs next = 0;
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) return Ok{};
        const int64_t t = std::min(ns(csv, total), kMaxDurationNs);
        std::string args = fmt::format("{{\"count\":{}", csv.toInt(count).value_or(0));
        for (const auto& [key, col] : stats) {
            const auto v = telemetry::parseValue(csv.field(col));
            if (col >= 0 && v.kind == telemetry::ValueKind::Number) args += fmt::format(",\"{}\":{}", key, v.value);
        }
        args += "}";
        addSlice(rank, next, t, csv.field(name), cat, EventKind::Unknown, track, kNone, args);
        next = telemetry::addNs(next, t);
    }
}

}  // namespace

int sniffNsysStatsCsv(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    Report r = Report::None;
    return headerStart(in.head, r) != std::string_view::npos ? 75 : 0;
}

Result<std::unique_ptr<RankData>> parseNsysStatsCsv(std::string_view text, const std::string& path,
                                                    const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kNsysStatsCsvFormat.id);
    rank->info.platform = Platform::Nvidia;
    Report report = Report::None;
    const size_t at = headerStart(text, report);
    if (at == std::string_view::npos)
        return Error(Location{path}, "no nsys stats CSV header (\"Start (ns)\" or \"Total Time (ns)\" columns) found");
    CsvOptions o;
    o.allowRagged = true;
    CsvReader csv(text.substr(at), path, o);
    if (Status s = csv.readHeader(); !s) return s.error();
    const std::string name = reportName(text.substr(0, at), path);
    Status s = report == Report::GpuTrace ? gpuTrace(*rank, csv)
             : report == Report::ApiTrace ? apiTrace(*rank, csv)
                                          : summary(*rank, csv, name);
    if (!s) {
        Error e = s.error();
        if (e.where.line > 0) e.where.line += std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
        return e;
    }
    telemetry::setClock(rank->info, ClockDomain::SessionRelative, options, {});
    rank->info.otherKeys.emplace_back("nsys_stats_report", name);
    if (report == Report::Summary)
        rank->diagnostics.push_back({Severity::Info, Location{path},
                                     fmt::format("{} is a summary without per-call times: each row is one slice lasting "
                                                 "its total time, laid end to end", name)});
    rank->stats.events = rank->slices.size() + rank->gpu.size();
    return rank;
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadNsysStats(const SourceGroup& g, const SourceLoadOptions& o,
                                                            const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseNsysStatsCsv);
}
}  // namespace

const SourceFormat kNsysStatsCsvFormat = {"nsys-stats-csv", "nsys",
                                          "nsys stats --format csv reports (cuda_gpu_trace, cuda_api_trace, *_sum)", true,
                                          &sniffNsysStatsCsv, &loadNsysStats};

}  // namespace strobe::core
