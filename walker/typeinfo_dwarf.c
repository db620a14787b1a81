/* typeinfo_dwarf.c - kernel facts from a vmlinux with DWARF (libdw) and its ELF symbol
 * table (libelf), plus the ELF's architecture, build id and release.
 *
 * A distribution vmlinux carries ~3000 compile units and several hundred MB of DWARF, so
 * no index of every DIE is built. One pass over each unit's top-level DIEs records only
 * what the kinfo table names: the first complete definition of each wanted struct/union
 * (some are complete only in the units that include their header's full definition) and
 * the value of each wanted enumerator. Identical enums repeat in every unit, so an enum
 * whose name (or, for an anonymous enum, first enumerator) was already read is skipped.
 * The pass stops early once everything is found. Member paths are then resolved from the
 * recorded DIEs on demand.
 */
#include "kinfo.h"
#include "errmsg.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bounds recursion through anonymous members and type chains in malformed DWARF. */
#define DWARF_MAX_DEPTH 32
/* Aggregates visited per member lookup, at most (real kernels need a few dozen). */
#define DWARF_MEMBER_BUDGET 4096

/* Names the kinfo table asks for; all distinct so lookups are exact. */
static const char *const wanted_type_names[] = {
#define X_MEMBER(ID, TYPE, PATH, REQ) TYPE,
#define X_SIZE(ID, TYPE, REQ) TYPE,
	PS_KI_MEMBERS(X_MEMBER) PS_KI_SIZES(X_SIZE)
#undef X_MEMBER
#undef X_SIZE
};
static const char *const wanted_enum_names[] = {
#define X_ENUM(ID, NAME, REQ) NAME,
	PS_KI_ENUMS(X_ENUM)
#undef X_ENUM
};
#define N_WANTED_TYPES (sizeof(wanted_type_names) / sizeof(wanted_type_names[0]))
#define N_WANTED_ENUMS (sizeof(wanted_enum_names) / sizeof(wanted_enum_names[0]))

/* A tiny open-addressing string set: wanted names map to their slot's payload index. */
#define NAMESET_SLOTS 512 /* > 4x the number of names, power of two */
struct nameset {
	const char *name[NAMESET_SLOTS];
	int index[NAMESET_SLOTS];
};

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Returns the index stored for NAME, or -1. */
static int nameset_find(const struct nameset *set, const char *name)
{
	for (uint32_t i = hash_name(name) & (NAMESET_SLOTS - 1), n = 0; n < NAMESET_SLOTS;
	     i = (i + 1) & (NAMESET_SLOTS - 1), n++) {
		if (!set->name[i])
			return -1;
		if (strcmp(set->name[i], name) == 0)
			return set->index[i];
	}
	return -1;
}

/* Adds NAME unless present; returns its index (the new one or the existing one), or -1
 * when full. */
static int nameset_add(struct nameset *set, const char *name, int index)
{
	for (uint32_t i = hash_name(name) & (NAMESET_SLOTS - 1), n = 0; n < NAMESET_SLOTS;
	     i = (i + 1) & (NAMESET_SLOTS - 1), n++) {
		if (!set->name[i]) {
			set->name[i] = name;
			set->index[i] = index;
			return index;
		}
		if (strcmp(set->name[i], name) == 0)
			return set->index[i];
	}
	return -1;
}

struct wanted_type {
	const char *name;
	bool found;        /* a struct/union of this name */
	bool via_typedef;  /* only a typedef of this name to a complete struct/union, so far */
	Dwarf_Die die;     /* the complete struct/union definition */
};
struct wanted_enum {
	const char *name;
	bool found;
	int64_t value;
};

struct ps_dwarf_source {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	char arch[16];
	char build_id[41];
	char release[65];

	bool scanned;
	struct nameset type_set, enum_set;
	struct wanted_type types[N_WANTED_TYPES];
	size_t ntypes, ntypes_found;
	struct wanted_enum enums[N_WANTED_ENUMS];
	size_t nenums, nenums_found;
	/* Enums already read, by name (or first enumerator for anonymous ones). The strings
	 * live in .debug_str, valid while the Dwarf is open. */
	struct nameset *seen_enums;
	size_t nseen_enums;
	bool seen_full;
};

/* ---- ELF: architecture, build id, symbols, release ---------------------------------- */

static const char *arch_from_ehdr(const GElf_Ehdr *eh)
{
	bool is64 = eh->e_ident[EI_CLASS] == ELFCLASS64;
	bool le = eh->e_ident[EI_DATA] == ELFDATA2LSB;
	switch (eh->e_machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "arm64";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return le ? "ppc64le" : "ppc64";
	case EM_PPC:
		return is64 ? "ppc64" : "ppc32";
	default:
		return "";
	}
}

/* Value of the symbol NAME from .symtab: a global/weak definition wins over a local one
 * (static variables of the same name in other files). 0 or -1. */
static int elf_symbol(const struct ps_dwarf_source *s, const char *name, uint64_t *out)
{
	Elf_Scn *scn = NULL;
	bool have_local = false;
	uint64_t local_value = 0;
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_name)
				continue;
			const char *sn = elf_strptr(s->elf, sh.sh_link, sym.st_name);
			if (!sn || strcmp(sn, name) != 0)
				continue;
			int bind = GELF_ST_BIND(sym.st_info);
			if (bind == STB_GLOBAL || bind == STB_WEAK) {
				*out = sym.st_value;
				return 0;
			}
			if (!have_local) {
				have_local = true;
				local_value = sym.st_value;
			}
		}
	}
	if (have_local) {
		*out = local_value;
		return 0;
	}
	return -1;
}

/* The release from linux_banner ("Linux version 6.1.0-50-armmp (...) ..."): read the
 * string from the allocated section that holds the symbol's address. */
static void read_release(struct ps_dwarf_source *s)
{
	uint64_t addr;
	if (elf_symbol(s, "linux_banner", &addr) < 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return;
		uint64_t off = addr - sh.sh_addr;
		if (off >= data->d_size)
			return;
		const char *p = (const char *)data->d_buf + off;
		size_t avail = data->d_size - off;
		static const char prefix[] = "Linux version ";
		if (avail <= sizeof(prefix) || memcmp(p, prefix, sizeof(prefix) - 1) != 0)
			return;
		p += sizeof(prefix) - 1;
		avail -= sizeof(prefix) - 1;
		size_t n = 0;
		while (n < avail && n < sizeof(s->release) - 1 && p[n] > ' ' && p[n] < 0x7f)
			n++;
		memcpy(s->release, p, n);
		s->release[n] = 0;
		return;
	}
}

/* The GNU build id of ELF in VMCOREINFO's BUILD-ID spelling (lowercase hex, at most 20
 * bytes as the kernel writes it); "" if it has none. */
static void elf_build_id_hex(Elf *elf, char out[41])
{
	const void *bid = NULL;
	ssize_t bid_len = dwelf_elf_gnu_build_id(elf, &bid);
	out[0] = '\0';
	if (bid_len <= 0 || !bid)
		return;
	size_t n = (size_t)bid_len < 20 ? (size_t)bid_len : 20;
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)bid)[i]);
}

int ps_elf_build_id(const char *path, char out[41])
{
	out[0] = '\0';
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		elf_build_id_hex(elf, out);
	if (elf)
		elf_end(elf);
	close(fd);
	return out[0] ? 0 : -1;
}

struct ps_dwarf_source *ps_dwarf_source_open(const char *vmlinux, char **err)
{
	if (err)
		*err = NULL;
	struct ps_dwarf_source *s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(vmlinux))) {
		free(s);
		ps_set_err(err, "%s: out of memory", vmlinux);
		return NULL;
	}
	s->fd = -1;
	elf_version(EV_CURRENT);
	s->fd = open(vmlinux, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		ps_set_err(err, "%s: cannot open: %s", vmlinux, strerror(errno));
		goto fail;
	}
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF || !gelf_getehdr(s->elf, &eh)) {
		ps_set_err(err, "%s: not an ELF file", vmlinux);
		goto fail;
	}
	snprintf(s->arch, sizeof(s->arch), "%s", arch_from_ehdr(&eh));
	elf_build_id_hex(s->elf, s->build_id);
	s->dwarf = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	if (!s->dwarf) {
		ps_set_err(err, "%s: no DWARF debug information; use the -dbg package's vmlinux, or BTF",
			vmlinux);
		goto fail;
	}
	read_release(s);
	return s;
fail:
	ps_dwarf_source_close(s);
	return NULL;
}

void ps_dwarf_source_close(struct ps_dwarf_source *s)
{
	if (!s)
		return;
	if (s->dwarf)
		dwarf_end(s->dwarf);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s->seen_enums);
	free(s->path);
	free(s);
}

const char *ps_dwarf_source_arch(const struct ps_dwarf_source *s)
{
	return s->arch;
}
const char *ps_dwarf_source_build_id(const struct ps_dwarf_source *s)
{
	return s->build_id[0] ? s->build_id : NULL;
}
const char *ps_dwarf_source_release(const struct ps_dwarf_source *s)
{
	return s->release[0] ? s->release : NULL;
}

void ps_dwarf_source_describe(const struct ps_dwarf_source *s, struct ps_kinfo *ki)
{
	ps_kinfo_set_source(ki, "dwarf", s->path);
	snprintf(ki->arch, sizeof(ki->arch), "%s", s->arch);
	snprintf(ki->release, sizeof(ki->release), "%s", s->release);
	snprintf(ki->build_id, sizeof(ki->build_id), "%s", s->build_id);
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	return dwarf_attr(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, type);
}

/* Step to the next sibling. Offsets must grow, so a malformed DW_AT_sibling pointing
 * backwards cannot make a loop endless. */
static bool next_sibling(Dwarf_Die *die)
{
	Dwarf_Off before = dwarf_dieoffset(die);
	Dwarf_Die next;
	if (dwarf_siblingof(die, &next) != 0 || dwarf_dieoffset(&next) <= before)
		return false;
	*die = next;
	return true;
}

/* ---- the scan ---------------------------------------------------------------------- */

static void prepare_wanted(struct ps_dwarf_source *s)
{
	for (size_t i = 0; i < N_WANTED_TYPES; i++) {
		int idx = nameset_add(&s->type_set, wanted_type_names[i], (int)s->ntypes);
		if (idx == (int)s->ntypes)
			s->types[s->ntypes++].name = wanted_type_names[i];
	}
	for (size_t i = 0; i < N_WANTED_ENUMS; i++) {
		int idx = nameset_add(&s->enum_set, wanted_enum_names[i], (int)s->nenums);
		if (idx == (int)s->nenums)
			s->enums[s->nenums++].name = wanted_enum_names[i];
	}
	s->seen_enums = calloc(1, sizeof(*s->seen_enums));
}

/* The enumerator's value, signed if the enum's underlying type is signed. DWARF's
 * DW_FORM_dataN carry no signedness of their own. */
static int enumerator_value(Dwarf_Die *enumerator, bool is_signed, int64_t *out)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(enumerator, DW_AT_const_value, &attr))
		return -1;
	unsigned form = dwarf_whatform(&attr);
	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
		Dwarf_Sword v;
		if (dwarf_formsdata(&attr, &v) != 0)
			return -1;
		*out = v;
		return 0;
	}
	Dwarf_Word u;
	if (dwarf_formudata(&attr, &u) != 0)
		return -1;
	if (is_signed) {
		unsigned bits = form == DW_FORM_data1 ? 8 : form == DW_FORM_data2 ? 16
			      : form == DW_FORM_data4 ? 32 : 64;
		if (bits < 64 && (u >> (bits - 1)) & 1)
			u |= ~(Dwarf_Word)0 << bits;
	}
	*out = (int64_t)u;
	return 0;
}

static bool enum_is_signed(Dwarf_Die *enum_die)
{
	Dwarf_Attribute attr;
	Dwarf_Die base;
	if (!dwarf_attr(enum_die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &base))
		return false; /* pre-DWARF-3 producers: GCC used unsigned unless negative values */
	if (dwarf_peel_type(&base, &base) != 0)
		return false;
	Dwarf_Attribute enc;
	Dwarf_Word e;
	if (!dwarf_attr(&base, DW_AT_encoding, &enc) || dwarf_formudata(&enc, &e) != 0)
		return false;
	return e == DW_ATE_signed || e == DW_ATE_signed_char;
}

static void scan_enum(struct ps_dwarf_source *s, Dwarf_Die *enum_die)
{
	Dwarf_Die child;
	if (dwarf_child(enum_die, &child) != 0)
		return;
	/* Identify the enum by its name, else its first enumerator. */
	const char *key = dwarf_diename(enum_die);
	if (!key)
		key = dwarf_diename(&child);
	if (key && !s->seen_full && s->seen_enums) {
		if (nameset_find(s->seen_enums, key) >= 0)
			return;
		/* A full set only costs re-reading; the table keeps < 3/4 load for speed. */
		if (s->nseen_enums < NAMESET_SLOTS * 3 / 4) {
			nameset_add(s->seen_enums, key, 0);
			s->nseen_enums++;
		} else {
			s->seen_full = true;
		}
	}
	bool is_signed = enum_is_signed(enum_die);
	do {
		if (dwarf_tag(&child) != DW_TAG_enumerator)
			continue;
		const char *name = dwarf_diename(&child);
		int idx = name ? nameset_find(&s->enum_set, name) : -1;
		if (idx < 0 || s->enums[idx].found)
			continue;
		if (enumerator_value(&child, is_signed, &s->enums[idx].value) == 0) {
			s->enums[idx].found = true;
			s->nenums_found++;
		}
	} while (next_sibling(&child));
}

static void scan_units(struct ps_dwarf_source *s)
{
	s->scanned = true;
	prepare_wanted(s);
	Dwarf_CU *cu = NULL, *next;
	uint8_t unit_type;
	Dwarf_Die cudie;
	while (dwarf_get_units(s->dwarf, cu, &next, NULL, &unit_type, &cudie, NULL) == 0) {
		cu = next;
		if (s->ntypes_found == s->ntypes && s->nenums_found == s->nenums)
			break;
		Dwarf_Die die;
		if (dwarf_child(&cudie, &die) != 0)
			continue;
		do {
			int tag = dwarf_tag(&die);
			if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
				const char *name = dwarf_diename(&die);
				int idx = name ? nameset_find(&s->type_set, name) : -1;
				if (idx < 0 || s->types[idx].found)
					continue;
				/* Forward declarations carry DW_AT_declaration and no members. */
				if (dwarf_hasattr(&die, DW_AT_declaration))
					continue;
				s->types[idx].die = die;
				s->types[idx].found = true;
				s->ntypes_found++;
			} else if (tag == DW_TAG_enumeration_type) {
				if (!dwarf_hasattr(&die, DW_AT_declaration))
					scan_enum(s, &die);
			} else if (tag == DW_TAG_typedef) {
				/* "typedef struct {...} name_t": used only if no struct is called
				 * that (the BTF source prefers the struct the same way). */
				const char *name = dwarf_diename(&die);
				int idx = name ? nameset_find(&s->type_set, name) : -1;
				if (idx < 0 || s->types[idx].found || s->types[idx].via_typedef)
					continue;
				Dwarf_Die target;
				if (!die_type(&die, &target) || dwarf_peel_type(&target, &target) != 0)
					continue;
				int ttag = dwarf_tag(&target);
				if ((ttag == DW_TAG_structure_type || ttag == DW_TAG_union_type) &&
				    !dwarf_hasattr(&target, DW_AT_declaration)) {
					s->types[idx].die = target;
					s->types[idx].via_typedef = true;
				}
			}
		} while (next_sibling(&die));
	}
}

static struct wanted_type *find_type(struct ps_dwarf_source *s, const char *name)
{
	if (!s->scanned)
		scan_units(s);
	int idx = nameset_find(&s->type_set, name);
	return idx >= 0 && (s->types[idx].found || s->types[idx].via_typedef) ? &s->types[idx] : NULL;
}

/* ---- member paths ----------------------------------------------------------------- */

/* DW_AT_data_member_location as a constant, or the DW_OP_plus_uconst expression older
 * producers emit. Union members have none: offset 0. */
static int member_location(Dwarf_Die *member, uint64_t *off)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(member, DW_AT_data_member_location, &attr)) {
		*off = 0;
		return 0;
	}
	Dwarf_Word w;
	if (dwarf_formudata(&attr, &w) == 0) {
		*off = w;
		return 0;
	}
	Dwarf_Op *ops;
	size_t nops;
	if (dwarf_getlocation(&attr, &ops, &nops) == 0 && nops == 1 &&
	    (ops[0].atom == DW_OP_plus_uconst || ops[0].atom == DW_OP_constu)) {
		*off = ops[0].number;
		return 0;
	}
	return -1;
}

/* Find member NAME of struct/union DIE AGG, looking through anonymous members. Adds its
 * byte offset to *off and copies the member DIE; 0 or -1. Bitfields are reported as not
 * found: the table has no place for a bit position (BTF source does the same). */
static int find_member(Dwarf_Die *agg, const char *name, uint64_t *off, Dwarf_Die *found, int depth,
		       unsigned *budget)
{
	/* The budget stops malformed DWARF whose anonymous members refer back to their own
	 * type from costing exponential time. */
	if (depth > DWARF_MAX_DEPTH || *budget == 0)
		return -1;
	(*budget)--;
	Dwarf_Die child;
	if (dwarf_child(agg, &child) != 0)
		return -1;
	Dwarf_Die first = child;
	do {
		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		const char *mn = dwarf_diename(&child);
		if (!mn || strcmp(mn, name) != 0)
			continue;
		if (dwarf_hasattr(&child, DW_AT_bit_size) || dwarf_hasattr(&child, DW_AT_data_bit_offset))
			return -1;
		uint64_t o;
		if (member_location(&child, &o) < 0)
			return -1;
		*off += o;
		*found = child;
		return 0;
	} while (next_sibling(&child));

	child = first;
	do {
		if (dwarf_tag(&child) != DW_TAG_member || dwarf_diename(&child))
			continue;
		Dwarf_Die inner;
		if (!die_type(&child, &inner) || dwarf_peel_type(&inner, &inner) != 0)
			continue;
		int tag = dwarf_tag(&inner);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		uint64_t o, inner_off = 0;
		if (member_location(&child, &o) < 0)
			continue;
		if (find_member(&inner, name, &inner_off, found, depth + 1, budget) == 0) {
			*off += o + inner_off;
			return 0;
		}
	} while (next_sibling(&child));
	return -1;
}

/* Element count of an array type's first dimension; 0 when unknown (flexible array). */
static uint32_t array_length(Dwarf_Die *array)
{
	Dwarf_Die sub;
	if (dwarf_child(array, &sub) != 0)
		return 0;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		Dwarf_Attribute attr;
		Dwarf_Word v;
		if (dwarf_attr(&sub, DW_AT_count, &attr) && dwarf_formudata(&attr, &v) == 0)
			return v > UINT32_MAX ? 0 : (uint32_t)v;
		if (dwarf_attr(&sub, DW_AT_upper_bound, &attr)) {
			/* DW_FORM_data1..8 are unsigned here: read as signed, a bound of 255 in one
			 * byte (node[MAX_NUMNODES] of 256) became -1 and the array had no length.
			 * Only sdata (and implicit_const) carry a sign. */
			Dwarf_Sword upper;
			unsigned form = dwarf_whatform(&attr);
			if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
				if (dwarf_formsdata(&attr, &upper) != 0)
					return 0;
			} else {
				Dwarf_Word u;
				if (dwarf_formudata(&attr, &u) != 0 || u >= UINT32_MAX)
					return 0;
				upper = (Dwarf_Sword)u;
			}
			if (upper < -1)
				return 0;
			Dwarf_Word lower = 0;
			Dwarf_Attribute la;
			if (dwarf_attr(&sub, DW_AT_lower_bound, &la))
				dwarf_formudata(&la, &lower);
			int64_t n = upper + 1 - (int64_t)lower;
			return n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
		}
		return 0;
	} while (next_sibling(&sub));
	return 0;
}

static int dwarf_member(void *ctx, const char *type, const char *path, struct ps_kinfo_member *out)
{
	struct ps_dwarf_source *s = ctx;
	struct wanted_type *wt = find_type(s, type);
	if (!wt || !path || !*path)
		return -1;
	Dwarf_Die agg = wt->die, member;
	uint64_t off = 0;
	unsigned budget = DWARF_MEMBER_BUDGET;
	const char *p = path;
	for (int depth = 0;; depth++) {
		char comp[128];
		size_t n = strcspn(p, ".");
		if (depth >= DWARF_MAX_DEPTH || n == 0 || n >= sizeof(comp))
			return -1;
		memcpy(comp, p, n);
		comp[n] = 0;
		if (find_member(&agg, comp, &off, &member, 0, &budget) < 0)
			return -1;
		p += n;
		if (!*p)
			break;
		p++;
		if (!die_type(&member, &agg) || dwarf_peel_type(&agg, &agg) != 0)
			return -1;
	}
	Dwarf_Die mtype;
	if (!die_type(&member, &mtype) || dwarf_peel_type(&mtype, &mtype) != 0)
		return -1;
	Dwarf_Word size = 0;
	uint32_t nelems = 0;
	if (dwarf_tag(&mtype) == DW_TAG_array_type) {
		nelems = array_length(&mtype);
		if (dwarf_aggregate_size(&mtype, &size) != 0)
			size = 0; /* flexible array member */
	} else if (dwarf_aggregate_size(&mtype, &size) != 0) {
		return -1;
	}
	if (size > UINT32_MAX || off > INT64_MAX)
		return -1;
	out->offset = (int64_t)off;
	out->size = (uint32_t)size;
	out->nelems = nelems;
	return 0;
}

static int dwarf_type_size(void *ctx, const char *type, int64_t *out)
{
	struct ps_dwarf_source *s = ctx;
	struct wanted_type *wt = find_type(s, type);
	Dwarf_Word size;
	if (!wt || dwarf_aggregate_size(&wt->die, &size) != 0 || size > INT64_MAX)
		return -1;
	*out = (int64_t)size;
	return 0;
}

static int dwarf_enum_value(void *ctx, const char *enumerator, int64_t *out)
{
	struct ps_dwarf_source *s = ctx;
	if (!s->scanned)
		scan_units(s);
	int idx = nameset_find(&s->enum_set, enumerator);
	if (idx < 0 || !s->enums[idx].found)
		return -1;
	*out = s->enums[idx].value;
	return 0;
}

static int dwarf_symbol(void *ctx, const char *name, uint64_t *out)
{
	return elf_symbol(ctx, name, out);
}

const struct ps_typeinfo_ops ps_dwarf_typeinfo_ops = {
	.member = dwarf_member,
	.type_size = dwarf_type_size,
	.enum_value = dwarf_enum_value,
	.symbol = dwarf_symbol,
};

int ps_kinfo_fill_from_vmlinux(struct ps_kinfo *ki, const char *vmlinux, char **err)
{
	struct ps_dwarf_source *s = ps_dwarf_source_open(vmlinux, err);
	if (!s)
		return -1;
	ps_dwarf_source_describe(s, ki);
	int rc = ps_kinfo_fill(ki, &ps_dwarf_typeinfo_ops, s, err);
	ps_dwarf_source_close(s);
	return rc;
}
