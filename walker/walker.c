/* walker.c - the walker's public API (walker.h): open a back-end, find and install type
 * information, and write one snapshot.
 *
 * The snapshot is written in three passes over what the dump holds: the task list (tasks.c)
 * gives threads grouped by address space; per address space the VMAs (vma.c) with their
 * file paths (path.c); per VMA the page tables and struct pages (page.c). Whatever cannot
 * be read becomes a warn record and a partial snapshot, never a guess and never a hang.
 */
#include "klog.h"
#include "mm_internal.h"
#include "errmsg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>

#define MAX_WARNS 2000 /* warn records per run; the rest are counted in one last warn */

/* ---- small shared helpers ------------------------------------------------------------ */

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static int set_grow(struct mm_set *s, bool with_val)
{
	size_t ncap = s->cap ? s->cap * 2 : 64;
	uint64_t *nk = calloc(ncap, sizeof *nk);
	uint64_t *nv = with_val ? calloc(ncap, sizeof *nv) : NULL;
	if (!nk || (with_val && !nv)) {
		free(nk), free(nv);
		return -1;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->keys[i])
			continue;
		size_t j = mix64(s->keys[i]) & (ncap - 1);
		while (nk[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = s->keys[i];
		if (with_val)
			nv[j] = s->vals[i];
	}
	free(s->keys), free(s->vals);
	s->keys = nk, s->vals = nv, s->cap = ncap;
	return 0;
}

int mm_set_put(struct mm_set *s, uint64_t key, uint64_t val, bool with_val)
{
	if (!key)
		return 0;
	if ((s->n + 1) * 2 > s->cap && set_grow(s, with_val) < 0)
		return -1;
	size_t j = mix64(key) & (s->cap - 1);
	while (s->keys[j]) {
		if (s->keys[j] == key)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->keys[j] = key;
	if (with_val)
		s->vals[j] = val;
	s->n++;
	return 1;
}

int mm_set_get(const struct mm_set *s, uint64_t key, uint64_t *val)
{
	if (!key || !s->cap)
		return 0;
	size_t j = mix64(key) & (s->cap - 1);
	while (s->keys[j]) {
		if (s->keys[j] == key) {
			if (val && s->vals)
				*val = s->vals[j];
			return 1;
		}
		j = (j + 1) & (s->cap - 1);
	}
	return 0;
}

void mm_set_free(struct mm_set *s)
{
	free(s->keys), free(s->vals);
	memset(s, 0, sizeof *s);
}

bool mm_kread_member(struct ps_walker *w, uint64_t va, enum ps_ki_member id, uint64_t *out)
{
	const struct ps_kinfo_member *m = &w->c.ki.member[id];
	if (m->offset == PS_KI_ABSENT || !m->size)
		return false;
	unsigned size = m->nelems ? m->size / m->nelems : m->size;
	uint8_t buf[8];
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	if (ps_kread(&w->c, va + (uint64_t)m->offset, buf, size) != PS_READ_OK)
		return false;
	*out = size == 1 ? buf[0] : size == 2 ? ps_load_u16(&w->c, buf)
		: size == 4 ? ps_load_u32(&w->c, buf) : ps_load_u64(&w->c, buf);
	return true;
}

bool mm_get(const struct ps_walker *w, const void *buf, size_t len, enum ps_ki_member id,
	    uint64_t *out)
{
	const struct ps_kinfo_member *m = &w->c.ki.member[id];
	*out = 0;
	if (m->offset == PS_KI_ABSENT || m->offset < 0 || !buf)
		return false;
	if (m->size != 1 && m->size != 2 && m->size != 4 && m->size != 8)
		return false;
	if ((uint64_t)m->offset + m->size > len)
		return false;
	*out = ps_member(&w->c, buf, id);
	return true;
}

bool mm_get_ptr(const struct ps_walker *w, const void *buf, size_t len, enum ps_ki_member id,
		uint64_t *out)
{
	const struct ps_kinfo_member *m = &w->c.ki.member[id];
	*out = 0;
	if (m->offset == PS_KI_ABSENT || m->offset < 0 || !buf || m->size < w->c.ptr_size)
		return false;
	if ((uint64_t)m->offset + w->c.ptr_size > len)
		return false;
	*out = ps_load_ptr(&w->c, (const uint8_t *)buf + m->offset);
	return true;
}

void mm_warn(struct ps_walker *w, uint64_t mm, uint64_t at, const char *fmt, ...)
{
	if (w->res)
		w->res->partial = true;
	w->warns++;
	if (w->warns_written >= w->warn_cap)
		return;
	w->warns_written++;
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	struct ps_warn wr = { .mm = mm, .at = at, .reason = reason };
	if (w->out && ps_write_warn(w->out, &wr) < 0)
		w->write_failed = true;
}

/* ---- open / close ---------------------------------------------------------------------- */

struct ps_walker *ps_walker_open(const struct ps_target *t, char **err)
{
	struct ps_walker *w = calloc(1, sizeof *w);
	if (!w) {
		ps_set_err(err, "walker: out of memory");
		return NULL;
	}
	if (ps_core_open(&w->c, t) != 0) {
		ps_set_err(err, "%s", w->c.err[0] ? w->c.err : "walker: cannot set up the dump");
		ps_core_close(&w->c);
		free(w);
		return NULL;
	}
	w->warn_cap = MAX_WARNS; /* also for the parts of a walk run on their own (the unit tests) */
	return w;
}

void mm_forget_memory(struct ps_walker *w)
{
	mm_pages_forget(w);
	mm_path_cache_free(w);
	memset(w->c.kvtop_cache, 0, sizeof w->c.kvtop_cache);
}

void ps_walker_close(struct ps_walker *w)
{
	if (!w)
		return;
	mm_pages_free(w);
	mm_path_cache_free(w);
	ps_core_close(&w->c);
	free(w);
}

/* ---- BTF inside the dump ----------------------------------------------------------------- */

#define BTF_MAX_BYTES (UINT64_C(64) << 20)

/* Check a BTF header at P (AVAIL bytes readable) and return the blob's total size, or 0.
 * struct btf_header: u16 magic 0xeB9F, u8 version 1, u8 flags, u32 hdr_len, type_off,
 * type_len, str_off, str_len; the kernel's (pahole's) layout has types first, then strings. */
static uint64_t btf_header_size(const struct ps_core *c, const uint8_t *p, size_t avail)
{
	if (avail < 24 || ps_load_u16(c, p) != 0xeb9f || p[2] != 1)
		return 0;
	uint32_t hdr_len = ps_load_u32(c, p + 4), type_off = ps_load_u32(c, p + 8),
		 type_len = ps_load_u32(c, p + 12), str_off = ps_load_u32(c, p + 16),
		 str_len = ps_load_u32(c, p + 20);
	if (hdr_len < 24 || hdr_len > 256 || type_off != 0 || str_off != type_len || !type_len ||
	    !str_len)
		return 0;
	uint64_t total = (uint64_t)hdr_len + str_off + str_len;
	return total <= BTF_MAX_BYTES ? total : 0;
}

/* Without __start_BTF in kallsyms (CONFIG_KALLSYMS_ALL off, as Debian's arm64 kernel: only
 * text symbols are listed), the .BTF section is found by its header in the read-only data
 * after _etext (include/asm-generic/vmlinux.lds.h puts it in RO_DATA, 4-byte aligned). The
 * largest well-formed header wins: vmlinux BTF is megabytes, anything embedded is small. */
static int scan_btf(struct ps_walker *w, uint64_t *start, uint64_t *stop)
{
	uint64_t from, to = 0;
	if (ps_core_symbol_by_name(&w->c, "_etext", &from) != 0)
		return -1;
	if (ps_core_symbol_by_name(&w->c, "__init_begin", &to) != 0 || to <= from ||
	    to - from > (UINT64_C(256) << 20))
		to = from + (UINT64_C(96) << 20);
	from &= ~UINT64_C(3);
	const size_t chunk = 1 << 20, overlap = 24;
	uint8_t *buf = malloc(chunk + overlap);
	if (!buf)
		return -1;
	uint64_t best = 0, best_at = 0;
	/* Bounds are symbols from the dump: the arithmetic stays below TO so it cannot wrap. */
	for (uint64_t va = from; va < to; va += chunk) {
		size_t n = chunk + overlap;
		if (to - va < chunk)
			n = (size_t)(to - va) + overlap;
		/* One unmapped page (freed init memory) ends the scan only there. */
		size_t got = ps_kread_upto(&w->c, va, buf, n);
		for (size_t i = 0; i + 24 <= got && i < chunk; i += 4) {
			uint64_t total = btf_header_size(&w->c, buf + i, got - i);
			if (total > best) {
				best = total;
				best_at = va + i;
			}
		}
		if (got < n || to - va <= chunk)
			break;
	}
	free(buf);
	if (!best)
		return -1;
	*start = best_at;
	*stop = best_at + best;
	return 0;
}

int ps_walker_find_btf(struct ps_walker *w, void **data, size_t *len, char **err)
{
	*data = NULL;
	*len = 0;
	uint64_t start, stop;
	bool by_symbol = ps_core_symbol_by_name(&w->c, "__start_BTF", &start) == 0 &&
			 ps_core_symbol_by_name(&w->c, "__stop_BTF", &stop) == 0;
	if (!by_symbol && (!w->c.kallsyms || scan_btf(w, &start, &stop) != 0)) {
		/* Without kallsyms, say why they could not be loaded (not listed, or listed but
		 * unreadable, as in a truncated dump). */
		ps_set_err(err, "no BTF in the dump: %s",
			w->c.kallsyms ? "no __start_BTF symbol and no BTF header after _etext (a kernel "
					"without CONFIG_DEBUG_INFO_BTF)" :
			w->c.kallsyms_err[0] ? w->c.kallsyms_err :
					"no kallsyms tables in VMCOREINFO to find __start_BTF");
		return -1;
	}
	if (stop <= start || stop - start > BTF_MAX_BYTES || stop - start < 24) {
		ps_set_err(err, "BTF in the dump: implausible size %" PRIu64 " bytes (__start_BTF %" PRIx64
			", __stop_BTF %" PRIx64 ")", stop - start, start, stop);
		return -1;
	}
	size_t n = (size_t)(stop - start);
	uint8_t *buf = malloc(n);
	if (!buf) {
		ps_set_err(err, "BTF in the dump: out of memory for %zu bytes", n);
		return -1;
	}
	enum ps_read_status st = ps_kread(&w->c, start, buf, n);
	if (st != PS_READ_OK) {
		ps_set_err(err, "BTF in the dump: cannot read %zu bytes at %" PRIx64 ": %s", n, start,
			ps_read_status_name(st));
		free(buf);
		return -1;
	}
	/* The BTF header's magic is 0xeB9F in the target's byte order. */
	uint16_t magic = ps_load_u16(&w->c, buf);
	if (magic != 0xeb9f) {
		ps_set_err(err, "BTF in the dump: bad magic %04x at %" PRIx64, magic, start);
		free(buf);
		return -1;
	}
	*data = buf;
	*len = n;
	return 0;
}

/* ---- type information -------------------------------------------------------------------- */

static bool same_hex_id(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t n = la < lb ? la : lb; /* one side may carry a longer (untruncated) id */
	if (n < 8)
		return la == lb && strcasecmp(a, b) == 0;
	return strncasecmp(a, b, n) == 0;
}

/* VMCOREINFO states some sizes, offsets and PG_* numbers of the dumped kernel itself; any
 * that the type information also knows must agree, or the information is for another kernel
 * (BTF names neither architecture nor release, so this is how a wrong --btf is refused). */
static int check_against_vmcoreinfo(struct ps_walker *w, const struct ps_kinfo *ki,
				    const char *src, char **err)
{
	char key[160];
	uint64_t v;
	for (int i = 0; i < PS_KI_NSIZES; i++) {
		snprintf(key, sizeof key, "SIZE(%s)", ps_ki_size_name(i));
		if (ki->size[i] != PS_KI_ABSENT && ps_core_vmcoreinfo_u64(&w->c, key, &v) &&
		    (uint64_t)ki->size[i] != v) {
			ps_set_err(err, "%s does not belong to this dump: it says sizeof(%s) = %" PRId64
				", the dump's VMCOREINFO says %" PRIu64, src, ps_ki_size_name(i),
				ki->size[i], v);
			return -1;
		}
	}
	for (int i = 0; i < PS_KI_NMEMBERS; i++) {
		snprintf(key, sizeof key, "OFFSET(%s)", ps_ki_member_name(i));
		if (ki->member[i].offset != PS_KI_ABSENT && ps_core_vmcoreinfo_u64(&w->c, key, &v) &&
		    (uint64_t)ki->member[i].offset != v) {
			ps_set_err(err, "%s does not belong to this dump: it says offsetof(%s) = %" PRId64
				", the dump's VMCOREINFO says %" PRIu64, src, ps_ki_member_name(i),
				ki->member[i].offset, v);
			return -1;
		}
	}
	for (int i = 0; i < PS_KI_NENUMS; i++) {
		snprintf(key, sizeof key, "NUMBER(%s)", ps_ki_enum_name(i));
		if (ki->enumval[i] != PS_KI_ABSENT && ps_core_vmcoreinfo_u64(&w->c, key, &v) &&
		    ki->enumval[i] != (int64_t)v) {
			ps_set_err(err, "%s does not belong to this dump: it says %s = %" PRId64
				", the dump's VMCOREINFO says %" PRId64, src, ps_ki_enum_name(i),
				ki->enumval[i], (int64_t)v);
			return -1;
		}
	}
	return 0;
}

int ps_walker_set_kinfo(struct ps_walker *w, const struct ps_kinfo *ki, char **err)
{
	const char *src = ki->source[0] ? ki->source : "type information";
	const char *dump_arch = w->c.arch->name;
	if (ki->arch[0] && strcmp(ki->arch, dump_arch) != 0) {
		ps_set_err(err, "%s is for %s, but the dump is %s", src, ki->arch, dump_arch);
		return -1;
	}
	/* A pointer member says the type information's word size. */
	uint32_t psize = ki->member[PS_KI_TASK_MM].size;
	if (ki->member[PS_KI_TASK_MM].offset != PS_KI_ABSENT && psize != w->c.ptr_size) {
		ps_set_err(err, "%s has %u-byte pointers, but the dump is %s with %u-byte pointers", src,
			psize, dump_arch, w->c.ptr_size);
		return -1;
	}
	const char *rel = ps_core_vmcoreinfo(&w->c, "OSRELEASE");
	if (ki->release[0] && rel && strcmp(ki->release, rel) != 0) {
		ps_set_err(err, "%s is for kernel %s, but the dump is of kernel %s", src, ki->release, rel);
		return -1;
	}
	const char *bid = ps_core_vmcoreinfo(&w->c, "BUILD-ID");
	if (ki->build_id[0] && bid && bid[0] && !same_hex_id(ki->build_id, bid)) {
		ps_set_err(err, "%s has build id %s, but the dump's kernel has build id %s", src,
			ki->build_id, bid);
		return -1;
	}
	if (check_against_vmcoreinfo(w, ki, src, err) != 0)
		return -1;
	if (ps_core_set_kinfo(&w->c, ki) != 0) {
		ps_set_err(err, "%s", w->c.err[0] ? w->c.err : "walker: cannot use the type information");
		return -1;
	}
	return 0;
}

/* ---- header facts -------------------------------------------------------------------- */

const char *ps_walker_arch(const struct ps_walker *w) { return w->c.arch->name; }
bool ps_walker_big_endian(const struct ps_walker *w) { return w->c.big_endian; }
uint32_t ps_walker_page_size(const struct ps_walker *w) { return w->c.page_size; }
const char *ps_walker_release(const struct ps_walker *w) { return w->c.release; }
const char *ps_walker_vmcoreinfo(const struct ps_walker *w, const char *key)
{
	return ps_core_vmcoreinfo(&w->c, key);
}

/* ---- the layout the walker relies on ------------------------------------------------------ */

/* Members read out of a whole-struct buffer must lie inside the struct's size, or a bad
 * type-information source could make the walker read past its buffers. */
static int check_layout(struct ps_walker *w, char **err)
{
	/* Members the walk cannot do without; where each must lie is checked for every member
	 * below. */
	static const enum ps_ki_member needed[] = {
		PS_KI_TASK_TASKS, PS_KI_TASK_PID, PS_KI_TASK_TGID, PS_KI_TASK_MM, PS_KI_TASK_COMM,
		PS_KI_TASK_FLAGS, PS_KI_TASK_EXIT_STATE, PS_KI_TASK_REAL_PARENT, PS_KI_TASK_SIGNAL,
		PS_KI_TASK_THREAD_NODE, PS_KI_MM_PGD, PS_KI_MM_START_BRK, PS_KI_MM_BRK,
		PS_KI_MM_START_STACK, PS_KI_VMA_START, PS_KI_VMA_END, PS_KI_VMA_MM, PS_KI_VMA_FLAGS,
		PS_KI_PAGE_FLAGS, PS_KI_PAGE_REFCOUNT, PS_KI_PAGE_MAPCOUNT, PS_KI_PAGE_MAPPING,
		PS_KI_PAGE_COMPOUND_HEAD,
	};
	const struct ps_kinfo *ki = &w->c.ki;
	static const enum ps_ki_size sized[] = { PS_KI_TASK_STRUCT, PS_KI_MM_STRUCT,
						 PS_KI_VM_AREA_STRUCT, PS_KI_PAGE };
	for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
		int64_t s = ki->size[sized[i]];
		if (s == PS_KI_ABSENT || s <= 0 || s > (1 << 20)) {
			ps_set_err(err, "type information: implausible size of struct %s",
				ps_ki_size_name(sized[i]));
			return -1;
		}
	}
	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
		if (ki->member[needed[i]].offset == PS_KI_ABSENT) {
			ps_set_err(err, "type information: no %s (the walk reads it)", ps_ki_member_name(needed[i]));
			return -1;
		}
	}
	/* Every member known, optional ones too, inside its struct where the struct's size is
	 * known (a vm_file at byte 68 of a 64-byte vm_area_struct would read the next object). */
	for (int i = 0; i < PS_KI_NMEMBERS; i++) {
		const struct ps_kinfo_member *m = &ki->member[i];
		if (m->offset == PS_KI_ABSENT)
			continue;
		const char *name = ps_ki_member_name(i), *dot = strchr(name, '.');
		for (int j = 0; dot && j < PS_KI_NSIZES; j++) {
			const char *t = ps_ki_size_name(j);
			if (strlen(t) != (size_t)(dot - name) || strncmp(t, name, (size_t)(dot - name)) != 0 ||
			    ki->size[j] == PS_KI_ABSENT)
				continue;
			if (m->offset < 0 || m->size == 0 || (int64_t)m->size > ki->size[j] ||
			    m->offset > ki->size[j] - (int64_t)m->size) {
				ps_set_err(err, "type information: %s (offset %" PRId64 ", %u bytes) lies outside "
					   "struct %s (%" PRId64 " bytes)", name, m->offset, m->size, t, ki->size[j]);
				return -1;
			}
		}
	}
	/* Members read as words must be words, the page counters atomic_t (a changed type in
	 * lying BTF made every mapcount 0). Size 0: the dump's pointer size. */
	static const struct {
		enum ps_ki_member m;
		unsigned size;
	} sizes[] = {
		{ PS_KI_PAGE_FLAGS, 0 }, { PS_KI_PAGE_MAPPING, 0 }, { PS_KI_PAGE_COMPOUND_HEAD, 0 },
		{ PS_KI_VMA_START, 0 },  { PS_KI_VMA_END, 0 },      { PS_KI_VMA_MM, 0 },
		{ PS_KI_VMA_FILE, 0 },   { PS_KI_VMA_FLAGS, 0 },    { PS_KI_TASK_MM, 0 },
		{ PS_KI_TASK_REAL_PARENT, 0 }, { PS_KI_MM_PGD, 0 },
		{ PS_KI_PAGE_REFCOUNT, 4 }, { PS_KI_PAGE_MAPCOUNT, 4 },
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		const struct ps_kinfo_member *m = &ki->member[sizes[i].m];
		unsigned want = sizes[i].size ? sizes[i].size : w->c.ptr_size;
		if (m->offset != PS_KI_ABSENT && m->size != want) {
			ps_set_err(err, "type information: %s is %u bytes, %s (%u bytes) expected",
				   ps_ki_member_name(sizes[i].m), m->size, sizes[i].size ? "an atomic_t" : "a word", want);
			return -1;
		}
	}
	/* Page-flag bit numbers below the width of page.flags (page_ext's: 64 bits at most). */
	unsigned flag_bits = 8 * (ki->member[PS_KI_PAGE_FLAGS].offset != PS_KI_ABSENT ? ki->member[PS_KI_PAGE_FLAGS].size
										    : w->c.ptr_size);
	for (int i = PS_KI_PG_LOCKED; i <= PS_KI_PAGE_EXT_IDLE; i++) {
		int64_t v = ki->enumval[i];
		unsigned limit = i >= PS_KI_PAGE_EXT_YOUNG ? 64 : flag_bits;
		if (v != PS_KI_ABSENT && (v < 0 || v >= (int64_t)limit)) {
			ps_set_err(err, "type information: page flag %s = %" PRId64 ", not a bit number below %u",
				   ps_ki_enum_name(i), v, limit);
			return -1;
		}
	}
	if (ki->size[PS_KI_PAGE] > 512) {
		ps_set_err(err, "type information: struct page of %" PRId64 " bytes (at most 512 expected)",
			ki->size[PS_KI_PAGE]);
		return -1;
	}
	if (!mm_has(w, PS_KI_MM_MT) && !(mm_has(w, PS_KI_MM_MMAP) && mm_has(w, PS_KI_VMA_NEXT))) {
		ps_set_err(err, "type information: neither mm_struct.mm_mt (6.1+) nor mm_struct.mmap "
			     "with vm_area_struct.vm_next (older kernels)");
		return -1;
	}
	if (!mm_has(w, PS_KI_TASK_STATE) && !mm_has(w, PS_KI_TASK_STATE_OLD)) {
		ps_set_err(err, "type information: neither task_struct.__state nor task_struct.state");
		return -1;
	}
	return 0;
}

/* ---- run -------------------------------------------------------------------------------- */

/* VMCOREINFO's CRASHTIME (seconds since the epoch), or 0. */
static int64_t vmcoreinfo_crash_time(struct ps_walker *w)
{
	const char *v = ps_core_vmcoreinfo(&w->c, "CRASHTIME");
	if (!v)
		return 0;
	char *end;
	uint64_t secs = strtoull(v, &end, 10);
	if (end == v || *end || secs == 0 || secs > (UINT64_C(1) << 40))
		return 0;
	return (int64_t)secs;
}

static void format_time(int64_t secs, char *buf, size_t cap)
{
	buf[0] = 0;
	time_t t = (time_t)secs;
	struct tm tm;
	if (secs > 0 && gmtime_r(&t, &tm))
		strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void crash_time(struct ps_walker *w, char *buf, size_t cap)
{
	format_time(vmcoreinfo_crash_time(w), buf, cap);
}

int ps_walker_write_header(struct ps_walker *w, struct ps_writer *out,
			   const struct ps_header_facts *f, char **err)
{
	int64_t when = vmcoreinfo_crash_time(w);
	if (!when)
		when = f->time;
	char time_buf[40], excluded[32] = "none";
	format_time(when, time_buf, sizeof time_buf);
	if (f->dump_level > 0)
		snprintf(excluded, sizeof excluded, "dumplevel:%d", f->dump_level);
	char *dump_id = NULL, *pids = NULL;
	const char *build_id = ps_core_vmcoreinfo(&w->c, "BUILD-ID");
	if (build_id && *build_id &&
	    (when > 0 ? asprintf(&dump_id, "%s:%" PRId64, build_id, when) : asprintf(&dump_id, "%s", build_id)) < 0)
		dump_id = NULL;
	size_t plen = 0;
	FILE *pf = open_memstream(&pids, &plen);
	if (pf) {
		if (!f->npids)
			fputs("all", pf);
		for (size_t i = 0; i < f->npids; i++)
			fprintf(pf, "%s%" PRIu64, i ? "," : "", f->pids[i]);
		if (fclose(pf) != 0) {
			free(pids);
			pids = NULL;
		}
	}
	const char *slash = f->dump_path ? strrchr(f->dump_path, '/') : NULL;
	struct ps_header h = {
		.source = f->source,
		.arch = ps_walker_arch(w),
		.big_endian = ps_walker_big_endian(w),
		.page_size = ps_walker_page_size(w),
		.release = ps_walker_release(w),
		.dump = slash && slash[1] ? slash + 1 : f->dump_path,
		.dump_id = dump_id,
		.time = time_buf[0] ? time_buf : NULL,
		.excluded = excluded,
		.tags = f->tags,
		.tool = "pagesleuth-0.1",
		.pids = pids,
	};
	int rc = 0;
	if (!pids) {
		ps_set_err(err, "out of memory");
		rc = -1;
	} else if (ps_write_header(out, &h) < 0) {
		ps_set_err(err, "%s", ps_writer_error(out));
		rc = -1;
	}
	free(dump_id);
	free(pids);
	return rc;
}

/* The mm record and the VMAs (with pages) of one address space. */
/* The walk checks itself against the kernel's own count: an mm whose RSS counters say
 * hundreds of resident pages while its page tables show far fewer is being misread (a table
 * layout of a kernel this walker does not know: 6.11's 8-byte e500 PGD entries read as 4
 * showed none at all), not complete. The counters can only be below what the tables map
 * by much: the per-thread caches of SPLIT_RSS_COUNTING (before 6.2) hold page faults'
 * increments not yet added (unmapping updates the mm's counters directly), and the zero
 * page is not counted. Above it by little (pages under migration, device-private pages):
 * a shortfall of more than half, and of more than 128 pages, is flagged. */
static void check_rss(struct ps_walker *w, const struct mm_space *mm, uint64_t found)
{
	struct ps_task t;
	mm_rss_counters(w, mm, &t);
	if (t.rss_file == PS_UNKNOWN || t.rss_anon == PS_UNKNOWN || t.rss_shmem == PS_UNKNOWN)
		return;
	uint64_t counted = t.rss_file + t.rss_anon + t.rss_shmem;
	if (counted > found + 128 && found < counted / 2)
		mm_warn(w, mm->id, PS_UNKNOWN,
			"the page tables show %" PRIu64 " resident pages, the mm's RSS counters %" PRIu64
			" (file %" PRIu64 ", anon %" PRIu64 ", shmem %" PRIu64 "): pages are missing from "
			"the walk (a page-table layout this walker misreads?)",
			found, counted, t.rss_file, t.rss_anon, t.rss_shmem);
}

static int write_mm(struct ps_walker *w, struct mm_space *mm)
{
	struct ps_mm rec = { .id = mm->id, .tgid = mm->tgid, .comm = mm->comm, .kaddr = mm->kaddr,
			     .exe = "", .start_brk = PS_UNKNOWN, .brk = PS_UNKNOWN,
			     .start_stack = PS_UNKNOWN, .total_vm = PS_UNKNOWN,
			     .map_count = PS_UNKNOWN };
	size_t mlen = (size_t)mm_size(w, PS_KI_MM_STRUCT);
	if (w->trace)
		fprintf(w->trace, "mm %" PRIu64 " %" PRIx64 "\n", mm->id, mm->kaddr);
	if (!mm->readable) {
		if (ps_write_mm(w->out, &rec) < 0)
			w->write_failed = true;
		return 0;
	}
	uint64_t v;
	if (mm_get(w, mm->buf, mlen, PS_KI_MM_START_BRK, &v)) rec.start_brk = v;
	if (mm_get(w, mm->buf, mlen, PS_KI_MM_BRK, &v)) rec.brk = v;
	if (mm_get(w, mm->buf, mlen, PS_KI_MM_START_STACK, &v)) rec.start_stack = v;
	if (mm_get(w, mm->buf, mlen, PS_KI_MM_TOTAL_VM, &v)) rec.total_vm = v;
	if (mm_get(w, mm->buf, mlen, PS_KI_MM_MAP_COUNT, &v)) rec.map_count = (uint32_t)v;
	uint64_t exe_file;
	if (mm_get(w, mm->buf, mlen, PS_KI_MM_EXE_FILE, &exe_file) && exe_file) {
		struct mm_file_info fi;
		if (mm_file_info(w, exe_file, &fi) != 0)
			mm_warn(w, mm->id, PS_UNKNOWN, "cannot read the executable's path (file %" PRIx64 ")",
				exe_file);
		rec.exe = fi.path;
	}
	if (ps_write_mm(w->out, &rec) < 0) {
		w->write_failed = true;
		return -1;
	}

	struct mm_vmavec vv = { 0 };
	if (mm_collect_vmas(w, mm, &vv) < 0) {
		free(vv.v);
		return -1;
	}
	struct ps_vma *recs = calloc(vv.n ? vv.n : 1, sizeof *recs);
	if (!recs) {
		free(vv.v);
		return -1;
	}
	for (size_t i = 0; i < vv.n; i++) {
		const struct mm_vma *m = &vv.v[i];
		struct ps_vma *r = &recs[i];
		r->mm = mm->id;
		r->start = m->start;
		r->end = m->end;
		r->perm[0] = m->flags & 0x1 ? 'r' : '-';  /* VM_READ */
		r->perm[1] = m->flags & 0x2 ? 'w' : '-';  /* VM_WRITE */
		r->perm[2] = m->flags & 0x4 ? 'x' : '-';  /* VM_EXEC */
		r->perm[3] = m->flags & 0x80 ? 's' : 'p'; /* VM_MAYSHARE, as show_map_vma */
		r->vmflags = m->flags;
		r->path = "";
		if (m->file) {
			struct mm_file_info fi;
			if (mm_file_info(w, m->file, &fi) != 0)
				mm_warn(w, mm->id, m->start, "cannot read the path of the mapped file %" PRIx64,
					m->file);
			r->path = fi.path;
			r->dev_major = fi.dev_major;
			r->dev_minor = fi.dev_minor;
			r->inode = fi.inode;
			r->pgoff = m->pgoff; /* maps prints the offset only for file mappings */
		} else {
			const char *name = mm_special_name(w, mm, m, i + 1 < vv.n ? &vv.v[i + 1] : NULL);
			if (name) {
				r->path = name;
			} else if (rec.start_brk != PS_UNKNOWN && m->start <= rec.brk &&
				   m->end >= rec.start_brk) {
				r->path = "[heap]"; /* show_map_vma's test, in its order */
			} else if (rec.start_stack != PS_UNKNOWN && m->start <= rec.start_stack &&
				   m->end >= rec.start_stack) {
				r->path = "[stack]";
			} else if ((name = mm_anon_name(w, m->anon_name)) != NULL) {
				r->path = name;
			}
		}
	}
	ps_classify_vmas(&rec, recs, vv.n);

	uint64_t pgd = 0, top = 0;
	bool walk_pages = w->opt->detail != PS_DETAIL_VMAS;
	if (walk_pages) {
		if (!mm_get(w, mm->buf, mlen, PS_KI_MM_PGD, &pgd) || !mm_kptr_ok(w, pgd, 0)) {
			mm_warn(w, mm->id, PS_UNKNOWN, "mm->pgd %" PRIx64 " is not a kernel address", pgd);
			walk_pages = false;
		} else {
			top = w->c.arch->user_pgd ? w->c.arch->user_pgd(&w->c, pgd) : 0;
			if (!top && ps_kvtop(&w->c, pgd, &top) != 0)
				top = 0;
			if (!top) {
				mm_warn(w, mm->id, PS_UNKNOWN, "cannot translate mm->pgd %" PRIx64, pgd);
				walk_pages = false;
			}
		}
	}
	int rc = 0;
	uint64_t pages_before = w->res->pages, unknown_before = w->res->unknown_pages;
	for (size_t i = 0; i < vv.n && rc == 0 && !w->write_failed; i++) {
		if (w->trace)
			fprintf(w->trace, "vma %" PRIu64 " %" PRIx64 "\n", mm->id, vv.v[i].kaddr);
		if (ps_write_vma(w->out, &recs[i]) < 0) {
			w->write_failed = true;
			break;
		}
		w->res->vmas++;
		if (walk_pages) {
			rc = mm_walk_vma_pages(w, mm, top, &vv.v[i]);
		} else if (w->opt->detail != PS_DETAIL_VMAS) {
			struct ps_unknown_range u = { .mm = mm->id, .vaddr = vv.v[i].start,
				.npages = (vv.v[i].end - vv.v[i].start) >> w->c.page_shift,
				.reason = "pgtable-unreadable" };
			struct ps_vma_sum s = { .mm = mm->id, .start = vv.v[i].start };
			ps_sum_add_unknown(&s, &u);
			w->res->unknown_pages += u.npages;
			if ((w->opt->detail == PS_DETAIL_PAGES && ps_write_unknown(w->out, &u) < 0) ||
			    ps_write_sum(w->out, &s) < 0)
				w->write_failed = true;
		}
	}
	/* Unreadable ranges already explain a shortfall (and were flagged as such). */
	if (walk_pages && rc == 0 && !w->write_failed && w->res->unknown_pages == unknown_before)
		check_rss(w, mm, w->res->pages - pages_before);
	free(recs);
	free(vv.v);
	return rc;
}

int mm_write_mms(struct ps_walker *w, struct mm_tasklist *tl, size_t from, size_t to)
{
	int rc = 0;
	for (size_t i = from; i < to && rc == 0 && !w->write_failed; i++) {
		mm_progress(w, "processes", i, tl->nmm);
		rc = write_mm(w, &tl->mm[i]);
		w->res->mms++;
	}
	return rc;
}

static int emit_log(void *arg, const struct ps_klog_entry *e)
{
	struct ps_walker *w = arg;
	struct ps_log l = { .seq = e->seq, .ts_nsec = e->ts_nsec, .level = e->level,
			    .facility = e->facility, .text = e->text };
	if (ps_write_log(w->out, &l, e->text_len) < 0) {
		w->write_failed = true;
		return 1;
	}
	return 0;
}

/* The kernel log as log records (klog.c), after the frames: what the OOM killer or the
 * panic said, beside the numbers. A log that is not there (no VMCOREINFO for it) is left
 * out without a word; records that could not be read are a warn. */
static void write_log(struct ps_walker *w)
{
	struct ps_klog_stats st;
	char *err = NULL;
	int rc = ps_walker_klog(w, emit_log, w, &st, &err);
	if (rc == 1)
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "kernel log: %" PRIu64 " records could not be read (%s)",
			st.skipped, st.first_problem);
	free(err);
}

int ps_walker_run(struct ps_walker *w, struct ps_writer *out, const struct ps_walk_options *opt,
		  struct ps_walk_result *res, char **err)
{
	struct ps_walk_result local;
	if (!res)
		res = &local;
	memset(res, 0, sizeof *res);
	if (!w->c.have_kinfo) {
		ps_set_err(err, "walker: no type information installed (ps_walker_set_kinfo)");
		return -1;
	}
	if (check_layout(w, err) != 0)
		return -1;
	w->out = out;
	w->opt = opt;
	w->res = res;
	w->trace = opt->trace;
	w->warns = w->warns_written = 0;
	w->warn_cap = MAX_WARNS;
	w->write_failed = false;
	w->fatal[0] = 0;
	uint64_t pt0 = w->c.stats.pt_bytes, ps0 = w->c.stats.page_struct_bytes;

	char when[40];
	crash_time(w, when, sizeof when);
	struct ps_snapshot snap = { .seq = 0, .time = when[0] ? when : NULL, .uptime_ns = PS_UNKNOWN };
	if (ps_write_snapshot(out, &snap) < 0) {
		ps_set_err(err, "%s", ps_writer_error(out));
		return -1;
	}
	const char *why;
	if (mm_pages_init(w, &why) != 0) {
		if (why)
			ps_set_err(err, "walker: %s (kernel %s)", why,
				   w->c.release[0] ? w->c.release : "of unknown release");
		else
			ps_set_err(err, "walker: out of memory");
		return -1;
	}

	struct mm_tasklist tl = { 0 };
	int rc = mm_collect_tasks(w, &tl);
	if (rc == 0) {
		for (size_t i = 0; i < tl.n && !w->write_failed; i++) {
			struct ps_task t = tl.t[i].rec;
			t.comm = tl.t[i].comm;
			t.mm = tl.mm[t.mm].id;
			if (ps_write_task(out, &t) < 0)
				w->write_failed = true;
		}
		res->tasks = tl.n;
		if (!w->write_failed)
			rc = mm_write_mms_split(w, &tl);
	}
	mm_tasklist_free(&tl);
	if (rc == 0 && !w->write_failed && !opt->no_counters) {
		w->c.trace_reads = w->trace;
		mm_write_kcounters(w);
		mm_write_slabinfo(w);
		w->c.trace_reads = NULL;
	}
	if (rc == 0 && !w->write_failed && !opt->no_frames)
		mm_write_frames(w);
	if (rc == 0 && !w->write_failed && !opt->no_log) {
		w->c.trace_reads = w->trace;
		write_log(w);
		w->c.trace_reads = NULL;
	}
	if (w->warns > w->warns_written) {
		unsigned n = w->warns - w->warns_written;
		w->warn_cap = UINT_MAX; /* let this one through */
		mm_warn(w, PS_UNKNOWN, PS_UNKNOWN, "%u further warnings not written", n);
	}
	res->pt_bytes = w->c.stats.pt_bytes - pt0;
	res->page_struct_bytes = w->c.stats.page_struct_bytes - ps0;
	if (rc < 0 && !w->write_failed) {
		ps_set_err(err, "walker: %s", w->fatal[0] ? w->fatal : "out of memory");
		w->out = NULL;
		return -1;
	}
	if (w->write_failed || ps_write_end(out, !res->partial) < 0) {
		ps_set_err(err, "%s", ps_writer_error(out) ? ps_writer_error(out) : "write failed");
		w->out = NULL;
		return -1;
	}
	w->out = NULL;
	w->res = NULL;
	return res->partial ? 1 : 0;
}
