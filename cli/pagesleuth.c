/* pagesleuth.c - command dispatch. Data flows one way: a source (snap, extract) writes
 * records; report and diff read them. profile prepares type information for extract. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "report", ps_cmd_report, "analyse record files: summaries, maps, PSS/USS, charts, HTML" },
	{ "diff", ps_cmd_diff, "compare two snapshots: what grew and shrank per process and unit" },
	{ "snap", ps_cmd_snap, "snapshot this running system's processes into records (live)" },
	{ "wss", ps_cmd_wss, "measure a running process's working-set size (referenced or idle pages)" },
	{ "extract", ps_cmd_extract, "read a kernel dump (vmcore, kdump) into records" },
	{ "profile", ps_cmd_profile, "write a kernel's type information as a small profile" },
	{ "valgrind", ps_cmd_valgrind, "run a program under the pagesleuth Valgrind tool (trace records)" },
	{ "lackey", ps_cmd_lackey, "turn stock Lackey --trace-mem output into working-set records" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: pagesleuth COMMAND [OPTIONS]\n\n"
		     "Where did the physical memory go? Page by page, from records written by a\n"
		     "dump reader, the crash extension, a live snapshot or a trace.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'pagesleuth COMMAND --help' describes each. Record format: docs/record-format.md\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("pagesleuth 0.1 (record format 1.0)\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "pagesleuth: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
