#!/bin/sh
# Issue 20 ("Readers at their floor"): what every CSV reader makes of the real CSV files in tests/data, as
# `strobe-cli summary --json --top 1000` prints it (sources, rows, spans, kernel counts and times, every kernel's
# count/total/min/max, categories, warnings). The expected files were written by the reader before its speed-up,
# so that the speed-up changes nothing:
#
#   sh tests/data/expected/reader_summaries/make_csv.sh build/release/app/cli/strobe-cli            # regenerate
#   sh tests/data/expected/reader_summaries/make_csv.sh CLI OUTDIR    # write elsewhere (ctest reader_summaries.csv)
#
# Each input is summarised twice with an empty XDG_CACHE_HOME: a first open (parse, cache written) and a reopen
# (read back from the load cache); both must print the same. Paths are relative to the checkout's root, so that
# the output does not depend on where the checkout lies. The output file holds stdout, then the exit status, then
# stderr; the strobe_version line is left out (it changes with releases, not with readers) and from_cache is
# written "-" (false on the first open, true on the reopen, by design). `"from_summary": false` (issue 29: whether a rank
# was read from its convert summary) was added to every expected file by hand when summary gained the key.
set -eu
CLI=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
OUT=${2:-$HERE/csv}
mkdir -p "$OUT"
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
cd "$ROOT"
status=0
# name            path (relative to the checkout's root)
while read -r name path; do
    case "$name" in ''|'#'*) continue ;; esac
    rm -rf "$CACHE"/*
    for pass in first reopen; do
        rc=0
        XDG_CACHE_HOME=$CACHE "$CLI" summary --json --top 1000 "$path" >"$OUT/$name.$pass.stdout" \
            2>"$OUT/$name.$pass.stderr" || rc=$?
        {
            grep -v '"strobe_version"' "$OUT/$name.$pass.stdout" | sed 's/"from_cache": [a-z]*/"from_cache": -/' || true
            echo "--- exit $rc"
            cat "$OUT/$name.$pass.stderr"
        } >"$OUT/$name.$pass.txt"
        rm -f "$OUT/$name.$pass.stdout" "$OUT/$name.$pass.stderr"
    done
    if ! cmp -s "$OUT/$name.first.txt" "$OUT/$name.reopen.txt"; then
        echo "$name: the reopen from the cache prints another summary than the first open" >&2
        diff "$OUT/$name.first.txt" "$OUT/$name.reopen.txt" >&2 || true
        status=1
    fi
    mv "$OUT/$name.first.txt" "$OUT/$name.txt"
    rm -f "$OUT/$name.reopen.txt"
done <<'LIST'
# rocprofv3 (rocprofv3_csv.cpp): a file loads the outputs of its prefix as one group (kernels, counters joined on
# Dispatch_Id, copies, allocations, scratch, API traces, stats); as the file names it, and as the directory.
rocprofv3_kernel_trace            tests/data/rocprof/docs-2025/kernel_trace.csv
rocprofv3_rocpd_to_csv            tests/data/rocprof/docs-2025/rocpd-to-csv.csv
rocprofv3_docs_dir                tests/data/rocprof/docs-2025
rocprofv3_gfx1151_kernel_trace    tests/data/rocprof/gfx1151-llamacpp-decode/gfx1151_llamacpp_decode_kernel_trace.csv
rocprofv3_gfx1151_dir             tests/data/rocprof/gfx1151-llamacpp-decode
# rocprof v1 CSV (rocprof_v1_csv.cpp): a results.csv, and the .xr run directory beside its other CSVs
rocprof_v1_seismic_dir            tests/data/rocprof/seismic_128x64.xr
rocprof_v1_sqlite_results_csv     tests/data/sqlite/rocprof_v1/results.csv
# rocprof-compute workload CSVs (rocprof_compute_workload.cpp)
rocprof_compute_vcopy             tests/data/rocprof-compute/vcopy_MI300X_A1_rocprofv2
# ncu --csv (ncu_csv.cpp)
ncu_cuda_raw                      tests/data/cuda/ncu/ncu.csv
ncu_dlrm_details                  tests/data/joins/dlrm_worker0_ncu.csv
# nvidia-smi --query-gpu CSV (nvidia_smi_csv.cpp)
nvidia_smi_h100                   tests/data/telemetry/nvidia-smi/h100_query-gpu_load.csv
nvidia_smi_l40s                   tests/data/telemetry/nvidia-smi/l40s_query-gpu_load.csv
nvidia_smi_v100s_log              tests/data/telemetry/nvidia-smi/v100s_gpu_log.csv
nvidia_smi_h200_sweep             tests/data/cuda/sweep/batch=8/rep1/nvidia_smi.csv
# Strobe's sampler CSV (strobe_sampler_csv.cpp)
strobe_sampler_cpu                tests/data/telemetry/strobe/cpu_sampler_2core.csv
# not a trace: the readers must keep refusing it the same way
not_a_trace_csv                   tests/data/bad/suite/not_traces/data.csv
LIST
exit $status
