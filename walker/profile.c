/* profile.c - the compact profile: the kinfo table as a small text file
 * (docs/profile-format.md), and symbols from a System.map.
 *
 * Reading is strict about what it understands (a malformed line is "FILE:LINE: reason")
 * and lenient about what it does not: entries and keys this reader's table lacks are
 * skipped, so an older pagesleuth reads a newer profile. The "end N" line makes a
 * truncated file an error instead of a silently smaller table.
 */
#include "kinfo.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "errmsg.h"

#define PROFILE_MAGIC "pagesleuth-profile"
#define PROFILE_VERSION 1
#define PROFILE_MAX_LINE 4096

/* ---- writing ------------------------------------------------------------------------ */

/* Header strings are written as the rest of a line: keep them printable and on one line. */
static void print_string_line(FILE *fp, const char *key, const char *value, size_t max)
{
	if (!value[0])
		return;
	fprintf(fp, "%s ", key);
	for (size_t i = 0; i < max && value[i]; i++)
		fputc(isprint((unsigned char)value[i]) ? value[i] : '?', fp);
	fputc('\n', fp);
}

int ps_profile_fprint(const struct ps_kinfo *ki, FILE *fp)
{
	unsigned entries = 0;
	fprintf(fp, "%s %d\n", PROFILE_MAGIC, PROFILE_VERSION);
	print_string_line(fp, "arch", ki->arch, sizeof(ki->arch));
	print_string_line(fp, "release", ki->release, sizeof(ki->release));
	print_string_line(fp, "build_id", ki->build_id, sizeof(ki->build_id));
	print_string_line(fp, "source", ki->source, sizeof(ki->source));
	for (unsigned i = 0; i < PS_KI_NMEMBERS; i++) {
		const struct ps_kinfo_member *m = &ki->member[i];
		if (m->offset == PS_KI_ABSENT)
			continue;
		fprintf(fp, "member %s %" PRId64 " %" PRIu32 " %" PRIu32 "\n",
			ps_ki_member_name((enum ps_ki_member)i), m->offset, m->size, m->nelems);
		entries++;
	}
	for (unsigned i = 0; i < PS_KI_NSIZES; i++) {
		if (ki->size[i] == PS_KI_ABSENT)
			continue;
		fprintf(fp, "size %s %" PRId64 "\n", ps_ki_size_name((enum ps_ki_size)i), ki->size[i]);
		entries++;
	}
	for (unsigned i = 0; i < PS_KI_NENUMS; i++) {
		if (ki->enumval[i] == PS_KI_ABSENT)
			continue;
		fprintf(fp, "enum %s %" PRId64 "\n", ps_ki_enum_name((enum ps_ki_enum)i), ki->enumval[i]);
		entries++;
	}
	for (unsigned i = 0; i < PS_KI_NSYMBOLS; i++) {
		if (!ki->symbol[i])
			continue;
		fprintf(fp, "symbol %s 0x%" PRIx64 "\n", ps_ki_symbol_name((enum ps_ki_symbol)i), ki->symbol[i]);
		entries++;
	}
	fprintf(fp, "end %u\n", entries);
	return ferror(fp) ? -1 : 0;
}

int ps_profile_write(const struct ps_kinfo *ki, const char *path, char **err)
{
	if (err)
		*err = NULL;
	struct atomic_file af;
	if (atomic_open(&af, path, err) < 0)
		return -1;
	if (ps_profile_fprint(ki, af.fp) < 0) {
		ps_set_err(err, "%s: write failed: %s", path, strerror(errno ? errno : EIO));
		atomic_close(&af, false, NULL);
		return -1;
	}
	return atomic_close(&af, true, err);
}

/* ---- reading ------------------------------------------------------------------------ */

/* The parsed profile, answered through the same ops as any other source so a profile
 * gets the same required-entry check as DWARF or BTF. */
struct profile_table {
	struct ps_kinfo ki;
	bool has_symbols;
	/* Duplicates are errors: a profile is machine-written, a repeat means corruption. */
	bool seen_member[PS_KI_NMEMBERS], seen_size[PS_KI_NSIZES], seen_enum[PS_KI_NENUMS],
		seen_symbol[PS_KI_NSYMBOLS];
	/* Where find_index looks first: after the last name found. A profile is written in
	 * the tables' order and ps_kinfo_fill asks in that order, so nearly every look-up is
	 * one comparison instead of a scan. */
	int next_member, next_size, next_enum, next_symbol;
};

static int find_index(const char *name, const char *(*namer)(int), int n, int *next)
{
	if (*next >= 0 && *next < n && strcmp(namer(*next), name) == 0)
		return (*next)++;
	for (int i = 0; i < n; i++)
		if (strcmp(namer(i), name) == 0) {
			*next = i + 1;
			return i;
		}
	return -1;
}
static const char *member_namer(int i) { return ps_ki_member_name((enum ps_ki_member)i); }
static const char *size_namer(int i) { return ps_ki_size_name((enum ps_ki_size)i); }
static const char *enum_namer(int i) { return ps_ki_enum_name((enum ps_ki_enum)i); }
static const char *symbol_namer(int i) { return ps_ki_symbol_name((enum ps_ki_symbol)i); }

static int table_member(void *ctx, const char *type, const char *path, struct ps_kinfo_member *out)
{
	struct profile_table *t = ctx;
	char full[256];
	snprintf(full, sizeof(full), "%s.%s", type, path);
	int i = find_index(full, member_namer, PS_KI_NMEMBERS, &t->next_member);
	if (i < 0 || t->ki.member[i].offset == PS_KI_ABSENT)
		return -1;
	*out = t->ki.member[i];
	return 0;
}
static int table_size(void *ctx, const char *type, int64_t *out)
{
	struct profile_table *t = ctx;
	int i = find_index(type, size_namer, PS_KI_NSIZES, &t->next_size);
	if (i < 0 || t->ki.size[i] == PS_KI_ABSENT)
		return -1;
	*out = t->ki.size[i];
	return 0;
}
static int table_enum(void *ctx, const char *name, int64_t *out)
{
	struct profile_table *t = ctx;
	int i = find_index(name, enum_namer, PS_KI_NENUMS, &t->next_enum);
	if (i < 0 || t->ki.enumval[i] == PS_KI_ABSENT)
		return -1;
	*out = t->ki.enumval[i];
	return 0;
}
static int table_symbol(void *ctx, const char *name, uint64_t *out)
{
	struct profile_table *t = ctx;
	int i = find_index(name, symbol_namer, PS_KI_NSYMBOLS, &t->next_symbol);
	if (i < 0 || !t->ki.symbol[i])
		return -1;
	*out = t->ki.symbol[i];
	return 0;
}

/* Split LINE into at most MAX space-separated fields in place; returns the count, or
 * MAX + 1 when there are more. */
static int split_fields(char *line, char **field, int max)
{
	int n = 0;
	char *p = line;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		field[n++] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

static bool parse_i64(const char *s, int64_t *out)
{
	if (!*s || (!isdigit((unsigned char)*s) && *s != '-'))
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v == INT64_MIN)
		return false;
	*out = v;
	return true;
}
static bool parse_u32(const char *s, uint32_t *out)
{
	int64_t v;
	if (!parse_i64(s, &v) || v < 0 || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}
static bool parse_hex_u64(const char *s, bool need_prefix, uint64_t *out)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	else if (need_prefix)
		return false;
	if (!*s || strlen(s) > 16)
		return false;
	for (const char *p = s; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return false;
	*out = strtoull(s, NULL, 16);
	return true;
}
static bool is_identifier(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Reads one line into BUF; returns its length, -1 at EOF, -2 if too long, -3 with a NUL
 * byte (binary garbage). The newline is stripped; *had_newline tells if there was one. */
static int read_line(FILE *fp, char *buf, size_t size, bool *had_newline)
{
	size_t n = 0;
	int c;
	bool newline = false;
	while ((c = getc_unlocked(fp)) != EOF) { /* one thread per FILE: no lock per byte */
		if (c == '\n') {
			newline = true;
			break;
		}
		if (c == 0)
			return -3;
		if (n + 1 >= size)
			return -2;
		buf[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1; /* *had_newline still describes the previous line */
	*had_newline = newline;
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = 0;
	return (int)n;
}

int ps_profile_read(struct ps_kinfo *ki, const char *path, char **err)
{
	if (err)
		*err = NULL;
	FILE *fp = fopen(path, "r");
	if (!fp) {
		ps_set_err(err, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	struct profile_table *t = calloc(1, sizeof(*t));
	char *line = malloc(PROFILE_MAX_LINE);
	if (!t || !line) {
		ps_set_err(err, "%s: out of memory", path);
		goto fail;
	}
	ps_kinfo_init(&t->ki);

	unsigned lineno = 0, entries = 0;
	bool ended = false, had_newline = true;
	int len;
	while ((len = read_line(fp, line, PROFILE_MAX_LINE, &had_newline)) != -1) {
		lineno++;
		if (len == -2) {
			ps_set_err(err, "%s:%u: line longer than %d bytes", path, lineno, PROFILE_MAX_LINE - 1);
			goto fail;
		}
		if (len == -3) {
			ps_set_err(err, "%s:%u: NUL byte: not a pagesleuth profile", path, lineno);
			goto fail;
		}
		if (lineno == 1) {
			char *f[3];
			int n = split_fields(line, f, 2);
			int64_t version;
			if (n != 2 || strcmp(f[0], PROFILE_MAGIC) != 0 || !parse_i64(f[1], &version)) {
				ps_set_err(err, "%s:1: not a pagesleuth profile (expected \"%s %d\")", path,
					PROFILE_MAGIC, PROFILE_VERSION);
				goto fail;
			}
			if (version != PROFILE_VERSION) {
				ps_set_err(err, "%s:1: profile version %" PRId64 " not supported (this reader knows %d)",
					path, version, PROFILE_VERSION);
				goto fail;
			}
			continue;
		}
		if (ended) {
			ps_set_err(err, "%s:%u: text after the \"end\" line", path, lineno);
			goto fail;
		}
		if (!line[0] || line[0] == '#')
			continue;
		/* Header strings: the rest of the line is the value. */
		static const struct {
			const char *key;
			size_t off, size;
		} strings[] = {
			{ "arch", offsetof(struct ps_kinfo, arch), sizeof(ki->arch) },
			{ "release", offsetof(struct ps_kinfo, release), sizeof(ki->release) },
			{ "build_id", offsetof(struct ps_kinfo, build_id), sizeof(ki->build_id) },
			{ "source", 0, 0 }, /* where it came from; the read table says "profile:FILE" */
		};
		bool was_string = false;
		for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
			size_t kl = strlen(strings[i].key);
			if (strncmp(line, strings[i].key, kl) != 0 || (line[kl] != ' ' && line[kl]))
				continue;
			const char *value = line[kl] ? line + kl + 1 : "";
			if (strings[i].size) {
				if (strlen(value) >= strings[i].size) {
					ps_set_err(err, "%s:%u: %s longer than %zu characters", path, lineno,
						strings[i].key, strings[i].size - 1);
					goto fail;
				}
				snprintf((char *)&t->ki + strings[i].off, strings[i].size, "%s", value);
			}
			was_string = true;
			break;
		}
		if (was_string)
			continue;

		char *f[6];
		int n = split_fields(line, f, 5);
		if (n < 1 || !is_identifier(f[0])) {
			ps_set_err(err, "%s:%u: malformed line", path, lineno);
			goto fail;
		}
		const char *key = f[0];
		if (strcmp(key, "member") == 0) {
			struct ps_kinfo_member m;
			if (n != 5 || !parse_i64(f[2], &m.offset) || m.offset < 0 ||
			    !parse_u32(f[3], &m.size) || !parse_u32(f[4], &m.nelems)) {
				ps_set_err(err, "%s:%u: expected \"member TYPE.PATH OFFSET SIZE NELEMS\"", path, lineno);
				goto fail;
			}
			int i = find_index(f[1], member_namer, PS_KI_NMEMBERS, &t->next_member);
			if (i >= 0) {
				if (t->seen_member[i]) {
					ps_set_err(err, "%s:%u: member %s given twice", path, lineno, f[1]);
					goto fail;
				}
				t->seen_member[i] = true;
				t->ki.member[i] = m;
			}
		} else if (strcmp(key, "size") == 0 || strcmp(key, "enum") == 0) {
			int64_t v;
			bool is_size = key[0] == 's';
			if (n != 3 || !parse_i64(f[2], &v) || (is_size && v < 0)) {
				ps_set_err(err, "%s:%u: expected \"%s NAME %s\"", path, lineno, key,
					is_size ? "BYTES" : "VALUE");
				goto fail;
			}
			int i = is_size ? find_index(f[1], size_namer, PS_KI_NSIZES, &t->next_size)
					: find_index(f[1], enum_namer, PS_KI_NENUMS, &t->next_enum);
			bool *seen = is_size ? t->seen_size : t->seen_enum;
			if (i >= 0) {
				if (seen[i]) {
					ps_set_err(err, "%s:%u: %s %s given twice", path, lineno, key, f[1]);
					goto fail;
				}
				seen[i] = true;
				if (is_size)
					t->ki.size[i] = v;
				else
					t->ki.enumval[i] = v;
			}
		} else if (strcmp(key, "symbol") == 0) {
			uint64_t addr;
			if (n != 3 || !parse_hex_u64(f[2], true, &addr) || !addr) {
				ps_set_err(err, "%s:%u: expected \"symbol NAME 0xADDRESS\"", path, lineno);
				goto fail;
			}
			int i = find_index(f[1], symbol_namer, PS_KI_NSYMBOLS, &t->next_symbol);
			if (i >= 0) {
				if (t->seen_symbol[i]) {
					ps_set_err(err, "%s:%u: symbol %s given twice", path, lineno, f[1]);
					goto fail;
				}
				t->seen_symbol[i] = true;
				t->ki.symbol[i] = addr;
				t->has_symbols = true;
			}
		} else if (strcmp(key, "end") == 0) {
			int64_t count;
			if (n != 2 || !parse_i64(f[1], &count)) {
				ps_set_err(err, "%s:%u: expected \"end ENTRIES\"", path, lineno);
				goto fail;
			}
			if (count != (int64_t)entries) {
				ps_set_err(err, "%s:%u: \"end\" counts %" PRId64 " entries, the file has %u", path,
					lineno, count, entries);
				goto fail;
			}
			ended = true;
			continue;
		}
		/* Any other well-formed key is from a newer writer: skipped. Every entry line,
		 * known or not, counts towards "end N". */
		entries++;
	}
	if (ferror(fp)) {
		ps_set_err(err, "%s: read error: %s", path, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (lineno == 0) {
		ps_set_err(err, "%s:1: empty file: not a pagesleuth profile", path);
		goto fail;
	}
	if (!ended || !had_newline) {
		ps_set_err(err, "%s:%u: truncated: no \"end\" line", path, lineno + (had_newline ? 1 : 0));
		goto fail;
	}

	/* Fill through the ops: same required-entry check as the other sources. */
	struct ps_typeinfo_ops ops = {
		.member = table_member,
		.type_size = table_size,
		.enum_value = table_enum,
		.symbol = t->has_symbols ? table_symbol : NULL,
	};
	struct ps_kinfo out;
	ps_kinfo_init(&out);
	memcpy(out.arch, t->ki.arch, sizeof(out.arch));
	memcpy(out.release, t->ki.release, sizeof(out.release));
	memcpy(out.build_id, t->ki.build_id, sizeof(out.build_id));
	ps_kinfo_set_source(&out, "profile", path);
	if (ps_kinfo_fill(&out, &ops, t, err) < 0)
		goto fail;
	memcpy(ki, &out, sizeof(out)); /* padding too: callers may memcmp tables */
	free(line);
	free(t);
	fclose(fp);
	return 0;
fail:
	free(line);
	free(t);
	fclose(fp);
	return -1;
}

/* ---- System.map ---------------------------------------------------------------------- */

/* The kinfo symbols sorted by name, for a binary search per System.map line (a System.map
 * has ~100K lines, the kinfo ~100 names: a linear search per line dominated the parse). */
static int by_symbol_name(const void *a, const void *b)
{
	return strcmp(ps_ki_symbol_name((enum ps_ki_symbol)*(const int *)a),
		      ps_ki_symbol_name((enum ps_ki_symbol)*(const int *)b));
}
static int symbol_key_cmp(const void *key, const void *elem)
{
	return strcmp(key, ps_ki_symbol_name((enum ps_ki_symbol)*(const int *)elem));
}

int ps_kinfo_add_system_map(struct ps_kinfo *ki, const char *path, char **err)
{
	if (err)
		*err = NULL;
	FILE *fp = fopen(path, "r");
	if (!fp) {
		ps_set_err(err, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	char *line = malloc(PROFILE_MAX_LINE);
	if (!line) {
		fclose(fp);
		ps_set_err(err, "%s: out of memory", path);
		return -1;
	}
	uint64_t addr[PS_KI_NSYMBOLS] = { 0 };
	bool global[PS_KI_NSYMBOLS] = { false };
	int sorted[PS_KI_NSYMBOLS];
	for (int i = 0; i < PS_KI_NSYMBOLS; i++)
		sorted[i] = i;
	qsort(sorted, PS_KI_NSYMBOLS, sizeof *sorted, by_symbol_name);
	unsigned lineno = 0, symbols = 0;
	bool had_newline;
	int len, rc = -1;
	while ((len = read_line(fp, line, PROFILE_MAX_LINE, &had_newline)) != -1) {
		lineno++;
		if (len < 0) {
			ps_set_err(err, "%s:%u: not a System.map line (%s)", path, lineno,
				len == -2 ? "too long" : "NUL byte");
			goto out;
		}
		if (!line[0])
			continue;
		char *f[4];
		int n = split_fields(line, f, 3);
		/* Undefined weak symbols have no address ("         w __start_BTF"). */
		if (n == 2 && strlen(f[0]) == 1 && (f[0][0] == 'w' || f[0][0] == 'v' || f[0][0] == 'U'))
			continue;
		uint64_t a;
		if (n != 3 || strlen(f[1]) != 1 || !isgraph((unsigned char)f[1][0]) ||
		    !parse_hex_u64(f[0], false, &a)) {
			ps_set_err(err, "%s:%u: not a System.map line (expected \"ADDRESS TYPE NAME\")", path, lineno);
			goto out;
		}
		symbols++;
		const int *hit = bsearch(f[2], sorted, PS_KI_NSYMBOLS, sizeof *sorted, symbol_key_cmp);
		if (!hit || !a)
			continue;
		int i = *hit;
		/* Upper-case types are global; a global beats a static of the same name. */
		bool is_global = isupper((unsigned char)f[1][0]);
		if (!addr[i] || (is_global && !global[i])) {
			addr[i] = a;
			global[i] = is_global;
		}
	}
	if (ferror(fp)) {
		ps_set_err(err, "%s: read error: %s", path, strerror(errno ? errno : EIO));
		goto out;
	}
	if (!symbols) {
		ps_set_err(err, "%s:1: empty: not a System.map", path);
		goto out;
	}
	for (unsigned i = 0; i < PS_KI_NSYMBOLS; i++)
		if (addr[i])
			ki->symbol[i] = addr[i];
	rc = 0;
out:
	free(line);
	fclose(fp);
	return rc;
}
