/* out.c - the tool's record file: created as PATH.tmp and renamed to PATH at the end, so an
 * interrupted run never leaves a file that looks complete; key=value records with strings
 * percent-encoded exactly as docs/record-format.md says. */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "ps_tool.h"

VgFile *ps_out;
const HChar *ps_out_path;
static HChar *tmp_path;

Bool ps_out_open(const HChar *path)
{
	SizeT n = VG_(strlen)(path) + 5;
	tmp_path = VG_(malloc)("ps.out.tmp", n);
	VG_(snprintf)(tmp_path, n, "%s.tmp", path);
	ps_out = VG_(fopen)(tmp_path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
			    VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
	if (!ps_out)
		return False;
	ps_out_path = path;
	return True;
}

Bool ps_out_close(void)
{
	if (!ps_out)
		return False;
	VG_(fclose)(ps_out);
	ps_out = NULL;
	return VG_(rename)(tmp_path, ps_out_path) == 0;
}

/* Percent-encode s into buf (>= 3*strlen+1 bytes would always do; truncated otherwise). */
static void encode(const HChar *s, HChar *buf, SizeT len)
{
	static const HChar hex[] = "0123456789ABCDEF";
	SizeT o = 0;
	if (!s || !*s) {
		VG_(strcpy)(buf, "-");
		return;
	}
	if (s[0] == '-' && s[1] == 0) {
		VG_(strcpy)(buf, "%2D");
		return;
	}
	for (; *s && o + 4 < len; s++) {
		UChar c = (UChar)*s;
		if (c == '%' || c == ' ' || c == '=' || c < 0x21 || c > 0x7e) {
			buf[o++] = '%';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		} else {
			buf[o++] = (HChar)c;
		}
	}
	buf[o] = 0;
}

void ps_rec_begin(const HChar *tag)
{
	VG_(fprintf)(ps_out, "%s", tag);
}

void ps_rec_u(const HChar *key, ULong value)
{
	VG_(fprintf)(ps_out, " %s=%llu", key, value);
}

void ps_rec_x(const HChar *key, ULong value)
{
	VG_(fprintf)(ps_out, " %s=%llx", key, value);
}

void ps_rec_s(const HChar *key, const HChar *value)
{
	HChar buf[3 * 1024 + 8];
	encode(value, buf, sizeof buf);
	VG_(fprintf)(ps_out, " %s=%s", key, buf);
}

void ps_rec_raw(const HChar *key, const HChar *value)
{
	VG_(fprintf)(ps_out, " %s=%s", key, value && *value ? value : "-");
}

void ps_rec_frac(const HChar *key, ULong num, ULong den)
{
	if (den == 0) {
		VG_(fprintf)(ps_out, " %s=-", key);
		return;
	}
	/* rounded to 3 decimals with integers: the tool has no floating-point printf */
	ULong milli = (num * 1000 + den / 2) / den;
	VG_(fprintf)(ps_out, " %s=%llu.%03llu", key, milli / 1000, milli % 1000);
}

void ps_rec_end(void)
{
	VG_(fprintf)(ps_out, "\n");
}

/* ISO 8601 UTC from seconds since the epoch (days to civil date, proleptic Gregorian). */
static void iso_time(ULong secs, HChar *buf, SizeT len)
{
	Long days = (Long)(secs / 86400);
	ULong rem = secs % 86400;
	Long z = days + 719468;
	Long era = z / 146097;
	Long doe = z - era * 146097;
	Long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	Long y = yoe + era * 400;
	Long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	Long mp = (5 * doy + 2) / 153;
	Long d = doy - (153 * mp + 2) / 5 + 1;
	Long m = mp < 10 ? mp + 3 : mp - 9;
	if (m <= 2)
		y++;
	VG_(snprintf)(buf, len, "%04lld-%02lld-%02lldT%02llu:%02llu:%02lluZ", y, m, d,
		      rem / 3600, rem / 60 % 60, rem % 60);
}

void ps_out_header(const HChar *source, UInt page_size, const HChar *progname, Int pid,
		   ULong every, ULong tau, const HChar *cmdline, ULong now_secs)
{
	HChar when[40];
	iso_time(now_secs, when, sizeof when);
	VG_(fprintf)(ps_out, "pagesleuth-records 1.0\n");
	ps_rec_begin("header");
	ps_rec_s("source", source);
	ps_rec_raw("arch", "x86_64");
	ps_rec_raw("endian", "little");
	ps_rec_u("page_size", page_size);
	ps_rec_raw("release", "-");
	ps_rec_s("dump", progname);
	ps_rec_raw("time", when);
	ps_rec_raw("excluded", "none");
	ps_rec_raw("tool", "pagesleuth-0.1");
	ps_rec_u("pids", (ULong)pid);
	ps_rec_raw("time_unit", "instructions");
	ps_rec_u("ws_every", every);
	ps_rec_u("ws_tau", tau);
	ps_rec_s("cmd", cmdline);
	ps_rec_end();
}
