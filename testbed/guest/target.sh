# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of the ZBC target: tcmu-runner with only its zbc handler, LIO
# user backstores over sparse backing files, exported on 127.0.0.1 over
# iSCSI (or through tcm_loop). Sourced by guest/init.sh.

TB_CFS=/sys/kernel/config/target
TB_IQN=iqn.2026-12.org.zonefs:testbed
TB_INITIATOR=iqn.2026-12.org.zonefs:guest
TB_LOOP_WWN=naa.5001405e2a7f0001
# The portal: the guest's own loopback, unless the job gives another
# (make testbed serves on the user network: TB_PORTAL=10.0.2.15:3260).
: "${TB_PORTAL:=127.0.0.1:3260}"
TB_ZBC_DIR=/var/lib/zbc

# tcmu-runner loads every handler in its path; librbd alone costs seconds
# under TCG, so give it a directory holding the zbc handler only. Its log
# (and the target's configuration) go to the job's results at the end
# (tb_save_target). With TB_DBUS=1 a system D-Bus runs first: tcmu-runner
# then offers its handler there, and targetcli shows and creates user:zbc
# backstores (make boot's shell, tests/boot/002).
tb_start_tcmu() {
	local hdir=/run/tcmu-handlers log=/var/log/tcmu/tcmu-runner.log n
	local up='Handler zbc is registered'
	mkdir -p "$hdir" /var/log/tcmu
	ln -sf /usr/lib/x86_64-linux-gnu/tcmu-runner/handler_file_zbc.so "$hdir/"
	modprobe target_core_user || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	if [ "${TB_DBUS:-0}" = 1 ] && [ ! -S /run/dbus/system_bus_socket ]; then
		mkdir -p /run/dbus
		dbus-daemon --system --fork || return 1
	fi
	n=$(grep -c "$up" "$log" 2>/dev/null) || n=0
	tcmu-runner --handler-path "$hdir" -l /var/log/tcmu >>/var/log/tcmu/stdout.log 2>&1 &
	echo $! >/run/tcmu-runner.pid
	# It logs this line (once more) when the kernel knows the handler.
	for _ in $(seq 100); do
		[ "$(grep -c "$up" "$log" 2>/dev/null)" -gt "$n" ] 2>/dev/null && return 0
		kill -0 "$(cat /run/tcmu-runner.pid)" 2>/dev/null || break
		sleep 0.1
	done
	echo "tcmu-runner did not register its zbc handler; see $log" >&2
	return 1
}

# Copy tcmu-runner's logs and the target's configuration (every backstore
# with its config string, every LUN, ACL and portal) to DIR.
tb_save_target() {
	local dir=$1 f
	mkdir -p "$dir/tcmu" || return 0
	cp /var/log/tcmu/* "$dir/tcmu/" 2>/dev/null
	[ -d "$TB_CFS" ] || return 0
	{
		for f in "$TB_CFS"/core/user_*/*/info; do
			[ -f "$f" ] || continue
			echo "${f%/info}: $(tr -s ' \n' ' ' <"$f")"
		done
		find "$TB_CFS/iscsi" "$TB_CFS/loopback" -type l -printf '%p -> %l\n' 2>/dev/null
		find "$TB_CFS/iscsi" -path '*/np/*' -maxdepth 5 -type d 2>/dev/null
	} >"$dir/target-config.txt" 2>&1
}

tb_stop_tcmu() {
	local pid
	pid=$(cat /run/tcmu-runner.pid 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	rm -f /run/tcmu-runner.pid
}

# tb_add_disk NAME LUN ZONE_MB CONV SIZE_MB LBA OPEN
# Creates the backstore. The zbc handler formats its backing file whenever
# the config string carries options, and reopens it with its data when the
# string is only the path. So a new geometry is formatted once, through a
# short-lived backstore, and the real one always opens by path: then a
# restarted tcmu-runner (a test killing the target) never wipes the disk.
tb_add_disk() {
	local name=$1 lun=$2 zmb=$3 conv=$4 smb=$5 lba=$6 open=$7
	local file=$TB_ZBC_DIR/$name.zbc geom dir
	local size=$((smb * 1024 * 1024))

	geom="model-HM/lba-$lba/zsize-$zmb/conv-$conv/open-$open"
	if [ ! -f "$file" ] || [ "$(cat "$file.geom" 2>/dev/null)" != "$geom/$size" ]; then
		rm -f "$file" "$file.geom"
		dir=$TB_CFS/core/user_$lun/format_$name
		mkdir -p "$dir" || return 1
		echo -n "dev_config=zbc/$geom@$file,dev_size=$size" >"$dir/control" || return 1
		echo 1 >"$dir/enable" || return 1
		rmdir "$dir" || return 1
		[ -f "$file" ] || return 1
		echo "$geom/$size" >"$file.geom"
	fi
	dir=$TB_CFS/core/user_$lun/$name
	mkdir -p "$dir" || return 1
	echo -n "dev_config=zbc/$file,dev_size=$size,hw_max_sectors=2048" >"$dir/control" || return 1
	echo 1 >"$dir/enable" || return 1
	tb_export_lun "$dir" "$lun" "$name"
}

tb_export_lun() {
	local bs=$1 lun=$2 name=$3 tpg
	case "$TB_TRANSPORT" in
	iscsi)
		tpg=$TB_CFS/iscsi/$TB_IQN/tpgt_1
		mkdir -p "$tpg/lun/lun_$lun" || return 1
		ln -s "$bs" "$tpg/lun/lun_$lun/$name" || return 1
		mkdir -p "$tpg/acls/$TB_INITIATOR/lun_$lun" || return 1
		ln -s "$tpg/lun/lun_$lun" "$tpg/acls/$TB_INITIATOR/lun_$lun/lun_$lun" || return 1
		;;
	loop)
		tpg=$TB_CFS/loopback/$TB_LOOP_WWN/tpgt_1
		mkdir -p "$tpg/lun/lun_$lun" || return 1
		ln -s "$bs" "$tpg/lun/lun_$lun/$name" || return 1
		;;
	*)
		echo "unknown TRANSPORT=$TB_TRANSPORT (iscsi or loop)" >&2
		return 1
		;;
	esac
}

# Create the target's port before the LUNs: iSCSI TPG on 127.0.0.1 only,
# CHAP off, access only for the guest's own initiator name (no demo mode).
tb_start_port() {
	local tpg
	case "$TB_TRANSPORT" in
	iscsi)
		modprobe iscsi_target_mod || return 1
		tpg=$TB_CFS/iscsi/$TB_IQN/tpgt_1
		mkdir -p "$tpg/np/$TB_PORTAL" || return 1
		echo 0 >"$tpg/attrib/authentication"
		echo 0 >"$tpg/attrib/generate_node_acls"
		;;
	loop)
		modprobe tcm_loop || return 1
		tpg=$TB_CFS/loopback/$TB_LOOP_WWN/tpgt_1
		mkdir -p "$tpg" || return 1
		# tcm_loop adds each LUN to its SCSI host when the LUN is linked,
		# which only works once the nexus exists: make it first.
		echo "$TB_LOOP_WWN" >"$tpg/nexus" || return 1
		;;
	esac
}

tb_enable_port() {
	case "$TB_TRANSPORT" in
	iscsi)
		echo 1 >"$TB_CFS/iscsi/$TB_IQN/tpgt_1/enable"
		;;
	loop) ;;
	esac
}

# Tear the LIO configuration down in the reverse order of its creation.
tb_stop_target() {
	local tpg l
	for tpg in "$TB_CFS/iscsi/$TB_IQN/tpgt_1" "$TB_CFS/loopback/$TB_LOOP_WWN/tpgt_1"; do
		[ -d "$tpg" ] || continue
		[ -f "$tpg/enable" ] && echo 0 >"$tpg/enable" 2>/dev/null
		for l in "$tpg"/acls/*/lun_*; do
			[ -d "$l" ] || continue
			rm -f "$l"/lun_* && rmdir "$l"
		done
		rmdir "$tpg"/acls/* 2>/dev/null
		for l in "$tpg"/lun/lun_*; do
			[ -d "$l" ] || continue
			find "$l" -maxdepth 1 -type l -delete
			rmdir "$l"
		done
		rmdir "$tpg"/np/* 2>/dev/null
		rmdir "$tpg" "${tpg%/tpgt_1}" 2>/dev/null
	done
	for l in "$TB_CFS"/core/user_*/*; do
		[ -d "$l" ] && rmdir "$l"
	done
	rmdir "$TB_CFS"/core/user_* 2>/dev/null
	tb_stop_tcmu
}
