#include "core/formats/source_format.h"

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

}  // namespace strobe::core
