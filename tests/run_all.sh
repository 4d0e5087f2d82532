#!/bin/sh
# run_all.sh: the whole test run behind `make test` and CI. Runs the unit-test
# binaries given as arguments (through run_unit.sh), the fuzz targets built
# under build/fuzz (through run_fuzz.sh), then the pytest integration suite,
# and ends with ONE closing line that CI reads, summing them:
#     N passed, M failed[, K skipped]
# Skipped tests are not counted as passed; pytest errors (setup, collection)
# count as failed. Exits non-zero if anything failed or errored. pytest's exit
# code 5 ("no tests collected") is a failure: a run that tests nothing passes nothing.
cd "$(dirname "$0")/.." || exit 2

PYTHON=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
skipped=0
status=0
unit_line=""
py_line=""

# --- unit tests: run_unit.sh prints each binary's output and a total line ---
if [ "$#" -gt 0 ]; then
    sh tests/run_unit.sh "$@" >"$tmp/unit.out" 2>&1
    unit_rc=$?
    cat "$tmp/unit.out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/unit.out" | tail -n 1)
    if [ -n "$line" ]; then
        passed=$(echo "$line" | cut -d' ' -f1)
        failed=$(echo "$line" | cut -d' ' -f3)
        unit_line="C unit tests: $line"
    else
        echo "run_all.sh: unit tests gave no summary line"
        failed=1
    fi
    if [ "$unit_rc" -ne 0 ]; then
        status=1
        [ "$failed" -eq 0 ] && failed=1
    fi
fi

# --- fuzzing: each libFuzzer target built under build/fuzz is one test ---
fuzz_line=""
if ls build/fuzz/fuzz_* >/dev/null 2>&1; then
    sh tests/run_fuzz.sh >"$tmp/fuzz.out" 2>&1
    fuzz_rc=$?
    cat "$tmp/fuzz.out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/fuzz.out" | tail -n 1)
    if [ -n "$line" ]; then
        passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
        failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
        fuzz_line="fuzz targets (${FUZZ_SECONDS:-20}s each): $line"
    else
        echo "run_all.sh: fuzzing gave no summary line"
        failed=$((failed + 1))
    fi
    [ "$fuzz_rc" -ne 0 ] && status=1
fi

# --- integration tests ---
# Two workers (PYTEST_JOBS; pytest-xdist, Debian's python3-pytest-xdist): most
# tests wait on servers, timers and links rather than compute, and each has
# its own server, port and directory, so the run takes about 60% of the time
# it takes in one process (7.4 against 12.4 minutes here).
jobs=""
if [ "${PYTEST_JOBS:-2}" -gt 1 ] && "$PYTHON" -c "import xdist" 2>/dev/null; then
    jobs="-n ${PYTEST_JOBS:-2}"
fi
"$PYTHON" -m pytest -q -rfE $jobs --junitxml="$tmp/junit.xml" tests
pytest_rc=$?

# Count tests from the JUnit XML: a test with a <failure> or <error> is failed,
# one with <skipped> is skipped, any other passed. pytest writes a second
# <testcase> for a test that failed and then errored in teardown, so cases are
# merged by class and name first.
counts=$("$PYTHON" - "$tmp/junit.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("missing")
    sys.exit(0)
tests = {}
for case in root.iter("testcase"):
    key = (case.get("classname"), case.get("name"))
    tests.setdefault(key, set()).update(child.tag for child in case)
ok = bad = skip = 0
for kinds in tests.values():
    if kinds & {"failure", "error"}:
        bad += 1
    elif "skipped" in kinds:
        skip += 1
    else:
        ok += 1
print(ok, bad, skip)
EOF
)

case "$pytest_rc" in
    0|1) ;;
    5) echo "run_all.sh: pytest collected no tests"; failed=$((failed + 1)); status=1 ;;
    *) status=1 ;;  # interrupted, internal or usage error
esac
if [ "$counts" = "missing" ] || [ -z "$counts" ]; then
    if [ "$pytest_rc" -ne 5 ]; then
        echo "run_all.sh: pytest exited with $pytest_rc and wrote no results"
        failed=$((failed + 1))
        status=1
    fi
else
    read -r py_passed py_failed py_skipped <<COUNTS
$counts
COUNTS
    py_line="integration tests (pytest): $py_passed passed, $py_failed failed, $py_skipped skipped"
    passed=$((passed + py_passed))
    failed=$((failed + py_failed))
    skipped=$((skipped + py_skipped))
    if [ "$pytest_rc" -ne 0 ] && [ "$pytest_rc" -ne 5 ] && [ "$py_failed" -eq 0 ]; then
        echo "run_all.sh: pytest exited with $pytest_rc"
        failed=$((failed + 1))
    fi
fi

[ "$failed" -gt 0 ] && status=1
[ -n "$unit_line" ] && echo "$unit_line"
[ -n "$fuzz_line" ] && echo "$fuzz_line"
[ -n "$py_line" ] && echo "$py_line"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
exit "$status"
