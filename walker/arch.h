/* arch.h - one file per MMU behind one interface (walker/arch_*.c).
 *
 * An architecture says three things: how its page tables are shaped (levels, index bits,
 * entry size and byte order), what one entry means (decode), and how kernel-virtual
 * addresses map to physical ones outside the page tables (linear map, kernel image). The
 * generic range walker (pgtable.c) does the rest for every architecture: it reads each table
 * page once, skips empty entries and upper levels, and hands leaves and swap entries on.
 *
 * Adding an architecture is adding arch_NAME.c with a `const struct ps_arch ps_arch_NAME`
 * and one line in arch.c's list.
 */
#ifndef PAGESLEUTH_ARCH_H
#define PAGESLEUTH_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "records.h" /* struct ps_pte */

struct ps_core;

#define PS_PT_MAX_LEVELS 6

struct ps_pt_level {
	unsigned shift;      /* VA bit where this level's index starts (12 for a 4K PTE level) */
	unsigned bits;       /* index bits; the table has 1 << bits entries */
	unsigned entry_size; /* 4 or 8 bytes */
};

/* The geometry of user page tables, fixed by ps_arch.init for one dump. */
struct ps_pt_geometry {
	unsigned nlevels;                    /* levels[0] is the top (PGD) */
	struct ps_pt_level levels[PS_PT_MAX_LEVELS];
	bool entries_big_endian;             /* ppc64 stores entries big-endian on LE kernels */
	uint64_t user_va_end;                /* TASK_SIZE: the walker never goes above */
};

enum ps_pt_kind {
	PS_PT_NONE,  /* not present and empty: nothing mapped here */
	PS_PT_TABLE, /* points to the next level's table */
	PS_PT_LEAF,  /* maps a page or a huge block */
	PS_PT_SWAP,  /* not present but owns memory elsewhere (swap, migration, ...) */
	PS_PT_BAD,   /* malformed (reserved bits, a table pointer out of range, ...) */
};

struct ps_pt_entry {
	enum ps_pt_kind kind;
	/* TABLE: physical address of the next table, or its kernel-virtual address when
	 * next_is_kvaddr (Book-E PGD entries). LEAF: physical address of the page/block. */
	uint64_t addr;
	bool next_is_kvaddr;
	struct ps_pte pte;          /* LEAF: w x u a d s e g letters the entry can tell */
	bool special;               /* LEAF: pte_special (zero page, PFN maps) */
	bool kernel_only;           /* LEAF: an entry no kernel writes for user memory (x86: P set,
				     * U/S clear); the user walk calls it a bad entry */
	uint64_t swp_type, swp_off; /* SWAP: the arch-independent swp_entry_t (as pagemap) */
	const char *why;            /* BAD: a short reason */
};

/* Record in a decoded entry that the entry tells letter B, and whether it is set. */
static inline void ps_pte_note(struct ps_pte *p, enum ps_pte_bit b, bool on)
{
	p->known |= (uint8_t)(1u << b);
	if (on)
		p->set |= (uint8_t)(1u << b);
}

struct ps_arch {
	const char *name; /* header arch name: "x86_64", "arm64", "ppc64le", "arm", "ppc32" */
	/* Read the parameters this dump needs (VMCOREINFO, symbols through ps_core_symbol,
	 * kernel variables through ps_kread_* with kvtop_direct) into c->arch_state and fill
	 * c->geom. Returns 0 or -1 with ps_core_error set. */
	int (*init)(struct ps_core *c);
	/* Decode one raw entry (already in host order) at LEVEL of a user table. */
	void (*decode)(const struct ps_core *c, unsigned level, uint64_t raw, struct ps_pt_entry *out);
	/* Kernel-virtual to physical without page tables (linear map, kernel image). false:
	 * the walker walks the kernel's own tables from kernel_pgd. */
	bool (*kvtop_direct)(const struct ps_core *c, uint64_t va, uint64_t *pa);
	/* Physical address of the kernel's top-level table (swapper_pg_dir), 0 if none. */
	uint64_t (*kernel_pgd)(const struct ps_core *c);
	/* Kernel-virtual address of struct page for PFN (vmemmap); 0: not vmemmap, the core
	 * uses mem_section. */
	uint64_t (*pfn_to_page)(const struct ps_core *c, uint64_t pfn);
	/* The physical address of the top table of a user mm from mm->pgd's value. */
	uint64_t (*user_pgd)(const struct ps_core *c, uint64_t mm_pgd_value);
};

const struct ps_arch *ps_arch_find(const char *name);

/* The range walker (pgtable.c). Called for each leaf, swap or unreadable range in
 * ascending VA order; empty ranges are never reported. npages counts base pages. */
enum ps_pt_event {
	PS_PT_EV_LEAF,       /* e->kind LEAF; shift = log2 of the entry's span */
	PS_PT_EV_SWAP,       /* e->kind SWAP; one base page per event */
	PS_PT_EV_UNREADABLE, /* a table page the dump does not hold; reason in e->why */
	PS_PT_EV_BAD,        /* a malformed entry; e->why */
};
typedef int (*ps_pt_visit_fn)(void *arg, enum ps_pt_event ev, uint64_t va, uint64_t npages,
			      unsigned shift, const struct ps_pt_entry *e);
/* Walk [start, end) of the tables rooted at physical TOP. A visit returning non-zero stops
 * the walk and is returned. */
int ps_pt_walk(struct ps_core *c, uint64_t top, uint64_t start, uint64_t end,
	       ps_pt_visit_fn visit, void *arg);
/* One translation through the kernel's tables (for kvtop of vmalloc/vmemmap addresses);
 * results are cached per 2 MiB-or-page span by the core. */
int ps_pt_translate(struct ps_core *c, uint64_t top, uint64_t va, uint64_t *pa);

extern const struct ps_arch ps_arch_x86_64, ps_arch_arm64, ps_arch_ppc64le, ps_arch_ppc64, ps_arch_arm,
	ps_arch_ppc32;

#endif
