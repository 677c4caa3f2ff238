// SPDX-License-Identifier: GPL-2.0
/*
 * zbc_cond - set the condition of a range of zones in a tcmu-runner zbc
 * backing file in one go, behind the initiator's back (testbed/guest/
 * zbc-zone does one zone per call, which is slow under TCG for a whole
 * device).
 *
 *	zbc_cond FILE FIRST LAST COND
 *
 * COND is a number (1 empty, 4 closed, 13 read-only, 14 full, 15 offline).
 * The layout is the one zbc-zone documents and checks: a 48-byte header
 * with magic "CBZU" and the number of zones at offset 24, then one 64-byte
 * record per zone (start, length, write pointer as little-endian u64 LBAs,
 * type and condition bytes at 24 and 25); each zone's start must be its
 * index times the first zone's length. Prints "OK <zones changed>".
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZC_HDR	48
#define ZC_REC	64

static uint64_t zc_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

int main(int argc, char **argv)
{
	unsigned char hdr[ZC_HDR], rec[ZC_REC];
	unsigned long long first, last, z, nr, len;
	unsigned int cond;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: zbc_cond FILE FIRST LAST COND\n");
		return 2;
	}
	first = strtoull(argv[2], NULL, 0);
	last = strtoull(argv[3], NULL, 0);
	cond = strtoul(argv[4], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || pread(fd, hdr, ZC_HDR, 0) != ZC_HDR ||
	    pread(fd, rec, ZC_REC, ZC_HDR) != ZC_REC) {
		fprintf(stderr, "zbc_cond: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (memcmp(hdr, "CBZU", 4)) {
		fprintf(stderr, "zbc_cond: %s: not a zbc backing file\n", argv[1]);
		return 1;
	}
	nr = zc_u64(hdr + 24);
	len = zc_u64(rec + 8);
	if (first > last || last >= nr || cond > 255) {
		fprintf(stderr, "zbc_cond: zones %llu-%llu out of range (0..%llu) or bad condition\n",
			first, last, nr - 1);
		return 1;
	}
	for (z = first; z <= last; z++) {
		unsigned char c = cond;

		if (pread(fd, rec, ZC_REC, ZC_HDR + ZC_REC * z) != ZC_REC ||
		    zc_u64(rec) != z * len) {
			fprintf(stderr, "zbc_cond: zone %llu: unknown layout\n", z);
			return 1;
		}
		if (pwrite(fd, &c, 1, ZC_HDR + ZC_REC * z + 25) != 1) {
			fprintf(stderr, "zbc_cond: zone %llu: %s\n", z, strerror(errno));
			return 1;
		}
	}
	close(fd);
	printf("OK %llu\n", last - first + 1);
	return 0;
}
