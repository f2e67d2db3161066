#!/bin/bash
# The workbench on a large Kineto run, beside `strobe-cli summary` of the same files (issue: large traces stay smooth).
#   bench/workbench_smooth.sh [BUILD_DIR] [RUN_DIR] [REPEATS]
# Generates RUN_DIR (8 ranks, 2 GB in all) when missing. Each repeat starts from an empty load cache for both
# (cache write included), so "first picture" and "summary" do the same load. Needs an X server: DISPLAY, or it
# starts Xvfb on :77. Prints per repeat: summary seconds and peak RSS; the workbench's load, first picture,
# resident memory, and the pan/zoom latencies of `strobe --measure-latency` (100 scripted interactions).
set -euo pipefail
build=${1:-build/release}
run=${2:-/tmp/strobe-smooth-2g}
repeats=${3:-3}
[ -d "$run" ] || "$build/bench/strobe-gen-kineto" -o "$run" --size 2G --ranks 8 --jobs 2 --quiet
if [ -z "${DISPLAY:-}" ]; then
    Xvfb :77 -screen 0 1500x920x24 >/dev/null 2>&1 &
    xvfb=$!
    trap 'kill $xvfb 2>/dev/null || true' EXIT
    export DISPLAY=:77
    sleep 1
fi
cache=$(mktemp -d)
config=$(mktemp -d)
echo "run: $run ($(du -sb "$run" | cut -f1) bytes)"
for i in $(seq "$repeats"); do
    rm -rf "$cache"/*
    /usr/bin/time -f "summary: %e s, peak RSS %M KB" env XDG_CACHE_HOME="$cache" \
        "$build/app/strobe-cli" summary "$run" >/dev/null
    rm -rf "$cache"/*
    XDG_CONFIG_HOME="$config" XDG_CACHE_HOME="$cache" STROBE_NO_SAVE_PROMPT=1 \
        "$build/app/strobe" --size 1500x920 --measure-latency "$run" 2>&1 |
        grep -E "loaded|first picture|pan/zoom|after pan"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done
rm -rf "$cache" "$config"
