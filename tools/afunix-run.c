// SPDX-License-Identifier: GPL-2.0
/*
 * afunix-run: runs a program, and every process it starts, with each AF_UNIX socket
 * it creates made on rust_afunix's family instead: static binaries, Go programs and
 * setuid/setgid programs too, where an LD_PRELOAD shim does not reach.
 *
 *	afunix-run [-u USER] [-w] [-v] [--] PROGRAM [ARGS...]
 *
 * How: a seccomp filter, installed in the program before its execve and inherited by
 * everything it starts, stops exactly socket() and socketpair() of AF_UNIX (and
 * getsockopt(SOL_SOCKET, SO_DOMAIN)) with SECCOMP_RET_TRACE; this process, their
 * ptrace tracer (fork, vfork, clone and exec followed), rewrites the domain to the
 * module's family and the protocol to AS_UNIX_PROTOCOL before the kernel runs the
 * call. The program makes its own socket, so its netns, credentials, inode owner and
 * LSM label are its own. The module makes such a socket (and those accepted from it)
 * name itself AF_UNIX in every address it returns; SO_DOMAIN, which the socket core
 * answers from sk_family, is rewritten here at the call's exit.
 *
 * Privileges: as root (CAP_SYS_ADMIN), the filter is installed without no_new_privs
 * and, the tracer having CAP_SYS_PTRACE, a setuid or setgid program still gains its
 * privileges; -u USER runs the program as USER (after the filter is in place). Without
 * CAP_SYS_ADMIN the filter needs no_new_privs: setuid and setgid programs then run
 * without their privileges (the kernel would drop them under an unprivileged tracer
 * anyway).
 *
 * It returns when the program exits, with its status (128 + N when killed by signal
 * N); the processes it left are killed first (SIGKILL), since without their tracer
 * their AF_UNIX sockets would fail with ENOSYS. -w waits for them instead. SIGHUP,
 * SIGINT, SIGQUIT and SIGTERM sent to afunix-run are passed on to the program (not
 * those of the terminal, which the program's process group got already), or end the
 * rest once it has exited (-w); if afunix-run dies, PTRACE_O_EXITKILL kills every
 * process it traces. Its own failures
 * exit with 125 (the module not loaded, no seccomp in the kernel, ptrace refused),
 * 126 or 127 when the program cannot be executed or found.
 *
 * The protocol number must match AS_UNIX_PROTOCOL of proto.rs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define AS_UNIX_PROTOCOL 0x554e4958
#ifndef FAMILY_PARAM
#define FAMILY_PARAM "/sys/module/rust_afunix/parameters/family"
#endif

/* Syscall numbers, written out: the i386 ones are not in the x86-64 headers. */
#define X32_BIT 0x40000000u
#define NR64_SOCKET 41
#define NR64_SOCKETPAIR 53
#define NR64_GETSOCKOPT 55
#define NRX32_GETSOCKOPT 542
#define NR32_SOCKETCALL 102
#define NR32_SOCKET 359
#define NR32_SOCKETPAIR 360
#define NR32_GETSOCKOPT 365
/* socketcall()'s call numbers (linux/net.h). */
#define SYS_SOCKET_ 1
#define SYS_SOCKETPAIR_ 8
#define SYS_GETSOCKOPT_ 15

/* What the filter saw, in SECCOMP_RET_DATA: which registers hold the arguments. */
enum stop_kind {
	K_SOCKET64 = 1,		/* socket/socketpair, x86-64 or x32: rdi, rsi, rdx */
	K_SOCKET32,		/* socket/socketpair, i386: ebx, ecx, edx */
	K_SOCKETCALL32,		/* socketcall(call, args): the arguments in memory */
	K_GETSOCKOPT64,		/* getsockopt(SOL_SOCKET, SO_DOMAIN): r10, r8 */
	K_GETSOCKOPT32,		/* the same, i386: esi, edi */
};

static int family = -1;
static int verbose;
static unsigned long moved, domains;

static _Noreturn void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("afunix-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* The filter, with forward jumps to labels resolved as it is built. */
struct prog {
	struct sock_filter f[96];
	int n;
	int label[24];
	struct {
		int at, lab;
		int jt;	/* which branch: 1 jt, 0 jf */
	} fix[64];
	int nfix;
};

static void emit(struct prog *p, unsigned short code, unsigned int k)
{
	p->f[p->n++] = (struct sock_filter)BPF_STMT(code, k);
}

/* if (A == k) goto lab_t (or fall through when lab_t < 0), else goto lab_f (or fall). */
static void jeq(struct prog *p, unsigned int k, int lab_t, int lab_f)
{
	if (lab_t >= 0)
		p->fix[p->nfix++] = (typeof(p->fix[0])){ p->n, lab_t, 1 };
	if (lab_f >= 0)
		p->fix[p->nfix++] = (typeof(p->fix[0])){ p->n, lab_f, 0 };
	p->f[p->n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0);
}

static void here(struct prog *p, int lab)
{
	p->label[lab] = p->n;
}

static void resolve(struct prog *p)
{
	for (int i = 0; i < p->nfix; i++) {
		int off = p->label[p->fix[i].lab] - p->fix[i].at - 1;

		if (off < 0 || off > 255)
			die(125, "internal error: filter jump out of range");
		if (p->fix[i].jt)
			p->f[p->fix[i].at].jt = off;
		else
			p->f[p->fix[i].at].jf = off;
	}
}

#define LD(field) emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* The low 32 bits of an argument: the kernel reads ints. */
#define LD_ARG(i) emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define RET(v) emit(p, BPF_RET | BPF_K, (v))
#define TRACE(kind) RET(SECCOMP_RET_TRACE | (kind))

enum { L_ALLOW, L_I386, L_SOCK64, L_T64, L_GSO64, L_SOCK32, L_T32, L_GSO32, L_SC, L_TSC };

/*
 * One ABI's argument checks, at its labels: socket(AF_UNIX, type, 0 or PF_UNIX) (AF_UNIX
 * refuses other protocols itself) traced as k_sock, getsockopt(SOL_SOCKET, SO_DOMAIN) as
 * k_gso.
 */
static void abi_checks(struct prog *p, int l_sock, int l_trace, int k_sock, int l_gso, int k_gso)
{
	here(p, l_sock);
	LD_ARG(0);
	jeq(p, AF_UNIX, -1, L_ALLOW);
	LD_ARG(2);
	jeq(p, 0, l_trace, -1);
	jeq(p, PF_UNIX, -1, L_ALLOW);
	here(p, l_trace);
	TRACE(k_sock);

	here(p, l_gso);
	LD_ARG(1);
	jeq(p, SOL_SOCKET, -1, L_ALLOW);
	LD_ARG(2);
	jeq(p, SO_DOMAIN, -1, L_ALLOW);
	TRACE(k_gso);
}

static void build_filter(struct prog *p)
{
	LD(arch);
	jeq(p, AUDIT_ARCH_X86_64, -1, L_I386);
	LD(nr);
	jeq(p, NR64_SOCKET, L_SOCK64, -1);
	jeq(p, NR64_SOCKETPAIR, L_SOCK64, -1);
	jeq(p, X32_BIT | NR64_SOCKET, L_SOCK64, -1);
	jeq(p, X32_BIT | NR64_SOCKETPAIR, L_SOCK64, -1);
	jeq(p, NR64_GETSOCKOPT, L_GSO64, -1);
	jeq(p, X32_BIT | NRX32_GETSOCKOPT, L_GSO64, L_ALLOW);
	abi_checks(p, L_SOCK64, L_T64, K_SOCKET64, L_GSO64, K_GETSOCKOPT64);

	/* i386, from a 32-bit program or int 0x80. */
	here(p, L_I386);
	jeq(p, AUDIT_ARCH_I386, -1, L_ALLOW);
	LD(nr);
	jeq(p, NR32_SOCKET, L_SOCK32, -1);
	jeq(p, NR32_SOCKETPAIR, L_SOCK32, -1);
	jeq(p, NR32_GETSOCKOPT, L_GSO32, -1);
	jeq(p, NR32_SOCKETCALL, L_SC, L_ALLOW);
	abi_checks(p, L_SOCK32, L_T32, K_SOCKET32, L_GSO32, K_GETSOCKOPT32);

	/* socketcall's arguments are in memory: the tracer reads them. */
	here(p, L_SC);
	LD_ARG(0);
	jeq(p, SYS_SOCKET_, L_TSC, -1);
	jeq(p, SYS_SOCKETPAIR_, L_TSC, -1);
	jeq(p, SYS_GETSOCKOPT_, -1, L_ALLOW);
	here(p, L_TSC);
	TRACE(K_SOCKETCALL32);

	here(p, L_ALLOW);
	RET(SECCOMP_RET_ALLOW);
	resolve(p);
}

/* The processes traced, and for each a getsockopt(SO_DOMAIN) whose exit it waits for. */
struct tracee {
	pid_t pid;
	int pending;
	unsigned long optval, optlen;
};

static struct tracee *tracees;
static int ntracees, cap_tracees;

static struct tracee *tracee(pid_t pid)
{
	for (int i = 0; i < ntracees; i++)
		if (tracees[i].pid == pid)
			return &tracees[i];
	if (ntracees == cap_tracees) {
		cap_tracees = cap_tracees ? 2 * cap_tracees : 64;
		tracees = realloc(tracees, cap_tracees * sizeof(*tracees));
		if (!tracees)
			die(125, "out of memory");
	}
	tracees[ntracees] = (struct tracee){ .pid = pid };
	return &tracees[ntracees++];
}

static void tracee_gone(pid_t pid)
{
	for (int i = 0; i < ntracees; i++)
		if (tracees[i].pid == pid) {
			tracees[i] = tracees[--ntracees];
			return;
		}
}

/* The 32-bit word at addr in the tracee; -1 if it cannot be read. */
static int peek32(pid_t pid, unsigned long addr, uint32_t *v)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKDATA, pid, addr, 0);
	if (w == -1 && errno) {
		/* The last four bytes of a mapping: read the word that ends with them. */
		errno = 0;
		w = ptrace(PTRACE_PEEKDATA, pid, addr - 4, 0);
		if (w == -1 && errno)
			return -1;
		*v = (unsigned long)w >> 32;
		return 0;
	}
	*v = (uint32_t)w;
	return 0;
}

static int poke32(pid_t pid, unsigned long addr, uint32_t v)
{
	unsigned long w;
	long r;

	errno = 0;
	r = ptrace(PTRACE_PEEKDATA, pid, addr, 0);
	if (r != -1 || !errno) {
		w = ((unsigned long)r & ~0xffffffffUL) | v;
		return ptrace(PTRACE_POKEDATA, pid, addr, w) ? -1 : 0;
	}
	errno = 0;
	r = ptrace(PTRACE_PEEKDATA, pid, addr - 4, 0);
	if (r == -1 && errno)
		return -1;
	w = ((unsigned long)r & 0xffffffffUL) | (unsigned long)v << 32;
	return ptrace(PTRACE_POKEDATA, pid, addr - 4, w) ? -1 : 0;
}

/* Waits for the exit of the tracee's getsockopt(SO_DOMAIN) into optval/optlen. */
static int want_exit(struct tracee *t, unsigned long optval, unsigned long optlen)
{
	t->pending = 1;
	t->optval = optval;
	t->optlen = optlen;
	return PTRACE_SYSCALL;
}

/* A seccomp stop: rewrites the call the filter sent; returns how to resume. */
static int on_seccomp(pid_t pid)
{
	struct user_regs_struct r;
	unsigned long kind;
	uint32_t a[5];
	unsigned long args;

	if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &kind) || ptrace(PTRACE_GETREGS, pid, 0, &r))
		return PTRACE_CONT;	/* gone (killed): nothing to do */
	switch (kind) {
	case K_SOCKET64:
		r.rdi = family;
		r.rdx = AS_UNIX_PROTOCOL;
		break;
	case K_SOCKET32:
		r.rbx = family;
		r.rdx = AS_UNIX_PROTOCOL;
		break;
	case K_GETSOCKOPT64:
		return want_exit(tracee(pid), r.r10, r.r8);
	case K_GETSOCKOPT32:
		return want_exit(tracee(pid), (uint32_t)r.rsi, (uint32_t)r.rdi);
	case K_SOCKETCALL32:
		/* socketcall(call, args): u32 arguments at args, read and written in place. */
		args = (uint32_t)r.rcx;
		for (int i = 0; i < 3; i++)
			if (peek32(pid, args + 4 * i, &a[i]))
				return PTRACE_CONT;	/* the kernel gives EFAULT */
		if ((uint32_t)r.rbx == SYS_GETSOCKOPT_) {
			if (a[1] != SOL_SOCKET || a[2] != SO_DOMAIN || peek32(pid, args + 12, &a[3]) ||
			    peek32(pid, args + 16, &a[4]))
				return PTRACE_CONT;
			return want_exit(tracee(pid), a[3], a[4]);
		}
		if (a[0] != AF_UNIX || (a[2] != 0 && a[2] != PF_UNIX))
			return PTRACE_CONT;
		if (poke32(pid, args, family) || poke32(pid, args + 8, AS_UNIX_PROTOCOL))
			return PTRACE_CONT;
		moved++;
		return PTRACE_CONT;
	default:
		return PTRACE_CONT;
	}
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) == 0)
		moved++;
	return PTRACE_CONT;
}

/* The exit of a getsockopt(SO_DOMAIN): the family's number becomes AF_UNIX. */
static void on_syscall_exit(pid_t pid)
{
	struct tracee *t = tracee(pid);
	struct user_regs_struct r;
	uint32_t len, v;

	if (!t->pending)
		return;
	t->pending = 0;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) || (int)r.rax != 0)
		return;
	if (peek32(pid, t->optlen, &len) || len < sizeof(int) || peek32(pid, t->optval, &v) ||
	    (int)v != family)
		return;
	if (poke32(pid, t->optval, AF_UNIX) == 0)
		domains++;
}

static atomic_int program, end_all;

/*
 * A signal sent to afunix-run goes on to the program (not the terminal's: the program's
 * process group has it); once the program is gone (-w), it ends what is left.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	int e = errno;

	(void)uc;
	if (si->si_code != SI_KERNEL && program > 0)
		kill(program, sig);
	else if (program == 0)
		end_all = 1;
	errno = e;
}

/* Ends every process traced: none of them can go on without the tracer. */
static void kill_all(void)
{
	for (int i = 0; i < ntracees; i++)
		kill(tracees[i].pid, SIGKILL);
}

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };

static int read_family(void)
{
	FILE *f = fopen(FAMILY_PARAM, "r");
	int fam = -1;

	if (!f)
		die(125, "the rust_afunix module is not loaded (no %s): load it first", FAMILY_PARAM);
	if (fscanf(f, "%d", &fam) != 1 || fam <= 0)
		die(125, "cannot read the family number from %s", FAMILY_PARAM);
	fclose(f);
	return fam;
}

/* What the launcher needs of the kernel: seccomp filters that may return TRACE. */
static void check_kernel(void)
{
	unsigned int action = SECCOMP_RET_TRACE;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL)
		die(125, "this kernel has no seccomp (CONFIG_SECCOMP): cannot trace socket()");
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0)
		die(125, "this kernel has no seccomp filters with SECCOMP_RET_TRACE "
		    "(CONFIG_SECCOMP_FILTER): %s", strerror(errno));
}

static void usage(FILE *f)
{
	fputs("usage: afunix-run [-u USER] [-w] [-v] [--] PROGRAM [ARGS...]\n"
	      "Runs PROGRAM, and every process it starts, with its new AF_UNIX sockets on\n"
	      "rust_afunix's family.\n"
	      "  -u USER  run PROGRAM as USER (root only): setuid and setgid programs it runs\n"
	      "           still gain their privileges\n"
	      "  -w       wait for every process PROGRAM started, not only PROGRAM\n"
	      "  -v       say what is done, and count the calls rewritten at the end\n", f);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO };
	struct sigaction old_chld, dfl = { .sa_handler = SIG_DFL };
	const char *user = NULL;
	int wait_all = 0, status = 0, go[2], opt, i;
	struct passwd *pw = NULL;
	gid_t groups[NGROUPS_MAX];
	int ngroups = NGROUPS_MAX;
	struct prog filter = { 0 };
	struct sock_fprog fprog;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "+u:wvh")) != -1) {
		switch (opt) {
		case 'u':
			user = optarg;
			break;
		case 'w':
			wait_all = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 125;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 125;
	}
	family = read_family();
	check_kernel();
	if (user) {
		if (geteuid() != 0)
			die(125, "-u %s: only root can run a program as another user", user);
		pw = getpwnam(user);
		if (!pw)
			die(125, "-u %s: no such user", user);
		if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &ngroups) < 0)
			die(125, "-u %s: too many groups", user);
	}
	build_filter(&filter);
	fprog.len = filter.n;
	fprog.filter = filter.f;

	/* waitpid() needs SIGCHLD not ignored; the program gets the disposition we had. */
	sigaction(SIGCHLD, &dfl, &old_chld);
	if (pipe2(go, O_CLOEXEC))
		die(125, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(125, "fork: %s", strerror(errno));
	if (pid == 0) {
		int nnp = 0;

		close(go[1]);
		sigaction(SIGCHLD, &old_chld, NULL);
		/* Traced from here on (or the launcher is gone: EOF). */
		if (read(go[0], &c, 1) != 1)
			_exit(125);
		close(go[0]);
		/* Without CAP_SYS_ADMIN a filter needs no_new_privs. */
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0) {
			if (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0) {
				fprintf(stderr, "afunix-run: cannot install the seccomp filter: %s\n",
					strerror(errno));
				_exit(125);
			}
			nnp = 1;
		}
		if (verbose)
			fprintf(stderr, "afunix-run: family %d, filter installed%s\n", family,
				nnp ? " with no_new_privs (setuid and setgid programs will not "
				      "gain privileges)" : "");
		if (pw && (setgroups(ngroups, groups) || setgid(pw->pw_gid) ||
			   setuid(pw->pw_uid))) {
			fprintf(stderr, "afunix-run: cannot become %s: %s\n", user, strerror(errno));
			_exit(125);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "afunix-run: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(go[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0,
		   PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD |
		   PTRACE_O_EXITKILL)) {
		int e = errno;

		kill(pid, SIGKILL);
		die(125, "cannot trace the program (ptrace: %s)%s", strerror(e),
		    e == EPERM ? ": is afunix-run itself traced, or ptrace forbidden here?" : "");
	}
	tracee(pid);
	program = pid;
	for (i = 0; i < (int)ARRAY_SIZE(forwarded); i++)
		sigaction(forwarded[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (write(go[1], "g", 1) != 1)
		die(125, "pipe: %s", strerror(errno));
	close(go[1]);

	for (;;) {
		int st, sig, event, how;
		unsigned long msg;
		pid_t p = waitpid(-1, &st, __WALL);

		if (p < 0) {
			if (errno != EINTR)
				break;	/* ECHILD: no process left */
			if (end_all && wait_all) {
				wait_all = 0;
				kill_all();
			}
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			tracee_gone(p);
			if (p != pid)
				continue;
			program = 0;
			status = st;
			if (wait_all)
				continue;
			/* Without their tracer the others' AF_UNIX sockets would fail: end them. */
			kill_all();
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if (!program && !wait_all) {
			/* Being killed; or new (a fork in flight at the kill): killed now. */
			kill(p, SIGKILL);
			continue;
		}
		sig = WSTOPSIG(st);
		event = (unsigned int)st >> 16;
		how = PTRACE_CONT;
		tracee(p);
		if (sig == (SIGTRAP | 0x80)) {
			on_syscall_exit(p);
			sig = 0;
		} else if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) {
			how = on_seccomp(p);
			sig = 0;
		} else if (sig == SIGTRAP && event) {
			/* fork, vfork, clone (the new tracee reports its own stop), exec */
			if (event == PTRACE_EVENT_EXEC && !ptrace(PTRACE_GETEVENTMSG, p, 0, &msg) &&
			    (pid_t)msg != p)
				tracee_gone((pid_t)msg);	/* the execing thread took the leader's id */
			else if (event != PTRACE_EVENT_EXEC && event != PTRACE_EVENT_STOP &&
				 !ptrace(PTRACE_GETEVENTMSG, p, 0, &msg))
				tracee((pid_t)msg);
			sig = 0;
		} else if (event == PTRACE_EVENT_STOP) {
			/* A group stop (kept with LISTEN), or a new tracee's first stop. */
			if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
				ptrace(PTRACE_LISTEN, p, 0, 0);
				continue;
			}
			sig = 0;
		}
		/* Else a signal-delivery stop: the signal goes in. */
		ptrace(how, p, 0, sig);
	}
	if (verbose)
		fprintf(stderr, "afunix-run: %lu socket calls moved to family %d, %lu SO_DOMAIN "
			"answers rewritten\n", moved, family, domains);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
