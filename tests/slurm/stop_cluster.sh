#!/usr/bin/env bash
# Stops the one-node cluster that start_cluster.sh started in STATE_DIR (default as there): SIGTERM to slurmd,
# slurmctld and munged by their pid files, SIGKILL to what is still alive after 10 s. Exit 0 once none of them
# runs (a zombie left for its parent to reap counts as stopped), 1 when one survives SIGKILL.
#   tests/slurm/stop_cluster.sh [STATE_DIR]
set -uo pipefail

DIR="${1:-${STROBE_SLURM_DIR:-/tmp/strobe-slurm-$(id -u)}}"
[[ -d "$DIR" ]] || exit 0

alive() {
    local state
    state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
    [[ -n "$state" && "$state" != Z ]]
}

# The pid file's process, when it is still the daemon it names (its command line holds the daemon's name).
daemon_pid() {
    local pid
    pid="$(cat "$DIR/run/$1.pid" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    alive "$pid" || return 1
    local cmd  # not `tr | grep -q`: under pipefail, tr's SIGPIPE when grep quits early would read as "not ours"
    cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    [[ "$cmd" == *"$1"* ]] || return 1
    echo "$pid"
}

rc=0
for d in slurmd slurmctld munged; do  # the node first, then the controller, then authentication
    pid="$(daemon_pid "$d")" || continue
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 100); do
        alive "$pid" || break
        sleep 0.1
    done
    if alive "$pid"; then
        kill -KILL "$pid" 2>/dev/null
        sleep 0.5
        if alive "$pid"; then
            echo "stop_cluster.sh: $d (pid $pid) survived SIGKILL" >&2
            rc=1
        fi
    fi
    rm -f "$DIR/run/$d.pid"
done
exit "$rc"
