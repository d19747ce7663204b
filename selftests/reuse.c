// SPDX-License-Identifier: GPL-2.0
/*
 * Stream writes and reads across the kmalloc size classes (the module once kept a
 * consumed skb for the next write; these tests stay as a differential check): every
 * scenario runs once on AF_UNIX and once on the module, and every return value, errno,
 * byte, SIOCOUTQ/SIOCINQ figure and control message must be the same. The scenarios
 * alternate sizes around the kmalloc classes, pass fds and credentials, send the
 * out-of-band byte between writes, fill a small send buffer, close pairs with data
 * read (no socket left after: /proc/net/protocols), and three writer threads race one
 * reader, also while it shuts its receive side down.
 */
#include "common.h"
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"

/* `n` bytes from `w` to `r`, then read whole: SIOCOUTQ, SIOCINQ, the bytes. */
static void hop(struct trace *t, int w, int r, int n, int seed)
{
	static unsigned char b[8192];
	long got;
	int i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(seed + i * 7);
	note(t, send(w, b, n, MSG_DONTWAIT | MSG_NOSIGNAL));
	note(t, ioctl_int(w, SIOCOUTQ));
	note(t, ioctl_int(r, SIOCINQ));
	memset(b, 0, n);
	got = recv(r, b, sizeof(b), MSG_DONTWAIT);
	note(t, got);
	if (got > 0)
		note(t, digest(b, got));
	note(t, ioctl_int(w, SIOCOUTQ));
}

static const int sizes[] = { 1, 1, 100, 1, 192, 193, 320, 400, 1, 700, 704, 705, 64,
			     1000, 1, 2000, 1, 8000, 1, 1, 500, 500, 600, 704, 1, 1 };

/* Both ways, sizes in turn: each side reads what the other wrote, then writes. */
static void pingpong_scenario(int family, struct trace *t)
{
	int sv[2], i;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	for (i = 0; i < (int)ARRAY_SIZE(sizes); i++) {
		hop(t, sv[0], sv[1], sizes[i], i);
		hop(t, sv[1], sv[0], sizes[ARRAY_SIZE(sizes) - 1 - i], i + 50);
	}
	close_pair(sv);
}

/* Writes of 1 byte that queue up before the reader takes them one at a time. */
static void burst_scenario(int family, struct trace *t)
{
	unsigned char b[64];
	int sv[2], i, round;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 5; i++)
			note(t, send(sv[0], &b[i], 1, MSG_DONTWAIT));
		note(t, ioctl_int(sv[0], SIOCOUTQ));
		for (i = 0; i < 5; i++) {
			note(t, recv(sv[1], b, 1, MSG_DONTWAIT));
			note(t, ioctl_int(sv[0], SIOCOUTQ));
		}
	}
	close_pair(sv);
}

static long recv_cmsg(int fd, int *passed, struct ucred *cred)
{
	char cbuf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	char byte;
	long r;

	iov.iov_base = &byte;
	iov.iov_len = 1;
	*passed = -1;
	r = recvmsg(fd, &m, MSG_DONTWAIT);
	if (r < 0)
		return r;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_type == SCM_RIGHTS)
			memcpy(passed, CMSG_DATA(c), sizeof(int));
		if (c->cmsg_type == SCM_CREDENTIALS && cred)
			memcpy(cred, CMSG_DATA(c), sizeof(*cred));
	}
	return r * 10 + (m.msg_flags & MSG_CTRUNC ? 1 : 0);
}

/* Fds and credentials on skbs that a read kept, then on plain ones again. */
static void rights_creds_scenario(int family, struct trace *t)
{
	struct ucred cred;
	struct stat st;
	int sv[2], fd, one = 1, i;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	for (i = 0; i < 4; i++)
		hop(t, sv[0], sv[1], 1, i);
	note(t, send_one_fd(sv[0], "f", STDERR_FILENO, MSG_DONTWAIT));
	note(t, ioctl_int(sv[0], SIOCOUTQ));
	note(t, recv_cmsg(sv[1], &fd, NULL));
	note(t, fd >= 0 && fstat(fd, &st) == 0);
	if (fd >= 0)
		close(fd);
	hop(t, sv[0], sv[1], 1, 9);
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)));
	for (i = 0; i < 3; i++) {
		memset(&cred, 0, sizeof(cred));
		note(t, send(sv[0], "c", 1, MSG_DONTWAIT));
		note(t, ioctl_int(sv[0], SIOCOUTQ));
		note(t, recv_cmsg(sv[1], &fd, &cred));
		note(t, cred.pid == getpid() && cred.uid == getuid() && cred.gid == getgid());
	}
	close_pair(sv);
}

/* The out-of-band byte between skbs a read kept. */
static void oob_scenario(int family, struct trace *t)
{
	char b[16];
	int sv[2], i;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	for (i = 0; i < 3; i++) {
		hop(t, sv[0], sv[1], 1, i);
		note(t, send(sv[0], "ab", 2, MSG_OOB | MSG_DONTWAIT));
		note(t, ioctl_int(sv[1], SIOCATMARK));
		note(t, recv(sv[1], b, 1, MSG_OOB | MSG_DONTWAIT));
		note(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT));
		note(t, b[0]);
		hop(t, sv[0], sv[1], 1, i + 3);
		note(t, ioctl_int(sv[1], SIOCATMARK));
	}
	close_pair(sv);
}

/* A small send buffer filled and drained, with skbs kept on the way. */
static void full_scenario(int family, struct trace *t)
{
	unsigned char b[256];
	int sv[2], sndbuf = 4096, i, n;

	memset(b, 3, sizeof(b));
	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	note(t, setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	for (i = 0; i < 3; i++) {
		for (n = 0; n < 100; n++)
			if (send(sv[0], b, 100, MSG_DONTWAIT) < 0)
				break;
		note(t, n);
		note(t, errno);
		note(t, ioctl_int(sv[0], SIOCOUTQ));
		note(t, recv(sv[1], b, 100, MSG_DONTWAIT));
		note(t, ioctl_int(sv[0], SIOCOUTQ));
		note(t, send(sv[0], b, 100, MSG_DONTWAIT));
		note(t, ioctl_int(sv[0], SIOCOUTQ));
		while (recv(sv[1], b, sizeof(b), MSG_DONTWAIT) > 0)
			;
		note(t, ioctl_int(sv[0], SIOCOUTQ));
	}
	close_pair(sv);
}

/* The reader goes with a kept skb; the writer then gets EPIPE; nothing is left. */
static void close_scenario(int family, struct trace *t)
{
	int sv[2], i;

	for (i = 0; i < 20; i++) {
		note(t, socketpair(family, SOCK_STREAM, 0, sv));
		hop(t, sv[0], sv[1], 1 + i, i);
		hop(t, sv[1], sv[0], 1 + i, i);
		close(i % 2 ? sv[0] : sv[1]);
		note(t, send(i % 2 ? sv[1] : sv[0], "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL));
		close(i % 2 ? sv[1] : sv[0]);
	}
	note(t, wait_no_sockets(family != AF_UNIX));
}

struct writer {
	int fd, seed;
	long sent, last_err;
};

/* The size of write `*r` of a writer (its own pseudo-random sequence): 1 to 700. */
static long next_size(unsigned int *r)
{
	*r = *r * 1103515245 + 12345;
	return 1 + (*r >> 16) % 700;
}

/* 400 writes, until one fails (EPIPE after the reader's shutdown). */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned char b[700];
	unsigned int r = w->seed;
	long n;
	int i;

	memset(b, w->seed, sizeof(b));
	for (i = 0; i < 400; i++) {
		n = send(w->fd, b, next_size(&r), MSG_NOSIGNAL);
		if (n < 0) {
			w->last_err = errno;
			break;
		}
		w->sent += n;
	}
	return NULL;
}

/*
 * Three writer threads on one end while the reader takes the other's skbs (and keeps
 * them for the writers, who race for them): every byte arrives. Then again, with the
 * reader shutting its receive side down midway: the writers end with EPIPE (a keep
 * racing with the shutdown drops its skb). No socket is left.
 */
static void threads_scenario(int family, struct trace *t)
{
	static unsigned char b[65536];
	struct writer w[3];
	pthread_t th[3];
	long got, total, plan[3] = { 0 }, expect;
	unsigned int r;
	int sv[2], i, j, round;

	for (i = 0; i < 3; i++)
		for (j = 0, r = i + 1; j < 400; j++)
			plan[i] += next_size(&r);
	expect = plan[0] + plan[1] + plan[2];
	for (round = 0; round < 2; round++) {
		note(t, socketpair(family, SOCK_STREAM, 0, sv));
		for (i = 0; i < 3; i++) {
			w[i] = (struct writer){ .fd = sv[0], .seed = i + 1 };
			note(t, pthread_create(&th[i], NULL, writer_main, &w[i]));
		}
		total = 0;
		while (total < (round ? 100000 : expect)) {
			got = recv(sv[1], b, sizeof(b), 0);
			if (got <= 0)
				break;
			total += got;
		}
		note(t, round ? total >= 100000 : total == expect);
		if (round)
			note(t, shutdown(sv[1], SHUT_RD));
		for (i = 0; i < 3; i++) {
			pthread_join(th[i], NULL);
			/* a writer may have been done before the shutdown */
			note(t, round ? w[i].last_err == EPIPE || w[i].sent == plan[i] :
					w[i].last_err == 0 && w[i].sent == plan[i]);
		}
		close_pair(sv);
	}
	note(t, wait_no_sockets(family != AF_UNIX));
}

TEST(threads)
{
	static struct trace u, o;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	RUN_BOTH(threads_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST(pingpong_sizes)
{
	static struct trace u, o;

	RUN_BOTH(pingpong_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST(bursts)
{
	static struct trace u, o;

	RUN_BOTH(burst_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST(rights_creds)
{
	static struct trace u, o;

	RUN_BOTH(rights_creds_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST(oob)
{
	static struct trace u, o;

	RUN_BOTH(oob_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST(full_sndbuf)
{
	static struct trace u, o;

	RUN_BOTH(full_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST(close_with_kept)
{
	static struct trace u, o;

	/* Socket counts are per netns: a new one holds only this test's. */
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	RUN_BOTH(close_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST_HARNESS_MAIN
