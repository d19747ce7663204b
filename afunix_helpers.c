// SPDX-License-Identifier: GPL-2.0
/*
 * Static-inline and macro kernel APIs, made callable from Rust, and the module
 * parameter that the Rust `module!` of 6.12 cannot declare. Nothing here decides
 * anything: each helper is the one call it wraps.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "afunix_bindings.h"

/*
 * AF_DECnet (12): its code was removed from Linux in 6.1, so no 6.12 code registers
 * this slot. See README.md, "Family number".
 */
int afunix_family = 12;
module_param_named(family, afunix_family, int, 0444);
MODULE_PARM_DESC(family, "Address family number to register (default 12, ex-AF_DECnet; 1..45, free)");

void afunix_sock_init(struct sock *sk)
{
	struct afunix_sock *u = container_of(sk, struct afunix_sock, sk);

	spin_lock_init(&u->lock);
	u->peer = NULL;
	mutex_init(&u->iolock);
	init_waitqueue_head(&u->peer_wait);
}

void afunix_state_lock(struct sock *sk)
{
	spin_lock(&container_of(sk, struct afunix_sock, sk)->lock);
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
