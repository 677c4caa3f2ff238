// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_kill - writers that a user's process can be: killed in the middle of
 * a direct write, or colliding buffered, mmap and direct writes on one file.
 *
 *	zfs_kill kill FILE DEV SECTOR HOW MB ROUNDS UID SEED
 *	zfs_kill collide FILE SECONDS UID SEED
 *
 * "kill" runs ROUNDS writers, each a child with the user id UID that opens
 * FILE with O_DIRECT, maps a fresh PROT_READ anonymous buffer of MB MiB
 * (so that pinning its pages is slow: each one is faulted in) and writes it
 * whole, at the end of a sequential file or at offset 0 of a conventional
 * one, with pwrite ("sync") or io_uring ("uring"). The first round runs to
 * its end and gives the call's time T; each later child gets SIGKILL at a
 * random moment within T (SEED), while its pages are pinned and its
 * requests are in flight. After each round, judged by the device: the file
 * system must still be read-write (statvfs), and a sequential file's size
 * must equal the write pointer of its zone (at SECTOR) in DEV's zone
 * report (after an io_uring kill, once the write's completion has been
 * recovered from: within 10 s). At the end the file is read back: a
 * sequential file holds its first round's zeros and the killed rounds'
 * zeros up to its size, and every 4 KiB block of the first MB MiB of a
 * conventional file is either the pattern it had (0xa5 bytes) or zeros.
 * Prints "round N killed|done size S" for each
 * round, then "R killed K done D" (D includes the first round).
 *
 * "collide" runs three children with the user id UID for SECONDS on the
 * first 4 MiB of the conventional FILE: buffered pwrite, stores into a
 * shared mapping, and O_DIRECT pwrite, each 64 KiB at random offsets, then
 * stops them and fsyncs the file twice. Prints "C buffered N direct N
 * EBUSY N mmap N fsync RES fsync RES", RES being OK or an errno name.
 *
 * Usage errors exit 2; a broken check prints "ERR ..." and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <linux/blkzoned.h>
#include <liburing.h>

#define ZFS_KILL_BLOCK		4096
#define ZFS_KILL_SPAN		(4 << 20)
#define ZFS_KILL_IO		(64 << 10)
#define ZFS_KILL_CHUNK		(1 << 20)

static double zfs_kill_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long zfs_kill_num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	if (*end || v < 0) {
		fprintf(stderr, "zfs_kill: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static const char *zfs_kill_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "UNKNOWN";
}

static int zfs_kill_fail(const char *what)
{
	printf("ERR %s\n", what);
	return 1;
}

static void zfs_kill_become(uid_t uid)
{
	if (setgid(uid) || setuid(uid)) {
		perror("setuid");
		_exit(3);
	}
}

/* The write pointer of the zone at @sector of @dev, in bytes into the zone. */
static long long zfs_kill_wp(const char *dev, unsigned long long sector)
{
	struct {
		struct blk_zone_report rep;
		struct blk_zone zone;
	} r = { .rep = { .sector = sector, .nr_zones = 1 } };
	int fd = open(dev, O_RDONLY);
	long long wp = -1;

	if (fd < 0)
		return -1;
	if (!ioctl(fd, BLKREPORTZONE, &r) && r.rep.nr_zones == 1) {
		if (r.zone.cond == BLK_ZONE_COND_FULL)
			wp = (long long)r.zone.capacity * 512;
		else
			wp = (long long)(r.zone.wp - r.zone.start) * 512;
	}
	close(fd);
	return wp;
}

/*
 * The child of a round: one direct write of @len bytes at @off, with
 * pwrite, or on @ring (NULL: pwrite), which the parent made and keeps, so
 * that it can wait for the write's completion once the child is killed.
 */
static void zfs_kill_writer(const char *file, struct io_uring *ring,
			    size_t len, off_t off, uid_t uid, int ready)
{
	struct io_uring_cqe *cqe;
	ssize_t res;
	void *buf;
	int fd;

	zfs_kill_become(uid);
	fd = open(file, O_WRONLY | O_DIRECT);
	if (fd < 0)
		_exit(4);
	buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		_exit(5);
	if (write(ready, "r", 1) != 1)
		_exit(7);
	if (ring) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_write(sqe, fd, buf, len, off);
		if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
			_exit(8);
		res = cqe->res;
	} else {
		res = pwrite(fd, buf, len, off);
		if (res < 0)
			res = -errno;
	}
	if (res == (ssize_t)len)
		_exit(0);
	fprintf(stderr, "zfs_kill: write of %zu bytes at %lld: %s\n", len,
		(long long)off, res < 0 ? zfs_kill_errname(-res) : "short");
	_exit(9);
}

/*
 * After a killed child's io_uring write: the child's exit cancels it or
 * lets it finish, and its completion reaches @ring, which the parent
 * keeps, unless the child never submitted it or had reaped it.
 */
static int zfs_kill_reap(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_cqe *cqe;

	if (!IO_URING_READ_ONCE(*ring->sq.khead) ||
	    IO_URING_READ_ONCE(*ring->cq.khead))
		return 0;
	if (io_uring_wait_cqe_timeout(ring, &cqe, &ts)) {
		fprintf(stderr, "zfs_kill: no completion of the killed write\n");
		return -1;
	}
	return 0;
}

/*
 * One round: start the writer and, if @delay >= 0, kill it @delay seconds
 * after it said it was about to write. Returns 1 if it was killed, 0 if it
 * wrote all, -1 if it failed otherwise.
 */
static int zfs_kill_round(const char *file, const char *how, size_t len,
			  off_t off, uid_t uid, double delay)
{
	struct io_uring ring, *r = NULL;
	int pfd[2], status, ret = -1;
	pid_t pid;
	char c;

	if (!strcmp(how, "uring")) {
		if (io_uring_queue_init(2, &ring, 0))
			return -1;
		r = &ring;
	}
	if (pipe(pfd))
		goto exit_ring;
	pid = fork();
	if (pid < 0)
		goto exit_ring;
	if (!pid) {
		close(pfd[0]);
		zfs_kill_writer(file, r, len, off, uid, pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		close(pfd[0]);
		waitpid(pid, &status, 0);
		goto exit_ring;
	}
	close(pfd[0]);
	if (delay >= 0) {
		struct timespec ts = { (time_t)delay,
				       (long)((delay - (time_t)delay) * 1e9) };

		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
	}
	if (waitpid(pid, &status, 0) != pid)
		goto exit_ring;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		ret = r ? (zfs_kill_reap(r) ? -1 : 1) : 1;
	else if (WIFEXITED(status) && !WEXITSTATUS(status))
		ret = 0;
	else
		fprintf(stderr, "zfs_kill: writer status 0x%x\n", status);
exit_ring:
	if (r)
		io_uring_queue_exit(r);
	return ret;
}

/*
 * The file system is still read-write, and a sequential file's size is
 * its zone's write pointer (waiting up to @wait seconds for an
 * asynchronous completion's recovery, which a direct read runs).
 */
static int zfs_kill_judge(const char *file, const char *dev,
			  unsigned long long sector, int seq, double wait)
{
	double t0 = zfs_kill_now();
	struct statvfs sv;
	static char rbuf[ZFS_KILL_BLOCK] __attribute__((aligned(ZFS_KILL_BLOCK)));
	struct stat st;
	long long wp;
	int fd;

	for (;;) {
		fd = open(file, O_RDONLY | O_DIRECT);
		if (fd < 0 || pread(fd, rbuf, sizeof(rbuf), 0) < 0 || fstat(fd, &st))
			return zfs_kill_fail("read of the file after the round");
		close(fd);
		if (statvfs(file, &sv))
			return zfs_kill_fail("statvfs");
		if (sv.f_flag & ST_RDONLY)
			return zfs_kill_fail("the file system is read-only");
		if (!seq)
			return 0;
		wp = zfs_kill_wp(dev, sector);
		if (wp == st.st_size)
			return 0;
		if (zfs_kill_now() - t0 > wait) {
			printf("ERR size %lld, device write pointer %lld\n",
			       (long long)st.st_size, wp);
			return 1;
		}
		usleep(10000);
	}
}

/*
 * The file read back, a sequential one whole, the first @span bytes of a
 * conventional one: see the header.
 */
static int zfs_kill_readback(const char *file, int seq, off_t span)
{
	unsigned char *buf, *pat;
	struct stat st;
	off_t off, end;
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		return zfs_kill_fail("open for the read-back");
	if (posix_memalign((void **)&buf, ZFS_KILL_BLOCK, ZFS_KILL_CHUNK) ||
	    posix_memalign((void **)&pat, ZFS_KILL_BLOCK, ZFS_KILL_BLOCK))
		return zfs_kill_fail("memory");
	memset(pat, 0xa5, ZFS_KILL_BLOCK);
	end = seq ? st.st_size : span;
	for (off = 0; off < end; off += n) {
		size_t len = end - off < ZFS_KILL_CHUNK ? end - off : ZFS_KILL_CHUNK;
		size_t b, i;

		n = pread(fd, buf, len, off);
		if (n != (ssize_t)len) {
			printf("ERR read-back at %lld: %s\n", (long long)off,
			       n < 0 ? zfs_kill_errname(errno) : "short");
			return 1;
		}
		for (b = 0; b < len; b += ZFS_KILL_BLOCK) {
			for (i = 0; i < ZFS_KILL_BLOCK && !buf[b + i]; i++)
				;
			if (i == ZFS_KILL_BLOCK)
				continue;
			if (seq || memcmp(buf + b, pat, ZFS_KILL_BLOCK)) {
				printf("ERR read-back at %lld: neither zeros%s\n",
				       (long long)(off + b),
				       seq ? "" : " nor the pattern");
				return 1;
			}
		}
	}
	close(fd);
	return 0;
}

static int zfs_kill_kill(char **argv)
{
	const char *file = argv[0], *dev = argv[1], *how = argv[3];
	unsigned long long sector = zfs_kill_num(argv[2]);
	size_t len = (size_t)zfs_kill_num(argv[4]) << 20;
	long long r, rounds = zfs_kill_num(argv[5]), killed = 0, done = 0;
	uid_t uid = zfs_kill_num(argv[6]);
	int seq = !!strstr(file, "/seq/");
	struct stat st;
	double t = 0;
	int ret;

	srand48(zfs_kill_num(argv[7]));
	if (strcmp(how, "sync") && strcmp(how, "uring"))
		return 2;
	for (r = 0; r < rounds; r++) {
		off_t off = 0;
		double t0;

		if (stat(file, &st))
			return zfs_kill_fail("stat");
		/* A zonefs file's blocks are its capacity. */
		if (seq) {
			off = st.st_size;
			if (off + (off_t)len > (off_t)st.st_blocks * 512)
				break;
		}
		t0 = zfs_kill_now();
		ret = zfs_kill_round(file, how, len, off, uid,
				     r ? drand48() * t : -1);
		if (ret < 0)
			return zfs_kill_fail("a writer failed");
		if (!r)
			t = zfs_kill_now() - t0;
		killed += ret;
		done += !ret;
		if (zfs_kill_judge(file, dev, sector, seq, 10))
			return 1;
		if (stat(file, &st))
			return zfs_kill_fail("stat");
		printf("round %lld %s size %lld\n", r, ret ? "killed" : "done",
		       (long long)st.st_size);
		fflush(stdout);
	}
	if (zfs_kill_readback(file, seq, len))
		return 1;
	printf("R killed %lld done %lld\n", killed, done);
	return 0;
}

/* A colliding writer: @kind 0 buffered, 1 direct, 2 mmap, until killed. */
static void zfs_kill_collider(const char *file, int kind, uid_t uid,
			      long seed, int counts)
{
	unsigned char *buf, *map = NULL;
	long n = 0, busy = 0;
	int fd;

	zfs_kill_become(uid);
	srand48(seed + kind);
	fd = open(file, O_RDWR | (kind == 1 ? O_DIRECT : 0));
	if (fd < 0 || posix_memalign((void **)&buf, ZFS_KILL_BLOCK, ZFS_KILL_IO))
		_exit(4);
	memset(buf, 0xa5, ZFS_KILL_IO);
	if (kind == 2) {
		map = mmap(NULL, ZFS_KILL_SPAN, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			_exit(5);
	}
	for (;;) {
		off_t off = (off_t)(drand48() * (ZFS_KILL_SPAN / ZFS_KILL_IO)) *
			    ZFS_KILL_IO;

		if (kind == 2) {
			memset(map + off, 0xa5, ZFS_KILL_IO);
		} else if (pwrite(fd, buf, ZFS_KILL_IO, off) != ZFS_KILL_IO) {
			if (errno != EBUSY)
				_exit(6);
			busy++;
		}
		n++;
		/* The counts so far, for the parent to read once it is killed. */
		if (pwrite(counts, &n, sizeof(n), kind * 2 * sizeof(n)) < 0 ||
		    pwrite(counts, &busy, sizeof(busy), (kind * 2 + 1) * sizeof(n)) < 0)
			_exit(7);
	}
}

static const char *zfs_kill_fsync(const char *file, uid_t uid)
{
	int fd, status;
	pid_t pid = fork();

	if (!pid) {
		zfs_kill_become(uid);
		fd = open(file, O_RDWR);
		if (fd < 0)
			_exit(128 + errno);
		_exit(fsync(fd) ? errno : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return "FAILED";
	if (WEXITSTATUS(status) > 128)
		return "OPEN-FAILED";
	return WEXITSTATUS(status) ? zfs_kill_errname(WEXITSTATUS(status)) : "OK";
}

static int zfs_kill_collide(char **argv)
{
	const char *file = argv[0];
	long long secs = zfs_kill_num(argv[1]);
	uid_t uid = zfs_kill_num(argv[2]);
	long seed = zfs_kill_num(argv[3]);
	char tmpl[] = "/tmp/zfs_kill.XXXXXX";
	long counts[6] = { 0 };
	pid_t pids[3];
	int i, fd, status, bad = 0;

	fd = mkstemp(tmpl);
	if (fd < 0 || unlink(tmpl) || pwrite(fd, counts, sizeof(counts), 0) < 0)
		return zfs_kill_fail("counts file");
	for (i = 0; i < 3; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return zfs_kill_fail("fork");
		if (!pids[i])
			zfs_kill_collider(file, i, uid, seed, fd);
	}
	sleep(secs);
	for (i = 0; i < 3; i++) {
		if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
			fprintf(stderr, "zfs_kill: collider %d ended: 0x%x\n", i, status);
			bad = 1;
			continue;
		}
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
	}
	if (bad)
		return zfs_kill_fail("a colliding writer failed");
	if (pread(fd, counts, sizeof(counts), 0) != sizeof(counts))
		return zfs_kill_fail("counts file");
	printf("C buffered %ld direct %ld EBUSY %ld mmap %ld", counts[0],
	       counts[2], counts[3], counts[4]);
	printf(" fsync %s", zfs_kill_fsync(file, uid));
	printf(" fsync %s\n", zfs_kill_fsync(file, uid));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 10 && !strcmp(argv[1], "kill"))
		return zfs_kill_kill(argv + 2);
	if (argc == 6 && !strcmp(argv[1], "collide"))
		return zfs_kill_collide(argv + 2);
	fprintf(stderr, "usage: zfs_kill kill FILE DEV SECTOR HOW MB ROUNDS UID SEED\n"
		"       zfs_kill collide FILE SECONDS UID SEED\n");
	return 2;
}
