#include "collectors/session.h"

#include <fnmatch.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <fmt/format.h>


#include "collectors/process_tree.h"
#include "collectors/remote.h"
#include "collectors/slurm.h"
#include "collectors/torch_hook.h"
#include "core/io/resources.h"

namespace strobe::collectors {

namespace fs = std::filesystem;

namespace {

struct Prepared {
    const ToolSpec* spec = nullptr;
    std::map<std::string, std::string> vars;
    ToolProbe probe;
    core::ParamValues values;
};

SessionResult refuse(int code, std::string reason) {
    SessionResult r;
    r.status = "refused";
    r.exitCode = code;
    r.reason = std::move(reason);
    return r;
}

// 0 when argv0 can be run, else 127 (not found) or 126 (found, not executable), with the reason.
int commandCheck(const std::string& argv0, const std::string& cwd, std::string& reason) {
    auto check = [&](const fs::path& p) {
        std::error_code ec;
        if (!fs::exists(p, ec)) return 127;
        if (fs::is_directory(p, ec) || ::access(p.c_str(), X_OK) != 0) return 126;
        return 0;
    };
    int code = 127;
    if (argv0.find('/') != std::string::npos) {
        const fs::path p = fs::path(argv0).is_absolute() || cwd.empty() ? fs::path(argv0) : fs::path(cwd) / argv0;
        code = check(p);
    } else if (const char* path = std::getenv("PATH")) {
        std::string_view rest = path;
        while (code != 0) {
            const size_t colon = rest.find(':');
            const std::string dir(rest.substr(0, colon));
            const int c = check(fs::path(dir.empty() ? "." : dir) / argv0);
            if (c == 0 || (c == 126 && code == 127)) code = c;
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
    }
    if (code == 127) reason = fmt::format("{}: command not found", argv0);
    if (code == 126) reason = fmt::format("{}: found but cannot be run (not an executable file)", argv0);
    return code;
}

// `prepared`: the directory may hold files already (the Slurm submitter's batch script and manifest).
std::optional<std::string> checkOutDir(const fs::path& dir, bool prepared = false) {
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec)) return fmt::format("{}: exists and is not a directory", dir.string());
        if (!prepared && fs::directory_iterator(dir, ec) != fs::directory_iterator())
            return fmt::format("{}: the output directory is not empty (each run gets a directory of its own)",
                               dir.string());
        if (::access(dir.c_str(), W_OK) != 0) return fmt::format("{}: cannot write here", dir.string());
        return std::nullopt;
    }
    fs::path parent = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
    while (!parent.empty() && !fs::exists(parent, ec)) parent = parent.parent_path();
    if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
        return fmt::format("{}: cannot create the output directory ({} is not writable)", dir.string(),
                           parent.string());
    return std::nullopt;
}

std::string deviceList(const DeviceReport& d) {
    if (d.gpus.empty()) return d.message.empty() ? "no GPU" : d.message;
    std::string s;
    for (const auto& g : d.gpus) s += (s.empty() ? "" : ", ") + g.vendor + " " + g.name;
    return s;
}

std::string unknownTool(const std::string& name, const ToolCatalog& catalog) {
    std::string known;
    for (const auto& t : catalog.tools) known += (known.empty() ? "" : ", ") + t.name;
    return fmt::format("unknown tool '{}' (known: {})", name, known);
}

// Resolves, probes and checks the chosen tools; the refusal reason, or nullopt.
std::optional<std::string> prepareTools(const SessionOptions& o, const ToolCatalog& catalog, const DeviceReport& devices,
                                        const std::map<std::string, std::string>& builtins, std::vector<Prepared>& out) {
    for (const auto& use : o.tools) {
        const ToolSpec* spec = catalog.find(use.name);
        if (!spec) return unknownTool(use.name, catalog);
        if (std::any_of(out.begin(), out.end(), [&](const Prepared& p) { return p.spec == spec; }))
            return fmt::format("tool {} is listed twice", use.name);
        if (spec->vendor != "any") {
            const std::string want = spec->vendor == "amd" ? "AMD" : "NVIDIA";
            if (std::none_of(devices.gpus.begin(), devices.gpus.end(), [&](const GpuDevice& g) { return g.vendor == want; }))
                return fmt::format("tool {} needs an {} GPU; this machine has: {}", spec->name, want, deviceList(devices));
        }
        auto vars = toolVariables(*spec, use.values, builtins);
        if (!vars) return vars.error().message;
        Prepared p;  // member by member: GCC 12 -O3 warns (maybe-uninitialized) on an aggregate with a {} member
        p.spec = spec;
        p.vars = *vars;
        p.values = use.values;
        p.probe = probeTool(*spec, p.vars);
        const bool probesPython = std::any_of(spec->probe.begin(), spec->probe.end(),
                                              [](const std::string& a) { return a.find("{python}") != std::string::npos; });
        if (!p.probe.available)
            return fmt::format("tool {} is not available: {}{}", spec->name,
                               p.probe.message.empty() ? "its probe failed" : p.probe.message,
                               probesPython ? fmt::format(" (the interpreter: {}, {}; --python PATH gives another)",
                                                          builtins.at("python"), builtins.at("python_how"))
                                            : "");
        out.push_back(std::move(p));
    }
    for (const auto& a : out)
        for (const auto& b : out)
            if (std::find(a.spec->conflicts.begin(), a.spec->conflicts.end(), b.spec->name) != a.spec->conflicts.end())
                return fmt::format("tools {} and {} cannot run together", a.spec->name, b.spec->name);
    return std::nullopt;
}

std::vector<ManifestFile> listFiles(const fs::path& dir, const std::vector<Prepared>& tools) {
    std::vector<ManifestFile> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string rel = fs::relative(it->path(), dir, ec).string();
        if (core::isRunManifestFile(rel)) continue;
        ManifestFile f{rel, static_cast<uint64_t>(it->file_size(ec)), "", ""};
        for (const auto& t : tools)
            for (const auto& out : t.spec->outputs)
                if (f.tool.empty() && fnmatch(out.glob.c_str(), rel.c_str(), 0) == 0) {
                    f.tool = t.spec->name;
                    f.format = out.format;
                }
        files.push_back(std::move(f));
    }
    std::sort(files.begin(), files.end(), [](const ManifestFile& a, const ManifestFile& b) { return a.path < b.path; });
    return files;
}

struct Running {
    const Prepared* tool = nullptr;
    std::unique_ptr<ProcessTree> tree;
    bool reported = false;
};

// Whether a sidecar has begun: one of its outputs (the spec's globs, its stdout file) exists and is not empty.
// A sidecar that declares no output is taken as begun.
bool sidecarBegun(const Running& s, const fs::path& outDir) {
    const auto& outputs = s.tool->spec->outputs;
    if (outputs.empty()) return true;
    for (const ManifestFile& f : listFiles(outDir, {}))
        for (const auto& out : outputs)
            if (f.size > 0 && fnmatch(out.glob.c_str(), f.path.c_str(), 0) == 0) return true;
    return false;
}

// Waits (up to `limit`, or until a stop is requested) for every sidecar to begin, so that the samplers are sampling
// when the workload starts: a sampler that starts slowly (a big sanitizer build, nvidia-smi waking the driver) would
// otherwise be stopped by a short workload before it wrote a single line. A sidecar that ends meanwhile is left to
// the workload loop's "ended early"; one still silent at the limit is noted and the workload starts anyway.
void awaitSidecars(std::vector<Running>& sidecars, const fs::path& outDir, std::chrono::milliseconds limit,
                   const std::atomic<int>& stopSignal, const std::function<void(const std::string&)>& note) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::vector<const Running*> waiting;
    for (const auto& s : sidecars) waiting.push_back(&s);
    while (!waiting.empty() && stopSignal.load() == 0) {
        std::erase_if(waiting, [&](const Running* s) { return !s->tree->poll() || sidecarBegun(*s, outDir); });
        if (waiting.empty() || std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (stopSignal.load() != 0) return;
    for (const Running* s : waiting)
        note(fmt::format("sidecar {} wrote nothing in its first {} ms; the workload started without it", s->tool->spec->name,
                         limit.count()));
}

// A spec's argv templates expanded; an element that is exactly "{KEY}" for a key of `split` (the spec's split_args)
// becomes one argument per blank-separated word of its value ("--kernel-trace --rccl-trace").
core::Result<std::vector<std::string>> expandAll(const std::vector<std::string>& args,
                                                 const std::map<std::string, std::string>& vars,
                                                 const std::vector<std::string>& split = {}) {
    std::vector<std::string> out;
    for (const auto& a : args) {
        auto x = expandTemplate(a, vars);
        if (!x) return x.error();
        const bool words = std::any_of(split.begin(), split.end(), [&](const std::string& k) { return a == "{" + k + "}"; });
        if (!words) {
            out.push_back(*x);
            continue;
        }
        std::istringstream in(*x);
        for (std::string w; in >> w;) out.push_back(w);
    }
    return out;
}

// How a manifest ended: what the session inside a Slurm job wrote.
struct ManifestEnd {
    std::optional<RunStatus> status;  // unset: unreadable or half-written, not ended
    std::string slurmJob;
    std::optional<int> exitCode, exitSignal;
    std::string statusReason, failure;
};

ManifestEnd readManifestEnd(const fs::path& dir) {
    ManifestEnd e;
    auto m = core::readRunManifest(dir.string());
    if (!m) return e;
    e.status = m->status;
    e.slurmJob = m->slurmJob.value_or("");
    e.exitCode = m->exitCode;
    e.exitSignal = m->exitSignal;
    e.statusReason = m->statusReason;
    e.failure = m->failure;
    return e;
}

bool manifestEnded(RunStatus s) { return s != RunStatus::Running; }

std::string lastLines(const fs::path& file, size_t n) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) lines.push_back(l);
    std::string out;
    for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += (out.empty() ? "" : " | ") + lines[i];
    return out;
}

std::string joinArgv(const std::vector<std::string>& argv) {
    std::string s;
    for (const auto& a : argv) s += (s.empty() ? "" : " ") + shellQuote(a);
    return s;
}

// SessionOptions::slurm: the whole session as a Slurm job (session.h).
SessionResult runSlurmSubmission(const SessionOptions& o, const ToolCatalog& catalog, const std::atomic<int>& stopSignal,
                                 const std::function<void(const std::string&)>& logFn) {
    auto log = [&](const std::string& s) {
        if (logFn) logFn(s);
    };
    if (o.command.empty()) return refuse(125, "no command to run");
    if (o.outDir.empty()) return refuse(125, "no output directory");
    const auto spec = loadSlurmSpec();
    if (!spec) return refuse(125, spec.error().toString());
    // The tools are probed inside the job, where the GPUs are; here only their names and parameters are checked.
    std::vector<ManifestTool> manifestTools;
    for (const auto& use : o.tools) {
        const ToolSpec* t = catalog.find(use.name);
        if (!t) return refuse(125, unknownTool(use.name, catalog));
        auto vars = toolVariables(*t, use.values, {{"delay", "0"}, {"duration", "0"}});
        if (!vars) return refuse(125, vars.error().message);
        ManifestTool mt{t->name, "", {}};
        for (const auto& p : t->params) mt.params[p.key] = vars->at(p.key);
        manifestTools.push_back(std::move(mt));
    }
    for (const auto* argv : {&spec->submit, &spec->launch, &spec->state, &spec->cancel}) {
        const std::string& exe = argv->front();
        std::string why;
        if (exe.find('{') == std::string::npos && commandCheck(exe, "", why) != 0)
            return refuse(125, fmt::format("{} (--slurm runs Slurm's commands as {} says: is Slurm's client installed "
                                           "and on PATH?)", why, spec->source));
    }
    std::error_code ec;
    const fs::path outDir = fs::absolute(o.outDir, ec);
    if (auto why = checkOutDir(outDir)) return refuse(125, *why);
    const std::string strobeCli = o.strobeCli.empty() ? strobeCliPath() : o.strobeCli;
    const std::string cwd = o.cwd.empty() ? fs::current_path(ec).string() : o.cwd;
    std::string runName = o.runName.empty() ? outDir.filename().string() : o.runName;
    for (char& c : runName)
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("._=,+-").find(c) == std::string_view::npos) c = '_';
    const fs::path script = outDir / "slurm-job.sh";
    const std::map<std::string, std::string> vars{
        {"out", outDir.string()}, {"run", runName}, {"cwd", cwd}, {"script", script.string()}, {"strobe_cli", strobeCli}};
    const auto launch = expandSlurmArgv(spec->launch, vars, {{"collect", collectCommandLine(o, catalog, outDir.string(), strobeCli, {"--in-slurm-job"})}});
    if (!launch) return refuse(125, fmt::format("{}: launch: {}", spec->source, launch.error().message));
    const auto submit = expandSlurmArgv(spec->submit, vars, {{"slurm_args", o.slurmArgs}});
    if (!submit) return refuse(125, fmt::format("{}: submit: {}", spec->source, submit.error().message));

    const bool existed = fs::exists(outDir, ec);
    fs::create_directories(outDir, ec);
    if (ec) return refuse(125, fmt::format("{}: cannot create the output directory: {}", outDir.string(), ec.message()));
    auto undo = [&] {  // nothing ran: leave the directory as it was
        if (existed) {
            for (const char* f : {"slurm-job.sh", core::kRunManifestFileName}) fs::remove(outDir / f, ec);
        } else {
            fs::remove_all(outDir, ec);
        }
    };
    {
        std::ofstream out(script, std::ios::binary);
        out << batchScript(*launch, *submit);
        if (!out) {
            undo();
            return refuse(125, fmt::format("{}: cannot write the batch script", script.string()));
        }
    }
    fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec, ec);
    SessionResult r;
    RunManifest& m = r.manifest;
    m.command = o.command;
    m.cwd = cwd;
    m.parameters = core::typedParameters(o.parameters);
    m.repeat = o.repeat;
    m.envDiff = o.env;
    m.tools = manifestTools;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    m.host = host;
    m.clocks = readClocks();
    m.start = utcNow();

    ProcessSpec ps;
    ps.argv = *submit;
    ps.workDir = cwd;
    const auto submitted = runCaptured(ps, std::chrono::seconds(120));
    const std::string jobId = submitted && submitted->exit && submitted->exit->status == 0 ? parseJobId(*spec, submitted->out) : "";
    if (jobId.empty()) {
        undo();
        std::string what = submitted ? submitted->err + submitted->out : submitted.error().message;
        while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
        if (submitted && !submitted->exit) what = "no answer within 120 s";
        return refuse(125, fmt::format("{} did not submit the job: {}", submit->front(), what.empty() ? "no job id in its output" : what));
    }
    m.slurmJob = jobId;
    if (auto st = core::writeRunManifest(outDir.string(), m); !st) log(st.error().toString());
    log(fmt::format("submitted Slurm job {} ({})", jobId, joinArgv(*submit)));

    auto note = [&](const std::string& message) {
        m.messages.push_back(message);
        log(message);
    };
    const std::map<std::string, std::string> jobVars{{"job", jobId}, {"out", outDir.string()}};
    const auto stateArgv = expandSlurmArgv(spec->state, jobVars, {});
    const auto cancelArgv = expandSlurmArgv(spec->cancel, jobVars, {});
    int cancelledBy = 0;
    SlurmJobState state;
    std::string lastState;
    int unknown = 0;  // state queries in a row that named no state
    auto cancelDeadline = std::chrono::steady_clock::time_point::max();
    for (;;) {
        if (const int sig = stopSignal.load(); sig != 0 && !cancelledBy) {
            cancelledBy = sig;
            if (cancelArgv) {
                log(fmt::format("cancelling: {}", joinArgv(*cancelArgv)));
                ProcessSpec cs;
                cs.argv = *cancelArgv;
                const auto c = runCaptured(cs, std::chrono::seconds(60));
                if (!c || !c->exit || c->exit->status != 0)
                    note(fmt::format("{} failed: {}", cancelArgv->front(), c ? c->err : c.error().message));
            }
            // Slurm gives the job's tasks KillWait (30 s by default) after SIGTERM before SIGKILL.
            cancelDeadline = std::chrono::steady_clock::now() + o.grace + std::chrono::seconds(120);
        }
        if (stateArgv) {
            ProcessSpec qs;
            qs.argv = *stateArgv;
            const auto q = runCaptured(qs, std::chrono::seconds(30));
            SlurmJobState now;
            if (q && q->exit) now = parseJobState(*spec, q->out);
            if (now.state.empty()) {
                ++unknown;
            } else {
                unknown = 0;
                state = now;
                if (state.state != lastState) log(fmt::format("Slurm job {}: {}", jobId, state.state));
                lastState = state.state;
            }
        } else {
            ++unknown;
        }
        if (state.ended) break;
        if (unknown >= 200) {
            note(fmt::format("Slurm job {}: its state could not be read {} times in a row ({}); stopped waiting", jobId,
                             unknown, stateArgv ? joinArgv(*stateArgv) : stateArgv.error().message));
            break;
        }
        if (std::chrono::steady_clock::now() > cancelDeadline) {
            note(fmt::format("Slurm job {} did not end within {} s of being cancelled", jobId,
                             std::chrono::duration_cast<std::chrono::seconds>(o.grace).count() + 120));
            break;
        }
        for (int slept = 0; slept < spec->pollMs && (cancelledBy || stopSignal.load() == 0); slept += 20)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }

    // One task: the session inside the job wrote the run's manifest, and its end is this run's end.
    const ManifestEnd inner = readManifestEnd(outDir);
    if (inner.slurmJob == jobId && inner.status && manifestEnded(*inner.status)) {
        m.status = *inner.status;
        r.status = core::toString(m.status);
        m.exitCode = inner.exitCode;
        m.exitSignal = inner.exitSignal;
        m.statusReason = inner.statusReason;
        m.failure = inner.failure;
        r.exitCode = inner.exitSignal ? 128 + *inner.exitSignal
                                      : inner.exitCode.value_or(m.status == RunStatus::Completed ? 0 : 1);
        if (m.status == RunStatus::Incomplete) r.exitCode = kIncompleteExit;
        if (cancelledBy && m.status == RunStatus::Failed) {
            // scancel signals every process of the job at once: the workload can end of it before the session
            // inside saw its own SIGTERM, and call the run failed. It was cancelled, on request.
            const std::string why = fmt::format("cancelled through {}: the workload ended on Slurm's signal",
                                                cancelArgv ? joinArgv(*cancelArgv) : std::string("scancel"));
            if (auto st = core::markRunManifestCancelled(outDir.string(), why); !st) {
                log(st.error().toString());
            } else {
                m.status = RunStatus::Cancelled;
                r.status = core::toString(m.status);
            }
        }
        if (cancelledBy && r.status == "cancelled") r.exitCode = 128 + cancelledBy;
        m.files = listFiles(outDir, {});
        return r;
    }
    // Several tasks (each wrote rank<N>/manifest.yaml), or the session inside never started or never finished:
    // the job's end is the run's.
    m.end = utcNow();
    if (state.exitSignal && *state.exitSignal != 0) m.exitSignal = state.exitSignal;
    else if (state.exitCode && !(cancelledBy && *state.exitCode == 0)) m.exitCode = state.exitCode;  // 0:0: never ran
    if (cancelledBy) {
        m.status = RunStatus::Cancelled;
        r.exitCode = 128 + cancelledBy;
    } else if (state.state == "COMPLETED") {
        m.status = RunStatus::Completed;
        r.exitCode = 0;
    } else if (state.state == "CANCELLED") {  // scancel from elsewhere
        m.status = RunStatus::Cancelled;
        r.exitCode = 128 + SIGTERM;
    } else {
        m.status = RunStatus::Failed;
        r.exitCode = m.exitSignal ? 128 + *m.exitSignal : std::max(1, m.exitCode.value_or(1));
    }
    note(fmt::format("Slurm job {} ended {}{}", jobId, state.state.empty() ? "in an unknown state" : state.state,
                     state.exitCode ? fmt::format(" (ExitCode {}:{})", *state.exitCode, state.exitSignal.value_or(0)) : ""));
    if (m.status == RunStatus::Failed) {
        const std::string tail = lastLines(outDir / fmt::format("slurm-{}.out", jobId), 3);
        if (!tail.empty()) note(fmt::format("slurm-{}.out ends: {}", jobId, tail));
    }
    m.files = listFiles(outDir, {});
    if (auto st = core::writeRunManifest(outDir.string(), m); !st) note(st.error().toString());
    r.status = core::toString(m.status);
    return r;
}


// Forwards what was appended to a file since the last call: the workload's log as strobe-cli collect streams it.
struct LogTail {
    fs::path path;
    std::streamoff offset = 0;
    void pump(const std::function<void(std::string_view)>& out) {
        if (!out) return;
        std::ifstream in(path, std::ios::binary);
        if (!in || !in.seekg(offset)) return;
        std::vector<char> buf(1 << 16);
        for (;;) {
            in.read(buf.data(), std::streamsize(buf.size()));
            const std::streamsize got = in.gcount();
            if (got <= 0) break;
            out(std::string_view(buf.data(), size_t(got)));
            offset += got;
        }
    }
};

// The last `n` lines of the workload's output (workload.log), joined with newlines: what a failed run shows.
std::string workloadTail(const fs::path& file, size_t n) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) {
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
        if (l.empty()) continue;
        lines.push_back(std::move(l));
        if (lines.size() > n) lines.erase(lines.begin());
    }
    std::string out;
    for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
    return out;
}

// Whether the file holds `text`, read in blocks (a workload's log can be large); false when it cannot be read.
bool fileContains(const fs::path& path, const std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (!in || text.empty()) return in && text.empty();
    std::string window;
    std::vector<char> block(1 << 16);
    while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
        window.append(block.data(), static_cast<size_t>(in.gcount()));
        if (window.find(text) != std::string::npos) return true;
        window.erase(0, window.size() - std::min(window.size(), text.size() - 1));  // keep a match across blocks
    }
    return false;
}

// Why a tool asked for left nothing, or "": its first output (what it must leave) matches no non-empty file, or,
// when the output must hold a marker (a log inside workload.log), no matching file holds it.
std::string noOutputReason(const Prepared& t, const std::vector<ManifestFile>& files, const fs::path& outDir) {
    if (t.spec->outputs.empty()) return {};
    const ToolOutput& out = t.spec->outputs.front();
    for (const auto& f : files)
        if (f.size > 0 && fnmatch(out.glob.c_str(), f.path.c_str(), 0) == 0 &&
            (out.contains.empty() || fileContains(outDir / f.path, out.contains)))
            return {};
    const std::string hint = t.spec->noOutputHint.empty() ? "" : " (" + t.spec->noOutputHint + ")";
    if (!out.contains.empty())
        return fmt::format("{} wrote no trace: no file matching {} in the run directory holds \"{}\"{}", t.spec->name,
                           out.glob, out.contains, hint);
    return fmt::format("{} wrote no trace: no non-empty file matches {} in the run directory{}", t.spec->name, out.glob,
                       hint);
}

// The run's end: its status and exit (r.exitCode), the files it left, the failed workload's last lines, and
// `incomplete` when the workload completed but a tool asked for wrote nothing (kIncompleteExit).
void finishRun(SessionResult& r, const std::optional<ExitInfo>& exit, int cancelledBy, const fs::path& outDir,
               const std::vector<Prepared>& tools, size_t failureLines,
               const std::function<void(const std::string&)>& note) {
    RunManifest& m = r.manifest;
    if (cancelledBy) {
        m.status = RunStatus::Cancelled;
        r.exitCode = 128 + cancelledBy;
    } else if (exit) {
        m.status = exit->status == 0 ? RunStatus::Completed : RunStatus::Failed;
        r.exitCode = exit->status;
    } else {
        m.status = RunStatus::Failed;
    }
    if (exit && exit->signalled) m.exitSignal = exit->signal;
    else if (exit) m.exitCode = exit->status;
    m.files = listFiles(outDir, tools);
    if (m.status == RunStatus::Failed) m.failure = workloadTail(outDir / "workload.log", failureLines);
    std::string missing;
    for (const auto& t : tools)
        if (std::string why = noOutputReason(t, m.files, outDir); !why.empty()) missing += (missing.empty() ? "" : "; ") + why;
    for (const auto& t : tools)
        if (std::any_of(t.spec->outputs.begin(), t.spec->outputs.end(), [](const ToolOutput& out) { return out.format == "strobe-torch-aux"; }))
            for (const auto& line : torchProfileModes(outDir / "torch")) note(fmt::format("{}: {}", t.spec->name, line));
    if (!missing.empty() && m.status == RunStatus::Completed) {
        m.status = RunStatus::Incomplete;
        m.statusReason = missing;
        r.exitCode = kIncompleteExit;
    } else if (!missing.empty()) {
        note(missing);
    }
    r.status = core::toString(m.status);
}

}  // namespace

std::vector<std::string> collectCommandLine(const SessionOptions& o, const ToolCatalog& catalog, const std::string& outDir,
                                            const std::string& strobeCli, const std::vector<std::string>& modeFlags) {
    std::vector<std::string> a{strobeCli, "collect"};
    a.insert(a.end(), modeFlags.begin(), modeFlags.end());
    a.insert(a.end(), {"--out", outDir});
    for (const auto& t : o.tools) a.insert(a.end(), {"--tool", t.name});
    for (const auto& t : o.tools) {
        const ToolSpec* spec = catalog.find(t.name);
        for (const auto& [k, v] : t.values)
            if (const core::ParamSpec* ps = spec ? core::findSpec(spec->params, k) : nullptr)
                a.insert(a.end(), {"--tool-param", t.name + "." + k + "=" + core::valueToString(*ps, v)});
    }
    a.insert(a.end(), {"--grace-ms", std::to_string(o.grace.count())});
    if (o.delaySeconds > 0) a.insert(a.end(), {"--delay", fmt::format("{}", o.delaySeconds)});
    if (o.durationSeconds > 0) a.insert(a.end(), {"--duration", fmt::format("{}", o.durationSeconds)});
    if (!o.python.empty()) a.insert(a.end(), {"--python", o.python});
    for (const auto& [k, v] : o.parameters) a.insert(a.end(), {"--param", k + "=" + v});
    if (o.repeat) a.insert(a.end(), {"--repeat", std::to_string(*o.repeat)});
    for (const auto& [k, v] : o.env) a.insert(a.end(), {"--env", k + "=" + v});
    a.push_back("--");
    a.insert(a.end(), o.command.begin(), o.command.end());
    return a;
}

SessionResult runSession(const SessionOptions& o, const ToolCatalog& catalog, const std::atomic<int>& stopSignal,
                         const std::function<void(const std::string&)>& logFn) {
    auto log = [&](const std::string& s) {
        if (logFn) logFn(s);
    };
    if (o.command.empty()) return refuse(125, "no command to run");
    if (o.outDir.empty()) return refuse(125, "no output directory");
    if (!o.remoteHost.empty()) return runRemoteSession(o, catalog, stopSignal, logFn);
    if (o.slurm) return runSlurmSubmission(o, catalog, stopSignal, logFn);
    std::error_code ec;
    // Inside a Slurm job: each task of a several-task step gets a run directory of its own.
    const SlurmTask task = slurmTaskFromEnvironment();
    const bool perRank = !task.jobId.empty() && task.tasks > 1;
    const fs::path outDir = perRank ? fs::absolute(o.outDir, ec) / fmt::format("rank{}", task.rank) : fs::absolute(o.outDir, ec);
    const DeviceReport devices = probeDevices();
    std::string pythonHow;
    const std::map<std::string, std::string> builtins{
        {"out", outDir.string()},
        {"strobe_cli", o.strobeCli.empty() ? strobeCliPath() : o.strobeCli},
        {"python_dir", core::resourcePath("python").string()},
        {"resources", core::resourceDir().string()},
        {"python", o.python.empty() ? findPython(o.command, &pythonHow) : o.python},
        {"python_how", o.python.empty() ? pythonHow : "given with --python"},
        {"delay", fmt::format("{}", o.delaySeconds)},
        {"duration", fmt::format("{}", o.durationSeconds)}};
    std::vector<Prepared> tools;
    if (auto why = prepareTools(o, catalog, devices, builtins, tools)) return refuse(125, *why);
    if (auto why = checkOutDir(outDir, o.inSlurmJob && !perRank)) return refuse(125, *why);
    std::string why;
    if (const int code = commandCheck(o.command.front(), o.cwd, why); code != 0) return refuse(code, why);

    // The workload's argv and environment, and the sidecars' argv.
    std::vector<std::string> argv;
    std::map<std::string, std::string> env = o.env;
    for (const auto& [k, v] : rankVariables(task)) env.emplace(k, v);
    for (const auto& t : tools) {
        for (const auto& [k, v] : t.spec->env) {
            auto x = expandTemplate(v, t.vars);
            if (!x) return refuse(125, fmt::format("tool {}: env {}: {}", t.spec->name, k, x.error().message));
            std::string value = *x;
            while (value.ends_with(':')) value.pop_back();  // "{python_dir}:{env.PYTHONPATH}" with it unset
            env[k] = value;
        }
        if (t.spec->kind == ToolKind::Prefix) {
            auto x = expandAll(t.spec->command, t.vars, t.spec->splitArgs);
            if (!x) return refuse(125, fmt::format("tool {}: command: {}", t.spec->name, x.error().message));
            argv.insert(argv.end(), x->begin(), x->end());
        }
    }
    argv.insert(argv.end(), o.command.begin(), o.command.end());
    // Streamed output is only worth watching when Python writes it as it goes (to a file it buffers 8 KiB).
    if (o.output && !env.contains("PYTHONUNBUFFERED") && !std::getenv("PYTHONUNBUFFERED")) env["PYTHONUNBUFFERED"] = "1";

    fs::create_directories(outDir, ec);
    if (ec) return refuse(125, fmt::format("{}: cannot create the output directory: {}", outDir.string(), ec.message()));
    SessionResult r;
    RunManifest& m = r.manifest;
    m.command = o.command;
    m.cwd = o.cwd.empty() ? fs::current_path(ec).string() : o.cwd;
    m.parameters = core::typedParameters(o.parameters);
    m.repeat = o.repeat;
    m.envDiff = env;
    for (const auto& d : devices.gpus) m.devices.push_back({d.vendor, d.name, d.arch, d.source});
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    m.host = host;
    if (!task.jobId.empty()) m.slurmJob = task.jobId;
    for (const auto& t : tools) {
        ManifestTool mt{t.spec->name, t.probe.version, {}};
        for (const auto& p : t.spec->params) mt.params[p.key] = t.vars.at(p.key);
        m.tools.push_back(std::move(mt));
    }
    m.clocks = readClocks();
    m.start = utcNow();
    if (auto st = core::writeRunManifest(outDir.string(), m); !st) return refuse(125, st.error().toString());

    auto note = [&](const std::string& message) {
        m.messages.push_back(message);
        log(message);
    };
    std::vector<Running> sidecars;
    for (const auto& t : tools) {
        if (t.spec->kind != ToolKind::Sidecar) continue;
        auto x = expandAll(t.spec->command, t.vars, t.spec->splitArgs);
        ProcessSpec ps;
        ps.argv = x ? *x : std::vector<std::string>{};
        ps.workDir = outDir.string();
        ps.stderrPath = (outDir / (t.spec->name + ".stderr.log")).string();  // removed at the end when empty
        if (!t.spec->stdoutFile.empty()) {
            auto f = expandTemplate(t.spec->stdoutFile, t.vars);
            if (f) ps.stdoutPath = (outDir / *f).string();
        }
        auto tree = ProcessTree::start(ps);
        if (!tree) {
            note(fmt::format("sidecar {} did not start: {}", t.spec->name, tree.error().message));
            continue;
        }
        log(fmt::format("started sidecar {} (pid {})", t.spec->name, (*tree)->pid()));
        sidecars.push_back({&t, std::move(*tree), false});
    }

    awaitSidecars(sidecars, outDir, o.sidecarStart, stopSignal, note);

    ProcessSpec ws;
    ws.argv = argv;
    ws.env = env;
    ws.workDir = o.cwd;
    ws.stdoutPath = ws.stderrPath = (outDir / "workload.log").string();
    auto workload = ProcessTree::start(ws);
    LogTail tail{ws.stdoutPath};
    std::optional<ExitInfo> exit;
    int cancelledBy = 0;
    if (!workload) {
        note(workload.error().message);
        r.exitCode = 127;
    } else {
        log(fmt::format("started {} (pid {})", argv.front(), (*workload)->pid()));
        while (!exit) {
            exit = (*workload)->wait(std::chrono::milliseconds(50));
            tail.pump(o.output);
            if (exit) break;
            if (const int sig = stopSignal.load(); sig != 0) {
                cancelledBy = sig;
                log("cancelling: SIGTERM to the workload's processes");
                const auto left = (*workload)->cancel(o.grace);
                if (!left.empty()) note(fmt::format("{} processes survived SIGKILL", left.size()));
                exit = (*workload)->exitInfo();
                break;
            }
            for (auto& s : sidecars)
                if (!s.reported && !s.tree->poll()) {
                    s.reported = true;
                    const auto e = s.tree->exitInfo();
                    note(fmt::format("sidecar {} ended early (status {}); what it wrote is kept", s.tool->spec->name,
                                     e ? e->status : -1));
                }
        }
    }
    tail.pump(o.output);
    // A stop requested by the time the workload was killed is a cancel (scancel signals all of a job's processes at
    // once: the workload may end of it before this loop saw its own request).
    if (!cancelledBy && exit && exit->signalled) cancelledBy = stopSignal.load();
    // Teardown in reverse order: each sidecar gets SIGTERM and the grace period to flush.
    for (auto it = sidecars.rbegin(); it != sidecars.rend(); ++it) {
        const auto left = it->tree->cancel(o.grace);
        if (!left.empty())
            note(fmt::format("sidecar {}: {} processes survived SIGKILL", it->tool->spec->name, left.size()));
        log(fmt::format("stopped sidecar {}", it->tool->spec->name));
    }

    for (const auto& s : sidecars) {
        const fs::path err = outDir / (s.tool->spec->name + ".stderr.log");
        if (fs::exists(err, ec) && fs::file_size(err, ec) == 0) fs::remove(err, ec);
    }
    m.end = utcNow();
    finishRun(r, exit, cancelledBy, outDir, tools, o.failureLines, note);
    if (auto st = core::writeRunManifest(outDir.string(), m); !st) note(st.error().toString());
    return r;
}

}  // namespace strobe::collectors
