#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages listed in images/packages that are missing.
# Idempotent: with everything present it only checks and returns.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/lib.sh"

mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/images/packages")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	tb_log "deps: all ${#pkgs[@]} packages are installed"
	exit 0
fi
tb_log "plan: apt-get install ${#missing[@]} packages: ${missing[*]}"
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
# The testbed boots the kernel with its own initramfs: skip the two
# update-initramfs runs that installing linux-image would do (about 40 s).
export INITRD=No
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >"${TMPDIR:-/tmp}/zonefs-apt.log" 2>&1 ||
	{ tail -n 20 "${TMPDIR:-/tmp}/zonefs-apt.log" >&2; tb_die "apt-get install failed; log: ${TMPDIR:-/tmp}/zonefs-apt.log"; }
tb_log "deps: installed in $(($(date +%s) - t0)) s"
tb_kver >/dev/null || tb_die "no Debian 6.1 kernel with headers after install"
