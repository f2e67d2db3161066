#pragma once
// Remote launch over the system's OpenSSH client (issue 24): the same session (collectors/session.h) runs on another
// machine, the one with the GPUs, started there by its own strobe-cli, with its output streamed back live and its
// run directory copied back here. SessionOptions::remoteHost selects it; runSession dispatches here.
//
// The launch, in order:
//  1. Preflight, before anything starts on either side: `ssh -T -o BatchMode=yes [-p PORT] [sshArgs] [USER@]HOST
//     -- STROBE_CLI --version` (BatchMode: ssh never asks for a password; the user's keys, agent and ~/.ssh/config
//     apply). An unreachable host, an authentication failure, a strobe-cli that is not found or cannot run there, or
//     one of another version is refused (125) with a message naming the host, the path and what was found.
//  2. The session: `ssh -T ... -- STROBE_CLI collect --remote-session --out REMOTE_DIR [same tools and options] --
//     COMMAND`. Its stdout (the workload's output) goes to SessionOptions::output, its stderr (the remote
//     strobe-cli's own lines) to the log, each line prefixed with the host. ssh runs in a process group of its own
//     (a terminal's Ctrl-C reaches strobe-cli, which relays it) with a pipe on its stdin: the link to the session.
//     The remote session reads that stdin: "cancel N\n" cancels it as signal N would (workload, then tools, manifest
//     status: cancelled, exit 128 + N); end of file (the local strobe-cli was killed, the connection dropped) cancels
//     it too, as "connection lost" (exit 129), unless it runs detached (--detach), when it carries on to its end.
//  3. Copy back: `ssh ... -- tar -C REMOTE_DIR -cf - .` into the local run directory (rsync is not assumed). The
//     local manifest is the remote one with messages saying where it ran (host, remote directory) and how it ended
//     there (completed, cancelled from here, connection lost, detached). When nothing can be copied back, the local
//     manifest is written here, saying so.
//
// A local cancel (the stop signal) sends "cancel N" and closes the link; should ssh not end within the grace period
// plus 30 s, it gets SIGTERM, then SIGKILL.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collectors/session.h"

namespace strobe::collectors {

struct RemoteTarget {
    std::string user;  // "" : ssh's default (~/.ssh/config, the local user)
    std::string host;
    int port = 0;      // 0: ssh's default
    std::string destination() const { return user.empty() ? host : user + "@" + host; }
    std::string display() const;  // [USER@]HOST[:PORT] as given
};

// "[USER@]HOST[:PORT]" (a bracketed IPv6 address with a port: [::1]:2222); nullopt with `error` when malformed.
std::optional<RemoteTarget> parseRemoteTarget(const std::string& text, std::string& error);

// The ssh argv that runs `remoteCommand` (each argument quoted for the remote shell) on the target.
std::vector<std::string> sshArgv(const RemoteTarget& target, const std::vector<std::string>& sshArgs,
                                 const std::vector<std::string>& remoteCommand);

// Step 1: "" when the remote strobe-cli answers `--version` with `localVersion`'s line, else the refusal.
std::string remotePreflight(const RemoteTarget& target, const std::vector<std::string>& sshArgs,
                            const std::string& strobeCli, const std::string& localVersion);

// The host's own tool probes, for the Profile dialog: the preflight above, then `STROBE_CLI tools --json` over ssh;
// its document as it came ({"schema": 1, "tools": [{"name", "available", "version", "missing", ...}]}), or the
// refusal (the preflight's message, or what ssh or the remote strobe-cli said).
core::Result<std::string> remoteToolsJson(const RemoteTarget& target, const std::vector<std::string>& sshArgs,
                                          const std::string& strobeCli, const std::string& localVersion);

// SessionOptions::remoteHost: the whole launch above. Refused (125) when the target is malformed, the local run
// directory is not empty or not writable, a tool is unknown, or the preflight fails.
SessionResult runRemoteSession(const SessionOptions& options, const ToolCatalog& catalog,
                               const std::atomic<int>& stopSignal,
                               const std::function<void(const std::string&)>& log = {});

// strobe-cli collect --host HOST --remote-out REMOTE_DIR --out DIR --fetch: copies a remote run (one left running by
// --detach, once it ended, or one whose copy back failed) into DIR, a new or empty directory, adding a message to
// its manifest. Refused (125) when DIR is not empty or nothing can be copied; the manifest's status is the remote
// run's (running: it has not ended yet; fetch again later).
SessionResult fetchRemoteRun(const SessionOptions& options, const std::function<void(const std::string&)>& log = {});

// The remote side (strobe-cli collect --remote-session): a thread that reads stdin, the link to the launching
// strobe-cli. "cancel N" stores N in `stopSignal` and kLinkCancelled in `event`; end of file stores SIGHUP and
// kLinkLost, unless `detach`. The thread is detached (it may stay blocked in read until the process exits).
inline constexpr int kLinkCancelled = 1, kLinkLost = 2;
void watchLauncherLink(std::atomic<int>& stopSignal, std::atomic<int>& event, bool detach);
// What the remote session's manifest says of a cancel that came over the link (kLinkCancelled, kLinkLost), or "".
std::string linkCancelMessage(int event, int signal);

}  // namespace strobe::collectors
