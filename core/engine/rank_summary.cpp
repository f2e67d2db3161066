#include "core/engine/rank_summary.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "core/analysis/collectives.h"
#include "core/analysis/columns.h"
#include "core/analysis/context.h"
#include "core/analysis/kernel_stats.h"
#include "core/analysis/rank_steps.h"
#include "core/analysis/temporal.h"
#include "core/engine/load_cache_meta.h"

namespace strobe::core {

namespace fs = std::filesystem;
using cachefile::MetaReader;
using cachefile::MetaWriter;

namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'O', 'B', 'E', 'S', 'M'};
constexpr uint32_t kEndianTag = 0x01020304u;
constexpr size_t kHead = sizeof(kMagic) + 4 + 4 + 8;  // magic, endian tag, version, payload size
constexpr size_t kTail = 8;                           // checksum

// ---- building ----

// Per ProfilerStep span of the rank as the analyses see them (AnalysisContext::steps).
std::vector<StepSummary> stepsOf(AnalysisContext& ctx) {
    std::vector<StepSummary> out;
    KernelStatsOptions byCategory;
    byCategory.groupBy = KernelGroupBy::Category;
    for (const StepSpan& st : ctx.steps(0)) {
        StepSummary s;
        s.number = st.number;
        s.startNs = st.start;
        s.endNs = st.end;
        const WindowSpec window = WindowSpec::stepList({st.number});
        if (auto cats = kernelStatistics(ctx, window, byCategory)) {
            for (size_t row = 0; row < cats->rows.size(); ++row)
                s.timeByCategory.emplace_back(Table::text(cats->at(row, col::kName)),
                                              static_cast<TimeNs>(Table::number(cats->at(row, col::kTotalNs))));
        }
        if (auto temporal = temporalBreakdown(ctx, window); temporal && !temporal->rows.empty()) {
            s.idleNs = static_cast<TimeNs>(Table::number(temporal->at(0, col::kIdleNs)));
            s.activities = static_cast<uint64_t>(Table::number(temporal->at(0, col::kActivities)));
        }
        out.push_back(std::move(s));
    }
    return out;
}

// The communication kernels of each step window (WindowSpec::stepList({N}), the window the rank-steps and straggler
// analyses use per step), keyed as matchCollectiveKernels keys them on that window; then those launched in no step.
std::vector<CollectiveSummary> collectivesOf(AnalysisContext& ctx) {
    std::vector<CollectiveSummary> out;
    const RankData& r = *ctx.dataset().ranks.front();  // buildRankSummary gives it one rank
    auto add = [&](const std::vector<RankWindow>& windows, int64_t step) {
        for (const auto& [key, hits] : matchCollectiveKernels(windows))
            for (const CollectiveHit& h : hits) {
                CollectiveSummary s;
                s.processGroup = std::get<0>(key);
                s.seq = std::get<1>(key);
                s.name = std::get<2>(key);
                Collective type = Collective::Other;
                std::optional<int64_t> bytes;
                describeCollectiveKernel(r, h.row, s.processGroup, type, bytes);
                s.type = std::string(toString(type));
                s.bytes = bytes.value_or(-1);
                s.step = step;
                s.startNs = h.start;
                s.endNs = h.end;
                out.push_back(std::move(s));
            }
    };
    std::set<int64_t> numbers;
    std::vector<uint8_t> inStep(r.gpu.size(), 0);
    for (const StepSpan& st : ctx.steps(0)) {
        if (!numbers.insert(st.number).second) continue;
        auto sel = ctx.select(WindowSpec::stepList({st.number}));
        if (!sel || sel.value()->ranks.empty()) continue;
        for (uint32_t g : sel.value()->ranks.front().row) inStep[g] = 1;
        add(sel.value()->ranks, st.number);
    }
    auto all = ctx.select(WindowSpec{});
    if (!all || all.value()->ranks.empty()) return out;
    const RankWindow& w = all.value()->ranks.front();
    std::vector<RankWindow> outside(1);
    outside[0].rank = w.rank;
    outside[0].rankIndex = w.rankIndex;
    outside[0].data = w.data;
    for (size_t i = 0; i < w.size(); ++i)
        if (!inStep[w.row[i]]) {
            outside[0].row.push_back(w.row[i]);
            outside[0].type.push_back(w.type[i]);
        }
    add(outside, -1);
    return out;
}

// ---- encoding ----

template <class E>
void putEnum(MetaWriter& w, E e) {
    w.u8(static_cast<uint8_t>(e));
}

void writeIdentity(MetaWriter& w, const SummaryIdentity& id) {
    w.str(id.sourcePath);
    w.u64(id.sourceSize);
    w.i64(id.sourceMtimeNs);
    w.u32(id.rankIndex);
    w.u32(id.cacheFormatVersion);
    w.u32(id.loaderVersion);
    w.u64(id.optionsKey);
}

void writeRank(MetaWriter& w, const RankSummary& r) {
    w.i32(r.rank);
    w.i32(r.worldSize);
    putEnum(w, r.rankSource);
    w.str(r.path);
    w.str(r.format);
    putEnum(w, r.platform);
    w.str(r.gpuName);
    w.u32(r.gpuCount);
    w.u8(r.cpuOnly);
    w.u64(r.events);
    w.u64(r.skippedEvents);
    w.u8(r.truncated);
    w.u8(r.fromCache);
    w.u64(r.eventsByCategory.size());
    for (const auto& [name, n] : r.eventsByCategory) {
        w.str(name);
        w.u64(n);
    }
    for (auto v : {r.kernelCount, r.memcpyCount, r.memsetCount}) w.u64(v);
    for (auto v : {r.kernelTimeNs, r.memcpyTimeNs, r.memsetTimeNs, r.spanStart, r.spanEnd}) w.i64(v);
    w.u64(r.steps.size());
    for (int64_t s : r.steps) w.i64(s);
    w.u64(r.stepSpans.size());
    for (const StepRange& s : r.stepSpans)
        for (auto v : {s.number, s.startNs, s.endNs}) w.i64(v);
    w.u64(r.timeByCategory.size());
    for (size_t i = 0; i < r.timeByCategory.size(); ++i) {
        putEnum(w, r.timeByCategory[i].first);
        w.i64(r.timeByCategory[i].second);
        w.u64(i < r.countByCategory.size() ? r.countByCategory[i].second : 0);
    }
    w.u64(r.topKernels.size());
    for (const KernelTotal& k : r.topKernels) {
        w.str(k.name);
        putEnum(w, k.category);
        w.u64(k.count);
        for (auto v : {k.totalNs, k.minNs, k.maxNs}) w.i64(v);
    }
    w.u64(r.warnings.size());
    for (const auto& s : r.warnings) w.str(s);
}

void writeDetail(MetaWriter& w, const StoredRankSummary& s) {
    w.u64(s.steps.size());
    for (const StepSummary& st : s.steps) {
        for (auto v : {st.number, st.startNs, st.endNs, st.idleNs}) w.i64(v);
        w.u64(st.activities);
        w.u64(st.timeByCategory.size());
        for (const auto& [cat, t] : st.timeByCategory) {
            w.str(cat);
            w.i64(t);
        }
    }
    w.u64(s.collectives.size());
    for (const CollectiveSummary& c : s.collectives) {
        w.str(c.name);
        w.str(c.type);
        w.str(c.processGroup);
        for (auto v : {c.seq, c.bytes, c.step, c.startNs, c.endNs}) w.i64(v);
    }
}

// ---- decoding (every count is checked against what is left before anything is allocated) ----

bool flag(MetaReader& r, const char* what) {
    const size_t at = r.pos();
    const uint8_t v = r.u8();
    if (r.ok() && v > 1) r.fail(fmt::format("{} is {}, not 0 or 1", what, v), at);
    return v == 1;
}

void readIdentity(MetaReader& r, SummaryIdentity& id) {
    id.sourcePath = r.str();
    id.sourceSize = r.u64();
    id.sourceMtimeNs = r.i64();
    id.rankIndex = r.u32();
    id.cacheFormatVersion = r.u32();
    id.loaderVersion = r.u32();
    id.optionsKey = r.u64();
}

void readRankCounts(MetaReader& r, RankSummary& s) {
    for (uint64_t* v : {&s.kernelCount, &s.memcpyCount, &s.memsetCount}) *v = r.u64();
    for (TimeNs* v : {&s.kernelTimeNs, &s.memcpyTimeNs, &s.memsetTimeNs, &s.spanStart, &s.spanEnd}) *v = r.i64();
    for (size_t i = 0, n = r.count(8); r.ok() && i < n; ++i) s.steps.push_back(r.i64());
    for (size_t i = 0, n = r.count(24); r.ok() && i < n; ++i) {
        StepRange st;
        st.number = r.i64();
        st.startNs = r.i64();
        st.endNs = r.i64();
        s.stepSpans.push_back(st);
    }
    for (size_t i = 0, n = r.count(17); r.ok() && i < n; ++i) {
        const auto cat = r.enumBelow(KernelCategory::Count, "kernel category");
        const TimeNs t = r.i64();
        const uint64_t count = r.u64();
        s.timeByCategory.emplace_back(cat, t);
        s.countByCategory.emplace_back(cat, count);
    }
    for (size_t i = 0, n = r.count(41); r.ok() && i < n; ++i) {
        KernelTotal k;
        k.name = r.str();
        k.category = r.enumBelow(KernelCategory::Count, "kernel category");
        k.count = r.u64();
        k.totalNs = r.i64();
        k.minNs = r.i64();
        k.maxNs = r.i64();
        s.topKernels.push_back(std::move(k));
    }
    for (size_t i = 0, n = r.count(8); r.ok() && i < n; ++i) s.warnings.push_back(r.str());
}

void readRank(MetaReader& r, RankSummary& s) {
    s.rank = r.i32();
    s.worldSize = r.i32();
    s.rankSource = r.enumBelow(static_cast<RankSource>(static_cast<uint8_t>(RankSource::MergedTrace) + 1), "rank source");
    s.path = r.str();
    s.format = r.str();
    s.platform = r.enumBelow(static_cast<Platform>(static_cast<uint8_t>(Platform::Amd) + 1), "platform");
    s.gpuName = r.str();
    s.gpuCount = r.u32();
    s.cpuOnly = flag(r, "cpu_only");
    s.events = r.u64();
    s.skippedEvents = r.u64();
    s.truncated = flag(r, "truncated");
    s.fromCache = flag(r, "from_cache");
    for (size_t i = 0, n = r.count(16); r.ok() && i < n; ++i) {
        std::string name = r.str();
        const uint64_t count = r.u64();
        s.eventsByCategory.emplace_back(std::move(name), count);
    }
    readRankCounts(r, s);
}

void readDetail(MetaReader& r, StoredRankSummary& s) {
    for (size_t i = 0, n = r.count(48); r.ok() && i < n; ++i) {
        StepSummary st;
        st.number = r.i64();
        st.startNs = r.i64();
        st.endNs = r.i64();
        st.idleNs = r.i64();
        st.activities = r.u64();
        for (size_t k = 0, m = r.count(16); r.ok() && k < m; ++k) {
            std::string cat = r.str();
            const TimeNs t = r.i64();
            st.timeByCategory.emplace_back(std::move(cat), t);
        }
        s.steps.push_back(std::move(st));
    }
    for (size_t i = 0, n = r.count(64); r.ok() && i < n; ++i) {
        CollectiveSummary c;
        c.name = r.str();
        c.type = r.str();
        c.processGroup = r.str();
        for (int64_t* v : {&c.seq, &c.bytes, &c.step, &c.startNs, &c.endNs}) *v = r.i64();
        s.collectives.push_back(std::move(c));
    }
}

Error corrupt(const std::string& file, size_t offset, std::string why) {
    Location at{file};
    at.byteOffset = static_cast<int64_t>(offset);
    return Error(std::move(at), "corrupt rank summary: " + std::move(why));
}

std::string errnoText(int e) { return std::error_code(e, std::generic_category()).message(); }

}  // namespace

StoredRankSummary buildRankSummary(const Dataset& dataset, size_t rankIndex, SummaryIdentity identity, size_t topN) {
    StoredRankSummary out;
    out.identity = std::move(identity);
    auto one = std::make_shared<Dataset>();
    one->generation = nextGeneration();
    one->sources = dataset.sources;
    one->ranks.push_back(dataset.ranks.at(rankIndex));
    out.rank = summarizeRank(*one->ranks.front(), topN);
    AnalysisContext ctx(one);
    out.steps = stepsOf(ctx);
    out.collectives = collectivesOf(ctx);
    return out;
}

fs::path rankSummaryPath(const fs::path& cacheDir, const std::string& sourcePath, uint32_t rankIndex) {
    fs::path p = LoadCache(cacheDir).entryFor(sourcePath, rankIndex);
    if (!p.empty()) p.replace_extension(kRankSummaryExtension);
    return p;
}

std::string encodeRankSummary(const StoredRankSummary& s) {
    MetaWriter payload;
    writeIdentity(payload, s.identity);
    writeRank(payload, s.rank);
    writeDetail(payload, s);
    MetaWriter w;
    w.out().append(kMagic, sizeof(kMagic));
    w.u32(kEndianTag);
    w.u32(kRankSummaryVersion);
    w.u64(payload.out().size());
    w.out() += payload.out();
    w.u64(LoadCache::checksum(w.out().data(), w.out().size()));
    return std::move(w.out());
}

Result<StoredRankSummary> decodeRankSummary(const std::string& image, const std::string& file) {
    if (image.size() < kHead + kTail)
        return corrupt(file, image.size(), fmt::format("{} bytes, shorter than the {}-byte frame", image.size(),
                                                       kHead + kTail));
    if (std::memcmp(image.data(), kMagic, sizeof(kMagic)) != 0)
        return corrupt(file, 0, "not a Strobe rank summary (bad magic)");
    MetaReader head(image.data() + sizeof(kMagic), kHead - sizeof(kMagic));
    const uint32_t tag = head.u32();
    const uint32_t version = head.u32();
    const uint64_t payloadSize = head.u64();
    if (tag != kEndianTag) return corrupt(file, 8, "written on a machine of another byte order");
    if (version != kRankSummaryVersion)
        return corrupt(file, 12, fmt::format("summary format {}, this build reads {}", version, kRankSummaryVersion));
    if (payloadSize != image.size() - kHead - kTail)
        return corrupt(file, 16, fmt::format("payload size {} does not match the file's {} bytes", payloadSize,
                                             image.size()));
    uint64_t stored = 0;
    std::memcpy(&stored, image.data() + image.size() - kTail, kTail);
    if (stored != LoadCache::checksum(image.data(), image.size() - kTail))
        return corrupt(file, image.size() - kTail, "checksum mismatch");
    StoredRankSummary s;
    MetaReader r(image.data() + kHead, static_cast<size_t>(payloadSize));
    readIdentity(r, s.identity);
    readRank(r, s.rank);
    readDetail(r, s);
    if (!r.ok()) return corrupt(file, kHead + r.failAt(), r.why());
    if (!r.atEnd()) return corrupt(file, kHead + r.pos(), "bytes left after the last field");
    return s;
}

bool resealRankSummary(std::string& image) {
    if (image.size() < kHead + kTail) return false;
    const uint64_t payload = image.size() - kHead - kTail;
    std::memcpy(image.data() + sizeof(kMagic) + 8, &payload, sizeof(payload));
    const uint64_t sum = LoadCache::checksum(image.data(), image.size() - kTail);
    std::memcpy(image.data() + image.size() - kTail, &sum, sizeof(sum));
    return true;
}

Result<StoredRankSummary> readRankSummaryFile(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Error(Location{file.string()}, "cannot open the rank summary: " + errnoText(errno));
    std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return Error(Location{file.string()}, "cannot read the rank summary");
    return decodeRankSummary(image, file.string());
}

Status writeRankSummaryFile(const fs::path& file, const StoredRankSummary& s) {
    const std::string image = encodeRankSummary(s);
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    static std::atomic<uint64_t> counter{0};
    const fs::path temp = file.parent_path() / fmt::format(".{}.tmp-{}-{}", file.filename().string(), ::getpid(),
                                                           counter.fetch_add(1));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Error(Location{temp.string()}, "cannot create the rank summary: " + errnoText(errno));
    int err = 0;
    for (size_t done = 0; done < image.size() && err == 0;) {
        const ssize_t n = ::write(fd, image.data() + done, image.size() - done);
        if (n < 0 && errno != EINTR) err = errno;
        if (n > 0) done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && ::rename(temp.c_str(), file.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(temp.c_str());
        return Error(Location{file.string()}, "cannot write the rank summary: " + errnoText(err));
    }
    return Ok{};
}

std::string_view toString(SummaryState s) {
    switch (s) {
    case SummaryState::Current: return "current";
    case SummaryState::Missing: return "missing";
    case SummaryState::Stale: return "stale";
    case SummaryState::Corrupt: return "corrupt";
    case SummaryState::Foreign: return "foreign";
    }
    return "missing";
}

SummaryLookup lookupRankSummary(const fs::path& cacheDir, const std::string& sourcePath, uint32_t rankIndex,
                                uint64_t optionsKey) {
    SummaryLookup out;
    out.file = rankSummaryPath(cacheDir, sourcePath, rankIndex);
    auto stamp = LoadCache::stamp(sourcePath);
    std::error_code ec;
    if (!stamp || out.file.empty() || !fs::exists(out.file, ec)) {
        out.reason = stamp ? "no summary" : stamp.error().toString();
        return out;
    }
    auto read = readRankSummaryFile(out.file);
    if (!read) {
        out.state = SummaryState::Corrupt;
        out.reason = read.error().toString();
        return out;
    }
    const SummaryIdentity& id = read->identity;
    if (id.sourcePath != stamp->absolutePath || id.rankIndex != rankIndex) {
        out.state = SummaryState::Foreign;
        out.reason = fmt::format("{}: the summary of {} (rank index {}), not of {}", out.file.string(), id.sourcePath,
                                 id.rankIndex, stamp->absolutePath);
        return out;
    }
    if (id.sourceSize != stamp->size || id.sourceMtimeNs != stamp->mtimeNs || id.cacheFormatVersion != kCacheFormatVersion ||
        id.loaderVersion != kLoaderVersion || (optionsKey != 0 && id.optionsKey != optionsKey)) {
        out.state = SummaryState::Stale;
        out.reason = fmt::format("{}: made from another version of the source, loader or classification rules",
                                 out.file.string());
        return out;
    }
    out.state = SummaryState::Current;
    out.summary = std::move(read.value());
    return out;
}

Table rankStepsFromSummaries(const std::vector<StoredRankSummary>& ranks, const WindowSpec& window) {
    std::map<int64_t, std::map<int64_t, StepSpan>> spans;
    for (const StoredRankSummary& r : ranks)
        for (const StepSummary& s : r.steps) spans[s.number].emplace(r.rank.rank, StepSpan{s.number, s.startNs, s.endNs});
    // Each step's collective records: (rank position, record), in rank order, then each rank's record order.
    std::map<int64_t, std::vector<std::pair<size_t, uint32_t>>> byStep;
    for (size_t p = 0; p < ranks.size(); ++p)
        for (size_t i = 0; i < ranks[p].collectives.size(); ++i)
            byStep[ranks[p].collectives[i].step].emplace_back(p, static_cast<uint32_t>(i));
    auto table = rankStepsTable(spans, window, ranks.size(), [&](int64_t step) -> Result<std::map<int64_t, RankStepCells>> {
        // The step's collectives matched across ranks (the straggler analysis' key and hit order).
        std::map<CollectiveKey, std::vector<CollectiveHit>> coll;
        if (auto it = byStep.find(step); it != byStep.end())
            for (const auto& [p, i] : it->second) {
                const CollectiveSummary& c = ranks[p].collectives[i];
                coll[CollectiveKey{c.processGroup, c.seq, c.name}].push_back({p, i, c.startNs, c.endNs});
            }
        std::vector<CollectiveWaitTotals> waits(ranks.size());
        for (const auto& [key, hits] : coll)
            if (hits.size() >= 2) addMatchedCollective(hits, waits);
        std::map<int64_t, RankStepCells> out;
        for (size_t p = 0; p < ranks.size(); ++p) {
            RankStepCells c;
            const auto& steps = ranks[p].steps;
            auto st = std::find_if(steps.begin(), steps.end(), [&](const StepSummary& s) { return s.number == step; });
            if (st != steps.end() && st->activities > 0) c.idle = st->idleNs;  // no activity in the step: null
            const CollectiveWaitTotals& w = waits[p];
            c.collectives = w.collectives;
            c.wait = w.wait;
            c.caused = w.caused;
            if (w.collectives > 0) c.lag = w.meanStartLagNs();
            out[ranks[p].rank.rank] = std::move(c);
        }
        return out;
    });
    return table ? std::move(table.value()) : Table{};  // the cells above never fail
}

}  // namespace strobe::core
