/* fuzz_trace.c - libFuzzer harness for trace records through the whole analyzer: model_load
 * (trace_model.c's checks), every trace analysis (an_trace_*.c, an_wss.c) and every
 * renderer (text, CSV, JSON, HTML, SVG line charts).
 *
 * The input is the body of a trace file: the harness puts the magic line and a header in
 * front unless the input brings its own, and loads it from a memfd as a file would be.
 * It must never crash, leak, hang or trip UBSan; a refused file must say "FILE:LINE: ..."
 * or "FILE: ..."; outputs that are read by machines or browsers (JSON, HTML, SVG) and the
 * terminal text must carry no control byte but the newline (input strings are escaped).
 *
 * Build and run: tests/cases/fuzz_trace.sh (PAGESLEUTH_FUZZ_SECONDS, default 20).
 */
#include "model.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char default_head[] =
	"pagesleuth-records 1.0\n"
	"header source=valgrind arch=x86_64 endian=little page_size=4096 release=- dump=fuzz "
	"time=2026-11-21T07:00:00Z excluded=none tool=fuzz pids=1 time_unit=instructions\n";

static void write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		ssize_t n = write(fd, p, size);
		if (n <= 0)
			abort();
		p += n, size -= (size_t)n;
	}
}

/* No control byte but '\n' (and '\t' in the HTML page's own script and style). */
static void expect_no_controls(const char *what, const char *buf, size_t len, bool tab_ok)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if ((c < 0x20 && c != '\n' && !(tab_ok && c == '\t')) || c == 0x7f) {
			fprintf(stderr, "%s: control byte 0x%02x at offset %zu\n", what, c, i);
			abort();
		}
	}
}

/* The SVG's geometry attributes are numbers: no "nan" or "inf" from a division by zero.
 * (Labels may say "nan" as the input did; they are text, not attributes checked here.) */
static void expect_finite_geometry(const char *svg)
{
	static const char *const numeric[] = { "d", "cx", "cy", "r", "x", "y", "x1", "y1", "x2",
					       "y2", "width", "height", "viewBox", NULL };
	for (const char *q = strstr(svg, "=\""); q; q = strstr(q + 2, "=\"")) {
		const char *name = q;
		while (name > svg && (name[-1] == '-' || (name[-1] >= 'a' && name[-1] <= 'z') ||
				      (name[-1] >= 'A' && name[-1] <= 'Z') ||
				      (name[-1] >= '0' && name[-1] <= '9')))
			name--;
		if (name == svg || name[-1] != ' ')
			continue; /* not an attribute (text that happens to hold =") */
		for (int k = 0; numeric[k]; k++) {
			if (strlen(numeric[k]) != (size_t)(q - name) ||
			    strncmp(numeric[k], name, (size_t)(q - name)) != 0)
				continue;
			const char *end = strchr(q + 2, '"');
			for (const char *c = q + 2; end && c < end; c++)
				if (*c == 'n' || *c == 'i') { /* nan, inf: digits, M, L, '.', '-', ' ' */
					fprintf(stderr, "svg: %.*s=\"%.*s\"\n", (int)(q - name), name,
						(int)(end - q - 2), q + 2);
					abort();
				}
		}
	}
}

typedef int (*renderer)(const struct report *, FILE *);

static void render_to_memory(const char *what, renderer fn, const struct report *r, bool check,
			     bool tab_ok)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f || fn(r, f) != 0)
		abort();
	fclose(f);
	if (check)
		expect_no_controls(what, buf, len, tab_ok);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	static const char magic[] = "pagesleuth-records";
	if (size < sizeof magic - 1 || memcmp(data, magic, sizeof magic - 1) != 0)
		write_all(fd, default_head, sizeof default_head - 1);
	write_all(fd, data, size);
	lseek(fd, 0, SEEK_SET);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	struct model m;
	struct model_options opt = { .snapshot = -1 };
	char *err = NULL;
	if (model_load(&m, path, &opt, &err) < 0) {
		size_t plen = strlen(path);
		if (!err || strncmp(err, path, plen) != 0 || (err[plen] != ':' && err[plen] != '\0')) {
			fprintf(stderr, "error without FILE: prefix: %s\n", err ? err : "(null)");
			abort();
		}
		free(err);
		close(fd);
		return 0;
	}
	struct report r = { 0 };
	model_describe(&m, &r);
	an_trace_ws(&m, &r);
	an_trace_ws_series(&m, &r);
	an_trace_peaks(&m, &r);
	an_trace_hot(&m, &r);
	if (an_trace_obj(&m, size % 2 ? "name" : NULL, &r) < 0)
		abort();
	an_trace_alloc(&m, &r);
	an_wss(&m, &r);

	render_to_memory("text", render_text, &r, true, false);
	render_to_memory("csv", render_csv, &r, false, false); /* strings byte for byte */
	render_to_memory("json", render_json, &r, true, false);
	render_to_memory("html", render_html, &r, true, true);
	for (size_t i = 0; i < r.ntables; i++) {
		if (!r.tables[i]->lines)
			continue;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f || render_lines_svg(r.tables[i], f) != 0)
			abort();
		fclose(f);
		expect_no_controls("svg", buf, len, false);
		expect_finite_geometry(buf);
		free(buf);
	}
	report_free(&r);
	model_free(&m);
	close(fd);
	return 0;
}
