#!/bin/sh
# bench.sh: `make bench` — every benchmark against ours and the reference in one run.
cd "$(dirname "$0")/.." || exit 1
exec /usr/bin/python3 utils/bench.py "$@"
