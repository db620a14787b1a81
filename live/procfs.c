/* procfs.c - read and parse /proc/PID/{stat,status,maps,smaps}. See procfs.h. */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int proc_read_file(const char *path, struct proc_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	return proc_read_fd(fd, b);
}

int proc_read_file_at(int dir, const char *name, struct proc_buf *b)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	return proc_read_fd(fd, b);
}

int proc_read_fd(int fd, struct proc_buf *b)
{
	b->len = 0;
	for (;;) {
		if (b->cap - b->len < 4096 + 1) {
			size_t cap = b->cap ? b->cap * 2 : 65536;
			char *data = realloc(b->data, cap);
			if (!data) {
				close(fd);
				return ENOMEM;
			}
			b->data = data, b->cap = cap;
		}
		ssize_t got = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			return err;
		}
		if (got == 0)
			break;
		b->len += (size_t)got;
	}
	close(fd);
	b->data[b->len] = '\0';
	return 0;
}

void proc_buf_free(struct proc_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* ---- stat ---------------------------------------------------------------------------------- */

int proc_parse_stat(const char *text, struct proc_stat *st)
{
	memset(st, 0, sizeof *st);
	/* comm may hold spaces and parentheses: it is whatever lies between the first '(' and
	 * the last ')'. */
	const char *open_paren = strchr(text, '(');
	const char *close_paren = strrchr(text, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	st->pid = strtoull(text, NULL, 10);
	size_t comm_len = (size_t)(close_paren - open_paren - 1);
	if (comm_len >= sizeof st->comm)
		comm_len = sizeof st->comm - 1;
	memcpy(st->comm, open_paren + 1, comm_len);
	st->comm[comm_len] = '\0';

	const char *p = close_paren + 1;
	for (int field = 3; *p && *p != '\n'; field++) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		/* Signed fields (nice, priority) are never ones we keep, so unsigned parsing is
		 * enough for the fields below. */
		uint64_t v = strtoull(p, NULL, 10);
		switch (field) {
		case 3: st->state = *p; break;
		case 4: st->ppid = v; break;
		case 9: st->flags = v; break;
		case 10: st->minflt = v; break;
		case 12: st->majflt = v; break;
		case 14: st->utime = v; break;
		case 15: st->stime = v; break;
		case 22: st->starttime = v; break;
		case 23: st->vsize = v; break;
		case 28: st->start_stack = v; break;
		case 47: st->start_brk = v, st->has_mm_fields = true; break;
		default: break;
		}
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	return st->state ? 0 : -1;
}

/* ---- status -------------------------------------------------------------------------------- */

static bool status_field(const char *line, const char *name, uint64_t *out)
{
	size_t n = strlen(name);
	if (strncmp(line, name, n) != 0 || line[n] != ':')
		return false;
	*out = strtoull(line + n + 1, NULL, 10);
	return true;
}

int proc_parse_status(const char *text, struct proc_status *st)
{
	memset(st, 0, sizeof *st);
	bool have_tgid = false;
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		uint64_t v;
		if (status_field(line, "Tgid", &st->tgid))
			have_tgid = true;
		else if (status_field(line, "PPid", &st->ppid))
			;
		else if (status_field(line, "RssAnon", &v))
			st->rss_anon_kb = v, st->has_rss = true;
		else if (status_field(line, "RssFile", &v))
			st->rss_file_kb = v;
		else if (status_field(line, "RssShmem", &v))
			st->rss_shmem_kb = v;
		else if (status_field(line, "VmSwap", &v))
			st->swap_kb = v;
	}
	return have_tgid ? 0 : -1;
}

/* ---- maps ---------------------------------------------------------------------------------- */

static bool parse_hex_until(char **pp, char stop, uint64_t *out)
{
	char *end;
	errno = 0;
	*out = strtoull(*pp, &end, 16);
	if (end == *pp || *end != stop || errno)
		return false;
	*pp = end + 1;
	return true;
}

/* "start-end perm offset maj:min inode   path" */
static bool parse_maps_line(char *line, struct proc_map *m)
{
	char *p = line;
	uint64_t major, minor;
	if (!parse_hex_until(&p, '-', &m->start) || !parse_hex_until(&p, ' ', &m->end))
		return false;
	if (strlen(p) < 5 || p[4] != ' ')
		return false;
	memcpy(m->perm, p, 4);
	m->perm[4] = '\0';
	p += 5;
	if (!parse_hex_until(&p, ' ', &m->offset) || !parse_hex_until(&p, ':', &major) ||
	    !parse_hex_until(&p, ' ', &minor))
		return false;
	char *end;
	m->inode = strtoull(p, &end, 10);
	if (end == p || (*end != ' ' && *end != '\0'))
		return false;
	m->dev_major = (unsigned)major, m->dev_minor = (unsigned)minor;
	/* The kernel pads with spaces up to the path column; the path itself is escaped so it
	 * cannot contain a newline, but it may contain (and end with) spaces: keep it whole. */
	while (*end == ' ')
		end++;
	m->path = end;
	return m->start < m->end;
}

int proc_parse_maps(char *text, struct proc_map **maps, size_t *n, size_t *cap, size_t *bad_line)
{
	*n = 0;
	size_t line_no = 0;
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		line_no++;
		if (*n == *cap) {
			size_t new_cap = *cap ? *cap * 2 : 256;
			struct proc_map *grown = realloc(*maps, new_cap * sizeof **maps);
			if (!grown)
				return ENOMEM;
			*maps = grown, *cap = new_cap;
		}
		if (!parse_maps_line(line, &(*maps)[*n])) {
			*bad_line = line_no;
			return -1;
		}
		(*n)++;
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

/* ---- smaps --------------------------------------------------------------------------------- */

uint64_t proc_smaps_field_kb(const char *text, uint64_t start, const char *name)
{
	bool in_vma = false;
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *end;
		uint64_t vma_start = strtoull(line, &end, 16);
		if (end != line && *end == '-') {
			if (in_vma)
				break;
			in_vma = vma_start == start;
			continue;
		}
		uint64_t kb;
		if (in_vma && status_field(line, name, &kb))
			return kb;
	}
	return UINT64_MAX;
}

int proc_parse_smaps(const char *text, struct proc_smaps_vma **vmas, size_t *n, size_t *cap)
{
	*n = 0;
	struct proc_smaps_vma *v = NULL;
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *end;
		uint64_t start = strtoull(line, &end, 16);
		if (end != line && *end == '-') { /* "start-end perm ...": the next VMA */
			if (*n == *cap) {
				size_t ncap = *cap ? *cap * 2 : 256;
				struct proc_smaps_vma *grown = realloc(*vmas, ncap * sizeof *grown);
				if (!grown)
					return ENOMEM;
				*vmas = grown, *cap = ncap;
			}
			v = &(*vmas)[(*n)++];
			memset(v, 0xff, sizeof *v); /* every field unknown until listed */
			v->start = start;
			continue;
		}
		if (!v)
			continue;
		static const struct { const char *name; size_t offset; } fields[] = {
			{ "Rss", offsetof(struct proc_smaps_vma, rss) },
			{ "Pss", offsetof(struct proc_smaps_vma, pss) },
			{ "Shared_Clean", offsetof(struct proc_smaps_vma, shared_clean) },
			{ "Shared_Dirty", offsetof(struct proc_smaps_vma, shared_dirty) },
			{ "Private_Clean", offsetof(struct proc_smaps_vma, private_clean) },
			{ "Private_Dirty", offsetof(struct proc_smaps_vma, private_dirty) },
			{ "Referenced", offsetof(struct proc_smaps_vma, referenced) },
			{ "Swap", offsetof(struct proc_smaps_vma, swap) },
			{ "KernelPageSize", offsetof(struct proc_smaps_vma, kernel_page_size) },
		};
		for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
			if (status_field(line, fields[f].name, (uint64_t *)((char *)v + fields[f].offset)))
				break;
	}
	return 0;
}

const struct proc_smaps_vma *proc_smaps_find(const struct proc_smaps_vma *vmas, size_t n, uint64_t start)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vmas[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && vmas[lo].start == start ? &vmas[lo] : NULL;
}
