#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot the testbed guest once with the bench disks and run
# bench/guest.sh in it (our zonefs.ko, Debian's stock zonefs.ko and the raw
# device, side by side), then print the table and keep it in
# results/bench/table.txt and table.md (samples.tsv holds every run).
#
# Environment: the BENCH_* parameters of bench/defaults.sh (each with its
# default and meaning there, and in README.md), checked here, and
# testbed/config. Its time is in docs/results.md; larger sizes make it
# longer, not more telling.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
# shellcheck source=testbed/config
. "$TOP/testbed/config"
# shellcheck source=tests/lib/proc.sh
. "$TOP/tests/lib/proc.sh"

# shellcheck source=bench/defaults.sh
. "$TOP/bench/defaults.sh"
export BENCH_MILLION
out=$RESULTS/bench
params=$RESULTS/bench.env
vm_pid=

log() {
	printf 'bench: %s\n' "$*"
}

cleanup() {
	if [ -n "$vm_pid" ] && kill -0 "$vm_pid" 2>/dev/null; then
		log "stopping the guest run (pid $vm_pid)"
		stop_group "$vm_pid" 30
	fi
	rm -f "$params"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Both throughput disks have 64 zones of 64 MiB; a run's zones and the
# append zone must fit.
for v in BENCH_MB BENCH_ZNS_MB; do
	case "${!v}" in
	*[!0-9]* | '') log "error: $v must be a number of MiB, not '${!v}'"; exit 2 ;;
	esac
	if [ "${!v}" -lt 64 ] || [ $((${!v} % 64)) -ne 0 ] || [ "${!v}" -gt 2048 ]; then
		log "error: $v=${!v}: the raw runs write whole 64 MiB zones (fio's zbd mode), so it must be a multiple of 64, at most 2048"
		exit 2
	fi
done
# The append runs write one zone.
for v in BENCH_APPEND_MB BENCH_ZNS_APPEND_MB; do
	case "${!v}" in
	*[!0-9]* | '' | 0*) log "error: $v must be a number of MiB from 1 to 64 (one zone), not '${!v}'"; exit 2 ;;
	esac
	[ "${!v}" -le 64 ] || { log "error: $v=${!v}: an append run writes one 64 MiB zone: at most 64"; exit 2; }
done
for v in BENCH_SCALE BENCH_MILLION BENCH_PROFILE BENCH_LSM; do
	case "${!v}" in
	0 | 1) ;;
	*) log "error: $v must be 0 or 1, not '${!v}'"; exit 2 ;;
	esac
done
for v in BENCH_REPS BENCH_LSM_REPS BENCH_LSM_SECONDS; do
	case "${!v}" in
	*[!0-9]* | '' | 0*) log "error: $v must be a whole number, 1 or more, not '${!v}'"; exit 2 ;;
	esac
done
helpers=("$TOP/tools/mkzonefs" "$TOP/tests/helpers/bin/zone_report")
[ "$BENCH_LSM" = 0 ] || helpers+=("$TOP/tests/helpers/bin/zonefs_lsm")
for f in "${helpers[@]}"; do
	[ -x "$f" ] || { log "error: $f is missing: run 'make'"; exit 1; }
done
ours=$TOP/module/zonefs.ko
[ -f "$ours" ] || ours="missing (its rows will say so)"
others=$(pgrep -c -f '^qemu-system' || true)

log "plan: one guest boot; $BENCH_REPS runs of each measure for ours ($ours), Debian's stock zonefs.ko and the raw device; $([ "$BENCH_SCALE" = 1 ] && echo "75,000- and 300,000-zone disks, ")$([ "$BENCH_MILLION" = 1 ] && echo "1,000,000-zone disk, ")$BENCH_MB MiB throughput runs ($BENCH_ZNS_MB MiB on ZNS), $BENCH_APPEND_MB MiB append runs ($BENCH_ZNS_APPEND_MB MiB on ZNS); $([ "$BENCH_LSM" = 1 ] && echo "LSM-tree workload: $BENCH_LSM_REPS runs of $BENCH_LSM_SECONDS s on each device" || echo "no LSM-tree workload"); table in $out/table.txt"
[ "$others" = 0 ] || log "note: $others other QEMU guest(s) running: absolute figures will be low"

mkdir -p "$RESULTS"
{
	printf 'BENCH_REPS=%q\n' "$BENCH_REPS"
	printf 'BENCH_MB=%q\n' "$BENCH_MB"
	printf 'BENCH_ZNS_MB=%q\n' "$BENCH_ZNS_MB"
	printf 'BENCH_APPEND_MB=%q\n' "$BENCH_APPEND_MB"
	printf 'BENCH_ZNS_APPEND_MB=%q\n' "$BENCH_ZNS_APPEND_MB"
	printf 'BENCH_SCALE=%q\n' "$BENCH_SCALE"
	printf 'BENCH_PROFILE=%q\n' "$BENCH_PROFILE"
	printf 'BENCH_LSM=%q\n' "$BENCH_LSM"
	printf 'BENCH_MILLION=%q\n' "$BENCH_MILLION"
	printf 'BENCH_LSM_REPS=%q\n' "$BENCH_LSM_REPS"
	printf 'BENCH_LSM_SECONDS=%q\n' "$BENCH_LSM_SECONDS"
} >"$params"

t0=$(date +%s)
# A process group of its own (job control), which stop_group stops whole.
set -m
"$TOP/testbed/vm.sh" bench </dev/null &
vm_pid=$!
set +m
wait "$vm_pid" && rc=0 || rc=$?
vm_pid=
t1=$(date +%s)
others_end=$(pgrep -c -f '^qemu-system' || true)
log "guest run: $((t1 - t0)) s, exit status $rc"

if [ ! -s "$out/samples.tsv" ]; then
	log "error: the guest recorded no sample; see $out/console.log"
	exit "$([ "$rc" = 0 ] && echo 1 || echo "$rc")"
fi

BENCH_DATE=$(date -u '+%Y-%m-%d %H:%M UTC') \
BENCH_HOST=$(hostname) \
BENCH_CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) \
BENCH_CORES=$(nproc) \
BENCH_RAM="$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)" \
BENCH_OS="Debian $(cat /etc/debian_version)" \
BENCH_OTHER_VMS="$others at the start, $others_end at the end" \
BENCH_DURATION="$((t1 - t0)) s for the guest run" \
	python3 "$TOP/bench/report.py" table "$out"
log "table built in $(($(date +%s) - t1)) s: $out/table.txt, $out/table.md"
echo
cat "$out/table.txt"
exit "$rc"
