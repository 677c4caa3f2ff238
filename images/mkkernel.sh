#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the testbed's debug kernel (KASAN, KFENCE, lockdep, UBSAN, ...) from
# Debian's linux-source-6.1, the same 6.1.NNN as the stock guest kernel, and
# our zonefs.ko against it. Used by make kernel-debug and KERNEL=debug; with
# FLAVOUR=kcsan, the KCSAN flavour (make kernel-kcsan, KERNEL=kcsan).
#
#   images/mkkernel.sh          build or find the kernel, build zonefs.ko;
#                               prints the kernel's directory on stdout
#
# The config: Debian's config-<stock kver> (unpacked by make deps), trimmed by localmodconfig
# to images/kernel-modules, plus images/kernel-debug.config (for kcsan, that
# file with each option that images/kernel-kcsan.config names taking
# kernel-kcsan.config's value). The result is
# cached under a key made of the source package version and a hash of the
# Debian config, the two files above and this script, in
#   $KERNEL_CACHE/<key>/    (default /var/cache/zonefs/kernel: survives a
#                            fresh clone; images/out/kernel/<key> links to it)
#     bzImage, kver, modules/lib/modules/<kver>/, build/ (for M= builds)
#   $KERNEL_CACHE/src-<version>/  the unpacked source, shared by all keys
# A cache hit takes seconds. An interrupted build resumes where it stopped.
# Our module is built from a copy of module/ and include/ in
# images/out/kernel/module-<key>/, never in module/ (the stock kernel's).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed/lib.sh
. "$here/../testbed/lib.sh"

src_tar=/usr/src/linux-source-6.1.tar.xz
: "${FLAVOUR:=debug}"
modlist=$here/kernel-modules
fragment=$here/kernel-debug.config
case "$FLAVOUR" in
debug) ;;
kcsan)
	# The debug options without those that the flavour's file names, then
	# the flavour's: one line per option, as configure() checks them.
	mkdir -p "$IMAGES_OUT/kernel"
	names=$(sed -nE 's/^(# )?(CONFIG_[A-Z0-9_]+)[= ].*/\2/p' "$here/kernel-kcsan.config")
	{
		grep -vwF "$names" "$fragment"
		cat "$here/kernel-kcsan.config"
	} >"$IMAGES_OUT/kernel/kcsan.config"
	fragment=$IMAGES_OUT/kernel/kcsan.config
	;;
*) tb_die "FLAVOUR must be debug or kcsan, not '$FLAVOUR'" ;;
esac

stock=$(tb_kver) || tb_die "no Debian 6.1 kernel with headers in $STOCK_CACHE: run 'make deps'"
[ -f "$src_tar" ] || tb_die "no $src_tar: apt-get install linux-source-6.1 (images/packages)"
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null) ||
	tb_die "linux-source-6.1 is not installed"
stock_dir=$(tb_stock_dir "$stock")
imgver=$(cat "$stock_dir/version" 2>/dev/null) ||
	tb_die "linux-image-$stock is not unpacked in $stock_dir: run 'make deps'"
# The debug kernel must be the stock guest's kernel plus debug options.
[ "$srcver" = "$imgver" ] ||
	tb_die "linux-source-6.1 is $srcver but the guest's linux-image-$stock is $imgver: install the same version"
for t in flex bison bc gcc make perl; do
	command -v "$t" >/dev/null || tb_die "$t is missing: run 'make deps'"
done
[ -f /usr/include/libelf.h ] || tb_die "libelf-dev is missing: run 'make deps'"
[ -f /usr/include/openssl/ssl.h ] || tb_die "libssl-dev is missing: run 'make deps'"

steps() {
	local t0 prog
	tb_log "plan: debug kernel $key from linux-source-6.1 $srcver (stock guest $stock, $imgver):" \
		"Debian config, localmodconfig to $(grep -cv '^\s*\(#\|$\)' "$modlist") modules," \
		"+ $(grep -c '^CONFIG_\|^# CONFIG_' "$fragment") debug options; nice -n 19 make -j$KERNEL_JOBS in $dir"
	t0=$(date +%s)
	exec 7>"$src.lock"
	flock 7
	if [ ! -f "$src/Makefile" ]; then
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tb_step "unpack $src_tar" tar -C "$src.tmp" --strip-components=1 -xJf "$src_tar"
		mv "$src.tmp" "$src"
	fi
	exec 7>&-
	if [ ! -f "$dir/build/.config.done" ]; then
		tb_step "configure" configure
	fi
	progress &
	prog=$!
	# shellcheck disable=SC2064 # the pid, now
	trap "kill $prog 2>/dev/null" EXIT
	tb_step "build bzImage and modules (nice -n 19 make -j$KERNEL_JOBS)" \
		nice -n 19 make -s -C "$src" O="$dir/build" -j"$KERNEL_JOBS" bzImage modules
	kill "$prog" 2>/dev/null || true
	rm -rf "$dir/modules"
	tb_step "install modules" \
		nice -n 19 make -s -C "$src" O="$dir/build" INSTALL_MOD_PATH="$dir/modules" \
		DEPMOD=/sbin/depmod modules_install
	cp "$dir/build/arch/x86/boot/bzImage" "$dir/bzImage"
	cp "$dir/build/.config" "$dir/config"
	make -s -C "$src" O="$dir/build" kernelrelease >"$dir/kver"
	# The modules' build and source links point into this directory.
	rm -f "$dir/modules/lib/modules/$(cat "$dir/kver")"/{build,source}
	touch "$dir/ok"
	tb_log "debug kernel $(cat "$dir/kver") built in $(($(date +%s) - t0)) s: $dir"
}

# A line every few minutes while make is silent.
progress() {
	local t0=$SECONDS
	while sleep "$KERNEL_PROGRESS"; do
		tb_log "build: $(find "$dir/build" -name '*.o' | wc -l) objects compiled after $((SECONDS - t0)) s"
	done
}

configure() {
	local lsmod bad=0 line name want got
	mkdir -p "$dir/build"
	cp "$stock_dir/boot/config-$stock" "$dir/build/.config"
	lsmod=$dir/lsmod
	grep -v '^\s*\(#\|$\)' "$modlist" >"$lsmod"
	make -s -C "$src" O="$dir/build" olddefconfig
	# New options that localmodconfig asks about take their defaults.
	make -s -C "$src" O="$dir/build" LSMOD="$lsmod" localmodconfig </dev/null >"$dir/localmodconfig.log" 2>&1 || {
		cat "$dir/localmodconfig.log" >&2
		return 1
	}
	# localmodconfig says which listed names no config builds (built in).
	grep -i 'config not found' "$dir/localmodconfig.log" >&2 || true
	cat "$fragment" >>"$dir/build/.config"
	make -s -C "$src" O="$dir/build" olddefconfig
	# Every option of the fragment must have survived olddefconfig.
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) name=${line%%=*}; want=$line ;;
		"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *}; want= ;;
		*) continue ;;
		esac
		got=$(grep -E "^$name=" "$dir/build/.config" || true)
		# An empty string and an option that is not shown are the same.
		[ "$want" = "$name=\"\"" ] && [ -z "$got" ] && continue
		if [ "$got" != "$want" ]; then
			echo "config: wanted '${want:-# $name is not set}', got '${got:-# $name is not set}'" >&2
			bad=1
		fi
	done <"$fragment"
	[ "$bad" = 0 ] || return 1
	touch "$dir/build/.config.done"
}

# The key: the source version and a hash of everything that decides the
# kernel: Debian's config, the module list, the debug options and the two
# functions above (the build steps). Editing the rest of this script keeps
# the cache.
hash=$({ cat "$stock_dir/boot/config-$stock" "$modlist" "$fragment"; declare -f steps configure; } |
	sha256sum | cut -c1-12)
key=$srcver-$hash
if ! mkdir -p "$KERNEL_CACHE" 2>/dev/null || [ ! -w "$KERNEL_CACHE" ]; then
	tb_log "$KERNEL_CACHE is not writable: caching in $IMAGES_OUT/kernel only"
	KERNEL_CACHE=$IMAGES_OUT/kernel
fi
dir=$KERNEL_CACHE/$key
# The unpacked source is shared by every key of one version (builds use O=).
src=$KERNEL_CACHE/src-$srcver
link=$IMAGES_OUT/kernel/$key
mkdir -p "$IMAGES_OUT/kernel"

# Only one build of a key at a time (two make runs, two clones).
mkdir -p "$dir"
exec 8>"$dir.lock"
if ! flock -n 8; then
	tb_log "another build of the debug kernel $key is running; waiting"
	flock 8
fi

# Our module, from a copy of the sources, against the debug tree.
build_module() {
	local mdir=$IMAGES_OUT/kernel/module-$key
	mkdir -p "$mdir/module" "$mdir/include"
	cp -p "$TOP"/module/Kbuild "$TOP"/module/Makefile "$TOP"/module/*.[ch] "$mdir/module/"
	cp -pr "$TOP"/include/. "$mdir/include/"
	[ ! -f "$TOP/VERSION" ] || cp -p "$TOP/VERSION" "$mdir/VERSION"
	nice -n 19 make -s -C "$dir/build" M="$mdir/module" -j"$KERNEL_JOBS" modules >&2 ||
		tb_die "zonefs.ko does not build against the debug kernel"
	tb_log "zonefs.ko for $(cat "$dir/kver"): $mdir/module/zonefs.ko"
}

if [ -f "$dir/ok" ]; then
	tb_log "debug kernel $(cat "$dir/kver") is cached: $dir"
else
	steps >&2
	# steps' EXIT trap stops its progress line if the build is cut short;
	# the progress line is gone now, and a failing kill in that trap would
	# make this script (set -e) exit 1 after a good build.
	trap - EXIT
fi
[ "$dir" = "$link" ] || ln -sfn "$dir" "$link"
ln -sfn "$key" "$IMAGES_OUT/kernel/$FLAVOUR"
build_module
echo "$dir"
