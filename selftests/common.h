/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the rust_afunix selftests: every test runs once per family variant,
 * `af_unix` (the oracle) and `rust_afunix` (the module), with the same assertions,
 * so both families must behave identically.
 */
#ifndef AFUNIX_SELFTESTS_COMMON_H
#define AFUNIX_SELFTESTS_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The int in a file (a module parameter, a sysctl); -1 if it cannot be read. */
static inline int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Writes `val` to a file (a module parameter, a sysctl): 0, or the errno. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = errno;
	else if ((size_t)n != strlen(val))
		err = EIO;
	close(fd);
	return err;
}

/*
 * Whether the running kernel is `major.minor` or later: the two kernel lines' AF_UNIX
 * differ (docs/kline-7.3.md), and a test expects the answer of the line it runs on.
 */
static inline bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * getsockopt(SOL_SOCKET, SO_PASSCRED / SO_PASSSEC / SO_PASSPIDFD / SO_PASSRIGHTS): since
 * 6.16 the socket core answers them for AF_UNIX, AF_NETLINK and AF_BLUETOOTH only and
 * refuses any other family with EOPNOTSUPP, before a family's own getsockopt could
 * answer. So the module's sockets cannot be asked there (README, limits); setting the
 * options and what they do are the same as AF_UNIX's.
 */
static inline bool pass_opts_unreadable(bool ours)
{
	return ours && kernel_at_least(6, 16);
}

/* The module's family number, from its parameter; -1 if it is not loaded. */
static inline int afunix_module_family(void)
{
	return read_int_file("/sys/module/rust_afunix/parameters/family");
}

/*
 * The family a variant tests: each fixture has the two variants `af_unix` and
 * `rust_afunix` (`.ours = true`). A missing module fails the `rust_afunix` variant
 * rather than silently testing AF_UNIX twice.
 */
static inline int variant_family(bool ours)
{
	return ours ? afunix_module_family() : AF_UNIX;
}

/*
 * Waits (without sleeping a fixed time) until task `pid` blocks in the kernel: its
 * state in /proc/PID/stat becomes 'S'. Used to make sure a blocking call really
 * blocked before the test unblocks it.
 */
static inline int wait_until_sleeping(pid_t pid)
{
	char path[64], buf[512], *p;
	int i, fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 10000000; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -1;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -1;
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return 0;
		sched_yield();
	}
	return -1;
}

/*
 * A test's private directory: made in the cwd from `tmpl` ("name.XXXXXX"), entered;
 * `cwd` gets the directory the test started in, `dir` the new one (both PATH_MAX).
 * Returns 0, or -1 on failure.
 */
static inline int enter_private_dir(char *tmpl, char *cwd, char *dir)
{
	if (!getcwd(cwd, PATH_MAX) || !mkdtemp(tmpl))
		return -1;
	if (snprintf(dir, PATH_MAX, "%s/%s", cwd, tmpl) >= PATH_MAX)
		return -1;
	return chdir(dir);
}

static inline int remove_entry(const char *path, const struct stat *st, int flag,
			       struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Leaves and removes, with its contents, a directory of enter_private_dir(). */
static inline void leave_private_dir(const char *cwd, const char *dir)
{
	if (dir[0] && chdir(cwd) == 0)
		nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define SA(p) ((struct sockaddr *)(p))
#define SUN_OFF ((int)offsetof(struct sockaddr_un, sun_path))

/* An abstract address: sun_path is a NUL and then `n` bytes of `name` (NULs allowed). */
static inline int abstract_addr(struct sockaddr_un *sun, int family, const char *name, int n)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	memcpy(sun->sun_path + 1, name, n);
	return SUN_OFF + 1 + n;
}

/* An abstract address whose name (no NUL in it) is printed from `fmt`. */
static inline int abstract_addrf(struct sockaddr_un *sun, int family, const char *fmt, ...)
{
	char name[sizeof(sun->sun_path) - 1];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n >= (int)sizeof(name))
		n = sizeof(name) - 1;
	return abstract_addr(sun, family, name, n);
}

/* A pathname address, its length counting the terminating NUL. */
static inline int path_addr(struct sockaddr_un *sun, int family, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", path);
	return SUN_OFF + strlen(sun->sun_path) + 1;
}

/* A socket of `type` bound to `sun`, or -1 with errno set by the call that failed. */
static inline int bound(int family, int type, const struct sockaddr_un *sun, socklen_t len)
{
	int fd = socket(family, type, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (const struct sockaddr *)sun, len)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The events of `events` that poll() reports on `fd` now, -1 on error. */
static inline short revents(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

static inline int set_passcred(int fd, int on)
{
	return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
}

/* Returns the errno of a failing call, 0 for success. */
#define ERRNO_OF(call) ((call) < 0 ? errno : 0)

/* Sends the one byte at `byte` with `pass` in SCM_RIGHTS: sendmsg's result. */
static inline long send_one_fd(int sock, const char *byte, int pass, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	memset(&u, 0, sizeof(u));
	c->cmsg_len = CMSG_LEN(sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(c), &pass, sizeof(int));
	return sendmsg(sock, &mh, flags);
}

/* Closes both ends of a pair that are open, and marks them closed. */
/* An ioctl that answers an int (SIOCINQ, SIOCOUTQ, SIOCATMARK): the int, or -errno. */
static inline long ioctl_int(int fd, unsigned long cmd)
{
	int v = -1;

	return ioctl(fd, cmd, &v) < 0 ? -errno : v;
}

/* The sum of `n` bytes, weighted by position (order matters). */
static inline long digest(const unsigned char *b, long n)
{
	long s = 0, i;

	for (i = 0; i < n; i++)
		s += (i + 1) * b[i];
	return s;
}

static inline void close_pair(int sv[2])
{
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	sv[0] = sv[1] = -1;
}

/*
 * The results of a differential scenario (oob.c, regress.c): each call's return value,
 * or -errno, in order; run once per family and compared entry by entry.
 */
struct trace {
	long v[512];
	int n;
};

static inline void note(struct trace *t, long r)
{
	if (t->n < 512)
		t->v[t->n++] = r < 0 ? -errno : r;
}

/*
 * In a kselftest_harness test: checks that the module is loaded, then runs the
 * differential `scenario(family, trace)` once on AF_UNIX into `u` and once on the
 * module's family into `o` (both `struct trace *`).
 */
#define RUN_BOTH(scenario, u, o)						\
	do {									\
		int __fam = afunix_module_family();				\
										\
		ASSERT_LT(0, __fam) TH_LOG("rust_afunix is not loaded");	\
		scenario(AF_UNIX, u);						\
		scenario(__fam, o);						\
	} while (0)

/*
 * In a kselftest_harness test: the traces of AF_UNIX (`u`) and of the module (`o`)
 * must be the same, step by step; each differing step is logged (every step with
 * TRACE_ALL set in the environment).
 */
#define EXPECT_SAME_TRACE(u, o)							\
	do {									\
		int __i;							\
										\
		for (__i = 0; __i < (u)->n || __i < (o)->n; __i++)		\
			if ((u)->v[__i] != (o)->v[__i] || getenv("TRACE_ALL"))	\
				TH_LOG("step %d: AF_UNIX %ld, ours %ld", __i,	\
				       (u)->v[__i], (o)->v[__i]);		\
		ASSERT_EQ((u)->n, (o)->n);					\
		for (__i = 0; __i < (u)->n; __i++)				\
			EXPECT_EQ((u)->v[__i], (o)->v[__i]) TH_LOG("step %d", __i); \
	} while (0)

/*
 * A step where the module differs from AF_UNIX on purpose, a known limit: checks that
 * the module's trace `o` has `ours` at `step`, then gives it AF_UNIX's value, so that
 * EXPECT_SAME_TRACE compares the rest.
 */
#define KNOWN_DIFFERENCE(u, o, step, ours)					\
	do {									\
		EXPECT_EQ((long)(ours), (o)->v[step]) TH_LOG("step %d", step);	\
		(o)->v[step] = (u)->v[step];					\
	} while (0)

/* As KNOWN_DIFFERENCE, for a step whose value on the module means nothing. */
#define UNDEFINED_STEP(u, o, step) ((o)->v[step] = (u)->v[step])

/* The protocol names of a family in /proc/net/protocols ("UNIX", "UNIX-STREAM"). */
static inline void proto_names(bool ours, const char **dgram, const char **stream)
{
	*dgram = ours ? "RUST_AFUNIX " : "UNIX ";
	*stream = ours ? "RUST_AFUNIX-STREAM " : "UNIX-STREAM ";
}

/* Sockets of the protocol whose line starts with `name`, in this netns; -1 if none. */
static inline int count_sockets(const char *name)
{
	char line[512];
	int n = -1, size;
	FILE *f = fopen("/proc/net/protocols", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)) &&
		    sscanf(line + strlen(name), "%d %d", &size, &n) == 2)
			break;
	fclose(f);
	return n;
}

/* The sockets of the family in this netns, now. */
static inline int sockets_left(bool ours)
{
	const char *d, *s;

	proto_names(ours, &d, &s);
	return count_sockets(d) + count_sockets(s);
}

/*
 * Waits (at most 20 s) until `want` sockets of the family are left in this netns;
 * returns the difference left.
 *
 * 7.3's AF_UNIX collector can miss a trigger: a release during a run queues no other
 * (unix_schedule_gc() skips while gc_in_progress), so a cycle the run did not see
 * waits for the next release of any AF_UNIX socket. Each second without the count,
 * the wait releases one AF_UNIX socket. The module queues a run on every release
 * (gc.rs), so its wait is left alone.
 */
static inline int wait_sockets(bool ours, int want)
{
	int i, n = 0;

	for (i = 0; i < 2000; i++) {
		n = sockets_left(ours) - want;
		if (n == 0)
			break;
		if (!ours && i % 100 == 99)
			close(socket(AF_UNIX, SOCK_DGRAM, 0));
		usleep(10000);
	}
	return n;
}

static inline int wait_no_sockets(bool ours)
{
	return wait_sockets(ours, 0);
}

#endif
