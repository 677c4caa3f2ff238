// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_fault - direct writes from bad user buffers, and writes past the
 * limits a process carries, each with a stable one-line result.
 *
 *	zfs_fault write FILE OFF LEN HOW BUF [append]
 *	zfs_fault queue FILE NR BS HOW BAD BUF [append]
 *	zfs_fault read  FILE OFF LEN HOW BUF
 *	zfs_fault fsize FILE OFF LEN LIMIT
 *	zfs_fault readwrite FILE ROFF RLEN WLEN BUF
 *	zfs_fault truncnth FILE SIZE N
 *
 * HOW is how the I/O is issued: "sync" (pwrite/pread), "libaio" (the raw
 * aio system calls), "uring" (liburing), "uring-iopoll" (a ring whose
 * completions are polled for, IORING_SETUP_IOPOLL: the I/O is IOCB_HIPRI)
 * or "uring-ioprio" (liburing, the second I/O of the idle priority class and
 * the others best effort, sqe->ioprio). BUF is the user buffer:
 * "good", "misaligned" (one byte past a page boundary), "off512" (512
 * bytes past a page boundary: aligned to a 512 B sector, not to a 4 KiB
 * block), "hole" (the first page mapped and filled, the rest
 * inaccessible), "hole512" (512 bytes past a page boundary, the pages up
 * to 8 KiB past that boundary mapped and filled, the rest inaccessible)
 * or "unmapped" (nothing accessible). Inaccessible pages stay reserved (PROT_NONE), so that no
 * later buffer can be mapped there. Data written is the zfs_io pattern with seed 7 at file offset
 * OFF, so that "zfs_io read ... seed=7" checks it.
 *
 * "queue" queues NR direct writes of BS bytes back to back from the end of
 * the file in one submission (at the offsets they will land at; with
 * "append", each with RWF_APPEND), the one at index BAD (-1: none) from a
 * buffer of kind BUF, and prints each result in order: "R <res0> <res1>
 * ...", a byte count or an errno name.
 *
 * "readwrite" submits a direct read of RLEN bytes at ROFF with libaio and,
 * while it is in flight, a direct pwrite of WLEN bytes from a buffer of
 * kind BUF at the end of the file, then reaps the read; it prints "R <read
 * result> W <write result> RACE", so that a read failing at the device while a
 * write holds the file can be seen: RACE is "race" when the read was still
 * in flight as the write started and done as it returned, "read-first" or
 * "read-after" when it was not.
 *
 * "truncnth" makes the Nth fault-injectable call (a slab allocation, with
 * failslab) of this task fail, through /proc/thread-self/fail-nth (a kernel
 * with CONFIG_FAULT_INJECTION), then calls truncate(FILE, SIZE): it prints
 * the result and "injected" if the fault was injected, "clean" if the call
 * made fewer than N such calls.
 *
 * "fsize" sets RLIMIT_FSIZE to LIMIT bytes, blocks SIGXFSZ and writes:
 * it prints the result and "SIGXFSZ" when that signal became pending.
 *
 * Prints "OK <n>" or "ERR <ERRNO NAME>"; usage errors exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/aio_abi.h>
#include <liburing.h>

#define ZFS_FAULT_PAGE		4096
#define ZFS_FAULT_SEED		7ULL
#define ZFS_FAULT_MAXQ		64

static const char *zfs_fault_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "UNKNOWN";
}

static int zfs_fault_err(int err)
{
	printf("ERR %s\n", zfs_fault_errname(err));
	return 1;
}

static int zfs_fault_usage(void)
{
	fprintf(stderr, "usage: zfs_fault write|queue|read|fsize|readwrite|truncnth FILE ...\n");
	return 2;
}

/* The zfs_io pattern: word at offset o is o ^ (seed * golden ratio). */
static void zfs_fault_fill(unsigned char *buf, size_t len, long long off)
{
	uint64_t key = ZFS_FAULT_SEED * 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = (uint64_t)(off + (long long)i) ^ key;

		memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
	}
}

/*
 * A buffer of @len bytes of the given kind holding the pattern for file
 * offset @off (as far as it is mapped). Returns NULL on a usage error.
 */
static unsigned char *zfs_fault_buf(const char *kind, size_t len, long long off)
{
	size_t map = len + 2 * ZFS_FAULT_PAGE;
	unsigned char *p;

	p = mmap(NULL, map, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	if (!strcmp(kind, "good")) {
		zfs_fault_fill(p, len, off);
		return p;
	}
	if (!strcmp(kind, "misaligned")) {
		zfs_fault_fill(p + 1, len, off);
		return p + 1;
	}
	if (!strcmp(kind, "off512")) {
		zfs_fault_fill(p + 512, len, off);
		return p + 512;
	}
	if (!strcmp(kind, "hole512")) {
		size_t mapped = 2 * ZFS_FAULT_PAGE - 512;

		zfs_fault_fill(p + 512, len < mapped ? len : mapped, off);
		mprotect(p + 2 * ZFS_FAULT_PAGE, map - 2 * ZFS_FAULT_PAGE,
			 PROT_NONE);
		return p + 512;
	}
	if (!strcmp(kind, "hole")) {
		zfs_fault_fill(p, ZFS_FAULT_PAGE, off);
		mprotect(p + ZFS_FAULT_PAGE, map - ZFS_FAULT_PAGE, PROT_NONE);
		return p;
	}
	if (!strcmp(kind, "unmapped")) {
		mprotect(p, map, PROT_NONE);
		return p;
	}
	return NULL;
}

static long long zfs_fault_num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	if (*end) {
		fprintf(stderr, "zfs_fault: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void zfs_fault_print_res(long long res)
{
	if (res < 0)
		printf(" %s", zfs_fault_errname((int)-res));
	else
		printf(" %lld", res);
}

/* Issue @nr writes (or reads) with libaio; fill @res. */
static int zfs_fault_libaio(int fd, int nr, unsigned char **bufs, size_t *lens,
			    long long *offs, int rw, int append, long long *res)
{
	struct iocb iocbs[ZFS_FAULT_MAXQ], *iocbps[ZFS_FAULT_MAXQ];
	struct io_event events[ZFS_FAULT_MAXQ];
	aio_context_t ctx = 0;
	int i, done = 0;
	long ret;

	if (syscall(SYS_io_setup, nr, &ctx))
		return -errno;
	memset(iocbs, 0, sizeof(iocbs));
	for (i = 0; i < nr; i++) {
		iocbs[i].aio_fildes = fd;
		iocbs[i].aio_lio_opcode = rw ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
		iocbs[i].aio_buf = (uintptr_t)bufs[i];
		iocbs[i].aio_nbytes = lens[i];
		iocbs[i].aio_offset = offs[i];
		iocbs[i].aio_rw_flags = append ? RWF_APPEND : 0;
		iocbs[i].aio_data = i;
		iocbps[i] = &iocbs[i];
	}
	ret = syscall(SYS_io_submit, ctx, nr, iocbps);
	if (ret < 0)
		return -errno;
	/* An iocb the kernel refused at submission: report its errno. */
	for (i = ret; i < nr; i++)
		res[i] = -EAGAIN;
	while (done < ret) {
		long n = syscall(SYS_io_getevents, ctx, 1, ret - done, events,
				 NULL);

		if (n < 0)
			return -errno;
		for (i = 0; i < n; i++)
			res[events[i].data] = (long long)events[i].res;
		done += n;
	}
	syscall(SYS_io_destroy, ctx);
	return 0;
}

/* I/O priorities (linux/ioprio.h): class in the top 3 bits of 16. */
#define ZFS_FAULT_IOPRIO(class, data)	(((class) << 13) | (data))
#define ZFS_FAULT_IOPRIO_BE		2
#define ZFS_FAULT_IOPRIO_IDLE		3

/*
 * Issue @nr writes (or reads) with io_uring; fill @res. With @mixprio, the
 * second one is of the idle class and the others best effort, as an
 * unprivileged caller may ask (sqe->ioprio): while the first is at the
 * device, the second and the later ones wait in the I/O scheduler.
 */
static int zfs_fault_uring(int fd, int nr, unsigned char **bufs, size_t *lens,
			   long long *offs, int rw, int append, long long *res,
			   unsigned int setup, int mixprio)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int i, ret;

	ret = io_uring_queue_init(nr, &ring, setup);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		if (rw)
			io_uring_prep_write(sqe, fd, bufs[i], lens[i], offs[i]);
		else
			io_uring_prep_read(sqe, fd, bufs[i], lens[i], offs[i]);
		if (append)
			sqe->rw_flags = RWF_APPEND;
		if (mixprio)
			sqe->ioprio = i == 1 ?
				ZFS_FAULT_IOPRIO(ZFS_FAULT_IOPRIO_IDLE, 0) :
				ZFS_FAULT_IOPRIO(ZFS_FAULT_IOPRIO_BE, 4);
		io_uring_sqe_set_data64(sqe, i);
	}
	ret = io_uring_submit(&ring);
	if (ret != nr)
		return ret < 0 ? ret : -EAGAIN;
	for (i = 0; i < nr; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret)
			return ret;
		res[io_uring_cqe_get_data64(cqe)] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return 0;
}

static int zfs_fault_issue(const char *how, int fd, int nr, unsigned char **bufs,
			   size_t *lens, long long *offs, int rw, int append,
			   long long *res)
{
	int i;

	if (!strcmp(how, "libaio"))
		return zfs_fault_libaio(fd, nr, bufs, lens, offs, rw, append,
					res);
	if (!strcmp(how, "uring"))
		return zfs_fault_uring(fd, nr, bufs, lens, offs, rw, append,
				       res, 0, 0);
	if (!strcmp(how, "uring-iopoll"))
		return zfs_fault_uring(fd, nr, bufs, lens, offs, rw, append,
				       res, IORING_SETUP_IOPOLL, 0);
	if (!strcmp(how, "uring-ioprio"))
		return zfs_fault_uring(fd, nr, bufs, lens, offs, rw, append,
				       res, 0, 1);
	if (strcmp(how, "sync"))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		struct iovec iov = { bufs[i], lens[i] };
		ssize_t r;

		if (rw)
			r = pwritev2(fd, &iov, 1, offs[i],
				     append ? RWF_APPEND : 0);
		else
			r = preadv2(fd, &iov, 1, offs[i], 0);
		res[i] = r < 0 ? -errno : r;
	}
	return 0;
}

static int zfs_fault_one(const char *file, long long off, size_t len,
			 const char *how, const char *kind, int rw, int append)
{
	unsigned char *buf = zfs_fault_buf(kind, len, off);
	long long res;
	int fd, ret;

	if (!buf)
		return zfs_fault_usage();
	fd = open(file, (rw ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0)
		return zfs_fault_err(errno);
	ret = zfs_fault_issue(how, fd, 1, &buf, &len, &off, rw, append, &res);
	if (ret)
		return zfs_fault_err(-ret);
	close(fd);
	if (res < 0)
		return zfs_fault_err((int)-res);
	printf("OK %lld\n", res);
	return 0;
}

static int zfs_fault_queue(const char *file, int nr, size_t bs, const char *how,
			   int bad, const char *kind, int append)
{
	unsigned char *bufs[ZFS_FAULT_MAXQ];
	long long offs[ZFS_FAULT_MAXQ], res[ZFS_FAULT_MAXQ];
	size_t lens[ZFS_FAULT_MAXQ];
	struct stat st;
	int fd, i, ret;

	if (nr < 1 || nr > ZFS_FAULT_MAXQ)
		return zfs_fault_usage();
	fd = open(file, O_WRONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		return zfs_fault_err(errno);
	for (i = 0; i < nr; i++) {
		offs[i] = st.st_size + (long long)bs * i;
		lens[i] = bs;
		bufs[i] = zfs_fault_buf(i == bad ? kind : "good", bs, offs[i]);
		if (!bufs[i])
			return zfs_fault_usage();
	}
	ret = zfs_fault_issue(how, fd, nr, bufs, lens, offs, 1, append, res);
	if (ret)
		return zfs_fault_err(-ret);
	close(fd);
	printf("R");
	for (i = 0; i < nr; i++)
		zfs_fault_print_res(res[i]);
	printf("\n");
	return 0;
}

static int zfs_fault_readwrite(const char *file, long long roff, size_t rlen,
			       size_t wlen, const char *kind)
{
	unsigned char *rbuf = zfs_fault_buf("good", rlen, roff), *wbuf;
	struct iocb iocb = { 0 }, *iocbp = &iocb;
	struct timespec zero = { 0 };
	struct io_event ev;
	aio_context_t ctx = 0;
	long before, after;
	struct stat st;
	ssize_t w;
	int fd;

	fd = open(file, O_RDWR | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		return zfs_fault_err(errno);
	wbuf = zfs_fault_buf(kind, wlen, st.st_size);
	if (!wbuf)
		return zfs_fault_usage();
	if (syscall(SYS_io_setup, 1, &ctx))
		return zfs_fault_err(errno);
	iocb.aio_fildes = fd;
	iocb.aio_lio_opcode = IOCB_CMD_PREAD;
	iocb.aio_buf = (uintptr_t)rbuf;
	iocb.aio_nbytes = rlen;
	iocb.aio_offset = roff;
	if (syscall(SYS_io_submit, ctx, 1, &iocbp) != 1)
		return zfs_fault_err(errno);
	/*
	 * The race: the read still in flight when the write starts, and
	 * done when it returns, so that it completed while the write held
	 * the file. Asked without waiting on each side of the write.
	 */
	before = syscall(SYS_io_getevents, ctx, 0, 1, &ev, &zero);
	w = pwrite(fd, wbuf, wlen, st.st_size);
	if (w < 0)
		w = -errno;
	after = before ? before : syscall(SYS_io_getevents, ctx, 0, 1, &ev, &zero);
	if (!after && syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
		return zfs_fault_err(errno);
	syscall(SYS_io_destroy, ctx);
	close(fd);
	printf("R");
	zfs_fault_print_res((long long)ev.res);
	printf(" W");
	zfs_fault_print_res(w);
	printf(" %s\n", !before && after == 1 ? "race" : before ? "read-first" : "read-after");
	return 0;
}

static int zfs_fault_fsize(const char *file, long long off, size_t len,
			   long long limit)
{
	unsigned char *buf = zfs_fault_buf("good", len, off);
	struct rlimit rl = { limit, limit };
	sigset_t set, pending;
	ssize_t r;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGXFSZ);
	if (sigprocmask(SIG_BLOCK, &set, NULL) || setrlimit(RLIMIT_FSIZE, &rl))
		return zfs_fault_err(errno);
	fd = open(file, O_WRONLY | O_DIRECT);
	if (fd < 0)
		return zfs_fault_err(errno);
	r = pwrite(fd, buf, len, off);
	if (r < 0)
		printf("ERR %s", zfs_fault_errname(errno));
	else
		printf("OK %zd", r);
	close(fd);
	sigpending(&pending);
	printf("%s\n", sigismember(&pending, SIGXFSZ) ? " SIGXFSZ" : "");
	return 0;
}

/* truncate(@path, @size) with the @nth fault-injectable call failing. */
static int zfs_fault_truncnth(const char *path, long long size, long long nth)
{
	char buf[32];
	ssize_t n;
	int fd, ret, err;

	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0) {
		printf("ERR fail-nth: %s\n", zfs_fault_errname(errno));
		return 1;
	}
	n = snprintf(buf, sizeof(buf), "%lld", nth);
	if (write(fd, buf, n) != n) {
		printf("ERR fail-nth write: %s\n", zfs_fault_errname(errno));
		return 1;
	}
	ret = truncate(path, size);
	err = errno;
	/* Read back: 0 once the fault was injected; then disarm it. */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	if (write(fd, "0", 1) != 1)
		return 1;
	close(fd);
	if (ret)
		printf("ERR %s", zfs_fault_errname(err));
	else
		printf("OK 0");
	printf(" %s\n", atoi(buf) == 0 ? "injected" : "clean");
	return 0;
}

int main(int argc, char **argv)
{
	int append;

	if (argc < 3)
		return zfs_fault_usage();
	append = !strcmp(argv[argc - 1], "append");

	if (!strcmp(argv[1], "write") && argc >= 7)
		return zfs_fault_one(argv[2], zfs_fault_num(argv[3]),
				     zfs_fault_num(argv[4]), argv[5], argv[6],
				     1, append);
	if (!strcmp(argv[1], "read") && argc == 7)
		return zfs_fault_one(argv[2], zfs_fault_num(argv[3]),
				     zfs_fault_num(argv[4]), argv[5], argv[6],
				     0, 0);
	if (!strcmp(argv[1], "queue") && argc >= 8)
		return zfs_fault_queue(argv[2], zfs_fault_num(argv[3]),
				       zfs_fault_num(argv[4]), argv[5],
				       zfs_fault_num(argv[6]), argv[7], append);
	if (!strcmp(argv[1], "fsize") && argc == 6)
		return zfs_fault_fsize(argv[2], zfs_fault_num(argv[3]),
				       zfs_fault_num(argv[4]),
				       zfs_fault_num(argv[5]));

	if (!strcmp(argv[1], "readwrite") && argc == 7)
		return zfs_fault_readwrite(argv[2], zfs_fault_num(argv[3]),
					   zfs_fault_num(argv[4]),
					   zfs_fault_num(argv[5]), argv[6]);

	if (!strcmp(argv[1], "truncnth") && argc == 5)
		return zfs_fault_truncnth(argv[2], zfs_fault_num(argv[3]),
					  zfs_fault_num(argv[4]));

	return zfs_fault_usage();
}
