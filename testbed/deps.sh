#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages listed in images/packages that are missing,
# and unpack (never install) the guest's kernel, the linux-image package
# that matches linux-headers-amd64, into STOCK_CACHE. Nothing it does adds
# a kernel to the host's /boot or /lib/modules or changes what the host
# boots: before its first apt-get it records what the host boots
# (testbed/hoststate.sh), and make check's last line compares.
# Idempotent: with everything present it only checks and returns.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

"$here/hoststate.sh" snapshot "$IMAGES_OUT/host-state.before" ||
	tb_die "cannot record the host's boot state in $IMAGES_OUT/host-state.before"

# tb_fetch_kernel: linux-image-<kver> of linux-headers-amd64's <kver>,
# downloaded and unpacked in $STOCK_CACHE/<kver>/ with its module indexes.
tb_fetch_kernel() {
	local hdr kver ver dir tmp deb t0
	hdr=$(dpkg-query -W -f '${Depends}' linux-headers-amd64 2>/dev/null | grep -o 'linux-headers-6\.1\.0-[0-9]*-amd64' | head -n 1)
	[ -n "$hdr" ] || tb_die "linux-headers-amd64 names no linux-headers-6.1.0-NN-amd64"
	kver=${hdr#linux-headers-}
	ver=$(dpkg-query -W -f '${Version}' "$hdr") || tb_die "$hdr is not installed"
	dir=$STOCK_CACHE/$kver
	[ -f "$dir/ok" ] && [ "$(cat "$dir/version" 2>/dev/null)" = "$ver" ] && return 0
	t0=$(date +%s)
	tb_log "plan: apt-get download linux-image-$kver $ver and unpack it in $dir (not installed)"
	mkdir -p "$STOCK_CACHE" || tb_die "cannot create $STOCK_CACHE (STOCK_CACHE=)"
	tmp=$(mktemp -d "$STOCK_CACHE/.fetch.XXXXXX") || tb_die "cannot write in $STOCK_CACHE"
	# shellcheck disable=SC2064 # the directory, now
	trap "rm -rf '$tmp'" EXIT
	chmod 0755 "$tmp"
	(cd "$tmp" && apt-get download -q "linux-image-$kver=$ver" >"$tmp/log" 2>&1) ||
		{ tail -n 5 "$tmp/log" >&2; tb_die "apt-get download linux-image-$kver=$ver failed"; }
	deb=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n 1)
	mkdir "$tmp/root"
	dpkg-deb -x "$deb" "$tmp/root" || tb_die "dpkg-deb -x $deb failed"
	if [ ! -f "$tmp/root/boot/vmlinuz-$kver" ] || [ ! -d "$tmp/root/lib/modules/$kver/kernel" ]; then
		tb_die "linux-image-$kver holds no boot/vmlinuz-$kver and lib/modules/$kver/kernel"
	fi
	depmod -b "$tmp/root" "$kver" || tb_die "depmod in $tmp/root failed"
	echo "$ver" >"$tmp/root/version"
	touch "$tmp/root/ok"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	rm -rf "$tmp"
	trap - EXIT
	tb_log "deps: kernel $kver unpacked in $dir in $(($(date +%s) - t0)) s"
}

mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/images/packages")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	tb_fetch_kernel
	tb_kver >/dev/null || tb_die "no Debian 6.1 kernel in $STOCK_CACHE with headers installed"
	tb_log "deps: all ${#pkgs[@]} packages are installed"
	exit 0
fi
tb_log "plan: apt-get install ${#missing[@]} packages: ${missing[*]}"
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/zonefs-apt.log" 2>&1 ||
	{ tail -n 20 "${TMPDIR:-/tmp}/zonefs-apt.log" >&2; tb_die "apt-get install failed; log: ${TMPDIR:-/tmp}/zonefs-apt.log"; }
tb_log "deps: installed in $(($(date +%s) - t0)) s"
tb_fetch_kernel
tb_kver >/dev/null || tb_die "no Debian 6.1 kernel in $STOCK_CACHE with headers installed"
