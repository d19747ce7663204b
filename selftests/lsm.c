// SPDX-License-Identifier: GPL-2.0
/*
 * What keeps a process out, differentially: every scenario runs on AF_UNIX and on the
 * module's family in the same test, and every result must be the same.
 *  - Landlock's LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (6.12, ABI 6): a process that
 *    restricts itself may not connect or send to an abstract socket made outside its
 *    domain (the unix_stream_connect and unix_may_send hooks), but reaches sockets made
 *    inside it, pathname sockets, and a datagram socket it connected before; nested
 *    domains and inherited ones too.
 *  - Socket filters (SO_ATTACH_FILTER, SO_ATTACH_BPF) on the receiver of datagram and
 *    seqpacket messages: dropped (the sender still sees success), truncated, accepted,
 *    chosen by the data; stream sockets do not run them.
 *  - SO_PEERSEC and SO_PASSSEC without an LSM that has security contexts (Landlock
 *    has none): ENOPROTOOPT, and only the MSG_CTRUNC of a receive without a buffer.
 */
#include "common.h"

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

/* Landlock's ABI 6 (the host's <linux/landlock.h> may be older). */
struct ll_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SYS_CREATE_RULESET 444
#define LL_SYS_RESTRICT_SELF 446

static int landlock_abi(void)
{
	return syscall(LL_SYS_CREATE_RULESET, NULL, 0, LL_CREATE_RULESET_VERSION);
}

/*
 * Enters a new Landlock domain of `attr`, after `add_rules(ruleset fd, arg)` (if any)
 * added its rules: 0, or -errno.
 */
static int enter_domain(const struct ll_ruleset_attr *attr, int (*add_rules)(int, const void *),
			const void *arg)
{
	int fd, err = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	fd = syscall(LL_SYS_CREATE_RULESET, attr, sizeof(*attr), 0);
	if (fd < 0)
		return -errno;
	if (add_rules)
		err = add_rules(fd, arg);
	if (!err && syscall(LL_SYS_RESTRICT_SELF, fd, 0))
		err = -errno;
	close(fd);
	return err;
}

/* Enters a new Landlock domain that scopes abstract unix sockets: 0, or -errno. */
static int scope_abstract(void)
{
	struct ll_ruleset_attr attr = { .scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET };

	return enter_domain(&attr, NULL, NULL);
}

/* An abstract name unique to this process and `tag`. */
static socklen_t lsm_addr(struct sockaddr_un *a, int family, const char *tag)
{
	return abstract_addrf(a, family, "afunix-lsm-%d-%s", getpid(), tag);
}

/* A bound socket of `type`, non-blocking, listening if connection-oriented; -errno. */
static int serving(int family, int type, const struct sockaddr_un *a, socklen_t len)
{
	int s = bound(family, type | SOCK_NONBLOCK, a, len);

	if (s < 0)
		return -errno;
	if (type != SOCK_DGRAM && listen(s, 8)) {
		int e = -errno;

		close(s);
		return e;
	}
	return s;
}

/* connect() of a new socket of `type`: 0 or -errno. */
static long try_connect(int family, int type, const struct sockaddr_un *a, socklen_t len)
{
	int s = socket(family, type | SOCK_NONBLOCK, 0);
	long r;

	if (s < 0)
		return -errno;
	r = connect(s, (const struct sockaddr *)a, len) ? -errno : 0;
	close(s);
	return r;
}

/* sendto() of a new datagram socket: the length or -errno. */
static long try_sendto(int family, const struct sockaddr_un *a, socklen_t len)
{
	int s = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	long r;

	if (s < 0)
		return -errno;
	r = sendto(s, "hi", 2, 0, (const struct sockaddr *)a, len);
	if (r < 0)
		r = -errno;
	close(s);
	return r;
}

/* Records a value computed here (`note` records a system call's result or errno). */
static void val(struct trace *t, long v)
{
	if (t->n < 512)
		t->v[t->n++] = v;
}

/* A stream listener at `a` (0 or -errno), then a connect() to it (0 or -errno). */
static void val_serve_connect(struct trace *t, int family, const struct sockaddr_un *a,
			      socklen_t len)
{
	int l = serving(family, SOCK_STREAM, a, len);

	val(t, l >= 0 ? 0 : l);
	val(t, try_connect(family, SOCK_STREAM, a, len));
	if (l >= 0)
		close(l);
}

/* Runs `fn` in a child; its trace comes back through a pipe into `t`. */
static void in_child(struct trace *t, void (*fn)(int family, struct trace *t, void *arg),
		     int family, void *arg)
{
	struct trace ct;
	int p[2], st;
	pid_t pid;
	ssize_t n;

	if (pipe(p))
		return val(t, -2000);
	pid = fork();
	if (pid < 0)
		return val(t, -2001);
	if (pid == 0) {
		memset(&ct, 0, sizeof(ct));
		fn(family, &ct, arg);
		n = write(p[1], &ct, sizeof(ct));
		_exit(n == sizeof(ct) ? 0 : 1);
	}
	close(p[1]);
	memset(&ct, 0, sizeof(ct));
	n = read(p[0], &ct, sizeof(ct));
	close(p[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || n != sizeof(ct))
		return val(t, -2002);
	for (int i = 0; i < ct.n; i++)
		val(t, ct.v[i]);
}

/* The sockets made outside the sandbox, for the sandboxed children. */
struct outside {
	struct sockaddr_un as, ad, aq, ps, pd;
	socklen_t as_len, ad_len, aq_len, ps_len, pd_len;
	struct sockaddr_un auto_d;	/* an autobound (abstract) datagram socket */
	socklen_t auto_len;
	/*
	 * Where another errno comes before the hook's: a bound stream socket that does
	 * not listen, a listener whose backlog is full, a datagram receiver shut down for
	 * reading, one connected elsewhere.
	 */
	struct sockaddr_un an, af, ar, ae;
	socklen_t an_len, af_len, ar_len, ae_len;
};

/* What the sandboxed process hands its child: the outside and its own sockets. */
struct inherited {
	const struct outside *o;
	struct sockaddr_un in, ind;
	socklen_t in_len, ind_len;
};

/*
 * A child of the sandboxed process: in its parent's domain, then in a domain nested in
 * it (the parent's sockets are then outside, its own inside).
 */
static void inherit_and_nest(int family, struct trace *t, void *arg)
{
	const struct inherited *c = arg;
	const struct outside *o = c->o;
	struct sockaddr_un deep;
	socklen_t deep_len;

	val(t, try_connect(family, SOCK_STREAM, &o->as, o->as_len));
	val(t, try_sendto(family, &o->ad, o->ad_len));
	val(t, try_connect(family, SOCK_STREAM, &c->in, c->in_len));
	val(t, scope_abstract());
	val(t, try_connect(family, SOCK_STREAM, &c->in, c->in_len));
	val(t, try_sendto(family, &c->ind, c->ind_len));
	deep_len = lsm_addr(&deep, family, "deep");
	val_serve_connect(t, family, &deep, deep_len);
}

/* The sandboxed process: restricts itself after connecting one datagram socket. */
static void sandboxed(int family, struct trace *t, void *arg)
{
	struct outside *o = arg;
	struct sockaddr_un in, ind;
	socklen_t in_len, ind_len;
	int pre, l, d;

	/* Connected before the restriction: AF_UNIX's unix_peer exception. */
	pre = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	note(t, connect(pre, (struct sockaddr *)&o->ad, o->ad_len));
	val(t, scope_abstract());

	/* Outside the domain: abstract sockets are out of reach. */
	val(t, try_connect(family, SOCK_STREAM, &o->as, o->as_len));
	val(t, try_connect(family, SOCK_SEQPACKET, &o->aq, o->aq_len));
	val(t, try_sendto(family, &o->ad, o->ad_len));
	val(t, try_connect(family, SOCK_DGRAM, &o->ad, o->ad_len));
	val(t, try_sendto(family, &o->auto_d, o->auto_len));
	/* ... but the socket connected before goes on, with or without the name. */
	note(t, send(pre, "pre", 3, 0));
	note(t, sendto(pre, "pre", 3, 0, (struct sockaddr *)&o->ad, o->ad_len));
	/* The errnos AF_UNIX checks before the hook come first. */
	val(t, try_connect(family, SOCK_STREAM, &o->an, o->an_len));
	val(t, try_connect(family, SOCK_STREAM, &o->af, o->af_len));
	val(t, try_sendto(family, &o->ar, o->ar_len));
	val(t, try_sendto(family, &o->ae, o->ae_len));
	val(t, try_connect(family, SOCK_DGRAM, &o->ae, o->ae_len));
	{
		int sv[2];

		if (socketpair(family, SOCK_STREAM, 0, sv) == 0) {
			note(t, connect(sv[0], (struct sockaddr *)&o->as, o->as_len));
			close(sv[0]);
			close(sv[1]);
		} else {
			val(t, -3001);
		}
	}
	/* Pathname sockets are not scoped. */
	val(t, try_connect(family, SOCK_STREAM, &o->ps, o->ps_len));
	val(t, try_sendto(family, &o->pd, o->pd_len));

	/* Inside the domain: reachable. */
	in_len = lsm_addr(&in, family, "in");
	l = serving(family, SOCK_STREAM, &in, in_len);
	val(t, l >= 0 ? 0 : l);
	val(t, try_connect(family, SOCK_STREAM, &in, in_len));
	ind_len = lsm_addr(&ind, family, "ind");
	d = serving(family, SOCK_DGRAM, &ind, ind_len);
	val(t, d >= 0 ? 0 : d);
	val(t, try_sendto(family, &ind, ind_len));

	/* A child inherits the domain: `in` (named by this pid) stays reachable. */
	{
		struct inherited c = { .o = o, .in = in, .ind = ind, .in_len = in_len,
				       .ind_len = ind_len };

		in_child(t, inherit_and_nest, family, &c);
	}
	if (l >= 0)
		close(l);
	if (d >= 0)
		close(d);
	close(pre);
}

static void landlock_scenario(int family, struct trace *t)
{
	struct outside o;
	int as, ad, aq, ps, pd, au, an, af, afc, ar, ae;
	char buf[16];

	memset(t, 0, sizeof(*t));
	memset(&o, 0, sizeof(o));
	o.as_len = lsm_addr(&o.as, family, "s");
	o.ad_len = lsm_addr(&o.ad, family, "d");
	o.aq_len = lsm_addr(&o.aq, family, "q");
	o.ps_len = path_addr(&o.ps, family, family == AF_UNIX ? "ll-unix-s" : "ll-ours-s");
	o.pd_len = path_addr(&o.pd, family, family == AF_UNIX ? "ll-unix-d" : "ll-ours-d");
	as = serving(family, SOCK_STREAM, &o.as, o.as_len);
	ad = serving(family, SOCK_DGRAM, &o.ad, o.ad_len);
	aq = serving(family, SOCK_SEQPACKET, &o.aq, o.aq_len);
	unlink(o.ps.sun_path);
	unlink(o.pd.sun_path);
	ps = serving(family, SOCK_STREAM, &o.ps, o.ps_len);
	pd = serving(family, SOCK_DGRAM, &o.pd, o.pd_len);
	if (as < 0 || ad < 0 || aq < 0 || ps < 0 || pd < 0)
		return val(t, -1000);
	/* An autobound datagram socket: its name is abstract. */
	au = socket(family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	o.auto_d.sun_family = family;
	if (au < 0 || bind(au, (struct sockaddr *)&o.auto_d, sizeof(sa_family_t)))
		return val(t, -1001);
	o.auto_len = sizeof(o.auto_d);
	if (getsockname(au, (struct sockaddr *)&o.auto_d, &o.auto_len))
		return val(t, -1002);

	o.an_len = lsm_addr(&o.an, family, "n");
	o.af_len = lsm_addr(&o.af, family, "full");
	o.ar_len = lsm_addr(&o.ar, family, "r");
	o.ae_len = lsm_addr(&o.ae, family, "e");
	an = socket(family, SOCK_STREAM, 0);
	if (an < 0 || bind(an, (struct sockaddr *)&o.an, o.an_len))
		return val(t, -1003);
	af = socket(family, SOCK_STREAM, 0);
	if (af < 0 || bind(af, (struct sockaddr *)&o.af, o.af_len) || listen(af, 0))
		return val(t, -1004);
	afc = socket(family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (afc < 0 || connect(afc, (struct sockaddr *)&o.af, o.af_len))
		return val(t, -1005);
	ar = serving(family, SOCK_DGRAM, &o.ar, o.ar_len);
	ae = serving(family, SOCK_DGRAM, &o.ae, o.ae_len);
	if (ar < 0 || ae < 0 || shutdown(ar, SHUT_RD) ||
	    connect(ae, (struct sockaddr *)&o.ad, o.ad_len))
		return val(t, -1006);

	in_child(t, sandboxed, family, &o);
	close(an);
	close(af);
	close(afc);
	close(ar);
	close(ae);

	/*
	 * What reached the receivers outside: the pre-connected socket's two datagrams
	 * on `ad`, one on the pathname one, none on the autobound one.
	 */
	note(t, recv(ad, buf, sizeof(buf), 0));
	note(t, recv(ad, buf, sizeof(buf), 0));
	note(t, recv(ad, buf, sizeof(buf), 0));
	note(t, recv(pd, buf, sizeof(buf), 0));
	note(t, recv(au, buf, sizeof(buf), 0));
	/* The stream listeners: only the pathname one had a connection. */
	note(t, accept(as, NULL, NULL));
	note(t, accept(aq, NULL, NULL));
	{
		int c = accept(ps, NULL, NULL);

		val(t, c >= 0 ? 0 : c);
		if (c >= 0)
			close(c);
	}
	close(as);
	close(ad);
	close(aq);
	close(ps);
	close(pd);
	close(au);
	unlink(o.ps.sun_path);
	unlink(o.pd.sun_path);
}

/* A private tmpfs-backed directory for the pathname sockets. */
static int enter_dir(char *cwd, char *dir)
{
	char tmpl[] = "lsm.XXXXXX";

	return enter_private_dir(tmpl, cwd, dir);
}

TEST(landlock_abstract_scope)
{
	static struct trace u, o;
	char cwd[PATH_MAX], dir[PATH_MAX];
	int fam = afunix_module_family();

	ASSERT_LT(0, fam) TH_LOG("rust_afunix is not loaded");
	ASSERT_LE(6, landlock_abi()) TH_LOG("Landlock ABI 6 is needed (lsm=landlock, 6.12)");
	ASSERT_EQ(0, enter_dir(cwd, dir));
	landlock_scenario(AF_UNIX, &u);
	landlock_scenario(fam, &o);
	leave_private_dir(cwd, dir);
	/* The oracle did refuse: the restriction took and scoped the abstract sockets. */
	ASSERT_LT(20, u.n);
	EXPECT_EQ(0, u.v[0]);		/* connect before the restriction */
	EXPECT_EQ(0, u.v[1]);		/* the restriction */
	EXPECT_EQ(-EPERM, u.v[2]);	/* stream connect out of the domain */
	EXPECT_EQ(-EPERM, u.v[3]);	/* seqpacket connect */
	EXPECT_EQ(-EPERM, u.v[4]);	/* datagram sendto */
	EXPECT_EQ(-EPERM, u.v[5]);	/* datagram connect */
	EXPECT_EQ(-EPERM, u.v[6]);	/* sendto an autobound socket */
	EXPECT_EQ(3, u.v[7]);		/* the socket connected before */
	EXPECT_EQ(3, u.v[8]);
	EXPECT_EQ(-ECONNREFUSED, u.v[9]);	/* not listening */
	EXPECT_EQ(-EAGAIN, u.v[10]);	/* backlog full */
	EXPECT_EQ(-EPIPE, u.v[11]);	/* receiver shut down */
	EXPECT_EQ(-EPERM, u.v[12]);	/* receiver connected elsewhere */
	EXPECT_EQ(-EPERM, u.v[13]);
	EXPECT_EQ(-EISCONN, u.v[14]);	/* already connected */
	EXPECT_EQ(0, u.v[15]);		/* pathname connect */
	EXPECT_EQ(2, u.v[16]);		/* pathname sendto */
	EXPECT_EQ(0, u.v[18]);		/* connect inside the domain */
	EXPECT_EQ(2, u.v[20]);		/* sendto inside the domain */
	EXPECT_SAME_TRACE(&u, &o);
}

/*
 * Landlock's LANDLOCK_ACCESS_FS_RESOLVE_UNIX (ABI 9, upstream 7.1; the hook
 * security_unix_find() after AF_UNIX's pathname lookup): a process that handles it may
 * reach a pathname socket made outside its domain only beneath a directory a rule
 * allows, EACCES elsewhere, for connect() and sendto() alike; the lookup's own errnos
 * come first. Where the kernel lacks the right (6.12) the ruleset is refused (EINVAL)
 * and every lookup goes through, on both families.
 */
#define LL_ACCESS_FS_RESOLVE_UNIX (1ULL << 16)
#define LL_RULE_PATH_BENEATH 1
#define LL_SYS_ADD_RULE 445

/* The kernel's is packed: it reads the first 12 bytes, the padding here is not read. */
struct ll_path_beneath_attr {
	__u64 allowed_access;
	__s32 parent_fd;
};

/* Allows RESOLVE_UNIX beneath the directory `dir` in the ruleset `fd`: 0, or -errno. */
static int allow_resolve_beneath(int fd, const void *dir)
{
	struct ll_path_beneath_attr rule = { .allowed_access = LL_ACCESS_FS_RESOLVE_UNIX };
	int err = 0;

	rule.parent_fd = open(dir, O_PATH | O_DIRECTORY);
	if (rule.parent_fd < 0 || syscall(LL_SYS_ADD_RULE, fd, LL_RULE_PATH_BENEATH, &rule, 0))
		err = -errno;
	if (rule.parent_fd >= 0)
		close(rule.parent_fd);
	return err;
}

/* Enters a domain handling RESOLVE_UNIX that allows it beneath `dir`: 0, or -errno. */
static int resolve_unix_only_in(const char *dir)
{
	struct ll_ruleset_attr attr = { .handled_access_fs = LL_ACCESS_FS_RESOLVE_UNIX };

	return enter_domain(&attr, allow_resolve_beneath, dir);
}

/* The pathname sockets made outside the domain. */
struct resolve_outside {
	struct sockaddr_un ok_s, ok_d, no_s, no_d, no_q, plain;
	socklen_t ok_s_len, ok_d_len, no_s_len, no_d_len, no_q_len, plain_len;
};

static void resolve_sandboxed(int family, struct trace *t, void *arg)
{
	const struct resolve_outside *o = arg;
	struct sockaddr_un in, missing;
	socklen_t in_len, missing_len;

	val(t, resolve_unix_only_in("ok"));
	val(t, try_connect(family, SOCK_STREAM, &o->ok_s, o->ok_s_len));
	val(t, try_sendto(family, &o->ok_d, o->ok_d_len));
	val(t, try_connect(family, SOCK_STREAM, &o->no_s, o->no_s_len));
	val(t, try_connect(family, SOCK_SEQPACKET, &o->no_q, o->no_q_len));
	val(t, try_sendto(family, &o->no_d, o->no_d_len));
	val(t, try_connect(family, SOCK_DGRAM, &o->no_d, o->no_d_len));
	/* The lookup's errnos first: the wrong type, a plain file, no file at all. */
	val(t, try_connect(family, SOCK_STREAM, &o->no_d, o->no_d_len));
	val(t, try_connect(family, SOCK_STREAM, &o->plain, o->plain_len));
	missing_len = path_addr(&missing, family, "no/missing");
	val(t, try_connect(family, SOCK_STREAM, &missing, missing_len));
	/* A socket made inside the domain is reachable wherever it is. */
	in_len = path_addr(&in, family, "no/inside");
	val_serve_connect(t, family, &in, in_len);
	unlink("no/inside");
}

static void resolve_unix_scenario(int family, struct trace *t)
{
	struct resolve_outside o;
	int fds[5], i, f;

	memset(t, 0, sizeof(*t));
	if ((mkdir("ok", 0700) && errno != EEXIST) || (mkdir("no", 0700) && errno != EEXIST))
		return val(t, -1000);
	o.ok_s_len = path_addr(&o.ok_s, family, "ok/s");
	o.ok_d_len = path_addr(&o.ok_d, family, "ok/d");
	o.no_s_len = path_addr(&o.no_s, family, "no/s");
	o.no_d_len = path_addr(&o.no_d, family, "no/d");
	o.no_q_len = path_addr(&o.no_q, family, "no/q");
	o.plain_len = path_addr(&o.plain, family, "no/plain");
	f = open("no/plain", O_CREAT | O_WRONLY, 0600);
	if (f >= 0)
		close(f);
	fds[0] = serving(family, SOCK_STREAM, &o.ok_s, o.ok_s_len);
	fds[1] = serving(family, SOCK_DGRAM, &o.ok_d, o.ok_d_len);
	fds[2] = serving(family, SOCK_STREAM, &o.no_s, o.no_s_len);
	fds[3] = serving(family, SOCK_DGRAM, &o.no_d, o.no_d_len);
	fds[4] = serving(family, SOCK_SEQPACKET, &o.no_q, o.no_q_len);
	for (i = 0; i < 5; i++)
		val(t, fds[i] >= 0 ? 0 : fds[i]);
	in_child(t, resolve_sandboxed, family, &o);
	for (i = 0; i < 5; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 0; i < 6; i++)
		unlink(((const char *[]){ "ok/s", "ok/d", "no/s", "no/d", "no/q", "no/plain" })[i]);
	rmdir("ok");
	rmdir("no");
}

TEST(landlock_resolve_unix)
{
	static struct trace u, o;
	char cwd[PATH_MAX], dir[PATH_MAX];
	int fam = afunix_module_family();

	ASSERT_LT(0, fam) TH_LOG("rust_afunix is not loaded");
	ASSERT_EQ(0, enter_dir(cwd, dir));
	resolve_unix_scenario(AF_UNIX, &u);
	resolve_unix_scenario(fam, &o);
	leave_private_dir(cwd, dir);
	ASSERT_EQ(17, u.n);
	if (landlock_abi() >= 9) {
		/* The oracle did refuse outside the allowed directory. */
		EXPECT_EQ(0, u.v[5]);		/* the restriction */
		EXPECT_EQ(0, u.v[6]);		/* connect beneath "ok" */
		EXPECT_EQ(2, u.v[7]);		/* sendto beneath "ok" */
		EXPECT_EQ(-EACCES, u.v[8]);	/* stream connect beneath "no" */
		EXPECT_EQ(-EACCES, u.v[9]);	/* seqpacket connect */
		EXPECT_EQ(-EACCES, u.v[10]);	/* sendto */
		EXPECT_EQ(-EACCES, u.v[11]);	/* datagram connect */
		EXPECT_EQ(-EPROTOTYPE, u.v[12]);
		EXPECT_EQ(-ECONNREFUSED, u.v[13]);
		EXPECT_EQ(-ENOENT, u.v[14]);
		EXPECT_EQ(0, u.v[16]);		/* inside the domain */
	} else {
		EXPECT_EQ(-EINVAL, u.v[5]);	/* no such access right */
		EXPECT_EQ(0, u.v[8]);
	}
	EXPECT_SAME_TRACE(&u, &o);
}

/* Attaches classic BPF `code` to `s`: 0 or -errno. */
static long attach(int s, struct sock_filter *code, unsigned short n)
{
	struct sock_fprog prog = { .len = n, .filter = code };

	return setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ? -errno : 0;
}

/* Loads `n` instructions as an eBPF socket filter: its fd, or -errno. */
static int ebpf_load(const struct bpf_insn *insns, unsigned int n)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = n;
	attr.license = (unsigned long)"GPL";
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/* An eBPF socket filter program that returns `ret`: its fd, or -errno. */
static int ebpf_ret(int ret)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return ebpf_load(insns, ARRAY_SIZE(insns));
}

/*
 * An eBPF socket filter that reads the skb's cb[0] (so the kernel saves, clears and
 * restores the control block's bytes around it), then accepts: its fd, or -errno.
 */
static int ebpf_cb_reader(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_1,
		  .off = offsetof(struct __sk_buff, cb[0]) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = -1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return ebpf_load(insns, ARRAY_SIZE(insns));
}

/* Sends one byte with SCM_RIGHTS of `fd` and our SCM_CREDENTIALS: the send's result. */
static long send_fd_creds(int s, int fd)
{
	union {
		char b[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct ucred cr = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
	struct iovec iov = { .iov_base = "m", .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	c = CMSG_NXTHDR(&mh, c);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cr));
	memcpy(CMSG_DATA(c), &cr, sizeof(cr));
	return sendmsg(s, &mh, MSG_DONTWAIT);
}

/*
 * What a receive of send_fd_creds()'s message brings: length, then for each control
 * message its type, and whether the fd is a pipe's write end and the pid ours.
 */
static void recv_fd_creds(struct trace *t, int s)
{
	union {
		char b[256];
		struct cmsghdr align;
	} u;
	char buf[4];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
			     .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c;

	note(t, recvmsg(s, &mh, MSG_DONTWAIT));
	note(t, mh.msg_flags);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		val(t, c->cmsg_type);
		if (c->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(c), sizeof(fd));
			val(t, (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY);
			close(fd);
		} else if (c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cr;

			memcpy(&cr, CMSG_DATA(c), sizeof(cr));
			val(t, cr.pid == getpid() && cr.uid == getuid() && cr.gid == getgid());
		}
	}
}

/* Whether the pipe's read end `r` sees end of file: every write end closed. */
static long pipe_eof(int r)
{
	char c;
	long n = read(r, &c, 1);

	return n < 0 ? -errno : n;
}

/*
 * The control block survives a filter that reads it (credentials and files arrive),
 * and a datagram the filter drops releases the files it carried.
 */
static void filter_cb_scenario(int family, struct trace *t)
{
	struct sock_filter drop[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET };
	int sv[2], p[2], i, prog;

	for (i = 0; i < (int)ARRAY_SIZE(types); i++) {
		if (socketpair(family, types[i], 0, sv) || pipe2(p, O_NONBLOCK))
			return val(t, -1300);
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)));
		prog = ebpf_cb_reader();
		val(t, prog >= 0 ? 0 : prog);
		if (prog >= 0) {
			note(t, setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)));
			close(prog);
		}
		note(t, send_fd_creds(sv[0], p[1]));
		recv_fd_creds(t, sv[1]);
		/* Dropped with the pipe's write end in it: the file goes. */
		val(t, attach(sv[1], drop, ARRAY_SIZE(drop)));
		note(t, send_fd_creds(sv[0], p[1]));
		close(p[1]);
		val(t, pipe_eof(p[0]));
		close(p[0]);
		close(sv[0]);
		close(sv[1]);
	}
}

/* Sends "abcdefghij" from sv[0] and what arrives at sv[1]: length and first byte. */
static void send_recv(struct trace *t, int sv[2], const char *msg)
{
	char buf[32];
	long n;

	note(t, send(sv[0], msg, strlen(msg), MSG_DONTWAIT));
	n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	note(t, n);
	val(t, n > 0 ? buf[0] : 0);
	/* Nothing else is queued. */
	note(t, recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
}

static void filter_scenario(int family, struct trace *t)
{
	struct sock_filter drop[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_filter trunc[] = { BPF_STMT(BPF_RET | BPF_K, 3) };
	struct sock_filter accept_all[] = { BPF_STMT(BPF_RET | BPF_K, 0xffffffff) };
	/* Accept only what starts with 'a'. */
	struct sock_filter by_data[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 'a', 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET, SOCK_STREAM };
	int sv[2], i, prog;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < (int)ARRAY_SIZE(types); i++) {
		if (socketpair(family, types[i], 0, sv))
			return val(t, -1000 - i);
		val(t, attach(sv[1], drop, ARRAY_SIZE(drop)));
		send_recv(t, sv, "abcdefghij");
		val(t, attach(sv[1], trunc, ARRAY_SIZE(trunc)));
		send_recv(t, sv, "abcdefghij");
		val(t, attach(sv[1], accept_all, ARRAY_SIZE(accept_all)));
		send_recv(t, sv, "abcdefghij");
		val(t, attach(sv[1], by_data, ARRAY_SIZE(by_data)));
		send_recv(t, sv, "abc");
		send_recv(t, sv, "xyz");
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_DETACH_FILTER, NULL, 0));
		send_recv(t, sv, "xyz");
		/* SO_LOCK_FILTER: the filter can no longer change. */
		val(t, attach(sv[1], drop, ARRAY_SIZE(drop)));
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_LOCK_FILTER, &(int){ 1 }, sizeof(int)));
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_DETACH_FILTER, NULL, 0));
		send_recv(t, sv, "abc");
		close(sv[0]);
		close(sv[1]);

		/* eBPF: SO_ATTACH_BPF of a program that drops, then one that keeps 2 bytes. */
		if (socketpair(family, types[i], 0, sv))
			return val(t, -1100 - i);
		prog = ebpf_ret(0);
		val(t, prog >= 0 ? 0 : prog);
		if (prog >= 0) {
			note(t, setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)));
			close(prog);
			send_recv(t, sv, "abcdefghij");
		}
		prog = ebpf_ret(2);
		if (prog >= 0) {
			note(t, setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_BPF, &prog, sizeof(prog)));
			close(prog);
			send_recv(t, sv, "abcdefghij");
		}
		close(sv[0]);
		close(sv[1]);
	}
	/* A datagram sent by name, to a bound receiver with a filter. */
	{
		struct sockaddr_un a;
		socklen_t len = lsm_addr(&a, family, "f");
		int r = serving(family, SOCK_DGRAM, &a, len), s;
		char buf[16];

		s = socket(family, SOCK_DGRAM, 0);
		if (r < 0 || s < 0)
			return val(t, -1200);
		val(t, attach(r, drop, ARRAY_SIZE(drop)));
		note(t, sendto(s, "hello", 5, 0, (struct sockaddr *)&a, len));
		note(t, recv(r, buf, sizeof(buf), MSG_DONTWAIT));
		val(t, attach(r, trunc, ARRAY_SIZE(trunc)));
		note(t, sendto(s, "hello", 5, 0, (struct sockaddr *)&a, len));
		note(t, recv(r, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC));
		close(r);
		close(s);
	}
	filter_cb_scenario(family, t);
}

TEST(socket_filters)
{
	static struct trace u, o;

	RUN_BOTH(filter_scenario, &u, &o);
	/* The oracle: a dropped datagram is still sent; a truncated one arrives as 3. */
	ASSERT_LT(8, u.n);
	EXPECT_EQ(0, u.v[0]);
	EXPECT_EQ(10, u.v[1]);
	EXPECT_EQ(-EAGAIN, u.v[2]);
	EXPECT_EQ(10, u.v[6]);
	EXPECT_EQ(3, u.v[7]);
	/* The last datagram, dropped, released the pipe's write end it carried. */
	EXPECT_EQ(0, u.v[u.n - 1]);
	EXPECT_SAME_TRACE(&u, &o);
}

static void peersec_scenario(int family, struct trace *t)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	char buf[64], ctl[256];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	socklen_t len;
	int sv[2], i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < (int)ARRAY_SIZE(types); i++) {
		if (socketpair(family, types[i], 0, sv))
			return val(t, -1000 - i);
		len = sizeof(buf);
		note(t, getsockopt(sv[0], SOL_SOCKET, SO_PEERSEC, buf, &len));
		note(t, len);
		note(t, setsockopt(sv[1], SOL_SOCKET, SO_PASSSEC, &(int){ 1 }, sizeof(int)));
		len = sizeof(int);
		note(t, getsockopt(sv[1], SOL_SOCKET, SO_PASSSEC, buf, &len));
		note(t, *(int *)buf);
		/* No control buffer: MSG_CTRUNC, as scm_has_secdata() says. */
		note(t, send(sv[0], "x", 1, 0));
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		note(t, recvmsg(sv[1], &mh, 0));
		note(t, mh.msg_flags);
		/* A control buffer: no SCM_SECURITY without a security context. */
		note(t, send(sv[0], "y", 1, 0));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		note(t, recvmsg(sv[1], &mh, 0));
		note(t, mh.msg_flags);
		note(t, mh.msg_controllen);
		close(sv[0]);
		close(sv[1]);
	}
}

TEST(peersec_passsec)
{
	static struct trace u, o;

	RUN_BOTH(peersec_scenario, &u, &o);
	ASSERT_LT(0, u.n);
	/* Each type's getsockopt(SO_PASSSEC) (steps 3 and 4 of 12): the 6.16+ limit. */
	for (int i = 0; pass_opts_unreadable(true) && i < 3; i++) {
		KNOWN_DIFFERENCE(&u, &o, 12 * i + 3, -EOPNOTSUPP);
		UNDEFINED_STEP(&u, &o, 12 * i + 4);
	}
	EXPECT_EQ(-ENOPROTOOPT, u.v[0]);
	EXPECT_SAME_TRACE(&u, &o);
}

TEST_HARNESS_MAIN
