// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_mmapw - write a conventional file through a shared writable mapping
 * for a while, and check what it reads back.
 *
 *	zfs_mmapw FILE SECONDS [MIB [SEED]]
 *
 * Maps the first MIB MiB (default 4) of FILE shared and read-write, then in
 * a loop picks a random 4 KiB page, fills it with zfs_io's pattern for its
 * file offset and a per-round seed, msync()s it (MS_SYNC), and reads the
 * page back through pread() with O_DIRECT, which must see the same bytes.
 * Every 64 rounds the mapping is torn down and made again.
 * Prints "OK <rounds>" and exits 0, or "ERR <what> <ERRNO>" or
 * "MISMATCH <offset>" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define MW_PAGE	4096

static int mw_err(const char *what, int err)
{
	const char *n = strerrorname_np(err);

	printf("ERR %s %s\n", what, n ? n : "UNKNOWN");
	return 1;
}

static double mw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long rounds = 0;
	uint64_t seed = 0, rng;
	size_t len = 4UL << 20;
	double deadline;
	uint64_t *chk;
	char *map = NULL;
	int fd, dfd;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: zfs_mmapw FILE SECONDS [MIB [SEED]]\n");
		return 2;
	}
	deadline = mw_now() + strtod(argv[2], NULL);
	if (argc > 3)
		len = strtoul(argv[3], NULL, 0) << 20;
	if (argc > 4)
		seed = strtoull(argv[4], NULL, 0);
	rng = seed * 0x9e3779b97f4a7c15ULL + getpid();
	if (!len || posix_memalign((void **)&chk, MW_PAGE, MW_PAGE))
		return 2;

	fd = open(argv[1], O_RDWR);
	dfd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || dfd < 0)
		return mw_err("open", errno);

	while (mw_now() < deadline) {
		uint64_t *page, off, s;
		size_t i;

		if (!map || rounds % 64 == 0) {
			if (map)
				munmap(map, len);
			map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				   fd, 0);
			if (map == MAP_FAILED)
				return mw_err("mmap", errno);
		}
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		off = (rng % (len / MW_PAGE)) * MW_PAGE;
		s = seed + rounds;
		page = (uint64_t *)(map + off);
		for (i = 0; i < MW_PAGE / 8; i++)
			page[i] = (off + 8 * i) ^ (s * 0x9e3779b97f4a7c15ULL);
		if (msync(map + off, MW_PAGE, MS_SYNC))
			return mw_err("msync", errno);
		if (pread(dfd, chk, MW_PAGE, off) != MW_PAGE)
			return mw_err("pread", errno);
		for (i = 0; i < MW_PAGE / 8; i++) {
			if (chk[i] != ((off + 8 * i) ^ (s * 0x9e3779b97f4a7c15ULL))) {
				printf("MISMATCH %llu\n",
				       (unsigned long long)(off + 8 * i));
				return 1;
			}
		}
		rounds++;
	}
	munmap(map, len);
	close(dfd);
	close(fd);
	printf("OK %llu\n", rounds);
	return 0;
}
