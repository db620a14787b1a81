/* pagesleuth_live.c - the board-side pagesleuth: only the live sources (snap, wss), linked
 * statically against libc alone (mk/static.mk), so one file copied to an arm or ppc board
 * captures records that the full pagesleuth analyses on a workstation. The commands are the
 * same code as in the full binary (live/), so their options, output and exit status are too. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "snap", ps_cmd_snap, "snapshot this running system's processes into records" },
	{ "wss", ps_cmd_wss, "measure a running process's working-set size (referenced or idle pages)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: pagesleuth-live COMMAND [OPTIONS]\n\n"
		     "The live half of pagesleuth for small systems: capture records here, analyse\n"
		     "them elsewhere with 'pagesleuth report' (or 'pagesleuth diff').\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-5s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'pagesleuth-live COMMAND --help' describes each. Record format:\n"
		     "docs/record-format.md; this build: docs/static-build.md\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("pagesleuth-live 0.1 (record format 1.0, static)\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "pagesleuth-live: unknown command '%s' (this build has only snap and wss)\n",
		argv[1]);
	usage(stderr);
	return 2;
}
