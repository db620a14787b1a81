/* an_log.c - the kernel log at the dump (log records), beside the numbers: every line that
 * says why memory ran out or the kernel died (the OOM killer's report, allocation failures,
 * panics, oopses, BUGs), then the last lines. The whole log: `pagesleuth log DUMP`.
 */
#include "model.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define LOG_TAIL 20
#define LOG_MAX_MARKED 400

static bool marked(const char *text)
{
	static const char *const words[] = {
		"Out of memory", "oom-kill", "oom_reaper", "invoked oom-killer", "Killed process",
		"page allocation failure", "Kernel panic", "BUG:", "Oops", "Unable to handle",
		"general protection fault", "Call Trace", "SysRq : Trigger a crash",
		"sysrq: Trigger a crash", "Mem-Info", "Free swap", "lowmem_reserve",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(text, words[i]))
			return true;
	return false;
}

void an_log(const struct model *m, struct report *r)
{
	enum { L_TIME, L_LEVEL, L_TEXT, L_N };
	static const struct column cols[L_N] = {
		{ "time_s", "TIME", CELL_F64, COL_DEC }, { "level", "LEVEL", CELL_STR, COL_DEC },
		{ "text", "TEXT", CELL_STR, COL_DEC },
	};
	static const char *const levels[] = { "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug" };
	if (!m->nlogs)
		return;
	struct table *t = table_new("log", "The kernel log at the dump: out of memory, panics, oopses, "
				    "then the last lines", STYLE_GRID, L_N, cols);
	table_set_decimals(t, L_TIME, 6);
	size_t tail = m->nlogs > LOG_TAIL ? m->nlogs - LOG_TAIL : 0, nmarked = 0;
	for (size_t i = 0; i < m->nlogs; i++) {
		const struct log_line *l = &m->logs[i];
		bool mark = i < tail && marked(l->text) && nmarked < LOG_MAX_MARKED;
		if (!mark && i < tail)
			continue;
		nmarked += mark;
		size_t row = table_add_row(t);
		if (l->ts_nsec != PS_UNKNOWN)
			table_set_f64(t, row, L_TIME, (double)l->ts_nsec / 1e9);
		table_set_str(t, row, L_LEVEL, l->level < 8 ? levels[l->level] : "-");
		table_set_str_ref(t, row, L_TEXT, l->text);
	}
	table_set_note(t, "%zu lines of %zu: those about running out of memory or a crash, then the last %d "
		       "(the whole log: pagesleuth log DUMP)", t->nrows, m->nlogs, LOG_TAIL);
	report_add(r, t);
}
