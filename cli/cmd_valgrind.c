/* cmd_valgrind.c - `pagesleuth valgrind [OPTIONS] -- PROG ARGS`: run PROG under the
 * pagesleuth Valgrind tool from the private VALGRIND_LIB directory `make valgrind-tool`
 * builds (nothing installed system-wide), by exec'ing the stock valgrind launcher. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "compress_out.h"
#include "commands.h"

#define TOOL_FILE "pagesleuth-amd64-linux"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth valgrind [OPTIONS] [--] PROG [ARGS...]\n\n"
		"Run PROG under Valgrind with the pagesleuth tool; it writes trace records\n"
		"(working set over time, peaks with call stacks, hot pages, marks, per-object\n"
		"counters and the allocation tree) for `pagesleuth report`. Time is counted in\n"
		"executed instructions.\n\n"
		"options (passed to the tool; Valgrind core options such as --trace-children=yes\n"
		"are passed through too):\n"
		"  -o FILE, --out=FILE  record file [pagesleuth.out.PID]\n"
		"  --ws-every=T         sample every T instructions [100000]\n"
		"  --ws-tau=TAU         working set = pages touched in the last TAU instructions [T]\n"
		"  --page-size=N        page size, a power of two >= 512 [4096]\n"
		"  --hot=N              the N most accessed code and data pages [0 = off]\n"
		"  --peaks=yes|no       peak detection with call stacks [yes]\n"
		"  --peak-detector=prominence|paper  ranked by prominence, or the paper's [prominence]\n"
		"  --peak-min=PCT, --peak-max=N   prominence: at least PCT%% of the highest sample\n"
		"                       [10], at most N of each kind [10]\n"
		"  --peak-window=W, --peak-gain=G, --peak-adapt=A   the paper's online detector\n"
		"  --objects=yes|no     loads/stores per heap object and global variable [no]\n"
		"  --alloc-tree=yes|no  allocation tree: bytes per allocation stack [no]\n"
		"  --alloc-rules=FILE   group the allocation tree by rules (docs/alloc-rules.md)\n"
		"  Malloc is replaced by Valgrind's only with --objects=yes, --alloc-tree=yes or\n"
		"  --alloc-rules; otherwise the program runs its own allocator, as natively.\n"
		"  valgrind --tool=pagesleuth --help lists every tool option.\n\n"
		"The tool is looked up in $PAGESLEUTH_VALGRIND_LIB, then in valgrind-lib/ beside\n"
		"this program (make valgrind-tool), then in ../libexec/pagesleuth/valgrind-lib/\n"
		"(make install) and ../lib/pagesleuth/valgrind-lib/ relative to it.\n"
		"Programs annotate phases with PAGESLEUTH_MARK(\"text\") from valgrind/pagesleuth.h.\n"
		"docs/valgrind.md has the details.\n");
}

/* What a VALGRIND_LIB directory needs (mk/valgrind.mk): the tool, its malloc-replacement
 * preload (the heap modules need it; without them the tool blanks it out of LD_PRELOAD
 * itself, valgrind/heap.c) and the core's preload (a symbolic link to the stock one: access() follows it,
 * so a link left dangling by a valgrind package removed is found here, not by valgrind). */
static const char *const lib_files[] = { TOOL_FILE, "vgpreload_pagesleuth-amd64-linux.so",
					 "vgpreload_core-amd64-linux.so" };

/* NULL when DIR has everything, else the first file it lacks. */
static const char *lib_missing(const char *dir)
{
	char path[PATH_MAX];
	for (size_t i = 0; i < sizeof lib_files / sizeof lib_files[0]; i++) {
		if (snprintf(path, sizeof path, "%s/%s", dir, lib_files[i]) >= (int)sizeof path ||
		    access(path, i == 0 ? X_OK : R_OK) != 0)
			return lib_files[i];
	}
	return NULL;
}

/* The VALGRIND_LIB directory, or NULL with one line saying how to get it. Looked up relative
 * to this program's own file (/proc/self/exe), so a build tree and an installed copy
 * (PREFIX/bin/pagesleuth, PREFIX/libexec/pagesleuth/valgrind-lib) each find their own. */
static const char *find_lib(char *buf, size_t len)
{
	const char *env = getenv("PAGESLEUTH_VALGRIND_LIB");
	if (env && *env) {
		const char *missing = lib_missing(env);
		if (!missing)
			return env;
		fprintf(stderr, "pagesleuth valgrind: PAGESLEUTH_VALGRIND_LIB=%s has no %s\n", env,
			missing);
		return NULL;
	}
	char exe[PATH_MAX], partial[PATH_MAX] = "";
	const char *partial_missing = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		fprintf(stderr, "pagesleuth valgrind: cannot read /proc/self/exe (%s) to find the "
				"Valgrind tool: set PAGESLEUTH_VALGRIND_LIB\n", strerror(errno));
		return NULL;
	}
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0; /* the directory of this program */
	static const char *const rel[] = { "valgrind-lib", "../libexec/pagesleuth/valgrind-lib",
					   "../lib/pagesleuth/valgrind-lib" };
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		if (snprintf(buf, len, "%s/%s", exe, rel[i]) >= (int)len)
			continue;
		const char *missing = lib_missing(buf);
		if (!missing)
			return buf;
		if (missing != lib_files[0] && !partial_missing) {
			snprintf(partial, sizeof partial, "%s", buf);
			partial_missing = missing;
		}
	}
	if (partial_missing) {
		fprintf(stderr, "pagesleuth valgrind: %s has no %s: rebuild it with `make "
				"valgrind-tool` (and `make install`), or set PAGESLEUTH_VALGRIND_LIB\n",
			partial, partial_missing);
		return NULL;
	}
	/* The installed layout's prefix: the parent of this program's directory. */
	char prefix[PATH_MAX + 4];
	snprintf(prefix, sizeof prefix, "%s", exe);
	slash = strrchr(prefix, '/');
	if (slash && slash != prefix)
		*slash = 0;
	else
		snprintf(prefix, sizeof prefix, "%s/..", exe);
	fprintf(stderr, "pagesleuth valgrind: the Valgrind tool is not built: no %s in "
			"%s/valgrind-lib or %s/libexec/pagesleuth/valgrind-lib (in the source tree: "
			"`make valgrind-tool`, then `make install` for an installed pagesleuth; or set "
			"PAGESLEUTH_VALGRIND_LIB)\n",
		TOOL_FILE, exe, prefix);
	return NULL;
}

/* PROG as execvp would find it (through PATH when it has no '/'); PROG itself if not found. */
static const char *resolve_program(const char *prog, char *buf, size_t cap)
{
	const char *path = getenv("PATH");
	if (strchr(prog, '/') || !path)
		return prog;
	for (const char *p = path; *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n && (size_t)snprintf(buf, cap, "%.*s/%s", (int)n, p, prog) < cap && access(buf, X_OK) == 0)
			return buf;
		p += n + (end ? 1 : 0);
	}
	return prog;
}

/* The strings this command allocated for ARGS (--out=..., --main-exe=...), and ARGS. */
static void free_args(char **args, char *out_opt, char *main_exe)
{
	free(out_opt), free(main_exe), free(args);
}

int ps_cmd_valgrind(int argc, char **argv)
{
	/* argv: [0]="valgrind", options..., [--], PROG, ARGS */
	char **args = calloc((size_t)argc + 4, sizeof *args);
	if (!args) {
		fprintf(stderr, "pagesleuth valgrind: out of memory\n");
		return 1;
	}
	int na = 0, i = 1;
	args[na++] = "valgrind";
	args[na++] = "--tool=pagesleuth";
	/* exec keeps the pid: with --trace-children=yes, the tool tells the program from the
	 * children (and programs exec'd) it traces by its pid and name (--main-exe, below) */
	char main_pid[32];
	snprintf(main_pid, sizeof main_pid, "--main-pid=%d", (int)getpid());
	args[na++] = main_pid;
	int main_exe_slot = na++;
	char *out_opt = NULL, *main_exe = NULL;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			free_args(args, out_opt, main_exe);
			return 0;
		}
		if (a[0] != '-')
			break; /* PROG */
		if (strcmp(a, "-o") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0]) {
				fprintf(stderr, "pagesleuth valgrind: -o needs a file name\n");
				free_args(args, out_opt, main_exe);
				return 2;
			}
			size_t l = strlen(argv[i + 1]) + 7;
			char *o = malloc(l);
			if (!o) {
				free_args(args, out_opt, main_exe);
				return 1;
			}
			snprintf(o, l, "--out=%s", argv[++i]);
			if (out_opt) { /* an earlier -o: the last one counts, in its place */
				for (int k = 0; k < na; k++)
					if (args[k] == out_opt)
						args[k] = o;
				free(out_opt);
			} else {
				args[na++] = o;
			}
			out_opt = o;
			continue;
		}
		if (strncmp(a, "--tool=", 7) == 0) {
			fprintf(stderr, "pagesleuth valgrind: --tool is pagesleuth here; run valgrind "
					"itself for other tools\n");
			free_args(args, out_opt, main_exe);
			return 2;
		}
		args[na++] = argv[i];
	}
	if (i >= argc) {
		fprintf(stderr, "pagesleuth valgrind: no program to run (pagesleuth valgrind "
				"[OPTIONS] -- PROG [ARGS])\n");
		free_args(args, out_opt, main_exe);
		return 2;
	}
	char prog_path[PATH_MAX];
	const char *prog = resolve_program(argv[i], prog_path, sizeof prog_path);
	main_exe = malloc(strlen(prog) + 16);
	if (!main_exe) {
		free_args(args, out_opt, main_exe);
		return 1;
	}
	sprintf(main_exe, "--main-exe=%s", prog);
	args[main_exe_slot] = main_exe;
	/* Evidence first: the record file may not be the program, one of its arguments, or the
	 * rules file (checked here: the tool inside Valgrind writes it later). */
	const char *out = NULL;
	for (int k = 2; k < na; k++) {
		if (strncmp(args[k], "--out=", 6) == 0)
			out = args[k] + 6;
		else if (strncmp(args[k], "--alloc-rules=", 14) == 0)
			ps_input_note(args[k] + 14);
	}
	ps_input_note(prog);
	for (int k = i + 1; k < argc; k++)
		ps_input_note(argv[k]);
	if (ps_outputs_check("pagesleuth valgrind", (const char *const[]){ out }, 1) != 0) {
		free_args(args, out_opt, main_exe);
		return 2;
	}
	/* The tool inside Valgrind writes its file itself, uncompressed: a name that says
	 * otherwise would be a lie (every other command compresses such a name). */
	if (out && ps_out_compression(out)) {
		fprintf(stderr, "pagesleuth valgrind: %s: the Valgrind tool writes plain records; name "
				"the file without .%s and compress it afterwards\n", out,
			!strcmp(ps_out_compression(out), "zstd") ? "zst" : "gz");
		free_args(args, out_opt, main_exe);
		return 2;
	}
	for (; i < argc; i++)
		args[na++] = argv[i];
	args[na] = NULL;

	char buf[PATH_MAX];
	const char *lib = find_lib(buf, sizeof buf);
	if (!lib || setenv("VALGRIND_LIB", lib, 1) != 0) {
		if (lib)
			fprintf(stderr, "pagesleuth valgrind: setenv: %s\n", strerror(errno));
		free_args(args, out_opt, main_exe);
		return 1;
	}
	const char *vg = getenv("PAGESLEUTH_VALGRIND");
	execvp(vg && *vg ? vg : "valgrind", args);
	fprintf(stderr, "pagesleuth valgrind: cannot run %s: %s (apt-get install valgrind)\n",
		vg && *vg ? vg : "valgrind", strerror(errno));
	free_args(args, out_opt, main_exe);
	return 127;
}
