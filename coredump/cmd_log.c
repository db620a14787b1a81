/* cmd_log.c - `pagesleuth log`: the kernel log (what dmesg shows) stored in a kernel dump.
 *
 * The dump is opened as `pagesleuth extract` opens it (dump.c's back-end, the walker on
 * it); the log needs only VMCOREINFO (the note, or the copy the kernel left in RAM), no
 * type information. walker/klog.c reads the records; this file prints them as dmesg and
 * crash's `log` do: "[SECONDS.MICROSECONDS] text", the further lines of a multi-line
 * message indented under its text, bytes that are not printable as \xHH.
 *
 * Exit status: 0 every record read; 1 partial (printed; one line on stderr says how many
 * records could not be read and why); 2 error.
 */
#include "atomic_file.h"
#include "commands.h"
#include "dump.h"
#include "errmsg.h"
#include "klog.h"
#include "walker.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prog = "pagesleuth log";

static void log_usage(FILE *out)
{
	fprintf(out,
		"usage: pagesleuth log DUMP [-o FILE] [-l LIST] [-x]\n\n"
		"Print the kernel log (what dmesg shows: the OOM killer's report, the panic\n"
		"message) stored in a kernel dump (ELF vmcore, makedumpfile/QEMU kdump-compressed,\n"
		"or makedumpfile's flattened format): Linux 5.10+'s printk ringbuffer, or log_buf\n"
		"of older kernels, found and laid out by the dump's VMCOREINFO (no type information\n"
		"needed). One line per message, \"[SECONDS.MICROSECONDS] text\" as dmesg prints it;\n"
		"the further lines of a multi-line message are indented under its first, and bytes\n"
		"that are not printable are written as \\xHH.\n\n"
		"  -o, --output FILE   write the log to FILE, created atomically\n"
		"                      (default: standard output)\n"
		"  -l, --level LIST    only messages of these levels: a comma list of emerg, alert,\n"
		"                      crit, err, warn, notice, info, debug (or 0-7); NAME+ is NAME\n"
		"                      and every more severe level, +NAME NAME and every less severe\n"
		"  -x, --decode        prefix each message with its facility and level (dmesg -x)\n"
		"  -h, --help          this text\n\n"
		"docs/coredump.md says what is read per kernel version and what is skipped.\n"
		"Exit status: 0 every record read; 1 partial (printed; stderr says how many records\n"
		"could not be read and why); 2 error.\n");
}

/* Print each line of a "PATH: text\n..." block as a warning (as extract does). */
/* ---- levels ------------------------------------------------------------------------------ */

static int level_of_name(const char *s, size_t n)
{
	if (n == 1 && s[0] >= '0' && s[0] <= '7')
		return s[0] - '0';
	for (unsigned l = 0; l < 8; l++) {
		const char *name = ps_klog_level_name(l);
		if (strlen(name) == n && strncmp(name, s, n) == 0)
			return (int)l;
	}
	return -1;
}

/* LIST as dmesg --level takes it: bit L is added to *mask for every level L chosen. */
static int parse_levels(const char *list, unsigned *mask)
{
	unsigned m = *mask;
	for (const char *p = list;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool up = n > 0 && p[n - 1] == '+', down = n > 0 && p[0] == '+';
		const char *s = p + down;
		size_t len = n - down - up;
		int l = up && down ? -1 : level_of_name(s, len);
		if (l < 0) {
			fprintf(stderr, "%s: unknown level '%.*s' (emerg, alert, crit, err, warn, notice, info, "
				"debug, or 0-7; NAME+ or +NAME for a range)\n", prog, (int)n, p);
			return -1;
		}
		if (up)
			m |= (2u << l) - 1; /* NAME and the more severe ones */
		else if (down)
			m |= 0xffu & ~((1u << l) - 1); /* NAME and the less severe ones */
		else
			m |= 1u << l;
		if (!end)
			break;
		p = end + 1;
	}
	*mask = m;
	return 0;
}

/* ---- printing ---------------------------------------------------------------------------- */

static const char *const facility_names[] = { "kern", "user", "mail", "daemon", "auth", "syslog",
					      "lpr", "news", "uucp", "cron", "authpriv", "ftp" };

struct printer {
	FILE *out;
	unsigned levels; /* bit L: print level L */
	bool decode;
	uint64_t printed;
};

/* The length of the printable UTF-8 sequence at S (N bytes available), or 0: overlong forms,
 * surrogates, code points past U+10FFFF and the C1 controls are not printable. */
static size_t utf8_printable(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < 0xa0 || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int print_entry(void *arg, const struct ps_klog_entry *e)
{
	struct printer *p = arg;
	if (e->level > 7 || !(p->levels & (1u << e->level)))
		return 0;
	FILE *out = p->out;
	int indent = 0;
	if (p->decode) {
		if (e->facility < sizeof facility_names / sizeof facility_names[0])
			indent += fprintf(out, "%-6s:%-6s: ", facility_names[e->facility], ps_klog_level_name(e->level));
		else
			indent += fprintf(out, "%-6u:%-6s: ", e->facility, ps_klog_level_name(e->level));
	}
	indent += fprintf(out, "[%5" PRIu64 ".%06" PRIu64 "] ", e->ts_nsec / 1000000000u,
			  e->ts_nsec % 1000000000u / 1000u);
	const unsigned char *s = (const unsigned char *)e->text;
	size_t n = e->text_len;
	if (n && s[n - 1] == '\n')
		n--; /* a trailing newline ends the message; it starts no line */
	for (size_t i = 0; i < n;) {
		unsigned char ch = s[i];
		size_t u;
		if (ch == '\n') {
			fprintf(out, "\n%*s", indent, "");
			i++;
		} else if (ch == '\t' || (ch >= 0x20 && ch < 0x7f)) {
			putc(ch, out);
			i++;
		} else if (ch >= 0x80 && (u = utf8_printable(s + i, n - i)) > 0) {
			fwrite(s + i, 1, u, out);
			i += u;
		} else {
			fprintf(out, "\\x%02x", ch);
			i++;
		}
	}
	putc('\n', out);
	p->printed++;
	return ferror(out) ? -1 : 0;
}

/* ---- the command ------------------------------------------------------------------------- */

struct log_opts {
	const char *dump, *output;
	unsigned levels;
	bool decode;
};

static int run_log(const struct log_opts *o)
{
	int status = 2;
	char *err = NULL;
	struct ps_walker *w = NULL;
	struct atomic_file af = { 0 };
	bool af_open = false;
	bool to_stdout = !o->output || strcmp(o->output, "-") == 0;

	struct ps_dump *d;
	if (ps_dump_open_walker(prog, o->dump, &d, &w) != 0)
		goto out;
	struct printer pr = { .out = stdout, .levels = o->levels, .decode = o->decode };
	if (!to_stdout) {
		if (atomic_open(&af, o->output, &err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err ? err : o->output);
			goto out;
		}
		af_open = true;
		pr.out = af.fp;
	}
	struct ps_klog_stats st;
	int rc = ps_walker_klog(w, print_entry, &pr, &st, &err);
	if (rc < 0 || ferror(pr.out) || fflush(pr.out) != 0) {
		if (rc >= 0 || (err && strcmp(err, "stopped") == 0))
			fprintf(stderr, "%s: cannot write %s: %s\n", prog, to_stdout ? "to standard output" : o->output,
				strerror(errno ? errno : EIO));
		else
			fprintf(stderr, "%s: %s: %s\n", prog, o->dump, err ? err : "cannot read the kernel log");
		goto out;
	}
	if (af_open) {
		af_open = false;
		if (atomic_close(&af, true, &err) != 0) {
			fprintf(stderr, "%s: %s\n", prog, err ? err : o->output);
			goto out;
		}
	}
	if (rc == 1) {
		fprintf(stderr,
			"%s: %s: partial: %" PRIu64 " of %" PRIu64 " kernel log records could not be read "
			"(%" PRIu64 " being written, %" PRIu64 " with a bad descriptor, %" PRIu64
			" with a bad text block, %" PRIu64 " without text%s%s); the first: %s\n",
			prog, o->dump, st.skipped, st.skipped + st.records, st.reserved, st.bad_desc, st.bad_text,
			st.no_text, st.range_clamped ? "; head and tail ids further apart than the ring holds" : "",
			st.walk_stopped ? "; the record chain broke off, the rest is lost" : "",
			st.first_problem[0] ? st.first_problem : "?");
	}
	status = rc == 1 ? 1 : 0;
out:
	if (af_open) {
		char *e2 = NULL;
		atomic_close(&af, false, &e2);
		free(e2);
	}
	ps_walker_close(w);
	ps_dump_close(d);
	free(err);
	return status;
}

int ps_cmd_log(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "level", required_argument, NULL, 'l' },
		{ "decode", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct log_opts o = { .levels = 0 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:l:xh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'l':
			if (parse_levels(optarg, &o.levels) != 0)
				return 2;
			break;
		case 'x': o.decode = true; break;
		case 'h': log_usage(stdout); return 0;
		default: log_usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "%s: which dump? (see --help)\n"
					       : "%s: one dump at a time (see --help)\n", prog);
		return 2;
	}
	o.dump = argv[optind];
	if (!o.levels)
		o.levels = 0xff; /* no -l: every level */
	/* Evidence first: the output may not be the dump (checked before anything is read). */
	ps_input_note(o.dump);
	const char *outputs[] = { o.output };
	if (ps_outputs_check(prog, outputs, 1) != 0)
		return 2;
	return run_log(&o);
}
