# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by tests/run before each test. Gives the test its environment and
# the helpers every test shares.
#
#   $TOP       the repository (read-only in the guest)
#   $MKZONEFS  tools/mkzonefs
#   $HELPERS   tests/helpers/bin, the small C programs tests use for I/O
#   $ZBC_ZONE  tests/helpers/bin/zbc_zone, the fault injector: a zone's
#              condition and write pointer in a ZBC disk's backing file
#   $MNT       where zonefs is mounted (/mnt)
#   $ZBC_DEV, $ZBC_DEV_512, $ZBC_DEV_NOCNV   the guest's ZBC disks (guest only)
#   $FULL      this test's verbose log (results/<group>/NNN.full)

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
MKZONEFS=$TOP/tools/mkzonefs
HELPERS=$TOP/tests/helpers/bin
# shellcheck disable=SC2034 # for the tests
ZBC_ZONE=$HELPERS/zbc_zone
MNT=${MNT:-/mnt}
SKIP_REASONS=()

# shellcheck source=tests/lib/module.sh
. "$TOP/tests/lib/module.sh"
# shellcheck source=tests/lib/kmsg.sh
. "$TOP/tests/lib/kmsg.sh"
# shellcheck source=tests/lib/devices.sh
. "$TOP/tests/lib/devices.sh"
# shellcheck source=tests/lib/zones.sh
. "$TOP/tests/lib/zones.sh"
# shellcheck source=tests/lib/files.sh
. "$TOP/tests/lib/files.sh"

if [ -r /run/zonefs-testbed.env ]; then
	set -a
	# shellcheck source=/dev/null
	. /run/zonefs-testbed.env
	set +a
fi

# Print why the test failed and return 1: cond || _fail "why" || return 1
_fail() {
	echo "FAIL: $*" >&2
	return 1
}

_in_guest() {
	[ -r /run/zonefs-testbed.env ]
}

_have_program() {
	local p=$1
	case "$p" in
	mkzonefs) [ -x "$MKZONEFS" ] || SKIP_REASONS+=("tools/mkzonefs is not built") ;;
	*) command -v "$p" >/dev/null || SKIP_REASONS+=("$p is not installed") ;;
	esac
}

_have_helper() {
	[ -x "$HELPERS/$1" ] || SKIP_REASONS+=("helper $1 is not built")
}

# _have_dev VAR: the guest has the disk named by VAR (ZBC_DEV, ...).
_have_dev() {
	if ! _in_guest; then
		SKIP_REASONS+=("needs the testbed guest")
	elif [ ! -b "${!1:-}" ]; then
		SKIP_REASONS+=("no $1 disk in this testbed")
	fi
}

# _have_conv_zones N: $ZBC_DEV has at least N conventional zones, zone 0
# (the superblock's) included. make check's disk has 4; another geometry
# (make check GEOMETRY=...) may have fewer, and then the tests that need
# conventional files there are listed skips (tests/skips).
_have_conv_zones() {
	local n

	_in_guest && [ -b "${ZBC_DEV:-}" ] || return 0
	n=$("$HELPERS/zone_report" "$ZBC_DEV" 2>/dev/null | grep -c ' conventional ')
	[ "$n" -ge "$1" ] ||
		SKIP_REASONS+=("needs $1 conventional zones on ZBC_DEV, which has $n")
}

# _have_module: our zonefs.ko is installed in the guest, and the zonefs
# loaded now, if any, is ours (by build ID and srcversion, not by path).
_have_module() {
	local cur krel
	if ! _in_guest; then
		SKIP_REASONS+=("needs the testbed guest")
	elif read -r krel </proc/sys/kernel/osrelease &&
		[ "$(modinfo -n zonefs 2>/dev/null)" != "/lib/modules/$krel/updates/zonefs.ko" ] ||
		! ZONEFS_OURS_ID=${ZONEFS_OURS_ID:-$(zonefs_ours_id)}; then
		SKIP_REASONS+=("our zonefs.ko is not installed")
	elif cur=$(zonefs_loaded_id) && [ "$cur" != "$ZONEFS_OURS_ID" ]; then
		SKIP_REASONS+=("the loaded zonefs is not ours ($cur)")
	fi
}

# _zonefs_is_ours: fail unless the loaded zonefs is ours. A test that
# mounts Debian's stock module on purpose sets ZONEFS_STOCK=1 while it does.
_zonefs_is_ours() {
	local cur
	_in_guest || return 0
	[ "${ZONEFS_STOCK:-0}" = 1 ] && return 0
	cur=$(zonefs_loaded_id) || _fail "no zonefs module is loaded" || return 1
	ZONEFS_OURS_ID=${ZONEFS_OURS_ID:-$(zonefs_ours_id)}
	[ "$cur" = "$ZONEFS_OURS_ID" ] ||
		_fail "the loaded zonefs is not ours: $cur (ours: ${ZONEFS_OURS_ID:-not installed})"
}

# Format DEV with our mkzonefs, forcing over what it holds.
_zonefs_format() {
	local dev=$1
	shift
	"$MKZONEFS" -f "$@" "$dev" >>"${FULL:-/dev/null}" 2>&1 || _fail "mkzonefs $* $dev failed"
}

# _zonefs_mount DEV [mount options]
_zonefs_mount() {
	local dev=$1 opts=${2:-}
	mount -t zonefs ${opts:+-o "$opts"} "$dev" "$MNT" || _fail "mount -t zonefs ${opts:+-o $opts }$dev failed" || return 1
	_zonefs_is_ours
}

_zonefs_umount() {
	if mountpoint -q "$MNT"; then
		umount "$MNT" || _fail "umount $MNT failed"
	fi
}

# _kmsg_mark: log a marker line in the kernel log and print it.
_kmsg_mark() {
	local m="zonefs-test-$RANDOM-$SECONDS"
	echo "$m" >/dev/kmsg
	echo "$m"
}

# _kmsg_since MARK [all]: zonefs kernel lines (every line, with "all")
# logged after the line MARK.
_kmsg_since() {
	dmesg | awk -v m="$1" -v all="${2:-}" 'index($0, m) { on = 1 } on && (all || /zonefs \(/)'
}

# _expect_eq WHAT EXPECTED ACTUAL
_expect_eq() {
	[ "$2" = "$3" ] || _fail "$1: expected '$2', got '$3'"
}

# _zonefs_inodes: zonefs_inode_cache objects in use (the per-CPU slabs
# flushed first), or "none" when the cache has no line of its own.
_zonefs_inodes() {
	local c=zonefs_inode_cache
	[ -w "/sys/kernel/slab/$c/shrink" ] && echo 1 >"/sys/kernel/slab/$c/shrink"
	awk -v c="$c" '$1 == c { print $2; found = 1 } END { if (!found) print "none" }' /proc/slabinfo
}

# _zonefs_inode_base: the zonefs inodes in use once the page cache,
# dentries and inodes are dropped and the count has stood still for half
# a second (inodes evicted before are freed after an RCU grace period):
# right after a mount, what the mount itself pins.
_zonefs_inode_base() {
	local n prev='' same=0
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for _ in $(seq 100); do
		n=$(_zonefs_inodes)
		if [ "$n" = "$prev" ]; then
			same=$((same + 1))
			[ "$same" -ge 5 ] && break
		else
			same=0 prev=$n
		fi
		sleep 0.1
	done
	echo "$n"
}

# _zonefs_reclaim BASE: drop the page cache, dentries and inodes, and fail
# unless the zonefs inodes in use come back down to BASE, the count
# _zonefs_inode_base gave right after the mount: an inode left above
# it was not evicted, and a check that something survives its reclaim
# would compare the inode with itself. An evicted inode is freed after an
# RCU grace period, which a debug kernel under TCG can take seconds to
# end: the count has 10 s to come down.
_zonefs_reclaim() {
	local base=$1 n i
	[ "$base" != none ] || _fail "no zonefs_inode_cache line in /proc/slabinfo" || return 1
	for i in $(seq 300); do
		# Again each second, for up to 30 s: one pass can find an inode
		# whose writeback or last reference is just being finished (one
		# in a clean-clone make check still was after 10 s).
		if [ $((i % 10)) = 1 ]; then
			sync
			echo 3 >/proc/sys/vm/drop_caches
		fi
		n=$(_zonefs_inodes)
		[ "$n" -le "$base" ] && break
		sleep 0.1
	done
	echo "zonefs inodes after drop_caches: $n (right after the mount: $base)"
	[ "$n" -le "$base" ] ||
		_fail "$((n - base)) zonefs inodes above the mount's were not evicted by drop_caches"
}
