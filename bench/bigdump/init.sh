#!/bin/sh
# /init of the benchmark guest (busybox sh): starts the bigload workload (see bigload.c),
# waits until every process is set up, prints the smaps_rollup totals, then PSLEUTH-READY;
# the host makes it panic, then stops the VM and dumps it. Process counts/sizes come from /etc/bigdump.conf.
export PATH=/bin LD_LIBRARY_PATH=/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /tmp && mount -t tmpfs -o size=90% tmp /tmp
. /etc/bigdump.conf
stty -onlcr -echo 2>/dev/null
dmesg -n 1
# VMCOREINFO in the dump needs the fw_cfg driver (and QEMU's -device vmcoreinfo).
for m in $MODULES; do insmod /lib/modules/$m.ko || echo "BIGDUMP-WARN insmod $m"; done
# Base pages only: the page counts then equal Rss / 4 KiB.
echo never > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
mkdir -p /tmp/ready
cd /tmp
bigload mkfile /tmp/shared.dat $FILE_MIB || echo BIGDUMP-WARN mkfile
want=0
i=0
while [ $i -lt $HEAP_PROCS ]; do
    bigload heap $((8 + (i % 5) * 4)) &      # 8..24 MiB, mean 16
    i=$((i + 1)); want=$((want + 1))
done
i=0
while [ $i -lt $SPARSE_PROCS ]; do
    bigload sparse $SPARSE_GIB $SPARSE_MIB &
    i=$((i + 1)); want=$((want + 1))
done
i=0
while [ $i -lt $FORK_PARENTS ]; do
    bigload fork $FORK_MIB $FORK_CHILDREN &
    i=$((i + 1)); want=$((want + 1 + FORK_CHILDREN))
done
i=0
while [ $i -lt $FILE_PROCS ]; do
    bigload file /tmp/shared.dat $FILE_MIB &
    i=$((i + 1)); want=$((want + 1))
done
echo "BIGDUMP-STARTED want=$want"
i=0
while [ "$(ls /tmp/ready | wc -l)" -lt $want ]; do
    i=$((i + 1)); [ $i -gt 3000 ] && { echo BIGDUMP-WARN workload-timeout; break; }
    sleep 0.2
done
sync
sleep 1
bigload summary
# The host writes these into the kdump header (QEMU leaves them empty there).
echo "BIGDUMP-UNAME-RELEASE $(uname -r)"
echo "BIGDUMP-UNAME-VERSION $(uname -v)"
grep -E '^(MemTotal|MemFree|AnonPages|Shmem|PageTables|Mapped|HighTotal|LowTotal):' /proc/meminfo | tr -s ' ' | sed 's/^/BIGDUMP-MEMINFO /'
echo PSLEUTH-READY
# The host answers "panic": the dump then shows a crashed kernel (a panic task whose stack
# holds the panic), which crash needs to start; QEMU stopped at an arbitrary instruction can
# leave the CPU on an entry stack crash 8.0.6 cannot read ("read of stack at fffffe...").
read cmd
case $cmd in
panic) echo c > /proc/sysrq-trigger ;;
esac
poweroff -f
