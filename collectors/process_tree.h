#pragma once
// ProcessTree: one command started for a profiling session (argv only, never a shell string), with every process it
// starts. The command runs in its own process group; descendants that leave the group (setsid(), as launchers and
// MPI daemons do) are still found, because this process is a child subreaper (PR_SET_CHILD_SUBREAPER: orphans are
// re-parented here rather than to init), the tree's members are recorded while they live, and an orphan re-parented
// here before it was seen is claimed by the token it inherited in its environment (kTreeTokenVariable). Cancel = SIGTERM to the
// group and to every recorded member, SIGKILL to what is left after the grace period, then the re-parented members
// are reaped: no orphan is ever left behind, whatever the command ignores.
//
// Linux only (the /proc walk and prctl). Not thread-safe: one owner drives it (the session's thread).

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io/error.h"

namespace strobe::collectors {

struct ProcessSpec {
    std::vector<std::string> argv;               // argv[0] is looked up in PATH when it has no '/'
    std::map<std::string, std::string> env;      // set on top of this process' environment ("" value: unset)
    std::string workDir;                          // empty: this process' working directory
    std::string stdoutPath, stderrPath;           // empty: discarded; the same path twice: both into one file
};

// How a process ended, as a shell reports it: the exit code, or 128 + the signal that killed it.
struct ExitInfo {
    int status = 0;
    bool signalled = false;
    int signal = 0;
};

class ProcessTree {
public:
    ~ProcessTree();  // cancels with a short grace period when still running
    ProcessTree(const ProcessTree&) = delete;
    ProcessTree& operator=(const ProcessTree&) = delete;

    // Starts spec.argv. An Error names the command when it cannot be found (exit 127 in a shell) or run (126), or
    // the file that cannot be opened for its output.
    static core::Result<std::unique_ptr<ProcessTree>> start(const ProcessSpec& spec);

    pid_t pid() const { return m_pid; }
    // Records the tree's current members and reaps the command when it has ended; false once it has.
    bool poll();
    // Waits up to `timeout` for the command to end (polling the tree meanwhile); its exit, or nullopt on timeout.
    std::optional<ExitInfo> wait(std::chrono::milliseconds timeout);
    std::optional<ExitInfo> exitInfo() const { return m_exit; }
    // The live members: the command (while running) and every descendant seen, in or out of its process group.
    std::vector<pid_t> members();
    // SIGTERM to the group and every member, SIGKILL after `grace` to whatever is still alive, then reaps. Returns
    // once no member is left (or after grace + 2 s, reporting the survivors, which should never happen).
    std::vector<pid_t> cancel(std::chrono::milliseconds grace);

private:
    ProcessTree() = default;
    void record();
    void reapOrphans();
    bool zombiesToReap();

    pid_t m_pid = -1;
    std::string m_token;  // this tree's word in kTreeTokenVariable
    std::optional<ExitInfo> m_exit;
    std::map<pid_t, uint64_t> m_members;  // pid → start time (clock ticks since boot): a reused pid is not ours
};

// A short command run to its end with its output captured (a tool's probe, a Slurm client command): stdout and
// stderr apart (spec's stdoutPath/stderrPath are ignored). `exit` is empty when it did not end within `timeout`
// (it is cancelled then). An Error when it cannot start (not found, not executable) or no temporary file can be made.
struct CapturedRun {
    std::optional<ExitInfo> exit;
    std::string out, err;
};
core::Result<CapturedRun> runCaptured(ProcessSpec spec, std::chrono::milliseconds timeout);

// Every process a tree starts inherits this variable holding the tree's token (after those of enclosing trees):
// how an orphan re-parented to this process is told apart from another tree's.
inline constexpr const char* kTreeTokenVariable = "STROBE_PROCESS_TREE";

// Makes this process a child subreaper (once; idempotent). ProcessTree::start calls it.
void becomeChildSubreaper();

// Every process on the machine whose ancestry reaches `root` (root excluded), from /proc, with its start time.
std::map<pid_t, uint64_t> descendantsOf(pid_t root);
// A process' start time (field 22 of /proc/PID/stat), nullopt when it does not exist (or is a reaped zombie).
std::optional<uint64_t> processStartTime(pid_t pid);

}  // namespace strobe::collectors
