/* vgboard_init.c - /init of tests/cases/lib/vgboard.py's guests where Debian has no
 * busybox-static (32-bit PowerPC): what its busybox script does, in C, built static.
 * Mounts proc, sysfs, devtmpfs and a tmpfs on /tmp, runs each line `NAME ARG...` of /t/jobs
 * (arguments split at blanks; PATH=/vg/bin:/bin, VALGRIND_LIB=/vg) with stdout and stderr
 * in /tmp/NAME.out and .err, then prints "@@rc NAME STATUS T0 T1" and each of
 * /tmp/NAME.{out,err,rec} base64 encoded between "@@file NAME.KIND" and "@@end" on the
 * console; "@@vgboard done" at the end, and powers off. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static double uptime(void)
{
	double u = 0;
	FILE *f = fopen("/proc/uptime", "r");
	if (f) {
		if (fscanf(f, "%lf", &u) != 1)
			u = 0;
		fclose(f);
	}
	return u;
}

static void b64file(const char *path)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	unsigned char in[57];
	size_t n;
	while ((n = fread(in, 1, sizeof in, f)) > 0) {
		char line[80];
		size_t o = 0;
		for (size_t i = 0; i < n; i += 3) {
			unsigned v = in[i] << 16 | (i + 1 < n ? in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
			line[o++] = tab[v >> 18 & 63];
			line[o++] = tab[v >> 12 & 63];
			line[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
			line[o++] = i + 2 < n ? tab[v & 63] : '=';
		}
		line[o] = 0;
		printf("%s\n", line);
	}
	fclose(f);
}

int main(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sys", "/sys", "sysfs", 0, NULL);
	mount("dev", "/dev", "devtmpfs", 0, NULL);
	mount("tmp", "/tmp", "tmpfs", 0, NULL);
	setenv("PATH", "/vg/bin:/bin", 1);
	setenv("VALGRIND_LIB", "/vg", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct utsname u;
	uname(&u);
	printf("@@vgboard up %s %s\n", u.release, u.machine);
	FILE *jobs = fopen("/t/jobs", "r");
	char line[4096];
	while (jobs && fgets(line, sizeof line, jobs)) {
		char *argv[128], *name = strtok(line, " \t\n");
		int argc = 0;
		if (!name)
			continue;
		while (argc < 127 && (argv[argc] = strtok(NULL, " \t\n")))
			argc++;
		argv[argc] = NULL;
		if (!argc)
			continue;
		char out[256], err[256];
		snprintf(out, sizeof out, "/tmp/%s.out", name);
		snprintf(err, sizeof err, "/tmp/%s.err", name);
		double t0 = uptime();
		int status = 127;
		pid_t pid = fork();
		if (pid == 0) {
			int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(fo, 1);
			dup2(fe, 2);
			execvp(argv[0], argv);
			perror(argv[0]);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		printf("@@rc %s %d %.2f %.2f\n", name, rc, t0, uptime());
		static const char *kinds[] = { "out", "err", "rec" };
		for (int k = 0; k < 3; k++) {
			char path[256];
			snprintf(path, sizeof path, "/tmp/%s.%s", name, kinds[k]);
			if (access(path, R_OK) != 0)
				continue;
			printf("@@file %s.%s\n", name, kinds[k]);
			b64file(path);
			printf("@@end\n");
		}
	}
	printf("@@vgboard done\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
