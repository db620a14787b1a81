# pagesleuth build. Sources are picked up by directory, so adding an analysis, an
# architecture or a dump format is adding a file. See README.md for what each part does.
CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral
BASE    := -std=gnu11 -D_GNU_SOURCE $(WARN) -Ilib -Ianalyzer -Icli -Iwalker -Icoredump -Ilive -Itrace -Idb \
	   -I/usr/include/postgresql
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRC      := $(wildcard lib/*.c)
ANALYZER_SRC := $(wildcard analyzer/*.c)
LIVE_SRC     := $(wildcard live/*.c)
WALKER_SRC   := $(wildcard walker/*.c)
COREDUMP_SRC := $(wildcard coredump/*.c)
# Trace sources' converters (stock Lackey output) and the working-set core they share with
# the Valgrind tool (valgrind/, built by its own rules in mk/valgrind.mk).
TRACE_SRC    := $(wildcard trace/*.c)
# The snapshot database (pagesleuth db): SQLite and PostgreSQL backends.
DB_SRC       := $(wildcard db/*.c)
CLI_SRC      := $(wildcard cli/*.c)
# Everything but the CLI's main(): what unit tests link against.
CORE_SRC     := $(LIB_SRC) $(ANALYZER_SRC) $(LIVE_SRC) $(WALKER_SRC) $(COREDUMP_SRC) $(TRACE_SRC) $(DB_SRC)
TOOL_SRC     := $(CORE_SRC) $(CLI_SRC)
HDRS         := $(wildcard lib/*.h analyzer/*.h cli/*.h live/*.h walker/*.h coredump/*.h trace/*.h db/*.h tests/unit/*.h)
UNIT_SRC     := $(wildcard tests/unit/*.c)
# libkdumpfile: dump formats; libdeflate: kdump pages inflated fast; libelf/libdw: vmlinux DWARF and ELF details; libbpf: BTF;
# sqlite3 and libpq: the snapshot database's two backends; zstd and zlib: compressed records.
LDLIBS       := -lkdumpfile -ldeflate -ldw -lelf -lbpf -lsqlite3 -lzstd -lz -lm -lpthread
# B: build directory (helpers building in parallel use B=/tmp/something).
B            ?= build

obj = $(patsubst %.c,$(1)/%.o,$(2))

.PHONY: all asan test check deps fixtures bench bench-db bench-dump fuzz fuzz-inputs fuzz-dumps clean report-demo crash-ext crash-cross install uninstall man
all: $(B)/pagesleuth $(B)/libpagesleuth.a $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
asan: $(B)-asan/pagesleuth $(patsubst tests/unit/%.c,$(B)-asan/tests/%,$(UNIT_SRC))

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) -c $< -o $@
$(B)-asan/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) -O1 -g $(SAN) -c $< -o $@

$(B)/libpagesleuth.a: $(call obj,$(B),$(LIB_SRC))
	ar rcs $@ $^
$(B)/pagesleuth: $(call obj,$(B),$(TOOL_SRC))
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@
$(B)-asan/pagesleuth: $(call obj,$(B)-asan,$(TOOL_SRC))
	$(CC) $(SAN) $^ $(LDLIBS) -o $@

# Unit tests link everything but the CLI's main().
$(B)/tests/%: tests/unit/%.c $(call obj,$(B),$(CORE_SRC)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $< $(call obj,$(B),$(CORE_SRC)) $(LDLIBS) -o $@
$(B)-asan/tests/%: tests/unit/%.c $(call obj,$(B)-asan,$(CORE_SRC)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) -O1 -g $(SAN) $< $(call obj,$(B)-asan,$(CORE_SRC)) $(LDLIBS) -o $@

# Fuzzers (libFuzzer, clang): the record parser, and the walker over synthetic memory.
$(B)/fuzz/%: fuzz/%.c $(LIB_SRC) $(WALKER_SRC) $(HDRS) $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE) -Werror -g -O1 -fsanitize=fuzzer,address,undefined $< $(LIB_SRC) $(WALKER_SRC) $(LDLIBS) -o $@
# Trace records through the analyzer (model, trace analyses, every renderer).
$(B)/fuzz/fuzz_trace: fuzz/fuzz_trace.c $(LIB_SRC) $(ANALYZER_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	clang $(BASE) -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $< $(LIB_SRC) $(ANALYZER_SRC) $(LDLIBS) -o $@

# The dump readers' first contact with a file, on real fixture dumps.
$(B)/fuzz/fuzz_dump_header: fuzz/fuzz_dump_header.c $(LIB_SRC) $(WALKER_SRC) $(COREDUMP_SRC) $(HDRS) $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE) -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $< $(LIB_SRC) $(WALKER_SRC) $(COREDUMP_SRC) $(LDLIBS) -o $@
# The walk over real fixture dumps, with the bytes it reads mutated (extract's code in process).
# Edge coverage without comparison tracing: the compares' operands come from the dump, not
# from the input, and tracing each one made a walk 3x slower (5 -> 1.6 ms per process).
$(B)/fuzz/fuzz_dump_walk: fuzz/fuzz_dump_walk.c $(LIB_SRC) $(WALKER_SRC) $(COREDUMP_SRC) $(HDRS) $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE) -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-coverage=trace-cmp -fno-sanitize-recover=all $< $(LIB_SRC) $(WALKER_SRC) $(COREDUMP_SRC) $(LDLIBS) -o $@
# The small inputs a user hands over: allocation rules files, Lackey traces (the converter
# as the CLI runs it), and type information (BTF, profiles, System.map).
$(B)/fuzz/fuzz_rules: fuzz/fuzz_rules.c trace/alloc_rules.c $(HDRS)
	@mkdir -p $(dir $@)
	clang $(BASE) -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $< trace/alloc_rules.c -o $@
$(B)/fuzz/fuzz_lackey: fuzz/fuzz_lackey.c $(LIB_SRC) $(TRACE_SRC) $(HDRS) $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	clang $(BASE) -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $< $(LIB_SRC) $(TRACE_SRC) $(LDLIBS) -o $@

# ---- crash-ext/: pagesleuth.so for crash (`extend pagesleuth.so`) -------------------------
# Built against one crash's defs.h (crash's structures move between versions; the library
# refuses to load into another): CRASH is that crash, CRASH_INCLUDE the directory of its
# defs.h, CRASH_TARGET its target. Debian's crash 8.0.2 by default; for a crash built from
# source: make crash-ext CRASH=/path/crash CRASH_INCLUDE=/path (the directory of defs.h).
# make crash-ext CRASH_BUILD=9.0.2 (or 8.0.6) first builds that crash from Debian's source
# (scripts/build-crash.sh, cached in $PAGESLEUTH_CACHE/crash-VERSION/) and then the library
# for it: crash 9.0.2 opens Linux 7.x, which 8.0.6 cannot.
# Output: $(B)/crash-ext/<version>-<target>/pagesleuth.so.
CRASH         ?= /usr/bin/crash
CRASH_INCLUDE ?= $(if $(filter /usr/bin/crash,$(CRASH)),/usr/include/crash,$(dir $(CRASH)))
# The target crash was built for, from the machine-init function it exports.
CRASH_TARGET  ?= $(shell nm -D --defined-only $(CRASH) 2>/dev/null | \
	awk '$$3 == "x86_64_init" { t = "X86_64" } $$3 == "arm64_init" { t = "ARM64" } \
	     $$3 == "ppc64_init" { t = "PPC64" } END { print t }')
# Not taken from the environment: scripts/build-crash.sh reads CRASH_VERSION there as the
# crash to build. On the command line it still overrides.
CRASH_VERSION  = $(shell $(CRASH) --version 2>/dev/null | awk '/^crash /{print $$2; exit}')
# The gdb crash embeds, as defs.h wants it defined: GDB_10_2 for 8.0.x, GDB_16_3 for 9.0.2.
CRASH_GDB      = $(or $(shell $(CRASH) --version 2>/dev/null | \
	awk '/^GNU gdb/ { v = $$NF; gsub(/[.]/, "_", v); print "GDB_" v; exit }'),GDB_10_2)
CRASH_EXT_DIR  = $(B)/crash-ext/$(CRASH_VERSION)-$(CRASH_TARGET)
# The walker and what it needs, position-independent, every symbol hidden: crash exports
# its own (libiberty's xmalloc, zlib, ...), which must not replace ours or the reverse.
# The analyzer too, for `pagesleuth summary` (its command-line front end aside).
CRASH_EXT_CORE := $(LIB_SRC) $(WALKER_SRC) $(filter-out coredump/cmd_%.c,$(COREDUMP_SRC)) \
		  $(filter-out analyzer/cmd_%.c,$(ANALYZER_SRC))
PIC            := -fPIC -fvisibility=hidden
CRASH_EXT_SRC  := $(wildcard crash-ext/*.c)
CRASH_EXT_HDRS := $(wildcard crash-ext/*.h)

ifneq ($(CRASH_BUILD),)
crash-ext:
	crash=$$(CRASH_VERSION=$(CRASH_BUILD) CRASH_TARGET=X86_64 ./scripts/build-crash.sh) && \
	$(MAKE) --no-print-directory crash-ext CRASH_BUILD= CRASH="$$crash" CRASH_TARGET=X86_64
else
crash-ext:
	@[ -n "$(CRASH_VERSION)" ] || { echo "make crash-ext: cannot run $(CRASH) --version (install crash, or set CRASH=)"; exit 1; }
	@[ -f "$(CRASH_INCLUDE)/defs.h" ] || { echo "make crash-ext: no defs.h in $(CRASH_INCLUDE) (set CRASH_INCLUDE=)"; exit 1; }
	@[ -n "$(CRASH_TARGET)" ] || { echo "make crash-ext: cannot tell $(CRASH)'s target (set CRASH_TARGET=X86_64, ARM64 or PPC64)"; exit 1; }
	$(MAKE) --no-print-directory $(CRASH_EXT_DIR)/pagesleuth.so CRASH_VERSION=$(CRASH_VERSION) \
		CRASH_TARGET=$(CRASH_TARGET) CRASH_GDB=$(CRASH_GDB)
endif

# crash 8.0.6 (CRASH_BUILD=VERSION for another) built on this x86_64 host for another
# architecture's dumps (crash's own `make target=...`, cached in
# $PAGESLEUTH_CACHE/crash-8.0.6-arm64/ or -ppc64/), and the extension for it:
#   make crash-cross                 ARCH=arm64, target=ARM64 (~15 min once)
#   make crash-cross ARCH=ppc64le    target=PPC64 (~36 min once): ppc64le dumps
# tests/cases/crash_ext_arm64.sh and crash_ext_ppc64le.sh run them when present.
CRASH_CROSS_arm64   := ARM64
CRASH_CROSS_ppc64le := PPC64
crash-cross:
	@[ -n "$(CRASH_CROSS_$(or $(ARCH),arm64))" ] || { echo "make crash-cross: ARCH=$(ARCH): one of arm64 ppc64le (32-bit targets: pagesleuth extract)"; exit 2; }
	crash=$$(CRASH_VERSION=$(or $(CRASH_BUILD),8.0.6) CRASH_TARGET=$(CRASH_CROSS_$(or $(ARCH),arm64)) ./scripts/build-crash.sh) && \
	$(MAKE) --no-print-directory crash-ext CRASH_BUILD= CRASH="$$crash" CRASH_TARGET=$(CRASH_CROSS_$(or $(ARCH),arm64))

$(B)/pic/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $(PIC) -c $< -o $@
# defs.h as a system header: its own warnings are crash's business. -D$(CRASH_GDB) as crash's
# extensions/Makefile builds (GDB_FLAGS: -DGDB_10_2 for 8.0.x, -DGDB_16_3 for 9.0.2).
$(CRASH_EXT_DIR)/%.o: crash-ext/%.c $(HDRS) $(CRASH_EXT_HDRS) $(CRASH_INCLUDE)/defs.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $(PIC) -Icrash-ext -isystem $(CRASH_INCLUDE) -D$(CRASH_TARGET) -D$(CRASH_GDB) \
		-DPS_CRASH_VERSION='"$(CRASH_VERSION)"' -c $< -o $@
$(CRASH_EXT_DIR)/pagesleuth.so: $(patsubst crash-ext/%.c,$(CRASH_EXT_DIR)/%.o,$(CRASH_EXT_SRC)) $(call obj,$(B)/pic,$(CRASH_EXT_CORE))
	$(CC) -shared -Wl,-Bsymbolic \
		$(CFLAGS) $^ -lkdumpfile -ldeflate -ldw -lelf -lbpf -lzstd -lz -lm -o $@.tmp
	./scripts/check-crash-ext.sh $@.tmp $(CRASH)
	mv $@.tmp $@

deps:
	./scripts/install-deps.sh

test: deps
	./tests/run.sh

check: test

fixtures:
	$(MAKE) -C tests/fixtures

fuzz:
	./fuzz/run.sh $(or $(SECONDS),300)

# Rules files, Lackey traces, profiles, System.map, BTF, dump headers, the walk over real dumps and its pass over every frame, SECONDS (default 300) each, the
# corpora kept in build/fuzz-corpus/ so that a campaign resumes where the last one ended.
fuzz-inputs:
	for k in rules lackey profile sysmap btf dump-headers dump-walk dump-frames; do \
		PAGESLEUTH_FUZZ_CORPUS=$(CURDIR)/build/fuzz-corpus ./fuzz/inputs.sh $$k $(or $(SECONDS),300) || exit 1; \
	done

# The mutation campaign on the real fixture dumps (tests/tools/mutate_dump.py), SECONDS per
# dump; findings are kept as recipes in build/fuzz-dumps/.
fuzz-dumps: all asan
	PAGESLEUTH=build-asan/pagesleuth PAGESLEUTH_FUZZ_DUMP_SECONDS=$(or $(SECONDS),600) \
	PAGESLEUTH_FUZZ_DUMP_SEED=$(or $(SEED),$$(date +%s)) PAGESLEUTH_FUZZ_DUMP_FINDINGS=build/fuzz-dumps \
		bash tests/cases/fuzz_dumps.sh

bench: all
	./bench/run.sh

# pagesleuth db: 1,000 board snapshots into SQLite and PostgreSQL, and the queries over them.
bench-db: deps
	./bench/db.sh

# The big dumps bench/extract.sh compares pagesleuth, crash and drgn on (2.5 GiB guests,
# 118 processes; cached, never committed) and crash 8.0.6 built from Debian's source.
bench-dump:
	$(MAKE) -C tests/fixtures deps  # QEMU, and for the ppc32 guest's kernel linux-source-6.1 and pahole
	./scripts/build-crash.sh
	./bench/bigdump/gen.py
	./bench/bigdump/gen.py --arch arm64
	./bench/bigdump/gen.py --arch ppc64le
	./bench/bigdump/gen.py --arch armhf
	./bench/bigdump/gen.py --arch ppc32

# Only what building and the demo need (scripts/install-deps.sh build), not the test suite's.
report-demo:
	./scripts/report-demo.sh

clean:
	rm -rf build $(B)-asan build-fuzz

# Build rules of parts with their own toolchains (the Valgrind tool, static/cross builds).
include $(wildcard mk/*.mk)
