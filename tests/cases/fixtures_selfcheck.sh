#!/bin/bash
# Self-check of the committed kernel-dump fixtures (tests/fixtures/data/*):
# every fixture listed in tests/fixtures/README.md exists with a MANIFEST; its
# ground truth parses and shows the documented workload (check/gtcheck.py); the
# dumps decompress to the recorded sha256; and for the workload's tagged pages
# the dump's bytes at the ground-truth PFN carry the page's tag (libkdumpfile
# where it can, plain ELF program headers otherwise; -d 31 dumps must have
# filtered those pages out); every fixture's committed BTF parses and describes the
# structures the walker reads (check/btfcheck.c); a committed DWARF vmlinux (vmlinux.zst)
# has the MANIFEST's sha256 and the guest's build ID. Offline; runs from the repo root.
set -euo pipefail
fx=tests/fixtures
say_fail() { echo "FAIL: $*"; exit 1; }
[ -d "$fx/data" ] || say_fail "no $fx/data"
command -v zstd >/dev/null || say_fail "zstd not installed (apt-get install zstd)"
command -v gcc >/dev/null || say_fail "gcc not installed"

cache=${PAGESLEUTH_CACHE:-/var/cache/pagesleuth}/fixtures/unpacked
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=${TMPDIR:-/tmp}/pagesleuth-fixtures-unpacked
mkdir -p "$cache"

# The checker: with libkdumpfile if its headers are installed.
bin=$cache/dumpcheck
kflags=() kdf=0
if pkg-config --exists libkdumpfile 2>/dev/null; then
    read -ra kflags <<<"-DHAVE_KDUMPFILE $(pkg-config --cflags --libs libkdumpfile)"
    kdf=1
fi
gcc -std=c11 -Wall -Wextra -O2 -o "$bin.new" "$fx/check/dumpcheck.c" "${kflags[@]}" ||
    say_fail "dumpcheck does not build"
mv "$bin.new" "$bin"

# The BTF checker, with libbpf.
btfbin=$cache/btfcheck
gcc -std=gnu11 -Wall -Wextra -O2 -o "$btfbin.new" "$fx/check/btfcheck.c" -lbpf ||
    say_fail "btfcheck does not build (libbpf-dev installed?)"
mv "$btfbin.new" "$btfbin"

fixtures=0 checks=0 skipped=0 btfs=0 vmlinuxes=0
for man in "$fx"/data/*/MANIFEST; do
    [ -f "$man" ] || continue
    d=$(dirname "$man") name=$(basename "$(dirname "$man")")
    grep -q "data/$name/" "$fx/README.md" || say_fail "$name: not described in $fx/README.md"
    gt=$d/groundtruth.txt
    [ -s "$gt" ] || say_fail "$name: no groundtruth.txt"
    # The workload did what the README says (roles, mapcounts, THP, swap, refbits).
    command -v python3 >/dev/null || say_fail "python3 not installed"
    out=$(python3 "$fx/check/gtcheck.py" "$d" 2>&1) || say_fail "$name ground truth: $out"
    rel=$(sed -n 's/^kernel_release //p' "$man")
    grep -qx "release $rel" "$gt" || say_fail "$name: MANIFEST release $rel differs from ground truth"
    ndump=0
    while read -r _ kind file rest; do
        readers=$(sed -n 's/.*readers=\([^ ]*\).*/\1/p' <<<"$rest")
        expect=$(sed -n 's/.*expect=\([^ ]*\).*/\1/p' <<<"$rest")
        sum=$(sed -n 's/.*raw_sha256=\([0-9a-f]*\).*/\1/p' <<<"$rest")
        [ -f "$d/$file" ] || say_fail "$name: $file listed in MANIFEST but missing"
        raw=$cache/$name/${file%.zst}
        mkdir -p "$cache/$name"
        # Decompress once; the stamp is the expected sha256 of the raw dump.
        if [ "$(cat "$raw.ok" 2>/dev/null)" != "$sum" ] || [ ! -f "$raw" ]; then
            rm -f "$raw" "$raw.ok"
            # patch_from=FX/FILE:N: compressed against the first N bytes of FX's FILE (zstd
            # --patch-from); FX sorts before this fixture, so it is decompressed already.
            pf=$(sed -n 's/.*patch_from=\([^ ]*\).*/\1/p' <<<"$rest") pfarg=()
            if [ -n "$pf" ]; then
                src=$cache/${pf%%/*}/$(basename "${pf%:*}")
                [ -f "$src" ] || say_fail "$name: $file is compressed against $pf, which is not there"
                head -c "${pf##*:}" "$src" >"$raw.ref"
                [ "$(sha256sum <"$raw.ref" | cut -d' ' -f1)" = "$(sed -n 's/.*patch_from_sha256=\([0-9a-f]*\).*/\1/p' <<<"$rest")" ] ||
                    say_fail "$name: $file is compressed against $pf, which changed since: regenerate $name"
                pfarg=(--patch-from="$raw.ref")
            fi
            zstd -q -d --long=31 -f "${pfarg[@]}" "$d/$file" -o "$raw" || say_fail "$name: $file does not decompress"
            rm -f "$raw.ref"
            [ "$(sha256sum "$raw" | cut -d' ' -f1)" = "$sum" ] || say_fail "$name: $file sha256 mismatch"
            echo "$sum" > "$raw.ok"
        fi
        for r in ${readers//,/ }; do
            if [ "$r" = kdumpfile ] && [ $kdf = 0 ]; then
                skipped=$((skipped + 1)); continue
            fi
            out=$("$bin" "$gt" "$raw" "$r" "$expect") || say_fail "$name/$kind ($r): ${out#FAIL: }"
            checks=$((checks + 1))
        done
        ndump=$((ndump + 1))
    done < <(grep '^dump ' "$man")
    [ $ndump -gt 0 ] || say_fail "$name: no dumps in MANIFEST"
    # Every fixture commits BTF: the readers must not need the -dbg package.
    [ -f "$d/vmlinux.btf.zst" ] || say_fail "$name: no vmlinux.btf.zst"
    zstd -q -d -f "$d/vmlinux.btf.zst" -o "$cache/$name/vmlinux.btf" || say_fail "$name: BTF does not decompress"
    out=$("$btfbin" "$cache/$name/vmlinux.btf") || say_fail "$name: ${out#FAIL: }"
    btfs=$((btfs + 1))
    # A committed DWARF vmlinux (x86_64-selfbuilt): the MANIFEST's sha256, and the build ID
    # the guest's VMCOREINFO reported (the dumps' kernel, not another build of it).
    if [ -f "$d/vmlinux.zst" ]; then
        vsum=$(awk '$1 == "vmlinux_raw_size" { print $4 }' "$man")
        [ -n "$vsum" ] || say_fail "$name: vmlinux.zst without a vmlinux_raw_size line in MANIFEST"
        vml=$cache/$name/vmlinux
        if [ "$(cat "$vml.ok" 2>/dev/null)" != "$vsum" ] || [ ! -f "$vml" ]; then
            rm -f "$vml.ok"
            zstd -q -d -f "$d/vmlinux.zst" -o "$vml" || say_fail "$name: vmlinux.zst does not decompress"
            [ "$(sha256sum "$vml" | cut -d' ' -f1)" = "$vsum" ] || say_fail "$name: vmlinux sha256 mismatch"
            echo "$vsum" >"$vml.ok"
        fi
        vbid=$(readelf -n "$vml" | sed -n 's/^ *Build ID: //p')
        gbid=$(sed -n 's/^BUILD-ID=//p' "$gt" | head -1)
        [ -n "$vbid" ] && [ "$vbid" = "$gbid" ] ||
            say_fail "$name: vmlinux build ID '$vbid', the guest's VMCOREINFO says '$gbid'"
        readelf -S "$vml" | grep -q ' \.debug_info ' || say_fail "$name: vmlinux has no .debug_info"
        vmlinuxes=$((vmlinuxes + 1))
    fi
    fixtures=$((fixtures + 1))
done
[ $fixtures -gt 0 ] || say_fail "no fixtures under $fx/data"
msg=""
[ $skipped = 0 ] || msg=" ($skipped libkdumpfile checks skipped: libkdumpfile-dev not installed)"
echo "fixtures_selfcheck: $fixtures fixtures, $checks dump checks, $btfs BTF checks and $vmlinuxes DWARF vmlinux checks passed$msg"
