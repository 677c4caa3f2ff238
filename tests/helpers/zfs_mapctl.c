// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_mapctl - hold a shared read-write mapping of a file and act on it as
 * told, one command a line on stdin, so that a test can change the file
 * system under a mapping made before.
 *
 *	zfs_mapctl FILE LEN
 *
 * Maps the first LEN bytes of FILE (opened O_RDWR) MAP_SHARED with
 * PROT_READ | PROT_WRITE, prints "READY", then for each line:
 *
 *	store OFF BYTE	store BYTE (a number) at OFF: "OK", or "SIGBUS"
 *			when the store faults with SIGBUS
 *	load OFF	the byte at OFF: "OK <byte>", or "SIGBUS"
 *	msync		msync(MS_SYNC) of the mapping: "OK" or "ERR <ERRNO>"
 *	fsync		fsync() of the file: "OK" or "ERR <ERRNO>"
 *	quit		unmap, close and exit 0
 *
 * Every answer is one line, flushed. Exits 2 on a usage or setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

static sigjmp_buf mc_jmp;

static void mc_on_sigbus(int sig)
{
	siglongjmp(mc_jmp, sig);
}

static void mc_errno(int err)
{
	const char *n = strerrorname_np(err);

	printf("ERR %s\n", n ? n : "UNKNOWN");
}

/* One store or load at @off; returns the byte loaded, or -1 on SIGBUS. */
static int mc_access(volatile unsigned char *map, size_t off, int store,
		     unsigned char byte)
{
	if (sigsetjmp(mc_jmp, 1))
		return -1;
	if (store) {
		map[off] = byte;
		return byte;
	}
	return map[off];
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = mc_on_sigbus };
	char line[128], cmd[16];
	unsigned long off, byte;
	unsigned char *map;
	size_t len;
	int fd, n, v;

	if (argc != 3) {
		fprintf(stderr, "usage: zfs_mapctl FILE LEN\n");
		return 2;
	}
	len = strtoul(argv[2], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		mc_errno(errno);
		return 2;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		mc_errno(errno);
		return 2;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL)) {
		mc_errno(errno);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("READY\n");

	while (fgets(line, sizeof(line), stdin)) {
		off = byte = 0;
		n = sscanf(line, "%15s %lu %lu", cmd, &off, &byte);
		if (n < 1)
			continue;
		if ((!strcmp(cmd, "store") && n == 3) ||
		    (!strcmp(cmd, "load") && n == 2)) {
			if (off >= len) {
				printf("ERR EINVAL\n");
				continue;
			}
			v = mc_access(map, off, cmd[0] == 's', byte);
			if (v < 0)
				printf("SIGBUS\n");
			else if (cmd[0] == 's')
				printf("OK\n");
			else
				printf("OK %d\n", v);
		} else if (!strcmp(cmd, "msync")) {
			if (msync(map, len, MS_SYNC))
				mc_errno(errno);
			else
				printf("OK\n");
		} else if (!strcmp(cmd, "fsync")) {
			if (fsync(fd))
				mc_errno(errno);
			else
				printf("OK\n");
		} else if (!strcmp(cmd, "quit")) {
			break;
		} else {
			printf("ERR usage\n");
		}
	}
	munmap(map, len);
	close(fd);
	return 0;
}
