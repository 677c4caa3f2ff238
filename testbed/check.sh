#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host test groups, then the guest test groups in one boot,
# as one TAP stream ending in "N passed, N failed, N skipped".
#
# Environment: HOST_GROUPS, GUEST_GROUPS (test groups to run), TESTS_ARGS
# (extra tests/run options, e.g. "-t 'io/*'").
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

: "${HOST_GROUPS:=lint host}"
: "${GUEST_GROUPS:=testbed mkzonefs mount ns io}"
: "${TESTS_ARGS:=}"

host_groups=() guest_groups=()
for g in $HOST_GROUPS; do [ -d "$TOP/tests/$g" ] && host_groups+=("$g"); done
for g in $GUEST_GROUPS; do [ -d "$TOP/tests/$g" ] && guest_groups+=("$g"); done

tb_log "plan: host groups [${host_groups[*]}], then one guest boot for [${guest_groups[*]}]"
t0=$(date +%s)
mkdir -p "$RESULTS/host"
echo "TAP version 13"
hp=0 hf=0 hs=0
if [ ${#host_groups[@]} -gt 0 ]; then
	rm -f "$RESULTS/host/counts"
	# shellcheck disable=SC2086
	"$TOP/tests/run" -b -o "$RESULTS/host" $TESTS_ARGS "${host_groups[@]}"
	read -r hp hf hs <"$RESULTS/host/counts" || hf=1
fi
n=$((hp + hf + hs))
tb_log "host tests: $hp passed, $hf failed, $hs skipped in $(($(date +%s) - t0)) s"

gp=0 gf=0 gs=0
if [ ${#guest_groups[@]} -gt 0 ]; then
	t1=$(date +%s)
	TESTS="-b -s $((n + 1)) $TESTS_ARGS ${guest_groups[*]}" "$here/vm.sh" check
	vrc=$?
	if [ -r "$RESULTS/check/counts" ]; then
		read -r gp gf gs <"$RESULTS/check/counts"
	fi
	n=$((n + gp + gf + gs))
	if [ "$vrc" -ne 0 ] && [ "$gf" -eq 0 ]; then
		# The guest ended without a verdict of its own: count that as a failure.
		n=$((n + 1)) gf=1
		echo "not ok $n guest run # exit $vrc, see $RESULTS/check/console.log"
	fi
	tb_log "guest tests: $gp passed, $gf failed, $gs skipped in $(($(date +%s) - t1)) s"
fi

pass=$((hp + gp)) fail=$((hf + gf)) skip=$((hs + gs))
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail skip:$skip"
tb_log "make check: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
