# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # the state and helpers of bench/guest.sh
#
# The throughput measures on $ZBC_DEV and $ZNS_DEV: 1 MiB O_DIRECT writes
# and reads, buffered reads and 4 KiB appends with fsync at QD 1 and 8,
# with fio, and the profile of the ZNS 1 MiB QD8 write.
# Sourced by bench/guest.sh, whose helpers (rec, note, use, fs_mount,
# kmsg_mark, ...) and state ($tmp, $why, $out) it uses.

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
	_zonefs_umount
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

# trace_stats DEVNUM: from an ftrace log of block_rq_issue and
# block_rq_complete on stdin, the device DEVNUM's (MAJ,MIN) requests:
# count, mean size, the device's time per request (issue to completion),
# the mean number of requests at the device, the share of the time it
# had none, and the gap from a completion that left it idle to the next
# issue (mean and median).
trace_stats() {
	awk -v dev="$1" -v gapfile="$tmp/gaps" '
		$0 !~ " " dev " " { next }
		/block_rq_issue:/ || /block_rq_complete:/ {
			t = -1
			for (i = 2; i <= NF; i++)
				if ($i ~ /^block_rq_(issue|complete):$/)
					t = $(i - 1) + 0
			for (i = 1; i <= NF; i++)
				if ($i == "+")
					break
			if (t < 0 || i > NF)
				next
			key = $(i - 1)
			if (first == "")
				first = t
			else
				area += inflight * (t - last)
			if (inflight == 0 && last != "")
				idle += t - last
			last = t
			if (/block_rq_issue:/) {
				if (inflight == 0 && done != "") {
					print (t - done) * 1e6 >gapfile
					g += t - done
					ng++
				}
				issued[key] = t
				inflight++
				nreq++
				sectors += $(i + 1)
			} else if (key in issued) {
				svc += t - issued[key]
				nsvc++
				delete issued[key]
				inflight--
				done = t
			}
		}
		END {
			close(gapfile)
			if (!nreq || !nsvc || last <= first) {
				print "no requests traced"
				exit
			}
			span = last - first
			printf "%d requests of %.0f KiB on average in %.3f s; at the device %.0f us each, %.2f requests at once on average, none %.0f%% of the time; from a completion that left it idle to the next issue %.0f us on average",
				nreq, sectors / nreq / 2, span, svc / nsvc * 1e6,
				area / span, idle / span * 100, ng ? g / ng * 1e6 : 0
		}'
	if [ -s "$tmp/gaps" ]; then
		sort -n "$tmp/gaps" | awk '{ v[NR] = $1 } END { printf ", median %.0f us (%d gaps)", v[int((NR + 1) / 2)], NR }'
	fi
	echo
	rm -f "$tmp/gaps"
}

# trace_tp PREFIX: after throughput PREFIX, one 1 MiB QD8 write run of
# each target with the block layer's request events traced on its disk
# (not recorded as a sample): what the device saw, to
# OUT/trace-PREFIX-write_qd8.txt.
trace_tp() {
	local t tr=/sys/kernel/tracing devnum e clock file=$out/trace-$1-write_qd8.txt
	if [ ! -w "$tr/trace" ]; then
		log "no $tr: the block layer trace is left out"
		return 0
	fi
	devnum=$(tr ':' ',' <"/sys/block/${dev#/dev/}/dev")
	echo "the block layer under one 1 MiB QD8 write run of $((tp_mb)) MiB on $dev (block_rq_issue, block_rq_complete)" >"$file"
	echo 8192 >"$tr/buffer_size_kb"
	# One clock for every CPU: the issue and the completion of a request
	# are often stamped on different vCPUs.
	clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$tr/trace_clock")
	echo global >"$tr/trace_clock"
	for t in ours stock raw; do
		: >"$tr/trace"
		for e in block_rq_issue block_rq_complete; do
			echo 1 >"$tr/events/block/$e/enable"
		done
		tp_one "trace.write_qd8" "$t" 1
		for e in block_rq_issue block_rq_complete; do
			echo 0 >"$tr/events/block/$e/enable"
		done
		echo "$t: $(trace_stats "$devnum" <"$tr/trace")" >>"$file"
	done
	: >"$tr/trace"
	echo "${clock:-local}" >"$tr/trace_clock"
	echo 1408 >"$tr/buffer_size_kb"
	mod_unload
	log "block layer trace of the $1 1 MiB QD8 write: $file"
	sed 's/^/  /' "$file"
}
