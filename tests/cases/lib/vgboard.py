#!/usr/bin/env python3
"""vgboard.py - run the pagesleuth Valgrind tool on a board: a Debian kernel of the target
architecture booted under QEMU TCG (as the kernel-dump fixtures boot it, tests/fixtures),
with an initramfs of busybox-static, the cross toolchain's glibc, the tool's directory
(`make valgrind-tool ARCH=...`) and cross-compiled test programs (tests/cases/valgrind_boards.sh).

  vgboard.py ARCH VGLIB PROGDIR JOBS OUTDIR [TIMEOUT]

ARCH: arm64 | armhf | ppc64el | powerpc (32-bit: the fixtures' self-built e500 kernel, /init
from vgboard_init.c: Debian has no powerpc kernel or busybox-static). VGLIB: build/valgrind-lib-ARCH (copied to /vg, its launcher
bin/valgrind to /vg/bin). PROGDIR: the programs (copied to /t). JOBS: a file of lines
`NAME COMMAND...` run in order in the guest by busybox sh, with VALGRIND_LIB=/vg and PATH
holding /vg/bin; each job's stdout, stderr and /tmp/NAME.rec (when it wrote one) come back
base64 encoded on the console, between marker lines, into OUTDIR/NAME.{out,err,rec}, its exit
status into OUTDIR/NAME.rc. The console is kept in OUTDIR/console.log.

Kernel and busybox-static come from Debian's archive through the fixtures' fetch-deb.sh
(apt-get download + dpkg -x into ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/fixtures,
cached; never installed). Exit 0 when the guest ran every job (whatever their status),
2 with a message when something needed is missing (the caller skips), 1 otherwise."""
import base64
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FETCH = os.path.join(ROOT, "tests", "fixtures", "scripts", "fetch-deb.sh")
APT = os.path.join(ROOT, "tests", "fixtures", "scripts", "apt-foreign.sh")
PINS = os.path.join(ROOT, "tests", "fixtures", "config", "pins")

# As tests/fixtures/scripts/gen.py boots each architecture (no disk, no modules here).
ARCHES = {
    "arm64": dict(
        kpkg="linux-image-6.1.0-56-arm64-unsigned", kver="6.1.192-2", pin="arm64",
        kfile="boot/vmlinuz-*", triplet="aarch64-linux-gnu",
        interp="/lib/ld-linux-aarch64.so.1",
        qemu=["qemu-system-aarch64", "-M", "virt,gic-version=3", "-accel", "tcg",
              "-cpu", "cortex-a57"], console="ttyAMA0", ram=512),
    "armhf": dict(
        kpkg="linux-image-6.1.0-50-armmp", kver="6.1.176-1", pin="armhf",
        kfile="boot/vmlinuz-*", triplet="arm-linux-gnueabihf",
        interp="/lib/ld-linux-armhf.so.3",
        qemu=["qemu-system-arm", "-M", "virt", "-accel", "tcg", "-cpu", "cortex-a15"],
        console="ttyAMA0", ram=512),
    "ppc64el": dict(
        kpkg="linux-image-6.1.0-50-powerpc64le", kver="6.1.176-1", pin="ppc64le",
        kfile="boot/vmlinux-*", triplet="powerpc64le-linux-gnu",
        interp="/lib64/ld64.so.2",
        qemu=["qemu-system-ppc64", "-M", "pseries,cap-cfpc=broken,cap-sbbc=broken,"
              "cap-ibs=broken,cap-ccf-assist=off,cap-large-decr=off", "-accel", "tcg",
              "-cpu", "power9"], console="hvc0", ram=1024),
    # 32-bit PowerPC: Debian has no kernel or busybox-static for it; the fixtures' self-built
    # e500 kernel (tests/fixtures/scripts/build-ppc32.sh e500-64pte, cached) and /init in C
    # (vgboard_init.c). e500v2 has no classic FPU: the kernel emulates it
    # (MATH_EMULATION_FULL), as Debian's powerpc glibc needs.
    "powerpc": dict(
        kbuilt="ppc32/build-e500-64pte/vmlinux", triplet="powerpc-linux-gnu",
        interp="/lib/ld.so.1",
        qemu=["qemu-system-ppc", "-M", "ppce500", "-accel", "tcg", "-cpu", "e500v2"],
        console="ttyS0", ram=256),
}
BUSYBOX = "1:1.35.0-4+deb12u1+b1"


class Missing(Exception):
    pass


def fetch(debarch, pkg, ver):
    """fetch-deb.sh, retried: a transient download failure is not the test's."""
    err = ""
    for attempt in range(3):
        r = subprocess.run([FETCH, debarch, pkg, ver], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split()[-1]
        err = (r.stderr.strip().splitlines() or ["?"])[-1]
        if attempt == 0:
            subprocess.run([APT, debarch, "update"], capture_output=True)
        time.sleep(3 * (attempt + 1))
    raise Missing(f"cannot fetch {pkg}={ver} ({debarch}): {err}")


def pinned(c):
    """The fixtures' pinned kernel (config/pins), else the default above."""
    try:
        for line in open(PINS):
            f = line.split()
            if len(f) == 4 and f[0] == c["pin"] and f[1] == "kernel":
                return f[2], f[3]
    except OSError:
        pass
    return c["kpkg"], c["kver"]


# The fixtures' newc writer (tests/fixtures/scripts/gen.py), imported as bench/bigdump/gen.py
# does; no __pycache__ there: the fixtures' input hash covers that directory.
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "scripts"))
sys.dont_write_bytecode = True
from gen import Cpio  # noqa: E402


INIT = r"""#!/bin/sh
export PATH=/vg/bin:/bin VALGRIND_LIB=/vg
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
echo "@@vgboard up $(uname -r) $(uname -m)"
while read -r name cmd; do
	[ -n "$name" ] || continue
	t0=$(cat /proc/uptime)
	sh -c "$cmd" >/tmp/$name.out 2>/tmp/$name.err
	rc=$?
	echo "@@rc $name $rc ${t0%% *} $(cut -d' ' -f1 /proc/uptime)"
	for k in out err rec; do
		[ -f /tmp/$name.$k ] || continue
		echo "@@file $name.$k"
		base64 /tmp/$name.$k
		echo "@@end"
	done
done </t/jobs
echo "@@vgboard done"
sync
poweroff -f
"""


def main():
    arch, vglib, progdir, jobs, outdir = sys.argv[1:6]
    timeout = int(sys.argv[6]) if len(sys.argv) > 6 else 240
    c = ARCHES[arch]
    os.makedirs(outdir, exist_ok=True)
    qemu = c["qemu"][0]
    if not any(os.access(os.path.join(d, qemu), os.X_OK) for d in os.environ["PATH"].split(":")):
        raise Missing(f"no {qemu} (apt-get install {'qemu-system-arm' if 'arm' in qemu or 'aarch64' in qemu else 'qemu-system-ppc'})")
    if not any(os.access(os.path.join(d, c["triplet"] + "-gcc"), os.X_OK) for d in os.environ["PATH"].split(":")):
        raise Missing(f"no {c['triplet']}-gcc (apt-get install gcc-{c['triplet']})")
    libdir = f"/usr/{c['triplet']}/lib"
    if not os.path.exists(libdir + "/libc.so.6"):
        raise Missing(f"no {libdir}/libc.so.6 (apt-get install libc6-dev-{arch}-cross)")
    cp = Cpio()
    if "kbuilt" in c:
        cache = os.environ.get("PAGESLEUTH_CACHE", "/var/cache/pagesleuth")
        kernel = os.path.join(cache, "fixtures", c["kbuilt"])
        if not os.path.exists(kernel):
            raise Missing(f"no {kernel} (the fixtures' kernel: tests/fixtures/scripts/build-ppc32.sh "
                          "e500-64pte, ~8 min)")
        init = os.path.join(outdir, "init")
        r = subprocess.run([c["triplet"] + "-gcc", "-static", "-O2", "-o", init,
                            os.path.join(HERE, "vgboard_init.c")], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("vgboard_init.c: " + r.stderr[:300])
        cp.host("/init", init, 0o755)
    else:
        kpkg, kver = pinned(c)
        kroot = fetch(arch, kpkg, kver)
        kernel = sorted(glob.glob(os.path.join(kroot, c["kfile"])))[0]
        bb = os.path.join(fetch(arch, "busybox-static", BUSYBOX), "bin", "busybox")
        cp.host("/bin/busybox", bb, 0o755)
        for a in ["sh", "mount", "cat", "cut", "echo", "base64", "poweroff", "sync", "uname", "ls",
                  "sleep", "true", "env"]:
            cp.link("/bin/" + a, "busybox")
        cp.file("/init", INIT.encode(), 0o755)
    cp.chardev("/dev/console", 5, 1)
    cp.chardev("/dev/null", 1, 3)
    for d in ["/proc", "/sys", "/tmp", "/etc"]:
        cp.dir(d)
    # glibc of the cross toolchain (Debian's libc6-*-cross: the same 2.36 as libc6:ARCH)
    cp.host(c["interp"], os.path.realpath(os.path.join(libdir, os.path.basename(c["interp"]))), 0o755)
    for so in ["libc.so.6", "libm.so.6"]:
        cp.host("/lib/" + so, os.path.realpath(os.path.join(libdir, so)), 0o755)
    for f in sorted(os.listdir(vglib)):
        p = os.path.join(vglib, f)
        if os.path.isfile(p):
            cp.host("/vg/" + f, os.path.realpath(p))
    cp.host("/vg/bin/valgrind", os.path.join(vglib, "bin", "valgrind"), 0o755)
    for f in sorted(os.listdir(progdir)):
        p = os.path.join(progdir, f)
        if os.path.isfile(p):
            cp.host("/t/" + f, p)
    cp.file("/t/jobs", open(jobs, "rb").read())
    initrd = os.path.join(outdir, "initrd.cpio")
    with open(initrd, "wb") as f:
        f.write(cp.bytes())

    argv = c["qemu"] + ["-m", str(c["ram"]), "-smp", "1", "-display", "none", "-nodefaults",
                        "-no-reboot", "-serial", "stdio", "-kernel", kernel, "-initrd", initrd,
                        "-append", f"console={c['console']} rdinit=/init quiet loglevel=3"]
    if c["console"] == "hvc0":
        argv = [a for a in argv if a not in ("-serial", "stdio")] + [
            "-chardev", "stdio,id=s0,signal=off", "-device", "spapr-vty,chardev=s0"]
    with open(os.path.join(outdir, "qemu.cmd"), "w") as f:
        f.write(" ".join(argv) + "\n")
    t0 = time.time()
    log = os.path.join(outdir, "console.log")
    with open(log, "wb") as lf:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT)
        # A machine without a power-off device (ppce500) halts and QEMU stays: the guest's
        # last line ends it.
        done_at = None
        while p.poll() is None:
            time.sleep(0.5)
            if done_at is None:
                with open(log, "rb") as f:
                    f.seek(max(0, os.path.getsize(log) - 4096))
                    if b"@@vgboard done" in f.read():
                        done_at = time.time()
            if (done_at and time.time() > done_at + 3) or time.time() > t0 + timeout:
                p.kill()
                p.wait()
                if not done_at:
                    print(f"vgboard: the {arch} guest did not finish in {timeout} s (see {log})")
                    return 1
    lines = open(log, "rb").read().decode(errors="replace").replace("\r", "").split("\n")
    cur, buf, done, up = None, [], False, None
    for line in lines:
        if "@@vgboard up" in line:   # may follow an unterminated early-console line
            up = line[line.index("@@vgboard up"):]
        elif line.startswith("@@rc "):
            _, name, rc, a, b = line.split()
            open(os.path.join(outdir, name + ".rc"), "w").write(rc + "\n")
            open(os.path.join(outdir, name + ".secs"), "w").write("%.1f\n" % (float(b) - float(a)))
        elif line.startswith("@@file "):
            cur, buf = line.split()[1], []
        elif line == "@@end" and cur:
            open(os.path.join(outdir, cur), "wb").write(base64.b64decode("".join(buf)))
            cur = None
        elif cur:
            buf.append(line.strip())
        elif line.startswith("@@vgboard done"):
            done = True
    print(f"vgboard: {arch}: {up[len('@@vgboard up '):] if up else 'no boot'}, "
          f"guest ran {time.time() - t0:.0f} s")
    if not done:
        print(f"vgboard: the {arch} guest did not finish its jobs (see {log})")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Missing as e:
        print(f"vgboard: {e}")
        sys.exit(2)
