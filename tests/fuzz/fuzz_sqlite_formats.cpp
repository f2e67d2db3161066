// libFuzzer target: the SQLite-based formats. The first byte selects the format's loader; the rest is written to a
// temporary file and opened as a database (SQLite reports corrupt files with error codes). The step budget of
// SqliteOpenOptions bounds every query, so that a corrupt schema or a huge table cannot hang the target; a hard
// heap limit bounds SQLite's memory.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/formats/nsys_sqlite.h"
#include "core/formats/rocpd_sqlite.h"
#include "core/formats/rocprof_compute_db.h"
#include "core/formats/rocprof_v1_db.h"
#include "core/formats/rpd_sqlite.h"
#include "core/io/sqlite_db.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using Loader = strobe::core::Result<std::vector<std::unique_ptr<strobe::core::RankData>>> (*)(
    const strobe::core::SqliteDb&, const strobe::core::SourceLoadOptions&);

constexpr Loader kLoaders[] = {&strobe::core::loadNsysSqliteDb, &strobe::core::loadRpdSqliteDb,
                               &strobe::core::loadRocprofComputeDb, &strobe::core::loadRocpdSqliteDb, &strobe::core::loadRocprofV1Db};

const std::string& tempPath() {
    static const std::string path = [] {
        std::string t = "/tmp/strobe-fuzz-sqlite-" + std::to_string(::getpid()) + ".db";
        sqlite3_hard_heap_limit64(256ll << 20);
        return t;
    }();
    return path;
}

}  // namespace

void runOne(const uint8_t* data, size_t size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    runOne(data, size);
    std::remove(tempPath().c_str());  // libFuzzer ends with _Exit: no atexit clean-up, so remove it every time
    return 0;
}

void runOne(const uint8_t* data, size_t size) {
    const Loader load = kLoaders[data[0] % std::size(kLoaders)];
    const std::string& path = tempPath();
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size > 1) std::fwrite(data + 1, 1, size - 1, f);
        std::fclose(f);
    } else {
        return;
    }
    strobe::core::SqliteOpenOptions opt;
    opt.maxSteps = 20'000'000;
    auto db = strobe::core::SqliteDb::open(path, opt);
    if (!db.ok()) {
        strobe::fuzz::checkError(db.error());
        return;
    }
    (void)strobe::core::listSqliteTables(path);
    auto r = load(*db, strobe::core::SourceLoadOptions{});
    if (!r.ok()) {
        strobe::fuzz::checkError(r.error());
        return;
    }
    for (auto& rank : r.value()) strobe::fuzz::exerciseRank(*rank);
    return;
}
