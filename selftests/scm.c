// SPDX-License-Identifier: GPL-2.0
/*
 * Control messages and credentials on both families: SCM_CREDENTIALS claimed by the
 * sender (own, forged as root, forbidden to an unprivileged task, unknown pid),
 * credentials attached because the receiver or the sender has SO_PASSCRED or the
 * receiver is an embryo, what a receiver sees for data sent without credentials, pid
 * translation into a child pid namespace, uid/gid translation into a new user namespace,
 * MSG_CTRUNC, a stream read that stops where the credentials change, and the parsing
 * of the control buffer (malformed lengths, unknown SOL_SOCKET types, other levels
 * ignored). Every expected value is AF_UNIX's behaviour on 6.12.
 *
 * Children forked by a test never use the harness's ASSERT/EXPECT: they report through
 * their exit status (0, or the number of the failed step).
 */
#include "common.h"
#include <grp.h>
#include <stddef.h>

#include "kselftest_harness.h"

#define UNPRIV_ID 1000

FIXTURE(scm)
{
	int family;
	int sv[2];
};

FIXTURE_VARIANT(scm)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(scm, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(scm, rust_afunix)
{
	.ours = true,
};

FIXTURE_SETUP(scm)
{
	self->family = variant_family(variant->ours);
	self->sv[0] = self->sv[1] = -1;
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	signal(SIGPIPE, SIG_IGN);
}

FIXTURE_TEARDOWN(scm)
{
	close_pair(self->sv);
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

/* A socketpair of `type` with SO_PASSCRED on both ends; 0 or -1. */
static int passcred_pair(int family, int type, int sv[2])
{
	if (socketpair(family, type, 0, sv))
		return -1;
	return set_passcred(sv[0], 1) || set_passcred(sv[1], 1) ? -1 : 0;
}

/* The overflow ids (what an unmapped or missing id reads as): 65534 by default. */
static int overflow_id(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return read_int_file(path);
}

/*
 * Sends `len` bytes with the control buffer `ctl` of `ctllen` bytes; returns 0 if the
 * whole message was sent, else the errno (EPROTO for a short send).
 */
static int send_ctl(int fd, const void *data, size_t len, void *ctl, size_t ctllen)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = ctllen,
	};
	ssize_t n = sendmsg(fd, &mh, MSG_DONTWAIT);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EPROTO;
}

/* Sends `len` bytes with one SCM_CREDENTIALS message; 0 or the errno. */
static int send_creds(int fd, const void *data, size_t len, pid_t pid, uid_t uid, gid_t gid)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct ucred cred = { .pid = pid, .uid = uid, .gid = gid };
	struct cmsghdr *c = &u.align;

	memset(&u, 0, sizeof(u));
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	return send_ctl(fd, data, len, u.buf, sizeof(u.buf));
}

/* What a receive got: the bytes, msg_flags, and the SCM_CREDENTIALS message if any. */
struct got {
	ssize_t n;
	int err;		/* errno when n < 0 */
	int flags;
	int ncreds;		/* SCM_CREDENTIALS messages */
	int nother;		/* other control messages */
	struct ucred cred;
	char data[256];
};

/* recvmsg with a control buffer of `ctllen` bytes (NULL for 0). */
static struct got recv_ctl(int fd, size_t size, int flags, size_t ctllen)
{
	union {
		char buf[512];
		struct cmsghdr align;
	} u;
	struct got g = { 0 };
	struct iovec iov = { .iov_base = g.data, .iov_len = size };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctllen ? u.buf : NULL, .msg_controllen = ctllen,
	};
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	g.n = recvmsg(fd, &mh, flags);
	if (g.n < 0) {
		g.err = errno;
		return g;
	}
	g.flags = mh.msg_flags;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			memcpy(&g.cred, CMSG_DATA(c), sizeof(g.cred));
			g.ncreds++;
		} else {
			g.nother++;
		}
	}
	return g;
}

/* Non-blocking, with room for any control message. */
static struct got recv_creds(int fd, size_t size)
{
	return recv_ctl(fd, size, MSG_DONTWAIT, 512);
}

/* One byte came with one SCM_CREDENTIALS message: the caller's own pid, uid and gid. */
static bool got_own_creds(const struct got *g)
{
	return g->n == 1 && g->ncreds == 1 && g->cred.pid == getpid() &&
	       g->cred.uid == getuid() && g->cred.gid == getgid();
}

/* SCM_CREDENTIALS with the sender's own ids: they arrive as sent, on every type. */
TEST_F(scm, own_creds)
{
	struct got g;
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		ASSERT_EQ(0, set_passcred(self->sv[1], 1));
		EXPECT_EQ(0, send_creds(self->sv[0], "abc", 3, getpid(), getuid(), getgid()));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(3, g.n);
		EXPECT_EQ(0, memcmp(g.data, "abc", 3));
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(0, g.nother);
		EXPECT_EQ(getpid(), g.cred.pid);
		EXPECT_EQ(getuid(), g.cred.uid);
		EXPECT_EQ(getgid(), g.cred.gid);
		EXPECT_EQ(0, g.flags & MSG_CTRUNC);

		/* a receiver without SO_PASSCRED gets no control message */
		ASSERT_EQ(0, set_passcred(self->sv[1], 0));
		EXPECT_EQ(0, send_creds(self->sv[0], "de", 2, getpid(), getuid(), getgid()));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(2, g.n);
		EXPECT_EQ(0, g.ncreds);
		EXPECT_EQ(0, g.nother);
		EXPECT_EQ(0, g.flags & MSG_CTRUNC);
		close_pair(self->sv);
	}
}

/*
 * No SCM_CREDENTIALS: the credentials are attached when the receiver has SO_PASSCRED
 * at the send, or the sender has it; data sent while neither had it reads as pid 0 and
 * the overflow ids once the receiver asks.
 */
TEST_F(scm, automatic_creds)
{
	int ouid = overflow_id("overflowuid"), ogid = overflow_id("overflowgid");
	struct got g;
	int t;

	ASSERT_LE(0, ouid);
	ASSERT_LE(0, ogid);
	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));

		/* the receiver only */
		ASSERT_EQ(0, set_passcred(self->sv[1], 1));
		EXPECT_EQ(1, send(self->sv[0], "r", 1, 0));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_TRUE(got_own_creds(&g));

		/* the sender only, at the send; the receiver asks afterwards */
		ASSERT_EQ(0, set_passcred(self->sv[1], 0));
		ASSERT_EQ(0, set_passcred(self->sv[0], 1));
		EXPECT_EQ(1, send(self->sv[0], "s", 1, 0));
		ASSERT_EQ(0, set_passcred(self->sv[0], 0));
		ASSERT_EQ(0, set_passcred(self->sv[1], 1));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_TRUE(got_own_creds(&g));

		/* neither at the send: no credentials on the data */
		ASSERT_EQ(0, set_passcred(self->sv[1], 0));
		EXPECT_EQ(1, send(self->sv[0], "n", 1, 0));
		ASSERT_EQ(0, set_passcred(self->sv[1], 1));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(0, g.cred.pid);
		EXPECT_EQ(ouid, (int)g.cred.uid);
		EXPECT_EQ(ogid, (int)g.cred.gid);
		close_pair(self->sv);
	}
}

/* SO_PASSCRED without a control buffer, or with one too small: MSG_CTRUNC. */
TEST_F(scm, ctrunc)
{
	struct got g;
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		EXPECT_EQ(1, send(self->sv[0], "a", 1, 0));
		g = recv_ctl(self->sv[1], sizeof(g.data), MSG_DONTWAIT, 0);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(0, g.flags & MSG_CTRUNC);

		ASSERT_EQ(0, set_passcred(self->sv[1], 1));
		EXPECT_EQ(1, send(self->sv[0], "b", 1, 0));
		g = recv_ctl(self->sv[1], sizeof(g.data), MSG_DONTWAIT, 0);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(MSG_CTRUNC, g.flags & MSG_CTRUNC);

		EXPECT_EQ(1, send(self->sv[0], "c", 1, 0));
		g = recv_ctl(self->sv[1], sizeof(g.data), MSG_DONTWAIT, sizeof(struct cmsghdr) + 4);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(MSG_CTRUNC, g.flags & MSG_CTRUNC);
		EXPECT_EQ(0, g.ncreds);
		close_pair(self->sv);
	}
}

/*
 * As root (CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID), any existing pid and any mapped ids
 * may be claimed; an unknown pid gives ESRCH, an unmapped id EINVAL.
 */
TEST_F(scm, forged_as_root)
{
	struct got g;
	int t;

	if (geteuid() != 0)
		SKIP(return, "needs root");
	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		ASSERT_EQ(0, set_passcred(self->sv[1], 1));
		EXPECT_EQ(0, send_creds(self->sv[0], "f", 1, getppid(), 1234, 5678));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(getppid(), g.cred.pid);
		EXPECT_EQ(1234U, g.cred.uid);
		EXPECT_EQ(5678U, g.cred.gid);

		/* pids above pid_max never exist */
		EXPECT_EQ(ESRCH, send_creds(self->sv[0], "x", 1, INT_MAX, 0, 0));
		EXPECT_EQ(EINVAL, send_creds(self->sv[0], "x", 1, getpid(), (uid_t)-1, 0));
		EXPECT_EQ(EINVAL, send_creds(self->sv[0], "x", 1, getpid(), 0, (gid_t)-1));
		/* nothing was queued by the failed sends */
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(EAGAIN, g.err);
		close_pair(self->sv);
	}
}

/* In a child that dropped to an unprivileged uid and gid: each step, 0 or its number. */
static int unprivileged_claims(int family)
{
	pid_t ppid = getppid();
	int sv[2], t, step = 0;

	if (setgroups(0, NULL) || setresgid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) ||
	    setresuid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID))
		return 100;
	for (t = 0; t < 3; t++) {
		if (socketpair(family, types[t], 0, sv))
			return 101;
		if (set_passcred(sv[1], 1))
			return 102;
		/* its own ids are allowed */
		step++;
		if (send_creds(sv[0], "o", 1, getpid(), UNPRIV_ID, UNPRIV_ID) != 0)
			return step;
		step++;
		{
			struct got g = recv_creds(sv[1], sizeof(g.data));

			if (g.n != 1 || g.ncreds != 1 || g.cred.pid != getpid() ||
			    g.cred.uid != UNPRIV_ID || g.cred.gid != UNPRIV_ID)
				return step;
		}
		/* another pid, uid or gid is not */
		step++;
		if (send_creds(sv[0], "p", 1, ppid, UNPRIV_ID, UNPRIV_ID) != EPERM)
			return step;
		step++;
		if (send_creds(sv[0], "u", 1, getpid(), 0, UNPRIV_ID) != EPERM)
			return step;
		step++;
		if (send_creds(sv[0], "g", 1, getpid(), UNPRIV_ID, 0) != EPERM)
			return step;
		/* the permission check comes before the pid lookup */
		step++;
		if (send_creds(sv[0], "x", 1, INT_MAX, UNPRIV_ID, UNPRIV_ID) != EPERM)
			return step;
		close(sv[0]);
		close(sv[1]);
	}
	return 0;
}

TEST_F(scm, forged_unprivileged)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to drop to an unprivileged uid");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged_claims(self->family));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Builds one control message of `len` bytes (cmsg_len as given) in `buf`. */
static void *cmsg_at(void *buf, size_t cmsg_len, int level, int type)
{
	struct cmsghdr *c = buf;

	c->cmsg_len = cmsg_len;
	c->cmsg_level = level;
	c->cmsg_type = type;
	return CMSG_DATA(c);
}

/*
 * The control buffer's parsing: a header whose cmsg_len is below the header's size or
 * beyond the buffer (whatever its level), an unknown SOL_SOCKET type and a wrong
 * SCM_CREDENTIALS length give EINVAL; other levels are skipped; a buffer, or a tail,
 * too short for a header is ignored.
 */
TEST_F(scm, malformed)
{
	union {
		char buf[256];
		struct cmsghdr align;
	} u;
	struct ucred own = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
	size_t one = CMSG_SPACE(sizeof(struct ucred));
	struct got g;
	int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		ASSERT_EQ(0, set_passcred(self->sv[1], 1));

		memset(&u, 0, sizeof(u));
		cmsg_at(u.buf, sizeof(struct cmsghdr) - 1, SOL_SOCKET, SCM_CREDENTIALS);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, one));
		cmsg_at(u.buf, 4, 0x1234, 1);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, one));
		cmsg_at(u.buf, one + 1, SOL_SOCKET, SCM_CREDENTIALS);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, one));
		cmsg_at(u.buf, one + 1, 0x1234, 1);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, one));
		/* SCM_CREDENTIALS of the wrong size */
		memcpy(cmsg_at(u.buf, CMSG_LEN(8), SOL_SOCKET, SCM_CREDENTIALS), &own, 8);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, one));
		memcpy(cmsg_at(u.buf, CMSG_LEN(16), SOL_SOCKET, SCM_CREDENTIALS), &own, 12);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, CMSG_SPACE(16)));
		/* unknown SOL_SOCKET types, SCM_SECURITY (3) among them */
		cmsg_at(u.buf, CMSG_LEN(4), SOL_SOCKET, 3);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, CMSG_SPACE(4)));
		cmsg_at(u.buf, CMSG_LEN(4), SOL_SOCKET, 99);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, CMSG_SPACE(4)));
		/* a valid SCM_CREDENTIALS, then a bad one: the whole send fails */
		memset(&u, 0, sizeof(u));
		memcpy(cmsg_at(u.buf, CMSG_LEN(sizeof(own)), SOL_SOCKET, SCM_CREDENTIALS),
		       &own, sizeof(own));
		cmsg_at(u.buf + one, CMSG_LEN(4), SOL_SOCKET, 99);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "x", 1, u.buf, one + CMSG_SPACE(4)));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(EAGAIN, g.err);

		/* another level is skipped, then SCM_CREDENTIALS counts */
		memset(&u, 0, sizeof(u));
		cmsg_at(u.buf, CMSG_LEN(4), 0x1234, 99);
		memcpy(cmsg_at(u.buf + CMSG_SPACE(4), CMSG_LEN(sizeof(own)), SOL_SOCKET,
			       SCM_CREDENTIALS), &own, sizeof(own));
		EXPECT_EQ(0, send_ctl(self->sv[0], "y", 1, u.buf, CMSG_SPACE(4) + one));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(getpid(), g.cred.pid);

		/* a buffer shorter than a header: no control message at all */
		memset(&u, 0, sizeof(u));
		cmsg_at(u.buf, 4, SOL_SOCKET, 99);
		EXPECT_EQ(0, send_ctl(self->sv[0], "z", 1, u.buf, sizeof(struct cmsghdr) - 1));
		/* a tail too short for a header after a valid message: ignored */
		memcpy(cmsg_at(u.buf, CMSG_LEN(sizeof(own)), SOL_SOCKET, SCM_CREDENTIALS),
		       &own, sizeof(own));
		cmsg_at(u.buf + one, 4, SOL_SOCKET, 99);
		EXPECT_EQ(0, send_ctl(self->sv[0], "w", 1, u.buf,
				      one + sizeof(struct cmsghdr) - 1));
		g = recv_creds(self->sv[1], 1);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ('z', g.data[0]);
		g = recv_creds(self->sv[1], 1);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ('w', g.data[0]);
		EXPECT_EQ(1, g.ncreds);
		close_pair(self->sv);
	}
}

/*
 * A stream read never glues data of different credentials when the reader has
 * SO_PASSCRED (two sends claiming different pids: two reads); without SO_PASSCRED,
 * or with the same credentials, one read takes both.
 */
TEST_F(scm, stream_split_at_creds)
{
	struct got g;

	if (geteuid() != 0)
		SKIP(return, "needs root to claim the parent's pid");
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	ASSERT_EQ(0, set_passcred(self->sv[1], 1));
	EXPECT_EQ(0, send_creds(self->sv[0], "aaaa", 4, getpid(), 0, 0));
	EXPECT_EQ(0, send_creds(self->sv[0], "bbbb", 4, getppid(), 0, 0));
	EXPECT_EQ(0, send_creds(self->sv[0], "cccc", 4, getppid(), 0, 0));
	EXPECT_EQ(0, send_creds(self->sv[0], "dddd", 4, getppid(), 7, 0));
	/* a peek stops at the boundary too */
	g = recv_ctl(self->sv[1], sizeof(g.data), MSG_PEEK | MSG_DONTWAIT, 512);
	EXPECT_EQ(4, g.n);
	EXPECT_EQ(getpid(), g.cred.pid);
	g = recv_creds(self->sv[1], sizeof(g.data));
	EXPECT_EQ(4, g.n);
	EXPECT_EQ(0, memcmp(g.data, "aaaa", 4));
	EXPECT_EQ(getpid(), g.cred.pid);
	g = recv_creds(self->sv[1], sizeof(g.data));
	EXPECT_EQ(8, g.n);
	EXPECT_EQ(0, memcmp(g.data, "bbbbcccc", 8));
	EXPECT_EQ(getppid(), g.cred.pid);
	EXPECT_EQ(0U, g.cred.uid);
	/* same pid, another uid */
	g = recv_creds(self->sv[1], sizeof(g.data));
	EXPECT_EQ(4, g.n);
	EXPECT_EQ(0, memcmp(g.data, "dddd", 4));
	EXPECT_EQ(7U, g.cred.uid);

	/* without SO_PASSCRED at the read, everything in one read */
	ASSERT_EQ(0, set_passcred(self->sv[1], 0));
	EXPECT_EQ(0, send_creds(self->sv[0], "eeee", 4, getpid(), 0, 0));
	EXPECT_EQ(0, send_creds(self->sv[0], "ffff", 4, getppid(), 0, 0));
	g = recv_creds(self->sv[1], sizeof(g.data));
	EXPECT_EQ(8, g.n);
	EXPECT_EQ(0, memcmp(g.data, "eeeeffff", 8));
	EXPECT_EQ(0, g.ncreds);
}

/*
 * A stream read that returns nothing (end of file) with SO_PASSCRED still reports
 * credentials: those of AF_UNIX's zeroed cookie, pid 0, uid 0, gid 0.
 */
TEST_F(scm, stream_eof_creds)
{
	struct got g;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	ASSERT_EQ(0, set_passcred(self->sv[1], 1));
	ASSERT_EQ(0, shutdown(self->sv[0], SHUT_WR));
	g = recv_creds(self->sv[1], sizeof(g.data));
	EXPECT_EQ(0, g.n);
	EXPECT_EQ(1, g.ncreds);
	EXPECT_EQ(0, g.cred.pid);
	EXPECT_EQ(0U, g.cred.uid);
	EXPECT_EQ(0U, g.cred.gid);
}

/*
 * A stream read of 0 bytes runs AF_UNIX's read loop once: EAGAIN on an empty queue
 * (it would block), 0 at the end of file, and with data 0 and the first skb's
 * credentials, the data left in place.
 */
TEST_F(scm, stream_zero_length_read)
{
	struct got g;

	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, self->sv));
	ASSERT_EQ(0, set_passcred(self->sv[1], 1));
	g = recv_ctl(self->sv[1], 0, MSG_DONTWAIT, 512);
	EXPECT_EQ(-1, g.n);
	EXPECT_EQ(EAGAIN, g.err);
	g = recv_ctl(self->sv[1], 0, MSG_DONTWAIT | MSG_PEEK, 512);
	EXPECT_EQ(EAGAIN, g.err);
	EXPECT_EQ(2, send(self->sv[0], "ab", 2, 0));
	g = recv_ctl(self->sv[1], 0, MSG_DONTWAIT, 512);
	EXPECT_EQ(0, g.n);
	EXPECT_EQ(1, g.ncreds);
	EXPECT_EQ(getpid(), g.cred.pid);
	EXPECT_EQ(getuid(), g.cred.uid);
	g = recv_ctl(self->sv[1], 0, MSG_DONTWAIT | MSG_PEEK, 512);
	EXPECT_EQ(0, g.n);
	EXPECT_EQ(getpid(), g.cred.pid);
	g = recv_creds(self->sv[1], sizeof(g.data));
	EXPECT_EQ(2, g.n);
	EXPECT_EQ(0, memcmp(g.data, "ab", 2));
	ASSERT_EQ(0, shutdown(self->sv[0], SHUT_WR));
	g = recv_ctl(self->sv[1], 0, MSG_DONTWAIT, 512);
	EXPECT_EQ(0, g.n);
	EXPECT_EQ(0, g.cred.pid);
}

/* An abstract address unique to this process, family and `tag`. */
static socklen_t scm_addr(struct sockaddr_un *sun, int family, const char *tag)
{
	return abstract_addrf(sun, family, "scm-%s-%d-%d", tag, family, getpid());
}

/* A listener of `type` bound to `sun`, or -1. */
static int open_listener(int family, int type, struct sockaddr_un *sun, socklen_t len)
{
	int l = socket(family, type, 0);

	if (l < 0)
		return -1;
	if (bind(l, (struct sockaddr *)sun, len) || listen(l, 1)) {
		close(l);
		return -1;
	}
	return l;
}

/* A socket of `type` connected to `sun`, or -1. */
static int connect_to(int family, int type, struct sockaddr_un *sun, socklen_t len)
{
	int c = socket(family, type, 0);

	if (c < 0)
		return -1;
	if (connect(c, (struct sockaddr *)sun, len)) {
		close(c);
		return -1;
	}
	return c;
}

/* SO_PASSCRED of `s` reads `want`, where the family can be asked (pass_opts_unreadable()). */
static void expect_passcred(struct __test_metadata *_metadata, bool ours, int s, int want)
{
	int on = -1;
	socklen_t olen = sizeof(on);

	if (pass_opts_unreadable(ours)) {
		EXPECT_EQ(-1, getsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, &olen));
		EXPECT_EQ(EOPNOTSUPP, errno);
	} else {
		EXPECT_EQ(0, getsockopt(s, SOL_SOCKET, SO_PASSCRED, &on, &olen));
		EXPECT_EQ(want, on);
	}
}

/*
 * Connections: data sent to an embryo (connected, not accepted yet) always carries the
 * sender's credentials, since the accepted socket may have SO_PASSCRED; an accepted
 * socket inherits the listener's SO_PASSCRED.
 */
TEST_F(scm, embryo_and_accept)
{
	struct sockaddr_un sun;
	socklen_t len;
	int l, c, a;
	struct got g;
	int t;

	for (t = 0; t < 3; t += 2) {	/* STREAM, SEQPACKET */
		len = scm_addr(&sun, self->family, t ? "sp" : "st");

		/* listener without SO_PASSCRED: credentials come from the embryo rule */
		l = open_listener(self->family, types[t], &sun, len);
		ASSERT_LE(0, l);
		c = connect_to(self->family, types[t], &sun, len);
		ASSERT_LE(0, c);
		EXPECT_EQ(1, send(c, "e", 1, 0));
		a = accept(l, NULL, NULL);
		ASSERT_LE(0, a);
		expect_passcred(_metadata, variant->ours, a, 0);
		/* after the accept, nobody asks: no credentials */
		EXPECT_EQ(1, send(c, "n", 1, 0));
		ASSERT_EQ(0, set_passcred(a, 1));
		g = recv_creds(a, 1);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ('e', g.data[0]);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(getpid(), g.cred.pid);
		EXPECT_EQ(getuid(), g.cred.uid);
		g = recv_creds(a, 1);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ('n', g.data[0]);
		EXPECT_EQ(0, g.cred.pid);
		close(a);
		close(c);

		/* listener with SO_PASSCRED: the accepted socket has it */
		ASSERT_EQ(0, set_passcred(l, 1));
		c = connect_to(self->family, types[t], &sun, len);
		ASSERT_LE(0, c);
		a = accept(l, NULL, NULL);
		ASSERT_LE(0, a);
		/* Where it cannot be asked, the credentials below show it. */
		expect_passcred(_metadata, variant->ours, a, 1);
		EXPECT_EQ(1, send(c, "p", 1, 0));
		g = recv_creds(a, sizeof(g.data));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(getpid(), g.cred.pid);
		close(a);
		close(c);
		close(l);
	}
}

/*
 * When an accepted socket takes the listener's SO_PASSCRED: 6.12 copies the listener's
 * flag at accept() (unix_sock_inherit_flags()), 6.16 and later at connect()
 * (sk_scm_recv_flags into the embryo). The listener changes its flag between the two,
 * and a byte sent after the accept shows which setting the accepted socket has; each
 * family must do what its line's AF_UNIX does.
 */
TEST_F(scm, passcred_inherited_when)
{
	bool at_connect = kernel_at_least(6, 16);
	struct sockaddr_un sun;
	socklen_t len;
	int l, c, a, t, on;
	struct got g;

	for (t = 0; t < 3; t += 2) {	/* STREAM, SEQPACKET */
		for (on = 0; on < 2; on++) {
			len = scm_addr(&sun, self->family, t ? "wsp" : "wst");
			l = open_listener(self->family, types[t], &sun, len);
			ASSERT_LE(0, l);
			ASSERT_EQ(0, set_passcred(l, on));
			c = connect_to(self->family, types[t], &sun, len);
			ASSERT_LE(0, c);
			ASSERT_EQ(0, set_passcred(l, !on));
			a = accept(l, NULL, NULL);
			ASSERT_LE(0, a);
			EXPECT_EQ(1, send(c, "w", 1, 0));
			g = recv_creds(a, 1);
			EXPECT_EQ(1, g.n);
			/* Credentials iff the flag the accepted socket got is on. */
			EXPECT_EQ(at_connect ? on : !on, g.ncreds) TH_LOG("type %d, on %d", t, on);
			close(a);
			close(c);
			close(l);
		}
	}
}

/*
 * SO_PEERPIDFD: a pidfd of the peer's process, live or reaped. 6.12 gives none for a
 * reaped peer on either family. 6.17's AF_UNIX registers each peer with pidfs at
 * connect, so the core may give a stale pidfd (PIDFD_STALE) of a reaped one, for
 * AF_UNIX only; the module cannot register (pidfs_register_pid() is not exported), so
 * the core asks for a live task there: ESRCH (README, limits).
 */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static long peer_pidfd(int fd)
{
	socklen_t len = sizeof(int);
	int pidfd = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len))
		return -errno;
	close(pidfd);
	return len;
}

static void peerpidfd_scenario(int family, struct trace *t)
{
	struct sockaddr_un sun;
	socklen_t len = scm_addr(&sun, family, "pidfd");
	int l, a, sv[2], st;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	if (socketpair(family, SOCK_STREAM, 0, sv))
		return note(t, -1);
	note(t, peer_pidfd(sv[0]));
	close_pair(sv);
	l = open_listener(family, SOCK_STREAM, &sun, len);
	if (l < 0)
		return note(t, -1);
	pid = fork();
	if (pid == 0)
		_exit(connect_to(family, SOCK_STREAM, &sun, len) < 0);
	note(t, waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	a = accept(l, NULL, NULL);
	note(t, a < 0 ? a : 0);
	/* The peer is reaped. */
	note(t, peer_pidfd(a));
	close(a);
	close(l);
}

TEST(peerpidfd_reaped)
{
	static struct trace u, o;

	RUN_BOTH(peerpidfd_scenario, &u, &o);
	ASSERT_EQ(4, u.n);
	EXPECT_EQ((long)sizeof(int), u.v[0]);	/* a live peer: a pidfd */
	if (kernel_at_least(6, 17)) {
		EXPECT_EQ((long)sizeof(int), u.v[3]);
		KNOWN_DIFFERENCE(&u, &o, 3, -ESRCH);
	} else {
		EXPECT_GT(0, u.v[3]);
	}
	EXPECT_SAME_TRACE(&u, &o);
}

/*
 * Pids are translated into the receiver's pid namespace: a task in a child pid
 * namespace sees its parent's pid as 0 and its own as 1; the parent sees the child's
 * global pid.
 */
/*
 * In a child: sends a byte on `fd`, then reads the parent's byte (blocking) and its
 * credentials into `cred`; 0, or `err` or `err + 1` for a failed send or receive.
 */
static int hello_then_creds(int fd, struct ucred *cred, int err)
{
	struct got g;

	if (send(fd, "c", 1, 0) != 1)
		return err;
	g = recv_ctl(fd, 1, 0, 512);
	if (g.n != 1 || g.ncreds != 1)
		return err + 1;
	*cred = g.cred;
	return 0;
}

static int child_in_pidns(int fd)
{
	struct ucred c;
	int r;

	if (getpid() != 1)
		return 10;
	r = hello_then_creds(fd, &c, 11);
	if (r)
		return r;
	if (c.pid != 0 || c.uid != getuid() || c.gid != getgid())
		return 13;
	return 0;
}

TEST_F(scm, pid_namespace)
{
	int status;
	pid_t pid;
	struct got g;

	if (geteuid() != 0)
		SKIP(return, "needs root for a pid namespace");
	for (int t = 0; t < 3; t++) {
		ASSERT_EQ(0, passcred_pair(self->family, types[t], self->sv));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			pid_t gc;

			if (unshare(CLONE_NEWPID))
				_exit(20);
			gc = fork();
			if (gc < 0)
				_exit(21);
			if (gc == 0)
				_exit(child_in_pidns(self->sv[1]));
			if (waitpid(gc, &status, 0) != gc || !WIFEXITED(status))
				_exit(22);
			_exit(WEXITSTATUS(status));
		}
		/* the grandchild's message: its global pid, neither ours nor the child's */
		g = recv_ctl(self->sv[0], 1, 0, 512);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_LT(1, g.cred.pid);
		EXPECT_NE(getpid(), g.cred.pid);
		EXPECT_NE(pid, g.cred.pid);
		EXPECT_EQ(0, kill(g.cred.pid, 0));
		EXPECT_EQ(1, send(self->sv[0], "p", 1, 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
		close_pair(self->sv);
	}
}

/*
 * Ids are translated into the receiver's user namespace: a task in a new user namespace
 * with no mapping sees root's ids as the overflow ids, cannot claim any id (unmapped:
 * EINVAL), and its own credentials reach a receiver outside as root's.
 */
static int child_in_userns(int fd, int ouid, int ogid)
{
	struct ucred c;
	int r;

	if (unshare(CLONE_NEWUSER))
		return 20;
	if (send_creds(fd, "u", 1, getpid(), getuid(), getgid()) != EINVAL)
		return 21;
	r = hello_then_creds(fd, &c, 22);
	if (r)
		return r;
	if (c.pid != getppid() || (int)c.uid != ouid || (int)c.gid != ogid)
		return 24;
	return 0;
}

TEST_F(scm, user_namespace)
{
	int ouid = overflow_id("overflowuid"), ogid = overflow_id("overflowgid");
	int status;
	pid_t pid;
	struct got g;

	if (geteuid() != 0)
		SKIP(return, "needs root: root's ids are the ones left unmapped");
	ASSERT_LE(0, ouid);
	ASSERT_LE(0, ogid);
	for (int t = 0; t < 3; t++) {
		ASSERT_EQ(0, passcred_pair(self->family, types[t], self->sv));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(child_in_userns(self->sv[1], ouid, ogid));
		g = recv_ctl(self->sv[0], 1, 0, 512);
		EXPECT_EQ(1, g.n);
		EXPECT_EQ('c', g.data[0]);
		EXPECT_EQ(1, g.ncreds);
		EXPECT_EQ(pid, g.cred.pid);
		EXPECT_EQ(0U, g.cred.uid);
		EXPECT_EQ(0U, g.cred.gid);
		EXPECT_EQ(1, send(self->sv[0], "p", 1, 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
		close_pair(self->sv);
	}
}

/*
 * The parsing of SCM_RIGHTS: one fd passes (its message comes back), an empty list
 * passes nothing (the data is sent), an fd that is not open gives EBADF, more than
 * SCM_MAX_FD (253) fds EINVAL. Fd passing itself is tested in rights.c.
 */
TEST_F(scm, scm_rights)
{
	union {
		char buf[CMSG_SPACE(254 * sizeof(int))];
		struct cmsghdr align;
	} u;
	int fd = open("/dev/null", O_RDONLY), t, b;
	int bad[2][2] = { { -1, 0 }, { 0, 999 } };
	struct got g;

	ASSERT_LE(0, fd);
	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
		memset(&u, 0, sizeof(u));
		memcpy(cmsg_at(u.buf, CMSG_LEN(sizeof(int)), SOL_SOCKET, SCM_RIGHTS), &fd,
		       sizeof(int));
		EXPECT_EQ(0, send_ctl(self->sv[0], "r", 1, u.buf, CMSG_SPACE(sizeof(int))));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ(1, g.nother);	/* the SCM_RIGHTS message */

		/* no fds: nothing passed, the data goes */
		cmsg_at(u.buf, CMSG_LEN(0), SOL_SOCKET, SCM_RIGHTS);
		EXPECT_EQ(0, send_ctl(self->sv[0], "e", 1, u.buf, CMSG_SPACE(0)));
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(1, g.n);
		EXPECT_EQ('e', g.data[0]);
		EXPECT_EQ(0, g.nother);

		/* an fd that is not open, before or after an open one: EBADF on both */
		bad[0][1] = bad[1][0] = fd;
		for (b = 0; b < 2; b++) {
			memcpy(cmsg_at(u.buf, CMSG_LEN(2 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS),
			       bad[b], sizeof(bad[b]));
			EXPECT_EQ(EBADF, send_ctl(self->sv[0], "b", 1, u.buf,
						  CMSG_SPACE(2 * sizeof(int))));
		}
		g = recv_creds(self->sv[1], sizeof(g.data));
		EXPECT_EQ(EAGAIN, g.err);

		/* more than SCM_MAX_FD fds */
		cmsg_at(u.buf, CMSG_LEN(254 * sizeof(int)), SOL_SOCKET, SCM_RIGHTS);
		EXPECT_EQ(EINVAL, send_ctl(self->sv[0], "m", 1, u.buf, sizeof(u.buf)));
		close_pair(self->sv);
	}
	close(fd);
}

/*
 * Every way an skb with credentials goes away: read, peeked then read, queued at close,
 * dropped by a failed send, queued on an embryo that is never accepted. Each skb holds
 * a pid reference; kmemleak (at the end of make check) finds any that is not put.
 */
TEST_F(scm, creds_released)
{
	struct sockaddr_un sun;
	socklen_t len;
	int i, t, l, c;
	struct got g;

	for (i = 0; i < 50; i++) {
		for (t = 0; t < 3; t++) {
			ASSERT_EQ(0, socketpair(self->family, types[t], 0, self->sv));
			ASSERT_EQ(0, set_passcred(self->sv[1], 1));
			/* read, then peeked and read */
			EXPECT_EQ(0, send_creds(self->sv[0], "a", 1, getpid(), getuid(),
						getgid()));
			g = recv_creds(self->sv[1], 1);
			EXPECT_EQ(1, g.ncreds);
			EXPECT_EQ(0, send_creds(self->sv[0], "b", 1, getpid(), getuid(),
						getgid()));
			g = recv_ctl(self->sv[1], 1, MSG_DONTWAIT | MSG_PEEK, 512);
			EXPECT_EQ(1, g.ncreds);
			g = recv_creds(self->sv[1], 1);
			EXPECT_EQ('b', g.data[0]);
			/* queued when both ends close: automatic and claimed credentials */
			EXPECT_EQ(1, send(self->sv[0], "c", 1, MSG_DONTWAIT));
			EXPECT_EQ(0, send_creds(self->sv[0], "d", 1, getpid(), getuid(),
						getgid()));
			/* a send to a closed peer fails after the skb got its credentials */
			close(self->sv[1]);
			self->sv[1] = -1;
			EXPECT_NE(0, send_creds(self->sv[0], "e", 1, getpid(), getuid(),
						getgid()));
			close_pair(self->sv);
		}
		/* an embryo that carries credentials and is never accepted */
		for (t = 0; t < 3; t += 2) {
			len = scm_addr(&sun, self->family, t ? "rs" : "rt");
			l = open_listener(self->family, types[t], &sun, len);
			ASSERT_LE(0, l);
			c = connect_to(self->family, types[t], &sun, len);
			ASSERT_LE(0, c);
			EXPECT_EQ(0, send_creds(c, "f", 1, getpid(), getuid(), getgid()));
			EXPECT_EQ(1, send(c, "g", 1, MSG_DONTWAIT));
			close(l);
			close(c);
		}
	}
}

TEST_HARNESS_MAIN
