// SPDX-License-Identifier: GPL-2.0
/*
 * The C side of rust_afunix: no loop, no policy, no data structure of its own. It holds
 *  - one-call wrappers of static inline functions and macros, as the kernel's own
 *    files of rust/helpers/ (bindgen cannot call those);
 *  - what 6.12 forces into C, each saying why: lock and wait-queue initialisers (each
 *    call site of spin_lock_init(), mutex_init() and init_waitqueue_head() is the static
 *    lockdep key of a lock class), and a few calls that need a macro's view of a struct.
 * Kbuild links this file's bitcode into the crate's, each function a private copy that
 * LLVM inlines into its Rust callers (or, without a matching LLVM, a plain object); so
 * nothing here may be a definition the module needs once: that is afunix_glue.c.
 * Everything else, the name tables, their resize and the autobind map included, is
 * Rust: see README.md, "Layout".
 */
#include <linux/fs_struct.h>
#include <linux/kcov.h>
#include <linux/module.h>
#include <linux/security.h>
#include <net/netns/generic.h>

#include "afunix_bindings.h"

/*
 * A helper of the data path that LLVM left as a call in its Rust caller (a dozen
 * instructions a write or a connect, measured with scripts/profile): in the inlined
 * build, inlined always. That also skips LLVM's check of the caller's and callee's
 * attributes (as 7.3's __rust_helper does): only for helpers without FP, SIMD or
 * builtins. The plain build keeps them calls.
 */
#define AFUNIX_HOT __always_inline

/*
 * Lockdep's word on the two locks of one class a task may hold at once (api/mod.rs, "Lock
 * order"), as AF_UNIX's since 6.10: both taken without a subclass, these say which first.
 */
#ifdef CONFIG_PROVE_LOCKING
#define afunix_cmp_ptr(l, r)	(((l) > (r)) - ((l) < (r)))

static int afunix_state_lock_cmp_fn(const struct lockdep_map *_a, const struct lockdep_map *_b)
{
	const struct unix_sock *a = container_of(_a, struct unix_sock, lock.dep_map);
	const struct unix_sock *b = container_of(_b, struct unix_sock, lock.dep_map);

	/* Connect: the listener's, then the client's, which may connect or listen meanwhile. */
	if (READ_ONCE(a->sk.sk_state) == TCP_LISTEN) {
		switch (READ_ONCE(b->sk.sk_state)) {
		case TCP_CLOSE:
		case TCP_ESTABLISHED:
		case TCP_LISTEN:
			return -1;
		default:
			return 0;
		}
	}
	/* Never the other way round. */
	if (READ_ONCE(b->sk.sk_state) == TCP_LISTEN)
		return 1;
	/* Sock::lock_pair(): ascending address. */
	return afunix_cmp_ptr(a, b);
}

/* The collector: a listener's queue, then one of its embryos' (whose listener it is). */
static int afunix_rcvq_lock_cmp_fn(const struct lockdep_map *_a, const struct lockdep_map *_b)
{
	const struct sock *a = container_of(_a, struct sock, sk_receive_queue.lock.dep_map);
	const struct sock *b = container_of(_b, struct sock, sk_receive_queue.lock.dep_map);

	if (READ_ONCE(a->sk_state) == TCP_LISTEN && READ_ONCE(unix_sk(b)->listener) == a)
		return -1;
	if (READ_ONCE(b->sk_state) == TCP_LISTEN && READ_ONCE(unix_sk(a)->listener) == b)
		return 1;
	return 0;
}
#endif

/*
 * The initialisers of a new socket's locks and wait queue: one lockdep class each, named
 * after the parameter.
 */
void afunix_init_state_lock(spinlock_t *state_lock)
{
	spin_lock_init(state_lock);
	lock_set_cmp_fn(state_lock, afunix_state_lock_cmp_fn, NULL);
}

/*
 * The receive queue's lock, after sock_init_data(): a class of the module's own, as the
 * core's (one per family number) would keep the order function past an unload.
 */
void afunix_init_rcvq_lock(struct sock *sk)
{
	static struct lock_class_key rcvq_key;

	lockdep_set_class_and_name(&sk->sk_receive_queue.lock, &rcvq_key, "rlock-rust_afunix");
	lock_set_cmp_fn(&sk->sk_receive_queue.lock, afunix_rcvq_lock_cmp_fn, NULL);
}

void afunix_init_iolock(struct mutex *iolock)
{
	mutex_init(iolock);
}

void afunix_init_bindlock(struct mutex *bindlock)
{
	mutex_init(bindlock);
}

void afunix_init_peer_wait(struct wait_queue_head *peer_wait)
{
	init_waitqueue_head(peer_wait);
}

void afunix_set_sk_wq(struct sock *sk, struct socket_wq *wq)
{
	RCU_INIT_POINTER(sk->sk_wq, wq);
}

/* Any other spinlock: a table bucket's, a receive queue's, a wait queue's, sk_peer_lock. */
void afunix_spin_lock(spinlock_t *lock)
{
	spin_lock(lock);
}

void afunix_spin_unlock(spinlock_t *lock)
{
	spin_unlock(lock);
}

void afunix_mutex_lock(struct mutex *lock)
{
	mutex_lock(lock);
}

int afunix_mutex_lock_interruptible(struct mutex *lock)
{
	return mutex_lock_interruptible(lock);
}

AFUNIX_HOT void afunix_sock_hold(struct sock *sk)
{
	sock_hold(sk);
}

AFUNIX_HOT bool afunix_sock_refcnt_dec_and_test(struct sock *sk)
{
	return refcount_dec_and_test(&sk->sk_refcnt);
}

unsigned int afunix_sock_refcnt(struct sock *sk)
{
	return refcount_read(&sk->sk_refcnt);
}

void afunix_sock_orphan(struct sock *sk)
{
	sock_orphan(sk);
}

struct task_struct *afunix_current_task(void)
{
	return current;
}

struct pid *afunix_current_tgid(void)
{
	return task_tgid(current);
}

AFUNIX_HOT struct pid *afunix_get_pid(struct pid *pid)
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

void afunix_wmem_charge(struct sock *sk, unsigned int bytes)
{
	refcount_add(bytes, &sk->sk_wmem_alloc);
}

/* C: ip_summed is a bitfield inside sk_buff's struct_group(headers). */
void afunix_skb_set_csum_unnecessary(struct sk_buff *skb)
{
	skb->ip_summed = CHECKSUM_UNNECESSARY;
}

struct wait_queue_head *afunix_sk_sleep(struct sock *sk)
{
	return sk_sleep(sk);
}

/*
 * sk_set_bit()/sk_clear_bit() for any live sk, not only the caller's own: sk_wq is
 * NULL once the socket is orphaned, and its socket_wq is freed a grace period later.
 */
static void afunix_wq_bit(struct sock *sk, int nr, bool on)
{
	struct socket_wq *wq;

	if (!sock_flag(sk, SOCK_FASYNC))
		return;
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (wq) {
		if (on)
			set_bit(nr, &wq->flags);
		else
			clear_bit(nr, &wq->flags);
	}
	rcu_read_unlock();
}

void afunix_set_nospace(struct sock *sk)
{
	afunix_wq_bit(sk, SOCKWQ_ASYNC_NOSPACE, true);
}

void afunix_set_waitdata(struct sock *sk)
{
	afunix_wq_bit(sk, SOCKWQ_ASYNC_WAITDATA, true);
}

void afunix_clear_waitdata(struct sock *sk)
{
	afunix_wq_bit(sk, SOCKWQ_ASYNC_WAITDATA, false);
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

/* A stream write appended to the tail skb (net.rust_afunix.stream_coalesce). */
unsigned int afunix_skb_tailroom(const struct sk_buff *skb)
{
	return skb_tailroom(skb);
}

int afunix_skb_cloned(const struct sk_buff *skb)
{
	return skb_cloned(skb);
}

void afunix_skb_put_data(struct sk_buff *skb, const void *data, unsigned int len)
{
	skb_put_data(skb, data, len);
}

unsigned char *afunix_skb_tail_pointer(const struct sk_buff *skb)
{
	return skb_tail_pointer(skb);
}

bool afunix_copy_from_iter_full(void *addr, size_t bytes, struct iov_iter *i)
{
	return copy_from_iter_full(addr, bytes, i);
}

/*
 * skb_copy_datagram_iter() of `len` bytes at `offset` of a linear skb, without
 * reading skb->len (a coalesced write may grow it meanwhile): 0, or -EFAULT with the
 * iterator where it was.
 */
int afunix_skb_copy_linear(const struct sk_buff *skb, int offset, struct iov_iter *to,
			   int len)
{
	size_t n = copy_to_iter(skb->data + offset, len, to);

	if (n == (size_t)len || !iov_iter_count(to))
		return 0;
	iov_iter_revert(to, n);
	return -EFAULT;
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

/* The bucket locks of the per-netns name tables: one lock class (a key per call site). */
void afunix_table_lock_init(spinlock_t *table_bucket_lock)
{
	spin_lock_init(table_bucket_lock);
}

/* The bucket locks of the global pathname table: a lock class of their own. */
void afunix_bsd_lock_init(spinlock_t *bsd_bucket_lock)
{
	spin_lock_init(bsd_bucket_lock);
}

/* The second of two locks of one class, taken in a fixed order by the caller. */
void afunix_spin_lock_nested(spinlock_t *lock)
{
	spin_lock_nested(lock, SINGLE_DEPTH_NESTING);
}

/*
 * Before the second of two state locks, and an embryo's queue lock under its listener's:
 * lockdep asks an order function only when it first sees a chain of lock classes, so
 * each pair is checked here too, every time it is taken.
 */
void afunix_assert_state_lock_order(spinlock_t *first, spinlock_t *second)
{
#ifdef CONFIG_PROVE_LOCKING
	lockdep_assert_held(first);
	lockdep_assert_once(afunix_state_lock_cmp_fn(&first->dep_map, &second->dep_map) < 0);
#endif
}

void afunix_assert_rcvq_lock_order(struct sock *listener, struct sock *embryo)
{
#ifdef CONFIG_PROVE_LOCKING
	lockdep_assert_held(&listener->sk_receive_queue.lock);
	lockdep_assert_once(afunix_rcvq_lock_cmp_fn(&listener->sk_receive_queue.lock.dep_map,
						    &embryo->sk_receive_queue.lock.dep_map) < 0);
#endif
}

/* An embryo's state lock, under its listener's and its client's (see api/sock.rs). */
void afunix_spin_lock_third(spinlock_t *lock)
{
	spin_lock_nested(lock, SINGLE_DEPTH_NESTING + 1);
}

/* The _rcu hlist inlines: the chains are walked under rcu_read_lock() (api/list.rs). */
AFUNIX_HOT void afunix_sk_add_node_rcu(struct sock *sk, struct hlist_head *list)
{
	sk_add_node_rcu(sk, list);
}

void afunix_hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h)
{
	hlist_add_head_rcu(n, h);
}

void afunix_hlist_del_init_rcu(struct hlist_node *n)
{
	hlist_del_init_rcu(n);
}

void afunix_hlist_del_rcu(struct hlist_node *n)
{
	hlist_del_rcu(n);
}

/* Drops a reference that is not the last (the table's, at unlink). */
void afunix___sock_put(struct sock *sk)
{
	__sock_put(sk);
}

/* refcount_inc_not_zero(): a reference to a socket reached under RCU, maybe dying. */
AFUNIX_HOT bool afunix_sock_hold_not_zero(struct sock *sk)
{
	return refcount_inc_not_zero(&sk->sk_refcnt);
}

/* net_generic() is an inline; afunix_net_id is afunix_glue.c's. */
AFUNIX_HOT void *afunix_net_state(struct net *net)
{
	return *(void **)net_generic(net, afunix_net_id);
}

/* READ_ONCE(net->unx.sysctl_max_dgram_qlen): AF_UNIX's sysctl, which the family follows. */
int afunix_unix_max_dgram_qlen(const struct net *net)
{
	return READ_ONCE(net->unx.sysctl_max_dgram_qlen);
}

struct net *afunix_sock_net(struct sock *sk)
{
	return sock_net(sk);
}

/*
 * proc_create_net() is a macro. Each open file's private state is its seq_net_private
 * and then state_size bytes of the Rust walk's own (api/seq.rs).
 */
struct proc_dir_entry *afunix_proc_create(struct net *net, const struct seq_operations *ops,
					  unsigned int state_size)
{
	return proc_create_net(KBUILD_MODNAME, 0444, net->proc_net, ops,
			       sizeof(struct seq_net_private) + state_size);
}

/* The Rust walk's state of a file made by afunix_proc_create(). */
void *afunix_seq_state(struct seq_file *seq)
{
	return (char *)seq->private + sizeof(struct seq_net_private);
}

void afunix_proc_remove(struct net *net)
{
	remove_proc_entry(KBUILD_MODNAME, net->proc_net);
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

/* A static inline without CONFIG_SECURITY_NETWORK. */
int afunix_security_unix_stream_connect(struct sock *sk, struct sock *other, struct sock *newsk)
{
	return security_unix_stream_connect(sk, other, newsk);
}

/* A static inline without CONFIG_SECURITY_NETWORK. */
int afunix_security_unix_may_send(struct socket *sock, struct socket *other)
{
	return security_unix_may_send(sock, other);
}

/*
 * security_unix_find() (7.1, Landlock's LANDLOCK_ACCESS_FS_RESOLVE_UNIX): may the caller
 * reach the pathname socket other by path? Not in 6.12: everything is allowed there.
 */
int afunix_security_unix_find(const struct path *path, struct sock *other, int flags)
{
	/*
	 * Landlock takes other's state lock: held by the caller, a self-deadlock, which
	 * lockdep reports here on both lines, with or without a Landlock domain.
	 */
	lockdep_assert_not_held(&unix_sk(other)->lock);
#ifdef AFUNIX_KLINE_7_3
	return security_unix_find(path, other, flags);
#else
	return 0;
#endif
}

/* unix_get_peersec_dgram() of <net/scm.h>, a static inline (the secid stays 0 on error). */
u32 afunix_security_peersec_dgram(struct socket *sock)
{
	u32 secid = 0;

	security_socket_getpeersec_dgram(sock, NULL, &secid);
	return secid;
}

/*
 * scm_passec() of <net/scm.h>, a static inline; scm_cookie has a secid only with LSM hooks.
 * 7.3's is static in net/core/scm.c: the same, over the sock's flag and an lsm_context.
 */
void afunix_scm_passec(struct socket *sock, struct msghdr *msg, u32 secid)
{
#if defined(CONFIG_SECURITY_NETWORK) && defined(AFUNIX_KLINE_7_3)
	struct lsm_context ctx;

	if (sock->sk->sk_scm_security && security_secid_to_secctx(secid, &ctx) >= 0) {
		put_cmsg(msg, SOL_SOCKET, SCM_SECURITY, ctx.len, ctx.context);
		security_release_secctx(&ctx);
	}
#elif defined(CONFIG_SECURITY_NETWORK)
	struct scm_cookie scm = { .secid = secid };

	scm_passec(sock, msg, &scm);
#endif
}

/* __net_timestamp(), a static inline. */
void afunix_net_timestamp(struct sk_buff *skb)
{
	__net_timestamp(skb);
}

/* copy_from_sockptr(), a static inline: 0, or the bytes not copied. */
int afunix_copy_from_sockptr(void *dst, sockptr_t src, size_t size)
{
	return copy_from_sockptr(dst, src, size);
}

/* sk_filter(), a static inline. */
int afunix_sk_filter(struct sock *sk, struct sk_buff *skb)
{
	return sk_filter(sk, skb);
}

struct mnt_idmap *afunix_mnt_idmap(const struct vfsmount *mnt)
{
	return mnt_idmap(mnt);
}

/*
 * The kernel lines (issue 36, Kbuild's AFUNIX_KLINE_*) differ in these; the Rust side
 * calls one name. 6.18 renamed kern_path_create()/done_path_create() to
 * start_creating_path()/end_creating_path().
 */
void afunix_mknod_done(struct path *parent, struct dentry *dentry)
{
#ifdef AFUNIX_KLINE_7_3
	end_creating_path(parent, dentry);
#else
	done_path_create(parent, dentry);
#endif
}

struct dentry *afunix_path_create(const char *name, struct path *parent)
{
#ifdef AFUNIX_KLINE_7_3
	return start_creating_path(AT_FDCWD, name, parent, 0);
#else
	return kern_path_create(AT_FDCWD, name, parent, 0);
#endif
}

/* 6.18's vfs_mknod() and vfs_unlink() take a delegated inode (NULL: none waited for). */
int afunix_vfs_mknod(struct mnt_idmap *idmap, struct inode *dir, struct dentry *dentry,
		     umode_t mode)
{
#ifdef AFUNIX_KLINE_7_3
	return vfs_mknod(idmap, dir, dentry, mode, 0, NULL);
#else
	return vfs_mknod(idmap, dir, dentry, mode, 0);
#endif
}

/* sock_i_uid() is sk_uid(), a static inline, since 6.16. */
kuid_t afunix_sock_uid(struct sock *sk)
{
#ifdef AFUNIX_KLINE_7_3
	return sk_uid(sk);
#else
	return sock_i_uid(sk);
#endif
}

#ifdef AFUNIX_KLINE_7_3
/*
 * Since 6.16 the SO_PASS* flags are bitfields of the sock (sk_scm_recv_flags), and the
 * core's sk_setsockopt() sets SO_PASSCRED and SO_PASSSEC for AF_UNIX, AF_NETLINK and
 * AF_BLUETOOTH only and SO_PASSPIDFD for AF_UNIX only: the family sets them here. Read
 * and written as AF_UNIX does (plain bitfield accesses; written under lock_sock()).
 */
unsigned int afunix_sk_pass_flags(const struct sock *sk)
{
	return (sk->sk_scm_credentials ? BIT(AFUNIX_PASS_CRED) : 0) |
	       (sk->sk_scm_security ? BIT(AFUNIX_PASS_SEC) : 0) |
	       (sk->sk_scm_pidfd ? BIT(AFUNIX_PASS_PIDFD) : 0);
}

/* Sets (on) or clears one afunix_sk_pass_flags() bit, under lock_sock() as AF_UNIX. */
void afunix_sk_set_pass_flag(struct sock *sk, unsigned int bit, bool on)
{
	unsigned int flags;

	lock_sock(sk);
	flags = afunix_sk_pass_flags(sk);
	flags = on ? flags | BIT(bit) : flags & ~BIT(bit);
	sk->sk_scm_credentials = !!(flags & BIT(AFUNIX_PASS_CRED));
	sk->sk_scm_security = !!(flags & BIT(AFUNIX_PASS_SEC));
	sk->sk_scm_pidfd = !!(flags & BIT(AFUNIX_PASS_PIDFD));
	release_sock(sk);
}

/* unix_stream_connect(): the embryo takes the listener's flags. */
void afunix_sk_copy_pass_flags(struct sock *sk, const struct sock *from)
{
	sk->sk_scm_recv_flags = from->sk_scm_recv_flags;
}
#endif

/* sock_i_ino() is a static inline since 6.16. */
unsigned long afunix_sock_ino(struct sock *sk)
{
	return sock_i_ino(sk);
}

/* mutex_trylock() is a macro (_mutex_trylock_nest_lock()) since 6.16. */
int afunix_mutex_trylock(struct mutex *lock)
{
	return mutex_trylock(lock);
}

/* current_umask() is a static inline of <linux/fs_struct.h> since 6.16. */
int afunix_current_umask(void)
{
	return current_umask();
}

/* f_path is in an anonymous union of struct file (with __f_path) since 6.17. */
struct dentry *afunix_file_dentry(const struct file *file)
{
	return file->f_path.dentry;
}

/* d_name is in an anonymous union of struct dentry (with __d_name) since 6.17. */
const unsigned char *afunix_dentry_name(const struct dentry *dentry, unsigned int *len)
{
	*len = dentry->d_name.len;
	return dentry->d_name.name;
}

/* alloc_workqueue() is a macro (alloc_workqueue_noprof(), memory allocation profiling). */
struct workqueue_struct *afunix_alloc_workqueue(const char *name, unsigned int flags)
{
	return alloc_workqueue("%s", flags, 0, name);
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

#ifdef CONFIG_COMPAT
unsigned long afunix_compat_arg(unsigned long arg)
{
	return (unsigned long)compat_ptr(arg);
}
#endif

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

/* SCM_RIGHTS: files in flight (file_count(), get_file(), file_inode() are inlines). */
long afunix_file_count(struct file *file)
{
	return file_count(file);
}

struct file *afunix_get_file(struct file *file)
{
	return get_file(file);
}

/*
 * An fd list with room for max files (kfree'd by __scm_destroy(), which reads only the
 * first count): scm_fp_copy()'s allocation, cut to the slots used.
 */
struct scm_fp_list *afunix_fpl_alloc(unsigned int max)
{
	return kmalloc(offsetof(struct scm_fp_list, fp) + max * sizeof(struct file *),
		       GFP_KERNEL_ACCOUNT);
}

/* A bound address, as unix_create_addr() allocates one (kfree'd by its last put). */
void *afunix_addr_alloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

unsigned long afunix_rlimit_nofile(void)
{
	return rlimit(RLIMIT_NOFILE);
}

/* The collector's lock: a lock class of its own. */
void afunix_gc_lock_init(spinlock_t *gc_lock)
{
	spin_lock_init(gc_lock);
}

/* The collector's list of sockets in flight (list.h is all inlines). */
void afunix_list_init(struct list_head *list)
{
	INIT_LIST_HEAD(list);
}

void afunix_list_add_tail(struct list_head *entry, struct list_head *head)
{
	list_add_tail(entry, head);
}

void afunix_list_del(struct list_head *entry)
{
	list_del(entry);
}

void afunix_list_move(struct list_head *entry, struct list_head *head)
{
	list_move(entry, head);
}

/* The collector's hit list: skb queue inlines, used under the queues' locks. */
void afunix_skb_queue_head_init(struct sk_buff_head *list)
{
	__skb_queue_head_init(list);
}

void afunix_skb_queue_splice_tail_init(struct sk_buff_head *list, struct sk_buff_head *head)
{
	skb_queue_splice_tail_init(list, head);
}

struct sk_buff *afunix_skb_dequeue_unlocked(struct sk_buff_head *list)
{
	return __skb_dequeue(list);
}

/* MSG_OOB: the socket's SO_OOBINLINE flag, and queue inlines used under the queue lock. */
bool afunix_sock_urginline(const struct sock *sk)
{
	return sock_flag(sk, SOCK_URGINLINE);
}

void afunix_skb_queue_tail_locked(struct sk_buff_head *list, struct sk_buff *skb)
{
	__skb_queue_tail(list, skb);
}

void afunix_skb_unlink_locked(struct sk_buff *skb, struct sk_buff_head *list)
{
	__skb_unlink(skb, list);
}

/* sock_diag (diag.rs): the netlink and sock_diag inlines. */
struct nlmsghdr *afunix_nlmsg_put(struct sk_buff *skb, u32 portid, u32 seq, int type,
				  int payload, int flags)
{
	return nlmsg_put(skb, portid, seq, type, payload, flags);
}

void *afunix_nlmsg_data(const struct nlmsghdr *nlh)
{
	return nlmsg_data(nlh);
}

int afunix_nlmsg_len(const struct nlmsghdr *nlh)
{
	return nlmsg_len(nlh);
}

void afunix_nlmsg_end(struct sk_buff *skb, struct nlmsghdr *nlh)
{
	nlmsg_end(skb, nlh);
}

void afunix_nlmsg_cancel(struct sk_buff *skb, struct nlmsghdr *nlh)
{
	nlmsg_cancel(skb, nlh);
}

struct sk_buff *afunix_nlmsg_new(size_t payload)
{
	return nlmsg_new(payload, GFP_KERNEL);
}

void afunix_nlmsg_free(struct sk_buff *skb)
{
	nlmsg_free(skb);
}

void *afunix_nla_data(const struct nlattr *nla)
{
	return nla_data(nla);
}

int afunix_skb_len(const struct sk_buff *skb)
{
	return skb->len;
}

struct net *afunix_skb_net(const struct sk_buff *skb)
{
	return sock_net(skb->sk);
}

u32 afunix_netlink_portid(const struct sk_buff *skb)
{
	return NETLINK_CB(skb).portid;
}

/* The user namespace of a dump's socket (unix_diag_dump: sk_user_ns(skb->sk)). */
struct user_namespace *afunix_skb_user_ns(const struct sk_buff *skb)
{
	return sk_user_ns(skb->sk);
}

/* The requester's (unix_diag_get_exact: sk_user_ns(NETLINK_CB(in_skb).sk)). */
struct user_namespace *afunix_netlink_user_ns(const struct sk_buff *skb)
{
	return sk_user_ns(NETLINK_CB(skb).sk);
}

/* netlink_dump_start() is an inline that records THIS_MODULE: the dump pins the module. */
int afunix_diag_dump_start(struct sk_buff *skb, const struct nlmsghdr *nlh,
			   int (*dump)(struct sk_buff *skb, struct netlink_callback *cb))
{
	struct netlink_dump_control c = { .dump = dump };

	return netlink_dump_start(sock_net(skb->sk)->diag_nlsk, skb, nlh, &c);
}

int afunix_diag_unicast(struct sk_buff *in_skb, struct sk_buff *rep)
{
	return nlmsg_unicast(sock_net(in_skb->sk)->diag_nlsk, rep, NETLINK_CB(in_skb).portid);
}

/* The callback's scratch words (a union with ctx, which bindgen leaves opaque). */
long *afunix_cb_args(struct netlink_callback *cb)
{
	return cb->args;
}

const struct nlmsghdr *afunix_cb_nlh(const struct netlink_callback *cb)
{
	return cb->nlh;
}

struct sk_buff *afunix_cb_skb(const struct netlink_callback *cb)
{
	return cb->skb;
}

/* UNIX_DIAG_VFS: d_backing_inode() is an inline. */
void afunix_path_ino_dev(const struct path *path, u32 *ino, u32 *dev)
{
	*ino = d_backing_inode(path->dentry)->i_ino;
	*dev = path->dentry->d_sb->s_dev;
}
