// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_fsyncw - append to a sequential file with direct writes and fsync in
 * a loop, and log every write that fsync acknowledged.
 *
 *	zfs_fsyncw FILE SECONDS [MAXBLOCKS [SEED [nosync|buffered]]]
 *
 * Each round writes 1..MAXBLOCKS (default 16) blocks of 4096 bytes at the
 * file's end, then calls fsync() (not with "nosync"). The data is zfs_io's pattern (the 8-byte
 * word at file offset o holds o ^ (SEED * 0x9e3779b97f4a7c15)), so any
 * byte of the file can be checked with "zfs_io read FILE OFF LEN seed=SEED"
 * whatever write put it there. Output, one line each, flushed at once:
 *
 *	ACK <end>		the write ending at <end> and its fsync succeeded
 *	WROTE <end>		(nosync) the write ending at <end> succeeded
 *	ERR <write|fsync> <ERRNO> <size after the error>
 *	RESET			the zone filled up: the file was truncated to 0
 *	END <rounds> <end of the last acknowledged write> <errors>
 *
 * "buffered" is for a conventional file: buffered writes (no O_DIRECT)
 * from offset 0 up to the file's size, each followed by fsync(), then
 * again from 0 ("WRAP"); every pass writes the same pattern, so all bytes
 * below the largest acknowledged end must read back as the pattern.
 *
 * After an error the next write starts at the file's size as the file
 * system then reports it (the device's write pointer, zonefs(5) I/O ERRORS).
 * Gives up (exit 3) when the file system has gone read-only (EROFS) or
 * after 50 errors in a row; exits 0 at the time limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#define FW_BS	4096

static uint64_t fw_rng = 0x2545f4914f6cdd1dULL;

static uint64_t fw_next(void)
{
	fw_rng ^= fw_rng << 13;
	fw_rng ^= fw_rng >> 7;
	fw_rng ^= fw_rng << 17;
	return fw_rng;
}

static void fw_fill(uint64_t *buf, size_t len, uint64_t off, uint64_t seed)
{
	size_t i;

	/* off and len are multiples of 8: one pattern word per word. */
	for (i = 0; i < len / 8; i++)
		buf[i] = (off + 8 * i) ^ (seed * 0x9e3779b97f4a7c15ULL);
}

static double fw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *fw_errname(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "UNKNOWN";
}

int main(int argc, char **argv)
{
	unsigned long long rounds = 0, acked = 0, errors = 0;
	unsigned int maxblocks = 16, in_a_row = 0;
	int nosync = 0, buffered = 0;
	off_t limit = 0;
	uint64_t seed = 0;
	double deadline;
	struct stat st;
	uint64_t *buf;
	off_t off;
	int fd;

	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: zfs_fsyncw FILE SECONDS [MAXBLOCKS [SEED [nosync|buffered]]]\n");
		return 2;
	}
	deadline = fw_now() + strtod(argv[2], NULL);
	if (argc > 3)
		maxblocks = strtoul(argv[3], NULL, 0);
	if (argc > 4)
		seed = strtoull(argv[4], NULL, 0);
	if (argc > 5) {
		nosync = !strcmp(argv[5], "nosync");
		buffered = !strcmp(argv[5], "buffered");
		if (!nosync && !buffered) {
			fprintf(stderr, "zfs_fsyncw: unknown mode %s\n", argv[5]);
			return 2;
		}
	}
	if (!maxblocks || posix_memalign((void **)&buf, FW_BS, maxblocks * FW_BS))
		return 2;
	fw_rng ^= seed + getpid();
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = open(argv[1], O_WRONLY | (buffered ? 0 : O_DIRECT));
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "zfs_fsyncw: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	off = st.st_size;
	if (buffered) {
		limit = st.st_size;
		off = 0;
		if (limit < FW_BS) {
			fprintf(stderr, "zfs_fsyncw: %s: too small\n", argv[1]);
			return 2;
		}
	}

	while (fw_now() < deadline) {
		size_t len = (1 + fw_next() % maxblocks) * FW_BS;
		const char *op = "write";
		ssize_t ret;
		int err;

		rounds++;
		if (buffered && off >= limit) {
			off = 0;
			printf("WRAP\n");
		}
		if (buffered && (off_t)len > limit - off)
			len = limit - off;
		fw_fill(buf, len, off, seed);
		ret = pwrite(fd, buf, len, off);
		if (ret > 0) {
			off += ret;
			if (nosync) {
				in_a_row = 0;
				printf("WROTE %lld\n", (long long)off);
				continue;
			}
			if (!fsync(fd)) {
				if ((uint64_t)off > acked)
					acked = off;
				in_a_row = 0;
				printf("ACK %lld\n", (long long)off);
				continue;
			}
			op = "fsync";
		}
		err = ret == 0 ? EIO : errno;
		if (err == EFBIG || err == ENOSPC) {
			if (ftruncate(fd, 0) == 0) {
				off = 0;
				acked = 0;
				printf("RESET\n");
				continue;
			}
			err = errno;
			op = "truncate";
		}
		errors++;
		if (fstat(fd, &st))
			st.st_size = -1;
		printf("ERR %s %s %lld\n", op, fw_errname(err),
		       (long long)st.st_size);
		if (err == EROFS || ++in_a_row >= 50)
			break;
		if (st.st_size >= 0)
			off = st.st_size;
		usleep(100000);
	}
	printf("END %llu %llu %llu\n", rounds, acked, errors);
	close(fd);
	return fw_now() < deadline ? 3 : 0;
}
