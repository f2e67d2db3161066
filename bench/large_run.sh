#!/usr/bin/env bash
# Times `strobe-cli convert` on a large generated run, locally and as one Slurm array job (issue 29, "Past one
# machine": `convert RUN --slurm`, start to exit, within 1.3x a local `convert RUN` of the same ranks, each from an
# empty cache directory), and what comes after it: a resume, `summary` and `analyze rank-steps` from the summaries.
#
# usage: bench/large_run.sh [--ranks N] [--size TOTAL] [--reps R] [--build DIR] [--data DIR] [--jobs J]
#                           [--gen PATH] [--ranks-per-task K] [--slurm-arg ARG]... [--keep]
#   --ranks N           rank files in the run (default 512)
#   --size TOTAL        total bytes over all ranks, as strobe-gen-kineto's --size takes it (default 5G: 10 MB a
#                       rank at 512 ranks; 20G with --ranks 1024 is 20 MB a rank)
#   --reps R            repetitions of each measurement; the table shows medians (default 3)
#   --build DIR         the release build whose bench/strobe-gen-kineto and app/strobe-cli are used
#                       (default: build/release beside this script)
#   --gen PATH          the generator, when not the one in --build (e.g. a build of strobe-cli alone)
#   --data DIR          where the run and the cache directories go (default /tmp/large-run; never the repository)
#   --jobs J            --jobs of the local convert (default 2, the cores of the reference machine); the Slurm
#                       run is given no --jobs (each task picks its own)
#   --ranks-per-task K  passed to `convert --slurm` (default: none, strobe-cli's own default)
#   --slurm-arg ARG     passed to `convert --slurm` (repeatable)
#   --keep              keep the run and the last cache directory (<data>/r<N>, <data>/cache-<N>); without it both
#                       are kept only for --ranks 512 (the run others use), every other run is deleted at the end
#
# How: the run is generated once with `strobe-gen-kineto -o <data>/r<N> --ranks N --size TOTAL --quiet --jobs 2`
# and reused while <data>/r<N>.generated says the same N and TOTAL, and read once (warm-up). Then, R times,
# interleaved so that both see the same machine (other builds, page cache), local first on odd repetitions and
# Slurm first on even ones:
#   (a) local:  strobe-cli convert RUN --jobs J --cache-dir <data>/cache-local      (emptied first)
#   (b) slurm:  strobe-cli convert RUN --slurm --cache-dir <data>/cache-slurm       (emptied first)
# each timed with /usr/bin/time (wall seconds, peak RSS of strobe-cli itself: under --slurm that is the submitter,
# the array tasks run under slurmd). Each must exit 0 with "N converted, 0 skipped, 0 failed". The last Slurm
# cache then serves, R times each:
#   (c) resume: strobe-cli convert RUN --slurm --cache-dir CACHE   (every rank current: "0 converted, N skipped")
#   (d) summary: strobe-cli summary RUN --cache-dir CACHE          (reads the summaries)
#   (e) rank-steps: strobe-cli analyze rank-steps RUN --cache-dir CACHE
# and `summary` of the local cache is compared with that of the Slurm cache (the same text). At 512 ranks x 10 MB
# the traces stay in the page cache between runs (5 GB of 24 GB), so every figure is warm; at 1,024 x 20 MB (20 GB
# of traces, 2 x 4.6 GB of caches) they do not, and reading from disk adds to both. The 1-minute load average is
# printed before each timed command and in the table (medians): figures compare only on a machine equally busy.
#
# Needs a Slurm cluster: $SLURM_CONF when set, else tests/slurm/start_cluster.sh (root) is run and its SLURM_CONF
# used. Results: the table on stdout, one line per timed command in <data>/results-<N>.tsv.
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RANKS=512 SIZE=5G REPS=3 BUILD="$HERE/../build/release" DATA=/tmp/large-run JOBS=2 RPT="" KEEP=0 GEN=
SLURM_ARGS=()
while (($#)); do
    case "$1" in
    --ranks) RANKS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --gen) GEN=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --ranks-per-task) RPT=$2; shift 2 ;;
    --slurm-arg) SLURM_ARGS+=("--slurm-arg=$2"); shift 2 ;;
    --slurm-arg=*) SLURM_ARGS+=("$1"); shift ;;
    --keep) KEEP=1; shift ;;
    -h | --help) sed -n '2,/^set -E/{/^set -E/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "large_run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$RANKS" =~ ^[0-9]+$ && "$REPS" =~ ^[1-9][0-9]*$ ]] || { echo "large_run.sh: --ranks/--reps: not a number" >&2; exit 2; }
BUILD="$(cd "$BUILD" && pwd)"
GEN="${GEN:-$BUILD/bench/strobe-gen-kineto}" CLI="$BUILD/app/strobe-cli"
for b in "$GEN" "$CLI"; do [[ -x "$b" ]] || { echo "large_run.sh: $b not built" >&2; exit 2; }; done
[[ -x /usr/bin/time ]] || { echo "large_run.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd)"
case "$DATA/" in "$(cd "$HERE/.." && pwd)/"*) echo "large_run.sh: --data must be outside the repository" >&2; exit 2 ;; esac

if [[ -z "${SLURM_CONF:-}" ]]; then
    conf="$("$HERE/../tests/slurm/start_cluster.sh" | sed -n 's/^SLURM_CONF=//p')"
    [[ -n "$conf" ]] || { echo "large_run.sh: no Slurm cluster (set SLURM_CONF)" >&2; exit 2; }
    export SLURM_CONF="$conf"
fi

RUN="$DATA/r$RANKS"
STAMP="ranks=$RANKS size=$SIZE"
if [[ "$(cat "$RUN.generated" 2>/dev/null)" == "$STAMP" ]] &&
    (($(find "$RUN" -maxdepth 1 -name 'rank-*.json' | wc -l) == RANKS)); then
    echo "run: $RUN (reused, $STAMP)"
else
    rm -rf "$RUN" "$RUN.generated"
    avail=$(df -Pk "$DATA" | awk 'NR == 2 {print $4}')
    echo "run: generating $RUN ($STAMP; $((avail / 1024 / 1024)) GB free)"
    "$GEN" -o "$RUN" --ranks "$RANKS" --size "$SIZE" --quiet --jobs 2
    echo "$STAMP" >"$RUN.generated"
fi
echo "run: $(du -sh "$RUN" | cut -f1) in $RANKS files; $(nproc) cores; $(free -g | awk '/^Mem:/ {print $2}') GB memory"

RESULTS="$DATA/results-$RANKS.tsv"
printf 'what\trep\twall_s\tmax_rss_kb\tload1_before\n' >"$RESULTS"
LOG="$DATA/last-command.log"

# timed WHAT REP EXPECT CMD...: runs CMD under /usr/bin/time; stdout must contain EXPECT (when not empty).
timed() {
    local what=$1 rep=$2 expect=$3 load
    shift 3
    load=$(cut -d' ' -f1 /proc/loadavg)
    if ! /usr/bin/time -f '%e %M' -o "$DATA/time.out" "$@" >"$LOG" 2>&1; then
        echo "large_run.sh: $what failed: $*" >&2
        tail -n 20 "$LOG" >&2
        exit 1
    fi
    if [[ -n "$expect" ]] && ! grep -qF -- "$expect" "$LOG"; then
        echo "large_run.sh: $what: no '$expect' in its output: $*" >&2
        tail -n 5 "$LOG" >&2
        exit 1
    fi
    read -r wall rss <"$DATA/time.out"
    printf '%s\t%s\t%s\t%s\t%s\n' "$what" "$rep" "$wall" "$rss" "$load" >>"$RESULTS"
    printf '  %-10s rep %s: %7.2f s  %8.1f MB  (load %s)\n' "$what" "$rep" "$wall" "$(echo "$rss / 1024" | bc -l)" "$load"
}

LOCAL="$DATA/cache-local" SLURM="$DATA/cache-slurm"
SLURM_OPTS=(--slurm "${SLURM_ARGS[@]}")
[[ -n "$RPT" ]] && SLURM_OPTS+=(--ranks-per-task "$RPT")
ALL="$RANKS converted, 0 skipped, 0 failed"
echo "commands:"
echo "  local:      $CLI convert $RUN --jobs $JOBS --cache-dir $LOCAL"
echo "  slurm:      $CLI convert $RUN ${SLURM_OPTS[*]} --cache-dir $SLURM"
echo "  resume:     $CLI convert $RUN ${SLURM_OPTS[*]} --cache-dir $SLURM"
echo "  summary:    $CLI summary $RUN --cache-dir $SLURM"
echo "  rank-steps: $CLI analyze rank-steps $RUN --cache-dir $SLURM"
local_run() { timed local "$1" "$ALL" "$CLI" convert "$RUN" --jobs "$JOBS" --cache-dir "$LOCAL"; }
slurm_run() {
    timed slurm "$1" "$ALL" "$CLI" convert "$RUN" "${SLURM_OPTS[@]}" --cache-dir "$SLURM"
    grep -E 'submitted Slurm array job|ranks per task' "$LOG" | sed 's/^/    /'
}
echo "warm-up: reading the run once ($(find "$RUN" -maxdepth 1 -name 'rank-*.json' -exec cat {} + | wc -c) bytes)"
for ((r = 1; r <= REPS; r++)); do
    rm -rf "$LOCAL" "$SLURM"
    if ((r % 2)); then local_run "$r"; slurm_run "$r"; else slurm_run "$r"; local_run "$r"; fi
done
echo "cache: $(du -sh "$SLURM" | cut -f1) in $SLURM"
for ((r = 1; r <= REPS; r++)); do
    timed resume "$r" "0 converted, $RANKS skipped, 0 failed" "$CLI" convert "$RUN" "${SLURM_OPTS[@]}" --cache-dir "$SLURM"
done
for ((r = 1; r <= REPS; r++)); do timed summary "$r" "" "$CLI" summary "$RUN" --cache-dir "$SLURM"; done
grep -q "from summary" "$LOG" || { echo "large_run.sh: summary did not read the summaries" >&2; exit 1; }
cp "$LOG" "$DATA/summary-slurm.txt"
for ((r = 1; r <= REPS; r++)); do timed rank-steps "$r" "" "$CLI" analyze rank-steps "$RUN" --cache-dir "$SLURM"; done
grep -q "from summaries: $RANKS ranks" "$LOG" || { echo "large_run.sh: rank-steps did not answer from summaries" >&2; exit 1; }
"$CLI" summary "$RUN" --cache-dir "$LOCAL" >"$DATA/summary-local.txt" 2>&1
if cmp -s "$DATA/summary-local.txt" "$DATA/summary-slurm.txt"; then
    echo "summary: the local and the Slurm caches give the same text"
else
    echo "large_run.sh: summary differs between the local and the Slurm cache:" >&2
    diff "$DATA/summary-local.txt" "$DATA/summary-slurm.txt" | head -n 10 >&2
    exit 1
fi

echo
echo "$RANKS ranks x $SIZE total, medians of $REPS (wall s, peak RSS of strobe-cli, 1-min load average before):"
awk -F'\t' 'NR > 1 {
        k = $1; n[k]++; w[k, n[k]] = $3; m[k, n[k]] = $4; l[k, n[k]] = $5
        if (!(k in seen)) { seen[k] = 1; order[++K] = k }
    }
    function median(a, k, c,    i, j, t, v) {
        for (i = 1; i <= c; i++) v[i] = a[k, i] + 0
        for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
    }
    END {
        printf "| %-10s | %8s | %10s | %6s |\n", "command", "wall s", "peak RSS", "load"
        printf "|------------|----------|------------|--------|\n"
        for (i = 1; i <= K; i++) {
            k = order[i]
            med[k] = median(w, k, n[k])
            printf "| %-10s | %8.2f | %7.0f MB | %6.2f |\n", k, med[k], median(m, k, n[k]) / 1024, median(l, k, n[k])
        }
        if (med["local"] > 0) printf "slurm / local: %.2f (issue 29 asks <= 1.3)\n", med["slurm"] / med["local"]
    }' "$RESULTS" | tee "$DATA/table-$RANKS.md"

rm -rf "$LOCAL" "$DATA/time.out"
if ((KEEP)) || [[ "$RANKS" == 512 ]]; then
    rm -rf "$DATA/cache-$RANKS"
    mv "$SLURM" "$DATA/cache-$RANKS"
    echo "kept: $RUN and $DATA/cache-$RANKS"
else
    rm -rf "$SLURM" "$RUN" "$RUN.generated"
    echo "deleted: $RUN and its caches"
fi
