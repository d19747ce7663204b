// SPDX-License-Identifier: GPL-2.0
/*
 * Autobind wrap-around and exhaustion: once every name of the autobind space is taken,
 * autobind fails with ENOSPC instead of looping (the v1 bug of "af_unix: Relax race in
 * unix_autobind()").
 *
 * AF_UNIX's space is 2^20 names per socket type and netns; filling it means 2^20 bound
 * sockets and, with 256 buckets, hours of chain walks under TCG. The module has a debug
 * parameter, autobind_bits, that shrinks its space to 2^N names with the same code
 * path, so these tests run on the module's family only, with N = 4 and N = 8 (one and
 * four words of the module's map of taken names).
 */
#include "common.h"
#include <stddef.h>

#include "kselftest_harness.h"

#define PARAM "/sys/module/rust_afunix/parameters/autobind_bits"

static int write_param(const char *v)
{
	return write_file(PARAM, v);
}

/* Autobinds a new socket of `type`; its name's number in *num; -1 and errno on error. */
static int autobound(int family, int type, unsigned int *num)
{
	struct sockaddr_un sun = { .sun_family = family };
	socklen_t len = sizeof(sun);
	int fd = socket(family, type, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, SUN_OFF)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&sun, &len) || len != SUN_OFF + 6 ||
	    sun.sun_path[0] || sscanf(sun.sun_path + 1, "%5x", num) != 1) {
		close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}

/* A socket of `type` bound explicitly to the abstract name "\0" `digits`, or -1. */
static int explicitly_bound(int family, int type, const char *digits)
{
	struct sockaddr_un sun = { .sun_family = family };
	int fd = socket(family, type, 0);

	memcpy(sun.sun_path + 1, digits, 5);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sun, SUN_OFF + 6)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* In a new netns: fill the `n` names, check ENOSPC, free one, get it back. */
static int exhaust(int family, unsigned int n)
{
	static bool seen[256];
	static int fds[256];
	unsigned int num, i;
	int fd;

	memset(seen, 0, sizeof(seen));
	if (unshare(CLONE_NEWNET))
		return 100;
	for (i = 0; i < n; i++) {
		fds[i] = autobound(family, SOCK_DGRAM, &num);
		if (fds[i] < 0)
			return 101;
		if (num >= n || seen[num])
			return 102;
		seen[num] = true;
	}
	if (autobound(family, SOCK_DGRAM, &num) >= 0 || errno != ENOSPC)
		return 103;
	/* the space is per type */
	if (autobound(family, SOCK_STREAM, &num) < 0)
		return 104;
	/* a freed name is found again, whatever the random start */
	close(fds[7]);
	fd = autobound(family, SOCK_DGRAM, &num);
	if (fd < 0)
		return 105;
	if (!seen[num] || autobound(family, SOCK_DGRAM, &num) >= 0 || errno != ENOSPC)
		return 106;
	return 0;
}

/*
 * In a new netns, 16 names: two bound explicitly in the autobind form (before and
 * after the first autobind) are never given out; freed, one is.
 */
static int explicit_names(int family)
{
	unsigned int num, seen = 0, i;
	int a, b, fd;

	if (unshare(CLONE_NEWNET))
		return 100;
	a = explicitly_bound(family, SOCK_DGRAM, "00003");
	if (a < 0 || autobound(family, SOCK_DGRAM, &num) < 0 || num == 3)
		return 101;
	seen |= 1u << num;
	b = explicitly_bound(family, SOCK_DGRAM, "0000a");
	if (b < 0 && num != 10)
		return 102;
	for (i = 0; i < (b < 0 ? 14 : 13); i++) {
		if (autobound(family, SOCK_DGRAM, &num) < 0)
			return 103;
		if (num >= 16 || num == 3 || (b >= 0 && num == 10) || (seen & (1u << num)))
			return 104;
		seen |= 1u << num;
	}
	if (autobound(family, SOCK_DGRAM, &num) >= 0 || errno != ENOSPC)
		return 105;
	close(a);
	fd = autobound(family, SOCK_DGRAM, &num);
	if (fd < 0 || num != 3)
		return 106;
	if (autobound(family, SOCK_DGRAM, &num) >= 0 || errno != ENOSPC)
		return 107;
	return 0;
}

/* Runs fn(family, arg) in a child, 8 times (8 random starts), with autobind_bits. */
static void rounds(struct __test_metadata *_metadata, const char *bits,
		   int (*fn)(int, unsigned int), unsigned int arg)
{
	int family = afunix_module_family(), status, round;
	pid_t pid;

	ASSERT_LT(0, family) TH_LOG("rust_afunix is not loaded");
	ASSERT_EQ(0, write_param(bits));
	/* EXPECT only from here: the parameter is restored whatever happens. */
	for (round = 0; round < 8; round++) {
		pid = fork();
		EXPECT_LE(0, pid);
		if (pid < 0)
			break;
		if (pid == 0)
			_exit(fn(family, arg));
		EXPECT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_EQ(0, write_param("20"));
}

TEST(autobind_exhaustion_enospc)
{
	rounds(_metadata, "4", exhaust, 16);
}

TEST(autobind_exhaustion_256_names)
{
	rounds(_metadata, "8", exhaust, 256);
}

static int explicit_names_fn(int family, unsigned int unused)
{
	return explicit_names(family);
}

TEST(autobind_skips_explicit_names)
{
	rounds(_metadata, "4", explicit_names_fn, 0);
}

TEST_HARNESS_MAIN
