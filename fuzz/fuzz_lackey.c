/* fuzz_lackey.c - libFuzzer harness for `pagesleuth lackey` (trace/cmd_lackey.c): stock
 * Valgrind Lackey output (--trace-mem=yes lines: "I  addr,size", " L addr,size", " S ...",
 * " M ...") converted to working-set records.
 *
 * Each input is a trace file. The command runs on it as it would from the shell, its records
 * written to a file; it must end with a documented status (0, 1 or 2) and, when it says 0,
 * have written records that read back through the record reader. The window options come
 * from the input's first byte, so small windows and the peak detectors are reached too.
 * Anything else is its to survive: no crash, leak, hang or UBSan report.
 *
 * Build: make B=DIR DIR/fuzz/fuzz_lackey. Run: tests/cases/fuzz_inputs.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fuzz_file.h"
#include "fuzz_readback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char in[300], out[300];
	if (!in[0]) {
		fz_private_path(in, sizeof in, "trace.lackey");
		fz_private_path(out, sizeof out, "trace.rec");
	}
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	fz_write_file(in, data + 1, size - 1);
	static const char *const every[] = { "1", "7", "1000", "100000" };
	static const char *const detector[] = { "prominence", "paper" };
	char every_arg[32], detector_arg[40];
	snprintf(every_arg, sizeof every_arg, "--ws-every=%s", every[opt & 3]);
	snprintf(detector_arg, sizeof detector_arg, "--peak-detector=%s", detector[opt >> 2 & 1]);
	char *argv[] = { "lackey", in, "-o", out, every_arg, detector_arg,
			 opt & 8 ? "--page-size=65536" : "--page-size=4096", NULL };
	int rc = ps_cmd_lackey(7, argv);
	if (rc < 0 || rc > 2)
		abort();
	if (rc == 0) {
		size_t len;
		char *recs = fz_read_file(out, &len);
		if (!recs)
			abort();
		read_back(recs, len);
		free(recs);
	}
	return 0;
}
