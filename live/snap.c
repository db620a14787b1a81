/* snap.c - `pagesleuth snap`: snapshot this system's user processes into records.
 *
 * What is read from where (Linux /proc; root sees everything, others see PFN-less data):
 *   /proc                       the pids (numeric entries), or the --pid list
 *   /proc/PID/stat              start_brk (field 47), start_stack (28), total_vm (23 vsize)
 *   /proc/PID/maps              the VMAs: range, perm, offset, dev, inode, path; map_count;
 *                               brk = end of the [heap] VMA (mm->brk itself is not exported;
 *                               the VMA ends at PAGE_ALIGN(brk)), start_brk when there is none
 *   /proc/PID/exe               the mm's exe (readlink)
 *   /proc/PID/task/TID/stat     per thread: comm, state, ppid, minflt, majflt, utime, stime,
 *                               start time (ticks, converted to ns), PF_EXITING
 *   /proc/PID/task/TID/status   Tgid and the mm's RssAnon/RssFile/RssShmem/VmSwap (kB -> pages)
 *   /proc/PID/pagemap           per page: present (63), swapped (62), PFN or swap type/offset
 *                               (0-54), exclusively mapped (56), soft-dirty (55), guard (58);
 *                               read in batches of up to BATCH_PAGES entries, a big batch
 *                               shared out to the --jobs reader threads (as are the kpage reads)
 *   PAGEMAP_SCAN ioctl (6.7+)   where the next populated (present or swapped) page of a big
 *                               VMA is, so big holes are jumped over; which ranges a huge
 *                               (PMD/PUD) leaf maps, asked only for batches holding compound pages
 *   /proc/PID/smaps             once per process, parsed into a table: per VMA Referenced
 *                               (pagemap has no PTE accessed bit) and Swap (swapped-out
 *                               shmem has no pagemap entry: written as the sum's shmem_swap);
 *                               KernelPageSize, which tells hugetlb VMAs (page size > base)
 *                               from THP; before 6.7 Rss/Swap, to skip big VMAs with nothing
 *                               in them; without root Pss, Private_* and Shared_*
 *   /proc/kpagecount            mapcount of each present PFN (one pread per PFN window),
 *                               except order-0 pages pagemap marks exclusive: mapcount 1
 *   /proc/kpageflags            page flags of each present PFN, copied unchanged
 *   uname, /proc/sys/kernel/random/boot_id, gethostname: the header
 *
 * What cannot be known live, written as unknown: vm_flags, refcount, the PTE's writable,
 * executable, accessed, dirty and global bits. Without root PFNs are hidden: PFN, mapcount and
 * page flags become unknown too (and so PSS), resident and swapped counts stay exact: entries
 * mapping the (huge) zero page, which smaps does not count, are found with PAGEMAP_SCAN
 * PAGE_IS_PFNZERO and written with PFLAGS zero_page alone (before 6.7 they count as resident).
 *
 * SHIFT rule: a page gets the size of its leaf entry only when the kernel says a huge leaf
 * maps it (PAGEMAP_SCAN PAGE_IS_HUGE): hugetlb VMAs (smaps KernelPageSize > base page) get
 * log2(KernelPageSize), THP gets log2(hpage_pmd_size). Kernels without PAGEMAP_SCAN: a THP
 * page gets the PMD shift when its whole PMD-aligned block maps one PMD-aligned compound
 * page (head + tails, all THP, PFNs contiguous), hugetlb pages KernelPageSize; else 12. A
 * THP that is PTE-mapped (split PMD, mTHP) is 12.
 *
 * Processes come and go: all files of one are read through its /proc/PID opened once, so a
 * PID that a new process gets meanwhile is never mixed in. One that is gone before any of its
 * records were written is simply not in the snapshot (it was not there when we looked), unless
 * it was asked for by --pid. A process that exits while being written is recorded as gone
 * (one line, a warn record of kind=gone, `u` records for the rest): not a failure, the
 * snapshot stays complete. An unreadable file, or a missing --pid process, gives a one-line
 * message, a warn record, `u` records for what could not be read, and a partial end record
 * (exit status 1).
 */
#include "progress.h"
#include "atomic_file.h"
#include "commands.h"
#include "livehdr.h"
#include "pid_list.h"
#include "pagemap.h"
#include "counters.h"
#include "frames.h"
#include "procfs.h"
#include "records.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH_PAGES 65536u /* pagemap entries per pread: 512 KiB of buffer, 256 MiB of VA */
#define SPARSE_SCAN_MIN_PAGES 4096u /* VMAs from 16 MiB (4K pages) on: jump over holes */
/* Reader threads by default: one per CPU up to this many (the kernel's per-page work for
 * pagemap and /proc/kpage* spreads over CPUs; more would crowd a busy machine). */
#define DEFAULT_MAX_JOBS 4u
#define MAX_JOBS 64u
#define PF_EXITING_FLAG 0x4u /* include/linux/sched.h */
#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h: a kernel thread */
/* Swap types at or above this are special entries (migration, hwpoison, device, markers):
 * MAX_SWAPFILES is 32 minus at most 9 of those in any configuration. */
#define MIN_MAX_SWAPFILES 23u

struct snap_options {
	const char *out_path;
	uint64_t *pids;
	size_t npids;
	bool no_pages;
	bool no_counters; /* no counter records (meminfo, vmstat, zones, buddyinfo) */
	bool frames;      /* f records: every frame of RAM, from kpageflags (root only) */
	unsigned jobs;  /* reader threads, the main one included; 0: default */
	double every;   /* seconds between snapshot starts; 0: one snapshot */
	uint64_t count; /* snapshots to take; 0 with --every: until SIGINT/SIGTERM */
	char *tags;     /* -t KEY=VALUE...: the header's tags= */
};

/* The signal that asked snap to stop (SIGINT, SIGTERM, SIGHUP), or 0. */
static volatile sig_atomic_t stop_signal;

/* One thread, read before anything of its process is written. */
struct thread_info {
	struct ps_task task;
	char comm[64];
};

struct snap {
	struct ps_writer *w;
	const struct snap_options *opt;
	uint32_t page_size;
	unsigned page_shift, pmd_shift;
	uint64_t ticks_per_sec;
	bool pfn_visible;     /* PFNs in pagemap and /proc/kpage* readable */
	bool scan_supported;  /* PAGEMAP_SCAN works; cleared on the first ENOTTY/EINVAL */
	bool partial;
	uint64_t denied, first_denied; /* processes skipped for EACCES (whole-system mode) */
	uint64_t next_mm_id;
	struct kpage_files kp;
	struct kpage_scratch kscratch;
	struct read_pool *pool; /* threads sharing big pagemap and kpage reads */
	/* reused per process */
	struct proc_buf buf, maps_text, smaps_text;
	bool smaps_loaded;
	int smaps_err;                /* why smaps could not be read (errno), or 0 */
	struct proc_smaps_vma *smaps; /* its VMAs, parsed */
	size_t nsmaps, smaps_cap;
	struct proc_map *maps;
	size_t nmaps, maps_cap;
	struct ps_vma *vmas;
	size_t vmas_cap;
	struct thread_info *threads;
	size_t threads_cap;
	uint64_t *tids; /* the thread ids of the process being read */
	size_t tids_cap;
	struct va_range *huge, *ranges;
	size_t nhuge, huge_cap, nranges, ranges_cap;
	/* one batch */
	uint64_t *pm, *pfn, *count_pfn, *count, *flags;
	uint8_t *shift;
};

/* The process being written. */
struct proc_ctx {
	uint64_t pid;
	int dir; /* its /proc/PID, open: every file is read through it (see snap_process) */
	uint64_t mm_id;
	int pagemap_fd;
	const char *failed; /* pagemap failed (the reason of the u records for the rest), or NULL */
	bool smaps_warned;  /* smaps could not be read: said once */
};

/* ---- messages ------------------------------------------------------------------------------ */

/* Something could not be read: one stderr line, a warn record, the snapshot is partial. */
static void problem(struct snap *s, uint64_t mm_id, uint64_t at, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	fprintf(stderr, "pagesleuth snap: %s\n", reason);
	ps_write_warn(s->w, &(struct ps_warn){ .mm = mm_id, .at = at, .reason = reason });
	s->partial = true;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth snap [--pid PID]... [-o FILE] [--no-pages] [--jobs N] [-t K=V]...\n"
		"                       [--every SECONDS [--count N]]\n\n"
		"Snapshot running user processes from /proc into pagesleuth records: threads, address\n"
		"spaces, VMAs and, page by page, what each maps (PFN, mapcount, page flags; swap);\n"
		"per VMA also smaps' Referenced and swapped-out shared memory (MAP_SHARED anonymous,\n"
		"tmpfs: pagemap shows no entry for it), from /proc/PID/smaps.\n\n"
		"  -p, --pid PID    only this process (repeatable); default: every user process\n"
		"  -o, --output F   write to F atomically (default: stdout unless a terminal; '-': stdout)\n"
		"      --no-pages   VMAs only: no page runs or summaries (fast)\n"
		"      --no-counters  leave out the kernel's counters (/proc/meminfo, vmstat, zoneinfo,\n"
		"                   buddyinfo), written after the processes of each snapshot\n"
		"      --frames     also every frame of RAM by class (/proc/kpageflags and kpagecount\n"
		"                   over every PFN, as page-types -a; root only; ~0.3 s per GiB)\n"
		"  -e, --every S    repeat: one snapshot every S seconds (fractions allowed), all in one\n"
		"                   stream (snapshot seq=0, 1, ...), each with its threads' fault counters,\n"
		"                   for 'pagesleuth report' (thrash) and 'pagesleuth diff'; on a\n"
		"                   terminal, stderr counts the snapshots written\n"
		"  -c, --count N    with --every: N snapshots (default: until SIGINT or SIGTERM)\n"
		"  -j, --jobs N     threads reading page tables and page frames of big processes\n"
		"                   (default: one per CPU, at most 4; 1: no threads)\n"
		"  -t, --tag K=V    a tag for 'pagesleuth db' (board, firmware, ...) in the header's\n"
		"                   tags= (repeatable)\n"
		"  -h, --help       this text\n\n"
		"Run as root for PFNs, mapcounts, page flags and PSS; without root those are written as\n"
		"unknown. SIGINT, SIGTERM or SIGHUP stops after the process being read: that snapshot is\n"
		"closed as partial and the file stays valid (with -o it appears only then, complete).\n"
		"Exit status: 0 complete, 1 partial (a process or file could not be read, or a snapshot\n"
		"was interrupted), 2 usage or fatal error, or no --pid is a user process (no such\n"
		"process, a kernel thread): nothing is written then, as with wss.\n");
}

static int parse_options(int argc, char **argv, struct snap_options *opt)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "no-pages", no_argument, NULL, 'n' },
		{ "no-counters", no_argument, NULL, 'N' },
		{ "frames", no_argument, NULL, 'F' },
		{ "every", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "tag", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 1;
	opterr = 0; /* our own messages, with the command's name */
	bool have_count = false;
	int c;
	while ((c = getopt_long(argc, argv, ":p:o:e:c:j:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			errno = 0;
			unsigned long long pid = strtoull(optarg, &end, 10);
			if (!*optarg || *end || errno || pid == 0 || pid > 0x7fffffff) {
				fprintf(stderr, "pagesleuth snap: --pid %s: not a process id\n", optarg);
				return 2;
			}
			uint64_t *grown = realloc(opt->pids, (opt->npids + 1) * sizeof *grown);
			if (!grown)
				return 2;
			opt->pids = grown;
			opt->pids[opt->npids++] = pid;
			break;
		}
		case 'o': opt->out_path = optarg; break;
		case 'n': opt->no_pages = true; break;
		case 'N': opt->no_counters = true; break;
		case 'F': opt->frames = true; break;
		case 'e':
			/* A positive number of seconds, at most a day. */
			if (!live_parse_seconds(optarg, 0, 86400, &opt->every) || opt->every <= 0) {
				fprintf(stderr, "pagesleuth snap: --every %s: not a number of seconds (> 0, at most 86400)\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			if (!ps_parse_count(optarg, UINT64_MAX, &opt->count)) {
				fprintf(stderr, "pagesleuth snap: --count %s: not a positive number\n", optarg);
				return 2;
			}
			have_count = true;
			break;
		case 'j': {
			uint64_t n;
			if (!ps_parse_count(optarg, MAX_JOBS, &n)) {
				fprintf(stderr, "pagesleuth snap: --jobs %s: not a number of threads (1 to %u)\n",
					optarg, MAX_JOBS);
				return 2;
			}
			opt->jobs = (unsigned)n;
			break;
		}
		case 't': {
			const char *why;
			if (ps_tags_append(&opt->tags, optarg, &why) != 0) {
				fprintf(stderr, "pagesleuth snap: tag '%s': %s\n", optarg, why);
				return 2;
			}
			break;
		}
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "pagesleuth snap: %s needs an argument\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "pagesleuth snap: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pagesleuth snap: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (have_count && opt->every == 0) {
		fprintf(stderr, "pagesleuth snap: --count needs --every (the time between snapshots)\n");
		return 2;
	}
	if (opt->every == 0)
		opt->count = 1;
	return -1; /* go on */
}

/* ---- header -------------------------------------------------------------------------------- */


/* Are PFNs visible? Root (CAP_SYS_ADMIN) sees them in pagemap and can read /proc/kpage*.
 * Probe with one of our own present pages rather than guessing from the uid. */
static bool probe_pfn_visible(struct snap *s)
{
	if (kpage_open(&s->kp) != 0)
		return false;
	volatile char probe = 1;
	uint64_t entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (pagemap_read(fd, (uintptr_t)&probe / s->page_size, 1, &entry) != 1)
			entry = 0;
		close(fd);
	}
	if ((entry & PM_PRESENT) && (entry & PM_PFN_MASK))
		return true;
	kpage_close(&s->kp);
	return false;
}

static int write_header(struct snap *s, char *time_buf)
{
	char *pids = NULL;
	size_t pids_len = 0;
	FILE *pf = open_memstream(&pids, &pids_len);
	if (!pf)
		return -1;
	if (!s->opt->npids)
		fputs("all", pf);
	for (size_t i = 0; i < s->opt->npids; i++)
		fprintf(pf, "%s%llu", i ? "," : "", (unsigned long long)s->opt->pids[i]);
	fclose(pf);
	int rc = live_write_header(s->w, s->page_size, pids, s->pfn_visible, s->opt->tags, time_buf);
	free(pids);
	return rc;
}

/* ---- tasks --------------------------------------------------------------------------------- */

/* No 128-bit product: 32-bit targets (arm, ppc32) have no __int128. */
static uint64_t ticks_to_ns(const struct snap *s, uint64_t ticks)
{
	return ticks / s->ticks_per_sec * 1000000000u +
	       ticks % s->ticks_per_sec * 1000000000u / s->ticks_per_sec;
}

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The numeric entries of DIR (/proc: pids, /proc/PID/task: tids), ascending, into *out
 * (grown as needed, *cap its capacity); closes DIR. Returns 0 or an errno value. */
static int list_numeric_dir(DIR *dir, uint64_t **out, size_t *cap, size_t *n)
{
	*n = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		char *end;
		unsigned long long id = strtoull(de->d_name, &end, 10);
		if (*end || !id)
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			uint64_t *grown = realloc(*out, ncap * sizeof *grown);
			if (!grown) {
				closedir(dir);
				return ENOMEM;
			}
			*out = grown, *cap = ncap;
		}
		(*out)[(*n)++] = id;
	}
	closedir(dir);
	qsort(*out, *n, sizeof **out, id_cmp);
	return 0;
}

static int list_numeric_entries(const char *path, uint64_t **out, size_t *cap, size_t *n)
{
	DIR *dir = opendir(path);
	return dir ? list_numeric_dir(dir, out, cap, n) : errno;
}

/* Read every thread of the process whose /proc/PID is PROC_DIR. Threads that exit meanwhile
 * are left out (they are gone). Returns the number read, or -errno when the process itself
 * cannot be read. */
static ssize_t read_threads(struct snap *s, int proc_dir)
{
	int task_fd = openat(proc_dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *task_dir = task_fd >= 0 ? fdopendir(task_fd) : NULL;
	if (!task_dir) {
		int err = errno;
		if (task_fd >= 0)
			close(task_fd);
		return -err;
	}
	size_t ntids;
	int err = list_numeric_dir(task_dir, &s->tids, &s->tids_cap, &ntids);
	if (err)
		return -err;
	size_t n = 0;
	char path[128];
	for (size_t k = 0; k < ntids; k++) {
		unsigned long long tid = s->tids[k];
		struct proc_stat st;
		struct proc_status status;
		snprintf(path, sizeof path, "task/%llu/stat", tid);
		if (proc_read_file_at(proc_dir, path, &s->buf) != 0 || proc_parse_stat(s->buf.data, &st) != 0)
			continue;
		snprintf(path, sizeof path, "task/%llu/status", tid);
		if (proc_read_file_at(proc_dir, path, &s->buf) != 0 ||
		    proc_parse_status(s->buf.data, &status) != 0)
			continue;
		if (n == s->threads_cap) {
			size_t cap = s->threads_cap ? s->threads_cap * 2 : 16;
			struct thread_info *grown = realloc(s->threads, cap * sizeof *grown);
			if (!grown)
				return -ENOMEM;
			s->threads = grown, s->threads_cap = cap;
		}
		struct thread_info *t = &s->threads[n++];
		uint64_t kb_to_pages = s->page_size / 1024;
		memcpy(t->comm, st.comm, sizeof t->comm);
		t->task = (struct ps_task){
			.pid = tid,
			.tgid = status.tgid,
			.ppid = st.ppid,
			.state = st.state,
			.minflt = st.minflt,
			.majflt = st.majflt,
			.utime = ticks_to_ns(s, st.utime),
			.stime = ticks_to_ns(s, st.stime),
			.start = ticks_to_ns(s, st.starttime),
			.rss_file = status.has_rss ? status.rss_file_kb / kb_to_pages : PS_UNKNOWN,
			.rss_anon = status.has_rss ? status.rss_anon_kb / kb_to_pages : PS_UNKNOWN,
			.rss_shmem = status.has_rss ? status.rss_shmem_kb / kb_to_pages : PS_UNKNOWN,
			.rss_swap = status.has_rss ? status.swap_kb / kb_to_pages : PS_UNKNOWN,
			.exiting = (st.flags & PF_EXITING_FLAG) != 0,
		};
	}
	return (ssize_t)n; /* in tid order: the list was sorted */
}

/* ---- page runs ----------------------------------------------------------------------------- */

/* The summary of the VMA being written. Its page runs go straight to the writer, which
 * merges consecutive pages into runs itself. */
struct vma_runs {
	struct ps_vma_sum sum;
};

static void add_map(struct snap *s, struct vma_runs *r, const struct ps_map *m)
{
	ps_write_map(s->w, m);
	ps_sum_add_map(&r->sum, m, s->page_size);
}

static void add_swap(struct snap *s, struct vma_runs *r, const struct ps_swap *sw)
{
	ps_write_swap(s->w, sw);
	ps_sum_add_swap(&r->sum, sw);
}

static void add_unknown(struct snap *s, struct vma_runs *r, uint64_t vaddr, uint64_t npages,
			const char *reason)
{
	struct ps_unknown_range u = { .mm = r->sum.mm, .vaddr = vaddr, .npages = npages, .reason = reason };
	ps_write_unknown(s->w, &u);
	ps_sum_add_unknown(&r->sum, &u);
}

static unsigned log2_u64(uint64_t v)
{
	unsigned n = 0;
	while (v > 1)
		v >>= 1, n++;
	return n;
}

/* VMA's entry in the process's smaps, read and parsed once per process (at its first VMA),
 * or NULL when smaps could not be read (s->smaps_err says why) or does not list VMA (it was
 * mapped or unmapped meanwhile). */
static const struct proc_smaps_vma *smaps_of(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma)
{
	if (!s->smaps_loaded) {
		s->nsmaps = 0;
		s->smaps_err = proc_read_file_at(p->dir, "smaps", &s->smaps_text);
		if (!s->smaps_err)
			s->smaps_err = proc_parse_smaps(s->smaps_text.data, &s->smaps, &s->nsmaps, &s->smaps_cap);
		s->smaps_loaded = true;
	}
	return s->smaps_err ? NULL : proc_smaps_find(s->smaps, s->nsmaps, vma->start);
}

/* Leaf shift of a huge-mapped page in VMA: hugetlb VMAs have their own page size (smaps
 * KernelPageSize); THP is PMD-mapped. */
static unsigned huge_leaf_shift(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma)
{
	const struct proc_smaps_vma *sv = smaps_of(s, p, vma);
	uint64_t kb = sv ? sv->kernel_page_size : UINT64_MAX;
	return kb != UINT64_MAX && kb * 1024 > s->page_size ? log2_u64(kb * 1024) : s->pmd_shift;
}

/* Without PAGEMAP_SCAN: does the PMD-aligned block at index `first` map one PMD-aligned THP
 * compound page (head, then tails, PFNs contiguous)? */
static bool block_is_whole_thp(const struct snap *s, size_t first, size_t block)
{
	const uint64_t thp = PS_PF(PS_PF_THP), head = PS_PF(PS_PF_COMPOUND_HEAD),
		       tail = PS_PF(PS_PF_COMPOUND_TAIL);
	if (s->pfn[first] == PS_UNKNOWN || s->pfn[first] % block || s->flags[first] == PS_UNKNOWN ||
	    (s->flags[first] & (thp | head)) != (thp | head))
		return false;
	for (size_t i = first + 1; i < first + block; i++)
		if (s->pfn[i] != s->pfn[first] + (i - first) || s->flags[i] == PS_UNKNOWN ||
		    (s->flags[i] & (thp | tail)) != (thp | tail))
			return false;
	return true;
}

/* Fill s->shift[0..n) for the batch at VA (see the SHIFT rule at the top). */
static void batch_shifts(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma, uint64_t va,
			 size_t n)
{
	memset(s->shift, s->page_shift, n);
	const uint64_t compound = PS_PF(PS_PF_COMPOUND_HEAD) | PS_PF(PS_PF_COMPOUND_TAIL);
	bool candidates = false, hugetlb = false;
	for (size_t i = 0; i < n; i++) {
		if (!(s->pm[i] & PM_PRESENT))
			continue;
		if (!s->pfn_visible) {
			/* No flags to go by: ask the kernel whenever a huge leaf could fit. */
			candidates = vma->end - vma->start >= (UINT64_C(1) << s->pmd_shift);
			break;
		}
		if (s->flags[i] != PS_UNKNOWN && (s->flags[i] & compound))
			candidates = true;
		if (s->flags[i] != PS_UNKNOWN && (s->flags[i] & PS_PF(PS_PF_HUGE)))
			hugetlb = true;
	}
	if (!candidates)
		return;
	if (s->scan_supported) {
		int err = pagemap_huge_ranges(p->pagemap_fd, va, va + n * s->page_size, &s->huge,
					      &s->nhuge, &s->huge_cap);
		if (err == ENOTTY || err == EINVAL) {
			s->scan_supported = false;
		} else if (err) {
			s->nhuge = 0; /* PTE-sized is the safe claim when the kernel does not answer */
		} else {
			for (size_t h = 0; h < s->nhuge; h++) {
				size_t a = (size_t)((s->huge[h].start - va) / s->page_size);
				size_t b = (size_t)((s->huge[h].end - va) / s->page_size);
				if (a >= n)
					continue;
				/* With flags, only hugetlb (KPF_HUGE) needs its size from smaps;
				 * a huge THP leaf is a PMD. */
				bool is_thp = s->pfn_visible && s->flags[a] != PS_UNKNOWN &&
					      !(s->flags[a] & PS_PF(PS_PF_HUGE));
				unsigned leaf = is_thp ? s->pmd_shift : huge_leaf_shift(s, p, vma);
				for (size_t i = a; i < b && i < n; i++)
					s->shift[i] = (uint8_t)leaf;
			}
			return;
		}
	}
	if (!s->pfn_visible)
		return;
	/* Fallback for kernels before PAGEMAP_SCAN. */
	if (hugetlb) {
		unsigned leaf = huge_leaf_shift(s, p, vma);
		for (size_t i = 0; i < n; i++)
			if (s->flags[i] != PS_UNKNOWN && (s->flags[i] & PS_PF(PS_PF_HUGE)))
				s->shift[i] = (uint8_t)leaf;
	}
	size_t block = (size_t)1 << (s->pmd_shift - s->page_shift);
	uint64_t block_bytes = (uint64_t)block * s->page_size;
	for (uint64_t b = (va + block_bytes - 1) & ~(block_bytes - 1);
	     b + block_bytes <= va + n * s->page_size; b += block_bytes) {
		size_t first = (size_t)((b - va) / s->page_size);
		if (block_is_whole_thp(s, first, block))
			memset(s->shift + first, s->pmd_shift, block);
	}
}

/* Without root every PFN reads 0, so a zero-page mapping looks like any resident page, where
 * smaps does not count it. PAGEMAP_SCAN (PAGE_IS_PFNZERO) still tells: those entries get PFLAGS
 * zero_page alone, all the records need to leave them out of resident and PSS. Asked only for
 * batches with a candidate: present, not exclusive, and anonymous memory (the huge zero page
 * reads as PM_FILE). */
static void hidden_zero_pages(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma,
			      uint64_t va, size_t n)
{
	bool candidates = false;
	for (size_t i = 0; i < n && !candidates; i++)
		candidates = (s->pm[i] & (PM_PRESENT | PM_MMAP_EXCLUSIVE)) == PM_PRESENT &&
			     (!(s->pm[i] & PM_FILE) || vma->inode == 0);
	if (!candidates || !s->scan_supported)
		return;
	int err = pagemap_zero_ranges(p->pagemap_fd, va, va + n * s->page_size, &s->huge, &s->nhuge,
				      &s->huge_cap);
	if (err == ENOTTY || err == EINVAL)
		s->scan_supported = false;
	if (err)
		return; /* then counted as resident, as before PAGEMAP_SCAN */
	for (size_t h = 0; h < s->nhuge; h++) {
		uint64_t a = (s->huge[h].start - va) / s->page_size, b = (s->huge[h].end - va) / s->page_size;
		for (uint64_t i = a; i < b && i < n; i++)
			if (s->pm[i] & PM_PRESENT)
				s->flags[i] = PS_PF(PS_PF_ZERO_PAGE);
	}
}

/* Write the runs of pagemap entries s->pm[0..n) at VA. */
static void write_batch(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma,
		       struct vma_runs *r, uint64_t va, size_t n)
{
	if (s->pfn_visible) {
		for (size_t i = 0; i < n; i++)
			s->pfn[i] = (s->pm[i] & PM_PRESENT) && (s->pm[i] & PM_PFN_MASK)
					    ? s->pm[i] & PM_PFN_MASK : PS_UNKNOWN;
		int err = kpage_lookup(s->kp.flags_fd, &s->kscratch, s->pool, s->pfn, n, s->flags);
		if (!err) {
			/* An order-0 page that pagemap calls exclusively mapped has mapcount 1 by
			 * definition (under CONFIG_PAGE_MAPCOUNT and NO_PAGE_MAPCOUNT alike): skip
			 * its kpagecount read. That halves the reads for private memory. */
			const uint64_t compound = PS_PF(PS_PF_COMPOUND_HEAD) | PS_PF(PS_PF_COMPOUND_TAIL);
			for (size_t i = 0; i < n; i++) {
				s->count_pfn[i] = s->pfn[i];
				if (s->pfn[i] != PS_UNKNOWN && (s->pm[i] & PM_MMAP_EXCLUSIVE) &&
				    s->flags[i] != PS_UNKNOWN && !(s->flags[i] & compound))
					s->count_pfn[i] = PS_UNKNOWN;
			}
			err = kpage_lookup(s->kp.count_fd, &s->kscratch, s->pool, s->count_pfn, n, s->count);
			for (size_t i = 0; i < n; i++)
				if (s->count_pfn[i] != s->pfn[i])
					s->count[i] = 1;
		}
		if (err) {
			problem(s, p->mm_id, va, "pid %llu: /proc/kpagecount or /proc/kpageflags: %s",
				(unsigned long long)p->pid, strerror(err));
			for (size_t i = 0; i < n; i++)
				s->count[i] = s->flags[i] = PS_UNKNOWN;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			s->pfn[i] = s->count[i] = s->flags[i] = PS_UNKNOWN;
		hidden_zero_pages(s, p, vma, va, n);
	}
	batch_shifts(s, p, vma, va, n);

	const uint8_t known = 1u << PS_PTE_USER | 1u << PS_PTE_SOFTDIRTY | 1u << PS_PTE_EXCLUSIVE;
	const uint64_t pte_bits = PM_PRESENT | PM_SOFT_DIRTY | PM_MMAP_EXCLUSIVE;
	for (size_t i = 0; i < n; i++) {
		uint64_t e = s->pm[i], vaddr = va + i * s->page_size;
		if (e & PM_PRESENT) {
			uint8_t set = 1u << PS_PTE_USER;
			if (e & PM_SOFT_DIRTY)
				set |= 1u << PS_PTE_SOFTDIRTY;
			if (e & PM_MMAP_EXCLUSIVE)
				set |= 1u << PS_PTE_EXCLUSIVE;
			/* The pages after it that the writer would merge into its run (same bits,
			 * next frame) go in one call: a run costs one call, not one per page. The
			 * zero page is left to the writer's own rule (same frame, not the next). */
			size_t j = i + 1;
			bool zero = s->flags[i] != PS_UNKNOWN && (s->flags[i] & PS_PF(PS_PF_ZERO_PAGE));
			if (!zero) {
				uint64_t next_pfn = s->pfn[i] == PS_UNKNOWN ? PS_UNKNOWN : s->pfn[i] + 1;
				while (j < n && (s->pm[j] & pte_bits) == (e & pte_bits) && s->pfn[j] == next_pfn &&
				       s->count[j] == s->count[i] && s->flags[j] == s->flags[i] &&
				       s->shift[j] == s->shift[i]) {
					j++;
					if (next_pfn != PS_UNKNOWN)
						next_pfn++;
				}
			}
			struct ps_map m = {
				.mm = p->mm_id, .vaddr = vaddr, .pfn = s->pfn[i], .npages = j - i,
				.mapcount = s->count[i], .refcount = PS_UNKNOWN,
				.pte = { .set = set, .known = known },
				.pflags = s->flags[i], .shift = s->shift[i],
			};
			add_map(s, r, &m);
			i = j - 1;
		} else if ((e & PM_SWAP) && !(e & PM_GUARD_REGION)) {
			/* Guard markers own no memory; everything else swap-like does. Without
			 * root the kernel hides type and offset (they read 0). */
			uint64_t type = PS_UNKNOWN, offset = PS_UNKNOWN;
			enum ps_swap_kind kind = PS_SWAP;
			if (s->pfn_visible) {
				type = e & ((1u << PM_SWAP_TYPE_BITS) - 1);
				offset = (e & PM_PFN_MASK) >> PM_SWAP_TYPE_BITS;
				if (type >= MIN_MAX_SWAPFILES)
					kind = PS_SWAP_OTHER;
			}
			struct ps_swap sw = { .mm = p->mm_id, .vaddr = vaddr, .npages = 1,
					      .type = type, .offset = offset, .kind = kind };
			add_swap(s, r, &sw);
		}
	}
}

/* Where the populated part of VMA resumes at or after VA: VA itself for small VMAs (holes
 * cost little to read through), else the next present or swapped page that PAGEMAP_SCAN
 * finds (it skips empty page-table levels: a sanitizer's terabytes of shadow would otherwise
 * be gigabytes of empty pagemap entries), or the VMA's end when nothing more is there. */
static uint64_t next_populated(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma,
			       uint64_t va)
{
	if ((vma->end - vma->start) / s->page_size < SPARSE_SCAN_MIN_PAGES || p->failed)
		return va;
	if (s->scan_supported) {
		uint64_t at;
		int err = pagemap_next_populated(p->pagemap_fd, va, vma->end, &at);
		if (!err)
			return at;
		if (err == ENOTTY || err == EINVAL)
			s->scan_supported = false;
		else
			return va; /* read through: slower, never wrong */
	}
	/* Older kernels: smaps (one walk that skips holes) says whether anything is there at
	 * all; asked once, at the VMA's start. */
	if (va != vma->start)
		return va;
	const struct proc_smaps_vma *sv = smaps_of(s, p, vma);
	return sv && sv->rss == 0 && sv->swap == 0 ? vma->end : va;
}

/* Empty entries at the end of a batch from which a jump to the next populated page is
 * worth a PAGEMAP_SCAN call: one page table's worth (reading through fewer is as cheap). */
#define HOLE_JUMP_PAGES 512u
/* A batch with fewer populated entries than 1 in this many makes the rest of its VMA be read
 * range by range, as PAGEMAP_SCAN lists them (stray pages scattered over gigabytes). */
#define SPARSE_BATCH_RATIO 8u

/* Read and write the pagemap entries of [va, chunk_end) (within one BATCH_PAGES-aligned
 * span). Returns the number of populated entries, or -1 when the process could not be read
 * further: then the rest of the VMA is written as unknown. */
static ssize_t write_chunk(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma,
			   struct vma_runs *r, uint64_t va, uint64_t chunk_end)
{
	size_t n = (size_t)((chunk_end - va) / s->page_size);
	ssize_t got = p->failed ? 0 : pagemap_read_pool(p->pagemap_fd, s->pool, va / s->page_size,
							 n, s->pm);
	if (got < 0) {
		problem(s, p->mm_id, va, "pid %llu: /proc/%llu/pagemap: %s", (unsigned long long)p->pid,
			(unsigned long long)p->pid, strerror((int)-got));
		p->failed = "pgtable-unreadable";
		got = 0;
	}
	if (got > 0)
		write_batch(s, p, vma, r, va, (size_t)got);
	if ((size_t)got < n) {
		uint64_t at = va + (uint64_t)got * s->page_size;
		if (!p->failed) {
			/* Not a failure: processes come and go. Recorded as gone (the analyzer leaves
			 * it out, and says so), the snapshot stays complete. */
			char reason[160];
			snprintf(reason, sizeof reason, "pid %llu exited during the snapshot",
				 (unsigned long long)p->pid);
			fprintf(stderr, "pagesleuth snap: %s: left out\n", reason);
			ps_write_warn(s->w, &(struct ps_warn){ .mm = p->mm_id, .at = at, .kind = "gone",
							      .reason = reason });
			p->failed = "pid-gone";
		}
		add_unknown(s, r, at, (vma->end - at) / s->page_size, p->failed);
		return -1;
	}
	ssize_t populated = 0;
	for (size_t i = 0; i < n; i++)
		populated += (s->pm[i] & (PM_PRESENT | PM_SWAP)) != 0;
	return populated;
}

/* The end of the BATCH_PAGES-aligned span holding VA, at most END (so no PMD straddles two
 * batches). */
static uint64_t chunk_end_of(const struct snap *s, uint64_t va, uint64_t end)
{
	uint64_t span = (uint64_t)BATCH_PAGES * s->page_size, chunk_end = (va & ~(span - 1)) + span;
	return chunk_end > end || chunk_end < va ? end : chunk_end;
}

/* The page runs of VMA, read BATCH_PAGES entries at a time from where pages are: dense memory
 * straight through (a page-table walk to find where pages are would cost a tenth again), big
 * holes jumped over, sparse stretches range by range. */
static void write_range(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma,
			struct vma_runs *r)
{
	uint64_t end = vma->end;
	for (uint64_t va = next_populated(s, p, vma, vma->start); va < end;) {
		uint64_t chunk_end = chunk_end_of(s, va, end);
		size_t n = (size_t)((chunk_end - va) / s->page_size);
		ssize_t populated = write_chunk(s, p, vma, r, va, chunk_end);
		if (populated < 0)
			return;
		va = chunk_end;
		if (va >= end || (vma->end - vma->start) / s->page_size < SPARSE_SCAN_MIN_PAGES)
			continue;
		if ((size_t)populated * SPARSE_BATCH_RATIO < n && s->scan_supported &&
		    pagemap_populated_ranges(p->pagemap_fd, va, end, &s->ranges, &s->nranges,
					     &s->ranges_cap) == 0) {
			for (size_t i = 0; i < s->nranges; i++)
				for (uint64_t at = s->ranges[i].start; at < s->ranges[i].end;) {
					uint64_t to = chunk_end_of(s, at, s->ranges[i].end);
					if (write_chunk(s, p, vma, r, at, to) < 0)
						return;
					at = to;
				}
			return;
		}
		size_t empty = 0;
		while (empty < n && !(s->pm[n - 1 - empty] & (PM_PRESENT | PM_SWAP)))
			empty++;
		if (empty >= HOLE_JUMP_PAGES)
			va = next_populated(s, p, vma, va);
	}
}

/* Page runs and the summary of one VMA. */
static void write_vma_pages(struct snap *s, struct proc_ctx *p, const struct ps_vma *vma)
{
	struct vma_runs r = { .sum = { .mm = p->mm_id, .start = vma->start } };
	/* [vsyscall] lies above the task size, where pagemap has no entries and the process no
	 * page table of its own: nothing to record. */
	if (strcmp(vma->path, "[vsyscall]") != 0)
		write_range(s, p, vma, &r);
	const struct proc_smaps_vma *sv = p->failed ? NULL : smaps_of(s, p, vma);
	if (!p->failed && s->smaps_err && s->smaps_err != ESRCH && s->smaps_err != ENOENT &&
	    !p->smaps_warned) {
		p->smaps_warned = true;
		problem(s, p->mm_id, PS_UNKNOWN, "pid %llu: /proc/%llu/smaps: %s: referenced pages from page "
			"flags only (no PTE accessed bits), swapped-out shmem unknown",
			(unsigned long long)p->pid, (unsigned long long)p->pid, strerror(s->smaps_err));
	}
	const uint64_t kb_per_page = s->page_size / 1024;
	/* Referenced as smaps counts it (PTE young, PG_young or PG_referenced): pagemap shows no
	 * PTE accessed bit, so the page runs alone would give PG_referenced only. */
	if (sv && sv->referenced != UINT64_MAX)
		r.sum.referenced = sv->referenced / kb_per_page;
	/* A swapped-out shmem/tmpfs page (MAP_SHARED anonymous, SysV, memfd, tmpfs files: all on
	 * filesystems with an anonymous device, major 0) leaves no page-table entry: pagemap says
	 * neither present nor swapped, smaps' Swap counts it (from the shmem object). What smaps
	 * counts beyond the VMA's swap entries is that. */
	if (vma->inode != 0 && vma->dev_major == 0 && !p->failed) {
		if (!sv || sv->swap == UINT64_MAX) {
			r.sum.shmem_swap = PS_UNKNOWN;
		} else {
			uint64_t vpages = (vma->end - vma->start) / s->page_size, swap = sv->swap / kb_per_page;
			r.sum.shmem_swap = swap > r.sum.swapped ? swap - r.sum.swapped : 0;
			if (r.sum.shmem_swap > vpages - r.sum.swapped)
				r.sum.shmem_swap = vpages - r.sum.swapped; /* smaps read at another moment */
		}
	}
	/* Without the PFNs there are no mapcounts, but the kernel still gives the owner smaps:
	 * its Pss and Private (pages mapped once) stand in for them in the summary (kB precision
	 * per VMA, as smaps has them). */
	if (!s->pfn_visible && r.sum.resident && sv) {
		uint64_t pss_kb = sv->pss, private_kb = sv->private_clean + sv->private_dirty;
		uint64_t shared_kb = sv->shared_clean + sv->shared_dirty;
		r.sum.pss = (pss_kb * 1024) << PS_PSS_SHIFT;
		r.sum.single = private_kb * 1024 / s->page_size;
		r.sum.shared = shared_kb * 1024 / s->page_size;
	}
	ps_write_sum(s->w, &r.sum); /* also ends the pending run */
}

/* ---- processes ----------------------------------------------------------------------------- */

static int grow_vmas(struct snap *s, size_t n)
{
	if (n <= s->vmas_cap)
		return 0;
	struct ps_vma *grown = realloc(s->vmas, n * sizeof *grown);
	if (!grown)
		return -1;
	s->vmas = grown, s->vmas_cap = n;
	return 0;
}

/* A read failed before anything of the process was written. Gone processes not asked for by
 * --pid are simply not part of the snapshot. */
static void early_failure(struct snap *s, uint64_t pid, bool explicit, const char *file, int err)
{
	if (!explicit && (err == ENOENT || err == ESRCH))
		return;
	if (!explicit && err == EACCES) {
		/* Other users' processes, when not root: one warn record each, one summary
		 * message at the end rather than a line per process. */
		char reason[128];
		snprintf(reason, sizeof reason, "pid %llu: /proc/%llu/%s: %s", (unsigned long long)pid,
			 (unsigned long long)pid, file, strerror(err));
		ps_write_warn(s->w, &(struct ps_warn){ .mm = PS_UNKNOWN, .at = PS_UNKNOWN, .reason = reason });
		s->partial = true;
		if (s->denied++ == 0)
			s->first_denied = pid;
		return;
	}
	problem(s, PS_UNKNOWN, PS_UNKNOWN, "pid %llu: /proc/%llu/%s: %s%s", (unsigned long long)pid,
		(unsigned long long)pid, file, strerror(err),
		err == ENOENT || err == ESRCH ? " (no such process)" : "");
}

/* The process whose /proc/PID is DIR. */
static void snap_process_at(struct snap *s, uint64_t pid, int dir, bool explicit)
{
	struct proc_stat st;
	int err = proc_read_file_at(dir, "stat", &s->buf);
	if (err)
		return early_failure(s, pid, explicit, "stat", err);
	if (proc_parse_stat(s->buf.data, &st) != 0)
		return early_failure(s, pid, true, "stat", EINVAL);

	err = proc_read_file_at(dir, "maps", &s->maps_text);
	if (err)
		return early_failure(s, pid, explicit, "maps", err);
	if (s->maps_text.len == 0) {
		/* A kernel thread or a zombie: no user address space to record. */
		if (explicit)
			fprintf(stderr, "pagesleuth snap: pid %llu has no user address space (kernel thread or zombie): skipped\n",
				(unsigned long long)pid);
		return;
	}
	size_t bad_line = 0;
	err = proc_parse_maps(s->maps_text.data, &s->maps, &s->nmaps, &s->maps_cap, &bad_line);
	if (err) {
		problem(s, PS_UNKNOWN, PS_UNKNOWN, "pid %llu: /proc/%llu/maps:%zu: cannot parse",
			(unsigned long long)pid, (unsigned long long)pid, bad_line);
		return;
	}

	char exe[4096];
	ssize_t exe_len = readlinkat(dir, "exe", exe, sizeof exe - 1);
	exe[exe_len > 0 ? exe_len : 0] = '\0';

	ssize_t nthreads = read_threads(s, dir);
	if (nthreads < 0)
		return early_failure(s, pid, explicit, "task", (int)-nthreads);

	struct proc_ctx p = { .pid = pid, .dir = dir, .mm_id = s->next_mm_id, .pagemap_fd = -1 };
	if (!s->opt->no_pages) {
		p.pagemap_fd = openat(dir, "pagemap", O_RDONLY | O_CLOEXEC);
		if (p.pagemap_fd < 0)
			return early_failure(s, pid, explicit, "pagemap", errno);
	}
	s->next_mm_id++;
	s->smaps_loaded = false;

	for (ssize_t i = 0; i < nthreads; i++) {
		s->threads[i].task.mm = p.mm_id;
		s->threads[i].task.comm = s->threads[i].comm;
		ps_write_task(s->w, &s->threads[i].task);
	}

	uint64_t start_brk = st.start_brk, brk = st.start_brk;
	for (size_t i = 0; i < s->nmaps; i++)
		if (strcmp(s->maps[i].path, "[heap]") == 0)
			brk = s->maps[i].end;
	struct ps_mm mm = {
		.id = p.mm_id,
		.tgid = nthreads > 0 ? s->threads[0].task.tgid : pid, /* PID may be a thread's id */
		.comm = st.comm,
		.exe = exe,
		.kaddr = PS_UNKNOWN,
		.start_brk = start_brk,
		.brk = brk,
		.start_stack = st.start_stack,
		.total_vm = st.vsize / s->page_size,
		.map_count = s->nmaps,
	};
	ps_write_mm(s->w, &mm);

	if (grow_vmas(s, s->nmaps) < 0) {
		problem(s, p.mm_id, PS_UNKNOWN, "pid %llu: out of memory", (unsigned long long)pid);
		goto out;
	}
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct proc_map *m = &s->maps[i];
		s->vmas[i] = (struct ps_vma){
			.mm = p.mm_id, .start = m->start, .end = m->end,
			.vmflags = PS_UNKNOWN, /* /proc does not show raw vm_flags */
			.pgoff = m->offset / s->page_size,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
			.inode = m->inode, .path = m->path,
		};
		memcpy(s->vmas[i].perm, m->perm, sizeof s->vmas[i].perm);
	}
	ps_classify_vmas(&mm, s->vmas, s->nmaps);
	for (size_t i = 0; i < s->nmaps; i++) {
		ps_write_vma(s->w, &s->vmas[i]);
		if (!s->opt->no_pages)
			write_vma_pages(s, &p, &s->vmas[i]);
	}
out:
	if (p.pagemap_fd >= 0)
		close(p.pagemap_fd);
}

/* Every file of the process is read through its /proc/PID opened once here: should it exit
 * meanwhile and a new process get its PID, the reads fail (ESRCH: it is gone) rather than
 * mix two processes in one address space. */
static void snap_process(struct snap *s, uint64_t pid, bool explicit)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%llu", (unsigned long long)pid);
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return early_failure(s, pid, explicit, "stat", errno);
	snap_process_at(s, pid, dir, explicit);
	close(dir);
}

static int read_pmd_shift(unsigned page_shift)
{
	char text[64];
	live_read_first_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", text, sizeof text);
	uint64_t size = strtoull(text, NULL, 10);
	/* Without THP there are no PMD-mapped THPs; the usual geometry is then only a default. */
	return size > 1 ? (int)log2_u64(size) : (int)(page_shift + page_shift - 3);
}

static void snap_free(struct snap *s)
{
	kpage_close(&s->kp);
	kpage_scratch_free(&s->kscratch);
	read_pool_free(s->pool);
	proc_buf_free(&s->buf), proc_buf_free(&s->maps_text), proc_buf_free(&s->smaps_text);
	free(s->smaps), free(s->maps), free(s->vmas), free(s->threads), free(s->tids), free(s->huge), free(s->ranges);
	free(s->pm), free(s->pfn), free(s->count_pfn), free(s->count), free(s->flags), free(s->shift);
}

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* SIGINT, SIGTERM and SIGHUP end a snapshot, single or repeated, cleanly (see usage): killed,
 * snap would leave -o's temporary file behind. No SA_RESTART, so a sleep between snapshots
 * returns at once. Caught before the output is opened; the reader threads block them all. */
static void catch_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Sleep until monotonic time DEADLINE_NS, or until a stop signal arrives. */
static void sleep_until(uint64_t deadline_ns)
{
	while (!stop_signal) {
		uint64_t now = live_monotonic_ns();
		if (now >= deadline_ns)
			return;
		uint64_t left = deadline_ns - now;
		struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u),
				       .tv_nsec = (long)(left % 1000000000u) };
		nanosleep(&ts, NULL); /* EINTR: the loop looks at stop_signal */
	}
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* One snapshot (seq SEQ) of the chosen processes, or of all of /proc. Returns false when it
 * was partial. */
static bool snap_round(struct snap *s, uint64_t seq, uint64_t **all_pids, size_t *pids_cap)
{
	const struct snap_options *opt = s->opt;
	char time_buf[32];
	live_iso_time(time_buf);
	s->partial = false;
	s->denied = s->first_denied = 0;
	s->next_mm_id = 1; /* ids are per snapshot */
	ps_write_snapshot(s->w, &(struct ps_snapshot){ .seq = seq, .time = time_buf,
						       .uptime_ns = live_boottime_ns() });
	size_t npids = 0, done = 0;
	if (opt->npids) {
		npids = opt->npids;
		for (size_t i = 0; i < npids && !stop_signal; i++, done++) {
			bool seen = false;
			for (size_t j = 0; j < i; j++)
				seen |= opt->pids[j] == opt->pids[i];
			if (!seen)
				snap_process(s, opt->pids[i], true);
		}
	} else {
		int err = list_numeric_entries("/proc", all_pids, pids_cap, &npids);
		if (err)
			problem(s, PS_UNKNOWN, PS_UNKNOWN, "/proc: %s", strerror(err));
		for (size_t i = 0; i < npids && !stop_signal; i++, done++)
			snap_process(s, (*all_pids)[i], false);
	}
	if (s->denied == 1)
		fprintf(stderr, "pagesleuth snap: pid %llu: /proc/%llu: %s: skipped\n",
			(unsigned long long)s->first_denied, (unsigned long long)s->first_denied, strerror(EACCES));
	else if (s->denied)
		fprintf(stderr, "pagesleuth snap: %llu processes not readable (%s; pid %llu first): skipped, see the warn records\n",
			(unsigned long long)s->denied, strerror(EACCES), (unsigned long long)s->first_denied);
	if (stop_signal && done < npids)
		problem(s, PS_UNKNOWN, PS_UNKNOWN, "snapshot %llu interrupted by %s: %llu of %llu processes not read",
			(unsigned long long)seq, signal_name(stop_signal), (unsigned long long)(npids - done),
			(unsigned long long)npids);
	if (!opt->no_counters) {
		char why[300];
		if (live_write_counters(s->w, NULL, why, sizeof why) == 1)
			problem(s, PS_UNKNOWN, PS_UNKNOWN, "kernel counters: %s", why);
	}
	/* Without root the frames are hidden, as the PFNs are (the header says pfn-hidden). */
	if (opt->frames && geteuid() == 0) {
		char why[300];
		if (live_write_frames(s->w, NULL, why, sizeof why) == 1)
			problem(s, PS_UNKNOWN, PS_UNKNOWN, "frames: %s", why);
	} else if (opt->frames && seq == 0) {
		fprintf(stderr, "pagesleuth snap: --frames needs root (/proc/kpageflags): no frames written\n");
	}
	ps_write_end(s->w, !s->partial);
	return !s->partial;
}

/* Why PID cannot be snapshotted (no such process, a kernel thread), or NULL if it can. */
static const char *pid_not_snappable(uint64_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ? "no such process" : strerror(errno);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	struct proc_stat st;
	if (proc_parse_stat(buf, &st) == 0 && (st.flags & PF_KTHREAD_FLAG))
		return "a kernel thread (PF_KTHREAD): no user memory";
	return NULL;
}

int ps_cmd_snap(int argc, char **argv)
{
	struct snap_options opt = { .out_path = NULL };
	int rc = parse_options(argc, argv, &opt);
	if (rc >= 0) {
		free(opt.pids), free(opt.tags);
		return rc;
	}
	if (ps_refuse_records_to_terminal("pagesleuth snap", opt.out_path) != 0) {
		free(opt.pids), free(opt.tags);
		return 2;
	}
	if (!opt.out_path)
		opt.out_path = "-";
	struct snap s = { .opt = &opt, .scan_supported = true, .next_mm_id = 1,
			  .kp = { -1, -1 } };
	s.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	s.page_shift = log2_u64(s.page_size);
	s.pmd_shift = (unsigned)read_pmd_shift(s.page_shift);
	long tck = sysconf(_SC_CLK_TCK);
	s.ticks_per_sec = tck > 0 ? (uint64_t)tck : 100;
	s.pm = malloc(BATCH_PAGES * sizeof *s.pm);
	s.pfn = malloc(BATCH_PAGES * sizeof *s.pfn);
	s.count_pfn = malloc(BATCH_PAGES * sizeof *s.count_pfn);
	s.count = malloc(BATCH_PAGES * sizeof *s.count);
	s.flags = malloc(BATCH_PAGES * sizeof *s.flags);
	s.shift = malloc(BATCH_PAGES);
	unsigned jobs = opt.jobs;
	if (!jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cpus < 1 ? 1 : cpus > (long)DEFAULT_MAX_JOBS ? DEFAULT_MAX_JOBS : (unsigned)cpus;
	}
	s.pool = opt.no_pages ? NULL : read_pool_new(jobs); /* NULL: all in this thread */
	uint64_t *all_pids = NULL;
	size_t pids_cap = 0;
	rc = 2;
	if (!s.pm || !s.pfn || !s.count_pfn || !s.count || !s.flags || !s.shift) {
		fprintf(stderr, "pagesleuth snap: out of memory\n");
		goto out;
	}
	if (!opt.npids && access("/proc/self", R_OK) != 0) {
		fprintf(stderr, "pagesleuth snap: /proc: %s (is procfs mounted?)\n", strerror(errno));
		goto out;
	}
	/* --pid: when none of them is a user process there is nothing to snapshot: one line
	 * per pid and exit 2 with no file, as `wss` does (some missing among others: those get a
	 * warn record and the snapshot is partial). */
	if (opt.npids) {
		size_t usable = 0;
		for (size_t i = 0; i < opt.npids; i++)
			usable += pid_not_snappable(opt.pids[i]) == NULL;
		if (!usable) {
			for (size_t i = 0; i < opt.npids; i++)
				fprintf(stderr, "pagesleuth snap: pid %llu: %s\n",
					(unsigned long long)opt.pids[i], pid_not_snappable(opt.pids[i]));
			fprintf(stderr, "pagesleuth snap: no user process to snapshot: nothing written\n");
			goto out;
		}
	}

	s.pfn_visible = probe_pfn_visible(&s);
	if (!s.pfn_visible && !opt.no_pages)
		fprintf(stderr, "pagesleuth snap: physical frame numbers are hidden (needs root/CAP_SYS_ADMIN): "
				"no PFNs, mapcounts or page flags; resident and swapped counts are still exact, PSS and USS\n"
				"come from smaps\n");

	catch_stop_signals();
	char *err = NULL;
	s.w = ps_writer_open(opt.out_path, &err);
	if (!s.w) {
		fprintf(stderr, "pagesleuth snap: %s\n", err ? err : "cannot open output");
		free(err);
		goto out;
	}
	char time_buf[32];
	write_header(&s, time_buf);
	bool all_complete = true;
	uint64_t start_ns = live_monotonic_ns(), interval_ns = (uint64_t)(opt.every * 1e9 + 0.5);
	uint64_t seq = 0;
	/* With --every, on a terminal: "snapshot 3/12 written, next in 4.2 s" between rounds,
	 * erased before a round prints anything. */
	struct ps_progress rounds;
	ps_progress_init(&rounds, "pagesleuth snap",
			 opt.every > 0 && !(strcmp(opt.out_path, "-") == 0 && isatty(STDOUT_FILENO)));
	/* The first snapshot is always written, even when a signal came before it: interrupted,
	 * it is a partial one (exit 1), never an empty file that says complete. */
	for (; (seq == 0 || !stop_signal) && (opt.count == 0 || seq < opt.count); seq++) {
		if (seq > 0) {
			/* On a fixed schedule from the first snapshot; a snapshot that overran its
			 * interval is followed at once by the next, and the schedule moves on. */
			uint64_t due = start_ns + seq * interval_ns;
			if (live_monotonic_ns() > due + interval_ns)
				start_ns = live_monotonic_ns() - seq * interval_ns, due = live_monotonic_ns();
			sleep_until(due);
			if (stop_signal)
				break;
		}
		ps_progress_done(&rounds);
		all_complete &= snap_round(&s, seq, &all_pids, &pids_cap);
		if (strcmp(opt.out_path, "-") == 0) {
			ps_writer_flush_lines(s.w); /* a failure is ps_writer_close's to report */
			fflush(stdout); /* a reader of the stream sees each snapshot whole */
		}
		if (opt.count == 0 || seq + 1 < opt.count) {
			char of[32] = "";
			if (opt.count)
				snprintf(of, sizeof of, "/%llu", (unsigned long long)opt.count);
			uint64_t next = start_ns + (seq + 1) * interval_ns, t = live_monotonic_ns();
			ps_progress_say(&rounds, true, "snapshot %llu%s written, next in %.1f s",
					(unsigned long long)seq + 1, of, next > t ? (double)(next - t) / 1e9 : 0.0);
		}
		if (*ps_writer_error(s.w))
			break; /* reported by ps_writer_close */
	}
	ps_progress_done(&rounds);
	if (stop_signal)
		fprintf(stderr, "pagesleuth snap: %s: stopped after %llu snapshot%s\n", signal_name(stop_signal),
			(unsigned long long)seq, seq == 1 ? "" : "s");
	if (ps_writer_close(s.w, false, &err) != 0) {
		fprintf(stderr, "pagesleuth snap: %s\n", err ? err : "write failed");
		free(err);
		goto out;
	}
	rc = all_complete ? 0 : 1;
out:
	snap_free(&s);
	free(all_pids);
	free(opt.pids), free(opt.tags);
	return rc;
}
