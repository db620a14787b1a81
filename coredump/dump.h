/* dump.h - the dump-reader back-end: a kernel dump file as a struct ps_target.
 *
 * Formats: ELF vmcores (/proc/vmcore, QEMU dump-guest-memory), kdump-compressed files
 * (makedumpfile, QEMU), and makedumpfile's flattened format (reassembled into a private
 * temporary file, the input is never written). libkdumpfile reads the formats it knows;
 * ELF details it does not expose (broken QEMU headers, notes) come from libelf.
 */
#ifndef PAGESLEUTH_DUMP_H
#define PAGESLEUTH_DUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "target.h"

struct ps_dump;

/* Open PATH read-only. NULL and *err ("PATH: reason", malloc'd) on failure. Repairs of a
 * broken header are reported once each through *warnings (malloc'd lines, may be NULL). */
struct ps_dump *ps_dump_open(const char *path, char **warnings, char **err);
void ps_dump_close(struct ps_dump *d);

/* The back-end (valid until ps_dump_close). arch/endian/ptr_size/page_size from the dump. */
const struct ps_target *ps_dump_target(struct ps_dump *d);

/* For the record header. */
/* "elf", "kdump", "kdump-flattened" (also "elf-flattened"; libkdumpfile's name for others) */
const char *ps_dump_format(const struct ps_dump *d);
/* true when D is a kdump-compressed file with pages to read whose page descriptors were not
 * checked at open, so libkdumpfile's reads would trust them (the ninth dump-headers finding:
 * a header pagesleuth read with another layout than libkdumpfile's). The dump-headers fuzz
 * harness's invariant; false otherwise, and after any open that went as it should (an out
 * of memory aside). */
bool ps_dump_kdump_unchecked(const struct ps_dump *d);
/* makedumpfile dump level (bitmask 0-31), or -1 when the dump is not filtered / unknown. */
int ps_dump_level(const struct ps_dump *d);
/* Crash time (VMCOREINFO CRASHTIME or the kdump header), seconds since the epoch, or 0. */
int64_t ps_dump_time(const struct ps_dump *d);
/* disk_dump_header.timestamp of the kdump-compressed file open at FD (the dumped machine's
 * byte order and long size), or 0 when FD holds no such header. For readers other than
 * ps_dump (the crash extension) that need the same capture time. */
int64_t ps_kdump_header_time(int fd, bool big_endian, unsigned ptr_size);

/* dump_open.c: open PATH and a walker on it for command PROG, the dump's repairs printed
 * as "PROG: warning: ..." lines. 0, or -1 with one line on stderr (*d may then be open:
 * close both in any case; ps_walker_close and ps_dump_close take NULL). */
struct ps_walker;
int ps_dump_open_walker(const char *prog, const char *path, struct ps_dump **d, struct ps_walker **w);

/* dump_open.c: where a command's type information comes from (extract's --profile,
 * --vmlinux, --btf, or by default the kernel's own BTF found in the dump through kallsyms). */
enum ps_type_source { PS_TYPES_DUMP_BTF, PS_TYPES_VMLINUX, PS_TYPES_BTF, PS_TYPES_PROFILE };
/* Fill KI from SOURCE (FILE for all but the dump's BTF), then SYSTEM_MAP's symbols when not
 * NULL. 0, or -1 with *err. */
struct ps_kinfo;
int ps_dump_type_info(struct ps_walker *w, enum ps_type_source source, const char *file,
		      const char *system_map, struct ps_kinfo *ki, char **err);

/* Why the last read_phys returned PS_READ_ERROR ("physical address 0x...: " and
 * libkdumpfile's text, or the ELF reader's), "" if none did. For diagnostics. */
const char *ps_dump_last_error(const struct ps_dump *d);
/* Reads that failed with PS_READ_ERROR so far, and *FIRST the first one's reason
 * ("physical address 0x...: ..."). */
uint64_t ps_dump_read_errors(const struct ps_dump *d, const char **first);
/* Pages of a kdump-compressed file decompressed so far, reads served from the
 * decompressed-page cache instead, and of the pages decompressed, how many were
 * decompressed ahead on another CPU and how many of those were read (all 0 for other
 * formats). */
void ps_dump_read_counts(const struct ps_dump *d, uint64_t *decompressed, uint64_t *cache_hits,
			 uint64_t *ahead, uint64_t *ahead_used);

#endif
