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
 *	datapath messaging FAMILY G L	hackbench-style: G groups of 10 senders and 10
 *					receivers, each sender writes L 100-byte
 *					messages to each receiver of its group
 *
 * FAMILY is "unix" (AF_UNIX) or "ours" (the module's family). Each run starts in a new
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
	t0 = now();
	for (i = 0; i < n; i++) {
		full_write(sv[0], buf, size);
		full_read(sv[0], buf, size);
	}
	t1 = now();
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
	while (done < total) {
		ssize_t n = read(sv[0], buf, sizeof(buf));

		if (n <= 0)
			die("read");
		done += n;
	}
	t1 = now();
	waitpid(pid, NULL, 0);
	printf("{\"bench\": \"bandwidth\", \"family\": \"%s\", \"mb\": %d, "
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

int main(int argc, char **argv)
{
	int family;

	if (argc < 4) {
		fprintf(stderr, "usage: datapath herd|pingpong|bandwidth|messaging FAMILY ARGS...\n");
		return 2;
	}
	family = family_of(argv[2]);
	if (unshare(CLONE_NEWNET))
		die("unshare");
	if (!strcmp(argv[1], "herd") && argc == 5)
		return herd(family, atoi(argv[3]), atoi(argv[4]), argv[2]);
	if (!strcmp(argv[1], "pingpong") && argc == 6)
		return pingpong(family, atoi(argv[3]), atoi(argv[4]), argv[2], argv[5]);
	if (!strcmp(argv[1], "bandwidth") && argc == 4)
		return bandwidth(family, atoi(argv[3]), argv[2]);
	if (!strcmp(argv[1], "messaging") && argc == 5)
		return messaging(family, atoi(argv[3]), atoi(argv[4]), argv[2]);
	fprintf(stderr, "datapath: bad arguments\n");
	return 2;
}
