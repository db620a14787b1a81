/* modules.c - the loaded modules: each one's name and the memory it occupies, from the
 * kernel's `modules` list of struct module. What lies inside a module is what the core
 * kernel's kallsyms cannot name: a vmalloc area's caller in a module ("[zram]+0x1e28"), or
 * zsmalloc's movable_operations when zsmalloc is a module (frames.c).
 *
 * A module's memory is core_layout {base, size} up to 6.3 and mem[MOD_MEM_NUM_TYPES] of
 * struct module_memory {base, size} since 6.4 (ac3b43283923); init memory is freed after
 * the module's init and not kept. Bounded: at most MAX_MODULES entries, every pointer
 * checked, a cycle in the list ends the walk.
 */
#include "mm_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_MODULES 8192u
#define MAX_MODULE_BYTES (UINT64_C(1) << 32) /* one region of a module: far more than any */

static void add_range(struct mm_module *m, uint64_t base, uint64_t size)
{
	if (!base || !size || size > MAX_MODULE_BYTES || base > UINT64_MAX - size ||
	    m->nranges >= sizeof m->lo / sizeof m->lo[0])
		return;
	m->lo[m->nranges] = base;
	m->hi[m->nranges] = base + size;
	m->nranges++;
}

static bool read_module(struct ps_walker *w, uint64_t mod, struct mm_module *m)
{
	memset(m, 0, sizeof *m);
	size_t name_len = w->c.ki.member[PS_KI_MODULE_NAME].size;
	if (name_len == 0 || name_len >= sizeof m->name)
		name_len = sizeof m->name - 1;
	if (ps_kread(&w->c, mod + (uint64_t)mm_off(w, PS_KI_MODULE_NAME), m->name, name_len) != PS_READ_OK)
		return false;
	m->name[name_len] = 0;
	for (size_t i = 0; m->name[i]; i++)
		if ((unsigned char)m->name[i] < 0x21 || (unsigned char)m->name[i] > 0x7e)
			return false; /* not a module name: garbage */
	if (!m->name[0])
		return false;
	uint64_t base, size;
	if (mm_has(w, PS_KI_MODULE_MEM) && mm_has(w, PS_KI_MODULE_MEMORY_BASE) &&
	    mm_has(w, PS_KI_MODULE_MEMORY_SIZE) && mm_size(w, PS_KI_MODULE_MEMORY) > 0) {
		uint32_t n = w->c.ki.member[PS_KI_MODULE_MEM].nelems;
		uint64_t esz = (uint64_t)mm_size(w, PS_KI_MODULE_MEMORY);
		for (uint32_t i = 0; i < n && i < 16; i++) {
			uint64_t at = mod + (uint64_t)mm_off(w, PS_KI_MODULE_MEM) + i * esz;
			if (mm_kread_member(w, at, PS_KI_MODULE_MEMORY_BASE, &base) &&
			    mm_kread_member(w, at, PS_KI_MODULE_MEMORY_SIZE, &size))
				add_range(m, base, size);
		}
	} else if (mm_has(w, PS_KI_MODULE_CORE_BASE) && mm_has(w, PS_KI_MODULE_CORE_SIZE) &&
		   mm_kread_member(w, mod, PS_KI_MODULE_CORE_BASE, &base) &&
		   mm_kread_member(w, mod, PS_KI_MODULE_CORE_SIZE, &size)) {
		add_range(m, base, size);
	}
	return m->nranges > 0;
}

size_t mm_modules_collect(struct ps_walker *w, struct mm_module **out)
{
	*out = NULL;
	uint64_t head = ps_core_sym(&w->c, PS_KI_MODULES), pos;
	if (!head || !mm_has(w, PS_KI_MODULE_LIST) || !mm_has(w, PS_KI_MODULE_NAME) ||
	    !mm_kread_word(w, head, &pos))
		return 0;
	struct mm_module *v = NULL;
	size_t n = 0, cap = 0;
	for (unsigned k = 0; pos != head && k < MAX_MODULES; k++) {
		if (!mm_kptr_ok(w, pos, w->c.ptr_size))
			break;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct mm_module *nv = realloc(v, ncap * sizeof *nv);
			if (!nv)
				break;
			v = nv, cap = ncap;
		}
		if (read_module(w, pos - (uint64_t)mm_off(w, PS_KI_MODULE_LIST), &v[n]))
			n++;
		if (!mm_kread_word(w, pos, &pos))
			break;
	}
	*out = v;
	return n;
}

const struct mm_module *mm_module_at(const struct mm_module *m, size_t n, uint64_t addr,
				     uint64_t *offset)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned r = 0; r < m[i].nranges; r++)
			if (addr >= m[i].lo[r] && addr < m[i].hi[r]) {
				if (offset)
					*offset = addr - m[i].lo[r];
				return &m[i];
			}
	return NULL;
}
