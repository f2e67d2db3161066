#pragma once
// rocpd: rocprofv3's default SQLite output (rocprofiler-sdk, schema_version 3). BUILT FROM DOCUMENTATION: no real
// sample was available; the layout follows rocprofiler-sdk's published rocpd_tables.sql / rocpd_views.sql and is
// tested on a database written in that layout (tests/data/sqlite/make_rocpd_sample.py).
//
// Tables carry a UUID suffix (rocpd_kernel_dispatch_<uuid>) and the tool adds un-suffixed views; either is read
// (the view when present, else the first table whose name is the base name + "_"). Columns by name.
// A rank is a process (rocpd_info_process: its `pid` is the OS pid; other tables' pid/tid columns are row ids of
// rocpd_info_process / rocpd_info_thread):
//   rocpd_kernel_dispatch (+ rocpd_info_kernel_symbol) → gpu Kernel (device = the GPU agent's type_index,
//                                                       stream = queue_id, correlation = rocpd_event.correlation_id)
//   rocpd_memory_copy     → gpu Memcpy ("Memcpy HtoD (MEMORY_COPY_HOST_TO_DEVICE)" ...), bytes = size
//   rocpd_region (+ rocpd_event.category_id) → slices: *MARKER* categories → UserAnnotation, HIP/HSA API categories
//                                              → Runtime (correlation links the GPU rows), others Unknown
//   rocpd_pmc_event + rocpd_info_pmc → kernelCounters of the dispatch with the same event_id
//   rocpd_info_agent (GPU) → devices; rocpd_metadata schema_version → toolVersion "rocpd schema N"
// Times: ns on rocprofiler's clock (boot time): clock Boottime, unanchored unless --clock-offset is given.

#include <memory>
#include <string>
#include <vector>

#include "core/formats/source_format.h"
#include "core/io/sqlite_db.h"

namespace strobe::core {

extern const SourceFormat kRocpdSqliteFormat;

int sniffRocpdSqlite(const SniffInput& in);
Result<std::vector<std::unique_ptr<RankData>>> loadRocpdSqliteDb(const SqliteDb& db, const SourceLoadOptions& opt);

// The table or view to read for a rocpd base name ("rocpd_kernel_dispatch"): the view itself, else the
// UUID-suffixed table; "" when neither exists.
std::string rocpdTable(const std::vector<std::string>& tables, std::string_view base);

}  // namespace strobe::core
