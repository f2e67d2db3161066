#include "core/formats/source_detect.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "core/model/run_manifest.h"
#include "core/io/sqlite_db.h"
#include "core/formats/rocprofv3_csv.h"
#include "core/io/file_source.h"

namespace strobe::core {

namespace fs = std::filesystem;

namespace {

constexpr size_t kSniffBytes = 64 * 1024;

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool endsWithNoCase(std::string_view s, std::string_view suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (lower(s[s.size() - suffix.size() + i]) != suffix[i]) return false;
    return true;
}

bool jsonName(std::string_view name) { return endsWithNoCase(name, ".json") || endsWithNoCase(name, ".json.gz"); }

// Explicitly named files that no sniffer claims still go to the Kineto parser when they start like JSON (or are
// gzip), so that its error names the byte where they go wrong.
bool looksLikeJsonOrGzip(std::string_view head) {
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
        return true;
    if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    for (char c : head) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        return c == '{' || c == '[';
    }
    return false;
}

std::string identityOf(const std::string& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? p : c.string();
}

std::vector<std::string> entriesOf(const fs::path& dir, std::error_code& ec) {
    std::vector<std::string> names;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) return names;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) return names;
        const std::string name = it->path().filename().string();
        if (!name.empty() && name.front() != '.') names.push_back(name);
    }
    std::sort(names.begin(), names.end(), [](const std::string& x, const std::string& y) { return naturalLess(x, y); });
    return names;
}

struct Refusal {
    const char* suffix;
    const char* what;
    const char* command;
};

constexpr Refusal kRefusals[] = {
    {".nsys-rep", "an Nsight Systems report",
     "nsys export --type sqlite --output report.sqlite FILE (then open report.sqlite)"},
    {".qdrep", "an Nsight Systems report (older name)",
     "nsys export --type sqlite --output report.sqlite FILE (then open report.sqlite)"},
    {".ncu-rep", "an Nsight Compute report",
     "ncu --import FILE --csv --page details > details.csv (then open details.csv)"},
    {".pftrace", "a Perfetto protobuf trace",
     "rocprofv3 --output-format csv json ... (rerun), or convert with Perfetto's traceconv to json"},
};

// Detection state of one detectSources call: the groups in order, and the index of each group key.
struct Collector {
    std::vector<SourceGroup> groups;
    std::map<std::string, size_t> byKey;

    void add(SourceGroup g, const std::string& key) {
        auto [it, inserted] = byKey.emplace(key, groups.size());
        if (inserted) {
            groups.push_back(std::move(g));
            return;
        }
        SourceGroup& have = groups[it->second];  // a rocprofv3 file of a group already found: add it when new
        for (const std::string& f : g.files)
            if (std::find(have.files.begin(), have.files.end(), f) == have.files.end()) have.files.push_back(f);
    }
};

// The group of one rocprofv3 CSV file: every file of the same prefix in its directory that rocprofv3-csv claims.
SourceGroup rocprofv3Group(const fs::path& file, const SourceFormat* format, std::string& key) {
    const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
    const std::string prefix = rocprofv3CsvPrefix(file.filename().string());
    SourceGroup g;
    g.format = format->id;
    g.path = (file.parent_path() / (prefix.empty() ? std::string("*") : prefix + "_*")).string();
    key = std::string(format->id) + "\n" + identityOf(dir.string()) + "\n" + prefix;
    std::error_code ec;
    std::vector<std::pair<int, std::string>> members;
    for (const std::string& name : entriesOf(dir, ec)) {
        if (rocprofv3CsvPrefix(name) != prefix || !endsWithNoCase(name, ".csv")) continue;
        const fs::path p = file.parent_path() / name;
        auto sniffed = readSniffInput(p.string());
        if (!sniffed || sniffed->input.isDirectory) continue;
        const SourceFormat* f = bestFormat(sniffed->input);
        if (f != format) continue;
        members.emplace_back(rocprofv3CsvKindOrder(sniffed->input.head), p.string());
    }
    if (members.empty()) members.emplace_back(0, file.string());
    std::stable_sort(members.begin(), members.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& m : members) g.files.push_back(std::move(m.second));
    return g;
}

// Adds the group `path` (a file, already sniffed) belongs to. `explicitFile`: named by the user, so a file no
// format claims is an error (or goes to Kineto's parser when it looks like JSON), not skipped.
Status addFile(const std::string& path, const SniffedPath& sniffed, bool explicitFile, Collector& out) {
    if (Status refused = refuseUnreadableContainer(path); !refused) {
        if (explicitFile) return refused;
        return Ok{};
    }
    // strobe_torch's clock anchors sit beside the trace they anchor (kineto_json.cpp reads them): not a source.
    if (!explicitFile && sniffed.input.head.find("\"strobe_torch_anchor\"") != std::string_view::npos) return Ok{};
    int score = 0;
    const SourceFormat* format = bestFormat(sniffed.input, &score);
    const std::string name = fs::path(path).filename().string();
    if (format == nullptr && (jsonName(name) || (explicitFile && looksLikeJsonOrGzip(sniffed.input.head))))
        format = findSourceFormat("kineto");
    if (format == nullptr) {
        if (!explicitFile) return Ok{};
        std::string known;
        for (const SourceFormat* f : sourceFormats()) known += known.empty() ? f->id : std::string(", ") + f->id;
        return Error(Location{path}, "not a format Strobe reads (none of: " + known + ")");
    }
    if (std::strcmp(format->id, "rocprofv3-csv") == 0) {
        std::string key;
        SourceGroup g = rocprofv3Group(fs::path(path), format, key);
        out.add(std::move(g), key);
        return Ok{};
    }
    SourceGroup g;
    g.format = format->id;
    g.path = path;
    g.files = {path};
    out.add(std::move(g), std::string(format->id) + "\n" + identityOf(path));
    return Ok{};
}

// The sources directly in `dir`: the directory itself when a directory format claims it, else its files.
// Returns how many groups were added.
size_t addDirectory(const fs::path& dir, Collector& out) {
    const size_t before = out.groups.size();
    if (auto self = readSniffInput(dir.string()); self) {
        if (const SourceFormat* f = bestFormat(self->input); f != nullptr) {
            SourceGroup g;
            g.format = f->id;
            g.path = dir.string();
            g.files = {dir.string()};
            out.add(std::move(g), std::string(f->id) + "\n" + identityOf(dir.string()));
            return out.groups.size() - before;
        }
    }
    std::error_code ec;
    for (const std::string& name : entriesOf(dir, ec)) {
        const fs::path p = dir / name;
        std::error_code ec2;
        if (!fs::is_regular_file(p, ec2) || ec2) continue;  // follows links; a loop is an error: skip
        auto sniffed = readSniffInput(p.string());
        if (!sniffed) continue;
        (void)addFile(p.string(), *sniffed, false, out);
    }
    return out.groups.size() - before;
}

// A collected run's files that its manifest says a tool wrote in a library-call log format and that sniffing did not
// claim in that format: MIOpen's and Tensile's lines go to the workload's own output (workload.log), where the
// workload may have printed more than the sniffed head (64 KiB) before the library's first line. The manifest names
// one format per file (the first tool's), so a file in one of these formats is also read in the others whose tool
// (named like its format) ran: miopen-log and tensile-log together both read workload.log.
constexpr std::string_view kManifestOnlyFormats[] = {"miopen-log", "tensile-log"};

bool manifestOnlyFormat(std::string_view id) {
    return std::find(std::begin(kManifestOnlyFormats), std::end(kManifestOnlyFormats), id) !=
           std::end(kManifestOnlyFormats);
}

void addManifestFormats(const std::string& runDir, Collector& out) {
    auto manifest = readRunManifestFile(runManifestPath(runDir));
    if (!manifest || !manifest->has_value()) return;
    const RunManifest& m = **manifest;
    for (const ManifestFile& f : m.files) {
        if (f.size == 0 || !manifestOnlyFormat(f.format)) continue;
        const std::string path = (fs::path(runDir) / f.path).string();
        std::error_code ec;
        if (!fs::is_regular_file(path, ec) || ec) continue;
        const std::string id = identityOf(path);
        std::vector<std::string> formats{f.format};
        for (const ManifestTool& t : m.tools)
            if (t.name != f.format && manifestOnlyFormat(t.name)) formats.push_back(t.name);
        for (const std::string& fmtId : formats) {
            const SourceFormat* format = findSourceFormat(fmtId);
            const bool claimed = std::any_of(out.groups.begin(), out.groups.end(), [&](const SourceGroup& g) {
                return g.format == fmtId && std::any_of(g.files.begin(), g.files.end(),
                                                        [&](const std::string& x) { return identityOf(x) == id; });
            });
            if (format == nullptr || claimed) continue;
            SourceGroup g;
            g.format = format->id;
            g.path = path;
            g.files = {path};
            out.add(std::move(g), std::string(format->id) + "\n" + id);
        }
    }
}

}  // namespace

bool naturalLess(std::string_view a, std::string_view b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (isDigit(a[i]) && isDigit(b[j])) {
            size_t i0 = i, j0 = j;
            while (i0 < a.size() && a[i0] == '0') ++i0;
            while (j0 < b.size() && b[j0] == '0') ++j0;
            size_t i1 = i0, j1 = j0;
            while (i1 < a.size() && isDigit(a[i1])) ++i1;
            while (j1 < b.size() && isDigit(b[j1])) ++j1;
            if (i1 - i0 != j1 - j0) return i1 - i0 < j1 - j0;
            const int c = a.substr(i0, i1 - i0).compare(b.substr(j0, j1 - j0));
            if (c != 0) return c < 0;
            i = i1;
            j = j1;
            continue;
        }
        const char ca = lower(a[i]), cb = lower(b[j]);
        if (ca != cb) return ca < cb;
        ++i;
        ++j;
    }
    if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
    return a < b;
}

Result<SniffedPath> readSniffInput(const std::string& path) {
    SniffedPath out;
    out.input.path = path;
    std::error_code ec;
    if (fs::is_directory(path, ec) && !ec) {
        out.input.isDirectory = true;
        out.input.entries = entriesOf(path, ec);
        if (ec) return Error(Location{path}, "cannot list the directory: " + ec.message());
        return out;
    }
    auto src = FileSource::open(path);
    if (!src) return src.error();
    out.headBytes.resize(kSniffBytes);
    size_t have = 0;
    while (have < kSniffBytes) {
        auto got = (*src)->read(out.headBytes.data() + have, kSniffBytes - have);
        if (!got || got.value() == 0) break;  // a damaged gzip stream: sniff what came before the damage
        have += got.value();
    }
    out.headBytes.resize(have);
    out.input.head = out.headBytes;
    static constexpr char kSqliteMagic[] = "SQLite format 3";  // followed by a NUL: 16 bytes
    if (have >= 16 && std::memcmp(out.headBytes.data(), kSqliteMagic, 16) == 0)  // plain or .gz (plainDatabasePath)
        out.input.sqliteTables = listSqliteTables(path);
    return out;
}

const SourceFormat* bestFormat(const SniffInput& input, int* score) {
    const SourceFormat* best = nullptr;
    int bestScore = 0;
    for (const SourceFormat* f : sourceFormats()) {
        if (f->sniff == nullptr) continue;
        const int s = f->sniff(input);
        if (s > bestScore) {
            bestScore = s;
            best = f;
        }
    }
    if (score) *score = bestScore;
    return best;
}

Status refuseUnreadableContainer(const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    for (const Refusal& r : kRefusals)
        if (endsWithNoCase(name, r.suffix))
            return Error(Location{path},
                         fmt::format("{} ({}): Strobe does not read this container; make it readable with: {}", r.what,
                                     r.suffix, r.command));
    return Ok{};
}

namespace {
// Formats that hold samples beside a run rather than the run's own trace.
bool isTelemetryFormat(std::string_view id) {
    return id == "strobe-sampler-csv" || id.starts_with("nvidia-smi") || id.starts_with("amd-smi") ||
           id.starts_with("rocm-smi");
}
}  // namespace

Result<std::vector<SourceGroup>> detectSources(const std::vector<std::string>& paths) {
    if (paths.empty()) return Error("no input: give a trace file or a run directory");
    Collector out;
    for (const std::string& p : paths) {
        std::error_code ec;
        const fs::file_status st = fs::status(p, ec);  // follows links; a loop reports ELOOP
        if (ec || !fs::exists(st)) {
            if (Status refused = refuseUnreadableContainer(p); !refused && !ec) return refused.error();
            return Error(Location{p}, ec ? ec.message() : std::string("no such file or directory"));
        }
        if (fs::is_regular_file(st)) {
            auto sniffed = readSniffInput(p);
            if (!sniffed) return sniffed.error();
            if (Status added = addFile(p, *sniffed, true, out); !added) return added.error();
            continue;
        }
        if (!fs::is_directory(st)) return Error(Location{p}, "neither a trace file nor a run directory");
        const size_t before = out.groups.size();
        size_t found = addDirectory(p, out);
        // A run directory written by strobe-cli collect (manifest.yaml) keeps each tool's outputs in a subdirectory
        // of its own (torch/, rocprof/, nsys/): read them all. So does any run directory whose own files are only
        // telemetry (a sampler's CSV beside a torch/ folder, the way a hand-written capture script lays it out).
        const bool collected = hasRunManifest(p);
        const bool onlyTelemetry = found > 0 && std::all_of(out.groups.begin() + long(before), out.groups.end(),
                                                            [](const SourceGroup& g) { return isTelemetryFormat(g.format); });
        if (found == 0 || collected || onlyTelemetry) {
            // A run whose ranks sit in subdirectories (rank0/…json), or a sweep of run directories: one level down.
            // A collected run: its tools' directories to 3 levels (rocprofv3 writes rocprof/<host>/<pid>_*.csv).
            const int depth = collected ? 3 : 1;
            std::vector<std::pair<fs::path, int>> pending{{fs::path(p), 0}};
            while (!pending.empty()) {
                const auto [dir, level] = pending.back();
                pending.pop_back();
                std::error_code ec2;
                for (const std::string& name : entriesOf(dir, ec2)) {
                    std::error_code ec3;
                    const fs::path sub = dir / name;
                    if (!fs::is_directory(sub, ec3) || ec3) continue;
                    found += addDirectory(sub, out);
                    if (level + 1 < depth) pending.emplace_back(sub, level + 1);
                }
            }
        }
        if (collected) {
            const size_t manifestBefore = out.groups.size();
            addManifestFormats(p, out);
            found += out.groups.size() - manifestBefore;
        }
        if (found == 0)
            return Error(Location{p}, "no trace files (*.json, *.json.gz, *.pt.trace.json) nor other profiler "
                                      "outputs Strobe reads in this directory or its subdirectories");
    }
    return std::move(out.groups);
}

std::string groupPrimaryPath(const SourceGroup& g) {
    if (g.files.empty()) return g.path;
    return g.files.front();
}

}  // namespace strobe::core
