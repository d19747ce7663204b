// SPDX-License-Identifier: GPL-2.0
/*
 * sock_diag (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY) on both families, with the same
 * expectations: AF_UNIX's net/unix/diag.c is the oracle. In a netns of its own, each test
 * makes a listener with a pending connection and an accepted one, a stream pair with
 * unread bytes and a shutdown, and a datagram socket bound to a pathname, then dumps
 * (or looks one up by inode and cookie) and checks every attribute of the sockets it
 * made: family, type, state, name, VFS inode and device, peer, pending connections,
 * queue lengths, meminfo's size, shutdown bits, uid; the states filter; ENOENT, ESTALE
 * and EINVAL of exact lookups; and that another netns's sockets are not listed.
 */
#include "common.h"
#include <stddef.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/tcp.h>

#include "kselftest_harness.h"

#define SHOW_ALL (UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_PEER | UDIAG_SHOW_ICONS | \
		  UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO | UDIAG_SHOW_UID)
#define MAX_SOCKS 64
#define MEMINFO_LEN (SK_MEMINFO_VARS * 4)
/* The shutdown bits of struct sock (include/net/sock.h). */
#define RCV_SHUTDOWN_BIT 1
#define SEND_SHUTDOWN_BIT 2

/* What a reply says of one socket. */
struct diag {
	unsigned int ino, cookie[2];
	int family, type, state;
	int name_len;			/* -1: no UNIX_DIAG_NAME */
	char name[112];
	bool vfs;
	unsigned int vfs_ino, vfs_dev;
	bool has_peer;
	unsigned int peer;
	int nicons;			/* -1: no UNIX_DIAG_ICONS */
	unsigned int icons[8];
	bool rqlen;
	unsigned int rqueue, wqueue;
	int meminfo_len;		/* -1: none */
	int shutdown;			/* -1: none */
	bool has_uid;
	unsigned int uid;
};

struct dump {
	int n;
	struct diag s[MAX_SOCKS];
};

static unsigned int ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* Sends one request; returns the netlink socket, or -1. */
static int diag_request(int family, unsigned int states, unsigned int ino,
			const unsigned int *cookie, bool dump)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0),
			.nlmsg_seq = 7,
		},
		.r = {
			.sdiag_family = family,
			.udiag_states = states,
			.udiag_ino = ino,
			.udiag_show = SHOW_ALL,
		},
	};
	int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (cookie) {
		req.r.udiag_cookie[0] = cookie[0];
		req.r.udiag_cookie[1] = cookie[1];
	}
	if (nl < 0)
		return -1;
	if (send(nl, &req, sizeof(req), 0) != sizeof(req)) {
		close(nl);
		return -1;
	}
	return nl;
}

static void parse_one(const struct nlmsghdr *h, struct diag *d)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	const struct nlattr *a = (const void *)(m + 1);

	memset(d, 0, sizeof(*d));
	d->name_len = d->nicons = d->meminfo_len = d->shutdown = -1;
	d->ino = m->udiag_ino;
	d->cookie[0] = m->udiag_cookie[0];
	d->cookie[1] = m->udiag_cookie[1];
	d->family = m->udiag_family;
	d->type = m->udiag_type;
	d->state = m->udiag_state;
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len) {
		const void *p = (const char *)a + NLA_HDRLEN;
		int n = a->nla_len - NLA_HDRLEN;

		switch (a->nla_type) {
		case UNIX_DIAG_NAME:
			d->name_len = n < (int)sizeof(d->name) ? n : (int)sizeof(d->name);
			memcpy(d->name, p, d->name_len);
			break;
		case UNIX_DIAG_VFS:
			d->vfs = true;
			memcpy(&d->vfs_ino, p, 4);
			memcpy(&d->vfs_dev, (const char *)p + 4, 4);
			break;
		case UNIX_DIAG_PEER:
			d->has_peer = true;
			memcpy(&d->peer, p, 4);
			break;
		case UNIX_DIAG_ICONS:
			d->nicons = n / 4;
			memcpy(d->icons, p, (n / 4 < 8 ? n / 4 : 8) * 4);
			break;
		case UNIX_DIAG_RQLEN:
			d->rqlen = true;
			memcpy(&d->rqueue, p, 4);
			memcpy(&d->wqueue, (const char *)p + 4, 4);
			break;
		case UNIX_DIAG_MEMINFO:
			d->meminfo_len = n;
			break;
		case UNIX_DIAG_SHUTDOWN:
			d->shutdown = *(const unsigned char *)p;
			break;
		case UNIX_DIAG_UID:
			d->has_uid = true;
			memcpy(&d->uid, p, 4);
			break;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* Reads the replies of `nl` into `out`; 0, or the negative errno of an NLMSG_ERROR. */
static int diag_read(int nl, struct dump *out)
{
	static char buf[32768];

	out->n = 0;
	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n <= 0)
			return -EIO;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || out->n == MAX_SOCKS)
				return -EPROTO;
			parse_one(h, &out->s[out->n++]);
			/* An exact lookup answers with one message, without NLMSG_DONE. */
			if (!(h->nlmsg_flags & NLM_F_MULTI))
				return 0;
		}
	}
}

/* One request and its replies: 0, or a negative errno. */
static int nl_ask(int family, unsigned int states, unsigned int ino, const unsigned int *cookie,
		  bool dump, struct dump *out)
{
	int nl = diag_request(family, states, ino, cookie, dump), err;

	if (nl < 0)
		return -errno;
	err = diag_read(nl, out);
	close(nl);
	return err;
}

static int nl_dump(int family, unsigned int states, struct dump *out)
{
	return nl_ask(family, states, 0, NULL, true, out);
}

static int nl_exact(int family, unsigned int ino, const unsigned int *cookie,
		    struct dump *out)
{
	return nl_ask(family, ~0u, ino, cookie, false, out);
}

static const struct diag *find(const struct dump *d, unsigned int ino)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (d->s[i].ino == ino)
			return &d->s[i];
	return NULL;
}

FIXTURE(diag)
{
	int family;
	char cwd[PATH_MAX], dir[64];
	/* The sockets of the scenario. */
	int l, c1, c2, a1, p0, p1, d;
};

FIXTURE_VARIANT(diag)
{
	bool ours;
};

FIXTURE_VARIANT_ADD(diag, af_unix)
{
	.ours = false,
};

FIXTURE_VARIANT_ADD(diag, rust_afunix)
{
	.ours = true,
};

static int abstract(struct sockaddr_un *sun, int family, const char *name)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	memcpy(sun->sun_path + 1, name, strlen(name));
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
}

FIXTURE_SETUP(diag)
{
	char tmpl[] = "diag.XXXXXX";
	struct sockaddr_un sun;
	int sv[2], len;

	self->family = variant_family(variant->ours);
	ASSERT_LT(0, self->family) TH_LOG("rust_afunix is not loaded");
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, enter_private_dir(tmpl, self->cwd, self->dir));

	/* A listener (backlog 5) with one accepted and one pending connection. */
	len = abstract(&sun, self->family, "diag-l");
	self->l = socket(self->family, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind(self->l, (struct sockaddr *)&sun, len));
	ASSERT_EQ(0, listen(self->l, 5));
	self->c1 = socket(self->family, SOCK_STREAM, 0);
	ASSERT_EQ(0, connect(self->c1, (struct sockaddr *)&sun, len));
	self->a1 = accept(self->l, NULL, NULL);
	ASSERT_LE(0, self->a1);
	self->c2 = socket(self->family, SOCK_STREAM, 0);
	ASSERT_EQ(0, connect(self->c2, (struct sockaddr *)&sun, len));

	/* A pair: 3 bytes unread at p1, and p1 shut for sending. */
	ASSERT_EQ(0, socketpair(self->family, SOCK_STREAM, 0, sv));
	self->p0 = sv[0];
	self->p1 = sv[1];
	ASSERT_EQ(3, write(self->p0, "abc", 3));
	ASSERT_EQ(0, shutdown(self->p1, SHUT_WR));

	/* A datagram socket bound to a pathname. */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = self->family;
	memcpy(sun.sun_path, "diag-d", 7);
	self->d = socket(self->family, SOCK_DGRAM, 0);
	ASSERT_EQ(0, bind(self->d, (struct sockaddr *)&sun,
			  offsetof(struct sockaddr_un, sun_path) + 7));
}

FIXTURE_TEARDOWN(diag)
{
	leave_private_dir(self->cwd, self->dir);
}

/* Every attribute of every socket of the scenario, in one dump of all states. */
TEST_F(diag, dump_attributes)
{
	const struct diag *l, *c1, *c2, *a1, *p0, *p1, *d;
	static struct dump out;
	struct stat st;

	ASSERT_EQ(0, nl_dump(self->family, ~0u, &out));
	/* Exactly the sockets of this netns: the test's 7. */
	EXPECT_EQ(7, out.n);
	l = find(&out, ino_of(self->l));
	c1 = find(&out, ino_of(self->c1));
	c2 = find(&out, ino_of(self->c2));
	a1 = find(&out, ino_of(self->a1));
	p0 = find(&out, ino_of(self->p0));
	p1 = find(&out, ino_of(self->p1));
	d = find(&out, ino_of(self->d));
	ASSERT_TRUE(l && c1 && c2 && a1 && p0 && p1 && d);

	EXPECT_EQ(self->family, l->family);
	EXPECT_EQ(SOCK_STREAM, l->type);
	EXPECT_EQ(TCP_LISTEN, l->state);
	EXPECT_EQ(7, l->name_len);
	EXPECT_EQ(0, memcmp(l->name, "\0diag-l", 7));
	EXPECT_FALSE(l->vfs);
	EXPECT_FALSE(l->has_peer);
	/* The pending connection: its connecting socket's inode. */
	ASSERT_EQ(1, l->nicons);
	EXPECT_EQ(ino_of(self->c2), l->icons[0]);
	EXPECT_TRUE(l->rqlen);
	EXPECT_EQ(1u, l->rqueue);
	EXPECT_EQ(5u, l->wqueue);
	EXPECT_EQ(0, l->shutdown);

	EXPECT_EQ(TCP_ESTABLISHED, c1->state);
	EXPECT_EQ(-1, c1->name_len);
	EXPECT_TRUE(c1->has_peer);
	EXPECT_EQ(ino_of(self->a1), c1->peer);
	EXPECT_EQ(-1, c1->nicons);
	/* The accepted socket has the listener's name, and c1 as its peer. */
	EXPECT_EQ(7, a1->name_len);
	EXPECT_EQ(0, memcmp(a1->name, "\0diag-l", 7));
	EXPECT_EQ(ino_of(self->c1), a1->peer);
	/* c2 is connected to its embryo, which has no socket inode: not listed itself. */
	EXPECT_EQ(TCP_ESTABLISHED, c2->state);
	EXPECT_TRUE(c2->has_peer);
	EXPECT_EQ(0u, c2->peer);

	EXPECT_EQ(TCP_ESTABLISHED, p0->state);
	EXPECT_EQ(ino_of(self->p1), p0->peer);
	EXPECT_EQ(ino_of(self->p0), p1->peer);
	EXPECT_EQ(3u, p1->rqueue);
	EXPECT_EQ(0u, p0->rqueue);
	/* p0's 3 bytes are still charged to it (their skb's truesize). */
	EXPECT_LT(0u, p0->wqueue);
	EXPECT_EQ(SEND_SHUTDOWN_BIT, p1->shutdown);
	EXPECT_EQ(RCV_SHUTDOWN_BIT, p0->shutdown);

	EXPECT_EQ(SOCK_DGRAM, d->type);
	EXPECT_EQ(TCP_CLOSE, d->state);
	EXPECT_EQ(7, d->name_len);
	EXPECT_EQ(0, memcmp(d->name, "diag-d", 7));
	ASSERT_EQ(0, stat("diag-d", &st));
	EXPECT_TRUE(d->vfs);
	EXPECT_EQ((unsigned int)st.st_ino, d->vfs_ino);
	EXPECT_EQ((unsigned int)st.st_dev, d->vfs_dev);
	EXPECT_FALSE(d->has_peer);

	/* On every socket: meminfo's SK_MEMINFO_VARS words, and the caller's uid. */
	EXPECT_EQ(MEMINFO_LEN, d->meminfo_len);
	EXPECT_EQ(MEMINFO_LEN, l->meminfo_len);
	EXPECT_TRUE(p0->has_uid);
	EXPECT_EQ((unsigned int)getuid(), p0->uid);
	EXPECT_EQ((unsigned int)getuid(), l->uid);
}

/* udiag_states filters by state: only the listener, then only the unconnected. */
TEST_F(diag, states_filter)
{
	static struct dump out;

	ASSERT_EQ(0, nl_dump(self->family, 1 << TCP_LISTEN, &out));
	ASSERT_EQ(1, out.n);
	EXPECT_EQ(ino_of(self->l), out.s[0].ino);
	ASSERT_EQ(0, nl_dump(self->family, 1 << TCP_CLOSE, &out));
	ASSERT_EQ(1, out.n);
	EXPECT_EQ(ino_of(self->d), out.s[0].ino);
	ASSERT_EQ(0, nl_dump(self->family, 0, &out));
	EXPECT_EQ(0, out.n);
}

/* A lookup by inode and cookie: the socket; a stale cookie, a missing inode, inode 0. */
TEST_F(diag, exact_lookup)
{
	static struct dump all, one;
	const struct diag *d;
	unsigned int bad[2];

	ASSERT_EQ(0, nl_dump(self->family, ~0u, &all));
	d = find(&all, ino_of(self->d));
	ASSERT_TRUE(d != NULL);
	ASSERT_EQ(0, nl_exact(self->family, d->ino, d->cookie, &one));
	ASSERT_EQ(1, one.n);
	EXPECT_EQ(d->ino, one.s[0].ino);
	EXPECT_EQ(0, memcmp(d->name, one.s[0].name, 7));
	EXPECT_EQ(d->vfs_ino, one.s[0].vfs_ino);
	/* INET_DIAG_NOCOOKIE (all ones) matches any socket. */
	bad[0] = bad[1] = ~0u;
	ASSERT_EQ(0, nl_exact(self->family, d->ino, bad, &one));
	bad[0] = d->cookie[0] + 1;
	bad[1] = d->cookie[1];
	EXPECT_EQ(-ESTALE, nl_exact(self->family, d->ino, bad, &one));
	EXPECT_EQ(-ENOENT, nl_exact(self->family, ino_of(self->d) + 100000, NULL, &one));
	EXPECT_EQ(-EINVAL, nl_exact(self->family, 0, NULL, &one));
}

/* Sockets of another netns are not listed, and cannot be looked up. */
TEST_F(diag, other_netns)
{
	unsigned int ino = ino_of(self->d);
	static struct dump out;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, nl_dump(self->family, ~0u, &out));
	EXPECT_EQ(0, out.n);
	EXPECT_EQ(-ENOENT, nl_exact(self->family, ino, NULL, &out));
}

TEST_HARNESS_MAIN
