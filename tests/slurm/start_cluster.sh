#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for the tests (issue 10, "Past one machine"): its own munged
# (own key and socket), slurmctld and slurmd, every file under STATE_DIR. Needs Debian 12's munge, slurmctld,
# slurmd and slurm-client (22.05) and root (SlurmUser=root, as in a CI container). No systemd and no cgroups are
# needed: proctrack/linuxproc, task/none.
#
#   tests/slurm/start_cluster.sh [STATE_DIR]    start (or find running) the cluster; prints SLURM_CONF=<path>
#   tests/slurm/stop_cluster.sh  [STATE_DIR]    stop it (every daemon, by its pid file)
#
# STATE_DIR defaults to $STROBE_SLURM_DIR, else /tmp/strobe-slurm-<uid>. Idempotent: when the three daemons of
# STATE_DIR are alive and the node answers, nothing is restarted. Then use the cluster with
#   export SLURM_CONF=<STATE_DIR>/slurm.conf; sbatch ...; srun ...
# The ports are picked free on each start, so two clusters (two state dirs) can run side by side. Works without
# a terminal (CI=true, no stdin). On failure: exit 1 with the reason and the tails of the daemons' logs.
set -Eeuo pipefail

DIR="${1:-${STROBE_SLURM_DIR:-/tmp/strobe-slurm-$(id -u)}}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEADLINE_S="${STROBE_SLURM_START_TIMEOUT:-60}"

fail() {
    echo "start_cluster.sh: error: $*" >&2
    for f in "$DIR/log/munged.log" "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" "$DIR/log/daemons.out"; do
        if [[ -s "$f" ]]; then
            echo "---- tail of $f" >&2
            tail -n 15 "$f" >&2
        fi
    done
    # Nothing half-started is left behind.
    if [[ -d "$DIR/run" ]]; then "$HERE/stop_cluster.sh" "$DIR" >/dev/null 2>&1 || true; fi
    exit 1
}

for tool in munged mungekey slurmctld slurmd sinfo scontrol; do
    command -v "$tool" >/dev/null 2>&1 || [[ -x "/usr/sbin/$tool" ]] ||
        fail "$tool not found (Debian: apt-get install munge slurmctld slurmd slurm-client)"
done
PATH="$PATH:/usr/sbin"
[[ "$(id -u)" == 0 ]] || fail "must run as root (the cluster runs its daemons as SlurmUser=root)"

mkdir -p "$DIR" || fail "cannot create $DIR"
DIR="$(cd "$DIR" && pwd)"
chmod 755 "$DIR"  # munged wants its socket directory searchable by all and writable by none but us
d="$DIR"
while [[ "$d" != / ]]; do
    d="$(dirname "$d")"
    [[ "$(stat -c %A "$d")" == d????????[xt] ]] ||
        fail "$d is not searchable by all (chmod a+x it, or choose another STATE_DIR): munged refuses a socket below it"
done
CONF="$DIR/slurm.conf"
export SLURM_CONF="$CONF"

# A daemon is alive when its pid file names a process that is not a zombie.
alive() {
    local pid state
    pid="$(cat "$1" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" || return 1
    [[ -n "$state" && "$state" != Z ]]
}

node_state() { sinfo --noheader --Node --format=%T 2>/dev/null | awk 'NR == 1'; }

if alive "$DIR/run/munged.pid" && alive "$DIR/run/slurmctld.pid" && alive "$DIR/run/slurmd.pid" &&
    [[ "$(node_state)" =~ ^(idle|mixed|allocated) ]]; then
    echo "SLURM_CONF=$CONF"
    exit 0
fi
# Something is missing or half-started: stop what is there and start afresh.
"$HERE/stop_cluster.sh" "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR/spool" "$DIR/state" "$DIR/log" "$DIR/run" "$DIR/munge"
mkdir -p "$DIR/spool" "$DIR/state" "$DIR/log" "$DIR/run" "$DIR/munge"
chmod 755 "$DIR/munge"

# ---- munge: our own key and socket, so that a system munged (or its absence) changes nothing.
KEY="$DIR/munge/munge.key"
if ! mungekey --create --keyfile="$KEY" --bits=1024 >/dev/null 2>&1; then
    dd if=/dev/urandom of="$KEY" bs=1 count=1024 status=none || fail "cannot create a munge key in $KEY"
fi
chmod 600 "$KEY"
SOCKET="$DIR/munge/munge.socket"
munged --socket="$SOCKET" --key-file="$KEY" --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munged.seed" </dev/null >>"$DIR/log/daemons.out" 2>&1 || fail "munged did not start"
munge --socket="$SOCKET" --no-input | unmunge --socket="$SOCKET" >/dev/null 2>&1 ||
    fail "munge cannot encode and decode a credential on $SOCKET"

# ---- slurm.conf: this host as controller and only node, its CPUs and memory as slurmd -C reports them.
HOST="$(hostname -s)"
read -r CPUS MEM < <(slurmd -C 2>/dev/null | awk '/^NodeName=/ {
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        print v["CPUs"], v["RealMemory"] }') || true
[[ "${CPUS:-}" =~ ^[0-9]+$ ]] || CPUS="$(nproc)"
[[ "${MEM:-}" =~ ^[0-9]+$ ]] || MEM="$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)"
# Two free TCP ports (bound to port 0 by the kernel, then released) for slurmctld and slurmd.
read -r CTLD_PORT SLURMD_PORT < <(/usr/bin/python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("", 0))
print(*[s.getsockname()[1] for s in ss])')
[[ "${CTLD_PORT:-}" =~ ^[0-9]+$ && "${SLURMD_PORT:-}" =~ ^[0-9]+$ ]] || fail "cannot find two free TCP ports"

cat >"$CONF" <<EOF
# Written by tests/slurm/start_cluster.sh: a one-node cluster for Strobe's tests.
ClusterName=strobe
SlurmctldHost=$HOST
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/slurmd-%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups in a container: processes are tracked through /proc, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Jobs stay visible to scontrol for 5 minutes after they end (no slurmdbd, so no sacct).
MinJobAge=300
KillWait=10
InactiveLimit=0
MailProg=/bin/true
Waittime=0
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF

# ---- the daemons, detached, each with its pid file (stop_cluster.sh stops them by it).
slurmctld -f "$CONF" -i </dev/null >>"$DIR/log/daemons.out" 2>&1 || fail "slurmctld did not start"
slurmd -f "$CONF" </dev/null >>"$DIR/log/daemons.out" 2>&1 || fail "slurmd did not start"

# ---- wait until the node is idle.
end=$((SECONDS + DEADLINE_S))
state=""
while ((SECONDS < end)); do
    state="$(node_state)"
    [[ "$state" == idle ]] && break
    if [[ "$state" =~ ^(down|drain|fail) ]]; then
        scontrol update NodeName="$HOST" State=RESUME >/dev/null 2>&1 || true
    fi
    sleep 0.2
done
[[ "$state" == idle ]] || fail "node $HOST is not idle after ${DEADLINE_S} s (sinfo says '${state:-nothing}')"
alive "$DIR/run/slurmctld.pid" || fail "slurmctld is not running"
alive "$DIR/run/slurmd.pid" || fail "slurmd is not running"
echo "SLURM_CONF=$CONF"
