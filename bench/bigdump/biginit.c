/* biginit -- /init of the 32-bit PowerPC benchmark guest, which has no Debian busybox-static
 * (powerpc is not a bookworm release architecture). Does exactly what init.sh does on the
 * other guests: mounts, starts the bigload workload with the counts of /etc/bigdump.conf,
 * waits until every process is set up, prints the guest's totals (bigload summary, uname,
 * meminfo) and PSLEUTH-READY, then waits for the host to stop and dump the VM.
 * Static: the guest has only the dynamic loader and libc bigload needs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static char *const child_env[] = {"PATH=/bin", "LD_LIBRARY_PATH=/lib", NULL};

static pid_t spawn(char *const argv[])
{
	pid_t p = fork();
	if (p == 0) {
		execve(argv[0], argv, child_env);
		_exit(127);
	}
	return p;
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

/* KEY=N from /etc/bigdump.conf (the host writes one per line), or -1. */
static long conf(const char *key)
{
	FILE *f = fopen("/etc/bigdump.conf", "r");
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, key, n) && line[n] == '=')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	if (v < 0)
		printf("BIGDUMP-WARN conf %s missing\n", key);
	return v;
}

static int count_ready(void)
{
	DIR *d = opendir("/tmp/ready");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void run_wait(char *const argv[], const char *what)
{
	int st;
	pid_t p = spawn(argv);
	if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		printf("BIGDUMP-WARN %s\n", what);
}

int main(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sys", "/sys", "sysfs", 0, NULL);
	mount("dev", "/dev", "devtmpfs", 0, NULL);
	mkdir("/tmp", 0755);
	mount("tmp", "/tmp", "tmpfs", 0, "size=90%");
	struct termios t;
	if (tcgetattr(0, &t) == 0) { /* no CRLF, no echo: the host reads lines */
		t.c_oflag &= ~(tcflag_t)ONLCR;
		t.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(0, TCSANOW, &t);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	klogctl(8, NULL, 1); /* console loglevel 1, like dmesg -n 1 */
	put("/sys/kernel/mm/transparent_hugepage/enabled", "never");
	mkdir("/tmp/ready", 0755);
	if (chdir("/tmp"))
		printf("BIGDUMP-WARN chdir /tmp\n");

	long heap = conf("HEAP_PROCS"), sparse = conf("SPARSE_PROCS"), sgib = conf("SPARSE_GIB"),
	     smib = conf("SPARSE_MIB"), forks = conf("FORK_PARENTS"), fmib = conf("FORK_MIB"),
	     kids = conf("FORK_CHILDREN"), files = conf("FILE_PROCS"), filemib = conf("FILE_MIB");
	char a1[32], a2[32];
	snprintf(a1, sizeof a1, "%ld", filemib);
	char *mk[] = {"/bin/bigload", "mkfile", "/tmp/shared.dat", a1, NULL};
	run_wait(mk, "mkfile");
	long want = 0;
	for (long i = 0; i < heap; i++, want++) {
		snprintf(a1, sizeof a1, "%ld", 8 + (i % 5) * 4); /* 8..24 MiB, mean 16 */
		char *argv[] = {"/bin/bigload", "heap", a1, NULL};
		spawn(argv);
	}
	for (long i = 0; i < sparse; i++, want++) {
		snprintf(a1, sizeof a1, "%ld", sgib);
		snprintf(a2, sizeof a2, "%ld", smib);
		char *argv[] = {"/bin/bigload", "sparse", a1, a2, NULL};
		spawn(argv);
	}
	for (long i = 0; i < forks; i++, want += 1 + kids) {
		snprintf(a1, sizeof a1, "%ld", fmib);
		snprintf(a2, sizeof a2, "%ld", kids);
		char *argv[] = {"/bin/bigload", "fork", a1, a2, NULL};
		spawn(argv);
	}
	for (long i = 0; i < files; i++, want++) {
		snprintf(a1, sizeof a1, "%ld", filemib);
		char *argv[] = {"/bin/bigload", "file", "/tmp/shared.dat", a1, NULL};
		spawn(argv);
	}
	printf("BIGDUMP-STARTED want=%ld\n", want);
	for (int i = 0; count_ready() < want; i++) {
		if (i > 3000) {
			printf("BIGDUMP-WARN workload-timeout\n");
			break;
		}
		usleep(200000);
	}
	sync();
	sleep(1);
	char *sum[] = {"/bin/bigload", "summary", NULL};
	fflush(stdout);
	run_wait(sum, "summary");
	struct utsname u;
	if (uname(&u) == 0)
		printf("BIGDUMP-UNAME-RELEASE %s\nBIGDUMP-UNAME-VERSION %s\n", u.release, u.version);
	FILE *mi = fopen("/proc/meminfo", "r");
	char line[256];
	static const char *keys[] = {"MemTotal:", "MemFree:", "AnonPages:", "Shmem:",
				     "PageTables:", "Mapped:", "HighTotal:", "LowTotal:"};
	while (mi && fgets(line, sizeof line, mi))
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
			if (!strncmp(line, keys[k], strlen(keys[k]))) {
				char *v = line + strlen(keys[k]);
				v += strspn(v, " ");
				printf("BIGDUMP-MEMINFO %s %s", keys[k], v);
			}
	if (mi)
		fclose(mi);
	printf("PSLEUTH-READY\n");
	fflush(stdout);
	for (;;) /* the host stops the VM and dumps it; the children are never reaped */
		pause();
}
