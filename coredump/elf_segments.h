/* elf_segments.h - an ELF vmcore read through its program headers alone.
 *
 * For the ELF dumps libkdumpfile 0.5.1 cannot open or should not: QEMU's ppc64le
 * `dump-guest-memory` files carry a big-endian ELF header over a little-endian guest,
 * e_ehsize 8, and a section header table in the host's byte order whose string table claims
 * ~2^59 bytes; its ppc32 files a garbage section header table whose string table libkdumpfile
 * would copy on every open. Their program headers and notes are sound (in the header's byte
 * order), so PT_LOADs map physical addresses to file offsets and nothing else is trusted.
 */
#ifndef PAGESLEUTH_ELF_SEGMENTS_H
#define PAGESLEUTH_ELF_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "target.h"

struct ps_elf_segments;

/* The program and section header counts of the ELF file open at FD (FILE_SIZE bytes) whose
 * header (64 bytes, 52 for ELF32) is HEAD, with the gABI's extended numbering: e_phnum
 * PN_XNUM (0xffff) means the count is section 0's sh_info (makedumpfile writes an ELF dump
 * of more segments so), e_shnum 0 with a section table means it is section 0's sh_size.
 * false when section 0 is needed and cannot be read. Neither count is checked against the
 * file here. */
bool ps_elf_counts(int fd, const unsigned char *head, uint64_t file_size, uint64_t *phnum,
		   uint64_t *shnum);

/* Entries of a table in a file (program or section headers), read 64 KiB at a time. */
struct ps_elf_table {
	int fd;
	uint64_t off;       /* of entry 0 */
	uint64_t n;         /* entries */
	unsigned entsize;
	unsigned char buf[1 << 16];
	uint64_t buf_first, buf_n; /* entries held in buf */
};
void ps_elf_table_init(struct ps_elf_table *t, int fd, uint64_t off, uint64_t n, unsigned entsize);
/* NEED (at most ENTSIZE) bytes of entry I, or NULL when they cannot be read. */
const unsigned char *ps_elf_table_entry(struct ps_elf_table *t, uint64_t i, unsigned need);

/* Read the header and program headers of the ELF file open at FD (FILE_SIZE bytes), in the
 * byte order the header claims. NULL and *err ("reason") when it is not usable. */
struct ps_elf_segments *ps_elf_segments_open(int fd, uint64_t file_size, char **err);
void ps_elf_segments_close(struct ps_elf_segments *s);

unsigned ps_elf_segments_machine(const struct ps_elf_segments *s);   /* e_machine */
unsigned ps_elf_segments_ptr_size(const struct ps_elf_segments *s);  /* 4 or 8 (EI_CLASS) */
bool ps_elf_segments_header_big_endian(const struct ps_elf_segments *s);
uint64_t ps_elf_segments_end(const struct ps_elf_segments *s);       /* highest paddr + 1 */
/* Bytes the PT_LOADs claim beyond the end of the file (a truncated dump), 0 if none. */
uint64_t ps_elf_segments_missing(const struct ps_elf_segments *s);
/* Why the last ps_elf_segments_read returned PS_READ_ERROR ("physical address 0x...: ..."),
 * "" if none did. */
const char *ps_elf_segments_error(const struct ps_elf_segments *s);

/* The byte order the guest ran in, from the MSR's LE bit in the first NT_PRSTATUS note of a
 * ppc64 dump (QEMU writes the notes in the header's order). false when no note says. */
bool ps_elf_segments_ppc64_guest_little_endian(const struct ps_elf_segments *s, bool *little);

/* The VMCOREINFO note's descriptor in the first PT_NOTE (malloc'd, NUL-terminated after its
 * *LEN bytes, which may hold NULs of their own), or NULL when there is none. */
char *ps_elf_segments_vmcoreinfo(const struct ps_elf_segments *s, size_t *len);

/* Physical reads: OK, NODATA outside every PT_LOAD or past the end of the file, EXCLUDED
 * in the part of a segment beyond its p_filesz (zeros by ELF's rule: filtered out), ERROR
 * when the file cannot be read there (an I/O error, or the file was cut short after it was
 * opened: never a crash, although a whole file is read through a mapping). The buffer is
 * zero-filled from the first page that is not OK. */
enum ps_read_status ps_elf_segments_read(struct ps_elf_segments *s, uint64_t paddr, void *buf,
					 size_t len);
enum ps_read_status ps_elf_segments_status(struct ps_elf_segments *s, uint64_t paddr);
/* The lowest address >= PADDR whose bytes the file holds, or UINT64_MAX: for scans that must
 * not step through the holes between segments one page at a time. */
uint64_t ps_elf_segments_next(const struct ps_elf_segments *s, uint64_t paddr);

#endif
