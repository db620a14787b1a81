/* record_write.c - the record writer: buffered, atomic (temporary file renamed into place
 * on success), merging consecutive page runs, counting what the end line reports. */
#include "records.h"
#include "atomic_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WBUF_SIZE (1u << 20)
/* The line buffer holds PS_MAX_LINE bytes plus the newline; a record that would be longer
 * is not written (it fails the writer) rather than truncated into a damaged line. */
#define LINE_CAP (PS_MAX_LINE + 1)
/* Whole lines are gathered into one buffer and handed to the stream this many bytes at a
 * time: a stream call per line (fwrite_unlocked) was a fifth of what writing a page run
 * cost. */
#define OUT_CHUNK (64u << 10)

struct ps_writer {
	FILE *fp;
	bool own_fp;           /* writing through `file` (atomic) rather than a caller's stream */
	struct atomic_file file;
	char *path;
	char *buf;             /* whole lines not yet given to fp, then the line being built */
	size_t used;           /* bytes of whole lines in buf */
	char *line;            /* buf + used: one line being built (LINE_CAP bytes of room) */
	size_t len;
	char err[512];
	bool failed;
	uint32_t page_size;
	/* The pending run, merged with what continues it and written when something does not:
	 * a page run (m/x) or a swap run (w), never both. */
	bool have_run, have_swap_run;
	struct ps_map run;
	struct ps_swap swap_run;
	const char *run_reason;
	struct ps_pte pte_last;               /* the PTE bits pte_text spells ("" before any) */
	char pte_text[PS_PTE_NBITS + 1];
	uint64_t tasks, mms, vmas, runs, pages;
};

static int wfail(struct ps_writer *w, const char *fmt, ...)
{
	if (!w->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof w->err, fmt, ap);
		va_end(ap);
		w->failed = true;
	}
	return -1;
}

const char *ps_writer_error(const struct ps_writer *w) { return w->err; }

static struct ps_writer *writer_new(void)
{
	struct ps_writer *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->buf = malloc(OUT_CHUNK + LINE_CAP);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	w->line = w->buf;
	return w;
}

struct ps_writer *ps_writer_open(const char *path, char **err)
{
	if (strcmp(path, "-") == 0)
		return ps_writer_open_stream(stdout, "<stdout>");
	struct ps_writer *w = writer_new();
	if (!w || !(w->path = strdup(path))) {
		if (w)
			free(w->buf), free(w);
		*err = strdup("out of memory");
		return NULL;
	}
	if (atomic_open(&w->file, path, err) < 0) {
		free(w->path), free(w->buf), free(w);
		return NULL;
	}
	w->fp = w->file.fp;
	w->own_fp = true;
	return w;
}

struct ps_writer *ps_writer_open_stream(FILE *fp, const char *name)
{
	struct ps_writer *w = writer_new();
	if (!w)
		return NULL;
	w->fp = fp;
	w->path = strdup(name);
	return w;
}

struct ps_writer *ps_writer_open_part(FILE *fp, const struct ps_writer *whole)
{
	struct ps_writer *w = ps_writer_open_stream(fp, whole->path);
	if (w)
		w->page_size = whole->page_size;
	return w;
}

void ps_writer_counts(const struct ps_writer *w, struct ps_writer_counts *c)
{
	*c = (struct ps_writer_counts){ .tasks = w->tasks, .mms = w->mms, .vmas = w->vmas,
					.runs = w->runs, .pages = w->pages };
}

int ps_writer_flush_lines(struct ps_writer *w)
{
	size_t n = w->used;
	w->used = 0;
	w->line = w->buf;
	if (n && fwrite_unlocked(w->buf, 1, n, w->fp) != n)
		return wfail(w, "%s: write failed: %s", w->path, strerror(errno));
	return w->failed ? -1 : 0;
}

int ps_writer_append(struct ps_writer *w, const void *data, size_t len,
		     const struct ps_writer_counts *c)
{
	if (ps_write_flush_run(w) < 0 || ps_writer_flush_lines(w) < 0)
		return -1;
	/* A stretch longer than the stream's buffer goes through to its write without a copy
	 * (glibc writes whole buffers' worth straight from DATA). */
	if (len && fwrite_unlocked(data, 1, len, w->fp) != len)
		return wfail(w, "%s: write failed: %s", w->path, strerror(errno));
	if (c) {
		w->tasks += c->tasks, w->mms += c->mms, w->vmas += c->vmas;
		w->runs += c->runs, w->pages += c->pages;
	}
	return 0;
}

int ps_writer_close(struct ps_writer *w, bool abandon, char **err)
{
	int rc = 0;
	if (!abandon)
		ps_write_flush_run(w);
	ps_writer_flush_lines(w); /* whole lines reach the stream even when abandoned, as before */
	if (w->own_fp) {
		char *cerr = NULL;
		if (atomic_close(&w->file, !abandon && !w->failed, &cerr) < 0)
			wfail(w, "%s", cerr ? cerr : "close failed");
		free(cerr);
	} else if (fflush(w->fp) != 0) {
		wfail(w, "%s: write failed: %s", w->path, strerror(errno));
	}
	if (w->failed && !abandon) {
		rc = -1;
		if (err)
			*err = strdup(w->err);
	}
	free(w->path), free(w->buf), free(w);
	return rc;
}

/* ---- line building: hand-rolled formatting, this is the hot path of every source -------- */

/* w->len counts every byte of the record, even past LINE_CAP; only what fits is stored.
 * end_line() refuses a record whose length went past the limit. */
static inline void put_c(struct ps_writer *w, char c)
{
	if (w->len < LINE_CAP)
		w->line[w->len] = c;
	w->len++;
}

static void put_s(struct ps_writer *w, const char *s)
{
	size_t n = strlen(s);
	if (w->len < LINE_CAP)
		memcpy(w->line + w->len, s, n < LINE_CAP - w->len ? n : LINE_CAP - w->len);
	w->len += n;
}

static void put_hex(struct ps_writer *w, uint64_t v)
{
	char tmp[16];
	int n = 0;
	do
		tmp[n++] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	while (n)
		put_c(w, tmp[--n]);
}

static void put_dec(struct ps_writer *w, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		put_c(w, tmp[--n]);
}

static void put_hex_or_unknown(struct ps_writer *w, uint64_t v)
{
	if (v == PS_UNKNOWN)
		put_c(w, '-');
	else
		put_hex(w, v);
}

static void put_dec_or_unknown(struct ps_writer *w, uint64_t v)
{
	if (v == PS_UNKNOWN)
		put_c(w, '-');
	else
		put_dec(w, v);
}

/* Percent-encode a string value; "" and NULL become "-". Bounded by the line limit. */
static void put_str(struct ps_writer *w, const char *s)
{
	if (!s || !*s) {
		put_c(w, '-');
		return;
	}
	if (strcmp(s, "-") == 0) {
		put_s(w, "%2D");
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p && w->len <= PS_MAX_LINE; p++) {
		if (*p <= 0x20 || *p >= 0x7f || *p == '%' || *p == '=') {
			put_c(w, '%');
			put_c(w, "0123456789ABCDEF"[*p >> 4]);
			put_c(w, "0123456789ABCDEF"[*p & 15]);
		} else {
			put_c(w, (char)*p);
		}
	}
}

static void key(struct ps_writer *w, const char *k)
{
	put_c(w, ' ');
	put_s(w, k);
	put_c(w, '=');
}

static void kv_dec(struct ps_writer *w, const char *k, uint64_t v) { key(w, k), put_dec_or_unknown(w, v); }
static void kv_hex(struct ps_writer *w, const char *k, uint64_t v) { key(w, k), put_hex_or_unknown(w, v); }
static void kv_str(struct ps_writer *w, const char *k, const char *v) { key(w, k), put_str(w, v); }

static int end_line(struct ps_writer *w)
{
	if (w->failed)
		return -1;
	if (w->len > PS_MAX_LINE) {
		size_t len = w->len, tl = 0;
		while (tl < 16 && w->line[tl] != ' ')
			tl++;
		w->len = 0;
		return wfail(w, "%s: a %.*s record of %zu bytes is longer than %u bytes", w->path,
			     (int)tl, w->line, len, PS_MAX_LINE);
	}
	put_c(w, '\n');
	w->used += w->len;
	w->line = w->buf + w->used;
	w->len = 0;
	/* Unlocked: a writer belongs to one thread, and the lock is a tenth of a page run's cost. */
	if (w->used >= OUT_CHUNK)
		return ps_writer_flush_lines(w);
	return 0;
}

static int begin(struct ps_writer *w, const char *tag)
{
	if (w->failed)
		return -1;
	if ((w->have_run || w->have_swap_run) && ps_write_flush_run(w) < 0)
		return -1;
	w->len = 0;
	put_s(w, tag);
	return 0;
}

/* ---- records ----------------------------------------------------------------------------- */

int ps_write_header(struct ps_writer *w, const struct ps_header *h)
{
	/* What the reader would refuse is refused here, before a whole file is written. */
	if (!w->failed && (h->page_size < 512 || h->page_size > (1u << 30) ||
			   (h->page_size & (h->page_size - 1)) || !h->source || !*h->source))
		return wfail(w, "%s: header needs source= and a power-of-two page_size (got %u)",
			     w->path, h->page_size);
	w->page_size = h->page_size;
	if (begin(w, PS_MAGIC " ") < 0)
		return -1;
	put_dec(w, PS_FORMAT_MAJOR), put_c(w, '.'), put_dec(w, PS_FORMAT_MINOR);
	if (end_line(w) < 0 || begin(w, "header") < 0)
		return -1;
	kv_str(w, "source", h->source);
	kv_str(w, "arch", h->arch);
	kv_str(w, "endian", h->big_endian ? "big" : "little");
	kv_dec(w, "page_size", h->page_size);
	kv_str(w, "release", h->release);
	kv_str(w, "dump", h->dump);
	kv_str(w, "dump_id", h->dump_id);
	kv_str(w, "time", h->time);
	kv_str(w, "excluded", h->excluded ? h->excluded : "none");
	kv_str(w, "tool", h->tool);
	kv_str(w, "pids", h->pids ? h->pids : "all");
	if (h->tags && *h->tags)
		kv_str(w, "tags", h->tags);
	for (size_t i = 0; i < h->n_extra && i < PS_HEADER_EXTRA; i++)
		kv_str(w, h->extra[i].key, h->extra[i].value);
	return end_line(w);
}

int ps_write_snapshot(struct ps_writer *w, const struct ps_snapshot *s)
{
	if (begin(w, "snapshot") < 0)
		return -1;
	w->tasks = w->mms = w->vmas = w->runs = w->pages = 0;
	kv_dec(w, "seq", s->seq);
	kv_str(w, "time", s->time);
	if (s->uptime_ns != PS_UNKNOWN)
		kv_dec(w, "uptime_ns", s->uptime_ns);
	return end_line(w);
}

int ps_write_task(struct ps_writer *w, const struct ps_task *t)
{
	if (begin(w, "task") < 0)
		return -1;
	w->tasks++;
	kv_dec(w, "pid", t->pid);
	kv_dec(w, "tgid", t->tgid);
	kv_dec(w, "ppid", t->ppid);
	kv_dec(w, "mm", t->mm);
	kv_str(w, "comm", t->comm);
	char st[2] = { t->state ? t->state : '?', 0 };
	kv_str(w, "state", st);
	kv_dec(w, "minflt", t->minflt);
	kv_dec(w, "majflt", t->majflt);
	kv_dec(w, "utime", t->utime);
	kv_dec(w, "stime", t->stime);
	kv_dec(w, "start", t->start);
	kv_dec(w, "rss_file", t->rss_file);
	kv_dec(w, "rss_anon", t->rss_anon);
	kv_dec(w, "rss_shmem", t->rss_shmem);
	kv_dec(w, "rss_swap", t->rss_swap);
	if (t->exiting)
		kv_dec(w, "exiting", 1);
	return end_line(w);
}

int ps_write_mm(struct ps_writer *w, const struct ps_mm *mm)
{
	if (begin(w, "mm") < 0)
		return -1;
	w->mms++;
	kv_dec(w, "id", mm->id);
	kv_dec(w, "tgid", mm->tgid);
	kv_str(w, "comm", mm->comm);
	kv_hex(w, "kaddr", mm->kaddr);
	kv_str(w, "exe", mm->exe);
	kv_hex(w, "start_brk", mm->start_brk);
	kv_hex(w, "brk", mm->brk);
	kv_hex(w, "start_stack", mm->start_stack);
	kv_dec(w, "total_vm", mm->total_vm);
	kv_dec(w, "map_count", mm->map_count);
	return end_line(w);
}

int ps_write_vma(struct ps_writer *w, const struct ps_vma *v)
{
	if (!w->failed && (!strchr("r-", v->perm[0]) || !strchr("w-", v->perm[1]) ||
			   !strchr("x-", v->perm[2]) || !strchr("ps", v->perm[3]) || !v->perm[0] ||
			   !v->perm[1] || !v->perm[2] || !v->perm[3] || v->start >= v->end))
		return wfail(w, "%s: vma %llx-%llx: bad range or perm '%.4s'", w->path,
			     (unsigned long long)v->start, (unsigned long long)v->end, v->perm);
	if (begin(w, "vma") < 0)
		return -1;
	w->vmas++;
	kv_dec(w, "mm", v->mm);
	kv_hex(w, "start", v->start);
	kv_hex(w, "end", v->end);
	char perm[5];
	memcpy(perm, v->perm, 4);
	perm[4] = 0;
	kv_str(w, "perm", perm);
	kv_hex(w, "vmflags", v->vmflags);
	kv_hex(w, "pgoff", v->pgoff);
	key(w, "dev");
	char dev[24];
	snprintf(dev, sizeof dev, "%02x:%02x", v->dev_major, v->dev_minor);
	put_s(w, dev);
	kv_dec(w, "inode", v->inode);
	kv_str(w, "path", v->path);
	kv_str(w, "kind", ps_kind_name(v->kind));
	kv_str(w, "unit", v->unit);
	return end_line(w);
}

/* x reasons the format defines; anything else is written as dumplevel. The result is a
 * static string, so a pending run never points at the caller's memory. */
static const char *x_reason(const char *reason)
{
	return reason && strcmp(reason, "missing") == 0 ? "missing" : "dumplevel";
}

/* Page runs are most of every file (a line per page where frames are scattered), so their
 * line is built without the per-byte bounds checks of put_c: it is short (at most
 * RUN_LINE_MAX bytes), far below LINE_CAP. Same bytes as the key/put_* path would give. */
#define RUN_LINE_MAX (2 + 20 + 1 + 16 + 1 + 16 + 1 + 20 + 1 + 20 + 1 + 20 + 1 + PS_PTE_NBITS + 1 + 16 + 1 + 3 + 1 + 16 + 1)
_Static_assert(RUN_LINE_MAX < LINE_CAP, "a page run line fits the line buffer");

/* "000102...ff" and "0001...99": two digits per table look-up. */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static char *fast_hex(char *p, uint64_t v)
{
	unsigned digits = v ? (67u - (unsigned)__builtin_clzll(v)) / 4 : 1;
	char *q = p + digits;
	for (; v >= 256; v >>= 8)
		q -= 2, memcpy(q, hex_pairs + (v & 255) * 2, 2);
	if (v >= 16)
		q -= 2, memcpy(q, hex_pairs + v * 2, 2);
	else
		*--q = "0123456789abcdef"[v];
	return p + digits;
}

static char *fast_dec(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	char tmp[20], *q = tmp + sizeof tmp;
	for (; v >= 100; v /= 100)
		q -= 2, memcpy(q, dec_pairs + (v % 100) * 2, 2);
	if (v >= 10)
		q -= 2, memcpy(q, dec_pairs + v * 2, 2);
	else
		*--q = (char)('0' + v);
	size_t n = (size_t)(tmp + sizeof tmp - q);
	memcpy(p, q, n);
	return p + n;
}

static char *fast_hex_or_unknown(char *p, uint64_t v)
{
	if (v == PS_UNKNOWN) {
		*p = '-';
		return p + 1;
	}
	return fast_hex(p, v);
}

static char *fast_dec_or_unknown(char *p, uint64_t v)
{
	if (v == PS_UNKNOWN) {
		*p = '-';
		return p + 1;
	}
	return fast_dec(p, v);
}

static int write_run(struct ps_writer *w, const struct ps_map *m)
{
	char *p = w->line;
	*p++ = m->excluded ? 'x' : 'm';
	*p++ = ' ', p = fast_dec(p, m->mm);
	*p++ = ' ', p = fast_hex(p, m->vaddr);
	*p++ = ' ', p = fast_hex_or_unknown(p, m->pfn);
	*p++ = ' ', p = fast_dec(p, m->npages);
	*p++ = ' ', p = fast_dec_or_unknown(p, m->mapcount);
	*p++ = ' ', p = fast_dec_or_unknown(p, m->refcount);
	*p++ = ' ';
	if (!w->pte_text[0] || m->pte.set != w->pte_last.set || m->pte.known != w->pte_last.known) {
		ps_pte_format(m->pte, w->pte_text); /* the same bits run after run: format once */
		w->pte_last = m->pte;
	}
	memcpy(p, w->pte_text, PS_PTE_NBITS);
	p += PS_PTE_NBITS;
	*p++ = ' ', p = fast_hex_or_unknown(p, m->pflags);
	*p++ = ' ', p = fast_dec(p, m->shift);
	if (m->excluded) {
		const char *reason = x_reason(m->reason); /* a static word, no escaping needed */
		size_t len = strlen(reason);
		*p++ = ' ';
		memcpy(p, reason, len);
		p += len;
	}
	w->len = (size_t)(p - w->line);
	w->runs++;
	w->pages += m->npages;
	return end_line(w);
}

static int write_swap_run(struct ps_writer *w, const struct ps_swap *s);

int ps_write_flush_run(struct ps_writer *w)
{
	if (w->have_swap_run) {
		w->have_swap_run = false;
		return write_swap_run(w, &w->swap_run);
	}
	if (!w->have_run)
		return w->failed ? -1 : 0;
	w->have_run = false;
	return write_run(w, &w->run);
}

static bool continues(const struct ps_map *a, const struct ps_map *b, uint32_t page_size)
{
	return a->mm == b->mm && a->excluded == b->excluded &&
	       b->vaddr == a->vaddr + a->npages * page_size &&
	       /* Frames advance by one, except where none are known or all are the zero page. */
	       (a->pfn == PS_UNKNOWN ? b->pfn == PS_UNKNOWN :
		ps_map_zero_page(a) ? b->pfn == a->pfn : b->pfn == a->pfn + a->npages) &&
	       a->mapcount == b->mapcount && a->refcount == b->refcount &&
	       a->pte.set == b->pte.set && a->pte.known == b->pte.known &&
	       a->pflags == b->pflags && a->shift == b->shift &&
	       (!a->excluded || a->reason == x_reason(b->reason));
}

int ps_write_map(struct ps_writer *w, const struct ps_map *m)
{
	if (w->failed)
		return -1;
	if (!w->page_size)
		return wfail(w, "%s: page run written before the header", w->path);
	if (w->have_run && continues(&w->run, m, w->page_size)) {
		w->run.npages += m->npages;
		return 0;
	}
	if (ps_write_flush_run(w) < 0)
		return -1;
	w->run = *m;
	if (m->excluded) /* the caller's reason string may not outlive the call */
		w->run.reason = x_reason(m->reason);
	w->have_run = true;
	return 0;
}

/* Consecutive swap entries of one device and kind with consecutive offsets are one run. */
static bool swap_continues(const struct ps_swap *a, const struct ps_swap *b, uint32_t page_size)
{
	return a->mm == b->mm && a->type == b->type && a->kind == b->kind &&
	       b->vaddr == a->vaddr + a->npages * page_size &&
	       (a->offset == PS_UNKNOWN ? b->offset == PS_UNKNOWN : b->offset == a->offset + a->npages);
}

int ps_write_swap(struct ps_writer *w, const struct ps_swap *s)
{
	if (w->failed)
		return -1;
	if (w->have_swap_run && swap_continues(&w->swap_run, s, w->page_size)) {
		w->swap_run.npages += s->npages;
		return 0;
	}
	if (ps_write_flush_run(w) < 0)
		return -1;
	w->swap_run = *s;
	w->have_swap_run = true;
	return 0;
}

static int write_swap_run(struct ps_writer *w, const struct ps_swap *s)
{
	w->len = 0;
	put_c(w, 'w');
	w->runs++;
	put_c(w, ' '), put_dec(w, s->mm);
	put_c(w, ' '), put_hex(w, s->vaddr);
	put_c(w, ' '), put_dec(w, s->npages);
	put_c(w, ' '), put_dec_or_unknown(w, s->type);
	put_c(w, ' '), put_hex_or_unknown(w, s->offset);
	put_c(w, ' '), put_s(w, ps_swap_kind_name(s->kind));
	return end_line(w);
}

int ps_write_unknown(struct ps_writer *w, const struct ps_unknown_range *u)
{
	if (begin(w, "u") < 0)
		return -1;
	w->runs++;
	put_c(w, ' '), put_dec(w, u->mm);
	put_c(w, ' '), put_hex(w, u->vaddr);
	put_c(w, ' '), put_dec(w, u->npages);
	put_c(w, ' '), put_str(w, u->reason);
	return end_line(w);
}

int ps_write_sum(struct ps_writer *w, const struct ps_vma_sum *s)
{
	if (begin(w, "sum") < 0)
		return -1;
	kv_dec(w, "mm", s->mm);
	kv_hex(w, "start", s->start);
	kv_dec(w, "resident", s->resident);
	kv_dec(w, "exec", s->exec);
	kv_dec(w, "ro", s->ro);
	kv_dec(w, "single", s->single);
	kv_dec(w, "shared", s->shared);
	kv_dec(w, "referenced", s->referenced);
	kv_dec(w, "dirty", s->dirty);
	kv_dec(w, "swapped", s->swapped);
	kv_dec(w, "anon", s->anon);
	kv_dec(w, "file", s->file);
	kv_dec(w, "excluded", s->excluded);
	kv_dec(w, "unknown", s->unknown);
	kv_dec(w, "pss", s->pss >> PS_PSS_SHIFT);
	if (s->shmem_swap) /* 1.3, optional: only sources that measure it, and only when there is some */
		kv_dec(w, "shmem_swap", s->shmem_swap);
	return end_line(w);
}

int ps_write_warn(struct ps_writer *w, const struct ps_warn *wr)
{
	if (begin(w, "warn") < 0)
		return -1;
	if (wr->mm != PS_UNKNOWN)
		kv_dec(w, "mm", wr->mm);
	if (wr->at != PS_UNKNOWN)
		kv_hex(w, "at", wr->at);
	if (wr->kind && *wr->kind)
		kv_str(w, "kind", wr->kind);
	kv_str(w, "reason", wr->reason);
	return end_line(w);
}

int ps_write_counter(struct ps_writer *w, const struct ps_counter *c)
{
	if (begin(w, "counter") < 0)
		return -1;
	kv_str(w, "set", c->set);
	if (c->node != PS_UNKNOWN)
		kv_dec(w, "node", c->node);
	if (c->zone && *c->zone)
		kv_str(w, "zone", c->zone);
	kv_str(w, "name", c->name);
	kv_dec(w, "value", c->value);
	return end_line(w);
}

int ps_write_frames(struct ps_writer *w, const struct ps_frames *f)
{
	if (begin(w, "f ") < 0)
		return -1;
	put_hex(w, f->pfn);
	put_c(w, ' ');
	put_dec(w, f->npages);
	put_c(w, ' ');
	put_s(w, ps_frame_class_name(f->cls));
	put_c(w, ' ');
	put_dec_or_unknown(w, f->owner);
	return end_line(w);
}

int ps_write_owner(struct ps_writer *w, const struct ps_owner *o)
{
	if (begin(w, "owner") < 0)
		return -1;
	kv_dec(w, "id", o->id);
	kv_str(w, "kind", o->kind);
	kv_str(w, "name", o->name);
	return end_line(w);
}

int ps_write_slab(struct ps_writer *w, const struct ps_slab *s)
{
	if (begin(w, "slab") < 0)
		return -1;
	kv_str(w, "name", s->name);
	kv_dec(w, "active_objs", s->active_objs);
	kv_dec(w, "num_objs", s->num_objs);
	kv_dec(w, "objsize", s->objsize);
	kv_dec(w, "objperslab", s->objperslab);
	kv_dec(w, "pagesperslab", s->pagesperslab);
	kv_dec(w, "num_slabs", s->num_slabs);
	return end_line(w);
}

int ps_write_log(struct ps_writer *w, const struct ps_log *l, size_t text_len)
{
	if (begin(w, "log") < 0)
		return -1;
	kv_dec(w, "seq", l->seq);
	kv_dec(w, "ts", l->ts_nsec);
	kv_dec(w, "level", l->level);
	kv_dec(w, "facility", l->facility);
	key(w, "text");
	if (!text_len)
		put_c(w, '-');
	/* every byte but NUL (a NUL is written '?': the text is a C string when read back) */
	for (size_t i = 0; i < text_len && w->len <= PS_MAX_LINE; i++) {
		unsigned char ch = (unsigned char)l->text[i];
		if (!ch)
			ch = '?';
		if (ch <= 0x20 || ch >= 0x7f || ch == '%' || ch == '=' || (text_len == 1 && ch == '-')) {
			put_c(w, '%');
			put_c(w, "0123456789ABCDEF"[ch >> 4]);
			put_c(w, "0123456789ABCDEF"[ch & 15]);
		} else {
			put_c(w, (char)ch);
		}
	}
	return end_line(w);
}

int ps_write_end(struct ps_writer *w, bool complete)
{
	if (begin(w, "end") < 0)
		return -1;
	kv_str(w, "status", complete ? "complete" : "partial");
	kv_dec(w, "tasks", w->tasks);
	kv_dec(w, "mms", w->mms);
	kv_dec(w, "vmas", w->vmas);
	kv_dec(w, "runs", w->runs);
	kv_dec(w, "pages", w->pages);
	return end_line(w);
}

/* Tags and keys are written raw: they must be lowercase letters, digits (and '_' in keys),
 * or the line would not read back as the record the caller meant. */
static bool valid_name(const char *s, size_t max, bool underscore)
{
	size_t n = 0;
	for (; s && s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
		      (underscore && s[n] == '_')))
			return false;
	return n >= 1 && n <= max;
}

int ps_write_trace(struct ps_writer *w, const struct ps_kv *kv)
{
	static const char *const core[] = { "header", "snapshot", "task", "mm", "vma", "m", "x",
					    "w", "u", "sum", "warn", "end" };
	if (w->failed)
		return -1;
	bool ok = valid_name(kv->tag, 16, false) && kv->n <= sizeof kv->kv / sizeof kv->kv[0];
	for (size_t i = 0; ok && i < sizeof core / sizeof core[0]; i++)
		ok = strcmp(kv->tag, core[i]) != 0;
	for (size_t i = 0; ok && i < kv->n; i++)
		ok = valid_name(kv->kv[i].key, 64, true);
	if (!ok)
		return wfail(w, "%s: trace record with a bad tag or key (tag '%.16s')", w->path,
			     kv->tag ? kv->tag : "(null)");
	if (begin(w, kv->tag) < 0)
		return -1;
	for (size_t i = 0; i < kv->n; i++)
		kv_str(w, kv->kv[i].key, kv->kv[i].value);
	return end_line(w);
}
