// SPDX-License-Identifier: GPL-2.0
/*
 * zfs_lfs32 - a 32-bit (i386) direct write without O_LARGEFILE.
 *
 *	zfs_lfs32 FILE OFF LEN
 *
 * A 64-bit process always has O_LARGEFILE forced on its opens; only a
 * 32-bit one can show the 2 GiB limit of a file opened without it. This
 * program is built freestanding for i386 (no C library needed) and runs
 * on the guest kernel's IA32 emulation. It opens FILE O_WRONLY | O_DIRECT,
 * writes LEN zero bytes at OFF with pwrite64 and prints "OK <n>" or
 * "ERR <errno name>".
 */
#define ZFS_NR_EXIT		1
#define ZFS_NR_WRITE		4
#define ZFS_NR_OPEN		5
#define ZFS_NR_CLOSE		6
#define ZFS_NR_PWRITE64		181
#define ZFS_O_WRONLY		01
#define ZFS_O_DIRECT		040000
#define ZFS_BUF_SIZE		(64 * 1024)

static char zfs_buf[ZFS_BUF_SIZE] __attribute__((aligned(4096)));

static long zfs_sys(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return ret;
}

static long zfs_strlen(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	return n;
}

static void zfs_puts(const char *s)
{
	zfs_sys(ZFS_NR_WRITE, 1, (long)s, zfs_strlen(s), 0, 0);
}

static void zfs_putnum(long long v)
{
	char b[24];
	int i = sizeof(b);

	b[--i] = 0;
	if (!v)
		b[--i] = '0';
	while (v) {
		b[--i] = '0' + v % 10;
		v /= 10;
	}
	zfs_puts(b + i);
}

static long long zfs_num(const char *s)
{
	long long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

static const char *zfs_errname(long err)
{
	switch (err) {
	case 5: return "EIO";
	case 9: return "EBADF";
	case 13: return "EACCES";
	case 22: return "EINVAL";
	case 27: return "EFBIG";
	case 30: return "EROFS";
	case 75: return "EOVERFLOW";
	default: return 0;
	}
}

static void zfs_err(long ret)
{
	const char *name = zfs_errname(-ret);

	zfs_puts("ERR ");
	if (name)
		zfs_puts(name);
	else
		zfs_putnum(-ret);
	zfs_puts("\n");
}

__attribute__((used)) static void zfs_lfs32_main(long *sp)
{
	char **argv = (char **)(sp + 1);
	long long off, len;
	long fd, ret;

	if (sp[0] != 4) {
		zfs_puts("usage: zfs_lfs32 FILE OFF LEN\n");
		zfs_sys(ZFS_NR_EXIT, 2, 0, 0, 0, 0);
	}
	off = zfs_num(argv[2]);
	len = zfs_num(argv[3]);
	if (len > ZFS_BUF_SIZE)
		len = ZFS_BUF_SIZE;

	fd = zfs_sys(ZFS_NR_OPEN, (long)argv[1], ZFS_O_WRONLY | ZFS_O_DIRECT,
		     0, 0, 0);
	if (fd < 0) {
		zfs_err(fd);
		zfs_sys(ZFS_NR_EXIT, 1, 0, 0, 0, 0);
	}
	ret = zfs_sys(ZFS_NR_PWRITE64, fd, (long)zfs_buf, (long)len,
		      (long)(off & 0xffffffff), (long)(off >> 32));
	zfs_sys(ZFS_NR_CLOSE, fd, 0, 0, 0, 0);
	if (ret < 0) {
		zfs_err(ret);
		zfs_sys(ZFS_NR_EXIT, 1, 0, 0, 0, 0);
	}
	zfs_puts("OK ");
	zfs_putnum(ret);
	zfs_puts("\n");
	zfs_sys(ZFS_NR_EXIT, 0, 0, 0, 0, 0);
}

__asm__(".globl _start\n"
	"_start:\n"
	"\txorl %ebp, %ebp\n"
	"\tmovl %esp, %eax\n"
	"\tandl $-16, %esp\n"
	"\tsubl $12, %esp\n"
	"\tpushl %eax\n"
	"\tcall zfs_lfs32_main\n"
	"\thlt\n");
