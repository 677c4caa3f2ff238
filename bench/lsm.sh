# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # the state and helpers of bench/guest.sh
#
# The LSM-tree workload (bench/zonefs_lsm.c) on $ZBC_DEV and $ZNS_DEV.
# Sourced by bench/guest.sh, whose helpers (rec, note, use, fs_mount,
# kmsg_mark, ...) and state ($tmp, $why, $out) it uses.

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
	_zonefs_umount || note "$LP $t #$run: umount failed"
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
