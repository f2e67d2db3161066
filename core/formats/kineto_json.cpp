// Kineto JSON loader: drives the reader (outer structure, chunk cutting) and one event parser per thread, then
// stitches the threads' tables together in file order.
#include "core/formats/kineto_json.h"

#include <algorithm>
#include <atomic>
#include <tuple>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <limits>
#include <new>
#include <optional>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/formats/kineto_event_parser.h"
#include "core/formats/kineto_reader.h"
#include "core/io/file_source.h"
#include "core/model/platform_hints.h"

namespace strobe::core {

namespace {

// The legacy autograd profiler (PyTorch built without Kineto, such as Debian's 1.13 CPU build) writes a bare array
// of 'X' events with pid "CPU functions" and no "cat": operators and record_function ranges, with ProfilerStep#N
// ranges marking the steps. Without a category they would stay of unknown kind (no steps, no operators): this gives
// them theirs. Traces with any category are left alone.
bool markLegacyAutogradKinds(RankData& r, const std::string& file) {
    auto& s = r.slices;
    if (s.size() == 0) return false;
    for (size_t i = 0; i < s.size(); ++i)
        if (s.cat[i] != kEmptyStr || s.kind[i] != EventKind::Unknown) return false;
    bool legacyPid = false;
    for (const auto& t : r.tracks) legacyPid = legacyPid || r.strings.view(t.pidStr) == "CPU functions";
    if (!legacyPid) return false;
    size_t steps = 0;
    auto& kind = s.kind.mut();
    for (size_t i = 0; i < s.size(); ++i) {
        if (s.phase[i] != 'X') continue;
        const bool step = r.strings.view(s.name[i]).rfind("ProfilerStep#", 0) == 0;
        kind[i] = step ? EventKind::UserAnnotation : EventKind::CpuOp;
        steps += step ? 1 : 0;
    }
    r.diagnostics.push_back({Severity::Info, Location{file},
                             fmt::format("legacy autograd profiler trace (no Kineto): its {} events are CPU operators "
                                         "and record_function ranges, {} of them ProfilerStep#N steps; times are "
                                         "relative to the profiler's start",
                                         s.size(), steps)});
    return true;
}

// A legacy trace's times are relative to the profiler's start. strobe_torch (resources/python) writes, beside
// rank<R>_trace.json, rank<R>_clock_anchor.json: the realtime clock at the start of each step k (taken right after
// the k-th prof.step(), where ProfilerStep#k begins). The offset that maps the trace's ProfilerStep#k starts onto
// those readings (median over the steps in both) anchors the trace to realtime; without the file it stays on the
// relative clock, unanchored, and is not overlaid with realtime sources.
void anchorLegacyClock(RankData& r, const std::string& file) {
    r.info.clock = ClockInfo{ClockDomain::Relative, false, 0, ""};
    std::string name = std::filesystem::path(file).filename().string();
    const size_t at = name.rfind("_trace.json");
    if (at == std::string::npos) return;
    const std::filesystem::path anchorPath =
        std::filesystem::path(file).parent_path() / (name.substr(0, at) + "_clock_anchor.json");
    QFile f(QString::fromStdString(anchorPath.string()));
    if (!f.open(QIODevice::ReadOnly)) return;
    QJsonParseError perr{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.read(1 << 20), &perr);
    std::map<int64_t, int64_t> realtime;  // step -> realtime ns
    for (const auto& v : doc.object()["steps"].toArray()) {
        const QJsonObject o = v.toObject();
        if (o["step"].isDouble() && o["realtime_ns"].isDouble())
            realtime[o["step"].toInteger()] = o["realtime_ns"].toInteger();
    }
    std::vector<int64_t> offsets;
    const auto& s = r.slices;
    for (size_t i = 0; i < s.size(); ++i) {
        const std::string_view n = r.strings.view(s.name[i]);
        if (s.kind[i] != EventKind::UserAnnotation || !n.starts_with("ProfilerStep#")) continue;
        const auto it = realtime.find(std::strtoll(std::string(n.substr(13)).c_str(), nullptr, 10));
        if (it != realtime.end()) offsets.push_back(it->second - s.ts[i]);
    }
    if (perr.error != QJsonParseError::NoError || offsets.empty()) {
        r.diagnostics.push_back({Severity::Warning, Location{anchorPath.string()},
                                 perr.error != QJsonParseError::NoError
                                     ? "not read: " + perr.errorString().toStdString()
                                     : std::string("no step of this anchor file is a ProfilerStep#N of the trace")});
        return;
    }
    std::nth_element(offsets.begin(), offsets.begin() + long(offsets.size() / 2), offsets.end());
    r.info.clock = ClockInfo{ClockDomain::Relative, true, offsets[offsets.size() / 2],
                             "strobe_torch clock anchor " + anchorPath.filename().string()};
}

// Kineto since about PyTorch 2.4 writes "baseTimeNanoseconds" (Unix-epoch ns) and its `ts` relative to it: a
// PyTorch 2.11 trace from an H200 (tests/data/cuda) has ts ~4.9e12 µs and base 1.79e18 ns, and base + ts lands within
// 22 µs of the strobe_torch realtime anchor of the same step. Older Kineto writes absolute epoch µs and no base. The
// base is applied only when the times are plainly not epoch times themselves (earliest row before the base's year
// 1970 + base/2), so a file that carries a base but absolute times is not shifted twice.
void anchorBaseTime(RankData& r) {
    const auto base = r.info.baseTimeNanoseconds;
    if (!base || *base <= 0 || r.info.clock.domain != ClockDomain::Realtime) return;
    TimeNs first = std::numeric_limits<TimeNs>::max();
    if (r.slices.size()) first = std::min(first, *std::min_element(r.slices.ts.begin(), r.slices.ts.end()));
    if (r.gpu.size()) first = std::min(first, *std::min_element(r.gpu.ts.begin(), r.gpu.ts.end()));
    if (first == std::numeric_limits<TimeNs>::max() || first >= *base / 2) return;
    r.info.clock = ClockInfo{ClockDomain::Realtime, true, *base,
                             "Kineto timestamps are microseconds after baseTimeNanoseconds"};
}

using kineto::ChunkBuffer;
using kineto::ChunkJob;
using kineto::ChunkRecord;
using kineto::KinetoEventParser;
using kineto::KinetoReader;

constexpr uint64_t kBytesPerEventEstimate = 260;  // measured on the real traces: 240-300 bytes per event

struct Worker {
    std::unique_ptr<RankData> data = std::make_unique<RankData>();
    std::unique_ptr<KinetoEventParser> parser;
    ChunkBuffer buffer;
    std::vector<ChunkRecord> records;
};

struct SharedState {
    std::mutex mutex;
    KinetoReader* reader = nullptr;
    FileSource* source = nullptr;
    std::atomic<bool> stop{false};
    std::optional<std::pair<uint64_t, Error>> firstError;  // (chunk seq, error), smallest seq wins
    CancelToken cancel;
    bool hasCancel = false;
    ProgressThrottle* progress = nullptr;
    std::string file;

    void fail(uint64_t seq, Error e) {
        std::lock_guard lock(mutex);
        if (!firstError || seq < firstError->first) firstError.emplace(seq, std::move(e));
        stop.store(true, std::memory_order_relaxed);
    }
};

void runWorker(SharedState& st, Worker& w) {
    try {
        for (;;) {
            if (st.stop.load(std::memory_order_relaxed)) return;
            ChunkJob job;
            uint64_t consumed = 0, total = 1;
            {
                std::lock_guard lock(st.mutex);
                if (st.stop.load(std::memory_order_relaxed)) return;
                if (st.hasCancel && st.cancel.cancelled()) {
                    const uint64_t seq = st.reader->nextSeq();
                    if (!st.firstError || seq < st.firstError->first)
                        st.firstError.emplace(seq, Error(Location{st.file}, "cancelled"));
                    st.stop.store(true);
                    return;
                }
                auto s = st.reader->nextChunk(w.buffer, job);
                if (!s.ok()) {
                    const uint64_t seq = st.reader->nextSeq();
                    if (!st.firstError || seq < st.firstError->first) st.firstError.emplace(seq, s.error());
                    st.stop.store(true);
                    return;
                }
                consumed = st.source->consumed();
                total = std::max<uint64_t>(1, st.source->fileSize());
            }
            if (!job.valid) return;
            ChunkRecord rec;
            rec.seq = job.seq;
            auto status = w.parser->parseChunk(w.buffer.data.get() + job.begin, job.length,
                                               w.buffer.cap - job.begin, job.textOffset + job.begin, rec);
            w.records.push_back(rec);
            if (!status.ok()) {
                st.fail(job.seq, status.error());
                return;
            }
            if (st.progress) {
                ProgressInfo p;
                p.stage = "parse";
                p.file = st.file;
                p.done = consumed;
                p.total = total;
                p.fraction = 0.02 + 0.93 * std::min(1.0, static_cast<double>(consumed) / static_cast<double>(total));
                st.progress->report(p);
            }
        }
    } catch (const std::bad_alloc&) {
        st.fail(UINT64_MAX - 1, Error(Location{st.file}, "out of memory while parsing the trace"));
    } catch (const std::exception& e) {
        st.fail(UINT64_MAX - 1, Error(Location{st.file}, fmt::format("internal error while parsing: {}", e.what())));
    }
}

// ---- stitching the threads' tables -------------------------------------------------------------------------

struct Piece {
    size_t worker;
    size_t begin, end;
};

template <class Table>
std::vector<void*> columnPointers(Table& t) {
    std::vector<void*> out;
    t.visitColumns([&](const char*, auto& col) { out.push_back(static_cast<void*>(&col)); });
    return out;
}

bool isStringColumn(std::string_view name) {
    return name == "name" || name == "cat" || name == "args" || name == "series";
}

template <class Table>
void concatTable(Table& out, std::vector<Table*> parts, const std::vector<Piece>& pieces,
                 const std::vector<std::vector<StrId>>& strRemap, const std::vector<std::vector<uint32_t>>& trackRemap) {
    std::vector<std::vector<void*>> partCols;
    for (auto* p : parts) partCols.push_back(columnPointers(*p));
    size_t index = 0;
    out.visitColumns([&](const char* name, auto& col) {
        using C = std::decay_t<decltype(col)>;
        using T = typename C::value_type;
        size_t total = 0;
        for (const auto& pc : pieces) {
            auto* src = static_cast<C*>(partCols[pc.worker][index]);
            if (src->size() >= pc.end) total += pc.end - pc.begin;
        }
        std::vector<T> merged;
        merged.reserve(total);
        const std::string_view colName(name);
        for (const auto& pc : pieces) {
            auto* src = static_cast<C*>(partCols[pc.worker][index]);
            if (src->size() < pc.end) continue;  // a column the loader does not fill (derived by the merge)
            const T* d = src->data();
            if constexpr (std::is_same_v<T, uint32_t>) {
                if (pc.worker != 0 && isStringColumn(colName)) {
                    const auto& remap = strRemap[pc.worker];
                    for (size_t i = pc.begin; i < pc.end; ++i) merged.push_back(remap[d[i]]);
                    continue;
                }
                if (pc.worker != 0 && colName == "track") {
                    const auto& remap = trackRemap[pc.worker];
                    for (size_t i = pc.begin; i < pc.end; ++i) merged.push_back(remap[d[i]]);
                    continue;
                }
            }
            merged.insert(merged.end(), d + pc.begin, d + pc.end);
        }
        for (auto& pcs : partCols) *static_cast<C*>(pcs[index]) = C();  // free as we go
        col = C(std::move(merged));
        ++index;
    });
}

template <class Table>
std::vector<Piece> piecesFor(const std::vector<Worker>& workers, const std::vector<std::pair<uint64_t, size_t>>& order,
                             size_t ChunkRecord::*start, const std::vector<size_t>& tableSizes) {
    // order: (seq, worker) sorted by seq. A chunk's rows end where the same worker's next chunk starts.
    std::vector<Piece> out;
    std::vector<size_t> cursor(workers.size(), 0);
    for (const auto& [seq, w] : order) {
        const auto& recs = workers[w].records;
        const size_t k = cursor[w]++;
        const size_t begin = recs[k].*start;
        const size_t end = k + 1 < recs.size() ? recs[k + 1].*start : tableSizes[w];
        if (end > begin) out.push_back({w, begin, end});
        (void)seq;
    }
    return out;
}

void shrinkAll(RankData& r) {
    r.visitTables([](const char*, auto& table) { table.visitColumns([](const char*, auto& col) { col.shrinkToFit(); }); });
    r.tracks.shrinkToFit();
    r.processes.shrinkToFit();
    r.threads.shrinkToFit();
}

// Pairs B/E slices per track (in file order): the B row gets the duration and the matched E rows are removed.
void pairBeginEnd(RankData& r) {
    SliceTable& s = r.slices;
    const size_t n = s.size();
    std::vector<uint8_t> keep(n, 1);
    std::unordered_map<uint32_t, std::vector<size_t>> open;
    uint64_t unmatched = 0;
    for (size_t i = 0; i < n; ++i) {
        const char ph = s.phase[i];
        if (ph == 'B') {
            open[s.track[i]].push_back(i);
        } else if (ph == 'E') {
            auto& stack = open[s.track[i]];
            if (stack.empty()) {
                ++unmatched;
                continue;
            }
            const size_t b = stack.back();
            stack.pop_back();
            s.dur.at(b) = std::max<int64_t>(0, s.ts[i] - s.ts[b]);
            s.phase.at(b) = 'X';
            keep[i] = 0;
        }
    }
    for (auto& [track, stack] : open) unmatched += stack.size();
    s.visitColumns([&](const char*, auto& col) {
        if (col.size() != n) return;
        auto& v = col.mut();
        size_t out = 0;
        for (size_t i = 0; i < n; ++i)
            if (keep[i]) v[out++] = v[i];
        v.resize(out);
    });
    if (unmatched)
        r.diagnostics.push_back({Severity::Warning, Location{r.path},
                                 fmt::format("{} B/E events had no partner: kept as zero-length slices", unmatched)});
}

}  // namespace

namespace {

// Several threads' RankData (each holding the chunks it parsed) → one, in file order: strings, tracks, processes
// and threads are remapped into thread 0's, then every table is concatenated chunk by chunk.
std::unique_ptr<RankData> stitchWorkers(std::vector<Worker>& workers,
                                        const std::vector<std::pair<uint64_t, size_t>>& order) {
    std::unique_ptr<RankData> out = std::move(workers[0].data);
    // Strings and tracks of the other threads, remapped into thread 0's.
    std::vector<std::vector<StrId>> strRemap(workers.size());
    std::vector<std::vector<uint32_t>> trackRemap(workers.size());
    struct TrackKeyHash {
        size_t operator()(const std::tuple<int64_t, int64_t, StrId, StrId>& k) const {
            return std::hash<int64_t>()(std::get<0>(k) * 1000003 ^ std::get<1>(k)) ^
                   (static_cast<size_t>(std::get<2>(k)) << 20) ^ std::get<3>(k);
        }
    };
    std::unordered_map<std::tuple<int64_t, int64_t, StrId, StrId>, uint32_t, TrackKeyHash> trackIds;
    for (uint32_t i = 0; i < out->tracks.size(); ++i) {
        const Track& t = out->tracks[i];
        trackIds.emplace(std::make_tuple(t.pid, t.tid, t.pidStr, t.tidStr), i);
    }
    std::map<std::pair<int64_t, StrId>, size_t> processIds;
    for (size_t i = 0; i < out->processes.size(); ++i)
        processIds.emplace(std::make_pair(out->processes[i].pid, out->processes[i].pidStr), i);
    std::unordered_map<uint32_t, size_t> threadIds;
    for (size_t i = 0; i < out->threads.size(); ++i) threadIds.emplace(out->threads[i].track, i);

    for (size_t w = 1; w < workers.size(); ++w) {
        RankData& part = *workers[w].data;
        auto& sr = strRemap[w];
        sr.resize(part.strings.size());
        for (StrId id = 0; id < part.strings.size(); ++id) sr[id] = out->strings.intern(part.strings.view(id));
        auto& tr = trackRemap[w];
        tr.resize(part.tracks.size());
        for (uint32_t i = 0; i < part.tracks.size(); ++i) {
            Track t = part.tracks[i];
            t.pidStr = sr[t.pidStr];
            t.tidStr = sr[t.tidStr];
            auto key = std::make_tuple(t.pid, t.tid, t.pidStr, t.tidStr);
            auto it = trackIds.find(key);
            if (it == trackIds.end()) {
                it = trackIds.emplace(key, static_cast<uint32_t>(out->tracks.size())).first;
                out->tracks.push_back(t);
            }
            tr[i] = it->second;
        }
        for (const ProcessMeta& pm : part.processes) {
            ProcessMeta p = pm;
            p.pidStr = sr[p.pidStr];
            p.name = sr[p.name];
            p.labels = sr[p.labels];
            auto key = std::make_pair(p.pid, p.pidStr);
            auto it = processIds.find(key);
            if (it == processIds.end()) {
                processIds.emplace(key, out->processes.size());
                out->processes.push_back(p);
            } else {
                ProcessMeta& q = out->processes.at(it->second);
                if (p.name != kEmptyStr) q.name = p.name;
                if (p.labels != kEmptyStr) q.labels = p.labels;
                if (p.sortIndex != INT32_MIN) q.sortIndex = p.sortIndex;
                if (p.rank >= 0) q.rank = p.rank;
            }
        }
        for (const ThreadMeta& tm : part.threads) {
            ThreadMeta t = tm;
            t.track = tr[t.track];
            t.name = sr[t.name];
            auto it = threadIds.find(t.track);
            if (it == threadIds.end()) {
                threadIds.emplace(t.track, out->threads.size());
                out->threads.push_back(t);
            } else {
                ThreadMeta& q = out->threads.at(it->second);
                if (t.name != kEmptyStr) q.name = t.name;
                if (t.sortIndex != INT32_MIN) q.sortIndex = t.sortIndex;
            }
        }
        out->stats.events += part.stats.events;
        out->stats.metadataEvents += part.stats.metadataEvents;
        out->stats.skippedEvents += part.stats.skippedEvents;
        for (const auto& [cat, count] : part.stats.eventsByCategory) {
            const StrId id = sr[cat];
            auto it = std::find_if(out->stats.eventsByCategory.begin(), out->stats.eventsByCategory.end(),
                                   [&](const auto& e) { return e.first == id; });
            if (it == out->stats.eventsByCategory.end()) out->stats.eventsByCategory.emplace_back(id, count);
            else it->second += count;
        }
    }

    // Tables, in file order. Thread 0's RankData is both a part and the output: move its tables out first.
    auto stitch = [&](auto member, size_t ChunkRecord::*start) {
        using Table = std::remove_reference_t<decltype(out.get()->*member)>;
        Table first = std::move(out.get()->*member);
        std::vector<Table*> parts;
        std::vector<size_t> sizes;
        parts.push_back(&first);
        sizes.push_back(first.size());
        for (size_t w = 1; w < workers.size(); ++w) {
            parts.push_back(&(workers[w].data.get()->*member));
            sizes.push_back(parts.back()->size());
        }
        auto pieces = piecesFor<Table>(workers, order, start, sizes);
        Table merged;
        concatTable(merged, parts, pieces, strRemap, trackRemap);
        out.get()->*member = std::move(merged);
    };
    stitch(&RankData::slices, &ChunkRecord::slices);
    stitch(&RankData::gpu, &ChunkRecord::gpu);
    stitch(&RankData::flows, &ChunkRecord::flows);
    stitch(&RankData::counters, &ChunkRecord::counters);
    workers.clear();
    out->tracks.shrinkToFit();
    return out;
}

// Runtime API calls by vendor prefix (each distinct name looked at once).
PlatformHints platformHints(const RankData& r) {
    PlatformHints h;
    std::unordered_map<StrId, int> vendorOf;  // 1 cuda, 2 hip, 0 neither
    for (size_t i = 0; i < r.slices.size(); ++i) {
        const EventKind k = r.slices.kind[i];
        if (k != EventKind::Runtime && k != EventKind::Driver) continue;
        auto [it, fresh] = vendorOf.try_emplace(r.slices.name[i], 0);
        if (fresh) {
            const std::string_view n = r.strings.view(r.slices.name[i]);
            it->second = n.substr(0, 2) == "cu" ? 1 : n.substr(0, 3) == "hip" ? 2 : 0;  // cudaX, cuX (driver), hipX
        }
        if (it->second == 1) ++h.cudaCalls;
        else if (it->second == 2) ++h.hipCalls;
    }
    return h;
}

// Event indices of each chunk's diagnostics are chunk-local: add the number of array elements before the chunk.
// Returns each chunk's base (by sequence number).
std::map<uint64_t, uint64_t> rebaseEventIndices(std::vector<Worker>& workers,
                                                const std::vector<std::pair<uint64_t, size_t>>& order) {
    std::map<uint64_t, uint64_t> baseOfSeq;
    std::vector<size_t> cursor(workers.size(), 0);
    uint64_t base = 0;
    for (const auto& [seq, w] : order) {
        const ChunkRecord& rec = workers[w].records[cursor[w]++];
        baseOfSeq[seq] = base;
        for (size_t d = rec.diagBegin; d < rec.diagEnd; ++d) {
            auto& diag = workers[w].data->diagnostics[d];
            if (diag.where.eventIndex >= 0) diag.where.eventIndex += static_cast<int64_t>(base);
        }
        base += rec.elements;
    }
    return baseOfSeq;
}

// The parsers' warnings of every thread, in file order, capped over the whole file as each parser caps its own:
// per kind, the first kListedPerKind distinct messages (a message repeated word for word is listed once).
// `listed` receives how many of each kind are kept. The workers' diagnostics are moved out.
std::vector<Diagnostic> parserWarnings(std::vector<Worker>& workers,
                                       std::array<uint64_t, static_cast<size_t>(KinetoEventParser::Warn::Count)>& listed) {
    struct Tagged {
        Diagnostic diag;
        KinetoEventParser::Warn kind;
    };
    std::vector<Tagged> all;
    for (auto& w : workers) {
        auto& diags = w.data->diagnostics;
        const auto& kinds = w.parser->diagnosticKinds();
        for (size_t i = 0; i < diags.size(); ++i)
            all.push_back({std::move(diags[i]), i < kinds.size() ? kinds[i] : KinetoEventParser::Warn::BadValue});
        diags.clear();
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const Tagged& a, const Tagged& b) { return a.diag.where.eventIndex < b.diag.where.eventIndex; });
    std::array<std::vector<std::string_view>, static_cast<size_t>(KinetoEventParser::Warn::Count)> seen;
    std::vector<Diagnostic> out;
    for (auto& t : all) {
        auto& kindSeen = seen[static_cast<size_t>(t.kind)];
        if (kindSeen.size() >= KinetoEventParser::kListedPerKind ||
            std::find(kindSeen.begin(), kindSeen.end(), t.diag.message) != kindSeen.end())
            continue;
        kindSeen.push_back(t.diag.message);
        out.push_back(std::move(t.diag));
    }
    for (size_t k = 0; k < listed.size(); ++k) listed[k] = seen[k].size();
    return out;
}

Result<std::unique_ptr<RankData>> loadFromSource(FileSource& source, const KinetoLoadOptions& options,
                                                 const KinetoCallbacks& callbacks) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string file = source.name();
    ProgressThrottle throttle(callbacks.onProgress);
    auto report = [&](const char* stage, double fraction, bool force) {
        ProgressInfo p;
        p.stage = stage;
        p.file = file;
        p.fraction = fraction;
        p.done = source.consumed();
        p.total = source.fileSize();
        throttle.report(p, force);
    };
    report("read", 0.0, true);

    KinetoReader reader(source, options.chunkBytes);
    if (auto s = reader.start(); !s.ok()) return s.error();
    TraceInfo& info = reader.info();
    info.eventEstimate = std::max<uint64_t>(1, source.expectedTextSize() / kBytesPerEventEstimate);
    bool metadataSent = false;
    if (reader.hasLeadingKeys() && callbacks.onMetadata) {
        info.platform = detectPlatform(info);
        callbacks.onMetadata(info);
        metadataSent = true;
    }
    report("read", 0.02, true);

    const int threads = std::clamp(options.threads, 1, 16);
    std::vector<Worker> workers(static_cast<size_t>(threads));
    for (auto& w : workers)
        w.parser = std::make_unique<KinetoEventParser>(*w.data, file, source.expectedTextSize());

    SharedState st;
    st.reader = &reader;
    st.source = &source;
    st.cancel = callbacks.cancel;
    st.hasCancel = true;
    st.progress = callbacks.onProgress ? &throttle : nullptr;
    st.file = file;

    std::vector<std::thread> pool;
    try {
        for (int i = 1; i < threads; ++i) pool.emplace_back(runWorker, std::ref(st), std::ref(workers[static_cast<size_t>(i)]));
    } catch (const std::exception& e) {
        spdlog::warn("{}: could not start a parser thread ({}); continuing with {}", file, e.what(), pool.size() + 1);
    }
    runWorker(st, workers[0]);
    for (auto& t : pool) t.join();

    report("finish", 0.95, true);

    // Chunk order and event index bases.
    std::vector<std::pair<uint64_t, size_t>> order;
    for (size_t w = 0; w < workers.size(); ++w)
        for (const auto& r : workers[w].records) order.emplace_back(r.seq, w);
    std::sort(order.begin(), order.end());
    const std::map<uint64_t, uint64_t> baseOfSeq = rebaseEventIndices(workers, order);
    if (st.firstError) {
        Error e = std::move(st.firstError->second);
        auto it = baseOfSeq.find(st.firstError->first);
        if (it != baseOfSeq.end() && e.where.eventIndex >= 0) e.where.eventIndex += static_cast<int64_t>(it->second);
        return e;
    }

    for (auto& w : workers) w.parser->finish();
    KinetoEventParser::WarnCounts warnCounts{};
    for (auto& w : workers)
        for (size_t k = 0; k < warnCounts.size(); ++k) warnCounts[k] += w.parser->warnCounts()[k];
    std::array<uint64_t, 256> phaseCounts{};
    for (auto& w : workers)
        for (size_t k = 0; k < 256; ++k) phaseCounts[k] += w.parser->phaseCounts()[k];

    std::array<uint64_t, static_cast<size_t>(KinetoEventParser::Warn::Count)> listed{};
    std::vector<Diagnostic> warnings = parserWarnings(workers, listed);

    std::unique_ptr<RankData> out;
    if (workers.size() == 1) {
        out = std::move(workers[0].data);
        shrinkAll(*out);
    } else {
        out = stitchWorkers(workers, order);
    }
    out->diagnostics = std::move(warnings);

    if (phaseCounts[static_cast<unsigned char>('B')] || phaseCounts[static_cast<unsigned char>('E')]) pairBeginEnd(*out);

    // Summaries of repeated warnings.
    for (size_t k = 0; k < warnCounts.size(); ++k) {
        if (warnCounts[k] <= listed[k]) continue;
        out->diagnostics.push_back(
            {Severity::Warning, Location{file},
             fmt::format("{} {} in all (the first {} distinct message{} listed)", warnCounts[k],
                         KinetoEventParser::describe(static_cast<KinetoEventParser::Warn>(k)), listed[k],
                         listed[k] == 1 ? " is" : "s are")});
    }
    static constexpr std::string_view kKnownPhases = "XBEiIstfMC";
    for (size_t ph = 0; ph < 256; ++ph) {
        if (!phaseCounts[ph] || kKnownPhases.find(static_cast<char>(ph)) != std::string_view::npos) continue;
        const char c = static_cast<char>(ph);
        out->diagnostics.push_back({Severity::Info, Location{file},
                                    ph == '?' ? fmt::format("{} events without \"ph\" kept as slices (phase '?')", phaseCounts[ph])
                                              : fmt::format("{} events of phase '{}' kept as slices", phaseCounts[ph],
                                                            std::string(1, c))});
    }

    // Reader and source diagnostics (trailing data, gzip stream ending early, truncation).
    for (auto& d : reader.diagnostics()) out->diagnostics.push_back(std::move(d));
    for (auto& d : source.takeWarnings()) out->diagnostics.push_back(std::move(d));
    if (reader.truncated()) {
        Location where{file};
        where.byteOffset = static_cast<int64_t>(reader.truncatedAt());
        out->diagnostics.push_back(
            {Severity::Warning, where,
             fmt::format("the trace is truncated: the text ends at byte {} {}; kept the {} complete events before it",
                         reader.truncatedAt(), reader.truncationContext(), out->stats.events)});
        out->stats.truncated = true;
    }

    const bool legacy = markLegacyAutogradKinds(*out, file);
    out->path = file;
    out->stats.bytesRead = source.produced();
    out->info = std::move(info);
    if (legacy) anchorLegacyClock(*out, file);
    else anchorBaseTime(*out);
    out->info.platform = detectPlatform(out->info, platformHints(*out));
    if (out->info.distributed.present && out->info.distributed.rank >= 0) {
        out->rank = out->info.distributed.rank;
        out->rankSource = RankSource::DistributedInfo;
    }
    if (!metadataSent && callbacks.onMetadata) callbacks.onMetadata(out->info);
    out->stats.loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report("finish", 1.0, true);
    return out;
}

}  // namespace

Result<std::unique_ptr<RankData>> loadKinetoTrace(const std::string& path, const KinetoLoadOptions& options,
                                                  const KinetoCallbacks& callbacks) {
    try {
        auto source = FileSource::open(path);
        if (!source.ok()) return source.error();
        return loadFromSource(**source, options, callbacks);
    } catch (const std::bad_alloc&) {
        return Error(Location{path}, "out of memory while loading the trace");
    } catch (const std::exception& e) {
        return Error(Location{path}, fmt::format("internal error while loading the trace: {}", e.what()));
    }
}

Result<std::unique_ptr<RankData>> loadKinetoText(std::string_view text, const std::string& name,
                                                 const KinetoLoadOptions& options, const KinetoCallbacks& callbacks) {
    try {
        auto source = FileSource::fromMemory(text, name);
        return loadFromSource(*source, options, callbacks);
    } catch (const std::bad_alloc&) {
        return Error(Location{name}, "out of memory while loading the trace");
    } catch (const std::exception& e) {
        return Error(Location{name}, fmt::format("internal error while loading the trace: {}", e.what()));
    }
}

}  // namespace strobe::core
