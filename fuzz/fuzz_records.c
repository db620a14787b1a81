/* fuzz_records.c - libFuzzer harness for the record reader (and, differentially, the writer).
 *
 * Arbitrary bytes go through ps_reader (from a memfd, as a file would) until EOF or the
 * first error. It must never crash, leak, hang or trip UBSan. Every record read is also
 * written back through ps_writer; the writer's output must read back without an error and
 * give the same records (page runs may be merged, so those are compared by page count).
 * VMAs are run through ps_classify_vmas and page runs through ps_sum_add_map.
 *
 * Build and run: fuzz/run.sh [SECONDS]
 */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_VMAS 256

struct stats {
	uint64_t hash;         /* chain over the non-run records, in order */
	uint64_t n_other;      /* records other than m/x */
	uint64_t map_pages, swap_pages, unknown_pages;
	int rc;
	char err[700];
};

static void h_u64(struct stats *st, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		st->hash = (st->hash ^ (v & 0xff)) * 0x100000001b3ULL;
}

static void h_str(struct stats *st, const char *s)
{
	size_t n = strlen(s); /* touches every byte: ASan checks the string is valid */
	h_u64(st, n);
	for (size_t i = 0; i < n; i++)
		st->hash = (st->hash ^ (unsigned char)s[i]) * 0x100000001b3ULL;
}

static bool valid_key(const char *k)
{
	size_t n = 0;
	for (; k[n]; n++)
		if (!((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= '0' && k[n] <= '9') || k[n] == '_'))
			return false;
	return n >= 1 && n <= 64;
}

/* The VMAs of the latest mm, classified when the next mm or the end comes. */
struct mmvmas {
	struct ps_mm mm;
	char *comm, *exe;
	struct ps_vma v[MAX_VMAS];
	size_t n;
	bool have;
};

static void classify_and_clear(struct mmvmas *mv)
{
	if (mv->have && mv->n) {
		ps_classify_vmas(&mv->mm, mv->v, mv->n);
		for (size_t i = 0; i < mv->n; i++) {
			if ((unsigned)mv->v[i].kind >= PS_KIND_COUNT || !mv->v[i].unit)
				abort();
			(void)strlen(mv->v[i].unit);
		}
	}
	for (size_t i = 0; i < mv->n; i++)
		free((char *)mv->v[i].path);
	free(mv->comm), free(mv->exe);
	memset(mv, 0, sizeof *mv);
}

static void read_records(struct ps_reader *r, struct ps_writer *w, struct stats *st)
{
	struct ps_record rec;
	struct ps_vma_sum sum;
	struct mmvmas *mv = calloc(1, sizeof *mv);
	uint32_t page_size = ps_reader_header(r)->page_size;
	memset(&sum, 0, sizeof sum);
	while ((st->rc = ps_read(r, &rec)) > 0) {
		if (rec.type == PS_REC_TRACE) {
			const struct ps_kv *kv = &rec.u.trace;
			bool ok = kv->n <= 64;
			for (size_t i = 0; ok && i < kv->n; i++)
				ok = valid_key(kv->kv[i].key);
			if (!ok) /* the writer refuses such keys: leave it out of both sides */
				continue;
		}
		if (rec.type != PS_REC_MAP) {
			st->n_other++;
			h_u64(st, rec.type);
		}
		switch (rec.type) {
		case PS_REC_HEADER:
			abort(); /* the header is not returned by ps_read */
		case PS_REC_SNAPSHOT: {
			const struct ps_snapshot *s = &rec.u.snapshot;
			h_u64(st, s->seq), h_str(st, s->time), h_u64(st, s->uptime_ns);
			if (w)
				ps_write_snapshot(w, s);
			break;
		}
		case PS_REC_TASK: {
			const struct ps_task *t = &rec.u.task;
			h_u64(st, t->pid), h_u64(st, t->tgid), h_u64(st, t->ppid), h_u64(st, t->mm);
			h_str(st, t->comm), h_u64(st, (unsigned char)t->state), h_u64(st, t->minflt);
			h_u64(st, t->majflt), h_u64(st, t->utime), h_u64(st, t->stime);
			h_u64(st, t->start), h_u64(st, t->rss_file), h_u64(st, t->rss_anon);
			h_u64(st, t->rss_shmem), h_u64(st, t->rss_swap), h_u64(st, t->exiting);
			if (w)
				ps_write_task(w, t);
			break;
		}
		case PS_REC_MM: {
			const struct ps_mm *m = &rec.u.mm;
			h_u64(st, m->id), h_u64(st, m->tgid), h_str(st, m->comm), h_str(st, m->exe);
			h_u64(st, m->kaddr), h_u64(st, m->start_brk), h_u64(st, m->brk);
			h_u64(st, m->start_stack), h_u64(st, m->total_vm), h_u64(st, m->map_count);
			if (w)
				ps_write_mm(w, m);
			classify_and_clear(mv);
			mv->mm = *m;
			mv->comm = strdup(m->comm), mv->exe = strdup(m->exe);
			mv->mm.comm = mv->comm, mv->mm.exe = mv->exe;
			mv->have = true;
			break;
		}
		case PS_REC_VMA: {
			const struct ps_vma *v = &rec.u.vma;
			h_u64(st, v->mm), h_u64(st, v->start), h_u64(st, v->end), h_str(st, v->perm);
			h_u64(st, v->vmflags), h_u64(st, v->pgoff), h_u64(st, v->dev_major);
			h_u64(st, v->dev_minor), h_u64(st, v->inode), h_str(st, v->path);
			h_str(st, v->unit), h_u64(st, v->kind);
			if (w)
				ps_write_vma(w, v);
			if (mv->have && mv->n < MAX_VMAS) {
				mv->v[mv->n] = *v;
				mv->v[mv->n].path = strdup(v->path);
				mv->n++;
			}
			memset(&sum, 0, sizeof sum);
			break;
		}
		case PS_REC_MAP: {
			const struct ps_map *m = &rec.u.map;
			st->map_pages += m->npages;
			if (m->excluded)
				(void)strlen(m->reason);
			ps_sum_add_map(&sum, m, page_size);
			if (sum.resident < sum.single + sum.shared || sum.resident < sum.anon + sum.file)
				abort();
			if (w)
				ps_write_map(w, m);
			break;
		}
		case PS_REC_SWAP: {
			const struct ps_swap *s = &rec.u.swap;
			h_u64(st, s->mm), h_u64(st, s->vaddr), h_u64(st, s->npages), h_u64(st, s->type);
			h_u64(st, s->offset), h_u64(st, s->kind);
			st->swap_pages += s->npages;
			ps_sum_add_swap(&sum, s);
			if (w)
				ps_write_swap(w, s);
			break;
		}
		case PS_REC_UNKNOWN_RANGE: {
			const struct ps_unknown_range *u = &rec.u.unknown;
			h_u64(st, u->mm), h_u64(st, u->vaddr), h_u64(st, u->npages), h_str(st, u->reason);
			st->unknown_pages += u->npages;
			ps_sum_add_unknown(&sum, u);
			if (w)
				ps_write_unknown(w, u);
			break;
		}
		case PS_REC_SUM: {
			const struct ps_vma_sum *s = &rec.u.sum;
			const uint64_t f[] = { s->mm, s->start, s->resident, s->exec, s->ro, s->single,
					       s->shared, s->referenced, s->dirty, s->swapped, s->anon,
					       s->file, s->excluded, s->unknown, s->pss };
			for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
				h_u64(st, f[i]);
			if (w)
				ps_write_sum(w, s);
			break;
		}
		case PS_REC_WARN: {
			const struct ps_warn *wr = &rec.u.warn;
			h_u64(st, wr->mm), h_u64(st, wr->at), h_str(st, wr->reason);
			if (w)
				ps_write_warn(w, wr);
			break;
		}
		case PS_REC_END:
			/* The counts are the writer's own (runs may merge); the status must match. */
			h_u64(st, rec.u.end.complete);
			if (w)
				ps_write_end(w, rec.u.end.complete);
			classify_and_clear(mv);
			break;
		case PS_REC_COUNTER: {
			const struct ps_counter *c = &rec.u.counter;
			h_str(st, c->set), h_str(st, c->name), h_str(st, c->zone), h_u64(st, c->node);
			h_u64(st, c->value);
			if (w)
				ps_write_counter(w, c);
			break;
		}
		case PS_REC_FRAMES: {
			const struct ps_frames *f = &rec.u.frames;
			h_u64(st, f->pfn), h_u64(st, f->npages), h_u64(st, f->cls), h_u64(st, f->owner);
			if (f->cls >= PS_FC_COUNT || !f->npages)
				abort();
			if (w)
				ps_write_frames(w, f);
			break;
		}
		case PS_REC_OWNER: {
			const struct ps_owner *o = &rec.u.owner;
			h_u64(st, o->id), h_str(st, o->kind), h_str(st, o->name);
			if (w)
				ps_write_owner(w, o);
			break;
		}
		case PS_REC_SLAB: {
			const struct ps_slab *sl = &rec.u.slab;
			const uint64_t f[] = { sl->active_objs, sl->num_objs, sl->objsize, sl->objperslab,
					       sl->pagesperslab, sl->num_slabs };
			h_str(st, sl->name);
			for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
				h_u64(st, f[i]);
			if (w)
				ps_write_slab(w, sl);
			break;
		}
		case PS_REC_LOG: {
			const struct ps_log *l = &rec.u.log;
			h_u64(st, l->seq), h_u64(st, l->ts_nsec), h_u64(st, l->level), h_u64(st, l->facility);
			h_str(st, l->text);
			if (w)
				ps_write_log(w, l, strlen(l->text));
			break;
		}
		case PS_REC_TRACE: {
			const struct ps_kv *kv = &rec.u.trace;
			h_str(st, kv->tag), h_u64(st, kv->n);
			for (size_t i = 0; i < kv->n; i++)
				h_str(st, kv->kv[i].key), h_str(st, kv->kv[i].value);
			if (w)
				ps_write_trace(w, kv);
			break;
		}
		default:
			abort();
		}
	}
	classify_and_clear(mv);
	free(mv);
	if (st->rc < 0)
		snprintf(st->err, sizeof st->err, "%s", ps_reader_error(r));
	(void)strlen(ps_reader_warnings(r));
	(void)ps_reader_in_snapshot(r);
}

static int memfd_with(const void *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	const char *p = data;
	while (size) {
		ssize_t n = write(fd, p, size);
		if (n <= 0)
			abort();
		p += n, size -= (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_with(data, size);
	char *err = NULL;
	struct ps_reader *r = ps_reader_open_fd(fd, "in", &err);
	if (!r) {
		if (!err || strncmp(err, "in:", 3) != 0)
			abort(); /* every failure says FILE:LINE: */
		free(err);
		close(fd);
		return 0;
	}
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	struct ps_writer *w = ps_writer_open_stream(fp, "out");
	ps_write_header(w, ps_reader_header(r));
	struct stats a = { .hash = 0xcbf29ce484222325ULL };
	read_records(r, w, &a);
	if (a.rc < 0 && strncmp(a.err, "in:", 3) != 0)
		abort();
	ps_reader_close(r);
	close(fd);
	bool wfailed = ps_writer_close(w, false, NULL) < 0;
	fclose(fp);

	if (!wfailed) {
		/* What the writer made of the records must read back as the same records. */
		fd = memfd_with(out, outlen);
		r = ps_reader_open_fd(fd, "out", &err);
		if (!r) {
			fprintf(stderr, "written output does not open: %s\n---\n%.*s\n", err, (int)outlen, out);
			abort();
		}
		struct stats b = { .hash = 0xcbf29ce484222325ULL };
		read_records(r, NULL, &b);
		if (b.rc != 0 || b.hash != a.hash || b.n_other != a.n_other ||
		    b.map_pages != a.map_pages || b.swap_pages != a.swap_pages ||
		    b.unknown_pages != a.unknown_pages) {
			fprintf(stderr, "round trip differs: rc %d (%s), records %llu/%llu, pages %llu/%llu\n"
				"---\n%.*s\n", b.rc, b.err, (unsigned long long)a.n_other,
				(unsigned long long)b.n_other, (unsigned long long)a.map_pages,
				(unsigned long long)b.map_pages, (int)outlen, out);
			abort();
		}
		ps_reader_close(r);
		close(fd);
	}
	free(out);
	return 0;
}
