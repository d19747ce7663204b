// SPDX-License-Identifier: GPL-2.0
/*
 * Seed (b) of the benchmarks, "af_unix: Relax race in unix_autobind()" (2021): P
 * processes, released together, each autobind N sockets (bind() with only the family),
 * each bind timed from user space. Prints one JSON object: p50/p90/p99 and a histogram
 * in 2 µs linear buckets from 0 to 40 µs (the seed's), plus the count above.
 *
 *	autobind FAMILY P N
 *	autobind FAMILY fill LIMIT
 *
 * The second form fills the name space: one process autobinds datagram sockets until
 * bind() fails with ENOSPC or LIMIT sockets are bound (0: no limit; the space has 2^20
 * names), and reports the latency by sixteenths of the run: how autobind slows as the
 * space fills.
 *
 * FAMILY is "unix" (AF_UNIX) or "ours". The run has a network namespace of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* The fill run: one process, up to `limit` sockets (0: until ENOSPC). */
static int fill(int family, const char *name, long limit)
{
	struct sockaddr_un sun = { .sun_family = family };
	long cap = limit ? limit : (1L << 20) + 1, n, i, k;
	long long t0, t1, start, *lat, *part;
	struct rlimit rl;
	int fd, err = 0;

	rl.rlim_cur = rl.rlim_max = cap + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit (fs.nr_open too low?)");
	if (unshare(CLONE_NEWNET))
		die("unshare");
	lat = calloc(cap, sizeof(*lat));
	part = calloc(cap / 16 + 1, sizeof(*part));
	if (!lat || !part)
		die("calloc");
	start = now_ns();
	for (n = 0; n < cap; n++) {
		fd = socket(family, SOCK_DGRAM, 0);
		if (fd < 0)
			die("socket");
		t0 = now_ns();
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sa_family_t))) {
			err = errno;
			break;
		}
		t1 = now_ns();
		lat[n] = t1 - t0;
	}
	if (err && err != ENOSPC) {
		errno = err;
		die("bind");
	}
	printf("{\"bench\": \"autobind-fill\", \"family\": \"%s\", \"limit\": %ld, "
	       "\"bound\": %ld, \"enospc\": %s, \"elapsed_s\": %.3f, \"by_16th\": [",
	       name, limit, n, err == ENOSPC ? "true" : "false", (now_ns() - start) / 1e9);
	/* p50 and p99 of each sixteenth of the binds, in order. */
	for (k = 0; k < 16; k++) {
		long lo = n * k / 16, hi = n * (k + 1) / 16;

		for (i = lo; i < hi; i++)
			part[i - lo] = lat[i];
		qsort(part, hi - lo, sizeof(*part), cmp_ll);
		printf("%s[%lld, %lld]", k ? ", " : "", hi > lo ? part[(hi - lo) / 2] : 0,
		       hi > lo ? part[(hi - lo) * 99 / 100] : 0);
	}
	printf("]}\n");
	return 0;
}

int main(int argc, char **argv)
{
	int family, p, n, i, k, go[2];
	long long *lat, total;
	long hist[21] = { 0 };
	struct rlimit rl;

	if (argc != 4) {
		fprintf(stderr, "usage: autobind unix|ours P N\n       autobind unix|ours fill LIMIT\n");
		return 2;
	}
	family = family_of(argv[1]);
	if (!strcmp(argv[2], "fill"))
		return fill(family, argv[1], atol(argv[3]));
	p = atoi(argv[2]);
	n = atoi(argv[3]);
	if (p < 1 || n < 1)
		return 2;
	rl.rlim_cur = rl.rlim_max = n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit");
	if (unshare(CLONE_NEWNET))
		die("unshare");
	total = (long long)p * n;
	lat = mmap(NULL, total * sizeof(*lat), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lat == MAP_FAILED || pipe(go))
		die("mmap");
	for (k = 0; k < p; k++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			struct sockaddr_un sun = { .sun_family = family };
			long long t0;
			char c;

			close(go[1]);
			/* released together: the parent closes the pipe */
			if (read(go[0], &c, 1) != 0)
				_exit(1);
			for (i = 0; i < n; i++) {
				int fd = socket(family, SOCK_DGRAM, 0);

				if (fd < 0)
					_exit(1);
				t0 = now_ns();
				if (bind(fd, (struct sockaddr *)&sun, sizeof(sa_family_t)))
					_exit(1);
				lat[(long long)k * n + i] = now_ns() - t0;
			}
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);
	for (k = 0; k < p; k++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			die("worker");
	}
	for (i = 0; i < total; i++) {
		long b = lat[i] / 2000;

		hist[b < 20 ? b : 20]++;
	}
	qsort(lat, total, sizeof(*lat), cmp_ll);
	printf("{\"bench\": \"autobind\", \"family\": \"%s\", \"p\": %d, \"n\": %d, "
	       "\"p50_ns\": %lld, \"p90_ns\": %lld, \"p99_ns\": %lld, \"max_ns\": %lld, "
	       "\"hist_2us\": [", argv[1], p, n, lat[total / 2], lat[total * 9 / 10],
	       lat[total * 99 / 100], lat[total - 1]);
	for (i = 0; i < 21; i++)
		printf("%s%ld", i ? ", " : "", hist[i]);
	printf("]}\n");
	return 0;
}
