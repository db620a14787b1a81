/* dump_open.c - what every command that reads a dump does first (extract, log): open the
 * dump, say its repairs as warnings, open the walker on it. One line on stderr for a failure.
 * Then the type information, from the source the command was given (extract, and the
 * in-process fuzzer over real dumps, fuzz/fuzz_dump_walk.c, which walks as extract does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "errmsg.h"
#include "kinfo.h"
#include "walker.h"

int ps_dump_open_walker(const char *prog, const char *path, struct ps_dump **d, struct ps_walker **w)
{
	char *err = NULL, *warnings = NULL;
	*w = NULL;
	*d = ps_dump_open(path, &warnings, &err);
	for (const char *p = warnings; p && *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(stderr, "%s: warning: %.*s\n", prog, len, p);
		p = nl ? nl + 1 : p + len;
	}
	free(warnings);
	if (!*d) {
		fprintf(stderr, "%s: %s\n", prog, err ? err : path);
		free(err);
		return -1;
	}
	*w = ps_walker_open(ps_dump_target(*d), &err);
	if (!*w) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, err ? err : "cannot read the kernel");
		free(err);
		return -1;
	}
	return 0;
}

int ps_dump_type_info(struct ps_walker *w, enum ps_type_source source, const char *file,
		      const char *system_map, struct ps_kinfo *ki, char **err)
{
	ps_kinfo_init(ki);
	int rc = -1;
	switch (source) {
	case PS_TYPES_PROFILE:
		rc = ps_profile_read(ki, file, err);
		break;
	case PS_TYPES_VMLINUX:
		rc = ps_kinfo_fill_from_vmlinux(ki, file, err);
		break;
	case PS_TYPES_BTF:
		rc = ps_kinfo_fill_from_btf_file(ki, file, err);
		break;
	case PS_TYPES_DUMP_BTF: {
		void *data = NULL;
		size_t len = 0;
		char *why = NULL;
		if (ps_walker_find_btf(w, &data, &len, &why) != 0) {
			ps_set_err(err, "no type information: %s; pass --vmlinux, --btf or --profile",
				   why ? why : "no BTF found in the dump");
			free(why);
			return -1;
		}
		rc = ps_kinfo_fill_from_btf(ki, data, len, "dump", err);
		free(data);
		break;
	}
	}
	if (rc == 0 && system_map)
		rc = ps_kinfo_add_system_map(ki, system_map, err);
	return rc;
}
