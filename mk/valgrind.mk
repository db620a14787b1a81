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
VG_LIBDIR     ?= /usr/lib/x86_64-linux-gnu/valgrind
VG_EXECDIR    ?= /usr/libexec/valgrind
VG_INCLUDE    ?= /usr/include/valgrind
VG_PLATFORM   := amd64-linux
VG_OUT        := $(B)/valgrind-lib
VG_OBJDIR     := $(B)/valgrind-obj
VG_CFLAGS     := -std=gnu11 $(WARN) -Wno-shadow -isystem $(VG_INCLUDE) -Ivalgrind -Itrace \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
	-DPS_VG_PLATFORM='"$(VG_PLATFORM)"' \
	-m64 -O2 -g -fno-strict-aliasing -fno-builtin -fno-stack-protector -fomit-frame-pointer \
	-fno-pic -fno-pie $(filter -Werror,$(CFLAGS))
VG_TOOL_SRC   := $(wildcard valgrind/*.c) $(filter-out trace/cmd_%.c,$(wildcard trace/*.c))
VG_TOOL_HDRS  := $(wildcard valgrind/*.h) $(filter-out trace/cmd_%.h,$(wildcard trace/*.h))
VG_ARCHIVES   := $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a $(VG_LIBDIR)/libvex-$(VG_PLATFORM).a
VG_PRELOAD    := $(VG_OUT)/vgpreload_pagesleuth-$(VG_PLATFORM).so

.PHONY: valgrind-tool valgrind-tests
valgrind-tool: $(VG_OUT)/pagesleuth-$(VG_PLATFORM) $(VG_PRELOAD) $(VG_OUT)/.links

$(VG_OBJDIR)/%.o: %.c $(VG_TOOL_HDRS) $(VG_ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(VG_CFLAGS) -c $< -o $@

$(VG_OUT)/pagesleuth-$(VG_PLATFORM): $(patsubst %.c,$(VG_OBJDIR)/%.o,$(VG_TOOL_SRC)) $(VG_ARCHIVES)
	@[ -f $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a ] || { echo "make valgrind-tool: $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a missing (apt-get install valgrind)"; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) -m64 -static -nodefaultlibs -nostartfiles -u _start -Wl,-Ttext-segment=0x58000000 \
		$(patsubst %.c,$(VG_OBJDIR)/%.o,$(VG_TOOL_SRC)) \
		$(VG_ARCHIVES) -lgcc $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a -o $@.tmp
	mv $@.tmp $@

$(VG_OUT)/vgpreload_pagesleuth-$(VG_PLATFORM).so: $(VG_LIBDIR)/libreplacemalloc_toolpreload-$(VG_PLATFORM).a
	@mkdir -p $(dir $@)
	$(CC) -m64 -nodefaultlibs -shared -Wl,-z,interpose,-z,initfirst \
		-Wl,--whole-archive $< -Wl,--no-whole-archive -o $@.tmp
	mv $@.tmp $@

# Everything of the stock directory the tool does not provide itself, as symlinks.
$(VG_OUT)/.links: $(VG_EXECDIR)
	@mkdir -p $(VG_OUT)
	@for f in $(VG_EXECDIR)/*; do \
		n=$$(basename "$$f"); \
		case "$$n" in pagesleuth-*|vgpreload_pagesleuth-*) continue;; esac; \
		ln -sfn "$$f" "$(VG_OUT)/$$n"; \
	done
	@touch $@

# Test programs of tests/cases/valgrind_*.sh and lackey_vs_tool.sh: -g -O0 so source lines
# and the access pattern are the program's own.
VG_TEST_SRC   := $(wildcard tests/valgrind/*.c)
valgrind-tests: $(patsubst tests/valgrind/%.c,$(B)/tests/valgrind/%,$(VG_TEST_SRC))
$(B)/tests/valgrind/%: tests/valgrind/%.c valgrind/pagesleuth.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O0 -Ivalgrind -pthread $< -o $@
