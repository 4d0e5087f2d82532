#!/bin/sh
# check_fresh_make.sh: proves, without a new machine, that the README's
# commands work on one. With pkg-config pointed at an empty directory (as if
# no library were installed), `make -n GOAL` must reach the install step
# (deps/install.sh) before anything is compiled, for every goal that promises
# to install what is missing; and `make` alone must stop with the one line
# naming the Debian package. Run by .ci/run before `make test`, and by
# tests/integration/build/test_fresh_machine.py inside the suite. Exits 1 on any failure.
cd "$(dirname "$0")/.." || exit 2
# Run as a fresh top-level make, whoever calls us (make test does).
unset MAKEFLAGS MAKELEVEL MFLAGS
status=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for goal in run test bench test-reference test-upstream fuzz; do
    PKG_CONFIG_LIBDIR=/nonexistent make -n "$goal" >"$out" 2>&1
    install_at=$(grep -n -m1 -E '^sh deps/install\.sh$' "$out" | cut -d: -f1)
    compile_at=$(grep -n -m1 -E '(^| )(cc|gcc|clang) |build dependency missing' "$out" | cut -d: -f1)
    if [ -z "$install_at" ]; then
        echo "FAIL make $goal never reaches deps/install.sh on a machine without the packages:"
        sed 's/^/    /' "$out"
        status=1
    elif [ -n "$compile_at" ] && [ "$compile_at" -lt "$install_at" ]; then
        echo "FAIL make $goal compiles or checks before it installs (line $compile_at < $install_at):"
        sed 's/^/    /' "$out"
        status=1
    else
        echo "ok   make $goal installs first"
    fi
done

PKG_CONFIG_LIBDIR=/nonexistent make -n >"$out" 2>&1
rc=$?
lines=$(grep -c '^build dependency missing: install the Debian package ' "$out")
if [ "$rc" -eq 0 ] || [ "$lines" -ne 1 ] || grep -q 'deps/install\.sh$' "$out"; then
    echo "FAIL make alone must stop with one line naming the package (rc $rc):"
    sed 's/^/    /' "$out"
    status=1
else
    echo "ok   make alone names the missing package: $(grep '^build dependency missing' "$out")"
fi
exit $status
