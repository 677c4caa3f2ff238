/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal harness for the mkzonefs unit tests: each check prints one TAP
 * line, and the program exits 1 if any check failed.
 */
#ifndef _ZONEFS_TEST_H
#define _ZONEFS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned int zonefs_test_nr;
static unsigned int zonefs_test_failed;

#define ZONEFS_CHECK(cond, ...)						\
	do {								\
		zonefs_test_nr++;					\
		if (!(cond)) {						\
			zonefs_test_failed++;				\
			printf("not ok %u - ", zonefs_test_nr);		\
		} else {						\
			printf("ok %u - ", zonefs_test_nr);		\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		if (!(cond))						\
			printf("#   failed: %s (%s:%d)\n", #cond,	\
			       __FILE__, __LINE__);			\
	} while (0)

static inline int zonefs_test_done(void)
{
	printf("1..%u\n", zonefs_test_nr);
	printf("# %u passed, %u failed\n",
	       zonefs_test_nr - zonefs_test_failed, zonefs_test_failed);
	return zonefs_test_failed ? 1 : 0;
}

/*
 * stderr capture: zonefs_capture_start() sends fd 2 to a temporary file,
 * zonefs_capture_end() restores it and returns what was written (static
 * buffer, NUL-terminated).
 */
static int zonefs_saved_stderr = -1;
static FILE *zonefs_capture_file;

static inline void zonefs_capture_start(void)
{
	fflush(stderr);
	zonefs_capture_file = tmpfile();
	if (!zonefs_capture_file) {
		perror("tmpfile");
		exit(1);
	}
	zonefs_saved_stderr = dup(2);
	dup2(fileno(zonefs_capture_file), 2);
}

static inline const char *zonefs_capture_end(void)
{
	static char buf[4096];
	size_t n;

	fflush(stderr);
	dup2(zonefs_saved_stderr, 2);
	close(zonefs_saved_stderr);
	rewind(zonefs_capture_file);
	n = fread(buf, 1, sizeof(buf) - 1, zonefs_capture_file);
	buf[n] = '\0';
	fclose(zonefs_capture_file);
	return buf;
}

/* Is @s exactly one line, ending in a newline? */
static inline int zonefs_is_one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl && nl[1] == '\0';
}

#endif /* _ZONEFS_TEST_H */
