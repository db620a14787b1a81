/* strindex.c - see strindex.h. */
#include "strindex.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static void rehash(struct strindex *ix)
{
	size_t ncap = ix->nslots ? ix->nslots * 2 : 256;
	uint32_t *ns = xcalloc(ncap, sizeof *ns);
	for (size_t id = 0; id < ix->n; id++) {
		size_t h = fnv1a(ix->strs[id]) & (ncap - 1);
		while (ns[h])
			h = (h + 1) & (ncap - 1);
		ns[h] = (uint32_t)id + 1;
	}
	free(ix->slots);
	ix->slots = ns;
	ix->nslots = ncap;
}

uint32_t strindex_intern(struct strindex *ix, const char *s)
{
	if ((ix->n + 1) * 2 > ix->nslots)
		rehash(ix);
	size_t h = fnv1a(s) & (ix->nslots - 1);
	while (ix->slots[h]) {
		if (strcmp(ix->strs[ix->slots[h] - 1], s) == 0)
			return ix->slots[h] - 1;
		h = (h + 1) & (ix->nslots - 1);
	}
	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? ix->cap * 2 : 64;
		ix->strs = xrealloc(ix->strs, ix->cap * sizeof *ix->strs);
	}
	ix->strs[ix->n] = xstrdup(s);
	ix->slots[h] = (uint32_t)ix->n + 1;
	return (uint32_t)ix->n++;
}

void strindex_release_hash(struct strindex *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->nslots = 0;
}

void strindex_free(struct strindex *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->strs[i]);
	free(ix->strs);
	strindex_release_hash(ix);
	memset(ix, 0, sizeof *ix);
}
