#!/bin/sh
# run_unit.sh: runs each unit-test binary given as an argument, shows its
# output, and adds up their closing "N passed, M failed" lines (tests: one
# TEST group in a binary is one test) into one total line, the line CI reads.
# The assertions inside them are added up on a line of their own, "checks: ...".
# Exits 1 if any binary failed or crashed.
passed=0
failed=0
checks_passed=0
checks_failed=0
status=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for bin in "$@"; do
    echo "== $bin"
    "$bin" >"$out" 2>&1
    rc=$?
    cat "$out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(echo "$line" | cut -d' ' -f1)
        f=$(echo "$line" | cut -d' ' -f3)
        passed=$((passed + p))
        failed=$((failed + f))
    fi
    checks=$(grep -E '^checks: [0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    if [ -n "$checks" ]; then
        checks_passed=$((checks_passed + $(echo "$checks" | cut -d' ' -f2)))
        checks_failed=$((checks_failed + $(echo "$checks" | cut -d' ' -f4)))
    fi
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
        status=1
        # A crash or missing summary counts as one failure so the total shows it.
        if [ -z "$line" ] || [ "${f:-0}" -eq 0 ]; then
            echo "$bin: exited with status $rc"
            failed=$((failed + 1))
        fi
    fi
done
echo "unit tests: $# binaries, checks: $checks_passed passed, $checks_failed failed"
echo "$passed passed, $failed failed"
exit $status
