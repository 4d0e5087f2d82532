#!/bin/sh
# run_fuzz.sh: runs every libFuzzer target built under build/fuzz for
# FUZZ_SECONDS seconds each (default 20), starting from its seed corpus in
# tests/fuzz/corpus/<target> (left untouched: new inputs go to
# build/fuzz/corpus/<target>). A target that crashes, leaks, trips a sanitizer,
# times out on one input or exceeds the memory limit fails; the input is kept
# as build/fuzz/crashes/<target>-*. Each target is one test: ends with
# "N passed, M failed" like the other runners. Exits 1 on any failure.
# Targets run FUZZ_JOBS at a time (default: one per CPU): each still gets its
# FUZZ_SECONDS, and on two CPUs the run takes half as long.
cd "$(dirname "$0")/.." || exit 2
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
passed=0
failed=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
mkdir -p build/fuzz/crashes

fuzzTarget() { # binary; its report line(s) go to $logs/<name>.ok or $logs/<name>.fail
    name=$(basename "$1")
    seeds=tests/fuzz/corpus/$name
    work=build/fuzz/corpus/$name
    log=$logs/$name.log
    mkdir -p "$work" "$seeds"
    "$1" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix="build/fuzz/crashes/$name-" "$work" "$seeds" >"$log" 2>&1
    rc=$?
    runs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}')
    cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    if [ "$rc" -eq 0 ]; then
        echo "ok   $name: ${runs:-?} runs in ${seconds}s, coverage ${cov:-?} edges, corpus $(ls "$work" | wc -l) + $(ls "$seeds" | wc -l) seeds" >"$logs/$name.ok"
    else
        {
            echo "FAIL $name (exit $rc):"
            grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written|#[0-9]+ +(DONE|INITED)' "$log" | head -n 40 | sed 's/^/    /'
        } >"$logs/$name.fail"
    fi
}

running=0
for bin in build/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    fuzzTarget "$bin" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

# The reports in the targets' order; a target that left none (killed) failed.
for bin in build/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    if [ -f "$logs/$name.ok" ]; then
        passed=$((passed + 1))
        cat "$logs/$name.ok"
    else
        failed=$((failed + 1))
        cat "$logs/$name.fail" 2>/dev/null || echo "FAIL $name: no report"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
