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

int main(int argc, char **argv)
{
	uint64_t sector = 0, count = UINT64_MAX;
	struct blk_zone_report *rep;
	unsigned int i;
	int fd;

	if (argc < 2 || argc > 4 ||
	    (argc > 2 && parse_u64(argv[2], &sector)) ||
	    (argc > 3 && parse_u64(argv[3], &count))) {
		fprintf(stderr, "usage: zone_report DEV [SECTOR [COUNT]]\n");
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
