#include "core/formats/source_format.h"

#include <charconv>
#include <filesystem>
#include <tuple>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/formats/nsys_sqlite.h"
#include "core/formats/rocprof_compute_db.h"
#include "core/formats/rocpd_sqlite.h"
#include "core/formats/rocprof_v1_db.h"
#include "core/formats/rpd_sqlite.h"
#include "core/formats/kineto_format.h"
#include "core/formats/rocprof_v1_csv.h"
#include "core/formats/rocprofv3_csv.h"
#include "core/formats/rocprofv3_json.h"
#include "core/formats/amd_smi.h"
#include "core/formats/nccl_tests_log.h"
#include "core/formats/ncu_csv.h"
#include "core/formats/nsys_stats_csv.h"
#include "core/formats/nvidia_smi_csv.h"
#include "core/formats/nvidia_smi_dmon.h"
#include "core/formats/rocprof_compute_workload.h"
#include "core/formats/strobe_sampler_csv.h"

namespace strobe::core {

// The formats' definitions live in their own files (core/formats/<format>.cpp); each adds one line here.
const std::vector<const SourceFormat*>& sourceFormats() {
    static const std::vector<const SourceFormat*> formats = {
        &kNsysSqliteFormat,
        &kRpdSqliteFormat,
        &kRocprofComputeDbFormat,
        &kRocpdSqliteFormat,
        &kRocprofV1DbFormat,
        &kKinetoFormat,
        &kRocprofv3CsvFormat,
        &kRocprofv3JsonFormat,
        &kRocprofV1Format,
        &kNvidiaSmiCsvFormat,
        &kNvidiaSmiDmonFormat,
        &kStrobeSamplerCsvFormat,
        &kNcclTestsFormat,
        &kNcuCsvFormat,
        &kRocprofComputeWorkloadFormat,
        &kRocmSmiConciseFormat,
        &kRocmSmiCsvFormat,
        &kRocmSmiJsonFormat,
        &kAmdSmiMetricCsvFormat,
        &kAmdSmiMetricJsonFormat,
        &kNsysStatsCsvFormat,
    };
    return formats;
}

const SourceFormat* findSourceFormat(std::string_view id) {
    for (const SourceFormat* f : sourceFormats())
        if (id == f->id) return f;
    return nullptr;
}

void applyClockOptions(ClockInfo& clock, const SourceLoadOptions& options) {
    if (clock.anchored) return;
    if (options.manifest) {
        const ManifestClocks& m = *options.manifest;
        std::optional<int64_t> toRealtime;
        if (clock.domain == ClockDomain::Boottime) toRealtime = m.realtimeNs - m.boottimeNs;
        else if (clock.domain == ClockDomain::Monotonic) toRealtime = m.realtimeNs - m.monotonicNs;
        else if (clock.domain == ClockDomain::LocalWallTime && m.utcOffsetSeconds)
            toRealtime = -*m.utcOffsetSeconds * 1'000'000'000LL;
        if (toRealtime) {
            clock.anchored = true;
            clock.toRealtimeNs = *toRealtime;
            clock.anchor = "manifest.yaml clocks (" + m.path + ")";
            return;
        }
    }
    if (!options.hasClockOffset) return;
    clock.anchored = true;
    clock.toRealtimeNs = options.clockOffsetNs;
    clock.anchor = "--clock-offset";
}

Result<std::optional<ManifestClocks>> readManifestClocks(const std::string& manifestPath) {
    auto at = [&](int64_t line) {
        Location loc{manifestPath};
        loc.line = line;
        return loc;
    };
    YAML::Node doc;
    try {
        doc = YAML::LoadFile(manifestPath);
    } catch (const YAML::ParserException& e) {
        return Error(at(e.mark.line >= 0 ? e.mark.line + 1 : -1), "not valid YAML: " + e.msg);
    } catch (const std::exception& e) {
        return Error(Location{manifestPath}, std::string("cannot read: ") + e.what());
    }
    if (!doc.IsMap() || !doc["strobe_manifest"] || !doc["clocks"]) return std::optional<ManifestClocks>{};
    const YAML::Node clocks = doc["clocks"];
    const int64_t line = clocks.Mark().line >= 0 ? clocks.Mark().line + 1 : -1;
    auto bad = [&](const std::string& what) { return Error(at(line), "clocks: " + what); };
    if (!clocks.IsMap()) return bad("expected a mapping {realtime_ns, monotonic_ns, boottime_ns}");
    ManifestClocks m;
    m.path = manifestPath;
    auto integer = [&](const char* key, bool required, std::optional<int64_t>& out) -> Status {
        const YAML::Node v = clocks[key];
        if (!v) return required ? Status(bad(fmt::format("'{}' is missing", key))) : Status(Ok{});
        int64_t x = 0;
        const std::string& s = v.IsScalar() ? v.Scalar() : std::string();
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        if (s.empty() || ec != std::errc() || p != s.data() + s.size())
            return bad(fmt::format("'{}' is not an integer: '{}'", key, s));
        out = x;
        return Ok{};
    };
    std::optional<int64_t> realtime, monotonic, boottime;
    for (auto [key, required, out] : {std::tuple{"realtime_ns", true, &realtime}, std::tuple{"monotonic_ns", true, &monotonic},
                                      std::tuple{"boottime_ns", true, &boottime},
                                      std::tuple{"utc_offset_s", false, &m.utcOffsetSeconds}})
        if (Status s = integer(key, required, *out); !s) return s.error();
    m.realtimeNs = *realtime;
    m.monotonicNs = *monotonic;
    m.boottimeNs = *boottime;
    return std::optional<ManifestClocks>{std::move(m)};
}

std::string findRunManifest(const std::string& sourcePath) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(sourcePath, ec);
    if (ec) return {};
    if (!std::filesystem::is_directory(dir, ec)) dir = dir.parent_path();
    for (int up = 0; up <= 3 && !dir.empty(); ++up) {
        const auto candidate = dir / "manifest.yaml";
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
        if (dir == dir.root_path()) break;
        dir = dir.parent_path();
    }
    return {};
}

}  // namespace strobe::core
