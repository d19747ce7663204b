// SPDX-License-Identifier: GPL-2.0
/*
 * The `make demo` exchange: a server and a client process talk over a socketpair of the
 * module's family, once per socket type.
 */
#include "common.h"
#include <ctype.h>

static int exchange(int family, int type, const char *name)
{
	static const char *const lines[] = { "hello from the client", "rust_afunix works",
					     "bye" };
	char buf[128];
	int sv[2], status, i, j, n;
	pid_t pid;

	if (socketpair(family, type, 0, sv)) {
		printf("socketpair(%d, %s): %s\n", family, name, strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		/* server: answers each of the three messages in upper case */
		close(sv[0]);
		for (i = 0; i < 3 && (n = recv(sv[1], buf, sizeof(buf), 0)) > 0; i++) {
			for (j = 0; j < n; j++)
				buf[j] = toupper((unsigned char)buf[j]);
			if (send(sv[1], buf, n, 0) != n)
				_exit(1);
		}
		_exit(i != 3);
	}
	close(sv[1]);
	for (i = 0; i < 3; i++) {
		n = strlen(lines[i]);
		if (send(sv[0], lines[i], n, 0) != n || recv(sv[0], buf, sizeof(buf), 0) != n)
			return 1;
		printf("  %-14s client sent \"%s\", server answered \"%.*s\"\n", name, lines[i],
		       n, buf);
	}
	close(sv[0]);
	waitpid(pid, &status, 0);
	return status != 0;
}

int main(void)
{
	int family = afunix_module_family(), err = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (family < 0) {
		printf("rust_afunix is not loaded\n");
		return 1;
	}
	printf("rust_afunix is family %d; a server and a client over socketpair(%d, ...):\n",
	       family, family);
	err |= exchange(family, SOCK_STREAM, "SOCK_STREAM");
	err |= exchange(family, SOCK_DGRAM, "SOCK_DGRAM");
	err |= exchange(family, SOCK_SEQPACKET, "SOCK_SEQPACKET");
	printf(err ? "the exchange FAILED\n" : "all three exchanges completed\n");
	return err;
}
