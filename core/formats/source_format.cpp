#include "core/formats/source_format.h"

#include "core/formats/nsys_sqlite.h"
#include "core/formats/rocprof_compute_db.h"
#include "core/formats/rocpd_sqlite.h"
#include "core/formats/rocprof_v1_db.h"
#include "core/formats/rpd_sqlite.h"

namespace strobe::core {

// The formats' definitions live in their own files (core/formats/<format>.cpp); each adds one line here.
const std::vector<const SourceFormat*>& sourceFormats() {
    static const std::vector<const SourceFormat*> formats = {
        &kNsysSqliteFormat,
        &kRpdSqliteFormat,
        &kRocprofComputeDbFormat,
        &kRocpdSqliteFormat,
        &kRocprofV1DbFormat,
    };
    return formats;
}

const SourceFormat* findSourceFormat(std::string_view id) {
    for (const SourceFormat* f : sourceFormats())
        if (id == f->id) return f;
    return nullptr;
}

}  // namespace strobe::core
