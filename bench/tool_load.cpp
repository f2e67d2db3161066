// strobe-load: the headless loader of DESIGN.md, for profiling and timing one stage at a time.
//
//   strobe-load PATH... [--threads N] [--stop-after read|parse|merge|cache] [--no-cache] [--cache-dir DIR]
//   strobe-load PATH... --run [--no-cache]       (the application's path: core::loadRun, ranks in parallel)
//
// Per file and stage it prints wall seconds, MB/s of JSON text, the peak resident memory of the stage
// (VmHWM, reset before each stage through /proc/self/clear_refs) and, after parsing, the dataset's bytes.
// --stop-after read only streams the file (gunzipping .gz) without parsing; parse stops after
// loadKinetoTrace; merge after mergeRank; cache writes the load cache and reopens it (the default runs all).

#include <fmt/format.h>
#include <malloc.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/proc_status.h"
#include "core/engine/load_cache.h"
#include "core/engine/run_loader.h"
#include "core/formats/kineto_json.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"

namespace core = strobe::core;
using strobe::bench::procStatusBytes;
using strobe::bench::resetPeakRss;

namespace {

enum class Stage { Read = 0, Parse, Merge, Cache };

void usage(std::FILE* to) {
    fmt::print(to,
               "usage: strobe-load PATH... [options]\n"
               "  --threads N           parser threads per file (default 1)\n"
               "  --stop-after STAGE    read | parse | merge | cache (default: cache, i.e. everything)\n"
               "  --no-cache            do not write or read the load cache\n"
               "  --cache-dir DIR       load cache directory (default: the user's cache directory)\n"
               "  --run                 load all PATHs as one run with core::loadRun instead (ranks in parallel)\n"
               "exit status: 0 ok, 2 usage, 3 a file could not be loaded\n");
}

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string mb(double bytes) { return fmt::format("{:.1f} MB", bytes / 1e6); }

struct StageClock {
    double t0;
    bool peakReset;
    // Freed heap goes back to the system first, so a stage's peak is not its predecessor's leftovers.
    StageClock() : t0((malloc_trim(0), now())), peakReset(resetPeakRss()) {}
    double seconds() const { return now() - t0; }
    double peak() const { return static_cast<double>(procStatusBytes("VmHWM")); }
};

void printStage(const char* name, double seconds, double jsonBytes, double peak, bool peakReset,
                const std::string& extra = {}) {
    fmt::print("  {:<12} {:8.3f} s  {:8.1f} MB/s  peak RSS {} ({:.2f}x JSON{}){}\n", name, seconds,
               jsonBytes / 1e6 / std::max(seconds, 1e-9), mb(peak), peak / std::max(jsonBytes, 1.0),
               peakReset ? "" : ", process peak: VmHWM could not be reset", extra);
}

// Streams the file without parsing (gunzipping .gz); returns the JSON bytes or -1.
long long readOnly(const std::string& path) {
    std::vector<char> buf(1u << 20);
    {
        std::FILE* p = std::fopen(path.c_str(), "rb");
        if (!p) return -1;
        std::setvbuf(p, nullptr, _IONBF, 0);
        long long n = 0;
        size_t r = std::fread(buf.data(), 1, buf.size(), p);
        const bool gzip = r >= 2 && static_cast<unsigned char>(buf[0]) == 0x1f && static_cast<unsigned char>(buf[1]) == 0x8b;
        if (!gzip) {
            for (; r > 0; r = std::fread(buf.data(), 1, buf.size(), p)) n += static_cast<long long>(r);
            const bool bad = std::ferror(p) != 0;
            std::fclose(p);
            return bad ? -1 : n;
        }
        std::fclose(p);
    }
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return -1;
    gzbuffer(f, 1u << 20);
    long long n = 0;
    for (int r; (r = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0;) n += r;
    int err = 0;
    gzerror(f, &err);
    gzclose(f);
    return err == Z_OK || err == Z_STREAM_END ? n : -1;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> paths;
    int threads = 1;
    Stage stopAfter = Stage::Cache;
    bool useCache = true, run = false;
    std::string cacheDir;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                fmt::print(stderr, "strobe-load: {} needs a value\n", a);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "-h" || a == "--help") { usage(stdout); return 0; }
        if (a == "--threads") {
            const std::string v = value();
            char* end = nullptr;
            const long t = std::strtol(v.c_str(), &end, 10);
            if (*end || t < 1 || t > 64) { fmt::print(stderr, "strobe-load: --threads expects 1..64, got '{}'\n", v); return 2; }
            threads = static_cast<int>(t);
        } else if (a == "--stop-after") {
            const std::string v = value();
            if (v == "read") stopAfter = Stage::Read;
            else if (v == "parse") stopAfter = Stage::Parse;
            else if (v == "merge") stopAfter = Stage::Merge;
            else if (v == "cache") stopAfter = Stage::Cache;
            else { fmt::print(stderr, "strobe-load: --stop-after expects read, parse, merge or cache, got '{}'\n", v); return 2; }
        } else if (a == "--no-cache") useCache = false;
        else if (a == "--cache-dir") cacheDir = value();
        else if (a == "--run") run = true;
        else if (a.starts_with("-") && a != "-") { fmt::print(stderr, "strobe-load: unknown option '{}'\n", a); usage(stderr); return 2; }
        else paths.push_back(a);
    }
    if (paths.empty()) { usage(stderr); return 2; }

    if (run) {
        core::RunLoadOptions o;
        o.useCache = useCache;
        o.cacheDir = cacheDir;
        const StageClock clock;
        auto r = core::loadRun(paths, o);
        const double s = clock.seconds();
        if (!r) { fmt::print(stderr, "strobe-load: {}\n", r.error().toString()); return 3; }
        double json = 0;
        for (const auto& rank : (*r)->ranks) json += static_cast<double>(rank->stats.bytesRead);
        fmt::print("run: {} rank(s), {} JSON\n", (*r)->ranks.size(), mb(json));
        for (const auto& rank : (*r)->ranks)
            fmt::print("  rank {:>3}  {}  {} events  {}  dataset {}\n", rank->rank, rank->path, rank->stats.events,
                       rank->stats.fromCache ? "from cache" : "parsed", mb(static_cast<double>(rank->bytes())));
        printStage("loadRun", s, json, clock.peak(), clock.peakReset,
                   fmt::format("  dataset {} ({:.2f}x JSON)", mb(static_cast<double>((*r)->bytes())),
                               static_cast<double>((*r)->bytes()) / std::max(json, 1.0)));
        for (const auto& d : (*r)->diagnostics) fmt::print("  note: {}\n", d.toString());
        return 0;
    }

    const core::ClassificationRules* rules = nullptr;
    core::Result<core::ClassificationRules> loadedRules = core::Error("not loaded");
    if (stopAfter >= Stage::Merge) {
        loadedRules = core::ClassificationRules::loadDefault();
        if (!loadedRules) { fmt::print(stderr, "strobe-load: {}\n", loadedRules.error().toString()); return 3; }
        rules = &loadedRules.value();
    }
    core::LoadCache cache{std::filesystem::path(cacheDir)};
    int status = 0;
    double totalJson = 0, totalSeconds = 0;
    for (const std::string& path : paths) {
        fmt::print("{}\n", path);
        double json = 0;
        if (stopAfter == Stage::Read) {
            const StageClock clock;
            const long long n = readOnly(path);
            const double s = clock.seconds();
            if (n < 0) { fmt::print(stderr, "strobe-load: {}: cannot read (or corrupt gzip)\n", path); status = 3; continue; }
            json = static_cast<double>(n);
            printStage("read", s, json, clock.peak(), clock.peakReset);
            totalJson += json;
            totalSeconds += s;
            continue;
        }
        core::KinetoLoadOptions opt;
        opt.threads = threads;
        const StageClock parseClock;
        auto r = core::loadKinetoTrace(path, opt);
        const double parseS = parseClock.seconds();
        if (!r) { fmt::print(stderr, "strobe-load: {}\n", r.error().toString()); status = 3; continue; }
        core::RankData& rank = **r;
        json = static_cast<double>(rank.stats.bytesRead);
        printStage("parse", parseS, json, parseClock.peak(), parseClock.peakReset,
                   fmt::format("  {} events ({} kernels)  dataset {} ({:.2f}x JSON)", rank.stats.events, rank.gpu.size(),
                               mb(static_cast<double>(rank.bytes())), static_cast<double>(rank.bytes()) / std::max(json, 1.0)));
        for (const auto& d : rank.diagnostics) fmt::print("  note: {}\n", d.toString());
        double seconds = parseS;
        if (stopAfter >= Stage::Merge) {
            const StageClock clock;
            auto m = core::mergeRank(rank, *rules);
            const double s = clock.seconds();
            if (!m) { fmt::print(stderr, "strobe-load: {}: merge: {}\n", path, m.error().toString()); status = 3; continue; }
            printStage("merge", s, json, clock.peak(), clock.peakReset,
                       fmt::format("  dataset {} ({:.2f}x JSON)", mb(static_cast<double>(rank.bytes())),
                                   static_cast<double>(rank.bytes()) / std::max(json, 1.0)));
            seconds += s;
            fmt::print("  {:<12} {:8.3f} s  {:8.1f} MB/s  (file to merged dataset)\n", "parse+merge", seconds,
                       json / 1e6 / seconds);
        }
        if (stopAfter >= Stage::Cache && useCache) {
            const StageClock wclock;
            const uint64_t optionsKey = core::cacheOptionsKey(*rules);  // as loadRun files its entries
            auto w = cache.write(path, rank, optionsKey);
            const double ws = wclock.seconds();
            if (!w) {
                fmt::print(stderr, "strobe-load: {}: cache write: {}\n", path, w.error().toString());
                status = 3;
            } else {
                std::error_code ec;
                const auto entry = cache.entryFor(path);
                const double size = static_cast<double>(std::filesystem::file_size(entry, ec));
                printStage("cache write", ws, json, wclock.peak(), wclock.peakReset,
                           fmt::format("  {} ({})", entry.string(), ec ? std::string("size unknown") : mb(size)));
                r = core::Error("released before reopening");  // reopen without the parsed copy in memory
                const StageClock rclock;
                auto c = cache.read(path, optionsKey);
                const double rs = rclock.seconds();
                if (!c) {
                    fmt::print(stderr, "strobe-load: {}: cache reopen: {}\n", path, c.error().toString());
                    status = 3;
                } else {
                    printStage("cache open", rs, json, rclock.peak(), rclock.peakReset,
                               fmt::format("  {:.1f}x faster than parse+merge  dataset {}", seconds / std::max(rs, 1e-9),
                                           mb(static_cast<double>((*c)->bytes()))));
                }
            }
        }
        totalJson += json;
        totalSeconds += seconds;
    }
    if (paths.size() > 1)
        fmt::print("total: {} JSON in {:.3f} s ({:.1f} MB/s), process peak RSS {}\n", mb(totalJson), totalSeconds,
                   totalJson / 1e6 / std::max(totalSeconds, 1e-9), mb(static_cast<double>(procStatusBytes("VmHWM"))));
    return status;
}
