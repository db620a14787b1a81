#!/usr/bin/env python3
"""kdump_garble_page.py KDUMP PA - make the zlib data of the page holding physical address
PA garbage, in place (give it a copy), and print "PA_HEX DESCRIPTOR": the page descriptor
found by rank in the dumped-pages bitmap, as makedumpfile lays a kdump-compressed file out
(a 64-bit little-endian machine's disk_dump_header: block_size at byte 428, then
sub_hdr_size and bitmap_blocks; the bitmaps after the header and sub-header blocks, the
second half the dumped pages; 24-byte descriptors after them). The first 64 bytes after the
zlib header are set to 0xff: the page no longer inflates. Exits non-zero, saying why, when
the page is not in the dump or not zlib-compressed.
"""
import struct
import sys

path, pa = sys.argv[1], int(sys.argv[2], 16)
with open(path, "r+b") as f:
    h = f.read(4096)
    block, sub, bmb = struct.unpack_from("<iiI", h, 428)
    pfn = pa // block
    f.seek((1 + sub + bmb // 2) * block)
    bits = f.read(pfn // 8 + 1)
    if len(bits) <= pfn // 8 or not bits[pfn // 8] >> (pfn % 8) & 1:
        sys.exit("page 0x%x is not in the dump" % pfn)
    rank = sum(bin(b).count("1") for b in bits[:pfn // 8]) + \
        bin(bits[pfn // 8] & ((1 << (pfn % 8)) - 1)).count("1")
    f.seek((1 + sub + bmb) * block + 24 * rank)
    off, size, flags = struct.unpack("<qII", f.read(16))
    if flags != 1:
        sys.exit("page 0x%x is not zlib-compressed (flags 0x%x)" % (pfn, flags))
    f.seek(off + 2)
    f.write(b"\xff" * min(size - 2, 64))
print("%x %d" % (pa, rank))
