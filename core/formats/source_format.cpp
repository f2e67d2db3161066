#include "core/formats/source_format.h"

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
    // Issue 10's run manifest anchors go here, ahead of --clock-offset.
    if (clock.anchored || !options.hasClockOffset) return;
    clock.anchored = true;
    clock.toRealtimeNs = options.clockOffsetNs;
    clock.anchor = "--clock-offset";
}

}  // namespace strobe::core
