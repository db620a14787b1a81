/* arch_ppc64.c - 64-bit PowerPC (Book3S radix and hash MMUs). Placeholder: the walker for
 * it is being written (issue: cross-architecture); until then ppc64 dumps are refused
 * with a clear message. */
#include "core.h"

static int ppc64_init(struct ps_core *c)
{
	return ps_core_fail(c, "core: the ppc64 page-table walker is not implemented yet");
}

const struct ps_arch ps_arch_ppc64le = { .name = "ppc64le", .init = ppc64_init };
const struct ps_arch ps_arch_ppc64 = { .name = "ppc64", .init = ppc64_init };
