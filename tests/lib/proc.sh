# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Stopping what a script started, one way everywhere: tests/run (a test),
# testbed/vm.sh (QEMU), testbed/check.sh (its phases) and bench/run.sh
# (the bench guest) each start their work as a process group of its own
# (timeout, set -m) and stop it with stop_group.

# stop_group PID [GRACE]: stop the process group PID leads, and PID: TERM
# to all of it, then KILL to what is left after GRACE seconds (5). The
# caller still reaps PID with wait.
stop_group() {
	local pid=$1 grace=${2:-5} i
	kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM -- "-$pid" "$pid" 2>/dev/null
	for ((i = 0; i < grace * 5; i++)); do
		kill -0 -- "-$pid" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL -- "-$pid" "$pid" 2>/dev/null
	return 0
}
