// SPDX-License-Identifier: GPL-2.0
/*
 * MSG_OOB on both families, differentially (the kernel's msg_oob.c, run by `upstream`,
 * covers the reads against TCP): each scenario runs once on AF_UNIX and once on the
 * module's family in the same test, and every return value, errno, flag, poll mask and
 * byte must be the same. The out-of-band byte with SCM_RIGHTS (its fd is not delivered
 * by recv(MSG_OOB) and is released when the byte is passed over), poll's POLLPRI and
 * select's except set, SIOCATMARK around the mark, MSG_OOB on datagram and seqpacket
 * sockets and with 0 bytes (EOPNOTSUPP), recv(MSG_OOB) without a mark (EINVAL), a
 * close after the mark was read (no ECONNRESET for the peer) and with it unread.
 */
#include "common.h"
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/select.h>

#include "kselftest_harness.h"

static long pollmask(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI | POLLOUT };

	return poll(&p, 1, 0) < 0 ? -errno : p.revents;
}

static long except_set(int fd)
{
	struct timeval tv = { 0 };
	fd_set ex;

	FD_ZERO(&ex);
	FD_SET(fd, &ex);
	return select(fd + 1, NULL, NULL, &ex, &tv) < 0 ? -errno : FD_ISSET(fd, &ex);
}

static long atmark(int fd)
{
	int a = -1;

	return ioctl(fd, SIOCATMARK, &a) < 0 ? -errno : a;
}

static long send_oob_fd(int fd, int pass)
{
	return send_one_fd(fd, "Z", pass, MSG_OOB | MSG_DONTWAIT);
}

/* recvmsg with room for one fd: returns bytes, notes flags and fds received. */
static void recv_note(struct trace *t, int fd, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char data[16] = { 0 };
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	long r = recvmsg(fd, &mh, flags | MSG_DONTWAIT);

	note(t, r);
	if (r < 0)
		return;
	note(t, mh.msg_flags);
	note(t, mh.msg_controllen);
	note(t, data[0]);
	if (mh.msg_controllen >= CMSG_LEN(sizeof(int))) {
		int got;

		memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
		close(got);
	}
}

static void scenario(int family, struct trace *t)
{
	int sv[2], p[2], t2;
	char buf[4];

	memset(t, 0, sizeof(*t));
	if (socketpair(family, SOCK_STREAM, 0, sv) || pipe(p))
		return note(t, -1000);
	note(t, pollmask(sv[1]));
	note(t, except_set(sv[1]));
	note(t, atmark(sv[1]));
	note(t, recv(sv[1], buf, sizeof(buf), MSG_OOB | MSG_DONTWAIT));
	note(t, send(sv[0], "", 0, MSG_OOB));
	note(t, send(sv[0], "ab", 2, MSG_DONTWAIT));
	/* the out-of-band byte carries the pipe's read end */
	note(t, send_oob_fd(sv[0], p[0]));
	note(t, pollmask(sv[1]));
	note(t, except_set(sv[1]));
	note(t, atmark(sv[1]));
	recv_note(t, sv[1], MSG_OOB | MSG_PEEK);
	recv_note(t, sv[1], MSG_OOB);
	note(t, pollmask(sv[1]));
	note(t, atmark(sv[1]));
	recv_note(t, sv[1], 0);
	note(t, atmark(sv[1]));
	recv_note(t, sv[1], MSG_OOB);
	/* a mark passed over by a normal read: its fd is released, not delivered */
	note(t, send(sv[0], "c", 1, MSG_DONTWAIT));
	note(t, send_oob_fd(sv[0], p[1]));
	note(t, send(sv[0], "d", 1, MSG_DONTWAIT));
	recv_note(t, sv[1], 0);
	note(t, atmark(sv[1]));
	recv_note(t, sv[1], 0);
	recv_note(t, sv[1], 0);
	/* the read mark consumed: no ECONNRESET at close */
	note(t, send(sv[0], "e", 1, MSG_OOB | MSG_DONTWAIT));
	recv_note(t, sv[1], MSG_OOB);
	close(sv[1]);
	note(t, send(sv[0], "f", 1, MSG_DONTWAIT | MSG_NOSIGNAL));
	t2 = 0;
	note(t, getsockopt(sv[0], SOL_SOCKET, SO_ERROR, &t2, &(socklen_t){ sizeof(t2) }));
	note(t, t2);
	close(sv[0]);
	/* a mark left unread: ECONNRESET */
	if (socketpair(family, SOCK_STREAM, 0, sv))
		return note(t, -1001);
	note(t, send(sv[0], "g", 1, MSG_OOB | MSG_DONTWAIT));
	close(sv[1]);
	t2 = 0;
	note(t, getsockopt(sv[0], SOL_SOCKET, SO_ERROR, &t2, &(socklen_t){ sizeof(t2) }));
	note(t, t2);
	close(sv[0]);
	/* datagram and seqpacket: EOPNOTSUPP both ways, SIOCATMARK too */
	for (t2 = SOCK_DGRAM; t2 <= SOCK_SEQPACKET; t2 += SOCK_SEQPACKET - SOCK_DGRAM) {
		if (socketpair(family, t2, 0, sv))
			return note(t, -1002);
		note(t, send(sv[0], "h", 1, MSG_OOB | MSG_DONTWAIT));
		note(t, recv(sv[1], buf, sizeof(buf), MSG_OOB | MSG_DONTWAIT));
		note(t, atmark(sv[1]));
		close(sv[0]);
		close(sv[1]);
	}
	close(p[0]);
	close(p[1]);
}

TEST(oob_differential)
{
	static struct trace u, o;
	int i;

	signal(SIGPIPE, SIG_IGN);
	RUN_BOTH(scenario, &u, &o);
	ASSERT_EQ(u.n, o.n);
	for (i = 0; i < u.n; i++)
		EXPECT_EQ(u.v[i], o.v[i]) TH_LOG("step %d", i);
	/* and AF_UNIX's own results, for the record: POLLPRI with a mark, 0 bytes EOPNOTSUPP */
	EXPECT_EQ(-EOPNOTSUPP, u.v[4]);
	EXPECT_EQ(POLLPRI, u.v[7] & POLLPRI);
}

/*
 * SIOCINQ after a reader passed over an unread out-of-band byte (read without MSG_OOB
 * while the mark is at the head: the byte is dropped). 6.17 made a stream socket's
 * SIOCINQ a cached count, and 7.3's manage_oob() drops the byte without taking it off
 * the count: AF_UNIX then says one byte more than can ever be read, for the life of
 * the socket (SCM_INQ too). The module counts what is queued, as 6.12's AF_UNIX did.
 * A deliberate difference (docs/kline-7.3.md), pinned here so that a fixed upstream
 * shows; the fuzzer leaves stream SIOCINQ values out where AF_UNIX overcounts.
 */
static void skipped_oob_scenario(int family, struct trace *t)
{
	char buf[8];
	int sv[2];

	memset(t, 0, sizeof(*t));
	if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return note(t, -1);
	note(t, send(sv[0], "a", 1, MSG_OOB));
	note(t, recv(sv[1], buf, sizeof(buf), 0));	/* passes over the byte */
	note(t, ioctl_int(sv[1], SIOCINQ));
	note(t, send(sv[0], "bc", 2, 0));
	note(t, ioctl_int(sv[1], SIOCINQ));
	note(t, recv(sv[1], buf, sizeof(buf), 0));
	note(t, ioctl_int(sv[1], SIOCINQ));
	note(t, recv(sv[1], buf, 1, MSG_OOB));
	close_pair(sv);
}

TEST(inq_after_skipped_oob)
{
	static struct trace u, o;
	long extra = kernel_at_least(6, 17) ? 1 : 0;
	int i;

	RUN_BOTH(skipped_oob_scenario, &u, &o);
	ASSERT_EQ(8, u.n);
	EXPECT_EQ(-EAGAIN, u.v[1]);
	EXPECT_EQ(0, o.v[2]);
	EXPECT_EQ(2, o.v[4]);
	EXPECT_EQ(0, o.v[6]);
	for (i = 2; i < 8; i += 2)
		EXPECT_EQ(o.v[i] + extra, u.v[i]) TH_LOG("step %d: AF_UNIX's count", i);
	for (i = 1; i < 8; i += 2)
		EXPECT_EQ(u.v[i], o.v[i]) TH_LOG("step %d", i);
	EXPECT_EQ(-EINVAL, o.v[7]);
}

TEST_HARNESS_MAIN
