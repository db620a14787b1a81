/* kinfo_dump.c - print the kernel-facts table filled from one source, as profile text
 * (docs/profile-format.md), so two sources can be compared with diff.
 *
 * usage: kinfo_dump (--btf FILE | --vmlinux FILE | --profile FILE) [--system-map FILE] [--time]
 *
 * --time prints how long opening and filling took to stderr. Exit 0, or 1 with a message.
 * Build: gcc -std=gnu11 -D_GNU_SOURCE -Ilib -Iwalker -O2 -o kinfo_dump tests/tools/kinfo_dump.c \
 *        walker/kinfo.c walker/typeinfo_btf.c walker/typeinfo_dwarf.c walker/profile.c \
 *        lib/atomic_file.c -ldw -lelf -lbpf
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kinfo.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int usage(void)
{
	fprintf(stderr, "usage: kinfo_dump (--btf FILE | --vmlinux FILE | --profile FILE) "
			"[--system-map FILE] [--time]\n");
	return 1;
}

int main(int argc, char **argv)
{
	const char *btf = NULL, *vmlinux = NULL, *profile = NULL, *system_map = NULL;
	bool timing = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--time"))
			timing = true;
		else if (i + 1 < argc && !strcmp(argv[i], "--btf"))
			btf = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--vmlinux"))
			vmlinux = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--profile"))
			profile = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--system-map"))
			system_map = argv[++i];
		else
			return usage();
	}
	if (!!btf + !!vmlinux + !!profile != 1)
		return usage();

	struct ps_kinfo ki;
	ps_kinfo_init(&ki);
	char *err = NULL;
	int rc = -1;
	double start = now_ms();
	if (btf)
		rc = ps_kinfo_fill_from_btf_file(&ki, btf, &err);
	else if (vmlinux)
		rc = ps_kinfo_fill_from_vmlinux(&ki, vmlinux, &err);
	else
		rc = ps_profile_read(&ki, profile, &err);
	if (rc == 0 && system_map)
		rc = ps_kinfo_add_system_map(&ki, system_map, &err);
	if (timing)
		fprintf(stderr, "kinfo_dump: filled in %.1f ms\n", now_ms() - start);
	if (rc < 0) {
		fprintf(stderr, "kinfo_dump: %s\n", err ? err : "failed");
		free(err);
		return 1;
	}
	return ps_profile_fprint(&ki, stdout) == 0 && fflush(stdout) == 0 ? 0 : 1;
}
