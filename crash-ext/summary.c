/* summary.c - `pagesleuth summary` inside crash: the analyzer's PSS tables, in crash's style.
 *
 * run.c walks the dump exactly as for the records and writes them to an unlinked temporary
 * file; this file loads that file with the analyzer's model_load_fd and runs the analysis
 * `pagesleuth report -a pss` runs (an_pss), so the numbers are the report's by construction.
 * Only the printing is crash's: headings and columns as `ps` and `kmem -s` print them, the name
 * last, sizes in KiB/MiB/GiB (bytes_human, as `kmem -i`) or, with -K, exact KiB.
 *
 * crash may abandon the command (^C) anywhere in here: what is loaded stays in the state the
 * caller keeps and is freed with it. A model abandoned while model_load was still building it
 * is not freed (its pointers may be half set): it is left to the process.
 */
#include "crash_run.h"

#include "crash_backend.h"
#include "errmsg.h"
#include "model.h"
#include "render_common.h"
#include "xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct ps_crash_summary_state {
	struct model m;
	bool loading, loaded;
	size_t nprocs_all;       /* m.nprocs before the selection by name (restored to free) */
	struct report rep;
};

void ps_crash_summary_free(struct ps_crash_summary_state *s)
{
	if (!s)
		return;
	report_free(&s->rep);
	if (s->loading)
		return; /* abandoned inside model_load: see the top */
	if (s->loaded) {
		s->m.nprocs = s->nprocs_all;
		model_free(&s->m);
	}
	free(s);
}

static bool chosen(const struct proc *p, const struct ps_crash_request *rq)
{
	for (size_t i = 0; i < rq->npids; i++)
		if (p->tgid == rq->pids[i])
			return true;
	for (size_t i = 0; i < rq->summary->ncomms; i++)
		if (p->comm && strcmp(p->comm, rq->summary->comms[i]) == 0)
			return true;
	return false;
}

/* Keep the chosen processes at the front, in their order, and count only them: the tables
 * then cover them alone (a library's PSS over the chosen processes). Without names the walk
 * itself wrote only the pids asked for (or every process). */
static void select_by_name(struct ps_crash_summary_state *s, const struct ps_crash_request *rq)
{
	struct model *m = &s->m;
	if (!rq->summary->ncomms)
		return;
	size_t kept = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		if (chosen(&m->procs[i], rq)) {
			struct proc tmp = m->procs[kept];
			m->procs[kept++] = m->procs[i];
			m->procs[i] = tmp;
		}
	for (size_t i = 0; i < rq->npids; i++) {
		bool found = false;
		for (size_t j = 0; j < kept && !found; j++)
			found = m->procs[j].tgid == rq->pids[i];
		if (!found)
			ps_crash_message("pid %" PRIu64 " is not a user process in the dump",
					 rq->pids[i]);
	}
	for (size_t i = 0; i < rq->summary->ncomms; i++) {
		bool found = false;
		for (size_t j = 0; j < kept && !found; j++)
			found = m->procs[j].comm && strcmp(m->procs[j].comm, rq->summary->comms[i]) == 0;
		if (!found)
			ps_crash_message("no user process named %s in the dump", rq->summary->comms[i]);
	}
	m->nprocs = kept;
}

static size_t column(const struct table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].name, name) == 0)
			return c;
	abort(); /* the tables are an_pss's: a missing column is a programming error */
}

/* One cell as crash shows it. Sizes are the analyzer's KiB. */
static const char *cell_text(const struct table *t, size_t row, size_t col, bool size, bool kib,
			     char buf[BYTES_HUMAN_MAX])
{
	const struct cell *c = table_cell_c(t, row, col);
	if (c->kind == CELL_STR)
		return c->s ? c->s : "";
	if (c->kind != CELL_U64)
		return "-"; /* unknown (mapcounts hidden): never shown as 0 */
	if (size && !kib)
		return bytes_human(c->u * 1024, buf);
	snprintf(buf, BYTES_HUMAN_MAX, "%" PRIu64, c->u);
	return buf;
}

/* The columns NAMES of T (numbers right-aligned, the last one a name, left-aligned and
 * unpadded) under headings TITLES, two spaces apart, and the table's note. */
static void print_table(const struct table *t, const char *const *names, const char *const *titles,
			size_t n, bool kib, FILE *out)
{
	size_t col[8], width[8];
	char buf[BYTES_HUMAN_MAX];
	for (size_t i = 0; i < n; i++) {
		col[i] = column(t, names[i]);
		width[i] = strlen(titles[i]);
		for (size_t r = 0; r < t->nrows && i + 1 < n; r++) {
			size_t w = strlen(cell_text(t, r, col[i], strstr(names[i], "_kib"), kib, buf));
			if (w > width[i])
				width[i] = w;
		}
	}
	for (size_t i = 0; i + 1 < n; i++)
		fprintf(out, "%*s  ", (int)width[i], titles[i]);
	fprintf(out, "%s\n", titles[n - 1]);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t i = 0; i + 1 < n; i++)
			fprintf(out, "%*s  ", (int)width[i],
				cell_text(t, r, col[i], strstr(names[i], "_kib"), kib, buf));
		render_text_escaped(cell_text(t, r, col[n - 1], false, kib, buf), out);
		putc('\n', out);
	}
	if (t->note)
		fprintf(out, "(%s)\n", t->note);
}

int ps_crash_summary_print(int fd, const char *name, const struct ps_crash_request *rq,
			   FILE *out, struct ps_crash_summary_state **state, char **err)
{
	struct ps_crash_summary_state *s = xcalloc(1, sizeof *s);
	*state = s;
	struct model_options mo = { .snapshot = -1 };
	s->loading = true;
	int rc = model_load_fd(&s->m, fd, name, &mo, err);
	s->loading = false;
	if (rc != 0)
		return -1;
	s->loaded = true;
	s->nprocs_all = s->m.nprocs;
	/* the reader's and the model's remarks (a process that exited during the dump, ...) */
	for (const char *line = s->m.warnings, *end; line && *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		ps_crash_message("%.*s", (int)(end - line), line);
	}
	select_by_name(s, rq);
	an_pss(&s->m, &s->rep);
	s->m.nprocs = s->nprocs_all; /* the tables are made: the model is whole again */

	const struct ps_crash_summary *o = rq->summary;
	if (o->processes) {
		static const char *const names[] = { "pid", "vss_kib", "rss_kib", "pss_kib",
						     "uss_kib", "swap_kib", "comm" };
		static const char *const titles[] = { "PID", "VSS", "RSS", "PSS", "USS", "SWAP",
						      "COMM" };
		print_table(report_find(&s->rep, "pss"), names, titles, 7, o->kib, out);
	}
	if (o->processes && o->objects)
		putc('\n', out);
	if (o->objects) {
		static const char *const names[] = { "procs", "vss_kib", "rss_kib", "pss_kib",
						     "uss_kib", "object" };
		static const char *const titles[] = { "PROCS", "VSS", "RSS", "PSS", "USS",
						      "MAPPED OBJECT" };
		print_table(report_find(&s->rep, "librank"), names, titles, 6, o->kib, out);
	}
	if (fflush(out) != 0 || ferror(out)) {
		ps_set_err(err, "crash output: write failed: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
