// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_io - one file operation per run, with a stable one-line result, so
 * that tests can assert exact errnos and exact data.
 *
 *	zfs_io write  FILE OFF LEN [direct] [append] [rwf_append] [seed=N]
 *	zfs_io read   FILE OFF LEN [direct] [seed=N] [base=N]
 *	zfs_io trunc  FILE SIZE
 *	zfs_io mmap   FILE shared|private read|write [rdwr]
 *	zfs_io creat  FILE
 *	zfs_io seek   FILE OFF set|end
 *	zfs_io aio    FILE NR BS [seed=N]
 *
 * Data written is a pattern: the 8-byte word at pattern offset o (a
 * multiple of 8) holds o ^ (seed * 0x9e3779b97f4a7c15). "read" checks the
 * data it reads against the pattern at offset (OFF - base), so a test can
 * check a file and the raw device (base = zone start in bytes) alike.
 * "aio" queues NR direct writes of BS bytes back to back at the end of the
 * file with one io_submit() and waits for them all (raw aio system calls,
 * so that the helpers need no library).
 *
 * Prints "OK <n>" (n: bytes, offset or 0) and exits 0, or prints
 * "ERR <ERRNO NAME>" or "MISMATCH <offset>" and exits 1; usage errors
 * exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/aio_abi.h>

#define ZFS_IO_ALIGN	4096

struct zfs_io_opts {
	int direct;
	int append;
	int rwf_append;
	uint64_t seed;
	long long base;
};

static int zfs_io_err(int err)
{
	const char *name = strerrorname_np(err);

	printf("ERR %s\n", name ? name : "UNKNOWN");
	return 1;
}

static int zfs_io_usage(void)
{
	fprintf(stderr, "usage: zfs_io write|read|trunc|mmap|creat|seek|aio FILE ...\n");
	return 2;
}

static long long zfs_io_num(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "zfs_io: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void zfs_io_parse_opts(int argc, char **argv, struct zfs_io_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "direct"))
			o->direct = 1;
		else if (!strcmp(argv[i], "append"))
			o->append = 1;
		else if (!strcmp(argv[i], "rwf_append"))
			o->rwf_append = 1;
		else if (!strncmp(argv[i], "seed=", 5))
			o->seed = zfs_io_num(argv[i] + 5);
		else if (!strncmp(argv[i], "base=", 5))
			o->base = zfs_io_num(argv[i] + 5);
		else {
			fprintf(stderr, "zfs_io: unknown option '%s'\n", argv[i]);
			exit(2);
		}
	}
}

static uint64_t zfs_io_word(uint64_t off, uint64_t seed)
{
	return off ^ (seed * 0x9e3779b97f4a7c15ULL);
}

static void zfs_io_fill(unsigned char *buf, size_t len, uint64_t off,
			uint64_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint64_t o = off + i;
		uint64_t w = zfs_io_word(o & ~7ULL, seed);

		buf[i] = w >> ((o & 7) * 8);
	}
}

static void *zfs_io_buf(size_t len)
{
	void *buf;

	if (posix_memalign(&buf, ZFS_IO_ALIGN, len ? len : 1)) {
		fprintf(stderr, "zfs_io: out of memory\n");
		exit(2);
	}
	return buf;
}

static int zfs_io_write(const char *file, long long off, size_t len,
			struct zfs_io_opts *o)
{
	int flags = O_WRONLY | (o->direct ? O_DIRECT : 0) |
		    (o->append ? O_APPEND : 0);
	unsigned char *buf = zfs_io_buf(len);
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	ssize_t ret;
	int fd;

	zfs_io_fill(buf, len, off, o->seed);
	fd = open(file, flags);
	if (fd < 0)
		return zfs_io_err(errno);
	if (o->rwf_append)
		ret = pwritev2(fd, &iov, 1, -1, RWF_APPEND);
	else if (o->append)
		ret = write(fd, buf, len);
	else
		ret = pwrite(fd, buf, len, off);
	if (ret < 0)
		return zfs_io_err(errno);
	if (close(fd))
		return zfs_io_err(errno);
	printf("OK %zd\n", ret);
	return 0;
}

static int zfs_io_read(const char *file, long long off, size_t len,
		       struct zfs_io_opts *o)
{
	unsigned char *buf = zfs_io_buf(len), *exp = zfs_io_buf(len);
	ssize_t ret;
	size_t i;
	int fd;

	fd = open(file, O_RDONLY | (o->direct ? O_DIRECT : 0));
	if (fd < 0)
		return zfs_io_err(errno);
	ret = pread(fd, buf, len, off);
	if (ret < 0)
		return zfs_io_err(errno);
	close(fd);

	zfs_io_fill(exp, ret, off - o->base, o->seed);
	for (i = 0; i < (size_t)ret; i++) {
		if (buf[i] != exp[i]) {
			printf("MISMATCH %lld\n", off + (long long)i);
			return 1;
		}
	}
	printf("OK %zd\n", ret);
	return 0;
}

static int zfs_io_mmap(const char *file, const char *share, const char *prot,
		       int rdwr)
{
	int wr = !strcmp(prot, "write");
	int flags = !strcmp(share, "shared") ? MAP_SHARED : MAP_PRIVATE;
	void *p;
	int fd;

	fd = open(file, (wr || rdwr) ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return zfs_io_err(errno);
	p = mmap(NULL, 4096, PROT_READ | (wr ? PROT_WRITE : 0), flags, fd, 0);
	if (p == MAP_FAILED)
		return zfs_io_err(errno);
	munmap(p, 4096);
	close(fd);
	printf("OK 0\n");
	return 0;
}

static int zfs_io_aio(const char *file, int nr, size_t bs, uint64_t seed)
{
	struct iocb *iocbs = calloc(nr, sizeof(*iocbs));
	struct iocb **iocbps = calloc(nr, sizeof(*iocbps));
	struct io_event *events = calloc(nr, sizeof(*events));
	unsigned char *buf = zfs_io_buf(bs * nr);
	aio_context_t ctx = 0;
	struct stat st;
	long long total = 0;
	long ret;
	int fd, i, done = 0;

	if (!iocbs || !iocbps || !events)
		return 2;
	fd = open(file, O_WRONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		return zfs_io_err(errno);
	if (syscall(SYS_io_setup, nr, &ctx))
		return zfs_io_err(errno);
	zfs_io_fill(buf, bs * nr, st.st_size, seed);
	for (i = 0; i < nr; i++) {
		iocbs[i].aio_fildes = fd;
		iocbs[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		iocbs[i].aio_buf = (uintptr_t)(buf + bs * i);
		iocbs[i].aio_nbytes = bs;
		iocbs[i].aio_offset = st.st_size + (long long)bs * i;
		iocbps[i] = &iocbs[i];
	}
	ret = syscall(SYS_io_submit, ctx, nr, iocbps);
	if (ret < 0)
		return zfs_io_err(errno);
	if (ret != nr) {
		printf("ERR SHORT_SUBMIT %ld\n", ret);
		return 1;
	}
	while (done < nr) {
		ret = syscall(SYS_io_getevents, ctx, 1, nr - done, events,
			      NULL);
		if (ret < 0)
			return zfs_io_err(errno);
		for (i = 0; i < ret; i++) {
			long long res = (long long)events[i].res;

			if (res < 0)
				return zfs_io_err(-res);
			total += res;
		}
		done += ret;
	}
	syscall(SYS_io_destroy, ctx);
	close(fd);
	printf("OK %lld\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	struct zfs_io_opts o;
	const char *cmd, *file;
	off_t r;
	int fd;

	if (argc < 3)
		return zfs_io_usage();
	cmd = argv[1];
	file = argv[2];

	if (!strcmp(cmd, "write") && argc >= 5) {
		zfs_io_parse_opts(argc - 5, argv + 5, &o);
		return zfs_io_write(file, zfs_io_num(argv[3]),
				    zfs_io_num(argv[4]), &o);
	}
	if (!strcmp(cmd, "read") && argc >= 5) {
		zfs_io_parse_opts(argc - 5, argv + 5, &o);
		return zfs_io_read(file, zfs_io_num(argv[3]),
				   zfs_io_num(argv[4]), &o);
	}
	if (!strcmp(cmd, "trunc") && argc == 4) {
		if (truncate(file, zfs_io_num(argv[3])))
			return zfs_io_err(errno);
		printf("OK 0\n");
		return 0;
	}
	if (!strcmp(cmd, "mmap") && (argc == 5 || argc == 6))
		return zfs_io_mmap(file, argv[3], argv[4],
				   argc == 6 && !strcmp(argv[5], "rdwr"));
	if (!strcmp(cmd, "creat") && argc == 3) {
		fd = open(file, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return zfs_io_err(errno);
		close(fd);
		printf("OK 0\n");
		return 0;
	}
	if (!strcmp(cmd, "seek") && argc == 5) {
		fd = open(file, O_RDONLY);
		if (fd < 0)
			return zfs_io_err(errno);
		r = lseek(fd, zfs_io_num(argv[3]),
			  !strcmp(argv[4], "end") ? SEEK_END : SEEK_SET);
		if (r < 0)
			return zfs_io_err(errno);
		printf("OK %lld\n", (long long)r);
		return 0;
	}
	if (!strcmp(cmd, "aio") && argc >= 5) {
		zfs_io_parse_opts(argc - 5, argv + 5, &o);
		return zfs_io_aio(file, zfs_io_num(argv[3]),
				  zfs_io_num(argv[4]), o.seed);
	}

	return zfs_io_usage();
}
