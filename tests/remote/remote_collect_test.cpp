// strobe-cli collect --host and sweep launch --host against a real sshd (issue 24). Each test process starts its
// own sshd (Debian's openssh-server) on 127.0.0.1 from a config it writes in a temporary directory: a free port,
// host and user keys made with ssh-keygen, UsePAM no, StrictModes no, root login by key only, its own PidFile; it
// is stopped by its process id at the end. The client gets its own ssh config (--ssh-arg=-F...): the generated
// IdentityFile, a known_hosts file in the temporary directory, StrictHostKeyChecking=accept-new, so ~/.ssh is never
// read or written. The remote strobe-cli is this build's own (--remote-strobe-cli), and the remote run directory
// lies in the temporary directory too (--remote-out): the test sees both sides.
// Without /usr/sbin/sshd the tests skip, saying why; under CI=true they fail instead.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collectors/process_tree.h"
#include "collectors/remote.h"
#include "tests/leftover_processes.h"
#include "tests/test_paths.h"

using namespace strobe;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

extern char** environ;

namespace {

std::string remoteReadAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void remoteWrite(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

bool remoteCi() {
    const char* v = std::getenv("CI");
    return v && std::string(v) == "true";
}

// Runs argv to its end (stdin /dev/null, output into `log`); its exit status.
int remoteSpawnWait(const std::vector<std::string>& argv, const fs::path& log) {
    collectors::ProcessSpec ps;
    ps.argv = argv;
    auto r = collectors::runCaptured(ps, 60s);
    if (!r) return 127;
    remoteWrite(log, r->out + r->err);
    return r->exit ? r->exit->status : 124;
}

int freePort() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(s);
    return ntohs(a.sin_port);
}

bool portOpen(int port) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    return ok;
}

struct Sshd {
    bool tried = false, up = false;
    std::string error;
    fs::path root;
    int port = 0;
    pid_t pid = -1;
    fs::path clientConfig, badKeyConfig;
};
Sshd g_sshd;

// ssh-keygen, the configs, then sshd -D as a direct child; waits until it accepts connections.
void startSshd() {
    collectors::becomeChildSubreaper();  // what the sessions leave (should they) comes back here, to be seen
    char tmpl[] = "/tmp/strobe-sshd-test-XXXXXX";
    if (!mkdtemp(tmpl)) {
        g_sshd.error = "cannot create a temporary directory";
        return;
    }
    g_sshd.root = tmpl;
    const fs::path& d = g_sshd.root;
    for (const char* key : {"host_key", "user_key", "other_key"})
        if (const int rc = remoteSpawnWait({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", (d / key).string()},
                                           d / "keygen.log");
            rc != 0) {
            g_sshd.error = "ssh-keygen exited " + std::to_string(rc) + ": " + remoteReadAll(d / "keygen.log");
            return;
        }
    fs::copy_file(d / "user_key.pub", d / "authorized_keys");
    g_sshd.port = freePort();
    remoteWrite(d / "sshd_config", "Port " + std::to_string(g_sshd.port) +
                                       "\nListenAddress 127.0.0.1\nHostKey " + (d / "host_key").string() +
                                       "\nPidFile " + (d / "sshd.pid").string() + "\nAuthorizedKeysFile " +
                                       (d / "authorized_keys").string() +
                                       "\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
                                       "PasswordAuthentication no\nKbdInteractiveAuthentication no\n");
    auto client = [&](const char* key) {
        return "Host *\n  IdentityFile " + (d / key).string() + "\n  IdentitiesOnly yes\n  UserKnownHostsFile " +
               (d / "known_hosts").string() + "\n  StrictHostKeyChecking accept-new\n  LogLevel ERROR\n";
    };
    g_sshd.clientConfig = d / "ssh_config";
    g_sshd.badKeyConfig = d / "ssh_config_other_key";
    remoteWrite(g_sshd.clientConfig, client("user_key"));
    remoteWrite(g_sshd.badKeyConfig, client("other_key"));
    std::error_code ec;
    fs::create_directories("/run/sshd", ec);  // sshd's privilege separation directory
    const std::string cfg = (d / "sshd_config").string(), log = (d / "sshd.log").string();
    std::vector<std::string> argv{"/usr/sbin/sshd", "-D", "-f", cfg, "-E", log};
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (posix_spawn(&g_sshd.pid, args[0], &fa, nullptr, args.data(), environ) != 0) g_sshd.pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    if (g_sshd.pid < 0) {
        g_sshd.error = "/usr/sbin/sshd did not start";
        return;
    }
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!portOpen(g_sshd.port) && std::chrono::steady_clock::now() < deadline) {
        int st = 0;
        if (waitpid(g_sshd.pid, &st, WNOHANG) == g_sshd.pid) {
            g_sshd.error = "sshd exited: " + remoteReadAll(log);
            g_sshd.pid = -1;
            return;
        }
        std::this_thread::sleep_for(50ms);
    }
    g_sshd.up = portOpen(g_sshd.port);
    if (!g_sshd.up) g_sshd.error = "sshd does not accept connections within 20 s: " + remoteReadAll(log);
}

void ensureSshd() {
    if (g_sshd.tried) return;
    g_sshd.tried = true;
    if (!fs::exists("/usr/sbin/sshd")) {
        g_sshd.error = "/usr/sbin/sshd is absent (Debian: apt-get install openssh-server; .ci/setup installs it)";
        return;
    }
    startSshd();
}

class SshdEnvironment : public testing::Environment {
public:
    void TearDown() override {
        if (g_sshd.pid > 0) {
            ::kill(g_sshd.pid, SIGTERM);
            int st = 0;
            waitpid(g_sshd.pid, &st, 0);
        }
        std::error_code ec;
        if (!g_sshd.root.empty()) fs::remove_all(g_sshd.root, ec);
    }
};
testing::Environment* const g_sshdEnv = testing::AddGlobalTestEnvironment(new SshdEnvironment);

#define REQUIRE_SSHD()                                                                                                 \
    do {                                                                                                               \
        ensureSshd();                                                                                                  \
        if (!g_sshd.up) {                                                                                              \
            if (remoteCi()) FAIL() << "CI=true but sshd did not start: " << g_sshd.error;                              \
            GTEST_SKIP() << "no sshd for the remote launch tests: " << g_sshd.error;                                   \
        }                                                                                                              \
    } while (0)

// What is left of the runs: every process below this one but the sshd listener, after reaping what came back
// here; waits up to `limit` for it to be nothing.
std::string remoteLeftovers(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        int st = 0;
        while (waitpid(-1, &st, WNOHANG) > 0) {
        }
        std::string left;
        std::istringstream all(test::leftoverProcesses());
        for (std::string l; std::getline(all, l);)
            if (!l.starts_with(std::to_string(g_sshd.pid) + " ")) left += l + "\n";
        if (left.empty() || std::chrono::steady_clock::now() > deadline) return left;
        std::this_thread::sleep_for(100ms);
    }
}

struct RemoteRun {
    fs::path dir;
    std::unique_ptr<collectors::ProcessTree> tree;
    ~RemoteRun() {
        tree.reset();
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
    std::string log() const { return remoteReadAll(dir / "cli.log"); }
};

// strobe-cli ARGS with @DIR@ replaced by a fresh temporary directory, output (both streams) into DIR/cli.log.
std::unique_ptr<RemoteRun> startRemoteCli(std::vector<std::string> args) {
    auto r = std::make_unique<RemoteRun>();
    char tmpl[] = "/tmp/strobe-remote-run-XXXXXX";
    r->dir = mkdtemp(tmpl);
    for (auto& a : args)
        for (size_t at; (at = a.find("@DIR@")) != std::string::npos;) a.replace(at, 5, r->dir.string());
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH};
    ps.argv.insert(ps.argv.end(), args.begin(), args.end());
    ps.workDir = r->dir.string();
    ps.stdoutPath = ps.stderrPath = (r->dir / "cli.log").string();
    auto t = collectors::ProcessTree::start(ps);
    EXPECT_TRUE(t.ok());
    if (t.ok()) r->tree = std::move(*t);
    return r;
}

std::string hostArg() { return "root@127.0.0.1:" + std::to_string(g_sshd.port); }

// collect --host ... with the test's ssh config and remote paths, then the session's own options and command.
std::vector<std::string> collectArgs(const std::vector<std::string>& more, const std::string& config = {}) {
    std::vector<std::string> a{"collect", "--host", hostArg(), "--ssh-arg=-F" + (config.empty() ? g_sshd.clientConfig.string() : config),
                               "--remote-strobe-cli", STROBE_CLI_PATH, "--remote-out", "@DIR@/remote", "--out", "@DIR@/local",
                               "--grace-ms", "2000"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

bool hasMessage(const YAML::Node& m, const std::string& part) {
    for (const auto& x : m["messages"])
        if (x.as<std::string>().find(part) != std::string::npos) return true;
    return false;
}

void waitForText(const RemoteRun& run, const fs::path& file, const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (remoteReadAll(file).find(text) == std::string::npos && std::chrono::steady_clock::now() < deadline &&
           run.tree->poll())
        std::this_thread::sleep_for(50ms);
}

}  // namespace

TEST(RemoteTarget, ParsesUserHostAndPort) {
    std::string e;
    auto t = collectors::parseRemoteTarget("alice@gpu-node:2222", e);
    ASSERT_TRUE(t) << e;
    EXPECT_EQ(t->user, "alice");
    EXPECT_EQ(t->host, "gpu-node");
    EXPECT_EQ(t->port, 2222);
    EXPECT_EQ(t->destination(), "alice@gpu-node");
    t = collectors::parseRemoteTarget("[::1]:22", e);
    ASSERT_TRUE(t) << e;
    EXPECT_EQ(t->host, "::1");
    EXPECT_EQ(t->port, 22);
    t = collectors::parseRemoteTarget("node7", e);
    ASSERT_TRUE(t) << e;
    EXPECT_EQ(t->port, 0);
    EXPECT_FALSE(collectors::parseRemoteTarget("node:99999", e));
    EXPECT_NE(e.find("'99999' is not a number from 1 to 65535"), std::string::npos) << e;
    EXPECT_FALSE(collectors::parseRemoteTarget("-oProxyCommand=x", e));
    const auto argv = collectors::sshArgv(*collectors::parseRemoteTarget("u@h:7", e), {"-F", "cfg"}, {"echo", "a b"});
    const std::vector<std::string> tail(argv.end() - 5, argv.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"-F", "cfg", "--", "u@h", "echo 'a b'"}));
}

// The session runs over ssh, its output streams back, the run directory is copied back and opens.
TEST(RemoteCollect, RunsOverSshStreamsAndCopiesBack) {
    REQUIRE_SSHD();
    auto run = startRemoteCli(collectArgs({"--tool", "cpu-sampler", "--", "/bin/sh", "-c", "echo hello from remote; sleep 1"}));
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(180s);
    ASSERT_TRUE(exit.has_value()) << run->log();
    EXPECT_EQ(exit->status, 0) << run->log();
    EXPECT_NE(run->log().find("hello from remote"), std::string::npos) << run->log();  // streamed to stdout
    const fs::path local = run->dir / "local";
    EXPECT_EQ(remoteReadAll(local / "workload.log"), "hello from remote\n");
    EXPECT_EQ(remoteReadAll(local / "workload.log"), remoteReadAll(run->dir / "remote" / "workload.log"));
    EXPECT_TRUE(fs::exists(local / "cpu.csv"));
    const YAML::Node m = YAML::LoadFile((local / "manifest.yaml").string());
    EXPECT_EQ(m["status"].as<std::string>(), "completed");
    EXPECT_TRUE(hasMessage(m, "remote: ran on " + hostArg() + " over ssh")) << remoteReadAll(local / "manifest.yaml");
    EXPECT_TRUE(hasMessage(m, "remote: copied back to " + local.string()));
    EXPECT_NE(run->log().find("completed (2 files) in " + local.string()), std::string::npos) << run->log();
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "summary", "--no-cache", local.string()};
    auto s = collectors::runCaptured(ps, 120s);
    ASSERT_TRUE(s && s->exit);
    EXPECT_EQ(s->exit->status, 0) << s->err;
    EXPECT_NE(s->out.find("status          completed"), std::string::npos) << s->out;
    const std::string left = remoteLeftovers(30s);
    EXPECT_TRUE(left.empty()) << left;
}

// SIGINT to the local strobe-cli: relayed, the remote session stops its workload and tools, both manifests say
// cancelled, strobe-cli exits 130, nothing of the run is left.
TEST(RemoteCollect, SigintCancelsTheRemoteSession) {
    REQUIRE_SSHD();
    auto run = startRemoteCli(collectArgs({"--tool", "cpu-sampler", "--", "/bin/sh", "-c", "echo started; sleep 300"}));
    ASSERT_TRUE(run->tree);
    waitForText(*run, run->dir / "remote" / "workload.log", "started");
    ASSERT_NE(remoteReadAll(run->dir / "remote" / "workload.log").find("started"), std::string::npos) << run->log();
    // The run's processes are below this one (sshd is its child): the check at the end can fail.
    EXPECT_NE(remoteLeftovers(0s).find("sleep 300"), std::string::npos) << remoteLeftovers(0s);
    ::kill(run->tree->pid(), SIGINT);
    const auto exit = run->tree->wait(180s);
    ASSERT_TRUE(exit.has_value()) << run->log();
    EXPECT_EQ(exit->status, 130) << run->log();
    const YAML::Node remote = YAML::LoadFile((run->dir / "remote" / "manifest.yaml").string());
    EXPECT_EQ(remote["status"].as<std::string>(), "cancelled");
    EXPECT_TRUE(hasMessage(remote, "cancelled from the launching host (signal 2"));
    const YAML::Node local = YAML::LoadFile((run->dir / "local" / "manifest.yaml").string());
    EXPECT_EQ(local["status"].as<std::string>(), "cancelled");
    EXPECT_TRUE(hasMessage(local, "remote: cancelled from here (signal 2"));
    const std::string left = remoteLeftovers(60s);
    EXPECT_TRUE(left.empty()) << left;
}

// SIGKILL to the local strobe-cli: nobody relays anything, but the link closes; the remote session sees its stdin
// end, cancels itself, and says so; nothing of the run is left.
TEST(RemoteCollect, SigkillToTheLocalCliCancelsTheRemoteSession) {
    REQUIRE_SSHD();
    auto run = startRemoteCli(collectArgs({"--tool", "cpu-sampler", "--", "/bin/sh", "-c", "echo started; sleep 300"}));
    ASSERT_TRUE(run->tree);
    const fs::path remoteDir = run->dir / "remote";
    waitForText(*run, remoteDir / "workload.log", "started");
    ASSERT_NE(remoteReadAll(remoteDir / "workload.log").find("started"), std::string::npos) << run->log();
    // The run's processes are below this one (sshd is its child): the check at the end can fail.
    EXPECT_NE(remoteLeftovers(0s).find("sleep 300"), std::string::npos) << remoteLeftovers(0s);
    ::kill(run->tree->pid(), SIGKILL);
    const auto exit = run->tree->wait(30s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 128 + SIGKILL);
    const std::string left = remoteLeftovers(90s);
    EXPECT_TRUE(left.empty()) << left;
    const YAML::Node remote = YAML::LoadFile((remoteDir / "manifest.yaml").string());
    EXPECT_EQ(remote["status"].as<std::string>(), "cancelled") << remoteReadAll(remoteDir / "manifest.yaml");
    EXPECT_TRUE(hasMessage(remote, "the link to the launching strobe-cli closed"));
}

// The refusals before anything starts: 125, a message naming host, path and what was found, no run directory.
TEST(RemoteCollect, RefusedWhenTheHostCannotBeReached) {
    REQUIRE_SSHD();
    std::vector<std::string> a = collectArgs({"--", "/bin/true"});
    const std::string closed = "root@127.0.0.1:" + std::to_string(freePort());
    a[2] = closed;
    auto run = startRemoteCli(a);
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(120s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 125) << run->log();
    EXPECT_NE(run->log().find("refused: --host " + closed + ": `" + std::string(STROBE_CLI_PATH) +
                              " --version` over ssh: cannot reach or log in to " + closed),
              std::string::npos)
        << run->log();
    EXPECT_NE(run->log().find("Connection refused"), std::string::npos) << run->log();
    EXPECT_FALSE(fs::exists(run->dir / "local"));
    EXPECT_FALSE(fs::exists(run->dir / "remote"));
}

TEST(RemoteCollect, RefusedWithAKeyTheHostDoesNotAccept) {
    REQUIRE_SSHD();
    auto run = startRemoteCli(collectArgs({"--", "/bin/true"}, g_sshd.badKeyConfig.string()));
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(120s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 125) << run->log();
    EXPECT_NE(run->log().find("cannot reach or log in to " + hostArg()), std::string::npos) << run->log();
    EXPECT_NE(run->log().find("Permission denied (publickey)"), std::string::npos) << run->log();
    EXPECT_FALSE(fs::exists(run->dir / "local"));
}

TEST(RemoteCollect, RefusedWhenTheRemoteStrobeCliIsMissingOrAnother) {
    REQUIRE_SSHD();
    std::vector<std::string> a = collectArgs({"--", "/bin/true"});
    a[5] = "/nonexistent/strobe-cli";
    auto run = startRemoteCli(a);
    ASSERT_TRUE(run->tree);
    auto exit = run->tree->wait(120s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 125) << run->log();
    EXPECT_NE(run->log().find("/nonexistent/strobe-cli is not found on " + hostArg()), std::string::npos) << run->log();
    EXPECT_FALSE(fs::exists(run->dir / "local"));
    // Another version: a strobe-cli that answers 0.0.1.
    const fs::path fake = g_sshd.root / "old-strobe-cli";
    remoteWrite(fake, "#!/bin/sh\necho strobe-cli 0.0.1\n");
    fs::permissions(fake, fs::perms::owner_all);
    a[5] = fake.string();
    auto old = startRemoteCli(a);
    ASSERT_TRUE(old->tree);
    exit = old->tree->wait(120s);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->status, 125) << old->log();
    EXPECT_NE(old->log().find("found 'strobe-cli 0.0.1' but this is 'strobe-cli " STROBE_VERSION "'"), std::string::npos)
        << old->log();
    EXPECT_FALSE(fs::exists(old->dir / "local"));
}

// The Profile dialog's remote probes: the host's own `strobe-cli tools --json`, after the same preflight.
TEST(RemoteTools, TheHostsOwnProbesComeBackAsItsToolsDocument) {
    REQUIRE_SSHD();
    std::string e;
    const auto target = collectors::parseRemoteTarget(hostArg(), e);
    ASSERT_TRUE(target) << e;
    const std::vector<std::string> ssh{"-F", g_sshd.clientConfig.string()};
    auto doc = collectors::remoteToolsJson(*target, ssh, STROBE_CLI_PATH, "strobe-cli " STROBE_VERSION);
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    // The same document this machine's strobe-cli prints (the "remote" is this machine): every tool, in order.
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "tools", "--json"};
    const auto local = collectors::runCaptured(ps, std::chrono::seconds(60));
    ASSERT_TRUE(local.ok() && local->exit && local->exit->status == 0);
    EXPECT_EQ(*doc, local->out);
    EXPECT_NE(doc->find("\"name\": \"cpu-sampler\", \"kind\": \"sidecar\""), std::string::npos) << *doc;
    // A missing remote strobe-cli: the preflight's refusal, naming the path.
    auto missing = collectors::remoteToolsJson(*target, ssh, "/nonexistent/strobe-cli", "strobe-cli " STROBE_VERSION);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/strobe-cli is not found"), std::string::npos)
        << missing.error().message;
}

// sweep launch --host: every run goes over ssh and comes back into the local sweep directory.
TEST(RemoteSweep, EachRunRunsRemotelyAndComesBack) {
    REQUIRE_SSHD();
    auto run = startRemoteCli({"sweep", "launch", "--host", hostArg(), "--ssh-arg=-F" + g_sshd.clientConfig.string(),
                               "--remote-strobe-cli", STROBE_CLI_PATH, "--remote-out", "@DIR@/remote", "--grid", "X=1,2",
                               "--out", "@DIR@/sweep", "--", "/bin/sh", "-c", "echo X={X} env $X"});
    ASSERT_TRUE(run->tree);
    const auto exit = run->tree->wait(300s);
    ASSERT_TRUE(exit.has_value()) << run->log();
    EXPECT_EQ(exit->status, 0) << run->log();
    for (const std::string x : {"1", "2"}) {
        const fs::path dir = run->dir / "sweep" / ("X=" + x) / "rep0";
        EXPECT_EQ(remoteReadAll(dir / "workload.log"), "X=" + x + " env " + x + "\n") << run->log();
        EXPECT_TRUE(fs::exists(run->dir / "remote" / ("X=" + x) / "rep0" / "workload.log"));
        const YAML::Node m = YAML::LoadFile((dir / "manifest.yaml").string());
        EXPECT_EQ(m["status"].as<std::string>(), "completed");
        EXPECT_EQ(m["parameters"]["X"].as<std::string>(), x);
        EXPECT_TRUE(hasMessage(m, "remote: ran on " + hostArg()));
    }
    const std::string left = remoteLeftovers(30s);
    EXPECT_TRUE(left.empty()) << left;
}

namespace {

// The local ssh client's pid, from strobe-cli's "started on HOST: ... (ssh pid N)" line.
pid_t sshPidOf(const RemoteRun& run) {
    const std::string log = run.log();
    const size_t at = log.find("(ssh pid ");
    return at == std::string::npos ? -1 : std::atoi(log.c_str() + at + 9);
}

}  // namespace

// The connection drops (the local ssh client is killed): the remote session cancels itself, the local side fetches
// what it left, says "connection lost" and exits 255.
TEST(RemoteCollect, ALostConnectionCancelsTheRemoteRunAndSaysSo) {
    REQUIRE_SSHD();
    auto run = startRemoteCli(collectArgs({"--", "/bin/sh", "-c", "echo started; sleep 300"}));
    ASSERT_TRUE(run->tree);
    waitForText(*run, run->dir / "remote" / "workload.log", "started");
    const pid_t ssh = sshPidOf(*run);
    ASSERT_GT(ssh, 0) << run->log();
    ::kill(ssh, SIGKILL);
    const auto exit = run->tree->wait(180s);
    ASSERT_TRUE(exit.has_value()) << run->log();
    EXPECT_EQ(exit->status, 255) << run->log();
    const YAML::Node local = YAML::LoadFile((run->dir / "local" / "manifest.yaml").string());
    EXPECT_EQ(local["status"].as<std::string>(), "cancelled") << run->log();
    EXPECT_TRUE(hasMessage(local, "remote: connection lost"));
    EXPECT_TRUE(hasMessage(local, "the link to the launching strobe-cli closed"));  // the remote session's word
    const std::string left = remoteLeftovers(60s);
    EXPECT_TRUE(left.empty()) << left;
}

// --detach: the connection drops, the remote run goes on to its end; the local manifest says so and how to fetch.
TEST(RemoteCollect, DetachedRunOutlivesALostConnection) {
    REQUIRE_SSHD();
    auto run = startRemoteCli(collectArgs({"--detach", "--", "/bin/sh", "-c", "echo started; sleep 2; echo finished"}));
    ASSERT_TRUE(run->tree);
    waitForText(*run, run->dir / "remote" / "workload.log", "started");
    const pid_t ssh = sshPidOf(*run);
    ASSERT_GT(ssh, 0) << run->log();
    ::kill(ssh, SIGKILL);
    const auto exit = run->tree->wait(60s);
    ASSERT_TRUE(exit.has_value()) << run->log();
    EXPECT_EQ(exit->status, 255) << run->log();
    const YAML::Node local = YAML::LoadFile((run->dir / "local" / "manifest.yaml").string());
    EXPECT_EQ(local["status"].as<std::string>(), "running");
    EXPECT_TRUE(hasMessage(local, "--detach: the run continues on " + hostArg()));
    EXPECT_TRUE(hasMessage(local, "tar -C " + (run->dir / "remote").string() + " -cf - ."));
    // The remote session finishes on its own.
    const std::string left = remoteLeftovers(60s);
    EXPECT_TRUE(left.empty()) << left;
    const YAML::Node remote = YAML::LoadFile((run->dir / "remote" / "manifest.yaml").string());
    EXPECT_EQ(remote["status"].as<std::string>(), "completed");
    EXPECT_EQ(remoteReadAll(run->dir / "remote" / "workload.log"), "started\nfinished\n");
    EXPECT_TRUE(hasMessage(local, "--remote-out " + (run->dir / "remote").string() + " --out " + (run->dir / "local").string() + " --fetch"));
    // Fetched later, into a new directory: the remote run as it ended.
    collectors::ProcessSpec ps;
    ps.argv = {STROBE_CLI_PATH, "collect", "--host", hostArg(), "--ssh-arg=-F" + g_sshd.clientConfig.string(), "--remote-out",
               (run->dir / "remote").string(), "--out", (run->dir / "fetched").string(), "--fetch"};
    const auto fetched = collectors::runCaptured(ps, 120s);
    ASSERT_TRUE(fetched && fetched->exit);
    EXPECT_EQ(fetched->exit->status, 0) << fetched->err;
    const YAML::Node got = YAML::LoadFile((run->dir / "fetched" / "manifest.yaml").string());
    EXPECT_EQ(got["status"].as<std::string>(), "completed");
    EXPECT_TRUE(hasMessage(got, "remote: fetched from root@127.0.0.1:" + (run->dir / "remote").string()));
    EXPECT_EQ(remoteReadAll(run->dir / "fetched" / "workload.log"), "started\nfinished\n");
}
