/* cmd_lackey.c - `pagesleuth lackey`: stock `valgrind --tool=lackey --trace-mem=yes` output
 * (a file or a pipe, streamed in constant memory but for the page tables) to the same
 * working-set records the pagesleuth Valgrind tool writes, through trace/ws_core.
 *
 * Lackey's lines: `I  ADDR,SIZE` per executed instruction, ` L|S|M ADDR,SIZE` per data
 * access of that instruction (hex address, decimal size). Time = the number of `I` lines
 * so far, so a data access happens at its instruction's number, as in the tool. Valgrind's
 * own `==PID==` lines and anything else (the program's output) are skipped and counted. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "commands.h"
#include "records.h"
#include "ws_core.h"

struct opts {
	uint64_t every, tau, page_size;
	const char *in, *out;
	bool peaks, peak_paper;
	uint64_t peak_window, peak_min, peak_max;
	double peak_gain, peak_adapt;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth lackey [OPTIONS] [TRACE]\n\n"
		"Read stock Lackey output (valgrind --tool=lackey --trace-mem=yes) from TRACE or\n"
		"standard input and write working-set records: the distinct code and data pages\n"
		"touched in the last TAU instructions, sampled every T instructions, with peaks.\n"
		"Streamed: a pipe straight from valgrind works, e.g.\n"
		"  valgrind --tool=lackey --trace-mem=yes --log-fd=9 PROG 9>&1 >/dev/null |\n"
		"      pagesleuth lackey -o prog.rec\n\n"
		"options:\n"
		"  -o FILE, --out FILE   record file [standard output unless a terminal; - = it anyway]\n"
		"  --ws-every T          sample every T instructions [100000]\n"
		"  --ws-tau TAU          window of TAU instructions [T]\n"
		"  --page-size N         page size, a power of two >= 512 [4096]\n"
		"  --peaks yes|no        peak detection [yes] (no call stacks: Lackey has none)\n"
		"  --peak-detector D, --peak-min PCT, --peak-max N   as the Valgrind tool's\n"
		"  --peak-window W, --peak-gain G, --peak-adapt A   as the Valgrind tool's\n"
		"docs/valgrind.md compares this route with the tool.\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		goto bad;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end || x < lo || x > hi)
		goto bad;
	*v = x;
	return 0;
bad:
	fprintf(stderr, "pagesleuth lackey: %s: '%s' is not a number between %llu and %llu\n", opt,
		s ? s : "", (unsigned long long)lo, (unsigned long long)hi);
	return -1;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *v)
{
	char *end;
	errno = 0;
	double x = s && *s ? strtod(s, &end) : 0;
	if (!s || !*s || errno || *end || !(x >= lo && x <= hi)) {
		fprintf(stderr, "pagesleuth lackey: %s: '%s' is not a number between %g and %g\n",
			opt, s ? s : "", lo, hi);
		return -1;
	}
	*v = x;
	return 0;
}

/* 0 ok, 1 help printed, -1 error (message printed). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .every = 100000, .page_size = 4096, .peaks = true, .peak_window = 30,
			    .peak_min = 10, .peak_max = 10, .peak_gain = 2.0, .peak_adapt = 0.0 };
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 1;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (o->in) {
				fprintf(stderr, "pagesleuth lackey: one trace at a time ('%s' and '%s')\n",
					o->in, a);
				return -1;
			}
			o->in = a;
			continue;
		}
		/* --opt=value or --opt value */
		char name[32];
		const char *val = NULL;
		char *eq = strchr(a, '=');
		if (eq && (size_t)(eq - a) < sizeof name) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = 0;
			val = eq + 1;
		} else {
			snprintf(name, sizeof name, "%s", a);
		}
		static const char *const known[] = { "-o", "--out", "--ws-every", "--ws-tau",
						     "--page-size", "--peaks", "--peak-window",
						     "--peak-gain", "--peak-adapt", "--peak-detector",
						     "--peak-min", "--peak-max" };
		bool ok = false;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			ok |= strcmp(name, known[k]) == 0;
		if (!ok) {
			fprintf(stderr, "pagesleuth lackey: unknown option '%s' (see --help)\n", a);
			return -1;
		}
		if (!val) {
			if (i + 1 >= argc) {
				fprintf(stderr, "pagesleuth lackey: %s needs a value\n", name);
				return -1;
			}
			val = argv[++i];
		}
		if (strcmp(name, "-o") == 0 || strcmp(name, "--out") == 0) {
			if (!*val) {
				fprintf(stderr, "pagesleuth lackey: %s needs a file name\n", name);
				return -1;
			}
			o->out = val;
		} else if (strcmp(name, "--ws-every") == 0) {
			if (parse_u64(name, val, 1, UINT64_C(1) << 50, &o->every) < 0)
				return -1;
		} else if (strcmp(name, "--ws-tau") == 0) {
			if (parse_u64(name, val, 1, UINT64_C(1) << 50, &o->tau) < 0)
				return -1;
		} else if (strcmp(name, "--page-size") == 0) {
			if (parse_u64(name, val, 512, UINT64_C(1) << 30, &o->page_size) < 0)
				return -1;
			if (o->page_size & (o->page_size - 1)) {
				fprintf(stderr, "pagesleuth lackey: --page-size: %s is not a power of two\n",
					val);
				return -1;
			}
		} else if (strcmp(name, "--peaks") == 0) {
			if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0) {
				fprintf(stderr, "pagesleuth lackey: --peaks: '%s' is not yes or no\n", val);
				return -1;
			}
			o->peaks = val[0] == 'y';
		} else if (strcmp(name, "--peak-detector") == 0) {
			if (strcmp(val, "prominence") != 0 && strcmp(val, "paper") != 0) {
				fprintf(stderr, "pagesleuth lackey: --peak-detector: '%s' is not prominence "
						"or paper\n", val);
				return -1;
			}
			o->peak_paper = val[1] == 'a';
		} else if (strcmp(name, "--peak-min") == 0) {
			if (parse_u64(name, val, 0, 100, &o->peak_min) < 0)
				return -1;
		} else if (strcmp(name, "--peak-max") == 0) {
			if (parse_u64(name, val, 1, 100000, &o->peak_max) < 0)
				return -1;
		} else if (strcmp(name, "--peak-window") == 0) {
			if (parse_u64(name, val, 1, 100000, &o->peak_window) < 0)
				return -1;
		} else if (strcmp(name, "--peak-gain") == 0) {
			if (parse_double(name, val, 1e-9, 1e9, &o->peak_gain) < 0)
				return -1;
		} else if (parse_double(name, val, 0.0, 1.0, &o->peak_adapt) < 0) {
			return -1;
		}
	}
	if (o->tau == 0)
		o->tau = o->every;
	if (o->tau / o->every > WS_MAX_RING - 2) {
		fprintf(stderr, "pagesleuth lackey: --ws-tau may be at most %u times --ws-every\n",
			WS_MAX_RING - 2);
		return -1;
	}
	return 0;
}

static void *std_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return malloc(n);
}

static void std_release(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

enum { CODE, DATA };

struct conv {
	struct opts o;
	unsigned shift;
	struct ws_clock clock;
	struct ws_set set[2];
	struct ws_peak peak[2];
	struct ws_prom prom[2];
	struct ps_writer *w;
	struct ps_header hdr;
	bool header_done;
	char pid[24], when[32], every[24], tau[24];
	uint64_t t;        /* instructions so far */
	uint64_t skipped;  /* lines that are not trace lines */
	uint64_t trace_lines;
	uint64_t last_page[2], last_exp[2];
};

static int write_kv(struct conv *c, const char *tag, const char *const *kv, size_t n)
{
	struct ps_kv r = { .tag = tag, .n = n / 2 };
	for (size_t i = 0; i < r.n; i++) {
		r.kv[i].key = kv[2 * i];
		r.kv[i].value = kv[2 * i + 1];
	}
	return ps_write_trace(c->w, &r);
}

static int header(struct conv *c)
{
	if (c->header_done)
		return 0;
	c->header_done = true;
	return ps_write_header(c->w, &c->hdr);
}

static int write_peak(struct conv *c, int k)
{
	char t[24], pages[24];
	snprintf(t, sizeof t, "%llu", (unsigned long long)c->peak[k].max_t);
	snprintf(pages, sizeof pages, "%llu", (unsigned long long)c->peak[k].max_pages);
	const char *kv[] = { "t", t, "tid", "0", "kind", k == CODE ? "code" : "data", "pages",
			     pages, "stack", NULL };
	return write_kv(c, "peak", kv, sizeof kv / sizeof kv[0]);
}

/* The sample due at clock.next_t, written at t (partial: the end of the run before it, as the
 * Valgrind tool does). */
static int take_sample(struct conv *c, uint64_t t, uint64_t partial)
{
	uint64_t v[2];
	for (int k = 0; k < 2; k++)
		v[k] = ws_sample(&c->set[k]);
	char ts[24], code[24], data[24], tau[24], part[24];
	snprintf(ts, sizeof ts, "%llu", (unsigned long long)t);
	snprintf(code, sizeof code, "%llu", (unsigned long long)v[CODE]);
	snprintf(data, sizeof data, "%llu", (unsigned long long)v[DATA]);
	snprintf(tau, sizeof tau, "%llu", (unsigned long long)c->o.tau);
	snprintf(part, sizeof part, "%llu", (unsigned long long)partial);
	const char *kv[] = { "t", ts, "tid", "0", "code", code, "data", data, "tau", tau,
			     "partial", part };
	if (header(c) < 0 || write_kv(c, "ws", kv, sizeof kv / sizeof kv[0] - (partial ? 0 : 2)) < 0)
		return -1;
	if (c->o.peaks)
		for (int k = 0; k < 2; k++) {
			if (!c->o.peak_paper)
				ws_prom_feed(&c->prom[k], t, v[k], 0);
			else if (ws_peak_feed(&c->peak[k], t, v[k]) == WS_PEAK_END && write_peak(c, k) < 0)
				return -1;
		}
	return 0;
}

/* Samples due strictly before time now. */
static int catch_up(struct conv *c, uint64_t now)
{
	while (c->clock.next_t < now) {
		if (take_sample(c, c->clock.next_t, 0) < 0)
			return -1;
		ws_clock_advance(&c->clock);
		c->last_page[CODE] = c->last_page[DATA] = UINT64_MAX;
	}
	return 0;
}

/* The prominence detector's peaks, ranked, as the tool writes them (without stacks). */
static int write_prom_peaks(struct conv *c, int k)
{
	ws_prom_finish(&c->prom[k]);
	if (c->prom[k].failed) {
		fprintf(stderr, "pagesleuth lackey: out of memory in the peak detector\n");
		return -1;
	}
	struct ws_prom_peak *out = calloc(c->o.peak_max, sizeof *out);
	if (!out)
		return -1;
	size_t n = ws_prom_result(&c->prom[k], (unsigned)c->o.peak_min, c->o.peak_max, out);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char v[6][24];
		const uint64_t x[6] = { out[i].t, out[i].pages, out[i].start, out[i].prominence, i + 1,
					out[i].repeats };
		for (int j = 0; j < 6; j++)
			snprintf(v[j], sizeof v[j], "%llu", (unsigned long long)x[j]);
		const char *kv[] = { "t", v[0], "tid", "0", "kind", k == CODE ? "code" : "data",
				     "pages", v[1], "stack", NULL, "start", v[2], "prominence", v[3],
				     "rank", v[4], "repeats", v[5] };
		rc = write_kv(c, "peak", kv, sizeof kv / sizeof kv[0]);
	}
	free(out);
	return rc;
}

static int touch(struct conv *c, int k, uint64_t page)
{
	/* the same page again in the same expiry epoch changes nothing */
	uint64_t x = ws_clock_expiry(&c->clock, c->t);
	if (page == c->last_page[k] && x == c->last_exp[k])
		return 0;
	if (!ws_touch(&c->set[k], page, c->t))
		return -1;
	c->last_page[k] = page;
	c->last_exp[k] = x;
	return 0;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "ADDR,SIZE" at p (the line without its newline). 0 or -1. */
static int parse_access(const char *p, const char *end, uint64_t *addr, uint64_t *size)
{
	uint64_t a = 0, s = 0;
	int nd = 0, h;
	for (; p < end && (h = hexval((unsigned char)*p)) >= 0; p++, nd++) {
		if (nd >= 16)
			return -1;
		a = a << 4 | (uint64_t)h;
	}
	if (nd == 0 || p >= end || *p++ != ',')
		return -1;
	nd = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++, nd++) {
		if (nd >= 6)
			return -1;
		s = s * 10 + (uint64_t)(*p - '0');
	}
	if (nd == 0 || p != end || s == 0)
		return -1;
	*addr = a;
	*size = s;
	return 0;
}

/* One line (without newline). 0 ok, -1 error (message printed). */
static int line(struct conv *c, const char *p, size_t len, uint64_t lineno)
{
	uint64_t addr, size;
	if (len && p[len - 1] == '\r')
		len--; /* a log that went through a CRLF text conversion */
	if (len >= 3 && p[0] == 'I' && p[1] == ' ' && p[2] == ' ') {
		if (parse_access(p + 3, p + len, &addr, &size) < 0)
			goto bad;
		c->t++;
		c->trace_lines++;
		if (catch_up(c, c->t) < 0 || touch(c, CODE, addr >> c->shift) < 0)
			goto fail;
		return 0;
	}
	if (len >= 3 && p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M') && p[2] == ' ') {
		if (parse_access(p + 3, p + len, &addr, &size) < 0)
			goto bad;
		if (c->t == 0) {
			fprintf(stderr, "pagesleuth lackey: %s:%llu: data access before the first "
					"instruction (not Lackey --trace-mem output?)\n",
				c->o.in ? c->o.in : "-", (unsigned long long)lineno);
			return -1;
		}
		c->trace_lines++;
		if (addr + size - 1 < addr) {
			fprintf(stderr, "pagesleuth lackey: %s:%llu: access wraps around the address "
					"space\n", c->o.in ? c->o.in : "-", (unsigned long long)lineno);
			return -1;
		}
		for (uint64_t pg = addr >> c->shift; pg <= (addr + size - 1) >> c->shift; pg++)
			if (touch(c, DATA, pg) < 0)
				goto fail;
		return 0;
	}
	if (len > 2 && p[0] == '=' && p[1] == '=') {
		/* ==PID== Valgrind's log: the pid, for the header */
		if (!c->pid[0]) {
			size_t i = 2;
			while (i < len && i < 20 && p[i] >= '0' && p[i] <= '9')
				i++;
			if (i > 2 && i + 1 < len && p[i] == '=' && p[i + 1] == '=')
				snprintf(c->pid, sizeof c->pid, "%.*s", (int)(i - 2), p + 2);
			if (c->pid[0])
				c->hdr.pids = c->pid;
		}
		return 0;
	}
	c->skipped++;
	return 0;
bad: {
	/* at most 60 bytes of the line, control and non-ASCII bytes shown as '?' */
	char shown[61];
	size_t n = len > 60 ? 60 : len;
	for (size_t i = 0; i < n; i++)
		shown[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	shown[n] = 0;
	fprintf(stderr, "pagesleuth lackey: %s:%llu: malformed Lackey trace line '%s'\n",
		c->o.in ? c->o.in : "-", (unsigned long long)lineno, shown);
	return -1;
}
fail:
	if (c->w && ps_writer_error(c->w) && *ps_writer_error(c->w))
		fprintf(stderr, "pagesleuth lackey: %s\n", ps_writer_error(c->w));
	else
		fprintf(stderr, "pagesleuth lackey: out of memory\n");
	return -1;
}

static int finish(struct conv *c)
{
	if (catch_up(c, c->t + 1) < 0 || header(c) < 0)
		return -1;
	uint64_t last = c->clock.next_t - c->clock.every;
	if (c->t > last && take_sample(c, c->t, c->t - last) < 0)
		return -1;
	if (c->o.peaks)
		for (int k = 0; k < 2; k++) {
			if (!c->o.peak_paper) {
				if (write_prom_peaks(c, k) < 0)
					return -1;
			} else if (c->peak[k].in_peak && write_peak(c, k) < 0) {
				return -1;
			}
		}
	char t[24], tau[24], samples[24], avg[2][32], peak[2][24], total[2][24];
	snprintf(t, sizeof t, "%llu", (unsigned long long)c->t);
	snprintf(tau, sizeof tau, "%llu", (unsigned long long)c->o.tau);
	snprintf(samples, sizeof samples, "%llu", (unsigned long long)c->set[CODE].samples);
	for (int k = 0; k < 2; k++) {
		const struct ws_set *s = &c->set[k];
		if (s->samples) {
			/* the tool's rounding: 3 decimals, half up, in integers */
			unsigned long long milli = s->sum / s->samples * 1000 +
						   ((s->sum % s->samples) * 1000 + s->samples / 2) / s->samples;
			snprintf(avg[k], sizeof avg[k], "%llu.%03llu", milli / 1000, milli % 1000);
		} else {
			avg[k][0] = 0;
		}
		snprintf(peak[k], sizeof peak[k], "%llu", (unsigned long long)s->peak);
		snprintf(total[k], sizeof total[k], "%llu", (unsigned long long)s->pages);
	}
	const char *kv[] = { "t", t, "tid", "0", "code", NULL, "data", NULL, "tau", tau,
			     "final", "1", "samples", samples, "avg_code", avg[CODE],
			     "avg_data", avg[DATA], "peak_code", peak[CODE], "peak_data", peak[DATA],
			     "total_code", total[CODE], "total_data", total[DATA] };
	return write_kv(c, "ws", kv, sizeof kv / sizeof kv[0]);
}

int ps_cmd_lackey(int argc, char **argv)
{
	struct conv c;
	memset(&c, 0, sizeof c);
	int r = parse_args(argc, argv, &c.o);
	if (r)
		return r > 0 ? 0 : 2;
	int fd = 0;
	const char *name = c.o.in && strcmp(c.o.in, "-") != 0 ? c.o.in : "-";
	ps_input_note(name); /* evidence first: the output may not be the trace */
	if (ps_outputs_check("pagesleuth lackey", (const char *const[]){ c.o.out }, 1) != 0 ||
	    ps_refuse_records_to_terminal("pagesleuth lackey", c.o.out) != 0)
		return 2;
	if (!c.o.out)
		c.o.out = "-";
	if (strcmp(name, "-") != 0 && (fd = open(name, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "pagesleuth lackey: %s: %s\n", name, strerror(errno));
		return 1;
	}
	while ((1ull << c.shift) < c.o.page_size)
		c.shift++;
	struct ws_alloc a = { std_alloc, std_release, NULL };
	if (ws_clock_init(&c.clock, c.o.every, c.o.tau) < 0 || ws_set_init(&c.set[0], &c.clock, &a) < 0 ||
	    ws_set_init(&c.set[1], &c.clock, &a) < 0) {
		fprintf(stderr, "pagesleuth lackey: out of memory\n");
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		ws_peak_init(&c.peak[k], (uint32_t)c.o.peak_window, c.o.peak_gain, c.o.peak_adapt);
		if (ws_prom_init(&c.prom[k], &a) < 0) {
			fprintf(stderr, "pagesleuth lackey: out of memory\n");
			return 1;
		}
		c.last_page[k] = UINT64_MAX;
	}
	char *err = NULL;
	c.w = ps_writer_open(c.o.out, &err);
	if (!c.w) {
		fprintf(stderr, "pagesleuth lackey: %s\n", err ? err : c.o.out);
		free(err);
		return 1;
	}
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(c.when, sizeof c.when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	c.hdr = (struct ps_header){ .source = "lackey", .arch = "x86_64", .release = NULL,
				    .dump = strcmp(name, "-") == 0 ? "stdin" : name,
				    .time = c.when, .excluded = "none", .tool = "pagesleuth-0.1",
				    .page_size = (uint32_t)c.o.page_size };
	/* The same time base and window keys the Valgrind tool's header carries. */
	snprintf(c.every, sizeof c.every, "%llu", (unsigned long long)c.o.every);
	snprintf(c.tau, sizeof c.tau, "%llu", (unsigned long long)c.o.tau);
	c.hdr.extra[0].key = "time_unit", c.hdr.extra[0].value = "instructions";
	c.hdr.extra[1].key = "ws_every", c.hdr.extra[1].value = c.every;
	c.hdr.extra[2].key = "ws_tau", c.hdr.extra[2].value = c.tau;
	c.hdr.n_extra = 3;

	/* Streamed in fixed-size blocks; a line longer than the buffer is not a trace line. */
	enum { BUF = 1 << 20 };
	char *buf = malloc(BUF);
	size_t have = 0;
	uint64_t lineno = 0;
	bool failed = !buf, overlong = false;
	while (!failed) {
		ssize_t n = read(fd, buf + have, BUF - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "pagesleuth lackey: %s: read: %s\n", name, strerror(errno));
			failed = true;
			break;
		}
		size_t end = have + (size_t)n, start = 0;
		for (;;) {
			char *nl = memchr(buf + start, '\n', end - start);
			if (!nl)
				break;
			lineno++;
			if (overlong) {
				overlong = false;
				c.skipped++;
			} else if (line(&c, buf + start, (size_t)(nl - (buf + start)), lineno) < 0) {
				failed = true;
				break;
			}
			start = (size_t)(nl - buf) + 1;
		}
		if (failed)
			break;
		if (n == 0) {
			/* a last line without its newline */
			if (start < end && !overlong &&
			    line(&c, buf + start, end - start, ++lineno) < 0)
				failed = true;
			break;
		}
		memmove(buf, buf + start, end - start);
		have = end - start;
		if (have == BUF) {
			overlong = true;
			have = 0;
		}
	}
	if (!failed && c.trace_lines == 0) {
		fprintf(stderr, "pagesleuth lackey: %s: no Lackey trace lines (run valgrind "
				"--tool=lackey --trace-mem=yes)\n", name);
		failed = true;
	}
	if (!failed) {
		failed = finish(&c) < 0;
		if (failed && ps_writer_error(c.w))
			fprintf(stderr, "pagesleuth lackey: %s\n", ps_writer_error(c.w));
	}
	free(buf);
	if (fd > 0)
		close(fd);
	for (int k = 0; k < 2; k++) {
		ws_set_free(&c.set[k]);
		ws_prom_free(&c.prom[k]);
	}
	if (ps_writer_close(c.w, failed, &err) < 0) {
		fprintf(stderr, "pagesleuth lackey: %s\n", err ? err : "cannot write the records");
		free(err);
		return 1;
	}
	if (c.skipped)
		fprintf(stderr, "pagesleuth lackey: %llu lines that are not trace lines skipped "
				"(program output?)\n", (unsigned long long)c.skipped);
	return failed ? 1 : 0;
}
