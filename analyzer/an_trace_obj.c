/* an_trace_obj.c - accesses per object (obj records): heap objects (blocks allocated at one
 * call stack, merged) and global/static variables, with loads, stores and the bytes they
 * moved. accesses = loads + stores. Sorted by any column (report --sort): by default
 * accesses, descending; numbers sort descending and strings ascending unless the column name
 * ends in ":asc" or ":desc"; ties keep the file order.
 */
#include "model.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { O_ID, O_KIND, O_NAME, O_SIZE, O_BLOCKS, O_LOADS, O_STORES, O_ACCESSES, O_BLOAD, O_BSTORE,
       O_WHERE, O_NCOLS };

static const struct column obj_cols[O_NCOLS] = {
	[O_ID] = { "id", "ID", CELL_U64, false },
	[O_KIND] = { "kind", "KIND", CELL_STR, false },
	[O_NAME] = { "name", "NAME", CELL_STR, false },
	[O_SIZE] = { "size_bytes", "SIZE", CELL_U64, COL_BYTES },
	[O_BLOCKS] = { "blocks", "BLOCKS", CELL_U64, false },
	[O_LOADS] = { "loads", "LOADS", CELL_U64, false },
	[O_STORES] = { "stores", "STORES", CELL_U64, false },
	[O_ACCESSES] = { "accesses", "ACCESSES", CELL_U64, false },
	[O_BLOAD] = { "loaded_bytes", "LOADED", CELL_U64, COL_BYTES },
	[O_BSTORE] = { "stored_bytes", "STORED", CELL_U64, COL_BYTES },
	[O_WHERE] = { "where", "ALLOCATED_OR_DECLARED_AT", CELL_STR, false },
};

const char *an_trace_obj_columns(void)
{
	return "id, kind, name, size_bytes, blocks, loads, stores, accesses, loaded_bytes, stored_bytes, where";
}

static void set_known(struct table *t, size_t row, size_t col, uint64_t v)
{
	if (v != PS_UNKNOWN)
		table_set_u64(t, row, col, v);
}

int an_trace_obj(const struct model *m, const char *sort, struct report *r)
{
	/* The sort column first: a bad --sort is a usage error before any output. */
	size_t sort_col = O_ACCESSES;
	int dir = 0; /* 0 = the column's natural order, 1 = ascending, -1 = descending */
	if (sort) {
		const char *colon = strchr(sort, ':');
		size_t len = colon ? (size_t)(colon - sort) : strlen(sort);
		if (colon && strcmp(colon, ":asc") == 0)
			dir = 1;
		else if (colon && strcmp(colon, ":desc") == 0)
			dir = -1;
		else if (colon)
			return -1;
		sort_col = O_NCOLS;
		for (size_t c = 0; c < O_NCOLS; c++)
			if (strlen(obj_cols[c].name) == len && strncmp(obj_cols[c].name, sort, len) == 0)
				sort_col = c;
		if (sort_col == O_NCOLS)
			return -1;
	}
	const struct trace_model *tm = &m->trace;
	size_t overflows = 0;
	struct table *t = table_new("obj", "Accesses per object", STYLE_GRID, O_NCOLS, obj_cols);
	for (size_t i = 0; i < tm->nobjs; i++) {
		const struct trace_obj *o = &tm->objs[i];
		size_t row = table_add_row(t);
		table_set_u64(t, row, O_ID, o->id);
		table_set_str(t, row, O_KIND, o->heap ? "heap" : "global");
		/* A heap object allocated in a function without a symbol (a stripped program's
		 * static function): its address, as the peaks table names it. */
		if (!*o->name && o->heap && o->stack.n)
			an_set_frame_fn(t, row, O_NAME, trace_stack_frame(tm, o->stack, 0));
		else
			table_set_str_ref(t, row, O_NAME, o->name); /* the model's: see an_trace_hot.c */
		set_known(t, row, O_SIZE, o->size);
		set_known(t, row, O_BLOCKS, o->blocks);
		table_set_u64(t, row, O_LOADS, o->loads);
		table_set_u64(t, row, O_STORES, o->stores);
		/* Each below 2^64 - 6 (the reader's limit), their sum need not be: never wrap
		 * or saturate into a number that looks real; leave it empty and say why. */
		if (o->loads > UINT64_MAX - 6 - o->stores)
			overflows++;
		else
			table_set_u64(t, row, O_ACCESSES, o->loads + o->stores);
		set_known(t, row, O_BLOAD, o->bload);
		set_known(t, row, O_BSTORE, o->bstore);
		char *where = NULL;
		if (o->stack.n)
			where = trace_stack_label(tm, o->stack); /* bounded: TRACE_STACK_BYTES */
		else if (*o->file && o->line != PS_UNKNOWN)
			where = xasprintf("%s:%" PRIu64, o->file, o->line);
		if (where)
			table_set_str(t, row, O_WHERE, where);
		else
			table_set_str_ref(t, row, O_WHERE, o->file);
		free(where);
	}
	bool numeric = obj_cols[sort_col].kind != CELL_STR;
	bool desc = dir ? dir < 0 : numeric;
	table_sort(t, sort_col, desc);
	char overflow_note[128] = "";
	if (overflows)
		snprintf(overflow_note, sizeof overflow_note, "\n%zu object%s: loads + stores beyond "
			 "the 64-bit range, accesses left empty (the records are inconsistent)", overflows,
			 overflows == 1 ? "" : "s");
	table_set_note(t, "%s; sorted by %s, %s%s", tm->nobjs ? "heap: blocks allocated at one call "
		       "stack merged into one object (size: the largest block), where = the allocation "
		       "stack, innermost first; global: where = the declaration; accesses = loads + stores"
		       : "no obj records in the file", obj_cols[sort_col].name,
		       desc ? "descending" : "ascending", overflow_note);
	report_add(r, t);
	return 0;
}
