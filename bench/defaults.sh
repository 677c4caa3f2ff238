# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# make bench's parameters and their defaults, in one place: bench/run.sh
# sources this on the host (and writes the values to results/bench.env),
# bench/guest.sh in the guest after that file. README.md lists them.

: "${BENCH_REPS:=5}"		# runs of every measure
: "${BENCH_MB:=64}"		# MiB per 1 MiB-block throughput run (one zone)
: "${BENCH_ZNS_MB:=512}"	# the same on ZNS, which is ten times as fast
: "${BENCH_APPEND_MB:=1}"	# MiB per 4 KiB append run (256 appends)
: "${BENCH_ZNS_APPEND_MB:=8}"	# the same on ZNS: 1 MiB there is 50 ms
: "${BENCH_SCALE:=1}"		# 0: skip the 75,000- and 300,000-zone disks
: "${BENCH_MILLION:=0}"		# 1: add the 1,000,000-zone disk
: "${BENCH_PROFILE:=1}"		# 0: no perf profiles, no block layer trace
: "${BENCH_LSM:=1}"		# 0: skip the LSM-tree workload
: "${BENCH_LSM_SECONDS:=10}"	# seconds of each of its runs
# Its runs: at most BENCH_REPS, 3 by default (a BENCH_REPS that is no
# number is refused later, by bench/run.sh).
if [ -z "${BENCH_LSM_REPS:-}" ]; then
	case "$BENCH_REPS" in
	*[!0-9]* | '') BENCH_LSM_REPS=3 ;;
	*) BENCH_LSM_REPS=$((10#$BENCH_REPS < 3 ? 10#$BENCH_REPS : 3)) ;;
	esac
fi
