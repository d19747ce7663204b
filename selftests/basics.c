// SPDX-License-Identifier: GPL-2.0
/*
 * socket(), socketpair(), send/recv, shutdown and close on both families.
 * Every expected value is AF_UNIX's behaviour on 6.12 (the `af_unix` variant checks the
 * oracle itself; the `rust_afunix` variant must match it).
 */
#include "common.h"
#include <stddef.h>

#include "kselftest_harness.h"

FIXTURE(basics)
{
	int family;
	int sv[2];
};

FIXTURE_VARIANT(basics)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(basics, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(basics, rust_afunix)
{
	.ours = true,
};

FIXTURE_SETUP(basics)
{
	self->family = variant_family(variant->ours);
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	self->sv[0] = self->sv[1] = -1;
	signal(SIGPIPE, SIG_IGN);
}

FIXTURE_TEARDOWN(basics)
{
	if (self->sv[0] >= 0)
		close(self->sv[0]);
	if (self->sv[1] >= 0)
		close(self->sv[1]);
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
static char big_buf[300000];

static int sock_type_of(int fd)
{
	int type = -1;
	socklen_t len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return -1;
	return type;
}

TEST_F(basics, create_types)
{
	int i, fd;

	for (i = 0; i < 3; i++) {
		fd = socket(self->family, types[i], 0);
		ASSERT_LE(0, fd);
		EXPECT_EQ(types[i], sock_type_of(fd));
		close(fd);
		/* protocol PF_UNIX (1) is accepted too */
		fd = socket(self->family, types[i], 1);
		ASSERT_LE(0, fd);
		close(fd);
	}
	/* SOCK_RAW silently becomes SOCK_DGRAM */
	fd = socket(self->family, SOCK_RAW, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(SOCK_DGRAM, sock_type_of(fd));
	close(fd);
	/* type flags */
	fd = socket(self->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(O_NONBLOCK, fcntl(fd, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD));
	close(fd);
}

TEST_F(basics, create_errors)
{
	EXPECT_EQ(ESOCKTNOSUPPORT, ERRNO_OF(socket(self->family, SOCK_RDM, 0)));
	EXPECT_EQ(ESOCKTNOSUPPORT, ERRNO_OF(socket(self->family, SOCK_DCCP, 0)));
	EXPECT_EQ(ESOCKTNOSUPPORT, ERRNO_OF(socket(self->family, SOCK_PACKET, 0)));
	/* out of range for the socket core: EINVAL before the family sees it */
	EXPECT_EQ(EINVAL, ERRNO_OF(socket(self->family, 42, 0)));
	EXPECT_EQ(EPROTONOSUPPORT, ERRNO_OF(socket(self->family, SOCK_STREAM, 2)));
	EXPECT_EQ(EPROTONOSUPPORT, ERRNO_OF(socket(self->family, SOCK_DGRAM, 6)));
	EXPECT_EQ(EPROTONOSUPPORT, ERRNO_OF(socket(self->family, SOCK_SEQPACKET, -1)));
	/* a bad type is reported before a bad protocol */
	EXPECT_EQ(EPROTONOSUPPORT, ERRNO_OF(socket(self->family, SOCK_RDM, 2)));
}

TEST_F(basics, socketpair_exchange)
{
	char buf[64];
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, socketpair(self->family, types[i], 0, self->sv));
		EXPECT_EQ(types[i], sock_type_of(self->sv[0]));
		EXPECT_EQ(5, send(self->sv[0], "hello", 5, 0));
		EXPECT_EQ(5, recv(self->sv[1], buf, sizeof(buf), 0));
		EXPECT_EQ(0, memcmp(buf, "hello", 5));
		EXPECT_EQ(3, write(self->sv[1], "abc", 3));
		EXPECT_EQ(3, read(self->sv[0], buf, sizeof(buf)));
		EXPECT_EQ(0, memcmp(buf, "abc", 3));
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
	EXPECT_EQ(ESOCKTNOSUPPORT, ERRNO_OF(socketpair(self->family, SOCK_RDM, 0, self->sv)));
	EXPECT_EQ(EPROTONOSUPPORT, ERRNO_OF(socketpair(self->family, SOCK_STREAM, 3, self->sv)));
}

TEST_F(basics, message_boundaries)
{
	static const int sizes[] = { 1, 100, 0, 4000, 7 };
	char buf[8192], out[8192];
	int i, t, flags;

	memset(buf, 'x', sizeof(buf));
	for (t = 1; t < 3; t++) {	/* DGRAM, SEQPACKET */
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		for (i = 0; i < 5; i++)
			EXPECT_EQ(sizes[i], send(self->sv[0], buf, sizes[i], 0));
		for (i = 0; i < 5; i++)
			EXPECT_EQ(sizes[i], recv(self->sv[1], out, sizeof(out), MSG_DONTWAIT));
		EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->sv[1], out, sizeof(out), MSG_DONTWAIT)));

		/* truncation: the rest of the record is lost, MSG_TRUNC says so */
		EXPECT_EQ(10, send(self->sv[0], buf, 10, 0));
		struct iovec iov = { .iov_base = out, .iov_len = 4 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

		EXPECT_EQ(4, recvmsg(self->sv[1], &mh, 0));
		EXPECT_EQ(MSG_TRUNC, mh.msg_flags & MSG_TRUNC);
		EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->sv[1], out, 4, MSG_DONTWAIT)));
		/* MSG_TRUNC in flags returns the real length */
		EXPECT_EQ(10, send(self->sv[0], buf, 10, 0));
		EXPECT_EQ(10, recv(self->sv[1], out, 3, MSG_TRUNC));
		/* peek keeps the record */
		EXPECT_EQ(7, send(self->sv[0], "peekabo", 7, 0));
		EXPECT_EQ(7, recv(self->sv[1], out, sizeof(out), MSG_PEEK));
		EXPECT_EQ(7, recv(self->sv[1], out, sizeof(out), 0));
		EXPECT_EQ(0, memcmp(out, "peekabo", 7));
		/* larger than the send buffer */
		flags = MSG_DONTWAIT;
		EXPECT_EQ(EMSGSIZE, ERRNO_OF(send(self->sv[0], big_buf, sizeof(big_buf), flags)));
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
}

TEST_F(basics, dgram_too_large)
{
	int sndbuf = 0;
	socklen_t len = sizeof(sndbuf);
	char *big;

	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, self->sv));
	ASSERT_EQ(0, getsockopt(self->sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, &len));
	big = calloc(1, sndbuf);
	ASSERT_NE(NULL, big);
	EXPECT_EQ(EMSGSIZE, ERRNO_OF(send(self->sv[0], big, sndbuf - 31, MSG_DONTWAIT)));
	EXPECT_EQ(sndbuf - 32, send(self->sv[0], big, sndbuf - 32, MSG_DONTWAIT));
	EXPECT_EQ(sndbuf - 32, recv(self->sv[1], big, sndbuf, 0));
	free(big);
}

TEST_F(basics, stream_is_a_byte_stream)
{
	char out[64];

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	EXPECT_EQ(3, send(self->sv[0], "abc", 3, 0));
	EXPECT_EQ(4, send(self->sv[0], "defg", 4, 0));
	/* partial reads, then one read across both skbs */
	EXPECT_EQ(2, recv(self->sv[1], out, 2, 0));
	EXPECT_EQ(0, memcmp(out, "ab", 2));
	EXPECT_EQ(3, recv(self->sv[1], out, 3, MSG_PEEK));
	EXPECT_EQ(0, memcmp(out, "cde", 3));
	EXPECT_EQ(5, recv(self->sv[1], out, sizeof(out), 0));
	EXPECT_EQ(0, memcmp(out, "cdefg", 5));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->sv[1], out, sizeof(out), MSG_DONTWAIT)));
}

TEST_F(basics, nonblocking_send_fills_up)
{
	char buf[4096] = { 0 }, out[4096];
	int t, n, sent, guard;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t] | SOCK_NONBLOCK, 0, self->sv));
		for (sent = 0, guard = 0; guard < 100000; guard++) {
			n = send(self->sv[0], buf, sizeof(buf), 0);
			if (n < 0)
				break;
			sent += n;
		}
		EXPECT_EQ(EAGAIN, errno);
		EXPECT_LT(0, sent);
		/* reading makes room again */
		while (recv(self->sv[1], out, sizeof(out), 0) > 0)
			;
		EXPECT_EQ(EAGAIN, errno);
		EXPECT_EQ(100, send(self->sv[0], buf, 100, 0));
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
}

TEST_F(basics, blocking_recv_wakes)
{
	char out[16];
	int t, status;
	pid_t pid;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int n = recv(self->sv[1], out, sizeof(out), 0);

			_exit(n == 4 && !memcmp(out, "wake", 4) ? 0 : 1);
		}
		ASSERT_EQ(0, wait_until_sleeping(pid));
		EXPECT_EQ(4, send(self->sv[0], "wake", 4, 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_EQ(0, status);
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
}

TEST_F(basics, blocking_send_waits_for_room)
{
	char buf[4096] = { 0 }, out[65536];
	int t, status;
	pid_t pid;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			/* Keep sending: one of these sends must block, until the parent reads. */
			for (int i = 0; i < 2000; i++)
				if (send(self->sv[0], buf, sizeof(buf), 0) != sizeof(buf))
					_exit(1);
			_exit(0);
		}
		ASSERT_EQ(0, wait_until_sleeping(pid));
		/* The writer is blocked on a full buffer: drain until it finishes. */
		while (waitpid(pid, &status, WNOHANG) == 0)
			recv(self->sv[1], out, sizeof(out), MSG_DONTWAIT);
		EXPECT_EQ(0, status);
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
}

TEST_F(basics, peer_close)
{
	char out[16];

	/* STREAM: EOF, then EPIPE (+SIGPIPE, ignored here) */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	close(self->sv[1]);
	self->sv[1] = -1;
	EXPECT_EQ(0, recv(self->sv[0], out, sizeof(out), 0));
	EXPECT_EQ(EPIPE, ERRNO_OF(send(self->sv[0], "x", 1, 0)));
	EXPECT_EQ(EPIPE, ERRNO_OF(send(self->sv[0], "x", 1, MSG_NOSIGNAL)));
	close(self->sv[0]);

	/* SEQPACKET: EOF (also non-blocking), then EPIPE */
	ASSERT_EQ(0, socketpair(self->family, SOCK_SEQPACKET, 0, self->sv));
	close(self->sv[1]);
	self->sv[1] = -1;
	EXPECT_EQ(0, recv(self->sv[0], out, sizeof(out), 0));
	EXPECT_EQ(0, recv(self->sv[0], out, sizeof(out), MSG_DONTWAIT));
	EXPECT_EQ(EPIPE, ERRNO_OF(send(self->sv[0], "x", 1, MSG_NOSIGNAL)));
	close(self->sv[0]);

	/* DGRAM: ECONNREFUSED, then not connected any more */
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, self->sv));
	close(self->sv[1]);
	self->sv[1] = -1;
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->sv[0], out, sizeof(out), MSG_DONTWAIT)));
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(send(self->sv[0], "x", 1, 0)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(self->sv[0], "x", 1, 0)));
	close(self->sv[0]);
	self->sv[0] = -1;
}

TEST_F(basics, sigpipe)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	close(self->sv[1]);
	self->sv[1] = -1;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		send(self->sv[0], "x", 1, 0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGPIPE, WTERMSIG(status));
}

TEST_F(basics, close_with_unread_data)
{
	char out[16];

	/* STREAM: the peer closed with data unread: ECONNRESET once, then EOF */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	EXPECT_EQ(1, send(self->sv[0], "x", 1, 0));
	close(self->sv[1]);
	self->sv[1] = -1;
	EXPECT_EQ(ECONNRESET, ERRNO_OF(recv(self->sv[0], out, sizeof(out), 0)));
	EXPECT_EQ(0, recv(self->sv[0], out, sizeof(out), 0));
	close(self->sv[0]);

	/* SEQPACKET the same */
	ASSERT_EQ(0, socketpair(self->family, SOCK_SEQPACKET, 0, self->sv));
	EXPECT_EQ(1, send(self->sv[0], "x", 1, 0));
	close(self->sv[1]);
	self->sv[1] = -1;
	EXPECT_EQ(ECONNRESET, ERRNO_OF(recv(self->sv[0], out, sizeof(out), 0)));
	EXPECT_EQ(0, recv(self->sv[0], out, sizeof(out), 0));
	close(self->sv[0]);

	/* DGRAM: what the dead peer sent is dropped on the next send */
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, self->sv));
	EXPECT_EQ(1, send(self->sv[1], "y", 1, 0));
	close(self->sv[1]);
	self->sv[1] = -1;
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(send(self->sv[0], "x", 1, 0)));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->sv[0], out, sizeof(out), MSG_DONTWAIT)));
	close(self->sv[0]);
	self->sv[0] = -1;
}

TEST_F(basics, shutdown)
{
	char out[16];
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		EXPECT_EQ(EINVAL, ERRNO_OF(shutdown(self->sv[0], 3)));
		EXPECT_EQ(EINVAL, ERRNO_OF(shutdown(self->sv[0], -1)));
		EXPECT_EQ(0, shutdown(self->sv[0], SHUT_WR));
		if (types[t] == SOCK_DGRAM) {
			/* not mirrored: the peer can still send, and we still receive */
			EXPECT_EQ(1, send(self->sv[1], "a", 1, 0));
			EXPECT_EQ(1, recv(self->sv[0], out, sizeof(out), 0));
			EXPECT_EQ(EAGAIN, ERRNO_OF(recv(self->sv[1], out, 1, MSG_DONTWAIT)));
		} else {
			EXPECT_EQ(EPIPE, ERRNO_OF(send(self->sv[0], "x", 1, MSG_NOSIGNAL)));
			/* mirrored: the peer reads EOF */
			EXPECT_EQ(0, recv(self->sv[1], out, sizeof(out), 0));
			EXPECT_EQ(1, send(self->sv[1], "b", 1, 0));
			EXPECT_EQ(1, recv(self->sv[0], out, sizeof(out), 0));
			EXPECT_EQ(0, shutdown(self->sv[1], SHUT_WR));
			EXPECT_EQ(0, recv(self->sv[0], out, sizeof(out), 0));
		}
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
}

TEST_F(basics, unconnected)
{
	char out[16];
	int fd;

	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(fd, "x", 1, MSG_NOSIGNAL)));
	EXPECT_EQ(EINVAL, ERRNO_OF(recv(fd, out, 1, MSG_DONTWAIT)));
	EXPECT_EQ(0, shutdown(fd, SHUT_RD));
	close(fd);

	fd = socket(self->family, SOCK_SEQPACKET, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(fd, "x", 1, MSG_NOSIGNAL)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(recv(fd, out, 1, MSG_DONTWAIT)));
	close(fd);

	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(fd, "x", 1, 0)));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(fd, out, 1, MSG_DONTWAIT)));
	close(fd);
}

TEST_F(basics, names_of_unnamed_sockets)
{
	struct sockaddr_un sun;
	socklen_t len;
	int t, fd;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		len = sizeof(sun);
		memset(&sun, 0xff, sizeof(sun));
		ASSERT_EQ(0, getsockname(self->sv[0], (struct sockaddr *)&sun, &len));
		EXPECT_EQ(sizeof(sa_family_t), len);
		EXPECT_EQ(self->family, sun.sun_family);
		len = sizeof(sun);
		ASSERT_EQ(0, getpeername(self->sv[0], (struct sockaddr *)&sun, &len));
		EXPECT_EQ(sizeof(sa_family_t), len);
		EXPECT_EQ(self->family, sun.sun_family);
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;

		fd = socket(self->family, types[t], 0);
		ASSERT_LE(0, fd);
		len = sizeof(sun);
		EXPECT_EQ(ENOTCONN, ERRNO_OF(getpeername(fd, (struct sockaddr *)&sun, &len)));
		close(fd);
	}
}

TEST_F(basics, peercred)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		ASSERT_EQ(0, getsockopt(self->sv[1], SOL_SOCKET, SO_PEERCRED, &cred, &len));
		EXPECT_EQ(getpid(), cred.pid);
		EXPECT_EQ(getuid(), cred.uid);
		EXPECT_EQ(getgid(), cred.gid);
		close(self->sv[0]);
		close(self->sv[1]);
		self->sv[0] = self->sv[1] = -1;
	}
}

TEST_F(basics, poll_masks)
{
	const short all = POLLIN | POLLOUT | POLLPRI | POLLRDNORM | POLLWRNORM | POLLWRBAND |
			  POLLRDHUP;
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		EXPECT_EQ(POLLOUT | POLLWRNORM | POLLWRBAND, revents(self->sv[0], all));
		EXPECT_EQ(1, send(self->sv[0], "x", 1, 0));
		EXPECT_EQ(POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLWRBAND,
			  revents(self->sv[1], all));
		EXPECT_EQ(POLLIN, revents(self->sv[1], POLLIN));
		EXPECT_EQ(0, shutdown(self->sv[0], SHUT_RD));
		if (types[t] == SOCK_DGRAM) {
			EXPECT_EQ(POLLIN | POLLRDNORM | POLLRDHUP | POLLOUT | POLLWRNORM | POLLWRBAND,
				  revents(self->sv[0], all));
		}
		close(self->sv[0]);
		self->sv[0] = -1;
		if (types[t] == SOCK_DGRAM) {
			EXPECT_EQ(POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLWRBAND,
				  revents(self->sv[1], all));
		} else {
			EXPECT_EQ(POLLIN | POLLRDNORM | POLLRDHUP | POLLHUP | POLLOUT | POLLWRNORM |
				  POLLWRBAND, revents(self->sv[1], all));
		}
		close(self->sv[1]);
		self->sv[1] = -1;
	}
	/* fresh sockets */
	for (t = 0; t < 3; t++) {
		int fd = socket(self->family, types[t], 0);
		short want = POLLOUT | POLLWRNORM | POLLWRBAND;

		ASSERT_LE(0, fd);
		if (types[t] != SOCK_DGRAM)
			want |= POLLHUP;
		EXPECT_EQ(want, revents(fd, all));
		close(fd);
	}
}

/*
 * The family's count in /proc/net/protocols goes down when close() returns, as
 * AF_UNIX's (its destructor runs in the close): a socket pair of each type, also with
 * the first closed while its skb waits in the other's queue (it goes with that skb),
 * an unbound socket, and a listener with a queued embryo, in a netns of the test's
 * own. (The module frees the memory a grace period later; the count does not wait.)
 */
TEST_F(basics, counted_at_close)
{
	struct sockaddr_un sun = { .sun_family = self->family };
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + 5;
	int l, c;
	size_t i;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, sockets_left(variant->ours));
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ASSERT_EQ(0, socketpair(self->family, types[i], 0, self->sv));
		EXPECT_EQ(2, sockets_left(variant->ours));
		close_pair(self->sv);
		EXPECT_EQ(0, sockets_left(variant->ours)) TH_LOG("type %d", types[i]);
		/* the sender closed first, its skb still queued on the other end */
		ASSERT_EQ(0, socketpair(self->family, types[i], 0, self->sv));
		ASSERT_EQ(1, write(self->sv[0], "x", 1));
		close(self->sv[0]);
		self->sv[0] = -1;
		EXPECT_EQ(2, sockets_left(variant->ours));
		close_pair(self->sv);
		EXPECT_EQ(0, sockets_left(variant->ours)) TH_LOG("type %d, data", types[i]);
	}
	c = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, c);
	EXPECT_EQ(1, sockets_left(variant->ours));
	close(c);
	EXPECT_EQ(0, sockets_left(variant->ours));

	memcpy(sun.sun_path, "\0cnt", 4);
	l = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, l);
	ASSERT_EQ(0, bind(l, (struct sockaddr *)&sun, len));
	ASSERT_EQ(0, listen(l, 4));
	c = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&sun, len));
	EXPECT_EQ(3, sockets_left(variant->ours));
	close(c);
	close(l);
	EXPECT_EQ(0, sockets_left(variant->ours));
}

TEST_HARNESS_MAIN
