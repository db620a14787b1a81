/* elf_segments.c - see elf_segments.h. */
#include "elf_segments.h"

#include "errmsg.h"
#include "mapped_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PN_XNUM 0xffffu
#define MAX_NOTE_BYTES (16u << 20)
#define PT_LOAD 1
#define PT_NOTE 4
#define NT_PRSTATUS 1
#define EM_PPC64 21

struct segment {
	uint64_t paddr, filesz, memsz, offset;
	uint64_t stored; /* of the filesz bytes, those the file holds (less when it is cut short) */
	/* For ps_elf_segments_next, once sorted: the highest paddr + stored of this segment and
	 * those before it, and the index of the first segment from this one on with stored
	 * bytes (nseg: none). */
	uint64_t reach;
	size_t next_stored;
};

struct ps_elf_segments {
	int fd;
	uint64_t file_size;
	bool big_endian, is64;
	unsigned machine;
	struct segment *seg; /* PT_LOADs sorted by paddr */
	size_t nseg;
	size_t last; /* the segment find() returned last: the walk's next address is mostly in it */
	uint64_t note_off, note_size; /* the first PT_NOTE */
	uint64_t missing;
	/* The whole file mapped read-only (mapped_file.h; not mapped: read with pread). Only a
	 * file that holds all its segments is mapped. */
	struct ps_mapped_file map;
	char error[160]; /* why the last read returned PS_READ_ERROR */
};

static uint64_t load(const unsigned char *p, unsigned size, bool be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[be ? i : size - 1 - i] << (8 * (size - 1 - i));
	return v;
}


bool ps_elf_counts(int fd, const unsigned char *h, uint64_t file_size, uint64_t *phnum,
		   uint64_t *shnum)
{
	bool is64 = h[4] == 2, be = h[5] == 2;
	uint64_t shoff = is64 ? load(h + 40, 8, be) : load(h + 32, 4, be);
	*phnum = load(h + (is64 ? 56 : 44), 2, be);
	*shnum = load(h + (is64 ? 60 : 48), 2, be);
	if (shoff == 0 || (*shnum != 0 && *phnum != PN_XNUM))
		return true;
	/* As libkdumpfile 0.5.1 reads them too (elfdump.c init_elf64). */
	unsigned need = is64 ? 64 : 40;
	unsigned char sh[64];
	if (shoff > file_size || need > file_size - shoff || ps_pread_full(fd, sh, need, shoff) != 1)
		return false;
	if (*shnum == 0)
		*shnum = is64 ? load(sh + 32, 8, be) : load(sh + 20, 4, be);
	if (*shnum > 0 && *phnum == PN_XNUM)
		*phnum = load(sh + (is64 ? 44 : 28), 4, be);
	return true;
}

void ps_elf_table_init(struct ps_elf_table *t, int fd, uint64_t off, uint64_t n, unsigned entsize)
{
	t->fd = fd, t->off = off, t->n = n, t->entsize = entsize;
	t->buf_first = t->buf_n = 0;
}

const unsigned char *ps_elf_table_entry(struct ps_elf_table *t, uint64_t i, unsigned need)
{
	if (i >= t->n || need > t->entsize)
		return NULL;
	if (i < t->buf_first || i >= t->buf_first + t->buf_n) {
		uint64_t fit = sizeof t->buf / t->entsize;
		if (fit == 0) { /* an entry larger than the buffer: the bytes needed alone */
			t->buf_n = 0;
			return ps_pread_full(t->fd, t->buf, need, t->off + i * t->entsize) == 1 ? t->buf : NULL;
		}
		uint64_t n = t->n - i < fit ? t->n - i : fit;
		/* the last entry needs only NEED bytes: a table may end right after them */
		size_t len = (size_t)((n - 1) * t->entsize + need);
		if (ps_pread_full(t->fd, t->buf, len, t->off + i * t->entsize) != 1) {
			t->buf_n = 0;
			return NULL;
		}
		t->buf_first = i, t->buf_n = n;
	}
	return t->buf + (i - t->buf_first) * t->entsize;
}

static int by_paddr(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;
	return x->paddr < y->paddr ? -1 : x->paddr > y->paddr;
}

struct ps_elf_segments *ps_elf_segments_open(int fd, uint64_t file_size, char **err)
{
	unsigned char h[64];
	if (file_size < 52 || ps_pread_full(fd, h, file_size < 64 ? 52 : 64, 0) != 1 || memcmp(h, "\177ELF", 4)) {
		ps_set_err(err, "not an ELF file");
		return NULL;
	}
	if ((h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2)) {
		ps_set_err(err, "unknown ELF class or byte order");
		return NULL;
	}
	struct ps_elf_segments *s = calloc(1, sizeof *s);
	if (!s) {
		ps_set_err(err, "out of memory");
		return NULL;
	}
	s->fd = fd;
	s->file_size = file_size;
	s->is64 = h[4] == 2;
	s->big_endian = h[5] == 2;
	bool be = s->big_endian;
	if (s->is64 && file_size < 64) {
		ps_set_err(err, "the file ends inside the ELF header");
		goto fail;
	}
	s->machine = (unsigned)load(h + 18, 2, be);
	uint64_t phoff = s->is64 ? load(h + 32, 8, be) : load(h + 28, 4, be);
	unsigned phentsize = (unsigned)load(h + (s->is64 ? 54 : 42), 2, be);
	uint64_t phnum, shnum;
	unsigned need = s->is64 ? 56 : 32;
	if (!ps_elf_counts(fd, h, file_size, &phnum, &shnum) || phnum == 0 || phentsize < need ||
	    phoff > file_size || phnum > (file_size - phoff) / phentsize) {
		ps_set_err(err, "its program header table does not lie within the file");
		goto fail;
	}
	s->seg = calloc(phnum, sizeof *s->seg);
	struct ps_elf_table *tab = malloc(sizeof *tab);
	if (!s->seg || !tab) {
		free(tab);
		ps_set_err(err, "out of memory");
		goto fail;
	}
	ps_elf_table_init(tab, fd, phoff, phnum, phentsize);
	for (uint64_t i = 0; i < phnum; i++) {
		const unsigned char *ph = ps_elf_table_entry(tab, i, need);
		if (!ph) {
			free(tab);
			ps_set_err(err, "its program header table cannot be read");
			goto fail;
		}
		uint32_t type = (uint32_t)load(ph, 4, be);
		struct segment g;
		if (s->is64) {
			g.offset = load(ph + 8, 8, be);
			g.paddr = load(ph + 24, 8, be);
			g.filesz = load(ph + 32, 8, be);
			g.memsz = load(ph + 40, 8, be);
		} else {
			g.offset = load(ph + 4, 4, be);
			g.paddr = load(ph + 12, 4, be);
			g.filesz = load(ph + 16, 4, be);
			g.memsz = load(ph + 20, 4, be);
		}
		if (type == PT_NOTE && !s->note_size && g.offset < file_size) {
			s->note_off = g.offset;
			s->note_size = g.filesz < file_size - g.offset ? g.filesz : file_size - g.offset;
		}
		if (type != PT_LOAD || g.memsz == 0)
			continue;
		if (g.filesz > g.memsz || g.paddr + g.memsz < g.paddr) {
			free(tab);
			ps_set_err(err, "program header %" PRIu64 ": a PT_LOAD with p_filesz > p_memsz or "
				     "wrapping addresses", i);
			goto fail;
		}
		/* A truncated file: what lies past its end is not in the dump (NODATA, not
		 * filtered); the part beyond p_filesz is still filtered. */
		uint64_t avail = g.offset < file_size ? file_size - g.offset : 0;
		g.stored = g.filesz < avail ? g.filesz : avail;
		s->missing += g.filesz - g.stored;
		s->seg[s->nseg++] = g;
	}
	free(tab);
	qsort(s->seg, s->nseg, sizeof *s->seg, by_paddr);
	uint64_t reach = 0;
	for (size_t i = 0; i < s->nseg; i++) {
		struct segment *g = &s->seg[i];
		uint64_t end = g->paddr + g->stored; /* no wrap: p_paddr + p_memsz was checked */
		if (end > reach)
			reach = end;
		g->reach = reach;
	}
	for (size_t i = s->nseg, next = s->nseg; i-- > 0;) {
		if (s->seg[i].stored)
			next = i;
		s->seg[i].next_stored = next;
	}
	if (!s->missing)
		ps_mapped_file_map(&s->map, fd, file_size);
	return s;
fail:
	ps_elf_segments_close(s);
	return NULL;
}

void ps_elf_segments_close(struct ps_elf_segments *s)
{
	if (!s)
		return;
	ps_mapped_file_unmap(&s->map);
	free(s->seg);
	free(s);
}

unsigned ps_elf_segments_machine(const struct ps_elf_segments *s) { return s->machine; }
unsigned ps_elf_segments_ptr_size(const struct ps_elf_segments *s) { return s->is64 ? 8 : 4; }
bool ps_elf_segments_header_big_endian(const struct ps_elf_segments *s) { return s->big_endian; }
uint64_t ps_elf_segments_missing(const struct ps_elf_segments *s) { return s->missing; }
const char *ps_elf_segments_error(const struct ps_elf_segments *s) { return s->error; }

uint64_t ps_elf_segments_end(const struct ps_elf_segments *s)
{
	uint64_t end = 0;
	for (size_t i = 0; i < s->nseg; i++)
		if (s->seg[i].paddr + s->seg[i].memsz > end)
			end = s->seg[i].paddr + s->seg[i].memsz;
	return end;
}

bool ps_elf_segments_ppc64_guest_little_endian(const struct ps_elf_segments *s, bool *little)
{
	if (s->machine != EM_PPC64 || !s->is64 || s->note_size < 12 || s->note_size > MAX_NOTE_BYTES)
		return false;
	unsigned char *notes = malloc(s->note_size);
	if (!notes || ps_pread_full(s->fd, notes, s->note_size, s->note_off) != 1) {
		free(notes);
		return false;
	}
	bool found = false;
	for (uint64_t at = 0; at + 12 <= s->note_size && !found;) {
		uint64_t namesz = load(notes + at, 4, s->big_endian);
		uint64_t descsz = load(notes + at + 4, 4, s->big_endian);
		uint64_t type = load(notes + at + 8, 4, s->big_endian);
		uint64_t desc = at + 12 + ((namesz + 3) & ~UINT64_C(3));
		if (namesz > s->note_size || descsz > s->note_size || desc + descsz > s->note_size)
			break;
		/* struct elf_prstatus (64-bit): pr_reg at 112; ppc64's pt_regs: gpr[32], nip,
		 * msr (index 33). MSR_LE is bit 0. */
		if (type == NT_PRSTATUS && descsz >= 112 + 34 * 8) {
			*little = load(notes + desc + 112 + 33 * 8, 8, s->big_endian) & 1;
			found = true;
		}
		at = desc + ((descsz + 3) & ~UINT64_C(3));
	}
	free(notes);
	return found;
}

char *ps_elf_segments_vmcoreinfo(const struct ps_elf_segments *s, size_t *len)
{
	*len = 0;
	if (s->note_size < 12 || s->note_size > MAX_NOTE_BYTES)
		return NULL;
	unsigned char *notes = malloc(s->note_size);
	if (!notes || ps_pread_full(s->fd, notes, s->note_size, s->note_off) != 1) {
		free(notes);
		return NULL;
	}
	char *text = NULL;
	for (uint64_t at = 0; at + 12 <= s->note_size && !text;) {
		uint64_t namesz = load(notes + at, 4, s->big_endian);
		uint64_t descsz = load(notes + at + 4, 4, s->big_endian);
		uint64_t desc = at + 12 + ((namesz + 3) & ~UINT64_C(3));
		if (namesz > s->note_size || descsz > s->note_size || desc + descsz > s->note_size)
			break;
		if (namesz == 11 && memcmp(notes + at + 12, "VMCOREINFO", 11) == 0 && (text = malloc(descsz + 1))) {
			memcpy(text, notes + desc, descsz);
			text[descsz] = '\0';
			*len = (size_t)descsz;
		}
		at = desc + ((descsz + 3) & ~UINT64_C(3));
	}
	free(notes);
	return text;
}

/* How many segments (sorted by paddr) start at or below PADDR. */
static size_t starting_at_or_below(const struct ps_elf_segments *s, uint64_t paddr)
{
	size_t lo = 0, hi = s->nseg;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->seg[mid].paddr <= paddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The segment holding PADDR, or NULL. */
static const struct segment *find(struct ps_elf_segments *s, uint64_t paddr)
{
	/* The search's answer too: the last segment starting at or below PADDR. */
	size_t k = s->last;
	if (k < s->nseg && paddr - s->seg[k].paddr < s->seg[k].memsz &&
	    (k + 1 == s->nseg || paddr < s->seg[k + 1].paddr))
		return &s->seg[k];
	size_t lo = starting_at_or_below(s, paddr);
	/* Overlapping segments are not expected; take the last one starting at or below. */
	if (lo == 0)
		return NULL;
	const struct segment *g = &s->seg[lo - 1];
	if (paddr - g->paddr >= g->memsz)
		return NULL;
	s->last = lo - 1;
	return g;
}

/* PADDR in segment G (NULL: in none): the file's bytes, cut off by the end of the file,
 * or filtered (beyond p_filesz, zeros by ELF's rule). */
static enum ps_read_status in_segment(const struct segment *g, uint64_t paddr)
{
	if (!g)
		return PS_READ_NODATA;
	uint64_t off = paddr - g->paddr;
	return off < g->stored ? PS_READ_OK : off < g->filesz ? PS_READ_NODATA : PS_READ_EXCLUDED;
}

enum ps_read_status ps_elf_segments_status(struct ps_elf_segments *s, uint64_t paddr)
{
	return in_segment(find(s, paddr), paddr);
}

enum ps_read_status ps_elf_segments_read(struct ps_elf_segments *s, uint64_t paddr, void *buf,
					 size_t len)
{
	unsigned char *out = buf;
	while (len > 0) {
		const struct segment *g = find(s, paddr);
		enum ps_read_status st = in_segment(g, paddr);
		if (st != PS_READ_OK) {
			memset(out, 0, len);
			return st;
		}
		uint64_t in_seg = g->stored - (paddr - g->paddr);
		size_t chunk = in_seg < len ? (size_t)in_seg : len;
		uint64_t off = g->offset + (paddr - g->paddr);
		bool copied = ps_mapped_file_has(&s->map, off, chunk) &&
			      ps_mapped_file_copy(&s->map, out, off, chunk);
		if (!copied && ps_pread_full(s->fd, out, chunk, off) != 1) {
			int e = errno;
			snprintf(s->error, sizeof s->error, "physical address 0x%" PRIx64 " (file offset 0x%"
				 PRIx64 "): %s", paddr, off,
				 e ? strerror(e) : "the file is shorter than when it was opened");
			memset(out, 0, len);
			return PS_READ_ERROR;
		}
		out += chunk;
		paddr += chunk;
		len -= chunk;
	}
	return PS_READ_OK;
}

uint64_t ps_elf_segments_next(const struct ps_elf_segments *s, uint64_t paddr)
{
	/* The segments starting at or below PADDR: one of them holds it if the furthest any of
	 * them reaches is above it. Else the first later segment that holds bytes. A binary
	 * search: a scan calls this per step, and a dump may have 10^5 segments. */
	size_t lo = starting_at_or_below(s, paddr);
	if (lo > 0 && s->seg[lo - 1].reach > paddr)
		return paddr;
	if (lo == s->nseg || s->seg[lo].next_stored == s->nseg)
		return UINT64_MAX;
	return s->seg[s->seg[lo].next_stored].paddr;
}
