# ---- valgrind/: the pagesleuth Valgrind tool (--tool=pagesleuth) ---------------------------
# `make valgrind-tool` builds $(B)/valgrind-lib/, a private VALGRIND_LIB directory: the tool
# (pagesleuth-amd64-linux, a static executable linked against Debian's libcoregrind at
# Valgrind's load address), the malloc-replacement preload (valgrind/heap.c replaces malloc
# when a heap analysis is asked for, and blanks the preload out of LD_PRELOAD otherwise;
# without the file Valgrind silently leaves malloc alone) and symlinks to everything of the
# stock tools' directory (vgpreload_core, default.supp, the other tools). Nothing is
# installed: `pagesleuth valgrind` (cli/cmd_valgrind.c) sets VALGRIND_LIB to it.
# The tool links libcoregrind statically: rebuild when the valgrind package changes (the
# objects depend on the archives, so make does).
# ARCH=arm64|armhf|ppc64el (ppc64le) cross-builds the same tool for a board:
# $(B)/valgrind-lib-ARCH/, with the target's valgrind package (Debian 12's valgrind:ARCH,
# fetched into ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/fixtures by the fixtures'
# fetch-deb.sh: apt-get download + dpkg -x, never installed) for headers and archives, the
# cross compiler CROSS_COMPILE (Debian's gcc-*-linux-gnu*), and copies of what the tool
# needs from the package (vgpreload_core, default.supp, the launcher as bin/valgrind):
# the directory is copied onto the board as it is (docs/valgrind.md, "On a board").
# VG_ARCH: ARCH as Debian names it (ARCH is crash-cross's too, ppc64le there; left alone).
# An ARCH the tool has no build for leaves the other targets alone and fails valgrind-tool.
# powerpc (32-bit): Debian 12 has no such port, so no valgrind:powerpc package: Valgrind
# 3.19 is built from Debian 12's source package instead (mk/valgrind-from-source.sh).
VG_ARCHES     := arm64 armhf ppc64el powerpc
VG_ARCH       := $(patsubst x86_64,amd64,$(patsubst ppc64le,ppc64el,$(patsubst aarch64,arm64,$(or $(ARCH),amd64))))
VG_BAD_ARCH   := $(if $(filter amd64 $(VG_ARCHES),$(VG_ARCH)),,$(VG_ARCH))
ifneq ($(VG_BAD_ARCH),)
VG_ARCH       := amd64
endif
VG_DEB_VERSION ?= 1:3.19.0-1
ifeq ($(VG_ARCH),amd64)
VG_LIBDIR     ?= /usr/lib/x86_64-linux-gnu/valgrind
VG_EXECDIR    ?= /usr/libexec/valgrind
VG_INCLUDE    ?= /usr/include/valgrind
VG_PLATFORM   := amd64-linux
VG_OUT        := $(B)/valgrind-lib
VG_OBJDIR     := $(B)/valgrind-obj
VG_CC         := $(CC)
VG_M          := -m64
VG_DEFS       := -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1
VG_RECARCH    := x86_64
VG_ENDIAN     := little
VG_PKG_STAMP  :=
else
# per architecture: the Debian triplet, Valgrind's platform, its -m flags (as Valgrind's own
# build: AM_FLAG_M3264_*), the record header's arch and byte order
VG_TRIPLET_arm64   := aarch64-linux-gnu
VG_TRIPLET_armhf   := arm-linux-gnueabihf
VG_TRIPLET_ppc64el := powerpc64le-linux-gnu
VG_TRIPLET_powerpc := powerpc-linux-gnu
VG_PLAT_arm64      := arm64-linux
VG_PLAT_armhf      := arm-linux
VG_PLAT_ppc64el    := ppc64le-linux
VG_PLAT_powerpc    := ppc32-linux
VG_VGA_arm64       := arm64
VG_VGA_armhf       := arm
VG_VGA_ppc64el     := ppc64le
VG_VGA_powerpc     := ppc32
VG_M_arm64         :=
VG_M_armhf         := -marm -mcpu=cortex-a8
VG_M_ppc64el       := -m64
VG_M_powerpc       := -m32
VG_RECARCH_arm64   := arm64
VG_RECARCH_armhf   := arm
VG_RECARCH_ppc64el := ppc64le
VG_RECARCH_powerpc := ppc32
VG_TRIPLET    := $(VG_TRIPLET_$(VG_ARCH))
VG_PLATFORM   := $(VG_PLAT_$(VG_ARCH))
CROSS_COMPILE ?= $(VG_TRIPLET)-
VG_CC         := $(CROSS_COMPILE)gcc
VG_M          := $(VG_M_$(VG_ARCH))
VG_DEFS       := -DVGA_$(VG_VGA_$(VG_ARCH))=1 -DVGO_linux=1 -DVGP_$(VG_VGA_$(VG_ARCH))_linux=1 \
	-DVGPV_$(VG_VGA_$(VG_ARCH))_linux_vanilla=1
VG_RECARCH    := $(VG_RECARCH_$(VG_ARCH))
VG_ENDIAN     := $(if $(filter powerpc,$(VG_ARCH)),big,little)
PS_CACHE      ?= $(or $(PAGESLEUTH_CACHE),/var/cache/pagesleuth)
# the extracted package, reached through a link the fetch rule makes
VG_PKG        := $(B)/valgrind-pkg-$(VG_ARCH)
VG_PKG_STAMP  := $(VG_PKG).stamp
VG_LIBDIR     := $(VG_PKG)/usr/lib/$(VG_TRIPLET)/valgrind
VG_EXECDIR    := $(VG_PKG)/usr/libexec/valgrind
VG_INCLUDE    := $(VG_PKG)/usr/include/valgrind
VG_OUT        := $(B)/valgrind-lib-$(VG_ARCH)
VG_OBJDIR     := $(B)/valgrind-obj-$(VG_ARCH)
endif
VG_CFLAGS     := -std=gnu11 $(WARN) -Wno-shadow -isystem $(VG_INCLUDE) -Ivalgrind -Itrace \
	$(VG_DEFS) -DPS_VG_PLATFORM='"$(VG_PLATFORM)"' \
	-DPS_VG_ARCH='"$(VG_RECARCH)"' -DPS_VG_ENDIAN='"$(VG_ENDIAN)"' \
	$(VG_M) -O2 -g -fno-strict-aliasing -fno-builtin -fno-stack-protector -fomit-frame-pointer \
	-fno-pic -fno-pie $(filter -Werror,$(CFLAGS))
VG_TOOL_SRC   := $(wildcard valgrind/*.c) $(filter-out trace/cmd_%.c,$(wildcard trace/*.c))
VG_TOOL_HDRS  := $(wildcard valgrind/*.h) $(filter-out trace/cmd_%.h,$(wildcard trace/*.h))
VG_ARCHIVES   := $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a $(VG_LIBDIR)/libvex-$(VG_PLATFORM).a
VG_PRELOAD    := $(VG_OUT)/vgpreload_pagesleuth-$(VG_PLATFORM).so

.PHONY: valgrind-tool valgrind-tests
ifneq ($(VG_BAD_ARCH),)
valgrind-tool:
	@echo "make valgrind-tool: ARCH=$(ARCH): the tool builds for amd64 $(VG_ARCHES) (ppc64le = ppc64el)"; exit 2
else
valgrind-tool: $(VG_OUT)/pagesleuth-$(VG_PLATFORM) $(VG_PRELOAD) $(VG_OUT)/.links
endif

$(VG_OBJDIR)/%.o: %.c $(VG_TOOL_HDRS) $(VG_ARCHIVES) $(VG_PKG_STAMP)
	@mkdir -p $(dir $@)
	$(VG_CC) $(VG_CFLAGS) -c $< -o $@

$(VG_OUT)/pagesleuth-$(VG_PLATFORM): $(patsubst %.c,$(VG_OBJDIR)/%.o,$(VG_TOOL_SRC)) $(VG_ARCHIVES)
	@[ -f $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a ] || { echo "make valgrind-tool: $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a missing (apt-get install valgrind)"; exit 1; }
	@mkdir -p $(dir $@)
	$(VG_CC) $(VG_M) -static -nodefaultlibs -nostartfiles -u _start -Wl,-Ttext-segment=0x58000000 \
		$(patsubst %.c,$(VG_OBJDIR)/%.o,$(VG_TOOL_SRC)) \
		$(VG_ARCHIVES) -lgcc $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a -o $@.tmp
	mv $@.tmp $@

$(VG_OUT)/vgpreload_pagesleuth-$(VG_PLATFORM).so: $(VG_LIBDIR)/libreplacemalloc_toolpreload-$(VG_PLATFORM).a
	@mkdir -p $(dir $@)
	$(VG_CC) $(VG_M) -nodefaultlibs -shared -Wl,-z,interpose,-z,initfirst \
		-Wl,-soname,vgpreload_pagesleuth-$(VG_PLATFORM).so \
		-Wl,--whole-archive $< -Wl,--no-whole-archive -o $@.tmp
	mv $@.tmp $@

ifeq ($(VG_ARCH),amd64)
# Everything of the stock directory the tool does not provide itself, as symlinks.
$(VG_OUT)/.links: $(VG_EXECDIR)
	@mkdir -p $(VG_OUT)
	@for f in $(VG_EXECDIR)/*; do \
		n=$$(basename "$$f"); \
		case "$$n" in pagesleuth-*|vgpreload_pagesleuth-*) continue;; esac; \
		ln -sfn "$$f" "$(VG_OUT)/$$n"; \
	done
	@touch $@
else
# The package, fetched (cached) and extracted by the fixtures' fetch-deb.sh; a transient
# download failure is retried once a little later. Fetched again when the cache it points
# to is gone.
.PHONY: vg-pkg-refetch
$(VG_PKG_STAMP): $(if $(wildcard $(VG_PKG)/usr/lib),,vg-pkg-refetch)
	@mkdir -p $(dir $@)
	@command -v $(VG_CC) >/dev/null || { echo "make valgrind-tool ARCH=$(VG_ARCH): no $(VG_CC) (apt-get install gcc-$(VG_TRIPLET))"; exit 1; }
ifeq ($(VG_ARCH),powerpc)
	@set -e; export PAGESLEUTH_CACHE=$(PS_CACHE); \
	out=$$(mk/valgrind-from-source.sh $(VG_ARCH) $(VG_TRIPLET)); \
	ln -sfn "$$out" $(VG_PKG); echo "valgrind $(VG_DEB_VERSION) built from source for $(VG_ARCH) $$out" > $@
else
	@set -e; f=tests/fixtures/scripts; export PAGESLEUTH_CACHE=$(PS_CACHE); \
	$$f/apt-foreign.sh $(VG_ARCH) update; \
	out=$$($$f/fetch-deb.sh $(VG_ARCH) valgrind '$(VG_DEB_VERSION)' || { sleep 5; $$f/fetch-deb.sh $(VG_ARCH) valgrind '$(VG_DEB_VERSION)'; }); \
	ln -sfn "$${out##* }" $(VG_PKG); echo "valgrind:$(VG_ARCH) $$out" > $@
endif
$(VG_ARCHIVES) $(VG_LIBDIR)/libreplacemalloc_toolpreload-$(VG_PLATFORM).a $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a: | $(VG_PKG_STAMP) ; @:

# What the board needs from the package, copied (the directory goes onto the board as it
# is): the core's preload, the default suppressions, the launcher (bin/valgrind; it finds
# the tool through VALGRIND_LIB).
$(VG_OUT)/.links: $(VG_PKG_STAMP)
	@mkdir -p $(VG_OUT)/bin
	cp -f $(VG_EXECDIR)/vgpreload_core-$(VG_PLATFORM).so $(VG_EXECDIR)/default.supp $(VG_OUT)/
	cp -f $(VG_PKG)/usr/bin/valgrind.bin $(VG_OUT)/bin/valgrind
	@touch $@
endif

# Test programs of tests/cases/valgrind_*.sh and lackey_vs_tool.sh: -g -O0 so source lines
# and the access pattern are the program's own.
VG_TEST_SRC   := $(wildcard tests/valgrind/*.c)
valgrind-tests: $(patsubst tests/valgrind/%.c,$(B)/tests/valgrind/%,$(VG_TEST_SRC))
$(B)/tests/valgrind/%: tests/valgrind/%.c valgrind/pagesleuth.h tests/valgrind/frame_span.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O0 -Ivalgrind -pthread $< -o $@
