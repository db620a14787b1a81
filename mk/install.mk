# ---- make install / uninstall / man / completion ---------------------------------------------
#   make install [PREFIX=/usr/local] [DESTDIR=]     make uninstall (the same PREFIX and DESTDIR)
# What goes where (README.md, "Installing"):
#   $(PREFIX)/bin/pagesleuth
#   $(PREFIX)/libexec/pagesleuth/valgrind-lib/       the Valgrind tool, its preload and links to
#                                                    the stock tools' files, if built (make
#                                                    valgrind-tool): `pagesleuth valgrind` finds
#                                                    it relative to its own file (cli/cmd_valgrind.c)
#   $(PREFIX)/lib/pagesleuth/pagesleuth.so          the crash extension for $(CRASH), if built
#                                                    (make crash-ext): crash> extend that path
#   $(PREFIX)/share/man/man1/pagesleuth.1, pagesleuth-CMD.1
#   $(PREFIX)/share/bash-completion/completions/pagesleuth
#   $(PREFIX)/share/doc/pagesleuth/                  README.md and docs/
# The man pages and the completion are generated from the binary's own --help by
# scripts/help2man.py (make man: $(B)/man/; make completion: $(B)/completion/), so they say
# what --help says. INSTALL_BIN is the binary installed and asked for its --help (the test
# installs the already-built one: INSTALL_BIN=$PWD/build/pagesleuth names no rule, so nothing
# is rebuilt), INSTALL_GEN where the generated files go.
PREFIX        ?= /usr/local
DESTDIR       ?=
BINDIR        ?= $(PREFIX)/bin
PKGLIBEXECDIR ?= $(PREFIX)/libexec/pagesleuth
PKGLIBDIR     ?= $(PREFIX)/lib/pagesleuth
MANDIR        ?= $(PREFIX)/share/man
BASHCOMPDIR   ?= $(PREFIX)/share/bash-completion/completions
DOCDIR        ?= $(PREFIX)/share/doc/pagesleuth
INSTALL       ?= install
PYTHON        ?= python3
INSTALL_BIN   ?= $(B)/pagesleuth
INSTALL_GEN   ?= $(B)
INSTALL_DOCS  := README.md $(wildcard docs/*.md)

.PHONY: completion install-force

man: $(INSTALL_GEN)/man/.stamp
completion: $(INSTALL_GEN)/completion/pagesleuth.bash

# The man pages name where the documents are installed: regenerated when DOCDIR changes.
$(INSTALL_GEN)/man/.docdir: install-force
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(DOCDIR)" ] || echo "$(DOCDIR)" >$@
$(INSTALL_GEN)/man/.stamp: $(INSTALL_BIN) scripts/help2man.py $(INSTALL_GEN)/man/.docdir
	$(PYTHON) scripts/help2man.py man --docdir "$(DOCDIR)" -o $(dir $@) $(INSTALL_BIN)
	@touch $@
$(INSTALL_GEN)/completion/pagesleuth.bash: $(INSTALL_BIN) scripts/help2man.py completion/pagesleuth.bash.in
	$(PYTHON) scripts/help2man.py completion --template completion/pagesleuth.bash.in -o $@ $(INSTALL_BIN)

# The Valgrind tool's directory ($(VG_OUT), mk/valgrind.mk) and the crash extension
# ($(CRASH_EXT_DIR), Makefile) are installed when they are built; each missing one is named
# with the command that builds it.
install: $(INSTALL_BIN) man completion
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASHCOMPDIR)" \
		"$(DESTDIR)$(DOCDIR)/docs"
	$(INSTALL) -m 755 $(INSTALL_BIN) "$(DESTDIR)$(BINDIR)/pagesleuth"
	$(INSTALL) -m 644 $(INSTALL_GEN)/man/pagesleuth*.1 "$(DESTDIR)$(MANDIR)/man1/"
	$(INSTALL) -m 644 $(INSTALL_GEN)/completion/pagesleuth.bash "$(DESTDIR)$(BASHCOMPDIR)/pagesleuth"
	$(INSTALL) -m 644 README.md "$(DESTDIR)$(DOCDIR)/README.md"
	$(INSTALL) -m 644 $(filter docs/%,$(INSTALL_DOCS)) "$(DESTDIR)$(DOCDIR)/docs/"
	@if [ -x "$(VG_OUT)/pagesleuth-$(VG_PLATFORM)" ] && [ -f "$(VG_PRELOAD)" ]; then \
		d="$(DESTDIR)$(PKGLIBEXECDIR)/valgrind-lib"; \
		echo "install: the Valgrind tool into $$d"; \
		rm -rf "$$d" && $(INSTALL) -d "$$d" && \
		$(INSTALL) -m 755 "$(VG_OUT)/pagesleuth-$(VG_PLATFORM)" "$$d/" && \
		$(INSTALL) -m 755 "$(VG_PRELOAD)" "$$d/" && \
		find "$(VG_OUT)" -maxdepth 1 -type l -exec cp -P {} "$$d/" \; ; \
	else \
		echo "install: the Valgrind tool is not built, not installed (make valgrind-tool, then make install)"; \
	fi
	@so="$(CRASH_EXT_DIR)/pagesleuth.so"; \
	if [ -n "$(CRASH_VERSION)" ] && [ -f "$$so" ]; then \
		echo "install: the crash extension for crash $(CRASH_VERSION) into $(DESTDIR)$(PKGLIBDIR)/pagesleuth.so"; \
		$(INSTALL) -d "$(DESTDIR)$(PKGLIBDIR)" && $(INSTALL) -m 644 "$$so" "$(DESTDIR)$(PKGLIBDIR)/pagesleuth.so"; \
	else \
		echo "install: the crash extension for $(CRASH) is not built, not installed (make crash-ext, then make install)"; \
	fi

# Everything install writes; directories only where they are pagesleuth's own.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/pagesleuth" "$(DESTDIR)$(BASHCOMPDIR)/pagesleuth" \
		"$(DESTDIR)$(MANDIR)/man1/pagesleuth.1" "$(DESTDIR)$(MANDIR)"/man1/pagesleuth-*.1
	rm -rf "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(PKGLIBEXECDIR)" "$(DESTDIR)$(PKGLIBDIR)"
