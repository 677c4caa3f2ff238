#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host test groups, then the guest test groups in one boot,
# then the host-side groups whose tests boot guests of their own (power
# cuts), as one TAP stream ending in "N passed, N failed, N skipped".
#
# Environment: HOST_GROUPS, GUEST_GROUPS, VM_GROUPS (test groups to run),
# TESTS_ARGS (extra tests/run options, e.g. "-t 'io/*'").
#
# It fails when any test fails (tests/run fails an unlisted skip), when a
# group named in HOST_GROUPS, GUEST_GROUPS or VM_GROUPS has no directory
# in tests/ ("none" names no group), when a phase returns no counts, when
# the guest's kernel log outside the tests shows a bug report or a taint,
# and when it ran no test at all. INT or TERM stops the running phase
# (tests, guests) and then make check.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

: "${HOST_GROUPS:=lint host}"
: "${GUEST_GROUPS:=testbed mkzonefs mount ns io zns errors reliability pkg zfsx}"
: "${VM_GROUPS:=boot powercut}"
: "${TESTS_ARGS:=}"

# A group is a directory of tests/; "none" stands for no group. A group
# that does not exist is not left out silently: it fails the run.
host_groups=() guest_groups=() vm_groups=() missing=()
for g in $HOST_GROUPS; do
	[ "$g" = none ] || { [ -d "$TOP/tests/$g" ] && host_groups+=("$g"); } || missing+=("HOST_GROUPS:$g")
done
for g in $GUEST_GROUPS; do
	[ "$g" = none ] || { [ -d "$TOP/tests/$g" ] && guest_groups+=("$g"); } || missing+=("GUEST_GROUPS:$g")
done
for g in $VM_GROUPS; do
	[ "$g" = none ] || { [ -d "$TOP/tests/$g" ] && vm_groups+=("$g"); } || missing+=("VM_GROUPS:$g")
done

# Each phase runs in the background, so that a signal is acted on at once.
child=
on_signal() {
	trap - INT TERM
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	tb_log "make check: stopped by SIG$1"
	kill -"$1" $$
	exit 130
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
phase() {
	local rc
	"$@" &
	child=$!
	wait "$child"
	rc=$?
	child=
	return "$rc"
}

tb_log "plan: host groups [${host_groups[*]}], one guest boot for [${guest_groups[*]}], then [${vm_groups[*]}] with guests of their own"
t0=$(date +%s)
mkdir -p "$RESULTS/host"
echo "TAP version 13"
hp=0 hf=0 hs=0
if [ ${#host_groups[@]} -gt 0 ]; then
	rm -f "$RESULTS/host/counts"
	# shellcheck disable=SC2086
	phase "$TOP/tests/run" -b -o "$RESULTS/host" $TESTS_ARGS "${host_groups[@]}"
	read -r hp hf hs <"$RESULTS/host/counts" 2>/dev/null || hp=0 hf=0 hs=0
fi
n=$((hp + hf + hs))
if [ ${#host_groups[@]} -gt 0 ] && [ ! -s "$RESULTS/host/counts" ]; then
	n=$((n + 1)) hf=$((hf + 1))
	echo "not ok $n host tests # tests/run returned no counts"
fi
tb_log "host tests: $hp passed, $hf failed, $hs skipped in $(($(date +%s) - t0)) s"

gp=0 gf=0 gs=0
if [ ${#guest_groups[@]} -gt 0 ]; then
	t1=$(date +%s)
	rm -f "$RESULTS/check/counts" "$RESULTS/check/kmsg.bad"
	TESTS="-b -s $((n + 1)) $TESTS_ARGS ${guest_groups[*]}" phase "$here/vm.sh" check
	vrc=$?
	counts=0
	if [ -s "$RESULTS/check/counts" ] && read -r gp gf gs <"$RESULTS/check/counts"; then
		counts=1
	fi
	n=$((n + gp + gf + gs))
	if [ -s "$RESULTS/check/kmsg.bad" ]; then
		# tests/run checked each test's part of the log; this is the rest.
		n=$((n + 1)) gf=$((gf + 1))
		echo "not ok $n guest kernel log before the first test or after the last # $(head -n 1 "$RESULTS/check/kmsg.bad" | cut -c1-100)"
		sed 's/^/#   /' "$RESULTS/check/kmsg.bad"
	fi
	if [ "$counts" = 0 ]; then
		n=$((n + 1)) gf=$((gf + 1))
		echo "not ok $n guest run # no counts from the guest (exit $vrc), see $RESULTS/check/console.log"
	elif [ "$vrc" -ne 0 ] && [ "$gf" -eq 0 ]; then
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
	phase "$TOP/tests/run" -b -s $((n + 1)) -o "$RESULTS/vm" $TESTS_ARGS "${vm_groups[@]}"
	read -r vp vf vs <"$RESULTS/vm/counts" 2>/dev/null || vp=0 vf=0 vs=0
	n=$((n + vp + vf + vs))
	if [ ! -s "$RESULTS/vm/counts" ]; then
		n=$((n + 1)) vf=$((vf + 1))
		echo "not ok $n host tests with their own guests # tests/run returned no counts"
	fi
	tb_log "host tests with their own guests: $vp passed, $vf failed, $vs skipped in $(($(date +%s) - t2)) s"
fi

pass=$((hp + gp + vp)) fail=$((hf + gf + vf)) skip=$((hs + gs + vs))
for m in "${missing[@]}"; do
	n=$((n + 1)) fail=$((fail + 1))
	echo "not ok $n ${m#*:} # ${m%%:*} names a group that tests/ does not have"
done
if [ $((pass + fail + skip)) -eq 0 ]; then
	n=$((n + 1)) fail=1
	echo "not ok $n make check ran no test # see HOST_GROUPS, GUEST_GROUPS, VM_GROUPS and TESTS_ARGS"
fi
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail skip:$skip"
tb_log "make check: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
