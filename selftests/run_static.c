// SPDX-License-Identifier: GPL-2.0
/*
 * An AF_UNIX program for tools/afunix-run, built -static (and -m32 -static): it knows
 * nothing of the module. It runs stream, datagram and seqpacket exchanges over
 * abstract and pathname names, a socketpair and fd passing, and prints what it reads
 * back (names, address families, SO_DOMAIN, SO_PROTOCOL, SO_PEERCRED, flags): the
 * `launcher` test compares that output between a plain run (AF_UNIX) and a run under
 * afunix-run (the module's family), which must be equal.
 *
 *	run_static DIR unix|rust_afunix [--ids]
 *
 * DIR holds the pathname sockets; the second argument is the /proc/net file where the
 * sockets it made must be listed (and not in the other one); --ids prints whether the
 * program runs with more privileges than its caller (a setuid copy).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static const char *dir, *expect, *other;
static int nsocks;
static ino_t inodes[64];

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (errno %d: %s)\n", errno, strerror(errno));
	exit(1);
}

#define CHECK(cond, ...)                        \
	do {                                    \
		if (!(cond))                    \
			fail(__VA_ARGS__);      \
	} while (0)

/* Remembers a socket, for the /proc check at the end. */
static int track(int fd)
{
	struct stat st;

	CHECK(fd >= 0, "socket");
	CHECK(!fstat(fd, &st), "fstat");
	if (nsocks < 64)
		inodes[nsocks++] = st.st_ino;
	return fd;
}

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s", name);
	return offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
}

static socklen_t pathname(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", dir, name);
	unlink(a->sun_path);
	return sizeof(*a);
}

/* An address as the program sees it: its family, and the name relative to DIR. */
static void show(const char *what, const struct sockaddr_un *a, socklen_t len)
{
	size_t dl = strlen(dir);

	if (!len) {
		printf("%s: no address\n", what);
		return;
	}
	printf("%s: family %d, ", what, a->sun_family);
	if (len <= offsetof(struct sockaddr_un, sun_path))
		printf("unnamed\n");
	else if (!a->sun_path[0])
		printf("abstract \"%.*s\"\n", (int)(len - 3), a->sun_path + 1);
	else if (!strncmp(a->sun_path, dir, dl) && a->sun_path[dl] == '/')
		printf("path DIR%s\n", a->sun_path + dl);
	else
		printf("path %s\n", a->sun_path);
}

static void names(const char *what, int fd)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	char buf[64];

	CHECK(!getsockname(fd, (struct sockaddr *)&a, &len), "getsockname");
	snprintf(buf, sizeof(buf), "%s name", what);
	show(buf, &a, len);
	len = sizeof(a);
	if (getpeername(fd, (struct sockaddr *)&a, &len) == 0) {
		snprintf(buf, sizeof(buf), "%s peer", what);
		show(buf, &a, len);
	} else {
		printf("%s peer: errno %d\n", what, errno);
	}
}

static void options(const char *what, int fd)
{
	int dom = -1, proto = -1, type = -1;
	socklen_t l = sizeof(int);

	CHECK(!getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l), "SO_DOMAIN");
	l = sizeof(int);
	CHECK(!getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l), "SO_PROTOCOL");
	l = sizeof(int);
	CHECK(!getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l), "SO_TYPE");
	printf("%s: SO_DOMAIN %d, SO_PROTOCOL %d, SO_TYPE %d, cloexec %d, nonblock %d\n", what,
	       dom, proto, type, !!(fcntl(fd, F_GETFD) & FD_CLOEXEC),
	       !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
}

static void exchange(const char *what, int a, int b)
{
	char buf[32] = "";
	ssize_t n;

	CHECK(send(a, what, strlen(what), 0) == (ssize_t)strlen(what), "send");
	n = recv(b, buf, sizeof(buf) - 1, 0);
	CHECK(n >= 0, "recv");
	buf[n] = 0;
	printf("%s: received \"%s\"\n", what, buf);
}

/* A listener of `type` at `addr`, a client connected to it and the accepted socket. */
static void connected(const char *what, int type, struct sockaddr_un *addr, socklen_t len)
{
	struct sockaddr_un peer;
	socklen_t plen = sizeof(peer);
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	int l, c, s;

	l = track(socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
	CHECK(!bind(l, (struct sockaddr *)addr, len), "%s bind", what);
	CHECK(!listen(l, 4), "%s listen", what);
	c = track(socket(AF_UNIX, type, PF_UNIX));
	CHECK(!connect(c, (struct sockaddr *)addr, len), "%s connect", what);
	s = track(accept4(l, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK));
	printf("%s accept: family %d, length %u\n", what, peer.sun_family, plen);
	options(what, l);
	options("accepted", s);
	names("listener", l);
	names("client", c);
	names("accepted", s);
	CHECK(!getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl), "SO_PEERCRED");
	printf("%s peercred: pid is mine %d, uid is mine %d\n", what, cr.pid == getpid(),
	       cr.uid == geteuid());
	exchange(what, c, s);
	exchange(what, s, c);
}

/* Datagrams over a pathname and an abstract name; returns the bound receiver. */
static int datagrams(void)
{
	struct sockaddr_un a, b, from;
	socklen_t la = pathname(&a, "dgram.sock"), lb = pathname(&b, "dgram-client.sock");
	socklen_t fl = sizeof(from);
	char buf[32] = "";
	int r, w, ab, abc;
	ssize_t n;

	r = track(socket(AF_UNIX, SOCK_DGRAM, 0));
	w = track(socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0));
	CHECK(!bind(r, (struct sockaddr *)&a, la), "dgram bind");
	CHECK(!bind(w, (struct sockaddr *)&b, lb), "dgram bind client");
	CHECK(sendto(w, "datagram", 8, 0, (struct sockaddr *)&a, la) == 8, "sendto");
	n = recvfrom(r, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&from, &fl);
	CHECK(n == 8, "recvfrom");
	show("datagram from", &from, fl);
	options("datagram", w);

	/* Abstract, and an unnamed sender. */
	ab = track(socket(AF_UNIX, SOCK_DGRAM, 0));
	abc = track(socket(AF_UNIX, SOCK_DGRAM, 0));
	la = abstract(&a, "afunix-run-dgram");
	CHECK(!bind(ab, (struct sockaddr *)&a, la), "abstract dgram bind");
	CHECK(!connect(abc, (struct sockaddr *)&a, la), "dgram connect");
	CHECK(send(abc, "x", 1, 0) == 1, "dgram send");
	fl = sizeof(from);
	CHECK(recvfrom(ab, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl) == 1, "recvfrom");
	show("unnamed sender", &from, fl);
	names("dgram connected", abc);
	return r;
}

/* Passes the datagram socket `fd` over a socketpair and reads back its name. */
static void pass_fd(int fd)
{
	char c = 'f', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int sv[2], got;

	CHECK(!socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), "socketpair");
	track(sv[0]);
	track(sv[1]);
	options("socketpair", sv[0]);
	names("socketpair", sv[0]);
	CHECK(recv(sv[1], &c, 1, 0) < 0 && errno == EAGAIN, "empty socketpair");
	printf("socketpair: empty read gives EAGAIN\n");
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	CHECK(sendmsg(sv[0], &m, 0) == 1, "sendmsg SCM_RIGHTS");
	memset(cbuf, 0, sizeof(cbuf));
	CHECK(recvmsg(sv[1], &m, 0) == 1, "recvmsg SCM_RIGHTS");
	cm = CMSG_FIRSTHDR(&m);
	CHECK(cm && cm->cmsg_type == SCM_RIGHTS, "no SCM_RIGHTS");
	memcpy(&got, CMSG_DATA(cm), sizeof(int));
	names("passed fd", got);
	close(got);
}

/* i386: glibc's socket() is socketcall(); the direct system calls, too. */
static void direct32(void)
{
#ifdef __i386__
	int sv[2], s;

	s = track(syscall(359, AF_UNIX, SOCK_STREAM, 0));
	options("direct socket", s);
	CHECK(!syscall(360, AF_UNIX, SOCK_DGRAM, 0, sv), "direct socketpair");
	track(sv[0]);
	track(sv[1]);
	names("direct socketpair", sv[0]);
#endif
}

/* Every socket made is listed in /proc/net/EXPECT, by inode, and none in the other. */
static void check_proc(void)
{
	char path[64], line[512];
	int in_expect = 0, in_other = 0;

	for (int pass = 0; pass < 2; pass++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/net/%s", pass ? other : expect);
		f = fopen(path, "r");
		CHECK(f, "%s", path);
		while (fgets(line, sizeof(line), f)) {
			unsigned long ino;

			if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &ino) != 1)
				continue;
			for (int i = 0; i < nsocks; i++)
				if (inodes[i] == ino)
					*(pass ? &in_other : &in_expect) += 1;
		}
		fclose(f);
	}
	if (in_expect != nsocks || in_other)
		fail("of %d sockets, %d are in /proc/net/%s and %d in /proc/net/%s", nsocks,
		     in_expect, expect, in_other, other);
	printf("proc: every socket in the expected /proc/net file\n");
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	socklen_t len;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3 || (strcmp(argv[2], "unix") && strcmp(argv[2], "rust_afunix"))) {
		fprintf(stderr, "usage: %s DIR unix|rust_afunix [--ids]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	expect = argv[2];
	other = strcmp(expect, "unix") ? "unix" : "rust_afunix";
	if (argc > 3 && !strcmp(argv[3], "--ids"))
		printf("elevated: %s\n", geteuid() != getuid() ? "yes" : "no");

	len = abstract(&a, "afunix-run-stream");
	connected("stream", SOCK_STREAM, &a, len);
	len = pathname(&a, "seqpacket.sock");
	connected("seqpacket", SOCK_SEQPACKET, &a, len);
	pass_fd(datagrams());
	direct32();
	/* What AF_UNIX refuses, it still refuses. */
	r = socket(AF_UNIX, SOCK_STREAM, 2);
	printf("protocol 2: %d errno %d\n", r, errno);
	r = socket(AF_UNIX, 42, 0);
	printf("type 42: %d errno %d\n", r, errno);
	check_proc();
	printf("done\n");
	return 0;
}
