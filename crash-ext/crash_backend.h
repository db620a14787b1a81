/* crash_backend.h - what the pagesleuth command needs from crash, without crash's defs.h.
 *
 * crash_backend.c is the only file besides the command itself (pagesleuth.c) that includes
 * defs.h: it turns crash's readmem, symbol table and gdb type lookups into the walker's two
 * interfaces (struct ps_target_ops, struct ps_typeinfo_ops). run.c drives the walker with
 * them and never sees a crash structure, so the walk is the same code `pagesleuth extract`
 * runs, and defs.h's macros (PAGESIZE, TRUE, ulong ...) stay out of the walker.
 */
#ifndef PAGESLEUTH_CRASH_BACKEND_H
#define PAGESLEUTH_CRASH_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kinfo.h"
#include "target.h"

/* Facts about the session crash has open, for the target and the record header. */
struct ps_crash_facts {
	const char *dumpfile;  /* crash's dump file (pc->dumpfile) */
	const char *namelist;  /* the vmlinux crash loaded */
	const char *arch;      /* record header name: x86_64 arm64 ppc64le ppc64 arm ppc32 */
	bool big_endian;       /* from the vmlinux's ELF header */
	unsigned ptr_size;     /* 4 or 8 */
	uint32_t page_size;    /* crash's PAGESIZE() */
	int dump_level;        /* makedumpfile's -d (crash's get_dump_level()), -1 unknown */
	int64_t header_time;   /* kdump header timestamp, 0 unknown */
	const char *release;   /* crash's utsname.release */
	bool zero_excluded;    /* crash --zero_excluded: excluded pages read back as zeros */
};

/* 0, or -1 with *err (a live system: pagesleuth snap is the tool there). */
int ps_crash_facts(struct ps_crash_facts *f, char **err);

/* Physical reads through crash's dump reader (pc->readmem), which tells excluded pages from
 * missing ones; kernel-virtual addresses are translated by the walker's architecture file,
 * exactly as in `pagesleuth extract`; whether a mapped frame is in the dump comes from the
 * dump's page map (pagesleuth's reader on the same file). ctx is unused. */
extern const struct ps_target_ops ps_crash_target_ops;
/* The same, but kernel-virtual reads go through crash's readmem(KVADDR) and crash's own
 * translation (the command's -k: a cross-check of the walker's kernel translation). */
extern const struct ps_target_ops ps_crash_target_ops_kvaddr;

/* Fill KI from the debuginfo crash loaded (gdb: member offsets and sizes, struct sizes,
 * enumerators; crash's symbol table for link-time symbol addresses). 0, or -1 with *err. */
int ps_crash_fill_kinfo(struct ps_kinfo *ki, const struct ps_crash_facts *f, char **err);

/* Register FN(ARG) to run if crash abandons the command (an error longjmp, ^C); NULL to
 * unregister once the command finishes normally. */
void ps_crash_on_abort(void (*fn)(void *), void *arg);

/* A one-line message in crash's style ("pagesleuth: ...") on stderr, never in the records. */
void ps_crash_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether pfn_status answers from the dump's page map (else from one-byte reads). */
bool ps_crash_has_page_map(void);

/* Release what the session keeps (the page-map reader); the library's destructor. */
void ps_crash_session_end(void);

#endif
