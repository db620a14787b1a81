/* fuzz_typeinfo.c - libFuzzer harness for the type-information readers the walker trusts:
 * BTF (walker/typeinfo_btf.c, through libbpf), the compact profile and System.map
 * (walker/profile.c). PAGESLEUTH_FUZZ_KIND picks one per run, so executions are counted per
 * input kind:
 *   btf      the input is patches over a real kernel's BTF (PAGESLEUTH_FUZZ_BTF: a raw .btf
 *            file; tests/cases/fuzz_inputs.sh gives a fixture's): repeated
 *            [offset u32 LE][length u8, at most 32][bytes], the offset taken modulo the size;
 *            patched in place and undone after the run (no copy of the BTF per input);
 *   profile  the input is a profile file;
 *   sysmap   the input is a System.map, added to the profile PAGESLEUTH_FUZZ_PROFILE (or to
 *            nothing).
 * What a reader accepts must survive a round trip: printed as a profile and read back, the
 * four tables (members, sizes, enum values, symbols) are the same. A refusal is one line.
 * Anything else is the readers' to survive: no crash, leak, hang or UBSan report.
 *
 * Build: make B=DIR DIR/fuzz/fuzz_typeinfo. Run: tests/cases/fuzz_inputs.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "fuzz_patch.h"
#include "kinfo.h"

enum kind { K_BTF, K_PROFILE, K_SYSMAP };
static enum kind kind;
static uint8_t *btf;
static size_t btf_len;
static struct ps_kinfo base_profile; /* what System.map lines are added to */
static char in_path[300], print_path[300];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *k = getenv("PAGESLEUTH_FUZZ_KIND");
	if (!k || strcmp(k, "btf") == 0)
		kind = K_BTF;
	else if (strcmp(k, "profile") == 0)
		kind = K_PROFILE;
	else if (strcmp(k, "sysmap") == 0)
		kind = K_SYSMAP;
	else {
		fprintf(stderr, "fuzz_typeinfo: PAGESLEUTH_FUZZ_KIND=%s: not btf, profile or sysmap\n", k);
		exit(2);
	}
	fz_private_path(in_path, sizeof in_path, "input");
	fz_private_path(print_path, sizeof print_path, "printed.profile");
	ps_kinfo_init(&base_profile);
	const char *p = getenv("PAGESLEUTH_FUZZ_PROFILE");
	char *err = NULL;
	if (kind == K_SYSMAP && p && ps_profile_read(&base_profile, p, &err) < 0) {
		fprintf(stderr, "fuzz_typeinfo: %s\n", err);
		exit(2);
	}
	if (kind == K_BTF) {
		const char *b = getenv("PAGESLEUTH_FUZZ_BTF");
		if (!b || !(btf = (uint8_t *)fz_read_file(b, &btf_len)) || btf_len < 24) {
			fprintf(stderr, "fuzz_typeinfo: PAGESLEUTH_FUZZ_BTF must name a raw BTF file\n");
			exit(2);
		}
	}
	return 0;
}

static void check_one_line(const char *err)
{
	if (!err || !*err || strchr(err, '\n'))
		abort();
}

/* Print KI as a profile, read it back: the tables must not change. */
static void round_trip(const struct ps_kinfo *ki)
{
	FILE *fp = fopen(print_path, "w");
	if (!fp || ps_profile_fprint(ki, fp) != 0 || fclose(fp) != 0)
		abort();
	struct ps_kinfo back;
	char *err = NULL;
	if (ps_profile_read(&back, print_path, &err) < 0) {
		fprintf(stderr, "printed profile does not read back: %s\n", err);
		abort();
	}
	if (memcmp(back.member, ki->member, sizeof back.member) != 0 ||
	    memcmp(back.size, ki->size, sizeof back.size) != 0 ||
	    memcmp(back.enumval, ki->enumval, sizeof back.enumval) != 0 ||
	    memcmp(back.symbol, ki->symbol, sizeof back.symbol) != 0) {
		fprintf(stderr, "printed profile reads back different\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_kinfo ki;
	char *err = NULL;
	int rc;
	if (kind == K_BTF) {
		struct fz_patch_log log = { 0 };
		uint32_t off;
		unsigned len;
		const uint8_t *bytes;
		while (!fz_patch_full(&log) && fz_next_patch(&data, &size, btf_len, &off, &len, &bytes))
			fz_patch(&log, btf + off, bytes, len);
		ps_kinfo_init(&ki);
		rc = ps_kinfo_fill_from_btf(&ki, btf, btf_len, "fuzz", &err);
		fz_unpatch_all(&log);
	} else {
		fz_write_file(in_path, data, size);
		if (kind == K_PROFILE) {
			rc = ps_profile_read(&ki, in_path, &err);
		} else {
			ki = base_profile;
			rc = ps_kinfo_add_system_map(&ki, in_path, &err);
		}
	}
	if (rc < 0) {
		check_one_line(err);
		free(err);
		return 0;
	}
	free(err);
	round_trip(&ki);
	return 0;
}
