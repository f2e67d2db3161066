#include "collectors/remote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "collectors/manifest.h"
#include "collectors/process_tree.h"
#include "collectors/slurm.h"

namespace strobe::collectors {

namespace fs = std::filesystem;

std::string RemoteTarget::display() const {
    const std::string h = host.find(':') != std::string::npos && port ? "[" + host + "]" : host;
    return (user.empty() ? "" : user + "@") + h + (port ? fmt::format(":{}", port) : "");
}

std::optional<RemoteTarget> parseRemoteTarget(const std::string& text, std::string& error) {
    RemoteTarget t;
    std::string rest = text;
    if (const size_t at = rest.rfind('@'); at != std::string::npos) {
        t.user = rest.substr(0, at);
        rest = rest.substr(at + 1);
    }
    std::string port;
    bool hasPort = false;
    if (rest.starts_with("[")) {  // [v6]:port
        const size_t close = rest.find(']');
        if (close == std::string::npos || (close + 1 < rest.size() && rest[close + 1] != ':')) {
            error = fmt::format("--host '{}': expected [ADDRESS] or [ADDRESS]:PORT", text);
            return std::nullopt;
        }
        t.host = rest.substr(1, close - 1);
        hasPort = close + 1 < rest.size();
        if (hasPort) port = rest.substr(close + 2);
    } else if (const size_t colon = rest.find(':'); colon != std::string::npos && rest.find(':', colon + 1) == std::string::npos) {
        t.host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
        hasPort = true;
    } else {
        t.host = rest;  // a name, or an IPv6 address without a port
    }
    if (hasPort) {
        const bool digits = !port.empty() && port.size() <= 5 &&
                            std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); });
        const int p = digits ? std::stoi(port) : 0;
        if (p < 1 || p > 65535) {
            error = fmt::format("--host '{}': the port '{}' is not a number from 1 to 65535", text, port);
            return std::nullopt;
        }
        t.port = p;
    }
    if (t.host.empty() || t.host.starts_with("-") || (t.user.empty() && text.find('@') != std::string::npos) ||
        t.host.find_first_of(" \t/") != std::string::npos) {
        error = fmt::format("--host '{}': expected [USER@]HOST[:PORT]", text);
        return std::nullopt;
    }
    return t;
}

std::vector<std::string> sshArgv(const RemoteTarget& target, const std::vector<std::string>& sshArgs,
                                 const std::vector<std::string>& remoteCommand) {
    // -T: no terminal (the link is a pipe); BatchMode: never a password or passphrase prompt; the keep-alives end
    // a dead connection within about 15 s.
    std::vector<std::string> a{"ssh", "-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15",
                               "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"};
    if (target.port) a.insert(a.end(), {"-p", std::to_string(target.port)});
    a.insert(a.end(), sshArgs.begin(), sshArgs.end());
    std::string command;
    for (const auto& w : remoteCommand) command += (command.empty() ? "" : " ") + shellQuote(w);
    a.insert(a.end(), {"--", target.destination(), command});
    return a;
}

namespace {

std::string trimmed(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
}

// The text's last non-empty line, for a message.
std::string lastLine(const std::string& text) {
    std::string t = trimmed(text);
    const size_t nl = t.rfind('\n');
    return nl == std::string::npos ? t : trimmed(t.substr(nl + 1));
}

std::string firstLine(const std::string& text) {
    const std::string t = trimmed(text);
    return t.substr(0, t.find('\n'));
}

}  // namespace

std::string remotePreflight(const RemoteTarget& target, const std::vector<std::string>& sshArgs,
                            const std::string& strobeCli, const std::string& localVersion) {
    ProcessSpec ps;
    ps.argv = sshArgv(target, sshArgs, {strobeCli, "--version"});
    const auto r = runCaptured(ps, std::chrono::seconds(60));
    const std::string where = fmt::format("--host {}: `{} --version` over ssh", target.display(), strobeCli);
    if (!r) return fmt::format("{}: ssh did not start: {} (is OpenSSH's client installed?)", where, r.error().message);
    if (!r->exit) return fmt::format("{}: no answer within 60 s; nothing was started", where);
    const int code = r->exit->status;
    const std::string err = lastLine(r->err);
    if (code == 255)
        return fmt::format("{}: cannot reach or log in to {} (ssh exited 255: {}); ssh runs with BatchMode=yes, so a "
                           "key (agent, ~/.ssh/config, --ssh-arg=-i...) must let it in without a prompt; nothing "
                           "was started",
                           where, target.display(), err.empty() ? "no message" : err);
    if (code == 127 || code == 126)
        return fmt::format("{}: {} {} on {} ({}); give its path with --remote-strobe-cli PATH; nothing was started",
                           where, strobeCli, code == 127 ? "is not found" : "cannot be run", target.display(),
                           err.empty() ? fmt::format("exit {}", code) : err);
    // The version line (a remote shell start-up file may print lines of its own before it).
    std::string found = firstLine(r->out);
    for (size_t at = r->out.find("strobe-cli "); at != std::string::npos; at = r->out.find("strobe-cli ", at + 1))
        if (at == 0 || r->out[at - 1] == '\n') found = firstLine(r->out.substr(at));
    if (code != 0)
        return fmt::format("{}: exited {} ({}); nothing was started", where, code, err.empty() ? found : err);
    if (found != localVersion)
        return fmt::format("{}: found '{}' but this is '{}': install the same version there (or point "
                           "--remote-strobe-cli at it); nothing was started",
                           where, found.empty() ? std::string("no version line") : found, localVersion);
    return {};
}

core::Result<std::string> remoteToolsJson(const RemoteTarget& target, const std::vector<std::string>& sshArgs,
                                          const std::string& strobeCli, const std::string& localVersion) {
    if (std::string refused = remotePreflight(target, sshArgs, strobeCli, localVersion); !refused.empty())
        return core::Error(refused);
    ProcessSpec ps;
    ps.argv = sshArgv(target, sshArgs, {strobeCli, "tools", "--json"});
    const auto r = runCaptured(ps, std::chrono::seconds(120));
    const std::string where = fmt::format("--host {}: `{} tools --json` over ssh", target.display(), strobeCli);
    if (!r) return core::Error(fmt::format("{}: ssh did not start: {}", where, r.error().message));
    if (!r->exit) return core::Error(fmt::format("{}: no answer within 120 s", where));
    if (r->exit->status != 0)
        return core::Error(fmt::format("{}: exited {} ({})", where, r->exit->status, lastLine(r->err)));
    // A remote shell's start-up file may print before the document: it starts at the first line that opens one.
    const size_t at = r->out.find("{\"schema\"");
    if (at == std::string::npos) return core::Error(fmt::format("{}: no tools document in its output", where));
    return r->out.substr(at);
}

void watchLauncherLink(std::atomic<int>& stopSignal, std::atomic<int>& event, bool detach) {
    std::thread([&stopSignal, &event, detach] {
        std::string line;
        for (;;) {
            char c = 0;
            const ssize_t n = ::read(0, &c, 1);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                if (!detach && stopSignal.load() == 0) {
                    event.store(kLinkLost);
                    stopSignal.store(SIGHUP);
                }
                return;
            }
            if (c != '\n') {
                line += c;
                continue;
            }
            if (line.starts_with("cancel ")) {
                const int sig = std::atoi(line.c_str() + 7);
                if (stopSignal.load() == 0) event.store(kLinkCancelled);
                stopSignal.store(sig > 0 && sig < 65 ? sig : SIGTERM);
            }
            line.clear();
        }
    }).detach();
}

std::string linkCancelMessage(int event, int signal) {
    if (event == kLinkLost)
        return "the link to the launching strobe-cli closed (it was killed, or the connection dropped): the workload "
               "and its tools were stopped";
    if (event == kLinkCancelled)
        return fmt::format("cancelled from the launching host (signal {} to its strobe-cli, relayed over ssh)", signal);
    return {};
}

namespace {

struct Link {
    pid_t pid = -1;
    int in = -1, out = -1, err = -1;
};

// Starts argv (looked up in PATH) in a process group of its own, its stdin, stdout and stderr pipes to here.
std::optional<Link> startLink(const std::vector<std::string>& argv, std::string& error) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        error = fmt::format("pipe: {}", std::strerror(errno));
        return std::nullopt;
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);
        signal(SIGPIPE, SIG_DFL);
        execvp(args[0], args.data());
        _exit(127);
    }
    ::close(in[0]), ::close(out[1]), ::close(err[1]);
    if (pid < 0) {
        error = fmt::format("fork: {}", std::strerror(errno));
        ::close(in[1]), ::close(out[0]), ::close(err[0]);
        return std::nullopt;
    }
    return Link{pid, in[1], out[0], err[0]};
}

struct LinkEnd {
    ExitInfo exit;
    int cancelledBy = 0;  // the local stop signal relayed to the remote session
    bool forced = false;  // ssh did not end after the cancel and was killed
};

// Streams the link until ssh ends: stdout to `output`, stderr lines to `line`; a stop request is relayed as
// "cancel N" and the link closed.
LinkEnd runLink(Link& l, const SessionOptions& o, const std::atomic<int>& stopSignal,
                const std::function<void(const std::string&)>& line) {
    LinkEnd end;
    std::string errText;
    auto deadline = std::chrono::steady_clock::time_point::max();
    int killStage = 0;
    std::optional<int> status;
    char buf[1 << 16];
    while (l.out >= 0 || l.err >= 0 || !status) {
        pollfd fds[2] = {{l.out, POLLIN, 0}, {l.err, POLLIN, 0}};
        ::poll(fds, 2, 50);
        for (int i = 0; i < 2; ++i) {
            int& fd = i == 0 ? l.out : l.err;
            if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                ::close(fd);
                fd = -1;
                continue;
            }
            if (i == 0 && o.output) o.output(std::string_view(buf, size_t(n)));
            if (i == 1) errText.append(buf, size_t(n));
        }
        for (size_t nl; (nl = errText.find('\n')) != std::string::npos; errText.erase(0, nl + 1)) line(errText.substr(0, nl));
        if (const int sig = stopSignal.load(); sig != 0 && !end.cancelledBy) {
            end.cancelledBy = sig;
            if (l.in >= 0) {
                const std::string msg = fmt::format("cancel {}\n", sig);
                [[maybe_unused]] const ssize_t w = ::write(l.in, msg.data(), msg.size());
                ::close(l.in);
                l.in = -1;
            }
            deadline = std::chrono::steady_clock::now() + o.grace + std::chrono::seconds(30);
        }
        if (!status) {
            int st = 0;
            if (::waitpid(l.pid, &st, WNOHANG) == l.pid) {
                status = st;
                // What is still buffered in the pipes comes next; a grandchild holding them open is not waited for.
                deadline = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(2));
            }
        }
        if (std::chrono::steady_clock::now() > deadline) {
            if (status) break;
            ::kill(l.pid, killStage == 0 ? SIGTERM : SIGKILL);
            end.forced = true;
            deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            ++killStage;
        }
    }
    if (!errText.empty()) line(errText);
    for (int* fd : {&l.in, &l.out, &l.err})
        if (*fd >= 0) ::close(*fd), *fd = -1;
    const int st = status.value_or(0);
    end.exit.signalled = WIFSIGNALED(st);
    end.exit.signal = end.exit.signalled ? WTERMSIG(st) : 0;
    end.exit.status = end.exit.signalled ? 128 + end.exit.signal : WEXITSTATUS(st);
    return end;
}

// Copies the remote run directory's contents into `local` (tar over ssh, through a temporary tar file there);
// "" or what went wrong.
std::string fetchRunDirectory(const RemoteTarget& t, const std::vector<std::string>& sshArgs, const std::string& remoteDir,
                              const fs::path& local) {
    std::error_code ec;
    fs::create_directories(local, ec);
    const fs::path tarFile = local / ".strobe-remote.tar", errFile = local / ".strobe-remote.err";
    ProcessSpec ps;
    ps.argv = sshArgv(t, sshArgs, {"tar", "-C", remoteDir, "-cf", "-", "."});
    ps.stdoutPath = tarFile.string();
    ps.stderrPath = errFile.string();
    std::string why;
    if (auto tree = ProcessTree::start(ps); !tree) {
        why = tree.error().message;
    } else if (auto e = (*tree)->wait(std::chrono::hours(2)); !e || e->status != 0) {
        std::ifstream in(errFile);
        const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        why = fmt::format("ssh ... tar -C {} -cf - . {}: {}", remoteDir, e ? fmt::format("exited {}", e->status) : "took over 2 h",
                          lastLine(err).empty() ? "no message" : lastLine(err));
    } else {
        ProcessSpec x;
        x.argv = {"tar", "-C", local.string(), "-xf", tarFile.string()};
        const auto r = runCaptured(x, std::chrono::minutes(30));
        if (!r || !r->exit || r->exit->status != 0)
            why = fmt::format("tar -xf into {}: {}", local.string(), r ? lastLine(r->err) : r.error().message);
    }
    fs::remove(tarFile, ec);
    fs::remove(errFile, ec);
    return why;
}

std::string defaultRemoteDir(const SessionOptions& o) {
    static std::atomic<int> counter{0};
    std::string name = o.runName.empty() ? fs::path(o.outDir).filename().string() : o.runName;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("._=,+-").find(c) == std::string_view::npos) c = '_';
    std::string when = utcNow();
    std::erase_if(when, [](char c) { return c == ':' || c == '-'; });
    return fmt::format("strobe-runs/{}-{}-{}-{}", name.empty() ? "run" : name, when, ::getpid(), counter++);
}

// The local manifest when nothing (or no manifest) came back: what is known here.
RunManifest localManifest(const SessionOptions& o, const RemoteTarget& t, const std::string& start) {
    RunManifest m;
    m.command = o.command;
    m.parameters = core::typedParameters(o.parameters);
    m.repeat = o.repeat;
    m.envDiff = o.env;
    for (const auto& use : o.tools) m.tools.push_back({use.name, "", {}});
    m.host = t.host;
    m.start = start;
    return m;
}

}  // namespace

SessionResult fetchRemoteRun(const SessionOptions& o, const std::function<void(const std::string&)>& log) {
    SessionResult r;
    r.status = "refused";
    r.exitCode = 125;
    const auto target = parseRemoteTarget(o.remoteHost, r.reason);
    if (!target) return r;
    if (o.remoteOutDir.empty()) {
        r.reason = "--fetch needs --remote-out DIR (the remote run directory; a detached run's message names it)";
        return r;
    }
    std::error_code ec;
    const fs::path local = fs::absolute(o.outDir, ec);
    if (fs::exists(local, ec) && (!fs::is_directory(local, ec) || fs::directory_iterator(local, ec) != fs::directory_iterator())) {
        r.reason = fmt::format("{}: the output directory is not empty (fetch into a new one)", local.string());
        return r;
    }
    const bool existed = fs::exists(local, ec);
    if (std::string why = fetchRunDirectory(*target, o.sshArgs, o.remoteOutDir, local); !why.empty()) {
        if (!existed) fs::remove_all(local, ec);
        r.reason = why;
        return r;
    }
    auto m = core::readRunManifest(local.string());
    if (!m) {
        r.reason = fmt::format("{}:{} holds no run manifest: {}", target->display(), o.remoteOutDir, m.error().toString());
        return r;
    }
    m->messages.push_back(fmt::format("remote: fetched from {}:{} into {} at {}", target->destination(), o.remoteOutDir,
                                      local.string(), utcNow()));
    if (auto st = core::writeRunManifest(local.string(), *m); !st && log) log(st.error().toString());
    r.manifest = *m;
    r.status = core::toString(m->status);
    r.reason.clear();
    r.exitCode = m->status == RunStatus::Completed ? 0 : m->status == RunStatus::Incomplete ? kIncompleteExit
               : m->exitSignal ? 128 + *m->exitSignal : std::max(1, m->exitCode.value_or(1));
    if (log) log(fmt::format("fetched {}:{} ({})", target->display(), o.remoteOutDir, r.status));
    return r;
}

SessionResult runRemoteSession(const SessionOptions& o, const ToolCatalog& catalog, const std::atomic<int>& stopSignal,
                               const std::function<void(const std::string&)>& logFn) {
    auto log = [&](const std::string& s) {
        if (logFn) logFn(s);
    };
    SessionResult r;
    auto refuse = [&](std::string why) {
        r.status = "refused";
        r.exitCode = 125;
        r.reason = std::move(why);
        return r;
    };
    std::string error;
    const auto target = parseRemoteTarget(o.remoteHost, error);
    if (!target) return refuse(error);
    if (o.slurm) return refuse("--host and --slurm cannot be combined yet (run --slurm on the login node itself)");
    for (const auto& use : o.tools)
        if (!catalog.find(use.name)) return refuse(fmt::format("unknown tool '{}' (strobe-cli tools lists them)", use.name));
    std::error_code ec;
    const fs::path local = fs::absolute(o.outDir, ec);
    if (fs::exists(local, ec) && (!fs::is_directory(local, ec) || fs::directory_iterator(local, ec) != fs::directory_iterator()))
        return refuse(fmt::format("{}: the output directory is not empty (each run gets a directory of its own)", local.string()));
    const std::string cli = o.remoteStrobeCli.empty() ? "strobe-cli" : o.remoteStrobeCli;
    log(fmt::format("checking {} on {} (ssh, BatchMode)", cli, target->display()));
    if (std::string why = remotePreflight(*target, o.sshArgs, cli, std::string("strobe-cli ") + STROBE_VERSION); !why.empty())
        return refuse(why);
    const bool existed = fs::exists(local, ec);
    fs::create_directories(local, ec);
    if (ec) return refuse(fmt::format("{}: cannot create the output directory: {}", local.string(), ec.message()));

    const std::string remoteDir = o.remoteOutDir.empty() ? defaultRemoteDir(o) : o.remoteOutDir;
    std::vector<std::string> flags{"--remote-session"};
    flags.insert(flags.end(), o.remoteFlags.begin(), o.remoteFlags.end());
    if (o.detach) flags.push_back("--detach");
    if (!o.output) flags.push_back("--quiet");
    const auto argv = sshArgv(*target, o.sshArgs, collectCommandLine(o, catalog, remoteDir, cli, flags));
    const std::string start = utcNow();
    auto link = startLink(argv, error);
    if (!link) {
        if (!existed) fs::remove_all(local, ec);
        return refuse(fmt::format("ssh did not start: {}", error));
    }
    log(fmt::format("started on {}: {} collect ... --out {} (ssh pid {})", target->display(), cli, remoteDir, link->pid));
    // A write to a closed link must not kill strobe-cli: SIGPIPE is ignored while the link lives.
    struct sigaction ignore {}, previous {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &previous);
    const LinkEnd end = runLink(*link, o, stopSignal, [&](const std::string& l) { log(target->display() + ": " + l); });
    sigaction(SIGPIPE, &previous, nullptr);

    const bool lost = !end.cancelledBy && (end.exit.status == 255 || end.exit.signalled);
    std::string fetchHint = fmt::format("strobe-cli collect --host {} --remote-out {} --out {} --fetch", target->display(),
                                        shellQuote(remoteDir), shellQuote(local.string()));
    for (const auto& a : o.sshArgs) fetchHint += " --ssh-arg=" + shellQuote(a);
    fetchHint += fmt::format(" (or: ssh {} tar -C {} -cf - . | tar -C {} -xf -)", target->destination(),
                             shellQuote(remoteDir), shellQuote(local.string()));
    std::vector<std::string> notes{fmt::format("remote: ran on {} over ssh ({}), run directory {}:{}", target->display(),
                                               cli, target->destination(), remoteDir)};
    if (end.cancelledBy)
        notes.push_back(fmt::format("remote: cancelled from here (signal {} to the local strobe-cli), relayed to the "
                                    "remote session, which stopped its workload and tools{}",
                                    end.cancelledBy, end.forced ? "; ssh did not end in time and was killed" : ""));
    if (lost && o.detach)
        notes.push_back(fmt::format("remote: connection lost (ssh exited {}); --detach: the run continues on {}; "
                                    "fetch it when it ends with: {}",
                                    end.exit.status, target->display(), fetchHint));
    else if (lost)
        notes.push_back(fmt::format("remote: connection lost (ssh exited {}); the remote session cancels itself when "
                                    "its link closes",
                                    end.exit.status));
    std::string fetched = "not fetched (detached)";
    if (!(lost && o.detach)) {
        // After a lost link the remote session is still stopping: fetch until its manifest has ended.
        const auto until = std::chrono::steady_clock::now() + (lost ? o.grace + std::chrono::seconds(30) : std::chrono::seconds(0));
        for (;;) {
            fetched = fetchRunDirectory(*target, o.sshArgs, remoteDir, local);
            auto m = core::readRunManifest(local.string());
            if (!lost || (fetched.empty() && m && m->status != RunStatus::Running) || std::chrono::steady_clock::now() > until) break;
            std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        if (fetched.empty()) notes.push_back(fmt::format("remote: copied back to {}", local.string()));
        else notes.push_back(fmt::format("remote: the run directory could not be copied back: {}; try: {}", fetched, fetchHint));
    }
    auto copied = core::readRunManifest(local.string());
    RunManifest m = copied ? *copied : localManifest(o, *target, start);
    if (!copied) {
        m.status = end.cancelledBy || lost ? (o.detach && lost ? RunStatus::Running : RunStatus::Cancelled) : RunStatus::Failed;
        if (m.status != RunStatus::Running) m.end = utcNow();
        if (m.status == RunStatus::Failed) m.statusReason = fmt::format("ssh exited {} and no manifest came back", end.exit.status);
    }
    for (const auto& n : notes) {
        m.messages.push_back(n);
        log(n);
    }
    if (auto st = core::writeRunManifest(local.string(), m); !st) log(st.error().toString());
    r.manifest = m;
    r.status = core::toString(m.status);
    r.exitCode = lost ? 255 : end.cancelledBy && m.status == RunStatus::Cancelled ? 128 + end.cancelledBy : end.exit.status;
    return r;
}

}  // namespace strobe::collectors
