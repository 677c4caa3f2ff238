# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# File data, sizes and block sizes, sourced by tests/lib/common.sh: file
# data is written and checked with tests/helpers/bin/zfs_io.

# _zio ARGS...: run zfs_io, log the command and its one-line result, print
# the result.
_zio() {
	local out

	out=$("$HELPERS/zfs_io" "$@" 2>&1)
	echo "zfs_io $* -> $out" >>"${FULL:-/dev/null}"
	echo "$out"
}

# _expect_zio WHAT EXPECTED ARGS...: zfs_io ARGS must print EXPECTED.
_expect_zio() {
	local what=$1 exp=$2

	shift 2
	_expect_eq "$what" "$exp" "$(_zio "$@")"
}

# _wait_device: wait (up to 90 s) until $ZBC_DEV serves a direct read
# again, after its target went away and came back.
_wait_device() {
	for _ in $(seq 90); do
		dd if="$ZBC_DEV" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null &&
			return 0
		sleep 1
	done
	_fail "the device did not come back in 90 s"
}

# _size FILE: st_size.
_size() {
	stat -c %s "$1"
}

# _dev_bsize DEV: zonefs' block size on DEV, its physical block size.
_dev_bsize() {
	local b=
	read -r b <"/sys/block/${1##*/}/queue/physical_block_size" || [ -n "$b" ] || return 1
	echo "$b"
}
