#!/usr/bin/env python3
"""elfphys.py ELF CMD ... - physical memory of an ELF vmcore through its program headers
(PT_LOAD p_paddr -> p_offset), for cases that corrupt a COPY of a dump on purpose.
python3 stdlib only; numbers in and out are hex (with or without 0x).

  elfphys.py ELF off PA            file offset of physical address PA
  elfphys.py ELF read PA LEN       LEN bytes at PA, as hex
  elfphys.py ELF u64 PA            the 8-byte word at PA in the ELF's byte order
  elfphys.py ELF write PA HEX      overwrite bytes at PA (prints the old bytes as hex)
  elfphys.py ELF fill PA LEN BYTE  overwrite LEN bytes at PA with BYTE (prints the old bytes)
  elfphys.py ELF maxpa             end of the highest PT_LOAD range (first PA not in the dump)
  elfphys.py ELF tasklist TRACE OFF
      from an `extract --trace` file: the tasks ("task KVA" lines) that are on the task list,
      read through the linear map (its offset taken from a "maple ID KVA PA" line), as
      "KVA PA NEXT" (NEXT = task.tasks.next, OFF = offsetof(task_struct, tasks)), in trace
      order, for the tasks whose KVA+OFF some traced task's tasks.next points to.

A range not covered by one PT_LOAD segment is an error (exit 1, one line).
"""
import struct
import sys


def die(msg):
    sys.stderr.write("elfphys: %s\n" % msg)
    sys.exit(1)


class Elf:
    def __init__(self, path, write=False):
        self.path = path
        self.fp = open(path, "r+b" if write else "rb")
        ident = self.fp.read(64)
        if ident[:4] != b"\x7fELF":
            die("%s: not an ELF file" % path)
        self.is64 = ident[4] == 2
        self.end = "<" if ident[5] == 1 else ">"
        e = self.end
        if self.is64:
            phoff, = struct.unpack(e + "Q", ident[32:40])
            phentsize, phnum = struct.unpack(e + "HH", ident[54:58])
        else:
            phoff, = struct.unpack(e + "I", ident[28:32])
            phentsize, phnum = struct.unpack(e + "HH", ident[42:46])
        self.loads = []
        for i in range(phnum):
            self.fp.seek(phoff + i * phentsize)
            ph = self.fp.read(phentsize)
            if self.is64:
                ptype, _, off, _, paddr, filesz = struct.unpack(e + "IIQQQQ", ph[:40])
            else:
                ptype, off, _, paddr, filesz = struct.unpack(e + "IIIII", ph[:20])
            if ptype == 1 and filesz:
                self.loads.append((paddr, filesz, off))

    def off(self, pa, length=1):
        for paddr, filesz, off in self.loads:
            if paddr <= pa and pa + length <= paddr + filesz:
                return off + pa - paddr
        die("%s: physical %#x+%#x is not inside one PT_LOAD segment" % (self.path, pa, length))

    def read(self, pa, length):
        self.fp.seek(self.off(pa, length))
        return self.fp.read(length)

    def write(self, pa, data):
        old = self.read(pa, len(data))
        self.fp.seek(self.off(pa, len(data)))
        self.fp.write(data)
        return old

    def u64(self, pa):
        return struct.unpack(self.end + "Q", self.read(pa, 8))[0]


def num(s):
    return int(s, 16)


def tasklist(elf, trace, off):
    tasks, lin = [], None
    for line in open(trace):
        f = line.split()
        if len(f) == 2 and f[0] == "task":
            tasks.append(num(f[1]))
        elif len(f) == 4 and f[0] == "maple" and lin is None:
            lin = num(f[2]) - num(f[3])
    if lin is None:
        die("%s: no maple line to take the linear map's offset from" % trace)
    info = []
    for kva in tasks:
        pa = (kva - lin) & (2**64 - 1)
        try:
            nxt = elf.u64(pa + off)
        except SystemExit:
            continue  # not in the linear map (init_task lives in the kernel image)
        info.append((kva, pa, nxt))
    pointed = {nxt for _, _, nxt in info}
    for kva, pa, nxt in info:
        if kva + off in pointed:
            print("%x %x %x" % (kva, pa, nxt))


def main():
    a = sys.argv[1:]
    if len(a) < 2:
        die("usage: see the header of " + sys.argv[0])
    cmd = a[1]
    elf = Elf(a[0], write=cmd in ("write", "fill"))
    if cmd == "off" and len(a) == 3:
        print("%d" % elf.off(num(a[2])))
    elif cmd == "read" and len(a) == 4:
        print(elf.read(num(a[2]), num(a[3])).hex())
    elif cmd == "u64" and len(a) == 3:
        print("%x" % elf.u64(num(a[2])))
    elif cmd == "write" and len(a) == 4:
        print(elf.write(num(a[2]), bytes.fromhex(a[3])).hex())
    elif cmd == "fill" and len(a) == 5:
        print(elf.write(num(a[2]), bytes([num(a[4])]) * num(a[3])).hex())
    elif cmd == "maxpa" and len(a) == 2:
        print("%x" % max(p + s for p, s, _ in elf.loads))
    elif cmd == "tasklist" and len(a) == 4:
        tasklist(elf, a[2], num(a[3]))
    else:
        die("bad arguments: " + " ".join(a))


if __name__ == "__main__":
    main()
