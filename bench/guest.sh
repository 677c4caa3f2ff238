#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's guest side: bench/guest.sh OUT. testbed/vm.sh bench runs
# it in the guest with the device map in /run/zonefs-testbed.env:
#
#   $ZBC_BIG  75,000 zones: mkzonefs against its floor (one zone report,
#             one device-wide reset, a superblock write), mount time against one full zone report,
#             kernel memory per zone, ls -l of seq/, stat of one file,
#             memory after the walk and after dropping caches, unmount
#             time; then (BENCH_PROFILE=1) perf profiles of the mount and
#             of the walk, ours and stock;
#   $ZBC_HUGE 300,000 zones of 16 MiB: the same without the format runs
#             and the profiles, the second scale point;
#   $ZBC_MILLION (BENCH_MILLION=1) 1,000,000 zones of 4 MiB: one format
#             against its floor and one run of the same, the third;
#   $ZBC_DEV  4 GiB: 1 MiB O_DIRECT writes and reads, buffered reads, 4 KiB
#             O_DIRECT appends with fsync, at QD 1 (psync) and QD 8 (libaio);
#   $ZNS_DEV  QEMU's ZNS namespace of the same geometry: the same rows;
#   then (BENCH_LSM=1) on $ZBC_DEV and on $ZNS_DEV: zonefs_lsm, an LSM-tree
#             store's zone pattern (writers, a log with fdatasync, random
#             readers, zone reclaim), with explicit zone opens.
#
# Each measure runs for our zonefs.ko, Debian's stock zonefs.ko and, where it
# applies, the raw device; the two modules are never loaded at once. Every
# sample becomes one line of OUT/samples.tsv (measure, target, run, value);
# a value that is not a number says why there is none ("fails: EIO",
# "n/a: ..."). bench/report.py turns the samples into the table.
#
# Parameters: results/bench.env, written by bench/run.sh, and for what it
# does not set the defaults of bench/defaults.sh. The measures are in
# bench/scale.sh, bench/throughput.sh and bench/lsm.sh; this file has
# their shared helpers and the order they run in.
set -euo pipefail

out=${1:?usage: guest.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

if [ -f "$top/results/bench.env" ]; then
	# shellcheck source=/dev/null
	. "$top/results/bench.env"
fi
# shellcheck source=bench/defaults.sh
. "$here/defaults.sh"
# The tests' environment (the device map in /run/zonefs-testbed.env) and
# helpers: kernel-log marks, unmount, which zonefs.ko is loaded (by build
# ID).
# shellcheck source=tests/lib/common.sh
. "$top/tests/lib/common.sh"
# The three sections of measures.
# shellcheck source=bench/scale.sh
. "$here/scale.sh"
# shellcheck source=bench/throughput.sh
. "$here/throughput.sh"
# shellcheck source=bench/lsm.sh
. "$here/lsm.sh"
: "${ZBC_HUGE:=}" "${ZNS_DEV:=}"	# absent from an older guest: their rows say so
: "${ZBC_MILLION:=}"		# only with BENCH_MILLION=1

ZONE_REPORT=$top/tests/helpers/bin/zone_report
ZONEFS_LSM=$top/tests/helpers/bin/zonefs_lsm
KVER=$(uname -r)
OURS_KO=/lib/modules/$KVER/updates/zonefs.ko
STOCK_KO=/lib/modules/$KVER/kernel/fs/zonefs/zonefs.ko
SAMPLES=$out/samples.tsv
NOTES=$out/notes.txt
tmp=$(mktemp -d)
why=
marker=

cleanup() {
	cd /
	mountpoint -q "$MNT" && umount "$MNT"
	[ -d /sys/module/zonefs ] && rmmod zonefs
	rm -rf "$tmp"
}
trap cleanup EXIT

log() {
	printf 'bench: [%4ds] %s\n' "$SECONDS" "$*"
}

now() {
	date +%s.%N
}

# elapsed T0: seconds since T0, 3 decimals.
elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}

# rec MEASURE TARGET RUN VALUE [COMMENT]
rec() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$SAMPLES"
	log "$1 $2 #$3: $4${5:+ ($5)}"
}

note() {
	echo "$*" >>"$NOTES"
}

# kmsg_mark, kmsg_since: the zonefs kernel lines since the last mark, by
# the tests' marks (tests/lib/common.sh), without their time stamps.
kmsg_mark() {
	marker=$(_kmsg_mark)
}

kmsg_since() {
	_kmsg_since "$marker" | sed 's/^\[[ 0-9.]*\] //' || true
}

# --- modules ---------------------------------------------------------------

mod_unload() {
	_zonefs_umount
	if [ -d /sys/module/zonefs ]; then
		rmmod zonefs
	fi
}

# use TARGET: make TARGET's module the loaded zonefs (raw: none). On
# failure, says why in $why. The loaded module must be the very file
# (build ID, tests/lib/module.sh), as in every test.
use() {
	why=
	mod_unload || { why="n/a: cannot unload zonefs"; return 1; }
	case "$1" in
	raw) return 0 ;;
	ours)
		[ -f "$OURS_KO" ] || { why="n/a: our zonefs.ko is not built"; return 1; }
		modprobe zonefs 2>"$tmp/mod.err" ||
			{ why="n/a: modprobe failed: $(head -n 1 "$tmp/mod.err")"; return 1; }
		[ "$(zonefs_loaded_id)" = "$(zonefs_file_id "$OURS_KO")" ] ||
			{ why="n/a: modprobe loaded another zonefs"; return 1; }
		;;
	stock)
		[ -f "$STOCK_KO" ] || { why="n/a: no $STOCK_KO"; return 1; }
		insmod "$STOCK_KO" 2>"$tmp/mod.err" ||
			{ why="n/a: insmod failed: $(head -n 1 "$tmp/mod.err")"; return 1; }
		[ "$(zonefs_loaded_id)" = "$(zonefs_file_id "$STOCK_KO")" ] ||
			{ why="n/a: insmod loaded another zonefs"; return 1; }
		;;
	esac
}

# fs_mount DEV [OPTIONS]: mount DEV on $MNT with the loaded zonefs, with
# mount -o OPTIONS if given; $why on failure.
fs_mount() {
	local opts=()
	[ -z "${2:-}" ] || opts=(-o "$2")
	if ! timeout 600 mount -t zonefs "${opts[@]}" "$1" "$MNT" 2>"$tmp/mount.err"; then
		why="fails: mount: $(head -n 1 "$tmp/mount.err")"
		return 1
	fi
}

# --- memory ----------------------------------------------------------------

shrink_slabs() {
	local f
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 2>/dev/null >"$f" || true
	done
}

# Evicted inodes and dentries are freed after an RCU grace period, and
# hundreds of thousands of them take a while: wait (up to 10 s) until the
# slab stops shrinking before the empty slabs are given back.
settle() {
	local a b
	sync
	echo 3 >/proc/sys/vm/drop_caches
	b=$(kmem_kb)
	for _ in $(seq 20); do
		sleep 0.5
		a=$b
		b=$(kmem_kb)
		[ "$((a - b))" -gt 64 ] || break
	done
	shrink_slabs
}

# Kernel memory in kB: slab (reclaimable and not), vmalloc and per-cpu.
kmem_kb() {
	awk '/^(Slab|VmallocUsed|Percpu):/ { s += $2 } END { print s }' /proc/meminfo
}

memfree_kb() {
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
}

# per_zone KB_BEFORE KB_AFTER ZONES: bytes per zone, 1 decimal.
per_zone() {
	awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.1f", (b - a) * 1024 / n }'
}

# timed WHAT CMD...: CMD, then how long WHAT took.
timed() {
	local what=$1 t0
	shift
	t0=$(now)
	"$@"
	log "$what took $(elapsed "$t0")s"
}

main() {
	local t0
	mkdir -p "$out"
	: >"$SAMPLES"
	: >"$NOTES"
	: >"$out/fio.log"
	: >"$out/lsm.log"
	{
		echo "guest_kernel=$KVER"
		echo "guest_kernel_version=$(cut -d' ' -f3 /proc/version) $(sed -n 's/.*Debian \([^ ]*\).*/\1/p' /proc/version)"
		echo "guest_cpus=$(nproc)"
		echo "guest_mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)"
		echo "zbc_dev=$(cat "/sys/block/${ZBC_DEV#/dev/}/queue/nr_zones") zones"
		echo "zbc_big=$(cat "/sys/block/${ZBC_BIG#/dev/}/queue/nr_zones") zones"
		[ -z "$ZBC_HUGE" ] || echo "zbc_huge=$(cat "/sys/block/${ZBC_HUGE#/dev/}/queue/nr_zones") zones"
		[ -z "$ZBC_MILLION" ] || echo "zbc_million=$(cat "/sys/block/${ZBC_MILLION#/dev/}/queue/nr_zones") zones"
		[ -z "$ZNS_DEV" ] || echo "zns_dev=$(cat "/sys/block/${ZNS_DEV#/dev/}/queue/nr_zones") zones"
		echo "reps=$BENCH_REPS"
		echo "mb=$BENCH_MB"
		echo "zns_mb=$BENCH_ZNS_MB"
		echo "append_mb=$BENCH_APPEND_MB"
		echo "zns_append_mb=$BENCH_ZNS_APPEND_MB"
		echo "lsm=$BENCH_LSM"
		echo "lsm_reps=$BENCH_LSM_REPS"
		echo "lsm_seconds=$BENCH_LSM_SECONDS"
	} >"$out/guest.env"
	log "plan: $BENCH_REPS runs each; scale on $ZBC_BIG and $ZBC_HUGE ($([ "$BENCH_SCALE" = 1 ] && echo on || echo off)), throughput on $ZBC_DEV and $ZNS_DEV ($BENCH_MB and $BENCH_ZNS_MB MiB, appends $BENCH_APPEND_MB and $BENCH_ZNS_APPEND_MB MiB); $([ "$BENCH_LSM" = 1 ] && echo "LSM-tree workload on both, $BENCH_LSM_REPS runs of ${BENCH_LSM_SECONDS}s" || echo "no LSM-tree workload"); ours $OURS_KO, stock $STOCK_KO"
	if [ "$BENCH_SCALE" = 1 ]; then
		t0=$(now)
		scale
		log "scale measures took $(elapsed "$t0")s"
	fi
	if [ "$BENCH_SCALE" = 1 ] && [ -n "$ZBC_HUGE" ]; then
		t0=$(now)
		huge
		log "300,000-zone measures took $(elapsed "$t0")s"
	fi
	[ -z "$ZBC_MILLION" ] || timed "1,000,000-zone measures" million
	timed "throughput measures (ZBC)" throughput "$ZBC_DEV" tp
	[ -z "$ZNS_DEV" ] || timed "throughput measures (ZNS)" throughput "$ZNS_DEV" zns
	if [ -n "$ZNS_DEV" ] && [ "$BENCH_PROFILE" = 1 ]; then
		timed "profiles of the ZNS 1 MiB QD8 write" profile_tp zns
		timed "block layer trace of the ZNS 1 MiB QD8 write" trace_tp zns
	fi
	if [ "$BENCH_LSM" = 1 ]; then
		timed "LSM measures (ZBC)" lsm "$ZBC_DEV" lsm
		[ -z "$ZNS_DEV" ] || timed "LSM measures (ZNS)" lsm "$ZNS_DEV" zlsm
	fi
}

main
