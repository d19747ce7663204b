// SPDX-License-Identifier: GPL-2.0
/*
 * A differential fuzzer: a seeded generator of random syscall sequences over a small
 * pool of sockets, run once on AF_UNIX and once on the module's family, compared call
 * by call (return value, errno, bytes received, names by form, msg_flags, control
 * messages, poll masks). The first divergence prints the seed, the call and both
 * results, and the seed alone replays it:
 *
 *	fuzz				make check's bounded run: seeds 1..200, 60 calls
 *	fuzz FIRST_SEED N_SEEDS [OPS [JOBS]]	(default OPS 60, JOBS 1: seeds run at a time);
 *					exit status 1 on a divergence
 *	fuzz -v SEED [OPS]		replays one seed, printing every call
 *
 * It ends with a kselftest "# Totals:" line (one test: no divergence).
 *
 * Sends carry SCM_RIGHTS (one or two fds: /dev/null or a pipe; not the pool's sockets,
 * whose cycles in flight the collector frees in its own time, which would make names
 * free or taken by timing: selftests/stress covers those) in a quarter of the calls, and receives get control buffers of
 * the sizes around the exact sizes of the control messages (SCM_RIGHTS of one and two
 * fds, SCM_CREDENTIALS), often with MSG_PEEK; fds received go into free slots of the
 * pool (their numbers are not compared).
 *
 * One call in 16 starts a scenario instead: a socketpair in two fixed slots and a run of
 * sends, peeks and receives on it, with fds and SO_PEEK_OFF (gen_scenario()).
 *
 * The sequence is generated from the seed before it runs, so that it does not depend
 * on results. Every socket is non-blocking and every send and receive has
 * MSG_DONTWAIT: nothing waits. Pathnames are made in a directory of each run's own,
 * and each run is in a network namespace of its own.
 *
 * Excluded from the comparison, each for the reason given where it is done: the random
 * part of autobind names (compared by length and first byte), the family number in
 * returned addresses (mapped to AF_UNIX), inode numbers (never read).
 */
#include "common.h"
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <stddef.h>
#include <stdint.h>

#define SLOTS 6
#define MAXOPS 4000

enum op_kind {
	OP_SOCKET, OP_SOCKETPAIR, OP_BIND, OP_LISTEN, OP_CONNECT, OP_ACCEPT, OP_SEND,
	OP_SENDTO, OP_RECV, OP_SHUTDOWN, OP_CLOSE, OP_GETNAME, OP_SETSOCKOPT, OP_IOCTL,
	OP_POLL, OP_KINDS,
	/* Only in scenarios: a socketpair into slots a and a + 1 (closing what was there). */
	OP_PAIR_AT = OP_KINDS
};

static const char *const op_names[] = {
	"socket", "socketpair", "bind", "listen", "connect", "accept", "send", "sendto",
	"recv", "shutdown", "close", "getname", "setsockopt", "ioctl", "poll", "pair_at",
};

struct op {
	int kind, a, b;
	unsigned int c, d;	/* raw draws: the calls take them modulo their ranges */
	unsigned int flags;
	size_t len;
};

/* The result of one call. */
struct res {
	long ret;
	int err;
	uint32_t digest;	/* bytes, names, flags, masks: what the call returned */
	/* Parts of a receive's digest, printed by -v: its bytes, msg_flags, control. */
	uint32_t data;
	int msg_flags;
	size_t controllen;
	socklen_t namelen;
};

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static uint32_t mix(uint32_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW, 0, 7 };

/*
 * A scenario from ops[i] on (at most n): a socketpair in slots s and s + 1 (stream in
 * three cases of four), then 4 to 19 calls on it: sends of a few bytes from s + 1, half
 * of them with SCM_RIGHTS, some out of band; receives on s, half of them MSG_PEEK, with
 * control buffers around the exact sizes and lengths ending at a send's end; SO_PEEK_OFF
 * set to 0 or 1 on s; now and then any other call on either end. These are the
 * sequences a uniform draw over the slots almost never makes (issue 24: a peek past
 * earlier data up to an skb carrying fds). Returns the index of the last op made.
 */
static int gen_scenario(struct op *ops, int i, int n)
{
	int s = 2 * (int)(rnd() % (SLOTS / 2)), k = 4 + rnd() % 16, j;
	size_t sent = 1;

	ops[i] = (struct op){ .kind = OP_PAIR_AT, .a = s, .b = s + 1,
			      .c = rnd() % 4 ? 0 : 1 + rnd() % 2 };
	for (j = 1; j <= k && i + j < n; j++) {
		struct op *o = &ops[i + j];

		/* One draw per statement: the order of the draws is the seed's. */
		*o = (struct op){ .a = s, .b = s + 1 };
		o->c = rnd();
		o->d = rnd();
		o->flags = rnd();
		switch (rnd() % 8) {
		case 0:
		case 1:
		case 2:
			o->kind = OP_SEND;
			o->a = s + 1;
			o->len = rnd() % 8 ? 1 + rnd() % 16 : 0;
			/* SCM_RIGHTS in half of them, MSG_OOB (send_flags[1]) in one of eight */
			o->flags = (o->flags & ~(3u << 8)) | (rnd() % 2 ? 0 : 1u << 8);
			o->d = 7 * (rnd() % 1000);
			o->d += rnd() % 8 ? 0 : 1;
			sent = o->len;
			break;
		case 3:
		case 4:
		case 5:
			o->kind = OP_RECV;
			/* MSG_PEEK (recv_flags[1]) in half of them, a control buffer asked in 7 of 8 */
			o->d = 8 * (rnd() % 1000);
			o->d += rnd() % 2;
			o->c = (o->c & ~2u) | (rnd() % 8 ? 2 : 0);
			o->len = rnd() % 2 ? sent : 1 + rnd() % 24;
			break;
		case 6:
			o->kind = OP_SETSOCKOPT;
			o->c = 4 * (rnd() % 1000) + 1;		/* SO_PEEK_OFF */
			o->d = 3 * (rnd() % 1000) + 1;	/* 0 or 1 */
			o->d += rnd() % 2;
			break;
		default:
			o->kind = rnd() % OP_KINDS;
			o->a = s + rnd() % 2;
			o->len = rnd() % 64;
		}
	}
	return i + j - 1;
}

static void gen(struct op *ops, int n)
{
	size_t sent = 1;
	int i;

	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];

		/* One call in 16 starts a scenario on a pair. */
		if (rnd() % 16 == 0) {
			i = gen_scenario(ops, i, n);
			continue;
		}

		/* sockets made more often than other calls: fewer calls on empty slots */
		o->kind = rnd() % (OP_KINDS + 4);
		if (o->kind >= OP_KINDS)
			o->kind = o->kind & 1 ? OP_SOCKETPAIR : OP_SOCKET;
		o->a = rnd() % SLOTS;
		o->b = rnd() % SLOTS;
		o->c = rnd();
		o->d = rnd();
		o->flags = rnd();
		switch (rnd() % 8) {
		case 0:
			o->len = 0;
			break;
		case 1:
			o->len = rnd() % 300000;
			break;
		case 2:
			/* a few bytes: receives that end exactly at an skb's end */
			o->len = 1 + rnd() % 4;
			break;
		default:
			o->len = rnd() % 300;
		}
		/*
		 * A receive of as many bytes as the last send in a quarter of the cases: a
		 * peek or read then ends exactly at an skb's end, where the skb after it may
		 * carry fds or other credentials.
		 */
		if (o->kind == OP_SEND || o->kind == OP_SENDTO)
			sent = o->len;
		else if (o->kind == OP_RECV && rnd() % 4 == 0)
			o->len = sent;
	}
}

/* The name of slot-independent test addresses: abstract or pathname, by number. */
static socklen_t make_addr(struct sockaddr_un *sun, int family, int pick)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	switch (pick % 8) {
	case 0:
	case 1:
	case 2:
		sun->sun_path[0] = 0;
		snprintf(sun->sun_path + 1, 20, "fz%d", pick % 3);
		return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sun->sun_path + 1);
	case 3:
	case 4:
		snprintf(sun->sun_path, 20, "p%d", pick % 2);
		return offsetof(struct sockaddr_un, sun_path) + strlen(sun->sun_path) + 1;
	case 5:
		/* autobind */
		return sizeof(sa_family_t);
	case 6:
		snprintf(sun->sun_path, 20, "nodir/x");
		return offsetof(struct sockaddr_un, sun_path) + 8;
	default:
		/* a malformed length, or the wrong family */
		if (pick & 8)
			sun->sun_family = AF_INET;
		snprintf(sun->sun_path, 20, "p0");
		return (pick >> 4) % (sizeof(*sun) + 8);
	}
}

/* Digest of a returned address, by form: autobind names by length and first byte. */
static uint32_t addr_digest(uint32_t h, const struct sockaddr_un *sun, socklen_t len, int family)
{
	struct sockaddr_un c = *sun;

	if (len >= sizeof(sa_family_t) && c.sun_family == family)
		c.sun_family = AF_UNIX;	/* the module reports its own number */
	h = mix(h, &len, sizeof(len));
	if (len == offsetof(struct sockaddr_un, sun_path) + 6 && c.sun_path[0] == 0 &&
	    memcmp(c.sun_path + 1, "fz", 2) != 0) {
		/* an autobind name: 5 random hex digits, not compared */
		return mix(h, "autobind", 8);
	}
	return mix(h, &c, len < sizeof(c) ? len : sizeof(c));
}

struct world {
	int family;
	int fd[SLOTS];
	int pass[2];	/* what SCM_RIGHTS sends: /dev/null and a pipe's read end */
};

static int free_slot(struct world *w)
{
	int i;

	for (i = 0; i < SLOTS; i++)
		if (w->fd[i] < 0)
			return i;
	return -1;
}

static void put(struct world *w, int fd)
{
	int s = free_slot(w);

	if (s < 0)
		close(fd);
	else
		w->fd[s] = fd;
}

/*
 * 6.17+ AF_UNIX keeps a stream socket's SIOCINQ as a count that a passed-over
 * out-of-band byte is not taken off (oob.c, inq_after_skipped_oob): set by main() when
 * AF_UNIX does.
 */
static bool inq_overcounts;

static int sock_type(int fd)
{
	int type = -1;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ? -1 : type;
}

static bool probe_inq_overcounts(void)
{
	int sv[2], v = 0;
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return false;
	if (send(sv[0], "a", 1, MSG_OOB) == 1 && recv(sv[1], &c, 1, 0) < 0)
		ioctl(sv[1], SIOCINQ, &v);
	close(sv[0]);
	close(sv[1]);
	return v > 0;
}

static char sendbuf[300000];
static char recvbuf[300000];

static const unsigned int send_flags[] = { 0, MSG_OOB, MSG_NOSIGNAL, MSG_EOR, MSG_MORE,
					   MSG_CONFIRM, 0x80000000u };
static const unsigned int recv_flags[] = { 0, MSG_PEEK, MSG_TRUNC, MSG_WAITALL, MSG_OOB,
					   MSG_CMSG_CLOEXEC, MSG_ERRQUEUE, MSG_PEEK };

/* Control buffer sizes: none, and each side of the exact sizes of the messages. */
static const size_t ctl_sizes[] = {
	0, 1, 15, 16, 17, 19, 20, 21, 23, 24, 25, 27, 28, 29, 31, 32, 33, 40, 48, 56, 64, 512,
};
#define N_CTL_SIZES ARRAY_SIZE(ctl_sizes)

/* Attaches SCM_RIGHTS of one or two fds of the pool to `mh` (a quarter of the sends). */
static void add_rights(struct world *w, const struct op *o, struct msghdr *mh, char *buf,
		       size_t size)
{
	struct cmsghdr *c;
	int fds[2], n;

	if ((o->flags >> 8) % 4 != 0)
		return;
	n = 1 + (o->flags >> 10) % 2;
	fds[0] = w->pass[(o->flags >> 12) % 2];
	fds[1] = w->pass[(o->flags >> 13) % 2];
	if (size < CMSG_SPACE(n * sizeof(int)))
		return;
	memset(buf, 0, CMSG_SPACE(n * sizeof(int)));
	mh->msg_control = buf;
	mh->msg_controllen = CMSG_SPACE(n * sizeof(int));
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
}

/* Puts the fds of a received SCM_RIGHTS into free slots (or closes them). */
static void keep_fds(struct world *w, struct msghdr *mh)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		int i, n, fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			put(w, fd);
		}
	}
}

static struct res run_op(struct world *w, const struct op *o)
{
	struct res r = { 0 };
	int fa = w->fd[o->a], fb = w->fd[o->b], fam = w->family, v, sv[2];
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	union {
		char buf[512];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr mh;
	unsigned int fl = 0;
	int i;

	errno = 0;
	switch (o->kind) {
	case OP_SOCKET:
		r.ret = socket(fam, types[o->c % 6] | SOCK_NONBLOCK,
			       o->d % 16 == 0 ? 1 : 0);
		if (r.ret >= 0)
			put(w, r.ret), r.ret = 0;
		break;
	case OP_SOCKETPAIR:
		r.ret = socketpair(fam, types[o->c % 3] | SOCK_NONBLOCK, 0, sv);
		if (!r.ret) {
			put(w, sv[0]);
			put(w, sv[1]);
		}
		break;
	case OP_PAIR_AT:
		r.ret = socketpair(fam, types[o->c % 3] | SOCK_NONBLOCK, 0, sv);
		if (!r.ret) {
			for (i = 0; i < 2; i++) {
				if (w->fd[o->a + i] >= 0)
					close(w->fd[o->a + i]);
				w->fd[o->a + i] = sv[i];
			}
		}
		break;
	case OP_BIND:
		len = make_addr(&sun, fam, o->c);
		r.ret = bind(fa, (struct sockaddr *)&sun, len);
		break;
	case OP_LISTEN:
		r.ret = listen(fa, (int)(o->c % 5) - 1);
		break;
	case OP_CONNECT:
		if (o->c % 7 == 0) {
			memset(&sun, 0, sizeof(sun));
			sun.sun_family = AF_UNSPEC;
			len = sizeof(sa_family_t);
		} else {
			len = make_addr(&sun, fam, o->d);
		}
		r.ret = connect(fa, (struct sockaddr *)&sun, len);
		break;
	case OP_ACCEPT:
		r.ret = accept4(fa, (struct sockaddr *)&sun, &len, SOCK_NONBLOCK);
		if (r.ret >= 0) {
			r.digest = addr_digest(0, &sun, len, fam);
			put(w, r.ret);
			r.ret = 0;
		}
		break;
	case OP_SEND:
	case OP_SENDTO:
		for (i = 0; i < (int)(o->len < 64 ? o->len : 64); i++)
			sendbuf[i] = (char)(o->c + i);
		fl = send_flags[o->d % 7] | MSG_DONTWAIT | MSG_NOSIGNAL;
		iov.iov_base = sendbuf;
		iov.iov_len = o->len;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (o->kind == OP_SENDTO) {
			len = make_addr(&sun, fam, o->c >> 8);
			mh.msg_name = &sun;
			mh.msg_namelen = len;
		}
		add_rights(w, o, &mh, ctl.buf, sizeof(ctl.buf));
		r.ret = sendmsg(fa, &mh, fl);
		break;
	case OP_RECV:
		fl = recv_flags[o->d % 8] | MSG_DONTWAIT;
		iov.iov_base = recvbuf;
		iov.iov_len = o->len < sizeof(recvbuf) ? o->len : sizeof(recvbuf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		/*
		 * The name's bytes are hashed up to the length returned, which can pass the
		 * buffer's (a zero-length one gets none): unwritten bytes must be the same
		 * in both runs.
		 */
		memset(&sun, 0, sizeof(sun));
		mh.msg_name = &sun;
		mh.msg_namelen = o->c & 1 ? sizeof(sun) : 0;
		mh.msg_controllen = o->c & 2 ? ctl_sizes[(o->c >> 4) % N_CTL_SIZES] : 0;
		mh.msg_control = mh.msg_controllen ? ctl.buf : NULL;
		memset(&ctl, 0, sizeof(ctl));
		r.ret = recvmsg(fa, &mh, fl);
		if (r.ret >= 0) {
			size_t n = (size_t)r.ret < iov.iov_len ? (size_t)r.ret : iov.iov_len;
			struct cmsghdr *c;

			r.digest = mix(0, recvbuf, n);
			r.data = r.digest;
			r.msg_flags = mh.msg_flags;
			r.controllen = mh.msg_controllen;
			r.namelen = mh.msg_namelen;
			r.digest = mix(r.digest, &mh.msg_flags, sizeof(mh.msg_flags));
			r.digest = addr_digest(r.digest, &sun, mh.msg_namelen, fam);
			for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
				r.digest = mix(r.digest, &c->cmsg_level, sizeof(int));
				r.digest = mix(r.digest, &c->cmsg_type, sizeof(int));
				r.digest = mix(r.digest, &c->cmsg_len, sizeof(c->cmsg_len));
			}
			r.digest = mix(r.digest, &mh.msg_controllen, sizeof(mh.msg_controllen));
			keep_fds(w, &mh);
		}
		break;
	case OP_SHUTDOWN:
		r.ret = shutdown(fa, (int)(o->c % 4));
		break;
	case OP_CLOSE:
		r.ret = close(fa);
		w->fd[o->a] = -1;
		break;
	case OP_GETNAME:
		memset(&sun, 0, sizeof(sun));
		r.ret = o->c & 1 ? getpeername(fa, (struct sockaddr *)&sun, &len) :
				   getsockname(fa, (struct sockaddr *)&sun, &len);
		if (!r.ret)
			r.digest = addr_digest(0, &sun, len, fam);
		break;
	case OP_SETSOCKOPT:
		v = (int)(o->d % 3) - 1;
		switch (o->c % 4) {
		case 0:
			r.ret = setsockopt(fa, SOL_SOCKET, SO_PASSCRED, &v, sizeof(v));
			break;
		case 1:
			r.ret = setsockopt(fa, SOL_SOCKET, SO_PEEK_OFF, &v, sizeof(v));
			break;
		case 2:
			r.ret = setsockopt(fa, SOL_SOCKET, SO_OOBINLINE, &v, sizeof(v));
			break;
		default:
			len = sizeof(v);
			r.ret = getsockopt(fa, SOL_SOCKET, SO_ERROR, &v, &len);
			r.digest = v;
		}
		break;
	case OP_IOCTL:
		v = -1;
		r.ret = ioctl(fa, o->c % 2 ? SIOCINQ : SIOCATMARK, &v);
		r.digest = v;
		/* Where AF_UNIX overcounts after a passed-over OOB byte (oob.c), not compared. */
		if (o->c % 2 && inq_overcounts && sock_type(fa) == SOCK_STREAM)
			r.digest = 0;
		break;
	case OP_POLL: {
		struct pollfd p = { .fd = fa, .events = POLLIN | POLLOUT | POLLPRI | POLLRDHUP };

		r.ret = poll(&p, 1, 0);
		r.digest = p.revents;
		break;
	}
	}
	(void)fb;
	if (r.ret < 0)
		r.err = errno;
	return r;
}

/* Runs the ops on `family` in a fresh netns and directory; fills `res`. */
static int run_world(int family, const struct op *ops, int n, struct res *res)
{
	char dir[] = "fuzz.XXXXXX", cwd[PATH_MAX];
	struct world w = { .family = family };
	int i;

	if (unshare(CLONE_NEWNET) || !getcwd(cwd, sizeof(cwd)) || !mkdtemp(dir) || chdir(dir))
		return -1;
	for (i = 0; i < SLOTS; i++)
		w.fd[i] = -1;
	{
		int p[2];

		if (pipe(p))
			return -1;
		close(p[1]);
		w.pass[0] = open("/dev/null", O_RDONLY);
		w.pass[1] = p[0];
	}
	for (i = 0; i < n; i++)
		res[i] = run_op(&w, &ops[i]);
	for (i = 0; i < SLOTS; i++)
		if (w.fd[i] >= 0)
			close(w.fd[i]);
	close(w.pass[0]);
	close(w.pass[1]);
	unlink("p0");
	unlink("p1");
	if (chdir(cwd))
		return -1;
	rmdir(dir);
	return 0;
}

static void describe(const struct op *o, char *buf, size_t n)
{
	snprintf(buf, n, "%s(slot %d, slot %d, c=%#x, d=%#x, flags=%#x, len=%zu)",
		 op_names[o->kind], o->a, o->b, o->c, o->d, o->flags, o->len);
}

/* One seed: 0 if both families agree, 1 on the first divergence (printed). */
static int one_seed(uint64_t seed, int n, int ours, bool verbose)
{
	static struct op ops[MAXOPS];
	static struct res ru[MAXOPS], ro[MAXOPS];
	char d[160];
	int i;

	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	gen(ops, n);
	if (run_world(AF_UNIX, ops, n, ru) || run_world(ours, ops, n, ro)) {
		printf("# seed %llu: cannot set up: %s\n", (unsigned long long)seed, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		describe(&ops[i], d, sizeof(d));
		if (verbose)
			printf("# %3d %s: AF_UNIX %ld/%s/%08x, ours %ld/%s/%08x\n", i, d,
			       ru[i].ret, ru[i].err ? strerror(ru[i].err) : "-", ru[i].digest,
			       ro[i].ret, ro[i].err ? strerror(ro[i].err) : "-", ro[i].digest);
		if (ru[i].ret != ro[i].ret || ru[i].err != ro[i].err ||
		    ru[i].digest != ro[i].digest) {
			printf("# divergence: seed %llu, call %d: %s\n", (unsigned long long)seed, i, d);
			printf("#   AF_UNIX: ret %ld, errno %d (%s), digest %08x\n", ru[i].ret,
			       ru[i].err, strerror(ru[i].err), ru[i].digest);
			printf("#   ours:    ret %ld, errno %d (%s), digest %08x\n", ro[i].ret,
			       ro[i].err, strerror(ro[i].err), ro[i].digest);
			if (ops[i].kind == OP_RECV)
				printf("#   recv (AF_UNIX / ours): data %08x / %08x, flags %#x / %#x, control %zu / %zu, name %u / %u\n",
				       ru[i].data, ro[i].data, ru[i].msg_flags, ro[i].msg_flags,
				       ru[i].controllen, ro[i].controllen, ru[i].namelen,
				       ro[i].namelen);
			printf("#   replay: fuzz -v %llu %d\n", (unsigned long long)seed, n);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ours = afunix_module_family(), ops = 60, bad = 0, jobs = 1, running = 0, st;
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");
	unsigned long long first, count, next, done = 0;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGURG, SIG_IGN);
	inq_overcounts = probe_inq_overcounts();
	if (ours < 0) {
		printf("# rust_afunix is not loaded\n");
		return 1;
	}
	if (verbose && argc < 3) {
		fprintf(stderr, "usage: fuzz [FIRST_SEED N_SEEDS [OPS [JOBS]]] | fuzz -v SEED [OPS]\n");
		return 2;
	}
	first = argc > 1 ? strtoull(argv[1 + verbose], NULL, 0) : 1;
	count = verbose ? 1 : (argc > 2 ? strtoull(argv[2], NULL, 0) : 200);
	if (argc > 3)
		ops = atoi(argv[3]);
	if (ops < 1 || ops > MAXOPS)
		ops = 60;
	if (argc > 4 && !verbose)
		jobs = atoi(argv[4]);
	if (jobs < 1 || jobs > 64)
		jobs = 1;
	/*
	 * Each seed in a child: a fresh netns each time, and a crash is contained. JOBS
	 * children at a time (one per vCPU, say); after a divergence no new seed starts.
	 */
	for (next = first; (next < first + count && !bad) || running;) {
		if (next < first + count && !bad && running < jobs) {
			pid = fork();
			if (pid == 0) {
				st = one_seed(next, ops, ours, verbose);
				fflush(stdout);
				_exit(st);
			}
			if (pid < 0) {
				printf("# fork: %s\n", strerror(errno));
				bad++;
			} else
				running++, next++;
			continue;
		}
		if (wait(&st) < 0)
			break;
		running--;
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			done++;
		else
			bad++;
	}
	printf("# fuzz: %llu of %llu seeds from %llu, %d calls each, %d at a time: %s\n", done,
	       count, first, ops, jobs, bad ? "DIVERGENCE" : "no divergence");
	printf("%s 1 fuzz\n# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       bad ? "not ok" : "ok", !bad, !!bad);
	return bad != 0;
}
