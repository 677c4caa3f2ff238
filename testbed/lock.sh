#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command (the Makefile runs its own goals through it) holding the
# checkout's lock, images/out/make.lock: one make at a time builds, boots
# and writes results/ in a checkout; a second one says what it waits for
# and waits. The lock is held by this script alone, never by the command's
# processes, so nothing left running can keep it; a make inside a make
# (ZONEFS_MAKE_LOCK is set) runs at once instead of waiting for itself.
#
# Usage: testbed/lock.sh COMMAND...
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

lock=$IMAGES_OUT/make.lock
if [ -n "${ZONEFS_MAKE_LOCK:-}" ]; then
	exec "$@"
fi
mkdir -p "$IMAGES_OUT"
exec 8>>"$lock"
if ! flock -n 8; then
	tb_log "waiting for the other make in $TOP: $(cat "$lock.who" 2>/dev/null || echo unknown) (lock $lock)"
	t0=$(date +%s)
	flock 8
	tb_log "waited $(($(date +%s) - t0)) s for $lock"
fi
echo "pid $$, since $(date +%H:%M:%S): ${*##*/}" >"$lock.who"
export ZONEFS_MAKE_LOCK=$lock
# A foreground child: this shell waits for it, and dies of the signal
# that stopped it, so the caller sees the same status.
"$@" 8>&-
rc=$?
exit "$rc"
