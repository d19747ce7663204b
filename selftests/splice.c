// SPDX-License-Identifier: GPL-2.0
/*
 * splice, sendfile and vmsplice on both families, differentially: each scenario runs
 * once on AF_UNIX and once on the module's family in the same test, and every return
 * value, errno and byte received must be the same. Stream sockets to a pipe (data,
 * EAGAIN with SPLICE_F_NONBLOCK on an empty socket, 0 after the peer's shutdown), a
 * pipe into each type of socket, sendfile from a tmpfs file into each type, vmsplice
 * into a pipe then into a socket, and an offset on the socket's side (EINVAL from the core).
 * And whether the socket takes the pages or copies them (MSG_SPLICE_PAGES): a stream
 * socket holds the file's and the vmspliced buffer's own pages, so a write to them before
 * the receive shows in the bytes received; the datagram types copy at the send.
 */
#include "common.h"
#include <sys/sendfile.h>
#include <sys/uio.h>

#include "kselftest_harness.h"

/* The trace of one scenario: return values and errnos, then the bytes received. */
struct data_trace {
	long v[64];
	int n;
	char data[16384];
	size_t len;
};

static void dnote(struct data_trace *t, long r)
{
	if (t->n < 64)
		t->v[t->n++] = r < 0 ? -errno : r;
}

/* Receives everything queued (non-blocking) into the trace, message by message. */
static void drain(struct data_trace *t, int fd)
{
	for (;;) {
		ssize_t r = recv(fd, t->data + t->len, sizeof(t->data) - t->len, MSG_DONTWAIT);

		dnote(t, r);
		if (r <= 0 || t->len + r >= sizeof(t->data))
			return;
		t->len += r;
	}
}

static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

static void scenario(int family, struct data_trace *t)
{
	char buf[5000], path[] = "splice.XXXXXX";
	int sv[2], p[2], i, f;
	struct iovec iov;
	loff_t off = 0;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = 'a' + i % 26;

	/* a stream socket into a pipe */
	if (socketpair(family, SOCK_STREAM, 0, sv) || pipe(p))
		return dnote(t, -1000);
	dnote(t, write(sv[0], buf, 1000));
	dnote(t, splice(sv[1], NULL, p[1], NULL, 600, 0));
	dnote(t, splice(sv[1], NULL, p[1], NULL, 600, 0));
	dnote(t, splice(sv[1], NULL, p[1], NULL, 600, SPLICE_F_NONBLOCK));
	dnote(t, splice(sv[1], &off, p[1], NULL, 10, SPLICE_F_NONBLOCK));
	dnote(t, read(p[0], t->data, 1000));
	t->len = t->v[t->n - 1] > 0 ? t->v[t->n - 1] : 0;
	shutdown(sv[0], SHUT_WR);
	dnote(t, splice(sv[1], NULL, p[1], NULL, 600, 0));
	close(sv[0]);
	close(sv[1]);

	/* a pipe into each type, and sendfile and vmsplice */
	f = mkstemp(path);
	if (f < 0)
		return dnote(t, -1001);
	unlink(path);
	dnote(t, write(f, buf, sizeof(buf)));
	for (i = 0; i < 3; i++) {
		if (socketpair(family, types[i], 0, sv))
			return dnote(t, -1002);
		dnote(t, write(p[1], buf, 300));
		dnote(t, splice(p[0], NULL, sv[0], NULL, 300, 0));
		dnote(t, write(p[1], buf, 300));
		dnote(t, splice(p[0], NULL, sv[0], &off, 300, 0));
		dnote(t, read(p[0], buf, 300));
		drain(t, sv[1]);
		off = 100;
		dnote(t, sendfile(sv[0], f, &off, 2000));
		dnote(t, off);
		drain(t, sv[1]);
		iov.iov_base = buf + 7;
		iov.iov_len = 200;
		dnote(t, vmsplice(p[1], &iov, 1, 0));
		dnote(t, splice(p[0], NULL, sv[0], NULL, 200, 0));
		drain(t, sv[1]);
		off = 0;
		close(sv[0]);
		close(sv[1]);
	}
	close(f);
	close(p[0]);
	close(p[1]);
}

TEST(splice_sendfile_vmsplice)
{
	static struct data_trace u, o;
	int fam = afunix_module_family(), i;

	ASSERT_LT(0, fam) TH_LOG("rust_afunix is not loaded");
	scenario(AF_UNIX, &u);
	scenario(fam, &o);
	ASSERT_EQ(u.n, o.n);
	for (i = 0; i < u.n; i++)
		EXPECT_EQ(u.v[i], o.v[i]) TH_LOG("step %d", i);
	ASSERT_EQ(u.len, o.len);
	EXPECT_EQ(0, memcmp(u.data, o.data, u.len));
	/* and what AF_UNIX does, for the record: the stream's 1000 bytes came through */
	EXPECT_EQ(600, u.v[1]);
	EXPECT_EQ(400, u.v[2]);
	EXPECT_EQ(-EAGAIN, u.v[3]);
	EXPECT_EQ(-EINVAL, u.v[4]);	/* the core refuses an offset on a socket */
}

/*
 * Per type: sendfile 4096 bytes of a tmpfs file, overwrite the file, then receive;
 * vmsplice 4096 bytes of a page-aligned buffer into a pipe, splice it into the socket,
 * overwrite the buffer, then receive. Notes the calls and, per receive, 1 if the bytes
 * are the new ones, 0 if the old ones, -1 for anything else.
 */
static void pages_scenario(int family, struct trace *t)
{
	char *page = aligned_alloc(4096, 4096);
	char path[] = "pages.XXXXXX", old[4096], new[4096], got[4096];
	int sv[2], p[2], f, i;
	struct iovec iov = { NULL, 4096 };
	loff_t off;
	ssize_t r;

	if (!page)
		return note(t, -1000);
	iov.iov_base = page;
	memset(old, 'o', sizeof(old));
	memset(new, 'n', sizeof(new));
	f = mkstemp(path);
	if (f < 0 || pipe(p)) {
		free(page);
		return note(t, -1000);
	}
	unlink(path);
	for (i = 0; i < 3; i++) {
		note(t, socketpair(family, types[i], 0, sv));
		note(t, pwrite(f, old, sizeof(old), 0));
		off = 0;
		note(t, sendfile(sv[0], f, &off, sizeof(old)));
		note(t, pwrite(f, new, sizeof(new), 0));
		r = recv(sv[1], got, sizeof(got), MSG_DONTWAIT);
		note(t, r);
		note(t, r != sizeof(got) ? -1 : !memcmp(got, new, r) ? 1 : !memcmp(got, old, r) ? 0 : -1);

		memcpy(page, old, 4096);
		note(t, vmsplice(p[1], &iov, 1, 0));
		note(t, splice(p[0], NULL, sv[0], NULL, 4096, 0));
		memcpy(page, new, 4096);
		r = recv(sv[1], got, sizeof(got), MSG_DONTWAIT);
		note(t, r);
		note(t, r != sizeof(got) ? -1 : !memcmp(got, new, r) ? 1 : !memcmp(got, old, r) ? 0 : -1);
		close_pair(sv);
	}
	close(f);
	close(p[0]);
	close(p[1]);
	free(page);
}

TEST(pages_taken)
{
	static struct trace u, o;

	RUN_BOTH(pages_scenario, &u, &o);
	EXPECT_SAME_TRACE(&u, &o);
	/* AF_UNIX 6.12: the stream socket took the pages (new bytes), the others copied */
	ASSERT_EQ(3 * 10, u.n);
	EXPECT_EQ(1, u.v[5]);
	EXPECT_EQ(1, u.v[9]);
	EXPECT_EQ(0, u.v[10 + 5]);
	EXPECT_EQ(0, u.v[10 + 9]);
	EXPECT_EQ(0, u.v[20 + 5]);
	EXPECT_EQ(0, u.v[20 + 9]);
}

TEST_HARNESS_MAIN
