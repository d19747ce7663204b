// SPDX-License-Identifier: GPL-2.0
/*
 * The data path on both families: poll() masks in every socket state, the ioctls
 * (SIOCINQ, SIOCOUTQ, SIOCUNIXFILE, SIOCATMARK), SO_PEEK_OFF, the per-netns
 * max_dgram_qlen sysctl, receive and send flags and timeouts, and keyed write-space
 * wakeups. Every expected value is AF_UNIX's behaviour on 6.12. Where a value depends
 * on skb truesize (SIOCOUTQ, how much fits in a send buffer), the test makes the same
 * sequence on AF_UNIX and on the variant's family and compares the two (in the
 * `af_unix` variant, AF_UNIX with itself). So are the two points where later kernels
 * differ from 6.12: a negative max_dgram_qlen (6.12: EINVAL) and a datagram send after
 * the sender's own shutdown(SHUT_WR) (6.12: sent).
 *
 * Each test runs in a private directory (made in the cwd by the fixture setup and
 * removed with its contents by the teardown). Children forked by a test never use the
 * harness's ASSERT/EXPECT: they report through their exit status.
 */
#include "common.h"
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"

#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE (SIOCPROTOPRIVATE + 0)
#endif

/* The write-space wakeup test: pollers, epoll waiters, write/read rounds. */
#define POLLERS 16
#define EPOLLERS 4
#define ROUNDS 200

FIXTURE(datapath)
{
	int family;
	bool unkeyed;		/* wakeup_unkeyed is Y: the teardown sets it back to N */
	int nkids;		/* children still to reap (killed by the teardown) */
	pid_t kids[POLLERS + EPOLLERS];
	char cwd[PATH_MAX];	/* where the test was started */
	char dir[PATH_MAX];	/* the test's private directory, its cwd while it runs */
};

FIXTURE_VARIANT(datapath)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(datapath, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(datapath, rust_afunix)
{
	.ours = true,
};

FIXTURE_SETUP(datapath)
{
	char tmpl[] = "datapath.XXXXXX";

	self->family = variant_family(variant->ours);
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	ASSERT_EQ(0, enter_private_dir(tmpl, self->cwd, self->dir));
}

/* The module's debug parameter: write-space wakeups without a key (Y) or keyed (N). */
static int set_unkeyed(bool on)
{
	return write_file("/sys/module/rust_afunix/parameters/wakeup_unkeyed", on ? "Y" : "N");
}

FIXTURE_TEARDOWN(datapath)
{
	int i;

	for (i = 0; i < self->nkids; i++) {
		if (self->kids[i] > 0) {
			kill(self->kids[i], SIGKILL);
			waitpid(self->kids[i], NULL, 0);
		}
	}
	if (self->unkeyed)
		set_unkeyed(false);
	leave_private_dir(self->cwd, self->dir);
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

static const char *type_name(int type)
{
	switch (type) {
	case SOCK_STREAM:
		return "stream";
	case SOCK_DGRAM:
		return "dgram";
	case SOCK_SEQPACKET:
		return "seqpacket";
	}
	return "?";
}

/* A socket bound to the pathname `path`, or -1. */
static int path_bound(int family, int type, const char *path)
{
	struct sockaddr_un sun;

	return bound(family, type, &sun, path_addr(&sun, family, path));
}

/* A listening socket bound to `path`, or -1. */
static int listener(int family, int type, const char *path)
{
	int fd = path_bound(family, type, path);

	if (fd >= 0 && listen(fd, 8)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A new socket of `type` connected to `path`, or -1. */
static int connected(int family, int type, const char *path)
{
	struct sockaddr_un sun;
	int len = path_addr(&sun, family, path);
	int fd = socket(family, type, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, SA(&sun), len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int set_int(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_SOCKET, opt, &val, sizeof(val));
}

static int get_int(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int val = -12345;

	if (getsockopt(fd, SOL_SOCKET, opt, &val, &len))
		return -12345;
	return val;
}

/* SO_RCVTIMEO or SO_SNDTIMEO of `ms` milliseconds. */
static int set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/*
 * Non-blocking sends of `chunk` bytes until one fails: the number that went through,
 * -1 if the failure is not EAGAIN or nothing failed after many sends. `bytes`, if
 * given, gets the bytes sent (a stream send may be partial).
 */
static int fill(int fd, int chunk, long *bytes)
{
	static char buf[65536];
	long total = 0;
	int n, r;

	for (n = 0; n < 100000; n++) {
		r = send(fd, buf, chunk, MSG_DONTWAIT);
		if (r < 0)
			break;
		total += r;
	}
	if (bytes)
		*bytes = total;
	return n < 100000 && errno == EAGAIN ? n : -1;
}

/* Reads everything queued on `fd` without blocking: the number of bytes. */
static long drain(int fd)
{
	static char buf[65536];
	long total = 0;
	int r, empty = 0;

	/* until EAGAIN, or many empty reads (EOF; empty datagrams are few) */
	while (empty < 100 && (r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		total += r;
		empty += !r;
	}
	return total;
}

/* ---- poll() masks ---- */

enum poll_state {
	P_NEW,			/* socket() */
	P_BOUND,		/* bind() */
	P_LISTENING,		/* listen() */
	P_LISTEN_PENDING,	/* a listener with a connection not yet accepted */
	P_CONNECTING,		/* the client of a connection not yet accepted */
	P_ACCEPTED,		/* accept()'s socket, idle */
	P_LISTENER_CLOSED,	/* a client whose listener closed before accept() */
	P_IDLE,			/* a socketpair end */
	P_READABLE,		/* data to read */
	P_SENT,			/* sent data, unread by the peer */
	P_SNDBUF_FULL,		/* non-blocking sends until EAGAIN */
	P_SHUT_RD,		/* own shutdown(SHUT_RD) */
	P_SHUT_WR,		/* own shutdown(SHUT_WR) */
	P_SHUT_RDWR,		/* own shutdown(SHUT_RDWR) */
	P_PEER_SHUT_RD,		/* the peer's shutdown(SHUT_RD) */
	P_PEER_SHUT_WR,		/* the peer's shutdown(SHUT_WR) */
	P_PEER_CLOSED,		/* the peer closed, nothing unread */
	P_PEER_CLOSED_DATA_HERE,	/* the peer closed, data unread here */
	P_PEER_CLOSED_DATA_THERE,	/* the peer closed with our data unread */
	P_ONE_WAY,		/* dgram: connected to a receiver not connected back */
	P_ONE_WAY_FULL,		/* ... whose queue is full */
	P_FULL_RECEIVER,	/* that receiver itself */
	P_ONE_WAY_READ_ONE,	/* the full receiver read one datagram */
	P_ONE_WAY_PEER_CLOSED,	/* the receiver closed with a datagram unread */
	P_ONE_WAY_FULL_CLOSED,	/* the receiver closed with a full queue */
};

static const char *const poll_state_names[] = {
	[P_NEW] = "new",
	[P_BOUND] = "bound",
	[P_LISTENING] = "listening",
	[P_LISTEN_PENDING] = "listening with a pending connection",
	[P_CONNECTING] = "client not yet accepted",
	[P_ACCEPTED] = "accepted",
	[P_LISTENER_CLOSED] = "client whose listener closed",
	[P_IDLE] = "connected pair, idle",
	[P_READABLE] = "data pending",
	[P_SENT] = "sent data unread by the peer",
	[P_SNDBUF_FULL] = "send buffer full",
	[P_SHUT_RD] = "own SHUT_RD",
	[P_SHUT_WR] = "own SHUT_WR",
	[P_SHUT_RDWR] = "own SHUT_RDWR",
	[P_PEER_SHUT_RD] = "peer SHUT_RD",
	[P_PEER_SHUT_WR] = "peer SHUT_WR",
	[P_PEER_CLOSED] = "peer closed",
	[P_PEER_CLOSED_DATA_HERE] = "peer closed, data unread here",
	[P_PEER_CLOSED_DATA_THERE] = "peer closed with our data unread",
	[P_ONE_WAY] = "connected one way",
	[P_ONE_WAY_FULL] = "receiver's queue full",
	[P_FULL_RECEIVER] = "the full receiver",
	[P_ONE_WAY_READ_ONE] = "full receiver read one",
	[P_ONE_WAY_PEER_CLOSED] = "receiver closed",
	[P_ONE_WAY_FULL_CLOSED] = "full receiver closed",
};

/*
 * Makes the sockets of a state in fd[0..3] (-1 for none; the caller closes them all):
 * returns the one to poll, or -1.
 */
static int make_state(int family, int type, enum poll_state st, const char *path, int fd[4])
{
	char buf[8];

	switch (st) {
	case P_NEW:
		fd[0] = socket(family, type, 0);
		return fd[0];
	case P_BOUND:
		fd[0] = path_bound(family, type, path);
		return fd[0];
	case P_LISTENING:
		fd[0] = listener(family, type, path);
		return fd[0];
	case P_LISTEN_PENDING:
	case P_CONNECTING:
	case P_ACCEPTED:
	case P_LISTENER_CLOSED:
		fd[0] = listener(family, type, path);
		fd[1] = connected(family, type, path);
		if (fd[0] < 0 || fd[1] < 0)
			return -1;
		if (st == P_LISTEN_PENDING)
			return fd[0];
		if (st == P_CONNECTING)
			return fd[1];
		if (st == P_LISTENER_CLOSED) {
			close(fd[0]);
			fd[0] = -1;
			return fd[1];
		}
		fd[2] = accept(fd[0], NULL, NULL);
		return fd[2];
	case P_ONE_WAY:
	case P_ONE_WAY_FULL:
	case P_FULL_RECEIVER:
	case P_ONE_WAY_READ_ONE:
	case P_ONE_WAY_PEER_CLOSED:
	case P_ONE_WAY_FULL_CLOSED:
		fd[1] = path_bound(family, type, path);
		if (fd[1] < 0)
			return -1;
		fd[0] = connected(family, type, path);
		if (fd[0] < 0)
			return -1;
		if (st == P_ONE_WAY)
			return fd[0];
		if (st == P_ONE_WAY_PEER_CLOSED) {
			if (send(fd[0], "x", 1, 0) != 1)
				return -1;
		} else if (fill(fd[0], 1, NULL) != 11) {
			return -1;
		}
		if (st == P_FULL_RECEIVER)
			return fd[1];
		if (st == P_ONE_WAY_READ_ONE && recv(fd[1], buf, sizeof(buf), 0) != 1)
			return -1;
		if (st == P_ONE_WAY_PEER_CLOSED || st == P_ONE_WAY_FULL_CLOSED) {
			close(fd[1]);
			fd[1] = -1;
		}
		return fd[0];
	default:
		break;
	}

	/* the rest start from a connected pair: fd[0] is polled, fd[1] is its peer */
	if (socketpair(family, type, 0, fd))
		return -1;
	switch (st) {
	case P_READABLE:
	case P_PEER_CLOSED_DATA_HERE:
		if (send(fd[1], "x", 1, 0) != 1)
			return -1;
		break;
	case P_SENT:
	case P_PEER_CLOSED_DATA_THERE:
		if (send(fd[0], "x", 1, 0) != 1)
			return -1;
		break;
	case P_SNDBUF_FULL:
		if (fill(fd[0], 4096, NULL) <= 0)
			return -1;
		break;
	case P_SHUT_RD:
	case P_SHUT_WR:
	case P_SHUT_RDWR:
		if (shutdown(fd[0], st == P_SHUT_RD ? SHUT_RD : st == P_SHUT_WR ? SHUT_WR : SHUT_RDWR))
			return -1;
		break;
	case P_PEER_SHUT_RD:
	case P_PEER_SHUT_WR:
		if (shutdown(fd[1], st == P_PEER_SHUT_RD ? SHUT_RD : SHUT_WR))
			return -1;
		break;
	default:
		break;
	}
	if (st == P_PEER_CLOSED || st == P_PEER_CLOSED_DATA_HERE || st == P_PEER_CLOSED_DATA_THERE) {
		close(fd[1]);
		fd[1] = -1;
	}
	return fd[0];
}

#define RD (POLLIN | POLLRDNORM)
#define WR (POLLOUT | POLLWRNORM)
#define ALL_EVENTS (POLLIN | POLLOUT | POLLPRI | POLLRDNORM | POLLWRNORM | POLLRDHUP)

struct poll_case {
	int type;
	enum poll_state state;
	short all;	/* revents for ALL_EVENTS */
	short in;	/* revents for POLLIN alone */
};

#define S SOCK_STREAM
#define D SOCK_DGRAM
#define Q SOCK_SEQPACKET
static const struct poll_case poll_cases[] = {
	{ S, P_NEW, WR | POLLHUP, POLLHUP },
	{ S, P_BOUND, WR | POLLHUP, POLLHUP },
	{ S, P_LISTENING, 0, 0 },
	{ S, P_LISTEN_PENDING, RD, POLLIN },
	{ S, P_CONNECTING, WR, 0 },
	{ S, P_ACCEPTED, WR, 0 },
	{ S, P_LISTENER_CLOSED, RD | WR | POLLERR | POLLHUP | POLLRDHUP, POLLIN | POLLERR | POLLHUP },
	{ S, P_IDLE, WR, 0 },
	{ S, P_READABLE, RD | WR, POLLIN },
	{ S, P_SENT, WR, 0 },
	{ S, P_SNDBUF_FULL, 0, 0 },
	{ S, P_SHUT_RD, RD | WR | POLLRDHUP, POLLIN },
	{ S, P_SHUT_WR, WR, 0 },
	{ S, P_SHUT_RDWR, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ S, P_PEER_SHUT_RD, WR, 0 },
	{ S, P_PEER_SHUT_WR, RD | WR | POLLRDHUP, POLLIN },
	{ S, P_PEER_CLOSED, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ S, P_PEER_CLOSED_DATA_HERE, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ S, P_PEER_CLOSED_DATA_THERE, RD | WR | POLLERR | POLLHUP | POLLRDHUP, POLLIN | POLLERR | POLLHUP },
	{ Q, P_NEW, WR | POLLHUP, POLLHUP },
	{ Q, P_BOUND, WR | POLLHUP, POLLHUP },
	{ Q, P_LISTENING, 0, 0 },
	{ Q, P_LISTEN_PENDING, RD, POLLIN },
	{ Q, P_CONNECTING, WR, 0 },
	{ Q, P_ACCEPTED, WR, 0 },
	{ Q, P_LISTENER_CLOSED, RD | WR | POLLERR | POLLHUP | POLLRDHUP, POLLIN | POLLERR | POLLHUP },
	{ Q, P_IDLE, WR, 0 },
	{ Q, P_READABLE, RD | WR, POLLIN },
	{ Q, P_SENT, WR, 0 },
	{ Q, P_SNDBUF_FULL, 0, 0 },
	{ Q, P_SHUT_RD, RD | WR | POLLRDHUP, POLLIN },
	{ Q, P_SHUT_WR, WR, 0 },
	{ Q, P_SHUT_RDWR, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ Q, P_PEER_SHUT_RD, WR, 0 },
	{ Q, P_PEER_SHUT_WR, RD | WR | POLLRDHUP, POLLIN },
	{ Q, P_PEER_CLOSED, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ Q, P_PEER_CLOSED_DATA_HERE, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ Q, P_PEER_CLOSED_DATA_THERE, RD | WR | POLLERR | POLLHUP | POLLRDHUP, POLLIN | POLLERR | POLLHUP },
	{ D, P_NEW, WR, 0 },
	{ D, P_BOUND, WR, 0 },
	{ D, P_IDLE, WR, 0 },
	{ D, P_READABLE, RD | WR, POLLIN },
	{ D, P_SENT, WR, 0 },
	{ D, P_SNDBUF_FULL, 0, 0 },
	{ D, P_SHUT_RD, RD | WR | POLLRDHUP, POLLIN },
	{ D, P_SHUT_WR, WR, 0 },
	{ D, P_SHUT_RDWR, RD | WR | POLLHUP | POLLRDHUP, POLLIN | POLLHUP },
	{ D, P_PEER_SHUT_RD, WR, 0 },
	{ D, P_PEER_SHUT_WR, WR, 0 },
	{ D, P_PEER_CLOSED, WR, 0 },
	{ D, P_PEER_CLOSED_DATA_HERE, RD | WR, POLLIN },
	{ D, P_PEER_CLOSED_DATA_THERE, WR, 0 },
	{ D, P_ONE_WAY, WR, 0 },
	{ D, P_ONE_WAY_FULL, 0, 0 },
	{ D, P_FULL_RECEIVER, RD | WR, POLLIN },
	{ D, P_ONE_WAY_READ_ONE, WR, 0 },
	{ D, P_ONE_WAY_PEER_CLOSED, WR, 0 },
	{ D, P_ONE_WAY_FULL_CLOSED, WR, 0 },
};
#undef S
#undef D
#undef Q

static void mask_name(short m, char *buf, size_t size)
{
	static const struct { short bit; const char *name; } bits[] = {
		{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" }, { POLLERR, "ERR" },
		{ POLLHUP, "HUP" }, { POLLNVAL, "NVAL" }, { POLLRDNORM, "RDNORM" },
		{ POLLRDBAND, "RDBAND" }, { POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
		{ POLLRDHUP, "RDHUP" },
	};
	size_t i, n = 0;

	buf[0] = 0;
	if (m < 0) {
		snprintf(buf, size, "poll failed");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (m & bits[i].bit)
			n += snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "|" : "",
				      bits[i].name);
	if (!n)
		snprintf(buf, size, "0");
}

TEST_F(datapath, poll_masks)
{
	char path[32], got[128], want[128];
	short all, in;
	size_t i;
	int j, fd[4], p;

	for (i = 0; i < ARRAY_SIZE(poll_cases); i++) {
		const struct poll_case *c = &poll_cases[i];

		snprintf(path, sizeof(path), "poll-%zu", i);
		fd[0] = fd[1] = fd[2] = fd[3] = -1;
		p = make_state(self->family, c->type, c->state, path, fd);
		EXPECT_LE(0, p) TH_LOG("%s, %s: setup failed", type_name(c->type),
				       poll_state_names[c->state]);
		if (p >= 0) {
			all = revents(p, ALL_EVENTS);
			in = revents(p, POLLIN);
			if (all != c->all || in != c->in) {
				mask_name(all, got, sizeof(got));
				mask_name(c->all, want, sizeof(want));
				TH_LOG("%s, %s: all events: got %s, want %s", type_name(c->type),
				       poll_state_names[c->state], got, want);
				mask_name(in, got, sizeof(got));
				mask_name(c->in, want, sizeof(want));
				TH_LOG("%s, %s: POLLIN alone: got %s, want %s", type_name(c->type),
				       poll_state_names[c->state], got, want);
			}
			EXPECT_EQ(c->all, all);
			EXPECT_EQ(c->in, in);
		}
		for (j = 0; j < 4; j++)
			if (fd[j] >= 0)
				close(fd[j]);
	}
}

/* ---- ioctls ---- */

TEST_F(datapath, siocinq)
{
	char buf[16];
	int sv[2], fd;

	/* stream: the unread bytes of every skb, less what was read of the first */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(5, send(sv[0], "defgh", 5, 0));
	EXPECT_EQ(8, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(0, ioctl_int(sv[0], SIOCINQ));
	EXPECT_EQ(4, recv(sv[1], buf, 4, MSG_PEEK));
	EXPECT_EQ(8, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(2, recv(sv[1], buf, 2, 0));
	EXPECT_EQ(6, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(3, recv(sv[1], buf, 3, 0));	/* "c" and "de": across the skbs */
	EXPECT_EQ(0, memcmp(buf, "cde", 3));
	EXPECT_EQ(3, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(3, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCINQ));
	close(sv[0]);
	close(sv[1]);

	/* seqpacket: the sum of the queued records */
	ASSERT_EQ(0, socketpair(self->family, SOCK_SEQPACKET, 0, sv));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(5, send(sv[0], "defgh", 5, 0));
	EXPECT_EQ(0, send(sv[0], "", 0, 0));
	EXPECT_EQ(8, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(3, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(5, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(2, recv(sv[1], buf, 2, 0));	/* truncated: the rest is gone */
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	close(sv[0]);
	close(sv[1]);

	/* dgram: the length of the next datagram only */
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, sv));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(5, send(sv[0], "defgh", 5, 0));
	EXPECT_EQ(0, send(sv[0], "", 0, 0));
	EXPECT_EQ(1, send(sv[0], "i", 1, 0));
	EXPECT_EQ(3, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(3, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(5, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(1, recv(sv[1], buf, 1, 0));
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCINQ));	/* the empty datagram */
	EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(1, ioctl_int(sv[1], SIOCINQ));
	EXPECT_EQ(1, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCINQ));
	close(sv[0]);
	close(sv[1]);

	/* a listening socket: EINVAL, with or without pending connections */
	fd = listener(self->family, SOCK_STREAM, "inq-l");
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, ioctl_int(fd, SIOCINQ));
	sv[0] = connected(self->family, SOCK_STREAM, "inq-l");
	ASSERT_LE(0, sv[0]);
	EXPECT_EQ(1, send(sv[0], "x", 1, 0));
	EXPECT_EQ(-EINVAL, ioctl_int(fd, SIOCINQ));
	EXPECT_EQ(0, ioctl_int(fd, SIOCOUTQ));
	close(sv[0]);
	close(fd);
	fd = listener(self->family, SOCK_SEQPACKET, "inq-q");
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, ioctl_int(fd, SIOCINQ));
	close(fd);

	/* unconnected sockets: nothing queued */
	for (int t = 0; t < 3; t++) {
		fd = socket(self->family, types[t], 0);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, ioctl_int(fd, SIOCINQ));
		EXPECT_EQ(0, ioctl_int(fd, SIOCOUTQ));
		close(fd);
	}
}

TEST_F(datapath, siocoutq)
{
	char buf[256] = { 0 };
	int t, sv[2], r, s, outq;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, sv));
		EXPECT_EQ(0, ioctl_int(sv[0], SIOCOUTQ));
		EXPECT_EQ(100, send(sv[0], buf, 100, 0));
		outq = ioctl_int(sv[0], SIOCOUTQ);
		EXPECT_LE(100, outq) TH_LOG("%s", type_name(types[t]));
		/* the receiver's SIOCOUTQ is its own */
		EXPECT_EQ(0, ioctl_int(sv[1], SIOCOUTQ));
		EXPECT_EQ(10, send(sv[0], buf, 10, 0));
		EXPECT_LT(outq, ioctl_int(sv[0], SIOCOUTQ));
		if (types[t] == SOCK_STREAM) {
			/* a partly read skb is still charged in full */
			outq = ioctl_int(sv[0], SIOCOUTQ);
			EXPECT_EQ(50, recv(sv[1], buf, 50, 0));
			EXPECT_EQ(outq, ioctl_int(sv[0], SIOCOUTQ));
			EXPECT_EQ(60, recv(sv[1], buf, sizeof(buf), 0));
		} else {
			EXPECT_EQ(100, recv(sv[1], buf, sizeof(buf), 0));
			EXPECT_LT(0, ioctl_int(sv[0], SIOCOUTQ));
			EXPECT_EQ(10, recv(sv[1], buf, sizeof(buf), 0));
		}
		EXPECT_EQ(0, ioctl_int(sv[0], SIOCOUTQ)) TH_LOG("%s", type_name(types[t]));
		/* a peek frees nothing */
		EXPECT_EQ(5, send(sv[0], buf, 5, 0));
		EXPECT_EQ(5, recv(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_LT(0, ioctl_int(sv[0], SIOCOUTQ));
		EXPECT_EQ(5, recv(sv[1], buf, sizeof(buf), 0));
		EXPECT_EQ(0, ioctl_int(sv[0], SIOCOUTQ));
		close(sv[0]);
		close(sv[1]);
	}

	/* a datagram sender connected one way: charged until the receiver reads */
	r = path_bound(self->family, SOCK_DGRAM, "outq-r");
	ASSERT_LE(0, r);
	s = connected(self->family, SOCK_DGRAM, "outq-r");
	ASSERT_LE(0, s);
	EXPECT_EQ(3, send(s, "abc", 3, 0));
	EXPECT_LT(0, ioctl_int(s, SIOCOUTQ));
	EXPECT_EQ(3, recv(r, buf, sizeof(buf), 0));
	EXPECT_EQ(0, ioctl_int(s, SIOCOUTQ));
	/* data dropped with its closed receiver is uncharged too */
	EXPECT_EQ(3, send(s, "abc", 3, 0));
	EXPECT_LT(0, ioctl_int(s, SIOCOUTQ));
	close(r);
	EXPECT_EQ(0, ioctl_int(s, SIOCOUTQ));
	close(s);
}

/*
 * What SIOCOUTQ, SIOCINQ and the send buffer show along a fixed sequence of sends
 * and reads on a pair of `type` (values that depend on skb truesize): the number of
 * values written to `v`.
 */
static int truesize_trace(int family, int type, int *v)
{
	static const int sizes[] = { 0, 1, 100, 1000, 4000, 5000, 33000, 70000 };
	static char buf[1 << 20];
	int sv[2], n = 0, i;
	long bytes;

	if (socketpair(family, type, 0, sv))
		return -1;
	v[n++] = ioctl_int(sv[0], SIOCOUTQ);
	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		v[n++] = send(sv[0], buf, sizes[i], MSG_DONTWAIT);
		v[n++] = ioctl_int(sv[0], SIOCOUTQ);
		v[n++] = ioctl_int(sv[1], SIOCINQ);
	}
	for (i = 0; i < 3; i++) {
		v[n++] = recv(sv[1], buf, 700, 0);
		v[n++] = ioctl_int(sv[0], SIOCOUTQ);
		v[n++] = ioctl_int(sv[1], SIOCINQ);
	}
	v[n++] = drain(sv[1]);
	v[n++] = ioctl_int(sv[0], SIOCOUTQ);
	/* how much fits: 1-byte sends, then 1000-byte sends */
	v[n++] = fill(sv[0], 1, NULL);
	v[n++] = ioctl_int(sv[0], SIOCOUTQ);
	v[n++] = revents(sv[0], POLLOUT);
	v[n++] = drain(sv[1]);
	v[n++] = fill(sv[0], 1000, &bytes);
	v[n++] = bytes;
	v[n++] = ioctl_int(sv[0], SIOCOUTQ);
	/* reading some makes it writable again at a quarter of the send buffer */
	for (i = 0; i < 300 && !(revents(sv[0], POLLOUT) & POLLOUT); i++)
		if (recv(sv[1], buf, 1000, MSG_DONTWAIT) < 0)
			break;
	v[n++] = i;
	v[n++] = ioctl_int(sv[0], SIOCOUTQ);
	v[n++] = drain(sv[1]);
	v[n++] = ioctl_int(sv[0], SIOCOUTQ);
	/* a big blocking stream send with SO_SNDTIMEO: the part that fitted */
	if (type == SOCK_STREAM && !set_timeo(sv[0], SO_SNDTIMEO, 10)) {
		v[n++] = send(sv[0], buf, sizeof(buf), 0);
		v[n++] = ioctl_int(sv[0], SIOCOUTQ);
		v[n++] = ioctl_int(sv[1], SIOCINQ);
	}
	close(sv[0]);
	close(sv[1]);
	return n;
}

/* Cross-family: the same sequence on AF_UNIX and on the variant's family. */
TEST_F(datapath, truesize_like_af_unix)
{
	int ref[64], ours[64], t, i, n;

	for (t = 0; t < 3; t++) {
		n = truesize_trace(AF_UNIX, types[t], ref);
		ASSERT_LT(0, n);
		ASSERT_EQ(n, truesize_trace(self->family, types[t], ours));
		for (i = 0; i < n; i++)
			EXPECT_EQ(ref[i], ours[i]) TH_LOG("%s: value %d", type_name(types[t]), i);
	}
}

TEST_F(datapath, siocunixfile)
{
	struct sockaddr_un sun;
	struct stat st, fst;
	int fd, l, c, a, f, len;

	/* a pathname socket: an O_PATH, close-on-exec fd of its inode */
	l = listener(self->family, SOCK_STREAM, "ufile");
	ASSERT_LE(0, l);
	ASSERT_EQ(0, stat("ufile", &st));
	f = ioctl(l, SIOCUNIXFILE, 0);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fstat(f, &fst));
	EXPECT_EQ(st.st_ino, fst.st_ino);
	EXPECT_EQ(st.st_dev, fst.st_dev);
	EXPECT_TRUE(S_ISSOCK(fst.st_mode));
	EXPECT_EQ(O_PATH, fcntl(f, F_GETFL) & O_PATH);
	EXPECT_EQ(FD_CLOEXEC, fcntl(f, F_GETFD));
	EXPECT_EQ(-1, read(f, &fd, 1));
	EXPECT_EQ(EBADF, errno);
	close(f);

	/* the accepted socket has the listener's path; its unbound client has none */
	c = connected(self->family, SOCK_STREAM, "ufile");
	ASSERT_LE(0, c);
	a = accept(l, NULL, NULL);
	ASSERT_LE(0, a);
	f = ioctl(a, SIOCUNIXFILE, 0);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fstat(f, &fst));
	EXPECT_EQ(st.st_ino, fst.st_ino);
	close(f);
	EXPECT_EQ(ENOENT, ERRNO_OF(ioctl(c, SIOCUNIXFILE, 0)));
	close(a);
	close(c);

	/* the inode stays reachable after the unlink */
	EXPECT_EQ(0, unlink("ufile"));
	f = ioctl(l, SIOCUNIXFILE, 0);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fstat(f, &fst));
	EXPECT_EQ(st.st_ino, fst.st_ino);
	EXPECT_EQ(0, (int)fst.st_nlink);
	close(f);
	close(l);

	/* any type */
	fd = path_bound(self->family, SOCK_DGRAM, "ufile-d");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, stat("ufile-d", &st));
	f = ioctl(fd, SIOCUNIXFILE, 0);
	ASSERT_LE(0, f);
	ASSERT_EQ(0, fstat(f, &fst));
	EXPECT_EQ(st.st_ino, fst.st_ino);
	close(f);
	close(fd);

	/* unbound, abstract and autobound sockets: ENOENT */
	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOENT, ERRNO_OF(ioctl(fd, SIOCUNIXFILE, 0)));
	len = abstract_addrf(&sun, self->family, "ufile-abstract");
	ASSERT_EQ(0, bind(fd, SA(&sun), len));
	EXPECT_EQ(ENOENT, ERRNO_OF(ioctl(fd, SIOCUNIXFILE, 0)));
	close(fd);
	fd = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	sun.sun_family = self->family;
	ASSERT_EQ(0, bind(fd, SA(&sun), sizeof(sa_family_t)));
	EXPECT_EQ(ENOENT, ERRNO_OF(ioctl(fd, SIOCUNIXFILE, 0)));
	close(fd);
}

TEST_F(datapath, siocatmark)
{
	int sv[2], t, fd;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCATMARK));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(0, ioctl_int(sv[1], SIOCATMARK));
	EXPECT_EQ(0, ioctl_int(sv[0], SIOCATMARK));
	close(sv[0]);
	close(sv[1]);
	fd = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl_int(fd, SIOCATMARK));
	close(fd);
	/* not a stream: EOPNOTSUPP */
	for (t = 1; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, sv));
		EXPECT_EQ(-EOPNOTSUPP, ioctl_int(sv[0], SIOCATMARK));
		close(sv[0]);
		close(sv[1]);
	}
}

/* ---- SO_PEEK_OFF ---- */

/* recv() into buf (NUL-terminated): the return value. */
static int recv_str(int fd, char *buf, int len, int flags)
{
	int n = recv(fd, buf, len, flags);

	buf[n > 0 ? (n < len ? n : len) : 0] = 0;
	return n;
}

TEST_F(datapath, peek_off_stream)
{
	char buf[32];
	int sv[2];

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	EXPECT_EQ(-1, get_int(sv[1], SO_PEEK_OFF));
	EXPECT_EQ(6, send(sv[0], "abcdef", 6, 0));
	EXPECT_EQ(4, send(sv[0], "ghij", 4, 0));
	/* the default: every peek starts at the head */
	EXPECT_EQ(2, recv_str(sv[1], buf, 2, MSG_PEEK));
	EXPECT_STREQ("ab", buf);
	EXPECT_EQ(2, recv_str(sv[1], buf, 2, MSG_PEEK));
	EXPECT_STREQ("ab", buf);
	EXPECT_EQ(-1, get_int(sv[1], SO_PEEK_OFF));

	ASSERT_EQ(0, set_int(sv[1], SO_PEEK_OFF, 0));
	EXPECT_EQ(0, get_int(sv[1], SO_PEEK_OFF));
	EXPECT_EQ(2, recv_str(sv[1], buf, 2, MSG_PEEK));
	EXPECT_STREQ("ab", buf);
	EXPECT_EQ(2, recv_str(sv[1], buf, 2, MSG_PEEK));
	EXPECT_STREQ("cd", buf);
	EXPECT_EQ(4, get_int(sv[1], SO_PEEK_OFF));
	/* a peek goes on into the next skb */
	EXPECT_EQ(4, recv_str(sv[1], buf, 4, MSG_PEEK));
	EXPECT_STREQ("efgh", buf);
	EXPECT_EQ(8, get_int(sv[1], SO_PEEK_OFF));
	/* a read starts at the head and moves the offset back by what it read */
	EXPECT_EQ(3, recv_str(sv[1], buf, 3, 0));
	EXPECT_STREQ("abc", buf);
	EXPECT_EQ(5, get_int(sv[1], SO_PEEK_OFF));
	EXPECT_EQ(2, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
	EXPECT_STREQ("ij", buf);
	EXPECT_EQ(7, get_int(sv[1], SO_PEEK_OFF));
	/* at the end of the data: nothing to peek */
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(sv[1], buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT)));
	EXPECT_EQ(7, get_int(sv[1], SO_PEEK_OFF));
	/* new data is peeked from the offset */
	EXPECT_EQ(3, send(sv[0], "klm", 3, 0));
	EXPECT_EQ(3, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
	EXPECT_STREQ("klm", buf);
	EXPECT_EQ(10, get_int(sv[1], SO_PEEK_OFF));
	/* a read across skbs moves it back by all it read */
	EXPECT_EQ(5, recv_str(sv[1], buf, 5, 0));
	EXPECT_STREQ("defgh", buf);
	EXPECT_EQ(5, get_int(sv[1], SO_PEEK_OFF));
	/* and never below 0 */
	EXPECT_EQ(5, recv_str(sv[1], buf, sizeof(buf), 0));
	EXPECT_STREQ("ijklm", buf);
	EXPECT_EQ(0, get_int(sv[1], SO_PEEK_OFF));
	EXPECT_EQ(4, send(sv[0], "nopq", 4, 0));
	EXPECT_EQ(4, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(0, get_int(sv[1], SO_PEEK_OFF));

	/* an offset set past the data, then data arriving */
	ASSERT_EQ(0, set_int(sv[1], SO_PEEK_OFF, 3));
	EXPECT_EQ(2, send(sv[0], "rs", 2, 0));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(sv[1], buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT)));
	EXPECT_EQ(3, send(sv[0], "tuv", 3, 0));
	EXPECT_EQ(2, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
	EXPECT_STREQ("uv", buf);
	EXPECT_EQ(5, get_int(sv[1], SO_PEEK_OFF));

	/* back to -1: peeks from the head, the offset stays -1 */
	ASSERT_EQ(0, set_int(sv[1], SO_PEEK_OFF, -1));
	EXPECT_EQ(5, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
	EXPECT_STREQ("rstuv", buf);
	EXPECT_EQ(-1, get_int(sv[1], SO_PEEK_OFF));
	EXPECT_EQ(5, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(-1, get_int(sv[1], SO_PEEK_OFF));
	close(sv[0]);
	close(sv[1]);
}

TEST_F(datapath, peek_off_dgram)
{
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	char buf[32];
	int t, sv[2];

	for (t = 1; t < 3; t++) {	/* DGRAM, SEQPACKET */
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, sv));
		EXPECT_EQ(-1, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(4, send(sv[0], "abcd", 4, 0));
		EXPECT_EQ(4, send(sv[0], "efgh", 4, 0));
		EXPECT_EQ(3, send(sv[0], "ijk", 3, 0));
		ASSERT_EQ(0, set_int(sv[1], SO_PEEK_OFF, 0));
		/* a short peek: truncated, the offset moves by what was copied */
		iov.iov_base = buf;
		iov.iov_len = 2;
		mh.msg_flags = 0;
		EXPECT_EQ(2, recvmsg(sv[1], &mh, MSG_PEEK));
		EXPECT_EQ(MSG_TRUNC, mh.msg_flags & MSG_TRUNC);
		EXPECT_EQ(0, memcmp(buf, "ab", 2));
		EXPECT_EQ(2, get_int(sv[1], SO_PEEK_OFF));
		/* the rest of the datagram, from the offset, not truncated */
		iov.iov_len = sizeof(buf);
		mh.msg_flags = 0;
		EXPECT_EQ(2, recvmsg(sv[1], &mh, MSG_PEEK));
		EXPECT_EQ(0, mh.msg_flags & MSG_TRUNC);
		EXPECT_EQ(0, memcmp(buf, "cd", 2));
		EXPECT_EQ(4, get_int(sv[1], SO_PEEK_OFF));
		/* at its end: the next datagram */
		EXPECT_EQ(4, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_STREQ("efgh", buf);
		EXPECT_EQ(8, get_int(sv[1], SO_PEEK_OFF));
		/* MSG_TRUNC: the length from the offset; the offset moves by the copy */
		EXPECT_EQ(3, recv(sv[1], buf, 1, MSG_PEEK | MSG_TRUNC));
		EXPECT_EQ('i', buf[0]);
		EXPECT_EQ(9, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(2, recv(sv[1], buf, 0, MSG_PEEK | MSG_TRUNC));
		EXPECT_EQ(9, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(2, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_STREQ("jk", buf);
		EXPECT_EQ(11, get_int(sv[1], SO_PEEK_OFF));
		/* past the last datagram */
		EXPECT_EQ(EAGAIN,
			  ERRNO_OF(recv(sv[1], buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT)));
		/* a read takes the whole first datagram and moves back by its length */
		EXPECT_EQ(1, recv(sv[1], buf, 1, 0));
		EXPECT_EQ('a', buf[0]);
		EXPECT_EQ(7, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(EAGAIN,
			  ERRNO_OF(recv(sv[1], buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT)));
		ASSERT_EQ(0, set_int(sv[1], SO_PEEK_OFF, 5));
		EXPECT_EQ(2, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_STREQ("jk", buf);
		EXPECT_EQ(7, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(4, recv_str(sv[1], buf, sizeof(buf), 0));
		EXPECT_STREQ("efgh", buf);
		EXPECT_EQ(3, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(3, recv(sv[1], buf, sizeof(buf), MSG_TRUNC));
		EXPECT_EQ(0, get_int(sv[1], SO_PEEK_OFF));
		/* an empty datagram is peeked once, then skipped by the offset */
		EXPECT_EQ(0, send(sv[0], "", 0, 0));
		EXPECT_EQ(2, send(sv[0], "xy", 2, 0));
		EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_EQ(0, get_int(sv[1], SO_PEEK_OFF));
		EXPECT_EQ(2, recv_str(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_STREQ("xy", buf);
		EXPECT_EQ(2, get_int(sv[1], SO_PEEK_OFF));
		/* -1 again: peeks from the head, which is the empty datagram */
		ASSERT_EQ(0, set_int(sv[1], SO_PEEK_OFF, -1));
		EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), 0));
		EXPECT_EQ(2, recv(sv[1], buf, sizeof(buf), MSG_PEEK));
		EXPECT_EQ(2, recv(sv[1], buf, sizeof(buf), 0));
		EXPECT_EQ(-1, get_int(sv[1], SO_PEEK_OFF));
		close(sv[0]);
		close(sv[1]);
	}
}

/*
 * ---- net.unix.max_dgram_qlen, per netns: the family follows AF_UNIX's sysctl (as a
 * program moved to it expects: systemd raises it at boot) ----
 */

static const char *qlen_path(int family)
{
	(void)family;
	return "/proc/sys/net/unix/max_dgram_qlen";
}

static int read_qlen(int family)
{
	return read_int_file(qlen_path(family));
}

/* Writes the sysctl: 0, or the errno of the write. */
static int write_qlen(int family, const char *val)
{
	return write_file(qlen_path(family), val);
}

/* In a new netns (in a child): 0, or the step that failed. */
static int qlen_in_new_netns(int family)
{
	struct sockaddr_un sun;
	int r_old, r, s, sv[2], len, err;
	char buf[4];

	if (unshare(CLONE_NEWNET))
		return 1;
	if (read_qlen(family) != 10)
		return 2;
	/*
	 * A negative value: 6.12 refuses it (EINVAL: .extra1 = SYSCTL_ZERO), later
	 * kernels may not; the variant's sysctl must do what AF_UNIX's does here.
	 */
	err = write_qlen(AF_UNIX, "-1\n");
	if (err != 0 && err != EINVAL)
		return 3;
	if (write_qlen(family, "-1\n") != err || read_qlen(family) != (err ? 10 : -1))
		return 4;
	if (write_qlen(family, "10\n") || read_qlen(family) != 10)
		return 5;
	/* a receiver made before the change keeps its limit */
	r_old = socket(family, SOCK_DGRAM, 0);
	len = abstract_addrf(&sun, family, "qlen-old");
	if (r_old < 0 || bind(r_old, SA(&sun), len))
		return 6;
	if (write_qlen(family, "3\n") || read_qlen(family) != 3)
		return 7;
	s = socket(family, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, SA(&sun), len))
		return 8;
	if (fill(s, 1, NULL) != 11)
		return 9;
	close(s);
	/* a receiver made after it: 3 queued + 1, then EAGAIN */
	r = socket(family, SOCK_DGRAM, 0);
	len = abstract_addrf(&sun, family, "qlen-new");
	if (r < 0 || bind(r, SA(&sun), len))
		return 10;
	s = socket(family, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, SA(&sun), len))
		return 11;
	if (fill(s, 1, NULL) != 4)
		return 12;
	if (recv(r, buf, sizeof(buf), 0) != 1 || fill(s, 1, NULL) != 1)
		return 13;
	/* a pair connected both ways is not limited by it */
	if (socketpair(family, SOCK_DGRAM, 0, sv))
		return 14;
	for (len = 0; len < 20; len++)
		if (send(sv[0], "x", 1, MSG_DONTWAIT) != 1)
			return 15;
	return 0;
}

TEST_F(datapath, max_dgram_qlen)
{
	int status;
	pid_t pid;

	ASSERT_EQ(10, read_qlen(self->family));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(qlen_in_new_netns(self->family));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("failed at step %d", WEXITSTATUS(status));
	/* this netns is untouched */
	EXPECT_EQ(10, read_qlen(self->family));
}

/* ---- receive and send flags, timeouts ---- */

/* A child's recv() of `len` bytes with `flags`: 0 if it got exactly `want`. */
static int recv_expect(int fd, int len, int flags, const char *want)
{
	char buf[64];
	int n = recv(fd, buf, len, flags);

	if (n < 0)
		return 100 + errno;
	return n == (int)strlen(want) && !memcmp(buf, want, n) ? 0 : 1 + n;
}

TEST_F(datapath, msg_waitall)
{
	int sv[2], status;
	char buf[16];
	pid_t pid;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	/* the data arrives in three pieces: one recv() returns it all */
	EXPECT_EQ(2, send(sv[0], "ab", 2, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(recv_expect(sv[1], 10, MSG_WAITALL, "abcdefghij"));
	ASSERT_EQ(0, wait_until_sleeping(pid));
	EXPECT_EQ(3, send(sv[0], "cde", 3, 0));
	ASSERT_EQ(0, wait_until_sleeping(pid));
	EXPECT_EQ(5, send(sv[0], "fghij", 5, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %x", status);

	/* the writer's shutdown ends the wait with what there is */
	EXPECT_EQ(2, send(sv[0], "kl", 2, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(recv_expect(sv[1], 10, MSG_WAITALL, "klm"));
	ASSERT_EQ(0, wait_until_sleeping(pid));
	EXPECT_EQ(1, send(sv[0], "m", 1, 0));
	ASSERT_EQ(0, wait_until_sleeping(pid));
	EXPECT_EQ(0, shutdown(sv[0], SHUT_WR));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %x", status);
	close(sv[0]);
	close(sv[1]);

	/* with MSG_DONTWAIT: what there is */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(3, recv(sv[1], buf, 10, MSG_WAITALL | MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(sv[1], buf, 10, MSG_WAITALL | MSG_DONTWAIT)));
	close(sv[0]);
	close(sv[1]);

	/* records: one at a time, MSG_WAITALL or not */
	ASSERT_EQ(0, socketpair(self->family, SOCK_SEQPACKET, 0, sv));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(3, send(sv[0], "def", 3, 0));
	EXPECT_EQ(3, recv(sv[1], buf, 10, MSG_WAITALL));
	close(sv[0]);
	close(sv[1]);
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, sv));
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	EXPECT_EQ(3, send(sv[0], "def", 3, 0));
	EXPECT_EQ(3, recv(sv[1], buf, 10, MSG_WAITALL));
	close(sv[0]);
	close(sv[1]);
}

TEST_F(datapath, so_rcvlowat)
{
	int sv[2], status;
	char buf[16];
	pid_t pid;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_int(sv[1], SO_RCVLOWAT, 5));
	EXPECT_EQ(5, get_int(sv[1], SO_RCVLOWAT));
	/* 3 of 5 bytes queued: a blocking recv() waits for the rest */
	EXPECT_EQ(3, send(sv[0], "abc", 3, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(recv_expect(sv[1], 10, 0, "abcde"));
	ASSERT_EQ(0, wait_until_sleeping(pid));
	EXPECT_EQ(2, send(sv[0], "de", 2, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %x", status);
	/* non-blocking: what there is */
	EXPECT_EQ(3, send(sv[0], "fgh", 3, 0));
	EXPECT_EQ(3, recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	/* a buffer smaller than the mark: the buffer's length is enough */
	EXPECT_EQ(3, send(sv[0], "ijk", 3, 0));
	EXPECT_EQ(2, recv(sv[1], buf, 2, 0));
	/* poll() does not look at the mark */
	EXPECT_EQ(POLLIN, revents(sv[1], POLLIN));
	EXPECT_EQ(1, recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	close(sv[0]);
	close(sv[1]);

	/* datagrams ignore it (a hang guard, should it wait) */
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, sv));
	ASSERT_EQ(0, set_int(sv[1], SO_RCVLOWAT, 5));
	ASSERT_EQ(0, set_timeo(sv[1], SO_RCVTIMEO, 10000));
	EXPECT_EQ(1, send(sv[0], "a", 1, 0));
	EXPECT_EQ(1, recv(sv[1], buf, sizeof(buf), 0));
	close(sv[0]);
	close(sv[1]);
}

TEST_F(datapath, so_rcvtimeo)
{
	int t, sv[2], l, c;
	char buf[8];

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, sv));
		ASSERT_EQ(0, set_timeo(sv[1], SO_RCVTIMEO, 10));
		EXPECT_EQ(EAGAIN, ERRNO_OF(recv(sv[1], buf, sizeof(buf), 0)))
			TH_LOG("%s", type_name(types[t]));
		/* it still works afterwards */
		EXPECT_EQ(1, send(sv[0], "x", 1, 0));
		EXPECT_EQ(1, recv(sv[1], buf, sizeof(buf), 0));
		EXPECT_EQ(EAGAIN, ERRNO_OF(recv(sv[1], buf, sizeof(buf), MSG_WAITALL)));
		close(sv[0]);
		close(sv[1]);
	}
	/* accept() */
	l = listener(self->family, SOCK_STREAM, "rcvtimeo-l");
	ASSERT_LE(0, l);
	ASSERT_EQ(0, set_timeo(l, SO_RCVTIMEO, 10));
	EXPECT_EQ(EAGAIN, ERRNO_OF(accept(l, NULL, NULL)));
	c = connected(self->family, SOCK_STREAM, "rcvtimeo-l");
	ASSERT_LE(0, c);
	t = accept(l, NULL, NULL);
	EXPECT_LE(0, t);
	close(t);
	close(c);
	close(l);
	/* a bound, unconnected datagram socket */
	l = path_bound(self->family, SOCK_DGRAM, "rcvtimeo-d");
	ASSERT_LE(0, l);
	ASSERT_EQ(0, set_timeo(l, SO_RCVTIMEO, 10));
	EXPECT_EQ(EAGAIN, ERRNO_OF(recv(l, buf, sizeof(buf), 0)));
	close(l);
}

TEST_F(datapath, so_sndtimeo)
{
	static char big[1 << 20];
	int t, sv[2], r, s, n;
	long bytes;

	/* a full send buffer: EAGAIN when the time is up */
	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, sv));
		ASSERT_LT(0, fill(sv[0], 4096, NULL)) TH_LOG("%s", type_name(types[t]));
		ASSERT_EQ(0, set_timeo(sv[0], SO_SNDTIMEO, 10));
		EXPECT_EQ(EAGAIN, ERRNO_OF(send(sv[0], "x", 1, 0))) TH_LOG("%s", type_name(types[t]));
		EXPECT_EQ(EAGAIN, ERRNO_OF(send(sv[0], big, 4096, 0)));
		close(sv[0]);
		close(sv[1]);
	}
	/* a stream send larger than the buffer: the part that fitted */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, set_timeo(sv[0], SO_SNDTIMEO, 10));
	n = send(sv[0], big, sizeof(big), 0);
	EXPECT_LT(0, n);
	EXPECT_GT((int)sizeof(big), n);
	EXPECT_EQ(n, drain(sv[1]));
	close(sv[0]);
	close(sv[1]);
	/* a datagram sender whose receiver's queue is full */
	r = path_bound(self->family, SOCK_DGRAM, "sndtimeo-r");
	ASSERT_LE(0, r);
	s = connected(self->family, SOCK_DGRAM, "sndtimeo-r");
	ASSERT_LE(0, s);
	EXPECT_EQ(11, fill(s, 1, &bytes));
	ASSERT_EQ(0, set_timeo(s, SO_SNDTIMEO, 10));
	EXPECT_EQ(EAGAIN, ERRNO_OF(send(s, "x", 1, 0)));
	close(s);
	close(r);
}

TEST_F(datapath, msg_dontwait_on_blocking_socket)
{
	char buf[8];
	int t, sv[2];

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, sv));
		EXPECT_EQ(0, fcntl(sv[0], F_GETFL) & O_NONBLOCK);
		EXPECT_EQ(EAGAIN, ERRNO_OF(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT)));
		EXPECT_LT(0, fill(sv[0], 4096, NULL)) TH_LOG("%s", type_name(types[t]));
		EXPECT_EQ(EAGAIN, ERRNO_OF(send(sv[0], "x", 1, MSG_DONTWAIT)));
		/* the socket stays blocking */
		EXPECT_EQ(0, fcntl(sv[0], F_GETFL) & O_NONBLOCK);
		EXPECT_LT(0, drain(sv[1]));
		close(sv[0]);
		close(sv[1]);
	}
}

/* Counted by the handler (its address escapes: calls reload it). */
static int sigpipes;

static void count_sigpipe(int sig)
{
	sigpipes++;
}

/* A datagram pair's send after its own shutdown(SHUT_WR): 0 or its errno. */
static int dgram_send_after_shut_wr(int family)
{
	int sv[2], err;
	char c;

	if (socketpair(family, SOCK_DGRAM, 0, sv))
		return -1;
	err = shutdown(sv[0], SHUT_WR) ? -1 : ERRNO_OF(send(sv[0], "x", 1, 0));
	if (!err && recv(sv[1], &c, 1, MSG_DONTWAIT) != 1)
		err = -1;
	close(sv[0]);
	close(sv[1]);
	return err;
}

TEST_F(datapath, msg_nosignal)
{
	struct sigaction sa = { .sa_handler = count_sigpipe };
	int sv[2], err;

	ASSERT_EQ(0, sigaction(SIGPIPE, &sa, NULL));
	sigpipes = 0;

	/* stream, peer closed */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	close(sv[1]);
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, MSG_NOSIGNAL)));
	EXPECT_EQ(0, sigpipes);
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, 0)));
	EXPECT_EQ(1, sigpipes);
	EXPECT_EQ(EPIPE, ERRNO_OF(write(sv[0], "x", 1)));
	EXPECT_EQ(2, sigpipes);
	close(sv[0]);

	/* stream, own SHUT_WR and peer SHUT_RD */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	EXPECT_EQ(0, shutdown(sv[0], SHUT_WR));
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, MSG_NOSIGNAL)));
	EXPECT_EQ(2, sigpipes);
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, 0)));
	EXPECT_EQ(3, sigpipes);
	EXPECT_EQ(0, shutdown(sv[0], SHUT_RD));	/* the peer can't send: SHUT_RD mirrored */
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[1], "x", 1, MSG_NOSIGNAL)));
	EXPECT_EQ(3, sigpipes);
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[1], "x", 1, 0)));
	EXPECT_EQ(4, sigpipes);
	close(sv[0]);
	close(sv[1]);

	/* seqpacket: EPIPE, but never SIGPIPE */
	ASSERT_EQ(0, socketpair(self->family, SOCK_SEQPACKET, 0, sv));
	EXPECT_EQ(0, shutdown(sv[0], SHUT_WR));
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, 0)));
	close(sv[1]);
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, 0)));
	EXPECT_EQ(4, sigpipes);
	close(sv[0]);

	/* dgram: the receiver's SHUT_RD gives EPIPE, no SIGPIPE; own SHUT_WR stops nothing */
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, sv));
	EXPECT_EQ(0, shutdown(sv[1], SHUT_RD));
	EXPECT_EQ(EPIPE, ERRNO_OF(send(sv[0], "x", 1, 0)));
	EXPECT_EQ(4, sigpipes);
	close(sv[0]);
	close(sv[1]);
	/* own SHUT_WR: 6.12 sends anyway, later kernels say EPIPE: do as AF_UNIX here */
	err = dgram_send_after_shut_wr(AF_UNIX);
	EXPECT_TRUE(err == 0 || err == EPIPE) TH_LOG("AF_UNIX: %d", err);
	EXPECT_EQ(err, dgram_send_after_shut_wr(self->family));
	EXPECT_EQ(4, sigpipes);
}

TEST_F(datapath, seqpacket_limits)
{
	int sv[2], sndbuf, l, c, b;
	char buf[8], *big;

	ASSERT_EQ(0, socketpair(self->family, SOCK_SEQPACKET, 0, sv));
	sndbuf = get_int(sv[0], SO_SNDBUF);
	ASSERT_LT(64, sndbuf);
	big = calloc(1, sndbuf);
	ASSERT_NE(NULL, big);
	EXPECT_EQ(EMSGSIZE, ERRNO_OF(send(sv[0], big, sndbuf - 31, MSG_DONTWAIT)));
	EXPECT_EQ(sndbuf - 32, send(sv[0], big, sndbuf - 32, MSG_DONTWAIT));
	EXPECT_EQ(sndbuf - 32, recv(sv[1], big, sndbuf, 0));
	/* a smaller SO_SNDBUF (doubled by the core) lowers the limit */
	ASSERT_EQ(0, set_int(sv[0], SO_SNDBUF, 8192));
	sndbuf = get_int(sv[0], SO_SNDBUF);
	EXPECT_EQ(16384, sndbuf);
	EXPECT_EQ(EMSGSIZE, ERRNO_OF(send(sv[0], big, sndbuf - 31, MSG_DONTWAIT)));
	EXPECT_EQ(sndbuf - 32, send(sv[0], big, sndbuf - 32, MSG_DONTWAIT));
	EXPECT_EQ(sndbuf - 32, recv(sv[1], big, sndbuf, 0));
	free(big);
	/* records still queued when the peer closes are read, then EOF */
	EXPECT_EQ(2, send(sv[0], "ab", 2, 0));
	EXPECT_EQ(1, send(sv[0], "c", 1, 0));
	close(sv[0]);
	EXPECT_EQ(2, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(1, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), 0));
	EXPECT_EQ(0, recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	close(sv[1]);

	/* bound and listening sockets are not connected */
	b = path_bound(self->family, SOCK_SEQPACKET, "sp-b");
	ASSERT_LE(0, b);
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(b, "x", 1, 0)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(recv(b, buf, sizeof(buf), MSG_DONTWAIT)));
	close(b);
	l = listener(self->family, SOCK_SEQPACKET, "sp-l");
	ASSERT_LE(0, l);
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(l, "x", 1, 0)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(recv(l, buf, sizeof(buf), MSG_DONTWAIT)));
	/* a client not yet accepted may send; the records wait for accept() */
	c = connected(self->family, SOCK_SEQPACKET, "sp-l");
	ASSERT_LE(0, c);
	EXPECT_EQ(3, send(c, "pre", 3, 0));
	b = accept(l, NULL, NULL);
	ASSERT_LE(0, b);
	EXPECT_EQ(3, recv(b, buf, sizeof(buf), 0));
	close(b);
	close(c);
	close(l);
}

TEST_F(datapath, recvmsg_names)
{
	struct sockaddr_un sun, from;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	char buf[16];
	int r, s, len, slen, l, c, a;

	r = path_bound(self->family, SOCK_DGRAM, "names-r");
	ASSERT_LE(0, r);
	s = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, s);
	slen = abstract_addrf(&sun, self->family, "datapath-sender");
	ASSERT_EQ(0, bind(s, SA(&sun), slen));
	len = path_addr(&from, self->family, "names-r");
	ASSERT_EQ(0, connect(s, SA(&from), len));
	EXPECT_EQ(6, send(s, "abcdef", 6, 0));
	/* recvmsg(): the sender's name, its length; MSG_TRUNC in msg_flags */
	memset(&from, 0xa5, sizeof(from));
	iov.iov_base = buf;
	iov.iov_len = 4;
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_flags = 0;
	EXPECT_EQ(6, recvmsg(r, &mh, MSG_PEEK | MSG_TRUNC));
	EXPECT_EQ(slen, (int)mh.msg_namelen);
	EXPECT_EQ(0, memcmp(&sun, &from, slen));
	EXPECT_EQ(MSG_TRUNC, mh.msg_flags & MSG_TRUNC);
	/* a short name buffer: the name is cut, msg_namelen is the full length */
	memset(&from, 0xa5, sizeof(from));
	mh.msg_namelen = SUN_OFF + 3;
	mh.msg_flags = 0;
	EXPECT_EQ(4, recvmsg(r, &mh, 0));
	EXPECT_EQ(slen, (int)mh.msg_namelen);
	EXPECT_EQ(0, memcmp(&sun, &from, SUN_OFF + 3));
	EXPECT_EQ((char)0xa5, ((char *)&from)[SUN_OFF + 3]);
	EXPECT_EQ(MSG_TRUNC, mh.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, "abcd", 4));
	close(s);
	close(r);

	/* stream: the name of the socket that sent (the accepted one: the listener's) */
	l = listener(self->family, SOCK_STREAM, "names-l");
	ASSERT_LE(0, l);
	c = connected(self->family, SOCK_STREAM, "names-l");
	ASSERT_LE(0, c);
	a = accept(l, NULL, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(2, send(a, "hi", 2, 0));
	len = path_addr(&sun, self->family, "names-l");
	memset(&from, 0xa5, sizeof(from));
	iov.iov_len = sizeof(buf);
	mh.msg_namelen = sizeof(from);
	EXPECT_EQ(2, recvmsg(c, &mh, 0));
	EXPECT_EQ(len, (int)mh.msg_namelen);
	EXPECT_EQ(0, memcmp(&sun, &from, len));
	/* the unbound client's data has no name */
	EXPECT_EQ(2, send(c, "ho", 2, 0));
	mh.msg_namelen = sizeof(from);
	EXPECT_EQ(2, recvmsg(a, &mh, 0));
	EXPECT_EQ(0, (int)mh.msg_namelen);
	close(a);
	close(c);
	close(l);
}

TEST_F(datapath, dgram_receiver_gone)
{
	struct sockaddr_un sun;
	int r, s, len;

	/* connected one way to a receiver that closes: ECONNREFUSED, then ENOTCONN */
	r = path_bound(self->family, SOCK_DGRAM, "gone-r");
	ASSERT_LE(0, r);
	s = connected(self->family, SOCK_DGRAM, "gone-r");
	ASSERT_LE(0, s);
	EXPECT_EQ(1, send(s, "x", 1, 0));
	close(r);
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(send(s, "x", 1, 0)));
	EXPECT_EQ(ENOTCONN, ERRNO_OF(send(s, "x", 1, 0)));
	/* the name still exists, nobody is bound to it */
	len = path_addr(&sun, self->family, "gone-r");
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(sendto(s, "x", 1, 0, SA(&sun), len)));
	EXPECT_EQ(ECONNREFUSED, ERRNO_OF(connect(s, SA(&sun), len)));
	/* a new receiver on the same path */
	unlink("gone-r");
	r = path_bound(self->family, SOCK_DGRAM, "gone-r");
	ASSERT_LE(0, r);
	EXPECT_EQ(0, connect(s, SA(&sun), len));
	EXPECT_EQ(1, send(s, "y", 1, 0));
	close(r);
	close(s);
}

/* ---- keyed write-space wakeups ---- */

static long voluntary_switches(pid_t pid)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The sum of the voluntary context switches of kids[from..to), -1 on error. */
static long switches_of(const pid_t *kids, int from, int to)
{
	long sum = 0, v;
	int i;

	for (i = from; i < to; i++) {
		v = voluntary_switches(kids[i]);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

/* A child waiting (at most 60 s) for `fd` to be readable: 0 if it then is. */
static int wait_readable(int fd, bool use_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ep;

	if (!use_epoll)
		return poll(&p, 1, 60000) == 1 && p.revents == POLLIN ? 0 : 1;
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		return 2;
	return epoll_wait(ep, &out, 1, 60000) == 1 && out.events == EPOLLIN ? 0 : 3;
}

static int all_sleeping(const pid_t *kids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (wait_until_sleeping(kids[i]))
			return -1;
	return 0;
}

/*
 * POLLERS children poll() and EPOLLERS children epoll_wait() for POLLIN on sv[0];
 * then ROUNDS times: sv[0] writes a byte and sv[1] reads it, which frees sv[0]'s skb
 * and so wakes sv[0]'s write-space waiters. After every round the test waits until
 * every child sleeps again, so that each wakeup a child gets is a voluntary context
 * switch. Gives the increase of the pollers' and the epollers' switches.
 */
static void wakeup_rounds(struct __test_metadata *_metadata, pid_t *kids, int *nkids,
			  int sv[2], long *poll_inc, long *epoll_inc)
{
	const int n = POLLERS + EPOLLERS;
	long p0, e0, p1, e1;
	int i, status, bad = 0;
	char c;

	*nkids = 0;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(wait_readable(sv[0], i >= POLLERS));
		kids[(*nkids)++] = pid;
	}
	ASSERT_EQ(0, all_sleeping(kids, n));
	p0 = switches_of(kids, 0, POLLERS);
	e0 = switches_of(kids, POLLERS, n);
	ASSERT_LE(0, p0);
	ASSERT_LE(0, e0);
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(1, write(sv[0], "w", 1));
		ASSERT_EQ(1, read(sv[1], &c, 1));
		ASSERT_EQ(0, all_sleeping(kids, n));
	}
	p1 = switches_of(kids, 0, POLLERS);
	e1 = switches_of(kids, POLLERS, n);
	ASSERT_LE(0, p1);
	ASSERT_LE(0, e1);
	*poll_inc = p1 - p0;
	*epoll_inc = e1 - e0;

	/* sv[0] readable: every child returns with POLLIN */
	ASSERT_EQ(1, write(sv[1], "r", 1));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		kids[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	*nkids = 0;
	EXPECT_EQ(0, bad);
	ASSERT_EQ(1, read(sv[0], &c, 1));
}

TEST_F_TIMEOUT(datapath, keyed_wakeups, 300)
{
	long poll_inc = -1, epoll_inc = -1;
	int sv[2];

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	/* keyed (the default): pollers waiting for POLLIN sleep through write space */
	wakeup_rounds(_metadata, self->kids, &self->nkids, sv, &poll_inc, &epoll_inc);
	EXPECT_GT(ROUNDS / 10, poll_inc);
	EXPECT_GT(ROUNDS / 10, epoll_inc);
	TH_LOG("keyed: %ld poll, %ld epoll wakeups", poll_inc, epoll_inc);
	if (!variant->ours)
		return;

	/* the module's debug mode: unkeyed write-space wakeups wake every poller */
	ASSERT_EQ(0, set_unkeyed(true));
	self->unkeyed = true;
	wakeup_rounds(_metadata, self->kids, &self->nkids, sv, &poll_inc, &epoll_inc);
	EXPECT_EQ(0, set_unkeyed(false));
	self->unkeyed = false;
	EXPECT_LT(ROUNDS, poll_inc);
	EXPECT_LT(ROUNDS, epoll_inc);
	TH_LOG("unkeyed: %ld poll, %ld epoll wakeups", poll_inc, epoll_inc);
	close(sv[0]);
	close(sv[1]);
}

/*
 * SO_TIMESTAMP and SO_TIMESTAMPNS on receive (issue 26): datagram and seqpacket
 * receivers get SCM_TIMESTAMP / SCM_TIMESTAMPNS with the time of the send (between
 * the clock read before the send and the one after the receive); a stream receiver
 * gets none, as on AF_UNIX. Differential: the cmsg levels, types, lengths, flags and
 * the ordering of the times must be the same on both families.
 */
static void tstamp_scenario(int family, struct trace *t)
{
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET, SOCK_STREAM };
	static const int opts[] = { SO_TIMESTAMP, SO_TIMESTAMPNS };
	union {
		char b[256];
		struct cmsghdr align;
	} u;
	char buf[8];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sv[2], i, j;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < (int)ARRAY_SIZE(types); i++) {
		for (j = 0; j < (int)ARRAY_SIZE(opts); j++) {
			struct timespec before, after;
			struct cmsghdr *c;

			if (socketpair(family, types[i], 0, sv))
				return note(t, -1000);
			note(t, setsockopt(sv[1], SOL_SOCKET, opts[j], &(int){ 1 }, sizeof(int)));
			clock_gettime(CLOCK_REALTIME, &before);
			note(t, send(sv[0], "tick", 4, 0));
			mh.msg_control = u.b;
			mh.msg_controllen = sizeof(u.b);
			mh.msg_flags = 0;
			note(t, recvmsg(sv[1], &mh, MSG_DONTWAIT));
			clock_gettime(CLOCK_REALTIME, &after);
			note(t, mh.msg_flags);
			note(t, mh.msg_controllen);
			for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
				struct timespec ts = { 0, 0 };

				note(t, c->cmsg_level);
				note(t, c->cmsg_type);
				note(t, c->cmsg_len);
				if (c->cmsg_type == SCM_TIMESTAMP) {
					struct timeval tv;

					memcpy(&tv, CMSG_DATA(c), sizeof(tv));
					ts.tv_sec = tv.tv_sec;
					ts.tv_nsec = tv.tv_usec * 1000;
					/* microseconds: compare at that precision */
					before.tv_nsec -= before.tv_nsec % 1000;
				} else if (c->cmsg_type == SCM_TIMESTAMPNS) {
					memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				}
				/* the stamp lies between the clock reads */
				note(t, (ts.tv_sec > before.tv_sec ||
					 (ts.tv_sec == before.tv_sec && ts.tv_nsec >= before.tv_nsec)) &&
					(ts.tv_sec < after.tv_sec ||
					 (ts.tv_sec == after.tv_sec && ts.tv_nsec <= after.tv_nsec)));
			}
			close(sv[0]);
			close(sv[1]);
		}
	}
}

/*
 * SO_INQ (upstream 6.17, option 84; SCM_INQ has the same number): on 6.12 on the family
 * alone (6.12's AF_UNIX does not know it, ENOPROTOOPT), on 7.3 on both. The expected
 * values are upstream's
 * (unix_setsockopt(), unix_stream_read_generic(), and its selftest scm_inq.c): a stream
 * socket's option, an int exactly, 0 or 1; then each successful recvmsg() ends with
 * SCM_INQ, an int of the bytes left (what SIOCINQ says), after SCM_RIGHTS; none for
 * a failed read, for MSG_OOB, or once the option is cleared; MSG_CTRUNC when it does
 * not fit. Datagram and seqpacket sockets: ENOPROTOOPT.
 */
#define SO_INQ_UPSTREAM 84

static int recv_inq(int fd, char *buf, size_t len, int flags, size_t ctl, int *inq,
		    int *msg_flags, int *nfds)
{
	union {
		char b[256];
		struct cmsghdr align;
	} u;
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			    .msg_controllen = ctl };
	struct cmsghdr *c;
	int r = recvmsg(fd, &m, flags | MSG_DONTWAIT);

	*inq = -1;
	*nfds = 0;
	*msg_flags = m.msg_flags;
	if (r < 0)
		return r;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_INQ_UPSTREAM &&
		    c->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(inq, CMSG_DATA(c), sizeof(int));
			/* SCM_INQ comes last: -2 if not */
			if (CMSG_NXTHDR(&m, c))
				*inq = -2;
		}
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int i, n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int), fd2;

			for (i = 0; i < n; i++) {
				memcpy(&fd2, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				close(fd2);
			}
			*nfds += n;
		}
	}
	return r;
}

TEST_F(datapath, so_inq)
{
	int one = 1, zero = 0, two = 2, inq, fl, nfds, v, sv[2], t;
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cbuf = {};
	char buf[300];
	struct iovec iov = { buf, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.b,
			    .msg_controllen = sizeof(cbuf.b) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	long long big = 1;

	memset(buf, 'i', sizeof(buf));
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	if (!variant->ours && !kernel_at_least(6, 17)) {
		EXPECT_EQ(-1, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &one, sizeof(one)));
		EXPECT_EQ(ENOPROTOOPT, errno);
		close_pair(sv);
		return;
	}
	/* Dgram and seqpacket: ENOPROTOOPT, after the length and the read. */
	for (t = 0; t < 2; t++) {
		int p[2];

		ASSERT_EQ(0, socketpair(self->family, t ? SOCK_SEQPACKET : SOCK_DGRAM, 0, p));
		EXPECT_EQ(-1, setsockopt(p[1], SOL_SOCKET, SO_INQ_UPSTREAM, &one, sizeof(one)));
		EXPECT_EQ(ENOPROTOOPT, errno);
		EXPECT_EQ(-1, setsockopt(p[1], SOL_SOCKET, SO_INQ_UPSTREAM, &big, sizeof(big)));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, setsockopt(p[1], SOL_SOCKET, SO_INQ_UPSTREAM, NULL, sizeof(one)));
		EXPECT_EQ(EFAULT, errno);
		close_pair(p);
	}
	/* An int exactly, 0 or 1. */
	EXPECT_EQ(-1, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &big, sizeof(big)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &one, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &two, sizeof(two)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, NULL, sizeof(one)));
	EXPECT_EQ(EFAULT, errno);
	/* Not set: no SCM_INQ. */
	EXPECT_EQ(10, send(sv[0], buf, 10, 0));
	EXPECT_EQ(4, recv_inq(sv[1], buf, 4, 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(-1, inq);
	EXPECT_EQ(0, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &one, sizeof(one)));
	/* The bytes left, after partial reads, across skbs, as SIOCINQ says. */
	EXPECT_EQ(20, send(sv[0], buf, 20, 0));
	EXPECT_EQ(4, recv_inq(sv[1], buf, 4, 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(22, inq);
	ASSERT_EQ(0, ioctl(sv[1], SIOCINQ, &v));
	EXPECT_EQ(22, v);
	EXPECT_EQ(5, recv_inq(sv[1], buf, 5, MSG_PEEK, 64, &inq, &fl, &nfds));
	EXPECT_EQ(22, inq);
	EXPECT_EQ(22, recv_inq(sv[1], buf, sizeof(buf), 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(0, inq);
	/* A failed read: none. */
	EXPECT_EQ(-1, recv_inq(sv[1], buf, sizeof(buf), 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(-1, inq);
	/* After SCM_RIGHTS; a control buffer too short for SCM_INQ: MSG_CTRUNC. */
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sv[0], sizeof(int));
	EXPECT_EQ(1, sendmsg(sv[0], &m, 0));
	EXPECT_EQ(7, send(sv[0], buf, 7, 0));
	EXPECT_EQ(1, recv_inq(sv[1], buf, 1, 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(1, nfds);
	EXPECT_EQ(7, inq);
	EXPECT_EQ(3, recv_inq(sv[1], buf, 3, 0, CMSG_LEN(sizeof(int)) - 1, &inq, &fl,
			      &nfds));
	EXPECT_EQ(-1, inq);
	EXPECT_EQ(MSG_CTRUNC, fl & MSG_CTRUNC);
	/* An out-of-band byte queued counts (as SIOCINQ); MSG_OOB itself gets none. */
	EXPECT_EQ(1, send(sv[0], "o", 1, MSG_OOB));
	EXPECT_EQ(1, recv_inq(sv[1], buf, 1, MSG_PEEK, 64, &inq, &fl, &nfds));
	EXPECT_EQ(5, inq);
	EXPECT_EQ(1, recv_inq(sv[1], buf, 1, MSG_OOB, 64, &inq, &fl, &nfds));
	EXPECT_EQ(-1, inq);
	/* Cleared: none. */
	EXPECT_EQ(0, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &zero, sizeof(zero)));
	EXPECT_EQ(4, recv_inq(sv[1], buf, 4, 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(-1, inq);
	/* The end of the stream: a read of 0 bytes reports 0 left. */
	EXPECT_EQ(0, setsockopt(sv[1], SOL_SOCKET, SO_INQ_UPSTREAM, &one, sizeof(one)));
	EXPECT_EQ(0, shutdown(sv[0], SHUT_WR));
	EXPECT_EQ(0, recv_inq(sv[1], buf, sizeof(buf), 0, 64, &inq, &fl, &nfds));
	EXPECT_EQ(0, inq);
	close_pair(sv);
}

TEST(timestamps)
{
	static struct trace u, o;

	RUN_BOTH(tstamp_scenario, &u, &o);
	/* The oracle: a datagram receiver's first message has one SCM_TIMESTAMP. */
	ASSERT_LT(8, u.n);
	EXPECT_EQ(SOL_SOCKET, u.v[5]);
	EXPECT_EQ(SCM_TIMESTAMP, u.v[6]);
	EXPECT_EQ(1, u.v[8]);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST_HARNESS_MAIN
