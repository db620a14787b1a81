/* cmd_extract.c - `pagesleuth extract`: one snapshot of a kernel dump as records.
 *
 * dump.c turns the file into a back-end, the walker (walker/) reads the kernel's tasks, mms,
 * VMAs and page tables through it, and the records go to a file (atomically) or stdout.
 * Type information comes from the first of --profile, --vmlinux, --btf, or the kernel's own
 * BTF found in the dump through kallsyms.
 *
 * The output stream passes through a small filter (fopencookie) that copies each warn
 * record to stderr as one line and counts page runs for --stats, so the walker's interface
 * stays "write records to a writer".
 *
 * Exit status: 0 complete, 1 partial (written, with warn records; stderr says why), 2 error.
 */
#include "commands.h"
#include "dump.h"
#include "errmsg.h"
#include "kinfo.h"
#include "records.h"
#include "walker.h"
#include "atomic_file.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_STDERR_WARNINGS 50
#define MAX_PIDS 65536

static const char *const prog = "pagesleuth extract";

static void extract_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth extract DUMP [-o FILE] [-p PID]... [TYPE INFORMATION] [OPTIONS]\n\n"
		"Read a kernel dump (ELF vmcore, makedumpfile/QEMU kdump-compressed, or\n"
		"makedumpfile's flattened format) and write one snapshot of its user processes as\n"
		"pagesleuth records: tasks, address spaces, VMAs, and page runs with PFN, mapcount,\n"
		"page flags and PTE bits. Pages the dump level excluded are written as 'x' runs.\n\n"
		"  -o, --output FILE     write the records to FILE, created atomically\n"
		"                        (default, or '-': standard output)\n"
		"  -p, --pid PID         only this thread group; repeat or give a comma list\n"
		"                        (default: every user process)\n"
		"      --summaries       a sum record per VMA, no page runs (same totals, smaller)\n"
		"      --vmas-only       tasks, mms and VMAs only (no page tables read)\n"
		"      --trace FILE      write one line per kernel object read to FILE (debugging)\n"
		"      --stats           print pages, runs, time and bytes read to stderr\n"
		"  -h, --help            this text\n\n"
		"type information (at most one; default: the BTF inside the dump, found through\n"
		"the kallsyms tables VMCOREINFO lists, Linux 6.0+ with CONFIG_DEBUG_INFO_BTF):\n"
		"      --vmlinux FILE    the dump's vmlinux with DWARF (distribution -dbg package)\n"
		"      --btf FILE        the kernel's BTF (/sys/kernel/btf/vmlinux, a detached .btf)\n"
		"      --profile FILE    a profile written by 'pagesleuth profile'\n"
		"      --system-map FILE take link-time symbol addresses from this System.map\n\n"
		"Warnings about the dump file (truncated, no VMCOREINFO, a guessed architecture)\n"
		"are printed once each. docs/coredump.md says what is read and how.\n"
		"Exit status: 0 complete, 1 partial (written; warn records and stderr say what\n"
		"could not be read), 2 error (nothing usable written).\n");
}

/* ---- the output filter -------------------------------------------------------------------- */

struct tee {
	FILE *out;
	char line[1024];
	size_t len;
	uint64_t runs, warns_printed, warns_total;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "warn mm=3 at=7f00 reason=cannot%20read" -> "mm 3 at 0x7f00: cannot read". */
static void print_warn_line(struct tee *t)
{
	t->warns_total++;
	if (t->warns_printed >= MAX_STDERR_WARNINGS)
		return;
	t->warns_printed++;
	t->line[t->len] = '\0';
	char where[96] = "", reason[1024] = "";
	char *save = NULL;
	for (char *tok = strtok_r(t->line + 5, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strncmp(tok, "mm=", 3) && strcmp(tok + 3, "-"))
			snprintf(where + strlen(where), sizeof where - strlen(where), "mm %.20s ", tok + 3);
		else if (!strncmp(tok, "at=", 3) && strcmp(tok + 3, "-"))
			snprintf(where + strlen(where), sizeof where - strlen(where), "at 0x%.20s ", tok + 3);
		else if (!strncmp(tok, "reason=", 7)) {
			size_t o = 0;
			for (const char *p = tok + 7; *p && o + 1 < sizeof reason; p++) {
				int hi, lo;
				if (*p == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0) {
					int ch = hi * 16 + lo;
					reason[o++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
					p += 2;
				} else {
					reason[o++] = *p;
				}
			}
			reason[o] = '\0';
		}
	}
	size_t wl = strlen(where);
	if (wl)
		where[wl - 1] = '\0';
	fprintf(stderr, "%s: partial: %s%s%s\n", prog, where, wl ? ": " : "",
		reason[0] ? reason : "(no reason given)");
}

static ssize_t tee_write(void *cookie, const char *buf, size_t size)
{
	struct tee *t = cookie;
	/* Keep the start of each line (enough for any warn record's reason) and look at it
	 * when the line ends; records may be split across writes. */
	for (size_t i = 0; i < size; i++) {
		char c = buf[i];
		if (c != '\n') {
			if (t->len < sizeof t->line - 1)
				t->line[t->len++] = c;
			continue;
		}
		if (t->len >= 2 && t->line[1] == ' ' && strchr("mxwu", t->line[0]))
			t->runs++; /* a page run: m x w u */
		else if (t->len >= 5 && memcmp(t->line, "warn ", 5) == 0)
			print_warn_line(t);
		t->len = 0;
	}
	size_t done = fwrite(buf, 1, size, t->out);
	if (done < size)
		return done ? (ssize_t)done : -1;
	return (ssize_t)size;
}

static int tee_close(void *cookie)
{
	(void)cookie;
	return 0;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static int parse_pids(const char *arg, uint64_t **pids, size_t *n)
{
	const char *p = arg;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p || errno || v == 0 || v > 0xffffffffull || (*end && *end != ','))
			return -1;
		if (*n >= MAX_PIDS)
			return -1;
		uint64_t *grown = realloc(*pids, (*n + 1) * sizeof *grown);
		if (!grown)
			return -1;
		*pids = grown;
		(*pids)[(*n)++] = v;
		p = *end ? end + 1 : end;
	}
	return *n ? 0 : -1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Print each line of a "PATH: text\n..." block as a warning. */
static void print_warnings(const char *warnings)
{
	for (const char *p = warnings; p && *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(stderr, "%s: warning: %.*s\n", prog, len, p);
		p = nl ? nl + 1 : p + len;
	}
}

enum ti_kind { TI_NONE, TI_VMLINUX, TI_BTF, TI_PROFILE };

/* Fill KI from the chosen source (or the dump's own BTF). 0, or -1 with *err. */
static int load_type_info(struct ps_walker *w, enum ti_kind kind, const char *file,
			  const char *system_map, struct ps_kinfo *ki, char **err)
{
	ps_kinfo_init(ki);
	int rc = -1;
	switch (kind) {
	case TI_PROFILE:
		rc = ps_profile_read(ki, file, err);
		break;
	case TI_VMLINUX:
		rc = ps_kinfo_fill_from_vmlinux(ki, file, err);
		break;
	case TI_BTF:
		rc = ps_kinfo_fill_from_btf_file(ki, file, err);
		break;
	case TI_NONE: {
		void *data = NULL;
		size_t len = 0;
		char *why = NULL;
		if (ps_walker_find_btf(w, &data, &len, &why) != 0) {
			ps_set_err(err, "no type information: %s; pass --vmlinux, --btf or --profile",
				   why ? why : "no BTF found in the dump");
			free(why);
			return -1;
		}
		rc = ps_kinfo_fill_from_btf(ki, data, len, "dump", err);
		free(data);
		break;
	}
	}
	if (rc == 0 && system_map)
		rc = ps_kinfo_add_system_map(ki, system_map, err);
	return rc;
}

/* ---- the command ------------------------------------------------------------------------ */

struct extract_opts {
	const char *dump, *output, *type_file, *system_map, *trace;
	enum ti_kind type_kind;
	uint64_t *pids;
	size_t npids;
	enum ps_walk_detail detail;
	bool stats;
};

static int run_extract(const struct extract_opts *o)
{
	int status = 2;
	char *err = NULL, *warnings = NULL, *pids_text = NULL, *dump_id = NULL;
	struct ps_walker *w = NULL;
	struct ps_writer *pw = NULL;
	FILE *trace = NULL, *tee_fp = NULL;
	struct atomic_file af = { 0 };
	bool af_open = false;
	double t0 = now_seconds();

	struct ps_dump *d = ps_dump_open(o->dump, &warnings, &err);
	print_warnings(warnings);
	if (!d) {
		fprintf(stderr, "%s: %s\n", prog, err ? err : o->dump);
		goto out;
	}
	w = ps_walker_open(ps_dump_target(d), &err);
	if (!w) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->dump, err ? err : "cannot read the kernel");
		goto out;
	}
	struct ps_kinfo ki;
	if (load_type_info(w, o->type_kind, o->type_file, o->system_map, &ki, &err) != 0 ||
	    ps_walker_set_kinfo(w, &ki, &err) != 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->dump, err ? err : "no type information");
		goto out;
	}
	if (o->trace && !(trace = fopen(o->trace, "w"))) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->trace, strerror(errno));
		goto out;
	}

	/* Header facts: identity of the captured kernel and what the dump level hid. */
	char time_buf[40] = "", excluded[32] = "none";
	int64_t when = ps_dump_time(d);
	if (when > 0) {
		time_t tt = (time_t)when;
		struct tm tm;
		if (gmtime_r(&tt, &tm))
			strftime(time_buf, sizeof time_buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	const char *build_id = ps_walker_vmcoreinfo(w, "BUILD-ID");
	if (build_id && *build_id) {
		int r = when > 0 ? asprintf(&dump_id, "%s:%" PRId64, build_id, when)
				 : asprintf(&dump_id, "%s", build_id);
		if (r < 0)
			dump_id = NULL;
	}
	int level = ps_dump_level(d);
	if (level > 0)
		snprintf(excluded, sizeof excluded, "dumplevel:%d", level);
	size_t pl = 0;
	FILE *pf = open_memstream(&pids_text, &pl);
	if (!pf)
		goto oom;
	if (!o->npids)
		fputs("all", pf);
	for (size_t i = 0; i < o->npids; i++)
		fprintf(pf, "%s%" PRIu64, i ? "," : "", o->pids[i]);
	fclose(pf);

	/* Output: the atomic file (or stdout) behind the warn/run filter. */
	struct tee tee = { .out = NULL };
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
	cookie_io_functions_t io = { .write = tee_write, .close = tee_close };
	tee_fp = fopencookie(&tee, "w", io);
	if (!tee_fp)
		goto oom;
	pw = ps_writer_open_stream(tee_fp, to_stdout ? "<stdout>" : o->output);
	if (!pw)
		goto oom;
	struct ps_header h = {
		.source = "coredump",
		.arch = ps_walker_arch(w),
		.big_endian = ps_walker_big_endian(w),
		.page_size = ps_walker_page_size(w),
		.release = ps_walker_release(w),
		.dump = base_name(o->dump),
		.dump_id = dump_id,
		.time = time_buf[0] ? time_buf : NULL,
		.excluded = excluded,
		.tool = "pagesleuth-0.1",
		.pids = pids_text,
	};
	if (ps_write_header(pw, &h) < 0) {
		fprintf(stderr, "%s: %s\n", prog, ps_writer_error(pw));
		goto out;
	}
	struct ps_walk_options wo = {
		.pids = o->pids,
		.npids = o->npids,
		.detail = o->detail,
		.trace = trace,
	};
	struct ps_walk_result res;
	int rc = ps_walker_run(w, pw, &wo, &res, &err);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->dump, err ? err : "walk failed");
		goto out;
	}
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
	if (tee.warns_total > tee.warns_printed)
		fprintf(stderr, "%s: partial: %" PRIu64 " further warnings (see the warn records)\n",
			prog, tee.warns_total - tee.warns_printed);
	if (rc == 1 && tee.warns_total == 0)
		fprintf(stderr, "%s: partial: some of the dump could not be read\n", prog);
	if (o->stats) {
		double secs = now_seconds() - t0;
		fprintf(stderr,
			"%s: %" PRIu64 " tasks, %" PRIu64 " mms, %" PRIu64 " vmas, %" PRIu64
			" pages in %" PRIu64 " runs (%" PRIu64 " excluded, %" PRIu64 " swap, %" PRIu64
			" unknown) in %.2f s, %.0f pages/s; read %" PRIu64 " bytes of page tables, %" PRIu64
			" of struct pages\n",
			prog, res.tasks, res.mms, res.vmas, res.pages, tee.runs, res.excluded_pages,
			res.swap_entries, res.unknown_pages, secs, secs > 0 ? res.pages / secs : 0.0,
			res.pt_bytes, res.page_struct_bytes);
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
	if (trace && fclose(trace) != 0 && status != 2) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->trace, strerror(errno));
		status = 2;
	}
	ps_walker_close(w);
	ps_dump_close(d);
	free(err);
	free(warnings);
	free(pids_text);
	free(dump_id);
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
		{ "trace", required_argument, NULL, 'T' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct extract_opts o = { .detail = PS_DETAIL_PAGES };
	int status = 2, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:p:h", longopts, NULL)) != -1) {
		enum ti_kind kind = TI_NONE;
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'p':
			if (parse_pids(optarg, &o.pids, &o.npids) != 0) {
				fprintf(stderr, "%s: bad pid list '%s'\n", prog, optarg);
				goto out;
			}
			break;
		case 'V': kind = TI_VMLINUX; break;
		case 'B': kind = TI_BTF; break;
		case 'P': kind = TI_PROFILE; break;
		case 'M': o.system_map = optarg; break;
		case 'S': o.detail = PS_DETAIL_SUMS; break;
		case 'A': o.detail = PS_DETAIL_VMAS; break;
		case 'T': o.trace = optarg; break;
		case 's': o.stats = true; break;
		case 'h': extract_usage(stdout); status = 0; goto out;
		default: extract_usage(stderr); goto out;
		}
		if (kind != TI_NONE) {
			if (o.type_kind != TI_NONE) {
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
	status = run_extract(&o);
out:
	free(o.pids);
	return status;
}
