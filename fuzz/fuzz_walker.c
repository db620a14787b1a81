/* fuzz_walker.c - libFuzzer harness for the walker core over synthetic kernel memory.
 *
 * A small but complete x86_64 Linux 6.1 kernel is built once at start-up in 4 MiB of
 * "physical memory" with the real x86_64 layouts (the profile pagesleuth writes from the
 * fixture's BTF, baked in below; PAGESLEUTH_FUZZ_PROFILE=FILE uses another one): init_task
 * and a kernel thread and a two-thread process on the task list; its mm_struct with a maple
 * tree (an arange_64 root over two leaf_64 nodes) of three VMAs: a file mapping with a
 * dentry/mount chain, an anonymous one with present, swapped and empty PTEs, and a 2 MiB
 * THP mapped by a PMD; the user page tables; kernel page tables mapping vmemmap; struct pages
 * (file, anon, a compound head with its tails). VMCOREINFO names the symbols.
 *
 * Each input is patches over that kernel, aimed at its objects: byte 0 picks the mode and
 * options, then repeated [object u8][offset u16][length u8][bytes]. Modes:
 *   0, 1  ps_walker_run into records (detail, pid filter, trace, excluded pages from the
 *         option bits); the output must read back through ps_reader without an error;
 *   2     ps_pt_walk over 1 GiB windows of x86_64 4- or 5-level tables, ps_pt_translate;
 *   3     the same with arm64 geometries (4K/16K/64K granules, VA_BITS 39..52).
 * The page-table walker's documented guarantees are checked: events ascend, stay inside the
 * range, and are never empty. Anything else is the walker's to survive: no crash, leak,
 * hang or UBSan report. Patches are undone after each input (no 4 MiB copy per run).
 *
 * Build: make B=DIR DIR/fuzz/fuzz_walker. Run: tests/cases/fuzz_walker.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "kinfo.h"
#include "records.h"
#include "fuzz_patch.h"
#include "fuzz_readback.h"
#include "walker.h"

/* ---- the x86_64 facts (pagesleuth profile --btf tests/fixtures/data/x86_64/vmlinux.btf) -- */

static const char builtin_profile[] =
	"pagesleuth-profile 1\n"
	"member task_struct.tasks 2192 16 0\nmember task_struct.pid 2416 4 0\n"
	"member task_struct.tgid 2420 4 0\nmember task_struct.mm 2272 8 0\n"
	"member task_struct.comm 2976 16 16\nmember task_struct.flags 44 4 0\n"
	"member task_struct.__state 24 4 0\nmember task_struct.exit_state 2308 4 0\n"
	"member task_struct.real_parent 2432 8 0\nmember task_struct.signal 3072 8 0\n"
	"member task_struct.thread_node 2608 16 0\nmember task_struct.min_flt 2792 8 0\n"
	"member task_struct.maj_flt 2800 8 0\nmember task_struct.utime 2656 8 0\n"
	"member task_struct.stime 2664 8 0\nmember task_struct.start_time 2776 8 0\n"
	"member task_struct.rss_stat 2288 20 0\nmember signal_struct.thread_head 16 16 0\n"
	"member mm_struct.mm_mt 0 24 0\nmember mm_struct.pgd 72 8 0\n"
	"member mm_struct.start_brk 288 8 0\nmember mm_struct.brk 296 8 0\n"
	"member mm_struct.start_stack 304 8 0\nmember mm_struct.total_vm 192 8 0\n"
	"member mm_struct.map_count 104 4 0\nmember mm_struct.exe_file 944 8 0\n"
	"member mm_struct.rss_stat 728 32 0\nmember maple_tree.ma_root 8 8 0\n"
	"member maple_tree.ma_flags 16 4 0\nmember maple_node.parent 0 8 0\n"
	"member maple_range_64.pivot 8 120 15\nmember maple_range_64.slot 128 128 16\n"
	"member maple_arange_64.pivot 8 72 9\nmember maple_arange_64.slot 80 80 10\n"
	"member maple_arange_64.meta 240 2 0\nmember vm_area_struct.vm_start 0 8 0\n"
	"member vm_area_struct.vm_end 8 8 0\nmember vm_area_struct.vm_mm 16 8 0\n"
	"member vm_area_struct.vm_flags 32 8 0\nmember vm_area_struct.vm_pgoff 104 8 0\n"
	"member vm_area_struct.vm_file 112 8 0\nmember vm_area_struct.anon_vma 88 8 0\n"
	"member file.f_path.mnt 16 8 0\nmember file.f_path.dentry 24 8 0\n"
	"member file.f_inode 32 8 0\nmember dentry.d_name.name 40 8 0\n"
	"member dentry.d_name.len 36 4 0\nmember dentry.d_parent 24 8 0\n"
	"member mount.mnt 32 32 0\nmember mount.mnt_parent 16 8 0\n"
	"member mount.mnt_mountpoint 24 8 0\nmember vfsmount.mnt_root 0 8 0\n"
	"member inode.i_ino 64 8 0\nmember inode.i_sb 40 8 0\n"
	"member super_block.s_dev 16 4 0\nmember page.flags 0 8 0\n"
	"member page._refcount 52 4 0\nmember page._mapcount 48 4 0\n"
	"member page.mapping 24 8 0\nmember page.compound_head 8 8 0\n"
	"member page.compound_dtor 16 1 0\nmember page.compound_mapcount 20 4 0\n"
	"member page.page_type 48 4 0\nmember mem_section.section_mem_map 0 8 0\n"
	"member uts_namespace.name 0 390 0\nmember new_utsname.release 130 65 65\n"
	"member swap_info_struct.flags 16 8 0\nmember maple_range_64.meta 248 2 0\n"
	"member vm_area_struct.vm_ops 96 8 0\nmember vm_area_struct.vm_private_data 120 8 0\n"
	"member vm_area_struct.anon_name 40 8 0\nmember anon_vma_name.name 4 0 0\n"
	"member vm_special_mapping.name 0 8 0\nmember mm_struct.context.vdso 880 8 0\n"
	"member dentry.d_hash.pprev 16 8 0\nmember page.compound_order 17 1 0\n"
	"member percpu_counter.count 8 8 0\n"
	"size task_struct 9728\nsize mm_struct 1096\nsize vm_area_struct 152\nsize page 64\n"
	"size maple_node 256\nsize mem_section 16\n"
	"enum PG_locked 0\nenum PG_referenced 1\nenum PG_uptodate 2\nenum PG_dirty 3\n"
	"enum PG_lru 4\nenum PG_active 5\nenum PG_workingset 6\nenum PG_error 8\nenum PG_slab 9\n"
	"enum PG_owner_priv_1 10\nenum PG_arch_1 11\nenum PG_reserved 12\nenum PG_private 13\n"
	"enum PG_private_2 14\nenum PG_writeback 15\nenum PG_head 16\nenum PG_mappedtodisk 17\n"
	"enum PG_reclaim 18\nenum PG_swapbacked 19\nenum PG_unevictable 20\nenum PG_mlocked 21\n"
	"enum PG_uncached 22\nenum PG_arch_2 23\nenum PG_swapcache 10\nenum PG_double_map 6\n"
	"enum NR_MM_COUNTERS 4\nenum MM_FILEPAGES 0\nenum MM_ANONPAGES 1\nenum MM_SWAPENTS 2\n"
	"enum MM_SHMEMPAGES 3\nenum HUGETLB_PAGE_DTOR 2\nenum maple_dense 0\n"
	"enum maple_leaf_64 1\nenum maple_range_64 2\nenum maple_arange_64 3\n"
	"end 118\n";

/* ---- synthetic physical memory ------------------------------------------------------ */

#define MEM_SIZE (UINT64_C(4) << 20)
#define PAGE 4096u
#define IMAGE_KVA UINT64_C(0xffffffff80000000) /* __START_KERNEL_map, phys_base 0 */
#define DIRECT_KVA UINT64_C(0xffff888000000000) /* page_offset_base */
#define VMEMMAP_KVA UINT64_C(0xffffea0000000000) /* vmemmap_base */
#define NPFNS (MEM_SIZE / PAGE)

static uint8_t *mem;       /* what the walker reads */
static struct ps_kinfo ki; /* the facts every source would give */

static void die(const char *what)
{
	fprintf(stderr, "fuzz_walker: set-up failed: %s\n", what);
	abort();
}

static int64_t off_of(enum ps_ki_member id)
{
	if (ki.member[id].offset == PS_KI_ABSENT)
		die(ps_ki_member_name(id));
	return ki.member[id].offset;
}

static void put(uint64_t pa, uint64_t v, unsigned n)
{
	if (pa + n > MEM_SIZE)
		die("template write outside memory");
	for (unsigned i = 0; i < n; i++)
		mem[pa + i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint64_t pa, uint64_t v) { put(pa, v, 8); }
static void putm(uint64_t base, enum ps_ki_member id, uint64_t v)
{
	put(base + (uint64_t)off_of(id), v, ki.member[id].size < 8 ? ki.member[id].size : 8);
}
static uint64_t direct(uint64_t pa) { return DIRECT_KVA + pa; }
static uint64_t image(uint64_t pa) { return IMAGE_KVA + pa; }

/* The objects a patch can aim at. */
enum obj {
	O_GLOBALS, O_KPGD, O_KTABLES, O_INIT_TASK, O_TASK_A, O_TASK_THREAD, O_TASK_KTHREAD,
	O_SIGNAL, O_MM, O_MAPLE, O_VMAS, O_FILES, O_UPGD, O_UTABLES, O_PAGES, O_DATA, O_ANY,
	O_COUNT
};
static struct { uint64_t pa, len; } objs[O_COUNT];

static uint64_t bump = 0x1000; /* page allocator over the low megabyte */
static uint64_t alloc_pages(unsigned n)
{
	uint64_t pa = bump;
	bump += (uint64_t)n * PAGE;
	if (bump > 0x100000)
		die("template does not fit below 1 MiB");
	return pa;
}

/* Map VA -> PA (4K) in the x86_64 4-level tables rooted at TOP, creating tables. */
static void map4k(uint64_t top, uint64_t va, uint64_t pa, uint64_t bits)
{
	uint64_t table = top;
	for (int level = 0; level < 3; level++) {
		unsigned shift = 39 - 9 * (unsigned)level;
		uint64_t ep = table + ((va >> shift) & 511) * 8;
		uint64_t e = 0;
		memcpy(&e, mem + ep, 8);
		if (!(e & 1)) {
			uint64_t t = alloc_pages(1);
			e = t | 0x67; /* P RW US A D */
			put64(ep, e);
		}
		table = e & UINT64_C(0x000ffffffffff000);
	}
	put64(table + ((va >> 12) & 511) * 8, pa | bits);
}

#define X86_P 0x1
#define X86_RW 0x2
#define X86_US 0x4
#define X86_A 0x20
#define X86_D 0x40
#define X86_PSE 0x80
#define X86_NX (UINT64_C(1) << 63)

/* x86_64 swap PTE (arch/x86/include/asm/pgtable_64.h): type in bits 59-63, offset inverted
 * from bit 9 (L1TF). */
static uint64_t x86_swp(uint64_t type, uint64_t offset)
{
	return (type << 59) | ((~offset & ((UINT64_C(1) << 50) - 1)) << 9);
}

static char vmcoreinfo_text[8][64];
static uint64_t user_pgd_pa, kernel_pgd_pa;

static void build_kernel(void)
{
	const uint64_t tsize = (uint64_t)ki.size[PS_KI_TASK_STRUCT];
	const unsigned tpages = (unsigned)((tsize + PAGE - 1) / PAGE);
	const uint64_t psize = (uint64_t)ki.size[PS_KI_PAGE];
	if (tsize <= 0 || psize < 32 || ki.size[PS_KI_MM_STRUCT] > PAGE)
		die("implausible sizes in the profile");

	uint64_t globals = alloc_pages(1);
	objs[O_GLOBALS].pa = globals, objs[O_GLOBALS].len = PAGE;
	kernel_pgd_pa = alloc_pages(1);
	objs[O_KPGD].pa = kernel_pgd_pa, objs[O_KPGD].len = PAGE;
	uint64_t init_task = alloc_pages(tpages), task_a = alloc_pages(tpages),
		 task_thr = alloc_pages(tpages), task_k = alloc_pages(tpages);
	objs[O_INIT_TASK].pa = init_task, objs[O_TASK_A].pa = task_a;
	objs[O_TASK_THREAD].pa = task_thr, objs[O_TASK_KTHREAD].pa = task_k;
	objs[O_INIT_TASK].len = objs[O_TASK_A].len = objs[O_TASK_THREAD].len =
		objs[O_TASK_KTHREAD].len = tsize;
	uint64_t sig = alloc_pages(1), mm = alloc_pages(1), maple = alloc_pages(1),
		 vmas = alloc_pages(1), files = alloc_pages(1);
	objs[O_SIGNAL].pa = sig, objs[O_MM].pa = mm, objs[O_MAPLE].pa = maple;
	objs[O_VMAS].pa = vmas, objs[O_FILES].pa = files;
	objs[O_SIGNAL].len = objs[O_MAPLE].len = objs[O_VMAS].len = objs[O_FILES].len = PAGE;
	objs[O_MM].len = (uint64_t)ki.size[PS_KI_MM_STRUCT];

	/* Kernel globals: page_offset_base, vmemmap_base, max_pfn. */
	put64(globals + 0, DIRECT_KVA);
	put64(globals + 8, VMEMMAP_KVA);
	put64(globals + 16, NPFNS);

	/* struct pages at 0x80000 (NPFNS * 64 = 64 KiB), mapped at vmemmap by kernel tables. */
	uint64_t pages = 0x80000;
	objs[O_PAGES].pa = pages, objs[O_PAGES].len = NPFNS * psize;
	uint64_t ktables_start = bump;
	for (uint64_t off = 0; off < NPFNS * psize; off += PAGE)
		map4k(kernel_pgd_pa, VMEMMAP_KVA + off, pages + off, X86_P | X86_RW | X86_A | X86_D | X86_NX);
	objs[O_KTABLES].pa = ktables_start, objs[O_KTABLES].len = bump - ktables_start;

	/* Tasks: init_task <-> A <-> K on the task list; A's group is A and THR. */
	const int64_t o_tasks = off_of(PS_KI_TASK_TASKS), o_node = off_of(PS_KI_TASK_THREAD_NODE);
	const int64_t o_head = off_of(PS_KI_SIGNAL_THREAD_HEAD);
	struct { uint64_t pa, kva; unsigned pid, tgid; uint32_t flags; const char *comm; bool user; } t[4] = {
		{ init_task, image(init_task), 0, 0, 0x00200002u, "swapper/0", false },
		{ task_a, direct(task_a), 1, 1, 0x00400100u, "fuzzinit", true },
		{ task_thr, direct(task_thr), 3, 1, 0x00400040u, "fuzzthread", true },
		{ task_k, direct(task_k), 2, 2, 0x00208040u, "kthreadd", false },
	};
	const int order[4] = { 0, 1, 3, 0 }; /* the tasks list: init, A, K, back to init */
	for (int i = 0; i < 3; i++) {
		uint64_t from = t[order[i]].pa + (uint64_t)o_tasks, to = t[order[i + 1]].kva + (uint64_t)o_tasks;
		put64(from, to);                                         /* next */
		put64(t[order[i + 1]].pa + (uint64_t)o_tasks + 8, t[order[i]].kva + (uint64_t)o_tasks); /* prev */
	}
	for (int i = 0; i < 4; i++) {
		putm(t[i].pa, PS_KI_TASK_PID, t[i].pid);
		putm(t[i].pa, PS_KI_TASK_TGID, t[i].tgid);
		putm(t[i].pa, PS_KI_TASK_FLAGS, t[i].flags);
		putm(t[i].pa, PS_KI_TASK_REAL_PARENT, i == 0 ? t[0].kva : t[0].kva);
		putm(t[i].pa, PS_KI_TASK_MM, t[i].user ? direct(mm) : 0);
		putm(t[i].pa, PS_KI_TASK_SIGNAL, t[i].user ? direct(sig) : 0);
		memcpy(mem + t[i].pa + off_of(PS_KI_TASK_COMM), t[i].comm, strlen(t[i].comm) + 1);
		if (ki.member[PS_KI_TASK_STATE].offset != PS_KI_ABSENT)
			putm(t[i].pa, PS_KI_TASK_STATE, 1);
		putm(t[i].pa, PS_KI_TASK_MIN_FLT, 100 + i);
		putm(t[i].pa, PS_KI_TASK_MAJ_FLT, i);
		putm(t[i].pa, PS_KI_TASK_UTIME, 1000000u * (unsigned)i);
		putm(t[i].pa, PS_KI_TASK_STIME, 2000000u * (unsigned)i);
		putm(t[i].pa, PS_KI_TASK_START_TIME, 5000000u * (unsigned)i);
	}
	/* A's thread group: signal->thread_head -> A.thread_node -> THR.thread_node -> head. */
	uint64_t head_kva = direct(sig) + (uint64_t)o_head;
	uint64_t a_node = direct(task_a) + (uint64_t)o_node, thr_node = direct(task_thr) + (uint64_t)o_node;
	put64(sig + (uint64_t)o_head, a_node), put64(sig + (uint64_t)o_head + 8, thr_node);
	put64(task_a + (uint64_t)o_node, thr_node), put64(task_a + (uint64_t)o_node + 8, head_kva);
	put64(task_thr + (uint64_t)o_node, head_kva), put64(task_thr + (uint64_t)o_node + 8, a_node);

	/* User page tables. */
	user_pgd_pa = alloc_pages(1);
	objs[O_UPGD].pa = user_pgd_pa, objs[O_UPGD].len = PAGE;
	uint64_t utables_start = bump;
	const uint64_t text_va = 0x400000, anon_va = 0x600000, thp_va = UINT64_C(0x8000000000);
	const uint64_t pfn_text = 0x100, pfn_anon = 0x102, pfn_thp = 0x200;
	map4k(user_pgd_pa, text_va, pfn_text * PAGE, X86_P | X86_US | X86_A);
	map4k(user_pgd_pa, text_va + PAGE, (pfn_text + 1) * PAGE, X86_P | X86_US);
	map4k(user_pgd_pa, anon_va, pfn_anon * PAGE, X86_P | X86_RW | X86_US | X86_A | X86_D | X86_NX);
	map4k(user_pgd_pa, anon_va + 3 * PAGE, (pfn_anon + 1) * PAGE, X86_P | X86_RW | X86_US | X86_A | X86_NX);
	/* The swapped page: the PTE table of anon_va exists now. */
	{
		uint64_t e, table = user_pgd_pa;
		for (int level = 0; level < 3; level++) {
			memcpy(&e, mem + table + ((anon_va >> (39 - 9 * level)) & 511) * 8, 8);
			table = e & UINT64_C(0x000ffffffffff000);
		}
		put64(table + ((anon_va + PAGE) >> 12 & 511) * 8, x86_swp(0, 0x1234));
	}
	/* The THP: a PMD leaf. Create the PUD and PMD by mapping a 4K page, then replace. */
	map4k(user_pgd_pa, thp_va, 0, X86_P);
	{
		uint64_t e, table = user_pgd_pa;
		for (int level = 0; level < 2; level++) {
			memcpy(&e, mem + table + ((thp_va >> (39 - 9 * level)) & 511) * 8, 8);
			table = e & UINT64_C(0x000ffffffffff000);
		}
		put64(table + ((thp_va >> 21) & 511) * 8,
		      pfn_thp * PAGE | X86_P | X86_RW | X86_US | X86_A | X86_D | X86_PSE | X86_NX);
	}
	objs[O_UTABLES].pa = utables_start, objs[O_UTABLES].len = bump - utables_start;
	objs[O_DATA].pa = 0x100000, objs[O_DATA].len = 0x300000;
	objs[O_ANY].pa = 0, objs[O_ANY].len = MEM_SIZE;

	/* Files: the text mapping's struct file, dentries "/", "bin", "fuzz", a mount, inode,
	 * super_block and the name strings, 256 bytes apart. */
	uint64_t f_file = files, f_root = files + 0x100, f_bin = files + 0x200, f_name = files + 0x300;
	uint64_t f_mount = files + 0x400, f_inode = files + 0x500, f_sb = files + 0x600;
	uint64_t f_strings = files + 0x700;
	memcpy(mem + f_strings, "/\0bin\0fuzz", 11);
	const int64_t o_mnt = off_of(PS_KI_MOUNT_MNT);
	putm(f_file, PS_KI_FILE_PATH_MNT, direct(f_mount) + (uint64_t)o_mnt);
	putm(f_file, PS_KI_FILE_PATH_DENTRY, direct(f_name));
	putm(f_file, PS_KI_FILE_INODE, direct(f_inode));
	struct { uint64_t pa, parent, str; unsigned len; } d[3] = {
		{ f_root, f_root, f_strings, 1 }, { f_bin, f_root, f_strings + 2, 3 },
		{ f_name, f_bin, f_strings + 6, 4 },
	};
	for (int i = 0; i < 3; i++) {
		putm(d[i].pa, PS_KI_DENTRY_PARENT, direct(d[i].parent));
		putm(d[i].pa, PS_KI_DENTRY_NAME, direct(d[i].str));
		putm(d[i].pa, PS_KI_DENTRY_NAME_LEN, d[i].len);
		if (i && ki.member[PS_KI_DENTRY_HASH_PPREV].offset != PS_KI_ABSENT)
			putm(d[i].pa, PS_KI_DENTRY_HASH_PPREV, direct(files + 0xf00)); /* hashed */
	}
	putm(f_mount, PS_KI_MOUNT_PARENT, direct(f_mount));
	putm(f_mount, PS_KI_MOUNT_MOUNTPOINT, direct(f_root));
	put64(f_mount + (uint64_t)o_mnt + (uint64_t)off_of(PS_KI_VFSMOUNT_ROOT), direct(f_root));
	putm(f_inode, PS_KI_INODE_INO, 42);
	putm(f_inode, PS_KI_INODE_SB, direct(f_sb));
	putm(f_sb, PS_KI_SB_DEV, (8u << 20) | 1u);

	/* VMAs, 256 bytes apart: text (file), anon (present, swapped, empty), THP. */
	struct { uint64_t start, end, flags, file, anon; } v[3] = {
		{ text_va, text_va + 2 * PAGE, 0x875, direct(f_file), 0 },
		{ anon_va, anon_va + 4 * PAGE, 0x100073, 0, direct(files + 0xe00) },
		{ thp_va, thp_va + (UINT64_C(2) << 20), 0x20100073, 0, direct(files + 0xe00) },
	};
	for (int i = 0; i < 3; i++) {
		uint64_t pa = vmas + (uint64_t)i * 256;
		putm(pa, PS_KI_VMA_START, v[i].start);
		putm(pa, PS_KI_VMA_END, v[i].end);
		putm(pa, PS_KI_VMA_MM, direct(mm));
		putm(pa, PS_KI_VMA_FLAGS, v[i].flags);
		putm(pa, PS_KI_VMA_PGOFF, 0);
		putm(pa, PS_KI_VMA_FILE, v[i].file);
		putm(pa, PS_KI_VMA_ANON_VMA, v[i].anon);
	}

	/* The maple tree (lib/maple_tree.c, 6.1): ma_root = root enode | 2; enode = node |
	 * type << 3 | 4; an arange_64 root over leaf_64 [0, split] and [split + 1, max]. */
	const uint64_t split = thp_va - 1;
	uint64_t n0 = maple, n1 = maple + 0x100, n2 = maple + 0x200;
	uint64_t mt = direct(mm) + (uint64_t)off_of(PS_KI_MM_MT);
	put64(mm + (uint64_t)off_of(PS_KI_MM_MT) + (uint64_t)off_of(PS_KI_MAPLE_TREE_ROOT),
	      direct(n0) | 3u << 3 | 4 | 2);
	put64(n0 + (uint64_t)off_of(PS_KI_MAPLE_NODE_PARENT), mt | 1); /* MA_ROOT_PARENT */
	const int64_t ap = off_of(PS_KI_MAPLE_ARANGE64_PIVOT), as = off_of(PS_KI_MAPLE_ARANGE64_SLOT);
	put64(n0 + (uint64_t)ap, split);
	put64(n0 + (uint64_t)ap + 8, UINT64_MAX);
	put64(n0 + (uint64_t)as, direct(n1) | 1u << 3);
	put64(n0 + (uint64_t)as + 8, direct(n2) | 1u << 3);
	if (ki.member[PS_KI_MAPLE_ARANGE64_META].offset != PS_KI_ABSENT)
		put(n0 + (uint64_t)off_of(PS_KI_MAPLE_ARANGE64_META), 1, 1); /* end = slot 1 */
	const int64_t rp = off_of(PS_KI_MAPLE_RANGE64_PIVOT), rs = off_of(PS_KI_MAPLE_RANGE64_SLOT);
	const uint64_t leaf1_piv[5] = { text_va - 1, text_va + 2 * PAGE - 1, anon_va - 1, anon_va + 4 * PAGE - 1, split };
	const uint64_t leaf1_slot[5] = { 0, direct(vmas), 0, direct(vmas + 256), 0 };
	put64(n1 + (uint64_t)off_of(PS_KI_MAPLE_NODE_PARENT), direct(n0) | 0x6); /* slot 0, arange */
	for (int i = 0; i < 5; i++) {
		put64(n1 + (uint64_t)rp + 8 * (uint64_t)i, leaf1_piv[i]);
		put64(n1 + (uint64_t)rs + 8 * (uint64_t)i, leaf1_slot[i]);
	}
	put64(n2 + (uint64_t)off_of(PS_KI_MAPLE_NODE_PARENT), direct(n0) | 0x16); /* slot 1 */
	put64(n2 + (uint64_t)rp, thp_va + (UINT64_C(2) << 20) - 1);
	put64(n2 + (uint64_t)rp + 8, UINT64_MAX);
	put64(n2 + (uint64_t)rs, direct(vmas + 512));
	if (ki.member[PS_KI_MAPLE_RANGE64_META].offset != PS_KI_ABSENT) {
		put(n1 + (uint64_t)off_of(PS_KI_MAPLE_RANGE64_META), 4, 1);
		put(n2 + (uint64_t)off_of(PS_KI_MAPLE_RANGE64_META), 1, 1);
	}

	/* mm_struct. */
	putm(mm, PS_KI_MM_PGD, direct(user_pgd_pa));
	putm(mm, PS_KI_MM_START_BRK, 0x1000000);
	putm(mm, PS_KI_MM_BRK, 0x1000000);
	putm(mm, PS_KI_MM_START_STACK, UINT64_C(0x7ffffffde000));
	putm(mm, PS_KI_MM_TOTAL_VM, 4 + 2 + 512);
	putm(mm, PS_KI_MM_MAP_COUNT, 3);
	if (ki.member[PS_KI_MM_EXE_FILE].offset != PS_KI_ABSENT)
		putm(mm, PS_KI_MM_EXE_FILE, direct(f_file));
	if (ki.member[PS_KI_MM_RSS_STAT].offset != PS_KI_ABSENT) {
		uint64_t rss = mm + (uint64_t)off_of(PS_KI_MM_RSS_STAT);
		put64(rss, 2), put64(rss + 8, 2 + 512), put64(rss + 16, 1); /* file, anon, swap */
	}

	/* struct pages: file text, anon, a THP head and its tails; PG_* from the facts. */
	const uint64_t pg = ki.enumval[PS_KI_PG_UPTODATE] >= 0 ? UINT64_C(1) << ki.enumval[PS_KI_PG_UPTODATE] : 0;
#define PGF(ID) (ki.enumval[PS_KI_##ID] >= 0 && ki.enumval[PS_KI_##ID] < 64 ? UINT64_C(1) << ki.enumval[PS_KI_##ID] : 0)
	const uint64_t lru = PGF(PG_LRU), ref = PGF(PG_REFERENCED), dirty = PGF(PG_DIRTY);
	const uint64_t swapbacked = PGF(PG_SWAPBACKED), head = PGF(PG_HEAD), active = PGF(PG_ACTIVE);
	for (uint64_t pfn = 0; pfn < NPFNS; pfn++) {
		uint64_t p = pages + pfn * psize;
		putm(p, PS_KI_PAGE_REFCOUNT, 1);
		putm(p, PS_KI_PAGE_MAPCOUNT, UINT32_MAX); /* -1: not mapped */
	}
	for (uint64_t i = 0; i < 2; i++) {
		uint64_t p = pages + (pfn_text + i) * psize;
		putm(p, PS_KI_PAGE_FLAGS, pg | lru | ref);
		putm(p, PS_KI_PAGE_REFCOUNT, 2);
		putm(p, PS_KI_PAGE_MAPCOUNT, 0);
		putm(p, PS_KI_PAGE_MAPPING, direct(files + 0xd00)); /* an address_space */
		p = pages + (pfn_anon + i) * psize;
		putm(p, PS_KI_PAGE_FLAGS, pg | lru | dirty | swapbacked);
		putm(p, PS_KI_PAGE_MAPCOUNT, 0);
		putm(p, PS_KI_PAGE_MAPPING, direct(files + 0xe00) | 1); /* PAGE_MAPPING_ANON */
	}
	uint64_t h = pages + pfn_thp * psize;
	putm(h, PS_KI_PAGE_FLAGS, pg | lru | swapbacked | head | active);
	putm(h, PS_KI_PAGE_MAPPING, direct(files + 0xe00) | 1);
	for (uint64_t i = 1; i < 512; i++) {
		uint64_t p = pages + (pfn_thp + i) * psize;
		putm(p, PS_KI_PAGE_COMPOUND_HEAD, (VMEMMAP_KVA + pfn_thp * psize) | 1);
		putm(p, PS_KI_PAGE_MAPPING, 0x400); /* TAIL_MAPPING */
	}
	uint64_t first_tail = pages + (pfn_thp + 1) * psize;
	if (ki.member[PS_KI_PAGE_COMPOUND_DTOR].offset != PS_KI_ABSENT)
		putm(first_tail, PS_KI_PAGE_COMPOUND_DTOR, 3); /* TRANSHUGE_PAGE_DTOR */
	if (ki.member[PS_KI_PAGE_COMPOUND_ORDER].offset != PS_KI_ABSENT)
		putm(first_tail, PS_KI_PAGE_COMPOUND_ORDER, 9);
	if (ki.member[PS_KI_PAGE_COMPOUND_MAPCOUNT].offset != PS_KI_ABSENT)
		putm(first_tail, PS_KI_PAGE_COMPOUND_MAPCOUNT, 0); /* one PMD mapping */
#undef PGF
	(void)ref;

	snprintf(vmcoreinfo_text[0], 64, "%" PRIx64, image(init_task));
	snprintf(vmcoreinfo_text[1], 64, "%" PRIx64, image(kernel_pgd_pa));
	snprintf(vmcoreinfo_text[2], 64, "%" PRIx64, image(globals));
	snprintf(vmcoreinfo_text[3], 64, "%" PRIx64, image(globals + 8));
	snprintf(vmcoreinfo_text[4], 64, "%" PRIx64, image(globals + 16));
}

/* ---- the back-end ------------------------------------------------------------------------ */

struct fuzz_target {
	bool exclude_data;     /* PFNs of user data read as "excluded" (a -d 31 dump) */
	bool arm64;
	char arm_vmci[6][64];  /* arm64 mode: VA_BITS, PHYS_OFFSET, kimage_voffset, swapper, PAGESIZE */
	uint32_t page_size;
	bool l5;
};

static enum ps_read_status fz_pfn_status(void *ctx, uint64_t pfn)
{
	const struct fuzz_target *f = ctx;
	if (pfn >= MEM_SIZE / f->page_size)
		return PS_READ_NODATA;
	if (f->exclude_data && pfn * f->page_size >= 0x100000)
		return PS_READ_EXCLUDED;
	return PS_READ_OK;
}

static enum ps_read_status fz_read_phys(void *ctx, uint64_t pa, void *buf, size_t len)
{
	const struct fuzz_target *f = ctx;
	if (pa >= MEM_SIZE || len > MEM_SIZE - pa)
		return PS_READ_NODATA;
	for (uint64_t p = pa / f->page_size; p <= (pa + len - (len != 0)) / f->page_size; p++) {
		enum ps_read_status st = fz_pfn_status(ctx, p);
		if (st != PS_READ_OK)
			return st;
	}
	memcpy(buf, mem + pa, len);
	return PS_READ_OK;
}

static const char *fz_vmcoreinfo(void *ctx, const char *key)
{
	const struct fuzz_target *f = ctx;
	if (f->arm64) {
		static const char *const akeys[] = { "NUMBER(VA_BITS)", "NUMBER(PHYS_OFFSET)",
						     "NUMBER(kimage_voffset)", "SYMBOL(swapper_pg_dir)",
						     "PAGESIZE", "OSRELEASE" };
		for (int i = 0; i < 6; i++)
			if (strcmp(key, akeys[i]) == 0)
				return f->arm_vmci[i];
		return NULL;
	}
	if (strcmp(key, "OSRELEASE") == 0)
		return "6.1.0-fuzz";
	if (strcmp(key, "PAGESIZE") == 0)
		return "4096";
	if (strcmp(key, "SYMBOL(init_task)") == 0)
		return vmcoreinfo_text[0];
	if (strcmp(key, "SYMBOL(init_top_pgt)") == 0)
		return vmcoreinfo_text[1];
	if (strcmp(key, "SYMBOL(page_offset_base)") == 0)
		return vmcoreinfo_text[2];
	if (strcmp(key, "SYMBOL(vmemmap_base)") == 0)
		return vmcoreinfo_text[3];
	if (strcmp(key, "SYMBOL(max_pfn)") == 0)
		return vmcoreinfo_text[4];
	if (strcmp(key, "NUMBER(phys_base)") == 0 || strcmp(key, "KERNELOFFSET") == 0)
		return "0";
	if (strcmp(key, "NUMBER(pgtable_l5_enabled)") == 0)
		return f->l5 ? "1" : "0";
	if (strcmp(key, "SIZE(page)") == 0)
		return "64";
	return NULL;
}

static const struct ps_target_ops fz_ops = {
	.read_phys = fz_read_phys,
	.pfn_status = fz_pfn_status,
	.vmcoreinfo = fz_vmcoreinfo,
};

/* ---- patches -------------------------------------------------------------------------------- */

static struct fz_patch_log patch_log;

static void apply_patches(const uint8_t *p, size_t n)
{
	patch_log.n = 0;
	while (n >= 4 && !fz_patch_full(&patch_log)) {
		unsigned obj = p[0] % O_COUNT;
		uint64_t off = (uint64_t)p[1] | (uint64_t)p[2] << 8;
		unsigned len = p[3] % FZ_MAX_PATCH_LEN + 1;
		p += 4, n -= 4;
		if (len > n)
			len = (unsigned)n;
		if (!len || !objs[obj].len)
			break;
		if (obj == O_ANY || obj == O_DATA)
			off *= 64; /* reach the whole region with 16 bits */
		uint64_t pa = objs[obj].pa + off % objs[obj].len;
		if (pa + len > MEM_SIZE)
			len = (unsigned)(MEM_SIZE - pa);
		fz_patch(&patch_log, mem + pa, p, len);
		p += len, n -= len;
	}
}


/* ---- mode 0/1: the whole walker ------------------------------------------------------------ */

static FILE *devnull;


static void run_walker(uint8_t opt)
{
	struct fuzz_target f = { .exclude_data = opt & 0x40, .page_size = PAGE };
	struct ps_target t = { .ops = &fz_ops, .ctx = &f, .arch = "x86_64", .ptr_size = 8,
			       .page_size = PAGE, .max_pfn = NPFNS };
	char *err = NULL;
	struct ps_walker *w = ps_walker_open(&t, &err);
	if (!w) {
		free(err);
		return;
	}
	if (ps_walker_set_kinfo(w, &ki, &err) != 0) {
		free(err);
		ps_walker_close(w);
		return;
	}
	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	struct ps_writer *pw = ps_writer_open_stream(fp, "walker-out");
	struct ps_header h = { .source = "coredump", .arch = ps_walker_arch(w),
			       .big_endian = ps_walker_big_endian(w), .page_size = ps_walker_page_size(w),
			       .release = ps_walker_release(w), .dump = "fuzz", .tool = "fuzz_walker" };
	static const uint64_t pids[] = { 1, 99 };
	struct ps_walk_options o = {
		.detail = (enum ps_walk_detail)((opt >> 2) % 3),
		.pids = pids,
		.npids = opt & 0x10 ? 2 : 0,
		.max_tasks = opt & 0x80 ? 2 : 0,
		.trace = opt & 0x20 ? devnull : NULL,
	};
	struct ps_walk_result res;
	int rc = -1;
	if (ps_write_header(pw, &h) == 0)
		rc = ps_walker_run(w, pw, &o, &res, &err);
	free(err);
	bool wfailed = ps_writer_close(pw, rc < 0, NULL) < 0;
	fclose(fp);
	if (rc >= 0 && !wfailed)
		read_back(out, outlen);
	free(out);
	ps_walker_close(w);
}

/* ---- modes 2/3: the page-table walker alone ------------------------------------------------ */

struct visit_state {
	uint64_t start, end, last_va, events;
	unsigned page_shift;
	bool any;
};

static int visit(void *arg, enum ps_pt_event ev, uint64_t va, uint64_t npages, unsigned shift,
		 const struct ps_pt_entry *e)
{
	struct visit_state *s = arg;
	(void)shift;
	if (npages == 0 || va < s->start || (s->any && va < s->last_va) ||
	    ((npages - 1) >> (64 - s->page_shift)) != 0 ||
	    va + ((npages - 1) << s->page_shift) > s->end - 1) {
		fprintf(stderr, "ps_pt_walk broke its contract: event %d at %" PRIx64 " npages %" PRIu64
			" in [%" PRIx64 ", %" PRIx64 ") after %" PRIx64 "\n", ev, va, npages, s->start,
			s->end, s->last_va);
		abort();
	}
	if (ev == PS_PT_EV_BAD && !e->why)
		abort(); /* a bad entry always says why */
	s->last_va = va + ((npages - 1) << s->page_shift);
	s->any = true;
	/* Bounded work per input: stop after many events, as a visitor may. */
	return ++s->events > 200000 ? 1 : 0;
}

static void run_pt(uint8_t opt, uint8_t arg, const uint8_t *tail, size_t ntail)
{
	struct fuzz_target f = { .page_size = PAGE };
	struct ps_target t = { .ops = &fz_ops, .ctx = &f, .ptr_size = 8, .max_pfn = NPFNS };
	if ((opt & 3) == 3) {
		static const unsigned va_bits[8] = { 39, 42, 47, 48, 52, 36, 48, 39 };
		static const uint32_t sizes[4] = { 4096, 16384, 65536, 4096 };
		f.arm64 = true;
		f.page_size = sizes[arg & 3];
		snprintf(f.arm_vmci[0], 64, "%u", va_bits[(arg >> 2) & 7]);
		snprintf(f.arm_vmci[1], 64, "0");
		snprintf(f.arm_vmci[2], 64, "%" PRIx64, UINT64_C(0xffff800008000000));
		snprintf(f.arm_vmci[3], 64, "%" PRIx64, UINT64_C(0xffff800008000000) + kernel_pgd_pa);
		snprintf(f.arm_vmci[4], 64, "%u", f.page_size);
		snprintf(f.arm_vmci[5], 64, "6.1.0-fuzz");
		t.arch = "arm64";
		t.page_size = f.page_size;
		t.max_pfn = MEM_SIZE / f.page_size;
		t.big_endian = arg & 0x20;
	} else {
		f.l5 = arg & 1;
		t.arch = "x86_64";
		t.page_size = PAGE;
	}
	struct ps_core *c = calloc(1, sizeof *c);
	if (!c)
		abort();
	if (ps_core_open(c, &t) == 0) {
		/* The top table: the user PGD, the kernel's, or any page the input names. */
		uint64_t top = (arg & 0xc0) == 0 ? user_pgd_pa : (arg & 0xc0) == 0x40 ? kernel_pgd_pa :
			       ((uint64_t)(tail && ntail ? tail[0] : 0) * PAGE) % MEM_SIZE;
		/* 1 GiB windows (a visitor may see every base page of its range). */
		uint64_t starts[3] = { 0, UINT64_C(0x8000000000) - (UINT64_C(1) << 29),
				       ntail >= 9 ? 0 : UINT64_C(0x7fffc0000000) };
		if (ntail >= 9)
			memcpy(&starts[2], tail + 1, 8);
		for (int i = 0; i < 3; i++) {
			struct visit_state s = { .start = starts[i] & ~(uint64_t)(f.page_size - 1),
						 .page_shift = c->page_shift };
			s.end = s.start + (UINT64_C(1) << 30);
			if (s.end < s.start)
				s.end = UINT64_MAX & ~(uint64_t)(f.page_size - 1);
			if (s.end > s.start)
				(void)ps_pt_walk(c, top, s.start, s.end, visit, &s);
		}
		uint64_t pa;
		(void)ps_pt_translate(c, kernel_pgd_pa, VMEMMAP_KVA + 0x1000, &pa);
		(void)ps_pt_translate(c, top, starts[2], &pa);
		uint8_t buf[64];
		(void)ps_kread(c, VMEMMAP_KVA + 0x40 * 0x100, buf, sizeof buf);
		(void)ps_kread(c, UINT64_C(0xffff000000001000), buf, sizeof buf);
	}
	ps_core_close(c);
	free(c);
}

/* ---- libFuzzer -------------------------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	mem = calloc(1, MEM_SIZE);
	devnull = fopen("/dev/null", "w");
	if (!mem || !devnull)
		die("out of memory");
	const char *path = getenv("PAGESLEUTH_FUZZ_PROFILE");
	char tmp[] = "/tmp/fuzz_walker_profile.XXXXXX";
	if (!path) {
		int fd = mkstemp(tmp);
		if (fd < 0 || write(fd, builtin_profile, sizeof builtin_profile - 1) != (ssize_t)(sizeof builtin_profile - 1))
			die("cannot write the built-in profile");
		close(fd);
		path = tmp;
	}
	char *err = NULL;
	if (ps_profile_read(&ki, path, &err) != 0) {
		fprintf(stderr, "fuzz_walker: %s: %s\n", path, err ? err : "cannot read the profile");
		abort();
	}
	if (path == tmp)
		unlink(tmp);
	build_kernel();
	/* The unpatched kernel must give a complete snapshot: otherwise the fuzzer would only
	 * exercise error paths. */
	struct fuzz_target f = { .page_size = PAGE };
	struct ps_target t = { .ops = &fz_ops, .ctx = &f, .arch = "x86_64", .ptr_size = 8,
			       .page_size = PAGE, .max_pfn = NPFNS };
	struct ps_walker *w = ps_walker_open(&t, &err);
	if (!w || ps_walker_set_kinfo(w, &ki, &err) != 0) {
		fprintf(stderr, "fuzz_walker: the synthetic kernel does not open: %s\n", err ? err : "?");
		abort();
	}
	struct ps_writer *pw = ps_writer_open_stream(getenv("FUZZ_WALKER_SHOW") ? stderr : devnull, "built-in");
	struct ps_header h = { .source = "coredump", .arch = "x86_64", .page_size = PAGE, .dump = "fuzz" };
	struct ps_walk_options o = { .detail = PS_DETAIL_PAGES };
	struct ps_walk_result res;
	int rc = ps_write_header(pw, &h) == 0 ? ps_walker_run(w, pw, &o, &res, &err) : -1;
	ps_writer_close(pw, false, NULL);
	ps_walker_close(w);
	if (rc != 0 || res.mms != 1 || res.vmas != 3 || res.pages != 4 + 512 || res.swap_entries != 1) {
		fprintf(stderr, "fuzz_walker: the synthetic kernel reads as rc %d, %" PRIu64 " mms, %" PRIu64
			" VMAs, %" PRIu64 " pages, %" PRIu64 " swap entries (want 0, 1, 3, 516, 1)%s%s;"
			" FUZZ_WALKER_SHOW=1 prints its records\n", rc, res.mms, res.vmas, res.pages,
			res.swap_entries, err ? ": " : "", err ? err : "");
		abort();
	}
	free(err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t opt = size ? data[0] : 0, arg = size > 1 ? data[1] : 0;
	const uint8_t *patches = size > 2 ? data + 2 : NULL;
	apply_patches(patches, size > 2 ? size - 2 : 0);
	if ((opt & 3) < 2)
		run_walker(opt);
	else
		run_pt(opt, arg, patches, size > 2 ? size - 2 : 0);
	fz_unpatch_all(&patch_log);
	return 0;
}
