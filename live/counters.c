/* counters.c - the kernel's own counters of a running system as counter records, the same
 * sets a dump reader writes (walker/kcounters.c): /proc/meminfo, /proc/vmstat, and per zone
 * /proc/zoneinfo's present, managed, free pages and low watermark and /proc/buddyinfo's
 * free blocks. Here the kernel prints them itself, so they are copied, not computed.
 * Parsers work on text already read (counters.h), so they are pure and unit-tested.
 */
#include "counters.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

/* The next line of TEXT at *pos into LINE (NUL-terminated, at most cap-1 bytes kept). */
static bool next_line(const char *text, size_t *pos, char *line, size_t cap)
{
	if (!text[*pos])
		return false;
	size_t n = strcspn(text + *pos, "\n"), keep = n < cap - 1 ? n : cap - 1;
	memcpy(line, text + *pos, keep);
	line[keep] = 0;
	*pos += n + (text[*pos + n] == '\n');
	return true;
}

static bool counter_name_ok(const char *s, size_t len)
{
	if (!len || len > 63)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '(' || s[i] == ')'))
			return false;
	return true;
}

int live_parse_meminfo(const char *text, live_counter_fn fn, void *arg)
{
	char line[256];
	size_t pos = 0;
	int n = 0;
	while (next_line(text, &pos, line, sizeof line)) {
		char *colon = strchr(line, ':');
		if (!colon || !counter_name_ok(line, (size_t)(colon - line)))
			continue;
		*colon = 0;
		char *end;
		unsigned long long v = strtoull(colon + 1, &end, 10);
		if (end == colon + 1)
			continue;
		fn(arg, "meminfo", PS_UNKNOWN, NULL, line, v);
		n++;
	}
	return n;
}

int live_parse_vmstat(const char *text, live_counter_fn fn, void *arg)
{
	char line[256], name[64];
	size_t pos = 0;
	int n = 0;
	while (next_line(text, &pos, line, sizeof line)) {
		long long v;
		/* Counters are signed in the kernel (an unfolded per-CPU sum can dip below 0 in a
		 * few of them); the records hold what is not negative. */
		if (sscanf(line, "%63s %lld", name, &v) != 2 || !counter_name_ok(name, strlen(name)))
			continue;
		fn(arg, "vmstat", PS_UNKNOWN, NULL, name, v < 0 ? 0 : (uint64_t)v);
		n++;
	}
	return n;
}

int live_parse_buddyinfo(const char *text, live_counter_fn fn, void *arg)
{
	char line[1024];
	size_t pos = 0;
	int n = 0;
	while (next_line(text, &pos, line, sizeof line)) {
		unsigned node;
		char zone[32];
		int used;
		if (sscanf(line, "Node %u, zone %31s%n", &node, zone, &used) != 2)
			continue;
		const char *p = line + used;
		for (unsigned order = 0; order < 64; order++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			char oname[16];
			snprintf(oname, sizeof oname, "order%u", order);
			fn(arg, "buddyinfo", node, zone, oname, v);
			n++;
			p = end;
		}
	}
	return n;
}

int live_parse_zoneinfo(const char *text, live_counter_fn fn, void *arg)
{
	char line[256], zone[32] = "", key[32];
	unsigned node = 0;
	bool in_zone = false;
	size_t pos = 0;
	int n = 0;
	while (next_line(text, &pos, line, sizeof line)) {
		unsigned long long v;
		if (sscanf(line, "Node %u, zone %31s", &node, zone) == 2) {
			in_zone = true;
			continue;
		}
		if (!in_zone)
			continue;
		const char *name = NULL;
		if (sscanf(line, " pages free %llu", &v) == 1)
			name = "nr_free_pages";
		else if (sscanf(line, " %31s %llu", key, &v) == 2 &&
			 (!strcmp(key, "present") || !strcmp(key, "managed") || !strcmp(key, "low")))
			name = key;
		else if (strstr(line, "pagesets") || strstr(line, "per-node stats"))
			continue;
		if (!name)
			continue;
		fn(arg, "zone", node, zone, name, v);
		n++;
	}
	return n;
}

struct vcaller {
	char name[64];
	uint64_t pages;
};

int live_parse_vmallocinfo(const char *text, live_counter_fn fn, void *arg)
{
	enum { MAX_CALLERS = 4096 }; /* a kernel has a few hundred callers; the rest summed */
	struct vcaller *c = calloc(MAX_CALLERS + 1, sizeof *c);
	if (!c)
		return 0;
	size_t n = 0;
	char line[512];
	size_t pos = 0;
	while (next_line(text, &pos, line, sizeof line)) {
		/* "0x...-0x... SIZE CALLER+0x1bc/0x1e0 pages=4 vmalloc N0=4" */
		char range[64], caller[256];
		unsigned long long size;
		const char *p = strstr(line, " pages=");
		if (!p || sscanf(line, "%63s %llu %255s", range, &size, caller) != 3)
			continue;
		unsigned long long pages = strtoull(p + 7, NULL, 10);
		caller[strcspn(caller, "+")] = 0; /* the function, without offset/size */
		size_t len = strlen(caller);
		bool ok = len > 0 && len < sizeof c->name && strncmp(caller, "pages=", 6) != 0;
		for (size_t i = 0; ok && i < len; i++)
			ok = (caller[i] >= 'a' && caller[i] <= 'z') || (caller[i] >= 'A' && caller[i] <= 'Z') ||
			     (caller[i] >= '0' && caller[i] <= '9') || caller[i] == '_' || caller[i] == '.';
		const char *name = ok ? caller : "(unknown)";
		size_t i = 0;
		while (i < n && strcmp(c[i].name, name) != 0)
			i++;
		if (i == n) {
			if (n == MAX_CALLERS)
				i = n - 1, name = c[i].name; /* table full: the last row takes the rest */
			else
				memcpy(c[n++].name, name, strlen(name) + 1); /* checked: < 64 bytes */
		}
		c[i].pages += pages;
	}
	for (size_t i = 0; i < n; i++)
		fn(arg, "vmallocinfo", PS_UNKNOWN, NULL, c[i].name, c[i].pages);
	free(c);
	return (int)n;
}

int live_parse_slabinfo(const char *text, void (*fn)(void *arg, const struct ps_slab *s), void *arg)
{
	char line[512], name[64];
	size_t pos = 0;
	int n = 0;
	if (strncmp(text, "slabinfo - version: 2.", 22) != 0)
		return 0; /* another format: nothing is guessed */
	while (next_line(text, &pos, line, sizeof line)) {
		unsigned long long act, num, size, per, pages, aslabs, nslabs;
		/* name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables
		 * <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail> */
		if (line[0] == '#' || sscanf(line, "%63s %llu %llu %llu %llu %llu : tunables %*u %*u %*u : slabdata %llu %llu",
					    name, &act, &num, &size, &per, &pages, &aslabs, &nslabs) != 8)
			continue;
		struct ps_slab sl = { .name = name, .active_objs = act, .num_objs = num, .objsize = size,
				      .objperslab = per, .pagesperslab = pages, .num_slabs = nslabs };
		fn(arg, &sl);
		n++;
	}
	return n;
}

struct writer_arg {
	struct ps_writer *w;
	bool failed;
};

static void write_one(void *arg, const char *set, uint64_t node, const char *zone, const char *name,
		      uint64_t value)
{
	struct writer_arg *a = arg;
	struct ps_counter c = { .set = set, .node = node, .zone = zone, .name = name, .value = value };
	if (!a->failed && ps_write_counter(a->w, &c) < 0)
		a->failed = true;
}

static void write_slab(void *arg, const struct ps_slab *sl)
{
	struct writer_arg *a = arg;
	if (!a->failed && ps_write_slab(a->w, sl) < 0)
		a->failed = true;
}

int live_write_counters(struct ps_writer *w, const char *proc_root, char *why, size_t whylen)
{
	static const struct {
		const char *file;
		int (*parse)(const char *, live_counter_fn, void *);
	} files[] = {
		{ "meminfo", live_parse_meminfo }, { "vmstat", live_parse_vmstat },
		{ "zoneinfo", live_parse_zoneinfo }, { "buddyinfo", live_parse_buddyinfo },
	};
	struct proc_buf b = { 0 };
	struct writer_arg a = { .w = w };
	int rc = 0;
	why[0] = 0;
	for (size_t i = 0; i < sizeof files / sizeof files[0] && !a.failed; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s/%s", proc_root ? proc_root : "/proc", files[i].file);
		int err = proc_read_file(path, &b);
		if (err) {
			/* meminfo and vmstat are always there; the others may be absent (a kernel
			 * without them, a restricted /proc) */
			if (i < 2 && !why[0]) {
				snprintf(why, whylen, "%s: %s", path, strerror(err));
				rc = 1;
			}
			continue;
		}
		files[i].parse(b.data, write_one, &a);
	}
	char path[256];
	snprintf(path, sizeof path, "%s/vmallocinfo", proc_root ? proc_root : "/proc");
	if (!a.failed && proc_read_file(path, &b) == 0) /* root only */
		live_parse_vmallocinfo(b.data, write_one, &a);
	snprintf(path, sizeof path, "%s/slabinfo", proc_root ? proc_root : "/proc");
	if (!a.failed && proc_read_file(path, &b) == 0)
		live_parse_slabinfo(b.data, write_slab, &a);
	proc_buf_free(&b);
	return a.failed ? -1 : rc;
}
