// SPDX-License-Identifier: GPL-2.0
/*
 * zbc_zone - inspect or change zones of a tcmu-runner zbc backing file,
 * behind the initiator's back: the testbed's fault injector.
 *
 *	zbc_zone FILE ZONE		print "start len wp type cond" (LBAs,
 *					the condition in hex)
 *	zbc_zone FILE ZONES cond COND	set the condition of ZONE, or of
 *					FIRST-LAST: empty, imp-open, exp-open,
 *					closed, readonly, full, offline or a
 *					number
 *	zbc_zone FILE ZONE wp LBA	set the write pointer (absolute LBA)
 *	zbc_zone FILE settle		give every zone the state a power
 *					cycle leaves: conventional zones no
 *					condition, sequential ones empty,
 *					closed or full as their write pointer
 *					says (offline, read-only and open zones
 *					too); print each zone it changed
 *
 * The handler keeps its zone table mapped shared at the start of the file:
 * a 48-byte header (magic "CBZU", ..., the number of zones, a u32, at
 * offset 24), then one 64-byte record per zone: start, length and write
 * pointer as little-endian u64 LBAs, then the zone type and condition
 * bytes. Every zone touched must start at its index times the first
 * zone's length, else nothing is written. Changes are seen by the next
 * command the device serves, so the target may be live.
 *
 * Exit status: 0, 1 for a file or zone that is not what it should be, 2 for
 * a usage error. This is the one reader of the format in the tree.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZBC_HDR		48
#define ZBC_REC		64
#define ZBC_NR_OFF	24
#define ZBC_WP_OFF	16
#define ZBC_TYPE_OFF	24
#define ZBC_COND_OFF	25

#define ZBC_TYPE_CNV	1
#define ZBC_COND_NONE	0
#define ZBC_COND_EMPTY	1
#define ZBC_COND_CLOSED	4
#define ZBC_COND_FULL	14

struct zbc_file {
	const char	*path;
	int		fd;
	uint32_t	nr;	/* zones */
	uint64_t	len;	/* the first zone's length (LBAs) */
};

struct zbc_rec {
	uint64_t	start, len, wp;
	unsigned int	type, cond;
};

static const struct {
	const char	*name;
	unsigned int	cond;
} zbc_conds[] = {
	{ "empty", 1 }, { "imp-open", 2 }, { "exp-open", 3 }, { "closed", 4 },
	{ "readonly", 13 }, { "full", 14 }, { "offline", 15 },
};

static int zbc_usage(void)
{
	fprintf(stderr, "usage: zbc_zone FILE ZONE | FILE ZONE|FIRST-LAST cond COND | FILE ZONE wp LBA | FILE settle\n");
	return 2;
}

static uint64_t zbc_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* A decimal or 0x number that is all of @s, or -1. */
static long long zbc_num(const char *s)
{
	char *end;
	long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 0);
	return *end || errno ? -1 : v;
}

static void zbc_decode(const unsigned char *r, struct zbc_rec *rec)
{
	rec->start = zbc_le64(r);
	rec->len = zbc_le64(r + 8);
	rec->wp = zbc_le64(r + ZBC_WP_OFF);
	rec->type = r[ZBC_TYPE_OFF];
	rec->cond = r[ZBC_COND_OFF];
}

static int zbc_open(struct zbc_file *f, const char *path, int flags)
{
	unsigned char hdr[ZBC_HDR + ZBC_REC];
	uint32_t nr;

	f->path = path;
	f->fd = open(path, flags);
	if (f->fd < 0) {
		fprintf(stderr, "zbc_zone: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (pread(f->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "CBZU", 4)) {
		fprintf(stderr, "zbc_zone: %s: not a zbc backing file\n", path);
		return 1;
	}
	memcpy(&nr, hdr + ZBC_NR_OFF, sizeof(nr));
	f->nr = le32toh(nr);
	f->len = zbc_le64(hdr + ZBC_HDR + 8);
	return 0;
}

/* Read zone @z's record and check that it is where the layout says. */
static int zbc_read(struct zbc_file *f, uint64_t z, struct zbc_rec *rec)
{
	unsigned char r[ZBC_REC];

	if (pread(f->fd, r, ZBC_REC, ZBC_HDR + ZBC_REC * z) != ZBC_REC) {
		fprintf(stderr, "zbc_zone: %s: zone %llu: short read\n", f->path,
			(unsigned long long)z);
		return 1;
	}
	zbc_decode(r, rec);
	if (rec->start != z * f->len) {
		fprintf(stderr, "zbc_zone: %s: zone %llu starts at %llu, not %llu: unknown layout\n",
			f->path, (unsigned long long)z,
			(unsigned long long)rec->start,
			(unsigned long long)(z * f->len));
		return 1;
	}
	return 0;
}

static int zbc_write(struct zbc_file *f, uint64_t z, unsigned int off,
		     const void *buf, size_t len)
{
	if (pwrite(f->fd, buf, len, ZBC_HDR + ZBC_REC * z + off) != (ssize_t)len) {
		fprintf(stderr, "zbc_zone: %s: zone %llu: %s\n", f->path,
			(unsigned long long)z, strerror(errno));
		return 1;
	}
	return 0;
}

static int zbc_set_cond(struct zbc_file *f, uint64_t z, unsigned int cond)
{
	unsigned char c = cond;

	return zbc_write(f, z, ZBC_COND_OFF, &c, 1);
}

static int zbc_set_wp(struct zbc_file *f, uint64_t z, uint64_t wp)
{
	uint64_t v = htole64(wp);

	return zbc_write(f, z, ZBC_WP_OFF, &v, sizeof(v));
}

/* The state a power cycle leaves zone @z in (see the usage). */
static void zbc_settled(const struct zbc_rec *rec, uint64_t *wp,
			unsigned int *cond)
{
	*wp = rec->wp;
	if (rec->type == ZBC_TYPE_CNV) {
		*cond = ZBC_COND_NONE;
		return;
	}
	if (rec->cond == ZBC_COND_FULL) {
		*cond = ZBC_COND_FULL;
		return;
	}
	if (rec->wp < rec->start || rec->wp > rec->start + rec->len)
		*wp = rec->start;
	if (*wp == rec->start)
		*cond = ZBC_COND_EMPTY;
	else if (*wp == rec->start + rec->len)
		*cond = ZBC_COND_FULL;
	else
		*cond = ZBC_COND_CLOSED;
}

static int zbc_settle(struct zbc_file *f)
{
	size_t size = (size_t)ZBC_REC * f->nr;
	unsigned char *table = malloc(size ? size : 1);
	struct zbc_rec rec;
	unsigned int cond;
	uint64_t z, wp;
	int ret = 1;

	if (!table || pread(f->fd, table, size, ZBC_HDR) != (ssize_t)size) {
		fprintf(stderr, "zbc_zone: %s: cannot read the zone table\n", f->path);
		goto free_table;
	}
	for (z = 0; z < f->nr; z++) {
		zbc_decode(table + ZBC_REC * z, &rec);
		if (rec.start != z * f->len) {
			fprintf(stderr, "zbc_zone: %s: zone %llu starts at %llu, not %llu: unknown layout\n",
				f->path, (unsigned long long)z,
				(unsigned long long)rec.start,
				(unsigned long long)(z * f->len));
			goto free_table;
		}
	}
	for (z = 0; z < f->nr; z++) {
		zbc_decode(table + ZBC_REC * z, &rec);
		zbc_settled(&rec, &wp, &cond);
		if (wp == rec.wp && cond == rec.cond)
			continue;
		if ((wp != rec.wp && zbc_set_wp(f, z, wp)) ||
		    (cond != rec.cond && zbc_set_cond(f, z, cond)))
			goto free_table;
		printf("zbc_zone: %s: zone %llu: condition 0x%x -> 0x%x, write pointer %llu -> %llu\n",
		       f->path, (unsigned long long)z, rec.cond, cond,
		       (unsigned long long)rec.wp, (unsigned long long)wp);
	}
	ret = 0;
free_table:
	free(table);
	return ret;
}

/* Parse ZONE or FIRST-LAST into [*first, *last], within the file. */
static int zbc_range(struct zbc_file *f, const char *s, uint64_t *first,
		     uint64_t *last)
{
	const char *dash = strchr(s, '-');
	char head[32];
	long long a, b;

	if (dash && (size_t)(dash - s) < sizeof(head)) {
		memcpy(head, s, dash - s);
		head[dash - s] = '\0';
		a = zbc_num(head);
		b = zbc_num(dash + 1);
	} else {
		a = b = dash ? -1 : zbc_num(s);
	}
	if (a < 0 || b < a || (uint64_t)b >= f->nr) {
		fprintf(stderr, "zbc_zone: zone %s out of range (0..%llu)\n", s,
			(unsigned long long)f->nr - 1);
		return 1;
	}
	*first = a;
	*last = b;
	return 0;
}

static long long zbc_cond_arg(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(zbc_conds) / sizeof(zbc_conds[0]); i++)
		if (!strcmp(s, zbc_conds[i].name))
			return zbc_conds[i].cond;
	return zbc_num(s) > 255 ? -1 : zbc_num(s);
}

int main(int argc, char **argv)
{
	struct zbc_file f;
	struct zbc_rec rec;
	uint64_t first, last, z;
	long long v = 0;
	int ret;

	if (argc < 3 || argc == 4 || argc > 5)
		return zbc_usage();
	if (argc == 5) {
		v = !strcmp(argv[3], "cond") ? zbc_cond_arg(argv[4]) :
		    !strcmp(argv[3], "wp") ? zbc_num(argv[4]) : -1;
		if (v < 0)
			return zbc_usage();
	}
	if (zbc_open(&f, argv[1], argc == 5 || !strcmp(argv[2], "settle") ?
			 O_RDWR : O_RDONLY))
		return 1;
	if (argc == 3 && !strcmp(argv[2], "settle"))
		return zbc_settle(&f);
	if (zbc_range(&f, argv[2], &first, &last))
		return 1;
	if (first != last && (argc == 3 || strcmp(argv[3], "cond")))
		return zbc_usage();

	/* Check every zone before any is changed. */
	for (z = first; z <= last; z++)
		if (zbc_read(&f, z, &rec))
			return 1;
	if (argc == 3) {
		printf("%llu %llu %llu %u 0x%x\n", (unsigned long long)rec.start,
		       (unsigned long long)rec.len, (unsigned long long)rec.wp,
		       rec.type, rec.cond);
		return 0;
	}
	for (z = first, ret = 0; z <= last && !ret; z++)
		ret = !strcmp(argv[3], "cond") ? zbc_set_cond(&f, z, v) :
						 zbc_set_wp(&f, z, v);
	return ret;
}
