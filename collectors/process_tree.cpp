#include "collectors/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace strobe::collectors {

using core::Error;
using core::Location;

namespace {

struct StatLine {
    pid_t pid = 0, ppid = 0, pgrp = 0;
    char state = '?';
    uint64_t start = 0;
};

// /proc/PID/stat: "pid (comm) state ppid ... starttime(22)"; comm may hold spaces and parentheses, so the fields
// are counted from the last ')'.
std::optional<StatLine> readStat(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(line.substr(close + 1));
    StatLine s;
    s.pid = pid;
    rest >> s.state >> s.ppid >> s.pgrp;
    std::string skip;
    for (int field = 6; field < 22 && rest; ++field) rest >> skip;  // fields 6..21
    rest >> s.start;
    if (!rest) return std::nullopt;
    return s;
}

std::vector<StatLine> allProcesses() {
    std::vector<StatLine> out;
    DIR* d = opendir("/proc");
    if (!d) return out;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || pid <= 0) continue;
        if (auto s = readStat(pid_t(pid))) out.push_back(*s);
    }
    closedir(d);
    return out;
}

bool aliveAs(pid_t pid, uint64_t start) {
    auto s = readStat(pid);
    return s && s->start == start && s->state != 'Z' && s->state != 'X';
}

// The program path execve() needs: argv0 itself when it names a path, else the first executable in PATH.
std::optional<std::string> resolveProgram(const std::string& argv0) {
    if (argv0.find('/') != std::string::npos) return argv0;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + argv0;
        struct stat st {};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

int openOutput(const std::string& path) {
    if (path.empty()) return open("/dev/null", O_WRONLY | O_CLOEXEC);
    return open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

ExitInfo exitOf(int status) {
    ExitInfo e;
    if (WIFSIGNALED(status)) {
        e.signalled = true;
        e.signal = WTERMSIG(status);
        e.status = 128 + e.signal;
    } else {
        e.status = WEXITSTATUS(status);
    }
    return e;
}

}  // namespace

void becomeChildSubreaper() {
    static const bool done = [] { return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0; }();
    (void)done;
}

std::optional<uint64_t> processStartTime(pid_t pid) {
    auto s = readStat(pid);
    if (!s || s->state == 'Z' || s->state == 'X') return std::nullopt;
    return s->start;
}

namespace {

// The descendants of `roots` (roots excluded) in one snapshot of the process table.
std::map<pid_t, uint64_t> descendantsIn(const std::vector<StatLine>& all, std::vector<pid_t> todo) {
    std::multimap<pid_t, const StatLine*> children;
    for (const auto& s : all) children.emplace(s.ppid, &s);
    std::map<pid_t, uint64_t> out;
    while (!todo.empty()) {
        const pid_t p = todo.back();
        todo.pop_back();
        auto [b, e] = children.equal_range(p);
        for (auto it = b; it != e; ++it)
            if (out.emplace(it->second->pid, it->second->start).second) todo.push_back(it->second->pid);
    }
    return out;
}

// Whether /proc/PID/environ holds `key`=... with `token` among its space-separated words.
bool environHasToken(pid_t pid, const std::string& key, const std::string& token) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    const std::string prefix = key + "=";
    for (std::string kv; std::getline(in, kv, '\0');) {
        if (kv.compare(0, prefix.size(), prefix) != 0) continue;
        std::istringstream words(kv.substr(prefix.size()));
        for (std::string w; words >> w;)
            if (w == token) return true;
    }
    return false;
}

}  // namespace

std::map<pid_t, uint64_t> descendantsOf(pid_t root) {
    return descendantsIn(allProcesses(), {root});
}

core::Result<std::unique_ptr<ProcessTree>> ProcessTree::start(const ProcessSpec& spec) {
    if (spec.argv.empty() || spec.argv.front().empty()) return Error("no command to run");
    const std::string& argv0 = spec.argv.front();
    const auto program = resolveProgram(argv0);
    if (!program) return Error(Location{argv0}, fmt::format("command not found: {}", argv0));
    becomeChildSubreaper();

    // Everything the child needs is prepared here: after fork() in a threaded process only async-signal-safe
    // calls are allowed (no setenv, no malloc).
    // The tree's token, appended to any the environment already carries (a session inside a session): a process
    // re-parented here after its parent died is claimed by the tree whose token it inherited.
    static std::atomic<unsigned> serial{0};
    const std::string token = fmt::format("{}.{}", getpid(), ++serial);
    std::string tokens = token;
    std::vector<std::string> envStrings;
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const std::string key = kv.substr(0, kv.find('='));
        if (key == kTreeTokenVariable)
            tokens = kv.substr(key.size() + 1) + " " + token;
        else if (spec.env.count(key) == 0)
            envStrings.push_back(kv);
    }
    for (const auto& [k, v] : spec.env)
        if (!v.empty() && k != kTreeTokenVariable) envStrings.push_back(k + "=" + v);
    envStrings.push_back(std::string(kTreeTokenVariable) + "=" + tokens);
    std::vector<char*> envp, argv;
    for (auto& s : envStrings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = spec.argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    const int out = openOutput(spec.stdoutPath);
    if (out < 0) return Error(Location{spec.stdoutPath}, fmt::format("cannot open for the output: {}", std::strerror(errno)));
    const int err = spec.stderrPath == spec.stdoutPath ? dup(out) : openOutput(spec.stderrPath);
    if (err < 0) {
        close(out);
        return Error(Location{spec.stderrPath}, fmt::format("cannot open for the output: {}", std::strerror(errno)));
    }
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        close(out), close(err), close(in);
        return Error(fmt::format("pipe: {}", std::strerror(errno)));
    }
    const char* dir = spec.workDir.empty() ? nullptr : spec.workDir.c_str();
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        signal(SIGPIPE, SIG_DFL);
        dup2(in, 0), dup2(out, 1), dup2(err, 2);
        int code = 0;
        if (dir && chdir(dir) != 0) code = errno;
        if (code == 0) {
            execve(program->c_str(), argv.data(), envp.data());
            code = errno;
        }
        (void)!write(report[1], &code, sizeof code);
        _exit(127);
    }
    const int forkErrno = errno;
    close(report[1]);
    close(out), close(err), close(in);
    if (pid < 0) {
        close(report[0]);
        return Error(Location{argv0}, fmt::format("cannot start: {}", std::strerror(forkErrno)));
    }
    setpgid(pid, pid);  // also here: whichever runs first, the group exists before anyone signals it
    int code = 0;
    ssize_t got;
    do got = read(report[0], &code, sizeof code);
    while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == sizeof code) {
        int status = 0;
        waitpid(pid, &status, 0);
        if (dir && code != 0 && access(dir, F_OK) != 0)
            return Error(Location{spec.workDir}, fmt::format("cannot enter the working directory: {}", std::strerror(code)));
        return Error(Location{*program}, fmt::format("cannot run {}: {}", argv0, std::strerror(code)));
    }
    auto tree = std::unique_ptr<ProcessTree>(new ProcessTree());
    tree->m_pid = pid;
    tree->m_token = token;
    if (auto s = readStat(pid)) tree->m_members.emplace(pid, s->start);
    return tree;
}

ProcessTree::~ProcessTree() {
    if (m_pid > 0 && (!m_exit || !members().empty())) cancel(std::chrono::milliseconds(500));
}

void ProcessTree::record() {
    // The command's descendants, and those of every member still alive (members orphaned out of the command's
    // subtree are re-parented to this process, which is the subreaper).
    // A member whose parent died between two snapshots is re-parented to this process before it was ever seen:
    // children of this process that carry the tree's token are members too.
    const auto all = allProcesses();
    const pid_t self = getpid();
    std::vector<pid_t> roots{m_pid};
    for (const auto& [p, start] : m_members)
        if (p != m_pid && aliveAs(p, start)) roots.push_back(p);
    for (const auto& s : all)
        if (s.ppid == self && s.pid != m_pid && s.state != 'Z' && !m_members.count(s.pid) &&
            environHasToken(s.pid, kTreeTokenVariable, m_token)) {
            m_members.emplace(s.pid, s.start);
            roots.push_back(s.pid);
        }
    for (const auto& [p, start] : descendantsIn(all, roots)) m_members.emplace(p, start);
}

void ProcessTree::reapOrphans() {
    for (const auto& [p, start] : m_members) {
        if (p == m_pid) continue;
        (void)start;
        int status = 0;
        waitpid(p, &status, WNOHANG);  // ECHILD for members that are not (or no longer) this process' children
    }
    // A member forked after the last record() and killed by the group signal is an orphan re-parented here and
    // never recorded: reap every zombie child of this process still in the command's process group.
    const pid_t self = getpid();
    for (const auto& s : allProcesses())
        if (s.ppid == self && s.state == 'Z' && s.pgrp == m_pid && s.pid != m_pid) {
            int status = 0;
            waitpid(s.pid, &status, WNOHANG);
        }
}

// A killed member whose parent is a member too (a workload's child when the workload is a nested session's command,
// in a process group of its own) becomes a zombie of that parent first and is re-parented here only when that parent
// has died: until then it is no longer a live member, yet it is not reaped either. True while a member is such a
// zombie, or a zombie of this process not yet reaped.
bool ProcessTree::zombiesToReap() {
    const pid_t self = getpid();
    for (const auto& [p, start] : m_members) {
        if (p == m_pid) continue;
        const auto s = readStat(p);
        if (s && s->start == start && s->state == 'Z' && (s->ppid == self || m_members.count(s->ppid))) return true;
    }
    return false;
}

bool ProcessTree::poll() {
    if (m_pid <= 0) return false;
    if (!m_exit) record();
    if (!m_exit) {
        int status = 0;
        const pid_t r = waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid) m_exit = exitOf(status);
    }
    reapOrphans();
    return !m_exit.has_value();
}

std::optional<ExitInfo> ProcessTree::wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (poll()) {
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return m_exit;
}

std::vector<pid_t> ProcessTree::members() {
    poll();
    record();
    std::vector<pid_t> out;
    for (const auto& [p, start] : m_members)
        if (aliveAs(p, start)) out.push_back(p);
    return out;
}

std::vector<pid_t> ProcessTree::cancel(std::chrono::milliseconds grace) {
    if (m_pid <= 0) return {};
    auto signalAll = [&](int sig) {
        record();
        if (!m_exit) kill(-m_pid, sig);
        for (const auto& [p, start] : m_members)
            if (aliveAs(p, start)) kill(p, sig);
    };
    auto waitGone = [&](std::chrono::milliseconds within) {
        const auto deadline = std::chrono::steady_clock::now() + within;
        for (;;) {
            poll();
            // Gone: no member left, and the command itself reaped (a killed command can be a zombie, no longer a
            // member, for a moment before waitpid sees it).
            if (members().empty() && m_exit && !zombiesToReap()) return true;
            if (std::chrono::steady_clock::now() >= deadline) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    };
    signalAll(SIGTERM);
    if (waitGone(grace)) return {};
    signalAll(SIGKILL);
    // A member forked between the snapshot and the kill is found on the next pass.
    for (int pass = 0; pass < 100; ++pass) {
        if (waitGone(std::chrono::milliseconds(20))) return {};
        signalAll(SIGKILL);
    }
    return members();
}

core::Result<CapturedRun> runCaptured(ProcessSpec spec, std::chrono::milliseconds timeout) {
    char outName[] = "/tmp/strobe-run-out-XXXXXX";
    char errName[] = "/tmp/strobe-run-err-XXXXXX";
    const int outFd = mkstemp(outName);
    if (outFd < 0) return Error(fmt::format("cannot create a temporary file for {}'s output", spec.argv.empty() ? "?" : spec.argv.front()));
    ::close(outFd);
    const int errFd = mkstemp(errName);
    if (errFd < 0) {
        ::unlink(outName);
        return Error(fmt::format("cannot create a temporary file for {}'s output", spec.argv.empty() ? "?" : spec.argv.front()));
    }
    ::close(errFd);
    spec.stdoutPath = outName;
    spec.stderrPath = errName;
    auto slurp = [](const char* path) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        ::unlink(path);
        return text.str();
    };
    auto tree = ProcessTree::start(spec);
    if (!tree) {
        slurp(outName);
        slurp(errName);
        return tree.error();
    }
    CapturedRun r;
    r.exit = (*tree)->wait(timeout);
    if (!r.exit) (*tree)->cancel(std::chrono::milliseconds(500));
    r.out = slurp(outName);
    r.err = slurp(errName);
    return r;
}

}  // namespace strobe::collectors
