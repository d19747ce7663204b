/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input of the module's own bindgen step, and the header of afunix_helpers.c.
 *
 * The kernel crate's bindings of 6.12 leave `struct sock` opaque and lack `struct proto`,
 * `sk_alloc` and most socket APIs, so the module generates its own (see Kbuild). Many
 * socket APIs are static inlines or macros; afunix_helpers.c wraps the ones the Rust
 * side needs, one line each, under an `afunix_` prefix.
 */
#ifndef AFUNIX_BINDINGS_H
#define AFUNIX_BINDINGS_H

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/un.h>
#include <linux/wait.h>
#include <net/sock.h>
#include <net/tcp_states.h>

/**
 * struct afunix_sock - a socket of the module's family.
 * @sk: the core socket; first, as sk_alloc() allocates &struct proto.obj_size bytes.
 * @lock: the state lock (AF_UNIX's unix_state_lock()): guards @peer and the
 *	shutdown/state transitions.
 * @peer: the connected peer, holding a reference, or NULL.
 * @iolock: one reader at a time on a stream socket (AF_UNIX's u->iolock).
 * @peer_wait: where datagram writers wait for room in this socket's queue.
 */
struct afunix_sock {
	struct sock sk;
	spinlock_t lock;
	struct sock *peer;
	struct mutex iolock;
	wait_queue_head_t peer_wait;
};

/**
 * struct afunix_skb_cb - the module's part of &struct sk_buff.cb.
 * @consumed: bytes of a stream skb already read (AF_UNIX's UNIXCB(skb).consumed).
 */
struct afunix_skb_cb {
	unsigned int consumed;
};

/* The module parameter `family`, defined in afunix_helpers.c. */
extern int afunix_family;

void afunix_sock_init(struct sock *sk);
void afunix_state_lock(struct sock *sk);
void afunix_state_unlock(struct sock *sk);
void afunix_iolock(struct sock *sk);
void afunix_iounlock(struct sock *sk);
void afunix_sock_hold(struct sock *sk);
void afunix_sock_put(struct sock *sk);
void afunix_sock_orphan(struct sock *sk);
void afunix_init_peercred(struct sock *sk);
void afunix_prot_inuse_add(struct sock *sk, int val);
bool afunix_sock_dead(struct sock *sk);
int afunix_sock_error(struct sock *sk);
long afunix_rcvtimeo(struct sock *sk, bool noblock);
long afunix_sndtimeo(struct sock *sk, bool noblock);
int afunix_rcvlowat(struct sock *sk, bool waitall, int len);
int afunix_intr_errno(long timeo);
bool afunix_is_readable(struct sock *sk);
unsigned int afunix_wmem_alloc(struct sock *sk);
struct wait_queue_head *afunix_sk_sleep(struct sock *sk);
void afunix_set_nospace(struct sock *sk);
void afunix_set_waitdata(struct sock *sk, bool on);
struct wait_queue_head *afunix_sleeper_wq(struct sock *sk);
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
void *afunix_rcvq_tail_mark(struct sock *sk, unsigned int *len);
unsigned int afunix_rcvq_len(struct sock *sk);
bool afunix_signal_pending(void);
void afunix_sigpipe(void);
unsigned long afunix_skb_max_alloc(void);
unsigned long afunix_skb_max_head0(void);
unsigned long afunix_stream_frags_size(void);

#endif /* AFUNIX_BINDINGS_H */
