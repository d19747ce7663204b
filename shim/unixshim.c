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
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

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

	return real_sendto(fd, buf, n, flags, in_addr(a, len, &tmp), len);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct sockaddr_storage tmp;
	struct msghdr m;

	if (!msg || !msg->msg_name)
		return real_sendmsg(fd, msg, flags);
	m = *msg;
	m.msg_name = (void *)in_addr(msg->msg_name, msg->msg_namelen, &tmp);
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
	return r;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	socklen_t avail = msg ? msg->msg_namelen : 0;
	ssize_t r = real_recvmsg(fd, msg, flags);

	if (r >= 0 && msg && msg->msg_name && msg->msg_namelen)
		out_addr(msg->msg_name, avail);
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
