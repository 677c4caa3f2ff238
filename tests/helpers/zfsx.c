// SPDX-License-Identifier: GPL-2.0
/*
 * NAME
 *	zfsx - random zonefs exerciser checked against a model
 *
 * SYNOPSIS
 *	zfsx --dir MNT [--seed N] [--ops N] [--files LIST] [--explicit-open]
 *	     [--procs N] [--seconds S] [--spec-buffers] [--no-queued-faults]
 *	     [--block-buffers]
 *	     [--rogue N [--events LIST] [--cond-cmd CMD]] [--errors MODE]
 *	     [--remount N [--open-behind]] [--cycle N] [--log N] [--verbose]
 *
 * DESCRIPTION
 *	zfsx runs a random sequence of operations, drawn from --seed, against
 *	the zonefs mounted on MNT, and checks every result against a model of
 *	the file system built from zonefs(5) ZONE FILES, I/O ERRORS and SYSFS. The same seed,
 *	the same options and a freshly formatted device give the same
 *	operations, so a divergence found at operation K replays with
 *	"zfsx --seed N --ops K+1 ...".
 *
 *	The model holds, per file: its size, its capacity, a tag per block
 *	(the write that put the block's data there, 0 when unknown) from which
 *	the expected bytes are made again, its mode and owner, its open file
 *	descriptors and whether its zone was explicitly opened; per mount: the
 *	sequential files open for write (the open slots, against
 *	max_wro_seq_files with explicit-open), the active zones and whether
 *	the file system is read-only. Every call's result must be one the
 *	model allows (where zonefs(5) leaves several errnos possible the model
 *	allows each of them), every read must return the model's bytes, and
 *	after every write to a sequential file its size must be the model's.
 *
 *	Operations: direct writes (pwrite, libaio and io_uring, 1 to 32 in
 *	flight, one block to 8 MiB, from buffers aligned, misaligned by 512 B
 *	or by one byte, partly or wholly unmapped), O_APPEND and RWF_APPEND
 *	writes, writes at the wrong offset or misaligned, reads at, below and
 *	past the size and past the capacity, truncation to 0, to the
 *	capacity and to other sizes, fsync, buffered writes, mmap reads and
 *	shared writes, open and close of long-lived descriptors, chmod and
 *	chown (checked by stat and by opening as another user), stat,
 *	drop_caches and the sysfs counters; with --remount, remounts
 *	read-only and read-write with explicit-open turned on or off; with
 *	--rogue, device events behind the mount: a rogue write at a zone's
 *	write pointer, a zone reset, a zone made read-only or offline, each
 *	found by the file's next write or truncation, after which the model
 *	applies zonefs(5) I/O ERRORS for the zone's condition and the errors= mode.
 *
 *	With --procs N, N forked workers each own a distinct part of the
 *	files (each with its own model and seed), and, when a sequential file
 *	is left for it, two more processes append to that one shared file
 *	with O_APPEND and RWF_APPEND: at the end its content must be whole
 *	appends of both, each writer's in order, and its size their sum.
 *
 * OPTIONS
 *	-d, --dir MNT		the zonefs mount point (required)
 *	-s, --seed N		seed of the operation sequence (default 1)
 *	-n, --ops N		operations to run, per worker (default 1000)
 *	-f, --files LIST	files to use: comma-separated seq/N, cnv/N or
 *				ranges seq/A-B (default seq/0-5,cnv/0-1; the
 *				ones that do not exist are left out)
 *	-e, --explicit-open	the mount has explicit-open: a first open for
 *				write beyond max_wro_seq_files fails with EBUSY
 *	-p, --procs N		N workers on distinct files, plus the pair of
 *				appenders on a shared sequential file
 *	-t, --seconds S		stop, successfully, after S seconds
 *	-b, --spec-buffers	a direct write to a conventional file from a
 *				buffer not aligned to the block size must fail
 *				with EINVAL too, not only one the device's DMA
 *				alignment refuses (what the module does); for a
 *				sequential file that is always the rule
 *	-q, --no-queued-faults	no bad buffer inside a queue of writes
 *	-a, --block-buffers	no direct I/O that the device would see
 *				from a buffer segment not aligned to the
 *				block: reads into block-aligned buffers only,
 *				and writes to conventional files from a buffer
 *				one byte off (refused before any I/O) where
 *				they would be 512 B off. null_blk 6.1 with
 *				4 KiB blocks copies a whole block from the
 *				sector's offset in its page for such a
 *				segment: past the page's end, which corrupts
 *				the guest's memory (docs/known-problems.md).
 *				--block-reads is the same option, by its old
 *				name
 *	-r, --rogue N		with one process: N in 1000 operations are a
 *				device event of a kind from --events, found
 *				at once by the file's next write (zonefs(5) I/O ERRORS)
 *	-k, --events LIST	the kinds of device events, comma-separated:
 *				write (a rogue write to the raw device at a
 *				zone's write pointer; the default), reset (a
 *				BLKRESETZONE of the zone: the write pointer
 *				behind the size), readonly and offline (the
 *				target reports the zone so; need --cond-cmd),
 *				dead (the SCSI device set offline, then
 *				running again once a write found it)
 *	-c, --cond-cmd CMD	a command that sets a zone's condition behind
 *				the initiator's back, run as "CMD ZONE cond
 *				COND" (ZONE the zone's index on the device,
 *				COND readonly or offline): the testbed's
 *				zbc_zone with its backing file. The zones
 *				stay so.
 *	-E, --errors MODE	the mount's errors= mode, which decides what
 *				the model does then (default remount-ro)
 *	-m, --remount N		with one process: N in 1000 operations are a
 *				remount, read-only or read-write, with the
 *				same errors= mode and explicit-open sometimes
 *				turned on or off (EBUSY to read-only while a
 *				file is open for write)
 *	-B, --open-behind	before a remount read-write, open up to two
 *				zones behind the read-only mount
 *				(BLKOPENZONE); after it, each must be closed,
 *				or empty if it holds no data, as a read-write
 *				mount leaves it
 *	-M, --hold-map		with one process: a shared writable mapping
 *				of a conventional file may stay across
 *				operations, stored into now and then; when
 *				errors=remount-ro makes the file system
 *				read-only, msync must report EROFS (if it was
 *				dirty) and a store must get SIGBUS
 *	-C, --cycle N		with one process: N in 1000 operations are an
 *				umount and a mount, read-only or read-write,
 *				after which the sizes come from the device
 *				and every file is read back whole
 *	-l, --log N		operations shown before a divergence (20)
 *	-v, --verbose		print every operation and its outcome
 *	-h, --help		this text
 *
 * OUTPUT
 *	On success one line: "zfsx: seed S ops N ok (writes W, reads R,
 *	truncates T, errors E by errno NAME:n ...; M MiB written, ... C
 *	calls, O no-ops)", exit 0: N operations drawn, of which O did nothing
 *	(no file or descriptor for them, or one the model cannot judge), and
 *	C system calls whose result the model judged, E of them the
 *	refusals it expected. On a divergence:
 *	the last operations, what diverged, the seed, the operation number
 *	and the command that replays it, exit 1. Usage errors exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/blkzoned.h>
#include <liburing.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#define ZFSX_MAX_FILES		64
#define ZFSX_MAX_FDS		3	/* long-lived descriptors per file */
#define ZFSX_MAX_DEPTH		32
#define ZFSX_MAX_QUEUE		(4LL << 20)	/* bytes in flight per op */
#define ZFSX_PAGE		4096
#define ZFSX_LOG_MAX		64
#define ZFSX_LINE		240
#define ZFSX_NOBODY		65534
#define ZFSX_GOLDEN		0x9e3779b97f4a7c15ULL
#define ZFSX_APPEND_MAGIC	0x444e505841534b5aULL

/* Errnos a call may end with: a small set. */
struct zfsx_errs {
	int e[8];
	int n;
};

/* A long-lived open file descriptor of a file. */
struct zfsx_fd {
	int fd;
	int flags;
};

/* The model of one file. */
struct zfsx_file {
	char name[32];			/* "seq/3" */
	char path[PATH_MAX];
	int seq;			/* sequential file */
	int shared;			/* the appenders' file */
	long long cap;			/* capacity (bytes) */
	long long size;			/* size (bytes) */
	unsigned int mode;		/* permission bits */
	unsigned int uid, gid;
	uint32_t *tag;			/* per block: the write's tag, 0 unknown */
	long long nblocks;
	struct zfsx_fd fds[ZFSX_MAX_FDS];
	int nfds;
	int wrefs;			/* descriptors open for write */
	int zopen;			/* explicitly opened for its writers */
	int zkeep;			/* closed empty on a read-only mount:
					   active where the device keeps an
					   empty zone closed (ZNS) */
	long long rogue;		/* bytes the zone holds past the size */
	long long zstart;		/* zone start on the device (bytes) */
	int zro;			/* errors=zone-ro made it read-only */
	int offline;			/* errors=zone-offline took it */
	int dcond;			/* the condition the target was told
					   to report (--cond-cmd), or 0 */
	int romount;			/* read-only when mounted: all bits
					   taken, not only the write bits */
	int wb_lost;			/* a writeback failed on the read-only
					   file system: a descriptor opened
					   before may see EROFS once */
	unsigned int mode0, uid0, gid0;	/* as a mount makes it */
};

/* What a run did, for the summary line (shared by the workers). */
struct zfsx_counts {
	long long ops, writes, reads, truncs, errs;
	long long bytes_written, bytes_checked;
	long long dev_checks;		/* zone reports compared with the model */
	long long cycles;		/* umount + mount */
	long long calls;		/* system calls whose result was judged */
	long long noops;		/* operations drawn that did nothing */
	long long events;		/* device events made and found */
	long long bytes_read_back;	/* by the full read-backs */
	long long errno_count[134];
};

#define ZFSX_NERRNO	134

/* The model of the mount, and the run's state. */
struct zfsx {
	/* options */
	const char *dir;
	uint64_t seed;
	long long ops;
	const char *files_arg;
	int explicit_open;
	int rogue;			/* device events, per mille */
	unsigned int events;		/* which (1 << enum zfsx_event) */
	const char *cond_cmd;		/* sets a zone's condition */
	int remount;			/* remounts, per mille */
	int cycle;			/* umount + mount, per mille */
	int behind;			/* zones opened behind a read-only mount */
	int hold_map;			/* keep a shared writable mapping */
	const char *errors;		/* the mount's errors= mode */
	int procs;
	int seconds;
	int spec_buffers;
	int no_queued_faults;
	int block_buffers;
	int nlog;
	int verbose;
	/* device facts */
	char dev[PATH_MAX];
	char devname[PATH_MAX];
	unsigned int bs;		/* block size */
	unsigned int dma_mask;		/* device DMA alignment mask */
	unsigned int max_wro;		/* max_wro_seq_files, 0: none */
	unsigned int max_active;
	int dev_fd;			/* read-only, for zone reports */
	int close_keeps_empty;		/* CLOSE leaves an empty zone closed
					   (ZNS), not empty (ZBC, null_blk) */
	long long zone_sectors;
	/* model of the mount */
	struct zfsx_file files[ZFSX_MAX_FILES];
	int nfiles;
	int nwro;			/* seq files open for write */
	unsigned int wro_quota;		/* this process may hold that many */
	int rdonly;
	long long ro_wsectors;		/* the device's written sectors when
					   the file system became read-only */
	struct {			/* the mapping --hold-map keeps */
		struct zfsx_file *f;
		unsigned char *p;
		long long off, len;
		int dirty;		/* stored into since the last msync */
	} hmap;
	int global_checks;		/* sysfs counters are this process' */
	/* run state */
	int worker;			/* -1: single process */
	uint64_t rng;
	long long opno;
	long long lastlog;		/* the last operation noted, or -1 */
	time_t deadline;
	char log[ZFSX_LOG_MAX][ZFSX_LINE];
	char cur[ZFSX_LINE];
	struct zfsx_counts *cnt;
	int argc;
	char **argv;
};

static struct zfsx zx;

/* Device events (--events), changes behind the mount. */
enum zfsx_event {
	ZFSX_EV_WRITE,		/* a rogue write at the write pointer */
	ZFSX_EV_RESET,		/* a zone reset: the write pointer behind */
	ZFSX_EV_READONLY,	/* the zone made read-only (--cond-cmd) */
	ZFSX_EV_OFFLINE,	/* the zone made offline (--cond-cmd) */
	ZFSX_EV_DEAD,		/* the whole device stops answering */
	ZFSX_NR_EVENTS
};

static const char *const zfsx_event_names[] = {
	"write", "reset", "readonly", "offline", "dead",
};

static const char *zfsx_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "UNKNOWN";
}

/* splitmix64: the whole run follows from the seed. */
static uint64_t zfsx_rnd(void)
{
	uint64_t z = (zx.rng += ZFSX_GOLDEN);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n). */
static long long zfsx_below(long long n)
{
	return n > 0 ? (long long)(zfsx_rnd() % (uint64_t)n) : 0;
}

static int zfsx_pct(int p)
{
	return zfsx_below(100) < p;
}

/* ---- log and divergence ---- */

static void zfsx_note(const char *fmt, ...)
{
	va_list ap;
	int n;

	/* --verbose: each operation once it is done, with its outcomes. */
	if (zx.verbose && zx.lastlog >= 0)
		fprintf(stderr, "%s\n", zx.log[zx.lastlog % ZFSX_LOG_MAX]);
	zx.lastlog = zx.opno;
	if (zx.worker >= 0)
		n = snprintf(zx.cur, sizeof(zx.cur), "w%d#%lld ", zx.worker,
			     zx.opno);
	else
		n = snprintf(zx.cur, sizeof(zx.cur), "#%lld ", zx.opno);
	va_start(ap, fmt);
	vsnprintf(zx.cur + n, sizeof(zx.cur) - n, fmt, ap);
	va_end(ap);
	memcpy(zx.log[zx.opno % ZFSX_LOG_MAX], zx.cur, ZFSX_LINE);
}

/* Append the outcome to the current operation's log line. */
static void zfsx_note_more(const char *fmt, ...);

/* The operation drawn does nothing: counted apart from the calls. */
static void zfsx_noop(const char *why)
{
	zfsx_note_more(" %s", why);
	zx.cnt->noops++;
}

static void zfsx_note_more(const char *fmt, ...)
{
	char *line = zx.log[zx.opno % ZFSX_LOG_MAX];
	size_t n = strlen(line);
	va_list ap;

	if (n >= ZFSX_LINE - 2)
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, ZFSX_LINE - n, fmt, ap);
	va_end(ap);
}

static void zfsx_replay_cmd(FILE *out)
{
	int i;

	fprintf(out, "zfsx: replay: zfsx --seed %llu --ops %lld",
		(unsigned long long)zx.seed, zx.opno + 1);
	for (i = 1; i < zx.argc; i++) {
		const char *a = zx.argv[i];

		if (!strcmp(a, "--seed") || !strcmp(a, "-s") ||
		    !strcmp(a, "--ops") || !strcmp(a, "-n") ||
		    !strcmp(a, "--seconds") || !strcmp(a, "-t")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--seed=", 7) || !strncmp(a, "--ops=", 6) ||
		    !strncmp(a, "--seconds=", 10))
			continue;
		fprintf(out, strchr(a, ' ') ? " '%s'" : " %s", a);
	}
	fprintf(out, "\n");
}

static void __attribute__((format(printf, 1, 2), noreturn))
zfsx_diverge(const char *fmt, ...)
{
	long long first = zx.opno - zx.nlog + 1, i;
	va_list ap;

	fflush(stdout);
	if (first < 0)
		first = 0;
	if (zx.opno - first >= ZFSX_LOG_MAX)
		first = zx.opno - ZFSX_LOG_MAX + 1;
	printf("zfsx: last operations%s:\n",
	       zx.worker >= 0 ? " of this worker" : "");
	for (i = first; i <= zx.opno; i++)
		printf("  %s\n", zx.log[i % ZFSX_LOG_MAX]);
	printf("zfsx: DIVERGENCE: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\nzfsx: seed %llu op %lld", (unsigned long long)zx.seed,
	       zx.opno);
	if (zx.worker >= 0)
		printf(" worker %d", zx.worker);
	printf("\n");
	zfsx_replay_cmd(stdout);
	fflush(stdout);
	exit(1);
}

static void __attribute__((format(printf, 1, 2), noreturn))
zfsx_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "zfsx: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

/* ---- expected outcomes ---- */

static void zfsx_allow(struct zfsx_errs *x, int err)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (x->e[i] == err)
			return;
	if (x->n < 8)
		x->e[x->n++] = err;
}

static int zfsx_allowed(const struct zfsx_errs *x, int err)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (x->e[i] == err)
			return 1;
	return 0;
}

static const char *zfsx_errs_str(const struct zfsx_errs *x, int ok)
{
	static char s[128];
	int i, n = 0;

	s[0] = 0;
	if (ok)
		n = snprintf(s, sizeof(s), "success");
	for (i = 0; i < x->n && n < (int)sizeof(s) - 20; i++)
		n += snprintf(s + n, sizeof(s) - n, "%s%s", n ? "|" : "",
			      zfsx_errname(x->e[i]));
	return s;
}

static void zfsx_count_err(int err)
{
	zx.cnt->errs++;
	if (err > 0 && err < ZFSX_NERRNO)
		zx.cnt->errno_count[err]++;
}

/*
 * Check a result: @ret is >= 0 or -errno. @ok says whether success is
 * allowed. Returns ret.
 */
static long long zfsx_check(const char *what, long long ret,
			    const struct zfsx_errs *x, int ok)
{
	if (ret < 0) {
		zfsx_note_more(" -> %s", zfsx_errname(-ret));
		if (!zfsx_allowed(x, -ret))
			zfsx_diverge("%s: got %s, the model allows %s", what,
				     zfsx_errname(-ret), zfsx_errs_str(x, ok));
		zfsx_count_err(-ret);
		zx.cnt->calls++;
	} else {
		zfsx_note_more(" -> %lld", ret);
		zx.cnt->calls++;
		if (!ok)
			zfsx_diverge("%s: got %lld, the model allows %s", what,
				     ret, zfsx_errs_str(x, ok));
	}
	return ret;
}

/* ---- data pattern: the zfs_io pattern with the write's tag as seed ---- */

static uint64_t zfsx_word(uint64_t off, uint64_t tag)
{
	return off ^ (tag * ZFSX_GOLDEN);
}

/* Fill @len bytes of the pattern of @tag for file offset @off. */
static void zfsx_fill(unsigned char *buf, size_t len, uint64_t off,
		      uint64_t tag)
{
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		buf[i] = zfsx_word((off + i) & ~7ULL, tag) >> (((off + i) & 7) * 8);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = zfsx_word(off + i, tag);

		memcpy(buf + i, &w, 8);
	}
	for (; i < len; i++)
		buf[i] = zfsx_word((off + i) & ~7ULL, tag) >> (((off + i) & 7) * 8);
}

/*
 * Check @len bytes read at file offset @off against the model of @f.
 * Blocks of unknown data (tag 0) are not checked.
 */
static void zfsx_verify(struct zfsx_file *f, const unsigned char *buf,
			long long off, long long len, const char *how)
{
	static unsigned char *exp;
	static size_t explen;
	long long pos = off, end = off + len;

	if (explen < zx.bs) {
		free(exp);
		exp = malloc(zx.bs);
		explen = zx.bs;
		if (!exp)
			zfsx_die("out of memory");
	}
	while (pos < end) {
		long long b = pos / zx.bs;
		long long bend = (b + 1) * (long long)zx.bs;
		long long n = (bend < end ? bend : end) - pos;
		uint32_t tag = b < f->nblocks ? f->tag[b] : 0;

		if (tag) {
			zfsx_fill(exp, n, pos, tag);
			if (memcmp(exp, buf + (pos - off), n)) {
				long long i = 0;

				while (exp[i] == buf[pos - off + i])
					i++;
				zfsx_diverge("%s of %s: byte at %lld differs (block %lld, tag %u, size %lld)",
					     how, f->name, pos + i, b, tag,
					     f->size);
			}
			zx.cnt->bytes_checked += n;
		}
		pos += n;
	}
}

/* Blocks [off, off + len) now hold the data of @tag (0: unknown). */
static void zfsx_set_tags(struct zfsx_file *f, long long off, long long len,
			  uint32_t tag)
{
	long long b = off / zx.bs, e = (off + len + zx.bs - 1) / zx.bs;

	if (len <= 0)
		return;
	/* Partly written blocks: unknown. */
	if (off % zx.bs)
		f->tag[b] = 0;
	if ((off + len) % zx.bs && e - 1 < f->nblocks)
		f->tag[e - 1] = 0;
	if (off % zx.bs)
		b++;
	if ((off + len) % zx.bs)
		e--;
	for (; b < e && b < f->nblocks; b++)
		f->tag[b] = tag;
}

/* ---- buffers ---- */

enum zfsx_buf_kind {
	ZFSX_BUF_ALIGNED,
	ZFSX_BUF_MIS512,
	ZFSX_BUF_MIS1,
	ZFSX_BUF_HOLE,		/* first page mapped, the rest not */
	ZFSX_BUF_UNMAPPED,
};

static const char *const zfsx_buf_names[] = {
	"aligned", "mis512", "mis1", "hole", "unmapped",
};

struct zfsx_buf {
	unsigned char *map;
	size_t maplen;
	unsigned char *p;
	long long mapped;	/* bytes of the buffer that are accessible */
};

static void zfsx_buf_get(struct zfsx_buf *b, enum zfsx_buf_kind kind,
			 size_t len)
{
	b->maplen = len + 2 * ZFSX_PAGE;
	b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED)
		zfsx_die("mmap of %zu bytes: %s", b->maplen, strerror(errno));
	b->p = b->map;
	b->mapped = len;
	if (kind == ZFSX_BUF_MIS512)
		b->p += 512;
	else if (kind == ZFSX_BUF_MIS1)
		b->p += 1;
}

/* Take access away once the buffer is filled. */
static void zfsx_buf_protect(struct zfsx_buf *b, enum zfsx_buf_kind kind)
{
	if (kind == ZFSX_BUF_HOLE) {
		mprotect(b->map + ZFSX_PAGE, b->maplen - ZFSX_PAGE, PROT_NONE);
		b->mapped = ZFSX_PAGE;
	} else if (kind == ZFSX_BUF_UNMAPPED) {
		mprotect(b->map, b->maplen, PROT_NONE);
		b->mapped = 0;
	}
}

static void zfsx_buf_put(struct zfsx_buf *b)
{
	munmap(b->map, b->maplen);
}

/*
 * Whether a direct write buffer at @p is refused for its alignment: for a
 * sequential file, one not aligned to the block size (zonefs(5) ZONE FILES);
 * for a conventional file, one the device's DMA alignment refuses, or
 * with --spec-buffers one not aligned to the block size.
 */
static int zfsx_buf_refused(const void *p, int seq)
{
	uintptr_t a = (uintptr_t)p;

	if (zx.spec_buffers || seq)
		return (a & (zx.bs - 1)) != 0;
	return (a & zx.dma_mask) != 0;
}

/* ---- device and file discovery ---- */

static void zfsx_read_str(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");

	buf[0] = 0;
	if (!fp)
		return;
	if (!fgets(buf, len, fp))
		buf[0] = 0;
	fclose(fp);
	buf[strcspn(buf, "\n")] = 0;
}

static long long zfsx_read_num(const char *fmt, const char *name)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), fmt, name);
	zfsx_read_str(path, buf, sizeof(buf));
	return buf[0] ? atoll(buf) : -1;
}

/* The path of the device's sysfs attribute @leaf ("stat", "device/state"). */
static void zfsx_block_path(char *path, size_t size, const char *leaf)
{
	snprintf(path, size, "/sys/block/%s/%s", zx.devname, leaf);
}

/* The device mounted on --dir, from /proc/mounts. */
static void zfsx_find_dev(void)
{
	char dev[PATH_MAX], mnt[PATH_MAX], type[64], real[PATH_MAX];
	FILE *fp = fopen("/proc/mounts", "r");
	char line[3 * PATH_MAX];
	int found = 0;

	if (!fp || !realpath(zx.dir, real))
		zfsx_die("cannot find the mount of %s", zx.dir);
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%4095s %4095s %63s", dev, mnt, type) != 3)
			continue;
		if (!strcmp(mnt, real) && !strcmp(type, "zonefs")) {
			snprintf(zx.dev, sizeof(zx.dev), "%s", dev);
			found = 1;
		}
	}
	fclose(fp);
	if (!found)
		zfsx_die("no zonefs is mounted on %s", zx.dir);
	snprintf(zx.devname, sizeof(zx.devname), "%s",
		 strrchr(zx.dev, '/') ? strrchr(zx.dev, '/') + 1 : zx.dev);
}

/*
 * The device's report of the zone at @sector, into @z; returns the
 * report's flags (BLK_ZONE_REP_CAPACITY).
 */
static unsigned int zfsx_report_zone(unsigned long long sector,
				     struct blk_zone *z)
{
	union {
		struct blk_zone_report rep;
		char buf[sizeof(struct blk_zone_report) + sizeof(struct blk_zone)];
	} r;

	memset(&r, 0, sizeof(r));
	r.rep.sector = sector;
	r.rep.nr_zones = 1;
	if (ioctl(zx.dev_fd, BLKREPORTZONE, &r.rep) || r.rep.nr_zones != 1)
		zfsx_die("zone report of %s: %s", zx.dev, strerror(errno));
	*z = r.rep.zones[0];
	return r.rep.flags;
}

/* The zone behind a file: its inode number is its zone index (zonefs(5) DIRECTORY TREE). */
static void zfsx_zone_of(struct zfsx_file *f, ino_t ino)
{
	struct blk_zone z;
	unsigned int flags;

	if (zx.zone_sectors <= 0)
		zfsx_die("cannot read the zone size of %s", zx.dev);
	f->zstart = ((long long)ino * zx.zone_sectors) << 9;
	flags = zfsx_report_zone(f->zstart >> 9, &z);
	if (f->seq)
		f->cap = (long long)((flags & BLK_ZONE_REP_CAPACITY) ?
				     z.capacity : z.len) << 9;
}

static void zfsx_add_file(const char *grp, long n)
{
	struct zfsx_file *f;
	struct stat st;

	if (zx.nfiles >= ZFSX_MAX_FILES)
		zfsx_die("too many files");
	f = &zx.files[zx.nfiles];
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s/%s/%ld", zx.dir, grp, n);
	snprintf(f->name, sizeof(f->name), "%s/%ld", grp, n);
	if (stat(f->path, &st))
		return;
	f->seq = !strcmp(grp, "seq");
	f->cap = st.st_size;
	zfsx_zone_of(f, st.st_ino);
	f->size = st.st_size;
	f->mode = f->mode0 = st.st_mode & 07777;
	f->uid = f->uid0 = st.st_uid;
	f->gid = f->gid0 = st.st_gid;
	f->nblocks = (f->cap + zx.bs - 1) / zx.bs;
	/* Data already there is unknown: tag 0. */
	f->tag = calloc(f->nblocks ? f->nblocks : 1, sizeof(*f->tag));
	if (!f->tag)
		zfsx_die("out of memory");
	zx.nfiles++;
}

static void zfsx_parse_files(const char *arg)
{
	char *s = strdup(arg), *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char grp[8];
		long a, b;
		int n;

		n = sscanf(tok, "%3[a-z]/%ld-%ld", grp, &a, &b);
		if (n == 2)
			b = a;
		if (n < 2 || (strcmp(grp, "seq") && strcmp(grp, "cnv")) ||
		    a < 0 || b < a || b - a > ZFSX_MAX_FILES)
			zfsx_die("bad --files item '%s'", tok);
		for (; a <= b; a++)
			zfsx_add_file(grp, a);
	}
	free(s);
	if (!zx.nfiles)
		zfsx_die("none of the files '%s' exists", arg);
}

static void zfsx_setup(void)
{
	struct statfs sfs;
	long long v;

	zfsx_find_dev();
	if (statfs(zx.dir, &sfs))
		zfsx_die("statfs %s: %s", zx.dir, strerror(errno));
	/* zonefs(5) DIRECTORY TREE: f_bsize is the block size. */
	zx.bs = sfs.f_bsize;
	v = zfsx_read_num("/sys/block/%s/queue/dma_alignment", zx.devname);
	zx.dma_mask = v < 0 ? 511 : v;
	v = zfsx_read_num("/sys/fs/zonefs/%s/max_wro_seq_files", zx.devname);
	zx.max_wro = v < 0 ? 0 : v;
	v = zfsx_read_num("/sys/fs/zonefs/%s/max_active_seq_files", zx.devname);
	zx.max_active = v < 0 ? 0 : v;
	zx.wro_quota = zx.max_wro;
	zx.zone_sectors = zfsx_read_num("/sys/block/%s/queue/chunk_sectors",
					zx.devname);
	zx.dev_fd = open(zx.dev, O_RDONLY);
	if (zx.dev_fd < 0)
		zfsx_die("open of %s: %s", zx.dev, strerror(errno));
	/*
	 * ZNS closes an explicitly opened empty zone to closed, which keeps
	 * it active; ZBC and null_blk make it empty again.
	 */
	zx.close_keeps_empty = !strncmp(zx.devname, "nvme", 4);
	zfsx_parse_files(zx.files_arg);
	if (zx.events & (1U << ZFSX_EV_DEAD)) {
		char path[PATH_MAX + 32];

		zfsx_block_path(path, sizeof(path), "device/state");
		if (access(path, W_OK))
			zfsx_die("the dead event needs a SCSI device: no %s", path);
	}
}

/* ---- open, close and the open slots ---- */

static int zfsx_may_be_refused(void);
static void zfsx_allow_refusal(struct zfsx_errs *x);
static void zfsx_check_device(const char *when);
static void zfsx_op_cycle(void);
static long long zfsx_zone_data(struct zfsx_file *f, int *cond);
static void zfsx_model_reopen(struct zfsx_file *f);

static int zfsx_writable(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY;
}

static const char *zfsx_flags_str(int flags)
{
	static char s[64];

	snprintf(s, sizeof(s), "%s%s%s",
		 (flags & O_ACCMODE) == O_RDONLY ? "r" :
		 (flags & O_ACCMODE) == O_WRONLY ? "w" : "rw",
		 flags & O_DIRECT ? ",direct" : "",
		 flags & O_APPEND ? ",append" : "");
	return s;
}

/*
 * Whether this process may try a first open for write of @f now: with
 * several workers each keeps to its share of the open slots, so that no
 * worker's EBUSY depends on another's opens.
 */
static int zfsx_may_open(struct zfsx_file *f, int flags)
{
	if (!f->seq || !zfsx_writable(flags) || f->wrefs || zx.worker < 0 ||
	    !zx.explicit_open || !zx.max_wro)
		return 1;
	return zx.nwro < (int)zx.wro_quota;
}

/* Files open for write whose zone no error took away. */
static int zfsx_nwro_good(void)
{
	int i, n = 0;

	for (i = 0; i < zx.nfiles; i++)
		n += zx.files[i].seq && zx.files[i].wrefs &&
		     !zx.files[i].zro && !zx.files[i].offline;
	return n;
}

/*
 * Open @f with @flags and check the result against the model.
 * zonefs(5) I/O ERRORS (explicit-open): a first open for write of a sequential file
 * beyond the device's open zone limit fails with EBUSY. zonefs(5) I/O ERRORS
 * (read-only): no open for write on a read-only file system (EROFS, the
 * VFS's answer). Returns the descriptor or -1.
 */
static int zfsx_open(struct zfsx_file *f, int flags)
{
	struct zfsx_errs x = { 0 };
	int ok = 1, fd;
	long long ret;

	if (zfsx_writable(flags) && zx.rdonly) {
		zfsx_allow(&x, EROFS);
		ok = 0;
	} else if (f->seq && zfsx_writable(flags) && !f->wrefs &&
		   zx.explicit_open && zx.max_wro && !f->zro && !f->offline &&
		   zx.nwro >= (int)zx.max_wro) {
		zfsx_allow(&x, EBUSY);
		/*
		 * zonefs(5) I/O ERRORS: a zone an error made read-only or offline gives
		 * its open slot back, in sysfs too: whether a file still
		 * open for write on such a zone counts is not said.
		 */
		ok = zfsx_nwro_good() < (int)zx.max_wro;
	}
	/*
	 * zonefs(5) I/O ERRORS: the explicit open of a first open for write may be refused
	 * for want of zone resources, with no policy.
	 */
	if (!zx.rdonly && f->seq && zfsx_writable(flags) && !f->wrefs &&
	    zx.explicit_open && !f->zro && !f->offline && f->size < f->cap &&
	    zfsx_may_be_refused())
		zfsx_allow_refusal(&x);
	fd = open(f->path, flags);
	ret = fd < 0 ? -errno : 0;
	zfsx_note_more(" open(%s)", zfsx_flags_str(flags));
	zfsx_check("open", ret, &x, ok);
	if (fd < 0)
		return -1;
	if (f->seq && zfsx_writable(flags) && !f->wrefs++) {
		zx.nwro++;
		f->zopen = zx.explicit_open && f->size < f->cap;
	}
	return fd;
}

/* The last close of a write descriptor closes the zone (zonefs(5) I/O ERRORS). */
static void zfsx_close(struct zfsx_file *f, int fd, int flags)
{
	if (close(fd))
		zfsx_diverge("close of %s: %s", f->name, zfsx_errname(errno));
	if (f->seq && zfsx_writable(flags) && !--f->wrefs) {
		zx.nwro--;
		/*
		 * zonefs(5) I/O ERRORS: a read-only file system resets no zone, and ZNS
		 * keeps a zone closed with no data active, until it is
		 * written or reset: by a truncation, or by the zone work of
		 * a remount read-write or a read-write mount.
		 */
		if (f->zopen)
			f->zkeep = !f->size && zx.rdonly;
		f->zopen = 0;
	}
}

static const int zfsx_open_flags[] = {
	O_RDONLY, O_RDONLY | O_DIRECT, O_WRONLY | O_DIRECT,
	O_RDWR | O_DIRECT, O_WRONLY, O_RDWR, O_WRONLY | O_DIRECT | O_APPEND,
};

#define ZFSX_NFLAGS ((int)(sizeof(zfsx_open_flags) / sizeof(int)))

static void zfsx_op_open(struct zfsx_file *f)
{
	int flags = zfsx_open_flags[zfsx_below(ZFSX_NFLAGS)];
	int fd;

	zfsx_note("open %s %s (slots %d/%u)", f->name, zfsx_flags_str(flags),
		  zx.nwro, zx.max_wro);
	if (f->nfds >= ZFSX_MAX_FDS || !zfsx_may_open(f, flags)) {
		zfsx_noop("skipped");
		return;
	}
	fd = zfsx_open(f, flags);
	if (fd < 0)
		return;
	f->fds[f->nfds].fd = fd;
	f->fds[f->nfds].flags = flags;
	f->nfds++;
}

static void zfsx_op_close(struct zfsx_file *f)
{
	int i;

	if (!f->nfds) {
		zfsx_note("close %s:", f->name);
		zfsx_noop("none open");
		return;
	}
	i = zfsx_below(f->nfds);
	zfsx_note("close %s fd %s", f->name, zfsx_flags_str(f->fds[i].flags));
	zfsx_close(f, f->fds[i].fd, f->fds[i].flags);
	f->fds[i] = f->fds[--f->nfds];
}

/* A long-lived descriptor of @f with write access, or -1. */
static int zfsx_pick_fd(struct zfsx_file *f, int want_write)
{
	int i, start = zfsx_below(ZFSX_MAX_FDS);

	for (i = 0; i < f->nfds; i++) {
		int j = (start + i) % f->nfds;

		if (!want_write || zfsx_writable(f->fds[j].flags))
			return j;
	}
	return -1;
}

/* ---- stat and sysfs checks ---- */

static void zfsx_check_stat(struct zfsx_file *f, const char *when)
{
	unsigned int mask = 07777;
	struct stat st;

	if (stat(f->path, &st))
		zfsx_diverge("stat %s %s: %s", f->name, when,
			     zfsx_errname(errno));
	/* zonefs(5) ZONE FILES: the size is the write pointer (seq) or the capacity. */
	if (st.st_size != f->size)
		zfsx_diverge("size of %s %s: %lld, the model has %lld",
			     f->name, when, (long long)st.st_size, f->size);
	/*
	 * zonefs(5) DIRECTORY TREE: chmod and chown last until unmount. zonefs(5) I/O ERRORS: a zone made
	 * read-only loses its write bits, an offline one all its bits, also
	 * again when its inode is built again after a chmod: not checked.
	 */
	if (f->offline)
		mask = 0;
	else if (f->zro)
		mask = 07555;
	if ((st.st_mode & mask) != (f->mode & mask) || st.st_uid != f->uid ||
	    st.st_gid != f->gid)
		zfsx_diverge("mode/owner of %s %s: %o %u:%u, the model has %o %u:%u",
			     f->name, when, st.st_mode & 07777, st.st_uid,
			     st.st_gid, f->mode, f->uid, f->gid);
}

static void zfsx_op_stat(struct zfsx_file *f)
{
	zfsx_note("stat %s", f->name);
	zfsx_check_stat(f, "");
}

/*
 * Whether @f's zone is active as zonefs(5) SYSFS counts it: open by
 * explicit-open or partly written, and neither full, offline nor
 * read-only. A zone closed empty on a read-only mount is active where the
 * device keeps it closed.
 */
static int zfsx_model_active(const struct zfsx_file *f)
{
	if (!f->seq || f->size >= f->cap || f->zro || f->offline)
		return 0;
	/* The device's view: data past a size of 0 is active too. */
	return f->size > 0 || f->rogue || f->zopen ||
	       (f->zkeep && zx.close_keeps_empty);
}

/*
 * zonefs(5) SYSFS: nr_wro_seq_files is the number of sequential files open for
 * write; nr_active_seq_files counts the zones open or partly written,
 * exactly. A file still open for write on a zone an error took away is
 * one of two answers: it counts as open for write, or it gave its slot
 * back (zonefs(5) I/O ERRORS); the count is one or the other.
 */
static void zfsx_op_sysfs(void)
{
	long long wro, act, want = 0;
	int i;

	zfsx_note("sysfs counters");
	if (!zx.global_checks)
		return;
	for (i = 0; i < zx.nfiles; i++)
		want += zfsx_model_active(&zx.files[i]);
	wro = zfsx_read_num("/sys/fs/zonefs/%s/nr_wro_seq_files", zx.devname);
	act = zfsx_read_num("/sys/fs/zonefs/%s/nr_active_seq_files",
			    zx.devname);
	zfsx_note_more(" -> wro %lld active %lld", wro, act);
	if (wro != zfsx_nwro_good() && wro != zx.nwro)
		zfsx_diverge("nr_wro_seq_files is %lld, the model has %d or %d",
			     wro, zfsx_nwro_good(), zx.nwro);
	if (act != want) {
		printf("zfsx: the model's sequential files (name size open-for-write explicitly-open closed-empty rogue-bytes):\n");
		for (i = 0; i < zx.nfiles; i++) {
			struct zfsx_file *f = &zx.files[i];

			if (f->seq)
				printf("  %s %lld %d %d %d %lld%s%s\n", f->name,
				       f->size, f->wrefs, f->zopen, f->zkeep,
				       f->rogue, f->zro ? " read-only" : "",
				       f->offline ? " offline" : "");
		}
		zfsx_diverge("nr_active_seq_files is %lld, the model has %lld",
			     act, want);
	}
}

/*
 * zonefs(5) I/O ERRORS: a device with open and active zone limits may refuse a write or
 * a FINISH for want of them (ETOOMANYREFS, EOVERFLOW), with no policy.
 * A device at its open limit closes a zone to open another, and once all
 * of its active zones are in use, it may refuse to open a zone again,
 * even one it closed itself: so the model allows the refusal for any
 * zone once as many zones as the active limit may be active. With
 * several workers, the others' zones are not in this model: allowed on
 * any device with both limits.
 */
static int zfsx_may_be_refused(void)
{
	int i, act = 0;

	if (!zx.max_wro || !zx.max_active)
		return 0;
	if (!zx.global_checks)
		return 1;
	for (i = 0; i < zx.nfiles; i++)
		act += zfsx_model_active(&zx.files[i]);
	return act >= (int)zx.max_active;
}

/*
 * A FINISH of a zone that is not open needs an open zone of the device
 * too: with explicit-open, once the files hold as many zones open as the
 * device allows, the device may refuse it (it has no implicitly open zone
 * of its own to close instead).
 */
static int zfsx_finish_may_be_refused(const struct zfsx_file *f)
{
	int i, open = 0;

	if (zfsx_may_be_refused())
		return 1;
	if (!zx.explicit_open || !zx.max_wro || !zx.max_active || f->zopen)
		return 0;
	for (i = 0; i < zx.nfiles; i++)
		open += zx.files[i].seq && zx.files[i].zopen;
	return open >= (int)zx.max_wro;
}

static void zfsx_allow_refusal(struct zfsx_errs *x)
{
	zfsx_allow(x, ETOOMANYREFS);
	zfsx_allow(x, EOVERFLOW);
}

/* ---- writes ---- */

struct zfsx_io {
	long long off;		/* where it is issued (-1: append) */
	long long plan;		/* where its data was made for */
	long long len;
	enum zfsx_buf_kind kind;
	struct zfsx_buf buf;
	long long res;		/* bytes or -errno */
};

enum zfsx_how { ZFSX_SYNC, ZFSX_RWF_APPEND, ZFSX_LIBAIO, ZFSX_URING };

static const char *const zfsx_how_names[] = {
	"pwrite", "rwf_append", "libaio", "uring",
};

static void zfsx_issue_libaio(int fd, struct zfsx_io *io, int n, int rd)
{
	struct iocb cbs[ZFSX_MAX_DEPTH], *cbp[ZFSX_MAX_DEPTH];
	struct io_event ev[ZFSX_MAX_DEPTH];
	aio_context_t ctx = 0;
	long ret;
	int i, done = 0;

	if (syscall(SYS_io_setup, n, &ctx))
		zfsx_die("io_setup: %s", strerror(errno));
	memset(cbs, 0, sizeof(cbs));
	for (i = 0; i < n; i++) {
		cbs[i].aio_fildes = fd;
		cbs[i].aio_lio_opcode = rd ? IOCB_CMD_PREAD : IOCB_CMD_PWRITE;
		cbs[i].aio_buf = (uintptr_t)io[i].buf.p;
		cbs[i].aio_nbytes = io[i].len;
		cbs[i].aio_offset = io[i].off < 0 ? 0 : io[i].off;
		cbs[i].aio_data = i;
		cbp[i] = &cbs[i];
		io[i].res = -EINPROGRESS;
	}
	ret = syscall(SYS_io_submit, ctx, n, cbp);
	if (ret < 0)
		ret = 0, io[0].res = -errno;
	/* Not submitted: the first of those failed with io[ret].res. */
	for (i = ret + 1; i < n; i++)
		io[i].res = -ECANCELED;
	if (ret < n && io[ret].res == -EINPROGRESS)
		io[ret].res = -ECANCELED;
	while (done < ret) {
		long got = syscall(SYS_io_getevents, ctx, 1, ret - done, ev,
				   NULL);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			zfsx_die("io_getevents: %s", strerror(errno));
		for (i = 0; i < got; i++)
			io[ev[i].data].res = (long long)ev[i].res;
		done += got;
	}
	syscall(SYS_io_destroy, ctx);
}

static void zfsx_issue_uring(int fd, struct zfsx_io *io, int n, int rd)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	int i, ret;

	ret = io_uring_queue_init(ZFSX_MAX_DEPTH, &ring, 0);
	if (ret)
		zfsx_die("io_uring_queue_init: %s", strerror(-ret));
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		/* -1: the file position, where O_APPEND writes go anyway. */
		long long off = io[i].off < 0 ? -1 : io[i].off;

		if (rd)
			io_uring_prep_read(sqe, fd, io[i].buf.p, io[i].len, off);
		else
			io_uring_prep_write(sqe, fd, io[i].buf.p, io[i].len,
					    off);
		io_uring_sqe_set_data64(sqe, i);
		io[i].res = -ECANCELED;
	}
	ret = io_uring_submit(&ring);
	if (ret < 0)
		zfsx_die("io_uring_submit: %s", strerror(-ret));
	for (i = 0; i < ret; i++) {
		int r = io_uring_wait_cqe(&ring, &cqe);

		if (r == -EINTR) {
			i--;
			continue;
		}
		if (r)
			zfsx_die("io_uring_wait_cqe: %s", strerror(-r));
		io[io_uring_cqe_get_data64(cqe)].res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

static void zfsx_issue(int fd, enum zfsx_how how, struct zfsx_io *io, int n)
{
	int i;

	switch (how) {
	case ZFSX_LIBAIO:
		zfsx_issue_libaio(fd, io, n, 0);
		return;
	case ZFSX_URING:
		zfsx_issue_uring(fd, io, n, 0);
		return;
	default:
		break;
	}
	for (i = 0; i < n; i++) {
		struct iovec iov = { io[i].buf.p, io[i].len };
		ssize_t r;

		if (how == ZFSX_RWF_APPEND)
			r = pwritev2(fd, &iov, 1, -1, RWF_APPEND);
		else if (io[i].off < 0)
			r = write(fd, io[i].buf.p, io[i].len);
		else
			r = pwrite(fd, io[i].buf.p, io[i].len, io[i].off);
		io[i].res = r < 0 ? -errno : r;
	}
}

/* A length in blocks: mostly small, sometimes several MiB. */
static long long zfsx_len_blocks(long long max_bytes)
{
	long long mb = max_bytes / zx.bs, n;
	int r = zfsx_below(100);

	if (r < 60)
		n = 1 + zfsx_below(8);
	else if (r < 90)
		n = 1 + zfsx_below((256 << 10) / zx.bs);
	else if (r < 98)
		n = 1 + zfsx_below((1 << 20) / zx.bs);
	else
		n = 1 + zfsx_below((4 << 20) / zx.bs);
	if (mb < 1)
		mb = 1;
	return n > mb ? mb : n;
}

static enum zfsx_buf_kind zfsx_pick_buf(void)
{
	int r = zfsx_below(100);

	if (r < 84)
		return ZFSX_BUF_ALIGNED;
	if (r < 89)
		return ZFSX_BUF_MIS512;
	if (r < 93)
		return ZFSX_BUF_MIS1;
	if (r < 98)
		return ZFSX_BUF_HOLE;
	return ZFSX_BUF_UNMAPPED;
}

/*
 * The expected outcome of one write of @len bytes at @pos (already
 * resolved for O_APPEND) to @f whose write pointer in the model is @wp.
 * Sets *@full to the bytes a success writes. zonefs(5) ZONE FILES rows: buffered write
 * (EOPNOTSUPP on seq), direct write (alignment: EINVAL; seq offset must
 * equal the write pointer: EINVAL), O_APPEND (cnv: EINVAL), write at or
 * past the capacity (EFBIG; crossing it: shortened). zonefs(5) I/O ERRORS: read-only
 * (EROFS), a bad user buffer (EFAULT; a partly mapped one may write its
 * mapped head, a short write).
 */
static int zfsx_expect_write(struct zfsx_file *f, long long pos, long long len,
			     int direct, int append, struct zfsx_io *io,
			     long long wp, struct zfsx_errs *x, long long *full)
{
	int ok = 1;
	long long n;

	*full = 0;
	if (!direct && f->seq) {
		zfsx_allow(x, EOPNOTSUPP);
		return 0;
	}
	if (zx.rdonly) {
		zfsx_allow(x, EROFS);
		return 0;
	}
	/* zonefs(5) I/O ERRORS zone conditions: offline, every I/O fails; read-only. */
	if (f->offline) {
		zfsx_allow(x, EIO);
		return 0;
	}
	if (f->zro) {
		zfsx_allow(x, EROFS);
		return 0;
	}
	if (append && !f->seq) {
		zfsx_allow(x, EINVAL);
		return 0;
	}
	if (append)
		pos = wp;
	if (pos >= f->cap) {
		zfsx_allow(x, EFBIG);
		/* A misaligned one may be refused for that first. */
		if (direct && ((pos | len) % zx.bs || zfsx_buf_refused(io->buf.p, f->seq)))
			zfsx_allow(x, EINVAL);
		return 0;
	}
	n = len < f->cap - pos ? len : f->cap - pos;
	if (direct && ((pos | n) % zx.bs || zfsx_buf_refused(io->buf.p, f->seq))) {
		zfsx_allow(x, EINVAL);
		ok = 0;
	}
	if (direct && f->seq && pos != wp) {
		zfsx_allow(x, EINVAL);
		ok = 0;
	}
	if (!ok)
		return 0;
	if (io->kind == ZFSX_BUF_UNMAPPED) {
		zfsx_allow(x, EFAULT);
		return 0;
	}
	if (io->kind == ZFSX_BUF_HOLE)
		zfsx_allow(x, EFAULT);
	*full = n;
	return 1;
}

/*
 * One write operation: 1 to 32 writes issued together on one descriptor,
 * back to back from one offset. The model replays them in submission
 * order, which is the order a sequential file takes them in (zonefs(5) ZONE FILES:
 * several may be in flight, each must start where the previous ended).
 */
static void zfsx_op_write(struct zfsx_file *f, int buffered)
{
	struct zfsx_io io[ZFSX_MAX_DEPTH];
	enum zfsx_how how = ZFSX_SYNC;
	int depth = 1, direct = !buffered, append = 0, i, pick, fd, flags;
	int uncertain = 0, bad = -1, faulty = 0;
	int refusable = f->seq && direct && zfsx_may_be_refused();
	long long pos, total, wp = f->size, start_size = f->size, per;
	uint32_t tag = (uint32_t)(zx.opno + 1) * 2654435761u | 1;
	struct stat st;

	/* How it is issued. */
	if (direct) {
		int r = zfsx_below(100);

		if (r < 40)
			how = ZFSX_SYNC;
		else if (r < 45)
			how = ZFSX_RWF_APPEND;
		else if (r < 72)
			how = ZFSX_LIBAIO;
		else
			how = ZFSX_URING;
		if (how >= ZFSX_LIBAIO)
			depth = 1 + zfsx_below(ZFSX_MAX_DEPTH);
		if (how == ZFSX_RWF_APPEND)
			append = 1;
		else
			append = f->seq ? zfsx_pct(20) : zfsx_pct(3);
	} else {
		append = zfsx_pct(3);
	}

	/* Where: mostly right, sometimes wrong on purpose. */
	if (f->seq) {
		int r = zfsx_below(100);

		pos = f->size;
		if (r < 8 && f->size < f->cap)
			pos = zfsx_below(f->cap / zx.bs) * zx.bs;
		else if (r < 12)
			pos = f->cap + zfsx_below(4) * zx.bs;
		else if (r < 15)
			pos = f->size + 1 + zfsx_below(zx.bs - 1);
	} else {
		int r = zfsx_below(100);

		pos = zfsx_below(f->cap / zx.bs) * zx.bs;
		if (r < 5)
			pos = f->cap - zx.bs * (1 + zfsx_below(4));
		else if (r < 8)
			pos = f->cap + zfsx_below(4) * zx.bs;
		else if (r < 12 || buffered)
			pos += zfsx_below(zx.bs);
	}
	per = ZFSX_MAX_QUEUE / depth;
	if (buffered)
		per = 256 << 10;

	/* What: lengths and buffers, at most one bad buffer in a queue. */
	if (depth > 1 && !zx.no_queued_faults && zfsx_pct(15))
		bad = zfsx_below(depth);
	for (i = 0; i < depth; i++) {
		io[i].len = zfsx_len_blocks(per) * zx.bs;
		if (buffered || zfsx_pct(4))
			io[i].len = 1 + zfsx_below(io[i].len + zx.bs);
		io[i].kind = ZFSX_BUF_ALIGNED;
		if (depth == 1)
			io[i].kind = zfsx_pick_buf();
		else if (i == bad)
			io[i].kind = ZFSX_BUF_MIS512 + zfsx_below(4);
		/* One byte off is refused before any I/O; 512 B off is not. */
		if (zx.block_buffers && !f->seq && io[i].kind == ZFSX_BUF_MIS512)
			io[i].kind = ZFSX_BUF_MIS1;
		if (io[i].kind == ZFSX_BUF_HOLE && io[i].len < 2 * ZFSX_PAGE)
			io[i].len = 2 * ZFSX_PAGE;
		faulty |= io[i].kind != ZFSX_BUF_ALIGNED;
	}

	/* Which descriptor. */
	flags = (zfsx_pct(50) ? O_WRONLY : O_RDWR) | (direct ? O_DIRECT : 0) |
		(append && how != ZFSX_RWF_APPEND ? O_APPEND : 0);
	pick = zfsx_pct(50) ? zfsx_pick_fd(f, 1) : -1;
	if (pick >= 0) {
		flags = f->fds[pick].flags;
		direct = !!(flags & O_DIRECT);
		if (how != ZFSX_RWF_APPEND)
			append = !!(flags & O_APPEND);
	}

	zfsx_note("write %s %s%s%s depth %d at %lld len %lld%s buf %s%s",
		  f->name, zfsx_how_names[how], direct ? " direct" : " buffered",
		  append ? " append" : "", depth, pos, io[0].len,
		  depth > 1 ? "..." : "", zfsx_buf_names[io[0].kind],
		  pick >= 0 ? " (held fd)" : "");
	if (pick < 0 && !zfsx_may_open(f, flags)) {
		zfsx_noop("skipped");
		return;
	}
	fd = pick >= 0 ? f->fds[pick].fd : zfsx_open(f, flags);
	if (fd < 0)
		return;

	/* Fill the buffers with the data each write will land. */
	total = pos;
	for (i = 0; i < depth; i++) {
		long long at = append ? (i ? total : wp) : total;

		io[i].off = append ? -1 : total;
		io[i].plan = at;
		zfsx_buf_get(&io[i].buf, io[i].kind, io[i].len);
		zfsx_fill(io[i].buf.p, io[i].len, at, tag);
		zfsx_buf_protect(&io[i].buf, io[i].kind);
		total = at + io[i].len;
	}

	zfsx_issue(fd, how, io, depth);

	/* Replay in submission order against the model. */
	for (i = 0; i < depth; i++) {
		struct zfsx_errs x = { 0 };
		long long at = io[i].off < 0 ? wp : io[i].off, full, r;
		int ok;
		char what[64];

		ok = zfsx_expect_write(f, at, io[i].len, direct, append, &io[i],
				       wp, &x, &full);
		if (uncertain) {
			/*
			 * Behind a short or failed write in the same queue:
			 * a later write may find the write pointer moved
			 * (EINVAL), be refused by the device or be cut
			 * short (zonefs(5) I/O ERRORS: no errors= policy for those).
			 */
			zfsx_allow(&x, EINVAL);
			zfsx_allow(&x, EIO);
			zfsx_allow(&x, EREMOTEIO);
			zfsx_allow(&x, EFAULT);
			zfsx_allow(&x, ECANCELED);
		}
		/* Queued behind a refusal: the refusal's errno (zonefs(5) I/O ERRORS). */
		if (refusable && (ok || uncertain))
			zfsx_allow_refusal(&x);
		snprintf(what, sizeof(what), "write %d/%d of %s", i + 1,
			 depth, f->name);
		r = io[i].res;
		if (depth > 1)
			zfsx_note_more(" [%d]", i);
		zfsx_check(what, r, &x, ok);
		zx.cnt->writes++;
		if (r < 0) {
			if (ok && depth > 1 && f->seq)
				uncertain = 1;
			continue;
		}
		if (direct && (r % zx.bs))
			zfsx_diverge("%s: %lld bytes, not whole blocks", what,
				     r);
		if (r > full || (r < full && io[i].kind != ZFSX_BUF_HOLE))
			zfsx_diverge("%s: %lld bytes, the model wrote %lld",
				     what, r, full);
		if (io[i].kind == ZFSX_BUF_HOLE && r > io[i].buf.mapped)
			zfsx_diverge("%s: %lld bytes from a buffer of %lld mapped bytes",
				     what, r, io[i].buf.mapped);
		if (f->seq && at != wp)
			zfsx_diverge("%s: landed at %lld, the write pointer is %lld",
				     what, at, wp);
		/* An append that went elsewhere holds another offset's data. */
		zfsx_set_tags(f, at, r, at == io[i].plan ? tag : 0);
		zx.cnt->bytes_written += r;
		if (f->seq) {
			wp = at + r;
			f->size = wp;
		}
		if (r < full && f->seq)
			uncertain = 1;
	}
	for (i = 0; i < depth; i++)
		zfsx_buf_put(&io[i].buf);

	/* zonefs(5) ZONE FILES: the size is what the device acknowledged. */
	if (f->seq) {
		if (fstat(fd, &st))
			zfsx_diverge("fstat of %s: %s", f->name,
				     zfsx_errname(errno));
		/*
		 * A write refused for want of zone resources after part of it
		 * landed (the device closed the zone between two of its
		 * requests) returned the count that landed, synchronous or
		 * not (zonefs(5) I/O ERRORS), which the model took above: the
		 * size is exactly the model's.
		 */
		if (st.st_size != f->size)
			zfsx_diverge("size of %s after the write: %lld, the model has %lld (it was %lld)",
				     f->name, (long long)st.st_size, f->size,
				     start_size);
		if (f->size >= f->cap)
			f->zopen = 0;
	}
	/* zonefs(5) I/O ERRORS: a user fault never makes the file system read-only. */
	if (faulty && !zx.rdonly) {
		struct statvfs sv;

		if (!statvfs(zx.dir, &sv) && (sv.f_flag & ST_RDONLY))
			zfsx_diverge("the file system went read-only after a bad user buffer");
	}
	if (pick < 0)
		zfsx_close(f, fd, flags);
}

/* ---- reads ---- */

static void zfsx_op_read(struct zfsx_file *f)
{
	struct zfsx_errs x = { 0 };
	int direct = zfsx_pct(60), r = zfsx_below(100), pick, fd, flags, ok;
	enum zfsx_buf_kind kind = ZFSX_BUF_ALIGNED;
	long long off, len, exp, ret;
	struct zfsx_buf buf;

	/* At, below and past the size, and past the capacity. */
	if (r < 60 && f->size)
		off = zfsx_below(f->size / zx.bs) * zx.bs;
	else if (r < 75)
		off = f->size;
	else if (r < 85)
		off = f->size + zfsx_below(64) * zx.bs;
	else if (r < 90)
		off = f->cap + zfsx_below(64) * zx.bs;
	else
		off = zfsx_below(f->cap);
	len = zfsx_len_blocks(4 << 20) * zx.bs;
	if (zfsx_pct(8))
		len = 1 + zfsx_below(len);
	if (zfsx_pct(10))
		kind = zfsx_pct(50) ? ZFSX_BUF_MIS512 : ZFSX_BUF_MIS1;

	flags = direct ? O_RDONLY | O_DIRECT : O_RDONLY;
	pick = zfsx_pct(40) ? zfsx_pick_fd(f, 0) : -1;
	if (pick >= 0 && (f->fds[pick].flags & O_ACCMODE) == O_WRONLY)
		pick = -1;
	if (pick >= 0) {
		flags = f->fds[pick].flags;
		direct = !!(flags & O_DIRECT);
	}
	if (zx.block_buffers && direct)
		kind = ZFSX_BUF_ALIGNED;
	zfsx_note("read %s%s at %lld len %lld buf %s%s", f->name,
		  direct ? " direct" : "", off, len, zfsx_buf_names[kind],
		  pick >= 0 ? " (held fd)" : "");
	fd = pick >= 0 ? f->fds[pick].fd : zfsx_open(f, flags);
	if (fd < 0)
		return;

	/*
	 * zonefs(5) ZONE FILES read row: anything below the size; at or past it, 0. A
	 * direct read must be block aligned (EINVAL), but one at or past
	 * the size may return 0 first, and one cut at the size may be
	 * aligned once cut. The buffer's alignment: the device's DMA rule
	 * refuses (EINVAL); zonefs(5) says nothing else about reads, so a
	 * buffer not aligned to the block size may also be refused.
	 */
	exp = off >= f->size ? 0 : (len < f->size - off ? len : f->size - off);
	ok = 1;
	zfsx_buf_get(&buf, kind, len);
	if (direct) {
		int mis = (off | exp) % zx.bs != 0;
		int bufmis = ((uintptr_t)buf.p & zx.dma_mask) != 0;

		if (!exp) {
			if ((off | len) % zx.bs || bufmis)
				zfsx_allow(&x, EINVAL);
		} else if (mis || bufmis) {
			zfsx_allow(&x, EINVAL);
			ok = 0;
		} else if (len % zx.bs) {
			zfsx_allow(&x, EINVAL);
		}
		if (((uintptr_t)buf.p & (zx.bs - 1)))
			zfsx_allow(&x, EINVAL);
	}
	if (f->offline) {
		x.n = 0;
		zfsx_allow(&x, EIO);
		ok = 0;
	}
	ret = pread(fd, buf.p, len, off);
	ret = ret < 0 ? -errno : ret;
	zfsx_check("read", ret, &x, ok);
	zx.cnt->reads++;
	if (ret >= 0) {
		if (ret != exp)
			zfsx_diverge("read of %s at %lld: %lld bytes, the model has %lld (size %lld)",
				     f->name, off, ret, exp, f->size);
		zfsx_verify(f, buf.p, off, ret, "read");
	}
	zfsx_buf_put(&buf);
	if (pick < 0)
		zfsx_close(f, fd, flags);
}

/* ---- truncate ---- */

static void zfsx_op_truncate(struct zfsx_file *f)
{
	struct zfsx_errs x = { 0 };
	int r = zfsx_below(100), pick = -1, ok = 0, reopen = 0;
	long long size, ret;

	if (r < 40 || (r < 70 && f->size == f->cap))
		size = 0;
	else if (r < 70)
		size = f->cap;
	else if (r < 80)
		size = f->size;
	else if (r < 90)
		size = zfsx_below(f->cap / zx.bs) * zx.bs;
	else if (r < 95)
		size = f->cap + zx.bs;
	else
		size = 1 + zfsx_below(f->cap);
	if (zfsx_pct(40))
		pick = zfsx_pick_fd(f, 1);
	zfsx_note("truncate %s to %lld%s", f->name, size,
		  pick >= 0 ? " (ftruncate)" : "");

	/*
	 * zonefs(5) ZONE FILES truncate row: cnv, EPERM; seq to 0 resets, to the
	 * capacity finishes, else EPERM. Past the capacity the VFS may
	 * refuse first (EFBIG). zonefs(5) I/O ERRORS: EROFS when read-only, which the
	 * VFS says first for a truncate by path on a read-only mount.
	 */
	if (zx.rdonly)
		zfsx_allow(&x, EROFS);
	if (!f->seq || (size && size != f->cap)) {
		zfsx_allow(&x, EPERM);
		if (size > f->cap)
			zfsx_allow(&x, EFBIG);
	} else if (zx.rdonly || f->zro || f->offline) {
		/* zonefs(5) I/O ERRORS: read-only (EROFS); offline, no I/O (EIO). */
		zfsx_allow(&x, EROFS);
		if (f->offline)
			zfsx_allow(&x, EIO);
	} else {
		ok = 1;
		if (size && size != f->size && zfsx_finish_may_be_refused(f))
			zfsx_allow_refusal(&x);
	}
	if (pick >= 0)
		ret = ftruncate(f->fds[pick].fd, size);
	else
		ret = truncate(f->path, size);
	ret = ret < 0 ? -errno : 0;
	zfsx_check("truncate", ret, &x, ok);
	zx.cnt->truncs++;
	if (ret < 0)
		return;
	if (size == 0) {
		/*
		 * zonefs(5) I/O ERRORS: with explicit-open, a file open for
		 * write holds its zone open, also once reset (and one that
		 * was full). A reset closes the zone, and explicit-open as
		 * mounted now opens it again for the writers. The truncation
		 * of an empty file sends nothing when its zone is empty on
		 * the device or held open for its writers: it stays as it is.
		 */
		int noop = !f->size && !f->rogue &&
			   (f->zopen || !(f->zkeep && zx.close_keeps_empty));

		memset(f->tag, 0, f->nblocks * sizeof(*f->tag));
		reopen = f->seq && !noop;
	} else if (size > f->size) {
		/* A finished zone reads what the device has there. */
		zfsx_set_tags(f, f->size, size - f->size, 0);
		f->zopen = 0;
	}
	f->zkeep = 0;
	if (size >= f->cap)
		f->zopen = 0;
	f->size = size;
	if (reopen)
		zfsx_model_reopen(f);
	zfsx_check_stat(f, "after truncate");
}

/* ---- fsync, mmap, attributes ---- */

static void zfsx_op_fsync(struct zfsx_file *f)
{
	struct zfsx_errs x = { 0 };
	int pick = zfsx_pick_fd(f, 0), fd, flags = O_RDONLY, data = zfsx_pct(30);
	long long ret;

	zfsx_note("%s %s%s", data ? "fdatasync" : "fsync", f->name,
		  pick >= 0 ? " (held fd)" : "");
	fd = pick >= 0 ? f->fds[pick].fd : zfsx_open(f, flags);
	if (fd < 0)
		return;
	/* zonefs(5) ZONE FILES fsync row: writeback and a cache flush; no error here. */
	if (f->offline)
		zfsx_allow(&x, EIO);
	/* Pages the read-only file system did not write back, once. */
	if (f->wb_lost)
		zfsx_allow(&x, EROFS);
	ret = data ? fdatasync(fd) : fsync(fd);
	zfsx_check("fsync", ret < 0 ? -errno : 0, &x, !f->offline);
	if (pick < 0)
		zfsx_close(f, fd, flags);
}

/*
 * zonefs(5) ZONE FILES mmap row: cnv files take shared writable mappings; a shared
 * writable mapping of a seq file fails with EINVAL; shared read-only
 * mappings show the file's data.
 */
static void zfsx_op_mmap(struct zfsx_file *f)
{
	struct zfsx_errs x = { 0 };
	int wr = zfsx_pct(f->seq ? 20 : 60), flags = wr ? O_RDWR : O_RDONLY;
	long long pages, off, len, limit, ret;
	uint32_t tag = (uint32_t)(zx.opno + 1) * 2654435761u | 1;
	unsigned char *p;
	int fd;

	limit = (f->seq ? f->size : f->cap) / ZFSX_PAGE;
	if (limit < 1 && !wr) {
		zfsx_note("mmap %s:", f->name);
		zfsx_noop("nothing to map");
		return;
	}
	if (limit < 1)
		limit = 1;
	pages = 1 + zfsx_below(limit < 64 ? limit : 64);
	off = zfsx_below(limit - pages + 1) * ZFSX_PAGE;
	len = pages * ZFSX_PAGE;
	zfsx_note("mmap %s shared %s at %lld len %lld", f->name,
		  wr ? "write" : "read", off, len);
	if (wr && zx.rdonly) {
		zfsx_noop("skipped");
		return;
	}
	if (!zfsx_may_open(f, flags)) {
		zfsx_noop("skipped");
		return;
	}
	fd = zfsx_open(f, flags);
	if (fd < 0)
		return;
	p = mmap(NULL, len, PROT_READ | (wr ? PROT_WRITE : 0), MAP_SHARED, fd,
		 off);
	ret = p == MAP_FAILED ? -errno : 0;
	if (wr && f->seq)
		zfsx_allow(&x, EINVAL);
	zfsx_check("mmap", ret, &x, !(wr && f->seq));
	if (p != MAP_FAILED) {
		zfsx_verify(f, p, off, len, "mapping");
		if (wr) {
			zfsx_fill(p, len, off, tag);
			if (msync(p, len, MS_SYNC))
				zfsx_diverge("msync of %s: %s", f->name,
					     zfsx_errname(errno));
			zfsx_set_tags(f, off, len, tag);
			zx.cnt->writes++;
			zx.cnt->bytes_written += len;
		} else {
			zx.cnt->reads++;
		}
		/* --hold-map: a conventional file's mapping stays. */
		if (wr && zx.hold_map && !f->seq && !zx.hmap.f &&
		    zx.global_checks && zfsx_pct(50)) {
			zfsx_note_more(" (held)");
			zx.hmap.f = f;
			zx.hmap.p = p;
			zx.hmap.off = off;
			zx.hmap.len = len;
			zx.hmap.dirty = 0;
		} else {
			munmap(p, len);
		}
	}
	zfsx_close(f, fd, flags);
}

/* The sectors the device has written (/sys/block/DEV/stat, field 7). */
static long long zfsx_dev_wsectors(void)
{
	long long v[7] = { 0 };
	char path[PATH_MAX + 32];
	FILE *fp;

	zfsx_block_path(path, sizeof(path), "stat");
	fp = fopen(path, "r");
	if (!fp || fscanf(fp, "%lld %lld %lld %lld %lld %lld %lld", &v[0],
			  &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		zfsx_die("cannot read %s", path);
	fclose(fp);
	return v[6];
}

/*
 * The file system just became read-only: from now on the device must not
 * write one more sector until it is read-write again (zonefs(5) I/O
 * ERRORS), whatever is dirty in the page cache; sync() asks it to. The
 * page cache was written back before whatever made it read-only
 * (zfsx_before_trigger(), or the remount itself), and the held mapping
 * stored into it just before: no writeback of the file system's own can
 * still be in flight.
 */
static void zfsx_check_no_write(const char *when);

static void zfsx_went_rdonly(void)
{
	zx.ro_wsectors = zfsx_dev_wsectors();
	sync();
	zfsx_check_no_write("after sync() on the read-only file system");
}

/* Judge a read-only file system by the device's write counter. */
static void zfsx_check_no_write(const char *when)
{
	long long now;

	if (!zx.rdonly || !zx.global_checks)
		return;
	now = zfsx_dev_wsectors();
	if (now != zx.ro_wsectors)
		zfsx_diverge("%s: the read-only file system wrote %lld sectors to the device",
			     when, now - zx.ro_wsectors);
}

static sigjmp_buf zfsx_sigbus_env;

static void zfsx_sigbus(int sig)
{
	(void)sig;
	siglongjmp(zfsx_sigbus_env, 1);
}

/* Store one byte at @p; returns 1 if that raised SIGBUS. */
static int zfsx_store_faults(unsigned char *p, unsigned char v)
{
	struct sigaction sa = { .sa_handler = zfsx_sigbus }, old;
	volatile int bus = 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(zfsx_sigbus_env, 1))
		bus = 1;
	else
		*(volatile unsigned char *)p = v;
	sigaction(SIGBUS, &old, NULL);
	return bus;
}

/*
 * Let go of the held mapping. On a read-only file system (zonefs(5) I/O
 * ERRORS: read-only through the page cache): msync reports EROFS if
 * pages were dirty, 0 if not, and a store then gets SIGBUS, as the
 * writeback write-protected every page; no sector reaches the device.
 * What the mapping stored and the device did not take is unknown data.
 */
static void zfsx_hmap_release(const char *why)
{
	struct zfsx_file *f = zx.hmap.f;
	struct zfsx_errs x = { 0 };
	long long ret;

	if (!f)
		return;
	zfsx_note_more(" (held mapping of %s released: %s)", f->name, why);
	if (zx.rdonly) {
		if (zx.hmap.dirty)
			zfsx_allow(&x, EROFS);
		ret = msync(zx.hmap.p, zx.hmap.len, MS_SYNC) ? -errno : 0;
		zfsx_check("msync of the held mapping on a read-only file system",
			   ret, &x, 1);
		if (!zfsx_store_faults(zx.hmap.p, 0x3c))
			zfsx_diverge("%s: a store into the shared mapping of %s succeeded on a read-only file system",
				     why, f->name);
		if (msync(zx.hmap.p, zx.hmap.len, MS_SYNC))
			zfsx_diverge("second msync of the held mapping of %s: %s",
				     f->name, zfsx_errname(errno));
		if (zx.hmap.dirty) {
			zfsx_set_tags(f, zx.hmap.off, zx.hmap.len, 0);
			f->wb_lost = 1;
		}
		zfsx_check_no_write(why);
	} else if (msync(zx.hmap.p, zx.hmap.len, MS_SYNC)) {
		zfsx_diverge("msync of the held mapping of %s: %s", f->name,
			     zfsx_errname(errno));
	}
	munmap(zx.hmap.p, zx.hmap.len);
	zx.hmap.f = NULL;
}

/*
 * --hold-map: map 1 to 16 pages of a conventional file shared and
 * writable, and keep the mapping (its descriptor is closed: the mapping
 * holds the file open for write).
 */
static void zfsx_hmap_make(void)
{
	struct zfsx_file *f = NULL;
	long long pages, off;
	unsigned char *p;
	int i, fd;

	for (i = 0; i < zx.nfiles && !f; i++)
		if (!zx.files[i].seq && !zx.files[i].offline &&
		    zx.files[i].cap >= 16 * ZFSX_PAGE)
			f = &zx.files[i];
	if (!f)
		return;
	pages = 1 + zfsx_below(16);
	off = zfsx_below(f->cap / ZFSX_PAGE - pages + 1) * ZFSX_PAGE;
	zfsx_note("hold a shared mapping of %s at %lld len %lld", f->name,
		  off, pages * ZFSX_PAGE);
	fd = zfsx_open(f, O_RDWR);
	if (fd < 0)
		return;
	p = mmap(NULL, pages * ZFSX_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, off);
	if (p == MAP_FAILED)
		zfsx_diverge("mmap of %s: %s", f->name, zfsx_errname(errno));
	zfsx_close(f, fd, O_RDWR);
	zx.hmap.f = f;
	zx.hmap.p = p;
	zx.hmap.off = off;
	zx.hmap.len = pages * ZFSX_PAGE;
	zx.hmap.dirty = 0;
}

/* Store into the held mapping: new data, which the model takes. */
static void zfsx_op_hmap_store(void)
{
	uint32_t tag = (uint32_t)(zx.opno + 1) * 2654435761u | 1;
	struct zfsx_file *f = zx.hmap.f;

	zfsx_note("store into the held mapping of %s at %lld len %lld",
		  f->name, zx.hmap.off, zx.hmap.len);
	if (zx.rdonly) {
		zfsx_hmap_release("a store on a read-only file system");
		return;
	}
	zfsx_fill(zx.hmap.p, zx.hmap.len, zx.hmap.off, tag);
	zfsx_set_tags(f, zx.hmap.off, zx.hmap.len, tag);
	zx.hmap.dirty = 1;
	zx.cnt->writes++;
	zx.cnt->bytes_written += zx.hmap.len;
}

/*
 * Before a write or truncation that is to find a device event, which may
 * make the file system read-only: the page cache is written back, so that
 * nothing is dirty then but what the held mapping stores now. A read-only
 * file system writes nothing back (zonefs(5) I/O ERRORS), and the legacy
 * error flag such a writeback leaves would fail the next read of that
 * file once (EIO); the held mapping's release clears it (msync).
 */
static void zfsx_before_trigger(void)
{
	if (!zx.global_checks || zx.rdonly)
		return;
	sync();
	if (zx.hold_map && !zx.hmap.f)
		zfsx_hmap_make();
	if (zx.hmap.f)
		zfsx_op_hmap_store();
}

/* ---- device events and remounts ---- */

/*
 * zonefs(5) I/O ERRORS: the model once the module has learned from the device's report,
 * after a failed I/O of @f, that the zone is in condition @ev (read-only,
 * offline, or good for the other events) and holds @dsize bytes of data.
 * The zone's own condition wins; then the mount's errors= mode: a write
 * pointer below the size always lowers the size, one above it is taken by
 * errors=repair only. errors=remount-ro makes the file system read-only.
 */
static void zfsx_model_error(struct zfsx_file *f, enum zfsx_event ev,
			     long long dsize)
{
	if (ev == ZFSX_EV_OFFLINE || !strcmp(zx.errors, "zone-offline")) {
		f->offline = 1;
		f->mode = 0;
		f->size = 0;
	} else if (ev == ZFSX_EV_READONLY || !strcmp(zx.errors, "zone-ro")) {
		f->zro = 1;
		f->mode &= ~0222;
		if (dsize < f->size)
			f->size = dsize;
	} else if (!strcmp(zx.errors, "repair") && dsize > f->size) {
		zfsx_set_tags(f, f->size, dsize - f->size, 0);
		f->size = dsize;
	} else if (dsize < f->size) {
		f->size = dsize;
	}
	f->rogue = f->offline || f->zro || dsize <= f->size ? 0 :
		   dsize - f->size;
	if (!dsize)
		f->zkeep = 0;
	zfsx_set_tags(f, f->size, f->cap - f->size, 0);
	if (!strcmp(zx.errors, "remount-ro") && !zx.rdonly) {
		zx.rdonly = 1;
		zfsx_went_rdonly();
		zfsx_hmap_release("after errors=remount-ro");
	}
}

/* Check the file's size and the mount's state after a device error. */
static void zfsx_check_error(struct zfsx_file *f, const char *what)
{
	struct statvfs sv;

	zfsx_check_stat(f, what);
	if (statvfs(zx.dir, &sv) || !!(sv.f_flag & ST_RDONLY) != zx.rdonly)
		zfsx_diverge("%s (errors=%s) the file system is %s", what,
			     zx.errors, (sv.f_flag & ST_RDONLY) ?
			     "read-only" : "read-write");
}

/*
 * Whether @f can be opened for write now without an EBUSY: its first
 * open for write must stay within the open zone limit with explicit-open.
 */
static int zfsx_write_openable(struct zfsx_file *f)
{
	return zfsx_may_open(f, O_WRONLY) &&
	       !(zx.explicit_open && zx.max_wro && !f->wrefs &&
		 zx.nwro >= (int)zx.max_wro);
}

/*
 * Open @f for a direct write of one block to be refused, with that block
 * of junk in *@bufp (the caller frees it). Returns the descriptor, or -1
 * if the file cannot be opened for write now (the open limit under
 * explicit-open, or the open's own refusal, which zfsx_open() judged).
 */
static int zfsx_open_block(struct zfsx_file *f, unsigned char **bufp)
{
	int fd;

	if (!zfsx_write_openable(f))
		return -1;
	fd = zfsx_open(f, O_WRONLY | O_DIRECT);
	if (fd < 0)
		return -1;
	if (posix_memalign((void **)bufp, ZFSX_PAGE, zx.bs))
		zfsx_die("out of memory");
	memset(*bufp, 0x5a, zx.bs);
	return fd;
}

/*
 * A write of one block at @f's size, which the device must refuse: its
 * zone changed behind the mount. Returns 1 if it was refused as a device
 * error (EIO, or EREMOTEIO for the SCSI unaligned write), with its
 * descriptor in @fdp for the caller to close once the model has the error
 * (a last close depends on it), 0 if it could not be made (the file's
 * first open for write would pass the open zone limit, or the device had
 * no open or active zone to spare: zonefs(5) I/O ERRORS, no policy then).
 */
static int zfsx_write_to_find(struct zfsx_file *f, int refusable, int *fdp)
{
	int flags = O_WRONLY | O_DIRECT, fd;
	struct zfsx_errs x = { 0 };
	unsigned char *buf;
	long long ret;

	fd = zfsx_open_block(f, &buf);
	if (fd < 0)
		return 0;
	zfsx_allow(&x, EIO);
	zfsx_allow(&x, EREMOTEIO);
	if (refusable)
		zfsx_allow_refusal(&x);
	ret = pwrite(fd, buf, zx.bs, f->size);
	ret = ret < 0 ? -errno : ret;
	zfsx_note_more(" write at %lld", f->size);
	zfsx_check("write to a changed zone", ret, &x, 0);
	free(buf);
	zx.cnt->writes++;
	if (ret != -EIO && ret != -EREMOTEIO) {
		zfsx_close(f, fd, flags);
		return 0;
	}
	*fdp = fd;
	return 1;
}

/* Run the --cond-cmd: "CMD ZONE cond COND", ZONE the zone's index. */
static void zfsx_set_cond(struct zfsx_file *f, const char *cond)
{
	struct blk_zone_range range = {
		.sector = f->zstart >> 9,
		.nr_sectors = zx.zone_sectors,
	};
	char cmd[2 * PATH_MAX];
	int status, fd;

	/*
	 * The target keeps the zone's state in the table this command
	 * changes: an open zone that it closes to open another would lose
	 * the condition set here. Close it first.
	 */
	fd = open(zx.dev, O_WRONLY);
	if (fd < 0 || ioctl(fd, BLKCLOSEZONE, &range))
		zfsx_die("close of the zone of %s on %s: %s", f->name, zx.dev,
			 strerror(errno));
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s %lld cond %s >/dev/null", zx.cond_cmd,
		 f->zstart / 512 / zx.zone_sectors, cond);
	fflush(stdout);
	status = system(cmd);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status))
		zfsx_die("'%s' failed", cmd);
}

/* What the device does for a rogue write or reset; 0 if it would not. */
static int zfsx_raw_change(struct zfsx_file *f, enum zfsx_event ev,
			   long long len)
{
	struct blk_zone_range range;
	unsigned char *buf;
	long long ret;
	int fd;

	fd = open(zx.dev, O_WRONLY | O_DIRECT);
	if (fd < 0)
		zfsx_die("open of %s: %s", zx.dev, strerror(errno));
	if (ev == ZFSX_EV_RESET) {
		range.sector = f->zstart >> 9;
		range.nr_sectors = zx.zone_sectors;
		if (ioctl(fd, BLKRESETZONE, &range))
			zfsx_die("reset of the zone of %s on %s: %s", f->name,
				 zx.dev, strerror(errno));
		close(fd);
		return 1;
	}
	if (posix_memalign((void **)&buf, ZFSX_PAGE, len))
		zfsx_die("out of memory");
	memset(buf, 0xa5, len);
	ret = pwrite(fd, buf, len, f->zstart + f->size);
	free(buf);
	close(fd);
	/*
	 * A device at its open or active zone limit refuses to open one
	 * more zone, for this writer too: nothing was written.
	 */
	if (ret < 0 && (errno == ETOOMANYREFS || errno == EOVERFLOW)) {
		zfsx_note_more(" -> %s:", zfsx_errname(errno));
		zfsx_noop("skipped");
		return 0;
	}
	if (ret != len)
		zfsx_die("rogue write to %s: %s", zx.dev,
			 ret < 0 ? strerror(errno) : "short write");
	return 1;
}

/*
 * Set the SCSI device's state (/sys/block/DEV/device/state), which takes
 * the name followed by a newline.
 */
static void zfsx_dev_state(const char *state)
{
	char path[PATH_MAX + 32];
	FILE *fp;

	zfsx_block_path(path, sizeof(path), "device/state");
	fp = fopen(path, "w");
	if (!fp || fputs(state, fp) < 0 || fclose(fp))
		zfsx_die("cannot set %s to %s", path, state);
}

/*
 * The device dies under a writer (the SCSI device set offline): the write
 * fails, and the zone report the recovery asks for fails too. The zone's
 * state is unknown, so the file system becomes read-only whatever errors=
 * says, and the file keeps its size (zonefs(5) I/O ERRORS). The device
 * then answers again; the file system stays read-only until a remount.
 */
static void zfsx_event_dead(struct zfsx_file *f)
{
	int flags = O_WRONLY | O_DIRECT, fd;
	struct zfsx_errs x = { 0 };
	unsigned char *buf;
	long long ret;

	if (!zfsx_write_openable(f)) {
		zfsx_noop("skipped");
		return;
	}
	fd = zfsx_open_block(f, &buf);
	if (fd < 0)
		return;
	zfsx_before_trigger();
	zfsx_dev_state("offline\n");
	ret = pwrite(fd, buf, zx.bs, f->size) < 0 ? -errno : 0;
	zfsx_dev_state("running\n");
	free(buf);
	zfsx_note_more(" write at %lld", f->size);
	zfsx_allow(&x, EIO);
	zfsx_check("write to a dead device", ret, &x, 0);
	zx.cnt->writes++;
	zx.cnt->events++;
	if (!zx.rdonly) {
		zx.rdonly = 1;
		zfsx_went_rdonly();
		zfsx_hmap_release("after the device died");
	}
	zfsx_check_error(f, "after the device died");
	zfsx_close(f, fd, flags);
	zfsx_check_stat(f, "after the last close");
	zfsx_check_device("after the device died");
}

/*
 * A device event on a sequential file's zone, behind the mount, found at
 * once by the file's next write (or, for a zone made read-only or
 * offline, by a truncation to 0, which reports the zone before it resets
 * it), after which zonefs(5) I/O ERRORS applies (zfsx_model_error()):
 *   write     a rogue writer writes 1 to 4 blocks at the write pointer:
 *             the device holds more than the size;
 *   reset     the zone is reset: the write pointer is behind the size;
 *   readonly  the target reports the zone read-only (--cond-cmd);
 *   offline   the target reports the zone offline (--cond-cmd);
 * the last two with a rogue write first when a write is to find them.
 */
static void zfsx_op_event(void)
{
	int i, n = 0, idx[ZFSX_MAX_FILES], by_trunc, nev = 0, fd = -1;
	int lost_open;
	enum zfsx_event evs[ZFSX_NR_EVENTS], ev;
	struct zfsx_errs x = { 0 };
	long long k, dsize, ret;
	struct zfsx_file *f;

	for (i = 0; i < ZFSX_NR_EVENTS; i++)
		if (zx.events & (1U << i))
			evs[nev++] = i;
	/* One kind: no draw, so that the sequences of --rogue stay. */
	ev = nev > 1 ? evs[zfsx_below(nev)] : evs[0];
	for (i = 0; i < zx.nfiles; i++) {
		f = &zx.files[i];
		if (f->seq && !f->shared && !f->zro && !f->offline &&
		    !f->rogue && f->size + 8LL * zx.bs <= f->cap &&
		    (ev != ZFSX_EV_RESET || f->size > 0))
			idx[n++] = i;
	}
	if (!n || zx.rdonly) {
		zfsx_note("device event %s:%s", zfsx_event_names[ev],
			  zx.rdonly ? " (read-only)" : "");
		zfsx_noop("no file for it");
		return;
	}
	f = &zx.files[idx[zfsx_below(n)]];
	if (ev == ZFSX_EV_DEAD) {
		zfsx_note("device event dead, found by a write to %s (size %lld)",
			  f->name, f->size);
		zfsx_event_dead(f);
		return;
	}
	k = 1 + zfsx_below(4);
	/*
	 * A truncation to 0 of an empty file asks the device nothing. The
	 * target takes an OPEN ZONE whatever the zone's condition, which
	 * then is lost: with explicit-open, a first open for write would
	 * send one, so only a truncation finds the condition then.
	 */
	by_trunc = ev >= ZFSX_EV_READONLY && f->size &&
		   (zfsx_pct(30) || (zx.explicit_open && !f->wrefs));
	zfsx_note("device event %s on %s (size %lld%s), found by a %s",
		  zfsx_event_names[ev], f->name, f->size,
		  ev == ZFSX_EV_WRITE ? ", 1-4 blocks" : "",
		  by_trunc ? "truncation" : "write");
	/*
	 * Only when what finds it can be made: an emptied zone needs an
	 * active one again, which a device at its limit may refuse.
	 */
	if ((ev >= ZFSX_EV_READONLY && !by_trunc && zx.explicit_open &&
	     !f->wrefs) ||
	    (ev == ZFSX_EV_RESET && zfsx_may_be_refused()) ||
	    (!by_trunc && !zfsx_write_openable(f))) {
		zfsx_noop("skipped");
		return;
	}
	zfsx_before_trigger();
	/* A reset behind the mount ends an explicit open the file held. */
	lost_open = ev == ZFSX_EV_RESET && f->zopen;
	switch (ev) {
	case ZFSX_EV_WRITE:
	case ZFSX_EV_RESET:
		if (!zfsx_raw_change(f, ev, k * zx.bs))
			return;
		dsize = ev == ZFSX_EV_WRITE ? f->size + k * zx.bs : 0;
		break;
	default:
		/*
		 * The target takes writes in a zone whatever its condition:
		 * as on a drive whose zone goes bad under a writer, a rogue
		 * write moves the write pointer first, so that the next
		 * write fails, and the report then shows the condition.
		 */
		if (!by_trunc && !zfsx_raw_change(f, ZFSX_EV_WRITE, k * zx.bs))
			return;
		zfsx_set_cond(f, zfsx_event_names[ev]);
		f->dcond = ev == ZFSX_EV_READONLY ? BLK_ZONE_COND_READONLY :
						    BLK_ZONE_COND_OFFLINE;
		dsize = ev == ZFSX_EV_READONLY ? f->size : 0;
		break;
	}

	if (by_trunc) {
		/* errors/003: EROFS for read-only, EIO once offline. */
		if (ev == ZFSX_EV_READONLY &&
		    strcmp(zx.errors, "zone-offline"))
			zfsx_allow(&x, EROFS);
		else
			zfsx_allow(&x, EIO);
		ret = truncate(f->path, 0) ? -errno : 0;
		zfsx_note_more(" truncate to 0");
		zfsx_check("truncation of a changed zone", ret, &x, 0);
		zx.cnt->truncs++;
	} else if (!zfsx_write_to_find(f, 0, &fd)) {
		zfsx_diverge("the write to find the %s event on %s could not be made",
			     zfsx_event_names[ev], f->name);
	}
	zfsx_model_error(f, ev, dsize);
	/*
	 * zonefs(5) I/O ERRORS: the recovery opens such a zone again for
	 * the file's writers if the file system and the zone can still be
	 * written and explicit-open is on; errors=remount-ro made the file
	 * system read-only first. (No reset is made where the device could
	 * refuse that open.)
	 */
	if (lost_open)
		f->zopen = f->wrefs && zx.explicit_open && !zx.rdonly &&
			   !f->zro && !f->offline && f->size < f->cap;
	zx.cnt->events++;
	zfsx_check_error(f, "after the device event");
	if (fd >= 0) {
		zfsx_close(f, fd, O_WRONLY | O_DIRECT);
		zfsx_check_stat(f, "after the last close");
	}
	zfsx_check_device("after the device event");
}

/*
 * A write at the size of @f, whose zone holds data past it (errors= kept
 * the size): the module knows, so the write fails with EIO before anything
 * is sent, and the file system stays read-write (zonefs(5) I/O ERRORS).
 * The device's count of written sectors must not move.
 */
static void zfsx_write_foreign(struct zfsx_file *f)
{
	int flags = O_WRONLY | O_DIRECT, fd;
	struct zfsx_errs x = { 0 };
	unsigned char *buf;
	long long ret, w0;

	fd = zfsx_open_block(f, &buf);
	if (fd < 0)
		return;
	zfsx_allow(&x, EIO);
	w0 = zfsx_dev_wsectors();
	ret = pwrite(fd, buf, zx.bs, f->size);
	ret = ret < 0 ? -errno : ret;
	zfsx_note_more(" write at %lld", f->size);
	zfsx_check("write to a file whose zone holds data past its size",
		   ret, &x, 0);
	if (zfsx_dev_wsectors() != w0)
		zfsx_diverge("a write to %s, whose zone holds data past its size, reached the device",
			     f->name);
	free(buf);
	zx.cnt->writes++;
	zfsx_close(f, fd, flags);
	zfsx_check_stat(f, "after a write refused for data past the size");
}

/*
 * After a remount read-write, each file whose zone holds data past its
 * size (errors=remount-ro kept the size) sends no write (half of them
 * try one) until a truncation to 0 resets its zone, which the device
 * takes.
 */
static void zfsx_find_rogues(void)
{
	struct zfsx_errs x = { 0 };
	long long ret;
	int i;

	for (i = 0; i < zx.nfiles && !zx.rdonly; i++) {
		struct zfsx_file *f = &zx.files[i];

		if (!f->rogue)
			continue;
		if (zfsx_pct(50))
			zfsx_write_foreign(f);
		x.n = 0;
		zfsx_note_more(" truncate %s to 0", f->name);
		ret = truncate(f->path, 0) ? -errno : 0;
		zfsx_check("truncation of a zone holding data past the size",
			   ret, &x, 1);
		zx.cnt->truncs++;
		f->rogue = 0;
		f->zkeep = 0;
		f->size = 0;
		memset(f->tag, 0, f->nblocks * sizeof(*f->tag));
		zfsx_model_reopen(f);
		zfsx_check_stat(f, "after truncation to 0");
	}
}

/*
 * Before a remount read-write: open up to two zones of files not open for
 * write behind the mount (BLKOPENZONE on the device), as another user of
 * the disk may while the file system is read-only. A device at its open
 * limit may refuse: then that zone is left. Returns how many were opened,
 * their files in @opened.
 */
static int zfsx_open_behind(struct zfsx_file **opened)
{
	int i, n = 0, fd;

	fd = open(zx.dev, O_RDWR);
	if (fd < 0)
		zfsx_die("open of %s: %s", zx.dev, strerror(errno));
	for (i = 0; i < zx.nfiles && n < 2; i++) {
		struct zfsx_file *f = &zx.files[i];
		struct blk_zone_range range = {
			.sector = f->zstart >> 9,
			.nr_sectors = zx.zone_sectors,
		};

		if (!f->seq || f->shared || f->wrefs || f->zro || f->offline ||
		    f->dcond || f->size + f->rogue >= f->cap || zfsx_pct(50))
			continue;
		if (ioctl(fd, BLKOPENZONE, &range)) {
			zfsx_note_more(" (open of %s behind: %s)", f->name,
				       zfsx_errname(errno));
			continue;
		}
		zfsx_note_more(" (%s opened behind)", f->name);
		opened[n++] = f;
	}
	close(fd);
	return n;
}

/*
 * A remount read-write does the zone work of a read-write mount (zonefs(5)
 * MOUNT OPTIONS): a zone opened behind a read-only mount is closed, or
 * reset when it holds no data. Judged by the device's report.
 */
static void zfsx_check_closed_behind(struct zfsx_file **opened, int n)
{
	int i, cond;

	for (i = 0; i < n; i++) {
		struct zfsx_file *f = opened[i];
		long long data = zfsx_zone_data(f, &cond);
		int want = data ? BLK_ZONE_COND_CLOSED : BLK_ZONE_COND_EMPTY;

		if (cond != want)
			zfsx_diverge("after a remount read-write the zone of %s, opened behind the read-only mount, is in condition 0x%x, not 0x%x",
				     f->name, cond, want);
		zx.cnt->dev_checks++;
	}
}

/*
 * mount -o remount (zonefs(5) I/O ERRORS: a remount re-reads the options): read-only or
 * read-write, the errors= mode kept, explicit-open sometimes turned on or
 * off. A remount read-only fails with EBUSY while a file is open for
 * write (the VFS's rule); one read-write after errors=remount-ro is taken.
 */
static void zfsx_op_remount(void)
{
	int ro = zfsx_pct(50), eo = zx.explicit_open, busy = 0, i, j, was;
	struct zfsx_file *opened[2];
	struct zfsx_errs x = { 0 };
	int nopened = 0;
	struct statvfs sv;
	char data[64];
	long long ret;

	if (zfsx_pct(25))
		eo = !eo;
	for (i = 0; i < zx.nfiles; i++)
		for (j = 0; j < zx.files[i].nfds; j++)
			busy |= zfsx_writable(zx.files[i].fds[j].flags);
	/* A shared writable mapping holds its file open for write. */
	busy |= zx.hmap.f != NULL;
	snprintf(data, sizeof(data), "errors=%s%s", zx.errors,
		 eo ? ",explicit-open" : "");
	zfsx_note("remount %s,%s%s", ro ? "ro" : "rw", data,
		  busy ? " (a file open for write)" : "");
	if (ro && !zx.rdonly && busy)
		zfsx_allow(&x, EBUSY);
	if (zx.behind && zx.rdonly && !ro)
		nopened = zfsx_open_behind(opened);
	ret = mount(zx.dev, zx.dir, NULL,
		    MS_REMOUNT | (ro ? MS_RDONLY : 0), data) ? -errno : 0;
	zfsx_check("remount", ret, &x, !x.n);
	if (ret)
		return;
	was = zx.rdonly;
	zx.rdonly = ro;
	zx.explicit_open = eo;
	if (ro && !was)
		zfsx_went_rdonly();
	if (statvfs(zx.dir, &sv) || !!(sv.f_flag & ST_RDONLY) != ro)
		zfsx_diverge("after remount %s the file system is %s",
			     ro ? "ro" : "rw", (sv.f_flag & ST_RDONLY) ?
			     "read-only" : "read-write");
	if (was && !ro) {
		zfsx_check_closed_behind(opened, nopened);
		/*
		 * The zone work of a read-write mount resets a zone left
		 * closed with no data (zonefs(5) MOUNT OPTIONS).
		 */
		for (i = 0; i < zx.nfiles; i++)
			zx.files[i].zkeep = 0;
		zfsx_find_rogues();
	}
	for (i = 0; i < zx.nfiles; i++)
		zfsx_check_stat(&zx.files[i], "after the remount");
	zfsx_check_device("after the remount");
}

static void zfsx_op_chattr(struct zfsx_file *f)
{
	static const unsigned int ids[] = { 0, 1000, ZFSX_NOBODY };
	struct zfsx_errs x = { 0 };
	long long ret;

	/*
	 * zonefs(5) DIRECTORY TREE: chmod and chown are allowed and last until unmount. zonefs(5) I/O ERRORS:
	 * chmod cannot give back the bits a zone's take-away cleared (the
	 * write bits of a read-only zone, all of an offline one): EPERM.
	 */
	if (zfsx_pct(60)) {
		unsigned int mode = zfsx_below(01000);
		unsigned int taken = f->offline || f->romount ? 0777 :
				     f->zro ? 0222 : 0;
		int refused = !zx.rdonly && (mode & taken);

		zfsx_note("chmod %s %o", f->name, mode);
		ret = chmod(f->path, mode) ? -errno : 0;
		if (zx.rdonly)
			zfsx_allow(&x, EROFS);
		else if (refused)
			zfsx_allow(&x, EPERM);
		zfsx_check("chmod", ret, &x, !zx.rdonly && !refused);
		if (!ret)
			f->mode = mode;
	} else {
		unsigned int uid = ids[zfsx_below(3)], gid = ids[zfsx_below(3)];

		zfsx_note("chown %s %u:%u", f->name, uid, gid);
		ret = chown(f->path, uid, gid) ? -errno : 0;
		if (zx.rdonly)
			zfsx_allow(&x, EROFS);
		zfsx_check("chown", ret, &x, !zx.rdonly);
		/* chown by root keeps the permission bits but set-id ones. */
		if (!ret) {
			f->uid = uid;
			f->gid = gid;
			f->mode &= 0777;
		}
	}
	zfsx_check_stat(f, "after chmod/chown");
}

/* Open for reading as nobody: the mode and owner decide (EACCES). */
static void zfsx_op_probe(struct zfsx_file *f)
{
	unsigned int bits = f->uid == ZFSX_NOBODY ? (f->mode >> 6) :
			    f->gid == ZFSX_NOBODY ? (f->mode >> 3) : f->mode;
	int ok = !!(bits & 4), status;
	struct zfsx_errs x = { 0 };
	long long ret;
	pid_t pid;

	zfsx_note("open %s as %u:%u (mode %o owner %u:%u)", f->name,
		  ZFSX_NOBODY, ZFSX_NOBODY, f->mode, f->uid, f->gid);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		zfsx_die("fork: %s", strerror(errno));
	if (!pid) {
		int fd;

		if (setgroups(0, NULL) || setgid(ZFSX_NOBODY) ||
		    setuid(ZFSX_NOBODY))
			_exit(200);
		fd = open(f->path, O_RDONLY);
		_exit(fd < 0 ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 200)
		zfsx_die("the probe as nobody did not run");
	ret = -WEXITSTATUS(status);
	if (!ok || f->offline)
		zfsx_allow(&x, EACCES);
	zfsx_check("open as nobody", ret, &x, ok || f->offline);
}

/* zonefs(5) DIRECTORY TREE and 7: what a file holds outlives its inode. */
static void zfsx_op_drop_caches(void)
{
	int fd, i;

	zfsx_note("drop_caches");
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3", 1) != 1)
		zfsx_note_more(" (not allowed)");
	if (fd >= 0)
		close(fd);
	for (i = 0; i < zx.nfiles; i++)
		if (!zx.files[i].shared)
			zfsx_check_stat(&zx.files[i], "after drop_caches");
}

/* ---- the run ---- */

static struct zfsx_file *zfsx_pick_file(void)
{
	int i, n = 0, idx[ZFSX_MAX_FILES];

	for (i = 0; i < zx.nfiles; i++)
		if (!zx.files[i].shared)
			idx[n++] = i;
	return n ? &zx.files[idx[zfsx_below(n)]] : NULL;
}

static void zfsx_one_op(void)
{
	struct zfsx_file *f = zfsx_pick_file();
	int r = zfsx_below(1000);

	if (!f)
		zfsx_die("no file to work on");
	if (zx.rogue && zx.global_checks && zfsx_below(1000) < zx.rogue) {
		zfsx_op_event();
		return;
	}
	if (zx.remount && zx.global_checks && zfsx_below(1000) < zx.remount) {
		zfsx_op_remount();
		return;
	}
	/* Its own draw, so that the sequences of the other options stay. */
	if (zx.cycle && zx.global_checks && zfsx_below(1000) < zx.cycle) {
		zfsx_op_cycle();
		return;
	}
	if (zx.hmap.f && zfsx_below(1000) < 50) {
		zfsx_op_hmap_store();
		return;
	}
	/* A full sequential file takes no more writes: often reset it. */
	if (f->seq && f->size >= f->cap && r < 500 && zfsx_pct(50))
		r = 650;
	if (r < 330)
		zfsx_op_write(f, 0);
	else if (r < 370)
		zfsx_op_write(f, 1);
	else if (r < 600)
		zfsx_op_read(f);
	else if (r < 670)
		zfsx_op_truncate(f);
	else if (r < 700)
		zfsx_op_fsync(f);
	else if (r < 780)
		zfsx_op_open(f);
	else if (r < 860)
		zfsx_op_close(f);
	else if (r < 900)
		zfsx_op_mmap(f);
	else if (r < 930)
		zfsx_op_chattr(f);
	else if (r < 955)
		zfsx_op_stat(f);
	else if (r < 975)
		zfsx_op_probe(f);
	else if (r < 995)
		zfsx_op_sysfs();
	else
		zfsx_op_drop_caches();
}

/*
 * Judge by the device: the zone report of each sequential file must show
 * what the model says the zone holds, its size plus what a rogue writer
 * put past it (zonefs(5) I/O ERRORS), in the condition the model allows
 * (zfsx_model_conds()). Zones that errors= took away, or that
 * the target reports read-only or offline, are left out: their write
 * pointer is the device's business once the file is no longer written.
 * Run after each device event and remount, every 100 operations and at
 * the end (global_checks: the files are this process').
 */
/*
 * The condition of @f's zone and the bytes of data it holds, from the
 * device's zone report (the capacity when full).
 */
static long long zfsx_zone_data(struct zfsx_file *f, int *cond)
{
	struct blk_zone z;
	long long data;

	zfsx_report_zone(f->zstart >> 9, &z);
	*cond = z.cond;
	switch (z.cond) {
	case BLK_ZONE_COND_FULL:
		data = f->cap;
		break;
	case BLK_ZONE_COND_IMP_OPEN:
	case BLK_ZONE_COND_EXP_OPEN:
	case BLK_ZONE_COND_CLOSED:
		data = (long long)(z.wp - z.start) << 9;
		break;
	default:
		data = 0;
		break;
	}
	return data;
}

/*
 * The one or two conditions the model allows @f's zone holding @data
 * bytes: full at the capacity; open explicitly while the file holds it
 * open (explicit-open); empty with no data, or closed where the device
 * keeps an empty zone closed (zkeep); with data and no explicit open,
 * open implicitly by the writes or closed (by the module's last close, a
 * mount, or the device making room). Returns how many, in @c.
 */
static int zfsx_model_conds(const struct zfsx_file *f, long long data, int c[2])
{
	if (data >= f->cap) {
		c[0] = BLK_ZONE_COND_FULL;
		return 1;
	}
	if (f->zopen) {
		c[0] = BLK_ZONE_COND_EXP_OPEN;
		return 1;
	}
	if (!data) {
		c[0] = f->zkeep && zx.close_keeps_empty ? BLK_ZONE_COND_CLOSED :
							  BLK_ZONE_COND_EMPTY;
		return 1;
	}
	c[0] = BLK_ZONE_COND_IMP_OPEN;
	c[1] = BLK_ZONE_COND_CLOSED;
	return 2;
}

/*
 * After a reset of @f's zone (now empty), with explicit-open the module
 * opens it again for the file's writers (zonefs(5) I/O ERRORS). A device
 * with open and active limits may refuse that open for want of
 * resources, and the zone then stays empty: both are right, and the
 * device's report says which one happened, which must be one of them.
 */
static void zfsx_model_reopen(struct zfsx_file *f)
{
	int cond;

	f->zopen = f->wrefs && zx.explicit_open;
	if (!f->zopen || !zx.global_checks || !zx.max_wro || !zx.max_active)
		return;
	zfsx_zone_data(f, &cond);
	if (cond != BLK_ZONE_COND_EXP_OPEN && cond != BLK_ZONE_COND_EMPTY)
		zfsx_diverge("after the reset of %s for its writers, its zone is in condition 0x%x, not open or empty",
			     f->name, cond);
	f->zopen = cond == BLK_ZONE_COND_EXP_OPEN;
	zx.cnt->dev_checks++;
}

static void zfsx_check_device(const char *when)
{
	int i, cond, c[2], nc;

	if (!zx.global_checks)
		return;
	zfsx_check_no_write(when);
	for (i = 0; i < zx.nfiles; i++) {
		struct zfsx_file *f = &zx.files[i];
		long long want, wp;

		if (!f->seq || f->shared || f->zro || f->offline)
			continue;
		wp = zfsx_zone_data(f, &cond);
		want = f->size + f->rogue;
		if (wp != want)
			zfsx_diverge("%s: the device's write pointer of %s is %lld, the model has %lld (size %lld, rogue %lld)",
				     when, f->name, wp, want, f->size, f->rogue);
		nc = zfsx_model_conds(f, want, c);
		if (cond != c[0] && (nc < 2 || cond != c[1]))
			zfsx_diverge("%s: the zone of %s is in condition 0x%x with %lld of %lld bytes, the model has 0x%x or 0x%x (writers %d, explicitly open %d, closed empty %d)",
				     when, f->name, cond, want, f->cap, c[0],
				     c[nc - 1], f->wrefs, f->zopen, f->zkeep);
		zx.cnt->dev_checks++;
	}
}

/*
 * Read every file back, whole, with buffered reads after the page cache
 * was dropped (so that the device answers), against the model: every
 * block whose data the model knows.
 */
static void zfsx_read_back(const char *when)
{
	unsigned char *buf;
	int i, fd;

	if (!zx.global_checks)
		return;
	sync();
	zfsx_op_drop_caches();
	if (posix_memalign((void **)&buf, ZFSX_PAGE, 1 << 20))
		zfsx_die("out of memory");
	for (i = 0; i < zx.nfiles; i++) {
		struct zfsx_file *f = &zx.files[i];
		long long pos = 0, n;

		if (f->offline || f->shared)
			continue;
		fd = open(f->path, O_RDONLY);
		if (fd < 0)
			zfsx_diverge("%s: open of %s for the read-back: %s", when,
				     f->name, zfsx_errname(errno));
		while (pos < f->size) {
			n = f->size - pos < (1 << 20) ? f->size - pos : 1 << 20;
			if (pread(fd, buf, n, pos) != n)
				zfsx_diverge("%s: read-back of %s at %lld: %s", when,
					     f->name, pos, zfsx_errname(errno));
			zfsx_verify(f, buf, pos, n, "read-back");
			zx.cnt->bytes_read_back += n;
			pos += n;
		}
		close(fd);
	}
	free(buf);
}

/*
 * The model as a new mount builds it from the device (zonefs(5) ZONE
 * FILES, I/O ERRORS): chmod and chown are gone, no descriptor is open, a
 * sequential file's size is its zone's write pointer, so what a rogue
 * writer put past the size is the file's now (its data unknown). A zone
 * that the target reports read-only or offline gives a file of size 0
 * with no permission bits; a file that errors= alone took away has a good
 * zone again, and the mount takes what the zone holds. A read-write mount
 * resets the zones closed with no data; a read-only one leaves them.
 */
static void zfsx_model_mount(int ro)
{
	int i, cond;
	long long data;

	zx.rdonly = ro;
	zx.nwro = 0;
	for (i = 0; i < zx.nfiles; i++) {
		struct zfsx_file *f = &zx.files[i];

		f->mode = f->mode0;
		f->uid = f->uid0;
		f->gid = f->gid0;
		f->nfds = 0;
		f->wrefs = 0;
		f->zopen = 0;
		f->romount = f->dcond == BLK_ZONE_COND_READONLY;
		if (!f->seq) {
			if (f->offline)
				f->size = f->cap;
			f->offline = 0;
			f->zro = 0;
			continue;
		}
		if (f->dcond) {
			f->offline = f->dcond == BLK_ZONE_COND_OFFLINE;
			f->zro = !f->offline;
			f->mode = 0;
			f->size = 0;
			f->rogue = 0;
			f->zkeep = 0;
			zfsx_set_tags(f, 0, f->cap, 0);
			continue;
		}
		if (f->zro || f->offline) {
			data = zfsx_zone_data(f, &cond);
			if (data < f->size)
				zfsx_set_tags(f, data, f->size - data, 0);
			f->size = data;
			f->zro = 0;
			f->offline = 0;
		} else {
			f->size += f->rogue;
		}
		f->rogue = 0;
		if (!ro || f->size)
			f->zkeep = 0;
	}
}

/*
 * umount and mount again, read-only or read-write, with the same errors=
 * mode and explicit-open sometimes turned on or off: the sizes are built
 * again from the device. Every descriptor is closed first (the VFS
 * refuses to unmount a busy file system). The files are then checked
 * whole: stat, the sysfs counters, the zone report and a full read-back.
 */
static void zfsx_op_cycle(void)
{
	int ro = zfsx_pct(25), eo = zx.explicit_open, i, j;
	struct zfsx_errs x = { 0 };
	struct statvfs sv;
	char data[64];
	long long ret;

	if (zfsx_pct(25))
		eo = !eo;
	snprintf(data, sizeof(data), "errors=%s%s", zx.errors,
		 eo ? ",explicit-open" : "");
	zfsx_note("umount and mount %s,%s", ro ? "ro" : "rw", data);
	zfsx_hmap_release("before umount");
	for (i = 0; i < zx.nfiles; i++) {
		struct zfsx_file *f = &zx.files[i];

		for (j = 0; j < f->nfds; j++)
			zfsx_close(f, f->fds[j].fd, f->fds[j].flags);
		f->nfds = 0;
	}
	ret = umount(zx.dir) ? -errno : 0;
	zfsx_check("umount", ret, &x, 1);
	ret = mount(zx.dev, zx.dir, "zonefs", ro ? MS_RDONLY : 0, data) ?
	      -errno : 0;
	if (ret)
		zfsx_die("mount %s on %s: %s", zx.dev, zx.dir, strerror(-ret));
	zx.cnt->cycles++;
	zx.explicit_open = eo;
	zfsx_model_mount(ro);
	if (ro)
		zfsx_went_rdonly();
	if (statvfs(zx.dir, &sv) || !!(sv.f_flag & ST_RDONLY) != ro)
		zfsx_diverge("after a mount %s the file system is %s",
			     ro ? "ro" : "rw", (sv.f_flag & ST_RDONLY) ?
			     "read-only" : "read-write");
	for (i = 0; i < zx.nfiles; i++)
		zfsx_check_stat(&zx.files[i], "after umount and mount");
	zfsx_op_sysfs();
	zfsx_check_device("after umount and mount");
	zfsx_read_back("after umount and mount");
}

/* Run the ops; returns the number run. */
static long long zfsx_run(void)
{
	int i, j;

	for (zx.opno = 0; zx.opno < zx.ops; zx.opno++) {
		if (zx.deadline && time(NULL) >= zx.deadline)
			break;
		zfsx_one_op();
		if (zx.opno % 100 == 99)
			zfsx_check_device("every 100 operations");
	}
	zfsx_hmap_release("at the end");
	if (zx.verbose && zx.lastlog >= 0)
		fprintf(stderr, "%s\n", zx.log[zx.lastlog % ZFSX_LOG_MAX]);
	zx.lastlog = -1;
	zx.cnt->ops = zx.opno;
	/* Close what is held: every slot comes back. */
	for (i = 0; i < zx.nfiles; i++) {
		struct zfsx_file *f = &zx.files[i];

		for (j = 0; j < f->nfds; j++)
			zfsx_close(f, f->fds[j].fd, f->fds[j].flags);
		f->nfds = 0;
	}
	if (zx.global_checks) {
		zfsx_op_sysfs();
		for (i = 0; i < zx.nfiles; i++)
			zfsx_check_stat(&zx.files[i], "at the end");
		zfsx_check_device("at the end");
		zfsx_read_back("at the end");
	}
	return zx.opno;
}

static void zfsx_summary(const struct zfsx_counts *c, const char *extra)
{
	int e;

	printf("zfsx: seed %llu ops %lld ok (writes %lld, reads %lld, truncates %lld, errors %lld by errno",
	       (unsigned long long)zx.seed, c->ops, c->writes, c->reads,
	       c->truncs, c->errs);
	for (e = 1; e < ZFSX_NERRNO; e++)
		if (c->errno_count[e])
			printf(" %s:%lld", zfsx_errname(e), c->errno_count[e]);
	printf("; %lld MiB written, %lld MiB checked, %lld zone reports compared, %lld MiB read back, %lld umount and mount, %lld calls, %lld no-ops, %lld events%s)\n",
	       c->bytes_written >> 20, c->bytes_checked >> 20, c->dev_checks,
	       c->bytes_read_back >> 20, c->cycles, c->calls, c->noops, c->events, extra);
}

/* ---- the shared appenders ---- */

struct zfsx_apphdr {
	uint64_t magic;
	uint32_t writer;
	uint32_t idx;		/* the writer's append number */
	uint32_t blk;		/* block in the append */
	uint32_t nblk;		/* blocks in the append */
};

static uint64_t zfsx_app_word(const struct zfsx_apphdr *h, size_t i)
{
	return ((uint64_t)h->writer << 48 ^ (uint64_t)h->idx << 20 ^ h->blk) *
	       ZFSX_GOLDEN + i;
}

static void zfsx_app_fill(unsigned char *blk, const struct zfsx_apphdr *h)
{
	size_t i;

	memcpy(blk, h, sizeof(*h));
	for (i = sizeof(*h); i + 8 <= zx.bs; i += 8) {
		uint64_t w = zfsx_app_word(h, i);

		memcpy(blk + i, &w, 8);
	}
}

/*
 * One appender: appends of 1 to 16 blocks with write(O_APPEND) or
 * pwritev2(RWF_APPEND) until its half of the capacity is used; each must
 * be written whole (zonefs(5) ZONE FILES: writers to one sequential file are
 * serialized). Reports its appends and bytes on @out.
 */
static int zfsx_appender(struct zfsx_file *f, int writer, long long nops,
			 int out)
{
	long long budget = f->cap / 2 - 16LL * zx.bs, used = 0;
	int fd, flags = O_WRONLY | O_DIRECT | O_APPEND;
	uint32_t idx = 0;
	unsigned char *buf;
	char msg[64];
	long long i;

	if (posix_memalign((void **)&buf, ZFSX_PAGE, 16 * zx.bs))
		zfsx_die("out of memory");
	fd = open(f->path, flags);
	if (fd < 0) {
		printf("zfsx: appender %d: open %s: %s\n", writer, f->name,
		       zfsx_errname(errno));
		return 1;
	}
	for (i = 0; i < nops && !(zx.deadline && time(NULL) >= zx.deadline);
	     i++) {
		struct zfsx_apphdr h = { ZFSX_APPEND_MAGIC, writer, idx, 0, 0 };
		struct iovec iov;
		ssize_t r;
		uint32_t b;

		h.nblk = 1 + zfsx_below(16);
		if (used + h.nblk * zx.bs > budget)
			break;
		for (b = 0; b < h.nblk; b++) {
			h.blk = b;
			zfsx_app_fill(buf + b * zx.bs, &h);
		}
		iov.iov_base = buf;
		iov.iov_len = h.nblk * zx.bs;
		if (zfsx_pct(50))
			r = write(fd, buf, iov.iov_len);
		else
			r = pwritev2(fd, &iov, 1, -1, RWF_APPEND);
		if (r != (ssize_t)iov.iov_len) {
			printf("zfsx: appender %d: append %u of %zu bytes to %s: %s\n",
			       writer, idx, iov.iov_len, f->name,
			       r < 0 ? zfsx_errname(errno) : "short");
			return 1;
		}
		used += r;
		idx++;
	}
	close(fd);
	snprintf(msg, sizeof(msg), "%u %lld\n", idx, used);
	if (write(out, msg, strlen(msg)) < 0)
		return 1;
	return 0;
}

/* Check the shared file: whole appends, each writer's in order. */
static int zfsx_check_shared(struct zfsx_file *f, const uint32_t *nidx,
			     long long total)
{
	uint32_t next[2] = { 0, 0 };
	unsigned char *buf;
	struct stat st;
	long long pos = 0;
	int fd;

	if (stat(f->path, &st) || st.st_size != f->size + total) {
		printf("zfsx: shared %s: size %lld, the appenders wrote %lld to %lld\n",
		       f->name, (long long)st.st_size, total, f->size);
		return 1;
	}
	/* Buffered reads: the device is read ahead, not block by block. */
	if (posix_memalign((void **)&buf, ZFSX_PAGE, zx.bs))
		zfsx_die("out of memory");
	fd = open(f->path, O_RDONLY);
	if (fd < 0)
		zfsx_die("open %s: %s", f->name, strerror(errno));
	for (pos = f->size; pos < st.st_size;) {
		struct zfsx_apphdr h0, h;
		uint32_t b;

		for (b = 0;; b++) {
			unsigned char *exp;

			if (pread(fd, buf, zx.bs, pos) != zx.bs) {
				printf("zfsx: shared %s: read at %lld failed\n",
				       f->name, pos);
				return 1;
			}
			memcpy(&h, buf, sizeof(h));
			if (!b)
				h0 = h;
			if (h.magic != ZFSX_APPEND_MAGIC || h.writer > 1 ||
			    h.idx != h0.idx || h.writer != h0.writer ||
			    h.blk != b || h.nblk != h0.nblk ||
			    (!b && h.idx != next[h.writer])) {
				printf("zfsx: shared %s: block at %lld is not block %u of append %u of writer %u (found writer %u append %u block %u/%u)\n",
				       f->name, pos, b, b ? h0.idx :
				       next[h.writer & 1], h0.writer & 1,
				       h.writer, h.idx, h.blk, h.nblk);
				return 1;
			}
			exp = malloc(zx.bs);
			zfsx_app_fill(exp, &h);
			if (memcmp(exp, buf, zx.bs)) {
				printf("zfsx: shared %s: data of block at %lld differs\n",
				       f->name, pos);
				return 1;
			}
			free(exp);
			pos += zx.bs;
			zx.cnt->bytes_checked += zx.bs;
			if (b + 1 == h.nblk)
				break;
		}
		next[h.writer]++;
	}
	close(fd);
	free(buf);
	if (next[0] != nidx[0] || next[1] != nidx[1]) {
		printf("zfsx: shared %s: %u and %u appends found, %u and %u made\n",
		       f->name, next[0], next[1], nidx[0], nidx[1]);
		return 1;
	}
	return 0;
}

/*
 * --procs N: the first sequential file goes to the two appenders, the
 * others are dealt to the N workers in turn; each worker runs its own
 * model on its own files with a seed of its own, keeping to its share of
 * the open slots.
 */
static int zfsx_run_procs(void)
{
	pid_t pids[ZFSX_MAX_FILES + 2];
	int npids = 0, i, rc = 0, shared = -1, status, pipes[2][2];
	uint32_t nidx[2] = { 0, 0 };
	long long total = 0;
	char extra[128];
	struct zfsx_counts *counts, sum = { 0 };
	int nall = zx.nfiles, owners = 0, e;

	for (i = 0; i < zx.nfiles; i++)
		if (zx.files[i].seq) {
			shared = i;
			break;
		}
	if (shared >= 0 && zx.nfiles < 2)
		shared = -1;
	if (shared >= 0)
		zx.files[shared].shared = 1;
	for (i = 0; i < nall; i++)
		owners += i != shared;
	if (owners < zx.procs)
		zfsx_die("%d workers need %d files besides the shared one",
			 zx.procs, zx.procs);
	counts = mmap(NULL, zx.procs * sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		zfsx_die("mmap: %s", strerror(errno));
	if (zx.explicit_open && zx.max_wro) {
		zx.wro_quota = (zx.max_wro - (shared >= 0)) / zx.procs;
		if (!zx.wro_quota)
			zfsx_die("%d workers cannot share %u open slots",
				 zx.procs, zx.max_wro);
	}
	fflush(stdout);
	for (i = 0; i < zx.procs; i++) {
		pid_t pid = fork();
		int j, n = 0;

		if (pid < 0)
			zfsx_die("fork: %s", strerror(errno));
		if (pid) {
			pids[npids++] = pid;
			continue;
		}
		zx.worker = i;
		zx.cnt = &counts[i];
		zx.rng = zx.seed * 0x100000001b3ULL + i + 1;
		/* This worker's files: every procs-th of the others. */
		for (j = 0; j < nall; j++) {
			if (j == shared)
				continue;
			if (n++ % zx.procs == i)
				continue;
			zx.files[j].shared = 1;	/* not this worker's */
		}
		zfsx_run();
		exit(0);
	}
	for (i = 0; shared >= 0 && i < 2; i++) {
		pid_t pid;

		if (pipe(pipes[i]))
			zfsx_die("pipe: %s", strerror(errno));
		pid = fork();
		if (pid < 0)
			zfsx_die("fork: %s", strerror(errno));
		if (pid) {
			close(pipes[i][1]);
			pids[npids++] = pid;
			continue;
		}
		zx.worker = zx.procs + i;
		zx.rng = zx.seed * 0x100000001b3ULL + zx.procs + i + 1;
		exit(zfsx_appender(&zx.files[shared], i, zx.ops / 2,
				   pipes[i][1]));
	}
	for (i = 0; i < npids; i++) {
		pid_t pid = wait(&status);
		int j;

		if (pid < 0)
			break;
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			continue;
		rc = 1;
		/* The first failure stops the others. */
		for (j = 0; j < npids; j++)
			if (pids[j] != pid)
				kill(pids[j], SIGTERM);
	}
	if (rc)
		return 1;
	for (i = 0; shared >= 0 && i < 2; i++) {
		char msg[64] = { 0 };
		long long used = 0;

		if (read(pipes[i][0], msg, sizeof(msg) - 1) <= 0 ||
		    sscanf(msg, "%u %lld", &nidx[i], &used) != 2)
			zfsx_die("no report from appender %d", i);
		total += used;
	}
	if (shared >= 0 && zfsx_check_shared(&zx.files[shared], nidx, total))
		return 1;
	for (i = 0; i < zx.procs; i++) {
		sum.ops += counts[i].ops;
		sum.writes += counts[i].writes;
		sum.reads += counts[i].reads;
		sum.truncs += counts[i].truncs;
		sum.errs += counts[i].errs;
		sum.bytes_written += counts[i].bytes_written;
		sum.bytes_checked += counts[i].bytes_checked;
		sum.calls += counts[i].calls;
		sum.noops += counts[i].noops;
		for (e = 0; e < ZFSX_NERRNO; e++)
			sum.errno_count[e] += counts[i].errno_count[e];
	}
	sum.writes += nidx[0] + nidx[1];
	sum.bytes_written += total;
	sum.bytes_checked += total;
	snprintf(extra, sizeof(extra),
		 "; %d workers%s, shared %s: %u+%u appends whole and in order",
		 zx.procs, "", shared >= 0 ? zx.files[shared].name : "none",
		 nidx[0], nidx[1]);
	zfsx_summary(&sum, extra);
	return 0;
}

static void zfsx_usage(FILE *out)
{
	fprintf(out,
		"usage: zfsx --dir MNT [--seed N] [--ops N] [--files LIST]\n"
		"            [--explicit-open] [--procs N] [--seconds S]\n"
		"            [--spec-buffers] [--no-queued-faults] [--block-buffers]\n"
		"            [--rogue N [--events LIST] [--cond-cmd CMD]]\n"
		"            [--errors MODE] [--remount N [--open-behind]]\n"
		"            [--cycle N] [--log N]\n"
		"            [--verbose]\n"
		"Runs random operations from the seed on the zonefs mounted on MNT\n"
		"and checks each result against a model (zonefs(5) ZONE FILES, I/O ERRORS, SYSFS).\n"
		"  -d, --dir MNT          the zonefs mount point\n"
		"  -s, --seed N           seed of the operations (default 1)\n"
		"  -n, --ops N            operations per worker (default 1000)\n"
		"  -f, --files LIST       seq/N, cnv/N, seq/A-B, comma-separated\n"
		"                         (default seq/0-5,cnv/0-1)\n"
		"  -e, --explicit-open    the mount has explicit-open\n"
		"  -p, --procs N          N workers on distinct files, plus two\n"
		"                         appenders sharing the first seq file\n"
		"  -t, --seconds S        stop after S seconds (success)\n"
		"  -b, --spec-buffers     block-aligned buffers for direct writes to\n"
		"                         conventional files too (sequential: always)\n"
		"  -q, --no-queued-faults no bad buffer inside a queue of writes\n"
		"  -a, --block-buffers    no buffer segment inside a block reaches\n"
		"                         the device (null_blk 6.1 overruns its\n"
		"                         pages on those); --block-reads: the same\n"
		"  -r, --rogue N          N in 1000 ops are a device event behind the\n"
		"                         mount (one process only)\n"
		"  -k, --events LIST      write,reset,readonly,offline,dead (write)\n"
		"  -c, --cond-cmd CMD     runs \"CMD ZONE cond readonly|offline\"\n"
		"  -E, --errors MODE      the mount's errors= mode (remount-ro)\n"
		"  -m, --remount N        N in 1000 ops remount ro or rw (one process)\n"
		"  -B, --open-behind      zones opened behind a read-only mount\n"
		"                         before each remount read-write\n"
		"  -M, --hold-map         a shared writable mapping of a cnv file\n"
		"                         kept across ops (one process)\n"
		"  -C, --cycle N          N in 1000 ops umount and mount (one process)\n"
		"  -l, --log N            operations shown before a divergence (20)\n"
		"  -v, --verbose          print every operation\n"
		"  -h, --help             this text\n"
		"A divergence prints the last operations, the seed, the operation\n"
		"number and the command that replays it; exit 1. Usage errors: 2.\n");
}

static long long zfsx_num(const char *s, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < 0)
		zfsx_die("bad %s '%s'", what, s);
	return v;
}

static unsigned int zfsx_parse_events(const char *arg)
{
	char *s = strdup(arg), *tok, *save = NULL;
	unsigned int mask = 0;
	int i;

	if (!s)
		zfsx_die("out of memory");
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ZFSX_NR_EVENTS; i++)
			if (!strcmp(tok, zfsx_event_names[i]))
				break;
		if (i == ZFSX_NR_EVENTS)
			zfsx_die("unknown event '%s' (write, reset, readonly, offline, dead)",
				 tok);
		mask |= 1U << i;
	}
	free(s);
	if (!mask)
		zfsx_die("no event in '%s'", arg);
	return mask;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "files", required_argument, NULL, 'f' },
		{ "explicit-open", no_argument, NULL, 'e' },
		{ "procs", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 't' },
		{ "spec-buffers", no_argument, NULL, 'b' },
		{ "no-queued-faults", no_argument, NULL, 'q' },
		{ "block-buffers", no_argument, NULL, 'a' },
		{ "block-reads", no_argument, NULL, 'a' },
		{ "log", required_argument, NULL, 'l' },
		{ "rogue", required_argument, NULL, 'r' },
		{ "errors", required_argument, NULL, 'E' },
		{ "events", required_argument, NULL, 'k' },
		{ "cond-cmd", required_argument, NULL, 'c' },
		{ "remount", required_argument, NULL, 'm' },
		{ "cycle", required_argument, NULL, 'C' },
		{ "open-behind", no_argument, NULL, 'B' },
		{ "hold-map", no_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct zfsx_counts counts;
	int c;

	zx.seed = 1;
	zx.ops = 1000;
	zx.files_arg = "seq/0-5,cnv/0-1";
	zx.nlog = 20;
	zx.errors = "remount-ro";
	zx.worker = -1;
	zx.lastlog = -1;
	zx.argc = argc;
	zx.argv = argv;
	while ((c = getopt_long(argc, argv, "d:s:n:f:ep:t:bqal:r:E:k:c:m:C:BMvh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			zx.dir = optarg;
			break;
		case 's':
			zx.seed = zfsx_num(optarg, "seed");
			break;
		case 'n':
			zx.ops = zfsx_num(optarg, "ops");
			break;
		case 'f':
			zx.files_arg = optarg;
			break;
		case 'e':
			zx.explicit_open = 1;
			break;
		case 'p':
			zx.procs = zfsx_num(optarg, "procs");
			break;
		case 't':
			zx.seconds = zfsx_num(optarg, "seconds");
			break;
		case 'b':
			zx.spec_buffers = 1;
			break;
		case 'q':
			zx.no_queued_faults = 1;
			break;
		case 'a':
			zx.block_buffers = 1;
			break;
		case 'l':
			zx.nlog = zfsx_num(optarg, "log");
			if (zx.nlog < 1 || zx.nlog > ZFSX_LOG_MAX)
				zfsx_die("--log takes 1 to %d", ZFSX_LOG_MAX);
			break;
		case 'r':
			zx.rogue = zfsx_num(optarg, "rogue");
			break;
		case 'E':
			zx.errors = optarg;
			if (strcmp(optarg, "remount-ro") &&
			    strcmp(optarg, "zone-ro") &&
			    strcmp(optarg, "zone-offline") &&
			    strcmp(optarg, "repair"))
				zfsx_die("unknown errors= mode '%s'", optarg);
			break;
		case 'k':
			zx.events = zfsx_parse_events(optarg);
			break;
		case 'c':
			zx.cond_cmd = optarg;
			break;
		case 'm':
			zx.remount = zfsx_num(optarg, "remount");
			break;
		case 'C':
			zx.cycle = zfsx_num(optarg, "cycle");
			break;
		case 'B':
			zx.behind = 1;
			break;
		case 'M':
			zx.hold_map = 1;
			break;
		case 'v':
			zx.verbose = 1;
			break;
		case 'h':
			zfsx_usage(stdout);
			return 0;
		default:
			zfsx_usage(stderr);
			return 2;
		}
	}
	if (!zx.dir || optind != argc) {
		zfsx_usage(stderr);
		return 2;
	}
	if (!zx.events)
		zx.events = 1U << ZFSX_EV_WRITE;
	if ((zx.events & (1U << ZFSX_EV_READONLY | 1U << ZFSX_EV_OFFLINE)) &&
	    !zx.cond_cmd)
		zfsx_die("the readonly and offline events need --cond-cmd");
	if ((zx.rogue || zx.remount || zx.cycle || zx.hold_map) && zx.procs)
		zfsx_die("--rogue, --remount, --cycle and --hold-map run with one process only");
	setvbuf(stdout, NULL, _IOLBF, 0);
	zx.rng = zx.seed;
	if (zx.seconds)
		zx.deadline = time(NULL) + zx.seconds;
	zx.cnt = &counts;
	zfsx_setup();
	if (zx.procs)
		return zfsx_run_procs();
	zx.global_checks = 1;
	zfsx_run();
	zfsx_summary(&counts, "");
	return 0;
}
