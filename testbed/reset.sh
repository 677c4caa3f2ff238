#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make testbed-reset: forget the user disk set of DISKS_DIR (default
# images/out/disks): its backing store user.img, which holds the ZBC disk
# and the conventional zones, and zns-user.img, so that the next make boot
# or make testbed starts blank. Refused while a guest uses the set (it
# holds user.img.lock).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

store=$DISKS_DIR/user.img
files=()
for f in "$store" "$DISKS_DIR/zns-user.img"; do
	[ -e "$f" ] && files+=("$f")
done
if [ ${#files[@]} -eq 0 ]; then
	tb_log "testbed-reset: no user disk in $DISKS_DIR: nothing to forget"
	exit 0
fi
if [ -e "$store.lock" ]; then
	exec 9<"$store.lock"
	flock -n 9 || tb_die "a guest is using $store (make testbed-stop, or end make boot, first)"
fi
rm -f "${files[@]}"
tb_log "testbed-reset: removed ${files[*]}"
