// SPDX-License-Identifier: GPL-2.0
/*
 * zonefs_lsm - the zone pattern of an LSM-tree store (RocksDB on ZenFS),
 * run for a while on the sequential files of a zonefs mount or on the
 * sequential zones of a raw zoned block device, the same way on both, for
 * the side-by-side benchmarks. Not a test: nothing read is checked.
 *
 * The workload:
 *  - W writer threads each fill a zone of their own with direct writes of
 *    64 KiB to 1 MiB (multiples of 4 KiB, from a seeded PRNG) at its write
 *    pointer, as compaction writes its output tables; a full zone joins
 *    the list of full zones and the writer takes a free one;
 *  - one log thread appends 4 KiB direct writes to a zone of its own and
 *    calls fdatasync() every K writes, as the write-ahead log does; each
 *    fdatasync() is timed;
 *  - R reader threads read 4 KiB at random offsets of random full zones,
 *    as point lookups do; each read is timed;
 *  - reclaim: when there are more than --keep-full full zones, the oldest
 *    is reset (zonefs: truncate to 0; raw: BLKRESETZONE) once no read is
 *    in flight in it, and returned to the free zones.
 * At most --max-open zones are written at once (the log's included). The
 * --prefill zones are filled before the timed run, so that the readers
 * have data from its start; every zone used that is not empty is reset
 * before that.
 *
 * Sizes are bytes everywhere; the 512-byte sectors of the zone ioctls are
 * converted where they are called.
 *
 * Each zone has one write in flight at a time. On a raw device, a write
 * larger than the device's largest request is split, and its parts reach
 * the zone in order only under a zone-aware I/O scheduler (mq-deadline:
 * SCSI ZBC disks get it; NVMe ZNS namespaces from the zonefs-dkms udev
 * rule).
 *
 * Output: one line of key=value pairs on stdout (see lsm_usage()). Exit
 * status: 0 done, 1 failure (one line on stderr), 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/blkzoned.h>

#include "zonefs_format.h"

#define LSM_BLOCK		4096U		/* I/O alignment and read size */
#define LSM_WRITE_MIN		(64U << 10)
#define LSM_WRITE_MAX		(1U << 20)
#define LSM_PREFILL_IO		(1U << 20)
#define LSM_MAX_THREADS		256U		/* writers, and readers */
#define LSM_LAT_MAX		(1U << 20)	/* samples kept per thread */
#define LSM_REPORT_BATCH	4096U		/* zones per BLKREPORTZONE */
#define LSM_SECTOR_SHIFT	9

/*
 * A zone of the workload: the file seq/<idx>, or the raw device's idx-th
 * writable sequential zone after zone 0 (the zone zonefs shows as
 * seq/<idx> when none before it is read-only or offline).
 * start, len, cap and rfd are set before the threads start and never
 * change. wp and wfd belong to the thread that holds the zone (a writer,
 * the log, or the reclaim that took it off the full list). readers and
 * reclaim are under lsm.lock.
 */
struct lsm_zone {
	unsigned int	idx;
	uint64_t	start;		/* raw: offset on the device */
	uint64_t	len;		/* raw: zone length */
	uint64_t	cap;		/* capacity: what can be written */
	uint64_t	wp;		/* write pointer, from the zone start */
	int		rfd;		/* fs: O_RDONLY | O_DIRECT, for reads */
	int		wfd;		/* fs: O_WRONLY | O_DIRECT, or -1 */
	unsigned int	readers;	/* reads in flight */
	bool		reclaim;	/* off the full list, waiting for reset */
};

/*
 * Latencies of one thread (ns): the first LSM_LAT_MAX as they come, then
 * a uniform sample of all of them (reservoir sampling), so that a long
 * run costs no more memory. Each kept sample stands for seen / kept.
 */
struct lsm_lat {
	uint64_t	*ns;
	uint64_t	kept;
	uint64_t	seen;
};

struct lsm;

struct lsm_worker {
	struct lsm	*l;
	pthread_t	thread;
	bool		started;
	uint64_t	rng;
	void		*buf;
	uint64_t	ops;		/* writes or reads done */
	uint64_t	bytes;		/* bytes written */
	uint64_t	syncs;		/* log: fdatasync() calls */
	struct lsm_lat	lat;		/* log: fdatasync; reader: pread */
};

struct lsm {
	/* Options. */
	const char	*path;		/* MNT (fs) or DEV (raw) */
	bool		raw;
	bool		explicit_open;
	double		seconds;
	unsigned int	writers;
	unsigned int	readers;
	unsigned int	sync_every;
	unsigned int	prefill;
	unsigned int	keep_full;
	unsigned int	max_open;	/* 0: writers + 1 */
	unsigned int	nr_zones;	/* 0: the fewest the workload needs */
	uint64_t	zone_bytes;	/* fs: capacity override, 0: none */
	uint64_t	seed;

	int		dev_fd;		/* raw: the device, O_RDWR | O_DIRECT */
	struct lsm_zone	*zones;

	/*
	 * lock protects the free and full lists (rings of nr_zones slots,
	 * oldest at the head), open_slots, resets, every zone's readers and
	 * reclaim, stop and err. cond is broadcast at every change a thread
	 * may wait for: a zone freed, the last read of a zone being
	 * reclaimed done, an open slot given back, the stop. Threads test
	 * stop without the lock between I/Os (atomic loads).
	 */
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	struct lsm_zone	**free_ring;
	struct lsm_zone	**full_ring;
	unsigned int	free_head, free_cnt;
	unsigned int	full_head, full_cnt;
	unsigned int	open_slots;
	uint64_t	resets;
	bool		stop;
	char		err[512];	/* the first failure, "" if none */
};

static uint64_t lsm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* splitmix64, to spread the seed over the threads' states. */
static uint64_t lsm_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xorshift64*: a thread's PRNG. The state is never 0. */
static uint64_t lsm_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static void lsm_lat_add(struct lsm_lat *lat, uint64_t *rng, uint64_t ns)
{
	uint64_t i;

	if (lat->kept < LSM_LAT_MAX) {
		lat->ns[lat->kept++] = ns;
	} else {
		i = lsm_rand(rng) % (lat->seen + 1);
		if (i < LSM_LAT_MAX)
			lat->ns[i] = ns;
	}
	lat->seen++;
}

static bool lsm_stopped(struct lsm *l)
{
	return __atomic_load_n(&l->stop, __ATOMIC_RELAXED);
}

/* Under l->lock. */
static void lsm_set_stop(struct lsm *l)
{
	__atomic_store_n(&l->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&l->cond);
}

/*
 * Record the first failure and stop every thread; main() prints it. Not
 * under l->lock.
 */
static void __attribute__((format(printf, 2, 3)))
lsm_fail(struct lsm *l, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&l->lock);
	if (!l->err[0]) {
		va_start(ap, fmt);
		vsnprintf(l->err, sizeof(l->err), fmt, ap);
		va_end(ap);
	}
	lsm_set_stop(l);
	pthread_mutex_unlock(&l->lock);
}

/* lsm_fail() with ": <the error's text>" after the message; returns -1. */
static int __attribute__((format(printf, 3, 4)))
lsm_fail_errno(struct lsm *l, int err, const char *fmt, ...)
{
	char msg[sizeof(l->err)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lsm_fail(l, "%s: %s", msg, strerror(err));
	return -1;
}

/* The zone's name in messages: "MNT/seq/N" or "DEV: zone at sector S". */
static const char *lsm_zone_name(const struct lsm *l, const struct lsm_zone *z,
				 char *buf, size_t size)
{
	if (l->raw)
		snprintf(buf, size, "%s: zone at sector %llu", l->path,
			 (unsigned long long)(z->start >> LSM_SECTOR_SHIFT));
	else
		snprintf(buf, size, "%s/seq/%u", l->path, z->idx);
	return buf;
}

/* BLKOPENZONE, BLKCLOSEZONE or BLKRESETZONE on one whole zone. */
static int lsm_zone_mgmt(struct lsm *l, struct lsm_zone *z, unsigned long op,
			 const char *opname)
{
	struct blk_zone_range range = {
		.sector		= z->start >> LSM_SECTOR_SHIFT,
		.nr_sectors	= z->len >> LSM_SECTOR_SHIFT,
	};
	char name[PATH_MAX + 64];
	int err;

	if (!ioctl(l->dev_fd, op, &range))
		return 0;
	err = errno;
	return lsm_fail_errno(l, err, "%s: %s",
			      lsm_zone_name(l, z, name, sizeof(name)), opname);
}

/*
 * Start writing a zone. A zonefs file is opened for writing, which opens
 * its zone on an explicit-open mount; a raw zone is opened explicitly
 * only with --explicit-open, else by the first write.
 */
static int lsm_zone_open(struct lsm *l, struct lsm_zone *z)
{
	char name[PATH_MAX + 64];

	if (l->raw)
		return l->explicit_open ?
			lsm_zone_mgmt(l, z, BLKOPENZONE, "BLKOPENZONE") : 0;
	lsm_zone_name(l, z, name, sizeof(name));
	z->wfd = open(name, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (z->wfd >= 0)
		return 0;
	return lsm_fail_errno(l, errno, "%s: open for writing", name);
}

/*
 * Stop writing a zone. A full zone is no longer open; one left not full
 * (at the stop) is closed, by the file's close or BLKCLOSEZONE.
 */
static int lsm_zone_close(struct lsm *l, struct lsm_zone *z)
{
	char name[PATH_MAX + 64];
	int fd = z->wfd, err;

	if (l->raw)
		return l->explicit_open && z->wp < z->cap ?
			lsm_zone_mgmt(l, z, BLKCLOSEZONE, "BLKCLOSEZONE") : 0;
	z->wfd = -1;
	if (!close(fd))
		return 0;
	err = errno;
	return lsm_fail_errno(l, err, "%s: close",
			      lsm_zone_name(l, z, name, sizeof(name)));
}

/*
 * Reset a zone. A file is truncated by its path: an open for writing would
 * count against the open zones of an explicit-open mount (the stock
 * zonefs counts it even for a full zone) and could fail with EBUSY.
 */
static int lsm_zone_reset(struct lsm *l, struct lsm_zone *z)
{
	char name[PATH_MAX + 64];

	if (l->raw) {
		if (lsm_zone_mgmt(l, z, BLKRESETZONE, "BLKRESETZONE"))
			return -1;
	} else {
		lsm_zone_name(l, z, name, sizeof(name));
		if (truncate(name, 0))
			return lsm_fail_errno(l, errno, "%s: truncate to 0", name);
	}
	z->wp = 0;
	return 0;
}

/* Append len bytes at the zone's write pointer. */
static int lsm_write(struct lsm *l, struct lsm_zone *z, const void *buf,
		     size_t len)
{
	char name[PATH_MAX + 64];
	ssize_t ret;
	int err;

	if (l->raw)
		ret = pwrite(l->dev_fd, buf, len, (off_t)(z->start + z->wp));
	else
		ret = pwrite(z->wfd, buf, len, (off_t)z->wp);
	if (ret == (ssize_t)len) {
		z->wp += len;
		return 0;
	}
	err = errno;
	lsm_zone_name(l, z, name, sizeof(name));
	if (ret < 0)
		lsm_fail(l, "%s: write of %zu bytes at %llu: %s", name, len,
			 (unsigned long long)z->wp, strerror(err));
	else
		lsm_fail(l, "%s: write of %zu bytes at %llu: short write (%zd bytes)",
			 name, len, (unsigned long long)z->wp, ret);
	return -1;
}

static int lsm_read(struct lsm *l, struct lsm_zone *z, void *buf, uint64_t off)
{
	char name[PATH_MAX + 64];
	ssize_t ret;
	int err;

	if (l->raw)
		ret = pread(l->dev_fd, buf, LSM_BLOCK, (off_t)(z->start + off));
	else
		ret = pread(z->rfd, buf, LSM_BLOCK, (off_t)off);
	if (ret == LSM_BLOCK)
		return 0;
	err = errno;
	lsm_zone_name(l, z, name, sizeof(name));
	if (ret < 0)
		lsm_fail(l, "%s: read of %u bytes at %llu: %s", name, LSM_BLOCK,
			 (unsigned long long)off, strerror(err));
	else
		lsm_fail(l, "%s: read of %u bytes at %llu: short read (%zd bytes)",
			 name, LSM_BLOCK, (unsigned long long)off, ret);
	return -1;
}

/* The log's fdatasync(), timed. On a raw device it flushes the device. */
static int lsm_log_sync(struct lsm_worker *w, struct lsm_zone *z)
{
	struct lsm *l = w->l;
	char name[PATH_MAX + 64];
	uint64_t t0 = lsm_now_ns();
	int err;

	if (fdatasync(l->raw ? l->dev_fd : z->wfd)) {
		err = errno;
		return lsm_fail_errno(l, err, "%s: fdatasync",
				      lsm_zone_name(l, z, name, sizeof(name)));
	}
	lsm_lat_add(&w->lat, &w->rng, lsm_now_ns() - t0);
	w->syncs++;
	return 0;
}

/* Ring helpers, under l->lock. */
static void lsm_push(struct lsm *l, struct lsm_zone **ring, unsigned int head,
		     unsigned int *cnt, struct lsm_zone *z)
{
	ring[(head + *cnt) % l->nr_zones] = z;
	(*cnt)++;
}

static struct lsm_zone *lsm_pop(struct lsm *l, struct lsm_zone **ring,
				unsigned int *head, unsigned int *cnt)
{
	struct lsm_zone *z = ring[*head];

	*head = (*head + 1) % l->nr_zones;
	(*cnt)--;
	return z;
}

/*
 * Take a free zone and an open slot for writing it, waiting for both.
 * NULL once stopped.
 */
static struct lsm_zone *lsm_take_zone(struct lsm *l)
{
	struct lsm_zone *z = NULL;

	pthread_mutex_lock(&l->lock);
	while (!l->stop && (!l->open_slots || !l->free_cnt))
		pthread_cond_wait(&l->cond, &l->lock);
	if (!l->stop) {
		l->open_slots--;
		z = lsm_pop(l, l->free_ring, &l->free_head, &l->free_cnt);
	}
	pthread_mutex_unlock(&l->lock);
	return z;
}

static void lsm_put_slot(struct lsm *l)
{
	pthread_mutex_lock(&l->lock);
	l->open_slots++;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

/*
 * A zone was filled: it joins the full zones, and the oldest above
 * --keep-full are reset, each once its reads in flight are done (no new
 * read can start in a zone off the list), and freed.
 */
static int lsm_zone_full(struct lsm *l, struct lsm_zone *z)
{
	pthread_mutex_lock(&l->lock);
	lsm_push(l, l->full_ring, l->full_head, &l->full_cnt, z);
	while (!l->stop && l->full_cnt > l->keep_full) {
		z = lsm_pop(l, l->full_ring, &l->full_head, &l->full_cnt);
		z->reclaim = true;
		while (z->readers)
			pthread_cond_wait(&l->cond, &l->lock);
		pthread_mutex_unlock(&l->lock);
		if (lsm_zone_reset(l, z))
			return -1;
		pthread_mutex_lock(&l->lock);
		z->reclaim = false;
		lsm_push(l, l->free_ring, l->free_head, &l->free_cnt, z);
		l->resets++;
		pthread_cond_broadcast(&l->cond);
	}
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/*
 * What the writers and the log share: take a free zone, open it, fill it
 * with @fill until the run stops or the zone is full, close it, and hand a
 * full zone over to the reclaim.
 */
static void *lsm_zone_cycle(struct lsm_worker *w,
			    int (*fill)(struct lsm_worker *w, struct lsm_zone *z))
{
	struct lsm *l = w->l;
	struct lsm_zone *z;
	int ret = 0;

	while (!ret && (z = lsm_take_zone(l))) {
		if (lsm_zone_open(l, z)) {
			lsm_put_slot(l);
			break;
		}
		ret = fill(w, z);
		if (lsm_zone_close(l, z))
			ret = -1;
		lsm_put_slot(l);
		if (ret || z->wp < z->cap)
			break;
		ret = lsm_zone_full(l, z);
	}
	return NULL;
}

/* A writer: 64 KiB to 1 MiB at a time. */
static int lsm_writer_fill(struct lsm_worker *w, struct lsm_zone *z)
{
	const uint64_t nr_sizes = (LSM_WRITE_MAX - LSM_WRITE_MIN) / LSM_BLOCK + 1;
	struct lsm *l = w->l;
	uint64_t len;
	int ret;

	while (!lsm_stopped(l) && z->wp < z->cap) {
		len = LSM_WRITE_MIN + lsm_rand(&w->rng) % nr_sizes * LSM_BLOCK;
		if (len > z->cap - z->wp)
			len = z->cap - z->wp;
		ret = lsm_write(l, z, w->buf, len);
		if (ret)
			return ret;
		w->ops++;
		w->bytes += len;
	}
	return 0;
}

static void *lsm_writer(void *arg)
{
	return lsm_zone_cycle(arg, lsm_writer_fill);
}

/*
 * The log: 4 KiB appends, fdatasync() every --log-sync-every writes and
 * before leaving a full zone.
 */
static int lsm_log_fill(struct lsm_worker *w, struct lsm_zone *z)
{
	struct lsm *l = w->l;
	unsigned int pending = 0;
	int ret;

	while (!lsm_stopped(l) && z->wp < z->cap) {
		ret = lsm_write(l, z, w->buf, LSM_BLOCK);
		if (ret)
			return ret;
		w->ops++;
		w->bytes += LSM_BLOCK;
		if (++pending == l->sync_every) {
			ret = lsm_log_sync(w, z);
			if (ret)
				return ret;
			pending = 0;
		}
	}
	if (pending && z->wp == z->cap)
		return lsm_log_sync(w, z);
	return 0;
}

static void *lsm_log(void *arg)
{
	return lsm_zone_cycle(arg, lsm_log_fill);
}

static void *lsm_reader(void *arg)
{
	struct lsm_worker *w = arg;
	struct lsm *l = w->l;
	const struct timespec idle = { .tv_nsec = 1000000 };
	struct lsm_zone *z;
	uint64_t off, t0;
	int ret;

	while (!lsm_stopped(l)) {
		pthread_mutex_lock(&l->lock);
		if (!l->full_cnt) {
			/* Nothing readable yet (no --prefill): wait for a zone. */
			pthread_mutex_unlock(&l->lock);
			nanosleep(&idle, NULL);
			continue;
		}
		z = l->full_ring[(l->full_head + lsm_rand(&w->rng) % l->full_cnt) %
			    l->nr_zones];
		z->readers++;
		pthread_mutex_unlock(&l->lock);

		off = lsm_rand(&w->rng) % (z->cap / LSM_BLOCK) * LSM_BLOCK;
		t0 = lsm_now_ns();
		ret = lsm_read(l, z, w->buf, off);
		if (!ret) {
			lsm_lat_add(&w->lat, &w->rng, lsm_now_ns() - t0);
			w->ops++;
		}

		pthread_mutex_lock(&l->lock);
		if (!--z->readers && z->reclaim)
			pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
		if (ret)
			break;
	}
	return NULL;
}

/* Fill the --prefill zones before the run, one at a time. */
static int lsm_prefill(struct lsm *l, void *buf)
{
	struct lsm_zone *z;
	uint64_t len;
	unsigned int i;

	for (i = 0; i < l->prefill; i++) {
		z = lsm_pop(l, l->free_ring, &l->free_head, &l->free_cnt);
		if (lsm_zone_open(l, z))
			return -1;
		while (z->wp < z->cap) {
			len = z->cap - z->wp;
			if (len > LSM_PREFILL_IO)
				len = LSM_PREFILL_IO;
			if (lsm_write(l, z, buf, len)) {
				lsm_zone_close(l, z);
				return -1;
			}
		}
		if (lsm_zone_close(l, z))
			return -1;
		lsm_push(l, l->full_ring, l->full_head, &l->full_cnt, z);
	}
	return 0;
}

static int lsm_check_cap(struct lsm *l, struct lsm_zone *z)
{
	char name[PATH_MAX + 64];

	if (z->cap >= LSM_BLOCK && !(z->cap % LSM_BLOCK))
		return 0;
	lsm_fail(l, "%s: capacity %llu bytes is not a positive multiple of %u",
		 lsm_zone_name(l, z, name, sizeof(name)),
		 (unsigned long long)z->cap, LSM_BLOCK);
	return -1;
}

/*
 * fs: open MNT/seq/0 .. N-1 for reading. A file's capacity is its st_blocks
 * (zonefs, ours and the stock one, report it there in 512-byte units),
 * or --zone-bytes; its write pointer is its size.
 */
static int lsm_setup_fs(struct lsm *l)
{
	char name[PATH_MAX + 64];
	struct lsm_zone *z;
	struct statfs sfs;
	struct stat st;
	unsigned int i;

	if (statfs(l->path, &sfs))
		return lsm_fail_errno(l, errno, "%s", l->path);
	if (!l->zone_bytes && sfs.f_type != ZONEFS_MAGIC) {
		lsm_fail(l, "%s: not a zonefs mount: give the capacity with --zone-bytes",
			 l->path);
		return -1;
	}
	for (i = 0; i < l->nr_zones; i++) {
		z = &l->zones[i];
		lsm_zone_name(l, z, name, sizeof(name));
		z->rfd = open(name, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (z->rfd < 0 || fstat(z->rfd, &st))
			return lsm_fail_errno(l, errno, "%s: open O_RDONLY | O_DIRECT",
					      name);
		if (!S_ISREG(st.st_mode)) {
			lsm_fail(l, "%s: not a regular file", name);
			return -1;
		}
		z->cap = l->zone_bytes ? l->zone_bytes :
			 (uint64_t)st.st_blocks << LSM_SECTOR_SHIFT;
		z->wp = st.st_size;
		if (lsm_check_cap(l, z) || (z->wp && lsm_zone_reset(l, z)))
			return -1;
	}
	return 0;
}

/*
 * raw: take the first N sequential zones after zone 0 that can be written
 * (not read-only, not offline: zonefs shows those as files too, so past
 * one of them seq/<idx> and raw zone idx are different zones) from
 * BLKREPORTZONE, in batches:
 * struct blk_zone_report, then room for nr_zones struct blk_zone, all in
 * 512-byte sectors. A zone not empty is reset.
 */
static int lsm_setup_raw(struct lsm *l)
{
	const size_t rep_size = sizeof(struct blk_zone_report) +
				LSM_REPORT_BATCH * sizeof(struct blk_zone);
	struct blk_zone_report *rep;
	const struct blk_zone *bz;
	unsigned int i, n = 0;
	uint64_t sector = 0;
	struct lsm_zone *z;
	struct stat st;
	int err;

	if (stat(l->path, &st))
		return lsm_fail_errno(l, errno, "%s", l->path);
	if (!S_ISBLK(st.st_mode)) {
		lsm_fail(l, "%s: not a block device", l->path);
		return -1;
	}
	l->dev_fd = open(l->path, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	if (l->dev_fd < 0)
		return lsm_fail_errno(l, errno, "%s: open O_RDWR | O_DIRECT | O_EXCL",
				      l->path);
	rep = malloc(rep_size);
	if (!rep) {
		lsm_fail(l, "out of memory");
		return -1;
	}
	while (n < l->nr_zones) {
		memset(rep, 0, rep_size);
		rep->sector = sector;
		rep->nr_zones = LSM_REPORT_BATCH;
		if (ioctl(l->dev_fd, BLKREPORTZONE, rep)) {
			err = errno;
			lsm_fail(l, "%s: BLKREPORTZONE: %s", l->path,
				 err == ENOTTY ? "not a zoned block device" :
				 strerror(err));
			goto free_rep;
		}
		if (!rep->nr_zones)
			break;
		for (i = 0; i < rep->nr_zones && n < l->nr_zones; i++) {
			bz = &rep->zones[i];
			if (!bz->start ||
			    (bz->type != BLK_ZONE_TYPE_SEQWRITE_REQ &&
			     bz->type != BLK_ZONE_TYPE_SEQWRITE_PREF) ||
			    bz->cond == BLK_ZONE_COND_READONLY ||
			    bz->cond == BLK_ZONE_COND_OFFLINE)
				continue;
			z = &l->zones[n++];
			z->start = bz->start << LSM_SECTOR_SHIFT;
			z->len = bz->len << LSM_SECTOR_SHIFT;
			z->cap = (rep->flags & BLK_ZONE_REP_CAPACITY ?
				  bz->capacity : bz->len) << LSM_SECTOR_SHIFT;
			/* Anything but empty is reset below. */
			z->wp = bz->cond == BLK_ZONE_COND_EMPTY ? 0 : z->cap;
		}
		bz = &rep->zones[rep->nr_zones - 1];
		sector = bz->start + bz->len;
	}
	if (n < l->nr_zones) {
		lsm_fail(l, "%s: %u writable sequential zones after zone 0, %u needed",
			 l->path, n, l->nr_zones);
		goto free_rep;
	}
	free(rep);
	for (i = 0; i < l->nr_zones; i++) {
		z = &l->zones[i];
		if (lsm_check_cap(l, z) || (z->wp && lsm_zone_reset(l, z)))
			return -1;
	}
	return 0;

free_rep:
	free(rep);
	return -1;
}

static int lsm_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The p50 and p99 of the samples of n workers, in microseconds ("na" if
 * none). Each worker's samples are sorted, then merged with the weight
 * seen / kept each, so that a reservoir stands for all that it sampled.
 */
static void lsm_percentiles(struct lsm_worker *ws, unsigned int n,
			    char *p50, char *p99, size_t size)
{
	const double ps[2] = { 0.50, 0.99 };
	char *out[2] = { p50, p99 };
	uint64_t *pos, best = 0;
	double total = 0, cum = 0;
	unsigned int i, k, next = 0;

	snprintf(p50, size, "na");
	snprintf(p99, size, "na");
	pos = calloc(n ? n : 1, sizeof(*pos));
	if (!pos)
		return;
	for (i = 0; i < n; i++) {
		qsort(ws[i].lat.ns, ws[i].lat.kept, sizeof(uint64_t), lsm_cmp_u64);
		total += ws[i].lat.seen;
	}
	while (next < 2 && total > 0) {
		/* The smallest sample left among the workers. */
		k = n;
		for (i = 0; i < n; i++)
			if (pos[i] < ws[i].lat.kept &&
			    (k == n || ws[i].lat.ns[pos[i]] < best)) {
				k = i;
				best = ws[i].lat.ns[pos[i]];
			}
		if (k == n)
			break;
		cum += (double)ws[k].lat.seen / ws[k].lat.kept;
		pos[k]++;
		/* The margin absorbs the rounding of the weights' sum. */
		while (next < 2 && cum >= ps[next] * total * (1 - 1e-12))
			snprintf(out[next++], size, "%.1f", best / 1000.0);
	}
	free(pos);
}

static void lsm_usage(FILE *f)
{
	fprintf(f,
"Usage:\n"
"  zonefs_lsm --fs MNT [options]\n"
"  zonefs_lsm --raw DEV [--explicit-open] [options]\n"
"\n"
"Run the zone pattern of an LSM-tree store for a while and print one line of\n"
"results: W writers fill a zone each with 64 KiB to 1 MiB direct writes, a\n"
"log thread appends 4 KiB direct writes to its zone with fdatasync every K,\n"
"R readers read 4 KiB at random from full zones, and the oldest full zones\n"
"above --keep-full are reset and reused. Every zone used that is not empty\n"
"is reset first.\n"
"\n"
"Targets (one of):\n"
"  --fs MNT            the files MNT/seq/0, 1, ... of a zonefs mount; a file's\n"
"                      capacity is its st_blocks, or --zone-bytes\n"
"  --raw DEV           the sequential zones of the zoned block device DEV after\n"
"                      zone 0 (those zonefs shows as seq/0, 1, ...), skipping\n"
"                      read-only and offline ones, from BLKREPORTZONE; DEV is\n"
"                      opened O_EXCL (not mounted) and the data of those zones\n"
"                      is lost\n"
"\n"
"Options:\n"
"  --seconds S         length of the run, in seconds (default 20)\n"
"  --writers W         writer threads, 0 to %u (default 4)\n"
"  --readers R         reader threads, 0 to %u (default 2)\n"
"  --log-sync-every K  fdatasync the log every K writes (default 4)\n"
"  --prefill F         zones filled before the run, for the readers (default 4)\n"
"  --keep-full N       full zones kept for the readers; above N the oldest is\n"
"                      reset (default 8)\n"
"  --max-open N        zones written at once, the log's included\n"
"                      (default W + 1)\n"
"  --zones N           zones used: seq/0 to seq/N-1 (default and least:\n"
"                      W + 1 + the larger of F and --keep-full)\n"
"  --zone-bytes BYTES  with --fs: the capacity of every file instead of its\n"
"                      st_blocks (suffix K, M or G; a multiple of 4096; on\n"
"                      zonefs at most the files' capacity), so that a directory\n"
"                      of regular files seq/0, 1, ... can stand in for a mount\n"
"  --seed N            seed of the write sizes and read offsets (default 1)\n"
"  --explicit-open     with --raw: BLKOPENZONE a zone before writing it, and\n"
"                      BLKCLOSEZONE it if the run stops before it is full\n"
"  -h, --help          this text\n"
"\n"
"Output, one line on stdout (latencies in microseconds, \"na\" without samples):\n"
"  mode=fs|raw writers= readers= zones= zone_cap_MiB= max_open= seconds=\n"
"  write_MiBps= write_ops= log_writes= log_fsyncs= log_fsync_us_p50=\n"
"  log_fsync_us_p99= reads= read_us_p50= read_us_p99= resets=\n"
"write_MiBps and write_ops count the writers' writes, not the log's; resets\n"
"counts the reclaimed zones.\n"
"\n"
"Exit status: 0 done, 1 failure (one line on stderr), 2 usage error.\n",
		LSM_MAX_THREADS, LSM_MAX_THREADS);
}

/* A decimal number in [min, max]. */
static int lsm_parse_ull(const char *s, unsigned long long min,
			 unsigned long long max, unsigned long long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno || *end || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

/* A byte count, with an optional K, M or G (binary) suffix. */
static int lsm_parse_bytes(const char *s, uint64_t *val)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (shift && end[1])
		return -EINVAL;
	if (v > (UINT64_MAX >> shift))
		return -EINVAL;
	*val = (uint64_t)v << shift;
	return 0;
}

enum {
	LSM_OPT_FS = 256,
	LSM_OPT_RAW,
	LSM_OPT_SECONDS,
	LSM_OPT_WRITERS,
	LSM_OPT_READERS,
	LSM_OPT_SYNC_EVERY,
	LSM_OPT_PREFILL,
	LSM_OPT_KEEP_FULL,
	LSM_OPT_MAX_OPEN,
	LSM_OPT_ZONES,
	LSM_OPT_ZONE_BYTES,
	LSM_OPT_SEED,
	LSM_OPT_EXPLICIT_OPEN,
};

/* In the order of the enum above: lsm_parse_args() names them by it. */
static const struct option lsm_options[] = {
	{ "fs",			required_argument,	NULL, LSM_OPT_FS },
	{ "raw",		required_argument,	NULL, LSM_OPT_RAW },
	{ "seconds",		required_argument,	NULL, LSM_OPT_SECONDS },
	{ "writers",		required_argument,	NULL, LSM_OPT_WRITERS },
	{ "readers",		required_argument,	NULL, LSM_OPT_READERS },
	{ "log-sync-every",	required_argument,	NULL, LSM_OPT_SYNC_EVERY },
	{ "prefill",		required_argument,	NULL, LSM_OPT_PREFILL },
	{ "keep-full",		required_argument,	NULL, LSM_OPT_KEEP_FULL },
	{ "max-open",		required_argument,	NULL, LSM_OPT_MAX_OPEN },
	{ "zones",		required_argument,	NULL, LSM_OPT_ZONES },
	{ "zone-bytes",		required_argument,	NULL, LSM_OPT_ZONE_BYTES },
	{ "seed",		required_argument,	NULL, LSM_OPT_SEED },
	{ "explicit-open",	no_argument,		NULL, LSM_OPT_EXPLICIT_OPEN },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 },
};

/*
 * Parse the command line into l. Returns 0, 1 after -h, or -1 after one
 * line on stderr.
 */
static int lsm_parse_args(struct lsm *l, int argc, char **argv)
{
	unsigned long long v, least;
	const char *name;
	char *end;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lsm_options, NULL)) != -1) {
		/* optind has moved past the option (and its argument). */
		name = c >= LSM_OPT_FS ? lsm_options[c - LSM_OPT_FS].name : "";
		switch (c) {
		case 'h':
			lsm_usage(stdout);
			return 1;
		case ':':
			fprintf(stderr, "zonefs_lsm: option '%s' needs an argument\n",
				argv[optind - 1]);
			return -1;
		case '?':
			fprintf(stderr, "zonefs_lsm: unknown option '%s' (-h for help)\n",
				argv[optind - 1]);
			return -1;
		case LSM_OPT_FS:
		case LSM_OPT_RAW:
			if (l->path) {
				fprintf(stderr, "zonefs_lsm: give one of --fs and --raw, once\n");
				return -1;
			}
			if (!*optarg) {
				fprintf(stderr, "zonefs_lsm: --%s: empty path\n", name);
				return -1;
			}
			l->path = optarg;
			l->raw = c == LSM_OPT_RAW;
			break;
		case LSM_OPT_SECONDS:
			errno = 0;
			l->seconds = strtod(optarg, &end);
			if ((*optarg < '0' || *optarg > '9') || errno || *end ||
			    !(l->seconds > 0 && l->seconds <= 1e6))
				goto bad_number;
			break;
		case LSM_OPT_WRITERS:
		case LSM_OPT_READERS:
			if (lsm_parse_ull(optarg, 0, LSM_MAX_THREADS, &v))
				goto bad_number;
			*(c == LSM_OPT_WRITERS ? &l->writers : &l->readers) = v;
			break;
		case LSM_OPT_SYNC_EVERY:
			if (lsm_parse_ull(optarg, 1, 1000000, &v))
				goto bad_number;
			l->sync_every = v;
			break;
		case LSM_OPT_PREFILL:
		case LSM_OPT_KEEP_FULL:
			if (lsm_parse_ull(optarg, 0, 1000000, &v))
				goto bad_number;
			*(c == LSM_OPT_PREFILL ? &l->prefill : &l->keep_full) = v;
			break;
		case LSM_OPT_MAX_OPEN:
		case LSM_OPT_ZONES:
			if (lsm_parse_ull(optarg, 1, 1000000, &v))
				goto bad_number;
			*(c == LSM_OPT_MAX_OPEN ? &l->max_open : &l->nr_zones) = v;
			break;
		case LSM_OPT_ZONE_BYTES:
			if (lsm_parse_bytes(optarg, &l->zone_bytes) ||
			    !l->zone_bytes || l->zone_bytes % LSM_BLOCK ||
			    l->zone_bytes > (1ULL << 40)) {
				fprintf(stderr,
					"zonefs_lsm: --zone-bytes: bad size '%s' (a multiple of %u, at most 1T)\n",
					optarg, LSM_BLOCK);
				return -1;
			}
			break;
		case LSM_OPT_SEED:
			if (lsm_parse_ull(optarg, 0, UINT64_MAX, &v))
				goto bad_number;
			l->seed = v;
			break;
		case LSM_OPT_EXPLICIT_OPEN:
			l->explicit_open = true;
			break;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "zonefs_lsm: unexpected argument '%s' (-h for help)\n",
			argv[optind]);
		return -1;
	}
	if (!l->path) {
		fprintf(stderr, "zonefs_lsm: give --fs MNT or --raw DEV (-h for help)\n");
		return -1;
	}
	if (l->raw && l->zone_bytes) {
		fprintf(stderr, "zonefs_lsm: --zone-bytes is for --fs only\n");
		return -1;
	}
	if (!l->raw && l->explicit_open) {
		fprintf(stderr,
			"zonefs_lsm: --explicit-open is for --raw only (mount zonefs with -o explicit-open)\n");
		return -1;
	}
	if (!l->max_open)
		l->max_open = l->writers + 1;
	least = (unsigned long long)l->writers + 1 +
		(l->prefill > l->keep_full ? l->prefill : l->keep_full);
	if (!l->nr_zones && least <= 1000000)
		l->nr_zones = least;
	if (l->nr_zones < least) {
		fprintf(stderr,
			"zonefs_lsm: --zones: at least %llu zones are needed (writers + 1 + max(prefill, keep-full))\n",
			least);
		return -1;
	}
	return 0;

bad_number:
	fprintf(stderr, "zonefs_lsm: --%s: bad number '%s'\n", name, optarg);
	return -1;
}

/* Start the log, the writers and the readers; stop them after S seconds. */
static int lsm_run(struct lsm *l, struct lsm_worker *ws, unsigned int nr_ws,
		   uint64_t *elapsed)
{
	uint64_t t0, deadline;
	struct timespec ts;
	unsigned int i;
	int err;

	t0 = lsm_now_ns();
	for (i = 0; i < nr_ws; i++) {
		err = pthread_create(&ws[i].thread, NULL,
				     !i ? lsm_log : i <= l->writers ?
				     lsm_writer : lsm_reader, &ws[i]);
		if (err) {
			lsm_fail_errno(l, err, "pthread_create");
			break;
		}
		ws[i].started = true;
	}

	deadline = t0 + (uint64_t)(l->seconds * 1e9);
	pthread_mutex_lock(&l->lock);
	while (!l->stop && lsm_now_ns() < deadline) {
		ts.tv_sec = deadline / 1000000000ULL;
		ts.tv_nsec = deadline % 1000000000ULL;
		pthread_cond_timedwait(&l->cond, &l->lock, &ts);
	}
	lsm_set_stop(l);
	pthread_mutex_unlock(&l->lock);

	for (i = 0; i < nr_ws; i++)
		if (ws[i].started)
			pthread_join(ws[i].thread, NULL);
	*elapsed = lsm_now_ns() - t0;
	return l->err[0] ? -1 : 0;
}

static void lsm_report(struct lsm *l, struct lsm_worker *ws, uint64_t elapsed)
{
	char fs50[32], fs99[32], rd50[32], rd99[32];
	uint64_t bytes = 0, ops = 0, reads = 0;
	double secs = elapsed / 1e9;
	unsigned int i;

	for (i = 1; i <= l->writers; i++) {
		bytes += ws[i].bytes;
		ops += ws[i].ops;
	}
	for (i = 0; i < l->readers; i++)
		reads += ws[1 + l->writers + i].ops;
	lsm_percentiles(ws, 1, fs50, fs99, sizeof(fs50));
	lsm_percentiles(ws + 1 + l->writers, l->readers, rd50, rd99, sizeof(rd50));

	printf("mode=%s writers=%u readers=%u zones=%u zone_cap_MiB=%.1f max_open=%u",
	       l->raw ? "raw" : "fs", l->writers, l->readers, l->nr_zones,
	       l->zones[0].cap / 1048576.0, l->max_open);
	printf(" seconds=%.1f write_MiBps=%.1f write_ops=%llu", secs,
	       bytes / 1048576.0 / secs, (unsigned long long)ops);
	printf(" log_writes=%llu log_fsyncs=%llu log_fsync_us_p50=%s log_fsync_us_p99=%s",
	       (unsigned long long)ws[0].ops, (unsigned long long)ws[0].syncs,
	       fs50, fs99);
	printf(" reads=%llu read_us_p50=%s read_us_p99=%s resets=%llu\n",
	       (unsigned long long)reads, rd50, rd99,
	       (unsigned long long)l->resets);
}

int main(int argc, char **argv)
{
	struct lsm l = {
		.seconds	= 20,
		.writers	= 4,
		.readers	= 2,
		.sync_every	= 4,
		.prefill	= 4,
		.keep_full	= 8,
		.seed		= 1,
		.dev_fd		= -1,
	};
	struct lsm_worker *ws = NULL;
	unsigned int i, nr_ws = 0;
	pthread_condattr_t ca;
	uint64_t elapsed;
	void *buf = NULL;
	int ret;

	ret = lsm_parse_args(&l, argc, argv);
	if (ret)
		return ret > 0 ? 0 : 2;

	pthread_mutex_init(&l.lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l.cond, &ca);
	pthread_condattr_destroy(&ca);

	ret = 1;
	nr_ws = 1 + l.writers + l.readers;
	l.zones = calloc(l.nr_zones, sizeof(*l.zones));
	l.free_ring = calloc(l.nr_zones, sizeof(*l.free_ring));
	l.full_ring = calloc(l.nr_zones, sizeof(*l.full_ring));
	ws = calloc(nr_ws, sizeof(*ws));
	if (!l.zones || !l.free_ring || !l.full_ring || !ws ||
	    posix_memalign(&buf, LSM_BLOCK, LSM_PREFILL_IO)) {
		fprintf(stderr, "zonefs_lsm: out of memory\n");
		goto free_mem;
	}
	memset(buf, 0x5a, LSM_PREFILL_IO);
	for (i = 0; i < l.nr_zones; i++) {
		l.zones[i].idx = i;
		l.zones[i].rfd = -1;
		l.zones[i].wfd = -1;
	}
	for (i = 0; i < nr_ws; i++) {
		struct lsm_worker *w = &ws[i];
		size_t size = i && i <= l.writers ? LSM_WRITE_MAX : LSM_BLOCK;

		w->l = &l;
		w->rng = lsm_mix(l.seed + i) | 1;
		if (posix_memalign(&w->buf, LSM_BLOCK, size)) {
			fprintf(stderr, "zonefs_lsm: out of memory\n");
			goto free_mem;
		}
		/* One byte per thread: a zone's data shows who wrote it. */
		memset(w->buf, 0xa0 + (i & 0xf), size);
		if (i && i <= l.writers)
			continue;
		w->lat.ns = malloc(LSM_LAT_MAX * sizeof(*w->lat.ns));
		if (!w->lat.ns) {
			fprintf(stderr, "zonefs_lsm: out of memory\n");
			goto free_mem;
		}
	}

	if (l.raw ? lsm_setup_raw(&l) : lsm_setup_fs(&l))
		goto print_err;
	for (i = 0; i < l.nr_zones; i++)
		lsm_push(&l, l.free_ring, l.free_head, &l.free_cnt, &l.zones[i]);
	l.open_slots = l.max_open;
	if (lsm_prefill(&l, buf) || lsm_run(&l, ws, nr_ws, &elapsed))
		goto print_err;
	lsm_report(&l, ws, elapsed);
	ret = 0;
	goto close_fds;

print_err:
	fprintf(stderr, "zonefs_lsm: %s\n", l.err);
close_fds:
	for (i = 0; i < l.nr_zones; i++) {
		if (l.zones[i].rfd >= 0)
			close(l.zones[i].rfd);
		if (l.zones[i].wfd >= 0)
			close(l.zones[i].wfd);
	}
	if (l.dev_fd >= 0)
		close(l.dev_fd);
free_mem:
	for (i = 0; ws && i < nr_ws; i++) {
		free(ws[i].buf);
		free(ws[i].lat.ns);
	}
	free(ws);
	free(buf);
	free(l.full_ring);
	free(l.free_ring);
	free(l.zones);
	pthread_cond_destroy(&l.cond);
	pthread_mutex_destroy(&l.lock);
	return ret;
}
