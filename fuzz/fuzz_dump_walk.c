/* fuzz_dump_walk.c - libFuzzer harness for the walk over REAL fixture dumps: `pagesleuth
 * extract`'s code paths in process, with mutations applied to the bytes the walk reads.
 *
 * Set-up, once per dump named by PAGESLEUTH_FUZZ_DUMPS (colon-separated DUMP or
 * DUMP=PROFILE; fuzz/inputs.sh dump-walk gives them): the dump is opened as extract opens it
 * (ps_dump_open, ps_walker_open, ps_dump_type_info: the BTF in the dump, or the profile,
 * ps_walker_set_kinfo). The walker reads the dump through a shim over the dump's
 * struct ps_target_ops that returns patched bytes wherever a read overlaps a patch. A clean
 * walk of every process (with the kernel's counters and log) and one of each process alone
 * log the physical ranges they read (task_structs, mm_structs, maple nodes, VMAs, dentries,
 * page tables, windows of struct pages, the counters' and log's objects), deduplicated and
 * sorted: these are the targets of the mutations.
 *
 * Each input: byte 0 = dump (bits 0-2, modulo the dumps) | detail (bits 3-4: pages, sums,
 * VMAs only) | trace to /dev/null (bit 5); byte 1 = what to walk: 0xff every process with
 * the kernel's counters and log (slow: rare), else the (byte 1 modulo their number)'th
 * process of the clean walk alone; then repeated [range u16 LE][offset u24 LE][length u8]
 * [bytes]: LENGTH (modulo 33, cut to what the input has left) bytes written at OFFSET (modulo
 * the range's length) into the range'th range (modulo their number) of what the clean walk
 * of that choice read. At most 16 patches.
 *
 * PAGESLEUTH_FUZZ_FRAMES=1 (fuzz/inputs.sh dump-frames): every input walks instead the first
 * process alone and then the pass over every frame of RAM, as `extract -p PID --no-counters
 * --no-log` does (byte 1 is then unused); its patches go over what that clean walk read:
 * the struct pages of all of RAM, the slab caches and the rest of what the pass reads.
 *
 * The walker is set up once per dump, on the clean dump, as extract sets it up (the
 * architecture, VMCOREINFO, symbols and kallsyms, init_task, the type information): those
 * reads are not mutated here (fuzz_dump_header.c and fuzz_typeinfo.c mutate the file's
 * headers and the BTF). Before each input the walker forgets what earlier runs read
 * (mm_forget_memory: struct page windows and the memory-map and zero-page facts, file paths,
 * kernel-address translations), so everything ps_walker_run derives from memory is read
 * again through the shim; only what lies below the shim persists (libkdumpfile's and
 * pagesleuth's caches of decompressed pages). Patches live in the shim only: no dump is
 * copied or written.
 *
 * Checked per input, as tests/tools/mutate_dump.py checks each extract: a walk that fails
 * says why in one line; otherwise the records read back through ps_reader (which
 * checks runs against their VMAs and the end record's counts); the walk returned 1 (partial)
 * exactly when it wrote a warn record and the end record says partial, 0 exactly when
 * neither; its result counts equal the records; a walk of one process wrote only that
 * process; a page whose struct page was read (refcount known) lies below the walker's
 * max_pfn. Anything else is the walker's to survive: no crash, leak, hang or UBSan report.
 *
 * Build: make B=DIR DIR/fuzz/fuzz_dump_walk. Run: fuzz/inputs.sh dump-walk. FUZZ_DUMP_WALK_SHOW=1
 * prints each input's patches as physical address and bytes (a finding's recipe).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dump.h"
#include "kinfo.h"
#include "mm_internal.h"
#include "records.h"
#include "walker.h"

#define MAX_DUMPS 8
#define MAX_CHOICES 64 /* 1 + processes walked alone */
#define MAX_PATCHES 16
#define MAX_PATCH_LEN 32

struct range {
	uint64_t pa, len;
};

struct range_log {
	struct range *r;
	size_t n, cap;
};

/* The shim between the walker and the dump. */
struct shim {
	const struct ps_target *base;
	struct ps_target t;
	struct range_log *log; /* non-NULL: note every physical read */
	unsigned npatches;
	struct { uint64_t pa; unsigned len; uint8_t bytes[MAX_PATCH_LEN]; } p[MAX_PATCHES];
};

struct choice {
	uint64_t pid; /* 0: every process, with counters and log */
	bool frames;  /* and the pass over every frame of RAM */
	struct range_log ranges;
};

static struct fdump {
	char path[4096];
	struct ps_dump *d;
	struct ps_walker *w; /* set up once, on the clean dump */
	struct shim shim;
	struct ps_kinfo ki;
	struct choice c[MAX_CHOICES];
	unsigned nchoices;
	struct choice frames; /* PAGESLEUTH_FUZZ_FRAMES: the only walk */
} dumps[MAX_DUMPS];
static unsigned ndumps;
static bool frames_only;
static FILE *devnull;

/* ---- the shim ------------------------------------------------------------------------------ */

static void log_range(struct range_log *l, uint64_t pa, uint64_t len)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->r = realloc(l->r, l->cap * sizeof *l->r);
		if (!l->r)
			abort();
	}
	l->r[l->n++] = (struct range){ pa, len };
}

static enum ps_read_status shim_read_phys(void *ctx, uint64_t pa, void *buf, size_t len)
{
	struct shim *s = ctx;
	enum ps_read_status st = s->base->ops->read_phys(s->base->ctx, pa, buf, len);
	if (s->log && len)
		log_range(s->log, pa, len);
	if (st != PS_READ_OK)
		return st;
	for (unsigned i = 0; i < s->npatches; i++) {
		uint64_t lo = s->p[i].pa > pa ? s->p[i].pa : pa;
		uint64_t pend = s->p[i].pa + s->p[i].len, rend = pa + len;
		uint64_t hi = pend < rend ? pend : rend;
		if (lo < hi)
			memcpy((uint8_t *)buf + (lo - pa), s->p[i].bytes + (lo - s->p[i].pa), hi - lo);
	}
	return st;
}

static enum ps_read_status shim_pfn_status(void *ctx, uint64_t pfn)
{
	struct shim *s = ctx;
	return s->base->ops->pfn_status(s->base->ctx, pfn);
}

/* Hints pass through: the kdump's prefetcher decompresses the dump's own pages, whatever
 * patched bytes the hints came from; a read that overlaps a patch still gets the patch. */
static void shim_prefetch_phys(void *ctx, uint64_t paddr)
{
	struct shim *s = ctx;
	s->base->ops->prefetch_phys(s->base->ctx, paddr);
}

static const char *shim_vmcoreinfo(void *ctx, const char *key)
{
	struct shim *s = ctx;
	return s->base->ops->vmcoreinfo(s->base->ctx, key);
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->pa != y->pa ? (x->pa < y->pa ? -1 : 1) : x->len != y->len ? (x->len < y->len ? -1 : 1) : 0;
}

/* Sorted, without duplicates, and without ranges inside the one before (a 64-byte read of a
 * struct page inside a logged 4 KiB window of them adds nothing). */
static void dedupe(struct range_log *l)
{
	qsort(l->r, l->n, sizeof *l->r, cmp_range);
	size_t out = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (out && l->r[i].pa >= l->r[out - 1].pa &&
		    l->r[i].pa + l->r[i].len <= l->r[out - 1].pa + l->r[out - 1].len)
			continue;
		l->r[out++] = l->r[i];
	}
	l->n = out;
}

/* ---- one walk ------------------------------------------------------------------------------ */

static void one_line(const char *err)
{
	if (!err || !err[0] || strchr(err, '\n')) {
		fprintf(stderr, "fuzz_dump_walk: a failure without a one-line reason: '%s'\n", err ? err : "(null)");
		abort();
	}
}

struct walk_facts {
	int rc; /* ps_walker_run's */
	struct ps_walk_result res;
	uint64_t max_pfn;
	char *out;
	size_t outlen;
};

static void walk(struct fdump *fd, const struct choice *c, enum ps_walk_detail detail, bool trace,
		 struct walk_facts *wf)
{
	uint64_t pid = c->pid;
	char *err = NULL;
	memset(wf, 0, sizeof *wf);
	struct ps_walker *w = fd->w;
	mm_forget_memory(w); /* nothing read under another input's patches */
	FILE *fp = open_memstream(&wf->out, &wf->outlen);
	if (!fp)
		abort();
	struct ps_writer *pw = ps_writer_open_stream(fp, "walker-out");
	struct ps_header_facts facts = { .source = "coredump", .dump_path = fd->path,
					 .time = ps_dump_time(fd->d), .dump_level = ps_dump_level(fd->d),
					 .pids = pid ? &pid : NULL, .npids = pid ? 1 : 0 };
	struct ps_walk_options o = { .pids = pid ? &pid : NULL, .npids = pid ? 1 : 0, .detail = detail,
				     .no_counters = pid != 0, .no_frames = !c->frames, .no_log = pid != 0,
				     .trace = trace ? devnull : NULL };
	int rc = -1;
	if (ps_walker_write_header(w, pw, &facts, &err) == 0)
		rc = ps_walker_run(w, pw, &o, &wf->res, &err);
	if (rc < 0)
		one_line(err);
	free(err);
	if (ps_writer_close(pw, rc < 0, NULL) < 0 && rc >= 0)
		abort(); /* a memory stream does not fail */
	fclose(fp);
	wf->rc = rc;
	wf->max_pfn = w->c.max_pfn;
	/* And after: what a run allocates is freed in the run (libFuzzer runs an input whose
	 * mallocs and frees differ again, under LeakSanitizer). */
	mm_forget_memory(w);
}

/* The records read back, and what the walk said about them agrees with them. The mm
 * records' processes go to PIDS (at most MAX_CHOICES - 1) when it is not NULL. */
static void check(const struct walk_facts *wf, uint64_t pid, uint64_t *pids, unsigned *npids)
{
	static int fd = -1; /* one memory file, rewritten per run */
	if (fd < 0 && (fd = memfd_create("walker-out", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0)
		abort();
	for (size_t done = 0; done < wf->outlen;) {
		ssize_t n = pwrite(fd, wf->out + done, wf->outlen - done, (off_t)done);
		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	char *err = NULL;
	const char *bad = NULL;
	struct ps_reader *r = ps_reader_open_fd(fd, "walker-out", &err);
	uint64_t tasks = 0, mms = 0, vmas = 0, warns = 0, ends = 0;
	bool complete = false;
	struct ps_record rec;
	int rc = 0;
	char why[200] = "";
	while (r && !bad && (rc = ps_read(r, &rec)) == 1) {
		switch (rec.type) {
		case PS_REC_TASK:
			tasks++;
			if (pid && rec.u.task.tgid != pid)
				bad = "a task of another process in a walk of one";
			break;
		case PS_REC_MM:
			mms++;
			if (pid && rec.u.mm.tgid != pid)
				bad = "an mm of another process in a walk of one";
			if (pids && *npids < MAX_CHOICES - 1 && rec.u.mm.tgid)
				pids[(*npids)++] = rec.u.mm.tgid;
			break;
		case PS_REC_VMA:
			vmas++;
			break;
		case PS_REC_MAP:
			if (!rec.u.map.excluded && rec.u.map.refcount != PS_UNKNOWN && wf->max_pfn &&
			    (rec.u.map.pfn >= wf->max_pfn || rec.u.map.npages > wf->max_pfn - rec.u.map.pfn)) {
				snprintf(why, sizeof why, "struct page of PFN %" PRIx64 " (+%" PRIu64
					 ") read, beyond max_pfn %" PRIx64, rec.u.map.pfn, rec.u.map.npages, wf->max_pfn);
				bad = why;
			}
			break;
		case PS_REC_WARN:
			warns++;
			break;
		case PS_REC_END:
			ends++;
			complete = rec.u.end.complete;
			break;
		default:
			break;
		}
	}
	if (!r)
		bad = err ? err : "does not open";
	else if (rc < 0)
		bad = ps_reader_error(r);
	else if (!bad && ends != 1)
		bad = "not one end record";
	else if (!bad && (wf->rc == 1) != (warns > 0))
		bad = wf->rc == 1 ? "partial without a warn record" : "warn records in a complete walk";
	else if (!bad && (wf->rc == 1) == complete)
		bad = "the end record's status is not the walk's";
	else if (!bad && wf->res.partial != (wf->rc == 1))
		bad = "the result's partial flag is not the walk's status";
	else if (!bad && (wf->res.tasks != tasks || wf->res.mms != mms || wf->res.vmas != vmas))
		bad = "the result's counts are not the records'";
	if (bad) {
		fprintf(stderr, "fuzz_dump_walk: walk of %s (rc %d): %s\n---\n%.*s\n", pid ? "one process" : "all",
			wf->rc, bad, (int)(wf->outlen < 20000 ? wf->outlen : 20000), wf->out);
		abort();
	}
	free(err);
	ps_reader_close(r);
}

/* ---- libFuzzer ----------------------------------------------------------------------------- */

static void die(const char *path, const char *what)
{
	fprintf(stderr, "fuzz_dump_walk: %s: %s\n", path, what);
	exit(2);
}

static const struct ps_target_ops shim_ops = {
	.read_phys = shim_read_phys,
	.pfn_status = shim_pfn_status,
	.vmcoreinfo = shim_vmcoreinfo,
	.prefetch_phys = shim_prefetch_phys,
};

/* A walk reads all that a new walker's first walk reads (nothing is served from what an
 * earlier run kept), the patches reach the walker (the records of a process change when the ranges
 * its clean walk read are overwritten: 0xff over the first bytes of each, 16 at a time), and
 * the records are the clean ones again once the patches are gone. */
static void self_test(struct fdump *fd, const struct choice *c)
{
	const struct range_log *rl = &c->ranges;
	struct walk_facts clean, wf;
	struct range_log fresh = { 0 };
	struct ps_walker *kept = fd->w;
	char *err = NULL;
	uint64_t unused;
	if (!(fd->w = ps_walker_open(&fd->shim.t, &err)) || ps_walker_set_kinfo(fd->w, &fd->ki, &err) != 0)
		die(fd->path, err ? err : "self-test: no second walker");
	/* kallsyms are read on first need: now, as the kept walker did in its first walks. */
	(void)ps_core_symbol_by_name(&fd->w->c, "fuzz_dump_walk_no_such_symbol", &unused);
	fd->shim.log = &fresh;
	walk(fd, c, PS_DETAIL_PAGES, false, &clean);
	fd->shim.log = NULL;
	ps_walker_close(fd->w);
	fd->w = kept;
	free(clean.out);
	dedupe(&fresh);
	if (fresh.n != rl->n || memcmp(fresh.r, rl->r, rl->n * sizeof *rl->r) != 0)
		die(fd->path, "self-test: a walk reads less than a new walker's first walk (kept from earlier runs)");
	free(fresh.r);
	walk(fd, c, PS_DETAIL_PAGES, false, &clean);
	bool changed = false;
	for (size_t first = 0; first < rl->n && !changed; first += MAX_PATCHES) {
		struct shim *s = &fd->shim;
		for (s->npatches = 0; s->npatches < MAX_PATCHES && first + s->npatches < rl->n; s->npatches++) {
			const struct range *r = &rl->r[first + s->npatches];
			s->p[s->npatches].pa = r->pa;
			s->p[s->npatches].len = r->len < MAX_PATCH_LEN ? (unsigned)r->len : MAX_PATCH_LEN;
			memset(s->p[s->npatches].bytes, 0xff, MAX_PATCH_LEN);
		}
		walk(fd, c, PS_DETAIL_PAGES, false, &wf);
		s->npatches = 0;
		changed = wf.rc < 0 || wf.outlen != clean.outlen || memcmp(wf.out, clean.out, wf.outlen) != 0;
		free(wf.out);
	}
	walk(fd, c, PS_DETAIL_PAGES, false, &wf);
	bool same = wf.outlen == clean.outlen && memcmp(wf.out, clean.out, wf.outlen) == 0;
	free(wf.out);
	free(clean.out);
	if (!changed || !same)
		die(fd->path, !changed ? "self-test: patching what the walk read changed nothing"
				       : "self-test: the walk after patched ones differs from the clean walk");
}

static void set_up(struct fdump *fd, const char *spec)
{
	const char *eq = strchr(spec, '=');
	snprintf(fd->path, sizeof fd->path, "%.*s", eq ? (int)(eq - spec) : (int)strlen(spec), spec);
	char *warnings = NULL, *err = NULL;
	fd->d = ps_dump_open(fd->path, &warnings, &err);
	free(warnings);
	if (!fd->d)
		die(fd->path, err ? err : "does not open");
	fd->shim.base = ps_dump_target(fd->d);
	fd->shim.t = *fd->shim.base;
	fd->shim.t.ctx = &fd->shim;
	static struct ps_target_ops ops[MAX_DUMPS];
	ops[fd - dumps] = shim_ops;
	if (!fd->shim.base->ops->pfn_status)
		ops[fd - dumps].pfn_status = NULL;
	if (!fd->shim.base->ops->vmcoreinfo)
		ops[fd - dumps].vmcoreinfo = NULL;
	if (!fd->shim.base->ops->prefetch_phys)
		ops[fd - dumps].prefetch_phys = NULL;
	if (fd->shim.base->ops->read_kvirt)
		die(fd->path, "the back-end translates kernel addresses itself: the shim cannot see those reads");
	fd->shim.t.ops = &ops[fd - dumps];
	/* The walker and its type information as extract sets them up: the profile given, or
	 * the dump's BTF. */
	if (!(fd->w = ps_walker_open(&fd->shim.t, &err)) ||
	    ps_dump_type_info(fd->w, eq ? PS_TYPES_PROFILE : PS_TYPES_DUMP_BTF, eq ? eq + 1 : NULL,
			      NULL, &fd->ki, &err) != 0 ||
	    ps_walker_set_kinfo(fd->w, &fd->ki, &err) != 0)
		die(fd->path, err ? err : "no type information");

	/* The clean walk of every process names the processes; each is then walked alone. */
	struct walk_facts wf;
	fd->c[0].pid = 0;
	fd->shim.log = &fd->c[0].ranges;
	walk(fd, &fd->c[0], PS_DETAIL_PAGES, false, &wf);
	if (wf.rc < 0)
		die(fd->path, "the clean dump does not walk");
	uint64_t pids[MAX_CHOICES - 1];
	unsigned npids = 0;
	check(&wf, 0, pids, &npids);
	for (fd->nchoices = 1; fd->nchoices <= npids; fd->nchoices++)
		fd->c[fd->nchoices].pid = pids[fd->nchoices - 1];
	fprintf(stderr, "fuzz_dump_walk: %s: clean walk rc %d, %" PRIu64 " tasks, %" PRIu64 " mms, %" PRIu64
		" vmas, %" PRIu64 " pages\n", fd->path, wf.rc, wf.res.tasks, wf.res.mms, wf.res.vmas, wf.res.pages);
	free(wf.out);
	for (unsigned i = 1; i < fd->nchoices; i++) {
		fd->shim.log = &fd->c[i].ranges;
		walk(fd, &fd->c[i], PS_DETAIL_PAGES, false, &wf);
		if (wf.rc < 0)
			die(fd->path, "the clean dump does not walk one process");
		check(&wf, fd->c[i].pid, NULL, NULL);
		free(wf.out);
	}
	fd->shim.log = NULL;
	size_t total = 0;
	for (unsigned i = 0; i < fd->nchoices; i++) {
		dedupe(&fd->c[i].ranges);
		total += fd->c[i].ranges.n;
	}
	fprintf(stderr, "fuzz_dump_walk: %s: %u walks to choose, %zu ranges read in all (%zu by the walk of all)\n",
		fd->path, fd->nchoices, total, fd->c[0].ranges.n);
	if (frames_only) {
		/* The first process alone and the pass over every frame of RAM (struct pages,
		 * slab caches, what owns each frame), as `extract -p PID --no-counters --no-log`. */
		fd->frames.pid = fd->nchoices > 1 ? fd->c[1].pid : 0;
		fd->frames.frames = true;
		fd->shim.log = &fd->frames.ranges;
		walk(fd, &fd->frames, PS_DETAIL_PAGES, false, &wf);
		fd->shim.log = NULL;
		if (wf.rc < 0)
			die(fd->path, "the clean dump's frames do not walk");
		check(&wf, fd->frames.pid, NULL, NULL);
		fprintf(stderr, "fuzz_dump_walk: %s: the frame pass (with pid %" PRIu64 ") read %zu ranges, wrote %zu "
			"bytes of records\n", fd->path, fd->frames.pid, fd->frames.ranges.n, wf.outlen);
		free(wf.out);
		dedupe(&fd->frames.ranges);
		self_test(fd, &fd->frames);
	} else {
		self_test(fd, &fd->c[fd->nchoices > 1 ? 1 : 0]);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	devnull = fopen("/dev/null", "w");
	frames_only = getenv("PAGESLEUTH_FUZZ_FRAMES") && *getenv("PAGESLEUTH_FUZZ_FRAMES") == '1';
	const char *list = getenv("PAGESLEUTH_FUZZ_DUMPS");
	char *copy = list ? strdup(list) : NULL, *save = NULL;
	for (char *p = copy ? strtok_r(copy, ":", &save) : NULL; p && ndumps < MAX_DUMPS;
	     p = strtok_r(NULL, ":", &save))
		set_up(&dumps[ndumps++], p);
	free(copy);
	if (!ndumps || !devnull)
		die("PAGESLEUTH_FUZZ_DUMPS", "names no dump (DUMP or DUMP=PROFILE, colon-separated)");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t opt = size > 0 ? data[0] : 0, which = size > 1 ? data[1] : 0;
	struct fdump *fd = &dumps[(opt & 7) % ndumps];
	/* Every process (slow: the counters, the log, all processes) only on 0xff. */
	const struct choice *c = frames_only ? &fd->frames
				: &fd->c[which == 0xff || fd->nchoices == 1 ? 0 : 1 + which % (fd->nchoices - 1)];
	data += size > 2 ? 2 : size;
	size -= size > 2 ? 2 : size;
	struct shim *s = &fd->shim;
	s->npatches = 0;
	while (size >= 6 && s->npatches < MAX_PATCHES && c->ranges.n) {
		const struct range *r = &c->ranges.r[(data[0] | data[1] << 8) % c->ranges.n];
		uint64_t off = (uint64_t)(data[2] | data[3] << 8 | (uint32_t)data[4] << 16) % r->len;
		unsigned len = data[5] % (MAX_PATCH_LEN + 1);
		data += 6, size -= 6;
		if (len > size)
			len = (unsigned)size;
		s->p[s->npatches].pa = r->pa + off;
		s->p[s->npatches].len = len;
		memcpy(s->p[s->npatches].bytes, data, len);
		data += len, size -= len;
		s->npatches++;
	}
	/* A finding as a recipe over the dump (physical address, new bytes), to re-make it on
	 * a copy of the dump (tests/cases/extract_bad_input.sh). */
	for (unsigned i = 0; getenv("FUZZ_DUMP_WALK_SHOW") && i < s->npatches; i++) {
		fprintf(stderr, "fuzz_dump_walk: %s pid %" PRIu64 ": patch pa %" PRIx64 " bytes ", fd->path, c->pid, s->p[i].pa);
		for (unsigned j = 0; j < s->p[i].len; j++)
			fprintf(stderr, "%02x", s->p[i].bytes[j]);
		fputc('\n', stderr);
	}
	struct walk_facts wf;
	walk(fd, c, (enum ps_walk_detail)(((opt >> 3) & 3) % 3), opt & 0x20, &wf);
	if (wf.rc >= 0)
		check(&wf, c->pid, NULL, NULL);
	free(wf.out);
	s->npatches = 0;
	return 0;
}
