#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build the zonefs-dkms and mkzonefs packages from the working
# tree with dpkg-buildpackage, in a copy under images/out/deb/ (the
# repository itself is never built in, so a module or tools build beside it
# is left alone). Nothing is rebuilt when the packages are newer than every
# source file.
#
# Environment: DEB_OUT (default images/out/deb), LINTIAN=1 (also run
# lintian on the packages; errors fail the build), DEB_BUILD_OPTIONS
# (default "nocheck noautodbgsym").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEB_OUT:-$top/images/out/deb}

die() {
	echo "make deb: error: $*" >&2
	exit 1
}

for p in dpkg-buildpackage dpkg-parsechangelog dh dh_dkms; do
	command -v "$p" >/dev/null || die "$p is not installed: run 'make deps'"
done
ver=$(tr -d '[:space:]' <"$top/VERSION")
[ -n "$ver" ] || die "VERSION is empty"
clver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "$clver" = "$ver" ] ||
	die "debian/changelog is at $clver but VERSION says $ver: add a changelog entry for $ver"
arch=$(dpkg --print-architecture)
debs=("$out/zonefs-dkms_${ver}_all.deb" "$out/mkzonefs_${ver}_${arch}.deb")

# The sources the packages are made of: what git tracks there plus new
# files it does not ignore, or, out of a git checkout, those directories
# without their build outputs.
paths=(VERSION dkms.conf debian include module tools tests/unit)
files=()
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	while IFS= read -r -d '' f; do
		[ -f "$top/$f" ] && files+=("$f")
	done < <(git -C "$top" ls-files -z --cached --others --exclude-standard -- "${paths[@]}")
else
	while IFS= read -r -d '' f; do
		files+=("$f")
	done < <(cd "$top" && find "${paths[@]}" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -path tests/unit/bin \) -prune -o -type f -print0)
fi
[ ${#files[@]} -gt 0 ] || die "no source files found in $top"

# dkms_prebuild: zonefs-dkms's module built by DKMS, natively, for the
# newest installed 6.1 headers (the guest kernel's), in a DKMS tree of its
# own ($out/dkms: nothing under /var/lib/dkms, no signing key made), with
# the package's sha256 beside it. A package whose DKMS build fails fails
# here; tests/pkg/001 installs this build in the guest as a DKMS tarball,
# where compiling under TCG takes two minutes (make stress compiles there).
dkms_prebuild() {
	local tree=$out/dkms root=$out/dkms-root kver t0 hdr

	hdr=$(ls -d /usr/src/linux-headers-6.1.0-*-amd64 2>/dev/null | sort -V | tail -n 1)
	if ! command -v dkms >/dev/null || [ -z "$hdr" ]; then
		echo "make deb: no dkms or no 6.1 headers: no DKMS build of zonefs-dkms"
		return 0
	fi
	kver=${hdr#/usr/src/linux-headers-}
	if [ -f "$tree/deb.sha256" ] && sha256sum -c --quiet "$tree/deb.sha256" >/dev/null 2>&1 &&
		[ -f "$tree/zonefs-$ver.dkms.tar.gz" ] && [ -d "$tree/zonefs/$ver/$kver" ]; then
		return 0
	fi
	t0=$(date +%s)
	rm -rf "$tree" "$root"
	mkdir -p "$tree" "$root"
	dpkg-deb -x "${debs[0]}" "$root"
	# sign_file pointing nowhere: DKMS then neither signs nor makes a
	# machine owner key under /var/lib/dkms.
	if ! (export sign_file=/nonexistent
		dkms add --dkmstree "$tree" --sourcetree "$root/usr/src" -m zonefs -v "$ver" &&
			dkms build --dkmstree "$tree" --sourcetree "$root/usr/src" -m zonefs -v "$ver" \
				-k "$kver" --kernelsourcedir "$hdr") >"$out/dkms.log" 2>&1; then
		tail -n 30 "$out/dkms.log" >&2
		cat "$tree/zonefs/$ver/build/make.log" >&2 2>/dev/null
		die "the DKMS build of ${debs[0]##*/} for $kver failed; log: $out/dkms.log"
	fi
	# As a DKMS tarball of the built module: the package's postinst loads
	# one found in /usr/share/zonefs-dkms/ instead of building.
	(export sign_file=/nonexistent
		dkms mktarball --dkmstree "$tree" --sourcetree "$root/usr/src" -m zonefs -v "$ver" \
			-k "$kver" --binaries-only --archive "$tree/zonefs-$ver.dkms.tar.gz") \
		>>"$out/dkms.log" 2>&1 || die "dkms mktarball failed; log: $out/dkms.log"
	(cd "$out" && sha256sum "${debs[0]##*/}") | sed "s|  |  $out/|" >"$tree/deb.sha256"
	echo "make deb: DKMS build of ${debs[0]##*/} for $kver in $(($(date +%s) - t0)) s: ${tree#"$top"/}"
}

fresh=1
for d in "${debs[@]}"; do
	if [ ! -f "$d" ] || [ -n "$(cd "$top" && find "${files[@]}" -newer "$d" -print -quit)" ]; then
		fresh=0
	fi
done
if [ "$fresh" = 1 ]; then
	echo "make deb: up to date: ${debs[*]#"$top"/}"
	dkms_prebuild
	exit 0
fi

t0=$(date +%s)
stage=$out/build
src=$stage/zonefs-$ver
rm -rf "$stage"
mkdir -p "$src"
(cd "$top" && printf '%s\0' "${files[@]}" | tar --null -T - -cf -) | tar -xf - -C "$src"
# No debug-symbol package and no unit tests here by default (make check runs
# them in tests/host/001): the build then costs a few seconds of CPU.
export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-nocheck noautodbgsym}
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed; log: $out/build.log"
fi
rm -f "$out"/*.deb
mv "$stage"/*.deb "$out/"
rm -rf "$src"
for d in "${debs[@]}"; do
	[ -f "$d" ] || die "dpkg-buildpackage made no ${d##*/}; log: $out/build.log"
done
echo "make deb: built ${debs[*]#"$top"/} in $(($(date +%s) - t0)) s"
dkms_prebuild

if [ "${LINTIAN:-0}" = 1 ]; then
	command -v lintian >/dev/null || die "lintian is not installed: run 'make deps'"
	largs=(--fail-on error)
	[ "$(id -u)" = 0 ] && largs+=(--allow-root)
	lintian "${largs[@]}" "${debs[@]}" | tee "$out/lintian.log" ||
		die "lintian found errors; log: $out/lintian.log"
	echo "make deb: lintian: $(grep -c '^E:' "$out/lintian.log") errors, $(grep -c '^W:' "$out/lintian.log") warnings"
fi
