#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the host boots, as a listing: every file, link and directory under
# /boot and the host's /lib/modules, and the boot loader's configuration
# (/etc/default/grub, /etc/default/grub.d, /etc/grub.d, the kernel hooks
# and command line in /etc/kernel but for dkms's hooks, which build
# modules when a kernel is installed, and /etc/kernel-img.conf), each with
# its type, size, link target and checksum. make deps writes it
# once, before its first apt-get, to images/out/host-state.before; make
# check's last line compares (testbed/check.sh). The links
# /lib/modules/<kver>/build and source that linux-headers-<kver> installs
# (headers change nothing the host boots) are left out, and so are the
# directories /lib/modules and /lib/modules/<kver> that hold nothing else.
#
#   testbed/hoststate.sh list [ROOT]        the listing of ROOT (/) on stdout
#   testbed/hoststate.sh snapshot FILE      write it to FILE if FILE is missing
#   testbed/hoststate.sh compare FILE       exit 1, with the difference, if it changed
set -uo pipefail

hs_list() {
	local root=${1%/} p y path size link
	for p in boot lib/modules etc/default/grub etc/default/grub.d etc/grub.d etc/kernel etc/kernel-img.conf; do
		[ -e "$root/$p" ] || [ -L "$root/$p" ] || continue
		find "$root/$p" -printf '%y|%P|%s|%l\n' | while IFS='|' read -r y path size link; do
			path=$p${path:+/$path}
			case "$y" in
			f) echo "f $path $size $(sha256sum <"$root/$path" | cut -c1-16)" ;;
			l) echo "l $path $link" ;;
			*) echo "$y $path" ;;
			esac
		done
	done | awk '
		# /etc: the files; dkms hooks build modules when a kernel comes.
		$2 ~ "^etc/" && ($1 == "d" || $2 ~ "/dkms$") { next }
		# linux-headers-<kver>: /lib/modules/<kver>/{build,source}
		$1 == "l" && $2 ~ "^lib/modules/[^/]+/(build|source)$" && $3 ~ "^/usr/src/linux-headers-" { next }
		$1 == "d" && $2 ~ "^lib/modules(/[^/]+)?$" { dirs[$2] = $0; next }
		{
			lines[NR] = $0
			split($2, q, "/")
			if (q[1] == "lib") { used["lib/modules"] = 1; used["lib/modules/" q[3]] = 1 }
		}
		END {
			for (d in dirs) if (d in used) print dirs[d]
			for (i in lines) print lines[i]
		}' | sort
}

case "${1:-}" in
list) hs_list "${2:-/}" ;;
snapshot)
	[ -n "${2:-}" ] || { echo "usage: $0 snapshot FILE" >&2; exit 2; }
	[ -s "$2" ] && exit 0
	mkdir -p "$(dirname "$2")"
	hs_list / >"$2.tmp" && mv "$2.tmp" "$2"
	;;
compare)
	[ -n "${2:-}" ] || { echo "usage: $0 compare FILE" >&2; exit 2; }
	[ -s "$2" ] || { echo "no snapshot $2 (make deps writes it)" >&2; exit 2; }
	changed=$(diff -U0 "$2" <(hs_list "${3:-/}") | grep '^[-+][a-z] ')
	[ -z "$changed" ] && exit 0
	echo "$changed"
	exit 1
	;;
*)
	echo "usage: $0 list [ROOT] | snapshot FILE | compare FILE [ROOT]" >&2
	exit 2
	;;
esac
