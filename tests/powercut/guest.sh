#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the power-cut tests (tests/powercut/NNN), run as the CMD of
# "testbed/vm.sh boot" with zonefs mounted on /mnt and /results shared with
# the host (results/boot/).
#
#   guest.sh verify   for each file the writers use, one line to
#                     /results/pc-verify: "N size wp cond data", where data
#                     is zfs_io's verdict on reading the file up to its size;
#                     and /results/pc-verify-cnv: zfs_io's verdict on
#                     cnv/0 ("OK size", or "MISMATCH <first bad offset>")
#   guest.sh write    start the writers, then wait for the power cut:
#                     seq/0..3 append and fsync (zfs_fsyncw), seq/4..5
#                     append without fsync, cnv/0 takes buffered writes
#                     and fsync from offset 0 up (zfs_fsyncw buffered,
#                     /results/pc-cnv0); each logs to /results/pc-seqN
#                     line by line, so the host holds every line the guest
#                     wrote before it died; /results/pc-ready says they run
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
helpers=$here/../helpers/bin
dev=${ZBC_DEV:?}
nr_sync=4 nr_files=6 cnv_seed=11

# Start sector of the zone behind seq/N: the Nth sequential zone after zone 0.
seq_start() {
	"$helpers/zone_report" "$dev" | awk -v n="$1" \
		'NR > 1 && $4 != "conventional" { if (i++ == n) { print $1; exit } }'
}

verify() {
	local n start len cap wp cond size data
	: >/results/pc-verify
	for n in $(seq 0 $((nr_files - 1))); do
		start=$(seq_start "$n")
		read -r _ len wp _ cond cap < <("$helpers/zone_report" "$dev" "$start" 1)
		cap=${cap:-$len}
		if [ "$cond" = full ]; then
			wp=$((cap * 512))
		else
			wp=$(((wp - start) * 512))
		fi
		size=$(stat -c %s "/mnt/seq/$n")
		data=$("$helpers/zfs_io" read "/mnt/seq/$n" 0 "$size" seed=$((n + 1)) | tr ' ' _) || true
		echo "$n $size $wp $cond $data" >>/results/pc-verify
	done
	cat /results/pc-verify
	"$helpers/zfs_io" read /mnt/cnv/0 0 "$(stat -c %s /mnt/cnv/0)" seed="$cnv_seed" >/results/pc-verify-cnv || true
	cat /results/pc-verify-cnv
}

write() {
	local n mode
	for n in $(seq 0 $((nr_files - 1))); do
		mode=
		[ "$n" -ge "$nr_sync" ] && mode=nosync
		"$helpers/zfs_fsyncw" "/mnt/seq/$n" 600 16 $((n + 1)) $mode >"/results/pc-seq$n" 2>&1 &
	done
	"$helpers/zfs_fsyncw" /mnt/cnv/0 600 16 "$cnv_seed" buffered >/results/pc-cnv0 2>&1 &
	echo ready >/results/pc-ready
	wait
}

case "${1:-}" in
verify) verify ;;
write) write ;;
*) echo "usage: guest.sh verify|write" >&2; exit 2 ;;
esac
