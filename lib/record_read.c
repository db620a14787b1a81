/* record_read.c - the streaming record reader.
 *
 * Memory is constant in the file size: one read buffer and the per-snapshot set of declared
 * mm ids. Every line is checked against the structure of docs/record-format.md as it goes,
 * so a consumer never sees a page run outside its VMA or an undeclared mm. The hot records
 * (m x w u) are parsed positionally with a cursor, no tokenising or scanf.
 */
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RBUF_SIZE (1u << 20)  /* read buffer for large inputs */
#define RBUF_FIRST (1u << 17) /* to start with: small files need no more (>= 2 lines) */
#define MAX_MM_ID (1u << 24)
#define MAX_UNKNOWN_TAGS 32

struct idset { /* growable bitmap of small ids */
	uint64_t *bits;
	size_t words;
};

struct ps_reader {
	int fd;
	bool own_fd;
	char *name;
	char *buf;
	size_t cap; /* buf holds cap + 1 bytes */
	size_t start, end;
	bool eof;
	uint64_t line;
	char err[600];
	struct ps_header hdr;
	char *hdr_strings[16 + 2 * PS_HEADER_EXTRA];
	size_t n_hdr_strings;
	/* structure state */
	bool in_snapshot, have_snapshot;
	uint64_t cur_mm;      /* id of the latest mm record, PS_UNKNOWN before one */
	bool in_vma;          /* hot records may follow */
	uint64_t vma_mm, vma_start, vma_end, next_vaddr, last_vma_end;
	struct idset declared, referenced;
	uint64_t n_tasks, n_mms, n_vmas, n_runs, n_pages;
	uint64_t frames_next; /* f records ascend: the first PFN the next one may start at */
	/* warnings about skipped unknown tags, once per tag */
	char unknown_tags[MAX_UNKNOWN_TAGS][17];
	size_t n_unknown_tags;
	char *warnings;
	size_t warnings_len;
};

/* ---- errors -------------------------------------------------------------------------------- */

/* "NAME:LINE: " into buf, returning the length used (never more than size - 1). */
static size_t line_prefix(const struct ps_reader *r, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s:%llu: ", r->name, (unsigned long long)r->line);
	return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
}

static int rfail(struct ps_reader *r, const char *fmt, ...)
{
	size_t n = line_prefix(r, r->err, sizeof r->err);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof r->err - n, fmt, ap);
	va_end(ap);
	return -1;
}

const char *ps_reader_error(const struct ps_reader *r) { return r->err; }
const char *ps_reader_warnings(const struct ps_reader *r) { return r->warnings ? r->warnings : ""; }
const char *ps_reader_name(const struct ps_reader *r) { return r->name; }
uint64_t ps_reader_line(const struct ps_reader *r) { return r->line; }
const struct ps_header *ps_reader_header(const struct ps_reader *r) { return &r->hdr; }

static void add_warning(struct ps_reader *r, const char *fmt, ...)
{
	char msg[600];
	size_t n = line_prefix(r, msg, sizeof msg);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - n, fmt, ap);
	va_end(ap);
	size_t len = strlen(msg);
	char *nw = realloc(r->warnings, r->warnings_len + len + 2);
	if (!nw)
		return;
	r->warnings = nw;
	memcpy(nw + r->warnings_len, msg, len);
	r->warnings_len += len;
	nw[r->warnings_len++] = '\n';
	nw[r->warnings_len] = '\0';
}

const char *ps_header_extra(const struct ps_header *h, const char *key)
{
	for (size_t i = 0; i < h->n_extra; i++)
		if (strcmp(h->extra[i].key, key) == 0)
			return h->extra[i].value;
	return NULL;
}

/* ---- id sets ----------------------------------------------------------------------------- */

static bool idset_has(const struct idset *s, uint64_t id)
{
	return id / 64 < s->words && (s->bits[id / 64] >> (id % 64) & 1);
}

static int idset_add(struct idset *s, uint64_t id)
{
	if (id / 64 >= s->words) {
		size_t nw = s->words ? s->words : 16;
		while (nw <= id / 64)
			nw *= 2;
		uint64_t *nb = realloc(s->bits, nw * sizeof *nb);
		if (!nb)
			return -1;
		memset(nb + s->words, 0, (nw - s->words) * sizeof *nb);
		s->bits = nb, s->words = nw;
	}
	s->bits[id / 64] |= UINT64_C(1) << (id % 64);
	return 0;
}

static void idset_clear(struct idset *s)
{
	if (s->bits)
		memset(s->bits, 0, s->words * sizeof *s->bits);
}

/* ---- lines ------------------------------------------------------------------------------- */

/* Next line, NUL-terminated in place. 1 = line, 0 = EOF, -1 = error. */
static int next_line(struct ps_reader *r, char **line, size_t *len)
{
	for (;;) {
		char *p = memchr(r->buf + r->start, '\n', r->end - r->start);
		if (p) {
			*line = r->buf + r->start;
			*len = (size_t)(p - *line);
			*p = '\0';
			r->start = (size_t)(p + 1 - r->buf);
			r->line++;
			/* The newline may have been in the buffer already: check the length here too. */
			if (*len > PS_MAX_LINE)
				return rfail(r, "line longer than %u bytes (binary file?)", PS_MAX_LINE);
			/* A NUL would end the line early for every parser below: refuse it here. */
			if (memchr(*line, '\0', *len))
				return rfail(r, "NUL byte in line (binary file?)");
			return 1;
		}
		if (r->end - r->start > PS_MAX_LINE) {
			r->line++;
			return rfail(r, "line longer than %u bytes (binary file?)", PS_MAX_LINE);
		}
		if (r->eof) {
			if (r->start == r->end)
				return 0;
			r->line++;
			return rfail(r, "truncated line (no newline at end of file)");
		}
		if (r->end == r->cap && r->cap < RBUF_SIZE) {
			/* The last read filled the buffer: a large input, read it in larger blocks. */
			char *nb = realloc(r->buf, RBUF_SIZE + 1);
			if (nb)
				r->buf = nb, r->cap = RBUF_SIZE;
		}
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
		ssize_t n;
		do
			n = read(r->fd, r->buf + r->end, r->cap - r->end);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return rfail(r, "read error: %s", strerror(errno));
		if (n == 0)
			r->eof = true;
		r->end += (size_t)n;
	}
}

/* ---- field parsing ------------------------------------------------------------------------- */

/* Hex digit value + 1, 0 for a non-digit. A constant table: readers in several threads
 * share it without initialisation races. */
static const uint8_t hexv1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};
#define HEXV(ch) ((int)hexv1[(unsigned char)(ch)] - 1) /* -1 for a non-digit */

/* Cursor over a positional record: fields separated by exactly one space. */
struct cursor {
	const char *p;
	int field; /* 1-based index of the field being parsed, for messages */
};

static bool at_field_end(const char *p) { return *p == ' ' || *p == '\0'; }

/* Step over the separator to the next field. The field number advances even when the
 * field is missing, so a message names the field that is absent, not the one before it. */
static bool cur_next(struct cursor *c)
{
	c->field++;
	if (*c->p != ' ')
		return false;
	c->p++;
	return true;
}

/* A field that is "-" alone: unknown. */
static bool take_unknown(struct cursor *c, uint64_t *out)
{
	if (c->p[0] != '-' || !at_field_end(c->p + 1))
		return false;
	*out = PS_UNKNOWN;
	c->p++;
	return true;
}

static bool parse_hex(struct cursor *c, uint64_t *out, bool allow_unknown)
{
	if (allow_unknown && take_unknown(c, out))
		return true;
	const char *p = c->p;
	uint64_t v = 0;
	int n = 0;
	for (int d; (d = HEXV(*p)) >= 0; p++, n++)
		v = v << 4 | (uint64_t)d;
	/* All ones is PS_UNKNOWN in memory: a value that says so literally would be silently
	 * read as unknown, so it is malformed ("-" is how unknown is written). */
	if (n == 0 || n > 16 || !at_field_end(p) || v == PS_UNKNOWN)
		return false;
	*out = v;
	c->p = p;
	return true;
}

static bool parse_dec(struct cursor *c, uint64_t *out, bool allow_unknown)
{
	if (allow_unknown && take_unknown(c, out))
		return true;
	const char *p = c->p;
	uint64_t v = 0;
	int n = 0;
	for (; *p >= '0' && *p <= '9'; p++, n++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) /* exact: v * 10 + d still fits */
			return false;
		v = v * 10 + d;
	}
	/* All ones is PS_UNKNOWN in memory ("-" is how unknown is written), as in parse_hex. */
	if (n == 0 || !at_field_end(p) || v == PS_UNKNOWN)
		return false;
	*out = v;
	c->p = p;
	return true;
}

static bool parse_pte(struct cursor *c, struct ps_pte *pte)
{
	pte->set = pte->known = 0;
	for (int i = 0; i < PS_PTE_NBITS; i++) {
		char ch = c->p[i];
		if (ch == PS_PTE_LETTERS[i])
			pte->set |= (uint8_t)(1u << i), pte->known |= (uint8_t)(1u << i);
		else if (ch == '-')
			pte->known |= (uint8_t)(1u << i);
		else if (ch != '?')
			return false;
	}
	if (!at_field_end(c->p + PS_PTE_NBITS))
		return false;
	c->p += PS_PTE_NBITS;
	return true;
}

/* A word field (reason, kind): returns its start, NUL-terminates it in place. */
static char *parse_word(struct cursor *c)
{
	char *s = (char *)c->p;
	char *e = s;
	while (!at_field_end(e))
		e++;
	if (e == s)
		return NULL;
	c->p = e;
	if (*e == ' ') {
		/* Trailing fields of a newer minor version are ignored: cut here. */
		*e = '\0';
	}
	return s;
}

/* Decode %XX escapes in place; "-" alone becomes "". */
static bool pct_decode(char *s)
{
	if (s[0] == '-' && s[1] == '\0') {
		s[0] = '\0';
		return true;
	}
	char *o = s;
	for (char *p = s; *p; p++) {
		if (*p == '%') {
			if (HEXV(p[1]) < 0 || HEXV(p[2]) < 0)
				return false;
			int v = HEXV(p[1]) << 4 | HEXV(p[2]);
			if (v == 0)
				return false;
			*o++ = (char)v;
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return true;
}

/* ---- key=value records ------------------------------------------------------------------- */

struct kvline {
	size_t n;
	char *key[64], *val[64];
};

static int split_kv(struct ps_reader *r, char *rest, struct kvline *kv, const char *tag)
{
	kv->n = 0;
	if (*rest == '\0')
		return 0;
	if (*rest != ' ')
		return rfail(r, "%s record: expected a space after the tag", tag);
	char *p = rest + 1;
	for (;;) {
		char *k = p;
		while (*p && *p != '=' && *p != ' ')
			p++;
		if (*p != '=' || p == k)
			return rfail(r, "%s record: field %zu is not key=value", tag, kv->n + 1);
		*p++ = '\0';
		char *v = p;
		while (*p && *p != ' ')
			p++;
		if (p == v)
			return rfail(r, "%s record: key '%s' has an empty value", tag, k);
		bool more = *p == ' ';
		*p = '\0';
		if (!pct_decode(v))
			return rfail(r, "%s record: key '%s': bad %%-escape", tag, k);
		if (kv->n == 64)
			return rfail(r, "%s record: more than 64 fields", tag);
		kv->key[kv->n] = k, kv->val[kv->n] = v;
		kv->n++;
		if (!more)
			return 0;
		p++;
	}
}

static const char *kv_get(const struct kvline *kv, const char *key)
{
	for (size_t i = 0; i < kv->n; i++)
		if (strcmp(kv->key[i], key) == 0)
			return kv->val[i];
	return NULL;
}

static int kv_num(struct ps_reader *r, const struct kvline *kv, const char *tag, const char *key,
		  bool hex, bool required, uint64_t *out)
{
	const char *v = kv_get(kv, key);
	if (!v) {
		*out = PS_UNKNOWN;
		return required ? rfail(r, "%s record: missing %s=", tag, key) : 0;
	}
	if (!*v) { /* written as "-" */
		*out = PS_UNKNOWN;
		return 0;
	}
	struct cursor c = { v, 0 };
	bool ok = hex ? parse_hex(&c, out, false) : parse_dec(&c, out, false);
	if (!ok || *c.p)
		return rfail(r, "%s record: %s=%s is not a %s number", tag, key, v,
			     hex ? "hexadecimal" : "decimal");
	return 0;
}

static const char *kv_str(const struct kvline *kv, const char *key)
{
	const char *v = kv_get(kv, key);
	return v ? v : "";
}

/* ---- open / close ------------------------------------------------------------------------ */

static char *keep(struct ps_reader *r, const char *s)
{
	if (r->n_hdr_strings == sizeof r->hdr_strings / sizeof r->hdr_strings[0])
		return (char *)"";
	char *d = strdup(s ? s : "");
	if (!d)
		return (char *)"";
	r->hdr_strings[r->n_hdr_strings++] = d;
	return d;
}

/* What a file that is not records most likely is, from its first bytes (what people give
 * report by mistake): NULL when nothing known. */
static const char *known_binary(const unsigned char *p, size_t n)
{
	if (n >= 4 && memcmp(p, "\177ELF", 4) == 0)
		return "an ELF file (a kernel dump or core file?): run `pagesleuth extract` on a kernel dump first";
	if (n >= 8 && (memcmp(p, "KDUMP   ", 8) == 0 || memcmp(p, "DISKDUMP", 8) == 0))
		return "a kdump-compressed kernel dump: run `pagesleuth extract` on it first";
	if (n >= 12 && memcmp(p, "makedumpfile", 12) == 0)
		return "a flattened kdump (makedumpfile -F): run `pagesleuth extract` on it first";
	if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
		return "zstd-compressed: decompress it first (zstd -d)";
	if (n >= 2 && memcmp(p, "\x1f\x8b", 2) == 0)
		return "gzip-compressed: decompress it first (gzip -d)";
	return NULL;
}

static int read_magic_and_header(struct ps_reader *r)
{
	char *line;
	size_t len;
	int rc = next_line(r, &line, &len);
	const char *what = r->end ? known_binary((const unsigned char *)r->buf, r->end) : NULL;
	if (what) {
		r->line = 1;
		return rfail(r, "not a pagesleuth record file: %s", what);
	}
	if (rc < 0)
		return -1;
	if (rc == 0) {
		r->line = 1; /* a file that is not records fails at line 1 */
		return rfail(r, "empty file, not a pagesleuth record file");
	}
	size_t ml = strlen(PS_MAGIC);
	if (len < ml + 2 || memcmp(line, PS_MAGIC, ml) != 0 || line[ml] != ' ')
		return rfail(r, "not a pagesleuth record file (line 1 must start with '%s')", PS_MAGIC);
	struct cursor c = { line + ml + 1, 0 };
	uint64_t major, minor;
	char *dot = strchr(c.p, '.');
	if (!dot)
		return rfail(r, "bad version '%s' (expected MAJOR.MINOR)", c.p);
	*dot = ' ';
	if (!parse_dec(&c, &major, false) || !cur_next(&c) || !parse_dec(&c, &minor, false) || *c.p)
		return rfail(r, "bad version in magic line");
	if (major != PS_FORMAT_MAJOR)
		return rfail(r, "record format version %llu.%llu, this reader understands %d.x",
			     (unsigned long long)major, (unsigned long long)minor, PS_FORMAT_MAJOR);
	r->hdr.version_major = (unsigned)major;
	r->hdr.version_minor = (unsigned)minor;

	do {
		rc = next_line(r, &line, &len);
	} while (rc > 0 && (len == 0 || line[0] == '#'));
	if (rc < 0)
		return -1;
	if (rc == 0 || strncmp(line, "header", 6) != 0 || (line[6] != ' ' && line[6] != '\0'))
		return rfail(r, "expected the header record after the magic line");
	struct kvline kv;
	if (split_kv(r, line + 6, &kv, "header") < 0)
		return -1;
	struct ps_header *h = &r->hdr;
	h->source = keep(r, kv_str(&kv, "source"));
	h->arch = keep(r, kv_str(&kv, "arch"));
	h->endian = keep(r, kv_str(&kv, "endian"));
	h->release = keep(r, kv_str(&kv, "release"));
	h->dump = keep(r, kv_str(&kv, "dump"));
	h->dump_id = keep(r, kv_str(&kv, "dump_id"));
	h->time = keep(r, kv_str(&kv, "time"));
	h->excluded = keep(r, kv_get(&kv, "excluded") ? kv_str(&kv, "excluded") : "none");
	h->tool = keep(r, kv_str(&kv, "tool"));
	h->pids = keep(r, kv_get(&kv, "pids") ? kv_str(&kv, "pids") : "all");
	h->tags = keep(r, kv_str(&kv, "tags"));
	static const char *const standard[] = { "source", "arch", "endian", "release", "dump",
		"dump_id", "time", "excluded", "tool", "pids", "page_size", "tags" };
	h->n_extra = 0;
	for (size_t i = 0; i < kv.n && h->n_extra < PS_HEADER_EXTRA; i++) {
		bool known = false, repeated = false;
		for (size_t j = 0; j < sizeof standard / sizeof standard[0] && !known; j++)
			known = strcmp(kv.key[i], standard[j]) == 0;
		for (size_t j = 0; j < h->n_extra && !repeated; j++)
			repeated = strcmp(kv.key[i], h->extra[j].key) == 0; /* the first counts */
		if (known || repeated)
			continue;
		h->extra[h->n_extra].key = keep(r, kv.key[i]);
		h->extra[h->n_extra].value = keep(r, kv.val[i]);
		h->n_extra++;
	}
	if (!*h->source)
		return rfail(r, "header: missing source=");
	if (strcmp(h->endian, "little") != 0 && strcmp(h->endian, "big") != 0)
		return rfail(r, "header: endian=%s (expected little or big)", h->endian);
	h->big_endian = h->endian[0] == 'b';
	uint64_t ps;
	if (kv_num(r, &kv, "header", "page_size", false, true, &ps) < 0)
		return -1;
	if (ps == PS_UNKNOWN || ps < 512 || ps > (1u << 30) || (ps & (ps - 1)))
		return rfail(r, "header: page_size=%llu is not a power of two in [512, 1G]",
			     (unsigned long long)ps);
	h->page_size = (uint32_t)ps;
	h->page_shift = (unsigned)__builtin_ctzll(ps);
	return 0;
}

static struct ps_reader *reader_new(const char *name)
{
	struct ps_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->name = strdup(name);
	r->cap = RBUF_FIRST;
	r->buf = malloc(r->cap + 1);
	r->cur_mm = PS_UNKNOWN;
	if (!r->name || !r->buf) {
		free(r->name), free(r->buf), free(r);
		return NULL;
	}
	return r;
}

struct ps_reader *ps_reader_open_fd(int fd, const char *name, char **err)
{
	struct ps_reader *r = reader_new(name);
	if (!r) {
		*err = strdup("out of memory");
		return NULL;
	}
	r->fd = fd;
	if (read_magic_and_header(r) < 0) {
		*err = strdup(r->err);
		ps_reader_close(r);
		return NULL;
	}
	return r;
}

struct ps_reader *ps_reader_open(const char *path, char **err)
{
	if (strcmp(path, "-") == 0)
		return ps_reader_open_fd(0, "<stdin>", err);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (asprintf(err, "%s: cannot open: %s", path, strerror(errno)) < 0)
			*err = NULL;
		return NULL;
	}
	struct ps_reader *r = ps_reader_open_fd(fd, path, err);
	if (r)
		r->own_fd = true;
	else
		close(fd);
	return r;
}

void ps_reader_close(struct ps_reader *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->fd);
	for (size_t i = 0; i < r->n_hdr_strings; i++)
		free(r->hdr_strings[i]);
	free(r->declared.bits), free(r->referenced.bits);
	free(r->warnings), free(r->name), free(r->buf), free(r);
}

/* ---- hot records ------------------------------------------------------------------------- */

static const char *const map_field_names[] = {
	"", "MM", "VADDR", "PFN", "N", "MAPCOUNT", "REFCOUNT", "PTE", "PFLAGS", "SHIFT", "REASON",
};

/* Check a run [vaddr, vaddr + n pages) against the current VMA and advance. */
static int check_run(struct ps_reader *r, const char *tag, uint64_t mm, uint64_t vaddr, uint64_t n)
{
	if (!r->in_vma)
		return rfail(r, "%s record outside a VMA (no vma record before it)", tag);
	if (mm != r->vma_mm)
		return rfail(r, "%s record for mm %llu inside a VMA of mm %llu", tag,
			     (unsigned long long)mm, (unsigned long long)r->vma_mm);
	if (n == 0)
		return rfail(r, "%s record: N must be at least 1", tag);
	if (vaddr & (r->hdr.page_size - 1))
		return rfail(r, "%s record: vaddr %llx is not page aligned", tag, (unsigned long long)vaddr);
	if (vaddr < r->vma_start)
		return rfail(r, "%s record: vaddr %llx is below the VMA start %llx", tag,
			     (unsigned long long)vaddr, (unsigned long long)r->vma_start);
	if (vaddr < r->next_vaddr)
		return rfail(r, "%s record: vaddr %llx is below the previous run's end %llx (runs must ascend)",
			     tag, (unsigned long long)vaddr, (unsigned long long)r->next_vaddr);
	if (n > (r->vma_end - vaddr) >> r->hdr.page_shift || vaddr >= r->vma_end)
		return rfail(r, "%s record: %llu pages at %llx run past the VMA end %llx", tag,
			     (unsigned long long)n, (unsigned long long)vaddr,
			     (unsigned long long)r->vma_end);
	r->next_vaddr = vaddr + (n << r->hdr.page_shift);
	r->n_runs++;
	return 0;
}

/* ---- fast path for well-formed m records --------------------------------------------------
 *
 * The common m record (lowercase hex, no trailing fields, decimals too short to overflow) in
 * one pass. It accepts a subset of what the cursor parser in read_map accepts and yields the
 * same values; anything else, every error included, goes to that parser, so the checks and
 * messages live in one place. */

/* The leading lowercase hex digits of the 8 bytes at p: how many (0-8), their value in *val. */
static inline unsigned hex8(const char *p, uint64_t *val)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
	uint64_t x;
	memcpy(&x, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	uint64_t x7 = x & ~high; /* bytes below 0x80: the additions below never carry */
	uint64_t digit = (x7 + ones * (0x80 - '0')) & ~(x7 + ones * (0x80 - '9' - 1));
	uint64_t lower = (x7 + ones * (0x80 - 'a')) & ~(x7 + ones * (0x80 - 'f' - 1));
	uint64_t nonhex = ~((digit | lower) & ~x) & high;
	unsigned n = nonhex ? (unsigned)__builtin_ctzll(nonhex) >> 3 : 8;
	if (n == 0) {
		*val = 0;
		return 0;
	}
	uint64_t d = (x & ones * 0x0f) + (x >> 6 & ones) * 9; /* digit values: 'a' = 0x61 -> 10 */
	d <<= 8 * (8 - n);        /* drop the bytes after the digits */
	d = __builtin_bswap64(d); /* first digit in the top byte */
	d = (d | d >> 4) & UINT64_C(0x00ff00ff00ff00ff);
	d = (d | d >> 8) & UINT64_C(0x0000ffff0000ffff);
	*val = (d | d >> 16) & UINT64_C(0xffffffff);
	return n;
}

/* Each returns the first byte after the field, or NULL if the fast path does not apply.
 * end is the line's terminating NUL. */
static inline const char *fast_hex(const char *p, const char *end, uint64_t *out)
{
	if (p[0] == '-' && (p[1] == ' ' || p[1] == '\0')) {
		*out = PS_UNKNOWN;
		return p + 1;
	}
	const char *s = p;
	uint64_t v = 0, part;
	unsigned n;
	while (end + 1 - p >= 8 && (n = hex8(p, &part)) != 0) {
		v = v << (4 * n) | part;
		p += n;
		if (n < 8)
			break;
	}
	for (int d; (d = HEXV(*p)) >= 0; p++)
		v = v << 4 | (uint64_t)d;
	if (p == s || p - s > 16 || v == PS_UNKNOWN) /* all ones: see parse_hex */
		return NULL;
	*out = v;
	return p;
}

static inline const char *fast_dec(const char *p, uint64_t *out)
{
	if (p[0] == '-' && (p[1] == ' ' || p[1] == '\0')) {
		*out = PS_UNKNOWN;
		return p + 1;
	}
	const char *s = p;
	uint64_t v = 0;
	for (unsigned d; (d = (unsigned)(unsigned char)*p - '0') <= 9; p++)
		v = v * 10 + d;
	if (p == s || p - s > 18) /* 18 digits cannot overflow; longer: the slow path decides */
		return NULL;
	*out = v;
	return p;
}

/* Fields of an m record; false if the line is not the common case (nothing is decided). The
 * caller rejects "-" where the format does not allow it (MM, VADDR, N, SHIFT). */
static bool read_map_fast(const char *line, const char *end, struct ps_map *m, uint64_t *shift)
{
	const char *p = line + 1;
	struct cursor c;
	if (*p++ != ' ' || !(p = fast_dec(p, &m->mm)) ||
	    *p++ != ' ' || !(p = fast_hex(p, end, &m->vaddr)) ||
	    *p++ != ' ' || !(p = fast_hex(p, end, &m->pfn)) ||
	    *p++ != ' ' || !(p = fast_dec(p, &m->npages)) ||
	    *p++ != ' ' || !(p = fast_dec(p, &m->mapcount)) ||
	    *p++ != ' ' || !(p = fast_dec(p, &m->refcount)) ||
	    *p++ != ' ')
		return false;
	c.p = p;
	if (!parse_pte(&c, &m->pte))
		return false;
	p = c.p;
	if (*p++ != ' ' || !(p = fast_hex(p, end, &m->pflags)) ||
	    *p++ != ' ' || !(p = fast_dec(p, shift)) || *p != '\0')
		return false;
	return m->mm != PS_UNKNOWN && m->vaddr != PS_UNKNOWN && m->npages != PS_UNKNOWN &&
	       *shift != PS_UNKNOWN;
}

static int read_map(struct ps_reader *r, char *line, size_t len, struct ps_map *m, bool excluded)
{
	const char *tag = excluded ? "x" : "m";
	m->excluded = excluded;
	m->reason = NULL;
	uint64_t shift = 0;
	if (excluded || !read_map_fast(line, line + len, m, &shift)) {
		struct cursor c = { line + 1, 0 };
		bool ok = cur_next(&c) && parse_dec(&c, &m->mm, false) &&
			  cur_next(&c) && parse_hex(&c, &m->vaddr, false) &&
			  cur_next(&c) && parse_hex(&c, &m->pfn, true) &&
			  cur_next(&c) && parse_dec(&c, &m->npages, false) &&
			  cur_next(&c) && parse_dec(&c, &m->mapcount, true) &&
			  cur_next(&c) && parse_dec(&c, &m->refcount, true) &&
			  cur_next(&c) && parse_pte(&c, &m->pte) &&
			  cur_next(&c) && parse_hex(&c, &m->pflags, true);
		shift = 0;
		ok = ok && cur_next(&c) && parse_dec(&c, &shift, false);
		if (ok && excluded) {
			char *reason = cur_next(&c) ? parse_word(&c) : NULL;
			ok = reason != NULL;
			m->reason = reason;
		}
		if (!ok) {
			int f = c.field < 1 ? 1 : c.field > 10 ? 10 : c.field;
			return rfail(r, "%s record: field %d (%s) missing or malformed", tag, f, map_field_names[f]);
		}
		if (*c.p && *c.p != ' ')
			return rfail(r, "%s record: junk after the last field", tag);
	}
	if (shift < r->hdr.page_shift || shift > 42)
		return rfail(r, "%s record: SHIFT %llu out of range [%u, 42]", tag,
			     (unsigned long long)shift, r->hdr.page_shift);
	m->shift = (unsigned)shift;
	if (m->mapcount != PS_UNKNOWN && m->mapcount > UINT32_MAX)
		return rfail(r, "%s record: MAPCOUNT %llu out of range", tag, (unsigned long long)m->mapcount);
	if (m->refcount != PS_UNKNOWN && m->refcount > UINT32_MAX)
		return rfail(r, "%s record: REFCOUNT %llu out of range", tag, (unsigned long long)m->refcount);
	/* Every frame of the run, PFN .. PFN+N-1, must fit in 52 bits (a zero-page run has the
	 * one frame). */
	if (m->pfn != PS_UNKNOWN &&
	    (m->pfn >> 52 || (!ps_map_zero_page(m) && m->npages > (UINT64_C(1) << 52) - m->pfn)))
		return rfail(r, "%s record: PFN %llx out of range", tag, (unsigned long long)m->pfn);
	if (check_run(r, tag, m->mm, m->vaddr, m->npages) < 0)
		return -1;
	r->n_pages += m->npages;
	return 0;
}

static int read_swap(struct ps_reader *r, char *line, struct ps_swap *s)
{
	struct cursor c = { line + 1, 0 };
	char *kind = NULL;
	bool ok = cur_next(&c) && parse_dec(&c, &s->mm, false) &&
		  cur_next(&c) && parse_hex(&c, &s->vaddr, false) &&
		  cur_next(&c) && parse_dec(&c, &s->npages, false) &&
		  cur_next(&c) && parse_dec(&c, &s->type, true) &&
		  cur_next(&c) && parse_hex(&c, &s->offset, true) &&
		  cur_next(&c) && (kind = parse_word(&c)) != NULL;
	if (!ok)
		return rfail(r, "w record: field %d missing or malformed", c.field < 1 ? 1 : c.field);
	s->kind = PS_SWAP_OTHER;
	for (int k = PS_SWAP; k <= PS_SWAP_OTHER; k++)
		if (strcmp(kind, ps_swap_kind_name((enum ps_swap_kind)k)) == 0)
			s->kind = (enum ps_swap_kind)k;
	if (s->type != PS_UNKNOWN && s->type > 255)
		return rfail(r, "w record: swap type %llu out of range", (unsigned long long)s->type);
	return check_run(r, "w", s->mm, s->vaddr, s->npages);
}

static int read_unknown_range(struct ps_reader *r, char *line, struct ps_unknown_range *u)
{
	struct cursor c = { line + 1, 0 };
	char *reason = NULL;
	bool ok = cur_next(&c) && parse_dec(&c, &u->mm, false) &&
		  cur_next(&c) && parse_hex(&c, &u->vaddr, false) &&
		  cur_next(&c) && parse_dec(&c, &u->npages, false) &&
		  cur_next(&c) && (reason = parse_word(&c)) != NULL;
	if (!ok)
		return rfail(r, "u record: field %d missing or malformed", c.field < 1 ? 1 : c.field);
	if (!pct_decode(reason))
		return rfail(r, "u record: bad %%-escape in reason");
	u->reason = reason;
	return check_run(r, "u", u->mm, u->vaddr, u->npages);
}

/* f PFN N CLASS OWNER (1.2): frames of RAM, ascending and not overlapping in a snapshot. */
static int read_frames(struct ps_reader *r, char *line, struct ps_frames *f)
{
	struct cursor c = { line + 1, 0 };
	const char *cls = NULL;
	size_t clen = 0;
	bool ok = cur_next(&c) && parse_hex(&c, &f->pfn, false) &&
		  cur_next(&c) && parse_dec(&c, &f->npages, false) && cur_next(&c);
	if (ok) { /* the class word, not the last field: parse_word would cut the line there */
		cls = c.p;
		while (!at_field_end(cls + clen))
			clen++;
		c.p += clen;
		ok = clen > 0 && cur_next(&c) && parse_dec(&c, &f->owner, true);
	}
	if (!ok)
		return rfail(r, "f record: field %d missing or malformed", c.field < 1 ? 1 : c.field);
	if (!r->in_snapshot)
		return rfail(r, "f record outside a snapshot");
	int k = ps_frame_class_parse(cls, clen);
	if (k < 0)
		return rfail(r, "f record: unknown frame class '%.*s'", (int)(clen < 20 ? clen : 20), cls);
	f->cls = (enum ps_frame_class)k;
	if (f->npages == 0 || f->pfn >= (UINT64_C(1) << 52) || f->npages > (UINT64_C(1) << 52) - f->pfn)
		return rfail(r, "f record: frames %llx+%llu out of range", (unsigned long long)f->pfn,
			     (unsigned long long)f->npages);
	if (f->pfn < r->frames_next)
		return rfail(r, "f record: PFN %llx overlaps or precedes the previous f record",
			     (unsigned long long)f->pfn);
	r->frames_next = f->pfn + f->npages;
	return 0;
}

/* ---- key=value records ------------------------------------------------------------------- */

static int need_snapshot(struct ps_reader *r, const char *tag)
{
	if (!r->in_snapshot)
		return rfail(r, "%s record outside a snapshot (%s)", tag,
			     r->have_snapshot ? "after its end record" : "no snapshot record yet");
	return 0;
}

static int read_snapshot(struct ps_reader *r, struct kvline *kv, struct ps_snapshot *s)
{
	if (r->in_snapshot)
		return rfail(r, "snapshot record before the previous snapshot's end record");
	if (kv_num(r, kv, "snapshot", "seq", false, true, &s->seq) < 0 ||
	    kv_num(r, kv, "snapshot", "uptime_ns", false, false, &s->uptime_ns) < 0)
		return -1;
	s->time = kv_str(kv, "time");
	r->in_snapshot = r->have_snapshot = true;
	r->in_vma = false;
	r->cur_mm = PS_UNKNOWN;
	idset_clear(&r->declared);
	idset_clear(&r->referenced);
	r->n_tasks = r->n_mms = r->n_vmas = r->n_runs = r->n_pages = 0;
	r->frames_next = 0;
	return 0;
}

static int read_task(struct ps_reader *r, struct kvline *kv, struct ps_task *t)
{
	static const char *const dec_keys[] = { "ppid", "minflt", "majflt", "utime", "stime",
		"start", "rss_file", "rss_anon", "rss_shmem", "rss_swap" };
	uint64_t *dec_out[] = { &t->ppid, &t->minflt, &t->majflt, &t->utime, &t->stime, &t->start,
		&t->rss_file, &t->rss_anon, &t->rss_shmem, &t->rss_swap };
	if (kv_num(r, kv, "task", "pid", false, true, &t->pid) < 0 ||
	    kv_num(r, kv, "task", "tgid", false, true, &t->tgid) < 0 ||
	    kv_num(r, kv, "task", "mm", false, true, &t->mm) < 0)
		return -1;
	for (size_t i = 0; i < sizeof dec_keys / sizeof dec_keys[0]; i++)
		if (kv_num(r, kv, "task", dec_keys[i], false, false, dec_out[i]) < 0)
			return -1;
	if (t->pid == PS_UNKNOWN || t->pid > 0xffffffffu || t->tgid == PS_UNKNOWN)
		return rfail(r, "task record: pid/tgid out of range");
	t->comm = kv_str(kv, "comm");
	const char *st = kv_str(kv, "state");
	t->state = st[0] ? st[0] : '?';
	uint64_t exiting;
	if (kv_num(r, kv, "task", "exiting", false, false, &exiting) < 0)
		return -1;
	t->exiting = exiting == 1;
	if (t->mm != PS_UNKNOWN) {
		if (t->mm >= MAX_MM_ID)
			return rfail(r, "task record: mm id %llu out of range", (unsigned long long)t->mm);
		if (idset_add(&r->referenced, t->mm) < 0)
			return rfail(r, "out of memory");
	}
	r->n_tasks++;
	return 0;
}

static int read_mm(struct ps_reader *r, struct kvline *kv, struct ps_mm *mm)
{
	if (kv_num(r, kv, "mm", "id", false, true, &mm->id) < 0 ||
	    kv_num(r, kv, "mm", "tgid", false, false, &mm->tgid) < 0 ||
	    kv_num(r, kv, "mm", "kaddr", true, false, &mm->kaddr) < 0 ||
	    kv_num(r, kv, "mm", "start_brk", true, false, &mm->start_brk) < 0 ||
	    kv_num(r, kv, "mm", "brk", true, false, &mm->brk) < 0 ||
	    kv_num(r, kv, "mm", "start_stack", true, false, &mm->start_stack) < 0 ||
	    kv_num(r, kv, "mm", "total_vm", false, false, &mm->total_vm) < 0 ||
	    kv_num(r, kv, "mm", "map_count", false, false, &mm->map_count) < 0)
		return -1;
	if (mm->id == PS_UNKNOWN || mm->id >= MAX_MM_ID)
		return rfail(r, "mm record: id out of range (0..%u)", MAX_MM_ID - 1);
	if (idset_has(&r->declared, mm->id))
		return rfail(r, "mm record: id %llu declared twice in this snapshot",
			     (unsigned long long)mm->id);
	if (idset_add(&r->declared, mm->id) < 0)
		return rfail(r, "out of memory");
	mm->comm = kv_str(kv, "comm");
	mm->exe = kv_str(kv, "exe");
	r->cur_mm = mm->id;
	r->in_vma = false;
	r->last_vma_end = 0;
	r->n_mms++;
	return 0;
}

/* "MAJ:MIN", each 1-8 hex digits (sscanf would take signs, spaces and overflow). */
static bool parse_dev(const char *s, uint32_t *maj, uint32_t *mnr)
{
	uint32_t *out[2] = { maj, mnr };
	for (int i = 0; i < 2; i++) {
		uint32_t v = 0;
		int n = 0;
		for (int d; (d = HEXV(*s)) >= 0 && n < 9; s++, n++)
			v = v << 4 | (uint32_t)d;
		if (n == 0 || n > 8 || *s != (i ? '\0' : ':'))
			return false;
		*out[i] = v;
		s++;
	}
	return true;
}

static int read_vma(struct ps_reader *r, struct kvline *kv, struct ps_vma *v)
{
	if (kv_num(r, kv, "vma", "mm", false, true, &v->mm) < 0 ||
	    kv_num(r, kv, "vma", "start", true, true, &v->start) < 0 ||
	    kv_num(r, kv, "vma", "end", true, true, &v->end) < 0 ||
	    kv_num(r, kv, "vma", "vmflags", true, false, &v->vmflags) < 0 ||
	    kv_num(r, kv, "vma", "pgoff", true, false, &v->pgoff) < 0 ||
	    kv_num(r, kv, "vma", "inode", false, false, &v->inode) < 0)
		return -1;
	if (r->cur_mm == PS_UNKNOWN)
		return rfail(r, "vma record for mm %llu, but no mm record precedes it in this snapshot "
			     "(vma records follow the latest mm record)", (unsigned long long)v->mm);
	if (v->mm != r->cur_mm)
		return rfail(r, "vma record for mm %llu, but the latest mm record is %llu",
			     (unsigned long long)v->mm, (unsigned long long)r->cur_mm);
	if (v->start == PS_UNKNOWN || v->end == PS_UNKNOWN || v->start >= v->end ||
	    ((v->start | v->end) & (r->hdr.page_size - 1)))
		return rfail(r, "vma record: bad range %llx-%llx (must be page aligned, start < end)",
			     (unsigned long long)v->start, (unsigned long long)v->end);
	if (v->start < r->last_vma_end)
		return rfail(r, "vma record: %llx overlaps or precedes the previous VMA (ends %llx)",
			     (unsigned long long)v->start, (unsigned long long)r->last_vma_end);
	if (v->pgoff == PS_UNKNOWN)
		v->pgoff = 0;
	if (v->inode == PS_UNKNOWN)
		v->inode = 0;
	const char *perm = kv_str(kv, "perm");
	if (strlen(perm) != 4 || !strchr("r-", perm[0]) || !strchr("w-", perm[1]) ||
	    !strchr("x-", perm[2]) || !strchr("ps", perm[3]))
		return rfail(r, "vma record: perm=%s (expected e.g. rwxp)", perm);
	memcpy(v->perm, perm, 5);
	const char *dev = kv_str(kv, "dev");
	uint32_t maj = 0, mnr = 0;
	if (*dev && !parse_dev(dev, &maj, &mnr))
		return rfail(r, "vma record: dev=%s (expected MAJ:MIN in hex)", dev);
	v->dev_major = maj, v->dev_minor = mnr;
	v->path = kv_str(kv, "path");
	v->unit = kv_str(kv, "unit");
	const char *kind = kv_str(kv, "kind");
	int k = ps_kind_parse(kind, strlen(kind));
	if (k < 0)
		return rfail(r, "vma record: unknown kind=%s", kind);
	v->kind = (enum ps_vma_kind)k;
	r->in_vma = true;
	r->vma_mm = v->mm;
	r->vma_start = v->start;
	r->vma_end = v->end;
	r->next_vaddr = v->start;
	r->last_vma_end = v->end;
	r->n_vmas++;
	return 0;
}

static int read_sum(struct ps_reader *r, struct kvline *kv, struct ps_vma_sum *s)
{
	static const char *const keys[] = { "resident", "exec", "ro", "single", "shared",
		"referenced", "dirty", "swapped", "anon", "file", "excluded", "unknown", "pss" };
	uint64_t *out[] = { &s->resident, &s->exec, &s->ro, &s->single, &s->shared,
		&s->referenced, &s->dirty, &s->swapped, &s->anon, &s->file, &s->excluded,
		&s->unknown, &s->pss };
	if (kv_num(r, kv, "sum", "mm", false, true, &s->mm) < 0 ||
	    kv_num(r, kv, "sum", "start", true, true, &s->start) < 0)
		return -1;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (kv_num(r, kv, "sum", keys[i], false, false, out[i]) < 0)
			return -1;
		if (*out[i] == PS_UNKNOWN)
			*out[i] = 0;
	}
	/* 1.3, optional: absent is none, "-" unknown (kept: the swap totals say so). */
	if (kv_num(r, kv, "sum", "shmem_swap", false, false, &s->shmem_swap) < 0)
		return -1;
	if (!kv_get(kv, "shmem_swap"))
		s->shmem_swap = 0;
	if (s->pss > UINT64_MAX >> PS_PSS_SHIFT)
		return rfail(r, "sum record: pss out of range");
	s->pss <<= PS_PSS_SHIFT;
	if (!r->in_vma || s->mm != r->vma_mm || s->start != r->vma_start)
		return rfail(r, "sum record for mm %llu VMA %llx does not follow that VMA",
			     (unsigned long long)s->mm, (unsigned long long)s->start);
	uint64_t vpages = (r->vma_end - r->vma_start) >> r->hdr.page_shift;
	if (s->resident > vpages || s->swapped > vpages || s->unknown > vpages ||
	    (s->shmem_swap != PS_UNKNOWN && s->shmem_swap > vpages))
		return rfail(r, "sum record: more pages than the VMA holds (%llu)", (unsigned long long)vpages);
	r->in_vma = false; /* the summary closes the VMA */
	return 0;
}

static int read_end(struct ps_reader *r, struct kvline *kv, struct ps_end *e)
{
	const char *status = kv_str(kv, "status");
	if (strcmp(status, "complete") != 0 && strcmp(status, "partial") != 0)
		return rfail(r, "end record: status=%s (expected complete or partial)", status);
	e->complete = status[0] == 'c';
	static const char *const keys[] = { "tasks", "mms", "vmas", "runs", "pages" };
	uint64_t *out[] = { &e->tasks, &e->mms, &e->vmas, &e->runs, &e->pages };
	uint64_t have[] = { r->n_tasks, r->n_mms, r->n_vmas, r->n_runs, r->n_pages };
	for (size_t i = 0; i < 5; i++) {
		if (kv_num(r, kv, "end", keys[i], false, false, out[i]) < 0)
			return -1;
		if (*out[i] != PS_UNKNOWN && *out[i] != have[i])
			return rfail(r, "end record says %s=%llu but the snapshot holds %llu (lines lost?)",
				     keys[i], (unsigned long long)*out[i], (unsigned long long)have[i]);
	}
	for (size_t w = 0; w < r->referenced.words; w++) {
		uint64_t missing = r->referenced.bits[w] &
				   ~(w < r->declared.words ? r->declared.bits[w] : 0);
		if (missing)
			return rfail(r, "a task refers to mm %llu, which no mm record declares",
				     (unsigned long long)(w * 64 + (unsigned)__builtin_ctzll(missing)));
	}
	r->in_snapshot = false;
	r->in_vma = false;
	return 0;
}

static int read_counter(struct ps_reader *r, const struct kvline *kv, struct ps_counter *c)
{
	c->set = kv_str(kv, "set");
	c->name = kv_str(kv, "name");
	c->zone = kv_str(kv, "zone");
	if (!*c->set || !*c->name)
		return rfail(r, "counter record: missing set= or name=");
	if (kv_num(r, kv, "counter", "node", false, false, &c->node) < 0 ||
	    kv_num(r, kv, "counter", "value", false, true, &c->value) < 0)
		return -1;
	return 0;
}

static bool is_reserved_trace_tag(const char *tag)
{
	static const char *const tags[] = { "ws", "peak", "hot", "obj", "alloc", "frame", "mark", "wss" };
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strcmp(tag, tags[i]) == 0)
			return true;
	return false;
}

static bool valid_tag(const char *tag, size_t len)
{
	if (len == 0 || len > 16)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((tag[i] >= 'a' && tag[i] <= 'z') || (tag[i] >= '0' && tag[i] <= '9')))
			return false;
	return true;
}

/* ---- the record loop ------------------------------------------------------------------- */

int ps_read(struct ps_reader *r, struct ps_record *rec)
{
	char *line;
	size_t len;
	for (;;) {
		int rc = next_line(r, &line, &len);
		/* EOF inside a snapshot is not a reader error: the consumer asks
		 * ps_reader_in_snapshot() and reports the snapshot as partial. */
		if (rc <= 0)
			return rc;
		if (len == 0 || line[0] == '#')
			continue;
		rec->line = r->line;

		/* Hot records first: a one-letter tag followed by a space. */
		if (line[1] == ' ' || line[1] == '\0') {
			switch (line[0]) {
			case 'm':
			case 'x':
				rec->type = PS_REC_MAP;
				if (read_map(r, line, len, &rec->u.map, line[0] == 'x') < 0)
					return -1;
				return 1;
			case 'w':
				rec->type = PS_REC_SWAP;
				return read_swap(r, line, &rec->u.swap) < 0 ? -1 : 1;
			case 'u':
				rec->type = PS_REC_UNKNOWN_RANGE;
				return read_unknown_range(r, line, &rec->u.unknown) < 0 ? -1 : 1;
			case 'f':
				rec->type = PS_REC_FRAMES;
				return read_frames(r, line, &rec->u.frames) < 0 ? -1 : 1;
			default:
				break;
			}
		}

		char *sp = strchr(line, ' ');
		size_t tag_len = sp ? (size_t)(sp - line) : len;
		if (!valid_tag(line, tag_len))
			return rfail(r, "malformed line: '%.20s' is not a record tag", line);
		char tag[17];
		memcpy(tag, line, tag_len);
		tag[tag_len] = '\0';
		char *rest = line + tag_len;

		struct kvline kv;
		enum ps_rec_type type;
		if (strcmp(tag, "snapshot") == 0)
			type = PS_REC_SNAPSHOT;
		else if (strcmp(tag, "task") == 0)
			type = PS_REC_TASK;
		else if (strcmp(tag, "mm") == 0)
			type = PS_REC_MM;
		else if (strcmp(tag, "vma") == 0)
			type = PS_REC_VMA;
		else if (strcmp(tag, "sum") == 0)
			type = PS_REC_SUM;
		else if (strcmp(tag, "warn") == 0)
			type = PS_REC_WARN;
		else if (strcmp(tag, "end") == 0)
			type = PS_REC_END;
		else if (strcmp(tag, "counter") == 0)
			type = PS_REC_COUNTER;
		else if (strcmp(tag, "owner") == 0)
			type = PS_REC_OWNER;
		else if (strcmp(tag, "log") == 0)
			type = PS_REC_LOG;
		else if (strcmp(tag, "slab") == 0)
			type = PS_REC_SLAB;
		else if (strcmp(tag, "header") == 0)
			return rfail(r, "a second header record");
		else if (is_reserved_trace_tag(tag))
			type = PS_REC_TRACE;
		else {
			bool seen = false;
			for (size_t i = 0; i < r->n_unknown_tags; i++)
				seen |= strcmp(r->unknown_tags[i], tag) == 0;
			if (!seen && r->n_unknown_tags < MAX_UNKNOWN_TAGS) {
				strcpy(r->unknown_tags[r->n_unknown_tags++], tag);
				add_warning(r, "skipping unknown record type '%s' (newer format %u.%u?)",
					    tag, r->hdr.version_major, r->hdr.version_minor);
			}
			continue;
		}
		if (split_kv(r, rest, &kv, tag) < 0)
			return -1;
		rec->type = type;
		int ok;
		switch (type) {
		case PS_REC_SNAPSHOT:
			ok = read_snapshot(r, &kv, &rec->u.snapshot);
			break;
		case PS_REC_TASK:
			ok = need_snapshot(r, tag) < 0 ? -1 : read_task(r, &kv, &rec->u.task);
			break;
		case PS_REC_MM:
			ok = need_snapshot(r, tag) < 0 ? -1 : read_mm(r, &kv, &rec->u.mm);
			break;
		case PS_REC_VMA:
			ok = need_snapshot(r, tag) < 0 ? -1 : read_vma(r, &kv, &rec->u.vma);
			break;
		case PS_REC_SUM:
			ok = need_snapshot(r, tag) < 0 ? -1 : read_sum(r, &kv, &rec->u.sum);
			break;
		case PS_REC_WARN:
			rec->u.warn.reason = kv_str(&kv, "reason");
			rec->u.warn.kind = kv_str(&kv, "kind");
			ok = kv_num(r, &kv, "warn", "mm", false, false, &rec->u.warn.mm) < 0 ||
			     kv_num(r, &kv, "warn", "at", true, false, &rec->u.warn.at) < 0 ? -1 : 0;
			break;
		case PS_REC_END:
			ok = need_snapshot(r, tag) < 0 ? -1 : read_end(r, &kv, &rec->u.end);
			break;
		case PS_REC_COUNTER:
			ok = need_snapshot(r, tag) < 0 ? -1 : read_counter(r, &kv, &rec->u.counter);
			break;
		case PS_REC_SLAB: {
			static const char *const keys[] = { "active_objs", "num_objs", "objsize", "objperslab",
							    "pagesperslab", "num_slabs" };
			uint64_t *out[] = { &rec->u.slab.active_objs, &rec->u.slab.num_objs, &rec->u.slab.objsize,
					    &rec->u.slab.objperslab, &rec->u.slab.pagesperslab, &rec->u.slab.num_slabs };
			rec->u.slab.name = kv_str(&kv, "name");
			ok = need_snapshot(r, tag);
			if (ok == 0 && !*rec->u.slab.name)
				ok = rfail(r, "slab record: missing name=");
			for (size_t i = 0; ok == 0 && i < sizeof keys / sizeof keys[0]; i++)
				ok = kv_num(r, &kv, "slab", keys[i], false, false, out[i]) < 0 ? -1 : 0;
			break;
		}
		case PS_REC_LOG:
			rec->u.log.text = kv_str(&kv, "text");
			ok = need_snapshot(r, tag) < 0 || kv_num(r, &kv, "log", "seq", false, false, &rec->u.log.seq) < 0 ||
			     kv_num(r, &kv, "log", "ts", false, false, &rec->u.log.ts_nsec) < 0 ||
			     kv_num(r, &kv, "log", "level", false, false, &rec->u.log.level) < 0 ||
			     kv_num(r, &kv, "log", "facility", false, false, &rec->u.log.facility) < 0
				     ? -1 : 0;
			break;
		case PS_REC_OWNER:
			rec->u.owner.kind = kv_str(&kv, "kind");
			rec->u.owner.name = kv_str(&kv, "name");
			ok = need_snapshot(r, tag) < 0 || kv_num(r, &kv, "owner", "id", false, true, &rec->u.owner.id) < 0
				     ? -1 : 0;
			break;
		default: /* PS_REC_TRACE */
			line[tag_len] = '\0'; /* split_kv is done with the separator */
			rec->u.trace.tag = line;
			rec->u.trace.n = kv.n;
			for (size_t i = 0; i < kv.n; i++)
				rec->u.trace.kv[i].key = kv.key[i], rec->u.trace.kv[i].value = kv.val[i];
			ok = 0;
			break;
		}
		return ok < 0 ? -1 : 1;
	}
}

bool ps_reader_in_snapshot(const struct ps_reader *r) { return r->in_snapshot; }
