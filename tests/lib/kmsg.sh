# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What makes a kernel log bad. Shared by tests/run (each guest test's
# window of the log, after its start marker), testbed/vm.sh (the whole log
# of every guest, streamed to results/<job>/kmsg.log) and tests/powercut
# (the logs of the guests it kills). Logs are read in `dmesg -r` form,
# "<PRI>[seconds] text", so that a line's level is known.

# A report the kernel prints when it catches a bug in itself or a module.
KMSG_SPLAT='BUG:|(^|] )WARNING:|Oops|general protection|kernel BUG at|KASAN|KFENCE|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|INFO: task .* blocked|list_(add|del) corruption|Call Trace'

# Taint bits that are no fault: O (4096, out-of-tree) and E (8192,
# unsigned), which our zonefs.ko sets by being loaded.
KMSG_TAINT_OK=$((4096 | 8192))

# kmsg_splats: the lines of stdin that report a kernel bug (at most 5).
kmsg_splats() {
	grep -E "$KMSG_SPLAT" | head -n 5
}

# kmsg_dev_errors [ERE]: the lines of stdin (dmesg -r form) at level
# warning or worse from zonefs ("zonefs (sdX): ...") or the NVMe driver,
# except those whose text matches ERE (what a test declares it provokes).
kmsg_dev_errors() {
	KMSG_ALLOW=${1:-} awk '
		BEGIN { ok = ENVIRON["KMSG_ALLOW"] }
		match($0, /^<[0-9]+>/) {
			pri = substr($0, 2, RLENGTH - 2) % 8
			text = substr($0, RLENGTH + 1)
			sub(/^\[[^]]*\] */, "", text)
			if (pri <= 4 && text ~ /^(zonefs \(|nvme)/ && (ok == "" || text !~ ok))
				print
		}' | head -n 5
}

# kmsg_taint_bad OLD NEW: the taint bits NEW has beyond OLD that are a
# fault (prints nothing, returns 1 when there are none).
kmsg_taint_bad() {
	local bad=$(($2 & ~$1 & ~KMSG_TAINT_OK))
	[ "$bad" -ne 0 ] || return 1
	echo "$bad"
}

# kmsg_check_file [-k] FILE [FROM_RE [UNTIL_RE]]: check a guest's whole
# log, as streamed by the guest, for bug reports and for a final taint with
# bits other than O and E: the line "zonefs-testbed: taint N" the guest
# logs at power-off, after its teardown. A log without that line fails (the
# guest did not get through its teardown, or the line never reached the
# host), unless -k says the guest was killed on purpose before it. With
# FROM_RE, only lines from the last match of FROM_RE on; with UNTIL_RE,
# lines before the first match of UNTIL_RE as well. Prints the bad lines;
# returns 1 if there are any.
kmsg_check_file() {
	local killed=0 file from until lines bad taint
	[ "${1:-}" = -k ] && { killed=1; shift; }
	file=$1 from=${2:-} until=${3:-}
	[ -s "$file" ] || { echo "no kernel log in $file"; return 1; }
	lines=$(awk -v from="$from" -v until="$until" '
		{ l[NR] = $0 }
		from != "" && $0 ~ from { last = NR }
		until != "" && first == 0 && $0 ~ until { first = NR }
		END {
			for (i = 1; i <= NR; i++)
				if (from == "" || i >= last || (until != "" && i < first))
					print l[i]
		}' "$file")
	bad=$(kmsg_splats <<<"$lines")
	taint=$(sed -n 's/.*zonefs-testbed: taint \([0-9]*\).*/\1/p' <<<"$lines" | tail -n 1)
	if [ -n "$taint" ]; then
		if kmsg_taint_bad 0 "$taint" >/dev/null; then
			bad+="${bad:+$'\n'}kernel tainted: $taint"
		fi
	elif [ "$killed" = 0 ]; then
		bad+="${bad:+$'\n'}no taint line at power-off in $file: the guest's teardown did not finish, or its log was cut"
	fi
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}
