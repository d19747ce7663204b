/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input of the module's own bindgen step, and the header of afunix_helpers.c.
 *
 * The kernel crate's bindings of 6.12 leave `struct sock` opaque and lack `struct proto`,
 * `sk_alloc` and most socket APIs, so the module generates its own (see Kbuild). Many
 * socket APIs are static inlines or macros; afunix_helpers.c wraps the ones the Rust
 * side needs, one line each, under an `afunix_` prefix. The module's own data structures
 * (the socket, the skb control block, the tables) are Rust (sock.rs, hash.rs).
 */
#ifndef AFUNIX_BINDINGS_H
#define AFUNIX_BINDINGS_H

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/magic.h>
#include <linux/resource.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include <asm/ioctls.h>
#include <linux/sockios.h>
#include <net/net_namespace.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/un.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/scm.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <net/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <net/af_unix.h>
/* af_unix.h's shorthand for `peer_wq.wait`: the module names its own fields. */
#undef peer_wait

/* The ioctl numbers that bindgen cannot see through their macro chains. */
enum {
	AFUNIX_SIOCINQ = SIOCINQ,
	AFUNIX_SIOCOUTQ = SIOCOUTQ,
	AFUNIX_SIOCATMARK = SIOCATMARK,
	AFUNIX_SIOCUNIXFILE = SIOCUNIXFILE,
	AFUNIX_ENOIOCTLCMD = ENOIOCTLCMD,
	/* The bit of sk_flags that sock.rs tests itself (sock_flag() is an inline). */
	AFUNIX_SOCK_DEAD = SOCK_DEAD,
	AFUNIX_SOCK_RCU_FREE = SOCK_RCU_FREE,
	AFUNIX_SOCK_RCVTSTAMP = SOCK_RCVTSTAMP,
	AFUNIX_SOCK_SELECT_ERR_QUEUE = SOCK_SELECT_ERR_QUEUE,
	AFUNIX_TASK_FREEZABLE = TASK_FREEZABLE,
	/* 7.3: an enum member (socket_flags) and a BIT() macro. */
	AFUNIX_SOCK_CUSTOM_SOCKOPT = SOCK_CUSTOM_SOCKOPT,
	AFUNIX_LOOKUP_FOLLOW = LOOKUP_FOLLOW,
};

/*
 * What differs between architectures: the page size and frags per skb (x86-64: 4096
 * and 17), for sizing skbs, and the socket type numbers (MIPS swaps STREAM and DGRAM).
 */
enum {
	AFUNIX_PAGE_SIZE = PAGE_SIZE,
	AFUNIX_MAX_SKB_FRAGS = MAX_SKB_FRAGS,
	AFUNIX_SOCK_STREAM = SOCK_STREAM,
	AFUNIX_SOCK_DGRAM = SOCK_DGRAM,
	AFUNIX_SOCK_RAW = SOCK_RAW,
	AFUNIX_SOCK_SEQPACKET = SOCK_SEQPACKET,
};

/*
 * Control messages: the levels and types the module parses, the fd limit of one
 * message, and whether the kernel has LSM socket hooks (SO_PASSSEC then counts for
 * MSG_CTRUNC, as in __scm_recv_common()).
 */
enum {
	AFUNIX_SOL_SOCKET = SOL_SOCKET,
	AFUNIX_SCM_RIGHTS = SCM_RIGHTS,
	AFUNIX_SCM_CREDENTIALS = SCM_CREDENTIALS,
	AFUNIX_SCM_MAX_FD = SCM_MAX_FD,
	AFUNIX_CMSGHDR_SIZE = sizeof(struct cmsghdr),
	AFUNIX_COMPAT_CMSGHDR_SIZE = sizeof(struct compat_cmsghdr),
	AFUNIX_MSG_CTRUNC = MSG_CTRUNC,
	AFUNIX_MSG_CMSG_COMPAT = MSG_CMSG_COMPAT,
	AFUNIX_MSG_SPLICE_PAGES = MSG_SPLICE_PAGES,
	AFUNIX_SECURITY_NETWORK = IS_ENABLED(CONFIG_SECURITY_NETWORK),
	AFUNIX_ANON_INODE_FS_MAGIC = ANON_INODE_FS_MAGIC,
	AFUNIX_FMODE_PATH = (__force unsigned int)FMODE_PATH,
	AFUNIX_SPLICE_F_NONBLOCK = SPLICE_F_NONBLOCK,
	AFUNIX_CAP_SYS_RESOURCE = CAP_SYS_RESOURCE,
};

/* Offsets in struct sock: the two list nodes (the Rust side's list walks), sk_flags. */
enum {
	AFUNIX_SK_NODE_OFFSET = offsetof(struct sock, sk_node),
	AFUNIX_SK_FLAGS_OFFSET = offsetof(struct sock, sk_flags),
	AFUNIX_SK_BIND_NODE_OFFSET = offsetof(struct sock, sk_bind_node),
};

/*
 * The C compiler's sizes of the structs the Rust side lays out or embeds, checked
 * against bindgen's (api/sock/unix.rs): bindgen may drop what it does not model.
 */
enum {
	AFUNIX_SOCK_SIZE = sizeof(struct sock),
	AFUNIX_SK_PEER_LOCK_OFFSET = offsetof(struct sock, sk_peer_lock),
	AFUNIX_UNIX_SOCK_SIZE = sizeof(struct unix_sock),
	AFUNIX_UNIX_SOCK_LOCK_OFFSET = offsetof(struct unix_sock, lock),
	AFUNIX_SK_BUFF_SIZE = sizeof(struct sk_buff),
	AFUNIX_SOCKET_SIZE = sizeof(struct socket),
};

/* The flags of the module's workqueue (an enum bindgen names by its type). */
enum {
	AFUNIX_WQ_UNBOUND = WQ_UNBOUND,
};

/* The size of an skb's control block, of which the module's part takes the start. */
enum {
	AFUNIX_SKB_CB_SIZE = sizeof_field(struct sk_buff, cb),
};

/* The bit numbers of afunix_sk_pass_flags() (6.16 and later). */
enum {
	AFUNIX_PASS_CRED = 0,
	AFUNIX_PASS_SEC = 1,
	AFUNIX_PASS_PIDFD = 2,
	/* SO_PASSSEC is refused (EOPNOTSUPP) without LSM socket hooks, as the core does. */
	AFUNIX_HAS_SECURITY_NETWORK = IS_ENABLED(CONFIG_SECURITY_NETWORK),
};
#ifdef AFUNIX_KLINE_7_3
unsigned int afunix_sk_pass_flags(const struct sock *sk);
void afunix_sk_set_pass_flag(struct sock *sk, unsigned int bit, bool on);
void afunix_sk_copy_pass_flags(struct sock *sk, const struct sock *from);
#endif

/* The module parameter `family`, defined in afunix_helpers.c. */
extern int afunix_family;
/* The debug parameter `autobind_bits`. */
extern int afunix_autobind_bits;
/* The debug parameter `wakeup_unkeyed`. */
extern bool afunix_wakeup_unkeyed;

void afunix_init_state_lock(spinlock_t *state_lock);
void afunix_init_rcvq_lock(struct sock *sk);
void afunix_init_iolock(struct mutex *iolock);
void afunix_init_bindlock(struct mutex *bindlock);
void afunix_init_peer_wait(struct wait_queue_head *peer_wait);
void afunix_set_sk_wq(struct sock *sk, struct socket_wq *wq);
void afunix_spin_lock(spinlock_t *lock);
void afunix_mutex_lock(struct mutex *lock);
int afunix_mutex_lock_interruptible(struct mutex *lock);
void afunix_spin_unlock(spinlock_t *lock);
void afunix_sock_hold(struct sock *sk);
bool afunix_sock_refcnt_dec_and_test(struct sock *sk);
unsigned int afunix_sock_refcnt(struct sock *sk);
void afunix_sock_orphan(struct sock *sk);
struct task_struct *afunix_current_task(void);
struct pid *afunix_current_tgid(void);
struct pid *afunix_get_pid(struct pid *pid);
const struct cred *afunix_get_current_cred(void);
const struct cred *afunix_get_cred(const struct cred *cred);
void afunix_put_cred(const struct cred *cred);
const struct cred *afunix_current_cred(void);
void afunix_prot_inuse_add(struct sock *sk, int val);
int afunix_sock_error(struct sock *sk);
long afunix_rcvtimeo(struct sock *sk, bool noblock);
long afunix_sndtimeo(struct sock *sk, bool noblock);
int afunix_rcvlowat(struct sock *sk, bool waitall, int len);
int afunix_intr_errno(long timeo);
bool afunix_is_readable(struct sock *sk);
unsigned int afunix_wmem_alloc(struct sock *sk);
void afunix_wmem_charge(struct sock *sk, unsigned int bytes);
void afunix_skb_set_csum_unnecessary(struct sk_buff *skb);
struct wait_queue_head *afunix_sk_sleep(struct sock *sk);
void afunix_set_nospace(struct sock *sk);
void afunix_set_waitdata(struct sock *sk);
void afunix_clear_waitdata(struct sock *sk);
struct socket_wq *afunix_sk_wq(struct sock *sk);
void afunix_rcu_read_lock(void);
bool afunix_wq_has_sleeper(struct wait_queue_head *wq);
void afunix_rcu_read_unlock(void);
void afunix_wake_async(struct sock *sk, int how, int band);
void afunix_wake_up_interruptible_all(struct wait_queue_head *wq);
void afunix_poll_wait(struct file *file, struct socket *sock, poll_table *wait);
__poll_t afunix_poll_requested(poll_table *wait);
bool afunix_rcvq_empty(struct sock *sk);
bool afunix_errq_empty(struct sock *sk);
struct sk_buff *afunix_rcvq_peek(struct sock *sk);
struct sk_buff *afunix_rcvq_peek_next(struct sock *sk, struct sk_buff *skb);
struct sk_buff *afunix_rcvq_peek_tail(struct sock *sk);
unsigned int afunix_skb_tailroom(const struct sk_buff *skb);
int afunix_skb_cloned(const struct sk_buff *skb);
void afunix_skb_put_data(struct sk_buff *skb, const void *data, unsigned int len);
unsigned char *afunix_skb_tail_pointer(const struct sk_buff *skb);
bool afunix_copy_from_iter_full(void *addr, size_t bytes, struct iov_iter *i);
int afunix_skb_copy_linear(const struct sk_buff *skb, int offset, struct iov_iter *to,
			   int len);
unsigned int afunix_rcvq_len(struct sock *sk);
bool afunix_signal_pending(void);
void afunix_sigpipe(void);
unsigned long afunix_skb_max_alloc(void);
unsigned long afunix_skb_max_head0(void);

/* afunix_glue.c: the pernet id, read by afunix_net_state(). */
extern unsigned int afunix_net_id;
int afunix_pernet_register(void);
void afunix_pernet_unregister(void);
void *afunix_net_state(struct net *net);
struct net *afunix_sock_net(struct sock *sk);
int afunix_unix_max_dgram_qlen(const struct net *net);
/* Defined in Rust (api/pernet.rs): the per-netns state, made and freed. */
int rust_afunix_net_init(struct net *net, void **slot);
void rust_afunix_net_exit(struct net *net, void **slot);
/* The sysctls: abstract_buckets, pathname_buckets, stream_coalesce (in this order). */
enum {
	AFUNIX_SYSCTLS = 3,
};
extern const struct ctl_table afunix_sysctl_template[AFUNIX_SYSCTLS];
struct proc_dir_entry *afunix_proc_create(struct net *net, const struct seq_operations *ops,
					  unsigned int state_size);
void *afunix_seq_state(struct seq_file *seq);
void afunix_proc_remove(struct net *net);
long afunix_outq_len(struct sock *sk);
int afunix_put_int(unsigned long arg, int val);
#ifdef CONFIG_COMPAT
unsigned long afunix_compat_arg(unsigned long arg);
#endif
int afunix_peek_offset(struct sock *sk, int flags);
void afunix_peek_offset_fwd(struct sock *sk, int val);
void afunix_peek_offset_bwd(struct sock *sk, int val);
struct sk_buff_head *afunix_rcvq(struct sock *sk);
void afunix_table_lock_init(spinlock_t *table_bucket_lock);
void afunix_bsd_lock_init(spinlock_t *bsd_bucket_lock);
void afunix_spin_lock_nested(spinlock_t *lock);
void afunix_assert_state_lock_order(spinlock_t *first, spinlock_t *second);
void afunix_assert_rcvq_lock_order(struct sock *listener, struct sock *embryo);
void afunix_spin_lock_third(spinlock_t *lock);
void afunix_sk_add_node_rcu(struct sock *sk, struct hlist_head *list);
void afunix_hlist_add_head_rcu(struct hlist_node *n, struct hlist_head *h);
void afunix_hlist_del_init_rcu(struct hlist_node *n);
void afunix_hlist_del_rcu(struct hlist_node *n);
void afunix___sock_put(struct sock *sk);
bool afunix_sock_hold_not_zero(struct sock *sk);
void afunix_set_bit(long nr, unsigned long *addr);
void afunix_cond_resched(void);
struct inode *afunix_sock_inode(struct socket *sock);
int afunix_security_path_mknod(const struct path *dir, struct dentry *dentry, umode_t mode,
			       unsigned int dev);
struct mnt_idmap *afunix_mnt_idmap(const struct vfsmount *mnt);
int afunix_security_unix_stream_connect(struct sock *sk, struct sock *other, struct sock *newsk);
int afunix_security_unix_may_send(struct socket *sock, struct socket *other);
u32 afunix_security_peersec_dgram(struct socket *sock);
int afunix_security_unix_find(const struct path *path, struct sock *other, int flags);
void afunix_scm_passec(struct socket *sock, struct msghdr *msg, u32 secid);
int afunix_sk_filter(struct sock *sk, struct sk_buff *skb);
void afunix_net_timestamp(struct sk_buff *skb);
int afunix_copy_from_sockptr(void *dst, sockptr_t src, size_t size);
void afunix_mknod_done(struct path *parent, struct dentry *dentry);
struct dentry *afunix_path_create(const char *name, struct path *parent);
int afunix_vfs_mknod(struct mnt_idmap *idmap, struct inode *dir, struct dentry *dentry,
		     umode_t mode);
kuid_t afunix_sock_uid(struct sock *sk);
unsigned long afunix_sock_ino(struct sock *sk);
int afunix_mutex_trylock(struct mutex *lock);
int afunix_current_umask(void);
struct dentry *afunix_file_dentry(const struct file *file);
const unsigned char *afunix_dentry_name(const struct dentry *dentry, unsigned int *len);
struct workqueue_struct *afunix_alloc_workqueue(const char *name, unsigned int flags);
struct dentry *afunix_dget(struct dentry *dentry);
int afunix_path_permission(const struct path *path, int mask);
void afunix_path_put(struct path *path);
void afunix_touch_atime(struct path *path);
struct sk_buff *afunix_embryo_skb(struct sock *newsk);
struct sock *afunix_skb_sock(struct sk_buff *skb);
void afunix_sock_graft(struct sock *sk, struct socket *parent);
void afunix_wake_up_interruptible(struct wait_queue_head *wq);
void afunix_error_report(struct sock *sk);
struct net *afunix_seq_net(struct seq_file *seq);
unsigned int afunix_sk_refcnt(struct sock *sk);
void afunix___add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *entry);
void afunix___remove_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *entry);

long afunix_file_count(struct file *file);
struct file *afunix_get_file(struct file *file);
struct scm_fp_list *afunix_fpl_alloc(unsigned int max);
void *afunix_addr_alloc(size_t size);
unsigned long afunix_rlimit_nofile(void);
void afunix_gc_lock_init(spinlock_t *gc_lock);
void afunix_list_init(struct list_head *list);
void afunix_list_add_tail(struct list_head *entry, struct list_head *head);
void afunix_list_del(struct list_head *entry);
void afunix_list_move(struct list_head *entry, struct list_head *head);
void afunix_skb_queue_head_init(struct sk_buff_head *list);
void afunix_skb_queue_splice_tail_init(struct sk_buff_head *list, struct sk_buff_head *head);
struct sk_buff *afunix_skb_dequeue_unlocked(struct sk_buff_head *list);

bool afunix_sock_urginline(const struct sock *sk);
void afunix_skb_queue_tail_locked(struct sk_buff_head *list, struct sk_buff *skb);
void afunix_skb_unlink_locked(struct sk_buff *skb, struct sk_buff_head *list);

/* sock_diag (diag.rs): the netlink inlines. */
struct nlmsghdr *afunix_nlmsg_put(struct sk_buff *skb, u32 portid, u32 seq, int type,
				  int payload, int flags);
void *afunix_nlmsg_data(const struct nlmsghdr *nlh);
int afunix_nlmsg_len(const struct nlmsghdr *nlh);
void afunix_nlmsg_end(struct sk_buff *skb, struct nlmsghdr *nlh);
void afunix_nlmsg_cancel(struct sk_buff *skb, struct nlmsghdr *nlh);
struct sk_buff *afunix_nlmsg_new(size_t payload);
void afunix_nlmsg_free(struct sk_buff *skb);
void *afunix_nla_data(const struct nlattr *nla);
int afunix_skb_len(const struct sk_buff *skb);
struct net *afunix_skb_net(const struct sk_buff *skb);
u32 afunix_netlink_portid(const struct sk_buff *skb);
struct user_namespace *afunix_skb_user_ns(const struct sk_buff *skb);
struct user_namespace *afunix_netlink_user_ns(const struct sk_buff *skb);
int afunix_diag_dump_start(struct sk_buff *skb, const struct nlmsghdr *nlh,
			   int (*dump)(struct sk_buff *skb, struct netlink_callback *cb));
int afunix_diag_unicast(struct sk_buff *in_skb, struct sk_buff *rep);
long *afunix_cb_args(struct netlink_callback *cb);
const struct nlmsghdr *afunix_cb_nlh(const struct netlink_callback *cb);
struct sk_buff *afunix_cb_skb(const struct netlink_callback *cb);
void afunix_path_ino_dev(const struct path *path, u32 *ino, u32 *dev);

#endif /* AFUNIX_BINDINGS_H */
