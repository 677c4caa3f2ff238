#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest's initramfs: busybox, the modules that reach the host's
# root over 9p, and images/init. The result is small (about 1.5 MB) because
# everything else comes from the host's root file system at run time.
#
# Usage: images/mkinitramfs.sh   (writes images/out/initramfs-<kver>.cpio.gz)
# KVER= picks the kernel, KMODS= its modules directory when that is not
# the stock kernel's, unpacked by make deps in STOCK_CACHE (the debug
# kernel of images/mkkernel.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/../testbed/lib.sh"

kver=$(tb_kver) || tb_die "no Debian 6.1 kernel with headers in $STOCK_CACHE: run 'make deps'"
out="$IMAGES_OUT/initramfs-$kver.cpio.gz"
: "${KMODS:=$(tb_stock_dir "$kver")/lib/modules/$kver}"
modinfo=(modinfo -k "$kver" -b "${KMODS%/lib/modules/*}")
mods=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
      netfs fscache 9pnet 9pnet_virtio 9p overlay)

if [ "$out" -nt "$here/init" ] && [ "$out" -nt "$0" ] && [ "$out" -nt "$KMODS/modules.builtin" ]; then
	tb_log "initramfs is up to date: $out"
	exit 0
fi
tb_log "plan: initramfs for $kver with busybox and ${#mods[@]} modules -> $out"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules}
cp /bin/busybox "$stage/bin/busybox"
cp "$here/init" "$stage/init"
chmod 0755 "$stage/init"
: >"$stage/modules.order"
for m in "${mods[@]}"; do
	path=$("${modinfo[@]}" -n "$m") || tb_die "module $m not found for $kver"
	case "$path" in
	/*) ;;
	*) continue ;;	# built in
	esac
	cp "$path" "$stage/lib/modules/"
	echo "${path##*/}" >>"$stage/modules.order"
done
mkdir -p "$IMAGES_OUT"
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
tb_log "initramfs: $(du -h "$out" | cut -f1) $out"
