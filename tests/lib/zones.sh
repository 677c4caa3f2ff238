# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Zone facts for every test group, from tests/helpers/bin/zone_report
# ("start len wp type cond cap" a zone, sectors of 512 bytes). Sourced by
# tests/lib/common.sh.

# _zone_report DEV: the report of every zone of DEV, a line each. Fails,
# and says so, when zone_report fails or reports no zone: a check over an
# empty report would pass without looking at the device.
_zone_report() {
	local out
	out=$("$HELPERS/zone_report" "$1") || _fail "zone_report $1 failed" || return 1
	[ -n "$out" ] || _fail "zone_report $1 reported no zone" || return 1
	echo "$out"
}

# _seq_zone_start DEV N: start sector of the zone behind seq/N (no
# sect_name): the Nth sequential zone after zone 0.
_seq_zone_start() {
	local report start type n=0 i=0

	report=$(_zone_report "$1") || return 1
	while read -r start _ _ type _; do
		if [ "$n" -gt 0 ] && [ "$type" != conventional ]; then
			if [ "$i" -eq "$2" ]; then
				echo "$start"
				return 0
			fi
			i=$((i + 1))
		fi
		n=$((n + 1))
	done <<<"$report"
	return 1
}

# _first_seq_zone DEV: start sector of the first sequential zone after
# zone 0 (seq/0's).
_first_seq_zone() {
	_seq_zone_start "$1" 0
}

# _zone_line DEV SECTOR: the report line of the zone starting at SECTOR;
# fails, and says so, when there is none.
_zone_line() {
	local report

	report=$(_zone_report "$1") || return 1
	grep "^$2 " <<<"$report" || _fail "no zone of $1 starts at sector $2"
}

# _zone_field DEV SECTOR FIELD: field (1 start, 2 len, 3 wp, 4 type,
# 5 cond, 6 capacity) of the zone at SECTOR.
_zone_field() {
	local fields
	read -r -a fields < <("$HELPERS/zone_report" "$1" "$2" 1)
	echo "${fields[$3 - 1]}"
}
