# Build, test and benchmark the server. `make` builds src/redis-server.
# Libraries come from Debian's -dev packages through pkg-config (see deps/).

MALLOC ?= jemalloc
SANITIZER ?=
# Sanitizers replace malloc themselves: instrumented builds use the libc allocator.
ifneq ($(SANITIZER),)
override MALLOC := libc
endif
OPT ?= -O2

CC ?= cc
PKGS := libzmq lua5.1 lua5.1-cjson lua5.1-bitop libmd openssl
ifeq ($(MALLOC),jemalloc)
PKGS += jemalloc
MALLOC_CFLAGS := -DUSE_JEMALLOC
endif

# Goals that install what is missing themselves (deps/install.sh) before they
# build: on a new machine they must get as far as their install step, so the
# dependency check is left to the make they start after it. Any other goal
# (`make` alone among them) checks at once; deps/check.sh prints one line
# naming the Debian package when something is missing.
SELF_INSTALLING := run test test-reference test-upstream test-upstream-cluster test-upstream-asan bench fuzz install-deps clean
ifneq ($(filter-out $(SELF_INSTALLING),$(or $(MAKECMDGOALS),all)),)
DEPS_OK := $(shell sh deps/check.sh $(MALLOC) >&2 && echo ok)
ifneq ($(DEPS_OK),ok)
$(error missing build dependency (see the line above); run `make install-deps` or `make run`/`make test`)
endif
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# The shared libraries the server and the fuzz targets link, and the system's.
# Not libzmq nor OpenSSL: the server loads libzmq when an endpoint is configured
# (features/zmqlib.c), only its header is needed to build; the 0MQ consumer in
# utils/ links it (ZMQ_LIBS).
SHARED_LIBS := $(shell pkg-config --libs $(filter-out libzmq jemalloc openssl,$(PKGS)) 2>/dev/null) -llzf -lm -lpthread -ldl
ZMQ_LIBS := $(shell pkg-config --libs libzmq 2>/dev/null)
# jemalloc from its static archive: its C++ part (operator new), which makes the
# shared library pull in libstdc++ (860 kB of RSS in every process), is left
# out, and calls to malloc and free need no PLT.
ifeq ($(MALLOC),jemalloc)
MALLOC_LIBS := $(shell pkg-config --variable=libdir jemalloc 2>/dev/null)/libjemalloc_pic.a
endif

WARN := -Wall -Wextra -Werror
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) $(MALLOC_CFLAGS) $(PKG_CFLAGS) -I/usr/include/liblzf -Isrc $(CFLAGS)
LIBS := $(MALLOC_LIBS) $(SHARED_LIBS)

ifeq ($(SANITIZER),address)
CFLAGS_ALL += -fsanitize=address -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address
else ifeq ($(SANITIZER),undefined)
CFLAGS_ALL += -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=undefined
endif

# Objects go to a directory per build flavour so sanitizer and plain builds don't mix.
BUILD := build/$(MALLOC)$(if $(SANITIZER),-$(SANITIZER))
SERVER_SRC := $(wildcard src/core/*.c src/data/*.c src/server/*.c src/commands/*.c src/features/*.c src/persist/*.c src/acl/*.c src/repl/*.c src/cluster/*.c) src/main.c
SERVER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SERVER_SRC))
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/core/*.c src/data/*.c) src/server/resp_parse.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
# Unit tests of server/ code (test_server_*.c) link every object but main.o.
SERVER_LIB_OBJ := $(filter-out $(BUILD)/src/main.o,$(SERVER_OBJ))
UTIL_BIN := $(patsubst %.c,%,$(wildcard utils/zmq_expiry_msg_client.c))

.PHONY: all clean install uninstall test test-unit test-integration test-reference run bench install-deps fuzz fuzz-build test-upstream test-upstream-cluster test-upstream-asan test-upstream-tls
all: src/redis-server $(UTIL_BIN)

# The binary is shared by the flavours: relink when the last one was linked
# from another flavour's objects (which are older than it, so make would not).
ifneq ($(shell cat src/.build-flavour 2>/dev/null),$(BUILD))
.PHONY: src/redis-server
endif

src/redis-server: $(SERVER_OBJ)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $(SERVER_OBJ) $(LIBS)
	@echo "$(BUILD)" > src/.build-flavour

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -Itests/unit -o $@ $< $(LIB_OBJ) $(LIBS)

$(BUILD)/tests/test_server_%: tests/unit/test_server_%.c $(SERVER_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -Itests/unit -o $@ $< $(SERVER_LIB_OBJ) $(LIBS)

utils/zmq_expiry_msg_client: utils/zmq_expiry_msg_client.c
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< $(ZMQ_LIBS)

-include $(SERVER_OBJ:.o=.d)

# Fuzzing (libFuzzer, clang): every target in tests/fuzz links against an
# archive of the server's objects built with ASan and UBSan, so each pulls in
# only what it calls. The libc allocator: ASan replaces malloc itself.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
FUZZ_BUILD := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) $(PKG_CFLAGS) -I/usr/include/liblzf -Isrc $(FUZZ_SAN)
FUZZ_LIBS := $(SHARED_LIBS)
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out src/main.c,$(SERVER_SRC)))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/libserver.a: $(FUZZ_OBJ)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJ)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libserver.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libserver.a $(FUZZ_LIBS)

-include $(FUZZ_OBJ:.o=.d)

fuzz-build: $(FUZZ_BIN)

install-deps:
	sh deps/install.sh

test-unit: $(UNIT_BIN)
	sh tests/run_unit.sh $(UNIT_BIN)

# `make test` installs what is missing, builds, runs unit and integration tests
# and ends with one line "N passed, N failed".
test:
	sh deps/install.sh
	$(MAKE) all $(UNIT_BIN) fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/run_all.sh $(UNIT_BIN)

# Runs every fuzz target for FUZZ_SECONDS each (make test does it too).
fuzz:
	sh deps/install.sh
	$(MAKE) fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/run_fuzz.sh

test-integration: all
	/usr/bin/python3 -m pytest -q tests

test-reference:
	sh deps/install.sh
	REDIS_SERVER=$$(command -v redis-server) REFERENCE=1 /usr/bin/python3 -m pytest -q tests

run:
	sh deps/install.sh
	$(MAKE) all
	./src/redis-server ./redis.conf

# Redis 7.0.15's own suite against ours, unit by unit, next to the reference's
# counts: make test-upstream [UNITS="unit/type/incr unit/expire"], the suite read
# from REDIS_GIT or REDIS_SRC (utils/test_upstream.sh, README.md).
test-upstream:
	@sh utils/test_upstream.sh --check
	sh deps/install.sh
	$(MAKE) all
	MALLOC=$(MALLOC) UNITS="$(UNITS)" sh utils/test_upstream.sh

# Redis Cluster's own suite (runtest-cluster: 31 units, ~20 servers each, ports
# 30000 up, so one run at a time): make test-upstream-cluster [UNITS="00-base"].
# Long; not part of `make test`.
test-upstream-cluster:
	@sh utils/test_upstream.sh --check
	sh deps/install.sh
	$(MAKE) all
	SUITE=cluster MALLOC=$(MALLOC) UNITS="$(UNITS)" sh utils/test_upstream.sh

# Redis 7.0.15's suite over TLS (runtest --tls: the suite's servers on a TLS
# port only, with tls-replication and tls-cluster): make test-upstream-tls
# [UNITS=...]; SUITE=cluster for the cluster suite. Needs tcl-tls. Long.
test-upstream-tls:
	@sh utils/test_upstream.sh --check
	sh deps/install.sh
	$(MAKE) all
	TLS=1 SUITE=$(SUITE) MALLOC=$(MALLOC) UNITS="$(UNITS)" sh utils/test_upstream.sh

# The same against the ASan build, failing on any sanitizer report as well:
# make test-upstream-asan [UNITS="unit/expire unit/type/list"]. The binary is
# copied out of src/ (which the next plain `make` relinks) so it stays the one
# under test while the units run. Not part of `make test`: slow.
ASAN_SERVER := build/libc-address/redis-server
test-upstream-asan:
	@sh utils/test_upstream.sh --check
	sh deps/install.sh
	$(MAKE) SANITIZER=address all
	cp src/redis-server $(ASAN_SERVER)
	SERVER=$(ASAN_SERVER) SANITIZER_CHECK=1 MALLOC=libc UNITS="$(UNITS)" sh utils/test_upstream.sh

# make bench [BENCH_ARGS="--quick --callgrind --only memory,cpu"] (utils/bench.py --help)
bench:
	sh deps/install.sh
	$(MAKE) all
	sh utils/bench.sh $(BENCH_ARGS)

# make install [PREFIX=/usr/local] [DESTDIR=/scratch]: the server, the 0MQ
# consumers from utils/, redis.conf as an example (an existing one is never
# overwritten) and the systemd unit with this prefix's paths in it.
# make uninstall removes what install put there, but not a redis.conf.
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
CONFDIR := $(PREFIX)/etc/redis
SHAREDIR := $(PREFIX)/share/redis
UNITDIR := $(PREFIX)/lib/systemd/system
INSTALL_UTILS := zmq_expiry_consumer.py zmq_expiry_msg_client.pl
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(CONFDIR) $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(UNITDIR)
	install -m 755 src/redis-server $(DESTDIR)$(BINDIR)/redis-server
	install -m 755 $(UTIL_BIN) $(DESTDIR)$(BINDIR)/
	for f in $(INSTALL_UTILS); do install -m 755 utils/$$f $(DESTDIR)$(BINDIR)/$$f; done
	install -m 644 redis.conf $(DESTDIR)$(SHAREDIR)/redis.conf.example
	[ -e $(DESTDIR)$(CONFDIR)/redis.conf ] || install -m 644 redis.conf $(DESTDIR)$(CONFDIR)/redis.conf
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@CONFDIR@|$(CONFDIR)|g' utils/redis-server.service.in > $(DESTDIR)$(UNITDIR)/redis-server.service
	chmod 644 $(DESTDIR)$(UNITDIR)/redis-server.service

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/redis-server $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(UTIL_BIN)) $(INSTALL_UTILS))
	rm -f $(DESTDIR)$(SHAREDIR)/redis.conf.example $(DESTDIR)$(UNITDIR)/redis-server.service
	-rmdir $(DESTDIR)$(SHAREDIR) 2>/dev/null

clean:
	rm -rf build src/redis-server src/.build-flavour $(UTIL_BIN)
