#include "core/formats/nccl_tests_log.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/formats/telemetry_metrics.h"

namespace strobe::core {

namespace {

bool isTableHeader(const std::vector<std::string_view>& words) {
    auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
    return has("size") && has("time") && has("algbw") && has("busbw");
}

bool toInt(std::string_view s, int64_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

std::string collectiveFromPath(const std::string& path) {
    std::string stem = std::filesystem::path(path).filename().string();
    if (auto dot = stem.find('.'); dot != std::string::npos) stem.resize(dot);
    for (std::string_view p : {"nccl_", "rccl_", "nccl-", "rccl-"})
        if (stem.rfind(p, 0) == 0) stem = stem.substr(p.size());
    for (std::string_view s : {"_perf", "-perf"})
        if (stem.size() > s.size() && stem.compare(stem.size() - s.size(), s.size(), s) == 0) stem.resize(stem.size() - s.size());
    return stem.empty() ? std::string("collective") : stem;
}

std::string jsonString(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out.push_back('\\');
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out.push_back(c);
    }
    return out + "\"";
}

std::string jsonNumber(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string("null"); }

struct Layout {
    std::vector<std::string> lead;  // size count type [redop] [root]
    size_t groups = 0;              // time/algbw/busbw/error groups (2: out-of-place and in-place)
};

struct Measure {
    double time = NAN, algbw = NAN, busbw = NAN;
    std::string errors;
};

struct Parser {
    RankData& rank;
    const std::string& path;
    Layout layout;
    std::string collective;
    int64_t rows = 0, otherLines = 0;
    TimeNs next[2] = {0, 0};
    telemetry::SkipCounter skipped;

    void header(const std::vector<std::string_view>& words) {
        layout = {};
        size_t i = 1;  // words[0] is '#'
        while (i < words.size() && words[i] != "time") layout.lead.emplace_back(words[i++]);
        for (; i < words.size(); ++i)
            if (words[i] == "time") ++layout.groups;
    }

    double number(std::string_view w, std::string_view column) {
        const auto v = telemetry::parseValue(w);
        if (v.kind == telemetry::ValueKind::Number) return v.value;
        skipped.add(v, column);
        return NAN;
    }

    void emit(const std::vector<std::string_view>& lead, const Measure& m, int placement) {
        std::string args = "{";
        int64_t size = 0;
        for (size_t i = 0; i < layout.lead.size(); ++i) {
            const std::string& key = layout.lead[i];
            std::string_view v = i < lead.size() ? lead[i] : std::string_view();
            int64_t n = 0;
            const bool isInt = toInt(v, n);
            if (key == "size") size = n;
            const std::string name = key == "size" ? "size_bytes" : key;
            args += fmt::format("{}\"{}\":{}", args.size() > 1 ? "," : "", name, isInt ? std::to_string(n) : (v.empty() ? std::string("null") : jsonString(v)));
        }
        args += fmt::format(",\"in_place\":{},\"time_us\":{},\"algbw_gbps\":{},\"busbw_gbps\":{},\"errors\":{}}}",
                            placement == 1 ? "true" : "false", jsonNumber(m.time), jsonNumber(m.algbw),
                            jsonNumber(m.busbw), jsonString(m.errors));
        const TimeNs dur = telemetry::clampNs(m.time * 1000.0);
        auto& s = rank.slices;
        const TimeNs ts = next[placement];
        next[placement] = telemetry::addNs(next[placement], dur);
        s.ts.push_back(ts);
        s.dur.push_back(dur);
        s.name.push_back(rank.strings.intern(collective));
        s.cat.push_back(rank.strings.intern("nccl-tests"));
        s.kind.push_back(EventKind::Unknown);
        s.phase.push_back('X');
        s.track.push_back(static_cast<uint32_t>(placement));
        s.externalId.push_back(kNone);
        s.correlation.push_back(kNone);
        s.sequence.push_back(kNone);
        s.args.push_back(rank.strings.intern(args));
        const std::string prefix = placement == 1 ? "inplace_" : "";
        const TimeNs at = placement == 0 ? ts : sampleTs;
        if (placement == 0) {
            sampleTs = ts;
            telemetry::appendSample(rank, at, -1, "size_bytes", static_cast<double>(size));
        }
        if (std::isfinite(m.time)) telemetry::appendSample(rank, at, -1, prefix + "time_us", m.time);
        if (std::isfinite(m.algbw)) telemetry::appendSample(rank, at, -1, prefix + "algbw_gbps", m.algbw);
        if (std::isfinite(m.busbw)) telemetry::appendSample(rank, at, -1, prefix + "busbw_gbps", m.busbw);
    }
    TimeNs sampleTs = 0;

    // A data row: the lead columns (redop may be blank), then `groups` × (time algbw busbw error).
    bool row(const std::vector<std::string_view>& words) {
        if (layout.groups == 0 || words.size() < 4 * layout.groups + 1) return false;
        const size_t leadCount = words.size() - 4 * layout.groups;
        if (leadCount > layout.lead.size() || leadCount < std::min<size_t>(3, layout.lead.size())) return false;
        int64_t size = 0;
        if (!toInt(words[0], size)) return false;
        std::vector<std::string_view> lead(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(leadCount));
        if (leadCount < layout.lead.size()) {  // a blank column: redop of alltoall, root of non-rooted collectives
            std::vector<std::string_view> full;
            size_t k = 0;
            for (size_t i = 0; i < layout.lead.size(); ++i) {
                const bool optional = layout.lead[i] == "redop" || layout.lead[i] == "root";
                const size_t missing = layout.lead.size() - leadCount;
                const size_t optionalBefore = static_cast<size_t>(std::count_if(
                    layout.lead.begin(), layout.lead.begin() + static_cast<std::ptrdiff_t>(i),
                    [](const std::string& c) { return c == "redop" || c == "root"; }));
                if (optional && optionalBefore < missing) {
                    full.emplace_back();
                } else {
                    full.push_back(k < lead.size() ? lead[k++] : std::string_view());
                }
            }
            lead = std::move(full);
        }
        for (size_t g = 0; g < layout.groups && g < 2; ++g) {
            const size_t b = leadCount + 4 * g;
            Measure m{number(words[b], "time"), number(words[b + 1], "algbw"), number(words[b + 2], "busbw"),
                      std::string(words[b + 3])};
            emit(lead, m, static_cast<int>(g));
        }
        ++rows;
        return true;
    }

    void comment(std::string_view line, const std::vector<std::string_view>& words) {
        if (auto p = line.find("Collective test starting:"); p != std::string_view::npos) {
            auto w = telemetry::splitWords(line.substr(p + 25));
            if (!w.empty()) collective = std::string(w[0]);
            for (std::string_view s : {"_perf"})
                if (collective.size() > s.size() && collective.compare(collective.size() - s.size(), s.size(), s) == 0)
                    collective.resize(collective.size() - s.size());
        } else if (auto v = line.find("nccl-tests version"); v != std::string_view::npos) {
            auto w = telemetry::splitWords(line.substr(v + 18));
            if (!w.empty()) rank.info.toolVersion = fmt::format("nccl-tests {}", w[0]);
        } else if (words.size() >= 4 && words[1] == "Rank") {
            auto d = std::find(words.begin(), words.end(), "device");
            int64_t id = 0;
            if (d != words.end() && d + 1 != words.end() && toInt(*(d + 1), id)) {
                DeviceProperties p;
                p.id = static_cast<int>(id);
                auto close = line.find(']');
                if (close != std::string_view::npos) {
                    auto rest = telemetry::splitWords(line.substr(close + 1));
                    for (size_t i = 0; i < rest.size(); ++i) p.name += (i ? " " : "") + std::string(rest[i]);
                }
                rank.info.devices.push_back(std::move(p));
            }
        } else if (auto a = line.find("Avg bus bandwidth"); a != std::string_view::npos) {
            auto c = line.find(':', a);
            if (c != std::string_view::npos) {
                auto w = telemetry::splitWords(line.substr(c + 1));
                if (!w.empty()) rank.info.otherKeys.emplace_back("avg_busbw_gbps", std::string(w[0]));
            }
        }
    }
};

}  // namespace

int sniffNcclTests(const SniffInput& in) {
    if (in.isDirectory || in.head.empty()) return 0;
    int score = 0;
    telemetry::forEachLine(in.head, [&](std::string_view line, int64_t) {
        if (score == 0 && !line.empty() && line.front() == '#' && isTableHeader(telemetry::splitWords(line))) score = 80;
    });
    return score;
}

Result<std::unique_ptr<RankData>> parseNcclTestsLog(std::string_view text, const std::string& path,
                                                    const SourceLoadOptions& options) {
    auto rank = telemetry::newRank(path, kNcclTestsFormat.id);
    Parser p{*rank, path, {}, {}, 0, 0, {0, 0}, {}};
    telemetry::forEachLine(text, [&](std::string_view line, int64_t) {
        auto words = telemetry::splitWords(line);
        if (words.empty()) return;
        if (words[0].front() == '#') {
            if (words[0] == "#" && isTableHeader(words)) {
                p.header(words);
            } else {
                p.comment(line, words);
            }
            return;
        }
        if (!p.row(words)) ++p.otherLines;
    });
    if (p.layout.groups == 0) return Error(Location{path}, "no nccl-tests table header ('# size count type ... busbw') found");
    if (p.collective.empty()) p.collective = collectiveFromPath(path);
    // Collective names written after the rows were emitted: rename the slices.
    const StrId name = rank->strings.intern(p.collective);
    for (auto& n : rank->slices.name.mut()) n = name;
    for (int64_t tid = 0; tid < 2; ++tid) {
        Track t;
        t.pid = 0;
        t.tid = tid;
        rank->tracks.push_back(t);
        rank->threads.push_back(ThreadMeta{static_cast<uint32_t>(tid), rank->strings.intern(tid == 0 ? "out-of-place" : "in-place"), static_cast<int32_t>(tid)});
    }
    ProcessMeta proc;
    proc.name = rank->strings.intern(fmt::format("nccl-tests {}", p.collective));
    rank->processes.push_back(proc);
    const bool amd = text.find("RCCL") != std::string_view::npos ||
                     std::any_of(rank->info.devices.begin(), rank->info.devices.end(),
                                 [](const DeviceProperties& d) { return d.name.find("AMD") != std::string::npos || d.name.find("MI") == 0; });
    rank->info.platform = amd ? Platform::Amd : Platform::Nvidia;
    telemetry::setClock(rank->info, ClockDomain::Relative, options, {});
    rank->diagnostics.push_back({Severity::Info, Location{path},
                                 "nccl-tests writes no times: each size's measurement is laid after the previous one "
                                 "(duration = its mean time per iteration)"});
    if (p.otherLines > 0)
        rank->diagnostics.push_back({Severity::Info, Location{path},
                                     fmt::format("{} lines that are not table rows (NCCL INFO, ...) were skipped", p.otherLines)});
    p.skipped.report(*rank, path);
    rank->stats.events = static_cast<uint64_t>(rank->slices.size());
    return rank;
}

namespace {
Result<std::vector<std::unique_ptr<RankData>>> loadNccl(const SourceGroup& g, const SourceLoadOptions& o,
                                                       const CancelToken&) {
    return telemetry::loadTextFile(g, o, &parseNcclTestsLog);
}
}  // namespace

const SourceFormat kNcclTestsFormat = {"nccl-tests", "nccl-tests",
                                       "nccl-tests / rccl-tests stdout (size, time, algbw, busbw per collective)",
                                       false, &sniffNcclTests, &loadNccl};

}  // namespace strobe::core
