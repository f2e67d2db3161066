// strobe-gen-kineto: writes synthetic Kineto traces shaped like the real ones (see kineto_gen.h).
//
//   strobe-gen-kineto -o trace.json --size 1G
//   strobe-gen-kineto -o run-dir --ranks 8 --kernels 1000000 --platform amd --gzip
//
// --size and --kernels are totals over all ranks. With --ranks > 1 the output is a directory holding
// rank-<r>.json (or .json.gz), each with distributedInfo rank/world_size.

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/kineto_gen.h"

namespace {

using strobe::bench::GenCat;
using strobe::bench::GenPlatform;
using strobe::bench::KinetoGenOptions;
using strobe::bench::KinetoGenStats;

void usage(std::FILE* to) {
    fmt::print(to,
               "usage: strobe-gen-kineto -o PATH [options]\n"
               "  -o, --output PATH     output file (one rank) or directory (--ranks > 1)\n"
               "  --size SIZE           approximate total bytes over all ranks: 500M, 1G, 123456 (default 1G)\n"
               "  --kernels N           total kernel count over all ranks instead of a size (e.g. 1000000)\n"
               "  --ranks N             number of rank files (default 1)\n"
               "  --platform P          nvidia (default) or amd\n"
               "  --float-ts            ts/dur as floats with three decimals (default for amd)\n"
               "  --int-ts              ts/dur as integers (default for nvidia)\n"
               "  --gzip                write .json.gz (zlib level 1; --gzip-level N to change)\n"
               "  --seed N              structure/timing seed (default 1); same seed, same bytes\n"
               "  --jobs N              ranks written in parallel (default 1)\n"
               "  --quiet               no per-rank report\n");
}

// CPU seconds (user + system) of the calling thread: generation speed apart from a slow or busy disk.
double threadCpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

bool parseSize(const std::string& s, uint64_t& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || v < 0) return false;
    double mult = 1;
    const std::string suffix(end);
    if (suffix.empty() || suffix == "B") mult = 1;
    else if (suffix == "K" || suffix == "k" || suffix == "KB") mult = 1e3;
    else if (suffix == "M" || suffix == "m" || suffix == "MB") mult = 1e6;
    else if (suffix == "G" || suffix == "g" || suffix == "GB") mult = 1e9;
    else if (suffix == "Ki" || suffix == "KiB") mult = 1024.0;
    else if (suffix == "Mi" || suffix == "MiB") mult = 1024.0 * 1024;
    else if (suffix == "Gi" || suffix == "GiB") mult = 1024.0 * 1024 * 1024;
    else return false;
    out = static_cast<uint64_t>(v * mult);
    return true;
}

bool parseInt(const std::string& s, int64_t& out) {
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0') return false;
    out = v;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::string output;
    uint64_t totalBytes = 1000ull * 1000 * 1000;
    int64_t totalKernels = 0;
    int64_t ranks = 1, jobs = 1, seed = 1, gzipLevel = 1;
    bool gzip = false, quiet = false;
    int floatTs = -1;
    GenPlatform platform = GenPlatform::Nvidia;

    std::vector<std::string> args(argv + 1, argv + argc);
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& v) {
            if (i + 1 >= args.size()) {
                fmt::print(stderr, "strobe-gen-kineto: {} needs a value\n", a);
                std::exit(2);
            }
            v = args[++i];
        };
        auto intValue = [&](int64_t& v, int64_t lo) {
            std::string s;
            value(s);
            if (!parseInt(s, v) || v < lo) {
                fmt::print(stderr, "strobe-gen-kineto: {} expects an integer >= {}, got '{}'\n", a, lo, s);
                std::exit(2);
            }
        };
        std::string s;
        if (a == "-h" || a == "--help") { usage(stdout); return 0; }
        else if (a == "-o" || a == "--output") value(output);
        else if (a == "--size") {
            value(s);
            if (!parseSize(s, totalBytes)) { fmt::print(stderr, "strobe-gen-kineto: bad --size '{}'\n", s); return 2; }
        }
        else if (a == "--kernels") intValue(totalKernels, 1);
        else if (a == "--ranks") intValue(ranks, 1);
        else if (a == "--jobs") intValue(jobs, 1);
        else if (a == "--seed") intValue(seed, 0);
        else if (a == "--gzip-level") { intValue(gzipLevel, 1); gzip = true; }
        else if (a == "--gzip") gzip = true;
        else if (a == "--float-ts") floatTs = 1;
        else if (a == "--int-ts") floatTs = 0;
        else if (a == "--quiet") quiet = true;
        else if (a == "--platform") {
            value(s);
            if (s == "amd") platform = GenPlatform::Amd;
            else if (s == "nvidia") platform = GenPlatform::Nvidia;
            else { fmt::print(stderr, "strobe-gen-kineto: --platform expects amd or nvidia, got '{}'\n", s); return 2; }
        } else {
            fmt::print(stderr, "strobe-gen-kineto: unknown argument '{}'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (output.empty()) {
        fmt::print(stderr, "strobe-gen-kineto: -o PATH is required\n");
        usage(stderr);
        return 2;
    }
    if (ranks > 4096) { fmt::print(stderr, "strobe-gen-kineto: at most 4096 ranks\n"); return 2; }

    std::vector<std::string> paths;
    if (ranks == 1) {
        paths.push_back(output);
    } else {
        std::error_code ec;
        std::filesystem::create_directories(output, ec);
        if (ec) { fmt::print(stderr, "strobe-gen-kineto: cannot create {}: {}\n", output, ec.message()); return 3; }
        for (int64_t r = 0; r < ranks; ++r)
            paths.push_back((std::filesystem::path(output) / fmt::format("rank-{}.json{}", r, gzip ? ".gz" : "")).string());
    }

    std::vector<KinetoGenStats> stats(static_cast<size_t>(ranks));
    std::vector<double> seconds(static_cast<size_t>(ranks));
    std::atomic<int64_t> nextRank{0};
    std::atomic<bool> failed{false};
    std::mutex printMutex;
    auto worker = [&] {
        for (int64_t r; (r = nextRank++) < ranks;) {
            KinetoGenOptions o;
            o.platform = platform;
            o.floatTs = floatTs < 0 ? platform == GenPlatform::Amd : floatTs == 1;
            o.seed = static_cast<uint64_t>(seed);
            o.rank = static_cast<int>(r);
            o.worldSize = static_cast<int>(ranks);
            o.targetBytes = totalBytes / static_cast<uint64_t>(ranks);
            o.kernels = totalKernels > 0 ? static_cast<uint64_t>((totalKernels + ranks - 1) / ranks) : 0;
            const std::string& path = paths[static_cast<size_t>(r)];
            std::unique_ptr<strobe::bench::GenSink> sink;
            if (gzip) {
                auto g = std::make_unique<strobe::bench::GzipGenSink>(path, static_cast<int>(gzipLevel));
                if (!g->ok()) { fmt::print(stderr, "strobe-gen-kineto: cannot write {}\n", path); failed = true; return; }
                sink = std::move(g);
            } else {
                auto f = std::make_unique<strobe::bench::FileGenSink>(path);
                if (!f->ok()) { fmt::print(stderr, "strobe-gen-kineto: cannot write {}\n", path); failed = true; return; }
                sink = std::move(f);
            }
            const auto t0 = std::chrono::steady_clock::now();
            const double cpu0 = threadCpuSeconds();
            strobe::bench::KinetoGenerator gen(o, *sink);
            const bool ok = gen.run() && sink->close();
            seconds[static_cast<size_t>(r)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const double cpu = threadCpuSeconds() - cpu0;
            stats[static_cast<size_t>(r)] = gen.stats();
            if (!ok) {
                fmt::print(stderr, "strobe-gen-kineto: writing {} failed (disk full?)\n", path);
                failed = true;
                return;
            }
            if (!quiet) {
                std::lock_guard<std::mutex> lock(printMutex);
                const auto& s = gen.stats();
                fmt::print("{}: {:.1f} MB (JSON text), {} events, {:.1f} B/event, {} kernels, {} steps; "
                           "{:.2f} s wall ({:.0f} MB/s), {:.2f} s CPU ({:.0f} MB/s)\n",
                           path, s.bytes / 1e6, s.events, static_cast<double>(s.bytes) / static_cast<double>(s.events),
                           s.count(GenCat::Kernel), s.steps, seconds[static_cast<size_t>(r)],
                           s.bytes / 1e6 / seconds[static_cast<size_t>(r)], cpu, s.bytes / 1e6 / std::max(cpu, 1e-9));
            }
        }
    };
    std::vector<std::thread> pool;
    for (int64_t j = 0; j < std::min(jobs, ranks); ++j) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    if (failed) return 3;

    if (!quiet) {
        KinetoGenStats total;
        for (const auto& s : stats) {
            total.bytes += s.bytes;
            total.events += s.events;
            for (size_t c = 0; c < total.byCat.size(); ++c) total.byCat[c] += s.byCat[c];
        }
        fmt::print("total: {:.1f} MB, {} events, {:.1f} B/event; categories:", total.bytes / 1e6, total.events,
                   static_cast<double>(total.bytes) / static_cast<double>(std::max<uint64_t>(1, total.events)));
        for (size_t c = 0; c < total.byCat.size(); ++c)
            if (total.byCat[c])
                fmt::print(" {}={} ({:.1f}%)", strobe::bench::kGenCatNames[c], total.byCat[c],
                           100.0 * static_cast<double>(total.byCat[c]) / static_cast<double>(total.events));
        fmt::print("\n");
    }
    return 0;
}
