/* mapped_file.h - a dump file mapped read-only, read without system calls, and safe when
 * the file shrinks under it.
 *
 * A page-table or struct-page read is then a copy (or a decompression straight out of the
 * mapping), not a pread. A file cut short by another process after it was mapped faults
 * (SIGBUS) on the pages past its new end: every access goes through a guard that turns that
 * fault into a failed read. The SIGBUS handler is installed only while some file is mapped
 * (a process's own SIGBUS handling, and a crash session with this library, see it then).
 */
#ifndef PAGESLEUTH_MAPPED_FILE_H
#define PAGESLEUTH_MAPPED_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_mapped_file {
	const unsigned char *map; /* NULL: not mapped (read with pread instead) */
	uint64_t size;
};

/* Map SIZE bytes of FD. false (and m->map NULL) when it cannot be: the caller reads with
 * pread. */
bool ps_mapped_file_map(struct ps_mapped_file *m, int fd, uint64_t size);
void ps_mapped_file_unmap(struct ps_mapped_file *m);

/* Whether [OFF, OFF + LEN) lies inside the mapping. */
static inline bool ps_mapped_file_has(const struct ps_mapped_file *m, uint64_t off, uint64_t len)
{
	return m->map && off <= m->size && len <= m->size - off;
}

/* memcpy from the mapping at OFF (ps_mapped_file_has must hold); false (nothing promised
 * about DST) when the source faulted. */
bool ps_mapped_file_copy(const struct ps_mapped_file *m, void *dst, uint64_t off, size_t len);

/* FN(ARG, P, LEN) with P the mapping's bytes at OFF (ps_mapped_file_has must hold), read in
 * place, inside the same guard: false when the source faulted, FN then left part way (what
 * it wrote to ARG must make sense at any point). For a long read-only pass over the file
 * (the check of every kdump page descriptor) without copying it first. */
bool ps_mapped_file_scan(const struct ps_mapped_file *m, uint64_t off, size_t len,
			 void (*fn)(void *arg, const unsigned char *p, size_t len), void *arg);

/* LEN bytes of FD at OFF with pread, through short reads and EINTR: 1, 0 when the file ends
 * first (errno 0), -1 on an error (errno). The readers' one loop for files not mapped. */
int ps_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* How many more threads than the calling one may share a long piece of work (a run of kdump
 * pages to decompress, the check of every page descriptor): the CPUs this process may run
 * on (its affinity, and the CPU time the cpu quota of its cgroup and their ancestors give,
 * cgroup v2 or v1), less one, at most MAX. 0 when pinned to one CPU (bench/extract.sh pins
 * every tool) or held to one CPU's time. */
unsigned ps_helper_threads(unsigned max);

/* Shares of one piece of work: FN on each of the N elements of SHARES (SIZE bytes apart),
 * the first on the calling thread and each other on a thread of its own (one that cannot
 * start runs on the calling thread); returns when all are done. */
void ps_run_shares(void *(*fn)(void *), void *shares, size_t size, unsigned n);

#endif
