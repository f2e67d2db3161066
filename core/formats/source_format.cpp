#include "core/formats/source_format.h"

#include <charconv>
#include <filesystem>
#include <tuple>

#include <fmt/format.h>

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
#include "core/formats/rocblas_log.h"
#include "core/formats/miopen_log.h"
#include "core/formats/tensile_log.h"
#include "core/formats/rccl_log.h"
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
        &kRocblasLogFormat,
        &kNcuCsvFormat,
        &kRocprofComputeWorkloadFormat,
        &kRocmSmiConciseFormat,
        &kRocmSmiCsvFormat,
        &kRocmSmiJsonFormat,
        &kAmdSmiMetricCsvFormat,
        &kAmdSmiMetricJsonFormat,
        &kNsysStatsCsvFormat,
        &kMiopenLogFormat,
        &kTensileLogFormat,
        &kRcclLogFormat,
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
        const ClockAnchor& m = *options.manifest;
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

Result<std::optional<ClockAnchor>> readManifestClocks(const std::string& manifestPath) {
    auto manifest = readRunManifestFile(manifestPath);
    if (!manifest) return manifest.error();
    if (!*manifest || !(*manifest)->clocks) return std::optional<ClockAnchor>{};
    return std::optional<ClockAnchor>{*(*manifest)->clocks};
}

}  // namespace strobe::core
