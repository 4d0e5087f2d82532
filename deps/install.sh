#!/bin/sh
# Installs exactly the Debian packages the build, the tests and the benchmarks
# need, and only those that are missing. Runs apt-get as root (or via sudo).
# Then the npm-only test clients (tests/node's lock file: ioredis), when npm
# is there and they are missing; without the npm registry the tests that use
# them are skipped, so that step never fails the build.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
node_clients() {
    [ -d "$ROOT/tests/node/node_modules/ioredis" ] && return 0
    command -v npm >/dev/null 2>&1 || return 0
    echo "installing the npm test clients (tests/node/package-lock.json)"
    (cd "$ROOT/tests/node" && npm ci --no-audit --no-fund --loglevel=error) ||
        echo "deps/install.sh: npm could not install tests/node's clients; the ioredis tests will be skipped" >&2
}
PKGS="build-essential pkg-config libzmq3-dev liblua5.1-0-dev libjemalloc-dev liblzf-dev libmd-dev
clang libclang-rt-14-dev lua-cjson-dev lua-bitop-dev libzmq-ffi-perl python3-pytest python3-pytest-xdist python3-redis python3-zmq redis-server redis-tools
redis-sentinel nodejs node-redis python3-kombu python3-rq tcl libssl-dev tcl-tls"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    node_clients
    exit 0
fi
echo "installing:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
# Debian starts a redis-server service on 6379 (and redis-sentinel on 26379)
# after installing them; the reference and the sentinels are only ever started
# by our tests and benchmarks, on their own ports.
if command -v systemctl >/dev/null 2>&1; then
    $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
    $SUDO systemctl disable --now redis-sentinel >/dev/null 2>&1 || true
fi
node_clients
