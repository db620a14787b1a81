/* kinfo.h - the kernel facts the walker needs: member offsets, struct sizes, enum values
 * and symbol names, as one table.
 *
 * Every type-information source fills the same table by name through struct
 * ps_typeinfo_ops: vmlinux DWARF (typeinfo_dwarf.c), BTF (typeinfo_btf.c, found in the dump
 * or given as a file), a compact profile (profile.c), and in the crash extension crash's own
 * MEMBER_OFFSET/STRUCT_SIZE. Because the walker only ever sees the filled table, the three
 * ways give identical records by construction, and a profile is just this table on disk.
 *
 * Member paths are dotted and may go through anonymous structs/unions and embedded
 * structs ("d_name.len", "f_path.dentry"); the offset is from the start of the outer type.
 * Entries marked OPT are absent on some kernels (the walker checks ps_ki_has*()); a missing
 * REQ entry makes ps_kinfo_fill fail with a message naming it.
 *
 * To need a new fact: add one line here and use it. No source needs to change.
 */
#ifndef PAGESLEUTH_KINFO_H
#define PAGESLEUTH_KINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KI_REQ 1
#define KI_OPT 0

/* X(ID, "type", "member.path", REQ|OPT) -> offset, member size, array length */
#define PS_KI_MEMBERS(X)                                                                      \
	X(TASK_TASKS, "task_struct", "tasks", KI_REQ)                                          \
	X(TASK_PID, "task_struct", "pid", KI_REQ)                                              \
	X(TASK_TGID, "task_struct", "tgid", KI_REQ)                                            \
	X(TASK_MM, "task_struct", "mm", KI_REQ)                                                \
	X(TASK_COMM, "task_struct", "comm", KI_REQ)                                            \
	X(TASK_FLAGS, "task_struct", "flags", KI_REQ)                                          \
	X(TASK_STATE, "task_struct", "__state", KI_OPT)   /* 5.14+ */                          \
	X(TASK_STATE_OLD, "task_struct", "state", KI_OPT) /* before 5.14 */                     \
	X(TASK_EXIT_STATE, "task_struct", "exit_state", KI_REQ)                                \
	X(TASK_REAL_PARENT, "task_struct", "real_parent", KI_REQ)                              \
	X(TASK_SIGNAL, "task_struct", "signal", KI_REQ)                                        \
	X(TASK_THREAD_NODE, "task_struct", "thread_node", KI_REQ)                              \
	X(TASK_MIN_FLT, "task_struct", "min_flt", KI_REQ)                                      \
	X(TASK_MAJ_FLT, "task_struct", "maj_flt", KI_REQ)                                      \
	X(TASK_UTIME, "task_struct", "utime", KI_REQ)                                          \
	X(TASK_STIME, "task_struct", "stime", KI_REQ)                                          \
	X(TASK_START_TIME, "task_struct", "start_time", KI_REQ)                                \
	X(TASK_RSS_STAT, "task_struct", "rss_stat", KI_OPT) /* SPLIT_RSS_COUNTING, < 6.2 */     \
	X(SIGNAL_THREAD_HEAD, "signal_struct", "thread_head", KI_REQ)                          \
	X(MM_MT, "mm_struct", "mm_mt", KI_OPT)    /* maple tree, 6.1+ */                       \
	X(MM_MMAP, "mm_struct", "mmap", KI_OPT)   /* VMA list, before 6.1 */                   \
	X(MM_PGD, "mm_struct", "pgd", KI_REQ)                                                  \
	X(MM_START_BRK, "mm_struct", "start_brk", KI_REQ)                                      \
	X(MM_BRK, "mm_struct", "brk", KI_REQ)                                                  \
	X(MM_START_STACK, "mm_struct", "start_stack", KI_REQ)                                  \
	X(MM_TOTAL_VM, "mm_struct", "total_vm", KI_REQ)                                        \
	X(MM_MAP_COUNT, "mm_struct", "map_count", KI_REQ)                                      \
	X(MM_EXE_FILE, "mm_struct", "exe_file", KI_OPT)                                        \
	X(MM_RSS_STAT, "mm_struct", "rss_stat", KI_OPT)                                        \
	X(MAPLE_TREE_ROOT, "maple_tree", "ma_root", KI_OPT)                                    \
	X(MAPLE_TREE_FLAGS, "maple_tree", "ma_flags", KI_OPT)                                  \
	X(MAPLE_NODE_PARENT, "maple_node", "parent", KI_OPT)                                   \
	X(MAPLE_RANGE64_PIVOT, "maple_range_64", "pivot", KI_OPT)                              \
	X(MAPLE_RANGE64_SLOT, "maple_range_64", "slot", KI_OPT)                                \
	X(MAPLE_ARANGE64_PIVOT, "maple_arange_64", "pivot", KI_OPT)                            \
	X(MAPLE_ARANGE64_SLOT, "maple_arange_64", "slot", KI_OPT)                              \
	X(MAPLE_ARANGE64_META, "maple_arange_64", "meta", KI_OPT)                              \
	X(VMA_START, "vm_area_struct", "vm_start", KI_REQ)                                     \
	X(VMA_END, "vm_area_struct", "vm_end", KI_REQ)                                         \
	X(VMA_NEXT, "vm_area_struct", "vm_next", KI_OPT) /* before 6.1 */                      \
	X(VMA_MM, "vm_area_struct", "vm_mm", KI_REQ)                                           \
	X(VMA_FLAGS, "vm_area_struct", "vm_flags", KI_REQ)                                     \
	X(VMA_PGOFF, "vm_area_struct", "vm_pgoff", KI_REQ)                                     \
	X(VMA_FILE, "vm_area_struct", "vm_file", KI_REQ)                                       \
	X(VMA_ANON_VMA, "vm_area_struct", "anon_vma", KI_REQ)                                  \
	X(FILE_PATH_MNT, "file", "f_path.mnt", KI_REQ)                                         \
	X(FILE_PATH_DENTRY, "file", "f_path.dentry", KI_REQ)                                   \
	X(FILE_INODE, "file", "f_inode", KI_REQ)                                               \
	X(DENTRY_NAME, "dentry", "d_name.name", KI_REQ)                                        \
	X(DENTRY_NAME_LEN, "dentry", "d_name.len", KI_REQ)                                     \
	X(DENTRY_PARENT, "dentry", "d_parent", KI_REQ)                                         \
	X(MOUNT_MNT, "mount", "mnt", KI_REQ)                                                   \
	X(MOUNT_PARENT, "mount", "mnt_parent", KI_REQ)                                         \
	X(MOUNT_MOUNTPOINT, "mount", "mnt_mountpoint", KI_REQ)                                 \
	X(VFSMOUNT_ROOT, "vfsmount", "mnt_root", KI_REQ)                                       \
	X(INODE_INO, "inode", "i_ino", KI_REQ)                                                 \
	X(INODE_SB, "inode", "i_sb", KI_REQ)                                                   \
	X(SB_DEV, "super_block", "s_dev", KI_REQ)                                              \
	X(PAGE_FLAGS, "page", "flags", KI_REQ)                                                 \
	X(PAGE_REFCOUNT, "page", "_refcount", KI_REQ)                                          \
	X(PAGE_MAPCOUNT, "page", "_mapcount", KI_REQ)                                          \
	X(PAGE_MAPPING, "page", "mapping", KI_REQ)                                             \
	X(PAGE_COMPOUND_HEAD, "page", "compound_head", KI_REQ)                                 \
	X(PAGE_COMPOUND_DTOR, "page", "compound_dtor", KI_OPT)     /* < 6.6 */                 \
	X(PAGE_COMPOUND_MAPCOUNT, "page", "compound_mapcount", KI_OPT) /* < 6.2 */             \
	X(PAGE_TYPE, "page", "page_type", KI_OPT)                                              \
	X(FOLIO_ENTIRE_MAPCOUNT, "folio", "_entire_mapcount", KI_OPT) /* 6.2+ */               \
	X(FOLIO_NR_PAGES_MAPPED, "folio", "_nr_pages_mapped", KI_OPT) /* 6.2+ */               \
	X(FOLIO_LARGE_MAPCOUNT, "folio", "_large_mapcount", KI_OPT)   /* 6.10+ */              \
	X(PAGE_EXT_FLAGS, "page_ext", "flags", KI_OPT) /* PG_idle/PG_young on 32-bit */        \
	X(MEM_SECTION_MAP, "mem_section", "section_mem_map", KI_OPT)                           \
	X(UTS_NS_NAME, "uts_namespace", "name", KI_OPT)                                        \
	X(NEW_UTSNAME_RELEASE, "new_utsname", "release", KI_OPT)                               \
	X(SWAP_INFO_FLAGS, "swap_info_struct", "flags", KI_OPT)                               \
	X(MAPLE_RANGE64_META, "maple_range_64", "meta", KI_OPT)     /* data end, 6.1+ */       \
	X(VMA_OPS, "vm_area_struct", "vm_ops", KI_OPT)              /* special mappings */     \
	X(VMA_PRIVATE_DATA, "vm_area_struct", "vm_private_data", KI_OPT)                       \
	X(VMA_ANON_NAME, "vm_area_struct", "anon_name", KI_OPT)     /* CONFIG_ANON_VMA_NAME */ \
	X(ANON_VMA_NAME_NAME, "anon_vma_name", "name", KI_OPT)                                 \
	X(VM_SPECIAL_MAPPING_NAME, "vm_special_mapping", "name", KI_OPT)                       \
	X(MM_CONTEXT_VDSO, "mm_struct", "context.vdso", KI_OPT)     /* x86_64, arm64, ppc */   \
	X(DENTRY_HASH_PPREV, "dentry", "d_hash.pprev", KI_OPT)      /* unhashed: deleted */    \
	X(PAGE_COMPOUND_ORDER, "page", "compound_order", KI_OPT)    /* < 6.6, in page[1] */    \
	X(PERCPU_COUNTER_COUNT, "percpu_counter", "count", KI_OPT)  /* rss_stat, 6.2+ */       \
	/* FLATMEM without VMCOREINFO (32-bit ARM, ppc32): struct pages and page_ext */        \
	X(PGDAT_NODE_MEM_MAP, "pglist_data", "node_mem_map", KI_OPT)                           \
	X(PGDAT_NODE_START_PFN, "pglist_data", "node_start_pfn", KI_OPT)                       \
	X(PGDAT_NODE_SPANNED_PAGES, "pglist_data", "node_spanned_pages", KI_OPT)               \
	X(PGDAT_NODE_PAGE_EXT, "pglist_data", "node_page_ext", KI_OPT) /* FLATMEM page_ext */  \
	X(MEM_SECTION_PAGE_EXT, "mem_section", "page_ext", KI_OPT)   /* SPARSEMEM page_ext */  \
	X(ZONE_FREE_AREA, "zone", "free_area", KI_OPT)               /* nelems = MAX_ORDER */  \
	X(VM_FAULT_ORIG_PTE, "vm_fault", "orig_pte", KI_OPT)         /* size = sizeof(pte_t) */ \
	X(VM_FAULT_ORIG_PMD, "vm_fault", "orig_pmd", KI_OPT)         /* size = sizeof(pmd_t) */ \
	/* The kernel's own counters (kcounters.c): zones, hugetlb pools, block devices */    \
	X(PGDAT_NODE_ZONES, "pglist_data", "node_zones", KI_OPT)     /* nelems = MAX_NR_ZONES */ \
	X(PGDAT_NR_ZONES, "pglist_data", "nr_zones", KI_OPT)                                   \
	X(PGDAT_NODE_ID, "pglist_data", "node_id", KI_OPT)                                     \
	X(ZONE_NAME, "zone", "name", KI_OPT)                                                   \
	X(ZONE_MANAGED_PAGES, "zone", "managed_pages", KI_OPT)                                 \
	X(ZONE_PRESENT_PAGES, "zone", "present_pages", KI_OPT)                                 \
	X(ZONE_WATERMARK, "zone", "_watermark", KI_OPT)    /* 5.0+; watermark before */        \
	X(ZONE_WATERMARK_OLD, "zone", "watermark", KI_OPT)                                     \
	X(ZONE_WATERMARK_BOOST, "zone", "watermark_boost", KI_OPT)                             \
	X(ZONE_VM_STAT, "zone", "vm_stat", KI_OPT)                                             \
	X(FREE_AREA_NR_FREE, "free_area", "nr_free", KI_OPT)                                   \
	X(HSTATE_ORDER, "hstate", "order", KI_OPT)                                             \
	X(HSTATE_NR_HUGE_PAGES, "hstate", "nr_huge_pages", KI_OPT)                             \
	X(HSTATE_FREE_HUGE_PAGES, "hstate", "free_huge_pages", KI_OPT)                         \
	X(HSTATE_RESV_HUGE_PAGES, "hstate", "resv_huge_pages", KI_OPT)                         \
	X(HSTATE_SURPLUS_HUGE_PAGES, "hstate", "surplus_huge_pages", KI_OPT)                   \
	X(SB_INODES, "super_block", "s_inodes", KI_OPT)                                        \
	X(INODE_SB_LIST, "inode", "i_sb_list", KI_OPT)                                         \
	X(INODE_MAPPING, "inode", "i_mapping", KI_OPT)                                         \
	X(ADDRESS_SPACE_NRPAGES, "address_space", "nrpages", KI_OPT)                           \
	/* The frame pass (frames.c): a free block's order, a slab's cache */                 \
	X(PAGE_PRIVATE, "page", "private", KI_OPT)                                             \
	X(SLAB_SLAB_CACHE, "slab", "slab_cache", KI_OPT)   /* struct slab, 5.17+ (d122019bf061) */ \
	X(PAGE_SLAB_CACHE, "page", "slab_cache", KI_OPT)   /* before 5.17 */                  \
	X(KMEM_CACHE_NAME, "kmem_cache", "name", KI_OPT)                                       \
	X(ADDRESS_SPACE_HOST, "address_space", "host", KI_OPT)                                 \
	X(INODE_I_DENTRY, "inode", "i_dentry", KI_OPT)     /* hlist of its dentries */         \
	X(DENTRY_D_ALIAS, "dentry", "d_u.d_alias", KI_OPT)                                    \
	X(DENTRY_D_ALIAS_ANON, "dentry", "d_alias", KI_OPT) /* d_u an anonymous union (2025) */ \
	X(SB_S_MOUNTS, "super_block", "s_mounts", KI_OPT)  /* its mounts, by mnt_instance */   \
	X(MOUNT_MNT_INSTANCE, "mount", "mnt_instance", KI_OPT)                                 \
	X(MOUNT_MNT_NEXT_FOR_SB, "mount", "mnt_next_for_sb", KI_OPT) /* s_mounts a struct mount * (2025) */ \
	/* vmalloc areas (frames.c): vmap_area_list up to 6.8, per-node busy lists since 6.9 */ \
	X(VMAP_AREA_VA_START, "vmap_area", "va_start", KI_OPT)                                 \
	X(VMAP_AREA_VA_END, "vmap_area", "va_end", KI_OPT)                                     \
	X(VMAP_AREA_LIST, "vmap_area", "list", KI_OPT)                                         \
	X(VMAP_AREA_VM, "vmap_area", "vm", KI_OPT)                                             \
	X(VM_STRUCT_ADDR, "vm_struct", "addr", KI_OPT)                                         \
	X(VM_STRUCT_SIZE, "vm_struct", "size", KI_OPT)                                         \
	X(VM_STRUCT_FLAGS, "vm_struct", "flags", KI_OPT)                                       \
	X(VM_STRUCT_CALLER, "vm_struct", "caller", KI_OPT)                                     \
	X(VMAP_NODE_BUSY_HEAD, "vmap_node", "busy.head", KI_OPT) /* 6.9+ (d093602919ad) */ \
	/* loaded modules (modules.c): name and memory; core_layout up to 6.3, mem[] since 6.4 \
	 * (ac3b43283923 "module: replace module_layout with module_memory") */               \
	X(MODULE_LIST, "module", "list", KI_OPT)                                               \
	X(MODULE_NAME, "module", "name", KI_OPT)                                               \
	X(MODULE_CORE_BASE, "module", "core_layout.base", KI_OPT)                              \
	X(MODULE_CORE_SIZE, "module", "core_layout.size", KI_OPT)                              \
	X(MODULE_MEM, "module", "mem", KI_OPT)               /* nelems: MOD_MEM_NUM_TYPES */  \
	X(MODULE_MEMORY_BASE, "module_memory", "base", KI_OPT)                                 \
	X(MODULE_MEMORY_SIZE, "module_memory", "size", KI_OPT)                                 \
	X(ADDRESS_SPACE_A_OPS, "address_space", "a_ops", KI_OPT) /* zsmalloc before 6.0 */     \
	/* CMA areas (frames.c: their free frames): mm/cma.h's struct cma in cma_areas[] */    \
	X(CMA_BASE_PFN, "cma", "base_pfn", KI_OPT)   /* one range per area, until 2025 */     \
	X(CMA_COUNT, "cma", "count", KI_OPT)                                                   \
	X(CMA_RANGES, "cma", "ranges", KI_OPT)       /* since: cma_memrange ranges[nranges] */ \
	X(CMA_NRANGES, "cma", "nranges", KI_OPT)                                               \
	X(CMA_MEMRANGE_BASE_PFN, "cma_memrange", "base_pfn", KI_OPT)                           \
	X(CMA_MEMRANGE_COUNT, "cma_memrange", "count", KI_OPT)                                 \
	X(CMA_NAME, "cma", "name", KI_OPT)                                                     \
	/* /proc/slabinfo of SLUB (slabinfo.c) */                                             \
	X(KMEM_CACHE_LIST, "kmem_cache", "list", KI_OPT)                                       \
	X(KMEM_CACHE_SIZE, "kmem_cache", "size", KI_OPT)                                       \
	X(KMEM_CACHE_OBJECT_SIZE, "kmem_cache", "object_size", KI_OPT)                         \
	X(KMEM_CACHE_OO, "kmem_cache", "oo", KI_OPT)                                           \
	X(KMEM_CACHE_NODE, "kmem_cache", "node", KI_OPT)   /* nelems = MAX_NUMNODES */         \
	X(KMEM_CACHE_PER_NODE, "kmem_cache", "per_node", KI_OPT) /* 2025: {barn, node}[] */    \
	X(PER_NODE_PTRS_NODE, "kmem_cache_per_node_ptrs", "node", KI_OPT)                     \
	X(KMEM_CACHE_NODE_PARTIAL, "kmem_cache_node", "partial", KI_OPT)                       \
	X(KMEM_CACHE_NODE_NR_PARTIAL, "kmem_cache_node", "nr_partial", KI_OPT)                 \
	X(KMEM_CACHE_NODE_NR_SLABS, "kmem_cache_node", "nr_slabs", KI_OPT) /* SLUB_DEBUG */   \
	X(KMEM_CACHE_NODE_TOTAL_OBJECTS, "kmem_cache_node", "total_objects", KI_OPT)          \
	X(SLAB_SLAB_LIST, "slab", "slab_list", KI_OPT)     /* 5.17+ */                         \
	X(PAGE_SLAB_LIST, "page", "slab_list", KI_OPT)     /* before */                        \
	X(SLAB_COUNTERS, "slab", "counters", KI_OPT)                                           \
	X(PAGE_COUNTERS, "page", "counters", KI_OPT)

/* X(ID, "type", REQ|OPT) -> sizeof */
#define PS_KI_SIZES(X)                                                                        \
	X(TASK_STRUCT, "task_struct", KI_REQ)                                                  \
	X(MM_STRUCT, "mm_struct", KI_REQ)                                                      \
	X(VM_AREA_STRUCT, "vm_area_struct", KI_REQ)                                            \
	X(PAGE, "page", KI_REQ)                                                                \
	X(MAPLE_NODE, "maple_node", KI_OPT)                                                    \
	X(PAGE_EXT, "page_ext", KI_OPT)                                                        \
	X(MEM_SECTION_STRUCT, "mem_section", KI_OPT) /* not MEM_SECTION: that is the symbol */ \
	/* Not used by the walk: VMCOREINFO states them, so they check that the type \
	 * information belongs to the dump (ps_walker_set_kinfo). */                           \
	X(PGLIST_DATA, "pglist_data", KI_OPT)                                                  \
	X(ZONE, "zone", KI_OPT)                                                                \
	X(FREE_AREA, "free_area", KI_OPT)                                                      \
	X(PRINTK_RINGBUFFER, "printk_ringbuffer", KI_OPT)                                      \
	X(PRINTK_INFO, "printk_info", KI_OPT)                                                  \
	X(HSTATE, "hstate", KI_OPT)                            /* kcounters.c */              \
	X(SUPER_BLOCK, "super_block", KI_OPT)                                                  \
	X(INODE, "inode", KI_OPT)                                                              \
	X(ADDRESS_SPACE, "address_space", KI_OPT)                                              \
	X(VMAP_AREA, "vmap_area", KI_OPT)                                                      \
	X(VM_STRUCT, "vm_struct", KI_OPT)                                                      \
	X(VMAP_NODE, "vmap_node", KI_OPT)                                                      \
	X(MODULE_MEMORY, "module_memory", KI_OPT)                                              \
	X(CMA, "cma", KI_OPT)                                                                  \
	X(CMA_MEMRANGE, "cma_memrange", KI_OPT)                                                \
	X(KMEM_CACHE, "kmem_cache", KI_OPT)                                                    \
	X(KMEM_CACHE_NODE_STRUCT, "kmem_cache_node", KI_OPT)                                   \
	X(KMEM_CACHE_PER_NODE_PTRS, "kmem_cache_per_node_ptrs", KI_OPT)

/* X(ID, "ENUMERATOR", REQ|OPT) -> value (enum pageflags and friends) */
#define PS_KI_ENUMS(X)                                                                        \
	X(PG_LOCKED, "PG_locked", KI_REQ)                                                      \
	X(PG_REFERENCED, "PG_referenced", KI_REQ)                                              \
	X(PG_UPTODATE, "PG_uptodate", KI_REQ)                                                  \
	X(PG_DIRTY, "PG_dirty", KI_REQ)                                                        \
	X(PG_LRU, "PG_lru", KI_REQ)                                                            \
	X(PG_ACTIVE, "PG_active", KI_REQ)                                                      \
	X(PG_WORKINGSET, "PG_workingset", KI_OPT)                                              \
	X(PG_ERROR, "PG_error", KI_OPT)                                                        \
	X(PG_SLAB, "PG_slab", KI_OPT) /* a page flag up to 6.9, a page type since (46df8e73a4a3) */ \
	X(PG_OWNER_PRIV_1, "PG_owner_priv_1", KI_REQ)                                          \
	X(PG_ARCH_1, "PG_arch_1", KI_OPT)                                                      \
	X(PG_RESERVED, "PG_reserved", KI_REQ)                                                  \
	X(PG_PRIVATE, "PG_private", KI_REQ)                                                    \
	X(PG_PRIVATE_2, "PG_private_2", KI_OPT)                                                \
	X(PG_WRITEBACK, "PG_writeback", KI_REQ)                                                \
	X(PG_HEAD, "PG_head", KI_REQ)                                                          \
	X(PG_MAPPEDTODISK, "PG_mappedtodisk", KI_OPT)                                          \
	X(PG_OWNER_2, "PG_owner_2", KI_OPT) /* PG_mappedtodisk renamed (6.13) */               \
	X(PG_RECLAIM, "PG_reclaim", KI_REQ)                                                    \
	X(PG_SWAPBACKED, "PG_swapbacked", KI_REQ)                                              \
	X(PG_UNEVICTABLE, "PG_unevictable", KI_REQ)                                            \
	X(PG_MLOCKED, "PG_mlocked", KI_OPT)                                                    \
	X(PG_UNCACHED, "PG_uncached", KI_OPT)                                                  \
	X(PG_HWPOISON, "PG_hwpoison", KI_OPT)                                                  \
	X(PG_YOUNG, "PG_young", KI_OPT)                                                        \
	X(PG_IDLE, "PG_idle", KI_OPT)                                                          \
	X(PG_ARCH_2, "PG_arch_2", KI_OPT)                                                      \
	X(PG_SWAPCACHE, "PG_swapcache", KI_OPT)                                                \
	X(PG_DOUBLE_MAP, "PG_double_map", KI_OPT)                                              \
	X(PG_LARGE_RMAPPABLE, "PG_large_rmappable", KI_OPT)                                    \
	X(PAGE_EXT_YOUNG, "PAGE_EXT_YOUNG", KI_OPT)                                            \
	X(PAGE_EXT_IDLE, "PAGE_EXT_IDLE", KI_OPT)                                              \
	X(NR_MM_COUNTERS, "NR_MM_COUNTERS", KI_OPT)                                            \
	X(MM_FILEPAGES, "MM_FILEPAGES", KI_OPT)                                                \
	X(MM_ANONPAGES, "MM_ANONPAGES", KI_OPT)                                                \
	X(MM_SWAPENTS, "MM_SWAPENTS", KI_OPT)                                                  \
	X(MM_SHMEMPAGES, "MM_SHMEMPAGES", KI_OPT)                                              \
	X(HUGETLB_PAGE_DTOR, "HUGETLB_PAGE_DTOR", KI_OPT)                                      \
	X(MAPLE_DENSE, "maple_dense", KI_OPT)                                                  \
	X(MAPLE_LEAF_64, "maple_leaf_64", KI_OPT)                                              \
	X(MAPLE_RANGE_64, "maple_range_64", KI_OPT)                                            \
	X(MAPLE_ARANGE_64, "maple_arange_64", KI_OPT)                                          \
	/* enum pagetype (kversion.c): PGTY_* top byte since 6.12 (commit 4ffca5a96678) */   \
	X(PGTY_BUDDY, "PGTY_buddy", KI_OPT)                                                    \
	X(PGTY_OFFLINE, "PGTY_offline", KI_OPT)                                                \
	X(PGTY_TABLE, "PGTY_table", KI_OPT)                                                    \
	X(PGTY_GUARD, "PGTY_guard", KI_OPT)                                                    \
	X(PGTY_HUGETLB, "PGTY_hugetlb", KI_OPT)                                                \
	X(PGTY_SLAB, "PGTY_slab", KI_OPT)                                                      \
	X(PGTY_ZSMALLOC, "PGTY_zsmalloc", KI_OPT)                                              \
	X(PGTY_UNACCEPTED, "PGTY_unaccepted", KI_OPT)                                          \
	/* ... and inverted bits in 6.10-6.11 (PG_slab above is then one of them) */         \
	X(PAGE_TYPE_BASE, "PAGE_TYPE_BASE", KI_OPT)                                            \
	X(PAGE_MAPCOUNT_RESERVE, "PAGE_MAPCOUNT_RESERVE", KI_OPT)                              \
	X(PG_BUDDY_TYPE, "PG_buddy", KI_OPT)                                                   \
	X(PG_OFFLINE_TYPE, "PG_offline", KI_OPT)                                               \
	X(PG_TABLE_TYPE, "PG_table", KI_OPT)                                                   \
	X(PG_GUARD_TYPE, "PG_guard", KI_OPT)                                                   \
	X(PG_HUGETLB_TYPE, "PG_hugetlb", KI_OPT)                                               \
	X(PG_ZSMALLOC_TYPE, "PG_zsmalloc", KI_OPT)                                             \
	X(PG_UNACCEPTED_TYPE, "PG_unaccepted", KI_OPT)                                         \
	/* kcounters.c: where each part of vmstat_text[] starts (the NUMA parts are absent \
	 * without CONFIG_NUMA; numa_stat_item became the events' enum in 5.14, f19298b9516c) */ \
	X(NR_VM_ZONE_STAT_ITEMS, "NR_VM_ZONE_STAT_ITEMS", KI_OPT)                              \
	X(NR_VM_NUMA_STAT_ITEMS, "NR_VM_NUMA_STAT_ITEMS", KI_OPT)                              \
	X(NR_VM_NUMA_EVENT_ITEMS, "NR_VM_NUMA_EVENT_ITEMS", KI_OPT)                            \
	X(NR_VM_NODE_STAT_ITEMS, "NR_VM_NODE_STAT_ITEMS", KI_OPT)                              \
	X(WMARK_LOW, "WMARK_LOW", KI_OPT)

/* X(ID, "symbol", REQ|OPT) -> runtime address (see ps_core_symbol in core.h) */
#define PS_KI_SYMBOLS(X)                                                                      \
	X(INIT_TASK, "init_task", KI_REQ)                                                      \
	X(INIT_MM, "init_mm", KI_OPT)                                                          \
	X(SWAPPER_PG_DIR, "swapper_pg_dir", KI_OPT)                                            \
	X(INIT_TOP_PGT, "init_top_pgt", KI_OPT)                                                \
	X(INIT_UTS_NS, "init_uts_ns", KI_OPT)                                                  \
	X(PAGE_OFFSET_BASE, "page_offset_base", KI_OPT)  /* x86_64 KASLR */                    \
	X(VMEMMAP_BASE, "vmemmap_base", KI_OPT)          /* x86_64 KASLR */                    \
	X(PHYS_BASE, "phys_base", KI_OPT)                                                      \
	X(MEMSTART_ADDR, "memstart_addr", KI_OPT)        /* arm64 */                           \
	X(KIMAGE_VOFFSET, "kimage_voffset", KI_OPT)      /* arm64 */                           \
	X(EMPTY_ZERO_PAGE, "empty_zero_page", KI_OPT)                                          \
	X(ZERO_PFN, "zero_pfn", KI_OPT)                                                        \
	X(HUGE_ZERO_PAGE, "huge_zero_page", KI_OPT)                                            \
	X(MAX_PFN, "max_pfn", KI_OPT)                                                          \
	X(NR_SWAPFILES, "nr_swapfiles", KI_OPT)                                                \
	X(SWAP_INFO, "swap_info", KI_OPT)                                                      \
	X(MEM_SECTION, "mem_section", KI_OPT)                                                  \
	X(VMCOREINFO_DATA, "vmcoreinfo_data", KI_OPT)                                          \
	X(START_BTF, "__start_BTF", KI_OPT)                                                    \
	X(STOP_BTF, "__stop_BTF", KI_OPT)                                                      \
	X(STEXT, "_stext", KI_OPT)                                                             \
	X(JIFFIES_64, "jiffies_64", KI_OPT)                                                    \
	X(CONTIG_PAGE_DATA, "contig_page_data", KI_OPT)  /* FLATMEM */                         \
	X(HIGH_MEMORY, "high_memory", KI_OPT)            /* 32-bit: end of the linear map */   \
	X(PAGE_EXT_SIZE, "page_ext_size", KI_OPT)        /* stride of the page_ext array */    \
	X(PV_PHYS_PFN_OFFSET, "__pv_phys_pfn_offset", KI_OPT) /* 32-bit ARM PHYS_OFFSET */     \
	X(VIRT_PHYS_OFFSET, "virt_phys_offset", KI_OPT)  /* ppc32 Book-E: __va - __pa */       \
	X(TLBCAM_INDEX, "tlbcam_index", KI_OPT)          /* ppc32: an e500 kernel */           \
	X(TLB_44X_INDEX, "tlb_44x_index", KI_OPT)        /* ppc32: a 44x kernel */        \
	/* ppc32: which MMU (arch_ppc32.c; functions, which kallsyms always has) */           \
	X(LOADCAM_ENTRY, "loadcam_entry", KI_OPT)        /* e500 */                            \
	X(MAP_MEM_IN_CAMS, "map_mem_in_cams", KI_OPT)    /* e500 */                            \
	X(FINISH_TLB_LOAD_44X, "finish_tlb_load_44x", KI_OPT) /* 44x (head_44x.S) */          \
	X(PPC44X_PIN_TLB, "ppc44x_pin_tlb", KI_OPT)      /* 44x */                             \
	X(TLB_44X_HWATER, "tlb_44x_hwater", KI_OPT)      /* 44x */                             \
	X(HASH_PAGE, "hash_page", KI_OPT)                /* book3s32 (hash MMU) */             \
	X(ADD_HASH_PAGE, "add_hash_page", KI_OPT)        /* book3s32 */                        \
	X(FLUSH_HASH_PAGES, "flush_hash_pages", KI_OPT)  /* book3s32 */                       \
	/* The kernel's own counters (kcounters.c): what /proc/meminfo and vmstat read */     \
	X(VMSTAT_TEXT, "vmstat_text", KI_OPT)                                                  \
	X(VM_ZONE_STAT, "vm_zone_stat", KI_OPT)                                                \
	X(VM_NUMA_EVENT, "vm_numa_event", KI_OPT)        /* 5.14+ */                           \
	X(VM_NUMA_STAT, "vm_numa_stat", KI_OPT)          /* before 5.14 */                     \
	X(VM_NODE_STAT, "vm_node_stat", KI_OPT)                                                \
	X(TOTALRAM_PAGES, "_totalram_pages", KI_OPT)     /* 5.0+, an atomic_long_t */          \
	X(TOTALRAM_PAGES_OLD, "totalram_pages", KI_OPT)  /* before 5.0 */                      \
	X(TOTALRESERVE_PAGES, "totalreserve_pages", KI_OPT)                                    \
	X(TOTAL_SWAP_PAGES, "total_swap_pages", KI_OPT)                                        \
	X(NR_SWAP_PAGES, "nr_swap_pages", KI_OPT)                                              \
	X(VM_COMMITTED_AS, "vm_committed_as", KI_OPT)                                          \
	X(SYSCTL_OVERCOMMIT_RATIO, "sysctl_overcommit_ratio", KI_OPT)                          \
	X(SYSCTL_OVERCOMMIT_KBYTES, "sysctl_overcommit_kbytes", KI_OPT)                        \
	X(NR_VMALLOC_PAGES, "nr_vmalloc_pages", KI_OPT)                                        \
	X(PCPU_NR_POPULATED, "pcpu_nr_populated", KI_OPT)                                      \
	X(PCPU_NR_UNITS, "pcpu_nr_units", KI_OPT)                                              \
	X(TOTALCMA_PAGES, "totalcma_pages", KI_OPT)  /* in page_alloc.c with or without CMA */ \
	X(CMA_AREAS, "cma_areas", KI_OPT)            /* mm/cma.c: CONFIG_CMA */                \
	X(CMA_AREA_COUNT, "cma_area_count", KI_OPT)                                            \
	X(NUM_POISONED_PAGES, "num_poisoned_pages", KI_OPT) /* CONFIG_MEMORY_FAILURE */       \
	X(HSTATES, "hstates", KI_OPT)                                                          \
	X(HUGETLB_MAX_HSTATE, "hugetlb_max_hstate", KI_OPT)                                    \
	X(DEFAULT_HSTATE_IDX, "default_hstate_idx", KI_OPT)                                    \
	X(BLOCKDEV_SUPERBLOCK, "blockdev_superblock", KI_OPT)                                  \
	X(SWAPPER_SPACES, "swapper_spaces", KI_OPT)      /* SwapCached before 5.12 */          \
	X(NR_SWAPPER_SPACES, "nr_swapper_spaces", KI_OPT)                                      \
	X(NODE_DATA, "node_data", KI_OPT)                /* NUMA: pglist_data *[] */            \
	X(NR_ONLINE_NODES, "nr_online_nodes", KI_OPT)                                          \
	X(TOTALHIGH_PAGES, "_totalhigh_pages", KI_OPT)   /* HIGHMEM */                         \
	X(VMAP_AREA_LIST_SYM, "vmap_area_list", KI_OPT)  /* busy vmap areas, up to 6.8 */     \
	X(VMAP_NODES, "vmap_nodes", KI_OPT)              /* 6.9+: struct vmap_node * */        \
	X(NR_VMAP_NODES, "nr_vmap_nodes", KI_OPT)                                              \
	X(SLAB_CACHES, "slab_caches", KI_OPT)            /* every kmem_cache, by .list */     \
	X(MODULES, "modules", KI_OPT)                    /* the loaded modules, by .list */   \
	/* zsmalloc's pages before it had a page type (PG_zsmalloc): page->mapping is &zsmalloc_mops | \
	 * PAGE_MAPPING_MOVABLE since 6.0 (68f2736a8583), an address_space whose a_ops is \
	 * &zsmalloc_aops before; in the zsmalloc module when it is one (modules.c) */          \
	X(ZSMALLOC_MOPS, "zsmalloc_mops", KI_OPT)                                              \
	X(ZSMALLOC_AOPS, "zsmalloc_aops", KI_OPT)                                              \
	X(NR_NODE_IDS, "nr_node_ids", KI_OPT)            /* kmem_cache.node[] is that long */

#define PS_KI_ENUM_ID(ID, ...) PS_KI_##ID,
enum ps_ki_member { PS_KI_MEMBERS(PS_KI_ENUM_ID) PS_KI_NMEMBERS };
enum ps_ki_size { PS_KI_SIZES(PS_KI_ENUM_ID) PS_KI_NSIZES };
enum ps_ki_enum { PS_KI_ENUMS(PS_KI_ENUM_ID) PS_KI_NENUMS };
enum ps_ki_symbol { PS_KI_SYMBOLS(PS_KI_ENUM_ID) PS_KI_NSYMBOLS };
#undef PS_KI_ENUM_ID

#define PS_KI_ABSENT INT64_MIN

struct ps_kinfo_member {
	int64_t offset;   /* bytes from the outer type's start; PS_KI_ABSENT if absent */
	uint32_t size;    /* sizeof the member (whole array for arrays) */
	uint32_t nelems;  /* array length, 0 for a non-array */
};

struct ps_kinfo {
	struct ps_kinfo_member member[PS_KI_NMEMBERS];
	int64_t size[PS_KI_NSIZES];   /* PS_KI_ABSENT if absent */
	int64_t enumval[PS_KI_NENUMS]; /* PS_KI_ABSENT if absent */
	/* Link-time symbol addresses (before KASLR), 0 if the source has none (BTF has no
	 * symbols: they come from kallsyms or VMCOREINFO in the dump). */
	uint64_t symbol[PS_KI_NSYMBOLS];
	char source[64];   /* "dwarf:/path/vmlinux", "btf:dump", "btf:FILE", "profile:FILE", "crash" */
	char release[65];  /* the kernel release the information belongs to, "" if unknown */
	char arch[16];     /* "" if unknown (BTF does not say) */
	char build_id[41]; /* VMCOREINFO BUILD-ID format, "" if unknown */
};

/* How a source answers by name. Each returns 0 when found, -1 when absent (no message). */
struct ps_typeinfo_ops {
	int (*member)(void *ctx, const char *type, const char *path, struct ps_kinfo_member *out);
	int (*type_size)(void *ctx, const char *type, int64_t *out);
	int (*enum_value)(void *ctx, const char *enumerator, int64_t *out);
	int (*symbol)(void *ctx, const char *name, uint64_t *out); /* NULL: source has none */
};

/* Fill KI from a source. Returns 0, or -1 with *err = "what: missing task_struct.tasks, ...".
 * Absent OPT entries are not errors. Overwrites the four tables (symbols stay 0 when the
 * source has none) and leaves source/release/arch/build_id alone: set those yourself. */
int ps_kinfo_fill(struct ps_kinfo *ki, const struct ps_typeinfo_ops *ops, void *ctx, char **err);
void ps_kinfo_init(struct ps_kinfo *ki); /* everything absent */
/* ki->source = "KIND:NAME", or "KIND:BASENAME" when NAME does not fit. */
void ps_kinfo_set_source(struct ps_kinfo *ki, const char *kind, const char *name);

const char *ps_ki_member_name(enum ps_ki_member id); /* "task_struct.tasks" */
const char *ps_ki_size_name(enum ps_ki_size id);
const char *ps_ki_enum_name(enum ps_ki_enum id);
const char *ps_ki_symbol_name(enum ps_ki_symbol id);

static inline bool ps_ki_has(const struct ps_kinfo *ki, enum ps_ki_member id)
{
	return ki->member[id].offset != PS_KI_ABSENT;
}
static inline bool ps_ki_has_enum(const struct ps_kinfo *ki, enum ps_ki_enum id)
{
	return ki->enumval[id] != PS_KI_ABSENT;
}

/* ---- sources (each in its own file) ------------------------------------------------- */

/* typeinfo_btf.c: raw BTF bytes (the kernel's .BTF section, /sys/kernel/btf/vmlinux, or a
 * pahole --btf_encode_detached file); data is copied. */
struct ps_btf_source;
struct ps_btf_source *ps_btf_source_open(const void *data, size_t len, const char *name, char **err);
struct ps_btf_source *ps_btf_source_open_file(const char *path, char **err);
void ps_btf_source_close(struct ps_btf_source *s);
extern const struct ps_typeinfo_ops ps_btf_typeinfo_ops;
/* Open the BTF file PATH, fill KI from it (source "btf:PATH") and close it: 0, or -1 with
 * *err. */
int ps_kinfo_fill_from_btf_file(struct ps_kinfo *ki, const char *path, char **err);
/* The same for BTF bytes (the dump's own .BTF; data is copied), source "btf:NAME". */
int ps_kinfo_fill_from_btf(struct ps_kinfo *ki, const void *data, size_t len, const char *name,
			   char **err);

/* typeinfo_dwarf.c: vmlinux with DWARF (libdw) and its ELF symbol table (link-time
 * addresses). Also fills ki->arch/release/build_id when the ELF says. */
/* The GNU build id of the ELF file PATH as VMCOREINFO spells BUILD-ID: 0, or -1 (out "")
 * when the file cannot be read or has none. Cheap: no DWARF is loaded. */
int ps_elf_build_id(const char *path, char out[41]);
struct ps_dwarf_source;
struct ps_dwarf_source *ps_dwarf_source_open(const char *vmlinux, char **err);
void ps_dwarf_source_close(struct ps_dwarf_source *s);
const char *ps_dwarf_source_arch(const struct ps_dwarf_source *s); /* from e_machine/class/data */
const char *ps_dwarf_source_build_id(const struct ps_dwarf_source *s); /* hex, or NULL */
const char *ps_dwarf_source_release(const struct ps_dwarf_source *s); /* linux_banner, or NULL */
/* Set ki->source ("dwarf:PATH"), arch, release and build_id from the ELF. */
void ps_dwarf_source_describe(const struct ps_dwarf_source *s, struct ps_kinfo *ki);
extern const struct ps_typeinfo_ops ps_dwarf_typeinfo_ops;
/* Open VMLINUX, describe KI from its ELF and fill it from its DWARF, and close it: 0, or -1
 * with *err. */
int ps_kinfo_fill_from_vmlinux(struct ps_kinfo *ki, const char *vmlinux, char **err);

/* profile.c: the compact profile (docs/profile-format.md). Write is atomic. */
int ps_profile_write(const struct ps_kinfo *ki, const char *path, char **err);
int ps_profile_read(struct ps_kinfo *ki, const char *path, char **err);
int ps_profile_fprint(const struct ps_kinfo *ki, FILE *fp); /* the text; 0 or -1 */
/* Add the link-time addresses of the table's symbols from a System.map file ("ADDR TYPE
 * NAME" lines), for kernels without DWARF: BTF + System.map make a full profile. Symbols the
 * map does not list keep their value. 0, or -1 with *err = "FILE:LINE: reason". */
int ps_kinfo_add_system_map(struct ps_kinfo *ki, const char *path, char **err);

#endif
