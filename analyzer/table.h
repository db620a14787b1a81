/* table.h - what analyses produce and renderers consume.
 *
 * An analysis turns the snapshot model into one or more tables; a renderer (text, csv, json,
 * svg charts, html) turns tables into output. Analyses never print and renderers never
 * compute, so every analysis gets every output format.
 */
#ifndef PAGESLEUTH_TABLE_H
#define PAGESLEUTH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cell_kind { CELL_NONE, CELL_STR, CELL_U64, CELL_I64, CELL_F64 };

struct cell {
	enum cell_kind kind; /* CELL_NONE = empty / not applicable */
	bool borrowed;       /* CELL_STR: s belongs to someone else (table_set_str_ref) */
	union {
		char *s; /* owned by the table unless borrowed */
		uint64_t u;
		int64_t i;
		double f;
	};
};

struct column {
	const char *name;  /* machine name: csv header, json key ("rss_pages") */
	const char *title; /* human heading for text/html ("RSS") */
	enum cell_kind kind;
	/* How a CELL_U64 is shown: COL_DEC (0, "false" in the tables' initialisers), COL_HEX
	 * (1, "true": addresses), or a size (CELL_U64, or CELL_I64 for a change) counted in
	 * bytes, pages or KiB: COL_BYTES, COL_PAGES, COL_KIB. Text and HTML show every size in
	 * the report's units (--units: KiB/MiB/GiB, exact KiB or exact pages); CSV and JSON
	 * always write the exact number in the column's own unit, which its name ends with
	 * (_bytes, _pages, _kib) and JSON's column "unit" says. */
	enum column_format { COL_DEC, COL_HEX, COL_BYTES, COL_PAGES, COL_KIB } format;
};

/* STYLE_GRID: an ordinary table. STYLE_MAP: a resident map; its columns are fixed (see
 * MAP_COL_*): the text renderer prints a heading per VMA (when MAP_COL_VMA changes) and then
 * one line per row: the page index and up to 64 map characters. */
enum table_style { STYLE_GRID, STYLE_MAP };

enum map_col {
	MAP_COL_GROUP,  /* str: what the map is grouped by: "pid 100 app" or a unit path */
	MAP_COL_VMA,    /* str: "400000-402000" */
	MAP_COL_FLAGS,  /* str: decoded flags, e.g. "X r-x" */
	MAP_COL_KIND,   /* str: vma kind */
	MAP_COL_UNIT,   /* str: executable unit or "" */
	MAP_COL_OFFSET, /* u64: page index of the line's first page inside the VMA */
	MAP_COL_MAP,    /* str: up to 64 chars (see MAP_COL_SKIP) */
	MAP_COL_SKIP,   /* u64: 0 = an ordinary line; n > 0 = this row stands for n identical
			 * full lines: n empty lines if MAP_COL_MAP is "", else n copies of
			 * MAP_COL_MAP (one character repeated 64 times) */
	MAP_NCOLS
};

/* A new STYLE_MAP table with the columns above. */
struct table *table_new_map(const char *id, const char *title);

/* Charts: horizontal bars, the rows with the most physical (resident) memory first, stacked
 * by series; the virtual sizes in a panel of their own scale beside them. */
struct chart_series {
	const char *name;
	size_t virt_col, phys_col; /* column indexes (CELL_U64), phys_col may equal virt_col */
};

struct chart {
	const char *title;
	const char *unit; /* "pages" */
	size_t label_col;
	bool sublabel;      /* label "LABEL (SUBLABEL)": two bash processes apart by pid */
	size_t sublabel_col;
	size_t max_rows; /* draw the max_rows rows with the most physical memory (0 = all) */
	size_t nseries;
	struct chart_series series[16];
};

/* A change chart (diff): one horizontal bar per row from a zero line, growth right, shrinkage
 * left, the first max_rows rows (the table sorted by the size of the change). */
struct delta_chart {
	const char *title;
	size_t label_col, value_col; /* value: CELL_I64 in units of unit_bytes */
	bool sublabel;               /* label "LABEL (SUBLABEL)" */
	size_t sublabel_col;
	uint64_t unit_bytes;         /* 1024 for a KiB column */
	size_t max_rows;
};

/* Line charts (the working set over time, wss ref vs est): x ascending per series. The
 * renderer draws at most a few points per pixel column (first, min, max, last of the points
 * that fall in it), so a series of a million samples keeps its peaks and stays small. */
struct line_series {
	char *name;       /* legend text */
	char *colour;     /* a colour key as the bar charts use ("code", "data", ...) */
	bool thin;        /* a secondary line: thinner and dashed */
	size_t n;
	double *x, *y;    /* n points each, owned */
};

struct line_marker { /* a dot with a tooltip, e.g. a detected peak */
	double x, y;
	char *colour, *label;
};

struct line_vline { /* a labelled vertical line, e.g. a phase mark */
	double x;
	char *label;
};

/* A chart keeps at most this many markers and vertical lines (the first ones added); the
 * rest are only counted, so a million peak records cost no million labels. */
#define LINE_CHART_MAX_MARKERS 2000
#define LINE_CHART_MAX_VLINES 500

struct line_chart {
	char *title, *x_unit, *y_unit;
	/* Categories on the x axis (tag values, snapshots): point i of a series is at x = i + 1
	 * and the axis shows these labels instead of numbers. NULL: a numeric x axis. */
	char **x_labels;
	size_t nx_labels;
	size_t nseries, nmarkers, nvlines;
	size_t markers_dropped, vlines_dropped; /* added beyond the maxima above */
	struct line_series *series;
	struct line_marker *markers;
	struct line_vline *vlines;
};

struct line_chart *line_chart_new(const char *title, const char *x_unit, const char *y_unit);
/* A new series with room for n points (fill x[i], y[i]); the pointer stays valid until the
 * next line_chart_add_series. */
struct line_series *line_chart_add_series(struct line_chart *c, const char *name,
					  const char *colour, bool thin, size_t n);
/* Beyond LINE_CHART_MAX_MARKERS / _VLINES these only count (label may then be NULL). */
void line_chart_add_marker(struct line_chart *c, double x, double y, const char *colour,
			   const char *label);
void line_chart_add_vline(struct line_chart *c, double x, const char *label);
/* Label the x axis with N categories (copied): x = 1..N. */
void line_chart_set_x_labels(struct line_chart *c, size_t n, const char *const *labels);
void line_chart_free(struct line_chart *c);

/* A picture of the physical address space (the ram analysis): COLS x ROWS cells in PFN
 * order, each standing for FRAMES_PER_CELL frames from FIRST_PFN on and holding the index
 * of the class most of them have (NCLASSES: none of them has a struct page); the classes'
 * names (their colours) and totals in bytes for the legend and the stacked bar. */
struct frame_map {
	size_t cols, rows, nclasses;
	uint8_t *cell;             /* cols * rows */
	/* per cell, the owner with the most of its frames of the cell's class ("slab cache
	 * dentry", "file /var/log/syslog", "vmalloc caller ..."), shown on hover; NULL: none */
	char **cell_owner;
	uint64_t first_pfn, frames_per_cell, page_size;
	const char *const *class_names;
	uint64_t *class_bytes;     /* nclasses */
};

struct table {
	char *id;    /* "summary", "resmap", "unit-totals", ... */
	char *title; /* "Per-process summary (pages)" */
	char *note;  /* shown under the title, e.g. why the table is partial; NULL if none */
	enum table_style style;
	size_t ncols;
	struct column *cols;
	size_t nrows, cap;
	struct cell *cells; /* row-major, nrows * ncols */
	struct chart *chart; /* NULL if the table has no chart */
	struct line_chart *lines; /* NULL if the table has no line chart */
	struct delta_chart *delta; /* NULL if the table has no change chart */
	struct frame_map *fmap;   /* NULL if the table has no frame map */
	/* A tree in preorder (the alloc tree): text and HTML indent the string cell of
	 * tree_label_col by the U64 depth in tree_depth_col; CSV and JSON stay flat. */
	bool tree;
	size_t tree_label_col, tree_depth_col;
	/* NULL, or per column the digits after the point of a CELL_F64 shown to people (text,
	 * HTML; 0 = the usual 2); CSV and JSON are always exact. See table_set_decimals. */
	unsigned char *decimals;
};

/* How text and HTML show sizes (pagesleuth report/diff --units): KiB/MiB/GiB rounded to
 * three digits, exact KiB, or exact pages (a size that is no whole number of pages, a PSS,
 * shows two decimals). */
enum size_units { UNITS_HUMAN, UNITS_KIB, UNITS_PAGES };

/* "human", "kib", "pages"; size_units_parse: 0, or -1 for any other name. */
const char *size_units_name(enum size_units u);
int size_units_parse(const char *name, enum size_units *u);
/* The unit a size column counts in ("bytes", "pages", "KiB"), NULL for any other column. */
const char *column_unit(const struct column *col);

struct report {
	/* Identity of what was analysed, for every renderer's heading. */
	char *source, *arch, *release, *dump, *time, *excluded;
	/* A report from a database of snapshots (pagesleuth db): the database it queried. The
	 * renderers then show it, the query and the time instead of one snapshot's identity. */
	char *database, *query;
	/* A diff: what A and B are (file and snapshot); the identity above is B's. */
	char *diff_a, *diff_b;
	uint32_t page_size;
	enum size_units units; /* how text and HTML show sizes */
	uint64_t snapshot_seq, snapshots;
	bool partial;       /* any input was incomplete */
	char *partial_why;  /* one line per reason */
	char *warnings;     /* reader warnings, one per line */
	char *headline;     /* the answer in one sentence (the ram analysis), shown first; or NULL */
	size_t ntables;
	struct table **tables;
};

/* BYTES for people into BUF, three significant digits at most 8 characters: "512 B",
 * "4.0 KiB", "19.1 MiB", "1023 KiB", "1.2 GiB"; returns BUF. The one formatting of sizes
 * (size cells in human units, notes, the charts' legends). */
#define BYTES_HUMAN_MAX 32
const char *bytes_human(uint64_t bytes, char buf[BYTES_HUMAN_MAX]);

/* The table copies cols, including the name and title strings. */
struct table *table_new(const char *id, const char *title, enum table_style style,
			size_t ncols, const struct column *cols);
void table_free(struct table *t);
/* Append an empty row; returns its index. */
size_t table_add_row(struct table *t);
struct cell *table_cell(struct table *t, size_t row, size_t col);
const struct cell *table_cell_c(const struct table *t, size_t row, size_t col);
void table_set_str(struct table *t, size_t row, size_t col, const char *s);
/* The cell shows s without copying it: s must outlive the table (the trace analyses' names
 * and frame labels live in the model, which outlives the report). A file whose records
 * name one long frame a million times then costs one copy of it, not a million. */
void table_set_str_ref(struct table *t, size_t row, size_t col, const char *s);
void table_set_u64(struct table *t, size_t row, size_t col, uint64_t v);
void table_set_i64(struct table *t, size_t row, size_t col, int64_t v);
void table_set_f64(struct table *t, size_t row, size_t col, double v);
void table_set_decimals(struct table *t, size_t col, unsigned char decimals);
void table_set_note(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sort rows by column col (descending if desc); strings compare with strcmp. */
void table_sort(struct table *t, size_t col, bool desc);

void report_add(struct report *r, struct table *t);
struct table *report_find(const struct report *r, const char *id);
void report_free(struct report *r);
void report_set_partial(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Renderers (analyzer/render_*.c). Each returns 0, or -1 with errno set on a write error
 * (or EINVAL for a table it cannot draw). */
typedef int (*renderer)(const struct report *, FILE *);
/* The renderer for -f NAME (text, csv, json), or NULL after a message naming CMD
 * (analyzer/render_output.c). */
renderer render_format(const char *cmd, const char *name);
/* Render to PATH atomically, or to standard output when PATH is NULL: 0, or -1 after one
 * line naming the file and why. */
int render_to_path(const struct report *r, renderer render, const char *path);
struct atomic_file;
/* Commit an atomic file just rendered into (RENDER_RC: the renderer's result): 0, or -1
 * after one line naming PATH and why; nothing is left behind then. */
int render_commit(struct atomic_file *af, const char *path, int render_rc);
int render_text(const struct report *r, FILE *out);
int render_csv(const struct report *r, FILE *out);
int render_json(const struct report *r, FILE *out);
int render_html(const struct report *r, FILE *out);
/* One chart as a standalone SVG document (used by render_html and by --svg DIR). */
int render_chart_svg(const struct table *t, FILE *out);
/* A table's frame map (the ram analysis) as a standalone SVG document. */
int render_framemap_svg(const struct table *t, FILE *out);
void frame_map_free(struct frame_map *fm);
/* A table's line chart as a standalone SVG document; EINVAL if it has none. */
int render_lines_svg(const struct table *t, FILE *out);
/* One resident map as SVG: the group whose rows start at row `first` (analyses emit each
 * group's rows together; see render_map_group_end). Returns -1 with errno EINVAL if t is
 * not a STYLE_MAP table or first is out of range. */
int render_map_svg(const struct table *t, size_t first, uint32_t page_size, FILE *out);
/* The row after the last one of the group that starts at row `first` of a STYLE_MAP table. */
size_t render_map_group_end(const struct table *t, size_t first);

#endif
