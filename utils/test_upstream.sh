#!/bin/sh
# test_upstream.sh: runs Redis 7.0.15's own Tcl test suite (full mode: the
# suite starts its servers from our binary) one unit at a time, and prints for
# each unit the tests passed by ours next to what the reference passes
# (tests/upstream_reference.txt). Behind `make test-upstream [UNITS="..."]`.
#
# The suite is not kept in this repository: it is read at run time, into a
# scratch directory removed at the end, from one of
#   REDIS_GIT   a git directory of the Redis repository (a clone of
#               github.com/redis/redis, bare or not: its .git) holding tag
#               REDIS_TAG (default 7.0.15), read with git archive
#   REDIS_SRC   a checked-out Redis 7.0 source tree (holding tests/ and runtest)
# Without either it exits 2 saying so (`test_upstream.sh --check`: only that
# check, which make runs before it builds). Needs tclsh (tcl) and redis-cli,
# redis-benchmark, redis-check-aof, redis-check-rdb (redis-tools).
#
#   SUITE   cluster: Redis Cluster's own suite (runtest-cluster, tests/cluster/
#           tests/*.tcl, ports 30000 up: one run at a time) instead of the
#           default one (`make test-upstream-cluster`); its units are named as
#           the files, without .tcl ("00-base"), and each test's verdict is
#           counted from its "OK" / "FAILED" line
#   UNITS   units to run (default: the suite's whole ::all_tests list, or
#           every file of the cluster suite)
#   TLS     1: the suite talks TLS to every server it starts (runtest --tls,
#           `make test-upstream-tls`): tls-port only, tls-replication and
#           tls-cluster yes, certificates made once per run by the suite's own
#           utils/gen-test-certs.sh; needs tcl-tls and openssl. A unit is held
#           to the reference's count over TLS (a "tls:<unit> N" line of
#           tests/upstream_reference.txt) where the reference's differs from
#           its plain count, else to the plain one
#   SERVER  binary under test (default: src/redis-server)
#   UNIT_TIMEOUT  seconds a unit may take (default 1200)
#   ENC72_UNITS   units run with the suite's --ignore-encoding: we encode small
#                 sets and lists as Redis 7.2 does ("listpack"), and these units
#                 assert 7.0's names for them (the tests: tests/upstream_enc72.txt)
#   MALLOC      the server's allocator (jemalloc by default; sanitizer builds
#               use libc): a few upstream tests run only with jemalloc
#   SANITIZER_CHECK  1: SERVER is a sanitizer build (`make test-upstream-asan`);
#                 a unit with a sanitizer report also fails the run
# Logs go to build/upstream/<unit>.log. The "san" column counts sanitizer
# reports in a unit's log: the suite reads each server's stderr when it stops
# it and reports what ASan/LSan/UBSan wrote there as "[err]: Sanitizer error",
# with the report itself. Exits 1 when a unit passes fewer tests than the
# reference does (units without a reference figure only report), or with
# SANITIZER_CHECK=1 when a report appeared.
tag=${REDIS_TAG:-7.0.15}
if [ -z "${REDIS_GIT:-}" ] && [ -z "${REDIS_SRC:-}" ]; then
    echo "test-upstream: Redis's test suite is read from REDIS_GIT or REDIS_SRC, and neither is set. Either" >&2
    echo "  REDIS_GIT=<the git directory of a clone of github.com/redis/redis, holding tag $tag>:" >&2
    echo "      git clone --bare https://github.com/redis/redis DIR/redis.git" >&2
    echo "      make test-upstream REDIS_GIT=DIR/redis.git [UNITS=...]" >&2
    echo "  or REDIS_SRC=<a checked-out Redis 7.0 source tree>:" >&2
    echo "      git clone --depth 1 --branch $tag https://github.com/redis/redis DIR/redis-$tag" >&2
    echo "      make test-upstream REDIS_SRC=DIR/redis-$tag [UNITS=...]" >&2
    echo "(README.md, \"The upstream suite\")" >&2
    exit 2
fi
[ "${1:-}" = --check ] && exit 0
# Paths given relative to where we were started, before moving to the repository.
case ${REDIS_GIT:-/} in /*) ;; *) REDIS_GIT=$(pwd)/$REDIS_GIT ;; esac
case ${REDIS_SRC:-/} in /*) ;; *) REDIS_SRC=$(pwd)/$REDIS_SRC ;; esac
cd "$(dirname "$0")/.." || exit 2
server=${SERVER:-src/redis-server}
timeout_s=${UNIT_TIMEOUT:-1200}
[ -x "$server" ] || { echo "test-upstream: no server binary at $server" >&2; exit 2; }
command -v tclsh >/dev/null || { echo "test-upstream: missing tclsh: apt-get install tcl" >&2; exit 2; }
for t in redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
    command -v "$t" >/dev/null || { echo "test-upstream: missing $t: apt-get install redis-tools" >&2; exit 2; }
done
bin=$(cd "$(dirname "$server")" && pwd)/$(basename "$server")
# The suite, once: each unit then runs in a fresh copy of it (a unit cut off
# by its timeout may leave files behind), with src/ holding our binary and
# Debian's tools, which the suite starts as src/redis-*.
work=$(mktemp -d "${TMPDIR:-/tmp}/redis-tests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
suite=$work/suite
mkdir "$suite"
if [ -n "${REDIS_SRC:-}" ]; then
    [ -f "$REDIS_SRC/tests/test_helper.tcl" ] && [ -f "$REDIS_SRC/runtest" ] ||
        { echo "test-upstream: REDIS_SRC=$REDIS_SRC holds no Redis test suite (tests/test_helper.tcl, runtest)" >&2; exit 2; }
    cp -r "$REDIS_SRC/tests" "$REDIS_SRC/runtest" "$suite/" || exit 2
    [ "${TLS:-0}" = 1 ] && { cp -r "$REDIS_SRC/utils" "$suite/" || exit 2; }
else
    extra=""
    [ "${TLS:-0}" = 1 ] && extra=utils/gen-test-certs.sh
    git --git-dir="$REDIS_GIT" archive "$tag" tests runtest $extra | tar -x -C "$suite" &&
        [ -f "$suite/tests/test_helper.tcl" ] ||
        { echo "test-upstream: cannot read tag $tag (tests/, runtest) from REDIS_GIT=$REDIS_GIT" >&2; exit 2; }
fi
tls_arg=""
if [ "${TLS:-0}" = 1 ]; then
    echo 'package require tls' | tclsh >/dev/null 2>&1 ||
        { echo "test-upstream: TLS=1 needs Tcl's TLS package: apt-get install tcl-tls" >&2; exit 2; }
    (cd "$suite" && ./utils/gen-test-certs.sh) >/dev/null 2>&1 ||
        { echo "test-upstream: the suite's utils/gen-test-certs.sh failed (openssl?)" >&2; exit 2; }
    tls_arg=--tls
fi
mkdir -p "$suite/src"
ln -s "$bin" "$suite/src/redis-server"
for t in redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
    ln -s "$(command -v "$t")" "$suite/src/$t"
done
units=$UNITS
san_check=${SANITIZER_CHECK:-0}
malloc=${MALLOC:-jemalloc}
# Leak checks run when a server exits normally (the suite stops its servers
# with SIGTERM). The suite starts them with ASAN_OPTIONS of its own
# (allocator_may_return_null=1, replacing ours; detect_leaks stays at its
# default, on); these are for any server started outside its helper.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
enc72_units=${ENC72_UNITS-unit/type/set unit/type/list unit/sort unit/keyspace unit/scan}
suite_kind=${SUITE:-default}
if [ -z "$units" ] && [ "$suite_kind" = cluster ]; then
    units=$(cd "$suite/tests/cluster/tests" && ls *.tcl | sed 's/\.tcl$//')
elif [ -z "$units" ]; then
    units=$(sed -n '/^set ::all_tests {/,/^}/p' "$suite/tests/test_helper.tcl" | sed '1d;$d')
fi
if [ "$suite_kind" = cluster ]; then
    git --git-dir="$REDIS_GIT" archive "$tag" runtest-cluster 2>/dev/null | tar -x -C "$suite" 2>/dev/null
    [ -f "$suite/runtest-cluster" ] || { echo "test-upstream: no runtest-cluster in the suite" >&2; exit 2; }
fi
mkdir -p build/upstream
status=0
total_ours=0
total_ref=0
printf '%-44s %6s %6s %6s %6s %6s\n' unit ok err exc san reference
for unit in $units; do
    log=build/upstream/${tls_arg:+tls_}$(echo "$unit" | tr / _).log
    # A port range of our own: several runs (or engineers) at once would
    # otherwise all start at the suite's 21111. Ranges stay below the
    # kernel's ephemeral ports (32768 up), where any client's outgoing
    # connection can hold the port the suite listens on.
    base=$((22000 + ($$ % 20) * 500))
    ignore=""
    case " $enc72_units " in *" $unit "*) ignore=--ignore-encoding ;; esac
    for try in 1 2 3; do
        rm -rf "$work/run" && cp -a "$suite" "$work/run" || exit 2
        if [ "$suite_kind" = cluster ]; then
            (cd "$work/run" && exec timeout "$timeout_s" ./runtest-cluster --single "$unit" $tls_arg) >"$log" 2>&1
            break
        fi
        (cd "$work/run" && exec timeout "$timeout_s" ./runtest --single "$unit" --clients 1 \
            --baseport "$base" --portcount 500 $ignore $tls_arg) >"$log" 2>&1
        # The suite's own listening port taken (by a server of someone else's
        # tests) ends the run before any test: again, in the next range.
        grep -q '^couldn.t open socket: address already in use' "$log" || break
        base=$((22000 + (($$ + try * 7) % 20) * 500))
    done
    # the suite colours its verdicts on a terminal and sometimes off one
    plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
    if [ "$suite_kind" = cluster ]; then
        # "HH:MM:SS> name: OK" per test; a failure ends the unit
        ok=$(printf '%s\n' "$plain" | grep -cE '^[0-9:]+> .*: OK *$')
        err=$(printf '%s\n' "$plain" | grep -cE '^[0-9:]+> .*: FAILED')
        exc=$(printf '%s\n' "$plain" | grep -c '^FAILED: caught an error')
    else
        ok=$(printf '%s\n' "$plain" | grep -c '^\[ok\]')
        err=$(printf '%s\n' "$plain" | grep -c '^\[err\]')
        exc=$(printf '%s\n' "$plain" | grep -c '^\[exception\]')
    fi
    # one per report: its "==pid==ERROR:" header or UBSan's "runtime error:"
    # line, each once (the suite repeats failures in its closing summary)
    san=$(printf '%s\n' "$plain" | grep -oE '==[0-9]+==ERROR: [A-Za-z]+Sanitizer|[^ ]+: runtime error: .*' | sort -u | wc -l)
    # the reference's count, or its count of tests that run with the libc
    # allocator (a third field libc=N) when the server has no jemalloc
    refname=$unit
    [ "$suite_kind" = cluster ] && refname=cluster/$unit
    ref=$(awk -v u="$refname" -v m="$malloc" '$1 == u {r = $2; if (m == "libc" && $3 ~ /^libc=/) r = substr($3, 6); print r}' \
        tests/upstream_reference.txt)
    if [ -n "$tls_arg" ]; then
        tref=$(awk -v u="tls:$refname" '$1 == u {print $2}' tests/upstream_reference.txt)
        [ -n "$tref" ] && ref=$tref
    fi
    mark=""
    if [ -n "$ref" ]; then
        total_ours=$((total_ours + ok))
        total_ref=$((total_ref + ref))
        if [ "$ok" -lt "$ref" ]; then
            mark="  < reference"
            status=1
        fi
    fi
    if [ "$san" -gt 0 ] && [ "$san_check" = 1 ]; then
        mark="$mark  sanitizer report"
        status=1
    fi
    printf '%-44s %6s %6s %6s %6s %6s%s\n' "$unit" "$ok" "$err" "$exc" "$san" "${ref:--}" "$mark"
done
echo "units with a reference figure: ours $total_ours passed, reference $total_ref"
exit $status
