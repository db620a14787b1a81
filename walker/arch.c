/* arch.c - the list of known MMUs, found by the record header's architecture name or the
 * names other tools use for the same machine (libkdumpfile, uname -m, ELF conventions). */
#include <stddef.h>
#include <string.h>

#include "arch.h"

static const struct {
	const char *name;
	const struct ps_arch *arch;
} known[] = {
	{ "x86_64", &ps_arch_x86_64 },
	{ "amd64", &ps_arch_x86_64 },
	{ "x86-64", &ps_arch_x86_64 },
	{ "arm64", &ps_arch_arm64 },
	{ "aarch64", &ps_arch_arm64 },
	{ "ppc64le", &ps_arch_ppc64le },
	{ "ppc64", &ps_arch_ppc64 },
	{ "arm", &ps_arch_arm },
	{ "armhf", &ps_arch_arm },
	{ "ppc32", &ps_arch_ppc32 },
	{ "ppc", &ps_arch_ppc32 },
};

const struct ps_arch *ps_arch_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i].name, name) == 0)
			return known[i].arch;
	return NULL;
}
