/* import.c - record files into the database: each snapshot of each file becomes one
 * `snapshot` row with its tags and its per-process, per-unit and per-kind aggregates.
 *
 * The aggregates come from the analyzer's model (the same numbers `pagesleuth report` shows:
 * model_proc_totals for processes, the model's distinct-PFN table for units and the total),
 * computed once at import so queries over a thousand snapshots never re-read records.
 *
 * Identity: a snapshot is the same snapshot when its header's dump_id, capture time, pid
 * filter and its seq agree (extract and the crash extension on one dump give one snapshot);
 * files without a dump_id are identified by a hash of their bytes. Re-importing is a no-op.
 *
 * Text from the inspected system (process names, paths) may hold any bytes; PostgreSQL
 * accepts only valid UTF-8, so bytes that are not are stored as the text \xNN, the same on
 * both backends.
 */
#include "db.h"
#include "errmsg.h"
#include "model.h"
#include "render_common.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A page run kept for --pages until its snapshot ends (the snapshot row comes first). */
struct page_run {
	uint64_t mm, vaddr, pfn, pages, mapcount, refcount, flags;
	char pte[PS_PTE_NBITS + 1];
	unsigned char shift;
	bool excluded;
};

struct importer {
	struct db *db;
	const struct db_import_options *opt;
	struct db_import_stats *stats;
	const char *file;
	char *file_hash;  /* "fnv1a64:..." once computed */
	char imported[32];
	struct page_run *runs;
	size_t nruns, capruns;
	int rc;
	char *err;
};

/* ---- text --------------------------------------------------------------------------------- */

static char *clean_text(const char *s)
{
	size_t n = strlen(s);
	char *out = xcalloc(1, n * 4 + 1), *o = out;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t len = utf8_valid_len(p, strlen((const char *)p));
		if (len) {
			memcpy(o, p, len);
			o += len, p += len;
		} else {
			o += sprintf(o, "\\x%02x", *p++);
		}
	}
	return out;
}

/* "-" and "" are the record format's "unknown": stored as "" (columns are NOT NULL). */
static const char *known(const char *s)
{
	return !s || strcmp(s, "-") == 0 ? "" : s;
}

/* A row of text values for load_row; numbers formatted into the row's own buffers. */
#define ROW_MAX 32
struct row {
	const char *v[ROW_MAX];
	char num[ROW_MAX][24];
	char *owned[ROW_MAX];
	int n;
};

static void row_u64(struct row *r, uint64_t x)
{
	snprintf(r->num[r->n], sizeof r->num[0], "%" PRIu64, x);
	r->v[r->n] = r->num[r->n];
	r->n++;
}

/* PS_UNKNOWN becomes SQL NULL. */
static void row_u64_or_null(struct row *r, uint64_t x)
{
	if (x == PS_UNKNOWN)
		r->v[r->n++] = NULL;
	else
		row_u64(r, x);
}

static void row_text(struct row *r, const char *s)
{
	r->owned[r->n] = clean_text(s ? s : "");
	r->v[r->n] = r->owned[r->n];
	r->n++;
}

static void row_free(struct row *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->owned[i]);
	memset(r, 0, sizeof *r);
}

static int load_rows_begin(struct importer *im, const char *table, const char *const *cols, int n)
{
	return im->db->be->load_begin(im->db, table, n, cols, &im->err);
}

static int load_row(struct importer *im, struct row *r)
{
	int rc = im->db->be->load_row(im->db, r->v, &im->err);
	row_free(r);
	im->stats->rows++;
	return rc;
}

/* ---- identity ----------------------------------------------------------------------------- */

/* FNV-1a over the file's bytes: identity for record files that carry no dump_id. */
static int hash_file(struct importer *im)
{
	if (im->file_hash)
		return 0;
	int fd = open(im->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ps_set_err(&im->err, "%s: cannot read: %s", im->file, strerror(errno));
		return -1;
	}
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[1 << 16];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	int saved = errno;
	close(fd);
	if (n < 0) {
		ps_set_err(&im->err, "%s: cannot read: %s", im->file, strerror(saved));
		return -1;
	}
	im->file_hash = xasprintf("fnv1a64:%016" PRIx64, h);
	return 0;
}

static char *snapshot_identity(struct importer *im, const struct model *m)
{
	if (*known(m->dump_id))
		return xasprintf("dump_id=%s time=%s pids=%s seq=%" PRIu64, m->dump_id, known(m->time),
				 known(m->pids), m->seq);
	if (hash_file(im) < 0)
		return NULL;
	return xasprintf("file=%s seq=%" PRIu64, im->file_hash, m->seq);
}

/* ---- aggregates --------------------------------------------------------------------------- */

static uint64_t pss_bytes(uint64_t pss_shifted) { return pss_shifted >> PS_PSS_SHIFT; }

/* Single-use pages of VMAs that also hold shared pages (the mixed analysis). */
static uint64_t single_in_shared(const struct vma_info *v)
{
	return v->sum.single && v->sum.shared ? v->sum.single : 0;
}

static int insert_processes(struct importer *im, const char *sid, const struct model *m)
{
	static const char *const cols[] = {
		"snapshot_id", "mm", "tgid", "pid", "comm", "exe", "threads", "vmas", "vss_bytes",
		"rss_bytes", "pss_bytes", "uss_bytes", "swap_bytes", "anon_bytes",
		"single_in_shared_bytes", "minflt", "majflt",
	};
	if (load_rows_begin(im, "process", cols, 17) < 0)
		return -1;
	uint64_t ps = m->page_size;
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc *p = &m->procs[i];
		struct proc_totals t;
		model_proc_totals(m, p, &t);
		uint64_t sis = 0;
		for (size_t j = 0; j < p->nvmas; j++)
			sis += single_in_shared(&p->vmas[j]);
		struct row r = { 0 };
		r.v[r.n++] = sid;
		row_u64(&r, p->mm_id), row_u64(&r, p->tgid), row_u64(&r, p->pid);
		row_text(&r, p->comm), row_text(&r, p->exe);
		row_u64(&r, p->nthreads), row_u64(&r, p->nvmas);
		row_u64(&r, t.vss * ps), row_u64(&r, t.rss * ps), row_u64(&r, pss_bytes(t.pss));
		row_u64(&r, t.uss * ps), row_u64(&r, t.swap * ps), row_u64(&r, t.anon * ps);
		row_u64(&r, sis * ps);
		row_u64(&r, p->minflt), row_u64(&r, p->majflt);
		if (load_row(im, &r) < 0)
			return -1;
	}
	return im->db->be->load_end(im->db, &im->err);
}

struct unit_acc {
	uint64_t procs, last_proc, virt[3], rss, pss, uss;
};

static int insert_units(struct importer *im, const char *sid, const struct model *m)
{
	static const char *const cols[] = {
		"snapshot_id", "unit", "name", "processes", "text_virt_bytes", "text_phys_bytes",
		"data_virt_bytes", "data_phys_bytes", "bss_virt_bytes", "bss_phys_bytes",
		"rss_bytes", "pss_bytes", "uss_bytes",
	};
	size_t nu = m->nunits ? m->nunits : 1;
	struct unit_acc *acc = xcalloc(nu, sizeof *acc);
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++) {
			const struct vma_info *v = &m->procs[i].vmas[j];
			if (v->unit == NO_UNIT)
				continue;
			struct unit_acc *a = &acc[v->unit];
			int c = model_unit_class(v->v.kind);
			if (c >= 0)
				a->virt[c] += model_vma_pages(m, v);
			a->rss += v->sum.resident, a->pss += v->sum.pss, a->uss += v->sum.single;
			if (a->last_proc != i + 1)
				a->last_proc = i + 1, a->procs++;
		}
	int rc = load_rows_begin(im, "unit", cols, 13);
	uint64_t ps = m->page_size;
	for (uint32_t u = 0; u < m->nunits && rc == 0; u++) {
		/* Units with text/data/bss (applications and libraries) as `report -a units`
		 * lists them, and the files mapped as data or shared memory. */
		const struct unit_acc *a = &acc[u];
		if (!a->procs)
			continue;
		uint64_t phys[3];
		model_unit_phys(m, u, phys);
		struct row r = { 0 };
		r.v[r.n++] = sid;
		row_text(&r, m->units[u]);
		const char *slash = strrchr(m->units[u], '/');
		row_text(&r, slash ? slash + 1 : m->units[u]);
		row_u64(&r, a->procs);
		for (int c = 0; c < 3; c++)
			row_u64(&r, a->virt[c] * ps), row_u64(&r, phys[c] * ps);
		row_u64(&r, a->rss * ps), row_u64(&r, pss_bytes(a->pss)), row_u64(&r, a->uss * ps);
		rc = load_row(im, &r);
	}
	free(acc);
	return rc < 0 ? -1 : im->db->be->load_end(im->db, &im->err);
}

static int insert_kinds(struct importer *im, const char *sid, const struct model *m)
{
	static const char *const cols[] = {
		"snapshot_id", "kind", "vmas", "vss_bytes", "rss_bytes", "pss_bytes", "uss_bytes",
		"swap_bytes", "anon_bytes", "single_in_shared_bytes",
	};
	struct { uint64_t vmas, vss, rss, pss, uss, swap, anon, sis; } k[PS_KIND_COUNT] = { 0 };
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nvmas; j++) {
			const struct vma_info *v = &m->procs[i].vmas[j];
			const struct ps_vma_sum *s = &v->sum;
			int c = v->v.kind;
			k[c].vmas++, k[c].vss += model_vma_pages(m, v), k[c].rss += s->resident;
			k[c].pss += s->pss, k[c].uss += s->single, k[c].swap += model_vma_swap(v);
			k[c].anon += s->anon, k[c].sis += single_in_shared(v);
		}
	if (load_rows_begin(im, "kind", cols, 10) < 0)
		return -1;
	uint64_t ps = m->page_size;
	for (int c = 0; c < PS_KIND_COUNT; c++) {
		if (!k[c].vmas)
			continue;
		struct row r = { 0 };
		r.v[r.n++] = sid;
		row_text(&r, ps_kind_name(c));
		row_u64(&r, k[c].vmas), row_u64(&r, k[c].vss * ps), row_u64(&r, k[c].rss * ps);
		row_u64(&r, pss_bytes(k[c].pss)), row_u64(&r, k[c].uss * ps);
		row_u64(&r, k[c].swap * ps), row_u64(&r, k[c].anon * ps), row_u64(&r, k[c].sis * ps);
		if (load_row(im, &r) < 0)
			return -1;
	}
	return im->db->be->load_end(im->db, &im->err);
}

static int insert_pages(struct importer *im, const char *sid)
{
	static const char *const cols[] = {
		"snapshot_id", "mm", "vaddr", "pfn", "pages", "mapcount", "refcount", "flags", "pte",
		"shift", "excluded",
	};
	if (load_rows_begin(im, "page_run", cols, 11) < 0)
		return -1;
	for (size_t i = 0; i < im->nruns; i++) {
		const struct page_run *p = &im->runs[i];
		struct row r = { 0 };
		r.v[r.n++] = sid;
		row_u64(&r, p->mm), row_u64(&r, p->vaddr), row_u64_or_null(&r, p->pfn);
		row_u64(&r, p->pages), row_u64_or_null(&r, p->mapcount);
		row_u64_or_null(&r, p->refcount);
		/* kpageflags bits stay below 2^63 (BIGINT); an unknown mask is NULL */
		row_u64_or_null(&r, p->flags == PS_UNKNOWN ? PS_UNKNOWN : p->flags & INT64_MAX);
		row_text(&r, p->pte), row_u64(&r, p->shift), row_u64(&r, p->excluded);
		if (load_row(im, &r) < 0)
			return -1;
	}
	return im->db->be->load_end(im->db, &im->err);
}

/* Tags: the command line's, then the header's tags= ("K=V,K=V"), then the header's arch,
 * release and source, each key once (the first wins). */
struct tag_set {
	struct db_tag t[64];
	const char *origin[64];
	size_t n;
};

static void tag_add(struct tag_set *s, const char *key, size_t klen, const char *value,
		    const char *origin)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->t[i].key) == klen && memcmp(s->t[i].key, key, klen) == 0)
			return;
	if (s->n == sizeof s->t / sizeof s->t[0] || !*value)
		return;
	s->t[s->n].key = xasprintf("%.*s", (int)klen, key);
	s->t[s->n].value = xstrdup(value);
	s->origin[s->n++] = origin;
}

static int insert_tags(struct importer *im, const char *sid, const struct model *m)
{
	struct tag_set s = { .n = 0 };
	for (size_t i = 0; i < im->opt->ntags; i++)
		tag_add(&s, im->opt->tags[i].key, strlen(im->opt->tags[i].key), im->opt->tags[i].value,
			"command");
	if (m->tags) {
		char *copy = xstrdup(m->tags), *save = NULL;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			struct db_tag t;
			char *ignored = NULL;
			if (db_parse_tag(tok, &t, &ignored) < 0) {
				free(ignored);
				continue; /* a malformed tag in a header: not a reason to lose the data */
			}
			tag_add(&s, t.key, strlen(t.key), t.value, "records");
			free(t.key), free(t.value);
		}
		free(copy);
	}
	tag_add(&s, "arch", 4, known(m->arch), "header");
	tag_add(&s, "release", 7, known(m->release), "header");
	tag_add(&s, "source", 6, known(m->source), "header");
	static const char *const cols[] = { "snapshot_id", "key", "value", "origin" };
	int rc = load_rows_begin(im, "tag", cols, 4);
	for (size_t i = 0; i < s.n && rc == 0; i++) {
		struct row r = { 0 };
		r.v[r.n++] = sid;
		row_text(&r, s.t[i].key), row_text(&r, s.t[i].value), row_text(&r, s.origin[i]);
		rc = load_row(im, &r);
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.t[i].key), free(s.t[i].value);
	return rc < 0 ? -1 : im->db->be->load_end(im->db, &im->err);
}

/* The snapshot row: NULL id (and no error) if it is already in the database. */
static int insert_snapshot(struct importer *im, const struct model *m, char **id)
{
	char *identity = snapshot_identity(im, m);
	if (!identity)
		return -1;
	uint64_t vss = 0, rss = 0, pss = 0, uss = 0, swap = 0, vmas = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_totals t;
		model_proc_totals(m, &m->procs[i], &t);
		vss += t.vss, rss += t.rss, pss += t.pss, uss += t.uss, swap += t.swap;
		vmas += m->procs[i].nvmas;
	}
	uint64_t ps = m->page_size;
	bool complete = m->complete && !m->partial_why;
	const char *captured = m->snapshot_time && *known(m->snapshot_time) ? m->snapshot_time
									     : known(m->time);
	struct row r = { 0 };
	row_text(&r, identity);
	row_text(&r, known(m->source)), row_text(&r, known(m->arch)), row_text(&r, known(m->release));
	row_text(&r, known(m->dump)), row_text(&r, known(m->dump_id));
	row_u64(&r, ps);
	if (*captured)
		row_text(&r, captured);
	else
		r.v[r.n++] = NULL;
	row_u64(&r, m->seq);
	row_text(&r, known(m->pids)), row_text(&r, known(m->excluded)), row_text(&r, known(m->tool));
	row_u64(&r, complete);
	if (complete) {
		r.v[r.n++] = NULL;
	} else {
		char *why = xstrdup(m->partial_why ? m->partial_why : "snapshot incomplete");
		size_t n = strlen(why);
		if (n && why[n - 1] == '\n')
			why[n - 1] = 0;
		row_text(&r, why);
		free(why);
	}
	row_text(&r, im->file), row_text(&r, im->imported);
	row_u64(&r, m->nprocs), row_u64(&r, vmas);
	row_u64(&r, m->pfns.used * ps), row_u64(&r, m->distinct_anon * ps);
	row_u64(&r, (m->pfns.used - m->distinct_anon) * ps), row_u64(&r, m->swapped_pages * ps);
	row_u64(&r, m->excluded_pages * ps), row_u64(&r, m->pfn_hidden_pages * ps);
	row_u64(&r, m->unknown_pages * ps);
	row_u64(&r, vss * ps), row_u64(&r, rss * ps), row_u64(&r, pss_bytes(pss));
	row_u64(&r, uss * ps), row_u64(&r, swap * ps);
	free(identity);
	int rc = db_query_value(im->db,
		"INSERT INTO snapshot (identity, source, arch, release, dump, dump_id, page_size, "
		"captured, seq, pids, excluded, tool, complete, partial_why, file, imported, processes, "
		"vmas, user_bytes, anon_bytes, file_bytes, swapped_bytes, excluded_bytes, "
		"pfn_hidden_bytes, unknown_bytes, vss_bytes, rss_bytes, pss_bytes, uss_bytes, "
		"swap_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
		"$16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30) "
		"ON CONFLICT (identity) DO NOTHING RETURNING id", r.n, r.v, id, &im->err);
	row_free(&r);
	return rc;
}

static void on_snapshot(void *ctx, const struct model *m)
{
	struct importer *im = ctx;
	if (im->rc < 0)
		return;
	char *id = NULL;
	if (insert_snapshot(im, m, &id) < 0)
		goto fail;
	if (!id) {
		im->stats->duplicates++;
		if (!im->opt->quiet)
			fprintf(stderr, "pagesleuth db import: %s: snapshot %" PRIu64 " is already in the "
				"database\n", im->file, m->seq);
		im->nruns = 0;
		return;
	}
	im->stats->snapshots++;
	bool complete = m->complete && !m->partial_why;
	im->stats->partial += !complete;
	if (!complete && !im->opt->quiet)
		fprintf(stderr, "pagesleuth db import: %s: snapshot %" PRIu64 " is partial: imported "
			"flagged as such (left out of trends and checks unless --include-partial)\n",
			im->file, m->seq);
	if (insert_tags(im, id, m) < 0 || insert_processes(im, id, m) < 0 ||
	    insert_units(im, id, m) < 0 || insert_kinds(im, id, m) < 0 ||
	    (im->opt->pages && insert_pages(im, id) < 0)) {
		free(id);
		goto fail;
	}
	free(id);
	im->nruns = 0;
	return;
fail:
	im->rc = -1;
}

static void on_run(void *ctx, const struct model *m, const struct proc *p,
		   const struct vma_info *v, const struct ps_map *run)
{
	(void)m, (void)v;
	struct importer *im = ctx;
	if (im->rc < 0)
		return;
	if (im->nruns == im->capruns) {
		im->capruns = im->capruns ? im->capruns * 2 : 4096;
		im->runs = xrealloc(im->runs, im->capruns * sizeof *im->runs);
	}
	struct page_run *r = &im->runs[im->nruns++];
	*r = (struct page_run){ .mm = p->mm_id, .vaddr = run->vaddr, .pfn = run->pfn,
				.pages = run->npages, .mapcount = run->mapcount,
				.refcount = run->refcount, .flags = run->pflags,
				.shift = (unsigned char)run->shift, .excluded = run->excluded };
	ps_pte_format(run->pte, r->pte);
}

int db_import(struct db *db, char *const *files, size_t nfiles,
	      const struct db_import_options *opt, struct db_import_stats *stats, char **err)
{
	memset(stats, 0, sizeof *stats);
	struct importer im = { .db = db, .opt = opt, .stats = stats };
	time_t now = time(NULL);
	strftime(im.imported, sizeof im.imported, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (db->be->begin_write(db, err) < 0)
		return -1;
	for (size_t i = 0; i < nfiles && im.rc == 0; i++) {
		im.file = files[i];
		struct model_options mo = { .snapshot = -1, .on_snapshot = on_snapshot,
					    .on_snapshot_ctx = &im,
					    .on_run = opt->pages ? on_run : NULL, .on_run_ctx = &im };
		struct model m;
		char *lerr = NULL;
		uint64_t before = stats->snapshots + stats->duplicates;
		if (model_load(&m, files[i], &mo, &lerr) < 0) {
			if (im.rc == 0) {
				im.rc = -1;
				im.err = lerr, lerr = NULL;
			}
			free(lerr);
		} else {
			if (im.rc == 0 && stats->snapshots + stats->duplicates == before &&
			    !opt->quiet)
				fprintf(stderr, "pagesleuth db import: %s: no snapshot (trace records are "
					"not imported)\n", files[i]);
			model_free(&m);
		}
		free(im.file_hash);
		im.file_hash = NULL;
		stats->files++;
	}
	free(im.runs);
	if (im.rc < 0) {
		char *ignored = NULL;
		if (db->load) /* a COPY in progress ends with the error */
			db->be->load_end(db, &ignored);
		free(ignored), ignored = NULL;
		db_exec(db, "ROLLBACK", &ignored);
		free(ignored);
		*err = im.err;
		return -1;
	}
	return db_exec(db, "COMMIT", err);
}
