// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_appendw - several writers append to one sequential file at once.
 *
 *	zfs_appendw FILE WRITERS BLOCKS BS append|pwrite
 *
 * Forks WRITERS processes; each writes BLOCKS blocks of BS bytes with
 * O_DIRECT, either with O_APPEND ("append": the file system places each
 * write at the write pointer) or with pwrite() at the size fstat() gives
 * ("pwrite": writers race for the same offset, and a loser, which must get
 * EINVAL, tries again at the new size). Every block is tagged: each 8-byte
 * word holds (magic << 40 | writer << 24 | block number). Then the file is
 * read back and checked: its size is WRITERS * BLOCKS * BS, every block is
 * one whole block of one writer, each writer's blocks are all there once,
 * in the order it wrote them.
 *
 * Prints "OK <blocks> retries <n>" and exits 0; prints "FAIL <why>" and
 * exits 1; usage errors exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define AW_MAGIC	0x5a4eULL

static uint64_t aw_tag(unsigned int writer, unsigned int blk)
{
	return AW_MAGIC << 40 | (uint64_t)writer << 24 | blk;
}

static void aw_fill(uint64_t *buf, size_t bs, uint64_t tag)
{
	size_t i;

	for (i = 0; i < bs / 8; i++)
		buf[i] = tag;
}

/* One writer; exit status 0, or 1 after a line on stdout. */
static int aw_writer(const char *file, unsigned int id, unsigned int blocks,
		     size_t bs, int append, int rfd)
{
	unsigned long retries = 0;
	unsigned int b;
	uint64_t *buf;
	struct stat st;
	ssize_t ret;
	int fd;

	if (posix_memalign((void **)&buf, 4096, bs))
		return 1;
	fd = open(file, O_WRONLY | O_DIRECT | (append ? O_APPEND : 0));
	if (fd < 0) {
		printf("FAIL writer %u: open: %s\n", id, strerror(errno));
		return 1;
	}
	for (b = 0; b < blocks; b++) {
		aw_fill(buf, bs, aw_tag(id, b));
		for (;;) {
			if (append) {
				ret = write(fd, buf, bs);
			} else {
				if (fstat(fd, &st))
					return 1;
				ret = pwrite(fd, buf, bs, st.st_size);
			}
			if (ret == (ssize_t)bs)
				break;
			if (ret < 0 && errno == EINVAL && !append &&
			    retries < 1000000) {
				retries++;
				continue;
			}
			printf("FAIL writer %u block %u: %s\n", id, b,
			       ret < 0 ? strerror(errno) : "short write");
			return 1;
		}
	}
	close(fd);
	if (write(rfd, &retries, sizeof(retries)) != sizeof(retries))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int writers, blocks, w, *next;
	unsigned long total_retries = 0, r;
	size_t bs, i, nblk;
	const char *file;
	uint64_t *buf;
	int append, fds[2], status, fd, bad = 0;
	struct stat st;
	pid_t pid;

	if (argc != 6 || (strcmp(argv[5], "append") && strcmp(argv[5], "pwrite"))) {
		fprintf(stderr, "usage: zfs_appendw FILE WRITERS BLOCKS BS append|pwrite\n");
		return 2;
	}
	file = argv[1];
	writers = strtoul(argv[2], NULL, 0);
	blocks = strtoul(argv[3], NULL, 0);
	bs = strtoul(argv[4], NULL, 0);
	append = !strcmp(argv[5], "append");
	if (!writers || writers > 1000 || !blocks || blocks >= 1U << 24 ||
	    !bs || bs % 4096) {
		fprintf(stderr, "zfs_appendw: bad numbers\n");
		return 2;
	}
	if (pipe(fds))
		return 2;

	for (w = 0; w < writers; w++) {
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			close(fds[0]);
			exit(aw_writer(file, w, blocks, bs, append, fds[1]));
		}
	}
	close(fds[1]);
	while (read(fds[0], &r, sizeof(r)) == sizeof(r))
		total_retries += r;
	for (w = 0; w < writers; w++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	}
	if (bad) {
		printf("FAIL a writer failed\n");
		return 1;
	}

	/* Check the file. */
	fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st)) {
		printf("FAIL open for the check: %s\n", strerror(errno));
		return 1;
	}
	nblk = (size_t)writers * blocks;
	if ((size_t)st.st_size != nblk * bs) {
		printf("FAIL size %lld, expected %zu\n", (long long)st.st_size,
		       nblk * bs);
		return 1;
	}
	next = calloc(writers, sizeof(*next));
	if (!next || posix_memalign((void **)&buf, 4096, bs))
		return 2;
	for (i = 0; i < nblk; i++) {
		uint64_t tag;
		size_t j;

		if (pread(fd, buf, bs, i * bs) != (ssize_t)bs) {
			printf("FAIL read of block %zu\n", i);
			return 1;
		}
		tag = buf[0];
		for (j = 1; j < bs / 8; j++) {
			if (buf[j] != tag) {
				printf("FAIL block %zu is torn at word %zu\n",
				       i, j);
				return 1;
			}
		}
		w = (tag >> 24) & 0xffff;
		if (tag >> 40 != AW_MAGIC || w >= writers) {
			printf("FAIL block %zu: tag 0x%llx\n", i,
			       (unsigned long long)tag);
			return 1;
		}
		if ((tag & 0xffffff) != next[w]) {
			printf("FAIL block %zu: writer %u block %llu, expected %u\n",
			       i, w, (unsigned long long)(tag & 0xffffff),
			       next[w]);
			return 1;
		}
		next[w]++;
	}
	close(fd);
	printf("OK %zu retries %lu\n", nblk, total_retries);
	return 0;
}
