/* pagesleuth.c - the `pagesleuth` command for crash (`extend pagesleuth.so`).
 *
 * Writes pagesleuth records (docs/record-format.md) for every user process of the dump
 * crash has open, or for chosen PIDs: tasks, address spaces, VMAs, and page runs with
 * PFN, mapcount, refcount, page flags and PTE bits, excluded pages as 'x' runs. Tasks,
 * VMAs and page tables are walked by pagesleuth's own walker core (walker/), the same code
 * as `pagesleuth extract`, with crash supplying the bytes and the type information: crash
 * 8.0.2's own task table and `vm` do not work on Linux 6.1.19x kernels.
 *
 * An extension built against one crash's defs.h misreads crash's structures under another
 * crash (they move between versions), so the library carries the version and target it
 * was built for and refuses to load into any other.
 */
#include "defs.h" /* crash's */

#include "crash_backend.h"
#include "crash_run.h"
#include "pid_list.h"

#include <stdlib.h>
#include <string.h>

#ifndef PS_CRASH_VERSION
#error "build with -DPS_CRASH_VERSION='\"X.Y.Z\"', the version of the crash whose defs.h this is"
#endif


static void cmd_pagesleuth(void);

static char *help_pagesleuth[] = {
	"pagesleuth",
	"page-level memory of user processes: records, or RSS/PSS/USS tables (pagesleuth)",
	"[-p pid[,pid...]]... [pid ...] [-o file] [-s | -v] [-S] [-k] [-t file]\n"
	"             [-T key=value]... [-P profile] [-V] [-h]\n"
	"  pagesleuth summary [-P | -L] [-K] [-t file] [pid | comm]...",
	"  Writes one snapshot of the dump's user processes in pagesleuth's record format:",
	"  a task record per thread, an mm record per address space, a vma record per VMA",
	"  (with the path as /proc/PID/maps prints it), and page runs with the physical frame,",
	"  mapcount, refcount, page flags (as /proc/kpageflags) and PTE bits of every mapped",
	"  page. Pages the dump level excluded are written as 'x' runs, swap entries as 'w',",
	"  what could not be read as 'u' with a reason. The records are the same as those",
	"  of `pagesleuth extract` for the same dump (apart from source=crash); the",
	"  pagesleuth tool reads them: `pagesleuth report FILE`, `pagesleuth diff A B`.",
	"",
	"  Tasks, VMAs (maple tree or list) and page tables are walked by pagesleuth itself",
	"  from init_task, with crash supplying the memory and the type information of the",
	"  vmlinux it loaded; crash's task table and vm command are not used.",
	"",
	"    -p pid  only these thread groups (repeat, or a comma list; bare pids too).",
	"            A pid that is not a user process in the dump is reported, and the",
	"            others are still written.",
	"   -o file  write the records to file, created atomically: no partial file is left",
	"            under that name if the command fails or is interrupted. Default: crash's",
	"            output, so \"> file\" and \"| grep\" work too. Messages go to stderr.",
	"        -s  summaries: a sum record per VMA instead of page runs (same totals).",
	"        -v  tasks, mms and VMAs only; no page tables are read.",
	"        -S  print counts, time and pages per second when done.",
	"        -k  read kernel-virtual memory through crash's own translation instead of",
	"            pagesleuth's (a cross-check; the records must not change).",
	"  -T key=value  a tag (board, firmware, ...) in the records' header, for",
	"            `pagesleuth db import`; repeat for more.",
	"   -t file  trace: one line per kernel object read (task, mm, maple node, VMA,",
	"            page table), for debugging a damaged dump.",
	" -P profile write the type information taken from crash as a pagesleuth profile,",
	"            for `pagesleuth extract --profile` where no vmlinux is at hand; no walk.",
	"        -V  the pagesleuth and record-format versions, and the crash built for.",
	"        -h  this help.",
	"",
	"  pagesleuth summary prints tables instead: per process PID, VSS, RSS, PSS, USS",
	"  (pages mapped once) and SWAP, largest PSS first, as smem; then per mapped object",
	"  (a file's path, [heap], [stack], [anon], ...) the processes mapping it and their",
	"  VSS, RSS, PSS and USS, as librank. The numbers are those `pagesleuth report -a pss`",
	"  computes from this command's records: the same walk, through the same analyzer.",
	"  A '-' is a size nothing could tell (mapcounts the dump hid). A comm (task name)",
	"  chooses every process of that name; precede a numeric comm with \"\\\".",
	"        -P  the per-process table only.",
	"        -L  the per-object (library) table only.",
	"        -K  sizes in KiB, exact, instead of KiB/MiB/GiB to three digits.",
	"   -t file  as above.",
	"",
	"  Problems with single processes (an unreadable page-table page, a task exiting",
	"  while the dump was taken, a damaged VMA tree) are reported as one line each and",
	"  as warn records; the snapshot's end record then says status=partial.",
	"\nEXAMPLES",
	"  Write every process's pages to a file, then summarise on the host:",
	"\n    crash> pagesleuth -o /tmp/dump.rec -S",
	"    pagesleuth: 16 tasks, 12 mms, 429 vmas, 4671 pages in 866 runs (0 excluded,",
	"      32 swap, 0 unknown) in 0.03 s, 135424 pages/s",
	"    pagesleuth: 12 processes written to /tmp/dump.rec",
	"    crash> !pagesleuth report /tmp/dump.rec",
	"",
	"  The VMAs of two processes, on the screen:",
	"\n    crash> pagesleuth -v -p 412,413 | grep ^vma",
	"",
	"  The processes named psshlib, and what they map:",
	"\n    crash> pagesleuth summary psshlib",
	"    PID      VSS      RSS        PSS        USS  SWAP  COMM",
	"    106  2.8 MiB  1.8 MiB    964 KiB    116 KiB   0 B  psshlib",
	"    105  2.8 MiB  1.8 MiB    960 KiB    112 KiB   0 B  psshlib",
	"",
	"    PROCS        VSS        RSS        PSS       USS  MAPPED OBJECT",
	"        2    3.7 MiB    2.3 MiB    1.2 MiB  48.0 KiB  /lib/libc.so.6",
	"        2    800 KiB    672 KiB    344 KiB  16.0 KiB  /lib/libpstag.so",
	"    ...",
	"",
	"  Every process's share of libc, in exact KiB:",
	"\n    crash> pagesleuth summary -K -L | grep libc",
	"        2   3752  2368  1208    48  /lib/libc.so.6",
	NULL
};

static struct command_table_entry command_table[] = {
	{ "pagesleuth", cmd_pagesleuth, help_pagesleuth, 0 },
	{ NULL },
};

/* Append the comma-separated pids in ARG. 0, or -1 after a message. */
static int add_pids(const char *arg, uint64_t **pids, size_t *n);

/* pagesleuth summary [-P | -L] [-K] [-t file] [pid | comm]...: args[1] is "summary". */
static void cmd_summary(void)
{
	struct ps_crash_summary sum = { 0 };
	struct ps_crash_request rq = { .detail = PS_DETAIL_PAGES, .summary = &sum };
	uint64_t *pids = NULL;
	size_t npids = 0;
	char **comms = NULL;
	bool only_procs = false, only_objects = false;
	int c;
	/* getopt over the words after "summary" (crash reset optind to 0 for the command) */
	while ((c = getopt(argcnt - 1, args + 1, "PLKt:h")) != EOF) {
		switch (c) {
		case 'P': only_procs = true; break;
		case 'L': only_objects = true; break;
		case 'K': sum.kib = true; break;
		case 't': rq.trace = optarg; break;
		case 'h':
			cmd_usage(pc->curcmd, COMPLETE_HELP);
			return;
		default: argerrs++; break;
		}
	}
	if (argerrs || (only_procs && only_objects)) {
		if (!argerrs)
			error(INFO, "-P and -L: one table or, without either, both\n");
		cmd_usage(pc->curcmd, SYNOPSIS); /* longjmps back to crash's prompt */
	}
	sum.processes = !only_objects;
	sum.objects = !only_procs;
	/* as crash's ps: a number is a pid, a word a comm; "\\123" the comm 123 */
	comms = calloc((size_t)argcnt + 1, sizeof *comms);
	if (!comms) {
		error(INFO, "out of memory\n");
		return;
	}
	for (int i = 1 + optind; i < argcnt && args[i]; i++) {
		if (args[i][0] == '\\')
			comms[sum.ncomms++] = args[i] + 1;
		else if (strspn(args[i], "0123456789,") == strlen(args[i])) {
			if (add_pids(args[i], &pids, &npids) != 0)
				goto out;
		} else
			comms[sum.ncomms++] = args[i];
	}
	sum.comms = comms;
	rq.pids = pids;
	rq.npids = npids;
	ps_crash_run(&rq, fp);
out:
	free(pids), free(comms);
}


static int add_pids(const char *arg, uint64_t **pids, size_t *n)
{
	const char *why = NULL;
	if (ps_pid_list_add(arg, pids, n, &why) == 0)
		return 0;
	error(INFO, "bad pid list %s: %s\n", arg, why);
	return -1;
}

static void cmd_pagesleuth(void)
{
	struct ps_crash_request rq = { .detail = PS_DETAIL_PAGES };
	uint64_t *pids = NULL;
	size_t npids = 0;
	int c;
	char *tags = NULL;
	const char *why = NULL;
	if (argcnt > 1 && strcmp(args[1], "summary") == 0) {
		cmd_summary();
		return;
	}
	while ((c = getopt(argcnt, args, "p:o:svSkt:T:P:Vh")) != EOF) {
		switch (c) {
		case 'p':
			if (add_pids(optarg, &pids, &npids) != 0)
				goto out;
			break;
		case 'o': rq.output = optarg; break;
		case 's': rq.detail = PS_DETAIL_SUMS; break;
		case 'v': rq.detail = PS_DETAIL_VMAS; break;
		case 'S': rq.stats = true; break;
		case 'k': rq.crash_kvaddr = true; break;
		case 't': rq.trace = optarg; break;
		case 'P': rq.profile = optarg; break;
		case 'T':
			if (ps_tags_append(&tags, optarg, &why) != 0) {
				error(INFO, "bad tag %s: %s\n", optarg, why);
				goto out;
			}
			break;
		case 'h':
			cmd_usage(pc->curcmd, COMPLETE_HELP);
			goto out;
		case 'V':
			fprintf(fp, "pagesleuth 0.1 (records %u.%u), built for crash %s (%s)\n",
				PS_FORMAT_MAJOR, PS_FORMAT_MINOR, PS_CRASH_VERSION,
				MACHINE_TYPE);
			goto out;
		default:
			argerrs++;
			break;
		}
	}
	if (argerrs) {
		free(pids), free(tags);
		cmd_usage(pc->curcmd, SYNOPSIS); /* longjmps back to crash's prompt */
	}
	for (; args[optind]; optind++)
		if (add_pids(args[optind], &pids, &npids) != 0)
			goto out;
	rq.pids = pids;
	rq.npids = npids;
	rq.tags = tags;
	ps_crash_run(&rq, fp);
out:
	free(pids), free(tags);
}

/* Runs when crash loads the library: register the command, or refuse a crash this
 * library was not built for. */
static void __attribute__((constructor)) pagesleuth_init(void)
{
	if (strcmp(build_version, PS_CRASH_VERSION) != 0) {
		error(INFO, "pagesleuth.so was built for crash %s and this is crash %s: crash's "
			    "structures differ between versions; rebuild it with this crash's defs.h "
			    "(make crash-ext CRASH=%s)\n",
		      PS_CRASH_VERSION, build_version, pc->program_path ? pc->program_path : "crash");
		return;
	}
	if (!pc->machine_type || strcmp(pc->machine_type, MACHINE_TYPE) != 0) {
		error(INFO, "pagesleuth.so was built for crash's %s target and this crash reads %s "
			    "dumps; rebuild it for this crash\n",
		      MACHINE_TYPE, pc->machine_type ? pc->machine_type : "other");
		return;
	}
	register_extension(command_table);
}

/* Runs when crash unloads the library (extend -u, exit). */
static void __attribute__((destructor)) pagesleuth_fini(void)
{
	ps_crash_run_cleanup();
	ps_crash_session_end();
}
