// SPDX-License-Identifier: GPL-2.0
/*
 * Static-inline and macro kernel APIs, made callable from Rust, and the module
 * parameter that the Rust `module!` of 6.12 cannot declare. Nothing here decides
 * anything: each helper is the one call it wraps.
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

/*
 * The wake function of peer_wake (AF_UNIX's unix_dgram_peer_wake_relay()): a datagram
 * peer's queue got room; the relay unhooks itself and wakes this socket's pollers.
 * Called under the peer's peer_wait lock.
 */
static int afunix_peer_wake_relay(wait_queue_entry_t *q, unsigned int mode, int flags, void *key)
{
	struct afunix_sock *u = container_of(q, struct afunix_sock, peer_wake);
	struct afunix_sock *other = container_of((struct sock *)q->private, struct afunix_sock, sk);
	wait_queue_head_t *u_sleep;

	__remove_wait_queue(&other->peer_wq.wait, q);
	q->private = NULL;
	/* Relaying can only happen while the wait queue still exists. */
	u_sleep = sk_sleep(&u->sk);
	if (u_sleep)
		wake_up_interruptible_poll(u_sleep, key_to_poll(key));
	return 0;
}

void afunix_sock_init(struct sock *sk)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);

	spin_lock_init(&u->lock);
	u->peer = NULL;
	mutex_init(&u->iolock);
	mutex_init(&u->bindlock);
	init_waitqueue_head(&u->peer_wq.wait);
	init_waitqueue_func_entry(&u->peer_wake, afunix_peer_wake_relay);
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

void afunix_iolock(struct sock *sk)
{
	mutex_lock(&container_of(sk, struct afunix_sock, sk)->iolock);
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

void afunix_init_peercred(struct sock *sk)
{
	sk->sk_peer_pid = get_pid(task_tgid(current));
	sk->sk_peer_cred = get_current_cred();
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

void afunix_set_waitdata(struct sock *sk, bool on)
{
	if (on)
		sk_set_bit(SOCKWQ_ASYNC_WAITDATA, sk);
	else
		sk_clear_bit(SOCKWQ_ASYNC_WAITDATA, sk);
}

/* The socket's wait queue if a task sleeps on it, else NULL. Under rcu_read_lock(). */
struct wait_queue_head *afunix_sleeper_wq(struct sock *sk)
{
	struct socket_wq *wq = rcu_dereference(sk->sk_wq);

	return skwq_has_sleeper(wq) ? &wq->wait : NULL;
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

/* The tail skb of the receive queue (to compare only) and its length. */
void *afunix_rcvq_tail_mark(struct sock *sk, unsigned int *len)
{
	struct sk_buff *tail;

	spin_lock(&sk->sk_receive_queue.lock);
	tail = skb_peek_tail(&sk->sk_receive_queue);
	*len = tail ? tail->len : 0;
	spin_unlock(&sk->sk_receive_queue.lock);
	return tail;
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

/* AF_UNIX's UNIX_SKB_FRAGS_SZ: the paged part of one stream skb at most. */
unsigned long afunix_stream_frags_size(void)
{
	return PAGE_SIZE << get_order(32768);
}

/* The bucket locks of the per-netns name tables: one lock class (a key per call site). */
void afunix_table_lock_init(spinlock_t *lock)
{
	spin_lock_init(lock);
}

/* The bucket locks of the global pathname table: a lock class of their own. */
void afunix_bsd_lock_init(spinlock_t *lock)
{
	spin_lock_init(lock);
}

void afunix_spin_lock(spinlock_t *lock)
{
	spin_lock(lock);
}

/* The second of two locks of one class, taken in a fixed order by the caller. */
void afunix_spin_lock_nested(spinlock_t *lock)
{
	spin_lock_nested(lock, SINGLE_DEPTH_NESTING);
}

void afunix_spin_unlock(spinlock_t *lock)
{
	spin_unlock(lock);
}

void afunix_sk_add_node(struct sock *sk, struct hlist_head *list)
{
	sk_add_node(sk, list);
}

bool afunix_sk_del_node_init(struct sock *sk)
{
	return sk_del_node_init(sk);
}

void afunix_sk_add_bind_node(struct sock *sk, struct hlist_head *list)
{
	sk_add_bind_node(sk, list);
}

void afunix_sk_del_bind_node_init(struct sock *sk)
{
	hlist_del_init(&sk->sk_bind_node);
}

void afunix_hlist_del_init(struct hlist_node *n)
{
	hlist_del_init(n);
}

void afunix_hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	hlist_add_head(n, h);
}

u32 afunix_hsiphash(const void *data, size_t len, const hsiphash_key_t *key)
{
	return hsiphash(data, len, key);
}

/* alloc_workqueue() is a macro (printf-style name). */
struct workqueue_struct *afunix_alloc_workqueue(const char *name, unsigned int flags)
{
	return alloc_workqueue("%s", flags, 0, name);
}

/*
 * Per network namespace: a pointer to the Rust state (hash.rs's NetTable), made and
 * freed by netns.rs. 6.12 has no Rust pernet_operations, so C registers them.
 */
static unsigned int afunix_net_id;

static int __net_init afunix_net_init(struct net *net)
{
	return rust_afunix_net_init(net, net_generic(net, afunix_net_id));
}

static void __net_exit afunix_net_exit(struct net *net)
{
	rust_afunix_net_exit(net, net_generic(net, afunix_net_id));
}

static struct pernet_operations afunix_net_ops = {
	.init = afunix_net_init,
	.exit = afunix_net_exit,
	.id = &afunix_net_id,
	.size = sizeof(void *),
};

int afunix_pernet_register(void)
{
	return register_pernet_subsys(&afunix_net_ops);
}

void afunix_pernet_unregister(void)
{
	unregister_pernet_subsys(&afunix_net_ops);
}

void *afunix_net_state(struct net *net)
{
	return *(void **)net_generic(net, afunix_net_id);
}

struct net *afunix_sock_net(struct sock *sk)
{
	return sock_net(sk);
}

/* The sysctl template needs the SYSCTL_* macros: net.rust_afunix.*, per netns. */
static const struct ctl_table afunix_sysctl_template[] = {
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

/* Registers a copy of the template for @net, its data in the Rust per-netns state. */
struct ctl_table_header *afunix_sysctl_register(struct net *net, int *max_dgram_qlen,
						int *abstract_buckets)
{
	struct ctl_table *t = kmemdup(afunix_sysctl_template, sizeof(afunix_sysctl_template),
				      GFP_KERNEL);
	struct ctl_table_header *hdr;

	if (!t)
		return NULL;
	t[0].data = max_dgram_qlen;
	t[1].data = abstract_buckets;
	hdr = register_net_sysctl_sz(net, "net/" KBUILD_MODNAME, t,
				     ARRAY_SIZE(afunix_sysctl_template));
	if (!hdr)
		kfree(t);
	return hdr;
}

void afunix_sysctl_unregister(struct ctl_table_header *hdr)
{
	const struct ctl_table *t = hdr->ctl_table_arg;

	unregister_net_sysctl_table(hdr);
	kfree(t);
}

/* proc_create_net() is a macro. */
struct proc_dir_entry *afunix_proc_create(struct net *net, const struct seq_operations *ops)
{
	return proc_create_net(KBUILD_MODNAME, 0444, net->proc_net, ops,
			       sizeof(struct seq_net_private));
}

void afunix_proc_remove(struct net *net)
{
	remove_proc_entry(KBUILD_MODNAME, net->proc_net);
}

int afunix_bindlock(struct sock *sk)
{
	return mutex_lock_interruptible(&container_of(sk, struct afunix_sock, sk)->bindlock);
}

void afunix_bindunlock(struct sock *sk)
{
	mutex_unlock(&container_of(sk, struct afunix_sock, sk)->bindlock);
}

/* SO_PASSCRED or SO_PASSPIDFD: connect and send autobind an unbound socket. */
bool afunix_passcred(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;

	return sock && (test_bit(SOCK_PASSCRED, &sock->flags) ||
			test_bit(SOCK_PASSPIDFD, &sock->flags));
}

void afunix_cond_resched(void)
{
	cond_resched();
}

/*
 * Creates the socket inode of a pathname bind, relative to the caller's cwd, with the
 * socket's mode under the caller's umask. On success, returns the new dentry with
 * *parent held: afunix_mknod_done() ends the creation (after afunix_mknod_unlink() if
 * the bind fails after all).
 */
struct dentry *afunix_mknod(struct sock *sk, const char *name, struct path *parent)
{
	umode_t mode = S_IFSOCK | (SOCK_INODE(sk->sk_socket)->i_mode & ~current_umask());
	struct dentry *dentry;
	int err;

	dentry = kern_path_create(AT_FDCWD, name, parent, 0);
	if (IS_ERR(dentry))
		return dentry;
	err = security_path_mknod(parent, dentry, mode, 0);
	if (!err)
		err = vfs_mknod(mnt_idmap(parent->mnt), d_inode(parent->dentry), dentry, mode, 0);
	if (err) {
		done_path_create(parent, dentry);
		return ERR_PTR(err);
	}
	return dentry;
}

void afunix_mknod_unlink(struct path *parent, struct dentry *dentry)
{
	vfs_unlink(mnt_idmap(parent->mnt), d_inode(parent->dentry), dentry, NULL);
}

void afunix_mknod_done(struct path *parent, struct dentry *dentry)
{
	done_path_create(parent, dentry);
}

/* Records the socket inode's path in a socket being bound (before it is published). */
void afunix_set_path(struct sock *sk, struct path *parent, struct dentry *dentry)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);

	u->path.mnt = mntget(parent->mnt);
	u->path.dentry = dget(dentry);
	u->inode = d_backing_inode(dentry);
	u->ino = u->inode->i_ino;
}

/* An accepted socket shares its listener's path (before it is published). */
void afunix_copy_path(struct sock *sk, struct sock *from)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);
	struct afunix_sock *f = container_of(from, struct afunix_sock, sk);

	if (f->path.dentry) {
		path_get(&f->path);
		u->path = f->path;
	}
}

/* On release: drops the path (the socket is out of every table). */
void afunix_release_path(struct sock *sk)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);
	struct path path;

	spin_lock(&u->lock);
	path = u->path;
	u->path.dentry = NULL;
	u->path.mnt = NULL;
	spin_unlock(&u->lock);
	if (path.dentry)
		path_put(&path);
}

/*
 * The socket inode a connect/sendto names (unix_find_bsd()): resolved with the
 * caller's cwd and root, write permission needed, ECONNREFUSED if not a socket. On
 * success *path is held (afunix_path_put()) and *inode is the inode.
 */
int afunix_lookup_socket_inode(const char *name, struct path *path, struct inode **inode)
{
	int err;

	err = kern_path(name, LOOKUP_FOLLOW, path);
	if (err)
		return err;
	err = path_permission(path, MAY_WRITE);
	if (!err && !S_ISSOCK(d_backing_inode(path->dentry)->i_mode))
		err = -ECONNREFUSED;
	if (err) {
		path_put(path);
		return err;
	}
	*inode = d_backing_inode(path->dentry);
	return 0;
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

/* Under the state lock of @from. */
void afunix_copy_peercred(struct sock *sk, struct sock *from)
{
	spin_lock(&sk->sk_peer_lock);
	sk->sk_peer_pid = get_pid(from->sk_peer_pid);
	sk->sk_peer_cred = get_cred(from->sk_peer_cred);
	spin_unlock(&sk->sk_peer_lock);
}

void afunix_update_peercred(struct sock *sk)
{
	const struct cred *old_cred;
	struct pid *old_pid;

	spin_lock(&sk->sk_peer_lock);
	old_pid = sk->sk_peer_pid;
	old_cred = sk->sk_peer_cred;
	sk->sk_peer_pid = get_pid(task_tgid(current));
	sk->sk_peer_cred = get_current_cred();
	spin_unlock(&sk->sk_peer_lock);
	put_pid(old_pid);
	put_cred(old_cred);
}

void afunix_sock_graft(struct sock *sk, struct socket *parent)
{
	sock_graft(sk, parent);
}

void afunix_inherit_flags(struct socket *old, struct socket *new)
{
	if (test_bit(SOCK_PASSCRED, &old->flags))
		set_bit(SOCK_PASSCRED, &new->flags);
	if (test_bit(SOCK_PASSPIDFD, &old->flags))
		set_bit(SOCK_PASSPIDFD, &new->flags);
	if (test_bit(SOCK_PASSSEC, &old->flags))
		set_bit(SOCK_PASSSEC, &new->flags);
}

void afunix_wake_up_interruptible(struct wait_queue_head *wq)
{
	wake_up_interruptible(wq);
}

/*
 * Called with @other's state lock held, which it releases: sleeps on @other's peer_wait
 * until its queue has room (unix_wait_for_peer()). Returns the time left.
 */
long afunix_wait_for_peer(struct sock *other, long timeo)
	__releases(&container_of(other, struct afunix_sock, sk)->lock)
{
	struct afunix_sock *u = container_of(other, struct afunix_sock, sk);
	bool sched;
	DEFINE_WAIT(wait);

	prepare_to_wait_exclusive(&u->peer_wq.wait, &wait, TASK_INTERRUPTIBLE);
	sched = !sock_flag(other, SOCK_DEAD) &&
		!(other->sk_shutdown & RCV_SHUTDOWN) &&
		skb_queue_len_lockless(&other->sk_receive_queue) > READ_ONCE(other->sk_max_ack_backlog);
	spin_unlock(&u->lock);
	if (sched)
		timeo = schedule_timeout(timeo);
	finish_wait(&u->peer_wq.wait, &wait);
	return timeo;
}

void afunix_error_report(struct sock *sk)
{
	sk_error_report(sk);
}

struct net *afunix_seq_net(struct seq_file *seq)
{
	return seq_file_net(seq);
}

void afunix_seq_header(struct seq_file *seq)
{
	seq_puts(seq, "Num       RefCount Protocol Flags    Type St Inode Path\n");
}

/*
 * One line of /proc/net/rust_afunix, in the format of /proc/net/unix. @path is the
 * bound name (sun_path, @len bytes, a pathname without its NUL), or NULL. Called under
 * the socket's bucket lock.
 */
void afunix_seq_show_sock(struct seq_file *seq, struct sock *s, const char *path, int len)
{
	struct afunix_sock *u = container_of(s, struct afunix_sock, sk);
	int i = 0;

	spin_lock(&u->lock);
	seq_printf(seq, "%pK: %08X %08X %08X %04X %02X %5lu", s,
		   refcount_read(&s->sk_refcnt), 0,
		   s->sk_state == TCP_LISTEN ? __SO_ACCEPTCON : 0, s->sk_type,
		   s->sk_socket ?
		   (s->sk_state == TCP_ESTABLISHED ? SS_CONNECTED : SS_UNCONNECTED) :
		   (s->sk_state == TCP_ESTABLISHED ? SS_CONNECTING : SS_DISCONNECTING),
		   sock_i_ino(s));
	if (path) {
		seq_putc(seq, ' ');
		if (!path[0]) {
			seq_putc(seq, '@');
			i++;
		}
		for (; i < len; i++)
			seq_putc(seq, path[i] ?: '@');
	}
	spin_unlock(&u->lock);
	seq_putc(seq, '\n');
}

/* Hooks @sk's relay on @other's peer_wait, unless hooked already; true if it hooked. */
bool afunix_peer_wake_connect(struct sock *sk, struct sock *other)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);
	struct afunix_sock *o = container_of(other, struct afunix_sock, sk);
	bool hooked = false;

	spin_lock(&o->peer_wq.wait.lock);
	if (!u->peer_wake.private) {
		u->peer_wake.private = other;
		__add_wait_queue(&o->peer_wq.wait, &u->peer_wake);
		hooked = true;
	}
	spin_unlock(&o->peer_wq.wait.lock);
	return hooked;
}

/* Unhooks @sk's relay from @other's peer_wait, if it is there. */
void afunix_peer_wake_disconnect(struct sock *sk, struct sock *other)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);
	struct afunix_sock *o = container_of(other, struct afunix_sock, sk);

	spin_lock(&o->peer_wq.wait.lock);
	if (u->peer_wake.private == other) {
		__remove_wait_queue(&o->peer_wq.wait, &u->peer_wake);
		u->peer_wake.private = NULL;
	}
	spin_unlock(&o->peer_wq.wait.lock);
}

/* Wakes @sk's pollers that wait to write. */
void afunix_wake_up_writers(struct sock *sk)
{
	wake_up_interruptible_poll(sk_sleep(sk), EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
}

/* SIOCINQ of a socket that is not listening (unix_inq_len()). */
long afunix_inq_len(struct sock *sk)
{
	struct sk_buff *skb;
	long amount = 0;

	spin_lock(&sk->sk_receive_queue.lock);
	if (sk->sk_type == SOCK_STREAM || sk->sk_type == SOCK_SEQPACKET) {
		skb_queue_walk(&sk->sk_receive_queue, skb)
			amount += skb->len - ((struct afunix_skb_cb *)skb->cb)->consumed;
	} else {
		skb = skb_peek(&sk->sk_receive_queue);
		if (skb)
			amount = skb->len;
	}
	spin_unlock(&sk->sk_receive_queue.lock);
	return amount;
}

long afunix_outq_len(struct sock *sk)
{
	return sk_wmem_alloc_get(sk);
}

int afunix_put_int(unsigned long arg, int val)
{
	return put_user(val, (int __user *)arg);
}

/* SIOCUNIXFILE: an O_PATH fd of a bound pathname socket's inode (unix_open_file()). */
int afunix_open_file(struct sock *sk, bool bound)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);
	struct path path;
	struct file *f;
	int fd;

	if (!ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (!bound)
		return -ENOENT;
	spin_lock(&u->lock);
	path = u->path;
	if (path.dentry)
		path_get(&path);
	spin_unlock(&u->lock);
	if (!path.dentry)
		return -ENOENT;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		goto out;
	f = dentry_open(&path, O_PATH, current_cred());
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		fd = PTR_ERR(f);
		goto out;
	}
	fd_install(fd, f);
out:
	path_put(&path);
	return fd;
}

/* proto_ops::set_peek_off (SO_PEEK_OFF), under the reader lock as AF_UNIX. */
int afunix_set_peek_off(struct sock *sk, int val)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);

	if (mutex_lock_interruptible(&u->iolock))
		return -EINTR;
	WRITE_ONCE(sk->sk_peek_off, val);
	mutex_unlock(&u->iolock);
	return 0;
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
