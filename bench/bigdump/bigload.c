/* bigload ROLE ARGS... -- one process of the big benchmark dump's guest workload.
 *
 * Roles (sizes in MiB unless said otherwise):
 *   heap MIB              an anonymous heap, every page written
 *   sparse RES_GIB MIB    a runtime-style reservation: RES_GIB GiB PROT_NONE (Go/JVM arena),
 *                         plus RES_GIB GiB MAP_NORESERVE read-write; MIB MiB touched in all,
 *                         in 64 KiB runs spread over both, committed with mprotect first
 *   fork MIB NCHILD       a parent with a written heap that forks NCHILD children; child i
 *                         writes every 4th page starting at page i (copy-on-write), the rest
 *                         stays shared with the parent
 *   file PATH MIB         maps PATH shared (reads every page) and privately (writes every
 *                         8th page: anonymous COW pages inside a file mapping)
 *   mkfile PATH MIB       creates the file the "file" role maps (on tmpfs), then exits
 *   summary               sums /proc/PID/smaps_rollup over every bigload process and prints
 *                         one "BIGDUMP-SUMMARY ..." line (run by /init before the dump)
 * Every role links libbiglib.so and faults its data in. After setting up, a process
 * creates /tmp/ready/<pid> and sleeps in pause() so nothing changes before the dump.
 * Pages written get a short tag (pid, VA) so the kdump-zlib dump stays small.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

unsigned biglib_touch(void);

#define PAGE 4096UL
#define MIB (1UL << 20)
#define GIB (1UL << 30)

static const char *role = "?";

static void die(const char *what)
{
	fprintf(stderr, "bigload %s: %s: %s\n", role, what, strerror(errno));
	exit(1);
}

static void tag(char *p)
{
	snprintf(p, 64, "BIGLOAD pid=%d role=%s va=0x%lx", (int)getpid(), role,
		 (unsigned long)(uintptr_t)p);
}

static char *map_anon(size_t len, int prot, int extra)
{
	char *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void ready_and_wait(void)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/ready/%d", (int)getpid());
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die(path);
	close(fd);
	for (;;)
		pause();
}

static unsigned long arg_ul(int argc, char **argv, int i)
{
	if (i >= argc) {
		fprintf(stderr, "bigload %s: missing argument %d\n", role, i);
		exit(2);
	}
	return strtoul(argv[i], NULL, 0);
}

static void role_heap(size_t mib)
{
	char *p = map_anon(mib * MIB, PROT_READ | PROT_WRITE, 0);
	for (size_t off = 0; off < mib * MIB; off += PAGE)
		tag(p + off);
}

/* Touch `mib` MiB in 64 KiB runs spread evenly over [base, base+len). */
static void touch_spread(char *base, size_t len, size_t mib, int need_mprotect)
{
	size_t run = 64 * 1024, runs = mib * MIB / run;
	if (runs == 0)
		return;
	size_t stride = (len / runs) & ~(run - 1);
	for (size_t r = 0; r < runs; r++) {
		char *p = base + r * stride;
		if (need_mprotect && mprotect(p, run, PROT_READ | PROT_WRITE))
			die("mprotect");
		for (size_t off = 0; off < run; off += PAGE)
			tag(p + off);
	}
}

static void role_sparse(size_t res_gib, size_t mib)
{
	char *arena = map_anon(res_gib * GIB, PROT_NONE, MAP_NORESERVE);
	char *nores = map_anon(res_gib * GIB, PROT_READ | PROT_WRITE, MAP_NORESERVE);
	touch_spread(arena, res_gib * GIB, mib / 2, 1);
	touch_spread(nores, res_gib * GIB, mib - mib / 2, 0);
}

static void role_fork(size_t mib, unsigned nchild)
{
	char *p = map_anon(mib * MIB, PROT_READ | PROT_WRITE, 0);
	for (size_t off = 0; off < mib * MIB; off += PAGE)
		tag(p + off);
	for (unsigned i = 0; i < nchild; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			role = "fork-child";
			for (size_t off = (i % 4) * PAGE; off < mib * MIB; off += 4 * PAGE)
				tag(p + off);
			ready_and_wait();
		}
	}
}

static void role_file(const char *path, size_t mib)
{
	int fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	char *shared = mmap(NULL, mib * MIB, PROT_READ, MAP_SHARED, fd, 0);
	char *priv = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (shared == MAP_FAILED || priv == MAP_FAILED)
		die("mmap file");
	unsigned sum = 0;
	for (size_t off = 0; off < mib * MIB; off += PAGE)
		sum += ((volatile char *)shared)[off];
	for (size_t off = 0; off < mib * MIB; off += 8 * PAGE)
		tag(priv + off);
	for (size_t off = 4 * PAGE; off < mib * MIB; off += 8 * PAGE)
		sum += ((volatile char *)priv)[off];
	(void)sum;
}

static void role_mkfile(const char *path, size_t mib)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(mib * MIB)))
		die(path);
	char *p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	for (size_t off = 0; off < mib * MIB; off += PAGE)
		snprintf(p + off, 64, "BIGLOAD file=%s off=0x%lx", path, (unsigned long)off);
	munmap(p, mib * MIB);
	close(fd);
}

/* Value of "Key:   N kB" in a smaps_rollup/status text, or 0. */
static unsigned long field_kb(const char *text, const char *key)
{
	const char *s = strstr(text, key);
	return s ? strtoul(s + strlen(key), NULL, 10) : 0;
}

static int role_summary(void)
{
	DIR *d = opendir("/proc");
	if (!d)
		die("/proc");
	unsigned long procs = 0, rss = 0, pss = 0, anon = 0, vsz = 0, all_rss = 0, all_procs = 0;
	struct dirent *e;
	static char buf[1 << 16];
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) || atoi(e->d_name) == (int)getpid())
			continue;
		char path[300], comm[64] = "";
		snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof comm, f))
			comm[0] = 0;
		fclose(f);
		snprintf(path, sizeof path, "/proc/%s/smaps_rollup", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue; /* kernel thread: empty rollup */
		buf[n] = 0;
		unsigned long r = field_kb(buf, "\nRss:");
		all_rss += r;
		all_procs++;
		if (strncmp(comm, "bigload", 7))
			continue;
		procs++;
		rss += r;
		pss += field_kb(buf, "\nPss:");
		anon += field_kb(buf, "\nAnonymous:");
		snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			n = read(fd, buf, sizeof buf - 1);
			close(fd);
			if (n > 0) {
				buf[n] = 0;
				vsz += field_kb(buf, "\nVmSize:");
			}
		}
	}
	closedir(d);
	printf("BIGDUMP-SUMMARY bigload_procs=%lu rss_kb=%lu pss_kb=%lu anon_kb=%lu vmsize_kb=%lu "
	       "all_user_procs=%lu all_rss_kb=%lu\n",
	       procs, rss, pss, anon, vsz, all_procs, all_rss);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bigload heap|sparse|fork|file|mkfile|summary ARGS\n");
		return 2;
	}
	role = argv[1];
	if (!strcmp(role, "summary"))
		return role_summary();
	if (!strcmp(role, "mkfile")) {
		role_mkfile(argc > 2 ? argv[2] : "", arg_ul(argc, argv, 3));
		return 0;
	}
	biglib_touch();
	if (!strcmp(role, "heap"))
		role_heap(arg_ul(argc, argv, 2));
	else if (!strcmp(role, "sparse"))
		role_sparse(arg_ul(argc, argv, 2), arg_ul(argc, argv, 3));
	else if (!strcmp(role, "fork"))
		role_fork(arg_ul(argc, argv, 2), (unsigned)arg_ul(argc, argv, 3));
	else if (!strcmp(role, "file"))
		role_file(argc > 2 ? argv[2] : "", arg_ul(argc, argv, 3));
	else {
		fprintf(stderr, "bigload: unknown role %s\n", role);
		return 2;
	}
	ready_and_wait();
}
