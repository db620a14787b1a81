/* fuzz_walker_arch.c - libFuzzer harness for the whole walker on the other architectures:
 * ppc64 (radix and hash MMU, 4K and 64K pages, ppc64le and big-endian ppc64), 32-bit ARM
 * (short descriptors and LPAE, FLATMEM and SPARSEMEM, little- and big-endian) and ppc32
 * Book-E (e500 with 64- or 32-bit PTEs, 44x with 4K to 256K pages, a relocated kernel).
 * fuzz_walker.c does the same for x86_64 (and arm64 page tables).
 *
 * Every configuration is a small complete kernel built once at start-up in 8 MiB of
 * "physical memory", in the target's byte order and pointer size (ppc64 page-table entries
 * are big-endian on either): init_task, a kernel thread and a two-thread process on the task
 * list; its mm_struct with a maple tree (and the same VMAs on an mmap list for older
 * layouts) of three VMAs: a file mapping with a dentry/mount chain, an anonymous one with
 * present, swapped and empty PTEs, and a 2 MiB THP mapped by a PMD where the MMU has one
 * (else two small pages); user page tables; the kernel's own tables (swapper_pg_dir: the
 * linear map on 32-bit, vmemmap on ppc64); struct pages through vmemmap (+ vmemmap_list),
 * FLATMEM's contig_page_data or SPARSEMEM's mem_section, and page_ext on 32-bit. VMCOREINFO
 * names what each kernel exports. The start-up checks that each unpatched kernel reads as a
 * complete snapshot of exactly those pages, so the fuzzer starts from the real paths.
 *
 * An input: [config][options][VMCOREINFO groups dropped][variant] then patches aimed at the
 * kernel's objects, each [object][offset u16 LE][control] followed by
 *   control 0x00-0x7f: (control & 31) + 1 raw bytes;
 *   control 0x80-0xbf: [object][offset u16]: a kernel pointer to there, in the target's
 *                      pointer size and byte order;
 *   control 0xc0-0xff: [object][offset u16]: a page-table entry pointing to there as a
 *                      table of the next level (level = control & 3; control & 0x20: 8 MiB
 *                      further, past the end of memory and of lowmem).
 * so that cyclic and self-referencing tables, PGD entries to kernel addresses outside lowmem
 * (ppc32) and pointer loops are a few bytes away. Options: detail, excluded user pages, pid
 * filter, trace, max_tasks, no sizeof(pte_t) in the type information, and a bare
 * ps_pt_walk of the whole user space (and kernel translations) after the snapshot. Variant:
 * VMAs from the mmap list instead of the maple tree, a back-end that does not know the page
 * size or max_pfn, which table the bare walk starts from, and (bit 7) one VMCOREINFO value
 * replaced: [key index][u32 LE] after the header (a symbol: that far past the kernel's base).
 *
 * Must never crash, leak, hang or trip UBSan; the snapshot written must read back; ps_pt_walk
 * must keep its documented contract (ascending events inside the range, never empty).
 *
 * Build: make B=DIR DIR/fuzz/fuzz_walker_arch. Run: tests/cases/fuzz_walker.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "kinfo.h"
#include "mm_internal.h"
#include "records.h"
#include "fuzz_patch.h"
#include "fuzz_readback.h"
#include "walker.h"

#define MEM_SIZE (UINT64_C(8) << 20)
#define KERNEL_AREA (UINT64_C(2) << 20) /* kernel objects below, user frames above */
#define THP_OFF (UINT64_C(4) << 20)     /* the 2 MiB frame of the THP */

enum family { F_PPC64, F_ARM, F_PPC32 };
enum { PPC64_RADIX, PPC64_HASH };
enum { ARM_SHORT, ARM_LPAE };
enum { E500_64, E500_32, PPC44X };

struct config {
	const char *name;
	enum family fam;
	int mmu;       /* PPC64_*, ARM_*, or the ppc32 flavour */
	bool be;       /* the target's byte order */
	uint32_t page;
	bool sparse;   /* 32-bit: SPARSEMEM's mem_section, else FLATMEM */
	uint64_t phys; /* PA of the start of memory (PHYS_OFFSET, a relocated ppc32 kernel) */
};

static const struct config configs[] = {
	{ "ppc64le-radix-64k", F_PPC64, PPC64_RADIX, false, 65536, false, 0 },
	{ "ppc64le-radix-4k", F_PPC64, PPC64_RADIX, false, 4096, false, 0 },
	{ "ppc64le-hash-64k", F_PPC64, PPC64_HASH, false, 65536, false, 0 },
	{ "ppc64le-hash-4k", F_PPC64, PPC64_HASH, false, 4096, false, 0 },
	{ "ppc64-radix-64k", F_PPC64, PPC64_RADIX, true, 65536, false, 0 },
	{ "ppc64-radix-4k", F_PPC64, PPC64_RADIX, true, 4096, false, 0 },
	{ "ppc64-hash-64k", F_PPC64, PPC64_HASH, true, 65536, false, 0 },
	{ "ppc64-hash-4k", F_PPC64, PPC64_HASH, true, 4096, false, 0 },
	{ "arm-flat", F_ARM, ARM_SHORT, false, 4096, false, UINT64_C(0x40000000) },
	{ "armeb-sparse", F_ARM, ARM_SHORT, true, 4096, true, UINT64_C(0x80000000) },
	{ "arm-lpae-sparse", F_ARM, ARM_LPAE, false, 4096, true, UINT64_C(0x40000000) },
	{ "armeb-lpae-flat", F_ARM, ARM_LPAE, true, 4096, false, UINT64_C(0x60000000) },
	{ "ppc32-e500-64", F_PPC32, E500_64, true, 4096, false, 0 },
	{ "ppc32-e500-32-sparse", F_PPC32, E500_32, true, 4096, true, 0 },
	{ "ppc32-44x-4k-sparse", F_PPC32, PPC44X, true, 4096, true, 0 },
	{ "ppc32-44x-16k", F_PPC32, PPC44X, true, 16384, false, 0 },
	{ "ppc32-44x-64k-reloc", F_PPC32, PPC44X, true, 65536, false, UINT64_C(0x4000000) },
	{ "ppc32-44x-256k", F_PPC32, PPC44X, true, 262144, false, 0 },
};
#define NCONFIGS (sizeof configs / sizeof configs[0])

/* The objects a patch can aim at. */
enum obj {
	O_GLOBALS, O_KPGD, O_KTABLES, O_INIT_TASK, O_TASK_A, O_TASK_THREAD, O_TASK_KTHREAD,
	O_SIGNAL, O_MM, O_MAPLE, O_VMAS, O_FILES, O_UPGD, O_UTABLES, O_PAGES, O_MEMMAP,
	O_PAGE_EXT, O_DATA, O_ANY, O_COUNT
};

/* VMCOREINFO groups an input may drop (byte 2's bits). */
enum {
	G_SWAPPER = 1, G_HIGHMEM = 2, G_MMU = 4, G_VMEMMAP = 8, G_MAXPFN = 16, G_MEMMAP = 32,
	G_MISC = 64, G_SIZES = 128,
};

struct level {
	unsigned shift, bits, esz;
	uint64_t alloc; /* bytes (and alignment) of one table */
};

struct image {
	const struct config *cfg;
	uint8_t *mem;
	uint64_t base, npfn, pfn0;
	unsigned ptr, pshift, psize; /* pointer size, page shift, sizeof(struct page) */
	uint64_t page_offset;        /* KVA of PA 0 (ppc64) or of base (32-bit) */
	uint64_t bump;
	unsigned nlevels;
	struct level lv[4];
	bool thp;
	uint64_t user_pgd, kernel_pgd, pages, page_ext, vmemmap, user_va_end;
	struct ps_kinfo ki;
	struct { const char *key; char val[40]; unsigned group; } vmci[48];
	unsigned nvmci;
	struct { uint64_t pa, len; } objs[O_COUNT];
	uint64_t want_pages;
};

static struct image images[NCONFIGS];
static FILE *devnull;
/* FUZZ_WALKER_ARCH=ppc64|arm|ppc32: only that family's configurations (byte 0 picks among
 * them), to give one architecture the whole run. */
static size_t chosen[NCONFIGS], nchosen;

static void die(const struct image *im, const char *what)
{
	fprintf(stderr, "fuzz_walker_arch: %s: set-up failed: %s\n", im ? im->cfg->name : "-", what);
	abort();
}

/* ---- writing the target's memory ----------------------------------------------------------- */

static uint8_t *at(struct image *im, uint64_t pa, uint64_t n)
{
	if (pa < im->base || pa - im->base > MEM_SIZE || n > MEM_SIZE - (pa - im->base))
		die(im, "template write outside memory");
	return im->mem + (pa - im->base);
}

static void put_order(struct image *im, uint64_t pa, uint64_t v, unsigned n, bool be)
{
	uint8_t *p = at(im, pa, n);
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(be ? v >> (8 * (n - 1 - i)) : v >> (8 * i));
}
static uint64_t get_order(struct image *im, uint64_t pa, unsigned n, bool be)
{
	const uint8_t *p = at(im, pa, n);
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (be ? 8 * (n - 1 - i) : 8 * i);
	return v;
}
static void put(struct image *im, uint64_t pa, uint64_t v, unsigned n) { put_order(im, pa, v, n, im->cfg->be); }
static void putp(struct image *im, uint64_t pa, uint64_t v) { put(im, pa, v, im->ptr); }

static int64_t off_of(struct image *im, enum ps_ki_member id)
{
	if (im->ki.member[id].offset == PS_KI_ABSENT)
		die(im, ps_ki_member_name(id));
	return im->ki.member[id].offset;
}
static void putm(struct image *im, uint64_t base, enum ps_ki_member id, uint64_t v)
{
	uint32_t sz = im->ki.member[id].size;
	put(im, base + (uint64_t)off_of(im, id), v, sz < 8 ? sz : 8);
}

/* Page-table entries: ppc64's are __be64 on either byte order, ppc32 is big-endian. */
static bool entries_be(const struct image *im)
{
	return im->cfg->fam == F_ARM ? im->cfg->be : true;
}

static uint64_t kva(const struct image *im, uint64_t pa)
{
	return im->cfg->fam == F_PPC64 ? im->page_offset + pa : im->page_offset + (pa - im->base);
}

static uint64_t alloc(struct image *im, uint64_t bytes, uint64_t align)
{
	if (align < 8)
		align = 8;
	uint64_t pa = (im->bump + align - 1) & ~(align - 1);
	if (pa + bytes > im->base + KERNEL_AREA)
		die(im, "kernel objects do not fit");
	im->bump = pa + bytes;
	return pa;
}

static void obj(struct image *im, enum obj o, uint64_t pa, uint64_t len)
{
	im->objs[o].pa = pa, im->objs[o].len = len;
}

/* ---- the architectures' page tables ---------------------------------------------------------- */

#define PPC_EXEC UINT64_C(0x1)
#define PPC_WRITE UINT64_C(0x2)
#define PPC_READ UINT64_C(0x4)
#define PPC_PRIVILEGED UINT64_C(0x8)
#define PPC_DIRTY UINT64_C(0x80)
#define PPC_ACCESSED UINT64_C(0x100)
#define PPC_PTE (UINT64_C(1) << 62)
#define PPC_PRESENT (UINT64_C(1) << 63)

static void set_geometry(struct image *im)
{
	const struct config *c = im->cfg;
	unsigned ps = im->pshift;
	if (c->fam == F_PPC64) {
		static const unsigned bits[2][2][4] = {
			[PPC64_RADIX] = { { 13, 9, 9, 9 }, { 13, 9, 9, 5 } },
			[PPC64_HASH] = { { 9, 9, 7, 9 }, { 8, 10, 10, 8 } },
		};
		const unsigned *b = bits[c->mmu][ps == 16];
		im->nlevels = 4;
		unsigned shift = ps;
		for (int i = 3; i >= 0; i--) {
			im->lv[i] = (struct level){ shift, b[i], 8, UINT64_C(8) << b[i] };
			shift += b[i];
		}
		if (c->mmu == PPC64_HASH && ps == 16)
			im->lv[3].alloc *= 2; /* the hidx half of a 64K PTE fragment */
		im->thp = !(c->mmu == PPC64_HASH && ps == 16); /* hash 64K PMDs span 16 MiB */
		im->user_va_end = ps == 16 ? UINT64_C(1) << 52 : UINT64_C(1) << 46;
	} else if (c->fam == F_ARM && c->mmu == ARM_SHORT) {
		im->nlevels = 2;
		im->lv[0] = (struct level){ 21, 11, 8, 16384 };
		im->lv[1] = (struct level){ 12, 9, 4, 4096 }; /* Linux's PTEs, then the hardware's */
		im->thp = false;
		im->user_va_end = UINT64_C(0xbf000000);
	} else if (c->fam == F_ARM) {
		im->nlevels = 3;
		im->lv[0] = (struct level){ 30, 2, 8, 32 };
		im->lv[1] = (struct level){ 21, 9, 8, 4096 };
		im->lv[2] = (struct level){ 12, 9, 8, 4096 };
		im->thp = true;
		im->user_va_end = UINT64_C(0xbf000000);
	} else {
		unsigned esz = c->mmu == E500_32 ? 4 : 8;
		unsigned pte_shift = ps - (esz == 8 ? 3 : 2) - (ps == 18 ? 2 : 0);
		im->nlevels = 2;
		im->lv[0] = (struct level){ ps + pte_shift, 32 - ps - pte_shift, 4, UINT64_C(4) << (32 - ps - pte_shift) };
		im->lv[1] = (struct level){ ps, pte_shift, esz, (uint64_t)esz << pte_shift };
		im->thp = false;
		im->user_va_end = UINT64_C(0xc0000000);
	}
}

/* The entry at LEVEL (< nlevels - 1) making TABLE_PA the next level's table. */
static uint64_t table_entry(const struct image *im, unsigned level, uint64_t table_pa)
{
	switch (im->cfg->fam) {
	case F_PPC64:
		return PPC_PRESENT | table_pa | (im->cfg->mmu == PPC64_RADIX ? im->lv[level + 1].bits : 0);
	case F_ARM:
		if (im->cfg->mmu == ARM_LPAE)
			return table_pa | 3;
		/* pmd[0] -> h/w pt 0 (page + 2048), pmd[1] -> h/w pt 1, in memory order. */
		{
			uint64_t w0 = (table_pa + 2048) | 1, w1 = (table_pa + 3072) | 1;
			return im->cfg->be ? (w0 << 32 | (w1 & 0xffffffff)) : (w1 << 32 | (w0 & 0xffffffff));
		}
	case F_PPC32:
		return kva(im, table_pa) & 0xffffffff; /* Book-E: the PTE page's kernel address */
	}
	return 0;
}

/* The next table's PA from an entry written by table_entry, 0 if none. */
static uint64_t table_of(struct image *im, unsigned level, uint64_t ep)
{
	uint64_t raw = get_order(im, ep, im->lv[level].esz, entries_be(im));
	if (!raw)
		return 0;
	switch (im->cfg->fam) {
	case F_PPC64: return raw & UINT64_C(0x00ffffffffffff00);
	case F_ARM:
		if (im->cfg->mmu == ARM_LPAE)
			return raw & UINT64_C(0x000000fffffff000);
		return (im->cfg->be ? raw >> 32 : raw) & 0xfffff000;
	case F_PPC32: return raw - im->page_offset + im->base;
	}
	return 0;
}

/* The PA of VA's entry at LEVEL in the tables at TOP, creating the tables above it. */
static uint64_t entry_pa(struct image *im, uint64_t top, uint64_t va, unsigned level)
{
	uint64_t table = top;
	for (unsigned l = 0;; l++) {
		const struct level *L = &im->lv[l];
		uint64_t ep = table + ((va >> L->shift) & ((UINT64_C(1) << L->bits) - 1)) * L->esz;
		if (l == level)
			return ep;
		uint64_t next = table_of(im, l, ep);
		if (!next) {
			next = alloc(im, im->lv[l + 1].alloc, im->lv[l + 1].alloc);
			put_order(im, ep, table_entry(im, l, next), L->esz, entries_be(im));
		}
		table = next;
	}
}

enum leaf_kind { USER_RX, USER_RW, KERNEL };

/* A present leaf at LEVEL mapping PA. */
static uint64_t leaf_entry(const struct image *im, unsigned level, uint64_t pa, enum leaf_kind k)
{
	bool last = level + 1 == im->nlevels;
	switch (im->cfg->fam) {
	case F_PPC64: {
		uint64_t e = PPC_PTE | PPC_PRESENT | PPC_READ | PPC_ACCESSED | pa;
		if (k == USER_RX)
			e |= PPC_EXEC;
		if (k != USER_RX)
			e |= PPC_WRITE | PPC_DIRTY;
		if (k == KERNEL)
			e |= PPC_PRIVILEGED;
		return e;
	}
	case F_ARM:
		if (im->cfg->mmu == ARM_SHORT) /* PRESENT YOUNG DIRTY RDONLY USER XN */
			return pa | 0x1 | 0x2 | (k == USER_RX ? 0x80 : 0x40) | (k != KERNEL ? 0x100 : 0) |
			       (k != USER_RX ? 0x200 : 0);
		return pa | (last ? 3 : 1) | (UINT64_C(1) << 10) | (k != KERNEL ? UINT64_C(1) << 6 : 0) |
		       (k == USER_RX ? UINT64_C(1) << 58 : UINT64_C(1) << 55) | (k != USER_RX ? UINT64_C(1) << 54 : 0);
	case F_PPC32:
		switch (im->cfg->mmu) {
		case E500_64: /* RPN from bit 24; SR|UR, SW|UW, SX|UX, ACCESSED, DIRTY; 4K size field */
			return ((pa >> 12) << 24) | 0x1 | 0x200 | 0x40000 | (k != KERNEL ? 0xc : 0) |
			       (k != USER_RX ? 0x30 | 0x1000 : 0xc0);
		case E500_32:
			return pa | 0x1 | 0x20 | (k != KERNEL ? 0x2 : 0) | (k != USER_RX ? 0x4 | 0x8 : 0x10);
		default: /* 44x */
			return pa | 0x1 | 0x8 | (k != KERNEL ? 0x40 : 0) | (k != USER_RX ? 0x2 | 0x10 : 0x4);
		}
	}
	(void)level;
	return 0;
}

static uint64_t swap_entry(const struct image *im, uint64_t type, uint64_t off)
{
	switch (im->cfg->fam) {
	case F_PPC64: return PPC_PTE | type | (off << im->pshift);
	case F_ARM: return (type << 2) | (off << 7);
	case F_PPC32: return ((off << 5 | type) << 3) & 0xffffffff;
	}
	return 0;
}

static void map_page(struct image *im, uint64_t top, uint64_t va, uint64_t pa, enum leaf_kind k)
{
	unsigned last = im->nlevels - 1;
	put_order(im, entry_pa(im, top, va, last), leaf_entry(im, last, pa, k), im->lv[last].esz, entries_be(im));
}

/* ---- the type information ------------------------------------------------------------------ */

static void mem(struct ps_kinfo *ki, enum ps_ki_member id, int64_t off, uint32_t size, uint32_t n)
{
	ki->member[id] = (struct ps_kinfo_member){ off, size, n };
}

static void build_kinfo(struct image *im)
{
	struct ps_kinfo *ki = &im->ki;
	const unsigned P = im->ptr;
	ps_kinfo_init(ki);
	snprintf(ki->source, sizeof ki->source, "fuzz:%s", im->cfg->name);
	mem(ki, PS_KI_TASK_STATE, 0, 4, 0);
	mem(ki, PS_KI_TASK_FLAGS, 4, 4, 0);
	mem(ki, PS_KI_TASK_TASKS, 16, 2 * P, 0);
	mem(ki, PS_KI_TASK_PID, 48, 4, 0);
	mem(ki, PS_KI_TASK_TGID, 52, 4, 0);
	mem(ki, PS_KI_TASK_MM, 56, P, 0);
	mem(ki, PS_KI_TASK_EXIT_STATE, 64, 4, 0);
	mem(ki, PS_KI_TASK_REAL_PARENT, 72, P, 0);
	mem(ki, PS_KI_TASK_SIGNAL, 80, P, 0);
	mem(ki, PS_KI_TASK_THREAD_NODE, 96, 2 * P, 0);
	mem(ki, PS_KI_TASK_MIN_FLT, 112, P, 0);
	mem(ki, PS_KI_TASK_MAJ_FLT, 120, P, 0);
	mem(ki, PS_KI_TASK_UTIME, 128, 8, 0);
	mem(ki, PS_KI_TASK_STIME, 136, 8, 0);
	mem(ki, PS_KI_TASK_START_TIME, 144, 8, 0);
	mem(ki, PS_KI_TASK_COMM, 160, 16, 16);
	mem(ki, PS_KI_SIGNAL_THREAD_HEAD, 16, 2 * P, 0);
	mem(ki, PS_KI_MM_MT, 0, 24, 0);
	mem(ki, PS_KI_MAPLE_TREE_ROOT, 8, P, 0);
	mem(ki, PS_KI_MAPLE_TREE_FLAGS, 16, 4, 0);
	mem(ki, PS_KI_MM_PGD, 32, P, 0);
	mem(ki, PS_KI_MM_START_BRK, 40, P, 0);
	mem(ki, PS_KI_MM_BRK, 48, P, 0);
	mem(ki, PS_KI_MM_START_STACK, 56, P, 0);
	mem(ki, PS_KI_MM_TOTAL_VM, 64, P, 0);
	mem(ki, PS_KI_MM_MAP_COUNT, 72, 4, 0);
	mem(ki, PS_KI_MM_EXE_FILE, 80, P, 0);
	mem(ki, PS_KI_MM_RSS_STAT, 96, 4 * P, 0);
	mem(ki, PS_KI_MM_MMAP, 128, P, 0); /* the list of older kernels, dropped per input */
	mem(ki, PS_KI_MAPLE_NODE_PARENT, 0, P, 0);
	if (P == 8) {
		mem(ki, PS_KI_MAPLE_RANGE64_PIVOT, 8, 120, 15);
		mem(ki, PS_KI_MAPLE_RANGE64_SLOT, 128, 128, 16);
		mem(ki, PS_KI_MAPLE_RANGE64_META, 248, 2, 0);
		mem(ki, PS_KI_MAPLE_ARANGE64_PIVOT, 8, 72, 9);
		mem(ki, PS_KI_MAPLE_ARANGE64_SLOT, 80, 80, 10);
		mem(ki, PS_KI_MAPLE_ARANGE64_META, 240, 2, 0);
	} else {
		mem(ki, PS_KI_MAPLE_RANGE64_PIVOT, 4, 124, 31);
		mem(ki, PS_KI_MAPLE_RANGE64_SLOT, 128, 128, 32);
		mem(ki, PS_KI_MAPLE_RANGE64_META, 252, 2, 0);
		mem(ki, PS_KI_MAPLE_ARANGE64_PIVOT, 4, 80, 20);
		mem(ki, PS_KI_MAPLE_ARANGE64_SLOT, 84, 84, 21);
		mem(ki, PS_KI_MAPLE_ARANGE64_META, 252, 2, 0);
	}
	mem(ki, PS_KI_VMA_START, 0, P, 0);
	mem(ki, PS_KI_VMA_END, P, P, 0);
	mem(ki, PS_KI_VMA_MM, 2 * P, P, 0);
	mem(ki, PS_KI_VMA_FLAGS, 3 * P, P, 0);
	mem(ki, PS_KI_VMA_ANON_NAME, 4 * P, P, 0);
	mem(ki, PS_KI_VMA_ANON_VMA, 5 * P, P, 0);
	mem(ki, PS_KI_VMA_OPS, 6 * P, P, 0);
	mem(ki, PS_KI_VMA_PGOFF, 7 * P, P, 0);
	mem(ki, PS_KI_VMA_FILE, 8 * P, P, 0);
	mem(ki, PS_KI_VMA_PRIVATE_DATA, 9 * P, P, 0);
	mem(ki, PS_KI_VMA_NEXT, 10 * P, P, 0);
	mem(ki, PS_KI_FILE_PATH_MNT, 2 * P, P, 0);
	mem(ki, PS_KI_FILE_PATH_DENTRY, 3 * P, P, 0);
	mem(ki, PS_KI_FILE_INODE, 4 * P, P, 0);
	mem(ki, PS_KI_DENTRY_HASH_PPREV, 16, P, 0);
	mem(ki, PS_KI_DENTRY_PARENT, 24, P, 0);
	mem(ki, PS_KI_DENTRY_NAME_LEN, 36, 4, 0);
	mem(ki, PS_KI_DENTRY_NAME, 40, P, 0);
	mem(ki, PS_KI_MOUNT_PARENT, 16, P, 0);
	mem(ki, PS_KI_MOUNT_MOUNTPOINT, 24, P, 0);
	mem(ki, PS_KI_MOUNT_MNT, 32, 4 * P, 0);
	mem(ki, PS_KI_VFSMOUNT_ROOT, 0, P, 0);
	mem(ki, PS_KI_INODE_SB, 40, P, 0);
	mem(ki, PS_KI_INODE_INO, 64, P, 0);
	mem(ki, PS_KI_SB_DEV, 16, 4, 0);
	if (P == 8) {
		mem(ki, PS_KI_PAGE_FLAGS, 0, 8, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_HEAD, 8, 8, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_DTOR, 16, 1, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_ORDER, 17, 1, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_MAPCOUNT, 20, 4, 0);
		mem(ki, PS_KI_PAGE_MAPPING, 24, 8, 0);
		mem(ki, PS_KI_PAGE_MAPCOUNT, 48, 4, 0);
		mem(ki, PS_KI_PAGE_TYPE, 48, 4, 0);
		mem(ki, PS_KI_PAGE_REFCOUNT, 52, 4, 0);
	} else {
		mem(ki, PS_KI_PAGE_FLAGS, 0, 4, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_HEAD, 4, 4, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_DTOR, 8, 1, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_ORDER, 9, 1, 0);
		mem(ki, PS_KI_PAGE_COMPOUND_MAPCOUNT, 12, 4, 0);
		mem(ki, PS_KI_PAGE_MAPPING, 12, 4, 0);
		mem(ki, PS_KI_PAGE_MAPCOUNT, 24, 4, 0);
		mem(ki, PS_KI_PAGE_TYPE, 24, 4, 0);
		mem(ki, PS_KI_PAGE_REFCOUNT, 28, 4, 0);
		/* 32-bit: PG_idle/PG_young in page_ext */
		mem(ki, PS_KI_PAGE_EXT_FLAGS, 0, 4, 0);
		ki->size[PS_KI_PAGE_EXT] = 4;
		ki->enumval[PS_KI_PAGE_EXT_YOUNG] = 2;
		ki->enumval[PS_KI_PAGE_EXT_IDLE] = 3;
	}
	mem(ki, PS_KI_PGDAT_NODE_MEM_MAP, 8, P, 0);
	mem(ki, PS_KI_PGDAT_NODE_PAGE_EXT, 16, P, 0);
	mem(ki, PS_KI_PGDAT_NODE_START_PFN, 24, P, 0);
	mem(ki, PS_KI_PGDAT_NODE_SPANNED_PAGES, 32, P, 0);
	mem(ki, PS_KI_UTS_NS_NAME, 4, 390, 0);
	mem(ki, PS_KI_NEW_UTSNAME_RELEASE, 65, 65, 65);
	mem(ki, PS_KI_MEM_SECTION_MAP, 0, P, 0);
	mem(ki, PS_KI_MEM_SECTION_PAGE_EXT, P, P, 0);
	unsigned pte = im->lv[im->nlevels - 1].esz;
	mem(ki, PS_KI_VM_FAULT_ORIG_PTE, 32, pte, 0); /* sizeof(pte_t) */
	ki->size[PS_KI_TASK_STRUCT] = 1024;
	ki->size[PS_KI_MM_STRUCT] = 256;
	ki->size[PS_KI_VM_AREA_STRUCT] = 12 * P;
	ki->size[PS_KI_PAGE] = im->psize;
	ki->size[PS_KI_MAPLE_NODE] = 256;
	ki->size[PS_KI_MEM_SECTION_STRUCT] = 2 * P;
	static const struct { enum ps_ki_enum id; int64_t v; } enums[] = {
		{ PS_KI_PG_LOCKED, 0 }, { PS_KI_PG_REFERENCED, 1 }, { PS_KI_PG_UPTODATE, 2 },
		{ PS_KI_PG_DIRTY, 3 }, { PS_KI_PG_LRU, 4 }, { PS_KI_PG_ACTIVE, 5 },
		{ PS_KI_PG_WORKINGSET, 6 }, { PS_KI_PG_ERROR, 8 }, { PS_KI_PG_SLAB, 9 },
		{ PS_KI_PG_OWNER_PRIV_1, 10 }, { PS_KI_PG_ARCH_1, 11 }, { PS_KI_PG_RESERVED, 12 },
		{ PS_KI_PG_PRIVATE, 13 }, { PS_KI_PG_PRIVATE_2, 14 }, { PS_KI_PG_WRITEBACK, 15 },
		{ PS_KI_PG_HEAD, 16 }, { PS_KI_PG_MAPPEDTODISK, 17 }, { PS_KI_PG_RECLAIM, 18 },
		{ PS_KI_PG_SWAPBACKED, 19 }, { PS_KI_PG_UNEVICTABLE, 20 }, { PS_KI_PG_MLOCKED, 21 },
		{ PS_KI_PG_SWAPCACHE, 10 }, { PS_KI_PG_DOUBLE_MAP, 6 }, { PS_KI_NR_MM_COUNTERS, 4 },
		{ PS_KI_MM_FILEPAGES, 0 }, { PS_KI_MM_ANONPAGES, 1 }, { PS_KI_MM_SWAPENTS, 2 },
		{ PS_KI_MM_SHMEMPAGES, 3 }, { PS_KI_HUGETLB_PAGE_DTOR, 2 }, { PS_KI_MAPLE_DENSE, 0 },
		{ PS_KI_MAPLE_LEAF_64, 1 }, { PS_KI_MAPLE_RANGE_64, 2 }, { PS_KI_MAPLE_ARANGE_64, 3 },
	};
	for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++)
		ki->enumval[enums[i].id] = enums[i].v;
	if (P == 8) { /* 64-bit: idle and young in page->flags */
		ki->enumval[PS_KI_PG_YOUNG] = 24;
		ki->enumval[PS_KI_PG_IDLE] = 25;
	}
}

/* ---- VMCOREINFO ------------------------------------------------------------------------------ */

static void vmci(struct image *im, unsigned group, const char *key, const char *fmt, uint64_t v)
{
	if (im->nvmci == sizeof im->vmci / sizeof im->vmci[0])
		die(im, "too many VMCOREINFO keys");
	im->vmci[im->nvmci].key = key;
	im->vmci[im->nvmci].group = group;
	snprintf(im->vmci[im->nvmci].val, sizeof im->vmci[0].val, fmt, v);
	im->nvmci++;
}
#define SYM(im, g, name, addr) vmci(im, g, "SYMBOL(" name ")", "%" PRIx64, addr)
#define NUM(im, g, key, v) vmci(im, g, key, "%" PRIu64, v)

/* ---- the kernel -------------------------------------------------------------------------------- */

static void build(struct image *im, const struct config *cfg)
{
	im->cfg = cfg;
	im->mem = calloc(1, MEM_SIZE);
	if (!im->mem)
		die(im, "out of memory");
	im->base = cfg->phys;
	im->ptr = cfg->fam == F_PPC64 ? 8 : 4;
	im->psize = im->ptr == 8 ? 64 : 32;
	im->pshift = (unsigned)__builtin_ctz(cfg->page);
	im->page_offset = cfg->fam == F_PPC64 ? UINT64_C(0xc000000000000000) : UINT64_C(0xc0000000);
	im->npfn = MEM_SIZE >> im->pshift;
	im->pfn0 = im->base >> im->pshift;
	im->bump = im->base + 0x10000;
	set_geometry(im);
	build_kinfo(im);
	struct ps_kinfo *ki = &im->ki;
	const uint64_t PG = cfg->page, P = im->ptr;

	vmci(im, 0, "OSRELEASE", "6.1.0-fuzz%.0" PRIu64, 0);
	NUM(im, cfg->fam == F_PPC64 ? 0 : G_SIZES, "PAGESIZE", PG);

	/* Kernel variables, one per 8 bytes. */
	uint64_t g = alloc(im, 256, 64);
	obj(im, O_GLOBALS, g, 256);
	const uint64_t v_max_pfn = g, v_high_memory = g + 8, v_nr_swapfiles = g + 16, v_pe_size = g + 24,
		       v_vpo = g + 32, v_pv = g + 40, v_vmemmap_psize = g + 48, v_zero = g + 56,
		       v_vmemmap_list = g + 64, v_loadcam = g + 128, v_stext = g + 136;
	putp(im, v_max_pfn, im->pfn0 + im->npfn);
	putp(im, v_high_memory, kva(im, im->base + MEM_SIZE) & (P == 8 ? UINT64_MAX : 0xffffffff));
	put(im, v_nr_swapfiles, 1, 4);
	SYM(im, G_MAXPFN, "max_pfn", kva(im, v_max_pfn));
	SYM(im, G_MISC, "nr_swapfiles", kva(im, v_nr_swapfiles));
	if (cfg->fam != F_PPC64)
		SYM(im, G_HIGHMEM, "high_memory", kva(im, v_high_memory));

	/* The kernel's page tables. */
	uint64_t kt0;
	if (cfg->fam == F_PPC64) {
		im->kernel_pgd = alloc(im, 65536, 65536); /* MAX_PTRS_PER_PGD entries either way */
		obj(im, O_KPGD, im->kernel_pgd, 65536);
	} else if (cfg->fam == F_ARM) {
		/* Where the kernel puts it: 16 KiB (LPAE 20 KiB) below PAGE_OFFSET + 0x8000, so it
		 * is found without its symbol too. */
		im->kernel_pgd = im->base + (cfg->mmu == ARM_LPAE ? 0x3000 : 0x4000);
		obj(im, O_KPGD, im->kernel_pgd, im->lv[0].alloc);
	} else {
		im->kernel_pgd = alloc(im, im->lv[0].alloc, im->lv[0].alloc);
		obj(im, O_KPGD, im->kernel_pgd, im->lv[0].alloc);
	}
	SYM(im, G_SWAPPER, "swapper_pg_dir", kva(im, im->kernel_pgd));
	kt0 = im->bump;

	/* struct pages (64 KiB aligned: vmemmap_list chunks), page_ext on 32-bit. */
	uint64_t pages_len = im->npfn * im->psize;
	im->pages = alloc(im, pages_len, 65536);
	obj(im, O_PAGES, im->pages, pages_len);
	const uint64_t pe_stride = 8; /* page_ext_size: struct page_ext and one extension */
	if (P == 4) {
		im->page_ext = alloc(im, im->npfn * pe_stride, 64);
		obj(im, O_PAGE_EXT, im->page_ext, im->npfn * pe_stride);
		putp(im, v_pe_size, pe_stride);
		SYM(im, G_MISC, "page_ext_size", kva(im, v_pe_size));
	}
	if (cfg->fam == F_PPC64)
		im->vmemmap = cfg->mmu == PPC64_HASH && im->pshift == 12 ? UINT64_C(0xc0003f0000000000)
									: UINT64_C(0xc00c000000000000);

	if (cfg->fam == F_PPC64) {
		/* vmemmap in swapper_pg_dir (radix translates through it without vmemmap_list;
		 * its entries also tell the MMU), and vmemmap_list's 64K chunks. */
		for (uint64_t off = 0; off < pages_len; off += PG)
			map_page(im, im->kernel_pgd, im->vmemmap + off, im->pages + off, KERNEL);
		uint64_t defs = alloc(im, 16 * 32, 64);
		put(im, defs + 0 * 32, 12, 4);
		put(im, defs + 2 * 32, 16, 4);
		put(im, defs + 7 * 32, cfg->mmu == PPC64_RADIX ? 21 : 0, 4);
		SYM(im, G_MMU, "mmu_psize_defs", kva(im, defs));
		NUM(im, G_MMU, "SIZE(mmu_psize_def)", 32);
		NUM(im, G_MMU, "OFFSET(mmu_psize_def.shift)", 0);
		put(im, v_vmemmap_psize, 2, 4); /* MMU_PAGE_64K */
		uint64_t nchunks = (pages_len + 65535) / 65536;
		uint64_t nodes = alloc(im, nchunks * 24, 64), prev = v_vmemmap_list;
		for (uint64_t i = 0; i < nchunks; i++) {
			uint64_t n = nodes + i * 24;
			putp(im, prev, kva(im, n));
			putp(im, n + 8, im->pages + i * 65536);
			putp(im, n + 16, im->vmemmap + i * 65536);
			prev = n;
		}
		SYM(im, G_VMEMMAP, "vmemmap_list", kva(im, v_vmemmap_list));
		SYM(im, G_VMEMMAP, "mmu_vmemmap_psize", kva(im, v_vmemmap_psize));
		NUM(im, G_VMEMMAP, "OFFSET(vmemmap_backing.list)", 0);
		NUM(im, G_VMEMMAP, "OFFSET(vmemmap_backing.phys)", 8);
		NUM(im, G_VMEMMAP, "OFFSET(vmemmap_backing.virt_addr)", 16);
		NUM(im, G_SIZES, "SIZE(page)", im->psize);
		NUM(im, G_SIZES, "NUMBER(MAX_PHYSMEM_BITS)", 51);
		obj(im, O_MEMMAP, defs, nodes + nchunks * 24 - defs);
	} else if (cfg->fam == F_ARM) {
		/* Lowmem: section pairs or LPAE blocks at PAGE_OFFSET. */
		for (uint64_t off = 0; off < MEM_SIZE; off += UINT64_C(0x200000)) {
			uint64_t va = im->page_offset + off, pa = im->base + off;
			if (cfg->mmu == ARM_SHORT) {
				uint64_t ep = im->kernel_pgd + (va >> 21) * 8;
				put(im, ep, pa | 0x2 | 0x400, 4); /* SECT, AP write */
				put(im, ep + 4, (pa + 0x100000) | 0x2 | 0x400, 4);
			} else {
				put_order(im, entry_pa(im, im->kernel_pgd, va, 1), leaf_entry(im, 1, pa, KERNEL), 8,
					  entries_be(im));
			}
		}
		put(im, v_pv, im->base >> 12, 4);
		SYM(im, G_MMU, "__pv_phys_pfn_offset", kva(im, v_pv));
		if (cfg->mmu == ARM_LPAE)
			vmci(im, G_MMU, "CONFIG_ARM_LPAE", "y%.0" PRIu64, 0);
	} else {
		/* Lowmem in swapper_pg_dir (the kernel's own PTEs tell e500's PTE width). */
		for (uint64_t off = 0; off < MEM_SIZE; off += PG)
			map_page(im, im->kernel_pgd, im->page_offset + off, im->base + off, KERNEL);
		if (cfg->mmu == PPC44X)
			SYM(im, G_MMU, "finish_tlb_load_44x", kva(im, v_loadcam));
		else
			SYM(im, G_MMU, "loadcam_entry", kva(im, v_loadcam));
		SYM(im, G_SIZES, "_stext", kva(im, v_stext));
		put(im, v_vpo, (im->page_offset - im->base) & 0xffffffff, 8);
		SYM(im, G_VMEMMAP, "virt_phys_offset", kva(im, v_vpo));
	}
	obj(im, O_KTABLES, kt0, im->bump - kt0);

	/* Tasks: init_task <-> A <-> K on the task list; A's group is A and THR. */
	uint64_t tsize = (uint64_t)ki->size[PS_KI_TASK_STRUCT];
	uint64_t init_task = alloc(im, tsize, 64), task_a = alloc(im, tsize, 64), task_thr = alloc(im, tsize, 64),
		 task_k = alloc(im, tsize, 64);
	obj(im, O_INIT_TASK, init_task, tsize), obj(im, O_TASK_A, task_a, tsize);
	obj(im, O_TASK_THREAD, task_thr, tsize), obj(im, O_TASK_KTHREAD, task_k, tsize);
	uint64_t sig = alloc(im, 256, 64), mm = alloc(im, 256, 64), init_mm = alloc(im, 256, 64);
	uint64_t maple = alloc(im, 768, 256), vmas = alloc(im, 3 * 256, 64), files = alloc(im, 4096, 64);
	obj(im, O_SIGNAL, sig, 256), obj(im, O_MM, mm, 256), obj(im, O_MAPLE, maple, 768);
	obj(im, O_VMAS, vmas, 768), obj(im, O_FILES, files, 4096);
	/* Without SYMBOL(init_task) the walker looks for it near init_uts_ns. */
	SYM(im, G_SWAPPER, "init_task", kva(im, init_task));
	uint64_t uts = alloc(im, 512, 64);
	memcpy(at(im, uts + 4 + 65, 11), "6.1.0-fuzz", 11);
	SYM(im, 0, "init_uts_ns", kva(im, uts));
	putm(im, init_mm, PS_KI_MM_PGD, kva(im, im->kernel_pgd));
	SYM(im, G_VMEMMAP, "init_mm", kva(im, init_mm));

	const uint64_t o_tasks = (uint64_t)off_of(im, PS_KI_TASK_TASKS), o_node = (uint64_t)off_of(im, PS_KI_TASK_THREAD_NODE);
	const uint64_t o_head = (uint64_t)off_of(im, PS_KI_SIGNAL_THREAD_HEAD);
	struct { uint64_t pa; unsigned pid, tgid; uint32_t flags; const char *comm; bool user; } t[4] = {
		{ init_task, 0, 0, 0x00200002u, "swapper/0", false },
		{ task_a, 1, 1, 0x00400100u, "fuzzinit", true },
		{ task_thr, 3, 1, 0x00400040u, "fuzzthread", true },
		{ task_k, 2, 2, 0x00208040u, "kthreadd", false },
	};
	const int order[4] = { 0, 1, 3, 0 };
	for (int i = 0; i < 3; i++) {
		putp(im, t[order[i]].pa + o_tasks, kva(im, t[order[i + 1]].pa + o_tasks));
		putp(im, t[order[i + 1]].pa + o_tasks + P, kva(im, t[order[i]].pa + o_tasks));
	}
	for (int i = 0; i < 4; i++) {
		putm(im, t[i].pa, PS_KI_TASK_PID, t[i].pid);
		putm(im, t[i].pa, PS_KI_TASK_TGID, t[i].tgid);
		putm(im, t[i].pa, PS_KI_TASK_FLAGS, t[i].flags);
		putm(im, t[i].pa, PS_KI_TASK_REAL_PARENT, kva(im, init_task));
		putm(im, t[i].pa, PS_KI_TASK_MM, t[i].user ? kva(im, mm) : 0);
		putm(im, t[i].pa, PS_KI_TASK_SIGNAL, t[i].user ? kva(im, sig) : 0);
		memcpy(at(im, t[i].pa + (uint64_t)off_of(im, PS_KI_TASK_COMM), 16), t[i].comm, strlen(t[i].comm) + 1);
		putm(im, t[i].pa, PS_KI_TASK_STATE, 1);
		putm(im, t[i].pa, PS_KI_TASK_MIN_FLT, 100 + i);
		putm(im, t[i].pa, PS_KI_TASK_MAJ_FLT, i);
		putm(im, t[i].pa, PS_KI_TASK_UTIME, 1000000u * (unsigned)i);
		putm(im, t[i].pa, PS_KI_TASK_STIME, 2000000u * (unsigned)i);
		putm(im, t[i].pa, PS_KI_TASK_START_TIME, 5000000u * (unsigned)i);
	}
	uint64_t head_kva = kva(im, sig + o_head), a_node = kva(im, task_a + o_node), thr_node = kva(im, task_thr + o_node);
	putp(im, sig + o_head, a_node), putp(im, sig + o_head + P, thr_node);
	putp(im, task_a + o_node, thr_node), putp(im, task_a + o_node + P, head_kva);
	putp(im, task_thr + o_node, head_kva), putp(im, task_thr + o_node + P, a_node);

	/* Files: the text mapping's struct file, dentries "/", "bin", "fuzz", a mount, inode,
	 * super_block and the name strings, 256 bytes apart. */
	uint64_t f_file = files, f_root = files + 0x100, f_bin = files + 0x200, f_name = files + 0x300;
	uint64_t f_mount = files + 0x400, f_inode = files + 0x500, f_sb = files + 0x600, f_str = files + 0x700;
	memcpy(at(im, f_str, 11), "/\0bin\0fuzz", 11);
	const uint64_t o_mnt = (uint64_t)off_of(im, PS_KI_MOUNT_MNT);
	putm(im, f_file, PS_KI_FILE_PATH_MNT, kva(im, f_mount + o_mnt));
	putm(im, f_file, PS_KI_FILE_PATH_DENTRY, kva(im, f_name));
	putm(im, f_file, PS_KI_FILE_INODE, kva(im, f_inode));
	struct { uint64_t pa, parent, str; unsigned len; } d[3] = {
		{ f_root, f_root, f_str, 1 }, { f_bin, f_root, f_str + 2, 3 }, { f_name, f_bin, f_str + 6, 4 },
	};
	for (int i = 0; i < 3; i++) {
		putm(im, d[i].pa, PS_KI_DENTRY_PARENT, kva(im, d[i].parent));
		putm(im, d[i].pa, PS_KI_DENTRY_NAME, kva(im, d[i].str));
		putm(im, d[i].pa, PS_KI_DENTRY_NAME_LEN, d[i].len);
		if (i)
			putm(im, d[i].pa, PS_KI_DENTRY_HASH_PPREV, kva(im, files + 0xf00)); /* hashed */
	}
	putm(im, f_mount, PS_KI_MOUNT_PARENT, kva(im, f_mount));
	putm(im, f_mount, PS_KI_MOUNT_MOUNTPOINT, kva(im, f_root));
	putp(im, f_mount + o_mnt + (uint64_t)off_of(im, PS_KI_VFSMOUNT_ROOT), kva(im, f_root));
	putm(im, f_inode, PS_KI_INODE_INO, 42);
	putm(im, f_inode, PS_KI_INODE_SB, kva(im, f_sb));
	putm(im, f_sb, PS_KI_SB_DEV, (8u << 20) | 1u);

	/* User memory: text (2 pages), anon (present, swapped, empty, present), and a THP or two
	 * small pages (the first mapped). */
	const uint64_t text_va = 0x10000000, anon_va = 0x10400000, big_va = 0x20000000;
	const uint64_t big_len = im->thp ? UINT64_C(2) << 20 : 2 * PG;
	const uint64_t data = im->base + KERNEL_AREA;
	const uint64_t f_text = data, f_anon = data + 2 * PG, f_small = data + 4 * PG, f_zero = data + 5 * PG;
	const uint64_t f_thp = im->base + THP_OFF;
	obj(im, O_DATA, data, MEM_SIZE - KERNEL_AREA);
	obj(im, O_ANY, im->base, MEM_SIZE);
	im->user_pgd = alloc(im, im->lv[0].alloc, im->lv[0].alloc);
	obj(im, O_UPGD, im->user_pgd, im->lv[0].alloc);
	uint64_t ut0 = im->bump;
	map_page(im, im->user_pgd, text_va, f_text, USER_RX);
	map_page(im, im->user_pgd, text_va + PG, f_text + PG, USER_RX);
	map_page(im, im->user_pgd, anon_va, f_anon, USER_RW);
	map_page(im, im->user_pgd, anon_va + 3 * PG, f_anon + PG, USER_RW);
	unsigned last = im->nlevels - 1;
	put_order(im, entry_pa(im, im->user_pgd, anon_va + PG, last), swap_entry(im, 0, 0x1234), im->lv[last].esz,
		  entries_be(im));
	if (im->thp) {
		unsigned pmd = im->nlevels - 2;
		put_order(im, entry_pa(im, im->user_pgd, big_va, pmd), leaf_entry(im, pmd, f_thp, USER_RW), 8,
			  entries_be(im));
	} else {
		map_page(im, im->user_pgd, big_va, f_small, USER_RW);
	}
	obj(im, O_UTABLES, ut0, im->bump - ut0);
	im->want_pages = 4 + (im->thp ? big_len / PG : 1);

	/* VMAs, 256 bytes apart: text (file), anon, big; also on an mmap list. */
	struct { uint64_t start, end, flags, file, anon; } v[3] = {
		{ text_va, text_va + 2 * PG, 0x875, kva(im, f_file), 0 },
		{ anon_va, anon_va + 4 * PG, 0x100073, 0, kva(im, files + 0xe00) },
		{ big_va, big_va + big_len, 0x20100073, 0, kva(im, files + 0xe00) },
	};
	for (int i = 0; i < 3; i++) {
		uint64_t pa = vmas + (uint64_t)i * 256;
		putm(im, pa, PS_KI_VMA_START, v[i].start);
		putm(im, pa, PS_KI_VMA_END, v[i].end);
		putm(im, pa, PS_KI_VMA_MM, kva(im, mm));
		putm(im, pa, PS_KI_VMA_FLAGS, v[i].flags);
		putm(im, pa, PS_KI_VMA_FILE, v[i].file);
		putm(im, pa, PS_KI_VMA_ANON_VMA, v[i].anon);
		putm(im, pa, PS_KI_VMA_NEXT, i < 2 ? kva(im, pa + 256) : 0);
	}
	putm(im, mm, PS_KI_MM_MMAP, kva(im, vmas));

	/* The maple tree: an arange_64 root over two leaf_64 nodes (see fuzz_walker.c). */
	const uint64_t ulong_max = P == 8 ? UINT64_MAX : UINT32_MAX, split = big_va - 1;
	uint64_t n0 = maple, n1 = maple + 0x100, n2 = maple + 0x200;
	uint64_t mt = kva(im, mm) + (uint64_t)off_of(im, PS_KI_MM_MT);
	putp(im, mm + (uint64_t)off_of(im, PS_KI_MM_MT) + (uint64_t)off_of(im, PS_KI_MAPLE_TREE_ROOT),
	     kva(im, n0) | 3u << 3 | 4 | 2);
	putp(im, n0, mt | 1);
	const uint64_t ap = (uint64_t)off_of(im, PS_KI_MAPLE_ARANGE64_PIVOT), as = (uint64_t)off_of(im, PS_KI_MAPLE_ARANGE64_SLOT);
	putp(im, n0 + ap, split), putp(im, n0 + ap + P, ulong_max);
	putp(im, n0 + as, kva(im, n1) | 1u << 3), putp(im, n0 + as + P, kva(im, n2) | 1u << 3);
	put(im, n0 + (uint64_t)off_of(im, PS_KI_MAPLE_ARANGE64_META), 1, 1);
	const uint64_t rp = (uint64_t)off_of(im, PS_KI_MAPLE_RANGE64_PIVOT), rs = (uint64_t)off_of(im, PS_KI_MAPLE_RANGE64_SLOT);
	const uint64_t l1_piv[5] = { text_va - 1, text_va + 2 * PG - 1, anon_va - 1, anon_va + 4 * PG - 1, split };
	const uint64_t l1_slot[5] = { 0, kva(im, vmas), 0, kva(im, vmas + 256), 0 };
	putp(im, n1, kva(im, n0) | 0x6);
	for (int i = 0; i < 5; i++)
		putp(im, n1 + rp + P * (uint64_t)i, l1_piv[i]), putp(im, n1 + rs + P * (uint64_t)i, l1_slot[i]);
	putp(im, n2, kva(im, n0) | 0x16);
	putp(im, n2 + rp, big_va + big_len - 1), putp(im, n2 + rp + P, ulong_max);
	putp(im, n2 + rs, kva(im, vmas + 512));
	put(im, n1 + (uint64_t)off_of(im, PS_KI_MAPLE_RANGE64_META), 4, 1);
	put(im, n2 + (uint64_t)off_of(im, PS_KI_MAPLE_RANGE64_META), 1, 1);

	putm(im, mm, PS_KI_MM_PGD, kva(im, im->user_pgd));
	putm(im, mm, PS_KI_MM_START_BRK, 0x30000000);
	putm(im, mm, PS_KI_MM_BRK, 0x30000000);
	putm(im, mm, PS_KI_MM_START_STACK, 0x7ff00000);
	putm(im, mm, PS_KI_MM_TOTAL_VM, (2 * PG + 4 * PG + big_len) / PG);
	putm(im, mm, PS_KI_MM_MAP_COUNT, 3);
	putm(im, mm, PS_KI_MM_EXE_FILE, kva(im, f_file));
	uint64_t rss = mm + (uint64_t)off_of(im, PS_KI_MM_RSS_STAT);
	putp(im, rss, 2), putp(im, rss + P, 2 + big_len / PG), putp(im, rss + 2 * P, 1);

	/* struct pages. */
	const uint64_t ps_ = im->psize;
	uint64_t pfn = 0;
#define PFN(pa) (((pa) >> im->pshift) - im->pfn0)
#define PAGE_PA(pa) (im->pages + PFN(pa) * ps_)
	for (pfn = 0; pfn < im->npfn; pfn++) {
		putm(im, im->pages + pfn * ps_, PS_KI_PAGE_REFCOUNT, 1);
		putm(im, im->pages + pfn * ps_, PS_KI_PAGE_MAPCOUNT, UINT32_MAX);
	}
	const uint64_t uptodate = 1u << 2, lru = 1u << 4, ref = 1u << 1, dirty = 1u << 3, swapbacked = 1u << 19,
		       headf = 1u << 16, active = 1u << 5, reserved = 1u << 12;
	for (uint64_t i = 0; i < 2; i++) {
		uint64_t p = PAGE_PA(f_text + i * PG);
		putm(im, p, PS_KI_PAGE_FLAGS, uptodate | lru | ref);
		putm(im, p, PS_KI_PAGE_REFCOUNT, 2);
		putm(im, p, PS_KI_PAGE_MAPCOUNT, 0);
		putm(im, p, PS_KI_PAGE_MAPPING, kva(im, files + 0xd00));
		p = PAGE_PA(f_anon + i * PG);
		putm(im, p, PS_KI_PAGE_FLAGS, uptodate | lru | dirty | swapbacked);
		putm(im, p, PS_KI_PAGE_MAPCOUNT, 0);
		putm(im, p, PS_KI_PAGE_MAPPING, kva(im, files + 0xe00) | 1);
	}
	putm(im, PAGE_PA(f_small), PS_KI_PAGE_FLAGS, uptodate | lru | swapbacked);
	putm(im, PAGE_PA(f_small), PS_KI_PAGE_MAPCOUNT, 0);
	putm(im, PAGE_PA(f_small), PS_KI_PAGE_MAPPING, kva(im, files + 0xe00) | 1);
	putm(im, PAGE_PA(f_zero), PS_KI_PAGE_FLAGS, reserved);
	if (im->thp) {
		uint64_t n = (UINT64_C(2) << 20) / PG, h = PAGE_PA(f_thp);
		uint64_t thp_kva = cfg->fam == F_PPC64 ? im->vmemmap + (f_thp >> im->pshift) * ps_ : kva(im, h);
		putm(im, h, PS_KI_PAGE_FLAGS, uptodate | lru | swapbacked | headf | active);
		putm(im, h, PS_KI_PAGE_MAPPING, kva(im, files + 0xe00) | 1);
		for (uint64_t i = 1; i < n; i++) {
			putm(im, h + i * ps_, PS_KI_PAGE_COMPOUND_HEAD, thp_kva | 1);
			putm(im, h + i * ps_, PS_KI_PAGE_MAPPING, 0x400);
		}
		putm(im, h + ps_, PS_KI_PAGE_COMPOUND_DTOR, 3);
		putm(im, h + ps_, PS_KI_PAGE_COMPOUND_ORDER, (uint64_t)__builtin_ctzll(n));
		putm(im, h + ps_, PS_KI_PAGE_COMPOUND_MAPCOUNT, 0);
	}
	if (cfg->fam == F_ARM) {
		putp(im, v_zero, kva(im, PAGE_PA(f_zero))); /* a struct page pointer on ARM */
		SYM(im, G_MISC, "empty_zero_page", kva(im, v_zero));
	} else {
		SYM(im, G_MISC, "empty_zero_page", kva(im, f_zero));
	}

	/* 32-bit: where struct pages and page_ext are. */
	if (P == 4) {
		for (uint64_t i = 0; i < 2; i++) /* young, idle */
			put(im, im->page_ext + PFN(f_anon + i * PG) * pe_stride, i ? 1u << 3 : 1u << 2, 4);
		uint64_t m0 = im->bump;
		if (cfg->sparse) {
			const unsigned sec_bits = 22, max_bits = 32;
			const uint64_t sec_size = 2 * P, per_root = PG / sec_size;
			const uint64_t nsec = UINT64_C(1) << (max_bits - sec_bits);
			const uint64_t roots = (nsec + per_root - 1) / per_root;
			uint64_t table = alloc(im, roots * P, 64);
			uint64_t first_sec = im->base >> sec_bits, last_sec = (im->base + MEM_SIZE - 1) >> sec_bits;
			uint64_t root_pa = 0, root_no = UINT64_MAX;
			for (uint64_t s = first_sec; s <= last_sec; s++) {
				if (s / per_root != root_no) {
					root_no = s / per_root;
					root_pa = alloc(im, per_root * sec_size, 64);
					putp(im, table + root_no * P, kva(im, root_pa));
				}
				uint64_t e = root_pa + (s % per_root) * sec_size;
				uint64_t spfn = s << (sec_bits - im->pshift);
				uint64_t map = kva(im, im->pages + (spfn - im->pfn0) * ps_) - spfn * ps_;
				uint64_t pe = kva(im, im->page_ext + (spfn - im->pfn0) * pe_stride) - spfn * pe_stride;
				putp(im, e, (map | 0x3) & 0xffffffff);
				putp(im, e + P, pe & 0xffffffff);
			}
			SYM(im, G_MEMMAP, "mem_section", kva(im, table));
			NUM(im, G_MEMMAP, "LENGTH(mem_section)", roots);
			NUM(im, G_MEMMAP, "SIZE(mem_section)", sec_size);
			NUM(im, G_MEMMAP, "OFFSET(mem_section.section_mem_map)", 0);
			NUM(im, G_MEMMAP, "NUMBER(SECTION_SIZE_BITS)", sec_bits);
			NUM(im, G_MEMMAP, "NUMBER(MAX_PHYSMEM_BITS)", max_bits);
		} else {
			uint64_t pgdat = alloc(im, 64, 64);
			putm(im, pgdat, PS_KI_PGDAT_NODE_MEM_MAP, kva(im, im->pages));
			putm(im, pgdat, PS_KI_PGDAT_NODE_PAGE_EXT, kva(im, im->page_ext));
			putm(im, pgdat, PS_KI_PGDAT_NODE_START_PFN, im->pfn0);
			putm(im, pgdat, PS_KI_PGDAT_NODE_SPANNED_PAGES, im->npfn);
			SYM(im, G_MEMMAP, "contig_page_data", kva(im, pgdat));
			NUM(im, G_MEMMAP, "OFFSET(pglist_data.node_mem_map)", 8);
			NUM(im, G_MEMMAP, "OFFSET(pglist_data.node_start_pfn)", 24);
			NUM(im, G_MEMMAP, "OFFSET(pglist_data.node_spanned_pages)", 32);
		}
		obj(im, O_MEMMAP, m0, im->bump - m0);
	}
#undef PFN
#undef PAGE_PA
}

/* ---- the back-end ----------------------------------------------------------------------------- */

struct fuzz_target {
	struct image *im;
	bool exclude_data;
	unsigned drop;     /* VMCOREINFO groups left out */
	int override;      /* index of a VMCOREINFO key given another value, or -1 */
	char override_val[40];
};

static enum ps_read_status fz_pfn_status(void *ctx, uint64_t pfn)
{
	const struct fuzz_target *f = ctx;
	const struct image *im = f->im;
	if (pfn < im->pfn0 || pfn - im->pfn0 >= im->npfn)
		return PS_READ_NODATA;
	if (f->exclude_data && ((pfn - im->pfn0) << im->pshift) >= KERNEL_AREA)
		return PS_READ_EXCLUDED;
	return PS_READ_OK;
}

static enum ps_read_status fz_read_phys(void *ctx, uint64_t pa, void *buf, size_t len)
{
	const struct fuzz_target *f = ctx;
	const struct image *im = f->im;
	if (pa < im->base || pa - im->base >= MEM_SIZE || len > MEM_SIZE - (pa - im->base))
		return PS_READ_NODATA;
	for (uint64_t p = pa >> im->pshift; len && p <= (pa + len - 1) >> im->pshift; p++) {
		enum ps_read_status st = fz_pfn_status(ctx, p);
		if (st != PS_READ_OK)
			return st;
	}
	memcpy(buf, im->mem + (pa - im->base), len);
	return PS_READ_OK;
}

static const char *fz_vmcoreinfo(void *ctx, const char *key)
{
	const struct fuzz_target *f = ctx;
	const struct image *im = f->im;
	for (unsigned i = 0; i < im->nvmci; i++)
		if (strcmp(im->vmci[i].key, key) == 0)
			return (im->vmci[i].group & f->drop) ? NULL : (int)i == f->override ? f->override_val : im->vmci[i].val;
	return NULL;
}

static const struct ps_target_ops fz_ops = {
	.read_phys = fz_read_phys,
	.pfn_status = fz_pfn_status,
	.vmcoreinfo = fz_vmcoreinfo,
};

/* ---- patches ----------------------------------------------------------------------------------- */

static struct fz_patch_log patch_log;

static uint64_t obj_pa(const struct image *im, unsigned o, uint64_t off)
{
	o %= O_COUNT;
	if (!im->objs[o].len)
		o = O_ANY;
	if (o == O_ANY || o == O_DATA)
		off *= 64; /* reach the whole region with 16 bits */
	return im->objs[o].pa + off % im->objs[o].len;
}

static void patch(struct image *im, uint64_t pa, const uint8_t *bytes, unsigned len)
{
	if (pa + len > im->base + MEM_SIZE)
		len = (unsigned)(im->base + MEM_SIZE - pa);
	fz_patch(&patch_log, im->mem + (pa - im->base), bytes, len);
}

static void apply_patches(struct image *im, const uint8_t *p, size_t n)
{
	patch_log.n = 0;
	while (n >= 4 && !fz_patch_full(&patch_log)) {
		uint64_t pa = obj_pa(im, p[0], (uint64_t)p[1] | (uint64_t)p[2] << 8);
		uint8_t ctl = p[3], b[FZ_MAX_PATCH_LEN];
		p += 4, n -= 4;
		if (ctl < 0x80) {
			unsigned len = (ctl & 31u) + 1;
			if (len > n)
				len = (unsigned)n;
			if (!len)
				break;
			patch(im, pa, p, len);
			p += len, n -= len;
			continue;
		}
		if (n < 3)
			break;
		uint64_t target = obj_pa(im, p[0], (uint64_t)p[1] | (uint64_t)p[2] << 8);
		p += 3, n -= 3;
		unsigned len;
		uint64_t v;
		bool be;
		if (ctl < 0xc0) {
			v = kva(im, target), len = im->ptr, be = im->cfg->be;
		} else {
			unsigned level = (ctl & 3u) % (im->nlevels - 1);
			if (ctl & 0x20)
				target += MEM_SIZE;
			v = table_entry(im, level, target), len = im->lv[level].esz, be = entries_be(im);
		}
		for (unsigned i = 0; i < len; i++)
			b[i] = (uint8_t)(be ? v >> (8 * (len - 1 - i)) : v >> (8 * i));
		patch(im, pa, b, len);
	}
}


/* ---- a run ------------------------------------------------------------------------------------ */


struct visit_state {
	uint64_t start, end, last_va, events;
	unsigned page_shift;
	bool any;
};

/* ps_pt_walk's contract (arch.h): events ascend, stay inside the range, are never empty. */
static int visit(void *arg, enum ps_pt_event ev, uint64_t va, uint64_t npages, unsigned shift,
		 const struct ps_pt_entry *e)
{
	struct visit_state *s = arg;
	(void)shift;
	if (npages == 0 || va < s->start || (s->any && va <= s->last_va) ||
	    ((npages - 1) >> (64 - s->page_shift)) != 0 ||
	    va + ((npages - 1) << s->page_shift) > s->end - 1) {
		fprintf(stderr, "ps_pt_walk broke its contract: event %d at %" PRIx64 " npages %" PRIu64
			" in [%" PRIx64 ", %" PRIx64 ") after %" PRIx64 "\n", ev, va, npages, s->start,
			s->end, s->last_va);
		abort();
	}
	if ((ev == PS_PT_EV_BAD || ev == PS_PT_EV_UNREADABLE) && !e->why)
		abort(); /* says why */
	s->last_va = va + ((npages - 1) << s->page_shift);
	s->any = true;
	return ++s->events > 200000 ? 1 : 0;
}

/* A bare walk of the whole user space from a chosen table, and kernel translations. */
static void run_pt(struct ps_walker *w, struct image *im, uint8_t variant)
{
	struct ps_core *c = &w->c;
	uint64_t tops[4] = { im->user_pgd, im->kernel_pgd, im->objs[O_UTABLES].pa, im->objs[O_KTABLES].pa };
	uint64_t top = tops[(variant >> 3) & 3];
	struct visit_state s = { .start = 0, .end = im->user_va_end, .page_shift = c->page_shift };
	(void)ps_pt_walk(c, top, s.start, s.end, visit, &s);
	uint64_t pa;
	uint8_t buf[64];
	static const uint64_t probes[] = { 0, 8, UINT64_C(0x7ff8), MEM_SIZE - 8, MEM_SIZE, UINT64_C(0x1000000) };
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		uint64_t va = im->page_offset + probes[i];
		(void)ps_pt_translate(c, c->arch->kernel_pgd ? c->arch->kernel_pgd(c) : 0, va, &pa);
		(void)ps_kread(c, va, buf, sizeof buf);
	}
	if (im->vmemmap) {
		(void)ps_kread(c, im->vmemmap + 0x40 * 0x100, buf, sizeof buf);
		(void)ps_pt_translate(c, im->kernel_pgd, im->vmemmap + 0x10000, &pa);
	}
}

/* Options (byte 1) */
#define OPT_DETAIL 3u
#define OPT_EXCLUDE 4u
#define OPT_PIDS 8u
#define OPT_TRACE 16u
#define OPT_MAXTASKS 32u
#define OPT_NO_PTE_SIZE 64u
#define OPT_PT 128u
/* Variant (byte 3) */
#define VAR_LIST 1u
#define VAR_NO_PAGESIZE 2u
#define VAR_NO_MAXPFN 4u
#define VAR_OVERRIDE 128u /* 5 bytes after the header give one VMCOREINFO value */

static int run(struct image *im, uint8_t opt, uint8_t drop, uint8_t variant, const uint8_t *override,
	       struct ps_walk_result *res, bool show)
{
	struct fuzz_target f = { .im = im, .exclude_data = opt & OPT_EXCLUDE, .drop = drop, .override = -1 };
	if (override) {
		/* [key index][value u32 LE]: a symbol that much past the kernel's base, else a number. */
		f.override = override[0] % im->nvmci;
		uint64_t v = (uint64_t)override[1] | (uint64_t)override[2] << 8 | (uint64_t)override[3] << 16 |
			     (uint64_t)override[4] << 24;
		if (strncmp(im->vmci[f.override].key, "SYMBOL(", 7) == 0)
			snprintf(f.override_val, sizeof f.override_val, "%" PRIx64, kva(im, im->base) + v);
		else
			snprintf(f.override_val, sizeof f.override_val, "%" PRIu64, v);
	}
	const struct config *cfg = im->cfg;
	struct ps_target t = {
		.ops = &fz_ops, .ctx = &f, .ptr_size = im->ptr, .big_endian = cfg->be,
		.page_size = variant & VAR_NO_PAGESIZE ? 0 : cfg->page,
		.max_pfn = variant & VAR_NO_MAXPFN ? 0 : im->pfn0 + im->npfn,
		.arch = cfg->fam == F_PPC64 ? (cfg->be ? "ppc64" : "ppc64le") : cfg->fam == F_ARM ? "arm" : "ppc32",
	};
	char *err = NULL;
	memset(res, 0, sizeof *res);
	struct ps_walker *w = ps_walker_open(&t, &err);
	if (!w) {
		if (show)
			fprintf(stderr, "%s: open: %s\n", cfg->name, err);
		free(err);
		return -2;
	}
	struct ps_kinfo ki = im->ki;
	if (opt & OPT_NO_PTE_SIZE)
		ki.member[PS_KI_VM_FAULT_ORIG_PTE].offset = PS_KI_ABSENT;
	if (variant & VAR_LIST)
		ki.member[PS_KI_MM_MT].offset = PS_KI_ABSENT;
	else
		ki.member[PS_KI_MM_MMAP].offset = PS_KI_ABSENT;
	if (ps_walker_set_kinfo(w, &ki, &err) != 0) {
		if (show)
			fprintf(stderr, "%s: kinfo: %s\n", cfg->name, err);
		free(err);
		ps_walker_close(w);
		return -2;
	}
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	struct ps_writer *pw = ps_writer_open_stream(fp, "walker-out");
	struct ps_header h = { .source = "coredump", .arch = ps_walker_arch(w),
			       .big_endian = ps_walker_big_endian(w), .page_size = ps_walker_page_size(w),
			       .release = ps_walker_release(w), .dump = "fuzz", .tool = "fuzz_walker_arch" };
	static const uint64_t pids[] = { 1, 99 };
	struct ps_walk_options o = {
		.detail = (enum ps_walk_detail)((opt & OPT_DETAIL) % 3),
		.pids = pids,
		.npids = opt & OPT_PIDS ? 2 : 0,
		.max_tasks = opt & OPT_MAXTASKS ? 2 : 0,
		.trace = opt & OPT_TRACE ? devnull : NULL,
	};
	int rc = -1;
	if (ps_write_header(pw, &h) == 0)
		rc = ps_walker_run(w, pw, &o, res, &err);
	if (show && rc != 0)
		fprintf(stderr, "%s: run: rc %d %s\n", cfg->name, rc, err ? err : "");
	free(err);
	bool wfailed = ps_writer_close(pw, rc < 0, NULL) < 0;
	fclose(fp);
	if (show)
		fprintf(stderr, "---- %s\n%.*s", cfg->name, (int)outlen, out);
	if (rc >= 0 && !wfailed)
		read_back(out, outlen);
	free(out);
	if (opt & OPT_PT)
		run_pt(w, im, variant);
	ps_walker_close(w);
	return rc;
}

/* ---- libFuzzer ------------------------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		die(NULL, "no /dev/null");
	const char *show = getenv("FUZZ_WALKER_SHOW");
	const char *only = getenv("FUZZ_WALKER_ARCH");
	static const char *const family_names[] = { [F_PPC64] = "ppc64", [F_ARM] = "arm", [F_PPC32] = "ppc32" };
	for (size_t i = 0; i < NCONFIGS; i++)
		if (!only || !*only || strcmp(only, family_names[configs[i].fam]) == 0)
			chosen[nchosen++] = i;
	if (!nchosen) {
		fprintf(stderr, "fuzz_walker_arch: FUZZ_WALKER_ARCH=%s: not ppc64, arm or ppc32\n", only);
		abort();
	}
	/* Every unpatched kernel must give a complete snapshot of exactly its pages: otherwise
	 * the fuzzer would only exercise error paths. */
	for (size_t i = 0; i < NCONFIGS; i++) {
		struct image *im = &images[i];
		build(im, &configs[i]);
		struct ps_walk_result res;
		int rc = run(im, 0, 0, 0, NULL, &res, show && (!*show || strstr(configs[i].name, show)));
		if (rc != 0 || res.mms != 1 || res.vmas != 3 || res.pages != im->want_pages || res.swap_entries != 1 ||
		    res.unknown_pages) {
			fprintf(stderr, "fuzz_walker_arch: %s reads as rc %d, %" PRIu64 " mms, %" PRIu64 " VMAs, %" PRIu64
				" pages, %" PRIu64 " swap entries, %" PRIu64 " unknown pages (want 0, 1, 3, %" PRIu64
				", 1, 0); FUZZ_WALKER_SHOW=%s prints its records\n", configs[i].name, rc, res.mms,
				res.vmas, res.pages, res.swap_entries, res.unknown_pages, im->want_pages, configs[i].name);
			abort();
		}
		/* The mmap list of older kernels gives the same. */
		rc = run(im, 0, 0, VAR_LIST, NULL, &res, false);
		if (rc != 0 || res.vmas != 3 || res.pages != im->want_pages)
			die(im, "the VMA list does not read as the maple tree does");
		/* 32-bit: without swapper_pg_dir and init_task in VMCOREINFO (QEMU dumps) too. */
		if (configs[i].fam != F_PPC64) {
			rc = run(im, 0, G_SWAPPER, 0, NULL, &res, false);
			if (rc != 0 || res.vmas != 3 || res.pages != im->want_pages)
				die(im, "without SYMBOL(swapper_pg_dir) and SYMBOL(init_task) the kernel does not read");
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	struct image *im = &images[chosen[data[0] % nchosen]];
	const uint8_t *override = NULL;
	size_t skip = 4;
	if ((data[3] & VAR_OVERRIDE) && size >= 9) {
		override = data + 4;
		skip = 9;
	}
	apply_patches(im, data + skip, size - skip);
	struct ps_walk_result res;
	(void)run(im, data[1], data[2], data[3], override, &res, false);
	fz_unpatch_all(&patch_log);
	return 0;
}
