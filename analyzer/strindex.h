/* strindex.h - intern strings to dense ids (0, 1, 2, ...) with an open hash. Used for
 * executable units and mapped-object names. */
#ifndef PAGESLEUTH_STRINDEX_H
#define PAGESLEUTH_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

struct strindex {
	char **strs; /* by id, owned */
	size_t n, cap;
	uint32_t *slots; /* id + 1, 0 = empty */
	size_t nslots;
};

/* The id of s, adding a copy of it if new. */
uint32_t strindex_intern(struct strindex *ix, const char *s);
/* Free the hash only; the caller takes ownership of strs (and frees each and the array). */
void strindex_release_hash(struct strindex *ix);
void strindex_free(struct strindex *ix);

#endif
