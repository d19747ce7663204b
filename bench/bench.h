/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share: a monotonic clock, fatal errors, a fixed
 * pseudo-random sequence, sorting of latencies, and the family a "unix" or "ours"
 * argument names.
 */
#ifndef BENCH_H
#define BENCH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The end of a profiling phase: `xchg %bx,%bx`, a no-op that scripts/profile's QEMU plugin
 * (bench/insn-profile.c) watches for; the instructions counted since the last marker are
 * written out as one phase.
 */
static inline void bench_mark(void)
{
	__asm__ volatile("xchg %%bx, %%bx" ::: "memory");
}

/* Ends the program: "<program>: <what>: <errno's message>". */
static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	exit(1);
}

/* splitmix64: a fixed pseudo-random sequence, the same for both families. */
static inline unsigned long long mix(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* qsort() order of long long latencies. */
static inline int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The integer in a file (a module parameter, a sysctl), or -1. */
static inline int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* AF_UNIX for "unix", else the module's family; exits if the module is not loaded. */
static inline int family_of(const char *name)
{
	int fam;

	if (!strcmp(name, "unix"))
		return AF_UNIX;
	fam = read_int("/sys/module/rust_afunix/parameters/family");
	if (fam < 0) {
		fprintf(stderr, "%s: rust_afunix is not loaded\n", program_invocation_short_name);
		exit(1);
	}
	return fam;
}

#endif /* BENCH_H */
