/* livehdr.c - the header record and clocks shared by the live sources. See livehdr.h. */
#include "livehdr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void live_iso_time(char out[32])
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

uint64_t live_boottime_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
		return PS_UNKNOWN;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t live_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void live_read_first_line(const char *path, char *out, size_t len)
{
	out[0] = '\0';
	FILE *fp = fopen(path, "re");
	if (!fp)
		return;
	if (fgets(out, (int)len, fp))
		out[strcspn(out, "\n")] = '\0';
	fclose(fp);
}

static bool host_big_endian(void)
{
	const uint16_t probe = 1;
	return *(const uint8_t *)&probe == 0;
}

int live_write_header(struct ps_writer *w, uint32_t page_size, const char *pids, bool pfn_visible,
		      const char *tags, char time_out[32])
{
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	char host[256] = "", dump[300], boot_id[64];
	gethostname(host, sizeof host - 1);
	snprintf(dump, sizeof dump, "live:%s", host);
	live_read_first_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof boot_id);
	live_iso_time(time_out);
	struct ps_header h = {
		.source = "live",
		.arch = u.machine,
		.big_endian = host_big_endian(),
		.page_size = page_size,
		.release = u.release,
		.dump = dump,
		.dump_id = boot_id,
		.time = time_out,
		.excluded = pfn_visible ? "none" : "pfn-hidden",
		.tool = "pagesleuth-0.1",
		.pids = pids,
		.tags = tags,
	};
	return ps_write_header(w, &h);
}

bool live_parse_seconds(const char *text, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (!*text || *end || errno || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}
