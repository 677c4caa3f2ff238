// SPDX-License-Identifier: GPL-2.0
/*
 * zone_report - print a zoned block device's zones, one per line:
 *
 *	start len wp type cond cap
 *
 * start, len and wp are in 512B sectors (decimal); type is conventional,
 * seq-write-required or seq-write-preferred; cond is not-wp, empty,
 * implicit-open, explicit-open, closed, read-only, full or offline; cap
 * is the zone capacity in sectors (the length if the device reports none).
 * Tests read these lines instead of parsing blkzone's text.
 *
 * Usage: zone_report DEV [SECTOR [COUNT]]
 * reports COUNT zones (default: all) from the zone holding SECTOR
 * (default 0). Exit 0 on success, 1 on error with one line on stderr.
 *
 * Usage: zone_report -c DEV
 * reports every zone with one BLKREPORTZONE, as a mount does with one
 * blkdev_report_zones() call (the driver splits it the same way), and
 * prints only the number of zones reported: the benchmark's measure of
 * one full zone report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/blkzoned.h>

#include "mkzonefs.h"

#define ZONE_REPORT_BATCH	1024U


static int parse_u64(const char *str, uint64_t *val)
{
	char *end;

	if (!*str || *str == '-' || *str == '+')
		return -EINVAL;
	errno = 0;
	*val = strtoull(str, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* zone_report -c DEV: one BLKREPORTZONE for all zones; print the count. */
static int zone_report_count(const char *path)
{
	struct blk_zone_report *rep;
	unsigned int nr;
	int fd, ret = 1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "zone_report: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (ioctl(fd, BLKGETNRZONES, &nr) < 0) {
		fprintf(stderr, "zone_report: %s: BLKGETNRZONES: %s\n", path,
			strerror(errno));
		goto close_fd;
	}
	rep = calloc(1, sizeof(*rep) + (size_t)nr * sizeof(struct blk_zone));
	if (!rep) {
		fprintf(stderr, "zone_report: out of memory\n");
		goto close_fd;
	}
	rep->nr_zones = nr;
	if (ioctl(fd, BLKREPORTZONE, rep) < 0) {
		fprintf(stderr, "zone_report: %s: BLKREPORTZONE: %s\n", path,
			strerror(errno));
		goto free_rep;
	}
	printf("%u\n", rep->nr_zones);
	ret = 0;
free_rep:
	free(rep);
close_fd:
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t sector = 0, count = UINT64_MAX;
	struct blk_zone_report *rep;
	unsigned int i;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "-c"))
		return zone_report_count(argv[2]);
	if (argc < 2 || argc > 4 || argv[1][0] == '-' ||
	    (argc > 2 && parse_u64(argv[2], &sector)) ||
	    (argc > 3 && parse_u64(argv[3], &count))) {
		fprintf(stderr, "usage: zone_report DEV [SECTOR [COUNT]] | -c DEV\n");
		return 2;
	}

	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "zone_report: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}

	rep = calloc(1, sizeof(*rep) +
		     ZONE_REPORT_BATCH * sizeof(struct blk_zone));
	if (!rep) {
		fprintf(stderr, "zone_report: out of memory\n");
		return 1;
	}

	while (count) {
		rep->sector = sector;
		rep->nr_zones = count < ZONE_REPORT_BATCH ? count :
							     ZONE_REPORT_BATCH;
		if (ioctl(fd, BLKREPORTZONE, rep) < 0) {
			fprintf(stderr, "zone_report: %s: BLKREPORTZONE: %s\n",
				argv[1], strerror(errno));
			return 1;
		}
		if (!rep->nr_zones)
			break;
		for (i = 0; i < rep->nr_zones; i++) {
			const struct blk_zone *z = &rep->zones[i];

			printf("%llu %llu %llu %s %s %llu\n",
			       (unsigned long long)z->start,
			       (unsigned long long)z->len,
			       (unsigned long long)z->wp,
			       zonefs_zone_type_name(z->type),
			       zonefs_zone_cond_name(z->cond),
			       (unsigned long long)((rep->flags &
						     BLK_ZONE_REP_CAPACITY) ?
						    z->capacity : z->len));
		}
		count -= rep->nr_zones;
		sector = rep->zones[i - 1].start + rep->zones[i - 1].len;
	}

	free(rep);
	close(fd);
	return 0;
}
