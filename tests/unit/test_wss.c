/* test_wss.c - the wss methods on fake files: a fake /proc/PID (maps, pagemap, smaps_rollup,
 * clear_refs) and a fake page_idle bitmap (a regular file: where the kernel ORs written bits in,
 * a file takes the written words, so the test starts from zeros and checks which bits were
 * written). The idle method cannot run on the development machines (no
 * CONFIG_IDLE_PAGE_TRACKING), so this is where its batching, word arithmetic, sorting and
 * errors are checked; tests/cases/live_wss.sh measures the referenced method for real.
 */
#include "check.h"
#include "wss.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096u
#define PID 4242u
#define PRESENT (UINT64_C(1) << 63)
#define SWAPPED (UINT64_C(1) << 62)

static char root[128], proc_dir[192], pid_dir[256], bitmap_path[256];
static struct wss_paths paths;

static void write_file(const char *name, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", pid_dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		perror(path);
		exit(2);
	}
	close(fd);
}

/* pagemap entries at virtual page numbers (a sparse file, as big as the highest one). */
static void write_pagemap(const uint64_t *vpn, const uint64_t *entry, size_t n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/pagemap", pid_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	for (size_t i = 0; i < n; i++)
		if (pwrite(fd, &entry[i], 8, (off_t)(vpn[i] * 8)) != 8)
			exit(2);
	close(fd);
}

static void set_pagemap_size(uint64_t pages)
{
	char path[512];
	snprintf(path, sizeof path, "%s/pagemap", pid_dir);
	if (truncate(path, (off_t)(pages * 8)) != 0)
		exit(2);
}

static void reset_bitmap(uint64_t words)
{
	int fd = open(bitmap_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(words * 8)) != 0)
		exit(2);
	close(fd);
}

static uint64_t bitmap_word(uint64_t index)
{
	int fd = open(bitmap_path, O_RDONLY);
	uint64_t w = 0;
	if (pread(fd, &w, 8, (off_t)(index * 8)) != 8)
		w = UINT64_MAX;
	close(fd);
	return w;
}

static void put_bitmap_word(uint64_t index, uint64_t w)
{
	int fd = open(bitmap_path, O_RDWR);
	if (pwrite(fd, &w, 8, (off_t)(index * 8)) != 8)
		exit(2);
	close(fd);
}

/* Two VMAs: 0x10000-0x18000 (pages 0x10-0x17) and 0x40000-0x42000 (pages 0x40-0x41), and
 * [vsyscall], which has no pagemap entries and must be skipped. */
static void fake_process(void)
{
	const char *maps = "00010000-00018000 rw-p 00000000 00:00 0 \n"
			   "00040000-00042000 r--s 00000000 00:05 77                         /dev/shm/x\n"
			   "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";
	write_file("maps", maps, strlen(maps));
	/* Frames: 5, 70 (mapped twice), 200, 129; page 0x12 not present, 0x13 swapped. */
	const uint64_t vpn[] = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x40, 0x41 };
	const uint64_t e[] = { PRESENT | 200, PRESENT | 70, 0, SWAPPED | (5 << 5) | 1, PRESENT | 5, 0,
			       PRESENT | 70, PRESENT | 129 };
	write_pagemap(vpn, e, 8);
	set_pagemap_size(0x42);
	const char *rollup = "00010000-ffffffffff601000 ---p 00000000 00:00 0 [rollup]\n"
			     "Rss:                  20 kB\nPss:                  18 kB\nPss_Anon: 12 kB\n"
			     "Referenced:            8 kB\nAnonymous:            12 kB\n";
	write_file("smaps_rollup", rollup, strlen(rollup));
	write_file("clear_refs", "", 0);
}

static void test_usage_parse(void)
{
	struct wss_usage u;
	CHECK(wss_parse_usage("Rss: 4 kB\nPss: 2 kB\nReferenced: 4 kB\n", &u) == 0, "rollup parses");
	CHECK_U64(u.rss, 4096);
	CHECK_U64(u.pss, 2048);
	CHECK_U64(u.referenced, 4096);
	/* smaps (before 4.14): per-VMA lines are summed; Pss_Anon etc. are not Pss. */
	const char *smaps = "1000-2000 r-xp 0 00:00 0 /bin/x\nRss: 4 kB\nPss: 4 kB\nPss_Dirty: 4 kB\n"
			    "Referenced: 4 kB\n3000-5000 rw-p 0 00:00 0\nRss: 8 kB\nPss: 6 kB\nReferenced: 0 kB\n";
	CHECK(wss_parse_usage(smaps, &u) == 0, "smaps parses");
	CHECK_U64(u.rss, 12288);
	CHECK_U64(u.pss, 10240);
	CHECK_U64(u.referenced, 4096);
	CHECK(wss_parse_usage("", &u) == -1, "no Rss: no address space");
}

static void test_referenced_files(void)
{
	fake_process();
	char err[512];
	struct proc_buf buf = { 0 };
	struct wss_usage u;
	CHECK(wss_read_usage(&paths, PID, &buf, &u, err, sizeof err) == 0, "usage read: %s", err);
	CHECK_U64(u.rss, 20 * 1024);
	CHECK_U64(u.pss, 18 * 1024);
	CHECK_U64(u.referenced, 8 * 1024);
	CHECK(wss_clear_refs(&paths, PID, err, sizeof err) == 0, "clear_refs: %s", err);
	char path[512], got[8] = "";
	snprintf(path, sizeof path, "%s/clear_refs", pid_dir);
	FILE *fp = fopen(path, "r");
	CHECK(fp && fgets(got, sizeof got, fp), "clear_refs readable");
	if (fp)
		fclose(fp);
	CHECK_STR(got, "1");
	/* A gone process: no file, one message naming it. */
	CHECK(wss_read_usage(&paths, PID + 1, &buf, &u, err, sizeof err) == ENOENT, "gone: ENOENT");
	CHECK_CONTAINS(err, "/4243/smaps_rollup: No such file or directory");
	CHECK(wss_clear_refs(&paths, PID + 1, err, sizeof err) == ENOENT, "clear_refs of a gone pid");
	CHECK_CONTAINS(err, "/4243/clear_refs");
	/* Unreadable (a directory where the file should be). */
	char dir[512];
	snprintf(dir, sizeof dir, "%s/smaps_rollup", pid_dir);
	unlink(dir);
	mkdir(dir, 0755);
	CHECK(wss_read_usage(&paths, PID, &buf, &u, err, sizeof err) == EISDIR, "unreadable rollup");
	CHECK_CONTAINS(err, "smaps_rollup: Is a directory");
	rmdir(dir);
	proc_buf_free(&buf);
}

/* Pinned: the files come from the directory opened at the start, not from whatever holds the
 * process's path now (a newer process given the same PID), and once it is gone they fail. */
static void test_pinned(void)
{
	fake_process();
	char err[512], old_dir[300];
	struct proc_buf buf = { 0 };
	struct wss_usage u;
	struct wss_paths pinned = paths;
	pinned.pid_dir = open(pid_dir, O_RDONLY | O_DIRECTORY);
	pinned.pinned = pinned.pid_dir >= 0;
	CHECK(pinned.pinned, "open %s", pid_dir);
	snprintf(old_dir, sizeof old_dir, "%s.old", pid_dir);
	CHECK(rename(pid_dir, old_dir) == 0, "rename");
	mkdir(pid_dir, 0755);
	const char *newcomer = "Rss: 400 kB\nPss: 400 kB\nReferenced: 400 kB\n";
	write_file("smaps_rollup", newcomer, strlen(newcomer));
	CHECK(wss_read_usage(&pinned, PID, &buf, &u, err, sizeof err) == 0, "pinned read: %s", err);
	CHECK_U64(u.rss, 20 * 1024); /* the first process's, not the newcomer's 400 kB */
	CHECK(wss_read_usage(&paths, PID, &buf, &u, err, sizeof err) == 0, "path read: %s", err);
	CHECK_U64(u.rss, 400 * 1024);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", old_dir);
	CHECK(system(cmd) == 0, "remove %s", old_dir);
	CHECK(wss_read_usage(&pinned, PID, &buf, &u, err, sizeof err) == ENOENT, "pinned, gone");
	CHECK_CONTAINS(err, "/4242/smaps_rollup: No such file or directory");
	CHECK(wss_clear_refs(&pinned, PID, err, sizeof err) == ENOENT, "clear_refs, pinned, gone");
	close(pinned.pid_dir);
	proc_buf_free(&buf);
}

static void test_idle(void)
{
	fake_process();
	reset_bitmap(8);
	char err[512] = "";
	struct wss_idle w;
	CHECK(wss_idle_open(&w, &paths, PID, PAGE, err, sizeof err) == 0, "open: %s", err);
	CHECK_U64(w.zero_pfn, UINT64_MAX); /* no fake self/pagemap */
	CHECK(wss_idle_collect(&w, err, sizeof err) == 0, "collect: %s", err);
	CHECK_U64(w.mapped, 5);
	CHECK_U64(w.npfns, 4);
	CHECK_U64(w.pfns[0], 5);
	CHECK_U64(w.pfns[1], 70);
	CHECK_U64(w.pfns[2], 129);
	CHECK_U64(w.pfns[3], 200);
	CHECK(wss_idle_mark(&w, err, sizeof err) == 0, "mark: %s", err);
	/* Exactly the frames' bits, in words pfn/64, nothing else. */
	CHECK_U64(bitmap_word(0), UINT64_C(1) << 5);
	CHECK_U64(bitmap_word(1), UINT64_C(1) << 6);
	CHECK_U64(bitmap_word(2), UINT64_C(1) << 1);
	CHECK_U64(bitmap_word(3), UINT64_C(1) << 8);
	for (unsigned i = 4; i < 8; i++)
		CHECK_U64(bitmap_word(i), 0);
	/* Nothing touched: everything still idle. */
	uint64_t active = 99;
	CHECK(wss_idle_collect(&w, err, sizeof err) == 0, "collect: %s", err);
	CHECK(wss_idle_count(&w, &active, err, sizeof err) == 0, "count: %s", err);
	CHECK_U64(active, 0);
	/* The kernel clears the bit of an accessed frame: 70 (mapped twice, counted once) and 200. */
	put_bitmap_word(1, 0);
	put_bitmap_word(3, 0);
	CHECK(wss_idle_count(&w, &active, err, sizeof err) == 0, "count: %s", err);
	CHECK_U64(active, 2);
	/* A frame mapped after the mark was never marked: not idle, part of the working set. */
	const uint64_t vpn[] = { 0x16 }, e[] = { PRESENT | 300 };
	write_pagemap(vpn, e, 1);
	fake_process(); /* rewrites the pagemap, so put 0x16 back */
	{
		char path[512];
		snprintf(path, sizeof path, "%s/pagemap", pid_dir);
		int fd = open(path, O_RDWR);
		CHECK(pwrite(fd, &e[0], 8, 0x16 * 8) == 8, "pagemap write");
		close(fd);
	}
	CHECK(wss_idle_collect(&w, err, sizeof err) == 0, "collect: %s", err);
	CHECK_U64(w.npfns, 5);
	CHECK(wss_idle_count(&w, &active, err, sizeof err) == 0, "count: %s", err);
	CHECK_U64(active, 3); /* 70, 200 accessed; 300 new (its word reads 0) */
	/* The bitmap ends before a frame the process maps: a message, not a silent count. */
	reset_bitmap(2);
	CHECK(wss_idle_count(&w, &active, err, sizeof err) == ERANGE, "short bitmap");
	CHECK_CONTAINS(err, "ends before frame 80");
	wss_idle_close(&w);

	/* The process exited: pagemap shorter than its maps say. */
	fake_process();
	set_pagemap_size(0x41);
	reset_bitmap(8);
	CHECK(wss_idle_open(&w, &paths, PID, PAGE, err, sizeof err) == 0, "open: %s", err);
	CHECK(wss_idle_collect(&w, err, sizeof err) == ESRCH, "exited: ESRCH");
	CHECK_CONTAINS(err, "the process exited");
	/* Not root: present entries without PFNs. */
	fake_process();
	const uint64_t hidden_vpn[] = { 0x14 }, hidden[] = { PRESENT };
	{
		char path[512];
		snprintf(path, sizeof path, "%s/pagemap", pid_dir);
		int fd = open(path, O_RDWR);
		CHECK(pwrite(fd, &hidden[0], 8, (off_t)(hidden_vpn[0] * 8)) == 8, "pagemap write");
		close(fd);
	}
	CHECK(wss_idle_collect(&w, err, sizeof err) == EPERM, "hidden PFNs: EPERM");
	CHECK_CONTAINS(err, "frame numbers are hidden");
	wss_idle_close(&w);
	/* No maps: a gone process. */
	CHECK(wss_idle_open(&w, &paths, PID + 1, PAGE, err, sizeof err) == 0, "open");
	CHECK(wss_idle_collect(&w, err, sizeof err) == ESRCH, "no maps: ESRCH");
	CHECK_CONTAINS(err, "/4243/maps: No such file or directory");
	wss_idle_close(&w);

	/* No bitmap at all (kernel without idle page tracking). */
	struct wss_paths missing = { .proc = paths.proc, .idle_bitmap = "/nonexistent/page_idle/bitmap" };
	CHECK(wss_idle_open(&w, &missing, PID, PAGE, err, sizeof err) == ENOENT, "no bitmap");
	CHECK_CONTAINS(err, "CONFIG_IDLE_PAGE_TRACKING");
	wss_idle_close(&w);
}

/* Many frames in random order, with duplicates and a frame above 2^32 (64-bit offsets): each
 * batch boundary and gap rule still sets exactly the frames' bits, and the count sees every
 * cleared one. */
static void test_idle_many(void)
{
	enum { N = 20000 };
	static uint64_t vpn[N], e[N];
	uint64_t max_pfn = 0;
	srand(7);
	for (unsigned i = 0; i < N; i++) {
		uint64_t pfn = 1 + (uint64_t)rand() % (1u << 22);
		if (i % 997 == 0)
			pfn = e[i / 2] & ((UINT64_C(1) << 55) - 1); /* a duplicate */
		if (i == N - 1)
			pfn = (UINT64_C(1) << 32) + 77;
		if (!pfn)
			pfn = 1;
		vpn[i] = 0x100 + i, e[i] = PRESENT | pfn;
		if (pfn > max_pfn)
			max_pfn = pfn;
	}
	char maps[128];
	snprintf(maps, sizeof maps, "00100000-%08x rw-p 00000000 00:00 0 \n", 0x100000 + N * PAGE);
	write_file("maps", maps, strlen(maps));
	write_pagemap(vpn, e, N);
	reset_bitmap(max_pfn / 64 + 1);
	char err[512] = "";
	struct wss_idle w;
	CHECK(wss_idle_open(&w, &paths, PID, PAGE, err, sizeof err) == 0, "open: %s", err);
	CHECK(wss_idle_collect(&w, err, sizeof err) == 0, "collect: %s", err);
	CHECK_U64(w.mapped, N);
	bool sorted = true;
	for (size_t i = 1; i < w.npfns; i++)
		sorted &= w.pfns[i - 1] < w.pfns[i];
	CHECK(sorted, "frames sorted and distinct");
	CHECK(wss_idle_mark(&w, err, sizeof err) == 0, "mark: %s", err);
	/* Every frame's bit is set; clear every third frame's bit (accessed). */
	int fd = open(bitmap_path, O_RDWR);
	unsigned wrong = 0;
	uint64_t expect_active = 0;
	for (size_t i = 0; i < w.npfns; i++) {
		uint64_t pfn = w.pfns[i], word;
		if (pread(fd, &word, 8, (off_t)(pfn / 64 * 8)) != 8 || !(word >> (pfn % 64) & 1))
			wrong++;
		if (i % 3 == 0) {
			word &= ~(UINT64_C(1) << (pfn % 64));
			if (pwrite(fd, &word, 8, (off_t)(pfn / 64 * 8)) != 8)
				wrong++;
			expect_active++;
		}
	}
	/* And no bit besides them: the set bits number exactly the distinct frames. */
	uint64_t bits = 0, low_words = ((UINT64_C(1) << 22) + 63) / 64 + 1;
	uint64_t *low = calloc(low_words, 8), high = 0;
	if (!low || pread(fd, low, low_words * 8, 0) != (ssize_t)(low_words * 8) ||
	    pread(fd, &high, 8, (off_t)(max_pfn / 64 * 8)) != 8)
		wrong++;
	for (uint64_t i = 0; low && i < low_words; i++)
		bits += (uint64_t)__builtin_popcountll(low[i]);
	bits += (uint64_t)__builtin_popcountll(high);
	free(low);
	close(fd);
	CHECK(wrong == 0, "%u frames without their bit", wrong);
	CHECK_U64(bits, w.npfns - expect_active);
	uint64_t active = 0;
	CHECK(wss_idle_count(&w, &active, err, sizeof err) == 0, "count: %s", err);
	CHECK_U64(active, expect_active);
	wss_idle_close(&w);
}

static void test_sort(void)
{
	uint64_t v[] = { 5, UINT64_C(1) << 40, 3, 65536, 65535, 3, 0, (UINT64_C(1) << 40) + 1 }, tmp[8];
	wss_sort_u64(v, tmp, 8);
	const uint64_t want[] = { 0, 3, 3, 5, 65535, 65536, UINT64_C(1) << 40, (UINT64_C(1) << 40) + 1 };
	for (int i = 0; i < 8; i++)
		CHECK_U64(v[i], want[i]);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/test_wss.XXXXXX");
	if (!mkdtemp(root))
		return 2;
	snprintf(proc_dir, sizeof proc_dir, "%s/proc", root);
	snprintf(pid_dir, sizeof pid_dir, "%s/%u", proc_dir, PID);
	snprintf(bitmap_path, sizeof bitmap_path, "%s/bitmap", root);
	mkdir(proc_dir, 0755);
	mkdir(pid_dir, 0755);
	paths = (struct wss_paths){ .proc = proc_dir, .idle_bitmap = bitmap_path };

	test_usage_parse();
	test_referenced_files();
	test_pinned();
	test_idle();
	test_idle_many();
	test_sort();

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	return check_summary("test_wss");
}
