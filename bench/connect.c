// SPDX-License-Identifier: GPL-2.0
/*
 * Connect benchmarks of issue 14: pathname lookups against the number of pathname
 * sockets, and a connect storm against one or distinct listeners.
 *
 *	connect FAMILY pathscale N M
 *	connect FAMILY storm P M one|distinct
 *
 * pathscale: binds N pathname datagram sockets (files p%08x of a private directory),
 * then times M datagram connect()s of one client socket to pseudo-random ones of them.
 * A datagram connect resolves the path, finds the socket by inode (AF_UNIX walks a
 * chain of its 256 fixed buckets: about N/256 sockets) and records the peer.
 *
 * storm: P processes, released together, each make M stream connect()s (sockets made
 * before the clock starts, each connect timed) to one abstract listener shared by all
 * ("one": they meet on its lock and queue) or to a listener of their own ("distinct").
 * Nobody accepts: every connect queues an embryo, so net.core.somaxconn of the run's
 * netns is raised to hold them. Prints the latency percentiles and the aggregate rate
 * (connects per second of wall time from the release to the last exit).
 *
 * FAMILY is "unix" (AF_UNIX) or "ours". Each run has a network namespace of its own, in
 * a private directory of the cwd (which must allow socket files: a tmpfs). Prints one
 * JSON object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static void raise_nofile(long n)
{
	struct rlimit rl = { n, n };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit (fs.nr_open too low?)");
}

/* A new netns and a private directory of the cwd to run in. */
static void enter_private(void)
{
	char dir[64];

	if (unshare(CLONE_NEWNET))
		die("unshare");
	snprintf(dir, sizeof(dir), "connect.%d", getpid());
	if (mkdir(dir, 0700) || chdir(dir))
		die("mkdir");
}

static int path_addr(struct sockaddr_un *sun, int family, long i)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	return offsetof(struct sockaddr_un, sun_path) + 1 +
	       snprintf(sun->sun_path, sizeof(sun->sun_path), "p%08lx", i);
}

static int abstract_addr(struct sockaddr_un *sun, int family, int i)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	return offsetof(struct sockaddr_un, sun_path) + 1 +
	       snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "storm-%d", i);
}

/* "p50_ns": ..., "p90_ns": ..., "p99_ns": ..., "mean_ns": ..., "max_ns": ... of `lat`. */
static void print_percentiles(long long *lat, long n)
{
	long long sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp_ll);
	printf("\"p50_ns\": %lld, \"p90_ns\": %lld, \"p99_ns\": %lld, \"mean_ns\": %lld, "
	       "\"max_ns\": %lld", lat[n / 2], lat[n * 9 / 10], lat[n * 99 / 100], sum / n,
	       lat[n - 1]);
}

static int pathscale(int family, const char *name, long n, long m)
{
	struct sockaddr_un sun;
	long long t0, setup, *lat;
	int fd, c, len;
	long i;

	if (n < 1 || m < 1)
		return 2;
	raise_nofile(n + 64);
	enter_private();
	lat = calloc(m, sizeof(*lat));
	if (!lat)
		die("calloc");
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fd = socket(family, SOCK_DGRAM, 0);
		len = path_addr(&sun, family, i);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len))
			die("pathname bind");
	}
	setup = now_ns() - t0;
	c = socket(family, SOCK_DGRAM, 0);
	if (c < 0)
		die("socket");
	bench_mark();
	for (i = 0; i < m; i++) {
		len = path_addr(&sun, family, mix(i) % n);
		t0 = now_ns();
		if (connect(c, (struct sockaddr *)&sun, len))
			die("connect");
		lat[i] = now_ns() - t0;
	}
	bench_mark();
	printf("{\"bench\": \"pathscale\", \"family\": \"%s\", \"n\": %ld, \"m\": %ld, "
	       "\"setup_s\": %.3f, \"chains\": %d, ", name, n, m, setup / 1e9,
	       family == AF_UNIX ? -1 : read_int("/proc/sys/net/rust_afunix/pathname_buckets"));
	print_percentiles(lat, m);
	printf("}\n");
	/* The sockets go with the process; the files stay in the directory (bench removes it). */
	return 0;
}

static void set_somaxconn(long n)
{
	FILE *f = fopen("/proc/sys/net/core/somaxconn", "w");

	if (!f || fprintf(f, "%ld\n", n) < 0 || fclose(f))
		die("net.core.somaxconn");
}

static int storm(int family, const char *name, int p, int m, int distinct)
{
	int nl = distinct ? p : 1, k, i, go[2], ready[2], *fds;
	struct sockaddr_un sun;
	long long t0, elapsed, *lat, total = (long long)p * m;

	if (p < 1 || m < 1 || total > 60000)
		return 2;
	raise_nofile(m + nl + 64);
	enter_private();
	set_somaxconn(total + 16);
	for (k = 0; k < nl; k++) {
		int l = socket(family, SOCK_STREAM, 0), len = abstract_addr(&sun, family, k);

		if (l < 0 || bind(l, (struct sockaddr *)&sun, len) || listen(l, total + 16))
			die("listener");
	}
	lat = mmap(NULL, total * sizeof(*lat), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fds = calloc(m, sizeof(*fds));
	if (lat == MAP_FAILED || !fds || pipe(go) || pipe(ready))
		die("mmap");
	for (k = 0; k < p; k++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			int len = abstract_addr(&sun, family, distinct ? k : 0);
			char c;

			close(go[1]);
			close(ready[0]);
			for (i = 0; i < m; i++) {
				fds[i] = socket(family, SOCK_STREAM, 0);
				if (fds[i] < 0)
					_exit(1);
			}
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			/* Released together: the parent closes the pipe. */
			if (read(go[0], &c, 1) != 0)
				_exit(1);
			/* A profile (scripts/profile) marks the connects of one worker. */
			if (p == 1)
				bench_mark();
			for (i = 0; i < m; i++) {
				long long t = now_ns();

				if (connect(fds[i], (struct sockaddr *)&sun, len))
					_exit(3);
				lat[(long long)k * m + i] = now_ns() - t;
			}
			if (p == 1)
				bench_mark();
			_exit(0);
		}
	}
	close(go[0]);
	close(ready[1]);
	/* Every worker has made its sockets before the clock starts. */
	for (k = 0; k < p; k++) {
		char c;

		if (read(ready[0], &c, 1) != 1)
			die("worker start");
	}
	t0 = now_ns();
	close(go[1]);
	for (k = 0; k < p; k++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			die("worker");
	}
	elapsed = now_ns() - t0;
	printf("{\"bench\": \"storm\", \"family\": \"%s\", \"p\": %d, \"m\": %d, "
	       "\"listeners\": \"%s\", \"elapsed_s\": %.4f, \"connects_per_s\": %.0f, "
	       "\"vcpus\": %ld, ", name, p, m, distinct ? "distinct" : "one", elapsed / 1e9,
	       total / (elapsed / 1e9), sysconf(_SC_NPROCESSORS_ONLN));
	print_percentiles(lat, total);
	printf("}\n");
	return 0;
}

int main(int argc, char **argv)
{
	int family;

	if (argc >= 5 && !strcmp(argv[2], "pathscale")) {
		family = family_of(argv[1]);
		return pathscale(family, argv[1], atol(argv[3]), atol(argv[4]));
	}
	if (argc == 6 && !strcmp(argv[2], "storm")) {
		family = family_of(argv[1]);
		return storm(family, argv[1], atoi(argv[3]), atoi(argv[4]),
			     !strcmp(argv[5], "distinct"));
	}
	fprintf(stderr, "usage: connect unix|ours pathscale N M\n"
		"       connect unix|ours storm P M one|distinct\n");
	return 2;
}
