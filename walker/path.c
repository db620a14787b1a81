/* path.c - what /proc/PID/maps prints in its last columns: a file's path, device and inode,
 * and the names of special anonymous mappings.
 *
 * A path is rebuilt as d_path() does (fs/d_path.c of 6.1): from the file's dentry up the
 * d_parent chain to the root of its mount, then from the mount's mountpoint in the parent
 * mount, until the mount that is its own parent (the namespace root). A dentry that is its
 * own parent without being a mount root is a pseudo file (memfd, SysV shm, shared
 * /dev/zero): those print through simple_dname() as "/NAME (deleted)". A dentry that is
 * unhashed (d_hash.pprev NULL) and not a root was unlinked: " (deleted)" is appended.
 * Paths are relative to the namespace root; a process that chroot()ed sees them from its
 * root, which the dump reader cannot know per reader.
 *
 * Results are cached per struct file (threads and fork()ed processes share them), and
 * every string lives until ps_walker_close.
 */
#include "mm_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_BYTES 4096
#define MAX_COMPONENTS 1024
#define NAME_MAX_BYTES 255

struct file_entry {
	uint64_t file;
	struct mm_file_info info;
	bool ok;
};

struct mm_path_cache {
	struct mm_set by_file;      /* file kaddr -> index in files */
	struct file_entry *files;
	size_t nfiles, capfiles;
	char **strings;             /* every string handed out */
	size_t nstrings, capstrings;
	struct mm_set by_name_ptr;  /* name pointer (^1 with a prefix) -> index in strings */
};

static const char *keep(struct ps_walker *w, const char *s, size_t len)
{
	struct mm_path_cache *pc = w->paths;
	if (pc->nstrings == pc->capstrings) {
		size_t ncap = pc->capstrings ? pc->capstrings * 2 : 256;
		char **n = realloc(pc->strings, ncap * sizeof *n);
		if (!n)
			return NULL;
		pc->strings = n, pc->capstrings = ncap;
	}
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = 0;
	pc->strings[pc->nstrings++] = c;
	return c;
}

static int ensure_cache(struct ps_walker *w)
{
	if (!w->paths)
		w->paths = calloc(1, sizeof *w->paths);
	return w->paths ? 0 : -1;
}

void mm_path_cache_free(struct ps_walker *w)
{
	struct mm_path_cache *pc = w->paths;
	if (!pc)
		return;
	for (size_t i = 0; i < pc->nstrings; i++)
		free(pc->strings[i]);
	free(pc->strings);
	free(pc->files);
	mm_set_free(&pc->by_file);
	mm_set_free(&pc->by_name_ptr);
	free(pc);
	w->paths = NULL;
}

/* Builds a string from the end of a fixed buffer, as the kernel's prepend buffer does. */
struct backbuf {
	char b[PATH_MAX_BYTES];
	size_t pos; /* first used byte */
	bool overflow;
};

static void prepend(struct backbuf *bb, const char *s, size_t n)
{
	if (n > bb->pos) {
		bb->overflow = true;
		return;
	}
	bb->pos -= n;
	memcpy(bb->b + bb->pos, s, n);
}

struct dentry_view {
	uint64_t parent, name_ptr, pprev;
	uint32_t name_len;
};

static bool read_dentry(struct ps_walker *w, uint64_t d, struct dentry_view *v)
{
	if (!mm_kptr_ok(w, d, 4))
		return false;
	static const enum ps_ki_member used[] = { PS_KI_DENTRY_PARENT, PS_KI_DENTRY_NAME,
						  PS_KI_DENTRY_NAME_LEN, PS_KI_DENTRY_HASH_PPREV };
	uint64_t span = 0;
	for (size_t i = 0; i < sizeof used / sizeof used[0]; i++) {
		const struct ps_kinfo_member *m = &w->c.ki.member[used[i]];
		if (m->offset != PS_KI_ABSENT && m->offset >= 0 && (uint64_t)m->offset + m->size > span)
			span = (uint64_t)m->offset + m->size;
	}
	uint8_t buf[512];
	if (span == 0 || span > sizeof buf || ps_kread(&w->c, d, buf, span) != PS_READ_OK)
		return false;
	uint64_t len = 0;
	mm_get(w, buf, span, PS_KI_DENTRY_PARENT, &v->parent);
	mm_get(w, buf, span, PS_KI_DENTRY_NAME, &v->name_ptr);
	mm_get(w, buf, span, PS_KI_DENTRY_NAME_LEN, &len);
	v->name_len = (uint32_t)len;
	/* Without the member, treat every dentry as hashed (no " (deleted)"). */
	if (!mm_get(w, buf, span, PS_KI_DENTRY_HASH_PPREV, &v->pprev))
		v->pprev = 1;
	return true;
}

static bool read_name(struct ps_walker *w, const struct dentry_view *v, char *out, size_t *len)
{
	size_t n = v->name_len;
	if (n == 0 || n > NAME_MAX_BYTES || !mm_kptr_ok(w, v->name_ptr, 1))
		return false;
	if (ps_kread(&w->c, v->name_ptr, out, n) != PS_READ_OK)
		return false;
	*len = n;
	return true;
}

struct mount_view {
	uint64_t mount, parent, mountpoint, root;
};

static bool read_mount(struct ps_walker *w, uint64_t mount, struct mount_view *m)
{
	m->mount = mount;
	uint64_t mnt = mount + (uint64_t)mm_off(w, PS_KI_MOUNT_MNT);
	return mm_kptr_ok(w, mount, 4) &&
	       ps_kread_ptr(&w->c, mount + (uint64_t)mm_off(w, PS_KI_MOUNT_PARENT), &m->parent) == PS_READ_OK &&
	       ps_kread_ptr(&w->c, mount + (uint64_t)mm_off(w, PS_KI_MOUNT_MOUNTPOINT), &m->mountpoint) == PS_READ_OK &&
	       ps_kread_ptr(&w->c, mnt + (uint64_t)mm_off(w, PS_KI_VFSMOUNT_ROOT), &m->root) == PS_READ_OK;
}

/* d_path of (dentry, vfsmount) into a kept string; NULL when unreadable. */
static const char *d_path(struct ps_walker *w, uint64_t dentry, uint64_t vfsmnt)
{
	struct backbuf bb = { .pos = PATH_MAX_BYTES };
	char name[NAME_MAX_BYTES + 1];
	size_t nlen;
	struct dentry_view dv;
	struct mount_view mv;
	if (!read_dentry(w, dentry, &dv) || !mm_kptr_ok(w, vfsmnt, 4) ||
	    !read_mount(w, vfsmnt - (uint64_t)mm_off(w, PS_KI_MOUNT_MNT), &mv))
		return NULL;
	bool is_root = dv.parent == dentry;
	if (is_root && dentry != mv.root) {
		/* A pseudo file that was never linked anywhere: simple_dname(). */
		if (!read_name(w, &dv, name, &nlen))
			return NULL;
		prepend(&bb, " (deleted)", 10);
		prepend(&bb, name, nlen);
		prepend(&bb, "/", 1);
		return keep(w, bb.b + bb.pos, PATH_MAX_BYTES - bb.pos);
	}
	if (!dv.pprev && !is_root)
		prepend(&bb, " (deleted)", 10);
	size_t tail = PATH_MAX_BYTES - bb.pos;
	uint64_t d = dentry;
	for (unsigned steps = 0;; steps++) {
		if (steps > MAX_COMPONENTS)
			return NULL;
		if (d == mv.root) {
			if (mv.parent == mv.mount || !mv.parent)
				break; /* the namespace root */
			d = mv.mountpoint;
			if (!read_mount(w, mv.parent, &mv))
				return NULL;
			continue;
		}
		if (steps && !read_dentry(w, d, &dv))
			return NULL;
		if (dv.parent == d) {
			/* Escaped its mount (a bind mount's dentry moved away): as the kernel, drop
			 * what was built. */
			bb.pos = PATH_MAX_BYTES - tail;
			break;
		}
		if (!read_name(w, &dv, name, &nlen))
			return NULL;
		prepend(&bb, name, nlen);
		prepend(&bb, "/", 1);
		if (bb.overflow)
			return NULL;
		d = dv.parent;
	}
	if (PATH_MAX_BYTES - bb.pos == tail)
		prepend(&bb, "/", 1);
	return keep(w, bb.b + bb.pos, PATH_MAX_BYTES - bb.pos);
}

/* The path of INODE through the first of its dentries: as mounted (the first mount of its
 * superblock), else inside its filesystem; "" when it has no dentry; and its device and
 * inode number. The path is a kept string. 0, or -1 when the inode cannot be read. */
int mm_inode_info(struct ps_walker *w, uint64_t inode, struct mm_file_info *info)
{
	memset(info, 0, sizeof *info);
	info->path = "";
	if (ensure_cache(w) != 0 || !mm_kptr_ok(w, inode, 4))
		return -1;
	const struct ps_kinfo_member *im = &w->c.ki.member[PS_KI_INODE_INO];
	uint8_t b[8] = { 0 };
	uint64_t sb;
	uint32_t dev;
	if (im->size > 8 || ps_kread(&w->c, inode + (uint64_t)im->offset, b, im->size) != PS_READ_OK ||
	    ps_kread_ptr(&w->c, inode + (uint64_t)mm_off(w, PS_KI_INODE_SB), &sb) != PS_READ_OK ||
	    !mm_kptr_ok(w, sb, 4) || ps_kread_u32(&w->c, sb + (uint64_t)mm_off(w, PS_KI_SB_DEV), &dev) != PS_READ_OK)
		return -1;
	info->inode = im->size == 8 ? ps_load_u64(&w->c, b) : ps_load_u32(&w->c, b);
	info->dev_major = dev >> 20;
	info->dev_minor = dev & 0xfffff;
	uint64_t first;
	enum ps_ki_member alias = mm_has(w, PS_KI_DENTRY_D_ALIAS) ? PS_KI_DENTRY_D_ALIAS : PS_KI_DENTRY_D_ALIAS_ANON;
	if (!mm_has(w, PS_KI_INODE_I_DENTRY) || !mm_has(w, alias) ||
	    ps_kread_ptr(&w->c, inode + (uint64_t)mm_off(w, PS_KI_INODE_I_DENTRY), &first) != PS_READ_OK ||
	    !mm_kptr_ok(w, first, 4))
		return 0; /* no dentry: a block device's inode, an unlinked file */
	uint64_t d = first - (uint64_t)mm_off(w, alias);
	/* Mounted somewhere: the path as the mount namespace shows it, through the first mount
	 * of its superblock (sb->s_mounts). */
	uint64_t mnt_first, mount = 0;
	if (mm_has(w, PS_KI_SB_S_MOUNTS) &&
	    ps_kread_ptr(&w->c, sb + (uint64_t)mm_off(w, PS_KI_SB_S_MOUNTS), &mnt_first) == PS_READ_OK &&
	    mm_kptr_ok(w, mnt_first, 4)) {
		if (mm_has(w, PS_KI_MOUNT_MNT_NEXT_FOR_SB)) /* a struct mount *, linked by mnt_next_for_sb */
			mount = mnt_first;
		else if (mm_has(w, PS_KI_MOUNT_MNT_INSTANCE) && mnt_first != sb + (uint64_t)mm_off(w, PS_KI_SB_S_MOUNTS))
			mount = mnt_first - (uint64_t)mm_off(w, PS_KI_MOUNT_MNT_INSTANCE); /* a list_head */
	}
	if (mount) {
		const char *p = d_path(w, d, mount + (uint64_t)mm_off(w, PS_KI_MOUNT_MNT));
		if (p) {
			info->path = p;
			return 0;
		}
	}
	struct backbuf bb = { .pos = PATH_MAX_BYTES };
	char name[NAME_MAX_BYTES + 1];
	size_t nlen;
	struct dentry_view dv;
	for (unsigned steps = 0;; steps++) {
		if (steps > MAX_COMPONENTS || !read_dentry(w, d, &dv))
			return 0;
		if (dv.parent == d)
			break; /* the filesystem's root */
		if (!read_name(w, &dv, name, &nlen))
			return 0;
		prepend(&bb, name, nlen);
		prepend(&bb, "/", 1);
		if (bb.overflow)
			return 0;
		d = dv.parent;
	}
	if (bb.pos == PATH_MAX_BYTES)
		prepend(&bb, "/", 1);
	info->path = keep(w, bb.b + bb.pos, PATH_MAX_BYTES - bb.pos);
	if (!info->path)
		info->path = "";
	return 0;
}

int mm_file_info(struct ps_walker *w, uint64_t file, struct mm_file_info *info)
{
	memset(info, 0, sizeof *info);
	info->path = "";
	if (ensure_cache(w) != 0)
		return -1;
	struct mm_path_cache *pc = w->paths;
	uint64_t idx;
	if (mm_set_get(&pc->by_file, file, &idx)) {
		*info = pc->files[idx].info;
		return pc->files[idx].ok ? 0 : -1;
	}
	bool ok = false;
	uint64_t dentry = 0, mnt = 0, inode = 0;
	const bool file_ok = mm_kptr_ok(w, file, 4);
	if (file_ok &&
	    ps_kread_ptr(&w->c, file + (uint64_t)mm_off(w, PS_KI_FILE_PATH_DENTRY), &dentry) == PS_READ_OK &&
	    ps_kread_ptr(&w->c, file + (uint64_t)mm_off(w, PS_KI_FILE_PATH_MNT), &mnt) == PS_READ_OK) {
		const char *p = d_path(w, dentry, mnt);
		if (p) {
			info->path = p;
			ok = true;
		}
	}
	if (file_ok &&
	    ps_kread_ptr(&w->c, file + (uint64_t)mm_off(w, PS_KI_FILE_INODE), &inode) == PS_READ_OK &&
	    mm_kptr_ok(w, inode, 4)) {
		uint64_t ino = 0, sb = 0;
		uint32_t dev = 0;
		const struct ps_kinfo_member *im = &w->c.ki.member[PS_KI_INODE_INO];
		uint8_t b[8] = { 0 };
		if (im->size <= 8 && ps_kread(&w->c, inode + (uint64_t)im->offset, b, im->size) == PS_READ_OK)
			ino = im->size == 8 ? ps_load_u64(&w->c, b) : ps_load_u32(&w->c, b);
		else
			ok = false;
		if (ps_kread_ptr(&w->c, inode + (uint64_t)mm_off(w, PS_KI_INODE_SB), &sb) == PS_READ_OK &&
		    mm_kptr_ok(w, sb, 4) &&
		    ps_kread_u32(&w->c, sb + (uint64_t)mm_off(w, PS_KI_SB_DEV), &dev) == PS_READ_OK) {
			/* The kernel's dev_t: 12-bit major above a 20-bit minor (MINORBITS 20). */
			info->dev_major = dev >> 20;
			info->dev_minor = dev & 0xfffff;
		} else {
			ok = false;
		}
		info->inode = ino;
	} else {
		ok = false;
	}
	/* Cache the answer either way: a file unreadable once stays unreadable. */
	if (pc->nfiles == pc->capfiles) {
		size_t ncap = pc->capfiles ? pc->capfiles * 2 : 256;
		struct file_entry *n = realloc(pc->files, ncap * sizeof *n);
		if (!n)
			return ok ? 0 : -1;
		pc->files = n, pc->capfiles = ncap;
	}
	if (mm_set_put(&pc->by_file, file, pc->nfiles, true) == 1)
		pc->files[pc->nfiles++] = (struct file_entry){ .file = file, .info = *info, .ok = ok };
	return ok ? 0 : -1;
}

/* ---- special anonymous mappings --------------------------------------------------------- */

static const char *kept_string_at(struct ps_walker *w, uint64_t ptr, const char *prefix,
				  const char *suffix)
{
	if (ensure_cache(w) != 0 || !mm_kptr_ok(w, ptr, 1))
		return NULL;
	struct mm_path_cache *pc = w->paths;
	uint64_t key = ptr ^ (prefix ? 1 : 0), idx;
	if (mm_set_get(&pc->by_name_ptr, key, &idx))
		return pc->strings[idx];
	char s[96], full[128];
	if (ps_kread_string(&w->c, ptr, s, sizeof s) != PS_READ_OK || !s[0])
		return NULL;
	int n = snprintf(full, sizeof full, "%s%s%s", prefix ? prefix : "", s, suffix ? suffix : "");
	if (n < 0)
		return NULL;
	const char *k = keep(w, full, strlen(full));
	if (k)
		mm_set_put(&pc->by_name_ptr, key, w->paths->nstrings - 1, true);
	return k;
}

const char *mm_special_name(struct ps_walker *w, const struct mm_space *mm, const struct mm_vma *v,
			    const struct mm_vma *next)
{
	/* 1. install_special_mapping()'s VMAs: vm_ops == &special_mapping_vmops and
	 *    vm_private_data is the struct vm_special_mapping whose name maps prints. */
	if (!w->special_vmops_tried) {
		w->special_vmops_tried = true;
		w->have_special_vmops =
			ps_core_symbol_by_name(&w->c, "special_mapping_vmops", &w->special_vmops) == 0;
	}
	if (w->have_special_vmops && v->ops == w->special_vmops && mm_kptr_ok(w, v->priv, 4)) {
		uint64_t name_ptr;
		int64_t off = mm_has(w, PS_KI_VM_SPECIAL_MAPPING_NAME) ? mm_off(w, PS_KI_VM_SPECIAL_MAPPING_NAME) : 0;
		if (ps_kread_ptr(&w->c, v->priv + (uint64_t)off, &name_ptr) == PS_READ_OK) {
			const char *n = kept_string_at(w, name_ptr, NULL, NULL);
			if (n)
				return n;
		}
	}
	/* 2. Without the symbol (a data symbol: kallsyms without CONFIG_KALLSYMS_ALL, as on
	 *    Debian's armmp and arm64 kernels, lists functions only): an anonymous VMA with
	 *    vm_ops whose vm_private_data starts with a pointer to a bracketed name. Only
	 *    special mappings are anonymous and carry vm_ops, and every architecture's and
	 *    version's ones ([vdso], [vvar], [vvar_vclock], [sigpage], [uprobes] ...) are named
	 *    that way (mm/mmap.c _install_special_mapping). */
	if (!w->have_special_vmops && !v->file && v->ops && mm_kptr_ok(w, v->priv, 4)) {
		uint64_t name_ptr;
		int64_t off = mm_has(w, PS_KI_VM_SPECIAL_MAPPING_NAME) ? mm_off(w, PS_KI_VM_SPECIAL_MAPPING_NAME) : 0;
		if (ps_kread_ptr(&w->c, v->priv + (uint64_t)off, &name_ptr) == PS_READ_OK) {
			const char *n = kept_string_at(w, name_ptr, NULL, NULL);
			size_t len = n ? strlen(n) : 0;
			bool ok = len >= 3 && len < 32 && n[0] == '[' && n[len - 1] == ']';
			for (size_t i = 1; ok && i + 1 < len; i++)
				ok = (n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' && n[i] <= 'Z') ||
				     (n[i] >= '0' && n[i] <= '9') || n[i] == '_' || n[i] == '-';
			if (ok)
				return n;
		}
	}
	/* 3. Else the vDSO base the architecture keeps in mm->context: what arch_vma_name()
	 *    names when the VMA's vm_ops have no name (powerpc up to 5.10 maps its vDSO with
	 *    install_special_mapping(), whose legacy vm_ops have none, and names it by
	 *    mm->context.vdso_base); without the special-mapping symbol also the data pages
	 *    ([vvar]) right below it, as on x86_64 and arm64. */
	if (mm->readable && !v->file && mm_has(w, PS_KI_MM_CONTEXT_VDSO)) {
		uint64_t vdso;
		if (mm_get(w, mm->buf, (size_t)mm_size(w, PS_KI_MM_STRUCT), PS_KI_MM_CONTEXT_VDSO, &vdso) && vdso) {
			if (v->start == vdso)
				return "[vdso]";
			if (!w->have_special_vmops && next && next->start == vdso && v->end == vdso && !next->file)
				return "[vvar]";
		}
	}
	return NULL;
}

/* "[anon:NAME]" of prctl(PR_SET_VMA_ANON_NAME) (CONFIG_ANON_VMA_NAME); NULL if none. */
const char *mm_anon_name(struct ps_walker *w, uint64_t anon_name)
{
	if (!anon_name || !mm_has(w, PS_KI_ANON_VMA_NAME_NAME))
		return NULL;
	/* The member is a union with file-only fields and exists without the config (6.1):
	 * believe it only if it looks like a struct anon_vma_name (a live kref first). */
	uint32_t kref;
	if (!mm_kptr_ok(w, anon_name, 4) || ps_kread_u32(&w->c, anon_name, &kref) != PS_READ_OK ||
	    kref == 0 || kref > (1u << 24))
		return NULL;
	return kept_string_at(w, anon_name + (uint64_t)mm_off(w, PS_KI_ANON_VMA_NAME_NAME), "[anon:", "]");
}
