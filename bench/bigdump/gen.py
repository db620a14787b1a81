#!/usr/bin/env python3
"""Generate the big benchmark dump: bench/bigdump/gen.py [--force] [--arch x86_64|arm64]

An x86_64 guest (Debian's kernel of the x86_64 fixture, 2.5 GiB RAM, QEMU TCG) runs
118 bigload processes (bigload.c: anonymous heaps, runtime-style sparse reservations of
tens of GiB with a few MiB touched, fork trees sharing COW pages, a shared library, shared
and private file mappings), ~1.6 GiB resident. The host then makes the guest panic
(sysrq-c: a dump with a panic task, as crash wants), stops it and dumps it with QMP.

--arch arm64 makes the same workload on the arm64 fixture's kernel (virt, cortex-a57) into
bench/bigdump-arm64/, ELF only (QEMU's arm64 kdump-zlib is unusable: 64K blocks, 4K pages).

Output in ${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/bench/bigdump/:
  qemu.elf       QEMU ELF dump (pagesleuth, crash 8.0.6; drgn 0.0.22 fails on QEMU's ELF)
  qemu.kdump     QEMU kdump-zlib, reassembled from makedumpfile's flattened format with
                 makedumpfile -R, its header's empty utsname fields (sysname, release,
                 version) filled from the guest's uname so that libkdumpfile/drgn accept it
                 (pagesleuth, crash, drgn)
  summary.txt    the guest's own totals (smaps_rollup Rss/Pss/Anonymous over the bigload
                 processes, VmSize, meminfo) and the generation parameters
  console.log    the guest console
Idempotent: does nothing if all three exist and the inputs (this directory's sources, the
kernel) did not change; --force regenerates. Uses the fixture machinery read-only:
tests/fixtures/scripts/gen.py (its Cpio/Vm helpers, imported, never modified) and
fetch-deb.sh for the kernel and busybox-static packages.
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
# The fixtures' kernels (tests/fixtures/data/<arch>/MANIFEST) and machines.
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
}
ARCH = "x86_64"
A = ARCHES[ARCH]
OUT = os.path.join(CACHE, "bench", A["out"])


def log(*a):
    print("[bigdump %s]" % time.strftime("%H:%M:%S"), *a, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def inputs_hash():
    h = hashlib.sha256()
    for f in sorted(os.listdir(HERE)):
        if f.endswith((".c", ".sh", ".py")):
            h.update(f.encode() + open(os.path.join(HERE, f), "rb").read())
    h.update(repr((ARCH, sorted(A.items()), RAM_MIB, sorted(CONF.items()))).encode())
    return h.hexdigest()[:16]


def need_host_tools():
    missing = [p for p, exe in (("makedumpfile", "makedumpfile"),
                                ("qemu-system-x86", "qemu-system-x86_64"),
                                ("qemu-system-arm", "qemu-system-aarch64"),
                                ("gcc-aarch64-linux-gnu", "aarch64-linux-gnu-gcc"))
               if not shutil.which(exe) and (ARCH == "arm64" or "x86" in p or "make" in p)]
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
    global ARCH, A, OUT
    args = sys.argv[1:]
    force = "--force" in args
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
    if not force and all(os.path.exists(f) for f in want) and \
            ("inputs %s\n" % hsh) in open(summ).read():
        log("up to date:", OUT, "(--force regenerates)")
        return
    t0 = time.time()
    need_host_tools()
    subprocess.run([os.path.join(FIXSCRIPTS, "apt-foreign.sh"), A["debarch"], "update"],
                   check=True)
    kroot = fetch(A["kpkg"], A["kver"])
    bbroot = fetch("busybox-static")
    release = A["kpkg"].replace("linux-image-", "").replace("-unsigned", "")
    kernel = os.path.join(kroot, "boot", "vmlinuz-" + release)
    moddir = os.path.join(kroot, "lib", "modules", release)

    # Programs (the host's gcc for x86_64, the Debian cross compiler for arm64).
    bdir = os.path.join(OUT, "build")
    os.makedirs(bdir, exist_ok=True)
    cfl = ["-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror"]
    run([A["cc"]] + cfl + ["-fPIC", "-shared", "-Wl,-soname,libbiglib.so", "-o",
                         bdir + "/libbiglib.so", HERE + "/libbiglib.c"])
    run([A["cc"]] + cfl + ["-o", bdir + "/bigload", HERE + "/bigload.c", "-L" + bdir,
                         "-lbiglib"])

    cp = fixgen.Cpio()
    cp.host("/bin/busybox", os.path.join(bbroot, "bin", "busybox"), 0o755)
    for a in ["sh", "mount", "insmod", "stty", "dmesg", "ls", "grep", "wc", "sleep", "sync",
              "cat", "echo", "poweroff", "mkdir", "tr", "sed", "uname"]:
        cp.link("/bin/" + a, "busybox")
    cp.chardev("/dev/console", 5, 1)
    for d in ["/proc", "/sys", "/tmp", "/lib", "/etc"]:
        cp.dir(d)
    cp.host("/init", os.path.join(HERE, "init.sh"), 0o755)
    cp.host("/bin/bigload", bdir + "/bigload", 0o755)
    cp.host("/lib/libbiglib.so", bdir + "/libbiglib.so", 0o755)
    cp.host(A["interp"], os.path.realpath(os.path.join(A["libdir"],
                                                       os.path.basename(A["interp"]))), 0o755)
    cp.host("/lib/libc.so.6", os.path.realpath(os.path.join(A["libdir"], "libc.so.6")), 0o755)
    mods = fixgen.module_closure(moddir, ["qemu_fw_cfg"])
    for m, p in mods:
        cp.host("/lib/modules/%s.ko" % m, p)
    conf = "".join("%s=%s\n" % kv for kv in CONF.items())
    conf += "MODULES='%s'\n" % " ".join(m for m, _ in mods)
    cp.file("/etc/bigdump.conf", conf.encode())
    initrd = os.path.join(bdir, "initrd.cpio")
    open(initrd, "wb").write(cp.bytes())

    argv = A["qemu"] + ["-m", str(RAM_MIB), "-smp", "1", "-display", "none", "-nodefaults",
                   "-no-reboot", "-chardev", "stdio,id=s0,signal=off", "-serial", "chardev:s0",
                   "-kernel", kernel, "-initrd", initrd,
                   "-append", "console=%s rdinit=/init quiet loglevel=3" % A["console"]]
    flat = os.path.join(OUT, "qemu-kdump-zlib.flat")
    for f in (elf, kd, flat, summ):
        if os.path.exists(f):
            os.chmod(f, 0o600)
            os.unlink(f)
    log("booting: %s (%d MiB)" % (" ".join(argv[:8]), RAM_MIB))
    tb = time.time()
    vm = fixgen.Vm(argv, OUT, os.path.join(OUT, "console.log"))
    try:
        vm.wait_for(lambda l: l == b"PSLEUTH-READY", 3000)
        tready = time.time() - tb
        log("guest ready after %.0f s" % tready)
        # Crash the guest first (sysrq-c, no kdump kernel loaded: it stays in panic()), so
        # the dump has a panic task: crash 8.0.6 fails to start on a QEMU dump of a
        # running x86_64 guest stopped at an arbitrary point.
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
        f.write("kernel_package %s %s\n" % (A["kpkg"], A["kver"]))
        f.write("guest_ram_mib %d\n" % RAM_MIB)
        f.write("workload %s\n" % " ".join("%s=%s" % kv for kv in CONF.items()))
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
