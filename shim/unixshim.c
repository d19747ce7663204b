// SPDX-License-Identifier: GPL-2.0
/*
 * unixshim.so: runs unmodified AF_UNIX programs on rust_afunix's family.
 *
 *	LD_PRELOAD=/path/to/unixshim.so program ...
 *
 * socket() and socketpair() of AF_UNIX create sockets of the module's family (its
 * number from /sys/module/rust_afunix/parameters/family, or $UNIXSHIM_FAMILY); the
 * addresses the program passes in get the module's family, and the addresses and
 * SO_DOMAIN values the kernel returns for those sockets say AF_UNIX again, so the
 * program never sees the difference. Without the module (and without the variable)
 * the shim passes everything through. glibc's own internal sockets (syslog, nscd) do
 * not go through these symbols and stay AF_UNIX.
 *
 * sock_diag: a SOCK_DIAG_BY_FAMILY request for AF_UNIX sent on a NETLINK_SOCK_DIAG
 * socket asks for the module's family instead, and the replies' udiag_family says
 * AF_UNIX again, so `ss -x` lists the module's sockets (and only those).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

static int fam = -1;

static int (*real_socket)(int, int, int);
static int (*real_socketpair)(int, int, int, int[2]);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *,
			      socklen_t);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static int (*real_sendmmsg)(int, struct mmsghdr *, unsigned int, int);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_recv)(int, void *, size_t, int);

#define LOAD(name) (real_##name = dlsym(RTLD_NEXT, #name))

__attribute__((constructor)) static void unixshim_init(void)
{
	const char *env = getenv("UNIXSHIM_FAMILY");
	FILE *f;

	LOAD(socket);
	LOAD(socketpair);
	LOAD(bind);
	LOAD(connect);
	LOAD(sendto);
	LOAD(sendmsg);
	LOAD(sendmmsg);
	LOAD(getsockname);
	LOAD(getpeername);
	LOAD(accept);
	LOAD(accept4);
	LOAD(recvfrom);
	LOAD(recvmsg);
	LOAD(recvmmsg);
	LOAD(getsockopt);
	LOAD(send);
	LOAD(recv);
	if (env && *env) {
		fam = atoi(env);
		return;
	}
	f = fopen("/sys/module/rust_afunix/parameters/family", "r");
	if (f) {
		if (fscanf(f, "%d", &fam) != 1)
			fam = -1;
		fclose(f);
	}
}

/* A copy of an AF_UNIX address with the module's family, in *tmp. */
static const struct sockaddr *in_addr(const struct sockaddr *a, socklen_t len,
				      struct sockaddr_storage *tmp)
{
	if (fam < 0 || !a || len < sizeof(sa_family_t) || len > sizeof(*tmp) ||
	    a->sa_family != AF_UNIX)
		return a;
	memcpy(tmp, a, len);
	tmp->ss_family = fam;
	return (const struct sockaddr *)tmp;
}

/* Gives a returned address of the module's family back as AF_UNIX. */
static void out_addr(void *a, socklen_t avail)
{
	sa_family_t f;

	if (fam < 0 || !a || avail < sizeof(f))
		return;
	memcpy(&f, a, sizeof(f));
	if (f == fam) {
		f = AF_UNIX;
		memcpy(a, &f, sizeof(f));
	}
}

/* Whether fd is a NETLINK_SOCK_DIAG socket. */
static int is_diag_socket(int fd)
{
	socklen_t l = sizeof(int);
	int v;

	if (real_getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) || v != AF_NETLINK)
		return 0;
	l = sizeof(int);
	return !real_getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l) && v == NETLINK_SOCK_DIAG;
}

/*
 * The SOCK_DIAG_BY_FAMILY messages in buf (len bytes) whose family byte (the first of
 * the payload: sdiag_family of a request, udiag_family of a reply) is `from`: counted,
 * and set to `to` unless `to` is negative.
 */
static int diag_family(void *buf, size_t len, int from, int to)
{
	struct nlmsghdr *h = buf;
	int n = len > 65536 ? 65536 : (int)len, found = 0;

	for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		unsigned char *f = NLMSG_DATA(h);

		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(1) ||
		    *f != from)
			continue;
		found++;
		if (to >= 0)
			*f = to;
	}
	return found;
}

/* A request for AF_UNIX about to go out on fd: a copy asking for the module's family. */
static const void *diag_request(int fd, const void *buf, size_t len, char *tmp, size_t cap)
{
	if (fam <= 0 || !buf || len < NLMSG_LENGTH(1) || len > cap ||
	    !diag_family((void *)buf, len, AF_UNIX, -1) || !is_diag_socket(fd))
		return buf;
	memcpy(tmp, buf, len);
	diag_family(tmp, len, AF_UNIX, fam);
	return tmp;
}

/* Replies received on fd: the module's family shows as AF_UNIX. */
static void diag_reply(int fd, void *buf, size_t len)
{
	if (fam > 0 && buf && diag_family(buf, len, fam, -1) && is_diag_socket(fd))
		diag_family(buf, len, fam, AF_UNIX);
}

int socket(int domain, int type, int protocol)
{
	if (domain == AF_UNIX && fam > 0)
		domain = fam;
	return real_socket(domain, type, protocol);
}

int socketpair(int domain, int type, int protocol, int sv[2])
{
	if (domain == AF_UNIX && fam > 0)
		domain = fam;
	return real_socketpair(domain, type, protocol, sv);
}

int bind(int fd, const struct sockaddr *a, socklen_t len)
{
	struct sockaddr_storage tmp;

	return real_bind(fd, in_addr(a, len, &tmp), len);
}

int connect(int fd, const struct sockaddr *a, socklen_t len)
{
	struct sockaddr_storage tmp;

	return real_connect(fd, in_addr(a, len, &tmp), len);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a,
	       socklen_t len)
{
	struct sockaddr_storage tmp;
	char req[4096];

	return real_sendto(fd, diag_request(fd, buf, n, req, sizeof(req)), n, flags,
			   in_addr(a, len, &tmp), len);
}

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	char req[4096];

	return real_send(fd, diag_request(fd, buf, n, req, sizeof(req)), n, flags);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct sockaddr_storage tmp;
	struct iovec iov[8];
	struct msghdr m;
	char req[4096];

	if (!msg)
		return real_sendmsg(fd, msg, flags);
	m = *msg;
	if (msg->msg_name)
		m.msg_name = (void *)in_addr(msg->msg_name, msg->msg_namelen, &tmp);
	/* A sock_diag request is in the first iovec (iproute2, the kselftests). */
	if (msg->msg_iovlen >= 1 && msg->msg_iovlen <= 8) {
		const void *b = diag_request(fd, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len,
					     req, sizeof(req));

		if (b != msg->msg_iov[0].iov_base) {
			memcpy(iov, msg->msg_iov, msg->msg_iovlen * sizeof(*iov));
			iov[0].iov_base = (void *)b;
			m.msg_iov = iov;
		}
	}
	return real_sendmsg(fd, &m, flags);
}

int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	unsigned int i;
	int r;

	/* Rewrite in place and restore: the caller's names stay as they were. */
	for (i = 0; i < n; i++)
		if (v[i].msg_hdr.msg_name && v[i].msg_hdr.msg_namelen >= sizeof(sa_family_t) &&
		    ((struct sockaddr *)v[i].msg_hdr.msg_name)->sa_family == AF_UNIX && fam > 0)
			((struct sockaddr *)v[i].msg_hdr.msg_name)->sa_family = fam;
	r = real_sendmmsg(fd, v, n, flags);
	for (i = 0; i < n; i++)
		out_addr(v[i].msg_hdr.msg_name, v[i].msg_hdr.msg_namelen);
	return r;
}

int getsockname(int fd, struct sockaddr *a, socklen_t *len)
{
	socklen_t avail = len ? *len : 0;
	int r = real_getsockname(fd, a, len);

	if (!r)
		out_addr(a, avail);
	return r;
}

int getpeername(int fd, struct sockaddr *a, socklen_t *len)
{
	socklen_t avail = len ? *len : 0;
	int r = real_getpeername(fd, a, len);

	if (!r)
		out_addr(a, avail);
	return r;
}

int accept(int fd, struct sockaddr *a, socklen_t *len)
{
	socklen_t avail = len ? *len : 0;
	int r = real_accept(fd, a, len);

	if (r >= 0 && a)
		out_addr(a, avail);
	return r;
}

int accept4(int fd, struct sockaddr *a, socklen_t *len, int flags)
{
	socklen_t avail = len ? *len : 0;
	int r = real_accept4(fd, a, len, flags);

	if (r >= 0 && a)
		out_addr(a, avail);
	return r;
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *len)
{
	socklen_t avail = len ? *len : 0;
	ssize_t r = real_recvfrom(fd, buf, n, flags, a, len);

	if (r >= 0 && a && len && *len)
		out_addr(a, avail);
	if (r > 0)
		diag_reply(fd, buf, (size_t)r < n ? (size_t)r : n);
	return r;
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	ssize_t r = real_recv(fd, buf, n, flags);

	if (r > 0)
		diag_reply(fd, buf, (size_t)r < n ? (size_t)r : n);
	return r;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	socklen_t avail = msg ? msg->msg_namelen : 0;
	ssize_t r = real_recvmsg(fd, msg, flags);

	if (r >= 0 && msg && msg->msg_name && msg->msg_namelen)
		out_addr(msg->msg_name, avail);
	/* The replies are read into the first iovec (iproute2, the kselftests). */
	if (r > 0 && msg && msg->msg_iovlen >= 1)
		diag_reply(fd, msg->msg_iov[0].iov_base,
			   (size_t)r < msg->msg_iov[0].iov_len ? (size_t)r : msg->msg_iov[0].iov_len);
	return r;
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *t)
{
	int r = real_recvmmsg(fd, v, n, flags, t), i;

	for (i = 0; i < r; i++)
		if (v[i].msg_hdr.msg_name && v[i].msg_hdr.msg_namelen)
			out_addr(v[i].msg_hdr.msg_name, v[i].msg_hdr.msg_namelen);
	return r;
}

int getsockopt(int fd, int level, int opt, void *val, socklen_t *len)
{
	int r = real_getsockopt(fd, level, opt, val, len);

	if (!r && level == SOL_SOCKET && opt == SO_DOMAIN && val && len &&
	    *len >= sizeof(int) && fam > 0 && *(int *)val == fam)
		*(int *)val = AF_UNIX;
	return r;
}
