/* core.c - the walker's shared state: setup from a back-end, VMCOREINFO, symbols, and
 * reads in the target's byte order and pointer size.
 *
 * Kernel-virtual reads go, in order of preference, through the back-end's own translation
 * (read_kvirt), the architecture's linear rules (kvtop_direct: direct map, kernel image),
 * or the kernel's page tables (vmalloc, vmemmap) with a small direct-mapped cache of page
 * translations, so walking struct pages or a vmalloc'd table costs one lookup per page.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

int ps_core_fail(struct ps_core *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof c->err, fmt, ap);
	va_end(ap);
	return -1;
}

const char *ps_read_status_name(enum ps_read_status st)
{
	switch (st) {
	case PS_READ_OK: return "ok";
	case PS_READ_EXCLUDED: return "excluded";
	case PS_READ_NODATA: return "not in dump";
	case PS_READ_ERROR: return "read error";
	}
	return "unknown read status";
}

/* ---- VMCOREINFO ------------------------------------------------------------------- */

const char *ps_core_vmcoreinfo(const struct ps_core *c, const char *key)
{
	if (!c->t.ops || !c->t.ops->vmcoreinfo)
		return NULL;
	return c->t.ops->vmcoreinfo(c->t.ctx, key);
}

/* The kernel writes SYMBOL() and KERNELOFFSET as bare hex, NUMBER() as %ld (decimal, may be
 * negative: x86 phys_base) except where an arch writes "0x%lx" (arm64 kimage_voffset,
 * PHYS_OFFSET), SIZE/OFFSET/LENGTH/PAGESIZE as decimal. */
bool ps_core_vmcoreinfo_u64(const struct ps_core *c, const char *key, uint64_t *out)
{
	const char *v = ps_core_vmcoreinfo(c, key);
	if (!v)
		return false;
	while (*v == ' ' || *v == '\t')
		v++;
	if (!*v)
		return false;
	bool bare_hex = strncmp(key, "SYMBOL(", 7) == 0 || strcmp(key, "KERNELOFFSET") == 0;
	char *end;
	errno = 0;
	uint64_t val;
	if (bare_hex || (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))) {
		val = strtoull(v, &end, 16);
	} else if (v[0] == '-') {
		val = (uint64_t)strtoll(v, &end, 10);
	} else {
		val = strtoull(v, &end, 10);
	}
	if (errno || end == v)
		return false;
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (*end)
		return false;
	*out = val;
	return true;
}

/* ---- setup ------------------------------------------------------------------------ */

static unsigned log2_exact(uint64_t v)
{
	unsigned s = 0;
	while (s < 63 && (UINT64_C(1) << s) < v)
		s++;
	return s;
}

/* The kernel's max_pfn (variable at VA) is tighter than the dump's extent (the kdump
 * header's max_pfn covers holes and crashkernel): taken when it reads and is plausible. */
static void take_kernel_max_pfn(struct ps_core *c, uint64_t va)
{
	uint64_t kmax;
	if (ps_kread_ptr(c, va, &kmax) == PS_READ_OK && kmax > 0 &&
	    kmax < (UINT64_C(1) << (64 - c->page_shift)))
		c->max_pfn = kmax;
}

int ps_core_open(struct ps_core *c, const struct ps_target *t)
{
	memset(c, 0, sizeof *c);
	if (!t || !t->ops || !t->ops->read_phys)
		return ps_core_fail(c, "core: back-end has no physical read");
	c->t = *t;
	if (!t->arch)
		return ps_core_fail(c, "core: back-end does not name the architecture");
	c->arch = ps_arch_find(t->arch);
	if (!c->arch)
		return ps_core_fail(c, "core: unsupported architecture '%s'", t->arch);
	c->big_endian = t->big_endian;
	c->ptr_size = t->ptr_size;
	if (c->ptr_size != 4 && c->ptr_size != 8)
		return ps_core_fail(c, "core: pointer size %u is neither 4 nor 8", t->ptr_size);

	uint64_t ps = t->page_size;
	uint64_t vmci_ps;
	if (ps_core_vmcoreinfo_u64(c, "PAGESIZE", &vmci_ps)) {
		if (ps && ps != vmci_ps)
			return ps_core_fail(c, "core: dump page size %" PRIu64
					    " differs from VMCOREINFO PAGESIZE=%" PRIu64, ps, vmci_ps);
		ps = vmci_ps;
	}
	/* 32-bit ARM Linux has 4 KiB pages only, and so has ppc32 e500 (CONFIG_PPC_4K_PAGES:
	 * 16K/64K/256K pages are 44x/8xx options): QEMU's dumps of these guests name neither a
	 * page size nor VMCOREINFO. The architecture's init checks what it can. */
	if (!ps && (strcmp(c->arch->name, "arm") == 0 || strcmp(c->arch->name, "ppc32") == 0))
		ps = 4096;
	if (!ps)
		return ps_core_fail(c, "core: page size unknown (no VMCOREINFO PAGESIZE)");
	if (ps < 1024 || ps > (UINT64_C(1) << 24) || (ps & (ps - 1)))
		return ps_core_fail(c, "core: implausible page size %" PRIu64, ps);
	c->page_size = (uint32_t)ps;
	c->page_shift = log2_exact(ps);
	c->max_pfn = t->max_pfn;

	uint64_t off;
	if (ps_core_vmcoreinfo_u64(c, "KERNELOFFSET", &off))
		c->kaslr_offset = (int64_t)off;
	const char *rel = ps_core_vmcoreinfo(c, "OSRELEASE");
	if (rel)
		snprintf(c->release, sizeof c->release, "%s", rel);

	if (c->arch->init && c->arch->init(c) != 0) {
		if (!c->err[0])
			ps_core_fail(c, "core: %s initialisation failed", c->arch->name);
		ps_core_close(c); /* a failed open holds nothing; closing again is harmless */
		return -1;
	}
	/* kallsyms looked for during the architecture's setup (arm: __pv_phys_pfn_offset, not in
	 * VMCOREINFO) could not be read before kernel addresses translated: try them again. */
	if (!c->kallsyms) {
		c->kallsyms_tried = false;
		c->kallsyms_err[0] = 0;
	}

	/* Optional: a dump without symbols keeps the target's max_pfn. */
	uint64_t sym;
	if (ps_core_symbol_by_name(c, "max_pfn", &sym) == 0)
		take_kernel_max_pfn(c, sym);
	c->err[0] = 0;
	return 0;
}

void ps_core_close(struct ps_core *c)
{
	if (!c)
		return;
	ps_kallsyms_free(c->kallsyms);
	c->kallsyms = NULL;
	free(c->arch_priv);
	c->arch_priv = NULL;
}

/* Whether TASK looks like init_task: pid 0, no mm, its own real_parent, and its tasks list
 * linked both ways. */
static bool is_init_task(struct ps_core *c, uint64_t task)
{
	const struct ps_kinfo *ki = &c->ki;
	uint64_t tasks = task + (uint64_t)ki->member[PS_KI_TASK_TASKS].offset;
	uint32_t pid;
	uint64_t mm, parent, next, back;
	return ps_kread_u32(c, task + (uint64_t)ki->member[PS_KI_TASK_PID].offset, &pid) == PS_READ_OK &&
	       pid == 0 &&
	       ps_kread_ptr(c, task + (uint64_t)ki->member[PS_KI_TASK_MM].offset, &mm) == PS_READ_OK &&
	       mm == 0 &&
	       ps_kread_ptr(c, task + (uint64_t)ki->member[PS_KI_TASK_REAL_PARENT].offset, &parent) == PS_READ_OK &&
	       parent == task &&
	       ps_kread_ptr(c, tasks, &next) == PS_READ_OK && next &&
	       ps_kread_ptr(c, next + c->ptr_size, &back) == PS_READ_OK && back == tasks;
}

#define SCAN_CHUNK (64 * 1024)
#define SCAN_OVERLAP 16

/* Search [from, to) of kernel-virtual memory for init_task's comm; holes are skipped. */
static int scan_range(struct ps_core *c, uint64_t from, uint64_t to, uint8_t *buf, uint64_t *addr)
{
	const uint64_t comm_off = (uint64_t)c->ki.member[PS_KI_TASK_COMM].offset;
	/* The step never wraps past 2^64: the anchors come from the dump. */
	for (uint64_t pos = from; pos < to; pos = to - pos > SCAN_CHUNK ? pos + SCAN_CHUNK : to) {
		size_t len = SCAN_CHUNK + SCAN_OVERLAP;
		if (ps_kread(c, pos, buf, len) != PS_READ_OK) {
			/* A hole (freed init sections, unmapped gaps): search what pages there are. */
			for (size_t off = 0; off < len; off += c->page_size) {
				size_t n = len - off < c->page_size ? len - off : c->page_size;
				if (ps_kread(c, pos + off, buf + off, n) != PS_READ_OK)
					memset(buf + off, 0, n);
			}
		}
		/* task_struct is at least 8-byte aligned, so comm sits at comm_off mod 8. */
		for (size_t i = comm_off % 8; i + 10 <= len; i += 8) {
			if (buf[i] != 's' || memcmp(buf + i, "swapper", 7) != 0)
				continue;
			if (!((buf[i + 7] == '/' && buf[i + 8] == '0' && buf[i + 9] == 0) || buf[i + 7] == 0))
				continue;
			uint64_t cand = pos + i - comm_off;
			if (is_init_task(c, cand)) {
				*addr = cand;
				return 0;
			}
		}
	}
	return -1;
}

/* init_task is not in VMCOREINFO, and kallsyms holds only functions without
 * CONFIG_KALLSYMS_ALL (Debian's arm64, ppc64el and armmp kernels). It is a static object in
 * the kernel's .data, like init_uts_ns and vmap_area_list that VMCOREINFO does list: search
 * around those for the boot CPU's idle task by its name ("swapper/0" since init_idle() on
 * SMP, "swapper" otherwise) and check the candidate's links. Reads at most 2 x 24 MiB. */
static int scan_init_task(struct ps_core *c, uint64_t *addr)
{
	const struct ps_kinfo *ki = &c->ki;
	if (!ps_ki_has(ki, PS_KI_TASK_COMM) || !ps_ki_has(ki, PS_KI_TASK_PID) ||
	    !ps_ki_has(ki, PS_KI_TASK_TASKS) || !ps_ki_has(ki, PS_KI_TASK_MM) ||
	    !ps_ki_has(ki, PS_KI_TASK_REAL_PARENT))
		return -1;
	static const char *const anchors[] = { "SYMBOL(init_uts_ns)", "SYMBOL(vmap_area_list)",
					       "SYMBOL(node_online_map)", "SYMBOL(prb)" };
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < sizeof anchors / sizeof anchors[0]; i++) {
		uint64_t a;
		if (ps_core_vmcoreinfo_u64(c, anchors[i], &a) && a) {
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	}
	const uint64_t margin = 24u << 20, near = 2u << 20;
	if (hi == 0 || hi - lo > margin || lo < margin || hi > UINT64_MAX - margin)
		return -1;
	const uint64_t pmask = ~((uint64_t)c->page_size - 1);
	uint8_t *buf = malloc(SCAN_CHUNK + SCAN_OVERLAP);
	if (!buf)
		return -1;
	/* Near the anchors first (.data is a few MiB), then the wider window. */
	uint64_t near_lo = (lo - near) & pmask, near_hi = hi + near;
	int ret = scan_range(c, near_lo, near_hi, buf, addr);
	if (ret != 0)
		ret = scan_range(c, (lo - margin) & pmask, near_lo, buf, addr);
	if (ret != 0)
		ret = scan_range(c, near_hi, hi + margin, buf, addr);
	free(buf);
	return ret;
}

static const char *const symbol_names[PS_KI_NSYMBOLS] = {
#define SYMNAME(ID, NAME, REQ) [PS_KI_##ID] = NAME,
	PS_KI_SYMBOLS(SYMNAME)
#undef SYMNAME
};
static const bool symbol_required[PS_KI_NSYMBOLS] = {
#define SYMREQ(ID, NAME, REQ) [PS_KI_##ID] = (REQ) == KI_REQ,
	PS_KI_SYMBOLS(SYMREQ)
#undef SYMREQ
};

static bool symbol_needs_kallsyms(struct ps_core *c, const char *name, uint64_t *addr);
static bool load_kallsyms(struct ps_core *c);

int ps_core_set_kinfo(struct ps_core *c, const struct ps_kinfo *ki)
{
	c->ki = *ki;
	c->have_kinfo = true;
	/* What VMCOREINFO and the type information do not give, from kallsyms in one pass. */
	const char *from_kallsyms[PS_KI_NSYMBOLS];
	uint64_t kallsyms_addr[PS_KI_NSYMBOLS];
	bool in_kallsyms[PS_KI_NSYMBOLS];
	size_t nwanted = 0;
	for (int i = 0; i < PS_KI_NSYMBOLS; i++)
		from_kallsyms[i] = symbol_needs_kallsyms(c, symbol_names[i], &kallsyms_addr[i])
					   ? symbol_names[i] : NULL;
	for (int i = 0; i < PS_KI_NSYMBOLS; i++)
		nwanted += from_kallsyms[i] != NULL;
	if (nwanted && load_kallsyms(c))
		ps_kallsyms_lookup_many(c, from_kallsyms, PS_KI_NSYMBOLS, kallsyms_addr, in_kallsyms);
	else
		memset(in_kallsyms, 0, sizeof in_kallsyms);
	for (int i = 0; i < PS_KI_NSYMBOLS; i++) {
		uint64_t a = kallsyms_addr[i];
		bool known = from_kallsyms[i] ? in_kallsyms[i] : true;
		if (!known &&
		    !(i == PS_KI_INIT_TASK && scan_init_task(c, &a) == 0)) {
			a = 0;
			if (symbol_required[i]) {
				c->have_kinfo = false;
				return ps_core_fail(c, "core: symbol %s not found (VMCOREINFO, %s, kallsyms)",
						    symbol_names[i], ki->source[0] ? ki->source : "type info");
			}
		}
		c->sym[i] = a;
	}

	/* The architecture may now know what it could not before (symbols from DWARF, struct
	 * page's size): set it up again with the facts. */
	if (c->arch->init) {
		void *old = c->arch_priv;
		c->arch_priv = NULL;
		if (c->arch->init(c) != 0) {
			free(c->arch_priv);
			c->arch_priv = old; /* keep the working setup */
			if (!c->err[0])
				ps_core_fail(c, "core: %s re-initialisation failed", c->arch->name);
			return -1;
		}
		free(old);
		memset(c->kvtop_cache, 0, sizeof c->kvtop_cache);
	}

	if (c->sym[PS_KI_MAX_PFN])
		take_kernel_max_pfn(c, c->sym[PS_KI_MAX_PFN]);
	/* The release the running kernel reports, when VMCOREINFO had none. */
	if (!c->release[0] && c->sym[PS_KI_INIT_UTS_NS] && ps_ki_has(ki, PS_KI_UTS_NS_NAME) &&
	    ps_ki_has(ki, PS_KI_NEW_UTSNAME_RELEASE)) {
		uint64_t va = c->sym[PS_KI_INIT_UTS_NS] + (uint64_t)ki->member[PS_KI_UTS_NS_NAME].offset +
			      (uint64_t)ki->member[PS_KI_NEW_UTSNAME_RELEASE].offset;
		char buf[65];
		if (ps_kread_string(c, va, buf, sizeof buf) == PS_READ_OK)
			snprintf(c->release, sizeof c->release, "%s", buf);
	}
	c->err[0] = 0;
	return 0;
}

/* NAME from VMCOREINFO, else from the type information's link-time addresses: false when
 * found (in *ADDR), true when only kallsyms can say. */
static bool symbol_needs_kallsyms(struct ps_core *c, const char *name, uint64_t *addr)
{
	char key[160];
	uint64_t v;
	*addr = 0;
	if (snprintf(key, sizeof key, "SYMBOL(%s)", name) < (int)sizeof key &&
	    ps_core_vmcoreinfo_u64(c, key, &v) && v) {
		*addr = v;
		return false;
	}
	if (c->have_kinfo) {
		for (int i = 0; i < PS_KI_NSYMBOLS; i++) {
			if (c->ki.symbol[i] && strcmp(symbol_names[i], name) == 0) {
				*addr = c->ki.symbol[i] + (uint64_t)c->kaslr_offset;
				return false;
			}
		}
	}
	return true;
}

/* kallsyms, loaded at the first need: false when the dump has none (why: c->kallsyms_err). */
static bool load_kallsyms(struct ps_core *c)
{
	if (!c->kallsyms_tried) {
		c->kallsyms_tried = true;
		char saved[sizeof c->err];
		memcpy(saved, c->err, sizeof saved);
		if (ps_kallsyms_load(c) != 0) {
			snprintf(c->kallsyms_err, sizeof c->kallsyms_err, "%s", c->err);
			memcpy(c->err, saved, sizeof saved); /* an absent table is not an error here */
		}
	}
	return c->kallsyms != NULL;
}

int ps_core_symbol_by_name(struct ps_core *c, const char *name, uint64_t *addr)
{
	if (!symbol_needs_kallsyms(c, name, addr))
		return 0;
	if (load_kallsyms(c) && ps_kallsyms_lookup(c, name, addr) == 0)
		return 0;
	return -1;
}

/* ---- reads ------------------------------------------------------------------------ */

enum ps_read_status ps_pread(struct ps_core *c, uint64_t pa, void *buf, size_t len)
{
	if (len == 0)
		return PS_READ_OK;
	if (pa + len < pa)
		return PS_READ_ERROR;
	c->stats.reads++;
	if (c->trace_reads)
		fprintf(c->trace_reads, "kobj %" PRIx64 " %zu\n", pa, len);
	return c->t.ops->read_phys(c->t.ctx, pa, buf, len);
}

int ps_kvtop(struct ps_core *c, uint64_t va, uint64_t *pa)
{
	if (c->arch->kvtop_direct && c->arch->kvtop_direct(c, va, pa))
		return 0;
	uint64_t mask = (uint64_t)c->page_size - 1;
	uint64_t vpage = va & ~mask;
	if (vpage == 0)
		return -1;
	unsigned slot = (unsigned)((va >> c->page_shift) % PS_KVTOP_CACHE);
	if (c->kvtop_cache[slot].vpage == vpage) {
		*pa = c->kvtop_cache[slot].ppage | (va & mask);
		return 0;
	}
	uint64_t top = c->arch->kernel_pgd ? c->arch->kernel_pgd(c) : 0;
	if (!top)
		return -1;
	uint64_t p;
	if (ps_pt_translate(c, top, vpage, &p) != 0)
		return -1;
	c->kvtop_cache[slot].vpage = vpage;
	c->kvtop_cache[slot].ppage = p & ~mask;
	*pa = (p & ~mask) | (va & mask);
	return 0;
}

enum ps_read_status ps_kread(struct ps_core *c, uint64_t va, void *buf, size_t len)
{
	if (len == 0)
		return PS_READ_OK;
	if (va + len < va)
		return PS_READ_ERROR;
	c->stats.other_bytes += len;
	if (c->t.ops->read_kvirt) {
		c->stats.reads++;
		return c->t.ops->read_kvirt(c->t.ctx, va, buf, len);
	}
	uint8_t *out = buf;
	uint64_t psz = c->page_size;
	/* Translate page by page, but read physically contiguous runs with one call. */
	uint64_t run_pa = 0, run_len = 0;
	uint8_t *run_buf = out;
	while (len > 0) {
		uint64_t chunk = psz - (va & (psz - 1));
		if (chunk > len)
			chunk = len;
		uint64_t pa;
		if (ps_kvtop(c, va, &pa) != 0) {
			if (run_len) {
				enum ps_read_status st = ps_pread(c, run_pa, run_buf, run_len);
				if (st != PS_READ_OK)
					return st;
			}
			return PS_READ_NODATA; /* not mapped: the address is not in the dump */
		}
		if (run_len && run_pa + run_len == pa) {
			run_len += chunk;
		} else {
			if (run_len) {
				enum ps_read_status st = ps_pread(c, run_pa, run_buf, run_len);
				if (st != PS_READ_OK)
					return st;
			}
			run_pa = pa;
			run_len = chunk;
			run_buf = out;
		}
		out += chunk;
		va += chunk;
		len -= chunk;
	}
	return ps_pread(c, run_pa, run_buf, run_len);
}

/* ---- typed loads ------------------------------------------------------------------ */

uint64_t ps_member(const struct ps_core *c, const void *buf, enum ps_ki_member id)
{
	const struct ps_kinfo_member *m = &c->ki.member[id];
	if (m->offset == PS_KI_ABSENT || m->offset < 0)
		return 0;
	const uint8_t *p = (const uint8_t *)buf + m->offset;
	switch (m->size) {
	case 1: return *p;
	case 2: return ps_load_u16(c, p);
	case 4: return ps_load_u32(c, p);
	case 8: return ps_load_u64(c, p);
	default: return 0; /* arrays and structs are not scalars: read them yourself */
	}
}

enum ps_read_status ps_kread_u32(struct ps_core *c, uint64_t va, uint32_t *out)
{
	uint8_t b[4];
	enum ps_read_status st = ps_kread(c, va, b, sizeof b);
	if (st == PS_READ_OK)
		*out = ps_load_u32(c, b);
	return st;
}

enum ps_read_status ps_kread_u64(struct ps_core *c, uint64_t va, uint64_t *out)
{
	uint8_t b[8];
	enum ps_read_status st = ps_kread(c, va, b, sizeof b);
	if (st == PS_READ_OK)
		*out = ps_load_u64(c, b);
	return st;
}

enum ps_read_status ps_kread_ptr(struct ps_core *c, uint64_t va, uint64_t *out)
{
	uint8_t b[8];
	enum ps_read_status st = ps_kread(c, va, b, c->ptr_size);
	if (st == PS_READ_OK)
		*out = ps_load_ptr(c, b);
	return st;
}

enum ps_read_status ps_kread_string(struct ps_core *c, uint64_t va, char *out, size_t cap)
{
	if (cap == 0)
		return PS_READ_ERROR;
	size_t got = 0;
	out[0] = 0;
	/* Read up to the end of each page only: the string may end right before an unreadable
	 * page, and reading past its NUL must not fail the whole read. */
	while (got + 1 < cap) {
		uint64_t room = c->page_size - ((va + got) & (c->page_size - 1));
		size_t want = cap - 1 - got;
		if (want > room)
			want = (size_t)room;
		enum ps_read_status st = ps_kread(c, va + got, out + got, want);
		if (st != PS_READ_OK) {
			out[got] = 0;
			return st;
		}
		void *nul = memchr(out + got, 0, want);
		if (nul)
			return PS_READ_OK;
		got += want;
	}
	out[got] = 0;
	return PS_READ_OK;
}

size_t ps_kread_upto(struct ps_core *c, uint64_t va, void *buf, size_t len)
{
	uint8_t *out = buf;
	size_t got = 0;
	const size_t step = 1024 * 1024; /* long runs: a kdump reads them past its cache (dump.c) */
	while (got < len) {
		size_t want = len - got < step ? len - got : step;
		if (ps_kread(c, va + got, out + got, want) == PS_READ_OK) {
			got += want;
			continue;
		}
		/* Page by page up to the failure. */
		while (want > 0) {
			size_t room = c->page_size - ((va + got) & (c->page_size - 1));
			size_t n = room < want ? room : want;
			if (ps_kread(c, va + got, out + got, n) != PS_READ_OK)
				return got;
			got += n;
			want -= n;
		}
	}
	return got;
}
