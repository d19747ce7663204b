// SPDX-License-Identifier: GPL-2.0
/*
 * Seed (a) of the benchmarks, "af_unix: Optimise hash table layout" (2022): bind N_ABS
 * abstract and N_PATH pathname datagram sockets, then bind M more sockets to new
 * abstract names (each bind is a lookup that misses, then an insert) and time each of
 * those binds from user space.
 *
 *	lookup FAMILY N_ABS N_PATH M LABEL [NAMES]
 *
 * NAMES is "seq" (the default: "bench-a-%08x" for the population, "bench-m-%08x" for
 * the timed binds, sequential numbers) or "rand" ("bench-" and 16 hex digits of a
 * pseudo-random 64-bit number). AF_UNIX's checksum hash clusters sequential names in
 * part of its buckets, which favours or hurts it depending on where the timed names
 * fall; random names spread evenly under any hash.
 *
 * FAMILY is "unix" (AF_UNIX) or "ours" (the module's family). It runs in a new netns and
 * in a private directory of the cwd (which must allow socket files: a tmpfs), and prints
 * one JSON object. The measuring phase runs under the command name LABEL (at most 15
 * bytes), so that a tracer can keep it apart from the setup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int rand_names;

/* The i-th abstract name of set `set` ('a': the population, 'm': the timed binds). */
static int abstract_addr(struct sockaddr_un *sun, int family, char set, unsigned int i)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = family;
	if (rand_names)
		n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "bench-%016llx",
			     mix(((unsigned long long)set << 32) | i));
	else
		n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "bench-%c-%08x",
			     set, i);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

int main(int argc, char **argv)
{
	long n_abs, n_path, m, i, k;
	struct sockaddr_un sun;
	long long t0, t1, setup, *lat, sum = 0;
	long hist[40] = { 0 };
	char dir[64];
	struct rlimit rl;
	int family, fd, len, chains;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: lookup unix|ours N_ABS N_PATH M LABEL [seq|rand]\n");
		return 2;
	}
	rand_names = argc == 7 && !strcmp(argv[6], "rand");
	family = family_of(argv[1]);
	n_abs = atol(argv[2]);
	n_path = atol(argv[3]);
	m = atol(argv[4]);
	lat = calloc(m, sizeof(*lat));
	if (!lat)
		die("calloc");
	rl.rlim_cur = rl.rlim_max = n_abs + n_path + 1000;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		/* Not allowed to raise the hard limit: go as far as it allows. */
		if (getrlimit(RLIMIT_NOFILE, &rl))
			die("getrlimit");
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die("setrlimit");
	}
	if (unshare(CLONE_NEWNET))
		die("unshare");
	snprintf(dir, sizeof(dir), "lookup.%d", getpid());
	if (mkdir(dir, 0700) || chdir(dir))
		die("mkdir");

	t0 = now_ns();
	for (i = 0; i < n_abs; i++) {
		fd = socket(family, SOCK_DGRAM, 0);
		len = abstract_addr(&sun, family, 'a', i);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len))
			die("abstract bind");
	}
	for (i = 0; i < n_path; i++) {
		fd = socket(family, SOCK_DGRAM, 0);
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = family;
		len = offsetof(struct sockaddr_un, sun_path) + 1 +
		      snprintf(sun.sun_path, sizeof(sun.sun_path), "p%08lx", i);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len))
			die("pathname bind");
	}
	setup = now_ns() - t0;

	prctl(PR_SET_NAME, argv[5]);
	bench_mark();
	for (i = 0; i < m; i++) {
		fd = socket(family, SOCK_DGRAM, 0);
		if (fd < 0)
			die("socket");
		len = abstract_addr(&sun, family, 'm', i);
		t0 = now_ns();
		if (bind(fd, (struct sockaddr *)&sun, len))
			die("measured bind");
		t1 = now_ns();
		close(fd);
		lat[i] = t1 - t0;
		sum += lat[i];
	}
	bench_mark();
	prctl(PR_SET_NAME, "lookup-done");
	/* The module's abstract chains in this netns after the run (-1 for AF_UNIX). */
	chains = family == AF_UNIX ? -1 : read_int("/proc/sys/net/rust_afunix/abstract_buckets");

	for (i = 0; i < m; i++) {
		long long us = lat[i] / 1000;

		for (k = 0; us; k++)
			us >>= 1;
		hist[k]++;
	}
	qsort(lat, m, sizeof(*lat), cmp_ll);
	printf("{\"bench\": \"lookup\", \"family\": \"%s\", \"names\": \"%s\", "
	       "\"n_abs\": %ld, \"n_path\": %ld, "
	       "\"m\": %ld, \"setup_s\": %.3f, \"mean_ns\": %lld, \"p50_ns\": %lld, "
	       "\"p90_ns\": %lld, \"p99_ns\": %lld, \"max_ns\": %lld, \"chains\": %d, \"hist_log2_us\": [",
	       argv[1], rand_names ? "rand" : "seq", n_abs, n_path, m, setup / 1e9, m ? sum / m : 0, lat[m / 2],
	       lat[m * 9 / 10], lat[m * 99 / 100], lat[m - 1], chains);
	for (k = 0; k < 40; k++)
		printf("%s%ld", k ? ", " : "", hist[k]);
	printf("]}\n");
	/* The sockets go with the process; the files with the directory. */
	return 0;
}
