#include "core/formats/rocprof_v1_csv.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/formats/rank_builder.h"
#include "core/io/csv_reader.h"

namespace strobe::core {

namespace fs = std::filesystem;

namespace {

// The columns of rocprof's kernel trace; every other column of such a file is a counter.
const std::set<std::string, std::less<>>& traceColumns() {
    static const std::set<std::string, std::less<>> s = {
        "Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
        "vgpr", "arch_vgpr", "accum_vgpr", "sgpr", "wave_size", "sig", "obj", "DispatchNs", "BeginNs", "EndNs",
        "CompleteNs", "DurationNs", "kernel-name", "GRD", "WGR"};
    return s;
}

struct Key {
    std::string name;
    int64_t gpu;
    bool operator<(const Key& o) const { return gpu != o.gpu ? gpu < o.gpu : name < o.name; }
};

class V1Loader {
public:
    explicit V1Loader(RankData& r) : m_b(r) {}
    Status trace(CsvReader& in);     // results.csv: kernels (+ counters of the same pass)
    Status counterPass(CsvReader& in);  // another pass: counters joined by (name, gpu, instance)
    void finish();
    RankBuilder& builder() { return m_b; }

private:
    std::vector<std::pair<int, std::string>> counterColumns(const CsvReader& in) const;

    RankBuilder m_b;
    std::map<Key, std::vector<uint32_t>> m_rows;  // (name, gpu) → gpu rows in trace order
    uint64_t m_joinRows = 0, m_joinMatched = 0;
    std::map<std::string, uint64_t> m_unmatched;
};

std::vector<std::pair<int, std::string>> V1Loader::counterColumns(const CsvReader& in) const {
    std::vector<std::pair<int, std::string>> out;
    for (size_t i = 0; i < in.header().size(); ++i)
        if (!traceColumns().count(in.header()[i])) out.emplace_back(static_cast<int>(i), in.header()[i]);
    return out;
}

int32_t clamp32(std::optional<int64_t> v) { return static_cast<int32_t>(std::clamp<int64_t>(v.value_or(0), 0, INT32_MAX)); }

Status V1Loader::trace(CsvReader& in) {
    const int name = in.column({"KernelName", "kernel-name"}), gpu = in.column("gpu-id"), queue = in.column("queue-id");
    const int begin = in.column("BeginNs"), end = in.column("EndNs"), tid = in.column("tid"), pid = in.column("pid");
    const int grd = in.column({"grd", "GRD"}), wgr = in.column({"wgr", "WGR"}), lds = in.column("lds");
    const int vgpr = in.column({"arch_vgpr", "vgpr"}), index = in.column("Index");
    if (name < 0) return Error(Location{in.fileName()}, "no column KernelName in the header");
    const auto counters = counterColumns(in);
    for (;;) {
        auto more = in.next();
        if (!more) return more.error();
        if (!*more) break;
        GpuRow g;
        if (begin >= 0 && end >= 0) {
            auto b = in.toInt(begin), e = in.toInt(end);
            if (!b || !e) return in.error("BeginNs/EndNs is not an integer");
            g.ts = *b;
            g.dur = *e - *b;
        }
        g.name = in.field(name);
        g.cat = "KernelExecution";
        g.device = static_cast<int16_t>(std::clamp<int64_t>(in.toInt(gpu).value_or(0), -1, INT16_MAX));
        g.stream = clamp32(in.toInt(queue));
        g.correlation = in.toInt(index).value_or(kNone);
        g.grid[0] = clamp32(in.toInt(grd));
        g.block[0] = clamp32(in.toInt(wgr));
        g.grid[1] = g.grid[2] = g.block[1] = g.block[2] = 1;
        g.sharedMemory = clamp32(in.toInt(lds));
        g.registers = clamp32(in.toInt(vgpr));
        const uint32_t row = m_b.addGpu(g);
        m_rows[Key{std::string(g.name), g.device}].push_back(row);
        for (const auto& [col, cname] : counters)
            if (auto v = in.toDouble(col)) m_b.addCounter(row, cname, *v);
        if (m_b.rank().processes.empty() && pid >= 0) {
            const int64_t p = in.toInt(pid).value_or(0);
            m_b.nameProcess(p, fmt::format("pid {} tid {}", p, in.field(tid)));
        }
    }
    return Ok{};
}

Status V1Loader::counterPass(CsvReader& in) {
    const int name = in.column({"KernelName", "kernel-name"}), gpu = in.column("gpu-id");
    if (name < 0) return Error(Location{in.fileName()}, "no column KernelName in the header");
    const auto counters = counterColumns(in);
    std::map<Key, size_t> seen;
    for (;;) {
        auto more = in.next();
        if (!more) return more.error();
        if (!*more) break;
        Key k{std::string(in.field(name)), std::clamp<int64_t>(in.toInt(gpu).value_or(0), -1, INT16_MAX)};
        const size_t instance = seen[k]++;
        ++m_joinRows;
        auto it = m_rows.find(k);
        if (it == m_rows.end() || instance >= it->second.size()) {
            ++m_unmatched[k.name];
            continue;
        }
        ++m_joinMatched;
        for (const auto& [col, cname] : counters)
            if (auto v = in.toDouble(col)) m_b.addCounter(it->second[instance], cname, *v);
    }
    return Ok{};
}

void V1Loader::finish() {
    RankData& r = m_b.rank();
    r.stats.events = r.gpu.size();
    if (m_joinRows == 0) return;
    r.stats.joinMatchRate = static_cast<double>(m_joinMatched) / static_cast<double>(m_joinRows);
    if (m_unmatched.empty()) return;
    std::string names;
    size_t shown = 0;
    for (const auto& [n, c] : m_unmatched) {
        if (shown++ == 5) break;
        names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", n, c);
    }
    m_b.warn(Location{r.path},
             fmt::format("{} of {} counter-pass rows have no kernel of that name, device and instance in the trace "
                         "(not stored): {}{}",
                         m_joinRows - m_joinMatched, m_joinRows, names,
                         m_unmatched.size() > 5 ? fmt::format(" and {} more", m_unmatched.size() - 5) : std::string()));
}

std::unique_ptr<RankData> newRank(const std::string& path, const SourceLoadOptions& options) {
    auto r = std::make_unique<RankData>();
    r->path = path;
    r->info.path = path;
    r->info.format = "rocprof-v1";
    r->info.platform = Platform::Amd;
    r->info.clock.domain = ClockDomain::Boottime;
    applyClockOptions(r->info.clock, options);
    return r;
}

std::string headOf(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::string s(4096, '\0');
    f.read(s.data(), static_cast<std::streamsize>(s.size()));
    s.resize(static_cast<size_t>(std::max<std::streamsize>(0, f.gcount())));
    return s;
}

bool hasEntry(const SniffInput& in, std::string_view name) {
    return std::find(in.entries.begin(), in.entries.end(), name) != in.entries.end();
}

int sniffV1(const SniffInput& in) {
    if (!in.isDirectory) return in.sqliteTables.empty() && isRocprofV1Header(in.head) ? 80 : 0;
    if (hasEntry(in, "results.csv") && isRocprofV1Header(headOf((fs::path(in.path) / "results.csv").string())))
        return 90;
    if (hasEntry(in, "results.db") && (hasEntry(in, "results.stats.csv") || hasEntry(in, "results.json")))
        return 85;
    return 0;
}

Status readFile(V1Loader& loader, const std::string& path, bool primary) {
    auto f = CsvFile::open(path);
    if (!f) return f.error();
    CsvReader& in = (*f)->reader();  // CsvFile::open has read the header
    return primary ? loader.trace(in) : loader.counterPass(in);
}

void listStats(RankData& r, const fs::path& file) {
    auto f = CsvFile::open(file.string());
    if (!f) return;
    CsvReader& in = (*f)->reader();
    uint64_t rows = 0;
    for (auto more = in.next(); more && *more; more = in.next()) ++rows;
    r.diagnostics.push_back(Diagnostic{Severity::Info, Location{file.string()},
                                       fmt::format("rocprof statistics listed, not loaded: {} kernels", rows)});
}

// A run directory: results.csv (else results.db through the SQLite family), counter passes, the rest listed.
Result<std::vector<std::unique_ptr<RankData>>> loadDirectory(const fs::path& dir, const SourceLoadOptions& options) {
    const fs::path csv = dir / "results.csv";
    std::error_code ec;
    if (!fs::exists(csv, ec)) {
        if (const SourceFormat* db = findSourceFormat("rocprof-v1-db"); db && fs::exists(dir / "results.db", ec)) {
            SourceGroup g{db->id, dir.string(), {(dir / "results.db").string()}, {}};
            return db->load(g, options, CancelToken{});
        }
        return Error(Location{dir.string()}, "no results.csv (results.db needs Strobe's SQLite reader, not in this "
                                             "build)");
    }
    auto r = newRank(csv.string(), options);
    V1Loader loader(*r);
    if (Status s = readFile(loader, csv.string(), true); !s) return s.error();
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), e; !ec && it != e; it.increment(ec)) names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
        const fs::path p = dir / n;
        if (n == "results.csv") continue;
        if (n == "results.stats.csv") {
            listStats(*r, p);
            continue;
        }
        if (n.size() > 4 && n.substr(n.size() - 4) == ".csv" && isRocprofV1Header(headOf(p.string()))) {
            if (Status s = readFile(loader, p.string(), false); !s) return s.error();
            continue;
        }
        if (n == "results.db" || n == "results.json") r->info.alsoPresent.push_back(p.string());
    }
    std::ifstream cmd(dir / "cmd");
    std::getline(cmd, r->info.traceName);
    loader.finish();
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(r));
    return out;
}

Result<std::vector<std::unique_ptr<RankData>>> loadGroup(const SourceGroup& g, const SourceLoadOptions& o,
                                                         const CancelToken&) {
    return loadRocprofV1(g, o);
}

}  // namespace

bool isRocprofV1Header(std::string_view head) {
    const std::vector<std::string> h = csvHeaderOf(head);
    auto has = [&](std::string_view n) { return std::find(h.begin(), h.end(), n) != h.end(); };
    return (has("KernelName") || has("kernel-name")) && has("gpu-id") && (has("grd") || has("BeginNs"));
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofV1(const SourceGroup& group, const SourceLoadOptions& options,
                                                             const CancelToken&) {
    if (group.files.empty()) return Error(Location{group.path}, "no file to load");
    std::error_code ec;
    if (fs::is_directory(group.files.front(), ec)) return loadDirectory(group.files.front(), options);
    auto r = newRank(group.files.front(), options);
    V1Loader loader(*r);
    if (Status s = readFile(loader, group.files.front(), true); !s) return s.error();
    loader.finish();
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(r));
    return out;
}

Result<std::vector<std::unique_ptr<RankData>>> loadRocprofV1Text(std::string_view text, const std::string& name) {
    auto r = newRank(name, {});
    V1Loader loader(*r);
    CsvReader in(text, name);
    if (Status h = in.readHeader(); !h) return h.error();
    if (Status s = loader.trace(in); !s) return s.error();
    loader.finish();
    std::vector<std::unique_ptr<RankData>> out;
    out.push_back(std::move(r));
    return out;
}

const SourceFormat kRocprofV1Format = {
    "rocprof-v1", "rocprof (v1/v2)",
    "rocprof results.csv kernel trace and .xr run directories (results.csv > results.db > results.json)", false,
    sniffV1, loadGroup};

}  // namespace strobe::core
