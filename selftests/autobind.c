// SPDX-License-Identifier: GPL-2.0
/*
 * Autobind wrap-around and exhaustion: once every name of the autobind space is taken,
 * autobind fails with ENOSPC instead of looping (the v1 bug of "af_unix: Relax race in
 * unix_autobind()").
 *
 * AF_UNIX's space is 2^20 names per socket type and netns; filling it means 2^20 bound
 * sockets and, with 256 buckets, hours of chain walks under TCG. The module has a debug
 * parameter, autobind_bits, that shrinks its space to 2^N names with the same code
 * path, so this test runs on the module's family only, with N = 4.
 */
#include "common.h"
#include <stddef.h>

#include "kselftest_harness.h"

#define PARAM "/sys/module/rust_afunix/parameters/autobind_bits"
#define SUN_OFF ((int)offsetof(struct sockaddr_un, sun_path))

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

/* In a new netns: fill the 16 names, check ENOSPC, free one, get it back. */
static int exhaust(int family)
{
	unsigned int num, seen = 0;
	int fds[16], i, fd;

	if (unshare(CLONE_NEWNET))
		return 100;
	for (i = 0; i < 16; i++) {
		fds[i] = autobound(family, SOCK_DGRAM, &num);
		if (fds[i] < 0)
			return 101;
		if (num >= 16 || (seen & (1u << num)))
			return 102;
		seen |= 1u << num;
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
	if (!(seen & (1u << num)) || autobound(family, SOCK_DGRAM, &num) >= 0 || errno != ENOSPC)
		return 106;
	return 0;
}

TEST(autobind_exhaustion_enospc)
{
	int family = afunix_module_family(), status, round;
	pid_t pid;

	ASSERT_LT(0, family) TH_LOG("rust_afunix is not loaded");
	ASSERT_EQ(0, write_param("4"));
	for (round = 0; round < 8; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(exhaust(family));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_EQ(0, write_param("20"));
}

TEST_HARNESS_MAIN
