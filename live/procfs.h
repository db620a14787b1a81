/* procfs.h - read and parse the small /proc files a live snapshot needs: stat, status,
 * maps, smaps (the per-VMA sizes snap uses). Parsers work on text already read, so they are pure
 * and testable; errors are returned as values (errno or -1), never printed here. */
#ifndef PAGESLEUTH_LIVE_PROCFS_H
#define PAGESLEUTH_LIVE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable buffer reused across reads, so a whole-system snapshot does not allocate per file. */
struct proc_buf {
	char *data; /* NUL-terminated after a successful read */
	size_t len, cap;
};

/* Read all of PATH into *b. Returns 0 or an errno value (ENOENT when the process is gone). */
int proc_read_file(const char *path, struct proc_buf *b);
/* The same for NAME in directory DIR: DIR an open /proc/PID, so a file of a process that is
 * gone is never read from a newer process that got its PID (ESRCH/ENOENT instead). */
int proc_read_file_at(int dir, const char *name, struct proc_buf *b);
/* The same for an open FD, which it closes. */
int proc_read_fd(int fd, struct proc_buf *b);
void proc_buf_free(struct proc_buf *b);

/* /proc/PID/stat and /proc/PID/task/TID/stat: the fields pagesleuth records. Times are in
 * clock ticks as the kernel prints them; addresses as printed (0 when hidden). */
struct proc_stat {
	uint64_t pid, ppid;
	char comm[64];
	char state;
	uint64_t flags; /* PF_* (field 9) */
	uint64_t minflt, majflt, utime, stime, starttime;
	uint64_t vsize, start_stack, start_brk;
	bool has_mm_fields; /* the line was long enough to hold start_brk (field 47) */
};
int proc_parse_stat(const char *text, struct proc_stat *st);

/* /proc/PID/status: the mm's RSS counters (kB) and ids. Kernel threads lack the Rss lines. */
struct proc_status {
	uint64_t tgid, ppid;
	uint64_t rss_anon_kb, rss_file_kb, rss_shmem_kb, swap_kb;
	bool has_rss;
};
int proc_parse_status(const char *text, struct proc_status *st);

/* One line of /proc/PID/maps. path points into the parsed text ("" for anonymous). */
struct proc_map {
	uint64_t start, end, offset; /* offset in bytes */
	char perm[5];
	unsigned dev_major, dev_minor;
	uint64_t inode;
	const char *path;
};
/* Parse maps TEXT in place (path strings are NUL-terminated inside it). *maps grows as
 * needed (*cap entries allocated). Returns 0, or -1 with *bad_line the 1-based failing line,
 * or ENOMEM. */
int proc_parse_maps(char *text, struct proc_map **maps, size_t *n, size_t *cap, size_t *bad_line);

/* From /proc/PID/smaps TEXT, field NAME ("KernelPageSize", "Rss", in kB) of the VMA starting
 * at START, or UINT64_MAX if that VMA or field is not listed (one VMA: wss's question). */
uint64_t proc_smaps_field_kb(const char *text, uint64_t start, const char *name);
/* One VMA of /proc/PID/smaps: the fields snap uses, in kB, UINT64_MAX where not listed. */
struct proc_smaps_vma {
	uint64_t start;
	uint64_t rss, pss, shared_clean, shared_dirty, private_clean, private_dirty, referenced,
		swap, kernel_page_size;
};
/* Parse smaps TEXT into *vmas (grown as needed, *cap entries allocated), in the file's order
 * (ascending start). Returns 0 or ENOMEM. One pass: a process's thousands of VMAs cost one
 * walk of the text, not one per VMA. */
int proc_parse_smaps(const char *text, struct proc_smaps_vma **vmas, size_t *n, size_t *cap);
/* The VMA starting at START in VMAS[0..N) (ascending), or NULL. */
const struct proc_smaps_vma *proc_smaps_find(const struct proc_smaps_vma *vmas, size_t n, uint64_t start);

#endif
