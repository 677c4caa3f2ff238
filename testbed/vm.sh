#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the testbed guest once and run one job in it.
#
#   testbed/vm.sh testbed   start the ZBC target, log in, describe the disk
#   testbed/vm.sh boot      ... then format (if blank), mount zonefs on /mnt,
#                           run $CMD (or an interactive shell)
#   testbed/vm.sh check     ... run the guest test groups ($TESTS), TAP on stdout
#   testbed/vm.sh bench     ... run bench/guest.sh; results in results/bench/
#
# Environment: see testbed/config, plus CMD, TESTS, DISK (a host zoned block
# device to pass through instead of the iSCSI disk), SHARE (a host directory
# to mount read-only on /share), FORMAT=1 (reformat in boot mode), DISKSET
# (user or check: which set of backing files to use).
#
# One guest holds both the target and the initiator, talking over its own
# 127.0.0.1: with two cores, a second TCG guest for the target cut write
# throughput tenfold. The guest has no network device at all.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/lib/kmsg.sh
. "$TOP/tests/lib/kmsg.sh"
# shellcheck source=testbed/disk_policy.sh
. "$here/disk_policy.sh"

mode=${1:-}
case "$mode" in
testbed | boot | check | bench) ;;
*) echo "usage: $0 testbed|boot|check|bench" >&2; exit 2 ;;
esac

: "${CMD:=}" "${TESTS:=}" "${DISK:=}" "${SHARE:=}" "${FORMAT:=0}"
: "${DISKSET:=$(case "$mode" in check | bench) echo "$mode" ;; *) echo user ;; esac)}"

kver=$(tb_kver) || tb_die "no Debian 6.1 kernel with headers installed: run 'make deps'"
kernel=/boot/vmlinuz-$kver
kmods=/lib/modules/$kver
ko=$TOP/module/zonefs.ko
kargs=
# KERNEL=debug: images/mkkernel.sh's debug kernel (built once, then cached)
# and our zonefs.ko built against it. Its modules are not in the host's
# /lib/modules: the guest links them from the path given as tb_kmods=.
# shellcheck disable=SC2153 # KERNEL comes from testbed/config
case "$KERNEL" in
stock) ;;
debug)
	kdir=$("$TOP/images/mkkernel.sh") || tb_die "no debug kernel: images/mkkernel.sh failed"
	kver=$(cat "$kdir/kver")
	kernel=$kdir/bzImage
	kmods=$kdir/modules/lib/modules/$kver
	ko=$IMAGES_OUT/kernel/module-${kdir##*/}/module/zonefs.ko
	kargs=" tb_kmods=$kmods kasan_multi_shot"
	;;
*) tb_die "KERNEL must be stock or debug, not '$KERNEL'" ;;
esac
initrd=$IMAGES_OUT/initramfs-$kver.cpio.gz
run_dir=$RESULTS/$mode
qemu_pid=

# QEMU runs under timeout, which leads a process group of its own: stop
# the whole group, so that no QEMU is left holding the disk store.
cleanup() {
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		kill -TERM -- "-$qemu_pid" "$qemu_pid" 2>/dev/null || true
		for _ in $(seq 20); do
			kill -0 -- "-$qemu_pid" 2>/dev/null || break
			sleep 0.25
		done
		kill -KILL -- "-$qemu_pid" 2>/dev/null || true
	fi
	[ -z "${tail_pid:-}" ] || kill "$tail_pid" 2>/dev/null || true
}
# On INT or TERM: stop QEMU, then die of the same signal, so that the
# caller (make check, a test) stops too instead of going on.
on_signal() {
	trap - INT TERM
	cleanup
	qemu_pid=
	tb_log "stopped by SIG$1"
	kill -"$1" $$
	exit 130
}
trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

# The disk sets. NAME:LUN:ZONE_MB:CONV:SIZE_MB:LBA:OPEN, one per LUN; NAME
# becomes the variable (ZBC_DEV, ...) that tells the tests its /dev/sdX.
# The bench set adds a 75,000-zone disk (4.6 TiB, sparse: about 5 MB used).
case "$DISKSET" in
user) disks="zbc_dev:0:$ZONE_MB:$CONV:$((SIZE_GB * 1024)):$LBA:$OPEN" ;;
check) disks="zbc_dev:0:64:4:4096:4096:8 zbc_dev_512:1:16:2:1024:512:8 zbc_dev_nocnv:2:16:0:1024:4096:8" ;;
bench) disks="zbc_dev:0:64:4:4096:4096:8 zbc_big:1:64:4:$((75000 * 64)):4096:128" ;;
*) tb_die "DISKSET must be user or check" ;;
esac
case "$LBA" in
512 | 4096) ;;
*) tb_die "LBA must be 512 or 4096, not '$LBA'" ;;
esac

pass_dev=
[ -z "$DISK" ] || pass_dev=$(tb_disk_policy "$DISK" "$FORMAT") || exit 1
if [ -n "$SHARE" ] && [ ! -d "$SHARE" ]; then
	tb_die "SHARE=$SHARE is not a directory"
fi
if [ "$mode" = boot ] && [ -z "$CMD" ] && [ ! -t 0 ]; then
	tb_die "make boot without CMD needs a terminal for its shell"
fi

KVER=$kver KMODS=$kmods "$TOP/images/mkinitramfs.sh"

# The module indexes for the guest, with our zonefs.ko under updates/, made
# here with the host's depmod: in the guest, under TCG and reading every
# module over 9p, depmod -a takes minutes.
depmod_dir=$IMAGES_OUT/depmod-$kver
if [ -f "$ko" ] && { [ ! -f "$depmod_dir/modules.dep.bin" ] || [ "$ko" -nt "$depmod_dir/modules.dep.bin" ] ||
	[ "$kmods/modules.dep" -nt "$depmod_dir/modules.dep.bin" ]; }; then
	stage=$(mktemp -d)
	sroot=$stage/lib/modules/$kver
	mkdir -p "$sroot/updates"
	cp -rs "$kmods/kernel" "$sroot/kernel"
	cp "$kmods"/modules.{order,builtin,builtin.modinfo} "$sroot/"
	cp "$ko" "$sroot/updates/zonefs.ko"
	depmod -b "$stage" "$kver" || tb_die "depmod for the guest failed"
	rm -rf "$depmod_dir"
	mkdir -p "$depmod_dir"
	cp "$sroot"/modules.* "$depmod_dir/"
	rm -rf "$stage"
	tb_log "module indexes with our zonefs.ko: $depmod_dir"
fi

mkdir -p "$DISKS_DIR"
store=$DISKS_DIR/$DISKSET.img
if [ -z "$pass_dev" ] && [ ! -f "$store" ]; then
	tb_log "creating the backing store $store (sparse ext4, 64 GiB)"
	truncate -s 64G "$store.tmp.$$"
	mkfs.ext4 -q -F -L zbc-store -E lazy_itable_init=1,lazy_journal_init=1 "$store.tmp.$$"
	mv "$store.tmp.$$" "$store"
fi

# One guest at a time per disk set: QEMU would refuse the second anyway.
if [ -z "$pass_dev" ]; then
	exec 9>"$store.lock"
	if ! flock -n 9; then
		tb_log "another guest is using $store; waiting (DISKS_DIR=... picks another set)"
		flock -w "$VM_TIMEOUT" 9 || tb_die "$store stayed busy for ${VM_TIMEOUT}s"
	fi
fi

rm -rf "$run_dir"
mkdir -p "$run_dir"
{
	printf 'TB_MODE=%q\n' "$mode"
	printf 'TB_CMD=%q\n' "$CMD"
	printf 'TB_TESTS=%q\n' "$TESTS"
	printf 'TB_TOP=%q\n' "$TOP"
	printf 'TB_KO=%q\n' "$ko"
	printf 'TB_TRANSPORT=%q\n' "$TRANSPORT"
	printf 'TB_DURABLE=%q\n' "$DURABLE"
	printf 'TB_DISKS=%q\n' "$disks"
	printf 'TB_DISK=%q\n' "$([ -n "$pass_dev" ] && echo passthrough || echo zbc)"
	printf 'TB_SHARE=%q\n' "$([ -n "$SHARE" ] && echo 1)"
	printf 'FORMAT=%q\n' "$FORMAT"
	printf 'TB_DEBUG=%q\n' "${TB_DEBUG:-0}"
	printf 'STRESS=%q\n' "${STRESS:-0}"
} >"$run_dir/job.env"
: >"$run_dir/exit_code"
: >"$run_dir/tap"
: >"$run_dir/kmsg.log"

qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp "$VM_CPUS" -m "$VM_MEM"
      -nodefaults -no-user-config -nographic -no-reboot -nic none
      -kernel "$kernel" -initrd "$initrd"
      -append "console=ttyS0 panic=-1 oops=panic loglevel=4 mitigations=off log_buf_len=16M slub_debug=FZPU tb_init=$here/guest/init.sh${TB_DEBUG:+ tb_debug}$kargs"
      -fsdev "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap"
      -device virtio-9p-pci,fsdev=rootfs,mount_tag=root
      -fsdev "local,id=results,path=$run_dir,security_model=none"
      -device virtio-9p-pci,fsdev=results,mount_tag=results
      -device virtio-serial-pci
      -chardev "file,id=ret,path=$run_dir/exit_code"
      -device virtserialport,chardev=ret,name=zonefs.ret
      -chardev "file,id=tap,path=$run_dir/tap"
      -device virtserialport,chardev=tap,name=zonefs.tap
      -chardev "file,id=kmsg,path=$run_dir/kmsg.log"
      -device virtserialport,chardev=kmsg,name=zonefs.kmsg)
if [ -n "$pass_dev" ]; then
	qemu+=(-device virtio-scsi-pci,id=scsi0
	       -drive "file=$pass_dev,format=raw,if=none,id=zdisk,cache=none"
	       -device scsi-block,drive=zdisk)
else
	qemu+=(-drive "file=$store,format=raw,if=virtio,cache=unsafe,discard=unmap")
fi
# make check also gets a zoned NVMe namespace (QEMU's ZNS emulation): zone
# capacity below zone size, no conventional zones, open and active limits.
# A second one has 512 B blocks and a zone capacity that is no multiple of
# 4 KiB (12 MiB + 512 B), no limits.
if [ "$DISKSET" = check ]; then
	zns=$DISKS_DIR/zns.img
	[ -f "$zns" ] || truncate -s 1G "$zns"
	zns512=$DISKS_DIR/zns512.img
	[ -f "$zns512" ] || truncate -s 256M "$zns512"
	qemu+=(-drive "file=$zns,id=zns,format=raw,if=none,cache=unsafe"
	       -device nvme,serial=zonefs-zns,id=nvme0
	       -device "nvme-ns,drive=zns,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,zoned.zone_size=16M,zoned.zone_capacity=12M,zoned.max_open=6,zoned.max_active=8"
	       -drive "file=$zns512,id=zns512,format=raw,if=none,cache=unsafe"
	       -device "nvme-ns,drive=zns512,bus=nvme0,nsid=2,logical_block_size=512,physical_block_size=512,zoned=true,zoned.zone_size=16M,zoned.zone_capacity=12583424")
fi
if [ -n "$SHARE" ]; then
	qemu+=(-fsdev "local,id=share,path=$(readlink -f "$SHARE"),security_model=none,readonly=on"
	       -device virtio-9p-pci,fsdev=share,mount_tag=share)
fi
if [ "$mode" = check ]; then
	qemu+=(-chardev "file,id=con,path=$run_dir/console.log" -serial chardev:con -monitor none)
else
	qemu+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$run_dir/console.log"
	       -serial chardev:con -mon chardev=con,mode=readline)
fi

if [ -n "$pass_dev" ]; then
	what="pass-through disk $pass_dev"
else
	what="$TRANSPORT ZBC disks [$disks] backed by $store"
fi
tb_log "plan: boot $kver under TCG ($VM_CPUS cpus, $VM_MEM MiB), $what, job '$mode'; limit ${VM_TIMEOUT}s; log $run_dir/console.log"

t0=$(date +%s)
# In the background (bash runs a trap only between foreground commands),
# unless a person is at the guest's console.
tail_pid=
if [ "$mode" = check ]; then
	timeout -k 30 "$VM_TIMEOUT" "${qemu[@]}" </dev/null >/dev/null 2>"$run_dir/qemu.err" &
	qemu_pid=$!
	tail -n +1 -s 0.5 -f --pid="$qemu_pid" "$run_dir/tap" &
	tail_pid=$!
	wait "$qemu_pid" && qrc=0 || qrc=$?
	wait "$tail_pid" || true
elif [ ! -t 0 ]; then
	timeout -k 30 "$VM_TIMEOUT" "${qemu[@]}" &
	qemu_pid=$!
	wait "$qemu_pid" && qrc=0 || qrc=$?
else
	timeout --foreground -k 30 "$VM_TIMEOUT" "${qemu[@]}" && qrc=0 || qrc=$?
fi
qemu_pid='' tail_pid=
elapsed=$(($(date +%s) - t0))

rc=$(tr -dc '0-9' <"$run_dir/exit_code")
if [ "$qrc" = 124 ]; then
	tb_log "guest run TIMED OUT after ${elapsed}s; console log: $run_dir/console.log"
	exit 124
elif [ -z "$rc" ]; then
	tb_log "guest CRASHED after ${elapsed}s (qemu rc $qrc, no exit status); console log: $run_dir/console.log"
	grep -E 'BUG|Oops|panic|WARNING|error' "$run_dir/console.log" | tail -n 20 >&2 || true
	exit 125
fi
[ -s "$run_dir/guest-error" ] && tb_log "guest: $(cat "$run_dir/guest-error")"
tb_log "guest job '$mode' exited $rc after ${elapsed}s; console log: $run_dir/console.log"
# The guest's whole kernel log (tests/run has checked each test's window:
# here what came before the first test and after the last one, the
# teardown included) and its taint at power-off.
from='' until=''
[ "$mode" = check ] && from='zonefs-test: end' until='zonefs-test: start'
if ! kmsg_check_file "$run_dir/kmsg.log" "$from" "$until" >"$run_dir/kmsg.bad"; then
	tb_log "the guest's kernel log ($run_dir/kmsg.log) shows:"
	sed 's/^/    /' "$run_dir/kmsg.bad" >&2
	[ "$rc" -ne 0 ] || rc=1
else
	rm -f "$run_dir/kmsg.bad"
fi
exit "$rc"
