// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of tools/afunix-run (bench/run-guest runs this plain and under it):
 *
 *	launcher LABEL socket unix|ours N	N socket() + close() pairs: ns per pair
 *	launcher LABEL syscall N		N getppid(): ns per call (a program that
 *						makes no socket pays the filter only)
 *	launcher LABEL spawn N PROGRAM ARGS...	N runs of PROGRAM, fork to exit: µs per run
 *
 * Prints one JSON object, {"bench": "launcher-WHAT", "label": LABEL, ...}.
 */
#define _GNU_SOURCE
#include "bench.h"
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *label, *what;
	long long t0, t1;
	long n, i;

	if (argc < 4) {
		fprintf(stderr, "usage: launcher LABEL socket unix|ours N | syscall N | "
			"spawn N PROGRAM ARGS...\n");
		return 2;
	}
	label = argv[1];
	what = argv[2];
	if (!strcmp(what, "socket") && argc == 5) {
		int fam = family_of(argv[3]);

		n = atol(argv[4]);
		bench_mark();
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			int fd = socket(fam, SOCK_STREAM, 0);

			if (fd < 0)
				die("socket");
			close(fd);
		}
		t1 = now_ns();
		bench_mark();
		printf("{\"bench\": \"launcher-socket\", \"label\": \"%s\", \"n\": %ld, "
		       "\"ns_per_call\": %.1f}\n", label, n, (double)(t1 - t0) / n);
	} else if (!strcmp(what, "syscall")) {
		n = atol(argv[3]);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			getppid();
		t1 = now_ns();
		printf("{\"bench\": \"launcher-syscall\", \"label\": \"%s\", \"n\": %ld, "
		       "\"ns_per_call\": %.1f}\n", label, n, (double)(t1 - t0) / n);
	} else if (!strcmp(what, "spawn") && argc >= 5) {
		n = atol(argv[3]);
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			pid_t pid = fork();
			int st;

			if (pid < 0)
				die("fork");
			if (pid == 0) {
				execvp(argv[4], argv + 4);
				_exit(127);
			}
			if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				die("spawn");
		}
		t1 = now_ns();
		printf("{\"bench\": \"launcher-spawn\", \"label\": \"%s\", \"n\": %ld, "
		       "\"ns_per_call\": %.1f}\n", label, n, (double)(t1 - t0) / n);
	} else {
		fprintf(stderr, "launcher: bad arguments\n");
		return 2;
	}
	return 0;
}
