// SPDX-License-Identifier: GPL-2.0
/*
 * Port of the kernel's net/af_unix/unix_connect.c selftest to both families: a server
 * bound to a pathname or an abstract name, and a client that connects to it either from
 * the server's network namespace or from a fresh one (unshare(CLONE_NEWNET) in a forked
 * child). Pathnames live in the file system and are reachable from every netns; abstract
 * names belong to one netns, so connecting to one from another netns is ECONNREFUSED.
 * Every expected value is AF_UNIX's behaviour on 6.12.
 */
#include "common.h"
#include <stddef.h>

#include "kselftest_harness.h"

FIXTURE(unix_connect)
{
	int family;
	int server;
	struct sockaddr_un addr;
	socklen_t addrlen;
};

FIXTURE_VARIANT(unix_connect)
{
	bool ours;
	int type;
	bool abstract;
	bool netns;
	int err;	/* the client's connect() errno, 0 for success */
};

FIXTURE_VARIANT_ADD(unix_connect, stream_pathname_af_unix)
{
	.ours = false,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_pathname_rust_afunix)
{
	.ours = true,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_abstract_af_unix)
{
	.ours = false,
	.type = SOCK_STREAM,
	.abstract = true,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_abstract_rust_afunix)
{
	.ours = true,
	.type = SOCK_STREAM,
	.abstract = true,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_pathname_netns_af_unix)
{
	.ours = false,
	.type = SOCK_STREAM,
	.netns = true,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_pathname_netns_rust_afunix)
{
	.ours = true,
	.type = SOCK_STREAM,
	.netns = true,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_abstract_netns_af_unix)
{
	.ours = false,
	.type = SOCK_STREAM,
	.abstract = true,
	.netns = true,
	.err = ECONNREFUSED,
};

FIXTURE_VARIANT_ADD(unix_connect, stream_abstract_netns_rust_afunix)
{
	.ours = true,
	.type = SOCK_STREAM,
	.abstract = true,
	.netns = true,
	.err = ECONNREFUSED,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_pathname_af_unix)
{
	.ours = false,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_pathname_rust_afunix)
{
	.ours = true,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_abstract_af_unix)
{
	.ours = false,
	.type = SOCK_DGRAM,
	.abstract = true,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_abstract_rust_afunix)
{
	.ours = true,
	.type = SOCK_DGRAM,
	.abstract = true,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_pathname_netns_af_unix)
{
	.ours = false,
	.type = SOCK_DGRAM,
	.netns = true,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_pathname_netns_rust_afunix)
{
	.ours = true,
	.type = SOCK_DGRAM,
	.netns = true,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_abstract_netns_af_unix)
{
	.ours = false,
	.type = SOCK_DGRAM,
	.abstract = true,
	.netns = true,
	.err = ECONNREFUSED,
};

FIXTURE_VARIANT_ADD(unix_connect, dgram_abstract_netns_rust_afunix)
{
	.ours = true,
	.type = SOCK_DGRAM,
	.abstract = true,
	.netns = true,
	.err = ECONNREFUSED,
};

/* Exit status of the client child when it could not even try to connect. */
#define CHILD_SETUP_FAILED 255

FIXTURE_SETUP(unix_connect)
{
	char name[32];
	int n;

	self->server = -1;
	self->family = variant_family(variant->ours);
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");

	/* A name per family, so that a leftover of one variant cannot disturb another. */
	n = snprintf(name, sizeof(name), "unix_connect.%d", self->family);
	memset(&self->addr, 0, sizeof(self->addr));
	self->addr.sun_family = self->family;
	if (variant->abstract) {
		/* "\0unix_connect.N": the leading NUL makes it abstract; no trailing NUL. */
		memcpy(self->addr.sun_path + 1, name, n);
		self->addrlen = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	} else {
		memcpy(self->addr.sun_path, name, n + 1);
		self->addrlen = offsetof(struct sockaddr_un, sun_path) + n + 1;
		unlink(self->addr.sun_path);
	}
}

FIXTURE_TEARDOWN(unix_connect)
{
	if (self->server >= 0)
		close(self->server);
	if (!variant->abstract)
		unlink(self->addr.sun_path);
}

/*
 * The client: moves to a new netns if asked, connects and, once connected, sends one
 * byte. Reports connect()'s errno (0 on success) as its exit status.
 */
static int run_client(int family, int type, bool netns, const struct sockaddr_un *addr,
		      socklen_t addrlen)
{
	int fd, err;

	if (netns && unshare(CLONE_NEWNET))
		return CHILD_SETUP_FAILED;
	fd = socket(family, type, 0);
	if (fd < 0)
		return CHILD_SETUP_FAILED;
	err = ERRNO_OF(connect(fd, (const struct sockaddr *)addr, addrlen));
	if (!err && send(fd, "c", 1, 0) != 1)
		err = CHILD_SETUP_FAILED;
	close(fd);
	return err;
}

TEST_F(unix_connect, test)
{
	char buf[8];
	int status, fd;
	pid_t pid;

	self->server = socket(self->family, variant->type, 0);
	ASSERT_LE(0, self->server);
	ASSERT_EQ(0, bind(self->server, (struct sockaddr *)&self->addr, self->addrlen));
	if (variant->type == SOCK_STREAM)
		ASSERT_EQ(0, listen(self->server, 32));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(run_client(self->family, variant->type, variant->netns, &self->addr,
				 self->addrlen));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(variant->err, WEXITSTATUS(status));

	if (variant->err) {
		/* nothing reached the server */
		if (variant->type == SOCK_STREAM) {
			ASSERT_EQ(0, fcntl(self->server, F_SETFL, O_NONBLOCK));
			EXPECT_EQ(EAGAIN, ERRNO_OF(accept(self->server, NULL, NULL)));
		} else {
			EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->server, buf, sizeof(buf),
							MSG_DONTWAIT)));
		}
		return;
	}

	/* The client's byte is waiting, even though the client is gone. */
	if (variant->type == SOCK_STREAM) {
		fd = accept(self->server, NULL, NULL);
		ASSERT_LE(0, fd);
		EXPECT_EQ(1, recv(fd, buf, sizeof(buf), 0));
		EXPECT_EQ('c', buf[0]);
		EXPECT_EQ(0, recv(fd, buf, sizeof(buf), 0));
		close(fd);
	} else {
		EXPECT_EQ(1, recv(self->server, buf, sizeof(buf), MSG_DONTWAIT));
		EXPECT_EQ('c', buf[0]);
	}
}

TEST_HARNESS_MAIN
