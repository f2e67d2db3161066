#!/bin/sh
# Writes the expected pictures and tables of tests/plots/plot_snapshot_test.cpp: every registered plot rendered by
# strobe-cli (defaults, 1000x600 SVG, and the CSV table behind it) on five real inputs of tests/data:
#   trace-filter  kineto/hta/trace_filter (HTA's two sampled ranks of one NCCL job, one run)
#   resnet-sweep  kineto/kineto-configs with --sweep (2 runs: ResNet-50 with DataLoader num_workers 0 and 4)
#   seismic       rocprof/seismic_128x64.xr (a rocprof v1 kernel trace with a counter pass)
#   cpu-sampler   telemetry/strobe/cpu_sampler_2core.csv (Strobe's CPU sampler)
#   nvidia-smi    telemetry/nvidia-smi/v100s_gpu_log.csv (nvidia-smi --query-gpu at 1 Hz on a V100S)
# A file over 100 KB (the GPU timeline's table lists every kernel) is kept as its SHA-256 only (NAME.sha256).
# Usage: make_snapshots.sh STROBE_CLI [OUT_DIR]. The files in this directory were written with main's strobe-cli at
# commit 4fc5b34, before the plots were moved onto the typed plot base (issue 32); the SVGs whose duration labels
# changed with formatDuration's three decimals (b32b) were re-recorded, every changed text checked to be a duration
# label (or a kernel name elided to the width the longer label left). delta-bars.* were re-recorded for issue 21 (step
# time and GPU busy/idle lead, changes of the median per step, groups by |change|, delta_ns and reason columns).
# gpu-timeline.svg was re-recorded for issue 25 (its tables unchanged): the axis gutter says "0 = first event" (t = 0
# is the run's first event of any drawn source) and CPU lanes are named by process and thread, ordered by (pid,
# tid) rather than by the order a parallel parse met the threads (which made the sweep's picture vary under load).
# critical-path.* and what-if.* were recorded when those plots were added (issue 26), with this script limited to them.
# memory-timeline.* and memory-live-at-peak.* were re-recorded for issue 27's other memory sources (a "source" column;
# nvidia-smi's used memory now drawn as the device's series) with STROBE_SNAPSHOT_PLOTS="memory-timeline
# memory-live-at-peak" (the plot ids to render; every plot when unset). memory-timeline.*, memory-live-at-peak.svg
# and resnet-sweep/operator-efficiency.* were re-recorded for issue 27's sweep-aware views with STROBE_SNAPSHOT_PLOTS=
# "memory-timeline memory-live-at-peak operator-efficiency roofline" (roofline unchanged): the series view's "tool"
# column, series named by their source ("used (nvidia-smi)"), the empty-state wording naming nsys, and the sweep's
# "configuration" column in the operator table.
# rank-step-heatmap.* were recorded when the plot was added (issue 29), with STROBE_SNAPSHOT_PLOTS=rank-step-heatmap; the
# CPU core heatmap's colour scale moved to plots/heat_scale.h then, its pictures unchanged.
# resnet-sweep/critical-path.* and what-if.* were re-recorded when a blocking call's return joined the path (issue 26,
# same path length): ResNet-50's whole-trace path is now mostly its CPU operators (data loading on the main thread with
# num_workers=0: 82 % cpu_op) where it was 80 % idle, and sync_wait and memcpy appear.
set -eu
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here}
data=$(cd "$here/../.." && pwd)
export QT_QPA_PLATFORM=offscreen
plots=${STROBE_SNAPSHOT_PLOTS:-$("$cli" plots --json | /usr/bin/python3 -c 'import json,sys; print("\n".join(p["id"] for p in json.load(sys.stdin)["plots"]))')}
render() {  # set plot args...
    set_name=$1 plot=$2
    shift 2
    mkdir -p "$out/$set_name"
    "$cli" plot "$plot" "$@" --no-cache --size 1000x600 -o "$out/$set_name/$plot.svg" --csv "$out/$set_name/$plot.csv" \
        2>/dev/null || echo "$set_name $plot: exit $?" >&2
    for f in "$out/$set_name/$plot.svg" "$out/$set_name/$plot.csv"; do
        if [ "$(wc -c <"$f")" -gt 102400 ]; then
            sha256sum "$f" | cut -d' ' -f1 >"$f.sha256"
            rm "$f"
        fi
    done
}
for p in $plots; do
    render trace-filter "$p" "$data/kineto/hta/trace_filter" --label trace-filter
    render resnet-sweep "$p" --sweep "$data/kineto/kineto-configs"
    render seismic "$p" "$data/rocprof/seismic_128x64.xr" --label seismic
    render cpu-sampler "$p" "$data/telemetry/strobe/cpu_sampler_2core.csv" --label cpu-sampler
    render nvidia-smi "$p" "$data/telemetry/nvidia-smi/v100s_gpu_log.csv" --label nvidia-smi
done
