#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 60).
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
# Corpora grow in build/fuzz/corpus/<target> (seeded from tests/data and tests/fuzz/seeds); a crash is written to
# build/fuzz/crashes/<target>/ and makes the script fail: copy it into tests/fuzz/regressions/<target>/ once fixed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
shift || true
build="$root/build/fuzz"
# Line tables only (-g1: a crash report keeps file:line), unity batches as in the CI presets; ccache when .ci/setup set it up (CCACHE_DIR exported) and it is not turned off.
launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=)
if [ -n "${CCACHE_DIR:-}" ] && [ "${STROBE_NO_CCACHE:-0}" != 1 ] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja "${launcher[@]}" -DSTROBE_UNITY=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  -DSTROBE_FUZZ=ON -DSTROBE_BUILD_GUI=OFF -DSTROBE_BUILD_TESTS=OFF -DSTROBE_BUILD_BENCH=OFF >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=()
  for f in "$root"/tests/fuzz/fuzz_*.cpp; do t=$(basename "$f" .cpp); targets+=("${t#fuzz_}"); done
fi
cmake --build "$build" -j"$(nproc)" --target make_cache_seeds $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null

seed() {  # seed TARGET DIR: fill the corpus dir of TARGET from the project's own files
  local t=$1 dir=$2
  mkdir -p "$dir"
  [ -d "$root/tests/fuzz/seeds/$t" ] && cp -n "$root/tests/fuzz/seeds/$t"/* "$dir"/ 2>/dev/null || true
  [ -d "$root/tests/fuzz/regressions/$t" ] && cp -n "$root/tests/fuzz/regressions/$t"/* "$dir"/ 2>/dev/null || true
  case $t in
    kineto_json)
      for f in "$root"/tests/data/small/*.json "$root"/tests/data/bad/*; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -lt 65536 ] || continue
        { printf '\000'; cat "$f"; } > "$dir/$(basename "$f").seed"
      done
      for f in "$root"/tests/data/kineto/hta/amd_trace/*.json.gz "$root"/tests/data/kineto/hta/cpu_only/*.json.gz; do
        { printf '\001'; gzip -dc "$f"; } > "$dir/$(basename "$f" .gz).seed"
      done ;;
    kineto_gzip)
      for f in $(find "$root/tests/data/kineto" -name '*.json.gz' -size -64k); do cp "$f" "$dir/"; done ;;
    load_cache)  # cache files of real traces, written by this build (their column set is the build's)
      local tmp; tmp=$(mktemp -d)
      STROBE_RESOURCE_DIR="$root/resources" "$build/tests/fuzz/make_cache_seeds" "$tmp" \
        "$root"/tests/data/small/*.json "$root"/tests/data/small/*.json.gz \
        $(find "$root/tests/data/kineto" -name '*.json*' -size -200k | sort | head -8) 2>/dev/null || true
      for f in "$tmp"/*; do [ -f "$f" ] && cp "$f" "$dir/"; done
      rm -rf "$tmp" ;;
    csv_formats)  # 0xFF: the loader detection picks (fuzz_formats.h)
      for f in "$root"/tests/data/rocprof/docs-2025/*.csv; do { printf '\377'; cat "$f"; } > "$dir/$(basename "$f").seed"; done
      { printf '\377'; head -200 "$root/tests/data/rocprof/seismic_128x64.xr/data_movement.csv"; } > "$dir/v1_counters.seed" ;;
    json_formats) ;;  # the committed seeds (a cut-down rocprofv3 JSON result)
    classification_yaml)
      cp "$root/resources/classification.yaml" "$dir/" 2>/dev/null || true ;;
    sqlite_formats)  # reduced samples are committed seeds (make_sqlite_seeds.py); the small RPD sample whole too
      { printf '\001'; cat "$root/tests/data/sqlite/rpd_matmul.rpd"; } > "$dir/rpd_matmul_full.seed" ;;
    text_formats)  # selector byte: 0 dmon, 1 nccl-tests, 2 ncu, 3 rocm-smi concise (see fuzz_text_formats.cpp)
      local i=0
      for f in "$root"/tests/data/telemetry/nvidia-smi/*dmon*.txt "$root"/tests/data/nccl-tests/*.log \
               "$root"/tests/data/ncu/*.log "$root"/tests/data/telemetry/amd/*.txt; do
        [ -f "$f" ] || continue
        case $f in *dmon*) sel='\000' ;; *nccl-tests*) sel='\001' ;; */ncu/*) sel='\002' ;; *) sel='\003' ;; esac
        { printf "$sel"; cat "$f"; } > "$dir/text_$i.seed"; i=$((i + 1))
      done ;;
    session_yaml)
      for f in "$root"/tests/data/sessions/*.yaml; do if [ -f "$f" ]; then cp "$f" "$dir/"; fi; done ;;
  esac
  return 0  # under set -e a false test as the last command would end the script
}

# One fuzzer per core (STROBE_FUZZ_JOBS overrides): each target's seeding and run is independent, so on a 2-core CI
# machine ten targets take five slots of SECONDS instead of ten.
jobs=${STROBE_FUZZ_JOBS:-$(nproc)}
fuzz_one() {  # fuzz_one TARGET: seeds, runs, and reports one target; its exit status says whether it found a defect
  local t=$1 corpus="$build/corpus/$1" crashes="$build/crashes/$1" rc=0
  seed "$t" "$corpus"; mkdir -p "$crashes"
  local dict=()
  case $t in kineto_*) dict=(-dict="$root/tests/fuzz/kineto.dict") ;; esac
  {
    echo "=== fuzz $t for ${secs}s ($(ls "$corpus" | wc -l) corpus inputs)"
    if ! STROBE_RESOURCE_DIR="$root/resources" "$build/tests/fuzz/fuzz_$t" "$corpus" "${dict[@]}" \
        -max_total_time="$secs" -max_len=262144 -rss_limit_mb=3072 -timeout=20 \
        -artifact_prefix="$crashes/" -print_final_stats=1 2>"$build/fuzz_$t.log"; then
      echo "!!! fuzz $t found a defect: see $crashes and $build/fuzz_$t.log"; tail -40 "$build/fuzz_$t.log"; rc=1
    fi
    grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb' "$build/fuzz_$t.log" | sed "s/^/  $t: /" || true
  } > "$build/fuzz_$t.report"
  return $rc
}

status=0
pids=() names=()
flush() {  # wait for the running batch, print each report whole (never interleaved)
  local i
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$build/fuzz_${names[$i]}.report"
  done
  pids=() names=()
}
for t in "${targets[@]}"; do
  fuzz_one "$t" & pids+=($!); names+=("$t")
  [ ${#pids[@]} -lt "$jobs" ] || flush
done
flush
exit $status
