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
# does not set the defaults of bench/defaults.sh.
set -euo pipefail

out=${1:?usage: guest.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

# shellcheck source=/dev/null
. /run/zonefs-testbed.env
if [ -f "$top/results/bench.env" ]; then
	# shellcheck source=/dev/null
	. "$top/results/bench.env"
fi
# shellcheck source=bench/defaults.sh
. "$here/defaults.sh"
# shellcheck source=tests/lib/module.sh
. "$top/tests/lib/module.sh"
: "${ZBC_HUGE:=}" "${ZNS_DEV:=}"	# absent from an older guest: their rows say so
: "${ZBC_MILLION:=}"		# only with BENCH_MILLION=1

MKZONEFS=$top/tools/mkzonefs
ZONE_REPORT=$top/tests/helpers/bin/zone_report
ZONEFS_LSM=$top/tests/helpers/bin/zonefs_lsm
KVER=$(uname -r)
OURS_KO=/lib/modules/$KVER/updates/zonefs.ko
STOCK_KO=/lib/modules/$KVER/kernel/fs/zonefs/zonefs.ko
MNT=/mnt
SAMPLES=$out/samples.tsv
NOTES=$out/notes.txt
tmp=$(mktemp -d)
why=
marker=0

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

# Kernel messages since the last kmsg_mark, zonefs lines only.
kmsg_mark() {
	marker=$((marker + 1))
	echo "zonefs-bench: mark $marker" >/dev/kmsg
}

kmsg_since() {
	dmesg | sed -n "/zonefs-bench: mark $marker\$/,\$p" | grep -i zonefs |
		grep -v 'zonefs-bench: mark' | sed 's/^\[[ 0-9.]*\] //' || true
}

# --- modules ---------------------------------------------------------------

unmount() {
	if mountpoint -q "$MNT"; then
		umount "$MNT"
	fi
}

mod_unload() {
	unmount
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

# --- scale: 75,000 zones ---------------------------------------------------

SCALE_MEASURES="mount mem_mount memfree_mount stat ls mem_walk mem_drop umount ready"
# The disk scale_run measures and the prefix of its measures: $ZBC_BIG
# and "scale", or $ZBC_HUGE and "huge".
SDEV=
SP=scale

scale_na() {
	local m
	for m in $SCALE_MEASURES; do
		rec "$SP.$m" "$1" "$2" "$3"
	done
}

scale_run() {
	local t=$1 run=$2 dev=$SDEV nz m0 m1 m2 m3 f0 f1 t0 dt n
	nz=$(cat "/sys/block/${dev#/dev/}/queue/nr_zones")
	use "$t" || { scale_na "$t" "$run" "$why"; return 0; }
	settle
	m0=$(kmem_kb)
	f0=$(memfree_kb)
	kmsg_mark
	t0=$(now)
	if ! fs_mount "$dev"; then
		scale_na "$t" "$run" "$why"
		note "$t scale mount: $(kmsg_since | head -n 3 | tr '\n' ' ')"
		return 0
	fi
	rec "$SP".mount "$t" "$run" "$(elapsed "$t0")"
	settle
	m1=$(kmem_kb)
	f1=$(memfree_kb)
	rec "$SP".mem_mount "$t" "$run" "$(per_zone "$m0" "$m1" "$nz")"
	rec "$SP".memfree_mount "$t" "$run" "$(per_zone "$f1" "$f0" "$nz")"

	# stat and ls themselves come over 9p: bring them in first, so that
	# what is cold is the file system's part only.
	stat / >/dev/null
	ls -l / >/dev/null
	t0=$(now)
	if stat "$MNT/seq/$((nz / 2))" >/dev/null 2>"$tmp/stat.err"; then
		rec "$SP".stat "$t" "$run" "$(awk -v s="$(elapsed "$t0")" 'BEGIN { printf "%.1f", s * 1000 }')"
	else
		rec "$SP".stat "$t" "$run" "fails: $(head -n 1 "$tmp/stat.err")"
	fi

	t0=$(now)
	# shellcheck disable=SC2012 # ls -l of every file is the measure
	n=$(ls -l "$MNT/seq" 2>/dev/null | wc -l) || true
	dt=$(elapsed "$t0")
	# ls -l prints a "total" line first.
	if [ "$((n - 1))" -ge "$((nz / 2))" ]; then
		rec "$SP".ls "$t" "$run" "$dt"
	else
		rec "$SP".ls "$t" "$run" "fails: listed $((n - 1)) files"
	fi
	sync
	shrink_slabs
	m2=$(kmem_kb)
	rec "$SP".mem_walk "$t" "$run" "$(per_zone "$m0" "$m2" "$nz")"
	settle
	m3=$(kmem_kb)
	rec "$SP".mem_drop "$t" "$run" "$(per_zone "$m0" "$m3" "$nz")"

	t0=$(now)
	if umount "$MNT"; then
		rec "$SP".umount "$t" "$run" "$(elapsed "$t0")"
	else
		rec "$SP".umount "$t" "$run" "fails: umount"
	fi

	# What a user waits for: the mount and the first walk as one span
	# from cold caches, as an LSM store stats its zone files right after
	# mounting.
	settle
	n=0
	t0=$(now)
	# shellcheck disable=SC2012 # ls -l of every file is the measure
	if ! fs_mount "$dev"; then
		rec "$SP".ready "$t" "$run" "$why"
	elif n=$(ls -l "$MNT/seq" 2>/dev/null | wc -l) && [ "$((n - 1))" -ge "$((nz / 2))" ]; then
		rec "$SP".ready "$t" "$run" "$(elapsed "$t0")"
	else
		rec "$SP".ready "$t" "$run" "fails: listed $((n - 1)) files"
	fi
	unmount
	mod_unload
}

# format_run RUN: the format of $SDEV, mkzonefs (ours) against what
# no format can do without (raw): one full zone report (a format must
# find the offline and read-only zones), one reset of the whole device, a
# 4 KiB superblock write at sector 0 (a conventional zone) and a flush.
# The raw pass goes first, so mkzonefs always leaves a formatted disk.
format_run() {
	local run=$1 dev=$SDEV t0
	mod_unload
	sync
	t0=$(now)
	if "$ZONE_REPORT" -c "$dev" >/dev/null 2>"$tmp/fmt.err" &&
	   blkzone reset "$dev" 2>>"$tmp/fmt.err" &&
	   dd if=/dev/zero of="$dev" bs=4096 count=1 oflag=direct conv=fsync status=none 2>>"$tmp/fmt.err"; then
		rec "$SP".format raw "$run" "$(elapsed "$t0")"
	else
		rec "$SP".format raw "$run" "fails: $(head -n 1 "$tmp/fmt.err")"
	fi
	t0=$(now)
	if timeout 1200 "$MKZONEFS" -f "$dev" >"$out/mkzonefs-$SP.log" 2>&1; then
		rec "$SP".format ours "$run" "$(elapsed "$t0")"
		return 0
	fi
	rec "$SP".format ours "$run" "fails: $(tail -n 1 "$out/mkzonefs-$SP.log")"
	return 1
}

# report_run RUN: one full zone report of $SDEV (zone_report -c: one
# BLKREPORTZONE for every zone), the floor of a mount.
report_run() {
	local run=$1 n t0
	settle
	t0=$(now)
	if n=$("$ZONE_REPORT" -c "$SDEV" 2>"$tmp/rep.err"); then
		rec "$SP.mount" raw "$run" "$(elapsed "$t0")" "$n zones"
	else
		rec "$SP.mount" raw "$run" "fails: $(head -n 1 "$tmp/rep.err")"
	fi
}

# perf_top DATA NAME: the top of perf report of DATA (self and inclusive
# time by symbol, self time by binary) to OUT/profile-NAME.txt.
perf_top() {
	local data=$1 name=$2
	[ -s "$data" ] || return 0
	# Each report whole to a file, then its top: head must not cut perf
	# off (SIGPIPE) under pipefail.
	perf report -q -i "$data" --stdio --no-children \
		--sort sym --percent-limit 0.5 -g none >"$tmp/self" 2>/dev/null || true
	perf report -q -i "$data" --stdio --children \
		--sort sym --percent-limit 2 -g none >"$tmp/incl" 2>/dev/null || true
	perf report -q -i "$data" --stdio --no-children \
		--sort dso -g none >"$tmp/dso" 2>/dev/null || true
	{
		echo "# self time by symbol"
		sed '/^$/d' "$tmp/self" | sed -n '1,40p'
		echo "# time with callees (inclusive), by symbol"
		sed '/^$/d' "$tmp/incl" | sed -n '1,60p'
		echo "# self time by binary"
		sed '/^$/d' "$tmp/dso" | sed -n '1,12p'
	} >"$out/profile-$name.txt"
	rm -f "$data"
}

# profile_mkzonefs: a perf profile of mkzonefs -f on the big disk, not
# timed, to OUT/profile-mkzonefs.txt; the disk stays formatted.
profile_mkzonefs() {
	mod_unload
	sync
	perf record -q -e cpu-clock -a -g -o "$tmp/perf-mkzonefs.data" -- \
		"$MKZONEFS" -f "$ZBC_BIG" >/dev/null 2>&1 ||
		{ note "profile mkzonefs: perf record of mkzonefs -f failed"; return 0; }
	perf_top "$tmp/perf-mkzonefs.data" mkzonefs
	log "profile mkzonefs: $out/profile-mkzonefs.txt"
}

# profile TARGET: perf profiles (cpu-clock, every CPU, call graphs) of a
# mount of the big disk and of ls -l seq/, not timed; the top of each
# report goes to OUT/profile-TARGET-{mount,ls}.txt.
profile() {
	local t=$1 what
	use "$t" || { note "profile $t: $why"; return 0; }
	settle
	perf record -q -e cpu-clock -a -g -o "$tmp/perf-mount.data" -- \
		mount -t zonefs "$ZBC_BIG" "$MNT" >/dev/null 2>&1 ||
		{ note "profile $t: perf record of the mount failed"; return 0; }
	mountpoint -q "$MNT" || { note "profile $t: not mounted"; return 0; }
	# shellcheck disable=SC2012 # ls -l of every file is the measure
	perf record -q -e cpu-clock -a -g -o "$tmp/perf-ls.data" -- \
		sh -c "ls -l '$MNT/seq' >/dev/null" >/dev/null 2>&1 ||
		note "profile $t: perf record of ls -l failed"
	for what in mount ls; do
		perf_top "$tmp/perf-$what.data" "$t-$what"
	done
	mod_unload
	log "profile $t: $out/profile-$t-mount.txt, $out/profile-$t-ls.txt"
}

# scale_runs N: N runs of the scale measures on $SDEV, each a full zone
# report, then ours, then stock.
scale_runs() {
	local run t t0
	# Bring the target's data area and the backing file's metadata in.
	"$ZONE_REPORT" "$SDEV" >/dev/null
	for run in $(seq "$1"); do
		report_run "$run"
		for t in ours stock; do
			t0=$(now)
			scale_run "$t" "$run"
			log "$SP $t #$run done in $(elapsed "$t0")s"
		done
	done
}

scale() {
	local run t nz
	SDEV=$ZBC_BIG SP=scale
	nz=$(cat "/sys/block/${ZBC_BIG#/dev/}/queue/nr_zones")
	log "scale: $ZBC_BIG, $nz zones: $BENCH_REPS formats (the floor: zone report, device-wide reset, superblock; then mkzonefs -f)"
	for run in $(seq "$BENCH_REPS"); do
		if ! format_run "$run"; then
			scale_na ours 1 "n/a: the disk could not be formatted"
			scale_na stock 1 "n/a: the disk could not be formatted"
			return 0
		fi
	done
	scale_runs "$BENCH_REPS"
	if [ "$BENCH_PROFILE" = 1 ] && command -v perf >/dev/null; then
		profile_mkzonefs
		for t in ours stock; do
			profile "$t"
		done
	fi
}

# The second scale point: 300,000 zones of 16 MiB, formatted once; up to
# three runs (its walks are four times as long).
huge() {
	local t0 nz reps=$((BENCH_REPS < 3 ? BENCH_REPS : 3))
	SDEV=$ZBC_HUGE SP=huge
	nz=$(cat "/sys/block/${ZBC_HUGE#/dev/}/queue/nr_zones")
	log "huge: $ZBC_HUGE, $nz zones: one mkzonefs -f, $reps runs"
	mod_unload
	t0=$(now)
	if ! timeout 1200 "$MKZONEFS" -f "$ZBC_HUGE" >"$out/mkzonefs-huge.log" 2>&1; then
		rec huge.format ours 1 "fails: $(tail -n 1 "$out/mkzonefs-huge.log")"
		scale_na ours 1 "n/a: the disk could not be formatted"
		scale_na stock 1 "n/a: the disk could not be formatted"
		return 0
	fi
	rec huge.format ours 1 "$(elapsed "$t0")"
	scale_runs "$reps"
}

# The third scale point (BENCH_MILLION=1): 1,000,000 zones of 4 MiB. One
# format against its floor, then one run of each module: the walks of a
# million files take minutes under TCG, and the stock module needs about
# 1 KB of kernel memory per zone, half the guest's memory.
million() {
	local nz
	SDEV=$ZBC_MILLION SP=million
	nz=$(cat "/sys/block/${ZBC_MILLION#/dev/}/queue/nr_zones")
	log "million: $ZBC_MILLION, $nz zones: the format floor, one mkzonefs -f, one run"
	if ! format_run 1; then
		scale_na ours 1 "n/a: the disk could not be formatted"
		scale_na stock 1 "n/a: the disk could not be formatted"
		return 0
	fi
	scale_runs 1
}

# --- throughput on $ZBC_DEV, then on $ZNS_DEV --------------------------------

# Geometry, set by tp_setup.
zsec=0		# zone length, 512 B sectors
nconv=0		# conventional zones
seq0=0		# the zone of seq/0: the first sequential zone after zone 0
nfiles=0	# sequential files (zones) one throughput run spans
files=		# fio --filename list for them
dev=

# sched DEV: the I/O scheduler in use on DEV.
sched() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/${1#/dev/}/queue/scheduler"
}

# tp_setup DEV: format DEV and set the geometry of its runs.
tp_setup() {
	local zmb
	dev=$1
	zsec=$("$ZONE_REPORT" "$dev" 0 1 | awk '{ print $2 }')
	nconv=$("$ZONE_REPORT" "$dev" | awk '$4 == "conventional" { n++ } END { print n + 0 }')
	# Zone 0 holds the superblock: with no conventional zone it is a
	# sequential one, and seq/0 is zone 1.
	seq0=$((nconv > 0 ? nconv : 1))
	zmb=$((zsec / 2048))
	# mq-deadline orders the writes queued to a zone for all three
	# targets. NVMe namespaces start with none on 6.1: raw fio only
	# gets away with it from one thread, and our module then sends a
	# file's writes one at a time.
	echo mq-deadline >"/sys/block/${dev#/dev/}/queue/scheduler"
	nfiles=$(((tp_mb + zmb - 1) / zmb))
	files=$(seq -s : -f "$MNT/seq/%g" 0 $((nfiles - 1)))
	mod_unload
	"$MKZONEFS" -f "$dev" >"$out/mkzonefs-dev.log" 2>&1
}

# reset_zones FIRST_SEQ_FILE COUNT: reset the zones behind seq/FIRST.. raw.
reset_zones() {
	blkzone reset -o $(((seq0 + $1) * zsec)) -c "$2" "$dev"
}

# fio_val JSON KIND BYTES: the figure of one fio run (MiB/s for read and
# write, write IOPS for iops), "fails: ENAME after N MiB" when fio reports
# an errno, "fails: short ..." when less than BYTES moved. fio 3.33's JSON
# has one key per line.
fio_val() {
	if [ ! -s "$1" ]; then
		echo "fails: fio wrote no result"
		return 0
	fi
	awk -v kind="$2" -v want="$3" '
		BEGIN {
			side = kind == "read" ? "read" : "write"
			split("1 EPERM 5 EIO 11 EAGAIN 16 EBUSY 22 EINVAL 27 EFBIG 28 ENOSPC 30 EROFS 95 EOPNOTSUPP", a, " ")
			for (i = 1; i < 19; i += 2)
				names[a[i]] = a[i + 1]
		}
		/^ *"[a-z_]+" : \{/ { cur = $1; gsub(/"/, "", cur) }
		/^ *"error" : / && err == "" { err = $3; sub(/,/, "", err) }
		cur == side && /^ *"io_bytes" : / && io == "" { io = $3; sub(/,/, "", io) }
		cur == side && /^ *"bw_bytes" : / && bw == "" { bw = $3; sub(/,/, "", bw) }
		cur == side && /^ *"iops" : / && iops == "" { iops = $3; sub(/,/, "", iops) }
		END {
			if (err == "") { print "fails: no fio result"; exit }
			if (err != 0) {
				printf "fails: %s after %d MiB\n", (err in names) ? names[err] : "errno " err, io / 1048576
				exit
			}
			if (io + 0 < want + 0) {
				printf "fails: short, %d of %d MiB\n", io / 1048576, want / 1048576
				exit
			}
			if (kind == "iops")
				printf "%.0f\n", iops
			else
				printf "%.1f\n", bw / 1048576
		}' "$1"
}

# cpu_busy: the guest's CPU time so far, every CPU, in ms (user, nice,
# system, irq and softirq of /proc/stat).
cpu_busy() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", ($2 + $3 + $4 + $7 + $8) * 1000 / hz; exit }' /proc/stat
}

# The measures whose guest CPU time is recorded too, as MEASURE_cpu: ms
# per MiB written for the 1 MiB writes, us per write for the appends.
CPU_MEASURES=" write_qd8 append_qd8 "

# run_fio MEASURE TARGET RUN KIND EXPECT_BYTES FIO_ARGS...: one fio run,
# recorded. KIND: read or write (MiB/s), or iops (writes per second).
# With PERF_DATA set, under perf record (every CPU, call graphs) into it.
run_fio() {
	local m=$1 t=$2 run=$3 kind=$4 bytes=$5 val msgs t0 c0 c1 perf=()
	shift 5
	[ -z "${PERF_DATA:-}" ] || perf=(perf record -q -e cpu-clock -a -g -o "$PERF_DATA" --)
	kmsg_mark
	t0=$(now)
	c0=$(cpu_busy)
	timeout 900 "${perf[@]}" fio --eta=never --output-format=json --output="$tmp/fio.json" \
		--name="$m" "$@" >"$tmp/fio.err" 2>&1 || true
	c1=$(cpu_busy)
	cat "$tmp/fio.err" >>"$out/fio.log"
	val=$(fio_val "$tmp/fio.json" "$kind" "$bytes")
	rec "$m" "$t" "$run" "$val" "fio ran $(elapsed "$t0") s"
	case "$CPU_MEASURES/$val" in
	*" ${m#*.} "*/fails:*) ;;
	*" ${m#*.} "*)
		# Per MiB, or per write of 4 KiB.
		rec "${m}_cpu" "$t" "$run" "$(awk -v c=$((c1 - c0)) -v b="$bytes" -v k="$kind" \
			'BEGIN { if (k == "iops") printf "%.1f\n", c * 1000 / (b / 4096); else printf "%.2f\n", c / (b / 1048576) }')"
		;;
	esac
	case "$val" in
	fails:*)
		msgs=$(kmsg_since | head -n 3)
		[ -n "$msgs" ] && note "$m $t #$run: $(echo "$msgs" | tr '\n' '|')"
		;;
	esac
	return 0
}

# The fio options of each kind of run; the caller adds target options.
big_write_qd1=(--rw=write --bs=1m --direct=1 --ioengine=psync --iodepth=1)
big_write_qd8=(--rw=write --bs=1m --direct=1 --ioengine=libaio --iodepth=8)
big_read_qd1=(--rw=read --bs=1m --direct=1 --ioengine=psync --iodepth=1)
big_read_qd8=(--rw=read --bs=1m --direct=1 --ioengine=libaio --iodepth=8)
big_read_buf=(--rw=read --bs=1m --direct=0 --ioengine=psync --iodepth=1 --invalidate=1)
app_qd1=(--rw=write --bs=4k --direct=1 --ioengine=psync --iodepth=1 --fsync=1)
app_qd8=(--rw=write --bs=4k --direct=1 --ioengine=libaio --iodepth=8 --fsync=8)

# zones_hold DEV FIRST_SEQ_FILE COUNT BYTES: the zones behind seq/FIRST..
# hold BYTES of data between them.
zones_hold() {
	local have
	have=$("$ZONE_REPORT" "$dev" $(((seq0 + $1) * zsec)) "$2" |
		awk '{ s += $3 - $1 } END { print s * 512 }')
	[ "$have" -ge "$3" ]
}

# fill FIRST COUNT BYTES: write the zones of seq/FIRST.. raw (not
# measured), so that every target reads the same data.
fill() {
	mod_unload
	reset_zones "$1" "$2"
	# fio's zbd mode rounds --size down to whole zones.
	fio --eta=never --output="$tmp/fill.out" --name=fill --filename="$dev" \
		--zonemode=zbd --offset=$(((seq0 + $1) * zsec * 512)) \
		--size=$(($2 * zsec * 512)) --io_size="$3" \
		"${big_write_qd8[@]}" >/dev/null 2>&1 ||
		log "fill failed: $(tail -n 3 "$tmp/fill.out")"
}

# prepare TARGET FIRST COUNT KEEP: load TARGET's module (none for raw);
# KEEP=0 resets the zones of seq/FIRST.. first; then mount. $why on failure.
prepare() {
	use "$1" || return 1
	[ "$4" = 1 ] || reset_zones "$2" "$3"
	[ "$1" = raw ] || fs_mount "$dev"
}

# tp_one MEASURE TARGET RUN: one throughput sample.
tp_one() {
	local m=$1 t=$2 run=$3 bytes abytes off aoff opts=() where=() kind=write
	bytes=$((tp_mb << 20))
	abytes=$((ap_mb << 20))
	off=$((seq0 * zsec * 512))
	aoff=$(((seq0 + nfiles) * zsec * 512))
	case "${m#*.}" in
	write_qd1) opts=("${big_write_qd1[@]}") ;;
	write_qd8) opts=("${big_write_qd8[@]}") ;;
	read_qd1) opts=("${big_read_qd1[@]}"); kind="read" ;;
	read_qd8) opts=("${big_read_qd8[@]}"); kind="read" ;;
	read_buf) opts=("${big_read_buf[@]}"); kind="read" ;;
	append_qd1) opts=("${app_qd1[@]}"); kind="iops" ;;
	append_qd8) opts=("${app_qd8[@]}"); kind="iops" ;;
	esac
	case "${m#*.}/$t" in
	append*/raw)
		# fio's zbd mode rounds --size down to whole zones.
		where=(--filename="$dev" --zonemode=zbd --offset="$aoff"
		       --size=$((zsec * 512)) --io_size="$abytes") ;;
	*/raw)
		where=(--filename="$dev" --zonemode=zbd --offset="$off" --size="$bytes") ;;
	append*)
		where=(--filename="$MNT/seq/$nfiles" --size="$abytes"
		       --create_on_open=1 --fallocate=none) ;;
	*)
		where=(--filename="$files" --file_service_type=sequential
		       --size="$bytes" --create_on_open=1 --fallocate=none) ;;
	esac
	case "${m#*.}" in
	read*)
		zones_hold 0 "$nfiles" "$bytes" || fill 0 "$nfiles" "$bytes"
		prepare "$t" 0 "$nfiles" 1 ;;
	append*)
		prepare "$t" "$nfiles" 1 0 ;;
	*)
		prepare "$t" 0 "$nfiles" 0 ;;
	esac || { rec "$m" "$t" "$run" "$why"; return 0; }
	# A module that failed a write may have left the file system
	# read-only: every sample starts from a fresh mount.
	run_fio "$m" "$t" "$run" "$kind" "$([ "$kind" = iops ] && echo "$abytes" || echo "$bytes")" \
		"${opts[@]}" "${where[@]}"
	unmount
}

# run_order RUN: the three targets in the order of run RUN, turning from
# run to run, so that a slow patch on a shared host hits all three.
run_order() {
	case $(($1 % 3)) in
	1) echo "raw ours stock" ;;
	2) echo "ours stock raw" ;;
	0) echo "stock raw ours" ;;
	esac
}

TP_MEASURES="read_qd1 read_qd8 read_buf write_qd1 write_qd8 append_qd1 append_qd8"

# throughput DEV PREFIX: every measure (PREFIX.read_qd1, ...) runs for the
# three targets back to back, the order turning from run to run, so that a
# slow patch on a shared host hits all three.
throughput() {
	local pfx=$2 run m t order t0
	tp_mb=$BENCH_MB ap_mb=$BENCH_APPEND_MB
	[ "$pfx" != zns ] || tp_mb=$BENCH_ZNS_MB ap_mb=$BENCH_ZNS_APPEND_MB
	tp_setup "$1"
	log "throughput: $dev, $((zsec / 2048)) MiB zones, $nconv conventional, scheduler $(sched "$dev"); $tp_mb MiB per run over seq/0..$((nfiles - 1)), appends $ap_mb MiB in seq/$nfiles"
	# One unmeasured pass, so that every measured run overwrites blocks
	# the backing file already holds.
	fill 0 "$nfiles" $((tp_mb << 20))
	fill "$nfiles" 1 $((ap_mb << 20))
	for run in $(seq "$BENCH_REPS"); do
		order=$(run_order "$run")
		t0=$(now)
		for m in $TP_MEASURES; do
			for t in $order; do
				tp_one "$pfx.$m" "$t" "$run"
			done
		done
		mod_unload
		log "throughput ($pfx) run $run done in $(elapsed "$t0")s"
	done
}

# profile_tp PREFIX: after throughput PREFIX (its disk and files), a perf
# profile (cpu-clock, every CPU, call graphs) of one 1 MiB QD8 write run
# of each target, not recorded as a sample, to
# OUT/profile-PREFIX-write_qd8-TARGET.txt.
profile_tp() {
	local t
	for t in ours stock raw; do
		PERF_DATA=$tmp/perf-tp.data tp_one "profile.write_qd8" "$t" 1
		perf_top "$tmp/perf-tp.data" "$1-write_qd8-$t"
	done
	mod_unload
	log "profiles of the $1 1 MiB QD8 write: $out/profile-$1-write_qd8-{ours,stock,raw}.txt"
}

# --- the LSM-tree workload on $ZBC_DEV, then on $ZNS_DEV ---------------------

# zonefs_lsm (bench/zonefs_lsm.c): writers filling zones with 64 KiB-1 MiB
# direct writes, a log of 4 KiB appends with an fdatasync every 4, readers
# of 4 KiB at random in the full zones, the oldest full zones reset and
# reused; the same pattern on the files of an explicit-open mount and on
# the raw device (BLKOPENZONE, BLKRESETZONE). It resets every zone it uses
# that is not empty itself, before its prefill and its timer (ours and
# stock by truncating the file to 0, raw with BLKRESETZONE), and it skips
# zone 0 on the raw device as zonefs does: the section resets nothing
# itself (reset_zones would only do the same work twice).
LSM_MEASURES="write fsync_p50 fsync_p99 read_p50 read_p99"
LP=lsm		# the prefix of the measures: lsm (ZBC) or zlsm (ZNS)
lsm_opts=()	# --max-open (and --writers when the device asks for fewer)

lsm_na() {
	local m
	for m in $LSM_MEASURES; do
		rec "$LP.$m" "$1" "$2" "$3"
	done
}

# lsm_get KEY [DIV]: KEY's value on zonefs_lsm's line, divided by DIV
# (microseconds to ms), "n/a: no sample" for "na".
lsm_get() {
	awk -v k="$1" -v d="${2:-1}" '
		{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) v = substr($i, length(k) + 2) }
		END {
			if (v == "") print "fails: no " k " on its line"
			else if (v == "na") print "n/a: no sample"
			else if (d == 1) print v
			else printf "%.3f\n", v / d
		}' "$tmp/lsm.out"
}

# lsm_one TARGET RUN: one zonefs_lsm run, its five samples recorded.
lsm_one() {
	local t=$1 run=$2 rc t0 lim args=() msgs
	use "$t" || { lsm_na "$t" "$run" "$why"; return 0; }
	if [ "$t" = raw ]; then
		args=(--raw "$dev" --explicit-open)
	else
		fs_mount "$dev" explicit-open || { lsm_na "$t" "$run" "$why"; return 0; }
		args=(--fs "$MNT")
	fi
	args+=(--seconds "$BENCH_LSM_SECONDS" --seed "$run" "${lsm_opts[@]}")
	lim=$((BENCH_LSM_SECONDS + 300))
	kmsg_mark
	t0=$(now)
	timeout -k 10 "$lim" "$ZONEFS_LSM" "${args[@]}" >"$tmp/lsm.out" 2>"$tmp/lsm.err" &&
		rc=0 || rc=$?
	{
		echo "# $LP $t #$run: zonefs_lsm ${args[*]}: exit status $rc after $(elapsed "$t0") s"
		cat "$tmp/lsm.out" "$tmp/lsm.err"
	} >>"$out/lsm.log"
	if [ "$rc" = 0 ]; then
		rec "$LP.write" "$t" "$run" "$(lsm_get write_MiBps)" "$(elapsed "$t0") s with the setup"
		rec "$LP.fsync_p50" "$t" "$run" "$(lsm_get log_fsync_us_p50 1000)"
		rec "$LP.fsync_p99" "$t" "$run" "$(lsm_get log_fsync_us_p99 1000)"
		rec "$LP.read_p50" "$t" "$run" "$(lsm_get read_us_p50 1000)"
		rec "$LP.read_p99" "$t" "$run" "$(lsm_get read_us_p99 1000)"
	else
		# "zonefs_lsm: /mnt/seq/0: write of 1048576 bytes at 0: Input/output
		# error" becomes "fails: write: Input/output error": the same
		# failure reads the same in every run.
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			why="fails: timed out after $lim s"
		elif [ -s "$tmp/lsm.err" ]; then
			why="fails: $(head -n 1 "$tmp/lsm.err" | sed -E 's/^zonefs_lsm: //
				s#^/[^ :]*: (zone at sector [0-9]+: )?##
				s/ of [0-9]+ bytes at [0-9]+//')"
		else
			why="fails: exit status $rc"
		fi
		lsm_na "$t" "$run" "$why"
		msgs=$(kmsg_since | head -n 3)
		[ -n "$msgs" ] && note "$LP $t #$run: $(echo "$msgs" | tr '\n' '|')"
	fi
	unmount || note "$LP $t #$run: umount failed"
}

# lsm DEV PREFIX: BENCH_LSM_REPS runs of zonefs_lsm for the three targets,
# the order turning from run to run as in throughput; the same seed for
# the three in a run.
lsm() {
	local run t order t0 lim act w=4
	LP=$2
	tp_setup "$1"
	# At most writers + 1 (the log) zones are written at once, each
	# opened explicitly: that must fit the device's limits (0: none).
	lim=$(cat "/sys/block/${dev#/dev/}/queue/max_open_zones")
	act=$(cat "/sys/block/${dev#/dev/}/queue/max_active_zones" 2>/dev/null || echo 0)
	if [ "$act" -gt 0 ] && { [ "$lim" = 0 ] || [ "$act" -lt "$lim" ]; }; then
		lim=$act
	fi
	if [ "$lim" -gt 0 ] && [ "$lim" -lt $((w + 1)) ]; then
		w=$((lim - 1))
		note "$LP: $dev opens at most $lim zones: $w writers instead of 4 (the log takes one more)"
	fi
	lsm_opts=(--max-open $((w + 1)))
	[ "$w" = 4 ] || lsm_opts+=(--writers "$w")
	log "$LP: $dev, $((zsec / 2048)) MiB zones, open limit $([ "$lim" = 0 ] && echo none || echo "$lim"), scheduler $(sched "$dev"); $BENCH_LSM_REPS runs of zonefs_lsm for ${BENCH_LSM_SECONDS}s, $w writers, 2 readers, max open $((w + 1)), explicit open"
	if [ ! -x "$ZONEFS_LSM" ]; then
		for t in ours stock raw; do
			lsm_na "$t" 1 "n/a: $ZONEFS_LSM is not built"
		done
		return 0
	fi
	if [ "$w" -lt 1 ]; then
		for t in ours stock raw; do
			lsm_na "$t" 1 "n/a: $dev opens at most $lim zones"
		done
		return 0
	fi
	for run in $(seq "$BENCH_LSM_REPS"); do
		order=$(run_order "$run")
		t0=$(now)
		for t in $order; do
			lsm_one "$t" "$run"
		done
		mod_unload || note "$LP #$run: zonefs could not be unloaded"
		log "$LP run $run done in $(elapsed "$t0")s"
	done
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
	fi
	if [ "$BENCH_LSM" = 1 ]; then
		timed "LSM measures (ZBC)" lsm "$ZBC_DEV" lsm
		[ -z "$ZNS_DEV" ] || timed "LSM measures (ZNS)" lsm "$ZNS_DEV" zlsm
	fi
}

main
