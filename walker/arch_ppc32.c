/* arch_ppc32.c - 32-bit PowerPC Book-E (e500 with 32- or 64-bit PTEs, 44x). Placeholder:
 * the walker for it is being written (issue: cross-architecture); until then these dumps
 * are refused with a clear message. */
#include "core.h"

static int ppc32_init(struct ps_core *c)
{
	return ps_core_fail(c, "core: the 32-bit PowerPC page-table walker is not implemented yet");
}

const struct ps_arch ps_arch_ppc32 = { .name = "ppc32", .init = ppc32_init };
