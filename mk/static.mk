# ---- static/: pagesleuth-live, the board-side build (docs/static-build.md) ---------------
# The live sources only (lib/ + live/ + static/), linked statically against libc and nothing
# else, so one file copied to a board captures records (snap) and working sets (wss) that the
# full pagesleuth analyses elsewhere.
#   make static                      $(B)/static-host/pagesleuth-live (this machine, $(CC))
#   make static-cross                every cross target whose compiler is installed
#   make static-cross ARCH=ppc32     one of: ppc32 armhf arm64 ppc64le (or host)
# Output: $(B)/static-ARCH/pagesleuth-live (stripped) and pagesleuth-live.full (symbols).
# Warnings are errors on every target (32-bit ones catch format and off_t mistakes), and so
# are linker warnings: glibc warns when a static program calls into NSS or dlopen, which
# would need the board's shared libraries after all.
# lib/compress_out.c (libzstd, zlib) is replaced by static/compress_out_none.c: libc alone.
STATIC_SRC    := $(filter-out lib/compress_out.c,$(LIB_SRC)) $(LIVE_SRC) $(wildcard static/*.c)
STATIC_HDRS   := $(wildcard lib/*.h live/*.h) cli/commands.h
STATIC_CFLAGS ?= -O2 -Werror
STATIC_BASE   := -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) -Ilib -Ilive -Icli
STATIC_LDFLAGS := -static -Wl,--fatal-warnings

# Cross targets: compiler prefix and the Debian packages that provide it (with libc.a).
STATIC_CROSS_ARCHES := ppc32 armhf arm64 ppc64le
static_prefix_host    :=
static_prefix_ppc32   := powerpc-linux-gnu-
static_prefix_armhf   := arm-linux-gnueabihf-
static_prefix_arm64   := aarch64-linux-gnu-
static_prefix_ppc64le := powerpc64le-linux-gnu-
static_pkgs_ppc32     := gcc-powerpc-linux-gnu libc6-dev-powerpc-cross
static_pkgs_armhf     := gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
static_pkgs_arm64     := gcc-aarch64-linux-gnu libc6-dev-arm64-cross
static_pkgs_ppc64le   := gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
static_cc    = $(if $(static_prefix_$(1)),$(static_prefix_$(1))gcc,$(CC))
static_strip = $(static_prefix_$(1))strip
# Installed cross compilers, found on PATH without running a shell.
static_have  = $(firstword $(wildcard $(addsuffix /$(static_prefix_$(1))gcc,$(subst :, ,$(PATH)))))
STATIC_CROSS_AVAILABLE = $(foreach a,$(STATIC_CROSS_ARCHES),$(if $(call static_have,$(a)),$(a)))

# One object directory and one binary per target.
define static_target
$(B)/static-$(1)/obj/%.o: %.c $(STATIC_HDRS)
	@mkdir -p $$(dir $$@)
	$(call static_cc,$(1)) $(STATIC_BASE) $(STATIC_CFLAGS) -c $$< -o $$@
$(B)/static-$(1)/pagesleuth-live: $(call obj,$(B)/static-$(1)/obj,$(STATIC_SRC))
	$(call static_cc,$(1)) $(STATIC_CFLAGS) $(STATIC_LDFLAGS) $$^ -lm -o $$@.full
	$(call static_strip,$(1)) -o $$@.tmp $$@.full
	mv $$@.tmp $$@
	@echo "static-$(1): $$@: $$$$(stat -c %s $$@) bytes stripped ($$$$(stat -c %s $$@.full) with symbols)"
endef
$(foreach a,host $(STATIC_CROSS_ARCHES),$(eval $(call static_target,$(a))))

.PHONY: static static-cross
static: $(B)/static-host/pagesleuth-live

ifneq ($(ARCH),)
ifeq ($(filter host $(STATIC_CROSS_ARCHES),$(ARCH)),)
static-cross:
	@echo "make static-cross: unknown ARCH=$(ARCH) (one of: host $(STATIC_CROSS_ARCHES))"; exit 2
else
static-cross:
	@[ "$(ARCH)" = host ] || [ -n "$(call static_have,$(ARCH))" ] || { \
		echo "make static-cross: no $(static_prefix_$(ARCH))gcc (apt-get install $(static_pkgs_$(ARCH)))"; exit 2; }
	@$(MAKE) --no-print-directory $(B)/static-$(ARCH)/pagesleuth-live
endif
else
static-cross: $(foreach a,$(STATIC_CROSS_AVAILABLE),$(B)/static-$(a)/pagesleuth-live)
	@$(foreach a,$(filter-out $(STATIC_CROSS_AVAILABLE),$(STATIC_CROSS_ARCHES)),\
		echo "static-cross: skipped $(a): no $(static_prefix_$(a))gcc (apt-get install $(static_pkgs_$(a)))";)
	@[ -n "$(STATIC_CROSS_AVAILABLE)" ] || { echo "static-cross: no cross compiler installed"; exit 2; }
endif
