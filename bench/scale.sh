# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # the state and helpers of bench/guest.sh
#
# The scale measures: mount, walk, memory and format at 75,000, 300,000
# and (BENCH_MILLION=1) 1,000,000 zones, and their profiles.
# Sourced by bench/guest.sh, whose helpers (rec, note, use, fs_mount,
# kmsg_mark, ...) and state ($tmp, $why, $out) it uses.

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
	_zonefs_umount
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
	perf report -q -i "$data" --stdio --children \
		--sort sym --percent-limit 0.05 -g none >"$tmp/path" 2>/dev/null || true
	{
		echo "# self time by symbol"
		sed '/^$/d' "$tmp/self" | sed -n '1,40p'
		echo "# time with callees (inclusive), by symbol"
		sed '/^$/d' "$tmp/incl" | sed -n '1,60p'
		echo "# self time by binary"
		sed '/^$/d' "$tmp/dso" | sed -n '1,12p'
		echo "# the file systems' and the I/O path's own functions, inclusive, down to 0.05%"
		grep -E '\[k\] (zonefs_|iomap_|blkdev_|aio_|io_submit|file_modified|file_update_time|file_remove_privs|__mark_inode_dirty|generic_update_time|inode_|mutex_|down_write|up_write|down_read|submit_bio|blk_mq_submit_bio|bio_iov_iter_get_pages|__bio_iov_iter_get_pages|iov_iter_get_pages|pin_user_pages|__queue_work|queue_work|try_to_wake_up|kmem_cache_alloc|bio_alloc|invalidate_inode_pages|filemap_write_and_wait|kiocb_|generic_write_checks)' "$tmp/path" | sed -n '1,60p' || true
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
