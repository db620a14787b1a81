/* pagesleuth.c - command dispatch. Data flows one way: a source (snap, extract) writes
 * records; report and diff read them. profile prepares type information for extract. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "records.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "report", ps_cmd_report, "analyse record files: summaries, maps, PSS/USS, charts, HTML" },
	{ "diff", ps_cmd_diff, "compare two snapshots: what grew and shrank per process and unit" },
	{ "db", ps_cmd_db, "snapshots in a database (SQLite, PostgreSQL): import, ls, trend, compare, check" },
	{ "snap", ps_cmd_snap, "snapshot this running system's processes into records (live)" },
	{ "wss", ps_cmd_wss, "measure a running process's working-set size (referenced or idle pages)" },
	{ "extract", ps_cmd_extract, "read a kernel dump (vmcore, kdump) into records" },
	{ "profile", ps_cmd_profile, "write a kernel's type information as a small profile" },
	{ "log", ps_cmd_log, "print the kernel log (dmesg) stored in a kernel dump" },
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
	fprintf(out, "\n'pagesleuth help COMMAND' (or COMMAND --help) describes each; --version.\n"
		     "Record format: docs/record-format.md\n");
}

/* Levenshtein distance of A and B, stopping at 3 (only "close" matters). */
static unsigned distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 32 || lb > 32)
		return 3;
	unsigned d[33][33];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
	return d[la][lb] < 3 ? d[la][lb] : 3;
}

static int find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(name, commands[i].name) == 0)
			return (int)i;
	return -1;
}

/* As git: "'x' is not a pagesleuth command", and the commands it is close to. */
static int unknown_command(const char *name)
{
	fprintf(stderr, "pagesleuth: '%s' is not a pagesleuth command. See 'pagesleuth --help'.\n", name);
	enum { N = sizeof commands / sizeof commands[0] };
	unsigned d[N], best = 3, nbest = 0;
	for (size_t i = 0; i < N; i++) {
		d[i] = distance(name, commands[i].name);
		if (name[0] && strncmp(name, commands[i].name, strlen(name)) == 0)
			d[i] = 1; /* a prefix: "rep" */
		if (d[i] < best)
			best = d[i], nbest = 0;
		nbest += d[i] == best;
	}
	if (best < 3) {
		fprintf(stderr, "\nThe most similar command%s\n", nbest > 1 ? "s are" : " is");
		for (size_t i = 0; i < N; i++)
			if (d[i] == best)
				fprintf(stderr, "\t%s\n", commands[i].name);
	}
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		printf("pagesleuth 0.1 (record format %u.%u)\n", PS_FORMAT_MAJOR, PS_FORMAT_MINOR);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) { /* help COMMAND: its --help */
		int i = find_command(argv[2]);
		if (i < 0)
			return unknown_command(argv[2]);
		char *args[] = { argv[2], "--help", NULL };
		return commands[i].run(2, args);
	}
	int i = find_command(argv[1]);
	if (i >= 0)
		return commands[i].run(argc - 1, argv + 1);
	return unknown_command(argv[1]);
}
