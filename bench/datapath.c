// SPDX-License-Identifier: GPL-2.0
/*
 * Data-path benchmarks, one run per call, one JSON object on stdout:
 *
 *	datapath herd FAMILY K M	seed (c): K tasks poll(POLLIN) on socket A while
 *					a writer streams M 64-byte messages A->B and a
 *					reader drains B; elapsed time and the pollers'
 *					context switches
 *	datapath pingpong FAMILY SIZE N CPUS
 *					stream socketpair round trips of SIZE bytes;
 *					CPUS "same" pins both ends to CPU 0, "cross"
 *					to CPUs 0 and 1
 *	datapath bandwidth FAMILY MB	stream socketpair, 64 KiB writes, MB MiB in all
 *	datapath sendfile FAMILY MB	stream socketpair, sendfile() of an MB MiB tmpfs
 *					file (in the cwd) into one end, 64 KiB reads
 *					of the other
 *	datapath messaging FAMILY G L	hackbench-style: G groups of 10 senders and 10
 *					receivers, each sender writes L 100-byte
 *					messages to each receiver of its group
 *	datapath smallwrites FAMILY SIZE N	a writer sends N writes of SIZE bytes on
 *					a stream socketpair, a reader drains them in
 *					64 KiB reads
 *	datapath fdpass FAMILY NFDS N	a writer sends N 1-byte messages of NFDS fds
 *					each (SCM_RIGHTS) over a stream socketpair, a
 *					reader receives and closes them
 *	datapath gc FAMILY HELD R	HELD sockets in flight, held from outside
 *					(queued on a socket the program holds); then R
 *					times: a pair whose one end is queued on itself
 *					is closed, and the time until the collector has
 *					freed it is taken (median, from the family's
 *					count in /proc/net/protocols)
 *
 * FAMILY is "unix" (AF_UNIX), "ours" (the module's family) or "ours-coalesce" (the
 * module's family with net.rust_afunix.stream_coalesce=1). Each run starts in a new
 * network namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static double now(void)
{
	return now_ns() / 1e9;
}

static void full_write(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0)
			die("write");
		buf += n;
		len -= n;
	}
}

static void full_read(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			die("read");
		buf += n;
		len -= n;
	}
}

/* Reads `total` bytes from a stream in reads of up to `len` bytes into `buf`. */
static void drain_bytes(int fd, char *buf, size_t len, long total)
{
	while (total > 0) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			die("read");
		total -= n;
	}
}

static long ctxt_switches(pid_t pid)
{
	char path[64], line[256];
	long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Blocks until task `pid` sleeps ('S' in /proc/PID/stat). */
static void wait_sleeping(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (;;) {
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f))
			die("stat");
		fclose(f);
		p = strrchr(buf, ')');
		if (p && p[2] == 'S')
			return;
		sched_yield();
	}
}

static int herd(int family, int k, int m, const char *fam)
{
	pid_t *pollers = calloc(k, sizeof(pid_t)), writer;
	long before = 0, after = 0;
	char buf[64] = { 0 };
	double t0, t1;
	int sv[2], i;

	if (!pollers || socketpair(family, SOCK_STREAM, 0, sv))
		die("socketpair");
	for (i = 0; i < k; i++) {
		pollers[i] = fork();
		if (pollers[i] < 0)
			die("fork");
		if (pollers[i] == 0) {
			struct pollfd pfd = { .fd = sv[0], .events = POLLIN };

			for (;;)
				poll(&pfd, 1, -1);
		}
	}
	for (i = 0; i < k; i++) {
		wait_sleeping(pollers[i]);
		before += ctxt_switches(pollers[i]);
	}
	t0 = now();
	writer = fork();
	if (writer < 0)
		die("fork");
	if (writer == 0) {
		for (i = 0; i < m; i++)
			full_write(sv[0], buf, sizeof(buf));
		_exit(0);
	}
	for (i = 0; i < m; i++)
		full_read(sv[1], buf, sizeof(buf));
	waitpid(writer, NULL, 0);
	t1 = now();
	for (i = 0; i < k; i++)
		after += ctxt_switches(pollers[i]);
	for (i = 0; i < k; i++)
		kill(pollers[i], SIGKILL);
	for (i = 0; i < k; i++)
		waitpid(pollers[i], NULL, 0);
	printf("{\"bench\": \"herd\", \"family\": \"%s\", \"k\": %d, \"m\": %d, "
	       "\"elapsed_s\": %.4f, \"poller_switches\": %ld}\n",
	       fam, k, m, t1 - t0, after - before);
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static int pingpong(int family, int size, int n, const char *fam, const char *cpus)
{
	char *buf = calloc(1, size);
	int sv[2], i;
	double t0, t1;
	pid_t pid;

	if (!buf || socketpair(family, SOCK_STREAM, 0, sv))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		pin(strcmp(cpus, "cross") ? 0 : 1);
		for (i = 0; i < n; i++) {
			full_read(sv[1], buf, size);
			full_write(sv[1], buf, size);
		}
		_exit(0);
	}
	pin(0);
	bench_mark();
	t0 = now();
	for (i = 0; i < n; i++) {
		full_write(sv[0], buf, size);
		full_read(sv[0], buf, size);
	}
	t1 = now();
	bench_mark();
	waitpid(pid, NULL, 0);
	printf("{\"bench\": \"pingpong\", \"family\": \"%s\", \"size\": %d, \"n\": %d, "
	       "\"cpus\": \"%s\", \"elapsed_s\": %.4f, \"rtt_us\": %.2f}\n",
	       fam, size, n, cpus, t1 - t0, (t1 - t0) / n * 1e6);
	return 0;
}

static int bandwidth(int family, int mb, const char *fam)
{
	static char buf[65536];
	long total = (long)mb << 20, done = 0;
	double t0, t1;
	int sv[2];
	pid_t pid;

	if (socketpair(family, SOCK_STREAM, 0, sv))
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (done = 0; done < total; done += sizeof(buf))
			full_write(sv[1], buf, sizeof(buf));
		_exit(0);
	}
	t0 = now();
	drain_bytes(sv[0], buf, sizeof(buf), total);
	t1 = now();
	waitpid(pid, NULL, 0);
	printf("{\"bench\": \"bandwidth\", \"family\": \"%s\", \"mb\": %d, "
	       "\"elapsed_s\": %.4f, \"mb_per_s\": %.1f}\n",
	       fam, mb, t1 - t0, mb / (t1 - t0));
	return 0;
}

/*
 * A writer sends N writes of SIZE bytes on a stream socketpair; the reader drains them
 * in 64 KiB reads. With net.rust_afunix.stream_coalesce=1 the module appends small
 * writes to the tail skb of the queue.
 */
static int smallwrites(int family, int size, long n, const char *fam)
{
	static char buf[65536];
	double t0, t1;
	int sv[2];
	pid_t pid;
	long i;

	if (size < 1 || size > (int)sizeof(buf) || n < 1)
		die("smallwrites: size or count");
	if (socketpair(family, SOCK_STREAM, 0, sv))
		die("socketpair");
	bench_mark();
	t0 = now();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < n; i++)
			full_write(sv[1], buf, size);
		_exit(0);
	}
	drain_bytes(sv[0], buf, sizeof(buf), (long)size * n);
	t1 = now();
	bench_mark();
	waitpid(pid, NULL, 0);
	printf("{\"bench\": \"smallwrites\", \"family\": \"%s\", \"size\": %d, \"writes\": %ld, "
	       "\"elapsed_s\": %.4f, \"writes_per_s\": %.0f}\n",
	       fam, size, n, t1 - t0, n / (t1 - t0));
	return 0;
}

static int sendfile_bench(int family, int mb, const char *fam)
{
	static char buf[65536];
	long total = (long)mb << 20, done = 0;
	char path[] = "sendfile.XXXXXX";
	double t0, t1;
	int sv[2], f, status;
	pid_t pid;

	f = mkstemp(path);
	if (f < 0)
		die("mkstemp");
	unlink(path);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)i;
	for (done = 0; done < total; done += sizeof(buf))
		full_write(f, buf, sizeof(buf));
	if (socketpair(family, SOCK_STREAM, 0, sv))
		die("socketpair");
	t0 = now();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		off_t off = 0;

		while (off < total)
			if (sendfile(sv[1], f, &off, total - off) <= 0)
				_exit(1);
		_exit(0);
	}
	bench_mark();
	drain_bytes(sv[0], buf, sizeof(buf), total);
	bench_mark();
	t1 = now();
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("sendfile");
	close(f);
	printf("{\"bench\": \"sendfile\", \"family\": \"%s\", \"mb\": %d, "
	       "\"elapsed_s\": %.4f, \"mb_per_s\": %.1f}\n",
	       fam, mb, t1 - t0, mb / (t1 - t0));
	return 0;
}

#define GROUP 10

static int messaging(int family, int groups, int loops, const char *fam)
{
	int (*fds)[GROUP][2] = calloc(groups, sizeof(*fds));
	pid_t *pids = calloc(groups * 2 * GROUP, sizeof(pid_t));
	char buf[100] = { 0 };
	int g, r, s, l, np = 0;
	double t0, t1;

	if (!fds || !pids)
		die("calloc");
	for (g = 0; g < groups; g++)
		for (r = 0; r < GROUP; r++)
			if (socketpair(family, SOCK_STREAM, 0, fds[g][r]))
				die("socketpair");
	t0 = now();
	for (g = 0; g < groups; g++) {
		for (r = 0; r < GROUP; r++) {
			pids[np] = fork();
			if (pids[np] < 0)
				die("fork");
			if (pids[np++] == 0) {
				for (l = 0; l < loops * GROUP; l++)
					full_read(fds[g][r][0], buf, sizeof(buf));
				_exit(0);
			}
		}
		for (s = 0; s < GROUP; s++) {
			pids[np] = fork();
			if (pids[np] < 0)
				die("fork");
			if (pids[np++] == 0) {
				for (l = 0; l < loops; l++)
					for (r = 0; r < GROUP; r++)
						full_write(fds[g][r][1], buf, sizeof(buf));
				_exit(0);
			}
		}
	}
	while (np)
		waitpid(pids[--np], NULL, 0);
	t1 = now();
	printf("{\"bench\": \"messaging\", \"family\": \"%s\", \"groups\": %d, \"loops\": %d, "
	       "\"elapsed_s\": %.4f}\n", fam, groups, loops, t1 - t0);
	return 0;
}

/* Sends one byte and `n` fds; exits on error. */
static void send_fds(int sock, const int *fds, int n)
{
	union {
		char buf[CMSG_SPACE(253 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(n * sizeof(int)),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	if (sendmsg(sock, &mh, 0) != 1)
		die("sendmsg");
}

/* Receives one byte and its fds, and closes them; returns how many came. */
static int recv_close_fds(int sock)
{
	union {
		char buf[CMSG_SPACE(253 * sizeof(int))];
		struct cmsghdr align;
	} u;
	char b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	int n = 0, i, fd;

	if (recvmsg(sock, &mh, 0) != 1)
		die("recvmsg");
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		for (i = 0; i < (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int)); i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			close(fd);
			n++;
		}
	return n;
}

static int fdpass(int family, int nfds, int n, const char *fam)
{
	int sv[2], fds[253], i, got = 0;
	double t0, t1;
	pid_t pid;

	if (nfds < 1 || nfds > 253)
		die("nfds");
	for (i = 0; i < nfds; i++)
		fds[i] = STDERR_FILENO;
	if (socketpair(family, SOCK_STREAM, 0, sv))
		die("socketpair");
	bench_mark();
	t0 = now();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < n; i++)
			send_fds(sv[1], fds, nfds);
		_exit(0);
	}
	for (i = 0; i < n; i++)
		got += recv_close_fds(sv[0]);
	t1 = now();
	bench_mark();
	waitpid(pid, NULL, 0);
	if (got != n * nfds)
		die("fds lost");
	printf("{\"bench\": \"fdpass\", \"family\": \"%s\", \"nfds\": %d, \"msgs\": %d, "
	       "\"elapsed_s\": %.4f, \"msgs_per_s\": %.0f, \"fds_per_s\": %.0f}\n",
	       fam, nfds, n, t1 - t0, n / (t1 - t0), n * nfds / (t1 - t0));
	return 0;
}

/* The family's sockets in this netns, both protocols, from /proc/net/protocols. */
static int count_sockets(int family)
{
	const char *d = family == AF_UNIX ? "UNIX " : "RUST_AFUNIX ";
	const char *s = family == AF_UNIX ? "UNIX-STREAM " : "RUST_AFUNIX-STREAM ";
	FILE *f = fopen("/proc/net/protocols", "r");
	char line[512];
	int total = 0, size, n;

	if (!f)
		die("/proc/net/protocols");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, d, strlen(d)) &&
		    sscanf(line + strlen(d), "%d %d", &size, &n) == 2)
			total += n;
		if (!strncmp(line, s, strlen(s)) &&
		    sscanf(line + strlen(s), "%d %d", &size, &n) == 2)
			total += n;
	}
	fclose(f);
	return total;
}

static int gc(int family, int held, int reps, const char *fam)
{
	struct rlimit rl = { .rlim_cur = held + 1024, .rlim_max = held + 1024 };
	long long *lat = calloc(reps, sizeof(*lat));
	int holder[2], pair[2], *socks = calloc(held, sizeof(int));
	int i, k, base;

	if (!lat || !socks)
		die("calloc");
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");
	if (socketpair(family, SOCK_STREAM, 0, holder))
		die("socketpair");
	for (i = 0; i < held; i++) {
		socks[i] = socket(family, SOCK_DGRAM, 0);
		if (socks[i] < 0)
			die("socket");
	}
	/* 253 per message, queued on holder[1]; then closed here: only in flight */
	for (i = 0; i < held; i += 253) {
		k = held - i < 253 ? held - i : 253;
		send_fds(holder[0], socks + i, k);
		for (k--; k >= 0; k--)
			close(socks[i + k]);
	}
	base = count_sockets(family);
	bench_mark();
	for (i = 0; i < reps; i++) {
		long long t0;

		if (socketpair(family, SOCK_STREAM, 0, pair))
			die("socketpair");
		send_fds(pair[1], &pair[0], 1);
		if (count_sockets(family) != base + 2)
			die("count");
		close(pair[0]);
		t0 = now_ns();
		close(pair[1]);
		/* polled every 20 us: finer than the difference being measured */
		while (count_sockets(family) != base)
			usleep(20);
		lat[i] = now_ns() - t0;
	}
	bench_mark();
	qsort(lat, reps, sizeof(*lat), cmp_ll);
	printf("{\"bench\": \"gc\", \"family\": \"%s\", \"held\": %d, \"reps\": %d, "
	       "\"p50_us\": %.1f, \"min_us\": %.1f, \"max_us\": %.1f}\n",
	       fam, held, reps, lat[reps / 2] / 1e3, lat[0] / 1e3, lat[reps - 1] / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	int family;

	if (argc < 4) {
		fprintf(stderr, "usage: datapath herd|pingpong|bandwidth|sendfile|smallwrites|messaging|fdpass|gc FAMILY ARGS...\n");
		return 2;
	}
	family = family_of(argv[2]);
	if (unshare(CLONE_NEWNET))
		die("unshare");
	/* "ours-coalesce": the module's family with net.rust_afunix.stream_coalesce=1 */
	if (!strcmp(argv[2], "ours-coalesce")) {
		FILE *f = fopen("/proc/sys/net/rust_afunix/stream_coalesce", "w");

		if (!f || fputs("1\n", f) < 0 || fclose(f))
			die("stream_coalesce");
	}
	if (!strcmp(argv[1], "herd") && argc == 5)
		return herd(family, atoi(argv[3]), atoi(argv[4]), argv[2]);
	if (!strcmp(argv[1], "pingpong") && argc == 6)
		return pingpong(family, atoi(argv[3]), atoi(argv[4]), argv[2], argv[5]);
	if (!strcmp(argv[1], "bandwidth") && argc == 4)
		return bandwidth(family, atoi(argv[3]), argv[2]);
	if (!strcmp(argv[1], "sendfile") && argc == 4)
		return sendfile_bench(family, atoi(argv[3]), argv[2]);
	if (!strcmp(argv[1], "smallwrites") && argc == 5)
		return smallwrites(family, atoi(argv[3]), atol(argv[4]), argv[2]);
	if (!strcmp(argv[1], "fdpass") && argc == 5)
		return fdpass(family, atoi(argv[3]), atoi(argv[4]), argv[2]);
	if (!strcmp(argv[1], "gc") && argc == 5)
		return gc(family, atoi(argv[3]), atoi(argv[4]), argv[2]);
	if (!strcmp(argv[1], "messaging") && argc == 5)
		return messaging(family, atoi(argv[3]), atoi(argv[4]), argv[2]);
	fprintf(stderr, "datapath: bad arguments\n");
	return 2;
}
