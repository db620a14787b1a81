/* alloc_rules - parse and apply allocation-tree rules; byte accounting with lazy peak
 * snapshots. Freestanding (see alloc_rules.h): no libc calls, the caller's allocator. */
#include "alloc_rules.h"

enum cond_kind { COND_FN, COND_PREFIX, COND_PATH };

/* One condition: fn glob, function-name prefix, or a fragment of the source/object path. */
struct cond {
	enum cond_kind kind;
	char *value;
};

/* A rule line of a group: every condition must hold for the same frame. */
struct rule {
	struct cond *conds;
	unsigned n;
};

struct group {
	char *path;          /* "net/tcp" */
	int parent;          /* -1: top level */
	unsigned line;       /* where it was declared */
	struct rule *rules;
	unsigned nrules, cap;
	int first_child, last_child, next_sibling; /* file order; -1 = none */
};

struct ar_rules {
	struct ar_allocator a;
	struct cond *discard;
	unsigned ndiscard, discard_cap;
	struct group *groups; /* [0] = "other" */
	unsigned ngroups, groups_cap;
	int first_top, last_top; /* user top-level groups, file order */
};

/* ---- small freestanding string helpers ---------------------------------------------------- */
static size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static bool starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

static bool contains(const char *hay, const char *needle)
{
	if (!*needle)
		return true;
	for (; *hay; hay++)
		if (starts_with(hay, needle))
			return true;
	return false;
}

static void copy_bytes(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n--)
		*d++ = *s++;
}

/* Append formatted pieces to err->reason (only %s-style pieces: strings in sequence). Bytes
 * that are not printable ASCII are written \xHH: a rules file's text reaches a terminal in
 * the error line, and its escape sequences must not act there. */
static void reason_add(struct ar_error *err, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = str_len(err->reason);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch >= 0x20 && ch < 0x7f) {
			if (at + 1 >= sizeof err->reason)
				break;
			err->reason[at++] = (char)ch;
		} else {
			if (at + 4 >= sizeof err->reason)
				break;
			err->reason[at++] = '\\', err->reason[at++] = 'x';
			err->reason[at++] = hex[ch >> 4], err->reason[at++] = hex[ch & 15];
		}
	}
	err->reason[at] = 0;
}

static void set_error(struct ar_error *err, unsigned line, const char *a, const char *b,
		      const char *c)
{
	err->line = line;
	err->reason[0] = 0;
	reason_add(err, a);
	if (b)
		reason_add(err, b);
	if (c)
		reason_add(err, c);
}

bool ar_glob(const char *p, const char *s)
{
	/* Iterative matcher with one backtrack point (the last `*`): linear in practice. */
	const char *star = 0, *resume = 0;
	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
		} else if (*p == '?' || *p == *s) {
			p++, s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

/* ---- allocation ---------------------------------------------------------------------------- */
static void *mem(struct ar_rules *r, size_t bytes)
{
	return r->a.alloc(r->a.ctx, bytes ? bytes : 1);
}

/* Grow an array of `size`-byte elements to hold at least need; false when out of memory. */
static bool grow(struct ar_rules *r, void **arr, unsigned *cap, unsigned need, size_t size)
{
	if (need <= *cap)
		return true;
	unsigned ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *n = mem(r, (size_t)ncap * size);
	if (!n)
		return false;
	if (*arr) {
		copy_bytes(n, *arr, (size_t)*cap * size);
		r->a.free(r->a.ctx, *arr);
	}
	*arr = n;
	*cap = ncap;
	return true;
}

static char *dup_range(struct ar_rules *r, const char *s, size_t n)
{
	char *d = mem(r, n + 1);
	if (!d)
		return 0;
	copy_bytes(d, s, n);
	d[n] = 0;
	return d;
}

void ar_rules_free(struct ar_rules *r)
{
	if (!r)
		return;
	void (*fr)(void *, void *) = r->a.free;
	void *ctx = r->a.ctx;
	for (unsigned i = 0; i < r->ndiscard; i++)
		fr(ctx, r->discard[i].value);
	if (r->discard)
		fr(ctx, r->discard);
	for (unsigned g = 0; g < r->ngroups; g++) {
		struct group *gr = &r->groups[g];
		for (unsigned i = 0; i < gr->nrules; i++) {
			for (unsigned c = 0; c < gr->rules[i].n; c++)
				fr(ctx, gr->rules[i].conds[c].value);
			if (gr->rules[i].conds)
				fr(ctx, gr->rules[i].conds);
		}
		if (gr->rules)
			fr(ctx, gr->rules);
		if (gr->path)
			fr(ctx, gr->path);
	}
	if (r->groups)
		fr(ctx, r->groups);
	fr(ctx, r);
}

/* ---- tokens -------------------------------------------------------------------------------- */
#define MAX_TOKENS 16

struct token {
	char *text; /* unquoted, NUL-terminated copy */
	bool quoted;
};

struct line_tokens {
	struct token t[MAX_TOKENS];
	unsigned n;
};

static void tokens_free(struct ar_rules *r, struct line_tokens *lt)
{
	for (unsigned i = 0; i < lt->n; i++)
		if (lt->t[i].text)
			r->a.free(r->a.ctx, lt->t[i].text);
	lt->n = 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split one line into tokens: bare words, or "double quoted" (\" and \\ escapes) for values
 * with spaces (`operator new(unsigned long)`). `#` at the start of a token starts a comment. */
static bool tokenize(struct ar_rules *r, const char *s, const char *end, unsigned line,
		     struct line_tokens *lt, struct ar_error *err)
{
	lt->n = 0;
	for (;;) {
		while (s < end && is_space(*s))
			s++;
		if (s == end || *s == '#')
			return true;
		if (lt->n == MAX_TOKENS) {
			set_error(err, line, "too many words on one line (at most 16)", 0, 0);
			return false;
		}
		struct token *t = &lt->t[lt->n];
		if (*s == '"') {
			const char *start = ++s;
			size_t n = 0;
			const char *q = s;
			for (; q < end && *q != '"'; q++, n++)
				if (*q == '\\' && q + 1 < end)
					q++;
			if (q == end) {
				set_error(err, line, "unterminated quoted string", 0, 0);
				return false;
			}
			char *d = mem(r, n + 1);
			if (!d) {
				set_error(err, line, "out of memory", 0, 0);
				return false;
			}
			size_t k = 0;
			for (q = start; *q != '"'; q++) {
				if (*q == '\\')
					q++;
				d[k++] = *q;
			}
			d[k] = 0;
			t->text = d;
			t->quoted = true;
			s = q + 1;
			if (s < end && !is_space(*s)) {
				lt->n++; /* so tokens_free frees it */
				set_error(err, line, "a quoted string must be followed by a space", 0, 0);
				return false;
			}
		} else {
			const char *start = s;
			while (s < end && !is_space(*s))
				s++;
			t->text = dup_range(r, start, (size_t)(s - start));
			if (!t->text) {
				set_error(err, line, "out of memory", 0, 0);
				return false;
			}
			t->quoted = false;
		}
		lt->n++;
	}
}

static bool parse_kind(const char *word, enum cond_kind *kind)
{
	if (str_eq(word, "fn"))
		*kind = COND_FN;
	else if (str_eq(word, "prefix"))
		*kind = COND_PREFIX;
	else if (str_eq(word, "path"))
		*kind = COND_PATH;
	else
		return false;
	return true;
}

/* A group path: segments of [A-Za-z0-9_.+-], separated by single `/`. */
static bool valid_group_path(const char *p)
{
	bool seg_empty = true;
	for (; *p; p++) {
		char c = *p;
		if (c == '/') {
			if (seg_empty)
				return false;
			seg_empty = true;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-' || c == '+'))
			return false;
		seg_empty = false;
	}
	return !seg_empty;
}

static int find_group(const struct ar_rules *r, const char *path, size_t len)
{
	for (unsigned g = 0; g < r->ngroups; g++) {
		const char *p = r->groups[g].path;
		size_t i = 0;
		while (i < len && p[i] == path[i])
			i++;
		if (i == len && !p[len])
			return (int)g;
	}
	return -1;
}

static void link_child(struct ar_rules *r, int parent, int g)
{
	int *first = parent < 0 ? &r->first_top : &r->groups[parent].first_child;
	int *last = parent < 0 ? &r->last_top : &r->groups[parent].last_child;
	if (*last < 0)
		*first = g;
	else
		r->groups[*last].next_sibling = g;
	*last = g;
}

static bool add_group(struct ar_rules *r, const char *path, int parent, unsigned line)
{
	if (!grow(r, (void **)&r->groups, &r->groups_cap, r->ngroups + 1, sizeof *r->groups))
		return false;
	struct group *g = &r->groups[r->ngroups];
	g->path = dup_range(r, path, str_len(path));
	if (!g->path)
		return false;
	g->parent = parent;
	g->line = line;
	g->rules = 0;
	g->nrules = g->cap = 0;
	g->first_child = g->last_child = g->next_sibling = -1;
	r->ngroups++;
	if (parent != -2) /* -2: the default group, not in the matching tree */
		link_child(r, parent, (int)r->ngroups - 1);
	return true;
}

static bool parse_line(struct ar_rules *r, struct line_tokens *lt, unsigned line, int *current,
		       struct ar_error *err)
{
	if (!lt->n)
		return true;
	const char *kw = lt->t[0].text;
	if (lt->t[0].quoted) {
		set_error(err, line, "a line starts with a keyword (discard, group, fn, prefix or path), not a quoted string", 0, 0);
		return false;
	}
	if (str_eq(kw, "discard")) {
		enum cond_kind kind;
		if (lt->n != 3 || !parse_kind(lt->t[1].text, &kind)) {
			set_error(err, line, "expected `discard fn|prefix|path VALUE`", 0, 0);
			return false;
		}
		if (!*lt->t[2].text) {
			set_error(err, line, "empty value for discard ", lt->t[1].text, 0);
			return false;
		}
		if (!grow(r, (void **)&r->discard, &r->discard_cap, r->ndiscard + 1, sizeof *r->discard)) {
			set_error(err, line, "out of memory", 0, 0);
			return false;
		}
		r->discard[r->ndiscard].kind = kind;
		r->discard[r->ndiscard].value = lt->t[2].text;
		lt->t[2].text = 0; /* owned by the rules now */
		r->ndiscard++;
		return true;
	}
	if (str_eq(kw, "group")) {
		if (lt->n != 2) {
			set_error(err, line, "expected `group NAME` (NAME like net or net/tcp)", 0, 0);
			return false;
		}
		const char *path = lt->t[1].text;
		if (!valid_group_path(path)) {
			set_error(err, line, "bad group name '", path,
				  "' (segments of letters, digits, _ . + -, separated by /)");
			return false;
		}
		unsigned depth = 1;
		for (const char *c = path; *c; c++)
			depth += *c == '/';
		if (depth > AR_MAX_GROUP_DEPTH) {
			set_error(err, line, "group '", path, "' is nested too deeply (at most 32 levels)");
			return false;
		}
		if (r->ngroups > AR_MAX_GROUPS) { /* groups[0] is the default group */
			set_error(err, line, "too many groups (at most 10000)", 0, 0);
			return false;
		}
		if (find_group(r, path, str_len(path)) >= 0) {
			set_error(err, line, "group '", path, str_eq(path, "other") ?
				  "' is the default group's name" : "' is defined twice");
			return false;
		}
		int parent = -1;
		size_t slash = str_len(path);
		while (slash > 0 && path[slash - 1] != '/')
			slash--;
		if (slash) {
			parent = find_group(r, path, slash - 1);
			if (parent < 0) {
				char buf[160];
				size_t n = slash - 1 < sizeof buf - 1 ? slash - 1 : sizeof buf - 1;
				copy_bytes(buf, path, n);
				buf[n] = 0;
				set_error(err, line, "group '", path, "': its parent group '");
				reason_add(err, buf);
				reason_add(err, "' must be defined before it");
				return false;
			}
			if (parent == (int)AR_GROUP_OTHER) {
				set_error(err, line, "group '", path,
					  "': 'other' is the default group and has no subgroups");
				return false;
			}
		}
		if (!add_group(r, path, parent, line)) {
			set_error(err, line, "out of memory", 0, 0);
			return false;
		}
		*current = (int)r->ngroups - 1;
		return true;
	}
	enum cond_kind kind;
	if (!parse_kind(kw, &kind)) {
		set_error(err, line, "unknown keyword '", kw,
			  "' (expected discard, group, fn, prefix or path)");
		return false;
	}
	if (*current < 0) {
		set_error(err, line, "rule '", kw, "' outside a group (start one with `group NAME`)");
		return false;
	}
	if (lt->n % 2) {
		set_error(err, line, "'", lt->t[lt->n - 1].text,
			  "' needs a value (a rule line is KIND VALUE [KIND VALUE ...])");
		return false;
	}
	unsigned nconds = lt->n / 2;
	struct cond *conds = mem(r, nconds * sizeof *conds);
	if (!conds) {
		set_error(err, line, "out of memory", 0, 0);
		return false;
	}
	for (unsigned i = 0; i < nconds; i++) {
		struct token *k = &lt->t[2 * i], *v = &lt->t[2 * i + 1];
		if (k->quoted || !parse_kind(k->text, &conds[i].kind)) {
			set_error(err, line, "unknown rule kind '", k->text, "' (expected fn, prefix or path)");
			r->a.free(r->a.ctx, conds);
			return false;
		}
		if (!*v->text) {
			set_error(err, line, "empty value for ", k->text, 0);
			r->a.free(r->a.ctx, conds);
			return false;
		}
	}
	struct group *g = &r->groups[*current];
	if (!grow(r, (void **)&g->rules, &g->cap, g->nrules + 1, sizeof *g->rules)) {
		r->a.free(r->a.ctx, conds);
		set_error(err, line, "out of memory", 0, 0);
		return false;
	}
	for (unsigned i = 0; i < nconds; i++) {
		conds[i].value = lt->t[2 * i + 1].text;
		lt->t[2 * i + 1].text = 0;
	}
	g->rules[g->nrules].conds = conds;
	g->rules[g->nrules].n = nconds;
	g->nrules++;
	return true;
}

struct ar_rules *ar_parse(const char *text, size_t len, const struct ar_allocator *a,
			  struct ar_error *err)
{
	err->line = 0;
	err->reason[0] = 0;
	struct ar_rules *r = a->alloc(a->ctx, sizeof *r);
	if (!r) {
		set_error(err, 0, "out of memory", 0, 0);
		return 0;
	}
	r->a = *a;
	r->discard = 0;
	r->ndiscard = r->discard_cap = 0;
	r->groups = 0;
	r->ngroups = r->groups_cap = 0;
	r->first_top = r->last_top = -1;
	if (!add_group(r, "other", -2, 0)) {
		set_error(err, 0, "out of memory", 0, 0);
		ar_rules_free(r);
		return 0;
	}
	int current = -1;
	unsigned line = 0;
	struct line_tokens lt;
	lt.n = 0;
	const char *s = text, *end = text + len;
	while (s < end) {
		line++;
		const char *eol = s;
		while (eol < end && *eol != '\n' && *eol)
			eol++;
		if (eol < end && !*eol) {
			set_error(err, line, "NUL byte (not a text file)", 0, 0);
			ar_rules_free(r);
			return 0;
		}
		bool ok = tokenize(r, s, eol, line, &lt, err) && parse_line(r, &lt, line, &current, err);
		tokens_free(r, &lt);
		if (!ok) {
			ar_rules_free(r);
			return 0;
		}
		s = eol < end ? eol + 1 : eol;
	}
	/* A group with neither rules nor subgroups could never match: surely a mistake. */
	for (unsigned g = 1; g < r->ngroups; g++)
		if (!r->groups[g].nrules && r->groups[g].first_child < 0) {
			set_error(err, r->groups[g].line, "group '", r->groups[g].path,
				  "' has no rules and no subgroups");
			ar_rules_free(r);
			return 0;
		}
	return r;
}

/* ---- matching ------------------------------------------------------------------------------ */
static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const char *ar_qualified_name(const char *fn)
{
	/* A demangled template function comes with its return type ("void std::vector<int>::
	 * _M_realloc_insert<...>(...)"): skip to after the last space outside <...> before the
	 * parameter list. An operator's name ends the scan (its symbol may be < or ( ...). */
	const char *after = fn;
	int depth = 0;
	for (const char *p = fn; *p; p++) {
		if (starts_with(p, "operator") && (p == fn || !is_ident(p[-1])) && !is_ident(p[8]))
			break;
		char c = *p;
		if (c == '<' || c == '[')
			depth++;
		else if ((c == '>' || c == ']') && depth > 0)
			depth--;
		else if (c == '(' && depth == 0)
			break;
		else if (c == ' ' && depth == 0)
			after = p + 1;
	}
	return after;
}

static bool cond_matches(const struct cond *c, const struct ar_frame *f)
{
	switch (c->kind) {
	case COND_FN:
		return f->fn && *f->fn && ar_glob(c->value, f->fn);
	case COND_PREFIX:
		return f->fn && *f->fn && starts_with(ar_qualified_name(f->fn), c->value);
	case COND_PATH:
		return (f->file && contains(f->file, c->value)) ||
		       (f->obj && contains(f->obj, c->value));
	}
	return false;
}

unsigned ar_discard(const struct ar_rules *r, const struct ar_frame *frames, unsigned n)
{
	unsigned k = 0;
	while (k + 1 < n) {
		bool hit = false;
		for (unsigned i = 0; i < r->ndiscard && !hit; i++)
			hit = cond_matches(&r->discard[i], &frames[k]);
		if (!hit)
			break;
		k++;
	}
	return k;
}

static bool rule_matches(const struct rule *ru, const struct ar_frame *frames, unsigned n)
{
	for (unsigned f = 0; f < n; f++) {
		unsigned c = 0;
		while (c < ru->n && cond_matches(&ru->conds[c], &frames[f]))
			c++;
		if (c == ru->n)
			return true;
	}
	return false;
}

static int first_match(const struct ar_rules *r, int g, const struct ar_frame *frames, unsigned n);

/* A group matches when one of its rule lines does; a group without rule lines (a container)
 * matches when one of its subgroups does. */
static bool group_matches(const struct ar_rules *r, int g, const struct ar_frame *frames,
			  unsigned n)
{
	const struct group *gr = &r->groups[g];
	if (!gr->nrules)
		return first_match(r, gr->first_child, frames, n) >= 0;
	for (unsigned i = 0; i < gr->nrules; i++)
		if (rule_matches(&gr->rules[i], frames, n))
			return true;
	return false;
}

/* The first group in the sibling list starting at g that matches, or -1. */
static int first_match(const struct ar_rules *r, int g, const struct ar_frame *frames, unsigned n)
{
	for (; g >= 0; g = r->groups[g].next_sibling)
		if (group_matches(r, g, frames, n))
			return g;
	return -1;
}

unsigned ar_classify(const struct ar_rules *r, const struct ar_frame *frames, unsigned n)
{
	int g = first_match(r, r->first_top, frames, n);
	if (g < 0)
		return AR_GROUP_OTHER;
	for (;;) {
		int child = first_match(r, r->groups[g].first_child, frames, n);
		if (child < 0)
			return (unsigned)g;
		g = child;
	}
}

unsigned ar_group_count(const struct ar_rules *r)
{
	return r->ngroups;
}

const char *ar_group_path(const struct ar_rules *r, unsigned g)
{
	return g < r->ngroups ? r->groups[g].path : 0;
}

int ar_group_parent(const struct ar_rules *r, unsigned g)
{
	return g < r->ngroups && g ? r->groups[g].parent : -1;
}

unsigned ar_discard_count(const struct ar_rules *r)
{
	return r->ndiscard;
}

/* ---- accounting ---------------------------------------------------------------------------- */
static void mark_dirty(struct ar_heap *h, struct ar_counter *c)
{
	if (!c->dirty) {
		c->dirty = true;
		c->next_dirty = h->dirty;
		h->dirty = c;
	}
}

static void snapshot(struct ar_heap *h)
{
	for (struct ar_counter *c = h->dirty, *next; c; c = next) {
		next = c->next_dirty;
		c->peak = c->cur;
		c->dirty = false;
		c->next_dirty = 0;
	}
	h->dirty = 0;
	h->snapshot_pending = false;
}

void ar_heap_alloc(struct ar_heap *h, struct ar_counter *const *c, unsigned n, uint64_t bytes)
{
	for (unsigned i = 0; i < n; i++) {
		struct ar_counter *k = c[i];
		k->cur += bytes;
		k->total += bytes;
		k->blocks++;
		if (k->cur > k->max)
			k->max = k->cur;
		mark_dirty(h, k);
	}
	h->cur += bytes;
	h->total += bytes;
	h->blocks++;
	if (h->cur > h->max) {
		h->max = h->cur;
		h->snapshot_pending = true;
	}
}

void ar_heap_free(struct ar_heap *h, struct ar_counter *const *c, unsigned n, uint64_t bytes)
{
	/* Only allocations happened since the heap maximum was reached (any release would have
	 * taken the snapshot), so the state right now is still the peak state. */
	if (h->snapshot_pending)
		snapshot(h);
	for (unsigned i = 0; i < n; i++) {
		c[i]->cur -= bytes;
		mark_dirty(h, c[i]);
	}
	h->cur -= bytes;
}

void ar_heap_finish(struct ar_heap *h)
{
	if (h->snapshot_pending)
		snapshot(h);
}
