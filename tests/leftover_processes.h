#pragma once
// The processes a test leaves behind under this test process — live ones and zombies nobody reaped (a test process
// that started a ProcessTree is the child subreaper of everything below it) — one line each with its pid, state and
// command line, so that a failure names what was left. Empty when nothing is.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "collectors/process_tree.h"

namespace strobe::test {

inline std::string leftoverProcesses() {
    std::string out;
    for (const auto& [pid, start] : collectors::descendantsOf(getpid())) {
        (void)start;
        const std::string proc = "/proc/" + std::to_string(pid);
        std::ifstream statFile(proc + "/stat"), cmdFile(proc + "/cmdline");
        std::string stat, cmd;
        std::getline(statFile, stat);
        std::getline(cmdFile, cmd, '\1');
        for (char& c : cmd)
            if (c == '\0') c = ' ';
        // "pid (comm) state ppid ...": keep up to the parent's pid.
        const size_t close = stat.rfind(')');
        std::string head = stat;
        if (close != std::string::npos) {
            std::istringstream rest(stat.substr(close + 1));
            std::string state, ppid;
            rest >> state >> ppid;
            head = stat.substr(0, close + 1) + " state " + state + " parent " + ppid;
        }
        out += head + " :: " + cmd + "\n";
    }
    return out;
}

}  // namespace strobe::test
