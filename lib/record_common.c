/* record_common.c - names, the shared VMA classifier and summary arithmetic used by every
 * writer and by the analyzer, so all sources classify and count alike. */
#include "records.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[PS_KIND_COUNT] = {
	"text", "data", "bss", "heap", "stack", "anon", "libtext", "libdata", "libbss",
	"vdso", "file", "shmem", "other",
};

size_t ps_tag_check(const char *text, const char **why)
{
	const char *eq = strchr(text, '=');
	size_t klen = eq ? (size_t)(eq - text) : 0;
	*why = NULL;
	if (!eq || !klen || klen > 64)
		*why = "want KEY=VALUE with a key of 1-64 characters";
	else if (strlen(eq + 1) > 256)
		*why = "the value is longer than 256 bytes";
	else if (strchr(eq + 1, ','))
		*why = "the value may not contain ','";
	for (size_t i = 0; i < klen && !*why; i++) {
		char c = text[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			*why = "the key may hold only A-Z a-z 0-9 _ . -";
	}
	return *why ? 0 : klen;
}

int ps_tags_append(char **tags, const char *text, const char **why)
{
	if (!ps_tag_check(text, why))
		return -1;
	size_t old = *tags ? strlen(*tags) : 0, add = strlen(text);
	char *next = realloc(*tags, old + add + 2);
	if (!next) {
		*why = "out of memory";
		return -1;
	}
	if (old)
		next[old++] = ',';
	memcpy(next + old, text, add + 1);
	*tags = next;
	return 0;
}

const char *ps_kind_name(enum ps_vma_kind kind)
{
	return (unsigned)kind < PS_KIND_COUNT ? kind_names[kind] : "other";
}

int ps_kind_parse(const char *name, size_t len)
{
	for (int i = 0; i < PS_KIND_COUNT; i++)
		if (strlen(kind_names[i]) == len && memcmp(kind_names[i], name, len) == 0)
			return i;
	return -1;
}

static const char *const swap_kind_names[] = { "swap", "migration", "hwpoison", "device", "other" };

const char *ps_swap_kind_name(enum ps_swap_kind kind)
{
	return (unsigned)kind <= PS_SWAP_OTHER ? swap_kind_names[kind] : "other";
}

static const char *const page_flag_names[64] = {
	[0] = "locked", [1] = "error", [2] = "referenced", [3] = "uptodate", [4] = "dirty",
	[5] = "lru", [6] = "active", [7] = "slab", [8] = "writeback", [9] = "reclaim",
	[10] = "buddy", [11] = "mmap", [12] = "anon", [13] = "swapcache", [14] = "swapbacked",
	[15] = "compound_head", [16] = "compound_tail", [17] = "huge", [18] = "unevictable",
	[19] = "hwpoison", [20] = "nopage", [21] = "ksm", [22] = "thp", [23] = "offline",
	[24] = "zero_page", [25] = "idle", [26] = "pgtable", [33] = "mlocked",
	[34] = "mappedtodisk", [35] = "private", [36] = "private_2", [37] = "owner_private",
	[40] = "softdirty", [48] = "young",
};

const char *ps_page_flag_name(unsigned bit)
{
	return bit < 64 ? page_flag_names[bit] : NULL;
}

void ps_pte_format(struct ps_pte pte, char out[PS_PTE_NBITS + 1])
{
	for (int i = 0; i < PS_PTE_NBITS; i++)
		out[i] = !(pte.known >> i & 1) ? '?' : (pte.set >> i & 1) ? PS_PTE_LETTERS[i] : '-';
	out[PS_PTE_NBITS] = '\0';
}

/* smaps' Referenced: pte_young || page_is_young || PageReferenced (fs/proc/task_mmu.c). */
bool ps_map_referenced(const struct ps_map *m)
{
	if (ps_pte_has(m->pte, PS_PTE_ACCESSED))
		return true;
	return m->pflags != PS_UNKNOWN &&
	       (m->pflags & (PS_PF(PS_PF_REFERENCED) | PS_PF(PS_PF_YOUNG)));
}

bool ps_map_dirty(const struct ps_map *m)
{
	if (ps_pte_has(m->pte, PS_PTE_DIRTY))
		return true;
	return m->pflags != PS_UNKNOWN && (m->pflags & PS_PF(PS_PF_DIRTY));
}

bool ps_map_anon(const struct ps_map *m)
{
	return m->pflags != PS_UNKNOWN && (m->pflags & PS_PF(PS_PF_ANON));
}

bool ps_map_zero_page(const struct ps_map *m)
{
	return m->pflags != PS_UNKNOWN && (m->pflags & PS_PF(PS_PF_ZERO_PAGE));
}

uint64_t ps_map_pfn_at(const struct ps_map *m, uint64_t i)
{
	if (m->pfn == PS_UNKNOWN)
		return PS_UNKNOWN;
	return ps_map_zero_page(m) ? m->pfn : m->pfn + i;
}

/* Reads pte, mapcount, pflags, excluded and npages: ps_sum_same_kind (records.h) must name
 * every field read here but npages. */
void ps_sum_add_map(struct ps_vma_sum *s, const struct ps_map *m, uint32_t page_size)
{
	uint64_t n = m->npages;
	/* The shared zero page costs nothing per mapping: smaps skips it (vm_normal_page() is
	 * NULL for it), so resident and PSS do too. */
	if (ps_map_zero_page(m))
		return;
	/* A PMD leaf is counted per base page, as smaps does. */
	s->resident += n;
	if (ps_pte_has(m->pte, PS_PTE_EXEC))
		s->exec += n;
	/* Read-only only when the writable bit is known to be clear (live sources cannot see it). */
	if (ps_pte_knows(m->pte, PS_PTE_WRITE) && !ps_pte_has(m->pte, PS_PTE_WRITE))
		s->ro += n;
	if (m->mapcount != PS_UNKNOWN) {
		if (m->mapcount <= 1)
			s->single += n;
		else
			s->shared += n;
		/* Most pages are mapped once: no division for them (it was most of this sum). */
		uint64_t mc = m->mapcount ? m->mapcount : 1, one = (uint64_t)page_size << PS_PSS_SHIFT;
		s->pss += n * (mc == 1 ? one : one / mc);
	}
	if (ps_map_referenced(m))
		s->referenced += n;
	if (ps_map_dirty(m))
		s->dirty += n;
	if (ps_map_anon(m))
		s->anon += n;
	else if (m->pflags != PS_UNKNOWN)
		s->file += n;
	if (m->excluded)
		s->excluded += n;
}

void ps_sum_add_swap(struct ps_vma_sum *s, const struct ps_swap *sw)
{
	if (sw->kind == PS_SWAP)
		s->swapped += sw->npages;
}

void ps_sum_add_unknown(struct ps_vma_sum *s, const struct ps_unknown_range *u)
{
	s->unknown += u->npages;
}

/* ---- classification ---------------------------------------------------------------------- */

#define VM_GROWSDOWN_FLAG 0x100 /* include/linux/mm.h, the same on every architecture */

static bool is_pseudo(const char *path) { return path[0] == '['; }
static bool is_file(const struct ps_vma *v) { return v->path[0] && !is_pseudo(v->path); }

/* The paths with an executable mapping in this mm, sorted, so each lookup is a binary
 * search: a scan per VMA would be quadratic, and an mm can hold 65530 VMAs. */
struct exec_paths {
	const char **p;
	size_t n;
};

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void exec_paths_init(struct exec_paths *e, const struct ps_vma *vmas, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += vmas[i].perm[2] == 'x';
	e->n = 0;
	e->p = k ? malloc(k * sizeof *e->p) : NULL;
	if (!e->p)
		return;
	for (size_t i = 0; i < n; i++)
		if (vmas[i].perm[2] == 'x')
			e->p[e->n++] = vmas[i].path;
	qsort(e->p, e->n, sizeof *e->p, cmp_path);
}

static bool has_exec_mapping(const struct exec_paths *e, const struct ps_vma *vmas, size_t n,
			     const char *path)
{
	if (e->p)
		return bsearch(&path, e->p, e->n, sizeof *e->p, cmp_path) != NULL;
	for (size_t i = 0; i < n; i++) /* no memory for the index: scan */
		if (vmas[i].perm[2] == 'x' && strcmp(vmas[i].path, path) == 0)
			return true;
	return false;
}

static bool is_shmem_path(const char *path)
{
	return strncmp(path, "/SYSV", 5) == 0 || strncmp(path, "/dev/shm/", 9) == 0 ||
	       strncmp(path, "/memfd:", 7) == 0;
}

void ps_classify_vmas(const struct ps_mm *mm, struct ps_vma *vmas, size_t n)
{
	const char *exe = mm->exe ? mm->exe : "";
	/* brk is only usable when both ends are known (PS_UNKNOWN is larger than any address). */
	bool brk_known = mm->start_brk != PS_UNKNOWN && mm->brk != PS_UNKNOWN &&
			 mm->brk > mm->start_brk;
	struct exec_paths ep;
	exec_paths_init(&ep, vmas, n);
	for (size_t i = 0; i < n; i++) {
		struct ps_vma *v = &vmas[i];
		const struct ps_vma *prev = i ? &vmas[i - 1] : NULL;
		bool writable = v->perm[1] == 'w';
		v->unit = "";
		if (strcmp(v->path, "[vdso]") == 0 || strcmp(v->path, "[vvar]") == 0 ||
		    strcmp(v->path, "[vsyscall]") == 0 || strncmp(v->path, "[vvar", 5) == 0) {
			v->kind = PS_KIND_VDSO;
		} else if (strcmp(v->path, "[heap]") == 0 ||
			   (!is_file(v) && brk_known && v->start < mm->brk &&
			    v->end > mm->start_brk)) {
			v->kind = PS_KIND_HEAP;
			v->unit = exe;
		} else if (strcmp(v->path, "[stack]") == 0 ||
			   (v->start <= mm->start_stack && mm->start_stack < v->end) ||
			   (v->vmflags != PS_UNKNOWN && (v->vmflags & VM_GROWSDOWN_FLAG))) {
			v->kind = PS_KIND_STACK;
		} else if (is_file(v)) {
			v->unit = v->path;
			if (exe[0] && strcmp(v->path, exe) == 0)
				v->kind = writable ? PS_KIND_DATA : PS_KIND_TEXT;
			else if (has_exec_mapping(&ep, vmas, n, v->path))
				v->kind = writable ? PS_KIND_LIBDATA : PS_KIND_LIBTEXT;
			else if ((v->perm[3] == 's' && writable) || is_shmem_path(v->path))
				v->kind = PS_KIND_SHMEM;
			else
				v->kind = PS_KIND_FILE;
		} else if (!v->path[0] && prev && prev->end == v->start && writable &&
			   (prev->kind == PS_KIND_DATA || prev->kind == PS_KIND_LIBDATA)) {
			/* The anonymous tail right after a writable segment is that unit's .bss. */
			v->kind = prev->kind == PS_KIND_DATA ? PS_KIND_BSS : PS_KIND_LIBBSS;
			v->unit = prev->unit;
		} else if (!v->path[0] || strncmp(v->path, "[anon:", 6) == 0) {
			/* "[anon:NAME]": an anonymous mapping named with PR_SET_VMA_ANON_NAME. */
			v->kind = PS_KIND_ANON;
		} else if (strncmp(v->path, "[anon_shmem:", 12) == 0) {
			v->kind = PS_KIND_SHMEM; /* named shared anonymous memory */
		} else {
			v->kind = PS_KIND_OTHER;
		}
	}
	free(ep.p);
}

const char *const ps_frame_class_names[PS_FC_COUNT] = {
	[PS_FC_FREE] = "free", [PS_FC_UNUSED] = "unused", [PS_FC_SLAB] = "slab",
	[PS_FC_PGTABLE] = "pgtable", [PS_FC_ANON] = "anon", [PS_FC_FILE] = "file",
	[PS_FC_SHMEM] = "shmem", [PS_FC_HUGETLB] = "hugetlb", [PS_FC_ZSMALLOC] = "zsmalloc",
	[PS_FC_OFFLINE] = "offline", [PS_FC_RESERVED] = "reserved", [PS_FC_KERNEL] = "kernel",
	[PS_FC_VMALLOC] = "vmalloc", [PS_FC_UNKNOWN] = "unknown",
};

const char *ps_frame_class_name(enum ps_frame_class c)
{
	return (unsigned)c < PS_FC_COUNT ? ps_frame_class_names[c] : "?";
}

int ps_frame_class_parse(const char *name, size_t len)
{
	for (int i = 0; i < PS_FC_COUNT; i++)
		if (strlen(ps_frame_class_names[i]) == len && memcmp(ps_frame_class_names[i], name, len) == 0)
			return i;
	return -1;
}
