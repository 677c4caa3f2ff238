// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_io - one file operation per run, with a stable one-line result, so
 * that tests can assert exact errnos and exact data.
 *
 *	zfs_io write  FILE OFF LEN [direct] [append] [rwf_append] [seed=N]
 *	zfs_io read   FILE OFF LEN [direct] [seed=N] [base=N]
 *	zfs_io trunc  FILE SIZE
 *	zfs_io mmap   FILE shared|private read|write [rdwr] [off=N] [len=N]
 *		      [seed=N] [base=N] [fill=N]
 *	zfs_io creat  FILE
 *	zfs_io seek   FILE OFF set|end
 *	zfs_io aio    FILE NR BS [seed=N] [off=N] [order=I,J,...] [each]
 *
 * Data written is a pattern: the 8-byte word at pattern offset o (a
 * multiple of 8) holds o ^ (seed * 0x9e3779b97f4a7c15). "read" checks the
 * data it reads against the pattern at offset (OFF - base), so a test can
 * check a file and the raw device (base = zone start in bytes) alike.
 * "mmap" maps LEN bytes (default 4096) at OFF (a page multiple) and reads
 * every byte through the mapping, checked against the pattern of seed N
 * when seed= is given (MISMATCH <offset> otherwise). fill=N then writes
 * the pattern of seed N through a writable mapping, msync()s a shared one
 * and checks the mapping again; "OK <LEN>" on success. rdwr opens the file
 * read-write for a read-only mapping.
 * "aio" queues NR direct writes of BS bytes back to back at the end of the
 * file (or at OFF) with one io_submit() and waits for them all (raw aio
 * system calls, so that the helpers need no library). order= gives the
 * block each iocb writes, in submission order (default 0,1,2,...); each
 * prints every iocb's result, "R <bytes or ERRNO> ...", instead of
 * "OK <total>" or the first error.
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
	int rdwr;
	int each;
	int has_off;
	int has_seed;
	int has_fill;
	uint64_t seed;
	uint64_t fill;
	long long base;
	long long off;
	size_t len;
	const char *order;
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
		else if (!strcmp(argv[i], "rdwr"))
			o->rdwr = 1;
		else if (!strncmp(argv[i], "seed=", 5)) {
			o->seed = zfs_io_num(argv[i] + 5);
			o->has_seed = 1;
		} else if (!strncmp(argv[i], "fill=", 5)) {
			o->fill = zfs_io_num(argv[i] + 5);
			o->has_fill = 1;
		} else if (!strncmp(argv[i], "off=", 4)) {
			o->off = zfs_io_num(argv[i] + 4);
			o->has_off = 1;
		} else if (!strcmp(argv[i], "each"))
			o->each = 1;
		else if (!strncmp(argv[i], "order=", 6))
			o->order = argv[i] + 6;
		else if (!strncmp(argv[i], "len=", 4))
			o->len = zfs_io_num(argv[i] + 4);
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
		       struct zfs_io_opts *o)
{
	int wr = !strcmp(prot, "write");
	int shared = !strcmp(share, "shared");
	size_t len = o->len ? o->len : 4096, i;
	unsigned char *p, *exp = zfs_io_buf(len);
	volatile unsigned char sum = 0;
	int fd;

	fd = open(file, (wr || o->rdwr) ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return zfs_io_err(errno);
	p = mmap(NULL, len, PROT_READ | (wr ? PROT_WRITE : 0),
		 shared ? MAP_SHARED : MAP_PRIVATE, fd, o->off);
	if (p == MAP_FAILED)
		return zfs_io_err(errno);

	/* Touch every byte through the mapping; check it if asked. */
	if (o->has_seed) {
		zfs_io_fill(exp, len, o->off - o->base, o->seed);
		for (i = 0; i < len; i++) {
			if (p[i] != exp[i]) {
				printf("MISMATCH %lld\n", o->off + (long long)i);
				return 1;
			}
		}
	} else {
		for (i = 0; i < len; i++)
			sum += p[i];
	}

	/* Write the pattern through the mapping, sync it and read it back. */
	if (o->has_fill) {
		zfs_io_fill(exp, len, o->off - o->base, o->fill);
		memcpy(p, exp, len);
		if (shared && msync(p, len, MS_SYNC))
			return zfs_io_err(errno);
		if (memcmp(p, exp, len)) {
			printf("MISMATCH mapping\n");
			return 1;
		}
	}
	if (munmap(p, len) || close(fd))
		return zfs_io_err(errno);
	printf("OK %zu\n", len);
	return 0;
}

static int zfs_io_aio(const char *file, int nr, size_t bs,
		      struct zfs_io_opts *o)
{
	struct iocb *iocbs = calloc(nr, sizeof(*iocbs));
	struct iocb **iocbps = calloc(nr, sizeof(*iocbps));
	struct io_event *events = calloc(nr, sizeof(*events));
	long long *res = calloc(nr, sizeof(*res));
	unsigned char *buf = zfs_io_buf(bs * nr);
	aio_context_t ctx = 0;
	struct stat st;
	long long total = 0, start, blk;
	const char *ord = o->order;
	char *end;
	long ret;
	int fd, i, done = 0, failed = 0;

	if (!iocbs || !iocbps || !events || !res)
		return 2;
	fd = open(file, O_WRONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		return zfs_io_err(errno);
	if (syscall(SYS_io_setup, nr, &ctx))
		return zfs_io_err(errno);
	start = o->has_off ? o->off : st.st_size;
	for (i = 0; i < nr; i++) {
		/* order=a,b,...: iocb i writes block a, b, ... from start. */
		blk = i;
		if (ord) {
			errno = 0;
			blk = strtoll(ord, &end, 10);
			if (errno || end == ord || (*end && *end != ',')) {
				fprintf(stderr, "zfs_io: bad order '%s'\n", o->order);
				return 2;
			}
			ord = *end ? end + 1 : NULL;
		}
		zfs_io_fill(buf + bs * i, bs, start + blk * bs - o->base,
			    o->seed);
		iocbs[i].aio_fildes = fd;
		iocbs[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		iocbs[i].aio_buf = (uintptr_t)(buf + bs * i);
		iocbs[i].aio_nbytes = bs;
		iocbs[i].aio_offset = start + blk * bs;
		iocbs[i].aio_data = i;
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
			res[events[i].data] = (long long)events[i].res;
			if (res[events[i].data] < 0)
				failed = -res[events[i].data];
			else
				total += res[events[i].data];
		}
		done += ret;
	}
	syscall(SYS_io_destroy, ctx);
	close(fd);
	if (o->each) {
		/* Each iocb's result, in submission order. */
		printf("R");
		for (i = 0; i < nr; i++) {
			const char *name = strerrorname_np(-res[i]);

			if (res[i] >= 0)
				printf(" %lld", res[i]);
			else
				printf(" %s", name ? name : "UNKNOWN");
		}
		printf("\n");
		return 0;
	}
	if (failed)
		return zfs_io_err(failed);
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
	if (!strcmp(cmd, "mmap") && argc >= 5) {
		zfs_io_parse_opts(argc - 5, argv + 5, &o);
		return zfs_io_mmap(file, argv[3], argv[4], &o);
	}
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
				  zfs_io_num(argv[4]), &o);
	}

	return zfs_io_usage();
}
