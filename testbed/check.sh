#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host test groups, then the guest test groups in one boot,
# then the host-side groups whose tests boot guests of their own (power
# cuts), as one TAP stream ending in "N passed, N failed, N skipped".
#
# Environment: HOST_GROUPS, GUEST_GROUPS, VM_GROUPS (test groups to run),
# TESTS_ARGS (extra tests/run options, e.g. "-t 'io/*'").
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

: "${HOST_GROUPS:=lint host}"
: "${GUEST_GROUPS:=testbed mkzonefs mount ns io zns errors reliability}"
: "${VM_GROUPS:=powercut}"
: "${TESTS_ARGS:=}"

host_groups=() guest_groups=() vm_groups=()
for g in $HOST_GROUPS; do [ -d "$TOP/tests/$g" ] && host_groups+=("$g"); done
for g in $GUEST_GROUPS; do [ -d "$TOP/tests/$g" ] && guest_groups+=("$g"); done
for g in $VM_GROUPS; do [ -d "$TOP/tests/$g" ] && vm_groups+=("$g"); done

tb_log "plan: host groups [${host_groups[*]}], one guest boot for [${guest_groups[*]}], then [${vm_groups[*]}] with guests of their own"
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

vp=0 vf=0 vs=0
if [ ${#vm_groups[@]} -gt 0 ]; then
	t2=$(date +%s)
	rm -f "$RESULTS/vm/counts"
	mkdir -p "$RESULTS/vm"
	# shellcheck disable=SC2086
	"$TOP/tests/run" -b -s $((n + 1)) -o "$RESULTS/vm" $TESTS_ARGS "${vm_groups[@]}"
	read -r vp vf vs <"$RESULTS/vm/counts" || vf=1
	n=$((n + vp + vf + vs))
	tb_log "host tests with their own guests: $vp passed, $vf failed, $vs skipped in $(($(date +%s) - t2)) s"
fi

pass=$((hp + gp + vp)) fail=$((hf + gf + vf)) skip=$((hs + gs + vs))
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail skip:$skip"
tb_log "make check: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
