#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the host test groups, at a lower priority, beside the guest
# test groups in GUESTS guests side by side, each with its own target and
# disks, each running one slice of every group (tests/run -S I/N: the
# Ith, (I+N)th ... test);
# and, as soon as the host groups are done, beside the guests, the
# host-side groups whose tests boot guests of their own (power cuts, the
# two-guest form). One
# TAP stream ending in "N passed, N failed, N skipped", then the time of
# each phase.
#
# Environment: HOST_GROUPS, GUEST_GROUPS, VM_GROUPS (test groups to run),
# GUESTS (test guests side by side, 1 to 4, default 1: on two cores, two
# guests of one vCPU were slower than one of two, docs/tests.md), TESTS_ARGS (extra tests/run options, e.g.
# "-t 'io/*'"), GEOMETRY (ZONE_MB:CONV:SIZE_MB:LBA of $ZBC_DEV; then only
# the io, ns and errors groups run by default, on that disk).
#
# A guest under TCG keeps about 1.2 of the host's 2 cores busy (its tests
# wait for iSCSI, for the target, for timers), so a second guest beside
# it turns most of that waiting into work.
#
# The first guest's results stream as they come; the others' show as
# progress lines on stderr and join the TAP stream, renumbered, when all
# are done. Results: results/host, results/check (the first guest),
# results/check-2 ..., results/vm.
#
# It fails when any test fails (tests/run fails an unlisted skip), when a
# group named in HOST_GROUPS, GUEST_GROUPS or VM_GROUPS has no directory
# in tests/ ("none" names no group), when a phase returns no counts, when
# a guest's kernel log outside the tests shows a bug report or a taint,
# when what the host boots changed since make deps (testbed/hoststate.sh),
# and when it ran no test at all. INT or TERM stops the running phases
# (tests, guests) and then make check.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# VM_CPUS as given, before testbed/config sets its default.
cpus_given=${VM_CPUS:-}
# A test guest of the stock kernel that has not ended in 3,600 s is
# stopped, well within a CI job's 90 minutes (docs/results.md has its
# usual time; a test that hangs in the kernel is caught by tests/run long
# before).
[ "${KERNEL:-stock}" != stock ] || export VM_TIMEOUT=${VM_TIMEOUT:-3600}
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

if [ -n "${GEOMETRY:-}" ]; then
	# Another geometry of $ZBC_DEV: the groups whose tests read it.
	: "${HOST_GROUPS:=none}"
	: "${GUEST_GROUPS:=io ns errors}"
	: "${VM_GROUPS:=none}"
fi
: "${HOST_GROUPS:=lint host}"
: "${GUEST_GROUPS:=testbed mkzonefs mount ns io zns errors reliability pkg zfsx}"
: "${VM_GROUPS:=boot powercut}"
: "${TESTS_ARGS:=}"

case "$GUESTS" in
[1-4]) ;;
*) tb_die "GUESTS must be 1 to 4, not '$GUESTS'" ;;
esac

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

# A -t pattern meant for some groups selects nothing in the others: the
# host and own-guest phases may then select no test (-e). A guest's slice
# never may: that is a run that tests nothing there.
empty_ok=
[[ " $TESTS_ARGS " != *" -t "* ]] || empty_ok=-e

nguests=$GUESTS
[ ${#guest_groups[@]} -gt 0 ] || nguests=0
# Side by side, the guests share the host's cores: each gets its share of
# virtual CPUs (at least one), unless VM_CPUS says otherwise. Two guests
# of two TCG vCPUs each on two cores ran no faster than one: a vCPU that
# holds a lock in the guest is descheduled on the host while the other
# spins for it.
guest_cpus=${cpus_given:-$VM_CPUS}
if [ -z "$cpus_given" ] && [ "$nguests" -gt 1 ]; then
	guest_cpus=$(($(nproc) / nguests))
	[ "$guest_cpus" -ge 1 ] || guest_cpus=1
fi

# Every phase runs as a background job in a process group of its own (job
# control), so that a signal is acted on at once: on INT or TERM each
# job's whole group gets a TERM (tests/run stops its test, vm.sh its
# QEMU), then make check dies of the same signal.
set -m
children=() tails=()
on_signal() {
	local c
	trap - INT TERM
	for c in "${tails[@]}"; do
		kill -TERM "$c" 2>/dev/null
	done
	# Side by side: each phase stops its own work (vm.sh its QEMU) in the
	# grace time.
	for c in "${children[@]}"; do
		stop_group "$c" 30 &
	done
	wait
	tb_log "make check: stopped by SIG$1"
	kill -"$1" $$
	exit 130
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

# run_bg CMD...: CMD as a background job; adds it to children.
run_bg() {
	"$@" &
	children+=($!)
}

# guest_job I: slice I+1 of the guest groups in a guest of its own, its
# TAP on stdout numbered from 1 (renumber() places it in the stream). The
# guest's exit status goes to $RESULTS/<run>.exit, its time to
# $RESULTS/<run>.seconds.
guest_job() {
	local i=$1 run t0
	run=$(guest_name "$i")
	t0=$(date +%s)
	rm -f "$RESULTS/$run/counts" "$RESULTS/$run/kmsg.bad"
	RUN_NAME=$run TESTS="-b -S $((i + 1))/$nguests $TESTS_ARGS ${guest_groups[*]}" \
		DISKS_DIR=$(guest_disks "$i") VM_CPUS=$guest_cpus "$here/vm.sh" check
	echo $? >"$RESULTS/$run.exit"
	echo $(($(date +%s) - t0)) >"$RESULTS/$run.seconds"
}

# vm_job: the VM groups (TAP in vm.tap, counts in vm/counts); their
# guests, beside the test guests, get one vCPU each (unless VM_CPUS says
# otherwise): a second vCPU beside another guest's two only spins.
vm_job() {
	local t0 guest_cpus=$guest_cpus
	[ -n "$cpus_given" ] || [ "$nguests" = 0 ] || guest_cpus=1
	t0=$(date +%s)
	rm -f "$RESULTS/vm/counts"
	mkdir -p "$RESULTS/vm"
	# shellcheck disable=SC2086
	VM_CPUS=$guest_cpus "$TOP/tests/run" -b $empty_ok -s 1 -o "$RESULTS/vm" $TESTS_ARGS "${vm_groups[@]}" >"$RESULTS/vm.tap"
	echo $(($(date +%s) - t0)) >"$RESULTS/vm.seconds"
}

# boot_seconds RUN: the guest's seconds from its kernel's start to its
# first test (boot, target, iSCSI login), by its kernel log's clock.
boot_seconds() {
	awk -F'[][]' '/zonefs-test: start / { printf "%d", $2; found = 1; exit }
		END { if (!found) printf "?" }' "$RESULTS/$1/kmsg.log" 2>/dev/null
}

guest_name() {
	[ "$1" = 0 ] && echo check || echo "check-$(($1 + 1))"
}

guest_disks() {
	[ "$1" = 0 ] && echo "$DISKS_DIR" || echo "$DISKS_DIR-$(($1 + 1))"
}

# renumber FIRST: the TAP result lines of stdin numbered from FIRST on.
# In bash, line by line: awk (mawk) would hold a stream's lines back until
# its input buffer filled.
renumber() {
	local n=$1 line re='^(not )?ok [0-9]+ (.*)$'

	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			printf '%sok %d %s\n' "${BASH_REMATCH[1]}" "$n" "${BASH_REMATCH[2]}"
			n=$((n + 1))
		else
			printf '%s\n' "$line"
		fi
	done
}

plan_text=
[ "$nguests" = 0 ] || plan_text="; [${guest_groups[*]}] in $nguests guests side by side (vCPUs: $guest_cpus each), each a slice of every group"
[ ${#vm_groups[@]} -eq 0 ] || plan_text+="; [${vm_groups[*]}] with guests of their own${plan_text:+, beside them once the host groups are done}"
[ -z "${GEOMETRY:-}" ] || plan_text+="; ZBC_DEV's geometry $GEOMETRY (ZONE_MB:CONV:SIZE_MB:LBA)"
tb_log "plan: host groups [${host_groups[*]}]$plan_text"
t0=$(date +%s)
mkdir -p "$RESULTS/host"
echo "TAP version 13"
rm -f "$RESULTS"/check*.exit "$RESULTS"/check*.seconds "$RESULTS"/check*.tap "$RESULTS"/vm.tap "$RESULTS"/vm.seconds "$RESULTS/host.tap" "$RESULTS/boot-retries"

# The host tests run beside the guests' boot and first tests, at a lower
# priority: a guest under TCG leaves part of the cores idle while its tests
# wait, and the host tests fill it. Their results are printed first, then
# the first guest's, renumbered on from them, as they come; the later
# guests' TAP goes to a file each and shows as progress lines on stderr.
host_pid=
if [ ${#host_groups[@]} -gt 0 ]; then
	rm -f "$RESULTS/host/counts"
	# shellcheck disable=SC2086
	run_bg nice -n 10 "$TOP/tests/run" -b $empty_ok -o "$RESULTS/host" $TESTS_ARGS "${host_groups[@]}" \
		>"$RESULTS/host.tap"
	host_pid=${children[-1]}
fi
t1=$(date +%s)
guests=()
for ((i = 0; i < nguests; i++)); do
	: >"$RESULTS/$(guest_name "$i").tap"
	run_bg guest_job "$i" >"$RESULTS/$(guest_name "$i").tap"
	guests+=("${children[-1]}")
	[ "$i" = 0 ] && continue
	tail -n +1 -s 1 -f --pid="${children[-1]}" "$RESULTS/$(guest_name "$i").tap" |
		sed -u "s/^/[guest $((i + 1))] /" >&2 &
	tails+=($!)
done

hp=0 hf=0 hs=0
if [ -n "$host_pid" ]; then
	wait "$host_pid"
	children=("${guests[@]}")
	cat "$RESULTS/host.tap"
	read -r hp hf hs <"$RESULTS/host/counts" 2>/dev/null || hp=0 hf=0 hs=0
fi
n=$((hp + hf + hs))
if [ ${#host_groups[@]} -gt 0 ] && [ ! -s "$RESULTS/host/counts" ]; then
	n=$((n + 1)) hf=$((hf + 1))
	echo "not ok $n host tests # tests/run returned no counts"
fi
host_s=$(($(date +%s) - t0))
tb_log "host tests: $hp passed, $hf failed, $hs skipped in $host_s s"
# The VM groups start once the host tests are done, beside the guests:
# a guest under TCG leaves part of the cores idle, and their guests fill
# it.
if [ ${#vm_groups[@]} -gt 0 ]; then
	run_bg vm_job
fi

# The first guest's results, renumbered on from the host's, as they come.
if [ "$nguests" -gt 0 ]; then
	tail -n +1 -s 1 -f --pid="${guests[0]}" "$RESULTS/$(guest_name 0).tap" |
		renumber $((n + 1)) &
	tails+=($!)
fi
for c in "${children[@]}"; do
	wait "$c"
done
children=()
for c in "${tails[@]}"; do
	wait "$c" 2>/dev/null
done
tails=()
guests_s=$(($(date +%s) - t1))

# Each guest's verdict, in order; the later guests' TAP renumbered.
gp=0 gf=0 gs=0
for ((i = 0; i < nguests; i++)); do
	run=$(guest_name "$i")
	vrc=$(cat "$RESULTS/$run.exit" 2>/dev/null || echo none)
	p=0 f=0 s=0 counts=0
	if [ -s "$RESULTS/$run/counts" ] && read -r p f s <"$RESULTS/$run/counts"; then
		counts=1
	fi
	# The first guest's results are out already.
	[ "$i" = 0 ] || renumber $((n + 1)) <"$RESULTS/$run.tap"
	n=$((n + p + f + s))
	if [ -s "$RESULTS/$run/kmsg.bad" ]; then
		# tests/run checked each test's part of the log; this is the rest.
		n=$((n + 1)) f=$((f + 1))
		echo "not ok $n guest $((i + 1)) kernel log before the first test or after the last # $(head -n 1 "$RESULTS/$run/kmsg.bad" | cut -c1-100)"
		sed 's/^/#   /' "$RESULTS/$run/kmsg.bad"
	fi
	if [ "$counts" = 0 ]; then
		n=$((n + 1)) f=$((f + 1))
		echo "not ok $n guest $((i + 1)) run # no counts from the guest (exit $vrc), see $RESULTS/$run/console.log"
	elif [ "$vrc" != 0 ] && [ "$f" -eq 0 ]; then
		# The guest ended without a verdict of its own: count that as a failure.
		n=$((n + 1)) f=1
		echo "not ok $n guest $((i + 1)) run # exit $vrc, see $RESULTS/$run/console.log"
	fi
	tb_log "guest $((i + 1)) (slice $((i + 1))/$nguests): $p passed, $f failed, $s skipped in $(cat "$RESULTS/$run.seconds" 2>/dev/null || echo '?') s"
	gp=$((gp + p)) gf=$((gf + f)) gs=$((gs + s))
done

vp=0 vf=0 vs=0
if [ ${#vm_groups[@]} -gt 0 ]; then
	[ -f "$RESULTS/vm.tap" ] && renumber $((n + 1)) <"$RESULTS/vm.tap"
	read -r vp vf vs <"$RESULTS/vm/counts" 2>/dev/null || vp=0 vf=0 vs=0
	n=$((n + vp + vf + vs))
	if [ ! -s "$RESULTS/vm/counts" ]; then
		n=$((n + 1)) vf=$((vf + 1))
		echo "not ok $n host tests with their own guests # tests/run returned no counts"
	fi
	tb_log "host tests with their own guests: $vp passed, $vf failed, $vs skipped in $(cat "$RESULTS/vm.seconds" 2>/dev/null || echo '?') s"
fi

pass=$((hp + gp + vp)) fail=$((hf + gf + vf)) skip=$((hs + gs + vs))
for m in "${missing[@]}"; do
	n=$((n + 1)) fail=$((fail + 1))
	echo "not ok $n ${m#*:} # ${m%%:*} names a group that tests/ does not have"
done
# What the host boots is as it was before make deps: no kernel, module or
# boot loader change from any step of make check (testbed/hoststate.sh).
n=$((n + 1))
if changed=$("$here/hoststate.sh" compare "$IMAGES_OUT/host-state.before" 2>&1); then
	pass=$((pass + 1))
	echo "ok $n host: /boot, the boot loader's configuration and /lib/modules as before make deps"
else
	fail=$((fail + 1))
	echo "not ok $n host: /boot, the boot loader's configuration and /lib/modules as before make deps # changed"
	printf '%s\n' "$changed" | sed 's/^/#   /'
fi
if [ $((pass + fail + skip)) -eq 1 ]; then
	n=$((n + 1)) fail=1
	echo "not ok $n make check ran no test # see HOST_GROUPS, GUEST_GROUPS, VM_GROUPS and TESTS_ARGS"
fi
echo "1..$n"
echo "# Totals: pass:$pass fail:$fail skip:$skip"
# A guest whose boot hung before its init was booted again (vm.sh): said
# here, since its tests passed on the second boot.
if [ -s "$RESULTS/boot-retries" ]; then
	echo "# guests booted again after a boot that hung: $(wc -l <"$RESULTS/boot-retries")"
	sed 's/^/#   /' "$RESULTS/boot-retries"
fi
# The ten slowest tests of every phase, so that a test that got slower
# shows in each run.
echo "# the ten slowest tests:"
cat "$RESULTS/host.tap" "$RESULTS"/check*.tap "$RESULTS/vm.tap" 2>/dev/null |
	sed -nE 's/^(not )?ok [0-9]+ ([^ ]+) .* # ([0-9]+)s$/\3 \2/p' |
	sort -rn | head -n 10 | awk '{ printf "#   %5d s  %s\n", $1, $2 }'
summary="host ${host_s} s"
for ((i = 0; i < nguests; i++)); do
	summary+=", guest $((i + 1)) $(cat "$RESULTS/$(guest_name "$i").seconds" 2>/dev/null || echo '?') s (boot $(boot_seconds "$(guest_name "$i")") s)"
done
[ ${#vm_groups[@]} -eq 0 ] || summary+=", own-guest tests $(cat "$RESULTS/vm.seconds" 2>/dev/null || echo '?') s"
tb_log "make check: $(($(date +%s) - t0)) s ($summary; side by side: $guests_s s)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
