/* kdump_pages.h - the page data of a kdump-compressed file (makedumpfile, QEMU's kdump-*
 * formats), read by pagesleuth itself.
 *
 * libkdumpfile opens these files, and its attributes and bitmaps are used as they are
 * (dump.c), but its read path costs two thirds of an extraction (measured on the 2.5 GiB
 * bench dump: a linear search of its page cache per read, a locked bitmap look-up per page,
 * zlib's inflate and adler32): here a page is found by its rank in the dumped-pages bitmap,
 * its descriptor and data are read straight out of a read-only mapping of the file, zlib
 * pages are inflated with libdeflate and zstd pages with libzstd, and decompressed pages are
 * kept in a 2-way set-associative cache (the walk reads the same page-table and struct-page pages
 * many times); a long run of whole pages read once (the BTF and kallsyms tables) bypasses the
 * cache. Pages compressed with LZO or snappy are left to
 * libkdumpfile (KP_FOREIGN).
 *
 * More CPUs: a long run is decompressed in shares by up to four threads, and the walker's
 * hints (the next page table, the next window of struct pages: ps_kdump_pages_prefetch) are
 * decompressed ahead by one more thread, whose pages the reads then take without inflating
 * them. Nothing a read returns depends on either; pinned to one CPU there are no threads.
 *
 * Layout (makedumpfile's diskdump.h): page descriptor I, for the I-th page set in the
 * dumped-pages bitmap, is 24 bytes at desc_off + 24 * I in the dumped machine's byte order:
 * offset (8: of its data in the file), size (4), flags (4: 0x1 zlib, 0x2 LZO, 0x4 snappy,
 * 0x20 zstd, none: stored as it is), page_flags (8).
 */
#ifndef PAGESLEUTH_KDUMP_PAGES_H
#define PAGESLEUTH_KDUMP_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_mapped_file;

struct ps_kdump_layout {
	int fd;
	uint64_t file_size;
	uint32_t block_size; /* the file's page: every page's data decompresses to this */
	uint64_t desc_off;   /* the first page descriptor */
	bool big_endian;
	/* The dumped-pages bitmap: bit (i % 64) of words[i / 64] is file page i. Borrowed:
	 * it must outlive the reader. */
	const uint64_t *words;
	uint64_t npages;
	/* Threads besides the caller's the reader may use (ps_helper_threads): 0, none; at
	 * most PS_KDUMP_HELPERS_MAX are used. */
	unsigned helpers;
	/* The file mapped (ps_mapped_file_map), or not (then pages are read with pread).
	 * Borrowed: it must outlive the reader. */
	const struct ps_mapped_file *file;
};

/* Threads a kdump's reads use besides the caller's, at most: the shares of a long run of
 * pages (kdump_pages.c), and of the open's check of every page descriptor (dump.c). */
#define PS_KDUMP_HELPERS_MAX 3u

enum ps_kdump_page_status {
	KP_OK,
	KP_FOREIGN, /* LZO or snappy: read it through libkdumpfile */
	KP_ERROR,   /* the descriptor or its data is unusable, or the data does not decompress */
};

struct ps_kdump_pages;

/* NULL when out of memory (the caller reads through libkdumpfile). */
struct ps_kdump_pages *ps_kdump_pages_open(const struct ps_kdump_layout *l);
void ps_kdump_pages_close(struct ps_kdump_pages *k);

/* Whether file page IDX is in the dumped-pages bitmap. */
bool ps_kdump_pages_present(const struct ps_kdump_pages *k, uint64_t idx);

/* Copy LEN bytes from OFFSET inside file page IDX (present; OFFSET + LEN at most the block
 * size) into BUF. KP_ERROR writes why into ERR ("page descriptor 12 at file offset 345:
 * ..."). */
enum ps_kdump_page_status ps_kdump_pages_read(struct ps_kdump_pages *k, uint64_t idx,
					      uint32_t offset, void *buf, size_t len,
					      char *err, size_t errlen);

/* A hint: file page IDX will be read soon. When the process may run on more than one CPU,
 * a thread of this reader's decompresses it ahead (into 256 slots of its own, direct-mapped
 * by page), and ps_kdump_pages_read takes it from there; otherwise, and for a page that is
 * not present or is decompressed already, nothing happens. Reads never depend on hints:
 * a page hinted or not reads the same, errors included. */
void ps_kdump_pages_prefetch(struct ps_kdump_pages *k, uint64_t idx);
/* Whether hints can do anything (the process may run on more than one CPU). */
bool ps_kdump_pages_prefetches(const struct ps_kdump_pages *k);

/* Whole file pages FIRST .. FIRST + N - 1, all present, into BUF (N blocks), decompressed
 * straight there and not kept (the BTF and kallsyms tables at start-up: megabytes read
 * once, which would only push the walk's pages out of the cache), shared with up to three
 * more threads when the process may run on more CPUs (ps_helper_threads). true when every
 * page came out whole; false promises nothing about BUF: the caller reads page by page,
 * which says what is wrong (an LZO or snappy page is false too). */
bool ps_kdump_pages_read_run(struct ps_kdump_pages *k, uint64_t first, uint64_t n, void *buf);

/* The first LEN bytes (at most the block size) of file page IDX, like ps_kdump_pages_read,
 * but inflating only as much of a zlib page as they need and keeping nothing (for a scan
 * that looks at the start of thousands of pages once: the VMCOREINFO search). */
enum ps_kdump_page_status ps_kdump_pages_peek(struct ps_kdump_pages *k, uint64_t idx, void *buf,
					      size_t len, char *err, size_t errlen);

/* A page descriptor's flags (makedumpfile's DUMP_DH_COMPRESSED_*). */
#define PS_KDUMP_FLAG_ZLIB 0x1u
#define PS_KDUMP_FLAG_LZO 0x2u
#define PS_KDUMP_FLAG_SNAPPY 0x4u
#define PS_KDUMP_FLAG_ZSTD 0x20u
#define PS_KDUMP_FLAGS_KNOWN \
	(PS_KDUMP_FLAG_ZLIB | PS_KDUMP_FLAG_LZO | PS_KDUMP_FLAG_SNAPPY | PS_KDUMP_FLAG_ZSTD)

/* Why a page descriptor saying the data is SIZE bytes at OFF with FLAGS cannot be right in a
 * file of FILE_SIZE bytes whose pages are BLOCK bytes, or NULL: the one rule for the check
 * of every descriptor at open (dump.c) and of each one read. Inline: the open checks every
 * descriptor of the file (655,000 on the 2.5 GiB bench dump). */
static inline const char *ps_kdump_desc_problem(uint64_t off, uint64_t size, uint64_t flags,
						uint32_t block, uint64_t file_size)
{
	if (flags & ~(uint64_t)PS_KDUMP_FLAGS_KNOWN)
		return "unknown compression flags";
	/* Compressed data fits in a page (makedumpfile stores a page that does not shrink as
	 * it is); stored data is exactly one page. */
	if (size == 0 || size > block || (!(flags & PS_KDUMP_FLAGS_KNOWN) && size != block))
		return "impossible size";
	if (off > file_size || size > file_size - off)
		return "its data lies past the end of the file";
	return NULL;
}

/* Decompressions (by any thread) and cache hits so far, and how many pages were
 * decompressed ahead (ps_kdump_pages_prefetch) and how many of those were read (for
 * --stats). */
void ps_kdump_pages_counts(const struct ps_kdump_pages *k, uint64_t *decompressed, uint64_t *hits,
			   uint64_t *ahead, uint64_t *ahead_used);
/* Another process's decompressions and cache hits (a worker of a split walk) added. */
void ps_kdump_pages_add_counts(struct ps_kdump_pages *k, uint64_t decompressed, uint64_t hits);

/* Before the process forks (a walk split across processes, which keeps every CPU busy):
 * the prefetcher's thread stopped, and no more started; hints do nothing from now on. */
void ps_kdump_pages_stop_helpers(struct ps_kdump_pages *k);

#endif
