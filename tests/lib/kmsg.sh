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
# unsigned), which our zonefs.ko sets by being loaded, and N (262144), which
# KUnit sets when a suite runs (zonefs_test.ko on the debug kernel).
KMSG_TAINT_OK=$((4096 | 8192 | 262144))

# kmsg_splats: the lines of stdin that report a kernel bug (at most 5).
kmsg_splats() {
	grep -E "$KMSG_SPLAT" | head -n 5
}

# The awk function behind kmsg_dev_errors and kmsg_window: whether a line
# in dmesg -r form is at level warning or worse from zonefs ("zonefs
# (sdX): ...") or the NVMe driver, and its text does not match the ERE ok.
KMSG_AWK_DEV='
function dev_error(line, ok,   pri, text) {
	if (!match(line, /^<[0-9]+>/))
		return 0
	pri = substr(line, 2, RLENGTH - 2) % 8
	text = substr(line, RLENGTH + 1)
	sub(/^\[[^]]*\] */, "", text)
	return pri <= 4 && text ~ /^(zonefs \(|nvme)/ && (ok == "" || text !~ ok)
}'

# kmsg_dev_errors [ERE]: the lines of stdin (dmesg -r form) at level
# warning or worse from zonefs or the NVMe driver, except those whose text
# matches ERE (what a test declares it provokes); at most 5.
kmsg_dev_errors() {
	KMSG_ALLOW=${1:-} awk "$KMSG_AWK_DEV"'
		BEGIN { ok = ENVIRON["KMSG_ALLOW"] }
		dev_error($0, ok) { print; if (++n == 5) exit }'
}

# kmsg_window FROM TO QUIET [ERE]: why the lines of stdin (dmesg -r form)
# from the line containing FROM to the one containing TO fail a test, one
# reason a line: the window's first line is gone (the log wrapped), or its
# bug reports (kmsg_splats), or with QUIET=1 its device warnings and
# errors (kmsg_dev_errors ERE). One awk, not a pipeline: in the guest,
# under TCG, every program started costs about a tenth of a second.
kmsg_window() {
	KMSG_FROM=$1 KMSG_TO=$2 KMSG_QUIET=$3 KMSG_ALLOW=${4:-} KMSG_RE=$KMSG_SPLAT awk "$KMSG_AWK_DEV"'
		BEGIN {
			from = ENVIRON["KMSG_FROM"]; to = ENVIRON["KMSG_TO"]
			quiet = ENVIRON["KMSG_QUIET"]; ok = ENVIRON["KMSG_ALLOW"]
			re = ENVIRON["KMSG_RE"]
		}
		!on && index($0, from) { on = 1 }
		on {
			if ($0 ~ re && ns < 5)
				splat[++ns] = $0
			if (quiet == 1 && nd < 5 && dev_error($0, ok))
				dev[++nd] = $0
			if (index($0, to))
				exit
		}
		END {
			if (!on)
				print "kernel log: the window'"'"'s first marker is gone (the log wrapped)"
			for (i = 1; i <= ns; i++)
				print "kernel log: " splat[i]
			for (i = 1; i <= nd; i++)
				print "kernel log: device warning or error: " dev[i]
		}'
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
