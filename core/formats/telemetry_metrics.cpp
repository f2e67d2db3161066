#include "core/formats/telemetry_metrics.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/io/file_source.h"
#include "core/io/mapped_file.h"

namespace strobe::core::telemetry {

const std::vector<std::string_view>& knownMetrics() {
    static const std::vector<std::string_view> names = {
        kPowerW, kPowerLimitW, kSclkMhz, kMclkMhz, kTempC, kMemTempC, kUtilPct, kMemUtilPct, kMemUsedMib,
        kMemTotalMib, kMemFreeMib, kFanPct, kPcieRxMbS, kPcieTxMbS, kEncUtilPct, kDecUtilPct, kEnergyJ};
    return names;
}

bool isKnownMetric(std::string_view name) {
    const auto& k = knownMetrics();
    return std::find(k.begin(), k.end(), name) != k.end();
}

namespace {
std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}
}  // namespace

HeaderName splitHeader(std::string_view header) {
    header = trim(header);
    HeaderName h;
    const size_t open = header.rfind('[');
    if (open != std::string_view::npos && !header.empty() && header.back() == ']') {
        h.unit = std::string(trim(header.substr(open + 1, header.size() - open - 2)));
        header = trim(header.substr(0, open));
    }
    h.name = std::string(header);
    return h;
}

std::string sanitizeMetricName(std::string_view name, std::string_view unit) {
    std::string out;
    auto put = [&](std::string_view s) {
        bool pendingSep = !out.empty();
        for (char c : s) {
            const auto u = static_cast<unsigned char>(c);
            if (std::isalnum(u) && u < 128) {
                if (pendingSep && !out.empty()) out.push_back('_');
                pendingSep = false;
                out.push_back(static_cast<char>(std::tolower(u)));
            } else {
                pendingSep = true;
            }
        }
    };
    put(name);
    if (!unit.empty()) put(unit == "%" ? std::string_view("pct") : unit);
    if (out.empty()) out = "metric";
    return out;
}

std::vector<ColumnMetric> mapColumns(const std::vector<std::string>& headers, const std::vector<MetricAlias>& aliases) {
    std::vector<ColumnMetric> out(headers.size());
    std::vector<bool> assigned(headers.size(), false);
    std::vector<HeaderName> split;
    split.reserve(headers.size());
    for (const auto& h : headers) split.push_back(splitHeader(h));
    std::set<std::string> used;
    for (const MetricAlias& a : aliases) {
        for (std::string_view col : a.columns) {
            auto it = std::find_if(split.begin(), split.end(), [&](const HeaderName& h) { return h.name == col; });
            if (it == split.end()) continue;
            const size_t i = static_cast<size_t>(it - split.begin());
            if (assigned[i]) continue;
            out[i] = {std::string(a.metric), a.scale};
            assigned[i] = true;
            used.insert(std::string(a.metric));
            break;
        }
    }
    for (size_t i = 0; i < headers.size(); ++i) {
        if (assigned[i]) continue;
        std::string name = sanitizeMetricName(split[i].name, split[i].unit);
        std::string unique = name;
        for (int n = 2; used.count(unique) != 0 || isKnownMetric(unique); ++n) unique = fmt::format("{}_{}", name, n);
        used.insert(unique);
        out[i] = {unique, 1.0};
    }
    return out;
}

const std::vector<MetricAlias>& nvidiaSmiAliases() {
    static const std::vector<MetricAlias> a = {
        {kPowerW, {"power.draw", "power.draw.instant", "power.draw.average"}},
        {kPowerLimitW, {"enforced.power.limit", "power.limit"}},
        {kSclkMhz, {"clocks.current.sm", "clocks.sm", "clocks.current.graphics", "clocks.gr"}},
        {kMclkMhz, {"clocks.current.memory", "clocks.mem"}},
        {kTempC, {"temperature.gpu"}},
        {kMemTempC, {"temperature.memory"}},
        {kUtilPct, {"utilization.gpu"}},
        {kMemUtilPct, {"utilization.memory"}},
        {kMemUsedMib, {"memory.used"}},
        {kMemTotalMib, {"memory.total"}},
        {kMemFreeMib, {"memory.free"}},
        {kFanPct, {"fan.speed"}},
        {kEncUtilPct, {"utilization.encoder"}},
        {kDecUtilPct, {"utilization.decoder"}},
        {kEnergyJ, {"total_energy_consumption"}, 0.001},  // mJ
    };
    return a;
}

const std::vector<MetricAlias>& dmonAliases() {
    static const std::vector<MetricAlias> a = {
        {kPowerW, {"pwr"}},        {kTempC, {"gtemp", "temp"}}, {kMemTempC, {"mtemp"}},
        {kUtilPct, {"sm"}},        {kMemUtilPct, {"mem"}},      {kEncUtilPct, {"enc"}},
        {kDecUtilPct, {"dec"}},    {kMclkMhz, {"mclk"}},        {kSclkMhz, {"pclk"}},
        {kPcieRxMbS, {"rxpci"}},   {kPcieTxMbS, {"txpci"}},     {kMemUsedMib, {"fb"}},
    };
    return a;
}

ParsedValue parseValue(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty() || s == "-" || s == "N/A" || s == "n/a" || s == "NA" ||
        (s.front() == '[' && s.back() == ']'))  // [N/A], [Not Supported], [Unknown Error], [Insufficient Permissions]
        return {ValueKind::NotAvailable, 0};
    // A number, optionally followed by blanks and a unit word ("71.50 W", "45 %", "48.0°C", "98Mhz").
    std::string digits;
    size_t i = 0;
    if (s[i] == '+' || s[i] == '-') digits.push_back(s[i++]);
    bool any = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
            digits.push_back(c);
            any = true;
        } else if (c == '.' || c == 'e' || c == 'E' ||
                   ((c == '+' || c == '-') && !digits.empty() && (digits.back() == 'e' || digits.back() == 'E'))) {
            digits.push_back(c);
        } else if (c == ',' && any) {
            // a thousands separator: exactly three digits follow ("1,234.5")
            auto digit = [&](size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])) != 0; };
            if (digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4)) continue;
            return {ValueKind::NotNumber, 0};
        } else {
            break;
        }
    }
    if (!any) return {ValueKind::NotNumber, 0};
    // What follows must be a unit: blanks then letters, '%', '°' bytes, '/'.
    for (size_t j = i; j < s.size(); ++j) {
        const auto c = static_cast<unsigned char>(s[j]);
        if (!(c == ' ' || c == '%' || c == '/' || std::isalpha(c) != 0 || c >= 0x80)) return {ValueKind::NotNumber, 0};
    }
    if (i < s.size() && s.substr(i).find_first_not_of(' ') != std::string_view::npos) {
        // a letter right after digits that reads as a hex value ("0x1f") is not a unit
        if (digits == "0" && (s[i] == 'x' || s[i] == 'X')) return {ValueKind::NotNumber, 0};
    }
    double v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v)) return {ValueKind::NotNumber, 0};
    return {ValueKind::Number, v};
}

void SkipCounter::add(const ParsedValue& v, std::string_view column) {
    if (v.kind == ValueKind::NotAvailable) {
        ++notAvailable;
    } else if (v.kind == ValueKind::NotNumber) {
        ++notNumber;
        if (std::find(notNumberColumns.begin(), notNumberColumns.end(), column) == notNumberColumns.end())
            notNumberColumns.emplace_back(column);
    }
}

void SkipCounter::report(RankData& rank, const std::string& path) const {
    if (notAvailable > 0)
        rank.diagnostics.push_back({Severity::Info, Location{path},
                                    fmt::format("{} values not available ([N/A], [Not Supported], -) were skipped",
                                                notAvailable)});
    if (notNumber > 0) {
        std::string cols;
        for (size_t i = 0; i < notNumberColumns.size() && i < 6; ++i) cols += (i ? ", " : "") + notNumberColumns[i];
        if (notNumberColumns.size() > 6) cols += fmt::format(" and {} more", notNumberColumns.size() - 6);
        rank.diagnostics.push_back({Severity::Info, Location{path},
                                    fmt::format("{} values that are not numbers were skipped, in {} columns ({})",
                                                notNumber, notNumberColumns.size(), cols)});
    }
}

namespace {
// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool readInt(std::string_view s, size_t& i, size_t n, int64_t& out) {
    if (i + n > s.size()) return false;
    out = 0;
    for (size_t k = 0; k < n; ++k) {
        const char c = s[i + k];
        if (c < '0' || c > '9') return false;
        out = out * 10 + (c - '0');
    }
    i += n;
    return true;
}
}  // namespace

std::optional<int64_t> parseWallTimeNs(std::string_view text) {
    std::string_view s = trim(text);
    size_t i = 0;
    int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
    if (!readInt(s, i, 4, y)) return std::nullopt;
    const bool compact = i < s.size() && s[i] >= '0' && s[i] <= '9';  // 20240102
    if (!compact) {
        if (i >= s.size() || (s[i] != '/' && s[i] != '-')) return std::nullopt;
        ++i;
    }
    if (!readInt(s, i, 2, mo)) return std::nullopt;
    if (!compact) {
        if (i >= s.size() || (s[i] != '/' && s[i] != '-')) return std::nullopt;
        ++i;
    }
    if (!readInt(s, i, 2, d)) return std::nullopt;
    if (i >= s.size() || (s[i] != ' ' && s[i] != 'T')) return std::nullopt;
    while (i < s.size() && (s[i] == ' ' || s[i] == 'T')) ++i;
    if (!readInt(s, i, 2, h) || i >= s.size() || s[i++] != ':' || !readInt(s, i, 2, mi) || i >= s.size() ||
        s[i++] != ':' || !readInt(s, i, 2, se))
        return std::nullopt;
    int64_t frac = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        int64_t scale = 100000000;
        size_t digits = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            if (digits < 9) frac += (s[i] - '0') * scale;
            scale /= 10;
            ++digits;
            ++i;
        }
        if (digits == 0) return std::nullopt;
    }
    if (i != s.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
    const int64_t days = daysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    return ((days * 24 + h) * 60 + mi) * 60'000'000'000LL + se * 1'000'000'000LL + frac;
}

int64_t clampNs(double ns) {
    if (!std::isfinite(ns) || ns <= 0) return 0;
    if (ns >= double(kMaxDurationNs)) return kMaxDurationNs;
    return static_cast<int64_t>(std::llround(ns));
}

int64_t clampTimeNs(double ns) {
    if (!std::isfinite(ns) || ns <= 0) return 0;
    if (ns >= double(kMaxNs)) return kMaxNs;
    return static_cast<int64_t>(std::llround(ns));
}

int64_t addNs(int64_t a, int64_t b) { return std::min(kMaxNs, std::max<int64_t>(a, 0) + std::min(kMaxNs, std::max<int64_t>(b, 0))); }

void appendSample(RankData& rank, int64_t ts, int16_t device, std::string_view metric, double value) {
    rank.samples.ts.push_back(ts);
    rank.samples.device.push_back(device);
    rank.samples.metric.push_back(rank.strings.intern(metric));
    rank.samples.value.push_back(value);
}

void setClock(TraceInfo& info, ClockDomain domain, const SourceLoadOptions& options, std::string anchorFromSource) {
    info.clock.domain = domain;
    if (domain == ClockDomain::Realtime) {
        info.clock.anchored = true;
        info.clock.toRealtimeNs = 0;
        info.clock.anchor = anchorFromSource.empty() ? std::string("source is on CLOCK_REALTIME") : anchorFromSource;
    } else {
        info.clock.anchored = false;
        info.clock.toRealtimeNs = 0;
        info.clock.anchor = std::move(anchorFromSource);
        applyClockOptions(info.clock, options);  // the run manifest's clocks, else --clock-offset
    }
}

namespace {
constexpr std::string_view kAnchorRealtime = "clock_anchor.realtime_ns";
constexpr std::string_view kAnchorMonotonic = "clock_anchor.monotonic_ns";
constexpr std::string_view kAnchorBoottime = "clock_anchor.boottime_ns";

std::optional<int64_t> otherKeyInt(const TraceInfo& info, std::string_view key) {
    for (const auto& [k, v] : info.otherKeys) {
        if (k != key) continue;
        int64_t out = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        if (ec == std::errc() && end == v.data() + v.size()) return out;
    }
    return std::nullopt;
}
}  // namespace

void storeClockAnchors(TraceInfo& info, const ClockAnchors& anchors) {
    info.otherKeys.emplace_back(std::string(kAnchorRealtime), std::to_string(anchors.realtimeNs));
    if (anchors.monotonicNs)
        info.otherKeys.emplace_back(std::string(kAnchorMonotonic), std::to_string(*anchors.monotonicNs));
    if (anchors.boottimeNs)
        info.otherKeys.emplace_back(std::string(kAnchorBoottime), std::to_string(*anchors.boottimeNs));
}

std::optional<ClockAnchors> clockAnchorsOf(const TraceInfo& info) {
    auto rt = otherKeyInt(info, kAnchorRealtime);
    if (!rt) return std::nullopt;
    return ClockAnchors{*rt, otherKeyInt(info, kAnchorMonotonic), otherKeyInt(info, kAnchorBoottime)};
}

std::optional<int64_t> offsetToRealtime(const TraceInfo& info, ClockDomain domain) {
    auto a = clockAnchorsOf(info);
    if (!a) return std::nullopt;
    if (domain == ClockDomain::Realtime) return 0;
    if (domain == ClockDomain::Monotonic && a->monotonicNs) return a->realtimeNs - *a->monotonicNs;
    if (domain == ClockDomain::Boottime && a->boottimeNs) return a->realtimeNs - *a->boottimeNs;
    return std::nullopt;
}

uint32_t appendGpuRow(RankData& rank, const GpuRow& row) {
    GpuRecord r = gpuRecord(rank, row, row.track);
    r.args = row.args.empty() ? kEmptyStr : rank.strings.intern(row.args);
    return rank.gpu.appendRaw(r);
}

uint32_t trackIndex(RankData& rank, int64_t pid, int64_t tid) {
    for (size_t i = 0; i < rank.tracks.size(); ++i)
        if (rank.tracks[i].pid == pid && rank.tracks[i].tid == tid && rank.tracks[i].pidStr == kEmptyStr &&
            rank.tracks[i].tidStr == kEmptyStr)
            return static_cast<uint32_t>(i);
    Track t;
    t.pid = pid;
    t.tid = tid;
    rank.tracks.push_back(t);
    return static_cast<uint32_t>(rank.tracks.size() - 1);
}

std::unique_ptr<RankData> newRank(const std::string& path, std::string_view format) {
    auto rank = std::make_unique<RankData>();
    rank->rank = 0;
    rank->path = path;
    rank->info.path = path;
    rank->info.format = std::string(format);
    rank->info.clock = ClockInfo{};
    return rank;
}

Result<std::vector<std::unique_ptr<RankData>>> loadTextFile(const SourceGroup& group, const SourceLoadOptions& options,
                                                            TextParser parse) {
    if (group.files.empty()) return Error(Location{group.path}, "no file to read");
    const std::string& path = group.files.front();
    auto text = readFileText(path);
    if (!text) return text.error();
    auto rank = parse(text->text, path, options);
    if (!rank) return rank.error();
    rank.value()->info.fileSize = text->fileSize;
    rank.value()->info.gzip = text->gzip;
    rank.value()->stats.bytesRead = text->text.size();
    for (const auto& f : group.unused) rank.value()->info.alsoPresent.push_back(f);
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(rank.value()));
    return out;
}

std::vector<std::string_view> splitWords(std::string_view line) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

}  // namespace strobe::core::telemetry
