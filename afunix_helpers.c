// SPDX-License-Identifier: GPL-2.0
/*
 * Static-inline and macro kernel APIs, made callable from Rust, and the module
 * parameter that the Rust `module!` of 6.12 cannot declare. Nothing here decides
 * anything: each helper is the one call it wraps. The lock and wait-queue initialisers
 * are here because each call site of spin_lock_init(), mutex_init() and
 * init_waitqueue_head() defines the static lockdep key of its lock class.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/security.h>
#include <net/netns/generic.h>

#include "afunix_bindings.h"

/*
 * AF_DECnet (12): its code was removed from Linux in 6.1, so no 6.12 code registers
 * this slot. See README.md, "Family number".
 */
int afunix_family = 12;
module_param_named(family, afunix_family, int, 0444);
MODULE_PARM_DESC(family, "Address family number to register (default 12, ex-AF_DECnet; 1..45, free)");

/*
 * A debug knob for tests only: the autobind name space is 2^autobind_bits names
 * (AF_UNIX: 2^20, the default). Filling all 2^20 names of AF_UNIX's 256-bucket layout
 * takes hours under TCG; a small space lets a test reach the wrap-around and ENOSPC.
 */
int afunix_autobind_bits = 20;
module_param_named(autobind_bits, afunix_autobind_bits, int, 0644);
MODULE_PARM_DESC(autobind_bits, "Debug: autobind name space is 2^N names, 1..20 (default 20, as AF_UNIX)");

/*
 * A debug knob for tests and benchmarks only: write-space wakeups without the
 * EPOLLOUT|EPOLLWRNORM|EPOLLWRBAND key, waking every poller of the socket (AF_UNIX
 * before 2010), to show that the wakeup test and benchmark detect the herd.
 */
bool afunix_wakeup_unkeyed;
module_param_named(wakeup_unkeyed, afunix_wakeup_unkeyed, bool, 0644);
MODULE_PARM_DESC(wakeup_unkeyed, "Debug: unkeyed write-space wakeups (default N)");

/* The initialisers of a new socket's locks and wait queue: one lockdep class each. */
void afunix_init_state_lock(struct afunix_sock *u)
{
	spin_lock_init(&u->lock);
}

void afunix_init_iolock(struct afunix_sock *u)
{
	mutex_init(&u->iolock);
}

void afunix_init_bindlock(struct afunix_sock *u)
{
	mutex_init(&u->bindlock);
}

void afunix_init_peer_wait(struct afunix_sock *u)
{
	init_waitqueue_head(&u->peer_wq.wait);
}

/* An embryo has no struct socket yet: its wait queue is its own peer_wq (as AF_UNIX). */
void afunix_embryo_init(struct sock *sk)
{
	RCU_INIT_POINTER(sk->sk_wq, &container_of(sk, struct afunix_sock, sk)->peer_wq);
}

void afunix_state_lock(struct sock *sk)
{
	spin_lock(&container_of(sk, struct afunix_sock, sk)->lock);
}

/* The second of two state locks, taken in a fixed order by the caller. */
void afunix_state_lock_nested(struct sock *sk)
{
	spin_lock_nested(&container_of(sk, struct afunix_sock, sk)->lock, SINGLE_DEPTH_NESTING);
}

void afunix_state_unlock(struct sock *sk)
{
	spin_unlock(&container_of(sk, struct afunix_sock, sk)->lock);
}

/* Any other spinlock: a receive queue's, a wait queue's, sk_peer_lock. */
void afunix_spin_lock(spinlock_t *lock)
{
	spin_lock(lock);
}

void afunix_spin_unlock(spinlock_t *lock)
{
	spin_unlock(lock);
}

void afunix_iolock(struct sock *sk)
{
	mutex_lock(&container_of(sk, struct afunix_sock, sk)->iolock);
}

int afunix_iolock_interruptible(struct sock *sk)
{
	return mutex_lock_interruptible(&container_of(sk, struct afunix_sock, sk)->iolock);
}

void afunix_iounlock(struct sock *sk)
{
	mutex_unlock(&container_of(sk, struct afunix_sock, sk)->iolock);
}

void afunix_sock_hold(struct sock *sk)
{
	sock_hold(sk);
}

void afunix_sock_put(struct sock *sk)
{
	sock_put(sk);
}

void afunix_sock_orphan(struct sock *sk)
{
	sock_orphan(sk);
}

struct pid *afunix_current_tgid(void)
{
	return task_tgid(current);
}

struct pid *afunix_get_pid(struct pid *pid)
{
	return get_pid(pid);
}

const struct cred *afunix_get_current_cred(void)
{
	return get_current_cred();
}

const struct cred *afunix_get_cred(const struct cred *cred)
{
	return get_cred(cred);
}

void afunix_put_cred(const struct cred *cred)
{
	put_cred(cred);
}

const struct cred *afunix_current_cred(void)
{
	return current_cred();
}

void afunix_prot_inuse_add(struct sock *sk, int val)
{
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, val);
}

bool afunix_sock_dead(struct sock *sk)
{
	return sock_flag(sk, SOCK_DEAD);
}

int afunix_sock_error(struct sock *sk)
{
	return sock_error(sk);
}

long afunix_rcvtimeo(struct sock *sk, bool noblock)
{
	return sock_rcvtimeo(sk, noblock);
}

long afunix_sndtimeo(struct sock *sk, bool noblock)
{
	return sock_sndtimeo(sk, noblock);
}

int afunix_rcvlowat(struct sock *sk, bool waitall, int len)
{
	return sock_rcvlowat(sk, waitall, len);
}

int afunix_intr_errno(long timeo)
{
	return sock_intr_errno(timeo);
}

bool afunix_is_readable(struct sock *sk)
{
	return sk_is_readable(sk);
}

unsigned int afunix_wmem_alloc(struct sock *sk)
{
	return refcount_read(&sk->sk_wmem_alloc);
}

struct wait_queue_head *afunix_sk_sleep(struct sock *sk)
{
	return sk_sleep(sk);
}

void afunix_set_nospace(struct sock *sk)
{
	sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
}

/* Under rcu_read_lock(). */
struct socket_wq *afunix_sk_wq(struct sock *sk)
{
	return rcu_dereference(sk->sk_wq);
}

bool afunix_wq_has_sleeper(struct wait_queue_head *wq)
{
	return wq_has_sleeper(wq);
}

void afunix_rcu_read_lock(void)
{
	rcu_read_lock();
}

void afunix_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

void afunix_wake_async(struct sock *sk, int how, int band)
{
	sk_wake_async(sk, how, band);
}

void afunix_wake_up_interruptible_all(struct wait_queue_head *wq)
{
	wake_up_interruptible_all(wq);
}

void afunix_poll_wait(struct file *file, struct socket *sock, poll_table *wait)
{
	sock_poll_wait(file, sock, wait);
}

__poll_t afunix_poll_requested(poll_table *wait)
{
	return poll_requested_events(wait);
}

bool afunix_rcvq_empty(struct sock *sk)
{
	return skb_queue_empty_lockless(&sk->sk_receive_queue);
}

bool afunix_errq_empty(struct sock *sk)
{
	return skb_queue_empty_lockless(&sk->sk_error_queue);
}

struct sk_buff *afunix_rcvq_peek(struct sock *sk)
{
	return skb_peek(&sk->sk_receive_queue);
}

struct sk_buff *afunix_rcvq_peek_next(struct sock *sk, struct sk_buff *skb)
{
	return skb_peek_next(skb, &sk->sk_receive_queue);
}

struct sk_buff *afunix_rcvq_peek_tail(struct sock *sk)
{
	return skb_peek_tail(&sk->sk_receive_queue);
}

unsigned int afunix_rcvq_len(struct sock *sk)
{
	return skb_queue_len_lockless(&sk->sk_receive_queue);
}

bool afunix_signal_pending(void)
{
	return signal_pending(current);
}

void afunix_sigpipe(void)
{
	send_sig(SIGPIPE, current, 0);
}

unsigned long afunix_skb_max_alloc(void)
{
	return SKB_MAX_ALLOC;
}

unsigned long afunix_skb_max_head0(void)
{
	return SKB_MAX_HEAD(0);
}

/*
 * The abstract half of a netns table: chains resized by a work item, one lock stripe
 * at a time, so that a lookup walks about one socket whatever the number of names
 * (AF_UNIX's 256 fixed buckets hold 400 each at 100k names). A resize allocates
 * outside the locks; if it cannot, the table keeps its size and only lookups slow down.
 */
static struct afunix_chains *afunix_chains_alloc(unsigned int bits, gfp_t gfp)
{
	struct afunix_chains *c;
	unsigned int i;

	c = kvmalloc(struct_size(c, heads, 1U << bits), gfp);
	if (!c)
		return NULL;
	c->bits = bits;
	for (i = 0; i < 1U << bits; i++)
		INIT_HLIST_HEAD(&c->heads[i]);
	return c;
}

/* The chains for n abstract sockets: at least n, within the table's limits. */
static unsigned int afunix_abs_bits(int n)
{
	return clamp_t(unsigned int, n > 1 ? order_base_2(n) : 0, AFUNIX_HASH_BITS,
		       AFUNIX_ABS_MAX_BITS);
}

/* Moves the abstract sockets of t to 1 << bits chains; false if out of memory. */
static bool afunix_abs_rehash(struct afunix_table *t, unsigned int bits)
{
	/* Only the resize work item (never run twice at once) writes t->abs[]. */
	struct afunix_chains *old = t->abs[0], *new;
	struct hlist_node *tmp;
	unsigned int s, i;
	struct sock *sk;

	/* Without memory the table keeps its size: lookups get slower, nothing fails. */
	new = afunix_chains_alloc(bits, GFP_KERNEL | __GFP_NOWARN);
	if (!new)
		return false;
	for (s = 0; s < AFUNIX_HASH_SIZE; s++) {
		spin_lock(&t->locks[AFUNIX_HASH_SIZE + s]);
		for (i = s; i < 1U << old->bits; i += AFUNIX_HASH_SIZE) {
			sk_for_each_safe(sk, tmp, &old->heads[i]) {
				u32 h = container_of(sk, struct afunix_sock, sk)->name_hash;

				/* The table's reference moves with the socket. */
				__sk_del_node(sk);
				hlist_add_head(&sk->sk_node, &new->heads[h & ((1U << bits) - 1)]);
			}
		}
		t->abs[s] = new;
		spin_unlock(&t->locks[AFUNIX_HASH_SIZE + s]);
		cond_resched();
	}
	WRITE_ONCE(t->abs_buckets, 1 << bits);
	/*
	 * Pairs with the atomic_*_return() of add and del: either they see the new size,
	 * or afunix_abs_resize() sees their count.
	 */
	smp_mb();
	/* Every stripe points to new: no lock holder can reach old any more. */
	kvfree(old);
	return true;
}

/*
 * The chains the abstract half should have for n names, or its current size: grow
 * when there are more names than chains, shrink when fewer than a quarter, to twice
 * the names. The gap keeps a count that goes back and forth from resizing each time.
 */
static unsigned int afunix_abs_want(unsigned int bits, int n)
{
	if (n > 1 << bits)
		return afunix_abs_bits(n);
	if (bits > AFUNIX_HASH_BITS && n < (1 << bits) / 4)
		return afunix_abs_bits(2 * n);
	return bits;
}

static void afunix_abs_queue_resize(struct afunix_table *t)
{
	/* Long rehashes: not on a per-CPU workqueue. */
	queue_work(system_unbound_wq, &t->resize);
}

/* One rehash per run; queued again if the names moved past a threshold meanwhile. */
static void afunix_abs_resize(struct work_struct *work)
{
	struct afunix_table *t = container_of(work, struct afunix_table, resize);
	/* Only this work item (never run twice at once) writes t->abs[]. */
	unsigned int bits = t->abs[0]->bits, want;

	want = afunix_abs_want(bits, atomic_read(&t->n_abstract));
	if (want == bits || !afunix_abs_rehash(t, want))
		return;
	if (afunix_abs_want(want, atomic_read(&t->n_abstract)) != want)
		afunix_abs_queue_resize(t);
}

static struct afunix_table *afunix_table_alloc(void)
{
	struct afunix_table *t;
	struct afunix_chains *c;
	unsigned int i;

	t = kvmalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	c = afunix_chains_alloc(AFUNIX_HASH_BITS, GFP_KERNEL_ACCOUNT);
	if (!c) {
		kvfree(t);
		return NULL;
	}
	for (i = 0; i < 2 * AFUNIX_HASH_SIZE; i++)
		spin_lock_init(&t->locks[i]);
	for (i = 0; i < AFUNIX_HASH_SIZE; i++) {
		INIT_HLIST_HEAD(&t->buckets[i]);
		t->abs[i] = c;
	}
	get_random_bytes(&t->seed, sizeof(t->seed));
	memset(t->autobind_map, 0, sizeof(t->autobind_map));
	atomic_set(&t->n_abstract, 0);
	t->abs_buckets = AFUNIX_HASH_SIZE;
	INIT_WORK(&t->resize, afunix_abs_resize);
	return t;
}

/* At netns exit: every socket of the netns is gone, a resize may still be queued. */
static void afunix_table_free(struct afunix_table *t)
{
	int i;

	cancel_work_sync(&t->resize);
	for (i = 0; i < ARRAY_SIZE(t->autobind_map); i++)
		kvfree(t->autobind_map[i]);
	kvfree(t->abs[0]);
	kvfree(t);
}

/*
 * The autobind map: which names of the 2^20 autobind names are taken, per socket type,
 * so that autobind skips taken names 64 at a time instead of looking each one up; a
 * nearly full space costs a bit scan, not a million lookups. The table stays the
 * authority: a name bound explicitly in the "\0%05x" form is not in the map until an
 * autobind finds it taken (and marks it).
 */
#define AFUNIX_AUTOBIND_NAMES (1UL << 20)

/* The index of a socket type's map, or -1. */
static int afunix_autobind_index(int type)
{
	switch (type) {
	case SOCK_STREAM:
		return 0;
	case SOCK_DGRAM:
		return 1;
	case SOCK_SEQPACKET:
		return 2;
	}
	return -1;
}

static unsigned long *afunix_autobind_map(struct afunix_table *t, int type)
{
	int i = afunix_autobind_index(type);

	/* Pairs with the cmpxchg() that publishes the zeroed map. */
	return i < 0 ? NULL : smp_load_acquire(&t->autobind_map[i]);
}

/* Allocates the map of @type, if not yet (may sleep: before any spinlock). */
int afunix_autobind_prepare(struct afunix_table *t, int type)
{
	int i = afunix_autobind_index(type);
	unsigned long *map;

	if (i < 0)
		return -EINVAL;
	if (afunix_autobind_map(t, type))
		return 0;
	map = kvcalloc(BITS_TO_LONGS(AFUNIX_AUTOBIND_NAMES), sizeof(long), GFP_KERNEL_ACCOUNT);
	if (!map)
		return -ENOMEM;
	/* Fully ordered: the zeroed map is visible before its pointer. */
	if (cmpxchg(&t->autobind_map[i], NULL, map))
		kvfree(map);
	return 0;
}

/* The first name in [@from, @to) that the map does not know taken, or @to. */
unsigned long afunix_autobind_next(struct afunix_table *t, int type, unsigned long from,
				   unsigned long to)
{
	unsigned long *map = afunix_autobind_map(t, type);

	to = min(to, AFUNIX_AUTOBIND_NAMES);
	if (from >= to)
		return to;
	return map ? find_next_zero_bit(map, to, from) : from;
}

/* Records autobind name @num of @type as taken or free, under its bucket lock. */
void afunix_autobind_mark(struct afunix_table *t, int type, unsigned long num, bool taken)
{
	unsigned long *map = afunix_autobind_map(t, type);

	if (!map || num >= AFUNIX_AUTOBIND_NAMES)
		return;
	if (taken)
		set_bit(num, map);
	else
		clear_bit(num, map);
}

/* Per network namespace: the name table, in storage of the module's own. */
static unsigned int afunix_net_id;
static const struct seq_operations *afunix_proc_ops;

struct afunix_net {
	struct afunix_table *table;
	int max_dgram_qlen;
	struct ctl_table *sysctl;
	struct ctl_table_header *sysctl_hdr;
};

/* net.rust_afunix.max_dgram_qlen, per netns, as net.unix.max_dgram_qlen. */
static struct ctl_table afunix_sysctl_template[] = {
	{
		.procname = "max_dgram_qlen",
		.maxlen = sizeof(int),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_INT_MAX,
	},
	{
		.procname = "abstract_buckets",
		.maxlen = sizeof(int),
		.mode = 0444,
		.proc_handler = proc_dointvec,
	},
};

static int __net_init afunix_net_init(struct net *net)
{
	struct afunix_net *an = net_generic(net, afunix_net_id);

	an->table = afunix_table_alloc();
	if (!an->table)
		return -ENOMEM;
	an->max_dgram_qlen = 10;
	an->sysctl = kmemdup(afunix_sysctl_template, sizeof(afunix_sysctl_template), GFP_KERNEL);
	if (!an->sysctl)
		goto err_table;
	an->sysctl[0].data = &an->max_dgram_qlen;
	an->sysctl[1].data = &an->table->abs_buckets;
	an->sysctl_hdr = register_net_sysctl_sz(net, "net/" KBUILD_MODNAME, an->sysctl,
						ARRAY_SIZE(afunix_sysctl_template));
	if (!an->sysctl_hdr)
		goto err_sysctl;
	if (!proc_create_net(KBUILD_MODNAME, 0444, net->proc_net, afunix_proc_ops,
			     sizeof(struct seq_net_private)))
		goto err_proc;
	return 0;

err_proc:
	unregister_net_sysctl_table(an->sysctl_hdr);
err_sysctl:
	kfree(an->sysctl);
err_table:
	afunix_table_free(an->table);
	return -ENOMEM;
}

static void __net_exit afunix_net_exit(struct net *net)
{
	struct afunix_net *an = net_generic(net, afunix_net_id);

	remove_proc_entry(KBUILD_MODNAME, net->proc_net);
	unregister_net_sysctl_table(an->sysctl_hdr);
	kfree(an->sysctl);
	afunix_table_free(an->table);
}

static struct pernet_operations afunix_net_ops = {
	.init = afunix_net_init,
	.exit = afunix_net_exit,
	.id = &afunix_net_id,
	.size = sizeof(struct afunix_net),
};

/* @proc_ops: the seq_file operations of /proc/net/rust_afunix (from the Rust side). */
int afunix_pernet_register(const struct seq_operations *proc_ops)
{
	afunix_proc_ops = proc_ops;
	return register_pernet_subsys(&afunix_net_ops);
}

void afunix_pernet_unregister(void)
{
	unregister_pernet_subsys(&afunix_net_ops);
}

struct afunix_table *afunix_net_table(struct net *net)
{
	return ((struct afunix_net *)net_generic(net, afunix_net_id))->table;
}

int afunix_max_dgram_qlen(struct net *net)
{
	return READ_ONCE(((struct afunix_net *)net_generic(net, afunix_net_id))->max_dgram_qlen);
}

struct net *afunix_sock_net(struct sock *sk)
{
	return sock_net(sk);
}

void afunix_table_lock(struct afunix_table *t, unsigned int h, bool nested)
{
	if (nested)
		spin_lock_nested(&t->locks[h], SINGLE_DEPTH_NESTING);
	else
		spin_lock(&t->locks[h]);
}

void afunix_table_unlock(struct afunix_table *t, unsigned int h)
{
	spin_unlock(&t->locks[h]);
}

/* Under the bucket lock; the table holds a reference (as AF_UNIX's). */
void afunix_table_add(struct afunix_table *t, unsigned int h, struct sock *sk)
{
	sk_add_node(sk, &t->buckets[h]);
}

/* The key is per table: names that collide in one netns do not in another. */
u32 afunix_name_hash(struct afunix_table *t, const u8 *name, size_t len)
{
	return hsiphash(name, len, &t->seed);
}

/* The chain of an abstract name hash, under the lock of its stripe. */
static struct hlist_head *afunix_abs_chain(struct afunix_table *t, u32 hash)
{
	struct afunix_chains *c = t->abs[hash & (AFUNIX_HASH_SIZE - 1)];

	return &c->heads[hash & ((1U << c->bits) - 1)];
}

struct hlist_node *afunix_table_abstract_first(struct afunix_table *t, u32 hash)
{
	return afunix_abs_chain(t, hash)->first;
}

/* Links a socket whose name hashes to @hash, under the lock of its stripe. */
void afunix_table_add_abstract(struct afunix_table *t, u32 hash, struct sock *sk)
{
	sk_add_node(sk, afunix_abs_chain(t, hash));
	if (atomic_inc_return(&t->n_abstract) > READ_ONCE(t->abs_buckets) &&
	    READ_ONCE(t->abs_buckets) < 1 << AFUNIX_ABS_MAX_BITS)
		afunix_abs_queue_resize(t);
}

/* Unlinks a socket, under the lock of its bucket; false if it was not linked. */
bool afunix_table_del(struct afunix_table *t, struct sock *sk)
{
	int n, size;

	if (!sk_del_node_init(sk))
		return false;
	if (container_of(sk, struct afunix_sock, sk)->hash < AFUNIX_HASH_SIZE)
		return true;
	n = atomic_dec_return(&t->n_abstract);
	size = READ_ONCE(t->abs_buckets);
	if (size > AFUNIX_HASH_SIZE && n < size / 4)
		afunix_abs_queue_resize(t);
	return true;
}

/*
 * For /proc: the socket after @sk in bucket @b (the first one if @sk is NULL), or NULL;
 * under the bucket's lock.
 */
struct sock *afunix_table_next(struct afunix_table *t, unsigned int b, struct sock *sk)
{
	struct afunix_chains *c;
	unsigned int i;

	if (sk && sk->sk_node.next)
		return hlist_entry(sk->sk_node.next, struct sock, sk_node);
	if (b < AFUNIX_HASH_SIZE)
		return sk ? NULL : sk_head(&t->buckets[b]);
	c = t->abs[b - AFUNIX_HASH_SIZE];
	if (sk)
		i = (container_of(sk, struct afunix_sock, sk)->name_hash &
		     ((1U << c->bits) - 1)) + AFUNIX_HASH_SIZE;
	else
		i = b - AFUNIX_HASH_SIZE;
	for (; i < 1U << c->bits; i += AFUNIX_HASH_SIZE) {
		if (!hlist_empty(&c->heads[i]))
			return sk_head(&c->heads[i]);
	}
	return NULL;
}

/* The global pathname table, keyed by inode number, linked by sk_bind_node. */
static struct hlist_head afunix_bsd_buckets[AFUNIX_HASH_SIZE];
static spinlock_t afunix_bsd_locks[AFUNIX_HASH_SIZE] = {
	[0 ... AFUNIX_HASH_SIZE - 1] = __SPIN_LOCK_UNLOCKED(afunix_bsd_locks),
};

void afunix_bsd_lock(unsigned int h)
{
	spin_lock(&afunix_bsd_locks[h]);
}

void afunix_bsd_unlock(unsigned int h)
{
	spin_unlock(&afunix_bsd_locks[h]);
}

void afunix_bsd_add(unsigned int h, struct sock *sk)
{
	sk_add_bind_node(sk, &afunix_bsd_buckets[h]);
}

/* Unlinks a pathname socket (under its bucket lock); false if it was not linked. */
bool afunix_bsd_del(struct sock *sk)
{
	if (hlist_unhashed(&sk->sk_bind_node))
		return false;
	__sk_del_bind_node(sk);
	sk_node_init(&sk->sk_bind_node);
	return true;
}

struct hlist_node *afunix_bsd_first(unsigned int h)
{
	return afunix_bsd_buckets[h].first;
}

int afunix_bindlock(struct sock *sk)
{
	return mutex_lock_interruptible(&container_of(sk, struct afunix_sock, sk)->bindlock);
}

void afunix_bindunlock(struct sock *sk)
{
	mutex_unlock(&container_of(sk, struct afunix_sock, sk)->bindlock);
}

bool afunix_test_bit(long nr, const unsigned long *addr)
{
	return test_bit(nr, addr);
}

void afunix_set_bit(long nr, unsigned long *addr)
{
	set_bit(nr, addr);
}

void afunix_cond_resched(void)
{
	cond_resched();
}

struct inode *afunix_sock_inode(struct socket *sock)
{
	return SOCK_INODE(sock);
}

/* A static inline without CONFIG_SECURITY_PATH. */
int afunix_security_path_mknod(const struct path *dir, struct dentry *dentry, umode_t mode,
			       unsigned int dev)
{
	return security_path_mknod(dir, dentry, mode, dev);
}

struct mnt_idmap *afunix_mnt_idmap(const struct vfsmount *mnt)
{
	return mnt_idmap(mnt);
}

void afunix_mknod_done(struct path *parent, struct dentry *dentry)
{
	done_path_create(parent, dentry);
}

struct dentry *afunix_dget(struct dentry *dentry)
{
	return dget(dentry);
}

int afunix_path_permission(const struct path *path, int mask)
{
	return path_permission(path, mask);
}

void afunix_path_put(struct path *path)
{
	path_put(path);
}

void afunix_touch_atime(struct path *path)
{
	touch_atime(path);
}

/* The one-byte skb that carries an embryo to its listener, charged to the embryo. */
struct sk_buff *afunix_embryo_skb(struct sock *newsk)
{
	return sock_wmalloc(newsk, 1, 0, GFP_KERNEL);
}

struct sock *afunix_skb_sock(struct sk_buff *skb)
{
	return skb->sk;
}

void afunix_sock_graft(struct sock *sk, struct socket *parent)
{
	sock_graft(sk, parent);
}

void afunix_wake_up_interruptible(struct wait_queue_head *wq)
{
	wake_up_interruptible(wq);
}

void afunix_error_report(struct sock *sk)
{
	sk_error_report(sk);
}

struct net *afunix_seq_net(struct seq_file *seq)
{
	return seq_file_net(seq);
}

unsigned int afunix_sk_refcnt(struct sock *sk)
{
	return refcount_read(&sk->sk_refcnt);
}

/* Under @wq's lock. */
void afunix___add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *entry)
{
	__add_wait_queue(wq, entry);
}

/* Under @wq's lock. */
void afunix___remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *entry)
{
	__remove_wait_queue(wq, entry);
}

long afunix_outq_len(struct sock *sk)
{
	return sk_wmem_alloc_get(sk);
}

int afunix_put_int(unsigned long arg, int val)
{
	return put_user(val, (int __user *)arg);
}

int afunix_peek_offset(struct sock *sk, int flags)
{
	return sk_peek_offset(sk, flags);
}

void afunix_peek_offset_fwd(struct sock *sk, int val)
{
	sk_peek_offset_fwd(sk, val);
}

void afunix_peek_offset_bwd(struct sock *sk, int val)
{
	sk_peek_offset_bwd(sk, val);
}

struct sk_buff_head *afunix_rcvq(struct sock *sk)
{
	return &sk->sk_receive_queue;
}
