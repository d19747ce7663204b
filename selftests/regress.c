// SPDX-License-Identifier: GPL-2.0
/*
 * Named regression tests for the divergences from AF_UNIX that issue 13 reported
 * (found by a differential run of random calls before this project's fuzzer existed),
 * each differential: the scenario runs on AF_UNIX and on the module's family in the
 * same test, and every result must be the same.
 *  - a zero-length recv on an empty stream socket: EAGAIN (ECONNRESET after a reset);
 *  - a send after the peer's reset: EPIPE;
 *  - a MSG_PEEK with unread data and a pending reset: the data;
 *  - poll masks after a reset and after shutdowns (EPOLLERR only where AF_UNIX sets it);
 *  - SO_PASSCRED on the receiver only: credentials arrive;
 * and the two that issue 24 reported, on the path of a stream MSG_PEEK of an skb that
 * carries SCM_RIGHTS:
 *  - a control buffer too small for one fd (16 bytes): MSG_CTRUNC;
 *  - SO_PEEK_OFF past earlier data: the skb's fds in one SCM_RIGHTS message;
 * and two that issue 26's audit of af_unix.c's socket flags found:
 *  - SO_SELECT_ERR_QUEUE: a datagram or seqpacket socket's pending error also gives
 *    EPOLLPRI (unix_dgram_poll()), not a stream socket's;
 *  - O_ASYNC: while a stream reader sleeps for data (SOCKWQ_ASYNC_WAITDATA), the data
 *    that wakes it sends its owner no SIGIO; without a sleeping reader it does.
 */
#include "common.h"

#include "kselftest_harness.h"

static long mask(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI | POLLRDHUP };

	return poll(&p, 1, 0) < 0 ? -errno : p.revents;
}

/* A stream pair whose sv[1] got a reset: sv[0] closed with data unread by it. */
static int reset_pair(int family, int sv[2])
{
	int s[2];

	if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, s))
		return -1;
	if (send(s[1], "x", 1, 0) != 1)
		return -1;
	close(s[0]);
	sv[0] = -1;
	sv[1] = s[1];
	return 0;
}

static void scenario(int family, struct trace *t)
{
	char buf[8];
	int sv[2], on = 1, i;
	union {
		char b[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(t, 0, sizeof(*t));
	/* zero-length recv on an empty stream */
	if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return note(t, -1000);
	note(t, recv(sv[1], buf, 0, 0));
	note(t, mask(sv[1]));
	close(sv[0]);
	close(sv[1]);
	/* after a reset: zero-length recv, peek, send, poll, SO_ERROR */
	if (reset_pair(family, sv))
		return note(t, -1001);
	note(t, mask(sv[1]));
	note(t, recv(sv[1], buf, 0, 0));
	note(t, mask(sv[1]));
	if (reset_pair(family, sv))
		return note(t, -1002);
	note(t, send(sv[1], "y", 1, MSG_NOSIGNAL));
	note(t, mask(sv[1]));
	close(sv[1]);
	/* a peek with unread data and a pending reset */
	if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return note(t, -1003);
	note(t, send(sv[0], "ab", 2, 0));
	note(t, send(sv[1], "z", 1, 0));
	close(sv[0]);
	note(t, recv(sv[1], buf, sizeof(buf), MSG_PEEK));
	note(t, recv(sv[1], buf, sizeof(buf), 0));
	note(t, recv(sv[1], buf, sizeof(buf), 0));
	note(t, mask(sv[1]));
	close(sv[1]);
	/* shutdowns, each way, on each type: the poll masks */
	for (i = 0; i < 3; i++) {
		int type = i == 0 ? SOCK_STREAM : i == 1 ? SOCK_DGRAM : SOCK_SEQPACKET;

		if (socketpair(family, type | SOCK_NONBLOCK, 0, sv))
			return note(t, -1004);
		note(t, shutdown(sv[0], SHUT_WR));
		note(t, mask(sv[0]));
		note(t, mask(sv[1]));
		note(t, shutdown(sv[1], SHUT_RDWR));
		note(t, mask(sv[0]));
		note(t, mask(sv[1]));
		close(sv[0]);
		close(sv[1]);
	}
	/* SO_PASSCRED on the receiver only: the credentials arrive */
	if (socketpair(family, SOCK_DGRAM, 0, sv))
		return note(t, -1005);
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
	note(t, send(sv[0], "c", 1, 0));
	mh.msg_control = u.b;
	mh.msg_controllen = sizeof(u.b);
	note(t, recvmsg(sv[1], &mh, MSG_DONTWAIT));
	note(t, mh.msg_controllen);
	if (mh.msg_controllen >= CMSG_LEN(sizeof(struct ucred))) {
		struct ucred c;

		memcpy(&c, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(c));
		note(t, c.pid == getpid() && c.uid == getuid() && c.gid == getgid());
	}
	close(sv[0]);
	close(sv[1]);
}

TEST(issue13_divergences)
{
	static struct trace u, o;

	signal(SIGPIPE, SIG_IGN);
	RUN_BOTH(scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
	/* AF_UNIX's own answers, for the record */
	EXPECT_EQ(-EAGAIN, u.v[0]);	/* zero-length recv, empty stream */
	EXPECT_EQ(-EPIPE, u.v[5]);	/* send after the peer's reset */
	EXPECT_EQ(2, u.v[9]);		/* the peek returns the data */
}

/* Sends one byte `c` from `fd` with `pass` in SCM_RIGHTS. */
static long send_with_fd(int fd, char c, int pass)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	return sendmsg(fd, &mh, 0);
}

/*
 * recvmsg() of `len` bytes with `flags` and a control buffer of `clen` bytes (none for
 * 0): notes the result, MSG_CTRUNC, the control length and each control message's level,
 * type, length and fd count (the fds received are closed).
 */
static void recv_noting(struct trace *t, int fd, int len, int flags, size_t clen)
{
	union {
		char b[256];
		struct cmsghdr align;
	} u;
	char buf[64];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = clen ? u.b : NULL, .msg_controllen = clen };
	struct cmsghdr *cm;

	memset(u.b, 0, sizeof(u.b));
	note(t, recvmsg(fd, &mh, flags));
	note(t, !!(mh.msg_flags & MSG_CTRUNC));
	note(t, mh.msg_controllen);
	for (cm = clen ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm)) {
		int i, n = 0;

		note(t, cm->cmsg_level);
		note(t, cm->cmsg_type);
		note(t, cm->cmsg_len);
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		note(t, n);
		for (i = 0; i < n; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			note(t, f >= 0);
			close(f);
		}
	}
}

static void peek_fds_scenario(int family, struct trace *t)
{
	static const size_t sizes[] = { 0, 16, 17, 19, 20, 24, 40 };
	int sv[2], off = 0, pass, i;

	memset(t, 0, sizeof(*t));
	pass = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (pass < 0)
		return note(t, -2000);
	/* 1. a peek with control buffers around one fd's size, then the read */
	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
			return note(t, -2001);
		note(t, send_with_fd(sv[0], 'a', pass));
		recv_noting(t, sv[1], 8, MSG_PEEK | MSG_DONTWAIT, sizes[i]);
		recv_noting(t, sv[1], 8, MSG_DONTWAIT, sizes[i]);
		close(sv[0]);
		close(sv[1]);
	}
	/* 2. SO_PEEK_OFF past earlier data, then the skb with fds */
	if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return note(t, -2002);
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)));
	note(t, send(sv[0], "abc", 3, 0));
	note(t, send_with_fd(sv[0], 'd', pass));
	recv_noting(t, sv[1], 3, MSG_PEEK | MSG_DONTWAIT, 40);
	recv_noting(t, sv[1], 8, MSG_PEEK | MSG_DONTWAIT, 40);
	recv_noting(t, sv[1], 8, MSG_PEEK | MSG_DONTWAIT, 40);
	recv_noting(t, sv[1], 8, MSG_DONTWAIT, 40);
	recv_noting(t, sv[1], 8, MSG_DONTWAIT, 40);
	close(sv[0]);
	close(sv[1]);
	/* 3. a peek that fills its buffer before the skb with fds, small control buffers */
	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		if (socketpair(family, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
			return note(t, -2003);
		note(t, send(sv[0], "ab", 2, 0));
		note(t, send_with_fd(sv[0], 'c', pass));
		recv_noting(t, sv[1], 2, MSG_PEEK | MSG_DONTWAIT, sizes[i]);
		recv_noting(t, sv[1], 2, MSG_DONTWAIT, sizes[i]);
		recv_noting(t, sv[1], 2, MSG_DONTWAIT, sizes[i]);
		close(sv[0]);
		close(sv[1]);
	}
	close(pass);
}

TEST(issue24_peek_fds)
{
	static struct trace u, o;

	RUN_BOTH(peek_fds_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

/*
 * Poll masks of a socket with a pending ECONNRESET, with and without the option: a
 * stream or seqpacket socket whose peer closed with its data unread, and a datagram
 * socket whose peer disconnected (AF_UNSPEC) with its data unread.
 */
static void err_queue_scenario(int family, struct trace *t)
{
	static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM };
	struct sockaddr_un unspec = { .sun_family = AF_UNSPEC };
	int sv[2], i, on;
	char c;

	for (i = 0; i < 6; i++) {
		on = i & 1;
		if (socketpair(family, types[i / 2] | SOCK_NONBLOCK, 0, sv)) {
			note(t, -1);
			continue;
		}
		note(t, setsockopt(sv[0], SOL_SOCKET, SO_SELECT_ERR_QUEUE, &on, sizeof(on)));
		note(t, mask(sv[0]));
		note(t, send(sv[0], "x", 1, 0));
		if (types[i / 2] == SOCK_DGRAM)
			note(t, connect(sv[1], (struct sockaddr *)&unspec, sizeof(sa_family_t)));
		else
			close(sv[1]);
		note(t, mask(sv[0]));
		note(t, recv(sv[0], &c, 1, 0));
		note(t, mask(sv[0]));
		if (types[i / 2] == SOCK_DGRAM)
			close(sv[1]);
		close(sv[0]);
	}
}

TEST(issue26_select_err_queue)
{
	static struct trace u, o;

	RUN_BOTH(err_queue_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
	/*
	 * AF_UNIX's own answers after the reset, with the option: seqpacket (the 4th
	 * round, 6 entries a round), datagram (the 6th, with the connect: 7 a round).
	 */
	EXPECT_EQ(POLLPRI | POLLERR | POLLHUP | POLLIN | POLLRDHUP | POLLOUT, u.v[6 * 3 + 3]);
	EXPECT_EQ(POLLPRI | POLLERR, u.v[6 * 4 + 7 + 4] & (POLLPRI | POLLERR));
}

/*
 * O_ASYNC on sv[0], owned by this process (SIGIO blocked, then looked for in the
 * pending set): data written to sv[0] with no reader asleep sends SIGIO; data that
 * wakes a child asleep in read() on sv[0] does not; a shutdown of the peer, with the
 * child asleep again, does not either. The waker tests the bit after it woke the
 * reader (sock_def_readable(), unix_shutdown()); a reader that runs before the call
 * returns clears it first, on both families. So both processes run on one CPU, and
 * the waker is SCHED_FIFO during the call: 7.3's PREEMPT_LAZY kernel would otherwise
 * let a tick inside the call switch to the woken reader, and AF_UNIX then sends SIGIO.
 */
static int waker_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	return sched_setscheduler(0, on ? SCHED_FIFO | SCHED_RESET_ON_FORK : SCHED_OTHER, &sp);
}

static void async_scenario(int family, struct trace *t)
{
	cpu_set_t one, all;
	sigset_t io, pending;
	int sv[2], i;
	pid_t pid;
	char c;

	sched_getaffinity(0, sizeof(all), &all);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	note(t, sched_setaffinity(0, sizeof(one), &one));
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	sigprocmask(SIG_BLOCK, &io, NULL);
	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	note(t, fcntl(sv[0], F_SETOWN, getpid()));
	note(t, fcntl(sv[0], F_SETFL, O_ASYNC));
	for (i = 0; i < 3; i++) {
		pid = -1;
		if (i > 0) {
			pid = fork();
			if (pid == 0) {
				alarm(60);	/* never left blocked if the test is killed */
				_exit(read(sv[0], &c, 1) >= 0 ? 0 : 1);
			}
			note(t, wait_until_sleeping(pid));
		}
		note(t, waker_fifo(true));
		if (i < 2)
			note(t, write(sv[1], "x", 1));
		else
			note(t, shutdown(sv[1], SHUT_WR));
		note(t, waker_fifo(false));
		if (pid > 0) {
			int st = -1;

			note(t, waitpid(pid, &st, 0) == pid ? st : -1);
		} else {
			note(t, read(sv[0], &c, 1));
		}
		sigpending(&pending);
		note(t, sigismember(&pending, SIGIO));
		/* Take a pending SIGIO, if any, for the next round. */
		if (sigismember(&pending, SIGIO)) {
			int sig;

			sigwait(&io, &sig);
		}
	}
	close(sv[0]);
	close(sv[1]);
	sigprocmask(SIG_UNBLOCK, &io, NULL);
	sched_setaffinity(0, sizeof(all), &all);
}

TEST(issue26_async_waitdata)
{
	static struct trace u, o;

	RUN_BOTH(async_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
	/* AF_UNIX's own answers: SIGIO without a sleeping reader, none with one */
	EXPECT_EQ(21, u.n);
	EXPECT_EQ(0, u.v[4]);	/* the waker could be made SCHED_FIFO */
	EXPECT_EQ(1, u.v[8]);
	EXPECT_EQ(0, u.v[14]);
	EXPECT_EQ(0, u.v[20]);
}

TEST_HARNESS_MAIN
