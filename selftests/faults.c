// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure injection, on the debug kernel (CONFIG_FAULT_INJECTION, FAILSLAB,
 * FAIL_PAGE_ALLOC). For each scenario, one call is made again and again with the task's
 * /proc/thread-self/fail-nth set to 1, 2, 3, ...: the nth slab or page allocation of that
 * call fails, until the call completes without reaching the nth. After each failure:
 *
 *	- the call returned ENOMEM, ENOBUFS or ENFILE (what the core returns for a socket or
 *	  file it could not allocate), or an errno AF_UNIX returned in the same scenario;
 *	- nothing was left half done: a failed bind leaves the name free and the socket
 *	  unbound (the same bind succeeds next), a failed connect leaves no embryo (accept
 *	  finds nothing) and the client can connect, a failed accept leaves the embryo
 *	  queued, a failed send queues nothing (a stream send that returns n queued n bytes);
 *	- once the scenario's sockets are closed the family's socket count in this netns is
 *	  back to what it was.
 *
 * Leaks and splats are vm-run's (kmemleak, dmesg). The scenarios run on AF_UNIX first,
 * then on the module's family; each reports the failure points it reached and the
 * results they gave. One kselftest test per scenario and family.
 *
 * The rehash of a growing abstract table runs on the module's workqueue, out of reach
 * of a task's fail-nth: "bind at resize" fails the bind that makes one due.
 */
#include "common.h"
#include <stdarg.h>
#include <stddef.h>
#include <sys/uio.h>

#define MAXPOINTS 3000

struct ctx {
	int family, fd[4];
	struct sockaddr_un a;
	socklen_t alen;
	int many[300], nmany;
	char why[200];
};

struct scenario {
	const char *name;
	int type;
	/* Makes the sockets the call needs; 0 or -1 (with why). */
	int (*setup)(struct ctx *c, int type);
	/* The call under injection (one syscall). */
	long (*call)(struct ctx *c, int type);
	/* After the call (r, err): the state is whole; 0 or -1 (with why). */
	int (*check)(struct ctx *c, int type, long r, int err);
};

static int failnth = -1;
static char buf[70000], rbuf[70000];

static int set_failnth(int n)
{
	char s[16];
	int l = snprintf(s, sizeof(s), "%d", n);

	return pwrite(failnth, s, l, 0) == l ? 0 : -1;
}

/* Whether the armed failure was injected (fail-nth counted down to 0); disarms. */
static bool injected(void)
{
	char s[16] = "";
	bool hit = pread(failnth, s, sizeof(s) - 1, 0) > 0 && atoi(s) == 0;

	set_failnth(0);
	return hit;
}

static int why(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return -1;
}

static int sock(struct ctx *c, int type)
{
	return socket(c->family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

static void abstract_name(struct ctx *c, const char *name)
{
	memset(&c->a, 0, sizeof(c->a));
	c->a.sun_family = c->family;
	snprintf(c->a.sun_path + 1, sizeof(c->a.sun_path) - 1, "%s", name);
	c->alen = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
}

/* One byte each way over a connected pair. */
static int flows(struct ctx *c, int x, int y)
{
	char b;

	if (send(x, "x", 1, MSG_DONTWAIT) != 1 || recv(y, &b, 1, MSG_DONTWAIT) != 1 ||
	    send(y, "y", 1, MSG_DONTWAIT) != 1 || recv(x, &b, 1, MSG_DONTWAIT) != 1)
		return why(c, "no data goes over the connection: %s", strerror(errno));
	return 0;
}

/* Autobinds fd and puts its name in c->a. */
static int autobound(struct ctx *c, int fd)
{
	struct sockaddr_un a = { .sun_family = c->family };

	c->alen = sizeof(c->a);
	if (bind(fd, (struct sockaddr *)&a, sizeof(sa_family_t)) ||
	    getsockname(fd, (struct sockaddr *)&c->a, &c->alen))
		return why(c, "autobind: %s", strerror(errno));
	c->a.sun_family = c->family;
	return 0;
}

static int setup_none(struct ctx *c, int type)
{
	return 0;
}

static int setup_one(struct ctx *c, int type)
{
	c->fd[0] = sock(c, type);
	return c->fd[0] < 0 ? why(c, "socket: %s", strerror(errno)) : 0;
}

static int setup_pair(struct ctx *c, int type)
{
	if (socketpair(c->family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, c->fd))
		return why(c, "socketpair: %s", strerror(errno));
	return 0;
}

/* socket, socketpair */
static long call_socket(struct ctx *c, int type)
{
	return c->fd[0] = socket(c->family, type | SOCK_CLOEXEC, 0);
}

static int check_socket(struct ctx *c, int type, long r, int err)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);

	if (r >= 0 && getsockname(c->fd[0], (struct sockaddr *)&a, &len))
		return why(c, "the new socket does not work: %s", strerror(errno));
	return 0;
}

static long call_socketpair(struct ctx *c, int type)
{
	return socketpair(c->family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, c->fd);
}

static int check_socketpair(struct ctx *c, int type, long r, int err)
{
	if (r)
		return 0;
	return flows(c, c->fd[0], c->fd[1]);
}

/* bind: abstract, pathname, autobind; a failed bind is repeated and must succeed. */
static long call_bind_abstract(struct ctx *c, int type)
{
	abstract_name(c, "faults-name");
	return bind(c->fd[0], (struct sockaddr *)&c->a, c->alen);
}

static long call_bind_path(struct ctx *c, int type)
{
	memset(&c->a, 0, sizeof(c->a));
	c->a.sun_family = c->family;
	snprintf(c->a.sun_path, sizeof(c->a.sun_path), "faults-sock");
	c->alen = sizeof(c->a);
	return bind(c->fd[0], (struct sockaddr *)&c->a, c->alen);
}

static int check_bind(struct ctx *c, int type, long r, int err)
{
	int other;

	if (r < 0 && bind(c->fd[0], (struct sockaddr *)&c->a, c->alen))
		return why(c, "the bind again after the failure: %s", strerror(errno));
	/* Bound now, by this socket only. */
	other = sock(c, type);
	if (other < 0)
		return why(c, "socket: %s", strerror(errno));
	if (!bind(other, (struct sockaddr *)&c->a, c->alen) || errno != EADDRINUSE) {
		close(other);
		return why(c, "a second bind of the name did not get EADDRINUSE");
	}
	close(other);
	if (c->a.sun_path[0] && unlink(c->a.sun_path))
		return why(c, "unlink: %s", strerror(errno));
	return 0;
}

static long call_autobind(struct ctx *c, int type)
{
	struct sockaddr_un a = { .sun_family = c->family };

	return bind(c->fd[0], (struct sockaddr *)&a, sizeof(sa_family_t));
}

static int check_autobind(struct ctx *c, int type, long r, int err)
{
	struct sockaddr_un a = { .sun_family = c->family };
	socklen_t len = sizeof(a);

	if (r < 0 && bind(c->fd[0], (struct sockaddr *)&a, sizeof(sa_family_t)))
		return why(c, "the autobind again after the failure: %s", strerror(errno));
	if (getsockname(c->fd[0], (struct sockaddr *)&a, &len) ||
	    len != offsetof(struct sockaddr_un, sun_path) + 6)
		return why(c, "an autobound name of %u bytes", len);
	return 0;
}

/* bind at resize: the bind that makes the abstract half outgrow its 256 chains. */
static int setup_many(struct ctx *c, int type)
{
	char name[32];
	int i;

	for (i = 0; i < 256; i++) {
		snprintf(name, sizeof(name), "faults-many-%d", i);
		abstract_name(c, name);
		c->many[i] = sock(c, type);
		if (c->many[i] < 0 || bind(c->many[i], (struct sockaddr *)&c->a, c->alen))
			return why(c, "bind %s: %s", name, strerror(errno));
		c->nmany = i + 1;
	}
	return setup_one(c, type);
}

/* listen */
static int setup_bound(struct ctx *c, int type)
{
	return setup_one(c, type) ?: autobound(c, c->fd[0]);
}

static long call_listen(struct ctx *c, int type)
{
	return listen(c->fd[0], 4);
}

static int check_listen(struct ctx *c, int type, long r, int err)
{
	if (r < 0 && listen(c->fd[0], 4))
		return why(c, "listen again after the failure: %s", strerror(errno));
	return 0;
}

/* connect and accept: a listener in fd[0], a client in fd[1] */
static int setup_listener(struct ctx *c, int type)
{
	if (setup_bound(c, type) || listen(c->fd[0], 4))
		return why(c, "listener: %s", c->why[0] ? c->why : strerror(errno));
	c->fd[1] = sock(c, type);
	return c->fd[1] < 0 ? why(c, "socket: %s", strerror(errno)) : 0;
}

/* The same with the listener at a pathname: the connect resolves it. */
static int setup_path_listener(struct ctx *c, int type)
{
	if (setup_one(c, type) || call_bind_path(c, type) || listen(c->fd[0], 4))
		return why(c, "listener: %s", c->why[0] ? c->why : strerror(errno));
	c->fd[1] = sock(c, type);
	return c->fd[1] < 0 ? why(c, "socket: %s", strerror(errno)) : 0;
}

static long call_connect(struct ctx *c, int type)
{
	return connect(c->fd[1], (struct sockaddr *)&c->a, c->alen);
}

static int check_connect(struct ctx *c, int type, long r, int err)
{
	if (r < 0) {
		c->fd[2] = accept4(c->fd[0], NULL, NULL, SOCK_NONBLOCK);
		if (c->fd[2] >= 0 || errno != EAGAIN)
			return why(c, "a failed connect left an embryo (accept: %s)",
				   c->fd[2] >= 0 ? "a socket" : strerror(errno));
		if (connect(c->fd[1], (struct sockaddr *)&c->a, c->alen))
			return why(c, "connect again after the failure: %s", strerror(errno));
	}
	c->fd[2] = accept4(c->fd[0], NULL, NULL, SOCK_NONBLOCK);
	if (c->fd[2] < 0)
		return why(c, "accept after the connect: %s", strerror(errno));
	return flows(c, c->fd[1], c->fd[2]);
}

static int setup_pending(struct ctx *c, int type)
{
	if (setup_listener(c, type) ||
	    connect(c->fd[1], (struct sockaddr *)&c->a, c->alen))
		return why(c, "connect: %s", c->why[0] ? c->why : strerror(errno));
	return 0;
}

static long call_accept(struct ctx *c, int type)
{
	return c->fd[2] = accept4(c->fd[0], NULL, NULL, SOCK_NONBLOCK);
}

static int check_accept(struct ctx *c, int type, long r, int err)
{
	if (r < 0) {
		c->fd[2] = accept4(c->fd[0], NULL, NULL, SOCK_NONBLOCK);
		if (c->fd[2] < 0)
			return why(c, "accept again after the failure: %s", strerror(errno));
	}
	return flows(c, c->fd[1], c->fd[2]);
}

/* datagram connect: a bound datagram socket in fd[0], a client in fd[1] */
static int setup_dgram_peer(struct ctx *c, int type)
{
	if (setup_bound(c, type))
		return -1;
	c->fd[1] = sock(c, type);
	return c->fd[1] < 0 ? why(c, "socket: %s", strerror(errno)) : 0;
}

static int check_dgram_connect(struct ctx *c, int type, long r, int err)
{
	char b;

	if (r < 0 && connect(c->fd[1], (struct sockaddr *)&c->a, c->alen))
		return why(c, "connect again after the failure: %s", strerror(errno));
	if (send(c->fd[1], "d", 1, 0) != 1 || recv(c->fd[0], &b, 1, 0) != 1)
		return why(c, "no datagram after connect: %s", strerror(errno));
	return 0;
}

/* send of each size; the receiver has exactly what the send says it sent */
static size_t send_size(int type)
{
	return type >> 8 ? (size_t)(type >> 8) * 1000 : 100;
}

static long call_send(struct ctx *c, int type)
{
	return send(c->fd[0], buf, send_size(type), MSG_DONTWAIT);
}

static long call_sendto(struct ctx *c, int type)
{
	return sendto(c->fd[1], buf, send_size(type), MSG_DONTWAIT, (struct sockaddr *)&c->a,
		      c->alen);
}

/* Everything queued for fd is what was sent (want bytes), whole and in order. */
static int received(struct ctx *c, int fd, long want)
{
	long got = 0, r;

	while ((r = recv(fd, rbuf + got, sizeof(rbuf) - got, MSG_DONTWAIT)) > 0)
		got += r;
	if (r < 0 && errno != EAGAIN)
		return why(c, "recv: %s", strerror(errno));
	if (got != want || memcmp(rbuf, buf, got))
		return why(c, "%ld bytes queued where the send said %ld", got, want);
	return 0;
}

static int check_send(struct ctx *c, int type, long r, int err)
{
	return received(c, c->fd[1], r < 0 ? 0 : r);
}

static int check_sendto(struct ctx *c, int type, long r, int err)
{
	return received(c, c->fd[0], r < 0 ? 0 : r);
}

/* Both ends with SO_PASSCRED: the unbound sender autobinds in sendto. */
static int setup_passcred(struct ctx *c, int type)
{
	int one = 1;

	if (setup_dgram_peer(c, type) ||
	    setsockopt(c->fd[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    setsockopt(c->fd[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		return why(c, "SO_PASSCRED: %s", c->why[0] ? c->why : strerror(errno));
	return 0;
}

/* SCM_RIGHTS: the send of a socket's fd (fd[2]) over a pair; its receive */
static long send_fd(int s, int fd)
{
	return send_one_fd(s, (const char *)buf, fd, MSG_DONTWAIT);
}

/* Receives (flags: MSG_PEEK) one byte and the fd that may come with it (-1 if none). */
static long recv_fd_flags(int s, int *fd, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { rbuf, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	long r = recvmsg(s, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | flags);

	*fd = -1;
	cm = r >= 0 ? CMSG_FIRSTHDR(&m) : NULL;
	if (cm && cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return r;
}

static long recv_fd(int s, int *fd)
{
	return recv_fd_flags(s, fd, 0);
}

static int setup_fd_pair(struct ctx *c, int type)
{
	if (setup_pair(c, type))
		return -1;
	c->fd[2] = sock(c, SOCK_DGRAM);
	return c->fd[2] < 0 ? why(c, "socket: %s", strerror(errno)) : 0;
}

static long call_send_fd(struct ctx *c, int type)
{
	return send_fd(c->fd[0], c->fd[2]);
}

static int check_send_fd(struct ctx *c, int type, long r, int err)
{
	long n = recv_fd(c->fd[1], &c->fd[3]);

	if (r < 0 && (n >= 0 || errno != EAGAIN))
		return why(c, "a failed send queued something (recv: %ld)", n);
	if (r == 1 && (n != 1 || c->fd[3] < 0))
		return why(c, "the fd sent did not arrive (recv: %ld)", n);
	return 0;
}

static int setup_fd_queued(struct ctx *c, int type)
{
	if (setup_fd_pair(c, type) || send_fd(c->fd[0], c->fd[2]) != 1)
		return why(c, "send fd: %s", c->why[0] ? c->why : strerror(errno));
	return 0;
}

static long call_recv_fd(struct ctx *c, int type)
{
	return recv_fd(c->fd[1], &c->fd[3]);
}

static int check_recv_fd(struct ctx *c, int type, long r, int err)
{
	/* A receive that failed before taking the message leaves it for the next one. */
	if (r < 0 && recv_fd(c->fd[1], &c->fd[3]) != 1)
		return why(c, "the message is gone after the failure: %s", strerror(errno));
	return 0;
}

/* A peek duplicates the fd list of the skb (scm_fp_dup()). */
static long call_peek_fd(struct ctx *c, int type)
{
	return recv_fd_flags(c->fd[1], &c->fd[3], MSG_PEEK);
}

static int check_peek_fd(struct ctx *c, int type, long r, int err)
{
	/* Whatever the peek got, the message and its fd are still there for a receive. */
	if (c->fd[3] >= 0)
		close(c->fd[3]);
	if (recv_fd(c->fd[1], &c->fd[3]) != 1 || c->fd[3] < 0)
		return why(c, "the message or its fd is gone after the peek (%ld)", r);
	return 0;
}

#define SIZE(kb) ((kb) << 8)

static const struct scenario scenarios[] = {
	{ "socket stream", SOCK_STREAM, setup_none, call_socket, check_socket },
	{ "socket dgram", SOCK_DGRAM, setup_none, call_socket, check_socket },
	{ "socket seqpacket", SOCK_SEQPACKET, setup_none, call_socket, check_socket },
	{ "socketpair stream", SOCK_STREAM, setup_none, call_socketpair, check_socketpair },
	{ "socketpair dgram", SOCK_DGRAM, setup_none, call_socketpair, check_socketpair },
	{ "bind abstract", SOCK_STREAM, setup_one, call_bind_abstract, check_bind },
	{ "bind pathname", SOCK_DGRAM, setup_one, call_bind_path, check_bind },
	{ "autobind", SOCK_SEQPACKET, setup_one, call_autobind, check_autobind },
	{ "bind at resize", SOCK_DGRAM, setup_many, call_bind_abstract, check_bind },
	{ "listen", SOCK_STREAM, setup_bound, call_listen, check_listen },
	{ "connect stream", SOCK_STREAM, setup_listener, call_connect, check_connect },
	{ "connect seqpacket", SOCK_SEQPACKET, setup_listener, call_connect, check_connect },
	{ "connect pathname", SOCK_STREAM, setup_path_listener, call_connect, check_connect },
	{ "accept", SOCK_STREAM, setup_pending, call_accept, check_accept },
	{ "connect dgram", SOCK_DGRAM, setup_dgram_peer, call_connect, check_dgram_connect },
	{ "send stream 100", SOCK_STREAM, setup_pair, call_send, check_send },
	{ "send stream 64k", SOCK_STREAM | SIZE(64), setup_pair, call_send, check_send },
	{ "send dgram 100", SOCK_DGRAM, setup_pair, call_send, check_send },
	{ "send dgram 60k", SOCK_DGRAM | SIZE(60), setup_pair, call_send, check_send },
	{ "send seqpacket 100", SOCK_SEQPACKET, setup_pair, call_send, check_send },
	{ "sendto dgram", SOCK_DGRAM, setup_dgram_peer, call_sendto, check_sendto },
	{ "sendto passcred autobind", SOCK_DGRAM, setup_passcred, call_sendto, check_sendto },
	{ "send SCM_RIGHTS", SOCK_STREAM, setup_fd_pair, call_send_fd, check_send_fd },
	{ "recv SCM_RIGHTS", SOCK_DGRAM, setup_fd_queued, call_recv_fd, check_recv_fd },
	{ "peek SCM_RIGHTS dgram", SOCK_DGRAM, setup_fd_queued, call_peek_fd, check_peek_fd },
	{ "peek SCM_RIGHTS stream", SOCK_STREAM, setup_fd_queued, call_peek_fd, check_peek_fd },
};

#define NSCEN ARRAY_SIZE(scenarios)

/* What one scenario on one family gave: failure points reached and their results. */
struct outcome {
	int points;
	int results[140];	/* [0]: the call succeeded anyway; [e]: errno e */
	bool bad;
};

static void cleanup(struct ctx *c)
{
	int i;

	for (i = 0; i < 4; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	for (i = 0; i < c->nmany; i++)
		close(c->many[i]);
	unlink("faults-sock");
}

static bool base_errno(int e)
{
	return e == ENOMEM || e == ENOBUFS || e == ENFILE;
}

static void run(const struct scenario *sc, bool ours, struct outcome *o,
		const struct outcome *oracle)
{
	const char *fam = ours ? "rust_afunix" : "af_unix";
	int n;

	memset(o, 0, sizeof(*o));
	for (n = 1; n <= MAXPOINTS; n++) {
		struct ctx c = { .family = variant_family(ours), .fd = { -1, -1, -1, -1 } };
		int before = sockets_left(ours), err, left;
		bool hit;
		long r;

		if (sc->setup(&c, sc->type & 0xff)) {
			printf("# %s %s: setup: %s\n", sc->name, fam, c.why);
			o->bad = true;
			cleanup(&c);
			return;
		}
		set_failnth(n);
		r = sc->call(&c, sc->type);
		err = errno;
		hit = injected();
		if (hit) {
			o->points++;
			o->results[r < 0 && err < 140 ? err : 0]++;
			if (oracle && r < 0 && !base_errno(err) && !oracle->results[err]) {
				printf("# %s %s: failure %d returned %s\n", sc->name, fam, n,
				       strerrorname_np(err) ?: "?");
				o->bad = true;
			}
		}
		if (sc->check(&c, sc->type & 0xff, r, err)) {
			printf("# %s %s: after failure %d (%s): %s\n", sc->name, fam, n,
			       r < 0 ? strerrorname_np(err) : "succeeded", c.why);
			o->bad = true;
		}
		cleanup(&c);
		left = wait_sockets(ours, before);
		if (left) {
			printf("# %s %s: after failure %d, %d sockets more than before\n",
			       sc->name, fam, n, left);
			o->bad = true;
		}
		if (!hit || o->bad)
			return;
	}
	printf("# %s %s: more than %d failure points\n", sc->name, fam, MAXPOINTS);
	o->bad = true;
}

static void describe(const struct outcome *o, char *s, size_t len)
{
	int e, n = snprintf(s, len, "%d points", o->points);

	for (e = 0; e < 140; e++)
		if (o->results[e] && n < (int)len)
			n += snprintf(s + n, len - n, ", %s %d",
				      e ? strerrorname_np(e) ?: "?" : "succeeded", o->results[e]);
}

/* The debugfs knobs: fail GFP_KERNEL allocations and order-0 pages too. */
static const char *const knobs[][2] = {
	{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/failslab/verbose", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
};

int main(void)
{
	char tmpl[] = "faults.XXXXXX", cwd[PATH_MAX], dir[PATH_MAX] = "", old[5][16];
	struct outcome oracle, mine;
	int test = 0, pass = 0, failed = 0, skip = 0, i;
	size_t k;

	printf("TAP version 13\n1..%zu\n", 2 * NSCEN);
	failnth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	for (i = 0; i < 5 && failnth >= 0; i++) {
		FILE *f = fopen(knobs[i][0], "r");

		if (!f || !fgets(old[i], sizeof(old[i]), f) || write_file(knobs[i][0], knobs[i][1])) {
			close(failnth);
			failnth = -1;
		}
		if (f)
			fclose(f);
	}
	if (failnth < 0) {
		for (k = 0; k < 2 * NSCEN; k++)
			printf("ok %zu # SKIP no fault injection here (fail-nth, failslab)\n", k + 1);
		printf("# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:%zu error:0\n", 2 * NSCEN);
		return 0;
	}
	if (unshare(CLONE_NEWNET) || enter_private_dir(tmpl, cwd, dir)) {
		printf("# no netns or directory: %s\n", strerror(errno));
		printf("# Totals: pass:0 fail:%zu xfail:0 xpass:0 skip:0 error:0\n", 2 * NSCEN);
		return 1;
	}
	memset(buf, 'f', sizeof(buf));	/* no page faults in the calls: touched before */
	memset(rbuf, 0, sizeof(rbuf));
	for (k = 0; k < NSCEN; k++) {
		const struct scenario *sc = &scenarios[k];
		char s[512];

		run(sc, false, &oracle, NULL);
		run(sc, true, &mine, &oracle);
		describe(&oracle, s, sizeof(s));
		printf("%sok %d faults %s af_unix: %s\n", oracle.bad ? "not " : "", ++test,
		       sc->name, s);
		describe(&mine, s, sizeof(s));
		printf("%sok %d faults %s rust_afunix: %s\n", mine.bad ? "not " : "", ++test,
		       sc->name, s);
		pass += !oracle.bad + !mine.bad;
		failed += oracle.bad + mine.bad;
		fflush(stdout);
	}
	for (i = 0; i < 5; i++) {
		old[i][strcspn(old[i], "\n")] = 0;
		write_file(knobs[i][0], old[i]);
	}
	leave_private_dir(cwd, dir);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", pass, failed, skip);
	return failed ? 1 : 0;
}
