// SPDX-License-Identifier: GPL-2.0
/*
 * SCM_RIGHTS and the collector of fds in flight, on both families: fd passing on every
 * type, O_PATH fds, 253 fds in one message, short control buffers (MSG_CTRUNC, the
 * excess closed), MSG_CMSG_CLOEXEC, MSG_PEEK (duplicates), stream reads that stop
 * after the skb carrying fds, ETOOMANYREFS for an unprivileged user over its
 * RLIMIT_NOFILE, the scm_fds: line of fdinfo, and cycles of sockets in flight (a socket
 * sent over itself, a triangle, a listener's embryo carrying the listener, a long
 * chain) that the collector frees, while sockets held from outside survive it. Every
 * expected value is AF_UNIX's behaviour on 6.12.
 *
 * The cycle tests count the family's sockets in /proc/net/protocols of a netns of
 * their own, and wait (at most 20 s) for the count to return to 0: the collector runs
 * asynchronously, as AF_UNIX's does (the kernel's scm_rights.c sleeps 1 s).
 */
#include "common.h"
#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>

#include "kselftest_harness.h"

#define UNPRIV_ID 1000

FIXTURE(rights)
{
	int family;
	int sv[2];
};

FIXTURE_VARIANT(rights)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(rights, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(rights, rust_afunix)
{
	.ours = true,
};

FIXTURE_SETUP(rights)
{
	self->family = variant_family(variant->ours);
	self->sv[0] = self->sv[1] = -1;
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	signal(SIGPIPE, SIG_IGN);
}

FIXTURE_TEARDOWN(rights)
{
	close_pair(self->sv);
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

/* Sends `len` bytes and `n` fds in one SCM_RIGHTS message; 0, or the errno. */
static int send_fds(int sock, const void *data, size_t len, const int *fds, int n, int flags)
{
	union {
		char buf[CMSG_SPACE(253 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t r;

	if (n > 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	r = sendmsg(sock, &mh, MSG_DONTWAIT | flags);
	if (r < 0)
		return errno;
	return (size_t)r == len ? 0 : EPROTO;
}

static int send_fd(int sock, const char *data, int fd)
{
	return send_fds(sock, data, strlen(data), &fd, 1, 0);
}

/* What a receive got. */
struct got {
	ssize_t n;
	int err;
	int flags;
	int nfds;		/* fds in SCM_RIGHTS messages */
	int fds[256];
	char data[65536];
};

/* recvmsg with `ctllen` bytes of control buffer (none for 0); fds received are kept. */
static void recv_fds(int sock, struct got *g, size_t size, int flags, size_t ctllen)
{
	union {
		char buf[CMSG_SPACE(256 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = g->data, .iov_len = size };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctllen ? u.buf : NULL, .msg_controllen = ctllen,
	};
	struct cmsghdr *c;
	int k;

	memset(&u, 0, sizeof(u));
	g->nfds = 0;
	g->flags = 0;
	g->err = 0;
	g->n = recvmsg(sock, &mh, MSG_DONTWAIT | flags);
	if (g->n < 0) {
		g->err = errno;
		return;
	}
	g->flags = mh.msg_flags;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (k = 0; k < (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int)) && g->nfds < 256;
		     k++)
			memcpy(&g->fds[g->nfds++], CMSG_DATA(c) + k * sizeof(int), sizeof(int));
	}
}

static void close_got(struct got *g)
{
	int i;

	for (i = 0; i < g->nfds; i++)
		close(g->fds[i]);
	g->nfds = 0;
}

/* Whether two fds are the same open file (same inode and same file offset cookie). */
static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_ino == sb.st_ino &&
	       sa.st_dev == sb.st_dev;
}

/* The fds open in this process. */
static int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/* The scm_fds: line of fd's fdinfo, -1 if there is none. */
static int fdinfo_scm_fds(int fd)
{
	char path[64], line[256];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "scm_fds: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* One fd passed on each type: it arrives as the same file, and fdinfo counts it. */
TEST_F(rights, each_type)
{
	static struct got g;
	int p[2], t;

	ASSERT_EQ(0, pipe(p));
	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		EXPECT_EQ(0, fdinfo_scm_fds(self->sv[1]));
		EXPECT_EQ(0, send_fd(self->sv[0], "x", p[1]));
		EXPECT_EQ(1, fdinfo_scm_fds(self->sv[1]));
		EXPECT_EQ(0, fdinfo_scm_fds(self->sv[0]));
		recv_fds(self->sv[1], &g, 10, 0, CMSG_SPACE(sizeof(int)));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(0, g.flags);
		ASSERT_EQ(1, g.nfds);
		EXPECT_NE(p[1], g.fds[0]);
		EXPECT_TRUE(same_inode(p[1], g.fds[0]));
		EXPECT_EQ(0, fdinfo_scm_fds(self->sv[1]));
		/* the received fd is the pipe's write end */
		EXPECT_EQ(1, write(g.fds[0], "y", 1));
		EXPECT_EQ(1, read(p[0], g.data, 1));
		close_got(&g);
		/* an O_PATH fd passes too */
		{
			int o = open("/", O_PATH);

			ASSERT_LE(0, o);
			EXPECT_EQ(0, send_fd(self->sv[0], "o", o));
			recv_fds(self->sv[1], &g, 10, 0, CMSG_SPACE(sizeof(int)));
			EXPECT_EQ(1, g.nfds);
			if (g.nfds == 1)
				EXPECT_EQ(O_PATH, fcntl(g.fds[0], F_GETFL) & O_PATH);
			close_got(&g);
			close(o);
		}
		close_pair(self->sv);
	}
	close(p[0]);
	close(p[1]);
}

/* 253 fds in one message, and 253 split over two SCM_RIGHTS messages; 254 is EINVAL. */
TEST_F(rights, max_fds)
{
	union {
		char buf[CMSG_SPACE(200 * sizeof(int)) + CMSG_SPACE(54 * sizeof(int))];
		struct cmsghdr align;
	} u;
	static struct got g;
	struct iovec iov = { .iov_base = "m", .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf };
	int fds[253], i, t, before;
	struct cmsghdr *c;

	for (i = 0; i < 253; i++)
		fds[i] = STDERR_FILENO;
	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		before = count_open_fds();
		EXPECT_EQ(0, send_fds(self->sv[0], "m", 1, fds, 253, 0));
		recv_fds(self->sv[1], &g, 10, 0, CMSG_SPACE(256 * sizeof(int)));
		EXPECT_EQ(253, g.nfds);
		EXPECT_EQ(0, g.flags & MSG_CTRUNC);
		EXPECT_EQ(before + 253, count_open_fds());
		close_got(&g);
		/* 200 + 53 in two messages, then 200 + 54 */
		for (i = 53; i <= 54; i++) {
			memset(&u, 0, sizeof(u));
			mh.msg_controllen = CMSG_SPACE(200 * sizeof(int)) + CMSG_SPACE(i * sizeof(int));
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_len = CMSG_LEN(200 * sizeof(int));
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			memcpy(CMSG_DATA(c), fds, 200 * sizeof(int));
			c = CMSG_NXTHDR(&mh, c);
			c->cmsg_len = CMSG_LEN(i * sizeof(int));
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			memcpy(CMSG_DATA(c), fds, i * sizeof(int));
			if (i == 53) {
				EXPECT_EQ(1, sendmsg(self->sv[0], &mh, MSG_DONTWAIT));
				recv_fds(self->sv[1], &g, 10, 0, CMSG_SPACE(256 * sizeof(int)));
				EXPECT_EQ(253, g.nfds);
				close_got(&g);
			} else {
				EXPECT_EQ(-1, sendmsg(self->sv[0], &mh, MSG_DONTWAIT));
				EXPECT_EQ(EINVAL, errno);
			}
		}
		EXPECT_EQ(before, count_open_fds());
		close_pair(self->sv);
	}
}

/*
 * A control buffer with room for one fd of three: MSG_CTRUNC, one installed, the other
 * two closed. No control buffer: MSG_CTRUNC, none installed. Room for no fd at all (a
 * buffer shorter than one cmsghdr and an int): MSG_CTRUNC, none.
 */
TEST_F(rights, ctrunc)
{
	static struct got g;
	int fds[3] = { 0, 1, 2 }, t, before;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		before = count_open_fds();
		EXPECT_EQ(0, send_fds(self->sv[0], "a", 1, fds, 3, 0));
		recv_fds(self->sv[1], &g, 10, 0, CMSG_LEN(sizeof(int)));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(MSG_CTRUNC, g.flags & MSG_CTRUNC);
		EXPECT_EQ(1, g.nfds);
		EXPECT_EQ(before + 1, count_open_fds());
		close_got(&g);

		EXPECT_EQ(0, send_fds(self->sv[0], "b", 1, fds, 3, 0));
		recv_fds(self->sv[1], &g, 10, 0, 0);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(MSG_CTRUNC, g.flags & MSG_CTRUNC);
		EXPECT_EQ(before, count_open_fds());

		EXPECT_EQ(0, send_fds(self->sv[0], "c", 1, fds, 3, 0));
		recv_fds(self->sv[1], &g, 10, 0, CMSG_LEN(0));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(MSG_CTRUNC, g.flags & MSG_CTRUNC);
		EXPECT_EQ(0, g.nfds);
		EXPECT_EQ(before, count_open_fds());
		close_pair(self->sv);
	}
}

/* MSG_CMSG_CLOEXEC sets FD_CLOEXEC on the installed fds; without it, not. */
TEST_F(rights, cloexec)
{
	static struct got g;
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		EXPECT_EQ(0, send_fd(self->sv[0], "a", 0));
		recv_fds(self->sv[1], &g, 10, MSG_CMSG_CLOEXEC, CMSG_SPACE(sizeof(int)));
		ASSERT_EQ(1, g.nfds);
		EXPECT_EQ(FD_CLOEXEC, fcntl(g.fds[0], F_GETFD));
		close_got(&g);
		EXPECT_EQ(0, send_fd(self->sv[0], "b", 0));
		recv_fds(self->sv[1], &g, 10, 0, CMSG_SPACE(sizeof(int)));
		ASSERT_EQ(1, g.nfds);
		EXPECT_EQ(0, fcntl(g.fds[0], F_GETFD));
		close_got(&g);
		close_pair(self->sv);
	}
}

/* MSG_PEEK installs duplicates; the read then installs the fds again. */
TEST_F(rights, peek)
{
	static struct got g, h;
	int t, before;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		before = count_open_fds();
		EXPECT_EQ(0, send_fd(self->sv[0], "pk", 0));
		recv_fds(self->sv[1], &g, 10, MSG_PEEK, CMSG_SPACE(sizeof(int)));
		EXPECT_EQ(2, g.n);
		ASSERT_EQ(1, g.nfds);
		recv_fds(self->sv[1], &h, 10, 0, CMSG_SPACE(sizeof(int)));
		EXPECT_EQ(2, h.n);
		ASSERT_EQ(1, h.nfds);
		EXPECT_NE(g.fds[0], h.fds[0]);
		EXPECT_TRUE(same_inode(g.fds[0], h.fds[0]));
		EXPECT_EQ(before + 2, count_open_fds());
		close_got(&g);
		close_got(&h);
		close_pair(self->sv);
	}
}

/*
 * Stream reads and fds: a read takes the data before the skb that carries fds and that
 * skb's, then stops; the fds of a long send ride on its first skb only; data sent
 * after the fds is read by the next call.
 */
TEST_F(rights, stream_boundaries)
{
	static char big[200000];
	static struct got g;
	size_t total = 0;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	EXPECT_EQ(2, send(self->sv[0], "ab", 2, MSG_DONTWAIT));
	EXPECT_EQ(0, send_fd(self->sv[0], "cd", 0));
	EXPECT_EQ(0, send_fd(self->sv[0], "ef", 1));
	EXPECT_EQ(2, send(self->sv[0], "gh", 2, MSG_DONTWAIT));
	recv_fds(self->sv[1], &g, 100, 0, CMSG_SPACE(4 * sizeof(int)));
	EXPECT_EQ(4, g.n);
	EXPECT_EQ(0, memcmp(g.data, "abcd", 4));
	EXPECT_EQ(1, g.nfds);
	close_got(&g);
	recv_fds(self->sv[1], &g, 100, 0, CMSG_SPACE(4 * sizeof(int)));
	EXPECT_EQ(2, g.n);
	EXPECT_EQ(0, memcmp(g.data, "ef", 2));
	EXPECT_EQ(1, g.nfds);
	close_got(&g);
	recv_fds(self->sv[1], &g, 100, 0, CMSG_SPACE(4 * sizeof(int)));
	EXPECT_EQ(2, g.n);
	EXPECT_EQ(0, g.nfds);

	/* a partial read of the skb with fds takes them; the rest comes without */
	EXPECT_EQ(0, send_fd(self->sv[0], "ijkl", 0));
	recv_fds(self->sv[1], &g, 2, 0, CMSG_SPACE(4 * sizeof(int)));
	EXPECT_EQ(2, g.n);
	EXPECT_EQ(1, g.nfds);
	close_got(&g);
	recv_fds(self->sv[1], &g, 100, 0, CMSG_SPACE(4 * sizeof(int)));
	EXPECT_EQ(2, g.n);
	EXPECT_EQ(0, g.nfds);

	/* a long send: the first read ends with the first skb, which has the fd */
	EXPECT_EQ(0, send_fds(self->sv[0], big, 100000, (int[]){ 0 }, 1, 0));
	recv_fds(self->sv[1], &g, sizeof(g.data), 0, CMSG_SPACE(4 * sizeof(int)));
	EXPECT_LT(0, g.n);
	EXPECT_GT(100000, g.n);
	EXPECT_EQ(1, g.nfds);
	close_got(&g);
	total = g.n;
	while (total < 100000) {
		recv_fds(self->sv[1], &g, sizeof(g.data), 0, CMSG_SPACE(4 * sizeof(int)));
		ASSERT_LT(0, g.n);
		EXPECT_EQ(0, g.nfds);
		total += g.n;
	}
	EXPECT_EQ(100000, (int)total);
}

/*
 * ETOOMANYREFS: an unprivileged user with RLIMIT_NOFILE 16 may have 16 fds in flight
 * and send once more (the check is "more than the limit" before the send); the next
 * send fails. Receiving gives the room back. Reported through the exit status: the
 * number of sends that succeeded, then 100 + the step that failed.
 */
static int toomany_child(int family)
{
	struct rlimit rl = { .rlim_cur = 16, .rlim_max = 16 };
	static struct got g;
	int sv[2], n = 0, e;

	if (socketpair(family, SOCK_STREAM, 0, sv))
		return 101;
	if (setgid(UNPRIV_ID) || setuid(UNPRIV_ID))
		return 102;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 103;
	while (n < 64) {
		e = send_fd(sv[0], "t", 0);
		if (e == ETOOMANYREFS)
			break;
		if (e)
			return 104;
		n++;
	}
	/* a message without fds still goes */
	if (send(sv[0], "u", 1, MSG_DONTWAIT) != 1)
		return 105;
	/* one received (and closed): one more may go */
	recv_fds(sv[1], &g, 1, 0, CMSG_SPACE(sizeof(int)));
	if (g.nfds != 1)
		return 106;
	close_got(&g);
	if (send_fd(sv[0], "v", 0))
		return 107;
	if (send_fd(sv[0], "w", 0) != ETOOMANYREFS)
		return 108;
	return n;
}

TEST_F(rights, toomanyrefs)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, (int)getuid()) TH_LOG("needs root to drop to an unprivileged user");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(toomany_child(self->family));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(17, WEXITSTATUS(status));
}

/* fdinfo of a listener counts the fds queued on its embryos. */
TEST_F(rights, fdinfo_listener)
{
	struct sockaddr_un sun = { .sun_family = self->family };
	socklen_t len = sizeof(sa_family_t);
	int l, c;

	l = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, l);
	ASSERT_EQ(0, bind(l, (struct sockaddr *)&sun, len));
	len = sizeof(sun);
	ASSERT_EQ(0, getsockname(l, (struct sockaddr *)&sun, &len));
	ASSERT_EQ(0, listen(l, 4));
	c = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&sun, len));
	EXPECT_EQ(0, fdinfo_scm_fds(l));
	EXPECT_EQ(0, send_fds(c, "e", 1, (int[]){ 0, 1 }, 2, 0));
	EXPECT_EQ(2, fdinfo_scm_fds(l));
	/* an unconnected socket shows 0 */
	self->sv[0] = socket(self->family, SOCK_STREAM, 0);
	EXPECT_EQ(0, fdinfo_scm_fds(self->sv[0]));
	close(c);
	close(l);
}

/* A socketpair in fd[0], fd[1]. */
static void make_pair(struct __test_metadata *_metadata, int family, int type, int fd[2])
{
	ASSERT_EQ(0, socketpair(family, type, 0, fd));
}

/* A listener in fd[0] and a client connected to it in fd[1] (an embryo waits). */
static int listener_pair(int family, int l[2]);

static void make_listener(struct __test_metadata *_metadata, int family, int fd[2])
{
	ASSERT_EQ(0, listener_pair(family, fd));
}

/*
 * Cycles, as the kernel's scm_rights.c builds them: for an edge (i, j), pair j's second
 * end sends the first end of pair i, twice in one message, to pair j's first end (or,
 * for listeners, to the embryo of listener j). After every fd is closed only the
 * cycles hold the first ends: the collector must free them all, on every type and
 * through listeners. The second ends are not in flight: their release is what starts
 * the collector (on both families a collection runs when a socket is released).
 */
static void cycles(struct __test_metadata *_metadata, int family, bool ours, int type,
		   bool listener, const int (*edge)[2], int nedges, int n)
{
	int fd[32], i;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, wait_no_sockets(ours));
	for (i = 0; i < n; i++) {
		if (listener)
			make_listener(_metadata, family, fd + 2 * i);
		else
			make_pair(_metadata, family, type, fd + 2 * i);
	}
	for (i = 0; i < nedges; i++) {
		int sender = fd[2 * edge[i][1] + 1];
		int pass[2] = { fd[2 * edge[i][0]], fd[2 * edge[i][0]] };

		ASSERT_EQ(0, send_fds(sender, "x", 1, pass, 2, 0));
	}
	for (i = 0; i < 2 * n; i++)
		ASSERT_EQ(0, close(fd[i]));
	EXPECT_EQ(0, wait_no_sockets(ours));
}

static const int self_ref[][2] = { { 0, 0 }, { 1, 1 } };
static const int triangle[][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 }, { 3, 4 }, { 4, 5 }, { 5, 3 } };
static const int cross[][2] = {
	{ 0, 1 }, { 1, 2 }, { 2, 0 }, { 1, 3 }, { 3, 2 },
	{ 4, 5 }, { 5, 6 }, { 6, 4 }, { 5, 7 }, { 7, 6 },
};

TEST_F_TIMEOUT(rights, cycles_self, 120)
{
	int t;

	for (t = 0; t < 3; t++)
		cycles(_metadata, self->family, variant->ours, types[t], false, self_ref, 2, 2);
	cycles(_metadata, self->family, variant->ours, SOCK_STREAM, true, self_ref, 2, 2);
}

TEST_F_TIMEOUT(rights, cycles_triangle, 120)
{
	int t;

	for (t = 0; t < 3; t++)
		cycles(_metadata, self->family, variant->ours, types[t], false, triangle, 6, 6);
	cycles(_metadata, self->family, variant->ours, SOCK_STREAM, true, triangle, 6, 6);
}

TEST_F_TIMEOUT(rights, cycles_cross_edge, 120)
{
	int t;

	for (t = 0; t < 3; t++)
		cycles(_metadata, self->family, variant->ours, types[t], false, cross, 10, 8);
	cycles(_metadata, self->family, variant->ours, SOCK_STREAM, true, cross, 10, 8);
}

/* A chain of 16 pairs, each in flight in the next, the last in the first. */
TEST_F_TIMEOUT(rights, cycles_long_chain, 120)
{
	int chain[16][2], i;

	for (i = 0; i < 16; i++) {
		chain[i][0] = i;
		chain[i][1] = (i + 1) % 16;
	}
	cycles(_metadata, self->family, variant->ours, SOCK_DGRAM, false, chain, 16, 16);
}

/*
 * Sockets in flight that a held socket's queue still reaches are not collected: x is
 * queued on b (whose pair a and b are held), y is queued on x. A pair w whose first
 * end is queued on itself, closed, makes the collector run (at the release of its
 * second end) with x and y in flight and their fds closed; once w is gone (the run is
 * over), x and y are received back, in order, and still work.
 */
TEST_F_TIMEOUT(rights, reachable_survives, 120)
{
	static struct got g;
	int x[2], y[2], w[2], rx, ry;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, x));
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, y));
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, w));
	/* y[0] on x[0]'s queue (sent by x[1]), x[0] on b's queue */
	EXPECT_EQ(0, send_fd(x[1], "y", y[0]));
	EXPECT_EQ(0, send_fd(self->sv[0], "x", x[0]));
	close(x[0]);
	close(y[0]);
	EXPECT_EQ(0, send_fd(w[1], "w", w[0]));
	close(w[0]);
	close(w[1]);
	EXPECT_EQ(0, wait_sockets(variant->ours, 6));

	recv_fds(self->sv[1], &g, 10, 0, CMSG_SPACE(sizeof(int)));
	ASSERT_EQ(1, g.nfds);
	rx = g.fds[0];
	recv_fds(rx, &g, 10, 0, CMSG_SPACE(sizeof(int)));
	EXPECT_EQ('y', g.data[0]);
	ASSERT_EQ(1, g.nfds);
	ry = g.fds[0];
	/* both still work */
	EXPECT_EQ(1, send(x[1], "1", 1, MSG_DONTWAIT));
	EXPECT_EQ(1, recv(rx, g.data, 1, MSG_DONTWAIT));
	EXPECT_EQ(1, send(y[1], "2", 1, MSG_DONTWAIT));
	EXPECT_EQ(1, recv(ry, g.data, 1, MSG_DONTWAIT));
	close(rx);
	close(ry);
	close(x[1]);
	close(y[1]);
	close_pair(self->sv);
	EXPECT_EQ(0, wait_sockets(variant->ours, 0));
}

/* A sender that streams fds: the fd of `held` over sv[1] to sv[0], and back. */
struct streamer {
	int family;
	int sv[2];
	int held;
	int stop;
	int err;		/* 0, or the step that failed */
	long batches;
};

static void *streamer_main(void *p)
{
	static struct got g;
	struct streamer *st = p;
	int fds[253], i;

	for (i = 0; i < 253; i++)
		fds[i] = st->held;
	while (!__atomic_load_n(&st->stop, __ATOMIC_RELAXED)) {
		/* 4 × 253 references in flight, then none: the counts move all the time */
		for (i = 0; i < 4; i++)
			if (send_fds(st->sv[1], "s", 1, fds, 253, 0)) {
				st->err = 1;
				return NULL;
			}
		for (i = 0; i < 4; i++) {
			recv_fds(st->sv[0], &g, 10, 0, CMSG_SPACE(253 * sizeof(int)));
			if (g.n != 1 || g.nfds != 253) {
				st->err = 2;
				return NULL;
			}
			close_got(&g);
		}
		st->batches++;
	}
	return NULL;
}

/*
 * The collector against a sender streaming fds (issue 35): a thread keeps sending a
 * held socket's fd, 253 to a message, 4 messages then receives them, so the counts of
 * references in flight change under every run; meanwhile 40 garbage cycles (a pair's
 * first end in its own queue, closed) are made one by one, each collected by the run
 * its release starts: the family's sockets in the test's netns go back to the
 * streamer's 3 each time. A run that gave up to the sender would leave the cycle.
 */
TEST_F_TIMEOUT(rights, cycles_while_streaming, 120)
{
	struct streamer st = { .family = self->family };
	pthread_t th;
	int r, c[2];

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, st.sv));
	st.held = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_LE(0, st.held);
	ASSERT_EQ(0, pthread_create(&th, NULL, streamer_main, &st));
	for (r = 0; r < 40; r++) {
		ASSERT_EQ(0, socketpair(self->family, types[r % 3], 0, c));
		EXPECT_EQ(0, send_fd(c[1], "g", c[0]));
		close(c[0]);
		close(c[1]);
		EXPECT_EQ(0, wait_sockets(variant->ours, 3)) TH_LOG("round %d", r);
	}
	__atomic_store_n(&st.stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, st.err);
	EXPECT_LT(0, st.batches);
	close(st.held);
	close_pair(st.sv);
	EXPECT_EQ(0, wait_no_sockets(variant->ours));
}

/* A listener (autobound) in l[0] and a client connected to it in l[1]; 0 or -1. */
static int listener_pair(int family, int l[2])
{
	struct sockaddr_un sun = { .sun_family = family };
	socklen_t len = sizeof(sa_family_t);

	l[0] = socket(family, SOCK_STREAM, 0);
	l[1] = socket(family, SOCK_STREAM, 0);
	if (l[0] < 0 || l[1] < 0 || bind(l[0], (struct sockaddr *)&sun, len))
		return -1;
	len = sizeof(sun);
	if (getsockname(l[0], (struct sockaddr *)&sun, &len) || listen(l[0], -1))
		return -1;
	return connect(l[1], (struct sockaddr *)&sun, len);
}

static int stress_child(int family, unsigned int seed)
{
	static struct got g;
	int i, a[2], b[2], l[2];

	srand(seed);
	for (i = 0; i < 300; i++) {
		int type = types[rand() % 3];

		if (socketpair(family, type, 0, a) || socketpair(family, type, 0, b))
			return 1;
		switch (rand() % 5) {
		case 0:
			if (send_fd(a[1], "s", a[0]))
				return 2;
			break;
		case 1:
			if (send_fd(b[1], "c", a[0]) || send_fd(a[1], "c", b[0]))
				return 3;
			break;
		case 2:
			if (send_fd(b[1], "r", a[0]))
				return 4;
			recv_fds(b[0], &g, 10, 0, CMSG_SPACE(sizeof(int)));
			if (g.nfds != 1)
				return 5;
			close_got(&g);
			break;
		case 3:
			if (send_fd(b[1], "p", a[0]))
				return 6;
			recv_fds(b[0], &g, 10, MSG_PEEK, CMSG_SPACE(sizeof(int)));
			if (g.nfds != 1)
				return 7;
			close_got(&g);
			break;
		case 4:
			if (listener_pair(family, l) || send_fd(l[1], "l", l[0]))
				return 8;
			close(l[0]);
			close(l[1]);
			break;
		}
		if (rand() % 2) {
			close(a[0]);
			close(b[1]);
			close(a[1]);
			close(b[0]);
		} else {
			close(b[0]);
			close(a[1]);
			close(b[1]);
			close(a[0]);
		}
	}
	return 0;
}

/*
 * A short stress: 4 processes, each 300 rounds of two pairs whose fds go in flight in
 * random patterns (a socket in its own queue, two sockets in each other's queues,
 * passed and received back, passed and peeked, through a listener's embryo), closed in
 * random order while the collector runs for the other processes' releases. At the end
 * every socket of the family in the test's netns is gone (and make check's kmemleak
 * scan finds nothing). Children report through their exit status.
 */
TEST_F_TIMEOUT(rights, stress_cycles, 120)
{
	pid_t pid[4];
	int i, status;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0)
			_exit(stress_child(self->family, 1234 + i));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	/* the last cycles wait for a release: one more socket, closed */
	close(socket(self->family, SOCK_DGRAM, 0));
	EXPECT_EQ(0, wait_no_sockets(variant->ours));
}

/*
 * Sockets of the other family in flight (issue 24). The family refuses to carry a socket
 * of AF_UNIX: EINVAL, as scm_fp_copy() refuses an io_uring file, with no fd left behind
 * (the pipe beside it in the message is put too) and nothing queued. Each collector
 * sees only its own family's sockets, so a cycle through both would never be freed; with
 * no edge from the family to AF_UNIX every cycle stays within one family. AF_UNIX
 * carries the family's sockets. Then: the cycle that would leak (the family's socket on
 * AF_UNIX, that AF_UNIX socket on the family's) cannot be made, and all four sockets go
 * at close; a family cycle held only by an AF_UNIX cycle is freed in turn (AF_UNIX's
 * collector frees its cycle, which puts the family's socket; the family's collector
 * frees the rest at a later release, which the loop makes). The calls and the expected
 * values are the same in both variants (they use both families).
 */
TEST_F_TIMEOUT(rights, cross_family, 120)
{
	int fam = variant_family(true), u[2], f[2], p[2], pass[2], before, t, i;
	char c;

	if (!variant->ours)
		SKIP(return, "the same calls as the rust_afunix variant");
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	for (t = 0; t < (int)ARRAY_SIZE(types); t++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, types[t], 0, u));
		ASSERT_EQ(0, socketpair(fam, types[t], 0, f));
		ASSERT_EQ(0, pipe2(p, O_NONBLOCK));
		before = count_open_fds();
		EXPECT_EQ(EINVAL, send_fd(f[1], "x", u[0])) TH_LOG("type %d", types[t]);
		pass[0] = p[1];
		pass[1] = u[1];
		EXPECT_EQ(EINVAL, send_fds(f[1], "x", 1, pass, 2, 0));
		EXPECT_EQ(-1, recv(f[0], &c, 1, MSG_DONTWAIT));
		EXPECT_EQ(EAGAIN, errno);
		EXPECT_EQ(before, count_open_fds());
		/* The pipe's write end was put: once ours is closed, EOF (not EAGAIN). */
		ASSERT_EQ(0, close(p[1]));
		EXPECT_EQ(0, read(p[0], &c, 1));
		/* The family's own sockets go, over either family. */
		EXPECT_EQ(0, send_fd(f[1], "y", f[1]));
		EXPECT_EQ(0, send_fd(u[1], "z", f[0]));
		close_pair(u);
		close_pair(f);
		close(p[0]);
	}
	EXPECT_EQ(0, wait_no_sockets(true));
	EXPECT_EQ(0, wait_no_sockets(false));

	/* The cycle that would leak cannot be made. */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, u));
	ASSERT_EQ(0, socketpair(fam, SOCK_STREAM, 0, f));
	EXPECT_EQ(0, send_fd(u[1], "a", f[0]));
	EXPECT_EQ(EINVAL, send_fd(f[1], "b", u[0]));
	close_pair(u);
	close_pair(f);
	EXPECT_EQ(0, wait_no_sockets(false));
	EXPECT_EQ(0, wait_no_sockets(true));

	/* A family cycle (f[0] on itself) held only by an AF_UNIX one (u[0] on itself). */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, u));
	ASSERT_EQ(0, socketpair(fam, SOCK_STREAM, 0, f));
	EXPECT_EQ(0, send_fd(f[1], "c", f[0]));
	EXPECT_EQ(0, send_fd(u[1], "d", f[0]));
	EXPECT_EQ(0, send_fd(u[1], "e", u[0]));
	close_pair(u);
	close_pair(f);
	EXPECT_EQ(0, wait_no_sockets(false));
	/*
	 * A release starts the family's collector (once AF_UNIX's has put f[0]): one each
	 * 10 ms until the cycle is freed.
	 */
	for (i = 0; i < 2000 && sockets_left(true); i++) {
		close(socket(fam, SOCK_DGRAM, 0));
		usleep(10000);
	}
	EXPECT_EQ(0, sockets_left(true));
}

/*
 * SO_PASSRIGHTS (upstream 6.16, option 83): on 6.12 on the family alone (6.12's AF_UNIX
 * does not know it, ENOPROTOOPT; the family takes it through SOCK_CUSTOM_SOCKOPT), on
 * 7.3 on both. The expected values are upstream's: 0 makes a receiver refuse
 * SCM_RIGHTS, the send failing with EPERM after the receiver's other checks, data
 * without fds still passing; an embryo and its accepted socket take the listener's
 * setting at connect; the option is read as an int (EINVAL when shorter, EFAULT
 * unreadable). getsockopt: ENOPROTOOPT on 6.12; on 7.3 AF_UNIX's value, EOPNOTSUPP on
 * the family (pass_opts_unreadable()). Other levels: EOPNOTSUPP on both families; the
 * core's SOL_SOCKET options still work.
 */
#define SO_PASSRIGHTS_UPSTREAM 83

TEST_F(rights, passrights)
{
	int off = 0, on = 1, v, p[2], i, l, c, a;
	socklen_t len = sizeof(v);
	struct sockaddr_un sun = { .sun_family = self->family };
	socklen_t sl;

	ASSERT_EQ(0, pipe2(p, O_NONBLOCK));
	/* Other levels: no setsockopt on AF_UNIX. */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	EXPECT_EQ(-1, setsockopt(self->sv[0], 6 /* IPPROTO_TCP */, 1, &on, sizeof(on)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* The core's options still go through. */
	EXPECT_EQ(0, setsockopt(self->sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
	if (pass_opts_unreadable(variant->ours)) {
		EXPECT_EQ(-1, getsockopt(self->sv[0], SOL_SOCKET, SO_PASSCRED, &v, &len));
		EXPECT_EQ(EOPNOTSUPP, errno);
	} else {
		EXPECT_EQ(0, getsockopt(self->sv[0], SOL_SOCKET, SO_PASSCRED, &v, &len));
		EXPECT_EQ(1, v);
	}
	EXPECT_EQ(-1, setsockopt(self->sv[0], SOL_SOCKET, 12345, &on, sizeof(on)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	close_pair(self->sv);
	if (!variant->ours && !kernel_at_least(6, 16)) {
		ASSERT_EQ(0, socketpair(self->family, SOCK_DGRAM, 0, self->sv));
		EXPECT_EQ(-1, setsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
					 &off, sizeof(off)));
		EXPECT_EQ(ENOPROTOOPT, errno);
		close(p[0]);
		close(p[1]);
		return;
	}
	for (i = 0; i < (int)ARRAY_SIZE(types); i++) {
		struct got g;

		ASSERT_EQ(0, socketpair(self->family, types[i], 0, self->sv));
		EXPECT_EQ(-1, setsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
					 &off, 2));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, setsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
					 (void *)8, sizeof(int)));
		EXPECT_EQ(EFAULT, errno);
		EXPECT_EQ(0, setsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
					&off, sizeof(off)));
		len = sizeof(v);
		v = -1;
		if (kernel_at_least(6, 16) && !variant->ours) {
			EXPECT_EQ(0, getsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
						&v, &len));
			EXPECT_EQ(0, v);
		} else {
			EXPECT_EQ(-1, getsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
						 &v, &len));
			EXPECT_EQ(kernel_at_least(6, 16) ? EOPNOTSUPP : ENOPROTOOPT, errno);
		}
		EXPECT_EQ(EPERM, send_fd(self->sv[0], "x", p[1]));
		if (types[i] == SOCK_STREAM) {
			char oob;

			/* The fds on the in-band skb, then on the out-of-band byte alone. */
			EXPECT_EQ(EPERM, send_fds(self->sv[0], "xy", 2, &p[1], 1, MSG_OOB));
			EXPECT_EQ(EPERM, send_fds(self->sv[0], "x", 1, &p[1], 1, MSG_OOB));
			EXPECT_EQ(-1, recv(self->sv[1], &oob, 1, MSG_OOB | MSG_DONTWAIT));
			EXPECT_EQ(EINVAL, errno);
		}
		EXPECT_EQ(0, send_fds(self->sv[0], "d", 1, NULL, 0, 0));
		/* The other way, the sender's own setting does not matter. */
		EXPECT_EQ(0, send_fd(self->sv[1], "y", p[1]));
		v = 0;
		EXPECT_EQ(1, recv(self->sv[1], &v, 1, MSG_DONTWAIT));
		EXPECT_EQ('d', v);
		EXPECT_EQ(-1, recv(self->sv[1], &v, 1, MSG_DONTWAIT));
		EXPECT_EQ(EAGAIN, errno);
		/* On again: fds pass. */
		EXPECT_EQ(0, setsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
					&on, sizeof(on)));
		EXPECT_EQ(0, send_fd(self->sv[0], "z", p[1]));
		recv_fds(self->sv[1], &g, 16, MSG_DONTWAIT, 64);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.nfds);
		close_got(&g);
		/* The receiver's EPIPE comes before its EPERM. */
		EXPECT_EQ(0, setsockopt(self->sv[1], SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM,
					&off, sizeof(off)));
		EXPECT_EQ(0, shutdown(self->sv[1], SHUT_RD));
		EXPECT_EQ(EPIPE, send_fd(self->sv[0], "w", p[1]));
		close_pair(self->sv);
	}
	/* A listener's setting reaches its embryos and accepted sockets. */
	l = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, l);
	sl = sizeof(sa_family_t);
	ASSERT_EQ(0, bind(l, (struct sockaddr *)&sun, sl));
	sl = sizeof(sun);
	ASSERT_EQ(0, getsockname(l, (struct sockaddr *)&sun, &sl));
	ASSERT_EQ(0, setsockopt(l, SOL_SOCKET, SO_PASSRIGHTS_UPSTREAM, &off, sizeof(off)));
	ASSERT_EQ(0, listen(l, 4));
	c = socket(self->family, SOCK_STREAM, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&sun, sl));
	EXPECT_EQ(EPERM, send_fd(c, "e", p[1]));
	a = accept(l, NULL, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(EPERM, send_fd(c, "f", p[1]));
	EXPECT_EQ(0, send_fd(a, "g", p[1]));
	close(a);
	close(c);
	close(l);
	/* Every copy of the pipe's write end was released: nothing refused leaked. */
	close(p[1]);
	EXPECT_EQ(0, read(p[0], &v, 1));
	close(p[0]);
}

TEST_HARNESS_MAIN
