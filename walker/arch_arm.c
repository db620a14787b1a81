/* arch_arm.c - 32-bit ARM (ARMv7 short-descriptor tables, LPAE). Placeholder: the walker
 * for it is being written (issue: cross-architecture); until then 32-bit ARM dumps are
 * refused with a clear message. */
#include "core.h"

static int arm_init(struct ps_core *c)
{
	return ps_core_fail(c, "core: the 32-bit ARM page-table walker is not implemented yet");
}

const struct ps_arch ps_arch_arm = { .name = "arm", .init = arm_init };
