/* test_records.c - unit tests of the record library (lib/records.h, docs/record-format.md):
 * writer/reader round trip, run merging, every structural error the spec names, the VMA
 * classifier and the smaps-style summary arithmetic.
 *
 * Prints "FAIL: file:line: ..." per failed check and a last line
 * "test_records: N checks, M failed"; exits non-zero if any check failed.
 */
#include "records.h"
#include "record_tee.h"
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------------ */

static char tmpdir[] = "/tmp/test_records.XXXXXX";

/* A reader over an in-memory file named "t" (so errors read "t:LINE: ..."). */
struct memreader {
	int fd;
	struct ps_reader *r;
	char *err;
};

static bool mr_open(struct memreader *m, const void *data, size_t len)
{
	m->err = NULL;
	m->r = NULL;
	m->fd = memfd_create("t", MFD_CLOEXEC);
	if (m->fd < 0 || write(m->fd, data, len) != (ssize_t)len || lseek(m->fd, 0, SEEK_SET) != 0) {
		perror("memfd");
		exit(2);
	}
	m->r = ps_reader_open_fd(m->fd, "t", &m->err);
	return m->r != NULL;
}

static void mr_close(struct memreader *m)
{
	ps_reader_close(m->r);
	free(m->err);
	close(m->fd);
}

/* Read everything; returns the number of records, -1 with the error in *errbuf. */
struct readall {
	int nrec;
	int rc;              /* last ps_read result, or -1 for an open failure */
	char err[1024];
	char warnings[1024];
	bool in_snapshot;
	int ntrace;
	int nmap;
};

static struct readall read_all(const void *data, size_t len)
{
	struct readall ra = { 0 };
	struct memreader m;
	if (!mr_open(&m, data, len)) {
		ra.rc = -1;
		snprintf(ra.err, sizeof ra.err, "%s", m.err ? m.err : "(no error text)");
		mr_close(&m);
		return ra;
	}
	struct ps_record rec;
	while ((ra.rc = ps_read(m.r, &rec)) > 0) {
		ra.nrec++;
		ra.ntrace += rec.type == PS_REC_TRACE;
		ra.nmap += rec.type == PS_REC_MAP;
	}
	if (ra.rc < 0)
		snprintf(ra.err, sizeof ra.err, "%s", ps_reader_error(m.r));
	snprintf(ra.warnings, sizeof ra.warnings, "%s", ps_reader_warnings(m.r));
	ra.in_snapshot = ps_reader_in_snapshot(m.r);
	mr_close(&m);
	return ra;
}

/* The file must fail with "t:LINE: ...SUBSTR...". */
static void expect_error_at(const char *file, int srcline, const void *data, size_t len,
			    unsigned line, const char *substr)
{
	struct readall ra = read_all(data, len);
	char prefix[32];
	snprintf(prefix, sizeof prefix, "t:%u: ", line);
	check_at(ra.rc < 0, file, srcline, "expected an error at line %u (%s), file was accepted", line,
		 substr);
	if (ra.rc < 0) {
		check_at(strncmp(ra.err, prefix, strlen(prefix)) == 0, file, srcline,
			 "error \"%s\" does not start with \"%s\"", ra.err, prefix);
		check_at(strstr(ra.err, substr) != NULL, file, srcline,
			 "error \"%s\" does not mention \"%s\"", ra.err, substr);
	}
}
#define EXPECT_ERROR(text, line, substr) \
	expect_error_at(__FILE__, __LINE__, (text), strlen(text), (line), (substr))
#define EXPECT_ERROR_N(data, len, line, substr) \
	expect_error_at(__FILE__, __LINE__, (data), (len), (line), (substr))

static struct readall expect_ok_at(const char *file, int srcline, const char *text)
{
	struct readall ra = read_all(text, strlen(text));
	check_at(ra.rc == 0, file, srcline, "expected the file to be accepted, got \"%s\"", ra.err);
	return ra;
}
#define EXPECT_OK(text) expect_ok_at(__FILE__, __LINE__, (text))

/* Concatenation for test texts; freed at exit. */
static char *cat_pool[512];
static size_t cat_n;
static char *cat(const char *a, const char *b)
{
	char *s;
	if (asprintf(&s, "%s%s", a, b) < 0 || cat_n == sizeof cat_pool / sizeof cat_pool[0])
		exit(2);
	return cat_pool[cat_n++] = s;
}

/* Lines 1-6: magic, header, snapshot, task, mm, vma [400000, 410000) (16 pages). */
#define L_MAGIC "pagesleuth-records 1.0\n"
#define L_HEADER "header source=test arch=x86_64 endian=little page_size=4096 release=6.1 " \
		 "dump=d time=2026-11-21T07:00:00Z excluded=none tool=t pids=all\n"
#define L_SNAP "snapshot seq=0 time=2026-11-21T07:00:00Z\n"
#define L_TASK "task pid=100 tgid=100 ppid=1 mm=1 comm=app state=S\n"
#define L_MM "mm id=1 tgid=100 comm=app exe=/bin/app start_brk=600000 brk=602000 start_stack=7ffff000\n"
#define L_VMA "vma mm=1 start=400000 end=410000 perm=r-xp vmflags=875 pgoff=0 dev=fe:01 inode=12 " \
	      "path=/bin/app kind=text unit=/bin/app\n"
#define BASE L_MAGIC L_HEADER L_SNAP L_TASK L_MM L_VMA
#define M_OK "m 1 400000 1a2b0 2 2 3 -xua---- 4068 12\n"

static size_t count_dir_entries(const char *prefix)
{
	DIR *d = opendir(tmpdir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ---- round trip ----------------------------------------------------------------------------- */

static const char weird[] = "a b=c%d\xc3\xa9\x01\x7f\xff-end";

static struct ps_map mk_map(uint64_t mm, uint64_t vaddr, uint64_t pfn, uint64_t n)
{
	struct ps_map m = { .mm = mm, .vaddr = vaddr, .pfn = pfn, .npages = n, .mapcount = 1,
			    .refcount = 2, .pte = { .set = 0x0d, .known = 0xff },
			    .pflags = PS_PF(PS_PF_ANON) | PS_PF(PS_PF_LRU), .shift = 12 };
	return m;
}

static void write_snapshot_all_types(struct ps_writer *w, uint64_t seq)
{
	struct ps_snapshot s = { .seq = seq, .time = "2026-11-21T07:00:00Z",
				 .uptime_ns = seq ? 123456789012ULL : PS_UNKNOWN };
	CHECK(ps_write_snapshot(w, &s) == 0, "write snapshot");
	struct ps_task t1 = { .pid = 100, .tgid = 100, .ppid = 1, .mm = 1, .comm = weird,
			      .state = 'S', .minflt = 10, .majflt = 0, .utime = 5000000,
			      .stime = PS_UNKNOWN, .start = 77, .rss_file = 2, .rss_anon = 3,
			      .rss_shmem = 0, .rss_swap = PS_UNKNOWN, .exiting = false };
	struct ps_task t2 = { .pid = 2, .tgid = 2, .ppid = 0, .mm = PS_UNKNOWN, .comm = "-",
			      .state = 'I', .minflt = PS_UNKNOWN, .majflt = PS_UNKNOWN,
			      .utime = PS_UNKNOWN, .stime = PS_UNKNOWN, .start = PS_UNKNOWN,
			      .rss_file = PS_UNKNOWN, .rss_anon = PS_UNKNOWN,
			      .rss_shmem = PS_UNKNOWN, .rss_swap = PS_UNKNOWN, .exiting = true };
	CHECK(ps_write_task(w, &t1) == 0 && ps_write_task(w, &t2) == 0, "write tasks");
	struct ps_mm mm = { .id = 1, .tgid = 100, .comm = "", .exe = "/bin/my app",
			    .kaddr = PS_UNKNOWN, .start_brk = 0x600000, .brk = 0x602000,
			    .start_stack = 0x7ffff000, .total_vm = 1000, .map_count = 3 };
	CHECK(ps_write_mm(w, &mm) == 0, "write mm");
	struct ps_vma v = { .mm = 1, .start = 0x400000, .end = 0x410000, .perm = "r-xp",
			    .vmflags = 0x875, .pgoff = 0, .dev_major = 0xfe, .dev_minor = 0x101,
			    .inode = 12, .path = "/bin/my app", .unit = "/bin/my app",
			    .kind = PS_KIND_TEXT };
	CHECK(ps_write_vma(w, &v) == 0, "write vma");
	struct ps_map m = mk_map(1, 0x400000, 0x1a2b0, 2);
	m.mapcount = PS_UNKNOWN, m.refcount = PS_UNKNOWN, m.pflags = PS_UNKNOWN;
	m.pte.known = 0x8f; /* a, d, s ? */
	CHECK(ps_write_map(w, &m) == 0, "write m");
	struct ps_map x = mk_map(1, 0x402000, PS_UNKNOWN, 1);
	x.excluded = true, x.reason = "missing", x.shift = 21;
	CHECK(ps_write_map(w, &x) == 0, "write x");
	struct ps_swap sw = { .mm = 1, .vaddr = 0x404000, .npages = 3, .type = 1,
			      .offset = 0xabc, .kind = PS_SWAP_MIGRATION };
	CHECK(ps_write_swap(w, &sw) == 0, "write w");
	struct ps_unknown_range u = { .mm = 1, .vaddr = 0x408000, .npages = 8,
				      .reason = "pgtable unreadable" };
	CHECK(ps_write_unknown(w, &u) == 0, "write u");
	struct ps_vma_sum sum = { .mm = 1, .start = 0x400000, .resident = 3, .exec = 2, .ro = 3,
				  .single = 1, .shared = 0, .referenced = 2, .dirty = 0,
				  .swapped = 3, .anon = 1, .file = 0, .excluded = 1, .unknown = 8,
				  .pss = (4096ULL << 12) + 4095 };
	CHECK(ps_write_sum(w, &sum) == 0, "write sum");
	struct ps_warn wr1 = { .mm = 1, .at = 0x404000, .reason = "page table %unreadable" };
	struct ps_warn wr2 = { .mm = PS_UNKNOWN, .at = PS_UNKNOWN, .reason = NULL };
	CHECK(ps_write_warn(w, &wr1) == 0 && ps_write_warn(w, &wr2) == 0, "write warn");
	struct ps_kv kv = { .tag = "wss", .n = 3 };
	kv.kv[0].key = "pid", kv.kv[0].value = "100";
	kv.kv[1].key = "method", kv.kv[1].value = "idle page";
	kv.kv[2].key = "est", kv.kv[2].value = "";
	CHECK(ps_write_trace(w, &kv) == 0, "write trace");
	CHECK(ps_write_end(w, seq == 0) == 0, "write end");
}

static void check_snapshot_all_types(struct ps_reader *r, uint64_t seq)
{
	struct ps_record rec;
	memset(&rec, 0xa5, sizeof rec);
#define NEXT(want)                                                                            \
	do {                                                                                  \
		int rc_ = ps_read(r, &rec);                                                   \
		if (!CHECK(rc_ == 1 && rec.type == (want), "ps_read rc=%d type=%d, expected %s: %s", \
			   rc_, rc_ == 1 ? (int)rec.type : -1, #want, ps_reader_error(r)))    \
			return;                                                               \
	} while (0)
	NEXT(PS_REC_SNAPSHOT);
	CHECK_U64(rec.u.snapshot.seq, seq);
	CHECK_STR(rec.u.snapshot.time, "2026-11-21T07:00:00Z");
	CHECK_U64(rec.u.snapshot.uptime_ns, seq ? 123456789012ULL : PS_UNKNOWN);

	NEXT(PS_REC_TASK);
	struct ps_task *t = &rec.u.task;
	CHECK_U64(t->pid, 100), CHECK_U64(t->tgid, 100), CHECK_U64(t->ppid, 1), CHECK_U64(t->mm, 1);
	CHECK_STR(t->comm, weird);
	CHECK(t->state == 'S', "state %c", t->state);
	CHECK_U64(t->minflt, 10), CHECK_U64(t->majflt, 0), CHECK_U64(t->utime, 5000000);
	CHECK_U64(t->stime, PS_UNKNOWN), CHECK_U64(t->start, 77), CHECK_U64(t->rss_file, 2);
	CHECK_U64(t->rss_anon, 3), CHECK_U64(t->rss_shmem, 0), CHECK_U64(t->rss_swap, PS_UNKNOWN);
	CHECK(!t->exiting, "exiting");
	NEXT(PS_REC_TASK);
	CHECK_U64(t->pid, 2), CHECK_U64(t->mm, PS_UNKNOWN), CHECK_U64(t->ppid, 0);
	CHECK_STR(t->comm, "-");
	CHECK(t->state == 'I', "state %c", t->state);
	CHECK_U64(t->minflt, PS_UNKNOWN), CHECK_U64(t->rss_shmem, PS_UNKNOWN);
	CHECK(t->exiting, "exiting");

	NEXT(PS_REC_MM);
	struct ps_mm *mm = &rec.u.mm;
	CHECK_U64(mm->id, 1), CHECK_U64(mm->tgid, 100), CHECK_U64(mm->kaddr, PS_UNKNOWN);
	CHECK_STR(mm->comm, ""), CHECK_STR(mm->exe, "/bin/my app");
	CHECK_U64(mm->start_brk, 0x600000), CHECK_U64(mm->brk, 0x602000);
	CHECK_U64(mm->start_stack, 0x7ffff000), CHECK_U64(mm->total_vm, 1000);
	CHECK_U64(mm->map_count, 3);

	NEXT(PS_REC_VMA);
	struct ps_vma *v = &rec.u.vma;
	CHECK_U64(v->mm, 1), CHECK_U64(v->start, 0x400000), CHECK_U64(v->end, 0x410000);
	CHECK_STR(v->perm, "r-xp");
	CHECK_U64(v->vmflags, 0x875), CHECK_U64(v->pgoff, 0), CHECK_U64(v->dev_major, 0xfe);
	CHECK_U64(v->dev_minor, 0x101), CHECK_U64(v->inode, 12);
	CHECK_STR(v->path, "/bin/my app"), CHECK_STR(v->unit, "/bin/my app");
	CHECK(v->kind == PS_KIND_TEXT, "kind %d", v->kind);

	NEXT(PS_REC_MAP);
	struct ps_map *m = &rec.u.map;
	CHECK_U64(m->mm, 1), CHECK_U64(m->vaddr, 0x400000), CHECK_U64(m->pfn, 0x1a2b0);
	CHECK_U64(m->npages, 2), CHECK_U64(m->mapcount, PS_UNKNOWN);
	CHECK_U64(m->refcount, PS_UNKNOWN), CHECK_U64(m->pte.set, 0x0d);
	CHECK_U64(m->pte.known, 0x8f), CHECK_U64(m->pflags, PS_UNKNOWN), CHECK_U64(m->shift, 12);
	CHECK(!m->excluded, "m excluded");
	NEXT(PS_REC_MAP);
	CHECK_U64(m->vaddr, 0x402000), CHECK_U64(m->pfn, PS_UNKNOWN), CHECK_U64(m->npages, 1);
	CHECK_U64(m->mapcount, 1), CHECK_U64(m->refcount, 2), CHECK_U64(m->pte.set, 0x0d);
	CHECK_U64(m->pte.known, 0xff);
	CHECK_U64(m->pflags, PS_PF(PS_PF_ANON) | PS_PF(PS_PF_LRU)), CHECK_U64(m->shift, 21);
	CHECK(m->excluded, "x excluded");
	CHECK_STR(m->reason, "missing");

	NEXT(PS_REC_SWAP);
	CHECK_U64(rec.u.swap.mm, 1), CHECK_U64(rec.u.swap.vaddr, 0x404000);
	CHECK_U64(rec.u.swap.npages, 3), CHECK_U64(rec.u.swap.type, 1);
	CHECK_U64(rec.u.swap.offset, 0xabc);
	CHECK(rec.u.swap.kind == PS_SWAP_MIGRATION, "swap kind %d", rec.u.swap.kind);

	NEXT(PS_REC_UNKNOWN_RANGE);
	CHECK_U64(rec.u.unknown.mm, 1), CHECK_U64(rec.u.unknown.vaddr, 0x408000);
	CHECK_U64(rec.u.unknown.npages, 8);
	CHECK_STR(rec.u.unknown.reason, "pgtable unreadable");

	NEXT(PS_REC_SUM);
	struct ps_vma_sum *s = &rec.u.sum;
	CHECK_U64(s->mm, 1), CHECK_U64(s->start, 0x400000), CHECK_U64(s->resident, 3);
	CHECK_U64(s->exec, 2), CHECK_U64(s->ro, 3), CHECK_U64(s->single, 1);
	CHECK_U64(s->shared, 0), CHECK_U64(s->referenced, 2), CHECK_U64(s->dirty, 0);
	CHECK_U64(s->swapped, 3), CHECK_U64(s->anon, 1), CHECK_U64(s->file, 0);
	CHECK_U64(s->excluded, 1), CHECK_U64(s->unknown, 8);
	CHECK_U64(s->pss, 4096ULL << 12); /* whole bytes on disk: the fraction is dropped */

	NEXT(PS_REC_WARN);
	CHECK_U64(rec.u.warn.mm, 1), CHECK_U64(rec.u.warn.at, 0x404000);
	CHECK_STR(rec.u.warn.reason, "page table %unreadable");
	NEXT(PS_REC_WARN);
	CHECK_U64(rec.u.warn.mm, PS_UNKNOWN), CHECK_U64(rec.u.warn.at, PS_UNKNOWN);
	CHECK_STR(rec.u.warn.reason, "");

	NEXT(PS_REC_TRACE);
	CHECK_STR(rec.u.trace.tag, "wss");
	CHECK_U64(rec.u.trace.n, 3);
	if (rec.u.trace.n == 3) {
		CHECK_STR(rec.u.trace.kv[0].key, "pid"), CHECK_STR(rec.u.trace.kv[0].value, "100");
		CHECK_STR(rec.u.trace.kv[1].key, "method");
		CHECK_STR(rec.u.trace.kv[1].value, "idle page");
		CHECK_STR(rec.u.trace.kv[2].key, "est"), CHECK_STR(rec.u.trace.kv[2].value, "");
	}

	NEXT(PS_REC_END);
	CHECK(rec.u.end.complete == (seq == 0), "end complete");
	CHECK_U64(rec.u.end.tasks, 2), CHECK_U64(rec.u.end.mms, 1), CHECK_U64(rec.u.end.vmas, 1);
	CHECK_U64(rec.u.end.runs, 4), CHECK_U64(rec.u.end.pages, 3);
	CHECK(!ps_reader_in_snapshot(r), "in snapshot after end");
#undef NEXT
}

static void test_round_trip(void)
{
	char path[256], *err = NULL;
	snprintf(path, sizeof path, "%s/out.rec", tmpdir);
	struct ps_writer *w = ps_writer_open(path, &err);
	if (!CHECK(w != NULL, "ps_writer_open: %s", err ? err : "?"))
		return;
	struct ps_header h = { .source = "test", .arch = "x86_64", .page_size = 4096,
			       .release = "6.1.0 \xc3\xa9=%", .dump = "my dump.vmcore",
			       .dump_id = "", .time = "2026-11-21T07:05:35Z",
			       .excluded = "dumplevel:31,pfn-hidden", .tool = "pagesleuth-0.1",
			       .pids = "-",
			       .n_extra = 2,
			       .extra = { { "cmd", "./prog a=b" }, { "ws_tau", "100000" } } };
	CHECK(ps_write_header(w, &h) == 0, "write header");
	write_snapshot_all_types(w, 0);
	write_snapshot_all_types(w, 1);
	CHECK(!exists(path), "target exists before ps_writer_close");
	CHECK_U64(count_dir_entries("out.rec.tmp."), 1);
	CHECK(ps_writer_close(w, false, &err) == 0, "ps_writer_close: %s", err ? err : "?");
	CHECK(exists(path), "target missing after ps_writer_close");
	CHECK_U64(count_dir_entries("out.rec.tmp."), 0);
	struct stat st = { 0 };
	int src = stat(path, &st);
	CHECK(src == 0 && (st.st_mode & 0777) == 0640,
	      "mode %o (umask 027)", st.st_mode & 0777);

	struct ps_reader *r = ps_reader_open(path, &err);
	if (!CHECK(r != NULL, "ps_reader_open: %s", err ? err : "?")) {
		free(err);
		return;
	}
	const struct ps_header *rh = ps_reader_header(r);
	CHECK_U64(rh->version_major, 1), CHECK_U64(rh->version_minor, PS_FORMAT_MINOR);
	CHECK_STR(rh->source, "test"), CHECK_STR(rh->arch, "x86_64");
	CHECK_STR(rh->endian, "little"), CHECK(!rh->big_endian, "big endian");
	CHECK_U64(rh->page_size, 4096), CHECK_U64(rh->page_shift, 12);
	CHECK_STR(rh->release, "6.1.0 \xc3\xa9=%"), CHECK_STR(rh->dump, "my dump.vmcore");
	CHECK_STR(rh->dump_id, ""), CHECK_STR(rh->time, "2026-11-21T07:05:35Z");
	CHECK_STR(rh->excluded, "dumplevel:31,pfn-hidden"), CHECK_STR(rh->tool, "pagesleuth-0.1");
	CHECK_STR(rh->pids, "-");
	CHECK_U64(rh->n_extra, 2);
	CHECK(ps_header_extra(rh, "cmd") && strcmp(ps_header_extra(rh, "cmd"), "./prog a=b") == 0,
	      "extra cmd");
	CHECK(ps_header_extra(rh, "ws_tau") && strcmp(ps_header_extra(rh, "ws_tau"), "100000") == 0,
	      "extra ws_tau");
	CHECK(ps_header_extra(rh, "source") == NULL, "a standard key is not an extra");
	check_snapshot_all_types(r, 0);
	check_snapshot_all_types(r, 1);
	struct ps_record rec;
	CHECK(ps_read(r, &rec) == 0, "EOF after the last end: %s", ps_reader_error(r));
	CHECK(ps_read(r, &rec) == 0, "EOF is sticky");
	CHECK_STR(ps_reader_warnings(r), "");
	ps_reader_close(r);

	/* The exact text of a few lines, as the spec spells them. */
	FILE *fp = fopen(path, "r");
	char line[1024];
	int n = 0;
	bool saw_comm = false, saw_task2 = false, saw_header = false;
	while (fp && fgets(line, sizeof line, fp)) {
		n++;
		if (n == 1)
			CHECK_STR(line, "pagesleuth-records 1.3\n");
		if (strncmp(line, "header ", 7) == 0)
			saw_header = strcmp(line, "header source=test arch=x86_64 endian=little "
					    "page_size=4096 release=6.1.0%20%C3%A9%3D%25 "
					    "dump=my%20dump.vmcore dump_id=- time=2026-11-21T07:05:35Z "
					    "excluded=dumplevel:31,pfn-hidden tool=pagesleuth-0.1 "
					    "pids=%2D cmd=./prog%20a%3Db ws_tau=100000\n") == 0;
		saw_comm |= strstr(line, " comm=a%20b%3Dc%25d%C3%A9%01%7F%FF-end ") != NULL;
		static const char t2[] = "task pid=2 tgid=2 ppid=0 mm=- comm=%2D state=I minflt=- ";
		saw_task2 |= strncmp(line, t2, sizeof t2 - 1) == 0;
	}
	if (fp)
		fclose(fp);
	CHECK(saw_header, "header line text");
	CHECK(saw_comm, "percent-encoded comm");
	CHECK(saw_task2, "kernel thread task line text");
	unlink(path);

	/* abandon: no file, no temporary. */
	w = ps_writer_open(path, &err);
	if (CHECK(w != NULL, "ps_writer_open")) {
		CHECK(ps_write_header(w, &h) == 0, "write header");
		write_snapshot_all_types(w, 0);
		CHECK(ps_writer_close(w, true, &err) == 0, "abandon close");
		CHECK(!exists(path), "abandoned target exists");
		CHECK_U64(count_dir_entries("out.rec"), 0);
	}
	/* abandon leaves an existing target untouched. */
	fp = fopen(path, "w");
	fputs("old\n", fp);
	fclose(fp);
	w = ps_writer_open(path, &err);
	if (CHECK(w != NULL, "ps_writer_open")) {
		CHECK(ps_write_header(w, &h) == 0, "write header");
		CHECK(ps_writer_close(w, true, &err) == 0, "abandon close");
		fp = fopen(path, "r");
		CHECK(fp && fgets(line, sizeof line, fp) && strcmp(line, "old\n") == 0,
		      "abandon changed the existing target");
		if (fp)
			fclose(fp);
		CHECK_U64(count_dir_entries("out.rec"), 1);
	}
	unlink(path);
	/* A writer into a directory that does not exist fails at open, with a message. */
	err = NULL;
	char bad[300];
	snprintf(bad, sizeof bad, "%s/no/such/dir/x.rec", tmpdir);
	CHECK(ps_writer_open(bad, &err) == NULL && err && strstr(err, "x.rec"),
	      "ps_writer_open in a missing directory: %s", err ? err : "(no error)");
	free(err);
}

/* The spec's own example must read as the spec describes it. */
static void test_spec_example(void)
{
	const char *ex =
		"pagesleuth-records 1.0\n"
		"header source=test arch=x86_64 endian=little page_size=4096 release=6.1.0-27-cloud-amd64 dump=example time=2026-11-21T07:00:00Z excluded=none tool=hand pids=all\n"
		"snapshot seq=0 time=2026-11-21T07:00:00Z\n"
		"task pid=100 tgid=100 ppid=1 mm=1 comm=app state=S minflt=10 majflt=0 utime=0 stime=0 start=0 rss_file=2 rss_anon=3 rss_shmem=0 rss_swap=1\n"
		"mm id=1 tgid=100 comm=app exe=/bin/app start_brk=600000 brk=602000 start_stack=7ffff000\n"
		"vma mm=1 start=400000 end=402000 perm=r-xp vmflags=875 pgoff=0 dev=fe:01 inode=12 path=/bin/app kind=text unit=/bin/app\n"
		"m 1 400000 1a2b0 2 2 3 -xua---- 4068 12\n"
		"sum mm=1 start=400000 resident=2 exec=2 ro=2 single=0 shared=2 referenced=2 dirty=0 swapped=0 anon=0 file=2 excluded=0 unknown=0 pss=4096\n"
		"end status=complete tasks=1 mms=1 vmas=1 runs=1 pages=2\n";
	struct memreader m;
	bool opened = mr_open(&m, ex, strlen(ex));
	if (!CHECK(opened, "spec example: %s", m.err)) {
		mr_close(&m);
		return;
	}
	struct ps_record rec;
	struct ps_vma_sum sum = { 0 };
	uint64_t page_size = ps_reader_header(m.r)->page_size;
	int rc, n = 0;
	while ((rc = ps_read(m.r, &rec)) > 0) {
		n++;
		if (rec.type == PS_REC_MAP) {
			CHECK_U64(rec.line, 7);
			CHECK(ps_pte_has(rec.u.map.pte, PS_PTE_EXEC) &&
			      !ps_pte_has(rec.u.map.pte, PS_PTE_WRITE) &&
			      ps_pte_knows(rec.u.map.pte, PS_PTE_GLOBAL), "pte");
			ps_sum_add_map(&sum, &rec.u.map, (uint32_t)page_size);
		}
		if (rec.type == PS_REC_SUM) {
			/* The example's sum is what ps_sum_add_map computes from its m line. */
			const struct ps_vma_sum *s = &rec.u.sum;
			CHECK_U64(sum.resident, s->resident), CHECK_U64(sum.exec, s->exec);
			CHECK_U64(sum.ro, s->ro), CHECK_U64(sum.single, s->single);
			CHECK_U64(sum.shared, s->shared), CHECK_U64(sum.referenced, s->referenced);
			CHECK_U64(sum.dirty, s->dirty), CHECK_U64(sum.anon, s->anon);
			CHECK_U64(sum.file, s->file), CHECK_U64(sum.pss, s->pss);
		}
	}
	CHECK(rc == 0, "spec example: %s", ps_reader_error(m.r));
	CHECK(n == 7, "spec example: %d records", n);
	mr_close(&m);
}

/* ---- run merging ----------------------------------------------------------------------------- */

/* Write header, snapshot, mm, vma, then the runs; return the text after the vma line. */
static char *merge_text(const struct ps_map *runs, size_t n, bool with_end)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ps_writer *w = ps_writer_open_stream(fp, "mem");
	struct ps_header h = { .source = "test", .page_size = 4096 };
	struct ps_snapshot s = { .seq = 0, .uptime_ns = PS_UNKNOWN };
	struct ps_mm mm = { .id = 1, .kaddr = PS_UNKNOWN };
	struct ps_vma v = { .mm = 1, .start = 0x400000, .end = 0x500000, .perm = "rw-p",
			    .path = "", .unit = "", .kind = PS_KIND_ANON };
	ps_write_header(w, &h);
	ps_write_snapshot(w, &s);
	ps_write_mm(w, &mm);
	ps_write_vma(w, &v);
	for (size_t i = 0; i < n; i++)
		CHECK(ps_write_map(w, &runs[i]) == 0, "ps_write_map %zu", i);
	if (with_end)
		ps_write_end(w, true);
	char *err = NULL;
	CHECK(ps_writer_close(w, false, &err) == 0, "close: %s", err ? err : "");
	fclose(fp);
	char *p = strstr(buf, "\nvma ");
	p = p ? strchr(p + 1, '\n') : NULL;
	char *out = strdup(p ? p + 1 : "");
	if (with_end) { /* the whole text must read back */
		struct readall ra = read_all(buf, len);
		CHECK(ra.rc == 0, "merged output does not read back: %s", ra.err);
	}
	free(buf);
	return out;
}

#define CHECK_MERGE(runs, n, expected)                                                   \
	do {                                                                              \
		char *got_ = merge_text((runs), (n), false);                               \
		CHECK(strcmp(got_, (expected)) == 0, "merge:\n%s--- expected:\n%s", got_,   \
		      (expected));                                                        \
		free(got_);                                                               \
	} while (0)

static void test_merging(void)
{
	struct ps_map r[4];
	/* Three single pages, consecutive vaddr and pfn, equal attributes: one line. */
	for (int i = 0; i < 3; i++)
		r[i] = mk_map(1, 0x400000 + 0x1000 * (uint64_t)i, 0x100 + (uint64_t)i, 1);
	CHECK_MERGE(r, 3, "m 1 400000 100 3 1 2 w-ua---- 1020 12\n");
	/* Multi-page runs continue multi-page runs. */
	r[0] = mk_map(1, 0x400000, 0x100, 2);
	r[1] = mk_map(1, 0x402000, 0x102, 3);
	CHECK_MERGE(r, 2, "m 1 400000 100 5 1 2 w-ua---- 1020 12\n");

	/* Any attribute change breaks the run. */
	static const char *const two[] = {
		"mapcount", "refcount", "pte.set", "pte.known", "pflags", "shift", "excluded",
		"reason", "pfn gap", "vaddr gap", "unknown pfn", "mm",
	};
	for (size_t k = 0; k < sizeof two / sizeof two[0]; k++) {
		r[0] = mk_map(1, 0x400000, 0x100, 1);
		r[1] = mk_map(1, 0x401000, 0x101, 1);
		const char *expected = NULL;
		switch (k) {
		case 0: r[1].mapcount = 2;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 101 1 2 2 w-ua---- 1020 12\n";
			break;
		case 1: r[1].refcount = PS_UNKNOWN;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 101 1 1 - w-ua---- 1020 12\n";
			break;
		case 2: r[1].pte.set |= 1u << PS_PTE_DIRTY;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 101 1 1 2 w-uad--- 1020 12\n";
			break;
		case 3: r[1].pte.known &= (uint8_t)~(1u << PS_PTE_GLOBAL);
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 101 1 1 2 w-ua---? 1020 12\n";
			break;
		case 4: r[1].pflags |= PS_PF(PS_PF_YOUNG);
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 101 1 1 2 w-ua---- 1000000001020 12\n";
			break;
		case 5: r[0].shift = r[1].shift = 21;
			r[1].shift = 16;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 21\nm 1 401000 101 1 1 2 w-ua---- 1020 16\n";
			break;
		case 6: r[1].excluded = true, r[1].reason = "dumplevel";
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nx 1 401000 101 1 1 2 w-ua---- 1020 12 dumplevel\n";
			break;
		case 7: r[0].excluded = r[1].excluded = true;
			r[0].reason = "dumplevel", r[1].reason = "missing";
			expected = "x 1 400000 100 1 1 2 w-ua---- 1020 12 dumplevel\nx 1 401000 101 1 1 2 w-ua---- 1020 12 missing\n";
			break;
		case 8: r[1].pfn = 0x102;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 102 1 1 2 w-ua---- 1020 12\n";
			break;
		case 9: r[1].vaddr = 0x402000;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 402000 101 1 1 2 w-ua---- 1020 12\n";
			break;
		case 10: /* hidden frames say nothing about contiguity: they merge (format 1.0) */
			r[0].pfn = r[1].pfn = PS_UNKNOWN;
			expected = "m 1 400000 - 2 1 2 w-ua---- 1020 12\n";
			break;
		case 11: r[1].mm = 2;
			expected = "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 2 401000 101 1 1 2 w-ua---- 1020 12\n";
			break;
		}
		char *got = merge_text(r, 2, false);
		CHECK(strcmp(got, expected) == 0, "merge break on %s:\n%s--- expected:\n%s", two[k], got,
		      expected);
		free(got);
	}
	/* Zero-page runs map every page to the one frame: they merge, other pages do not. */
	for (int i = 0; i < 3; i++) {
		r[i] = mk_map(1, 0x400000 + 0x1000 * (uint64_t)i, 0x55, 1);
		r[i].pflags = PS_PF(PS_PF_ZERO_PAGE);
	}
	CHECK_MERGE(r, 3, "m 1 400000 55 3 1 2 w-ua---- 1000000 12\n");
	r[2].pflags = 0;
	CHECK_MERGE(r, 3, "m 1 400000 55 2 1 2 w-ua---- 1000000 12\nm 1 402000 55 1 1 2 w-ua---- 0 12\n");
	/* Swap entries with consecutive offsets on one device merge; a gap or another device not. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		struct ps_writer *w = ps_writer_open_stream(fp, "mem");
		struct ps_header sh = { .source = "test", .arch = "x86_64", .page_size = 4096 };
		ps_write_header(w, &sh);
		struct ps_swap sw[4] = {
			{ .mm = 1, .vaddr = 0x400000, .npages = 1, .type = 0, .offset = 0x10 },
			{ .mm = 1, .vaddr = 0x401000, .npages = 1, .type = 0, .offset = 0x11 },
			{ .mm = 1, .vaddr = 0x402000, .npages = 1, .type = 0, .offset = 0x13 },
			{ .mm = 1, .vaddr = 0x403000, .npages = 1, .type = 1, .offset = 0x14 },
		};
		for (int i = 0; i < 4; i++)
			ps_write_swap(w, &sw[i]);
		ps_writer_close(w, false, NULL);
		fclose(fp);
		const char *runs = strstr(buf, "\nw ");
		CHECK(runs && strcmp(runs + 1, "w 1 400000 2 0 10 swap\nw 1 402000 1 0 13 swap\n"
					    "w 1 403000 1 1 14 swap\n") == 0,
		      "swap runs merged wrongly:\n%s", runs ? runs + 1 : buf);
		free(buf);
	}
	/* Unknown pfn after a known one, and a known one after an unknown one. */
	r[0] = mk_map(1, 0x400000, 0x100, 1);
	r[1] = mk_map(1, 0x401000, PS_UNKNOWN, 1);
	r[2] = mk_map(1, 0x402000, 0x102, 1);
	CHECK_MERGE(r, 3, "m 1 400000 100 1 1 2 w-ua---- 1020 12\nm 1 401000 - 1 1 2 w-ua---- 1020 12\n"
			  "m 1 402000 102 1 1 2 w-ua---- 1020 12\n");
	/* Excluded pages with equal reasons merge (reason NULL means dumplevel). */
	for (int i = 0; i < 3; i++) {
		r[i] = mk_map(1, 0x400000 + 0x1000 * (uint64_t)i, 0x100 + (uint64_t)i, 1);
		r[i].excluded = true;
	}
	char missing[] = "missing";
	r[0].reason = "dumplevel", r[1].reason = NULL, r[2].reason = "dumplevel";
	CHECK_MERGE(r, 3, "x 1 400000 100 3 1 2 w-ua---- 1020 12 dumplevel\n");
	r[0].reason = "missing", r[1].reason = missing, r[2].reason = "missing";
	CHECK_MERGE(r, 3, "x 1 400000 100 3 1 2 w-ua---- 1020 12 missing\n");
	/* Another record ends the pending run; the end counts see the merged lines. */
	r[0] = mk_map(1, 0x400000, 0x100, 1);
	r[1] = mk_map(1, 0x401000, 0x101, 1);
	r[2] = mk_map(1, 0x402000, 0x102, 1);
	char *got = merge_text(r, 3, true);
	CHECK_STR(got, "m 1 400000 100 3 1 2 w-ua---- 1020 12\n"
		       "end status=complete tasks=0 mms=1 vmas=1 runs=1 pages=3\n");
	free(got);
	/* Runs are not merged across a vma record, even when they are contiguous. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		struct ps_writer *w = ps_writer_open_stream(fp, "mem");
		struct ps_header h = { .source = "test", .page_size = 4096 };
		struct ps_snapshot s = { .uptime_ns = PS_UNKNOWN };
		struct ps_mm mm = { .id = 1, .kaddr = PS_UNKNOWN };
		struct ps_vma v1 = { .mm = 1, .start = 0x400000, .end = 0x401000, .perm = "rw-p",
				     .path = "", .unit = "", .kind = PS_KIND_ANON };
		struct ps_vma v2 = v1;
		v2.start = 0x401000, v2.end = 0x402000, v2.perm[0] = '-';
		ps_write_header(w, &h), ps_write_snapshot(w, &s), ps_write_mm(w, &mm);
		ps_write_vma(w, &v1), ps_write_map(w, &r[0]);
		ps_write_vma(w, &v2), ps_write_map(w, &r[1]);
		ps_write_end(w, true);
		ps_writer_close(w, false, NULL);
		fclose(fp);
		CHECK(strstr(buf, "m 1 400000 100 1 1 2 w-ua---- 1020 12\nvma ") != NULL &&
		      strstr(buf, "m 1 401000 101 1 1 2 w-ua---- 1020 12\nend status=complete tasks=0 mms=1 vmas=2 runs=2 pages=2\n"),
		      "runs across VMAs:\n%s", buf);
		struct readall ra = read_all(buf, len);
		CHECK(ra.rc == 0 && ra.nmap == 2, "read back: %s", ra.err);
		free(buf);
	}
	/* ps_writer_close flushes a pending run. */
	got = merge_text(r, 1, false);
	CHECK_STR(got, "m 1 400000 100 1 1 2 w-ua---- 1020 12\n");
	free(got);
}

/* ---- errors --------------------------------------------------------------------------------- */

static void test_not_records(void)
{
	EXPECT_ERROR_N("", 0, 1, "empty");
	EXPECT_ERROR("hello world\n", 1, "not a pagesleuth record file");
	EXPECT_ERROR("pagesleuth-records\n", 1, "not a pagesleuth record file");
	EXPECT_ERROR("pagesleuth-records 1\n" L_HEADER, 1, "version");
	EXPECT_ERROR("pagesleuth-records 1.0x\n" L_HEADER, 1, "version");
	EXPECT_ERROR("pagesleuth-records x.0\n" L_HEADER, 1, "version");
	static const char elf[] = "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0\n";
	EXPECT_ERROR_N(elf, sizeof elf - 1, 1, "");
	/* Random binary without a newline: fails at line 1 however it fails. */
	size_t n = 200000;
	char *junk = malloc(n);
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		junk[i] = (char)(x >> 16);
		if (junk[i] == '\n' || junk[i] == 0)
			junk[i] = 'z';
	}
	EXPECT_ERROR_N(junk, n, 1, "longer than 65535");
	free(junk);
	/* The magic with a NUL byte inside the line. */
	EXPECT_ERROR_N("pagesleuth-records 1.0\0\n", 24, 1, "NUL");
	/* Magic but no header. */
	EXPECT_ERROR(L_MAGIC, 1, "header");
	EXPECT_ERROR(L_MAGIC "snapshot seq=0\n", 2, "header");
	EXPECT_ERROR(L_MAGIC "header arch=x86_64 endian=little page_size=4096\n", 2, "source");
	EXPECT_ERROR(L_MAGIC "header source=t endian=little page_size=4000\n", 2, "page_size");
	EXPECT_ERROR(L_MAGIC "header source=t endian=middle page_size=4096\n", 2, "endian");
	EXPECT_ERROR(L_MAGIC "header source=t endian=little page_size=-\n", 2, "page_size");
}

static void test_versions(void)
{
	struct readall ra = read_all("pagesleuth-records 2.0\n" L_HEADER, strlen("pagesleuth-records 2.0\n" L_HEADER));
	CHECK_STR(ra.err, "t:1: record format version 2.0, this reader understands 1.x");
	EXPECT_ERROR("pagesleuth-records 0.9\n" L_HEADER, 1, "version 0.9");
	/* A newer minor is read; its new tags, keys and trailing fields are skipped. */
	const char *newer = "pagesleuth-records 1.7\n" L_HEADER L_SNAP
			    "task pid=100 tgid=100 ppid=1 mm=1 comm=app state=S cgroup=%2Fsys color=blue\n"
			    L_MM L_VMA
			    "m 1 400000 1a2b0 2 2 3 -xua---- 4068 12 77 newfield\n"
			    "x 1 402000 1a2b2 1 2 3 -xua---- 4068 12 missing 99\n"
			    "w 1 403000 1 0 abc swap extra\n"
			    "u 1 404000 1 pid-gone extra more\n"
			    "numa node=1\n"
			    "numa node=2\n"
			    "heatmap x=1\n"
			    "numa node=3\n"
			    "hot page=400000 kind=code accesses=7\n"
			    "end status=complete tasks=1 mms=1 vmas=1 runs=4 pages=3 newcount=5\n";
	struct memreader m;
	bool opened = mr_open(&m, newer, strlen(newer));
	if (CHECK(opened, "newer minor refused: %s", m.err)) {
		CHECK_U64(ps_reader_header(m.r)->version_minor, 7);
		struct ps_record rec;
		int rc, n = 0;
		while ((rc = ps_read(m.r, &rec)) > 0) {
			n++;
			if (rec.type == PS_REC_MAP && !rec.u.map.excluded) {
				CHECK_U64(rec.u.map.shift, 12), CHECK_U64(rec.u.map.pflags, 0x4068);
			} else if (rec.type == PS_REC_MAP) {
				CHECK_STR(rec.u.map.reason, "missing");
			} else if (rec.type == PS_REC_SWAP) {
				CHECK(rec.u.swap.kind == PS_SWAP, "w kind"), CHECK_U64(rec.u.swap.offset, 0xabc);
			} else if (rec.type == PS_REC_UNKNOWN_RANGE) {
				CHECK_STR(rec.u.unknown.reason, "pid-gone");
			} else if (rec.type == PS_REC_TRACE) {
				CHECK_STR(rec.u.trace.tag, "hot"), CHECK_U64(rec.u.trace.n, 3);
				CHECK_U64(rec.line, 15);
			} else if (rec.type == PS_REC_TASK) {
				CHECK_STR(rec.u.task.comm, "app");
			}
		}
		CHECK(rc == 0, "newer minor: %s", ps_reader_error(m.r));
		CHECK(n == 10, "newer minor: %d records", n);
		CHECK_STR(ps_reader_warnings(m.r),
			  "t:11: skipping unknown record type 'numa' (newer format 1.7?)\n"
			  "t:13: skipping unknown record type 'heatmap' (newer format 1.7?)\n");
	}
	mr_close(&m);
	/* Comments and empty lines are ignored anywhere. */
	struct readall ok = EXPECT_OK(L_MAGIC "# a comment\n\n" L_HEADER "\n# x\n" L_SNAP
				      "#m 1 400000 0 0 0\n" L_TASK L_MM L_VMA M_OK
				      "end status=partial tasks=1 mms=1 vmas=1 runs=1 pages=2\n");
	CHECK(ok.nrec == 6, "%d records", ok.nrec);
}

static void test_lexical_errors(void)
{
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 2 3 -xua---- 4068 12", 7, "truncated");
	EXPECT_ERROR(BASE "end status=complete", 7, "truncated");
	/* Lines longer than 65535 bytes, whether or not the newline is in the buffer. */
	size_t big = 70000;
	char *s = malloc(strlen(BASE) + big + 100);
	strcpy(s, BASE "warn reason=");
	size_t l = strlen(s);
	memset(s + l, 'a', big);
	strcpy(s + l + big, "\n" M_OK);
	EXPECT_ERROR(s, 7, "longer than 65535");
	/* Exactly 65535 bytes is fine, 65536 is not. */
	strcpy(s, BASE "warn reason=");
	l = strlen(s);
	size_t body = 65535 - strlen("warn reason=");
	memset(s + l, 'b', body);
	strcpy(s + l + body, "\n" M_OK);
	struct readall ra = EXPECT_OK(s);
	CHECK(ra.rc == 0 && ra.nrec == 6, "65535-byte line: %d records", ra.nrec);
	memset(s + l, 'b', body + 1);
	strcpy(s + l + body + 1, "\n" M_OK);
	EXPECT_ERROR(s, 7, "longer than 65535");
	free(s);

	/* NUL bytes: in a hot record, a key=value record, a comment, the header. */
	static const char nul_m[] = BASE "m 1 400000 1a2b0 2 2 3 -xua---- 4068 12\0 junk\n";
	EXPECT_ERROR_N(nul_m, sizeof nul_m - 1, 7, "NUL");
	static const char nul_m2[] = BASE "m 1 400000 1a2b0 2 2 3 -xua---- 4068 12 \0\n";
	EXPECT_ERROR_N(nul_m2, sizeof nul_m2 - 1, 7, "NUL");
	static const char nul_kv[] = BASE "warn reason=x\0y\n";
	EXPECT_ERROR_N(nul_kv, sizeof nul_kv - 1, 7, "NUL");
	static const char nul_c[] = BASE "# comment \0\n";
	EXPECT_ERROR_N(nul_c, sizeof nul_c - 1, 7, "NUL");
	static const char nul_h[] = L_MAGIC "header source=test\0 endian=little page_size=4096\n";
	EXPECT_ERROR_N(nul_h, sizeof nul_h - 1, 2, "NUL");
	static const char nul_u[] = BASE "u 1 400000 1 pid\0gone\n";
	EXPECT_ERROR_N(nul_u, sizeof nul_u - 1, 7, "NUL");

	/* Malformed tags and lines. */
	EXPECT_ERROR(BASE "Task pid=1\n", 7, "not a record tag");
	EXPECT_ERROR(BASE "abcdefghijklmnopq a=1\n", 7, "not a record tag");
	EXPECT_ERROR(BASE " m 1 400000 1 1 1 1 -------- 0 12\n", 7, "not a record tag");
	EXPECT_ERROR(BASE "m\n", 7, "m record: field 1 (MM) missing");
	EXPECT_ERROR(BASE "u\n", 7, "u record: field 1 missing");
	EXPECT_ERROR(BASE "task pid\n", 7, "key=value");
	EXPECT_ERROR(BASE "task =1\n", 7, "key=value");
	EXPECT_ERROR(BASE "task pid=\n", 7, "empty value");
	EXPECT_ERROR(BASE "task  pid=1\n", 7, "key=value");
	/* Percent escapes. */
	EXPECT_ERROR(BASE "task pid=1 tgid=1 mm=1 comm=a%zz\n", 7, "escape");
	EXPECT_ERROR(BASE "task pid=1 tgid=1 mm=1 comm=a%2\n", 7, "escape");
	EXPECT_ERROR(BASE "task pid=1 tgid=1 mm=1 comm=a%\n", 7, "escape");
	EXPECT_ERROR(BASE "task pid=1 tgid=1 mm=1 comm=a%00b\n", 7, "escape");
	EXPECT_ERROR(BASE "u 1 400000 1 bad%g0\n", 7, "escape");
	/* Numbers in key=value records. */
	EXPECT_ERROR(BASE "task pid=12a tgid=1 mm=1\n", 7, "pid=12a");
	EXPECT_ERROR(BASE "task pid=1 tgid=1 mm=1 minflt=99999999999999999999999\n", 7, "minflt");
	EXPECT_ERROR(BASE "task pid=1 tgid=1\n", 7, "missing mm=");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "mm id=1 start_brk=xyz\n", 4, "start_brk");
}

/* Replace positional field FIELD (1-based after the tag) of LINE by REPL, or cut the line
 * before it when REPL is NULL. */
static char *with_field(const char *line, int field, const char *repl)
{
	char *out = malloc(strlen(line) + 64);
	const char *p = line;
	for (int i = 0; i < field; i++)
		p = strchr(p, ' ') + 1;
	size_t pre = (size_t)(p - line);
	memcpy(out, line, pre);
	if (!repl) {
		out[pre - 1] = '\n';
		out[pre] = '\0';
		return out;
	}
	const char *e = p + strcspn(p, " \n");
	sprintf(out + pre, "%s%s", repl, e);
	return out;
}


static void ra_ok_near_max(void)
{
	char path[256], *err = NULL;
	snprintf(path, sizeof path, "%s/near-max.rec", tmpdir);
	FILE *fp = fopen(path, "w");
	if (!CHECK(fp != NULL, "fopen %s", path))
		return;
	fputs(L_MAGIC L_HEADER L_SNAP "task pid=1 tgid=1 ppid=0 mm=- comm=x state=S "
	      "utime=18446744073709551614 stime=18446744073709551610\n", fp);
	fclose(fp);
	struct ps_reader *r = ps_reader_open(path, &err);
	if (!CHECK(r != NULL, "open: %s", err ? err : "?")) {
		free(err);
		return;
	}
	struct ps_record rec;
	int rc;
	while ((rc = ps_read(r, &rec)) == 1 && rec.type != PS_REC_TASK)
		;
	CHECK(rc == 1 && rec.type == PS_REC_TASK, "task near max: %s", ps_reader_error(r));
	if (rc == 1) {
		CHECK_U64(rec.u.task.utime, UINT64_C(18446744073709551614));
		CHECK_U64(rec.u.task.stime, UINT64_C(18446744073709551610));
	}
	ps_reader_close(r);
}

static void test_hot_field_errors(void)
{
	static const struct {
		const char *line;
		int nfields;
		const char *bad[12];
	} recs[] = {
		{ "m 1 400000 1a2b0 2 2 3 -xua---- 4068 12\n", 9,
		  { "", "z", "40000g", "1a2b0z", "2x", "-2", "3.", "-xua--x-", "4068z", "12z" } },
		{ "x 1 400000 1a2b0 2 2 3 -xua---- 4068 12 dumplevel\n", 10,
		  { "", "-", "-", "g", "-", "", "x", "-xua----- ", "zz", "twelve", "" } },
		{ "w 1 400000 2 0 abc swap\n", 6, { "", "x", "", "-", "z", "xyz", "" } },
		{ "u 1 400000 2 pid-gone\n", 4, { "", "a", "q", "?", "" } },
	};
	static const char *const map_names[] = { "", "MM", "VADDR", "PFN", "N", "MAPCOUNT",
						 "REFCOUNT", "PTE", "PFLAGS", "SHIFT", "REASON" };
	for (size_t k = 0; k < sizeof recs / sizeof recs[0]; k++) {
		struct readall ra = EXPECT_OK(cat(BASE, recs[k].line));
		CHECK(ra.nrec == 5, "%s", recs[k].line);
		char tag[2] = { recs[k].line[0], 0 };
		for (int f = 1; f <= recs[k].nfields; f++) {
			char want[64];
			if (tag[0] == 'm' || tag[0] == 'x')
				snprintf(want, sizeof want, "%s record: field %d (%s)", tag, f, map_names[f]);
			else
				snprintf(want, sizeof want, "%s record: field %d ", tag, f);
			/* malformed */
			char *l = with_field(recs[k].line, f, recs[k].bad[f]);
			char *text = cat(BASE, l);
			expect_error_at(__FILE__, __LINE__, text, strlen(text), 7, want);
			free(l);
			/* missing (line cut before it) */
			l = with_field(recs[k].line, f, NULL);
			text = cat(BASE, l);
			expect_error_at(__FILE__, __LINE__, text, strlen(text), 7, want);
			free(l);
		}
	}
	/* Values out of range. */
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 4294967296 3 -xua---- 4068 12\n", 7, "MAPCOUNT");
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 1 4294967296 -xua---- 4068 12\n", 7, "REFCOUNT");
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 1 1 -xua---- 4068 11\n", 7, "SHIFT 11");
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 1 1 -xua---- 4068 43\n", 7, "SHIFT 43");
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 1 1 -xua---- 4068 99999999999\n", 7, "SHIFT");
	EXPECT_ERROR(BASE "m 1 400000 10000000000000 1 1 1 -xua---- 4068 12\n", 7, "PFN");
	EXPECT_ERROR(BASE "m 1 400000 fffffffffffff 2 1 1 -xua---- 4068 12\n", 7, "PFN");
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 1 1 -xua---- 10000000000000000 12\n", 7, "PFLAGS");
	EXPECT_ERROR(BASE "w 1 400000 1 256 0 swap\n", 7, "swap type 256");
	/* All-ones hex is PS_UNKNOWN in memory: it must be written "-", never read as unknown. */
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 1 1 -xua---- ffffffffffffffff 12\n", 7, "field 8 (PFLAGS)");
	EXPECT_ERROR(BASE "m 1 400000 ffffffffffffffff 2 1 1 -xua---- 0 12\n", 7, "field 3 (PFN)");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "mm id=1 kaddr=ffffffffffffffff\n", 4, "kaddr");
	/* Decimal: the largest values are refused rather than read as PS_UNKNOWN. */
	EXPECT_ERROR(BASE "m 1 400000 1a2b0 2 18446744073709551615 1 -xua---- 0 12\n", 7, "field 5 (MAPCOUNT)");
	/* ...but every value below all-ones reads back, as the writer may write it (a task's
	 * stime read from a corrupt dump once came out as 18446744073709551613). */
	ra_ok_near_max();
	struct readall ra = EXPECT_OK(BASE "m 1 400000 fffffffffffff 1 4294967295 4294967295 ???????? ffffffffffffffe 42\n");
	CHECK(ra.nmap == 1, "max values");
	ra = EXPECT_OK(BASE "m 1 400000 - 16 - - ???????? - 12\n");
	CHECK(ra.nmap == 1, "all unknown");

	/* Structure of the runs. */
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP L_TASK L_MM M_OK, 6, "outside a VMA");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP M_OK, 4, "outside a VMA");
	EXPECT_ERROR(L_MAGIC L_HEADER "w 1 400000 1 0 0 swap\n", 3, "outside a VMA");
	EXPECT_ERROR(BASE "sum mm=1 start=400000\nm 1 402000 1 1 1 1 -------- 0 12\n", 8, "outside a VMA");
	EXPECT_ERROR(BASE "mm id=2\nm 1 400000 1 1 1 1 -------- 0 12\n", 8, "outside a VMA");
	EXPECT_ERROR(BASE "m 2 400000 1 1 1 1 -------- 0 12\n", 7, "mm 2");
	EXPECT_ERROR(BASE "m 1 410000 1 1 1 1 -------- 0 12\n", 7, "VMA");
	EXPECT_ERROR(BASE "m 1 40f000 1 2 1 1 -------- 0 12\n", 7, "past the VMA end");
	EXPECT_ERROR(BASE "u 1 400000 17 x\n", 7, "past the VMA end");
	EXPECT_ERROR(BASE "u 1 400000 1844674407370955161 x\n", 7, "VMA");
	EXPECT_ERROR(BASE "w 1 3ff000 1 0 0 swap\n", 7, "VMA");
	EXPECT_ERROR(BASE "m 1 0 1 1 1 1 -------- 0 12\n", 7, "VMA");
	EXPECT_ERROR(BASE "m 1 400800 1 1 1 1 -------- 0 12\n", 7, "not page aligned");
	EXPECT_ERROR(BASE "m 1 400000 1 0 1 1 -------- 0 12\n", 7, "N must be at least 1");
	EXPECT_ERROR(BASE "w 1 400000 0 0 0 swap\n", 7, "N must be at least 1");
	EXPECT_ERROR(BASE "u 1 400000 0 x\n", 7, "N must be at least 1");
	EXPECT_ERROR(BASE "m 1 402000 1 1 1 1 -------- 0 12\nm 1 401000 2 1 1 1 -------- 0 12\n", 8,
		     "ascend");
	EXPECT_ERROR(BASE "m 1 402000 1 2 1 1 -------- 0 12\nu 1 403000 1 x\n", 8, "ascend");
	ra = EXPECT_OK(BASE "m 1 402000 1 2 1 1 -------- 0 12\nu 1 404000 1 x\nw 1 40f000 1 0 0 swap\n");
	CHECK(ra.nrec == 7, "adjacent runs");
	/* sum: must follow its VMA, and closes it. */
	EXPECT_ERROR(BASE M_OK "sum mm=1 start=401000\n", 8, "does not follow");
	EXPECT_ERROR(BASE M_OK "sum mm=1 start=400000\nsum mm=1 start=400000\n", 9, "does not follow");
	EXPECT_ERROR(BASE "sum mm=1 start=400000 resident=17\n", 7, "more pages");
	/* 1.3's shmem_swap: optional, at most the VMA's pages, a decimal or "-". */
	EXPECT_ERROR(BASE "sum mm=1 start=400000 shmem_swap=17\n", 7, "more pages");
	EXPECT_ERROR(BASE "sum mm=1 start=400000 shmem_swap=x\n", 7, "shmem_swap=x is not a decimal");
	EXPECT_OK(BASE "sum mm=1 start=400000 swapped=6 shmem_swap=10\n");
	EXPECT_OK(BASE "sum mm=1 start=400000 shmem_swap=-\n");
}

static void test_structure_errors(void)
{
	const char *end1 = "end status=complete tasks=1 mms=1 vmas=1 runs=1 pages=2\n";
	struct readall ra = EXPECT_OK(cat(BASE M_OK, end1));
	CHECK(ra.nrec == 6 && !ra.in_snapshot, "good file");
	/* ps_reader_in_snapshot at EOF without an end record. */
	ra = EXPECT_OK(BASE M_OK);
	CHECK(ra.in_snapshot, "in_snapshot at EOF without end");
	ra = EXPECT_OK(L_MAGIC L_HEADER);
	CHECK(!ra.in_snapshot && ra.nrec == 0, "no snapshot at all");

	/* A task refers to an mm never declared: reported at the end record. */
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "task pid=5 tgid=5 mm=7\n" L_TASK L_MM
		     "end status=complete\n", 7, "mm 7");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "task pid=5 tgid=5 mm=700\n" L_TASK L_MM
		     "end status=complete\n", 7, "mm 700");
	ra = EXPECT_OK(L_MAGIC L_HEADER L_SNAP "task pid=5 tgid=5 mm=1\n" L_MM "end status=complete\n");
	CHECK(ra.nrec == 4, "task before its mm");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "task pid=5 tgid=5 mm=16777216\n", 4, "out of range");
	/* The declared set is per snapshot. */
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP L_MM "end status=complete\nsnapshot seq=1\n" L_TASK
		     "end status=complete\n", 8, "mm 1");
	/* mm ids. */
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP L_MM L_MM, 5, "declared twice");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "mm id=-\n", 4, "id out of range");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP "mm tgid=1\n", 4, "missing id=");
	/* vma for an mm that is not the latest mm record. */
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP L_MM "mm id=2\n" L_VMA, 6, "latest mm record is 2");
	EXPECT_ERROR(L_MAGIC L_HEADER L_SNAP L_VMA, 4, "no mm record precedes it");
	/* VMA ranges: overlapping, descending, unaligned, empty, bad perm/dev/kind. */
	const char *v2 = "vma mm=1 start=40f000 end=411000 perm=rw-p path=- kind=anon\n";
	EXPECT_ERROR(cat(BASE, v2), 7, "overlaps");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=300000 end=301000 perm=rw-p kind=anon\n"), 7, "overlaps");
	ra = EXPECT_OK(cat(BASE, "vma mm=1 start=410000 end=411000 perm=rw-p kind=anon\n"));
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=410800 end=411000 perm=rw-p kind=anon\n"), 7, "page aligned");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=411000 perm=rw-p kind=anon\n"), 7, "bad range");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=412000 end=411000 perm=rw-p kind=anon\n"), 7, "bad range");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rwx kind=anon\n"), 7, "perm=rwx");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rwxq kind=anon\n"), 7, "perm=rwxq");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rw-p kind=anon dev=zz\n"), 7, "dev=zz");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rw-p kind=anon dev=1:2x\n"), 7, "dev=1:2x");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rw-p kind=anon dev=-1:2\n"), 7, "dev=-1:2");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rw-p kind=anon dev=123456789:2\n"), 7, "dev=");
	EXPECT_ERROR(cat(BASE, "vma mm=1 start=411000 end=412000 perm=rw-p kind=weird\n"), 7, "kind=weird");
	/* A new mm resets the VMA order. */
	ra = EXPECT_OK(cat(BASE, "mm id=2\nvma mm=2 start=1000 end=2000 perm=rw-p kind=anon\n"));
	CHECK(ra.nrec == 6, "second mm");

	/* end counts: a lost line of each kind. */
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete tasks=2 mms=1 vmas=1 runs=1 pages=2\n"), 8,
		     "tasks=2 but the snapshot holds 1");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete tasks=1 mms=2 vmas=1 runs=1 pages=2\n"), 8, "mms=2");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete tasks=1 mms=1 vmas=2 runs=1 pages=2\n"), 8, "vmas=2");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete tasks=1 mms=1 vmas=1 runs=2 pages=2\n"), 8, "runs=2");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete tasks=1 mms=1 vmas=1 runs=1 pages=3\n"), 8, "pages=3");
	EXPECT_ERROR(cat(BASE M_OK, "end status=done\n"), 8, "status=done");
	EXPECT_ERROR(cat(BASE M_OK, "end tasks=1\n"), 8, "status=");
	/* A second header, records after end, snapshot inside snapshot. */
	EXPECT_ERROR(BASE L_HEADER, 7, "second header");
	EXPECT_ERROR(L_MAGIC L_HEADER L_HEADER, 3, "second header");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete\nmm id=2\n"), 9, "after its end");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete\ntask pid=1 tgid=1 mm=1\n"), 9, "after its end");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete\nm 1 402000 1 1 1 1 -------- 0 12\n"), 9, "outside a VMA");
	EXPECT_ERROR(cat(BASE M_OK, "end status=complete\nend status=complete\n"), 9, "after its end");
	EXPECT_ERROR(L_MAGIC L_HEADER L_TASK, 3, "no snapshot record yet");
	EXPECT_ERROR(BASE L_SNAP, 7, "before the previous snapshot's end");
	EXPECT_ERROR(L_MAGIC L_HEADER "snapshot time=x\n", 3, "missing seq=");
	ra = EXPECT_OK(cat(BASE M_OK, "end status=complete\nwarn reason=late\n" L_SNAP L_MM "end status=complete\n"));
	CHECK(ra.nrec == 10 && !ra.in_snapshot, "two snapshots");

	/* Unknown tags: skipped, one warning per tag name with its first line. */
	ra = EXPECT_OK(BASE "zz a=1\nzz\nnewtag1 x=%zz\nzz b\n" M_OK "newtag1\n");
	CHECK(ra.nrec == 5, "unknown tags skipped: %d records", ra.nrec);
	CHECK_STR(ra.warnings, "t:7: skipping unknown record type 'zz' (newer format 1.0?)\n"
			       "t:9: skipping unknown record type 'newtag1' (newer format 1.0?)\n");
	/* Reserved trace tags come back as PS_REC_TRACE, silently. */
	ra = EXPECT_OK(BASE "ws t=1 tid=2 code=3 data=4 tau=5\npeak t=1\nhot page=1\nobj id=1\n"
			    "alloc id=1\nframe id=1 fn=%2D\nmark t=1 text=a%20b\nwss pid=1\n");
	CHECK(ra.ntrace == 8 && ra.nrec == 12, "trace records: %d", ra.ntrace);
	CHECK_STR(ra.warnings, "");
	EXPECT_ERROR(BASE "frame id=1 fn=%q\n", 7, "escape");
	/* Unknown keys ignored, known keys in any order. */
	struct memreader m;
	const char *t = L_MAGIC L_HEADER L_SNAP
			"task zz=1 state=R comm=x%20y mm=1 tgid=9 pid=10 future=%41\n";
	bool opened = mr_open(&m, t, strlen(t));
	if (CHECK(opened, "open: %s", m.err)) {
		struct ps_record rec;
		ps_read(m.r, &rec);
		CHECK(ps_read(m.r, &rec) == 1 && rec.type == PS_REC_TASK, "task");
		CHECK_U64(rec.u.task.pid, 10), CHECK_U64(rec.u.task.tgid, 9);
		CHECK_STR(rec.u.task.comm, "x y");
		CHECK(rec.u.task.state == 'R', "state");
		CHECK_U64(rec.u.task.ppid, PS_UNKNOWN);
		CHECK_U64(rec.line, 4);
	}
	mr_close(&m);
}

/* ---- classification ------------------------------------------------------------------------- */

static void test_classify(void)
{
	const char *exe = "/usr/bin/app", *lib = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct ps_mm mm = { .id = 1, .exe = exe, .start_brk = 0x555555560000,
			    .brk = 0x555555581000, .start_stack = 0x7ffffffde123 };
	struct {
		uint64_t start, end;
		const char *perm, *path;
		uint64_t vmflags;
		enum ps_vma_kind kind;
		const char *unit;
	} t[] = {
		{ 0x555555554000, 0x555555555000, "r--p", exe, 0x71, PS_KIND_TEXT, exe },
		{ 0x555555555000, 0x555555556000, "r-xp", exe, 0x75, PS_KIND_TEXT, exe },
		{ 0x555555556000, 0x555555557000, "r--p", exe, 0x71, PS_KIND_TEXT, exe },
		{ 0x555555557000, 0x555555558000, "r--p", exe, 0x100071, PS_KIND_TEXT, exe }, /* RELRO */
		{ 0x555555558000, 0x555555559000, "rw-p", exe, 0x100073, PS_KIND_DATA, exe },
		{ 0x555555559000, 0x55555555a000, "rw-p", "", 0x100073, PS_KIND_BSS, exe },
		{ 0x555555560000, 0x555555581000, "rw-p", "[heap]", 0x100073, PS_KIND_HEAP, exe },
		{ 0x7ffff7c00000, 0x7ffff7c10000, "rw-p", "", 0x100073, PS_KIND_ANON, "" },
		{ 0x7ffff7d00000, 0x7ffff7d28000, "r--p", lib, 0x71, PS_KIND_LIBTEXT, lib },
		{ 0x7ffff7d28000, 0x7ffff7ebd000, "r-xp", lib, 0x75, PS_KIND_LIBTEXT, lib },
		{ 0x7ffff7ebd000, 0x7ffff7f15000, "r--p", lib, 0x71, PS_KIND_LIBTEXT, lib },
		{ 0x7ffff7f15000, 0x7ffff7f19000, "r--p", lib, 0x100071, PS_KIND_LIBTEXT, lib },
		{ 0x7ffff7f19000, 0x7ffff7f1b000, "rw-p", lib, 0x100073, PS_KIND_LIBDATA, lib },
		{ 0x7ffff7f1b000, 0x7ffff7f28000, "rw-p", "", 0x100073, PS_KIND_LIBBSS, lib },
		{ 0x7ffff7f30000, 0x7ffff7f31000, "r--p", "/var/db/data.bin", 0x71, PS_KIND_FILE, "/var/db/data.bin" },
		{ 0x7ffff7f31000, 0x7ffff7f32000, "rw-p", "/var/db/data.bin", 0x73, PS_KIND_FILE, "/var/db/data.bin" },
		{ 0x7ffff7f32000, 0x7ffff7f33000, "rw-s", "/dev/shm/ring", 0xfb, PS_KIND_SHMEM, "/dev/shm/ring" },
		{ 0x7ffff7f33000, 0x7ffff7f34000, "r--s", "/dev/shm/ro", 0xf9, PS_KIND_SHMEM, "/dev/shm/ro" },
		{ 0x7ffff7f34000, 0x7ffff7f35000, "rw-s", "/SYSV00000000 (deleted)", 0xfb, PS_KIND_SHMEM, "/SYSV00000000 (deleted)" },
		{ 0x7ffff7f35000, 0x7ffff7f36000, "r--s", "/usr/share/fonts/a.ttf", 0xf1, PS_KIND_FILE, "/usr/share/fonts/a.ttf" },
		{ 0x7ffff7f36000, 0x7ffff7f37000, "rw-s", "/tmp/shared.db", 0xfb, PS_KIND_SHMEM, "/tmp/shared.db" },
		{ 0x7ffff7f37000, 0x7ffff7f38000, "rw-p", "", 0x100073, PS_KIND_ANON, "" },
		{ 0x7ffff7f38000, 0x7ffff7f39000, "---p", "", 0x100070, PS_KIND_ANON, "" }, /* guard */
		{ 0x7ffff7f39000, 0x7ffff7f3a000, "rw-p", "[anon:jemalloc]", 0x100073, PS_KIND_ANON, "" },
		{ 0x7ffff7fc1000, 0x7ffff7fc5000, "r--p", "[vvar]", 0x4400411, PS_KIND_VDSO, "" },
		{ 0x7ffff7fc5000, 0x7ffff7fc7000, "r-xp", "[vdso]", 0x8000075, PS_KIND_VDSO, "" },
		{ 0x7ffffffde000, 0x7ffffffff000, "rw-p", "[stack]", 0x100173, PS_KIND_STACK, "" },
		{ 0xffffffffff600000, 0xffffffffff601000, "--xp", "[vsyscall]", 0x4, PS_KIND_VDSO, "" },
	};
	size_t n = sizeof t / sizeof t[0];
	struct ps_vma v[sizeof t / sizeof t[0]];
	memset(v, 0, sizeof v);
	for (size_t i = 0; i < n; i++) {
		v[i].mm = 1, v[i].start = t[i].start, v[i].end = t[i].end;
		memcpy(v[i].perm, t[i].perm, 5);
		v[i].path = t[i].path, v[i].vmflags = t[i].vmflags;
		v[i].kind = PS_KIND_OTHER, v[i].unit = "junk";
	}
	ps_classify_vmas(&mm, v, n);
	for (size_t i = 0; i < n; i++) {
		CHECK(v[i].kind == t[i].kind, "vma %zu %s %s: kind %s, expected %s", i, t[i].perm,
		      t[i].path, ps_kind_name(v[i].kind), ps_kind_name(t[i].kind));
		CHECK(v[i].unit && strcmp(v[i].unit, t[i].unit) == 0, "vma %zu %s: unit \"%s\", expected \"%s\"",
		      i, t[i].path, v[i].unit ? v[i].unit : "(null)", t[i].unit);
	}

	/* A coredump source: no [heap]/[stack] names, found by brk and start_stack. */
	for (size_t i = 0; i < n; i++) {
		if (t[i].path[0] == '[' && strcmp(t[i].path, "[vdso]") && strcmp(t[i].path, "[vvar]") &&
		    strcmp(t[i].path, "[vsyscall]") && strncmp(t[i].path, "[anon:", 6))
			v[i].path = "";
		v[i].vmflags = PS_UNKNOWN;
	}
	ps_classify_vmas(&mm, v, n);
	for (size_t i = 0; i < n; i++)
		CHECK(v[i].kind == t[i].kind, "unnamed vma %zu %s: kind %s, expected %s", i, t[i].path,
		      ps_kind_name(v[i].kind), ps_kind_name(t[i].kind));

	/* A live source that could not read brk: no anonymous VMA becomes the heap. */
	struct ps_mm mm2 = mm;
	mm2.brk = PS_UNKNOWN;
	ps_classify_vmas(&mm2, v, n);
	CHECK(v[6].kind == PS_KIND_ANON, "unnamed heap with unknown brk: %s", ps_kind_name(v[6].kind));
	CHECK(v[7].kind == PS_KIND_ANON, "anon with unknown brk: %s", ps_kind_name(v[7].kind));
	CHECK(v[21].kind == PS_KIND_ANON, "anon with unknown brk: %s", ps_kind_name(v[21].kind));
	mm2 = mm;
	mm2.start_brk = PS_UNKNOWN, mm2.brk = PS_UNKNOWN, mm2.start_stack = PS_UNKNOWN;
	ps_classify_vmas(&mm2, v, n);
	CHECK(v[26].kind == PS_KIND_ANON, "unnamed stack with nothing known: %s", ps_kind_name(v[26].kind));

	/* Grows-down flag marks a stack; no exe: the executable is not special. */
	struct ps_vma g[2];
	memset(g, 0, sizeof g);
	g[0].start = 0x1000, g[0].end = 0x2000, memcpy(g[0].perm, "rw-p", 5), g[0].path = "";
	g[0].vmflags = 0x100173;
	g[1].start = 0x2000, g[1].end = 0x3000, memcpy(g[1].perm, "r--p", 5), g[1].path = "/x";
	g[1].vmflags = PS_UNKNOWN;
	struct ps_mm mm3 = { .exe = NULL, .start_brk = PS_UNKNOWN, .brk = PS_UNKNOWN,
			     .start_stack = PS_UNKNOWN };
	ps_classify_vmas(&mm3, g, 2);
	CHECK(g[0].kind == PS_KIND_STACK, "grows-down: %s", ps_kind_name(g[0].kind));
	CHECK(g[1].kind == PS_KIND_FILE && strcmp(g[1].unit, "/x") == 0, "file without exe: %s",
	      ps_kind_name(g[1].kind));

	/* Many file VMAs: the classifier stays fast (no quadratic scan). */
	size_t big = 60000;
	struct ps_vma *bv = calloc(big, sizeof *bv);
	char (*paths)[32] = malloc(big * sizeof *paths);
	for (size_t i = 0; i < big; i++) {
		snprintf(paths[i], sizeof paths[i], "/data/f%zu", i);
		bv[i].start = 0x10000000 + i * 0x2000, bv[i].end = bv[i].start + 0x1000;
		memcpy(bv[i].perm, i % 7 ? "r--p" : "r-xp", 5);
		bv[i].path = paths[i], bv[i].vmflags = PS_UNKNOWN;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ps_classify_vmas(&mm, bv, big);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(secs < 1.0, "classifying %zu file VMAs took %.2f s", big, secs);
	CHECK(bv[7].kind == PS_KIND_LIBTEXT && bv[8].kind == PS_KIND_FILE, "big: %s %s",
	      ps_kind_name(bv[7].kind), ps_kind_name(bv[8].kind));
	free(bv), free(paths);
}

/* ---- summaries ---------------------------------------------------------------------------- */

static void test_sum(void)
{
	struct ps_vma_sum s;
	memset(&s, 0, sizeof s);
	/* PSS with mapcounts 1, 2, 3 and 12: per page (4096 << 12) / mapcount, summed. */
	uint64_t mcs[] = { 1, 2, 3, 12 }, npages[] = { 1, 5, 7, 11 };
	uint64_t want = 0;
	for (int i = 0; i < 4; i++) {
		struct ps_map m = mk_map(1, 0x400000, 0x100, npages[i]);
		m.mapcount = mcs[i];
		ps_sum_add_map(&s, &m, 4096);
		want += npages[i] * ((4096ULL << 12) / mcs[i]);
	}
	/* 1*16777216 + 5*8388608 + 7*5592405 + 11*1398101 = 113246202 */
	CHECK_U64(want, 113246202);
	CHECK_U64(s.pss, 113246202);
	CHECK_U64(s.pss >> PS_PSS_SHIFT, 27647); /* 27647.998 bytes, rounded down */
	CHECK_U64(s.resident, 24), CHECK_U64(s.single, 1), CHECK_U64(s.shared, 23);
	CHECK_U64(s.anon, 24), CHECK_U64(s.file, 0), CHECK_U64(s.referenced, 24);
	CHECK_U64(s.dirty, 0), CHECK_U64(s.exec, 0), CHECK_U64(s.ro, 0);
	/* The sum written and read back keeps whole bytes. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		struct ps_writer *w = ps_writer_open_stream(fp, "mem");
		struct ps_header h = { .source = "test", .page_size = 4096 };
		struct ps_snapshot sn = { .uptime_ns = PS_UNKNOWN };
		struct ps_mm mm = { .id = 1, .kaddr = PS_UNKNOWN };
		struct ps_vma v = { .mm = 1, .start = 0x400000, .end = 0x440000, .perm = "rw-p",
				    .path = "", .unit = "", .kind = PS_KIND_ANON };
		s.mm = 1, s.start = 0x400000;
		ps_write_header(w, &h), ps_write_snapshot(w, &sn), ps_write_mm(w, &mm);
		ps_write_vma(w, &v), ps_write_sum(w, &s);
		ps_writer_close(w, false, NULL);
		fclose(fp);
		CHECK(strstr(buf, " pss=27647\n") != NULL, "sum line: %s", buf);
		free(buf);
	}
	/* 1.3's shmem_swap: written only when not 0 ("-" when unknown), read back as written;
	 * absent reads 0. */
	{
		uint64_t values[] = { 0, 5, PS_UNKNOWN };
		const char *want_line[] = { NULL, " pss=27647 shmem_swap=5\n", " pss=27647 shmem_swap=-\n" };
		for (int i = 0; i < 3; i++) {
			char *buf = NULL;
			size_t len = 0;
			FILE *fp = open_memstream(&buf, &len);
			struct ps_writer *w = ps_writer_open_stream(fp, "mem");
			struct ps_header h = { .source = "test", .page_size = 4096 };
			struct ps_snapshot sn = { .uptime_ns = PS_UNKNOWN };
			struct ps_mm mm = { .id = 1, .kaddr = PS_UNKNOWN };
			struct ps_vma v = { .mm = 1, .start = 0x400000, .end = 0x440000, .perm = "rw-s",
					    .path = "/dev/zero (deleted)", .unit = "", .kind = PS_KIND_SHMEM };
			s.shmem_swap = values[i];
			ps_write_header(w, &h), ps_write_snapshot(w, &sn), ps_write_mm(w, &mm);
			ps_write_vma(w, &v), ps_write_sum(w, &s);
			ps_write_end(w, true);
			ps_writer_close(w, false, NULL);
			fclose(fp);
			if (want_line[i])
				CHECK(strstr(buf, want_line[i]) != NULL, "sum line: %s", buf);
			else
				CHECK(strstr(buf, "shmem_swap") == NULL, "sum line: %s", buf);
			struct memreader mr;
			bool opened = mr_open(&mr, buf, len), seen = false;
			CHECK(opened, "read back: %s", mr.err ? mr.err : "");
			struct ps_record rec;
			while (opened && ps_read(mr.r, &rec) > 0)
				if (rec.type == PS_REC_SUM)
					CHECK_U64(rec.u.sum.shmem_swap, values[i]), seen = true;
			CHECK(seen, "no sum record read back");
			if (opened)
				mr_close(&mr);
			else
				free(mr.err), close(mr.fd);
			free(buf);
		}
		s.shmem_swap = 0;
	}

	/* Referenced: PTE accessed, or PG_referenced, or PG_young; nothing else. */
	memset(&s, 0, sizeof s);
	struct ps_map m = mk_map(1, 0, 1, 1);
	m.pte.set = 0, m.pflags = 0;
	ps_sum_add_map(&s, &m, 4096); /* not referenced, not anon: file */
	m.pte.set = 1u << PS_PTE_ACCESSED, m.npages = 2;
	ps_sum_add_map(&s, &m, 4096);
	m.pte.set = 0, m.pflags = PS_PF(PS_PF_REFERENCED), m.npages = 4;
	ps_sum_add_map(&s, &m, 4096);
	m.pflags = PS_PF(PS_PF_YOUNG), m.npages = 8;
	ps_sum_add_map(&s, &m, 4096);
	m.pflags = PS_PF(PS_PF_ACTIVE) | PS_PF(PS_PF_IDLE), m.npages = 16;
	ps_sum_add_map(&s, &m, 4096);
	m.pte.known = 0, m.pte.set = 0, m.pflags = PS_UNKNOWN, m.npages = 32; /* nothing known */
	ps_sum_add_map(&s, &m, 4096);
	CHECK_U64(s.referenced, 14), CHECK_U64(s.resident, 63);
	CHECK_U64(s.anon, 0), CHECK_U64(s.file, 31); /* unknown flags: neither anon nor file */
	CHECK_U64(s.ro, 31); /* unknown write bit is not read-only */
	CHECK_U64(s.exec, 0);

	/* Dirty: PTE dirty or PG_dirty; anon/file split; exec/ro from known PTE bits. */
	memset(&s, 0, sizeof s);
	m = mk_map(1, 0, 1, 3);
	m.pte.set = 1u << PS_PTE_DIRTY, m.pflags = PS_PF(PS_PF_ANON);
	ps_sum_add_map(&s, &m, 4096);
	m.pte.set = 1u << PS_PTE_EXEC, m.pflags = PS_PF(PS_PF_DIRTY) | PS_PF(PS_PF_MMAP), m.npages = 5;
	ps_sum_add_map(&s, &m, 4096);
	m.pte.set = 1u << PS_PTE_WRITE, m.pflags = PS_PF(PS_PF_LRU), m.npages = 7;
	ps_sum_add_map(&s, &m, 4096);
	CHECK_U64(s.dirty, 8), CHECK_U64(s.anon, 3), CHECK_U64(s.file, 12);
	CHECK_U64(s.exec, 5), CHECK_U64(s.ro, 8);

	/* Unknown mapcount: resident, but neither single nor shared, and no pss. */
	memset(&s, 0, sizeof s);
	m = mk_map(1, 0, 1, 6);
	m.mapcount = PS_UNKNOWN;
	ps_sum_add_map(&s, &m, 4096);
	CHECK_U64(s.resident, 6), CHECK_U64(s.single, 0), CHECK_U64(s.shared, 0), CHECK_U64(s.pss, 0);
	/* Excluded pages count as resident and excluded; 64K pages. */
	m.mapcount = 2, m.excluded = true, m.npages = 2;
	ps_sum_add_map(&s, &m, 65536);
	CHECK_U64(s.resident, 8), CHECK_U64(s.excluded, 2), CHECK_U64(s.shared, 2);
	CHECK_U64(s.pss, 2 * ((65536ULL << 12) / 2));
	/* The shared zero page is skipped, as smaps skips it (vm_normal_page() is NULL). */
	m.excluded = false, m.pflags = PS_PF(PS_PF_ZERO_PAGE), m.npages = 5, m.mapcount = 40;
	ps_sum_add_map(&s, &m, 4096);
	CHECK_U64(s.resident, 8), CHECK_U64(s.shared, 2), CHECK_U64(s.pss, 2 * ((65536ULL << 12) / 2));
	/* Swap and unknown ranges. */
	struct ps_swap sw = { .npages = 3, .kind = PS_SWAP };
	ps_sum_add_swap(&s, &sw);
	sw.kind = PS_SWAP_MIGRATION;
	ps_sum_add_swap(&s, &sw);
	struct ps_unknown_range u = { .npages = 9 };
	ps_sum_add_unknown(&s, &u);
	CHECK_U64(s.swapped, 3), CHECK_U64(s.unknown, 9);
}

/* ---- misc -------------------------------------------------------------------------------- */

static void test_misc(void)
{
	CHECK_STR(ps_kind_name(PS_KIND_LIBBSS), "libbss");
	CHECK_STR(ps_kind_name((enum ps_vma_kind)99), "other");
	CHECK(ps_kind_parse("shmem", 5) == PS_KIND_SHMEM, "kind parse");
	CHECK(ps_kind_parse("shmemx", 5) == PS_KIND_SHMEM, "kind parse uses len");
	CHECK(ps_kind_parse("shme", 4) == -1, "kind parse prefix");
	CHECK_STR(ps_page_flag_name(48), "young");
	CHECK(ps_page_flag_name(27) == NULL && ps_page_flag_name(64) == NULL, "flag names");
	char out[PS_PTE_NBITS + 1];
	ps_pte_format((struct ps_pte){ .set = 0xff, .known = 0x7f }, out);
	CHECK_STR(out, "wxuadse?");
	CHECK_STR(ps_swap_kind_name(PS_SWAP_DEVICE), "device");

	/* A very long reader name does not overflow the error buffer. */
	char name[2000];
	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = 0;
	int fd = memfd_create("t", 0);
	char *err = NULL;
	CHECK(write(fd, "junk\n", 5) == 5 && lseek(fd, 0, SEEK_SET) == 0, "memfd");
	CHECK(ps_reader_open_fd(fd, name, &err) == NULL && err != NULL, "long name");
	free(err);
	close(fd);
	fd = memfd_create("t", 0);
	static const char txt[] = BASE "zz\n";
	CHECK(write(fd, txt, sizeof txt - 1) == (ssize_t)sizeof txt - 1 && lseek(fd, 0, SEEK_SET) == 0, "memfd");
	struct ps_reader *r = ps_reader_open_fd(fd, name, &err);
	if (CHECK(r != NULL, "open")) {
		struct ps_record rec;
		while (ps_read(r, &rec) > 0)
			;
		CHECK(strstr(ps_reader_warnings(r), "'zz'") != NULL || strlen(ps_reader_warnings(r)) > 0,
		      "warning with a long name");
		ps_reader_close(r);
	}
	close(fd);
	CHECK(ps_reader_open("/nonexistent/x.rec", &err) == NULL && err &&
	      strstr(err, "/nonexistent/x.rec: cannot open"), "open missing file");
	free(err);

	/* A record longer than the line limit fails the writer instead of corrupting memory
	 * or writing a damaged line. */
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ps_writer *w = ps_writer_open_stream(fp, "mem");
	struct ps_header h = { .source = "test", .page_size = 4096 };
	struct ps_snapshot sn = { .uptime_ns = PS_UNKNOWN };
	ps_write_header(w, &h), ps_write_snapshot(w, &sn);
	char *huge = malloc(40000);
	memset(huge, ' ', 39999);
	huge[39999] = 0;
	struct ps_task t = { .pid = 1, .tgid = 1, .mm = PS_UNKNOWN, .comm = huge };
	CHECK(ps_write_task(w, &t) == -1, "over-long task line accepted");
	CHECK(strstr(ps_writer_error(w), "65535") != NULL, "error: %s", ps_writer_error(w));
	err = NULL;
	CHECK(ps_writer_close(w, false, &err) == -1 && err, "close after failure");
	free(err);
	fclose(fp);
	CHECK(strstr(buf, "task") == NULL, "a truncated task line was written");
	free(buf), free(huge);
	/* Headers and VMAs the reader would refuse are refused by the writer. */
	static const struct { uint32_t ps; const char *src; } hb[] = {
		{ 4000, "test" }, { 0, "test" }, { 256, "test" }, { 4096, "" }, { 4096, NULL },
	};
	for (size_t i = 0; i < sizeof hb / sizeof hb[0]; i++) {
		fp = open_memstream(&buf, &len);
		w = ps_writer_open_stream(fp, "mem");
		struct ps_header bh = { .source = hb[i].src, .page_size = hb[i].ps };
		CHECK(ps_write_header(w, &bh) == -1, "bad header %zu accepted", i);
		ps_writer_close(w, true, NULL);
		fclose(fp);
		CHECK_U64(len, 0);
		free(buf);
	}
	static const char *const perms[] = { "rwx", "rwxq", "Rw-p", "", "rw-pp" };
	for (size_t i = 0; i < sizeof perms / sizeof perms[0]; i++) {
		fp = open_memstream(&buf, &len);
		w = ps_writer_open_stream(fp, "mem");
		struct ps_vma bv = { .mm = 1, .start = 0x1000, .end = 0x2000, .path = "", .unit = "" };
		snprintf(bv.perm, sizeof bv.perm, "%s", perms[i]);
		ps_write_header(w, &h);
		CHECK(ps_write_vma(w, &bv) == (i == 4 ? 0 : -1), "vma perm \"%s\"", perms[i]);
		ps_writer_close(w, true, NULL);
		fclose(fp);
		free(buf);
	}
	fp = open_memstream(&buf, &len);
	w = ps_writer_open_stream(fp, "mem");
	struct ps_vma ev = { .mm = 1, .start = 0x2000, .end = 0x2000, .perm = "rw-p" };
	ps_write_header(w, &h);
	CHECK(ps_write_vma(w, &ev) == -1, "empty vma accepted");
	ps_writer_close(w, true, NULL);
	fclose(fp);
	free(buf);
	/* A trace record whose tag or key would break the syntax is refused. */
	buf = NULL;
	fp = open_memstream(&buf, &len);
	w = ps_writer_open_stream(fp, "mem");
	ps_write_header(w, &h);
	struct ps_kv kv = { .tag = "m", .n = 0 };
	CHECK(ps_write_trace(w, &kv) == -1, "trace tag m accepted");
	ps_writer_close(w, true, NULL);
	w = ps_writer_open_stream(fp, "mem");
	ps_write_header(w, &h);
	kv.tag = "ws", kv.n = 1, kv.kv[0].key = "a b", kv.kv[0].value = "1";
	CHECK(ps_write_trace(w, &kv) == -1, "trace key with a space accepted");
	ps_writer_close(w, true, NULL);
	fclose(fp);
	free(buf);
}

/* Large inputs: several MB, lines straddling every refill of the read buffer, near-limit
 * lines; read from a file (full reads) and from a pipe (short reads). */
static void test_large(void)
{
	size_t cap = 12u << 20, len = 0;
	char *t = malloc(cap);
	len += (size_t)sprintf(t + len, "%s", L_MAGIC L_HEADER L_SNAP L_TASK L_MM
				"vma mm=1 start=10000000 end=80000000 perm=rw-p kind=anon\n");
	uint64_t nm = 0, nw = 0;
	for (uint64_t i = 0; len < cap - 200000; i++) {
		if (i % 5000 == 1234) { /* a 65535-byte line now and then */
			len += (size_t)sprintf(t + len, "warn reason=");
			size_t body = 65535 - strlen("warn reason=") - (i % 3);
			memset(t + len, 'a' + (char)(i % 26), body);
			len += body;
			t[len++] = '\n';
			nw++;
		}
		len += (size_t)sprintf(t + len, "m 1 %llx %llx 1 %llu 2 w-ua---- 1020 12\n",
				       (unsigned long long)(0x10000000 + (i << 12)),
				       (unsigned long long)(0x100 + 2 * i), (unsigned long long)(1 + i % 7));
		nm++;
	}
	len += (size_t)sprintf(t + len, "end status=complete tasks=1 mms=1 vmas=1 runs=%llu pages=%llu\n",
			       (unsigned long long)nm, (unsigned long long)nm);
	struct readall ra = read_all(t, len);
	CHECK(ra.rc == 0, "large file: %s", ra.err);
	CHECK_U64(ra.nmap, nm);
	CHECK_U64(ra.nrec, 4 + nm + nw + 1);

	int p[2];
	if (!CHECK(pipe(p) == 0, "pipe"))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		for (size_t off = 0; off < len;) {
			ssize_t n = write(p[1], t + off, len - off < 4093 ? len - off : 4093);
			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	char *err = NULL;
	struct ps_reader *r = ps_reader_open_fd(p[0], "pipe", &err);
	uint64_t maps = 0, last_line = 0;
	int rc = -1;
	if (CHECK(r != NULL, "pipe open: %s", err ? err : "")) {
		struct ps_record rec;
		while ((rc = ps_read(r, &rec)) > 0) {
			maps += rec.type == PS_REC_MAP;
			last_line = rec.line;
		}
		CHECK(rc == 0, "pipe: %s", ps_reader_error(r));
		ps_reader_close(r);
	}
	free(err);
	close(p[0]);
	waitpid(pid, NULL, 0);
	CHECK_U64(maps, nm);
	CHECK_U64(last_line, 6 + nm + nw + 1);
	free(t);
}

/* Random m lines against a printf oracle: every digit count, both hex cases, leading zeros,
 * unknown fields and trailing fields, so the reader's fast and general parsers both run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
	return rng_state;
}

/* A random value of 1..max_digits hex digits (never all ones). */
static uint64_t rnd_hexval(int max_digits)
{
	int d = 1 + (int)(rnd() % (uint64_t)max_digits);
	uint64_t v = d == 16 ? rnd() : rnd() & ((UINT64_C(1) << (4 * d)) - 1);
	return v == PS_UNKNOWN ? v - 1 : v;
}

static int put_hex_field(char *o, uint64_t v)
{
	switch (rnd() % 4) {
	case 0: return sprintf(o, "%llX", (unsigned long long)v);
	case 1: { /* leading zeros, at most 16 digits in all */
		char t[20];
		int n = sprintf(t, "%llx", (unsigned long long)v);
		int z = n < 16 ? (int)(rnd() % (uint64_t)(17 - n)) : 0;
		return sprintf(o, "%0*llx", n + z, (unsigned long long)v);
	}
	default: return sprintf(o, "%llx", (unsigned long long)v);
	}
}

static void test_random_maps(void)
{
	enum { N = 50000 };
	struct ps_map *want = calloc(N, sizeof *want);
	size_t cap = (size_t)N * 200 + 4096, len = 0;
	char *t = malloc(cap);
	len += (size_t)sprintf(t + len, "%s", L_MAGIC L_HEADER L_SNAP L_MM
				"vma mm=1 start=1000 end=fffffffffffff000 perm=rw-p kind=anon\n");
	uint64_t vaddr = 0x1000;
	for (int i = 0; i < N; i++) {
		struct ps_map *m = &want[i];
		m->mm = 1;
		vaddr += (rnd() % 1000) << 12;
		m->vaddr = vaddr;
		m->npages = 1 + rnd() % (i % 10 == 0 ? 100000 : 8);
		vaddr += m->npages << 12;
		m->pfn = rnd() % 8 == 0 ? PS_UNKNOWN : rnd_hexval(12);
		m->mapcount = rnd() % 8 == 0 ? PS_UNKNOWN : rnd() % 3 ? rnd() % 100 : rnd() & 0xffffffff;
		m->refcount = rnd() % 8 == 0 ? PS_UNKNOWN : rnd() % 3 ? rnd() % 100 : rnd() & 0xffffffff;
		m->pte.known = (uint8_t)rnd(), m->pte.set = (uint8_t)rnd() & m->pte.known;
		m->pflags = rnd() % 8 == 0 ? PS_UNKNOWN : rnd_hexval(16);
		m->shift = 12 + (unsigned)(rnd() % 31);
		m->excluded = rnd() % 10 == 0;
		char *o = t + len;
		o += sprintf(o, "%c %llu ", m->excluded ? 'x' : 'm', (unsigned long long)m->mm);
		o += put_hex_field(o, m->vaddr);
		*o++ = ' ';
		o += m->pfn == PS_UNKNOWN ? sprintf(o, "-") : put_hex_field(o, m->pfn);
		o += sprintf(o, " %llu ", (unsigned long long)m->npages);
		o += m->mapcount == PS_UNKNOWN ? sprintf(o, "- ") : sprintf(o, "%llu ", (unsigned long long)m->mapcount);
		o += m->refcount == PS_UNKNOWN ? sprintf(o, "- ") : sprintf(o, "%llu ", (unsigned long long)m->refcount);
		ps_pte_format(m->pte, o);
		o += PS_PTE_NBITS;
		*o++ = ' ';
		o += m->pflags == PS_UNKNOWN ? sprintf(o, "-") : put_hex_field(o, m->pflags);
		o += sprintf(o, " %u", m->shift);
		if (m->excluded)
			o += sprintf(o, " %s", rnd() % 2 ? "missing" : "dumplevel");
		if (rnd() % 10 == 0)
			o += sprintf(o, " 77 future");
		*o++ = '\n';
		len = (size_t)(o - t);
	}
	struct memreader mr;
	bool opened = mr_open(&mr, t, len);
	if (CHECK(opened, "open: %s", mr.err)) {
		struct ps_record rec;
		int i = 0, rc, bad = 0;
		while ((rc = ps_read(mr.r, &rec)) > 0) {
			if (rec.type != PS_REC_MAP)
				continue;
			const struct ps_map *g = &rec.u.map, *w = &want[i];
			if (g->mm != w->mm || g->vaddr != w->vaddr || g->pfn != w->pfn ||
			    g->npages != w->npages || g->mapcount != w->mapcount ||
			    g->refcount != w->refcount || g->pte.set != w->pte.set ||
			    g->pte.known != w->pte.known || g->pflags != w->pflags ||
			    g->shift != w->shift || g->excluded != w->excluded) {
				if (bad++ < 5)
					CHECK(false, "random m line %d (file line %llu) read differently", i,
					      (unsigned long long)rec.line);
			}
			i++;
		}
		CHECK(rc == 0, "random m lines: %s", ps_reader_error(mr.r));
		CHECK(i == N && bad == 0, "random m lines: %d read, %d differ", i, bad);
	}
	mr_close(&mr);
	free(t), free(want);
}

/* The writer's page-run lines against a printf oracle: random values of every digit count
 * (decimal and hex, 0 and the largest known values), unknown fields, PTE bits that change
 * and repeat, x reasons. Gaps between the runs keep the writer from merging them. */
static void test_write_random_maps(void)
{
	enum { N = 20000 };
	static const uint64_t edges[] = { 0, 1, 9, 10, 15, 16, 99, 100, 255, 256, 999, 1000, 4095,
					  4096, 0xffffffff, 0x100000000, 9999999999999999999u,
					  10000000000000000000u, PS_UNKNOWN - 1 };
	const size_t nedges = sizeof edges / sizeof edges[0];
	char *buf = NULL, *want = malloc((size_t)N * 200);
	size_t len = 0, wlen = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ps_writer *w = ps_writer_open_stream(fp, "mem");
	ps_write_header(w, &(struct ps_header){ .source = "test", .page_size = 4096 });
	ps_writer_flush_lines(w);
	fflush(fp);
	size_t header_len = len;
	uint64_t vaddr = 0;
	for (int i = 0; i < N; i++) {
		uint64_t pick = rnd();
#define VALUE(unknown_ok) (pick = rnd(), (unknown_ok) && pick % 7 == 0 ? PS_UNKNOWN : \
			   pick % 3 == 0 ? edges[pick / 3 % nedges] : rnd_hexval(16))
		struct ps_map m = { .mm = VALUE(false), .vaddr = vaddr, .pfn = VALUE(true),
				    .npages = 1 + rnd() % 300, .mapcount = VALUE(true), .refcount = VALUE(true),
				    .pflags = VALUE(true), .shift = (unsigned)(rnd() % 64),
				    .excluded = rnd() % 10 == 0,
				    .reason = rnd() % 2 ? "missing" : "dumplevel" };
#undef VALUE
		if (rnd() % 4) /* runs of the same PTE bits, and changes */
			m.pte.known = (uint8_t)rnd(), m.pte.set = (uint8_t)rnd() & m.pte.known;
		else if (i)
			m.pte.known = 0xff, m.pte.set = 0x0d;
		vaddr += (m.npages + 1 + rnd() % 1000) * 4096; /* never continues the last run */
		if (vaddr >= PS_UNKNOWN - (UINT64_C(1) << 40))
			vaddr = 0;
		CHECK(ps_write_map(w, &m) == 0, "ps_write_map %d", i);
		char pte[PS_PTE_NBITS + 1], pfn[20], mc[24], rc[24], fl[20];
		ps_pte_format(m.pte, pte);
		snprintf(pfn, sizeof pfn, m.pfn == PS_UNKNOWN ? "-" : "%llx", (unsigned long long)m.pfn);
		snprintf(mc, sizeof mc, m.mapcount == PS_UNKNOWN ? "-" : "%llu", (unsigned long long)m.mapcount);
		snprintf(rc, sizeof rc, m.refcount == PS_UNKNOWN ? "-" : "%llu", (unsigned long long)m.refcount);
		snprintf(fl, sizeof fl, m.pflags == PS_UNKNOWN ? "-" : "%llx", (unsigned long long)m.pflags);
		wlen += (size_t)sprintf(want + wlen, "%c %llu %llx %s %llu %s %s %s %s %u%s%s\n",
					m.excluded ? 'x' : 'm', (unsigned long long)m.mm,
					(unsigned long long)m.vaddr, pfn, (unsigned long long)m.npages, mc,
					rc, pte, fl, m.shift, m.excluded ? " " : "",
					m.excluded ? m.reason : "");
	}
	char *err = NULL;
	CHECK(ps_writer_close(w, false, &err) == 0, "close: %s", err ? err : "");
	fclose(fp);
	const char *got = buf + header_len;
	size_t at = 0;
	while (at < wlen && at < len - header_len && got[at] == want[at])
		at++;
	if (!CHECK(len - header_len == wlen && at == wlen, "written m lines differ from printf's at byte %zu", at)) {
		const char *line = want + at;
		while (line > want && line[-1] != '\n')
			line--;
		fprintf(stderr, "  expected: %.*s", (int)strcspn(line, "\n") + 1, line);
		fprintf(stderr, "  written:  %.*s", (int)strcspn(got + (line - want), "\n") + 1,
			got + (line - want));
	}
	free(buf), free(want), free(err);
}

/* An output that exists and is not a regular file (/dev/null, a FIFO) is written in place:
 * renaming a temporary file over it would replace the device with a file. */
/* 1.2's counter records: written, read back with every field, refused outside a snapshot
 * or without their required keys. */
static void test_counters(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ps_writer *w = ps_writer_open_stream(fp, "mem");
	struct ps_header h = { .source = "test", .page_size = 4096 };
	struct ps_snapshot sn = { .uptime_ns = PS_UNKNOWN };
	ps_write_header(w, &h), ps_write_snapshot(w, &sn);
	struct ps_counter c1 = { .set = "meminfo", .name = "Active(anon)", .node = PS_UNKNOWN, .value = 5732 };
	struct ps_counter c2 = { .set = "buddyinfo", .name = "order10", .zone = "DMA32", .node = 1, .value = 22 };
	struct ps_counter c3 = { .set = "vmstat", .name = "nr_x", .node = PS_UNKNOWN, .value = PS_UNKNOWN };
	CHECK(ps_write_counter(w, &c1) == 0 && ps_write_counter(w, &c2) == 0 && ps_write_counter(w, &c3) == 0,
	      "write counters");
	ps_write_end(w, true);
	char *err = NULL;
	CHECK(ps_writer_close(w, false, &err) == 0, "close");
	fclose(fp);
	CHECK(strstr(buf, "\ncounter set=meminfo name=Active(anon) value=5732\n") != NULL, "meminfo line: %s", buf);
	CHECK(strstr(buf, "\ncounter set=buddyinfo node=1 zone=DMA32 name=order10 value=22\n") != NULL, "buddy line");
	CHECK(strstr(buf, "\ncounter set=vmstat name=nr_x value=-\n") != NULL, "unknown value");
	struct memreader m;
	CHECK(mr_open(&m, buf, len), "reopen");
	struct ps_record rec;
	int n = 0;
	while (m.r && ps_read(m.r, &rec) > 0) {
		if (rec.type != PS_REC_COUNTER)
			continue;
		const struct ps_counter *c = &rec.u.counter;
		if (n == 0)
			CHECK(!strcmp(c->set, "meminfo") && !strcmp(c->name, "Active(anon)") && c->value == 5732 &&
			      c->node == PS_UNKNOWN && !*c->zone, "counter 0 read back");
		if (n == 1)
			CHECK(!strcmp(c->zone, "DMA32") && c->node == 1 && c->value == 22, "counter 1 read back");
		if (n == 2)
			CHECK(c->value == PS_UNKNOWN, "counter 2 unknown");
		n++;
	}
	CHECK(n == 3, "3 counters read, got %d", n);
	mr_close(&m);
	free(buf);
	EXPECT_ERROR("pagesleuth-records 1.2\nheader source=test endian=little page_size=4096\n"
		     "counter set=meminfo name=MemTotal value=1\n", 3, "outside");
	EXPECT_ERROR("pagesleuth-records 1.2\nheader source=test endian=little page_size=4096\n"
		     "snapshot seq=0\ncounter set=meminfo value=1\n", 4, "missing set= or name=");
	EXPECT_ERROR("pagesleuth-records 1.2\nheader source=test endian=little page_size=4096\n"
		     "snapshot seq=0\ncounter set=meminfo name=MemTotal\n", 4, "missing value=");
	EXPECT_ERROR("pagesleuth-records 1.2\nheader source=test endian=little page_size=4096\n"
		     "snapshot seq=0\ncounter set=meminfo name=MemTotal value=x\n", 4, "not a decimal");
}

/* 1.2's f and owner records: written, read back, and the structural errors. */
static void test_frames(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ps_writer *w = ps_writer_open_stream(fp, "mem");
	struct ps_header h = { .source = "test", .page_size = 4096 };
	struct ps_snapshot sn = { .uptime_ns = PS_UNKNOWN };
	ps_write_header(w, &h), ps_write_snapshot(w, &sn);
	struct ps_owner o = { .id = 1, .kind = "slab", .name = "kmalloc-64" };
	struct ps_frames f1 = { .pfn = 0x100, .npages = 16, .cls = PS_FC_FREE, .owner = PS_UNKNOWN };
	struct ps_frames f2 = { .pfn = 0x110, .npages = 1, .cls = PS_FC_SLAB, .owner = 1 };
	CHECK(ps_write_owner(w, &o) == 0 && ps_write_frames(w, &f1) == 0 && ps_write_frames(w, &f2) == 0,
	      "write frames");
	ps_write_end(w, true);
	char *err = NULL;
	CHECK(ps_writer_close(w, false, &err) == 0, "close");
	fclose(fp);
	CHECK(strstr(buf, "\nowner id=1 kind=slab name=kmalloc-64\nf 100 16 free -\nf 110 1 slab 1\n") != NULL,
	      "frame lines: %s", buf);
	struct memreader m;
	CHECK(mr_open(&m, buf, len), "reopen");
	struct ps_record rec;
	int nf = 0, no = 0;
	while (m.r && ps_read(m.r, &rec) > 0) {
		if (rec.type == PS_REC_OWNER) {
			CHECK(rec.u.owner.id == 1 && !strcmp(rec.u.owner.name, "kmalloc-64"), "owner read back");
			no++;
		} else if (rec.type == PS_REC_FRAMES) {
			const struct ps_frames *f = &rec.u.frames;
			if (nf == 0)
				CHECK(f->pfn == 0x100 && f->npages == 16 && f->cls == PS_FC_FREE && f->owner == PS_UNKNOWN,
				      "f 0 read back");
			else
				CHECK(f->pfn == 0x110 && f->npages == 1 && f->cls == PS_FC_SLAB && f->owner == 1, "f 1");
			nf++;
		}
	}
	CHECK(nf == 2 && no == 1, "%d f, %d owner records", nf, no);
	mr_close(&m);
	free(buf);
	/* log records: any byte of the text survives but NUL */
	buf = NULL, len = 0;
	fp = open_memstream(&buf, &len);
	w = ps_writer_open_stream(fp, "mem");
	ps_write_header(w, &h), ps_write_snapshot(w, &sn);
	static const char text[] = "a=b 100%\n second line\x01\0z";
	struct ps_log lg = { .seq = 7, .ts_nsec = 9845897000, .level = 0, .facility = 0, .text = text };
	CHECK(ps_write_log(w, &lg, sizeof text - 1) == 0, "write log");
	ps_write_end(w, true);
	CHECK(ps_writer_close(w, false, &err) == 0, "close");
	fclose(fp);
	CHECK(strstr(buf, "\nlog seq=7 ts=9845897000 level=0 facility=0 text=a%3Db%20100%25%0A%20second%20line%01?z\n") != NULL,
	      "log line: %s", buf);
	CHECK(mr_open(&m, buf, len), "reopen");
	int nl = 0;
	while (m.r && ps_read(m.r, &rec) > 0)
		if (rec.type == PS_REC_LOG) {
			CHECK(!strcmp(rec.u.log.text, "a=b 100%\n second line\x01?z") && rec.u.log.seq == 7 &&
			      rec.u.log.level == 0, "log read back: %s", rec.u.log.text);
			nl++;
		}
	CHECK(nl == 1, "one log record");
	mr_close(&m);
	free(buf);
#define HDR12 "pagesleuth-records 1.2\nheader source=test endian=little page_size=4096\n"
	EXPECT_ERROR(HDR12 "f 0 1 free -\n", 3, "outside a snapshot");
	EXPECT_ERROR(HDR12 "snapshot seq=0\nf 0 1 bogus -\n", 4, "unknown frame class");
	EXPECT_ERROR(HDR12 "snapshot seq=0\nf 0 0 free -\n", 4, "out of range");
	EXPECT_ERROR(HDR12 "snapshot seq=0\nf fffffffffffff 2 free -\n", 4, "out of range");
	EXPECT_ERROR(HDR12 "snapshot seq=0\nf 10 4 free -\nf 12 1 slab -\n", 5, "overlaps");
	EXPECT_ERROR(HDR12 "snapshot seq=0\nf 10 4 free\n", 4, "field 4");
	EXPECT_ERROR(HDR12 "snapshot seq=0\nowner kind=slab name=x\n", 4, "missing id=");
	expect_ok_at(__FILE__, __LINE__, HDR12 "snapshot seq=0\nf 10 4 free -\nf 14 1 slab 7\nend status=complete\n");
#undef HDR12
}

static void test_special_output(void)
{
	char fifo[300], buf[256];
	snprintf(fifo, sizeof fifo, "%s/out.fifo", tmpdir);
	if (!CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s: %s", fifo, strerror(errno)))
		return;
	int rfd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open does not block */
	char *err = NULL;
	struct ps_writer *w = ps_writer_open(fifo, &err);
	CHECK(w != NULL, "ps_writer_open on a FIFO: %s", err ? err : "?");
	if (w) {
		ps_write_header(w, &(struct ps_header){ .source = "test", .endian = "little",
							 .page_size = 4096 });
		CHECK(ps_writer_close(w, false, &err) == 0, "close: %s", err ? err : "?");
	}
	struct stat st;
	CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "%s is still a FIFO", fifo);
	ssize_t n = rfd >= 0 ? read(rfd, buf, sizeof buf - 1) : -1;
	CHECK(n > 0 && strncmp(buf, PS_MAGIC, strlen(PS_MAGIC)) == 0, "the records went through the FIFO");
	if (rfd >= 0)
		close(rfd);
	free(err);
	unlink(fifo);
}

/* ---- the record tee: page runs counted, warn records reported, bytes passed unchanged ----- */

struct tee_seen {
	unsigned n;
	char text[5][1300];
};

static void tee_seen_warn(void *arg, const char *text)
{
	struct tee_seen *s = arg;
	if (s->n < 5)
		snprintf(s->text[s->n], sizeof s->text[0], "%s", text);
	s->n++;
}

static void test_record_tee(void)
{
	/* A warn as the stream's first line, runs of each kind, lines that only look like a
	 * warn ("warning", "warn " inside a line), a warn with escapes and a control byte, one
	 * without mm or at, a warn longer than the tee keeps (its reason is cut, never overrun),
	 * and one the stream ends in the middle of (a line never ended is not reported). Every
	 * chunking of the writes finds the same four. */
	char longreason[3000];
	memset(longreason, 'r', sizeof longreason - 1);
	longreason[sizeof longreason - 1] = '\0';
	char text[8192];
	int len = snprintf(text, sizeof text,
			   "warn reason=first\nmm id=1 x=2\nm 1000 3 a\nx 2000 1\nw 3000 1 s\nu 4000 2\n"
			   "warning reason=not%%20one\nm 1 warn reason=nor%%20this\n"
			   "warn mm=3 at=7f00 reason=cannot%%20read%%1b%%5b\nvma 1\n"
			   "warn mm=- at=- reason=dump%%20cut\nwarn mm=9 reason=%s\nm 5 1 a\n"
			   "warn reason=unended",
			   longreason);
	for (size_t chunk = 1; chunk <= 8192; chunk = chunk < 8 ? chunk + 1 : chunk * 5) {
		char *got = NULL;
		size_t got_len = 0;
		FILE *mem = open_memstream(&got, &got_len);
		struct tee_seen seen = { 0 };
		struct ps_record_tee t = { .out = mem, .warn = tee_seen_warn, .arg = &seen };
		FILE *fp = ps_record_tee_open(&t);
		CHECK(fp != NULL, "tee opened");
		if (!fp || !mem)
			return;
		for (int off = 0; off < len; off += (int)chunk) {
			size_t n = (size_t)(len - off) < chunk ? (size_t)(len - off) : chunk;
			fwrite(text + off, 1, n, fp);
			fflush(fp); /* each chunk is one write of the tee */
		}
		fclose(fp);
		fclose(mem);
		CHECK(got_len == (size_t)len && memcmp(got, text, (size_t)len) == 0,
		      "chunk %zu: the bytes passed unchanged", chunk);
		CHECK_U64(t.warns, 4);
		CHECK_U64(seen.n, 4);
		CHECK_STR(seen.text[0], "first");
		CHECK_STR(seen.text[1], "mm 3 at 0x7f00: cannot read?[");
		CHECK_STR(seen.text[2], "dump cut");
		CHECK(strncmp(seen.text[3], "mm 9: rrrr", 10) == 0 && strlen(seen.text[3]) < 1024 &&
			      strspn(seen.text[3] + 6, "r") == strlen(seen.text[3] + 6),
		      "chunk %zu: the long warn cut to the kept start (%zu chars)", chunk,
		      strlen(seen.text[3]));
		free(got);
	}
}

int main(void)
{
	test_record_tee();
	test_counters();
	test_frames();
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	umask(027);
	test_round_trip();
	test_spec_example();
	test_merging();
	test_not_records();
	test_versions();
	test_lexical_errors();
	test_hot_field_errors();
	test_structure_errors();
	test_classify();
	test_sum();
	test_misc();
	test_large();
	test_random_maps();
	test_write_random_maps();
	test_special_output();
	rmdir(tmpdir);
	for (size_t i = 0; i < cat_n; i++)
		free(cat_pool[i]);
	return check_summary("test_records");
}
