/* out.c - the tool's record file: created as PATH.tmp.PID and renamed to PATH at the end, so
 * an interrupted run never leaves a file that looks complete (and a traced child never
 * shares its parent's temporary file); key=value records with strings percent-encoded
 * exactly as docs/record-format.md says. A PATH that exists and is not a regular file (a
 * device such as /dev/null, a FIFO) is written in place, never replaced: renaming over it
 * would turn the device into a file for every other program (the analyzer's atomic writer
 * follows the same rule, lib/atomic_file.c).
 *
 * Its own buffered writer, not Valgrind's VgFile: VG_(fprintf) to a VgFile drops the result
 * of its write()s, so a full disk or an I/O error would leave a truncated file that gets
 * renamed as if complete. Here every write() is checked (and the file fsync()ed before the
 * rename, for errors the kernel reports only then): after the first error nothing more is
 * written, and ps_out_close() removes PATH.tmp and says why. Numbers are formatted by hand
 * (one record per sample: printf's machinery cost more than the sample itself). */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "ps_tool.h"

/* Not in the tool API, but in the libcoregrind the tool links statically (its declaration in
 * the core's pub_core_syscall.h): fsync has no VG_ wrapper. */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
			      RegWord a5, RegWord a6, RegWord a7, RegWord a8);
/* ppc64: the 7th argument says which instruction makes the call, sc (SC_FLAG, 1) or scv
 * (2); the core's own VG_(do_syscallN) pass SC_FLAG, anything else is an assertion failure
 * in VG_(mk_SysRes_ppc64_linux) (coregrind/pub_core_syscall.h, 3.19). */
#if defined(VGP_ppc64le_linux) || defined(VGP_ppc64be_linux)
#define PS_SYSCALL_A7 1
#else
#define PS_SYSCALL_A7 0
#endif

const HChar *ps_out_path;
static HChar *tmp_path;   /* NULL: writing ps_out_path itself (not a regular file) */
static Int out_fd = -1;   /* -1: not open, or closed */
static Int write_error;   /* errno of the first failed write, 0 = none */
static HChar buf[1 << 16];
static SizeT used;

Bool ps_out_open(const HChar *path)
{
	struct vg_stat st;
	ps_out_path = path;
	if (!sr_isError(VG_(stat)(path, &st)) && !VKI_S_ISREG(st.mode)) {
		SysRes sr = VG_(open)(path, VKI_O_WRONLY, 0);
		if (sr_isError(sr))
			return False;
		out_fd = (Int)sr_Res(sr);
		tmp_path = NULL;
		return True;
	}
	SizeT n = VG_(strlen)(path) + 32;
	tmp_path = VG_(malloc)("ps.out.tmp", n);
	VG_(snprintf)(tmp_path, n, "%s.tmp.%d", path, VG_(getpid)());
	SysRes sr = VG_(open)(tmp_path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
			      VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
	if (sr_isError(sr))
		return False;
	out_fd = (Int)sr_Res(sr);
	return True;
}

const HChar *ps_out_temp_path(void)
{
	return tmp_path ? tmp_path : ps_out_path;
}

Bool ps_out_is_open(void)
{
	return out_fd >= 0;
}

static void flush(void)
{
	SizeT off = 0;
	while (off < used && !write_error) {
		Int chunk = used - off > (1u << 30) ? 1 << 30 : (Int)(used - off);
		Int n = VG_(write)(out_fd, buf + off, chunk);
		if (n < 0)
			write_error = -n;
		else if (n == 0)
			write_error = VKI_ENOSPC; /* no progress: treat as full */
		else
			off += (SizeT)n;
	}
	used = 0;
}

static void put(const HChar *s, SizeT n)
{
	if (out_fd < 0 || write_error)
		return;
	while (n) {
		if (used == sizeof buf)
			flush();
		if (write_error)
			return;
		SizeT k = sizeof buf - used < n ? sizeof buf - used : n;
		VG_(memcpy)(buf + used, s, k);
		used += k;
		s += k;
		n -= k;
	}
}

static void puts_(const HChar *s)
{
	put(s, VG_(strlen)(s));
}

static void put_u(ULong v)
{
	HChar d[24];
	Int i = sizeof d;
	do {
		d[--i] = (HChar)('0' + v % 10);
		v /= 10;
	} while (v);
	put(d + i, sizeof d - i);
}

static void put_x(ULong v)
{
	static const HChar hex[] = "0123456789abcdef";
	HChar d[20];
	Int i = sizeof d;
	do {
		d[--i] = hex[v & 15];
		v >>= 4;
	} while (v);
	put(d + i, sizeof d - i);
}

void ps_out_abandon(void)
{
	used = 0; /* the parent's unwritten records: the parent writes them */
	if (out_fd >= 0)
		VG_(close)(out_fd);
	out_fd = -1;
}

/* A short description of a write error, for the one-line message. */
static const HChar *error_text(Int e)
{
	switch (e) {
	case VKI_ENOSPC: return "no space left on device";
	case VKI_EIO: return "input/output error";
	case 122: return "disk quota exceeded"; /* EDQUOT, not in Valgrind's vki-linux.h */
	case VKI_EFBIG: return "file too large";
	case VKI_EROFS: return "read-only file system";
	case VKI_EBADF: return "bad file descriptor";
	case VKI_EPIPE: return "broken pipe";
	default: return "write error";
	}
}

Bool ps_out_close(void)
{
	if (out_fd < 0)
		return False;
	flush();
	if (!write_error) {
		SysRes sr = VG_(do_syscall)(__NR_fsync, (RegWord)out_fd, 0, 0, 0, 0, 0, PS_SYSCALL_A7, 0);
		/* EINVAL/EROFS: a file that cannot be synced (a pipe, a device) is not an error */
		if (sr_isError(sr) && sr_Err(sr) != VKI_EINVAL && sr_Err(sr) != VKI_EROFS)
			write_error = (Int)sr_Err(sr);
	}
	VG_(close)(out_fd);
	out_fd = -1;
	if (write_error) {
		if (tmp_path)
			VG_(unlink)(tmp_path); /* never leave a truncated file behind */
		VG_(umsg)("pagesleuth: cannot write the record file %s: %s (errno %d); no record file written\n",
			  ps_out_temp_path(), error_text(write_error), write_error);
		return False;
	}
	if (!tmp_path)
		return True; /* a device or FIFO: written in place */
	if (VG_(rename)(tmp_path, ps_out_path) != 0) {
		VG_(unlink)(tmp_path);
		VG_(umsg)("pagesleuth: cannot rename %s into %s; no record file written\n", tmp_path,
			  ps_out_path);
		return False;
	}
	return True;
}

/* Percent-encode s into buf (>= 3*strlen+1 bytes would always do; truncated otherwise). */
static void encode(const HChar *s, HChar *out, SizeT len)
{
	static const HChar hex[] = "0123456789ABCDEF";
	SizeT o = 0;
	if (!s || !*s) {
		VG_(strcpy)(out, "-");
		return;
	}
	if (s[0] == '-' && s[1] == 0) {
		VG_(strcpy)(out, "%2D");
		return;
	}
	for (; *s && o + 4 < len; s++) {
		UChar c = (UChar)*s;
		if (c == '%' || c == ' ' || c == '=' || c < 0x21 || c > 0x7e) {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (HChar)c;
		}
	}
	out[o] = 0;
}

static void key(const HChar *k)
{
	put(" ", 1);
	puts_(k);
	put("=", 1);
}

void ps_rec_begin(const HChar *tag)
{
	puts_(tag);
}

void ps_rec_u(const HChar *k, ULong value)
{
	key(k);
	put_u(value);
}

void ps_rec_x(const HChar *k, ULong value)
{
	key(k);
	put_x(value);
}

void ps_rec_s(const HChar *k, const HChar *value)
{
	HChar enc[3 * 1024 + 8];
	encode(value, enc, sizeof enc);
	key(k);
	puts_(enc);
}

void ps_rec_raw(const HChar *k, const HChar *value)
{
	key(k);
	puts_(value && *value ? value : "-");
}

void ps_rec_frac(const HChar *k, ULong num, ULong den)
{
	key(k);
	if (den == 0) {
		put("-", 1);
		return;
	}
	/* rounded to 3 decimals with integers: the tool has no floating-point printf; split so
	 * num * 1000 cannot overflow on a long run (num: pages summed over all samples) */
	ULong milli = num / den * 1000 + ((num % den) * 1000 + den / 2) / den;
	HChar frac[4] = { (HChar)('0' + milli / 100 % 10), (HChar)('0' + milli / 10 % 10),
			  (HChar)('0' + milli % 10), 0 };
	put_u(milli / 1000);
	put(".", 1);
	put(frac, 3);
}

void ps_rec_end(void)
{
	put("\n", 1);
}

/* ISO 8601 UTC from seconds since the epoch (days to civil date, proleptic Gregorian). */
static void iso_time(ULong secs, HChar *out, SizeT len)
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
	VG_(snprintf)(out, len, "%04lld-%02lld-%02lldT%02llu:%02llu:%02lluZ", y, m, d,
		      rem / 3600, rem / 60 % 60, rem % 60);
}

/* The target's architecture and byte order, as record headers name them (set by
 * mk/valgrind.mk for ARCH=...; a build without them is the amd64 one). */
#ifndef PS_VG_ARCH
#define PS_VG_ARCH "x86_64"
#endif
#ifndef PS_VG_ENDIAN
#define PS_VG_ENDIAN "little"
#endif

void ps_out_header(const HChar *source, UInt page_size, const HChar *progname, Int pid,
		   ULong every, ULong tau, const HChar *cmdline, ULong now_secs)
{
	HChar when[40];
	iso_time(now_secs, when, sizeof when);
	puts_("pagesleuth-records 1.0\n");
	ps_rec_begin("header");
	ps_rec_s("source", source);
	ps_rec_raw("arch", PS_VG_ARCH);
	ps_rec_raw("endian", PS_VG_ENDIAN);
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
