#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the testbed guest once and run one job in it.
#
#   testbed/vm.sh boot      start the ZBC target, log in over iSCSI, format
#                           (if blank), mount zonefs on /mnt, run $CMD (or
#                           an interactive shell)
#   testbed/vm.sh check     ... run the guest test groups ($TESTS), TAP on stdout
#   testbed/vm.sh bench     ... run bench/guest.sh; results in results/bench/
#   testbed/vm.sh testbed   start a target guest that keeps serving the user
#                           disk on the host's 127.0.0.1:$TARGET_PORT, and
#                           return; boot TARGET=testbed logs in to it
#   testbed/vm.sh testbed-stop   stop that guest
#   testbed/vm.sh testbed-kill   kill that guest's QEMU at once (a test
#                           that is stopped itself has no time to wait)
#
# Environment: see testbed/config, plus CMD, TESTS, DISK (a host zoned block
# device to pass through instead of the iSCSI disk), SHARE (a host directory
# to mount read-only on /share), FORMAT=1 (reformat in boot mode), DISKSET
# (user or check: which set of backing files to use), RUN_NAME (the
# results directory under $RESULTS; default: the mode).
#
# By default one guest holds both the target and the initiator, talking
# over its own 127.0.0.1, and has no network device at all: with two cores,
# a second TCG guest for the target cut write throughput tenfold. The
# two-guest form (make testbed, then make boot TARGET=testbed) gives each
# guest a QEMU user network that reaches nothing but the other's iSCSI
# port, through the host's 127.0.0.1.
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
testbed | testbed-stop | testbed-kill | boot | check | bench) ;;
*) echo "usage: $0 testbed|testbed-stop|testbed-kill|boot|check|bench" >&2; exit 2 ;;
esac
tb_pidfile=$IMAGES_OUT/testbed.pid
tb_run=$RESULTS/testbed

# The running target guest's QEMU (a session leader), if any.
testbed_pid() {
	local pid
	pid=$(cat "$tb_pidfile" 2>/dev/null) || return 1
	kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# Ask the target guest to tear its target down and power off (it polls for
# results/testbed/stop), then check its kernel log as a test run's.
testbed_stop() {
	local pid t0 rc
	t0=$(date +%s)
	if ! pid=$(testbed_pid); then
		rm -f "$tb_pidfile"
		tb_log "no testbed guest is running"
		return 0
	fi
	tb_log "plan: stop the testbed guest (QEMU pid $pid): its target tears down, then it powers off; killed after 60 s"
	: >"$tb_run/stop"
	for _ in $(seq 240); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	if kill -0 "$pid" 2>/dev/null; then
		tb_log "the guest did not power off in 60 s: killing it"
		kill -KILL -- "-$pid" 2>/dev/null
	fi
	rm -f "$tb_pidfile"
	rc=$(tr -dc '0-9' <"$tb_run/exit_code")
	if ! kmsg_check_file "$tb_run/kmsg.log" '' '' >"$tb_run/kmsg.bad"; then
		tb_log "the target guest's kernel log ($tb_run/kmsg.log) shows:"
		sed 's/^/    /' "$tb_run/kmsg.bad" >&2
		rc=1
	else
		rm -f "$tb_run/kmsg.bad"
	fi
	tb_log "testbed stopped in $(($(date +%s) - t0)) s (guest exit ${rc:-none}); logs in $tb_run"
	[ "$rc" = 0 ]
}
if [ "$mode" = testbed-stop ]; then
	testbed_stop
	exit
fi
if [ "$mode" = testbed-kill ]; then
	if pid=$(testbed_pid); then
		kill -KILL -- "-$pid" "$pid" 2>/dev/null || true
	fi
	rm -f "$tb_pidfile"
	exit 0
fi

: "${CMD:=}" "${TESTS:=}" "${DISK:=}" "${SHARE:=}" "${FORMAT:=0}"
# shellcheck disable=SC2153 # TARGET comes from testbed/config
case "$TARGET" in
local) role=all ;;
testbed)
	[ "$mode" = boot ] || tb_die "TARGET=testbed is for make boot only; make $mode runs its own target"
	[ -z "$DISK" ] || tb_die "TARGET=testbed and DISK= exclude each other"
	[ "$TRANSPORT" = iscsi ] || tb_die "TARGET=testbed needs TRANSPORT=iscsi"
	if ! testbed_pid >/dev/null || [ ! -e "$tb_run/ready" ]; then
		tb_die "no testbed guest is serving: start one with 'make testbed'"
	fi
	role=initiator
	;;
*) tb_die "TARGET must be local or testbed, not '$TARGET'" ;;
esac
[ "$mode" = testbed ] && role=target
case "$ACCEL" in
# Under TCG a CPU model without AVX runs the guest faster: no AVX-512
# state to save at each context switch, SSE string functions in libc
# (docs/testbed.md has the measure).
tcg) accel=(-accel tcg,thread=multi -cpu Westmere) ;;
kvm)
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		tb_die "ACCEL=kvm needs a usable /dev/kvm (kvm_intel or kvm_amd loaded, VT-x/AMD-V on); ACCEL=tcg works anywhere"
	fi
	accel=(-accel kvm -cpu host)
	;;
*) tb_die "ACCEL must be tcg or kvm, not '$ACCEL'" ;;
esac
: "${DISKSET:=$(case "$mode" in check | bench) echo "$mode" ;; *) echo user ;; esac)}"
if [ "$mode" = testbed ] && pid=$(testbed_pid); then
	tb_die "a testbed guest is already serving (QEMU pid $pid): make testbed-stop ends it"
fi

# A drive passed through is checked first: a refusal is the one line
# printed, before any kernel or module is looked for or built.
pass_dev=
[ -z "$DISK" ] || pass_dev=$(tb_disk_policy "$DISK" "$FORMAT") || exit 1

kver=$(tb_kver) || tb_die "no Debian 6.1 kernel with headers in $STOCK_CACHE: run 'make deps'"
# The guest's kernel and modules are never in the host's /boot and
# /lib/modules: the stock one is Debian's package unpacked by make deps,
# the debug one images/mkkernel.sh's build (cached). The guest links the
# modules from the path given as tb_kmods=.
kernel=$(tb_stock_dir "$kver")/boot/vmlinuz-$kver
kmods=$(tb_stock_dir "$kver")/lib/modules/$kver
ko=$TOP/module/zonefs.ko
kargs=" tb_kmods=$kmods"
# KERNEL=debug: images/mkkernel.sh's debug kernel (built once, then cached)
# and our zonefs.ko built against it; KERNEL=kcsan: its KCSAN flavour.
# shellcheck disable=SC2153 # KERNEL comes from testbed/config
case "$KERNEL" in
stock) ;;
debug | kcsan)
	kdir=$(FLAVOUR=$KERNEL "$TOP/images/mkkernel.sh") || tb_die "no $KERNEL kernel: images/mkkernel.sh failed"
	kver=$(cat "$kdir/kver")
	kernel=$kdir/bzImage
	kmods=$kdir/modules/lib/modules/$kver
	ko=$IMAGES_OUT/kernel/module-${kdir##*/}/module/zonefs.ko
	kargs=" tb_kmods=$kmods kasan_multi_shot"
	;;
*) tb_die "KERNEL must be stock, debug or kcsan, not '$KERNEL'" ;;
esac
# Every guest checks its slab objects (slub_debug=FZ: sanity checks and
# red zones; SLUB_DEBUG=FZPU adds poisoning and the stack of each
# allocation and free, which made the mount group 1.4 times as long as FZ under
# TCG; the debug kernel's KASAN finds what those would), except the
# benchmark's: that costs a stack walk per allocation, and a file system
# that allocates at another moment than the other would pay it in other
# rows. The benchmark measures the kernel as users run it.
[ "$mode" = bench ] || [ -z "$SLUB_DEBUG" ] || kargs="$kargs slub_debug=$SLUB_DEBUG"
initrd=$IMAGES_OUT/initramfs-$kver.cpio.gz
# RUN_NAME names the job's results directory (make check's second guest
# is check-2); the default is the mode.
run_dir=$RESULTS/${RUN_NAME:-$mode}
qemu_pid=

# QEMU runs under timeout, which leads a process group of its own: stop
# the whole group, so that no QEMU is left holding the disk store.
cleanup() {
	[ -z "$qemu_pid" ] || stop_group "$qemu_pid" 5
	[ -z "${tail_pid:-}" ] || kill "$tail_pid" 2>/dev/null || true
	[ -z "${watch_pid:-}" ] || kill "$watch_pid" 2>/dev/null || true
	[ -z "${boot_watch_pid:-}" ] || kill "$boot_watch_pid" 2>/dev/null || true
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
# The bench set adds a 75,000-zone disk (4.6 TiB, sparse: about 5 MB used)
# and a 300,000-zone one of 16 MiB zones (4.6 TiB too); BENCH_MILLION=1 a
# 1,000,000-zone one of 4 MiB zones (3.8 TiB, 64 MB of zone records).
case "$DISKSET" in
user) disks="zbc_dev:0:$ZONE_MB:$CONV:$((SIZE_GB * 1024)):$LBA:$OPEN" ;;
check)
	IFS=: read -r g_zone g_conv g_size g_lba g_rest <<<"${GEOMETRY:-64:4:4096:4096}"
	for v in "$g_zone" "$g_conv" "$g_size" "$g_lba"; do
		[[ $v =~ ^[0-9]+$ ]] || tb_die "GEOMETRY must be ZONE_MB:CONV:SIZE_MB:LBA, not '$GEOMETRY'"
	done
	[ -z "$g_rest" ] || tb_die "GEOMETRY must be ZONE_MB:CONV:SIZE_MB:LBA, not '$GEOMETRY'"
	case "$g_lba" in 512 | 4096) ;; *) tb_die "GEOMETRY: the block size must be 512 or 4096, not $g_lba" ;; esac
	if [ "$g_zone" = 0 ] || [ $((g_zone & (g_zone - 1))) != 0 ]; then
		tb_die "GEOMETRY: the zone size must be a power of 2 MiB, not $g_zone"
	fi
	if [ $((g_size % g_zone)) != 0 ] || [ $((g_size / g_zone)) -lt $((g_conv + 8)) ]; then
		tb_die "GEOMETRY: SIZE_MB must be a multiple of the zone size, with at least 8 sequential zones"
	fi
	disks="zbc_dev:0:$g_zone:$g_conv:$g_size:$g_lba:8 zbc_dev_512:1:16:2:1024:512:8 zbc_dev_nocnv:2:16:0:1024:4096:8"
	;;
bench)
	disks="zbc_dev:0:64:4:4096:4096:8 zbc_big:1:64:4:$((75000 * 64)):4096:128 zbc_huge:2:16:4:$((300000 * 16)):4096:128"
	[ "${BENCH_MILLION:-0}" != 1 ] || disks+=" zbc_million:3:4:4:$((1000000 * 4)):4096:128"
	;;
*) tb_die "DISKSET must be user or check" ;;
esac
case "$LBA" in
512 | 4096) ;;
*) tb_die "LBA must be 512 or 4096, not '$LBA'" ;;
esac

# The LUNs of a serving testbed guest are its user disk set.
[ "$role" != initiator ] || disks=$(. "$tb_run/job.env" && echo "$TB_DISKS")
# The backing store: a disk of this guest's own unless it is a drive passed
# through or the disks are served by the testbed guest.
own_store=1
[ -z "$pass_dev" ] && [ "$role" != initiator ] || own_store=
if [ -n "$SHARE" ] && [ ! -d "$SHARE" ]; then
	tb_die "SHARE=$SHARE is not a directory"
fi
if [ "$mode" = boot ] && [ -z "$CMD" ] && [ ! -t 0 ]; then
	tb_die "make boot without CMD needs a terminal for its shell"
fi

# Guests started side by side (make check's) share the initramfs and the
# module indexes: one of them makes them, the others wait for it.
mkdir -p "$IMAGES_OUT"
exec 7>>"$IMAGES_OUT/prep.lock"
flock 7
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

flock -u 7
exec 7>&-

mkdir -p "$DISKS_DIR"
store=$DISKS_DIR/$DISKSET.img
if [ -n "$own_store" ] && [ ! -f "$store" ]; then
	tb_log "creating the backing store $store (sparse ext4, 64 GiB)"
	truncate -s 64G "$store.tmp.$$"
	mkfs.ext4 -q -F -L zbc-store -E lazy_itable_init=1,lazy_journal_init=1 "$store.tmp.$$"
	mv "$store.tmp.$$" "$store"
fi

# One guest at a time per disk set: QEMU would refuse the second anyway.
# A testbed guest inherits the lock, and holds it until it stops.
if [ -n "$own_store" ]; then
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
	printf 'GEOMETRY=%q\n' "${GEOMETRY:-}"
	printf 'TB_DURABLE=%q\n' "$DURABLE"
	printf 'TB_DISKS=%q\n' "$disks"
	printf 'TB_DISK=%q\n' "$([ -n "$pass_dev" ] && echo passthrough || echo zbc)"
	printf 'TB_SHARE=%q\n' "$([ -n "$SHARE" ] && echo 1)"
	printf 'FORMAT=%q\n' "$FORMAT"
	printf 'TB_DEBUG=%q\n' "$TB_DEBUG"
	printf 'STRESS=%q\n' "${STRESS:-0}"
	printf 'ZFSX_STRESS_SECONDS=%q\n' "$ZFSX_STRESS_SECONDS"
	printf 'ZFSX_RUN_OPS=%q\n' "$ZFSX_RUN_OPS"
	printf 'TB_ROLE=%q\n' "$role"
	# The user network's addresses: the target guest is always 10.0.2.15;
	# the initiator guest reaches it as 10.0.2.100, which QEMU forwards to
	# the host's 127.0.0.1:$TARGET_PORT.
	case "$role" in
	target) printf 'TB_PORTAL=%q\n' 10.0.2.15:3260 ;;
	initiator) printf 'TB_PORTAL=%q\n' 10.0.2.100:3260 ;;
	esac
	# D-Bus for targetcli where a person may use it.
	printf 'TB_DBUS=%q\n' "$(case "$mode" in boot | testbed) echo 1 ;; *) echo 0 ;; esac)"
} >"$run_dir/job.env"
: >"$run_dir/exit_code"
: >"$run_dir/tap"
: >"$run_dir/kmsg.log"

# The network: none, or in the two-guest form a QEMU user network that is
# restricted (no route out), with one port each way on the host's loopback.
case "$role" in
all) net=(-nic none) ;;
target) net=(-netdev "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$TARGET_PORT-:3260") ;;
initiator)
	command -v socat >/dev/null || tb_die "socat is missing: run 'make deps'"
	net=(-netdev "user,id=net0,restrict=on,guestfwd=tcp:10.0.2.100:3260-cmd:socat STDIO TCP:127.0.0.1:$TARGET_PORT")
	;;
esac
# No option ROM: iPXE would wait for a network boot.
[ "$role" = all ] || net+=(-device virtio-net-pci,netdev=net0,romfile=)
# The guest's init traces every command with tb_debug on its command line.
debug_arg=
if [ "$TB_DEBUG" = 1 ]; then
	debug_arg=" tb_debug"
fi
# acpi=noirq: the guest routes PCI interrupts by the BIOS's table instead
# of ACPI's interrupt links; under TCG, enabling each link took 5 s of
# every boot (one per PCI device: 25 s of a 66-s make boot).
# norandmaps: every process maps its libraries at the same addresses, so
# that TCG reuses the code it translated for the previous process instead
# of translating it again at each exec: 20 starts of `bash -c true` took
# 1.1 s instead of 3.8 s, the mount group 55 s instead of 101 s.
qemu=(qemu-system-x86_64 "${accel[@]}" -smp "$VM_CPUS" -m "$VM_MEM"
      -nodefaults -no-user-config -nographic -no-reboot "${net[@]}"
      -kernel "$kernel" -initrd "$initrd"
      -append "console=ttyS0 panic=-1 oops=panic loglevel=4 mitigations=off acpi=noirq norandmaps log_buf_len=16M tb_init=$here/guest/init.sh$debug_arg$kargs"
      -fsdev "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap"
      -device virtio-9p-pci,fsdev=rootfs,mount_tag=root
      -fsdev "local,id=results,path=$run_dir,security_model=none"
      -device virtio-9p-pci,fsdev=results,mount_tag=results
      -device virtio-serial-pci
      -device virtio-rng-pci
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
elif [ -n "$own_store" ]; then
	qemu+=(-drive "file=$store,format=raw,if=virtio,cache=unsafe,discard=unmap")
fi
# make check also gets a zoned NVMe namespace (QEMU's ZNS emulation): zone
# capacity below zone size, no conventional zones, open and active limits.
# A second one has 512 B blocks and a zone capacity that is no multiple of
# 4 KiB (12 MiB + 512 B), no limits. make bench's first namespace has the
# geometry of its ZBC throughput disk instead (4 GiB, 64 MiB zones, zone
# capacity = zone size, no limits), for the same rows on ZNS.
case "$DISKSET" in
check) zns_size=1G zns_zones=zoned.zone_size=16M,zoned.zone_capacity=12M,zoned.max_open=6,zoned.max_active=8 ;;
bench) zns_size=4G zns_zones=zoned.zone_size=64M ;;
*) zns_size= ;;
esac
if [ -n "$zns_size" ]; then
	zns=$DISKS_DIR/zns-$DISKSET.img
	[ -f "$zns" ] || truncate -s "$zns_size" "$zns"
	zns512=$DISKS_DIR/zns512.img
	[ -f "$zns512" ] || truncate -s 256M "$zns512"
	qemu+=(-drive "file=$zns,id=zns,format=raw,if=none,cache=unsafe"
	       -device nvme,serial=zonefs-zns,id=nvme0
	       -device "nvme-ns,drive=zns,bus=nvme0,nsid=1,logical_block_size=4096,physical_block_size=4096,zoned=true,$zns_zones"
	       -drive "file=$zns512,id=zns512,format=raw,if=none,cache=unsafe"
	       -device "nvme-ns,drive=zns512,bus=nvme0,nsid=2,logical_block_size=512,physical_block_size=512,zoned=true,zoned.zone_size=16M,zoned.zone_capacity=12583424")
fi
if [ -n "$SHARE" ]; then
	qemu+=(-fsdev "local,id=share,path=$(readlink -f "$SHARE"),security_model=none,readonly=on"
	       -device virtio-9p-pci,fsdev=share,mount_tag=share)
fi
if [ "$mode" = check ] || [ "$mode" = testbed ]; then
	qemu+=(-chardev "file,id=con,path=$run_dir/console.log" -serial chardev:con -monitor none)
else
	qemu+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$run_dir/console.log"
	       -serial chardev:con -mon chardev=con,mode=readline)
fi

if [ -n "$pass_dev" ]; then
	what="pass-through disk $pass_dev"
elif [ "$role" = initiator ]; then
	what="the testbed guest's ZBC disks [$disks] on 127.0.0.1:$TARGET_PORT"
else
	what="$TRANSPORT ZBC disks [$disks] backed by $store"
fi
tb_log "plan: boot $kver under ${ACCEL^^} ($VM_CPUS cpus, $VM_MEM MiB), $what, job '$mode'; limit ${VM_TIMEOUT}s; log $run_dir/console.log"

# tb_no_boot_again: after a boot that hung (tb_boot_watch wrote noboot
# and stopped QEMU): say so, and make ready for the second boot.
tb_no_boot_again() {
	wait "$qemu_pid" 2>/dev/null || true
	tb_log "the guest's kernel did not reach the testbed's init in ${BOOT_LIMIT}s (the console's last line: '$(cat "$run_dir/noboot")'); booting it again, once"
	echo "$(date -u +%FT%TZ) $mode: no init in ${BOOT_LIMIT}s: $(cat "$run_dir/noboot")" >>"$RESULTS/boot-retries"
	cp "$run_dir/console.log" "$run_dir/console-noboot.log" 2>/dev/null || true
	: >"$run_dir/exit_code"
	: >"$run_dir/tap"
	: >"$run_dir/kmsg.log"
}

# A kernel reaches the testbed's init in 2 to 40 s (the debug kernel);
# one that has not after BOOT_LIMIT s (testbed/config) hung while booting.
t0=$(date +%s)
# In the background (bash runs a trap only between foreground commands),
# unless a person is at the guest's console.
tail_pid=
watch_pid=
boot_watch_pid=
rm -f "$run_dir/lockup" "$run_dir/noboot"
if [ "$mode" = testbed ]; then
	# A session of its own, no time limit: it serves until testbed-stop.
	# It keeps the disk set's lock (fd 9) while it runs. A kernel that
	# hangs before its init is booted again, once (tb_boot_watch).
	for boot in 1 2; do
		rm -f "$run_dir/noboot"
		setsid "${qemu[@]}" </dev/null >/dev/null 2>"$run_dir/qemu.err" &
		qemu_pid=$!
		echo "$qemu_pid" >"$tb_pidfile"
		tb_boot_watch "$qemu_pid" "$run_dir" "$BOOT_LIMIT" &
		boot_watch_pid=$!
		until [ -e "$run_dir/ready" ] || ! kill -0 "$qemu_pid" 2>/dev/null; do
			sleep 0.5
			[ $(($(date +%s) - t0)) -lt 600 ] || break
		done
		kill "$boot_watch_pid" 2>/dev/null || true
		boot_watch_pid=
		if [ ! -e "$run_dir/noboot" ] || [ "$boot" = 2 ]; then
			break
		fi
		tb_no_boot_again
	done
	until [ -e "$run_dir/ready" ]; do
		if ! kill -0 "$qemu_pid" 2>/dev/null || [ $(($(date +%s) - t0)) -ge 600 ]; then
			tb_log "the target guest did not come up (qemu: $(head -c 300 "$run_dir/qemu.err")); console log: $run_dir/console.log"
			tail -n 20 "$run_dir/console.log" >&2
			rm -f "$tb_pidfile"
			exit 1
		fi
		sleep 0.5
	done
	qemu_pid=
	tr -d '\r' <"$run_dir/console.log" | grep -E '^(target |  LUN )' | sed 's/^/    /' >&2
	tb_log "testbed guest (QEMU pid $(cat "$tb_pidfile")) serving on 127.0.0.1:$TARGET_PORT after $(($(date +%s) - t0)) s;" \
		"make boot TARGET=testbed logs in to it, make testbed-stop ends it"
	exit 0
elif [ ! -t 0 ]; then
	# With nobody at the console: a kernel that hangs before its init is
	# booted again, once (tb_boot_watch); one that locks up later is
	# stopped (tb_lockup_watch).
	for boot in 1 2; do
		rm -f "$run_dir/noboot"
		if [ "$mode" = check ]; then
			timeout -k 30 "$VM_TIMEOUT" "${qemu[@]}" </dev/null >/dev/null 2>"$run_dir/qemu.err" &
			qemu_pid=$!
			tail -n +1 -s 0.5 -f --pid="$qemu_pid" "$run_dir/tap" &
			tail_pid=$!
		else
			timeout -k 30 "$VM_TIMEOUT" "${qemu[@]}" &
			qemu_pid=$!
		fi
		tb_lockup_watch "$qemu_pid" "$run_dir" "$LOCKUP_GRACE" &
		watch_pid=$!
		tb_boot_watch "$qemu_pid" "$run_dir" "$BOOT_LIMIT" &
		boot_watch_pid=$!
		wait "$qemu_pid" && qrc=0 || qrc=$?
		[ -z "$tail_pid" ] || wait "$tail_pid" || true
		kill "$watch_pid" "$boot_watch_pid" 2>/dev/null || true
		watch_pid='' boot_watch_pid='' tail_pid=''
		if [ ! -e "$run_dir/noboot" ] || [ "$boot" = 2 ]; then
			break
		fi
		tb_no_boot_again
	done
else
	timeout --foreground -k 30 "$VM_TIMEOUT" "${qemu[@]}" && qrc=0 || qrc=$?
fi
qemu_pid='' tail_pid='' watch_pid=''
elapsed=$(($(date +%s) - t0))
if [ -e "$run_dir/noboot" ]; then
	tb_log "guest did not boot, twice: its kernel did not reach the testbed's init in ${BOOT_LIMIT}s (the console's last line: '$(cat "$run_dir/noboot")'); console log: $run_dir/console.log"
	exit 125
fi

rc=$(tr -dc '0-9' <"$run_dir/exit_code")
if [ -s "$run_dir/lockup" ]; then
	tb_log "guest LOCKED UP, stopped after ${elapsed}s: the console says '$(cat "$run_dir/lockup")' and the job wrote nothing for ${LOCKUP_GRACE}s; console log: $run_dir/console.log"
	qrc=124
fi
if [ "$qrc" = 124 ]; then
	[ -s "$run_dir/lockup" ] || tb_log "guest run TIMED OUT after ${elapsed}s; console log: $run_dir/console.log"
	# Where it stopped: the last test marker, and what the kernel said
	# after it (a hung task, a stall, a lockup reports itself there).
	if [ -s "$run_dir/kmsg.log" ]; then
		tb_log "the end of the guest's kernel log ($run_dir/kmsg.log):"
		awk '/zonefs-test: (start|done) / { m = NR } { l[NR] = $0 }
			END { s = m ? m : 1; if (NR - s >= 40) s = NR - 39; for (i = s; i <= NR; i++) print "    " l[i] }' \
			"$run_dir/kmsg.log" >&2
	fi
	exit 124
elif [ -z "$rc" ]; then
	tb_log "guest CRASHED after ${elapsed}s (qemu rc $qrc, no exit status); console log: $run_dir/console.log"
	grep -E 'BUG|Oops|panic|WARNING|error' "$run_dir/console.log" | tail -n 20 >&2 || true
	exit 125
fi
[ -s "$run_dir/guest-error" ] && tb_log "guest: $(cat "$run_dir/guest-error")"
tb_log "guest job '$mode' exited $rc after ${elapsed}s; console log: $run_dir/console.log"
# The guest's whole kernel log (tests/run has checked each test's window,
# from the first test's start marker to the line that closed the last
# test that ran: here what came before and after, the teardown included)
# and its taint at power-off.
from='' until=''
[ "$mode" = check ] && from='zonefs-test: done ' until='zonefs-test: start '
if ! kmsg_check_file "$run_dir/kmsg.log" "$from" "$until" >"$run_dir/kmsg.bad"; then
	tb_log "the guest's kernel log ($run_dir/kmsg.log) shows:"
	sed 's/^/    /' "$run_dir/kmsg.bad" >&2
	[ "$rc" -ne 0 ] || rc=1
else
	rm -f "$run_dir/kmsg.bad"
fi
exit "$rc"
