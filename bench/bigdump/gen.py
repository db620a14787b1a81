#!/usr/bin/env python3
"""Generate a big benchmark dump: bench/bigdump/gen.py [--force] [--arch ARCH] [--scale N]

An x86_64 guest (Debian's kernel of the x86_64 fixture, 2.5 GiB RAM, QEMU TCG) runs
118 bigload processes (bigload.c: anonymous heaps, runtime-style sparse reservations of
tens of GiB with a few MiB touched, fork trees sharing COW pages, a shared library, shared
and private file mappings), ~1.6 GiB resident. The host then makes the guest panic
(sysrq-c: a dump with a panic task, as crash wants), stops it and dumps it with QMP.

--arch makes the same workload on another fixture's kernel and machine, ELF only, into
bench/bigdump-ARCH/ (the guest is stopped and dumped without a panic: crash cannot read
these dumps here, and a pseries panic ends in firmware):
  arm64     virt, cortex-a57, 2.5 GiB (QEMU's arm64 kdump-zlib is unusable: 64K blocks,
            4K pages)
  ppc64le   pseries POWER9, radix MMU, 64K pages, 8 GiB and 256 heap processes (64K
            pages hold 16x fewer pages per byte; the same workload would give only ~50K)
  armhf     virt, cortex-a15, armmp (non-LPAE, VMSPLIT_3G, HIGHMEM), 3 GiB: the most a
            CPU without LPAE addresses on virt (RAM at 1 GiB..4 GiB); lowmem ~760 MiB,
            so most user pages and many page tables are HIGHMEM
  ppc32     ppce500, e500v2, the ppc32-e500-64pte fixture's self-built kernel (PHYS_64BIT,
            HIGHMEM, LOWMEM_SIZE 768 MiB), 3 GiB: lowmem ~735 MiB, highmem 2.25 GiB, like
            armhf. That kernel boots with 8 GiB too (7.25 GiB highmem; struct pages and page
            tables stay in lowmem), but the workload, and so the page count, is x86_64's: the
            same pages are what the per-page comparison wants. /init is biginit.c (Debian
            has no powerpc busybox-static)
  On the 32-bit guests the sparse reservations are 2 x 1 GiB (a 3 GiB user address
  space); the page counts then match the x86_64 dump's.
--scale N (x86_64): N times the processes of every kind in N times the RAM, into
bench/bigdump-xN/ (N = 4: ~13.6 GiB summed Rss, ~6.4 GiB of it physical, in a 10 GiB guest):
bench/extract.sh's scale table compares pages/s there with the 2.5 GiB dump's.
Extract them as tests/cases/extract_fixtures.sh extracts the fixtures: no VMCOREINFO note
(found in guest RAM), the fixture's BTF (and System.map for ppc64le); bench/extract.sh does.

Output in ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/bench/bigdump[-ARCH]/:
  qemu.elf       QEMU ELF dump (pagesleuth, crash 8.0.6; drgn 0.0.22 fails on QEMU's ELF)
  qemu.kdump     x86_64 only: QEMU kdump-zlib, reassembled from makedumpfile's flattened
                 format with makedumpfile -R, its header's empty utsname fields (sysname,
                 release, version) filled from the guest's uname so that libkdumpfile/drgn
                 accept it (pagesleuth, crash, drgn)
  summary.txt    the guest's own totals (smaps_rollup Rss/Pss/Anonymous over the bigload
                 processes, VmSize, meminfo) and the generation parameters
  console.log    the guest console
Idempotent: does nothing if the dumps and summary exist and the inputs (the workload
sources this guest runs, the arch's settings) did not change; --force regenerates. Uses the
fixture machinery read-only: tests/fixtures/scripts/gen.py (its Cpio/Vm helpers, imported,
never modified), fetch-deb.sh for the kernel and busybox-static packages, build-ppc32.sh
for the e500 kernel (cached by the fixtures).
"""
import hashlib, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))                 # bench/bigdump
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXSCRIPTS = os.path.join(ROOT, "tests", "fixtures", "scripts")
sys.path.insert(0, FIXSCRIPTS)
# No __pycache__ under tests/fixtures/: the fixtures' input hash covers that directory.
sys.dont_write_bytecode = True
import gen as fixgen  # noqa: E402  (Cpio, Vm, module_closure; main() is not run)

CACHE = os.environ.get("PAGESLEUTH_CACHE", "/var/cache/pagesleuth")
RAM_MIB = 2560
# Workload shape (see init.sh / bigload.c). Physical: heaps ~1 GiB, fork trees ~0.33 GiB,
# file ~0.14 GiB, sparse ~0.1 GiB; Rss summed over processes ~3.4 GiB.
CONF = dict(HEAP_PROCS=64, SPARSE_PROCS=12, SPARSE_GIB=32, SPARSE_MIB=8,
            FORK_PARENTS=8, FORK_MIB=24, FORK_CHILDREN=3, FILE_PROCS=10, FILE_MIB=64)
PPC64_QEMU = ["qemu-system-ppc64", "-M", "pseries,cap-cfpc=broken,cap-sbbc=broken,"
              "cap-ibs=broken,cap-ccf-assist=off,cap-large-decr=off", "-accel", "tcg",
              "-cpu", "power9"]
# The fixtures' kernels (tests/fixtures/data/<arch>/MANIFEST) and machines (as
# tests/fixtures/scripts/gen.py boots them). conf: changes to CONF; kernel: a boot/ glob of
# the package, or the ppc32 build's vmlinux; modules: loaded by init (fw_cfg for VMCOREINFO).
ARCHES = {
    "x86_64": dict(
        out="bigdump", debarch="amd64",
        kpkg="linux-image-6.1.0-56-cloud-amd64-unsigned", kver="6.1.192-2",
        qemu=["qemu-system-x86_64", "-M", "q35", "-accel", "tcg", "-cpu", "max,la57=off",
              "-device", "vmcoreinfo"],
        console="ttyS0", cc="gcc", libdir="/lib/x86_64-linux-gnu",
        interp="/lib64/ld-linux-x86-64.so.2", kdump=True),
    "arm64": dict(
        out="bigdump-arm64", debarch="arm64",
        kpkg="linux-image-6.1.0-56-arm64-unsigned", kver="6.1.192-2",
        qemu=["qemu-system-aarch64", "-M", "virt,gic-version=3", "-accel", "tcg",
              "-cpu", "cortex-a57", "-device", "vmcoreinfo"],
        console="ttyAMA0", cc="aarch64-linux-gnu-gcc", libdir="/usr/aarch64-linux-gnu/lib",
        interp="/lib/ld-linux-aarch64.so.1", kdump=False),
    "ppc64le": dict(
        out="bigdump-ppc64le", debarch="ppc64el",
        kpkg="linux-image-6.1.0-50-powerpc64le", kver="6.1.176-1", kernel="boot/vmlinux-*",
        qemu=PPC64_QEMU, console="hvc0", cc="powerpc64le-linux-gnu-gcc",
        libdir="/usr/powerpc64le-linux-gnu/lib", interp="/lib64/ld64.so.2", kdump=False,
        panic=False, modules=[], ram=8192, conf=dict(HEAP_PROCS=256)),
    "armhf": dict(
        out="bigdump-armhf", debarch="armhf",
        kpkg="linux-image-6.1.0-50-armmp", kver="6.1.176-1", kernel="boot/vmlinuz-*",
        qemu=["qemu-system-arm", "-M", "virt", "-accel", "tcg", "-cpu", "cortex-a15"],
        console="ttyAMA0", cc="arm-linux-gnueabihf-gcc", libdir="/usr/arm-linux-gnueabihf/lib",
        interp="/lib/ld-linux-armhf.so.3", kdump=False, panic=False, modules=[], ram=3072,
        conf=dict(SPARSE_GIB=1)),
    "ppc32": dict(
        out="bigdump-ppc32", debarch="powerpc", kbuild="e500-64pte",
        qemu=["qemu-system-ppc", "-M", "ppce500", "-accel", "tcg", "-cpu", "e500v2"],
        console="ttyS0", cc="powerpc-linux-gnu-gcc", libdir="/usr/powerpc-linux-gnu/lib",
        interp="/lib/ld.so.1", kdump=False, panic=False, modules=[], ram=3072,
        conf=dict(SPARSE_GIB=1)),
}
ARCH = "x86_64"
A = ARCHES[ARCH]
OUT = os.path.join(CACHE, "bench", A["out"])
SCALE = 1  # --scale N: N x the processes in N x the RAM


def log(*a):
    print("[bigdump %s]" % time.strftime("%H:%M:%S"), *a, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def ram_mib():
    return A.get("ram", RAM_MIB) * SCALE


def workload():
    w = dict(CONF, **A.get("conf", {}))
    for k in ("HEAP_PROCS", "SPARSE_PROCS", "FORK_PARENTS", "FILE_PROCS"):
        w[k] *= SCALE
    return w


def busybox_guest():
    return A["debarch"] != "powerpc"  # Debian has no powerpc busybox-static


def inputs_hash():
    """The sources that go into this guest and its settings (another arch's changes do not
    make this dump stale)."""
    h = hashlib.sha256()
    for f in ["bigload.c", "libbiglib.c", "init.sh" if busybox_guest() else "biginit.c"]:
        h.update(f.encode() + open(os.path.join(HERE, f), "rb").read())
    h.update(repr((ARCH, sorted(A.items()), ram_mib(), sorted(workload().items()))).encode())
    return h.hexdigest()[:16]


def need_host_tools():
    need = {"x86_64": [("makedumpfile", "makedumpfile"), ("qemu-system-x86", "qemu-system-x86_64")],
            "arm64": [("qemu-system-arm", "qemu-system-aarch64"),
                      ("gcc-aarch64-linux-gnu", "aarch64-linux-gnu-gcc")],
            "ppc64le": [("qemu-system-ppc", "qemu-system-ppc64"),
                        ("gcc-powerpc64le-linux-gnu", "powerpc64le-linux-gnu-gcc")],
            "armhf": [("qemu-system-arm", "qemu-system-arm"),
                      ("gcc-arm-linux-gnueabihf", "arm-linux-gnueabihf-gcc")],
            "ppc32": [("qemu-system-ppc", "qemu-system-ppc"),
                      ("gcc-powerpc-linux-gnu", "powerpc-linux-gnu-gcc")]}[ARCH]
    need.append(("kmod", "modinfo"))  # fixgen.module_closure: the guest's modules' depends
    missing = [p for p, exe in need if not shutil.which(exe)]
    if missing:
        log("installing", " ".join(missing))
        sudo = [] if os.getuid() == 0 else ["sudo"]
        if subprocess.run(sudo + ["apt-get", "install", "-y", "-q"] + missing).returncode:
            run(sudo + ["apt-get", "update", "-q"])
            run(sudo + ["apt-get", "install", "-y", "-q"] + missing)


def fetch(pkg, ver=None):
    o = subprocess.run([os.path.join(FIXSCRIPTS, "fetch-deb.sh"), A["debarch"], pkg] +
                       ([ver] if ver else []), check=True, stdout=subprocess.PIPE,
                       text=True).stdout
    return o.splitlines()[-1].split()[2]


def fill_kdump_uts(path, release, version):
    """QEMU's kdump header carries only utsname.machine; libkdumpfile (so drgn) rejects a
    utsname without sysname "Linux", release and version and then has no architecture
    ("kdump_get_string_attr(KDUMP_ATTR_ARCH_NAME): Key has no value"). Fill them in as
    makedumpfile would (disk_dump_header: 8-byte signature, int header_version, then
    struct new_utsname of six 65-byte strings)."""
    if not release or not version:
        sys.exit("bigdump: the guest did not report its uname")
    with open(path, "r+b") as f:
        hdr = f.read(0x151)
        if hdr[:8] != b"KDUMP   ":
            sys.exit("bigdump: %s: not a kdump file" % path)
        for i, val in ((0, "Linux"), (2, release), (3, version)):
            off = 12 + 65 * i
            if hdr[off] == 0:  # only what QEMU left empty
                f.seek(off)
                f.write(val.encode()[:64].ljust(65, b"\0"))


def main():
    global ARCH, A, OUT, SCALE
    args = sys.argv[1:]
    force = "--force" in args
    if "--scale" in args:
        i = args.index("--scale")
        if i + 1 >= len(args) or not args[i + 1].isdigit() or not 1 <= int(args[i + 1]) <= 8 \
                or "--arch" in args:
            sys.exit("usage: gen.py [--force] --scale N (1..8; x86_64 only)")
        SCALE = int(args[i + 1])
        OUT = os.path.join(CACHE, "bench", "%s-x%d" % (A["out"], SCALE))
    if "--arch" in args:
        i = args.index("--arch")
        if i + 1 >= len(args) or args[i + 1] not in ARCHES:
            sys.exit("usage: gen.py [--force] [--arch %s]" % "|".join(ARCHES))
        ARCH = args[i + 1]
        A = ARCHES[ARCH]
        OUT = os.path.join(CACHE, "bench", A["out"])
    os.makedirs(OUT, exist_ok=True)
    elf, kd, summ = (os.path.join(OUT, f) for f in ("qemu.elf", "qemu.kdump", "summary.txt"))
    hsh = inputs_hash()
    want = (elf, kd, summ) if A["kdump"] else (elf, summ)
    conf_vals = workload()
    if not force and all(os.path.exists(f) for f in want) and \
            ("inputs %s\n" % hsh) in open(summ).read():
        log("up to date:", OUT, "(--force regenerates)")
        return
    t0 = time.time()
    need_host_tools()
    subprocess.run([os.path.join(FIXSCRIPTS, "apt-foreign.sh"), A["debarch"], "update"],
                   check=True)
    if "kbuild" in A:  # the ppc32 fixture's self-built kernel (cached by the fixtures)
        run([os.path.join(FIXSCRIPTS, "build-ppc32.sh"), A["kbuild"]])
        kdir = os.path.join(CACHE, "fixtures", "ppc32", "build-" + A["kbuild"])
        kernel = os.path.join(kdir, "vmlinux")
        release = open(os.path.join(kdir, "include/config/kernel.release")).read().strip()
        moddir = None
        kdesc = "self-built %s (linux-source-6.1, tests/fixtures/scripts/build-ppc32.sh %s)" % (
            release, A["kbuild"])
    else:
        kroot = fetch(A["kpkg"], A["kver"])
        release = A["kpkg"].replace("linux-image-", "").replace("-unsigned", "")
        kernel = os.path.join(kroot, A.get("kernel", "boot/vmlinuz-*").replace("*", release))
        moddir = os.path.join(kroot, "lib", "modules", release)
        kdesc = "%s %s" % (A["kpkg"], A["kver"])
    bbroot = fetch("busybox-static") if busybox_guest() else None

    # Programs (the host's gcc for x86_64, the Debian cross compiler for arm64).
    bdir = os.path.join(OUT, "build")
    os.makedirs(bdir, exist_ok=True)
    cfl = ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror"]
    run([A["cc"]] + cfl + ["-fPIC", "-shared", "-Wl,-soname,libbiglib.so", "-o",
                         bdir + "/libbiglib.so", HERE + "/libbiglib.c"])
    run([A["cc"]] + cfl + ["-o", bdir + "/bigload", HERE + "/bigload.c", "-L" + bdir,
                         "-lbiglib"])

    cp = fixgen.Cpio()
    if busybox_guest():
        cp.host("/bin/busybox", os.path.join(bbroot, "bin", "busybox"), 0o755)
        for a in ["sh", "mount", "insmod", "stty", "dmesg", "ls", "grep", "wc", "sleep", "sync",
                  "cat", "echo", "poweroff", "mkdir", "tr", "sed", "uname"]:
            cp.link("/bin/" + a, "busybox")
        cp.host("/init", os.path.join(HERE, "init.sh"), 0o755)
    else:
        run([A["cc"]] + cfl + ["-static", "-o", bdir + "/biginit", HERE + "/biginit.c"])
        cp.host("/init", bdir + "/biginit", 0o755)
    cp.chardev("/dev/console", 5, 1)
    for d in ["/proc", "/sys", "/tmp", "/lib", "/etc", "/dev"]:
        cp.dir(d)
    cp.host("/bin/bigload", bdir + "/bigload", 0o755)
    cp.host("/lib/libbiglib.so", bdir + "/libbiglib.so", 0o755)
    cp.host(A["interp"], os.path.realpath(os.path.join(A["libdir"],
                                                       os.path.basename(A["interp"]))), 0o755)
    cp.host("/lib/libc.so.6", os.path.realpath(os.path.join(A["libdir"], "libc.so.6")), 0o755)
    mods = fixgen.module_closure(moddir, A.get("modules", ["qemu_fw_cfg"])) if moddir else []
    for m, p in mods:
        cp.host("/lib/modules/%s.ko" % m, p)
    conf = "".join("%s=%s\n" % kv for kv in conf_vals.items())
    conf += "MODULES='%s'\n" % " ".join(m for m, _ in mods)
    cp.file("/etc/bigdump.conf", conf.encode())
    initrd = os.path.join(bdir, "initrd.cpio")
    open(initrd, "wb").write(cp.bytes())

    argv = A["qemu"] + ["-m", str(ram_mib()), "-smp", "1", "-display", "none", "-nodefaults",
                   "-no-reboot", "-chardev", "stdio,id=s0,signal=off", "-serial", "chardev:s0",
                   "-kernel", kernel, "-initrd", initrd,
                   "-append", "console=%s rdinit=/init quiet loglevel=3" % A["console"]]
    flat = os.path.join(OUT, "qemu-kdump-zlib.flat")
    for f in (elf, kd, flat, summ):
        if os.path.exists(f):
            os.chmod(f, 0o600)
            os.unlink(f)
    log("booting: %s (%d MiB)" % (" ".join(argv[:8]), ram_mib()))
    tb = time.time()
    vm = fixgen.Vm(argv, OUT, os.path.join(OUT, "console.log"))
    try:
        vm.wait_for(lambda l: l == b"PSLEUTH-READY", 3000)
        tready = time.time() - tb
        log("guest ready after %.0f s" % tready)
        # Crash the guest first (sysrq-c, no kdump kernel loaded: it stays in panic()), so
        # the dump has a panic task: crash 8.0.6 fails to start on a QEMU dump of a
        # running x86_64 guest stopped at an arbitrary point.
        if A.get("panic", True):
            vm.send("panic\n")
            try:
                vm.wait_for(lambda l: b"Kernel panic" in l, 120)
                time.sleep(2)  # let panic() finish printing and settle in its final loop
            except RuntimeError:
                log("warning: no panic message seen on the console; dumping anyway")
        vm.cmd("stop")
        td = time.time()
        vm.cmd("dump-guest-memory", paging=False, protocol="file:" + elf, format="elf")
        telf = time.time() - td
        td = time.time()
        if A["kdump"]:
            vm.cmd("dump-guest-memory", paging=False, protocol="file:" + flat,
                   format="kdump-zlib")
        tkd = time.time() - td
        log("dumps written: ELF %.0f s, kdump-zlib %.0f s" % (telf, tkd))
        vm.cmd("quit")
        vm.wait_exit(120)
    except Exception:
        vm.p.kill()
        log("console tail:\n" + "\n".join(l.decode("latin1") for l in vm.lines[-30:] if l))
        raise
    if A["kdump"]:
        with open(flat, "rb") as f:
            run(["makedumpfile", "-R", kd], stdin=f, stdout=subprocess.DEVNULL)
        os.unlink(flat)
    release = version = ""
    for l in vm.lines:
        if l and l.startswith(b"BIGDUMP-UNAME-RELEASE "):
            release = l.split(b" ", 1)[1].decode()
        elif l and l.startswith(b"BIGDUMP-UNAME-VERSION "):
            version = l.split(b" ", 1)[1].decode()
    if A["kdump"]:
        fill_kdump_uts(kd, release, version)
    for f in want[:-1]:
        os.chmod(f, 0o444)
    lines = [l.decode("latin1") for l in vm.lines if l and (l.startswith(b"BIGDUMP-"))]
    with open(summ, "w") as f:
        f.write("\n".join(lines) + "\n")
        f.write("arch %s\n" % ARCH)
        f.write("kernel_package %s\n" % kdesc)
        f.write("guest_ram_mib %d\n" % ram_mib())
        f.write("workload %s\n" % " ".join("%s=%s" % kv for kv in conf_vals.items()))
        f.write("qemu_cmdline %s\n" % " ".join(a if " " not in a else "'%s'" % a for a in argv)
                .replace(CACHE, "$CACHE"))
        for path in want[:-1]:
            name = os.path.basename(path)
            f.write("dump %s size=%d\n" % (name, os.path.getsize(path)))
        f.write("vm_ready_seconds %.0f\n" % tready)
        f.write("generate_seconds %.0f\n" % (time.time() - t0))
        f.write("generated %s\n" % time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
        f.write("inputs %s\n" % hsh)
    warn = [l for l in lines if l.startswith("BIGDUMP-WARN")]
    if warn:
        log("guest warnings:", warn)
    log("done in %.0f s:" % (time.time() - t0))
    sys.stdout.write(open(summ).read())


if __name__ == "__main__":
    main()
