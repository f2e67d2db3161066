#include "core/formats/rocprof_compute_workload.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

namespace {

namespace fs = std::filesystem;

bool hasRocprofComputeWorkload(const std::vector<std::string>& entries, std::string_view name) {
    return std::find(entries.begin(), entries.end(), name) != entries.end();
}

std::string fileNamed(const SourceGroup& g, std::string_view name) {
    for (const auto& f : g.files)
        if (fs::path(f).filename() == name) return f;
    return {};
}

// Columns of pmc_perf.csv that describe the dispatch rather than count anything; "Wave_Size_3" and
// "Correlation_ID_3" are the per-pass repeats rocprof-compute adds when it merges passes.
bool isDispatchColumn(const std::string& c) {
    static const std::vector<std::string_view> ids = {
        "Dispatch_ID", "GPU_ID", "Queue_ID", "PID", "TID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
        "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "Wave_Size", "Kernel_Name", "Start_Timestamp",
        "End_Timestamp", "Correlation_ID", "XCC_Index", "Node", "Agent_Id", "Kernel_ID", "Kernel_Id", "Index"};
    if (std::find(ids.begin(), ids.end(), c) != ids.end()) return true;
    for (std::string_view base : {"Wave_Size_", "Correlation_ID_", "XCC_Index_"})
        if (c.size() > base.size() && c.compare(0, base.size(), base) == 0 &&
            std::all_of(c.begin() + static_cast<std::ptrdiff_t>(base.size()), c.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            return true;
    return false;
}

// A timestamp as written: an integer, or a number in scientific notation (flagged as approximate).
std::optional<int64_t> timestampOf(CsvReader& csv, int col, bool& approximate) {
    if (col < 0) return std::nullopt;
    if (auto i = csv.toInt(col)) {
        if (*i < 0 || *i > telemetry::kMaxNs) return std::nullopt;
        return *i;
    }
    auto d = csv.toDouble(col);
    if (!d || *d < 0 || *d > double(telemetry::kMaxNs)) return std::nullopt;
    approximate = true;
    return telemetry::clampTimeNs(*d);
}

int32_t clampInt(std::optional<int64_t> v) { return static_cast<int32_t>(std::clamp<int64_t>(v.value_or(0), 0, INT32_MAX)); }

Status readSysinfo(RankData& rank, const std::string& path, std::map<std::string, std::string>& sys) {
    auto f = CsvFile::open(path);
    if (!f) return f.error();
    CsvReader& csv = f.value()->reader();
    auto more = csv.next();
    if (!more) return more.error();
    if (!more.value()) return Error(Location{path}, "sysinfo.csv has no data row");
    for (size_t i = 0; i < csv.header().size(); ++i) sys[csv.header()[i]] = std::string(csv.field(i));
    rank.info.toolVersion = fmt::format("rocprof-compute workload v{}{}", sys["version"],
                                        sys["rocm_version"].empty() ? std::string() : ", ROCm " + sys["rocm_version"]);
    return Ok{};
}

struct Times {
    int64_t start = 0, end = 0;
};
using InstanceKey = std::tuple<std::string, int64_t, int64_t>;  // kernel name, GPU, instance index of that name

// timestamps.csv: start/end per (name, GPU, instance).
Result<std::map<InstanceKey, Times>> readTimestamps(const std::string& path, bool& approximate) {
    std::map<InstanceKey, Times> out;
    auto f = CsvFile::open(path);
    if (!f) return f.error();
    CsvReader& csv = f.value()->reader();
    const int name = csv.column("Kernel_Name"), gpu = csv.column("GPU_ID");
    const int start = csv.column({"Start_Timestamp", "BeginNs"}), end = csv.column({"End_Timestamp", "EndNs"});
    std::map<std::pair<std::string, int64_t>, int64_t> seen;
    while (true) {
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) break;
        auto s = timestampOf(csv, start, approximate), e = timestampOf(csv, end, approximate);
        if (!s || !e) continue;
        std::string n(csv.field(name));
        const int64_t g = csv.toInt(gpu).value_or(0);
        const int64_t idx = seen[{n, g}]++;
        out[{n, g, idx}] = {*s, *e};
    }
    return out;
}

}  // namespace

std::optional<SourceGroup> groupRocprofComputeWorkload(const std::string& dir, const std::vector<std::string>& entries) {
    if (!hasRocprofComputeWorkload(entries, "pmc_perf.csv") ||
        !(hasRocprofComputeWorkload(entries, "sysinfo.csv") ||
          hasRocprofComputeWorkload(entries, "pmc_dispatch_info.csv")))
        return std::nullopt;
    SourceGroup g;
    g.format = kRocprofComputeWorkloadFormat.id;
    g.path = dir;
    const fs::path d(dir);
    for (std::string_view f : {"pmc_perf.csv", "sysinfo.csv", "timestamps.csv"})
        if (hasRocprofComputeWorkload(entries, f)) g.files.push_back((d / f).string());
    std::vector<std::string> rest(entries);
    std::sort(rest.begin(), rest.end());
    for (const auto& e : rest)
        if (e != "pmc_perf.csv" && e != "sysinfo.csv" && e != "timestamps.csv") g.unused.push_back((d / e).string());
    return g;
}

int sniffRocprofComputeWorkload(const SniffInput& in) {
    if (!in.isDirectory) return 0;
    return groupRocprofComputeWorkload(in.path, in.entries) ? 90 : 0;
}

namespace {

// Times from timestamps.csv when pmc_perf.csv has none (joined by kernel name, GPU and instance index).
Status joinTimes(RankData& rank, const SourceGroup& g, bool needed, const std::vector<InstanceKey>& keys,
                 bool& approximate) {
    const std::string path = fileNamed(g, "timestamps.csv");
    if (path.empty()) return Ok{};
    if (!needed) {
        rank.info.alsoPresent.push_back(path);
        return Ok{};
    }
    auto times = readTimestamps(path, approximate);
    if (!times) return times.error();
    size_t matched = 0;
    std::map<std::string, int64_t> unmatched;
    for (size_t r = 0; r < keys.size(); ++r) {
        auto it = times->find(keys[r]);
        if (it == times->end()) {
            ++unmatched[std::get<0>(keys[r])];
            continue;
        }
        rank.gpu.ts.mut()[r] = it->second.start;
        rank.gpu.dur.mut()[r] = std::clamp<int64_t>(it->second.end - it->second.start, 0, kMaxDurationNs);
        ++matched;
    }
    rank.stats.joinMatchRate = keys.empty() ? 1.0 : static_cast<double>(matched) / static_cast<double>(keys.size());
    if (!unmatched.empty()) {
        std::string names;
        int n = 0;
        for (const auto& [name, count] : unmatched)
            if (n++ < 3) names += fmt::format("{}{} ×{}", names.empty() ? "" : ", ", name, count);
        rank.diagnostics.push_back({Severity::Warning, Location{path},
                                    fmt::format("{} of {} dispatches have no time in timestamps.csv (by kernel name, GPU "
                                                "and instance): {}{}", keys.size() - matched, keys.size(), names,
                                                unmatched.size() > 3 ? fmt::format(" and {} more names", unmatched.size() - 3) : "")});
    }
    return Ok{};
}

void finish(RankData& rank, const SourceGroup& g, std::map<std::string, std::string>& sys,
            const std::map<int64_t, bool>& gpus, const SourceLoadOptions& options, bool approximate) {
    for (const auto& [id, present] : gpus) {
        DeviceProperties d;
        d.id = static_cast<int>(id);
        d.name = sys["gpu_model"];
        if (!sys["gpu_arch"].empty()) d.name += (d.name.empty() ? "" : " ") + sys["gpu_arch"];
        d.numSms = std::atoi(sys["cu_per_gpu"].c_str());
        d.warpSize = std::atoi(sys["wave_size"].c_str());
        rank.info.devices.push_back(std::move(d));
    }
    for (const auto& f : g.unused) rank.info.alsoPresent.push_back(f);
    for (const auto& f : g.files) {
        std::error_code ec;
        const auto size = fs::file_size(f, ec);
        if (!ec) rank.info.fileSize += size;
    }
    telemetry::setClock(rank.info, ClockDomain::Boottime, options, {});
    if (approximate)
        rank.diagnostics.push_back({Severity::Warning, Location{g.path},
                                    "timestamps are written in scientific notation (the file was saved by a "
                                    "spreadsheet?): times and durations are approximate"});
    rank.stats.events = rank.gpu.size();
}

struct PmcColumns {
    int id, gpu, queue, pid, name, grid, wg, lds, vgpr, start, end;
};

Result<std::vector<std::unique_ptr<RankData>>> loadWorkload(const SourceGroup& group, const SourceLoadOptions& options,
                                                            const CancelToken& cancel) {
    SourceGroup g = group;
    if (fileNamed(g, "pmc_perf.csv").empty()) {  // given the directory alone: list it
        std::vector<std::string> entries;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(g.path, ec)) entries.push_back(e.path().filename().string());
        auto listed = groupRocprofComputeWorkload(g.path, entries);
        if (!listed) return Error(Location{g.path}, "not a rocprof-compute workload directory (no pmc_perf.csv)");
        g = *listed;
    }
    auto rank = telemetry::newRank(g.path, kRocprofComputeWorkloadFormat.id);
    rank->info.platform = Platform::Amd;
    std::map<std::string, std::string> sys;
    if (auto p = fileNamed(g, "sysinfo.csv"); !p.empty())
        if (Status s = readSysinfo(*rank, p, sys); !s) return s.error();

    const std::string perfPath = fileNamed(g, "pmc_perf.csv");
    auto f = CsvFile::open(perfPath);
    if (!f) return f.error();
    CsvReader& csv = f.value()->reader();
    PmcColumns c{csv.column("Dispatch_ID"), csv.column("GPU_ID"), csv.column("Queue_ID"), csv.column("PID"),
                 csv.column("Kernel_Name"), csv.column("Grid_Size"), csv.column("Workgroup_Size"),
                 csv.column("LDS_Per_Workgroup"), csv.column("Arch_VGPR"), csv.column({"Start_Timestamp", "BeginNs"}),
                 csv.column({"End_Timestamp", "EndNs"})};
    if (c.name < 0) return Error(Location{perfPath}, "pmc_perf.csv has no Kernel_Name column");
    const auto& header = csv.header();
    std::vector<size_t> counters;
    std::vector<StrId> counterNames;
    for (size_t i = 0; i < header.size(); ++i)
        if (!isDispatchColumn(header[i])) {
            counters.push_back(i);
            counterNames.push_back(rank->strings.intern(header[i]));
        }
    bool approximate = false;
    std::vector<InstanceKey> keys;
    std::map<std::pair<std::string, int64_t>, int64_t> seen;
    std::map<int64_t, bool> gpus;
    telemetry::SkipCounter skipped;
    while (true) {
        if (cancel.cancelled()) return Error(Location{perfPath}, "cancelled");
        auto more = csv.next();
        if (!more) return more.error();
        if (!more.value()) break;
        telemetry::GpuRow row;
        row.name = csv.field(c.name);
        const int64_t gpu = csv.toInt(c.gpu).value_or(0);
        gpus[gpu] = true;
        row.device = static_cast<int16_t>(std::clamp<int64_t>(gpu, 0, 32767));
        row.stream = clampInt(csv.toInt(c.queue));
        row.track = telemetry::trackIndex(*rank, csv.toInt(c.pid).value_or(0), row.stream);
        row.correlation = csv.toInt(c.id).value_or(kNone);
        row.grid[0] = clampInt(csv.toInt(c.grid));
        row.grid[1] = row.grid[2] = 1;
        row.block[0] = clampInt(csv.toInt(c.wg));
        row.block[1] = row.block[2] = 1;
        row.registers = clampInt(csv.toInt(c.vgpr));
        row.sharedMemory = clampInt(csv.toInt(c.lds));
        auto s = timestampOf(csv, c.start, approximate), e = timestampOf(csv, c.end, approximate);
        if (s && e && *e >= *s) {
            row.ts = *s;
            row.dur = std::min(*e - *s, kMaxDurationNs);
        }
        const uint32_t gr = telemetry::appendGpuRow(*rank, row);
        keys.emplace_back(std::string(row.name), gpu, seen[{std::string(row.name), gpu}]++);
        for (size_t k = 0; k < counters.size(); ++k) {
            const auto v = telemetry::parseValue(csv.field(counters[k]));
            if (v.kind != telemetry::ValueKind::Number) {
                skipped.add(v, header[counters[k]]);
                continue;
            }
            rank->kernelCounters.gpuRow.push_back(gr);
            rank->kernelCounters.name.push_back(counterNames[k]);
            rank->kernelCounters.value.push_back(v.value);
        }
    }
    if (Status s = joinTimes(*rank, g, c.start < 0, keys, approximate); !s) return s.error();
    finish(*rank, g, sys, gpus, options, approximate);
    skipped.report(*rank, perfPath);
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(rank));
    return out;
}

}  // namespace

const SourceFormat kRocprofComputeWorkloadFormat = {
    "rocprof-compute-workload", "rocprof-compute",
    "rocprof-compute (Omniperf) workload directory: pmc_perf.csv counters per dispatch, sysinfo.csv", false,
    &sniffRocprofComputeWorkload, &loadWorkload};

}  // namespace strobe::core
