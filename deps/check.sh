#!/bin/sh
# Checks that the build's libraries are present; prints one line naming the
# Debian package to install for the first one missing, and exits 1.
malloc=${1:-jemalloc}
need() { # pkg-config name or header, Debian package
    echo "build dependency missing: install the Debian package $2 (apt-get install $2)" >&2
    exit 1
}
command -v pkg-config >/dev/null 2>&1 || need pkg-config pkg-config
pkg-config --exists libzmq || need libzmq libzmq3-dev
pkg-config --exists lua5.1 || need lua5.1 liblua5.1-0-dev
pkg-config --exists lua5.1-cjson || need lua5.1-cjson lua-cjson-dev
pkg-config --exists lua5.1-bitop || need lua5.1-bitop lua-bitop-dev
[ "$malloc" = jemalloc ] && { pkg-config --exists jemalloc || need jemalloc libjemalloc-dev; }
[ -f /usr/include/liblzf/lzf.h ] || need lzf liblzf-dev
pkg-config --exists libmd || need libmd libmd-dev
pkg-config --exists openssl || need openssl libssl-dev
exit 0
