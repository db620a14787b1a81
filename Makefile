# pagesleuth build. Sources are picked up by directory, so adding an analysis, an
# architecture or a dump format is adding a file. See README.md for what each part does.
CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral
BASE    := -std=gnu11 -D_GNU_SOURCE $(WARN) -Ilib -Ianalyzer -Icli
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRC      := $(wildcard lib/*.c)
ANALYZER_SRC := $(wildcard analyzer/*.c)
LIVE_SRC     := $(wildcard live/*.c)
CLI_SRC      := $(wildcard cli/*.c)
TOOL_SRC     := $(LIB_SRC) $(ANALYZER_SRC) $(LIVE_SRC) $(CLI_SRC)
HDRS         := $(wildcard lib/*.h analyzer/*.h cli/*.h live/*.h)
UNIT_SRC     := $(wildcard tests/unit/*.c)
LDLIBS       := -lz -lm
# B: build directory (helpers building in parallel use B=/tmp/something).
B            ?= build

obj = $(patsubst %.c,$(1)/%.o,$(2))

.PHONY: all asan test check deps fixtures bench fuzz clean report-demo
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
$(B)/tests/%: tests/unit/%.c $(call obj,$(B),$(LIB_SRC) $(ANALYZER_SRC) $(LIVE_SRC)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(CFLAGS) $< $(call obj,$(B),$(LIB_SRC) $(ANALYZER_SRC) $(LIVE_SRC)) $(LDLIBS) -o $@
$(B)-asan/tests/%: tests/unit/%.c $(call obj,$(B)-asan,$(LIB_SRC) $(ANALYZER_SRC) $(LIVE_SRC)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE) -O1 -g $(SAN) $< $(call obj,$(B)-asan,$(LIB_SRC) $(ANALYZER_SRC) $(LIVE_SRC)) $(LDLIBS) -o $@

# Fuzzer for the record parser (libFuzzer, clang).
$(B)/fuzz/%: fuzz/%.c $(LIB_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	clang $(BASE) -g -O1 -fsanitize=fuzzer,address,undefined $< $(LIB_SRC) -o $@

deps:
	./scripts/install-deps.sh

test: deps
	./tests/run.sh

check: test

fixtures:
	$(MAKE) -C tests/fixtures

fuzz:
	./fuzz/run.sh $(or $(SECONDS),300)

bench: all
	./bench/run.sh

report-demo: deps all
	./scripts/report-demo.sh

clean:
	rm -rf build $(B)-asan
