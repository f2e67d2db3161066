// bench_load: Kineto loading speed and memory, each figure beside a raw simdjson pass over the same file
// measured in the same run (so the ratios hold on a noisy, shared machine).
//
// Input: $STROBE_BENCH_TRACE, or a synthetic trace generated once into $TMPDIR/strobe-bench (default size 1 GB,
// $STROBE_BENCH_SIZE to change, e.g. 200M; $STROBE_BENCH_PLATFORM=amd for the AMD profile).
//
// Figures (Google Benchmark counters):
//   bytes_per_second  JSON bytes (decompressed) per second of wall time, file read included
//   vs_simdjson       that speed divided by the raw simdjson pass's median speed in this run
//   rss_ratio         peak resident memory the load added, divided by the JSON size (measured once per
//                     benchmark in a forked child: VmHWM reset through /proc/self/clear_refs, minus the RSS the
//                     child started with, after malloc_trim in the parent; see README.md)
//   dataset_ratio     RankData::bytes() / Dataset::bytes() of the result, divided by the JSON size
//   cpu_MBps          JSON MB per process CPU-second (all threads); vs_simdjson_cpu: its ratio to simdjson's
//   speedup           (cache benchmarks) first load seconds / this load's seconds

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "bench/kineto_gen.h"
#include "bench/proc_status.h"
#include "core/engine/load_cache.h"
#include "core/engine/run_loader.h"
#include "core/formats/kineto_json.h"
#include "core/merge/merge.h"
#include "core/model/classification.h"

namespace fs = std::filesystem;
namespace core = strobe::core;
using strobe::bench::ChildMeasure;
using strobe::bench::measureInChild;

namespace {

struct TraceFile {
    std::string path;
    uint64_t fileBytes = 0;  // on disk
    uint64_t jsonBytes = 0;  // decompressed JSON text
    std::string error;
};

fs::path benchDir() {
    const char* t = std::getenv("TMPDIR");
    return fs::path(t && *t ? t : "/tmp") / "strobe-bench";
}

uint64_t gunzippedSize(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return 0;
    gzbuffer(f, 1u << 20);
    std::vector<char> buf(1u << 20);
    uint64_t n = 0;
    for (int r; (r = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0;) n += static_cast<uint64_t>(r);
    gzclose(f);
    return n;
}

// The trace under test, generated on first use when none is given.
const TraceFile& traceFile() {
    static TraceFile tf = [] {
        TraceFile t;
        if (const char* env = std::getenv("STROBE_BENCH_TRACE"); env && *env) {
            t.path = env;
        } else {
            uint64_t size = 1000ull * 1000 * 1000;
            std::string sizeText = "1G";
            if (const char* s = std::getenv("STROBE_BENCH_SIZE"); s && *s) {
                sizeText = s;
                char* end = nullptr;
                const double v = std::strtod(s, &end);
                const char u = end ? *end : '\0';
                size = static_cast<uint64_t>(v * (u == 'G' ? 1e9 : u == 'M' ? 1e6 : u == 'K' ? 1e3 : 1.0));
            }
            const char* plat = std::getenv("STROBE_BENCH_PLATFORM");
            const bool amd = plat && std::string_view(plat) == "amd";
            std::error_code ec;
            fs::create_directories(benchDir(), ec);
            t.path = (benchDir() / fmt::format("synthetic-{}-{}-seed1-v{}.json", amd ? "amd" : "nvidia", sizeText,
                                                        strobe::bench::kGeneratorVersion)).string();
            if (!fs::exists(t.path)) {
                const std::string tmp = t.path + ".partial";
                strobe::bench::FileGenSink sink(tmp);
                strobe::bench::KinetoGenOptions o;
                o.targetBytes = size;
                o.platform = amd ? strobe::bench::GenPlatform::Amd : strobe::bench::GenPlatform::Nvidia;
                o.floatTs = amd;
                strobe::bench::KinetoGenerator gen(o, sink);
                const auto t0 = std::chrono::steady_clock::now();
                if (!sink.ok() || !gen.run() || !sink.close()) {
                    t.error = "cannot generate " + tmp;
                    fs::remove(tmp, ec);
                    return t;
                }
                fs::rename(tmp, t.path, ec);
                if (ec) { t.error = "cannot rename " + tmp + ": " + ec.message(); return t; }
                fmt::print(stderr, "bench_load: generated {} ({:.1f} MB, {} events) in {:.1f} s\n", t.path,
                           gen.stats().bytes / 1e6, gen.stats().events,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
        }
        std::error_code ec;
        t.fileBytes = fs::file_size(t.path, ec);
        if (ec) { t.error = "cannot stat " + t.path + ": " + ec.message(); return t; }
        t.jsonBytes = t.path.ends_with(".gz") ? gunzippedSize(t.path) : t.fileBytes;
        if (t.jsonBytes == 0) t.error = t.path + " is empty or not readable";
        return t;
    }();
    return tf;
}

// ----- raw simdjson On-Demand pass: the reference ---------------------------------------------------------

bool readPadded(const std::string& path, simdjson::padded_string& out, std::string& error) {
    if (!path.ends_with(".gz")) {
        auto r = simdjson::padded_string::load(path);
        if (r.error()) { error = fmt::format("{}: {}", path, simdjson::error_message(r.error())); return false; }
        out = std::move(r).value_unsafe();
        return true;
    }
    const uint64_t n = gunzippedSize(path);
    simdjson::padded_string s(n);
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) { error = path + ": cannot open"; return false; }
    gzbuffer(f, 1u << 20);
    uint64_t off = 0;
    for (int r; off < n && (r = gzread(f, s.data() + off, static_cast<unsigned>(std::min<uint64_t>(n - off, 1u << 30)))) > 0;)
        off += static_cast<uint64_t>(r);
    gzclose(f);
    out = std::move(s);
    return true;
}

// Whole-document On-Demand pass touching every event's ph, name, ts and dur. Returns the event count.
bool simdjsonPass(const std::string& path, uint64_t& events, uint64_t& checksum, std::string& error,
                  double* readSeconds = nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    simdjson::padded_string json;
    if (!readPadded(path, json, error)) return false;
    if (readSeconds) *readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    simdjson::ondemand::parser parser;  // sized on first use to the document (up to 4 GB)
    simdjson::ondemand::document doc;
    if (auto e = parser.iterate(json).get(doc); e) { error = simdjson::error_message(e); return false; }
    simdjson::ondemand::array arr;
    if (auto e = doc["traceEvents"].get_array().get(arr); e) { error = simdjson::error_message(e); return false; }
    events = 0;
    checksum = 0;
    for (auto item : arr) {
        simdjson::ondemand::object obj;
        if (item.get_object().get(obj)) { error = "event is not an object"; return false; }
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key)) { error = "bad key"; return false; }
            if (key == "ph" || key == "name") {
                std::string_view v;
                if (!field.value().get_string().get(v)) checksum += v.size();
            } else if (key == "ts" || key == "dur") {
                double v = 0;
                if (!field.value().get_double().get(v)) checksum += static_cast<uint64_t>(v);
            }
        }
        ++events;
    }
    return true;
}

std::mutex g_refMutex;
std::vector<double> g_simdjsonSpeeds;  // bytes/s of each simdjson repetition in this run

std::vector<double> g_simdjsonCpuSpeeds;  // bytes per process-CPU second of each repetition

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
double simdjsonReference() {
    std::lock_guard<std::mutex> lock(g_refMutex);
    return median(g_simdjsonSpeeds);
}
double simdjsonCpuReference() {
    std::lock_guard<std::mutex> lock(g_refMutex);
    return median(g_simdjsonCpuSpeeds);
}

// Peak-RSS figures, measured once per benchmark name (in a child), reused by its repetitions.
std::map<std::string, ChildMeasure> g_rss;

const ChildMeasure& rssFor(const std::string& key, const std::function<bool(std::string&)>& load) {
    auto it = g_rss.find(key);
    if (it == g_rss.end()) it = g_rss.emplace(key, measureInChild(load)).first;
    return it->second;
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds (user + system) of the whole process, all threads.
double processCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Wall and process-CPU time of one load.
struct LoadClock {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    double cpu0 = processCpuSeconds();
    double wall() const { return secondsSince(t0); }
    double cpu() const { return processCpuSeconds() - cpu0; }
};

void setCommon(benchmark::State& state, double seconds, uint64_t jsonBytes, const ChildMeasure& rss,
               double datasetBytes, double cpuSeconds) {
    state.SetBytesProcessed(static_cast<int64_t>(jsonBytes) * state.iterations());
    if (rss.ok) state.counters["rss_ratio"] = rss.peakDeltaBytes / static_cast<double>(jsonBytes);
    if (datasetBytes > 0) state.counters["dataset_ratio"] = datasetBytes / static_cast<double>(jsonBytes);
    const double ref = simdjsonReference();
    if (ref > 0 && seconds > 0)
        state.counters["vs_simdjson"] = static_cast<double>(jsonBytes) / seconds / ref;
    // Per CPU-second of the whole process: steadier than wall time when other jobs share the cores (for a
    // two-thread load it is the work done per core-second, not the speed).
    if (cpuSeconds > 0) {
        const double cpuSpeed = static_cast<double>(jsonBytes) / cpuSeconds;
        state.counters["cpu_MBps"] = cpuSpeed / 1e6;
        const double cref = simdjsonCpuReference();
        if (cref > 0 && seconds > 0) state.counters["vs_simdjson_cpu"] = cpuSpeed / cref;
    }
}


// ----- benchmarks ------------------------------------------------------------------------------------------

void BM_SimdjsonOnDemand(benchmark::State& state) {
    const TraceFile& tf = traceFile();
    if (!tf.error.empty()) { state.SkipWithError(tf.error.c_str()); return; }
    double total = 0, readTotal = 0, cpuTotal = 0;
    uint64_t events = 0;
    for (auto _ : state) {
        uint64_t checksum = 0;
        std::string error;
        double readSec = 0;
        const LoadClock clock;
        if (!simdjsonPass(tf.path, events, checksum, error, &readSec)) {
            state.SkipWithError(("simdjson: " + error).c_str());
            return;
        }
        const double sec = clock.wall();
        total += sec;
        cpuTotal += clock.cpu();
        readTotal += readSec;
        state.SetIterationTime(sec);
        benchmark::DoNotOptimize(checksum);
    }
    const double perIter = total / static_cast<double>(state.iterations());
    {
        std::lock_guard<std::mutex> lock(g_refMutex);
        g_simdjsonSpeeds.push_back(static_cast<double>(tf.jsonBytes) / perIter);
        if (cpuTotal > 0)
            g_simdjsonCpuSpeeds.push_back(static_cast<double>(tf.jsonBytes) * static_cast<double>(state.iterations()) / cpuTotal);
    }
    const ChildMeasure& rss = rssFor("simdjson", [&](std::string& err) {
        uint64_t ev = 0, cs = 0;
        return simdjsonPass(tf.path, ev, cs, err);
    });
    setCommon(state, 0, tf.jsonBytes, rss, 0, cpuTotal / static_cast<double>(state.iterations()));  // no vs_ ratios for itself
    state.counters["events"] = static_cast<double>(events);
    // The parse alone (the issue quotes 1.7-2.0 GB/s for it on this machine size), in MB/s.
    const double parseSec = (total - readTotal) / static_cast<double>(state.iterations());
    if (parseSec > 0) state.counters["parse_only_MBps"] = static_cast<double>(tf.jsonBytes) / 1e6 / parseSec;
}

// Parser only: file → RankData with raw tables.
void BM_LoadKineto(benchmark::State& state) {
    const TraceFile& tf = traceFile();
    if (!tf.error.empty()) { state.SkipWithError(tf.error.c_str()); return; }
    core::KinetoLoadOptions opt;
    opt.threads = static_cast<int>(state.range(0));
    double total = 0, dataset = 0, cpuTotal = 0;
    for (auto _ : state) {
        const LoadClock clock;
        auto r = core::loadKinetoTrace(tf.path, opt);
        const double s = clock.wall();
        cpuTotal += clock.cpu();
        if (!r) { state.SkipWithError(("loadKinetoTrace: " + r.error().toString()).c_str()); return; }
        total += s;
        state.SetIterationTime(s);  // freeing the result is not part of the load
        dataset = static_cast<double>((*r)->bytes());
    }
    const ChildMeasure& rss = rssFor(fmt::format("kineto/{}", opt.threads), [&](std::string& err) {
        auto r = core::loadKinetoTrace(tf.path, opt);
        if (!r) err = r.error().toString();
        return r.ok();
    });
    setCommon(state, total / static_cast<double>(state.iterations()), tf.jsonBytes, rss, dataset,
              cpuTotal / static_cast<double>(state.iterations()));
}

const core::ClassificationRules* rules(std::string& error) {
    static auto r = core::ClassificationRules::loadDefault();
    if (!r) { error = r.error().toString(); return nullptr; }
    return &r.value();
}

// The figure: file → merged, queryable dataset (parse + merge) of one rank.
void BM_LoadMerged(benchmark::State& state) {
    const TraceFile& tf = traceFile();
    if (!tf.error.empty()) { state.SkipWithError(tf.error.c_str()); return; }
    std::string error;
    const core::ClassificationRules* rs = rules(error);
    if (!rs) { state.SkipWithError(("classification rules: " + error).c_str()); return; }
    core::KinetoLoadOptions opt;
    opt.threads = static_cast<int>(state.range(0));
    auto loadAndMerge = [&](std::string& err, std::unique_ptr<core::RankData>& out) {
        auto r = core::loadKinetoTrace(tf.path, opt);
        if (!r) { err = "loadKinetoTrace: " + r.error().toString(); return false; }
        auto m = core::mergeRank(**r, *rs);
        if (!m) { err = "mergeRank: " + m.error().toString(); return false; }
        out = std::move(*r);
        return true;
    };
    double total = 0, dataset = 0, cpuTotal = 0;
    for (auto _ : state) {
        std::unique_ptr<core::RankData> rank;
        std::string err;
        const LoadClock clock;
        const bool ok = loadAndMerge(err, rank);
        const double sec = clock.wall();
        cpuTotal += clock.cpu();
        if (!ok) { state.SkipWithError(err.c_str()); return; }
        total += sec;
        state.SetIterationTime(sec);
        dataset = static_cast<double>(rank->bytes());
    }
    const ChildMeasure& rss = rssFor(fmt::format("merged/{}", opt.threads), [&](std::string& err) {
        std::unique_ptr<core::RankData> rank;
        return loadAndMerge(err, rank);
    });
    setCommon(state, total / static_cast<double>(state.iterations()), tf.jsonBytes, rss, dataset,
              cpuTotal / static_cast<double>(state.iterations()));
}

// The load cache: a first loadRun that writes the cache (timed once, outside the loop), then reopening.
struct CacheSetup {
    bool done = false;
    std::string error;
    double firstSeconds = 0;
    fs::path dir;
};
CacheSetup& cacheSetup() {
    static CacheSetup c;
    if (c.done) return c;
    c.done = true;
    const TraceFile& tf = traceFile();
    c.dir = benchDir() / "cache";
    std::error_code ec;
    fs::remove_all(c.dir, ec);
    fs::create_directories(c.dir, ec);
    core::RunLoadOptions o;
    o.cacheDir = c.dir;
    o.useCache = true;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = core::loadRun({tf.path}, o);
    c.firstSeconds = secondsSince(t0);
    if (!r) { c.error = "loadRun (first load, writing the cache): " + r.error().toString(); return c; }
    if (!(*r)->ranks.empty() && (*r)->ranks[0]->stats.fromCache) {
        c.error = "the first load came from the cache although the cache directory was empty";
        return c;
    }
    return c;
}

void BM_LoadRunFirst(benchmark::State& state) {
    const TraceFile& tf = traceFile();
    if (!tf.error.empty()) { state.SkipWithError(tf.error.c_str()); return; }
    // loadRun without the cache: what a user waits for on a first open (parse + merge, ranks in parallel).
    core::RunLoadOptions o;
    o.useCache = false;
    double total = 0, dataset = 0, cpuTotal = 0;
    for (auto _ : state) {
        const LoadClock clock;
        auto r = core::loadRun({tf.path}, o);  // freed after the clock stops (end of this scope)
        const double sec = clock.wall();
        cpuTotal += clock.cpu();
        if (!r) { state.SkipWithError(("loadRun: " + r.error().toString()).c_str()); return; }
        total += sec;
        state.SetIterationTime(sec);
        dataset = static_cast<double>((*r)->bytes());
    }
    const ChildMeasure& rss = rssFor("run/nocache", [&](std::string& err) {
        auto r = core::loadRun({tf.path}, o);
        if (!r) err = r.error().toString();
        return r.ok();
    });
    setCommon(state, total / static_cast<double>(state.iterations()), tf.jsonBytes, rss, dataset,
              cpuTotal / static_cast<double>(state.iterations()));
}

void BM_CacheReopen(benchmark::State& state) {
    const TraceFile& tf = traceFile();
    if (!tf.error.empty()) { state.SkipWithError(tf.error.c_str()); return; }
    CacheSetup& c = cacheSetup();
    if (!c.error.empty()) { state.SkipWithError(c.error.c_str()); return; }
    // 0: LoadCache::read (checksums over every column, the default), 1: core::loadRun served from the cache,
    // 2: LoadCache::read without the per-column checksums (header, directory and strings still checked).
    const bool viaRun = state.range(0) == 1;
    std::string rulesError;
    const core::ClassificationRules* rs = rules(rulesError);
    if (!rs) { state.SkipWithError(("classification rules: " + rulesError).c_str()); return; }
    const uint64_t optionsKey = core::cacheOptionsKey(*rs);  // what loadRun files its entries under
    core::RunLoadOptions o;
    o.cacheDir = c.dir;
    o.useCache = true;
    core::LoadCache cache(c.dir);
    cache.setVerifyData(state.range(0) != 2);
    // `keep` holds the result so that it is freed after the clock stops.
    auto reopen = [&](std::string& err, double* datasetBytes, std::shared_ptr<const void>& keep) {
        if (viaRun) {
            auto r = core::loadRun({tf.path}, o);
            if (!r) { err = "loadRun: " + r.error().toString(); return false; }
            if ((*r)->ranks.empty() || !(*r)->ranks[0]->stats.fromCache) { err = "loadRun did not use the cache"; return false; }
            if (datasetBytes) *datasetBytes = static_cast<double>((*r)->bytes());
            keep = *r;
            return true;
        }
        auto r = cache.read(tf.path, optionsKey);
        if (!r) { err = "LoadCache::read: " + r.error().toString(); return false; }
        if (datasetBytes) *datasetBytes = static_cast<double>((*r)->bytes());
        keep = *r;
        return true;
    };
    double total = 0, dataset = 0, cpuTotal = 0;
    for (auto _ : state) {
        std::shared_ptr<const void> keep;
        std::string err;
        const LoadClock clock;
        const bool ok = reopen(err, &dataset, keep);
        const double sec = clock.wall();
        cpuTotal += clock.cpu();
        if (!ok) { state.SkipWithError(err.c_str()); return; }
        total += sec;
        state.SetIterationTime(sec);
    }
    const double perIter = total / static_cast<double>(state.iterations());
    const ChildMeasure& rss = rssFor(fmt::format("cache/{}", state.range(0)),
                                     [&](std::string& err) {
                                         std::shared_ptr<const void> keep;
                                         return reopen(err, nullptr, keep);
                                     });
    setCommon(state, perIter, tf.jsonBytes, rss, dataset, cpuTotal / static_cast<double>(state.iterations()));
    state.counters["first_load_s"] = c.firstSeconds;
    state.counters["speedup"] = c.firstSeconds / perIter;
}

// Ten iterations would take minutes on a 1 GB file: one load per repetition, repetitions give the spread.
// Manual time: the wall seconds of the load itself (file read included, freeing the result excluded).
BENCHMARK(BM_SimdjsonOnDemand)->Unit(benchmark::kMillisecond)->Iterations(1)->ReportAggregatesOnly(true)->UseManualTime();
BENCHMARK(BM_LoadKineto)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1)
    ->ReportAggregatesOnly(true)->UseManualTime();
BENCHMARK(BM_LoadMerged)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1)
    ->ReportAggregatesOnly(true)->UseManualTime();
BENCHMARK(BM_LoadRunFirst)->Unit(benchmark::kMillisecond)->Iterations(1)->ReportAggregatesOnly(true)->UseManualTime();
BENCHMARK(BM_CacheReopen)->ArgName("mode")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1)
    ->ReportAggregatesOnly(true)->UseManualTime();

}  // namespace

int main(int argc, char** argv) {
    // Three repetitions unless told otherwise, so the medians are printed.
    std::vector<char*> args(argv, argv + argc);
    bool hasReps = false;
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]).starts_with("--benchmark_repetitions")) hasReps = true;
    static char reps[] = "--benchmark_repetitions=3";
    if (!hasReps) args.push_back(reps);
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    const TraceFile& tf = traceFile();
    benchmark::AddCustomContext("trace", tf.path);
    benchmark::AddCustomContext("trace_json_MB", fmt::format("{:.1f}", tf.jsonBytes / 1e6));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
