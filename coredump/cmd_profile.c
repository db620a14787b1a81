/* cmd_profile.c - `pagesleuth profile`: write the compact profile (docs/profile-format.md)
 * of a kernel from its vmlinux (DWARF + symbols) or its BTF (+ System.map), so dumps of
 * that kernel can be read later without the large debug files.
 * Exit status: 0 written, 2 usage or input error. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "kinfo.h"

int ps_cmd_profile(int argc, char **argv);

static void profile_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth profile VMLINUX -o OUT\n"
		"       pagesleuth profile --btf FILE [--system-map FILE] -o OUT\n\n"
		"Write the kernel facts pagesleuth needs (struct offsets and sizes, enum values,\n"
		"link-time symbol addresses) as a small text profile, so a dump can be read\n"
		"without the kernel's debug files.\n\n"
		"  VMLINUX              a vmlinux with DWARF (the distribution's -dbg package)\n"
		"      --btf FILE       raw BTF (/sys/kernel/btf/vmlinux, pahole --btf_encode_detached)\n"
		"                       or an ELF file with a .BTF section; BTF has no symbols\n"
		"      --system-map FILE  take the symbols' addresses from this System.map\n"
		"      --arch ARCH      record the architecture (BTF does not say): x86_64, arm64,\n"
		"                       arm, ppc64le, ppc64, ppc32\n"
		"      --release REL    record the kernel release (uname -r)\n"
		"  -o, --output OUT     the profile to write ('-' for standard output)\n"
		"  -h, --help           this text\n\n"
		"Exit status: 0 written, 2 usage or input error.\n");
}

static bool known_arch(const char *a)
{
	static const char *const names[] = { "x86_64", "arm64", "arm", "ppc64le", "ppc64", "ppc32" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(a, names[i]) == 0)
			return true;
	return false;
}

int ps_cmd_profile(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "system-map", required_argument, NULL, 'm' },
		{ "arch", required_argument, NULL, 'a' },
		{ "release", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *btf = NULL, *system_map = NULL, *arch = NULL, *release = NULL, *out = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': btf = optarg; break;
		case 'm': system_map = optarg; break;
		case 'a': arch = optarg; break;
		case 'r': release = optarg; break;
		case 'o': out = optarg; break;
		case 'h': profile_usage(stdout); return 0;
		default: profile_usage(stderr); return 2;
		}
	}
	const char *vmlinux = optind < argc ? argv[optind++] : NULL;
	if (optind < argc || !out || !!vmlinux == !!btf) {
		if (optind < argc)
			fprintf(stderr, "pagesleuth profile: unexpected argument '%s'\n", argv[optind]);
		else if (!out)
			fprintf(stderr, "pagesleuth profile: -o OUT is required\n");
		else
			fprintf(stderr, "pagesleuth profile: give either VMLINUX or --btf FILE\n");
		profile_usage(stderr);
		return 2;
	}
	ps_input_note(vmlinux);
	ps_input_note(btf);
	ps_input_note(system_map);
	if (ps_outputs_check("pagesleuth profile", (const char *const[]){ out }, 1) != 0)
		return 2;
	if (arch && !known_arch(arch)) {
		fprintf(stderr, "pagesleuth profile: unknown architecture '%s' (see --help)\n", arch);
		return 2;
	}
	if (release && strlen(release) >= sizeof(((struct ps_kinfo *)0)->release)) {
		fprintf(stderr, "pagesleuth profile: release '%s' is too long\n", release);
		return 2;
	}

	struct ps_kinfo ki;
	ps_kinfo_init(&ki);
	char *err = NULL;
	int rc = vmlinux ? ps_kinfo_fill_from_vmlinux(&ki, vmlinux, &err)
			 : ps_kinfo_fill_from_btf_file(&ki, btf, &err);
	if (rc == 0 && system_map)
		rc = ps_kinfo_add_system_map(&ki, system_map, &err);
	if (rc == 0) {
		if (arch) {
			if (ki.arch[0] && strcmp(ki.arch, arch) != 0)
				fprintf(stderr, "pagesleuth profile: warning: %s says %s, recording --arch %s\n",
					vmlinux ? vmlinux : btf, ki.arch, arch);
			snprintf(ki.arch, sizeof(ki.arch), "%s", arch);
		}
		if (release)
			snprintf(ki.release, sizeof(ki.release), "%s", release);
		if (strcmp(out, "-") == 0) {
			if (ps_profile_fprint(&ki, stdout) < 0 || fflush(stdout) != 0) {
				fprintf(stderr, "pagesleuth profile: cannot write to standard output\n");
				return 2;
			}
		} else {
			rc = ps_profile_write(&ki, out, &err);
		}
	}
	if (rc < 0) {
		fprintf(stderr, "pagesleuth profile: %s\n", err ? err : "failed");
		free(err);
		return 2;
	}
	if (!ki.symbol[PS_KI_INIT_TASK] && strcmp(out, "-") != 0)
		fprintf(stderr, "pagesleuth profile: note: no symbol addresses (BTF has none); a dump "
				"then needs kallsyms or VMCOREINFO, or give --system-map\n");
	return 0;
}
