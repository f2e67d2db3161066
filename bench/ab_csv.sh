#!/bin/sh
# Readers at their floor (issue 20): two strobe-cli builds on one file, fairly. On a virtual machine whose host backs
# guest memory lazily, a process that follows one which freed a lot of memory gets it back warm; the floor frees
# nothing, so here each Strobe run follows a floor run, and the order of the two builds alternates. Prints one line
# per run: who, wall s, user s, system s, peak RSS kB, minor page faults (sort the output to read medians).
#
# Usage: sh bench/ab_csv.sh FILE OLD_STROBE_CLI [RUNS [SQLITE_FORMAT]]   (from the checkout; build/release's
#        strobe-cli is "new"). The floor is strobe-csv-floor FILE, or with SQLITE_FORMAT (nsys, rocpd, rpd)
#        strobe-sqlite-floor SQLITE_FORMAT FILE. IDLE_S=N waits N seconds before every run: a user's open on an idle
#        machine, whose host has by then taken back the memory the runs before freed (bench/README "sixth pass").
#        OLD_STROBE_CLI may be a script, e.g. one that runs the new build with STROBE_HUGE_PAGES=1.
set -eu
[ $# -ge 2 ] || { sed -n '2,11p' "$0"; exit 2; }
file=$1; old=$2; runs=${3:-6}; format=${4:-}
new=build/release/app/strobe-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$file" > /dev/null
strobe() {
    sleep "${IDLE_S:-0}"
    rm -rf "$tmp/cache"; mkdir "$tmp/cache"
    XDG_CACHE_HOME="$tmp/cache" /usr/bin/time -f "$1 %e %U %S %M %R" -o "$tmp/t" "$2" summary "$file" > /dev/null
    cat "$tmp/t"
}
floor() {
    sleep "${IDLE_S:-0}"
    if [ -n "$format" ]; then
        /usr/bin/time -f "floor %e %U %S %M %R" -o "$tmp/t" build/release/bench/strobe-sqlite-floor "$format" "$file" > /dev/null
    else
        /usr/bin/time -f "floor %e %U %S %M %R" -o "$tmp/t" build/release/bench/strobe-csv-floor "$file" > /dev/null
    fi
    cat "$tmp/t"
}
i=1
while [ $i -le "$runs" ]; do
    if [ $((i % 2)) -eq 0 ]; then floor; strobe new "$new"; floor; strobe old "$old"
    else floor; strobe old "$old"; floor; strobe new "$new"; fi
    i=$((i + 1))
done
