// SPDX-License-Identifier: GPL-2.0
/*
 * A 32-bit process on both families (built with -m32, run on the 64-bit test kernel
 * through IA32_EMULATION): the ioctls reach the family through compat_ioctl()
 * (SIOCUNIXFILE has no generic translation: without compat_ioctl a 32-bit caller gets
 * ENOTTY), and the control messages a receive writes come back in the compat layout
 * (MSG_CMSG_COMPAT: 12-byte cmsghdr, 4-byte alignment, 32-bit timeval). Expected values
 * are AF_UNIX's on 6.12; the control-message scenario is also compared byte by byte
 * between the two families.
 */
#include "common.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"

#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE (SIOCPROTOPRIVATE + 0)
#endif

/* A 32-bit build is the point of the program: refuse to build it otherwise. */
_Static_assert(sizeof(long) == 4, "compat32 must be built with -m32");

FIXTURE(compat32)
{
	int family;
	char cwd[PATH_MAX];
	char dir[PATH_MAX];
};

FIXTURE_VARIANT(compat32)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(compat32, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(compat32, rust_afunix)
{
	.ours = true,
};

FIXTURE_SETUP(compat32)
{
	char tmpl[] = "compat32.XXXXXX";

	self->family = variant_family(variant->ours);
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	ASSERT_EQ(0, enter_private_dir(tmpl, self->cwd, self->dir));
}

FIXTURE_TEARDOWN(compat32)
{
	leave_private_dir(self->cwd, self->dir);
}

static int bind_path(int fd, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	return bind(fd, SA(&sun), sizeof(sun));
}

/* SIOCINQ, SIOCOUTQ, SIOCATMARK, SIOCUNIXFILE and an unknown command, from 32 bits. */
TEST_F(compat32, ioctls)
{
	struct stat st, fst;
	int sv[2], fd, f, v;
	char c = 'x';

	/* datagram: SIOCINQ is the next datagram's length; SIOCOUTQ the bytes in flight */
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, sv));
	ASSERT_EQ(5, send(sv[0], "hello", 5, 0));
	ASSERT_EQ(3, send(sv[0], "abc", 3, 0));
	v = -1;
	ASSERT_EQ(0, ioctl(sv[1], SIOCINQ, &v));
	EXPECT_EQ(5, v);
	v = -1;
	ASSERT_EQ(0, ioctl(sv[0], SIOCOUTQ, &v));
	EXPECT_LT(8, v);	/* skb truesize, the same sequence on both families */
	EXPECT_EQ(EOPNOTSUPP, ERRNO_OF(ioctl(sv[1], SIOCATMARK, &v)));
	/* a bad user pointer of the 32-bit address space */
	EXPECT_EQ(EFAULT, ERRNO_OF(ioctl(sv[1], SIOCINQ, (int *)16)));
	/* a protocol-private command the family does not know */
	EXPECT_EQ(ENOTTY, ERRNO_OF(ioctl(sv[1], SIOCPROTOPRIVATE + 5, &v)));
	/* an unbound socket has no inode */
	EXPECT_EQ(ENOENT, ERRNO_OF(ioctl(sv[1], SIOCUNIXFILE, 0)));
	close_pair(sv);

	/* stream: SIOCINQ is all the bytes; SIOCATMARK at the out-of-band byte */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	ASSERT_EQ(4, send(sv[0], "data", 4, 0));
	ASSERT_EQ(1, send(sv[0], &c, 1, MSG_OOB));
	v = -1;
	ASSERT_EQ(0, ioctl(sv[1], SIOCINQ, &v));
	EXPECT_EQ(5, v);	/* 6.12 counts the out-of-band byte too */
	v = -1;
	ASSERT_EQ(0, ioctl(sv[1], SIOCATMARK, &v));
	EXPECT_EQ(0, v);
	char buf[8];

	ASSERT_EQ(4, recv(sv[1], buf, sizeof(buf), 0));
	v = -1;
	ASSERT_EQ(0, ioctl(sv[1], SIOCATMARK, &v));
	EXPECT_EQ(1, v);
	close_pair(sv);

	/* SIOCUNIXFILE: an O_PATH fd of the socket's inode */
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind_path(fd, "c32"));
	ASSERT_EQ(0, stat("c32", &st));
	f = ioctl(fd, SIOCUNIXFILE, 0);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fstat(f, &fst));
	EXPECT_EQ(st.st_ino, fst.st_ino);
	EXPECT_EQ(st.st_dev, fst.st_dev);
	EXPECT_EQ(O_PATH, fcntl(f, F_GETFL) & O_PATH);
	EXPECT_EQ(FD_CLOEXEC, fcntl(f, F_GETFD));
	close(f);
	close(fd);

	/* a listener: SIOCINQ is EINVAL */
	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind_path(fd, "c32l"));
	ASSERT_EQ(0, listen(fd, 1));
	EXPECT_EQ(EINVAL, ERRNO_OF(ioctl(fd, SIOCINQ, &v)));
	close(fd);
}

/*
 * The realtime clock's second, as the stamps read it: time() reads the coarse clock,
 * which lags a stamp taken just after a second begins by up to a tick.
 */
static time_t now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/*
 * One receive of `sv[1]` with a control buffer of `clen` bytes: notes the return,
 * msg_flags, msg_controllen and every control message's header, and for SCM_RIGHTS
 * each fd's flags and access mode (closing it), for SCM_CREDENTIALS the
 * credentials against the caller's, for SCM_TIMESTAMP(NS) whether the stamp lies
 * between `before` and now.
 */
static void recv_cmsgs(struct trace *t, int fd, size_t clen, time_t before)
{
	char data[16], cbuf[256];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = clen,
	};
	struct cmsghdr *c;

	memset(cbuf, 0, sizeof(cbuf));
	note(t, recvmsg(fd, &m, MSG_DONTWAIT));
	note(t, m.msg_flags);
	note(t, m.msg_controllen);
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		note(t, c->cmsg_level);
		note(t, c->cmsg_type);
		note(t, c->cmsg_len);
		note(t, (char *)CMSG_DATA(c) - (char *)c);
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_RIGHTS) {
			int *fds = (int *)CMSG_DATA(c);
			size_t i, n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (i = 0; i < n; i++) {
				note(t, fcntl(fds[i], F_GETFD));
				note(t, fcntl(fds[i], F_GETFL) & O_ACCMODE);
				close(fds[i]);
			}
		} else if (c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred u;

			memcpy(&u, CMSG_DATA(c), sizeof(u));
			note(t, u.pid == getpid());
			note(t, u.uid == getuid());
			note(t, u.gid == getgid());
		} else if (c->cmsg_type == SO_TIMESTAMP) {
			struct timeval tv;

			memcpy(&tv, CMSG_DATA(c), sizeof(tv));
			note(t, tv.tv_sec >= before && tv.tv_sec <= now_sec() &&
				tv.tv_usec >= 0 && tv.tv_usec < 1000000);
		} else if (c->cmsg_type == SO_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			note(t, ts.tv_sec >= before && ts.tv_sec <= now_sec() &&
				ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
		}
	}
}

/* Sends "msg" with `nfds` write ends of a new pipe each (the read ends closed). */
static void send_fds(struct trace *t, int fd, int nfds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { "msg", 3 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int p[2], fds[8], i;
	struct cmsghdr *c;

	for (i = 0; i < nfds; i++) {
		if (pipe(p)) {
			note(t, -1);
			return;
		}
		close(p[0]);
		fds[i] = p[1];
	}
	if (nfds) {
		m.msg_control = cbuf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	note(t, sendmsg(fd, &m, 0));
	for (i = 0; i < nfds; i++)
		close(fds[i]);
}

static void cmsg_scenario(int family, struct trace *t)
{
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET, SOCK_STREAM };
	time_t before = time(NULL);
	int one = 1, sv[2];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		note(t, socketpair(family, types[i], 0, sv));
		/* fds, whole and cut short by a small buffer */
		send_fds(t, sv[0], 3);
		recv_cmsgs(t, sv[1], 256, before);
		send_fds(t, sv[0], 3);
		recv_cmsgs(t, sv[1], CMSG_SPACE(sizeof(int)), before);
		send_fds(t, sv[0], 1);
		recv_cmsgs(t, sv[1], 0, before);
		/* credentials, then credentials with fds */
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)));
		send_fds(t, sv[0], 0);
		recv_cmsgs(t, sv[1], 256, before);
		send_fds(t, sv[0], 2);
		recv_cmsgs(t, sv[1], 256, before);
		send_fds(t, sv[0], 0);
		recv_cmsgs(t, sv[1], CMSG_SPACE(sizeof(struct ucred)) - 1, before);
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &(int){ 0 }, sizeof(int)));
		/* timestamps: 32-bit timeval and timespec (datagram and seqpacket) */
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one)));
		send_fds(t, sv[0], 0);
		recv_cmsgs(t, sv[1], 256, before);
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)));
		send_fds(t, sv[0], 1);
		recv_cmsgs(t, sv[1], 256, before);
		close_pair(sv);
	}
}

/* Control messages in the 32-bit layout: identical on the two families. */
TEST(cmsg_layout)
{
	static struct trace u, o;

	RUN_BOTH(cmsg_scenario, &u, &o);
	/* spot checks against AF_UNIX's values: the first receive, 3 fds */
	ASSERT_LT(9, u.n);
	EXPECT_EQ(3, u.v[2]);			/* recvmsg */
	EXPECT_EQ(0, u.v[3]);			/* msg_flags */
	EXPECT_EQ(12 + 3 * 4, u.v[4]);		/* controllen: compat cmsghdr + 3 ints */
	EXPECT_EQ(SOL_SOCKET, u.v[5]);
	EXPECT_EQ(SCM_RIGHTS, u.v[6]);
	EXPECT_EQ(12 + 3 * 4, u.v[7]);		/* cmsg_len */
	EXPECT_EQ(12, u.v[8]);			/* CMSG_DATA offset */
	EXPECT_SAME_TRACE(&u, &o);
}

TEST_HARNESS_MAIN
