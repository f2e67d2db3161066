// strobe-cli collect: runs a workload under stacked tools into a run directory with its manifest
// (collectors/session.h); strobe-cli tools: the tool specs this installation knows, with their availability.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include <QJsonDocument>

#include <fmt/format.h>

#include "app/cli/command.h"
#include "app/cli/cmd_collect.h"
#include "collectors/device_info.h"
#include "collectors/launch_request.h"
#include "collectors/madengine_context.h"
#include "collectors/remote.h"
#include "collectors/session.h"
#include "collectors/sweep_launch.h"

namespace strobe::app {

namespace {

constexpr const char* kCollectHelp =
    "Usage: strobe-cli collect --out DIR [--tool NAME]... [--tool-param NAME.KEY=VALUE]... [--param KEY=VALUE]...\n"
    "                          [--context FILE] [--repeat N] [--env KEY=VALUE]... [--grace-ms MS]\n"
    "                          [--delay S] [--duration S] [--steps A-B] [--gpu-telemetry] [--cpu-telemetry]\n"
    "                          [--slurm [--slurm-arg ARG]...] [--quiet]\n"
    "                          [--host [USER@]HOST[:PORT] [--remote-strobe-cli PATH] [--remote-out DIR]\n"
    "                           [--ssh-arg ARG]... [--detach]] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND (argv as given, never through a shell) under the tools, listed outermost first, into DIR, a new\n"
    "or empty run directory: sidecars (samplers) start first and are stopped with SIGTERM, then SIGKILL after the\n"
    "grace period, when COMMAND ends; env tools set variables (the torch-profiler contract); prefix tools wrap the\n"
    "command. DIR/manifest.yaml is written at the start and rewritten at the end (command, tools and versions,\n"
    "parameters, redacted environment changes, devices, the three clocks, status, exit, every file and its size);\n"
    "COMMAND's output (stdout and stderr) goes to DIR/workload.log and streams to strobe-cli's stdout as it\n"
    "comes (PYTHONUNBUFFERED=1 is set unless set already; --quiet: the log only); strobe-cli's own lines go to\n"
    "stderr. A failed run ends with COMMAND's last 20 lines on stderr and in the manifest (failure:). A tool\n"
    "asked for that wrote nothing (no file matches its first output) makes a run whose COMMAND succeeded\n"
    "`incomplete`, with the reason on stderr and in the manifest (status_reason: \"torch-profiler wrote no\n"
    "trace: ...\"). `strobe DIR` opens the run.\n"
    "\n"
    "  --out DIR                     the run directory (must not exist or be empty)\n"
    "  --tool NAME                   a tool from `strobe-cli tools` (repeatable, outermost first)\n"
    "  --tool-param NAME.KEY=VALUE   a tool parameter (repeatable)\n"
    "  --context FILE                a madengine context JSON ({\"tools\": [{\"name\", \"cmd\", \"env_vars\"}]},\n"
    "                                innermost first): its tools go inside the --tool's, reversed to Strobe's\n"
    "                                outermost-first order. madengine's names map to tools: rocprof/rocprofv3 ->\n"
    "                                rocprofv3 (the cmd's trace flags and --output-format mapped), rpd -> rpd,\n"
    "                                rocblas_trace/miopen_trace/tensile_trace/rccl_trace -> rocblas-log/\n"
    "                                miopen-log/tensile-log/rccl-log, gpu_info_power_profiler/_vram_profiler ->\n"
    "                                amd-smi (nvidia-smi when gpu_vendor is NVIDIA) with power/VRAM fields; a\n"
    "                                name Strobe has a spec for is that tool; another with a cmd an ad-hoc prefix\n"
    "                                tool (argv split at blanks, no shell); another without a cmd is refused (125,\n"
    "                                naming tools[i]). env_vars merge in file order, a later entry winning\n"
    "  --additional-context-file FILE  madengine's name for --context\n"
    "  --additional-context JSON     a madengine context given inline; with a file, merged as madengine does:\n"
    "                                the file's top-level keys first, the inline ones last, a later key winning\n"
    "                                (bad JSON: exit 2 naming --additional-context, the line and column)\n"
    "  --param KEY=VALUE             a sweep value recorded in the manifest (repeatable)\n"
    "  --env KEY=VALUE               an environment variable for COMMAND (repeatable; recorded, redacted, in the\n"
    "                                manifest)\n"
    "  --repeat N                    the repeat index recorded in the manifest\n"
    "  --grace-ms MS                 how long processes get to exit after SIGTERM (default 5000)\n"
    "  --delay S                     capture starts S seconds in ({delay} in tool specs; torch-profiler: S seconds\n"
    "                                after the script imports torch, in steps and time mode alike)\n"
    "  --duration S                  capture lasts S seconds ({duration}; 0, the default: to the end)\n"
    "  --steps A-B                   torch-profiler records ProfilerStep#A to #B (its steps parameter: the schedule's\n"
    "                                wait and active follow from it); needs --tool torch-profiler\n"
    "  --gpu-telemetry               sample the GPUs beside the run: amd-smi or nvidia-smi, by the GPUs found\n"
    "                                (refused, 125, with the GPU probe's reason when none is found)\n"
    "  --cpu-telemetry               sample CPU use and memory beside the run (the cpu-sampler tool)\n"
    "  --slurm                       run the whole session (tools included) as a Slurm job, see below\n"
    "  --slurm-arg ARG               one more sbatch argument (repeatable): --slurm-arg=--partition=gpu\n"
    "                                --slurm-arg=--ntasks=8 --slurm-arg=--gres=gpu:8 --slurm-arg=--time=30\n"
    "  --in-slurm-job                (written by --slurm into the batch script) DIR was prepared by the submitter\n"
    "  --host [USER@]HOST[:PORT]     run the whole session on HOST over ssh, see below\n"
    "  --remote-strobe-cli PATH      strobe-cli on HOST (default: strobe-cli on its PATH)\n"
    "  --remote-out DIR              the run directory on HOST (default: ~/strobe-runs/<DIR's name>-<time>-<pid>-<n>)\n"
    "  --ssh-arg ARG                 one more ssh option, before the host (repeatable): --ssh-arg=-i/path/key\n"
    "                                --ssh-arg=-Fconfig --ssh-arg=-oProxyJump=login\n"
    "  --detach                      with --host: a lost connection leaves the remote run running to its end\n"
    "  --remote-session              (written by --host into the remote command) stdin is the link to the launcher\n"
    "  --fetch                       with --host, --remote-out and --out, no command: copy that remote run (one left\n"
    "                                running by --detach) into DIR; exit as the run's status says\n"
    "  -q, --quiet                   do not stream COMMAND's output (it still goes to DIR/workload.log)\n"
    "  --python PATH                 COMMAND's Python interpreter, which the torch-profiler probe runs; by default\n"
    "                                COMMAND itself when it is python*, else the interpreter in the shebang of\n"
    "                                COMMAND's file (torchrun, accelerate, deepspeed, a Python wrapper script),\n"
    "                                else python3 on PATH. A failed probe names the interpreter and its error.\n"
    "\n"
    "Slurm: with --slurm, strobe-cli writes DIR/slurm-job.sh, a batch script that runs `srun strobe-cli collect\n"
    "--in-slurm-job` with these same options and COMMAND, submits it with `sbatch --parsable\n"
    "--job-name=strobe-<DIR's name> --output=DIR/slurm-<job>.out --chdir=<cwd> [--slurm-arg...]`, records the job\n"
    "id in DIR/manifest.yaml (slurm_job) at once and waits, polling `scontrol show job`, until the job ends. The\n"
    "session inside the job probes the tools on the compute node, runs them and COMMAND, and writes the manifest\n"
    "(slurm_job, status, exit, files); its exit status is strobe-cli's. With several tasks (--slurm-arg=--ntasks=N)\n"
    "each task is a run of its own in DIR/rank<SLURM_PROCID>; COMMAND gets RANK, LOCAL_RANK and WORLD_SIZE from\n"
    "SLURM_PROCID, SLURM_LOCALID and SLURM_STEP_NUM_TASKS when unset (as in any run inside a Slurm job). SIGINT or\n"
    "SIGTERM to strobe-cli runs `scancel <job>`: the session inside stops its tools and COMMAND and writes status:\n"
    "cancelled, the job ends CANCELLED, strobe-cli exits 130/143. The commands and templates are data:\n"
    "share/strobe/slurm.yaml, replaced by ~/.config/strobe/slurm.yaml. Refused (125) when sbatch, srun, scontrol\n"
    "or scancel is not found, or sbatch rejects the job (its message is shown).\n"
    "\n"
    "Remote: with --host, a preflight runs `ssh -T -o BatchMode=yes [-p PORT] [--ssh-arg...] [USER@]HOST --\n"
    "STROBE_CLI --version` (the system's OpenSSH client with your keys, agent and ~/.ssh/config; never a password\n"
    "prompt) and refuses (125, naming the host, the path and what was found) when the host cannot be reached, the\n"
    "key is not accepted, or strobe-cli there is missing or another version; nothing starts on either side. Then\n"
    "`STROBE_CLI collect --remote-session --out REMOTE_DIR` with these options and COMMAND runs there: its tools are\n"
    "probed on HOST, COMMAND's output streams back here, HOST's strobe-cli lines come prefixed with HOST. The ssh\n"
    "client's stdin is the link: SIGINT/SIGTERM to strobe-cli here is relayed and the remote session stops COMMAND\n"
    "and its tools (status: cancelled on both sides, exit 130/143); when the link closes (strobe-cli here killed, the\n"
    "connection dropped) the remote session cancels itself, unless --detach. At the end the remote run directory\n"
    "is copied into DIR (tar over ssh) and DIR/manifest.yaml says where it ran and how it ended (messages:\n"
    "remote: ...). A lost connection exits 255; with --detach the run goes on there and the message gives the\n"
    "--fetch command that copies it here once it ended. sweep launch --host runs each of its runs this way.\n"
    "\n"
    "Exit status: COMMAND's (128 + signal when it was killed); 4 when COMMAND exited 0 but the run is incomplete\n"
    "(a tool wrote nothing); 125 when Strobe refuses before starting anything\n"
    "(unknown or missing tool, a tool for the other GPU vendor, conflicting tools, DIR not empty or not\n"
    "writable); 126 when COMMAND cannot run, 127 when it is not found; 130/143 when SIGINT/SIGTERM cancelled the\n"
    "run (status: cancelled in the manifest, every process stopped, what was collected kept); 2 usage error.\n"
    "STROBE_DEVICE_INFO=FILE replaces the GPU probe with a recorded one (YAML gpus: [{vendor, name, arch}]).";

constexpr const char* kToolsHelp =
    "Usage: strobe-cli tools [--json]\n"
    "\n"
    "Lists the tool specs (shipped in share/strobe/tools, yours in ~/.config/strobe/tools) with their kind\n"
    "(prefix, env, sidecar), the GPU vendor they need, whether their probe finds them and which version, and\n"
    "their parameters; a missing one with the reason (the probe's command, exit status and last error line).\n"
    "--json: {\"schema\": 1, \"tools\": [{\"name\", \"kind\", \"vendor\", \"available\", \"version\", \"missing\"\n"
    "(the reason, or null), \"params\": [ParamSpec JSON...]}], \"gpus\": [{\"vendor\", \"name\", \"arch\", \"source\"}],\n"
    "\"gpu_message\" (why none was found, or null), \"messages\": [...]}. The GPUs line says which GPUs were found (HSA on\n"
    "AMD, nvidia-smi on NVIDIA), or why none: what --gpu-telemetry and the vendor tools go by. Probes that run Python\n"
    "run python3 on PATH here; collect finds the workload's own interpreter (see collect --python).";

const core::PathParam kContext{"context", "madengine context", "A madengine context JSON with a tools list", ""};
const core::PathParam kContextFile{"additional-context-file", "madengine context file", "madengine's name for --context", ""};
const core::StringParam kContextInline{"additional-context", "madengine context", "A madengine context as inline JSON", ""};
const core::StringListParam kParam{"param", "Parameter", "KEY=VALUE recorded in the manifest", {}};
const core::IntParam kRepeat = core::IntParam{"repeat", "Repeat", "Repeat index", -1}.bounded(-1, 1000000, 1);
const core::BoolParam kInSlurmJob{"in-slurm-job", "In a Slurm job", "The session inside a --slurm job", false};
const core::BoolParam kQuiet{"quiet", "Quiet", "Do not stream the workload's output", false};
const core::StringParam kRemoteOut{"remote-out", "Remote run directory", "The run directory on --host", ""};
const core::StringListParam kSshArg{"ssh-arg", "ssh argument", "One more ssh option (before the host)", {}};
const core::BoolParam kDetach{"detach", "Detach", "A lost connection leaves the remote run running", false};
const core::BoolParam kFetch{"fetch", "Fetch", "Copy the --remote-out run from --host into --out (no command)", false};
const core::BoolParam kRemoteSession{"remote-session", "Remote session", "The session a --host launch started", false};
const core::IntParam kGraceMs =
    core::IntParam{"grace-ms", "Grace (ms)", "Time to exit after SIGTERM", 5000}.bounded(0, 600000, 1);

// The flags a launch request holds are declared once, with the request (collectors/launch_request.h).
using collectors::launch_flags::kCpuTelemetry;
using collectors::launch_flags::kEnv;
using collectors::launch_flags::kGpuTelemetry;
using collectors::launch_flags::kGrid;
using collectors::launch_flags::kHost;
using collectors::launch_flags::kOrder;
using collectors::launch_flags::kOut;
using collectors::launch_flags::kPython;
using collectors::launch_flags::kRemoteCli;
using collectors::launch_flags::kRepeats;
using collectors::launch_flags::kSlurm;
using collectors::launch_flags::kSlurmArg;
using collectors::launch_flags::kTool;
using collectors::launch_flags::kToolParam;
const auto& kCaptureDelay = collectors::launch_flags::kDelay;
const auto& kCaptureDuration = collectors::launch_flags::kDuration;

std::atomic<int> g_signal{0};
extern "C" void onCollectSignal(int sig) { g_signal.store(sig); }

// Splits at the first "--": options before, the command after.
std::pair<std::vector<std::string>, std::vector<std::string>> splitCommand(const std::vector<std::string>& all) {
    auto dash = std::find(all.begin(), all.end(), "--");
    return {std::vector<std::string>(all.begin(), dash),
            std::vector<std::string>(dash == all.end() ? dash : dash + 1, all.end())};
}

// The workload's output to stdout as it comes (strobe-cli's own lines go to stderr).
void streamWorkloadOutput(std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

// What ended a run that did not complete, on stderr: an incomplete run's reason, a failed run's last lines.
void printRunEnd(const char* command, const collectors::SessionResult& r) {
    const auto& m = r.manifest;
    if (!m.statusReason.empty()) fmt::print(stderr, "strobe-cli {}: {}: {}\n", command, r.status, m.statusReason);
    if (m.failure.empty()) return;
    fmt::print(stderr, "strobe-cli {}: failed (exit {}); the workload's last lines (workload.log):\n", command,
               m.exitSignal ? fmt::format("signal {}", *m.exitSignal) : std::to_string(m.exitCode.value_or(-1)));
    size_t start = 0;
    while (start <= m.failure.size()) {
        const size_t nl = m.failure.find('\n', start);
        fmt::print(stderr, "  | {}\n", m.failure.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
}

std::vector<CliOption> sessionOptions() {
    return {kOut, CliOption(kTool, '\0', true), CliOption(kToolParam, '\0', true), kContext, kGraceMs,
            CliOption(kEnv, '\0', true), kSlurm, CliOption(kSlurmArg, '\0', true), CliOption(kQuiet, 'q'), kPython, kContextFile,
            kContextInline, kCaptureDelay, kCaptureDuration, collectors::launch_flags::kSteps, kGpuTelemetry, kCpuTelemetry, kHost, kRemoteCli,
            kRemoteOut, CliOption(kSshArg, '\0', true), kDetach};
}

// --host and its options into `o`; a usage error's message, or "". `remoteSession`: this is the session a --host
// launch started (--detach is its own then).
std::string applyRemoteOptions(const ArgParser& p, collectors::SessionOptions& o, bool remoteSession) {
    o.remoteHost = p.get(kHost);
    o.remoteStrobeCli = p.get(kRemoteCli);
    o.remoteOutDir = p.get(kRemoteOut);
    o.sshArgs = p.get(kSshArg);
    o.detach = p.get(kDetach);
    if (o.remoteHost.empty()) {
        for (const auto& [given, name] : {std::pair{!o.remoteStrobeCli.empty(), "--remote-strobe-cli"},
                                          std::pair{!o.remoteOutDir.empty(), "--remote-out"},
                                          std::pair{!o.sshArgs.empty(), "--ssh-arg"},
                                          std::pair{o.detach && !remoteSession, "--detach"}})
            if (given) return fmt::format("{} needs --host", name);
        return {};
    }
    if (remoteSession) return "--remote-session and --host exclude each other";
    if (o.slurm) return "--host and --slurm cannot be combined yet (run --slurm on the login node itself)";
    std::string error;
    if (!collectors::parseRemoteTarget(o.remoteHost, error)) return error;
    // The remote GPUs decide which sampler --gpu-telemetry means: the remote strobe-cli is asked for it.
    if (p.get(kGpuTelemetry)) o.remoteFlags.push_back("--gpu-telemetry");
    return {};
}

// --gpu-telemetry and --cpu-telemetry as tools, outermost (samplers run beside everything): the GPU sampler of each
// vendor whose GPUs were found, the CPU sampler. The refusal (no GPU: what the probe said), or "".
std::string addTelemetryTools(const ArgParser& p, collectors::SessionOptions& o) {
    auto add = [&](const std::string& name) {
        if (std::none_of(o.tools.begin(), o.tools.end(), [&](const collectors::ToolUse& u) { return u.name == name; }))
            o.tools.insert(o.tools.begin(), collectors::ToolUse{name, {}});
    };
    if (p.get(kCpuTelemetry)) add("cpu-sampler");
    if (!p.get(kGpuTelemetry) || !o.remoteHost.empty()) return {};
    const collectors::DeviceReport devices = collectors::probeDevices();
    bool amd = false, nvidia = false;
    for (const auto& g : devices.gpus) {
        amd = amd || g.vendor == "AMD";
        nvidia = nvidia || g.vendor == "NVIDIA";
    }
    if (!amd && !nvidia)
        return fmt::format("--gpu-telemetry: {}", devices.message.empty() ? std::string("no GPU found") : devices.message);
    if (nvidia) add("nvidia-smi");
    if (amd) add("amd-smi");
    return {};
}

// The command line as a launch request (collectors/launch_request.h: --tool, --tool-param, --env, --grid, --slurm[-arg],
// --python, --delay/--duration ...) checked by the one validator the workbench's launcher runs too, then into `o`
// with --context, --grace-ms and --quiet (a context's tools inside the --tool's, its ad-hoc tools into `catalog`),
// each tool parameter coerced by its spec; a usage error's message, or "". An unknown tool is not a usage error:
// the session refuses it (125) with the catalog's reason. `grid` gets a sweep's axes.
std::string applySessionOptions(const ArgParser& p, const std::vector<std::string>& command, bool sweep,
                                collectors::ToolCatalog& catalog, collectors::SessionOptions& o, const char* name,
                                std::string& refusal, std::vector<collectors::GridAxis>* grid = nullptr) {
    auto request = collectors::launchRequestFromFlags(p.given(), command, sweep);
    if (!request) return request.error().message;
    collectors::applyLaunchSteps(*request);
    for (const auto& problem : collectors::launchProblems(*request, catalog))
        if (problem.rfind("Unknown tool ", 0) != 0) return problem;
    if (grid) *grid = request->grid;
    o.command = request->command;
    o.outDir = request->outDir;
    o.grace = std::chrono::milliseconds(p.get(kGraceMs));
    o.slurm = request->slurm;
    o.slurmArgs = request->slurmArgs;
    if (!p.get(kQuiet)) o.output = streamWorkloadOutput;
    o.python = request->python;
    // Before the context: the user's own variables win over the context's.
    for (const auto& [key, value] : request->env) o.env[key] = value;
    o.delaySeconds = request->delaySeconds;
    o.durationSeconds = request->durationSeconds;
    for (const auto& t : request->tools) o.tools.push_back({t.name, t.values});
    if (!p.get(kContext).empty() && !p.get(kContextFile).empty())
        return "--context and --additional-context-file are the same option: give one";
    const std::string contextFile = p.get(kContext).empty() ? p.get(kContextFile) : p.get(kContext);
    if (!contextFile.empty() || !p.get(kContextInline).empty()) {
        auto context = collectors::loadMadengineContexts(contextFile, p.get(kContextInline), catalog);
        if (!context) return context.error().toString();
        if (!context->refusal.empty()) {
            refusal = context->refusal;
            return {};
        }
        for (const auto& m : context->messages) fmt::print(stderr, "strobe-cli {}: {}\n", name, m);
        // The job's own strobe-cli gets the tools by name: a wrapper made from the context exists only here.
        if (o.slurm && !context->adhocTools.empty())
            return "--slurm cannot run the context's ad-hoc wrapper '" + context->adhocTools.front().name +
                   "' inside the job yet: give it as the command's prefix instead";
        if (std::string e = collectors::applyContext(*context, o, catalog); !e.empty()) return e;
    }
    for (const auto& a : request->laterToolParams) {  // for a tool the context added
        const size_t dot = a.find('.'), eq = a.find('=');
        const std::string tool = a.substr(0, dot), key = a.substr(dot + 1, eq - dot - 1);
        auto use = std::find_if(o.tools.begin(), o.tools.end(), [&](const collectors::ToolUse& u) { return u.name == tool; });
        if (use == o.tools.end()) return fmt::format("--tool-param '{}': {} is not one of the --tool's", a, tool);
        use->values[key] = a.substr(eq + 1);
    }
    for (auto& use : o.tools)
        if (const auto* spec = catalog.find(use.name))
            for (auto& [k, v] : use.values) {
                const auto* ps = core::findSpec(spec->params, k);
                if (!ps) return fmt::format("tool {} has no parameter '{}'", use.name, k);
                auto c = core::coerceValue(*ps, v);
                if (!c) return c.error().message;
                v = *c;
            }
    return {};
}

void installStopSignals() {
    struct sigaction sa {};
    sa.sa_handler = onCollectSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    // A full disk or a file-size limit is an error to report (EFBIG/ENOSPC), not a signal that kills strobe-cli
    // before the manifest says what happened; the tools inherit this and fail their writes the same way.
    signal(SIGXFSZ, SIG_IGN);
}

// The session a --host launch started: its stdin is the link to the launching strobe-cli (collectors/remote.h).
// A write to the dropped connection is an error to ignore, not a SIGPIPE that kills the session before it stopped
// its workload; a hang-up cancels like SIGTERM.
void watchLink(std::atomic<int>& event, bool detach) {
    struct sigaction ignore {}, stop {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, nullptr);
    stop.sa_handler = detach ? SIG_IGN : onCollectSignal;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGHUP, &stop, nullptr);
    collectors::watchLauncherLink(g_signal, event, detach);
}

// collect --fetch: a remote run (left running by --detach) copied into --out.
int fetchRun(const ArgParser& p, const std::vector<std::string>& command) {
    if (!command.empty()) return usageError("collect", "--fetch takes no command");
    if (p.get(kHost).empty() || p.get(kOut).empty()) return usageError("collect", "--fetch needs --host, --remote-out and --out");
    collectors::SessionOptions o;
    o.outDir = p.get(kOut);
    o.remoteHost = p.get(kHost);
    o.remoteOutDir = p.get(kRemoteOut);
    o.sshArgs = p.get(kSshArg);
    const auto r = collectors::fetchRemoteRun(o, [](const std::string& line) { fmt::print(stderr, "strobe-cli collect: {}\n", line); });
    if (r.status == "refused") {
        fmt::print(stderr, "strobe-cli collect: refused: {}\n", r.reason);
        return r.exitCode;
    }
    fmt::print(stderr, "strobe-cli collect: {} ({} files) in {}\n", r.status, r.manifest.files.size(), o.outDir);
    return r.exitCode;
}

int runCollect(const std::vector<std::string>& all) {
    const auto [args, command] = splitCommand(all);
    std::vector<CliOption> options = sessionOptions();
    options.push_back(CliOption(kParam, '\0', true));
    options.push_back(kRepeat);
    options.push_back(kInSlurmJob);
    options.push_back(kRemoteSession);
    options.push_back(kFetch);
    ArgParser p("collect", options);
    if (!p.parse(args)) return usageError("collect", p.error());
    if (!p.positionals().empty())
        return usageError("collect", fmt::format("'{}': put the command after --", p.positionals().front()));
    if (p.get(kFetch)) return fetchRun(p, command);
    if (command.empty()) return usageError("collect", "no command: strobe-cli collect --out DIR -- COMMAND [ARGS...]");
    if (p.get(kOut).empty()) return usageError("collect", "--out DIR is required");
    collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    for (const auto& m : catalog.messages) fmt::print(stderr, "strobe-cli collect: {}\n", m);
    collectors::SessionOptions o;
    std::string refusal;
    const bool remoteSession = p.get(kRemoteSession);
    if (std::string e = applySessionOptions(p, command, false, catalog, o, "collect", refusal); !e.empty())
        return usageError("collect", e);
    if (std::string e = applyRemoteOptions(p, o, remoteSession); !e.empty()) return usageError("collect", e);
    if (std::string e = refusal.empty() ? addTelemetryTools(p, o) : refusal; !e.empty()) {
        fmt::print(stderr, "strobe-cli collect: refused: {}\n", e);
        return 125;
    }
    if (p.get(kRepeat) >= 0) o.repeat = static_cast<int>(p.get(kRepeat));
    for (const auto& kv : p.get(kParam)) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) return usageError("collect", fmt::format("--param '{}': expected KEY=VALUE", kv));
        o.parameters[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    o.inSlurmJob = p.get(kInSlurmJob);
    if (o.inSlurmJob && o.slurm) return usageError("collect", "--in-slurm-job and --slurm exclude each other");
    installStopSignals();
    static std::atomic<int> linkEvent{0};
    if (remoteSession) watchLink(linkEvent, o.detach);
    // fprintf, not fmt::print: a remote session's stderr is the ssh channel, and a write to a dropped one must not
    // throw out of the session before it stopped its workload and wrote its manifest.
    auto r = collectors::runSession(o, catalog, g_signal,
                                    [](const std::string& line) { std::fprintf(stderr, "strobe-cli collect: %s\n", line.c_str()); });
    if (remoteSession && r.status == "cancelled" && linkEvent.load() != 0) {
        const std::string why = collectors::linkCancelMessage(linkEvent.load(), g_signal.load());
        const auto st = core::markRunManifestCancelled(o.outDir, why);
        std::fprintf(stderr, "strobe-cli collect: %s\n", (st ? why : st.error().toString()).c_str());
    }
    try {  // the run's end is said; an error writing it (a dropped ssh channel) does not change its exit
        if (r.status == "refused") {
            fmt::print(stderr, "strobe-cli collect: refused: {}\n", r.reason);
            return r.exitCode;
        }
        printRunEnd("collect", r);
        fmt::print(stderr, "strobe-cli collect: {} ({} files) in {}\n", r.status, r.manifest.files.size(), o.outDir);
    } catch (const std::exception&) {
    }
    return r.exitCode;
}

int runTools(const std::vector<std::string>& args) {
    ArgParser p("tools", {kJsonFlag});
    if (!p.parse(args)) return usageError("tools", p.error());
    const collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    const std::map<std::string, std::string> builtins{{"out", "."},
                                                      {"strobe_cli", collectors::strobeCliPath()},
                                                      {"python_dir", "."},
                                                      {"resources", "."},
                                                      {"python", "python3"}};
    std::string rows;
    std::vector<std::string> text;
    for (const auto& t : catalog.tools) {
        auto vars = collectors::toolVariables(t, {}, builtins);
        const collectors::ToolProbe probe = vars ? collectors::probeTool(t, *vars) : collectors::ToolProbe{};
        std::string why = !vars ? vars.error().message : probe.message;
        if (!probe.available && why.empty()) why = "its probe failed";
        std::string params;
        for (const auto& s : t.params)
            params += (params.empty() ? "" : ", ") +
                      QJsonDocument(core::specToJson(s)).toJson(QJsonDocument::Compact).toStdString();
        rows += fmt::format("{}{{\"name\": {}, \"kind\": \"{}\", \"vendor\": \"{}\", \"available\": {}, \"version\": {}, "
                            "\"missing\": {}, \"description\": {}, \"params\": [{}]}}",
                            rows.empty() ? "\n  " : ",\n  ", jsonQuote(t.name), collectors::toString(t.kind), t.vendor,
                            probe.available ? "true" : "false",
                            probe.version.empty() ? "null" : jsonQuote(probe.version),
                            probe.available ? "null" : jsonQuote(why), jsonQuote(t.description), params);
        text.push_back(fmt::format("{:<16} {:<8} {:<7} {:<10} {}", t.name, collectors::toString(t.kind), t.vendor,
                                   probe.available ? (probe.version.empty() ? "yes" : probe.version) : "missing",
                                   t.description));
        if (!probe.available) text.push_back(fmt::format("{:<16} missing: {}", "", why));
    }
    const collectors::DeviceReport devices = collectors::probeDevices();
    if (p.get(kJsonFlag)) {
        std::string messages, gpus;
        for (const auto& m : catalog.messages) messages += (messages.empty() ? "" : ", ") + jsonQuote(m);
        for (const auto& g : devices.gpus)
            gpus += fmt::format("{}{{\"vendor\": {}, \"name\": {}, \"arch\": {}, \"source\": {}}}", gpus.empty() ? "" : ", ",
                                jsonQuote(g.vendor), jsonQuote(g.name), jsonQuote(g.arch), jsonQuote(g.source));
        fmt::print("{{\"schema\": 1, \"tools\": [{}], \"gpus\": [{}], \"gpu_message\": {}, \"messages\": [{}]}}\n",
                   rows.empty() ? "" : rows + "\n", gpus, devices.message.empty() ? "null" : jsonQuote(devices.message), messages);
        return kExitOk;
    }
    fmt::print("GPUs: {}\n", collectors::describeDevices(devices));
    fmt::print("{:<16} {:<8} {:<7} {:<10} {}\n", "tool", "kind", "vendor", "available", "what");
    for (const auto& l : text) fmt::print("{}\n", l);
    for (const auto& m : catalog.messages) fmt::print(stderr, "strobe-cli tools: {}\n", m);
    return kExitOk;
}

}  // namespace

core::Result<collectors::LaunchRequest> parseLaunchCommandLine(const std::vector<std::string>& argv) {
    const bool sweep = argv.size() >= 2 && argv[0] == "sweep" && argv[1] == "launch";
    if (!sweep && (argv.empty() || argv[0] != "collect"))
        return core::Error("expected 'collect ...' or 'sweep launch ...'");
    const auto [args, command] = splitCommand(std::vector<std::string>(argv.begin() + (sweep ? 2 : 1), argv.end()));
    std::vector<CliOption> options = sessionOptions();
    if (sweep) {
        options.push_back(CliOption(kGrid, '\0', true));
        options.push_back(kRepeats);
        options.push_back(kOrder);
    }
    ArgParser p(sweep ? "sweep" : "collect", options);
    if (!p.parse(args)) return core::Error(p.error());
    return collectors::launchRequestFromFlags(p.given(), command, sweep);
}

int runSweepLaunch(const std::vector<std::string>& all) {
    const auto [args, command] = splitCommand(all);
    std::vector<CliOption> options = sessionOptions();
    options.push_back(CliOption(kGrid, '\0', true));
    options.push_back(kRepeats);
    options.push_back(kOrder);
    ArgParser p("sweep", options);
    if (!p.parse(args)) return usageError("sweep", p.error());
    if (!p.positionals().empty())
        return usageError("sweep", fmt::format("launch: '{}': put the command after --", p.positionals().front()));
    if (command.empty()) return usageError("sweep", "launch: no command: ... --out DIR -- COMMAND [ARGS...]");
    if (p.get(kOut).empty()) return usageError("sweep", "launch needs --out DIR");
    if (p.get(kGrid).empty()) return usageError("sweep", "launch needs at least one --grid KEY=V1,V2,...");
    collectors::ToolCatalog catalog = collectors::loadToolCatalog();
    collectors::SessionOptions o;
    std::string refusal;
    std::vector<collectors::GridAxis> grid;
    if (std::string e = applySessionOptions(p, command, true, catalog, o, "sweep launch", refusal, &grid); !e.empty())
        return usageError("sweep", e);
    if (std::string e = applyRemoteOptions(p, o, false); !e.empty()) return usageError("sweep", e);
    if (std::string e = refusal.empty() ? addTelemetryTools(p, o) : refusal; !e.empty()) {
        fmt::print(stderr, "strobe-cli sweep launch: refused: {}\n", e);
        return 125;
    }
    installStopSignals();
    const auto r = collectors::launchSweep(o.outDir, grid, static_cast<int>(p.get(kRepeats)),
                                           p.get(kOrder) == "interleaved", o, catalog, g_signal,
                                           [](const std::string& line) { fmt::print(stderr, "strobe-cli sweep launch: {}\n", line); });
    if (!r.refusal.empty()) fmt::print(stderr, "strobe-cli sweep launch: refused: {}\n", r.refusal);
    fmt::print(stderr, "strobe-cli sweep launch: {} completed, {} skipped (completed before), {} failed, {} incomplete{}\n",
               r.completed, r.skipped, r.failed, r.incomplete, r.cancelled ? ", cancelled" : "");
    return r.exitCode;
}

namespace {

const CommandRegistrar kCollect({"collect", "run a workload under profilers and samplers into a run directory",
                                 kCollectHelp, runCollect});
const CommandRegistrar kTools({"tools", "list the profiling tools Strobe can run, and whether they are installed",
                               kToolsHelp, runTools});

}  // namespace

}  // namespace strobe::app
