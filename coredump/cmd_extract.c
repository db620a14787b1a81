/* cmd_extract.c - `pagesleuth extract`: one snapshot of a kernel dump as records.
 *
 * dump.c turns the file into a back-end, the walker (walker/) reads the kernel's tasks, mms,
 * VMAs and page tables through it, and the records go to a file (atomically) or stdout.
 * Type information comes from the first of --profile, --vmlinux, --btf, or the kernel's own
 * BTF found in the dump through kallsyms.
 *
 * The output stream passes through lib/record_tee (a stream filter) that copies each warn
 * record to stderr as one line, so the walker's interface stays "write records to a writer";
 * --stats takes the page runs from the writer's counts.
 *
 * Exit status: 0 complete, 1 partial (written, with warn records; stderr says why), 2 error.
 */
#include "progress.h"
#include "commands.h"
#include "dump.h"
#include "mapped_file.h"
#include "errmsg.h"
#include "kinfo.h"
#include "records.h"
#include "walker.h"
#include "atomic_file.h"
#include "pid_list.h"
#include "record_tee.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_STDERR_WARNINGS 50

static const char *const prog = "pagesleuth extract";

static void extract_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth extract DUMP [-o FILE] [-p PID]... [TYPE INFORMATION] [OPTIONS]\n\n"
		"Read a kernel dump (ELF vmcore, makedumpfile/QEMU kdump-compressed, or\n"
		"makedumpfile's flattened format) and write one snapshot of its user processes as\n"
		"pagesleuth records: tasks, address spaces, VMAs, and page runs with PFN, mapcount,\n"
		"page flags and PTE bits. Pages the dump level excluded are written as 'x' runs.\n"
		"Then the kernel's own counters at that moment (/proc/meminfo, vmstat, buddyinfo)\n"
		"and every page frame of RAM by what holds it (free, slab caches, page cache ...),\n"
		"and the kernel log.\n\n"
		"  -o, --output FILE     write the records to FILE, created atomically\n"
		"                        (default: standard output, unless a terminal; '-': it anyway)\n"
		"  -p, --pid PID         only this thread group; repeat or give a comma list\n"
		"                        (default: every user process)\n"
		"      --summaries       a sum record per VMA, no page runs (same totals, smaller)\n"
		"      --vmas-only       tasks, mms and VMAs only (no page tables read)\n"
		"      --no-counters     leave out the kernel's own counters (meminfo, vmstat,\n"
		"                        buddyinfo: counter records; they need its data symbols)\n"
		"      --no-frames       leave out the pass over every page frame of RAM (f records)\n"
		"      --no-log          leave out the kernel log (log records; see pagesleuth log)\n"
		"      --trace FILE      write one line per kernel object read to FILE (debugging)\n"
		"      --stats           print pages, runs, time and bytes read to stderr\n"
		"  -j, --jobs N          walk the address spaces in N processes at once (default:\n"
		"                        the CPUs this process may use, up to 8, one per 16,384\n"
		"                        resident pages; the records are the same)\n"
		"  -t, --tag KEY=VALUE   a tag for 'pagesleuth db' (board, firmware, ...) in the\n"
		"                        header's tags= (repeatable)\n"
		"  -h, --help            this text\n\n"
		"type information (at most one; default: the BTF inside the dump, found through\n"
		"the kernel's kallsyms tables, listed in VMCOREINFO on 6.0+ and found by their\n"
		"structure on older kernels; needs CONFIG_DEBUG_INFO_BTF):\n"
		"      --vmlinux FILE    the dump's vmlinux with DWARF (distribution -dbg package)\n"
		"      --btf FILE        the kernel's BTF (/sys/kernel/btf/vmlinux, a detached .btf)\n"
		"      --profile FILE    a profile written by 'pagesleuth profile'\n"
		"      --system-map FILE take link-time symbol addresses from this System.map\n\n"
		"Warnings about the dump file (truncated, no VMCOREINFO, a guessed architecture)\n"
		"are printed once each. On a terminal, stderr shows how far the walk is (processes,\n"
		"then frames). -o FILE.zst or FILE.gz writes compressed records. docs/coredump.md\n"
		"says what is read and how.\n"
		"Exit status: 0 complete, 1 partial (written; warn records and stderr say what\n"
		"could not be read), 2 error (nothing usable written).\n");
}

/* The progress line on a terminal (lib/progress.h): erased before any other message. */
static struct ps_progress progress;

static void show_progress(void *arg, const char *what, uint64_t done, uint64_t total)
{
	(void)arg;
	ps_progress_say(&progress, false, "%s %" PRIu64 "/%" PRIu64 " (%.0f%%)", what, done, total,
			total ? 100.0 * (double)done / (double)total : 0.0);
}

/* Each warn record as a line on stderr (the first MAX_STDERR_WARNINGS). */
static void warn_to_stderr(void *arg, const char *text)
{
	uint64_t *printed = arg;
	if (*printed >= MAX_STDERR_WARNINGS)
		return;
	++*printed;
	ps_progress_done(&progress);
	fprintf(stderr, "%s: partial: %s\n", prog, text);
}

/* ---- the command ------------------------------------------------------------------------ */

struct extract_opts {
	const char *dump, *output, *type_file, *system_map, *trace;
	char *tags;
	bool no_counters, no_frames, no_log;
	enum ps_type_source type_kind;
	uint64_t *pids;
	size_t npids;
	enum ps_walk_detail detail;
	bool stats;
	unsigned jobs; /* 0: as many as the CPUs (ps_helper_threads) */
};

#define MAX_JOBS 8
#define AUTO_JOB_MIN_PAGES 16384 /* a worker costs ~1 ms (fork, copy-on-write, the append): worth
				 * it from ~64 MiB resident (4 KiB pages) each (bench/extract.sh) */

static int run_extract(const struct extract_opts *o)
{
	int status = 2;
	char *err = NULL;
	struct ps_walker *w = NULL;
	struct ps_writer *pw = NULL;
	FILE *trace = NULL, *tee_fp = NULL;
	struct atomic_file af = { 0 }, trace_af = { 0 };
	bool af_open = false;
	double t0 = ps_monotonic_seconds();

	struct ps_dump *d;
	if (ps_dump_open_walker(prog, o->dump, &d, &w) != 0)
		goto out;
	struct ps_kinfo ki;
	if (ps_dump_type_info(w, o->type_kind, o->type_file, o->system_map, &ki, &err) != 0 ||
	    ps_walker_set_kinfo(w, &ki, &err) != 0) {
		/* Name the kernel: a fact missing from a newer kernel's type information is how
		 * a kernel the walker does not understand shows itself. */
		const char *rel = ps_walker_release(w);
		fprintf(stderr, "%s: %s: %s%s%s%s\n", prog, o->dump, err ? err : "no type information",
			rel && rel[0] ? " (kernel " : "", rel && rel[0] ? rel : "", rel && rel[0] ? ")" : "");
		goto out;
	}
	/* The trace is an output like the records: written beside, renamed into place. */
	if (o->trace) {
		if (atomic_open(&trace_af, o->trace, &err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err ? err : o->trace);
			goto out;
		}
		trace = trace_af.fp;
	}

	/* Output: the atomic file (or stdout) behind the warn/run filter. */
	uint64_t warns_printed = 0;
	struct ps_record_tee tee = { .warn = warn_to_stderr, .arg = &warns_printed };
	bool to_stdout = !o->output || strcmp(o->output, "-") == 0;
	if (to_stdout) {
		tee.out = stdout;
	} else {
		if (atomic_open(&af, o->output, &err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err ? err : o->output);
			goto out;
		}
		af_open = true;
		tee.out = af.fp;
	}
	tee_fp = ps_record_tee_open(&tee);
	if (!tee_fp)
		goto oom;
	pw = ps_writer_open_stream(tee_fp, to_stdout ? "<stdout>" : o->output);
	if (!pw)
		goto oom;
	struct ps_header_facts facts = {
		.source = "coredump",
		.dump_path = o->dump,
		.time = ps_dump_time(d),
		.dump_level = ps_dump_level(d),
		.pids = o->pids,
		.npids = o->npids,
		.tags = o->tags,
	};
	if (ps_walker_write_header(w, pw, &facts, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err ? err : "cannot write the header");
		goto out;
	}
	struct ps_walk_options wo = {
		.pids = o->pids,
		.npids = o->npids,
		.detail = o->detail,
		.no_counters = o->no_counters,
		.no_frames = o->no_frames,
		.no_log = o->no_log,
		.trace = trace,
		.progress = show_progress,
		.workers = o->jobs ? o->jobs : ps_helper_threads(MAX_JOBS - 1) + 1,
		.worker_min_pages = o->jobs ? 0 : AUTO_JOB_MIN_PAGES,
	};
	/* Not over records being written to the same terminal (-o - on a terminal). */
	ps_progress_init(&progress, prog, !(to_stdout && isatty(STDOUT_FILENO)));
	struct ps_walk_result res;
	int rc = ps_walker_run(w, pw, &wo, &res, &err);
	ps_progress_done(&progress);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->dump, err ? err : "walk failed");
		goto out;
	}
	/* The walk's warnings say what could not be read; the dump says why (the file's
	 * offset, the page descriptor). */
	const char *first_error;
	uint64_t read_errors = ps_dump_read_errors(d, &first_error);
	if (read_errors) {
		char reason[400];
		snprintf(reason, sizeof reason, "%s: %" PRIu64 " read%s failed; the first: %s",
			 o->dump, read_errors, read_errors == 1 ? "" : "s", first_error);
		struct ps_warn wr = { .mm = PS_UNKNOWN, .at = PS_UNKNOWN, .reason = reason };
		if (ps_write_warn(pw, &wr) < 0) {
			fprintf(stderr, "%s: cannot write %s\n", prog, to_stdout ? "to standard output" : o->output);
			goto out;
		}
		rc = 1;
	}
	struct ps_writer_counts written;
	ps_writer_counts(pw, &written); /* the runs of --stats */
	int close_rc = ps_writer_close(pw, false, &err);
	pw = NULL;
	if (close_rc == 0 && fclose(tee_fp) != 0)
		close_rc = -1;
	tee_fp = NULL;
	if (close_rc != 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, to_stdout ? "to standard output" : o->output,
			err ? err : strerror(errno));
		goto out;
	}
	if (to_stdout && fflush(stdout) != 0) {
		fprintf(stderr, "%s: cannot write to standard output: %s\n", prog, strerror(errno));
		goto out;
	}
	if (af_open) {
		af_open = false;
		if (atomic_close(&af, true, &err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err ? err : o->output);
			goto out;
		}
	}
	if (tee.warns > warns_printed)
		fprintf(stderr, "%s: partial: %" PRIu64 " further warnings (see the warn records)\n",
			prog, tee.warns - warns_printed);
	if (rc == 1 && tee.warns == 0)
		fprintf(stderr, "%s: partial: some of the dump could not be read\n", prog);
	if (o->stats) {
		double secs = ps_monotonic_seconds() - t0;
		fprintf(stderr,
			"%s: %" PRIu64 " tasks, %" PRIu64 " mms, %" PRIu64 " vmas, %" PRIu64
			" pages in %" PRIu64 " runs (%" PRIu64 " excluded, %" PRIu64 " swap, %" PRIu64
			" unknown) in %.2f s, %.0f pages/s; read %" PRIu64 " bytes of page tables, %" PRIu64
			" of struct pages\n",
			prog, res.tasks, res.mms, res.vmas, res.pages, written.runs, res.excluded_pages,
			res.swap_entries, res.unknown_pages, secs, secs > 0 ? res.pages / secs : 0.0,
			res.pt_bytes, res.page_struct_bytes);
		uint64_t unpacked, hits, ahead, ahead_used;
		ps_dump_read_counts(d, &unpacked, &hits, &ahead, &ahead_used);
		if (unpacked)
			fprintf(stderr, "%s: %" PRIu64 " dump pages decompressed (%" PRIu64 " ahead on "
				"another CPU, %" PRIu64 " of them read), %" PRIu64 " reads served from the "
				"decompressed-page cache\n", prog, unpacked, ahead, ahead_used, hits);
	}
	status = rc == 1 ? 1 : 0;
	goto out;
oom:
	fprintf(stderr, "%s: out of memory\n", prog);
out:
	if (pw)
		ps_writer_close(pw, true, NULL);
	if (tee_fp)
		fclose(tee_fp);
	if (af_open) {
		char *e2 = NULL;
		atomic_close(&af, false, &e2);
		free(e2);
	}
	if (trace) {
		/* Kept when records were written (a partial run's trace shows where it stopped). */
		char *e2 = NULL;
		if (atomic_close(&trace_af, status != 2, &e2) != 0 && status != 2) {
			fprintf(stderr, "%s: %s\n", prog, e2 ? e2 : o->trace);
			status = 2;
		}
		free(e2);
	}
	ps_walker_close(w);
	ps_dump_close(d);
	free(err);
	return status;
}

int ps_cmd_extract(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "btf", required_argument, NULL, 'B' },
		{ "profile", required_argument, NULL, 'P' },
		{ "system-map", required_argument, NULL, 'M' },
		{ "summaries", no_argument, NULL, 'S' },
		{ "vmas-only", no_argument, NULL, 'A' },
		{ "no-counters", no_argument, NULL, 'N' },
		{ "no-frames", no_argument, NULL, 'F' },
		{ "no-log", no_argument, NULL, 'L' },
		{ "trace", required_argument, NULL, 'T' },
		{ "stats", no_argument, NULL, 's' },
		{ "tag", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct extract_opts o = { .detail = PS_DETAIL_PAGES };
	int status = 2, c;
	const char *why = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:p:t:j:h", longopts, NULL)) != -1) {
		enum ps_type_source kind = PS_TYPES_DUMP_BTF;
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'p':
			if (ps_pid_list_add(optarg, &o.pids, &o.npids, &why) != 0) {
				fprintf(stderr, "%s: bad pid list '%s': %s\n", prog, optarg, why);
				goto out;
			}
			break;
		case 'V': kind = PS_TYPES_VMLINUX; break;
		case 'B': kind = PS_TYPES_BTF; break;
		case 'P': kind = PS_TYPES_PROFILE; break;
		case 'M': o.system_map = optarg; break;
		case 'S': o.detail = PS_DETAIL_SUMS; break;
		case 'A': o.detail = PS_DETAIL_VMAS; break;
		case 'N': o.no_counters = true; break;
		case 'F': o.no_frames = true; break;
		case 'L': o.no_log = true; break;
		case 'T': o.trace = optarg; break;
		case 's': o.stats = true; break;
		case 'j': {
			uint64_t n;
			if (!ps_parse_count(optarg, PS_WALK_MAX_WORKERS, &n)) {
				fprintf(stderr, "%s: bad --jobs '%s': give 1 to %u\n", prog, optarg,
					PS_WALK_MAX_WORKERS);
				goto out;
			}
			o.jobs = (unsigned)n;
			break;
		}
		case 't':
			if (ps_tags_append(&o.tags, optarg, &why) != 0) {
				fprintf(stderr, "%s: tag '%s': %s\n", prog, optarg, why);
				goto out;
			}
			break;
		case 'h': extract_usage(stdout); status = 0; goto out;
		default: extract_usage(stderr); goto out;
		}
		if (kind != PS_TYPES_DUMP_BTF) {
			if (o.type_kind != PS_TYPES_DUMP_BTF) {
				fprintf(stderr, "%s: give at most one of --vmlinux, --btf, --profile\n", prog);
				goto out;
			}
			o.type_kind = kind;
			o.type_file = optarg;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "%s: which dump? (see --help)\n"
					       : "%s: one dump at a time (see --help)\n", prog);
		goto out;
	}
	o.dump = argv[optind];
	/* Evidence first: no output may be one of the inputs (checked before anything is read). */
	ps_input_note(o.dump);
	ps_input_note(o.type_file);
	ps_input_note(o.system_map);
	const char *outputs[] = { o.output, o.trace };
	if (ps_outputs_check(prog, outputs, 2) != 0 || ps_refuse_records_to_terminal(prog, o.output) != 0)
		goto out;
	status = run_extract(&o);
out:
	free(o.pids);
	free(o.tags);
	return status;
}
