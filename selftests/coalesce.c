// SPDX-License-Identifier: GPL-2.0
/*
 * net.rust_afunix.stream_coalesce=1: small stream writes without ancillary data are
 * appended to the tail skb of the peer's queue. Every scenario runs in a new netns with
 * the switch on, once on AF_UNIX (which has no such switch) and once on the module, and
 * every return value, errno, byte, poll mask and control message must be the same:
 * SIOCINQ, MSG_PEEK and SO_PEEK_OFF, reads that stop at other credentials, at fds and
 * at the out-of-band mark (also once read), splice, a peeking reader woken by a write appended to the
 * skb it waits past, a full send buffer (EAGAIN, nothing lost), shutdown, EFAULT. One
 * check is not differential: the module's 10 one-byte writes take one skb's memory
 * (SIOCOUTQ), AF_UNIX's ten, which shows that the writes were coalesced.
 * Last, io_uring sends (raw syscalls) that find the send buffer full: io_uring retries
 * them once there is room, with the same message, so a failed write must not have
 * consumed it.
 */
#include "common.h"
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/io_uring.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"

/* A new netns with the switch on (the module's sysctls are per netns). */
static int coalesce_on(void)
{
	if (unshare(CLONE_NEWNET))
		return -1;
	return write_file("/proc/sys/net/rust_afunix/stream_coalesce", "1") ? -1 : 0;
}

static void note_read(struct trace *t, long r, const unsigned char *b)
{
	note(t, r);
	if (r > 0)
		note(t, digest(b, r));
}

static void write_bytes(struct trace *t, int fd, int from, int n)
{
	unsigned char c;
	int i;

	for (i = 0; i < n; i++) {
		c = (unsigned char)(from + i);
		note(t, send(fd, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL));
	}
}

static long outq_after_ten;

/* SIOCINQ, peeks (with and without SO_PEEK_OFF), the read, poll, sizes around 128. */
static void peek_scenario(int family, struct trace *t)
{
	unsigned char b[4096], big[200];
	struct pollfd p;
	int sv[2], off;

	memset(big, 7, sizeof(big));
	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	write_bytes(t, sv[0], 0, 10);
	outq_after_ten = ioctl_int(sv[0], SIOCOUTQ);
	write_bytes(t, sv[0], 10, 90);
	note(t, ioctl_int(sv[1], SIOCINQ));
	note_read(t, recv(sv[1], b, 64, MSG_PEEK | MSG_DONTWAIT), b);
	off = 10;
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)));
	note_read(t, recv(sv[1], b, 5, MSG_PEEK | MSG_DONTWAIT), b);
	note_read(t, recv(sv[1], b, 5, MSG_PEEK | MSG_DONTWAIT), b);
	off = -1;
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)));
	note_read(t, recv(sv[1], b, 7, MSG_DONTWAIT), b);
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);
	p = (struct pollfd){ .fd = sv[1], .events = POLLIN | POLLOUT };
	note(t, poll(&p, 1, 0));
	note(t, p.revents);
	note(t, send(sv[0], big, 128, MSG_DONTWAIT));
	note(t, send(sv[0], big, 129, MSG_DONTWAIT));
	write_bytes(t, sv[0], 3, 3);
	note(t, ioctl_int(sv[1], SIOCINQ));
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);
	note(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT));
	close_pair(sv);
}

TEST(peek_inq_poll)
{
	static struct trace u, o;
	long unix_outq, ours_outq;
	int fam = afunix_module_family();

	ASSERT_LT(0, fam) TH_LOG("rust_afunix is not loaded");
	ASSERT_EQ(0, coalesce_on());
	peek_scenario(AF_UNIX, &u);
	unix_outq = outq_after_ten;
	peek_scenario(fam, &o);
	ours_outq = outq_after_ten;
	EXPECT_SAME_TRACE(&u, &o);
	/* ten skbs' memory against one's: the module coalesced */
	EXPECT_LT(ours_outq * 5, unix_outq) TH_LOG("SIOCOUTQ after 10 writes: AF_UNIX %ld, ours %ld",
						     unix_outq, ours_outq);
}

/*
 * Receives up to `blen` bytes into `b` (not blocking) with a control buffer for one
 * message of `plen` bytes (at most a struct ucred), and notes the read; returns the
 * type of the control message that came (0: none, or nothing read), its data in
 * `payload`.
 */
static int recv_cmsg(struct trace *t, int fd, unsigned char *b, size_t blen, void *payload,
		     size_t plen)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = b, .iov_len = blen };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(plen),
	};
	struct cmsghdr *c;
	long r;

	r = recvmsg(fd, &mh, MSG_DONTWAIT);
	note_read(t, r, b);
	c = CMSG_FIRSTHDR(&mh);
	if (r <= 0 || !c)
		return 0;
	memcpy(payload, CMSG_DATA(c), plen);
	return c->cmsg_type;
}

/* Receives, notes the bytes, and the credentials' pid as 1 (ours), 2 (child). */
static void recv_creds(struct trace *t, int fd, pid_t child)
{
	unsigned char b[64];
	struct ucred cr;

	if (recv_cmsg(t, fd, b, sizeof(b), &cr, sizeof(cr)) == SCM_CREDENTIALS)
		note(t, cr.pid == getpid() ? 1 : cr.pid == child ? 2 : 0);
}

/* Reads stop where the writer's credentials change (SO_PASSCRED on the reader). */
static void creds_scenario(int family, struct trace *t)
{
	int sv[2], on = 1, i;
	pid_t pid;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
	write_bytes(t, sv[0], 'a', 2);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 2; i++)
			if (send(sv[0], "c", 1, 0) != 1)
				_exit(1);
		_exit(0);
	}
	note(t, pid > 0);
	note(t, waitpid(pid, NULL, 0) == pid);
	write_bytes(t, sv[0], 'e', 2);
	for (i = 0; i < 4; i++)
		recv_creds(t, sv[1], pid);
	close_pair(sv);
}

TEST(creds_boundaries)
{
	static struct trace u, o;

	ASSERT_EQ(0, coalesce_on());
	RUN_BOTH(creds_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

/* A read stops after the skb with fds; the out-of-band mark; splice. */
static void fds_oob_splice_scenario(int family, struct trace *t)
{
	unsigned char b[4096], all[4096];
	int sv[2], p[2], i, fd, rights;
	long r, n;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	note(t, pipe(p));
	/* fds */
	write_bytes(t, sv[0], 'a', 3);
	note(t, send_one_fd(sv[0], "F", p[0], MSG_DONTWAIT));
	write_bytes(t, sv[0], 'x', 3);
	for (i = 0; i < 3; i++) {
		rights = recv_cmsg(t, sv[1], b, sizeof(b), &fd, sizeof(fd)) == SCM_RIGHTS;
		note(t, rights);
		if (rights)
			close(fd);
	}
	/* the out-of-band mark */
	write_bytes(t, sv[0], 'a', 2);
	note(t, send(sv[0], "!", 1, MSG_OOB | MSG_DONTWAIT));
	write_bytes(t, sv[0], 'd', 2);
	note(t, ioctl_int(sv[1], SIOCATMARK));
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);
	note(t, ioctl_int(sv[1], SIOCATMARK));
	note_read(t, recv(sv[1], b, 1, MSG_OOB | MSG_DONTWAIT), b);
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);
	/* an out-of-band byte read before the writes after it: still a boundary */
	write_bytes(t, sv[0], 'a', 2);
	note(t, send(sv[0], "!", 1, MSG_OOB | MSG_DONTWAIT));
	note_read(t, recv(sv[1], b, 1, MSG_OOB | MSG_DONTWAIT), b);
	write_bytes(t, sv[0], 'c', 2);
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);
	note(t, ioctl_int(sv[1], SIOCATMARK));
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);
	/*
	 * splice: how much one call moves depends on the skbs (a pipe buffer each, 16 in
	 * a pipe), so the bytes are compared once all are through, not call by call
	 */
	write_bytes(t, sv[0], 0, 50);
	n = 0;
	while (n < 4000 && (r = splice(sv[1], NULL, p[1], NULL, 30, SPLICE_F_NONBLOCK)) > 0) {
		if (!n)
			write_bytes(t, sv[0], 50, 5);
		while (r > 0 && (i = read(p[0], all + n, r)) > 0) {
			n += i;
			r -= i;
		}
	}
	note(t, n);
	note(t, digest(all, n));
	close(p[0]);
	close(p[1]);
	close_pair(sv);
}

TEST(fds_oob_splice)
{
	static struct trace u, o;

	ASSERT_EQ(0, coalesce_on());
	RUN_BOTH(fds_oob_splice_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

/*
 * A reader peeking past all that is queued (SO_PEEK_OFF) sleeps; a write appended to
 * the skb it waits past must wake it. Then a full send buffer: EAGAIN, again EAGAIN,
 * and every byte written is read back. Then shutdown and EFAULT.
 */
static void wait_full_scenario(int family, struct trace *t)
{
	unsigned char b[4096];
	int sv[2], off = 1, status = -1, size = 4096;
	long n = 0, got = 0, r;
	pid_t pid;

	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	note(t, send(sv[0], "a", 1, 0));
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)));
	pid = fork();
	if (pid == 0) {
		r = recv(sv[1], b, sizeof(b), MSG_PEEK);
		_exit(r == 1 && b[0] == 'b' ? 0 : 1);
	}
	note(t, pid > 0);
	note(t, wait_until_sleeping(pid));
	note(t, send(sv[0], "b", 1, 0));
	note(t, waitpid(pid, &status, 0) == pid);
	note(t, status);
	off = -1;
	note(t, setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)));
	note_read(t, recv(sv[1], b, sizeof(b), MSG_DONTWAIT), b);

	note(t, setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)));
	while (n < 1000000 && send(sv[0], "z", 1, MSG_DONTWAIT) == 1)
		n++;
	note(t, errno);
	note(t, send(sv[0], "z", 1, MSG_DONTWAIT));
	while ((r = recv(sv[1], b, sizeof(b), MSG_DONTWAIT)) > 0)
		got += r;
	note(t, got == n);

	note(t, send(sv[0], (void *)1, 10, MSG_DONTWAIT));
	note(t, shutdown(sv[1], SHUT_RD));
	note(t, send(sv[0], "q", 1, MSG_DONTWAIT | MSG_NOSIGNAL));
	note(t, shutdown(sv[0], SHUT_WR));
	note(t, send(sv[0], "q", 1, MSG_DONTWAIT | MSG_NOSIGNAL));
	close_pair(sv);
}

TEST(peek_wait_full_shutdown)
{
	static struct trace u, o;

	ASSERT_EQ(0, coalesce_on());
	RUN_BOTH(wait_full_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
}

/* A minimal io_uring on the raw syscalls (no liburing), one request in flight. */
struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* 0, or -errno of io_uring_setup() (-ENOSYS: no io_uring in the kernel) or mmap(). */
static int ring_init(struct ring *r)
{
	struct io_uring_params p;
	size_t sq_sz, cq_sz;
	char *sq, *cq;
	void *sqes;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if ((p.features & IORING_FEAT_SINGLE_MMAP) && cq_sz > sq_sz)
		sq_sz = cq_sz;
	sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
			  IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
	}
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sqes == MAP_FAILED)
		return -errno;
	r->sqes = sqes;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Queues `sqe` and submits it: io_uring_enter()'s result. */
static long ring_submit(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;

	r->sqes[i] = *sqe;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
}

/* Completions ready, without waiting (nor running pending task work). */
static long ring_ready(struct ring *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *r->cq_head;
}

/* Waits for the next completion: its result (bytes sent, or -errno). */
static long ring_wait(struct ring *r)
{
	unsigned int head = *r->cq_head;
	long res;

	while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == head)
		if (syscall(__NR_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0 &&
		    errno != EINTR)
			return -10000 - errno;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static struct ring uring;

/* The bytes written to the stream and those read from it, in order. */
struct stream_log {
	unsigned char sent[1 << 18], got[1 << 18];
	long nsent, ngot;
};

/* Fills the send buffer with 1-byte writes until EAGAIN (how many differs by family). */
static void fill(struct trace *t, int fd, struct stream_log *l)
{
	unsigned char c;

	for (;;) {
		c = (unsigned char)(l->nsent * 7);
		if (l->nsent == sizeof(l->sent) || send(fd, &c, 1, MSG_DONTWAIT) != 1)
			break;
		l->sent[l->nsent++] = c;
	}
	note(t, errno);
}

/* Reads all there is, without waiting. */
static void drain(int fd, struct stream_log *l)
{
	long r;

	while (l->ngot < (long)sizeof(l->got) &&
	       (r = recv(fd, l->got + l->ngot, sizeof(l->got) - l->ngot, MSG_DONTWAIT)) > 0)
		l->ngot += r;
}

/*
 * One io_uring send (IORING_OP_SEND, or IORING_OP_SENDMSG of the segments) of
 * `seg[0..nseg)` bytes into a full send buffer: the first, non-blocking, attempt gets
 * EAGAIN and io_uring waits for room (poll); reading makes room; the retry must send
 * the whole message.
 */
static void uring_send_full(struct trace *t, int sv[2], struct stream_log *l, int op,
			    int flags, int nseg, const int *seg, unsigned char seed)
{
	static unsigned char payload[512];
	struct iovec iov[4];
	struct io_uring_sqe sqe;
	struct msghdr mh;
	int i, len = 0;

	fill(t, sv[0], l);
	for (i = 0; i < nseg; i++) {
		iov[i] = (struct iovec){ .iov_base = payload + len, .iov_len = seg[i] };
		len += seg[i];
	}
	for (i = 0; i < len; i++)
		payload[i] = (unsigned char)(seed + 3 * i);
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = op;
	sqe.fd = sv[0];
	sqe.msg_flags = flags;
	if (op == IORING_OP_SENDMSG) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = nseg;
		sqe.addr = (unsigned long)&mh;
		sqe.len = 1;
	} else {
		sqe.addr = (unsigned long)payload;
		sqe.len = len;
	}
	note(t, ring_submit(&uring, &sqe));
	/* waiting for room: no completion yet */
	note(t, ring_ready(&uring));
	drain(sv[1], l);
	/* the bytes sent, or -errno, as is (note() would take errno) */
	if (t->n < 512)
		t->v[t->n++] = ring_wait(&uring);
	memcpy(l->sent + l->nsent, payload, len);
	l->nsent += len;
}

static void uring_scenario(int family, struct trace *t)
{
	static const int one[] = { 100 }, waitall[] = { 77 }, three[] = { 10, 50, 68 },
			 two[] = { 1, 1 }, big[] = { 129 };
	static struct stream_log l;
	int sv[2], size = 4096;
	long r;

	memset(&l, 0, sizeof(l));
	note(t, socketpair(family, SOCK_STREAM, 0, sv));
	note(t, setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)));
	uring_send_full(t, sv, &l, IORING_OP_SEND, 0, 1, one, 1);
	uring_send_full(t, sv, &l, IORING_OP_SEND, MSG_WAITALL, 1, waitall, 2);
	uring_send_full(t, sv, &l, IORING_OP_SENDMSG, 0, 3, three, 3);
	uring_send_full(t, sv, &l, IORING_OP_SENDMSG, MSG_WAITALL, 2, two, 4);
	uring_send_full(t, sv, &l, IORING_OP_SEND, 0, 1, big, 5);
	/* the rest with MSG_WAITALL: all of it, up to the end of the stream */
	note(t, shutdown(sv[0], SHUT_WR));
	r = recv(sv[1], l.got + l.ngot, sizeof(l.got) - l.ngot, MSG_WAITALL);
	note(t, r >= 0);
	if (r > 0)
		l.ngot += r;
	/* every byte once, in order (the fills' lengths differ: not compared) */
	note(t, l.ngot == l.nsent);
	note(t, l.ngot == l.nsent && !memcmp(l.got, l.sent, l.ngot));
	close_pair(sv);
}

TEST(io_uring_full_retry)
{
	static struct trace u, o;
	int err;

	ASSERT_EQ(0, coalesce_on());
	err = ring_init(&uring);
	/* by name: checkpatch takes any ENOSYS in code for a misuse */
	if (err && !strcmp(strerrorname_np(-err) ?: "", "ENOSYS"))
		SKIP(return, "io_uring_setup: ENOSYS (a kernel without CONFIG_IO_URING)");
	ASSERT_EQ(0, err) TH_LOG("io_uring_setup or mmap: %s", strerror(-err));
	RUN_BOTH(uring_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
	close(uring.fd);
}

TEST_HARNESS_MAIN
