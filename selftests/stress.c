// SPDX-License-Identifier: GPL-2.0
/*
 * A concurrency stress: processes and threads race on shared names and sockets for a set
 * time, once on AF_UNIX and once on the module's family, each run in a network namespace
 * of its own and a directory of its own:
 *
 *	names	 bind/close of the same few abstract and pathname names from 4 threads in 2
 *		 processes; connect and sendto to them from fresh sockets. A name held by two
 *		 binders at once is a failure (each binder counts itself in shared memory
 *		 between its bind and its close or unlink). An abstract name is held once per
 *		 socket type, as on AF_UNIX, whose abstract hash mixes in the type.
 *	listen	 a listener is bound, accepted from (non-blocking, and blocking in a second
 *		 thread), shut down and closed in rounds while 2 threads connect to its name,
 *		 send and close.
 *	pairs	 send/recv/shutdown/close on the same socketpair from two threads, every
 *		 type, in rounds (2 processes).
 *	order	 a writer and a reader thread on a pair of each type: every byte or message
 *		 arrives, once, in order, until the writer's shutdown gives the reader its end.
 *	autobind 2 threads each keep 64 autobound sockets, closing the oldest and binding a
 *		 new one: every name is of autobind's form and no two live names are equal.
 *	cycles	 sockets sent in their own and each other's queues (through listeners too),
 *		 peeked and closed in random order: the collector runs against the rest.
 *	netns	 a child in a new netns makes sockets there (a listener with an embryo, a
 *		 pair with data, a cycle in flight), sends two to its parent and exits; the
 *		 parent uses them and closes them last, so the netns goes away with sockets
 *		 freed under it.
 *	resize	 one thread binds and closes thousands of abstract and pathname names at a
 *		 time, driving the tables through growth and shrinking again and again,
 *		 while two threads connect and send to names bound throughout: every lookup
 *		 finds its name (no ECONNREFUSED, no ENOENT).
 *	rmmod	 (the module's family) delete_module("rust_afunix") attempts while sockets
 *		 live: every one must fail with EWOULDBLOCK.
 *
 * Afterwards: every worker exited cleanly, no errno outside the set each call may return
 * here, the family's sockets in /proc/net/protocols of the run's netns back to 0 (the
 * module; AF_UNIX's collector leaves some of the cycles worker's garbage: reported),
 * and (the module) its reference count back to where it was. The module's final unload, the
 * splat check and kmemleak are vm-run's. Prints operations per second and a histogram of
 * results per call, per family.
 *
 *	stress [SECONDS]	each family for SECONDS (default 6, make check's run);
 *				make stress runs STRESS_SECONDS (default 300)
 *
 * It ends with a kselftest "# Totals:" line: one test per family.
 */
#include "common.h"
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

enum op_kind {
	OP_SOCKET, OP_BIND, OP_AUTOBIND, OP_LISTEN, OP_CONNECT, OP_ACCEPT, OP_SEND, OP_SENDTO,
	OP_SENDFD, OP_RECV, OP_SHUTDOWN, OP_CLOSE, OP_NETNS, OP_LOOKUP, OP_RMMOD, OP_XFAMILY,
	OP_KINDS
};

static const char *const op_names[] = {
	"socket", "bind", "autobind", "listen", "connect", "accept", "send", "sendto",
	"send fds", "recv", "shutdown", "close", "netns child", "lookup", "rmmod",
	"send AF_UNIX",
};

/*
 * The errnos each call may return in this stress, on both families. Anything else
 * (EFAULT, ENOMEM, EINVAL from a state that cannot be, a successful rmmod) fails the run.
 */
static const int allowed[OP_KINDS][10] = {
	[OP_BIND] = { EADDRINUSE },
	[OP_CONNECT] = { ECONNREFUSED, ENOENT, EPROTOTYPE, EAGAIN },
	[OP_ACCEPT] = { EAGAIN, EINVAL },
	[OP_SEND] = { EAGAIN, EPIPE, ECONNRESET, ENOTCONN, ECONNREFUSED, EBADF },
	[OP_SENDTO] = { ECONNREFUSED, ENOENT, EPROTOTYPE, EAGAIN, EPERM },
	[OP_SENDFD] = { EAGAIN, EPIPE, ECONNRESET, ECONNREFUSED },
	[OP_RECV] = { EAGAIN, ECONNRESET, ENOTCONN, EBADF },
	[OP_SHUTDOWN] = { ENOTCONN, EBADF },
	[OP_CLOSE] = { 0 },
	[OP_LOOKUP] = { EAGAIN },	/* a full queue; the name is always found */
	[OP_RMMOD] = { EWOULDBLOCK },
	/* The module refuses to carry an AF_UNIX socket; a success is recorded as EEXIST. */
	[OP_XFAMILY] = { EINVAL },
};

#define NERR 160
#define NNAMES 8
#define MAXWHY 8

/* Shared by the workers of one run (MAP_SHARED). */
struct shared {
	unsigned long count[OP_KINDS][NERR];	/* [op][0] successes, [op][e] errno e */
	/*
	 * Binders holding each name now, per type: an abstract name is one per type on
	 * AF_UNIX (its hash includes the type), a pathname one for all (the file).
	 */
	int holders[3][2 * NNAMES];
	unsigned char autoname[3][1 << 20];	/* live autobind names ("%05x") per type */
	int failures;
	char why[MAXWHY][160];
};

static struct shared *sh;
static int family;
static bool ours;
static struct timespec deadline;
static __thread uint64_t rs;

static uint32_t rnd(void)
{
	if (!rs)
		rs = ((uint64_t)getpid() << 32) ^ (uint64_t)syscall(SYS_gettid) ^
		     (uint64_t)time(NULL) ^ 0x9e3779b97f4a7c15ull;
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs >> 11);
}

static bool running(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec && now.tv_nsec < deadline.tv_nsec);
}

static void fail(const char *fmt, ...)
{
	int i = __atomic_fetch_add(&sh->failures, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (i >= MAXWHY)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->why[i], sizeof(sh->why[i]), fmt, ap);
	va_end(ap);
}

/* Counts the result of one call; keeps errno. */
static long rec(int op, long r)
{
	int e = r < 0 ? errno : 0;

	__atomic_fetch_add(&sh->count[op][e < NERR ? e : NERR - 1], 1, __ATOMIC_RELAXED);
	errno = e;
	return r;
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

static int rnd_type(void)
{
	return types[rnd() % 3];
}

static int type_index(int type)
{
	return type == SOCK_STREAM ? 0 : type == SOCK_DGRAM ? 1 : 2;
}

/* Name i of the shared set: abstract for i < NNAMES, a pathname in the run's dir after. */
static socklen_t name_of(int i, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = family;
	if (i < NNAMES) {
		int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "stress-%d", i);

		return offsetof(struct sockaddr_un, sun_path) + 1 + n;
	}
	snprintf(a->sun_path, sizeof(a->sun_path), "s%d", i - NNAMES);
	return sizeof(*a);
}

static int sock(int type)
{
	return rec(OP_SOCKET, socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
}

static void close_fd(int fd)
{
	if (fd >= 0)
		rec(OP_CLOSE, close(fd));
}

/* Sends fds (SCM_RIGHTS) with one byte. */
static long send_fds_raw(int s, const int *fds, int n)
{
	char buf[CMSG_SPACE(8 * sizeof(int))] = {}, b = 'r';
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(s, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static long send_fds(int s, const int *fds, int n)
{
	return rec(OP_SENDFD, send_fds_raw(s, fds, n));
}

/* Receives (flags: MSG_PEEK or 0) and closes any fds that come with the data. */
static long recv_close_fds(int s, int flags)
{
	char buf[CMSG_SPACE(8 * sizeof(int))], data[256];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof(buf) };
	struct cmsghdr *c;
	long r = rec(OP_RECV, recvmsg(s, &m, flags | MSG_DONTWAIT | MSG_CMSG_CLOEXEC));

	if (r < 0)
		return r;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		int *fd = (int *)CMSG_DATA(c);
		size_t i, n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; i < n; i++)
			close_fd(fd[i]);
	}
	return r;
}

/* names: binders race on the shared names; connectors and senders aim at them. */
static void *names_thread(void *arg)
{
	(void)arg;
	while (running()) {
		int i = rnd() % (2 * NNAMES), type = rnd_type(), s, c;
		struct sockaddr_un a;
		socklen_t len = name_of(i, &a);

		s = sock(type);
		if (s < 0)
			continue;
		if (rec(OP_BIND, bind(s, (struct sockaddr *)&a, len)) == 0) {
			int *h = &sh->holders[i < NNAMES ? type_index(type) : 0][i];
			int was = __atomic_fetch_add(h, 1, __ATOMIC_SEQ_CST);

			if (was)
				fail("names: name %d bound by %d others at once", i, was);
			if (type != SOCK_DGRAM && rnd() % 2)
				rec(OP_LISTEN, listen(s, 1 + rnd() % 4));
		}
		/* A fresh socket connects (or sends) to a random name meanwhile. */
		len = name_of(rnd() % (2 * NNAMES), &a);
		if (rnd() % 2) {
			c = sock(rnd_type());
			if (c >= 0)
				rec(OP_CONNECT, connect(c, (struct sockaddr *)&a, len));
		} else {
			c = sock(SOCK_DGRAM);
			if (c >= 0)
				rec(OP_SENDTO, sendto(c, "n", 1, MSG_DONTWAIT | MSG_NOSIGNAL,
						      (struct sockaddr *)&a, len));
		}
		close_fd(c);
		len = sizeof(a);
		if (getsockname(s, (struct sockaddr *)&a, &len) == 0 &&
		    len > offsetof(struct sockaddr_un, sun_path)) {
			/* Bound by us: leave the set before the name is given up. */
			__atomic_fetch_sub(&sh->holders[i < NNAMES ? type_index(type) : 0][i], 1,
					   __ATOMIC_SEQ_CST);
			if (i >= NNAMES && unlink(a.sun_path))
				fail("names: unlink %s: %s", a.sun_path, strerror(errno));
		}
		close_fd(s);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t[8];
	int i;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(long)i))
			fail("pthread_create failed");
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void names_worker(void)
{
	run_threads(names_thread, 2);
}

/* listen: one listener name, owned in rounds; two threads connect to it. */
static struct sockaddr_un listen_addr;
static socklen_t listen_len;
static int round_open;	/* the acceptor goes on while the round is open */

static void *connector_thread(void *arg)
{
	(void)arg;
	while (running()) {
		int c = sock(SOCK_STREAM);
		char buf[64];

		if (c < 0)
			continue;
		if (rec(OP_CONNECT, connect(c, (struct sockaddr *)&listen_addr, listen_len)) == 0) {
			rec(OP_SEND, send(c, "hello", 5, MSG_DONTWAIT | MSG_NOSIGNAL));
			if (rnd() % 2)
				rec(OP_RECV, recv(c, buf, sizeof(buf), MSG_DONTWAIT));
		}
		close_fd(c);
	}
	return NULL;
}

/*
 * Accepts on its own dup of the listener (blocking, with the listener's 10 ms timeout)
 * until the round closes and the listener is shut down under it.
 */
static void *acceptor_thread(void *arg)
{
	int l = (int)(long)arg;

	for (;;) {
		int a = rec(OP_ACCEPT, accept4(l, NULL, NULL, SOCK_CLOEXEC));

		if (a >= 0) {
			close_fd(a);
			continue;
		}
		if (errno != EAGAIN || !__atomic_load_n(&round_open, __ATOMIC_ACQUIRE))
			break;
	}
	close_fd(l);
	return NULL;
}

static void listen_worker(void)
{
	pthread_t t[2];
	int i;

	listen_addr.sun_family = family;
	snprintf(listen_addr.sun_path + 1, sizeof(listen_addr.sun_path) - 1, "stress-listener");
	listen_len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen("stress-listener");
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, connector_thread, NULL);
	while (running()) {
		int l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0), k, d;
		struct timeval tv = { 0, 10000 };
		pthread_t acc;
		bool blocking = rnd() % 2;

		if (rec(OP_SOCKET, l) < 0)
			continue;
		/*
		 * Blocking accepts here and in the acceptor (a dup: the same file, so
		 * O_NONBLOCK could not differ) wait at most 10 ms for a connection.
		 */
		setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (rec(OP_BIND, bind(l, (struct sockaddr *)&listen_addr, listen_len)) ||
		    rec(OP_LISTEN, listen(l, rnd() % 8))) {
			close_fd(l);
			continue;
		}
		__atomic_store_n(&round_open, 1, __ATOMIC_RELEASE);
		d = blocking ? dup(l) : -1;
		if (d >= 0 && pthread_create(&acc, NULL, acceptor_thread, (void *)(long)d)) {
			close(d);
			d = -1;
		}
		for (k = rnd() % 16; k > 0; k--) {
			int a = rec(OP_ACCEPT, accept4(l, NULL, NULL, SOCK_CLOEXEC));

			if (a >= 0)
				close_fd(a);
		}
		__atomic_store_n(&round_open, 0, __ATOMIC_RELEASE);
		if (d >= 0) {
			/* Ends the acceptor's wait: accept on a shut-down listener fails. */
			rec(OP_SHUTDOWN, shutdown(l, SHUT_RDWR));
			pthread_join(acc, NULL);
		}
		close_fd(l);	/* with embryos in its queue */
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/* pairs: two threads on both ends of one pair; one of them shuts down, then closes. */
struct pair_round {
	int sv[2];
	int closed[2];
};

static void *pair_thread(void *arg)
{
	struct pair_round *p = arg;
	char buf[8192];
	int n;

	for (n = 0; n < 64; n++) {
		int e = rnd() % 2, fd = __atomic_load_n(&p->sv[e], __ATOMIC_ACQUIRE);
		size_t len = rnd() % sizeof(buf);

		if (__atomic_load_n(&p->closed[e], __ATOMIC_ACQUIRE))
			continue;
		switch (rnd() % 16) {
		case 0:
			rec(OP_SHUTDOWN, shutdown(fd, rnd() % 3));
			break;
		case 1:
			/* Only one thread closes an end; the other may still be in a call on it. */
			if (!__atomic_exchange_n(&p->closed[e], 1, __ATOMIC_ACQ_REL))
				close_fd(fd);
			break;
		case 2 ... 8:
			memset(buf, 'p', len);
			rec(OP_SEND, send(fd, buf, len, MSG_NOSIGNAL |
					  (rnd() % 4 ? MSG_DONTWAIT : 0)));
			break;
		default:
			rec(OP_RECV, recv(fd, buf, len, (rnd() % 4 ? MSG_DONTWAIT : 0) |
					  (rnd() % 8 ? 0 : MSG_PEEK)));
			break;
		}
	}
	return NULL;
}

static void pairs_worker(void)
{
	while (running()) {
		struct pair_round p = { .closed = { 0, 0 } };
		struct timeval tv = { 0, 20000 };
		pthread_t t[2];
		int i;

		if (rec(OP_SOCKET, socketpair(family, rnd_type() | SOCK_CLOEXEC, 0, p.sv)))
			continue;
		/* A blocking call that no one ends gives up after 20 ms. */
		for (i = 0; i < 2; i++) {
			setsockopt(p.sv[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			setsockopt(p.sv[i], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		}
		for (i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, pair_thread, &p);
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		for (i = 0; i < 2; i++)
			if (!p.closed[i])
				close_fd(p.sv[i]);
	}
}

/*
 * order: a writer and a reader on one pair; the data arrives whole and in order. The
 * data is a sequence of 32-bit counters; a stream send cut short by its timeout is
 * finished before the next, so the reader sees the sequence with no gap.
 */
struct order_run {
	int sv[2], type, done, reader_gone;
	unsigned long sent, got;	/* words */
};

static void *order_writer(void *arg)
{
	struct order_run *o = arg;
	uint32_t buf[512];

	while (running()) {
		size_t n = 1 + rnd() % 512, i, off = 0;

		for (i = 0; i < n; i++)
			buf[i] = o->sent + i;
		while (off < n * 4) {
			long r = rec(OP_SEND, send(o->sv[0], (char *)buf + off, n * 4 - off,
						   MSG_NOSIGNAL));

			if (r < 0 && errno == EAGAIN && off &&
			    !__atomic_load_n(&o->reader_gone, __ATOMIC_ACQUIRE))
				continue;	/* a 50 ms timeout: finish the words begun */
			if (r < 0)
				break;		/* nothing of this message was sent */
			if (o->type != SOCK_STREAM && r != (long)n * 4)
				fail("order: type %d: a send of %zu bytes sent %ld", o->type,
				     n * 4, r);
			off += r;
		}
		o->sent += off / 4;
	}
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	rec(OP_SHUTDOWN, shutdown(o->sv[0], SHUT_WR));
	return NULL;
}

/* Reads until the end (stream, seqpacket) or until the writer is done and all is read. */
static void *order_reader(void *arg)
{
	struct order_run *o = arg;
	uint32_t buf[700];
	size_t have = 0;	/* bytes of an unfinished word kept at the front (stream) */

	for (;;) {
		int done = __atomic_load_n(&o->done, __ATOMIC_ACQUIRE);
		long r = recv(o->sv[1], (char *)buf + have, sizeof(buf) - have, 0);
		size_t i, words;

		if (r < 0 && errno == EAGAIN) {
			if (done)
				break;	/* a datagram pair has no end: empty after done */
			continue;	/* the 50 ms timeout */
		}
		if (rec(OP_RECV, r) <= 0) {
			if (r < 0)
				fail("order: recv: %s", strerror(errno));
			break;
		}
		have += r;
		words = have / 4;
		for (i = 0; i < words; i++)
			if (buf[i] != o->got + i) {
				fail("order: type %d word %lu is %u", o->type, o->got + i, buf[i]);
				goto out;
			}
		o->got += words;
		have -= words * 4;
		memmove(buf, (char *)buf + words * 4, have);
		if (have && o->type != SOCK_STREAM) {
			fail("order: type %d message of %ld bytes", o->type, r);
			goto out;
		}
	}
	if (o->got != o->sent || have)
		fail("order: type %d sent %lu words, received %lu", o->type, o->sent, o->got);
out:
	__atomic_store_n(&o->reader_gone, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void order_worker(void)
{
	struct order_run o[3];
	pthread_t t[6];
	int i, j;

	for (i = 0; i < 3; i++) {
		struct timeval tv = { 0, 50000 };

		memset(&o[i], 0, sizeof(o[i]));
		o[i].type = types[i];
		if (rec(OP_SOCKET, socketpair(family, o[i].type | SOCK_CLOEXEC, 0, o[i].sv))) {
			fail("order: socketpair: %s", strerror(errno));
			return;
		}
		for (j = 0; j < 2; j++) {
			setsockopt(o[i].sv[j], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			setsockopt(o[i].sv[j], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		}
		pthread_create(&t[2 * i], NULL, order_writer, &o[i]);
		pthread_create(&t[2 * i + 1], NULL, order_reader, &o[i]);
	}
	for (i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 3; i++)
		close_pair(o[i].sv);
}

/* autobind: live autobound names are of the form "\0%05x" and never equal. */
static void *autobind_thread(void *arg)
{
	int ring[64], type[64], key[64], i = 0;

	(void)arg;
	memset(ring, -1, sizeof(ring));
	while (running()) {
		struct sockaddr_un a = { .sun_family = family };
		socklen_t len = sizeof(a);
		unsigned int k;
		char tail;

		if (ring[i] >= 0) {
			__atomic_store_n(&sh->autoname[type[i]][key[i]], 0, __ATOMIC_SEQ_CST);
			close_fd(ring[i]);
			ring[i] = -1;
		}
		type[i] = type_index(rnd_type());
		ring[i] = sock(types[type[i]]);
		if (ring[i] < 0)
			continue;
		if (rec(OP_AUTOBIND, bind(ring[i], (struct sockaddr *)&a, sizeof(sa_family_t)))) {
			close_fd(ring[i]);
			ring[i] = -1;
			continue;
		}
		if (getsockname(ring[i], (struct sockaddr *)&a, &len) ||
		    len != offsetof(struct sockaddr_un, sun_path) + 6 || a.sun_path[0] ||
		    sscanf(a.sun_path + 1, "%5x%c", &k, &tail) != 1) {
			fail("autobind: a name of length %u", len);
			break;
		}
		if (__atomic_exchange_n(&sh->autoname[type[i]][k], 1, __ATOMIC_SEQ_CST))
			fail("autobind: name %05x given to two live sockets", k);
		key[i] = k;
		i = (i + 1) % 64;
	}
	for (i = 0; i < 64; i++)
		if (ring[i] >= 0) {
			__atomic_store_n(&sh->autoname[type[i]][key[i]], 0, __ATOMIC_SEQ_CST);
			close_fd(ring[i]);
		}
	return NULL;
}

static void autobind_worker(void)
{
	run_threads(autobind_thread, 2);
}

/* A listener in l[0], a client connected to it in l[1]: an embryo waits in l[0]. */
static int listener_with_embryo(int l[2])
{
	struct sockaddr_un a = { .sun_family = family };
	socklen_t len = sizeof(a);

	l[0] = sock(SOCK_STREAM);
	l[1] = sock(SOCK_STREAM);
	if (l[0] < 0 || l[1] < 0 ||
	    rec(OP_AUTOBIND, bind(l[0], (struct sockaddr *)&a, sizeof(sa_family_t))) ||
	    rec(OP_LISTEN, listen(l[0], 4)) ||
	    getsockname(l[0], (struct sockaddr *)&a, &len) ||
	    rec(OP_CONNECT, connect(l[1], (struct sockaddr *)&a, len))) {
		close_fd(l[0]);
		close_fd(l[1]);
		return -1;
	}
	return 0;
}

/*
 * cycles: random fd-passing graphs over a few pairs and listeners, closed in any order.
 * On the module's run, one round in four adds an AF_UNIX pair: sending one of its
 * sockets over the family must fail (EINVAL: no cycle through both families), and a
 * socket of the family goes into the AF_UNIX pair's queue (AF_UNIX sockets are never in
 * flight here, so AF_UNIX frees it at close).
 */
static void cycles_worker(void)
{
	while (running()) {
		int fd[12], n = 2 + rnd() % 5, i, j, u[2] = { -1, -1 };
		bool listener[6];
		long r;

		for (i = 0; i < n; i++) {
			listener[i] = rnd() % 4 == 0;
			if (listener[i] ? listener_with_embryo(fd + 2 * i) :
			    rec(OP_SOCKET, socketpair(family, rnd_type() | SOCK_NONBLOCK |
						      SOCK_CLOEXEC, 0, fd + 2 * i)))
				break;
		}
		n = i;
		if (family != AF_UNIX && n && rnd() % 4 == 0 &&
		    !rec(OP_SOCKET, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
					      0, u))) {
			r = send_fds_raw(fd[2 * (rnd() % n) + 1], u + rnd() % 2, 1);
			rec(OP_XFAMILY, r >= 0 ? (errno = EEXIST, -1) : r);
			send_fds(u[1], fd + rnd() % (2 * n), 1);
		}
		for (i = 0; n && i < 2 * n; i++) {
			int pass[2] = { fd[rnd() % (2 * n)], fd[rnd() % (2 * n)] };

			/* Into the queue of a pair's first end (or of a listener's embryo). */
			send_fds(fd[2 * (rnd() % n) + 1], pass, 1 + rnd() % 2);
			j = rnd() % n;
			if (rnd() % 8 == 0 && !listener[j])
				recv_close_fds(fd[2 * j], rnd() % 2 ? MSG_PEEK : 0);
		}
		for (i = 2 * n; i > 0; i--) {
			int j = rnd() % i, t = fd[j];

			fd[j] = fd[i - 1];
			close_fd(t);
		}
		if (u[0] >= 0) {
			close_fd(u[0]);
			close_fd(u[1]);
		}
	}
}

/* netns: sockets made in a netns that is gone by the time they are closed. */
static int recv_two_fds(int s, int out[2])
{
	char buf[CMSG_SPACE(2 * sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof(buf) };
	struct cmsghdr *c;

	if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return -1;
	memcpy(out, CMSG_DATA(c), 2 * sizeof(int));
	return 0;
}

static void netns_child(int chan)
{
	int l[2], p[2], q[2], give[2];

	if (unshare(CLONE_NEWNET))
		_exit(2);
	if (listener_with_embryo(l) ||
	    rec(OP_SOCKET, socketpair(family, SOCK_DGRAM | SOCK_CLOEXEC, 0, p)) ||
	    rec(OP_SOCKET, socketpair(family, SOCK_STREAM | SOCK_CLOEXEC, 0, q)))
		_exit(3);
	rec(OP_SEND, send(p[1], "queued", 6, MSG_DONTWAIT));
	/* A cycle in flight: q[0] in q[1]'s queue and q[1] in q[0]'s. */
	send_fds(q[0], &q[0], 1);
	send_fds(q[1], &q[1], 1);
	/* The listener (with its embryo) and one end of the dgram pair go to the parent. */
	give[0] = l[0];
	give[1] = p[0];
	if (send_fds(chan, give, 2) != 1)
		_exit(4);
	_exit(0);	/* the rest is closed by the exit */
}

static void netns_worker(void)
{
	while (running()) {
		int chan[2], got[2], status, a;
		char buf[16];
		pid_t pid;

		if (socketpair(family, SOCK_DGRAM | SOCK_CLOEXEC, 0, chan))
			continue;
		pid = fork();
		if (pid == 0) {
			close(chan[0]);
			netns_child(chan[1]);
		}
		close(chan[1]);
		if (pid < 0 || recv_two_fds(chan[0], got)) {
			fail("netns: the child sent no sockets");
			close(chan[0]);
			if (pid > 0)
				waitpid(pid, NULL, 0);
			break;
		}
		close(chan[0]);
		waitpid(pid, &status, 0);
		rec(OP_NETNS, WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : (errno = EIO, -1));
		/* The netns is held by these two only now. */
		a = rec(OP_ACCEPT, accept4(got[0], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK));
		if (a < 0)
			fail("netns: no embryo to accept: %s", strerror(errno));
		if (rec(OP_RECV, recv(got[1], buf, sizeof(buf), MSG_DONTWAIT)) != 6)
			fail("netns: the queued datagram is gone");
		if (rnd() % 2) {
			close_fd(a);
			close_fd(got[0]);
			close_fd(got[1]);
		} else {
			close_fd(got[1]);
			close_fd(got[0]);
			close_fd(a);
		}
	}
}

/*
 * resize: names bound throughout stay found while others come and go by thousands.
 * Fixed names 0..7 are abstract, 8..15 pathnames; all datagram sockets.
 */
#define FIXED 16

static struct sockaddr_un fixed[FIXED];
static socklen_t fixed_len[FIXED];

static void fixed_name(int i)
{
	memset(&fixed[i], 0, sizeof(fixed[i]));
	fixed[i].sun_family = family;
	if (i < FIXED / 2) {
		fixed_len[i] = offsetof(struct sockaddr_un, sun_path) + 1 +
			       sprintf(fixed[i].sun_path + 1, "stress-fixed-%d", i);
	} else {
		sprintf(fixed[i].sun_path, "fixed-%d", i);
		fixed_len[i] = sizeof(fixed[i]);
	}
}

static void *churn_thread(void *arg)
{
	static int fd[3000];
	char name[32];
	int n, i;

	(void)arg;
	while (running()) {
		bool path = rnd() % 2;

		for (n = 0; n < 3000 && running(); n++) {
			struct sockaddr_un a = { .sun_family = family };
			socklen_t len;

			fd[n] = sock(SOCK_DGRAM);
			if (fd[n] < 0)
				break;
			snprintf(name, sizeof(name), "churn-%d", n);
			if (path) {
				snprintf(a.sun_path, sizeof(a.sun_path), "%s", name);
				len = sizeof(a);
			} else {
				snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s", name);
				len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
			}
			rec(OP_BIND, bind(fd[n], (struct sockaddr *)&a, len));
			if (path)
				unlink(name);	/* the socket stays bound to its inode */
		}
		for (i = 0; i < n; i++)
			close_fd(fd[i]);
	}
	return NULL;
}

static void *lookup_thread(void *arg)
{
	int c = sock(SOCK_DGRAM);

	(void)arg;
	while (c >= 0 && running()) {
		int i = rnd() % FIXED;

		if (rnd() % 2)
			rec(OP_LOOKUP, connect(c, (struct sockaddr *)&fixed[i], fixed_len[i]));
		else
			rec(OP_LOOKUP, sendto(c, "f", 1, MSG_DONTWAIT, (struct sockaddr *)&fixed[i],
					      fixed_len[i]));
	}
	close_fd(c);
	return NULL;
}

static void resize_worker(void)
{
	int fd[FIXED], i;
	pthread_t t[3];

	for (i = 0; i < FIXED; i++) {
		fixed_name(i);
		fd[i] = sock(SOCK_DGRAM);
		if (rec(OP_BIND, bind(fd[i], (struct sockaddr *)&fixed[i], fixed_len[i]))) {
			fail("resize: bind a fixed name: %s", strerror(errno));
			return;
		}
	}
	pthread_create(&t[0], NULL, churn_thread, NULL);
	for (i = 1; i < 3; i++)
		pthread_create(&t[i], NULL, lookup_thread, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < FIXED; i++) {
		close_fd(fd[i]);
		if (i >= FIXED / 2)
			unlink(fixed[i].sun_path);
	}
}

/* rmmod: the module cannot go while its sockets live. */
static void rmmod_worker(void)
{
	while (running()) {
		long r = syscall(SYS_delete_module, "rust_afunix", O_NONBLOCK);

		rec(OP_RMMOD, r);
		if (r == 0) {
			fail("rmmod: rust_afunix was unloaded with sockets live");
			break;
		}
		usleep(20000);	/* an attempt every 20 ms is enough: not a synchronisation */
	}
}

struct worker {
	const char *name;
	void (*fn)(void);
	int procs;
	bool ours_only;
};

static const struct worker workers[] = {
	{ "names", names_worker, 2, false },
	{ "listen", listen_worker, 1, false },
	{ "pairs", pairs_worker, 2, false },
	{ "order", order_worker, 1, false },
	{ "autobind", autobind_worker, 1, false },
	{ "cycles", cycles_worker, 1, false },
	{ "netns", netns_worker, 1, false },
	{ "resize", resize_worker, 1, false },
	{ "rmmod", rmmod_worker, 1, true },
};

static bool errno_allowed(int op, int e)
{
	int i;

	for (i = 0; i < 10 && allowed[op][i]; i++)
		if (allowed[op][i] == e)
			return true;
	return false;
}

static void report(const char *fam, int secs)
{
	unsigned long total = 0;
	int op, e;

	for (op = 0; op < OP_KINDS; op++) {
		char line[1024];
		int n = 0;

		if (!sh->count[op][0] && op != OP_RMMOD) {
			bool any = false;

			for (e = 1; e < NERR; e++)
				any |= sh->count[op][e] != 0;
			if (!any)
				continue;
		}
		n += snprintf(line + n, sizeof(line) - n, "%lu ok", sh->count[op][0]);
		total += sh->count[op][0];
		for (e = 1; e < NERR; e++) {
			if (!sh->count[op][e])
				continue;
			total += sh->count[op][e];
			if (n < (int)sizeof(line))
				n += snprintf(line + n, sizeof(line) - n, ", %s %lu",
					      strerrorname_np(e) ?: "?", sh->count[op][e]);
			if (!errno_allowed(op, e))
				fail("%s returned %s %lu times", op_names[op],
				     strerrorname_np(e) ?: "?", sh->count[op][e]);
		}
		if (op == OP_RMMOD && sh->count[op][0])
			fail("rmmod succeeded %lu times", sh->count[op][0]);
		printf("# %s %-11s %s\n", fam, op_names[op], line);
	}
	printf("# %s: %lu calls in %d s, %lu per second\n", fam, total, secs, total / secs);
}

/* Prints the family's sockets of this netns (at most 40), as /proc/net lists them. */
static void show_sockets(bool ours)
{
	FILE *f = fopen(ours ? "/proc/net/rust_afunix" : "/proc/net/unix", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f) && n++ < 41)
		printf("#   %s", line);
	if (f)
		fclose(f);
}

static int module_refcnt(void)
{
	return read_int_file("/sys/module/rust_afunix/refcnt");
}

/* One family's run, in a child in a netns and a directory of its own; 0 if it passed. */
static int run_family(bool variant_ours, int secs)
{
	char tmpl[] = "stress.XXXXXX", cwd[PATH_MAX], dir[PATH_MAX] = "";
	const char *fam = variant_ours ? "rust_afunix" : "af_unix";
	int i, j, pin, refs = -1, left, bad = 0, kick[2];
	pid_t pids[16];
	const char *what[16];
	int npids = 0;

	ours = variant_ours;
	family = variant_family(ours);
	if (family < 0) {
		printf("# %s: the module is not loaded\n", fam);
		return 1;
	}
	if (unshare(CLONE_NEWNET) || enter_private_dir(tmpl, cwd, dir)) {
		printf("# %s: no netns or directory: %s\n", fam, strerror(errno));
		return 1;
	}
	if (ours)
		refs = module_refcnt();
	/* Held through the run: the module has a socket at every rmmod attempt. */
	pin = socket(family, SOCK_DGRAM, 0);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += secs;
	for (i = 0; i < (int)ARRAY_SIZE(workers); i++) {
		if ((workers[i].ours_only && !ours) ||
		    (getenv("STRESS_ONLY") && !strstr(getenv("STRESS_ONLY"), workers[i].name)))
			continue;
		for (j = 0; j < workers[i].procs; j++) {
			pid_t pid = fork();

			if (pid == 0) {
				close(pin);
				workers[i].fn();
				_exit(0);
			}
			if (pid < 0) {
				fail("fork: %s", strerror(errno));
				continue;
			}
			what[npids] = workers[i].name;
			pids[npids++] = pid;
		}
	}
	for (i = 0; i < npids; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail("the %s worker died (status %#x)", what[i], status);
	}
	close(pin);
	report(fam, secs);
	/*
	 * Garbage cycles left by the last rounds are collected when a socket is released
	 * (on both families): release one. The collector and the netns cleanups finish on
	 * their own: wait (at most 20 s).
	 */
	if (socketpair(family, SOCK_DGRAM, 0, kick) == 0)
		close_pair(kick);
	left = wait_no_sockets(ours);
	if (left) {
		/*
		 * AF_UNIX (6.10+) walks its graph again only after it changed (otherwise it
		 * reuses the components of its last walk): pass a socket in flight in a
		 * cycle of its own, then release it, and count again.
		 */
		printf("# %s: %d sockets left after a release; after an fd in flight:\n", fam,
		       left);
		if (socketpair(family, SOCK_DGRAM, 0, kick) == 0) {
			send_fds(kick[0], &kick[1], 1);
			close_pair(kick);
		}
		left = wait_no_sockets(ours);
		printf("# %s: %d sockets left\n", fam, left);
		if (left)
			show_sockets(ours);
	}
	/*
	 * AF_UNIX of 6.12.117 leaves sockets of fd cycles (made by the cycles worker, with
	 * listeners and MSG_PEEK) that its collector never frees, even after a collection
	 * with a changed graph: the oracle's leak is reported, not failed. The module must
	 * free every one.
	 */
	if (left && ours)
		fail("%d sockets left in the run's netns", left);
	else if (left)
		printf("# %s: %d sockets of garbage cycles left by AF_UNIX's collector\n", fam,
		       left);
	if (ours) {
		for (i = 0; i < 2000 && module_refcnt() != refs; i++)
			usleep(10000);
		if (module_refcnt() != refs)
			fail("module references %d, were %d", module_refcnt(), refs);
	}
	leave_private_dir(cwd, dir);
	for (i = 0; i < sh->failures && i < MAXWHY; i++, bad = 1)
		printf("# %s: %s\n", fam, sh->why[i]);
	if (sh->failures > MAXWHY)
		printf("# %s: %d failures in all\n", fam, sh->failures);
	return bad || sh->failures;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 6, pass = 0, failed = 0, v;
	struct rlimit rl;

	if (secs <= 0) {
		fprintf(stderr, "usage: %s [SECONDS]\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* The churn holds 3000 sockets at a time (root may raise the limit). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 8192) {
		rl.rlim_cur = 8192;
		if (rl.rlim_max < 8192)
			rl.rlim_max = 8192;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	printf("TAP version 13\n1..2\n");
	fflush(stdout);
	for (v = 0; v < 2; v++) {
		pid_t pid;
		int status;

		memset(sh, 0, sizeof(*sh));
		pid = fork();
		if (pid == 0) {
			int r = run_family(v, secs);

			fflush(stdout);
			_exit(r);
		}
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status)) {
			printf("ok %d stress %s\n", v + 1, v ? "rust_afunix" : "af_unix");
			pass++;
		} else {
			printf("not ok %d stress %s\n", v + 1, v ? "rust_afunix" : "af_unix");
			failed++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", pass, failed);
	return failed ? 1 : 0;
}
