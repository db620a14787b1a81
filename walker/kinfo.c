/* kinfo.c - filling the kernel-facts table from any type-information source by name.
 *
 * The table's shape comes from the X-macros in kinfo.h; this file only walks them, asks
 * the source for each entry and collects every missing required entry into one message,
 * so a user with an unusual kernel learns everything that is missing at once.
 */
#include "kinfo.h"
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---------------------------------------------------------------------- */

struct member_spec {
	const char *type, *path, *full;
	int req;
};
struct named_spec {
	const char *name;
	int req;
};

static const struct member_spec member_specs[PS_KI_NMEMBERS] = {
#define X(ID, TYPE, PATH, REQ) [PS_KI_##ID] = { TYPE, PATH, TYPE "." PATH, REQ },
	PS_KI_MEMBERS(X)
#undef X
};
/* Members renamed without a change of meaning: the same fact under its newer name, tried
 * when the table's name is absent. */
static const struct {
	enum ps_ki_member id;
	const char *path;
} member_aliases[] = {
	/* "mm: Rename the 'compound_head' field in the 'struct page' to 'compound_info'"
	 * (Kiryl Shutsemau, 2026; in Debian's 7.2): still bit 0 = tail; the rest points at
	 * the head, or is a mask of the head's address (page.c head_pfn_of). */
	{ PS_KI_PAGE_COMPOUND_HEAD, "compound_info" },
	/* powerpc's mm_context_t.vdso_base up to 5.10, renamed vdso in 5.11 ("powerpc/vdso:
	 * Replace vdso_base by vdso", c102f0766748). */
	{ PS_KI_MM_CONTEXT_VDSO, "context.vdso_base" },
};
static const struct named_spec size_specs[PS_KI_NSIZES] = {
#define X(ID, TYPE, REQ) [PS_KI_##ID] = { TYPE, REQ },
	PS_KI_SIZES(X)
#undef X
};
static const struct named_spec enum_specs[PS_KI_NENUMS] = {
#define X(ID, NAME, REQ) [PS_KI_##ID] = { NAME, REQ },
	PS_KI_ENUMS(X)
#undef X
};
static const struct named_spec symbol_specs[PS_KI_NSYMBOLS] = {
#define X(ID, NAME, REQ) [PS_KI_##ID] = { NAME, REQ },
	PS_KI_SYMBOLS(X)
#undef X
};

const char *ps_ki_member_name(enum ps_ki_member id)
{
	return (unsigned)id < PS_KI_NMEMBERS ? member_specs[id].full : "?";
}
const char *ps_ki_size_name(enum ps_ki_size id)
{
	return (unsigned)id < PS_KI_NSIZES ? size_specs[id].name : "?";
}
const char *ps_ki_enum_name(enum ps_ki_enum id)
{
	return (unsigned)id < PS_KI_NENUMS ? enum_specs[id].name : "?";
}
const char *ps_ki_symbol_name(enum ps_ki_symbol id)
{
	return (unsigned)id < PS_KI_NSYMBOLS ? symbol_specs[id].name : "?";
}

/* ---- init / fill ------------------------------------------------------------------ */

static void reset_tables(struct ps_kinfo *ki)
{
	for (unsigned i = 0; i < PS_KI_NMEMBERS; i++)
		ki->member[i] = (struct ps_kinfo_member){ .offset = PS_KI_ABSENT };
	for (unsigned i = 0; i < PS_KI_NSIZES; i++)
		ki->size[i] = PS_KI_ABSENT;
	for (unsigned i = 0; i < PS_KI_NENUMS; i++)
		ki->enumval[i] = PS_KI_ABSENT;
	for (unsigned i = 0; i < PS_KI_NSYMBOLS; i++)
		ki->symbol[i] = 0;
}

void ps_kinfo_init(struct ps_kinfo *ki)
{
	memset(ki, 0, sizeof(*ki));
	reset_tables(ki);
}

void ps_kinfo_set_source(struct ps_kinfo *ki, const char *kind, const char *name)
{
	if (!name)
		name = "";
	size_t room = sizeof(ki->source) - 1;
	if (strlen(kind) + 1 + strlen(name) > room) {
		const char *slash = strrchr(name, '/');
		if (slash && slash[1])
			name = slash + 1;
	}
	snprintf(ki->source, sizeof(ki->source), "%s:%s", kind, name);
}

/* A growing ", "-separated list of missing names; on allocation failure it just stops
 * growing (the fill still fails, with a shorter message). */
struct missing_list {
	char *text;
	size_t len, cap;
	unsigned count;
};

static void missing_add(struct missing_list *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void missing_add(struct missing_list *m, const char *fmt, ...)
{
	char item[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	m->count++;
	size_t need = m->len + (m->len ? 2 : 0) + strlen(item) + 1;
	if (need > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		while (cap < need)
			cap *= 2;
		char *t = realloc(m->text, cap);
		if (!t)
			return;
		m->text = t;
		m->cap = cap;
	}
	m->len += (size_t)sprintf(m->text + m->len, "%s%s", m->len ? ", " : "", item);
}

int ps_kinfo_fill(struct ps_kinfo *ki, const struct ps_typeinfo_ops *ops, void *ctx, char **err)
{
	if (err)
		*err = NULL;
	reset_tables(ki);
	struct missing_list missing = { 0 };

	for (unsigned i = 0; i < PS_KI_NMEMBERS; i++) {
		const struct member_spec *s = &member_specs[i];
		struct ps_kinfo_member m = { .offset = PS_KI_ABSENT };
		bool found = ops->member && ops->member(ctx, s->type, s->path, &m) == 0 &&
			     m.offset != PS_KI_ABSENT;
		for (size_t a = 0; !found && ops->member && a < sizeof member_aliases / sizeof member_aliases[0]; a++)
			if (member_aliases[a].id == i)
				found = ops->member(ctx, s->type, member_aliases[a].path, &m) == 0 &&
					m.offset != PS_KI_ABSENT;
		if (found)
			ki->member[i] = m;
		else if (s->req)
			missing_add(&missing, "%s", s->full);
	}
	for (unsigned i = 0; i < PS_KI_NSIZES; i++) {
		int64_t v;
		if (ops->type_size && ops->type_size(ctx, size_specs[i].name, &v) == 0)
			ki->size[i] = v;
		else if (size_specs[i].req)
			missing_add(&missing, "sizeof(%s)", size_specs[i].name);
	}
	for (unsigned i = 0; i < PS_KI_NENUMS; i++) {
		int64_t v;
		if (ops->enum_value && ops->enum_value(ctx, enum_specs[i].name, &v) == 0)
			ki->enumval[i] = v;
		else if (enum_specs[i].req)
			missing_add(&missing, "enumerator %s", enum_specs[i].name);
	}
	/* A source without symbols (BTF) leaves them to kallsyms/VMCOREINFO: not an error. */
	if (ops->symbol) {
		for (unsigned i = 0; i < PS_KI_NSYMBOLS; i++) {
			uint64_t v;
			if (ops->symbol(ctx, symbol_specs[i].name, &v) == 0)
				ki->symbol[i] = v;
			else if (symbol_specs[i].req)
				missing_add(&missing, "symbol %s", symbol_specs[i].name);
		}
	}

	if (!missing.count) {
		free(missing.text);
		return 0;
	}
	ps_set_err(err, "%s: missing %u required kernel fact%s: %s",
		   ki->source[0] ? ki->source : "type information", missing.count,
		   missing.count == 1 ? "" : "s", missing.text ? missing.text : "?");
	free(missing.text);
	return -1;
}
