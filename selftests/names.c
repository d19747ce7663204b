// SPDX-License-Identifier: GPL-2.0
/*
 * Names, binding and connecting on both families: bind() and its validation, abstract
 * and pathname names, autobind, listen(), connect() and accept() of stream and seqpacket
 * sockets and their errors, the listen backlog, datagram connect/sendto/recvfrom, and
 * network namespaces. Every expected value is AF_UNIX's behaviour on 6.12.
 *
 * Each test runs in a private directory (made in the cwd by the fixture setup and
 * removed with its contents by the teardown), so the two variants never meet each
 * other's files. Children forked by a test never use the harness's ASSERT/EXPECT: they
 * report through their exit status.
 */
#include "common.h"
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include "kselftest_harness.h"

/* The length of an autobound name: "\0" and five hex digits. */
#define AUTOBIND_LEN (SUN_OFF + 6)

FIXTURE(names)
{
	int family;
	char cwd[PATH_MAX];	/* where the test was started */
	char dir[PATH_MAX];	/* the test's private directory, its cwd while it runs */
};

FIXTURE_VARIANT(names)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(names, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(names, rust_afunix)
{
	.ours = true,
};

FIXTURE_SETUP(names)
{
	char tmpl[] = "names.XXXXXX";

	self->family = variant_family(variant->ours);
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	ASSERT_EQ(0, enter_private_dir(tmpl, self->cwd, self->dir));
}

FIXTURE_TEARDOWN(names)
{
	leave_private_dir(self->cwd, self->dir);
}

static const int conn_types[] = { SOCK_STREAM, SOCK_SEQPACKET };

/* A listening socket bound to `sun`, or -1. */
static int listener(int family, int type, const struct sockaddr_un *sun, int len, int backlog)
{
	int fd = bound(family, type, sun, len);

	if (fd >= 0 && listen(fd, backlog)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A socket of `type` connected to `sun`, or -1. */
static int connected(int family, int type, const struct sockaddr_un *sun, int len)
{
	int fd = socket(family, type, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)sun, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* connect()'s errno for a new socket of `type`, 0 on success. */
static int connect_errno(int family, int type, const struct sockaddr_un *sun, int len)
{
	int fd = socket(family, type, 0), err;

	if (fd < 0)
		return -1;
	err = ERRNO_OF(connect(fd, (const struct sockaddr *)sun, len));
	close(fd);
	return err;
}

/* getsockname(): the length, -1 on error. */
static int name_of(int fd, struct sockaddr_un *sun)
{
	socklen_t len = sizeof(*sun);

	memset(sun, 0xa5, sizeof(*sun));
	if (getsockname(fd, SA(sun), &len))
		return -1;
	return len;
}

/* getpeername(): the length, -1 on error. */
static int peer_of(int fd, struct sockaddr_un *sun)
{
	socklen_t len = sizeof(*sun);

	memset(sun, 0xa5, sizeof(*sun));
	if (getpeername(fd, SA(sun), &len))
		return -1;
	return len;
}

/* SO_PEERCRED's pid, -1 on error. */
static pid_t peer_pid(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -1;
	return cred.pid;
}

static bool is_socket_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int create_file(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Runs `fn(arg)` in a child and returns its exit status, -1 if it did not exit. */
static int in_child(int (*fn)(const void *), const void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- bind() validation ---- */

TEST_F(names, bind_bad_addrlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_un sun, got;
	int fd, len;

	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	len = abstract_addr(&sun, self->family, "badlen", 6);
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), 0)));
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), 1)));
	/* longer than struct sockaddr_un, but fits the kernel's sockaddr_storage */
	memset(&ss, 'x', sizeof(ss));
	memcpy(&ss, &sun, len);
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&ss), sizeof(struct sockaddr_un) + 1)));
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&ss), sizeof(ss))));
	/* all of the above left the socket unnamed */
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	EXPECT_EQ(0, bind(fd, SA(&sun), len));
	close(fd);
}

TEST_F(names, bind_bad_family)
{
	struct sockaddr_un sun, got;
	int fd, len;

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	len = abstract_addr(&sun, AF_INET, "badfam", 6);
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), len)));
	/* a family-only address of another family is not an autobind */
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), SUN_OFF)));
	sun.sun_family = AF_UNSPEC;
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), len)));
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), SUN_OFF)));
	/* a pathname: nothing is created */
	len = path_addr(&sun, AF_INET, "badfam");
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&sun), len)));
	EXPECT_FALSE(exists("badfam"));
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	close(fd);
}

TEST_F(names, bind_twice)
{
	struct sockaddr_un a, b, got;
	int fd, alen, blen;

	alen = abstract_addr(&a, self->family, "twice-a", 7);
	blen = abstract_addr(&b, self->family, "twice-b", 7);
	fd = bound(self->family, SOCK_STREAM, &a, alen);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&b), blen)));
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&a), alen)));
	EXPECT_EQ(alen, name_of(fd, &got));
	EXPECT_EQ(0, memcmp(&a, &got, alen));
	close(fd);

	/* bound to a pathname, then an abstract name */
	alen = path_addr(&a, self->family, "twice");
	fd = bound(self->family, SOCK_DGRAM, &a, alen);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&b), blen)));
	EXPECT_EQ(alen, name_of(fd, &got));
	EXPECT_EQ(0, memcmp(&a, &got, alen));
	close(fd);
}

/* ---- autobind ---- */

static bool is_autobind_name(const struct sockaddr_un *sun, int family)
{
	int i;

	if (sun->sun_family != family || sun->sun_path[0] != 0)
		return false;
	for (i = 1; i <= 5; i++)
		if (!sun->sun_path[i] || !strchr("0123456789abcdef", sun->sun_path[i]))
			return false;
	return true;
}

TEST_F(names, autobind_name)
{
	struct sockaddr_un sun, na, nb, from;
	socklen_t fromlen = sizeof(from);
	char buf[8];
	int a, b;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = self->family;
	a = socket(self->family, SOCK_DGRAM, 0);
	b = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, bind(a, SA(&sun), SUN_OFF));
	ASSERT_EQ(0, bind(b, SA(&sun), SUN_OFF));
	ASSERT_EQ(AUTOBIND_LEN, name_of(a, &na));
	ASSERT_EQ(AUTOBIND_LEN, name_of(b, &nb));
	EXPECT_TRUE(is_autobind_name(&na, self->family));
	EXPECT_TRUE(is_autobind_name(&nb, self->family));
	EXPECT_NE(0, memcmp(&na, &nb, AUTOBIND_LEN));

	/* the names work as addresses */
	EXPECT_EQ(2, sendto(a, "hi", 2, 0, SA(&nb), AUTOBIND_LEN));
	EXPECT_EQ(2, recvfrom(b, buf, sizeof(buf), 0, SA(&from), &fromlen));
	EXPECT_EQ(AUTOBIND_LEN, (int)fromlen);
	EXPECT_EQ(0, memcmp(&na, &from, AUTOBIND_LEN));
	close(a);
	close(b);
}

TEST_F(names, autobind_keeps_existing_name)
{
	struct sockaddr_un sun, empty, got;
	int fd, len, i;

	memset(&empty, 0, sizeof(empty));
	empty.sun_family = self->family;
	for (i = 0; i < 3; i++) {
		if (i == 0)
			len = abstract_addr(&sun, self->family, "keep", 4);
		else if (i == 1)
			len = path_addr(&sun, self->family, "keep");
		fd = socket(self->family, SOCK_STREAM, 0);
		ASSERT_LE(0, fd);
		if (i < 2) {
			ASSERT_EQ(0, bind(fd, SA(&sun), len));
		} else {
			/* already autobound */
			ASSERT_EQ(0, bind(fd, SA(&empty), SUN_OFF));
			len = name_of(fd, &sun);
			ASSERT_EQ(AUTOBIND_LEN, len);
		}
		/* unix_autobind() returns 0 at once when the socket has a name */
		EXPECT_EQ(0, bind(fd, SA(&empty), SUN_OFF));
		EXPECT_EQ(len, name_of(fd, &got));
		EXPECT_EQ(0, memcmp(&sun, &got, len));
		close(fd);
	}
}

TEST_F(names, autobind_with_passcred)
{
	struct sockaddr_un dsun, ssun, got;
	int dsrv, ssrv, dlen, slen, fd, acc;

	dlen = abstract_addr(&dsun, self->family, "pc-dgram", 8);
	slen = abstract_addr(&ssun, self->family, "pc-stream", 9);
	dsrv = bound(self->family, SOCK_DGRAM, &dsun, dlen);
	ssrv = listener(self->family, SOCK_STREAM, &ssun, slen, 8);
	ASSERT_LE(0, dsrv);
	ASSERT_LE(0, ssrv);

	/* DGRAM connect() */
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_passcred(fd, 1));
	EXPECT_EQ(0, connect(fd, SA(&dsun), dlen));
	EXPECT_EQ(AUTOBIND_LEN, name_of(fd, &got));
	EXPECT_TRUE(is_autobind_name(&got, self->family));
	close(fd);

	/* DGRAM sendto() */
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_passcred(fd, 1));
	EXPECT_EQ(1, sendto(fd, "x", 1, 0, SA(&dsun), dlen));
	EXPECT_EQ(AUTOBIND_LEN, name_of(fd, &got));
	EXPECT_TRUE(is_autobind_name(&got, self->family));
	close(fd);

	/* STREAM connect(): the server sees the autobound name as the peer's */
	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, set_passcred(fd, 1));
	EXPECT_EQ(0, connect(fd, SA(&ssun), slen));
	EXPECT_EQ(AUTOBIND_LEN, name_of(fd, &got));
	EXPECT_TRUE(is_autobind_name(&got, self->family));
	acc = accept(ssrv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(AUTOBIND_LEN, peer_of(acc, &dsun));
	EXPECT_EQ(0, memcmp(&got, &dsun, AUTOBIND_LEN));
	close(acc);
	close(fd);
	close(dsrv);
	close(ssrv);
}

TEST_F(names, no_autobind_without_passcred)
{
	struct sockaddr_un dsun, ssun, got, from;
	socklen_t fromlen;
	int dsrv, ssrv, dlen, slen, fd, acc;
	char buf[8];

	dlen = abstract_addr(&dsun, self->family, "nopc-dgram", 10);
	slen = abstract_addr(&ssun, self->family, "nopc-stream", 11);
	dsrv = bound(self->family, SOCK_DGRAM, &dsun, dlen);
	ssrv = listener(self->family, SOCK_STREAM, &ssun, slen, 8);
	ASSERT_LE(0, dsrv);
	ASSERT_LE(0, ssrv);

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, connect(fd, SA(&dsun), dlen));
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	close(fd);

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, sendto(fd, "x", 1, 0, SA(&dsun), dlen));
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	close(fd);
	/* and the receiver gets no address for it */
	fromlen = sizeof(from);
	EXPECT_EQ(1, recvfrom(dsrv, buf, sizeof(buf), 0, SA(&from), &fromlen));
	EXPECT_EQ(0, (int)fromlen);

	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, connect(fd, SA(&ssun), slen));
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	acc = accept(ssrv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(SUN_OFF, peer_of(acc, &got));
	close(acc);
	close(fd);
	close(dsrv);
	close(ssrv);
}

/* ---- sun_family AF_UNIX is accepted by the module's family too ---- */

TEST_F(names, af_unix_family_accepted)
{
	struct sockaddr_un sun, got, from;
	socklen_t fromlen = sizeof(from);
	int srv, fd, acc, len, dlen;
	struct sockaddr_un dsun;
	char buf[8];

	/* an abstract name, bound and connected to with sun_family = AF_UNIX */
	len = abstract_addr(&sun, AF_UNIX, "fam-abs", 7);
	srv = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, srv);
	ASSERT_EQ(0, bind(srv, SA(&sun), len));
	ASSERT_EQ(0, listen(srv, 8));
	EXPECT_EQ(len, name_of(srv, &got));
	EXPECT_EQ(self->family, got.sun_family);
	EXPECT_EQ(0, memcmp(sun.sun_path, got.sun_path, len - SUN_OFF));
	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, connect(fd, SA(&sun), len));
	EXPECT_EQ(len, peer_of(fd, &got));
	EXPECT_EQ(self->family, got.sun_family);
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	close(acc);
	close(fd);
	close(srv);

	/* a pathname */
	len = path_addr(&sun, AF_UNIX, "fam-path");
	srv = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, srv);
	ASSERT_EQ(0, bind(srv, SA(&sun), len));
	EXPECT_TRUE(is_socket_file("fam-path"));
	EXPECT_EQ(len, name_of(srv, &got));
	EXPECT_EQ(self->family, got.sun_family);
	EXPECT_STREQ("fam-path", got.sun_path);

	/* DGRAM connect() and sendto() with AF_UNIX; recvfrom() reports our family */
	dlen = abstract_addr(&dsun, AF_UNIX, "fam-sender", 10);
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind(fd, SA(&dsun), dlen));
	EXPECT_EQ(1, sendto(fd, "a", 1, 0, SA(&sun), len));
	EXPECT_EQ(0, connect(fd, SA(&sun), len));
	EXPECT_EQ(1, send(fd, "b", 1, 0));
	EXPECT_EQ(1, recvfrom(srv, buf, sizeof(buf), 0, SA(&from), &fromlen));
	EXPECT_EQ('a', buf[0]);
	EXPECT_EQ(dlen, (int)fromlen);
	EXPECT_EQ(self->family, from.sun_family);
	EXPECT_EQ(0, memcmp(dsun.sun_path, from.sun_path, dlen - SUN_OFF));
	EXPECT_EQ(1, recv(srv, buf, sizeof(buf), 0));
	EXPECT_EQ('b', buf[0]);
	close(fd);
	close(srv);
}

TEST_F(names, autobind_af_unix_family)
{
	struct sockaddr_un sun, got;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, bind(fd, SA(&sun), SUN_OFF));
	EXPECT_EQ(AUTOBIND_LEN, name_of(fd, &got));
	EXPECT_TRUE(is_autobind_name(&got, self->family));
	close(fd);
}

/* ---- abstract names ---- */

TEST_F(names, abstract_addrlen_is_the_name)
{
	struct sockaddr_un s5, s6, got;
	char buf[8];
	int a, b, len5, len6;

	/* "\0ab" and "\0ab\0": the same bytes up to the NUL, but different names */
	len5 = abstract_addr(&s5, self->family, "ab", 2);
	len6 = abstract_addr(&s6, self->family, "ab\0", 3);
	ASSERT_EQ(SUN_OFF + 3, len5);
	ASSERT_EQ(SUN_OFF + 4, len6);
	a = bound(self->family, SOCK_DGRAM, &s5, len5);
	b = bound(self->family, SOCK_DGRAM, &s6, len6);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	EXPECT_EQ(len5, name_of(a, &got));
	EXPECT_EQ(0, memcmp(&s5, &got, len5));
	EXPECT_EQ(len6, name_of(b, &got));
	EXPECT_EQ(0, memcmp(&s6, &got, len6));

	/* each name reaches its own socket */
	EXPECT_EQ(1, sendto(a, "6", 1, 0, SA(&s6), len6));
	EXPECT_EQ(1, sendto(b, "5", 1, 0, SA(&s5), len5));
	EXPECT_EQ(1, recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('5', buf[0]);
	EXPECT_EQ(1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('6', buf[0]);
	close(a);
	close(b);
}

/*
 * Every length of an abstract name, 1 to 108 bytes of sun_path. The names are prefixes
 * of one another and some end in NULs, so only their lengths tell them apart; each
 * reaches its own socket (the name hash reads the length and every word of a name).
 */
TEST_F(names, abstract_every_length)
{
	enum { MAX = sizeof(((struct sockaddr_un *)0)->sun_path) };
	struct sockaddr_un sun;
	int fds[MAX + 1], n, i;
	char c;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = self->family;
	for (i = 1; i < MAX; i++)
		sun.sun_path[i] = i % 9 ? (char)(i * 37 + 11) : 0;
	for (n = 1; n <= MAX; n++) {
		fds[n] = bound(self->family, SOCK_DGRAM, &sun, SUN_OFF + n);
		ASSERT_LE(0, fds[n]) TH_LOG("length %d: errno %d", n, errno);
	}
	for (n = 1; n <= MAX; n++) {
		c = (char)n;
		EXPECT_EQ(1, sendto(fds[1], &c, 1, 0, SA(&sun), SUN_OFF + n)) TH_LOG("length %d", n);
	}
	for (n = 1; n <= MAX; n++) {
		c = 0;
		EXPECT_EQ(1, recv(fds[n], &c, 1, MSG_DONTWAIT)) TH_LOG("length %d", n);
		EXPECT_EQ((char)n, c) TH_LOG("length %d", n);
	}
	for (n = 1; n <= MAX; n++)
		close(fds[n]);
}

TEST_F(names, abstract_addrinuse)
{
	struct sockaddr_un sun, got;
	int a, b, len, t;

	len = abstract_addr(&sun, self->family, "inuse", 5);
	for (t = 0; t < 2; t++) {
		a = bound(self->family, conn_types[t], &sun, len);
		ASSERT_LE(0, a);
		b = socket(self->family, conn_types[t], 0);
		ASSERT_LE(0, b);
		EXPECT_EQ(EADDRINUSE, ERRNO_OF(bind(b, SA(&sun), len)));
		EXPECT_EQ(SUN_OFF, name_of(b, &got));
		/* the name is free again once its socket is closed */
		close(a);
		EXPECT_EQ(0, bind(b, SA(&sun), len));
		close(b);
	}
}

TEST_F(names, abstract_name_per_type)
{
	static const int all_types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	struct sockaddr_un sun;
	int fds[3], len, t;

	len = abstract_addr(&sun, self->family, "shared", 6);
	for (t = 0; t < 3; t++) {
		fds[t] = bound(self->family, all_types[t], &sun, len);
		EXPECT_LE(0, fds[t]) TH_LOG("type %d: errno %d", all_types[t], errno);
	}
	for (t = 0; t < 3; t++)
		EXPECT_EQ(EADDRINUSE, ERRNO_OF(bound(self->family, all_types[t], &sun, len)));
	for (t = 0; t < 3; t++)
		if (fds[t] >= 0)
			close(fds[t]);
}

TEST_F(names, abstract_getsockname_exact)
{
	struct sockaddr_un sun, got;
	socklen_t small;
	int fd, len, i;

	/* the shortest: a lone NUL */
	len = abstract_addr(&sun, self->family, "", 0);
	ASSERT_EQ(SUN_OFF + 1, len);
	fd = bound(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(len, name_of(fd, &got));
	EXPECT_EQ(0, memcmp(&sun, &got, len));
	close(fd);

	/* the longest, with every byte value including NULs and 0xff */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = self->family;
	for (i = 1; i < (int)sizeof(sun.sun_path); i++)
		sun.sun_path[i] = (char)(i * 37 + 200);
	sun.sun_path[50] = 0;
	len = sizeof(sun);
	fd = bound(self->family, SOCK_DGRAM, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(len, name_of(fd, &got));
	EXPECT_EQ(0, memcmp(&sun, &got, len));

	/* a short buffer gets the start of the name and the full length */
	small = SUN_OFF + 4;
	memset(&got, 0, sizeof(got));
	EXPECT_EQ(0, getsockname(fd, SA(&got), &small));
	EXPECT_EQ(sizeof(sun), small);
	EXPECT_EQ(0, memcmp(&sun, &got, SUN_OFF + 4));
	EXPECT_EQ(0, got.sun_path[4]);
	close(fd);
}

/* ---- pathnames ---- */

TEST_F(names, path_getsockname_len)
{
	struct sockaddr_un sun, got;
	int fd, cl, srv;

	/* addrlen = the whole structure: the name ends at the first NUL */
	path_addr(&sun, self->family, "full");
	fd = bound(self->family, SOCK_STREAM, &sun, sizeof(sun));
	ASSERT_LE(0, fd);
	EXPECT_EQ(SUN_OFF + 5, name_of(fd, &got));
	EXPECT_EQ(self->family, got.sun_family);
	EXPECT_STREQ("full", got.sun_path);
	ASSERT_EQ(0, listen(fd, 1));
	cl = connected(self->family, SOCK_STREAM, &sun, sizeof(sun));
	ASSERT_LE(0, cl);
	EXPECT_EQ(SUN_OFF + 5, peer_of(cl, &got));
	EXPECT_STREQ("full", got.sun_path);
	close(cl);
	close(fd);

	/* addrlen without the terminating NUL: the reported length counts one */
	path_addr(&sun, self->family, "nonul");
	srv = bound(self->family, SOCK_DGRAM, &sun, SUN_OFF + 5);
	ASSERT_LE(0, srv);
	EXPECT_TRUE(is_socket_file("nonul"));
	EXPECT_EQ(SUN_OFF + 6, name_of(srv, &got));
	EXPECT_STREQ("nonul", got.sun_path);
	close(srv);
}

TEST_F(names, path_108_bytes)
{
	struct sockaddr_storage ss;
	struct sockaddr_un sun;
	socklen_t len = sizeof(ss);
	int fd;

	/* sun_path filled without a NUL: the name is all 108 bytes (see unix(7) BUGS) */
	memset(&sun, 'p', sizeof(sun));
	sun.sun_family = self->family;
	fd = bound(self->family, SOCK_STREAM, &sun, sizeof(sun));
	ASSERT_LE(0, fd);
	memset(&ss, 0xa5, sizeof(ss));
	ASSERT_EQ(0, getsockname(fd, SA(&ss), &len));
	/* offsetof + strlen + 1: one more than sizeof(struct sockaddr_un) */
	EXPECT_EQ(sizeof(sun) + 1, len);
	EXPECT_EQ(0, memcmp(&sun, &ss, sizeof(sun)));
	EXPECT_EQ(0, ((char *)&ss)[sizeof(sun)]);
	close(fd);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sun.sun_path, sizeof(sun.sun_path));
	EXPECT_TRUE(is_socket_file((char *)&ss));
}

static int path_mode(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	return st.st_mode;
}

TEST_F(names, path_mode_follows_umask)
{
	struct sockaddr_un sun;
	int fd, len;

	umask(022);
	len = path_addr(&sun, self->family, "m022");
	fd = bound(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(S_IFSOCK | 0755, path_mode("m022"));
	close(fd);

	umask(077);
	len = path_addr(&sun, self->family, "m077");
	fd = bound(self->family, SOCK_DGRAM, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(S_IFSOCK | 0700, path_mode("m077"));
	close(fd);

	umask(0);
	len = path_addr(&sun, self->family, "m000");
	fd = bound(self->family, SOCK_SEQPACKET, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(S_IFSOCK | 0777, path_mode("m000"));
	close(fd);
	umask(022);
}

TEST_F(names, path_exists_addrinuse)
{
	struct sockaddr_un sun, got;
	int fd, live, len;

	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);

	/* a regular file */
	ASSERT_EQ(0, create_file("regular"));
	len = path_addr(&sun, self->family, "regular");
	EXPECT_EQ(EADDRINUSE, ERRNO_OF(bind(fd, SA(&sun), len)));

	/* the file of a live socket */
	len = path_addr(&sun, self->family, "live");
	live = bound(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, live);
	EXPECT_EQ(EADDRINUSE, ERRNO_OF(bind(fd, SA(&sun), len)));

	/* the file a closed socket left behind */
	close(live);
	EXPECT_TRUE(is_socket_file("live"));
	EXPECT_EQ(EADDRINUSE, ERRNO_OF(bind(fd, SA(&sun), len)));

	/* still unnamed; binds once the file is gone */
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	ASSERT_EQ(0, unlink("live"));
	EXPECT_EQ(0, bind(fd, SA(&sun), len));
	close(fd);
}

TEST_F(names, path_missing_dir)
{
	struct sockaddr_un sun, got;
	int fd, len;

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	len = path_addr(&sun, self->family, "nodir/s");
	EXPECT_EQ(ENOENT, ERRNO_OF(bind(fd, SA(&sun), len)));
	ASSERT_EQ(0, create_file("notadir"));
	len = path_addr(&sun, self->family, "notadir/s");
	EXPECT_EQ(ENOTDIR, ERRNO_OF(bind(fd, SA(&sun), len)));
	EXPECT_EQ(SUN_OFF, name_of(fd, &got));
	close(fd);
}

TEST_F(names, path_bind_when_bound_unlinks)
{
	struct sockaddr_un sun, late, got;
	int fd, len, latelen, i;

	latelen = path_addr(&late, self->family, "late");
	for (i = 0; i < 3; i++) {
		fd = socket(self->family, SOCK_STREAM, 0);
		ASSERT_LE(0, fd);
		if (i == 0) {
			len = abstract_addr(&sun, self->family, "early", 5);
			ASSERT_EQ(0, bind(fd, SA(&sun), len));
		} else if (i == 1) {
			len = path_addr(&sun, self->family, "early");
			ASSERT_EQ(0, bind(fd, SA(&sun), len));
		} else {
			memset(&sun, 0, sizeof(sun));
			sun.sun_family = self->family;
			ASSERT_EQ(0, bind(fd, SA(&sun), SUN_OFF));
			len = name_of(fd, &sun);
		}
		/* mknod happens first, and is undone */
		EXPECT_EQ(EINVAL, ERRNO_OF(bind(fd, SA(&late), latelen)));
		EXPECT_FALSE(exists("late"));
		EXPECT_EQ(len, name_of(fd, &got));
		EXPECT_EQ(0, memcmp(&sun, &got, len));
		if (i == 1)
			EXPECT_TRUE(is_socket_file("early"));
		close(fd);
	}
}

TEST_F(names, path_relative_to_cwd)
{
	struct sockaddr_un sun, got;
	int srv, cl, acc, len;

	ASSERT_EQ(0, mkdir("sub", 0755));
	ASSERT_EQ(0, chdir("sub"));
	len = path_addr(&sun, self->family, "s");
	srv = listener(self->family, SOCK_STREAM, &sun, len, 4);
	ASSERT_EQ(0, chdir(".."));
	ASSERT_LE(0, srv);
	EXPECT_TRUE(is_socket_file("sub/s"));
	EXPECT_FALSE(exists("s"));
	/* the name is the string given to bind() */
	EXPECT_EQ(len, name_of(srv, &got));
	EXPECT_STREQ("s", got.sun_path);

	/* connect() resolves against its own cwd */
	EXPECT_EQ(ENOENT, connect_errno(self->family, SOCK_STREAM, &sun, len));
	len = path_addr(&sun, self->family, "sub/s");
	cl = connected(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, cl);
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(1, send(cl, "r", 1, 0));
	EXPECT_EQ(1, recv(acc, got.sun_path, 1, 0));
	close(acc);
	close(cl);
	close(srv);
}

/* ---- listen() ---- */

TEST_F(names, listen_errors)
{
	struct sockaddr_un sun;
	int fd, srv, cl, acc, len, sv[2];

	/* DGRAM: not supported, bound or not */
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EOPNOTSUPP, ERRNO_OF(listen(fd, 1)));
	len = abstract_addr(&sun, self->family, "listen-dgram", 12);
	ASSERT_EQ(0, bind(fd, SA(&sun), len));
	EXPECT_EQ(EOPNOTSUPP, ERRNO_OF(listen(fd, 1)));
	close(fd);

	/* unbound STREAM and SEQPACKET */
	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, ERRNO_OF(listen(fd, 1)));
	close(fd);
	fd = socket(self->family, SOCK_SEQPACKET, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EINVAL, ERRNO_OF(listen(fd, 1)));
	close(fd);

	/* listening twice is fine, with any backlog */
	len = abstract_addr(&sun, self->family, "listen-twice", 12);
	srv = bound(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, srv);
	EXPECT_EQ(0, listen(srv, 1));
	EXPECT_EQ(0, listen(srv, 1));
	EXPECT_EQ(0, listen(srv, 100));

	/* connected sockets: a socketpair, a client with a name, an accepted socket */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	EXPECT_EQ(EINVAL, ERRNO_OF(listen(sv[0], 1)));
	close(sv[0]);
	close(sv[1]);
	cl = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, cl);
	ASSERT_EQ(0, set_passcred(cl, 1));	/* autobinds on connect */
	ASSERT_EQ(0, connect(cl, SA(&sun), len));
	EXPECT_EQ(EINVAL, ERRNO_OF(listen(cl, 1)));
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(EINVAL, ERRNO_OF(listen(acc, 1)));
	close(acc);
	close(cl);
	close(srv);
}

/* ---- connect() of STREAM and SEQPACKET ---- */

TEST_F(names, connect_refused_or_missing)
{
	struct sockaddr_un sun;
	int t, type, fd, len;

	ASSERT_EQ(0, create_file("regular"));
	for (t = 0; t < 2; t++) {
		type = conn_types[t];
		len = abstract_addr(&sun, self->family, "nobody", 6);
		EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, type, &sun, len));
		len = path_addr(&sun, self->family, "missing");
		EXPECT_EQ(ENOENT, connect_errno(self->family, type, &sun, len));
		len = path_addr(&sun, self->family, "regular");
		EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, type, &sun, len));

		/* bound but not listening */
		len = abstract_addr(&sun, self->family, "quiet", 5);
		fd = bound(self->family, type, &sun, len);
		ASSERT_LE(0, fd);
		EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, type, &sun, len));
		close(fd);
		len = path_addr(&sun, self->family, "quiet");
		fd = bound(self->family, type, &sun, len);
		ASSERT_LE(0, fd);
		EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, type, &sun, len));

		/* the file of a socket that is gone */
		close(fd);
		EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, type, &sun, len));
		ASSERT_EQ(0, unlink("quiet"));
	}
}

TEST_F(names, connect_wrong_type)
{
	struct sockaddr_un sun;
	int fd, len;

	/* pathname: found, but of another type */
	len = path_addr(&sun, self->family, "dgram");
	fd = bound(self->family, SOCK_DGRAM, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EPROTOTYPE, connect_errno(self->family, SOCK_STREAM, &sun, len));
	EXPECT_EQ(EPROTOTYPE, connect_errno(self->family, SOCK_SEQPACKET, &sun, len));
	close(fd);
	len = path_addr(&sun, self->family, "seqpacket");
	fd = listener(self->family, SOCK_SEQPACKET, &sun, len, 4);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EPROTOTYPE, connect_errno(self->family, SOCK_STREAM, &sun, len));
	EXPECT_EQ(EPROTOTYPE, connect_errno(self->family, SOCK_DGRAM, &sun, len));
	close(fd);

	/* abstract: the type is part of the name's identity, so nothing is found */
	len = abstract_addr(&sun, self->family, "wrongtype-dgram", 15);
	fd = bound(self->family, SOCK_DGRAM, &sun, len);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, SOCK_STREAM, &sun, len));
	close(fd);
	len = abstract_addr(&sun, self->family, "wrongtype-seq", 13);
	fd = listener(self->family, SOCK_SEQPACKET, &sun, len, 4);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, SOCK_STREAM, &sun, len));
	EXPECT_EQ(ECONNREFUSED, connect_errno(self->family, SOCK_DGRAM, &sun, len));
	close(fd);
}

TEST_F(names, connect_bad_address)
{
	struct sockaddr_storage ss;
	struct sockaddr_un sun;
	int t, type, srv, len;

	len = abstract_addr(&sun, self->family, "badaddr", 7);
	for (t = 0; t < 2; t++) {
		type = conn_types[t];
		srv = listener(self->family, type, &sun, len, 4);
		ASSERT_LE(0, srv);
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, &sun, 0));
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, &sun, 1));
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, &sun, SUN_OFF));
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &sun, len);
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, (struct sockaddr_un *)&ss,
						sizeof(sun) + 1));
		sun.sun_family = AF_INET;
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, &sun, len));
		/* AF_UNSPEC disconnects datagram sockets only */
		sun.sun_family = AF_UNSPEC;
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, &sun, len));
		EXPECT_EQ(EINVAL, connect_errno(self->family, type, &sun, SUN_OFF));
		sun.sun_family = self->family;
		EXPECT_EQ(0, connect_errno(self->family, type, &sun, len));
		close(srv);
	}
}

TEST_F(names, connect_eisconn)
{
	struct sockaddr_un sun;
	int t, srv, cl, acc, len, sv[2];

	len = abstract_addr(&sun, self->family, "eisconn", 7);
	for (t = 0; t < 2; t++) {
		srv = listener(self->family, conn_types[t], &sun, len, 8);
		ASSERT_LE(0, srv);
		cl = connected(self->family, conn_types[t], &sun, len);
		ASSERT_LE(0, cl);
		EXPECT_EQ(EISCONN, ERRNO_OF(connect(cl, SA(&sun), len)));
		acc = accept(srv, NULL, NULL);
		ASSERT_LE(0, acc);
		EXPECT_EQ(EISCONN, ERRNO_OF(connect(acc, SA(&sun), len)));
		ASSERT_EQ(0, socketpair(self->family, conn_types[t], 0, sv));
		EXPECT_EQ(EISCONN, ERRNO_OF(connect(sv[0], SA(&sun), len)));
		close(sv[0]);
		close(sv[1]);
		close(acc);
		close(cl);
		close(srv);
	}
}

TEST_F(names, connect_from_listener)
{
	struct sockaddr_un a, b;
	int la, lb, alen, blen;

	alen = abstract_addr(&a, self->family, "listener-a", 10);
	blen = abstract_addr(&b, self->family, "listener-b", 10);
	la = listener(self->family, SOCK_STREAM, &a, alen, 4);
	lb = listener(self->family, SOCK_STREAM, &b, blen, 4);
	ASSERT_LE(0, la);
	ASSERT_LE(0, lb);
	EXPECT_EQ(EINVAL, ERRNO_OF(connect(la, SA(&b), blen)));
	EXPECT_EQ(EINVAL, ERRNO_OF(connect(la, SA(&a), alen)));
	close(la);
	close(lb);
}

/* ---- the listen backlog ---- */

TEST_F(names, backlog_nonblocking)
{
	struct sockaddr_un sun;
	int srv, c1, c2, c3, acc, len;

	len = abstract_addr(&sun, self->family, "backlog-nb", 10);
	srv = listener(self->family, SOCK_STREAM, &sun, len, 0);
	ASSERT_LE(0, srv);
	/* backlog 0 still queues one: the queue is full when longer than the backlog */
	c1 = connected(self->family, SOCK_STREAM | SOCK_NONBLOCK, &sun, len);
	ASSERT_LE(0, c1);
	c2 = socket(self->family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ASSERT_LE(0, c2);
	EXPECT_EQ(EAGAIN, ERRNO_OF(connect(c2, SA(&sun), len)));
	/* accepting makes room, and the refused socket can retry */
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(0, connect(c2, SA(&sun), len));
	c3 = socket(self->family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ASSERT_LE(0, c3);
	EXPECT_EQ(EAGAIN, ERRNO_OF(connect(c3, SA(&sun), len)));
	close(c3);
	close(acc);
	close(c2);
	close(c1);
	close(srv);
}

TEST_F(names, backlog_sndtimeo)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 20000 };
	struct sockaddr_un sun;
	int srv, c1, c2, len;

	len = abstract_addr(&sun, self->family, "backlog-timeo", 13);
	srv = listener(self->family, SOCK_STREAM, &sun, len, 0);
	ASSERT_LE(0, srv);
	c1 = connected(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, c1);
	c2 = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, c2);
	ASSERT_EQ(0, setsockopt(c2, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	/* a blocking connect waits for room, up to the send timeout */
	EXPECT_EQ(EAGAIN, ERRNO_OF(connect(c2, SA(&sun), len)));
	close(c2);
	close(c1);
	close(srv);
}

struct client_arg {
	int family;
	int type;
	struct sockaddr_un sun;
	int len;
};

/* Connects (blocking) and sends "w": 0 on success, else the failing call's errno. */
static int blocking_client(const void *p)
{
	const struct client_arg *arg = p;
	int fd = socket(arg->family, arg->type, 0);

	if (fd < 0)
		return 100;
	if (connect(fd, (const struct sockaddr *)&arg->sun, arg->len))
		return errno;
	if (send(fd, "w", 1, 0) != 1)
		return 101;
	close(fd);
	return 0;
}

TEST_F(names, backlog_blocking_connect_waits)
{
	struct client_arg arg = { .family = self->family, .type = SOCK_STREAM };
	int srv, c1, a1, a2, status;
	char buf[4];
	pid_t pid;

	arg.len = abstract_addr(&arg.sun, self->family, "backlog-wait", 12);
	srv = listener(self->family, SOCK_STREAM, &arg.sun, arg.len, 0);
	ASSERT_LE(0, srv);
	c1 = connected(self->family, SOCK_STREAM, &arg.sun, arg.len);
	ASSERT_LE(0, c1);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(blocking_client(&arg));
	/* the child blocks in connect() until accept() makes room */
	ASSERT_EQ(0, wait_until_sleeping(pid));
	a1 = accept(srv, NULL, NULL);
	ASSERT_LE(0, a1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the child's connection is the next one */
	a2 = accept(srv, NULL, NULL);
	ASSERT_LE(0, a2);
	EXPECT_EQ(1, recv(a2, buf, sizeof(buf), 0));
	EXPECT_EQ('w', buf[0]);
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(a1, buf, sizeof(buf), MSG_DONTWAIT)));
	close(a2);
	close(a1);
	close(c1);
	close(srv);
}

/* ---- accept() ---- */

TEST_F(names, accept_errors)
{
	struct sockaddr_un sun;
	int fd, t, len;

	for (t = 0; t < 2; t++) {
		/* unbound, then bound, not listening */
		fd = socket(self->family, conn_types[t], 0);
		ASSERT_LE(0, fd);
		EXPECT_EQ(EINVAL, ERRNO_OF(accept(fd, NULL, NULL)));
		len = abstract_addr(&sun, self->family, "accept-err", 10);
		ASSERT_EQ(0, bind(fd, SA(&sun), len));
		EXPECT_EQ(EINVAL, ERRNO_OF(accept(fd, NULL, NULL)));

		/* listening with O_NONBLOCK on the listener: an empty queue is EAGAIN */
		ASSERT_EQ(0, listen(fd, 4));
		ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
		EXPECT_EQ(EAGAIN, ERRNO_OF(accept(fd, NULL, NULL)));
		EXPECT_EQ(EAGAIN, ERRNO_OF(accept4(fd, NULL, NULL, SOCK_NONBLOCK)));
		close(fd);

		/* SOCK_NONBLOCK given to socket() works the same */
		len = abstract_addr(&sun, self->family, "accept-nb", 9);
		fd = listener(self->family, conn_types[t] | SOCK_NONBLOCK, &sun, len, 4);
		ASSERT_LE(0, fd);
		EXPECT_EQ(EAGAIN, ERRNO_OF(accept(fd, NULL, NULL)));
		close(fd);
	}

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EOPNOTSUPP, ERRNO_OF(accept(fd, NULL, NULL)));
	close(fd);
}

TEST_F(names, accept4_flags)
{
	struct sockaddr_un sun;
	int srv, cl, acc, len;
	char buf[4];

	len = abstract_addr(&sun, self->family, "accept4", 7);
	srv = listener(self->family, SOCK_STREAM, &sun, len, 4);
	ASSERT_LE(0, srv);
	cl = connected(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, cl);
	/* the flags apply to the new socket (accept itself follows the listener's) */
	acc = accept4(srv, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	ASSERT_LE(0, acc);
	EXPECT_EQ(O_NONBLOCK, fcntl(acc, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(FD_CLOEXEC, fcntl(acc, F_GETFD));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(acc, buf, sizeof(buf), 0)));
	EXPECT_EQ(0, fcntl(srv, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(EINVAL, ERRNO_OF(accept4(srv, NULL, NULL, O_APPEND)));
	close(acc);
	close(cl);
	close(srv);
}

TEST_F(names, accept_names)
{
	struct sockaddr_un lsun, csun, got;
	socklen_t alen;
	int srv, cl, acc, llen, clen;

	/* pathname listener, unbound client */
	llen = path_addr(&lsun, self->family, "srv");
	srv = listener(self->family, SOCK_STREAM, &lsun, llen, 4);
	ASSERT_LE(0, srv);
	cl = connected(self->family, SOCK_STREAM, &lsun, llen);
	ASSERT_LE(0, cl);
	alen = sizeof(got);
	memset(&got, 0xa5, sizeof(got));
	acc = accept(srv, SA(&got), &alen);
	ASSERT_LE(0, acc);
	/* accept()'s address is the client's: unnamed */
	EXPECT_EQ(SUN_OFF, (int)alen);
	EXPECT_EQ(self->family, got.sun_family);
	EXPECT_EQ(SUN_OFF, peer_of(acc, &got));
	EXPECT_EQ(self->family, got.sun_family);
	/* the accepted socket has the listener's name; the client sees it as its peer */
	EXPECT_EQ(llen, name_of(acc, &got));
	EXPECT_EQ(0, memcmp(&lsun, &got, llen));
	EXPECT_EQ(llen, peer_of(cl, &got));
	EXPECT_EQ(0, memcmp(&lsun, &got, llen));
	EXPECT_EQ(SUN_OFF, name_of(cl, &got));
	close(acc);
	close(cl);
	close(srv);

	/* abstract listener, bound client */
	llen = abstract_addr(&lsun, self->family, "names-srv", 9);
	clen = abstract_addr(&csun, self->family, "names-cli", 9);
	srv = listener(self->family, SOCK_SEQPACKET, &lsun, llen, 4);
	ASSERT_LE(0, srv);
	cl = bound(self->family, SOCK_SEQPACKET, &csun, clen);
	ASSERT_LE(0, cl);
	ASSERT_EQ(0, connect(cl, SA(&lsun), llen));
	alen = sizeof(got);
	acc = accept(srv, SA(&got), &alen);
	ASSERT_LE(0, acc);
	EXPECT_EQ(clen, (int)alen);
	EXPECT_EQ(0, memcmp(&csun, &got, clen));
	EXPECT_EQ(clen, peer_of(acc, &got));
	EXPECT_EQ(0, memcmp(&csun, &got, clen));
	EXPECT_EQ(llen, name_of(acc, &got));
	EXPECT_EQ(0, memcmp(&lsun, &got, llen));
	EXPECT_EQ(llen, peer_of(cl, &got));
	EXPECT_EQ(0, memcmp(&lsun, &got, llen));
	close(acc);
	close(cl);
	close(srv);
}

TEST_F(names, accept_data_both_ways)
{
	struct sockaddr_un sun;
	int t, srv, cl, acc, len;
	char buf[16];

	len = path_addr(&sun, self->family, "data");
	for (t = 0; t < 2; t++) {
		srv = listener(self->family, conn_types[t], &sun, len, 4);
		ASSERT_LE(0, srv);
		cl = connected(self->family, conn_types[t], &sun, len);
		ASSERT_LE(0, cl);
		acc = accept(srv, NULL, NULL);
		ASSERT_LE(0, acc);
		EXPECT_EQ(4, send(cl, "ping", 4, 0));
		EXPECT_EQ(4, recv(acc, buf, sizeof(buf), 0));
		EXPECT_EQ(0, memcmp(buf, "ping", 4));
		EXPECT_EQ(4, send(acc, "pong", 4, 0));
		EXPECT_EQ(4, recv(cl, buf, sizeof(buf), 0));
		EXPECT_EQ(0, memcmp(buf, "pong", 4));
		/* nothing more to read */
		EXPECT_EQ(EAGAIN, ERRNO_OF(recv(acc, buf, sizeof(buf), MSG_DONTWAIT)));
		close(acc);
		close(cl);
		close(srv);
		ASSERT_EQ(0, unlink("data"));
	}
}

TEST_F(names, peercred_same_process)
{
	struct sockaddr_un sun;
	int srv, cl, acc, len;

	len = abstract_addr(&sun, self->family, "cred", 4);
	srv = listener(self->family, SOCK_STREAM, &sun, len, 4);
	ASSERT_LE(0, srv);
	cl = connected(self->family, SOCK_STREAM, &sun, len);
	ASSERT_LE(0, cl);
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(getpid(), peer_pid(cl));
	EXPECT_EQ(getpid(), peer_pid(acc));
	close(acc);
	close(cl);
	close(srv);
}

/*
 * Connects, checks that SO_PEERCRED names the listener's process (the parent), then
 * waits for the parent's byte. Exit status: 0, or the step that failed.
 */
static int cred_client(const void *p)
{
	const struct client_arg *arg = p;
	char c;
	int fd;

	fd = socket(arg->family, arg->type, 0);
	if (fd < 0)
		return 1;
	if (connect(fd, (const struct sockaddr *)&arg->sun, arg->len))
		return 2;
	if (peer_pid(fd) != getppid())
		return 3;
	if (recv(fd, &c, 1, 0) != 1)
		return 4;
	close(fd);
	return 0;
}

TEST_F(names, peercred_forked_client)
{
	struct client_arg arg = { .family = self->family, .type = SOCK_STREAM };
	int srv, acc, status;
	pid_t pid;

	arg.len = abstract_addr(&arg.sun, self->family, "cred-fork", 9);
	srv = listener(self->family, SOCK_STREAM, &arg.sun, arg.len, 4);
	ASSERT_LE(0, srv);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(cred_client(&arg));
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(pid, peer_pid(acc));
	EXPECT_EQ(1, send(acc, "k", 1, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(acc);
	close(srv);
}

/* ---- connections that die before accept() ---- */

TEST_F(names, embryo_client_closed)
{
	struct sockaddr_un sun;
	int t, srv, cl, acc, len;
	char buf[8];

	len = abstract_addr(&sun, self->family, "embryo", 6);
	for (t = 0; t < 2; t++) {
		srv = listener(self->family, conn_types[t], &sun, len, 4);
		ASSERT_LE(0, srv);
		/* nothing sent: end of file */
		cl = connected(self->family, conn_types[t], &sun, len);
		ASSERT_LE(0, cl);
		close(cl);
		acc = accept(srv, NULL, NULL);
		ASSERT_LE(0, acc);
		EXPECT_EQ(0, recv(acc, buf, sizeof(buf), 0));
		EXPECT_EQ(EPIPE, ERRNO_OF(send(acc, "x", 1, MSG_NOSIGNAL)));
		close(acc);

		/* what was sent before the close is still there, then end of file */
		cl = connected(self->family, conn_types[t], &sun, len);
		ASSERT_LE(0, cl);
		EXPECT_EQ(3, send(cl, "bye", 3, 0));
		close(cl);
		acc = accept(srv, NULL, NULL);
		ASSERT_LE(0, acc);
		EXPECT_EQ(3, recv(acc, buf, sizeof(buf), 0));
		EXPECT_EQ(0, memcmp(buf, "bye", 3));
		EXPECT_EQ(0, recv(acc, buf, sizeof(buf), 0));
		close(acc);
		close(srv);
	}
}

TEST_F(names, listener_closed_with_pending)
{
	struct sockaddr_un sun;
	int t, srv, cl, len;
	char buf[8];

	len = abstract_addr(&sun, self->family, "pending", 7);
	for (t = 0; t < 2; t++) {
		srv = listener(self->family, conn_types[t], &sun, len, 4);
		ASSERT_LE(0, srv);
		cl = connected(self->family, conn_types[t], &sun, len);
		ASSERT_LE(0, cl);
		EXPECT_EQ(1, send(cl, "x", 1, 0));
		/* closing the listener releases the embryo: the client is reset */
		close(srv);
		EXPECT_EQ(ECONNRESET, ERRNO_OF(recv(cl, buf, sizeof(buf), 0)));
		EXPECT_EQ(0, recv(cl, buf, sizeof(buf), 0));
		EXPECT_EQ(EPIPE, ERRNO_OF(send(cl, "x", 1, MSG_NOSIGNAL)));
		/* the name is free again */
		srv = bound(self->family, conn_types[t], &sun, len);
		EXPECT_LE(0, srv);
		close(srv);
		close(cl);
	}
}

/* ---- DGRAM ---- */

TEST_F(names, dgram_connect_send_recv)
{
	struct sockaddr_un as, bs, from;
	socklen_t fromlen = sizeof(from);
	int a, b, alen, blen;
	char buf[8];

	alen = abstract_addr(&as, self->family, "dg-a", 4);
	blen = path_addr(&bs, self->family, "dg-b");
	a = bound(self->family, SOCK_DGRAM, &as, alen);
	b = bound(self->family, SOCK_DGRAM, &bs, blen);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, connect(b, SA(&as), alen));
	EXPECT_EQ(2, send(b, "hi", 2, 0));
	memset(&from, 0, sizeof(from));
	EXPECT_EQ(2, recvfrom(a, buf, sizeof(buf), 0, SA(&from), &fromlen));
	EXPECT_EQ(0, memcmp(buf, "hi", 2));
	/* the sender's pathname name, with its length */
	EXPECT_EQ(blen, (int)fromlen);
	EXPECT_EQ(0, memcmp(&bs, &from, blen));
	/* a is not connected, but may send to b, whose peer it is */
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(a, "x", 1, 0)));
	EXPECT_EQ(2, sendto(a, "ho", 2, 0, SA(&bs), blen));
	fromlen = sizeof(from);
	EXPECT_EQ(2, recvfrom(b, buf, sizeof(buf), 0, SA(&from), &fromlen));
	EXPECT_EQ(alen, (int)fromlen);
	EXPECT_EQ(0, memcmp(&as, &from, alen));
	close(a);
	close(b);
}

TEST_F(names, dgram_recvfrom_unbound_sender)
{
	struct sockaddr_un as, from;
	socklen_t fromlen = sizeof(from);
	int a, b, alen;
	char buf[8];

	alen = abstract_addr(&as, self->family, "dg-unbound", 10);
	a = bound(self->family, SOCK_DGRAM, &as, alen);
	ASSERT_LE(0, a);
	b = connected(self->family, SOCK_DGRAM, &as, alen);
	ASSERT_LE(0, b);
	EXPECT_EQ(1, send(b, "u", 1, 0));
	EXPECT_EQ(1, recvfrom(a, buf, sizeof(buf), 0, SA(&from), &fromlen));
	EXPECT_EQ(0, (int)fromlen);
	close(a);
	close(b);
}

TEST_F(names, dgram_sendto_unconnected)
{
	struct sockaddr_un ps, as, from;
	socklen_t fromlen;
	int p, a, c, plen, alen;
	char buf[8];

	plen = path_addr(&ps, self->family, "dg-path");
	alen = abstract_addr(&as, self->family, "dg-abs", 6);
	p = bound(self->family, SOCK_DGRAM, &ps, plen);
	a = bound(self->family, SOCK_DGRAM, &as, alen);
	c = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, p);
	ASSERT_LE(0, a);
	ASSERT_LE(0, c);
	EXPECT_EQ(1, sendto(c, "p", 1, 0, SA(&ps), plen));
	EXPECT_EQ(1, sendto(c, "a", 1, 0, SA(&as), alen));
	/* a bound sender */
	EXPECT_EQ(1, sendto(a, "b", 1, 0, SA(&ps), plen));
	EXPECT_EQ(1, recv(p, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('p', buf[0]);
	EXPECT_EQ(1, recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('a', buf[0]);
	fromlen = sizeof(from);
	EXPECT_EQ(1, recvfrom(p, buf, sizeof(buf), MSG_DONTWAIT, SA(&from), &fromlen));
	EXPECT_EQ('b', buf[0]);
	EXPECT_EQ(alen, (int)fromlen);
	EXPECT_EQ(0, memcmp(&as, &from, alen));
	/* still unconnected */
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(c, "x", 1, 0)));
	close(c);
	close(a);
	close(p);
}

TEST_F(names, dgram_sendto_errors)
{
	struct sockaddr_un sun;
	int fd, srv, len;

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	len = abstract_addr(&sun, self->family, "dg-nobody", 9);
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), len)));
	len = path_addr(&sun, self->family, "dg-missing");
	EXPECT_EQ(ENOENT, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), len)));
	ASSERT_EQ(0, create_file("dg-regular"));
	len = path_addr(&sun, self->family, "dg-regular");
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), len)));

	/* a STREAM socket's file */
	len = path_addr(&sun, self->family, "dg-stream");
	srv = listener(self->family, SOCK_STREAM, &sun, len, 4);
	ASSERT_LE(0, srv);
	EXPECT_EQ(EPROTOTYPE, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), len)));
	close(srv);

	/* bad addresses */
	EXPECT_EQ(EINVAL, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), 1)));
	EXPECT_EQ(EINVAL, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), SUN_OFF)));
	sun.sun_family = AF_INET;
	EXPECT_EQ(EINVAL, ERRNO_OF(sendto(fd, "x", 1, 0, SA(&sun), len)));
	close(fd);
}

TEST_F(names, dgram_connect_eperm)
{
	struct sockaddr_un as, bs, cs;
	int a, b, c, alen, blen, clen;
	char buf[8];

	alen = abstract_addr(&as, self->family, "eperm-a", 7);
	blen = abstract_addr(&bs, self->family, "eperm-b", 7);
	clen = abstract_addr(&cs, self->family, "eperm-c", 7);
	a = bound(self->family, SOCK_DGRAM, &as, alen);
	b = bound(self->family, SOCK_DGRAM, &bs, blen);
	c = bound(self->family, SOCK_DGRAM, &cs, clen);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, connect(b, SA(&as), alen));
	/* b talks to a only: c may neither send to it nor connect to it */
	EXPECT_EQ(EPERM, ERRNO_OF(sendto(c, "x", 1, 0, SA(&bs), blen)));
	EXPECT_EQ(EPERM, ERRNO_OF(connect(c, SA(&bs), blen)));
	EXPECT_EQ(1, sendto(a, "a", 1, 0, SA(&bs), blen));
	EXPECT_EQ(1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('a', buf[0]);
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(b, buf, sizeof(buf), MSG_DONTWAIT)));

	/* once b disconnects, c is welcome */
	as.sun_family = AF_UNSPEC;
	ASSERT_EQ(0, connect(b, SA(&as), SUN_OFF));
	EXPECT_EQ(1, sendto(c, "c", 1, 0, SA(&bs), blen));
	EXPECT_EQ(0, connect(c, SA(&bs), blen));
	EXPECT_EQ(1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('c', buf[0]);
	close(a);
	close(b);
	close(c);
}

TEST_F(names, dgram_reconnect)
{
	struct sockaddr_un bs, cs, got;
	int a, b, c, blen, clen;
	char buf[8];

	blen = abstract_addr(&bs, self->family, "reconn-b", 8);
	clen = path_addr(&cs, self->family, "reconn-c");
	a = socket(self->family, SOCK_DGRAM, 0);
	b = bound(self->family, SOCK_DGRAM, &bs, blen);
	c = bound(self->family, SOCK_DGRAM, &cs, clen);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, connect(a, SA(&bs), blen));
	EXPECT_EQ(1, send(a, "1", 1, 0));
	EXPECT_EQ(0, connect(a, SA(&cs), clen));
	EXPECT_EQ(1, send(a, "2", 1, 0));
	EXPECT_EQ(clen, peer_of(a, &got));
	EXPECT_EQ(0, memcmp(&cs, &got, clen));
	EXPECT_EQ(1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('1', buf[0]);
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(b, buf, sizeof(buf), MSG_DONTWAIT)));
	EXPECT_EQ(1, recv(c, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('2', buf[0]);
	close(a);
	close(b);
	close(c);
}

TEST_F(names, dgram_unspec_disconnects)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct sockaddr_un bs;
	int a, b, blen;

	blen = abstract_addr(&bs, self->family, "unspec", 6);
	b = bound(self->family, SOCK_DGRAM, &bs, blen);
	ASSERT_LE(0, b);
	a = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, a);

	/* on an unconnected socket: nothing to do */
	EXPECT_EQ(0, connect(a, &unspec, sizeof(sa_family_t)));
	EXPECT_EQ(0, connect(a, &unspec, sizeof(unspec)));

	/* family-only address */
	ASSERT_EQ(0, connect(a, SA(&bs), blen));
	EXPECT_EQ(1, send(a, "x", 1, 0));
	EXPECT_EQ(0, connect(a, &unspec, sizeof(sa_family_t)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(a, "x", 1, 0)));

	/* a whole struct sockaddr */
	ASSERT_EQ(0, connect(a, SA(&bs), blen));
	EXPECT_EQ(0, connect(a, &unspec, sizeof(unspec)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(a, "x", 1, 0)));

	/* too short to hold a family: EINVAL, and the connection stays */
	ASSERT_EQ(0, connect(a, SA(&bs), blen));
	EXPECT_EQ(EINVAL, ERRNO_OF(connect(a, &unspec, 1)));
	EXPECT_EQ(EINVAL, ERRNO_OF(connect(a, SA(&bs), 1)));
	EXPECT_EQ(EINVAL, ERRNO_OF(connect(a, SA(&bs), 0)));
	EXPECT_EQ(EINVAL, ERRNO_OF(connect(a, SA(&bs), SUN_OFF)));
	EXPECT_EQ(1, send(a, "y", 1, 0));
	close(a);
	close(b);
}

TEST_F(names, dgram_getpeername)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct sockaddr_un bs, got;
	int a, b, blen;

	blen = path_addr(&bs, self->family, "peer");
	b = bound(self->family, SOCK_DGRAM, &bs, blen);
	ASSERT_LE(0, b);
	a = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, a);
	EXPECT_EQ(-1, peer_of(a, &got));
	EXPECT_EQ(ENOTCONN, errno);
	ASSERT_EQ(0, connect(a, SA(&bs), blen));
	EXPECT_EQ(blen, peer_of(a, &got));
	EXPECT_EQ(0, memcmp(&bs, &got, blen));
	/* connecting is one-sided */
	EXPECT_EQ(-1, peer_of(b, &got));
	EXPECT_EQ(ENOTCONN, errno);
	ASSERT_EQ(0, connect(a, &unspec, sizeof(unspec)));
	EXPECT_EQ(-1, peer_of(a, &got));
	EXPECT_EQ(ENOTCONN, errno);
	close(a);
	close(b);
}

/* ---- network namespaces ---- */

/* Exit status of a netns child that could not set itself up. */
#define NETNS_SETUP_FAILED 200

/* In a new netns: binds the name twice, expecting 0 then EADDRINUSE. */
static int bind_in_new_netns(const void *p)
{
	const struct client_arg *arg = p;
	int a, b;

	if (unshare(CLONE_NEWNET))
		return NETNS_SETUP_FAILED;
	a = socket(arg->family, arg->type, 0);
	b = socket(arg->family, arg->type, 0);
	if (a < 0 || b < 0)
		return NETNS_SETUP_FAILED;
	if (bind(a, (const struct sockaddr *)&arg->sun, arg->len))
		return 1;
	if (ERRNO_OF(bind(b, (const struct sockaddr *)&arg->sun, arg->len)) != EADDRINUSE)
		return 2;
	return 0;
}

TEST_F(names, netns_abstract_name_per_netns)
{
	struct client_arg arg = { .family = self->family };
	int t, fd;

	arg.len = abstract_addr(&arg.sun, self->family, "netns-name", 10);
	for (t = 0; t < 2; t++) {
		arg.type = t ? SOCK_DGRAM : SOCK_STREAM;
		fd = bound(self->family, arg.type, &arg.sun, arg.len);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, in_child(bind_in_new_netns, &arg));
		/* and it is still taken here */
		EXPECT_EQ(EADDRINUSE, ERRNO_OF(bound(self->family, arg.type, &arg.sun, arg.len)));
		close(fd);
	}
}

/* In a new netns: connect()'s errno (0 on success); a connection sends "n". */
static int connect_from_new_netns(const void *p)
{
	const struct client_arg *arg = p;
	int fd;

	if (unshare(CLONE_NEWNET))
		return NETNS_SETUP_FAILED;
	fd = socket(arg->family, arg->type, 0);
	if (fd < 0)
		return NETNS_SETUP_FAILED;
	if (connect(fd, (const struct sockaddr *)&arg->sun, arg->len))
		return errno;
	if (send(fd, "n", 1, 0) != 1)
		return NETNS_SETUP_FAILED + 1;
	return 0;
}

/* In a new netns: sendto()'s errno (0 on success). */
static int sendto_from_new_netns(const void *p)
{
	const struct client_arg *arg = p;
	int fd;

	if (unshare(CLONE_NEWNET))
		return NETNS_SETUP_FAILED;
	fd = socket(arg->family, SOCK_DGRAM, 0);
	if (fd < 0)
		return NETNS_SETUP_FAILED;
	if (sendto(fd, "n", 1, 0, (const struct sockaddr *)&arg->sun, arg->len) != 1)
		return errno;
	return 0;
}

TEST_F(names, netns_pathname_reachable)
{
	struct client_arg arg = { .family = self->family, .type = SOCK_STREAM };
	int srv, dsrv, acc;
	char buf[4];

	arg.len = path_addr(&arg.sun, self->family, "netns-stream");
	srv = listener(self->family, SOCK_STREAM, &arg.sun, arg.len, 4);
	ASSERT_LE(0, srv);
	EXPECT_EQ(0, in_child(connect_from_new_netns, &arg));
	acc = accept(srv, NULL, NULL);
	ASSERT_LE(0, acc);
	EXPECT_EQ(1, recv(acc, buf, sizeof(buf), 0));
	EXPECT_EQ('n', buf[0]);
	close(acc);
	close(srv);

	arg.type = SOCK_DGRAM;
	arg.len = path_addr(&arg.sun, self->family, "netns-dgram");
	dsrv = bound(self->family, SOCK_DGRAM, &arg.sun, arg.len);
	ASSERT_LE(0, dsrv);
	EXPECT_EQ(0, in_child(connect_from_new_netns, &arg));
	EXPECT_EQ(0, in_child(sendto_from_new_netns, &arg));
	EXPECT_EQ(1, recv(dsrv, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(1, recv(dsrv, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ('n', buf[0]);
	close(dsrv);
}

TEST_F(names, netns_abstract_unreachable)
{
	struct client_arg arg = { .family = self->family, .type = SOCK_STREAM };
	int srv, dsrv;

	arg.len = abstract_addr(&arg.sun, self->family, "netns-stream", 12);
	srv = listener(self->family, SOCK_STREAM, &arg.sun, arg.len, 4);
	ASSERT_LE(0, srv);
	EXPECT_EQ(ECONNREFUSED, in_child(connect_from_new_netns, &arg));
	/* reachable from here, of course */
	EXPECT_EQ(0, connect_errno(self->family, SOCK_STREAM, &arg.sun, arg.len));
	close(srv);

	arg.type = SOCK_DGRAM;
	arg.len = abstract_addr(&arg.sun, self->family, "netns-dgram", 11);
	dsrv = bound(self->family, SOCK_DGRAM, &arg.sun, arg.len);
	ASSERT_LE(0, dsrv);
	EXPECT_EQ(ECONNREFUSED, in_child(connect_from_new_netns, &arg));
	EXPECT_EQ(ECONNREFUSED, in_child(sendto_from_new_netns, &arg));
	close(dsrv);
}

/* ---- A datagram receiver's full queue (max_dgram_qlen, default 10) ---- */

static int poll_out_fd = -1;

/* Waits for POLLOUT on poll_out_fd: 0 once writable, 1 if 20 s pass (lost wakeup). */
static int wait_pollout(const void *p)
{
	struct pollfd pfd = { .fd = poll_out_fd, .events = POLLOUT };

	return poll(&pfd, 1, 20000) == 1 && (pfd.revents & POLLOUT) ? 0 : 1;
}

/* A blocking send on poll_out_fd: 0 once it went through. */
static int blocking_send(const void *p)
{
	return send(poll_out_fd, "b", 1, 0) == 1 ? 0 : 1;
}

/*
 * S is bound and connected to nobody; C1 and C2 are connected to S. C1 fills S's
 * queue; C2 is then not writable either (EAGAIN, no POLLOUT). When S reads, a task
 * polling C2 for POLLOUT must wake up (AF_UNIX's peer_wake relay), and a blocked
 * sender must go through.
 */
TEST_F(names, dgram_full_receiver_wakes_pollers)
{
	struct pollfd pfd = { .events = POLLOUT };
	struct sockaddr_un sun;
	int s, c1, c2, i, n, len, status, round;
	char buf[8];
	pid_t pid;

	len = abstract_addr(&sun, self->family, "full-recv", 9);
	s = bound(self->family, SOCK_DGRAM, &sun, len);
	ASSERT_LE(0, s);
	c1 = connected(self->family, SOCK_DGRAM, &sun, len);
	c2 = connected(self->family, SOCK_DGRAM, &sun, len);
	ASSERT_LE(0, c1);
	ASSERT_LE(0, c2);
	for (round = 0; round < 2; round++) {
		/* fill S's queue from C1 until EAGAIN */
		for (n = 0; n < 1000; n++)
			if (send(c1, "x", 1, MSG_DONTWAIT) != 1)
				break;
		EXPECT_EQ(EAGAIN, errno);
		EXPECT_EQ(11, n);
		EXPECT_EQ(EAGAIN, ERRNO_OF(send(c2, "y", 1, MSG_DONTWAIT)));
		pfd.fd = c2;
		EXPECT_EQ(0, poll(&pfd, 1, 0));

		poll_out_fd = c2;
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(round ? blocking_send(NULL) : wait_pollout(NULL));
		ASSERT_EQ(0, wait_until_sleeping(pid));
		/* one read makes room */
		EXPECT_EQ(1, recv(s, buf, sizeof(buf), 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		/* drain */
		for (i = 0; i < 1000; i++)
			if (recv(s, buf, sizeof(buf), MSG_DONTWAIT) < 0)
				break;
		EXPECT_EQ(EAGAIN, errno);
		EXPECT_EQ(1, poll(&pfd, 1, 0));
	}
	close(c1);
	close(c2);
	close(s);
}

/* ---- /proc/net ---- */

/*
 * The variant's /proc/net file lists the sockets of the reader's netns in AF_UNIX's
 * format. In a new netns, with a known set of sockets, the lines without the columns
 * that vary (pointer, refcount, inode) are compared with what AF_UNIX shows (sorted).
 */
static const char *const proc_expected[] = {
	"00000000 00000000 0001 02 @proc-l",	/* the embryo: listener's name */
	"00000000 00000000 0001 03",		/* the connected client */
	"00000000 00000000 0002 01 @a@b",	/* an abstract name with a NUL */
	"00000000 00000000 0002 01 procdg",	/* a pathname datagram socket */
	"00000000 00000000 0005 01",		/* an unbound seqpacket socket */
	"00000000 00010000 0001 01 @proc-l",	/* the listener */
};

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int proc_in_new_netns(const void *p)
{
	const char *header = "Num       RefCount Protocol Flags    Type St Inode Path\n";
	char line[512], *lines[16], f[8][128];
	int family = *(const int *)p, n = 0, i, k;
	struct sockaddr_un sun;
	int len, l, fds[8];
	FILE *f_in;

	if (unshare(CLONE_NEWNET))
		return 100;
	len = abstract_addr(&sun, family, "proc-l", 6);
	fds[0] = listener(family, SOCK_STREAM, &sun, len, 4);
	fds[1] = connected(family, SOCK_STREAM, &sun, len);
	len = path_addr(&sun, family, "procdg");
	fds[2] = bound(family, SOCK_DGRAM, &sun, len);
	len = abstract_addr(&sun, family, "a\0b", 3);
	fds[3] = bound(family, SOCK_DGRAM, &sun, len);
	fds[4] = socket(family, SOCK_SEQPACKET, 0);
	for (i = 0; i < 5; i++)
		if (fds[i] < 0)
			return 101;
	f_in = fopen(family == AF_UNIX ? "/proc/net/unix" : "/proc/net/rust_afunix", "r");
	if (!f_in || !fgets(line, sizeof(line), f_in))
		return 102;
	if (strcmp(line, header))
		return 103;
	while (fgets(line, sizeof(line), f_in)) {
		for (i = 0; i < 8; i++)
			f[i][0] = 0;
		k = sscanf(line, "%127s %127s %127s %127s %127s %127s %127s %127s",
			   f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
		if (k < 7 || n == 16)
			return 104;
		l = strlen(f[0]);
		if (l < 2 || f[0][l - 1] != ':')
			return 105;
		lines[n] = malloc(600);
		snprintf(lines[n], 600, "%s %s %s %s%s%s", f[2], f[3], f[4], f[5],
			 k == 8 ? " " : "", f[7]);
		n++;
	}
	fclose(f_in);
	if (n != (int)ARRAY_SIZE(proc_expected))
		return 106;
	qsort(lines, n, sizeof(lines[0]), cmp_lines);
	for (i = 0; i < n; i++)
		if (strcmp(lines[i], proc_expected[i]))
			return 110 + i;
	return 0;
}

TEST_F(names, proc_net_table)
{
	EXPECT_EQ(0, in_child(proc_in_new_netns, &self->family));
}

/* Many sockets: the listing spans several reads (seq_file restarts) and all buckets. */
static int proc_many_in_new_netns(const void *p)
{
	int family = *(const int *)p, i, n = 0, fd;
	static bool seen[500];
	struct sockaddr_un sun;
	char line[512], name[16];
	FILE *f_in;

	if (unshare(CLONE_NEWNET))
		return 100;
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "m%03d", i);
		fd = bound(family, SOCK_DGRAM, &sun, abstract_addr(&sun, family, name, 4));
		if (fd < 0)
			return 101;
	}
	f_in = fopen(family == AF_UNIX ? "/proc/net/unix" : "/proc/net/rust_afunix", "r");
	if (!f_in)
		return 102;
	while (fgets(line, sizeof(line), f_in)) {
		char *at = strstr(line, " @m");

		if (!at)
			continue;
		i = atoi(at + 3);
		if (i < 0 || i >= 500 || seen[i])
			return 103;
		seen[i] = true;
		n++;
	}
	fclose(f_in);
	return n == 500 ? 0 : 104;
}

TEST_F(names, proc_net_many)
{
	EXPECT_EQ(0, in_child(proc_many_in_new_netns, &self->family));
}

/*
 * Many abstract (or pathname) names, bound by two processes at once: every name stays
 * reachable and taken, /proc lists each once, closed names are gone. On the module this
 * is where the abstract half of the table (net.rust_afunix.abstract_buckets), or the
 * global pathname table (pathname_buckets), grows, resized by a work item while both
 * bind, and shrinks back when the names go.
 */
#define MANY 700
#define ABS_BUCKETS "/proc/sys/net/rust_afunix/abstract_buckets"
#define PATH_BUCKETS "/proc/sys/net/rust_afunix/pathname_buckets"

/* Pathnames (in the working directory, a tmpfs) rather than abstract names. */
static bool many_path;

static int many_name(struct sockaddr_un *sun, int family, char who, int i)
{
	char name[8];

	snprintf(name, sizeof(name), "%c%05d", who, i);
	if (many_path)
		return path_addr(sun, family, name);
	return abstract_addr(sun, family, name, 6);
}

/* Closes the MANY sockets in `fds` and removes their socket files, if any. */
static void close_many(int family, char who, int *fds)
{
	struct sockaddr_un sun;
	int i;

	for (i = 0; i < MANY; i++) {
		close(fds[i]);
		if (many_path) {
			many_name(&sun, family, who, i);
			unlink(sun.sun_path);
		}
	}
}

/* Binds MANY datagram sockets to names `who`00000..; their fds in `fds`. */
static int bind_many(int family, char who, int *fds)
{
	struct sockaddr_un sun;
	int i;

	for (i = 0; i < MANY; i++) {
		int len = many_name(&sun, family, who, i);

		if (many_path)
			unlink(sun.sun_path);
		fds[i] = bound(family, SOCK_DGRAM, &sun, len);
		if (fds[i] < 0)
			return -1;
	}
	return 0;
}

/* 0 if every name `who`* is reachable (connect) and taken (bind), or none is if !live. */
static int check_many(int family, char who, bool live)
{
	int fd = socket(family, SOCK_DGRAM, 0), i, err = 0;
	struct sockaddr_un sun;

	for (i = 0; i < MANY && !err; i++) {
		int len = many_name(&sun, family, who, i), other;

		/* A datagram connect looks the name up and queues nothing. */
		/* A removed socket file is gone with its name. */
		if (ERRNO_OF(connect(fd, SA(&sun), len)) !=
		    (live ? 0 : many_path ? ENOENT : ECONNREFUSED))
			err = 1;
		/* A new socket per bind is the slow part under the debug kernel: a sample. */
		if (i % 8)
			continue;
		other = bound(family, SOCK_DGRAM, &sun, len);
		if ((other >= 0) == live)
			err = 2;
		if (other >= 0)
			close(other);
		if (other >= 0 && many_path)
			unlink(sun.sun_path);
	}
	close(fd);
	return err;
}

/* Waits (polling, bounded) until the table's chains number `want`. */
static bool buckets_become(int want)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	int i;

	for (i = 0; i < 60000; i++) {
		if (read_int_file(many_path ? PATH_BUCKETS : ABS_BUCKETS) == want)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

/* The names `who`* that /proc lists, each seen at most once; -1 on a duplicate. */
static int proc_count(int family, char who)
{
	static bool seen[MANY];
	char line[512], pat[4] = { ' ', '@', who };
	size_t plen;
	int n = 0, i;
	FILE *f;

	memset(seen, 0, sizeof(seen));
	if (many_path) {
		pat[1] = who;
		pat[2] = 0;
	}
	plen = strlen(pat);
	f = fopen(family == AF_UNIX ? "/proc/net/unix" : "/proc/net/rust_afunix", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, pat);

		if (!at)
			continue;
		i = atoi(at + plen);
		if (i < 0 || i >= MANY || seen[i]) {
			n = -1;
			break;
		}
		seen[i] = true;
		n++;
	}
	fclose(f);
	return n;
}

static int many_in_new_netns(const void *p)
{
	int family = *(const int *)p, go[2], done[2], status;
	struct rlimit rl = { 2 * MANY + 64, 2 * MANY + 64 };
	bool ours = family != AF_UNIX;
	static int fds[MANY];
	char c = 0;
	pid_t pid;

	if (setrlimit(RLIMIT_NOFILE, &rl) || unshare(CLONE_NEWNET) || pipe(go) || pipe(done))
		return 100;
	if (ours && read_int_file(many_path ? PATH_BUCKETS : ABS_BUCKETS) != 256)
		return 101;
	pid = fork();
	if (pid < 0)
		return 102;
	if (!pid) {
		/* Binds with the parent, reports, and keeps its names until told to go. */
		close(go[1]);
		close(done[0]);
		c = bind_many(family, 'c', fds) ? 'e' : 'k';
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		close_many(family, 'c', fds);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	if (bind_many(family, 'p', fds))
		return 103;
	/*
	 * While the child may still bind (and the table resize), list /proc: a listing
	 * that races a resize may repeat or skip a socket (as AF_UNIX's under churn), but
	 * it must not crash or invent sockets.
	 */
	if (fcntl(done[0], F_SETFL, O_NONBLOCK))
		return 113;
	while (read(done[0], &c, 1) < 0 && errno == EAGAIN) {
		if (proc_count(family, 'c') > MANY || proc_count(family, 'p') > MANY)
			return 114;
	}
	if (c != 'k')
		return 104;
	if (check_many(family, 'p', true) || check_many(family, 'c', true))
		return 105;
	if (ours && !buckets_become(2048))
		return 106;
	if (proc_count(family, 'p') != MANY || proc_count(family, 'c') != MANY)
		return 107;
	/* Still all there once the resize is over. */
	if (check_many(family, 'p', true) || check_many(family, 'c', true))
		return 108;
	close_many(family, 'p', fds);
	if (check_many(family, 'p', false) || check_many(family, 'c', true))
		return 109;
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 110;
	if (check_many(family, 'c', false) || proc_count(family, 'c') != 0)
		return 111;
	if (ours && !buckets_become(256))
		return 112;
	return 0;
}

TEST_F_TIMEOUT(names, abstract_many_names, 300)
{
	EXPECT_EQ(0, in_child(many_in_new_netns, &self->family));
}

/* The same with pathnames: the global pathname table grows and shrinks. */
TEST_F_TIMEOUT(names, pathname_many_names, 300)
{
	many_path = true;
	EXPECT_EQ(0, in_child(many_in_new_netns, &self->family));
}

/*
 * A netns that goes while its abstract table resizes (issue 35): its exit cancels, or
 * waits for, its own resize only. Each time, a child in a new netns binds 300 abstract
 * names (past 256 the table grows) and exits with them at once (the close of the names
 * may queue a shrink); on both families the binds succeed. The kernel checks the rest
 * after make check: no splat, no hung task, no table leaked by a cancelled resize.
 */
static int resize_exit_in_new_netns(const void *p)
{
	int family = *(const int *)p, i;
	struct sockaddr_un sun;
	char name[8];

	if (unshare(CLONE_NEWNET))
		return NETNS_SETUP_FAILED;
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "x%05d", i);
		if (bound(family, SOCK_DGRAM, &sun, abstract_addr(&sun, family, name, 6)) < 0)
			return 1;
	}
	return 0;
}

TEST_F_TIMEOUT(names, netns_exit_while_resizing, 300)
{
	int i;

	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, in_child(resize_exit_in_new_netns, &self->family)) TH_LOG("round %d", i);
}

TEST_HARNESS_MAIN
