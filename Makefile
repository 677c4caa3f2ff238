# SPDX-License-Identifier: GPL-2.0
#
# zonefs: entry points. See README.md for every target and option.

SHELL := /bin/bash
TOP := $(CURDIR)

# Options given on the command line (ZONE_MB=, CMD=, ...) reach the testbed
# scripts through the environment; testbed/config lists them with defaults.

# CMD is a shell command for the guest: make must not expand its '$'
# (make boot CMD='echo $$ZBC_DEV'), so it is passed on as it was written.
override CMD := $(value CMD)
export CMD

# One make at a time in a checkout: the goals below run in a second make
# that holds images/out/make.lock (testbed/lock.sh), so a concurrent make
# says what it waits for and waits, instead of sharing builds, guests,
# disks and results/. A make started under it (ZONEFS_MAKE_LOCK set), a
# make -n, and a goal not in the list (another makefile's) go ahead.
# Every goal of this makefile: each is phony, and each takes the lock.
zonefs-goals := all deps tools module helpers images kernel-debug kernel-kcsan testbed \
	testbed-stop boot check test stress bench clean testbed-reset deb install \
	modules_install lint unit
ifeq ($(ZONEFS_MAKE_LOCK)$(findstring n,$(firstword -$(MAKEFLAGS)))$(filter-out $(zonefs-goals),$(MAKECMDGOALS)),)
.PHONY: zonefs-locked $(MAKECMDGOALS)
zonefs-locked:
	@$(CURDIR)/testbed/lock.sh $(MAKE) --no-print-directory $(MAKECMDGOALS)
$(filter-out zonefs-locked,$(MAKECMDGOALS)): zonefs-locked ; @:
else

.PHONY: $(zonefs-goals)

all: tools module helpers

deps:
	@testbed/deps.sh

tools:
	@$(MAKE) -s -C tools

module:
	@$(MAKE) -s -C module

helpers:
	@if [ -f tests/helpers/Makefile ]; then $(MAKE) -s -C tests/helpers; fi

images: deps
	@images/mkinitramfs.sh

# The debug kernel (KASAN, KFENCE, lockdep, UBSAN, ...) from Debian's
# linux-source-6.1, and zonefs.ko against it; cached. KERNEL=debug on boot,
# check, stress or bench boots it (and builds it first if needed).
kernel-debug: deps
	@images/mkkernel.sh >/dev/null

# The KCSAN flavour: the same, with KCSAN in place of KASAN and lockdep
# (images/kernel-kcsan.config); KERNEL=kcsan boots it.
kernel-kcsan: deps
	@FLAVOUR=kcsan images/mkkernel.sh >/dev/null

# Start a guest that serves the user's ZBC disk over iSCSI on the host's
# 127.0.0.1:TARGET_PORT until make testbed-stop (make boot TARGET=testbed
# logs in to it).
testbed: deps all images
	@testbed/vm.sh testbed

testbed-stop:
	@testbed/vm.sh testbed-stop

# Boot, format (if blank or FORMAT=1), mount zonefs on /mnt, run CMD or a shell.
boot: deps all images
	@testbed/vm.sh boot

# The whole suite: lint and host tests, then the guest tests, one TAP stream.
# The packages are built first: tests/pkg installs them in the guest.
check: deps all images deb
	@testbed/check.sh

test: check

# The fast loop, host only, no guest: shellcheck, checkpatch, the W=1
# builds (the lint group); the unit tests of mkzonefs and of the module's
# errors= decisions (tests/unit).
lint:
	@tests/run -o results/lint-only lint

unit:
	@$(MAKE) -s -C tools test

# The long forms of the reliability scenarios (tests/stress: 20,000 fuzzed
# superblocks, 200 target-loss cycles, 30 min of load), the zfsx exerciser
# (tests/zfsx: 60 s a run) and the power cuts.
stress: deps all images
	@STRESS=1 HOST_GROUPS=none GUEST_GROUPS="$${GUEST_GROUPS:-stress zfsx}" \
		VM_GROUPS="$${VM_GROUPS:-powercut}" CUTS="$${CUTS:-10}" \
		VM_TIMEOUT="$${VM_TIMEOUT:-7200}" testbed/check.sh

bench: deps all images
	@bench/run.sh

# Debian packages zonefs-dkms and mkzonefs in images/out/deb/
# (debian/build-debs.sh; LINTIAN=1 also runs lintian on them).
deb:
	@debian/build-debs.sh

# mkzonefs, mkfs.zonefs and the man page under PREFIX (/usr/local), staged
# under DESTDIR if given.
install:
	@$(MAKE) -s -C tools install

# zonefs.ko for the running kernel (or KVER=) under
# /lib/modules/<kernel>/updates/, then depmod.
modules_install:
	@kver=$${KVER:-$$(uname -r)}; \
	[ -d "/usr/src/linux-headers-$$kver" ] || { echo "make modules_install: no headers for kernel $$kver: apt-get install linux-headers-$$kver, or give KVER=" >&2; exit 1; }; \
	$(MAKE) -s -C module modules_install KVER="$$kver"

# Forget the user disk's backing file (the data written in earlier boots).
testbed-reset:
	@testbed/reset.sh

clean:
	@$(MAKE) -s -C tools clean
	@$(MAKE) -s -C module clean
	@if [ -f tests/helpers/Makefile ]; then $(MAKE) -s -C tests/helpers clean; fi
	rm -rf results

endif
