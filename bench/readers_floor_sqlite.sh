#!/bin/sh
# Readers at their floor, SQLite half (issue 20): for each FORMAT=FILE, REPEATS runs of, in turn,
#   floor   build/release/bench/strobe-sqlite-floor FORMAT FILE   (sqlite3_step over the reader's columns, summed)
#   strobe  strobe-cli summary FILE with an empty XDG_CACHE_HOME   (end to end: sniff, read, merge, cache write)
#   python  /usr/bin/python3 bench/read_sqlite_python.py FORMAT FILE (the floor's read with the sqlite3 module)
# after one warming read of the file (page cache warm). Wall time and peak RSS of every run from /usr/bin/time -v
# (process start included for all three); prints the medians as a Markdown table: MB/s (10^6 bytes of file per
# second) of each, Strobe ÷ floor time, the same for CPU seconds (user + system; steadier than wall time on a shared
# machine), and peak RSS ÷ file size.
#
# Usage: sh bench/readers_floor_sqlite.sh BUILD_DIR REPEATS FORMAT=FILE...
#   e.g. sh bench/readers_floor_sqlite.sh build/release 3 nsys=/tmp/nsys_300.sqlite rocpd=/tmp/rocpd_300.db \
#            rpd=/tmp/rpd_300.rpd
# STROBE_CLI=PATH times that strobe-cli instead of BUILD_DIR's (the floor tool still comes from BUILD_DIR).
set -eu
[ $# -ge 3 ] || { sed -n '2,14p' "$0"; exit 2; }
build=$1; reps=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
floor=$build/bench/strobe-sqlite-floor
cli=${STROBE_CLI:-$build/app/strobe-cli}  # STROBE_CLI: another strobe-cli (e.g. a build before a change)
[ -x "$floor" ] || { echo "missing $floor (cmake --build $build --target strobe-sqlite-floor)" >&2; exit 2; }
[ -x "$cli" ] || { echo "missing $cli (cmake --build $build --target strobe-cli)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: appends "seconds peak_kB cpu_seconds" (user + system) of one run to $tmp/NAME
run() {
    name=$1; shift
    /usr/bin/time -v -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" || {
        echo "failed: $*" >&2; cat "$tmp/err" >&2; exit 3; }
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
                /Maximum resident set size/ { kb = $2 }
                /User time \(seconds\)|System time \(seconds\)/ { cpu += $2 }
                END { printf "%.3f %d %.3f\n", s, kb, cpu }' "$tmp/time" >> "$tmp/$name"
}
median() { sort -n "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
all() { awk -v c="$2" '{ printf "%s%s", (NR > 1 ? ", " : ""), $c }' "$tmp/$1"; }

echo "| format | file (MB) | floor s (runs) | floor MB/s | Strobe s (runs) | Strobe MB/s | Strobe ÷ floor | CPU s floor / Strobe | Strobe ÷ floor (CPU) | Strobe RSS ÷ file | Python s (runs) | Python MB/s | Python RSS ÷ file |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for arg in "$@"; do
    fmt=${arg%%=*}; file=${arg#*=}
    bytes=$(stat -c %s "$file")
    cat "$file" > /dev/null
    rm -f "$tmp/floor" "$tmp/strobe" "$tmp/python"
    i=0
    while [ $i -lt "$reps" ]; do
        run floor "$floor" "$fmt" "$file"
        rm -rf "$tmp/cache"; mkdir "$tmp/cache"
        run strobe env XDG_CACHE_HOME="$tmp/cache" "$cli" summary "$file"
        run python /usr/bin/python3 "$here/read_sqlite_python.py" "$fmt" "$file"
        i=$((i + 1))
    done
    fs=$(median floor 1); ss=$(median strobe 1); ps=$(median python 1)
    srss=$(median strobe 2); prss=$(median python 2); fc=$(median floor 3); sc=$(median strobe 3)
    awk -v f="$fmt" -v b="$bytes" -v fs="$fs" -v ss="$ss" -v ps="$ps" -v sr="$srss" -v pr="$prss" -v fc="$fc" -v sc="$sc" \
        -v fa="$(all floor 1)" -v sa="$(all strobe 1)" -v pa="$(all python 1)" 'BEGIN {
        mb = b / 1e6
        printf "| %s | %.1f | %s (%s) | %.0f | %s (%s) | %.0f | %.2f× | %s / %s | %.2f× | %.2f | %s (%s) | %.0f | %.2f |\n",
            f, mb, fs, fa, mb / fs, ss, sa, mb / ss, ss / fs, fc, sc, sc / fc, sr * 1024 / b, ps, pa, mb / ps, pr * 1024 / b }'
done
