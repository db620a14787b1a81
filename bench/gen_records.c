/* gen_records.c - write a large, realistic, deterministic record file for the parse benchmark.
 *
 * Everything goes through the record library's own writer (ps_writer, ps_write_*), so the
 * file is exactly what a source would write. The machine it describes:
 *
 *   - P processes running a smaller set of programs (Zipf: a few worker pools with many
 *     instances, many singletons), 1-60 threads each (a thread stack VMA per thread);
 *   - a pool of shared libraries: a few core libraries in every program, 20-40 per program;
 *     library and executable text/rodata pages are shared between processes with per-page
 *     mapcounts (the kernel's number of mappers, exactly consistent with the file);
 *   - per process: COW data and bss of every library, heap, anonymous regions (some backed by
 *     THPs), the stack, and for JIT/GC runtimes a sparse reservation of 16-64 GiB with a few
 *     MiB touched; some pages swapped out (w records); shared memory between workers;
 *   - page runs are short (mapcounts vary page by page and PFNs are scattered), so the
 *     writer's merging leaves about one m record per 1.5-2.5 pages.
 *
 * The structure (objects, sizes, PFNs) depends only on the seed, P and the distinct-PFN
 * target, so files made with the same -d and different -r have exactly the same distinct
 * PFNs; -r only changes how many processes map each shared page (found by bisection to hit
 * the mapping-record target).
 *
 * usage: gen_records -o FILE [-p PROCS] [-r MAP_RECORDS] [-d DISTINCT_PFNS] [-s SEED] [-q]
 */
#include "records.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PAGE 4096u
#define NCORE 8            /* core libraries every program maps */
#define NSTREAMS 16        /* physical memory "zones" PFNs are drawn from */

/* ---- deterministic randomness -------------------------------------------------------------- */

static uint64_t g_seed = 1;

static uint64_t mix(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

/* A value that depends only on (seed, a, b, c): order independent. */
static uint64_t h3(uint64_t a, uint64_t b, uint64_t c)
{
	return mix(g_seed ^ mix(a ^ mix(b ^ mix(c))));
}

struct rng { uint64_t s; };
static struct rng rng_at(uint64_t a, uint64_t b, uint64_t c) { return (struct rng){ h3(a, b, c) }; }
static uint64_t rnext(struct rng *r) { return mix(r->s++); }
static uint64_t rbelow(struct rng *r, uint64_t n) { return n ? rnext(r) % n : 0; }
static double runit(struct rng *r) { return (double)(rnext(r) >> 11) * 0x1.0p-53; }
static uint64_t rrange(struct rng *r, uint64_t lo, uint64_t hi) { return lo + rbelow(r, hi - lo + 1); }
static double rlognormal(struct rng *r, double mu, double sigma)
{
	double u1 = runit(r), u2 = runit(r);
	if (u1 < 1e-12)
		u1 = 1e-12;
	return exp(mu + sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

/* ---- physical memory -------------------------------------------------------------------------- */

/* PFNs come from NSTREAMS zones, each handing out ascending frames with small holes, so
 * neighbouring runs never continue each other (the writer would merge them) and the PFNs of
 * one VMA are scattered over memory as a buddy allocator leaves them. */
struct pfnalloc {
	uint64_t next[NSTREAMS], end[NSTREAMS], overflow, thp_next;
	struct rng r;
};

static void pfn_init(struct pfnalloc *a, uint64_t distinct)
{
	uint64_t span = distinct * 3 / NSTREAMS + (1u << 16);
	for (int i = 0; i < NSTREAMS; i++) {
		a->next[i] = 0x1000 + (uint64_t)i * span;
		a->end[i] = a->next[i] + span;
	}
	a->overflow = a->end[NSTREAMS - 1];
	a->thp_next = UINT64_C(1) << 40; /* far above: frames are never shared by accident */
	a->r = rng_at(0x9f9, 0, 0);
}

static uint64_t pfn_alloc(struct pfnalloc *a, uint64_t n)
{
	int s = (int)rbelow(&a->r, NSTREAMS);
	uint64_t step = n + 1 + rbelow(&a->r, 3);
	uint64_t *next = a->next[s] + step <= a->end[s] ? &a->next[s] : &a->overflow;
	uint64_t pfn = *next;
	*next += step;
	return pfn;
}

static uint64_t pfn_alloc_thp(struct pfnalloc *a)
{
	uint64_t pfn = a->thp_next;
	a->thp_next += 512 * (2 + rbelow(&a->r, 2)); /* never adjacent to the previous one */
	return pfn;
}

/* ---- shared objects: executables, libraries, shared memory, the vdso ------------------------- */

enum obj_type { OBJ_EXE, OBJ_LIB, OBJ_SHM, OBJ_VDSO };

struct chunk {              /* pages [off, off+len) of the object, one physical extent */
	uint32_t off, len;
	uint32_t mc;            /* mapcount: the users of rank < mc map it */
	uint32_t refextra;      /* refcount = mapcount + refextra */
	uint64_t pfn, pflags;
	float q;                /* popularity in (0, 1] */
};

struct object {
	enum obj_type type;
	char path[96];
	uint64_t inode;
	uint64_t share;         /* distinct pages this object was given */
	uint32_t text_pages, ro_pages; /* virtual sizes of the two shared parts */
	uint32_t data_pages, bss_pages; /* private per process (COW data, bss) */
	struct chunk *chunks;
	size_t nchunks, ntext;  /* chunks [0, ntext) are text, the rest rodata */
	uint32_t nusers;
	double weight;
};

struct use { uint32_t obj, rank; };

struct program {
	uint32_t exe;
	uint32_t *libs;
	size_t nlibs;
	int shm;                /* object index or -1 */
	bool jit;
	char name[32];
	uint32_t ninst;
};

struct process {
	uint32_t prog;
	struct use *uses;       /* exe, libs..., shm, vdso */
	size_t nuses;
	uint32_t nthreads;
	double weight;
	uint64_t budget;        /* private pages for heap, anon regions and JIT */
	uint64_t pid;
	uint64_t aslr;
};

struct world {
	uint32_t nprocs, nprogs, nlibs;
	struct object *objs;
	size_t nobjs;
	struct program *progs;
	struct process *procs;
	uint64_t distinct_target, records_target;
	double alpha;
};

static void *xmalloc0(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p) {
		fprintf(stderr, "gen_records: out of memory\n");
		exit(2);
	}
	return p;
}

static const char *const lib_names[] = {
	"ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2",
	"librt.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libz.so.1", "libssl.so.3",
	"libcrypto.so.3", "libsystemd.so.0", "libselinux.so.1", "libpcre2-8.so.0", "liblzma.so.5",
	"libzstd.so.1", "libcap.so.2", "libgcrypt.so.20", "libgpg-error.so.0", "liblz4.so.1",
	"libglib-2.0.so.0", "libgobject-2.0.so.0", "libgio-2.0.so.0", "libdbus-1.so.3",
	"libffi.so.8", "libexpat.so.1", "libxml2.so.2", "libicuuc.so.72", "libicudata.so.72",
	"libsqlite3.so.0", "libcurl.so.4", "libnghttp2.so.14", "libidn2.so.0", "libunistring.so.2",
	"libpython3.11.so.1.0", "libjvm.so", "libnode.so.108", "libv8.so", "libuv.so.1",
	"libprotobuf.so.32", "libgrpc.so.29", "libabsl_base.so", "libbrotlicommon.so.1",
	"libkrb5.so.3", "libgssapi_krb5.so.2", "libk5crypto.so.3", "libcom_err.so.2",
	"libkeyutils.so.1", "libresolv.so.2", "libtinfo.so.6", "libreadline.so.8", "libacl.so.1",
	"libattr.so.1", "libaudit.so.1", "libpam.so.0", "libmount.so.1", "libblkid.so.1",
	"libuuid.so.1", "libudev.so.1", "libkmod.so.2", "libjson-c.so.5", "libevent-2.1.so.7",
	"libpq.so.5", "libldap-2.5.so.0", "libsasl2.so.2", "libgnutls.so.30", "libnettle.so.8",
	"libhogweed.so.6", "libgmp.so.10", "libp11-kit.so.0", "libtasn1.so.6", "libjemalloc.so.2",
	"libtcmalloc.so.4", "libbz2.so.1.0", "libarchive.so.13", "libyaml-0.so.2", "libpng16.so.16",
	"libjpeg.so.62", "libfreetype.so.6", "libfontconfig.so.1",
};
#define N_LIB_NAMES (sizeof lib_names / sizeof lib_names[0])

static const char *const prog_names[] = {
	"postgres", "nginx", "java", "node", "python3", "php-fpm", "redis-server", "sshd",
	"systemd", "dbus-daemon", "containerd", "dockerd", "kubelet", "envoy", "haproxy",
	"memcached", "mysqld", "rsyslogd", "cron", "bash", "gunicorn", "celery", "prometheus",
	"grafana", "elasticsearch", "kafka", "zookeeper", "chronyd", "polkitd", "udevd",
};
#define N_PROG_NAMES (sizeof prog_names / sizeof prog_names[0])

static uint32_t add_object(struct world *w, size_t *cap, enum obj_type type)
{
	if (w->nobjs == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		w->objs = realloc(w->objs, *cap * sizeof *w->objs);
		if (!w->objs)
			exit(2);
	}
	struct object *o = &w->objs[w->nobjs];
	memset(o, 0, sizeof *o);
	o->type = type;
	o->inode = 131072 + w->nobjs * 7;
	return (uint32_t)w->nobjs++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Programs, processes, objects and who uses what: depends on the seed and P only. */
static void build_population(struct world *w)
{
	struct rng r = rng_at(1, 0, 0);
	size_t cap = 0;
	w->nprogs = w->nprocs / 5 < 8 ? 8 : w->nprocs / 5;
	w->nlibs = w->nprogs * 2 < 40 ? 40 : w->nprogs * 2;
	if (w->nlibs > 400)
		w->nlibs = 400;
	/* the vdso first, then the libraries */
	uint32_t vdso = add_object(w, &cap, OBJ_VDSO);
	snprintf(w->objs[vdso].path, sizeof w->objs[vdso].path, "[vdso]");
	for (uint32_t l = 0; l < w->nlibs; l++) {
		uint32_t o = add_object(w, &cap, OBJ_LIB);
		if (l < N_LIB_NAMES)
			snprintf(w->objs[o].path, sizeof w->objs[o].path, "/usr/lib/x86_64-linux-gnu/%s",
				 lib_names[l]);
		else
			snprintf(w->objs[o].path, sizeof w->objs[o].path,
				 "/usr/lib/x86_64-linux-gnu/libbench%u.so.%u", l, l % 7);
		/* Size weights: core libraries are large-ish, the rest lognormal (8 pages .. MBs). */
		double wgt = l == 1 ? 700 : l == 7 ? 900 : l < NCORE ? 100 + rbelow(&r, 200)
								       : rlognormal(&r, log(120), 1.3);
		w->objs[o].weight = wgt < 4 ? 4 : wgt > 12000 ? 12000 : wgt;
		w->objs[o].data_pages = (uint32_t)rrange(&r, 1, 12);
		w->objs[o].bss_pages = (uint32_t)rrange(&r, 0, 8);
	}
	/* Programs: Zipf-distributed instance counts. */
	w->progs = xmalloc0(w->nprogs * sizeof *w->progs);
	double *zipf = xmalloc0(w->nprogs * sizeof *zipf), zsum = 0;
	for (uint32_t j = 0; j < w->nprogs; j++)
		zsum += zipf[j] = 1.0 / pow(j + 1, 1.1);
	uint32_t assigned = 0;
	for (uint32_t j = 0; j < w->nprogs; j++) {
		w->progs[j].ninst = (uint32_t)(zipf[j] / zsum * (w->nprocs - w->nprogs)) + 1;
		assigned += w->progs[j].ninst;
	}
	w->progs[0].ninst += w->nprocs - assigned; /* rounding: the largest pool takes the rest */
	free(zipf);
	double *libpop = xmalloc0(w->nlibs * sizeof *libpop);
	for (uint32_t l = NCORE; l < w->nlibs; l++)
		libpop[l] = 1.0 / pow(l - NCORE + 2, 1.5);
	for (uint32_t j = 0; j < w->nprogs; j++) {
		struct program *pg = &w->progs[j];
		if (j < N_PROG_NAMES)
			snprintf(pg->name, sizeof pg->name, "%s", prog_names[j]);
		else
			snprintf(pg->name, sizeof pg->name, "%s-%u", prog_names[j % N_PROG_NAMES], j);
		pg->jit = strstr(pg->name, "java") || strstr(pg->name, "node") ||
			  strstr(pg->name, "elasticsearch") || strstr(pg->name, "kafka") ||
			  strstr(pg->name, "zookeeper") || rbelow(&r, 10) == 0;
		pg->exe = add_object(w, &cap, OBJ_EXE);
		struct object *e = &w->objs[pg->exe];
		snprintf(e->path, sizeof e->path, "/usr/bin/%s", pg->name);
		double ew = rlognormal(&r, log(100), 1.0);
		e->weight = ew < 16 ? 16 : ew > 5000 ? 5000 : ew;
		e->data_pages = (uint32_t)rrange(&r, 2, 64);
		e->bss_pages = (uint32_t)rrange(&r, 1, 64);
		/* Libraries: the core set plus 12-32 by popularity, without repetition. */
		size_t want = NCORE + (size_t)rrange(&r, 12, 32);
		if (want > w->nlibs)
			want = w->nlibs;
		pg->libs = xmalloc0(want * sizeof *pg->libs);
		bool *taken = xmalloc0(w->nlibs);
		for (uint32_t l = 0; l < NCORE; l++)
			pg->libs[pg->nlibs++] = 1 + l, taken[l] = true;
		while (pg->nlibs < want) {
			double tot = 0;
			for (uint32_t l = NCORE; l < w->nlibs; l++)
				tot += taken[l] ? 0 : libpop[l];
			double x = runit(&r) * tot;
			uint32_t pick = 0;
			for (uint32_t l = NCORE; l < w->nlibs; l++) {
				if (taken[l])
					continue;
				pick = l;
				if ((x -= libpop[l]) < 0)
					break;
			}
			taken[pick] = true;
			pg->libs[pg->nlibs++] = 1 + pick;
		}
		free(taken);
		pg->shm = -1;
		if (pg->ninst >= 4 && rbelow(&r, 2) == 0) {
			pg->shm = (int)add_object(w, &cap, OBJ_SHM);
			struct object *s = &w->objs[pg->shm];
			snprintf(s->path, sizeof s->path, "/dev/shm/%s.%u", pg->name, j);
			s->weight = rlognormal(&r, log(1500), 0.8);
		}
	}
	free(libpop);
	/* Processes. */
	w->procs = xmalloc0(w->nprocs * sizeof *w->procs);
	uint32_t p = 0;
	for (uint32_t j = 0; j < w->nprogs; j++)
		for (uint32_t i = 0; i < w->progs[j].ninst; i++, p++) {
			struct process *pr = &w->procs[p];
			const struct program *pg = &w->progs[j];
			pr->prog = j;
			pr->pid = 300 + p * 37 + rbelow(&r, 30);
			pr->aslr = rnext(&r);
			pr->nthreads = pg->jit ? (uint32_t)rrange(&r, 12, 60) : (uint32_t)rrange(&r, 1, 8);
			pr->weight = rlognormal(&r, 0, 1.0) * (pg->jit ? 4 : 1) * (i == 0 ? 2 : 1);
			pr->nuses = 1 + pg->nlibs + (pg->shm >= 0) + 1;
			pr->uses = xmalloc0(pr->nuses * sizeof *pr->uses);
			size_t k = 0;
			pr->uses[k++].obj = pg->exe;
			for (size_t l = 0; l < pg->nlibs; l++)
				pr->uses[k++].obj = pg->libs[l];
			if (pg->shm >= 0)
				pr->uses[k++].obj = (uint32_t)pg->shm;
			pr->uses[k++].obj = vdso;
		}
	/* Ranks: a random order of each object's users (rank < mapcount maps the page). */
	uint64_t **keys = xmalloc0(w->nobjs * sizeof *keys);
	for (uint32_t q = 0; q < w->nprocs; q++)
		for (size_t k = 0; k < w->procs[q].nuses; k++)
			w->objs[w->procs[q].uses[k].obj].nusers++;
	for (size_t o = 0; o < w->nobjs; o++)
		keys[o] = xmalloc0((w->objs[o].nusers + 1) * sizeof **keys), w->objs[o].nusers = 0;
	for (uint32_t q = 0; q < w->nprocs; q++)
		for (size_t k = 0; k < w->procs[q].nuses; k++) {
			struct object *o = &w->objs[w->procs[q].uses[k].obj];
			keys[o - w->objs][o->nusers++] = (h3(2, q, (uint64_t)(o - w->objs)) & ~UINT64_C(0xfffff)) | q;
		}
	for (size_t o = 0; o < w->nobjs; o++)
		qsort(keys[o], w->objs[o].nusers, sizeof **keys, cmp_u64);
	for (uint32_t q = 0; q < w->nprocs; q++)
		for (size_t k = 0; k < w->procs[q].nuses; k++) {
			uint32_t o = w->procs[q].uses[k].obj;
			uint64_t key = (h3(2, q, o) & ~UINT64_C(0xfffff)) | q;
			uint64_t *at = bsearch(&key, keys[o], w->objs[o].nusers, sizeof *keys[o], cmp_u64);
			w->procs[q].uses[k].rank = (uint32_t)(at - keys[o]);
		}
	for (size_t o = 0; o < w->nobjs; o++)
		free(keys[o]);
	free(keys);
}

static uint64_t file_pflags(struct rng *r)
{
	uint64_t f = PS_PF(PS_PF_UPTODATE) | PS_PF(PS_PF_LRU) | PS_PF(PS_PF_MMAP) |
		     PS_PF(PS_PF_MAPPEDTODISK);
	if (rbelow(r, 3))
		f |= PS_PF(PS_PF_ACTIVE);
	if (rbelow(r, 2))
		f |= PS_PF(PS_PF_REFERENCED);
	if (rbelow(r, 8) == 0)
		f |= PS_PF(PS_PF_YOUNG);
	return f;
}

static uint64_t anon_pflags(struct rng *r)
{
	uint64_t f = PS_PF(PS_PF_UPTODATE) | PS_PF(PS_PF_LRU) | PS_PF(PS_PF_MMAP) |
		     PS_PF(PS_PF_ANON) | PS_PF(PS_PF_SWAPBACKED);
	if (rbelow(r, 2))
		f |= PS_PF(PS_PF_ACTIVE);
	if (rbelow(r, 3) == 0)
		f |= PS_PF(PS_PF_REFERENCED);
	if (rbelow(r, 16) == 0)
		f |= PS_PF(PS_PF_SWAPCACHE);
	if (rbelow(r, 10) == 0)
		f |= PS_PF(PS_PF_SOFTDIRTY);
	return f;
}

/* Lay the object's shared pages out as chunks: extents of 1-4 pages, holes between them. */
static void build_chunks(struct world *w, struct pfnalloc *pa)
{
	uint64_t shared_target = w->distinct_target / 2;
	double wsum = 0;
	for (size_t o = 0; o < w->nobjs; o++)
		if (w->objs[o].nusers && w->objs[o].type != OBJ_VDSO)
			wsum += w->objs[o].weight;
	for (size_t o = 0; o < w->nobjs; o++) {
		struct object *ob = &w->objs[o];
		struct rng r = rng_at(3, o, 0);
		if (!ob->nusers)
			continue;
		uint64_t pages = ob->type == OBJ_VDSO ? 2 : (uint64_t)(ob->weight / wsum * (double)shared_target);
		if (pages < 2)
			pages = 2;
		ob->share = pages;
		/* text 80%, rodata 20% (shm: one part); touched density 50-95% of the file */
		uint64_t text = ob->type == OBJ_LIB || ob->type == OBJ_EXE ? pages * 4 / 5 : pages;
		if (!text)
			text = 1;
		uint64_t ro = pages - text;
		double density = ob->type == OBJ_VDSO ? 1.0 : 0.5 + 0.45 * runit(&r);
		size_t cap = (size_t)pages + 2;
		ob->chunks = xmalloc0(cap * sizeof *ob->chunks);
		for (int part = 0; part < 2; part++) {
			uint64_t touched = part ? ro : text;
			uint64_t virt = (uint64_t)ceil((double)touched / density);
			if (virt < touched)
				virt = touched;
			uint64_t base = part ? ob->text_pages : 0, pos = 0;
			double avg_gap = touched ? (double)(virt - touched) / ((double)touched / 1.6) : 0;
			while (touched) {
				uint64_t len = rbelow(&r, 10) < 6 ? 1 : rbelow(&r, 10) < 6 ? 2 : rrange(&r, 3, 4);
				if (len > touched)
					len = touched;
				uint64_t room = virt - pos - touched;
				uint64_t gap = avg_gap > 0 ? (uint64_t)(runit(&r) * 2 * avg_gap) : 0;
				if (gap > room)
					gap = room;
				pos += gap;
				struct chunk *c = &ob->chunks[ob->nchunks++];
				c->off = (uint32_t)(base + pos);
				c->len = (uint32_t)len;
				c->pfn = pfn_alloc(pa, len);
				/* Popularity: a hot core everyone touches, a long tail of rare pages. */
				double u = runit(&r);
				c->q = ob->type == OBJ_VDSO ? 1.0f : rbelow(&r, 4) == 0 ? 1.0f
										 : (float)(0.02 + 0.98 * u * u);
				c->refextra = (uint32_t)rbelow(&r, 3);
				if (ob->type == OBJ_SHM)
					c->pflags = PS_PF(PS_PF_UPTODATE) | PS_PF(PS_PF_LRU) |
						    PS_PF(PS_PF_MMAP) | PS_PF(PS_PF_SWAPBACKED) |
						    (rbelow(&r, 2) ? PS_PF(PS_PF_DIRTY) : 0) |
						    (rbelow(&r, 2) ? PS_PF(PS_PF_ACTIVE) : 0);
				else if (ob->type == OBJ_VDSO)
					c->pflags = PS_PF(PS_PF_UPTODATE);
				else
					c->pflags = file_pflags(&r);
				pos += len;
				touched -= len;
			}
			if (part)
				ob->ro_pages = (uint32_t)virt;
			else {
				ob->text_pages = (uint32_t)virt;
				ob->ntext = ob->nchunks;
			}
		}
	}
}

static uint32_t chunk_mc(const struct chunk *c, uint32_t nusers, double alpha)
{
	double x = ceil((double)c->q * alpha * nusers);
	if (x < 1)
		return 1;
	return x >= nusers ? nusers : (uint32_t)x;
}

static uint64_t shared_records(const struct world *w, double alpha)
{
	uint64_t n = 0;
	for (size_t o = 0; o < w->nobjs; o++)
		for (size_t c = 0; c < w->objs[o].nchunks; c++)
			n += chunk_mc(&w->objs[o].chunks[c], w->objs[o].nusers, alpha);
	return n;
}

static void set_alpha(struct world *w, double alpha)
{
	w->alpha = alpha;
	for (size_t o = 0; o < w->nobjs; o++)
		for (size_t c = 0; c < w->objs[o].nchunks; c++)
			w->objs[o].chunks[c].mc = chunk_mc(&w->objs[o].chunks[c], w->objs[o].nusers, alpha);
}

/* ---- emitting one process ------------------------------------------------------------------ */

struct stats {
	uint64_t m_records, m_pages, w_records, w_pages, private_pfns, vmas, tasks, sums;
	uint64_t shared_maps;
};

enum content { CT_NONE, CT_SHARED_TEXT, CT_SHARED_RO, CT_PRIVATE, CT_SPARSE, CT_STACK, CT_THP };

struct vdesc {
	enum content ct;
	uint32_t obj;           /* CT_SHARED_*: the object; */
	uint32_t rank;
	uint64_t touched;       /* CT_PRIVATE/SPARSE/STACK/THP: pages to make resident */
	bool cow;               /* private pages of a file mapping (COW data) */
	bool swap_ok;
};

struct gen {
	struct world *w;
	struct ps_writer *wr;   /* NULL: count only */
	struct pfnalloc *pa;
	struct stats st;
	struct ps_vma *vmas;
	struct vdesc *desc;
	size_t nvmas, capvmas;
	uint64_t mm;
	struct ps_vma_sum sum;
};

static void die_writer(struct gen *g)
{
	fprintf(stderr, "gen_records: %s\n", ps_writer_error(g->wr));
	exit(2);
}

static void put_map(struct gen *g, const struct ps_map *m)
{
	g->st.m_records++;
	g->st.m_pages += m->npages;
	if (g->wr) {
		if (ps_write_map(g->wr, m) < 0)
			die_writer(g);
		ps_sum_add_map(&g->sum, m, PAGE);
	}
}

static void put_swap(struct gen *g, const struct ps_swap *s)
{
	g->st.w_records++;
	g->st.w_pages += s->npages;
	if (g->wr) {
		if (ps_write_swap(g->wr, s) < 0)
			die_writer(g);
		ps_sum_add_swap(&g->sum, s);
	}
}

static void add_vma(struct gen *g, uint64_t start, uint64_t npages, const char *perm, uint64_t pgoff,
		    const char *path, uint64_t inode, struct vdesc d)
{
	if (g->nvmas == g->capvmas) {
		g->capvmas = g->capvmas ? g->capvmas * 2 : 128;
		g->vmas = realloc(g->vmas, g->capvmas * sizeof *g->vmas);
		g->desc = realloc(g->desc, g->capvmas * sizeof *g->desc);
		if (!g->vmas || !g->desc)
			exit(2);
	}
	struct ps_vma *v = &g->vmas[g->nvmas];
	memset(v, 0, sizeof *v);
	v->mm = g->mm;
	v->start = start;
	v->end = start + npages * PAGE;
	memcpy(v->perm, perm, 4);
	v->vmflags = (perm[0] == 'r' ? 0x11 : 0x10) | (perm[1] == 'w' ? 0x22 : 0x20) |
		     (perm[2] == 'x' ? 0x44 : 0x40) | (perm[3] == 's' ? 0x88 : 0) |
		     (path && strcmp(path, "[stack]") == 0 ? 0x100 : 0);
	v->pgoff = pgoff;
	v->dev_major = inode ? 0xfe : 0, v->dev_minor = inode ? 1 : 0;
	v->inode = inode;
	v->path = path ? path : "";
	g->desc[g->nvmas++] = d;
}

static struct ps_pte pte_of(bool w, bool x, bool a, bool d, bool excl)
{
	struct ps_pte p = { 0, 0xff };
	p.set = (uint8_t)((w << PS_PTE_WRITE) | (x << PS_PTE_EXEC) | (1 << PS_PTE_USER) |
			  (a << PS_PTE_ACCESSED) | (d << PS_PTE_DIRTY) | (excl << PS_PTE_EXCLUSIVE));
	return p;
}

static void emit_shared(struct gen *g, uint32_t pidx, const struct ps_vma *v, const struct vdesc *d)
{
	const struct object *o = &g->w->objs[d->obj];
	size_t c0 = d->ct == CT_SHARED_TEXT ? 0 : o->ntext, c1 = d->ct == CT_SHARED_TEXT ? o->ntext : o->nchunks;
	uint64_t base = v->start - (d->ct == CT_SHARED_TEXT ? 0 : (uint64_t)o->text_pages * PAGE);
	bool exec = v->perm[2] == 'x', writable = v->perm[1] == 'w';
	for (size_t c = c0; c < c1; c++) {
		const struct chunk *ch = &o->chunks[c];
		if (d->rank >= ch->mc)
			continue;
		g->st.shared_maps++;
		if (!g->wr) {
			g->st.m_records++, g->st.m_pages += ch->len;
			continue;
		}
		uint64_t hv = h3(pidx, d->obj, c);
		struct ps_map m = {
			.mm = g->mm, .vaddr = base + (uint64_t)ch->off * PAGE, .pfn = ch->pfn,
			.npages = ch->len, .mapcount = ch->mc, .refcount = ch->mc + ch->refextra,
			.pte = pte_of(writable, exec, hv & 1 || ch->q >= 1.0f, writable && (hv & 6) == 0,
				      ch->mc == 1 && writable),
			.pflags = ch->pflags, .shift = 12,
		};
		put_map(g, &m);
	}
}

/* Private pages: `touched` resident pages spread over the VMA in chunks of 1-4 pages (or at
 * its top for stacks), a few of them swapped out. */
static void emit_private(struct gen *g, uint32_t pidx, uint32_t vidx, const struct ps_vma *v,
			 const struct vdesc *d)
{
	struct rng r = rng_at(4, pidx, vidx);
	uint64_t virt = (v->end - v->start) / PAGE, touched = d->touched;
	if (touched > virt)
		touched = virt;
	uint64_t pos = d->ct == CT_STACK ? virt - touched : 0;
	double avg_len = d->ct == CT_SPARSE ? 34 : 2.5;
	double avg_gap = d->ct == CT_STACK || !touched ? 0 : (double)(virt - touched) / ((double)touched / avg_len);
	uint64_t swap_off = rnext(&r) % (1u << 22);
	while (touched) {
		uint64_t len = d->ct == CT_SPARSE ? rrange(&r, 4, 64) : rrange(&r, 1, 4);
		if (len > touched)
			len = touched;
		uint64_t room = virt - pos - touched;
		uint64_t gap = avg_gap > 0 ? (uint64_t)(runit(&r) * 1.8 * avg_gap) : 0;
		if (gap > room)
			gap = room;
		pos += gap;
		uint64_t vaddr = v->start + pos * PAGE;
		bool swapped = d->swap_ok && rbelow(&r, 40) == 0;
		uint64_t pfl = anon_pflags(&r);
		bool a = rbelow(&r, 3) != 0, dirty = rbelow(&r, 4) != 0;
		if (swapped) {
			struct ps_swap s = { .mm = g->mm, .vaddr = vaddr, .npages = len, .type = 0,
					     .offset = swap_off, .kind = PS_SWAP };
			swap_off += len + rbelow(&r, 64);
			put_swap(g, &s);
		} else if (d->ct == CT_SPARSE && len > 8) {
			/* JIT/GC heaps: clusters of 4-64 pages, physically in pieces of <= 8 */
			for (uint64_t i = 0; i < len; i += 8) {
				uint64_t n = len - i < 8 ? len - i : 8;
				struct ps_map m = { .mm = g->mm, .vaddr = vaddr + i * PAGE,
						    .pfn = g->wr ? pfn_alloc(g->pa, n) : 0, .npages = n,
						    .mapcount = 1, .refcount = 1,
						    .pte = pte_of(true, false, a, dirty, true),
						    .pflags = pfl, .shift = 12 };
				g->st.private_pfns += n;
				put_map(g, &m);
			}
		} else {
			struct ps_map m = { .mm = g->mm, .vaddr = vaddr, .pfn = g->wr ? pfn_alloc(g->pa, len) : 0,
					    .npages = len, .mapcount = 1,
					    .refcount = 1 + !!(pfl & PS_PF(PS_PF_SWAPCACHE)),
					    .pte = pte_of(v->perm[1] == 'w', false, a, dirty, true),
					    .pflags = pfl, .shift = 12 };
			g->st.private_pfns += len;
			put_map(g, &m);
		}
		pos += len;
		touched -= len;
	}
}

/* THP-backed anonymous region: 2 MiB PMD leaves (one run of 512 pages each). */
static void emit_thp(struct gen *g, uint32_t pidx, uint32_t vidx, const struct ps_vma *v,
		     const struct vdesc *d)
{
	struct rng r = rng_at(5, pidx, vidx);
	uint64_t first = ((v->start + (2u << 20) - 1) & ~(uint64_t)((2u << 20) - 1));
	uint64_t slots = (v->end - first) / (2u << 20);
	uint64_t want = d->touched / 512;
	for (uint64_t s = 0; s < slots && want; s++) {
		if (rbelow(&r, slots - s) >= want)
			continue;
		want--;
		struct ps_map m = { .mm = g->mm, .vaddr = first + s * (2u << 20),
				    .pfn = g->wr ? pfn_alloc_thp(g->pa) : 0, .npages = 512,
				    .mapcount = 1, .refcount = 512,
				    .pte = pte_of(true, false, true, true, true),
				    .pflags = anon_pflags(&r) | PS_PF(PS_PF_THP) | PS_PF(PS_PF_COMPOUND_HEAD),
				    .shift = 21 };
		g->st.private_pfns += 512;
		put_map(g, &m);
	}
}

static uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

static void emit_process(struct gen *g, uint32_t pidx)
{
	struct world *w = g->w;
	struct process *pr = &w->procs[pidx];
	const struct program *pg = &w->progs[pr->prog];
	struct rng r = rng_at(6, pidx, 0);
	g->mm = pidx + 1;
	g->nvmas = 0;

	/* Main executable: text, rodata, data, bss; then the heap. */
	const struct object *exe = &w->objs[pr->uses[0].obj];
	uint64_t va = 0x550000000000 + (pr->aslr % 0x0fffffff) * PAGE;
	add_vma(g, va, exe->text_pages, "r-xp", 0, exe->path, exe->inode,
		(struct vdesc){ .ct = CT_SHARED_TEXT, .obj = pr->uses[0].obj, .rank = pr->uses[0].rank });
	va += exe->text_pages * (uint64_t)PAGE;
	if (exe->ro_pages) {
		add_vma(g, va, exe->ro_pages, "r--p", exe->text_pages, exe->path, exe->inode,
			(struct vdesc){ .ct = CT_SHARED_RO, .obj = pr->uses[0].obj, .rank = pr->uses[0].rank });
		va += exe->ro_pages * (uint64_t)PAGE;
	}
	add_vma(g, va, exe->data_pages, "rw-p", exe->text_pages + exe->ro_pages, exe->path, exe->inode,
		(struct vdesc){ .ct = CT_PRIVATE, .touched = exe->data_pages, .cow = true });
	va += exe->data_pages * (uint64_t)PAGE;
	add_vma(g, va, exe->bss_pages + 8, "rw-p", 0, NULL, 0,
		(struct vdesc){ .ct = CT_PRIVATE, .touched = exe->bss_pages });
	va += (exe->bss_pages + 8) * (uint64_t)PAGE;

	/* Private budget: heap, anonymous regions, JIT reservation. */
	uint64_t b = pr->budget;
	uint64_t jit = pg->jit ? b / 4 : 0, heap = (b - jit) / 2, anon = b - jit - heap;
	uint64_t start_brk = va + (rbelow(&r, 8192) + 1) * PAGE;
	uint64_t heap_virt = heap + heap / 4 + 33;
	add_vma(g, start_brk, heap_virt, "rw-p", 0, "[heap]", 0,
		(struct vdesc){ .ct = CT_PRIVATE, .touched = heap, .swap_ok = true });
	uint64_t brk = start_brk + heap_virt * PAGE;

	/* The mmap area, ascending: anonymous regions, the JIT reservation, libraries, shm. */
	va = 0x7f0000000000 + (pr->aslr >> 32) % 0x4000000 * PAGE;
	uint32_t nanon = (uint32_t)rrange(&r, 3, 10);
	for (uint32_t i = 0; i < nanon; i++) {
		uint64_t t = anon / nanon + (i == 0 ? anon % nanon : 0);
		bool thp = t >= 2048 && rbelow(&r, 4) == 0;
		uint64_t virt = thp ? round_up(t, 512) * 2 + 512 : t + t / 3 + rrange(&r, 1, 64);
		add_vma(g, va, virt, "rw-p", 0, NULL, 0,
			(struct vdesc){ .ct = thp ? CT_THP : CT_PRIVATE, .touched = t, .swap_ok = true });
		va += (virt + rrange(&r, 1, 16)) * PAGE;
	}
	if (pg->jit) {
		uint64_t virt = (UINT64_C(16) << 30 << rbelow(&r, 3)) / PAGE; /* 16, 32 or 64 GiB */
		add_vma(g, va, virt, "rw-p", 0, NULL, 0,
			(struct vdesc){ .ct = CT_SPARSE, .touched = jit });
		va += (virt + 16) * PAGE;
		/* the code cache: small, dense, executable */
		add_vma(g, va, 12288, "rwxp", 0, NULL, 0,
			(struct vdesc){ .ct = CT_PRIVATE, .touched = 64 + jit / 16 < 12288 ? 64 + jit / 16 : 12288 });
		va += (12288 + 16) * PAGE;
	}
	/* Thread stacks: a guard page and 8 MiB, a few pages touched at the top. */
	for (uint32_t t = 1; t < pr->nthreads; t++) {
		add_vma(g, va, 1, "---p", 0, NULL, 0, (struct vdesc){ .ct = CT_NONE });
		add_vma(g, va + PAGE, 2048, "rw-p", 0, NULL, 0,
			(struct vdesc){ .ct = CT_STACK, .touched = rrange(&r, 2, 24) });
		va += (2049 + 1) * PAGE;
	}
	for (size_t k = 1; k < pr->nuses; k++) {
		const struct use *u = &pr->uses[k];
		const struct object *o = &w->objs[u->obj];
		if (o->type == OBJ_VDSO)
			continue;
		if (o->type == OBJ_SHM) {
			add_vma(g, va, o->text_pages, "rw-s", 0, o->path, o->inode,
				(struct vdesc){ .ct = CT_SHARED_TEXT, .obj = u->obj, .rank = u->rank });
			va += (o->text_pages + 16) * (uint64_t)PAGE;
			continue;
		}
		add_vma(g, va, o->text_pages, "r-xp", 0, o->path, o->inode,
			(struct vdesc){ .ct = CT_SHARED_TEXT, .obj = u->obj, .rank = u->rank });
		va += o->text_pages * (uint64_t)PAGE;
		if (o->ro_pages) {
			add_vma(g, va, o->ro_pages, "r--p", o->text_pages, o->path, o->inode,
				(struct vdesc){ .ct = CT_SHARED_RO, .obj = u->obj, .rank = u->rank });
			va += o->ro_pages * (uint64_t)PAGE;
		}
		add_vma(g, va, o->data_pages, "rw-p", o->text_pages + o->ro_pages, o->path, o->inode,
			(struct vdesc){ .ct = CT_PRIVATE, .touched = o->data_pages, .cow = true });
		va += o->data_pages * (uint64_t)PAGE;
		if (o->bss_pages) {
			add_vma(g, va, o->bss_pages, "rw-p", 0, NULL, 0,
				(struct vdesc){ .ct = CT_PRIVATE, .touched = rbelow(&r, o->bss_pages + 1) });
			va += o->bss_pages * (uint64_t)PAGE;
		}
		va += rrange(&r, 1, 64) * PAGE;
	}
	/* The main stack and the vdso. */
	uint64_t stack_top = 0x7ffc00000000 + (pr->aslr >> 8) % 0x3f0000 * PAGE;
	uint64_t stack_pages = 33 + rbelow(&r, 200);
	add_vma(g, stack_top - stack_pages * PAGE, stack_pages, "rw-p", 0, "[stack]", 0,
		(struct vdesc){ .ct = CT_STACK, .touched = rrange(&r, 3, stack_pages - 1) });
	uint64_t vv = round_up(stack_top + rrange(&r, 16, 4096) * PAGE, PAGE);
	add_vma(g, vv, 4, "r--p", 0, "[vvar]", 0, (struct vdesc){ .ct = CT_NONE });
	add_vma(g, vv + 4 * PAGE, 2, "r-xp", 0, "[vdso]", 0,
		(struct vdesc){ .ct = CT_SHARED_TEXT, .obj = pr->uses[pr->nuses - 1].obj,
				.rank = pr->uses[pr->nuses - 1].rank });

	struct ps_mm mm = {
		.id = g->mm, .tgid = pr->pid, .comm = pg->name, .exe = exe->path,
		.kaddr = UINT64_C(0xffff888100000000) + pidx * UINT64_C(0x1000),
		.start_brk = start_brk, .brk = brk, .start_stack = stack_top - 3 * PAGE,
		.total_vm = 0, .map_count = g->nvmas,
	};
	for (size_t i = 0; i < g->nvmas; i++)
		mm.total_vm += (g->vmas[i].end - g->vmas[i].start) / PAGE;
	ps_classify_vmas(&mm, g->vmas, g->nvmas);
	g->st.vmas += g->nvmas;
	g->st.tasks += pr->nthreads;

	if (g->wr) {
		for (uint32_t t = 0; t < pr->nthreads; t++) {
			struct ps_task task = {
				.pid = t ? pr->pid + t : pr->pid, .tgid = pr->pid, .ppid = pidx ? 1 : 0,
				.mm = g->mm, .comm = pg->name, .state = t % 5 == 1 ? 'R' : 'S',
				.minflt = h3(7, pidx, t) % 100000, .majflt = h3(8, pidx, t) % 300,
				.utime = h3(9, pidx, t) % 100000000000ull,
				.stime = h3(10, pidx, t) % 10000000000ull,
				.start = 5000000000ull + h3(11, pidx, 0) % 1000000000000ull,
				.rss_file = PS_UNKNOWN, .rss_anon = PS_UNKNOWN,
				.rss_shmem = PS_UNKNOWN, .rss_swap = PS_UNKNOWN,
			};
			if (ps_write_task(g->wr, &task) < 0)
				die_writer(g);
		}
		if (ps_write_mm(g->wr, &mm) < 0)
			die_writer(g);
	}
	for (size_t i = 0; i < g->nvmas; i++) {
		const struct ps_vma *v = &g->vmas[i];
		const struct vdesc *d = &g->desc[i];
		if (g->wr && ps_write_vma(g->wr, v) < 0)
			die_writer(g);
		memset(&g->sum, 0, sizeof g->sum);
		g->sum.mm = g->mm, g->sum.start = v->start;
		switch (d->ct) {
		case CT_SHARED_TEXT:
		case CT_SHARED_RO: emit_shared(g, pidx, v, d); break;
		case CT_PRIVATE:
		case CT_SPARSE:
		case CT_STACK: emit_private(g, pidx, (uint32_t)i, v, d); break;
		case CT_THP: emit_thp(g, pidx, (uint32_t)i, v, d); break;
		case CT_NONE: break;
		}
		if (g->wr && ps_write_sum(g->wr, &g->sum) < 0)
			die_writer(g);
		g->st.sums++;
	}
}

/* ---- main ---------------------------------------------------------------------------------- */

static uint64_t g_range_lo, g_range_hi;

static uint64_t parse_count(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end == 'k' || *end == 'K')
		v *= 1e3, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1e6, end++;
	else if (*end == 'G' || *end == 'g')
		v *= 1e9, end++;
	if (errno || *end || v < 1) {
		fprintf(stderr, "gen_records: bad count '%s'\n", s);
		exit(2);
	}
	return (uint64_t)v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gen_records -o FILE [-p PROCS] [-r MAP_RECORDS] [-d DISTINCT_PFNS] [-s SEED] [-q]\n"
		   "  -p  processes (default 200)\n"
		   "  -r  mapping (m) records to aim for (default 20M; k/M/G suffixes)\n"
		   "  -d  distinct PFNs to aim for (default MAP_RECORDS/20)\n"
		   "  -s  seed (default 1)\n"
		   "Prints the actual counts; files with the same -p -d -s have the same distinct PFNs.\n");
}

int main(int argc, char **argv)
{
	struct world w = { .nprocs = 200, .records_target = 20000000 };
	const char *out = NULL;
	bool quiet = false;
	int c;
	while ((c = getopt(argc, argv, "o:p:r:d:s:qh")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'p': w.nprocs = (uint32_t)parse_count(optarg); break;
		case 'r': w.records_target = parse_count(optarg); break;
		case 'd': w.distinct_target = parse_count(optarg); break;
		case 's': g_seed = parse_count(optarg); break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!out || optind != argc || w.nprocs < 2 || w.nprocs > 1000000) {
		usage(stderr);
		return 2;
	}
	if (!w.distinct_target)
		w.distinct_target = w.records_target / 20 ? w.records_target / 20 : 1;

	struct pfnalloc pa;
	pfn_init(&pa, w.distinct_target);
	build_population(&w);
	build_chunks(&w, &pa);

	/* Private budget: half the distinct PFNs, minus the fixed private pages (COW data, bss,
	 * stacks), spread over the processes by weight. Depends on -d, -p and -s only. */
	struct gen g = { .w = &w, .pa = &pa };
	for (uint32_t p = 0; p < w.nprocs; p++)
		emit_process(&g, p);
	uint64_t fixed = g.st.private_pfns;
	uint64_t priv_target = w.distinct_target - w.distinct_target / 2;
	uint64_t budget = priv_target > fixed ? priv_target - fixed : 0;
	double wsum = 0;
	for (uint32_t p = 0; p < w.nprocs; p++)
		wsum += w.procs[p].weight;
	for (uint32_t p = 0; p < w.nprocs; p++)
		w.procs[p].budget = (uint64_t)(w.procs[p].weight / wsum * (double)budget);

	/* Count the private records, then find the sharing that gives the record target. */
	memset(&g.st, 0, sizeof g.st);
	set_alpha(&w, 0);
	for (uint32_t p = 0; p < w.nprocs; p++)
		emit_process(&g, p);
	uint64_t private_records = g.st.m_records - g.st.shared_maps;
	uint64_t want = w.records_target > private_records ? w.records_target - private_records : 0;
	uint64_t lo_n = shared_records(&w, 0), hi_n = shared_records(&w, 1e9);
	g_range_lo = private_records + lo_n, g_range_hi = private_records + hi_n;
	if (want < lo_n || want > hi_n)
		fprintf(stderr, "gen_records: warning: %llu mapping records not reachable with these "
				"processes and distinct PFNs (range %llu..%llu); using the nearest\n",
			(unsigned long long)w.records_target, (unsigned long long)(private_records + lo_n),
			(unsigned long long)(private_records + hi_n));
	double lo = 0, hi = 1;
	while (shared_records(&w, hi) < want && hi < 1e9)
		hi *= 2;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;
		if (shared_records(&w, mid) < want)
			lo = mid;
		else
			hi = mid;
	}
	set_alpha(&w, hi);

	/* Write. */
	char *err = NULL;
	g.wr = ps_writer_open(out, &err);
	if (!g.wr) {
		fprintf(stderr, "gen_records: %s\n", err);
		return 2;
	}
	memset(&g.st, 0, sizeof g.st);
	char dump[64];
	snprintf(dump, sizeof dump, "bench-gen:p%u-r%llu-d%llu-s%llu", w.nprocs,
		 (unsigned long long)w.records_target, (unsigned long long)w.distinct_target,
		 (unsigned long long)g_seed);
	struct ps_header h = {
		.source = "test", .arch = "x86_64", .endian = "little", .page_size = PAGE,
		.release = "6.1.0-27-amd64", .dump = dump, .dump_id = dump,
		.time = "2026-11-21T07:00:00Z", .excluded = "none", .tool = "pagesleuth-bench-gen",
		.pids = "all",
	};
	if (ps_write_header(g.wr, &h) < 0 ||
	    ps_write_snapshot(g.wr, &(struct ps_snapshot){ .seq = 0, .time = h.time,
							   .uptime_ns = 86400000000000ull }) < 0)
		die_writer(&g);
	for (uint32_t p = 0; p < w.nprocs; p++)
		emit_process(&g, p);
	if (ps_write_end(g.wr, true) < 0)
		die_writer(&g);
	if (ps_writer_close(g.wr, false, &err) < 0) {
		fprintf(stderr, "gen_records: %s\n", err);
		return 2;
	}
	uint64_t shared_pfns = 0;
	for (size_t o = 0; o < w.nobjs; o++)
		for (size_t k = 0; k < w.objs[o].nchunks; k++)
			shared_pfns += w.objs[o].chunks[k].len;
	struct stat sb;
	if (stat(out, &sb) < 0) {
		perror(out);
		return 2;
	}
	if (!quiet)
		printf("file=%s procs=%u tasks=%llu vmas=%llu m_records=%llu m_pages=%llu "
		       "w_records=%llu distinct_pfns=%llu shared_pfns=%llu private_pfns=%llu "
		       "pages_per_record=%.2f maps_per_pfn=%.2f bytes=%lld reachable_m_records=%llu..%llu\n",
		       out, w.nprocs, (unsigned long long)g.st.tasks, (unsigned long long)g.st.vmas,
		       (unsigned long long)g.st.m_records, (unsigned long long)g.st.m_pages,
		       (unsigned long long)g.st.w_records,
		       (unsigned long long)(shared_pfns + g.st.private_pfns),
		       (unsigned long long)shared_pfns, (unsigned long long)g.st.private_pfns,
		       (double)g.st.m_pages / (double)g.st.m_records,
		       (double)g.st.m_pages / (double)(shared_pfns + g.st.private_pfns),
		       (long long)sb.st_size, (unsigned long long)g_range_lo,
		       (unsigned long long)g_range_hi);
	return 0;
}
