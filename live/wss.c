/* wss.c - `pagesleuth wss PID DURATION`: the working-set size of a running process, measured
 * the two ways Brendan Gregg's wss tools do (wss.pl: referenced; wss-v1/v2: idle pages).
 *
 * Timing (Est(s)): resetting and reading take time of their own (hundreds of ms for tens of
 * GiB), during which the process keeps touching memory. As wss does, the span a row reports
 * runs from the middle of the reset (the clear_refs write; the idle-bitmap writes) to the
 * middle of the read (the smaps_rollup read; the idle-bitmap reads): on average a page's
 * reference bit was cleared at the first and looked at at the second. The pagemap walks that
 * find the frames happen outside both spans.
 *
 * What the idle count includes: every frame the process maps at the end whose idle bit is
 * clear: pages accessed since the mark, pages mapped since (new pages are not idle), and
 * frames the kernel cannot track (not on an LRU list: hugetlb, special mappings). The shared
 * zero page and the huge zero page are left out, as smaps leaves them out of Rss. Frames are counted once even when the
 * process maps one at several addresses (smaps Referenced would count each mapping).
 */
#include "wss.h"

#include "commands.h"
#include "livehdr.h"
#include "pid_list.h"
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const struct wss_paths wss_system_paths = { .proc = "/proc", .idle_bitmap = "/sys/kernel/mm/page_idle/bitmap" };

#define PAGEMAP_BATCH 65536u  /* pagemap entries per pread (512 KiB) */
#define SPARSE_MIN_PAGES 4096u /* VMAs from this size on: read populated ranges only */
#define WORDS_BATCH 8192u     /* bitmap words per pread/pwrite: 512K frames, 2 GiB of 4K pages */
/* Zero words written between two wanted ones rather than another pwrite: the kernel skips
 * clear bits at the cost of a shift. Reads are merged only across one word: the kernel looks
 * up every frame a read covers (and walks the reverse map of each idle one). */
#define WRITE_GAP_WORDS 64u
#define READ_GAP_WORDS 1u

/* ---- smaps ----------------------------------------------------------------------------- */

int wss_parse_usage(const char *text, struct wss_usage *u)
{
	memset(u, 0, sizeof *u);
	bool have_rss = false;
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		uint64_t *field = NULL;
		size_t skip = 0;
		if (strncmp(line, "Rss:", 4) == 0)
			field = &u->rss, skip = 4, have_rss = true;
		else if (strncmp(line, "Pss:", 4) == 0)
			field = &u->pss, skip = 4;
		else if (strncmp(line, "Referenced:", 11) == 0)
			field = &u->referenced, skip = 11;
		if (field)
			*field += strtoull(line + skip, NULL, 10) * 1024;
	}
	return have_rss ? 0 : -1;
}

static void proc_path(char *out, size_t len, const struct wss_paths *paths, uint64_t pid, const char *file)
{
	snprintf(out, len, "%s/%llu/%s", paths->proc, (unsigned long long)pid, file);
}

/* Open FILE of the process (relative to the pinned /proc/PID when there is one); PATH gets
 * its name for messages. Returns the descriptor, or -1 with errno set. */
static int open_pid_file(const struct wss_paths *paths, uint64_t pid, const char *file, int flags,
			 char *path, size_t len)
{
	proc_path(path, len, paths, pid, file);
	return paths->pinned ? openat(paths->pid_dir, file, flags | O_CLOEXEC)
			     : open(path, flags | O_CLOEXEC);
}

/* Read FILE of the process into BUF. Returns 0 or an errno value. */
static int read_pid_file(const struct wss_paths *paths, uint64_t pid, const char *file,
			 struct proc_buf *buf, char *path, size_t len)
{
	int fd = open_pid_file(paths, pid, file, O_RDONLY, path, len);
	return fd < 0 ? errno : proc_read_fd(fd, buf);
}

int wss_read_usage(const struct wss_paths *paths, uint64_t pid, struct proc_buf *buf,
		   struct wss_usage *u, char *err, size_t errlen)
{
	char path[512];
	int e = read_pid_file(paths, pid, "smaps_rollup", buf, path, sizeof path);
	if (e == ENOENT) {
		/* Kernels before 4.14 have no rollup: the same sums from smaps itself. A gone
		 * process has neither. */
		char rollup[512];
		snprintf(rollup, sizeof rollup, "%s", path);
		e = read_pid_file(paths, pid, "smaps", buf, path, sizeof path);
		if (e == ENOENT)
			snprintf(path, sizeof path, "%s", rollup);
	}
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e;
	}
	if (wss_parse_usage(buf->data, u) != 0) {
		snprintf(err, errlen, "%s: no Rss line (the process has no address space)", path);
		return ESRCH;
	}
	return 0;
}

int wss_clear_refs(const struct wss_paths *paths, uint64_t pid, char *err, size_t errlen)
{
	char path[512];
	int fd = open_pid_file(paths, pid, "clear_refs", O_WRONLY, path, sizeof path);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e;
	}
	ssize_t n;
	do
		n = write(fd, "1", 1);
	while (n < 0 && errno == EINTR);
	int e = n == 1 ? 0 : n < 0 ? errno : EIO;
	if (close(fd) != 0 && !e)
		e = errno;
	if (e)
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	return e;
}

/* ---- idle pages ---------------------------------------------------------------------------- */

void wss_sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++)
		max |= v[i];
	static size_t count[1u << 16];
	/* LSD radix sort, 16 bits a pass, only as many passes as the largest key needs. */
	for (unsigned shift = 0; shift < 64 && (max >> shift); shift += 16) {
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[(v[i] >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t d = 0; d < (1u << 16); d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(v[i] >> shift) & 0xffff]++] = v[i];
		memcpy(v, tmp, n * sizeof *v);
	}
}

/* The frame a read of fresh anonymous memory of LEN bytes (aligned to LEN, MADV_HUGEPAGE
 * when huge) maps: the shared zero page, or the huge zero page when THP maps one. */
static uint64_t probe_read_fault_pfn(int pagemap_fd, uint32_t page_size, size_t len, bool huge)
{
	uint64_t pfn = UINT64_MAX, entry = 0;
	char *area = mmap(NULL, 2 * len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return pfn;
	volatile char *page = (char *)(((uintptr_t)area + len - 1) & ~((uintptr_t)len - 1));
	if (huge)
		madvise((void *)page, len, MADV_HUGEPAGE);
	(void)page[0];
	if (pagemap_read(pagemap_fd, (uintptr_t)page / page_size, 1, &entry) == 1 && (entry & PM_PRESENT) &&
	    (entry & PM_PFN_MASK))
		pfn = entry & PM_PFN_MASK;
	munmap(area, 2 * len);
	return pfn;
}

static off_t word_offset(uint64_t word);

/* Is FRAME the (huge) zero page? /proc/kpageflags says (KPF_ZERO_PAGE, bit 24). */
static bool is_zero_frame(uint64_t pfn)
{
	off_t off = word_offset(pfn); /* one 8-byte entry per frame, as the bitmap has per 64 */
	int fd = off < 0 ? -1 : open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	uint64_t flags = 0;
	bool zero = fd >= 0 && pread(fd, &flags, 8, off) == 8 && (flags >> 24 & 1);
	if (fd >= 0)
		close(fd);
	return zero;
}

/* The shared zero page's frame, and the huge zero page's first frame and size (THP maps it
 * for read faults on huge-page-aligned memory): frames smaps leaves out of Rss. */
static void probe_zero_pfns(struct wss_idle *w)
{
	w->zero_pfn = w->huge_zero_pfn = UINT64_MAX;
	w->huge_zero_pages = 0;
	char path[512];
	snprintf(path, sizeof path, "%s/self/pagemap", w->paths->proc);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	w->zero_pfn = probe_read_fault_pfn(fd, w->page_size, w->page_size, false);
	FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
	unsigned long long pmd = 0;
	if (fp) {
		if (fscanf(fp, "%llu", &pmd) != 1)
			pmd = 0;
		fclose(fp);
	}
	if (pmd > w->page_size && pmd <= (UINT64_C(1) << 30) && !(pmd & (pmd - 1))) {
		uint64_t pfn = probe_read_fault_pfn(fd, w->page_size, (size_t)pmd, true);
		/* Only a frame the kernel calls the zero page: a read fault may also get a real
		 * THP, freed again at once and free for the measured process to get. */
		if (pfn != UINT64_MAX && pfn != w->zero_pfn && is_zero_frame(pfn))
			w->huge_zero_pfn = pfn, w->huge_zero_pages = pmd / w->page_size;
	}
	close(fd);
}

int wss_idle_open(struct wss_idle *w, const struct wss_paths *paths, uint64_t pid,
		  uint32_t page_size, char *err, size_t errlen)
{
	memset(w, 0, sizeof *w);
	w->paths = paths, w->pid = pid, w->page_size = page_size;
	w->scan_supported = true;
	w->bitmap_fd = open(paths->idle_bitmap, O_RDWR | O_CLOEXEC);
	if (w->bitmap_fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s%s", paths->idle_bitmap, strerror(e),
			 e == ENOENT ? " (kernel without CONFIG_IDLE_PAGE_TRACKING)"
			 : e == EACCES || e == EPERM ? " (needs root)" : "");
		return e;
	}
	w->pm = malloc(PAGEMAP_BATCH * sizeof *w->pm);
	w->words = malloc(WORDS_BATCH * sizeof *w->words);
	if (!w->pm || !w->words) {
		wss_idle_close(w);
		snprintf(err, errlen, "out of memory");
		return ENOMEM;
	}
	probe_zero_pfns(w);
	return 0;
}

void wss_idle_close(struct wss_idle *w)
{
	if (w->bitmap_fd >= 0)
		close(w->bitmap_fd);
	free(w->pfns), free(w->tmp), free(w->pm), free(w->words), free(w->maps), free(w->ranges);
	proc_buf_free(&w->maps_text), proc_buf_free(&w->smaps_text);
	memset(w, 0, sizeof *w);
	w->bitmap_fd = -1;
}

static int push_pfn(struct wss_idle *w, uint64_t pfn)
{
	if (w->npfns == w->pfns_cap) {
		size_t cap = w->pfns_cap ? w->pfns_cap * 2 : 65536;
		uint64_t *grown = realloc(w->pfns, cap * sizeof *grown);
		if (!grown)
			return ENOMEM;
		w->pfns = grown;
		grown = realloc(w->tmp, cap * sizeof *grown);
		if (!grown)
			return ENOMEM;
		w->tmp = grown, w->pfns_cap = cap;
	}
	w->pfns[w->npfns++] = pfn;
	return 0;
}

/* Where in VMA to read pagemap: everything, or for big VMAs only what is populated. */
static int vma_ranges(struct wss_idle *w, int pagemap_fd, const struct proc_map *vma)
{
	w->nranges = 0;
	if ((vma->end - vma->start) / w->page_size >= SPARSE_MIN_PAGES) {
		if (w->scan_supported) {
			int e = pagemap_populated_ranges(pagemap_fd, vma->start, vma->end, &w->ranges,
							 &w->nranges, &w->ranges_cap);
			if (e == 0)
				return 0;
			if (e != ENOTTY && e != EINVAL)
				return e;
			w->scan_supported = false;
		}
		/* Before PAGEMAP_SCAN (6.7): smaps says whether the VMA holds anything. */
		if (!w->smaps_loaded) {
			char path[512];
			if (read_pid_file(w->paths, w->pid, "smaps", &w->smaps_text, path, sizeof path) != 0)
				w->smaps_text.len = 0;
			w->smaps_loaded = true;
		}
		if (w->smaps_text.len && w->smaps_text.data &&
		    proc_smaps_field_kb(w->smaps_text.data, vma->start, "Rss") == 0)
			return 0;
	}
	if (!w->ranges_cap) {
		w->ranges = malloc(16 * sizeof *w->ranges);
		if (!w->ranges)
			return ENOMEM;
		w->ranges_cap = 16;
	}
	w->ranges[0] = (struct va_range){ vma->start, vma->end };
	w->nranges = 1;
	return 0;
}

int wss_idle_collect(struct wss_idle *w, char *err, size_t errlen)
{
	char path[512];
	w->npfns = 0, w->mapped = 0;
	w->smaps_loaded = false;
	int e = read_pid_file(w->paths, w->pid, "maps", &w->maps_text, path, sizeof path);
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e == ENOENT ? ESRCH : e;
	}
	if (w->maps_text.len == 0) {
		snprintf(err, errlen, "%s: empty (the process has no address space)", path);
		return ESRCH;
	}
	size_t bad_line = 0;
	e = proc_parse_maps(w->maps_text.data, &w->maps, &w->nmaps, &w->maps_cap, &bad_line);
	if (e) {
		snprintf(err, errlen, "%s:%zu: cannot parse", path, bad_line);
		return e == ENOMEM ? ENOMEM : EINVAL;
	}
	int fd = open_pid_file(w->paths, w->pid, "pagemap", O_RDONLY, path, sizeof path);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e == ENOENT ? ESRCH : e;
	}
	for (size_t v = 0; v < w->nmaps && !e; v++) {
		const struct proc_map *vma = &w->maps[v];
		if (strcmp(vma->path, "[vsyscall]") == 0)
			continue; /* above the task size: no pagemap entries */
		e = vma_ranges(w, fd, vma);
		if (e) {
			snprintf(err, errlen, "%s: PAGEMAP_SCAN: %s", path, strerror(e));
			break;
		}
		for (size_t r = 0; r < w->nranges && !e; r++) {
			uint64_t first = w->ranges[r].start / w->page_size, end = w->ranges[r].end / w->page_size;
			while (first < end) {
				size_t n = end - first > PAGEMAP_BATCH ? PAGEMAP_BATCH : (size_t)(end - first);
				ssize_t got = pagemap_read(fd, first, n, w->pm);
				if (got < 0) {
					e = (int)-got;
					snprintf(err, errlen, "%s: %s", path, strerror(e));
					break;
				}
				if ((size_t)got < n) {
					/* The walk ends early only when the mm is gone. */
					e = ESRCH;
					snprintf(err, errlen, "%s: ends at page %llx (the process exited)", path,
						 (unsigned long long)(first + (uint64_t)got));
					break;
				}
				for (size_t i = 0; i < n && !e; i++) {
					if (!(w->pm[i] & PM_PRESENT))
						continue;
					uint64_t pfn = w->pm[i] & PM_PFN_MASK;
					if (pfn == 0) {
						e = EPERM;
						snprintf(err, errlen, "%s: frame numbers are hidden (needs root/CAP_SYS_ADMIN)", path);
					} else if (pfn != w->zero_pfn &&
						   !(pfn - w->huge_zero_pfn < w->huge_zero_pages)) {
						w->mapped++;
						if ((e = push_pfn(w, pfn)) != 0)
							snprintf(err, errlen, "out of memory");
					}
				}
				first += n;
			}
		}
	}
	close(fd);
	if (e)
		return e;
	wss_sort_u64(w->pfns, w->tmp, w->npfns);
	size_t distinct = 0;
	for (size_t i = 0; i < w->npfns; i++)
		if (!distinct || w->pfns[i] != w->pfns[distinct - 1])
			w->pfns[distinct++] = w->pfns[i];
	w->npfns = distinct;
	return 0;
}

/* Byte offset of bitmap word WORD, or -1 if off_t cannot hold it (32-bit off_t). */
static off_t word_offset(uint64_t word)
{
	uint64_t bytes = word * 8;
	off_t off = (off_t)bytes;
	return off >= 0 && (uint64_t)off == bytes && bytes / 8 == word ? off : -1;
}

/* The words of one batch: frames pfns[first..*next) fall into words[0..*nwords), word 0 being
 * bitmap word pfns[first] / 64, with at most GAP empty words between two used ones. */
static void batch_words(const struct wss_idle *w, size_t first, unsigned gap, size_t *next, size_t *nwords)
{
	uint64_t base = w->pfns[first] / 64;
	size_t n = 0, i = first;
	for (; i < w->npfns; i++) {
		uint64_t rel = w->pfns[i] / 64 - base;
		if (rel >= WORDS_BATCH || (n && rel > n - 1 + gap + 1))
			break;
		while (n <= rel)
			w->words[n++] = 0;
		w->words[rel] |= UINT64_C(1) << (w->pfns[i] % 64);
	}
	*next = i, *nwords = n;
}

int wss_idle_mark(struct wss_idle *w, char *err, size_t errlen)
{
	for (size_t i = 0, next, nwords; i < w->npfns; i = next) {
		batch_words(w, i, WRITE_GAP_WORDS, &next, &nwords);
		off_t off = word_offset(w->pfns[i] / 64);
		if (off < 0) {
			snprintf(err, errlen, "%s: frame %llx is beyond this build's file offsets",
				 w->paths->idle_bitmap, (unsigned long long)w->pfns[i]);
			return EOVERFLOW;
		}
		size_t done = 0, len = nwords * 8;
		while (done < len) {
			ssize_t put = pwrite(w->bitmap_fd, (char *)w->words + done, len - done, off + (off_t)done);
			if (put < 0 && errno == EINTR)
				continue;
			if (put <= 0) {
				int e = put < 0 ? errno : EIO;
				snprintf(err, errlen, "%s: writing frames %llx-%llx: %s", w->paths->idle_bitmap,
					 (unsigned long long)(w->pfns[i] / 64 * 64),
					 (unsigned long long)(w->pfns[i] / 64 * 64 + nwords * 64 - 1), strerror(e));
				return e;
			}
			done += (size_t)put;
		}
	}
	return 0;
}

int wss_idle_count(struct wss_idle *w, uint64_t *active, char *err, size_t errlen)
{
	*active = 0;
	for (size_t i = 0, next, nwords; i < w->npfns; i = next) {
		batch_words(w, i, READ_GAP_WORDS, &next, &nwords);
		uint64_t base = w->pfns[i] / 64;
		off_t off = word_offset(base);
		if (off < 0) {
			snprintf(err, errlen, "%s: frame %llx is beyond this build's file offsets",
				 w->paths->idle_bitmap, (unsigned long long)w->pfns[i]);
			return EOVERFLOW;
		}
		size_t done = 0, len = nwords * 8;
		while (done < len) {
			ssize_t got = pread(w->bitmap_fd, (char *)w->words + done, len - done, off + (off_t)done);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0) {
				int e = errno;
				snprintf(err, errlen, "%s: reading frames from %llx: %s", w->paths->idle_bitmap,
					 (unsigned long long)(base * 64), strerror(e));
				return e;
			}
			if (got == 0 || got % 8) {
				snprintf(err, errlen, "%s: ends before frame %llx, which pid %llu maps",
					 w->paths->idle_bitmap, (unsigned long long)((base + done / 8) * 64),
					 (unsigned long long)w->pid);
				return ERANGE;
			}
			done += (size_t)got;
		}
		for (size_t k = i; k < next; k++)
			if (!(w->words[w->pfns[k] / 64 - base] >> (w->pfns[k] % 64) & 1))
				(*active)++;
	}
	return 0;
}

/* ---- the command ---------------------------------------------------------------------------- */

enum wss_method { METHOD_AUTO, METHOD_REFERENCED, METHOD_IDLE };
enum wss_mode { MODE_ONCE, MODE_CUMULATIVE, MODE_PROFILE };
static const char *const method_names[] = { "auto", "referenced", "idle" };
static const char *const mode_names[] = { "once", "cumulative", "profile" };

struct wss_options {
	enum wss_method method;
	enum wss_mode mode;
	double duration, profile_start, total;
	uint64_t count; /* cumulative rows; 0 = until stopped */
	const char *out_path;
	uint64_t pid;
};

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void wss_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth wss [OPTIONS] PID DURATION\n\n"
		"Working-set size of a running process: how much of its memory it touches in DURATION\n"
		"seconds (fractions allowed), as Brendan Gregg's wss tools measure it.\n\n"
		"  -m, --method M       idle: mark the process's frames idle in\n"
		"                       /sys/kernel/mm/page_idle/bitmap, wait, count those no longer idle;\n"
		"                       referenced: clear /proc/PID/clear_refs, wait, sum smaps Referenced.\n"
		"                       Default: idle when the bitmap is writable, else referenced\n"
		"  -C, --cumulative     reset once, then a row every DURATION seconds (growth since)\n"
		"  -c, --count N        with -C: N rows (default: until SIGINT or SIGTERM)\n"
		"  -d, --total S        with -C: stop after S seconds\n"
		"  -P, --profile START  reset once, then rows after START, 2*START, 4*START, ... seconds,\n"
		"                       up to DURATION: how the working set grows with the window\n"
		"  -o, --output FILE    also write wss records (docs/record-format.md) to FILE,\n"
		"                       atomically; '-': records on stdout instead of the table\n"
		"  -h, --help           this text\n\n"
		"Columns: Est(s) the span really measured (from the middle of the reset to the middle\n"
		"of the read; longer than asked when the process is big), RSS(MB) and PSS(MB) from\n"
		"smaps_rollup, Ref(MB) the working set. MB = 2^20 bytes.\n"
		"Both methods disturb the kernel's page-reclaim information for the process and add\n"
		"latency to it while its page tables are walked. The idle method needs root.\n"
		"Exit status: 0 done; 1 partial (the process exited, a file became unreadable, or\n"
		"SIGINT/SIGTERM/SIGHUP came before the last row); 2 usage error, or nothing measured\n"
		"(no such process, no permission, a file not readable).\n");
}

/* Durations: at least a millisecond, at most a year. */
static bool parse_seconds(const char *text, double *out)
{
	return live_parse_seconds(text, 0.001, 86400.0 * 365, out);
}

static int wss_parse_options(int argc, char **argv, struct wss_options *o)
{
	static const struct option longopts[] = {
		{ "method", required_argument, NULL, 'm' }, { "cumulative", no_argument, NULL, 'C' },
		{ "count", required_argument, NULL, 'c' },  { "total", required_argument, NULL, 'd' },
		{ "profile", required_argument, NULL, 'P' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":m:Cc:d:P:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (strcmp(optarg, "idle") == 0)
				o->method = METHOD_IDLE;
			else if (strcmp(optarg, "referenced") == 0)
				o->method = METHOD_REFERENCED;
			else {
				fprintf(stderr, "pagesleuth wss: --method %s: not idle or referenced\n", optarg);
				return 2;
			}
			break;
		case 'C': o->mode = MODE_CUMULATIVE; break;
		case 'c':
			if (!ps_parse_count(optarg, UINT64_MAX, &o->count)) {
				fprintf(stderr, "pagesleuth wss: --count %s: not a positive number\n", optarg);
				return 2;
			}
			break;
		case 'd':
			if (!parse_seconds(optarg, &o->total)) {
				fprintf(stderr, "pagesleuth wss: --total %s: not a number of seconds (>= 0.001)\n", optarg);
				return 2;
			}
			break;
		case 'P':
			if (!parse_seconds(optarg, &o->profile_start)) {
				fprintf(stderr, "pagesleuth wss: --profile %s: not a number of seconds (>= 0.001)\n", optarg);
				return 2;
			}
			o->mode = MODE_PROFILE;
			break;
		case 'o': o->out_path = optarg; break;
		case 'h': wss_usage(stdout); return 0;
		case ':':
			fprintf(stderr, "pagesleuth wss: %s needs an argument\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "pagesleuth wss: unknown option '%s'\n", argv[optind - 1]);
			wss_usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "pagesleuth wss: need a PID and a DURATION in seconds\n");
		wss_usage(stderr);
		return 2;
	}
	char *end;
	errno = 0;
	unsigned long long pid = strtoull(argv[optind], &end, 10);
	if (!argv[optind][0] || *end || errno || pid == 0 || pid > 0x7fffffff) {
		fprintf(stderr, "pagesleuth wss: %s: not a process id\n", argv[optind]);
		return 2;
	}
	o->pid = pid;
	if (!parse_seconds(argv[optind + 1], &o->duration)) {
		fprintf(stderr, "pagesleuth wss: %s: not a duration in seconds (>= 0.001)\n", argv[optind + 1]);
		return 2;
	}
	if ((o->count || o->total > 0) && o->mode != MODE_CUMULATIVE) {
		fprintf(stderr, "pagesleuth wss: --count and --total go with -C (--cumulative)\n");
		return 2;
	}
	if (o->mode == MODE_PROFILE && o->profile_start > o->duration) {
		fprintf(stderr, "pagesleuth wss: --profile %g: longer than the duration %g\n", o->profile_start,
			o->duration);
		return 2;
	}
	return -1;
}

/* Is the process gone (or a zombie: its address space is)? */
static bool process_gone(const struct wss_paths *paths, uint64_t pid, struct proc_buf *buf)
{
	char path[512];
	struct proc_stat st;
	if (read_pid_file(paths, pid, "stat", buf, path, sizeof path) != 0 ||
	    proc_parse_stat(buf->data, &st) != 0)
		return true;
	return st.state == 'Z' || st.state == 'X' || st.state == 'x';
}

static void sleep_until(uint64_t deadline_ns)
{
	while (!stop_signal) {
		uint64_t now = live_monotonic_ns();
		if (now >= deadline_ns)
			return;
		uint64_t left = deadline_ns - now;
		struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u), .tv_nsec = (long)(left % 1000000000u) };
		nanosleep(&ts, NULL); /* EINTR: the loop looks at stop_signal */
	}
}

struct wss_run {
	const struct wss_options *opt;
	const struct wss_paths *paths;
	enum wss_method method;
	struct wss_idle idle;
	struct proc_buf buf;
	struct ps_writer *w;
	bool table;
	uint64_t reset_start, reset_end; /* ns, CLOCK_MONOTONIC */
	char err[768];
};

/* Clear the reference information. Returns 0 or an errno value (message in r->err). */
static int do_reset(struct wss_run *r)
{
	if (r->method == METHOD_REFERENCED) {
		r->reset_start = live_monotonic_ns();
		int e = wss_clear_refs(r->paths, r->opt->pid, r->err, sizeof r->err);
		r->reset_end = live_monotonic_ns();
		return e;
	}
	int e = wss_idle_collect(&r->idle, r->err, sizeof r->err);
	if (e)
		return e;
	r->reset_start = live_monotonic_ns();
	e = wss_idle_mark(&r->idle, r->err, sizeof r->err);
	r->reset_end = live_monotonic_ns();
	return e;
}

/* Read the working set, and RSS/PSS. Sets *est (seconds) and *usage. */
static int do_read(struct wss_run *r, struct wss_usage *usage, double *est, uint64_t *end_ns)
{
	uint64_t t2, t3;
	int e;
	if (r->method == METHOD_REFERENCED) {
		t2 = live_monotonic_ns();
		e = wss_read_usage(r->paths, r->opt->pid, &r->buf, usage, r->err, sizeof r->err);
		t3 = live_monotonic_ns();
	} else {
		uint64_t active = 0;
		e = wss_idle_collect(&r->idle, r->err, sizeof r->err);
		t2 = live_monotonic_ns();
		if (!e)
			e = wss_idle_count(&r->idle, &active, r->err, sizeof r->err);
		t3 = live_monotonic_ns();
		if (!e)
			e = wss_read_usage(r->paths, r->opt->pid, &r->buf, usage, r->err, sizeof r->err);
		usage->referenced = active * r->idle.page_size;
	}
	*est = ((double)(t2 - r->reset_start) + (double)(t3 - r->reset_end)) / 2 / 1e9;
	*end_ns = t3;
	return e;
}

static void put_row(struct wss_run *r, uint64_t seq, double dur, double est, const struct wss_usage *u,
		    uint64_t end_ns)
{
	const double mb = 1024.0 * 1024.0;
	if (r->table) {
		printf("%-7.3f %10.2f %10.2f %10.2f\n", est, (double)u->rss / mb, (double)u->pss / mb,
		       (double)u->referenced / mb);
		fflush(stdout);
	}
	if (!r->w)
		return;
	char pid[24], sseq[24], sdur[32], sest[32], rss[24], pss[24], ref[24], t[24];
	snprintf(pid, sizeof pid, "%llu", (unsigned long long)r->opt->pid);
	snprintf(sseq, sizeof sseq, "%llu", (unsigned long long)seq);
	snprintf(sdur, sizeof sdur, "%.3f", dur);
	snprintf(sest, sizeof sest, "%.3f", est < 0 ? 0 : est);
	snprintf(rss, sizeof rss, "%llu", (unsigned long long)u->rss);
	snprintf(pss, sizeof pss, "%llu", (unsigned long long)u->pss);
	snprintf(ref, sizeof ref, "%llu", (unsigned long long)u->referenced);
	snprintf(t, sizeof t, "%llu", (unsigned long long)(end_ns - r->reset_start));
	struct ps_kv kv = { .tag = "wss", .n = 10 };
	const char *pairs[10][2] = {
		{ "pid", pid }, { "method", method_names[r->method] }, { "mode", mode_names[r->opt->mode] },
		{ "seq", sseq }, { "dur", sdur }, { "est", sest }, { "rss", rss }, { "pss", pss },
		{ "ref", ref }, { "t", t },
	};
	for (size_t i = 0; i < kv.n; i++)
		kv.kv[i].key = pairs[i][0], kv.kv[i].value = pairs[i][1];
	ps_write_trace(r->w, &kv);
	if (strcmp(r->opt->out_path, "-") == 0) {
		ps_writer_flush_lines(r->w); /* a failure is ps_writer_close's to report */
		fflush(stdout);
	}
}

/* A failure after the start: the process exiting gets its own message. */
static void report_failure(struct wss_run *r, const char *when)
{
	if (process_gone(r->paths, r->opt->pid, &r->buf))
		fprintf(stderr, "pagesleuth wss: pid %llu exited during the measurement (%s)\n",
			(unsigned long long)r->opt->pid, when);
	else
		fprintf(stderr, "pagesleuth wss: %s (%s)\n", r->err, when);
}

/* The start of each row's window after the reset, in seconds; false when there is none. */
static bool row_offset(const struct wss_options *o, uint64_t seq, double *dur)
{
	switch (o->mode) {
	case MODE_ONCE:
		*dur = o->duration;
		return seq == 0;
	case MODE_CUMULATIVE:
		*dur = o->duration * (double)(seq + 1);
		if (o->count && seq >= o->count)
			return false;
		return !(o->total > 0 && *dur > o->total * (1 + 1e-9));
	case MODE_PROFILE:
		*dur = ldexp(o->profile_start, (int)(seq > 60 ? 60 : seq));
		return *dur <= o->duration * (1 + 1e-9);
	}
	return false;
}

/* Is the method available, and why not? */
static bool idle_available(const struct wss_paths *paths)
{
	return access(paths->idle_bitmap, R_OK | W_OK) == 0;
}

int ps_cmd_wss(int argc, char **argv)
{
	struct wss_options opt = { .out_path = NULL };
	int rc = wss_parse_options(argc, argv, &opt);
	if (rc >= 0)
		return rc;
	/* The process's /proc directory, held open: its files are read through it, so a PID
	 * that a newer process is given after this one exits is never measured instead. */
	struct wss_paths paths = wss_system_paths;
	char path[512];
	snprintf(path, sizeof path, "%s/%llu", paths.proc, (unsigned long long)opt.pid);
	paths.pid_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	paths.pinned = paths.pid_dir >= 0;
	struct wss_run r = { .opt = &opt, .paths = &paths, .idle = { .bitmap_fd = -1 } };
	uint32_t page_size = (uint32_t)sysconf(_SC_PAGESIZE);

	/* The process, before anything is written. */
	int e = paths.pinned ? read_pid_file(r.paths, opt.pid, "stat", &r.buf, path, sizeof path) : errno;
	if (e == ENOENT || e == ESRCH) {
		fprintf(stderr, "pagesleuth wss: pid %llu: no such process\n", (unsigned long long)opt.pid);
		rc = 2;
		goto out;
	} else if (e) {
		fprintf(stderr, "pagesleuth wss: %s: %s\n", path, strerror(e));
		rc = 2;
		goto out;
	}
	/* maps: cheap (no page walk), and refused under the same ptrace rule as smaps and
	 * clear_refs, so a process we may not measure is told before anything is reset. */
	e = read_pid_file(r.paths, opt.pid, "maps", &r.buf, path, sizeof path);
	if (e || r.buf.len == 0) {
		if (!e || e == ENOENT || e == ESRCH)
			fprintf(stderr, "pagesleuth wss: pid %llu has no user address space (kernel thread or zombie)\n",
				(unsigned long long)opt.pid);
		else
			fprintf(stderr, "pagesleuth wss: %s: %s%s\n", path, strerror(e),
				e == EACCES || e == EPERM ? " (another user's process needs root)" : "");
		rc = 2;
		goto out;
	}

	r.method = opt.method;
	if (r.method != METHOD_AUTO)
		fprintf(stderr, "pagesleuth wss: method: %s (--method)\n", method_names[r.method]);
	else {
		if (idle_available(r.paths)) {
			r.method = METHOD_IDLE;
			fprintf(stderr, "pagesleuth wss: method: idle (%s)\n", r.paths->idle_bitmap);
		} else {
			r.method = METHOD_REFERENCED;
			fprintf(stderr, "pagesleuth wss: method: referenced (clear_refs, smaps Referenced): %s: %s\n",
				r.paths->idle_bitmap, access(r.paths->idle_bitmap, F_OK) == 0
					? "not writable (needs root)"
					: "absent (kernel without CONFIG_IDLE_PAGE_TRACKING)");
		}
	}
	if (r.method == METHOD_IDLE) {
		e = wss_idle_open(&r.idle, r.paths, opt.pid, page_size, r.err, sizeof r.err);
		if (e) {
			fprintf(stderr, "pagesleuth wss: %s\n", r.err);
			rc = 2;
			goto out;
		}
	}
	fprintf(stderr, "pagesleuth wss: warning: %s pid %llu's page reference information, which the "
			"kernel's reclaim relies on, and adds latency to it while its page tables are walked\n",
		r.method == METHOD_IDLE ? "marking pages idle disturbs" : "clear_refs resets",
		(unsigned long long)opt.pid);

	/* Caught before the output's temporary file exists, so no signal leaves it behind. */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (opt.out_path) {
		char *werr = NULL;
		r.w = ps_writer_open(opt.out_path, &werr);
		if (!r.w) {
			fprintf(stderr, "pagesleuth wss: %s\n", werr ? werr : "cannot open output");
			free(werr);
			rc = 2;
			goto out;
		}
		char pid_text[24], time_buf[32];
		snprintf(pid_text, sizeof pid_text, "%llu", (unsigned long long)opt.pid);
		live_write_header(r.w, page_size, pid_text, true, NULL, time_buf); /* no page records: nothing hidden */
	}
	r.table = !opt.out_path || strcmp(opt.out_path, "-") != 0;

	if (opt.mode == MODE_CUMULATIVE)
		fprintf(stderr, "pagesleuth wss: watching pid %llu's working set grow, a row every %g s...\n",
			(unsigned long long)opt.pid, opt.duration);
	else if (opt.mode == MODE_PROFILE)
		fprintf(stderr, "pagesleuth wss: watching pid %llu's working set over %g s to %g s, doubling...\n",
			(unsigned long long)opt.pid, opt.profile_start, opt.duration);
	else
		fprintf(stderr, "pagesleuth wss: watching pid %llu's page references for %g s...\n",
			(unsigned long long)opt.pid, opt.duration);
	if (r.table) {
		printf("%-7s %10s %10s %10s\n", "Est(s)", "RSS(MB)", "PSS(MB)", "Ref(MB)");
		fflush(stdout);
	}

	rc = 0;
	e = do_reset(&r);
	if (e) {
		report_failure(&r, "resetting");
		rc = e == ESRCH || process_gone(r.paths, opt.pid, &r.buf) ? 1 : 2;
		goto close;
	}
	uint64_t seq = 0;
	double dur;
	for (; row_offset(&opt, seq, &dur); seq++) {
		sleep_until(r.reset_end + (uint64_t)(dur * 1e9));
		if (stop_signal)
			break;
		struct wss_usage u;
		double est;
		uint64_t end_ns;
		e = do_read(&r, &u, &est, &end_ns);
		if (e) {
			report_failure(&r, "reading");
			rc = 1;
			break;
		}
		put_row(&r, seq, dur, est, &u, end_ns);
	}
	if (stop_signal) {
		bool open_ended = opt.mode == MODE_CUMULATIVE && !opt.count && !(opt.total > 0);
		fprintf(stderr, "pagesleuth wss: %s: stopped after %llu row%s\n",
			stop_signal == SIGINT ? "SIGINT" : stop_signal == SIGHUP ? "SIGHUP" : "SIGTERM",
			(unsigned long long)seq, seq == 1 ? "" : "s");
		if (!open_ended)
			rc = 1;
	}
close:
	if (r.w) {
		char *werr = NULL;
		/* Nothing measured at all: leave no file behind. */
		bool abandon = rc == 2;
		if (ps_writer_close(r.w, abandon, &werr) != 0) {
			fprintf(stderr, "pagesleuth wss: %s\n", werr ? werr : "write failed");
			free(werr);
			rc = 2;
		}
	}
	if (r.table && fflush(stdout) != 0) {
		fprintf(stderr, "pagesleuth wss: write error on standard output: %s\n", strerror(errno));
		rc = 2;
	}
out:
	if (r.idle.bitmap_fd >= 0 || r.idle.pm)
		wss_idle_close(&r.idle);
	proc_buf_free(&r.buf);
	if (paths.pinned)
		close(paths.pid_dir);
	return rc;
}
