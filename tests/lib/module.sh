# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Which zonefs.ko is which: a module file and the loaded module are named
# by their GNU build ID (the linker's hash of the binary, which the kernel
# shows in /sys/module/<name>/notes/) and, when the module carries one, by
# the srcversion modpost computes from its sources. Shared by tests/run and
# tests/lib/common.sh (guest only: the host never loads a module).

# zonefs_file_id KO: "srcversion S build-id B" of a module file (the
# srcversion part only when the module has one).
zonefs_file_id() {
	local ko=$1 src bid
	[ -f "$ko" ] || return 1
	src=$(modinfo -F srcversion "$ko" 2>/dev/null)
	bid=$(readelf -n "$ko" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -n 1)
	[ -n "$bid" ] || return 1
	echo "${src:+srcversion $src }build-id $bid"
}

# zonefs_hex FILE: the bytes of FILE in hex. In the shell, not with od:
# under TCG each program started costs tens of milliseconds, and this runs
# at every test and every mount. read -d '' stops at each NUL byte.
zonefs_hex() {
	local LC_ALL=C c h i more out=''
	while :; do
		IFS= read -r -d '' c
		more=$?
		for ((i = 0; i < ${#c}; i++)); do
			printf -v h %02x "'${c:i:1}"
			out+=$h
		done
		[ "$more" = 0 ] || break
		out+=00
	done <"$1" || return 1
	echo "$out"
}

# zonefs_loaded_id: the same for the zonefs module the kernel has loaded.
zonefs_loaded_id() {
	local m=/sys/module/zonefs src='' bid
	[ -d "$m" ] || return 1
	[ -r "$m/srcversion" ] && read -r src <"$m/srcversion"
	# The note: namesz, descsz and type (4 bytes each), "GNU\0", the ID.
	bid=$(zonefs_hex "$m/notes/.note.gnu.build-id" 2>/dev/null) || return 1
	bid=${bid:32}
	[ -n "$bid" ] || return 1
	echo "${src:+srcversion $src }build-id $bid"
}

# zonefs_ours_id: the identity of our module as the guest installed it
# (testbed/guest/init.sh copies the build to updates/zonefs.ko).
zonefs_ours_id() {
	zonefs_file_id "/lib/modules/$(uname -r)/updates/zonefs.ko"
}
